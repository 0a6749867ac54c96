/* SPDX-License-Identifier: MIT */
/*
 * child_call: run a function in a forked child and take its answer back
 * over a pipe, for work the parent must not do itself:
 *   - CUDA: a process that initialised the driver cannot use it in the
 *     children it forks afterwards (CUDA Programming Guide, "the CUDA
 *     runtime and driver do not support fork()" after initialisation), and
 *     emu's ranks are forked children;
 *   - anything that may abort the process (a library that calls abort()).
 * A child that dies gives a clean error, never a crash of the parent.
 */
#ifndef GDRLAB_CHILD_CALL_H
#define GDRLAB_CHILD_CALL_H

#include <stddef.h>

#include "diag.h"

/* Fills @answer (@len bytes) and returns 0, or returns -errno with the
 * message in @d; runs in the child. */
typedef int (*child_fn)(void *arg, void *answer, size_t len, struct diag *d);

/*
 * fn(arg, answer, len, d) in a child; its return value and @d come back,
 * and @answer when it returned 0. A child that dies or exits early:
 * -EIO "@what: the process died of signal N (NAME)". stdio is flushed
 * before the fork, and the child leaves with _exit.
 */
int child_call(const char *what, child_fn fn, void *arg, void *answer,
	       size_t len, struct diag *d);

/* What a waiting parent calls while its child runs: a progress line's
 * heartbeat, so that a long simulation shows its time going by. */
struct child_tick {
	void (*fn)(void *ctx);
	void *ctx;
};

#define CHILD_TICK_MS 250

/* child_call, @tick's fn called about every CHILD_TICK_MS until the child
 * answers or ends (@tick NULL: never). */
int child_call_ticking(const char *what, child_fn fn, void *arg, void *answer, size_t len,
		       const struct child_tick *tick, struct diag *d);

/* fn for child_call_each: item @i of the work. */
typedef int (*child_each_fn)(void *arg, size_t i, void *answer, size_t len,
			     struct diag *d);

/*
 * fn(arg, i, answer_i, len, d) for each i < @n, each in a child of its
 * own, at most @parallel at once (0: 1); answer_i is @len bytes at
 * @answers + i * len. Children that fail leave the others to finish; the
 * error of the lowest i comes back, as child_call's would.
 */
int child_call_each(const char *what, child_each_fn fn, void *arg, size_t n,
		    void *answers, size_t len, unsigned parallel, struct diag *d);

/* The CPUs this process may run on (at least 1). */
unsigned child_call_cpus(void);

#endif
