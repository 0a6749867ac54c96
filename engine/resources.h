/* SPDX-License-Identifier: MIT */
/*
 * resources: the shared capacities of a cluster, and the routes that cross
 * them inside one node.
 *
 * Every node has the same resources (the topology describes one node type),
 * numbered node * per_node + base[kind] + index. A route is the list of
 * resources, in data-flow direction, between two endpoints of a node: a
 * GPU's memory, a NIC, or the host memory of a socket.
 */
#ifndef GDRLAB_RESOURCES_H
#define GDRLAB_RESOURCES_H

#include <stddef.h>
#include <stdint.h>

#include "fabric.h"
#include "topology.h"

enum res_kind {
	RES_SWITCH_UP,   /* per switch: uplink toward the CPU */
	RES_SWITCH_DOWN, /* per switch: uplink away from the CPU */
	RES_GPU_UP,      /* per GPU: its PCIe link, GPU -> parent */
	RES_GPU_DOWN,
	RES_NIC_UP,      /* per NIC: its PCIe link, NIC -> parent */
	RES_NIC_DOWN,
	RES_MEM,         /* per socket: host memory, reads and writes */
	RES_P2P_READ,    /* per socket: P2P reads through its root complex */
	RES_P2P_WRITE,   /* per socket: P2P writes through its root complex */
	RES_XSOCKET_UP,  /* inter-socket link, lower socket -> higher */
	RES_XSOCKET_DOWN,
	RES_NVLINK_TX,   /* per GPU: NVLink out */
	RES_NVLINK_RX,   /* per GPU: NVLink in */
	RES_PORT_TX,     /* per NIC: what the wire and fabric give it, out */
	RES_PORT_RX,     /* per NIC: in */
	/* Last, so that the ids of the kinds above do not move. */
	RES_GPU_P2P_READ,  /* per GPU: peers reading its memory (a NIC sending) */
	RES_GPU_P2P_WRITE, /* per GPU: peers writing its memory (a NIC
			    * receiving, a GPU copying into it over PCIe) */
	RES_CE_D2H,        /* per GPU: its copy engines, GPU -> host */
	RES_CE_H2D,        /* per GPU: its copy engines, host -> GPU */
	RES_NVLINK_PAIR,   /* per ordered pair of GPUs of a wired mesh: the
			    * NVLinks from GPU i to GPU j, index i x GPUs + j
			    * (none unless the mesh is wired) */
	RES_KIND_COUNT,
};

struct res_layout {
	uint32_t base[RES_KIND_COUNT];
	uint32_t per_node;
	uint32_t nodes;
	/* The switches' links, shared by the nodes, numbered after all of
	 * theirs (fabric.h); none on a crossbar. */
	struct fabric_geom fabric;
};

void res_layout_init(struct res_layout *l, const struct topology *topo,
		     unsigned nodes);
static inline uint32_t res_id(const struct res_layout *l, unsigned node,
			      enum res_kind kind, unsigned index)
{
	return node * l->per_node + l->base[kind] + index;
}
/* Every resource of the cluster: the nodes' and the fabric's. */
static inline size_t res_total(const struct res_layout *l)
{
	return (size_t)l->per_node * l->nodes + l->fabric.n;
}

/* Capacity in bytes/s of one resource (INFINITY when unlimited). */
double res_capacity(const struct topology *topo, enum res_kind kind,
		    unsigned index);
/* Which node, kind and instance a resource id of a node stands for
 * (not a fabric link's: fabric_owns). */
void res_locate(const struct res_layout *l, uint32_t id, unsigned *node,
		enum res_kind *kind, unsigned *index);
double res_capacity_of(const struct res_layout *l, const struct topology *topo,
		       uint32_t id);
/* Capacity of any resource id, a fabric link's included. */
/* Fill @cap (res_total(l) entries). */
void res_fill_capacities(const struct res_layout *l,
			 const struct topology *topo, double *cap);
/* "node3/nic1.port_tx": a name for reports and the SimGrid platform. */
void res_name(const struct res_layout *l, const struct topology *topo,
	      uint32_t id, char *buf, size_t len);

enum route_end_kind { ROUTE_GPU, ROUTE_NIC, ROUTE_MEM };

struct route_end {
	enum route_end_kind kind;
	int index; /* GPU, NIC or socket index */
};

#define ROUTE_MAX 40

/* Node-relative resources (add node * per_node) and the summed latency. */
struct route {
	unsigned n;
	uint32_t res[ROUTE_MAX];
	double latency; /* seconds */
};

/*
 * The resources data crosses from @from to @to inside one node, with the
 * peer-to-peer cap of each root complex crossed when both ends are devices
 * (@p2p_kind is RES_P2P_READ when the receiving device pulls the data, as a
 * NIC reading GPU memory, else RES_P2P_WRITE).
 */
void route_build(const struct res_layout *l, const struct topology *topo,
		 struct route_end from, struct route_end to,
		 enum res_kind p2p_kind, struct route *r);

#endif
