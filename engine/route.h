/* SPDX-License-Identifier: MIT */
/*
 * route: the stages and links of one connection, inside a node or across
 * the fabric, on the path the options and NCCL's GDR policy allow.
 */
#ifndef GDRLAB_ROUTE_H
#define GDRLAB_ROUTE_H

#include <stdbool.h>
#include <stddef.h>

#include "algo.h"
#include "plan.h"

/* What determines a route; equal requests give equal routes. */
struct route_req {
	enum conn_kind kind;
	unsigned src_gpu, dst_gpu; /* local GPU indices */
	bool intra;                /* both ends on one node */
	int nic_src, nic_dst;      /* NICs of the channel (inter-node) */
	int relay_gpu;             /* PXN: the local GPU whose NIC sends, the
				    * data reaching it over NVLink; or -1 */
	unsigned switches;         /* network switches between the two NICs
				    * (fabric_switches: the leaf, spine and
				    * core tiers cross different counts) */
	unsigned node_gpus;        /* the communicator's GPUs on a node
				    * (p2p_policy.h) */
	/* NCCL's p2p path (a send/receive, an alltoall): the
	 * communicator's GPUs on each end's node, among which
	 * channels_p2p_nic picks the NICs; NULL for a collective's hop */
	const unsigned *src_gpus, *dst_gpus;
	unsigned nsrc_gpus, ndst_gpus;
};

/*
 * The NICs channel @channel uses for @q's GPUs where the caller left
 * them -1 (a collective's channel layout chooses its own; a p2p
 * connection's are channels_p2p_nic's), and the PXN
 * relay of the send (gdr_policy.h: NCCL 2.12+, collectives and p2p
 * alike). A send/receive whose sender is beyond PXB of its NIC leaves by
 * the receiver's rail when that rail's NIC is within PXB of the
 * receiver's local index (NVIDIA's "Doubling all2all performance with
 * NCCL 2.12"). Fills q->nic_* and q->relay_gpu; --pxn off leaves the
 * sender's own NIC and no relay.
 */
void route_pick_nics(const struct plan *p, struct route_req *q,
		     unsigned channel);

/* Fill @r for @q on pattern protocol @proto. */
void route_make(const struct plan *p, enum proto_id proto,
		const struct route_req *q, struct plan_route *r,
		struct route_notes *notes);

#endif
