/* SPDX-License-Identifier: MIT */
/*
 * Ring (NCCL_ALGO_RING): all-reduce, reduce-scatter, all-gather and
 * broadcast over one ring per channel.
 *
 * Cost: tuning.cc's ring entries. Structure (src/device/all_reduce.h,
 * runRing): a channel's data is cut into loops of one chunk per rank;
 * every rank starts a loop with a chunk of its own, and each chunk goes
 * `steps` connections around the ring (2(n-1) for all-reduce: n-1
 * reducing, n-1 copying; n-1 for the others), reduced or copied and sent
 * on as soon as it has arrived. Simple moves a chunk of 4 slots in two
 * slices of 2 slots (ALLREDUCE_CHUNKSTEPS, _SLICESTEPS); LL and LL128 a
 * chunk of one slot in one slice (enqueue.cc calcCollChunking).
 * Broadcast is a chain from the root (ncclPatternPipelineFrom).
 */
#include "algo.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned ring_steps(enum trace_op op, unsigned n)
{
	return op == TRACE_OP_ALLREDUCE ? 2 * (n - 1) : n - 1;
}

/* The share of a channel's speed a ring's LL gets (2.8.4: a quarter
 * across nodes or for all-reduce, else a third; later a half). */
static double ring_ll_share(const struct nccl_release *r, const struct tune_ctx *t)
{
	return t->nnodes > 1 || t->op == TRACE_OP_ALLREDUCE ? r->ring_ll_share :
							      r->ring_ll_share_one_node;
}

static void ring_cost(const struct tune_ctx *t, enum proto_id p, double *lat,
		      double *bw, char *why, size_t len)
{
	const struct topology *topo = &t->p->topo;
	const struct nccl_release *r = t->p->nccl;
	const struct nccl_graph *g = &t->ch.ring;
	unsigned n = t->nranks, nsteps = t->op == TRACE_OP_BROADCAST ? n : ring_steps(t->op, n);
	enum hop_class intra_hw = g->nvlink ? HOP_NVLINK : HOP_PCI;
	enum hop_class hw = t->nnodes == 1 ? intra_hw : HOP_NET;
	double bus = fmin(g->nchannels * (t->nnodes <= 2 ? g->bw_intra : g->bw_inter),
			  nccl_bus_bw_cap(r, topo->gpu_arch));
	double intra = nccl_hw_latency(r, intra_hw, ALGO_RING, p);
	double inter = t->ppn == 1 && r->ppn1_tree_net_lat ?
			       nccl_hw_latency(r, HOP_NET, ALGO_TREE, p) :
			       nccl_hw_latency(r, HOP_NET, ALGO_RING, p);

	(void)why;
	(void)len;
	if (p == PROTO_LL) {
		bus = fmin(nccl_ll_max_bw(r, topo->gpu_arch, topo->cpu_vendor, t->nnodes),
			   bus * ring_ll_share(r, t));
		if (t->nnodes > 1)
			intra *= r->ll_intra_factor;
	}
	if (p == PROTO_LL128)
		bus = fmin(bus * (t->ppn < 2 ? r->ring_ll128_one_ppn : 0.92),
			   g->nchannels * nccl_ring_ll128_per_channel(r, topo->gpu_arch, t->op,
								      t->nnodes));
	*bw = bus * n / nsteps;
	*lat = nccl_base_latency(r, ALGO_RING, p);
	if (t->op == TRACE_OP_BROADCAST) {
		/* graphs[RING]->sameChannels: one hop's latency. */
		*lat += nccl_hw_latency(r, hw, ALGO_RING, p);
	} else {
		unsigned ninter = t->nnodes == 1 ? 0 :
				  t->op != TRACE_OP_ALLREDUCE ? t->nnodes - 1 :
				  r->ring_allreduce_inter_2n ? 2 * t->nnodes :
							       2 * (t->nnodes - 1);

		if (t->nnodes > 1) {
			double ovh = nccl_net_overhead_us(r, topo->cpu_vendor) *
				     (p == PROTO_SIMPLE ? 3 : 1);

			intra = fmax(intra, ovh);
		}
		/* signed, as NCCL's ints: 2 nNodes exceeds nsteps at one
		 * GPU a node, which takes intra hops off */
		*lat += ((double)nsteps - ninter) * intra + ninter * inter;
	}
}

/* "Plateau effect of ring": Simple all-reduce across nodes. */
static void ring_refine(const struct tune_ctx *t, enum proto_id p,
			uint64_t bytes, unsigned nchannels, double *lat,
			double *bw)
{
	const struct nccl_release *r = t->p->nccl;
	uint64_t per = bytes / ((uint64_t)(r->plateau_per_channel ? nchannels : 1) * t->nranks);

	(void)bw;
	if (p == PROTO_SIMPLE && t->nnodes > 1 && t->op == TRACE_OP_ALLREDUCE &&
	    per >= r->plateau_bytes_per_rank)
		*lat *= r->plateau[t->p->topo.gpu_arch < TOPO_GPU_AMPERE ? 0 : 1];
}

