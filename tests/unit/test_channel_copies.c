/* SPDX-License-Identifier: MIT */
/*
 * A communicator's channels beyond its graph's are copies, as NCCL makes
 * them (channels.h, channels_copied): the search doubles a fast graph's
 * channels by copying them (search.cc ncclTopoDupChannels), and the
 * communicator doubles its own, channel c + nChannels being channel c
 * (connect.cc ncclTopoPostset, copyChannels). A copy takes its channel's
 * GPUs and NICs, never a way of its own. Expectations from NCCL's rules
 * and from NCCL 2.30.7's own search (tools/nccl-oracle/search.sh, its XML
 * trimmed to one GPU for the one-GPU communicator below).
 */
#include <math.h>
#include <stdio.h>

#include "channels.h"
#include "helpers.h"
#include "tuner.h"

/* The tuner's view of an all-reduce over @ranks (@n) of @nodes nodes,
 * under NCCL @version. */
struct comm {
	struct topology topo;
	struct trace trace;
	struct plan plan;
	struct tune_ctx t;
};

static void comm_init(struct comm *x, const char *topo_path, unsigned nodes,
		      const unsigned *ranks, unsigned n, const char *version)
{
	static const char line[] =
		"{\"iteration\":0,\"op\":\"allreduce\",\"bytes\":1048576,\"dtype\":\"fp32\"}\n";
	struct diag d = { "" };
	struct plan_options o;

	plan_options_default(&o);
	o.nodes = nodes;
	plan_options_set_nccl(&o, nccl_release_find(version));
	cr_assert_eq(topology_load(topo_path, &x->topo, &d), 0, "%s", d.msg);
	cr_assert_eq(trace_load_buffer(line, strlen(line), "inline.jsonl", &x->trace, &d), 0,
		     "%s", d.msg);
	cr_assert_eq(plan_build(&x->plan, &x->topo, &x->trace, &o, &d), 0, "%s", d.msg);
	tune_ctx_init(&x->t, &x->plan, TRACE_OP_ALLREDUCE, ranks, n, NULL);
}

static void comm_destroy(struct comm *x)
{
	plan_destroy(&x->plan);
	trace_destroy(&x->trace);
}

/* Communicator channel @c of graph @g over the local GPUs @gpus (@n). */
static void layout(const struct comm *x, const struct nccl_graph *g, const unsigned *gpus,
		   unsigned n, unsigned c, struct channel_layout *l)
{
	channels_layout(x->plan.nccl, &x->topo, gpus, n, channels_copied(&x->t.ch, g, c), true, l);
	channels_far_nic(&x->topo, g, gpus, n, l);
	channels_keep_nic(&x->t.ch.ring, l);
}

/*
 * a100-pcie4-200g, 2 nodes: the ring graph's 4 channels, one a NIC, each
 * entering by the first GPU of the NIC's switch (the NIC's own GPU,
 * net.localGpu, which NCCL 2.30.7's search tries first) and leaving by
 * the other: NCCL's own search of the node gives "NET 0 -> 0 ... 1",
 * "NET 1 -> 2 ... 3", "NET 2 -> 4 ... 5", "NET 3 -> 6 ... 7"
 * (tools/nccl-oracle). The communicator's 8 channels are those 4 twice:
 * channel 4 is channel 0, not channel 0 entered by gpu1.
 */
Test(channel_copies, communicator_channels_copy_the_graphs)
{
	static const unsigned gpus[] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	static const unsigned entry[] = { 0, 2, 4, 6 }, exit_[] = { 1, 3, 5, 7 };
	unsigned ranks[16];
	struct comm x;

	for (unsigned i = 0; i < 16; i++)
		ranks[i] = i;
	comm_init(&x, CONFIG("a100-pcie4-200g.yaml"), 2, ranks, 16, "2.30.7");
	cr_assert_eq(x.t.ch.ring.nchannels, 4);
	cr_assert_eq(x.t.ch.comm_channels, 8);
	for (unsigned c = 0; c < x.t.ch.comm_channels; c++) {
		struct channel_layout l;

		layout(&x, &x.t.ch.ring, gpus, 8, c, &l);
		cr_expect_eq(l.order[0], entry[c % 4], "channel %u enters by gpu%u", c, l.order[0]);
		cr_expect_eq(l.order[7], exit_[c % 4], "channel %u leaves by gpu%u", c, l.order[7]);
		cr_expect_eq(l.nic_in, (int)(c % 4), "channel %u: nic%d", c, l.nic_in);
		cr_expect_eq(l.nic_out, (int)(c % 4), "channel %u: nic%d", c, l.nic_out);
	}
	comm_destroy(&x);
}

