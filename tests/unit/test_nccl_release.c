/* SPDX-License-Identifier: MIT */
/*
 * NCCL releases (engine/nccl_tuning.[ch]): the tuner and the timing of
 * NCCL 2.8.4 against its own source worked by hand (NVIDIA/nccl v2.8.4-1,
 * src/graph/tuning.cc, search.cc, enqueue.cc), beside 2.30.7's.
 *
 * tests/data/volta-nics-at-cpu.yaml on 2 nodes: 4 V100 a node over NVLink,
 * two EDR NICs (12.5 GB/s line rate) each on a CPU, PHB from every GPU.
 * At GDR level PXB the network is staged and LL128 is off. 2.8.4's ring
 * graph: its speeds 42, 30, 24, 21, 18, 15, 12, 10, 9: one channel a NIC
 * (in and out through it). The way out, GPU -> switch -> CPU -> NIC, is
 * PATH_PHB through an Intel root complex, whose PCI links search.cc's
 * followPath charges INTEL_P2P_OVERHEAD, 12/9 x the speed: 12 x 4/3 = 16
 * and 10 x 4/3 = 13.3 pass the Gen3 x16 link's 12.6 (NCCL's 12), 9 x 4/3
 * = 12 fits. 2 channels at 9, no duplication below 25 GB/s, so the
 * communicator has 4. An all-reduce over 8 ranks: nsteps = 14, of them
 * 2 (nNodes - 1) = 2 network steps, busBw = 2 x 9 = 18 GB/s, algbw =
 * busBw x 8/14.
 *
 *   Simple: lat = (8.4 + 12 x 3.4 + 2 x 9.6) x 1.9 ("plateau effect of
 *           ring", once nBytes >= nRanks / 16 x 65536) = 129.96 us,
 *           bw = 18 x 8/14 = 10.286 GB/s
 *   LL:     lat = 3.6 + 12 x 0.47 x 1.8 + 2 x 2.7 = 19.152 us,
 *           bw = min(39, 18 / 4) x 8/14 = 2.571 GB/s
 *   The tree graph: on 2 nodes 2.8.4 asks for NCCL_TOPO_PATTERN_TREE
 *           (init.cc:652), in and out through one GPU: its link carries
 *           the way out at 4/3 x the speed and an eighth of the way in
 *           (a NIC writing a Volta GPU, followPath): 9 x (4/3 + 1/8) =
 *           13.1 > 12.6, 7 x 35/24 = 10.2 fits; 2 channels at 7, bwIntra
 *           raised to 9, 10, 12, 15 (under 2 x 7).
 *   Tree LL: lat = 4.4 + 2 (3 x 0.52 x 1.8 + 1 x 5.0) = 20.016 us,
 *           bw = min(2 x 15 x .92, 2 x 18.5) / 3.8 x .5 = 3.632 GB/s,
 *           x .6 (treeCorrectionFactor at 64 KiB) = 2.179 GB/s
 *
 * 2.30.7 on the same machine: INTEL_P2P_OVERHEAD 6/5, so 10 x 6/5 = 12
 * fits: 2 channels at 10. Simple lat = (8.4 + 12 x max(3.4, 3 x 1.0 net
 * overhead) + 2 x 14) x 1.9 (Volta) = 146.68 us, bw 20 x 8/14; LL lat =
 * 6.6 + 12 x max(0.6, 1.0) + 2 x 2.7 = 24 us, bw = min(39, 20 / 2) x 8/14.
 */
#include <math.h>
#include <string.h>

#include "algo.h"
#include "p2p_policy.h"
#include "tuned_helpers.h"

#define KiB 1024ull
#define MiB (1024ull * 1024)

static unsigned release_index(const char *version)
{
	unsigned i = nccl_release_index(nccl_release_find(version));

	cr_assert_lt(i, nccl_release_count, "%s", version);
	return i;
}

static struct plan_options release_opts(const char *version, unsigned nodes,
					const char *algo, const char *proto)
{
	struct plan_options o;

	plan_options_default(&o);
	o.nccl = release_index(version);
	o.nodes = nodes;
	o.gdr_level = TOPO_PATH_PXB;
	o.algo = algo;
	o.proto = proto;
	return o;
}

static void tuned_init(struct tuned *x, const char *topo, const struct plan_options *o)
{
	tuned_init_opts(x, topo, o, TRACE_OP_ALLREDUCE);
}

Test(nccl_release, versions_by_name)
{
	cr_assert_eq(nccl_releases[0], nccl_release_newest());
	cr_assert_str_eq(nccl_release_newest()->version, "2.30.7");
	cr_assert_str_eq(nccl_release_find("2.8.4")->version, "2.8.4");
	cr_assert_eq(nccl_release_find("v2.8.4-1"), nccl_release_find("2.8.4"));
	cr_assert_null(nccl_release_find("2.8"));
	cr_assert_null(nccl_release_find("2.9.0"));
	cr_assert_null(nccl_release_find("2.12.1"));
	cr_assert_null(nccl_release_find(""));
	cr_assert_null(nccl_release_find(NULL));
	cr_assert_str_eq(nccl_release_list(), "2.30.7, 2.21.5, 2.19.3, 2.12.12, 2.8.4");
	cr_assert_eq(nccl_release_find("2.8.4")->default_gdr_level, TOPO_PATH_PXB);
	cr_assert_str_eq(nccl_release_find("2.19.3")->version, "2.19.3");
	cr_assert_eq(nccl_release_find("v2.19.3-1"), nccl_release_find("2.19.3"));
	cr_assert_eq(nccl_release_find("v2.12.12-1"), nccl_release_find("2.12.12"));
	cr_assert_eq(nccl_releases[1], nccl_release_find("2.21.5"), "newest first");
	cr_assert_eq(nccl_releases[2], nccl_release_find("2.19.3"));
	cr_assert_eq(nccl_releases[3], nccl_release_find("2.12.12"));
	for (size_t i = 1; i < nccl_release_count; i++)
		cr_assert_eq(nccl_releases[i]->default_gdr_level, TOPO_PATH_PXB, "%s",
			     nccl_releases[i]->version);
	cr_assert_eq(nccl_release_newest()->default_gdr_level, TOPO_PATH_P2C);
}

/* nccl-tests' "nccl-library=" codes to the tables that stand for them:
 * each table from its minor_from on, as its comment says why. */
Test(nccl_release, table_for_a_version_code)
{
	static const struct { unsigned code; const char *name, *table; } cases[] = {
		{ 2804, "2.8.4", "2.8.4" }, /* before 2.9: X*1000 + Y*100 + Z */
		{ 2503, "2.5.3", "2.8.4" },     /* before 2.7: the nearest, the oldest */
		{ 20909, "2.9.9", "2.8.4" },    /* 2.9's tuner is 2.8.4's */
		{ 21003, "2.10.3", "2.12.12" }, { 21204, "2.12.4", "2.12.12" },
		{ 21304, "2.13.4", "2.12.12" }, { 21605, "2.16.5", "2.12.12" },
		{ 21701, "2.17.1", "2.19.3" },  /* NVLS */
		{ 21806, "2.18.6", "2.19.3" },  { 22005, "2.20.5", "2.19.3" },
		{ 22105, "2.21.5", "2.21.5" },  { 22203, "2.22.3", "2.21.5" },
		{ 22403, "2.24.3", "2.21.5" },
		{ 22503, "2.25.3", "2.30.7" },  /* MAXCHANNELS 64, Blackwell */
		{ 22703, "2.27.3", "2.30.7" },  { 23007, "2.30.7", "2.30.7" },
	};
	char name[16];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct nccl_release *r = nccl_release_for_code(cases[i].code, name,
								     sizeof(name));

		cr_expect_str_eq(r->version, cases[i].table, "%u", cases[i].code);
		cr_expect_str_eq(name, cases[i].name);
	}
}

/* --nccl: a release from 2.7 takes the tables that stand for it, its own
 * minor kept; before 2.7 (no send and receive, no LL128 before 2.5, no
 * tree before 2.4) none does. 2.0's minor, 0, once read as "the table's
 * own". */
Test(nccl_release, asked_for_from_2_7)
{
	unsigned minor;

	cr_assert_null(nccl_release_for_version("2.6", &minor, NULL));
	cr_assert_null(nccl_release_for_version("2.0.5", &minor, NULL));
	cr_assert_str_eq(nccl_release_for_version("2.7.8", &minor, NULL)->version, "2.8.4");
	cr_assert_eq(minor, 7);
	cr_assert_str_eq(nccl_release_for_version("2.8.4", &minor, NULL)->version, "2.8.4");
	cr_assert_str_eq(nccl_release_for_version("2.9", &minor, NULL)->version, "2.8.4");
	cr_assert_eq(minor, 9);
}

/*
 * NCCL_NET_GDR_LEVEL=P2C before 2.27, which has no such level name
 * (topo.cc topoPathTypeStr, v2.26.2-1:26): ncclGetLevel matches nothing
 * and the default, PXB, holds (paths.cc v2.26.2-1:221-243, 418-420).
 * From 2.27, and on the table's own release, P2C is P2C.
 */
Test(nccl_release, gdr_level_p2c_unknown_before_2_27)
{
	struct plan_options o;
	unsigned minor;
	const struct nccl_release *r;

	plan_options_default(&o);
	o.gdr_level = TOPO_PATH_P2C;
	o.gdr_level_set = true;
	cr_expect_not(plan_options_gdr_level_unknown(&o), "the default release knows P2C");
	r = nccl_release_for_version("2.26.2", &minor, NULL);
	cr_assert_not_null(r);
	plan_options_set_nccl_release(&o, r, minor, NCCL_PATCH_LAST);
	cr_expect(plan_options_gdr_level_unknown(&o), "2.26 has no P2C");
	r = nccl_release_for_version("2.27.3", &minor, NULL);
	plan_options_set_nccl_release(&o, r, minor, NCCL_PATCH_LAST);
	cr_expect_not(plan_options_gdr_level_unknown(&o), "2.27 has P2C");
	r = nccl_release_for_version("2.21.5", &minor, NULL);
	plan_options_set_nccl_release(&o, r, minor, NCCL_PATCH_LAST);
	cr_expect(plan_options_gdr_level_unknown(&o), "2.21 has no P2C");
	o.gdr_level = TOPO_PATH_PXB;
	cr_expect_not(plan_options_gdr_level_unknown(&o), "PXB is known everywhere");
}

