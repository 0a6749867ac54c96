/* SPDX-License-Identifier: MIT */
#include "resources.h"

#include <math.h>
#include <stdio.h>

static unsigned res_count(const struct topology *topo, enum res_kind kind)
{
	switch (kind) {
	case RES_SWITCH_UP:
	case RES_SWITCH_DOWN:
		return topo->nswitches;
	case RES_GPU_UP:
	case RES_GPU_DOWN:
	case RES_NVLINK_TX:
	case RES_NVLINK_RX:
	case RES_GPU_P2P_READ:
	case RES_GPU_P2P_WRITE:
	case RES_CE_D2H:
	case RES_CE_H2D:
		return topo->ngpus;
	case RES_NIC_UP:
	case RES_NIC_DOWN:
	case RES_PORT_TX:
	case RES_PORT_RX:
		return topo->nnics;
	case RES_MEM:
	case RES_P2P_READ:
	case RES_P2P_WRITE:
		return topo->nsockets;
	case RES_XSOCKET_UP:
	case RES_XSOCKET_DOWN:
		return 1;
	case RES_NVLINK_PAIR:
		return topo->gpu_fabric.wired ? topo->ngpus * topo->ngpus : 0;
	case RES_KIND_COUNT:
		break;
	}
	return 0;
}

void res_layout_init(struct res_layout *l, const struct topology *topo,
		     unsigned nodes)
{
	uint32_t at = 0;

	for (int k = 0; k < RES_KIND_COUNT; k++) {
		l->base[k] = at;
		at += res_count(topo, k);
	}
	l->per_node = at;
	l->nodes = nodes;
	fabric_geom_init(&l->fabric, topo, nodes, at * nodes);
}

double res_capacity(const struct topology *topo, enum res_kind kind,
		    unsigned i)
{
	const struct topo_nic *nic;

	switch (kind) {
	case RES_SWITCH_UP:
		return topo->switches[i].uplink.bw_up;
	case RES_SWITCH_DOWN:
		return topo->switches[i].uplink.bw_down;
	case RES_GPU_UP:
		return topo->gpus[i].link.bw_up;
	case RES_GPU_DOWN:
		return topo->gpus[i].link.bw_down;
	case RES_NIC_UP:
		return topo->nics[i].dev.link.bw_up;
	case RES_NIC_DOWN:
		return topo->nics[i].dev.link.bw_down;
	case RES_MEM:
		return topo->sockets[i].mem_bw;
	case RES_P2P_READ:
		return topo->sockets[i].p2p_read_bw;
	case RES_P2P_WRITE:
		return topo->sockets[i].p2p_write_bw;
	case RES_XSOCKET_UP:
		return topo->inter_socket.bw_up;
	case RES_XSOCKET_DOWN:
		return topo->inter_socket.bw_down;
	case RES_NVLINK_TX:
	case RES_NVLINK_RX:
		return topo_has_nvlink(topo) ? topo->gpu_fabric.bw : INFINITY;
	case RES_PORT_TX:
	case RES_PORT_RX:
		nic = &topo->nics[i];
		/* With the switches modelled, the port is the NIC's cable to
		 * its leaf, and sharing the uplinks does the rest. */
		if (topo->fabric.tiers)
			return fmin(nic->line_rate, topo->fabric.leaf.port_bw) * nic->efficiency;
		return nic->line_rate * nic->efficiency /
		       (topo->fabric.oversubscription >= 1 ?
				topo->fabric.oversubscription : 1);
	case RES_GPU_P2P_READ:
		return topo->gpus[i].p2p_read_bw;
	case RES_GPU_P2P_WRITE:
		return topo->gpus[i].p2p_write_bw;
	case RES_CE_D2H:
	case RES_CE_H2D:
		/* copy_engines copies at once, each at copy_bw. */
		return topo->staging.copy_bw * (topo->staging.copy_engines ?
						       topo->staging.copy_engines : 1);
	case RES_NVLINK_PAIR:
		/* a GPU and itself, or two GPUs with no links: nothing
		 * routes through them */
		return topo_pair_links(topo, i / topo->ngpus, i % topo->ngpus) ?
			       topo_pair_links(topo, i / topo->ngpus, i % topo->ngpus) *
				       topo->gpu_fabric.link_bw :
			       INFINITY;
	case RES_KIND_COUNT:
		break;
	}
	return INFINITY;
}

