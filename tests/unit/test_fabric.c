/* SPDX-License-Identifier: MIT */
/*
 * The switches between the nodes (engine/fabric.h): how a topology's
 * leaves, spines and cores are counted and wired, where ECMP puts a flow,
 * and what sharing the uplinks costs, in every backend with a simulated
 * clock. Every expected value is worked out by hand in the comments from
 * the files in tests/data/fabric/ (round numbers, not real hardware) and
 * the presets' own counts.
 *
 * NCCL constants used (NVIDIA/nccl v2.30.7-1, src/graph/tuning.cc, as in
 * test_conformance.c): launch 8.4 us and 14 us a network hop (Simple).
 */
#include <errno.h>
#include <math.h>

#include "fabric.h"
#include "helpers.h"
#include "trace_jobs.h"

#define MiB 1048576.0
#define GiB (1024 * MiB)
#define TOL 0.01
#define NET_US (8.4 + 14)

static const struct backend_ops *timing_backend(const char *name)
{
	const struct backend_ops *b = backend_find(name);
	char why[256] = "";

	if (!b || !(b->caps & BACKEND_CAP_SIM_CLOCK) || backend_probe(b, why, sizeof(why))) {
		printf("fabric: %s skipped: %s\n", name, b ? why : "not in this build");
		return NULL;
	}
	return b;
}

#define NEED_BACKEND(name)                                                    \
	do {                                                                  \
		if (!timing_backend(name))                                    \
			cr_skip_test("backend %s not testable here", name);   \
	} while (0)

static void load(const char *path, struct topology *t)
{
	struct diag d = { "" };

	cr_assert_eq(topology_load(path, t, &d), 0, "%s", d.msg);
}

static struct plan_options one_channel(void)
{
	struct plan_options o;

	plan_options_default(&o);
	o.path = PLAN_PATH_DIRECT;
	o.nchannels = 1;
	return o;
}

/*
 * DGX SuperPOD (configs/h100-superpod-ib.yaml): QM9700 leaves of 64
 * ports, 32 down and 32 up: 1:1. One SU is 32 nodes on 8 rail leaves;
 * four SUs are 32 leaves, two links from each to each of 16 spines of 64
 * ports: 32 x 2 = 64, full. A fifth SU does not fit.
 */
Test(fabric, superpod_counts)
{
	struct topology t;
	struct fabric_geom g;
	char why[200];

	load(CONFIG("h100-superpod-ib.yaml"), &t);
	cr_assert_eq(t.fabric.tiers, 2);
	cr_assert_eq(t.fabric.attach, TOPO_ATTACH_RAIL);
	fabric_geom_init(&g, &t, 128, 0);
	cr_assert_eq(g.leaves, 32);
	cr_assert_eq(g.spines, 16);
	cr_assert_eq(g.per_leaf, 32);
	assert_rel(fabric_oversubscription(&g, &t, 0), 1.0, 1e-12);
	/* node 33, NIC 5: second SU (leaves 8..15), its rail 5 */
	cr_assert_eq(fabric_leaf(&g, &t, 33, 5), 13);
	cr_assert_eq(fabric_check(&t, 128, why, sizeof(why)), FABRIC_OK);
	cr_assert_eq(fabric_check(&t, 129, why, sizeof(why)), FABRIC_SPINE_PORTS, "%s", why);
	/* 32 leaves x 32 uplinks, each both ways; no core */
	cr_assert_eq(g.n, 2 * 32 * 32);
}

/*
 * The RoCE Clos (configs/h100-roce-clos.yaml): 4 nodes x 8 NICs on a
 * leaf's 32 ports, 32 uplinks: 1:1. A pod's 32 spines have 64 ports down
 * (one link a leaf: 64 leaves, 256 nodes) and 32 up: 2:1. 1024 nodes are
 * 256 leaves in 4 pods, under 32 planes x 32 cores.
 */
