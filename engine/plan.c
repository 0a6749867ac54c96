/* SPDX-License-Identifier: MIT */
/*
 * plan: the chooser. For each collective of the trace it asks the tuner
 * what NCCL would run, and has that algorithm build the pattern (once per
 * shape); it knows no algorithm itself.
 */
#include "plan.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "algo.h"
#include "gdr_policy.h"
#include "tuner.h"
#include "sort_unsigned.h"

/* Beyond this, alltoall's n^2 connections get too big to plan, unless
 * two nodes stand for all (algo_alltoall_fold), or the backend takes
 * more (plan_options.alltoall_max_ranks). */
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

static const char *const path_names[PLAN_PATH_COUNT] = {
	[PLAN_PATH_STAGED] = "staged",
	[PLAN_PATH_STAGED_MEMCPY] = "staged-memcpy",
	[PLAN_PATH_DIRECT] = "direct",
	[PLAN_PATH_AUTO] = "auto",
};

const char *plan_path_name(enum plan_path p)
{
	return (unsigned)p < PLAN_PATH_COUNT ? path_names[p] : "?";
}

int plan_path_parse(const char *s, enum plan_path *p)
{
	for (unsigned i = 0; i < PLAN_PATH_COUNT; i++)
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
		[PLAN_USED_STAGED_MEMCPY] = "staged-memcpy",
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

void plan_options_set_nccl(struct plan_options *o, const struct nccl_release *r)
{
	plan_options_set_nccl_release(o, r, 0, 0);
}

void plan_options_set_nccl_release(struct plan_options *o, const struct nccl_release *r,
				   unsigned minor, unsigned patch)
{
	o->nccl = nccl_release_index(r);
	o->nccl_minor = minor;
	o->nccl_patch = minor ? patch : 0;
	if (o->gdr_level_set)
		return;
	/* 2.27 moved NCCL_NET_GDR_LEVEL's default from PXB to P2C */
	o->gdr_level = r->default_gdr_level == TOPO_PATH_P2C && minor && minor < 27 ?
			       TOPO_PATH_PXB :
			       r->default_gdr_level;
}

/* The release @o names, as plan_build takes it (p->nccl). */
static const struct nccl_release *options_release(const struct plan_options *o)
{
	return nccl_releases[o->nccl < nccl_release_count ? o->nccl : 0];
}

unsigned plan_options_nccl_minor(const struct plan_options *o)
{
	return o->nccl_minor ? o->nccl_minor : nccl_release_minor(options_release(o));
}

unsigned plan_nccl_minor(const struct plan *p)
{
	return plan_options_nccl_minor(&p->opts);
}

/*
 * P2C came with 2.27 (topo.cc topoPathTypeStr, v2.27.3-1:24; v2.26.2-1:26
 * has none): before, NCCL_NET_GDR_LEVEL=P2C matches none of the level
 * names, is no old-style number either, and ncclGetLevel leaves the
 * default, PXB (paths.cc v2.26.2-1:221-243, 418-420).
 */
bool plan_options_gdr_level_unknown(const struct plan_options *o)
{
	return o->gdr_level == TOPO_PATH_P2C && plan_options_nccl_minor(o) < 27;
}

/*
 * NCCL_ALGO and NCCL_PROTO lists per collective ("allreduce:tree;
 * allgather:ring") came with NCCL 2.24 (tuning.cc parseList). Before, the
 * whole entry is one name, which matches nothing: every algorithm is off
 * and NCCL turns Ring and Tree back on (v2.21.5-1 tuning.cc:289-294), or
 * every protocol off. Not what the list asks: refused for those releases.
 */
static int lists_per_collective(const struct plan *p, const char *opt, const char *spec,
				struct diag *d)
{
	unsigned minor = plan_nccl_minor(p);

	if (!spec || !strpbrk(spec, ":;") || minor >= 24)
		return 0;
	return diag_set(d, -EINVAL, "%s: '%s' is a list per collective, which NCCL reads from 2.24 "
			"on; NCCL 2.%u reads it as one name that matches nothing (tuning.cc "
			"parseList): give a plain list, or --nccl 2.24 or later", opt, spec, minor);
}

const char *plan_set_unread(const char *key, enum plan_path path, bool own_ring)
{
	if (strncmp(key, "staging.", 8))
		return NULL;
	if (!strcmp(key, "staging.chunk"))
		return own_ring ? NULL :
				  "only emu's and real's own ring copies by it; the timing backends copy NCCL's slices";
	if (own_ring || path == PLAN_PATH_STAGED_MEMCPY)
		return NULL;
	return "only the staged-memcpy path (the MPI/UCX way: copies through bounce buffers) reads it, not GPUDirect RDMA or NCCL's own staging";
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


static void pattern_destroy(struct plan_pattern *pat)
{
	free(pat->ranks);
	free(pat->routes);
	free(pat->conns);
	free(pat->pipes);
	free(pat->hops);
	memset(pat, 0, sizeof(*pat));
}

/* What the plan holds while it is built. */
struct build_ctx {
	struct plan *p;
	struct tune_enable enable;
	size_t cap_patterns;
	/* The last group's tuner context (a trace has few groups). */
	struct tune_ctx tc;
	unsigned *tc_ranks;
	unsigned tc_n;
	enum trace_op tc_op;
	bool tc_valid;
	struct channels_cache ch_cache; /* every group's channel search */
};

/* Rank @rank of entry @e (in key @key) lies outside the cluster: say so,
 * and how many nodes the trace's ranks need. */
static int outside_cluster(const struct plan *p, const struct trace_entry *e, const char *key,
			   unsigned rank, struct diag *d)
{
	unsigned need = trace_ranks_named(p->trace);

	need = (need + p->gpus_per_node - 1) / p->gpus_per_node;
	return diag_at(d, -EINVAL, p->trace->file, e->line, 0, key,
		       "rank %u is outside the cluster of %u rank%s (%u node%s x %u GPU%s); "
		       "the trace's ranks need %u nodes (--nodes %u)",
		       rank, p->nranks, p->nranks == 1 ? "" : "s", p->nodes, p->nodes == 1 ? "" : "s",
		       p->gpus_per_node, p->gpus_per_node == 1 ? "" : "s", need, need);
}

static unsigned alltoall_max_ranks(const struct plan *p)
{
	return p->opts.alltoall_max_ranks ? p->opts.alltoall_max_ranks : PLAN_ALLTOALL_MAX_RANKS;
}

/* Why an alltoall's nodes cannot stand for one another
 * (algo_alltoall_fold), and what to do. */
static const char *fold_refusal(const struct plan *p)
{
	if (p->opts.alltoall_every_send)
		return "every send asked for)";
	if (p->layout.fabric.tiers)
		return "the fabric's switches route each pair of nodes its own way); take fewer "
		       "ranks, or the same nodes without the fabric's switches (no leaf, spine, "
		       "core) for a figure without ECMP's collisions";
	if (!p->calls_alone)
		return "other communicators' or streams' calls may run beside it, on nodes two "
		       "would stand for); take fewer ranks, or time it in a trace of its own";
	return "not the same GPUs of every node); take the same GPUs of every node, or fewer "
	       "ranks";
}

/* The entry's ranks, checked against the cluster, sorted. */
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
			return outside_cluster(p, e, "group", e->group[i], d);
		}
	}
	if ((e->root >= 0 && (unsigned)e->root >= p->nranks) ||
	    (e->peer >= 0 && (unsigned)e->peer >= p->nranks)) {
		free(r);
		return outside_cluster(p, e, e->op == TRACE_OP_SENDRECV ? "src/dst" : "root",
				       (unsigned)e->root >= p->nranks ? (unsigned)e->root :
									(unsigned)e->peer,
				       d);
	}
	/* A trace's groups mostly come sorted (every rank of the world in
	 * order, 8192 of them an entry at 1024 x 8): sorting those again was
	 * a fifth of a staged run's instructions. */
	for (unsigned i = 1; i < cnt; i++)
		if (r[i - 1] > r[i]) {
			sort_unsigned(r, cnt);
			break;
		}
	if (e->op == TRACE_OP_ALLTOALL && cnt > alltoall_max_ranks(p) &&
	    !algo_alltoall_fold(p, r, cnt)) {
		free(r);
		return diag_at(d, -EINVAL, p->trace->file, e->line, 0, "op",
			       "alltoall over %u ranks: at most %u are planned peer by peer "
			       "where its nodes cannot stand for one another (%s",
			       cnt, alltoall_max_ranks(p), fold_refusal(p));
	}
	*out = r;
	*n = cnt;
	return 0;
}

