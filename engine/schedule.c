/* SPDX-License-Identifier: MIT */
/*
 * schedule: collectives on the timeline of each iteration.
 *
 * A call starts once its bucket is ready and the calls it waits for
 * have ended (records_order: those before it on its communicator and
 * stream that share a rank with it, a batch's sends one by one); the
 * sends of one batch start together, once all their buffers are ready
 * and what the batch waits for has ended. Calls that wait for none of
 * each other run at once. While one collective runs alone it takes its time
 * alone, to the bit; while several run, each moves at the speed the
 * shared links leave it (overlap.h), recomputed whenever one starts or
 * ends: an event-driven fluid schedule. Only a call's stream, the busy
 * time of its busiest stage, is slowed; the rest of its time alone
 * (launch, latencies, the pipeline's fill and drain) follows it unslowed
 * and loads no link (call_stream_us).
 */
#include "records.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "overlap.h"

static double max2(double a, double b)
{
	return a > b ? a : b;
}

/* What the placement keeps. */
struct sched {
	struct records *r;
	struct overlap *ov;    /* NULL: collectives never slow each other */
	bool serial;           /* the trace's order, one call at a time */
	/* Per call; a batch's counts and times on its first send (its lead). */
	size_t *succ_first, *succ; /* the calls waiting for it (records.preds inverted) */
	size_t *waits;         /* calls it still waits for */
	double *after;         /* when it may start: its buffers all ready (a
				* batch's) and the last of those ended */
	size_t *pending;       /* leads waiting for nothing but their time */
	size_t npending;
	size_t *live;          /* collectives running now */
	double *left;          /* per live slot: microseconds of its stream alone left */
	double *stream;        /* per live slot: its stream's time alone */
	double *tail;          /* per live slot: microseconds of the rest of its
				* time alone, after its stream, unslowed */
	double *speed;         /* per live slot */
	double *alone;         /* per live slot: its stream's time alone, 0 once
				* past it (for overlap) */
	bool *slowed;          /* per live slot: ever ran below speed 1 */
	size_t nlive;
	/* Per iteration record: its calls not yet ended, the last end. */
	size_t *calls_left;
	double *last_end;
};

/* The calls waiting for @i: the records' order inverted, or in serial
 * the next call of the trace. */
static int invert_preds(struct sched *s)
{
	const struct records *r = s->r;
	size_t n = r->ncoll;

	for (size_t i = 0; i <= n; i++)
		s->succ_first[i] = 0;
	for (size_t i = 0; i < n && !s->serial; i++)
		for (size_t k = r->pred_first[i]; k < r->pred_first[i + 1]; k++)
			s->succ_first[r->preds[k] + 1]++;
	for (size_t i = 0; i < n; i++)
		s->succ_first[i + 1] += s->succ_first[i];
	s->succ = malloc((s->succ_first[n] ? s->succ_first[n] : 1) * sizeof(*s->succ));
	if (!s->succ)
		return -ENOMEM;
	for (size_t i = 0; i < n && !s->serial; i++)
		for (size_t k = r->pred_first[i]; k < r->pred_first[i + 1]; k++)
			s->succ[s->succ_first[r->preds[k]]++] = i;
	for (size_t i = n; i > 0; i--) /* back to each call's first */
		s->succ_first[i] = s->succ_first[i - 1];
	s->succ_first[0] = 0;
	return 0;
}

static int sched_init(struct sched *s, struct records *r, struct overlap *ov, bool serial)
{
	size_t n = r->ncoll ? r->ncoll : 1;

	memset(s, 0, sizeof(*s));
	s->r = r;
	s->ov = ov;
	s->serial = serial || !r->pred_first;
	s->succ_first = malloc((n + 1) * sizeof(*s->succ_first));
	s->waits = malloc(n * sizeof(*s->waits));
	s->after = malloc(n * sizeof(*s->after));
	s->pending = malloc(n * sizeof(*s->pending));
	s->live = malloc(n * sizeof(*s->live));
	s->left = malloc(n * sizeof(*s->left));
	s->stream = malloc(n * sizeof(*s->stream));
	s->tail = malloc(n * sizeof(*s->tail));
	s->speed = malloc(n * sizeof(*s->speed));
	s->alone = malloc(n * sizeof(*s->alone));
	s->slowed = malloc(n * sizeof(*s->slowed));
	s->calls_left = malloc((r->niter ? r->niter : 1) * sizeof(*s->calls_left));
	s->last_end = malloc((r->niter ? r->niter : 1) * sizeof(*s->last_end));
	if (!s->succ_first || !s->waits || !s->after || !s->pending || !s->live || !s->left ||
	    !s->stream || !s->tail || !s->speed || !s->alone || !s->slowed || !s->calls_left ||
	    !s->last_end)
		return -ENOMEM;
	return invert_preds(s);
}

