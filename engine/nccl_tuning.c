/* SPDX-License-Identifier: MIT */
/*
 * NCCL's tuning constants, one table per release, each read from that
 * release's source (NVIDIA/nccl; NCCL carries no provenance next to them):
 *
 * - v2.30.7-1 (commit 73cf112): ncclTunerConstantsDefaults,
 *   nvlsEfficiency, treeCorrectionFactor and getNetOverhead() of
 *   src/graph/tuning.cc; the speed arrays of src/graph/search.cc; the
 *   duplication of search.cc (ncclTopoDupChannels) and connect.cc.
 * - v2.8.4-1: baseLat, hwLat, ll128MaxBwPerCh, llMaxBws, perChMaxTreeBws
 *   and treeCorrectionFactor of src/graph/tuning.cc; speedArray and the
 *   duplication at speedIntra >= 25 of search.cc; the tree chunk of
 *   enqueue.cc (computeColl); NCCL_NET_GDR_LEVEL's default PXB of
 *   src/graph/paths.cc.
 * - v2.12.12-1: tuning.cc's tables, search.cc's speed lists, connect.cc
 *   and enqueue.cc as its table cites them.
 * - v2.21.5-1: the same values as 2.19.3's, where its table says so, but
 *   for nine (the table's comment lists them); 2.22.3 has all of them.
 * - v2.19.3-1: baseLat, hwLat, llMaxBws, perChMaxRingLL128Bws,
 *   perChMaxTreeLL128Bws, perChMaxTreeBws, the refinements and LL128's
 *   default of ncclTopoTuneModel and treeCorrectionFactor and the plateau
 *   of ncclTopoGetAlgoTime in src/graph/tuning.cc; speedArrayIntra/Inter,
 *   sm90SpeedArrayIntra/Inter and ncclTopoDupChannels of
 *   src/graph/search.cc; the Hopper doubling of src/graph/connect.cc
 *   (ncclTopoPostset); the tree chunk of src/enqueue.cc (computeColl);
 *   netGdrLevel's default of src/graph/paths.cc (ncclTopoCheckGdr).
 *
 * NCCL's NVLink bandwidths per link (src/graph/topo.h) are in the
 * presets' link_bandwidth for the timing; the search's own figure is each
 * table's nvlink_link_bw, and the releases between the tables differ in
 * a few such constants of the search (search_overrides, below). Tables are written in NCCL's index order:
 * protocols LL, LL128, Simple; node counts 1, 2, more than 2.
 */
#include "nccl_tuning.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const double v2_30_intra[] = { 40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0,
				      9.0, 7.0, 6.0, 5.0, 4.0, 3.0 };
static const double v2_30_inter[] = { 48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0,
				      12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0,
				      3.0, 2.4, 1.2, 0.24, 0.12 };
static const double v2_30_sm90_intra[] = { 60.0, 50.0, 40.0, 30.0, 24.0, 20.0,
					   15.0, 12.0, 11.0, 6.0, 3.0 };
static const double v2_30_sm90_inter[] = { 48.0, 45.0, 42.0, 40.0, 30.0, 24.0,
					   22.0, 20.0, 17.5, 15.0, 12.0, 6.0,
					   3.0, 2.4, 1.2, 0.24, 0.12 };
static const double v2_30_sm100_intra[] = { 90.0, 80.0, 70.0, 60.0, 50.0, 45.0,
					    40.0, 30.0, 24.0, 20.0, 19.0, 18.0 };
static const double v2_30_sm100_inter[] = { 96.0, 86.0, 80.0, 48.0, 45.1, 42.0,
					    40.0, 30.0, 24.0, 22.0, 20.0, 17.5,
					    15.0, 12.0, 6.0, 3.0, 2.4, 1.2,
					    0.24, 0.12 };

/* tuning.cc treeCorrectionFactor[protocol][log2(bytes / 64)], the same 23
 * in 2.19.3 and 2.30.7 (2.8.4 has its own); 2.30.7 adds a 24th, the
 * arguments (v2.30.7-1 tuning.cc:623-627; 2.19.3: 0, never read). */
#define TREE_CORRECTION_2_19_ON(ll, ll128, simple) {                          \
	{ 1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5,                  \
	  .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0, ll },                \
	{ 1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6,                 \
	  .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0, ll128 },               \
	{ .9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5,                      \
	  .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, simple },                \
}

static const struct nccl_release v2_30_7 = {
	.version = "2.30.7",
	.source = "NVIDIA/nccl v2.30.7-1 (commit 73cf112)",
	/* 2.25 on: MAXCHANNELS 64, Blackwell's rows and NVLS channels */
	.minor_from = 25,
	.has = { [ALGO_TREE] = true, [ALGO_RING] = true,
		 [ALGO_COLLNET_DIRECT] = true, [ALGO_COLLNET_CHAIN] = true,
		 [ALGO_NVLS] = true, [ALGO_NVLS_TREE] = true, [ALGO_PAT] = true },
	.pxn = true,
	.nvls = true,
	/* 2.27 moved the default to P2C (GDR over C2C on Grace) */
	.default_gdr_level = TOPO_PATH_P2C,
	/* tuning.cc:520-522: minCompCap >= 90 with NCCL_LL128_C2C (1):
	 * typeInter <= PATH_PXN, P2C among them */
	.ll128_hopper_p2c = true,
	.base_lat = {
		[ALGO_TREE] = { 6.8, 14.0, 8.4 },
		[ALGO_RING] = { 6.6, 14.0, 8.4 },
		[ALGO_PAT] = { 8.0, 8.0, 8.0 },
	},
	.hw_lat = {
		[HOP_NVLINK] = {
			[ALGO_TREE] = { 0.6, 1.25, 4.0 },
			[ALGO_RING] = { 0.6, 1.9, 3.4 },
			[ALGO_COLLNET_DIRECT] = { 0, 0, 3.7 },
			[ALGO_COLLNET_CHAIN] = { 0, 0, 2.8 },
			[ALGO_NVLS] = { 0, 0, 25 },
			[ALGO_NVLS_TREE] = { 0, 0, 25 },
			[ALGO_PAT] = { 0, 0, 4.0 },
		},
		[HOP_PCI] = {
			[ALGO_TREE] = { 1.0, 1.9, 4.0 },
			[ALGO_RING] = { 1.0, 2.5, 5.7 },
			[ALGO_COLLNET_DIRECT] = { 0, 0, 3.7 },
			[ALGO_COLLNET_CHAIN] = { 0, 0, 2.8 },
			[ALGO_PAT] = { 0, 0, 4.0 },
		},
		[HOP_NET] = {
			[ALGO_TREE] = { 5.0, 8.5, 14 },
			[ALGO_RING] = { 2.7, 4.0, 14.0 },
			[ALGO_COLLNET_DIRECT] = { 0, 0, 31 },
			[ALGO_COLLNET_CHAIN] = { 0, 0, 30 },
			[ALGO_NVLS] = { 0, 0, 18 },
			[ALGO_NVLS_TREE] = { 0, 0, 20.9 },
			[ALGO_PAT] = { 0, 0, 14 },
		},
	},
	/* llMaxBws: Volta|Intel, Ampere|AMD, Hopper, Blackwell */
	.ll_max = {
		{ 39.0, 39.0, 20.4 },
		{ 87.7, 22.5, 19.0 },
		{ 141.0, 45.0, 35.0 },
		{ 2 * 141.0, 2 * 45.0, 2 * 35.0 },
	},
	.ring_ll128 = { { 20.0, 20.0, 20.0 }, { 20.0, 20.0, 20.0 },
			{ 36.7, 36.7, 36.7 }, { 40.0, 40.0, 40.0 } },
	.tree_ll128 = { { 20.0, 20.0, 20.0 }, { 20.0, 20.0, 20.0 },
			{ 36.7, 36.7, 29.0 }, { 55.6, 31.67, 20.0 } },
	.tree_simple = { { 26.5, 18.5, 10.0 }, { 24.0, 23.6, 17.8 },
			 { 38.7, 41.4, 36.0 }, { 70.0, 42.8, 24.0 } },
	.nvls_tree = { { 26.5, 18.5, 10.0 }, { 24.0, 23.6, 17.8 },
		       { 0.0, 57.7, 45.5 }, { 0.0, 96.0, 80.0 } },
	.nvls_efficiency = { 0, 0, 0.85, 0.74 },
	/* transport/nvls.cc:155-157, 210-214: NVLS_NCHANNELS_SM90 (16)
	 * before Blackwell; on Blackwell NVLS_NCHANNELS_SM100_NVL (24) on
	 * one node, NVLS_NCHANNELS_SM100 (32) across nodes */
	.nvls_channels = { { 16, 16 }, { 16, 16 }, { 16, 16 }, { 24, 32 } },
	/* NCCL_NVLS_CHUNKSIZE's default (nvls.cc:160, 224); treeMaxChunkSize
	 * falls back to it, or 64 KiB from 4 nodes (nvls.cc:228-229) */
	.nvls_chunk = 131072,
	.nvls_tree_chunk = 131072,
	.nvls_sm100_tuning = true,
	.ring_ll_share = 0.5,
	.ring_ll_share_one_node = 0.5,
	.ring_ll128_one_ppn = 0.92,
	.tree_ll128_factor = 120.0 / 128.0,
	.ll_intra_factor = 1.0,
	.tree_pattern_factor = 0.85,
	.tree_simpler_fallback = true,
	.nvswitch_neighbors_first = true,
	/* topo.h:39 INTEL_P2P_OVERHEAD(bw) (bw * 6 / 5), search.cc followPath */
	.intel_p2p_overhead = 6.0 / 5.0,
	/* topo.cc:545-556 kvDictPciGen up to 64 GT/s */
	.pci_max_gen = 6,
	/* topo.h:20-24 SM70/SM80 20, SM90 20.6, SM100 40.1 (40.0 in 2.25 -
	 * 2.27.3, which this table stands for too: search_overrides) */
	.nvlink_link_bw = { 20.0, 20.0, 20.6, 40.1 },
	/* topo.h:26 AMD_BW 16, :34 ARM_BW 6 (topo.cc:60-83) */
	.inter_cpu_bw = { [TOPO_CPU_AMD] = 16.0, [TOPO_CPU_ARM] = 6.0 },
	/* topo.h:27-30 BDW_QPI_BW 6, SKL_QPI_BW 10, SRP_QPI_BW 22,
	 * ERP_QPI_BW 40 (topo.cc:70-75; the classes :748-751). 2.25, which
	 * this table stands for too, had no SRP nor ERP: 10 for both
	 * (search_overrides) */
	.intel_cpu_bw = { [TOPO_CPU_MODEL_BROADWELL] = 6.0, [TOPO_CPU_MODEL_SKYLAKE] = 10.0,
			  [TOPO_CPU_MODEL_SAPPHIRE_RAPIDS] = 22.0,
			  [TOPO_CPU_MODEL_EMERALD_RAPIDS] = 40.0 },
	.net_overhead = true,
	.ppn1_tree_net_lat = true,
	/* lat *= minCompCap < 80 ? 1.9 : 1.4 once nBytes / (nChannels *
	 * nRanks) >= 64 */
	.plateau = { 1.9, 1.4 },
	.plateau_bytes_per_rank = 64,
	.plateau_per_channel = true,
	.tree_corr = TREE_CORRECTION_2_19_ON(1.0, 1.0, .9),
	/* ncclTopoGetAlgoTime: NVLS_TREE, logSize < 24, minCompCap >= 100,
	 * cpuArch X86 (tuning.cc:643-646) */
	.nvls_tree_corr_blackwell_x86 = true,
	.speeds = {
		[TOPO_GPU_VOLTA] = { v2_30_intra, v2_30_inter },
		[TOPO_GPU_AMPERE] = { v2_30_intra, v2_30_inter },
		[TOPO_GPU_HOPPER] = { v2_30_sm90_intra, v2_30_sm90_inter },
		[TOPO_GPU_BLACKWELL] = { v2_30_sm100_intra, v2_30_sm100_inter },
	},
	.nspeeds = {
		[TOPO_GPU_VOLTA] = { N(v2_30_intra), N(v2_30_inter) },
		[TOPO_GPU_AMPERE] = { N(v2_30_intra), N(v2_30_inter) },
		[TOPO_GPU_HOPPER] = { N(v2_30_sm90_intra), N(v2_30_sm90_inter) },
		[TOPO_GPU_BLACKWELL] = { N(v2_30_sm100_intra), N(v2_30_sm100_inter) },
	},
	/* src/device.h MAXCHANNELS (64 from 2.25) */
	.max_channels = 64,
	.dup_skips_hopper = true,
	/* connect.cc: minCompCap >= 90 && nNodes > 1 && bwIntra > 45 &&
	 * nChannels < 16 */
	.comm_x2_hopper = true,
	.comm_x2_below = 16,
	.first_net = NCCL_FIRST_NET_DEV_MOD_GPUS,
	.p2p_level = NCCL_P2P_LEVEL_PXB,
	.intra_from_nearest = true,
};

