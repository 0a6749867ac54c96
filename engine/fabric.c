/* SPDX-License-Identifier: MIT */
#include "fabric.h"

#include <math.h>
#include <stdio.h>

#include "splitmix.h"

static unsigned div_up(unsigned a, unsigned b)
{
	return b ? (a + b - 1) / b : 0;
}

/* Nodes a leaf (node) or a rail group (rail) takes: as many as its free
 * ports hold, unless the file says fewer. */
static unsigned per_leaf(const struct topology *t)
{
	const struct topo_tier *l = &t->fabric.leaf;
	unsigned down = l->ports > l->uplinks ? l->ports - l->uplinks : 0;
	unsigned fit = t->fabric.attach == TOPO_ATTACH_RAIL ? down :
		       t->nnics ? down / t->nnics : 0;

	return l->nodes ? l->nodes : fit;
}

void fabric_geom_init(struct fabric_geom *g, const struct topology *t,
		      unsigned nodes, uint32_t base)
{
	const struct topo_fabric *f = &t->fabric;
	unsigned k, down;

	*g = (struct fabric_geom){ .base = base };
	if (!f->tiers || !t->nnics || fabric_check(t, nodes, NULL, 0) != FABRIC_OK)
		return;
	g->tiers = f->tiers;
	g->nnics = t->nnics;
	g->per_leaf = per_leaf(t);
	g->leaves = div_up(nodes, g->per_leaf);
	if (f->attach == TOPO_ATTACH_RAIL)
		g->leaves *= t->nnics;
	g->leaf_up = f->leaf.uplinks;
	g->spines_per_pod = f->spine.count ? f->spine.count : f->leaf.uplinks;
	k = g->leaf_up / g->spines_per_pod;
	down = f->spine.ports - f->spine.uplinks;
	g->leaves_per_pod = down / k;
	g->pods = f->tiers == 3 ? div_up(g->leaves, g->leaves_per_pod) : 1;
	g->spines = g->pods * g->spines_per_pod;
	g->spine_up = f->tiers == 3 ? f->spine.uplinks : 0;
	g->cores = g->spines_per_pod * g->spine_up;
	g->kind_base[FABRIC_LEAF_UP] = 0;
	g->kind_base[FABRIC_LEAF_DOWN] = g->leaves * g->leaf_up;
	g->kind_base[FABRIC_SPINE_UP] = 2 * g->leaves * g->leaf_up;
	g->kind_base[FABRIC_SPINE_DOWN] = g->kind_base[FABRIC_SPINE_UP] + g->spines * g->spine_up;
	g->n = g->kind_base[FABRIC_SPINE_DOWN] + g->spines * g->spine_up;
}

enum fabric_problem fabric_check(const struct topology *t, unsigned nodes, char *why,
				 size_t len)
{
	const struct topo_fabric *f = &t->fabric;
	const struct topo_tier *l = &f->leaf, *s = &f->spine;
	unsigned down = l->ports > l->uplinks ? l->ports - l->uplinks : 0;
	unsigned n = per_leaf(t), spines, k, leaves, sdown, per_pod, pods;
	char dummy[8];

	if (!why) {
		why = dummy;
		len = sizeof(dummy);
	}
	if (!f->tiers)
		return FABRIC_OK;
	if (f->attach == TOPO_ATTACH_RAIL && (!n || n > down)) {
		snprintf(why, len, "a rail group of %u nodes puts %u NICs on each leaf, which has %u free ports (%u, %u of them uplinks)",
			 n, n, down, l->ports, l->uplinks);
		return FABRIC_LEAF_PORTS;
	}
	if (f->attach == TOPO_ATTACH_NODE && (!n || n * t->nnics > down)) {
		snprintf(why, len, "%u nodes x %u NIC%s need %u ports of one leaf, which has %u free (%u, %u of them uplinks)",
			 n ? n : 1, t->nnics, t->nnics == 1 ? "" : "s", (n ? n : 1) * t->nnics, down,
			 l->ports, l->uplinks);
		return FABRIC_LEAF_PORTS;
	}
	spines = s->count ? s->count : l->uplinks;
	if (!spines || l->uplinks % spines) {
		snprintf(why, len, "%u leaf uplinks do not share out evenly over %u spines a pod",
			 l->uplinks, spines);
		return FABRIC_SPINE_SPLIT;
	}
	k = l->uplinks / spines;
	sdown = s->ports > s->uplinks ? s->ports - s->uplinks : 0;
	leaves = div_up(nodes, n) * (f->attach == TOPO_ATTACH_RAIL ? t->nnics : 1);
	per_pod = sdown / k;
	if (!per_pod || (f->tiers == 2 && leaves > per_pod)) {
		snprintf(why, len, "%u leaves of %u nodes need %u ports on each spine for their uplinks, which has %u (%u, %u of them uplinks)%s",
			 leaves, nodes, leaves * k, sdown, s->ports, s->uplinks,
			 f->tiers == 2 ? "; a core tier above the spines (fabric.core, docs/topology-format.md) makes pods of them" : "");
		return FABRIC_SPINE_PORTS;
	}
	pods = div_up(leaves, per_pod);
	if (f->tiers == 3 && pods > f->core.ports) {
		snprintf(why, len, "%u pods of %u leaves need %u ports on each core, which has %u",
			 pods, per_pod, pods, f->core.ports);
		return FABRIC_CORE_PORTS;
	}
	return FABRIC_OK;
}