/*
 * What 2.12.12's tuner adds to a ring all-reduce's latency over 2.8.4's,
 * by hand: 2 nodes of 8 GPUs, 30 steps. 2.8.4 counts 2 (nNodes - 1) = 2
 * network steps at 9.6 us and 28 NVLink ones at 3.4; 2.12 counts 2 nNodes
 * = 4 at 28 and 26 at 3.4: (112 + 88.4) - (19.2 + 95.2) = 86 us, x 1.9
 * past the plateau, 163.4 us. Bandwidths alike (A100's rows, Ring/Simple
 * on the same graph). The timing's network hop stays 9.6.
 */
Test(nccl_release, v2_12_12_ring_network_steps_and_hop)
{
	const struct nccl_release *r = nccl_release_find("2.12.12");
	struct tuned a, b;
	struct tune_choice ca, cb;
	struct plan_options o;

	cr_assert_not_null(r);
	cr_expect_float_eq(nccl_hw_latency(r, HOP_NET, ALGO_RING, PROTO_SIMPLE), 28.0, 1e-12);
	cr_expect_float_eq(nccl_hop_latency(r, HOP_NET, ALGO_RING, PROTO_SIMPLE), 9.6, 1e-12);
	cr_expect_float_eq(nccl_hop_latency(r, HOP_NET, ALGO_RING, PROTO_LL), 2.7, 1e-12);
	cr_expect(r->pxn);
	cr_expect_not(r->nvls);
	o = release_opts("2.12.12", 2, "ring", "simple");
	tuned_init(&a, CONFIG("a100-pcie4-200g.yaml"), &o);
	o = release_opts("2.8.4", 2, "ring", "simple");
	tuned_init(&b, CONFIG("a100-pcie4-200g.yaml"), &o);
	cr_assert_eq(a.t.ch.ring.nchannels, b.t.ch.ring.nchannels);
	cr_assert_float_eq(a.t.ch.ring.bw_inter, b.t.ch.ring.bw_inter, 1e-12);
	ca = choose(&a, 128 * MiB);
	cb = choose(&b, 128 * MiB);
	cr_assert_eq(ca.algo, ALGO_RING);
	cr_expect_float_eq(ca.estimate_us - cb.estimate_us, 1.9 * 86.0, 1e-6);
	tuned_destroy(&a);
	tuned_destroy(&b);
}

/* tests/data/volta-nics-at-cpu.yaml on 2 nodes under NCCL @version, and
 * the ring graph this file's header works out: 2 channels at @speed GB/s
 * (2.8.4: 9, 2.19.3: 10), the communicator 4. */
static void volta_ring_graph(struct tuned *x, const char *version, double speed)
{
	struct plan_options o = release_opts(version, 2, NULL, NULL);

	tuned_init(x, DATA("volta-nics-at-cpu.yaml"), &o);
	cr_assert_eq(x->t.ch.ring.nchannels, 2);
	assert_rel(x->t.ch.ring.bw_inter, speed, 1e-9);
	cr_assert_eq(x->t.ch.comm_channels, 4);
}

Test(nccl_release, v2_8_4_ring_graph_and_simple_estimate)
{
	struct plan_options o;
	struct tuned x;
	struct tune_choice c;
	char why[200];

	volta_ring_graph(&x, "2.8.4", 9.0);
	cr_assert_not(x.t.net_gdr);
	cr_assert_eq(x.t.ch.tree.pattern, NCCL_PATTERN_TREE);
	assert_rel(x.t.ch.tree.bw_inter, 7.0, 1e-9);
	assert_rel(x.t.ch.tree.bw_intra, 15.0, 1e-9);
	c = choose(&x, 1 * MiB);
	cr_assert_eq(c.algo, ALGO_RING);
	cr_assert_eq(c.proto, PROTO_SIMPLE, "LL128 is off at PHB");
	assert_rel(c.estimate_us, 129.96 + 1048576 / (1000 * 18 * 8.0 / 14), 1e-6);
	tuned_destroy(&x);

	/* 2.30.7 gives the ring's LL half, not a quarter: 24 + 1 MiB /
	 * 5.714 GB/s = 207.5 us, under its Simple's 238.4; the tree at its
	 * graph's raised 20 GB/s (2 x 20 x .92 = 36.8, under the cap of 2 x
	 * 18.5), with 2.30.7's Tree/Simple hops (4 us NVLink, 14 network) and
	 * treeCorrectionFactor .5 at 1 MiB: 8.4 + 2 (3 x 4 + 14) + 1 MiB /
	 * (36.8 x .5 x .5 GB/s) = 174.4 us, less still. */
	o = release_opts("2.30.7", 2, NULL, NULL);
	tuned_init(&x, DATA("volta-nics-at-cpu.yaml"), &o);
	c = choose(&x, 1 * MiB);
	cr_assert_eq(c.algo, ALGO_TREE);
	cr_assert_eq(c.proto, PROTO_SIMPLE);
	assert_rel(c.estimate_us, 8.4 + 2 * (3 * 4 + 14) + 1048576 / (1000 * 36.8 * .5 * .5), 1e-6);
	assert_rel(tune_entry(&x.t, &x.e, ALGO_RING, PROTO_LL, 1 * MiB, why, sizeof(why)),
		   6.6 + 12 * 1.0 + 2 * 2.7 + 1048576 / (1000 * 10 * 8.0 / 14), 1e-6);
	assert_rel(tune_entry(&x.t, &x.e, ALGO_RING, PROTO_SIMPLE, 1 * MiB, why, sizeof(why)),
		   146.68 + 1048576 / (1000 * 20 * 8.0 / 14), 1e-6);
	tuned_destroy(&x);
}

/*
 * Beyond two nodes 2.8.4 asks for a balanced tree, which its search
 * splits before Ampere (search.cc:682): the network enters a channel's
 * first GPU and leaves from the second, near the same NIC. The way out
 * charges the second GPU's link 12/9 of the speed (PHB, Intel): 10 x 4/3
 * = 13.3 does not fit 12.6, 9 x 4/3 = 12 does; the first GPU's link the
 * NIC's writes and their eighth the other way. 2 channels at 9; pass 2
 * raises bwIntra 10, 12, 15, 18, under twice 9 no more.
 */
Test(nccl_release, v2_8_4_split_tree_beyond_two_nodes)
{
	struct plan_options o = release_opts("2.8.4", 3, NULL, NULL);
	struct tuned x;

	tuned_init(&x, DATA("volta-nics-at-cpu.yaml"), &o);
	cr_assert_eq(x.t.ch.tree.pattern, NCCL_PATTERN_SPLIT_TREE);
	cr_assert_eq(x.t.ch.tree.nchannels, 2);
	assert_rel(x.t.ch.tree.bw_inter, 9.0, 1e-9);
	assert_rel(x.t.ch.tree.bw_intra, 18.0, 1e-9);
	tuned_destroy(&x);
}

/*
 * Until 2.17 the tuner caps every algorithm's bus bandwidth at 235 GB/s on
 * Ampere (v2.8.4-1 tuning.cc:124, v2.12.12-1 :126; gone in 2.18.1): one
 * node of the A100 preset, whose ring graph gives 240 GB/s (12 NVLinks at
 * 20), estimates a 4 GiB Ring/Simple all-reduce at 8.4 + 14 x 3.4 us and
 * 4 GiB over 235 x 8/14 GB/s; 2.19.3 at 240 x 8/14. The timing moves the
 * bytes at the links' pace, the same under each.
 */