/* One place of a channel's ring: its rank and, at a node's edge, the NIC
 * the channel enters or leaves through. */
struct ring_pos {
	unsigned rank;
	int nic_in, nic_out;
};

/*
 * The ring of channel @c: the group node by node, each node's GPUs laid
 * out as the channel goes through them (channels.h: in and out through
 * the channel's NIC). A group with a different count on some node (a ring
 * is the one algorithm such groups get) lays each node out by itself.
 */
static void ring_order(const struct algo_build *b, unsigned c, struct ring_pos *out)
{
	const struct plan_pattern *pat = b->pat;
	unsigned n = pat->nranks, at = 0, G = b->p->gpus_per_node;

	for (unsigned i = 0; i < n;) {
		unsigned node = plan_node_of(b->p, pat->ranks[i]), j = i, gpus[TOPO_MAX_GPUS];
		struct channel_layout lay;

		while (j < n && plan_node_of(b->p, pat->ranks[j]) == node)
			j++;
		for (unsigned k = i; k < j; k++)
			gpus[k - i] = pat->ranks[k] % G;
		channels_layout(b->p->nccl, &b->p->topo, gpus, j - i,
				channels_copied(&b->t->ch, &b->t->ch.ring, c), b->t->nnodes > 1, &lay);
		algo_rail_align(b, &lay);
		for (unsigned k = 0; k < j - i; k++)
			out[at++] = (struct ring_pos){ pat->ranks[i + lay.order[k]],
						       k == 0 ? lay.nic_in : -1,
						       k + 1 == j - i ? lay.nic_out : -1 };
		i = j;
	}
}

/* Whether the window of @steps connections from @s ends on a cut-through
 * hop (LL, LL128 inside a node). */
static bool ends_cut_through(const struct plan_pattern *pat, size_t first, unsigned n,
			     unsigned s, unsigned steps)
{
	return pat->routes[pat->conns[first + (s + steps - 1) % n].route].cut_through;
}

/* The window of @steps consecutive connections with the most latency:
 * the chunk whose trip is slowest. Of windows alike, one that ends on a
 * cut-through hop: its hops before pass a grain on, but its last lands
 * the whole slice (model/analytic.c chain_time), where a network hop's
 * last is whole either way. */
static unsigned slowest_start(const struct plan_pattern *pat, size_t first,
			      unsigned n, unsigned steps)
{
	double sum = 0, best;
	unsigned start = 0;
	bool cut;

	for (unsigned i = 0; i < steps; i++)
		sum += pat->conns[first + i % n].latency;
	best = sum;
	cut = ends_cut_through(pat, first, n, 0, steps);
	for (unsigned s = 1; s < n; s++) {
		sum += pat->conns[first + (s + steps - 1) % n].latency -
		       pat->conns[first + s - 1].latency;
		if (sum > best * (1 + 1e-12) ||
		    (!cut && sum >= best * (1 - 1e-12) &&
		     ends_cut_through(pat, first, n, s, steps))) {
			best = sum;
			start = s;
			cut = ends_cut_through(pat, first, n, s, steps);
		}
	}
	return start;
}

