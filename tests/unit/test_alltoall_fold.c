/* SPDX-License-Identifier: MIT */
/*
 * An alltoall over nodes alike with no switches between them is planned
 * from two of its nodes (algo_p2p.c, algo_alltoall_fold): held here
 * against the plan of every send, and beyond the 512 ranks that are
 * planned send by send, against the arithmetic of its bytes and batches.
 */
#include <errno.h>
#include <stdio.h>

#include "helpers.h"

#define GiB 1073741824.0

static double alltoall_proto_us(const char *backend, const char *topo, unsigned nodes,
				uint64_t bytes, const char *proto, bool every_send, size_t *nconns)
{
	struct plan_options o;
	struct run r;
	char line[160];
	double t;

	plan_options_default(&o);
	o.nodes = nodes;
	o.alltoall_every_send = every_send;
	snprintf(line, sizeof(line),
		 "{\"iteration\":0,\"op\":\"alltoall\",\"bytes\":%llu,\"dtype\":\"int8\"%s%s%s}\n",
		 (unsigned long long)bytes, proto ? ",\"proto\":\"" : "", proto ? proto : "",
		 proto ? "\"" : "");
	run_trace(&r, backend, topo, line, &o);
	t = r.rec.coll[0].time_us;
	if (nconns)
		*nconns = r.plan.patterns[r.plan.collectives[0].pattern].nconns;
	run_destroy(&r);
	return t;
}

/* The same as NCCL's tuner picks the protocol. */
static double alltoall_us(const char *backend, const char *topo, unsigned nodes,
			  uint64_t bytes, bool every_send, size_t *nconns)
{
	return alltoall_proto_us(backend, topo, nodes, bytes, NULL, every_send, nconns);
}

/*
 * Folded and whole, the same time: on 8 GPUs a node with PXN and
 * several NICs, on staged V100 nodes of two NICs, on one GPU of four
 * NICs and on two GPUs relaying through each other, latency-bound and
 * bandwidth-bound, on 3 and 6 nodes. The fold plans 2 L (n - 1) sends'
 * parts where every send's plan has n (n - 1)'s, L ranks a node.
 */
static void fold_equals_every_send(const char *backend, const char *topo, unsigned local,
				   unsigned nodes)
{
	static const uint64_t sizes[] = { 4096, 1ull << 30 };
	unsigned n = local * nodes;

	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		size_t folded_conns, every_conns;
		double folded = alltoall_us(backend, topo, nodes, sizes[s], false, &folded_conns);
		double every = alltoall_us(backend, topo, nodes, sizes[s], true, &every_conns);

		assert_rel(folded, every, 1e-9);
		cr_assert_eq(every_conns * 2 * local, folded_conns * n,
			     "%s on %u nodes: %zu sends' parts folded, %zu in all", topo, nodes,
			     folded_conns, every_conns);
	}
}