static void sched_destroy(struct sched *s)
{
	free(s->succ_first);
	free(s->succ);
	free(s->waits);
	free(s->after);
	free(s->pending);
	free(s->live);
	free(s->left);
	free(s->stream);
	free(s->tail);
	free(s->speed);
	free(s->alone);
	free(s->slowed);
	free(s->calls_left);
	free(s->last_end);
}

/*
 * The part of call @i's time alone that moves its bytes at its pace,
 * into @us: the busy time of its busiest stage, which both timing
 * backends record (the bottleneck connection's slices through its
 * slowest segment), no less than its bytes take on its busiest link, at
 * most its time alone; all of it where no stage was recorded. The rest,
 * the launch, the hops' latencies and the pipeline's fill and drain,
 * does not stretch when a link is shared. Until 2026-12-06 the whole
 * time alone was the flow, which spread a call's load over its
 * latencies: two staged 1 MiB sends each way between GPU 0 of
 * a100-pcie4-200g's 2 nodes, each putting 1 MiB on each node's PCIe
 * switch uplink each way, looked to take 12.0 of its 25.2 GB/s each and
 * kept their 87.35 us alone, where they take 126.4 (docs/model.md §6,
 * Communicators at once; tests/unit/test_conformance.c:
 * staged_sends_each_way_share_the_switch_uplinks).
 */
static int call_stream_us(const struct sched *s, size_t i, double *us)
{
	const struct coll_record *c = &s->r->coll[i];
	double busy = 0, links = 0;
	int err = s->ov ? overlap_link_us(s->ov, i, &links) : 0;

	for (unsigned k = 0; k < STAGE_KIND_COUNT; k++)
		busy = max2(busy, c->stage_us[k]);
	busy = max2(busy, links);
	*us = busy > 0 && busy < c->alone_us ? busy : c->alone_us;
	return err;
}

static int respeed(struct sched *s)
{
	for (size_t k = 0; k < s->nlive; k++)
		s->speed[k] = 1;
	if (s->nlive < 2 || !s->ov)
		return 0;
	/* a call past its stream loads nothing (overlap_speeds: no time) */
	for (size_t k = 0; k < s->nlive; k++)
		s->alone[k] = s->left[k] > 0 ? s->stream[k] : 0;
	return overlap_speeds(s->ov, s->live, s->alone, s->nlive, s->speed);
}

/* The send of @i's batch after @i, or SIZE_MAX (a call alone, the
 * batch's last; every call in serial). */
static size_t batch_next(const struct sched *s, size_t i)
{
	return s->serial ? SIZE_MAX : s->r->coll[i].next_in_batch;
}

/* Call @i has ended at @end: what waited for it may go. */
static void release(struct sched *s, size_t i, double end)
{
	size_t from = s->succ_first[i], to = s->succ_first[i + 1];

	if (s->serial) { /* the next call of its iteration, if any */
		from = 0;
		to = i + 1 < s->r->iter[s->r->coll[i].iter_at].end ? 1 : 0;
	}
	for (size_t k = from; k < to; k++) {
		size_t w = s->serial ? i + 1 : s->succ[k];

		s->after[w] = max2(s->after[w], end);
		if (--s->waits[w] == 0)
			s->pending[s->npending++] = w;
	}
}

/* Whether iteration record @k is followed by its own job's next one. */
static bool job_goes_on(const struct records *r, unsigned k)
{
	return k + 1 < r->niter && r->iter[k + 1].job == r->iter[k].job;
}

/*
 * Iteration @k starts at @start: its calls may go from their ready
 * times. One without calls ends at once with its compute, and its job's
 * next starts then. Each job's iterations follow one another on its own
 * clock: another job's long iteration holds none of them back.
 */
static void start_iteration(struct sched *s, unsigned k, double start)
{
	struct records *r = s->r;

	for (;;) {
		struct iter_record *ir = &r->iter[k];

		ir->start_us = start;
		s->last_end[k] = start;
		s->calls_left[k] = ir->end - ir->first;
		for (size_t i = ir->first; i < ir->end; i++) {
			/* a batch's first send carries the batch's (its others none) */
			s->after[i] = start + (s->serial || r->coll[i].joins_batch ?
						       r->coll[i].ready_us : records_batch_ready(r, i));
			s->waits[i] = s->serial ? i > ir->first :
						  r->pred_first[i + 1] - r->pred_first[i];
			if ((s->serial || !r->coll[i].joins_batch) && !s->waits[i])
				s->pending[s->npending++] = i;
		}
		if (s->calls_left[k])
			return;
		ir->end_us = start + ir->compute_us;
		if (!job_goes_on(r, k))
			return;
		start = ir->end_us;
		k++;
	}
}

