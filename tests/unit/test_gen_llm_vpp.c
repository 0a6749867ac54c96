/* SPDX-License-Identifier: MIT */
/*
 * gdrlab gen llm --vpp (engine/gen_llm_schedule.c, gen_llm.c): the
 * interleaved 1F1B schedule of Megatron-LM (megatron/core/
 * pipeline_parallel/schedules.py forward_backward_pipelining_with_
 * interleaving), its chunks' layers, sends and gradient buckets, against
 * what is derived by hand here (docs/gen-llm.md).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "gen_llm_internal.h"
#include "gen_llm_helpers.h"

/* The sends from @src to @dst, and the stream they all take (-1: mixed). */
static size_t sends(const struct trace *t, int src, int dst, uint64_t bytes, int *stream)
{
	size_t n = 0;

	*stream = -2;
	for (size_t i = 0; i < t->nentries; i++) {
		const struct trace_entry *e = &t->entries[i];

		if (e->op != TRACE_OP_SENDRECV || e->root != src || e->peer != dst)
			continue;
		cr_expect_eq(e->bytes, bytes, "%d -> %d: %" PRIu64 " bytes", src, dst, e->bytes);
		cr_expect(!e->batched, "%d -> %d: an isend of its own, not a batch", src, dst);
		*stream = *stream == -2 || *stream == (int)e->stream ? (int)e->stream : -1;
		n++;
	}
	return n;
}

static void uniform(struct schedule *sc, unsigned pp, unsigned vpp, unsigned m, double f,
		    double b)
{
	double fd[64], bd[64];

	cr_assert_leq(pp * vpp, 64);
	for (unsigned k = 0; k < pp * vpp; k++) {
		fd[k] = f;
		bd[k] = b;
	}
	cr_assert_eq(gen_llm_schedule_make(pp, vpp, m, fd, bd, sc), 0);
}

/*
 * pp 2, vpp 2, m 4, every chunk's forward 1 and backward 2 (uniform
 * layers, instant sends), written out by hand from Megatron's
 * get_schedule_table (groups of pp = 2 micro-batches: virtual micro-batch
 * 0..7 is (micro-batch, chunk) (0,0) (1,0) (0,1) (1,1) (2,0) (3,0) (2,1)
 * (3,1); a backward takes the chunks the other way) and
 * get_pp_rank_microbatches (warm-up (pp - s - 1) x 2 + (vpp - 1) x pp:
 * 4 forwards on rank 0, 2 on rank 1). Virtual stage c x pp + s: rank 0
 * chunk 1 waits for rank 1 chunk 0, and rank 1's chunk 1 is the last,
 * whose backward follows its own forward. F(i,c) [start, end]:
 *
 *   rank 0: F00 [0,1] F10 [1,2] F01 [2,3] F11 [3,4] | F20 [4,5]
 *           B01 [6,8] F30 [8,9] B11 [9,11] F21 [11,12] B00 [12,14]
 *           F31 [14,15] B10 [15,17] | B21 [18,20] B31 [21,23]
 *           B20 [23,25] B30 [25,27]
 *   rank 1: F00 [1,2] F10 [2,3] | F01 [3,4] B01 [4,6] F11 [6,7]
 *           B11 [7,9] F20 [9,10] B00 [10,12] F30 [12,13] B10 [13,15]
 *           F21 [15,16] B21 [16,18] F31 [18,19] B31 [19,21] | B20
 *           [21,23] B30 [23,25]
 *
 * 27 in all: (m x vpp + pp - 1) x (forward + backward of a chunk) =
 * (8 + 1) x 3, each rank busy 24 of it; its bubble 3 is (pp - 1) x 3,
 * the 1F1B bubble (pp - 1) x (F + B) of a whole stage (vpp 1: a stage's
 * F 2 and B 4 there, 30 in all, (m + pp - 1) x 6) over vpp: Narayanan et
 * al. 2021 section 2.2.2, (pp - 1) / (vpp m) of the ideal time 24
 * against (pp - 1) / m.
 */
