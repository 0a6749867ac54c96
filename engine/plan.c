/* SPDX-License-Identifier: MIT */
#include "plan.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gdr_policy.h"

/* Beyond this, pairwise alltoall planning (n^2 transfers) gets too big. */
#define PLAN_ALLTOALL_MAX_RANKS 512

static const char *const stage_names[STAGE_KIND_COUNT] = {
	[STAGE_INTRA] = "intra_node",     [STAGE_D2H] = "copy_to_host",
	[STAGE_NIC_READ] = "nic_read",    [STAGE_WIRE] = "wire",
	[STAGE_NIC_WRITE] = "nic_write",  [STAGE_H2D] = "copy_to_gpu",
};

const char *stage_kind_name(enum stage_kind k)
{
	return k < STAGE_KIND_COUNT ? stage_names[k] : "?";
}

static const char *const path_names[] = {
	[PLAN_PATH_STAGED] = "staged",
	[PLAN_PATH_DIRECT] = "direct",
	[PLAN_PATH_AUTO] = "auto",
};

const char *plan_path_name(enum plan_path p)
{
	return path_names[p];
}

int plan_path_parse(const char *s, enum plan_path *p)
{
	for (unsigned i = 0; i < sizeof(path_names) / sizeof(path_names[0]); i++)
		if (strcasecmp(s, path_names[i]) == 0) {
			*p = i;
			return 0;
		}
	return -EINVAL;
}

const char *plan_path_used_name(enum plan_path_used p)
{
	static const char *const names[] = {
		[PLAN_USED_NONE] = "intra_node",
		[PLAN_USED_STAGED] = "staged",
		[PLAN_USED_DIRECT] = "direct",
		[PLAN_USED_MIXED] = "mixed",
	};
	return names[p];
}

void plan_options_default(struct plan_options *o)
{
	memset(o, 0, sizeof(*o));
	o->path = PLAN_PATH_AUTO;
	o->gdr_level = GDR_LEVEL_DEFAULT;
}

/* Builds one pattern; holds what every transfer of it needs. */
struct pattern_ctx {
	const struct plan *p;
	struct plan_pattern *pat;
	size_t cap_transfers;
	unsigned staged_sides, direct_sides;
};

static void stage_begin(struct plan_transfer *t, enum stage_kind kind,
			unsigned segment, double latency)
{
	struct plan_stage *s = &t->stages[t->nstages++];

	memset(s, 0, sizeof(*s));
	s->kind = kind;
	s->segment = segment;
	s->latency = latency;
	s->bandwidth = INFINITY;
	s->private_cap = INFINITY;
	s->first_use = t->nuses;
}

_Static_assert(4 * TOPO_MAX_SWITCH_DEPTH + 14 <= PLAN_MAX_USES,
	       "a transfer through the deepest switch tree must fit its uses");

static void stage_use(const struct plan *p, struct plan_transfer *t,
		      uint32_t res)
{
	struct plan_stage *s = &t->stages[t->nstages - 1];
	double c = res_capacity_of(&p->layout, &p->topo, res);

	if (t->nuses >= PLAN_MAX_USES)
		return;
	t->uses[t->nuses].resource = res;
	t->uses[t->nuses].weight = 1;
	t->nuses++;
	s->nuses++;
	if (c < s->bandwidth)
		s->bandwidth = c;
}

/* Add the resources of a node-relative route to the current stage. */
static void stage_route(const struct plan *p, struct plan_transfer *t,
			unsigned node, const struct route *r)
{
	struct plan_stage *s = &t->stages[t->nstages - 1];

	for (unsigned i = 0; i < r->n; i++)
		stage_use(p, t, node * p->layout.per_node + r->res[i]);
	s->latency += r->latency;
}

static void stage_route_between(const struct plan *p, struct plan_transfer *t,
				unsigned node, struct route_end from,
				struct route_end to, enum res_kind p2p)
{
	struct route r;

