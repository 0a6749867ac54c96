/* SPDX-License-Identifier: MIT */
/*
 * The analytic backend's shares: the links each connection's segments
 * cross, found once a pattern, and one max-min solve (maxmin.h) over
 * some of a call's connections (share_conns), which analytic_depth.c's
 * and analytic_fill.c's solves each make.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analytic_internal.h"
#include "array_grow.h"
#include "pipeline.h"
#include "workers.h"

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

unsigned conn_seg_uses(const struct plan *p, const struct plan_pattern *pat,
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
double conn_cap(const struct plan_pattern *pat, const struct plan_conn *c, unsigned nch,
		double private_cap)
{
	double cap = private_cap, pc = pat->pipes[c->pipe].conn_cap;

	if (pc < cap)
		cap = pc;
	if (isfinite(pat->total_cap) && pat->total_cap / nch < cap)
		cap = pat->total_cap / nch;
	return cap;
}

void conn_links_destroy(struct conn_links *l)
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

/* The most links a connection on route @r crosses: its stages' uses
 * (conn_seg_uses merges those it crosses twice) and a switch path. */
static size_t route_uses_most(const struct plan_route *r)
{
	size_t n = plan_route_wire(r) >= 0 ? FABRIC_PATH_MAX : 0;

	for (unsigned s = 0; s < r->nstages; s++)
		n += r->stages[s].nuses;
	return n;
}

/*
 * Every connection's links, a range of connections a task (workers.h):
 * each range packs its own from where the routes' most before it would
 * end (so that no range can run into the next), and the ranges are then
 * moved down one after another to follow one another.
 */
struct links_job {
	const struct solver *sv;
	const struct plan_pattern *pat;
	struct conn_links *l;
	size_t per;                /* connections a range */
	size_t from[WORKERS_MAX];  /* where each range packs from */
	size_t n[WORKERS_MAX];     /* how many it packed */
	size_t to[WORKERS_MAX];    /* where its pack lands (the second pass) */
	bool moved;
};

static int links_range(void *ctx, unsigned worker, size_t range)
{
	struct links_job *j = ctx;
	const struct plan_pattern *pat = j->pat;
	struct conn_links *l = j->l;
	size_t lo = range * j->per, hi = lo + j->per < pat->nconns ? lo + j->per : pat->nconns;
	size_t at = j->from[range];
	struct maxmin_use tmp[PLAN_MAX_USES + FABRIC_PATH_MAX];

	(void)worker;
	if (j->moved) {
		for (size_t i = lo; i < hi; i++)
			l->first[i] = l->first[i] - j->from[range] + j->to[range];
		return 0;
	}
	for (size_t i = lo; i < hi; i++) {
		const struct plan_conn *c = &pat->conns[i];
		unsigned k = conn_seg_uses(j->sv->p, pat, c, -1, &l->private_cap[i], tmp);

		for (unsigned u = 0; u < k; u++)
			l->weight[at + u] = tmp[u].weight;
		per_volume(c, tmp, k);
		if (k)
			memcpy(l->uses + at, tmp, k * sizeof(*tmp));
		l->first[i] = at;
		at += k;
	}
	j->n[range] = at - j->from[range];
	return 0;
}

/*
 * @ps's links, found the first time they are asked for; NULL on -ENOMEM.
 * Their arrays are taken at the most the routes allow and given back
 * their unused end: grown by doubling, each copy faulted a million
 * connections' links into fresh pages again (a fifth of a 4096-node
 * call's page faults).
 */
const struct conn_links *links_for(const struct solver *sv,
				   const struct plan_pattern *pat,
				   struct pattern_state *ps, int *err)
{
	struct conn_links *l = &ps->links;
	unsigned nw = sv->nworkers ? sv->nworkers : 1;
	struct links_job job = { .sv = sv, .pat = pat, .l = l, .per = (pat->nconns + nw - 1) / nw };
	size_t n = pat->nconns ? pat->nconns : 1, most = 0, at = 0;
	size_t nr = job.per ? (pat->nconns + job.per - 1) / job.per : 0;