/*
 * What 2.18 - 2.22 (hwLat) and 2.18 - 2.24 (per-channel limits) share, the
 * 2.19.3 and 2.21.5 tables: hwLat[NVLINK, PCI, NET][algorithm][LL, LL128,
 * Simple] with NVLS's NVLink hop as an argument (23 until 2.20, 25 from
 * 2.21); perChMaxRingLL128Bws, perChMaxTreeLL128Bws and perChMaxTreeBws
 * by GPU (Volta, Ampere, Hopper; Blackwell takes Hopper's); and no
 * perChMaxNVLSTreeBws (2.28), so no cap.
 */
#define HW_LAT_2_18_TO_22(nvls_nvlink) {                                     \
	[HOP_NVLINK] = {                                                       \
		[ALGO_TREE] = { .6, 1.25, 28 },                                \
		[ALGO_RING] = { .6, 1.9, 3.4 },                                \
		[ALGO_COLLNET_DIRECT] = { 0, 0, 3.7 },                         \
		[ALGO_COLLNET_CHAIN] = { 0, 0, 2.8 },                          \
		[ALGO_NVLS] = { 0, 0, nvls_nvlink },                           \
		[ALGO_NVLS_TREE] = { 0, 0, nvls_nvlink },                      \
	},                                                                     \
	[HOP_PCI] = {                                                          \
		[ALGO_TREE] = { 1.0, 1.9, 28 },                                \
		[ALGO_RING] = { 1.0, 2.5, 5.7 },                               \
		[ALGO_COLLNET_DIRECT] = { 0, 0, 3.7 },                         \
		[ALGO_COLLNET_CHAIN] = { 0, 0, 2.8 },                          \
	},                                                                     \
	[HOP_NET] = {                                                          \
		[ALGO_TREE] = { 5.0, 8.5, 28 },                                \
		[ALGO_RING] = { 2.7, 4.0, 14.0 },                              \
		[ALGO_COLLNET_DIRECT] = { 0, 0, 31 },                          \
		[ALGO_COLLNET_CHAIN] = { 0, 0, 30 },                           \
		[ALGO_NVLS] = { 0, 0, 18 },                                    \
		[ALGO_NVLS_TREE] = { 0, 0, 14 },                               \
	},                                                                     \
}
#define PER_CHANNEL_LIMITS_2_18_TO_24                                          \
	.ring_ll128 = { { 20.0, 20.0, 20.0 }, { 20.0, 20.0, 20.0 },            \
			{ 36.7, 36.7, 36.7 }, { 36.7, 36.7, 36.7 } },          \
	.tree_ll128 = { { 20.0, 20.0, 20.0 }, { 20.0, 20.0, 20.0 },            \
			{ 36.7, 36.7, 29.0 }, { 36.7, 36.7, 29.0 } },          \
	.tree_simple = { { 26.5, 18.5, 10.0 }, { 24.0, 23.6, 17.8 },           \
			 { 38.7, 41.4, 36.0 }, { 38.7, 41.4, 36.0 } }
#define NO_NVLS_TREE_CAP {                                                     \
	{ INFINITY, INFINITY, INFINITY }, { INFINITY, INFINITY, INFINITY },    \
	{ INFINITY, INFINITY, INFINITY }, { INFINITY, INFINITY, INFINITY },    \
}

/*
 * 2.21.5: 2.21 and 2.22 have these values to the last field; it stands
 * for 2.20 - 2.25 as the nearest table. Against 2.19.3: ring LL at half
 * the graph's speed and LL's whole limit on one Hopper node 141 GB/s
 * (both 2.21), Tree/Simple no longer shrunk by depth (2.20) though its
 * hwLat is still 2.8.4's 28 us chunk figure (until 2.23), NVLS-tree's
 * chunk nvlsChunkSize (2.21), NVLS's NVLink hop 25, Hopper's intra speeds
 * with 11 GB/s, the Hopper doubling below 16 channels (2.20). Still no
 * PAT (2.23), no nvlsEfficiency (2.28), GDR level PXB, three GPU rows
 * (Blackwell takes Hopper's, 2.25 adds its own) and MAXCHANNELS 32 (64 in
 * 2.25). Line numbers: v2.21.5-1, src/graph/tuning.cc unless said.
 */
