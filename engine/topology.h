/* SPDX-License-Identifier: MIT */
/*
 * topology: one node type and the cluster it is replicated into.
 *
 * A node is a PCIe tree: one root complex per CPU socket, PCIe switches
 * below a socket or below another switch, and GPUs and NICs below a switch
 * or directly on a root port. Links carry a bandwidth per direction ("up" is
 * toward the CPU) and a one-way latency. The YAML format is documented in
 * docs/topology-format.md; topology_load() reads it.
 *
 * Everything is held in fixed arrays, so a topology is one plain struct with
 * no pointers to free: copy it, compare it, keep it on the stack of a test.
 */
#ifndef GDRLAB_TOPOLOGY_H
#define GDRLAB_TOPOLOGY_H

#include <stdbool.h>
#include <stdint.h>

#include "diag.h"

#define TOPO_NAME_MAX 32
#define TOPO_MAX_SOCKETS 8
#define TOPO_MAX_SWITCHES 64
/*
 * Switches above switches, at most, so that every transfer's resources
 * fit plan.h's PLAN_MAX_USES (48): direct, 2 device-to-device routes (2
 * device links, 2 x depth switch links, P2P cap, inter-socket) + 2 ports
 * + 2 GPU caps = 4 x depth + 12; staged, 4 device-to-memory routes (depth
 * + 3 each) + 2 ports = 4 x depth + 14. Real servers nest two or three.
 */
#define TOPO_MAX_SWITCH_DEPTH 8
#define TOPO_MAX_GPUS 64
#define TOPO_MAX_NICS 64
#define TOPO_MAX_NODES 65536
#define TOPO_NONE (-1)

enum topo_link_kind {
	TOPO_LINK_PCIE,
	TOPO_LINK_C2C, /* a GPU's coherent link to its CPU (Grace Hopper's
			* NVLink-C2C): NCCL's C2C link, P2C path to a NIC */
};

struct topo_link {
	double bw_up;   /* bytes/s, child -> parent (toward the CPU) */
	double bw_down; /* bytes/s, parent -> child */
	double latency; /* seconds, one way; never zero */
	enum topo_link_kind kind;
	/* A PCIe link given by generation and lanes, as Linux reports it
	 * to NCCL, which its search counts by (search_loads.c); 0 for a link
	 * given by its bandwidth. */
	unsigned pcie_gen, pcie_width;
};

struct topo_socket {
	char name[TOPO_NAME_MAX];
	double mem_bw;       /* host memory, bytes/s; reads and writes share it */
	double p2p_read_bw;  /* peer-to-peer reads routed through this root complex */
	double p2p_write_bw; /* peer-to-peer writes routed through it */
};

struct topo_switch {
	char name[TOPO_NAME_MAX];
	int socket;        /* index of the socket whose root complex it hangs under */
	int parent_switch; /* TOPO_NONE when on a root port */
	struct topo_link uplink;
};

/* A GPU or a NIC: where it sits in the tree and its link to its parent. */
struct topo_device {
	char name[TOPO_NAME_MAX];
	int socket;        /* socket whose root complex is above it */
	int parent_switch; /* TOPO_NONE when directly on a root port */
	struct topo_link link;
	/*
	 * GPUs: how fast a peer (a NIC, another GPU) can read or write this
	 * GPU's memory through its BAR, whatever the links allow. INFINITY
	 * when not given; always INFINITY for NICs.
	 */
	double p2p_read_bw;
	double p2p_write_bw;
	/*
	 * GPUs: what CUDA refuses this GPU (GeForce cards, for one): a NIC
	 * reading or writing its memory (no_gdr: NCCL asks
	 * cudaDevAttrGPUDirectRDMASupported), and peer access over PCIe to
	 * and from the other GPUs (no_peer_access: cudaDeviceCanAccessPeer;
	 * NCCL then copies through host memory, p2p_policy.h). Always
	 * false for NICs.
	 */
	bool no_gdr;
	bool no_peer_access;
};

struct topo_nic {
	struct topo_device dev;
	double line_rate;  /* bytes/s on the wire, per direction */
	double efficiency; /* fraction of line rate RDMA payload achieves */
	double latency;    /* seconds added by this NIC to each message */
};

enum topo_gpu_fabric_kind {
	TOPO_GPU_FABRIC_PCIE,     /* GPU to GPU over PCIe peer-to-peer */
	TOPO_GPU_FABRIC_NVLINK,   /* NVLink, GPU to GPU (DGX-1's mesh) */
	TOPO_GPU_FABRIC_NVSWITCH, /* NVLink through NVSwitches: any pair */
};

