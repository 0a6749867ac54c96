/* SPDX-License-Identifier: MIT */
/*
 * The simulation itself, run in forked children: one loads the platform
 * (sgm_load), then in it or in children forked from it one controller
 * actor runs the jobs, one after another (sgm_run).
 *
 * A job is one collective at one size: every connection of the channels it
 * uses (one of each symmetric orbit, simgrid_sym.c) becomes one SimGrid
 * actor per segment of its route (plan.h: stages
 * of a segment pass a slice cut-through, segments hand over whole
 * slices), each moving the connection's slices in order as parallel tasks
 * over exactly its links (simgrid_platform.c). A slice starts when the
 * slices it forwards or reduces have arrived (the connections it depends
 * on) and a slot of the connection is free: slot q is free again once
 * slice q - slots has landed and its credit has come back, each the
 * links' own latency (model/pipeline.h says why). A slice arrives the connection's latency after its last byte
 * left (latency is propagation: the links are free meanwhile); a
 * cut-through connection (LL, LL128 between GPUs of a node) lets the next
 * one start as soon as the first grain has arrived. Nothing waits for a
 * step: the slices move as their dependencies allow, and the links are
 * shared for real among whatever is in flight (ptask_L07, max-min).
 * A job ends once its last slice has landed whole (a cut-through one's
 * last grain, not its first), plus NCCL's launch latency.
 */
#include "simgrid_internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "simgrid_api.h"

#include "algo.h"
#include "pipeline.h"

#define SEG_MAX_HOSTS (2 * (PLAN_MAX_USES + FABRIC_PATH_MAX))
/* Busy times this close are one: equal connections differ by rounding. */
#define SAME_BUSY 1e-6

struct sim {
	const struct model_options *o;
	struct sgm_header *h;
	unsigned nodes;               /* of the platform */
	uint32_t per_node;
	sg_host_t *link_a, *link_b;   /* per platform resource; NULL: unlimited */
	size_t nres;                  /* entries of link_a and link_b */
	sg_host_t ctl;
	bool whole;                   /* every node as it is: no fold */
	struct sgm_sym_cache sym;     /* symmetries found (simgrid_sym.c) */
};

struct sconn;

/* A dependency: the connection it waits for, and the tokens it took. */
struct edge {
	struct sconn *from;
	sg_sem_t sem;   /* one token per slice of @from that arrived */
	unsigned taken;
};

struct seg {
	unsigned nh;
	sg_host_t hosts[SEG_MAX_HOSTS];
	double weight[SEG_MAX_HOSTS]; /* bytes per payload byte, link pair start */
	double overhead;              /* work per slice */
	double cap;                   /* payload bytes/s the segment may not pass */
	double busy;                  /* seconds spent moving the slices */
	sg_sem_t ready;               /* a slice handed over from the one before */
	double *ready_at;
	sg_sem_t whole;               /* cut-through: the one before has passed
				       * its slice's last grain */
	double *whole_at;
	double *amounts;              /* nh x nh bytes matrix, reused by every
				       * slice: SimGrid copies it at init */
};

/* One connection of the job. */
struct sconn {
	struct job_run *run;
	const struct plan_conn *c;
	bool ring;                   /* a ring pipe: fresh data every loop */
	unsigned per_stream, steps;  /* ring: slices a step, steps a loop */
	unsigned nslices, slots;
	double slice, grain, latency;
	double links;                /* the route's own latency */
	double gap;                  /* the stream's limit: slice q starts no
				      * earlier than q x gap into the job */
	double delay;                /* its pipe's, added to its end
				      * (plan_pipe.delay) */
	bool cut_through;
	unsigned nseg;
	struct seg seg[PLAN_MAX_STAGES];
	unsigned nin, nout;
	struct edge in[PLAN_MAX_DEPS];
	struct edge **out;           /* edges that wait for this one */
	/* The slots (plan_route_proxy_fifos, pipeline_slot_period): one
	 * FIFO over the whole route, or through NCCL's proxy the sender's
	 * (segments 0 .. send_last) and the receiver's (recv_first .. the
	 * last). A slot is taken again credit_trip after its slice left
	 * the FIFO. */
	bool proxy_fifos;
	unsigned send_last, recv_first;
	double credit_trip;
	sg_sem_t slot;               /* the (sender's) FIFO's free slots */
	sg_sem_t recv_slot;          /* the receiver's FIFO's, with proxy_fifos */
	double *send_freed;          /* with proxy_fifos, per slice: when it
				      * left the sender's FIFO */
	double *arrival;             /* per slice: when its receiver can pass it on */
	double *landed;              /* per slice: when its last byte reached the
				      * receiver; a cut-through connection's
				      * arrival is its first grain's */
	double *sent;                /* per slice: when its last byte left */
};

struct job_run {
	struct sim *sim;
	size_t nconns;
	struct sconn *conns;
	sg_sem_t done;
	double start, end;
	int err;
};

struct seg_actor {
	struct sconn *c;
	unsigned k;
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
	return sgm.get_clock();
}

static void sleep_until(double t)
{
	double d = t - now();

	if (d > 0)
		sgm.actor_sleep_for(d);
}

