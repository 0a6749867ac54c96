/* SPDX-License-Identifier: MIT */
/*
 * gdrlab gen llm --cp (engine/gen_llm_cp.c): context parallelism's ring
 * of keys and values, its ranks, and what it changes in the other
 * groups, against counts derived by hand from Megatron-Core and
 * TransformerEngine (docs/gen-llm.md).
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "gen_llm_helpers.h"

/* The ranks of communicator @name (from its first line), or NULL. */
static const struct trace_entry *first_on(const struct trace *t, const char *name)
{
	for (size_t i = 0; i < t->nentries; i++)
		if (!strcmp(trace_entry_comm(t, &t->entries[i]), name))
			return &t->entries[i];
	return NULL;
}

static void expect_group(const struct trace *t, const char *name, const unsigned *want, unsigned n)
{
	const struct trace_entry *e = first_on(t, name);

	cr_assert_not_null(e, "no communicator %s", name);
	cr_assert_eq(e->ngroup, n, "%s: %u ranks", name, e->ngroup);
	for (unsigned k = 0; k < n; k++)
		cr_expect_eq((unsigned)e->group[k], want[k], "%s: rank %u", name, k);
}

/*
 * Llama-3-8B, tp 2, cp 2, pp 1, dp 1, one micro-batch of one 8192-token
 * sequence, derived from its config (8 key-value heads of 4096 / 32 =
 * 128) and TransformerEngine's AttnFuncWithCPAndKVP2P:
 *
 *   a rank's tokens: 8192 / cp = 4096 (2 chunks of 2048);
 *   its K and V: 8 / tp = 4 heads x 128 = 512 wide each;
 *   K,V a send: 1 x 4096 x 512 x 2 (K and V) x 2 bytes = 8,388,608;
 *   per layer, each cp group: forward cp - 1 = 1 step, each of the 2
 *   ranks sending its K,V (2 sends); backward cp = 2 steps, K,V then
 *   dK,dV (cp - 2 = 0 steps of both), 4 sends of 8,388,608;
 *   so 6 x 8,388,608 = 50,331,648 a layer, x 32 layers = 1,610,612,736
 *   a group, and the two groups (tp ranks 0 and 1) 3,221,225,472.
 *
 * Ranks t + tp (c + cp (d + dp s)): group t = 1 is ranks 1 and 3. The
 * tensor-parallel all-reduces move micro-batch x seq / cp x hidden x 2 =
 * 4096 x 4096 x 2 = 33,554,432 bytes, 4 a layer; the gradients go over
 * the dp x cp = 2 ranks of (s, t), each rank's whole tp share in fp32.
 */
Test(gen_llm_cp, llama3_8b_tp2_cp2_by_hand)
{
	struct gen_llm_options o = base("llama3-8b");
	uint64_t kv = 1ull * 4096 * 512 * 2 * 2, act = 4096ull * 4096 * 2;
	static const unsigned g1[] = { 1, 3 }, tp1[] = { 2, 3 }, dp1[] = { 1, 3 };
	struct trace t;

	o.tp = 2;
	o.cp = 2;
	o.seq = 8192;
	make(&o, &t);
	cr_expect_eq(kv, 8388608ull);
	cr_expect_eq(calls_of(&t, "cp-s0-d0-t1", TRACE_OP_SENDRECV), 32 * 6);
	cr_expect_eq(bytes_of(&t, "cp-s0-d0-t1", TRACE_OP_SENDRECV), 1610612736ull);
	cr_expect_eq(bytes_of(&t, "cp-", TRACE_OP_SENDRECV), 3221225472ull);
	cr_expect_eq(bytes_of(&t, "", TRACE_OP_SENDRECV), 32 * 6 * 2 * kv);
	for (size_t i = 0; i < t.nentries; i++)
		if (t.entries[i].op == TRACE_OP_SENDRECV)
			cr_expect_eq(t.entries[i].bytes, kv, "line %zu", i + 1);
	expect_group(&t, "cp-s0-d0-t1", g1, 2);
	expect_group(&t, "tp-s0-d0-c1", tp1, 2);
	expect_group(&t, "dp-cp-s0-t1", dp1, 2);
	cr_expect_eq(bytes_of(&t, "tp-s0-d0-c1", TRACE_OP_ALLREDUCE), 4 * 32 * act);
	cr_expect_eq(bytes_of(&t, "dp-cp-s0-t1", TRACE_OP_ALLREDUCE),
		     GRAD * (llm_total_params(o.arch) / 2));
	cr_expect_null(first_on(&t, "dp-s0-t1"));
	trace_destroy(&t);
}

