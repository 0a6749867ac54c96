/* SPDX-License-Identifier: MIT */
/*
 * The analytic backend: every collective in closed form.
 *
 * The connections of the channels a call uses run at once and share the
 * links max-min fairly (maxmin.h), each link use weighted by the
 * protocol's bytes on the wire per payload byte. A pipe cannot run faster
 * than its slowest connection, so a second pass caps every connection at
 * its pipe's pace and lets others take what that frees. Each pipe is then
 * timed in closed form (pipeline.h) and the collective ends with its
 * slowest pipe, after NCCL's launch latency. Rates depend on the pattern
 * and the channel count only: they are solved once per pair; a chain of
 * fewer slices than hops then takes its fill shares by the time its
 * slices move (time_shares), once per call size.
 */
#include "analytic.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "array_grow.h"
#include "maxmin.h"
#include "pipeline.h"

/* How a connection's slots turn over (pipeline_slot_period). */
struct slot_fifos {
	bool proxy;                  /* NCCL's proxy's two FIFOs
				      * (plan_route_proxy_fifos); else one */
	unsigned send_last, recv_first;
	double credit_trip;          /* a slice landing and its credit back */
};

static void slot_fifos_of(const struct plan *p, const struct plan_pattern *pat,
			  const struct plan_conn *c, struct slot_fifos *f)
{
	const struct plan_route *r = &pat->routes[c->route];

	f->proxy = plan_route_proxy_fifos(p, r, &f->send_last, &f->recv_first);
	f->credit_trip = pipeline_credit_trip(r->latency, c->latency, f->proxy);
}

/* What sharing leaves one connection, in payload bytes/s. */
struct conn_rate {
	double rate;                       /* all its segments busy at once */
	double seg_bw[PLAN_MAX_STAGES];    /* per segment, competing only with
					    * the same segment of the others
					    * (while slices fill the pipe) */
	double seg_ovh[PLAN_MAX_STAGES];   /* per-slice work per segment */
	double fill;                       /* while a chain has fewer slices
					    * than phases: shared with the
					    * connections of the phases its
					    * slices overlap (solve_fill) */
	unsigned nseg;
	struct slot_fifos fifos;           /* how its slots turn over */
};

struct rates {
	unsigned nchannels;
	uint32_t window;     /* phases either side moving at once
			      * (solve_fill), or NO_FILL */
	struct conn_rate *c; /* per connection of the pattern */
};

/* A call timed: a trace's buckets come back in turn, a few sizes each. */
struct timed {
	uint64_t bytes;
	unsigned nch;
	struct coll_record rec;
};

#define TIMED_MAX 16 /* calls remembered a pattern, the oldest replaced */

/*
 * Every connection's links through all its segments (conn_uses, seg -1),
 * found once a pattern: the steady and the fill shares and the busiest
 * link all read them, call after call.
 */
struct conn_links {
	struct maxmin_use *uses; /* weighted per byte of volume, as share()
				  * weighs them */
	double *weight;          /* each use's weight per payload byte, as
				  * conn_uses gives it (busiest_link) */
	size_t *first;           /* nconns + 1: connection i's uses are
				  * uses[first[i]] .. uses[first[i + 1] - 1];
				  * NULL until found */
	double *private_cap;     /* per connection, conn_uses' */
};

struct pattern_state {
	struct rates *r;     /* solved channel counts */
	size_t nr;
	struct conn_links links;
	struct timed timed[TIMED_MAX];
	unsigned ntimed, next_timed;
};

struct solver {
	const struct plan *p;
	const double *cap;
	size_t nres;
	struct maxmin_ws *mm; /* analytic_run's, for every solve of the run */
};

/* The switches' links @c's wire stage crosses, when it is in segment
 * @seg (-1: any), added to @out's @n. */
static unsigned add_fabric(const struct plan *p, const struct plan_pattern *pat,
			   const struct plan_conn *c, int seg, double w,
			   struct maxmin_use *out, unsigned n)
{
	const struct plan_route *r = &pat->routes[c->route];
	int wire = plan_route_wire(r);
	uint32_t ids[FABRIC_PATH_MAX];
	unsigned k;

	if (wire < 0 || (seg >= 0 && r->stages[wire].segment != (unsigned)seg))
		return n;
	k = plan_conn_fabric(p, pat, c, ids);
	for (unsigned i = 0; i < k; i++)
		out[n++] = (struct maxmin_use){ ids[i], w };
	return n;
}

/* The links of conn @c's stages of segment @seg (all of them for -1),
 * merged, weighted; returns how many. */
static unsigned conn_uses(const struct plan *p, const struct plan_pattern *pat,
			  const struct plan_conn *c, int seg, double *private_cap,
			  struct maxmin_use *out)
{
	const struct plan_route *r = &pat->routes[c->route];
	const struct plan_pipe *pp = &pat->pipes[c->pipe];
	double w = proto_get(pat->proto)->wire_ratio / pp->efficiency;
	unsigned src = plan_node_of(p, c->src_rank), dst = plan_node_of(p, c->dst_rank);
	unsigned n = 0;

	*private_cap = INFINITY;
	for (unsigned s = 0; s < r->nstages; s++) {
		const struct plan_stage *st = &r->stages[s];

		if (seg >= 0 && st->segment != (unsigned)seg)
			continue;
		if (st->private_cap < *private_cap)
			*private_cap = st->private_cap;
		for (unsigned u = st->first_use; u < st->first_use + st->nuses; u++) {
			uint32_t id = plan_use_id(p, &r->uses[u], src, dst);
			unsigned j;

			for (j = 0; j < n && out[j].resource != id; j++)
				;
			if (j == n)
				out[n++] = (struct maxmin_use){ id, 0 };
			out[j].weight += r->uses[u].weight * w;
		}
	}
	n = add_fabric(p, pat, c, seg, w, out, n);
	return n;
}

/* A connection's own limits: its copy engine, its channel's threads, its
 * share of the call's whole limit. */
static double conn_cap(const struct plan_pattern *pat, const struct plan_conn *c,
		       unsigned nch, double private_cap)
{
	double cap = private_cap, pc = pat->pipes[c->pipe].conn_cap;

	if (pc < cap)
		cap = pc;
	if (isfinite(pat->total_cap) && pat->total_cap / nch < cap)
		cap = pat->total_cap / nch;
	return cap;
}