/*
 * Move @bytes through segment @g as one parallel task over its links. A
 * cap SimGrid's parallel tasks cannot bound (ptask_L07 ignores bounds) is
 * kept by waiting out the rest of bytes / cap: exact when the cap binds
 * alone, an approximation of the links' sharing when it binds together
 * with contention.
 */
static void seg_move(struct job_run *run, struct seg *g, double bytes)
{
	double t0 = now();
	unsigned n = g->nh;
	sg_exec_t e;

	if (bytes <= 0)
		return;
	if (n) {
		/* Only the link pairs' (a -> b) entries are ever non-zero. */
		for (unsigned i = 0; i + 1 < n; i += 2)
			g->amounts[(size_t)i * n + i + 1] = bytes * g->weight[i];
		e = sgm.actor_parallel_exec_init((int)n, g->hosts, NULL, g->amounts);
		sgm.exec_start(e);
		sgm.exec_wait(e);
		run->sim->h->stats.ptasks++;
	}
	if (isfinite(g->cap) && g->cap > 0)
		sleep_until(t0 + bytes / g->cap);
}

/* The slice of @e's source that slice @q needs; -1 for none (fresh). */
static long needed(const struct sconn *c, unsigned q)
{
	if (!c->ring)
		return (long)q;
	if ((q / c->per_stream) % c->steps == 0)
		return -1; /* a loop's first step: the rank's own data */
	return (long)q - c->per_stream;
}

static void wait_inputs(struct sconn *c, unsigned q)
{
	for (unsigned i = 0; i < c->nin; i++) {
		struct edge *e = &c->in[i];
		long j = needed(c, q);

		if (j < 0)
			continue;
		while (e->taken <= (unsigned)j) {
			sgm.sem_acquire(e->sem);
			e->taken++;
		}
		sleep_until(e->from->arrival[j]);
	}
}

static void arrived(struct sconn *c, unsigned q, double at)
{
	c->arrival[q] = at;
	for (unsigned i = 0; i < c->nout; i++)
		sgm.sem_release(c->out[i]->sem);
}

/* Whether @c passes each grain on as it lands (LL, LL128 inside a node),
 * its slices longer than a grain: only then does a segment wait for the
 * one before to have passed a slice's last grain (seg.whole). */
static bool passes_grains(const struct sconn *c)
{
	return c->cut_through && c->grain < c->slice;
}

/* Segment @k of @c hands slice @q to the next segment. */
static void hand_over(struct sconn *c, unsigned k, unsigned q)
{
	c->seg[k + 1].ready_at[q] = now();
	sgm.sem_release(c->seg[k + 1].ready);
}

static void seg_actor_main(int argc, char **argv)
{
	struct seg_actor *a = sgm.actor_self_get_data();
	struct sconn *c = a->c;
	unsigned k = a->k, last = c->nseg - 1;
	struct seg *g = &c->seg[k];
	bool cut = passes_grains(c);
	double busy_from;

	(void)argc;
	(void)argv;
	for (unsigned q = 0; q < c->nslices && !c->run->err; q++) {
		if (k == 0) {
			const double *freed = c->proxy_fifos ? c->send_freed : c->sent;

			wait_inputs(c, q);
			sgm.sem_acquire(c->slot);
			if (q >= c->slots)
				sleep_until(freed[q - c->slots] + c->credit_trip);
			/* The stream's limits (plan_stream_cap) space the
			 * slices, each still moving at its links' pace. */
			if (c->gap > 0)
				sleep_until(c->run->start + q * c->gap);
		} else {
			sgm.sem_acquire(g->ready);
			sleep_until(g->ready_at[q]);
		}
		if (c->proxy_fifos && k == c->recv_first) {
			/* The receiver's proxy has offered this slot. */
			sgm.sem_acquire(c->recv_slot);
			if (q >= c->slots)
				sleep_until(c->sent[q - c->slots] + c->credit_trip);
		}
		busy_from = now();
		if (g->overhead > 0)
			sgm.actor_sleep_for(g->overhead);
		if (cut) {
			/* Each grain goes on as it lands, through the
			 * segments too (LL's lines in SHM's host memory,
			 * polled by the receiver): the next segment, or
			 * from the last the next connection, starts on the
			 * first grain (one token a slice), and passes its
			 * last no earlier than the segment before it did. */
			seg_move(c->run, g, c->grain);
			if (k == last)
				arrived(c, q, now() + c->latency);
			else
				hand_over(c, k, q);
			seg_move(c->run, g, c->slice - c->grain);
			if (k > 0) {
				sgm.sem_acquire(g->whole);
				sleep_until(g->whole_at[q]);
			}
			if (k < last) {
				c->seg[k + 1].whole_at[q] = now();
				sgm.sem_release(c->seg[k + 1].whole);
			} else {
				c->landed[q] = now() + c->latency;
			}
		} else {
			seg_move(c->run, g, c->slice);
			if (k == last) {
				c->landed[q] = now() + c->latency;
				arrived(c, q, c->landed[q]);
			}
		}
		g->busy += now() - busy_from;
		if (c->proxy_fifos && k == c->send_last) {
			/* The sender's proxy saw the NIC's send complete. */
			c->send_freed[q] = now();
			sgm.sem_release(c->slot);
		}
		if (k < last) {
			if (!cut)
				hand_over(c, k, q);
		} else {
			c->sent[q] = now();
			sgm.sem_release(c->proxy_fifos ? c->recv_slot : c->slot);
		}
	}
	if (k == last) {
		/* the batches before its pipe's, their latencies only
		 * (plan_pipe.delay: as the analytic backend counts them).
		 * The call has moved its bytes once the last slice has
		 * landed whole: a cut-through hop's next connection starts
		 * at the first grain, but the receiver's buffer is full
		 * only at the last (until 2026-12-06 a call ended at that
		 * first grain: an LL all-gather on one node took its
		 * latencies alone, whatever its size). */
		double end = (c->nslices ? c->landed[c->nslices - 1] : now()) + c->delay;

		if (end > c->run->end)
			c->run->end = end;
		sgm.sem_release(c->run->done);
	}
	free(a);
}