static const struct nccl_release v2_21_5 = {
	.version = "2.21.5",
	.source = "NVIDIA/nccl v2.21.5-1",
	/* 2.21 - 2.24: 2.23's PAT and per-hop Tree/Simple aside */
	.minor_from = 21,
	/* NCCL_NUM_ALGORITHMS 6 (src/include/nccl_common.h:28-35) */
	.has = { [ALGO_TREE] = true, [ALGO_RING] = true,
		 [ALGO_COLLNET_DIRECT] = true, [ALGO_COLLNET_CHAIN] = true,
		 [ALGO_NVLS] = true, [ALGO_NVLS_TREE] = true },
	/* paths.cc:495 NCCL_PXN_DISABLE 0; transport/nvls.cc:231 */
	.pxn = true,
	.nvls = true,
	/* paths.cc:401 netGdrLevel = PATH_PXB (PXB until 2.26) */
	.default_gdr_level = TOPO_PATH_PXB,
	/* LL128's default: case 70, 80, 90 (:305-316); no case 100 and
	 * connect.cc:457's minCompCap == 90 */
	.ll128_volta_ampere_only = false,
	.newest_gpu_hopper = true,
	/* baseLat (:56-59) */
	.base_lat = {
		[ALGO_TREE] = { 6.8, 14.0, 0 },
		[ALGO_RING] = { 6.6, 14.0, 8.4 },
	},
	/* hwLat (:65-78): NVLS and NVLS-tree on NVLink 25 (2.19.3: 23) */
	.hw_lat = HW_LAT_2_18_TO_22(25),
	/* Tree/Simple's 28 us, 2.8.4's chunk figure (4/4/14 a hop in 2.23) */
	.tree_simple_lat_is_chunk = true,
	/* llMaxBws (:86-90): Volta|Intel, Ampere|AMD, Hopper; Blackwell as
	 * Hopper */
	.ll_max = {
		{ 39.0, 39.0, 20.4 },
		{ 87.7, 22.5, 19.0 },
		{ 141.0, 45.0, 35.0 },
		{ 141.0, 45.0, 35.0 },
	},
	/* perChMaxRingLL128Bws, perChMaxTreeLL128Bws, perChMaxTreeBws
	 * (:92-106): 2.19.3's */
	PER_CHANNEL_LIMITS_2_18_TO_24,
	/* no perChMaxNVLSTreeBws (2.28): no cap */
	.nvls_tree = NO_NVLS_TREE_CAP,
	/* busBw = nChannels x min(bwIntra, bwInter), NVLS-tree's bwInter / 2
	 * beyond 2 nodes (:175-177), x 5/6 (:216): 2.19.3's formula */
	.nvls_efficiency = { 0, 0, 1.0, 1.0 },
	.nvls_min_bw = true,
	/* NVLS_NCHANNELS 16 whatever the GPU (transport/nvls.cc:232, 259) */
	.nvls_channels = { { 16, 16 }, { 16, 16 }, { 16, 16 }, { 16, 16 } },
	/* NCCL_NVLS_CHUNKSIZE 128 KiB (nvls.cc:233): NVLS's cap
	 * (enqueue.cc:1743-1745) and NVLS-tree's start, 64 KiB from 4 nodes
	 * (enqueue.cc:1720, 1754-1757) */
	.nvls_chunk = 131072,
	.nvls_tree_chunk = 131072,
	/* Ring/LL: busBw x .5 (:180), every collective (2.20: 1/4, 1/3) */
	.ring_ll_share = 0.5,
	.ring_ll_share_one_node = 0.5,
	/* Ring/LL128: busBw x (ppn < 2 ? 0.7 : 0.92) (:181) */
	.ring_ll128_one_ppn = 0.7,
	/* Tree/LL128: busBw x (nNodes == 1 ? 7/9 : 120/128) (:184) */
	.tree_ll128_factor = 120.0 / 128.0,
	.ll_intra_factor = 1.0,
	/* NCCL_TOPO_PATTERN_TREE: x.85 (:185); search.cc:963-967 */
	.tree_pattern_factor = 0.85,
	.tree_simpler_fallback = true,
	.nvswitch_neighbors_first = true,
	/* topo.h:31 INTEL_P2P_OVERHEAD(bw) (bw*6/5), search.cc followPath */
	.intel_p2p_overhead = 6.0 / 5.0,
	/* topo.cc:376-379 kvDictPciGen up to 64 GT/s */
	.pci_max_gen = 6,
	/* topo.h:15-17 SM70/SM80 20, SM90 20.6 (Blackwell takes sm90's) */
	.nvlink_link_bw = { 20.0, 20.0, 20.6, 20.6 },
	/* topo.h:21 AMD_BW 16, :26 ARM_BW 6 (topo.cc:63-83) */
	.inter_cpu_bw = { [TOPO_CPU_AMD] = 16.0, [TOPO_CPU_ARM] = 6.0 },
	/* topo.h:20 QPI_BW 6, :22 SKL_QPI_BW 10 (topo.cc:74): SKL is every
	 * family 6 model from 0x55 (topo.cc:502), no SRP nor ERP yet */
	.intel_cpu_bw = { [TOPO_CPU_MODEL_BROADWELL] = 6.0, [TOPO_CPU_MODEL_SKYLAKE] = 10.0,
			  [TOPO_CPU_MODEL_SAPPHIRE_RAPIDS] = 10.0,
			  [TOPO_CPU_MODEL_EMERALD_RAPIDS] = 10.0 },
	/* getNetOverhead() (:108-118, 241-248) */
	.net_overhead = true,
	/* nInterSteps 2 nNodes for an all-reduce ring (:161-163) */
	.ring_allreduce_inter_2n = true,
	/* interLat = hwLat[NET][a][p] (:227) */
	.ppn1_tree_net_lat = false,
	/* :437-440 */
	.plateau = { 1.9, 1.4 },
	.plateau_bytes_per_rank = 64,
	.plateau_per_channel = true,
	/* enqueue.cc computeCollChunkInfo (:1722-1776): no Tree/Simple
	 * case, the whole 512 KiB step (2.20 on) */
	.tree_simple_chunk_by_depth = false,
	/* :412-416, 2.19.3's */
	.tree_corr = TREE_CORRECTION_2_19_ON(0, 0, 0),
	/* log2i(0) is 0 (src/include/utils.h) */
	.tree_corr_under_64_first = true,
	/* search.cc:850-858, 910-916: 2.30.7's lists, sm90 for ccMin >= 90 */
	.speeds = {
		[TOPO_GPU_VOLTA] = { v2_30_intra, v2_30_inter },
		[TOPO_GPU_AMPERE] = { v2_30_intra, v2_30_inter },
		[TOPO_GPU_HOPPER] = { v2_30_sm90_intra, v2_30_sm90_inter },
		[TOPO_GPU_BLACKWELL] = { v2_30_sm90_intra, v2_30_sm90_inter },
	},
	.nspeeds = {
		[TOPO_GPU_VOLTA] = { N(v2_30_intra), N(v2_30_inter) },
		[TOPO_GPU_AMPERE] = { N(v2_30_intra), N(v2_30_inter) },
		[TOPO_GPU_HOPPER] = { N(v2_30_sm90_intra), N(v2_30_sm90_inter) },
		[TOPO_GPU_BLACKWELL] = { N(v2_30_sm90_intra), N(v2_30_sm90_inter) },
	},
	/* src/device.h:54 MAXCHANNELS 32: a graph searches 16 (init.cc:1051) */
	.max_channels = 32,
	/* search.cc:839 */
	.dup_skips_hopper = true,
	/* connect.cc:457: minCompCap == 90 && nNodes > 1 && bwIntra > 45 &&
	 * nChannels < 16 */
	.comm_x2_hopper = true,
	.comm_x2_below = 16,
	.first_net = NCCL_FIRST_NET_DEV_MIRROR,
	.p2p_level = NCCL_P2P_LEVEL_VENDOR,
};

/* search.cc: speedArrayIntra and speedArrayInter are 2.30.7's (v2_30_intra,
 * v2_30_inter); sm90SpeedArrayIntra lacks 2.30.7's 11.0, and
 * sm90SpeedArrayInter is 2.30.7's. ccMin >= 90 takes the sm90 lists, so
 * Blackwell takes them too. */
static const double v2_19_sm90_intra[] = { 60.0, 50.0, 40.0, 30.0, 24.0, 20.0,
					   15.0, 12.0, 6.0, 3.0 };

/*
 * 2.19.3 has PXN (2.12) and NVLS with NVLSTree (2.17), CollNet Direct and
 * Chain, but no PAT (2.23); its ring LL and LL128, tree LL128 and
 * Tree/Simple latency and chunk are still 2.8.4's (tuning.cc
 * ncclTopoTuneModel, enqueue.cc computeColl). Its tables have three GPU
 * rows (compCapIndex: Volta, Ampere, Hopper for minCompCap >= 90):
 * Blackwell takes the Hopper rows, as that release would on it.
 */
