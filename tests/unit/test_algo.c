/* SPDX-License-Identifier: MIT */
/*
 * How NCCL's channels use a node, on small made-up nodes whose answer is
 * a line of arithmetic (each file in tests/data says it): several NICs a
 * GPU, PXN, and what NCCL's host staging costs when memory is or is not
 * the bottleneck. One large all-reduce or send/receive each, where the
 * latencies are under 0.1% of the time: the bandwidth is the answer.
 */
#include <math.h>
#include <stdio.h>

#include "helpers.h"

#define GiB 1073741824.0

static const char allreduce_1g[] =
	"{\"iteration\":0,\"op\":\"allreduce\",\"bytes\":1073741824,\"dtype\":\"fp32\"}\n";
/* The same on NCCL's ring: on two nodes its tuner may pick the tree,
 * which sends a node's bytes over the network once, not 2 (n-1) / n
 * times (docs/model.md §1), where the tests below ask about the ring. */
static const char ring_allreduce_1g[] =
	"{\"iteration\":0,\"op\":\"allreduce\",\"bytes\":1073741824,\"dtype\":\"fp32\",\"algo\":\"Ring\"}\n";

static struct coll_record run_one(const char *topo, const char *line,
				  enum plan_path path, bool pxn_off)
{
	struct plan_options o;
	struct coll_record c;
	struct run r;

	plan_options_default(&o);
	o.path = path;
	o.pxn_off = pxn_off;
	run_trace(&r, "analytic", topo, line, &o);
	c = r.rec.coll[0];
	c.fallback = NULL; /* borrowed from the plan */
	run_destroy(&r);
	return c;
}

/*
 * One GPU and four NICs of 12.5 GB/s: NCCL's channels rotate over the
 * NICs, so the GPU drives all four. Two ranks, so the ring's busbw is
 * what each node sends: 4 x 12.5 = 50 GB/s. With two NICs, 25.
 */
Test(algo, one_gpu_drives_every_nic)
{
	struct coll_record four = run_one(DATA("one-gpu-four-nics.yaml"), allreduce_1g,
					  PLAN_PATH_AUTO, false);
	struct coll_record two = run_one(DATA("one-gpu-two-nics.yaml"), allreduce_1g,
					 PLAN_PATH_AUTO, false);

	assert_rel(four.busbw_gbps, 50, 0.002);
	assert_rel(two.busbw_gbps, 25, 0.002);
	cr_assert_eq(four.path, PLAN_USED_DIRECT);
	cr_assert_geq(four.nchannels, 4, "a channel a NIC at least");
}

/*
 * An alltoall's send to a peer is cut into parts on channels of their
 * own, as a send/receive's is (NCCL's addP2pToPlan stripes both), so on
 * the same node a GPU's one peer takes all four NICs: 2 GiB a rank over 2
 * ranks sends 1 GiB to the other in 1 GiB / 50 GB/s, busbw 50 GB/s (an
 * alltoall's factor (n - 1) / n on 2 GiB over that time). On one NIC it
 * would be 12.5.
 */
Test(algo, an_alltoall_spreads_a_peers_bytes_over_every_nic)
{
	static const char alltoall[] = "{\"iteration\":0,\"op\":\"alltoall\",\"bytes\":2147483648,"
				       "\"dtype\":\"fp32\"}\n";
	struct coll_record c = run_one(DATA("one-gpu-four-nics.yaml"), alltoall, PLAN_PATH_AUTO,
				       false);

	assert_rel(c.time_us, GiB / 50e3, 0.002);
	assert_rel(c.busbw_gbps, 50, 0.002);
}

/* A small alltoall (16 floats a peer) on @nodes nodes of
 * round-numbers.yaml (one GPU a node), its time in us. */
static double small_alltoall(const char *backend, unsigned nodes)
{
	struct plan_options o;
	struct run r;
	char line[160];
	double t;

	plan_options_default(&o);
	o.nodes = nodes;
	snprintf(line, sizeof(line),
		 "{\"iteration\":0,\"op\":\"alltoall\",\"bytes\":%u,\"dtype\":\"fp32\"}\n",
		 64 * nodes);
	run_trace(&r, backend, DATA("round-numbers.yaml"), line, &o);
	t = r.rec.coll[0].time_us;
	run_destroy(&r);
	return t;
}