Test(alltoall_fold, two_nodes_stand_for_all)
{
	static const struct {
		const char *topo;
		unsigned local;
	} cases[] = {
		{ CONFIG("h100-pcie5-400g.yaml"), 8 },
		{ CONFIG("validation/abci-v100-2xedr.yaml"), 4 },
		{ DATA("one-gpu-four-nics.yaml"), 1 },
		{ DATA("pxn-two-gpus.yaml"), 2 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		for (unsigned nodes = 3; nodes <= 6; nodes += 3)
			fold_equals_every_send("analytic", cases[i].topo, cases[i].local, nodes);
}

Test(alltoall_fold, two_nodes_stand_for_all_model)
{
	fold_equals_every_send("model", DATA("pxn-two-gpus.yaml"), 2, 3);
	fold_equals_every_send("model", DATA("one-gpu-four-nics.yaml"), 1, 5);
}

/*
 * Beyond 512 ranks, where every send's plan was refused. 600 nodes of
 * round-numbers.yaml (one GPU): n - 1 rounds of 64 bytes, each channel's
 * sends in batches of one group of 8 rounds, so floor((n - 1) / 8) = 74
 * latencies L after the first batch (test_algo.c, the same rule on 2 to
 * 32 nodes), L the latency of a send alone: T(2) - launch.
 */
Test(alltoall_fold, a_latency_bound_alltoall_beyond_512_ranks)
{
	const char *topo = DATA("round-numbers.yaml");
	double launch = nccl_launch_latency(nccl_release_newest(), ALGO_RING, PROTO_SIMPLE);
	double t2 = alltoall_us("analytic", topo, 2, 64 * 2, false, NULL), lat = t2 - launch;
	size_t nconns;

	assert_rel(alltoall_us("analytic", topo, 600, 64 * 600, false, &nconns), t2 + 74 * lat,
		   0.005);
	cr_assert_eq(nconns, 2 * 599, "two ranks' 599 sends, one part each");
}

/*
 * One GPU driving four NICs of 12.5 GB/s (test_algo.c): across 600 nodes
 * it sends 599/600 of its 9.4 GB, 16 MiB to each peer, at 50 GB/s, after
 * the launch and the batches' latencies, which a latency-bound alltoall
 * of 64 bytes a peer on the same nodes takes in the same protocol,
 * Simple (a batch waits for its slowest send's latency, not its bytes).
 * The last batch starts that late, so its sends end up to their own
 * bytes' time at 50 GB/s after the rest: at most one 16 MiB send more.
 */
Test(alltoall_fold, a_bandwidth_bound_alltoall_beyond_512_ranks)
{
	const char *topo = DATA("one-gpu-four-nics.yaml");
	uint64_t bytes = 600ull << 24;
	double latencies = alltoall_proto_us("analytic", topo, 600, 64 * 600, "Simple", false,
					     NULL);
	double least = (double)bytes * 599 / 600 / 50e3 + latencies, send = (1 << 24) / 50e3;
	double t = alltoall_us("analytic", topo, 600, bytes, false, NULL);

	cr_assert(t >= least * (1 - 1e-9) && t <= least + send * 1.001,
		  "%.1f us: %.1f to %.1f expected", t, least, least + send);
}

/*
 * Beside another communicator's send on nodes 2 and 3 (round-numbers.yaml,
 * 4 nodes of one GPU), an alltoall folded onto nodes 0 and 1 would meet
 * none of it there (a helper's review: 5055.6 us folded, 11744.1 whole):
 * where calls may run at once every send is planned, and both calls
 * take what they take with every send planned, in both backends.
 */
static void beside_another_call(const char *backend)
{
	static const char trace[] =
		"{\"iteration\":0,\"op\":\"alltoall\",\"bytes\":67108864,\"dtype\":\"int8\",\"comm\":\"a\"}\n"
		"{\"iteration\":0,\"op\":\"sendrecv\",\"bytes\":67108864,\"dtype\":\"int8\",\"src\":2,"
		"\"dst\":3,\"comm\":\"b\",\"group\":[2,3]}\n";
	double t[2][2];

	for (int every = 0; every < 2; every++) {
		struct plan_options o;
		struct run r;

		plan_options_default(&o);
		o.nodes = 4;
		o.alltoall_every_send = every;
		run_trace(&r, backend, DATA("round-numbers.yaml"), trace, &o);
		cr_assert_not(r.plan.calls_alone);
		t[every][0] = r.rec.coll[0].time_us;
		t[every][1] = r.rec.coll[1].time_us;
		run_destroy(&r);
	}
	assert_rel(t[0][0], t[1][0], 1e-9);
	assert_rel(t[0][1], t[1][1], 1e-9);
	/* the two meet on nodes 2 and 3: the send slower than alone */
	cr_assert_gt(t[0][1], 67108864 / 10e3 * 1.2, "%.1f us", t[0][1]);
}

Test(alltoall_fold, not_beside_another_call)
{
	beside_another_call("analytic");
}

Test(alltoall_fold, not_beside_another_call_model)
{
	beside_another_call("model");
}

/* A switched fabric routes each pair of nodes its own way (ECMP): such
 * an alltoall is still planned send by send, and refused beyond 512, or
 * the backend's limit (the analytic backend's 1024). */
Test(alltoall_fold, a_switched_fabric_is_not_folded)
{
	struct topology t;
	struct trace tr;
	struct plan_options o;
	struct plan p;
	struct diag d = { "" };
	static const char line[] = "{\"iteration\":0,\"op\":\"alltoall\",\"bytes\":1048576,"
				   "\"dtype\":\"int8\"}\n";

	cr_assert_eq(topology_load(CONFIG("h100-roce-clos.yaml"), &t, &d), 0, "%s", d.msg);
	cr_assert_eq(trace_load_buffer(line, strlen(line), "inline.jsonl", &tr, &d), 0, "%s",
		     d.msg);
	plan_options_default(&o);
	o.nodes = 65;
	cr_assert_eq(plan_build(&p, &t, &tr, &o, &d), -EINVAL);
	cr_assert(strstr(d.msg, "alltoall over 520 ranks") && strstr(d.msg, "switches"), "%s",
		  d.msg);
	o.alltoall_max_ranks = 1024;
	cr_assert_eq(plan_build(&p, &t, &tr, &o, &d), 0, "%s", d.msg);
	cr_assert_eq(p.npatterns, 1);
	plan_destroy(&p);
	o.nodes = 129;
	cr_assert_eq(plan_build(&p, &t, &tr, &o, &d), -EINVAL);
	cr_assert(strstr(d.msg, "alltoall over 1032 ranks: at most 1024"), "%s", d.msg);
	trace_destroy(&tr);
}

/* Which limit each backend asks for: the analytic backend solves a
 * million sends in seconds, the model backend runs a SimGrid actor each. */
Test(alltoall_fold, the_backends_limits)
{
	cr_assert_eq(backend_find("analytic")->alltoall_max_ranks, 1024);
	if (backend_find("model"))
		cr_assert_eq(backend_find("model")->alltoall_max_ranks, 0);
}