static const struct nccl_release v2_19_3 = {
	.version = "2.19.3",
	.source = "NVIDIA/nccl v2.19.3-1",
	/* 2.17 - 2.20 (NVLS from 2.17; 2.20's tree chunk is 2.21's) */
	.minor_from = 17,
	.has = { [ALGO_TREE] = true, [ALGO_RING] = true,
		 [ALGO_COLLNET_DIRECT] = true, [ALGO_COLLNET_CHAIN] = true,
		 [ALGO_NVLS] = true, [ALGO_NVLS_TREE] = true },
	.pxn = true,
	.nvls = true,
	/* paths.cc ncclTopoCheckGdr: netGdrLevel = PATH_PXB */
	.default_gdr_level = TOPO_PATH_PXB,
	/* "Enable LL128 by default only on Volta/Ampere/Hopper+NVLink":
	 * switch (minCompCap) case 70, 80, 90, default off */
	.ll128_volta_ampere_only = false,
	.newest_gpu_hopper = true,
	/* baseLat: Tree { 6.8, 14.0, 0 }, Ring { 6.6, 14.0, 8.4 },
	 * CollNet Direct, Chain, NVLS, NVLS Tree all 0 */
	.base_lat = {
		[ALGO_TREE] = { 6.8, 14.0, 0 },
		[ALGO_RING] = { 6.6, 14.0, 8.4 },
	},
	/* hwLat[NVLINK, PCI, NET][algorithm][LL, LL128, Simple] */
	.hw_lat = HW_LAT_2_18_TO_22(23),
	/* hwLat's Tree/Simple 28 us is 2.8.4's whole-chunk figure (2.8.4
	 * says so: "the latency a 256kB chunk"; 2.19.3 kept the number,
	 * not the comment): the timing takes the newest release's hop. */
	.tree_simple_lat_is_chunk = true,
	/* llMaxBws: Volta|Intel, Ampere|AMD, Hopper|AMD; Blackwell as Hopper */
	.ll_max = {
		{ 39.0, 39.0, 20.4 },
		{ 87.7, 22.5, 19.0 },
		{ 87.7, 22.5, 19.0 },
		{ 87.7, 22.5, 19.0 },
	},
	/* perChMaxRingLL128Bws, perChMaxTreeLL128Bws, perChMaxTreeBws */
	PER_CHANNEL_LIMITS_2_18_TO_24,
	/* 2.19.3 has no perChMaxNVLSTreeBws (NVLSTree's busBw is nChannels x
	 * min(bwIntra, bwInter or bwInter/2 beyond 2 nodes)): no cap. */
	.nvls_tree = NO_NVLS_TREE_CAP,
	/* No nvlsEfficiency in 2.19.3's tuner: busBw = nChannels x
	 * min(bwIntra, bwInter), x 5/6 (tuning.cc:175-176, 199); the
	 * timing keeps the machine's (nccl_nvls_hw_efficiency). */
	.nvls_efficiency = { 0, 0, 1.0, 1.0 },
	.nvls_min_bw = true,
	/* NCCL_NVLS_NCHANNELS' default, 16 whatever the GPU (nvls.cc:243,
	 * 269; enqueue.cc:1222): no Blackwell rule */
	.nvls_channels = { { 16, 16 }, { 16, 16 }, { 16, 16 }, { 16, 16 } },
	/* NVLS: maxChunkSize 131072 (enqueue.cc:1360); NVLS-tree: the
	 * Simple step, 4 MiB / NCCL_STEPS (enqueue.cc:1328-1331), 64 KiB
	 * from 4 nodes (enqueue.cc:1372) */
	.nvls_chunk = 131072,
	.nvls_tree_chunk = 524288,
	/* Ring/LL: busBw x (nNodes > 1 || AllReduce || Reduce ? 1/4 : 1/3) */
	.ring_ll_share = 0.25,
	.ring_ll_share_one_node = 1.0 / 3.0,
	/* Ring/LL128: busBw x (ppn < 2 ? 0.7 : 0.92) */
	.ring_ll128_one_ppn = 0.7,
	/* Tree/LL128: busBw x (nNodes == 1 ? 7/9 : 120/128) */
	.tree_ll128_factor = 120.0 / 128.0,
	/* no x1.8 on LL's intra hops (2.8.4's) */
	.ll_intra_factor = 1.0,
	.tree_pattern_factor = 0.85,
	.tree_simpler_fallback = true,
	.nvswitch_neighbors_first = true,
	/* topo.h:31 INTEL_P2P_OVERHEAD(bw) (bw*6/5), search.cc followPath */
	.intel_p2p_overhead = 6.0 / 5.0,
	/* topo.cc:376-379 kvDictPciGen up to 64 GT/s */
	.pci_max_gen = 6,
	/* topo.h:15-17 SM70, SM80, SM90 20 (of the releases this table
	 * stands for, 2.17 has SM70/SM80 22 and no SM90, 2.20 SM90 20.6:
	 * search_overrides) */
	.nvlink_link_bw = { 20.0, 20.0, 20.0, 20.0 },
	/* topo.h:21 AMD_BW 16, :26 ARM_BW 6 (topo.cc:62-82); 2.17 and 2.18,
	 * which this table stands for too, have no AMD_BW: LOC_BW, no limit
	 * (search_overrides) */
	.inter_cpu_bw = { [TOPO_CPU_AMD] = 16.0, [TOPO_CPU_ARM] = 6.0 },
	/* topo.h:20 QPI_BW 6, :22 SKL_QPI_BW 10 (topo.cc:73): SKL is every
	 * family 6 model from 0x55 (topo.cc:470). 2.17's SKL_QPI_BW is 9
	 * (search_overrides) */
	.intel_cpu_bw = { [TOPO_CPU_MODEL_BROADWELL] = 6.0, [TOPO_CPU_MODEL_SKYLAKE] = 10.0,
			  [TOPO_CPU_MODEL_SAPPHIRE_RAPIDS] = 10.0,
			  [TOPO_CPU_MODEL_EMERALD_RAPIDS] = 10.0 },
	/* ring: intraLat = max(intraLat, getNetOverhead() x (Simple ? 3 : 1)) */
	.net_overhead = true,
	/* nInterSteps = AllReduce ? (nNodes > 1 ? 2*nNodes : 0) : ... */
	.ring_allreduce_inter_2n = true,
	/* ring and tree take their own hwLat rows at one GPU a node */
	.ppn1_tree_net_lat = false,
	/* ncclTopoGetAlgoTime: lat *= minCompCap < 80 ? 1.9 : 1.4 once
	 * nBytes / (nChannels x nRanks) >= 64 */
	.plateau = { 1.9, 1.4 },
	.plateau_bytes_per_rank = 64,
	.plateau_per_channel = true,
	/* enqueue.cc computeColl: Tree/Simple (ncclPatternTreeUpDown) halves
	 * chunkSize while nBytes / (nChannels x chunkSize) < depth x 8, x 4,
	 * x 1 (down to 128, 64, 32 KiB), as 2.8.4 */
	.tree_simple_chunk_by_depth = true,
	.tree_corr = TREE_CORRECTION_2_19_ON(0, 0, 0),
	/* log2i(0) is 0 (src/include/utils.h) */
	.tree_corr_under_64_first = true,
	.speeds = {
		[TOPO_GPU_VOLTA] = { v2_30_intra, v2_30_inter },
		[TOPO_GPU_AMPERE] = { v2_30_intra, v2_30_inter },
		[TOPO_GPU_HOPPER] = { v2_19_sm90_intra, v2_30_sm90_inter },
		[TOPO_GPU_BLACKWELL] = { v2_19_sm90_intra, v2_30_sm90_inter },
	},
	.nspeeds = {
		[TOPO_GPU_VOLTA] = { N(v2_30_intra), N(v2_30_inter) },
		[TOPO_GPU_AMPERE] = { N(v2_30_intra), N(v2_30_inter) },
		[TOPO_GPU_HOPPER] = { N(v2_19_sm90_intra), N(v2_30_sm90_inter) },
		[TOPO_GPU_BLACKWELL] = { N(v2_19_sm90_intra), N(v2_30_sm90_inter) },
	},
	/* src/device.h:54 MAXCHANNELS 32: a graph searches 16 (init.cc:920) */
	.max_channels = 32,
	/* search.cc ncclTopoDupChannels: no duplication when ccMin > 80 &&
	 * bwIntra < 50 && nChannels > 4 */
	.dup_skips_hopper = true,
	/* connect.cc:410: minCompCap == 90 && nNodes > 1 && bwIntra > 45 &&
	 * 2 x nChannels <= MAXCHANNELS (32): twice again while the
	 * communicator has 16 channels or fewer (Hopper alone:
	 * newest_gpu_hopper) */
	.comm_x2_hopper = true,
	.comm_x2_below = 17,
	.first_net = NCCL_FIRST_NET_DEV_MIRROR,
	.p2p_level = NCCL_P2P_LEVEL_VENDOR,
};

/* search.cc (v2.12.12-1 :729-730): one list inside a node, one with a
 * network, for every GPU (no sm90 lists until 2.16); since 2.10. */
static const double v2_12_intra[] = { 44.0, 30.0, 22.0, 18.0, 15.0, 12.0, 10.0,
				      9.0, 7.0, 6.0, 5.0, 4.0, 3.0 };
static const double v2_12_inter[] = { 48.0, 30.0, 24.0, 22.0, 18.0, 15.0, 12.0,
				      10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.4,
				      1.2, 0.24, 0.12 };

/*
 * 2.12.12: 2.12.7 - 2.13.4 have these values; it stands for 2.10 - 2.16
 * (2.10 and 2.11 have no PXN, a Ring/Simple network hop of 9.6 and 2
 * (nNodes - 1) ring steps; 2.14 - 2.16 split CollNet and go back to 9.6,
 * 2.15 - 2.16 know Hopper). Against 2.8.4: PXN (2.12), LL128 one 20 GB/s
 * a channel for every collective, Ampere's tree limits and the tree's
 * LL128 factor 120/128 (2.10), two speed lists (2.10), the all-reduce
 * ring's network steps 2 nNodes and its Simple network hop 28 (2.12).
 * Its one CollNet algorithm needs a plugin and NCCL_COLLNET_ENABLE=1 and
 * has its own cost formula: left out, as 2.8.4's. Its tables index GPUs
 * by compCap80 or not (:93, 98, 100): Hopper and Blackwell take the Volta
 * rows. Line numbers: v2.12.12-1, src/graph/tuning.cc unless said.
 */