	if (l->first)
		return l;
	for (size_t i = 0; i < pat->nconns; i++) {
		if (job.per && i % job.per == 0)
			job.from[i / job.per] = most;
		most += route_uses_most(&pat->routes[pat->conns[i].route]);
	}
	most = most ? most : 1;
	l->first = malloc((pat->nconns + 1) * sizeof(*l->first));
	l->private_cap = malloc(n * sizeof(*l->private_cap));
	l->uses = malloc(most * sizeof(*l->uses));
	l->weight = malloc(most * sizeof(*l->weight));
	if (!l->first || !l->private_cap || !l->uses || !l->weight)
		goto fail;
	workers_run(nw, nr, links_range, &job);
	for (size_t r = 0; r < nr; r++) {
		job.to[r] = at;
		if (job.n[r] && at != job.from[r]) {
			memmove(l->uses + at, l->uses + job.from[r], job.n[r] * sizeof(*l->uses));
			memmove(l->weight + at, l->weight + job.from[r],
				job.n[r] * sizeof(*l->weight));
		}
		at += job.n[r];
	}
	job.moved = true;
	workers_run(nw, nr, links_range, &job);
	l->first[pat->nconns] = at;
	if (at) {
		/* shrinking keeps the data where it is (or copies it, where
		 * the allocator must: either way what stands is valid) */
		struct maxmin_use *u = realloc(l->uses, at * sizeof(*u));
		double *w = realloc(l->weight, at * sizeof(*w));

		l->uses = u ? u : l->uses;
		l->weight = w ? w : l->weight;
	}
	return l;
fail:
	conn_links_destroy(l);
	*err = -ENOMEM;
	return NULL;
}

const struct route_way *ways_for(const struct plan *p, const struct plan_pattern *pat,
				 struct pattern_state *ps, int *err)
{
	if (ps->ways)
		return ps->ways;
	ps->ways = calloc(pat->nroutes ? pat->nroutes : 1, sizeof(*ps->ways));
	if (!ps->ways) {
		*err = -ENOMEM;
		return NULL;
	}
	for (size_t i = 0; i < pat->nroutes; i++) {
		const struct plan_route *r = &pat->routes[i];
		struct route_way *w = &ps->ways[i];

		for (unsigned s = 0; s < r->nstages; s++)
			w->seg_ovh[r->stages[s].segment] += r->stages[s].chunk_overhead;
		w->latency = r->latency;
		w->proxy = plan_route_proxy_fifos(p, r, &w->send_last, &w->recv_first);
		w->cut_grain = route_cuts_segments(r) ? proto_get(pat->proto)->grain : 0;
	}
	return ps->ways;
}

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

int seg_flow(const struct solver *sv, struct share_ws *ws, const struct plan_pattern *pat,
	     const struct plan_conn *c, unsigned nch, int seg, size_t *at,
	     struct maxmin_flow *f)
{
	struct maxmin_use tmp[PLAN_MAX_USES + FABRIC_PATH_MAX];
	double pcap;
	unsigned k = conn_seg_uses(sv->p, pat, c, seg, &pcap, tmp);

	while (*at + k > ws->room)
		if (array_grow((void **)&ws->pool, ws->room, &ws->room, sizeof(*ws->pool)))
			return -ENOMEM;
	per_volume(c, tmp, k);
	if (k)
		memcpy(ws->pool + *at, tmp, k * sizeof(*tmp));
	f->uses = NULL; /* set once the pool has stopped moving (pool_uses) */
	f->nuses = k;
	f->cap = conn_cap(pat, c, nch, pcap);
	*at += k;
	return 0;
}

int conn_flows(const struct solver *sv, struct share_ws *ws, const struct plan_pattern *pat,
	       unsigned nch, unsigned seg, size_t n)
{
	size_t at = 0;

	for (size_t q = 0; q < n; q++) {
		const struct plan_conn *c = &pat->conns[ws->conn[q]];
		int err = seg_flow(sv, ws, pat, c, nch, (int)seg, &at, &ws->flows[q]);

		if (err)
			return err;
		if (c->volume > 0)
			ws->flows[q].cap /= c->volume;
	}
	pool_uses(ws, ws->flows, n);
	return 0;
}

void pool_uses(struct share_ws *ws, struct maxmin_flow *flows, size_t nf)
{
	for (size_t j = 0, u = 0; j < nf; j++) {
		flows[j].uses = flows[j].nuses ? ws->pool + u : NULL;
		u += flows[j].nuses;
	}
}

double flow_conn_rate(const struct plan_conn *c, const struct maxmin_flow *f)
{
	return f->nuses || isfinite(f->cap) ? f->rate * (c->volume > 0 ? c->volume : 1) :
					      INFINITY;
}

/*
 * Max-min over the active connections, restricted to segment @seg (-1:
 * all) and, with @by_phase, to the connections of phases @lo to @hi. With
 * @pace, each connection is first capped at its pipe's pace from @pace[]
 * (payload bytes/s per byte of volume). A connection of a channel the call
 * leaves out gets 0.
 */