/*
 * NCCL's kernel takes a channel's sends in batches of 8 from one group
 * of 8 rounds, one batch after another (enqueue.cc
 * ncclAddWorkBatchToPlan). On nodes of one GPU every round is its own
 * group of peers, and round r takes p2p channel r mod 2 (2 channels: its
 * base, 1 bit reversed): n ranks' rounds 1 .. n - 1 make floor((n - 1) /
 * 8) + 1 batches on a channel. A send of 64 bytes costs its latency L =
 * T(2) - launch (its 6 ns on the wire aside), so T(n) = T(2) +
 * floor((n - 1) / 8) x L: 8 ranks as 2, 9 and 16 one L more, 32 three.
 * Both backends.
 */
static void alltoall_batches(const char *backend)
{
	double launch = nccl_launch_latency(nccl_release_newest(), ALGO_RING, PROTO_SIMPLE);
	double t2 = small_alltoall(backend, 2), lat = t2 - launch;

	cr_assert_gt(lat, 1, "a network hop's latency");
	assert_rel(small_alltoall(backend, 8), t2, 0.005);
	assert_rel(small_alltoall(backend, 9), t2 + lat, 0.005);
	assert_rel(small_alltoall(backend, 16), t2 + lat, 0.005);
	assert_rel(small_alltoall(backend, 32), t2 + 3 * lat, 0.005);
}

Test(algo, an_alltoall_takes_a_channels_sends_in_batches_of_8)
{
	alltoall_batches("analytic");
}

Test(algo, an_alltoall_takes_a_channels_sends_in_batches_of_8_model)
{
	alltoall_batches("model");
}

/*
 * A send's NIC is the one NCCL's p2p transport asks for without a graph
 * (topo.cc ncclTopoGetLocalNet): of a GPU's nearest NICs, its channels
 * take ceil(NICs / GPUs sharing them). On h100-pcie5-400g two GPUs share
 * a switch's two 400 Gbit/s NICs, so a send from GPU 0 to the next node
 * keeps one: 400 x 0.95 / 8 = 47.5 GB/s; so does one on a communicator
 * of GPUs 0 and 1 of each node. A communicator of one GPU a node has the
 * two NICs to itself: above one NIC's rate (its PCIe link binds next).
 */
Test(algo, a_send_takes_its_gpus_share_of_the_nics)
{
	static const char sends[] =
		"{\"iteration\":0,\"op\":\"sendrecv\",\"bytes\":1073741824,\"dtype\":\"fp32\",\"src\":0,\"dst\":8}\n"
		"{\"iteration\":1,\"op\":\"sendrecv\",\"bytes\":1073741824,\"dtype\":\"fp32\",\"src\":0,\"dst\":8,"
		"\"comm\":\"pairs\",\"group\":[0,1,8,9]}\n"
		"{\"iteration\":2,\"op\":\"sendrecv\",\"bytes\":1073741824,\"dtype\":\"fp32\",\"src\":0,\"dst\":8,"
		"\"comm\":\"alone\",\"group\":[0,8]}\n";
	struct plan_options o;
	struct run r;

	plan_options_default(&o);
	run_trace(&r, "analytic", CONFIG("h100-pcie5-400g.yaml"), sends, &o);
	assert_rel(r.rec.coll[0].busbw_gbps, 47.5, 0.002);
	assert_rel(r.rec.coll[1].busbw_gbps, 47.5, 0.002);
	cr_assert_gt(r.rec.coll[2].busbw_gbps, 47.5 * 1.05, "%.2f GB/s: two NICs",
		     r.rec.coll[2].busbw_gbps);
	run_destroy(&r);
}

/*
 * PXN (tests/data/pxn-two-gpus.yaml): gpu1 is PHB from the node's only
 * NIC, gpu0 PIX, NVLink between them. gpu1's sends go over NVLink to
 * gpu0 and out of the NIC with GPUDirect RDMA; NCCL judges gpu1's
 * receives by gpu0's distance too, so nothing touches host memory and the
 * NIC's 12.5 GB/s is the limit. With --pxn off gpu1's sends and receives
 * are staged, and host memory's 20 GB/s carries each byte twice: 10 GB/s.
 */
Test(algo, pxn_sends_through_the_nics_own_gpu)
{
	static const char sendrecv[] = "{\"iteration\":0,\"op\":\"sendrecv\",\"bytes\":1073741824,"
				       "\"dtype\":\"fp32\",\"src\":1,\"dst\":3}\n";
	struct coll_record on = run_one(DATA("pxn-two-gpus.yaml"), sendrecv, PLAN_PATH_AUTO, false);
	struct coll_record off = run_one(DATA("pxn-two-gpus.yaml"), sendrecv, PLAN_PATH_AUTO, true);

	cr_assert_eq(on.path, PLAN_USED_DIRECT);
	assert_rel(on.time_us, GiB / 12.5e3, 0.002);
	cr_assert_eq(off.path, PLAN_USED_STAGED);
	assert_rel(off.time_us, GiB / 10e3, 0.002);
}

