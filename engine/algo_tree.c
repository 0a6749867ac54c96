/* SPDX-License-Identifier: MIT */
/*
 * Tree (NCCL_ALGO_TREE): all-reduce over a chain inside each node and a
 * double binary tree across nodes.
 *
 * Structure (src/graph/trees.cc, connect.cc, src/device/all_reduce.h
 * runTreeSplit): in each node the channel's GPUs form a chain whose head
 * talks to the network; the heads form a binary tree (ncclGetBtree), and
 * half the channels use its mirror or shift (ncclGetDtree), so that every
 * node is an inner node of one tree and a leaf of the other. Slices are
 * reduced up the chain and the tree to the root and broadcast back down
 * at once; a chunk is one slot (calcCollChunking).
 */
#include "algo.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

/* NCCL's LL tree gets its bus bandwidth / 3.8 (tuning.cc). */
#define TREE_LL_DIVISOR 3.8

/* The tree's bus bandwidth on @nchannels graph channels, GB/s, before the
 * protocols' limits (tuning.cc: min(busBw x .92, nCh x perChMaxTreeBw),
 * busBw under the release's cap). */
static double tree_bus_bw(const struct tune_ctx *t, unsigned nchannels)
{
	const struct nccl_graph *g = &t->ch.tree;
	double bus = fmin(nchannels * (t->nnodes <= 2 ? g->bw_intra : g->bw_inter),
			  nccl_bus_bw_cap(t->p->nccl, t->p->topo.gpu_arch));

	return fmin(bus * 0.92, nchannels * nccl_tree_per_channel(t->p->nccl, t->p->topo.gpu_arch,
								   t->nnodes));
}

/* LL128's share of @bus on @nchannels (tuning.cc: x 7/9 on one node, else
 * the release's 120/128, under nCh x ll128MaxBwPerCh). */
static double tree_ll128_bus_bw(const struct tune_ctx *t, double bus, unsigned nchannels)
{
	const struct nccl_release *r = t->p->nccl;

	return fmin(bus * (t->nnodes == 1 ? 7.0 / 9.0 : r->tree_ll128_factor),
		    nchannels * nccl_tree_ll128_per_channel(r, t->p->topo.gpu_arch, t->op,
							    t->nnodes));
}

static void tree_cost(const struct tune_ctx *t, enum proto_id p, double *lat,
		      double *bw, char *why, size_t len)
{
	const struct topology *topo = &t->p->topo;
	const struct nccl_release *r = t->p->nccl;
	const struct nccl_graph *g = &t->ch.ring;
	enum hop_class intra_hw = g->nvlink ? HOP_NVLINK : HOP_PCI;
	double bus = tree_bus_bw(t, g->nchannels);
	double intra = nccl_hw_latency(r, intra_hw, ALGO_TREE, p);
	double inter = nccl_hw_latency(r, HOP_NET, ALGO_TREE, p);

	*bw = 0;
	*lat = 0;
	if (t->op != TRACE_OP_ALLREDUCE) {
		snprintf(why, len, "NCCL's tree runs all-reduce only");
		return;
	}
	if (p == PROTO_LL) {
		bus = fmin(bus / TREE_LL_DIVISOR, nccl_ll_max_bw(r, topo->gpu_arch, topo->cpu_vendor, t->nnodes));
		if (t->nnodes > 1)
			intra *= r->ll_intra_factor;
	}
	if (p == PROTO_LL128)
		bus = tree_ll128_bus_bw(t, bus, g->nchannels);
	/* A tree graph of NCCL_TOPO_PATTERN_TREE (one GPU a node, search.cc:
	 * v2.30.7-1 :1133, v2.19.3-1 :885; Hopper's fallback, channels_search.c
	 * search_tree), which the tuner discounts (v2.30.7-1 tuning.cc:336,
	 * v2.19.3-1 :185). */
	if (t->ch.tree.pattern == NCCL_PATTERN_TREE)
		bus *= r->tree_pattern_factor;
	*bw = bus * 0.5;
	*lat = nccl_base_latency(r, ALGO_TREE, p) +
	       2 * ((t->ppn - 1) * intra + algo_log2(t->nnodes) * inter);
}

