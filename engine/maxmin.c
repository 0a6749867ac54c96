/* SPDX-License-Identifier: MIT */
#include "maxmin.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "array_grow.h"

/* A resource within this relative margin of full counts as saturated. */
#define MAXMIN_EPS 1e-12

int maxmin_ws_init(struct maxmin_ws *ws, size_t nres)
{
	size_t n = nres ? nres : 1;

	memset(ws, 0, sizeof(*ws));
	ws->nres = nres;
	ws->remaining = malloc(n * sizeof(*ws->remaining));
	ws->load = malloc(n * sizeof(*ws->load));
	ws->users = malloc(n * sizeof(*ws->users));
	ws->seen = calloc(n, sizeof(*ws->seen));
	ws->full = malloc(n * sizeof(*ws->full));
	return ws->remaining && ws->load && ws->users && ws->seen && ws->full ? 0 : -ENOMEM;
}

void maxmin_ws_destroy(struct maxmin_ws *ws)
{
	free(ws->frozen);
	free(ws->live);
	free(ws->touched);
	free(ws->full);
	free(ws->seen);
	free(ws->users);
	free(ws->load);
	free(ws->remaining);
	memset(ws, 0, sizeof(*ws));
}

/* Forget the resources the last solve saw, however it ended. */
static void forget(struct maxmin_ws *ws)
{
	for (size_t i = 0; i < ws->ntouched; i++)
		ws->seen[ws->touched[i]] = false;
	ws->ntouched = 0;
}

/* First sight of resource @r in this solve: full capacity, no load yet. */
static int see(struct maxmin_ws *ws, const double *capacity, uint32_t r)
{
	if (ws->ntouched == ws->room_touched &&
	    array_grow((void **)&ws->touched, ws->ntouched, &ws->room_touched,
		       sizeof(*ws->touched)))
		return -ENOMEM;
	ws->seen[r] = true;
	ws->touched[ws->ntouched++] = r;
	ws->remaining[r] = capacity[r];
	ws->load[r] = 0;
	ws->users[r] = 0;
	return 0;
}

/*
 * Progressive filling: the level of every flow not frozen rises until a
 * resource fills or a flow reaches its cap; those flows freeze at it.
 * Only the resources the flows use are walked: the smallest step over
 * them and over the flows' caps is the one the flows' own uses give, and
 * every resource a flow uses is seen. Loads are added and taken off in
 * flow order, so the rates do not depend on how many resources there are.
 */
int maxmin_ws_solve(struct maxmin_ws *ws, const double *capacity,
		    struct maxmin_flow *flows, size_t nflows)
{
	size_t nlive = 0;
	double level = 0;
	int err = 0;

	if (nflows > UINT32_MAX)
		return -ENOMEM;
	if (nflows > ws->room_live) {
		uint32_t *live = realloc(ws->live, nflows * sizeof(*live));
		uint32_t *frozen = live ? realloc(ws->frozen, nflows * sizeof(*frozen)) : NULL;

		if (live)
			ws->live = live;
		if (!frozen)
			return -ENOMEM;
		ws->frozen = frozen;
		ws->room_live = nflows;
	}
	for (size_t f = 0; f < nflows; f++) {
		for (unsigned u = 0; u < flows[f].nuses; u++) {
			uint32_t r = flows[f].uses[u].resource;

			if (r >= ws->nres) {
				err = -EINVAL;
				goto out;
			}
			if (!ws->seen[r] && (err = see(ws, capacity, r)))
				goto out;
			ws->load[r] += flows[f].uses[u].weight;
			ws->users[r]++;
		}
		ws->live[nlive++] = (uint32_t)f;
	}

	while (nlive) {
		double step = INFINITY;
		size_t kept = 0, nfrozen = 0;

		/* The smallest increase of the common level that fills a
		 * resource or reaches a flow's private cap. */
		for (size_t i = 0; i < nlive; i++) {
			const struct maxmin_flow *fl = &flows[ws->live[i]];

			if (fl->cap - level < step)
				step = fl->cap - level;
		}
		for (size_t i = 0; i < ws->ntouched; i++) {
			uint32_t r = ws->touched[i];
			double s;

			if (!ws->users[r] || !isfinite(capacity[r]))
				continue;
			s = ws->remaining[r] / ws->load[r];
			if (s < step)
				step = s;
		}
		if (!isfinite(step)) {
			/* Nothing limits the remaining flows. */
			for (size_t i = 0; i < nlive; i++)
				flows[ws->live[i]].rate = INFINITY;
			break;
		}
		if (step < 0)
			step = 0;
		level += step;
		for (size_t i = 0; i < ws->ntouched; i++) {
			uint32_t r = ws->touched[i];

			if (ws->load[r] > 0 && isfinite(ws->remaining[r]))
				ws->remaining[r] -= step * ws->load[r];
			ws->full[r] = isfinite(capacity[r]) &&
				      ws->remaining[r] <= MAXMIN_EPS * capacity[r];
		}

		/* Freeze the flows that hit a full resource or their cap. */
		for (size_t i = 0; i < nlive; i++) {
			struct maxmin_flow *fl = &flows[ws->live[i]];
			bool stop = isfinite(fl->cap) && fl->cap - level <= MAXMIN_EPS * fl->cap;

			for (unsigned u = 0; u < fl->nuses && !stop; u++)
				stop = ws->full[fl->uses[u].resource];
			if (stop) {
				fl->rate = level;
				ws->frozen[nfrozen++] = ws->live[i];
			} else {
				ws->live[kept++] = ws->live[i];
			}
		}
		/* What they leave, taken off in flow order; after the last
		 * round, nothing reads it. */
		for (size_t i = 0; kept && i < nfrozen; i++) {
			const struct maxmin_flow *fl = &flows[ws->frozen[i]];

			for (unsigned u = 0; u < fl->nuses; u++) {
				ws->load[fl->uses[u].resource] -= fl->uses[u].weight;
				ws->users[fl->uses[u].resource]--;
			}
		}
		nlive = kept;
	}
out:
	forget(ws);
	return err;
}

int maxmin_solve(const double *capacity, size_t nres, struct maxmin_flow *flows,
		 size_t nflows)
{
	struct maxmin_ws ws;
	int err = maxmin_ws_init(&ws, nres);

	if (!err)
		err = maxmin_ws_solve(&ws, capacity, flows, nflows);
	maxmin_ws_destroy(&ws);
	return err;
}
