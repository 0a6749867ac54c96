/* SPDX-License-Identifier: MIT */
/*
 * A filling chain's shares in the analytic backend: where a chain has
 * fewer slices than hops, only the connections whose slices move at the
 * same time share its links. How many phases that spans (fill_window),
 * and the shares told by the time each connection's first slice moves,
 * not by its depth (time_rates).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analytic_internal.h"
#include "fill_sets.h"
#include "pipeline.h"
#include "workers.h"

/* One group of connections starting together, at clock positions
 * [g, end), and the first position whose first slice may be in flight as
 * they start (a hop before). */
struct tau_group {
	size_t g, end, lo;
	double cut;
};

/* The tau solves, a group a task (workers.h), then a twin set a task
 * (twin_taus_set): each writes only its own connections' seg_bw, solving
 * in its worker's room. */
struct tau_job {
	const struct plan_pattern *pat;
	unsigned nch, nseg;
	const struct conn_clock *clk;
	const struct tau_group *grp;
	size_t ngroups;
	const struct joined_ws *jw;
	struct room *rooms;
	struct twin_tau_job *twins; /* or NULL */
	struct conn_rate *cr;
};

static int tau_group(void *ctx, unsigned worker, size_t task)
{
	const struct tau_job *t = ctx;

	if (task >= t->ngroups)
		return twin_taus_set(t->twins, worker, task - t->ngroups);
	const struct tau_group *gr = &t->grp[task];
	struct room *rm = &t->rooms[worker];
	/* only the group's taus are read: each solve takes the picked
	 * connections joined to them (analytic_joined.c) */
	struct pick_window w = { t->clk, gr->lo, gr->g, gr->end, gr->cut };
	int err = 0;

	for (unsigned k = 0; !err && k < t->nseg; k++) {
		err = share_joined(&rm->sv, &rm->ws, t->jw, &rm->marks, t->pat, t->nch, k, &w,
				   rm->rate);
		for (size_t j = gr->g; !err && j < gr->end; j++) {
			struct conn_rate *c = &t->cr[t->clk[j].conn];

			if (k < c->nseg)
				c->seg_bw[k] = rm->rate[j - gr->g];
		}
	}
	return err;
}

/*
 * The groups of connections starting together along the clock @clk (by
 * start), into @grp; returns how many. A group's tau is taken with the
 * first slices in flight as it starts, from the first starting no
 * earlier than the longest hop @hmax before.
 */
static size_t tau_groups(const struct conn_clock *clk, size_t nc, double hmax,
			 struct tau_group *grp)
{
	size_t ng = 0;

	for (size_t g = 0, end, lo = 0; g < nc; g = end) {
		double t = clk[g].start, cut = group_cut(t, hmax);

		for (end = g; end < nc && clk[end].start <= cut; end++)
			;
		while (clk[lo].start < t - hmax)
			lo++;
		grp[ng++] = (struct tau_group){ g, end, lo, cut };
	}
	return ng;
}

/* One fill solve: the connections at clock positions [a, b) whose spans
 * end after t, for the connections at positions [from, to). */
struct fill_solve {
	size_t a, b, from, to;
	double t;
};

struct fill_job {
	const struct plan_pattern *pat;
	unsigned nch;
	const struct conn_clock *clk;
	const double *end;  /* fill_sets' */
	const struct fill_solve *solve;
	struct room *rooms;
	struct conn_rate *cr;
};

static int fill_solve_task(void *ctx, unsigned worker, size_t k)
{
	const struct fill_job *j = ctx;
	const struct fill_solve *fs = &j->solve[k];
	struct room *rm = &j->rooms[worker];
	uint32_t *pick = malloc((fs->b > fs->a ? fs->b - fs->a : 1) * sizeof(*pick));
	size_t np = 0;
	int err;

	if (!pick)
		return -ENOMEM;
	if (rm->ws.twins) {
		/* in the connections' order, as the depth shares take theirs:
		 * one of each alike twin set is solved (marked, then read off
		 * in order: a sort of some 300 000 a set took longer) */
		uint32_t lo = UINT32_MAX, hi = 0;

		for (size_t m = fs->a; m < fs->b; m++)
			if (j->end[m] > fs->t) {
				uint32_t c = j->clk[m].conn;

				rm->mark[c] = true;
				lo = c < lo ? c : lo;
				hi = c > hi ? c : hi;
			}
		for (uint32_t c = lo; lo <= hi && c <= hi; c++)
			if (rm->mark[c]) {
				rm->mark[c] = false;
				pick[np++] = c;
			}
	} else {
		for (size_t m = fs->a; m < fs->b; m++)
			if (j->end[m] > fs->t)
				pick[np++] = j->clk[m].conn;
	}
	rm->ws.pick = pick;
	rm->ws.npick = np;
	rm->ws.pick_in_order = rm->ws.twins != NULL;
	err = share_conns(&rm->sv, &rm->ws, j->pat, j->nch, -1, true, 0, 0, NULL, rm->rate);
	rm->ws.pick = NULL;
	rm->ws.pick_in_order = false;
	for (size_t q = fs->from; !err && q < fs->to; q++) {
		uint32_t i = j->clk[q].conn;

		if (j->pat->pipes[j->pat->conns[i].pipe].shape != PIPE_RING)
			j->cr[i].fill = rm->rate[i];
	}
	free(pick);
	return err;
}