/* The switches' links of @c's wire stage, when it is in segment @k: the
 * platform's fabric zone (no fold runs over switches, so the ids are
 * the plan's). */
static int seg_fabric(struct sim *s, const struct plan *p, const struct plan_pattern *pat,
		      const struct plan_conn *c, unsigned k, double w, struct seg *g)
{
	const struct plan_route *r = &pat->routes[c->route];
	int wire = plan_route_wire(r);
	uint32_t ids[FABRIC_PATH_MAX];
	unsigned n;

	if (wire < 0 || r->stages[wire].segment != k)
		return 0;
	n = plan_conn_fabric(p, pat, c, ids);
	for (unsigned i = 0; i < n; i++) {
		if (ids[i] >= s->nres || !s->link_a[ids[i]])
			continue;
		if (g->nh + 2 > SEG_MAX_HOSTS)
			return -E2BIG;
		g->hosts[g->nh] = s->link_a[ids[i]];
		g->weight[g->nh] = w;
		g->hosts[g->nh + 1] = s->link_b[ids[i]];
		g->nh += 2;
	}
	return 0;
}

/* Segment @k of @c: its links in the platform, folded. */
static int seg_build(struct sim *s, const struct plan *p, const struct plan_pattern *pat,
		     const struct sgm_fold *f, struct sconn *sc, unsigned k)
{
	const struct plan_conn *c = sc->c;
	const struct plan_route *r = &pat->routes[c->route];
	const struct plan_pipe *pp = &pat->pipes[c->pipe];
	double w = proto_get(pat->proto)->wire_ratio / pp->efficiency;
	struct seg *g = &sc->seg[k];

	g->cap = INFINITY;
	for (unsigned i = 0; i < r->nstages; i++) {
		const struct plan_stage *st = &r->stages[i];

		if (st->segment != k)
			continue;
		g->overhead += st->chunk_overhead;
		if (st->private_cap < g->cap)
			g->cap = st->private_cap;
		for (unsigned u = st->first_use; u < st->first_use + st->nuses; u++) {
			const struct plan_use *use = &r->uses[u];
			uint32_t id = sgm_fold_res(f, sgm_fold_node(p, f, c, use->at_dst) *
							   s->per_node + use->res);
			unsigned j;

			if (!s->link_a[id])
				continue;
			for (j = 0; j < g->nh; j += 2)
				if (g->hosts[j] == s->link_a[id])
					break;
			if (j < g->nh) {
				g->weight[j] += use->weight * w;
				continue;
			}
			if (g->nh + 2 > SEG_MAX_HOSTS)
				return -E2BIG;
			g->hosts[g->nh] = s->link_a[id];
			g->weight[g->nh] = use->weight * w;
			g->hosts[g->nh + 1] = s->link_b[id];
			g->nh += 2;
		}
	}
	return seg_fabric(s, p, pat, c, k, w, g);
}

static void job_destroy(struct job_run *run)
{
	for (size_t i = 0; i < run->nconns; i++) {
		struct sconn *c = &run->conns[i];

		for (unsigned k = 0; k < c->nseg; k++) {
			free(c->seg[k].ready_at);
			free(c->seg[k].amounts);
			if (c->seg[k].ready)
				sgm.sem_destroy(c->seg[k].ready);
			if (c->seg[k].whole)
				sgm.sem_destroy(c->seg[k].whole);
			free(c->seg[k].whole_at);
		}
		for (unsigned k = 0; k < c->nin; k++)
			if (c->in[k].sem)
				sgm.sem_destroy(c->in[k].sem);
		if (c->slot)
			sgm.sem_destroy(c->slot);
		if (c->recv_slot)
			sgm.sem_destroy(c->recv_slot);
		free(c->out);
		free(c->arrival);
		free(c->landed);
		free(c->sent);
		free(c->send_freed);
	}
	free(run->conns);
	if (run->done)
		sgm.sem_destroy(run->done);
}

/* The pattern's call limits on one connection, in payload bytes/s. */
static double conn_cap(const struct plan_pattern *pat, const struct plan_conn *c,
		       unsigned nch)
{
	double cap = pat->pipes[c->pipe].conn_cap;

	if (isfinite(pat->total_cap) && pat->total_cap / nch < cap)
		cap = pat->total_cap / nch;
	return cap;
}

static int conn_init(struct sim *s, const struct plan *p, const struct plan_pattern *pat,
		     const struct sgm_fold *f, size_t k, uint64_t bytes, unsigned nch,
		     struct job_run *run)
{
	struct sconn *sc = &run->conns[k];
	const struct plan_conn *c = &pat->conns[f->kept[k]];
	const struct plan_route *r = &pat->routes[c->route];
	const struct plan_pipe *pp = &pat->pipes[c->pipe];
	struct plan_slicing sl;
	double cap = conn_cap(pat, c, nch), stream = plan_stream_cap(pat, pp, nch);
	int err = 0;

