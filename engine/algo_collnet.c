/* SPDX-License-Identifier: MIT */
/*
 * CollNet (NCCL_ALGO_COLLNET_DIRECT and _CHAIN): all-reduce where the
 * fabric reduces (InfiniBand SHARP, NCCL's CollNet plugin): each node
 * sends its data once into the switches and gets the sum back, so a NIC
 * carries S each way where a ring carries 2S(n-1)/n.
 *
 * Direct (src/device/all_reduce.h runCollNetDirect): the node's GPUs
 * reduce-scatter over NVLink, each GPU sends its share through its own
 * NIC, and they all-gather the result; NCCL needs NVSwitches and at most
 * 8 GPUs a node for it. Chain (runCollNetChain): the node's GPUs reduce
 * along a chain into one head, which sends everything, and the result
 * comes back down the chain.
 */
#include "algo.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>

/* NCCL_MAX_DIRECT_ARITY + 1 */
#define COLLNET_MAX_LOCAL 8

static bool collnet_available(const struct tune_ctx *t, enum proto_id p,
			      char *why, size_t len)
{
	if (t->op != TRACE_OP_ALLREDUCE) {
		snprintf(why, len, "CollNet here runs all-reduce only (the plugin's all-gather and reduce-scatter are not modelled)");
		return false;
	}
	if (p != PROTO_SIMPLE) {
		snprintf(why, len, "CollNet runs Simple only");
		return false;
	}
	if (!t->in_network) {
		snprintf(why, len, "needs a fabric that reduces (fabric: in_network_reduction: true)");
		return false;
	}
	if (t->nnodes < 2) {
		snprintf(why, len, "needs two nodes or more");
		return false;
	}
	if (t->ppn > COLLNET_MAX_LOCAL) {
		snprintf(why, len, "NCCL allows at most %d GPUs a node", COLLNET_MAX_LOCAL);
		return false;
	}
	return true;
}

static void direct_cost(const struct tune_ctx *t, enum proto_id p, double *lat,
			double *bw, char *why, size_t len)
{
	const struct nccl_graph *g = &t->ch.ring;
	double intra = nccl_hw_latency(t->p->nccl, g->nvlink ? HOP_NVLINK : HOP_PCI, ALGO_COLLNET_DIRECT, p);
	double factor, bus;

	*bw = 0;
	*lat = 0;
	if (!collnet_available(t, p, why, len))
		return;
	if (t->p->topo.gpu_fabric.kind != TOPO_GPU_FABRIC_NVSWITCH) {
		snprintf(why, len, "NCCL runs CollNetDirect on NVSwitch systems only");
		return;
	}
	/* "Collnet+Direct requires all GPUs to have a local NIC to work at
	 * full speed": the GPU/NIC ratio discounts it. */
	bus = g->nchannels * g->bw_intra;
	factor = (double)t->ppn / g->nchannels;
	factor -= (factor - 1) / 2;
	bus /= factor;
	if (t->p->topo.gpu_arch >= TOPO_GPU_HOPPER)
		bus *= .85;
	*bw = bus * 0.5;
	*lat = 2 * (fmin(1, t->ppn - 1) * intra + (t->ppn - 1) * 0.4) +
	       nccl_hw_latency(t->p->nccl, HOP_NET, ALGO_COLLNET_DIRECT, p);
}

static void chain_cost(const struct tune_ctx *t, enum proto_id p, double *lat,
		       double *bw, char *why, size_t len)
{
	const struct nccl_graph *g = &t->ch.ring;
	double intra = nccl_hw_latency(t->p->nccl, g->nvlink ? HOP_NVLINK : HOP_PCI, ALGO_COLLNET_CHAIN, p);

	*bw = 0;
	*lat = 0;
	if (!collnet_available(t, p, why, len))
		return;
	*bw = g->nchannels * g->bw_intra * 0.5;
	*lat = 2 * (t->ppn - 1) * intra + nccl_hw_latency(t->p->nccl, HOP_NET, ALGO_COLLNET_CHAIN, p);
}

/*
 * Direct, per channel: GPU g's share of the others' data reaches it over
 * NVLink (one connection to g carrying (G-1)/G of the data stands for
 * the G-1 pieces, the same bytes on the same links), goes out of its NIC
 * and back reduced, and goes to the others the same way.
 */
