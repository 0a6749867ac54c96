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
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analytic_internal.h"
#include "child_call.h"
#include "pipeline.h"
#include "workers.h"

/* The stage busy times and spans of the bottleneck connection. */
static void record_stages(const struct plan_pattern *pat, const struct plan_conn *c,
			  const struct conn_time *ct, double slices, double payload,
			  double end, struct coll_record *rec)
{
	const struct plan_route *r = &pat->routes[c->route];
	double at = 0, busy[STAGE_KIND_COUNT] = { 0 };
	unsigned seg = 0, last_seg[STAGE_KIND_COUNT];

	rec->nspans = 0;
	for (unsigned k = 0; k < STAGE_KIND_COUNT; k++)
		last_seg[k] = UINT_MAX;
	for (unsigned s = 0; s < r->nstages; s++) {
		const struct plan_stage *st = &r->stages[s];
		struct stage_span *sp;

		for (; seg < st->segment; seg++)
			at += ct->seg_tau[seg];
		/* a kind's segments, each once (stages may share one) */
		if (last_seg[st->kind] != st->segment)
			busy[st->kind] += ct->seg_tau[st->segment];
		last_seg[st->kind] = st->segment;
		rec->stage_bytes[st->kind] += (uint64_t)llround(payload);
		if (rec->nspans >= PLAN_MAX_STAGES)
			continue;
		sp = &rec->spans[rec->nspans++];
		sp->kind = st->kind;
		sp->start_us = 1e6 * at;
		sp->end_us = 1e6 * end;
		sp->bytes = (uint64_t)llround(payload);
	}
	/* Where the segments' joint share sets the pace, each of its kinds
	 * is busy at it all along, as the model backend measures them. */
	for (unsigned k = 0; k < STAGE_KIND_COUNT; k++)
		if (last_seg[k] != UINT_MAX)
			rec->stage_us[k] += 1e6 * slices * fmax(busy[k], ct->joint);
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
static double ring_loop(const struct conn_rate *cr, const struct route_way *ways,
			const struct plan_pattern *pat, const struct plan_pipe *pp,
			const struct plan_slicing *s, uint64_t bytes, double stream)
{
	double hop = 0, seg = 0;

	for (size_t k = pp->first_conn; k < pp->first_conn + pp->nconns; k++) {
		const struct plan_conn *c = &pat->conns[k];
		const struct route_way *w = &ways[c->route];
		double slice = plan_slice_bytes(c, s, bytes);
		struct conn_time ct;

		/* a ring never fills as a chain does (solve_fill) */
		conn_time(&cr[k], w, c, slice, s->slots, false, stream, &ct);
		seg += slowest_segment(&ct, cr[k].nseg);
		hop += hop_time(&cr[k], w, pat, c, slice, s->slots, false, stream, &ct);
	}
	if (!pp->nconns)
		return 0;
	return ((pp->steps - 1) * hop + s->per_stream * seg) / (double)pp->nconns;
}

/*
 * The least time the call's bytes take through its busiest link: each
 * active connection's whole volume on every link of its route, weighted
 * as share_conns() weighs it. No schedule of the slices moves them faster.
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

/* The connection of a call whose busiest segment is busiest, and that
 * segment's busy time (slices x its tau, or x the connection's period
 * where its segments' joint share sets it): what the stages show. */
struct busiest {
	const struct plan_conn *c;
	struct conn_time ct;
	double slices, busy;
};

/* A connection's busiest segment's busy time over @slices. */
static double busy_time(const struct conn_time *ct, unsigned nseg, double slices)
{
	return slices * fmax(slowest_segment(ct, nseg), ct->joint);
}

/* What @c's slice takes to land whole: its latency and tau. */
static double land_time(const struct conn_rate *r, const struct route_way *w,
			const struct plan_conn *c, double slice, unsigned slots, bool filling,
			double stream)
{
	struct conn_time ct;

	conn_time(r, w, c, slice, slots, filling, stream, &ct);
	return c->latency + ct.tau;
}

/*
 * A ring's chain: of its chunks' trips, windows of @pp->nhops connections
 * round the ring, the slowest, each hop a grain where it cuts through and
 * the last the whole slice. Which trip is slowest the plan could tell by
 * latency alone (slowest_start); where the latencies tie, the trip that
 * ends on a slow hop (a GPU's p2p_write cap) lands last. NAN where there
 * is no room to compare them.
 */
static double ring_chain(const struct conn_rate *cr, const struct route_way *ways,
			 const struct plan_pattern *pat, const struct plan_pipe *pp,
			 const struct plan_slicing *s, uint64_t bytes, bool filling,
			 double stream)
{
	size_t n = pp->nconns, steps = pp->nhops;
	double *hop = malloc((n ? n : 1) * sizeof(*hop)), *land = malloc((n ? n : 1) * sizeof(*land));
	double sum = 0, worst = NAN;

	if (!hop || !land || !n || !steps) {
		free(hop);
		free(land);
		return NAN;
	}
	for (size_t i = 0; i < n; i++) {
		size_t k = pp->first_conn + i;
		const struct plan_conn *c = &pat->conns[k];
		double slice = plan_slice_bytes(c, s, bytes);

		hop[i] = hop_time(&cr[k], &ways[c->route], pat, c, slice, s->slots, filling,
				  stream, NULL);
		land[i] = land_time(&cr[k], &ways[c->route], c, slice, s->slots, filling, stream);
	}
	for (size_t j = 0; j < steps; j++)
		sum += hop[j % n];
	for (size_t start = 0; start < n; start++) {
		size_t end = (start + steps - 1) % n;
		double t = sum - hop[end] + land[end];

		if (!(t <= worst))
			worst = t;
		sum += hop[(start + steps) % n] - hop[start];
	}
	free(hop);
	free(land);
	return worst;
}

/*
 * A slice's way along @pp's chain: each hop's latency and tau, a cut-
 * through hop's next starting after one grain (hop_time), but the last
 * hop's slice landing whole: the receiver has the call's bytes only once
 * its last line is in (the model backend ends there too). Until
 * 2026-12-06 the last hop took a grain too: a Ring/LL128 1 MiB all-
 * reduce on one channel of 8 x 8 H100 ended 0.04 us early, its last
 * NVLink hop's slice less a grain. A ring's is its slowest trip
 * (ring_chain).
 */
static double chain_time(const struct conn_rate *cr, const struct route_way *ways,
			 const struct plan_pattern *pat, const struct plan_pipe *pp,
			 const struct plan_slicing *s, uint64_t bytes, bool filling,
			 double stream)
{
	double chain = 0;

	if (pp->shape == PIPE_RING) {
		chain = ring_chain(cr, ways, pat, pp, s, bytes, filling, stream);
		if (!isnan(chain))
			return chain;
		chain = 0;
	}
	for (size_t h = pp->first_hop; h < pp->first_hop + pp->nhops; h++) {
		size_t k = pat->hops[h];
		const struct plan_conn *c = &pat->conns[k];
		double slice = plan_slice_bytes(c, s, bytes);

		if (h + 1 < pp->first_hop + pp->nhops)
			chain += hop_time(&cr[k], &ways[c->route], pat, c, slice, s->slots,
					  filling, stream, NULL);
		else
			chain += land_time(&cr[k], &ways[c->route], c, slice, s->slots, filling,
					   stream);
	}
	return chain;
}

/* One pipe timed (pipeline_time), its bottleneck connection and its
 * slices (none where the call's channels leave it out). @fill: a chain
 * of fewer slices than hops takes its fill shares (conn_rate.fill), else
 * the steady ones. Each connection's busy time goes to @busiest. */
/* How a pipe's connections are timed in a call: its slicing, whether its
 * chain fills (on the fill shares' pass), its stream's limit. */
struct pipe_call {
	struct plan_slicing s;
	bool filling;
	double stream;
};

static void pipe_call(const struct solver *sv, const struct plan_pattern *pat,
		      const struct plan_pipe *pp, uint64_t bytes, unsigned nch, bool fill,
		      struct pipe_call *pc)
{
	plan_slicing(sv->p, pat, pp, bytes, nch, &pc->s);
	pc->filling = fill && pp->shape != PIPE_RING && pc->s.slices < pp->nhops;
	pc->stream = plan_stream_cap(pat, pp, nch);
}

/* Connection @k's slice times in a call on its pipe @pc. */
static void pipe_conn_time(const struct plan_pattern *pat, const struct conn_rate *cr,
			   const struct route_way *ways, uint64_t bytes, const struct pipe_call *pc,
			   size_t k, struct conn_time *ct)
{
	const struct plan_conn *c = &pat->conns[k];

	conn_time(&cr[k], &ways[c->route], c, plan_slice_bytes(c, &pc->s, bytes), pc->s.slots,
		  pc->filling, pc->stream, ct);
}

/*
 * Pipe @pp's time in a call, its bottleneck and slices; and each of its
 * connections' busy time into @busy (busy_time), where the pipe moves
 * (*@noted), for the call's busiest connection (busiest_conn).
 */
static double time_pipe(const struct solver *sv, const struct plan_pattern *pat,
			const struct plan_pipe *pp, const struct conn_rate *cr,
			const struct route_way *ways, uint64_t bytes, unsigned nch, bool fill,
			const struct plan_conn **bott_out, struct conn_time *bott_ct_out,
			double *slices, double *busy, bool *noted)
{
	const struct plan_conn *bott = NULL, *shown = NULL;
	struct conn_time bott_ct = { 0 }, shown_ct = { 0 };
	struct pipe_call pc;
	struct plan_slicing s;
	double chain = 0, pi = 0, pi_slot = 0, t, last = 0, stream;
	unsigned bott_nseg = 0, shown_nseg = 0;
	bool filling, slower, same;

	pipe_call(sv, pat, pp, bytes, nch, fill, &pc);
	s = pc.s;
	filling = pc.filling;
	stream = pc.stream;
	*slices = 0;
	*noted = s.active;
	if (!s.active)
		return 0;
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

		pipe_conn_time(pat, cr, ways, bytes, &pc, k, &ct);
		busy[k] = busy_time(&ct, cr[k].nseg, s.slices);
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
		if (slower || (pp->shape == PIPE_RING && same && conn_last(c, &ct, s.slices > s.slots) > last)) {
			pi = ct.period;
			pi_slot = ct.slot;
			bott = c;
			bott_ct = ct;
			bott_nseg = cr[k].nseg;
			last = conn_last(c, &ct, s.slices > s.slots);
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
	chain = chain_time(cr, ways, pat, pp, &s, bytes, filling, stream);
	/* A paced stream's last slice leaves (K - 1) pi in and takes
	 * its links' tau, not pi (conn_last; the backends agree on
	 * this: model/simgrid_run.c spaces the slices' starts). */
	t = pipeline_time(&s, chain, pi, pi_slot, last,
			  pp->shape == PIPE_RING && s.slices > s.per_loop ?
				  ring_loop(cr, ways, pat, pp, &s, bytes, stream) : 0);
	*bott_out = shown;
	*bott_ct_out = shown_ct;
	*slices = s.slices;
	return t;
}

/* A pipe's timing in a call (time_pipe). */
struct pipe_timing {
	double t, slices;
	const struct plan_conn *bott;
	struct conn_time bott_ct;
	bool noted; /* its connections' busy times are in the call's */
};

struct pipes_job {
	const struct solver *sv;
	const struct plan_pattern *pat;
	const struct conn_rate *cr;
	const struct route_way *ways;
	uint64_t bytes;
	unsigned nch;
	bool fill;
	struct pipe_timing *pt;
	double *busy;
};

static int pipe_task(void *ctx, unsigned worker, size_t i)
{
	const struct pipes_job *j = ctx;
	struct pipe_timing *pt = &j->pt[i];

	(void)worker;
	pt->t = j->pat->pipes[i].delay + time_pipe(j->sv, j->pat, &j->pat->pipes[i], j->cr, j->ways,
						   j->bytes, j->nch, j->fill, &pt->bott,
						   &pt->bott_ct, &pt->slices, j->busy,
						   &pt->noted);
	return 0;
}

/* Every pipe's timing, a pipe a task (workers.h), into @pt, and each
 * connection's busy time into @busy. */
static int time_pipes(const struct solver *sv, const struct plan_pattern *pat,
		      const struct conn_rate *cr, const struct route_way *ways, uint64_t bytes,
		      unsigned nch, bool fill, struct pipe_timing *pt, double *busy)
{
	struct pipes_job j = { sv, pat, cr, ways, bytes, nch, fill, pt, busy };

	return workers_run(sv->nworkers, pat->npipes, pipe_task, &j);
}

/*
 * The call's busiest connection from each one's busy time, the pipes in
 * order: the first found, unless a later one is busier beyond SAME_PACE;
 * its slice times found again.
 */
static void busiest_conn(const struct solver *sv, const struct plan_pattern *pat,
			 const struct conn_rate *cr, const struct route_way *ways, uint64_t bytes,
			 unsigned nch, bool fill, const struct pipe_timing *pt, const double *busy,
			 struct busiest *b)
{
	size_t best = SIZE_MAX, best_pipe = 0;
	struct pipe_call pc;

	b->c = NULL;
	for (size_t i = 0; i < pat->npipes; i++) {
		const struct plan_pipe *pp = &pat->pipes[i];

		if (!pt[i].noted)
			continue;
		for (size_t k = pp->first_conn; k < pp->first_conn + pp->nconns; k++)
			if (best == SIZE_MAX || busy[k] > b->busy * (1 + SAME_PACE)) {
				best = k;
				best_pipe = i;
				b->busy = busy[k];
			}
	}
	if (best == SIZE_MAX)
		return;
	pipe_call(sv, pat, &pat->pipes[best_pipe], bytes, nch, fill, &pc);
	pipe_conn_time(pat, cr, ways, bytes, &pc, best, &b->ct);
	b->c = &pat->conns[best];
	b->slices = pc.s.slices;
}

static int time_call(const struct solver *sv, const struct plan_pattern *pat,
		     struct pattern_state *ps, uint64_t bytes, unsigned nch,
		     struct coll_record *rec)
{
	const struct plan *p = sv->p;
	const struct conn_rate *cr;
	const struct route_way *ways;
	struct conn_rate *by_time = NULL;
	const struct conn_links *links = NULL;
	const struct plan_conn *worst_conn = NULL;
	struct conn_time worst_ct = { 0 };
	struct busiest busiest = { 0 };
	struct pipe_timing *pt;
	double worst = 0, worst_slices = 0, worst_busy = 0, *busy;
	uint32_t window;
	bool fill;
	int err = 0;

	memset(rec->stage_us, 0, sizeof(rec->stage_us));
	memset(rec->stage_bytes, 0, sizeof(rec->stage_bytes));
	rec->nspans = 0;
	rec->time_us = 0;
	if (!pat->npipes || !bytes)
		return 0;
	pt = malloc(pat->npipes * sizeof(*pt));
	busy = malloc((pat->nconns ? pat->nconns : 1) * sizeof(*busy));
	if (!pt || !busy) {
		free(pt);
		free(busy);
		return -ENOMEM;
	}
	window = fill_window(p, pat, bytes, nch);
	ways = ways_for(p, pat, ps, &err);
	cr = ways ? rates_for(sv, pat, ps, nch, window, &err) : NULL;
	if (cr && window != NO_FILL) {
		by_time = time_rates(sv, pat, ps, ways, nch, window, bytes, cr, &err);
		cr = by_time;
	}
	if (!cr)
		goto out;
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
		err = time_pipes(sv, pat, cr, ways, bytes, nch, fill, pt, busy);
		for (size_t i = 0; !err && i < pat->npipes; i++) {
			if (!pt[i].slices)
				continue;
			if (!worst_conn || pt[i].t > worst) {
				worst = pt[i].t;
				worst_conn = pt[i].bott;
				worst_ct = pt[i].bott_ct;
				worst_slices = pt[i].slices;
			}
		}
		if (!err)
			busiest_conn(sv, pat, cr, ways, bytes, nch, fill, pt, busy, &busiest);
		if (fill && !links)
			links = links_for(sv, pat, ps, &err);
		again = fill && links && worst < busiest_link(sv, pat, links, bytes, nch, &err);
	}
	if (worst_conn)
		worst_busy = busy_time(&worst_ct, cr[worst_conn - pat->conns].nseg, worst_slices);
out:
	free(by_time);
	free(busy);
	free(pt);
	if (err)
		return err;
	rec->time_us = 1e6 * (pat->base_latency + worst);
	/*
	 * Shown: the slowest pipe's bottleneck, unless another connection of
	 * the call was busier. A pipe can be slowest by waiting for another
	 * (an NVLS-tree's NVLink pipe for its staged network hop): on the
	 * H100 preset's staged 1 GiB all-reduce the table showed that pipe's
	 * NVLink hop, 3.4 of 10.7 ms busy, as direct's, where the model
	 * backend, which shows the busiest connection (simgrid_run.c
	 * record_stages), showed the network hop's host copies busy for
	 * 10.6 ms.
	 */
	if (worst_conn && busiest.c && busiest.busy > worst_busy * (1 + SAME_PACE)) {
		worst_conn = busiest.c;
		worst_ct = busiest.ct;
		worst_slices = busiest.slices;
	}
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

/* Connections a pattern has at least for its solves to run side by side:
 * below, each workers_run's threads cost more than they share (some 20
 * us each, against a pattern of a few thousand connections solved in a
 * millisecond). */
#define ANALYTIC_THREADS_FROM 8192

/* How many workers solve side by side, into *@n: GDRLAB_ANALYTIC_THREADS
 * (1 to WORKERS_MAX), else the CPUs this process may use, at most
 * WORKERS_DEFAULT_MAX. The figures do not depend on it. */
static int analytic_threads(unsigned *n, struct diag *d)
{
	const char *env = getenv("GDRLAB_ANALYTIC_THREADS");
	char *end;
	long v;

	*n = child_call_cpus();
	if (*n > WORKERS_DEFAULT_MAX)
		*n = WORKERS_DEFAULT_MAX;
	if (!env || !*env)
		return 0;
	errno = 0;
	v = strtol(env, &end, 10);
	if (errno || *end || v < 1 || v > WORKERS_MAX)
		return diag_set(d, -EINVAL,
				"GDRLAB_ANALYTIC_THREADS: '%s' is not a number of threads from 1 to %d",
				env, WORKERS_MAX);
	*n = (unsigned)v;
	return 0;
}

static int analytic_run(const struct plan *p, struct records *rec,
			struct diag *d)
{
	struct maxmin_ws mm;
	struct use_pool pool = { NULL, 0 };
	struct solver sv = { .p = p, .nres = res_total(&p->layout), .mm = &mm, .pool = &pool };
	struct pattern_state *st;
	double *cap;
	/* GDRLAB_ANALYTIC_EVERY_CONN=1: no twin sets, to check them against */
	const char *every = getenv("GDRLAB_ANALYTIC_EVERY_CONN");
	int err = analytic_threads(&sv.nworkers, d);

	if (err)
		return err;
	sv.every_conn = every && *every && strcmp(every, "0");
	err = maxmin_ws_init(&mm, sv.nres);
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
		struct solver one = sv;
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
			/* a small pattern's solves take less than starting a
			 * thread would: one worker (a sweep of thousands of
			 * small points runs several processes at once) */
			one.nworkers = p->patterns[pc->pattern].nconns < ANALYTIC_THREADS_FROM ?
					       1 : sv.nworkers;
			err = time_call(&one, &p->patterns[pc->pattern], ps, pc->bytes,
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
			twins_destroy(&st[i].twins);
			free(st[i].ways);
		}
	free(st);
	free(cap);
	free(pool.uses);
	maxmin_ws_destroy(&mm);
	return err;
}

const struct backend_ops analytic_backend_ops = {
	.size = sizeof(struct backend_ops),
	.name = "analytic",
	.description = "closed form: NCCL's algorithms as slice pipelines, max-min shared",
	.caps = BACKEND_CAP_SIM_CLOCK | BACKEND_CAP_EXACT | BACKEND_CAP_ALGORITHMS,
	.run = analytic_run,
	/* a million sends: one 64 MiB alltoall on 128 nodes of 8 H100 (or
	 * busbw's whole table, the rates kept a pattern) in 1.3 s of CPU
	 * and 808 MiB on two tiers of rails, 3.3 s on a 3-tier Clos, whose
	 * ECMP uplinks give its max-min solve many levels (2026-12-06, a
	 * 2-core host, docs/performance.md); 2048 ranks, four times the
	 * sends, ran past ten minutes before the NICs were cached */
	.alltoall_max_ranks = 1024,
};
