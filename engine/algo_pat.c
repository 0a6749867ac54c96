/* SPDX-License-Identifier: MIT */
/*
 * PAT (NCCL_ALGO_PAT, "parallel aggregated trees", NCCL 2.23+):
 * all-gather and reduce-scatter at one GPU a node in a logarithmic number
 * of rounds (arXiv 2506.20252; src/device/all_gather.h runPat). Modelled
 * as recursive doubling: in round k every rank sends what it has
 * gathered to the rank 2^k away, so the data of a rank reaches all others
 * in ceil(log2 n) hops and every rank sends (n-1)/n of the data in all,
 * as a ring does. Reduce-scatter is the same rounds backwards. NCCL gives
 * PAT 0.75 of the bandwidth (tuning.cc), taken as its efficiency.
 */
#include "algo.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#define PAT_EFFICIENCY 0.75

static void pat_cost(const struct tune_ctx *t, enum proto_id p, double *lat,
		     double *bw, char *why, size_t len)
{
	/* init.cc: PAT's graph is the tree's (graphs[NCCL_ALGO_PAT] =
	 * treeGraph), whose bwIntra the search's second pass raises */
	const struct nccl_graph *g = &t->ch.tree;

	*bw = 0;
	*lat = 0;
	if (t->op != TRACE_OP_ALL_GATHER && t->op != TRACE_OP_REDUCE_SCATTER) {
		snprintf(why, len, "PAT runs all-gather and reduce-scatter only");
		return;
	}
	if (p != PROTO_SIMPLE) {
		snprintf(why, len, "PAT runs Simple only");
		return;
	}
	if (t->ppn != 1) {
		snprintf(why, len, "PAT needs one GPU a node (NCCL_PAT_ENABLE's default)");
		return;
	}
	/* No algorithm-bandwidth ratio for PAT's all-gather/reduce-scatter. */
	*bw = g->nchannels * (t->nnodes <= 2 ? g->bw_intra : g->bw_inter) * PAT_EFFICIENCY;
	*lat = nccl_base_latency(t->p->nccl, ALGO_PAT, p) +
	       algo_log2(t->nnodes) * (nccl_hw_latency(t->p->nccl, HOP_NET, ALGO_TREE, p) / 3.5) +
	       t->nranks * 2.8;
}

/* calcCollChunking: chunks shrink while a call has few per channel. */
static uint64_t pat_chunk(const struct plan *p, const struct plan_pattern *pat,
			const struct plan_pipe *pp, uint64_t bytes, unsigned nchannels)
{
	uint64_t chunk = proto_step_bytes(PROTO_SIMPLE);
	unsigned k = pat->op == TRACE_OP_ALL_GATHER ? 32 : 16;

	(void)p;
	(void)pp;
	while (chunk * nchannels * k > bytes && chunk > 65536)
		chunk /= 2;
	return chunk;
}

/* The distance of round @k: doubling, or halving for reduce-scatter. */
static unsigned round_distance(enum trace_op op, unsigned rounds, unsigned k)
{
	return 1u << (op == TRACE_OP_REDUCE_SCATTER ? rounds - 1 - k : k);
}

static int pat_build(struct algo_build *b)
{
	struct plan_pattern *pat = b->pat;
	unsigned n = pat->nranks, rounds = 0;
	double vol = 1.0 / b->nch;
	/* NCCL: log2(n) x inter / 3.5 + 2.8 us per rank. */
	double hop_us = nccl_hop_latency(b->p->nccl, HOP_NET, ALGO_TREE, PROTO_SIMPLE) / 3.5;
	uint32_t *prev = malloc(n * sizeof(*prev)), *cur = malloc(n * sizeof(*cur));
	int err = 0;

	if (!prev || !cur) {
		err = -ENOMEM;
		goto out;
	}
	while ((1u << rounds) < n)
		rounds++;
	pat->base_latency = 1e-6 * (nccl_launch_latency(b->p->nccl, ALGO_PAT, PROTO_SIMPLE) +
				     2.8 * n);
	for (unsigned c = 0; c < b->nch && !err; c++) {
		unsigned at = 0; /* where rank 0's data is: the chain */

		err = algo_pipe_begin(b, PIPE_CHAIN, c, vol);
		if (!err)
			algo_pipe(b)->efficiency = PAT_EFFICIENCY;
		for (unsigned k = 0; k < rounds && !err; k++) {
			unsigned d = round_distance(pat->op, rounds, k);
			/* What a rank holds then: d blocks, fewer in the last
			 * round when n is no power of two. */
			unsigned blocks = d < n - d ? d : n - d;

			for (unsigned r = 0; r < n && !err; r++) {
				err = algo_conn(b, CONN_P2P, pat->ranks[r], pat->ranks[(r + d) % n], c,
						vol * blocks / n, hop_us, &cur[r]);
				/* It sends on what the previous round brought. */
				if (!err && k)
					err = algo_dep(b, cur[r],
						       prev[(r + n - round_distance(pat->op, rounds, k - 1)) % n]);
			}
			if (!err)
				err = algo_hop(b, cur[at]);
			at = (at + d) % n;
			for (unsigned r = 0; r < n; r++)
				prev[r] = cur[r];
		}
	}
out:
	free(cur);
	free(prev);
	return err;
}

const struct algo_ops algo_pat = {
	.name = "PAT",
	.cost = pat_cost,
	.build = pat_build,
	.chunk = pat_chunk,
};
