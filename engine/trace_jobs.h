/* SPDX-License-Identifier: MIT */
/*
 * trace_jobs: several jobs on one cluster, as one trace. Each job's trace
 * is moved onto its own nodes (its ranks shifted), its communicators
 * renamed "jobK/<name>" so that no two jobs share one: the schedule then
 * runs them at once and they share whatever links both use (with
 * switches modelled, the uplinks their hops hash onto; docs/model.md
 * §5a). Each collective's alone_us against its time_us is then its
 * slowdown from the others (records.h); trace_jobs_times gives it per
 * job. Each job keeps its own iterations (records.iter, job by job): its
 * iteration k starts when its own k - 1 has ended, not the cluster's.
 */
#ifndef GDRLAB_TRACE_JOBS_H
#define GDRLAB_TRACE_JOBS_H

#include <stddef.h>

#include "records.h"
#include "trace.h"

struct trace_job {
	const struct trace *trace; /* borrowed */
	unsigned nranks;           /* its world: ranks 0..nranks-1 */
	const unsigned *ranks;     /* borrowed: where its rank i goes, nranks
				    * of them; NULL: first_rank + i */
	unsigned first_rank;
};

/*
 * Merge @n jobs into @out (entries by iteration, job order within one).
 * No cluster rank may belong to two jobs. 0, -ENOMEM, or -EINVAL with @d
 * filled (overlapping jobs, a rank beyond its job's world, a name that
 * grows too long).
 */
int trace_jobs_merge(const struct trace_job *jobs, size_t n, struct trace *out,
		     struct diag *d);

/* The job of merged entry @e (its communicator's "jobK/" prefix), or -1. */
int trace_jobs_of(const struct trace *merged, const struct trace_entry *e);

/* One job's figures, means over its own iterations (us). */
struct trace_jobs_time {
	unsigned iterations;
	double iteration_us, exposed_us;
	double together_us, alone_us; /* its calls' times, summed an iteration */
};

/* Per job @k < @n of @merged, its figures from @r in @out[k]. */
void trace_jobs_times(const struct trace *merged, const struct records *r, size_t n,
		      struct trace_jobs_time *out);

#endif
