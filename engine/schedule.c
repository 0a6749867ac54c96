/* SPDX-License-Identifier: MIT */
/*
 * schedule: collectives on the timeline of each iteration.
 *
 * Each (communicator, stream) is a queue: its collectives run in trace
 * order, each once its bucket is ready and the one before it has ended.
 * Queues run at once. While one collective runs alone it takes its time
 * alone, to the bit; while several run, each moves at the speed the
 * shared links leave it (overlap.h), recomputed whenever one starts or
 * ends: an event-driven fluid schedule.
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

/* What one iteration's placement keeps. */
struct sched {
	struct records *r;
	struct overlap *ov;    /* NULL: collectives never slow each other */
	bool serial;           /* one queue: the trace's order */
	double *queue_free;    /* per queue: when its last collective ended */
	size_t *next;          /* per collective: the next on its queue, or SIZE_MAX */
	size_t *head;          /* per queue: its next collective, or SIZE_MAX */
	size_t *tail;          /* per queue: its last collective of the iteration */
	bool *busy;            /* per queue: one of its collectives runs */
	size_t *live;          /* collectives running now */
	double *left;          /* per live slot: microseconds of work alone left */
	double *speed;         /* per live slot */
	double *alone;         /* per live slot: its time alone (for overlap) */
	bool *slowed;          /* per live slot: ever ran below speed 1 */
	size_t nlive;
};

static int sched_init(struct sched *s, struct records *r, struct overlap *ov, bool serial)
{
	size_t q = r->nqueues ? r->nqueues : 1, n = r->ncoll ? r->ncoll : 1;

	memset(s, 0, sizeof(*s));
	s->r = r;
	s->ov = ov;
	s->serial = serial;
	s->queue_free = calloc(q, sizeof(*s->queue_free));
	s->head = malloc(q * sizeof(*s->head));
	s->tail = malloc(q * sizeof(*s->tail));
	s->busy = calloc(q, sizeof(*s->busy));
	s->next = malloc(n * sizeof(*s->next));
	/* At most one collective of each queue runs at a time. */
	s->live = malloc(q * sizeof(*s->live));
	s->left = malloc(q * sizeof(*s->left));
	s->speed = malloc(q * sizeof(*s->speed));
	s->alone = malloc(q * sizeof(*s->alone));
	s->slowed = malloc(q * sizeof(*s->slowed));
	return s->queue_free && s->head && s->tail && s->busy && s->next && s->live && s->left &&
		       s->speed && s->alone && s->slowed ? 0 : -ENOMEM;
}

static void sched_destroy(struct sched *s)
{
	free(s->queue_free);
	free(s->head);
	free(s->tail);
	free(s->busy);
	free(s->next);
	free(s->live);
	free(s->left);
	free(s->speed);
	free(s->alone);
	free(s->slowed);
}

static int respeed(struct sched *s)
{
	for (size_t k = 0; k < s->nlive; k++)
		s->speed[k] = 1;
	if (s->nlive < 2 || !s->ov)
		return 0;
	for (size_t k = 0; k < s->nlive; k++)
		s->alone[k] = s->r->coll[s->live[k]].alone_us;
	return overlap_speeds(s->ov, s->live, s->alone, s->nlive, s->speed);
}

static unsigned queue_of(const struct sched *s, const struct coll_record *c)
{
	return s->serial ? 0 : c->queue;
}

/* When queue @q's head may start, or INFINITY when it has none. */
static double head_start(const struct sched *s, unsigned q, double iter_start)
{
	size_t h = s->head[q];

	if (h == SIZE_MAX)
		return INFINITY;
	return max2(iter_start + s->r->coll[h].ready_us, s->queue_free[q]);
}

/* Collectives [i0, i1) of one iteration from @iter_start; returns the end
 * of its last collective (or @iter_start). */