static const struct tune_ctx *tuner_for(struct build_ctx *b,
					const struct trace_entry *e,
					const unsigned *ranks, unsigned n)
{
	int src = e->op == TRACE_OP_SENDRECV ? e->root : -1;
	int dst = e->op == TRACE_OP_SENDRECV ? e->peer : -1;

	if (!b->tc_valid || b->tc_op != e->op || b->tc_n != n ||
	    memcmp(b->tc_ranks, ranks, n * sizeof(*ranks))) {
		unsigned *copy = malloc(n * sizeof(*copy));

		if (!copy)
			return NULL;
		memcpy(copy, ranks, n * sizeof(*copy));
		free(b->tc_ranks);
		b->tc_ranks = copy;
		b->tc_n = n;
		b->tc_op = e->op;
		tune_ctx_init(&b->tc, b->p, e->op, ranks, n, &b->ch_cache);
		b->tc_valid = true;
	}
	b->tc.src = src;
	b->tc.dst = dst;
	b->tc.dtype = e->dtype;
	b->tc.redop = e->redop;
	return &b->tc;
}

static bool pattern_matches(const struct plan_pattern *pat,
			    const struct trace_entry *e, const unsigned *ranks,
			    unsigned n, const struct tune_choice *c, int root,
			    int peer)
{
	return pat->op == e->op && pat->algo == c->algo && pat->proto == c->proto &&
	       pat->nranks == n && pat->root == root && pat->peer == peer &&
	       c->nchannels <= pat->nchannels && pat->parts == c->parts &&
	       !memcmp(pat->ranks, ranks, n * sizeof(*ranks));
}

