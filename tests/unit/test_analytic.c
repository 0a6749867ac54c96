/* SPDX-License-Identifier: MIT */
/*
 * The analytic backend against ground truths worked out by hand from the
 * model's rules (docs/model.md) on tests/data/round-numbers.yaml (one GPU
 * and one NIC per node under one switch; GPU link 20 GB/s, NIC port
 * 10 GB/s, every link 1 us; NCCL's Ampere/Intel constants). The closed
 * form must hold to 1e-3: these are its exact cases. The contended cases
 * and the model backend are in test_conformance.c.
 *
 * Constants used below (NVIDIA/nccl v2.30.7-1, src/graph/tuning.cc): ring
 * launch 8.4 us (Simple), tree 6.8 us (LL); per network hop 14 us
 * (Simple) and, with one GPU a node, the tree row's 5 us (LL); 8 slots a
 * connection, Simple slices of 2 slots.
 */
#include <errno.h>
#include <math.h>

#include "helpers.h"

#define MiB 1048576.0

static struct plan_options opts(enum plan_path path, unsigned nodes,
				const char *algo, const char *proto)
{
	struct plan_options o;

	plan_options_default(&o);
	o.path = path;
	o.nodes = nodes;
	o.algo = algo;
	o.proto = proto;
	return o;
}

static double one_time(const char *line, const struct plan_options *o,
		       struct coll_record *out)
{
	struct run r;
	double t;

	run_trace(&r, "analytic", DATA("round-numbers.yaml"), line, o);
	t = r.rec.coll[0].time_us;
	if (out)
		*out = r.rec.coll[0];
	run_destroy(&r);
	return t;
}

/* 512 chunks of 128 KiB at 10 GB/s, after the launch and one hop. */
Test(analytic, uncontended_direct_is_latency_plus_bytes_over_bottleneck)
{
	struct plan_options o = opts(PLAN_PATH_DIRECT, 0, NULL, NULL);
	struct coll_record c;
	double S = 64 * MiB;

	assert_rel(one_time("{\"iteration\":0,\"op\":\"sendrecv\",\"bytes\":67108864,"
			    "\"dtype\":\"fp32\",\"src\":0,\"dst\":1}\n", &o, &c),
		   8.4 + 14 + S / 10e9 * 1e6, 1e-3);
	cr_assert_str_eq(plan_path_used_name(c.path), "direct");
	cr_assert_eq(c.algo, ALGO_P2P);
	cr_assert_eq(c.proto, PROTO_SIMPLE);
}

/* NCCL's staging: the first chunk crosses GPU -> host and host -> GPU
 * (20 GB/s each) besides the 10 GB/s network segment. */
Test(analytic, uncontended_staged_is_pipelined)
{
	struct plan_options o = opts(PLAN_PATH_STAGED, 0, NULL, NULL);
	struct coll_record c;
	double S = 64 * MiB;

	assert_rel(one_time("{\"iteration\":0,\"op\":\"sendrecv\",\"bytes\":67108864,"
			    "\"dtype\":\"fp32\",\"src\":0,\"dst\":1}\n", &o, &c),
		   8.4 + 14 + 2 * 131072 / 20e9 * 1e6 + S / 10e9 * 1e6, 1e-3);
	cr_assert_str_eq(plan_path_used_name(c.path), "staged");
}

/*
 * A ring too small to fill its pipe: all-reduce of 64 KiB over 4 nodes,
 * Ring/Simple, 2 channels (no channel dropped: 64 KiB = 2 channels x 512
 * threads x 64 B). A channel's 32 KiB is one loop of 8 KiB chunks in 2
 * slices of 4 KiB: K = 12 slices a connection at 5 GB/s (two channels on
 * the NIC): tau = 0.8192 us. A connection has 4 slices in flight (8
 * slots of 2), a slot back every (tau + 2 x 9 us of links) / 4 = 4.7048 us.
 * The 12 slices at that pace and the last hop: 12 x 4.7048 + 14 =
 * 70.46 us. But a chunk crosses 6 hops of NCCL's 14 us, each 1.4 times
 * as long (the "plateau effect of ring" of a Simple all-reduce across
 * nodes, past 64 B a channel and rank, on Ampere), with its second slice
 * behind: 6 x (19.6 + tau) + tau = 123.33 us, the later: the ring is
 * latency-bound, T = 8.4 + 123.33 us.
 */
