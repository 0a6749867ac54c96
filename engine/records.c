/* SPDX-License-Identifier: MIT */
#include "records.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char *records_sharing_name(enum records_sharing s)
{
	static const char *const names[] = { "none", "fluid", "simgrid", "serial" };

	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "unknown";
}

const char *records_comm_name(const struct records *r, const struct coll_record *c)
{
	return c->comm < r->ncomms ? r->comms[c->comm].name : "world";
}

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
		c->shm = pat->shm[0] ? pat->shm : NULL;
		c->algo = pat->algo;
		c->proto = pat->proto;
		/* a send/receive: the channels its parts take, not all of
		 * the p2p channels its pattern spans */
		c->nchannels = e->op == TRACE_OP_SENDRECV && pat->parts ? pat->parts :
									  pc->nchannels;
		c->nccl_estimate_us = pc->nccl_estimate_us;
		c->comm = t->ncomms ? e->comm : 0;
		c->stream = e->stream;
		c->src = e->op == TRACE_OP_SENDRECV ? e->root : -1;
		c->dst = e->op == TRACE_OP_SENDRECV ? e->peer : -1;
		c->batched = e->batched;
		c->batch = e->batch;
	}
	r->ncomms = t->ncomms;
	r->comms = t->comms;
	if (records_order(r)) {
		records_destroy(r);
		return -ENOMEM;
	}
	if (records_fabric(r, p)) {
		records_destroy(r);
		return -ENOMEM;
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
	free(r->link_names);
	free(r->pred_first);
	free(r->preds);
	memset(r, 0, sizeof(*r));
}

enum plan_path_used records_path_used(const struct records *r)
{
	enum plan_path_used u = PLAN_USED_NONE;

	for (size_t i = 0; i < r->ncoll; i++) {
		enum plan_path_used c = r->coll[i].path;

		if (c == PLAN_USED_NONE || c == u)
			continue;
		u = u == PLAN_USED_NONE ? c : PLAN_USED_MIXED;
	}
	return u;
}

bool records_never_direct(const struct records *r)
{
	return plan_path_used_never_direct(records_path_used(r));
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
