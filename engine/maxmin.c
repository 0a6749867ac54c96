/* SPDX-License-Identifier: MIT */
#include "maxmin.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "array_grow.h"
#include "sort_unsigned.h"

/* A resource within this relative margin of full counts as saturated. */
#define MAXMIN_EPS 1e-12

/* Rounds a solve walks every live flow before it walks by index
 * (rounds_by_index): most solves end in a few, and the index costs a
 * pass over their uses and a sort of their caps. */
#define MAXMIN_INDEX_AFTER 8

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
	free(ws->slot);
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

/* The smallest of @step and each active resource's remainder over its
 * load: how far the common level can rise before one fills. */
static double resource_step(const struct maxmin_ws *ws, double step)
{
	const double *remaining = ws->remaining, *load = ws->load;

	for (size_t i = 0; i < ws->nactive; i++) {
		uint32_t r = ws->active[i];
		double s = remaining[r] / load[r];

		if (s < step)
			step = s;
	}
	return step;
}

/* The level risen by @step: each active resource's remainder, and
 * whether that fills it. */
static void fill(struct maxmin_ws *ws, const double *capacity, double step)
{
	double *remaining = ws->remaining;
	const double *load = ws->load;
	bool *full = ws->full;

	for (size_t i = 0; i < ws->nactive; i++) {
		uint32_t r = ws->active[i];

		if (load[r] > 0)
			remaining[r] -= step * load[r];
		full[r] = remaining[r] <= MAXMIN_EPS * capacity[r];
	}
}

/* What the @nfrozen flows frozen leave, taken off in flow order, and the
 * resources no live flow uses any more out of the walk; only while some
 * flow is live: after the last round nothing reads it. */
static void take_off(struct maxmin_ws *ws, const struct maxmin_flow *flows,
		     const uint32_t *frozen, size_t nfrozen)
{
	double *load = ws->load;
	uint32_t *users = ws->users, *active = ws->active;
	size_t k = 0;

	for (size_t i = 0; i < nfrozen; i++) {
		const struct maxmin_use *use = flows[frozen[i]].uses;
		unsigned nuses = flows[frozen[i]].nuses;

		for (unsigned u = 0; u < nuses; u++) {
			load[use[u].resource] -= use[u].weight;
			users[use[u].resource]--;
		}
	}
	for (size_t i = 0; i < ws->nactive; i++)
		if (users[active[i]])
			active[k++] = active[i];
	ws->nactive = k;
}

/* What rounds_by_index walks: each limited resource's live flows and the
 * live flows with a cap, by cap. */
struct flow_index {
	uint32_t *first;  /* per slot (ws->slot) + 1: where its flows start */
	uint32_t *flow;   /* their indices, ascending */
	uint32_t *by_cap; /* live flows with a cap below INFINITY, by cap */
	size_t ncap, at;  /* how many; the first not frozen is at or after at */
	bool *done;       /* per flow: frozen */
};

static void flow_index_free(struct flow_index *x)
{
	free(x->first);
	free(x->flow);
	free(x->by_cap);
	free(x->done);
}

/* A flow's cap beside it, for the sort (qsort has no context). */
struct flow_cap {
	double cap;
	uint32_t flow;
};

static int by_cap(const void *a, const void *b)
{
	double x = ((const struct flow_cap *)a)->cap, y = ((const struct flow_cap *)b)->cap;

	return (x > y) - (x < y);
}

/* @x's capped flows (x->by_cap) sorted by cap. */
static int sort_caps(struct flow_index *x, const struct maxmin_flow *flows)
{
	struct flow_cap *c = malloc((x->ncap ? x->ncap : 1) * sizeof(*c));

	if (!c)
		return -ENOMEM;
	for (size_t i = 0; i < x->ncap; i++)
		c[i] = (struct flow_cap){ flows[x->by_cap[i]].cap, x->by_cap[i] };
	qsort(c, x->ncap, sizeof(*c), by_cap);
	for (size_t i = 0; i < x->ncap; i++)
		x->by_cap[i] = c[i].flow;
	free(c);
	return 0;
}


/* The index of @ws's live flows over its active resources. */
static int flow_index_build(struct maxmin_ws *ws, const double *capacity,
			    const struct maxmin_flow *flows, size_t nflows, size_t nlive,
			    struct flow_index *x)
{
	size_t nuses = 0;