	plan_slicing(p, pat, pp, bytes, nch, &sl);
	sc->run = run;
	sc->c = c;
	sc->ring = pp->shape == PIPE_RING;
	sc->per_stream = (unsigned)sl.per_stream;
	sc->steps = pp->steps ? pp->steps : 1;
	sc->nslices = (unsigned)llround(sl.slices);
	sc->slots = sl.slots ? sl.slots : 1;
	sc->slice = plan_slice_bytes(c, &sl, bytes);
	sc->grain = proto_get(pat->proto)->grain;
	sc->cut_through = r->cut_through;
	sc->latency = c->latency;
	sc->links = r->latency;
	sc->gap = isfinite(stream) && stream > 0 ? sc->slice / stream : 0;
	sc->delay = pp->delay;
	sc->nseg = r->nstages ? r->stages[r->nstages - 1].segment + 1 : 0;
	sc->arrival = calloc(sc->nslices ? sc->nslices : 1, sizeof(*sc->arrival));
	sc->landed = calloc(sc->nslices ? sc->nslices : 1, sizeof(*sc->landed));
	sc->sent = calloc(sc->nslices ? sc->nslices : 1, sizeof(*sc->sent));
	sc->slot = sgm.sem_init((int)sc->slots);
	sc->proxy_fifos = plan_route_proxy_fifos(p, r, &sc->send_last, &sc->recv_first);
	sc->credit_trip = pipeline_credit_trip(sc->links, sc->latency, sc->proxy_fifos);
	if (sc->proxy_fifos) {
		sc->recv_slot = sgm.sem_init((int)sc->slots);
		sc->send_freed = calloc(sc->nslices ? sc->nslices : 1, sizeof(*sc->send_freed));
		if (!sc->send_freed)
			return -ENOMEM;
	}
	if (!sc->arrival || !sc->landed || !sc->sent)
		return -ENOMEM;
	for (unsigned g = 0; g < sc->nseg && !err; g++) {
		err = seg_build(s, p, pat, f, sc, g);
		if (!err && sc->seg[g].nh) {
			size_t nh = sc->seg[g].nh;

			sc->seg[g].amounts = calloc(nh * nh, sizeof(double));
			if (!sc->seg[g].amounts)
				err = -ENOMEM;
		}
		if (cap < sc->seg[g].cap)
			sc->seg[g].cap = cap;
		if (!err && g > 0) {
			sc->seg[g].ready = sgm.sem_init(0);
			sc->seg[g].ready_at = calloc(sc->nslices ? sc->nslices : 1, sizeof(double));
			if (!sc->seg[g].ready_at)
				err = -ENOMEM;
		}
		if (!err && g > 0 && passes_grains(sc)) {
			sc->seg[g].whole = sgm.sem_init(0);
			sc->seg[g].whole_at = calloc(sc->nslices ? sc->nslices : 1, sizeof(double));
			if (!sc->seg[g].whole_at)
				err = -ENOMEM;
		}
	}
	return err;
}

/* Wire each connection's inputs to the connections it waits for. */
static int edges_build(const struct plan_pattern *pat, const struct sgm_fold *f,
		       struct job_run *run)
{
	unsigned *nout = calloc(run->nconns ? run->nconns : 1, sizeof(*nout));

	if (!nout)
		return -ENOMEM;
	for (size_t k = 0; k < run->nconns; k++) {
		const struct plan_conn *c = &pat->conns[f->kept[k]];

		for (unsigned d = 0; d < c->ndeps; d++)
			nout[f->dep[k * PLAN_MAX_DEPS + d]]++;
	}
	for (size_t k = 0; k < run->nconns; k++) {
		run->conns[k].out = calloc(nout[k] ? nout[k] : 1, sizeof(struct edge *));
		if (!run->conns[k].out) {
			free(nout);
			return -ENOMEM;
		}
	}
	for (size_t k = 0; k < run->nconns; k++) {
		struct sconn *sc = &run->conns[k];

		for (unsigned d = 0; d < sc->c->ndeps; d++) {
			struct sconn *from = &run->conns[f->dep[k * PLAN_MAX_DEPS + d]];
			struct edge *e = &sc->in[sc->nin++];

			e->from = from;
			e->sem = sgm.sem_init(0);
			from->out[from->nout++] = e;
		}
	}
	free(nout);
	return 0;
}

static int start_actors(struct job_run *run)
{
	for (size_t k = 0; k < run->nconns; k++)
		for (unsigned g = 0; g < run->conns[k].nseg; g++) {
			struct seg_actor *a = malloc(sizeof(*a));
			sg_actor_t act;

			if (!a)
				return -ENOMEM;
			a->c = &run->conns[k];
			a->k = g;
			act = sgm.actor_init("seg", run->sim->ctl);
			sgm.actor_set_data(act, a);
			sgm.actor_start(act, seg_actor_main, 0, NULL);
		}
	return 0;
}