static bool conn_active(const struct plan_pattern *pat, const struct plan_conn *c,
			unsigned nch)
{
	return pat->pipes[c->pipe].channel < nch;
}

static void conn_links_destroy(struct conn_links *l)
{
	free(l->private_cap);
	free(l->first);
	free(l->weight);
	free(l->uses);
	memset(l, 0, sizeof(*l));
}

/*
 * Shared in pace, bytes per byte of volume: a pipe's slices cross all its
 * connections, so they move at one pace and each connection's rate is
 * that pace times its volume. Fair shares of rate would starve a pipe's
 * big connections (PAT's last round carries half the data, its first 1/n).
 */
static void per_volume(const struct plan_conn *c, struct maxmin_use *u, unsigned k)
{
	if (c->volume > 0)
		for (unsigned i = 0; i < k; i++)
			u[i].weight *= c->volume;
}

/* Room for @need uses in @l, which has *@room. */
static int conn_links_grow(struct conn_links *l, size_t need, size_t *room)
{
	while (need > *room) {
		size_t nr = *room ? 2 * *room : 1024;
		struct maxmin_use *u = realloc(l->uses, nr * sizeof(*u));
		double *w;

		if (!u)
			return -ENOMEM;
		l->uses = u;
		w = realloc(l->weight, nr * sizeof(*w));
		if (!w)
			return -ENOMEM;
		l->weight = w;
		*room = nr;
	}
	return 0;
}

/* @ps's links, found the first time they are asked for; NULL on -ENOMEM. */
static const struct conn_links *links_for(const struct solver *sv,
					  const struct plan_pattern *pat,
					  struct pattern_state *ps, int *err)
{
	struct conn_links *l = &ps->links;
	size_t n = pat->nconns ? pat->nconns : 1, at = 0, room = 0;
	struct maxmin_use tmp[PLAN_MAX_USES + FABRIC_PATH_MAX];

	if (l->first)
		return l;
	l->first = malloc((pat->nconns + 1) * sizeof(*l->first));
	l->private_cap = malloc(n * sizeof(*l->private_cap));
	if (!l->first || !l->private_cap || conn_links_grow(l, 1, &room))
		goto fail;
	for (size_t i = 0; i < pat->nconns; i++) {
		const struct plan_conn *c = &pat->conns[i];
		unsigned k = conn_uses(sv->p, pat, c, -1, &l->private_cap[i], tmp);

		if (conn_links_grow(l, at + k, &room))
			goto fail;
		for (unsigned u = 0; u < k; u++)
			l->weight[at + u] = tmp[u].weight;
		per_volume(c, tmp, k);
		if (k)
			memcpy(l->uses + at, tmp, k * sizeof(*tmp));
		l->first[i] = at;
		at += k;
	}
	l->first[pat->nconns] = at;
	return l;
fail:
	conn_links_destroy(l);
	*err = -ENOMEM;
	return NULL;
}

/*
 * Phases: which connections move at once while a pipe fills (phases()),
 * and each phase's connections in order, for the solves of one phase.
 */
struct phase_index {
	uint32_t *phase;  /* per connection */
	uint32_t nphases;
	uint32_t *order;  /* every connection, phase by phase, each phase's
			   * in order */
	size_t *start;    /* nphases + 1: phase p's are order[start[p]] ..
			   * order[start[p + 1] - 1] */
};

/*
 * What share() needs from one solve to the next of a call's rates
 * (rates_for owns it): the pattern's links and phases, and room for one
 * solve's flows. A solve takes only the connections it shares among, in
 * their order: maxmin_solve gives them the same rates as with the others
 * there at a cap of 0, as they were until 2026-12-02, which froze at 0
 * before anything moved.
 */
struct share_ws {
	const struct conn_links *links; /* the pattern's (pattern_state) */
	const struct phase_index *px;   /* rates_for's */
	double *cap;                    /* nconns: each connection's limits
					 * through all its segments, the
					 * stream's included (conn_cap) */
	struct maxmin_flow *flows;      /* nconns: one solve's */
	uint32_t *conn;                 /* nconns: each flow's connection */
	struct maxmin_use *pool;        /* one segment's links (seg >= 0) */
	size_t room;                    /* of pool */
	const uint32_t *pick;           /* with @by_phase: these connections
					 * instead of phases' (time_shares) */
	size_t npick;
};

/* The connections of phases @lo to @hi (all with @all), in order, into
 * @out; returns how many. */
static size_t select_conns(const struct phase_index *px, size_t nconns, bool all,
			   uint32_t lo, uint32_t hi, uint32_t *out)
{
	size_t n = 0;

	if (all) {
		for (size_t i = 0; i < nconns; i++)
			out[n++] = (uint32_t)i;
	} else if (lo == hi) {
		n = px->start[lo + 1] - px->start[lo];
		memcpy(out, px->order + px->start[lo], n * sizeof(*out));
	} else {
		for (size_t i = 0; i < nconns; i++)
			if (px->phase[i] >= lo && px->phase[i] <= hi)
				out[n++] = (uint32_t)i;
	}
	return n;
}

/*
 * Max-min over the active connections, restricted to segment @seg (-1:
 * all) and, with @by_phase, to the connections of phases @lo to @hi. With
 * @pace, each connection is first capped at its pipe's pace from @pace[]
 * (payload bytes/s per byte of volume). A connection of a channel the call
 * leaves out gets 0.
 */
