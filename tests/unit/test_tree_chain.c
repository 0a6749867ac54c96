/* SPDX-License-Identifier: MIT */
/*
 * A tree channel's chain through a node (channels.h, channels_tree_chain)
 * against NCCL 2.21.5's and 2.12.12's own search of the same nodes
 * (search.cc, compiled by tools/nccl-oracle/search.sh, its channels'
 * intra orders as NCCL's harness prints them). A balanced tree's chain goes from the GPU the
 * network enters by to the one that sends back to it, then on in index
 * order, or down from there where that one is the entry's previous (on
 * an NVSwitch NCCL 2.19 on tries the next and the previous GPU first); a
 * simple tree's is index order from its entry.
 */
#include "channels.h"
#include "tuned_helpers.h"

/* Tree channel @c's chain on @nodes nodes of @topo_path under NCCL
 * @version, into @order (@n GPUs); where the chain sends back to the
 * network. */
static unsigned chain(const char *topo_path, const char *version, unsigned nodes, unsigned c,
		      unsigned *order, unsigned *n, enum nccl_pattern *pattern)
{
	static const unsigned gpus[TOPO_MAX_GPUS] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	struct channel_layout l;
	struct tuned x;
	unsigned back;

	tuned_release(&x, topo_path, nodes, version);
	*n = x.t.ppn;
	*pattern = x.t.ch.tree.pattern;
	channels_layout(x.plan.nccl, &x.topo, gpus, *n, channels_copied(&x.t.ch, &x.t.ch.tree, c),
			true, &l);
	back = channels_tree_chain(x.plan.nccl, &x.topo, *pattern, gpus, *n, &l);
	cr_expect_eq(l.nic_out, l.nic_in, "a tree leaves by the NIC it came in by");
	memcpy(order, l.order, *n * sizeof(*order));
	tuned_destroy(&x);
	return back;
}

static void expect_release_chain(const char *topo_path, const char *version, unsigned nodes,
				 unsigned c, const unsigned *want, unsigned want_back)
{
	unsigned order[TOPO_MAX_GPUS], n;
	enum nccl_pattern pattern;
	unsigned back = chain(topo_path, version, nodes, c, order, &n, &pattern);

	for (unsigned k = 0; k < n; k++)
		cr_expect_eq(order[k], want[k], "%s channel %u: GPU %u at %u, NCCL's %u", topo_path,
			     c, order[k], k, want[k]);
	cr_expect_eq(back, want_back, "%s channel %u (%s)", topo_path, c,
		     nccl_pattern_name(pattern));
}

static void expect_chain(const char *topo_path, unsigned nodes, unsigned c,
			 const unsigned *want, unsigned want_back)
{
	expect_release_chain(topo_path, "2.21.5", nodes, c, want, want_back);
}

/* DGX A100 (NVSwitch, two GPUs and two NICs a PCIe switch): a balanced
 * tree; channel 1 enters by gpu1 and goes back by gpu0, so down. */
Test(tree_chain, balanced_on_an_nvswitch_as_nccl_searches_it)
{
	static const unsigned want[8][8] = {
		{ 0, 1, 2, 3, 4, 5, 6, 7 }, { 1, 0, 7, 6, 5, 4, 3, 2 },
		{ 2, 3, 4, 5, 6, 7, 0, 1 }, { 3, 2, 1, 0, 7, 6, 5, 4 },
		{ 4, 5, 6, 7, 0, 1, 2, 3 }, { 5, 4, 3, 2, 1, 0, 7, 6 },
		{ 6, 7, 0, 1, 2, 3, 4, 5 }, { 7, 6, 5, 4, 3, 2, 1, 0 },
	};

	for (unsigned c = 0; c < 8; c++)
		expect_chain(CONFIG("validation/dgx-a100-8x200g.yaml"), 2, c, want[c], 1);
}

/* Before 2.19 NCCL's search did not try an NVSwitch's neighbours first:
 * from a second below the entry the chain goes on up from the entry
 * (NCCL 2.12.12's own search of DGX A100, 3 nodes: 1 0 2 3 4 5 6 7). */
Test(tree_chain, balanced_before_neighbours_first)
{
	static const unsigned ch1[8] = { 1, 0, 2, 3, 4, 5, 6, 7 }, ch3[8] = { 3, 2, 4, 5, 6, 7, 0, 1 };

	expect_release_chain(CONFIG("validation/dgx-a100-8x200g.yaml"), "2.12.12", 3, 1, ch1, 1);
	expect_release_chain(CONFIG("validation/dgx-a100-8x200g.yaml"), "2.12.12", 3, 3, ch3, 1);
}

/* A GPU and its NIC alone under each PCIe switch, on Hopper: NCCL falls
 * back to a simple tree, index order from the entry (the ring's layout
 * leaves from GPU 3 on channel 0: 0 1 2 4 5 6 7 3). */
Test(tree_chain, simple_tree_in_index_order)
{
	static const unsigned ch0[8] = { 0, 1, 2, 3, 4, 5, 6, 7 },
			      ch4[8] = { 4, 5, 6, 7, 0, 1, 2, 3 };

	expect_chain(CONFIG("validation/h100-nic-per-gpu.yaml"), 2, 0, ch0, 0);
	expect_chain(CONFIG("validation/h100-nic-per-gpu.yaml"), 2, 4, ch4, 0);
}

/* ABCI's four V100, every pair wired alike (two NVLinks): as on an
 * NVSwitch, 0 1 2 3 and 2 3 0 1. */
Test(tree_chain, a_mesh_wired_alike)
{
	static const unsigned ch0[4] = { 0, 1, 2, 3 }, ch1[4] = { 2, 3, 0, 1 };

	expect_chain(CONFIG("validation/abci-v100-2xedr.yaml"), 3, 0, ch0, 1);
	expect_chain(CONFIG("validation/abci-v100-2xedr.yaml"), 3, 1, ch1, 1);
}

/* DGX-1's hybrid cube mesh: the chain stays along the pairs the search
 * ordered, its exit (gpu1, by NIC 0) last. */
Test(tree_chain, a_mesh_keeps_its_pairs)
{
	static const unsigned ch0[8] = { 0, 3, 2, 6, 7, 4, 5, 1 };

	expect_chain(CONFIG("validation/dgx1-v100-4xedr.yaml"), 2, 0, ch0, 7);
}
