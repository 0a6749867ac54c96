/* SPDX-License-Identifier: MIT */
/*
 * The model backend's ops table and its process wrapper.
 *
 * SimGrid cannot be initialised twice in one process (the second platform
 * load aborts), and gdrlab runs several plans per process (compare, sweep,
 * tests). So every simulation runs in a forked child (engine/child_call.h)
 * that sends its results back over a pipe: one per job, several at once,
 * each forked from a child that loaded its platform, or one for a trace
 * whose communicators run together. A child that dies (SimGrid
 * aborts on what it cannot handle) is a clean error naming the signal,
 * never a hang.
 */
#include "simgrid_internal.h"

#include "child_call.h"
#include "simgrid_api.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int cmp_job(const void *a, const void *b)
{
	const struct sgm_job *x = a, *y = b;

	if (x->pattern != y->pattern)
		return (x->pattern > y->pattern) - (x->pattern < y->pattern);
	if (x->nchannels != y->nchannels)
		return (x->nchannels > y->nchannels) - (x->nchannels < y->nchannels);
	return (x->bytes > y->bytes) - (x->bytes < y->bytes);
}

/*
 * One job per distinct (pattern class, channels, bytes), sorted: patterns
 * that are one another moved along the nodes take the same time alone
 * (plan_pattern_classes), so the class's first pattern is simulated for
 * all of them.
 */
static int jobs_build(const struct plan *p, const size_t *cls, struct sgm_job **out, size_t *n)
{
	struct sgm_job *j = malloc((p->ncollectives ? p->ncollectives : 1) * sizeof(*j));
	size_t k = 0;

	if (!j)
		return -ENOMEM;
	for (size_t i = 0; i < p->ncollectives; i++) {
		j[i].pattern = cls[p->collectives[i].pattern];
		j[i].bytes = p->collectives[i].bytes;
		j[i].nchannels = p->collectives[i].nchannels;
	}
	qsort(j, p->ncollectives, sizeof(*j), cmp_job);
	for (size_t i = 0; i < p->ncollectives; i++)
		if (k == 0 || cmp_job(&j[k - 1], &j[i]))
			j[k++] = j[i];
	*out = j;
	*n = k;
	return 0;
}

/*
 * The simulation steps through each connection's slices one by one, in
 * time linear in their count (2 TiB in 512 KiB slices, 4 Mi of them, is
 * about 11 s a call on a 2-core machine); past this it refuses, where
 * the slice count would otherwise wrap its 32 bits (a 2^53-byte call
 * once came out at 8.4 us).
 */
#define MODEL_MAX_SLICES (1u << 22)

/* -EINVAL, naming the trace line, where a job has more slices a
 * connection than MODEL_MAX_SLICES. */
static int check_slices(const struct plan *p, const size_t *cls, const struct sgm_job *jobs,
			size_t njobs, struct diag *d)
{
	for (size_t k = 0; k < njobs; k++) {
		const struct plan_pattern *pat = &p->patterns[jobs[k].pattern];

		for (size_t q = 0; q < pat->npipes; q++) {
			struct plan_slicing sl;

			if (pat->pipes[q].channel >= jobs[k].nchannels)
				continue;
			plan_slicing(p, pat, &pat->pipes[q], jobs[k].bytes, jobs[k].nchannels, &sl);
			if (sl.slices <= MODEL_MAX_SLICES)
				continue;
			for (size_t i = 0; i < p->ncollectives; i++) {
				const struct plan_collective *pc = &p->collectives[i];
				const struct trace_entry *e = &p->trace->entries[pc->entry];

				if (cls[pc->pattern] != jobs[k].pattern || pc->bytes != jobs[k].bytes ||
				    pc->nchannels != jobs[k].nchannels)
					continue;
				return diag_set(d, -EINVAL,
						"%s:%u: bytes: model backend: this %s of %llu bytes is "
						"%.3g slices a connection, beyond the %u it simulates "
						"one by one (the analytic backend takes any size)",
						p->trace->file, e->line, trace_op_name(e->op),
						(unsigned long long)pc->bytes, sl.slices,
						MODEL_MAX_SLICES);
			}
		}
	}
	return 0;
}