/*
 * cp 4: forward 3 steps of K,V; backward 4: K,V, then K,V with dK,dV
 * twice (TE's p2p_comm_buffers[i % 2], both in one tensor), then dK,dV:
 * (3 + 1 + 2 + 2 + 1) x cp sends' worth of K,V, 3 cp (cp - 1) = 36 a
 * layer. Each rank sends to the next forward (send_dst = rank + 1) and
 * to the previous backward (rank - 1), every send on its own (TE batches
 * only with cp 2). Ranks at tp 1, cp 4, dp 2: d = 1's ring is 4 .. 7.
 */
Test(gen_llm_cp, cp4_ring_both_ways)
{
	struct gen_llm_options o = base("llama3-8b");
	uint64_t kv = 1ull * 256 * 2048 * 2; /* 1024 / 4 tokens x 2 x 1024 wide */
	static const unsigned ring[] = { 4, 5, 6, 7 };
	unsigned next = 0, prev = 0, doubled = 0;
	struct trace t;

	o.cp = 4;
	o.dp = 2;
	make(&o, &t);
	expect_group(&t, "cp-s0-d1-t0", ring, 4);
	cr_expect_eq(bytes_of(&t, "cp-s0-d1-t0", TRACE_OP_SENDRECV), 32ull * 36 * kv);
	for (size_t i = 0; i < t.nentries; i++) {
		const struct trace_entry *e = &t.entries[i];

		if (strcmp(trace_entry_comm(&t, e), "cp-s0-d1-t0"))
			continue;
		cr_expect(!e->batched, "line %zu", i + 1);
		next += e->peer == 4 + (e->root - 4 + 1) % 4;
		prev += e->peer == 4 + (e->root - 4 + 3) % 4;
		doubled += e->bytes == 2 * kv;
	}
	/* a layer: forward 3 x 4 sends to the next, backward 4 x 4 back,
	 * 2 x 4 of them K,V with dK,dV */
	cr_expect_eq(next, 32 * 12);
	cr_expect_eq(prev, 32 * 16);
	cr_expect_eq(doubled, 32 * 8);
	/* the gradients over the dp x cp = 8 ranks of the stage */
	cr_expect_eq(first_on(&t, "dp-cp-s0-t0")->ngroup, 8);
	trace_destroy(&t);
}

/* With cp 2 TE batches a step's send and receive (batch_p2p_comm on a
 * GPU before compute capability 10.0): both ranks' sends one batch, in a
 * row, each step a batch of its own. */
Test(gen_llm_cp, cp2_steps_are_batches_of_both_ranks)
{
	struct gen_llm_options o = base("llama3-8b");
	unsigned pairs = 0;
	struct trace t;

	o.cp = 2;
	o.micro_batches = 2;
	make(&o, &t);
	for (size_t i = 0; i + 1 < t.nentries; i += 2) {
		const struct trace_entry *a = &t.entries[i], *b = &t.entries[i + 1];

		if (a->op != TRACE_OP_SENDRECV) {
			i--;
			continue;
		}
		cr_assert(a->batched && b->batched && a->batch == b->batch, "lines %zu, %zu", i + 1,
			  i + 2);
		cr_expect(a->root == b->peer && a->peer == b->root);
		cr_expect_eq(a->ready_us, b->ready_us);
		pairs++;
	}
	cr_expect_eq(pairs, 2 * 32 * 3);
	trace_destroy(&t);
}

/*
 * Ranks t + tp (c + cp (d + dp s)), Megatron-Core's "tp-cp-ep-dp-pp"
 * (parallel_state.py RankGenerator): at tp 2, cp 2, dp 2, pp 2 that is
 * t + 2 c + 4 d + 8 s. The cp ring of s 1, d 1, t 1: 13, 15; the
 * gradients of (1, 1) over every d and c: 9, 11, 13, 15; the tensor
 * group of s 1, d 1, c 0: 12, 13; the pipeline of d 1, c 0, t 1: 5, 13.
 */
Test(gen_llm_cp, ranks_in_megatron_order)
{
	struct gen_llm_options o = base("llama3-8b");
	static const unsigned cp[] = { 13, 15 }, dp[] = { 9, 11, 13, 15 }, tp[] = { 12, 13 };
	static const unsigned pp[] = { 5, 13 };
	struct trace t;

	o.tp = 2;
	o.cp = 2;
	o.dp = 2;
	o.pp = 2;
	o.micro_batches = 2;
	make(&o, &t);
	expect_group(&t, "cp-s1-d1-t1", cp, 2);
	expect_group(&t, "dp-cp-s1-t1", dp, 4);
	expect_group(&t, "tp-s1-d1-c0", tp, 2);
	expect_group(&t, "pp-d1-c0-t1", pp, 2);
	/* cp: pp x dp x tp; dp-cp: pp x tp; tp: pp x dp x cp; pp: dp x cp x tp */
	cr_expect_eq(t.ncomms, 2 * 2 * 2 + 2 * 2 + 2 * 4 + 4 * 2);
	trace_destroy(&t);
}

