/* SPDX-License-Identifier: MIT */
/*
 * The analytic backend: every collective is timed in closed form.
 *
 * The transfers of one algorithm step run at the same time and share links
 * max-min fairly (maxmin.h); each transfer then takes the pipeline time of
 * its stages at its share (pipeline.h). A step ends with its slowest
 * transfer (a chain, as broadcast, adds the hops' latencies instead). The
 * rates depend only on the pattern, not on the bytes, so each pattern is
 * solved once and each size timed once.
 */
#include "analytic.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "maxmin.h"
#include "pipeline.h"

struct pattern_state {
	struct pipeline_share *shares; /* per transfer: what sharing leaves it */
	uint64_t last_bytes;  /* memo: the last size timed */
	struct coll_record last;
};

/*
 * Per segment: the step's transfers each as a flow over only the links of
 * that segment (each link once per use, the segment's private caps).
 */
static int segment_shares(const struct plan_step *st,
			  const struct plan_pattern *pat, const double *cap,
			  size_t nres, struct maxmin_flow *flows,
			  struct maxmin_use *uses, struct pipeline_share *sh)
{
	for (unsigned k = 0; k < PLAN_MAX_STAGES; k++) {
		bool any = false;
		int err;

		for (size_t i = 0; i < st->ntransfers; i++) {
			const struct plan_transfer *t =
				&pat->transfers[st->first_transfer + i];
			struct maxmin_use *u = &uses[i * PLAN_MAX_USES];
			unsigned n = 0;

			flows[i].cap = INFINITY;
			for (unsigned s = 0; s < t->nstages; s++) {
				const struct plan_stage *sg = &t->stages[s];

				if (sg->segment != k)
					continue;
				any = true;
				if (sg->private_cap < flows[i].cap)
					flows[i].cap = sg->private_cap;
				for (unsigned j = 0; j < sg->nuses; j++)
					u[n++] = t->uses[sg->first_use + j];
			}
			flows[i].uses = u;
			flows[i].nuses = n;
		}
		if (!any)
			break;
		err = maxmin_solve(cap, nres, flows, st->ntransfers);
		if (err)
			return err;
		for (size_t i = 0; i < st->ntransfers; i++)
			sh[i].segment_bw[k] = flows[i].rate;
	}
	return 0;
}

static int solve_shares(const struct plan_pattern *pat, const double *cap,
			size_t nres, struct pipeline_share *shares)
{
	size_t nt = pat->ntransfers ? pat->ntransfers : 1;
	struct maxmin_flow *flows;
	struct maxmin_use *uses;
	int err = 0;

	flows = calloc(nt, sizeof(*flows));
	uses = calloc(nt * PLAN_MAX_USES, sizeof(*uses));
	if (!flows || !uses) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t s = 0; s < pat->nsteps && !err; s++) {
		const struct plan_step *st = &pat->steps[s];
		struct pipeline_share *sh = &shares[st->first_transfer];

		for (size_t i = 0; i < st->ntransfers; i++) {
			const struct plan_transfer *t =
				&pat->transfers[st->first_transfer + i];

			flows[i].uses = t->flow_uses;
			flows[i].nuses = t->nflow_uses;
			flows[i].cap = t->cap;
		}
		err = maxmin_solve(cap, nres, flows, st->ntransfers);
		if (err)
			break;
		for (size_t i = 0; i < st->ntransfers; i++)
			sh[i].rate = flows[i].rate;
		err = segment_shares(st, pat, cap, nres, flows, uses, sh);
	}
out:
	free(uses);
	free(flows);
	return err;
}

static double transfer_latency(const struct plan_transfer *t)
{
	double l = 0;

	for (unsigned i = 0; i < t->nstages; i++)
		l += t->stages[i].latency;
	return l;
}

static void time_collective(const struct plan *p, const struct plan_pattern *pat,
			    const struct pipeline_share *shares, uint64_t bytes,
			    struct coll_record *c)
{
	const struct topo_staging *stg = &p->topo.staging;
	double total = 0;

