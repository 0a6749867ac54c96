/* SPDX-License-Identifier: MIT */
#include "records.h"
#include "plan.h"

static double max2(double a, double b)
{
	return a > b ? a : b;
}

static void place_collectives(struct records *r)
{
	double iter_start = 0, stream_free = 0;
	size_t i = 0;

	for (unsigned it = 0; it < r->niter; it++) {
		struct iter_record *ir = &r->iter[it];
		double end;

		ir->start_us = iter_start;
		end = iter_start + ir->compute_us;
		for (; i < r->ncoll && r->coll[i].iteration == it; i++) {
			struct coll_record *c = &r->coll[i];

			c->start_us = max2(iter_start + c->ready_us, stream_free);
			c->end_us = c->start_us + c->time_us;
			stream_free = c->end_us;
			end = max2(end, c->end_us);
		}
		ir->end_us = end;
		iter_start = end;
	}
}

void records_schedule(struct records *r)
{
	double total_iter = 0, total_comm = 0, total_exposed = 0;

	if (!r->scheduled)
		place_collectives(r);
	for (unsigned it = 0; it < r->niter; it++)
		r->iter[it].comm_us = 0;
	for (size_t i = 0; i < r->ncoll; i++) {
		struct coll_record *c = &r->coll[i];
		double algbw = c->time_us > 0 ? c->bytes / (c->time_us * 1e3) : 0;

		/* nccl-tests: algbw = S / t, busbw = algbw * factor (GB = 1e9 B) */
		c->algbw_gbps = algbw;
		c->busbw_gbps = algbw * plan_bus_factor(c->op, c->nranks);
		r->iter[c->iteration].comm_us += c->time_us;
	}
	for (unsigned it = 0; it < r->niter; it++) {
		struct iter_record *ir = &r->iter[it];
		double t = ir->end_us - ir->start_us;

		ir->exposed_us = max2(t - ir->compute_us, 0);
		total_iter += t;
		total_comm += ir->comm_us;
		total_exposed += ir->exposed_us;
	}
	if (r->niter) {
		r->iteration_time_us = total_iter / r->niter;
		r->comm_time_us = total_comm / r->niter;
		r->exposed_comm_us = total_exposed / r->niter;
	}
}
