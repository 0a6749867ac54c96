/* SPDX-License-Identifier: MIT */
/* NVLS's graph and heads, and what its tuning reads: channels_nvls.h. */
#include "channels_nvls.h"

#include <math.h>
#include <string.h>

#include "nccl_tuning.h"
#include "p2p_policy.h"
#include "resources.h"
#include "search_loads.h"

/* NCCL's NICs for NVLS heads, in its order (ncclTopoSelectNets for all
 * GPUs: each GPU's nearest NICs, GPU by GPU): their count, in @nets. */
static unsigned nvls_nets(const struct topology *t, const unsigned *gpus, unsigned n,
			  int *nets)
{
	unsigned m = 0;

	for (unsigned k = 0; k < n; k++)
		for (unsigned i = 0; i < t->nnics && m < TOPO_MAX_NICS; i++) {
			bool listed = false;

			for (unsigned j = 0; j < m; j++)
				listed |= nets[j] == (int)i;
			if (!listed && topo_nic_is_nearest(t, gpus[k], (int)i))
				nets[m++] = (int)i;
		}
	return m;
}

/* NVLS's heads across nodes: one a NIC of @m, as many as NICs up to the
 * @n GPUs. */
static unsigned nvls_heads_of(unsigned m, unsigned n)
{
	return m && m < n ? m : n;
}

/* @nic's local GPU (ncclTopoGetLocalGpu): the first of its near GPUs whose
 * own NIC for the lowest channel is this one; an index into @gpus. */
static unsigned nvls_local_gpu(const struct topology *t, const unsigned *gpus, unsigned n,
			       int nic)
{
	for (unsigned ch = 0; ch < TOPO_MAX_NICS; ch++)
		for (unsigned k = 0; k < n; k++)
			if (topo_nic_is_nearest(t, gpus[k], nic) && channels_nic(t, gpus[k], ch) == nic)
				return k;
	return 0;
}

unsigned channels_nvls_head(const struct topology *t, const unsigned *gpus, unsigned n,
			    bool network, unsigned c, int *nic)
{
	int nets[TOPO_MAX_NICS];
	unsigned m;

	*nic = -1;
	if (!network || !t->nnics || !(m = nvls_nets(t, gpus, n, nets)))
		return c % n;
	*nic = nets[c % nvls_heads_of(m, n)];
	return nvls_local_gpu(t, gpus, n, *nic);
}

/*
 * NVLS (search.cc, ncclTopoSearchTryNvls and ncclTopoCompute): a channel
 * a head. On one node every GPU heads one; across nodes a head is the
 * local GPU of a NIC, one a NIC, as many as NICs up to the GPUs
 * (ncclTopoSearchRecNet: "NVLS search only tries to find NIC:GPU
 * combinations to compute the heads"; v2.21.5-1 :574-580): on a node of
 * 8 GPUs and 4 NICs, 4 heads. Each channel loads every GPU's NVLink with
 * its speed and the head's twice, both ways, so a speed fits when
 * (channels + 1) x speed is within a GPU's NVLink; across nodes each head
 * also sends to its NIC at bwInter.
 * Then pass 2 raises bwInter alone while it is under twice bwIntra and
 * the search still succeeds: across nodes while the heads' NICs carry it,
 * on one node (nothing checks it there) to the top of the speed list.
 * The tuner takes min(bwIntra-based, bwInter) per channel (algo_nvls.c),
 * so on one node NVLS is bounded by the NVLink speed, not held at it.
 * With NVLink's peer-to-peer disabled the graph is found all the same;
 * where the search starts at the nearest GPU pair (2.25 on) its
 * typeIntra is PHB (NCCL's own search, tools/nccl-oracle P2P=LOC), and
 * the tuner takes PCI's latencies for it.
 */
