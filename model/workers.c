/* SPDX-License-Identifier: MIT */
/* workers.h's parallel loop, on POSIX threads. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "workers.h"

struct loop {
	work_fn fn;
	void *ctx;
	size_t ntasks;
	atomic_size_t next;
	atomic_int err;
};

struct worker {
	struct loop *l;
	unsigned id;
};

static void claim_tasks(struct loop *l, unsigned id)
{
	for (;;) {
		size_t t;
		int err;

		if (atomic_load(&l->err))
			return;
		t = atomic_fetch_add(&l->next, 1);
		if (t >= l->ntasks)
			return;
		err = l->fn(l->ctx, id, t);
		if (err) {
			int none = 0;

			atomic_compare_exchange_strong(&l->err, &none, err);
			return;
		}
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	claim_tasks(w->l, w->id);
	return NULL;
}

int workers_run(unsigned nworkers, size_t ntasks, work_fn fn, void *ctx)
{
	struct loop l = { .fn = fn, .ctx = ctx, .ntasks = ntasks };
	struct worker w[WORKERS_MAX];
	pthread_t th[WORKERS_MAX];
	bool started[WORKERS_MAX] = { false };

	if (!nworkers)
		nworkers = 1;

	atomic_init(&l.next, 0);
	atomic_init(&l.err, 0);
	if (nworkers > WORKERS_MAX)
		nworkers = WORKERS_MAX;
	if (nworkers > ntasks)
		nworkers = ntasks ? (unsigned)ntasks : 1;
	for (unsigned i = 1; i < nworkers; i++) {
		w[i] = (struct worker){ &l, i };
		started[i] = !pthread_create(&th[i], NULL, worker_main, &w[i]);
	}
	claim_tasks(&l, 0);
	for (unsigned i = 1; i < nworkers; i++)
		if (started[i])
			pthread_join(th[i], NULL);
	return atomic_load(&l.err);
}

struct sort_job {
	char *base;
	size_t n, size, per;
	int (*cmp)(const void *, const void *);
};

static int sort_share(void *ctx, unsigned worker, size_t task)
{
	struct sort_job *j = ctx;
	size_t lo = task * j->per, hi = lo + j->per < j->n ? lo + j->per : j->n;

	(void)worker;
	if (lo < hi)
		qsort(j->base + lo * j->size, hi - lo, j->size, j->cmp);
	return 0;
}

void workers_sort(unsigned nworkers, void **base, size_t n, size_t size,
		  int (*cmp)(const void *, const void *))
{
	struct sort_job j = { *base, n, size, 0, cmp };
	size_t head[WORKERS_MAX];
	unsigned k;
	char *out;

	if (nworkers > WORKERS_MAX)
		nworkers = WORKERS_MAX;
	/* a share of fewer than some thousands is not worth a thread */
	if (nworkers < 2 || n < 4096 || !(out = malloc(n * size))) {
		qsort(*base, n, size, cmp);
		return;
	}
	j.per = (n + nworkers - 1) / nworkers;
	k = (unsigned)((n + j.per - 1) / j.per);
	workers_run(nworkers, k, sort_share, &j);
	/* k sorted runs merged at once: the smallest head each time, the
	 * first run's on a tie (none: the order is total) */
	for (unsigned r = 0; r < k; r++)
		head[r] = r * j.per;
	for (size_t o = 0; o < n; o++) {
		unsigned best = k;

		for (unsigned r = 0; r < k; r++) {
			size_t end = (r + 1) * j.per < n ? (r + 1) * j.per : n;

			if (head[r] < end &&
			    (best == k || cmp(j.base + head[r] * size, j.base + head[best] * size) < 0))
				best = r;
		}
		memcpy(out + o * size, j.base + head[best]++ * size, size);
	}
	free(*base);
	*base = out;
}
