/* SPDX-License-Identifier: MIT */
/*
 * nccl_tuning: NCCL's cost model and its search's constants, one table per
 * NCCL release, each value with where NCCL has it (src/graph/tuning.cc
 * unless said otherwise; ../shared/notes/nccl-algorithms.md §1).
 *
 * NCCL's constants and a few of its decisions drift between releases
 * (LL's share of a channel, the chunk a tree moves, which algorithms
 * exist, the default GPUDirect level), and measurements are made with
 * the release of their day: the ABCI curves with 2.8.4. A plan carries
 * one release (plan_options.nccl, `--nccl`); the tuner chooses and
 * estimates with it, and the timing takes its launch and per-hop costs
 * from it (nccl_hop_latency). Releases this build has: nccl_releases[].
 */
#ifndef GDRLAB_NCCL_TUNING_H
#define GDRLAB_NCCL_TUNING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto.h"
#include "topo_path.h"
#include "topology.h"
#include "trace.h"

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

/* Node-count columns of NCCL's tables: 1, 2, more than 2. */
#define NCCL_NODE_COLUMNS 3

/* What one release of NCCL puts in its cost model and search. */
/*
 * Which of a GPU's nearest NICs (index order, m of them) its channels try
 * first: the search starts each communicator from the NICs its GPUs list
 * so, each GPU's from there on in turn (search.cc ncclTopoSelectNets,
 * topo.cc ncclTopoGetLocalNet). "dev" is the GPU's CUDA index on its node.
 */
enum nccl_first_net {
	NCCL_FIRST_NET_INDEX,      /* the first (2.8.4's search) */
	NCCL_FIRST_NET_DEV,        /* dev mod m (2.12: "Shuffle by gpu NVML
				    * device number") */
	NCCL_FIRST_NET_DEV_MIRROR, /* dev's low bits mirrored, m a power of
				    * two, else dev mod m (2.19 - 2.30.4) */
	NCCL_FIRST_NET_DEV_MOD_GPUS, /* the same of dev mod the
				      * communicator's GPUs near the first NIC
				      * (2.30.7: one GPU alone takes the first) */
};

/*
 * How far apart (PCIe path class) two GPUs of a node may be and still
 * copy to each other peer to peer; farther, NCCL's SHM transport moves the
 * data through host memory (paths.cc ncclTopoCheckP2p's p2pLevel, before
 * NCCL_P2P_LEVEL).
 */
enum nccl_p2p_level {
	NCCL_P2P_LEVEL_VENDOR_284, /* SYS; Intel PHB (PXB on Broadwell), Arm PXB (2.8.4) */
	NCCL_P2P_LEVEL_VENDOR,     /* SYS; Intel and Arm PXB (2.12 - 2.22) */
	NCCL_P2P_LEVEL_PXB,        /* PXB; SYS for an AMD node of at most two of the
				    * communicator's GPUs (2.23 on) */
};

