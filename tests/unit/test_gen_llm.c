/* SPDX-License-Identifier: MIT */
/*
 * gdrlab gen llm (engine/gen_llm.c, llm_arch.c): the zoo's parameter
 * counts against the published ones, and an iteration's bytes per
 * communicator against the closed forms of each kind of parallelism.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "gen_llm_helpers.h"

/* Published totals: Hugging Face's model cards / config parameter counts,
 * and GPT-3's 175.0B (Brown et al. 2020, table 2.1: rounded). */
Test(gen_llm, zoo_matches_published_parameter_counts)
{
	cr_expect_eq(llm_total_params(llm_arch_find("llama3-8b")), 8030261248ull);
	cr_expect_eq(llm_total_params(llm_arch_find("llama3-70b")), 70553706496ull);
	cr_expect_eq(llm_total_params(llm_arch_find("llama3-405b")), 405853388800ull);
	cr_expect_eq(llm_total_params(llm_arch_find("mixtral-8x7b")), 46702792704ull);
	/* by hand from its config.json: embedding and head 2 x 50304 x 2048;
	 * a layer's q, k, v, o 4 x 2048^2, q and k norms 2 x 2048, two norms
	 * 2 x 2048, router 2048 x 64, experts 64 x 3 x 2048 x 1024; 16
	 * layers and the final norm */
	cr_expect_eq(llm_total_params(llm_arch_find("olmoe-1b-7b")),
		     2ull * 50304 * 2048 +
			     16ull * (4ull * 2048 * 2048 + 4 * 2048 + 2048 * 64 +
				      64ull * 3 * 2048 * 1024) +
			     2048);
	cr_expect_eq(llm_total_params(llm_arch_find("olmoe-1b-7b")), 6919161856ull);
	assert_rel(llm_total_params(llm_arch_find("gpt3-175b")), 175.0e9, 0.005);
	cr_expect_null(llm_arch_find("llama3-7b"));
}

/*
 * DeepSeek's, by hand from deepseek-ai/DeepSeek-V3's inference/configs
 * and model.py (MLA: wq or wq_a, q_norm, wq_b; wkv_a, kv_norm, wkv_b;
 * wo; two norms a block; a dense MLP in the first layers, else a gate,
 * the routed experts and one MLP of the shared ones), against the
 * papers' 15.7B and 671B.
 */
Test(gen_llm, deepseek_counts_from_their_configs)
{
	/* V2-Lite: dim 2048, 16 heads of 128 + 64 query-key and 128 value,
	 * kv rank 512, no query rank; layer 0 dense at 10944, 26 MoE
	 * layers of 64 experts of 1408 and 2 shared; vocab 102400 */
	uint64_t attn = 2048ull * 16 * 192 + 2048ull * (512 + 64) + 512 +
			512ull * 16 * (128 + 128) + 16ull * 128 * 2048 + 2 * 2048;
	uint64_t moe = 64ull * 3 * 2048 * 1408 + 3ull * 2048 * (2 * 1408) + 2048ull * 64;
	uint64_t lite = 2ull * 102400 * 2048 + 2048 + (attn + 3ull * 2048 * 10944) +
			26 * (attn + moe);
	/* V3: dim 7168, 128 heads, query rank 1536, the first 3 layers
	 * dense at 18432, 58 MoE layers of 256 experts of 2048 and one
	 * shared; vocab 129280 */
	uint64_t attn3 = 7168ull * 1536 + 1536 + 1536ull * 128 * 192 + 7168ull * (512 + 64) + 512 +
			 512ull * 128 * 256 + 128ull * 128 * 7168 + 2 * 7168;
	uint64_t moe3 = 256ull * 3 * 7168 * 2048 + 3ull * 7168 * 2048 + 7168ull * 256;
	uint64_t v3 = 2ull * 129280 * 7168 + 7168 + 3 * (attn3 + 3ull * 7168 * 18432) +
		      58 * (attn3 + moe3);
	const struct llm_arch *a = llm_arch_find("deepseek-v3");

	cr_expect_eq(llm_total_params(llm_arch_find("deepseek-v2-lite")), lite);
	assert_rel(lite, 15.7e9, 0.005);
	cr_expect_eq(llm_total_params(a), v3);
	assert_rel(v3, 671e9, 0.0005);
	cr_expect(!llm_layer_moe(a, 2) && llm_layer_moe(a, 3));
	cr_expect_eq(llm_layer_routed_params(a, 2), 0);
	cr_expect_eq(llm_layer_routed_params(a, 3), 256ull * 3 * 7168 * 2048);
	/* a MoE layer's FLOPs a token: attention's weights, 8 routed and
	 * the shared expert, scores over 4096 tokens of 128 heads x (192 +
	 * 128) wide, causal: half of them (Megatron-LM's count) */
	assert_rel(llm_layer_flops_per_token(a, 3, 4096),
		   2.0 * (attn3 - 1536 - 512 - 2 * 7168) + 2.0 * 9 * 3 * 7168 * 2048 +
			   4096.0 * 128 * 320,
		   1e-12);
}

