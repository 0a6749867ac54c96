/* SPDX-License-Identifier: MIT */
#include "search_loads.h"

#include <math.h>

#include "gdr_policy.h"
#include "nccl_tuning.h"
#include "p2p_policy.h"

static double gbs(double bytes_per_s)
{
	return bytes_per_s / 1e9;
}

static bool pcie_link(enum res_kind kind)
{
	return kind == RES_SWITCH_UP || kind == RES_SWITCH_DOWN ||
	       kind == RES_GPU_UP || kind == RES_GPU_DOWN ||
	       kind == RES_NIC_UP || kind == RES_NIC_DOWN;
}

/* Whether route @r is NCCL's PATH_PHB: through one CPU's root complex,
 * not across the inter-socket link. */
static bool route_phb(const struct res_layout *l, const struct route *r)
{
	bool root_complex = false;

	for (unsigned i = 0; i < r->n; i++) {
		enum res_kind kind;
		unsigned node, idx;

		res_locate(l, r->res[i], &node, &kind, &idx);
		if (kind == RES_XSOCKET_UP || kind == RES_XSOCKET_DOWN)
			return false;
		root_complex |= kind == RES_P2P_READ || kind == RES_P2P_WRITE;
	}
	return root_complex;
}

/*
 * Add @share of a channel's route to the search's loads (in multiples of
 * the speed) as search.cc's followPath charges a path (v2.30.7-1:84-124,
 * v2.8.4-1:65-100):
 * - from a GPU through an Intel root complex (PATH_PHB), each PCI link
 *   takes INTEL_P2P_OVERHEAD x the speed ("Account for P2P inefficiency
 *   through Intel CPU RC"), 6/5 or, up to 2.8, 12/9;
 * - into a GPU before Ampere (compute capability < 80) from anything but
 *   a GPU, as a NIC writing it, the GPU's link the other way an eighth
 *   of the speed too.
 */
/* @share of every resource of @r, its PCI links @pci times as much. */
static void charge(const struct res_layout *l, const struct route *r, double share, double pci,
		   double *use)
{
	for (unsigned i = 0; i < r->n; i++) {
		enum res_kind kind;
		unsigned node, idx;

		res_locate(l, r->res[i], &node, &kind, &idx);
		use[r->res[i]] += share * (pcie_link(kind) ? pci : 1);
	}
}

static void add_route(const struct nccl_release *rel,
		      const struct res_layout *l, const struct topology *t,
		      struct route_end from, struct route_end to,
		      enum res_kind p2p, double share, double *use)
{
	struct route r;
	double pci = 1;

	route_build(l, t, from, to, p2p, &r);
	if (from.kind == ROUTE_GPU && t->cpu_vendor == TOPO_CPU_INTEL &&
	    route_phb(l, &r))
		pci = rel->intel_p2p_overhead;
	charge(l, &r, share, pci, use);
	if (to.kind == ROUTE_GPU && from.kind != ROUTE_GPU &&
	    t->gpu_arch < TOPO_GPU_AMPERE)
		use[l->base[RES_GPU_UP] + (unsigned)to.index] += share / 8;
}

/*
 * @share of a channel from GPU @a to GPU @b that may not copy peer to
 * peer (p2p_policy.h): NCCL's path goes up to @b's CPU and down to @b
 * (paths.cc ncclTopoComputePaths, addInterStep), whose PCI links take
 * Intel's overhead on one socket (a PHB path: followPath).
 */
static void add_via_cpu(const struct nccl_release *r, const struct res_layout *l,
			const struct topology *t, unsigned a, unsigned b, double share,
			double *use)
{
	struct route_end from = { ROUTE_GPU, (int)a }, cpu = { ROUTE_MEM, t->gpus[b].socket },
			 to = { ROUTE_GPU, (int)b };
	double pci = t->cpu_vendor == TOPO_CPU_INTEL &&
			     p2p_refused_class(t, a, b) == TOPO_PATH_PHB ?
			     r->intel_p2p_overhead :
			     1;
	struct route way[2];

	route_build(l, t, from, cpu, RES_P2P_WRITE, &way[0]);
	route_build(l, t, cpu, to, RES_P2P_WRITE, &way[1]);
	charge(l, &way[0], share, pci, use);
	charge(l, &way[1], share, pci, use);
}

/*
 * @share of a channel from GPU @a to GPU @b of the node, whose
 * communicator has @node_gpus GPUs there: through the CPU where the two
 * may not copy peer to peer; over NVLink, per GPU on an NVSwitch or an
 * unwired mesh (each GPU sends and receives once, as NCCL's search
 * counts a GPU's links to the NVSwitch), on the pair's own links in a
 * wired mesh, and on both pairs through the GPU between where they share
 * none (PATH_NVB, followPath charging each link of the path); else over
 * PCIe peer-to-peer.
 */
static void add_gpu_hop(const struct nccl_release *r, const struct search_env *env,
			const struct res_layout *l, const struct topology *t, unsigned a,
			unsigned b, unsigned node_gpus, double share, double *use)
{
	struct route_end from = {ROUTE_GPU, (int)a}, to = {ROUTE_GPU, (int)b};
	unsigned via, pairs[2], npairs;

	if (!p2p_allowed(r, env->p2p_level, t, a, b, node_gpus)) {
		add_via_cpu(r, l, t, a, b, share, use);
		return;
	}
	npairs = topo_wired_pairs(t, a, b, pairs);
	for (unsigned i = 0; i < npairs; i++)
		use[l->base[RES_NVLINK_PAIR] + pairs[i]] += share;
	if (npairs)
		return;
	if (topo_nvlink_way(t, a, b, &via) != TOPO_NVLINK_NONE) {
		use[l->base[RES_NVLINK_TX] + a] += share;
		use[l->base[RES_NVLINK_RX] + b] += share;
	} else {
		add_route(r, l, t, from, to, RES_P2P_WRITE, share, use);
	}
}

