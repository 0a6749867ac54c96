/* SPDX-License-Identifier: MIT */
/*
 * The analytic backend against ground truths worked out by hand on
 * tests/data/round-numbers.yaml (one GPU and one NIC per node under one
 * switch; every number round):
 *
 *   GPU link 20 GB/s, switch uplink 100 GB/s, NIC link 20 GB/s, every link
 *   1 us; NIC port 80 Gbit/s = 10 GB/s, NIC latency 2 us, one fabric switch
 *   of 1 us; copies 16 GB/s with 2 us of CPU work per 1 MiB chunk.
 *
 * Direct hop: NIC reads GPU (gpu link + nic link: 2 us, 20 GB/s), wire
 * (2 + 1 + 2 = 5 us, 10 GB/s), NIC writes GPU (2 us): 9 us, 10 GB/s.
 * Staged hop: copy to host (gpu link + uplink: 2 us, 16 GB/s), NIC reads
 * host (2 us), wire (5 us), NIC writes host (2 us), copy to GPU (2 us):
 * 13 us, bottleneck 10 GB/s, and a pipeline fill of one chunk through each
 * copy segment (2 us + 1 MiB / 16 GB/s each).
 */
#include <math.h>

#include "helpers.h"

#define MiB 1048576.0

static struct plan_options opts_path(enum plan_path path)
{
	struct plan_options o;

	plan_options_default(&o);
	o.path = path;
	return o;
}

Test(analytic, uncontended_direct_is_latency_plus_bytes_over_bottleneck)
{
	struct plan_options o = opts_path(PLAN_PATH_DIRECT);
	struct run r;
	double S = 64 * MiB, want_us = 9 + S / 10e9 * 1e6;

	run_trace(&r, "analytic", DATA("round-numbers.yaml"),
		  "{\"iteration\":0,\"op\":\"sendrecv\",\"bytes\":67108864,"
		  "\"dtype\":\"fp32\",\"src\":0,\"dst\":1}\n", &o);
	assert_rel(r.rec.coll[0].time_us, want_us, 1e-3);
	cr_assert_str_eq(plan_path_used_name(r.rec.coll[0].path), "direct");
	run_destroy(&r);
}

Test(analytic, uncontended_staged_is_pipelined)
{
	struct plan_options o = opts_path(PLAN_PATH_STAGED);
	struct run r;
	double S = 64 * MiB, c = MiB;
	double fill_us = 2 * (2 + c / 16e9 * 1e6); /* both copy segments, once */
	double want_us = 13 + S / 10e9 * 1e6 + fill_us;

	run_trace(&r, "analytic", DATA("round-numbers.yaml"),
		  "{\"iteration\":0,\"op\":\"sendrecv\",\"bytes\":67108864,"
		  "\"dtype\":\"fp32\",\"src\":0,\"dst\":1}\n", &o);
	assert_rel(r.rec.coll[0].time_us, want_us, 1e-3);
	cr_assert_str_eq(plan_path_used_name(r.rec.coll[0].path), "staged");
	run_destroy(&r);
}

/* Ring all-reduce on n ranks: 2(n-1)/n * S/B + 2(n-1) * alpha. */
Test(analytic, ring_allreduce_alpha_beta)
{
	struct plan_options o = opts_path(PLAN_PATH_DIRECT);
	struct run r;
	unsigned n = 4;
	double S = 32 * MiB, B = 10e9, alpha_us = 9;
	double want_us = 2.0 * (n - 1) / n * S / B * 1e6 + 2 * (n - 1) * alpha_us;

	o.nodes = n;
	run_trace(&r, "analytic", DATA("round-numbers.yaml"),
		  "{\"iteration\":0,\"op\":\"allreduce\",\"bytes\":33554432,"
		  "\"dtype\":\"fp32\"}\n", &o);
	assert_rel(r.rec.coll[0].time_us, want_us, 1e-3);
	/* nccl-tests: algbw = S/t, busbw = algbw * 2(n-1)/n, GB = 1e9 B */
	assert_rel(r.rec.coll[0].algbw_gbps, S / (want_us * 1e3), 1e-3);
	assert_rel(r.rec.coll[0].busbw_gbps,
		   S / (want_us * 1e3) * 2.0 * (n - 1) / n, 1e-3);
	run_destroy(&r);
}

