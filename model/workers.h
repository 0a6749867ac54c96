/* SPDX-License-Identifier: MIT */
/*
 * A parallel loop for the analytic backend's solves: tasks that share
 * nothing they write, claimed one at a time by a few threads (the
 * caller's among them), each told which worker runs it so that it works
 * in that worker's own room. Which worker runs a task changes nothing it
 * computes: a call's figures are the same to the bit on one thread or
 * many.
 */
#ifndef GDRLAB_WORKERS_H
#define GDRLAB_WORKERS_H

#include <stddef.h>

/* At most this many unless asked for more: each worker holds a room as
 * large as a solve's flows. */
#define WORKERS_DEFAULT_MAX 8
#define WORKERS_MAX 64

typedef int (*work_fn)(void *ctx, unsigned worker, size_t task);

/*
 * Runs @fn(@ctx, w, t) for every task t < @ntasks on up to @nworkers
 * workers, w < @nworkers. The first error a task returns stops the tasks
 * not yet claimed and is returned; 0 when all ran. A thread that cannot
 * be started leaves its tasks to the others.
 */
int workers_run(unsigned nworkers, size_t ntasks, work_fn fn, void *ctx);

/*
 * Sorts @n elements of @size bytes at *@base by @cmp, which must order
 * every two elements (a total order: the result is then the one qsort
 * gives, whatever the workers): each worker's share sorted side by side,
 * then merged into a second array, which *@base becomes (the first is
 * freed: *@base must come from malloc); sorted in place by qsort alone
 * where there is no room for the second.
 */
void workers_sort(unsigned nworkers, void **base, size_t n, size_t size,
		 int (*cmp)(const void *, const void *));

#endif