Test(analytic, small_ring_is_latency_bound)
{
	struct plan_options o = opts(PLAN_PATH_DIRECT, 4, "ring", "simple");
	double tau = 4096 / 5e9 * 1e6;

	assert_rel(one_time("{\"iteration\":0,\"op\":\"allreduce\",\"bytes\":65536,"
			    "\"dtype\":\"fp32\"}\n", &o, NULL),
		   8.4 + 6 * (1.4 * 14 + tau) + tau, 1e-3);
}

/*
 * A ring that streams: all-reduce of 256 MiB over 4 nodes, Ring/Simple.
 * 128 MiB a channel in loops of 4 chunks of 2 MiB: 16 loops, 2 slices of
 * 1 MiB a step, 6 steps: K = 192 slices a connection, every one passed
 * at 5 GB/s: T = 8.4 + 192 x 1 MiB / 5 GB/s + 14, and the busbw nccl-tests
 * would print is the NIC's 10 GB/s less the latencies.
 */
Test(analytic, ring_streams_at_the_bottleneck)
{
	struct plan_options o = opts(PLAN_PATH_DIRECT, 4, "ring", "simple");
	double S = 256 * MiB, want = 8.4 + 192 * MiB / 5e9 * 1e6 + 14;
	struct coll_record c;

	assert_rel(one_time("{\"iteration\":0,\"op\":\"allreduce\",\"bytes\":268435456,"
			    "\"dtype\":\"fp32\"}\n", &o, &c), want, 1e-3);
	/* nccl-tests: algbw = S / t, busbw = algbw x 2(n-1)/n, GB = 1e9 B */
	assert_rel(c.algbw_gbps, S / (want * 1e3), 1e-3);
	assert_rel(c.busbw_gbps, S / (want * 1e3) * 1.5, 1e-3);
}

/*
 * A broadcast is a chain from the root: 8 MiB over 4 nodes, Simple, 2
 * channels of 4 MiB in chunks of one slot (512 KiB): 8 slices at 5 GB/s,
 * tau = 104.8576 us. The first slice crosses 3 hops, 7 follow one tau
 * apart: T = 8.4 + 3 x (14 + tau) + 7 x tau.
 */
Test(analytic, chain_broadcast)
{
	struct plan_options o = opts(PLAN_PATH_DIRECT, 4, NULL, "simple");
	double tau = 524288 / 5e9 * 1e6;
	struct coll_record c;

	assert_rel(one_time("{\"iteration\":0,\"op\":\"broadcast\",\"bytes\":8388608,"
			    "\"root\":0}\n", &o, &c),
		   8.4 + 3 * (14 + tau) + 7 * tau, 1e-3);
	cr_assert_eq(c.algo, ALGO_RING);
}

/*
 * NCCL's double binary tree: with one GPU a node, an 8-byte all-reduce
 * on Tree/LL goes up log2 N levels and down again. NCCL's tree LL network
 * hop is 5 us, but round-numbers' links take longer: LL's send FIFO lives
 * in host memory (transport/net.cc), so the data goes GPU -> host (2 us of
 * links) -> NIC (2 us), the wire (5 us) and NIC -> GPU (2 us): 11 us a
 * hop. T = 6.8 + 2 log2(N) x 11 us, 22 us more for every doubling of the
 * nodes (a ring's latency grows with N instead). NCCL's own estimate
 * keeps its 5 us: 6.8 + 2 log2(N) x 5.
 */
