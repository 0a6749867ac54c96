/* SPDX-License-Identifier: MIT */
/*
 * model/workers.c, the analytic backend's parallel loop: every task runs
 * exactly once whatever the workers, each told a worker below the count;
 * a task's error stops the loop and comes back; and workers_sort gives
 * what qsort gives, on random keys with ties broken by index (a total
 * order, as workers_sort asks), for every worker count.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "workers.h"

struct count_job {
	atomic_uint *runs;   /* per task */
	atomic_uint bad_worker;
	unsigned nworkers;
	size_t fail_at;      /* the task that fails, or SIZE_MAX */
	atomic_uint after;   /* tasks started after the failing one ended */
	atomic_bool failed;
};

static int count_task(void *ctx, unsigned worker, size_t task)
{
	struct count_job *j = ctx;

	if (worker >= j->nworkers)
		atomic_fetch_add(&j->bad_worker, 1);
	/* the tasks after the failing one wait for it (a second at most),
	 * so that the loop has had the chance to stop */
	for (long spin = 0; task > j->fail_at && !atomic_load(&j->failed) && spin < 100000000L;
	     spin++)
		;
	if (atomic_load(&j->failed))
		atomic_fetch_add(&j->after, 1);
	atomic_fetch_add(&j->runs[task], 1);
	if (task == j->fail_at) {
		atomic_store(&j->failed, true);
		return -EIO;
	}
	return 0;
}

Test(workers, every_task_runs_once)
{
	enum { N = 5000 };
	static atomic_uint runs[N];

	for (unsigned w = 1; w <= 5; w++) {
		struct count_job j = { .runs = runs, .nworkers = w, .fail_at = SIZE_MAX };

		for (size_t t = 0; t < N; t++)
			atomic_init(&runs[t], 0);
		atomic_init(&j.bad_worker, 0);
		atomic_init(&j.after, 0);
		atomic_init(&j.failed, false);
		cr_assert_eq(workers_run(w, N, count_task, &j), 0);
		for (size_t t = 0; t < N; t++)
			cr_assert_eq(atomic_load(&runs[t]), 1, "%u workers: task %zu ran %u times", w,
				     t, atomic_load(&runs[t]));
		cr_assert_eq(atomic_load(&j.bad_worker), 0, "%u workers: a worker out of range",
			     w);
	}
	/* none, and more workers than tasks */
	cr_assert_eq(workers_run(3, 0, count_task, NULL), 0);
	{
		struct count_job j = { .runs = runs, .nworkers = 8, .fail_at = SIZE_MAX };

		atomic_init(&runs[0], 0);
		atomic_init(&j.bad_worker, 0);
		cr_assert_eq(workers_run(8, 1, count_task, &j), 0);
		cr_assert_eq(atomic_load(&runs[0]), 1);
	}
}

Test(workers, an_error_stops_the_loop)
{
	enum { N = 100000 };
	static atomic_uint runs[N];
	struct count_job j = { .runs = runs, .nworkers = 2, .fail_at = 10 };
	unsigned ran = 0;

	for (size_t t = 0; t < N; t++)
		atomic_init(&runs[t], 0);
	atomic_init(&j.bad_worker, 0);
	atomic_init(&j.after, 0);
	atomic_init(&j.failed, false);
	cr_assert_eq(workers_run(2, N, count_task, &j), -EIO);
	for (size_t t = 0; t < N; t++) {
		cr_assert_leq(atomic_load(&runs[t]), 1);
		ran += atomic_load(&runs[t]);
	}
	/* the tasks claimed before the error was seen, not the rest: at
	 * most the one the other worker had claimed */
	cr_assert_eq(atomic_load(&runs[10]), 1);
	cr_assert_leq(atomic_load(&j.after), 1, "%u tasks ran after the error",
		      atomic_load(&j.after));
	cr_assert_leq(ran, 12, "%u of %d tasks ran", ran, N);
}

struct key {
	double start;
	uint32_t index;
};

static int key_cmp(const void *a, const void *b)
{
	const struct key *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->index > y->index) - (x->index < y->index);
}

/* A small generator of our own: the same cases on every libc. */
static uint32_t next(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(*s >> 33);
}

Test(workers, sort_is_qsorts)
{
	uint64_t seed = 42;
	size_t sizes[] = { 0, 1, 4095, 4096, 4097, 100003 };

	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
		for (unsigned w = 1; w <= 4; w++) {
			size_t n = sizes[k];
			struct key *want = malloc((n ? n : 1) * sizeof(*want));
			struct key *got = malloc((n ? n : 1) * sizeof(*got));

			cr_assert(want && got);
			for (size_t i = 0; i < n; i++)
				/* few distinct starts: many ties, which the
				 * index breaks */
				want[i] = (struct key){ (double)(next(&seed) % 97), (uint32_t)i };
			memcpy(got, want, n * sizeof(*want));
			qsort(want, n, sizeof(*want), key_cmp);
			workers_sort(w, (void **)&got, n, sizeof(*got), key_cmp);
			cr_assert(!memcmp(want, got, n * sizeof(*want)),
				  "%zu keys on %u workers: not qsort's order", n, w);
			free(want);
			free(got);
		}
}