	route_build(&p->layout, &p->topo, from, to, p2p, &r);
	stage_route(p, t, node, &r);
}

/*
 * A peer reading (@kind RES_GPU_P2P_READ) or writing (RES_GPU_P2P_WRITE)
 * GPU @gpu's memory through its BAR: the GPU's own cap on that, beyond
 * the links. Copies to and from bounce buffers are the GPU's own copy
 * engines at work, not a peer's access, and never pass here.
 */
static void stage_gpu_peer(const struct plan *p, struct plan_transfer *t,
			   unsigned node, enum res_kind kind, int gpu)
{
	stage_use(p, t, res_id(&p->layout, node, kind, (unsigned)gpu));
}

static void stage_copy_cost(const struct plan *p, struct plan_transfer *t)
{
	struct plan_stage *s = &t->stages[t->nstages - 1];

	s->chunk_overhead = p->topo.staging.chunk_overhead;
	if (p->topo.staging.copy_bw > 0)
		s->private_cap = p->topo.staging.copy_bw;
	if (s->private_cap < s->bandwidth)
		s->bandwidth = s->private_cap;
	if (s->private_cap < t->cap)
		t->cap = s->private_cap;
}

/* Merge the stages' resources into one weighted list for max-min. */
static void transfer_finish(struct plan_transfer *t)
{
	t->nflow_uses = 0;
	for (unsigned u = 0; u < t->nuses; u++) {
		unsigned j;

		for (j = 0; j < t->nflow_uses; j++)
			if (t->flow_uses[j].resource == t->uses[u].resource)
				break;
		if (j == t->nflow_uses)
			t->flow_uses[t->nflow_uses++] = t->uses[u];
		else
			t->flow_uses[j].weight++;
	}
}

static void note_fallback(struct pattern_ctx *c, const char *why)
{
	if (!c->pat->fallback[0])
		snprintf(c->pat->fallback, sizeof(c->pat->fallback), "%s", why);
	c->pat->nfallback++;
}

/* Whether one NIC side of an inter-node hop moves GPU memory directly. */
static bool side_direct(struct pattern_ctx *c, int gpu, int nic)
{
	char why[200];

	if (c->p->opts.path == PLAN_PATH_STAGED) {
		c->staged_sides++;
		return false;
	}
	if (gdr_allowed(&c->p->topo, gpu, nic, c->p->opts.gdr_level, why,
			sizeof(why))) {
		c->direct_sides++;
		return true;
	}
	note_fallback(c, why);
	c->staged_sides++;
	return false;
}

static struct plan_transfer *transfer_new(struct pattern_ctx *c)
{
	struct plan_pattern *pat = c->pat;

	if (pat->ntransfers == c->cap_transfers) {
		size_t n = c->cap_transfers ? 2 * c->cap_transfers : 16;
		struct plan_transfer *nt =
			realloc(pat->transfers, n * sizeof(*nt));

		if (!nt)
			return NULL;
		pat->transfers = nt;
		c->cap_transfers = n;
	}
	return &pat->transfers[pat->ntransfers++];
}

