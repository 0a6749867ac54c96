/* SPDX-License-Identifier: MIT */
/*
 * The tuner against NCCL's own formulas worked by hand (NVIDIA/nccl
 * v2.30.7-1, src/graph/tuning.cc; ../shared/notes/nccl-algorithms.md §1),
 * and NCCL_ALGO / NCCL_PROTO's syntax.
 *
 * tests/data/round-numbers.yaml on 4 nodes: one GPU a node, its NIC at
 * 10 GB/s under the same switch (PIX, so GPUDirect and LL128 are NCCL's
 * defaults). The ring graph is one channel at the NIC's 10 GB/s (NCCL
 * counts a NIC at its line rate). For an all-reduce over n = 4 ranks,
 * nsteps = 2(n-1) = 6, all of them network steps; with one GPU a node
 * NCCL takes the tree row's network latency for the ring (ppn 1):
 *
 *   LL:     lat = 6.6 + 6 x 5.0  = 36.6 us, bw = min(20.4, 10 x 0.5) x 4/6
 *   LL128:  lat = 14  + 6 x 8.5  = 65.0 us, bw = min(10 x 0.92, 20) x 4/6
 *   Simple: lat = (8.4 + 6 x 14) x 1.4 = 129.36 us (the ring's "plateau"
 *           factor on Ampere once a channel has 64 bytes a rank),
 *           bw = 10 x 4/6
 *
 * LL against Simple: 36.6 + B / 3333.3 = 129.36 + B / 6666.7 at
 * B = 92.76 x 6666.7 = 618,400 bytes.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "tuned_helpers.h"

#define KiB 1024ull
#define MiB (1024ull * 1024)

static const char allreduce_line[] =
	"{\"iteration\":0,\"op\":\"allreduce\",\"bytes\":1048576,\"dtype\":\"fp32\"}\n";

/* The tuner's view of @op over every rank of @topo_path. */
static void tuned_init_op(struct tuned *x, const char *topo_path, unsigned nodes,
			  enum plan_path path, const char *algo, const char *proto,
			  enum trace_op op)
{
	struct plan_options o;

	plan_options_default(&o);
	o.nodes = nodes;
	o.path = path;
	o.algo = algo;
	o.proto = proto;
	tuned_init_opts(x, topo_path, &o, op);
}

static void tuned_init(struct tuned *x, const char *topo_path, unsigned nodes,
		       enum plan_path path, const char *algo, const char *proto)
{
	tuned_init_op(x, topo_path, nodes, path, algo, proto, TRACE_OP_ALLREDUCE);
}

Test(tuner, ring_estimates_are_nccls_formulas)
{
	struct tuned x;

	tuned_init(&x, DATA("round-numbers.yaml"), 4, PLAN_PATH_DIRECT, NULL, NULL);
	cr_assert_eq(x.t.nnodes, 4);
	cr_assert_eq(x.t.ppn, 1);
	cr_assert_eq(x.t.ch.ring.nchannels, 1);
	assert_rel(x.t.ch.ring.bw_inter, 10, 1e-9);
	cr_assert(x.t.net_gdr, "GPU and NIC share a switch: GPUDirect");
	for (uint64_t b = 4 * KiB; b <= 64 * MiB; b *= 16) {
		assert_rel(entry(&x, ALGO_RING, PROTO_LL, b), 36.6 + b / (1000 * 10 * 0.5 * 4 / 6.0), 1e-9);
		assert_rel(entry(&x, ALGO_RING, PROTO_LL128, b), 65 + b / (1000 * 9.2 * 4 / 6.0), 1e-9);
		assert_rel(entry(&x, ALGO_RING, PROTO_SIMPLE, b), 129.36 + b / (1000 * 10 * 4 / 6.0),
			   1e-9);
	}
	/* Under 64 bytes a channel and rank, no plateau factor. */
	assert_rel(entry(&x, ALGO_RING, PROTO_SIMPLE, 128), 92.4 + 128 / (1000 * 10 * 4 / 6.0), 1e-9);
	tuned_destroy(&x);
}

/* Either side of the 618,400-byte crossover worked out above. */
Test(tuner, ll_below_the_crossover_simple_above)
{
	struct tuned x;

	tuned_init(&x, DATA("round-numbers.yaml"), 4, PLAN_PATH_DIRECT, "ring", "^ll128");
	cr_assert_eq(choose(&x, 512 * KiB).proto, PROTO_LL);
	cr_assert_eq(choose(&x, 600 * 1000).proto, PROTO_LL);
	cr_assert_eq(choose(&x, 640 * 1000).proto, PROTO_SIMPLE);
	cr_assert_eq(choose(&x, 1 * MiB).proto, PROTO_SIMPLE);
	cr_assert_eq(choose(&x, 1 * MiB).algo, ALGO_RING);
	tuned_destroy(&x);
}

/*
 * With LL128 allowed it takes the middle: LL at 4 KiB (37.8 against 65.6
 * us), LL128 at 512 KiB (150.5 against 193.9 LL and 208.0 Simple), Simple
 * at 64 MiB (10,196 against 11,008 LL128).
 */
Test(tuner, ll128_between_ll_and_simple)
{
	struct tuned x;

	tuned_init(&x, DATA("round-numbers.yaml"), 4, PLAN_PATH_DIRECT, "ring", NULL);
	cr_assert_eq(choose(&x, 4 * KiB).proto, PROTO_LL);
	cr_assert_eq(choose(&x, 512 * KiB).proto, PROTO_LL128);
	cr_assert_eq(choose(&x, 64 * MiB).proto, PROTO_SIMPLE);
	assert_rel(choose(&x, 64 * MiB).estimate_us, 129.36 + 64.0 * MiB / (1000 * 10 * 4 / 6.0),
		   1e-9);
	tuned_destroy(&x);
}

/* NCCL enables LL128 by default only where the network reads and writes
 * GPU memory; staged, only if asked for. */
