/* SPDX-License-Identifier: MIT */
/*
 * algo_build: what every algorithm uses to write its pattern: pipes,
 * connections with their routes (shared by every connection whose two
 * GPUs, NICs and kind are the same), dependencies and hop chains.
 */
#include "algo.h"


#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "array_grow.h"
#include "route.h"

void algo_build_init(struct algo_build *b, const struct plan *p,
		     const struct tune_ctx *t, struct plan_pattern *pat,
		     unsigned nch)
{
	size_t most = (size_t)nch * pat->nranks * ALGO_CONNS_A_RANK;

	memset(b, 0, sizeof(*b));
	b->p = p;
	b->t = t;
	b->pat = pat;
	b->nch = nch;
	/* Room for the connections most algorithms make, taken at once and
	 * given back its unused end when built: grown by doubling, a
	 * 4096-node tree's million connections were copied and faulted
	 * into fresh pages some twenty times over. Only what is written is
	 * touched; an alltoall's more grow on as before. */
	if (most > 16 && (pat->conns = malloc(most * sizeof(*pat->conns))))
		b->cap_conns = most;
}

int algo_build_end(struct algo_build *b, int err)
{
	free(b->slots);
	free(b->reqs);
	b->slots = NULL;
	b->reqs = NULL;
	if (err) {
		free(b->pat->routes);
		free(b->pat->conns);
		free(b->pat->pipes);
		free(b->pat->hops);
		b->pat->routes = NULL;
		b->pat->conns = NULL;
		b->pat->pipes = NULL;
		b->pat->hops = NULL;
	} else if (b->pat->nconns && b->pat->nconns < b->cap_conns) {
		struct plan_conn *c = realloc(b->pat->conns,
					      b->pat->nconns * sizeof(*b->pat->conns));

		if (c)
			b->pat->conns = c;
	}
	return err;
}

int algo_pipe_begin(struct algo_build *b, enum pipe_shape shape,
		    unsigned channel, double share)
{
	struct plan_pattern *pat = b->pat;
	struct plan_pipe *pp;

	if (array_grow((void **)&pat->pipes, pat->npipes, &b->cap_pipes, sizeof(*pp)))
		return -ENOMEM;
	pp = &pat->pipes[pat->npipes++];
	memset(pp, 0, sizeof(*pp));
	pp->shape = shape;
	pp->channel = channel;
	pp->share = share;
	pp->slices_per_chunk = 1;
	pp->slice_steps = 1;
	pp->chunk_bytes = proto_step_bytes(pat->proto);
	pp->conn_cap = INFINITY;
	pp->stream_cap = INFINITY;
	pp->efficiency = 1;
	pp->first_conn = pat->nconns;
	pp->first_hop = pat->nhops;
	return 0;
}

struct plan_pipe *algo_pipe(struct algo_build *b)
{
	return &b->pat->pipes[b->pat->npipes - 1];
}

static uint64_t req_hash(const struct route_req *q)
{
	uint64_t v[8] = { q->kind, q->src_gpu, q->dst_gpu, q->intra,
			  (uint64_t)(q->nic_src + 1), (uint64_t)(q->nic_dst + 1),
			  (uint64_t)(q->relay_gpu + 1), q->node_gpus };
	uint64_t h = 14695981039346656037ull;

	for (unsigned i = 0; i < 8; i++) {
		h ^= v[i];
		h *= 1099511628211ull;
	}
	return h;
}

static bool req_equal(const struct route_req *q, const struct route_req *rq)
{
	return q->kind == rq->kind && q->src_gpu == rq->src_gpu &&
	       q->dst_gpu == rq->dst_gpu && q->intra == rq->intra &&
	       q->nic_src == rq->nic_src && q->nic_dst == rq->nic_dst &&
	       q->relay_gpu == rq->relay_gpu && q->switches == rq->switches &&
	       q->node_gpus == rq->node_gpus;
}

static int rehash(struct algo_build *b)
{
	size_t n = b->nslots ? 2 * b->nslots : 64;
	uint32_t *s = calloc(n, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < b->pat->nroutes; i++) {
		size_t k = req_hash(&b->reqs[i]) & (n - 1);

		while (s[k])
			k = (k + 1) & (n - 1);
		s[k] = (uint32_t)i + 1;
	}
	free(b->slots);
	b->slots = s;
	b->nslots = n;
	return 0;
}