Test(gen_llm_vpp, schedule_by_hand_pp2_vpp2_m4)
{
	static const double f0[] = { 0, 1, 4, 8, 2, 3, 11, 14 }; /* rank 0: [c][i] */
	static const double b0[] = { 12, 15, 23, 25, 6, 9, 18, 21 };
	static const double f1[] = { 1, 2, 9, 12, 3, 6, 15, 18 }; /* rank 1 */
	static const double b1[] = { 10, 13, 21, 23, 4, 7, 16, 19 };
	struct schedule sc;

	uniform(&sc, 2, 2, 4, 1, 2);
	for (unsigned c = 0; c < 2; c++)
		for (unsigned i = 0; i < 4; i++) {
			cr_expect_eq(sc.f[sched_at(&sc, 0, c, i)], f0[c * 4 + i], "rank 0 F%u%u", i, c);
			cr_expect_eq(sc.b[sched_at(&sc, 0, c, i)], b0[c * 4 + i], "rank 0 B%u%u", i, c);
			cr_expect_eq(sc.f[sched_at(&sc, 1, c, i)], f1[c * 4 + i], "rank 1 F%u%u", i, c);
			cr_expect_eq(sc.b[sched_at(&sc, 1, c, i)], b1[c * 4 + i], "rank 1 B%u%u", i, c);
		}
	cr_expect_eq(sc.end, 27);
	cr_expect_eq(sc.rank_end[0], 27);
	cr_expect_eq(sc.rank_end[1], 25);
	/* chunk 1's gradients start on rank 0 after its last backward (B31
	 * ends at 23), rank 1's one backward step later (B31 is step 5 there,
	 * step 6 is B20, ending at 23); chunk 0's at each rank's end */
	cr_expect_eq(gen_llm_schedule_chunk_sync(&sc, 0, 1), 23);
	cr_expect_eq(gen_llm_schedule_chunk_sync(&sc, 1, 1), 23);
	cr_expect_eq(gen_llm_schedule_chunk_sync(&sc, 0, 0), 27);
	cr_expect_eq(gen_llm_schedule_chunk_sync(&sc, 1, 0), 25);
	gen_llm_schedule_destroy(&sc);
	uniform(&sc, 2, 1, 4, 2, 4);
	cr_expect_eq(sc.end, 30);
	gen_llm_schedule_destroy(&sc);
}

/* Larger pipelines at uniform chunks: the interleaved schedule's length
 * is (m vpp + pp - 1) (F + B) of a chunk, as the paper's bubble has it,
 * wherever m is a multiple of pp; 1F1B's (m + pp - 1) (F + B) of a stage. */
Test(gen_llm_vpp, schedule_bubble_over_vpp)
{
	static const unsigned cases[][3] = { { 4, 2, 8 }, { 4, 4, 8 }, { 8, 2, 16 }, { 3, 3, 6 } };
	struct schedule sc;

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		unsigned pp = cases[k][0], vpp = cases[k][1], m = cases[k][2];

		uniform(&sc, pp, vpp, m, 1, 2);
		cr_expect_eq(sc.end, (m * vpp + pp - 1) * 3.0, "pp %u vpp %u m %u: %g", pp, vpp, m,
			     sc.end);
		gen_llm_schedule_destroy(&sc);
		uniform(&sc, pp, 1, m, vpp, 2.0 * vpp);
		cr_expect_eq(sc.end, (m + pp - 1) * 3.0 * vpp);
		gen_llm_schedule_destroy(&sc);
	}
}

/* Virtual stage c x pp + s holds layers (c pp + s) L / (pp vpp) on
 * (transformer_layer.py get_transformer_layer_offset); the embedding in
 * chunk 0 of rank 0, the output layer in the last chunk of the last. */