Test(nccl_release, ampere_bus_bandwidth_capped_until_2_17)
{
	static const struct { const char *version; double bus; } cases[] = {
		{ "2.8.4", 235 }, { "2.12.12", 235 }, { "2.19.3", 240 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct plan_options o = release_opts(cases[i].version, 1, "ring", "simple");
		struct tuned x;

		tuned_init(&x, CONFIG("a100-pcie4-200g.yaml"), &o);
		assert_rel(choose(&x, 4096 * MiB).estimate_us,
			   8.4 + 14 * 3.4 + 4096.0 * MiB / (1000 * cases[i].bus * 8 / 14), 1e-9);
		tuned_destroy(&x);
	}
}

/*
 * Under 64 B NCCL's treeCorrectionFactor index is log2i(nBytes >> 6) =
 * log2i(0), 0 before 2.22 (src/include/utils.h), so Simple takes .9;
 * 2.22 on returns -1 and corrects nothing. 8 nodes of ABCI under 2.12.12,
 * 32 B on Tree/Simple, by hand: 2 (3 x 28 + log2 8 x 28) = 336 us, and
 * the bytes at min(2 x 10 x .92, 2 x 10) x .5 x .9 = 8.28 GB/s (the
 * graph's 10 GB/s: INTEL_P2P_OVERHEAD, this file's header). (Found by
 * NCCL's own tuning.cc of each tag, compiled as an oracle: docs/validation.md.)
 */
Test(nccl_release, tree_correction_under_64_bytes)
{
	struct plan_options o = release_opts("2.12.12", 8, NULL, NULL);
	struct tuned x;
	char why[200];

	for (size_t i = 0; i < nccl_release_count; i++)
		cr_expect_float_eq(nccl_tree_correction(nccl_releases[i], PROTO_SIMPLE, 32),
				   nccl_releases[i] == nccl_release_newest() ? 1.0 : .9, 1e-12,
				   "%s", nccl_releases[i]->version);
	tuned_init(&x, CONFIG("validation/abci-v100-2xedr.yaml"), &o);
	assert_rel(tune_entry(&x.t, &x.e, ALGO_TREE, PROTO_SIMPLE, 32, why, sizeof(why)),
		   336 + 32 / (1000 * 18.4 * .5 * .9), 1e-12);
	tuned_destroy(&x);
}

/*
 * 2.30.7 converts a bus bandwidth to an algorithm bandwidth for
 * all-gather and reduce-scatter on the ring alone (tuning.cc:376-382): an
 * NVLS all-gather on one node of the H100 preset takes its bus bandwidth
 * as it is, 8 heads x 40 GB/s x nvlsEfficiency .85 x 7/8 (the channels
 * but one) x 7/8 ((ppn - 1) / ppn) = 208.25 GB/s, after NVLS's NVLink hop
 * of 25 us: 8 GiB in 41273.185 us, NCCL's own tuning.cc's figure (the
 * oracle of docs/validation.md), where x nRanks / nsteps gave 12.5% less.
 */
Test(nccl_release, nvls_all_gather_at_its_bus_bandwidth)
{
	struct plan_options o = release_opts("2.30.7", 1, NULL, NULL);
	struct tuned x;
	char why[200];

	tuned_init_opts(&x, CONFIG("h100-pcie5-400g.yaml"), &o, TRACE_OP_ALL_GATHER);
	assert_rel(tune_entry(&x.t, &x.e, ALGO_NVLS, PROTO_SIMPLE, 8192 * MiB, why, sizeof(why)),
		   25 + 8192.0 * MiB / (1000 * 8 * 40 * .85 * 7 / 8 * 7 / 8), 1e-9);
	tuned_destroy(&x);
}

/*
 * LL128 across nodes: up to PXB before 2.27, up to P2C (and PXN) on
 * Hopper and later from 2.27 (tuning.cc:520-522, NCCL_LL128_C2C): a
 * Grace Hopper node's GPU reaches its NIC over NVLink-C2C (P2C), so
 * 2.30.7 enables Ring/LL128 there and picks it at 2 MiB on 2 nodes, as
 * NCCL's own tuning.cc does; 2.21.5 (GDR level PXB: staged, PHB) does not.
 */
Test(nccl_release, ll128_over_c2c_from_2_27)
{
	struct plan_options o = release_opts("2.30.7", 2, NULL, NULL);
	struct tuned x;
	struct tune_choice c;
	char why[200];

	o.gdr_level = TOPO_PATH_P2C;
	tuned_init(&x, CONFIG("gh200-grace-hopper.yaml"), &o);
	cr_assert_eq(x.t.ch.ring.type_inter, TOPO_PATH_P2C);
	c = choose(&x, 2 * MiB);
	cr_expect_eq(c.algo, ALGO_RING);
	cr_expect_eq(c.proto, PROTO_LL128);
	tuned_destroy(&x);

	o = release_opts("2.21.5", 2, NULL, NULL);
	tuned_init(&x, CONFIG("gh200-grace-hopper.yaml"), &o);
	cr_expect_lt(tune_entry(&x.t, &x.e, ALGO_RING, PROTO_LL128, 2 * MiB, why, sizeof(why)), 0);
	tuned_destroy(&x);
}

/*
 * NCCL runs NVLS only for the types its NVLink SHARP reduces
 * (include/device.h ncclNvlsSupported: 32- and 64-bit integers and
 * floats, fp16, bf16), an all-gather aside (enqueue.cc, v2.30.7-1:425-426):
 * a trace's int8 (int8, uint8, fp8) all-reduce on one H100 node gets no
 * NVLS entry, its all-gather does, and bf16 keeps NVLS.
 */
Test(nccl_release, nvls_not_for_8_bit_reductions)
{
	struct plan_options o = release_opts("2.30.7", 1, NULL, NULL);
	struct tuned x;
	char why[200];

	tuned_init(&x, CONFIG("h100-pcie5-400g.yaml"), &o);
	x.t.dtype = TRACE_DTYPE_BF16;
	cr_expect_gt(tune_entry(&x.t, &x.e, ALGO_NVLS, PROTO_SIMPLE, 256 * MiB, why, sizeof(why)), 0);
	x.t.dtype = TRACE_DTYPE_INT8;
	cr_expect_lt(tune_entry(&x.t, &x.e, ALGO_NVLS, PROTO_SIMPLE, 256 * MiB, why, sizeof(why)), 0);
	cr_expect_not_null(strstr(why, "8-bit"), "%s", why);
	tuned_destroy(&x);

	tuned_init_opts(&x, CONFIG("h100-pcie5-400g.yaml"), &o, TRACE_OP_ALL_GATHER);
	x.t.dtype = TRACE_DTYPE_INT8;
	cr_expect_gt(tune_entry(&x.t, &x.e, ALGO_NVLS, PROTO_SIMPLE, 256 * MiB, why, sizeof(why)), 0);
	tuned_destroy(&x);
}

/* 2.8.4's ring LL gets a quarter of the graph's speed: it beats the tree
 * (at its simple tree's raised bwIntra, 15: 2 x 15 x .92, under the cap of
 * 2 x 18.5) and Simple at 64 KiB. */
Test(nccl_release, v2_8_4_ring_ll_is_a_quarter)
{
	struct plan_options o = release_opts("2.8.4", 2, NULL, NULL);
	struct tuned x;
	struct tune_choice c;
	char why[200];

	tuned_init(&x, DATA("volta-nics-at-cpu.yaml"), &o);
	c = choose(&x, 64 * KiB);
	cr_assert_eq(c.algo, ALGO_RING);
	cr_assert_eq(c.proto, PROTO_LL);
	assert_rel(c.estimate_us, 19.152 + 65536 / (1000 * 4.5 * 8.0 / 14), 1e-6);
	assert_rel(tune_entry(&x.t, &x.e, ALGO_TREE, PROTO_LL, 64 * KiB, why, sizeof(why)),
		   20.016 + 65536 / (1000 * fmin(2 * 15 * .92, 37) / 3.8 * .5 * .6), 1e-6);
	tuned_destroy(&x);
}

/* What 2.8.4 does not have: NVLS, PAT, CollNet, PXN. */
Test(nccl_release, v2_8_4_has_no_nvls_pat_or_pxn)
{
	struct plan_options o = release_opts("2.8.4", 2, NULL, NULL);
	struct tuned x;
	char why[200];

	o.gdr_level = TOPO_PATH_P2C;
	tuned_init(&x, CONFIG("h100-pcie5-400g.yaml"), &o);
	cr_assert_eq(x.t.ch.nvls.nchannels, 0);
	cr_assert_lt(tune_entry(&x.t, &x.e, ALGO_NVLS, PROTO_SIMPLE, 1 * MiB, why, sizeof(why)), 0);
	cr_assert_str_eq(why, "not in NCCL 2.8.4");
	cr_assert_lt(tune_entry(&x.t, &x.e, ALGO_PAT, PROTO_SIMPLE, 1 * MiB, why, sizeof(why)), 0);
	cr_assert_not(plan_uses_pxn(&x.plan));
	cr_assert_neq(choose(&x, 1 * MiB).proto, PROTO_LL128, "2.8.4: LL128 on sm70/sm80 only");
	tuned_destroy(&x);

	o = release_opts("2.30.7", 2, NULL, NULL);
	o.gdr_level = TOPO_PATH_P2C;
	tuned_init(&x, CONFIG("h100-pcie5-400g.yaml"), &o);
	cr_assert_gt(x.t.ch.nvls.nchannels, 0);
	cr_assert(plan_uses_pxn(&x.plan));
	tuned_destroy(&x);
}

/*
 * 2.8.4 shrinks a Simple tree's chunk by the tree's depth (enqueue.cc,
 * depth = nRanks/nNodes - 1 + log2(nNodes) = 3 + 3 at 8 nodes of 4): a
 * 4 MiB call on 4 channels halves 512 KiB while it has fewer than 48
 * chunks a channel, down to 128 KiB (not past 131072); then fewer than 24,
 * down to 64 KiB; 16 >= 6 stops it. 32 MiB keeps 128 KiB (64 >= 24).
 * 2.30.7 moves the whole slot, 512 KiB.
 */
Test(nccl_release, v2_8_4_tree_simple_chunk_by_depth)
{
	const struct algo_ops *tree = algo_table[ALGO_TREE];
	struct plan_options o = release_opts("2.8.4", 8, "tree", "simple");
	struct tuned x;

	tuned_init(&x, DATA("volta-nics-at-cpu.yaml"), &o);
	cr_assert_eq(x.plan.patterns[0].algo, ALGO_TREE);
	cr_assert_eq(tree->chunk(&x.plan, &x.plan.patterns[0], x.plan.patterns[0].pipes, 4 * MiB, 4), 64 * KiB);
	cr_assert_eq(tree->chunk(&x.plan, &x.plan.patterns[0], x.plan.patterns[0].pipes, 32 * MiB, 4), 128 * KiB);
	tuned_destroy(&x);

	o = release_opts("2.30.7", 8, "tree", "simple");
	tuned_init(&x, DATA("volta-nics-at-cpu.yaml"), &o);
	cr_assert_eq(tree->chunk(&x.plan, &x.plan.patterns[0], x.plan.patterns[0].pipes, 4 * MiB, 4), 512 * KiB);
	tuned_destroy(&x);
}

/*
 * The timing follows the release's LL: a 64 MiB all-reduce forced to
 * Ring/LL streams at NCCL's LL bus bandwidth spread over the 4 channels.
 * 2.8.4: 18 / 4 = 4.5 GB/s, 1.125 a channel, each connection moving 14/8
 * of its 16 MiB. 2.30.7: half of 20, 2.5 a channel: each NIC carries two
 * channels' LL lines, twice their payload, 10 GB/s, within its 100
 * Gbit/s x 0.95 = 11.875.
 */
Test(nccl_release, ll_streams_at_the_releases_share)
{
	const char line[] = "{\"iteration\":0,\"op\":\"allreduce\",\"bytes\":67108864,"
			    "\"dtype\":\"fp32\"}\n";
	double per_conn = 67108864.0 / 4 * 14 / 8;
	struct plan_options o = release_opts("2.8.4", 2, "ring", "ll");
	struct run r;

	run_trace(&r, "analytic", DATA("volta-nics-at-cpu.yaml"), line, &o);
	cr_assert_eq(r.rec.coll[0].nchannels, 4);
	assert_rel(r.rec.coll[0].time_us, per_conn / 1.125e9 * 1e6, 0.01);
	run_destroy(&r);

	o = release_opts("2.30.7", 2, "ring", "ll");
	run_trace(&r, "analytic", DATA("volta-nics-at-cpu.yaml"), line, &o);
	assert_rel(r.rec.coll[0].time_us, per_conn / 2.5e9 * 1e6, 0.01);
	run_destroy(&r);
}

/*
 * NCCL 2.19.3 (NVIDIA/nccl v2.19.3-1) on the same 2 nodes of 4 V100
 * (tests/data/volta-nics-at-cpu.yaml, GDR level PXB, Intel CPUs). The ring
 * graph: speedArrayInter 48, 30, 28, 24, 20, 18, 15, 12, 10 (search.cc):
 * one channel a NIC at 10, INTEL_P2P_OVERHEAD 6/5 on the way out through
 * the root complex (12 x 6/5 = 14.4 > 12.6, 10 x 6/5 = 12), 2 channels;
 * bwIntra 10 < 25: no duplication (ncclTopoDupChannels); connect.cc
 * doubles: 4. All-reduce over 8 ranks: nsteps = 2 x 7 = 14, of them
 * nInterSteps = 2 x nNodes = 4 network steps (2.19.3's tuning.cc; 2.8.4
 * and 2.30.7 count 2 (nNodes - 1) = 2); busBw = nChannels x bwIntra
 * (nNodes <= 2) = 20 GB/s.
 *
 *   Ring/Simple: baseLat 8.4 + 10 x max(hwLat NVLink 3.4, 3 x 1.0
 *           getNetOverhead) + 4 x hwLat NET 14.0 = 98.4 us; plateau
 *           (minCompCap 70 < 80, 1 MiB / (4 x 8) >= 64): x 1.9 = 186.96;
 *           bw = 20 x 8/14 = 11.429 GB/s
 *   Ring/LL: 6.6 + 10 x max(0.6, 1.0) + 4 x 2.7 = 27.4 us,
 *           bw = min(llMaxBw 39, 20 x 1/4) x 8/14 = 2.857 GB/s
 *           (2.8.4's quarter)
 *   The tree graph: a balanced tree, each channel back to its NIC half
 *           from its first GPU and half from the second: 10 x 6/5 / 2 =
 *           6 on each one's link (and 10 / 8 the other way on the first,
 *           which the NIC writes), so the ring's 2 channels at 10; its
 *           bwIntra raised by the search's pass 2 while under twice
 *           that: 12, 15, 18, 20 (each chain's 3 NVLink hops fit), so
 *           on 2 nodes the tree's busBw is min(2 x 20 x .92, 2 x 18.5) =
 *           36.8 (perChMaxTreeBw, Volta, 2 nodes, does not bind).
 *   Tree/LL: 6.8 + 2 (3 x 0.6 + 1 x 5.0) = 20.4 us,
 *           bw = min(36.8 / 3.8, 39) x .5 = 4.842,
 *           x .6 (treeCorrectionFactor at 64 KiB)
 *   Tree/Simple: 0 + 2 (3 x 28 + 1 x 28) = 224 us, bw = 36.8 x .5 =
 *           18.4, x .5 (treeCorrectionFactor at 1 MiB)
 *
 * At 1 MiB Ring/Simple wins: 186.96 + 1048576 / 11428.6 = 278.71 us
 * (Ring/LL 394.4, Tree/Simple 224 + 1048576 / 9200 = 338.0); at 64 KiB
 * Tree/LL (43.0 us; Ring/LL 50.3).
 */
Test(nccl_release, v2_19_3_estimates_by_hand)
{
	struct tuned x;
	struct tune_choice c;
	char why[200];

	volta_ring_graph(&x, "2.19.3", 10.0);
	c = choose(&x, 1 * MiB);
	cr_assert_eq(c.algo, ALGO_RING);
	cr_assert_eq(c.proto, PROTO_SIMPLE);
	assert_rel(c.estimate_us, 186.96 + 1048576 / (1000 * 20 * 8.0 / 14), 1e-6);
	assert_rel(tune_entry(&x.t, &x.e, ALGO_RING, PROTO_LL, 1 * MiB, why, sizeof(why)),
		   27.4 + 1048576 / (1000 * 5 * 8.0 / 14), 1e-6);
	cr_assert_eq(x.t.ch.tree.nchannels, 2);
	assert_rel(x.t.ch.tree.bw_inter, 10.0, 1e-9);
	assert_rel(x.t.ch.tree.bw_intra, 20.0, 1e-9);
	cr_assert_eq(x.t.ch.tree.pattern, NCCL_PATTERN_BALANCED_TREE);
	assert_rel(tune_entry(&x.t, &x.e, ALGO_TREE, PROTO_LL, 64 * KiB, why, sizeof(why)),
		   20.4 + 65536 / (1000 * fmin(2 * 20 * .92, 37) / 3.8 * .5 * .6), 1e-6);
	assert_rel(tune_entry(&x.t, &x.e, ALGO_TREE, PROTO_SIMPLE, 1 * MiB, why, sizeof(why)),
		   224 + 1048576 / (1000 * fmin(2 * 20 * .92, 37) * .5 * .5), 1e-6);
	c = choose(&x, 64 * KiB);
	cr_assert_eq(c.algo, ALGO_TREE);
	cr_assert_eq(c.proto, PROTO_LL);
	tuned_destroy(&x);
}

/*
 * 2.21.5 (v2.21.5-1; 2.22 alike) on the 2.19.3 case above: the same
 * latencies, but Ring/LL at half the graph's speed (tuning.cc:180), so at
 * 64 KiB 27.4 + 65536 / (min(39, 20 x 1/2) x 8/14 GB/s) us; a Simple
 * tree's chunk the whole 512 KiB slot at any depth (enqueue.cc
 * computeCollChunkInfo, 2.20 on: 2.19.3 halves it to 64 KiB for 4 MiB on
 * 8 nodes of 4, as 2.8.4 does); NVLS-tree's from nvlsChunkSize, 128 KiB
 * (2.19.3: from the 512 KiB step, 256 KiB for 1 GiB on 16 channels).
 */
/* The chunk the first pattern of @o's plan on @topo moves for @bytes. */
static uint64_t first_pattern_chunk(const struct plan_options *o, const char *topo,
				    uint64_t bytes, unsigned nch)
{
	struct tuned x;
	uint64_t chunk;

	tuned_init(&x, topo, o);
	chunk = algo_table[x.plan.patterns[0].algo]->chunk(&x.plan, &x.plan.patterns[0], x.plan.patterns[0].pipes,
							    bytes, nch);
	tuned_destroy(&x);
	return chunk;
}

Test(nccl_release, v2_21_5_ll_half_and_whole_tree_chunks)
{
	struct plan_options o = release_opts("2.21.5", 2, NULL, NULL);
	struct tuned x;
	char why[200];

	tuned_init(&x, DATA("volta-nics-at-cpu.yaml"), &o);
	assert_rel(tune_entry(&x.t, &x.e, ALGO_RING, PROTO_LL, 64 * KiB, why, sizeof(why)),
		   27.4 + 65536 / (1000 * 10 * 8.0 / 14), 1e-6);
	tuned_destroy(&x);

	o = release_opts("2.21.5", 8, "tree", "simple");
	cr_assert_eq(first_pattern_chunk(&o, DATA("volta-nics-at-cpu.yaml"), 4 * MiB, 4),
		     512 * KiB);
	o = release_opts("2.19.3", 8, "tree", "simple");
	cr_assert_eq(first_pattern_chunk(&o, DATA("volta-nics-at-cpu.yaml"), 4 * MiB, 4),
		     64 * KiB);
	o = release_opts("2.21.5", 2, "nvlstree", "simple");
	o.gdr_level = TOPO_PATH_P2C;
	cr_assert_eq(first_pattern_chunk(&o, CONFIG("h100-pcie5-400g.yaml"), 1024 * MiB, 16),
		     128 * KiB);
}

/* What sets 2.19.3 apart: PXN and NVLS (2.8.4 has neither), LL128 on
 * Hopper (case 90), no PAT (2.23), 2.8.4's ring LL share and tree chunk,
 * 2.30.7's plateau. */
Test(nccl_release, v2_19_3_has_pxn_and_nvls_not_pat)
{
	const struct nccl_release *r = nccl_release_find("2.19.3");
	struct plan_options o = release_opts("2.19.3", 2, NULL, NULL);
	struct tuned x;
	char why[200];

	cr_assert(r->pxn);
	cr_assert(r->nvls);
	cr_assert(r->has[ALGO_NVLS] && r->has[ALGO_NVLS_TREE] && r->has[ALGO_COLLNET_CHAIN]);
	cr_assert_not(r->has[ALGO_PAT]);
	cr_assert_float_eq(r->ring_ll_share, 0.25, 1e-12);
	cr_assert_float_eq(r->ring_ll_share_one_node, 1.0 / 3.0, 1e-12);
	cr_assert_float_eq(r->ring_ll128_one_ppn, 0.7, 1e-12);
	cr_assert(r->tree_simple_chunk_by_depth);
	cr_assert(r->ring_allreduce_inter_2n);
	cr_assert_not(nccl_release_newest()->ring_allreduce_inter_2n);
	cr_assert_float_eq(r->plateau[1], 1.4, 1e-12);
	cr_assert_float_eq(nccl_hw_latency(r, HOP_NVLINK, ALGO_NVLS, PROTO_SIMPLE), 23, 1e-12);
	cr_assert_float_eq(nccl_hw_latency(r, HOP_NET, ALGO_NVLS_TREE, PROTO_SIMPLE), 14, 1e-12);
	cr_assert_float_eq(nccl_ll_max_bw(r, TOPO_GPU_HOPPER, TOPO_CPU_INTEL, 1), 87.7, 1e-12);

	o.gdr_level = TOPO_PATH_P2C;
	tuned_init(&x, CONFIG("h100-pcie5-400g.yaml"), &o);
	cr_assert_gt(x.t.ch.nvls.nchannels, 0);
	cr_assert(plan_uses_pxn(&x.plan));
	tuned_destroy(&x);
	tuned_init_opts(&x, CONFIG("h100-pcie5-400g.yaml"), &o, TRACE_OP_ALL_GATHER);
	cr_assert_lt(tune_entry(&x.t, &x.e, ALGO_PAT, PROTO_SIMPLE, 1 * MiB, why, sizeof(why)), 0);
	cr_assert_str_eq(why, "not in NCCL 2.19.3");
	tuned_destroy(&x);

	/* Tree/Simple's chunk shrinks by depth, as 2.8.4's (see above) */
	o = release_opts("2.19.3", 8, "tree", "simple");
	tuned_init(&x, DATA("volta-nics-at-cpu.yaml"), &o);
	cr_assert_eq(algo_table[ALGO_TREE]->chunk(&x.plan, &x.plan.patterns[0], x.plan.patterns[0].pipes, 4 * MiB, 4),
		     64 * KiB);
	tuned_destroy(&x);
}

/*
 * NVLS-tree's chunk is its own, not NVLS's (enqueue.cc, v2.30.7-1:2276-2285,
 * v2.19.3-1:1369-1377). configs/h100-pcie5-400g.yaml: 8 GPUs a node, one
 * head each, 16 channels: 128 concurrent ops. 2.30.7 starts from
 * NCCL_NVLS_CHUNKSIZE, 128 KiB (64 KiB from 4 nodes); 64 MiB is not under
 * 4 x 128 x 128 KiB, so it keeps 128 KiB (NVLS's rule would cut it to 64:
 * under 64 x 128 x 128 KiB); 16 MiB is, 64 KiB, and not under 128 x 64
 * KiB; 4 MiB is, 32 KiB. 2.19.3 starts from the Simple step, 512 KiB:
 * 64 MiB is under 32 x 128 x 512 KiB (256 KiB) and 16 x 128 x 256 KiB
 * (128 KiB), not 4 x 128 x 128 KiB; 1 GiB stops at 256 KiB.
 */
Test(nccl_release, nvls_tree_chunk_by_release)
{
	const struct algo_ops *nt = algo_table[ALGO_NVLS_TREE];
	struct plan_options o = release_opts("2.30.7", 2, "nvlstree", "simple");
	struct tuned x;

	o.gdr_level = TOPO_PATH_P2C;
	tuned_init(&x, CONFIG("h100-pcie5-400g.yaml"), &o);
	cr_assert_eq(x.plan.patterns[0].algo, ALGO_NVLS_TREE);
	cr_assert_eq(nt->chunk(&x.plan, &x.plan.patterns[0], x.plan.patterns[0].pipes, 64 * MiB, 16), 128 * KiB);
	cr_assert_eq(nt->chunk(&x.plan, &x.plan.patterns[0], x.plan.patterns[0].pipes, 16 * MiB, 16), 64 * KiB);
	cr_assert_eq(nt->chunk(&x.plan, &x.plan.patterns[0], x.plan.patterns[0].pipes, 4 * MiB, 16), 32 * KiB);
	tuned_destroy(&x);

	o.nodes = 4;
	tuned_init(&x, CONFIG("h100-pcie5-400g.yaml"), &o);
	cr_assert_eq(nt->chunk(&x.plan, &x.plan.patterns[0], x.plan.patterns[0].pipes, 64 * MiB, 16), 64 * KiB);
	tuned_destroy(&x);

	o = release_opts("2.19.3", 2, "nvlstree", "simple");
	o.gdr_level = TOPO_PATH_P2C;
	tuned_init(&x, CONFIG("h100-pcie5-400g.yaml"), &o);
	cr_assert_eq(nt->chunk(&x.plan, &x.plan.patterns[0], x.plan.patterns[0].pipes, 64 * MiB, 16), 128 * KiB);
	cr_assert_eq(nt->chunk(&x.plan, &x.plan.patterns[0], x.plan.patterns[0].pipes, 1024 * MiB, 16), 256 * KiB);
	tuned_destroy(&x);
}

/*
 * Blackwell's NVLS channels and chunks (ncclNvlsTuning, v2.30.7-1
 * transport/nvls.cc:155-157, 164-245) on tests/data/b200-nvls.yaml: 8 B200
 * a node, NVLS graph of 8 heads, each head's NIC at PIX; comm->minNetBw is
 * the Gen5 x16 links on the way, 16 x 240 / 80 = 48 GB/s to NCCL
 * (topo.cc kvDictPciGen), under the 400 Gbit/s line rate's 50. 2.19.3 has
 * 16 NVLS channels whatever the GPU (nvls.cc:243).
 *
 *   1 node:  NVLS_NCHANNELS_SM100_NVL, 24 channels; chunk 128 KiB.
 *   2 nodes: NVLS_NCHANNELS_SM100, then ncclNvlsTreeSm100Tuning's first
 *            branch (2 nodes, 50 >= 48): 32 channels, tree max 128 KiB,
 *            64 KiB as ppn 8 <= 8, PIX <= PXB and 50 < 96; chunk 128 KiB,
 *            so NVLS-tree's chunk min(128, 64) = 64 KiB (enqueue.cc:2281).
 *            A 1 GiB call: 256 concurrent ops (32 channels x 8 heads);
 *            not under 1 x 256 x 64 KiB = 16 MiB, so it keeps 64 KiB
 *            (from Hopper's 128 KiB it would keep 128 KiB: not under
 *            4 x 256 x 128 KiB = 128 MiB).
 *   4 nodes: not 2 nodes, 50 < 96, 50 >= 48: 24 channels, tree max 128
 *            KiB, 64 KiB at PIX.
 *
 * The tuner's NVLS bandwidth is the graph's channels', not nvlsChannels
 * (tuning.cc:307-324 reads graphs[a]->nChannels): on one node bwIntra 80
 * (9 x 80 = 720 of 18 x 40.1 = 721.8 GB/s; 9 x 90 does not fit), bwInter
 * the top of the list, 90; a channel min(80 x .74 x 7/8 x 2 = 103.6, 90) =
 * 90, busBw 8 x 90 = 720, algbw x 8/14; latency NVLS's NVLink hwLat, 25.
 */
Test(nccl_release, nvls_channels_and_chunks_on_blackwell)
{
	const struct algo_ops *nt = algo_table[ALGO_NVLS_TREE];
	struct plan_options o = release_opts("2.30.7", 1, NULL, NULL);
	struct tuned x;
	struct tune_choice c;

	o.gdr_level = TOPO_PATH_P2C;
	tuned_init(&x, DATA("b200-nvls.yaml"), &o);
	cr_assert_eq(x.t.ch.nvls.nchannels, 8);
	assert_rel(x.t.ch.nvls.bw_intra, 80, 1e-9);
	assert_rel(x.t.ch.nvls.bw_inter, 90, 1e-9);
	cr_assert_eq(x.t.ch.nvls_channels, 24);
	cr_assert_eq(x.t.ch.nvls_chunk, 128 * KiB);
	c = choose(&x, 1024 * MiB);
	cr_assert_eq(c.algo, ALGO_NVLS, "%s", algo_name(c.algo));
	cr_assert_eq(c.nchannels, 24);
	assert_rel(c.estimate_us, 25 + 1024.0 * MiB / (1000 * 8 * 90 * 8.0 / 14), 1e-6);
	tuned_destroy(&x);

	o = release_opts("2.30.7", 2, "nvlstree", "simple");
	o.gdr_level = TOPO_PATH_P2C;
	tuned_init(&x, DATA("b200-nvls.yaml"), &o);
	assert_rel(x.t.ch.min_net_bw, 48, 1e-9);
	cr_assert_eq(x.t.ch.nvls.type_inter, TOPO_PATH_PIX);
	cr_assert_eq(x.t.ch.nvls_channels, 32);
	cr_assert_eq(x.t.ch.nvls_chunk, 128 * KiB);
	cr_assert_eq(x.t.ch.nvls_tree_chunk, 64 * KiB);
	cr_assert_eq(choose(&x, 64 * MiB).nchannels, 32);
	cr_assert_eq(x.plan.patterns[0].nchannels, 32);
	cr_assert_eq(nt->chunk(&x.plan, &x.plan.patterns[0], x.plan.patterns[0].pipes, 1024 * MiB, 32), 64 * KiB);
	tuned_destroy(&x);

	o.nodes = 4;
	tuned_init(&x, DATA("b200-nvls.yaml"), &o);
	cr_assert_eq(x.t.ch.nvls_channels, 24);
	cr_assert_eq(x.t.ch.nvls_tree_chunk, 64 * KiB);
	cr_assert_eq(choose(&x, 64 * MiB).nchannels, 24);
	tuned_destroy(&x);

	o = release_opts("2.19.3", 2, "nvlstree", "simple");
	o.gdr_level = TOPO_PATH_P2C;
	tuned_init(&x, DATA("b200-nvls.yaml"), &o);
	cr_assert_eq(x.t.ch.nvls_channels, 16);
	cr_assert_eq(x.t.ch.nvls_tree_chunk, 512 * KiB);
	tuned_destroy(&x);
}

/*
 * The same node with 800 Gbit/s NICs and PCIe Gen6 (a B300-like node):
 * comm->minNetBw is the Gen6 x16 links, 16 x 480 / 80 = 96 GB/s to NCCL,
 * under the 100 GB/s line rate. On 4 nodes ncclNvlsTreeSm100Tuning's
 * second branch (96 >= 96, ppn 8 <= 8): 24 channels, chunk and tree max
 * 256 KiB.
 * A 1 GiB call over 24 x 8 = 192 concurrent ops is under 32 x 192 x 256
 * KiB = 1.5 GiB, but 256 KiB is not above that cut's 256 KiB, and not
 * under 16 x 192 x 256 KiB = 768 MiB: 256 KiB (Hopper's rule: 64 KiB from
 * 4 nodes). On 2 nodes the first branch: 32 channels, tree max 128 KiB
 * (100 is not under 96).
 */
Test(nccl_release, nvls_tree_chunk_with_800g_nics_on_blackwell)
{
	static const struct topo_override b300[] = {
		{ "nics.rate", "800 Gbit/s" },
		{ "nics.link.gen", "6" },
		{ "gpus.link.gen", "6" },
		{ "switches.link.gen", "6" },
	};
	const struct algo_ops *nt = algo_table[ALGO_NVLS_TREE];
	struct plan_options o = release_opts("2.30.7", 4, "nvlstree", "simple");
	struct tuned x;

	o.gdr_level = TOPO_PATH_P2C;
	tuned_init_with(&x, DATA("b200-nvls.yaml"), b300, 4, &o, TRACE_OP_ALLREDUCE);
	assert_rel(x.t.ch.min_net_bw, 96, 1e-9);
	cr_assert_eq(x.t.ch.nvls_channels, 24);
	cr_assert_eq(x.t.ch.nvls_chunk, 256 * KiB);
	cr_assert_eq(x.t.ch.nvls_tree_chunk, 256 * KiB);
	cr_assert_eq(nt->chunk(&x.plan, &x.plan.patterns[0], x.plan.patterns[0].pipes, 1024 * MiB, 24), 256 * KiB);
	tuned_destroy(&x);

	o.nodes = 2;
	tuned_init_with(&x, DATA("b200-nvls.yaml"), b300, 4, &o, TRACE_OP_ALLREDUCE);
	cr_assert_eq(x.t.ch.nvls_channels, 32);
	cr_assert_eq(x.t.ch.nvls_tree_chunk, 128 * KiB);
	tuned_destroy(&x);
}

/*
 * NVLS-tree's trees over the NICs (connect.cc, v2.30.7-1:310-316): NCCL
 * puts channel c on tree c % 2 and spreads it over every head, so a NIC
 * carries half its bytes on each tree. gdrlab gives a channel one head:
 * on b200-nvls.yaml's 4 nodes, 24 channels over 8 NICs, NIC k has
 * channels k (tree 0), k + 8 (tree 1) and k + 16 (half on each): 1.5 / 24
 * = 1/16 of the bytes on each tree. A pipe's tree is told by its root,
 * where its chain's last hop up ends.
 */
Test(nccl_release, nvls_tree_halves_each_nic_over_the_trees)
{
	struct plan_options o = release_opts("2.30.7", 4, "nvlstree", "simple");
	double share[8][4] = { { 0 } };
	const struct plan_pattern *pat;
	struct tuned x;

	o.gdr_level = TOPO_PATH_P2C;
	tuned_init(&x, DATA("b200-nvls.yaml"), &o);
	pat = &x.plan.patterns[0];
	cr_assert_eq(pat->nchannels, 24);
	for (size_t i = 0; i < pat->npipes; i++) {
		const struct plan_pipe *pp = &pat->pipes[i];
		uint32_t net[16];
		unsigned n = 0, root;
		int nic;

		for (size_t k = 0; k < pp->nhops && n < 16; k++) {
			uint32_t ci = pat->hops[pp->first_hop + k];

			if (!pat->routes[pat->conns[ci].route].intra)
				net[n++] = ci;
		}
		cr_assert(n >= 2 && n % 2 == 0, "pipe %zu: %u network hops", i, n);
		nic = pat->routes[pat->conns[net[0]].route].nic_src;
		root = plan_node_of(&x.plan, pat->conns[net[n / 2 - 1]].dst_rank);
		cr_assert(nic >= 0 && nic < 8 && root < 4);
		share[nic][root] += pp->share;
	}
	for (unsigned k = 0; k < 8; k++) {
		double on[2] = { 0, 0 };
		unsigned roots = 0;

		for (unsigned r = 0; r < 4; r++)
			if (share[k][r] > 0)
				on[roots++ < 2 ? roots - 1 : 1] += share[k][r];
		cr_expect_eq(roots, 2, "NIC %u: %u roots", k, roots);
		assert_rel(on[0], 1.0 / 16, 1e-9);
		assert_rel(on[1], 1.0 / 16, 1e-9);
	}
	tuned_destroy(&x);
}

/*
 * 2.30.7's NVLS-tree estimate takes treeCorrectionFactor on Blackwell with
 * x86 CPUs (tuning.cc:643-646: logSize < 24, so up to 512 MiB, the
 * table's 24th entry .9 there). b200-nvls.yaml on 2 nodes: the NVLS graph
 * across nodes 8 heads at bwIntra = bwInter = 48 (80 would fit NVLink, 9 x
 * 80 = 720 of 721.8, but not a head's 50 GB/s NIC); a channel min(48 x
 * .74 x 7/8 x 2 = 62.16, 2 x 48, perChMaxNVLSTreeBw 96) = 62.16, algbw
 * 8 x 62.16 x 16/30 = 265.216 GB/s; latency 25 + 2 x log2(2) x 20.9 =
 * 66.8 us.
 *
 *   512 MiB (logSize 23): x .9;  64 MiB (logSize 20): x .8;  1 GiB: none.
 *
 * The same node with Arm CPUs, or Hopper (h100-pcie5-400g.yaml: 8 x
 * min(59.5, 96, 57.7) x 16/30), or 2.19.3, take none. 2.19.3 counts the
 * B200's NVLink at sm90's 20 GB/s a link (topo.h SM90_NVLINK_BW; it
 * predates Blackwell): 18 x 20 = 360, so NVLS's bwIntra is 40 (9 x 40).
 */
Test(nccl_release, nvls_tree_corrected_on_blackwell_x86)
{
	static const struct topo_override arm[] = { { "cpu_vendor", "arm" } };
	struct plan_options o = release_opts("2.30.7", 2, NULL, NULL);
	double algbw = 8 * 48 * .74 * 7 / 8 * 2 * 16 / 30;
	struct tuned x;

	o.gdr_level = TOPO_PATH_P2C;
	tuned_init(&x, DATA("b200-nvls.yaml"), &o);
	assert_rel(entry(&x, ALGO_NVLS_TREE, PROTO_SIMPLE, 512 * MiB),
		   66.8 + 512.0 * MiB / (1000 * algbw * .9), 1e-6);
	assert_rel(entry(&x, ALGO_NVLS_TREE, PROTO_SIMPLE, 64 * MiB),
		   66.8 + 64.0 * MiB / (1000 * algbw * .8), 1e-6);
	assert_rel(entry(&x, ALGO_NVLS_TREE, PROTO_SIMPLE, 1024 * MiB),
		   66.8 + 1024.0 * MiB / (1000 * algbw), 1e-6);
	tuned_destroy(&x);

	tuned_init_with(&x, DATA("b200-nvls.yaml"), arm, 1, &o, TRACE_OP_ALLREDUCE);
	assert_rel(entry(&x, ALGO_NVLS_TREE, PROTO_SIMPLE, 512 * MiB),
		   66.8 + 512.0 * MiB / (1000 * algbw), 1e-6);
	tuned_destroy(&x);

	tuned_init(&x, CONFIG("h100-pcie5-400g.yaml"), &o);
	assert_rel(entry(&x, ALGO_NVLS_TREE, PROTO_SIMPLE, 512 * MiB),
		   66.8 + 512.0 * MiB / (1000 * 8 * 57.7 * 16 / 30), 1e-6);
	tuned_destroy(&x);

	o = release_opts("2.19.3", 2, NULL, NULL);
	o.gdr_level = TOPO_PATH_P2C;
	tuned_init(&x, DATA("b200-nvls.yaml"), &o);
	assert_rel(entry(&x, ALGO_NVLS_TREE, PROTO_SIMPLE, 512 * MiB),
		   23 + 2 * 14 + 512.0 * MiB / (1000 * 8 * 40 * 5.0 / 6), 1e-6);
	tuned_destroy(&x);
}

/*
 * ncclNvlsTreeSm100Tuning's branches (v2.30.7-1 transport/nvls.cc:164-200)
 * and the fallbacks after it (:224, :228-229), figure by figure: channels,
 * NVLS's chunk, NVLS-tree's chunk.
 */
Test(nccl_release, nvls_sm100_tuning_branches)
{
	static const struct {
		enum topo_gpu_arch arch;
		unsigned nnodes, ppn;
		double bw;
		enum topo_path_type type;
		unsigned channels, chunk_k, tree_k;
	} want[] = {
		/* 2 nodes, NICs >= 48 GB/s: 32 channels */
		{ TOPO_GPU_BLACKWELL, 2, 4, 50, TOPO_PATH_PIX, 32, 256, 256 },
		{ TOPO_GPU_BLACKWELL, 2, 8, 50, TOPO_PATH_PIX, 32, 128, 64 },
		{ TOPO_GPU_BLACKWELL, 2, 8, 50, TOPO_PATH_PHB, 32, 128, 128 },
		{ TOPO_GPU_BLACKWELL, 2, 8, 100, TOPO_PATH_PXB, 32, 128, 128 },
		{ TOPO_GPU_BLACKWELL, 2, 16, 100, TOPO_PATH_SYS, 32, 128, 64 },
		/* else NICs >= 96 GB/s */
		{ TOPO_GPU_BLACKWELL, 4, 8, 100, TOPO_PATH_PIX, 24, 256, 256 },
		{ TOPO_GPU_BLACKWELL, 8, 16, 100, TOPO_PATH_PIX, 32, 128, 128 },
		{ TOPO_GPU_BLACKWELL, 8, 32, 100, TOPO_PATH_PIX, 32, 128, 64 },
		/* else NICs >= 48 GB/s */
		{ TOPO_GPU_BLACKWELL, 4, 8, 50, TOPO_PATH_PXB, 24, 128, 64 },
		{ TOPO_GPU_BLACKWELL, 3, 8, 50, TOPO_PATH_PHB, 24, 128, 128 },
		/* slower NICs: 32 channels, the tree's max falls back */
		{ TOPO_GPU_BLACKWELL, 2, 8, 25, TOPO_PATH_PIX, 32, 128, 128 },
		{ TOPO_GPU_BLACKWELL, 4, 8, 25, TOPO_PATH_PIX, 32, 128, 64 },
		/* one node: no tuning, 24 channels */
		{ TOPO_GPU_BLACKWELL, 1, 8, 0, TOPO_PATH_PIX, 24, 128, 128 },
		/* Hopper: 16 channels, 128 KiB, 64 KiB from 4 nodes */
		{ TOPO_GPU_HOPPER, 2, 8, 100, TOPO_PATH_PIX, 16, 128, 128 },
		{ TOPO_GPU_HOPPER, 4, 8, 100, TOPO_PATH_PIX, 16, 128, 64 },
	};
	const struct nccl_release *r = nccl_release_find("2.30.7");
	const struct nccl_release *old = nccl_release_find("2.19.3");
	struct nccl_nvls_tuning t;

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct nccl_nvls_comm c = { want[i].arch, want[i].nnodes, want[i].ppn,
					    want[i].bw, want[i].type };

		nccl_nvls_tuning(r, &c, &t);
		cr_expect_eq(t.channels, want[i].channels, "row %zu: %u", i, t.channels);
		cr_expect_eq(t.chunk, want[i].chunk_k * KiB, "row %zu", i);
		cr_expect_eq(t.tree_chunk, want[i].tree_k * KiB, "row %zu", i);
	}
	/* 2.19.3 on Blackwell: NCCL_NVLS_NCHANNELS' 16, NVLS 128 KiB
	 * (enqueue.cc:1360), the tree the Simple step or 64 KiB from 4 nodes */
	for (unsigned nodes = 1; nodes <= 4; nodes *= 2) {
		struct nccl_nvls_comm c = { TOPO_GPU_BLACKWELL, nodes, 8, 100, TOPO_PATH_PIX };

		nccl_nvls_tuning(old, &c, &t);
		cr_expect_eq(t.channels, 16);
		cr_expect_eq(t.chunk, 128 * KiB);
		cr_expect_eq(t.tree_chunk, (nodes >= 4 ? 64 : 512) * KiB);
	}
}