static const struct nccl_release v2_12_12 = {
	.version = "2.12.12",
	.source = "NVIDIA/nccl v2.12.12-1 (commit 7aa1c46)",
	/* 2.10 - 2.16 (2.9 is 2.8.4's tuner) */
	.minor_from = 10,
	.has = { [ALGO_TREE] = true, [ALGO_RING] = true },
	/* paths.cc:524-549 (PATH_PXN where the GPU's own NIC path is beyond
	 * PXB), search.cc:829 */
	.pxn = true,
	/* paths.cc:380 netGdrLevel = PATH_PXB */
	.default_gdr_level = TOPO_PATH_PXB,
	/* :193-197 LL128 where min == max == 70 or 80 */
	.ll128_volta_ampere_only = true,
	/* :56 baseLat, 2.8.4's */
	.base_lat = {
		[ALGO_TREE] = { 4.4, 4.4, 0 },
		[ALGO_RING] = { 3.6, 10.0, 8.4 },
	},
	/* :63-70 hwLat: 2.8.4's but Ring/Simple's network entry, 28 (9.6
	 * before 2.12 and from 2.14, 14.0 from 2.18) */
	.hw_lat = {
		[HOP_NVLINK] = {
			[ALGO_TREE] = { .52, 1.25, 28 },
			[ALGO_RING] = { .47, 1.9, 3.4 },
		},
		[HOP_PCI] = {
			[ALGO_TREE] = { 1.0, 1.9, 28 },
			[ALGO_RING] = { 1.0, 2.5, 5.7 },
		},
		[HOP_NET] = {
			[ALGO_TREE] = { 5.0, 8.5, 28 },
			[ALGO_RING] = { 2.7, 4.0, 28 },
		},
	},
	/* :62 "Tree/Simple is the latency a 256kB chunk" */
	.tree_simple_lat_is_chunk = true,
	/* The ring's 28 us is no hop's latency (the same hardware took 9.6
	 * under 2.11 and 2.14; the 2.12.7 commit says nothing of it): the
	 * tuner's, not the timing's, which takes 9.6. */
	.ring_simple_net_timing = 9.6,
	/* :126 if (compCap80) busBw = min(busBw, 235) (2.8 - 2.17) */
	.bus_bw_cap = { [TOPO_GPU_AMPERE] = 235.0 },
	/* :74 llMaxBws[2][3], by compCap80 on one node (:98) */
	.ll_max = {
		{ 39.0, 39.0, 20.4 },
		{ 87.7, 22.5, 19.0 },
		{ 39.0, 39.0, 20.4 },
		{ 39.0, 39.0, 20.4 },
	},
	/* :73 ll128MaxBwPerCh 20.0, rings (:128) and trees (:131) alike */
	.ring_ll128 = { { 20.0, 20.0, 20.0 }, { 20.0, 20.0, 20.0 },
			{ 20.0, 20.0, 20.0 }, { 20.0, 20.0, 20.0 } },
	.tree_ll128 = { { 20.0, 20.0, 20.0 }, { 20.0, 20.0, 20.0 },
			{ 20.0, 20.0, 20.0 }, { 20.0, 20.0, 20.0 } },
	/* :75 perChMaxTreeBws, by compCap80 (:100) */
	.tree_simple = { { 26.5, 18.5, 10.0 }, { 24.0, 23.6, 17.8 },
			 { 26.5, 18.5, 10.0 }, { 26.5, 18.5, 10.0 } },
	/* :127 Ring/LL: x 1/4 across nodes or for all-reduce, else 1/3 */
	.ring_ll_share = 0.25,
	.ring_ll_share_one_node = 1.0 / 3.0,
	/* :128 Ring/LL128: x (ppn < 2 ? 0.7 : 0.92) */
	.ring_ll128_one_ppn = 0.7,
	/* :131 Tree/LL128: x (nNodes == 1 ? 7/9 : 120/128) */
	.tree_ll128_factor = 120.0 / 128.0,
	/* :142 nNodes > 1 && LL: intraLat x 1.8 */
	.ll_intra_factor = 1.8,
	/* no NCCL_TOPO_PATTERN_TREE discount, no Hopper fallback, no
	 * NCCL_NET_OVERHEAD (2.18) */
	.tree_pattern_factor = 1.0,
	/* init.cc:516 treeGraph.minChannels = 1 */
	.tree_min_channels_one = true,
	/* topo.h:29 INTEL_P2P_OVERHEAD(speed) (speed*6/5), search.cc followPath */
	.intel_p2p_overhead = 6.0 / 5.0,
	/* topo.cc:373-376 kvDictPciGen up to 64 GT/s */
	.pci_max_gen = 6,
	/* topo.h:15-16 SM70_NVLINK_WIDTH, SM80_NVLINK_WIDTH 22 (Hopper takes
	 * sm80's), as in every release from 2.10 to 2.17 */
	.nvlink_link_bw = { 22.0, 22.0, 22.0, 22.0 },
	/* topo.h:24 ARM_WIDTH 6, AMD not told apart: LOC_WIDTH (topo.cc:62-79;
	 * AMD_BW 16 in 2.16.2 alone: search_overrides) */
	.inter_cpu_bw = { [TOPO_CPU_AMD] = 5000.0, [TOPO_CPU_ARM] = 6.0 },
	/* topo.h:19 QPI_WIDTH 6, :20 SKL_QPI_WIDTH 9 (topo.cc:73): SKL is
	 * every family 6 model from 0x55 (topo.cc:467) */
	.intel_cpu_bw = { [TOPO_CPU_MODEL_BROADWELL] = 6.0, [TOPO_CPU_MODEL_SKYLAKE] = 9.0,
			  [TOPO_CPU_MODEL_SAPPHIRE_RAPIDS] = 9.0,
			  [TOPO_CPU_MODEL_EMERALD_RAPIDS] = 9.0 },
	/* :114 nInterSteps = AllReduce ? (nNodes > 1 ? 2*nNodes : 0) : ... */
	.ring_allreduce_inter_2n = true,
	/* :282-283 lat x 1.9 once nBytes >= nRanks / 16.0 x 65536 */
	.plateau = { 1.9, 1.9 },
	.plateau_bytes_per_rank = 4096,
	/* enqueue.cc:564-570 */
	.tree_simple_chunk_by_depth = true,
	/* :267-271, 2.19.3's (the LL128 row since 2.10) */
	.tree_corr = TREE_CORRECTION_2_19_ON(0, 0, 0),
	/* log2i(0) is 0 (src/include/utils.h) */
	.tree_corr_under_64_first = true,
	.speeds = {
		[TOPO_GPU_VOLTA] = { v2_12_intra, v2_12_inter },
		[TOPO_GPU_AMPERE] = { v2_12_intra, v2_12_inter },
		[TOPO_GPU_HOPPER] = { v2_12_intra, v2_12_inter },
		[TOPO_GPU_BLACKWELL] = { v2_12_intra, v2_12_inter },
	},
	.nspeeds = {
		[TOPO_GPU_VOLTA] = { N(v2_12_intra), N(v2_12_inter) },
		[TOPO_GPU_AMPERE] = { N(v2_12_intra), N(v2_12_inter) },
		[TOPO_GPU_HOPPER] = { N(v2_12_intra), N(v2_12_inter) },
		[TOPO_GPU_BLACKWELL] = { N(v2_12_intra), N(v2_12_inter) },
	},
	/* src/include/devcomm.h:49 MAXCHANNELS 32: a graph searches 16
	 * (init.cc:508); duplication at speedIntra >= 25 (search.cc:893-900),
	 * the communicator twice the graph (connect.cc:294) */
	.max_channels = 32,
	.first_net = NCCL_FIRST_NET_DEV,
	.p2p_level = NCCL_P2P_LEVEL_VENDOR,
};

/* One list for every GPU, inside a node and across nodes alike. */
static const double v2_8_speeds[] = { 42.0, 30.0, 24.0, 21.0, 18.0, 15.0, 12.0,
				      10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.4,
				      1.2, 0.24, 0.12 };

/*
 * 2.8.4 predates PXN (2.12), NVLS (2.17), PAT (2.23) and CollNet chain;
 * its CollNet needs a SHARP plugin and is left out. Its tables index GPUs
 * by "compCap80 or not": Hopper and Blackwell take the Volta rows, as
 * that release would on them. LL128's per-channel limit is one per
 * collective (ll128MaxBwPerCh), for rings and trees alike.
 */
