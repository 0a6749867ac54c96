/* SPDX-License-Identifier: MIT */
#include "trace_jobs.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned place(const struct trace_job *job, unsigned r)
{
	return job->ranks ? job->ranks[r] : job->first_rank + r;
}

/* Whether two jobs put a rank in one place: a mark per cluster rank. */
static int check_disjoint(const struct trace_job *jobs, size_t n, struct diag *d)
{
	unsigned most = 0;
	unsigned char *owner;
	int err = 0;

	for (size_t k = 0; k < n; k++)
		for (unsigned i = 0; i < jobs[k].nranks; i++)
			if (place(&jobs[k], i) + 1 > most)
				most = place(&jobs[k], i) + 1;
	owner = calloc(most ? most : 1, 1);
	if (!owner)
		return diag_set(d, -ENOMEM, "jobs: out of memory");
	for (size_t k = 0; k < n && !err; k++)
		for (unsigned i = 0; i < jobs[k].nranks && !err; i++) {
			unsigned r = place(&jobs[k], i);

			if (owner[r])
				err = diag_set(d, -EINVAL, "jobs: rank %u is in two jobs (job %zu's rank %u)",
					       r, k, i);
			owner[r] = 1;
		}
	free(owner);
	return err;
}

/* Copy entry @src of job @k into the next slot of @out, shifted. */
static int copy_entry(const struct trace_job *job, unsigned k, const struct trace_entry *src,
		      struct trace *out, struct diag *d)
{
	struct trace_entry *e = &out->entries[out->nentries];
	unsigned n = src->ngroup ? src->ngroup : job->nranks;
	char name[TRACE_COMM_NAME_MAX + 16];
	int err;

	*e = *src;
	e->job = k;
	e->group = malloc(n * sizeof(*e->group));
	if (!e->group)
		return diag_set(d, -ENOMEM, "jobs: out of memory");
	e->ngroup = n;
	for (unsigned i = 0; i < n; i++) {
		unsigned r = src->ngroup ? src->group[i] : i;

		if (r >= job->nranks) {
			free(e->group);
			return diag_set(d, -EINVAL, "%s:%u: group: rank %u is beyond job %u's %u ranks",
					job->trace->file, src->line, r, k, job->nranks);
		}
		e->group[i] = place(job, r);
	}
	if (e->root >= 0 && (unsigned)e->root < job->nranks)
		e->root = (int)place(job, (unsigned)e->root);
	if (e->peer >= 0 && (unsigned)e->peer < job->nranks)
		e->peer = (int)place(job, (unsigned)e->peer);
	out->nentries++;
	snprintf(name, sizeof(name), "job%u/%s", k, trace_entry_comm(job->trace, src));
	if (strlen(name) >= TRACE_COMM_NAME_MAX)
		return diag_set(d, -EINVAL, "%s:%u: communicator '%s' of job %u: name too long",
				job->trace->file, src->line, trace_entry_comm(job->trace, src), k);
	err = trace_comm_assign(out, e, name, src->stream, d);
	return err;
}

int trace_jobs_merge(const struct trace_job *jobs, size_t n, struct trace *out,
		     struct diag *d)
{
	size_t total = 0, *at = calloc(n ? n : 1, sizeof(*at));
	unsigned iters = 0;
	int err = 0;

	memset(out, 0, sizeof(*out));
	if (!at)
		return diag_set(d, -ENOMEM, "jobs: out of memory");
	for (size_t k = 0; k < n; k++) {
		total += jobs[k].trace->nentries;
		if (jobs[k].trace->niterations > iters)
			iters = jobs[k].trace->niterations;
	}
	err = check_disjoint(jobs, n, d);
	snprintf(out->file, sizeof(out->file), "jobs");
	out->entries = calloc(total ? total : 1, sizeof(*out->entries));
	if (!err && !out->entries)
		err = diag_set(d, -ENOMEM, "jobs: out of memory");
	/* Iteration by iteration, each job's entries of it in order: entries
	 * come grouped by iteration (trace.h). */
	for (unsigned it = 0; it < iters && !err; it++)
		for (size_t k = 0; k < n && !err; k++) {
			const struct trace *t = jobs[k].trace;

			while (!err && at[k] < t->nentries && t->entries[at[k]].iteration == it)
				err = copy_entry(&jobs[k], (unsigned)k, &t->entries[at[k]++], out, d);
		}
	out->niterations = iters;
	out->njobs = (unsigned)n;
	free(at);
	if (err)
		trace_destroy(out);
	return err;
}

int trace_jobs_of(const struct trace *merged, const struct trace_entry *e)
{
	return merged->njobs ? (int)e->job : -1;
}

void trace_jobs_times(const struct trace *merged, const struct records *r, size_t n,
		      struct trace_jobs_time *out)
{
	for (size_t k = 0; k < n; k++)
		out[k] = (struct trace_jobs_time){ 0 };
	for (unsigned i = 0; i < r->niter; i++) {
		const struct iter_record *ir = &r->iter[i];

		if (ir->job >= n)
			continue;
		out[ir->job].iterations++;
		out[ir->job].iteration_us += ir->end_us - ir->start_us;
		out[ir->job].exposed_us += ir->exposed_us;
	}
	for (size_t i = 0; i < r->ncoll; i++) {
		int k = trace_jobs_of(merged, &merged->entries[r->coll[i].entry]);

		if (k < 0 || (size_t)k >= n)
			continue;
		out[k].together_us += r->coll[i].time_us;
		out[k].alone_us += r->coll[i].alone_us;
	}
	/* an iteration's, as the run's own figures are: a job of two
	 * iterations does not count its communication twice */
	for (size_t k = 0; k < n; k++) {
		double m = out[k].iterations ? out[k].iterations : 1;

		out[k].iteration_us /= m;
		out[k].exposed_us /= m;
		out[k].together_us /= m;
		out[k].alone_us /= m;
	}
}
