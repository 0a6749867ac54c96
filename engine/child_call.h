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

#endif
