/* SPDX-License-Identifier: MIT */
/*
 * NVLS (NCCL_ALGO_NVLS): all-reduce, all-gather and reduce-scatter inside
 * one node through NVLink SHARP: the third-generation NVSwitch reduces
 * what the GPUs load from a multicast address and multicasts what they
 * store (multimem.ld_reduce / multimem.st; src/device/all_reduce.h
 * runNvls). Across nodes NCCL runs NVLS only together with CollNet, which
 * is not modelled here; NVLS-tree (algo_nvls_tree.c) is the multi-node
 * form.
 *
 * Per channel each GPU's slice goes into the switch (reduce) and comes
 * back reduced (multicast): two hops, half the NVLink bytes of a ring
 * (route.c). The switch's efficiency is NCCL's nvlsEfficiency.
 */
#include "algo.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>

bool algo_nvls_available(const struct tune_ctx *t, char *why, size_t len)
{
	const struct topology *topo = &t->p->topo;

	if (topo->gpu_fabric.kind != TOPO_GPU_FABRIC_NVSWITCH || !topo->gpu_fabric.nvls) {
		snprintf(why, len, "needs NVSwitches with NVLink SHARP (gpu_fabric: nvswitch, nvls: true)");
		return false;
	}
	if (topo->gpu_arch < TOPO_GPU_HOPPER) {
		snprintf(why, len, "needs Hopper or later");
		return false;
	}
	if (t->ch.nvls.nchannels < 2 || t->ppn < 2) {
		snprintf(why, len, "needs two GPUs or more per node");
		return false;
	}
	return true;
}

/* tuning.cc: NVLS bus bandwidth per channel. */
double algo_nvls_bw(const struct tune_ctx *t, bool tree)
{
	const struct topology *topo = &t->p->topo;
	const struct nccl_graph *g = &t->ch.nvls;
	double intra = g->bw_intra * nccl_nvls_efficiency(t->p->nccl, topo->gpu_arch) *
		       (g->nchannels - 1) / g->nchannels;
	double inter = g->bw_inter * (t->nnodes <= 2 && tree ? 2 : 1);

	intra *= t->op == TRACE_OP_ALLREDUCE ? 2.0 : (t->ppn - 1.0) / t->ppn;
	return fmin(fmin(intra, inter),
		    tree ? nccl_nvls_tree_per_channel(t->p->nccl, topo->gpu_arch, t->nnodes) : INFINITY);
}

/*
 * The tuner's NVLS algorithm bandwidth over a collective of @nsteps
 * steps: the graph's channels at algo_nvls_bw, x nRanks / nsteps for an
 * all-reduce; all-gather and reduce-scatter take the bus bandwidth as it
 * is (v2.30.7-1 tuning.cc:376-382 converts them for the ring alone). 2.19.3
 * (tuning.cc:175-176, 199) has its own: the graph's speed, min(bwIntra,
 * bwInter) with NVLS-tree's bwInter halved beyond 2 nodes, no efficiency,
 * no cap, x 5/6 whatever the steps.
 */
double algo_nvls_algbw(const struct tune_ctx *t, bool tree, unsigned nsteps)
{
	const struct nccl_graph *g = &t->ch.nvls;

	if (t->p->nccl->nvls_min_bw)
		return g->nchannels *
		       fmin(g->bw_intra, g->bw_inter / (tree && t->nnodes > 2 ? 2 : 1)) *
		       5.0 / 6.0;
	return g->nchannels * algo_nvls_bw(t, tree) *
	       (t->op == TRACE_OP_ALLREDUCE ? t->nranks / (double)nsteps : 1.0);
}

static void nvls_cost(const struct tune_ctx *t, enum proto_id p, double *lat,
		      double *bw, char *why, size_t len)
{
	unsigned n = t->nranks;
	unsigned nsteps = t->op == TRACE_OP_ALLREDUCE ? 2 * (n - 1) : n - 1;

	*bw = 0;
	*lat = 0;
	if (p != PROTO_SIMPLE) {
		snprintf(why, len, "NVLS runs Simple only");
		return;
	}
	if (!algo_nvls_available(t, why, len))
		return;
	if (t->nnodes > 1) {
		snprintf(why, len, "across nodes NCCL runs NVLS with CollNet only (see NVLSTree)");
		return;
	}
	*bw = algo_nvls_algbw(t, false, nsteps);
	/* the graph's typeIntra, PHB where NVLink's P2P is off (tuning.cc
	 * intraHw) */
	*lat = nccl_hw_latency(t->p->nccl, t->ch.nvls.nvlink ? HOP_NVLINK : HOP_PCI, ALGO_NVLS, p);
}