void channels_search_nvls(const struct nccl_release *r, const struct search_env *env,
			  const struct topology *t, const unsigned *gpus, unsigned nnodes,
			  unsigned ppn, struct nccl_graph *g)
{
	bool network = nnodes > 1;
	unsigned heads, nnets, loads[TOPO_MAX_GPUS] = { 0 }, most = 0;
	int nets[TOPO_MAX_NICS];
	const double *speeds;
	double nic = INFINITY;
	size_t n, i;

	memset(g, 0, sizeof(*g));
	if (!r->nvls || t->gpu_fabric.kind != TOPO_GPU_FABRIC_NVSWITCH || !t->gpu_fabric.nvls ||
	    t->gpu_arch < TOPO_GPU_HOPPER || ppn < 2)
		return;
	speeds = nccl_search_speeds(r, t->gpu_arch, network, &n);
	nnets = network && t->nnics ? nvls_nets(t, gpus, ppn, nets) : 0;
	heads = nnets ? nvls_heads_of(nnets, ppn) : ppn;
	g->type_inter = TOPO_PATH_PIX;
	for (unsigned c = 0; c < heads; c++) {
		int h = nnets ? nets[c] : -1;
		unsigned k = nnets ? nvls_local_gpu(t, gpus, ppn, h) : c;

		if (++loads[k] > most)
			most = loads[k];
		if (h >= 0) {
			/* one head a NIC: its whole port; typeInter the
			 * farthest of a head's paths to its NIC */
			if (search_capacity(r, t, RES_PORT_TX, (unsigned)h) < nic)
				nic = search_capacity(r, t, RES_PORT_TX, (unsigned)h);
			if (topo_gpu_nic_path(t, (int)k, h) > g->type_inter)
				g->type_inter = topo_gpu_nic_path(t, (int)k, h);
		}
	}
	for (i = 0; i < n; i++)
		if ((heads + most) * speeds[i] <=
			    search_capacity(r, t, RES_NVLINK_TX, 0) * (1 + 1e-9) &&
		    speeds[i] <= nic * (1 + 1e-9))
			break;
	if (i == n) {
		g->type_inter = TOPO_PATH_PIX;
		return;
	}
	g->nchannels = heads;
	g->pattern = NCCL_PATTERN_NVLS;
	g->bw_intra = g->bw_inter = speeds[i];
	while (i > 0 && g->bw_inter < 2 * g->bw_intra && speeds[i - 1] <= nic * (1 + 1e-9))
		g->bw_inter = speeds[--i];
	g->nvlink = !r->intra_from_nearest || p2p_nvlink_usable(env->p2p_level);
}

/*
 * comm->minNetBw (topo.cc ncclTopoGetMinNetBw, the least over the ranks:
 * init.cc:1450): of the NICs each GPU's channels take in turn
 * (ncclTopoGetLocalNet, until the first comes back), the slowest path to
 * one, its NIC's line rate (NCCL's speed / 8000, topo.cc:418) or a link
 * on the way.
 */
double channels_min_net_bw(const struct nccl_release *r, const struct topology *t,
			   unsigned ppn)
{
	struct res_layout l;
	double bw = INFINITY;

	res_layout_init(&l, t, 1);
	for (unsigned g = 0; g < ppn; g++) {
		int first = channels_nic(t, g, 0);

		for (unsigned c = 0; first >= 0 && c < t->nnics; c++) {
			int nic = channels_nic(t, g, c);

			if (c && nic == first)
				break;
			bw = fmin(bw, search_net_bw(r, &l, t, g, (unsigned)nic));
		}
	}
	return isfinite(bw) ? bw : 0;
}

void channels_nvls_tuning(const struct nccl_release *r, const struct topology *t,
			  unsigned nnodes, unsigned ppn, struct nccl_channels *out)
{
	struct nccl_nvls_comm c = {
		.arch = t->gpu_arch,
		.nnodes = nnodes,
		.ppn = ppn,
		.min_net_bw = out->min_net_bw,
		.type_inter = out->nvls.type_inter,
	};
	struct nccl_nvls_tuning tun;

	if (!out->nvls.nchannels)
		return;
	nccl_nvls_tuning(r, &c, &tun);
	out->nvls_channels = tun.channels;
	out->nvls_chunk = tun.chunk;
	out->nvls_tree_chunk = tun.tree_chunk;
}
