/* SPDX-License-Identifier: MIT */
#include "pipeline.h"

double pipeline_time(const struct plan_slicing *s, double chain,
		     double period, double last_latency)
{
	double lat_bound = (s->slices - s->per_loop) * period + chain +
			   (s->per_stream - 1) * period;
	double bw_bound = s->slices * period + last_latency;

	return lat_bound > bw_bound ? lat_bound : bw_bound;
}

double pipeline_slot_period(double latency, double tau, unsigned slots)
{
	return slots ? (2 * latency + tau) / slots : 0;
}
