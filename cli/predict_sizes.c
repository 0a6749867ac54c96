/* SPDX-License-Identifier: MIT */
/*
 * One collective at many sizes: a trace of one entry per size, each in an
 * iteration of its own so that nothing overlaps it, run through the
 * backend's whole pipeline as `gdrlab run` would run it.
 */
#include "predict_sizes.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tuner.h"

const struct backend_ops *predict_backend(const char *cmd, const char *name,
					  const char *measures)
{
	const struct backend_ops *b = cli_find_backend(cmd, "--backend", name);

	if (b && !(b->caps & BACKEND_CAP_SIM_CLOCK)) {
		cli_usage_error(cmd, "--backend: '%s' measures, it does not predict%s (analytic or model)",
				name, measures);
		return NULL;
	}
	return b;
}

void predict_nccl_name(const struct plan_options *o, char *buf, size_t len)
{
	const char *table = nccl_releases[o->nccl]->version;

	if (o->nccl_minor && o->nccl_patch == NCCL_PATCH_LAST)
		snprintf(buf, len, "2.%u (%s's tables)", o->nccl_minor, table);
	else if (o->nccl_minor)
		snprintf(buf, len, "2.%u.%u (%s's tables)", o->nccl_minor, o->nccl_patch, table);
	else
		snprintf(buf, len, "%s", table);
}

unsigned predict_nodes(const struct topology *topo, const struct plan_options *o)
{
	return o->nodes ? o->nodes : topo->nodes;
}

unsigned predict_ranks(const struct topology *topo, const struct plan_options *o,
		       const struct node_gpus *gpus)
{
	return predict_nodes(topo, o) * node_gpus_count(gpus, topo);
}

unsigned node_gpus_count(const struct node_gpus *g, const struct topology *topo)
{
	return g && g->n ? g->n : topo->ngpus;
}

/* A GPU index at *@p, moving it past the digits. */
static bool gpu_number(const char **p, unsigned *v)
{
	char *end;
	unsigned long x;

	if (**p < '0' || **p > '9')
		return false;
	errno = 0;
	x = strtoul(*p, &end, 10);
	if (errno || x >= TOPO_MAX_GPUS)
		return false;
	*v = (unsigned)x;
	*p = end;
	return true;
}

int node_gpus_parse(const char *opt, const char *s, const struct topology *topo,
		    struct node_gpus *out, struct diag *d)
{
	bool seen[TOPO_MAX_GPUS] = { false };
	const char *p = s;

	memset(out, 0, sizeof(*out));
	for (;;) {
		unsigned lo, hi;

		if (!gpu_number(&p, &lo))
			break;
		hi = lo;
		if (*p == '-' && (p++, !gpu_number(&p, &hi)))
			break;
		if (hi < lo)
			break;
		if (hi >= topo->ngpus)
			return diag_set(d, -EINVAL, "%s: GPU %u, but %s has %u GPUs a node (0-%u), got '%s'",
					opt, hi, topo->name, topo->ngpus, topo->ngpus - 1, s);
		for (unsigned v = lo; v <= hi; v++) {
			if (seen[v])
				return diag_set(d, -EINVAL, "%s: GPU %u twice, got '%s'", opt, v, s);
			seen[v] = true;
		}
		if (!*p) {
			for (unsigned v = 0; v < topo->ngpus; v++)
				if (seen[v])
					out->idx[out->n++] = v;
			return 0;
		}
		if (*p++ != ',')
			break;
	}
	return diag_set(d, -EINVAL, "%s: expected a node's GPUs as indices and ranges (3, 0-3, 0,2,4-7), got '%s'",
			opt, s);
}

int node_gpus_option(const char *cmd, const char *s, const struct topology *topo,
		     struct node_gpus *out)
{
	struct diag d = { "" };

	if (!s || !node_gpus_parse("--gpus", s, topo, out, &d))
		return 0;
	cli_usage_error(cmd, "%s", d.msg);
	return EXIT_USAGE;
}