void res_fill_capacities(const struct res_layout *l,
			 const struct topology *topo, double *cap)
{
	for (int k = 0; k < RES_KIND_COUNT; k++)
		for (unsigned i = 0; i < res_count(topo, k); i++) {
			double c = res_capacity(topo, k, i);

			for (unsigned n = 0; n < l->nodes; n++)
				cap[res_id(l, n, k, i)] = c;
		}
	for (uint32_t i = 0; i < l->fabric.n; i++)
		cap[l->fabric.base + i] = fabric_capacity(&l->fabric, topo, l->fabric.base + i);
}

static const char *const res_kind_names[RES_KIND_COUNT] = {
	[RES_SWITCH_UP] = "uplink_up",   [RES_SWITCH_DOWN] = "uplink_down",
	[RES_GPU_UP] = "pcie_up",        [RES_GPU_DOWN] = "pcie_down",
	[RES_NIC_UP] = "pcie_up",        [RES_NIC_DOWN] = "pcie_down",
	[RES_MEM] = "memory",            [RES_P2P_READ] = "p2p_read",
	[RES_P2P_WRITE] = "p2p_write",   [RES_XSOCKET_UP] = "up",
	[RES_XSOCKET_DOWN] = "down",     [RES_NVLINK_TX] = "nvlink_tx",
	[RES_NVLINK_RX] = "nvlink_rx",   [RES_PORT_TX] = "port_tx",
	[RES_PORT_RX] = "port_rx",
	[RES_GPU_P2P_READ] = "p2p_read", [RES_GPU_P2P_WRITE] = "p2p_write",
	[RES_CE_D2H] = "copy_engines_d2h", [RES_CE_H2D] = "copy_engines_h2d",
	[RES_NVLINK_PAIR] = "nvlink_to",
};

void res_locate(const struct res_layout *l, uint32_t id, unsigned *node,
		enum res_kind *kind, unsigned *index)
{
	unsigned local = id % l->per_node;
	int k = RES_KIND_COUNT - 1;

	/* Kinds with no instances share their base with the next kind, so
	 * the last kind whose base is <= local is the one that owns it. */
	while (k > 0 && l->base[k] > local)
		k--;
	*node = id / l->per_node;
	*kind = k;
	*index = local - l->base[k];
}

double res_capacity_of(const struct res_layout *l, const struct topology *topo,
		       uint32_t id)
{
	unsigned node, index;
	enum res_kind kind;

	if (fabric_owns(&l->fabric, id))
		return fabric_capacity(&l->fabric, topo, id);
	res_locate(l, id, &node, &kind, &index);
	return res_capacity(topo, kind, index);
}

void res_name(const struct res_layout *l, const struct topology *topo,
	      uint32_t id, char *buf, size_t len)
{
	const char *owner = "inter_socket";
	unsigned node, index;
	enum res_kind k;

	if (fabric_owns(&l->fabric, id)) {
		fabric_name(&l->fabric, id, buf, len);
		return;
	}
	res_locate(l, id, &node, &k, &index);
	switch (k) {
	case RES_SWITCH_UP:
	case RES_SWITCH_DOWN:
		owner = topo->switches[index].name;
		break;
	case RES_GPU_UP:
	case RES_GPU_DOWN:
	case RES_NVLINK_TX:
	case RES_NVLINK_RX:
	case RES_GPU_P2P_READ:
	case RES_GPU_P2P_WRITE:
	case RES_CE_D2H:
	case RES_CE_H2D:
		owner = topo->gpus[index].name;
		break;
	case RES_NIC_UP:
	case RES_NIC_DOWN:
	case RES_PORT_TX:
	case RES_PORT_RX:
		owner = topo->nics[index].dev.name;
		break;
	case RES_MEM:
	case RES_P2P_READ:
	case RES_P2P_WRITE:
		owner = topo->sockets[index].name;
		break;
	case RES_NVLINK_PAIR:
		snprintf(buf, len, "node%u/%s.nvlink_to_%s", node,
			 topo->gpus[index / topo->ngpus].name,
			 topo->gpus[index % topo->ngpus].name);
		return;
	default:
		break;
	}
	snprintf(buf, len, "node%u/%s.%s", node, owner, res_kind_names[k]);
}