/* Channels to build: as many as any call of this shape can use. */
static unsigned channels_to_build(const struct plan *p, const struct tune_ctx *t,
				  const struct tune_choice *c)
{
	unsigned n = c->algo == ALGO_NVLS || c->algo == ALGO_NVLS_TREE ? t->ch.nvls_channels :
		     c->algo == ALGO_P2P ? c->nchannels : /* the p2p channels */
					   t->ch.comm_channels;

	if (p->opts.ring_only)
		return 1;
	return c->nchannels > n ? c->nchannels : n;
}

/*
 * gdrlab's own ring (plan_options.ring_only): vp_step.c sends a rank's
 * block whole (staged: through its bounce buffers, chunk by chunk) and
 * starts the next step once its block has arrived, with no launch or
 * proxy costs but the links' (which calibrate fits).
 */
static void verbs_ring(const struct plan *p, struct plan_pattern *pat)
{
	pat->base_latency = 0;
	pat->total_cap = INFINITY;
	pat->total_stream_cap = INFINITY;
	for (size_t i = 0; i < pat->npipes; i++) {
		struct plan_pipe *pp = &pat->pipes[i];
		bool staged = false;

		for (size_t k = pp->first_conn; k < pp->first_conn + pp->nconns; k++)
			staged |= pat->routes[pat->conns[k].route].memcpy;
		/* Staged blocks go through the bounce buffers chunk by chunk
		 * (plan_slicing gives them the buffers' count of slots). */
		pp->chunk_bytes = staged ? p->topo.staging.chunk_bytes : UINT64_MAX / 2;
		pp->slices_per_chunk = 1;
		/* Two in flight: a step waits for its input, not for the
		 * credit of the one before. */
		pp->slice_steps = PROTO_STEPS / 2;
		pp->conn_cap = INFINITY;
		pp->stream_cap = INFINITY;
		pp->efficiency = 1;
	}
	for (size_t i = 0; i < pat->nconns; i++)
		pat->conns[i].latency = pat->routes[pat->conns[i].route].latency;
}

static int pattern_build(struct plan *p, struct plan_pattern *pat,
			 const struct tune_ctx *t, const struct trace_entry *e,
			 unsigned *ranks, unsigned n,
			 const struct tune_choice *c, int root, int peer)
{
	struct algo_build b;
	int err;

	memset(pat, 0, sizeof(*pat));
	pat->op = e->op;
	pat->algo = c->algo;
	pat->proto = c->proto;
	pat->nranks = n;
	pat->nnodes = t->nnodes;
	pat->ranks = ranks;
	pat->root = root;
	pat->peer = peer;
	pat->bus_factor = plan_bus_factor(e->op, n);
	pat->total_cap = INFINITY;
	pat->total_stream_cap = INFINITY;
	pat->nchannels = channels_to_build(p, t, c);
	pat->parts = c->parts;
	algo_build_init(&b, p, t, pat, pat->nchannels);
	err = n < 2 ? 0 : algo_table[c->algo]->build(&b);
	err = algo_build_end(&b, err);
	if (!err && p->opts.ring_only)
		verbs_ring(p, pat);
	if (err) {
		pat->ranks = NULL;
		pattern_destroy(pat);
		return err;
	}
	if (b.notes.why[0])
		memcpy(pat->fallback, b.notes.why, sizeof(b.notes.why));
	if (b.notes.shm[0])
		memcpy(pat->shm, b.notes.shm, sizeof(b.notes.shm));
	pat->nfallback = b.notes.staged_sides;
	if (b.notes.direct_sides && b.notes.staged_sides)
		pat->path = PLAN_USED_MIXED;
	else if (b.notes.direct_sides)
		pat->path = PLAN_USED_DIRECT;
	else if (b.notes.staged_sides)
		pat->path = p->opts.path == PLAN_PATH_STAGED_MEMCPY ?
				    PLAN_USED_STAGED_MEMCPY : PLAN_USED_STAGED;
	else
		pat->path = PLAN_USED_NONE;
	return 0;
}