/* What the simulating child needs, and what it answers. */
struct sim_answer {
	struct model_stats stats;
	struct sgm_result res[]; /* one per job */
};

struct sim_call {
	const struct plan *p;
	const struct model_options *o;
	const struct sgm_job *jobs;
	size_t njobs;
	const struct records *together; /* NULL: each job alone only */
	size_t *order;                  /* alone: the jobs by platform */
	struct child_tick tick;         /* the parent's, while it waits */
};

/* After the jobs' results in the answer: with together, the collectives'
 * and the iterations' spans. */
static struct sgm_span *answer_spans(struct sim_answer *a, size_t njobs)
{
	return (struct sgm_span *)(void *)&a->res[njobs];
}

/* The simulation placed the collectives itself, all at once: their times
 * alone stay in alone_us, the records are scheduled. */
static void place_together(struct records *rec, const struct sgm_span *spans)
{
	const struct sgm_span *iter = spans + rec->ncoll;

	for (size_t i = 0; i < rec->ncoll; i++) {
		struct coll_record *c = &rec->coll[i];

		c->alone_us = c->time_us;
		c->start_us = spans[i].start_us;
		c->end_us = spans[i].end_us;
		c->time_us = c->end_us - c->start_us;
		if (c->time_us > c->alone_us * (1 + 1e-6))
			rec->overlapped = true;
	}
	for (unsigned it = 0; it < rec->niter; it++) {
		rec->iter[it].start_us = iter[it].start_us;
		rec->iter[it].end_us = iter[it].end_us;
	}
	rec->scheduled = true;
	rec->sharing = RECORDS_SHARED_SIMGRID;
}

static int simulate_child(void *arg, void *answer, size_t len, struct diag *d)
{
	const struct sim_call *s = arg;
	struct sim_answer *a = answer;
	struct sgm_header h = { 0 };

	(void)len;
	/* Fault injection (tests/unit/test_model.c): die as SimGrid does
	 * when it aborts, so that the parent's error path runs. */
	if (getenv("GDRLAB_MODEL_CRASH"))
		abort();
	struct sgm_together tg = { s->together, NULL, NULL };

	if (s->together) {
		tg.coll = answer_spans(a, s->njobs);
		tg.iter = tg.coll + s->together->ncoll;
	}
	sgm_simulate(s->p, s->o, s->jobs, s->njobs, a->res, s->together ? &tg : NULL, &h);
	if (h.err)
		return diag_set(d, h.err, "%s", h.msg);
	a->stats = h.stats;
	return 0;
}

/* A job alone: what its own simulation answers. */
struct job_answer {
	struct model_stats stats;
	struct sgm_result res;
};

/* The jobs of one platform: its loader's children simulate them. */
struct platform_jobs {
	const struct sim_call *call;
	const size_t *order; /* call->jobs' indices */
	size_t n;
	unsigned nodes, parallel;
};

/* In a child of the platform's loader: one job, on the platform it
 * inherited. */
static int simulate_job_child(void *arg, size_t i, void *answer, size_t len, struct diag *d)
{
	const struct platform_jobs *g = arg;
	struct job_answer *a = answer;
	struct sgm_header h = { 0 };

	(void)len;
	if (getenv("GDRLAB_MODEL_CRASH"))
		abort(); /* as simulate_child */
	sgm_run(g->call->p, &g->call->jobs[g->order[i]], 1, &a->res, NULL, &h);
	if (h.err)
		return diag_set(d, h.err, "%s", h.msg);
	a->stats = h.stats;
	return 0;
}

/* In a child: load the platform once, then each job in a child of its
 * own, forked from this one (sgm_load says why). */
static int load_platform_child(void *arg, void *answer, size_t len, struct diag *d)
{
	const struct platform_jobs *g = arg;
	struct sgm_header h = { 0 };

	(void)len;
	if (sgm_load(g->call->p, g->call->o, g->nodes, &h))
		return diag_set(d, h.err, "%s", h.msg);
	return child_call_each("model backend: the simulation", simulate_job_child, arg, g->n,
			       answer, sizeof(struct job_answer), g->parallel, d);
}

struct job_size {
	unsigned nodes; /* of its platform */
	uint64_t bytes;
	size_t job;
};