/* Whether solve @s picks the connection at clock position @q. */
static bool fill_picks(const struct fill_solve *s, const double *end, size_t q)
{
	return q >= s->a && q < s->b && end[q] > s->t;
}

/*
 * The fill shares along the clock @clk of every connection (by start) and
 * its groups @grp: each group's, for each hop of it, over the connections
 * whose slices' spans overlap its own (fill_sets), from the first whose
 * first slice starts after t - @spread - @hmax, the earliest a span ending
 * after t can start, to the window's far end (one span, one set). A wide
 * window's middle groups share one set, solved once (whole: a window
 * joins most of what it holds), and a set that moved by little keeps the
 * last one's, where it holds the group's own connections. Which sets are
 * solved does not depend on their rates: they are listed first, then
 * solved side by side (workers.h), each for the positions it serves.
 */
static int fill_shares(const struct solver *sv, struct share_ws *ws,
		       const struct plan_pattern *pat, unsigned nch, const struct conn_clock *clk,
		       size_t nc, const struct tau_group *grp, size_t ng, double spread,
		       double hmax, struct conn_rate *cr)
{
	struct fill_solve *solve = malloc((nc ? nc : 1) * sizeof(*solve));
	struct fill_sets fs = { 0 };
	struct room *rooms = NULL;
	unsigned nworkers = sv->nworkers;
	size_t ns = 0;
	int err = solve ? fill_sets_init(&fs, clk, nc, spread) : -ENOMEM;

	for (size_t k = 0, a = 0; !err && k < ng; k++) {
		size_t g = grp[k].g, end = grp[k].end;
		double t = clk[g].start, from = t - spread - hmax;

		while (a < g && clk[a].start <= from)
			a++;
		fill_sets_at(&fs, t);
		for (size_t j = g; j < end; j++) {
			if (j == g || clk[j].hop != clk[j - 1].hop || !fill_picks(&solve[ns - 1], fs.end, j)) {
				size_t b = fill_sets_until(&fs, end, t + spread + clk[j].hop), np = 0;

				if (!ns || !fill_set_near(&fs, b, t, FILL_SET_SLACK) ||
				    !fill_picks(&solve[ns - 1], fs.end, j)) {
					for (size_t m = a; m < b; m++)
						np += fs.end[m] > t;
					fill_set_solved(&fs, b, np);
					solve[ns++] = (struct fill_solve){ a, b, j, j, t };
				}
			}
			solve[ns - 1].to = j + 1;
		}
	}
	if (nworkers > ns)
		nworkers = ns ? (unsigned)ns : 1;
	if (!err)
		err = rooms_init(&rooms, nworkers, sv, pat, ws, NULL);
	if (!err) {
		struct fill_job job = { pat, nch, clk, fs.end, solve, rooms, cr };

		err = workers_run(nworkers, ns, fill_solve_task, &job);
	}
	rooms_destroy(rooms, nworkers, ws);
	fill_sets_destroy(&fs);
	free(solve);
	return err;
}

/*
 * The shares of time_rates, each connection's taken with the connections
 * that move at the same time as its first slice: for its tau (each
 * segment's), those whose first slice is in flight as its own starts;
 * for its fill share, those whose slices' spans (the first's start to
 * @spread later, the last's start, plus its hop) overlap its own.
 * Connections that start together are solved together, the groups' tau
 * solves side by side; those of twin sets (@tw, where found) a set at a
 * time, along the set's own clock (twin_taus_set).
 */