/*
 * What NCCL ran, where the trace says it (its "algo", "proto"): the
 * entry's choice is the tuner's only one, unless --algo or --proto ask
 * for another (a what-if over a recorded run). *@en points at @own then.
 */
static int entry_enable(const struct build_ctx *bc, const struct trace_entry *e,
			struct tune_enable *own, const struct tune_enable **en,
			struct diag *d)
{
	const struct plan *p = bc->p;
	enum algo_id a;
	enum proto_id pr;

	if ((!e->algo[0] && !e->proto[0]) || p->opts.algo || p->opts.proto)
		return 0;
	if (e->algo[0] && algo_parse(e->algo, &a))
		return diag_at(d, -EINVAL, p->trace->file, e->line, 0, "algo",
			       "unknown algorithm '%s' (Tree, Ring, CollnetDirect, CollnetChain, NVLS, NVLSTree, PAT)",
			       e->algo);
	if (e->proto[0] && proto_parse(e->proto, &pr))
		return diag_at(d, -EINVAL, p->trace->file, e->line, 0, "proto",
			       "unknown protocol '%s' (LL, LL128, Simple)", e->proto);
	/* the names are parsed: this op's row takes that one alone */
	tune_enable_default(own);
	for (unsigned i = 0; e->algo[0] && i < ALGO_NCCL_COUNT; i++)
		own->algo[e->op][i] = i == (unsigned)a;
	for (unsigned i = 0; e->proto[0] && i < PROTO_COUNT; i++)
		own->proto[e->op][i] = i == (unsigned)pr;
	*en = own;
	return 0;
}

static int plan_add_entry(struct build_ctx *bc, size_t idx, struct diag *d)
{
	struct plan *p = bc->p;
	const struct trace_entry *e = &p->trace->entries[idx];
	int root = e->op == TRACE_OP_BROADCAST || e->op == TRACE_OP_SENDRECV ?
			   e->root : -1;
	int peer = e->op == TRACE_OP_SENDRECV ? e->peer : -1;
	const struct tune_ctx *t;
	const struct tune_enable *en = &bc->enable;
	struct tune_enable own;
	struct tune_choice c;
	unsigned *ranks = NULL, n = 0;
	size_t k;
	int err;

	err = entry_ranks(p, e, &ranks, &n, d);
	if (err)
		return err;
	t = tuner_for(bc, e, ranks, n);
	if (!t) {
		free(ranks);
		return -ENOMEM;
	}
	err = entry_enable(bc, e, &own, &en, d);
	if (err) {
		free(ranks);
		return err;
	}
	err = tune_choose(t, en, e->bytes, &c, d);
	if (err && en == &own) {
		free(ranks);
		return diag_at(d, err, p->trace->file, e->line, 0, e->algo[0] ? "algo" : "proto",
			       "NCCL ran %s%s%s, which cannot run %s here",
			       e->algo, e->algo[0] && e->proto[0] ? "/" : "", e->proto,
			       trace_op_name(e->op));
	}
	if (err) {
		char why[DIAG_MSG_MAX];

		free(ranks);
		memcpy(why, d->msg, sizeof(why));
		return diag_at(d, err, p->trace->file, e->line, 0, "op", "%s", why);
	}
	for (k = 0; k < p->npatterns; k++)
		if (pattern_matches(&p->patterns[k], e, ranks, n, &c, root, peer))
			break;
	if (k < p->npatterns) {
		free(ranks);
	} else {
		if (p->npatterns == bc->cap_patterns) {
			size_t nc = bc->cap_patterns ? 2 * bc->cap_patterns : 8;
			struct plan_pattern *np = realloc(p->patterns, nc * sizeof(*np));

			if (!np) {
				free(ranks);
				return -ENOMEM;
			}
			p->patterns = np;
			bc->cap_patterns = nc;
		}
		err = pattern_build(p, &p->patterns[k], t, e, ranks, n, &c, root, peer);
		if (err) {
			free(ranks);
			return err;
		}
		p->npatterns++;
	}
	p->collectives[idx].entry = idx;
	p->collectives[idx].pattern = k;
	p->collectives[idx].bytes = e->bytes;
	/* A call uses a prefix of the pattern's channels (a send all the
	 * p2p channels, its parts taking those of their rounds). */
	p->collectives[idx].nchannels = c.nchannels < p->patterns[k].nchannels ?
						c.nchannels : p->patterns[k].nchannels;
	p->collectives[idx].nccl_estimate_us = c.estimate_us;
	return 0;
}