/* "Trees are not perfectly sticking to the model for medium sizes". */
static void tree_refine(const struct tune_ctx *t, enum proto_id p,
			uint64_t bytes, unsigned nchannels, double *lat,
			double *bw)
{
	(void)nchannels;
	(void)lat;
	*bw *= nccl_tree_correction(t->p->nccl, p, bytes);
}

/*
 * The chunk of a tree call (enqueue.cc): LL128 trees shrink theirs for
 * calls that would fill few of them (calcCollChunking); 2.8.4 shrank
 * Simple's too, by the tree's depth (computeColl; connect.cc's depth
 * "nRanks/nNodes - 1 + log2i(nNodes)"), which later releases do not.
 */
static uint64_t tree_chunk(const struct plan *p, const struct plan_pattern *pat,
			const struct plan_pipe *pp, uint64_t bytes, unsigned nchannels)
{
	uint64_t chunk = proto_step_bytes(pat->proto);
	double ppn = (double)pat->nranks / pat->nnodes;
	double steps = 1 + algo_log2(pat->nnodes) + 0.1 * ppn;

	(void)pp;
	if (pat->proto == PROTO_SIMPLE && p->nccl->tree_simple_chunk_by_depth) {
		uint64_t depth = pat->nranks / pat->nnodes - 1 + (uint64_t)algo_log2(pat->nnodes);

		while (bytes / (nchannels * chunk) < depth * 8 && chunk > 131072)
			chunk /= 2;
		while (bytes / (nchannels * chunk) < depth * 4 && chunk > 65536)
			chunk /= 2;
		while (bytes / (nchannels * chunk) < depth && chunk > 32768)
			chunk /= 2;
		return chunk;
	}
	if (pat->proto != PROTO_LL128)
		return chunk;
	while (bytes / (nchannels * chunk) < steps * 64 / ppn && chunk > 131072)
		chunk /= 2;
	while (bytes / (nchannels * chunk) < steps * 16 / ppn && chunk > 32768)
		chunk /= 2;
	return chunk;
}

/* ncclGetBtree: parent and children of @r in a tree of @n, -1 for none. */
static void btree(int n, int r, int *up, int *d0, int *d1)
{
	int bit;

	for (bit = 1; bit < n; bit <<= 1)
		if (bit & r)
			break;
	*d0 = *d1 = -1;
	if (r == 0) {
		*up = -1;
		*d1 = n > 1 ? bit >> 1 : -1;
		return;
	}
	*up = (r ^ bit) | (bit << 1);
	if (*up >= n)
		*up = r ^ bit;
	bit >>= 1;
	if (!bit)
		return;
	*d0 = r - bit;
	*d1 = r + bit;
	while (*d1 >= n && bit) {
		bit >>= 1;
		*d1 = bit ? r + bit : -1;
	}
}

/* ncclGetDtree's second tree: the mirror for even @n, the shift for odd. */
void algo_dtree(int n, int r, int which, int *up, int *d0, int *d1)
{
	int m = which == 0 ? r : n % 2 ? (r - 1 + n) % n : n - 1 - r;

	btree(n, m, up, d0, d1);
	if (which == 0)
		return;
	int *v[3] = { up, d0, d1 };

	for (int i = 0; i < 3; i++)
		if (*v[i] >= 0)
			*v[i] = n % 2 ? (*v[i] + 1) % n : n - 1 - *v[i];
}

/* Per node of a channel: its chain's connections, up and down. */
struct node_conns {
	uint32_t up_net, down_in; /* to the parent; from the parent (or, at
				   * the root, its own) */
	uint32_t *up, *down;      /* intra chain: up[k] is GPU k+1 -> k,
				   * down[k] is GPU k -> k+1 */
	int parent, child[2];
	unsigned at;              /* where on the parent's chain it lands */
	unsigned depth;           /* hops up to the root's head */
};

/* @conn of node @i waits for what reaches its chain's head: from the
 * parent, or at the root what came up to it (its chain, the children
 * landing at the head; those landing further down came up the chain). */