struct topo_gpu_fabric {
	enum topo_gpu_fabric_kind kind;
	double bw;      /* NVLink: per GPU per direction, bytes/s */
	double latency; /* NVLink: seconds per hop */
	unsigned links; /* NVLink links per GPU when given as links x
			 * link_bandwidth, or the most a GPU has in its
			 * pairs (0: bandwidth given whole) */
	bool nvls;      /* NVSwitch with NVLink SHARP (multicast and
			 * in-switch reduction, third-generation NVSwitch) */
	/*
	 * A mesh (kind nvlink) as wired, given as `pairs`: pair_links[i][j]
	 * NVLinks between GPUs i and j (symmetric, 0 on the diagonal), each
	 * link_bw bytes/s a direction, as DGX-1's hybrid cube-mesh or NVLink
	 * bridges between pairs of PCIe cards. Without (wired false) any two
	 * GPUs reach each other at a GPU's whole bandwidth.
	 */
	bool wired;
	double link_bw; /* one link, bytes/s a direction (0: given whole) */
	uint8_t pair_links[TOPO_MAX_GPUS][TOPO_MAX_GPUS];
};

/* How a node's NICs are cabled to the leaf switches. */
enum topo_attach {
	TOPO_ATTACH_RAIL, /* rail-optimised: NIC k of every node of a group on leaf k */
	TOPO_ATTACH_NODE, /* all NICs of a node on one leaf */
	TOPO_ATTACH_COUNT,
};

/* One tier of switches (fabric.h wires them). */
struct topo_tier {
	unsigned ports;    /* ports per switch, down and up together */
	unsigned uplinks;  /* of them, toward the tier above (0: top tier) */
	unsigned count;    /* spine: spines per pod (0: one per leaf uplink) */
	unsigned nodes;    /* leaf: nodes per leaf (node) or per rail group
			    * (rail); 0: as many as the free ports hold */
	double port_bw;    /* bytes/s per direction of a downlink port */
	double uplink_bw;  /* bytes/s per direction of an uplink port */
	double latency;    /* seconds through one switch of the tier */
};

struct topo_fabric {
	double switch_latency;   /* seconds per switch crossed */
	unsigned hops;           /* switches between two NICs */
	double oversubscription; /* >= 1; divides what a NIC port gets from the fabric */
	bool in_network_reduction; /* the switches reduce (SHARP): CollNet */
	/*
	 * The switches themselves (fabric.h), when the file names a leaf:
	 * tiers 2 (leaf, spine) or 3 (leaf, spine, core); 0 keeps the
	 * crossbar above (hops and oversubscription).
	 */
	unsigned tiers;
	enum topo_attach attach;
	struct topo_tier leaf, spine, core;
	uint64_t ecmp_seed;      /* seeds the hash that spreads flows over uplinks */
};

struct topo_staging {
	uint64_t chunk_bytes;  /* staged path: bytes per bounce buffer */
	unsigned buffers;      /* bounce buffers per side */
	double copy_bw;        /* one copy engine's GPU<->host copy, bytes/s */
	double chunk_overhead; /* seconds of CPU work per chunk copied */
	unsigned copy_engines; /* per GPU and direction: that many copies
				* run at copy_bw at once, more share them */
};

/* The GPU generation: NCCL's tuning constants are per generation. */
enum topo_gpu_arch {
	TOPO_GPU_VOLTA,     /* sm70 */
	TOPO_GPU_AMPERE,    /* sm80 */
	TOPO_GPU_HOPPER,    /* sm90 */
	TOPO_GPU_BLACKWELL, /* sm100 */
	TOPO_GPU_ARCH_COUNT,
};

/* The CPU vendor: NCCL's network overhead and LL limits depend on it. */
enum topo_cpu_vendor {
	TOPO_CPU_INTEL,
	TOPO_CPU_AMD,
	TOPO_CPU_ARM,
	TOPO_CPU_VENDOR_COUNT,
};

/*
 * An Intel CPU's class as NCCL tells them apart, by CPUID family 6's model
 * (topo.cc ncclTopoAddCpu, v2.30.7-1:744-751): the bandwidth its search
 * gives the link between two sockets depends on it (topo.cc
 * ncclTopoGetInterCpuBw). Unset: Skylake's class, what gdrlab took for
 * every Intel CPU before the file could say.
 */
enum topo_cpu_model {
	TOPO_CPU_MODEL_UNSET,
	TOPO_CPU_MODEL_BROADWELL,       /* BDW: below model 0x55, or not family 6 */
	TOPO_CPU_MODEL_SKYLAKE,         /* SKL: 0x55 (Skylake-SP) up to 0x8E */
	TOPO_CPU_MODEL_SAPPHIRE_RAPIDS, /* SRP: 0x8F up to 0xCE (2.26 on) */
	TOPO_CPU_MODEL_EMERALD_RAPIDS,  /* ERP: 0xCF and above (2.26 on) */
	TOPO_CPU_MODEL_COUNT,
};

const char *topo_gpu_arch_name(enum topo_gpu_arch a);     /* "hopper" */
struct topology;
/* @t's compute capability x 10: its gpu_cc, or its generation's own. */
unsigned topo_gpu_cc(const struct topology *t);
/* @t's GPU's dense peak, TFLOP/s: its gpu_tflops, or the flagship's of
 * its compute capability (topology_yaml.c says whose). */
