/* SPDX-License-Identifier: MIT */
/*
 * NVLS-tree (NCCL_ALGO_NVLS_TREE): all-reduce across nodes, NVLink SHARP
 * inside each node and NCCL's double binary tree between the nodes'
 * heads (src/device/all_reduce.h runNvlsTree). Per channel one GPU of
 * each node is the head: the node's slices are reduced in the NVSwitch
 * into it, go up and down the tree over its NIC, and the switch
 * multicasts the result to every GPU.
 */
#include "algo.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static void nvls_tree_cost(const struct tune_ctx *t, enum proto_id p,
			   double *lat, double *bw, char *why, size_t len)
{
	unsigned n = t->nranks;

	*bw = 0;
	*lat = 0;
	if (p != PROTO_SIMPLE) {
		snprintf(why, len, "NVLSTree runs Simple only");
		return;
	}
	if (t->op != TRACE_OP_ALLREDUCE) {
		snprintf(why, len, "NCCL's NVLSTree runs all-reduce only");
		return;
	}
	if (!algo_nvls_available(t, why, len))
		return;
	if (t->nnodes < 2) {
		snprintf(why, len, "NCCL disables NVLSTree on one node");
		return;
	}
	*bw = algo_nvls_algbw(t, true, 2 * (n - 1));
	*lat = nccl_hw_latency(t->p->nccl, t->ch.nvls.nvlink ? HOP_NVLINK : HOP_PCI,
			      ALGO_NVLS_TREE, p) +
	       2 * algo_log2(t->nnodes) *
		       nccl_hw_latency(t->p->nccl, HOP_NET, ALGO_NVLS_TREE, p);
}

/* 2.30.7 corrects NVLS-tree's bandwidth by treeCorrectionFactor on
 * Blackwell with x86 CPUs (tuning.cc:643-646). */
static void nvls_tree_refine(const struct tune_ctx *t, enum proto_id p, uint64_t bytes,
			     unsigned nchannels, double *lat, double *bw)
{
	const struct topology *topo = &t->p->topo;

	(void)nchannels;
	(void)lat;
	*bw *= nccl_nvls_tree_correction(t->p->nccl, topo->gpu_arch, topo->cpu_vendor, p, bytes);
}

/*
 * NVLS-tree's chunk (enqueue.cc, v2.30.7-1:2276-2285, v2.19.3-1:1369-1377):
 * the communicator's (its pipes', from ncclNvlsTuning: nvls_tree_channel),
 * then halved for calls that fill fewer than 32, 16, 4 and 1 chunks a
 * concurrent op (a channel's head, one a GPU here as in algo_nvls_chunk),
 * down to 256, 128, 64 and 32 KiB. It is not NVLS's (algo_nvls_chunk):
 * larger, and cut later.
 */
static uint64_t nvls_tree_chunk(const struct plan *p, const struct plan_pattern *pat,
			const struct plan_pipe *pp, uint64_t bytes, unsigned nchannels)
{
	static const struct nvls_chunk_cut cuts[] = {
		{ 32, 262144 }, { 16, 131072 }, { 4, 65536 }, { 1, 32768 },
	};

	(void)pp;
	return algo_nvls_chunk_cut(algo_nvls_pattern_chunk(pat), bytes, p, nchannels, cuts,
				   sizeof(cuts) / sizeof(cuts[0]));
}

struct head {
	uint32_t reduce, up, down_in, *mcast;
	int parent, child[2];
};

/* Channel @c's head, an index into the node's GPUs, and its NIC in
 * @nic: NCCL's NVLS graph's (channels_nvls_head), the heads taken in turn
 * by the channels (connect.cc). */
static unsigned nvls_tree_head(const struct algo_build *b, unsigned c, int *nic)
{
	unsigned gpus[TOPO_MAX_GPUS], G = b->t->ppn;

	for (unsigned k = 0; k < G; k++)
		gpus[k] = b->pat->ranks[k] % b->p->gpus_per_node;
	return channels_nvls_head(&b->p->topo, gpus, G, b->t->nnodes > 1, c, nic);
}

