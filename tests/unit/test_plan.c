/* SPDX-License-Identifier: MIT */
/* The plan: GDR fallback as NCCL decides it, NCCL's ring layout, and
 * input errors found only once the cluster size is known. */
#include <errno.h>
#include <math.h>

#include "helpers.h"

static const char one_allreduce[] =
	"{\"iteration\":0,\"op\":\"allreduce\",\"bytes\":268435456,\"dtype\":\"fp32\"}\n";

/* GPU and NIC under different sockets (SYS): NCCL's default level (PXB)
 * refuses GPUDirect, so direct falls back to staged and says why. */
Test(plan, two_socket_falls_back_at_default_level)
{
	struct plan_options o;
	struct run r;

	plan_options_default(&o);
	o.path = PLAN_PATH_DIRECT;
	run_trace(&r, "analytic", CONFIG("two-socket-commodity.yaml"), one_allreduce, &o);
	cr_assert_eq(r.rec.coll[0].path, PLAN_USED_STAGED);
	cr_assert_not_null(r.rec.coll[0].fallback);
	cr_assert_not_null(strstr(r.rec.coll[0].fallback, "SYS"), "%s",
			   r.rec.coll[0].fallback);
	cr_assert_not_null(strstr(r.rec.coll[0].fallback, "beyond GDR level P2C"));
	run_destroy(&r);
}

/* Forced to allow it, direct goes across the sockets and the root
 * complexes' peer-to-peer read limit makes it slower than staging, as
 * measured on such hardware (perftest#241: 11 vs 23 GB/s). */
Test(plan, two_socket_forced_direct_is_slower_than_staged)
{
	struct plan_options o;
	struct run staged, direct;

	plan_options_default(&o);
	o.gdr_level = TOPO_PATH_SYS;
	o.path = PLAN_PATH_DIRECT;
	run_trace(&direct, "analytic", CONFIG("two-socket-commodity.yaml"), one_allreduce, &o);
	o.path = PLAN_PATH_STAGED;
	run_trace(&staged, "analytic", CONFIG("two-socket-commodity.yaml"), one_allreduce, &o);
	cr_assert_eq(direct.rec.coll[0].path, PLAN_USED_DIRECT);
	cr_assert_null(direct.rec.coll[0].fallback);
	cr_assert_gt(direct.rec.coll[0].time_us, staged.rec.coll[0].time_us);
	run_destroy(&direct);
	run_destroy(&staged);
}

/* On the switch-based presets direct is allowed everywhere and wins. */
Test(plan, switch_presets_direct_wins)
{
	static const char *const presets[] = { "a100-pcie4-200g.yaml",
					       "h100-pcie5-400g.yaml" };

	for (int i = 0; i < 2; i++) {
		char path[1024];
		struct plan_options o;
		struct run staged, direct;

		snprintf(path, sizeof(path), "%s", CONFIG("") );
		strncat(path, presets[i], sizeof(path) - strlen(path) - 1);
		plan_options_default(&o);
		run_trace(&direct, "analytic", path, one_allreduce, &o);
		o.path = PLAN_PATH_STAGED;
		run_trace(&staged, "analytic", path, one_allreduce, &o);
		cr_assert_eq(direct.rec.coll[0].path, PLAN_USED_DIRECT, "%s", presets[i]);
		cr_assert_lt(direct.rec.coll[0].time_us, staged.rec.coll[0].time_us);
		run_destroy(&direct);
		run_destroy(&staged);
	}
}

/* NCCL's layout: channels take the NICs in turn, each entering and
 * leaving a node through GPUs near its NIC, so that every NIC of every
 * node sends and receives. */
Test(plan, every_nic_carries_traffic)
{
	struct plan_options o;
	struct run r;
	const struct plan *p;
	const struct plan_pattern *pat;
	bool tx[2][TOPO_MAX_NICS] = { { false } }, rx[2][TOPO_MAX_NICS] = { { false } };

	plan_options_default(&o);
	o.algo = "ring";
	run_trace(&r, "analytic", CONFIG("a100-pcie4-200g.yaml"), one_allreduce, &o);
	p = &r.plan;
	pat = &p->patterns[0];
	cr_assert_geq(r.rec.coll[0].nchannels, p->topo.nnics);
	for (size_t i = 0; i < pat->nconns; i++) {
		const struct plan_conn *c = &pat->conns[i];
		const struct plan_route *rt = &pat->routes[c->route];

		if (pat->pipes[c->pipe].channel >= r.rec.coll[0].nchannels)
			continue;
		for (unsigned u = 0; u < rt->nuses; u++) {
			unsigned node, index;
			enum res_kind kind;
			uint32_t id = plan_use_id(p, &rt->uses[u], plan_node_of(p, c->src_rank),
						  plan_node_of(p, c->dst_rank));

			res_locate(&p->layout, id, &node, &kind, &index);
			if (kind == RES_PORT_TX)
				tx[node][index] = true;
			if (kind == RES_PORT_RX)
				rx[node][index] = true;
		}
	}
	for (unsigned n = 0; n < 2; n++)
		for (unsigned k = 0; k < p->topo.nnics; k++)
			cr_assert(tx[n][k] && rx[n][k], "node %u nic %u idle", n, k);
	run_destroy(&r);
}