Test(gen_llm_vpp, chunks_hold_their_layers)
{
	struct gen_llm_options o = base("llama3-70b");
	const struct llm_arch *a = o.arch;
	struct gen_llm_stage st, whole;
	uint64_t sum = 0;

	o.tp = 8;
	o.pp = 4;
	o.vpp = 2;
	o.micro_batches = 4;
	for (unsigned s = 0; s < 4; s++)
		for (unsigned c = 0; c < 2; c++) {
			gen_llm_chunk(&o, s, c, &st);
			cr_expect_eq(st.layers, 10);
			cr_expect_eq(st.first_layer, (c * 4 + s) * 10, "rank %u chunk %u", s, c);
			sum += st.dense_params;
		}
	cr_expect_eq(sum, llm_total_params(a) / 8);
	gen_llm_chunk(&o, 0, 0, &st);
	cr_expect_eq(st.dense_params, 10 * (llm_layer_params(a, 0) / 8) + llm_embedding_params(a) / 8);
	gen_llm_chunk(&o, 3, 1, &st);
	cr_expect_eq(st.dense_params, 10 * (llm_layer_params(a, 0) / 8) + llm_head_params(a) / 8);
	gen_llm_stage(&o, 1, &whole);
	cr_expect_eq(whole.layers, 20);
	gen_llm_chunk(&o, 1, 0, &st);
	cr_expect_eq(whole.forward_us, 2 * st.forward_us);
}

/*
 * The sends: A = 1024 tokens x 4096 x 2 bytes = 8,388,608 (Llama-3-8B, one
 * sequence of 1024). Every forward sends its activations to the next rank
 * but the last virtual stage's, every backward its gradients to the
 * previous but the first's: 2 m (pp vpp - 1) a pipeline, 24 at pp 2,
 * vpp 2, m 4 (1F1B: 2 m (pp - 1), 8). Rank 0 sends chunk 0 and 1's
 * activations and chunk 1's gradients to rank 1: 3 m = 12; rank 1 chunk
 * 0's activations and both chunks' gradients back: 12, on stream 1 (the
 * world group's pair, _p2p_ops at pp 2). At pp 4 rank 3's activations
 * cross the ring to rank 0 for its next chunk, (vpp - 1) m of them, and
 * rank 0's gradients back to rank 3 alike; the others send vpp m each
 * way.
 */
Test(gen_llm_vpp, sends_peers_and_bytes)
{
	struct gen_llm_options o = base("llama3-8b");
	uint64_t A = 1024ull * 4096 * 2;
	struct trace t;
	int stream;

	o.pp = 2;
	o.vpp = 2;
	o.micro_batches = 4;
	make(&o, &t);
	cr_expect_eq(calls_of(&t, "pp-d0-t0", TRACE_OP_SENDRECV), 24);
	cr_expect_eq(sends(&t, 0, 1, A, &stream), 12);
	cr_expect_eq(stream, 0);
	cr_expect_eq(sends(&t, 1, 0, A, &stream), 12);
	cr_expect_eq(stream, 1);
	/* the first send: rank 0's forward of micro-batch 0, chunk 0 */
	cr_expect_eq(t.entries[0].op, TRACE_OP_SENDRECV);
	cr_expect_eq(t.entries[0].root, 0);
	trace_destroy(&t);
	o.pp = 4;
	make(&o, &t);
	cr_expect_eq(calls_of(&t, "pp-d0-t0", TRACE_OP_SENDRECV), 2 * 4 * 7);
	for (int s = 0; s < 3; s++) {
		cr_expect_eq(sends(&t, s, s + 1, A, &stream), 8, "%d -> %d", s, s + 1);
		cr_expect_eq(stream, 0);
		cr_expect_eq(sends(&t, s + 1, s, A, &stream), 8, "%d -> %d", s + 1, s);
	}
	cr_expect_eq(sends(&t, 3, 0, A, &stream), 4);
	cr_expect_eq(sends(&t, 0, 3, A, &stream), 4);
	trace_destroy(&t);
}

/*
 * Gradients, each chunk a DDP module of its own: Llama-3-70B, tp 8, pp 4,
 * vpp 2, dp 2. Only chunk 0 of rank 0 is bucketed (40M parameters and
 * more a bucket: its 10 layers of 856M / 8 each and the embedding's
 * 1,050,673,152 / 8, 14 buckets), its chunk 1 one bucket, every other
 * rank one a chunk (training.py per_chunk_disable_bucketing); the bytes
 * are the rank's parameters, and each chunk's buckets are ready at once
 * (align_grad_reduce's start_grad_sync). The tied-embedding group is for
 * tied models only: none here.
 */
