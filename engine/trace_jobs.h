/* SPDX-License-Identifier: MIT */
/*
 * trace_jobs: several jobs on one cluster, as one trace. Each job's trace
 * is moved onto its own nodes (its ranks shifted), its communicators
 * renamed "jobK/<name>" so that no two jobs share one: the schedule then
 * runs them at once and they share whatever links both use (with
 * switches modelled, the uplinks their hops hash onto; docs/model.md
 * §5a). Each collective's alone_us against its time_us is then its
 * slowdown from the others (records.h); trace_jobs_slowdown sums it per
 * job. Iterations are the cluster's: the jobs' iteration k run together.
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

/*
 * Per job @k < @n of @merged: the sum of its collectives' times together
 * and alone, in @together[k] and @alone[k] (us). */
void trace_jobs_slowdown(const struct trace *merged, const struct records *r, size_t n,
			 double *together, double *alone);

#endif