Test(tuner, ll128_needs_gpudirect_unless_asked)
{
	struct tuned x;
	char why[200];

	tuned_init(&x, DATA("round-numbers.yaml"), 4, PLAN_PATH_STAGED, NULL, NULL);
	cr_assert_not(x.t.net_gdr);
	cr_assert_lt(tune_entry(&x.t, &x.e, ALGO_RING, PROTO_LL128, MiB, why, sizeof(why)), 0);
	cr_assert_not_null(strstr(why, "GPUDirect RDMA"), "%s", why);
	tuned_destroy(&x);
	tuned_init(&x, DATA("round-numbers.yaml"), 4, PLAN_PATH_STAGED, NULL, "ll128");
	assert_rel(entry(&x, ALGO_RING, PROTO_LL128, MiB), 65 + MiB / (1000 * 9.2 * 4 / 6.0), 1e-9);
	cr_assert_eq(choose(&x, MiB).proto, PROTO_LL128);
	tuned_destroy(&x);
}

/* round-numbers.yaml with @extra appended, into @path (a scratch file). */
static void round_numbers_with(char *path, size_t len, const char *extra)
{
	FILE *in = fopen(DATA("round-numbers.yaml"), "r"), *out;
	char buf[4096];
	size_t n;
	int fd;

	snprintf(path, len, "/tmp/gdrlab-tuner-XXXXXX");
	fd = mkstemp(path);
	cr_assert(in && fd >= 0);
	out = fdopen(fd, "w");
	cr_assert_not_null(out);
	while ((n = fread(buf, 1, sizeof(buf), in)))
		fwrite(buf, 1, n, out);
	fputs(extra, out);
	fclose(in);
	cr_assert_eq(fclose(out), 0);
}

/*
 * An Ada GPU (compute capability 8.9): Ampere's tables, the same
 * estimates, but before 2.27 NCCL enabled LL128 on compute capabilities
 * 7.0, 8.0 and 9.0 alone (v2.21.5-1 tuning.cc:310-315 "case 70, 80,
 * 90"), and from 2.27 on any from 7.0 (v2.27.3-1:463). One GPU a node
 * with GPUDirect: round-numbers' LL128 at 512 KiB (ll128_between_ll_and_
 * simple), under 2.21.5 not for Ada, and as Ampere under 2.30.7.
 */
Test(tuner, ada_has_ll128_from_nccl_2_27)
{
	struct tuned x;
	char path[64], why[200];

	round_numbers_with(path, sizeof(path), "gpu_arch: ada\n");
	tuned_release(&x, path, 4, "2.21.5");
	cr_assert_eq(x.plan.topo.gpu_arch, TOPO_GPU_AMPERE);
	cr_assert_lt(tune_entry(&x.t, &x.e, ALGO_RING, PROTO_LL128, 512 * KiB, why, sizeof(why)), 0);
	cr_assert_str_eq(why, "NCCL before 2.27 enables LL128 on compute capabilities 7.0, 8.0 and 9.0 alone, not 8.9");
	cr_assert_neq(choose(&x, 512 * KiB).proto, PROTO_LL128);
	tuned_destroy(&x);
	tuned_release(&x, DATA("round-numbers.yaml"), 4, "2.21.5");
	cr_assert_gt(tune_entry(&x.t, &x.e, ALGO_RING, PROTO_LL128, 512 * KiB, why, sizeof(why)), 0);
	tuned_destroy(&x);
	tuned_release(&x, path, 4, "2.30.7");
	assert_rel(entry(&x, ALGO_RING, PROTO_LL128, MiB), 65 + MiB / (1000 * 9.2 * 4 / 6.0), 1e-9);
	cr_assert_eq(choose(&x, 512 * KiB).proto, PROTO_LL128);
	tuned_destroy(&x);
	unlink(path);
}

/* compute_capability: the generation it belongs to, and no other. */
Test(tuner, compute_capability_names_the_generation)
{
	struct topology t;
	struct diag d = { "" };
	char path[64];

	round_numbers_with(path, sizeof(path), "compute_capability: 8.6\n");
	cr_assert_eq(topology_load(path, &t, &d), 0, "%s", d.msg);
	cr_assert_eq(t.gpu_arch, TOPO_GPU_AMPERE);
	cr_assert_eq(topo_gpu_cc(&t), 86);
	unlink(path);
	round_numbers_with(path, sizeof(path), "gpu_arch: hopper\ncompute_capability: 8.9\n");
	cr_assert_lt(topology_load(path, &t, &d), 0);
	cr_assert_not_null(strstr(d.msg, "compute_capability: 8.9 is ampere to NCCL's tables (tuning.cc), where gpu_arch says hopper"),
			   "%s", d.msg);
	unlink(path);
}

/* A GPU's dense peak: the file's gpu_tflops, else its compute
 * capability's flagship's (A100 312, A40 149.7 for 8.6, L40S 362). */
Test(tuner, gpu_tflops_given_or_the_flagships)
{
	static const struct { const char *extra; double tflops; } cases[] = {
		{ "", 312 }, { "compute_capability: 8.6\n", 149.7 }, { "gpu_arch: ada\n", 362 },
		{ "gpu_arch: hopper\ngpu_tflops: 835\n", 835 }, { "gpu_arch: volta\n", 125 },
	};
	struct topology t;
	struct diag d = { "" };
	char path[64];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		round_numbers_with(path, sizeof(path), cases[i].extra);
		cr_assert_eq(topology_load(path, &t, &d), 0, "%s", d.msg);
		cr_expect_eq(topo_gpu_tflops(&t), cases[i].tflops, "%s", cases[i].extra);
		unlink(path);
	}
	round_numbers_with(path, sizeof(path), "gpu_tflops: 0\n");
	cr_assert_lt(topology_load(path, &t, &d), 0);
	cr_expect_not_null(strstr(d.msg, "gpu_tflops: must be > 0"), "%s", d.msg);
	unlink(path);
}

/*
 * NCCL's tree on one GPU a node: up and down log2(4) levels of 5 us
 * network hops (LL), lat = 6.8 + 2 x 2 x 5 = 26.8 us, against the ring's
 * 36.6: the tree wins tiny all-reduces.
 */
