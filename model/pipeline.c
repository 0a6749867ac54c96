/* SPDX-License-Identifier: MIT */
#include "pipeline.h"

#include <math.h>

double pipeline_pace(double n, double period, double slot_period, unsigned slots)
{
	return n > slots && slot_period > period ? slot_period : period;
}

double pipeline_time(const struct plan_slicing *s, double chain,
		     double period, double slot_period, double last_latency,
		     double loop)
{
	double all = pipeline_pace(s->slices, period, slot_period, s->slots);
	double before = s->per_loop > 0 ? (s->slices - s->per_loop) / s->per_loop : 0;
	double lat_bound = before * fmax(s->per_loop * all, loop) + chain +
			   (s->per_stream - 1) *
				   pipeline_pace(s->per_stream, period, slot_period, s->slots);
	double bw_bound = s->slices * all + last_latency;

	return lat_bound > bw_bound ? lat_bound : bw_bound;
}

double pipeline_slot_period(double fifo_tau, double credit_trip, unsigned slots)
{
	return slots ? (fifo_tau + credit_trip) / slots : 0;
}

double pipeline_credit_trip(double links, double hop_latency, bool proxy)
{
	return links + (proxy ? hop_latency : links);
}