/* The longest one of @c's segments spent moving its slices. */
static double busiest_segment(const struct sconn *c)
{
	double worst = 0;

	for (unsigned k = 0; k < c->nseg; k++)
		if (c->seg[k].busy > worst)
			worst = c->seg[k].busy;
	return worst;
}

/*
 * The bottleneck connection's stages, as the analytic backend reports
 * them (model/analytic.c time_pipe): the connection whose busiest
 * segment was busiest, among equals the one whose last slice landed
 * last; each stage its segment's busy time. Of connections that pass
 * slices at one pace the busiest link is the one that sets it, not the
 * NVLink hop that lands last in a tree.
 */
static void record_stages(const struct plan_pattern *pat, const struct job_run *run,
			  double begin, struct sgm_result *r)
{
	const struct sconn *worst = NULL;
	double end = 0, busiest = 0;

	for (size_t k = 0; k < run->nconns; k++) {
		const struct sconn *c = &run->conns[k];
		double e = c->nslices ? c->landed[c->nslices - 1] : 0;
		double b = busiest_segment(c);

		if (!worst || b > busiest * (1 + SAME_BUSY) ||
		    (b >= busiest * (1 - SAME_BUSY) && e > end)) {
			worst = c;
			end = e;
			busiest = b;
		}
	}
	if (!worst)
		return;
	for (unsigned s = 0; s < pat->routes[worst->c->route].nstages; s++) {
		const struct plan_stage *st = &pat->routes[worst->c->route].stages[s];
		double bytes = worst->slice * worst->nslices;

		r->stage_us[st->kind] += 1e6 * worst->seg[st->segment].busy;
		r->stage_bytes[st->kind] += (uint64_t)llround(bytes);
		if (r->nspans < PLAN_MAX_STAGES)
			r->spans[r->nspans++] = (struct stage_span){ st->kind, 0,
								    1e6 * (end - begin),
								    (uint64_t)llround(bytes) };
	}
}

/* Simulate one call of @pat; its time in seconds, launch included. */
static int simulate_call(struct sim *s, const struct plan *p, size_t pattern,
			 uint64_t bytes, unsigned nch, double *time,
			 struct sgm_result *res)
{
	const struct plan_pattern *pat = &p->patterns[pattern];
	struct job_run run = { .sim = s };
	struct sgm_fold f;
	int err;

	*time = pat->base_latency;
	if (!pat->nconns || !bytes)
		return 0;
	err = sgm_fold_pattern(p, pat, nch, s->o->replay || s->whole,
			       s->o->every_conn ? NULL : &s->sym, &f);
	if (err)
		return err;
	if (f.span > s->nodes) {
		sgm_fold_destroy(&f);
		return -ERANGE;
	}
	if (f.nodes < p->nodes)
		s->h->stats.folded_steps++;
	if (f.sym_conns)
		s->h->stats.sym_jobs++;
	run.nconns = f.nkept;
	run.conns = calloc(f.nkept ? f.nkept : 1, sizeof(*run.conns));
	run.done = sgm.sem_init(0);
	err = run.conns ? 0 : -ENOMEM;
	for (size_t k = 0; k < f.nkept && !err; k++)
		err = conn_init(s, p, pat, &f, k, bytes, nch, &run);
	if (!err)
		err = edges_build(pat, &f, &run);
	run.start = run.end = now();
	if (!err)
		err = start_actors(&run);
	for (size_t k = 0; k < f.nkept && !err; k++)
		sgm.sem_acquire(run.done);
	if (!err)
		err = run.err;
	*time = pat->base_latency + (run.end - run.start);
	if (!err && res)
		record_stages(pat, &run, run.start, res);
	job_destroy(&run);
	sgm_fold_destroy(&f);
	return err;
}

/* A call over many nodes: two smaller runs, extended linearly. */
static int simulate_scaled(struct sim *s, const struct plan *p, const struct sgm_job *job,
			   struct sgm_result *res, double *time)
{
	const struct plan_pattern *pat = &p->patterns[job->pattern];
	unsigned n1 = SGM_SCALE_NODES, n2 = SGM_SCALE_NODES / 2;
	double t1 = 0, t2 = 0, x, x1, x2;
	int err = 0;

	for (unsigned i = 0; i < 2 && !err; i++) {
		struct plan sub;
		struct trace t;

		err = sgm_scaled_plan(p, pat, job->bytes, job->nchannels, i ? n2 : n1, &t, &sub);
		if (!err) {
			err = simulate_call(s, &sub, 0, job->bytes, sub.collectives[0].nchannels,
					    i ? &t2 : &t1, i ? NULL : res);
			plan_destroy(&sub);
		}
		free(t.entries);
	}
	x = sgm_scale_variable(pat, p->nodes);
	x1 = sgm_scale_variable(pat, n1);
	x2 = sgm_scale_variable(pat, n2);
	*time = t1 + (x - x1) * (t1 - t2) / (x1 - x2);
	s->h->stats.scaled_jobs++;
	return err;
}

static int job_run(struct sim *s, const struct plan *p, const struct sgm_job *job,
		   struct sgm_result *r)
{
	const struct plan_pattern *pat = &p->patterns[job->pattern];
	double t = 0;
	int err;

	memset(r, 0, sizeof(*r));
	if (sgm_scales(p, pat, s->o->replay))
		err = simulate_scaled(s, p, job, r, &t);
	else
		err = simulate_call(s, p, job->pattern, job->bytes, job->nchannels, &t, r);
	r->time_us = t * 1e6;
	return err;
}