void node_gpus_describe(const struct node_gpus *g, const struct topology *topo, char *buf,
			size_t len)
{
	int at;

	if (!g || !g->n) {
		snprintf(buf, len, "%u GPU%s", topo->ngpus, topo->ngpus == 1 ? "" : "s");
		return;
	}
	at = snprintf(buf, len, "%u of %u GPUs (", g->n, topo->ngpus);
	/* runs of consecutive GPUs as ranges, as node_gpus_parse reads them */
	for (unsigned i = 0; i < g->n && at > 0 && (size_t)at < len;) {
		unsigned j = i;

		while (j + 1 < g->n && g->idx[j + 1] == g->idx[j] + 1)
			j++;
		at += snprintf(buf + at, len - (size_t)at, j > i ? "%s%u-%u" : "%s%u",
			       i ? "," : "", g->idx[i], g->idx[j]);
		i = j + 1;
	}
	if (at > 0 && (size_t)at < len)
		snprintf(buf + at, len - (size_t)at, ")");
}

json_t *node_gpus_json(const struct node_gpus *g, const struct topology *topo)
{
	json_t *a = json_array();

	for (unsigned k = 0; a && k < node_gpus_count(g, topo); k++)
		json_array_append_new(a, json_integer(g && g->n ? g->idx[k] : k));
	return a;
}

/* The @x-th rank of the run (nccl-tests' rank @x): its node's GPUs in
 * order, node after node. */
static unsigned run_rank(const struct predict_setup *s, unsigned x)
{
	unsigned per = node_gpus_count(s->gpus, s->topo), k = x % per;

	return x / per * s->topo->ngpus + (s->gpus && s->gpus->n ? s->gpus->idx[k] : k);
}

/*
 * @e on s->gpus of every node, a communicator of its own ("gpus"), or on
 * every rank. The ranks a node, in order: its GPUs' global ranks.
 */
static int place(const struct predict_setup *s, struct trace *t, struct trace_entry *e,
		 struct diag *d)
{
	unsigned nodes = predict_nodes(s->topo, s->opts);
	unsigned per = node_gpus_count(s->gpus, s->topo);

	if (!s->gpus || !s->gpus->n)
		return 0;
	e->group = calloc((size_t)nodes * per, sizeof(*e->group));
	if (!e->group)
		return diag_set(d, -ENOMEM, "%s: out of memory", s->name);
	e->ngroup = nodes * per;
	for (unsigned x = 0; x < nodes * per; x++)
		e->group[x] = run_rank(s, x);
	if (e->op == TRACE_OP_BROADCAST)
		e->root = (int)e->group[0];
	return trace_comm_assign(t, e, "gpus", 0, d);
}

/*
 * nccl-tests' sendrecv_perf: every rank sends to the next and receives
 * from the one before, in one group (sendrecv.cu SendRecvRunColl), all
 * ranks at once. A rank's next call waits for its receive, so the ring
 * goes at its slowest pair's pace, which the average of the ranks' times
 * reports: the sends from the first two nodes, one batch (the whole ring
 * of one or two nodes; of more, whose nodes are alike, each kind of pair:
 * inside a node and across). Their count a size.
 */
static unsigned ring_sends(const struct predict_setup *s)
{
	unsigned nodes = predict_nodes(s->topo, s->opts);

	return (nodes > 2 ? 2 : nodes) * node_gpus_count(s->gpus, s->topo);
}

/* Entries a size of @s makes. */
static unsigned entries_a_size(const struct predict_setup *s)
{
	return s->op == TRACE_OP_SENDRECV ? ring_sends(s) : 1;
}

/* Send @j of a size's (ring_sends), or its one call: @e of point @pt in
 * iteration @it. */
