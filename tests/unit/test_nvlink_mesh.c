/* SPDX-License-Identifier: MIT */
/*
 * NVLink meshes wired pair by pair (topology `pairs`): data between two
 * GPUs goes over their own pair's links, through a GPU wired to both
 * (NCCL's PATH_NVB), or over PCIe; NCCL's search lays channels along the
 * pairs. Expectations from the wiring by hand, and from NCCL's own
 * search.cc (tools/nccl-oracle/search.sh) where a graph is NCCL's.
 *
 * tests/data/nvlink-pairs.yaml: gpu0 = gpu1 by 2 links of 20 GB/s, gpu1 -
 * gpu2 by 1, gpu3 on PCIe alone at 10 GB/s. A 64 MiB send takes bytes /
 * bandwidth plus a few microseconds of hops, so the times of one pair
 * and another stand in the ratio of their bandwidths within 2%.
 */
#include <math.h>
#include <stdio.h>

#include "channels.h"
#include "tuned_helpers.h"

#define TOL 0.02

/* A 64 MiB send from GPU @src to GPU @dst of nvlink-pairs, in us. */
static double send_us(unsigned src, unsigned dst)
{
	struct plan_options o;
	struct run r;
	char line[160];
	double us;

	plan_options_default(&o);
	snprintf(line, sizeof(line),
		 "{\"iteration\":0,\"op\":\"sendrecv\",\"bytes\":67108864,"
		 "\"dtype\":\"fp32\",\"src\":%u,\"dst\":%u}\n",
		 src, dst);
	run_trace(&r, "analytic", DATA("nvlink-pairs.yaml"), line, &o);
	us = r.rec.coll[0].time_us;
	run_destroy(&r);
	return us;
}

/* 40 GB/s on the 2-link pair, 20 on the 1-link one, 20 through gpu1
 * (its 1-link pair binds), 10 over PCIe for gpu3. */
Test(nvlink_mesh, a_send_takes_its_pairs_links)
{
	double pair2 = send_us(0, 1);

	assert_rel(pair2, 67108864 / 40e9 * 1e6, TOL);
	assert_rel(send_us(1, 2) / pair2, 2, TOL);
	assert_rel(send_us(2, 1) / pair2, 2, TOL);
	assert_rel(send_us(0, 2) / pair2, 2, TOL);
	assert_rel(send_us(0, 3) / pair2, 4, TOL);
	assert_rel(send_us(3, 2) / pair2, 4, TOL);
}

/* The ways NCCL's paths.cc finds between the GPUs of nvlink-pairs. */
Test(nvlink_mesh, ways_between_gpus)
{
	struct topology t;
	struct diag d = { "" };
	unsigned via = 99;

	cr_assert_eq(topology_load(DATA("nvlink-pairs.yaml"), &t, &d), 0, "%s", d.msg);
	cr_expect_eq(topo_nvlink_way(&t, 0, 1, &via), TOPO_NVLINK_DIRECT);
	cr_expect_eq(topo_nvlink_way(&t, 2, 1, &via), TOPO_NVLINK_DIRECT);
	cr_expect_eq(topo_nvlink_way(&t, 0, 2, &via), TOPO_NVLINK_VIA);
	cr_expect_eq(via, 1);
	cr_expect_eq(topo_nvlink_way(&t, 3, 0, &via), TOPO_NVLINK_NONE);
	cr_expect_eq(topo_nvlink_way(&t, 1, 3, &via), TOPO_NVLINK_NONE);
}

static const unsigned identity[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };

/*
 * One DGX-1: each V100 has 6 NVLinks at NCCL's 20 GB/s, 120 GB/s out, and
 * the mesh holds two rings of 8 (NV2 pairs 0-3-2-1-5-6-7-4, NV1 pairs
 * 0-1-3-7-5-4-6-2), each usable both ways: the ring search fills every
 * link, 120 GB/s of channels, each hop over a pair (typeIntra NVL).
 */
Test(nvlink_mesh, dgx1_rings_fill_every_link)
{
	struct tuned x;

	tuned_release(&x, CONFIG("validation/dgx1-v100-4xedr.yaml"), 1, "2.30.7");
	cr_expect(x.t.ch.ring.nvlink);
	cr_expect_float_eq(x.t.ch.ring.nchannels * x.t.ch.ring.bw_intra, 120.0, 1e-9);
	for (unsigned c = 0; c < x.t.ch.ring.nchannels; c++) {
		struct channel_layout l;

		channels_layout(x.plan.nccl, &x.topo, identity, 8, c, false, &l);
		for (unsigned k = 0; k < 8; k++)
			cr_expect_gt(topo_pair_links(&x.topo, l.order[k], l.order[(k + 1) % 8]), 0,
				     "channel %u: gpu%u -> gpu%u is no pair", c, l.order[k],
				     l.order[(k + 1) % 8]);
	}
	tuned_destroy(&x);
}

/*
 * Two DGX-1s: a tree's chain inside a node goes from the GPU the network
 * enters by through all 8 and must cross a 1-link pair (the NV2 pairs
 * are one ring, on which 0 and 1 are not neighbours), so its bwIntra
 * stops at 20 GB/s under 2.30.7's speeds and 21 under 2.8.4's, as NCCL's
 * own search.cc of those releases finds on this node (search.sh); with
 * NVLink counted per GPU, before the pairs, it was 24.
 */