Test(gen_llm_vpp, buckets_per_chunk)
{
	struct gen_llm_options o = base("llama3-70b");
	struct gen_llm_stage st;
	struct trace t;
	double r1 = -1;
	size_t n1 = 0;

	o.tp = 8;
	o.pp = 4;
	o.vpp = 2;
	o.dp = 2;
	o.micro_batches = 4;
	make(&o, &t);
	for (unsigned s = 0; s < 4; s++) {
		char name[16];

		snprintf(name, sizeof(name), "dp-s%u-t0", s);
		gen_llm_stage(&o, s, &st);
		cr_expect_eq(bytes_of(&t, name, TRACE_OP_ALLREDUCE), GRAD * st.dense_params);
		if (s)
			cr_expect_eq(calls_of(&t, name, TRACE_OP_ALLREDUCE), 2, "%s", name);
	}
	cr_expect_gt(calls_of(&t, "dp-s0-t0", TRACE_OP_ALLREDUCE), 3);
	for (size_t i = 0; i < t.nentries; i++)
		if (!strcmp(trace_entry_comm(&t, &t.entries[i]), "dp-s1-t0")) {
			cr_expect(r1 < 0 || t.entries[i].ready_us >= r1);
			r1 = t.entries[i].ready_us;
			n1++;
		}
	cr_expect_eq(n1, 2);
	cr_expect_eq(calls_of(&t, "emb", TRACE_OP_ALLREDUCE), 0);
	trace_destroy(&t);
	/* GPT-3 ties its embedding: chunk 0 of rank 0 and the last chunk of
	 * rank 3, the same two ranks as without interleaving */
	o = base("gpt3-175b");
	o.pp = 4;
	o.vpp = 2;
	o.tp = 8;
	o.micro_batches = 4;
	make(&o, &t);
	cr_expect_eq(calls_of(&t, "emb-d0-t0", TRACE_OP_ALLREDUCE), 1);
	trace_destroy(&t);
}

/* The iteration: interleaving takes (pp - 1) (1 - 1 / vpp) chunk pairs'
 * worth of bubble off; compute_us is the schedule's end. */
Test(gen_llm_vpp, iteration_shrinks)
{
	struct gen_llm_options o = base("llama3-8b");
	double plain, inter;

	o.pp = 4;
	o.micro_batches = 8;
	plain = gen_llm_iteration_us(&o);
	o.vpp = 2;
	inter = gen_llm_iteration_us(&o);
	cr_expect_lt(inter, plain);
	cr_expect_gt(inter, plain * 8 / 11);
}

/* What Megatron-LM refuses, one line each. */
Test(gen_llm_vpp, bad_input)
{
	struct gen_llm_options o = base("llama3-8b");
	struct diag d = { "" };
	struct trace t;

	o.vpp = 2;
	cr_expect_eq(gen_llm_trace(&o, &t, &d), -EINVAL);
	cr_expect(strstr(d.msg, "--vpp: 2 model chunks need --pp 2 or more"), "%s", d.msg);
	o.pp = 3;
	o.micro_batches = 3;
	cr_expect_eq(gen_llm_trace(&o, &t, &d), -EINVAL);
	cr_expect(strstr(d.msg, "32 layers do not split into --pp 3 x --vpp 2 = 6 equal chunks"), "%s",
		  d.msg);
	o.pp = 4;
	o.micro_batches = 6;
	cr_expect_eq(gen_llm_trace(&o, &t, &d), -EINVAL);
	cr_expect(strstr(d.msg, "--micro-batches: 6 with --vpp 2"), "%s", d.msg);
	o.vpp = 0;
	cr_expect_eq(gen_llm_trace(&o, &t, &d), -EINVAL);
	cr_expect(strstr(d.msg, "--vpp: 0 model chunks"), "%s", d.msg);
}
