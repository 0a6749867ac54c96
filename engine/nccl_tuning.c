/* SPDX-License-Identifier: MIT */
/*
 * NCCL's tuning constants, NVIDIA/nccl v2.30.7-1 (commit 73cf112): the
 * ncclTunerConstantsDefaults table, nvlsEfficiency and
 * treeCorrectionFactor of src/graph/tuning.cc, getNetOverhead() there and
 * the speed arrays of src/graph/search.cc (NCCL's NVLink bandwidths per
 * link, src/graph/topo.h, are in the presets' link_bandwidth). NCCL carries no source or version next to them and
 * they drift between releases (v2.12.12-1 had Tree base latencies
 * 4.4/4.4/0, ../shared/notes/nccl-algorithms.md §1): this file pins one
 * release. Tables are written in NCCL's index order: protocols LL, LL128,
 * Simple; node counts 1, 2, more than 2.
 */
#include "nccl_tuning.h"

static const double base_lat[ALGO_NCCL_COUNT][PROTO_COUNT] = {
	[ALGO_TREE] = { 6.8, 14.0, 8.4 },
	[ALGO_RING] = { 6.6, 14.0, 8.4 },
	[ALGO_COLLNET_DIRECT] = { 0, 0, 0 },
	[ALGO_COLLNET_CHAIN] = { 0, 0, 0 },
	[ALGO_NVLS] = { 0, 0, 0 },
	[ALGO_NVLS_TREE] = { 0, 0, 0 },
	[ALGO_PAT] = { 8.0, 8.0, 8.0 },
};

static const double hw_lat[HOP_CLASS_COUNT][ALGO_NCCL_COUNT][PROTO_COUNT] = {
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
		[ALGO_NVLS] = { 0, 0, 0 },
		[ALGO_NVLS_TREE] = { 0, 0, 0 },
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
};

double nccl_base_latency(enum algo_id a, enum proto_id p)
{
	if (a >= ALGO_NCCL_COUNT)
		a = ALGO_RING; /* p2p: one ring hop's launch, as NCCL's
				* tuner has no entry for it */
	return base_lat[a][p];
}

double nccl_hw_latency(enum hop_class h, enum algo_id a, enum proto_id p)
{
	if (a >= ALGO_NCCL_COUNT)
		a = ALGO_RING;
	return hw_lat[h][a][p];
}

/* getNetOverhead(): 1 us on Intel, 2 on AMD, 1 otherwise. */
double nccl_net_overhead_us(enum topo_cpu_vendor v)
{
	return v == TOPO_CPU_AMD ? 2.0 : 1.0;
}

static unsigned node_index(unsigned nnodes)
{
	return nnodes <= 2 ? (nnodes ? nnodes - 1 : 0) : 2;
}

/* llMaxBws: rows by GPU generation on one node, by CPU across nodes
 * (Volta|Intel, Ampere|AMD, Hopper, Blackwell). */
static const double ll_max[4][3] = {
	{ 39.0, 39.0, 20.4 },
	{ 87.7, 22.5, 19.0 },
	{ 141.0, 45.0, 35.0 },
	{ 2 * 141.0, 2 * 45.0, 2 * 35.0 },
};

double nccl_ll_max_bw(enum topo_gpu_arch a, enum topo_cpu_vendor v,
		      unsigned nnodes)
{
	unsigned row = nnodes == 1 ? (unsigned)a : v == TOPO_CPU_AMD ? 1 : 0;

	return ll_max[row][node_index(nnodes)];
}

