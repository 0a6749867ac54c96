/* SPDX-License-Identifier: MIT */
/*
 * plan_classes: patterns that are one another moved along the nodes.
 * Every node of a cluster is alike and the fabric treats them alike (a
 * crossbar), so a pattern's time alone depends on its group only through
 * how far apart its nodes are and what its connections cross: the
 * tensor-parallel groups of a 256-node job are one class, timed once.
 *
 * Two patterns are alike when they are built alike (the same op, choice,
 * ranks a node, distances between nodes) and their connections are one
 * another's under a one-to-one map of the resources they use that keeps
 * each resource's capacity and node: what a backend times (volumes,
 * latencies, dependencies, stages, the links' sharing) is then the same.
 * The GPUs a group uses may differ (tp rank 0's data-parallel group and
 * tp rank 5's, when each GPU has a NIC of its own alike).
 */
#include "plan.h"

#include <errno.h>
#include <stdlib.h>

#include "resources.h"

/* The node of rank @k of @pat, counted from its first rank's. */
static unsigned rel_node(const struct plan *p, const struct plan_pattern *pat, unsigned k)
{
	return plan_node_of(p, pat->ranks[k]) - plan_node_of(p, pat->ranks[0]);
}

/* The place of @rank in @pat's sorted group, or -1 (none). */
static long place(const struct plan_pattern *pat, int rank)
{
	for (unsigned k = 0; rank >= 0 && k < pat->nranks; k++)
		if ((int)pat->ranks[k] == rank)
			return k;
	return -1;
}

static uint64_t signature(const struct plan *p, const struct plan_pattern *pat)
{
	uint64_t h = 1469598103934665603ull;
	uint64_t v[] = { pat->op, pat->algo, pat->proto, pat->nranks, pat->nnodes,
			 pat->nchannels, (uint64_t)place(pat, pat->root),
			 (uint64_t)place(pat, pat->peer) };

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		h = (h ^ v[i]) * 1099511628211ull;
	for (unsigned k = 0; k < pat->nranks; k++)
		h = (h ^ rel_node(p, pat, k)) * 1099511628211ull;
	return h;
}

/* The resource map from pattern a's to pattern b's, built as their
 * connections are walked in step; -1: not yet mapped. */
struct res_map {
	int64_t *ab, *ba; /* per resource id */
	uint32_t *touched;
	size_t ntouched;
	double *cap;
};

static bool map_res(const struct plan *p, struct res_map *m, uint32_t ra, uint32_t rb,
		    unsigned a0, unsigned b0)
{
	unsigned na, nb, ia, ib;
	enum res_kind ka, kb;

	if (m->ab[ra] >= 0 || m->ba[rb] >= 0)
		return m->ab[ra] == rb && m->ba[rb] == ra;
	res_locate(&p->layout, ra, &na, &ka, &ia);
	res_locate(&p->layout, rb, &nb, &kb, &ib);
	if (na - a0 != nb - b0 || ka != kb || m->cap[ra] != m->cap[rb])
		return false;
	m->ab[ra] = rb;
	m->ba[rb] = ra;
	m->touched[m->ntouched++] = ra;
	m->touched[m->ntouched++] = rb;
	return true;
}

static bool same_stage(const struct plan_stage *x, const struct plan_stage *y)
{
	return x->kind == y->kind && x->segment == y->segment && x->gpu_memory == y->gpu_memory &&
	       x->latency == y->latency && x->chunk_overhead == y->chunk_overhead &&
	       x->bandwidth == y->bandwidth && x->private_cap == y->private_cap &&
	       x->first_use == y->first_use && x->nuses == y->nuses;
}

static bool same_route(const struct plan_route *x, const struct plan_route *y)
{
	if (x->hop != y->hop || x->intra != y->intra || x->send_direct != y->send_direct ||
	    x->recv_direct != y->recv_direct || x->memcpy != y->memcpy ||
	    x->cut_through != y->cut_through || x->latency != y->latency ||
	    x->private_cap != y->private_cap || x->nstages != y->nstages || x->nuses != y->nuses)
		return false;
	for (unsigned s = 0; s < x->nstages; s++)
		if (!same_stage(&x->stages[s], &y->stages[s]))
			return false;
	for (unsigned u = 0; u < x->nuses; u++)
		if (x->uses[u].at_dst != y->uses[u].at_dst || x->uses[u].weight != y->uses[u].weight)
			return false;
	return true;
}

static bool same_pipe(const struct plan_pipe *x, const struct plan_pipe *y)
{
	return x->shape == y->shape && x->channel == y->channel && x->ranks == y->ranks &&
	       x->steps == y->steps && x->slices_per_chunk == y->slices_per_chunk &&
	       x->slice_steps == y->slice_steps && x->chunk_bytes == y->chunk_bytes &&
	       x->share == y->share && x->conn_cap == y->conn_cap &&
	       x->stream_cap == y->stream_cap &&
	       x->efficiency == y->efficiency && x->delay == y->delay &&
	       x->first_conn == y->first_conn &&
	       x->nconns == y->nconns && x->first_hop == y->first_hop && x->nhops == y->nhops;
}

/* Connection by connection, the same numbers and, under one resource
 * map, the same links. */