/* The chain of switches above a device, nearest first. */
static unsigned switch_chain(const struct topology *topo, int sw, int *chain)
{
	unsigned n = 0;

	while (sw != TOPO_NONE && n < TOPO_MAX_SWITCHES) {
		chain[n++] = sw;
		sw = topo->switches[sw].parent_switch;
	}
	return n;
}

static void route_add(struct route *r, uint32_t res, double latency)
{
	if (r->n < ROUTE_MAX)
		r->res[r->n++] = res;
	r->latency += latency;
}

/* Where an endpoint hangs in the tree. */
static void end_position(const struct topology *topo, struct route_end e,
			 int *socket, int *parent_switch,
			 const struct topo_link **link)
{
	const struct topo_device *dev = NULL;

	if (e.kind == ROUTE_GPU)
		dev = &topo->gpus[e.index];
	else if (e.kind == ROUTE_NIC)
		dev = &topo->nics[e.index].dev;
	if (!dev) {
		*socket = e.index;
		*parent_switch = TOPO_NONE;
		*link = NULL;
		return;
	}
	*socket = dev->socket;
	*parent_switch = dev->parent_switch;
	*link = &dev->link;
}

static enum res_kind link_kind(enum route_end_kind k, bool up)
{
	if (k == ROUTE_GPU)
		return up ? RES_GPU_UP : RES_GPU_DOWN;
	return up ? RES_NIC_UP : RES_NIC_DOWN;
}

void route_build(const struct res_layout *l, const struct topology *topo,
		 struct route_end from, struct route_end to,
		 enum res_kind p2p_kind, struct route *r)
{
	int up_chain[TOPO_MAX_SWITCHES], down_chain[TOPO_MAX_SWITCHES];
	unsigned nup, ndown, lca_up, lca_down;
	int s_from, s_to, sw_from, sw_to;
	const struct topo_link *lk_from, *lk_to;
	bool through_rc;

	r->n = 0;
	r->latency = 0;
	end_position(topo, from, &s_from, &sw_from, &lk_from);
	end_position(topo, to, &s_to, &sw_to, &lk_to);
	nup = switch_chain(topo, sw_from, up_chain);
	ndown = switch_chain(topo, sw_to, down_chain);

	/* Lowest common switch, if both sit under one socket's tree. */
	lca_up = nup;
	lca_down = ndown;
	if (s_from == s_to && from.kind != ROUTE_MEM && to.kind != ROUTE_MEM) {
		for (unsigned i = 0; i < nup && lca_up == nup; i++)
			for (unsigned j = 0; j < ndown; j++)
				if (up_chain[i] == down_chain[j]) {
					lca_up = i;
					lca_down = j;
					break;
				}
	}
	through_rc = lca_up == nup;

	if (lk_from)
		route_add(r, l->base[link_kind(from.kind, true)] + from.index,
			  lk_from->latency);
	for (unsigned i = 0; i < lca_up; i++)
		route_add(r, l->base[RES_SWITCH_UP] + up_chain[i],
			  topo->switches[up_chain[i]].uplink.latency);

	if (through_rc && from.kind != ROUTE_MEM && to.kind != ROUTE_MEM) {
		route_add(r, l->base[p2p_kind] + s_from, 0);
		if (s_to != s_from)
			route_add(r, l->base[p2p_kind] + s_to, 0);
	}
	if (s_from != s_to)
		route_add(r, l->base[s_from < s_to ? RES_XSOCKET_UP : RES_XSOCKET_DOWN],
			  topo->inter_socket.latency);
	if (from.kind == ROUTE_MEM || to.kind == ROUTE_MEM)
		route_add(r, l->base[RES_MEM] + (from.kind == ROUTE_MEM ? s_from : s_to), 0);

	for (unsigned j = lca_down; j-- > 0;)
		route_add(r, l->base[RES_SWITCH_DOWN] + down_chain[j],
			  topo->switches[down_chain[j]].uplink.latency);
	if (lk_to)
		route_add(r, l->base[link_kind(to.kind, false)] + to.index,
			  lk_to->latency);
}