Test(tuner, tree_wins_tiny_allreduces)
{
	struct tuned x;
	struct tune_choice c;

	tuned_init(&x, DATA("round-numbers.yaml"), 4, PLAN_PATH_DIRECT, NULL, NULL);
	c = choose(&x, 8);
	cr_assert_eq(c.algo, ALGO_TREE);
	cr_assert_eq(c.proto, PROTO_LL);
	cr_assert_float_eq(entry(&x, ALGO_TREE, PROTO_LL, 0), 6.8 + 2 * 2 * 5, 1e-9);
	tuned_destroy(&x);
}

/*
 * One node of round-numbers' one GPU is a communicator of one rank, whose
 * collectives NCCL runs as a local copy without its tuner (enqueue.cc,
 * nRanks == 1): its cost table holds Ring/Simple alone, so that is the
 * choice, on one channel, at any size and whatever --algo and --proto
 * allow, and there is no estimate of NCCL's, as for p2p; two ranks have
 * one.
 */
Test(tuner, one_rank_has_no_nccl_estimate)
{
	struct tuned x;

	tuned_init(&x, DATA("round-numbers.yaml"), 1, PLAN_PATH_DIRECT, NULL, NULL);
	cr_assert_eq(x.t.nranks, 1);
	for (uint64_t b = 8; b <= 64 * MiB; b *= 64) {
		struct tune_choice c = choose(&x, b);

		cr_assert(isnan(c.estimate_us), "%llu bytes: %g us", (unsigned long long)b,
			  c.estimate_us);
		cr_assert(c.algo == ALGO_RING && c.proto == PROTO_SIMPLE && c.nchannels == 1,
			  "%llu bytes: %s/%s x%u", (unsigned long long)b, algo_name(c.algo),
			  proto_name(c.proto), c.nchannels);
	}
	tuned_destroy(&x);
	tuned_init(&x, DATA("round-numbers.yaml"), 1, PLAN_PATH_DIRECT, "tree", "ll");
	cr_assert(isnan(choose(&x, MiB).estimate_us));
	cr_assert_eq(choose(&x, MiB).algo, ALGO_RING);
	tuned_destroy(&x);
	tuned_init(&x, DATA("round-numbers.yaml"), 2, PLAN_PATH_DIRECT, NULL, NULL);
	cr_assert(isfinite(choose(&x, MiB).estimate_us));
	tuned_destroy(&x);
}

/*
 * topoGetAlgoInfo drops channels while the call has fewer bytes than
 * channels x threads x the protocol's threshold (Simple: 64 B a thread,
 * at most 512 threads): 4 KiB is below 2 x 64 x 64 and keeps one channel
 * of the communicator's two; 1 MiB keeps both.
 */
Test(tuner, small_calls_use_fewer_channels)
{
	struct tuned x;

	tuned_init(&x, DATA("round-numbers.yaml"), 4, PLAN_PATH_DIRECT, "ring", "simple");
	cr_assert_eq(x.t.ch.comm_channels, 2);
	cr_assert_eq(choose(&x, 4 * KiB).nchannels, 1);
	cr_assert_eq(choose(&x, MiB).nchannels, 2);
	tuned_destroy(&x);
}

static int parse(struct tune_enable *e, const char *algo, const char *proto,
		 struct diag *d)
{
	tune_enable_default(e);
	d->msg[0] = '\0';
	return tune_enable_parse(e, algo, proto, d);
}

Test(tuner, nccl_algo_syntax)
{
	struct tune_enable e;
	struct diag d;

	cr_assert_eq(parse(&e, "Ring,TREE", NULL, &d), 0, "%s", d.msg);
	for (unsigned o = 0; o < TRACE_OP_COUNT; o++)
		for (unsigned a = 0; a < ALGO_NCCL_COUNT; a++)
			cr_assert_eq(e.algo[o][a], a == ALGO_RING || a == ALGO_TREE);

	cr_assert_eq(parse(&e, "^nvls,nvlstree", NULL, &d), 0, "%s", d.msg);
	cr_assert_not(e.algo[TRACE_OP_ALLREDUCE][ALGO_NVLS]);
	cr_assert_not(e.algo[TRACE_OP_ALLREDUCE][ALGO_NVLS_TREE]);
	cr_assert(e.algo[TRACE_OP_ALLREDUCE][ALGO_RING]);
	cr_assert(e.algo[TRACE_OP_ALLREDUCE][ALGO_PAT]);

	/* A list per collective; those not named keep everything. */
	cr_assert_eq(parse(&e, "allreduce:tree;broadcast:ring", NULL, &d), 0, "%s", d.msg);
	cr_assert(e.algo[TRACE_OP_ALLREDUCE][ALGO_TREE]);
	cr_assert_not(e.algo[TRACE_OP_ALLREDUCE][ALGO_RING]);
	cr_assert(e.algo[TRACE_OP_BROADCAST][ALGO_RING]);
	cr_assert_not(e.algo[TRACE_OP_BROADCAST][ALGO_TREE]);
	cr_assert(e.algo[TRACE_OP_ALL_GATHER][ALGO_PAT]);
	cr_assert(e.algo[TRACE_OP_ALL_GATHER][ALGO_RING]);

	cr_assert_eq(parse(&e, NULL, "^LL128", &d), 0, "%s", d.msg);
	cr_assert_eq(e.proto[TRACE_OP_ALLREDUCE][PROTO_LL128], 0);
	cr_assert_eq(e.proto[TRACE_OP_ALLREDUCE][PROTO_LL], 1);
	cr_assert_eq(parse(&e, NULL, "simple", &d), 0, "%s", d.msg);
	cr_assert_eq(e.proto[TRACE_OP_REDUCE_SCATTER][PROTO_SIMPLE], 1);
	cr_assert_eq(e.proto[TRACE_OP_REDUCE_SCATTER][PROTO_LL], 0);
}