/* Channel @c's pipe on tree @which carrying @share of the channel. */
static int nvls_tree_channel(struct algo_build *b, unsigned c, unsigned which, double share,
			     struct head *h, uint32_t *mcast)
{
	unsigned N = b->t->nnodes, G = b->t->ppn, hg, deepest = 0, dmax = 0;
	double vol = share / b->nch;
	int err, nic;

	err = algo_pipe_begin(b, PIPE_CHAIN, c, vol);
	if (err)
		return err;
	algo_pipe(b)->chunk_bytes = b->t->ch.nvls_tree_chunk;
	hg = nvls_tree_head(b, c, &nic);
	for (unsigned i = 0; i < N; i++) {
		h[i].mcast = mcast + (size_t)i * G;
		algo_dtree((int)N, (int)i, (int)which, &h[i].parent, &h[i].child[0],
			   &h[i].child[1]);
	}
	for (unsigned i = 0; i < N && !err; i++) {
		unsigned head = algo_rank(b, i, hg);

		/* By symmetry the head's own reduction ends with the others'. */
		err = algo_conn(b, CONN_NVLS_REDUCE, head, head, c, vol, 0, &h[i].reduce);
		for (unsigned g = 0; g < G && !err; g++) {
			uint32_t other;

			if (g != hg)
				err = algo_conn(b, CONN_NVLS_REDUCE, algo_rank(b, i, g),
						algo_rank(b, i, g), c, vol, 0, &other);
		}
		if (!err && h[i].parent >= 0)
			err = algo_conn_via(b, CONN_P2P, head, algo_rank(b, (unsigned)h[i].parent, hg),
					    c, nic, nic, vol, -1, &h[i].up);
	}
	for (unsigned i = 0; i < N && !err; i++) {
		unsigned d = 0;

		for (int at = (int)i; h[at].parent >= 0 && d <= N; at = h[at].parent)
			d++;
		if (d > dmax) {
			dmax = d;
			deepest = i;
		}
		if (h[i].parent >= 0) {
			err = algo_dep(b, h[i].up, h[i].reduce);
			for (int k = 0; k < 2 && !err; k++)
				if (h[i].child[k] >= 0)
					err = algo_dep(b, h[i].up, h[h[i].child[k]].up);
		}
		for (int k = 0; k < 2 && !err; k++)
			if (h[i].child[k] >= 0)
				err = algo_conn_via(b, CONN_P2P, algo_rank(b, i, hg),
						    algo_rank(b, (unsigned)h[i].child[k], hg), c,
						    nic, nic, vol, -1,
						    &h[h[i].child[k]].down_in);
		for (unsigned g = 0; g < G && !err; g++)
			err = algo_conn(b, CONN_NVLS_MCAST, algo_rank(b, i, g),
					algo_rank(b, i, g), c, vol, 0, &h[i].mcast[g]);
	}
	/* Down the tree and out of each node: what came down, or at the
	 * root what came up. */
	for (unsigned i = 0; i < N && !err; i++) {
		unsigned nout = 0;
		uint32_t *outs = malloc((G + 2) * sizeof(*outs));

		if (!outs)
			return -ENOMEM;
		for (int k = 0; k < 2; k++)
			if (h[i].child[k] >= 0)
				outs[nout++] = h[h[i].child[k]].down_in;
		for (unsigned g = 0; g < G; g++)
			outs[nout++] = h[i].mcast[g];
		for (unsigned o = 0; o < nout && !err; o++) {
			if (h[i].parent >= 0) {
				err = algo_dep(b, outs[o], h[i].down_in);
				continue;
			}
			err = algo_dep(b, outs[o], h[i].reduce);
			for (int k = 0; k < 2 && !err; k++)
				if (h[i].child[k] >= 0)
					err = algo_dep(b, outs[o], h[h[i].child[k]].up);
		}
		free(outs);
	}
	if (err)
		return err;
	{
		unsigned path[64], np = 0;

		err = algo_hop(b, h[deepest].reduce);
		for (int at = (int)deepest; !err && h[at].parent >= 0 && np < 64; at = h[at].parent) {
			err = algo_hop(b, h[at].up);
			path[np++] = (unsigned)at;
		}
		while (!err && np)
			err = algo_hop(b, h[path[--np]].down_in);
		if (!err)
			err = algo_hop(b, h[deepest].mcast[hg]);
	}
	return err;
}

