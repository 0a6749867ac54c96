/* SPDX-License-Identifier: MIT */
/*
 * The simulation itself, run in the forked child: load the platform, then
 * one controller actor times every job, step by step.
 *
 * A transfer is one actor per segment of its stages (plan.h: stages of one
 * segment are cut-through, segments hand over whole chunks). A segment
 * moves each chunk as one parallel task over exactly its stages' links
 * (simgrid_platform.c), after its CPU work per chunk; the chunk reaches the
 * next segment the segment's latency later (latency is propagation: the
 * links are free again as soon as the bytes are sent). Bounce buffers are
 * semaphores: a sender buffer is held from the copy into it until the RDMA
 * that drains it has landed, a receiver buffer from the RDMA into it until
 * the copy out is done. Direct transfers are one segment and one chunk:
 * cut-through, bytes over the shared links then the path's latency.
 *
 * The transfers of a step start together and really share links (max-min,
 * ptask_L07); the step ends with the last of them. Steps run one after
 * another, as the plan says; a chain's hops start their latency later.
 */
#include "simgrid_internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/exec.h>
#include <simgrid/host.h>
#include <simgrid/semaphore.h>

#define SEG_MAX_HOSTS (2 * PLAN_MAX_USES + 2)

struct sim;

struct seg {
	unsigned nh;
	sg_host_t hosts[SEG_MAX_HOSTS];
	double weight[SEG_MAX_HOSTS]; /* bytes (link pair start) or flops per byte */
	bool is_cpu[SEG_MAX_HOSTS];
	double latency, overhead, bandwidth;
	unsigned first_stage, nstages;
	double *ready_at;    /* per chunk: when it reaches this segment */
	sg_sem_t ready;      /* one token per chunk handed over */
	double start, end;   /* first chunk in, last chunk out + latency */
};

struct xfer {
	struct sim *sim;
	const struct plan_transfer *t;
	unsigned nseg, nchunks;
	double bytes, chunk, delay;
	struct seg seg[PLAN_MAX_STAGES];
	/* Bounce buffers: sender side between segments 0 and 1, receiver
	 * side between the last two. */
	sg_sem_t sbuf, rbuf;
	double *sbuf_free;
	unsigned buffers;
	sg_sem_t done;       /* the step's: released once at the end */
	double begin, end;
};

struct seg_actor {
	struct xfer *x;
	unsigned k;
};

struct sim {
	const struct plan *p;
	const struct model_options *o;
	const struct sgm_job *jobs;
	size_t njobs;
	struct sgm_result *res;
	struct sgm_header *h;
	struct sgm_fold **folds;      /* per pattern, per step */
	unsigned nodes;               /* of the platform */
	sg_host_t *link_a, *link_b;   /* per platform resource; NULL: unlimited */
	sg_host_t *ce_d2h, *ce_h2d;   /* per platform node x GPU; NULL: none */
	sg_host_t ctl;
	int err;
};

static void fail(struct sim *s, int err, const char *msg)
{
	if (!s->h->err) {
		s->h->err = err;
		snprintf(s->h->msg, sizeof(s->h->msg), "%s", msg);
	}
}

static double now(void)
{
	return simgrid_get_clock();
}

static void sleep_until(double t)
{
	double d = t - now();

	if (d > 0)
		sg_actor_sleep_for(d);
}

/* Move @bytes through segment @g as one parallel task. */
static void seg_move(struct sim *s, struct seg *g, double bytes)
{
	double *flops, *amounts;
	bool any_cpu = false;
	unsigned n = g->nh;
	sg_exec_t e;

	if (n == 0) {
		/* No finite link on the way: only a private cap, if any. */
		if (isfinite(g->bandwidth) && g->bandwidth > 0)
			sg_actor_sleep_for(bytes / g->bandwidth);
		return;
	}
	flops = calloc(n, sizeof(*flops));
	amounts = calloc((size_t)n * n, sizeof(*amounts));
	if (!flops || !amounts) {
		fail(s, -ENOMEM, "model backend: out of memory");
		free(flops);
		free(amounts);
		return;
	}
	for (unsigned i = 0; i < n; i++) {
		if (g->is_cpu[i]) {
			flops[i] = bytes * g->weight[i];
			any_cpu = true;
		} else if (g->weight[i] > 0) {
			amounts[(size_t)i * n + i + 1] = bytes * g->weight[i];
		}
	}
	e = sg_actor_parallel_exec_init((int)n, g->hosts, any_cpu ? flops : NULL,
					amounts);
	sg_exec_start(e);
	sg_exec_wait(e);
	s->h->stats.ptasks++;
	free(flops);
	free(amounts);
}