double topo_gpu_tflops(const struct topology *t);
const char *topo_cpu_vendor_name(enum topo_cpu_vendor v); /* "amd" */
/* "sapphire_rapids"; "" for TOPO_CPU_MODEL_UNSET */
const char *topo_cpu_model_name(enum topo_cpu_model m);
/* The class NCCL 2.26 and later give an Intel CPU of CPUID @family and
 * @model (the kernel's /proc/cpuinfo "cpu family" and "model"). */
enum topo_cpu_model topo_cpu_model_of_cpuid(unsigned family, unsigned model);

struct topology {
	char name[64];
	char file[256]; /* path it was read from, for messages */
	unsigned nodes;
	enum topo_gpu_arch gpu_arch;
	/* Compute capability x 10 (89: Ada), the generation's own (70, 80,
	 * 90, 100) unless the file says otherwise: NCCL tunes an 8.6 or 8.9
	 * GPU as Ampere but, before 2.27, enables LL128 on whole
	 * generations alone (tuning.cc). */
	unsigned gpu_cc;
	/* One GPU's dense BF16 (FP16 on Volta) tensor peak, TFLOP/s: what a
	 * generated job's compute is reckoned at (gen llm); 0: not given,
	 * topo_gpu_tflops then takes its generation's flagship's. */
	double gpu_tflops;
	enum topo_cpu_vendor cpu_vendor;
	/* An Intel CPU's class (cpu_model); TOPO_CPU_MODEL_UNSET for other
	 * vendors and where the file does not say. */
	enum topo_cpu_model cpu_model;

	unsigned nsockets, nswitches, ngpus, nnics;
	struct topo_socket sockets[TOPO_MAX_SOCKETS];
	struct topo_switch switches[TOPO_MAX_SWITCHES];
	struct topo_device gpus[TOPO_MAX_GPUS];
	struct topo_nic nics[TOPO_MAX_NICS];

	struct topo_link inter_socket; /* up = socket 0 -> 1 direction */
	struct topo_gpu_fabric gpu_fabric;
	struct topo_fabric fabric;
	struct topo_staging staging;

	/* Derived once the file is read (topo_cache_paths): each GPU's
	 * nearest NICs as a mask. The planner asks for them per send and
	 * channel (channels_p2p_nic), each time a walk up the switches for
	 * every NIC: 40% of a 1024-rank alltoall's plan on a Clos. A
	 * topology built by hand (nearest_cached false) walks them. */
	uint64_t nearest_nics[TOPO_MAX_GPUS];
	bool nearest_cached;
};

/* GPUs of a node reach each other over NVLink (a mesh or NVSwitches). */
static inline bool topo_has_nvlink(const struct topology *t)
{
	return t->gpu_fabric.kind != TOPO_GPU_FABRIC_PCIE;
}

/* NVLinks from GPU @a to GPU @b of a wired mesh (0: not a pair). */
static inline unsigned topo_pair_links(const struct topology *t, unsigned a, unsigned b)
{
	return t->gpu_fabric.pair_links[a][b];
}

/* NVLinks GPU @gpu has in its pairs of a wired mesh, all peers together. */
static inline unsigned topo_gpu_pair_links(const struct topology *t, unsigned gpu)
{
	unsigned sum = 0;

	for (unsigned j = 0; j < t->ngpus; j++)
		sum += t->gpu_fabric.pair_links[gpu][j];
	return sum;
}

/*
 * Read a topology file. On failure returns a negative errno and fills @d
 * with "file:line:col: key: problem". @topo is left zeroed on failure.
 */
int topology_load(const char *path, struct topology *topo, struct diag *d);

/* Same, from a buffer; @name is used as the file name in messages. */
int topology_load_buffer(const char *buf, size_t len, const char *name,
			 struct topology *topo, struct diag *d);

/* One value of a topology file replaced before it is read (a sweep
 * plan's axis): a dotted path ("nics.rate", "staging.chunk") and the new
 * value ("200 Gbit/s"), checked as the file's own would be. */
struct topo_override {
	char path[64];
	char value[96];
};

/* topology_load with @nov overrides applied; a path the file lacks is an
 * error ("file: nics.rat: the topology has no 'nics.rat' to set"). */
int topology_load_with(const char *path, const struct topo_override *ov, size_t nov,
		       struct topology *topo, struct diag *d);
/* Same, from a buffer (the fuzz target's: overrides walk aliases). */
int topology_load_buffer_with(const char *buf, size_t len, const char *name,
			      const struct topo_override *ov, size_t nov,
			      struct topology *topo, struct diag *d);

/* Whether @nodes nodes can be joined by @t's crossbar fabric: not more
 * than two back to back (hops: 0, no switch); else false, why in @why.
 * A fabric of switches is fabric_check's (fabric.h). */
bool topology_fabric_fits(const struct topology *t, unsigned nodes, char *why, size_t len);

/* Index of the GPU/NIC/switch/socket called @name, or TOPO_NONE. */
int topology_find_gpu(const struct topology *topo, const char *name);
int topology_find_nic(const struct topology *topo, const char *name);
int topology_find_switch(const struct topology *topo, const char *name);
int topology_find_socket(const struct topology *topo, const char *name);

#endif