/* Whether no two calls of @t can run at once (plan.calls_alone): one
 * communicator and stream, every send of it in a batch (a send outside
 * one runs on its pair's own stream, records_order.c). */
static bool calls_alone(const struct trace *t)
{
	for (size_t i = 0; i < t->nentries; i++) {
		const struct trace_entry *e = &t->entries[i];

		if (e->comm != t->entries[0].comm || e->stream != t->entries[0].stream ||
		    (e->op == TRACE_OP_SENDRECV && !e->batched))
			return false;
	}
	return true;
}

int plan_build(struct plan *p, const struct topology *topo,
	       const struct trace *trace, const struct plan_options *opts,
	       struct diag *d)
{
	struct build_ctx bc = { .p = p };
	int err;

	memset(p, 0, sizeof(*p));
	p->topo = *topo;
	p->trace = trace;
	p->opts = *opts;
	nccl_release_exact(options_release(opts), opts->nccl_minor, opts->nccl_patch,
			   &p->nccl_exact);
	p->nccl = &p->nccl_exact;
	if (plan_options_gdr_level_unknown(opts))
		p->opts.gdr_level = TOPO_PATH_PXB;
	if (opts->nodes)
		p->topo.nodes = opts->nodes;
	if (opts->chunk_bytes)
		p->topo.staging.chunk_bytes = opts->chunk_bytes;
	if (opts->buffers)
		p->topo.staging.buffers = opts->buffers;
	if (p->topo.nodes < 1 || p->topo.nodes > TOPO_MAX_NODES)
		return diag_set(d, -EINVAL, "--nodes: %u is outside 1..%u",
				p->topo.nodes, TOPO_MAX_NODES);
	{
		char why[160];

		if (!topology_fabric_fits(&p->topo, p->topo.nodes, why, sizeof(why)))
			return diag_set(d, -EINVAL, "--nodes: %u nodes do not fit %s's fabric: hops: %s",
					p->topo.nodes, p->topo.file[0] ? p->topo.file : p->topo.name,
					why);
	}
	if (p->topo.fabric.tiers) {
		char why[200];

		/* The file's own size was checked as it loaded; --nodes may
		 * ask for more than its switches take. */
		if (fabric_check(&p->topo, p->topo.nodes, why, sizeof(why)) != FABRIC_OK)
			return diag_set(d, -EINVAL, "--nodes: %u nodes do not fit %s's fabric: %s",
					p->topo.nodes, p->topo.file[0] ? p->topo.file : p->topo.name,
					why);
	}
	if (opts->nchannels > p->nccl->max_channels)
		return diag_set(d, -EINVAL, "--channels: %u is more than NCCL %s's %u",
				opts->nchannels, p->nccl->version, p->nccl->max_channels);
	tune_enable_default(&bc.enable);
	err = tune_enable_parse(&bc.enable, opts->algo, opts->proto, d);
	if (!err)
		err = lists_per_collective(p, "--algo", opts->algo, d);
	if (!err)
		err = lists_per_collective(p, "--proto", opts->proto, d);
	if (err)
		return err;
	p->nodes = p->topo.nodes;
	p->gpus_per_node = p->topo.ngpus;
	p->nranks = p->nodes * p->gpus_per_node;
	res_layout_init(&p->layout, &p->topo, p->nodes);
	/* a send's channels across nodes, which every send of a GPU asks
	 * for (11% of a 2048-GPU trace's plan when found each time) */
	for (unsigned g = 0; g < p->gpus_per_node; g++)
		p->p2p_net_channels[g] = algo_p2p_net_channels(p->nccl, &p->topo, g);