/*
 * Causal attention computes half the scores of a full mask: a token's
 * scores and weighted sum are 2 x seq x hidden FLOPs forward, not
 * Narayanan et al.'s 4 x seq x hidden, as Megatron-LM's own count has
 * them (training.py num_floating_point_operations: "causal mask (only
 * half of the mask is non-zero)"). Llama-3-8B at 8192 tokens: the
 * weights' 2 x (q, o 4096^2; k, v 4096 x 1024; the MLP 3 x 4096 x
 * 14336) and 2 x 8192 x 4096; it was 4 x 8192 x 4096 until 2026-12-06.
 */
Test(gen_llm, attention_flops_are_causal)
{
	const struct llm_arch *a = llm_arch_find("llama3-8b");
	double weights = 2.0 * 4096 * 4096 + 2.0 * 4096 * 1024 + 3.0 * 4096 * 14336;

	assert_rel(llm_layer_flops_per_token(a, 0, 8192), 2 * weights + 2.0 * 8192 * 4096, 1e-12);
	assert_rel(llm_layer_flops_per_token(a, 0, 1), 2 * weights + 2.0 * 4096, 1e-12);
}

/* ZeRO 0: each data-parallel group all-reduces its rank's whole
 * gradient, params x GRAD bytes, once an iteration. */
Test(gen_llm, zero0_all_reduces_the_gradients)
{
	struct gen_llm_options o = base("llama3-8b");
	uint64_t P = llm_total_params(o.arch);
	struct trace t;

	o.dp = 4;
	o.micro_batches = 3;
	make(&o, &t);
	cr_expect_eq(bytes_of(&t, "dp-s0-t0", TRACE_OP_ALLREDUCE), GRAD * P);
	cr_expect_eq(bytes_of(&t, "dp", TRACE_OP_REDUCE_SCATTER), 0);
	cr_expect_eq(t.ncomms, 1);
	cr_expect_eq(t.entries[0].ngroup, 4);
	trace_destroy(&t);
}

/* ZeRO 1 and 2: gradients reduce-scattered (params x GRAD bytes),
 * parameters all-gathered (params x 2, bf16): the whole buffers, as the
 * trace counts them. */
Test(gen_llm, zero1_reduce_scatters_and_gathers)
{
	struct gen_llm_options o = base("llama3-8b");
	uint64_t P = llm_total_params(o.arch);
	struct trace t;

	o.dp = 8;
	o.zero = 1;
	make(&o, &t);
	cr_expect_eq(bytes_of(&t, "dp", TRACE_OP_REDUCE_SCATTER), GRAD * P);
	cr_expect_eq(bytes_of(&t, "dp", TRACE_OP_ALL_GATHER), 2 * P);
	cr_expect_eq(bytes_of(&t, "dp", TRACE_OP_ALLREDUCE), 0);
	trace_destroy(&t);
}

/* Over 6 ranks a 25 MiB bucket is no whole number of elements a rank:
 * Megatron's distributed optimizer pads each bucket's end to lcm(dp, 128)
 * elements, 384 here: every bucket a multiple of it, the whole at most a
 * padding a bucket over the parameters. */
Test(gen_llm, zero1_buckets_padded_to_whole_shards)
{
	struct gen_llm_options o = base("llama3-8b");
	uint64_t P = llm_total_params(o.arch), n = 0, sum = 0;
	struct trace t;

	o.dp = 6;
	o.zero = 1;
	make(&o, &t);
	for (size_t i = 0; i < t.nentries; i++)
		if (t.entries[i].op == TRACE_OP_REDUCE_SCATTER) {
			cr_expect_eq(t.entries[i].bytes % (GRAD * 384), 0, "%llu bytes",
				     (unsigned long long)t.entries[i].bytes);
			sum += t.entries[i].bytes;
			n++;
		}
	cr_expect(sum >= GRAD * P && sum < GRAD * (P + 384 * n), "%llu for %llu", (unsigned long long)sum,
		  (unsigned long long)(GRAD * P));
	trace_destroy(&t);
}

/* ZeRO 3: every micro-batch gathers the parameters forward and backward
 * and reduce-scatters the gradients: 2 x params gathered and params
 * reduce-scattered per micro-batch (the closed form at one). */
Test(gen_llm, zero3_gathers_twice_and_scatters_once_a_micro_batch)
{
	struct gen_llm_options o = base("llama3-8b");
	uint64_t P = llm_total_params(o.arch);
	struct trace t;

	o.dp = 4;
	o.zero = 3;
	make(&o, &t);
	cr_expect_eq(bytes_of(&t, "dp", TRACE_OP_ALL_GATHER), 2 * 2 * P);
	cr_expect_eq(bytes_of(&t, "dp", TRACE_OP_REDUCE_SCATTER), GRAD * P);
	trace_destroy(&t);
	o.micro_batches = 3;
	make(&o, &t);
	cr_expect_eq(bytes_of(&t, "dp", TRACE_OP_ALL_GATHER), 3 * 2 * 2 * P);
	cr_expect_eq(bytes_of(&t, "dp", TRACE_OP_REDUCE_SCATTER), 3 * GRAD * P);
	trace_destroy(&t);
}

/* The @n-th (from 0) @op on communicator @comm: its bytes, 0 if none. */
static uint64_t nth_bytes(const struct trace *t, const char *comm, enum trace_op op, size_t n)
{
	for (size_t i = 0; i < t->nentries; i++)
		if (t->entries[i].op == op && !strcmp(trace_entry_comm(t, &t->entries[i]), comm) &&
		    !n--)
			return t->entries[i].bytes;
	return 0;
}