Test(tuner, nccl_algo_syntax_errors)
{
	struct tune_enable e;
	struct diag d;

	cr_assert_eq(parse(&e, "ring,bogus", NULL, &d), -EINVAL);
	cr_assert_str_eq(d.msg, "--algo: unknown algorithm 'bogus' (Tree, Ring, CollnetDirect, CollnetChain, NVLS, NVLSTree, PAT)");
	cr_assert_eq(parse(&e, "tree;ring", NULL, &d), -EINVAL);
	cr_assert_str_eq(d.msg, "--algo: every list after the first needs a 'collective:' prefix, got 'ring'");
	cr_assert_eq(parse(&e, "gather:ring", NULL, &d), -EINVAL);
	cr_assert_str_eq(d.msg, "--algo: unknown collective 'gather' (allreduce, allgather, reducescatter, broadcast, reduce)");
	/* NCCL compares names whole: " tree" is no algorithm (dropped before
	 * 2.24, an init error after), not tree */
	cr_assert_eq(parse(&e, "ring, tree", NULL, &d), -EINVAL);
	cr_assert_str_eq(d.msg, "--algo: ' tree' has a space, which NCCL takes as part of the name (no such algorithm): write the list without spaces");
	/* Reduce is NCCL's, not timed here: taken, and changes nothing */
	cr_assert_eq(parse(&e, "reduce:ring", NULL, &d), 0, "%s", d.msg);
	for (unsigned o = 0; o < TRACE_OP_COUNT; o++)
		for (unsigned a = 0; a < ALGO_NCCL_COUNT; a++)
			cr_assert(e.algo[o][a]);
	cr_assert_eq(parse(&e, "reduce:bogus", NULL, &d), -EINVAL, "names checked all the same");
	cr_assert_eq(parse(&e, "", NULL, &d), -EINVAL);
	cr_assert_str_eq(d.msg, "--algo: empty list");
	cr_assert_eq(parse(&e, NULL, "LL256", &d), -EINVAL);
	cr_assert_str_eq(d.msg, "--proto: unknown protocol 'LL256' (LL, LL128, Simple)");
}

/* An --algo that nothing here can run is the input's error, named at the
 * trace line of the collective. */
Test(tuner, algo_that_cannot_run_is_an_error)
{
	struct topology topo;
	struct trace trace;
	struct plan plan;
	struct plan_options o;
	struct diag d = { "" };

	plan_options_default(&o);
	o.nodes = 4;
	o.algo = "nvls";
	cr_assert_eq(topology_load(DATA("round-numbers.yaml"), &topo, &d), 0, "%s", d.msg);
	cr_assert_eq(trace_load_buffer(allreduce_line, strlen(allreduce_line), "inline.jsonl",
				       &trace, &d), 0, "%s", d.msg);
	cr_assert_eq(plan_build(&plan, &topo, &trace, &o, &d), -EINVAL);
	cr_assert_not_null(strstr(d.msg, "inline.jsonl:1"), "%s", d.msg);
	cr_assert_not_null(strstr(d.msg, "allow no algorithm and protocol that can run allreduce"),
			   "%s", d.msg);
	/* and why the one the flags left cannot: no NVSwitch here */
	cr_assert_not_null(strstr(d.msg, "(NVLS/Simple: needs NVSwitches"), "%s", d.msg);
	trace_destroy(&trace);
}

/* Lists per collective came with NCCL 2.24: an older release's plan
 * refuses them (its parseList reads the entry as one unknown name). */
Test(tuner, lists_per_collective_need_nccl_2_24)
{
	struct topology topo;
	struct trace trace;
	struct plan plan;
	struct plan_options o;
	struct diag d = { "" };

	cr_assert_eq(topology_load(DATA("round-numbers.yaml"), &topo, &d), 0, "%s", d.msg);
	cr_assert_eq(trace_load_buffer(allreduce_line, strlen(allreduce_line), "inline.jsonl",
				       &trace, &d), 0, "%s", d.msg);
	for (size_t r = 0; r < nccl_release_count; r++) {
		bool old = nccl_release_minor(nccl_releases[r]) < 24;

		plan_options_default(&o);
		plan_options_set_nccl(&o, nccl_releases[r]);
		o.nodes = 2;
		o.algo = "allreduce:ring";
		cr_assert_eq(plan_build(&plan, &topo, &trace, &o, &d), old ? -EINVAL : 0,
			     "%s: %s", nccl_releases[r]->version, d.msg);
		if (old)
			cr_assert_not_null(strstr(d.msg, "--algo: 'allreduce:ring' is a list per collective, which NCCL reads from 2.24 on"),
					   "%s", d.msg);
		else
			plan_destroy(&plan);
		o.algo = "ring";
		cr_assert_eq(plan_build(&plan, &topo, &trace, &o, &d), 0, "%s", d.msg);
		plan_destroy(&plan);
	}
	trace_destroy(&trace);
}

/* --channels fixes the count whatever the size. */
Test(tuner, fixed_channels)
{
	struct tuned x;

	tuned_init(&x, DATA("round-numbers.yaml"), 4, PLAN_PATH_DIRECT, NULL, NULL);
	x.plan.opts.nchannels = 3;
	cr_assert_eq(choose(&x, 4 * KiB).nchannels, 3);
	cr_assert_eq(choose(&x, 64 * MiB).nchannels, 3);
	tuned_destroy(&x);
}

/* Whether (@a, Simple) is in NCCL's table for @op here; @why if not. */
static bool available(const char *topo_path, unsigned nodes, enum trace_op op,
		      enum algo_id a, char *why, size_t len)
{
	struct tuned x;
	double t;

	tuned_init_op(&x, topo_path, nodes, PLAN_PATH_AUTO, NULL, NULL, op);
	t = tune_entry(&x.t, &x.e, a, PROTO_SIMPLE, MiB, why, len);
	tuned_destroy(&x);
	return t >= 0;
}

/* NVLS needs NVSwitches that reduce (Hopper's NVLink SHARP): inside one
 * node on its own, across nodes as NVLSTree. */
