/* SPDX-License-Identifier: MIT */
#include "overlap.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "array_grow.h"
#include "maxmin.h"

/* A relative slowdown below this is rounding, not sharing. */
#define OVERLAP_EPS 1e-6

struct overlap_shape {
	size_t pattern;
	size_t next; /* the pattern's next shape, SIZE_MAX for none */
	unsigned nchannels;
	size_t nloads;
	struct overlap_load *loads; /* owned */
};

int overlap_init(struct overlap *o, const struct plan *p)
{
	memset(o, 0, sizeof(*o));
	o->p = p;
	o->nres = res_total(&p->layout);
	o->cap = plan_capacities(p);
	o->dense = calloc(o->nres ? o->nres : 1, sizeof(*o->dense));
	o->local = malloc((o->nres ? o->nres : 1) * sizeof(*o->local));
	o->by_pattern = malloc((p->npatterns ? p->npatterns : 1) * sizeof(*o->by_pattern));
	if (!o->cap || !o->dense || !o->local || !o->by_pattern) {
		overlap_destroy(o);
		return -ENOMEM;
	}
	for (size_t i = 0; i < o->nres; i++)
		o->local[i] = -1;
	for (size_t i = 0; i < p->npatterns; i++)
		o->by_pattern[i] = SIZE_MAX;
	return 0;
}

void overlap_destroy(struct overlap *o)
{
	for (size_t i = 0; i < o->nshapes; i++)
		free(o->shapes[i].loads);
	free(o->shapes);
	free(o->by_pattern);
	free(o->dense);
	free(o->local);
	free(o->cap);
	memset(o, 0, sizeof(*o));
}

/*
 * The bytes a call puts on each resource per byte of it: every connection
 * of the channels it uses carries volume x (channels built / used) of it,
 * on each link its route crosses, weighted as the backends weigh it (the
 * protocol's wire bytes, the pipe's efficiency, the use's own weight).
 */
static int shape_loads(struct overlap *o, const struct plan_pattern *pat, unsigned nch,
		       struct overlap_shape *sh)
{
	const struct plan *p = o->p;
	double scale = (double)pat->nchannels / (nch ? nch : 1);
	size_t n = 0, cap = 0;
	uint32_t *touched = NULL;
	int err = 0;

	for (size_t i = 0; i < pat->nconns && !err; i++) {
		const struct plan_conn *c = &pat->conns[i];
		const struct plan_pipe *pp = &pat->pipes[c->pipe];
		const struct plan_route *r = &pat->routes[c->route];
		unsigned src = plan_node_of(p, c->src_rank), dst = plan_node_of(p, c->dst_rank);
		double w = c->volume * scale * proto_get(pat->proto)->wire_ratio / pp->efficiency;
		uint32_t fab[FABRIC_PATH_MAX];
		unsigned nfab;

		if (pp->channel >= nch)
			continue;
		for (unsigned u = 0; u < r->nuses && !err; u++) {
			uint32_t id = plan_use_id(p, &r->uses[u], src, dst);

			if (o->dense[id] == 0) {
				err = array_grow((void **)&touched, n, &cap, sizeof(*touched));
				if (!err)
					touched[n++] = id;
			}
			o->dense[id] += w * r->uses[u].weight;
		}
		/* The switches' links of its wire stage, its own (fabric.h). */
		nfab = err ? 0 : plan_conn_fabric(p, pat, c, fab);

		for (unsigned u = 0; u < nfab && !err; u++) {
			if (o->dense[fab[u]] == 0) {
				err = array_grow((void **)&touched, n, &cap, sizeof(*touched));
				if (!err)
					touched[n++] = fab[u];
			}
			o->dense[fab[u]] += w;
		}
	}
	sh->loads = err ? NULL : malloc((n ? n : 1) * sizeof(*sh->loads));
	if (!sh->loads)
		err = -ENOMEM;
	sh->nloads = 0;
	for (size_t k = 0; k < n; k++) {
		if (!err && o->dense[touched[k]] > 0)
			sh->loads[sh->nloads++] = (struct overlap_load){
				touched[k], o->dense[touched[k]]
			};
		o->dense[touched[k]] = 0;
	}
	free(touched);
	return err;
}

/* The index of @coll's shape in o->shapes (which may move as it grows:
 * keep indices, not pointers); solved the first time. */