static int ring_channel(struct algo_build *b, unsigned c, struct ring_pos *order)
{
	struct plan_pattern *pat = b->pat;
	const struct topology *topo = &b->p->topo;
	unsigned n = pat->nranks, steps = ring_steps(pat->op, n);
	bool simple = pat->proto == PROTO_SIMPLE;
	const struct nccl_graph *ring = &b->t->ch.ring;
	struct plan_pipe *pp;
	size_t first;
	uint32_t conn;
	int err;

	err = algo_pipe_begin(b, PIPE_RING, c, 1.0 / b->nch);
	if (err)
		return err;
	pp = algo_pipe(b);
	pp->ranks = n;
	pp->steps = steps;
	pp->slices_per_chunk = simple ? 2 : 1;
	pp->slice_steps = simple ? 2 : 1;
	pp->chunk_bytes = proto_step_bytes(pat->proto) * (simple ? 4 : 1);
	/*
	 * A channel's LL and LL128 take at most what NCCL's tuner gives one:
	 * LL the release's share of the graph's speed, LL128 its limit per
	 * graph channel, each NCCL's bus bandwidth (tuning.cc multiplies both
	 * by the graph's channels) spread over the communicator's channels.
	 * In NCCL's cost model both are the bandwidth term alone (v2.30.7-1
	 * src/graph/tuning.cc:327-329, busBw = min(llMaxBw, busBw * .5) and
	 * min(busBw * .92, nCh * perChMaxRingLL128Bw), into bandwidths[] at
	 * :383; v2.19.3-1 :180-181, v2.8.4-1 :125-126): the latency term is
	 * the launch and the hops' latencies, (nsteps - nInterSteps) intraLat
	 * + nInterSteps interLat (:411-412; v2.19.3-1 :229, v2.8.4-1 :152),
	 * nothing per chunk a hop, and a call takes lat + bytes / (1000 bw)
	 * (:653). So they pace each connection's stream of slices
	 * (stream_cap), as a tree's per-channel limits do (algo_tree.c), and a
	 * slice crosses each hop at its links' pace. What of NCCL's .5 and .92
	 * is the protocol's flags the links pay on every hop, as wire bytes
	 * (proto.c: 2 for LL, 128/120 for LL128). Charged on every hop (as
	 * conn_cap is), a chunk's 2(n - 1) hops of an all-reduce each cost it
	 * at the stream's pace, which NCCL's cost model does not have.
	 */
	if (pat->proto == PROTO_LL)
		pp->stream_cap = 1e9 * ring_ll_share(b->p->nccl, b->t) * ring->nchannels *
				 (b->t->nnodes <= 2 ? ring->bw_intra : ring->bw_inter) /
				 b->t->ch.comm_channels;
	if (pat->proto == PROTO_LL128)
		pp->stream_cap = 1e9 * nccl_ring_ll128_per_channel(b->p->nccl, topo->gpu_arch,
								    pat->op, b->t->nnodes) *
				 ring->nchannels / b->t->ch.comm_channels;
	first = pat->nconns;
	ring_order(b, c, order);
	for (unsigned i = 0; i < n; i++) {
		const struct ring_pos *a = &order[i], *z = &order[(i + 1) % n];

		err = algo_conn_via(b, CONN_P2P, a->rank, z->rank, c, a->nic_out,
				    z->nic_in, (double)steps / n / b->nch, -1, &conn);
		if (err)
			return err;
	}
	/* Connection i forwards what connection i - 1 brought. */
	for (unsigned i = 0; i < n && !err; i++)
		err = algo_dep(b, (uint32_t)(first + i), (uint32_t)(first + (i + n - 1) % n));
	for (unsigned i = 0, s = slowest_start(pat, first, n, steps); i < steps && !err; i++)
		err = algo_hop(b, (uint32_t)(first + (s + i) % n));
	return err;
}

/* Broadcast: one chain from the root around the ring. */
static int chain_channel(struct algo_build *b, unsigned c, struct ring_pos *order)
{
	struct plan_pattern *pat = b->pat;
	unsigned n = pat->nranks, start = 0;
	uint32_t conn, prev = 0;
	int err;

	err = algo_pipe_begin(b, PIPE_CHAIN, c, 1.0 / b->nch);
	if (err)
		return err;
	ring_order(b, c, order);
	while (order[start].rank != (unsigned)pat->root)
		start++;
	for (unsigned i = 0; i + 1 < n && !err; i++) {
		const struct ring_pos *a = &order[(start + i) % n], *z = &order[(start + i + 1) % n];

		err = algo_conn_via(b, CONN_P2P, a->rank, z->rank, c, a->nic_out, z->nic_in,
				    1.0 / b->nch, -1, &conn);
		if (!err && i)
			err = algo_dep(b, conn, prev);
		if (!err)
			err = algo_hop(b, conn);
		prev = conn;
	}
	return err;
}

static int ring_build(struct algo_build *b)
{
	struct plan_pattern *pat = b->pat;
	const struct topology *topo = &b->p->topo;
	struct ring_pos *order = malloc(pat->nranks * sizeof(*order));
	int err = 0;

	if (!order)
		return -ENOMEM;
	pat->base_latency = 1e-6 * nccl_launch_latency(b->p->nccl, ALGO_RING, pat->proto);
	/* NCCL's llMaxBws bound LL's bus bandwidth in the same line as its
	 * share (tuning.cc:327): the call's stream, as stream_cap. */
	if (pat->proto == PROTO_LL)
		pat->total_stream_cap = 1e9 * nccl_ll_max_bw(b->p->nccl, topo->gpu_arch,
							     topo->cpu_vendor, b->t->nnodes);
	for (unsigned c = 0; c < b->nch && !err; c++)
		err = pat->op == TRACE_OP_BROADCAST ? chain_channel(b, c, order) :
						      ring_channel(b, c, order);
	free(order);
	return err;
}

const struct algo_ops algo_ring = {
	.name = "Ring",
	.cost = ring_cost,
	.refine = ring_refine,
	.build = ring_build,
};