/* Calls of @op on communicator @comm. */
static size_t count_named(const struct trace *t, const char *comm, enum trace_op op)
{
	size_t n = 0;

	for (size_t i = 0; i < t->nentries; i++)
		n += t->entries[i].op == op && !strcmp(trace_entry_comm(t, &t->entries[i]), comm);
	return n;
}

/*
 * Megatron-Core's gradient buckets, derived by hand from its code
 * (distributed_data_parallel.py: bucket_size max(40M, 1M x dp) elements
 * with overlap_grad_reduce, none on a stage past the first or without
 * it; param_and_grad_buffer.py: the parameters in reverse, a bucket
 * closed at the end of the parameter that takes it to bucket_size or
 * more). Llama-3-70B at tp 8 on 4 stages, dp 2: a rank's layer holds
 * attention's q, k, v 8192 x 10240 / 8 with the layer's two norms (2 x
 * 1024): 10,487,808; its output 8,388,608; fc1 2 x 28672 x 8192 / 8:
 * 58,720,256; fc2 29,360,128; stage 0 holds layers 0-19 and the
 * embedding, 128256 x 8192 / 8 = 131,334,144. Backward from layer 19:
 * {fc2, fc1} (88,080,384 >= 40M), then for each layer l = 19..1 {its
 * output, its qkv, layer l - 1's fc2} (48,236,544) and {l - 1's fc1},
 * then {layer 0's output, its qkv, the embedding} (150,210,560): 40
 * all-reduces (25 MiB buckets made 337 until 2026-12-06). Stages 1-3:
 * one bucket, a stage's 20 layers.
 */
Test(gen_llm, megatron_buckets)
{
	struct gen_llm_options o = base("llama3-70b");
	uint64_t layer = 10487808ull + 8388608 + 58720256 + 29360128;
	struct trace t;

	o.tp = 8;
	o.pp = 4;
	o.dp = 2;
	o.micro_batches = 8;
	make(&o, &t);
	cr_expect_eq(layer, 855654400ull / 8);
	cr_expect_eq(count_named(&t, "dp-s0-t0", TRACE_OP_ALLREDUCE), 40);
	cr_expect_eq(nth_bytes(&t, "dp-s0-t0", TRACE_OP_ALLREDUCE, 0), GRAD * 88080384ull);
	for (size_t k = 1; k < 39; k += 2) {
		cr_expect_eq(nth_bytes(&t, "dp-s0-t0", TRACE_OP_ALLREDUCE, k), GRAD * 48236544ull,
			     "bucket %zu", k);
		cr_expect_eq(nth_bytes(&t, "dp-s0-t0", TRACE_OP_ALLREDUCE, k + 1), GRAD * 58720256ull,
			     "bucket %zu", k + 1);
	}
	cr_expect_eq(nth_bytes(&t, "dp-s0-t0", TRACE_OP_ALLREDUCE, 39), GRAD * 150210560ull);
	cr_expect_eq(bytes_of(&t, "dp-s0-t0", TRACE_OP_ALLREDUCE), GRAD * (20 * layer + 131334144));
	cr_expect_eq(count_named(&t, "dp-s2-t5", TRACE_OP_ALLREDUCE), 1);
	cr_expect_eq(nth_bytes(&t, "dp-s2-t5", TRACE_OP_ALLREDUCE, 0), GRAD * 20 * layer);
	trace_destroy(&t);
	/* --bucket-cap 200 MiB of fp32: 52,428,800 elements. {fc2, fc1}
	 * of layer 19, then {output, qkv of l; fc2, fc1 of l - 1} (48.2M
	 * before the fc1), then {layer 0's output, qkv, the embedding}: 21 */
	o.bucket_bytes = 200ull << 20;
	make(&o, &t);
	cr_expect_eq(count_named(&t, "dp-s0-t0", TRACE_OP_ALLREDUCE), 21);
	cr_expect_eq(nth_bytes(&t, "dp-s0-t0", TRACE_OP_ALLREDUCE, 1), GRAD * layer);
	cr_expect_eq(count_named(&t, "dp-s1-t0", TRACE_OP_ALLREDUCE), 1);
	trace_destroy(&t);
	/* overlap off: one bucket a stage, when its backward ends */
	o.bucket_bytes = 0;
	o.overlap_grad_reduce = false;
	make(&o, &t);
	cr_expect_eq(count_named(&t, "dp-s0-t0", TRACE_OP_ALLREDUCE), 1);
	cr_expect_eq(nth_bytes(&t, "dp-s0-t0", TRACE_OP_ALLREDUCE, 0),
		     GRAD * (20 * layer + 131334144));
	trace_destroy(&t);
}