Test(fabric, clos_counts)
{
	struct topology t;
	struct fabric_geom g;

	load(CONFIG("h100-roce-clos.yaml"), &t);
	cr_assert_eq(t.fabric.tiers, 3);
	fabric_geom_init(&g, &t, 1024, 0);
	cr_assert_eq(g.leaves, 256);
	cr_assert_eq(g.leaves_per_pod, 64);
	cr_assert_eq(g.pods, 4);
	cr_assert_eq(g.spines, 4 * 32);
	cr_assert_eq(g.cores, 32 * 32);
	assert_rel(fabric_oversubscription(&g, &t, 0), 1.0, 1e-12);
	assert_rel(fabric_oversubscription(&g, &t, 1), 2.0, 1e-12);
	/* nodes 0 and 3 share leaf 0; node 4 is on leaf 1 of pod 0; node
	 * 256 on leaf 64, the first of pod 1 */
	cr_assert_eq(fabric_switches(&g, &t, 0, 0, 3, 7), 1);
	cr_assert_eq(fabric_switches(&g, &t, 0, 0, 4, 0), 3);
	cr_assert_eq(fabric_switches(&g, &t, 0, 0, 256, 0), 5);
}

/*
 * Across pods of the Clos at 1024 nodes: node 0 is on leaf 0 (pod 0),
 * node 256 on leaf 64 (pod 1). Up leaf 0's uplink u to spine u of pod 0
 * (32 spines a pod, one link from each leaf), up that spine's uplink j to
 * core (u, j), down to spine u of pod 1 (spine 32 + u) by its uplink j,
 * down to leaf 64 by its uplink u: four links, five switches.
 */
Test(fabric, clos_path_across_pods)
{
	struct topology t;
	struct fabric_geom g;
	uint32_t ids[FABRIC_PATH_MAX];
	char name[4][32], want[32];
	unsigned u, j;

	load(CONFIG("h100-roce-clos.yaml"), &t);
	fabric_geom_init(&g, &t, 1024, 0);
	cr_assert_eq(fabric_path(&g, &t, 0, 0, 256, 0, 3, ids), 4);
	for (unsigned i = 0; i < 4; i++)
		fabric_name(&g, ids[i], name[i], sizeof(name[i]));
	cr_assert_eq(sscanf(name[0], "leaf0.up%u", &u), 1, "%s", name[0]);
	snprintf(want, sizeof(want), "spine%u.up", u);
	cr_assert(!strncmp(name[1], want, strlen(want)), "%s, want %s", name[1], want);
	cr_assert_eq(sscanf(name[1] + strlen(want), "%u", &j), 1);
	snprintf(want, sizeof(want), "spine%u.down%u", 32 + u, j);
	cr_assert_str_eq(name[2], want);
	snprintf(want, sizeof(want), "leaf64.down%u", u);
	cr_assert_str_eq(name[3], want);
	/* 400 Gbit/s x the NICs' 0.95, either tier */
	assert_rel(fabric_capacity(&g, &t, ids[1]), 50e9 * 0.95, 1e-12);
	assert_rel(fabric_latency(&t, 5), 5 * 0.6e-6, 1e-12);
}

/* A file without switches is the crossbar it always was: no links of its
 * own, the NIC port divided by the oversubscription. */
Test(fabric, crossbar_files_keep_their_meaning)
{
	struct topology t;
	struct res_layout l;

	load(CONFIG("h100-pcie5-400g.yaml"), &t);
	cr_assert_eq(t.fabric.tiers, 0);
	res_layout_init(&l, &t, 4);
	cr_assert_eq(l.fabric.n, 0);
	cr_assert_eq(res_total(&l), (size_t)l.per_node * 4);
	/* 400 Gbit/s x 0.95, oversubscription 1 */
	assert_rel(res_capacity(&t, RES_PORT_TX, 0), 50e9 * 0.95, 1e-12);
}

/* ECMP: one answer for one flow; the flows of one leaf spread over all
 * its uplinks; another seed, another spread. */
