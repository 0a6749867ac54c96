/* SPDX-License-Identifier: MIT */
/*
 * Inside the SimGrid backend: what the parent process hands the simulation
 * child (jobs) and what comes back over the pipe (results), the platform
 * generator and the symmetry fold. Nothing here is used outside model/.
 */
#ifndef GDRLAB_SIMGRID_INTERNAL_H
#define GDRLAB_SIMGRID_INTERNAL_H

#include <stdint.h>
#include <stdio.h>

#include "simgrid.h"

/* One collective shape at one size: simulated once, copied to every
 * collective of the trace that has it. */
struct sgm_job {
	size_t pattern;
	uint64_t bytes;
};

/* Plain data, written to the pipe as is (same binary on both ends). */
struct sgm_result {
	double time_us;
	double stage_us[STAGE_KIND_COUNT];
	uint64_t stage_bytes[STAGE_KIND_COUNT];
	unsigned nspans;
	struct stage_span spans[PLAN_MAX_STAGES];
};

struct sgm_header {
	int err;            /* 0 or a negative errno */
	char msg[240];      /* the reason when err */
	struct model_stats stats;
};

/*
 * Symmetry: the transfers of a step of a homogeneous ring look the same
 * from every node, so a neighbourhood of @nodes nodes (the kept transfers,
 * their resources' nodes taken relative to the sender and wrapped) sees
 * the same load as the whole cluster. nodes == plan nodes: no fold.
 */
struct sgm_fold {
	unsigned nodes;  /* nodes of the folded view */
	size_t nkept;
	size_t *kept;    /* owned; transfer indices into the pattern */
};

int sgm_fold_step(const struct plan *p, const struct plan_pattern *pat,
		  const struct plan_step *st, bool replay, struct sgm_fold *f);
void sgm_fold_destroy(struct sgm_fold *f);
/* The folded-view id of resource @res used by a transfer from @src_node. */
uint32_t sgm_fold_resource(const struct plan *p, const struct sgm_fold *f,
			   unsigned src_node, uint32_t res);

/* SimGrid names of the platform's objects. */
#define SGM_NAME_MAX 48
void sgm_link_host_name(char *buf, size_t len, uint32_t res, char end);
void sgm_copy_engine_name(char *buf, size_t len, unsigned node, unsigned gpu,
			  enum stage_kind kind);
#define SGM_CONTROL_HOST "ctl"
#define SGM_LINK_LATENCY 1e-9 /* never zero: a zero-latency flow starves */

/* Write the platform of @nodes nodes of @p's node type as SimGrid XML. */
int sgm_platform_write(FILE *f, const struct plan *p, unsigned nodes);

/* In the child: simulate @jobs, fill @res (njobs) and @h. */
void sgm_simulate(const struct plan *p, const struct model_options *o,
		  const struct sgm_job *jobs, size_t njobs,
		  struct sgm_result *res, struct sgm_header *h);

#endif
