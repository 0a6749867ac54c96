/* SPDX-License-Identifier: MIT */
/* workers.h's parallel loop, on POSIX threads. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

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