/* The same for a collective: the ring leaves each node from gpu1. */
Test(algo, pxn_carries_a_rings_exit)
{
	struct coll_record on = run_one(DATA("pxn-two-gpus.yaml"), ring_allreduce_1g, PLAN_PATH_AUTO,
					false);
	struct coll_record off = run_one(DATA("pxn-two-gpus.yaml"), ring_allreduce_1g, PLAN_PATH_AUTO,
					 true);

	cr_assert_eq(on.path, PLAN_USED_DIRECT);
	assert_rel(on.busbw_gbps, 12.5, 0.002);
	cr_assert_eq(off.path, PLAN_USED_MIXED);
	assert_rel(off.busbw_gbps, 10, 0.002);
}

/*
 * PXN relays through a peer GPU of the communicator: gpu1 alone on each
 * node (a group of ranks 1 and 3) has none, so it sends and receives
 * staged. Host memory's 20 GB/s then carries each byte four times (the
 * GPU's write and the NIC's read going out, the NIC's write and the GPU's
 * read coming in): 5 GB/s, where judging its receives by a relay it does
 * not have gave 10.
 */
Test(algo, pxn_needs_a_peer_in_the_group)
{
	static const char alone[] = "{\"iteration\":0,\"op\":\"allreduce\",\"bytes\":1073741824,"
				    "\"dtype\":\"fp32\",\"algo\":\"Ring\",\"group\":[1,3]}\n";
	struct coll_record c = run_one(DATA("pxn-two-gpus.yaml"), alone, PLAN_PATH_AUTO, false);

	cr_assert_eq(c.path, PLAN_USED_STAGED);
	assert_rel(c.busbw_gbps, 5, 0.002);
}

/*
 * NCCL's staging (the GPU's threads store into host memory, the NIC reads
 * it) costs nothing at large sizes where memory and PCIe have room: the
 * same NIC-bound 50 GB/s as direct, but for the pipeline's fill. A 1 MiB
 * slice crosses GPU -> host before the NIC and host -> GPU after it, each
 * over the 200 GB/s GPU link the 8 channels share: the first slice's
 * store and the last one's load, 2 x 41.943 us more than direct (the
 * closed form gave 21522.4 us, the fill through one segment, until
 * 2026-12-06; the model backend this).
 *
 * MPI's copy-engine staging stores each 1 MiB slice three times: a copy
 * into the bounce buffer (1 us + 1 MiB at the copy engine's 100 GB/s over
 * the 8 channels: 84.886 us), the NIC (two channels on each 12.5 GB/s:
 * 167.772 us), a copy out (84.886 us), tau = 337.544 us, behind NCCL's
 * 14 us network hop x 1.4 (the ring's plateau) = 19.6 us. On 2 ranks a
 * loop is 2 steps of a 2 MiB chunk in 2 slices; its second step forwards
 * the first's chunk once it has landed (357.144 us), its two slices then
 * leave through the NIC one after another (2 x 167.772): 692.689 us a
 * loop, more than its 4 slices at the NIC's pace (671.089). 32 loops of
 * 128 MiB a channel: T = 8.4 + 31 x 692.689 + 2 x 357.144 + 167.772 =
 * 22363.8 us, 4% over direct (the model backend's figure too; the closed
 * form gave 21694.2, the loops at the NIC's pace, until 2026-12-02).
 */
Test(algo, staging_is_free_where_memory_has_room)
{
	struct coll_record direct = run_one(DATA("one-gpu-four-nics.yaml"), allreduce_1g,
					    PLAN_PATH_DIRECT, false);
	struct coll_record staged = run_one(DATA("one-gpu-four-nics.yaml"), allreduce_1g,
					    PLAN_PATH_STAGED, false);
	struct coll_record memcpy_ = run_one(DATA("one-gpu-four-nics.yaml"), allreduce_1g,
					     PLAN_PATH_STAGED_MEMCPY, false);
	double copy = 1 + 1048576 / 12.5e9 * 1e6, nic = 1048576 / 6.25e9 * 1e6;
	double hop = 14 * 1.4 + 2 * copy + nic;

	cr_assert_eq(staged.path, PLAN_USED_STAGED);
	assert_rel(staged.time_us, direct.time_us + 2 * 1048576 / 25e9 * 1e6, 1e-4);
	assert_rel(memcpy_.time_us, 8.4 + 31 * (hop + 2 * nic) + 2 * hop + nic, 1e-4);
}