static bool same_structure(const struct plan *p, struct res_map *m,
			   const struct plan_pattern *a, const struct plan_pattern *b)
{
	unsigned a0 = plan_node_of(p, a->ranks[0]), b0 = plan_node_of(p, b->ranks[0]);

	if (a->nconns != b->nconns || a->npipes != b->npipes || a->nhops != b->nhops ||
	    a->base_latency != b->base_latency || a->total_cap != b->total_cap ||
	    a->total_stream_cap != b->total_stream_cap || a->bus_factor != b->bus_factor)
		return false;
	for (size_t i = 0; i < a->npipes; i++)
		if (!same_pipe(&a->pipes[i], &b->pipes[i]))
			return false;
	for (size_t i = 0; i < a->nhops; i++)
		if (a->hops[i] != b->hops[i])
			return false;
	for (size_t i = 0; i < a->nconns; i++) {
		const struct plan_conn *x = &a->conns[i], *y = &b->conns[i];
		const struct plan_route *rx = &a->routes[x->route], *ry = &b->routes[y->route];
		unsigned xs = plan_node_of(p, x->src_rank), xd = plan_node_of(p, x->dst_rank);
		unsigned ys = plan_node_of(p, y->src_rank), yd = plan_node_of(p, y->dst_rank);

		if (x->pipe != y->pipe || x->volume != y->volume || x->latency != y->latency ||
		    x->ndeps != y->ndeps || xs - a0 != ys - b0 || xd - a0 != yd - b0 ||
		    !same_route(rx, ry))
			return false;
		for (unsigned d = 0; d < x->ndeps; d++)
			if (x->deps[d] != y->deps[d])
				return false;
		for (unsigned u = 0; u < rx->nuses; u++)
			if (!map_res(p, m, plan_use_id(p, &rx->uses[u], xs, xd),
				     plan_use_id(p, &ry->uses[u], ys, yd), a0, b0))
				return false;
	}
	return true;
}

static bool alike(const struct plan *p, struct res_map *m, const struct plan_pattern *a,
		  const struct plan_pattern *b)
{
	bool same;

	if (a->op != b->op || a->algo != b->algo || a->proto != b->proto ||
	    a->nranks != b->nranks || a->nnodes != b->nnodes || a->nchannels != b->nchannels ||
	    place(a, a->root) != place(b, b->root) || place(a, a->peer) != place(b, b->peer) ||
	    a->path != b->path)
		return false;
	for (unsigned k = 0; k < a->nranks; k++)
		if (rel_node(p, a, k) != rel_node(p, b, k))
			return false;
	same = same_structure(p, m, a, b);
	for (size_t i = 0; i < m->ntouched; i++)
		m->ab[m->touched[i]] = m->ba[m->touched[i]] = -1;
	m->ntouched = 0;
	return same;
}

struct sig {
	uint64_t h;
	size_t pattern;
};

static int cmp_sig(const void *x, const void *y)
{
	const struct sig *a = x, *b = y;

	if (a->h != b->h)
		return a->h < b->h ? -1 : 1;
	return (a->pattern > b->pattern) - (a->pattern < b->pattern);
}

/* The most resources two patterns' connections can touch. */
static size_t uses_of(const struct plan_pattern *pat)
{
	size_t n = 0;

	for (size_t i = 0; i < pat->nconns; i++)
		n += pat->routes[pat->conns[i].route].nuses;
	return n;
}

int plan_pattern_classes(const struct plan *p, size_t *cls)
{
	size_t nres = (size_t)p->layout.per_node * p->nodes, most = 0;
	struct sig *s = malloc((p->npatterns ? p->npatterns : 1) * sizeof(*s));
	struct res_map m = { 0 };
	int err = -ENOMEM;

	/* Switches break the symmetry: which leaf, spine and uplink a hop
	 * takes depends on where its nodes are. Every pattern its own. */
	if (p->layout.fabric.tiers) {
		for (size_t i = 0; i < p->npatterns; i++)
			cls[i] = i;
		free(s);
		return 0;
	}
	for (size_t i = 0; i < p->npatterns; i++)
		if (uses_of(&p->patterns[i]) > most)
			most = uses_of(&p->patterns[i]);
	m.ab = malloc((nres ? nres : 1) * sizeof(*m.ab));
	m.ba = malloc((nres ? nres : 1) * sizeof(*m.ba));
	m.touched = malloc((2 * most + 1) * sizeof(*m.touched));
	m.cap = plan_capacities(p);
	if (!s || !m.ab || !m.ba || !m.touched || !m.cap)
		goto out;
	for (size_t i = 0; i < nres; i++)
		m.ab[i] = m.ba[i] = -1;
	for (size_t i = 0; i < p->npatterns; i++)
		s[i] = (struct sig){ signature(p, &p->patterns[i]), i };
	qsort(s, p->npatterns, sizeof(*s), cmp_sig);
	/* Within one signature, each pattern joins the first alike before it. */
	for (size_t i = 0; i < p->npatterns; i++) {
		size_t k = i;

		cls[s[i].pattern] = s[i].pattern;
		while (k > 0 && s[k - 1].h == s[i].h) {
			k--;
			if (cls[s[k].pattern] == s[k].pattern &&
			    alike(p, &m, &p->patterns[s[k].pattern], &p->patterns[s[i].pattern])) {
				cls[s[i].pattern] = s[k].pattern;
				break;
			}
		}
	}
	err = 0;
out:
	free(m.cap);
	free(m.touched);
	free(m.ba);
	free(m.ab);
	free(s);
	return err;
}
