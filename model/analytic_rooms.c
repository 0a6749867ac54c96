/* SPDX-License-Identifier: MIT */
/*
 * The analytic backend's workers' rooms (analytic_internal.h, struct
 * room): what one worker writes while it solves, so that workers solve
 * side by side (workers.h) over the links and caps they only read.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analytic_internal.h"

/*
 * Room @i. The first is the caller's own, idle while the workers run: its
 * max-min workspace (as long as the plan's links) and its share_ws's
 * flows (as long as the pattern's connections), so that one worker takes
 * no more memory than the caller alone did.
 */
static int room_init(struct room *rm, unsigned i, const struct solver *sv,
		     const struct plan_pattern *pat, const struct share_ws *shared,
		     const struct joined_ws *jw)
{
	size_t n = pat->nconns ? pat->nconns : 1;
	int err = i ? maxmin_ws_init(&rm->mm, sv->nres) : 0;

	rm->sv = *sv;
	if (i) {
		rm->sv.mm = &rm->mm;
		rm->sv.pool = &rm->pool;
		/* the flows and their uses are the room's own; what was
		 * found for every connection is read where the caller has it */
		rm->ws = (struct share_ws){ .links = shared->links, .px = shared->px,
					    .cap = shared->cap, .home = &rm->pool,
					    .borrowed = true };
		rm->ws.flows = malloc(n * sizeof(*rm->ws.flows));
		rm->ws.conn = malloc(n * sizeof(*rm->ws.conn));
		rm->ws.sel = malloc(n * sizeof(*rm->ws.sel));
		rm->ws.twins = shared->twins;
		if (shared->twins)
			err = err ? err : twin_marks_init(&rm->ws.tm, shared->twins);
	} else {
		rm->ws = *shared;
		rm->ws.pick = NULL;
	}
	rm->rate = malloc(n * sizeof(*rm->rate));
	rm->mark = calloc(n, sizeof(*rm->mark));
	if (!err && (!rm->ws.flows || !rm->ws.conn || !rm->ws.sel || !rm->rate || !rm->mark))
		err = -ENOMEM;
	if (!err && jw)
		err = joined_marks_init(&rm->marks, sv, jw->nc);
	return err;
}

static void room_destroy(struct room *rm, unsigned i, struct share_ws *shared)
{
	if (i) {
		share_ws_destroy(&rm->ws);
		free(rm->pool.uses);
		maxmin_ws_destroy(&rm->mm);
	} else if (rm->ws.flows) {
		/* its pool may have grown, its twin marks have moved on */
		shared->pool = rm->ws.pool;
		shared->room = rm->ws.room;
		shared->tm.now = rm->ws.tm.now;
	}
	free(rm->rate);
	free(rm->mark);
	joined_marks_destroy(&rm->marks);
}

int rooms_init(struct room **rooms, unsigned n, const struct solver *sv,
	       const struct plan_pattern *pat, struct share_ws *shared,
	       const struct joined_ws *jw)
{
	struct room *r = calloc(n ? n : 1, sizeof(*r));
	int err = r ? 0 : -ENOMEM;

	for (unsigned i = 0; !err && i < n; i++)
		err = room_init(&r[i], i, sv, pat, shared, jw);
	if (err && r) {
		rooms_destroy(r, n, shared);
		r = NULL;
	}
	*rooms = r;
	return err;
}

void rooms_destroy(struct room *rooms, unsigned n, struct share_ws *shared)
{
	for (unsigned i = 0; rooms && i < n; i++)
		room_destroy(&rooms[i], i, shared);
	free(rooms);
}
