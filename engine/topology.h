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

struct topo_link {
	double bw_up;   /* bytes/s, child -> parent (toward the CPU) */
	double bw_down; /* bytes/s, parent -> child */
	double latency; /* seconds, one way; never zero */
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
};

struct topo_nic {
	struct topo_device dev;
	double line_rate;  /* bytes/s on the wire, per direction */
	double efficiency; /* fraction of line rate RDMA payload achieves */
	double latency;    /* seconds added by this NIC to each message */
};

enum topo_gpu_fabric_kind {
	TOPO_GPU_FABRIC_PCIE,   /* GPU to GPU over PCIe peer-to-peer */
	TOPO_GPU_FABRIC_NVLINK, /* NVLink or NVSwitch */
};

struct topo_gpu_fabric {
	enum topo_gpu_fabric_kind kind;
	double bw;      /* NVLink: per GPU per direction, bytes/s */
	double latency; /* NVLink: seconds per hop */
};

struct topo_fabric {
	double switch_latency;   /* seconds per switch crossed */
	unsigned hops;           /* switches between two NICs */
	double oversubscription; /* >= 1; divides what a NIC port gets from the fabric */
};

struct topo_staging {
	uint64_t chunk_bytes;  /* staged path: bytes per bounce buffer */
	unsigned buffers;      /* bounce buffers per side */
	double copy_bw;        /* CPU/copy-engine copy bandwidth cap, bytes/s */
	double chunk_overhead; /* seconds of CPU work per chunk copied */
};

struct topology {
	char name[64];
	char file[256]; /* path it was read from, for messages */
	unsigned nodes;

	unsigned nsockets, nswitches, ngpus, nnics;
	struct topo_socket sockets[TOPO_MAX_SOCKETS];
	struct topo_switch switches[TOPO_MAX_SWITCHES];
	struct topo_device gpus[TOPO_MAX_GPUS];
	struct topo_nic nics[TOPO_MAX_NICS];

	struct topo_link inter_socket; /* up = socket 0 -> 1 direction */
	struct topo_gpu_fabric gpu_fabric;
	struct topo_fabric fabric;
	struct topo_staging staging;
};

/*
 * Read a topology file. On failure returns a negative errno and fills @d
 * with "file:line:col: key: problem". @topo is left zeroed on failure.
 */
int topology_load(const char *path, struct topology *topo, struct diag *d);

/* Same, from a buffer; @name is used as the file name in messages. */
int topology_load_buffer(const char *buf, size_t len, const char *name,
			 struct topology *topo, struct diag *d);

/* Index of the GPU/NIC/switch/socket called @name, or TOPO_NONE. */
int topology_find_gpu(const struct topology *topo, const char *name);
int topology_find_nic(const struct topology *topo, const char *name);
int topology_find_switch(const struct topology *topo, const char *name);
int topology_find_socket(const struct topology *topo, const char *name);

#endif