struct nccl_release {
	const char *version;   /* "2.30.7" */
	const char *source;    /* the tag and files the numbers are from */
	/* The first minor release (2.Y) this table stands for: a release
	 * takes the table of the largest minor_from at or below its own. */
	unsigned minor_from;
	bool has[ALGO_NCCL_COUNT]; /* the algorithms it has */
	bool pxn;              /* PXN (2.12 and later) */
	bool nvls;             /* NVLink SHARP (2.17 and later) */
	enum topo_path_type default_gdr_level; /* NCCL_NET_GDR_LEVEL unset */
	bool ll128_volta_ampere_only; /* LL128 on sm70 or sm80 alone (2.8.4) */
	/* LL128's default on Hopper and later across nodes up to P2C (and
	 * PXN), not PXB (2.27 on: NCCL_LL128_C2C). */
	bool ll128_hopper_p2c;
	/* The release knows no GPU past Hopper: LL128's default (`case 90`)
	 * and connect.cc's doubling (`minCompCap == 90`) leave Blackwell
	 * out (2.19.3). */
	bool newest_gpu_hopper;
	/* Microseconds, NCCL's baseLat and hwLat. */
	double base_lat[ALGO_NCCL_COUNT][PROTO_COUNT];
	double hw_lat[HOP_CLASS_COUNT][ALGO_NCCL_COUNT][PROTO_COUNT];
	/* hw_lat's Tree/Simple entries are a whole chunk's time, not a
	 * hop's (2.8.4: "the latency a 256kB chunk"): the timing, which moves
	 * the chunk itself, takes the newest release's per-hop figure. */
	bool tree_simple_lat_is_chunk;
	/* The timing's Ring/Simple network hop where the tuner's is no hop's
	 * figure (2.12-2.13: 28 us, where 2.11 and 2.14 have 9.6); 0: the
	 * tuner's. */
	double ring_simple_net_timing;
	/* GB/s: LL's whole limit, rows by GPU generation on one node and
	 * (Volta|Intel, Ampere|AMD) across nodes; per-channel limits by GPU
	 * generation, or for LL128 by collective where the release has it
	 * so (ll128_by_op[op] > 0). */
	double ll_max[TOPO_GPU_ARCH_COUNT][NCCL_NODE_COLUMNS];
	/* The tuner's bus bandwidth, every algorithm's, at most this on a GPU
	 * generation (until 2.17: 235 GB/s on Ampere); 0: no cap. */
	double bus_bw_cap[TOPO_GPU_ARCH_COUNT];
	double ring_ll128[TOPO_GPU_ARCH_COUNT][NCCL_NODE_COLUMNS];
	double tree_ll128[TOPO_GPU_ARCH_COUNT][NCCL_NODE_COLUMNS];
	double ll128_by_op[TRACE_OP_COUNT];
	double tree_simple[TOPO_GPU_ARCH_COUNT][NCCL_NODE_COLUMNS];
	double nvls_tree[TOPO_GPU_ARCH_COUNT][NCCL_NODE_COLUMNS];
	double nvls_efficiency[TOPO_GPU_ARCH_COUNT];
	/* The tuner's NVLS bandwidth is nChannels x min(bwIntra, bwInter)
	 * (NVLS-tree's bwInter / 2 beyond 2 nodes), its algorithm bandwidth
	 * 5/6 of that, with no nvlsEfficiency and no per-channel cap
	 * (2.19.3's tuning.cc), not the later per-step formula. */
	bool nvls_min_bw;
	/* ncclNvlsTuning's defaults (transport/nvls.cc): NVLS's channels by
	 * GPU generation, on one node and across nodes
	 * (NCCL_NVLS_NCHANNELS); NVLS's largest chunk, bytes
	 * (nvlsChunkSize); NVLS-tree's where no tuning sets one, 64 KiB
	 * from 4 nodes aside: the Simple step (2.19.3) or nvlsChunkSize
	 * (2.30.7). */
	unsigned nvls_channels[TOPO_GPU_ARCH_COUNT][2];
	uint64_t nvls_chunk;
	uint64_t nvls_tree_chunk;
	/* Blackwell across nodes takes NVLS's channels, chunk and
	 * NVLS-tree's largest chunk from the nodes, GPUs a node, NIC speed
	 * and GPU-NIC path (ncclNvlsTreeSm100Tuning, 2.30.7). */
	bool nvls_sm100_tuning;
	/* The share of a channel's speed a ring's LL gets (2.30.7: .5;
	 * 2.8.4: 1/4 across nodes or for all-reduce, else 1/3). */
	double ring_ll_share, ring_ll_share_one_node;
	/* Ring LL128 at one GPU a node (2.8.4: .7, else its usual .92). */
	double ring_ll128_one_ppn;
	double tree_ll128_factor;  /* across nodes: 120/128, 2.8.4 .915 */
	double ll_intra_factor;    /* LL's intra hops across nodes: x1.8 in 2.8.4 */
	/* The tree's bus bandwidth where its graph is NCCL_TOPO_PATTERN_TREE,
	 * all NIC traffic through one GPU (at one GPU a node, and where
	 * Hopper's search falls back to it: channels.h): x.85 from 2.19.3
	 * on, 1 (none) in 2.8.4. */
	double tree_pattern_factor;
	/* search.cc's "Try a simpler tree": on sm90 and later a balanced
	 * tree not found falls back to NCCL_TOPO_PATTERN_TREE (2.19.3 on). */
	bool tree_simpler_fallback;
	/* On an NVSwitch the search tries a GPU's neighbours by index first,
	 * a tree's previous one before its next (ncclTopoSearchNextGpuSort,
	 * "Try to use neighbors first", 2.19.3 on: not in v2.19.1-1), so a
	 * tree whose second GPU is its entry's previous goes on down; before,
	 * on up from the entry (channels_tree_chain). */
	bool nvswitch_neighbors_first;
	/* The tree's pattern by node count (init.cc of 2.5 - 2.9): a
	 * simple NCCL_TOPO_PATTERN_TREE on one or two nodes, else a
	 * balanced tree, which search.cc makes SPLIT_TREE before Ampere
	 * ("SPLIT_TREE works better on older archs"). Later releases ask
	 * for a balanced tree on any node count. */
	bool tree_pattern_by_nodes;
	/* The tree graph may have fewer channels than the ring's (init.cc
	 * treeGraph.minChannels 1; from 2.18 the ring's). */
	bool tree_min_channels_one;
	/* search.cc followPath: a GPU's path through an Intel root complex
	 * (PATH_PHB) charges its PCI links INTEL_P2P_OVERHEAD x the speed
	 * (topo.h: 12/9 up to 2.8, 6/5 from 2.9). */
	double intel_p2p_overhead;
	/* The fastest PCIe generation NCCL's table of link speeds has
	 * (topo.cc kvDictPciGen): 4 in 2.8.4, whose Gen5 links read as its
	 * fallback, Gen3's rate; 6 from 2.12. */
	unsigned pci_max_gen;
	/* The bandwidth NCCL's topology gives the link between two CPUs,
	 * GB/s (topo.cc ncclTopoGetInterCpuBw), by vendor but Intel's:
	 * AMD_BW (LOC_BW, no limit, before 2.19), ARM_BW; and by Intel class
	 * (topo.h BDW_QPI_BW, the older QPI_BW or QPI_WIDTH; SKL_QPI_BW;
	 * SRP_QPI_BW and ERP_QPI_BW from 2.26, Skylake's before, whose
	 * class then reaches every model from 0x55). An Intel CPU of no
	 * given class takes Skylake's (nccl_inter_cpu_bw). */
	double inter_cpu_bw[TOPO_CPU_VENDOR_COUNT];
	double intel_cpu_bw[TOPO_CPU_MODEL_COUNT];
	/* NCCL's figure for one NVLink, GB/s, by GPU generation (topo.h
	 * SM*_NVLINK_BW): its search counts a GPU's NVLink as links x this,
	 * whatever the topology says a link carries. */
	double nvlink_link_bw[TOPO_GPU_ARCH_COUNT];
	bool net_overhead;         /* ring intra hops pay NCCL_NET_OVERHEAD */
	/* The tuner's all-reduce ring counts 2 nNodes network steps, not
	 * 2 (nNodes - 1) (2.12 to 2.22, 2.19.3 among them). */
	bool ring_allreduce_inter_2n;
	bool ppn1_tree_net_lat;    /* one GPU a node: the tree's network row */
	/* "Plateau effect of ring": Simple all-reduce latency x
	 * plateau[Volta or not] from plateau_bytes_per_rank on (per channel
	 * when plateau_per_channel). */
	double plateau[2];
	uint64_t plateau_bytes_per_rank;
	bool plateau_per_channel;
	/* Tree/Simple shrinks its chunk by the tree's depth (2.8.4). */
	bool tree_simple_chunk_by_depth;
	/* treeCorrectionFactor by protocol and log2(bytes / 64), 0 to 22
	 * for the tree; 2.30.7's has a 24th entry, 23, for NVLS-tree. */
	double tree_corr[PROTO_COUNT][24];
	/* Under 64 B the table's first entry: log2i(0) is 0 before 2.22
	 * (src/include/utils.h), so logSize 0; from 2.22 it is -1, no
	 * correction. */
	bool tree_corr_under_64_first;
	/* NVLS-tree's bandwidth takes treeCorrectionFactor too on Blackwell
	 * with x86 CPUs (2.30.7's ncclTopoGetAlgoTime). */
	bool nvls_tree_corr_blackwell_x86;
	/* The channel search (search.cc): speeds tried, fastest first, by
	 * GPU generation, within a node and with a network. */
	const double *speeds[TOPO_GPU_ARCH_COUNT][2];
	size_t nspeeds[TOPO_GPU_ARCH_COUNT][2];
	/* MAXCHANNELS (src/device.h): a communicator's channels; a graph
	 * searches half as many (init.cc, ringGraph.maxChannels), and
	 * duplication stops there. 32 until 2.24, 64 from 2.25. */
	unsigned max_channels;
	bool dup_skips_hopper;  /* no duplication on Hopper+ with 4+ slow channels */
	bool comm_x2_hopper;    /* connect.cc: twice again on Hopper+ across nodes */
	unsigned comm_x2_below; /* ... while it has fewer channels (2.30.7: 16) */
	enum nccl_first_net first_net; /* which of its nearest NICs a GPU
					* tries first (channels.c) */
	enum nccl_p2p_level p2p_level; /* PCIe peer to peer or SHM (p2p_policy.c) */
	/* The search's typeIntra starts at the node's nearest GPU pair
	 * (ncclTopoGetGpuMinPath), not at NVL (2.25 on: search.cc
	 * v2.30.7-1:1088-1102, v2.24.3-1 has none): with NVLink's P2P off an
	 * NVLS graph is PHB, and the tuner takes PCI's latencies for it. */
	bool intra_from_nearest;
};