/*
 * Which tree channel @c takes: NCCL spreads every channel over all the
 * heads and puts it on tree c % 2 (connect.cc, v2.30.7-1:310-316;
 * all_reduce.h runNvlsTree: a channel's chunk a head), so each head's NIC
 * carries half its bytes on each tree, for any even count of channels.
 * Here a channel has one head, its NIC @nic[c]: that NIC's channels take
 * the trees in turn, and where it has an odd count (24 channels on 8
 * NICs) its last one half on each: 2 (both). 16 channels on 8 NICs are
 * the first 8 on tree 0, the rest on tree 1, as when this took channel
 * c < nch / 2 to tree 0 (which left a NIC of 24 channels 2 to 1, and a
 * call using 8 of 16 on one tree).
 */
static unsigned nvls_tree_of(const int *nic, unsigned nch, unsigned c)
{
	unsigned j = 0, m = 0;

	for (unsigned k = 0; k < nch; k++)
		if (nic[k] == nic[c]) {
			j += k < c;
			m++;
		}
	if (m % 2 && j == m - 1)
		return 2;
	return j % 2;
}

static int nvls_tree_build(struct algo_build *b)
{
	unsigned N = b->t->nnodes, G = b->t->ppn;
	struct head *h = calloc(N, sizeof(*h));
	uint32_t *mcast = calloc((size_t)N * G, sizeof(*mcast));
	int *nic = calloc(b->nch, sizeof(*nic));
	int err = 0;

	if (!h || !mcast || !nic)
		err = -ENOMEM;
	/* NVLS's intra-node latency is the call's, once (algo_nvls.c); the
	 * tree's network hops pay NCCL's NVLSTree hop each. */
	b->pat->base_latency = 1e-6 * nccl_hop_latency(b->p->nccl, HOP_NVLINK,
							 ALGO_NVLS_TREE, PROTO_SIMPLE);
	/*
	 * NCCL's NVLS-tree bandwidth a graph channel is the least of NVLS's,
	 * the network's and perChMaxNVLSTreeBw (tuning.cc, v2.30.7-1:307-322;
	 * Hopper 57.7 GB/s on 2 nodes, 45.5 from 4), a per-channel maximum
	 * that enters its cost model's bandwidth term alone, as
	 * perChMaxTreeBw does the tree's: so it paces the call's stream of
	 * slices (total_stream_cap, shared by its channels), as the tree's
	 * paces its connections' (algo_tree.c), a slice still crossing each
	 * link at the link's pace. Until 2026-12-06 it did not: on
	 * h100-pcie5-400g's 2 nodes a 1 GiB all-reduce read 515 GB/s busbw
	 * where NCCL's estimate gives 454 (2 x 8 H100 over 8 x 400G RoCE
	 * measured 430, nccl#1221).
	 */
	b->pat->total_stream_cap = 1e9 * algo_nvls_algbw(b->t, true, 2 * (b->t->nranks - 1));
	for (unsigned c = 0; c < b->nch && !err; c++)
		nvls_tree_head(b, c, &nic[c]);
	for (unsigned c = 0; c < b->nch && !err; c++) {
		unsigned which = nvls_tree_of(nic, b->nch, c);

		if (which < 2) {
			err = nvls_tree_channel(b, c, which, 1.0, h, mcast);
			continue;
		}
		err = nvls_tree_channel(b, c, 0, 0.5, h, mcast);
		if (!err)
			err = nvls_tree_channel(b, c, 1, 0.5, h, mcast);
	}
	free(nic);
	free(mcast);
	free(h);
	return err;
}

const struct algo_ops algo_nvls_tree = {
	.name = "NVLSTree",
	.cost = nvls_tree_cost,
	.refine = nvls_tree_refine,
	.build = nvls_tree_build,
	.chunk = nvls_tree_chunk,
};
