/* SPDX-License-Identifier: MIT */
/*
 * Inside the SimGrid backend: what the parent process hands the simulation
 * child (jobs) and what comes back over the pipe (results), the platform
 * generator, the folds and the slice program. Nothing here is used
 * outside model/.
 */
#ifndef GDRLAB_SIMGRID_INTERNAL_H
#define GDRLAB_SIMGRID_INTERNAL_H

#include <stdint.h>
#include <stdio.h>

#include "simgrid.h"

/* One collective shape at one size on one channel count: simulated once,
 * copied to every collective of the trace that has it. */
struct sgm_job {
	size_t pattern;
	uint64_t bytes;
	unsigned nchannels;
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
 * Symmetry. A ring over whole, identical nodes looks the same from every
 * node: each node's connections, seen from it, cross the same resources
 * at the same node offsets. A neighbourhood of `nodes` nodes then carries
 * the same load as the whole cluster once resources wrap modulo `nodes`
 * (the smallest count that keeps distinct offsets distinct: 2 for a
 * ring), and by the same symmetry it runs in step with it: the folded
 * ring's connections carry as many slices as the full ring's, so its
 * time is the full ring's. `nodes` == the pattern's: no fold.
 */
struct sgm_fold {
	unsigned nodes;   /* nodes of the folded view */
	unsigned span;    /* of them, the nodes its kept connections touch
			   * (all of them under switches), which the
			   * platform needs: two of a folded alltoall's
			   * (algo_alltoall_fold) */
	size_t nkept;
	size_t *kept;     /* owned; connection indices into the pattern */
	uint32_t *dep;    /* owned; per kept connection and dependency: the
			   * kept connection standing for it (index into
			   * kept), PLAN_MAX_DEPS each */
	/* Symmetry (sgm_fold_symmetry): per resource of the view, the one
	 * standing for it; NULL: each its own. */
	uint32_t *canon;  /* owned; ncanon entries */
	size_t ncanon;
	size_t sym_conns; /* connections before the symmetry kept fewer;
			   * 0: it kept them all */
};

/* The symmetries found so far, by graph (simgrid_sym.c): the calls of a
 * trace repeat few shapes at many sizes. */
#define SGM_SYM_CACHE 16
struct sgm_sym_entry;
struct sgm_sym_cache {
	unsigned n, next;
	struct sgm_sym_entry *entry[SGM_SYM_CACHE];
};
void sgm_sym_cache_clear(struct sgm_sym_cache *c);

/* @sym: the symmetries known (sgm_fold_symmetry); NULL: none sought,
 * only the node fold. */
int sgm_fold_pattern(const struct plan *p, const struct plan_pattern *pat,
		     unsigned nchannels, bool replay, struct sgm_sym_cache *sym,
		     struct sgm_fold *f);
void sgm_fold_destroy(struct sgm_fold *f);
/* The folded-view node of a resource of @c's route. */
unsigned sgm_fold_node(const struct plan *p, const struct sgm_fold *f,
		       const struct plan_conn *c, bool at_dst);

/*
 * Symmetry (simgrid_sym.c). Connections of a call that an automorphism of
 * its connections-and-links graph maps onto one another move in step;
 * the view keeps one of each orbit, its links standing for their orbits
 * (sgm_fold_res), where that carries every link's load exactly. Reduces
 * @f in place; 0 also when nothing is symmetric.
 */
int sgm_fold_symmetry(const struct plan *p, const struct plan_pattern *pat,
		      struct sgm_sym_cache *cache, struct sgm_fold *f);
/* The platform resource standing for resource @id of the view. */
uint32_t sgm_fold_res(const struct sgm_fold *f, uint32_t id);

/* SimGrid names of the platform's objects. */
#define SGM_NAME_MAX 48
void sgm_link_host_name(char *buf, size_t len, uint32_t res, char end);
/* The resource and end ('a' or 'b') a host of sgm_link_host_name names;
 * false for another name. */
bool sgm_link_host_parse(const char *name, uint32_t *res, char *end);
#define SGM_CONTROL_HOST "ctl"
/*
 * Links carry no latency of their own (a segment's planned latency is
 * added after its bytes, simgrid_run.c). Under ptask_L07 a task over
 * links with latency first waits that latency out as an event of its
 * own, doubling the events per slice; with none it starts sharing at
 * once. (The starving zero-latency flow of ../shared/notes/simgrid.md is
 * CM02/LV08's latency-weighted sharing, not ptask_L07's.)
 */
#define SGM_LINK_LATENCY 0.0

/* Write the platform of @nodes nodes of @p's node type as SimGrid XML. */
int sgm_platform_write(FILE *f, const struct plan *p, unsigned nodes);

/*
 * Scale: a tree-like collective (not a ring: it folds) over more than
 * SGM_SCALE_NODES whole nodes is simulated on SGM_SCALE_NODES and
 * SGM_SCALE_NODES / 2 nodes, with the same algorithm, protocol and
 * channels, and extended along what its time is linear in: the levels of
 * the tree, log2 of the nodes. sgm_scaled_plan builds one such plan; the
 * caller destroys it.
 */
#define SGM_SCALE_NODES 16
bool sgm_scales(const struct plan *p, const struct plan_pattern *pat,
		bool replay);
int sgm_scaled_plan(const struct plan *p, const struct plan_pattern *pat,
		    uint64_t bytes, unsigned nchannels, unsigned nodes,
		    struct trace *t, struct plan *out);
/* Where the collective's time is linear: log2 of the nodes. */
double sgm_scale_variable(const struct plan_pattern *pat, unsigned nodes);

/*
 * Communicators at once, in SimGrid itself: after the jobs, the trace's
 * collectives are run again over the whole cluster (no fold), each
 * (communicator, stream) an actor that runs its collectives in order
 * from their ready times, all queues of an iteration at once, so that
 * what they share SimGrid shares. Plain data back over the pipe.
 */
struct sgm_span {
	double start_us, end_us; /* from the start of the run */
};

struct sgm_together {
	const struct records *rec; /* queues, ready times, iterations, compute */
	struct sgm_span *coll;     /* rec->ncoll: each collective's */
	struct sgm_span *iter;     /* rec->niter: each iteration's */
};

/* Whether the model runs @rec's communicators together in SimGrid (several
 * queues, few enough calls x nodes), else the engine's fluid schedule. */
bool sgm_together_fits(const struct plan *p, const struct records *rec,
		       const struct model_options *o);

/* The nodes @jobs' platform needs: the largest folded or scaled view. */
int sgm_platform_nodes(const struct plan *p, const struct model_options *o,
		       const struct sgm_job *jobs, size_t njobs, unsigned *nodes);

/*
 * In a child: start SimGrid and load the platform of @nodes nodes of @p
 * (a second time in one process is SimGrid's abort); 0, or the error in
 * @h. Then sgm_run, in this process or in children forked from it: a
 * platform of many nodes takes longer to load than most jobs take to run
 * on it (1.8 s against 0.3-1.5 for the 256 nodes of a Llama-3-70B replay
 * on 2048 GPUs), and a child forked after the load starts from it as
 * one that loaded it.
 */
int sgm_load(const struct plan *p, const struct model_options *o, unsigned nodes,
	     struct sgm_header *h);
/* Simulate @jobs on the loaded platform, fill @res (njobs) and @h; then,
 * with @together, place the trace's collectives together. Once a process:
 * SimGrid runs once. */
void sgm_run(const struct plan *p, const struct sgm_job *jobs, size_t njobs,
	     struct sgm_result *res, struct sgm_together *together, struct sgm_header *h);
/* Both, on the platform @jobs need (every node with @together). */
void sgm_simulate(const struct plan *p, const struct model_options *o,
		  const struct sgm_job *jobs, size_t njobs,
		  struct sgm_result *res, struct sgm_together *together,
		  struct sgm_header *h);

#endif