static int share(const struct solver *sv, struct share_ws *ws,
		 const struct plan_pattern *pat, unsigned nch, int seg, bool by_phase,
		 uint32_t lo, uint32_t hi, const double *pace, double *rate)
{
	struct maxmin_use tmp[PLAN_MAX_USES + FABRIC_PATH_MAX];
	const struct conn_links *l = ws->links;
	struct maxmin_flow *flows = ws->flows;
	size_t nsel, nf = 0, at = 0;
	int err;

	if (by_phase && ws->pick) {
		nsel = ws->npick;
		memcpy(ws->conn, ws->pick, nsel * sizeof(*ws->conn));
	} else {
		nsel = select_conns(ws->px, pat->nconns, !by_phase, lo, hi, ws->conn);
	}

	/* ws->conn[nf] is written once ws->conn[j] (j >= nf) is read */
	for (size_t j = 0; j < nsel; j++) {
		size_t i = ws->conn[j];
		const struct plan_conn *c = &pat->conns[i];
		struct maxmin_flow *f = &flows[nf];

		if (!conn_active(pat, c, nch)) {
			rate[i] = 0;
			continue;
		}
		if (seg < 0) {
			f->uses = l->uses + l->first[i];
			f->nuses = (unsigned)(l->first[i + 1] - l->first[i]);
			f->cap = ws->cap[i]; /* the stream's limits too */
		} else {
			double pcap;
			unsigned k = conn_uses(sv->p, pat, c, seg, &pcap, tmp);

			while (at + k > ws->room)
				if (array_grow((void **)&ws->pool, ws->room, &ws->room,
					       sizeof(*ws->pool)))
					return -ENOMEM;
			per_volume(c, tmp, k);
			if (k)
				memcpy(ws->pool + at, tmp, k * sizeof(*tmp));
			f->uses = NULL; /* set once the pool has stopped moving */
			f->nuses = k;
			f->cap = conn_cap(pat, c, nch, pcap);
			at += k;
		}
		if (pace && pace[c->pipe] * c->volume < f->cap)
			f->cap = pace[c->pipe] * c->volume;
		if (c->volume > 0)
			f->cap /= c->volume;
		ws->conn[nf++] = (uint32_t)i;
	}
	if (seg >= 0)
		for (size_t j = 0, u = 0; j < nf; j++) {
			flows[j].uses = flows[j].nuses ? ws->pool + u : NULL;
			u += flows[j].nuses;
		}
	err = maxmin_ws_solve(sv->mm, sv->cap, flows, nf);
	for (size_t j = 0; !err && j < nf; j++) {
		const struct plan_conn *c = &pat->conns[ws->conn[j]];

		rate[ws->conn[j]] = flows[j].nuses || isfinite(flows[j].cap) ?
					    flows[j].rate * (c->volume > 0 ? c->volume : 1) :
					    INFINITY;
	}
	return err;
}

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

/*
 * Phases: which connections move at once while a pipe fills. A ring's
 * connections all start at once (every rank has a chunk of its own), so
 * they are one phase. A chain's slice crosses its hops one after another
 * and, the channels being alike, every channel's slice is at the same
 * depth at the same time: a connection's phase is its depth in the
 * dependency graph (sources 0, then one more than its deepest input).
 * Depth first, each connection once (passes over them all until nothing
 * moved took a dozen at 1024 nodes; the depths are the same).
 */
struct phase_walk {
	uint32_t conn; /* a connection on the way down its inputs */
	unsigned next; /* how many of its inputs are done */
};

/*
 * The longest ways to each connection of a chain through its inputs: its
 * depth, @phase[i], one more than its deepest input's, or its time,
 * @at[i], the most over its inputs of their own plus the input's @w[]
 * (whichever of @phase and @at is not NULL). Sources, rings' connections
 * and a left-out channel's are at 0, and so end a chain.
 */
static int longest_paths(const struct plan_pattern *pat, unsigned nch, const double *w,
			 double *at, uint32_t *phase)
{
	/* per connection: 0 not reached, 1 its inputs being found, 2 done */
	uint8_t *state = calloc(pat->nconns ? pat->nconns : 1, sizeof(*state));
	struct phase_walk *stack;
	size_t depth = 0;
	int err = 0;

	stack = malloc((pat->nconns ? pat->nconns : 1) * sizeof(*stack));
	if (!state || !stack) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < pat->nconns; i++) {
		const struct plan_conn *c = &pat->conns[i];

		if (at)
			at[i] = 0;
		if (phase)
			phase[i] = 0;
		if (!conn_active(pat, c, nch) || pat->pipes[c->pipe].shape == PIPE_RING)
			state[i] = 2;
	}
	for (size_t i = 0; i < pat->nconns && !err; i++) {
		if (state[i])
			continue;
		state[i] = 1;
		stack[depth++] = (struct phase_walk){ (uint32_t)i, 0 };
		while (depth && !err) {
			uint32_t t = stack[depth - 1].conn;
			const struct plan_conn *c = &pat->conns[t];
			unsigned d = stack[depth - 1].next;

			if (d < c->ndeps) {
				uint32_t in = c->deps[d];

				if (state[in] == 1) {
					err = -ELOOP; /* a chain with a cycle: a bad plan */
				} else if (state[in] == 0) {
					state[in] = 1;
					stack[depth++] = (struct phase_walk){ in, 0 };
				} else {
					if (at && at[in] + w[in] > at[t])
						at[t] = at[in] + w[in];
					if (phase && phase[in] + 1 > phase[t])
						phase[t] = phase[in] + 1;
					stack[depth - 1].next++;
				}
				continue;
			}
			state[t] = 2;
			depth--;
		}
	}
out:
	free(stack);
	free(state);
	return err;
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

/* fill_window's answer where no chain has fewer slices than hops. */
#define NO_FILL UINT32_MAX