Test(fabric, ecmp_is_deterministic_and_spreads)
{
	struct topology t;
	struct fabric_geom g;
	uint32_t a[FABRIC_PATH_MAX], b[FABRIC_PATH_MAX];
	unsigned used[4] = { 0 }, moved = 0;

	load(DATA("fabric/leaf-2to1.yaml"), &t);
	fabric_geom_init(&g, &t, 8, 1000);
	for (unsigned ch = 0; ch < 16; ch++)
		for (unsigned s = 0; s < 4; s++) {
			/* leaf 0 (nodes 0-3) to leaf 1 (nodes 4-7): up one of
			 * leaf 0's 4 uplinks, down the same one of leaf 1's */
			cr_assert_eq(fabric_path(&g, &t, s, 0, 4 + s, 0, ch, a), 2);
			cr_assert_eq(fabric_path(&g, &t, s, 0, 4 + s, 0, ch, b), 2);
			cr_assert_eq(a[0], b[0]);
			/* leaf 1's down link u: after the 2 leaves' 4 up
			 * links, past leaf 0's 4 down links */
			cr_assert_eq(a[1], a[0] + 2 * 4 + 4, "%u %u", a[0], a[1]);
			used[a[0] - 1000]++;
			t.fabric.ecmp_seed = 7;
			fabric_path(&g, &t, s, 0, 4 + s, 0, ch, b);
			moved += a[0] != b[0];
			t.fabric.ecmp_seed = 0;
		}
	for (unsigned u = 0; u < 4; u++)
		cr_assert_gt(used[u], 0, "uplink %u unused by 64 flows", u);
	cr_assert_gt(moved, 0);
	/* under one leaf: no uplink */
	cr_assert_eq(fabric_path(&g, &t, 0, 0, 3, 0, 0, a), 0);
	cr_assert_eq(fabric_switches(&g, &t, 0, 0, 3, 0), 1);
}

static const char sendrecv_fmt[] =
	"{\"iteration\":0,\"op\":\"sendrecv\",\"bytes\":67108864,\"dtype\":\"int8\","
	"\"src\":%u,\"dst\":%u,\"group\":[%u,%u]}\n";

/*
 * One send from leaf 0 to leaf 1 of leaf-2to1.yaml, alone: its NIC port
 * gives 10 GB/s, its leaf uplink 40 Gbit/s = 5 GB/s: 64 MiB at 5 GB/s
 * after the launch and the hop, and the record names that uplink with
 * one flow at half a port.
 */
static void one_flow_gets_half_a_port(const char *backend)
{
	struct plan_options o = one_channel();
	char line[256];
	struct run r;

	NEED_BACKEND(backend);
	snprintf(line, sizeof(line), sendrecv_fmt, 0u, 4u, 0u, 4u);
	run_trace(&r, backend, DATA("fabric/leaf-2to1.yaml"), line, &o);
	assert_rel(r.rec.coll[0].time_us, NET_US + 64 * MiB / 5e9 * 1e6, TOL);
	cr_assert_eq(r.rec.coll[0].fabric_flows, 1);
	assert_rel(r.rec.coll[0].fabric_share, 0.5, 1e-9);
	cr_assert(!strncmp(r.rec.link_names[r.rec.coll[0].fabric_link], "leaf0.up", 8),
		  "%s", r.rec.link_names[r.rec.coll[0].fabric_link]);
	cr_assert_eq(r.rec.fabric.tiers, 2);
	assert_rel(r.rec.leaf_oversubscription, 2.0, 1e-12);
	run_destroy(&r);
}

/*
 * Two sends of different communicators at once, from two nodes of leaf
 * 0 to two nodes of leaf 1, whose flows ECMP puts on one uplink (found
 * with fabric_path: which pair collides is the hash's business, what
 * colliding costs is this test's). Their ports are their own; the
 * uplink's 5 GB/s is shared: 2.5 GB/s each, a quarter of a 10 GB/s port.
 * Both end at 64 MiB / 2.5 GB/s.
 */