/*
 * 2.19.3's NVLS estimates (tuning.cc:175-176, 199, 239-243): busBw =
 * nChannels x min(bwIntra, bwInter), NVLS-tree's bwInter halved beyond 2
 * nodes, algbw 5/6 of it; latency NVLS's NVLink hwLat alone (23 us) on
 * one node, NVLS-tree's 23 + 2 log2(nNodes) x its network hwLat (14). The
 * graph is the search's (8 heads on h100-pcie5-400g.yaml); the timing's
 * NVLS efficiency stays the machine's 0.85 (route.c), which 2.19.3's
 * tuner leaves out.
 */
Test(nccl_release, v2_19_3_nvls_estimates_by_hand)
{
	struct plan_options o = release_opts("2.19.3", 1, NULL, NULL);
	const struct nccl_graph *g;
	struct tuned x;
	char why[200];

	o.gdr_level = TOPO_PATH_P2C;
	tuned_init(&x, CONFIG("h100-pcie5-400g.yaml"), &o);
	g = &x.t.ch.nvls;
	cr_assert_eq(g->nchannels, 8);
	assert_rel(tune_entry(&x.t, &x.e, ALGO_NVLS, PROTO_SIMPLE, 64 * MiB, why, sizeof(why)),
		   23 + 64.0 * MiB / (1000 * 8 * fmin(g->bw_intra, g->bw_inter) * 5 / 6), 1e-6);
	tuned_destroy(&x);

	for (unsigned nodes = 2; nodes <= 4; nodes += 2) {
		o.nodes = nodes;
		tuned_init(&x, CONFIG("h100-pcie5-400g.yaml"), &o);
		g = &x.t.ch.nvls;
		assert_rel(tune_entry(&x.t, &x.e, ALGO_NVLS_TREE, PROTO_SIMPLE, 64 * MiB, why,
				      sizeof(why)),
			   23 + 2 * (nodes == 2 ? 1 : 2) * 14 +
				   64.0 * MiB / (1000 * 8 *
						 fmin(g->bw_intra, g->bw_inter / (nodes > 2 ? 2 : 1)) *
						 5 / 6),
			   1e-6);
		tuned_destroy(&x);
	}
	cr_assert_float_eq(nccl_nvls_hw_efficiency(TOPO_GPU_HOPPER), 0.85, 1e-12);
}