Test(nvlink_mesh, dgx1_tree_chain_crosses_a_single_link)
{
	struct tuned x;

	tuned_release(&x, CONFIG("validation/dgx1-v100-4xedr.yaml"), 2, "2.30.7");
	cr_expect_float_eq(x.t.ch.tree.bw_intra, 20.0, 1e-9);
	cr_expect_eq(x.t.ch.ring.nchannels, 4);
	cr_expect_float_eq(x.t.ch.ring.bw_inter, 12.0, 1e-9);
	tuned_destroy(&x);
	tuned_release(&x, CONFIG("validation/dgx1-v100-4xedr.yaml"), 2, "2.8.4");
	cr_expect_float_eq(x.t.ch.tree.bw_intra, 21.0, 1e-9);
	tuned_destroy(&x);
}

/*
 * nvlink-pairs' ring: gpu3 has no NVLink, so the best ring crosses PCIe
 * into and out of it and NVLink for the rest (0-1-2-3: two PCIe hops, no
 * hop through a GPU between); typeIntra is then PCIe's, and NCCL leaves
 * LL128 off (tuning.cc: typeIntra <= PATH_NVB).
 */
Test(nvlink_mesh, ring_crosses_pcie_only_where_it_must)
{
	struct tuned x;

	tuned_release(&x, DATA("nvlink-pairs.yaml"), 1, "2.30.7");
	cr_expect(!x.t.ch.ring.nvlink);
	cr_expect(!x.t.ch.ring.nvb);
	for (unsigned c = 0; c < x.t.ch.ring.nchannels; c++) {
		struct channel_layout l;
		unsigned pcie = 0, via = 0, v;

		channels_layout(x.plan.nccl, &x.topo, identity, 4, c, false, &l);
		for (unsigned k = 0; k < 4; k++) {
			enum topo_nvlink_way w =
			    topo_nvlink_way(&x.topo, l.order[k], l.order[(k + 1) % 4], &v);

			pcie += w == TOPO_NVLINK_NONE;
			via += w == TOPO_NVLINK_VIA;
		}
		cr_expect_eq(pcie, 2, "channel %u", c);
		cr_expect_eq(via, 0, "channel %u", c);
	}
	cr_expect_lt(entry(&x, ALGO_RING, PROTO_LL128, 1 << 20), 0);
	tuned_destroy(&x);
}

/*
 * configs/h100-nvl-pcie-pairs.yaml: 8 H100 NVL, a bridge within each pair,
 * PCIe Gen5 x16 links (50.4 GB/s a direction at the loader's 0.8) between
 * pairs. A ring over all 8 crosses PCIe between the pairs, so each GPU's
 * link carries the ring's bytes once each way and binds: a 2 GiB
 * all-reduce's bus bandwidth is the link's, 2 (n - 1) / n x S / T = 50.4
 * GB/s, T = 1.75 x 2 GiB / 50.4 GB/s = 74.56 ms, where NVLink alone (the
 * same node on NVSwitch) would take the ring past 247 GB/s.
 */
Test(nvlink_mesh, bridged_pairs_bind_at_pcie)
{
	struct plan_options o;
	struct run r;
	static const char line[] =
		"{\"iteration\":0,\"op\":\"allreduce\",\"bytes\":2147483648,\"dtype\":\"fp32\"}\n";

	plan_options_default(&o);
	o.nodes = 1;
	run_trace(&r, "analytic", CONFIG("h100-nvl-pcie-pairs.yaml"), line, &o);
	assert_rel(r.rec.coll[0].time_us, 1.75 * 2147483648.0 / 50.4e9 * 1e6, 0.01);
	run_destroy(&r);
}

/*
 * Two h100-nvl-pcie-pairs nodes: any ring through the 8 GPUs crosses the
 * sockets, so its typeIntra is SYS and, since NCCL widens typeIntra no
 * further than typeInter across nodes (search.cc), its typeInter is SYS
 * too: the ring may leave by a GPU across the sockets from its NIC. Of
 * the orders from GPU 0 (NIC 0's), PCI order 0..7 crosses the fewest
 * links, 24 (NIC 0 -> 0: 2; the bridges 0-1, 2-3, 4-5, 6-7: 1 each; 1 -> 2
 * and 5 -> 6 through a root complex: 4 each; 3 -> 4 across the sockets:
 * 5; 7 -> NIC 0 across them again: 5), where leaving by GPU 1 beside the
 * NIC costs a bridge (0 -> 2 ... 7 -> 1: 25). One channel at 15 GB/s (NCCL
 * counts the link between two AMD sockets at 16). NCCL 2.30.7's own search
 * on this node (tools/nccl-oracle/search.sh, ORACLE_GRAPHS=1): "NET 0 -> 0
 * 1 2 3 4 5 6 7 -> NET 0", 1 channel at 15/15, typeIntra and typeInter
 * SYS.
 */
Test(nvlink_mesh, bridged_pairs_ring_leaves_across_the_sockets)
{
	struct tuned x;
	struct channel_layout l;

	tuned_release(&x, CONFIG("h100-nvl-pcie-pairs.yaml"), 2, "2.30.7");
	cr_expect_eq(x.t.ch.ring.nchannels, 1);
	cr_expect_float_eq(x.t.ch.ring.bw_inter, 15.0, 1e-9);
	cr_expect_eq(x.t.ch.ring.type_inter, TOPO_PATH_SYS);
	cr_expect(!x.t.ch.ring.nvlink && !x.t.ch.ring.nvb);
	channels_layout(x.plan.nccl, &x.topo, identity, 8, 0, true, &l);
	channels_keep_nic(&x.t.ch.ring, &l);
	for (unsigned k = 0; k < 8; k++)
		cr_expect_eq(l.order[k], k, "position %u: gpu%u", k, l.order[k]);
	cr_expect_eq(l.nic_in, 0);
	cr_expect_eq(l.nic_out, 0);
	tuned_destroy(&x);
}