static const struct nccl_release v2_8_4 = {
	.version = "2.8.4",
	.source = "NVIDIA/nccl v2.8.4-1",
	/* 2.7 to 2.9: before 2.7 NCCL had no send and receive (v2.7.3-1
	 * nccl.h.in), before 2.5 no LL128, before 2.4 no tree, and no table
	 * here stands for those */
	.minor_from = 7,
	.has = { [ALGO_TREE] = true, [ALGO_RING] = true },
	.default_gdr_level = TOPO_PATH_PXB,
	/* "Enable LL128 by default only on Volta/Ampere+NVLink" */
	.ll128_volta_ampere_only = true,
	.base_lat = {
		[ALGO_TREE] = { 4.4, 4.4, 0 },
		[ALGO_RING] = { 3.6, 10.0, 8.4 },
	},
	.hw_lat = {
		[HOP_NVLINK] = {
			[ALGO_TREE] = { .52, 1.25, 28 },
			[ALGO_RING] = { .47, 1.9, 3.4 },
		},
		[HOP_PCI] = {
			[ALGO_TREE] = { 1.0, 1.9, 28 },
			[ALGO_RING] = { 1.0, 2.5, 5.7 },
		},
		[HOP_NET] = {
			[ALGO_TREE] = { 5.0, 8.5, 28 },
			[ALGO_RING] = { 2.7, 4.0, 9.6 },
		},
	},
	/* "Tree/Simple is the latency a 256kB chunk, which is ~ base lat +
	 * 256k/12GB/s (+ 256k/12GB/s for the network)." */
	.tree_simple_lat_is_chunk = true,
	.ll_max = {
		{ 39.0, 39.0, 20.4 },
		{ 87.7, 22.5, 19.0 },
		{ 39.0, 39.0, 20.4 },
		{ 39.0, 39.0, 20.4 },
	},
	/* tuning.cc:124 if (compCap80) busBw = min(busBw, 235) */
	.bus_bw_cap = { [TOPO_GPU_AMPERE] = 235.0 },
	/* ncclFuncBroadcast, Reduce, AllGather, ReduceScatter, AllReduce:
	 * 18.8, 12.0, 18.3, 15.2, 16.9 */
	.ll128_by_op = {
		[TRACE_OP_ALLREDUCE] = 16.9,
		[TRACE_OP_REDUCE_SCATTER] = 15.2,
		[TRACE_OP_ALL_GATHER] = 18.3,
		[TRACE_OP_BROADCAST] = 18.8,
	},
	.tree_simple = { { 26.5, 18.5, 10.0 }, { 24.0, 22.5, 16.0 },
			 { 26.5, 18.5, 10.0 }, { 26.5, 18.5, 10.0 } },
	.ring_ll_share = 0.25,
	.ring_ll_share_one_node = 1.0 / 3.0,
	.ring_ll128_one_ppn = 0.7,
	.tree_ll128_factor = 0.915,
	.ll_intra_factor = 1.8,
	.tree_pattern_factor = 1.0,
	/* init.cc:652 tmpNnodes <= 2 ? NCCL_TOPO_PATTERN_TREE :
	 * NCCL_TOPO_PATTERN_BALANCED_TREE; search.cc:682 SPLIT_TREE under
	 * compute capability 8.0 */
	.tree_pattern_by_nodes = true,
	/* init.cc:655 treeGraph.minChannels = 1 */
	.tree_min_channels_one = true,
	/* topo.h:31 INTEL_P2P_OVERHEAD(speed) (speed*12/9), search.cc:65-76
	 * (6/5 from 2.9, whose releases take this table) */
	.intel_p2p_overhead = 12.0 / 9.0,
	/* topo.cc:310 kvDictPciGen up to 16 GT/s, else 60 (Gen3's rate) */
	.pci_max_gen = 4,
	/* topo.h:16-17 SM70_NVLINK_WIDTH, SM80_NVLINK_WIDTH 21 (later GPUs take sm80's) */
	.nvlink_link_bw = { 21.0, 21.0, 21.0, 21.0 },
	/* topo.h:25 ARM_WIDTH 6, AMD not told apart: LOC_WIDTH (topo.cc:62-79) */
	.inter_cpu_bw = { [TOPO_CPU_AMD] = 5000.0, [TOPO_CPU_ARM] = 6.0 },
	/* topo.h:20 QPI_WIDTH 6, :21 SKL_QPI_WIDTH 9 (topo.cc:73): SKL is
	 * every family 6 model from 0x55 (topo.cc:392) */
	.intel_cpu_bw = { [TOPO_CPU_MODEL_BROADWELL] = 6.0, [TOPO_CPU_MODEL_SKYLAKE] = 9.0,
			  [TOPO_CPU_MODEL_SAPPHIRE_RAPIDS] = 9.0,
			  [TOPO_CPU_MODEL_EMERALD_RAPIDS] = 9.0 },
	/* nBytes >= nRanks / 16.0 * 65536, always 1.9 */
	.plateau = { 1.9, 1.9 },
	.plateau_bytes_per_rank = 4096,
	.tree_simple_chunk_by_depth = true,
	/* src/device.h:54 MAXCHANNELS 32: a graph searches 16 (init.cc:646) */
	.max_channels = 32,
	.tree_corr = {
		{ 1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5,
		  .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0 },
		{ 1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6,
		  .6, .5, .6, .6, .7, .7, .8, .9, .9, .92, .92 },
		{ .9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5,
		  .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9 },
	},
	/* log2i(0) is 0 (src/include/utils.h:34-38) */
	.tree_corr_under_64_first = true,
	.speeds = {
		[TOPO_GPU_VOLTA] = { v2_8_speeds, v2_8_speeds },
		[TOPO_GPU_AMPERE] = { v2_8_speeds, v2_8_speeds },
		[TOPO_GPU_HOPPER] = { v2_8_speeds, v2_8_speeds },
		[TOPO_GPU_BLACKWELL] = { v2_8_speeds, v2_8_speeds },
	},
	.nspeeds = {
		[TOPO_GPU_VOLTA] = { N(v2_8_speeds), N(v2_8_speeds) },
		[TOPO_GPU_AMPERE] = { N(v2_8_speeds), N(v2_8_speeds) },
		[TOPO_GPU_HOPPER] = { N(v2_8_speeds), N(v2_8_speeds) },
		[TOPO_GPU_BLACKWELL] = { N(v2_8_speeds), N(v2_8_speeds) },
	},
	.first_net = NCCL_FIRST_NET_INDEX,
	.p2p_level = NCCL_P2P_LEVEL_VENDOR_284,
};

const struct nccl_release *const nccl_releases[] = { &v2_30_7, &v2_21_5, &v2_19_3,
						       &v2_12_12, &v2_8_4 };
const size_t nccl_release_count = N(nccl_releases);

/*
 * The search's constants of the releases between the tables: where NCCL's
 * own source of the release asked for differs from the table that stands
 * for it, read from each tag (NVIDIA/nccl, src/graph/topo.h and topo.cc,
 * search.cc; 2026-12-06). One row a range of releases and a field; a row
 * never covers a table's own release (test_nccl_release.c checks), so a
 * table is exact for itself and the default output cannot move.
 */
enum search_field {
	SEARCH_NVLINK_BW,       /* nvlink_link_bw, by GPU generation */
	SEARCH_INTER_CPU_BW,    /* inter_cpu_bw, by CPU vendor */
	SEARCH_INTEL_CPU_BW,    /* intel_cpu_bw, by Intel class */
	SEARCH_NEIGHBORS_FIRST, /* nvswitch_neighbors_first (value 0 or 1) */
};

/* 2.@y.@z as one number that sorts as releases do (patches stay under 100) */
#define REL(y, z) ((y) * 100u + (z))
#define BIT(i) (1u << (i))

struct search_override {
	unsigned from, to;      /* REL(), both included */
	enum search_field field;
	unsigned mask;          /* BIT() of the generations, vendors or classes */
	double value;
};

#define ALL_GPUS (BIT(TOPO_GPU_VOLTA) | BIT(TOPO_GPU_AMPERE) | BIT(TOPO_GPU_HOPPER) | \
		  BIT(TOPO_GPU_BLACKWELL))
/* Intel's classes from Skylake on: one class, SKL, up to 2.25 */
#define SKL_AND_LATER (BIT(TOPO_CPU_MODEL_SKYLAKE) | BIT(TOPO_CPU_MODEL_SAPPHIRE_RAPIDS) | \
		       BIT(TOPO_CPU_MODEL_EMERALD_RAPIDS))