/* The steady shares, and each segment's while a pipe fills. */
static int solve(const struct solver *sv, struct share_ws *ws,
		 const struct plan_pattern *pat, unsigned nch, struct conn_rate *cr)
{
	const struct phase_index *px = ws->px;
	size_t n = pat->nconns ? pat->nconns : 1;
	double *rate = calloc(n, sizeof(*rate));
	double *pace = calloc(pat->npipes ? pat->npipes : 1, sizeof(*pace));
	unsigned nseg = 0;
	int err = -ENOMEM;

	if (!rate || !pace)
		goto out;
	err = share(sv, ws, pat, nch, -1, false, 0, 0, NULL, rate);
	if (!err) {
		pipe_pace(pat, rate, nch, pace);
		err = share(sv, ws, pat, nch, -1, false, 0, 0, pace, rate);
	}
	for (size_t i = 0; !err && i < pat->nconns; i++) {
		const struct plan_route *r = &pat->routes[pat->conns[i].route];

		cr[i].rate = rate[i];
		slot_fifos_of(sv->p, pat, &pat->conns[i], &cr[i].fifos);
		cr[i].nseg = r->nstages ? r->stages[r->nstages - 1].segment + 1 : 0;
		if (cr[i].nseg > nseg)
			nseg = cr[i].nseg;
		for (unsigned s = 0; s < r->nstages; s++)
			cr[i].seg_ovh[r->stages[s].segment] += r->stages[s].chunk_overhead;
	}
	/* While a pipe fills, a slice's segments take turns, and only the
	 * connections of its phase move with it. */
	for (uint32_t ph = 0; !err && ph < px->nphases; ph++)
		for (unsigned k = 0; !err && k < nseg; k++) {
			err = share(sv, ws, pat, nch, (int)k, true, ph, ph, NULL, rate);
			for (size_t j = px->start[ph]; !err && j < px->start[ph + 1]; j++)
				if (k < cr[px->order[j]].nseg)
					cr[px->order[j]].seg_bw[k] = rate[px->order[j]];
		}
	for (size_t i = 0; !err && i < pat->nconns; i++)
		cr[i].fill = cr[i].rate;
out:
	free(pace);
	free(rate);
	return err;
}

/*
 * A chain of fewer slices than phases has a slice at @window phases
 * either side of a connection's while it moves its own: those move with
 * it, through all their segments. The channels being alike, every
 * channel's slices are at the same depths, so the connections that share
 * a NIC or a host's memory across channels all move at once: a chain's
 * hops taking turns frees nothing there.
 */
static int solve_fill(const struct solver *sv, struct share_ws *ws,
		      const struct plan_pattern *pat, unsigned nch, uint32_t window,
		      struct conn_rate *cr)
{
	const struct phase_index *px = ws->px;
	uint32_t nphases = px->nphases;
	double *rate = calloc(pat->nconns ? pat->nconns : 1, sizeof(*rate));
	int err = 0;

	if (!rate)
		return -ENOMEM;
	for (size_t i = 0; i < pat->nconns; i++)
		cr[i].fill = cr[i].rate;
	for (uint32_t ph = 0, lo = 0, hi = 0; !err && window + 1 < nphases && ph < nphases; ph++) {
		/* the phases in the window, clamped at the chain's ends: a
		 * wide window's middle phases share one set, solved once */
		uint32_t new_lo = ph > window ? ph - window : 0;
		uint32_t new_hi = ph + window < nphases ? ph + window : nphases - 1;

		if (!ph || new_lo != lo || new_hi != hi)
			err = share(sv, ws, pat, nch, -1, true, new_lo, new_hi, NULL, rate);
		lo = new_lo;
		hi = new_hi;
		for (size_t j = px->start[ph]; !err && j < px->start[ph + 1]; j++) {
			size_t i = px->order[j];

			if (pat->pipes[pat->conns[i].pipe].shape != PIPE_RING)
				cr[i].fill = rate[i];
		}
	}
	free(rate);
	return err;
}

/* @ws for the solves of a call on @nch channels (its phases aside). */
static int share_ws_init(const struct solver *sv, const struct plan_pattern *pat,
			 struct pattern_state *ps, unsigned nch, struct share_ws *ws)
{
	size_t n = pat->nconns ? pat->nconns : 1;
	int err = 0;

	ws->links = links_for(sv, pat, ps, &err);
	ws->cap = malloc(n * sizeof(*ws->cap));
	ws->flows = malloc(n * sizeof(*ws->flows));
	ws->conn = malloc(n * sizeof(*ws->conn));
	if (!err && (!ws->cap || !ws->flows || !ws->conn))
		err = -ENOMEM;
	/* The stream's limits bind the steady shares only: while a pipe
	 * fills, a slice takes its links' pace (plan.h). */
	for (size_t i = 0; !err && i < pat->nconns; i++) {
		const struct plan_conn *c = &pat->conns[i];

		ws->cap[i] = fmin(conn_cap(pat, c, nch, ws->links->private_cap[i]),
				  plan_stream_cap(pat, &pat->pipes[c->pipe], nch));
	}
	return err;
}

static void share_ws_destroy(struct share_ws *ws)
{
	free(ws->pool);
	free(ws->conn);
	free(ws->flows);
	free(ws->cap);
}

static const struct conn_rate *rates_for(const struct solver *sv,
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
	if (!*err)
		*err = phase_index_init(pat, nch, &px);
	/* The steady and per-segment shares do not depend on the window. */
	if (!*err && same_nch)
		memcpy(nr->c, same_nch->c, pat->nconns * sizeof(*nr->c));
	else if (!*err)
		*err = solve(sv, &ws, pat, nch, nr->c);
	if (!*err && window != NO_FILL)
		*err = solve_fill(sv, &ws, pat, nch, window, nr->c);
	share_ws_destroy(&ws);
	phase_index_destroy(&px);
	return *err ? NULL : nr->c;
}

/* Periods this close are one pace (caps and shares that are equal by
 * construction, computed along different ways). */
#define SAME_PACE 1e-9

/* One connection's slice times in a call. */
struct conn_time {
	double tau;    /* through all its segments, store and forward */
	double period; /* between slices, steady, slots aside */
	double slot;   /* between slices, paced by the slots */
	bool paced;    /* the period is the stream's limit (plan.h stream_cap) */
	double seg_tau[PLAN_MAX_STAGES];
};

/* What the slower of a connection's FIFOs spans of its slice's way. */
static double slot_fifo_tau(const struct conn_time *t, unsigned nseg,
			    const struct slot_fifos *f)
{
	double send = 0, recv = 0;

	if (!f->proxy)
		return t->tau;
	for (unsigned k = 0; k < nseg; k++) {
		if (k <= f->send_last)
			send += t->seg_tau[k];
		if (k >= f->recv_first)
			recv += t->seg_tau[k];
	}
	return send > recv ? send : recv;
}

/*
 * @filling: a chain of fewer slices than hops, whose links are shared only
 * by the connections whose slices move at once (conn_rate.fill), never
 * more than while the pipe fills; else the steady share.
 */