struct controller {
	struct sim *sim;
	const struct plan *p;
	const struct sgm_job *jobs;
	size_t njobs;
	struct sgm_result *res;
	struct sgm_together *together;
};

static void fail_job(struct sim *s, int err)
{
	fail(s, err, err == -E2BIG ? "model backend: a stage crosses too many links" :
		     err == -ERANGE ? "model backend: internal error (platform too small)" :
		     "model backend: out of memory");
}

/*
 * Together (simgrid_internal.h) simulates every call over every node, no
 * fold, no scaling, where the fluid schedule costs next to nothing: worth
 * it up to about this many calls x nodes: some 7 s here, at the 1.8 ms
 * a call and node that 3424 calls of an LLM job on 4 nodes took.
 */
#define SGM_TOGETHER_MAX_WORK 4096

bool sgm_together_fits(const struct plan *p, const struct records *rec,
		       const struct model_options *o)
{
	return !(o && o->fluid) && records_concurrent(rec) &&
	       (double)rec->ncoll * p->nodes <= SGM_TOGETHER_MAX_WORK;
}

/* One call of one iteration (a batch: its first send), waiting for the
 * calls records_order says it waits for. */
struct call_run {
	struct sim *sim;
	const struct plan *p;
	struct sgm_together *tg;
	size_t lead;
	double iter_start, t0; /* seconds on SimGrid's clock */
	sg_sem_t *ended;       /* per call of the run: released once it ended */
	sg_sem_t done;
};

/* One send of a batch, run beside the others (call_main). */
struct batch_send {
	struct call_run *c;
	size_t call;
	double t;
	int err;
	sg_sem_t done;
};

/* A send of a batch, from now: what waits for it (records_order: a
 * call of its ranks) may go once it has ended, the launch latency
 * included, whatever the batch's other sends. */
static void batch_send_main(int argc, char **argv)
{
	struct batch_send *b = sgm.actor_self_get_data();
	const struct plan_collective *pc = &b->c->p->collectives[b->call];
	double start = now();

	(void)argc;
	(void)argv;
	b->err = simulate_call(b->c->sim, b->c->p, pc->pattern, pc->bytes, pc->nchannels, &b->t,
			       NULL);
	if (!b->err)
		sleep_until(start + b->t);
	sgm.sem_release(b->c->ended[b->call]);
	sgm.sem_release(b->done);
}

/*
 * The sends of @c's batch (a call alone: itself), at once from now: each
 * its own span; returns when the last ends, or an error.
 */
static int run_batch(struct call_run *c)
{
	const struct records *rec = c->tg->rec;
	size_t n = 0, j = 0;
	struct batch_send *b;
	double start = now();
	sg_sem_t done;
	int err = 0;

	for (size_t i = c->lead; i != SIZE_MAX; i = rec->coll[i].next_in_batch)
		n++;
	b = calloc(n, sizeof(*b));
	if (!b)
		return -ENOMEM;
	done = sgm.sem_init(0);
	for (size_t i = c->lead; i != SIZE_MAX; i = rec->coll[i].next_in_batch, j++) {
		sg_actor_t a = sgm.actor_init("batch-send", c->sim->ctl);

		b[j] = (struct batch_send){ c, i, 0, 0, done };
		sgm.actor_set_data(a, &b[j]);
		sgm.actor_start(a, batch_send_main, 0, NULL);
	}
	for (j = 0; j < n; j++)
		sgm.sem_acquire(done);
	for (j = 0; j < n && !err; j++) {
		err = b[j].err;
		c->tg->coll[b[j].call] = (struct sgm_span){ 1e6 * (start - c->t0),
							   1e6 * (start + b[j].t - c->t0) };
	}
	sgm.sem_destroy(done);
	free(b);
	return err;
}

static void call_main(int argc, char **argv)
{
	struct call_run *c = sgm.actor_self_get_data();
	const struct records *rec = c->tg->rec;
	int err = 0;

	(void)argc;
	(void)argv;
	/* each one it waits for passes its "ended" on to the next waiter */
	for (size_t k = rec->pred_first[c->lead]; k < rec->pred_first[c->lead + 1]; k++) {
		sgm.sem_acquire(c->ended[rec->preds[k]]);
		sgm.sem_release(c->ended[rec->preds[k]]);
	}
	if (!c->sim->h->err) {
		sleep_until(c->iter_start + 1e-6 * records_batch_ready(rec, c->lead));
		err = run_batch(c);
	}
	if (err)
		fail_job(c->sim, err);
	/* after an error the batch's sends ran nothing: release what waits */
	for (size_t i = c->lead; c->sim->h->err && i != SIZE_MAX; i = rec->coll[i].next_in_batch)
		sgm.sem_release(c->ended[i]);
	sgm.sem_release(c->done);
}

/* One job's iterations on its own clock: records iter[first .. end). */
struct clock_run {
	struct sim *sim;
	const struct plan *p;
	struct sgm_together *tg;
	unsigned first, end;
	double t0;             /* the run's start, seconds on SimGrid's clock */
	sg_sem_t *ended;       /* per call of the run */
	int err;
	sg_sem_t finished;     /* released once its last iteration ended */
};

