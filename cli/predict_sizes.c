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

unsigned predict_nodes(const struct topology *topo, const struct plan_options *o)
{
	return o->nodes ? o->nodes : topo->nodes;
}

unsigned predict_ranks(const struct topology *topo, const struct plan_options *o)
{
	return predict_nodes(topo, o) * topo->ngpus;
}

/* The trace of the points that have elements; @index[k]: entry k's point. */
static int build_trace(const struct predict_setup *s,
		       const struct predict_point *pts, size_t n,
		       struct trace *t, size_t *index, struct diag *d)
{
	unsigned gpn = s->topo->ngpus, nranks = predict_ranks(s->topo, s->opts);
	size_t k = 0;

	memset(t, 0, sizeof(*t));
	snprintf(t->file, sizeof(t->file), "%s", s->name);
	if (s->op == TRACE_OP_SENDRECV && nranks < 2)
		return diag_set(d, -EINVAL, "%s: sendrecv needs 2 ranks, the cluster has 1 (give --nodes)",
				s->name);
	t->entries = calloc(n ? n : 1, sizeof(*t->entries));
	if (!t->entries)
		return diag_set(d, -ENOMEM, "%s: out of memory", s->name);
	for (size_t i = 0; i < n; i++) {
		struct trace_entry *e = &t->entries[k];

		if (!pts[i].size)
			continue;
		e->line = pts[i].line;
		e->iteration = (unsigned)k;
		e->op = s->op;
		e->dtype = s->dtype;
		e->bytes = pts[i].size;
		e->compute_us = -1;
		e->root = -1;
		e->peer = -1;
		if (s->op == TRACE_OP_BROADCAST)
			e->root = s->root >= 0 ? s->root : 0;
		if (s->op == TRACE_OP_SENDRECV) {
			/* the pair between node 0 and node 1 (see the header) */
			e->root = nranks > gpn ? (int)gpn - 1 : 0;
			e->peer = nranks > gpn ? (int)gpn : 1;
		}
		index[k++] = i;
	}
	t->nentries = k;
	t->niterations = (unsigned)k;
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
	index = calloc(n ? n : 1, sizeof(*index));
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

		p->rec = *c;
		p->rec.fallback = NULL;
	}
	if (s->graphs)
		tune_world_graphs(&plan, s->graphs);
	records_destroy(&rec);
	plan_destroy(&plan);
out_trace:
	trace_destroy(&trace);
out_index:
	free(index);
	return err;
}