/*
 * One GPU a node (gpu3 of h100-pcie5-400g, whose switch holds gpu2, gpu3,
 * nic2 and nic3). NCCL 2.30.7's search, on the system of that GPU alone:
 * "ring 0: NET 2 -> 0 -> NET 2", "ring 1: NET 2 -> 0 -> NET 2" (one
 * channel at 48 GB/s, which fills the GPU, copied at 24); "tree 0: NET 2",
 * "tree 1: NET 3" (the tree's pass laid both out). So a ring of this
 * communicator uses nic2 alone, on every channel, and its tree both NICs.
 */
Test(channel_copies, one_gpu_ring_stays_on_its_first_nic)
{
	static const unsigned ranks[] = { 3, 11 }, gpu[] = { 3 };
	struct comm x;

	comm_init(&x, CONFIG("h100-pcie5-400g.yaml"), 2, ranks, 2, "2.30.7");
	cr_assert_eq(x.t.ch.ring.nchannels, 2);
	cr_expect_eq(x.t.ch.ring.distinct, 1);
	cr_expect_float_eq(x.t.ch.ring.bw_inter, 24.0, 1e-9);
	cr_expect_eq(x.t.ch.tree.distinct, 2);
	for (unsigned c = 0; c < x.t.ch.comm_channels; c++) {
		struct channel_layout ring, tree;

		layout(&x, &x.t.ch.ring, gpu, 1, c, &ring);
		layout(&x, &x.t.ch.tree, gpu, 1, c, &tree);
		cr_expect_eq(ring.nic_in, 2, "ring channel %u: nic%d", c, ring.nic_in);
		cr_expect_eq(tree.nic_in, 2 + (int)(c % 2), "tree channel %u: nic%d", c,
			     tree.nic_in);
	}
	comm_destroy(&x);
}

/*
 * The same communicator under the releases before: which NIC a GPU alone
 * of its switch's starts at is a release's (nccl_tuning.h, first_net).
 * NCCL's own searches of that system: 2.8.4 "ring 0: NET 2" (its search
 * takes the NICs in index order), 2.12.12 "ring 0: NET 3", "ring 1: NET 3"
 * (the list turned by the GPU's index, 3 mod 2), 2.19.3 and 2.21.5 the
 * same with "tree 0: NET 3", "tree 1: NET 2" (the index's bit mirrored).
 */
Test(channel_copies, one_gpu_ring_nic_by_release)
{
	static const unsigned ranks[] = { 3, 11 }, gpu[] = { 3 };
	static const struct {
		const char *version;
		int ring, tree1;
	} want[] = { { "2.8.4", 2, -1 }, { "2.12.12", 3, -1 }, { "2.19.3", 3, 2 },
		     { "2.21.5", 3, 2 } };

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct channel_layout ring, tree;
		struct comm x;

		comm_init(&x, CONFIG("h100-pcie5-400g.yaml"), 2, ranks, 2, want[i].version);
		for (unsigned c = 0; c < x.t.ch.comm_channels; c++) {
			layout(&x, &x.t.ch.ring, gpu, 1, c, &ring);
			cr_expect_eq(ring.nic_in, want[i].ring, "%s ring channel %u: nic%d",
				     want[i].version, c, ring.nic_in);
		}
		if (want[i].tree1 >= 0) {
			layout(&x, &x.t.ch.tree, gpu, 1, 1, &tree);
			cr_expect_eq(tree.nic_in, want[i].tree1, "%s tree channel 1: nic%d",
				     want[i].version, tree.nic_in);
		}
		comm_destroy(&x);
	}
}