int share_conns(const struct solver *sv, struct share_ws *ws,
		const struct plan_pattern *pat, unsigned nch, int seg, bool by_phase,
		uint32_t lo, uint32_t hi, const double *pace, double *rate)
{
	const struct conn_links *l = ws->links;
	const struct twins *twins = NULL;
	struct maxmin_flow *flows = ws->flows;
	const uint32_t *sel = ws->sel;
	unsigned parts = ws->parts ? ws->parts : SHARE_TWINS | SHARE_OTHERS;
	size_t nsel;
	int err = 0;

	if (by_phase && ws->pick) {
		nsel = ws->npick;
		memcpy(ws->sel, ws->pick, nsel * sizeof(*ws->sel));
		parts = SHARE_TWINS | SHARE_OTHERS;
		if (ws->pick_in_order)
			twins = ws->twins;
	} else if (!by_phase && ws->twins && parts == SHARE_OTHERS) {
		twins = ws->twins; /* every connection: the others, listed */
		sel = twins->others;
		nsel = twins->nothers;
	} else {
		nsel = select_conns(ws->px, pat->nconns, !by_phase, lo, hi, ws->sel);
		/* in order: one of each alike set selected alike is solved */
		if (ws->twins)
			twins = ws->twins;
	}
	if (!twins)
		parts = SHARE_TWINS | SHARE_OTHERS; /* one solve: the others' */
	if (twins && (parts & SHARE_TWINS))
		twins_pick(twins, &ws->tm, sel, nsel);
	/*
	 * Twin sets share no link with the others, so their solve and the
	 * others' are two (max-min's rates over sets that share no link are
	 * each set's own): the others' stay the same from one selection of
	 * twins to the next (ws->known, the depth shares' fill windows).
	 */
	for (int part = twins ? 0 : 1; !err && part < 2; part++) {
		bool twin_part = part == 0; /* the twins' reps, then the others */
		size_t nf = 0, at = 0;

		if (!(parts & (twin_part ? SHARE_TWINS : SHARE_OTHERS)))
			continue;
		for (size_t j = 0; j < nsel; j++) {
			size_t i = sel[j];
			const struct plan_conn *c = &pat->conns[i];
			struct maxmin_flow *f = &flows[nf];
			bool twin = twins && twins->slot[i] != TWIN_NONE;

			if (twin != twin_part)
				; /* the other part's */
			else if (!conn_active(pat, c, nch))
				rate[i] = 0;
			else if (!twin && ws->known)
				rate[i] = ws->known[i];
			else if (twin && ws->tm.rep[twins->slot_set[twins->slot[i]]] !=
						 twins->slot_set[twins->slot[i]])
				; /* its twin's rates, twins_copy */
			else if (seg >= 0 && (err = seg_flow(sv, ws, pat, c, nch, seg, &at, f)))
				return err;
			else {
				if (seg < 0) {
					f->uses = l->uses + l->first[i];
					f->nuses = (unsigned)(l->first[i + 1] - l->first[i]);
					f->cap = ws->cap[i]; /* the stream's limits too */
				}
				if (pace && pace[c->pipe] * c->volume < f->cap)
					f->cap = pace[c->pipe] * c->volume;
				if (c->volume > 0)
					f->cap /= c->volume;
				ws->conn[nf++] = (uint32_t)i;
			}
		}
		if (seg >= 0)
			pool_uses(ws, flows, nf);
		err = maxmin_ws_solve(sv->mm, sv->cap, flows, nf);
		for (size_t j = 0; !err && j < nf; j++)
			rate[ws->conn[j]] = flow_conn_rate(&pat->conns[ws->conn[j]], &flows[j]);
	}
	if (!err && twins && (parts & SHARE_TWINS))
		twins_copy(twins, &ws->tm, rate);
	return err;
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
int longest_paths(const struct plan_pattern *pat, unsigned nch, const double *w,
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

/* @ws for the solves of a call on @nch channels (its phases aside). */
int share_ws_init(const struct solver *sv, const struct plan_pattern *pat,
		  struct pattern_state *ps, unsigned nch, struct share_ws *ws)
{
	size_t n = pat->nconns ? pat->nconns : 1;
	int err = 0;

	ws->home = sv->pool;
	ws->pool = sv->pool->uses;
	ws->room = sv->pool->room;
	sv->pool->uses = NULL;
	sv->pool->room = 0;
	ws->links = links_for(sv, pat, ps, &err);
	ws->cap = malloc(n * sizeof(*ws->cap));
	ws->flows = malloc(n * sizeof(*ws->flows));
	ws->conn = malloc(n * sizeof(*ws->conn));
	ws->sel = malloc(n * sizeof(*ws->sel));
	if (!err && (!ws->cap || !ws->flows || !ws->conn || !ws->sel))
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

void share_ws_destroy(struct share_ws *ws)
{
	if (ws->home && !ws->home->uses) {
		ws->home->uses = ws->pool;
		ws->home->room = ws->room;
	} else {
		free(ws->pool);
	}
	free(ws->sel);
	free(ws->conn);
	free(ws->flows);
	if (!ws->borrowed)
		free(ws->cap);
	twin_marks_destroy(&ws->tm);
}