static int time_shares(const struct solver *sv, struct share_ws *ws,
		       const struct plan_pattern *pat, unsigned nch, const double *hop,
		       double spread, const struct twins *tw, struct conn_rate *cr)
{
	size_t n = pat->nconns ? pat->nconns : 1, nc = 0, nall = 0, ng = 0, nfg = 0;
	struct conn_clock *clk = malloc(n * sizeof(*clk)), *all = NULL;
	double *at = malloc(n * sizeof(*at));
	struct tau_group *grp = malloc(n * sizeof(*grp)), *fgrp = NULL;
	double hmax = 0, first = INFINITY, last = 0;
	unsigned nseg = 0;
	struct joined_ws jw = { 0 };
	struct room *rooms = NULL;
	unsigned nworkers = sv->nworkers;
	bool all_at_once;
	int err = 0;

	if (!clk || !at || !grp) {
		err = -ENOMEM;
		goto out;
	}
	err = longest_paths(pat, nch, hop, at, NULL);
	for (size_t i = 0; !err && i < pat->nconns; i++) {
		if (!conn_active(pat, &pat->conns[i], nch))
			continue;
		nall++;
		hmax = fmax(hmax, hop[i]);
		first = fmin(first, at[i]);
		last = fmax(last, at[i]);
		if (cr[i].nseg > nseg)
			nseg = cr[i].nseg;
		if (!tw || tw->slot[i] == TWIN_NONE)
			clk[nc++] = (struct conn_clock){ at[i], hop[i], (uint32_t)i };
	}
	if (err || !nall)
		goto out;
	/* every span overlapping every other: the steady shares (solve) */
	all_at_once = spread + hmax >= last - first;
	for (size_t i = 0; i < pat->nconns; i++)
		cr[i].fill = cr[i].rate;
	/* the fill shares' clock holds every connection, twins too */
	if (!all_at_once) {
		all = malloc(n * sizeof(*all));
		fgrp = malloc(n * sizeof(*fgrp));
		if (!all || !fgrp) {
			err = -ENOMEM;
			goto out;
		}
		nall = 0;
		for (size_t i = 0; i < pat->nconns; i++)
			if (conn_active(pat, &pat->conns[i], nch))
				all[nall++] = (struct conn_clock){ at[i], hop[i], (uint32_t)i };
		workers_sort(nworkers, (void **)&all, nall, sizeof(*all), conn_clock_cmp);
		nfg = tau_groups(all, nall, hmax, fgrp);
	}
	workers_sort(nworkers, (void **)&clk, nc, sizeof(*clk), conn_clock_cmp);
	ng = tau_groups(clk, nc, hmax, grp);
	err = joined_init(&jw, sv, pat, nseg, clk, nc);
	if (!err)
		err = rooms_init(&rooms, nworkers, sv, pat, ws, &jw);
	if (!err) {
		struct tau_job job = { pat, nch, nseg, clk, grp, ng, &jw, rooms, NULL, cr };

		if (tw && !(job.twins = twin_taus_begin(sv, pat, tw, nch, nseg, at, hop, hmax,
							rooms, nworkers, cr)))
			err = -ENOMEM;
		if (!err)
			err = workers_run(nworkers, ng + (tw ? tw->nsets : 0), tau_group, &job);
		twin_taus_end(job.twins);
	}
	rooms_destroy(rooms, nworkers, ws);
	rooms = NULL;
	if (!err && !all_at_once)
		err = fill_shares(sv, ws, pat, nch, all, nall, fgrp, nfg, spread, hmax, cr);
out:
	rooms_destroy(rooms, nworkers, ws);
	joined_destroy(&jw);
	free(fgrp);
	free(grp);
	free(all);
	free(at);
	free(clk);
	return err;
}

/* Whether @pat's pipes' connections follow one another, each once. */
static bool pipes_tile(const struct plan_pattern *pat)
{
	size_t next = 0;

	for (size_t i = 0; i < pat->npipes; i++) {
		if (pat->pipes[i].first_conn != next)
			return false;
		next += pat->pipes[i].nconns;
	}
	return next == pat->nconns;
}

/* Each chain's hops, a pipe a task (workers.h): each connection's time
 * to pass its first slice on (hop_time), and a filling pipe's pace. */
struct hops_job {
	const struct solver *sv;
	const struct plan_pattern *pat;
	const struct route_way *ways;
	const struct conn_rate *depth; /* copied into cr, a pipe's at a time */
	struct conn_rate *cr;
	unsigned nch;
	uint64_t bytes;
	double *hop;  /* per connection */
	double *pace; /* per pipe: its slowest filling connection's, or 0 */
};