static void two_flows_on_one_uplink_get_a_quarter(const char *backend)
{
	struct plan_options o = one_channel();
	struct topology t;
	struct fabric_geom g;
	uint32_t x[FABRIC_PATH_MAX], y[FABRIC_PATH_MAX];
	unsigned a = 0, b = 0, c = 0, d = 0;
	bool found = false;
	char trace[512];
	struct run r;
	int at;

	NEED_BACKEND(backend);
	load(DATA("fabric/leaf-2to1.yaml"), &t);
	fabric_geom_init(&g, &t, 8, 0);
	for (unsigned i = 0; i < 16 && !found; i++)
		for (unsigned k = 0; k < 16 && !found; k++) {
			a = i / 4, b = 4 + i % 4, c = k / 4, d = 4 + k % 4;
			if (a == c || b == d)
				continue;
			fabric_path(&g, &t, a, 0, b, 0, 0, x);
			fabric_path(&g, &t, c, 0, d, 0, 0, y);
			found = x[0] == y[0];
		}
	cr_assert(found, "16 flows over 4 uplinks and no two collide");
	at = snprintf(trace, sizeof(trace), sendrecv_fmt, a, b, a, b);
	snprintf(trace + at, sizeof(trace) - (size_t)at, sendrecv_fmt, c, d, c, d);
	run_trace(&r, backend, DATA("fabric/leaf-2to1.yaml"), trace, &o);
	for (unsigned i = 0; i < 2; i++)
		assert_rel(r.rec.coll[i].time_us, NET_US + 64 * MiB / 2.5e9 * 1e6, TOL);
	run_destroy(&r);
}

static const char allreduce_1gib[] =
	"{\"iteration\":0,\"op\":\"allreduce\",\"bytes\":1073741824,\"dtype\":\"fp32\","
	"\"algo\":\"ring\",\"proto\":\"simple\"}\n";

/*
 * A ring all-reduce of S = 1 GiB over 2 nodes x 2 GPUs (rail.yaml and
 * node.yaml: two 10 GB/s NICs a node, all else faster). Each channel
 * leaves a node by the NIC it came in by (its rail, the exit GPU relaying
 * over NVLink): on rail.yaml NIC k of both nodes is on leaf k, so no hop
 * leaves a leaf, and the two NICs give a node 20 GB/s: a ring moves
 * 2(n-1)/n S = 1.5 S through it, 1.5 S / 20 GB/s. On node.yaml the two
 * NICs of a node hang on one leaf with one 10 GB/s uplink: every hop
 * crosses it, and a node sends 1.5 S / 10 GB/s, twice as long. Launch and
 * hop latencies are under 0.1 ms of 80 ms.
 */
static void rail_alignment_keeps_allreduce_off_the_spine(const char *backend)
{
	struct plan_options o;
	struct run rail, node;
	double s = GiB, t_rail, t_node;
	const char *name;

	NEED_BACKEND(backend);
	plan_options_default(&o);
	o.path = PLAN_PATH_DIRECT;
	o.nodes = 2;
	run_trace(&rail, backend, DATA("fabric/rail.yaml"), allreduce_1gib, &o);
	run_trace(&node, backend, DATA("fabric/node.yaml"), allreduce_1gib, &o);
	t_rail = rail.rec.coll[0].time_us;
	t_node = node.rec.coll[0].time_us;
	assert_rel(t_rail, 1.5 * s / 20e9 * 1e6, 0.02);
	assert_rel(t_node, 1.5 * s / 10e9 * 1e6, 0.02);
	assert_rel(t_node / t_rail, 2.0, 0.02);

	/* Rail: no connection crosses a switch link; the busiest is a NIC. */
	for (size_t i = 0; i < rail.plan.npatterns; i++) {
		const struct plan_pattern *pat = &rail.plan.patterns[i];
		uint32_t ids[FABRIC_PATH_MAX];

		for (size_t k = 0; k < pat->nconns; k++)
			cr_assert_eq(plan_conn_fabric(&rail.plan, pat, &pat->conns[k], ids), 0);
	}
	name = rail.rec.link_names[rail.rec.coll[0].fabric_link];
	cr_assert(strstr(name, ".port_"), "%s", name);
	name = node.rec.link_names[node.rec.coll[0].fabric_link];
	cr_assert(!strncmp(name, "leaf", 4), "%s", name);
	run_destroy(&node);
	run_destroy(&rail);
}

