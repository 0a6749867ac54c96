/* SPDX-License-Identifier: MIT */
/*
 * A connection's slice times in the analytic backend: from the shares its
 * links left it (analytic_share.c), how long a slice takes through its
 * segments, how often it passes one in steady state or as its slots turn
 * over, and when its last one lands.
 */
#include <math.h>

#include "analytic_internal.h"
#include "pipeline.h"

/* What the slower of a connection's FIFOs spans of its slice's way. */
static double slot_fifo_tau(const struct conn_time *t, unsigned nseg,
			    const struct route_way *w)
{
	double send = 0, recv = 0;

	if (!w->proxy)
		return t->tau;
	for (unsigned k = 0; k < nseg; k++) {
		if (k <= w->send_last)
			send += t->seg_tau[k];
		if (k >= w->recv_first)
			recv += t->seg_tau[k];
	}
	return send > recv ? send : recv;
}

/*
 * What a slice of @slice bytes takes through segments it crosses at once
 * (route_way.cut_grain: the receiver passes each grain on as it lands):
 * its slowest segment, or all of them at their joint share where that is
 * slower (segments that cross one link split it), and then the other
 * segments' last grain. A grain itself goes store and forward: the sum.
 */
static double cut_tau(const struct conn_rate *r, const struct route_way *w,
		      const struct conn_time *t, double slice)
{
	double ovh = 0, slowest = 0, grain_sum = 0, grain_max = 0;

	for (unsigned k = 0; k < r->nseg; k++) {
		double bw = r->seg_bw[k];
		double g = isfinite(bw) && bw > 0 ? w->cut_grain / bw : 0;

		ovh += w->seg_ovh[k];
		slowest = fmax(slowest, t->seg_tau[k]);
		grain_sum += g;
		grain_max = fmax(grain_max, g);
	}
	return fmax(slowest, ovh + slice / r->cut_rate) + grain_sum - grain_max;
}

/*
 * Connection @c's, its shares @r, its route's way @w. @filling: a chain
 * of fewer slices than hops, whose links are shared only by the
 * connections whose slices move at once (conn_rate.fill), never more
 * than while the pipe fills; else the steady share.
 */
void conn_time(const struct conn_rate *r, const struct route_way *w, const struct plan_conn *c,
	       double slice, unsigned slots, bool filling, double stream_cap,
	       struct conn_time *t)
{
	double eff = filling ? r->fill : r->rate, steady;

	t->tau = 0;
	for (unsigned k = 0; k < r->nseg; k++) {
		double bw = r->seg_bw[k];

		t->seg_tau[k] = w->seg_ovh[k] + (isfinite(bw) && bw > 0 ? slice / bw : 0);
		t->tau += t->seg_tau[k];
		if (bw < eff)
			eff = bw;
	}
	if (w->cut_grain > 0 && slice > w->cut_grain && r->cut_rate > 0)
		t->tau = cut_tau(r, w, t, slice);
	steady = isfinite(eff) && eff > 0 ? slice / eff : 0;
	/* In steady state the flow passes a slice every slice / its share,
	 * and each segment takes one at a time with its own work. */
	t->period = steady;
	t->joint = steady;
	for (unsigned k = 0; k < r->nseg; k++)
		if (t->seg_tau[k] > t->period)
			t->period = t->seg_tau[k];
	if (r->held || t->period > steady * (1 + SAME_PACE))
		t->joint = 0;
	/* However few slices share the links, the stream takes no more
	 * than its limit allows; it is paced too where its steady share
	 * is that limit (share_conns() caps the steady shares at it). */
	t->held = r->held;
	t->paced = isfinite(stream_cap) && stream_cap > 0 &&
		   slice / stream_cap >= t->period * (1 - SAME_PACE);
	if (t->paced && slice / stream_cap > t->period)
		t->period = slice / stream_cap;
	t->slot = pipeline_slot_period(slot_fifo_tau(t, r->nseg, w),
				       pipeline_credit_trip(w->latency, c->latency, w->proxy),
				       slots);
}

/* The longest a slice takes through one of a connection's segments. */
double slowest_segment(const struct conn_time *t, unsigned nseg)
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
 * slice takes its links' pace: plan.h stream_cap). At its own links'
 * pace, a slice handed over whole between segments with links of their
 * own (SHM's store into host memory and the peer's load from it, a
 * staged hop's copies) still crosses the segments besides the slowest:
 * the last one leaves the slowest K periods in and lands tau - period
 * later than one segment would. Held to its pipe's pace by its inputs
 * (a ring's SHM hop behind a slower network hop), a connection passes
 * each slice as it comes, its last one a step before the slowest's.
 * @slots_bind: the connection has more slices than slots.
 */
double conn_last(const struct plan_conn *c, const struct conn_time *ct, bool slots_bind)
{
	/* Slots that turn over slower than the period hold the slices
	 * apart only where there are more slices than slots
	 * (pipeline_pace): K <= slots go at the period. */
	if (slots_bind && ct->slot > ct->period)
		return c->latency;
	if (ct->paced)
		return c->latency + ct->tau - ct->period;
	return c->latency + (ct->held ? 0 : fmax(0, ct->tau - ct->period));
}

/*
 * What a slice of @slice bytes takes to cross @c's hop: its latency and
 * tau, a cut-through hop holding it back by one grain only. @whole: the
 * slice's conn_time where the caller has it, else NULL.
 */
double hop_time(const struct conn_rate *r, const struct route_way *w,
		const struct plan_pattern *pat, const struct plan_conn *c, double slice,
		unsigned slots, bool filling, double stream, const struct conn_time *whole)
{
	double grain = proto_get(pat->proto)->grain;
	struct conn_time ct;

	if (pat->routes[c->route].cut_through && slice > grain)
		slice = grain;
	else if (whole)
		return c->latency + whole->tau;
	conn_time(r, w, c, slice, slots, filling, stream, &ct);
	return c->latency + ct.tau;
}