/*
 * One GPU a node makes NCCL's tree graph NCCL_TOPO_PATTERN_TREE (all NIC
 * traffic through that GPU; search.cc), and from 2.19.3 on its tuner
 * takes .85 of the tree's bus bandwidth there (v2.19.3-1 tuning.cc:185,
 * v2.30.7-1 :336); 2.8.4 has no such line. tests/data/round-numbers.yaml
 * on 4 nodes, direct: one channel at the NIC's 10 GB/s, Ampere's
 * perChMaxTreeBw at 4 nodes 17.8 (2.19.3, 2.30.7) and 16.0 (2.8.4):
 *
 *   busBw = min(10 x .92, 17.8) x .85 = 7.82, algbw x .5 = 3.91 GB/s
 *   2.8.4: min(10 x .92, 16.0) = 9.2, algbw 4.6 GB/s
 *
 * From 512 MiB (log2(bytes / 64) >= 23) no treeCorrectionFactor applies,
 * so the time of the second 512 MiB is the bandwidth term alone.
 */
Test(nccl_release, tree_discounted_at_one_gpu_a_node)
{
	static const struct {
		const char *version;
		double algbw;
	} want[] = { { "2.30.7", 9.2 * .85 / 2 }, { "2.19.3", 9.2 * .85 / 2 }, { "2.8.4", 9.2 / 2 } };
	char why[200];

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct plan_options o = release_opts(want[i].version, 4, NULL, NULL);
		struct tuned x;
		double t1, t2;

		o.path = PLAN_PATH_DIRECT;
		tuned_init(&x, DATA("round-numbers.yaml"), &o);
		cr_assert_eq(x.t.ppn, 1);
		cr_assert_eq(x.t.ch.ring.nchannels, 1);
		t1 = tune_entry(&x.t, &x.e, ALGO_TREE, PROTO_SIMPLE, 512 * MiB, why, sizeof(why));
		t2 = tune_entry(&x.t, &x.e, ALGO_TREE, PROTO_SIMPLE, 1024 * MiB, why, sizeof(why));
		assert_rel(t2 - t1, 512.0 * MiB / (1000 * want[i].algbw), 1e-6);
		tuned_destroy(&x);
	}
}