/* The releases of this build, newest first (plan_options.nccl indexes
 * them), and the newest. */
extern const struct nccl_release *const nccl_releases[];
extern const size_t nccl_release_count;
const struct nccl_release *nccl_release_newest(void);
/* "2.8.4", "2.12.12", "2.30.7" (a "v" in front and a "-1" behind are taken);
 * NULL when this build has no table for it. */
const struct nccl_release *nccl_release_find(const char *version);
/* The patch release assumed where a version gives only 2.Y: the
 * minor's last, which sorts after every patch NCCL shipped of it (2.27
 * is read as 2.27.7, 2.17 as 2.17.1, its only one). */
#define NCCL_PATCH_LAST 99u
/* Release @version's tables: its own, else (any "2.Y" or "2.Y.Z") those
 * that stand for its minor release, as nccl_release_for_code, with Y in
 * *@minor (0 for a table's own release) and Z in *@patch
 * (NCCL_PATCH_LAST for "2.Y"; @patch may be NULL); NULL for what is no
 * NCCL 2 version. */
const struct nccl_release *nccl_release_for_version(const char *version, unsigned *minor,
						    unsigned *patch);
/* The patch release of @r's own version (7 for 2.30.7). */
unsigned nccl_release_patch(const struct nccl_release *r);
/*
 * @table as NCCL 2.@minor.@patch has it (@minor 0: @table's own
 * release): a copy, with the search's constants of that release where
 * NCCL's source of it differs from the table that stands for it
 * (nvlink_link_bw, inter_cpu_bw, intel_cpu_bw, nvswitch_neighbors_first;
 * nccl_tuning.c search_overrides). plan_build plans with it.
 */