static int add_transfer(struct pattern_ctx *c, unsigned src, unsigned dst,
			double share)
{
	const struct plan *p = c->p;
	const struct topology *topo = &p->topo;
	unsigned G = p->gpus_per_node;
	unsigned ns = src / G, nd = dst / G;
	int gs = src % G, gd = dst % G;
	struct plan_transfer *t = transfer_new(c);
	struct route_end gpu_s = { ROUTE_GPU, gs }, gpu_d = { ROUTE_GPU, gd };

	if (!t)
		return -ENOMEM;
	memset(t, 0, sizeof(*t));
	t->src_rank = src;
	t->dst_rank = dst;
	t->share = share;
	t->cap = INFINITY;

	if (ns == nd) {
		if (topo->gpu_fabric.kind == TOPO_GPU_FABRIC_NVLINK) {
			stage_begin(t, STAGE_INTRA, 0, topo->gpu_fabric.latency);
			stage_use(p, t, res_id(&p->layout, ns, RES_NVLINK_TX, gs));
			stage_use(p, t, res_id(&p->layout, ns, RES_NVLINK_RX, gd));
		} else {
			/* A GPU copies to a peer over PCIe by writing
			 * into its memory. */
			stage_begin(t, STAGE_INTRA, 0, 0);
			stage_route_between(p, t, ns, gpu_s, gpu_d, RES_P2P_WRITE);
			stage_gpu_peer(p, t, ns, RES_GPU_P2P_WRITE, gd);
		}
	} else {
		int na = topo_nearest_nic(topo, gs), nb = topo_nearest_nic(topo, gd);
		struct route_end nic_a = { ROUTE_NIC, na }, nic_b = { ROUTE_NIC, nb };
		struct route_end mem_a = { ROUTE_MEM, topo->nics[na].dev.socket };
		struct route_end mem_b = { ROUTE_MEM, topo->nics[nb].dev.socket };
		bool send_direct = side_direct(c, gs, na);
		bool recv_direct = side_direct(c, gd, nb);
		unsigned seg = 0;

		if (send_direct) {
			stage_begin(t, STAGE_NIC_READ, seg, 0);
			stage_gpu_peer(p, t, ns, RES_GPU_P2P_READ, gs);
			stage_route_between(p, t, ns, gpu_s, nic_a, RES_P2P_READ);
			t->stages[t->nstages - 1].gpu_memory = true;
		} else {
			/* Bounce buffers live in the NIC's NUMA node, as
			 * NCCL allocates its host buffers. */
			stage_begin(t, STAGE_D2H, seg++, 0);
			stage_route_between(p, t, ns, gpu_s, mem_a, RES_P2P_WRITE);
			stage_copy_cost(p, t);
			stage_begin(t, STAGE_NIC_READ, seg, 0);
			stage_route_between(p, t, ns, mem_a, nic_a, RES_P2P_READ);
		}
		stage_begin(t, STAGE_WIRE, seg,
			    topo->nics[na].latency + topo->nics[nb].latency +
				    topo->fabric.hops * topo->fabric.switch_latency);
		stage_use(p, t, res_id(&p->layout, ns, RES_PORT_TX, na));
		stage_use(p, t, res_id(&p->layout, nd, RES_PORT_RX, nb));
		if (recv_direct) {
			stage_begin(t, STAGE_NIC_WRITE, seg, 0);
			stage_route_between(p, t, nd, nic_b, gpu_d, RES_P2P_WRITE);
			stage_gpu_peer(p, t, nd, RES_GPU_P2P_WRITE, gd);
			t->stages[t->nstages - 1].gpu_memory = true;
		} else {
			stage_begin(t, STAGE_NIC_WRITE, seg++, 0);
			stage_route_between(p, t, nd, nic_b, mem_b, RES_P2P_WRITE);
			stage_begin(t, STAGE_H2D, seg, 0);
			stage_route_between(p, t, nd, mem_b, gpu_d, RES_P2P_WRITE);
			stage_copy_cost(p, t);
		}
		t->chunked = !send_direct || !recv_direct;
	}
	transfer_finish(t);
	return 0;
}