/*
 * The link between two sockets, as each table's release counts it
 * (topo.cc ncclTopoGetInterCpuBw; the Intel class from CPUID,
 * ncclTopoAddCpu), by vendor and Intel class:
 * - v2.30.7-1 topo.h:27-30 BDW_QPI_BW 6, SKL_QPI_BW 10, SRP_QPI_BW 22,
 *   ERP_QPI_BW 40 (topo.cc:70-75, classes :748-751); :26 AMD_BW 16, :34
 *   ARM_BW 6;
 * - v2.21.5-1 topo.h:20 QPI_BW 6, :22 SKL_QPI_BW 10, :21 AMD_BW 16, :26
 *   ARM_BW 6; SKL every family 6 model from 0x55 (topo.cc:502), so
 *   Sapphire and Emerald Rapids at 10 (v2.19.3-1 the same: topo.h:20-26,
 *   topo.cc:470);
 * - v2.12.12-1 topo.h:19 QPI_WIDTH 6, :20 SKL_QPI_WIDTH 9, :24 ARM_WIDTH
 *   6, AMD LOC_WIDTH 5000 (topo.cc:62-79, classes :467); v2.8.4-1 the
 *   same (topo.h:20-25, topo.cc:392).
 * An Intel CPU of no given class is Skylake's.
 */