/* By platform; on one, largest first; ties in job order. */
static int cmp_job_size(const void *a, const void *b)
{
	const struct job_size *x = a, *y = b;

	if (x->nodes != y->nodes)
		return (x->nodes > y->nodes) - (x->nodes < y->nodes);
	if (x->bytes != y->bytes)
		return (x->bytes < y->bytes) - (x->bytes > y->bytes);
	return (x->job > y->job) - (x->job < y->job);
}

/* Most simulations GDRLAB_MODEL_PARALLEL may ask for at once. */
#define MODEL_PARALLEL_MAX 1024

/* How many simulations run at once, into *@n: GDRLAB_MODEL_PARALLEL (1 to
 * MODEL_PARALLEL_MAX), else the CPUs this process may use. */
static int parallel_children(unsigned *n, struct diag *d)
{
	const char *env = getenv("GDRLAB_MODEL_PARALLEL");
	char *end;
	long v;

	*n = child_call_cpus();
	if (!env || !*env)
		return 0;
	errno = 0;
	v = strtol(env, &end, 10);
	if (errno || *end || v < 1 || v > MODEL_PARALLEL_MAX)
		return diag_set(d, -EINVAL,
				"GDRLAB_MODEL_PARALLEL: '%s' is not a number of simulations "
				"at once from 1 to %d", env, MODEL_PARALLEL_MAX);
	*n = (unsigned)v;
	return 0;
}

/* call->order: the jobs by platform, largest first on each (so that the
 * last to start are short); their platforms' nodes into @nodes. */
static int order_jobs(struct sim_call *call, unsigned *nodes, struct diag *d)
{
	struct job_size *size = malloc((call->njobs ? call->njobs : 1) * sizeof(*size));
	int err = size ? 0 : -ENOMEM;

	for (size_t i = 0; !err && i < call->njobs; i++) {
		size[i] = (struct job_size){ 0, call->jobs[i].bytes, i };
		err = sgm_platform_nodes(call->p, call->o, &call->jobs[i], 1, &size[i].nodes);
	}
	if (!err) {
		qsort(size, call->njobs, sizeof(*size), cmp_job_size);
		for (size_t i = 0; i < call->njobs; i++) {
			call->order[i] = size[i].job;
			nodes[i] = size[i].nodes;
		}
	}
	free(size);
	return err ? diag_set(d, err, "model backend: %s",
			      err == -ENOMEM ? "out of memory" : "cannot build the SimGrid platform") : 0;
}

/*
 * Each job alone in a simulation of its own, as many at once as there
 * are CPUs (child_call_each). A job's time is then its own: simulated
 * from the clock's zero, whatever the trace's other jobs (in one
 * simulation one after another, each started where the last ended, the
 * clock's rounding moved a scaled tree's time by up to 5e-4). The jobs of
 * one platform (the same nodes) run in children of one process that
 * loaded it, one platform after another.
 */
static int simulate_alone(struct sim_call *call, struct sim_answer *answer, struct diag *d)
{
	size_t n = call->njobs ? call->njobs : 1;
	struct job_answer *each;
	unsigned parallel, *nodes;
	int err = parallel_children(&parallel, d);

	if (err)
		return err;
	each = calloc(n, sizeof(*each));
	nodes = malloc(n * sizeof(*nodes));
	call->order = malloc(n * sizeof(*call->order));
	if (!each || !nodes || !call->order)
		err = diag_set(d, -ENOMEM, "model backend: out of memory");
	if (!err)
		err = order_jobs(call, nodes, d);
	for (size_t i = 0, end; !err && i < call->njobs; i = end) {
		struct platform_jobs g;

		for (end = i; end < call->njobs && nodes[end] == nodes[i]; end++)
			;
		g = (struct platform_jobs){ call, call->order + i, end - i, nodes[i], parallel };
		err = child_call_ticking("model backend: the simulation", load_platform_child, &g,
					 each + i, (end - i) * sizeof(*each), &call->tick, d);
	}
	for (size_t i = 0; !err && i < call->njobs; i++) {
		const struct model_stats *st = &each[i].stats;

		answer->res[call->order[i]] = each[i].res;
		answer->stats.ptasks += st->ptasks;
		answer->stats.folded_steps += st->folded_steps;
		answer->stats.scaled_jobs += st->scaled_jobs;
		answer->stats.sym_jobs += st->sym_jobs;
		if (st->sim_nodes > answer->stats.sim_nodes)
			answer->stats.sim_nodes = st->sim_nodes;
	}
	free(call->order);
	call->order = NULL;
	free(nodes);
	free(each);
	return err;
}