bool search_sees(enum res_kind kind)
{
	return kind != RES_P2P_READ && kind != RES_P2P_WRITE && kind != RES_MEM;
}

int search_exit_relay(const struct topology *t, const struct search_env *env,
		      unsigned gpu, int nic)
{
	return env->pxn ? gdr_pxn_relay(t, (int)gpu, nic, env->gdr_level) : -1;
}

/* The PCIe link behind resource @kind @idx, or NULL. */
static const struct topo_link *pcie_link_of(const struct topology *t,
					    enum res_kind kind, unsigned idx)
{
	switch (kind) {
	case RES_SWITCH_UP:
	case RES_SWITCH_DOWN:
		return &t->switches[idx].uplink;
	case RES_GPU_UP:
	case RES_GPU_DOWN:
		return &t->gpus[idx].link;
	case RES_NIC_UP:
	case RES_NIC_DOWN:
		return &t->nics[idx].dev.link;
	default:
		return NULL;
	}
}

double search_capacity(const struct nccl_release *r, const struct topology *t,
		       enum res_kind kind, unsigned idx)
{
	const struct topo_link *lk = pcie_link_of(t, kind, idx);

	if (kind == RES_PORT_TX || kind == RES_PORT_RX)
		return gbs(t->nics[idx].line_rate);
	if (kind == RES_XSOCKET_UP || kind == RES_XSOCKET_DOWN)
		return nccl_inter_cpu_bw(r, t);
	if ((kind == RES_NVLINK_TX || kind == RES_NVLINK_RX) && t->gpu_fabric.links)
		return t->gpu_fabric.links * r->nvlink_link_bw[t->gpu_arch];
	if (kind == RES_NVLINK_PAIR)
		return topo_pair_links(t, idx / t->ngpus, idx % t->ngpus) *
		       r->nvlink_link_bw[t->gpu_arch];
	if (lk && lk->pcie_gen) {
		unsigned gen =
		    lk->pcie_gen <= r->pci_max_gen ? lk->pcie_gen : 3;

		return lk->pcie_width * (15.0 * (1u << (gen - 1))) / 80.0;
	}
	return gbs(res_capacity(t, kind, idx));
}

bool search_loads_fit(const struct nccl_release *r, const struct topology *t,
		      const struct res_layout *l, const double *use,
		      double speed)
{
	for (uint32_t i = 0; i < l->per_node; i++) {
		enum res_kind kind;
		unsigned node, idx;
		double cap;

		if (!use[i])
			continue;
		res_locate(l, i, &node, &kind, &idx);
		if (!search_sees(kind))
			continue;
		cap = search_capacity(r, t, kind, idx);
		if (isfinite(cap) && use[i] * speed > cap * (1 + 1e-9))
			return false;
	}
	return true;
}

void search_net_in(const struct nccl_release *r, const struct res_layout *l,
		   const struct topology *t, int nic, unsigned gpu, double *use)
{
	struct route_end n = {ROUTE_NIC, nic}, g = {ROUTE_GPU, (int)gpu};

	use[l->base[RES_PORT_RX] + (unsigned)nic] += 1;
	add_route(r, l, t, n, g, RES_P2P_WRITE, 1, use);
}

void search_net_out(const struct nccl_release *r, const struct res_layout *l,
		    const struct topology *t, const struct search_env *env,
		    unsigned gpu, int nic, double share, double *use)
{
	struct route_end g = {ROUTE_GPU, (int)gpu}, n = {ROUTE_NIC, nic};
	int relay = search_exit_relay(t, env, gpu, nic);

	use[l->base[RES_PORT_TX] + (unsigned)nic] += share;
	if (relay >= 0) {
		/* over NVLink: PXN is off where NVLink's P2P is */
		add_gpu_hop(r, env, l, t, gpu, (unsigned)relay, t->ngpus, share, use);
		g.index = relay;
	}
	add_route(r, l, t, g, n, RES_P2P_READ, share, use);
}

void search_add_chain(const struct nccl_release *r, const struct search_env *env,
		      const struct res_layout *l, const struct topology *t, const unsigned *order,
		      unsigned n, bool ring_closes, double share, double *use)
{
	for (unsigned k = 0; k + 1 < n || (ring_closes && n > 1 && k < n); k++)
		add_gpu_hop(r, env, l, t, order[k], order[(k + 1) % n], n, share, use);
}

double search_path_bw(const struct nccl_release *rel, const struct res_layout *l,
		      const struct topology *t, struct route_end from, struct route_end to)
{
	struct route r;
	double bw = INFINITY;

	route_build(l, t, from, to, RES_P2P_READ, &r);
	for (unsigned i = 0; i < r.n; i++) {
		enum res_kind kind;
		unsigned node, idx;

		res_locate(l, r.res[i], &node, &kind, &idx);
		if (!search_sees(kind))
			continue;
		bw = fmin(bw, search_capacity(rel, t, kind, idx));
	}
	return bw;
}

double search_net_bw(const struct nccl_release *rel, const struct res_layout *l,
		     const struct topology *t, unsigned gpu, unsigned nic)
{
	struct route_end g = { ROUTE_GPU, (int)gpu }, n = { ROUTE_NIC, (int)nic };

	return fmin(search_capacity(rel, t, RES_PORT_TX, nic), search_path_bw(rel, l, t, g, n));
}
