/* SPDX-License-Identifier: MIT */
/*
 * collectives: the algorithms of the plan with real data on the verbs path.
 *
 * all-reduce = ring reduce-scatter + ring all-gather, reduce-scatter and
 * all-gather on the same ring, broadcast as a pipelined chain from the
 * root, alltoall as pairwise exchange, send/recv. The ring is the plan's
 * channel 0: emu moves every byte over one channel (a real NCCL run
 * spreads them over one ring per NIC).
 *
 * Inputs are small integers (see dtype.h) so every result is known exactly
 * and checked byte for byte after the timed part.
 */
#ifndef GDRLAB_EMU_COLLECTIVES_H
#define GDRLAB_EMU_COLLECTIVES_H

#include <stdbool.h>
#include <stdint.h>

#include "plan.h"
#include "verbs_path.h"

struct emu_coll {
	const struct plan *plan;
	const struct plan_pattern *pat;
	enum trace_dtype dtype;
	uint64_t bytes;   /* per rank, as the trace says */
	unsigned salt;    /* changes the data from one collective to the next */
	unsigned rank;    /* this process */
	uint64_t half;    /* offset of the output half of the data region */
	bool corrupt;     /* fault injection: spoil one output byte before
			   * the check (GDRLAB_EMU_CORRUPT, emu_rank.c) */
};

/* Data region bytes that a collective of @bytes needs. */
uint64_t emu_coll_region(uint64_t max_bytes);
/* The largest collective of @p, in bytes: what the region is sized by. */
uint64_t emu_coll_max_bytes(const struct plan *p);

/* Which sides of @s's send and receive are staged, and which stay in the
 * node, as @pat moves data between @rank and its peers. */
void emu_step_paths(const struct plan_pattern *pat, unsigned rank,
		    struct vp_step *s);

/* -EINVAL with a reason when emu cannot run it (sizes, dtype range). */
int emu_coll_validate(const struct emu_coll *ec, struct diag *d);
/* Fill this rank's input (untimed). */
int emu_coll_prepare(struct vp_ctx *c, const struct emu_coll *ec,
		     struct diag *d);
/* The timed part: the algorithm's steps. */
int emu_coll_run(struct vp_ctx *c, const struct emu_coll *ec,
		 struct vp_times *t, struct diag *d);
/* Compare this rank's output with the expected values. */
int emu_coll_check(struct vp_ctx *c, const struct emu_coll *ec,
		   uint64_t *verified, uint64_t *errors, struct diag *d);

#endif