/*
 * Past 40 ranks a bucket is 1M x dp elements. Llama-3-8B on one stage,
 * reversed: the output layer 128256 x 4096 = 525,336,576 (a bucket
 * alone), the final norm and layer 31's fc2 (4096 + 58,720,256), its
 * fc1 117,440,512, then a layer's output 16,777,216 and q, k, v with
 * its norms 25,174,016, the next fc2 and fc1, down to layer 0's output,
 * q, k, v and the embedding 525,336,576. At dp 40 (40M): the output;
 * {norm, fc2}; fc1; then each layer {output, qkv} (41.9M), fc2 and fc1
 * apart; {embedding}: 1 + 2 + 31 x 3 + 1 + 1 = 98. At dp 64 (64M):
 * the output; {norm, fc2, fc1}; then {output, qkv, fc2} (100.7M) and
 * fc1 for each of 31 layers; {output, qkv, embedding}: 1 + 1 + 62 + 1 =
 * 65.
 */
Test(gen_llm, megatron_buckets_grow_with_dp)
{
	struct gen_llm_options o = base("llama3-8b");
	struct trace t;

	o.dp = 40;
	make(&o, &t);
	cr_expect_eq(count_named(&t, "dp-s0-t0", TRACE_OP_ALLREDUCE), 98);
	cr_expect_eq(nth_bytes(&t, "dp-s0-t0", TRACE_OP_ALLREDUCE, 0), GRAD * 525336576ull);
	cr_expect_eq(nth_bytes(&t, "dp-s0-t0", TRACE_OP_ALLREDUCE, 1), GRAD * (4096 + 58720256ull));
	cr_expect_eq(nth_bytes(&t, "dp-s0-t0", TRACE_OP_ALLREDUCE, 3),
		     GRAD * (16777216ull + 25174016));
	trace_destroy(&t);
	o.dp = 64;
	make(&o, &t);
	cr_expect_eq(count_named(&t, "dp-s0-t0", TRACE_OP_ALLREDUCE), 65);
	cr_expect_eq(nth_bytes(&t, "dp-s0-t0", TRACE_OP_ALLREDUCE, 2),
		     GRAD * (16777216ull + 25174016 + 58720256));
	cr_expect_eq(nth_bytes(&t, "dp-s0-t0", TRACE_OP_ALLREDUCE, 64),
		     GRAD * (16777216ull + 25174016 + 525336576));
	cr_expect_eq(bytes_of(&t, "dp-s0-t0", TRACE_OP_ALLREDUCE), GRAD * llm_total_params(o.arch));
	trace_destroy(&t);
}

/*
 * ZeRO 1: the distributed optimizer all-gathers each bucket's parameters
 * after the step over the buckets it reduce-scattered (param_and_grad_
 * buffer.py _ParamAndGradBucketGroup.start_param_sync: a call a bucket),
 * the same elements in bf16: as many all-gathers as reduce-scatters, the
 * k-th half the k-th's bytes (fp32 gradients). Until 2026-12-06 the
 * gathers went in 25 MiB of bf16, twice the parameters of a gradient
 * bucket: half as many.
 */
Test(gen_llm, zero1_gathers_each_bucket)
{
	struct gen_llm_options o = base("llama3-70b");
	struct trace t;
	size_t n;

	o.tp = 8;
	o.dp = 4;
	o.sequence_parallel = true;
	o.zero = 1;
	make(&o, &t);
	n = count_named(&t, "dp-s0-t3", TRACE_OP_REDUCE_SCATTER);
	cr_expect_gt(n, 1);
	cr_expect_eq(count_named(&t, "dp-s0-t3", TRACE_OP_ALL_GATHER), n);
	for (size_t k = 0; k < n; k++)
		cr_expect_eq(2 * nth_bytes(&t, "dp-s0-t3", TRACE_OP_ALL_GATHER, k),
			     nth_bytes(&t, "dp-s0-t3", TRACE_OP_REDUCE_SCATTER, k), "bucket %zu", k);
	trace_destroy(&t);
}

/*
 * GPT-3's tied embedding over 8 stages (tp 8, dp 2): the last stage
 * holds its own copy, 50257 x 12288 / 8 = 77,194,752 a rank, as its
 * output layer (gpt_model.py: skip_weight_param_allocation only where
 * pre_process), reduced over dp with the stage's 12 layers and final
 * norm, then all-reduced with the first stage's (finalize_model_grads.py
 * _allreduce_word_embedding_grads): ranks 0 and 0 + 8 (0 + 2 x 7) = 112.
 * The learned positions, 2048 x 12288, are whole on every tp rank
 * (language_model_embedding.py: a torch.nn.Embedding). A layer by hand:
 * q, k, v, o 4 x 12288^2 with their biases 4 x 12288, the MLP 2 x 12288
 * x 49152 with 49152 + 12288 of biases, two LayerNorms 4 x 12288.
 */