/* The route for @q: found by its request, or made and added. */
static int route_for(struct algo_build *b, const struct route_req *q,
		     uint32_t *out)
{
	struct plan_pattern *pat = b->pat;
	size_t k;
	int err;

	if (2 * (pat->nroutes + 1) > b->nslots) {
		err = rehash(b);
		if (err)
			return err;
	}
	for (k = req_hash(q) & (b->nslots - 1); b->slots[k];
	     k = (k + 1) & (b->nslots - 1)) {
		uint32_t i = b->slots[k] - 1;

		if (req_equal(q, &b->reqs[i])) {
			*out = i;
			return 0;
		}
	}
	if (array_grow((void **)&pat->routes, pat->nroutes, &b->cap_routes, sizeof(*pat->routes)) ||
	    array_grow((void **)&b->reqs, pat->nroutes, &b->cap_reqs, sizeof(*b->reqs)))
		return -ENOMEM;
	route_make(b->p, pat->proto, q, &pat->routes[pat->nroutes], &b->notes);
	b->reqs[pat->nroutes] = *q;
	b->slots[k] = (uint32_t)pat->nroutes + 1;
	*out = (uint32_t)pat->nroutes++;
	return 0;
}

double algo_hop_latency(const struct algo_build *b, enum hop_class h)
{
	const struct plan_pattern *pat = b->pat;
	const struct nccl_release *r = b->p->nccl;
	double lat = nccl_hop_latency(r, h, pat->algo, pat->proto);

	/*
	 * tuning.cc: "Inter-node rings still have to launch nsteps * net
	 * overhead": a ring's intra-node hops cost at least NCCL_NET_OVERHEAD
	 * (x3 for Simple) once the ring leaves the node.
	 */
	if (pat->algo == ALGO_RING && h != HOP_NET && b->t->nnodes > 1) {
		double ovh = nccl_net_overhead_us(r, b->p->topo.cpu_vendor) *
			     (pat->proto == PROTO_SIMPLE ? 3 : 1);

		if (ovh > lat)
			lat = ovh;
	}
	/* With one GPU a node every hop is a network hop, whose latency NCCL
	 * takes from its tree row ("latencies are fully exposed"). */
	if (h == HOP_NET && b->t->ppn == 1 && pat->algo < ALGO_NCCL_COUNT && r->ppn1_tree_net_lat)
		lat = nccl_hop_latency(r, HOP_NET, ALGO_TREE, pat->proto);
	/* The release's LL intra hops across nodes (2.8.4: x1.8). */
	if (pat->proto == PROTO_LL && h != HOP_NET && b->t->nnodes > 1 &&
	    (pat->algo == ALGO_RING || pat->algo == ALGO_TREE))
		lat *= r->ll_intra_factor;
	/*
	 * "Plateau effect of ring": a Simple all-reduce ring across nodes
	 * pays its hops' latency 1.9 times (1.4 from Ampere on in later
	 * releases) once a call has more than a few bytes a rank (tuning.cc,
	 * ncclTopoGetAlgoTime). Every call Simple is chosen for has; one
	 * forced on fewer bytes pays it too.
	 */
	if (pat->algo == ALGO_RING && pat->proto == PROTO_SIMPLE && pat->op == TRACE_OP_ALLREDUCE &&
	    b->t->nnodes > 1)
		lat *= r->plateau[b->p->topo.gpu_arch < TOPO_GPU_AMPERE ? 0 : 1];
	return lat;
}

int algo_conn(struct algo_build *b, enum conn_kind kind, unsigned src,
	      unsigned dst, unsigned channel, double volume,
	      double latency_us, uint32_t *out)
{
	return algo_conn_via(b, kind, src, dst, channel, -1, -1, volume,
			     latency_us, out);
}

void algo_node_gpus(const struct algo_build *b, unsigned node, unsigned *gpus)
{
	for (unsigned k = 0; k < b->t->ppn; k++)
		gpus[k] = b->pat->ranks[node * b->t->ppn + k] % b->p->gpus_per_node;
}

void algo_layout(const struct algo_build *b, unsigned node, unsigned c,
		 struct channel_layout *l)
{
	const struct plan_pattern *pat = b->pat;
	unsigned gpus[TOPO_MAX_GPUS], G = b->t->ppn;
	/* a tree takes its own graph's channels; CollNet's chain the ring's */
	const struct nccl_graph *g = pat->algo == ALGO_TREE ? &b->t->ch.tree : &b->t->ch.ring;

	algo_node_gpus(b, node, gpus);
	channels_layout(b->p->nccl, &b->p->topo, gpus, G, channels_copied(&b->t->ch, g, c),
			b->t->nnodes > 1, l);
	channels_far_nic(&b->p->topo, g, gpus, G, l);
	algo_rail_align(b, l);
}

void algo_rail_align(const struct algo_build *b, struct channel_layout *l)
{
	/* NCCL's crossNic 0, where its search kept the channels on their
	 * NICs (channels_keep_nic) */
	channels_keep_nic(&b->t->ch.ring, l);
	/*
	 * Rail alignment. With switches modelled, every channel leaves by
	 * the NIC it came in by where PXN can relay (NCCL 2.12+; "Doubling
	 * all2all performance with NCCL 2.12"): the hop then stays on one
	 * rail, under one leaf of a rail-optimised fabric, which NCCL's
	 * search, blind to the fabric, does not weigh.
	 */
	if (b->p->layout.fabric.tiers && plan_uses_pxn(b->p) && topo_has_nvlink(&b->p->topo) &&
	    l->nic_in >= 0)
		l->nic_out = l->nic_in;
}