static void conn_time(const struct conn_rate *r, double slice, unsigned slots,
		      bool filling, double stream_cap, struct conn_time *t)
{
	double eff = filling ? r->fill : r->rate, steady;

	t->tau = 0;
	for (unsigned k = 0; k < r->nseg; k++) {
		double bw = r->seg_bw[k];

		t->seg_tau[k] = r->seg_ovh[k] + (isfinite(bw) && bw > 0 ? slice / bw : 0);
		t->tau += t->seg_tau[k];
		if (bw < eff)
			eff = bw;
	}
	steady = isfinite(eff) && eff > 0 ? slice / eff : 0;
	/* In steady state the flow passes a slice every slice / its share,
	 * and each segment takes one at a time with its own work. */
	t->period = steady;
	for (unsigned k = 0; k < r->nseg; k++)
		if (t->seg_tau[k] > t->period)
			t->period = t->seg_tau[k];
	/* However few slices share the links, the stream takes no more
	 * than its limit allows; it is paced too where its steady share
	 * is that limit (share() caps the steady shares at it). */
	t->paced = isfinite(stream_cap) && stream_cap > 0 &&
		   slice / stream_cap >= t->period * (1 - SAME_PACE);
	if (t->paced && slice / stream_cap > t->period)
		t->period = slice / stream_cap;
	t->slot = pipeline_slot_period(slot_fifo_tau(t, r->nseg, &r->fifos),
				       r->fifos.credit_trip, slots);
}

/* The longest a slice takes through one of a connection's segments. */
static double slowest_segment(const struct conn_time *t, unsigned nseg)
{
	double worst = 0;

	for (unsigned k = 0; k < nseg; k++)
		if (t->seg_tau[k] > worst)
			worst = t->seg_tau[k];
	return worst;
}

/*
 * When @c's last slice lands after it has passed its first K - 1 slices
 * one period apart: its latency after the period, and, where the
 * stream's limit paces it, its links' tau instead of the period (the
 * slice takes its links' pace: plan.h stream_cap).
 */
static double conn_last(const struct plan_conn *c, const struct conn_time *ct)
{
	return c->latency + (ct->paced && ct->slot <= ct->period ? ct->tau - ct->period : 0);
}

/*
 * What a slice of @slice bytes takes to cross @c's hop: its latency and
 * tau, a cut-through hop holding it back by one grain only. @whole: the
 * slice's conn_time where the caller has it, else NULL.
 */
static double hop_time(const struct conn_rate *r, const struct plan_pattern *pat,
		       const struct plan_conn *c, double slice, unsigned slots, bool filling,
		       double stream, const struct conn_time *whole)
{
	double grain = proto_get(pat->proto)->grain;
	struct conn_time ct;

	if (pat->routes[c->route].cut_through && slice > grain)
		slice = grain;
	else if (whole)
		return c->latency + whole->tau;
	conn_time(r, slice, slots, filling, stream, &ct);
	return c->latency + ct.tau;
}

/* A connection of a filling chain on the call's clock (time_shares). */
struct conn_clock {
	double start; /* its first slice's start */
	double hop;   /* that slice's latency + tau through it */
	uint32_t conn;
};

static int conn_clock_cmp(const void *a, const void *b)
{
	const struct conn_clock *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->hop != y->hop)
		return x->hop < y->hop ? -1 : 1;
	return (x->conn > y->conn) - (x->conn < y->conn);
}

/*
 * The shares of time_rates, each connection's taken with the connections
 * that move at the same time as its first slice: for its tau (each
 * segment's), those whose first slice is in flight as its own starts;
 * for its fill share, those whose slices' spans (the first's start to
 * @spread later, the last's start, plus its hop) overlap its own.
 * Connections that start together are solved together.
 */