void nccl_release_exact(const struct nccl_release *table, unsigned minor, unsigned patch,
			struct nccl_release *out);
/* The minor release of @r's own version (30 for 2.30.7). */
unsigned nccl_release_minor(const struct nccl_release *r);
/* The minor releases @r's tables stand for: "2.17 to 2.20", "2.25 and
 * later". */
void nccl_release_span(const struct nccl_release *r, char *buf, size_t len);
/* "2.30.7, 2.21.5, 2.19.3, 2.12.12, 2.8.4" */
const char *nccl_release_list(void);
/* @r's index in nccl_releases (plan_options.nccl); nccl_release_count
 * for NULL or a release not in the table. */
unsigned nccl_release_index(const struct nccl_release *r);
/*
 * The release whose tables stand for NCCL_VERSION_CODE @code (22703 for
 * 2.27.3; before 2.9, 2804 for 2.8.4): the one of the largest minor_from
 * at or below the code's minor version. @name gets the code's version,
 * "2.27.3".
 */
const struct nccl_release *nccl_release_for_code(unsigned code, char *name,
						 size_t len);

/* Microseconds, as NCCL writes them: the tuner's. */
double nccl_base_latency(const struct nccl_release *r, enum algo_id a,
			 enum proto_id p);
double nccl_hw_latency(const struct nccl_release *r, enum hop_class h,
		       enum algo_id a, enum proto_id p);
