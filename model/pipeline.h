/* SPDX-License-Identifier: MIT */
/*
 * pipeline: the closed-form time of one pipe (plan.h): slices flowing
 * through connections, each slice moving on as soon as it has arrived
 * and the next connection has a free slot. No step, no barrier.
 *
 * Connection c passes a slice in tau_c (its segments store and forward
 * it: sum over segments of per-slice work + slice / bandwidth) plus its
 * latency l_c, and in steady state takes one slice every pi_c (its
 * slowest segment, its share of the links, or its slots' round trip
 * (tau_c + 2 x the links' latency) / slots, whichever is longest; the
 * slots pace only runs of more slices than there are slots). The pipe's slowest
 * connection sets the period pi. A connection carries K slices, P of them
 * per loop; a slice of the last loop's slowest chunk crosses the chain,
 * with m - 1 more of its stream behind it. The last slice then ends at
 *
 *   T = max( (K - P) / P max(P pi, loop) + sum over the chain (l + tau)
 *              + (m - 1) pi,
 *            K pi + l_b )
 *
 * the latest of the two ways it can be late: waiting behind the loops
 * before it and then crossing the chain (latency-bound), or behind every
 * slice of the slowest connection (bandwidth-bound). A loop before the
 * last takes its P slices at the pipe's pace, or @loop where its own
 * steps' hops take longer (a ring's: model/analytic.c ring_loop; 0 for
 * none). For a chain of h
 * equal hops and K = P = m slices this is h (l + tau) + (K - 1) tau, the
 * textbook pipeline; for a ring of n ranks with many slices it is
 * V / B + l, the per-link volume over the bottleneck.
 */
#ifndef GDRLAB_PIPELINE_H
#define GDRLAB_PIPELINE_H

#include "plan.h"

double pipeline_time(const struct plan_slicing *s, double chain,
		     double period, double slot_period, double last_latency,
		     double loop);

/*
 * The slots' round trip over the slots: a slice's slot comes back once the
 * slice has landed and the credit has come back, each the links' own
 * latency (@links). NCCL's per-hop latency (its proxy and kernel waking
 * up to pass a slice on) delays when the next hop can forward a slice,
 * not when a slot turns over: the slots run at the links' pace, which is
 * what lets NCCL's small chunks still stream.
 */
double pipeline_slot_period(double links, double tau, unsigned slots);

#endif