Test(gen_llm, tied_embedding_on_the_last_stage)
{
	struct gen_llm_options o = base("gpt3-175b");
	uint64_t h = 12288, words = 50257ull * 12288 / 8;
	uint64_t layer = 4 * h * h + 4 * h + 2 * h * 49152 + 49152 + h + 4 * h;
	struct trace t;

	o.tp = 8;
	o.pp = 8;
	o.dp = 2;
	make(&o, &t);
	cr_expect_eq(llm_layer_params(o.arch, 0), layer);
	cr_expect_eq(words, 77194752);
	cr_expect_eq(bytes_of(&t, "dp-s7-t0", TRACE_OP_ALLREDUCE),
		     GRAD * (12 * layer / 8 + 2 * h / 8 + words));
	cr_expect_eq(bytes_of(&t, "dp-s0-t5", TRACE_OP_ALLREDUCE),
		     GRAD * (12 * layer / 8 + words + 2048 * h));
	cr_expect_eq(count_named(&t, "emb-d1-t3", TRACE_OP_ALLREDUCE), 1);
	cr_expect_eq(bytes_of(&t, "emb-d1-t3", TRACE_OP_ALLREDUCE), GRAD * words);
	for (size_t i = 0; i < t.nentries; i++)
		if (!strcmp(trace_entry_comm(&t, &t.entries[i]), "emb-d0-t0")) {
			cr_expect_eq(t.entries[i].ngroup, 2);
			cr_expect_eq(t.entries[i].group[0], 0);
			cr_expect_eq(t.entries[i].group[1], 112);
		}
	trace_destroy(&t);
	/* the distributed optimizer gives each stage's copy a bucket of its
	 * own (distrib_optimizer.py _does_param_require_new_bucket): the
	 * last stage's first (77,194,752 = 603,084 x 128, no padding), then
	 * its one other; the first stage's last, after its positions */
	o.zero = 1;
	make(&o, &t);
	cr_expect_eq(count_named(&t, "dp-s7-t0", TRACE_OP_REDUCE_SCATTER), 2);
	cr_expect_eq(nth_bytes(&t, "dp-s7-t0", TRACE_OP_REDUCE_SCATTER, 0), GRAD * words);
	cr_expect_eq(nth_bytes(&t, "dp-s0-t0", TRACE_OP_REDUCE_SCATTER,
			       count_named(&t, "dp-s0-t0", TRACE_OP_REDUCE_SCATTER) - 1),
		     GRAD * words);
	trace_destroy(&t);
	/* on one stage the head is the embedding: no copy, no group */
	o.zero = 0;
	o.pp = 1;
	make(&o, &t);
	cr_expect_eq(bytes_of(&t, "emb", TRACE_OP_ALLREDUCE), 0);
	cr_expect_eq(bytes_of(&t, "dp-s0-t0", TRACE_OP_ALLREDUCE),
		     GRAD * (96 * layer / 8 + 2 * h / 8 + words + 2048 * h));
	trace_destroy(&t);
}

/* ZeRO 3 gathers a module at a time, each its own size: the first stage
 * its embedding before layer 0, the last its head and final norm with
 * the last layer; in backward the head first and the embedding last. */
Test(gen_llm, zero3_gathers_each_module)
{
	struct gen_llm_options o = base("llama3-8b");
	const struct llm_arch *a = o.arch;
	uint64_t emb = 128256ull * 4096, head = 128256ull * 4096 + 4096;
	uint64_t layer = 2ull * 4096 * 4096 + 2ull * 4096 * 1024 + 3ull * 4096 * 14336 + 2 * 4096;
	struct trace t;

	o.dp = 2;
	o.pp = 2;
	o.zero = 3;
	make(&o, &t);
	cr_expect_eq(llm_layer_params(a, 0), layer);
	/* stage 0: embedding, 16 layers forward; 16 layers, embedding back */
	cr_expect_eq(nth_bytes(&t, "dp-s0-t0", TRACE_OP_ALL_GATHER, 0), 2 * emb);
	cr_expect_eq(nth_bytes(&t, "dp-s0-t0", TRACE_OP_ALL_GATHER, 1), 2 * layer);
	cr_expect_eq(nth_bytes(&t, "dp-s0-t0", TRACE_OP_ALL_GATHER, 33), 2 * emb);
	cr_expect_eq(nth_bytes(&t, "dp-s0-t0", TRACE_OP_ALL_GATHER, 34), 0);
	cr_expect_eq(nth_bytes(&t, "dp-s0-t0", TRACE_OP_REDUCE_SCATTER, 16), GRAD * emb);
	/* stage 1: 16 layers, the head with the last; the head, 16 back */
	cr_expect_eq(nth_bytes(&t, "dp-s1-t0", TRACE_OP_ALL_GATHER, 16), 2 * head);
	cr_expect_eq(nth_bytes(&t, "dp-s1-t0", TRACE_OP_ALL_GATHER, 17), 2 * head);
	cr_expect_eq(nth_bytes(&t, "dp-s1-t0", TRACE_OP_REDUCE_SCATTER, 0), GRAD * head);
	cr_expect_eq(nth_bytes(&t, "dp-s1-t0", TRACE_OP_ALL_GATHER, 34), 0);
	trace_destroy(&t);
}

/* Tensor parallelism: 4 all-reduces a layer and micro-batch (2 forward,
 * 2 backward) of micro-batch x seq x hidden x 2 bytes; with sequence
 * parallelism an all-gather and a reduce-scatter of it in place of each,
 * and in backward each column-parallel linear's input gathered again for
 * its weight's gradient (Megatron-LM's layers.py): 6 all-gathers, 4
 * reduce-scatters. The data-parallel gradients of a rank are then its tp
 * share. */
