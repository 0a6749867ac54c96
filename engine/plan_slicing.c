/* SPDX-License-Identifier: MIT */
/*
 * plan_slicing: chunks, loops and slices of one call, as NCCL's kernels
 * cut a channel's share (src/device/all_reduce.h, prims_simple.h;
 * enqueue.cc calcCollChunking). A ring moves its data in loops of one
 * chunk per rank; every other pipe streams its data in chunks through
 * its chain. Where the data is no whole number of full chunks, NCCL
 * shrinks the last loop's chunks; here every loop's chunks shrink alike
 * to the same count of loops, so that all slices of a call are equal and
 * both backends count the same slices.
 */
#include "plan.h"

#include <math.h>

#include "algo.h"

void plan_slicing(const struct plan *p, const struct plan_pattern *pat,
		  const struct plan_pipe *pp, uint64_t bytes,
		  unsigned nchannels, struct plan_slicing *s)
{
	const struct algo_ops *ops = algo_table[pat->algo];
	unsigned nch = nchannels ? nchannels : 1;
	/* gdrlab's own ring keeps the chunk plan.c gave it, not NCCL's. */
	double full = (double)(ops->chunk && !p->opts.ring_only ?
				       ops->chunk(p, pat, pp, bytes, nch) : pp->chunk_bytes);
	double data;
	bool memcpy_way = false;

	s->active = pp->channel < nch;
	s->scale = (double)pat->nchannels / nch;
	data = (double)bytes * pp->share * s->scale;
	if (pp->shape == PIPE_RING) {
		double loops = ceil(data / (pp->ranks * full));

		if (loops < 1)
			loops = 1;
		s->chunk = data / (pp->ranks * loops);
		s->per_stream = pp->slices_per_chunk;
		s->per_loop = (double)pp->steps * pp->slices_per_chunk;
		s->slices = loops * s->per_loop;
	} else {
		s->slices = full > 0 ? ceil(data / full) : 1;
		if (s->slices < 1)
			s->slices = 1;
		s->chunk = data / s->slices;
		s->per_loop = s->slices;
		s->per_stream = s->slices;
	}
	s->slots = PROTO_STEPS / (pp->slice_steps ? pp->slice_steps : 1);
	for (size_t i = 0; i < pp->nconns && !memcpy_way; i++)
		memcpy_way = pat->routes[pat->conns[pp->first_conn + i].route].memcpy;
	/* MPI's bounce buffers are its slots. */
	if (memcpy_way && p->topo.staging.buffers)
		s->slots = p->topo.staging.buffers;
}
