/* SPDX-License-Identifier: MIT */
/* The verbs path's one-way latency, timed as ib_write_lat times a NIC's. */
#ifndef GDRLAB_EMU_PINGPONG_H
#define GDRLAB_EMU_PINGPONG_H

#include "plan.h"
#include "verbs_path.h"

#define EMU_PINGPONG_BYTES 8
#define EMU_PINGPONG_ROUNDS 100 /* default; GDRLAB_EMU_PINGPONG sets it */

/*
 * @rounds round trips of 8 bytes between rank 0 and the first rank of
 * the second node over the data path of the plan's first collective,
 * after 10 not counted; rank 0 gets half the median round trip in @one_way_us, every
 * other rank 0. Ranks that take no part, a plan of one node and 0 rounds
 * return at once. Run after vp_connect and before any collective: it
 * takes slots and hands them back as a collective does.
 */
int emu_pingpong(struct vp_ctx *c, const struct plan *p, unsigned rank,
		 unsigned rounds, double *one_way_us, struct diag *d);

#endif