Test(nccl_release, inter_cpu_bw_by_intel_class)
{
	static const struct {
		const char *release;
		double bdw, skl, srp, erp, unset, amd, arm;
	} rows[] = {
		{ "2.30.7", 6, 10, 22, 40, 10, 16, 6 },
		{ "2.21.5", 6, 10, 10, 10, 10, 16, 6 },
		{ "2.19.3", 6, 10, 10, 10, 10, 16, 6 },
		{ "2.12.12", 6, 9, 9, 9, 9, 5000, 6 },
		{ "2.8.4", 6, 9, 9, 9, 9, 5000, 6 },
	};
	struct topology t = { .cpu_vendor = TOPO_CPU_INTEL };

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct nccl_release *r = nccl_release_find(rows[i].release);
		const double intel[TOPO_CPU_MODEL_COUNT] = {
			[TOPO_CPU_MODEL_UNSET] = rows[i].unset,
			[TOPO_CPU_MODEL_BROADWELL] = rows[i].bdw,
			[TOPO_CPU_MODEL_SKYLAKE] = rows[i].skl,
			[TOPO_CPU_MODEL_SAPPHIRE_RAPIDS] = rows[i].srp,
			[TOPO_CPU_MODEL_EMERALD_RAPIDS] = rows[i].erp,
		};

		cr_assert_not_null(r);
		t.cpu_vendor = TOPO_CPU_INTEL;
		for (unsigned m = 0; m < TOPO_CPU_MODEL_COUNT; m++) {
			t.cpu_model = m;
			cr_expect_eq(nccl_inter_cpu_bw(r, &t), intel[m], "%s %s: %g",
				     rows[i].release, topo_cpu_model_name(m), nccl_inter_cpu_bw(r, &t));
		}
		t.cpu_model = TOPO_CPU_MODEL_UNSET;
		t.cpu_vendor = TOPO_CPU_AMD;
		cr_expect_eq(nccl_inter_cpu_bw(r, &t), rows[i].amd, "%s amd", rows[i].release);
		t.cpu_vendor = TOPO_CPU_ARM;
		cr_expect_eq(nccl_inter_cpu_bw(r, &t), rows[i].arm, "%s arm", rows[i].release);
	}
}

/* 2.8.4 copies peer to peer up to PXB on Broadwell, PHB on later Intel
 * CPUs (v2.8.4-1 paths.cc:282-285); 2.12 on, Intel's rule is PXB
 * whatever the class (v2.12.12-1 ncclTopoCheckP2p). */
Test(nccl_release, v2_8_4_p2p_level_pxb_on_broadwell)
{
	struct topology t = { .cpu_vendor = TOPO_CPU_INTEL };
	const struct nccl_release *old = nccl_release_find("2.8.4");

	cr_expect_eq(p2p_release_level(old, &t, 8), TOPO_PATH_PHB);
	t.cpu_model = TOPO_CPU_MODEL_SKYLAKE;
	cr_expect_eq(p2p_release_level(old, &t, 8), TOPO_PATH_PHB);
	t.cpu_model = TOPO_CPU_MODEL_BROADWELL;
	cr_expect_eq(p2p_release_level(old, &t, 8), TOPO_PATH_PXB);
	cr_expect_eq(p2p_release_level(nccl_release_find("2.12.12"), &t, 8), TOPO_PATH_PXB);
	t.cpu_model = TOPO_CPU_MODEL_SAPPHIRE_RAPIDS;
	cr_expect_eq(p2p_release_level(nccl_release_find("2.12.12"), &t, 8), TOPO_PATH_PXB);
}

/* --nccl @version: the tables that stand for it and its minor and patch,
 * as the command line sets them. */
static struct plan_options asked_opts(const char *version, unsigned nodes)
{
	struct plan_options o;
	unsigned minor, patch;
	const struct nccl_release *r = nccl_release_for_version(version, &minor, &patch);

	cr_assert_not_null(r, "%s", version);
	plan_options_default(&o);
	plan_options_set_nccl_release(&o, r, minor, patch);
	o.nodes = nodes;
	return o;
}

/* nccl_release_exact of the release @version names. */
static void asked_release(const char *version, struct nccl_release *out)
{
	struct plan_options o = asked_opts(version, 1);

	nccl_release_exact(nccl_releases[o.nccl], o.nccl_minor, o.nccl_patch, out);
}

/* "2.Y" alone is the minor's last patch release; "2.Y.Z" its own; a
 * table's own release keeps its patch. */
Test(nccl_release, patch_asked_for)
{
	unsigned minor, patch;

	cr_assert_str_eq(nccl_release_for_version("2.27", &minor, &patch)->version, "2.30.7");
	cr_expect_eq(minor, 27);
	cr_expect_eq(patch, NCCL_PATCH_LAST);
	nccl_release_for_version("v2.27.3-1", &minor, &patch);
	cr_expect_eq(minor, 27);
	cr_expect_eq(patch, 3);
	nccl_release_for_version("2.19.3", &minor, &patch);
	cr_expect_eq(minor, 0, "the table's own");
	cr_expect_eq(patch, 3);
	nccl_release_for_version("2.16.2", &minor, &patch);
	cr_expect_eq(patch, 2);
	cr_expect_eq(nccl_release_patch(nccl_release_find("2.12.12")), 12);
}

/*
 * The search's constants follow the release asked for, not the table that
 * stands for it; each figure as that tag has it (NVIDIA/nccl):
 * - NVLink a link, topo.h SM*_NVLINK_BW through ncclTopoNVLinkBw: v2.17.1-1
 *   topo.h:15-16 SM70/SM80 22 and no SM90 (Hopper and Blackwell take
 *   SM80's, :196-203); v2.18.1-1 topo.h:15-17 20; v2.19.4-1 SM90 20;
 *   v2.20.3-1 topo.h:17 SM90 20.6 (Blackwell too); v2.25.1-1 - v2.27.3-1
 *   SM100 40.0 (v2.27.3-1 topo.h:21), v2.27.5-1 topo.h:21 40.1.
 * - Between sockets, topo.cc ncclTopoGetInterCpuBw: v2.17.1-1 topo.h:20
 *   SKL_QPI_BW 9, v2.18.1-1 topo.h:21 10; AMD_BW 16 in v2.16.2-1
 *   (topo.h:21, topo.cc:75-77), none in v2.16.5-1 - v2.18.6-1 (LOC_BW,
 *   5000), back in v2.19.1-1; v2.25.1-1 topo.cc:514 puts every model from
 *   0x55 in SKL (10), v2.26.2-1 topo.h:24-25 SRP_QPI_BW 22, ERP_QPI_BW 40.
 * - search.cc "Try to use neighbors first": v2.19.3-1:263-287, not in
 *   v2.19.1-1.
 */