	memset(c->stage_us, 0, sizeof(c->stage_us));
	memset(c->stage_bytes, 0, sizeof(c->stage_bytes));
	c->nspans = 0;
	for (size_t s = 0; s < pat->nsteps; s++) {
		const struct plan_step *st = &pat->steps[s];
		struct pipeline_result res, worst = { 0 };
		const struct plan_transfer *slow = NULL;
		double lat_sum = 0, step_time;

		for (size_t i = 0; i < st->ntransfers; i++) {
			const struct plan_transfer *t =
				&pat->transfers[st->first_transfer + i];
			double tb = (double)bytes * t->share;

			pipeline_time(t, tb, &shares[st->first_transfer + i],
				      stg->chunk_bytes, stg->buffers, &res);
			if (st->kind == PLAN_STEP_CHAIN) {
				double l = transfer_latency(t);

				lat_sum += l;
				res.time -= l;
			}
			if (!slow || res.time > worst.time) {
				slow = t;
				worst = res;
			}
		}
		if (!slow)
			continue;
		step_time = worst.time + lat_sum;
		total += st->repeat * step_time;
		for (unsigned k = 0; k < slow->nstages; k++) {
			enum stage_kind kind = slow->stages[k].kind;

			c->stage_us[kind] += st->repeat * 1e6 *
					     (worst.stage_end[k] - worst.stage_start[k]);
			c->stage_bytes[kind] += st->repeat *
						(uint64_t)llround(bytes * slow->share);
			if (s == 0 && c->nspans < PLAN_MAX_STAGES) {
				struct stage_span *sp = &c->spans[c->nspans++];

				sp->kind = kind;
				sp->start_us = 1e6 * worst.stage_start[k];
				sp->end_us = 1e6 * worst.stage_end[k];
				sp->bytes = (uint64_t)llround(bytes * slow->share);
			}
		}
	}
	c->time_us = total * 1e6;
}

static void copy_timing(struct coll_record *dst, const struct coll_record *src)
{
	dst->time_us = src->time_us;
	memcpy(dst->stage_us, src->stage_us, sizeof(dst->stage_us));
	memcpy(dst->stage_bytes, src->stage_bytes, sizeof(dst->stage_bytes));
	dst->nspans = src->nspans;
	memcpy(dst->spans, src->spans, sizeof(dst->spans));
}

static int analytic_run(const struct plan *p, struct records *rec,
			struct diag *d)
{
	size_t nres = (size_t)p->layout.per_node * p->nodes;
	struct pattern_state *st;
	double *cap;
	int err = -ENOMEM;

	cap = plan_capacities(p);
	st = calloc(p->npatterns ? p->npatterns : 1, sizeof(*st));
	if (!cap || !st)
		goto out;
	for (size_t i = 0; i < p->npatterns; i++) {
		const struct plan_pattern *pat = &p->patterns[i];

		st[i].shares = calloc(pat->ntransfers ? pat->ntransfers : 1,
				      sizeof(*st[i].shares));
		if (!st[i].shares) {
			err = -ENOMEM;
			goto out;
		}
		err = solve_shares(pat, cap, nres, st[i].shares);
		if (err)
			goto out;
		st[i].last_bytes = 0;
	}
	for (size_t i = 0; i < p->ncollectives; i++) {
		const struct plan_collective *pc = &p->collectives[i];
		struct pattern_state *ps = &st[pc->pattern];

		if (ps->last_bytes != pc->bytes) {
			time_collective(p, &p->patterns[pc->pattern], ps->shares,
					pc->bytes, &ps->last);
			ps->last_bytes = pc->bytes;
		}
		copy_timing(&rec->coll[i], &ps->last);
		records_progress(rec, i + 1);
	}
	err = 0;
out:
	if (err)
		diag_set(d, err, "analytic backend: %s",
			 err == -ENOMEM ? "out of memory" : "internal error");
	if (st)
		for (size_t i = 0; i < p->npatterns; i++)
			free(st[i].shares);
	free(st);
	free(cap);
	return err;
}

const struct backend_ops analytic_backend_ops = {
	.size = sizeof(struct backend_ops),
	.name = "analytic",
	.description = "closed form: alpha-beta per stage, pipelined, max-min shared",
	.caps = BACKEND_CAP_SIM_CLOCK | BACKEND_CAP_EXACT,
	.run = analytic_run,
};