	memset(x, 0, sizeof(*x));
	if (!ws->slot && !(ws->slot = malloc((ws->nres ? ws->nres : 1) * sizeof(*ws->slot))))
		return -ENOMEM;
	for (size_t i = 0; i < ws->nactive; i++)
		ws->slot[ws->active[i]] = (uint32_t)i;
	x->first = calloc(ws->nactive + 2, sizeof(*x->first));
	x->by_cap = malloc((nlive ? nlive : 1) * sizeof(*x->by_cap));
	x->done = malloc((nflows ? nflows : 1) * sizeof(*x->done));
	if (!x->first || !x->by_cap || !x->done)
		return -ENOMEM;
	for (size_t f = 0; f < nflows; f++)
		x->done[f] = true;
	/* counted at first[slot + 2], summed, filled moving first[slot + 1] */
	for (size_t i = 0; i < nlive; i++) {
		const struct maxmin_flow *fl = &flows[ws->live[i]];

		x->done[ws->live[i]] = false;
		if (fl->cap < INFINITY)
			x->by_cap[x->ncap++] = ws->live[i];
		for (unsigned u = 0; u < fl->nuses; u++)
			if (isfinite(capacity[fl->uses[u].resource])) {
				x->first[ws->slot[fl->uses[u].resource] + 2]++;
				nuses++;
			}
	}
	for (size_t k = 2; k < ws->nactive + 2; k++)
		x->first[k] += x->first[k - 1];
	x->flow = malloc((nuses ? nuses : 1) * sizeof(*x->flow));
	if (!x->flow)
		return -ENOMEM;
	for (size_t i = 0; i < nlive; i++) {
		const struct maxmin_flow *fl = &flows[ws->live[i]];

		for (unsigned u = 0; u < fl->nuses; u++)
			if (isfinite(capacity[fl->uses[u].resource]))
				x->flow[x->first[ws->slot[fl->uses[u].resource] + 1]++] = ws->live[i];
	}
	return sort_caps(x, flows);
}

/*
 * The rounds of maxmin_ws_solve from where it is, walking by index: a
 * round's frozen flows are the live ones of the resources that filled
 * (their lists) and of the caps it reached (the caps in order), not found
 * by a walk over every live flow; the smallest cap is the first one live.
 * The same arithmetic in the same order (the frozen ones taken off in
 * flow order), so the same rates to the bit: a solve of many levels, a
 * round each (an alltoall over a Clos's ECMP uplinks: thousands of
 * rounds over 260 000 flows), costs its uses and its resources a round,
 * not its flows a round.
 */
static int rounds_by_index(struct maxmin_ws *ws, const double *capacity,
			   struct maxmin_flow *flows, size_t nflows, size_t nlive, double level)
{
	struct flow_index x;
	uint32_t *frozen = ws->frozen;
	int err = flow_index_build(ws, capacity, flows, nflows, nlive, &x);

	while (!err && nlive) {
		size_t nfrozen = 0;
		double step = INFINITY, top;

		while (x.at < x.ncap && x.done[x.by_cap[x.at]])
			x.at++;
		/* c - level rounds monotonically in c: the smallest cap's */
		if (x.at < x.ncap && flows[x.by_cap[x.at]].cap - level < step)
			step = flows[x.by_cap[x.at]].cap - level;
		step = resource_step(ws, step);
		if (!isfinite(step)) {
			for (size_t f = 0; f < nflows; f++)
				if (!x.done[f])
					flows[f].rate = INFINITY;
			break;
		}
		if (step < 0)
			step = 0;
		level += step;
		fill(ws, capacity, step);
		for (size_t i = 0; i < ws->nactive; i++) {
			uint32_t r = ws->active[i];

			for (uint32_t k = x.first[ws->slot[r]]; ws->full[r] && k < x.first[ws->slot[r] + 1]; k++)
				if (!x.done[x.flow[k]]) {
					x.done[x.flow[k]] = true;
					frozen[nfrozen++] = x.flow[k];
				}
		}
		/* every cap c - level <= EPS c can hold for lies within this
		 * of the level; each is tested as the full walk tests it */
		top = level + level * 1e-9;
		for (size_t k = x.at; k < x.ncap && flows[x.by_cap[k]].cap <= top; k++) {
			uint32_t f = x.by_cap[k];
			double c = flows[f].cap;

			if (!x.done[f] && isfinite(c) && c - level <= MAXMIN_EPS * c) {
				x.done[f] = true;
				frozen[nfrozen++] = f;
			}
		}
		sort_unsigned(frozen, nfrozen);
		for (size_t i = 0; i < nfrozen; i++)
			flows[frozen[i]].rate = level;
		nlive -= nfrozen;
		if (nlive && nfrozen)
			take_off(ws, flows, frozen, nfrozen);
	}
	flow_index_free(&x);
	return err;
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
	double *load;
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

	for (unsigned round = 0; nlive; round++) {
		uint32_t *frozen = ws->frozen;
		double step = INFINITY;
		size_t kept = 0, nfrozen = 0;

		if (round == MAXMIN_INDEX_AFTER) {
			err = rounds_by_index(ws, capacity, flows, nflows, nlive, level);
			break;
		}
		/* The smallest increase of the common level that fills a
		 * resource or reaches a flow's private cap. */
		for (size_t i = 0; i < nlive; i++) {
			double c = flows[live[i]].cap;

			if (c - level < step)
				step = c - level;
		}
		step = resource_step(ws, step);
		if (!isfinite(step)) {
			/* Nothing limits the remaining flows. */
			for (size_t i = 0; i < nlive; i++)
				flows[live[i]].rate = INFINITY;
			break;
		}
		if (step < 0)
			step = 0;
		level += step;
		fill(ws, capacity, step);

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
		nlive = kept;
		if (kept && nfrozen)
			take_off(ws, flows, frozen, nfrozen);
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