static const double ring_ll128[TOPO_GPU_ARCH_COUNT][3] = {
	{ 20.0, 20.0, 20.0 }, { 20.0, 20.0, 20.0 },
	{ 36.7, 36.7, 36.7 }, { 40.0, 40.0, 40.0 },
};
static const double tree_ll128[TOPO_GPU_ARCH_COUNT][3] = {
	{ 20.0, 20.0, 20.0 }, { 20.0, 20.0, 20.0 },
	{ 36.7, 36.7, 29.0 }, { 55.6, 31.67, 20.0 },
};
static const double tree_simple[TOPO_GPU_ARCH_COUNT][3] = {
	{ 26.5, 18.5, 10.0 }, { 24.0, 23.6, 17.8 },
	{ 38.7, 41.4, 36.0 }, { 70.0, 42.8, 24.0 },
};
static const double nvls_tree[TOPO_GPU_ARCH_COUNT][3] = {
	{ 26.5, 18.5, 10.0 }, { 24.0, 23.6, 17.8 },
	{ 0.0, 57.7, 45.5 }, { 0.0, 96.0, 80.0 },
};

double nccl_ring_ll128_per_channel(enum topo_gpu_arch a, unsigned nnodes)
{
	return ring_ll128[a][node_index(nnodes)];
}

double nccl_tree_per_channel(enum topo_gpu_arch a, unsigned nnodes)
{
	return tree_simple[a][node_index(nnodes)];
}

double nccl_tree_ll128_per_channel(enum topo_gpu_arch a, unsigned nnodes)
{
	return tree_ll128[a][node_index(nnodes)];
}

double nccl_nvls_tree_per_channel(enum topo_gpu_arch a, unsigned nnodes)
{
	return nvls_tree[a][node_index(nnodes)];
}

double nccl_nvls_efficiency(enum topo_gpu_arch a)
{
	static const double eff[TOPO_GPU_ARCH_COUNT] = { 0, 0, 0.85, 0.74 };

	return eff[a];
}

/* treeCorrectionFactor, by log2(bytes / 64) from 0 to 23. */
static const double tree_corr[PROTO_COUNT][24] = {
	{ 1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5,
	  .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0 },
	{ 1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6,
	  .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0, 1.0 },
	{ .9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5,
	  .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9 },
};

double nccl_tree_correction(enum proto_id p, uint64_t bytes)
{
	uint64_t v = bytes >> 6;
	int log = -1;

	while (v) {
		v >>= 1;
		log++;
	}
	/* NCCL applies it for logSize in [0, 23) only. */
	return log >= 0 && log < 23 ? tree_corr[p][log] : 1.0;
}

static const double speeds_intra[] = { 40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0,
				       9.0, 7.0, 6.0, 5.0, 4.0, 3.0 };
static const double speeds_inter[] = { 48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0,
				       12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0,
				       3.0, 2.4, 1.2, 0.24, 0.12 };
static const double sm90_intra[] = { 60.0, 50.0, 40.0, 30.0, 24.0, 20.0,
				     15.0, 12.0, 11.0, 6.0, 3.0 };
static const double sm90_inter[] = { 48.0, 45.0, 42.0, 40.0, 30.0, 24.0,
				     22.0, 20.0, 17.5, 15.0, 12.0, 6.0,
				     3.0, 2.4, 1.2, 0.24, 0.12 };
static const double sm100_intra[] = { 90.0, 80.0, 70.0, 60.0, 50.0, 45.0,
				      40.0, 30.0, 24.0, 20.0, 19.0, 18.0 };
static const double sm100_inter[] = { 96.0, 86.0, 80.0, 48.0, 45.1, 42.0,
				      40.0, 30.0, 24.0, 22.0, 20.0, 17.5,
				      15.0, 12.0, 6.0, 3.0, 2.4, 1.2,
				      0.24, 0.12 };

#define N(a) (sizeof(a) / sizeof((a)[0]))

const double *nccl_search_speeds(enum topo_gpu_arch a, int with_network,
				 size_t *n)
{
	if (a >= TOPO_GPU_BLACKWELL) {
		*n = with_network ? N(sm100_inter) : N(sm100_intra);
		return with_network ? sm100_inter : sm100_intra;
	}
	if (a == TOPO_GPU_HOPPER) {
		*n = with_network ? N(sm90_inter) : N(sm90_intra);
		return with_network ? sm90_inter : sm90_intra;
	}
	*n = with_network ? N(speeds_inter) : N(speeds_intra);
	return with_network ? speeds_inter : speeds_intra;
}