Test(gen_llm, tensor_parallel_bytes)
{
	struct gen_llm_options o = base("llama3-8b");
	uint64_t act = 2ull * 1024 * 4096 * 2, L = 32, m = 2;
	struct trace t;

	o.tp = 4;
	o.dp = 2;
	o.micro_batches = (unsigned)m;
	o.micro_batch_size = 2;
	make(&o, &t);
	cr_expect_eq(bytes_of(&t, "tp-s0-d1", TRACE_OP_ALLREDUCE), 4 * L * m * act);
	cr_expect_eq(bytes_of(&t, "tp", TRACE_OP_ALL_GATHER), 0);
	cr_expect_eq(bytes_of(&t, "dp-s0-t3", TRACE_OP_ALLREDUCE),
		     GRAD * (llm_total_params(o.arch) / 4));
	trace_destroy(&t);
	o.sequence_parallel = true;
	make(&o, &t);
	cr_expect_eq(bytes_of(&t, "tp-s0-d1", TRACE_OP_ALLREDUCE), 0);
	cr_expect_eq(bytes_of(&t, "tp-s0-d1", TRACE_OP_ALL_GATHER), 6 * L * m * act);
	cr_expect_eq(bytes_of(&t, "tp-s0-d1", TRACE_OP_REDUCE_SCATTER), 4 * L * m * act);
	trace_destroy(&t);
}

/* Pipeline parallelism: between two stages, each micro-batch sends its
 * activations forward and their gradient back, on the pipeline's group;
 * ranks t + tp (d + dp s). In 1F1B, stage 2 of 4 warms up with one
 * forward (pp - 1 - 2), so its activations of micro-batch i >= 1 go in
 * one batch with stage 3's gradients of i - 1 (Megatron-LM's
 * send_forward_recv_backward), in a row; the first activations and the
 * last gradients go alone. */
Test(gen_llm, pipeline_sends_per_micro_batch)
{
	struct gen_llm_options o = base("llama3-70b");
	uint64_t act = 1ull * 1024 * 8192 * 2;
	struct trace t;
	unsigned fwd = 0, bwd = 0, pairs = 0, alone = 0;
	const struct trace_entry *before = NULL;

	o.pp = 4;
	o.tp = 2;
	o.dp = 2;
	o.micro_batches = 8;
	make(&o, &t);
	/* three stage pairs, each 8 micro-batches both ways */
	cr_expect_eq(bytes_of(&t, "pp-d1-t0", TRACE_OP_SENDRECV), 3 * 2 * 8 * act);
	for (size_t i = 0; i < t.nentries; i++) {
		const struct trace_entry *e = &t.entries[i];

		if (strcmp(trace_entry_comm(&t, e), "pp-d1-t0"))
			continue;
		cr_expect(e->batched, "line %zu", i + 1);
		/* stage 2 of replica 1, tp rank 0: 0 + 2 (1 + 2 x 2) = 10; stage 3: 14 */
		fwd += e->root == 10 && e->peer == 14;
		bwd += e->root == 14 && e->peer == 10;
		if (e->root == 14 && e->peer == 10) {
			bool paired = before && before->root == 10 && before->peer == 14 &&
				      before->batch == e->batch;

			pairs += paired;
			alone += !paired;
		}
		before = e;
	}
	cr_expect_eq(fwd, 8);
	cr_expect_eq(bwd, 8);
	cr_expect_eq(pairs, 7);
	cr_expect_eq(alone, 1);
	trace_destroy(&t);
}

/* At one time a stage sends the activations it has just run before it
 * receives the next (Megatron's warm-up: send_forward, then the next
 * recv_forward): stage 1's send to 2 before stage 0's to 1, else the
 * first waits on rank 1 for the second. */
Test(gen_llm, a_later_stages_activations_go_first_at_one_time)
{
	struct gen_llm_options o = base("llama3-8b");
	const struct trace_entry *before = NULL;
	unsigned ties = 0;
	struct trace t;

	o.pp = 4;
	o.tp = 1;
	o.dp = 1;
	o.micro_batches = 8;
	make(&o, &t);
	for (size_t i = 0; i < t.nentries; i++) {
		const struct trace_entry *e = &t.entries[i];

		if (e->op != TRACE_OP_SENDRECV || e->peer != e->root + 1)
			continue;
		if (before && before->ready_us == e->ready_us) {
			cr_expect_gt(before->root, e->root, "line %zu", i + 1);
			ties++;
		}
		before = e;
	}
	cr_expect_gt(ties, 0);
	trace_destroy(&t);
}

/* Experts: per MoE layer and micro-batch, 2 all-to-alls forward and 2
 * backward, each of a rank's tokens x top_k x hidden x 2 bytes: its send
 * buffer, which an alltoall's bytes are (nccl-tests' size, PyTorch's
 * `In msg nelems`), not that x ep (until 2026-12-06); the experts'
 * gradients over the dp / ep ranks holding the same experts, the rest
 * over all dp. */
Test(gen_llm, expert_parallel_bytes)
{
	struct gen_llm_options o = base("mixtral-8x7b");
	const struct llm_arch *a = o.arch;
	uint64_t mine = 1ull * 1024 * 4096 * 2 * a->top_k;
	uint64_t experts = a->layers * (uint64_t)a->experts * llm_expert_params(a);
	struct trace t;

	o.dp = 4;
	o.ep = 2;
	o.micro_batches = 2;
	make(&o, &t);
	cr_expect_eq(bytes_of(&t, "ep-s0-t0-b1", TRACE_OP_ALLTOALL), 4 * 32 * 2 * mine);
	cr_expect_eq(bytes_of(&t, "edp-s0-t0-e1", TRACE_OP_ALLREDUCE), GRAD * (experts / 2));
	cr_expect_eq(bytes_of(&t, "dp-s0-t0", TRACE_OP_ALLREDUCE),
		     GRAD * (llm_total_params(a) - experts));
	trace_destroy(&t);
}