unsigned fabric_leaf(const struct fabric_geom *g, const struct topology *t,
		     unsigned node, unsigned nic)
{
	if (!g->per_leaf)
		return 0;
	if (t->fabric.attach == TOPO_ATTACH_RAIL)
		return node / g->per_leaf * g->nnics + nic;
	return node / g->per_leaf;
}

unsigned fabric_switches(const struct fabric_geom *g, const struct topology *t,
			 unsigned src_node, unsigned nic_src, unsigned dst_node,
			 unsigned nic_dst)
{
	unsigned ls, ld;

	if (!g->tiers)
		return t->fabric.hops;
	ls = fabric_leaf(g, t, src_node, nic_src);
	ld = fabric_leaf(g, t, dst_node, nic_dst);
	if (ls == ld)
		return 1;
	if (g->tiers == 2 || ls / g->leaves_per_pod == ld / g->leaves_per_pod)
		return 3;
	return 5;
}

double fabric_latency(const struct topology *t, unsigned switches)
{
	const struct topo_fabric *f = &t->fabric;

	if (!f->tiers)
		return switches * f->switch_latency;
	/* Up and down again: leaf, (spine, (core,) spine,) leaf; the one
	 * leaf counted once. */
	switch (switches) {
	case 1:
		return f->leaf.latency;
	case 3:
		return 2 * f->leaf.latency + f->spine.latency;
	default:
		return 2 * f->leaf.latency + 2 * f->spine.latency + f->core.latency;
	}
}

/* The flow's hash: one QP of one channel between two NICs is one flow
 * (NCCL opens its QPs per channel connection, transport/net_ib). */
static uint64_t flow_hash(uint64_t seed, unsigned src_node, unsigned nic_src,
			  unsigned dst_node, unsigned nic_dst, unsigned channel)
{
	uint64_t h = splitmix(seed);

	h = splitmix_in(h, src_node);
	h = splitmix_in(h, (uint64_t)dst_node << 20);
	h = splitmix_in(h, (uint64_t)nic_src << 8 | nic_dst);
	return splitmix_in(h, channel);
}

static uint32_t link_id(const struct fabric_geom *g, enum fabric_kind k, unsigned sw,
			unsigned port)
{
	unsigned per = k <= FABRIC_LEAF_DOWN ? g->leaf_up : g->spine_up;

	return g->base + g->kind_base[k] + sw * per + port;
}