static void fill_entry(const struct predict_setup *s, const struct predict_point *pt,
		       size_t it, unsigned j, unsigned nranks, struct trace_entry *e)
{
	e->line = pt->line;
	e->iteration = (unsigned)it;
	e->op = s->op;
	e->dtype = s->dtype;
	e->redop = s->redop;
	e->bytes = pt->size;
	e->compute_us = -1;
	e->root = -1;
	e->peer = -1;
	if (s->op == TRACE_OP_BROADCAST)
		e->root = s->root >= 0 ? s->root : 0;
	if (s->op == TRACE_OP_SENDRECV) {
		/* rank j to rank j + 1, the size's batch */
		e->root = (int)run_rank(s, j);
		e->peer = (int)run_rank(s, (j + 1) % nranks);
		e->batched = true;
		e->batch = (unsigned)it;
	}
}

/* The trace of the points that have elements; @index[k]: entry k's
 * point, entries_a_size of them a point. */
static int build_trace(const struct predict_setup *s,
		       const struct predict_point *pts, size_t n,
		       struct trace *t, size_t *index, struct diag *d)
{
	unsigned nranks = predict_ranks(s->topo, s->opts, s->gpus), m = entries_a_size(s);
	size_t k = 0, it = 0;
	int err;

	memset(t, 0, sizeof(*t));
	snprintf(t->file, sizeof(t->file), "%s", s->name);
	if (s->op == TRACE_OP_SENDRECV && nranks < 2)
		return diag_set(d, -EINVAL, "%s: sendrecv needs 2 ranks, the cluster has 1 (give --nodes)",
				s->name);
	t->entries = calloc(n ? n * m : 1, sizeof(*t->entries));
	if (!t->entries)
		return diag_set(d, -ENOMEM, "%s: out of memory", s->name);
	for (size_t i = 0; i < n; i++) {
		if (!pts[i].size)
			continue;
		for (unsigned j = 0; j < m; j++) {
			fill_entry(s, &pts[i], it, j, nranks, &t->entries[k]);
			t->nentries = k + 1; /* trace_comm_assign, trace_destroy see it */
			err = place(s, t, &t->entries[k], d);
			if (err) {
				trace_destroy(t);
				return err;
			}
			index[k++] = i;
		}
		it++;
	}
	t->nentries = k;
	t->niterations = (unsigned)it;
	return 0;
}

int predict_sizes(const struct predict_setup *s, struct predict_point *pts,
		  size_t n, struct diag *d)
{
	struct trace trace;
	struct plan plan;
	struct records rec;
	size_t *index;
	int err;

	for (size_t i = 0; i < n; i++) {
		memset(&pts[i].rec, 0, sizeof(pts[i].rec));
		pts[i].rec.nccl_estimate_us = NAN;
	}
	if (s->graphs)
		memset(s->graphs, 0, sizeof(*s->graphs));
	index = calloc(n ? n * entries_a_size(s) : 1, sizeof(*index));
	if (!index)
		return diag_set(d, -ENOMEM, "%s: out of memory", s->name);
	err = build_trace(s, pts, n, &trace, index, d);
	if (err)
		goto out_index;
	if (!trace.nentries)
		goto out_trace; /* nothing but empty rows */
	err = backend_execute(s->backend, s->topo, &trace, s->opts, s->hooks,
			      &plan, &rec, d);
	if (err)
		goto out_trace;
	for (size_t i = 0; i < rec.ncoll; i++) {
		const struct coll_record *c = &rec.coll[i];
		struct predict_point *p = &pts[index[c->entry]];

		/* a size's sends (ring_sends): the slowest stands for it */
		if (p->rec.bytes && c->time_us <= p->rec.time_us)
			continue;
		p->rec = *c;
		p->rec.fallback = NULL;
		snprintf(p->fallback, sizeof(p->fallback), "%s", c->fallback ? c->fallback : "");
	}
	if (s->graphs && trace.entries[0].ngroup)
		tune_group_graphs(&plan, trace.entries[0].group, trace.entries[0].ngroup,
				  s->graphs);
	else if (s->graphs)
		tune_world_graphs(&plan, s->graphs);
	records_destroy(&rec);
	plan_destroy(&plan);
out_trace:
	trace_destroy(&trace);
out_index:
	free(index);
	return err;
}