/*
 * An alltoall of S = 160 MB a rank over 16 nodes of leaf-2to1.yaml: 4
 * leaves of 4 nodes. Each rank sends S/16 to each of 15 others, 12 of
 * them on other leaves: a leaf sends 4 x 12 x S/16 = 3 S through its 4
 * uplinks of 5 GB/s, at least 3 S / 20 GB/s = 24 ms (the spine layer's
 * bisection), whatever ECMP does; the NICs alone would allow
 * 15/16 S / 10 GB/s = 15 ms.
 */
static void alltoall_is_bounded_by_the_bisection(const char *backend)
{
	struct plan_options o;
	struct run r;
	double s = 160e6, bound = 3 * s / 20e9 * 1e6, nic = 15.0 / 16 * s / 10e9 * 1e6;

	NEED_BACKEND(backend);
	plan_options_default(&o);
	o.path = PLAN_PATH_DIRECT;
	o.nodes = 16;
	run_trace(&r, backend, DATA("fabric/leaf-2to1.yaml"),
		  "{\"iteration\":0,\"op\":\"alltoall\",\"bytes\":160000000,\"dtype\":\"int8\"}\n",
		  &o);
	cr_assert_geq(r.rec.coll[0].time_us, bound * (1 - 1e-3), "%.1f us < %.1f us",
		      r.rec.coll[0].time_us, bound);
	cr_assert_gt(r.rec.coll[0].time_us, 1.5 * nic);
	cr_assert(!strncmp(r.rec.link_names[r.rec.coll[0].fabric_link], "leaf", 4));
	/* Beyond the bound by ECMP's luck: the busiest uplink's flows, S/16
	 * each, drain through its 5 GB/s, and the call ends with them. */
	assert_rel(r.rec.coll[0].time_us,
		   NET_US + r.rec.coll[0].fabric_flows * s / 16 / 5e9 * 1e6, TOL);
	assert_rel(r.rec.coll[0].fabric_share, 5e9 / (r.rec.coll[0].fabric_flows * 10e9), 1e-9);
	run_destroy(&r);
}

/* The inter-node connections of @r's plan that cross switch links. */
static unsigned crossing(const struct run *r)
{
	unsigned n = 0;

	for (size_t i = 0; i < r->plan.npatterns; i++) {
		const struct plan_pattern *pat = &r->plan.patterns[i];
		uint32_t ids[FABRIC_PATH_MAX];

		for (size_t k = 0; k < pat->nconns; k++)
			n += plan_conn_fabric(&r->plan, pat, &pat->conns[k], ids) > 0;
	}
	return n;
}

/*
 * PXN keeps an alltoall on its rails: the 32 nodes of one SuperPOD unit
 * have NIC k on leaf k. A send from GPU g to GPU h of another node goes
 * out by the NIC h's channel uses (over NVLink to the GPU that NIC is
 * local to, where g's own path to it crosses a CPU), lands on that NIC of
 * h's node and stays under its rail's leaf: no connection crosses an
 * uplink, and the NICs bound it. Each of a node's 8 NICs (400 Gbit/s x
 * 0.95 = 47.5 GB/s) sends its GPUs' shares to the 248 GPUs of the other
 * nodes: 248/256 of S = 256 MiB a rank, after the launch and a hop, and
 * after one batch of 8 sends across the network before the last on most
 * channels (32 groups of 8 rounds on 16 p2p channels, one channel a
 * group: two batches a channel, NCCL's kernel taking one after the
 * other; docs/model.md Known limits), a hop more. With
 * --pxn off a send leaves by g's own NIC; those crossing rails go up a
 * leaf and down another, and ECMP piles more on some downlinks than a
 * NIC carries: slower.
 */
Test(fabric, pxn_keeps_alltoall_on_its_rails)
{
	static const char a2a[] =
		"{\"iteration\":0,\"op\":\"alltoall\",\"bytes\":268435456,\"dtype\":\"int8\"}\n";
	double s = 256 * MiB, bound = NET_US + 14 + 248.0 / 256 * s / 47.5e9 * 1e6;
	struct plan_options o;
	struct run r;

	plan_options_default(&o);
	o.nodes = 32;
	run_trace(&r, "analytic", CONFIG("h100-superpod-ib.yaml"), a2a, &o);
	cr_assert_eq(crossing(&r), 0);
	assert_rel(r.rec.coll[0].time_us, bound, 1e-3);
	run_destroy(&r);
	o.pxn_off = true;
	run_trace(&r, "analytic", CONFIG("h100-superpod-ib.yaml"), a2a, &o);
	cr_assert_gt(crossing(&r), 0);
	cr_assert_gt(r.rec.coll[0].time_us, bound * 1.01);
	cr_assert(!strncmp(r.rec.link_names[r.rec.coll[0].fabric_link], "leaf", 4));
	run_destroy(&r);
}

