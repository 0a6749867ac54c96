/* SPDX-License-Identifier: MIT */
/*
 * backend: the one interface every backend implements.
 *
 * A backend fills one `static const struct backend_ops` (as an rdma-core
 * provider fills its verbs_context_ops) and is listed by name in the
 * explicit table of cli/all_backends.c. The engine never names a backend:
 * it calls these wrappers, which give -ENOSYS for an op a backend leaves
 * unset, so no caller tests a function pointer. Capabilities are flags that
 * tests and reports check instead of backend names.
 */
#ifndef GDRLAB_BACKEND_H
#define GDRLAB_BACKEND_H

#include <stddef.h>

#include "diag.h"
#include "plan.h"
#include "records.h"

enum backend_cap {
	BACKEND_CAP_SIM_CLOCK = 1u << 0,  /* times come from a model */
	BACKEND_CAP_WALL_CLOCK = 1u << 1, /* times are measured */
	BACKEND_CAP_EXACT = 1u << 2,      /* closed form: uncontended ground
					   * truths hold to rounding */
	BACKEND_CAP_GPU_MEMORY = 1u << 3, /* moves real GPU memory */
	BACKEND_CAP_DATA_CHECK = 1u << 4, /* verifies every byte it moves */
	BACKEND_CAP_ALGORITHMS = 1u << 5, /* times NCCL's algorithms as the
					   * tuner chose them; without it the
					   * plan is one ring (Simple) and the
					   * backend runs that ring itself */
};

struct backend_ops {
	size_t size; /* sizeof(struct backend_ops) the backend was built with */
	const char *name;
	const char *description;
	unsigned caps;
	/* 0 when the backend can run here; else a negative errno and a
	 * reason ("no RDMA device found") in @why. */
	int (*probe)(char *why, size_t len);
	/* Execute @p: fill every collective's time_us and stage data (and
	 * start/end with rec->scheduled when it has its own clock). */
	int (*run)(const struct plan *p, struct records *rec, struct diag *d);
	/* The most ranks of an alltoall planned send by send, n (n - 1)
	 * sends, where two nodes cannot stand for all (algo_alltoall_fold);
	 * 0: the plan's own limit, 512. */
	unsigned alltoall_max_ranks;
};

/* The explicit, NULL-terminated list of backends built in, and a lookup
 * by name (cli/all_backends.c). */
extern const struct backend_ops *const gdrlab_backends[];
const struct backend_ops *backend_find(const char *name);

struct backend_absent {
	const char *name;
	const char *why;
};
/* Known backends left out of this build, NULL-terminated. */
extern const struct backend_absent gdrlab_backends_absent[];

/* backend_find, or NULL with why not in @why: left out of this build (and
 * why), or unknown. */
const struct backend_ops *backend_lookup(const char *name, char *why, size_t len);

int backend_probe(const struct backend_ops *b, char *why, size_t len);
int backend_run(const struct backend_ops *b, const struct plan *p,
		struct records *rec, struct diag *d);

/*
 * The whole pipeline after parsing: plan, run, schedule. On success the
 * caller owns @plan and @rec (plan_destroy, records_destroy); on failure
 * both are left empty. @hooks may be NULL.
 */
struct backend_hooks {
	void (*progress)(void *ctx, size_t done, size_t total);
	void *ctx;
};

int backend_execute(const struct backend_ops *b, const struct topology *topo,
		    const struct trace *trace, const struct plan_options *opts,
		    const struct backend_hooks *hooks, struct plan *plan,
		    struct records *rec, struct diag *d);

#endif