static int after_head(struct algo_build *b, const struct node_conns *nc, unsigned i,
		      unsigned G, uint32_t conn)
{
	int err = 0;

	if (nc[i].parent >= 0)
		return algo_dep(b, conn, nc[i].down_in);
	if (G > 1)
		err = algo_dep(b, conn, nc[i].up[0]);
	for (int k = 0; k < 2 && !err; k++) {
		int ch = nc[i].child[k];

		if (ch >= 0 && !nc[ch].at)
			err = algo_dep(b, conn, nc[ch].up_net);
	}
	return err;
}

static int tree_channel(struct algo_build *b, unsigned c, unsigned which,
			struct node_conns *nc, uint32_t *chain_buf)
{
	struct plan_pattern *pat = b->pat;
	unsigned N = b->t->nnodes, G = b->t->ppn;
	double vol = 1.0 / b->nch;
	unsigned deepest = 0;
	int err;

	err = algo_pipe_begin(b, PIPE_CHAIN, c, vol);
	if (err)
		return err;
	/*
	 * NCCL's per-channel tree bandwidth (tuning.cc ncclTopoTuneModel:
	 * busBw = min(nCh x the graph's speed x .92, nCh * perChMaxTreeBw),
	 * LL128's share of it after, then x0.5 for the all-reduce; the
	 * pattern's discount aside, as for LL) enters its cost model's
	 * bandwidth term alone; the latency term is the hops' latencies,
	 * 2 ((ppn - 1) intra + log2(N) inter), and nothing per chunk a hop. So the limit paces each
	 * connection's stream of slices (stream_cap), and a slice still
	 * crosses a hop at its links' pace: charged on every hop of the fill
	 * (as conn_cap is) it made a slice's way up and down the tree cost
	 * 2 (ppn - 1 + log2 N) chunks at the stream's pace, more than the
	 * stream itself wherever a channel has fewer chunks than the tree
	 * has hops. Each graph channel is two communicator channels (trees
	 * 0 and 1, connect.cc), each connection moving its channel's share
	 * up or down: half of a graph channel's algorithm bandwidth.
	 */
	algo_pipe(b)->stream_cap = 1e9 * (pat->proto == PROTO_LL128 ?
		tree_ll128_bus_bw(b->t, tree_bus_bw(b->t, 1), 1) :
		pat->proto == PROTO_SIMPLE ?
		tree_bus_bw(b->t, 1) :
		INFINITY /* LL's: tree_ll_limits, once the routes are known */) /
		2 * b->t->ch.ring.nchannels / b->t->ch.comm_channels;
	/*
	 * Structure first. Every node of a regular group has the same GPUs,
	 * so one layout: the tree's chain (channels_tree_chain), a child's
	 * connections at the parent's first GPU or at the one that sends
	 * back to the network (connect.cc: treeToChild0 there but in a
	 * simple tree, treeToChild1 too in a split tree).
	 */
	struct channel_layout lay;
	unsigned back, pos[2], gpus[TOPO_MAX_GPUS];
	int nic;