unsigned algo_layout_rank(const struct algo_build *b, unsigned node,
			  const struct channel_layout *l, unsigned k)
{
	return algo_rank(b, node, l->order[k]);
}

/* The communicator's GPUs on @node (local indices, in rank order) into
 * @gpus; their count. */
static unsigned comm_gpus_on(const struct plan *p, const struct plan_pattern *pat,
			     unsigned node, unsigned *gpus)
{
	unsigned lo = 0, hi = pat->nranks, n = 0;

	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;

		if (plan_node_of(p, pat->ranks[mid]) < node)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < pat->nranks && plan_node_of(p, pat->ranks[lo]) == node &&
	       n < TOPO_MAX_GPUS; lo++)
		gpus[n++] = pat->ranks[lo] % p->gpus_per_node;
	return n;
}

int algo_conn_via(struct algo_build *b, enum conn_kind kind, unsigned src,
		  unsigned dst, unsigned channel, int nic_src, int nic_dst,
		  double volume, double latency_us, uint32_t *out)
{
	struct plan_pattern *pat = b->pat;
	const struct plan *p = b->p;
	unsigned src_gpus[TOPO_MAX_GPUS], dst_gpus[TOPO_MAX_GPUS];
	struct route_req q = {
		.kind = kind,
		.src_gpu = src % p->gpus_per_node,
		.dst_gpu = dst % p->gpus_per_node,
		.intra = plan_node_of(p, src) == plan_node_of(p, dst),
		.nic_src = nic_src,
		.nic_dst = nic_dst,
		.node_gpus = b->t ? b->t->ppn : p->gpus_per_node,
	};
	const struct plan_route *r;
	struct plan_conn *c;
	uint32_t route;
	double lat;
	int err;

	if (pat->algo == ALGO_P2P && kind == CONN_P2P && !q.intra) {
		q.src_gpus = src_gpus;
		q.nsrc_gpus = comm_gpus_on(p, pat, plan_node_of(p, src), src_gpus);
		q.dst_gpus = dst_gpus;
		q.ndst_gpus = comm_gpus_on(p, pat, plan_node_of(p, dst), dst_gpus);
	}
	route_pick_nics(p, &q, channel);
	q.src_gpus = q.dst_gpus = NULL; /* not kept with the route */
	q.switches = p->topo.fabric.hops;
	if (!q.intra && q.nic_src >= 0 && q.nic_dst >= 0)
		q.switches = fabric_switches(&p->layout.fabric, &p->topo, plan_node_of(p, src),
					     (unsigned)q.nic_src, plan_node_of(p, dst),
					     (unsigned)q.nic_dst);
	err = route_for(b, &q, &route);
	if (err)
		return err;
	if (array_grow((void **)&pat->conns, pat->nconns, &b->cap_conns, sizeof(*c)))
		return -ENOMEM;
	r = &pat->routes[route];
	c = &pat->conns[pat->nconns];
	memset(c, 0, sizeof(*c));
	c->src_rank = src;
	c->dst_rank = dst;
	c->route = route;
	c->pipe = (uint32_t)(pat->npipes - 1);
	c->volume = volume;
	lat = latency_us >= 0 ? latency_us : algo_hop_latency(b, r->hop);
	/* NCCL's per-hop latency is measured software and hardware
	 * together; a path whose links alone take longer takes that. */
	c->latency = lat * 1e-6 > r->latency ? lat * 1e-6 : r->latency;
	*out = (uint32_t)pat->nconns++;
	algo_pipe(b)->nconns++;
	return 0;
}

int algo_dep(struct algo_build *b, uint32_t conn, uint32_t dep)
{
	struct plan_conn *c = &b->pat->conns[conn];

	if (c->ndeps >= PLAN_MAX_DEPS)
		return -E2BIG;
	c->deps[c->ndeps++] = dep;
	return 0;
}

int algo_hop(struct algo_build *b, uint32_t conn)
{
	struct plan_pattern *pat = b->pat;

	if (array_grow((void **)&pat->hops, pat->nhops, &b->cap_hops, sizeof(*pat->hops)))
		return -ENOMEM;
	pat->hops[pat->nhops++] = conn;
	algo_pipe(b)->nhops++;
	return 0;
}

unsigned algo_log2(unsigned n)
{
	unsigned l = 0;

	while (n >= 2) {
		n >>= 1;
		l++;
	}
	return l;
}
