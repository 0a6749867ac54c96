/* SPDX-License-Identifier: MIT */
/*
 * pipeline: the closed-form time of one pipe (plan.h): slices flowing
 * through connections, each slice moving on as soon as it has arrived
 * and the next connection has a free slot. No step, no barrier.
 *
 * Connection c passes a slice in tau_c (its segments store and forward
 * it: sum over segments of per-slice work + slice / bandwidth) plus its
 * latency l_c, and in steady state takes one slice every pi_c (its
 * slowest segment, its share of the links, or its slots' turnover,
 * pipeline_slot_period below, whichever is longest; the slots pace only
 * runs of more slices than there are slots). The pipe's slowest
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
 * none). For a chain of h equal hops and K = P = m slices this is
 * h (l + tau) + (K - 1) tau, the textbook pipeline; for a ring of n ranks
 * with many slices it is V / B + l, the per-link volume over the
 * bottleneck.
 */
#ifndef GDRLAB_PIPELINE_H
#define GDRLAB_PIPELINE_H

#include "plan.h"

double pipeline_time(const struct plan_slicing *s, double chain,
		     double period, double slot_period, double last_latency,
		     double loop);

/* The pace of a run of @n slices: its slots' only once it has more
 * slices than slots (the first slots' worth goes without waiting). */
double pipeline_pace(double n, double period, double slot_period, unsigned slots);

/*
 * When the @i-th slice (from 0) of a run that is all there at once can
 * leave: i periods in while it has a slot of its own; beyond, a slot is
 * taken again a whole turnover (slots x @slot_period: its slice's FIFO
 * and the credit back) after its previous slice took it, so the run goes
 * in rounds of @slots slices a turnover apart, each round's slices a
 * period apart. Not i x slot_period: that is the rate in steady state,
 * and takes the first round's slices, which wait for no credit, a
 * turnover late (a short run of a ring's 6 slices through 4 network
 * slots, or a send's 512 chunks through 8, ended one credit trip late).
 */
double pipeline_start(double i, double period, double slot_period, unsigned slots);

/*
 * A FIFO's slots over the slots: a slot turns over once its slice has
 * crossed the segments the FIFO spans (@fifo_tau) and its credit has come
 * back (@credit_trip). Inside a node, and through the memcpy staging, one
 * FIFO spans the whole route (tau) and the slice lands and the credit
 * returns each at the links' own latency: credit_trip = 2 x links; the
 * slots run at the links' pace, which is what lets NCCL's small chunks
 * still stream. Across the network NCCL's proxy keeps two FIFOs
 * (plan_route_proxy_fifos, transport/net.cc): the sender's spans the GPU's
 * stores to host memory and the NIC, the receiver's the NIC and the GPU's
 * loads, and a credit comes back only through a proxy poll and a verbs
 * post: fifo_tau is the longer FIFO's and credit_trip = links + NCCL's
 * per-hop latency. The caller takes the slower FIFO.
 */
double pipeline_slot_period(double fifo_tau, double credit_trip, unsigned slots);

/*
 * pipeline_slot_period's credit_trip for a route whose links' latency is
 * @links: through NCCL's proxy (@proxy, plan_route_proxy_fifos) the slice
 * lands at the links' pace and its credit waits for the proxy's poll and
 * post, NCCL's per-hop latency @hop_latency; otherwise both run at the
 * links' own.
 */
double pipeline_credit_trip(double links, double hop_latency, bool proxy);

#endif