static int pipe_hops(void *ctx, unsigned worker, size_t pipe)
{
	const struct hops_job *j = ctx;
	const struct plan_pattern *pat = j->pat;
	const struct plan_pipe *pp = &pat->pipes[pipe];
	double stream = plan_stream_cap(pat, pp, j->nch);
	struct plan_slicing s;
	bool filling;

	(void)worker;
	if (j->depth && pp->nconns)
		memcpy(&j->cr[pp->first_conn], &j->depth[pp->first_conn],
		       pp->nconns * sizeof(*j->cr));
	plan_slicing(j->sv->p, pat, pp, j->bytes, j->nch, &s);
	if (!s.active || pp->shape == PIPE_RING)
		return 0;
	filling = s.slices < pp->nhops;
	for (size_t k = pp->first_conn; k < pp->first_conn + pp->nconns; k++) {
		const struct plan_conn *c = &pat->conns[k];
		const struct route_way *w = &j->ways[c->route];
		double slice = plan_slice_bytes(c, &s, j->bytes);
		struct conn_time ct;

		conn_time(&j->cr[k], w, c, slice, s.slots, filling, stream, &ct);
		if (filling)
			j->pace[pipe] = fmax(j->pace[pipe],
					     pipeline_pace(s.slices, ct.period, ct.slot, s.slots));
		j->hop[k] = hop_time(&j->cr[k], w, pat, c, slice, s.slots, filling, stream, &ct);
	}
	return 0;
}

/*
 * A call's fill shares with its chains' connections told by time, not
 * depth (time_shares). The depth shares (rates_for) take every channel's
 * slice to be at the same depth at the same moment; but a broadcast's
 * channels run chains that differ (from the root one channel's ring goes
 * straight to the network, another's takes NVLink hops first), and a
 * chain's NVLink hops follow one another within one network hop's time.
 * From the depth shares, each connection's first slice starts when its
 * input's has crossed that input (latency + tau, the longest way in); a
 * chain's slices follow its first K - 1 periods of the slowest filling
 * connection apart. Channels in lockstep (a tree's) start together and
 * get the depth shares back. NULL with *@err set on failure; the caller
 * frees the rates.
 */
struct conn_rate *time_rates(const struct solver *sv, const struct plan_pattern *pat,
			     struct pattern_state *ps, const struct route_way *ways, unsigned nch,
			     uint32_t window, uint64_t bytes, const struct conn_rate *depth,
			     int *err)
{
	size_t n = pat->nconns ? pat->nconns : 1;
	struct conn_rate *cr = malloc(n * sizeof(*cr));
	double *hop = calloc(n, sizeof(*hop));
	struct share_ws ws = { 0 };

	*err = 0;
	if (!cr || !hop) {
		*err = -ENOMEM;
		goto out;
	}
	*err = share_ws_init(sv, pat, ps, nch, &ws);
	if (!*err && ps->twins.found) {
		ws.twins = &ps->twins;
		*err = twin_marks_init(&ws.tm, &ps->twins);
	}
	if (!*err) {
		/* the depth shares copied a pipe a task, where the pipes'
		 * connections follow one another, as algo_conn_via adds them */
		bool by_pipe = pipes_tile(pat);
		struct hops_job job = { sv, pat, ways, by_pipe ? depth : NULL, cr, nch, bytes, hop,
					calloc(pat->npipes ? pat->npipes : 1, sizeof(double)) };
		double period = 0;

		if (!by_pipe)
			memcpy(cr, depth, pat->nconns * sizeof(*cr));
		*err = job.pace ? workers_run(sv->nworkers, pat->npipes, pipe_hops, &job) : -ENOMEM;
		for (size_t i = 0; !*err && i < pat->npipes; i++)
			period = fmax(period, job.pace[i]);
		free(job.pace);
		/* nothing fills, or nothing takes time: the depths' */
		if (!*err && period > 0 && isfinite(period))
			*err = time_shares(sv, &ws, pat, nch, hop, window * period,
					   ps->twins.found ? &ps->twins : NULL, cr);
	}
out:
	share_ws_destroy(&ws);
	free(hop);
	if (*err) {
		free(cr);
		return NULL;
	}
	return cr;
}

/* How many phases either side of a chain's connection move slices with
 * it: one fewer than the chain's slices (solve_fill); NO_FILL where no
 * chain has fewer slices than hops. */
uint32_t fill_window(const struct plan *p, const struct plan_pattern *pat,
		     uint64_t bytes, unsigned nch)
{
	double slices = 0;
	bool filling = false;

	for (size_t i = 0; i < pat->npipes; i++) {
		const struct plan_pipe *pp = &pat->pipes[i];
		struct plan_slicing s;

		if (pp->shape == PIPE_RING)
			continue;
		plan_slicing(p, pat, pp, bytes, nch, &s);
		if (!s.active)
			continue;
		filling |= s.slices < pp->nhops;
		if (s.slices > slices)
			slices = s.slices;
	}
	if (!filling)
		return NO_FILL;
	return slices > 1 ? (uint32_t)ceil(slices) - 1 : 0;
}