/* The timing's launch and per-hop latencies: the tuner's, but for
 * entries that are a chunk's time (tree_simple_lat_is_chunk). */
double nccl_launch_latency(const struct nccl_release *r, enum algo_id a,
			   enum proto_id p);
double nccl_hop_latency(const struct nccl_release *r, enum hop_class h,
			enum algo_id a, enum proto_id p);
/* NCCL_NET_OVERHEAD's default: what posting a network send costs. */
double nccl_net_overhead_us(const struct nccl_release *r,
			    enum topo_cpu_vendor v);

/* What release @r's search counts the link between two of @t's CPUs at,
 * GB/s (nccl_release.inter_cpu_bw, intel_cpu_bw). */
double nccl_inter_cpu_bw(const struct nccl_release *r, const struct topology *t);

/* Bandwidth limits, GB/s (see struct nccl_release); no cap: INFINITY. */
double nccl_bus_bw_cap(const struct nccl_release *r, enum topo_gpu_arch a);
double nccl_ll_max_bw(const struct nccl_release *r, enum topo_gpu_arch a,
		      enum topo_cpu_vendor v, unsigned nnodes);
double nccl_ring_ll128_per_channel(const struct nccl_release *r,
				   enum topo_gpu_arch a, enum trace_op op,
				   unsigned nnodes);
double nccl_tree_per_channel(const struct nccl_release *r,
			     enum topo_gpu_arch a, unsigned nnodes);
double nccl_tree_ll128_per_channel(const struct nccl_release *r,
				   enum topo_gpu_arch a, enum trace_op op,
				   unsigned nnodes);
double nccl_nvls_tree_per_channel(const struct nccl_release *r,
				  enum topo_gpu_arch a, unsigned nnodes);
/* The tuner's share of NVLink for an NVLS reduction (0: no NVLS before
 * Hopper; 1 where the release's formula has none). */
double nccl_nvls_efficiency(const struct nccl_release *r,
			    enum topo_gpu_arch a);
/* What an NVLS reduction gets of NVLink on the machine, whatever release
 * estimates it: the newest release's nvlsEfficiency, the only figure
 * NCCL gives (the timing's, route.c). */
double nccl_nvls_hw_efficiency(enum topo_gpu_arch a);
/*
 * What ncclNvlsTuning leaves on a communicator (transport/nvls.cc) and
 * what it decides by. Sizes in bytes.
 */
struct nccl_nvls_comm {
	enum topo_gpu_arch arch;
	unsigned nnodes, ppn;           /* ppn: comm->minLocalRanks */
	double min_net_bw;              /* comm->minNetBw, GB/s */
	enum topo_path_type type_inter; /* the NVLS graph's GPU-NIC path */
};
struct nccl_nvls_tuning {
	unsigned channels;   /* comm->nvlsChannels */
	uint64_t chunk;      /* NVLS's largest chunk (nvlsChunkSize) */
	uint64_t tree_chunk; /* NVLS-tree's, before enqueue.cc's cuts */
};
void nccl_nvls_tuning(const struct nccl_release *r, const struct nccl_nvls_comm *c,
		      struct nccl_nvls_tuning *out);
/* Tree all-reduce bandwidth correction for mid sizes (64 B .. 256 MiB). */
double nccl_tree_correction(const struct nccl_release *r, enum proto_id p,
			    uint64_t bytes);
/* The same for an NVLS-tree all-reduce (64 B .. 512 MiB) where the
 * release has it for the GPU and CPU; else 1. */
double nccl_nvls_tree_correction(const struct nccl_release *r, enum topo_gpu_arch a,
				 enum topo_cpu_vendor v, enum proto_id p, uint64_t bytes);

/* The channel search's speeds per channel, GB/s, fastest first. */
const double *nccl_search_speeds(const struct nccl_release *r,
				 enum topo_gpu_arch a, int with_network,
				 size_t *n);
/* The most channels of any release here (MAXCHANNELS 64, 2.25 on): what
 * --channels may ask for. Each release's own is its max_channels. */
#define NCCL_MAX_CHANNELS 64

#endif