static int direct_build(struct algo_build *b)
{
	unsigned G = b->t->ppn, N = b->t->nnodes;
	double vol = 1.0 / b->nch, intra_us;
	enum hop_class h = topo_has_nvlink(&b->p->topo) && p2p_nvlink_usable(b->p->opts.p2p_level) ?
				   HOP_NVLINK :
				   HOP_PCI;
	int err = 0;

	/* NCCL: 2 (min(1, ppn-1) intra + (ppn-1) 0.4 us) + inter: each
	 * intra-node exchange pays a hop and 0.4 us per peer. */
	intra_us = fmin(1, G - 1) *
			   nccl_hop_latency(b->p->nccl, h, ALGO_COLLNET_DIRECT, PROTO_SIMPLE) +
		   (G - 1) * 0.4;
	b->pat->base_latency = 0;
	for (unsigned c = 0; c < b->nch && !err; c++) {
		err = algo_pipe_begin(b, PIPE_CHAIN, c, vol);
		for (unsigned i = 0; i < N && !err; i++)
			for (unsigned g = 0; g < G && !err; g++) {
				unsigned r = algo_rank(b, i, g), next = algo_rank(b, i, (g + 1) % G);
				uint32_t in = 0, net, out = 0;

				if (G > 1)
					err = algo_conn(b, CONN_P2P, next, r, c, vol * (G - 1) / G,
							intra_us, &in);
				if (!err)
					err = algo_conn(b, CONN_COLLNET, r, r, c, vol / G, -1, &net);
				if (!err && G > 1)
					err = algo_dep(b, net, in);
				if (!err && G > 1)
					err = algo_conn(b, CONN_P2P, r, next, c, vol * (G - 1) / G,
							intra_us, &out);
				if (!err && G > 1)
					err = algo_dep(b, out, net);
				if (!err && i == 0 && g == 0) {
					if (G > 1)
						err = algo_hop(b, in);
					if (!err)
						err = algo_hop(b, net);
					if (!err && G > 1)
						err = algo_hop(b, out);
				}
			}
	}
	return err;
}

/* Chain, per channel: up the node's chain to its head, through the
 * fabric, and down the chain. */
static int chain_build(struct algo_build *b)
{
	unsigned G = b->t->ppn, N = b->t->nnodes;
	double vol = 1.0 / b->nch;
	int err = 0;

	b->pat->base_latency = 0;
	for (unsigned c = 0; c < b->nch && !err; c++) {
		struct channel_layout lay;

		err = algo_pipe_begin(b, PIPE_CHAIN, c, vol);
		algo_layout(b, 0, c, &lay);
		for (unsigned i = 0; i < N && !err; i++) {
			uint32_t prev = 0, net = 0, conn;

			/* The layout's last GPU -> ... -> its first (the head,
			 * at the channel's NIC). */
			for (unsigned k = G - 1; k >= 1 && !err; k--) {
				err = algo_conn(b, CONN_P2P, algo_layout_rank(b, i, &lay, k),
						algo_layout_rank(b, i, &lay, k - 1), c, vol, -1, &conn);
				if (!err && k + 1 < G)
					err = algo_dep(b, conn, prev);
				if (!err && i == 0)
					err = algo_hop(b, conn);
				prev = conn;
			}
			if (!err)
				err = algo_conn_via(b, CONN_COLLNET, algo_layout_rank(b, i, &lay, 0),
						    algo_layout_rank(b, i, &lay, 0), c, lay.nic_in,
						    lay.nic_in, vol, -1, &net);
			if (!err && G > 1)
				err = algo_dep(b, net, prev);
			if (!err && i == 0)
				err = algo_hop(b, net);
			prev = net;
			for (unsigned k = 0; k + 1 < G && !err; k++) {
				err = algo_conn(b, CONN_P2P, algo_layout_rank(b, i, &lay, k),
						algo_layout_rank(b, i, &lay, k + 1), c, vol, -1, &conn);
				if (!err)
					err = algo_dep(b, conn, prev);
				if (!err && i == 0)
					err = algo_hop(b, conn);
				prev = conn;
			}
		}
	}
	return err;
}

/* CollNet chain chunks are at most 256 KiB (calcCollChunking). */
static uint64_t chain_chunk(const struct plan *p, const struct plan_pattern *pat,
			const struct plan_pipe *pp, uint64_t bytes, unsigned nchannels)
{
	uint64_t chunk = 262144;
	double depth = (double)pat->nranks / pat->nnodes;

	(void)p;
	(void)pp;
	while (bytes / (nchannels * chunk) < depth * 64 && chunk > 131072)
		chunk /= 2;
	while (bytes / (nchannels * chunk) < depth * 8 && chunk > 65536)
		chunk /= 2;
	while (bytes / (nchannels * chunk) < depth && chunk > 32768)
		chunk /= 2;
	return chunk;
}

const struct algo_ops algo_collnet_direct = {
	.name = "CollnetDirect",
	.cost = direct_cost,
	.build = direct_build,
};

const struct algo_ops algo_collnet_chain = {
	.name = "CollnetChain",
	.cost = chain_cost,
	.build = chain_build,
	.chunk = chain_chunk,
};
