/* SPDX-License-Identifier: MIT */
/*
 * fabric: the switches between the nodes, when the topology names them
 * (topology.h, struct topo_fabric with tiers 2 or 3), and a network hop's
 * way through them.
 *
 * Leaves take the NICs: rail-optimised (NIC k of each node of a rail
 * group on the group's leaf k, as NVIDIA's DGX SuperPOD cables them) or a
 * node's NICs all on one leaf. A leaf's uplink u goes to spine u mod S of
 * its pod (S spines a pod, each leaf with uplinks / S links to each): a
 * two-tier fat tree is one pod. With a core tier, spine s of every pod
 * has its uplink j on core (s, j), one port a pod: the planes of a
 * three-tier Clos. Every link is two resources, one a direction, shared
 * by every node: their ids follow the nodes' own (resources.h).
 *
 * A hop between two leaves picks one of the equal-cost uplinks by a hash
 * of its flow (source node, destination node, NICs, channel) seeded by
 * topo_fabric.ecmp_seed: static ECMP, the same answer every run. A hop
 * between two NICs of one leaf crosses that leaf alone.
 */
#ifndef GDRLAB_FABRIC_H
#define GDRLAB_FABRIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "topology.h"

/* Links of one hop at most: leaf up, spine up, spine down, leaf down. */
#define FABRIC_PATH_MAX 4

enum fabric_kind {
	FABRIC_LEAF_UP,    /* per leaf and uplink: leaf -> spine */
	FABRIC_LEAF_DOWN,  /* spine -> leaf */
	FABRIC_SPINE_UP,   /* per spine and uplink: spine -> core */
	FABRIC_SPINE_DOWN, /* core -> spine */
	FABRIC_KIND_COUNT,
};

/* The switches of one cluster size, and where their links' ids start. */
struct fabric_geom {
	unsigned tiers;          /* 0: a crossbar, no links of its own */
	unsigned nnics;          /* per node */
	unsigned per_leaf;       /* nodes a leaf (node) or a rail group (rail) takes */
	unsigned leaves, leaf_up;
	unsigned spines_per_pod, leaves_per_pod, pods, spines, spine_up;
	unsigned cores;
	uint32_t base;           /* id of the first link: after every node's */
	uint32_t kind_base[FABRIC_KIND_COUNT]; /* relative to base */
	uint32_t n;              /* link resources in all */
};

/* The switches of @nodes nodes of @t; tiers 0 when @t has none. */
void fabric_geom_init(struct fabric_geom *g, const struct topology *t,
		      unsigned nodes, uint32_t base);

/* What fabric_check found wrong: which tier's which key to blame. */
enum fabric_problem {
	FABRIC_OK,
	FABRIC_LEAF_PORTS,  /* a NIC on a leaf with no free port */
	FABRIC_SPINE_SPLIT, /* leaf uplinks that do not share out over the spines */
	FABRIC_SPINE_PORTS, /* a spine with fewer ports than the leaves' uplinks need */
	FABRIC_CORE_PORTS,  /* a core with fewer ports than there are pods */
};

/*
 * Whether @nodes nodes fit @t's switches: FABRIC_OK, or what does not
 * fit with the reason in @why (no key, no file: the caller places it).
 */
enum fabric_problem fabric_check(const struct topology *t, unsigned nodes, char *why,
				 size_t len);

/* The leaf NIC @nic of node @node is cabled to. */
unsigned fabric_leaf(const struct fabric_geom *g, const struct topology *t,
		     unsigned node, unsigned nic);

/* Switches a hop crosses: 1 on one leaf, 3 through a spine, 5 through a
 * core; the crossbar's hops when there are no tiers. */
unsigned fabric_switches(const struct fabric_geom *g, const struct topology *t,
			 unsigned src_node, unsigned nic_src, unsigned dst_node,
			 unsigned nic_dst);
/* The time those switches add. */
double fabric_latency(const struct topology *t, unsigned switches);

/*
 * The links (global resource ids) of the hop from NIC @nic_src of node
 * @src_node to NIC @nic_dst of node @dst_node on channel @channel, in
 * data-flow order; returns how many (0 on one leaf or without tiers).
 */
unsigned fabric_path(const struct fabric_geom *g, const struct topology *t,
		     unsigned src_node, unsigned nic_src, unsigned dst_node,
		     unsigned nic_dst, unsigned channel, uint32_t *ids);

/* Whether global id @id is one of the fabric's links. */
static inline bool fabric_owns(const struct fabric_geom *g, uint32_t id)
{
	return g->tiers && id >= g->base && id < g->base + g->n;
}

/* Capacity in payload bytes/s of fabric link @id (fabric_owns). */
double fabric_capacity(const struct fabric_geom *g, const struct topology *t,
		       uint32_t id);
/* "leaf3.up1", "spine0.down2": a name for reports and SimGrid. */
void fabric_name(const struct fabric_geom *g, uint32_t id, char *buf, size_t len);

/* Downlink over uplink bandwidth of a leaf (tier 0) or a spine (tier 1),
 * as cabled for this cluster; 1 for none. */
double fabric_oversubscription(const struct fabric_geom *g, const struct topology *t,
			       unsigned tier);

/* The payload fraction of a fabric link: the NICs' smallest efficiency
 * (their headers cross every link the payload does). */
double fabric_efficiency(const struct topology *t);

#endif
