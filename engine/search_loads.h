/* SPDX-License-Identifier: MIT */
/*
 * search_loads: what one channel of NCCL's graph search loads on a node's
 * links, and whether they carry it, as src/graph/search.cc's followPath
 * charges a path and topo.cc counts each link (engine/channels_search.c searches
 * with them). Loads are per resource of one node (res_layout of one node),
 * in multiples of the channel's speed.
 */
#ifndef GDRLAB_SEARCH_LOADS_H
#define GDRLAB_SEARCH_LOADS_H

#include <stdbool.h>

#include "p2p_policy.h"
#include "resources.h"
#include "topo_path.h"
#include "topology.h"

struct nccl_release;

/* The NCCL variables a search runs under. */
struct search_env {
	/* whether a channel leaving through a NIC beyond its GPU's reach
	 * sends by a peer GPU's NIC over NVLink (PXN: the release has it,
	 * NCCL_PXN_DISABLE and NCCL_P2P_DISABLE are unset) */
	bool pxn;
	enum topo_path_type gdr_level;  /* NCCL_NET_GDR_LEVEL (gdr_policy.h) */
	enum p2p_user_level p2p_level;  /* NCCL_P2P_LEVEL (p2p_policy.h) */
};

/* The PXN relay a channel leaving from @gpu through @nic sends by, or -1. */
int search_exit_relay(const struct topology *t, const struct search_env *env,
		      unsigned gpu, int nic);

/* Whether NCCL's topology sees resource kind @kind: it knows links, not
 * a root complex's peer-to-peer limits nor host memory (topo.h has
 * neither). */
bool search_sees(enum res_kind kind);

/* A channel entering the node: @nic's port in, the NIC writing @gpu. */
void search_net_in(const struct nccl_release *r, const struct res_layout *l,
		   const struct topology *t, int nic, unsigned gpu,
		   double *use);

/* @share of a channel leaving the node from @gpu through @nic: the NIC
 * reads @gpu, or the PXN relay @gpu writes over NVLink. */
void search_net_out(const struct nccl_release *r, const struct res_layout *l,
		    const struct topology *t, const struct search_env *env,
		    unsigned gpu, int nic, double share, double *use);

/* A chain of the @n GPUs @order inside a node, each sending to the next
 * (a tree's; a ring's closes it, @ring_closes, without a network), @share
 * of the speed each hop (a tree's bwIntra over its bwInter); a pair
 * refused peer-to-peer (p2p_policy.h) through the receiver's CPU. */
void search_add_chain(const struct nccl_release *r, const struct search_env *env,
		      const struct res_layout *l, const struct topology *t, const unsigned *order,
		      unsigned n, bool ring_closes, double share, double *use);

/*
 * What NCCL's topology counts resource @kind @idx at, GB/s, where it has
 * its own figure:
 * - a NIC at its line rate (speed / 8000, topo.cc), whatever RDMA then
 *   achieves;
 * - a PCIe link of generation g and w lanes at w x rate(g) / 80, rate in
 *   100 Mbit/s a lane (topo.cc kvDictPciGen: 60 for Gen3, doubling a
 *   generation; past the release's table, Gen3's), 12 GB/s for Gen3
 *   x16 where the link carries 12.6 at the topology's efficiency;
 * - the link between two sockets at the release's figure for the CPU's
 *   vendor (ncclTopoGetInterCpuBw);
 * - a GPU's NVLink, given as links, at links x the release's figure for
 *   one (topo.h SM*_NVLINK_BW); a wired pair's likewise, its own links;
 * Anything else at the topology's capacity.
 */
double search_capacity(const struct nccl_release *r, const struct topology *t,
		       enum res_kind kind, unsigned idx);

/* The least capacity of the links NCCL's paths see from @from to @to
 * (@l one node's layout), GB/s, each at its own figure (search_capacity):
 * a path's bw in NCCL's topology (paths.cc). */
double search_path_bw(const struct nccl_release *r, const struct res_layout *l,
		      const struct topology *t, struct route_end from, struct route_end to);

/* GPU @gpu's path to NIC @nic with the NIC at its line rate: the bw of
 * NCCL's GPU-to-NET path, GB/s. */
double search_net_bw(const struct nccl_release *r, const struct res_layout *l,
		     const struct topology *t, unsigned gpu, unsigned nic);

/* Whether the loads @use carry @speed GB/s each, every resource NCCL sees
 * at its own figure for it (search_capacity). */
bool search_loads_fit(const struct nccl_release *r, const struct topology *t,
		      const struct res_layout *l, const double *use,
		      double speed);

#endif