static int shape_of(struct overlap *o, size_t coll, size_t *out)
{
	const struct plan_collective *pc = &o->p->collectives[coll];
	struct overlap_shape *sh;
	int err;

	/* a pattern's shapes, one a channel count it ran on (a scan over
	 * every shape was 8% of a 2048-GPU trace's schedule) */
	for (size_t i = o->by_pattern[pc->pattern]; i != SIZE_MAX; i = o->shapes[i].next)
		if (o->shapes[i].nchannels == pc->nchannels) {
			*out = i;
			return 0;
		}
	err = array_grow((void **)&o->shapes, o->nshapes, &o->cap_shapes, sizeof(*sh));
	if (err)
		return err;
	sh = &o->shapes[o->nshapes];
	memset(sh, 0, sizeof(*sh));
	sh->pattern = pc->pattern;
	sh->nchannels = pc->nchannels;
	err = shape_loads(o, &o->p->patterns[pc->pattern], pc->nchannels, sh);
	if (err)
		return err;
	sh->next = o->by_pattern[pc->pattern];
	o->by_pattern[pc->pattern] = o->nshapes;
	*out = o->nshapes++;
	return 0;
}

int overlap_link_us(struct overlap *o, size_t coll, double *us)
{
	const struct overlap_shape *shape;
	double per_cap = 0;
	size_t sh;
	int err = shape_of(o, coll, &sh);

	if (err)
		return err;
	shape = &o->shapes[sh];
	for (size_t k = 0; k < shape->nloads; k++)
		if (o->cap[shape->loads[k].res] > 0)
			per_cap = fmax(per_cap, shape->loads[k].per_byte / o->cap[shape->loads[k].res]);
	*us = 1e6 * (double)o->p->collectives[coll].bytes * per_cap;
	return 0;
}

int overlap_speeds(struct overlap *o, const size_t *coll, const double *alone_us,
		   size_t n, double *speed)
{
	size_t *sh = calloc(n ? n : 1, sizeof(*sh));
	struct maxmin_flow *flows = calloc(n ? n : 1, sizeof(*flows));
	struct maxmin_use *uses = NULL;
	double *cap = NULL;
	uint32_t *ids = NULL;
	size_t total = 0, nlocal = 0, at = 0;
	int err = -ENOMEM;

	if (!sh || !flows)
		goto out;
	err = 0;
	for (size_t i = 0; i < n && !err; i++)
		err = shape_of(o, coll[i], &sh[i]);
	for (size_t i = 0; i < n && !err; i++)
		total += o->shapes[sh[i]].nloads;
	if (err)
		goto out;
	err = -ENOMEM;
	uses = malloc((total ? total : 1) * sizeof(*uses));
	ids = malloc((total ? total : 1) * sizeof(*ids));
	cap = malloc((total ? total : 1) * sizeof(*cap));
	if (!uses || !ids || !cap)
		goto out;
	/* The resources these collectives touch, numbered from 0, so that
	 * a solve costs what they use, not the cluster's size. */
	for (size_t i = 0; i < n; i++) {
		double bytes = (double)o->p->collectives[coll[i]].bytes;
		/* Its stream's pace alone, in bytes of the collective a
		 * second: no share can make it faster than alone. */
		double alone = alone_us[i] > 0 ? bytes / (alone_us[i] * 1e-6) : INFINITY;

		flows[i].uses = uses + at;
		flows[i].cap = alone;
		const struct overlap_shape *shape = &o->shapes[sh[i]];

		for (size_t k = 0; isfinite(alone) && k < shape->nloads; k++) {
			uint32_t id = shape->loads[k].res;

			if (o->local[id] < 0) {
				o->local[id] = (int32_t)nlocal;
				ids[nlocal] = id;
				cap[nlocal++] = o->cap[id];
			}
			uses[at++] = (struct maxmin_use){ (uint32_t)o->local[id],
							  shape->loads[k].per_byte };
			flows[i].nuses++;
		}
	}
	err = maxmin_solve(cap, nlocal, flows, n);
	for (size_t i = 0; i < n; i++) {
		double f = isfinite(flows[i].cap) ? flows[i].rate / flows[i].cap : 1;

		/* Within rounding of its pace alone (a backend's time may load
		 * its bottleneck a hair past capacity) it keeps that pace; a
		 * link of no capacity stops nothing that ran alone. */
		speed[i] = err || !(f < 1 - OVERLAP_EPS) ? 1 : f > 1e-9 ? f : 1e-9;
	}
out:
	for (size_t k = 0; ids && k < nlocal; k++)
		o->local[ids[k]] = -1;
	free(cap);
	free(ids);
	free(uses);
	free(flows);
	free(sh);
	return err;
}