Test(analytic, tree_latency_grows_with_log2_nodes)
{
	for (unsigned n = 2; n <= 64; n *= 2) {
		struct plan_options o = opts(PLAN_PATH_DIRECT, n, "tree", "ll");
		struct coll_record c;

		assert_rel(one_time("{\"iteration\":0,\"op\":\"allreduce\",\"bytes\":8,"
				    "\"dtype\":\"fp32\"}\n", &o, &c),
			   6.8 + 2 * log2(n) * 11, 1e-3);
		/* (8 bytes add well under a nanosecond to either) */
		assert_rel(c.nccl_estimate_us, 6.8 + 2 * log2(n) * 5, 1e-3);
		cr_assert_eq(c.algo, ALGO_TREE);
		cr_assert_eq(c.nchannels, 1, "8 bytes keep one channel");
	}
}

/*
 * Tree/Simple all-reduce on 2 nodes, the closed form's exact cases
 * (derived in tests/unit/test_conformance.c, where the model backend is
 * held to them too). NCCL's tree bandwidth a graph channel (tuning.cc, 2
 * nodes: min(bwIntra 20 x .92, perChMaxTreeBw, Ampere 2 nodes 23.6) =
 * 18.4, x0.5 for the all-reduce, over the communicator's 2 channels: 4.6
 * GB/s a connection) paces a connection's stream of 512 KiB slices; a
 * slice crosses a hop at its links' pace (10 GB/s while it fills the pipe
 * alone). One channel: T = 8.4 + 2 (14 + 52.429) + (K - 1) 113.975 for K
 * slices.
 */
Test(analytic, tree_allreduce_pipelines_up_and_down)
{
	double tau = 524288 / 10e9 * 1e6, pi = 524288 / 4.6e9 * 1e6;
	struct plan_options o = opts(PLAN_PATH_DIRECT, 2, "tree", "simple");
	struct coll_record c;

	o.nchannels = 1;
	for (unsigned k = 2; k <= 128; k *= 4) {
		char line[128];

		snprintf(line, sizeof(line),
			 "{\"iteration\":0,\"op\":\"allreduce\",\"bytes\":%u,\"dtype\":\"fp32\"}\n",
			 k * 524288);
		assert_rel(one_time(line, &o, &c), 8.4 + 2 * (14 + tau) + (k - 1) * pi, 1e-3);
		cr_assert_eq(c.algo, ALGO_TREE);
	}
	o.nchannels = 0;
	assert_rel(one_time("{\"iteration\":0,\"op\":\"allreduce\",\"bytes\":67108864,"
			    "\"dtype\":\"fp32\"}\n", &o, &c),
		   8.4 + 2 * (14 + tau) + 63 * pi, 1e-3);
	cr_assert_eq(c.nchannels, 2);
}

/* Collectives run one after another once ready; compute hides what it can. */
Test(analytic, schedule_and_exposed_communication)
{
	struct plan_options o = opts(PLAN_PATH_DIRECT, 0, NULL, NULL);
	struct run r;
	double t1 = 8.4 + 14 + 10e6 / 10e9 * 1e6; /* one sendrecv of 10 MB */

	run_trace(&r, "analytic", DATA("round-numbers.yaml"),
		  "{\"iteration\":0,\"op\":\"sendrecv\",\"bytes\":10000000,\"dtype\":\"int8\","
		  "\"src\":0,\"dst\":1,\"ready_us\":100,\"compute_us\":1500}\n"
		  "{\"iteration\":0,\"op\":\"sendrecv\",\"bytes\":10000000,\"dtype\":\"int8\","
		  "\"src\":0,\"dst\":1,\"ready_us\":200,\"compute_us\":1500}\n"
		  "{\"iteration\":1,\"op\":\"sendrecv\",\"bytes\":10000000,\"dtype\":\"int8\","
		  "\"src\":0,\"dst\":1,\"ready_us\":0,\"compute_us\":1500}\n", &o);
	assert_rel(r.rec.coll[0].time_us, t1, 1e-9);
	/* first starts when ready; the second waits for the first */
	assert_rel(r.rec.coll[0].start_us, 100, 1e-9);
	assert_rel(r.rec.coll[1].start_us, 100 + t1, 1e-9);
	/* iteration 0 ends with the second collective, after compute */
	assert_rel(r.rec.iter[0].end_us, 100 + 2 * t1, 1e-9);
	assert_rel(r.rec.iter[0].exposed_us, 100 + 2 * t1 - 1500, 1e-9);
	/* iteration 1 starts there; its collective is hidden by compute */
	assert_rel(r.rec.iter[1].start_us, 100 + 2 * t1, 1e-9);
	cr_assert_float_eq(r.rec.iter[1].exposed_us, 0, 1e-9);
	run_destroy(&r);
}