static int step_new(struct pattern_ctx *c, enum plan_step_kind kind,
		    unsigned repeat)
{
	struct plan_pattern *pat = c->pat;
	struct plan_step *ns = realloc(pat->steps, (pat->nsteps + 1) * sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	pat->steps = ns;
	ns[pat->nsteps].kind = kind;
	ns[pat->nsteps].repeat = repeat;
	ns[pat->nsteps].first_transfer = pat->ntransfers;
	ns[pat->nsteps].ntransfers = 0;
	pat->nsteps++;
	return 0;
}

static void step_close(struct pattern_ctx *c)
{
	struct plan_step *s = &c->pat->steps[c->pat->nsteps - 1];

	s->ntransfers = c->pat->ntransfers - s->first_transfer;
}

static int cmp_unsigned(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return (x > y) - (x < y);
}

/*
 * Ring order for channel @ch: the group's ranks node by node, each node's
 * GPUs rotated so that each channel enters and leaves a node through a
 * different GPU, and so through a different NIC (NCCL's ring layout).
 */
static void ring_order(const struct plan *p, const unsigned *sorted, unsigned n,
		       unsigned ch, unsigned *out)
{
	unsigned G = p->gpus_per_node, at = 0;

	for (unsigned i = 0; i < n;) {
		unsigned node = sorted[i] / G, j = i, len, rot;

		while (j < n && sorted[j] / G == node)
			j++;
		len = j - i;
		rot = (unsigned)((uint64_t)ch * len / p->nchannels) % len;
		for (unsigned k = 0; k < len; k++)
			out[at++] = sorted[i + (k + rot) % len];
		i = j;
	}
}

/*
 * One step over c rings: PLAN_STEP_PARALLEL sends a 1/(n*c) share from
 * every rank to its successor (a ring step, repeated @repeat times);
 * PLAN_STEP_CHAIN pipelines 1/c of the data from the root along the ring
 * to its last rank (broadcast).
 */
static int pattern_rings(struct pattern_ctx *c, enum plan_step_kind kind,
			 unsigned repeat)
{
	struct plan_pattern *pat = c->pat;
	unsigned n = pat->nranks, nch = c->p->nchannels;
	bool chain = kind == PLAN_STEP_CHAIN;
	unsigned hops = chain ? n - 1 : n;
	double share = chain ? 1.0 / nch : 1.0 / ((double)n * nch);
	unsigned *order;
	int err;

	if (n < 2)
		return 0;
	order = malloc(n * sizeof(*order));
	if (!order)
		return -ENOMEM;
	err = step_new(c, kind, repeat);
	for (unsigned ch = 0; ch < nch && !err; ch++) {
		unsigned start = 0;

		ring_order(c->p, pat->ranks, n, ch, order);
		while (chain && order[start] != (unsigned)pat->root)
			start++;
		for (unsigned i = 0; i < hops && !err; i++)
			err = add_transfer(c, order[(start + i) % n],
					   order[(start + i + 1) % n], share);
	}
	if (!err)
		step_close(c);
	free(order);
	return err;
}

static int pattern_alltoall(struct pattern_ctx *c, struct diag *d,
			    const char *file, unsigned line)
{
	struct plan_pattern *pat = c->pat;
	unsigned n = pat->nranks;
	int err = 0;

	if (n > PLAN_ALLTOALL_MAX_RANKS)
		return diag_at(d, -EINVAL, file, line, 0, "op",
			       "alltoall over %u ranks: at most %u are planned step by step",
			       n, PLAN_ALLTOALL_MAX_RANKS);
	/* Pairwise exchange: in step k every rank sends to rank + k. */
	for (unsigned k = 1; k < n && !err; k++) {
		err = step_new(c, PLAN_STEP_PARALLEL, 1);
		for (unsigned i = 0; i < n && !err; i++)
			err = add_transfer(c, pat->ranks[i], pat->ranks[(i + k) % n],
					   1.0 / n);
		if (!err)
			step_close(c);
	}
	return err;
}

double plan_bus_factor(enum trace_op op, unsigned n)
{
	/* nccl-tests doc/PERFORMANCE.md */
	switch (op) {
	case TRACE_OP_ALLREDUCE:
		return n ? 2.0 * (n - 1) / n : 0;
	case TRACE_OP_REDUCE_SCATTER:
	case TRACE_OP_ALL_GATHER:
	case TRACE_OP_ALLTOALL:
		return n ? (double)(n - 1) / n : 0;
	default:
		return 1;
	}
}

static bool pattern_matches(const struct plan_pattern *pat, enum trace_op op,
			    const unsigned *ranks, unsigned n, int root, int peer)
{
	return pat->op == op && pat->nranks == n && pat->root == root &&
	       pat->peer == peer && !memcmp(pat->ranks, ranks, n * sizeof(*ranks));
}

static void pattern_destroy(struct plan_pattern *pat)
{
	free(pat->ranks);
	free(pat->steps);
	free(pat->transfers);
	memset(pat, 0, sizeof(*pat));
}

static int pattern_build(struct plan *p, struct plan_pattern *pat,
			 const struct trace_entry *e, unsigned *ranks,
			 unsigned n, struct diag *d)
{
	struct pattern_ctx c = { .p = p, .pat = pat };
	int err;

	memset(pat, 0, sizeof(*pat));
	pat->op = e->op;
	pat->nranks = n;
	pat->ranks = ranks;
	pat->root = e->op == TRACE_OP_BROADCAST || e->op == TRACE_OP_SENDRECV ?
			    e->root : -1;
	pat->peer = e->op == TRACE_OP_SENDRECV ? e->peer : -1;
	pat->bus_factor = plan_bus_factor(e->op, n);

	switch (e->op) {
	case TRACE_OP_ALLREDUCE:
		err = pattern_rings(&c, PLAN_STEP_PARALLEL, 2 * (n - 1));
		break;
	case TRACE_OP_REDUCE_SCATTER:
	case TRACE_OP_ALL_GATHER:
		err = pattern_rings(&c, PLAN_STEP_PARALLEL, n - 1);
		break;
	case TRACE_OP_BROADCAST:
		err = pattern_rings(&c, PLAN_STEP_CHAIN, 1);
		break;
	case TRACE_OP_ALLTOALL:
		err = pattern_alltoall(&c, d, p->trace->file, e->line);
		break;
	case TRACE_OP_SENDRECV:
		err = step_new(&c, PLAN_STEP_PARALLEL, 1);
		if (!err)
			err = add_transfer(&c, (unsigned)e->root,
					   (unsigned)e->peer, 1.0);
		if (!err)
			step_close(&c);
		break;
	default:
		err = -EINVAL;
	}
	if (err) {
		pattern_destroy(pat);
		return err;
	}
	if (c.direct_sides && c.staged_sides)
		pat->path = PLAN_USED_MIXED;
	else if (c.direct_sides)
		pat->path = PLAN_USED_DIRECT;
	else if (c.staged_sides)
		pat->path = PLAN_USED_STAGED;
	else
		pat->path = PLAN_USED_NONE;
	return 0;
}

/* The entry's ranks, checked against the cluster, sorted (ring order). */
static int entry_ranks(const struct plan *p, const struct trace_entry *e,
		       unsigned **out, unsigned *n, struct diag *d)
{
	unsigned cnt = e->ngroup ? e->ngroup : p->nranks;
	unsigned *r = malloc(cnt * sizeof(*r));

	if (!r)
		return -ENOMEM;
	for (unsigned i = 0; i < cnt; i++) {
		r[i] = e->ngroup ? e->group[i] : i;
		if (r[i] >= p->nranks) {
			free(r);
			return diag_at(d, -EINVAL, p->trace->file, e->line, 0,
				       "group",
				       "rank %u is outside the cluster of %u ranks (%u nodes x %u GPUs)",
				       e->group[i], p->nranks, p->nodes,
				       p->gpus_per_node);
		}
	}
	if ((e->root >= 0 && (unsigned)e->root >= p->nranks) ||
	    (e->peer >= 0 && (unsigned)e->peer >= p->nranks)) {
		free(r);
		return diag_at(d, -EINVAL, p->trace->file, e->line, 0,
			       e->op == TRACE_OP_SENDRECV ? "src/dst" : "root",
			       "rank %d is outside the cluster of %u ranks",
			       (unsigned)e->root >= p->nranks ? e->root : e->peer,
			       p->nranks);
	}
	qsort(r, cnt, sizeof(*r), cmp_unsigned);
	*out = r;
	*n = cnt;
	return 0;
}

static int plan_add_entry(struct plan *p, size_t idx, size_t *cap_pat,
			  struct diag *d)
{
	const struct trace_entry *e = &p->trace->entries[idx];
	unsigned *ranks = NULL, n = 0;
	int root = e->op == TRACE_OP_BROADCAST || e->op == TRACE_OP_SENDRECV ?
			   e->root : -1;
	int peer = e->op == TRACE_OP_SENDRECV ? e->peer : -1;
	size_t k;
	int err;

	err = entry_ranks(p, e, &ranks, &n, d);
	if (err)
		return err;
	for (k = 0; k < p->npatterns; k++)
		if (pattern_matches(&p->patterns[k], e->op, ranks, n, root, peer))
			break;
	if (k < p->npatterns) {
		free(ranks);
	} else {
		if (p->npatterns == *cap_pat) {
			size_t nc = *cap_pat ? 2 * *cap_pat : 8;
			struct plan_pattern *np =
				realloc(p->patterns, nc * sizeof(*np));

			if (!np) {
				free(ranks);
				return -ENOMEM;
			}
			p->patterns = np;
			*cap_pat = nc;
		}
		err = pattern_build(p, &p->patterns[k], e, ranks, n, d);
		if (err)
			return err; /* pattern_build freed the ranks */
		p->npatterns++;
	}
	p->collectives[idx].entry = idx;
	p->collectives[idx].pattern = k;
	p->collectives[idx].bytes = e->bytes;
	return 0;
}

int plan_build(struct plan *p, const struct topology *topo,
	       const struct trace *trace, const struct plan_options *opts,
	       struct diag *d)
{
	size_t cap_pat = 0;
	int err;

	memset(p, 0, sizeof(*p));
	p->topo = *topo;
	p->trace = trace;
	p->opts = *opts;
	if (opts->nodes)
		p->topo.nodes = opts->nodes;
	if (opts->chunk_bytes)
		p->topo.staging.chunk_bytes = opts->chunk_bytes;
	if (opts->buffers)
		p->topo.staging.buffers = opts->buffers;
	if (p->topo.nodes < 1 || p->topo.nodes > TOPO_MAX_NODES)
		return diag_set(d, -EINVAL, "--nodes: %u is outside 1..%u",
				p->topo.nodes, TOPO_MAX_NODES);
	p->nodes = p->topo.nodes;
	p->gpus_per_node = p->topo.ngpus;
	p->nranks = p->nodes * p->gpus_per_node;
	p->nchannels = p->topo.nnics ? p->topo.nnics : 1;
	res_layout_init(&p->layout, &p->topo, p->nodes);

	p->ncollectives = trace->nentries;
	p->collectives = calloc(trace->nentries ? trace->nentries : 1,
				sizeof(*p->collectives));
	if (!p->collectives)
		return -ENOMEM;
	for (size_t i = 0; i < trace->nentries; i++) {
		err = plan_add_entry(p, i, &cap_pat, d);
		if (err) {
			plan_destroy(p);
			return err;
		}
	}
	return 0;
}

void plan_destroy(struct plan *p)
{
	for (size_t i = 0; i < p->npatterns; i++)
		pattern_destroy(&p->patterns[i]);
	free(p->patterns);
	free(p->collectives);
	memset(p, 0, sizeof(*p));
}

double *plan_capacities(const struct plan *p)
{
	double *cap = malloc((size_t)p->layout.per_node * p->nodes * sizeof(*cap));

	if (cap)
		res_fill_capacities(&p->layout, &p->topo, cap);
	return cap;
}