Test(nccl_release, search_constants_of_the_release_asked_for)
{
	static const struct {
		const char *version;
		enum topo_gpu_arch arch;
		double nvlink;
	} nvlink[] = {
		{ "2.16", TOPO_GPU_HOPPER, 22.0 },   { "2.17", TOPO_GPU_HOPPER, 22.0 },
		{ "2.17.1", TOPO_GPU_AMPERE, 22.0 }, { "2.17", TOPO_GPU_BLACKWELL, 22.0 },
		{ "2.18", TOPO_GPU_HOPPER, 20.0 },   { "2.19", TOPO_GPU_HOPPER, 20.0 },
		{ "2.19.4", TOPO_GPU_HOPPER, 20.0 }, { "2.20", TOPO_GPU_HOPPER, 20.6 },
		{ "2.20.3", TOPO_GPU_BLACKWELL, 20.6 }, { "2.20", TOPO_GPU_AMPERE, 20.0 },
		{ "2.21.5", TOPO_GPU_HOPPER, 20.6 }, { "2.25", TOPO_GPU_BLACKWELL, 40.0 },
		{ "2.26.6", TOPO_GPU_BLACKWELL, 40.0 }, { "2.27.3", TOPO_GPU_BLACKWELL, 40.0 },
		{ "2.27.5", TOPO_GPU_BLACKWELL, 40.1 }, { "2.27", TOPO_GPU_BLACKWELL, 40.1 },
		{ "2.25", TOPO_GPU_HOPPER, 20.6 },   { "2.30.7", TOPO_GPU_BLACKWELL, 40.1 },
	};
	static const struct {
		const char *version;
		enum topo_cpu_vendor vendor;
		enum topo_cpu_model model;
		double bw;
	} cpu[] = {
		{ "2.16", TOPO_CPU_INTEL, TOPO_CPU_MODEL_SKYLAKE, 9.0 },
		{ "2.17", TOPO_CPU_INTEL, TOPO_CPU_MODEL_SKYLAKE, 9.0 },
		{ "2.17", TOPO_CPU_INTEL, TOPO_CPU_MODEL_UNSET, 9.0 },
		{ "2.17", TOPO_CPU_INTEL, TOPO_CPU_MODEL_SAPPHIRE_RAPIDS, 9.0 },
		{ "2.17", TOPO_CPU_INTEL, TOPO_CPU_MODEL_BROADWELL, 6.0 },
		{ "2.18", TOPO_CPU_INTEL, TOPO_CPU_MODEL_SKYLAKE, 10.0 },
		{ "2.19", TOPO_CPU_INTEL, TOPO_CPU_MODEL_SKYLAKE, 10.0 },
		{ "2.16.2", TOPO_CPU_AMD, TOPO_CPU_MODEL_UNSET, 16.0 },
		{ "2.16.5", TOPO_CPU_AMD, TOPO_CPU_MODEL_UNSET, 5000.0 },
		{ "2.16", TOPO_CPU_AMD, TOPO_CPU_MODEL_UNSET, 5000.0 },
		{ "2.17", TOPO_CPU_AMD, TOPO_CPU_MODEL_UNSET, 5000.0 },
		{ "2.18.6", TOPO_CPU_AMD, TOPO_CPU_MODEL_UNSET, 5000.0 },
		{ "2.19.1", TOPO_CPU_AMD, TOPO_CPU_MODEL_UNSET, 16.0 },
		{ "2.17", TOPO_CPU_ARM, TOPO_CPU_MODEL_UNSET, 6.0 },
		{ "2.25", TOPO_CPU_INTEL, TOPO_CPU_MODEL_SAPPHIRE_RAPIDS, 10.0 },
		{ "2.25", TOPO_CPU_INTEL, TOPO_CPU_MODEL_EMERALD_RAPIDS, 10.0 },
		{ "2.25", TOPO_CPU_INTEL, TOPO_CPU_MODEL_SKYLAKE, 10.0 },
		{ "2.26", TOPO_CPU_INTEL, TOPO_CPU_MODEL_SAPPHIRE_RAPIDS, 22.0 },
		{ "2.26", TOPO_CPU_INTEL, TOPO_CPU_MODEL_EMERALD_RAPIDS, 40.0 },
	};
	static const struct {
		const char *version;
		bool first;
	} neighbors[] = {
		{ "2.16", false }, { "2.17", false }, { "2.18.6", false }, { "2.19.1", false },
		{ "2.19", true },  { "2.19.3", true }, { "2.20", true },
	};
	struct nccl_release r;

	for (size_t i = 0; i < sizeof(nvlink) / sizeof(nvlink[0]); i++) {
		asked_release(nvlink[i].version, &r);
		cr_expect_eq(r.nvlink_link_bw[nvlink[i].arch], nvlink[i].nvlink, "%s %u: %g",
			     nvlink[i].version, nvlink[i].arch, r.nvlink_link_bw[nvlink[i].arch]);
	}
	for (size_t i = 0; i < sizeof(cpu) / sizeof(cpu[0]); i++) {
		struct topology t = { .cpu_vendor = cpu[i].vendor, .cpu_model = cpu[i].model };

		asked_release(cpu[i].version, &r);
		cr_expect_eq(nccl_inter_cpu_bw(&r, &t), cpu[i].bw, "%s %u %s: %g",
			     cpu[i].version, cpu[i].vendor, topo_cpu_model_name(cpu[i].model),
			     nccl_inter_cpu_bw(&r, &t));
	}
	for (size_t i = 0; i < sizeof(neighbors) / sizeof(neighbors[0]); i++) {
		asked_release(neighbors[i].version, &r);
		cr_expect_eq(r.nvswitch_neighbors_first, neighbors[i].first, "%s",
			     neighbors[i].version);
	}
}

/* No release's own constants move: a table is exact for itself (no row of
 * nccl_tuning.c's search_overrides covers it), whatever is asked. */
Test(nccl_release, tables_exact_for_their_own_release)
{
	for (size_t i = 0; i < nccl_release_count; i++) {
		const struct nccl_release *t = nccl_releases[i];
		struct nccl_release r;

		nccl_release_exact(t, nccl_release_minor(t), nccl_release_patch(t), &r);
		cr_expect_arr_eq(r.nvlink_link_bw, t->nvlink_link_bw, sizeof(t->nvlink_link_bw),
				 "%s", t->version);
		cr_expect_arr_eq(r.inter_cpu_bw, t->inter_cpu_bw, sizeof(t->inter_cpu_bw), "%s",
				 t->version);
		cr_expect_arr_eq(r.intel_cpu_bw, t->intel_cpu_bw, sizeof(t->intel_cpu_bw), "%s",
				 t->version);
		cr_expect_eq(r.nvswitch_neighbors_first, t->nvswitch_neighbors_first, "%s",
			     t->version);
		nccl_release_exact(t, 0, 0, &r);
		cr_expect_arr_eq(r.nvlink_link_bw, t->nvlink_link_bw, sizeof(t->nvlink_link_bw));
	}
}

/*
 * End to end, by hand. configs/a100-pcie4-200g.yaml, one node: 8 A100 on
 * second-generation NVSwitches, 12 NVLinks a GPU. 2.19.3's ring search
 * tries 40, 30, 20 GB/s within a node (search.cc speedArrayIntra): at 20
 * each GPU's NVLink (in and out) carries links x the release's figure /
 * 20 channels. 2.17: 12 x 22 / 20 = 13.2, 13 channels; 2.18 (and 2.19.3):
 * 12 x 20 / 20 = 12. The communicator doubles them (26, 24).
 *
 * configs/two-socket-commodity.yaml, 2 nodes, Skylake's class: its ring
 * crosses the sockets (GPUs on cpu0, the NIC on cpu1), whose link the
 * search counts at SKL_QPI_BW: the ring's speed, the fastest of the
 * inter list (... 12, 10, 9 ...) it carries, is 9 GB/s under 2.17, 10
 * under 2.18.
 */
Test(nccl_release, search_constants_end_to_end)
{
	static const struct {
		const char *version;
		unsigned ring, comm;
		double skl_speed;
	} rows[] = { { "2.17", 13, 26, 9.0 }, { "2.18", 12, 24, 10.0 }, { "2.19.3", 12, 24, 10.0 } };

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct plan_options o = asked_opts(rows[i].version, 1);
		struct tuned x;

		tuned_init(&x, CONFIG("a100-pcie4-200g.yaml"), &o);
		cr_expect_eq(x.t.ch.ring.nchannels, rows[i].ring, "%s: %u", rows[i].version,
			     x.t.ch.ring.nchannels);
		assert_rel(x.t.ch.ring.bw_intra, 20.0, 1e-9);
		cr_expect_eq(x.t.ch.comm_channels, rows[i].comm, "%s", rows[i].version);
		tuned_destroy(&x);
		o = asked_opts(rows[i].version, 2);
		tuned_init(&x, CONFIG("two-socket-commodity.yaml"), &o);
		assert_rel(x.t.ch.ring.bw_inter, rows[i].skl_speed, 1e-9);
		tuned_destroy(&x);
	}
}

/* A Hopper node's plan takes the figure of the release asked for: 2.20's
 * 20.6 a link (v2.20.3-1 topo.h:17), 2.19's 20 (v2.19.3-1 topo.h:17). */
Test(nccl_release, plan_takes_the_release_asked_for)
{
	static const struct {
		const char *version;
		double nvlink;
	} rows[] = { { "2.19", 20.0 }, { "2.20", 20.6 }, { "2.17", 22.0 } };

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct plan_options o = asked_opts(rows[i].version, 1);
		struct tuned x;

		tuned_init(&x, CONFIG("h100-superpod-ib.yaml"), &o);
		cr_expect_eq(x.plan.nccl, &x.plan.nccl_exact);
		cr_expect_eq(x.plan.nccl->nvlink_link_bw[TOPO_GPU_HOPPER], rows[i].nvlink, "%s",
			     rows[i].version);
		cr_expect_str_eq(x.plan.nccl->version, "2.19.3", "the tables stay 2.19.3's");
		tuned_destroy(&x);
	}
}