static void seg_actor_main(int argc, char **argv)
{
	struct seg_actor *a = sg_actor_self_get_data();
	struct xfer *x = a->x;
	unsigned k = a->k, last = x->nseg - 1;
	struct seg *g = &x->seg[k];
	bool send_buf = x->sbuf && k == 0;
	bool recv_buf = x->rbuf && k + 2 == x->nseg;

	if (k == 0)
		sg_actor_sleep_for(x->delay);
	for (unsigned i = 0; i < x->nchunks; i++) {
		double c = i + 1 < x->nchunks ? x->chunk :
						x->bytes - x->chunk * (x->nchunks - 1);
		double t;

		if (k > 0) {
			sg_sem_acquire(g->ready);
			sleep_until(g->ready_at[i]);
		}
		if (send_buf) {
			sg_sem_acquire(x->sbuf);
			if (i >= x->buffers)
				sleep_until(x->sbuf_free[i - x->buffers]);
		}
		if (recv_buf)
			sg_sem_acquire(x->rbuf);
		if (i == 0)
			g->start = now();
		if (g->overhead > 0)
			sg_actor_sleep_for(g->overhead);
		seg_move(x->sim, g, c);
		t = now();
		if (x->sbuf && k == 1) {
			x->sbuf_free[i] = t + g->latency;
			sg_sem_release(x->sbuf);
		}
		if (x->rbuf && k == last)
			sg_sem_release(x->rbuf);
		if (k < last) {
			x->seg[k + 1].ready_at[i] = t + g->latency;
			sg_sem_release(x->seg[k + 1].ready);
		}
	}
	g->end = now() + g->latency;
	free(a);
	if (k == last) {
		sg_actor_sleep_for(g->latency);
		x->end = now();
		sg_sem_release(x->done);
	}
}

/* Fill segment @g of transfer @t (folded from @src_node). */
static int seg_build(struct sim *s, const struct sgm_fold *f,
		     const struct plan_transfer *t, unsigned first,
		     unsigned count, struct seg *g)
{
	const struct plan *p = s->p;
	unsigned G = p->gpus_per_node, src = t->src_rank / G;
	double links_bw = INFINITY;

	g->first_stage = first;
	g->nstages = count;
	g->bandwidth = INFINITY;
	for (unsigned i = first; i < first + count; i++) {
		const struct plan_stage *st = &t->stages[i];

		g->latency += st->latency;
		g->overhead += st->chunk_overhead;
		if (st->bandwidth < g->bandwidth)
			g->bandwidth = st->bandwidth;
		for (unsigned u = st->first_use; u < st->first_use + st->nuses; u++) {
			uint32_t r = sgm_fold_resource(p, f, src, t->uses[u].resource);
			double cap = res_capacity_of(&p->layout, &p->topo, r);
			unsigned j;

			if (!s->link_a[r])
				continue;
			if (cap < links_bw)
				links_bw = cap;
			for (j = 0; j < g->nh; j += 2)
				if (g->hosts[j] == s->link_a[r])
					break;
			if (j < g->nh) {
				g->weight[j] += t->uses[u].weight;
				continue;
			}
			if (g->nh + 2 > SEG_MAX_HOSTS)
				return -E2BIG;
			g->hosts[g->nh] = s->link_a[r];
			g->weight[g->nh] = t->uses[u].weight;
			g->hosts[g->nh + 1] = s->link_b[r];
			g->nh += 2;
		}
	}
	/* A copy is also capped by its GPU's copy engine. */
	for (unsigned i = first; i < first + count; i++) {
		enum stage_kind kind = t->stages[i].kind;
		unsigned node, gpu;
		sg_host_t ce;

		if (kind != STAGE_D2H && kind != STAGE_H2D)
			continue;
		if (kind == STAGE_D2H) {
			node = src % f->nodes;
			gpu = t->src_rank % G;
		} else {
			node = (src + (t->dst_rank / G + p->nodes - src) % p->nodes) %
			       f->nodes;
			gpu = t->dst_rank % G;
		}
		ce = (kind == STAGE_D2H ? s->ce_d2h : s->ce_h2d)[node * G + gpu];
		if (!ce || g->nh + 1 > SEG_MAX_HOSTS)
			continue;
		g->hosts[g->nh] = ce;
		g->weight[g->nh] = 1;
		g->is_cpu[g->nh] = true;
		g->nh++;
	}
	(void)links_bw;
	return 0;
}