Test(plan, rank_outside_cluster_is_an_input_error)
{
	struct topology topo;
	struct trace t;
	struct plan p;
	struct plan_options o;
	struct diag d = { "" };
	static const char line[] =
		"{\"iteration\":0,\"op\":\"allreduce\",\"bytes\":1024,\"group\":[0,1,99]}\n"
		"{\"iteration\":0,\"op\":\"broadcast\",\"bytes\":1024,\"root\":120}\n";

	cr_assert_eq(topology_load(CONFIG("a100-pcie4-200g.yaml"), &topo, &d), 0, "%s", d.msg);
	cr_assert_eq(trace_load_buffer(line, strlen(line), "g.jsonl", &t, &d), 0, "%s", d.msg);
	plan_options_default(&o);
	cr_assert_eq(plan_build(&p, &topo, &t, &o, &d), -EINVAL);
	/* the highest rank named anywhere is line 2's root: 121 ranks, 16
	 * nodes of 8 */
	cr_assert_str_eq(d.msg, "g.jsonl:1: group: rank 99 is outside the cluster of 16 ranks "
				"(2 nodes x 8 GPUs); the trace's ranks need 16 nodes (--nodes 16)");
	trace_destroy(&t);
}

Test(plan, bus_factors_are_nccl_tests)
{
	cr_assert_float_eq(plan_bus_factor(TRACE_OP_ALLREDUCE, 8), 1.75, 1e-12);
	cr_assert_float_eq(plan_bus_factor(TRACE_OP_REDUCE_SCATTER, 8), 0.875, 1e-12);
	cr_assert_float_eq(plan_bus_factor(TRACE_OP_ALL_GATHER, 4), 0.75, 1e-12);
	cr_assert_float_eq(plan_bus_factor(TRACE_OP_ALLTOALL, 2), 0.5, 1e-12);
	cr_assert_float_eq(plan_bus_factor(TRACE_OP_BROADCAST, 16), 1, 1e-12);
	cr_assert_float_eq(plan_bus_factor(TRACE_OP_SENDRECV, 2), 1, 1e-12);
}

/* Collectives of the same shape share one pattern (timed once). */
Test(plan, equal_shapes_share_a_pattern)
{
	struct plan_options o;
	struct run r;

	plan_options_default(&o);
	run_trace(&r, "analytic", CONFIG("a100-pcie4-200g.yaml"),
		  "{\"iteration\":0,\"op\":\"allreduce\",\"bytes\":1024}\n"
		  "{\"iteration\":0,\"op\":\"allreduce\",\"bytes\":4096}\n"
		  "{\"iteration\":0,\"op\":\"all_gather\",\"bytes\":4096}\n"
		  "{\"iteration\":1,\"op\":\"allreduce\",\"bytes\":1024,\"group\":[0,1]}\n", &o);
	cr_assert_eq(r.plan.npatterns, 3);
	cr_assert_eq(r.plan.collectives[1].pattern, r.plan.collectives[0].pattern);
	run_destroy(&r);
}

/*
 * What NCCL ran, recorded in the trace ("algo", "proto": its TUNING
 * lines, by gdrlab import nccl-log), is what the plan runs: here a 256 MiB
 * all-reduce the tuner would put on Ring/Simple runs Tree/LL, a second
 * entry with only a protocol keeps the tuner's algorithm. --algo/--proto
 * overrule the trace (a what-if); a choice that cannot run here is the
 * trace line's error.
 */
Test(plan, trace_says_what_nccl_ran)
{
	static const char lines[] =
		"{\"iteration\":0,\"op\":\"allreduce\",\"bytes\":268435456,\"algo\":\"Tree\",\"proto\":\"LL\"}\n"
		"{\"iteration\":0,\"op\":\"allreduce\",\"bytes\":268435456,\"proto\":\"LL128\"}\n"
		"{\"iteration\":0,\"op\":\"allreduce\",\"bytes\":268435456}\n";
	static const char nvls[] =
		"{\"iteration\":0,\"op\":\"allreduce\",\"bytes\":4096,\"algo\":\"NVLS\"}\n";
	struct plan_options o;
	struct topology topo;
	struct trace t;
	struct plan p;
	struct diag d = { "" };
	struct run r;

	plan_options_default(&o);
	run_trace(&r, "analytic", CONFIG("a100-pcie4-200g.yaml"), lines, &o);
	cr_assert_eq(r.rec.coll[0].algo, ALGO_TREE);
	cr_assert_eq(r.rec.coll[0].proto, PROTO_LL);
	cr_assert_eq(r.rec.coll[1].proto, PROTO_LL128);
	cr_assert_eq(r.rec.coll[1].algo, r.rec.coll[2].algo, "the tuner's algorithm");
	cr_assert_eq(r.rec.coll[2].proto, PROTO_SIMPLE, "the tuner's own choice");
	run_destroy(&r);

	o.algo = "ring";
	run_trace(&r, "analytic", CONFIG("a100-pcie4-200g.yaml"), lines, &o);
	cr_assert_eq(r.rec.coll[0].algo, ALGO_RING, "--algo overrules the trace");
	run_destroy(&r);

	plan_options_default(&o);
	cr_assert_eq(topology_load(CONFIG("a100-pcie4-200g.yaml"), &topo, &d), 0, "%s", d.msg);
	cr_assert_eq(trace_load_buffer(nvls, strlen(nvls), "nvls.jsonl", &t, &d), 0, "%s", d.msg);
	cr_assert_eq(plan_build(&p, &topo, &t, &o, &d), -EINVAL);
	cr_assert_str_eq(d.msg, "nvls.jsonl:1: algo: NCCL ran NVLS, which cannot run allreduce here");
	trace_destroy(&t);
}