/* Call @i has ended: its iteration ends with its last call and its
 * compute, and its job's next iteration starts then. */
static void call_ended(struct sched *s, size_t i)
{
	struct records *r = s->r;
	unsigned k = r->coll[i].iter_at;
	struct iter_record *ir = &r->iter[k];

	release(s, i, r->coll[i].end_us);
	s->last_end[k] = max2(s->last_end[k], r->coll[i].end_us);
	if (--s->calls_left[k])
		return;
	ir->end_us = max2(ir->start_us + ir->compute_us, s->last_end[k]);
	if (job_goes_on(r, k))
		start_iteration(s, k + 1, ir->end_us);
}

/* Every call, each job's iterations from 0 on its own clock. */
static int place_all(struct sched *s)
{
	struct records *r = s->r;
	double now = 0;
	size_t done = 0;
	int err = 0;

	s->npending = 0;
	for (unsigned k = 0; k < r->niter; k++)
		if (!k || !job_goes_on(r, k - 1))
			start_iteration(s, k, 0);
	while (done < r->ncoll && !err) {
		double t = INFINITY;
		bool changed = false;

		for (size_t k = 0; k < s->npending; k++)
			t = fmin(t, s->after[s->pending[k]]);
		/* a stream's end frees its links: the others speed up then */
		for (size_t k = 0; k < s->nlive; k++)
			t = fmin(t, now + (s->left[k] > 0 ? s->left[k] / s->speed[k] : s->tail[k]));
		/* Nothing to start or end with calls left: a wait that never
		 * ends (records_order's waits go to earlier calls of the
		 * iteration, so none should), said, not spun on. */
		if (isinf(t))
			return -EDEADLK;
		/* Ends first: what waits for a call may start when it ends. */
		for (size_t k = 0; k < s->nlive;) {
			size_t i = s->live[k];
			struct coll_record *c = &r->coll[i];
			double streamed = now + s->left[k] / s->speed[k];
			double end = streamed + s->tail[k];

			if (s->speed[k] < 1)
				s->slowed[k] = true;
			if (end > t) {
				if (streamed > t) {
					s->left[k] -= (t - now) * s->speed[k];
				} else {
					changed |= s->left[k] > 0;
					s->left[k] = 0;
					s->tail[k] = end - t;
				}
				k++;
				continue;
			}
			/* Never slowed: its own time to the bit, not a sum of steps. */
			if (s->slowed[k] || s->speed[k] < 1) {
				c->end_us = end;
				c->time_us = end - c->start_us;
			} else {
				c->end_us = c->start_us + c->alone_us;
				c->time_us = c->alone_us;
			}
			done++;
			changed = true;
			s->nlive--;
			s->live[k] = s->live[s->nlive];
			s->left[k] = s->left[s->nlive];
			s->stream[k] = s->stream[s->nlive];
			s->tail[k] = s->tail[s->nlive];
			s->speed[k] = s->speed[s->nlive];
			s->slowed[k] = s->slowed[s->nlive];
			call_ended(s, i);
		}
		now = t;
		for (size_t k = 0; k < s->npending;) {
			size_t lead = s->pending[k];
			double start = s->after[lead];

			if (start > now) {
				k++;
				continue;
			}
			for (size_t i = lead; i != SIZE_MAX; i = batch_next(s, i)) {
				r->coll[i].start_us = start;
				s->live[s->nlive] = i;
				err = err ? err : call_stream_us(s, i, &s->stream[s->nlive]);
				s->left[s->nlive] = s->stream[s->nlive];
				s->tail[s->nlive] = r->coll[i].alone_us - s->stream[s->nlive];
				s->speed[s->nlive] = 1;
				s->slowed[s->nlive] = false;
				s->nlive++;
			}
			s->pending[k] = s->pending[--s->npending];
			changed = true;
		}
		if (changed && !err)
			err = respeed(s);
		for (size_t k = 0; k < s->nlive; k++)
			if (s->speed[k] < 1)
				r->overlapped = true;
	}
	return err;
}

static int place_collectives(struct records *r, struct overlap *ov, bool serial)
{
	struct sched s;
	int err = sched_init(&s, r, ov, serial);

	if (!err)
		err = place_all(&s);
	sched_destroy(&s);
	return err;
}