static void xfer_destroy(struct xfer *x)
{
	for (unsigned k = 0; k < x->nseg; k++) {
		free(x->seg[k].ready_at);
		if (x->seg[k].ready)
			sg_sem_destroy(x->seg[k].ready);
	}
	if (x->sbuf)
		sg_sem_destroy(x->sbuf);
	if (x->rbuf)
		sg_sem_destroy(x->rbuf);
	free(x->sbuf_free);
}

static int xfer_init(struct sim *s, const struct sgm_fold *f,
		     const struct plan_transfer *t, double bytes, double delay,
		     sg_sem_t done, struct xfer *x)
{
	const struct topo_staging *stg = &s->p->topo.staging;
	unsigned first = 0;
	int err;

	memset(x, 0, sizeof(*x));
	x->sim = s;
	x->t = t;
	x->bytes = bytes;
	x->delay = delay;
	x->done = done;
	x->buffers = stg->buffers ? stg->buffers : 1;
	if (t->chunked && stg->chunk_bytes && bytes > stg->chunk_bytes) {
		x->chunk = (double)stg->chunk_bytes;
		x->nchunks = (unsigned)ceil(bytes / x->chunk - 1e-9);
	} else {
		x->chunk = bytes;
		x->nchunks = 1;
	}
	for (unsigned i = 1; i <= t->nstages; i++) {
		if (i < t->nstages && t->stages[i].segment == t->stages[first].segment)
			continue;
		err = seg_build(s, f, t, first, i - first, &x->seg[x->nseg]);
		x->nseg++;
		if (err)
			return err;
		first = i;
	}
	for (unsigned k = 1; k < x->nseg; k++) {
		x->seg[k].ready_at = calloc(x->nchunks, sizeof(double));
		if (!x->seg[k].ready_at)
			return -ENOMEM;
		x->seg[k].ready = sg_sem_init(0);
	}
	if (t->chunked && x->nseg >= 2 && t->stages[0].kind == STAGE_D2H) {
		x->sbuf = sg_sem_init((int)x->buffers);
		x->sbuf_free = calloc(x->nchunks, sizeof(double));
		if (!x->sbuf_free)
			return -ENOMEM;
	}
	if (t->chunked && x->nseg >= 2 &&
	    t->stages[t->nstages - 1].kind == STAGE_H2D)
		x->rbuf = sg_sem_init((int)x->buffers);
	return 0;
}

static int xfer_start(struct xfer *x)
{
	x->begin = now();
	for (unsigned k = 0; k < x->nseg; k++) {
		struct seg_actor *a = malloc(sizeof(*a));
		sg_actor_t act;

		if (!a)
			return -ENOMEM;
		a->x = x;
		a->k = k;
		act = sg_actor_init("seg", x->sim->ctl);
		sg_actor_set_data(act, a);
		sg_actor_start(act, seg_actor_main, 0, NULL);
	}
	return 0;
}

static double transfer_latency(const struct plan_transfer *t)
{
	double l = 0;

	for (unsigned i = 0; i < t->nstages; i++)
		l += t->stages[i].latency;
	return l;
}

/* Run one step once; its duration, and the slowest transfer's timings. */
static int step_run(struct sim *s, const struct plan_pattern *pat,
		    const struct plan_step *st, const struct sgm_fold *f,
		    uint64_t bytes, double *time, struct xfer **slowest,
		    struct xfer **xs_out)
{
	struct xfer *xs;
	sg_sem_t done = sg_sem_init(0);
	double t0 = now(), lat_sum = 0, end = t0;
	size_t started = 0;
	int err = 0;