static const struct search_override search_overrides[] = {
	/* 2.12.12's table (2.10 - 2.16): v2.16.2-1 alone has AMD_BW 16
	 * (topo.h:21, topo.cc:75-77); v2.16.5-1 drops it again */
	{ REL(16, 0), REL(16, 2), SEARCH_INTER_CPU_BW, BIT(TOPO_CPU_AMD), 16.0 },
	/* 2.19.3's table (2.17 - 2.20). v2.17.1-1 topo.h:15-16 SM70 and
	 * SM80_NVLINK_BW 22, no SM90: ncclTopoNVLinkBw (topo.h:196-203)
	 * gives every cc >= 80 SM80's; 20 from v2.18.1-1 */
	{ REL(17, 0), REL(17, NCCL_PATCH_LAST), SEARCH_NVLINK_BW, ALL_GPUS, 22.0 },
	/* v2.17.1-1 topo.h:20 SKL_QPI_BW 9 (10 from v2.18.1-1 topo.h:21) */
	{ REL(17, 0), REL(17, NCCL_PATCH_LAST), SEARCH_INTEL_CPU_BW, SKL_AND_LATER, 9.0 },
	/* v2.17.1-1 - v2.18.6-1 topo.cc:62-79 ncclTopoGetInterCpuBw has no
	 * AMD case: LOC_BW (topo.h:13), no limit; AMD_BW from v2.19.1-1 */
	{ REL(17, 0), REL(18, NCCL_PATCH_LAST), SEARCH_INTER_CPU_BW, BIT(TOPO_CPU_AMD), 5000.0 },
	/* "Try to use neighbors first" (ncclTopoSearchNextGpuSort) came in
	 * v2.19.3-1 search.cc:263-287; v2.19.1-1 has none */
	{ REL(17, 0), REL(19, 1), SEARCH_NEIGHBORS_FIRST, 0, 0.0 },
	/* v2.20.3-1 topo.h:17 SM90_NVLINK_BW 20.6 (topo.h:203-211: cc >= 90,
	 * Blackwell too); v2.19.4-1 has 20 */
	{ REL(20, 0), REL(20, NCCL_PATCH_LAST), SEARCH_NVLINK_BW,
	  BIT(TOPO_GPU_HOPPER) | BIT(TOPO_GPU_BLACKWELL), 20.6 },
	/* 2.30.7's table (2.25 on). v2.25.1-1 - v2.27.3-1 topo.h SM100_NVLINK_BW
	 * 40.0 (v2.27.3-1 topo.h:21); 40.1 from v2.27.5-1 topo.h:21 */
	{ REL(25, 0), REL(27, 3), SEARCH_NVLINK_BW, BIT(TOPO_GPU_BLACKWELL), 40.0 },
	/* v2.25.1-1 topo.cc:514 makes every family 6 model from 0x55 SKL,
	 * SKL_QPI_BW 10 (topo.h:23, topo.cc:80); SRP_QPI_BW 22 and
	 * ERP_QPI_BW 40 from v2.26.2-1 (topo.h:24-25, topo.cc:519-523) */
	{ REL(25, 0), REL(25, NCCL_PATCH_LAST), SEARCH_INTEL_CPU_BW,
	  BIT(TOPO_CPU_MODEL_SAPPHIRE_RAPIDS) | BIT(TOPO_CPU_MODEL_EMERALD_RAPIDS), 10.0 },
};

/* @r's array that @f names, and its length in *@n. */
static double *search_field_array(struct nccl_release *r, enum search_field f, unsigned *n)
{
	switch (f) {
	case SEARCH_NVLINK_BW:
		*n = TOPO_GPU_ARCH_COUNT;
		return r->nvlink_link_bw;
	case SEARCH_INTER_CPU_BW:
		*n = TOPO_CPU_VENDOR_COUNT;
		return r->inter_cpu_bw;
	case SEARCH_INTEL_CPU_BW:
		*n = TOPO_CPU_MODEL_COUNT;
		return r->intel_cpu_bw;
	default:
		*n = 0;
		return NULL;
	}
}

static void search_override_apply(struct nccl_release *r, const struct search_override *o)
{
	unsigned n;
	double *a = search_field_array(r, o->field, &n);

	if (o->field == SEARCH_NEIGHBORS_FIRST)
		r->nvswitch_neighbors_first = o->value != 0.0;
	for (unsigned i = 0; a && i < n; i++)
		if (o->mask & BIT(i))
			a[i] = o->value;
}

void nccl_release_exact(const struct nccl_release *table, unsigned minor, unsigned patch,
			struct nccl_release *out)
{
	unsigned rel = REL(minor, patch);

	*out = *table;
	if (!minor)
		return;
	for (size_t i = 0; i < N(search_overrides); i++)
		if (rel >= search_overrides[i].from && rel <= search_overrides[i].to)
			search_override_apply(out, &search_overrides[i]);
}

const struct nccl_release *nccl_release_newest(void)
{
	return nccl_releases[0];
}

const struct nccl_release *nccl_release_find(const char *version)
{
	size_t len;

	if (!version)
		return NULL;
	if (version[0] == 'v')
		version++;
	len = strlen(version);
	if (len > 2 && !strcmp(version + len - 2, "-1"))
		len -= 2;
	for (size_t i = 0; i < nccl_release_count; i++)
		if (strlen(nccl_releases[i]->version) == len &&
		    !strncmp(nccl_releases[i]->version, version, len))
			return nccl_releases[i];
	return NULL;
}

/* The tables that stand for NCCL 2.@y: newest first, the first whose
 * range has begun; NULL before the oldest's. */
static const struct nccl_release *release_for_minor(unsigned y)
{
	for (size_t i = 0; i < nccl_release_count; i++)
		if (y >= nccl_releases[i]->minor_from)
			return nccl_releases[i];
	return NULL;
}

unsigned nccl_release_minor(const struct nccl_release *r)
{
	const char *dot = strchr(r->version, '.');

	return dot ? (unsigned)strtoul(dot + 1, NULL, 10) : 0;
}

unsigned nccl_release_patch(const struct nccl_release *r)
{
	const char *dot = strrchr(r->version, '.');

	return dot ? (unsigned)strtoul(dot + 1, NULL, 10) : 0;
}

const struct nccl_release *nccl_release_for_version(const char *version, unsigned *out,
						    unsigned *patch_out)
{
	const struct nccl_release *r = nccl_release_find(version);
	unsigned long major, minor, patch = NCCL_PATCH_LAST;
	char *end;

	*out = 0;
	if (patch_out)
		*patch_out = r ? nccl_release_patch(r) : NCCL_PATCH_LAST;
	if (r || !version)
		return r;
	if (version[0] == 'v')
		version++;
	/* digits alone: strtoul would take a sign or blanks */
	if (!isdigit((unsigned char)version[0]))
		return NULL;
	errno = 0;
	major = strtoul(version, &end, 10);
	if (errno || *end != '.' || major != 2 || !isdigit((unsigned char)end[1]))
		return NULL;
	version = end + 1;
	minor = strtoul(version, &end, 10);
	if (errno || minor > 99)
		return NULL;
	if (*end == '.') {
		version = end + 1;
		if (!isdigit((unsigned char)version[0]))
			return NULL;
		patch = strtoul(version, &end, 10);
		if (errno)
			return NULL;
	}
	if (*end && strcmp(end, "-1"))
		return NULL;
	if (!release_for_minor((unsigned)minor))
		return NULL;
	*out = (unsigned)minor;
	/* no NCCL patch release reaches 99: one that did is the minor's last */
	if (patch_out)
		*patch_out = patch < NCCL_PATCH_LAST ? (unsigned)patch : NCCL_PATCH_LAST;
	return release_for_minor((unsigned)minor);
}

void nccl_release_span(const struct nccl_release *r, char *buf, size_t len)
{
	size_t i = nccl_release_index(r);

	if (i == 0 || i >= nccl_release_count)
		snprintf(buf, len, "2.%u and later", r->minor_from);
	else if (nccl_releases[i - 1]->minor_from - 1 == r->minor_from)
		snprintf(buf, len, "2.%u", r->minor_from);
	else
		snprintf(buf, len, "2.%u to 2.%u", r->minor_from, nccl_releases[i - 1]->minor_from - 1);
}

unsigned nccl_release_index(const struct nccl_release *r)
{
	unsigned i = 0;

	while (i < nccl_release_count && nccl_releases[i] != r)
		i++;
	return i;
}

const char *nccl_release_list(void)
{
	static char list[64];

	if (!list[0])
		for (size_t i = 0; i < nccl_release_count; i++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
				 i ? ", " : "", nccl_releases[i]->version);
	return list;
}

/* NCCL_VERSION(X,Y,Z): X*1000 + Y*100 + Z before 2.9, X*10000 + Y*100 + Z
 * since (src/nccl.h.in). */
static void version_of(unsigned code, unsigned *x, unsigned *y, unsigned *z)
{
	unsigned k = code < 20900 ? 1000 : 10000;

	*x = code / k;
	*y = code % k / 100;
	*z = code % 100;
}

const struct nccl_release *nccl_release_for_code(unsigned code, char *name,
						 size_t len)
{
	unsigned x, y, z;

	version_of(code, &x, &y, &z);
	snprintf(name, len, "%u.%u.%u", x, y, z);
	if (x > 2)
		return nccl_release_newest();
	/* a file's own release is what it is: the oldest tables, the
	 * nearest, stand for one before their range (said in the header) */
	return x == 2 && release_for_minor(y) ? release_for_minor(y) :
						nccl_releases[nccl_release_count - 1];
}

/* p2p has no entry of its own: one ring hop's, as NCCL's tuner has none. */
static enum algo_id tunable(enum algo_id a)
{
	return a >= ALGO_NCCL_COUNT ? ALGO_RING : a;
}

double nccl_base_latency(const struct nccl_release *r, enum algo_id a,
			 enum proto_id p)
{
	return r->base_lat[tunable(a)][p];
}

