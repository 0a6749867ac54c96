/* SPDX-License-Identifier: MIT */
#include "pipeline.h"

#include <math.h>
#include <string.h>

static double min2(double a, double b)
{
	return a < b ? a : b;
}

static double max2(double a, double b)
{
	return a > b ? a : b;
}

struct segment {
	double latency, overhead, bandwidth, per_chunk;
};

static unsigned segments_of(const struct plan_transfer *t,
			    const struct pipeline_share *share, double chunk,
			    struct segment *seg)
{
	unsigned nseg = 0;

	for (unsigned i = 0; i < t->nstages; i++) {
		const struct plan_stage *s = &t->stages[i];
		struct segment *g = &seg[s->segment];

		if (s->segment >= nseg) {
			for (unsigned k = nseg; k <= s->segment; k++)
				seg[k] = (struct segment){ 0, 0, INFINITY, 0 };
			nseg = s->segment + 1;
		}
		g->latency += s->latency;
		g->overhead += s->chunk_overhead;
		g->bandwidth = min2(g->bandwidth, s->bandwidth);
	}
	for (unsigned k = 0; k < nseg; k++) {
		if (share)
			seg[k].bandwidth = min2(seg[k].bandwidth, share->segment_bw[k]);
		seg[k].per_chunk = seg[k].overhead + chunk / seg[k].bandwidth;
	}
	return nseg;
}

void pipeline_time(const struct plan_transfer *t, double bytes,
		   const struct pipeline_share *share, uint64_t chunk_bytes,
		   unsigned buffers, struct pipeline_result *out)
{
	struct segment seg[PLAN_MAX_STAGES];
	double rate = share ? share->rate : INFINITY;
	double chunk, nchunks, period = 0, at = 0;
	unsigned nseg;

	memset(out, 0, sizeof(*out));
	if (bytes <= 0 || t->nstages == 0)
		return;
	if (!t->chunked) {
		/* One cut-through segment: the whole message streams. */
		chunk = bytes;
		nchunks = 1;
	} else {
		chunk = min2((double)chunk_bytes, bytes);
		nchunks = bytes / chunk;
	}
	nseg = segments_of(t, share, chunk, seg);

	for (unsigned k = 0; k < nseg; k++)
		period = max2(period, seg[k].per_chunk);
	if (isfinite(rate) && rate > 0)
		period = max2(period, chunk / rate);
	if (t->chunked && buffers) {
		/* A sender bounce buffer is busy from the copy into it until
		 * the RDMA that drains it completes; a receiver one from the
		 * RDMA into it until the copy out. */
		if (t->stages[0].kind == STAGE_D2H && nseg >= 2)
			period = max2(period, (seg[0].per_chunk + seg[1].per_chunk +
					       seg[1].latency) / buffers);
		if (t->stages[t->nstages - 1].kind == STAGE_H2D && nseg >= 2)
			period = max2(period, (seg[nseg - 2].per_chunk +
					       seg[nseg - 2].latency +
					       seg[nseg - 1].per_chunk) / buffers);
	}
	if (!t->chunked) {
		/* The whole message at the transfer's rate. */
		double bw = seg[0].bandwidth;

		if (isfinite(rate) && rate > 0)
			bw = min2(bw, rate);
		period = bytes / bw;
	}

	/* Stage spans: a segment starts when the first chunk leaves the one
	 * before it, and ends when its last chunk is through. */
	for (unsigned k = 0, i = 0; k < nseg; k++) {
		double seg_time = seg[k].latency + (t->chunked ? seg[k].per_chunk +
						   (nchunks - 1) * period : period);
		double lat_in = 0;

		for (; i < t->nstages && t->stages[i].segment == k; i++) {
			out->stage_start[i] = at + lat_in;
			lat_in += t->stages[i].latency;
			out->stage_end[i] = at + seg_time;
		}
		if (k + 1 < nseg)
			at += seg[k].latency + seg[k].per_chunk;
		else
			out->time = at + seg_time;
	}
}