/*
 * Incast: an alltoall among the 4 nodes of leaf 0 stays on the leaf;
 * each NIC's cable takes the flows of its 3 peers, so the busiest link
 * is a NIC port with 3 flows, a third of a port each.
 */
Test(fabric, alltoall_incast_shows_on_the_nic_port)
{
	struct plan_options o;
	struct run r;
	const char *name;

	plan_options_default(&o);
	o.path = PLAN_PATH_DIRECT;
	o.nchannels = 1;
	run_trace(&r, "analytic", DATA("fabric/leaf-2to1.yaml"),
		  "{\"iteration\":0,\"op\":\"alltoall\",\"bytes\":40000000,\"dtype\":\"int8\","
		  "\"group\":[0,1,2,3]}\n",
		  &o);
	name = r.rec.link_names[r.rec.coll[0].fabric_link];
	cr_assert(strstr(name, "/nic0.port_"), "%s", name);
	cr_assert_eq(r.rec.coll[0].fabric_flows, 3);
	assert_rel(r.rec.coll[0].fabric_share, 1.0 / 3, 1e-9);
	run_destroy(&r);
}

static const char job_allreduce[] =
	"{\"iteration\":0,\"op\":\"allreduce\",\"bytes\":67108864,\"dtype\":\"fp32\","
	"\"algo\":\"ring\",\"proto\":\"simple\"}\n";

/* Two 2-rank jobs (one GPU a node) on nodes @a, @b and @c, @d of
 * leaf-2to1.yaml, run together; their slowdowns (together / alone). */
static void two_jobs(const char *backend, unsigned a, unsigned b, unsigned c, unsigned d,
		     double *slow)
{
	const unsigned ra[2] = { a, b }, rc[2] = { c, d };
	struct plan_options o = one_channel();
	struct trace ta, tc, merged;
	struct trace_job jobs[2];
	struct topology t;
	struct plan p;
	struct records rec;
	struct diag dg = { "" };
	struct trace_jobs_time jt[2];

	load(DATA("fabric/leaf-2to1.yaml"), &t);
	cr_assert_eq(trace_load_buffer(job_allreduce, strlen(job_allreduce), "a.jsonl", &ta, &dg),
		     0, "%s", dg.msg);
	cr_assert_eq(trace_load_buffer(job_allreduce, strlen(job_allreduce), "c.jsonl", &tc, &dg),
		     0, "%s", dg.msg);
	jobs[0] = (struct trace_job){ &ta, 2, ra, 0 };
	jobs[1] = (struct trace_job){ &tc, 2, rc, 0 };
	cr_assert_eq(trace_jobs_merge(jobs, 2, &merged, &dg), 0, "%s", dg.msg);
	cr_assert_eq(merged.nentries, 2);
	cr_assert_eq(trace_jobs_of(&merged, &merged.entries[1]), 1);
	cr_assert_eq(backend_execute(backend_find(backend), &t, &merged, &o, NULL, &p, &rec, &dg),
		     0, "%s", dg.msg);
	trace_jobs_times(&merged, &rec, 2, jt);
	for (unsigned k = 0; k < 2; k++)
		slow[k] = jt[k].together_us / jt[k].alone_us;
	records_destroy(&rec);
	plan_destroy(&p);
	trace_destroy(&merged);
	trace_destroy(&tc);
	trace_destroy(&ta);
}

/*
 * Two jobs on disjoint nodes, each a ring all-reduce of 64 MiB between a
 * node of leaf 0 and one of leaf 1 on one channel: each job's two flows
 * (there and back) cross one uplink of each leaf, 5 GB/s, alone. Where
 * ECMP puts a flow of each job on one uplink, they share it and each job
 * runs at half its pace alone: slowdown 2. Where no uplink is shared,
 * neither slows the other: slowdown 1. fabric_path says which placements
 * are which.
 */