double nccl_hw_latency(const struct nccl_release *r, enum hop_class h,
		       enum algo_id a, enum proto_id p)
{
	return r->hw_lat[h][tunable(a)][p];
}

/* The release whose figures time @a with @p. */
static const struct nccl_release *timing(const struct nccl_release *r,
					 enum algo_id a, enum proto_id p)
{
	if (r->tree_simple_lat_is_chunk && tunable(a) == ALGO_TREE && p == PROTO_SIMPLE)
		return nccl_release_newest();
	return r;
}

double nccl_launch_latency(const struct nccl_release *r, enum algo_id a,
			   enum proto_id p)
{
	return nccl_base_latency(timing(r, a, p), a, p);
}

double nccl_hop_latency(const struct nccl_release *r, enum hop_class h,
			enum algo_id a, enum proto_id p)
{
	if (r->ring_simple_net_timing > 0 && h == HOP_NET && tunable(a) == ALGO_RING &&
	    p == PROTO_SIMPLE)
		return r->ring_simple_net_timing;
	return nccl_hw_latency(timing(r, a, p), h, a, p);
}

/* getNetOverhead(): 1 us on Intel, 2 on AMD, 1 otherwise. */
double nccl_net_overhead_us(const struct nccl_release *r,
			    enum topo_cpu_vendor v)
{
	if (!r->net_overhead)
		return 0;
	return v == TOPO_CPU_AMD ? 2.0 : 1.0;
}

static unsigned node_index(unsigned nnodes)
{
	return nnodes <= 2 ? (nnodes ? nnodes - 1 : 0) : 2;
}

double nccl_inter_cpu_bw(const struct nccl_release *r, const struct topology *t)
{
	if (t->cpu_vendor != TOPO_CPU_INTEL)
		return r->inter_cpu_bw[t->cpu_vendor];
	return r->intel_cpu_bw[t->cpu_model == TOPO_CPU_MODEL_UNSET ? TOPO_CPU_MODEL_SKYLAKE :
								      t->cpu_model];
}

double nccl_bus_bw_cap(const struct nccl_release *r, enum topo_gpu_arch a)
{
	return r->bus_bw_cap[a] > 0 ? r->bus_bw_cap[a] : INFINITY;
}

double nccl_ll_max_bw(const struct nccl_release *r, enum topo_gpu_arch a,
		      enum topo_cpu_vendor v, unsigned nnodes)
{
	unsigned row = nnodes == 1 ? (unsigned)a : v == TOPO_CPU_AMD ? 1 : 0;

	return r->ll_max[row][node_index(nnodes)];
}

/* LL128's limit a channel: one per collective where the release has it
 * so (2.8.4's ll128MaxBwPerCh, rings and trees alike), else @table's. */
static double ll128_limit(const struct nccl_release *r,
			  const double table[TOPO_GPU_ARCH_COUNT][NCCL_NODE_COLUMNS],
			  enum topo_gpu_arch a, enum trace_op op, unsigned nnodes)
{
	if (r->ll128_by_op[op] > 0)
		return r->ll128_by_op[op];
	return table[a][node_index(nnodes)];
}

double nccl_ring_ll128_per_channel(const struct nccl_release *r,
				   enum topo_gpu_arch a, enum trace_op op,
				   unsigned nnodes)
{
	return ll128_limit(r, r->ring_ll128, a, op, nnodes);
}

double nccl_tree_per_channel(const struct nccl_release *r,
			     enum topo_gpu_arch a, unsigned nnodes)
{
	return r->tree_simple[a][node_index(nnodes)];
}

double nccl_tree_ll128_per_channel(const struct nccl_release *r,
				   enum topo_gpu_arch a, enum trace_op op,
				   unsigned nnodes)
{
	return ll128_limit(r, r->tree_ll128, a, op, nnodes);
}

double nccl_nvls_tree_per_channel(const struct nccl_release *r,
				  enum topo_gpu_arch a, unsigned nnodes)
{
	return r->nvls_tree[a][node_index(nnodes)];
}

double nccl_nvls_efficiency(const struct nccl_release *r,
			    enum topo_gpu_arch a)
{
	return r->nvls_efficiency[a];
}

double nccl_nvls_hw_efficiency(enum topo_gpu_arch a)
{
	return nccl_release_newest()->nvls_efficiency[a];
}

/*
 * ncclNvlsTreeSm100Tuning (v2.30.7-1 transport/nvls.cc:164-200): Blackwell
 * across nodes. 2 nodes with NICs of 48 GB/s or more: 32 channels, a tree
 * chunk of 128 KiB, 256 KiB (and a 256 KiB chunk) at 4 GPUs a node or
 * fewer, 64 KiB at 16 or more, or at 8 or fewer with the NIC within PXB
 * under 96 GB/s. Else 96 GB/s or more: 24 channels and 256 KiB for both
 * at 8 GPUs a node or fewer, 32 channels and 128 KiB (64 KiB from 32
 * GPUs) beyond. Else 48 GB/s or more: 24 channels, 128 KiB, 64 KiB within
 * PXB. Slower NICs keep 32 channels, 128 KiB, and no tree chunk (0).
 */
static void nvls_sm100_tuning(const struct nccl_nvls_comm *c, struct nccl_nvls_tuning *t,
			      uint64_t *tree_max)
{
	bool pxb = c->type_inter <= TOPO_PATH_PXB;

	t->chunk = 131072;
	if (c->nnodes == 2 && c->min_net_bw >= 48.0) {
		t->channels = 32;
		*tree_max = 131072;
		if (c->ppn <= 4) {
			t->chunk = 262144;
			*tree_max = 262144;
		} else if (c->ppn >= 16 || (c->ppn <= 8 && pxb && c->min_net_bw < 96.0)) {
			*tree_max = 65536;
		}
	} else if (c->min_net_bw >= 96.0) {
		if (c->ppn <= 8) {
			t->channels = 24;
			t->chunk = 262144;
			*tree_max = 262144;
		} else {
			t->channels = 32;
			*tree_max = c->ppn < 32 ? 131072 : 65536;
		}
	} else if (c->min_net_bw >= 48.0) {
		t->channels = 24;
		*tree_max = pxb ? 65536 : 131072;
	}
}

/*
 * ncclNvlsTuning (v2.30.7-1 transport/nvls.cc:202-245; 2.19.3 has only
 * NCCL_NVLS_NCHANNELS) and the chunk enqueue.cc starts NVLS-tree from:
 * min(nvlsChunkSize, nvlsTreeMaxChunkSize) (v2.30.7-1 :2281), where the
 * tree's maximum, unless a tuning set it, is 64 KiB from 4 nodes, else
 * nvlsChunkSize (nvls.cc:228-229); 2.19.3's the Simple step, 64 KiB
 * from 4 nodes. The tuning never sets the tree's maximum above its chunk,
 * so it is the tree's chunk.
 */
void nccl_nvls_tuning(const struct nccl_release *r, const struct nccl_nvls_comm *c,
		      struct nccl_nvls_tuning *out)
{
	bool multi = c->nnodes > 1;
	uint64_t tree_max = 0;

	out->channels = r->nvls_channels[c->arch][multi ? 1 : 0];
	out->chunk = r->nvls_chunk;
	if (r->nvls_sm100_tuning && c->arch >= TOPO_GPU_BLACKWELL && multi)
		nvls_sm100_tuning(c, out, &tree_max);
	if (!tree_max)
		tree_max = c->nnodes >= 4 ? 65536 : r->nvls_tree_chunk;
	out->tree_chunk = tree_max;
}

/* log2i(bytes >> 6), -1 under 64 B. */
static int log_size(uint64_t bytes)
{
	uint64_t v = bytes >> 6;
	int log = -1;

	while (v) {
		v >>= 1;
		log++;
	}
	return log;
}

double nccl_tree_correction(const struct nccl_release *r, enum proto_id p,
			    uint64_t bytes)
{
	int log = log_size(bytes);

	if (log < 0 && r->tree_corr_under_64_first)
		log = 0;
	/* NCCL applies it for logSize in [0, 23) only. */
	return log >= 0 && log < 23 ? r->tree_corr[p][log] : 1.0;
}

double nccl_nvls_tree_correction(const struct nccl_release *r, enum topo_gpu_arch a,
				 enum topo_cpu_vendor v, enum proto_id p, uint64_t bytes)
{
	int log = log_size(bytes);
	bool x86 = v == TOPO_CPU_INTEL || v == TOPO_CPU_AMD;

	if (!r->nvls_tree_corr_blackwell_x86 || a < TOPO_GPU_BLACKWELL || !x86)
		return 1.0;
	/* logSize in [0, 24), the table's 24th entry included */
	return log >= 0 && log < 24 ? r->tree_corr[p][log] : 1.0;
}

const double *nccl_search_speeds(const struct nccl_release *r,
				 enum topo_gpu_arch a, int with_network,
				 size_t *n)
{
	*n = r->nspeeds[a][with_network ? 1 : 0];
	return r->speeds[a][with_network ? 1 : 0];
}
