/* SPDX-License-Identifier: MIT */
/*
 * The analytic backend's depth shares, once a pattern and channel count
 * (rates_for): the steady shares, each segment's while a pipe fills (a
 * chain's connections phase by phase), the shares of routes that cut
 * through their segments, and a filling chain's over its window of
 * phases. Each solve is a task of its own, writing only its connections'
 * rates, and the tasks run side by side (workers.h): the figures are the
 * same on one thread or several.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analytic_internal.h"
#include "workers.h"

/* Each pipe's pace: the slowest rate per byte of volume among its
 * connections. */
static void pipe_pace(const struct plan_pattern *pat, const double *rate,
		      unsigned nch, double *pace)
{
	for (size_t i = 0; i < pat->npipes; i++)
		pace[i] = INFINITY;
	for (size_t i = 0; i < pat->nconns; i++) {
		const struct plan_conn *c = &pat->conns[i];

		if (conn_active(pat, c, nch) && c->volume > 0 &&
		    rate[i] / c->volume < pace[c->pipe])
			pace[c->pipe] = rate[i] / c->volume;
	}
}

static void phase_index_destroy(struct phase_index *px)
{
	free(px->start);
	free(px->order);
	free(px->phase);
	memset(px, 0, sizeof(*px));
}

/* The phases of a call on @nch channels, and their connections. */
static int phase_index_init(const struct plan_pattern *pat, unsigned nch,
			    struct phase_index *px)
{
	size_t n = pat->nconns ? pat->nconns : 1;
	int err;

	memset(px, 0, sizeof(*px));
	px->phase = malloc(n * sizeof(*px->phase));
	px->order = malloc(n * sizeof(*px->order));
	if (!px->phase || !px->order)
		return -ENOMEM;
	err = longest_paths(pat, nch, NULL, NULL, px->phase);
	px->nphases = 1;
	for (size_t i = 0; !err && i < pat->nconns; i++)
		if (px->phase[i] + 1 > px->nphases)
			px->nphases = px->phase[i] + 1;
	if (err)
		return err;
	px->start = calloc(px->nphases + 2, sizeof(*px->start));
	if (!px->start)
		return -ENOMEM;
	/* counted, then placed: a counting sort keeps each phase's order */
	for (size_t i = 0; i < pat->nconns; i++)
		px->start[px->phase[i] + 2]++;
	for (uint32_t p = 1; p <= px->nphases; p++)
		px->start[p + 1] += px->start[p];
	for (size_t i = 0; i < pat->nconns; i++)
		px->order[px->start[px->phase[i] + 1]++] = (uint32_t)i;
	return 0;
}

/* Whether phase @ph has a connection whose route cuts through segments. */
static bool phase_cuts_segments(const struct phase_index *px, const struct plan_pattern *pat,
				uint32_t ph)
{
	for (size_t j = px->start[ph]; j < px->start[ph + 1]; j++)
		if (route_cuts_segments(&pat->routes[pat->conns[px->order[j]].route]))
			return true;
	return false;
}

/*
 * Whether phase @ph's window [@new_lo, @new_hi] must be solved anew, the
 * last solve's being [@lo, @hi]: where @ph was not in it, or the two
 * differ by more than FILL_WINDOW_SLACK of its connections.
 */
static bool window_moved(const struct phase_index *px, uint32_t ph, uint32_t lo, uint32_t hi,
			 uint32_t new_lo, uint32_t new_hi)
{
	size_t was = px->start[hi + 1] - px->start[lo];
	size_t off_lo = lo < new_lo ? px->start[new_lo] - px->start[lo] :
				      px->start[lo] - px->start[new_lo];
	size_t off_hi = hi < new_hi ? px->start[new_hi + 1] - px->start[hi + 1] :
				      px->start[hi + 1] - px->start[new_hi + 1];

	if (new_lo == lo && new_hi == hi)
		return false;
	return ph < lo || ph > hi || (double)(off_lo + off_hi) > FILL_WINDOW_SLACK * (double)was;
}