Test(tuner, nvls_only_where_the_switches_reduce)
{
	char why[200];

	cr_assert(available(CONFIG("h100-pcie5-400g.yaml"), 1, TRACE_OP_ALLREDUCE, ALGO_NVLS,
			    why, sizeof(why)), "%s", why);
	cr_assert_not(available(CONFIG("h100-pcie5-400g.yaml"), 2, TRACE_OP_ALLREDUCE, ALGO_NVLS,
				why, sizeof(why)));
	cr_assert_not_null(strstr(why, "CollNet"), "%s", why);
	cr_assert(available(CONFIG("h100-pcie5-400g.yaml"), 2, TRACE_OP_ALLREDUCE,
			    ALGO_NVLS_TREE, why, sizeof(why)), "%s", why);
	cr_assert_not(available(CONFIG("a100-pcie4-200g.yaml"), 1, TRACE_OP_ALLREDUCE, ALGO_NVLS,
				why, sizeof(why)));
	cr_assert_not_null(strstr(why, "NVLink SHARP"), "%s", why);
	cr_assert_not(available(CONFIG("a100-pcie4-200g.yaml"), 2, TRACE_OP_ALLREDUCE,
				ALGO_NVLS_TREE, why, sizeof(why)));
}

/*
 * The NVLS graph as NCCL's search finds it on 8 H100s (18 NVLinks of
 * 20.6 GB/s = 370.8 GB/s a GPU, search.cc ncclTopoSearchTryNvls): each of
 * the 8 channels loads every GPU with its speed and its head twice, 9 x
 * speed a GPU: 9 x 40 = 360 fits, 9 x 50 does not, so bwIntra = 40 (of
 * sm90's 60, 50, 40, ...). Pass 2 raises bwInter alone while under 2 x 40:
 * on one node nothing checks it, 50 then 60 (the top); across nodes the
 * inter list (48, 45, 42, 40, 30, 24, ...) up to what a head's 400
 * Gbit/s NIC carries, 48 of 50 GB/s. Across nodes a head is a NIC's local
 * GPU, one a NIC (ncclTopoSearchRecNet): with a NIC for two GPUs (4 x
 * 400G) 4 heads, GPUs 0, 2, 4, 6, each channel at 48 both ways ((4 + 1) x
 * 48 = 240 within 370.8): NCCL 2.21.5's and 2.30.7's own search.cc give 4
 * channels at 48/48 there (tools/nccl-oracle/search.sh), where gdrlab had
 * 8 heads sharing NICs at 24 until 2026-12-05. NCCL's NVLS estimate per
 * channel is then
 * min(40 x 0.85 x 7/8 x 2 = 59.5, bwInter): 59.5 on one node (476 GB/s
 * busbw over 8 channels), which beats Ring's there, as NCCL picks NVLS
 * for large all-reduces on an H100 node.
 */
