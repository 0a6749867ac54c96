/* SPDX-License-Identifier: MIT */
#include "records.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int records_init(struct records *r, const struct plan *p, const char *backend)
{
	const struct trace *t = p->trace;

	memset(r, 0, sizeof(*r));
	r->backend = backend;
	r->path = p->opts.path;
	r->nodes = p->nodes;
	r->gpus_per_node = p->gpus_per_node;
	r->ncoll = p->ncollectives;
	r->niter = t->niterations;
	r->coll = calloc(r->ncoll ? r->ncoll : 1, sizeof(*r->coll));
	r->iter = calloc(r->niter ? r->niter : 1, sizeof(*r->iter));
	if (!r->coll || !r->iter) {
		records_destroy(r);
		return -ENOMEM;
	}
	for (size_t i = 0; i < r->ncoll; i++) {
		const struct plan_collective *pc = &p->collectives[i];
		const struct plan_pattern *pat = &p->patterns[pc->pattern];
		const struct trace_entry *e = &t->entries[pc->entry];
		struct coll_record *c = &r->coll[i];

		c->entry = pc->entry;
		c->iteration = e->iteration;
		c->op = e->op;
		c->bytes = pc->bytes;
		c->nranks = pat->nranks;
		c->ready_us = e->ready_us;
		c->path = pat->path;
		c->fallback = pat->fallback[0] ? pat->fallback : NULL;
		c->algo = pat->algo;
		c->proto = pat->proto;
		c->nchannels = pc->nchannels;
		c->nccl_estimate_us = pc->nccl_estimate_us;
	}
	for (unsigned i = 0; i < r->niter; i++)
		r->iter[i].iteration = i;
	for (size_t i = 0; i < t->nentries; i++)
		if (t->entries[i].compute_us > r->iter[t->entries[i].iteration].compute_us)
			r->iter[t->entries[i].iteration].compute_us =
				t->entries[i].compute_us;
	return 0;
}

void records_destroy(struct records *r)
{
	free(r->coll);
	free(r->iter);
	memset(r, 0, sizeof(*r));
}

long records_first_corrupted(const struct records *r)
{
	if (!r->data_checked || !r->data_errors)
		return -1;
	for (size_t i = 0; i < r->ncoll; i++)
		if (r->coll[i].data_errors)
			return (long)i;
	return -1;
}