/* DeepSeek-V2-Lite's first layer is dense: no all-to-all there, its MLP
 * and every layer's shared experts reduced over dp with the rest, the
 * routed experts of the 26 MoE layers over edp; a stage of 9 layers
 * runs the dense one and 8 MoE ones. */
Test(gen_llm, deepseek_dense_first_layers)
{
	struct gen_llm_options o = base("deepseek-v2-lite");
	const struct llm_arch *a = o.arch;
	uint64_t mine = 1ull * 1024 * 2048 * 2 * 6;
	uint64_t routed = 26ull * 64 * 3 * 2048 * 1408;
	struct gen_llm_stage st;
	struct trace t;

	o.dp = 8;
	o.ep = 4;
	make(&o, &t);
	cr_expect_eq(bytes_of(&t, "ep-s0-t0-b1", TRACE_OP_ALLTOALL), 4 * 26 * mine);
	cr_expect_eq(bytes_of(&t, "edp-s0-t0-e3", TRACE_OP_ALLREDUCE), GRAD * (routed / 4));
	cr_expect_eq(bytes_of(&t, "dp-s0-t0", TRACE_OP_ALLREDUCE),
		     GRAD * (llm_total_params(a) - routed));
	trace_destroy(&t);
	o.pp = 3;
	gen_llm_stage(&o, 0, &st);
	cr_expect_eq(st.layers, 9);
	cr_expect_eq(st.expert_params, 8ull * 64 * 3 * 2048 * 1408 / 4);
	assert_rel(st.forward_us,
		   1024.0 * (llm_layer_flops_per_token(a, 0, 1024) +
			     8 * llm_layer_flops_per_token(a, 1, 1024)) /
			   (989.5e12 * 0.4) * 1e6,
		   1e-12);
}

/*
 * DeepSeek-V2-Lite under tensor and sequence parallelism (tp 2, one
 * micro-batch of 1024 tokens), written out from Megatron-Core's layers:
 * latent attention gathers its query's input (the hidden state: no query
 * rank), its 512-wide latent and its 64-wide RoPE key, and reduce-
 * scatters its output; in backward it gathers the output's gradient and
 * the two inputs again and reduce-scatters the three inputs' gradients.
 * The MLP, dense or the MoE layers' shared experts, as any: a gather and
 * a reduce-scatter of the hidden state forward, two gathers and one
 * backward. The MoE layers' dispatcher gathers and reduce-scatters the
 * routed tokens, 6 a token, forward and backward. What every rank holds
 * whole (the latent's down-projection and norm, the router) is reduced
 * over dp whole and all-reduced over tp once.
 */
Test(gen_llm, deepseek_latent_attention_and_dispatcher_under_tp)
{
	struct gen_llm_options o = base("deepseek-v2-lite");
	const struct llm_arch *a = o.arch;
	uint64_t tok = 1024ull * 2, h = 2048;
	uint64_t ag = 27 * ((h + 512 + 64) + (h + h + 512) + (h + 2 * h)) + 26 * 2 * 6 * h;
	uint64_t rs = 27 * (h + (h + 512 + 64) + 2 * h) + 26 * 2 * 6 * h;
	uint64_t whole0 = 2048ull * 576 + 512, whole = whole0 + 2048ull * 64, dp = 0;
	struct trace t;

	o.tp = 2;
	o.dp = 2;
	o.sequence_parallel = true;
	make(&o, &t);
	cr_expect_eq(bytes_of(&t, "tp-s0-d0", TRACE_OP_ALL_GATHER), ag * tok);
	cr_expect_eq(bytes_of(&t, "tp-s0-d0", TRACE_OP_REDUCE_SCATTER), rs * tok);
	cr_expect_eq(bytes_of(&t, "tp-s0-d0", TRACE_OP_ALLREDUCE),
		     GRAD * (whole0 + 26 * whole));
	for (unsigned l = 0; l < 27; l++)
		dp += (llm_layer_params(a, l) - (l ? whole : whole0)) / 2 + (l ? whole : whole0);
	dp += (llm_embedding_params(a) + llm_head_params(a)) / 2;
	cr_expect_eq(bytes_of(&t, "dp-s0-t0", TRACE_OP_ALLREDUCE), GRAD * dp);
	trace_destroy(&t);
}

/* Experts without expert parallelism: every dp rank holds them all, so
 * their gradients go over the dp group with the rest, whatever ZeRO stage:
 * the whole model's params x 2 bytes (they were left out, 2026-12-06). */