/* Each iteration's calls at once, each when what it waits for has
 * ended; the job's next iteration once the last call and the compute of
 * this one have ended. */
static int run_clock(struct clock_run *k)
{
	struct sim *s = k->sim;
	const struct records *rec = k->tg->rec;
	struct sgm_together *tg = k->tg;
	size_t n = rec->ncoll ? rec->ncoll : 1;
	struct call_run *cs = calloc(n, sizeof(*cs));
	double t0 = k->t0, iter_start = now();
	sg_sem_t done;

	if (!cs)
		return -ENOMEM;
	done = sgm.sem_init(0);
	for (unsigned it = k->first; it < k->end && !s->h->err; it++) {
		const struct iter_record *ir = &rec->iter[it];
		size_t ncalls = 0;
		double end = iter_start + 1e-6 * ir->compute_us;

		for (size_t i = ir->first; i < ir->end; i++)
			k->ended[i] = sgm.sem_init(0);
		for (size_t i = ir->first; i < ir->end; i++) {
			sg_actor_t a;

			if (rec->coll[i].joins_batch)
				continue;
			cs[i] = (struct call_run){ s, k->p, tg, i, iter_start, t0, k->ended, done };
			a = sgm.actor_init("call", s->ctl);
			sgm.actor_set_data(a, &cs[i]);
			sgm.actor_start(a, call_main, 0, NULL);
			ncalls++;
		}
		for (size_t i = 0; i < ncalls; i++)
			sgm.sem_acquire(done);
		for (size_t i = ir->first; i < ir->end; i++) {
			sgm.sem_destroy(k->ended[i]);
			if (t0 + 1e-6 * tg->coll[i].end_us > end)
				end = t0 + 1e-6 * tg->coll[i].end_us;
		}
		tg->iter[it] = (struct sgm_span){ 1e6 * (iter_start - t0), 1e6 * (end - t0) };
		sleep_until(end);
		iter_start = end;
	}
	sgm.sem_destroy(done);
	free(cs);
	return 0;
}

static void clock_main(int argc, char **argv)
{
	struct clock_run *k = sgm.actor_self_get_data();

	(void)argc;
	(void)argv;
	k->err = run_clock(k);
	sgm.sem_release(k->finished);
}

/*
 * Every job's iterations at once, each job on its own clock (run_clock):
 * jobs on one cluster share the links their calls cross at the same
 * moment, never an iteration's end. One job runs here, the others each
 * as an actor of its own.
 */
static int run_together(struct sim *s, const struct plan *p, struct sgm_together *tg)
{
	const struct records *rec = tg->rec;
	size_t n = rec->ncoll ? rec->ncoll : 1;
	unsigned njobs = rec->njobs ? rec->njobs : 1, j = 0;
	struct clock_run *ks = calloc(njobs, sizeof(*ks));
	sg_sem_t *ended = calloc(n, sizeof(*ended));
	sg_sem_t finished;
	int err = 0;

	if (!ks || !ended) {
		free(ks);
		free(ended);
		return -ENOMEM;
	}
	finished = sgm.sem_init(0);
	for (unsigned it = 0; it < rec->niter; j++) {
		ks[j] = (struct clock_run){ s, p, tg, it, it, now(), ended, 0, finished };
		while (ks[j].end < rec->niter && rec->iter[ks[j].end].job == rec->iter[it].job)
			ks[j].end++;
		it = ks[j].end;
	}
	s->whole = true;
	for (unsigned k = 1; k < j; k++) {
		sg_actor_t a = sgm.actor_init("clock", s->ctl);

		sgm.actor_set_data(a, &ks[k]);
		sgm.actor_start(a, clock_main, 0, NULL);
	}
	if (j)
		err = run_clock(&ks[0]);
	for (unsigned k = 1; k < j; k++)
		sgm.sem_acquire(finished);
	for (unsigned k = 1; k < j && !err; k++)
		err = ks[k].err;
	s->whole = false;
	sgm.sem_destroy(finished);
	free(ended);
	free(ks);
	return err;
}

static void controller_main(int argc, char **argv)
{
	struct controller *c = sgm.actor_self_get_data();
	int err;

	(void)argc;
	(void)argv;
	for (size_t j = 0; j < c->njobs && !c->sim->h->err; j++) {
		err = job_run(c->sim, c->p, &c->jobs[j], &c->res[j]);
		if (err)
			fail_job(c->sim, err);
	}
	if (c->together && !c->sim->h->err && (err = run_together(c->sim, c->p, c->together)))
		fail_job(c->sim, err);
}

int sgm_platform_nodes(const struct plan *p, const struct model_options *o,
		       const struct sgm_job *jobs, size_t njobs, unsigned *out)
{
	unsigned nodes = 1;

	for (size_t j = 0; j < njobs; j++) {
		const struct plan_pattern *pat = &p->patterns[jobs[j].pattern];
		struct sgm_fold f;
		int err;

		if (sgm_scales(p, pat, o->replay)) {
			if (nodes < SGM_SCALE_NODES)
				nodes = SGM_SCALE_NODES;
			continue;
		}
		/* The nodes only: no symmetry needed. */
		err = sgm_fold_pattern(p, pat, jobs[j].nchannels, o->replay, NULL, &f);
		if (err)
			return err;
		if (f.span > nodes)
			nodes = f.span;
		sgm_fold_destroy(&f);
	}
	*out = nodes < p->nodes ? nodes : p->nodes;
	return 0;
}

