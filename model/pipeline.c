/* SPDX-License-Identifier: MIT */
#include "pipeline.h"

#include <math.h>

double pipeline_pace(double n, double period, double slot_period, unsigned slots)
{
	return n > slots && slot_period > period ? slot_period : period;
}

double pipeline_start(double i, double period, double slot_period, unsigned slots)
{
	double rounds;

	if (i < slots || slot_period <= period)
		return i * period;
	/* slot i mod slots's (i / slots)-th use: a whole turnover (its
	 * slice's FIFO and the credit back, slots x slot_period) after its
	 * previous one, the slots of a round following at the period */
	rounds = floor(i / slots);
	return rounds * slots * slot_period + (i - rounds * slots) * period;
}

double pipeline_time(const struct plan_slicing *s, double chain,
		     double period, double slot_period, double last_latency,
		     double loop)
{
	double all = pipeline_pace(s->slices, period, slot_period, s->slots);
	double before = s->per_loop > 0 ? (s->slices - s->per_loop) / s->per_loop : 0;
	double lat_bound = before * fmax(s->per_loop * all, loop) + chain +
			   pipeline_start(s->per_stream - 1, period, slot_period, s->slots);
	double bw_bound = all > period ?
		pipeline_start(s->slices - 1, period, slot_period, s->slots) + period +
			last_latency :
		s->slices * all + last_latency;

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