enum depth_kind {
	DEPTH_OWN,    /* every connection, all its segments busy (first
		       * round: the steady shares before the pipes' pace) */
	DEPTH_CUT,    /* phase ph's routes that cut through their segments */
	DEPTH_SEG,    /* phase ph's connections through segment seg */
	DEPTH_STEADY, /* second round: DEPTH_OWN's held to each pipe's pace */
	DEPTH_FILL,   /* a window of phases [lo, hi], for phases [ph, ph_end) */
};

struct depth_task {
	enum depth_kind kind;
	uint32_t ph, ph_end, lo, hi;
	unsigned seg;
	unsigned parts; /* DEPTH_OWN and DEPTH_STEADY: which of a solve's
			 * parts (SHARE_TWINS, SHARE_OTHERS; 0 both) */
};

struct depth_job {
	const struct plan_pattern *pat;
	unsigned nch;
	struct room *rooms;
	const double *cut_cap; /* conn_cap's, the stream's limit aside */
	const struct depth_task *task;
	double *own;           /* DEPTH_OWN's, per connection */
	uint32_t others_lo, others_hi; /* the phases of the connections
				       * outside twin sets; lo > hi: none */
	bool others_known;     /* DEPTH_OWN's rates stand for theirs in a
				* window that holds those phases */
	struct conn_rate *cr;
};

/* How many segments a route's stages span. */
static unsigned route_nseg(const struct plan_route *r)
{
	return r->nstages ? r->stages[r->nstages - 1].segment + 1 : 0;
}

/* The steady shares' second round: each connection held to its pipe's
 * pace, the slowest of its connections per byte of volume in the first
 * (DEPTH_OWN); of the twin sets or of the others, with @parts. */
static int steady(struct room *rm, const struct plan_pattern *pat, unsigned nch,
		  const double *own, unsigned parts, struct conn_rate *cr)
{
	const struct twins *tw = rm->ws.twins;
	double *pace = calloc(pat->npipes ? pat->npipes : 1, sizeof(*pace));
	int err = pace ? 0 : -ENOMEM;

	if (!err) {
		pipe_pace(pat, own, nch, pace);
		rm->ws.parts = parts;
		err = share_conns(&rm->sv, &rm->ws, pat, nch, -1, false, 0, 0, pace, rm->rate);
		rm->ws.parts = 0;
	}
	for (size_t i = 0; !err && i < pat->nconns; i++) {
		const struct plan_conn *c = &pat->conns[i];

		if (parts && (tw->slot[i] != TWIN_NONE) != (parts == SHARE_TWINS))
			continue; /* the other task's */
		cr[i].rate = rm->rate[i];
		cr[i].held = own[i] > pace[c->pipe] * c->volume * (1 + SAME_PACE);
		cr[i].nseg = route_nseg(&pat->routes[c->route]);
	}
	free(pace);
	return err;
}