static int place_iteration(struct sched *s, size_t i0, size_t i1, double iter_start,
			   double *last_end)
{
	struct records *r = s->r;
	bool *busy = s->busy; /* all false between iterations: every call ended */
	size_t *tail = s->tail;
	double now = iter_start;
	size_t done = i0;
	int err = 0;

	*last_end = iter_start;
	for (unsigned q = 0; q < r->nqueues; q++)
		s->head[q] = tail[q] = SIZE_MAX;
	for (size_t i = i0; i < i1; i++) {
		unsigned q = queue_of(s, &r->coll[i]);

		s->next[i] = SIZE_MAX;
		if (tail[q] == SIZE_MAX)
			s->head[q] = i;
		else
			s->next[tail[q]] = i;
		tail[q] = i;
	}
	while (done < i1 && !err) {
		double t = INFINITY;
		bool changed = false;

		for (unsigned q = 0; q < r->nqueues; q++)
			if (!busy[q])
				t = fmin(t, head_start(s, q, iter_start));
		for (size_t k = 0; k < s->nlive; k++)
			t = fmin(t, now + s->left[k] / s->speed[k]);
		/* Ends first: a queue's next collective starts when it is free. */
		for (size_t k = 0; k < s->nlive;) {
			struct coll_record *c = &r->coll[s->live[k]];
			double end = now + s->left[k] / s->speed[k];

			if (end > t) {
				s->left[k] -= (t - now) * s->speed[k];
				if (s->speed[k] < 1)
					s->slowed[k] = true;
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
			s->queue_free[queue_of(s, c)] = c->end_us;
			busy[queue_of(s, c)] = false;
			s->head[queue_of(s, c)] = s->next[s->live[k]];
			*last_end = max2(*last_end, c->end_us);
			done++;
			changed = true;
			s->nlive--;
			s->live[k] = s->live[s->nlive];
			s->left[k] = s->left[s->nlive];
			s->speed[k] = s->speed[s->nlive];
			s->slowed[k] = s->slowed[s->nlive];
		}
		now = t;
		for (unsigned q = 0; q < r->nqueues; q++) {
			struct coll_record *c;

			if (busy[q] || head_start(s, q, iter_start) > now)
				continue;
			c = &r->coll[s->head[q]];
			c->start_us = head_start(s, q, iter_start);
			busy[q] = true;
			s->live[s->nlive] = s->head[q];
			s->left[s->nlive] = c->alone_us;
			s->speed[s->nlive] = 1;
			s->slowed[s->nlive] = false;
			s->nlive++;
			changed = true;
		}
		if (changed)
			err = respeed(s);
		for (size_t k = 0; k < s->nlive; k++)
			if (s->speed[k] < 1)
				r->overlapped = true;
	}
	return err;
}

static int place_collectives(struct records *r, struct overlap *ov, bool serial)
{
	double iter_start = 0;
	struct sched s;
	size_t i = 0;
	int err = sched_init(&s, r, ov, serial);

	for (unsigned it = 0; it < r->niter && !err; it++) {
		struct iter_record *ir = &r->iter[it];
		size_t i0 = i;
		double end;

		for (; i < r->ncoll && r->coll[i].iteration == it; i++)
			;
		ir->start_us = iter_start;
		err = place_iteration(&s, i0, i, iter_start, &end);
		ir->end_us = max2(iter_start + ir->compute_us, end);
		iter_start = ir->end_us;
	}
	sched_destroy(&s);
	return err;
}

int records_schedule(struct records *r, const struct plan *p)
{
	double total_iter = 0, total_comm = 0, total_exposed = 0;
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
			     r->nqueues > 1 ? RECORDS_SHARED_FLUID : RECORDS_SHARED_NONE;
		/* Sharing matters only where two queues can run at once. */
		if (p && r->nqueues > 1) {
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
		struct iter_record *ir = &r->iter[c->iteration];

		/* nccl-tests: algbw = S / t, busbw = algbw * factor (GB = 1e9 B) */
		c->algbw_gbps = algbw;
		c->busbw_gbps = algbw * plan_bus_factor(c->op, c->nranks);
		ir->comm_us += c->time_us;
		/* for now the end of the iteration with an instant network */
		ir->exposed_us = max2(ir->exposed_us, c->ready_us);
	}
	for (unsigned it = 0; it < r->niter; it++) {
		struct iter_record *ir = &r->iter[it];
		double t = ir->end_us - ir->start_us;

		ir->exposed_us = max2(t - ir->exposed_us, 0);
		total_iter += t;
		total_comm += ir->comm_us;
		total_exposed += ir->exposed_us;
	}
	if (r->niter) {
		r->iteration_time_us = total_iter / r->niter;
		r->comm_time_us = total_comm / r->niter;
		r->exposed_comm_us = total_exposed / r->niter;
	}
	return 0;
}