Test(tuner, nvls_graph_as_nccl_searches_it)
{
	struct tuned x;
	struct tune_choice c;

	tuned_init(&x, CONFIG("h100-pcie5-400g.yaml"), 1, PLAN_PATH_AUTO, NULL, NULL);
	cr_expect_eq(x.t.ch.nvls.nchannels, 8);
	cr_expect_float_eq(x.t.ch.nvls.bw_intra, 40.0, 1e-9);
	cr_expect_float_eq(x.t.ch.nvls.bw_inter, 60.0, 1e-9);
	cr_expect_float_eq(algo_nvls_bw(&x.t, false), 40 * 0.85 * 7 / 8 * 2, 1e-6);
	c = choose(&x, 8ull << 30);
	cr_expect_eq(c.algo, ALGO_NVLS, "%s", algo_name(c.algo));
	tuned_destroy(&x);

	tuned_init(&x, CONFIG("h100-pcie5-400g.yaml"), 4, PLAN_PATH_AUTO, NULL, NULL);
	cr_expect_float_eq(x.t.ch.nvls.bw_intra, 40.0, 1e-9);
	cr_expect_float_eq(x.t.ch.nvls.bw_inter, 48.0, 1e-9);
	tuned_destroy(&x);

	/* four NICs: four heads, a NIC each */
	tuned_init(&x, CONFIG("validation/h100-4x400g-roce.yaml"), 5, PLAN_PATH_AUTO, NULL,
		   NULL);
	cr_expect_eq(x.t.ch.nvls.nchannels, 4);
	cr_expect_float_eq(x.t.ch.nvls.bw_intra, 48.0, 1e-9);
	cr_expect_float_eq(x.t.ch.nvls.bw_inter, 48.0, 1e-9);
	for (unsigned ch = 0; ch < 8; ch++) {
		static const unsigned gpus[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
		int nic;

		cr_expect_eq(channels_nvls_head(&x.topo, gpus, 8, true, ch, &nic), 2 * (ch % 4),
			     "channel %u", ch);
		cr_expect_eq(nic, (int)(ch % 4), "channel %u", ch);
	}
	tuned_destroy(&x);
}

/*
 * The tree graph as NCCL's own search (search.cc ncclTopoCompute, v2.19.3-1
 * and v2.30.7-1, run on these layouts) returns it: the ring's channels
 * and network speed, bwIntra raised by its second pass while under twice
 * that and the chains' NVLink carries it: on 2 nodes of the A100 preset
 * 24 -> 48 (4 channels: 4 x 7/8 x 48 of 240 GB/s), on the DGX A100's
 * 8 NICs 24 -> 30 (8 channels: 7 x 40 > 240), on 4 x 400G H100 (the ring
 * 4 x 48 duplicated to 8 x 24) 24 -> 48. A balanced tree on each of
 * these (two GPUs a NIC); on a node of a NIC per GPU, Hopper's search
 * falls back to NCCL_TOPO_PATTERN_TREE, and the tuner's tree there gives
 * NCCL 2.22.3's TUNING lines of nccl#1453 (3 x 8 H100, 8 x 200G) to the
 * microsecond: Tree/LL 25.200924 us at 8 B, 25.495272 at 2 KiB, 26.549810
 * at 8 KiB, NVLSTree/Simple 59.553600 at 512 KiB (2.21.5's NVLS NVLink
 * hop, 25 us: 2.19.3's 23 gives 57.5536), the 8 GiB ring 86069.968750
 * (2.22's values are 2.21.5's table).
 */
Test(tuner, tree_graph_as_nccl_searches_it)
{
	struct tuned x;
	struct tune_choice c;

	tuned_init(&x, CONFIG("a100-pcie4-200g.yaml"), 2, PLAN_PATH_AUTO, NULL, NULL);
	cr_expect_eq(x.t.ch.ring.nchannels, 4);
	cr_expect_float_eq(x.t.ch.ring.bw_intra, 24.0, 1e-9);
	cr_expect_eq(x.t.ch.tree.nchannels, 4);
	cr_expect_float_eq(x.t.ch.tree.bw_inter, 24.0, 1e-9);
	cr_expect_float_eq(x.t.ch.tree.bw_intra, 48.0, 1e-9);
	cr_expect_neq(x.t.ch.tree.pattern, NCCL_PATTERN_TREE);
	tuned_destroy(&x);

	tuned_init(&x, CONFIG("validation/dgx-a100-8x200g.yaml"), 2, PLAN_PATH_AUTO, NULL, NULL);
	cr_expect_eq(x.t.ch.tree.nchannels, 8);
	cr_expect_float_eq(x.t.ch.tree.bw_intra, 30.0, 1e-9);
	tuned_destroy(&x);

	tuned_init(&x, CONFIG("validation/h100-4x400g-roce.yaml"), 2, PLAN_PATH_AUTO, NULL, NULL);
	cr_expect_eq(x.t.ch.ring.nchannels, 8);
	cr_expect_float_eq(x.t.ch.ring.bw_inter, 24.0, 1e-9);
	cr_expect_float_eq(x.t.ch.tree.bw_intra, 48.0, 1e-9);
	cr_expect_neq(x.t.ch.tree.pattern, NCCL_PATTERN_TREE);
	tuned_destroy(&x);

	tuned_release(&x, CONFIG("validation/h100-nic-per-gpu.yaml"), 3, "2.21.5");
	cr_expect_eq(x.t.ch.tree.nchannels, 8);
	cr_expect_float_eq(x.t.ch.tree.bw_inter, 24.0, 1e-9);
	cr_expect_eq(x.t.ch.tree.pattern, NCCL_PATTERN_TREE);
	c = choose(&x, 8);
	cr_expect_eq(c.algo, ALGO_TREE);
	cr_expect_eq(c.proto, PROTO_LL);
	cr_expect_float_eq(c.estimate_us, 25.200924, 2e-6);
	c = choose(&x, 2048);
	cr_expect_float_eq(c.estimate_us, 25.495272, 2e-6);
	c = choose(&x, 8192);
	cr_expect_eq(c.algo, ALGO_TREE);
	cr_expect_float_eq(c.estimate_us, 26.549810, 2e-6);
	c = choose(&x, 512 * 1024);
	cr_expect_eq(c.algo, ALGO_NVLS_TREE);
	cr_expect_eq(c.proto, PROTO_SIMPLE);
	cr_expect_float_eq(c.estimate_us, 59.553600, 2e-6);
	c = choose(&x, 8ull << 30);
	cr_expect_eq(c.algo, ALGO_RING);
	cr_expect_eq(c.proto, PROTO_SIMPLE);
	cr_expect_float_eq(c.estimate_us, 86069.968750, 1e-2);
	tuned_destroy(&x);
}

/*
 * What search.cc's loads give, by hand, where they differ from the ring's
 * (followPath, v2.30.7-1 search.cc:84-124):
 * - across nodes the network closes a ring: on the H100 preset (8 GPUs,
 *   8 NICs under 4 switches, NVSwitch at 18 x 20.6 = 370.8 GB/s) each of
 *   the 8 channels crosses 7 NVLink hops, so a GPU's NVLink carries 7 x
 *   48 = 336 GB/s each way: 8 channels at 48, as NCCL's own search.cc
 *   returns (v2.19.3-1, v2.30.7-1; counting every GPU once a channel, 8 x
 *   48 = 384 did not fit and the ring stopped at 45); 2.19.3 then doubles
 *   the communicator past 45 GB/s a channel (connect.cc): 32;
 * - two-socket-commodity (2 GPUs on one Intel CPU's root ports, the NIC on
 *   the other socket): every channel crosses the link between the
 *   sockets, which NCCL counts at its CPU's figure, 10 GB/s for an Intel
 *   CPU of Skylake's class (SKL_QPI_BW; the preset's own is 40): ring and
 *   tree 1 channel at 10. The search's pass 2 then raises the tree's
 *   bwIntra while its chain and its way out fit together: the first
 *   GPU's Gen4 x16 link, 24 GB/s to NCCL, carries the hop to the second
 *   GPU through the root complex (PATH_PHB: 6/5 of the speed) and half
 *   the way out: 15 x 6/5 + 5 = 23 fits, 20 x 6/5 + 5 = 29 does not;
 * - 2.8.4 knows PCIe up to Gen4 and reads a Gen5 link at its fallback,
 *   Gen3's 12 GB/s a x16 link (topo.cc kvDictPciGen): on 4 x 400G H100 a
 *   ring of 4 channels at 12 (2.30.7: 4 at 48, duplicated to 8 x 24);
 * - 2.12.12 searches a tree from one channel up (minChannels 1): on one
 *   Grace Hopper a node, one channel at 48 before two at 24, which ties;
 *   then duplicates it, as the ring's, to 2 x 24.
 */
Test(tuner, search_loads_as_nccls_follow_path)
{
	struct tuned x;

	tuned_release(&x, CONFIG("h100-pcie5-400g.yaml"), 2, "2.30.7");
	cr_expect_eq(x.t.ch.ring.nchannels, 8);
	cr_expect_float_eq(x.t.ch.ring.bw_inter, 48.0, 1e-9);
	cr_expect_float_eq(x.t.ch.tree.bw_inter, 48.0, 1e-9);
	cr_expect_eq(x.t.ch.tree.pattern, NCCL_PATTERN_BALANCED_TREE);
	cr_expect_eq(x.t.ch.comm_channels, 16);
	tuned_destroy(&x);
	tuned_release(&x, CONFIG("h100-pcie5-400g.yaml"), 2, "2.19.3");
	cr_expect_float_eq(x.t.ch.ring.bw_inter, 48.0, 1e-9);
	cr_expect_eq(x.t.ch.comm_channels, 32);
	tuned_destroy(&x);

	tuned_release(&x, CONFIG("two-socket-commodity.yaml"), 2, "2.30.7");
	cr_expect_eq(x.t.ch.ring.nchannels, 1);
	cr_expect_float_eq(x.t.ch.ring.bw_inter, 10.0, 1e-9);
	cr_expect_eq(x.t.ch.tree.nchannels, 1);
	cr_expect_float_eq(x.t.ch.tree.bw_inter, 10.0, 1e-9);
	cr_expect_float_eq(x.t.ch.tree.bw_intra, 15.0, 1e-9);
	tuned_destroy(&x);

	tuned_release(&x, CONFIG("validation/h100-4x400g-roce.yaml"), 2, "2.8.4");
	cr_expect_eq(x.t.ch.ring.nchannels, 4);
	cr_expect_float_eq(x.t.ch.ring.bw_inter, 12.0, 1e-9);
	tuned_destroy(&x);

	tuned_release(&x, CONFIG("gh200-grace-hopper.yaml"), 2, "2.12.12");
	cr_expect_eq(x.t.ch.ring.nchannels, 2);
	cr_expect_eq(x.t.ch.tree.nchannels, 2);
	cr_expect_float_eq(x.t.ch.tree.bw_inter, 24.0, 1e-9);
	cr_expect_eq(x.t.ch.tree.pattern, NCCL_PATTERN_TREE);
	tuned_destroy(&x);
}

/*
 * The link between the sockets by the CPU's class: two-socket-commodity's
 * GPUs are on one socket, its NIC on the other, so every channel crosses
 * it (above: 1 channel at SKL_QPI_BW's 10, the preset's Ice Lake being
 * Skylake's class). Its CPU taken as a Broadwell, NCCL counts the link at
 * BDW_QPI_BW, 6 GB/s (v2.30.7-1 topo.h:27, topo.cc:70-75; QPI_WIDTH 6 in
 * v2.8.4-1 topo.h:20): ring and tree 1 channel at 6 (the speed lists' 7
 * does not fit; two channels would need 12). The tree's pass 2 then raises
 * bwIntra while it is under twice bwInter (search.cc:1279): 7, 9, 10, 12
 * (12 x 6/5 through the root complex + 6/2 out = 17.4 on the first GPU's
 * Gen4 x16 link, 24 to NCCL), and stops at 12 = 2 x 6. As a Sapphire
 * Rapids (SRP_QPI_BW 22, 2.26 on) the link no longer binds: the first
 * GPU's link up does. The ring's hop to the second GPU through the root
 * complex takes 6/5 of it: 20 x 6/5 = 24 fits, 24 x 6/5 does not, so 1
 * channel at 20. The tree's carries that hop and half the way out, 1.7 x
 * bwInter: 12 (20.4) fits, 15 (25.5) does not; pass 2 raises bwIntra to
 * 15 (15 x 6/5 + 6 = 24). 2.21.5 puts that CPU in Skylake's class (SKL
 * from model 0x55, v2.21.5-1 topo.cc:502): 10, as unset.
 */
static void two_sockets_as(const char *model, const char *version, double ring,
			   double tree_inter, double tree_intra)
{
	const struct topo_override ov[] = { { "cpu_model", "" } };
	struct topo_override o = ov[0];
	struct plan_options opts;
	struct tuned x;

	snprintf(o.value, sizeof(o.value), "%s", model);
	plan_options_default(&opts);
	opts.nodes = 2;
	plan_options_set_nccl(&opts, nccl_release_find(version));
	tuned_init_with(&x, CONFIG("two-socket-commodity.yaml"), &o, 1, &opts, TRACE_OP_ALLREDUCE);
	cr_expect_eq(x.t.ch.ring.nchannels, 1, "%s %s", model, version);
	cr_expect_float_eq(x.t.ch.ring.bw_inter, ring, 1e-9, "%s %s: ring %g", model, version,
			   x.t.ch.ring.bw_inter);
	cr_expect_float_eq(x.t.ch.tree.bw_inter, tree_inter, 1e-9, "%s %s: tree %g", model,
			   version, x.t.ch.tree.bw_inter);
	cr_expect_float_eq(x.t.ch.tree.bw_intra, tree_intra, 1e-9, "%s %s: tree intra %g", model,
			   version, x.t.ch.tree.bw_intra);
	tuned_destroy(&x);
}

Test(tuner, inter_socket_link_by_cpu_class)
{
	two_sockets_as("broadwell", "2.30.7", 6, 6, 12);
	two_sockets_as("broadwell", "2.8.4", 6, 6, 12);
	two_sockets_as("skylake", "2.30.7", 10, 10, 15);
	two_sockets_as("sapphire_rapids", "2.30.7", 20, 12, 15);
	two_sockets_as("sapphire_rapids", "2.21.5", 10, 10, 15);
}

/*
 * A ring keeps the NIC it came in by (crossNic 0) at every GPU-NIC path
 * type before it may leave by another (search.cc ncclTopoCompute widens
 * typeInter before crossNic). On h100-nic-per-gpu (a GPU and its NIC
 * alone under each of 8 switches, 4 a socket) channel c enters by NIC c
 * at GPU c and leaves from the nearest other GPU to NIC c, one on its
 * socket (ncclTopoSearchNextGpuSort): through GPU c over NVLink (PXN), or
 * with NCCL_PXN_DISABLE through the CPU (PHB). NCCL 2.21.5's own
 * search.cc on this node (tools/nccl-oracle/search.sh, PXN=on and off):
 * 8 channels at 24 GB/s, typeInter PXN, and PHB; gdrlab's layout, before
 * 2026-12-05, left by the last GPU's own NIC (PIX).
 */
static void keeps_its_nic(bool pxn_off, const char *inter)
{
	struct plan_options o;
	struct tuned x;

	plan_options_default(&o);
	o.nodes = 2;
	o.pxn_off = pxn_off;
	plan_options_set_nccl(&o, nccl_release_find("2.21.5"));
	tuned_init_opts(&x, CONFIG("validation/h100-nic-per-gpu.yaml"), &o, TRACE_OP_ALLREDUCE);
	cr_expect(x.t.ch.ring.keep_nic);
	cr_expect_eq(x.t.ch.ring.nchannels, 8);
	cr_expect_float_eq(x.t.ch.ring.bw_inter, 24.0, 1e-9);
	cr_expect_str_eq(nccl_graph_inter_name(&x.t.ch.ring), inter);
	for (unsigned c = 0; c < 8; c++) {
		static const unsigned gpus[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
		struct channel_layout l;
		unsigned exit;

		channels_layout(x.plan.nccl, &x.topo, gpus, 8, c, true, &l);
		channels_keep_nic(&x.t.ch.ring, &l);
		exit = l.order[7];
		cr_expect_eq(l.order[0], c);
		cr_expect_eq(l.nic_in, (int)c);
		cr_expect_eq(l.nic_out, (int)c, "channel %u leaves by NIC %d", c, l.nic_out);
		cr_expect_eq(exit / 4, c / 4, "channel %u leaves from GPU %u, off NIC %u's socket",
			     c, exit, c);
	}
	tuned_destroy(&x);
}

Test(tuner, ring_keeps_its_nic_through_pxn)
{
	keeps_its_nic(false, "PXN");
}

Test(tuner, ring_keeps_its_nic_through_the_cpu_without_pxn)
{
	keeps_its_nic(true, "PHB");
}

/* PAT: all-gather and reduce-scatter with one GPU a node (NCCL 2.23+). */
Test(tuner, pat_only_with_one_gpu_a_node)
{
	char why[200];

	cr_assert(available(DATA("round-numbers.yaml"), 4, TRACE_OP_ALL_GATHER, ALGO_PAT, why,
			    sizeof(why)), "%s", why);
	cr_assert(available(DATA("round-numbers.yaml"), 4, TRACE_OP_REDUCE_SCATTER, ALGO_PAT, why,
			    sizeof(why)), "%s", why);
	cr_assert_not(available(DATA("round-numbers.yaml"), 4, TRACE_OP_ALLREDUCE, ALGO_PAT, why,
				sizeof(why)));
	cr_assert_not(available(DATA("eight-gpus-one-socket.yaml"), 2, TRACE_OP_ALL_GATHER,
				ALGO_PAT, why, sizeof(why)));
	cr_assert_not_null(strstr(why, "one GPU a node"), "%s", why);
}

/*
 * PAT's graph is the tree's (init.cc: graphs[NCCL_ALGO_PAT] = treeGraph).
 * On round-numbers' 2 nodes (one GPU a node, a 10 GB/s NIC) the ring's
 * graph is 1 channel at 10 GB/s; the tree's second pass raises its
 * bwIntra to 20 (twice bwInter; no chain holds it), which the tuner takes
 * on two nodes: PAT's bus bandwidth 1 x 20 x .75 = 15 GB/s, so doubling
 * an all-gather from 64 to 128 MiB (nBytes the whole buffer) adds 64 MiB
 * / 15 GB/s = 4473.9 us to NCCL's estimate (the ring's graph would give
 * twice that).
 */
Test(tuner, pat_takes_the_tree_graph)
{
	struct tuned x;
	double a, b;

	tuned_init_op(&x, DATA("round-numbers.yaml"), 2, PLAN_PATH_DIRECT, NULL, NULL,
		      TRACE_OP_ALL_GATHER);
	cr_assert_float_eq(x.t.ch.ring.bw_intra, 10.0, 1e-9);
	cr_assert_float_eq(x.t.ch.tree.bw_intra, 20.0, 1e-9);
	a = entry(&x, ALGO_PAT, PROTO_SIMPLE, 64ull << 20);
	b = entry(&x, ALGO_PAT, PROTO_SIMPLE, 128ull << 20);
	cr_assert_gt(a, 0);
	assert_rel(b - a, (64 << 20) / 15e9 * 1e6, 1e-6);
	tuned_destroy(&x);
}

/* CollNet needs a fabric that reduces (SHARP). */
Test(tuner, collnet_only_where_the_fabric_reduces)
{
	char why[200];

	cr_assert_not(available(DATA("eight-gpus-one-socket.yaml"), 2, TRACE_OP_ALLREDUCE,
				ALGO_COLLNET_CHAIN, why, sizeof(why)));
	cr_assert_not_null(strstr(why, "in_network_reduction"), "%s", why);
}

/*
 * GPUDirect RDMA is judged by the communicator's own GPUs and the PXN
 * relays it has. On tests/data/pxn-two-gpus.yaml gpu1 is PHB from the
 * node's NIC (beyond the default PXB) and NVLinked to gpu0, which is PIX:
 * with both GPUs a node, gpu1 relays through gpu0 and the network is
 * GPUDirect; gpu0 alone is too; gpu1 alone has no peer to relay through
 * (paths.cc: the PXN peer is a rank), so its network is staged and LL128
 * is off by default, as the routes take it.
 */
/* The tuner's view of an all-reduce over @ranks (@n) of two nodes. */
static void group_init(struct tuned *x, const unsigned *ranks, unsigned n)
{
	tuned_init(x, DATA("pxn-two-gpus.yaml"), 2, PLAN_PATH_AUTO, NULL, NULL);
	tune_ctx_init(&x->t, &x->plan, TRACE_OP_ALLREDUCE, ranks, n, NULL);
}

Test(tuner, gpudirect_judged_by_the_groups_own_gpus)
{
	static const unsigned world[] = { 0, 1, 2, 3 }, first[] = { 0, 2 }, second[] = { 1, 3 };
	struct tuned x;
	char why[200];

	group_init(&x, world, 4);
	cr_expect(x.t.net_gdr, "gpu1 relays through gpu0");
	tuned_destroy(&x);
	group_init(&x, first, 2);
	cr_expect(x.t.net_gdr, "gpu0 is PIX from its NIC");
	tuned_destroy(&x);
	group_init(&x, second, 2);
	cr_expect_not(x.t.net_gdr, "gpu1 alone has no relay");
	cr_expect_lt(tune_entry(&x.t, &x.e, ALGO_RING, PROTO_LL128, MiB, why, sizeof(why)), 0);
	cr_expect_not_null(strstr(why, "GPUDirect RDMA"), "%s", why);
	tuned_destroy(&x);
}
