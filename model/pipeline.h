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
 * Time @t carrying @bytes at @rate bytes/s (its max-min share; INFINITY
 * when alone and unconstrained), with @chunk-byte bounce buffers, @buffers
 * of them per side.
 */
void pipeline_time(const struct plan_transfer *t, double bytes, double rate,
		   uint64_t chunk, unsigned buffers, struct pipeline_result *out);

#endif