static void jobs_slow_each_other_on_a_shared_uplink(const char *backend)
{
	struct topology t;
	struct fabric_geom g;
	unsigned hit[4] = { 0 }, miss[4] = { 0 };
	bool have_hit = false, have_miss = false;
	double slow[2];

	NEED_BACKEND(backend);
	load(DATA("fabric/leaf-2to1.yaml"), &t);
	fabric_geom_init(&g, &t, 8, 0);
	for (unsigned i = 0; i < 256 && !(have_hit && have_miss); i++) {
		unsigned a = i % 4, b = 4 + i / 4 % 4, c = i / 16 % 4, d = 4 + i / 64;
		uint32_t ab[2], ba[2], cd[2], dc[2];
		bool shared;

		if (a == c || b == d)
			continue;
		fabric_path(&g, &t, a, 0, b, 0, 0, ab);
		fabric_path(&g, &t, b, 0, a, 0, 0, ba);
		fabric_path(&g, &t, c, 0, d, 0, 0, cd);
		fabric_path(&g, &t, d, 0, c, 0, 0, dc);
		shared = ab[0] == cd[0] || ba[0] == dc[0];
		if (shared && !have_hit) {
			hit[0] = a, hit[1] = b, hit[2] = c, hit[3] = d;
			have_hit = true;
		}
		if (!shared && ab[1] != cd[1] && ba[1] != dc[1] && !have_miss) {
			miss[0] = a, miss[1] = b, miss[2] = c, miss[3] = d;
			have_miss = true;
		}
	}
	cr_assert(have_hit && have_miss);
	two_jobs(backend, hit[0], hit[1], hit[2], hit[3], slow);
	assert_rel(slow[0], 2.0, 0.02);
	assert_rel(slow[1], 2.0, 0.02);
	two_jobs(backend, miss[0], miss[1], miss[2], miss[3], slow);
	assert_rel(slow[0], 1.0, 1e-6);
	assert_rel(slow[1], 1.0, 1e-6);
}

Test(fabric, jobs_must_not_share_ranks)
{
	const unsigned ra[2] = { 0, 4 }, rc[2] = { 4, 5 };
	struct trace ta, merged;
	struct trace_job jobs[2];
	struct diag dg = { "" };

	cr_assert_eq(trace_load_buffer(job_allreduce, strlen(job_allreduce), "a.jsonl", &ta, &dg),
		     0);
	jobs[0] = (struct trace_job){ &ta, 2, ra, 0 };
	jobs[1] = (struct trace_job){ &ta, 2, rc, 0 };
	cr_assert_eq(trace_jobs_merge(jobs, 2, &merged, &dg), -EINVAL);
	cr_assert(strstr(dg.msg, "rank 4 is in two jobs"), "%s", dg.msg);
	trace_destroy(&ta);
}

#define FABRIC_TESTS(backend)                                                 \
	Test(fabric_##backend, one_flow_gets_half_a_port)                     \
	{                                                                     \
		one_flow_gets_half_a_port(#backend);                          \
	}                                                                     \
	Test(fabric_##backend, two_flows_on_one_uplink_get_a_quarter)         \
	{                                                                     \
		two_flows_on_one_uplink_get_a_quarter(#backend);              \
	}                                                                     \
	Test(fabric_##backend, rail_alignment_keeps_allreduce_off_the_spine)  \
	{                                                                     \
		rail_alignment_keeps_allreduce_off_the_spine(#backend);       \
	}                                                                     \
	Test(fabric_##backend, alltoall_is_bounded_by_the_bisection)          \
	{                                                                     \
		alltoall_is_bounded_by_the_bisection(#backend);               \
	}                                                                     \
	Test(fabric_##backend, jobs_slow_each_other_on_a_shared_uplink)       \
	{                                                                     \
		jobs_slow_each_other_on_a_shared_uplink(#backend);            \
	}

FABRIC_TESTS(analytic)
FABRIC_TESTS(model)