static int depth_task(void *ctx, unsigned worker, size_t task)
{
	const struct depth_job *job = ctx;
	const struct depth_task *t = &job->task[task];
	const struct plan_pattern *pat = job->pat;
	struct room *rm = &job->rooms[worker];
	const struct phase_index *px = rm->ws.px;
	struct conn_rate *cr = job->cr;
	double *rate = rm->rate, *stream_capped = rm->ws.cap;
	int err = -EINVAL;

	switch (t->kind) {
	case DEPTH_OWN:
		rm->ws.parts = t->parts;
		err = share_conns(&rm->sv, &rm->ws, pat, job->nch, -1, false, 0, 0, NULL,
				  job->own);
		rm->ws.parts = 0;
		break;
	case DEPTH_STEADY:
		return steady(rm, pat, job->nch, job->own, t->parts, cr);
	case DEPTH_SEG:
		/* while a pipe fills, a slice's segments take turns, and only
		 * the connections of its phase move with it */
		err = share_conns(&rm->sv, &rm->ws, pat, job->nch, (int)t->seg, true, t->ph, t->ph,
				  NULL, rate);
		for (size_t j = px->start[t->ph]; !err && j < px->start[t->ph + 1]; j++) {
			uint32_t i = px->order[j];

			if (t->seg < route_nseg(&pat->routes[pat->conns[i].route]))
				cr[i].seg_bw[t->seg] = rate[i];
		}
		break;
	case DEPTH_CUT:
		rm->ws.cap = (double *)job->cut_cap; /* read only */
		err = share_conns(&rm->sv, &rm->ws, pat, job->nch, -1, true, t->ph, t->ph, NULL,
				  rate);
		rm->ws.cap = stream_capped;
		for (size_t j = px->start[t->ph]; !err && j < px->start[t->ph + 1]; j++) {
			uint32_t i = px->order[j];

			if (route_cuts_segments(&pat->routes[pat->conns[i].route]))
				cr[i].cut_rate = rate[i];
		}
		break;
	case DEPTH_FILL:
		/* a window that holds every phase of the connections outside
		 * twin sets selects them all, as DEPTH_OWN did, at the same
		 * caps: theirs are its */
		if (job->others_known && t->lo <= job->others_lo && t->hi >= job->others_hi)
			rm->ws.known = job->own;
		err = share_conns(&rm->sv, &rm->ws, pat, job->nch, -1, true, t->lo, t->hi, NULL,
				  rate);
		rm->ws.known = NULL;
		for (size_t j = px->start[t->ph]; !err && j < px->start[t->ph_end]; j++) {
			uint32_t i = px->order[j];

			if (pat->pipes[pat->conns[i].pipe].shape != PIPE_RING)
				cr[i].fill = rate[i];
		}
		break;
	}
	return err;
}

/*
 * A chain of fewer slices than phases has a slice at @window phases
 * either side of a connection's while it moves its own: those move with
 * it, through all their segments. The channels being alike, every
 * channel's slices are at the same depths, so the connections that share
 * a NIC or a host's memory across channels all move at once: a chain's
 * hops taking turns frees nothing there. Phase ph's window is
 * [ph - window, ph + window], clamped at the chain's ends; a wide window's
 * middle phases share one set, solved once, and a window that moved by
 * little keeps the last one's. None where a window would hold every
 * phase: the steady shares.
 */
static void fill_tasks(const struct phase_index *px, uint32_t window, struct depth_task *t,
		       size_t *n)
{
	uint32_t nphases = px->nphases;

	for (uint32_t ph = 0, lo = 0, hi = 0; window + 1 < nphases && ph < nphases; ph++) {
		uint32_t new_lo = ph > window ? ph - window : 0;
		uint32_t new_hi = ph + window < nphases ? ph + window : nphases - 1;

		if (!ph || window_moved(px, ph, lo, hi, new_lo, new_hi)) {
			t[(*n)++] = (struct depth_task){ DEPTH_FILL, ph, ph, new_lo, new_hi, 0, 0 };
			lo = new_lo;
			hi = new_hi;
		}
		t[*n - 1].ph_end = ph + 1;
	}
}

/*
 * The shares of the connections whose routes cut through several segments
 * (route_cuts_segments), as a slice crosses them all at once: with the
 * connections of its phase (those that move with it: a ring's are all
 * one phase, a chain's slices its depth's), every segment busy, as the
 * steady solve shares them but without the stream's limit, which paces
 * when slices leave, not how fast one crosses its links (an LL stream at
 * NCCL's LL bandwidth would land a 16 KiB slice through SHM at that
 * bandwidth). A solve a phase that holds such a route; none elsewhere.
 */
static int cut_tasks(const struct plan_pattern *pat, const struct share_ws *ws, unsigned nch,
		     struct depth_task *t, size_t *n, double **cut_cap)
{
	const struct phase_index *px = ws->px;
	bool any = false;