	*slowest = NULL;
	xs = calloc(f->nkept ? f->nkept : 1, sizeof(*xs));
	if (!xs) {
		sg_sem_destroy(done);
		return -ENOMEM;
	}
	for (size_t i = 0; i < f->nkept && !err; i++) {
		const struct plan_transfer *t = &pat->transfers[f->kept[i]];
		double delay = 0;

		if (st->kind == PLAN_STEP_CHAIN) {
			/* A pipelined chain: each hop's data arrives the
			 * previous hops' latency later. */
			if (i > 0 && pat->transfers[f->kept[i - 1]].dst_rank != t->src_rank)
				lat_sum = 0;
			delay = lat_sum;
			lat_sum += transfer_latency(t);
		}
		err = xfer_init(s, f, t, (double)bytes * t->share, delay, done, &xs[i]);
		if (!err && xs[i].bytes > 0) {
			err = xfer_start(&xs[i]);
			started++;
		}
	}
	for (size_t i = 0; i < started; i++)
		sg_sem_acquire(done);
	for (size_t i = 0; i < f->nkept; i++) {
		if (xs[i].bytes <= 0)
			continue;
		if (!*slowest || xs[i].end > end) {
			end = xs[i].end;
			*slowest = &xs[i];
		}
	}
	sg_sem_destroy(done);
	*time = end - t0;
	*xs_out = xs;
	return err;
}

static void record_slowest(const struct xfer *x, const struct plan_step *st,
			   unsigned repeat, bool first, struct sgm_result *r)
{
	const struct plan_transfer *t = x->t;

	for (unsigned k = 0; k < x->nseg; k++) {
		const struct seg *g = &x->seg[k];
		double lat_in = 0;

		for (unsigned i = g->first_stage; i < g->first_stage + g->nstages; i++) {
			enum stage_kind kind = t->stages[i].kind;
			double start = g->start + lat_in - x->begin;
			double stop = g->end - x->begin;

			lat_in += t->stages[i].latency;
			r->stage_us[kind] += repeat * 1e6 * (stop - start);
			r->stage_bytes[kind] += repeat * (uint64_t)llround(x->bytes);
			if (first && r->nspans < PLAN_MAX_STAGES) {
				struct stage_span *sp = &r->spans[r->nspans++];

				sp->kind = kind;
				sp->start_us = 1e6 * start;
				sp->end_us = 1e6 * stop;
				sp->bytes = (uint64_t)llround(x->bytes);
			}
		}
	}
	(void)st;
}

static void xfers_free(struct xfer *xs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		xfer_destroy(&xs[i]);
	free(xs);
}

static int job_run(struct sim *s, const struct sgm_job *job,
		   struct sgm_result *r)
{
	const struct plan_pattern *pat = &s->p->patterns[job->pattern];
	double total = 0;
	int err = 0;

	memset(r, 0, sizeof(*r));
	for (size_t k = 0; k < pat->nsteps && !err; k++) {
		const struct plan_step *st = &pat->steps[k];
		const struct sgm_fold *f = &s->folds[job->pattern][k];
		unsigned reps = s->o->replay ? st->repeat : 1;
		unsigned mult = s->o->replay ? 1 : st->repeat;

		for (unsigned rep = 0; rep < reps && !err; rep++) {
			struct xfer *xs = NULL, *slow;
			double t;

			err = step_run(s, pat, st, f, job->bytes, &t, &slow, &xs);
			if (!err) {
				total += mult * t;
				if (slow && rep == 0)
					record_slowest(slow, st, st->repeat, k == 0, r);
			}
			if (xs)
				xfers_free(xs, f->nkept);
		}
	}
	r->time_us = total * 1e6;
	return err;
}

static void controller_main(int argc, char **argv)
{
	struct sim *s = sg_actor_self_get_data();

	for (size_t j = 0; j < s->njobs && !s->h->err; j++) {
		int err = job_run(s, &s->jobs[j], &s->res[j]);

		if (err)
			fail(s, err, err == -E2BIG ?
				     "model backend: a stage crosses too many links" :
				     "model backend: out of memory");
	}
}

static int folds_build(struct sim *s)
{
	const struct plan *p = s->p;

	s->folds = calloc(p->npatterns ? p->npatterns : 1, sizeof(*s->folds));
	if (!s->folds)
		return -ENOMEM;
	s->nodes = 1;
	for (size_t i = 0; i < p->npatterns; i++) {
		const struct plan_pattern *pat = &p->patterns[i];

		s->folds[i] = calloc(pat->nsteps ? pat->nsteps : 1, sizeof(**s->folds));
		if (!s->folds[i])
			return -ENOMEM;
		for (size_t k = 0; k < pat->nsteps; k++) {
			struct sgm_fold *f = &s->folds[i][k];
			int err = sgm_fold_step(p, pat, &pat->steps[k], s->o->replay, f);

			if (err)
				return err;
			if (f->nodes > s->nodes)
				s->nodes = f->nodes;
			if (f->nodes < p->nodes)
				s->h->stats.folded_steps++;
		}
	}
	s->h->stats.sim_nodes = s->nodes;
	return 0;
}

