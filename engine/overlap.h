/* SPDX-License-Identifier: MIT */
/*
 * overlap: collectives of different communicators that run at once share
 * the links. Each collective, timed alone by its backend, loads the
 * cluster's resources (resources.h) with its bytes over the time its
 * stream takes alone (engine/schedule.c call_stream_us); the collectives
 * live at once progress at the max-min fair share of that pace the links
 * leave them (maxmin.h): a speed f in (0, 1] each, 1 when nothing they
 * use is oversubscribed. A fluid model: a collective's stream is
 * stretched by 1 / f, the rest of its time alone (launch, latencies,
 * fill and drain) follows it as it was (docs/model.md, "Communicators at
 * once").
 */
#ifndef GDRLAB_OVERLAP_H
#define GDRLAB_OVERLAP_H

#include <stddef.h>
#include <stdint.h>

#include "plan.h"

struct overlap_load {
	uint32_t res;    /* global resource id (plan_use_id) */
	double per_byte; /* bytes on it per byte of the collective */
};

struct overlap_shape; /* one pattern on one channel count: its loads */

struct overlap {
	const struct plan *p;
	double *cap;                  /* every resource's capacity */
	size_t nres;
	struct overlap_shape *shapes; /* solved (pattern, channels) */
	size_t nshapes, cap_shapes;
	size_t *by_pattern;           /* per pattern: its first shape, SIZE_MAX
				       * for none (the others chain by next) */
	double *dense;                /* nres scratch, zero between uses */
	int32_t *local;               /* nres: a resource's index in a solve, -1 */
};

int overlap_init(struct overlap *o, const struct plan *p);
void overlap_destroy(struct overlap *o);

/*
 * The least time collective @coll (an index into the plan's collectives)
 * takes on its links, each of its own: its bytes on its busiest one over
 * that one's capacity, into @us. 0 or -ENOMEM.
 */
int overlap_link_us(struct overlap *o, size_t coll, double *us);

/*
 * The speeds of @n collectives running at once: @coll[i] is an index into
 * the plan's collectives, @alone_us[i] the time it takes alone to move
 * its bytes (no share makes it faster), 0 for one that loads no link
 * now. Fills @speed[i] in (0, 1]. 0 or -ENOMEM.
 */
int overlap_speeds(struct overlap *o, const size_t *coll, const double *alone_us,
		   size_t n, double *speed);

#endif