/*
 * Eight GPUs and eight NICs of 12.5 GB/s on one socket of 100 GB/s
 * (tests/data/eight-gpus-one-socket.yaml): direct, the ring's busbw is
 * the node's 8 x 12.5 = 100 GB/s of NICs. Staged, each byte a node sends
 * and receives crosses its memory twice each way: 4 x busbw <= 100 GB/s,
 * a quarter: 25 GB/s.
 */
Test(algo, staging_is_memory_bound_when_gpus_share_a_socket)
{
	struct coll_record direct = run_one(DATA("eight-gpus-one-socket.yaml"), ring_allreduce_1g,
					    PLAN_PATH_DIRECT, false);
	struct coll_record staged = run_one(DATA("eight-gpus-one-socket.yaml"), ring_allreduce_1g,
					    PLAN_PATH_STAGED, false);

	cr_assert_eq(direct.nranks, 16);
	assert_rel(direct.busbw_gbps, 100, 0.002);
	assert_rel(staged.busbw_gbps, 25, 0.002);
}

/*
 * NVLS moves its bytes at NCCL's nvlsEfficiency (0.85 on Hopper) of the
 * GPU's NVLink: per payload byte a GPU sends 1 + 1/8 into the switch (its
 * data, and its reduced eighth back in for the multicast) and receives as
 * much, so 8 GiB take 9 GiB / (0.85 x 18 x 20.6 GB/s) on the h100
 * preset's 8 GPUs; launch and pipeline fill are under 0.5%. Across 2
 * nodes (NVLSTree), whose 400 Gbit/s NICs (8 x 47.5 GB/s for 8 GiB once
 * each way) are not the bottleneck, NCCL's per-channel NVLS-tree maximum
 * paces the stream (tuning.cc perChMaxNVLSTreeBw, Hopper on 2 nodes 57.7
 * GB/s, below the NVLS graph's 40 x 0.85 x 7/8 x 2 = 59.5 and its 2 x 48
 * network): 8 graph channels x 57.7 GB/s of bus bandwidth, x 16 / 30 for
 * an all-reduce of 16 ranks.
 */
Test(algo, nvls_runs_at_nvls_efficiency_on_one_node_and_across)
{
	static const char allreduce_8g[] =
		"{\"iteration\":0,\"op\":\"allreduce\",\"bytes\":8589934592,\"dtype\":\"fp32\"}\n";
	double want[2] = { 1.125 * 8 * GiB / (0.85 * 18 * 20.6e9) * 1e6,
			   8 * GiB / (8 * 57.7e9 * 16 / 30) * 1e6 };
	struct plan_options o;
	struct run r;

	for (unsigned nodes = 1; nodes <= 2; nodes++) {
		plan_options_default(&o);
		o.nodes = nodes;
		o.algo = nodes == 1 ? "nvls" : "nvlstree";
		run_trace(&r, "analytic", CONFIG("h100-pcie5-400g.yaml"), allreduce_8g, &o);
		assert_rel(r.rec.coll[0].time_us, want[nodes - 1], 0.005);
		run_destroy(&r);
	}
}

/*
 * A tree's children land where NCCL connects them (connect.cc:
 * treeToChild0 at the chain's second GPU but in a simple tree,
 * treeToChild1 there too in a split tree), so a slice from a child that
 * lands at the second GPU crosses one more hop inside its parent, up and
 * down. On ABCI's nodes (4 V100 wired alike, the chain 0 1 2 3) an 8-byte
 * Tree/LL all-reduce from 2 to 4 nodes adds a level: its two network hops
 * (NCCL's tree LL network hop, 5 us) and, where its children land at the
 * second GPU, NVLink hops (tuning.cc hwLat). NCCL 2.8.4 splits the tree
 * beyond two nodes on Volta (both children at the second GPU): the
 * deepest node's way crosses the second GPU at both levels, 4 more hops
 * of 0.52 x 1.8 us (its LL intra factor across nodes). 2.30.7's tree is
 * balanced (child 0 there, child 1 at the head): the deepest node (1,
 * child 0 of node 2, which is the root's child 1) crosses it once each
 * way, 2 hops of 0.6 us. On two nodes every child is a child 1 (or the
 * pattern a simple tree), at the head.
 */