unsigned fabric_path(const struct fabric_geom *g, const struct topology *t,
		     unsigned src_node, unsigned nic_src, unsigned dst_node,
		     unsigned nic_dst, unsigned channel, uint32_t *ids)
{
	unsigned ls, ld, u, s, j, n = 0;
	uint64_t h;

	if (!g->tiers || !g->leaf_up)
		return 0;
	ls = fabric_leaf(g, t, src_node, nic_src);
	ld = fabric_leaf(g, t, dst_node, nic_dst);
	if (ls == ld)
		return 0;
	h = flow_hash(t->fabric.ecmp_seed, src_node, nic_src, dst_node, nic_dst, channel);
	/* Uplink u reaches spine u mod S of the pod; the destination leaf's
	 * link u reaches the same spine, so the way down is link u too. */
	u = (unsigned)(h % g->leaf_up);
	ids[n++] = link_id(g, FABRIC_LEAF_UP, ls, u);
	if (fabric_switches(g, t, src_node, nic_src, dst_node, nic_dst) == 5) {
		s = u % g->spines_per_pod;
		j = (unsigned)((h / g->leaf_up) % g->spine_up);
		ids[n++] = link_id(g, FABRIC_SPINE_UP, ls / g->leaves_per_pod * g->spines_per_pod + s, j);
		ids[n++] = link_id(g, FABRIC_SPINE_DOWN, ld / g->leaves_per_pod * g->spines_per_pod + s, j);
	}
	ids[n++] = link_id(g, FABRIC_LEAF_DOWN, ld, u);
	return n;
}

double fabric_efficiency(const struct topology *t)
{
	double e = 1;

	for (unsigned i = 0; i < t->nnics; i++)
		if (t->nics[i].efficiency > 0 && t->nics[i].efficiency < e)
			e = t->nics[i].efficiency;
	return e;
}

/* Which kind, switch and port a fabric id names. */
static void locate(const struct fabric_geom *g, uint32_t id, enum fabric_kind *k,
		   unsigned *sw, unsigned *port)
{
	uint32_t rel = id - g->base;
	int kind = FABRIC_KIND_COUNT - 1;
	unsigned per;

	while (kind > 0 && g->kind_base[kind] > rel)
		kind--;
	/* Kinds without links share their base with the next: the last
	 * whose base is <= rel and that has links owns it. */
	while (kind > 0 && (kind <= FABRIC_LEAF_DOWN ? g->leaf_up : g->spine_up) == 0)
		kind--;
	per = kind <= FABRIC_LEAF_DOWN ? g->leaf_up : g->spine_up;
	*k = kind;
	*sw = per ? (rel - g->kind_base[kind]) / per : 0;
	*port = per ? (rel - g->kind_base[kind]) % per : 0;
}

double fabric_capacity(const struct fabric_geom *g, const struct topology *t,
		       uint32_t id)
{
	enum fabric_kind k;
	unsigned sw, port;

	locate(g, id, &k, &sw, &port);
	return (k <= FABRIC_LEAF_DOWN ? t->fabric.leaf.uplink_bw : t->fabric.spine.uplink_bw) *
	       fabric_efficiency(t);
}

void fabric_name(const struct fabric_geom *g, uint32_t id, char *buf, size_t len)
{
	static const char *const names[FABRIC_KIND_COUNT] = {
		[FABRIC_LEAF_UP] = "leaf%u.up%u",
		[FABRIC_LEAF_DOWN] = "leaf%u.down%u",
		[FABRIC_SPINE_UP] = "spine%u.up%u",
		[FABRIC_SPINE_DOWN] = "spine%u.down%u",
	};
	enum fabric_kind k;
	unsigned sw, port;

	locate(g, id, &k, &sw, &port);
	snprintf(buf, len, names[k], sw, port);
}

double fabric_oversubscription(const struct fabric_geom *g, const struct topology *t,
			       unsigned tier)
{
	const struct topo_fabric *f = &t->fabric;
	double down, up;

	if (!g->tiers)
		return 1;
	if (tier == 0) {
		down = (double)g->per_leaf * (f->attach == TOPO_ATTACH_RAIL ? 1 : g->nnics) *
		       f->leaf.port_bw;
		up = (double)g->leaf_up * f->leaf.uplink_bw;
	} else {
		if (g->tiers < 3)
			return 1;
		down = (double)g->leaves_per_pod * (g->leaf_up / g->spines_per_pod) *
		       f->spine.port_bw;
		up = (double)g->spine_up * f->spine.uplink_bw;
	}
	return up > 0 ? down / up : INFINITY;
}