/* Write the platform to an unlinked temporary file and load it. */
static int platform_load(struct sim *s)
{
	char path[] = "/tmp/gdrlab-model-XXXXXX", proc[64];
	int fd = mkstemp(path), err;
	FILE *f;

	if (fd < 0)
		return -errno;
	unlink(path);
	f = fdopen(fd, "w+");
	if (!f) {
		close(fd);
		return -errno;
	}
	err = sgm_platform_write(f, s->p, s->nodes);
	if (!err && fflush(f))
		err = -errno;
	if (!err) {
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
		simgrid_load_platform(proc);
	}
	fclose(f);
	return err;
}

static int hosts_lookup(struct sim *s)
{
	const struct plan *p = s->p;
	size_t nres = (size_t)p->layout.per_node * s->nodes;
	size_t nce = (size_t)p->gpus_per_node * s->nodes;
	char name[SGM_NAME_MAX];

	s->link_a = calloc(nres ? nres : 1, sizeof(*s->link_a));
	s->link_b = calloc(nres ? nres : 1, sizeof(*s->link_b));
	s->ce_d2h = calloc(nce ? nce : 1, sizeof(*s->ce_d2h));
	s->ce_h2d = calloc(nce ? nce : 1, sizeof(*s->ce_h2d));
	if (!s->link_a || !s->link_b || !s->ce_d2h || !s->ce_h2d)
		return -ENOMEM;
	for (size_t r = 0; r < nres; r++) {
		double cap = res_capacity_of(&p->layout, &p->topo, (uint32_t)r);

		if (!isfinite(cap) || cap <= 0)
			continue;
		sgm_link_host_name(name, sizeof(name), (uint32_t)r, 'a');
		s->link_a[r] = sg_host_by_name(name);
		sgm_link_host_name(name, sizeof(name), (uint32_t)r, 'b');
		s->link_b[r] = sg_host_by_name(name);
	}
	if (isfinite(p->topo.staging.copy_bw) && p->topo.staging.copy_bw > 0)
		for (size_t i = 0; i < nce; i++) {
			unsigned node = (unsigned)(i / p->gpus_per_node);
			unsigned gpu = (unsigned)(i % p->gpus_per_node);

			sgm_copy_engine_name(name, sizeof(name), node, gpu, STAGE_D2H);
			s->ce_d2h[i] = sg_host_by_name(name);
			sgm_copy_engine_name(name, sizeof(name), node, gpu, STAGE_H2D);
			s->ce_h2d[i] = sg_host_by_name(name);
		}
	s->ctl = sg_host_by_name(SGM_CONTROL_HOST);
	return s->ctl ? 0 : -ENOENT;
}

void sgm_simulate(const struct plan *p, const struct model_options *o,
		  const struct sgm_job *jobs, size_t njobs,
		  struct sgm_result *res, struct sgm_header *h)
{
	/* ptask_L07: plain max-min sharing, no correction factors, and
	 * parallel tasks over several links (docs/model.md says why). */
	char a0[] = "gdrlab-model", a1[] = "--cfg=host/model:ptask_L07",
	     a2[] = "--log=root.thres:critical",
	     a3[] = "--cfg=contexts/stack-size:256";
	char *argv[] = { a0, a1, a2, a3, NULL };
	int argc = 4, err;
	struct sim s = { .p = p, .o = o, .jobs = jobs, .njobs = njobs,
			 .res = res, .h = h };
	sg_actor_t ctl;

	err = folds_build(&s);
	if (!err) {
		simgrid_init(&argc, argv);
		err = platform_load(&s);
	}
	if (!err)
		err = hosts_lookup(&s);
	if (err) {
		fail(&s, err, "model backend: cannot build the SimGrid platform");
		return; /* the child exits: nothing to free */
	}
	ctl = sg_actor_init("controller", s.ctl);
	sg_actor_set_data(ctl, &s);
	sg_actor_start(ctl, controller_main, 0, NULL);
	simgrid_run();
}