	p->calls_alone = calls_alone(trace);
	p->ncollectives = trace->nentries;
	p->collectives = calloc(trace->nentries ? trace->nentries : 1,
				sizeof(*p->collectives));
	if (!p->collectives)
		return -ENOMEM;
	for (size_t i = 0; i < trace->nentries; i++) {
		err = plan_add_entry(&bc, i, d);
		if (err) {
			free(bc.tc_ranks);
			plan_destroy(p);
			return err;
		}
	}
	free(bc.tc_ranks);
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
	double *cap = malloc((res_total(&p->layout) ? res_total(&p->layout) : 1) * sizeof(*cap));

	if (cap)
		res_fill_capacities(&p->layout, &p->topo, cap);
	return cap;
}

unsigned plan_conn_fabric(const struct plan *p, const struct plan_pattern *pat,
			  const struct plan_conn *c, uint32_t *ids)
{
	const struct plan_route *r = &pat->routes[c->route];

	if (!r->fabric || r->nic_src < 0 || r->nic_dst < 0)
		return 0;
	return fabric_path(&p->layout.fabric, &p->topo, plan_node_of(p, c->src_rank),
			   (unsigned)r->nic_src, plan_node_of(p, c->dst_rank),
			   (unsigned)r->nic_dst, pat->pipes[c->pipe].channel, ids);
}

int plan_route_wire(const struct plan_route *r)
{
	for (unsigned s = 0; s < r->nstages; s++)
		if (r->stages[s].kind == STAGE_WIRE)
			return (int)s;
	return -1;
}

/*
 * NCCL's network transport without GPUDirect RDMA keeps a FIFO of
 * NCCL_STEPS slots in host memory on each side (v2.8.4-1
 * src/transport/net.cc:85,135). The sender's slot is filled by the GPU
 * and freed only when the proxy's ncclNetTest says the NIC has sent it
 * (net.cc:287-349); the receiver's is offered to the sender (an irecv
 * and its clear-to-send) only once the GPU has read the slot before it
 * out and the proxy has seen its head (net.cc:380-449). So the two
 * FIFOs overlap at the NIC, and each credit takes a proxy poll and a
 * verbs post. v2.30.7-1 is the same in structure (net.cc:1358,
 * 1436-1448, 1531-1533, 1711-1745). With GPUDirect RDMA a side's FIFO
 * is in GPU memory and spans only the NIC's segment.
 */
bool plan_route_proxy_fifos(const struct plan *p, const struct plan_route *r,
			    unsigned *send_last, unsigned *recv_first)
{
	bool wire = false;

	*send_last = 0;
	*recv_first = 0;
	if (r->intra || r->memcpy || p->opts.ring_only)
		return false;
	for (unsigned s = 0; s < r->nstages; s++) {
		if (r->stages[s].kind != STAGE_WIRE)
			continue;
		if (!wire)
			*send_last = r->stages[s].segment;
		*recv_first = r->stages[s].segment;
		wire = true;
	}
	return wire;
}

void plan_pattern_ring(const struct plan_pattern *pat, unsigned *order)
{
	const struct plan_pipe *pp = pat->npipes ? &pat->pipes[0] : NULL;

	if (!pp || pat->nranks < 2 || pat->algo == ALGO_P2P) {
		memcpy(order, pat->ranks, pat->nranks * sizeof(*order));
		return;
	}
	if (pp->shape == PIPE_CHAIN) {
		/* A broadcast chain from the root. */
		order[0] = pat->conns[pp->first_conn].src_rank;
		for (size_t i = 0; i < pp->nconns && i + 1 < pat->nranks; i++)
			order[i + 1] = pat->conns[pp->first_conn + i].dst_rank;
		return;
	}
	for (size_t i = 0; i < pp->nconns && i < pat->nranks; i++)
		order[i] = pat->conns[pp->first_conn + i].src_rank;
}

void plan_pair_sides(const struct plan_pattern *pat, unsigned src,
		     unsigned dst, bool *send_staged, bool *recv_staged,
		     bool *intra)
{
	*send_staged = *recv_staged = *intra = false;
	for (size_t i = 0; i < pat->nconns; i++) {
		const struct plan_conn *c = &pat->conns[i];
		const struct plan_route *r = &pat->routes[c->route];

		if (c->src_rank != src || c->dst_rank != dst)
			continue;
		*intra = r->intra;
		*send_staged = !r->intra && !r->send_direct;
		*recv_staged = !r->intra && !r->recv_direct;
		return;
	}
}