/*
 * Megatron-Core's bucket is max(40M, 1M x dp) parameters with dp the
 * data-parallel group's size without cp (distributed_data_parallel.py
 * dp_group), though it is reduced over dp x cp: at dp 40, cp 2 (80
 * ranks) Llama-3-8B's buckets are those of dp 40, 98 of them
 * (test_gen_llm.c megatron_buckets_grow_with_dp), not the 65-odd of 80M.
 * With the distributed optimizer a bucket's end is padded to
 * lcm(dp x cp, 128) elements: 384 at dp 3, cp 2.
 */
Test(gen_llm_cp, buckets_sized_by_dp_reduced_over_dp_cp)
{
	struct gen_llm_options o = base("llama3-8b");
	struct trace t;

	o.dp = 40;
	o.cp = 2;
	o.seq = 256;
	make(&o, &t);
	cr_expect_eq(calls_of(&t, "dp-cp-s0-t0", TRACE_OP_ALLREDUCE), 98);
	cr_expect_eq(first_on(&t, "dp-cp-s0-t0")->ngroup, 80);
	cr_expect_eq(bytes_of(&t, "dp-cp-s0-t0", TRACE_OP_ALLREDUCE), GRAD * llm_total_params(o.arch));
	trace_destroy(&t);
	o.dp = 3;
	o.zero = 1;
	make(&o, &t);
	for (size_t i = 0; i < t.nentries; i++)
		if (t.entries[i].op == TRACE_OP_REDUCE_SCATTER)
			cr_expect_eq(t.entries[i].bytes % (GRAD * 384), 0, "line %zu", i + 1);
	trace_destroy(&t);
}

/*
 * Compute: a rank runs seq / cp of the tokens, each with the FLOPs it
 * has without cp (the chunks balance the causal mask), so half the time
 * at cp 2. In a layer's forward the ring's sends go as each step of the
 * core attention starts: after the q, k, v projections' share of the
 * attention half (Llama-3-8B: 2 x (4096^2 + 2 x 4096 x 1024) = 50.3M
 * FLOPs a token, against the core's 1024 x 2 x 4096 = 8.4M and the
 * output's 33.6M at 1024 tokens), the steps a core's cp-th apart.
 */
Test(gen_llm_cp, compute_halves_and_sends_start_each_step)
{
	struct gen_llm_options o = base("llama3-8b");
	struct gen_llm_stage s1, s2;
	double qkv = 2.0 * (4096.0 * 4096 + 2.0 * 4096 * 1024), core = 1024.0 * 2 * 4096;
	double out = 2.0 * 4096 * 4096, all = qkv + core + out, lf, at[3];
	unsigned n = 0;
	struct trace t;

	gen_llm_stage(&o, 0, &s1);
	o.cp = 2;
	gen_llm_stage(&o, 0, &s2);
	assert_rel(s2.forward_us, s1.forward_us / 2, 1e-12);
	o.cp = 4;
	gen_llm_stage(&o, 0, &s2);
	lf = s2.forward_us / 32;
	make(&o, &t);
	for (size_t i = 0; i < t.nentries && n < 3; i++) {
		const struct trace_entry *e = &t.entries[i];

		if (e->op == TRACE_OP_SENDRECV && e->root == 0 && e->peer == 1)
			at[n++] = e->ready_us;
	}
	cr_assert_eq(n, 3);
	assert_rel(at[0], lf / 2 * qkv / all, 1e-9);
	assert_rel(at[1] - at[0], lf / 2 * core / all / 4, 1e-9);
	assert_rel(at[2] - at[1], lf / 2 * core / all / 4, 1e-9);
	trace_destroy(&t);
}

/* Latent attention's keys and values are up-projected per head: each
 * head's key 128 + 64 (RoPE) and value 128 wide, 16 heads of
 * DeepSeek-V2-Lite, 16 x 320 = 5120 a token, 2560 a rank at tp 2. */
Test(gen_llm_cp, latent_attention_sends_per_head_keys)
{
	struct gen_llm_options o = base("deepseek-v2-lite");
	struct trace t;

	cr_expect_eq(llm_kv_width(o.arch), 5120);
	cr_expect_eq(llm_kv_width(llm_arch_find("llama3-70b")), 2 * 8 * 128);
	o.tp = 2;
	o.cp = 2;
	o.sequence_parallel = true;
	make(&o, &t);
	cr_expect_eq(first_on(&t, "cp-s0-d0-t0")->bytes, 512ull * 2560 * 2);
	trace_destroy(&t);
}