/* A collective's span on the run's clock, and its iteration's record
 * (records.iter: one a job and iteration in a run of jobs). */
struct span {
	unsigned iteration;
	double start, end;
};

static int by_iteration_start(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->iteration != y->iteration)
		return x->iteration < y->iteration ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * Each iteration's busy_us: how long some collective was in flight, the
 * union of their spans. Where communicators run at once the sum of
 * durations (comm_us) counts the same microseconds once per call and
 * can exceed the iteration; this never does.
 */
static int iteration_busy(struct records *r)
{
	struct span *s = malloc((r->ncoll ? r->ncoll : 1) * sizeof(*s));
	size_t n = 0;

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < r->ncoll; i++)
		if (r->coll[i].end_us > r->coll[i].start_us)
			s[n++] = (struct span){ (unsigned)r->coll[i].iter_at, r->coll[i].start_us,
						r->coll[i].end_us };
	qsort(s, n, sizeof(*s), by_iteration_start);
	for (unsigned it = 0; it < r->niter; it++)
		r->iter[it].busy_us = 0;
	for (size_t i = 0; i < n;) {
		struct iter_record *ir = &r->iter[s[i].iteration];
		double start = s[i].start, end = s[i].end;

		/* merge the spans that overlap this one, in start order */
		for (i++; i < n && s[i].iteration == s[i - 1].iteration && s[i].start <= end; i++)
			end = max2(end, s[i].end);
		ir->busy_us += end - start;
	}
	free(s);
	return 0;
}

int records_schedule(struct records *r, const struct plan *p)
{
	double total_iter = 0, total_comm = 0, total_exposed = 0, total_busy = 0;
	struct overlap ov;
	bool with_ov = false;
	int err = 0;

	/* A backend that placed the collectives itself kept their times
	 * alone where it knew them. */
	for (size_t i = 0; i < r->ncoll; i++)
		if (!r->scheduled || !(r->coll[i].alone_us > 0))
			r->coll[i].alone_us = r->coll[i].time_us;
	if (!r->scheduled) {
		r->sharing = !p ? RECORDS_SHARED_SERIAL :
			     records_concurrent(r) ? RECORDS_SHARED_FLUID : RECORDS_SHARED_NONE;
		/* Sharing matters only where two queues can run at once. */
		if (p && records_concurrent(r)) {
			err = overlap_init(&ov, p);
			with_ov = !err;
		}
		if (!err)
			err = place_collectives(r, with_ov ? &ov : NULL, !p);
		if (with_ov)
			overlap_destroy(&ov);
		if (err)
			return err;
	}
	/*
	 * Exposed: what an instant network would take off the iteration.
	 * It would end once its compute has and its last bucket is ready,
	 * so the time waiting for a bucket is no communication's: a trace
	 * imported without compute times (kineto, nccl-log) has its calls'
	 * gaps in ready_us, which "time not covered by compute" charged to
	 * the network (338 us exposed of 133 us of communication).
	 */
	for (unsigned it = 0; it < r->niter; it++) {
		r->iter[it].comm_us = 0;
		r->iter[it].exposed_us = r->iter[it].compute_us;
	}
	for (size_t i = 0; i < r->ncoll; i++) {
		struct coll_record *c = &r->coll[i];
		double algbw = c->time_us > 0 ? c->bytes / (c->time_us * 1e3) : 0;
		struct iter_record *ir = &r->iter[c->iter_at];

		/* nccl-tests: algbw = S / t, busbw = algbw * factor (GB = 1e9 B) */
		c->algbw_gbps = algbw;
		c->busbw_gbps = algbw * plan_bus_factor(c->op, c->nranks);
		ir->comm_us += c->time_us;
		/* for now the end of the iteration with an instant network */
		ir->exposed_us = max2(ir->exposed_us, c->ready_us);
	}
	err = iteration_busy(r);
	if (err)
		return err;
	for (unsigned it = 0; it < r->niter; it++) {
		struct iter_record *ir = &r->iter[it];
		double t = ir->end_us - ir->start_us;

		ir->exposed_us = max2(t - ir->exposed_us, 0);
		total_iter += t;
		total_comm += ir->comm_us;
		total_exposed += ir->exposed_us;
		total_busy += ir->busy_us;
	}
	if (r->niter) {
		r->iteration_time_us = total_iter / r->niter;
		r->comm_time_us = total_comm / r->niter;
		r->exposed_comm_us = total_exposed / r->niter;
		r->comm_busy_us = total_busy / r->niter;
	}
	return 0;
}
