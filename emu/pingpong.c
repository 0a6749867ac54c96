/* SPDX-License-Identifier: MIT */
/*
 * The data path's small-message latency measured as ib_write_lat measures
 * a NIC's: rank 0 sends 8 bytes to the first rank of the next node, which
 * sends them back as soon as they have arrived, @rounds times; half the
 * median round trip is the one-way latency (perftest's "t_typical").
 *
 * A collective's time cannot stand for it. An emu send/recv is timed on
 * each rank from its own release from the barrier: the sender's ends
 * with its write's completion (the ACK, a whole round trip) and the
 * receiver's starts at its own release, which under a loaded host comes
 * tens of microseconds after the sender's. The ping-pong has no barrier
 * inside it, only data dependencies, so it measures what the verbs path
 * adds to the NIC's own latency: posting, the completion loop, credits,
 * the copy out of the slot, the staged copies where the path has them.
 */
#include "pingpong.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collectives.h"
#include "sort_doubles.h"

#define PINGPONG_WARMUP 10 /* rounds not counted: first touches, caches */

/* The first rank of the second node; -1 when the plan has one node. */
static int pingpong_peer(const struct plan *p)
{
	return p->nranks > p->gpus_per_node ? (int)p->gpus_per_node : -1;
}

/* One leg: @bytes to @to, or from @from, on the path the run's first
 * collective takes between the two. */
static int leg(struct vp_ctx *c, const struct plan *p, unsigned rank,
	       int to, int from, uint64_t bytes, uint64_t half, struct diag *d)
{
	const struct plan_pattern *pat = &p->patterns[p->collectives[0].pattern];
	struct vp_step s = {
		.send_to = to, .recv_from = from,
		.send_len = bytes, .recv_len = bytes,
		.recv_off = half,
		.consume = VP_COPY,
		.dtype = TRACE_DTYPE_INT8,
	};
	struct vp_times t;

	memset(&t, 0, sizeof(t));
	emu_step_paths(pat, rank, &s);
	return vp_step_run(c, &s, &t, d);
}

int emu_pingpong(struct vp_ctx *c, const struct plan *p, unsigned rank,
		 unsigned rounds, double *one_way_us, struct diag *d)
{
	int peer = pingpong_peer(p);
	uint64_t bytes = EMU_PINGPONG_BYTES;
	uint64_t half = emu_coll_region(emu_coll_max_bytes(p)) / 2;
	double *rtt, prev;
	int err = 0;

	*one_way_us = 0;
	/* no network between the two, or a region too small for 8 bytes
	 * each way (a trace of empty collectives) */
	if (!rounds || peer < 0 || !p->ncollectives || half < bytes ||
	    (rank != 0 && rank != (unsigned)peer))
		return 0;
	rtt = calloc(rounds, sizeof(*rtt));
	if (!rtt)
		return diag_set(d, -ENOMEM, "out of memory");
	/* one clock read a round, a round's end the next one's start (as
	 * perftest takes its latency from consecutive posts' cycles): a
	 * read is a system call under a guest's HPET, 2.6 us under TCG */
	prev = vp_now_us();
	for (unsigned k = 0; !err && k < rounds + PINGPONG_WARMUP; k++) {
		double now;

		if (rank == 0) {
			err = leg(c, p, rank, peer, -1, bytes, half, d);
			if (!err)
				err = leg(c, p, rank, -1, peer, bytes, half, d);
		} else {
			err = leg(c, p, rank, -1, 0, bytes, half, d);
			if (!err)
				err = leg(c, p, rank, 0, -1, bytes, half, d);
		}
		now = vp_now_us();
		if (k >= PINGPONG_WARMUP)
			rtt[k - PINGPONG_WARMUP] = now - prev;
		prev = now;
	}
	if (!err && rank == 0) {
		sort_doubles(rtt, rounds);
		*one_way_us = rtt[rounds / 2] / 2;
	}
	free(rtt);
	return err;
}