	algo_layout(b, 0, c, &lay);
	algo_node_gpus(b, 0, gpus);
	back = channels_tree_chain(b->p->nccl, &b->p->topo, b->t->ch.tree.pattern, gpus, G,
				   &lay);
	/* where a mesh's pairs left that GPU at the chain's far end, NCCL's
	 * own chain has it second: the children land at the head, a hop
	 * short of that, not G - 2 hops long */
	if (G > 2 && back == G - 1)
		back = 0;
	pos[0] = back;
	pos[1] = b->t->ch.tree.pattern == NCCL_PATTERN_SPLIT_TREE ? back : 0;
	nic = lay.nic_in;
	for (unsigned i = 0; i < N; i++) {
		algo_dtree((int)N, (int)i, (int)which, &nc[i].parent, &nc[i].child[0],
			   &nc[i].child[1]);
		nc[i].at = 0;
	}
	for (unsigned i = 0; i < N; i++)
		for (int k = 0; k < 2; k++)
			if (nc[i].child[k] >= 0)
				nc[nc[i].child[k]].at = pos[k];
	/* the longest way to the root: a network hop a level and the
	 * parent's chain from where it lands to its head */
	for (unsigned i = 0; i < N; i++) {
		unsigned d = 0, level = 0;

		for (int node = (int)i; nc[node].parent >= 0 && level <= N;
		     node = nc[node].parent, level++)
			d += 1 + nc[node].at;
		nc[i].depth = d;
		if (d > nc[deepest].depth)
			deepest = i;
	}
#define RANK(i, k) algo_layout_rank(b, (i), &lay, (k))
	/* Connections: up the chains and the tree... */
	for (unsigned i = 0; i < N && !err; i++) {
		for (unsigned k = G - 1; k >= 1 && !err; k--) {
			err = algo_conn(b, CONN_P2P, RANK(i, k), RANK(i, k - 1), c, vol, -1,
					&nc[i].up[k - 1]);
			if (!err && k + 1 < G)
				err = algo_dep(b, nc[i].up[k - 1], nc[i].up[k]);
		}
		if (!err && nc[i].parent >= 0)
			err = algo_conn_via(b, CONN_P2P, RANK(i, 0),
					    RANK((unsigned)nc[i].parent, nc[i].at), c, nic, nic, vol,
					    -1, &nc[i].up_net);
	}
	/* ...a GPU sending up once its chain and the children landing at it
	 * have (a head's at the root: after_head)... */
	for (unsigned i = 0; i < N && !err; i++) {
		if (nc[i].parent >= 0 && G > 1)
			err = algo_dep(b, nc[i].up_net, nc[i].up[0]);
		for (int k = 0; k < 2 && !err; k++) {
			int ch = nc[i].child[k];

			if (ch < 0)
				continue;
			if (nc[ch].at)
				err = algo_dep(b, nc[i].up[nc[ch].at - 1], nc[ch].up_net);
			else if (nc[i].parent >= 0)
				err = algo_dep(b, nc[i].up_net, nc[ch].up_net);
		}
	}
	/* ...and down: from where a child lands on its parent's chain to its
	 * head, and along each chain. */
	for (unsigned i = 0; i < N && !err; i++) {
		for (unsigned k = 0; k + 1 < G && !err; k++)
			err = algo_conn(b, CONN_P2P, RANK(i, k), RANK(i, k + 1), c, vol, -1,
					&nc[i].down[k]);
		for (int k = 0; k < 2 && !err; k++) {
			int ch = nc[i].child[k];

			if (ch >= 0)
				err = algo_conn_via(b, CONN_P2P, RANK(i, nc[ch].at), RANK((unsigned)ch, 0),
						    c, nic, nic, vol, -1, &nc[ch].down_in);
		}
	}
#undef RANK
	for (unsigned i = 0; i < N && !err; i++) {
		if (G > 1)
			err = after_head(b, nc, i, G, nc[i].down[0]);
		for (unsigned k = 1; k + 1 < G && !err; k++)
			err = algo_dep(b, nc[i].down[k], nc[i].down[k - 1]);
		for (int k = 0; k < 2 && !err; k++) {
			int ch = nc[i].child[k];

			if (ch < 0)
				continue;
			err = nc[ch].at ? algo_dep(b, nc[ch].down_in, nc[i].down[nc[ch].at - 1]) :
					  after_head(b, nc, i, G, nc[ch].down_in);
		}
	}
	if (err)
		return err;
	/* The chain: the deepest node's last GPU up to the root's head, and
	 * back down to it. */
	{
		unsigned n = 0, path[64], np = 0;

		for (unsigned k = G - 1; k >= 1; k--)
			chain_buf[n++] = nc[deepest].up[k - 1];
		for (int node = (int)deepest; nc[node].parent >= 0 && np < 64;
		     node = nc[node].parent) {
			chain_buf[n++] = nc[node].up_net;
			for (unsigned k = nc[node].at; k >= 1; k--)
				chain_buf[n++] = nc[nc[node].parent].up[k - 1];
			path[np++] = (unsigned)node;
		}
		while (np) {
			unsigned node = path[--np];

			for (unsigned k = 0; k < nc[node].at; k++)
				chain_buf[n++] = nc[nc[node].parent].down[k];
			chain_buf[n++] = nc[node].down_in;
		}
		for (unsigned k = 0; k + 1 < G; k++)
			chain_buf[n++] = nc[deepest].down[k];
		for (unsigned i = 0; i < n && !err; i++)
			err = algo_hop(b, chain_buf[i]);
	}
	return err;
}

