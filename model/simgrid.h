/* SPDX-License-Identifier: MIT */
/*
 * The SimGrid model backend: the plan's connections move their slices as
 * SimGrid parallel tasks (ptask_L07, exact max-min sharing) over one
 * SimGrid link per plan resource, each slice when its inputs have arrived
 * and a slot is free, each simulation in a forked child (SimGrid cannot
 * be initialised twice in one process). docs/model.md, "The SimGrid
 * backend", says why.
 *
 * Without SimGrid the backend is left out of the build (cli/all_backends.c
 * lists it as absent) and model_simulate() is a stub giving -ENOSYS, so that
 * callers need no #ifdef.
 */
#ifndef GDRLAB_SIMGRID_H
#define GDRLAB_SIMGRID_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "backend.h"

struct model_options {
	/* Simulate every node of the cluster instead of a folded
	 * neighbourhood of a symmetric ring, or a smaller cluster extended
	 * linearly (simgrid_internal.h). */
	bool replay;
	/* Collectives of different communicators share links in the
	 * engine's fluid schedule (overlap.h) even where SimGrid could run
	 * them together (simgrid_run.c). */
	bool fluid;
	/* Simulate every connection of a call, even those that move in
	 * step with others by symmetry (simgrid_sym.c): for checking it. */
	bool every_conn;
};

struct model_stats {
	uint64_t ptasks;       /* SimGrid parallel tasks (comms) executed */
	unsigned sim_nodes;    /* nodes in the generated platform */
	unsigned folded_steps; /* calls simulated on a folded neighbourhood */
	unsigned scaled_jobs;  /* calls simulated smaller and extended */
	unsigned sym_jobs;     /* calls simulated on one connection of each
				* symmetric orbit */
};

#ifdef GDRLAB_HAVE_SIMGRID
extern const struct backend_ops model_backend_ops;
/* Entries for the explicit lists of cli/all_backends.c. */
#define MODEL_BACKEND_ENTRY &model_backend_ops,
#define MODEL_BACKEND_ABSENT_ENTRY

/* Run @p through SimGrid with @o (NULL: defaults), fill @rec's timings
 * like backend_ops.run, and say what it cost in @stats (may be NULL). */
int model_simulate(const struct plan *p, const struct model_options *o,
		   struct records *rec, struct model_stats *stats,
		   struct diag *d);
#else
#define MODEL_BACKEND_ENTRY
#define MODEL_BACKEND_ABSENT_ENTRY                                              \
	{ "model", "SimGrid was not found when gdrlab was built "               \
		   "(pkg-config simgrid; Debian: libsimgrid-dev)" },
static inline int model_simulate(const struct plan *p,
				 const struct model_options *o,
				 struct records *rec, struct model_stats *stats,
				 struct diag *d)
{
	return diag_set(d, -ENOSYS, "model backend: built without SimGrid");
}
#endif

#endif
