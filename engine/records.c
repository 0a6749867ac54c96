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

/* The record of @job's iteration @it: the jobs' iterations one job after
 * another, each job's as many as its highest iteration + 1. */
static unsigned iter_at(const struct records *r, unsigned job, unsigned it)
{
	unsigned at = 0;

	while (at < r->niter && r->iter[at].job < job)
		at++;
	return at + it;
}

/* One record per iteration of each job (a trace of one job: its
 * niterations), so that each job keeps its own clock. 0 or -ENOMEM. */
static int init_iterations(struct records *r, const struct trace *t)
{
	unsigned njobs = t->njobs ? t->njobs : 1, *count = calloc(njobs, sizeof(*count));
	unsigned at = 0;

	if (!count)
		return -ENOMEM;
	if (!t->njobs)
		count[0] = t->niterations;
	for (size_t i = 0; i < t->nentries && t->njobs; i++)
		if (t->entries[i].iteration + 1 > count[t->entries[i].job])
			count[t->entries[i].job] = t->entries[i].iteration + 1;
	for (unsigned j = 0; j < njobs; j++)
		r->niter += count[j];
	r->iter = calloc(r->niter ? r->niter : 1, sizeof(*r->iter));
	for (unsigned j = 0; j < njobs && r->iter; j++)
		for (unsigned it = 0; it < count[j]; it++, at++) {
			r->iter[at].job = j;
			r->iter[at].iteration = it;
		}
	free(count);
	return r->iter ? 0 : -ENOMEM;
}

/* Each iteration's calls and its compute: its own job's alone, the
 * longest its lines give (they agree, trace.h), never another job's. */
static void iter_calls(struct records *r, const struct trace *t)
{
	for (size_t i = r->ncoll; i-- > 0;) {
		struct iter_record *ir = &r->iter[r->coll[i].iter_at];

		if (ir->end == ir->first)
			ir->end = i + 1;
		ir->first = i; /* a job's calls of an iteration are in a row */
	}
	for (size_t i = 0; i < t->nentries; i++) {
		const struct trace_entry *e = &t->entries[i];
		struct iter_record *ir = &r->iter[iter_at(r, t->njobs ? e->job : 0, e->iteration)];

		if (e->compute_us > ir->compute_us)
			ir->compute_us = e->compute_us;
	}
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
	r->njobs = t->njobs;
	r->coll = calloc(r->ncoll ? r->ncoll : 1, sizeof(*r->coll));
	if (!r->coll || init_iterations(r, t)) {
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
		c->job = t->njobs ? e->job : 0;
		c->iter_at = iter_at(r, c->job, c->iteration);
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
	iter_calls(r, t);
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