/* Write the platform to an unlinked temporary file and load it. */
static int platform_load(struct sim *s, const struct plan *p)
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
	err = sgm_platform_write(f, p, s->nodes);
	if (!err && fflush(f))
		err = -errno;
	if (!err) {
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
		sgm.load_platform(proc);
	}
	fclose(f);
	return err;
}

/* Each limited resource's two hosts and the controller's, from one walk
 * over every host (a lookup by name walks the node zones, one by one). */
static int hosts_lookup(struct sim *s, const struct plan *p)
{
	/* The switches' links come after the nodes' when every node is in
	 * the platform (sgm_platform_write). */
	size_t nres = (size_t)s->per_node * s->nodes +
		      (s->nodes == p->nodes ? p->layout.fabric.n : 0);
	size_t nhosts = sgm.host_count();
	sg_host_t *all = sgm.host_list();

	s->link_a = calloc(nres ? nres : 1, sizeof(*s->link_a));
	s->link_b = calloc(nres ? nres : 1, sizeof(*s->link_b));
	if (!s->link_a || !s->link_b || (nhosts && !all)) {
		free(all);
		return -ENOMEM;
	}
	s->nres = nres;
	for (size_t i = 0; i < nhosts; i++) {
		const char *name = sgm.host_get_name(all[i]);
		uint32_t r;
		char end;

		if (!strcmp(name, SGM_CONTROL_HOST))
			s->ctl = all[i];
		else if (sgm_link_host_parse(name, &r, &end) && r < nres)
			(end == 'a' ? s->link_a : s->link_b)[r] = all[i];
	}
	free(all); /* xbt_free: SimGrid's malloc is the process's */
	return s->ctl ? 0 : -ENOENT;
}

/* The platform this process loaded (sgm_load): SimGrid's state is the
 * process's, and so is this. */
static struct sim loaded;

int sgm_load(const struct plan *p, const struct model_options *o, unsigned nodes,
	     struct sgm_header *h)
{
	/* ptask_L07: plain max-min sharing, no correction factors, and
	 * parallel tasks over several links (docs/model.md says why). Small
	 * actor stacks: a job may have thousands of connections; and no
	 * guard page below each, whose mprotect is a mapping of its own
	 * (an alltoall of 256 ranks starts some 130 000 actors, past
	 * Linux's vm.max_map_count of 65 536). SimGrid keeps argv: static. */
	static char a0[] = "gdrlab-model", a1[] = "--cfg=host/model:ptask_L07",
		    a2[] = "--log=root.thres:critical", a3[] = "--cfg=contexts/stack-size:64",
		    a4[] = "--cfg=contexts/guard-size:0";
	static char *argv[] = { a0, a1, a2, a3, a4, NULL };
	int argc = 5, err;
	char why[sizeof(h->msg) - 32]; /* sgm_api_load's */
	struct sim *s = &loaded;

	*s = (struct sim){ .o = o, .h = h, .per_node = p->layout.per_node, .nodes = nodes };
	h->stats.sim_nodes = nodes;
	if ((err = sgm_api_load(why, sizeof(why)))) {
		char msg[sizeof(h->msg)];

		snprintf(msg, sizeof(msg), "model backend: %s", why);
		fail(s, err, msg);
		return err;
	}
	sgm.init(&argc, argv);
	err = platform_load(s, p);
	if (!err)
		err = hosts_lookup(s, p);
	if (err) {
		fail(s, err, "model backend: cannot build the SimGrid platform");
		return err;
	}
	/* Sealed here, once, not by each job's run: SimGrid seals a zone
	 * walking every host of the platform (NetZoneImpl::seal, 3.32), so
	 * sealing 256 nodes' zones took longer than most jobs on them. With
	 * no actor, the clock stays at 0. */
	sgm.run_until(0);
	return 0;
}

void sgm_run(const struct plan *p, const struct sgm_job *jobs, size_t njobs,
	     struct sgm_result *res, struct sgm_together *together, struct sgm_header *h)
{
	struct sim *s = &loaded;
	struct controller ctl = { s, p, jobs, njobs, res, together };
	sg_actor_t actor;

	s->h = h;
	h->stats.sim_nodes = s->nodes;
	actor = sgm.actor_init("controller", s->ctl);
	sgm.actor_set_data(actor, &ctl);
	sgm.actor_start(actor, controller_main, 0, NULL);
	sgm.run();
	sgm_sym_cache_clear(&s->sym);
}

void sgm_simulate(const struct plan *p, const struct model_options *o,
		  const struct sgm_job *jobs, size_t njobs,
		  struct sgm_result *res, struct sgm_together *together,
		  struct sgm_header *h)
{
	unsigned nodes = p->nodes; /* together: every node, as it is */
	int err = together ? 0 : sgm_platform_nodes(p, o, jobs, njobs, &nodes);

	if (err) {
		struct sim s = { .o = o, .h = h };

		fail(&s, err, "model backend: cannot build the SimGrid platform");
		return; /* the child exits: nothing to free */
	}
	if (!sgm_load(p, o, nodes, h))
		sgm_run(p, jobs, njobs, res, together, h);
}