/*
 * --cp-comm-type all_gather (TE's AttnFuncWithCPAndKVAllGather): K and V
 * each all-gathered before attention and again in backward, dK and dV
 * reduce-scattered after it; a call's bytes the whole buffer, cp x a
 * rank's 4096 tokens x 512 x 2 bytes = 8,388,608 (Llama-3-8B, tp 2, cp
 * 2, 8192 tokens). a2a (AttnFuncWithCPAndQKVOA2A): all-to-alls of a
 * rank's q (4096 x 2048 x 2 = 16,777,216), k and v (4,194,304 each)
 * before attention and of its output (as q) after; backward the
 * output's gradient, then dq, dk, dv: 2 x 40 MiB a layer.
 */
Test(gen_llm_cp, all_gather_and_a2a)
{
	struct gen_llm_options o = base("llama3-8b");
	uint64_t kv = 8388608, q = 16777216, k = 4194304;
	struct trace t;

	o.tp = 2;
	o.cp = 2;
	o.seq = 8192;
	o.cp_comm = GEN_LLM_CP_ALL_GATHER;
	make(&o, &t);
	cr_expect_eq(calls_of(&t, "cp-s0-d0-t0", TRACE_OP_ALL_GATHER), 32 * 4);
	cr_expect_eq(bytes_of(&t, "cp-s0-d0-t0", TRACE_OP_ALL_GATHER), 32 * 4 * kv);
	cr_expect_eq(bytes_of(&t, "cp-s0-d0-t0", TRACE_OP_REDUCE_SCATTER), 32 * 2 * kv);
	cr_expect_eq(calls_of(&t, "cp-", TRACE_OP_SENDRECV), 0);
	trace_destroy(&t);
	o.cp_comm = GEN_LLM_CP_A2A;
	make(&o, &t);
	cr_expect_eq(calls_of(&t, "cp-s0-d0-t1", TRACE_OP_ALLTOALL), 32 * 8);
	cr_expect_eq(bytes_of(&t, "cp-s0-d0-t1", TRACE_OP_ALLTOALL), 32 * 2 * (2 * q + 2 * k));
	trace_destroy(&t);
}

/* What cp does not fit is one clear error. */
Test(gen_llm_cp, bad_input)
{
	struct gen_llm_options o = base("llama3-8b");
	struct diag d = { "" };

	o.cp = 3;
	cr_expect_eq(gen_llm_check(&o, &d), -EINVAL);
	cr_expect(strstr(d.msg, "--cp: 3 does not split --seq 1024 into 2 x 3 equal chunks"), "%s", d.msg);
	o.cp = 0;
	cr_expect_eq(gen_llm_check(&o, &d), -EINVAL);
	o.cp = 64;
	o.seq = 8192;
	o.dp = 2048;
	cr_expect_eq(gen_llm_check(&o, &d), -EINVAL);
	cr_expect(strstr(d.msg, "--cp: tp x cp x pp x dp = 131072 ranks is more than 65536"), "%s",
		  d.msg);
	o.arch = llm_arch_find("mixtral-8x7b");
	o.dp = 3;
	o.cp = 2;
	o.ep = 4;
	cr_expect_eq(gen_llm_check(&o, &d), -EINVAL);
	cr_expect(strstr(d.msg, "--ep: 4 does not divide --dp x --cp (6)"), "%s", d.msg);
	/* Ulysses splits a rank's heads: Llama-3-8B's 8 key-value heads at
	 * tp 8 are one a rank */
	o = base("llama3-8b");
	o.tp = 8;
	o.cp = 2;
	o.cp_comm = GEN_LLM_CP_A2A;
	cr_expect_eq(gen_llm_check(&o, &d), -EINVAL);
	cr_expect(strstr(d.msg, "--cp-comm-type: a2a splits a rank's heads over cp"), "%s", d.msg);
	o.tp = 4;
	cr_expect_eq(gen_llm_check(&o, &d), 0, "%s", d.msg);
}

/* A cp trace replays: its rings beside the other groups. */
Test(gen_llm_cp, replays)
{
	struct gen_llm_options o = base("llama3-8b");
	struct records r;
	size_t ncomms;

	o.tp = 4;
	o.cp = 2;
	o.dp = 2;
	o.seq = 512;
	replay(&o, 2, &r, &ncomms);
	cr_expect_eq(r.ncomms, ncomms);
	records_destroy(&r);
}
