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
	ws->users = calloc(n, sizeof(*ws->users));
	ws->full = malloc(n * sizeof(*ws->full));
	return ws->remaining && ws->load && ws->users && ws->full ? 0 : -ENOMEM;
}

void maxmin_ws_destroy(struct maxmin_ws *ws)
{
	free(ws->frozen);
	free(ws->live);
	free(ws->active);
	free(ws->touched);
	free(ws->full);
	free(ws->users);
	free(ws->load);
	free(ws->remaining);
	memset(ws, 0, sizeof(*ws));
}

/* Forget the resources the last solve saw, however it ended. */
static void forget(struct maxmin_ws *ws)
{
	for (size_t i = 0; i < ws->ntouched; i++)
		ws->users[ws->touched[i]] = 0;
	ws->ntouched = 0;
}

/* First sight of resource @r in this solve (no users yet): full
 * capacity, no load. */
static int see(struct maxmin_ws *ws, const double *capacity, uint32_t r)
{
	if (ws->ntouched == ws->room_touched &&
	    array_grow((void **)&ws->touched, ws->ntouched, &ws->room_touched,
		       sizeof(*ws->touched)))
		return -ENOMEM;
	ws->touched[ws->ntouched++] = r;
	ws->remaining[r] = capacity[r];
	ws->load[r] = 0;
	ws->full[r] = false; /* an unlimited one stays so: no round walks it */
	return 0;
}

/*
 * Progressive filling: the level of every flow not frozen rises until a
 * resource fills or a flow reaches its cap; those flows freeze at it.
 * Only the resources the flows use are walked: the smallest step over
 * them and over the flows' caps is the one the flows' own uses give, and
 * every resource a flow uses is touched. Loads are added and taken off in
 * flow order, so the rates do not depend on how many resources there are.
 * (The arrays are read through locals: a store to a load could otherwise
 * be a flow's weight, for all the compiler knows, and every use reloaded.)
 */
int maxmin_ws_solve(struct maxmin_ws *ws, const double *capacity,
		    struct maxmin_flow *flows, size_t nflows)
{
	double *remaining, *load;
	uint32_t *users, *live, *active;
	bool *full;
	size_t nlive = 0;
	double level = 0;
	int err = 0;

	if (nflows > UINT32_MAX)
		return -ENOMEM;
	if (nflows > ws->room_live) {
		uint32_t *l = realloc(ws->live, nflows * sizeof(*l));
		uint32_t *fz = l ? realloc(ws->frozen, nflows * sizeof(*fz)) : NULL;

		if (l)
			ws->live = l;
		if (!fz)
			return -ENOMEM;
		ws->frozen = fz;
		ws->room_live = nflows;
	}
	remaining = ws->remaining;
	load = ws->load;
	users = ws->users;
	full = ws->full;
	live = ws->live;
	for (size_t f = 0; f < nflows; f++) {
		const struct maxmin_use *use = flows[f].uses;
		unsigned nuses = flows[f].nuses;

		for (unsigned u = 0; u < nuses; u++) {
			uint32_t r = use[u].resource;

			if (r >= ws->nres) {
				err = -EINVAL;
				goto out;
			}
			if (!users[r] && (err = see(ws, capacity, r)))
				goto out;
			load[r] += use[u].weight;
			users[r]++;
		}
		live[nlive++] = (uint32_t)f;
	}
	/* The rounds walk only limited resources that live flows use: an
	 * unlimited one never fills, and one its flows have all left cannot
	 * stop another (the same rates, to the bit, as walking them all:
	 * the minimum and each flow's stop do not depend on them). So every
	 * resource a round walks has users and a finite remainder. */
	if (ws->ntouched > ws->room_active) {
		uint32_t *a = realloc(ws->active, ws->ntouched * sizeof(*a));

		if (!a) {
			err = -ENOMEM;
			goto out;
		}
		ws->active = a;
		ws->room_active = ws->ntouched;
	}
	active = ws->active;
	ws->nactive = 0;
	for (size_t i = 0; i < ws->ntouched; i++)
		if (isfinite(capacity[ws->touched[i]]))
			active[ws->nactive++] = ws->touched[i];

	while (nlive) {
		size_t nactive = ws->nactive;
		uint32_t *frozen = ws->frozen;
		double step = INFINITY;
		size_t kept = 0, nfrozen = 0;

		/* The smallest increase of the common level that fills a
		 * resource or reaches a flow's private cap. */
		for (size_t i = 0; i < nlive; i++) {
			double c = flows[live[i]].cap;

			if (c - level < step)
				step = c - level;
		}
		for (size_t i = 0; i < nactive; i++) {
			uint32_t r = active[i];
			double s = remaining[r] / load[r];

			if (s < step)
				step = s;
		}
		if (!isfinite(step)) {
			/* Nothing limits the remaining flows. */
			for (size_t i = 0; i < nlive; i++)
				flows[live[i]].rate = INFINITY;
			break;
		}
		if (step < 0)
			step = 0;
		level += step;
		for (size_t i = 0; i < nactive; i++) {
			uint32_t r = active[i];

			if (load[r] > 0)
				remaining[r] -= step * load[r];
			full[r] = remaining[r] <= MAXMIN_EPS * capacity[r];
		}

		/* Freeze the flows that hit a full resource or their cap. */
		for (size_t i = 0; i < nlive; i++) {
			struct maxmin_flow *fl = &flows[live[i]];
			const struct maxmin_use *use = fl->uses;
			unsigned nuses = fl->nuses;
			double c = fl->cap;
			bool stop = isfinite(c) && c - level <= MAXMIN_EPS * c;

			for (unsigned u = 0; u < nuses && !stop; u++)
				stop = full[use[u].resource];
			if (stop) {
				fl->rate = level;
				frozen[nfrozen++] = live[i];
			} else {
				live[kept++] = live[i];
			}
		}
		/* What they leave, taken off in flow order; after the last
		 * round, nothing reads it. */
		for (size_t i = 0; kept && i < nfrozen; i++) {
			const struct maxmin_use *use = flows[frozen[i]].uses;
			unsigned nuses = flows[frozen[i]].nuses;

			for (unsigned u = 0; u < nuses; u++) {
				load[use[u].resource] -= use[u].weight;
				users[use[u].resource]--;
			}
		}
		nlive = kept;
		if (kept && nfrozen) {
			size_t k = 0;

			for (size_t i = 0; i < nactive; i++)
				if (users[active[i]])
					active[k++] = active[i];
			ws->nactive = k;
		}
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