/*
 * What it costs: the data-parallel communicators of gpu2 and gpu3 (one GPU
 * a node, 2 nodes), each a 1 GiB all-reduce on its ring at once. Both
 * rings take nic2 (the first of the switch's NICs: NCCL 2.30.7's
 * ncclTopoGetLocalNet starts a GPU at its index modulo the communicator's
 * GPUs on that NIC, here one), so nic2 carries both calls' bytes, 2 x
 * 2 (n - 1) / n x 1 GiB = 2 GiB a direction at 400 Gbit/s x .95 = 47.5
 * GB/s: 45.2 ms. Its PCIe Gen5 x16 link (50.4 GB/s) and each GPU's are
 * not the bound; spread over both NICs the two would take half that.
 */
Test(channel_copies, two_one_gpu_rings_share_one_nic)
{
	static const char lines[] =
		"{\"iteration\":0,\"op\":\"allreduce\",\"bytes\":1073741824,\"dtype\":\"fp32\","
		"\"group\":[2,10],\"comm\":\"dp2\"}\n"
		"{\"iteration\":0,\"op\":\"allreduce\",\"bytes\":1073741824,\"dtype\":\"fp32\","
		"\"group\":[3,11],\"comm\":\"dp3\"}\n";
	struct plan_options o;
	struct run r;

	plan_options_default(&o);
	o.nodes = 2;
	o.path = PLAN_PATH_DIRECT;
	o.algo = "ring";
	o.proto = "simple";
	run_trace(&r, "analytic", CONFIG("h100-pcie5-400g.yaml"), lines, &o);
	for (unsigned i = 0; i < 2; i++)
		assert_rel(r.rec.coll[i].time_us, 2 * 1073741824.0 / 47.5e9 * 1e6, 0.02);
	run_destroy(&r);
}

/*
 * One V100 of ABCI alone (one GPU a node): its own HCA hangs from its
 * CPU's root complex (PHB), the other from the other socket's (SYS).
 * NCCL's search tries its own NIC first, then the other
 * (ncclTopoSelectNets), at every speed before the next lower one. By
 * hand, at NCCL's figures: the GPU's Gen3 x16 link is 12 GB/s and a ring
 * channel of speed s sends s up it and receives s into it, which on Volta
 * costs s/8 up the link too (search.cc followPath). To its own HCA
 * through an Intel root complex the PCI links take 6/5 of the speed:
 * 1.2 s + s/8 <= 12, s <= 9.05, 9 of the speed list; across the sockets
 * no overhead, s + s/8 <= 12 (10.67), and the link between them is
 * Skylake's 10: 10, the faster. NCCL 2.30.7's own search of gpu3 alone
 * (tools/nccl-oracle): ring "NET 0 -> 0 -> NET 0", 10/10 SYS; tree
 * 20/10. gpu1, on the other socket, crosses to hca1.
 */
Test(channel_copies, one_v100_crosses_to_the_faster_nic)
{
	static const unsigned ranks3[] = { 3, 7 }, ranks1[] = { 1, 5 }, gpu3[] = { 3 },
			      gpu1[] = { 1 };
	struct channel_layout l;
	struct comm x;

	comm_init(&x, CONFIG("validation/abci-v100-2xedr.yaml"), 2, ranks3, 2, "2.30.7");
	cr_expect_eq(x.t.ch.ring.nchannels, 1);
	cr_expect_float_eq(x.t.ch.ring.bw_inter, 10.0, 1e-9);
	cr_expect_eq(x.t.ch.ring.type_inter, TOPO_PATH_SYS);
	cr_expect_float_eq(x.t.ch.tree.bw_intra, 20.0, 1e-9);
	for (unsigned c = 0; c < x.t.ch.comm_channels; c++) {
		layout(&x, &x.t.ch.ring, gpu3, 1, c, &l);
		cr_expect(l.nic_in == 0 && l.nic_out == 0, "ring channel %u: hca%d, hca%d", c,
			  l.nic_in, l.nic_out);
		layout(&x, &x.t.ch.tree, gpu3, 1, c, &l);
		cr_expect_eq(l.nic_in, 0, "tree channel %u: hca%d", c, l.nic_in);
	}
	comm_destroy(&x);
	comm_init(&x, CONFIG("validation/abci-v100-2xedr.yaml"), 2, ranks1, 2, "2.30.7");
	layout(&x, &x.t.ch.ring, gpu1, 1, 0, &l);
	cr_expect_eq(l.nic_in, 1, "gpu1: hca%d", l.nic_in);
	comm_destroy(&x);
}
