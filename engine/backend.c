/* SPDX-License-Identifier: MIT */
#include "backend.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* An op is usable when the backend's table is large enough to hold it and
 * the backend set it. */
#define BACKEND_HAS(b, op)                                                   \
	((b)->size >= offsetof(struct backend_ops, op) + sizeof((b)->op) &&  \
	 (b)->op)

int backend_probe(const struct backend_ops *b, char *why, size_t len)
{
	if (!BACKEND_HAS(b, probe))
		return 0; /* nothing to check: runs anywhere */
	return b->probe(why, len);
}

int backend_run(const struct backend_ops *b, const struct plan *p,
		struct records *rec, struct diag *d)
{
	if (!BACKEND_HAS(b, run))
		return diag_set(d, -ENOSYS, "backend %s cannot run plans",
				b->name);
	return b->run(p, rec, d);
}

int backend_execute(const struct backend_ops *b, const struct topology *topo,
		    const struct trace *trace, const struct plan_options *opts,
		    const struct backend_hooks *hooks, struct plan *plan,
		    struct records *rec, struct diag *d)
{
	struct plan_options o = *opts;
	char why[256] = "";
	int err;

	memset(plan, 0, sizeof(*plan));
	memset(rec, 0, sizeof(*rec));
	err = backend_probe(b, why, sizeof(why));
	if (err)
		return diag_set(d, err, "backend %s cannot run here: %s",
				b->name, why[0] ? why : strerror(-err));
	if (!(b->caps & BACKEND_CAP_ALGORITHMS))
		o.ring_only = true;
	if (b->size >= offsetof(struct backend_ops, alltoall_max_ranks) + sizeof(b->alltoall_max_ranks))
		o.alltoall_max_ranks = b->alltoall_max_ranks;
	err = plan_build(plan, topo, trace, &o, d);
	if (err)
		return err;
	err = records_init(rec, plan, b->name);
	if (err)
		goto err_plan;
	if (hooks) {
		rec->progress = hooks->progress;
		rec->progress_ctx = hooks->ctx;
	}
	err = backend_run(b, plan, rec, d);
	if (err)
		goto err_records;
	/* Backends that moved real bytes ran the collectives one by one. */
	err = records_schedule(rec, b->caps & BACKEND_CAP_SIM_CLOCK ? plan : NULL);
	if (err) {
		diag_set(d, err, err == -EDEADLK ?
			 "schedule: internal error (a call waits for one that never ends)" :
			 "schedule: out of memory");
		goto err_records;
	}
	return 0;

err_records:
	records_destroy(rec);
err_plan:
	plan_destroy(plan);
	return err;
}