Test(gen_llm, experts_without_ep_reduce_over_dp)
{
	struct gen_llm_options o = base("mixtral-8x7b");
	uint64_t P = llm_total_params(o.arch);
	struct trace t;

	o.dp = 2;
	make(&o, &t);
	cr_expect_eq(bytes_of(&t, "dp-s0-t0", TRACE_OP_ALLREDUCE), GRAD * P);
	trace_destroy(&t);
	o.zero = 1;
	make(&o, &t);
	cr_expect_eq(bytes_of(&t, "dp", TRACE_OP_REDUCE_SCATTER), GRAD * P);
	cr_expect_eq(bytes_of(&t, "dp", TRACE_OP_ALL_GATHER), 2 * P);
	trace_destroy(&t);
	o.zero = 3;
	make(&o, &t);
	cr_expect_eq(bytes_of(&t, "dp", TRACE_OP_ALL_GATHER), 2 * 2 * P);
	cr_expect_eq(bytes_of(&t, "dp", TRACE_OP_REDUCE_SCATTER), GRAD * P);
	trace_destroy(&t);
}

/*
 * Compute: one stage's forward is tokens x FLOPs a token over the peak at
 * its efficiency, backward twice that; 1F1B over 2 stages and one
 * micro-batch is the four in a row; over m micro-batches on one stage,
 * m (F + B); with p stages of times F_s + B_s it lies between
 * (m + p - 1) times the smallest and the largest.
 */
Test(gen_llm, compute_follows_flops_and_1f1b)
{
	struct gen_llm_options o = base("llama3-8b");
	struct gen_llm_stage s0, s1;
	double flops, lo = INFINITY, hi = 0;

	o.tp = 2;
	gen_llm_stage(&o, 0, &s0);
	flops = 1024.0 * (32 * llm_layer_flops_per_token(o.arch, 0, 1024) +
			  llm_head_flops_per_token(o.arch));
	assert_rel(s0.forward_us, flops / 2 / (989.5e12 * 0.4) * 1e6, 1e-12);
	assert_rel(s0.backward_us, 2 * s0.forward_us, 1e-12);
	o.micro_batches = 5;
	assert_rel(gen_llm_iteration_us(&o), 5 * (s0.forward_us + s0.backward_us), 1e-12);
	o.pp = 2;
	o.micro_batches = 1;
	gen_llm_stage(&o, 0, &s0);
	gen_llm_stage(&o, 1, &s1);
	cr_expect_eq(s0.layers + s1.layers, 32);
	assert_rel(gen_llm_iteration_us(&o),
		   s0.forward_us + s1.forward_us + s1.backward_us + s0.backward_us, 1e-12);
	o.pp = 4;
	o.micro_batches = 8;
	for (unsigned s = 0; s < 4; s++) {
		gen_llm_stage(&o, s, &s0);
		lo = fmin(lo, s0.forward_us + s0.backward_us);
		hi = fmax(hi, s0.forward_us + s0.backward_us);
	}
	cr_expect_geq(gen_llm_iteration_us(&o), (8 + 3) * lo * (1 - 1e-12));
	cr_expect_leq(gen_llm_iteration_us(&o), (8 + 3) * hi * (1 + 1e-12));
}

/* The trace reads back equal and replays with its communicators at once. */
Test(gen_llm, replays_with_communicators_overlapping)
{
	struct gen_llm_options o = base("llama3-8b");
	struct records r;
	size_t ncomms;

	o.tp = 2;
	o.pp = 2;
	o.dp = 4;
	o.micro_batches = 2;
	o.seq = 512;
	replay(&o, 2, &r, &ncomms);
	cr_expect_gt(r.nqueues, 1);
	cr_expect_eq(r.ncomms, ncomms);
	records_destroy(&r);
}

/* traces/llama3-8b-tp8-pp2-dp2.jsonl is what the generator makes with the
 * options its header names (traces/README.md): regenerate it after
 * changing the generator. */
Test(gen_llm, shipped_trace_is_the_generators)
{
	struct gen_llm_options o = base("llama3-8b");
	static char want[1 << 20];
	char *got = NULL, *line = NULL;
	size_t len = 0, cap = 0, at = 0;
	struct trace t;
	ssize_t n;
	FILE *f = fopen(GDRLAB_SOURCE_DIR "/traces/llama3-8b-tp8-pp2-dp2.jsonl", "r"), *m;

	cr_assert_not_null(f);
	while ((n = getline(&line, &cap, f)) > 0)
		if (line[0] != '#' && at + (size_t)n < sizeof(want)) {
			memcpy(want + at, line, (size_t)n);
			at += (size_t)n;
		}
	want[at] = '\0';
	free(line);
	fclose(f);
	o.tp = 8;
	o.pp = 2;
	o.dp = 2;
	o.zero = 1;
	o.sequence_parallel = true;
	o.micro_batches = 4;
	o.seq = 4096;
	make(&o, &t);
	m = open_memstream(&got, &len);
	cr_assert_not_null(m);
	cr_assert_eq(trace_write(m, &t), 0);
	fclose(m);
	cr_expect(len == at && !memcmp(got, want, len), "the shipped trace is stale");
	free(got);
	trace_destroy(&t);
}

/* One GPU has nothing to exchange: an error, not an empty trace (and,
 * under UBSan, no sort of an array that was never allocated). */
Test(gen_llm, a_single_gpu_is_an_error)
{
	struct gen_llm_options o = base("llama3-8b");
	struct diag d = { "" };
	struct trace t;

	cr_expect_eq(gen_llm_trace(&o, &t, &d), -EINVAL);
	cr_expect_not_null(strstr(d.msg, "no collectives"), "%s", d.msg);
	cr_expect_eq(t.nentries, 0);
}