/* Ring reduce-scatter and all-gather: (n-1)/n * S/B + (n-1) * alpha. */
Test(analytic, ring_reduce_scatter_and_all_gather)
{
	struct plan_options o = opts_path(PLAN_PATH_DIRECT);
	struct run r;
	unsigned n = 8;
	double S = 16 * MiB, want_us = (n - 1.0) / n * S / 10e9 * 1e6 + (n - 1) * 9.0;

	o.nodes = n;
	run_trace(&r, "analytic", DATA("round-numbers.yaml"),
		  "{\"iteration\":0,\"op\":\"reduce_scatter\",\"bytes\":16777216}\n"
		  "{\"iteration\":0,\"op\":\"all_gather\",\"bytes\":16777216}\n", &o);
	assert_rel(r.rec.coll[0].time_us, want_us, 1e-3);
	assert_rel(r.rec.coll[1].time_us, want_us, 1e-3);
	assert_rel(r.rec.coll[0].busbw_gbps, S / (want_us * 1e3) * (n - 1.0) / n, 1e-3);
	run_destroy(&r);
}

/* Pipelined broadcast along a chain: (n-1) * alpha + S/B. */
Test(analytic, chain_broadcast)
{
	struct plan_options o = opts_path(PLAN_PATH_DIRECT);
	struct run r;
	unsigned n = 4;
	double S = 8 * MiB, want_us = (n - 1) * 9.0 + S / 10e9 * 1e6;

	o.nodes = n;
	run_trace(&r, "analytic", DATA("round-numbers.yaml"),
		  "{\"iteration\":0,\"op\":\"broadcast\",\"bytes\":8388608,\"root\":0}\n",
		  &o);
	assert_rel(r.rec.coll[0].time_us, want_us, 1e-3);
	assert_rel(r.rec.coll[0].busbw_gbps, S / (want_us * 1e3), 1e-3);
	run_destroy(&r);
}

/*
 * tests/data/two-gpus-one-nic.yaml: two GPUs per node behind one switch
 * whose 10 GB/s uplink leads to a NIC on the root complex (PHB, so direct
 * needs --gdr-level phb). Alltoall of S on 2 nodes x 2 GPUs, S/4 per pair:
 *  step 1 (i -> i+1): one send leaves each node: 10 GB/s each;
 *  step 2 (i -> i+2): both GPUs of a node send through the one uplink:
 *                     5 GB/s each (two flows on one link get half);
 *  step 3 (i -> i+3): one send leaves each node again: 10 GB/s.
 * An inter-node hop costs 3 + 5 + 3 = 11 us of latency.
 */
Test(analytic, two_flows_share_an_uplink)
{
	struct plan_options o = opts_path(PLAN_PATH_DIRECT);
	struct run r;
	double q = 40e6 / 4;
	double want_us = 3 * 11 + (q / 10e9 + q / 5e9 + q / 10e9) * 1e6;

	o.gdr_level = TOPO_PATH_PHB;
	run_trace(&r, "analytic", DATA("two-gpus-one-nic.yaml"),
		  "{\"iteration\":0,\"op\":\"alltoall\",\"bytes\":40000000,\"dtype\":\"int8\"}\n",
		  &o);
	assert_rel(r.rec.coll[0].time_us, want_us, 1e-3);
	run_destroy(&r);
}

/* Collectives run one after another once ready; compute hides what it can. */
Test(analytic, schedule_and_exposed_communication)
{
	struct plan_options o = opts_path(PLAN_PATH_DIRECT);
	struct run r;
	double t1 = 9 + 10e6 / 10e9 * 1e6; /* one sendrecv of 10 MB: 1009 us */

	run_trace(&r, "analytic", DATA("round-numbers.yaml"),
		  "{\"iteration\":0,\"op\":\"sendrecv\",\"bytes\":10000000,\"dtype\":\"int8\","
		  "\"src\":0,\"dst\":1,\"ready_us\":100,\"compute_us\":1500}\n"
		  "{\"iteration\":0,\"op\":\"sendrecv\",\"bytes\":10000000,\"dtype\":\"int8\","
		  "\"src\":0,\"dst\":1,\"ready_us\":200,\"compute_us\":1500}\n"
		  "{\"iteration\":1,\"op\":\"sendrecv\",\"bytes\":10000000,\"dtype\":\"int8\","
		  "\"src\":0,\"dst\":1,\"ready_us\":0,\"compute_us\":1500}\n", &o);
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