/* A heartbeat while the simulations run: none of the calls is timed yet
 * (they come back together), but a progress line shows the time going
 * by (a switched fabric's every node simulated takes minutes). */
static void still_simulating(void *ctx)
{
	records_progress(ctx, 0);
}

static void fill_record(struct coll_record *c, const struct sgm_result *r)
{
	c->time_us = r->time_us;
	memcpy(c->stage_us, r->stage_us, sizeof(c->stage_us));
	memcpy(c->stage_bytes, r->stage_bytes, sizeof(c->stage_bytes));
	c->nspans = r->nspans;
	memcpy(c->spans, r->spans, sizeof(c->spans));
}

int model_simulate(const struct plan *p, const struct model_options *o,
		   struct records *rec, struct model_stats *stats,
		   struct diag *d)
{
	static const struct model_options defaults = { 0 };
	struct sim_call call = { .p = p, .o = o ? o : &defaults,
				 .tick = { still_simulating, rec } };
	struct sgm_job *jobs = NULL;
	struct sim_answer *answer = NULL;
	size_t *cls = NULL;
	size_t len;
	int err;

	cls = malloc((p->npatterns ? p->npatterns : 1) * sizeof(*cls));
	err = cls ? plan_pattern_classes(p, cls) : -ENOMEM;
	if (!err)
		err = jobs_build(p, cls, &jobs, &call.njobs);
	if (err) {
		diag_set(d, err, "model backend: out of memory");
		goto out_free;
	}
	err = check_slices(p, cls, jobs, call.njobs, d);
	if (err)
		goto out_free;
	call.jobs = jobs;
	if (sgm_together_fits(p, rec, o))
		call.together = rec;
	len = sizeof(*answer) + call.njobs * sizeof(answer->res[0]) +
	      (call.together ? (rec->ncoll + rec->niter) * sizeof(struct sgm_span) : 0);
	if (!err) {
		answer = calloc(1, len);
		if (!answer)
			err = -ENOMEM;
	}
	if (err) {
		diag_set(d, err, "model backend: out of memory");
		goto out_free;
	}
	/* Together, the jobs and then the trace in one simulation. */
	if (call.together)
		err = child_call_ticking("model backend: the simulation", simulate_child, &call,
					 answer, len, &call.tick, d);
	else
		err = simulate_alone(&call, answer, d);
	if (err)
		goto out_free;
	for (size_t i = 0; i < p->ncollectives; i++) {
		struct sgm_job key = { cls[p->collectives[i].pattern],
				       p->collectives[i].bytes,
				       p->collectives[i].nchannels };
		struct sgm_job *j = bsearch(&key, jobs, call.njobs, sizeof(*jobs), cmp_job);

		fill_record(&rec->coll[i], &answer->res[j - jobs]);
		records_progress(rec, i + 1);
	}
	if (call.together)
		place_together(rec, answer_spans(answer, call.njobs));
	if (stats)
		*stats = answer->stats;
out_free:
	free(answer);
	free(jobs);
	free(cls);
	return err;
}

static int model_run(const struct plan *p, struct records *rec, struct diag *d)
{
	/* GDRLAB_MODEL_EVERY_CONN=1: no symmetry, to check it against. */
	const char *every = getenv("GDRLAB_MODEL_EVERY_CONN");
	struct model_options o = { .every_conn = every && *every && strcmp(every, "0") };

	return model_simulate(p, &o, rec, NULL, d);
}

/* The backend runs where libsimgrid opens (simgrid_api.h). */
static int model_probe(char *why, size_t len)
{
	return sgm_api_load(why, len);
}

const struct backend_ops model_backend_ops = {
	.size = sizeof(struct backend_ops),
	.name = "model",
	.description = "SimGrid: NCCL's algorithms slice by slice over PCIe, NVLink and network links",
	.caps = BACKEND_CAP_SIM_CLOCK | BACKEND_CAP_ALGORITHMS,
	.probe = model_probe,
	.run = model_run,
};