	for (size_t i = 0; i < pat->nroutes && !any; i++)
		any = route_cuts_segments(&pat->routes[i]);
	if (!any)
		return 0;
	*cut_cap = malloc((pat->nconns ? pat->nconns : 1) * sizeof(**cut_cap));
	if (!*cut_cap)
		return -ENOMEM;
	for (size_t i = 0; i < pat->nconns; i++)
		(*cut_cap)[i] = conn_cap(pat, &pat->conns[i], nch, ws->links->private_cap[i]);
	for (uint32_t ph = 0; ph < px->nphases; ph++)
		if (phase_cuts_segments(px, pat, ph))
			t[(*n)++] = (struct depth_task){ DEPTH_CUT, ph, ph + 1, ph, ph, 0, 0 };
	return 0;
}

/*
 * @cr's shares on @nch channels: every solve, or with @same_nch (the
 * rates of another window on as many channels) only the fill solves. The
 * largest solves are listed first, so that the workers end together.
 */
static int depth_shares(const struct solver *sv, struct share_ws *ws,
			const struct plan_pattern *pat, unsigned nch, uint32_t window,
			const struct conn_rate *same_nch, struct conn_rate *cr)
{
	const struct phase_index *px = ws->px;
	const struct twins *tw = ws->twins;
	unsigned nseg = 0, nworkers = sv->nworkers;
	size_t n = 0, first_round, most = 2 * (size_t)px->nphases + 4;
	struct depth_job job = { .pat = pat, .nch = nch, .cr = cr,
				 .others_lo = UINT32_MAX, .others_hi = 0 };
	struct depth_task *t;
	double *cut_cap = NULL;
	struct room *rooms = NULL;
	int err = 0;

	if (same_nch)
		memcpy(cr, same_nch, pat->nconns * sizeof(*cr));
	/* each connection's segments are set with its steady share
	 * (steady), in the second round: written there first, the rates'
	 * pages are faulted in by a worker */
	for (size_t r = 0; r < pat->nroutes; r++)
		if (route_nseg(&pat->routes[r]) > nseg)
			nseg = route_nseg(&pat->routes[r]);
	for (size_t i = 0; tw && !same_nch && i < pat->nconns; i++) {
		if (tw->slot[i] == TWIN_NONE && conn_active(pat, &pat->conns[i], nch)) {
			job.others_lo = px->phase[i] < job.others_lo ? px->phase[i] : job.others_lo;
			job.others_hi = px->phase[i] > job.others_hi ? px->phase[i] : job.others_hi;
		}
	}
	most += (size_t)px->nphases * nseg;
	t = malloc(most * sizeof(*t));
	if (!same_nch)
		job.own = malloc((pat->nconns ? pat->nconns : 1) * sizeof(*job.own));
	if (!t || (!same_nch && !job.own)) {
		err = -ENOMEM;
		goto out;
	}
	/* first round: the steady shares before the pace, and each phase's;
	 * second: the steady shares at the pace and the fill windows, which
	 * may take the first's for the connections outside twin sets */
	/* with twins, a steady solve's two parts are two tasks */
	if (!same_nch && tw) {
		t[n++] = (struct depth_task){ DEPTH_OWN, 0, 0, 0, 0, 0, SHARE_OTHERS };
		t[n++] = (struct depth_task){ DEPTH_OWN, 0, 0, 0, 0, 0, SHARE_TWINS };
	} else if (!same_nch) {
		t[n++] = (struct depth_task){ DEPTH_OWN, 0, 0, 0, 0, 0, 0 };
	}
	if (!same_nch) {
		err = cut_tasks(pat, ws, nch, t, &n, &cut_cap);
		for (uint32_t ph = 0; ph < px->nphases; ph++)
			for (unsigned k = 0; k < nseg; k++)
				t[n++] = (struct depth_task){ DEPTH_SEG, ph, ph + 1, ph, ph, k, 0 };
	}
	first_round = n;
	if (!same_nch && tw) {
		t[n++] = (struct depth_task){ DEPTH_STEADY, 0, 0, 0, 0, 0, SHARE_OTHERS };
		t[n++] = (struct depth_task){ DEPTH_STEADY, 0, 0, 0, 0, 0, SHARE_TWINS };
	} else if (!same_nch) {
		t[n++] = (struct depth_task){ DEPTH_STEADY, 0, 0, 0, 0, 0, 0 };
	}
	if (window != NO_FILL)
		fill_tasks(px, window, t, &n);
	job.others_known = tw && !same_nch;
	if (nworkers > n)
		nworkers = n ? (unsigned)n : 1;
	if (!err)
		err = rooms_init(&rooms, nworkers, sv, pat, ws, NULL);
	job.rooms = rooms;
	job.cut_cap = cut_cap;
	job.task = t;
	if (!err)
		err = workers_run(nworkers, first_round, depth_task, &job);
	job.task = t + first_round;
	if (!err)
		err = workers_run(nworkers, n - first_round, depth_task, &job);
	/* a ring's connections, and every one where no window was solved,
	 * move with all the others: the steady shares */
	for (size_t i = 0; !err && i < pat->nconns; i++)
		if (window == NO_FILL || n == first_round || t[n - 1].kind != DEPTH_FILL ||
		    pat->pipes[pat->conns[i].pipe].shape == PIPE_RING)
			cr[i].fill = cr[i].rate;
out:
	rooms_destroy(rooms, nworkers, ws);
	free(job.own);
	free(cut_cap);
	free(t);
	return err;
}

