/* SPDX-License-Identifier: MIT */
/*
 * nccl_tuning: the constants of NCCL's cost model, each with where it is
 * written in NCCL (NVIDIA/nccl v2.30.7-1, src/graph/tuning.cc unless
 * said otherwise; ../shared/notes/nccl-algorithms.md §1). The tuner uses
 * them as NCCL does to choose (algorithm, protocol, channels); the timing
 * model uses the per-hop latencies and per-channel limits as what a hop
 * and a channel cost.
 */
#ifndef GDRLAB_NCCL_TUNING_H
#define GDRLAB_NCCL_TUNING_H

#include <stddef.h>
#include <stdint.h>

#include "proto.h"
#include "topology.h"

/* NCCL's algorithms, in its order (NCCL_ALGO_TREE = 0, ...). */
enum algo_id {
	ALGO_TREE,
	ALGO_RING,
	ALGO_COLLNET_DIRECT,
	ALGO_COLLNET_CHAIN,
	ALGO_NVLS,
	ALGO_NVLS_TREE,
	ALGO_PAT,
	ALGO_NCCL_COUNT,
	/* Send/receive and alltoall: NCCL's p2p path, not a tunable
	 * algorithm (NCCL_ALGO does not name it). */
	ALGO_P2P = ALGO_NCCL_COUNT,
	ALGO_COUNT,
};

/* The link class a hop's latency is looked up by (NCCL_HW_*). */
enum hop_class {
	HOP_NVLINK,
	HOP_PCI,
	HOP_NET,
	HOP_CLASS_COUNT,
};

/* Microseconds, as NCCL writes them. */
double nccl_base_latency(enum algo_id a, enum proto_id p);
double nccl_hw_latency(enum hop_class h, enum algo_id a, enum proto_id p);
/* NCCL_NET_OVERHEAD's default: what posting a network send costs. */
double nccl_net_overhead_us(enum topo_cpu_vendor v);

/*
 * Bandwidth limits, GB/s, indexed by GPU generation and node count
 * (1, 2, more) as NCCL's tables are: LL's whole limit (by GPU on one
 * node, by CPU vendor across nodes), and per-channel limits of ring
 * LL128, tree Simple, tree LL128 and NVLS-tree.
 */
double nccl_ll_max_bw(enum topo_gpu_arch a, enum topo_cpu_vendor v,
		      unsigned nnodes);
double nccl_ring_ll128_per_channel(enum topo_gpu_arch a, unsigned nnodes);
double nccl_tree_per_channel(enum topo_gpu_arch a, unsigned nnodes);
double nccl_tree_ll128_per_channel(enum topo_gpu_arch a, unsigned nnodes);
double nccl_nvls_tree_per_channel(enum topo_gpu_arch a, unsigned nnodes);
/* How much of NVLink an NVLS reduction gets (0: no NVLS before Hopper). */
double nccl_nvls_efficiency(enum topo_gpu_arch a);
/* Tree all-reduce bandwidth correction for mid sizes (64 B .. 256 MiB). */
double nccl_tree_correction(enum proto_id p, uint64_t bytes);

/* The channel search's speeds per channel, GB/s, fastest first
 * (src/graph/search.cc): within a node, or with a network. */
const double *nccl_search_speeds(enum topo_gpu_arch a, int with_network,
				 size_t *n);
/* The search's and the communicator's channel limits (MAXCHANNELS 64;
 * a graph searches at most half of them). */
#define NCCL_MAX_CHANNELS 64
#define NCCL_GRAPH_MAX_CHANNELS 32

#endif