uint64_t algo_nvls_chunk_cut(uint64_t chunk, uint64_t bytes, const struct plan *p,
			     unsigned nchannels, const struct nvls_chunk_cut *cuts, size_t n)
{
	uint64_t ops = (uint64_t)nchannels * p->gpus_per_node;

	for (size_t i = 0; i < n; i++)
		if (bytes < cuts[i].chunks * ops * chunk && chunk > cuts[i].to)
			chunk = cuts[i].to;
	return chunk;
}

/* The Simple step, at most the communicator's nvlsChunkSize (its pipes'
 * chunk, nvls_build), smaller for calls that fill few chunks (enqueue.cc,
 * v2.30.7-1:2263-2274, v2.19.3-1:1360-1366). */
static uint64_t algo_nvls_chunk(const struct plan *p, const struct plan_pattern *pat,
			const struct plan_pipe *pp, uint64_t bytes, unsigned nchannels)
{
	static const struct nvls_chunk_cut cuts[] = {
		{ 64, 65536 }, { 8, 32768 }, { 2, 16384 },
	};

	(void)pp;
	return algo_nvls_chunk_cut(algo_nvls_pattern_chunk(pat), bytes, p, nchannels, cuts,
				   sizeof(cuts) / sizeof(cuts[0]));
}

uint64_t algo_nvls_pattern_chunk(const struct plan_pattern *pat)
{
	return pat->npipes ? pat->pipes[0].chunk_bytes : proto_step_bytes(PROTO_SIMPLE);
}

static int nvls_build(struct algo_build *b)
{
	struct plan_pattern *pat = b->pat;
	unsigned G = b->t->ppn;
	double vol = 1.0 / b->nch;
	bool reduce = pat->op != TRACE_OP_ALL_GATHER;
	bool mcast = pat->op != TRACE_OP_REDUCE_SCATTER;
	int err = 0;

	/* NCCL's NVLS latency is one figure for the whole call (the
	 * multicast group's synchronisation, not a hop a slice pays):
	 * the launch; the hops pay the NVLink's own latency. */
	pat->base_latency = 1e-6 * nccl_hop_latency(b->p->nccl, HOP_NVLINK, ALGO_NVLS,
						     PROTO_SIMPLE);
	for (unsigned c = 0; c < b->nch && !err; c++) {
		uint32_t red = 0, mc = 0;

		err = algo_pipe_begin(b, PIPE_CHAIN, c, vol);
		if (err)
			break;
		if (b->t->ch.nvls_chunk < algo_pipe(b)->chunk_bytes)
			algo_pipe(b)->chunk_bytes = b->t->ch.nvls_chunk;
		for (unsigned g = 0; g < G && !err; g++) {
			unsigned r = algo_rank(b, 0, g);
			uint32_t cr = 0, cm = 0;

			if (reduce)
				err = algo_conn(b, CONN_NVLS_REDUCE, r, r, c, vol, 0, &cr);
			if (!err && mcast)
				err = algo_conn(b, CONN_NVLS_MCAST, r, r, c, vol, 0, &cm);
			/* By symmetry every GPU's reduction ends at once: the
			 * multicast waits for its own. */
			if (!err && reduce && mcast)
				err = algo_dep(b, cm, cr);
			if (g == 0) {
				red = cr;
				mc = cm;
			}
		}
		if (!err && reduce)
			err = algo_hop(b, red);
		if (!err && mcast)
			err = algo_hop(b, mc);
	}
	return err;
}

const struct algo_ops algo_nvls = {
	.name = "NVLS",
	.cost = nvls_cost,
	.build = nvls_build,
	.chunk = algo_nvls_chunk,
};