/* What rates_for finds before its solves, side by side: the call's
 * phases, and the pattern's twin sets the first time. */
struct prep_job {
	const struct solver *sv;
	const struct plan_pattern *pat;
	struct pattern_state *ps;
	const struct conn_links *links;
	unsigned nch;
	struct phase_index *px;
};

static int prep_task(void *ctx, unsigned worker, size_t task)
{
	const struct prep_job *j = ctx;

	(void)worker;
	if (!task)
		return phase_index_init(j->pat, j->nch, j->px);
	return twins_build(j->sv, j->pat, j->links, &j->ps->twins);
}

const struct conn_rate *rates_for(const struct solver *sv,
				  const struct plan_pattern *pat,
				  struct pattern_state *ps, unsigned nch,
				  uint32_t window, int *err)
{
	const struct rates *same_nch = NULL;
	size_t same = SIZE_MAX; /* ps->r's index of the rates of nch, if any */
	struct phase_index px = { 0 };
	struct share_ws ws = { .px = &px };
	struct rates *nr;

	for (size_t i = 0; i < ps->nr; i++)
		if (ps->r[i].nchannels == nch) {
			if (window == NO_FILL || ps->r[i].window == window)
				return ps->r[i].c;
			same = i;
		}
	nr = realloc(ps->r, (ps->nr + 1) * sizeof(*nr));
	if (!nr) {
		*err = -ENOMEM;
		return NULL;
	}
	if (same != SIZE_MAX)
		same_nch = &nr[same];
	ps->r = nr;
	nr = &ps->r[ps->nr];
	nr->nchannels = nch;
	nr->window = window;
	nr->c = calloc(pat->nconns ? pat->nconns : 1, sizeof(*nr->c));
	if (!nr->c) {
		*err = -ENOMEM;
		return NULL;
	}
	ps->nr++;
	*err = share_ws_init(sv, pat, ps, nch, &ws);
	if (!*err) {
		struct prep_job job = { sv, pat, ps, ws.links, nch, &px };

		*err = workers_run(sv->nworkers, !ps->twins.found && !sv->every_conn ? 2 : 1,
				   prep_task, &job);
	}
	if (!*err && ps->twins.found) {
		ws.twins = &ps->twins;
		*err = twin_marks_init(&ws.tm, &ps->twins);
	}
	/* The steady and per-segment shares do not depend on the window. */
	if (!*err)
		*err = depth_shares(sv, &ws, pat, nch, window, same_nch ? same_nch->c : NULL,
				    nr->c);
	share_ws_destroy(&ws);
	phase_index_destroy(&px);
	return *err ? NULL : nr->c;
}