/*
 * Does an LL tree's receiver read its network data from host memory? NCCL
 * keeps a network connection's receive FIFO in GPU memory only with
 * GPUDirect RDMA (transport/net.cc, v2.30.7-1:1101, v2.8.4-1:135; the
 * send side's LL FIFO stays in host memory whatever GDR says, :917 and
 * :85). Staged, the tree's GPU threads poll each LL line over PCIe.
 */
static bool tree_ll_polls_host(const struct plan_pattern *pat)
{
	for (size_t i = 0; i < pat->nroutes; i++)
		if (!pat->routes[i].intra && !pat->routes[i].recv_direct)
			return true;
	return false;
}

/*
 * An LL tree's limits (tuning.cc, v2.30.7-1:331-332, v2.8.4-1:127-128:
 * busBw = min(min(busBw x .92, nCh x perChMaxTreeBw) / 3.8, llMaxBw),
 * x0.5 for the all-reduce), as a ring's are (algo_ring.c): the per-graph-
 * channel share, spread over the communicator's channels as the Simple
 * limit is (tree_channel), paces each connection's stream. llMaxBws is
 * the call's: with GPUDirect on the receive side its stream's too
 * (@whole_stream); staged it holds every hop (total_cap, set by
 * tree_build), as the ABCI curves bear out, where a slice's lines are
 * polled over PCIe (docs/model.md, Known limits).
 */
static void tree_ll_limits(struct algo_build *b, bool whole_stream)
{
	const struct nccl_graph *g = &b->t->ch.ring;
	struct plan_pattern *pat = b->pat;
	double stream = 1e9 * tree_bus_bw(b->t, 1) / TREE_LL_DIVISOR / 2 * g->nchannels /
			b->t->ch.comm_channels;

	for (size_t i = 0; i < pat->npipes; i++)
		pat->pipes[i].stream_cap = stream;
	if (!whole_stream)
		return;
	pat->total_stream_cap = pat->total_cap;
	pat->total_cap = INFINITY;
}

static int tree_build(struct algo_build *b)
{
	struct plan_pattern *pat = b->pat;
	const struct topology *topo = &b->p->topo;
	unsigned N = b->t->nnodes, G = b->t->ppn;
	unsigned half = b->t->ch.comm_channels / 2 ? b->t->ch.comm_channels / 2 : 1;
	struct node_conns *nc = calloc(N, sizeof(*nc));
	uint32_t *links = calloc((size_t)N * 2 * (G ? G : 1), sizeof(*links));
	/* a hop a level and the chain below where it lands, up and down */
	uint32_t *chain = calloc(2 * (G + 64 * (G + 1)), sizeof(*chain));
	int err = 0;

	if (!nc || !links || !chain) {
		err = -ENOMEM;
		goto out;
	}
	for (unsigned i = 0; i < N; i++) {
		nc[i].up = links + (size_t)i * 2 * G;
		nc[i].down = nc[i].up + G;
	}
	pat->base_latency = 1e-6 * nccl_launch_latency(b->p->nccl, ALGO_TREE, pat->proto);
	if (pat->proto == PROTO_LL)
		pat->total_cap = 1e9 * nccl_ll_max_bw(b->p->nccl, topo->gpu_arch,
						      topo->cpu_vendor, N) / 2;
	/* Channels c and c + comm/2 are one graph channel on tree 0 and 1. */
	for (unsigned c = 0; c < b->nch && !err; c++)
		err = tree_channel(b, c, (c / half) % 2, nc, chain);
	if (!err && pat->proto == PROTO_LL)
		tree_ll_limits(b, !tree_ll_polls_host(pat));
out:
	free(chain);
	free(links);
	free(nc);
	return err;
}

const struct algo_ops algo_tree = {
	.name = "Tree",
	.cost = tree_cost,
	.refine = tree_refine,
	.build = tree_build,
	.chunk = tree_chunk,
};
