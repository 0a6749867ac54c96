/* SPDX-License-Identifier: MIT */
/*
 * pipeline: the closed-form time of one transfer along its stages.
 *
 * Stages of one segment pass data through cut-through (the NIC streams what
 * it reads onto the wire while the far NIC writes it), so one segment costs
 * its latencies plus bytes over its slowest stage. A staged transfer is cut
 * into chunks that go from segment to segment (copy, then RDMA, then copy)
 * through a fixed number of bounce buffers, so with n chunks:
 *
 *   T = sum of latencies + sum_k s_k + (n - 1) * P
 *
 * where s_k = overhead_k + chunk / bandwidth_k is the time a chunk spends in
 * segment k and P, the period at which chunks leave, is the largest s_k, or
 * chunk / rate when sharing gives the transfer less than its slowest stage,
 * or a buffer's round trip over the number of buffers when buffers run out.
 * Unchunked (direct) transfers reduce to T = latencies + bytes / rate.
 */
#ifndef GDRLAB_PIPELINE_H
#define GDRLAB_PIPELINE_H

#include <stdint.h>

#include "plan.h"

struct pipeline_result {
	double time;                          /* seconds */
	double stage_start[PLAN_MAX_STAGES];  /* seconds from the start */
	double stage_end[PLAN_MAX_STAGES];
};

/*
 * What a transfer gets while the others of its step run.
 * @rate: its max-min share with all its segments busy at once (the steady
 * state of a long pipeline); INFINITY when nothing limits it.
 * @segment_bw: per segment, its max-min share when each transfer's segment
 * competes only with the same segment of the others: the transfers of a
 * step move in phase, so while chunks fill or drain the pipeline (and for a
 * transfer of one chunk) the copies of a step contend with each other, not
 * with the RDMA of the next chunk.
 */
struct pipeline_share {
	double rate;
	double segment_bw[PLAN_MAX_STAGES];
};

/*
 * Time @t carrying @bytes with @share, with @chunk-byte bounce buffers,
 * @buffers of them per side. @share may be NULL: uncontended.
 */
void pipeline_time(const struct plan_transfer *t, double bytes,
		   const struct pipeline_share *share, uint64_t chunk,
		   unsigned buffers, struct pipeline_result *out);

#endif