static double abci_tree_ll(const char *release, unsigned nodes)
{
	static const char line[] =
		"{\"iteration\":0,\"op\":\"allreduce\",\"bytes\":8,\"dtype\":\"fp32\"}\n";
	struct plan_options o;
	struct run r;
	double t;

	plan_options_default(&o);
	o.nodes = nodes;
	o.algo = "tree";
	o.proto = "ll";
	plan_options_set_nccl(&o, nccl_release_find(release));
	run_trace(&r, "analytic", CONFIG("validation/abci-v100-2xedr.yaml"), line, &o);
	t = r.rec.coll[0].time_us;
	run_destroy(&r);
	return t;
}

Test(algo, tree_children_land_where_nccl_connects_them)
{
	double split = abci_tree_ll("2.8.4", 4) - abci_tree_ll("2.8.4", 2);
	double balanced = abci_tree_ll("2.30.7", 4) - abci_tree_ll("2.30.7", 2);

	cr_expect(fabs(split - (2 * 5.0 + 4 * 0.52 * 1.8)) < 0.05, "%.3f us", split);
	cr_expect(fabs(balanced - (2 * 5.0 + 2 * 0.6)) < 0.05, "%.3f us", balanced);
}

/*
 * copy_engines: the copies one GPU runs at copy_bandwidth at once, per
 * direction, the same in both backends (resources.c RES_CE_*). A staged-
 * memcpy send of 1 GiB from a GPU of two NICs (25 GB/s in all) runs on
 * two channels, a NIC each, each copying its slices at 5 GB/s into and
 * out of host memory: with one engine the two channels share 5 GB/s,
 * with two each gets its own, and a third or fourth finds no copy to
 * run. The pipeline's fill is under 0.1%.
 */
static const char slow_copies[] =
	"name: slow-copies\nnodes: 2\n"
	"sockets: [ { name: cpu0, memory_bandwidth: 1000 GB/s } ]\n"
	"switches: [ { name: sw0, parent: cpu0, link: { bandwidth: 200 GB/s, latency: 1 us } } ]\n"
	"gpus: [ { name: gpu0, parent: sw0, link: { bandwidth: 200 GB/s, latency: 1 us } } ]\n"
	"nics:\n"
	"  - { name: nic0, parent: sw0, link: { bandwidth: 100 GB/s, latency: 1 us },"
	" rate: 100 Gbit/s, efficiency: 1, latency: 2 us }\n"
	"  - { name: nic1, parent: sw0, link: { bandwidth: 100 GB/s, latency: 1 us },"
	" rate: 100 Gbit/s, efficiency: 1, latency: 2 us }\n"
	"gpu_fabric: { kind: pcie }\n"
	"fabric: { switch_latency: 1 us, hops: 1, oversubscription: 1 }\n"
	"staging: { chunk: 1 MiB, buffers: 4, copy_bandwidth: 5 GB/s,"
	" chunk_overhead: 0.001 us, copy_engines: %u }\n";

static double memcpy_send_us(const char *backend, unsigned engines)
{
	static const char send[] = "{\"iteration\":0,\"op\":\"sendrecv\",\"bytes\":1073741824,"
				   "\"dtype\":\"fp32\",\"src\":0,\"dst\":1}\n";
	char yaml[sizeof(slow_copies) + 16];
	struct diag d = { "" };
	struct plan_options o;
	struct run *r = calloc(1, sizeof(*r));
	double us;

	cr_assert_not_null(r);
	snprintf(yaml, sizeof(yaml), slow_copies, engines);
	cr_assert_eq(topology_load_buffer(yaml, strlen(yaml), "inline", &r->topo, &d), 0, "%s",
		     d.msg);
	plan_options_default(&o);
	o.path = PLAN_PATH_STAGED_MEMCPY;
	run_loaded(r, backend, send, &o);
	cr_assert_eq(r->rec.coll[0].nchannels, 2);
	us = r->rec.coll[0].time_us;
	run_destroy(r);
	free(r);
	return us;
}

Test(algo, copy_engines_mean_the_same_in_both_backends)
{
	const struct backend_ops *model = backend_find("model");
	char why[256] = "";
	bool with_model = model && !backend_probe(model, why, sizeof(why));

	for (unsigned engines = 1; engines <= 4; engines *= 2) {
		double want = GiB / (5e9 * (engines < 2 ? engines : 2)) * 1e6;

		assert_rel(memcpy_send_us("analytic", engines), want, 0.001);
		if (with_model)
			assert_rel(memcpy_send_us("model", engines), want, 0.001);
	}
	if (!with_model)
		cr_skip_test("model backend not testable here: %s", why);
}