/*
 * Without compute times (an imported trace), the gaps between calls'
 * ready times are no communication's: an instant network would end the
 * iteration when its last call is ready, 3000 us in, so the exposed
 * communication is the last call's time, not the iteration's.
 */
Test(analytic, gaps_before_ready_are_not_exposed)
{
	struct plan_options o = opts(PLAN_PATH_DIRECT, 0, NULL, NULL);
	struct run r;
	double t1 = 8.4 + 14 + 10e6 / 10e9 * 1e6; /* one sendrecv of 10 MB */

	run_trace(&r, "analytic", DATA("round-numbers.yaml"),
		  "{\"iteration\":0,\"op\":\"sendrecv\",\"bytes\":10000000,\"dtype\":\"int8\","
		  "\"src\":0,\"dst\":1,\"ready_us\":100}\n"
		  "{\"iteration\":0,\"op\":\"sendrecv\",\"bytes\":10000000,\"dtype\":\"int8\","
		  "\"src\":0,\"dst\":1,\"ready_us\":3000}\n", &o);
	assert_rel(r.rec.iter[0].end_us, 3000 + t1, 1e-9);
	assert_rel(r.rec.iter[0].comm_us, 2 * t1, 1e-9);
	assert_rel(r.rec.iter[0].exposed_us, t1, 1e-9);
	run_destroy(&r);
}

/*
 * A chain whose dependencies close a cycle has no phases (model.md §6,
 * Sharing): the backend says so rather than timing it, and the same plan
 * mended times as before.
 */
Test(analytic, chain_with_a_cycle_is_refused)
{
	struct plan_options o = opts(PLAN_PATH_DIRECT, 4, "tree", "simple");
	const struct backend_ops *b = backend_find("analytic");
	struct diag d = { "" };
	struct plan_pattern *pat;
	struct plan_conn *a = NULL, *dep;
	struct plan_conn saved;
	double t;
	struct run r;

	run_trace(&r, "analytic", DATA("round-numbers.yaml"),
		  "{\"iteration\":0,\"op\":\"allreduce\",\"bytes\":1048576,\"dtype\":\"fp32\"}\n",
		  &o);
	t = r.rec.coll[0].time_us;
	pat = &r.plan.patterns[r.plan.collectives[0].pattern];
	for (size_t i = 0; i < pat->nconns && !a; i++)
		if (pat->conns[i].ndeps)
			a = &pat->conns[i];
	cr_assert_not_null(a, "a tree has connections that wait for others");
	dep = &pat->conns[a->deps[0]];
	saved = *dep;
	dep->ndeps = 1;
	dep->deps[0] = (uint32_t)(a - pat->conns);
	cr_assert_eq(backend_run(b, &r.plan, &r.rec, &d), -ELOOP);
	cr_assert(strstr(d.msg, "analytic backend"), "%s", d.msg);
	*dep = saved;
	cr_assert_eq(backend_run(b, &r.plan, &r.rec, &d), 0, "%s", d.msg);
	cr_assert(r.rec.coll[0].time_us == t, "%a, before %a", r.rec.coll[0].time_us, t);
	run_destroy(&r);
}