static int time_shares(const struct solver *sv, struct share_ws *ws,
		       const struct plan_pattern *pat, unsigned nch, const double *hop,
		       double spread, struct conn_rate *cr)
{
	size_t n = pat->nconns ? pat->nconns : 1, nc = 0;
	struct conn_clock *clk = malloc(n * sizeof(*clk));
	double *at = malloc(n * sizeof(*at));
	uint32_t *pick = malloc(n * sizeof(*pick));
	uint32_t *prev = malloc(n * sizeof(*prev)); /* the last fill solve's */
	double *frate = calloc(n, sizeof(*frate));   /* its rates */
	size_t nprev = SIZE_MAX;
	double *rate = calloc(n, sizeof(*rate)), hmax = 0, first = INFINITY, last = 0;
	unsigned nseg = 0;
	bool all_at_once;
	int err = 0;

	if (!clk || !at || !pick || !prev || !rate || !frate) {
		err = -ENOMEM;
		goto out;
	}
	err = longest_paths(pat, nch, hop, at, NULL);
	for (size_t i = 0; !err && i < pat->nconns; i++) {
		if (!conn_active(pat, &pat->conns[i], nch))
			continue;
		clk[nc++] = (struct conn_clock){ at[i], hop[i], (uint32_t)i };
		hmax = fmax(hmax, hop[i]);
		first = fmin(first, at[i]);
		last = fmax(last, at[i]);
		if (cr[i].nseg > nseg)
			nseg = cr[i].nseg;
	}
	if (err || !nc)
		goto out;
	/* every span overlapping every other: the steady shares (solve) */
	all_at_once = spread + hmax >= last - first;
	for (size_t i = 0; i < pat->nconns; i++)
		cr[i].fill = cr[i].rate;
	qsort(clk, nc, sizeof(*clk), conn_clock_cmp);
	ws->pick = pick;
	for (size_t g = 0, end; !err && g < nc; g = end) {
		double t = clk[g].start, tie = 1e-9 * fmax(hmax, t);
		size_t lo = g;

		for (end = g; end < nc && clk[end].start <= t + tie; end++)
			;
		/* tau: the first slices in flight as these start */
		while (lo > 0 && clk[lo - 1].start >= t - hmax)
			lo--;
		ws->npick = 0;
		for (size_t j = lo; j < end; j++)
			if (j >= g || clk[j].start + clk[j].hop > t + tie)
				pick[ws->npick++] = clk[j].conn;
		for (unsigned k = 0; !err && k < nseg; k++) {
			err = share(sv, ws, pat, nch, (int)k, true, 0, 0, NULL, rate);
			for (size_t j = g; !err && j < end; j++)
				if (k < cr[clk[j].conn].nseg)
					cr[clk[j].conn].seg_bw[k] = rate[clk[j].conn];
		}
		/* fill: whose slices' spans overlap theirs */
		for (size_t j = g; !err && !all_at_once && j < end; j++) {
			double from = t - spread - hmax, to = t + spread + clk[j].hop;
			size_t a = g, b = end;

			if (j > g && clk[j].hop == clk[j - 1].hop) {
				/* the same span: the same set */
				if (pat->pipes[pat->conns[clk[j].conn].pipe].shape != PIPE_RING)
					cr[clk[j].conn].fill = frate[clk[j].conn];
				continue;
			}
			while (a > 0 && clk[a - 1].start > from)
				a--;
			while (b < nc && clk[b].start < to)
				b++;
			ws->npick = 0;
			for (size_t m = a; m < b; m++)
				if (clk[m].start + spread + clk[m].hop > t)
					pick[ws->npick++] = clk[m].conn;
			/* a wide window's middle groups share one set, solved once */
			if (ws->npick != nprev || memcmp(pick, prev, nprev * sizeof(*prev))) {
				err = share(sv, ws, pat, nch, -1, true, 0, 0, NULL, frate);
				memcpy(prev, pick, ws->npick * sizeof(*prev));
				nprev = ws->npick;
			}
			if (!err && pat->pipes[pat->conns[clk[j].conn].pipe].shape != PIPE_RING)
				cr[clk[j].conn].fill = frate[clk[j].conn];
		}
	}
out:
	ws->pick = NULL;
	free(rate);
	free(frate);
	free(prev);
	free(pick);
	free(at);
	free(clk);
	return err;
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
static struct conn_rate *time_rates(const struct solver *sv, const struct plan_pattern *pat,
				    struct pattern_state *ps, unsigned nch, uint32_t window,
				    uint64_t bytes, const struct conn_rate *depth, int *err)
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
	memcpy(cr, depth, pat->nconns * sizeof(*cr));
	*err = share_ws_init(sv, pat, ps, nch, &ws);
	if (!*err) {
		double period = 0;

		for (size_t i = 0; i < pat->npipes; i++) {
			const struct plan_pipe *pp = &pat->pipes[i];
			double stream = plan_stream_cap(pat, pp, nch);
			struct plan_slicing s;
			bool filling;

			plan_slicing(sv->p, pat, pp, bytes, nch, &s);
			if (!s.active || pp->shape == PIPE_RING)
				continue;
			filling = s.slices < pp->nhops;
			for (size_t k = pp->first_conn; k < pp->first_conn + pp->nconns; k++) {
				const struct plan_conn *c = &pat->conns[k];
				double slice = plan_slice_bytes(c, &s, bytes);
				struct conn_time ct;

				conn_time(&cr[k], slice, s.slots, filling, stream, &ct);
				if (filling)
					period = fmax(period, pipeline_pace(s.slices, ct.period,
									    ct.slot, s.slots));
				hop[k] = hop_time(&cr[k], pat, c, slice, s.slots, filling, stream,
						  &ct);
			}
		}
		/* nothing fills, or nothing takes time: the depths' */
		if (period > 0 && isfinite(period))
			*err = time_shares(sv, &ws, pat, nch, hop, window * period, cr);
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

/* The stage busy times and spans of the bottleneck connection. */
static void record_stages(const struct plan_pattern *pat, const struct plan_conn *c,
			  const struct conn_time *ct, double slices, double payload,
			  double end, struct coll_record *rec)
{
	const struct plan_route *r = &pat->routes[c->route];
	double at = 0;
	unsigned seg = 0;

	rec->nspans = 0;
	for (unsigned s = 0; s < r->nstages; s++) {
		const struct plan_stage *st = &r->stages[s];
		struct stage_span *sp;

		for (; seg < st->segment; seg++)
			at += ct->seg_tau[seg];
		rec->stage_us[st->kind] += 1e6 * slices * ct->seg_tau[st->segment];
		rec->stage_bytes[st->kind] += (uint64_t)llround(payload);
		if (rec->nspans >= PLAN_MAX_STAGES)
			continue;
		sp = &rec->spans[rec->nspans++];
		sp->kind = st->kind;
		sp->start_us = 1e6 * at;
		sp->end_us = 1e6 * end;
		sp->bytes = (uint64_t)llround(payload);
	}
}

/*
 * The least a ring's loop takes before the next loop's first slice can
 * leave a connection: NCCL's kernel runs a loop's steps one after another
 * (all_reduce.h runRing), each step's slices waiting for the hop before,
 * so a loop's steps after its first each wait a hop, l + tau (one grain
 * where it cuts through), and its last step's m slices then leave one
 * after another through the connection's slowest segment. Loop by loop
 * the wait goes round the ring, steps - 1 places on each time, so a hop
 * and a segment are their means over the ring's connections. Where a
 * hop's latency is long against the stream's pace (LL's small slices),
 * this, not P pi, sets how fast the loops before the last go by.
 */
static double ring_loop(const struct conn_rate *cr, const struct plan_pattern *pat,
			const struct plan_pipe *pp, const struct plan_slicing *s,
			uint64_t bytes, double stream)
{
	double hop = 0, seg = 0;

	for (size_t k = pp->first_conn; k < pp->first_conn + pp->nconns; k++) {
		const struct plan_conn *c = &pat->conns[k];
		double slice = plan_slice_bytes(c, s, bytes);
		struct conn_time ct;

		/* a ring never fills as a chain does (solve_fill) */
		conn_time(&cr[k], slice, s->slots, false, stream, &ct);
		seg += slowest_segment(&ct, cr[k].nseg);
		hop += hop_time(&cr[k], pat, c, slice, s->slots, false, stream, &ct);
	}
	if (!pp->nconns)
		return 0;
	return ((pp->steps - 1) * hop + s->per_stream * seg) / (double)pp->nconns;
}

/* How many phases either side of a chain's connection move slices with
 * it: one fewer than the chain's slices (solve_fill); NO_FILL where no
 * chain has fewer slices than hops. */
static uint32_t fill_window(const struct plan *p, const struct plan_pattern *pat,
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

/*
 * The least time the call's bytes take through its busiest link: each
 * active connection's whole volume on every link of its route, weighted
 * as share() weighs it. No schedule of the slices moves them faster.
 */
static double busiest_link(const struct solver *sv, const struct plan_pattern *pat,
			   const struct conn_links *l, uint64_t bytes, unsigned nch,
			   int *err)
{
	double *load = calloc(sv->nres ? sv->nres : 1, sizeof(*load)), worst = 0;
	/* a pipe's slicing, found once: a pattern has many connections
	 * a pipe, and plan_slicing is most of this function's time */
	double *scale = calloc(pat->npipes, sizeof(*scale));

	if (!load || !scale) {
		free(load);
		free(scale);
		*err = -ENOMEM;
		return 0;
	}
	for (size_t i = 0; i < pat->npipes; i++) {
		struct plan_slicing s;

		plan_slicing(sv->p, pat, &pat->pipes[i], bytes, nch, &s);
		scale[i] = s.scale;
	}
	for (size_t i = 0; i < pat->nconns; i++) {
		const struct plan_conn *c = &pat->conns[i];
		double moved;

		if (!conn_active(pat, c, nch))
			continue;
		moved = c->volume * (double)bytes * scale[c->pipe];
		for (size_t u = l->first[i]; u < l->first[i + 1]; u++)
			load[l->uses[u].resource] += l->weight[u] * moved;
	}
	for (size_t r = 0; r < sv->nres; r++)
		if (sv->cap[r] > 0 && load[r] / sv->cap[r] > worst)
			worst = load[r] / sv->cap[r];
	free(load);
	free(scale);
	return worst;
}

/* One pipe timed (pipeline_time), its bottleneck connection and its
 * slices (none where the call's channels leave it out). @fill: a chain
 * of fewer slices than hops takes its fill shares (conn_rate.fill), else
 * the steady ones. */
static double time_pipe(const struct solver *sv, const struct plan_pattern *pat,
			const struct plan_pipe *pp, const struct conn_rate *cr,
			uint64_t bytes, unsigned nch, bool fill,
			const struct plan_conn **bott_out, struct conn_time *bott_ct_out,
			double *slices)
{
	const struct plan *p = sv->p;
	const struct plan_conn *bott = NULL, *shown = NULL;
	struct conn_time bott_ct = { 0 }, shown_ct = { 0 };
	struct plan_slicing s;
	double chain = 0, pi = 0, pi_slot = 0, t, last = 0;
	double stream = plan_stream_cap(pat, pp, nch);
	unsigned bott_nseg = 0, shown_nseg = 0;
	bool filling, slower, same;

	plan_slicing(p, pat, pp, bytes, nch, &s);
	*slices = 0;
	if (!s.active)
		return 0;
	filling = fill && pp->shape != PIPE_RING && s.slices < pp->nhops;
	/*
	 * The bottleneck: the slowest connection and, in a ring, among
	 * those at its pace the one whose last slice lands last. A
	 * ring's connections all start at once (every rank has a
	 * chunk of its own), so those held to one pace (a per-channel
	 * limit binding them all, or links shared alike) pass their
	 * slices in step from the start, and each one's last slice
	 * lands its own latency after the K-th period: the stream
	 * ends with the longest of those, a network hop's, not with
	 * whichever came first in the ring (an NVLink hop's: 2.1 us
	 * short of the model backend's last arrival on a Hopper ring
	 * LL128, tuning.cc hwLat 4.0 - 1.9). A chain's later hops
	 * start as the first slice reaches them, which its latency-
	 * bound way counts; there the first slowest stays.
	 */
	for (size_t k = pp->first_conn; k < pp->first_conn + pp->nconns; k++) {
		const struct plan_conn *c = &pat->conns[k];
		double pk, pb = fmax(pi, pi_slot);
		struct conn_time ct;

		conn_time(&cr[k], plan_slice_bytes(c, &s, bytes), s.slots,
			  filling, stream, &ct);
		pk = fmax(ct.period, ct.slot);
		slower = !bott || pk > pb * (1 + SAME_PACE);
		same = !slower && pk >= pb * (1 - SAME_PACE);
		if (slower || (same && slowest_segment(&ct, cr[k].nseg) >
					       slowest_segment(&shown_ct, shown_nseg) *
						       (1 + SAME_PACE))) {
			shown = c;
			shown_ct = ct;
			shown_nseg = cr[k].nseg;
		}
		if (slower || (pp->shape == PIPE_RING && same && conn_last(c, &ct) > last)) {
			pi = ct.period;
			pi_slot = ct.slot;
			bott = c;
			bott_ct = ct;
			bott_nseg = cr[k].nseg;
			last = conn_last(c, &ct);
		}
	}
	/* Shown: of the connections at the bottleneck's pace, the one whose
	 * own slowest link is slowest, the bottleneck itself where none is
	 * slower. Where a pipe's connections share one pace (a chain's, set
	 * by a link that a few of them cross), the first found is often an
	 * NVLink hop whose link is nearly idle: on the H100 preset's staged
	 * NVLS tree the table said "intra_node" for direct and staged alike,
	 * not the staged network hop that sets the pace. */
	if (shown && slowest_segment(&shown_ct, shown_nseg) <=
			     slowest_segment(&bott_ct, bott_nseg) * (1 + SAME_PACE)) {
		shown = bott;
		shown_ct = bott_ct;
	}
	for (size_t h = pp->first_hop; h < pp->first_hop + pp->nhops; h++) {
		const struct plan_conn *c = &pat->conns[pat->hops[h]];

		chain += hop_time(&cr[pat->hops[h]], pat, c, plan_slice_bytes(c, &s, bytes),
				  s.slots, filling, stream, NULL);
	}
	/* A paced stream's last slice leaves (K - 1) pi in and takes
	 * its links' tau, not pi (conn_last; the backends agree on
	 * this: model/simgrid_run.c spaces the slices' starts). */
	t = pipeline_time(&s, chain, pi, pi_slot, last,
			  pp->shape == PIPE_RING && s.slices > s.per_loop ?
				  ring_loop(cr, pat, pp, &s, bytes, stream) : 0);
	*bott_out = shown;
	*bott_ct_out = shown_ct;
	*slices = s.slices;
	return t;
}

static int time_call(const struct solver *sv, const struct plan_pattern *pat,
		     struct pattern_state *ps, uint64_t bytes, unsigned nch,
		     struct coll_record *rec)
{
	const struct plan *p = sv->p;
	const struct conn_rate *cr;
	struct conn_rate *by_time = NULL;
	const struct conn_links *links = NULL;
	const struct plan_conn *worst_conn = NULL;
	struct conn_time worst_ct = { 0 };
	double worst = 0, worst_slices = 0;
	uint32_t window;
	bool fill;
	int err = 0;

	memset(rec->stage_us, 0, sizeof(rec->stage_us));
	memset(rec->stage_bytes, 0, sizeof(rec->stage_bytes));
	rec->nspans = 0;
	rec->time_us = 0;
	if (!pat->npipes || !bytes)
		return 0;
	window = fill_window(p, pat, bytes, nch);
	cr = rates_for(sv, pat, ps, nch, window, &err);
	if (!cr)
		return err;
	if (window != NO_FILL) {
		by_time = time_rates(sv, pat, ps, nch, window, bytes, cr, &err);
		if (!by_time)
			return err;
		cr = by_time;
	}
	for (int pass = 0, again = 1; again && !err; pass++) {
		/*
		 * The fill shares assume that only the hops within K - 1
		 * phases of each other move at once (solve_fill), a hop
		 * taking about a period. Where the call would then end
		 * before its busiest link has carried its bytes, that is
		 * refuted: a slow hop (a staged network hop held by the
		 * socket's memory) takes its K periods while slices cross
		 * many short NVLink hops, so the slow hops of distant phases
		 * held that link together. The chains then take the steady
		 * shares, all their connections at once, as a chain of
		 * K >= hops slices does. On eight-gpus-one-socket a staged
		 * 32 MiB broadcast on 2 nodes took 1005 us (launch aside)
		 * where the socket's memory needs 1258 for its 120 MiB; the
		 * steady shares give 1509, the model backend 1506
		 * (tests/unit/test_conformance.c:
		 * staged_broadcast_bound_by_host_memory).
		 */
		fill = pass == 0 && window != NO_FILL;
		worst_conn = NULL;
		worst = 0;
		for (size_t i = 0; i < pat->npipes; i++) {
			const struct plan_conn *bott;
			struct conn_time bott_ct;
			double slices = 0;
			double t = time_pipe(sv, pat, &pat->pipes[i], cr, bytes, nch, fill,
					     &bott, &bott_ct, &slices);

			if (!slices)
				continue;
			if (!worst_conn || t > worst) {
				worst = t;
				worst_conn = bott;
				worst_ct = bott_ct;
				worst_slices = slices;
			}
		}
		if (fill && !links)
			links = links_for(sv, pat, ps, &err);
		again = fill && links && worst < busiest_link(sv, pat, links, bytes, nch, &err);
	}
	free(by_time);
	if (err)
		return err;
	rec->time_us = 1e6 * (pat->base_latency + worst);
	if (worst_conn)
		record_stages(pat, worst_conn, &worst_ct, worst_slices,
			      worst_conn->volume * (double)bytes * (double)pat->nchannels / nch,
			      rec->time_us * 1e-6, rec);
	return 0;
}

static void copy_timing(struct coll_record *dst, const struct coll_record *src)
{
	dst->time_us = src->time_us;
	memcpy(dst->stage_us, src->stage_us, sizeof(dst->stage_us));
	memcpy(dst->stage_bytes, src->stage_bytes, sizeof(dst->stage_bytes));
	dst->nspans = src->nspans;
	memcpy(dst->spans, src->spans, sizeof(dst->spans));
}

static int analytic_run(const struct plan *p, struct records *rec,
			struct diag *d)
{
	struct maxmin_ws mm;
	struct solver sv = { .p = p, .nres = res_total(&p->layout), .mm = &mm };
	struct pattern_state *st;
	double *cap;
	int err = maxmin_ws_init(&mm, sv.nres);

	cap = plan_capacities(p);
	st = calloc(p->npatterns ? p->npatterns : 1, sizeof(*st));
	if (err || !cap || !st) {
		err = -ENOMEM;
		goto out;
	}
	sv.cap = cap;
	for (size_t i = 0; i < p->ncollectives && !err; i++) {
		const struct plan_collective *pc = &p->collectives[i];
		struct pattern_state *ps = &st[pc->pattern];
		struct timed *t = NULL;

		for (unsigned k = 0; k < ps->ntimed && !t; k++)
			if (ps->timed[k].bytes == pc->bytes && ps->timed[k].nch == pc->nchannels)
				t = &ps->timed[k];
		if (!t) {
			t = &ps->timed[ps->next_timed];
			ps->next_timed = (ps->next_timed + 1) % TIMED_MAX;
			if (ps->ntimed < TIMED_MAX)
				ps->ntimed++;
			t->bytes = pc->bytes;
			t->nch = pc->nchannels;
			err = time_call(&sv, &p->patterns[pc->pattern], ps, pc->bytes,
					pc->nchannels, &t->rec);
		}
		copy_timing(&rec->coll[i], &t->rec);
		records_progress(rec, i + 1);
	}
out:
	if (err)
		diag_set(d, err, "analytic backend: %s",
			 err == -ENOMEM ? "out of memory" : "internal error");
	if (st)
		for (size_t i = 0; i < p->npatterns; i++) {
			for (size_t k = 0; k < st[i].nr; k++)
				free(st[i].r[k].c);
			free(st[i].r);
			conn_links_destroy(&st[i].links);
		}
	free(st);
	free(cap);
	maxmin_ws_destroy(&mm);
	return err;
}

const struct backend_ops analytic_backend_ops = {
	.size = sizeof(struct backend_ops),
	.name = "analytic",
	.description = "closed form: NCCL's algorithms as slice pipelines, max-min shared",
	.caps = BACKEND_CAP_SIM_CLOCK | BACKEND_CAP_EXACT | BACKEND_CAP_ALGORITHMS,
	.run = analytic_run,
};
