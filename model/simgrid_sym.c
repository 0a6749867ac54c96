/* SPDX-License-Identifier: MIT */
/*
 * Connections that move in step (simgrid_internal.h, sgm_fold_symmetry).
 *
 * A call's connections and the links they cross form a labelled graph:
 * a connection uses links (segment, weight), waits for connections, and
 * carries what drives its timing as a signature (its route's stages, its
 * pipe's slicing and limits, its latency and volume). An automorphism of
 * that graph (a permutation of connections and of links that keeps every
 * label, signature and capacity) maps the simulation onto itself: SimGrid's
 * sharing (FairBottleneck, ptask_L07) computes a variable's rate from the
 * links it crosses and the variables on them, the slices wait for what
 * they depend on, so connections of one orbit move alike, slice for
 * slice, to rounding. The simulation then keeps one connection an orbit,
 * each link standing for its orbit, each dependency on the orbit's
 * representative. That is exact where every link holds one variable of
 * each orbit crossing it, as it does in the whole call: a segment crosses
 * at most one link of an orbit, and link and connection orbits are the
 * same size (sym_quotient_ok).
 *
 * The automorphisms are found as a graph isomorphism tool does: colour
 * refinement (1-dimensional Weisfeiler-Leman) gives the classes that
 * could be orbits; individualising one connection against another of its
 * class and refining again gives a candidate permutation, which is kept
 * only if it checks as an automorphism, label by label (sym_check). The
 * orbits are those of the group the kept permutations generate. Nothing
 * is assumed about the algorithm: what is not proven symmetric is
 * simulated.
 */
#include "simgrid_internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algo.h"
#include "union_find.h"

/* Words of a connection's signature (sym_signature). */
#define SIG_MAX (40 + 8 * PLAN_MAX_STAGES)
/* Refinements one search for an automorphism may take, and searches that
 * may fail before the rest of the classes are left as they are. */
#define SYM_SEARCH_BUDGET 8
#define SYM_MAX_FAILURES 4

enum sym_tag { TAG_USES, TAG_USED_BY, TAG_WAITS_FOR, TAG_FEEDS };

struct sym_edge {
	uint32_t to;
	uint32_t tag;  /* sym_tag << 8 | segment */
	double weight; /* bytes on the link per payload byte; 0 for deps */
};

/* Vertices: the connections (0 .. nconn - 1), then the links. */
struct sym_graph {
	size_t nconn, nv;
	uint32_t *res;        /* per link vertex: its platform resource id */
	double *cap;          /* per link vertex */
	size_t *first;        /* nv + 1: each vertex's edges in edge[] */
	struct sym_edge *edge;
	uint64_t *sig;        /* nconn x SIG_MAX */
	uint64_t *init;       /* nv: the colours refinement starts from */
	/* Scratch for refinement and the searches. */
	uint64_t *next, *table; /* table: ntable slots, 0 empty */
	size_t ntable, maxdeg;
};

static uint64_t fmix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static uint64_t combine(uint64_t h, uint64_t x)
{
	return fmix(h ^ (x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2)));
}

static uint64_t bits(double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	return u;
}

struct sig_buf {
	uint64_t *w;
	unsigned n;
};

static void sig_put(struct sig_buf *s, uint64_t x)
{
	if (s->n < SIG_MAX)
		s->w[s->n++] = x;
}

/*
 * Everything of connection @c but its links and dependencies that the
 * simulation reads (simgrid_run.c conn_init, seg_build): its pipe's
 * slicing and limits, its route's stages and FIFOs, its own volume and
 * latency. The channel index itself is not read.
 */
static void sym_signature(const struct plan *p, const struct plan_pattern *pat,
			  const struct plan_conn *c, uint64_t *out)
{
	const struct plan_route *r = &pat->routes[c->route];
	const struct plan_pipe *pp = &pat->pipes[c->pipe];
	struct sig_buf s = { out, 0 };
	unsigned send_last = 0, recv_first = 0;
	bool fifos = plan_route_proxy_fifos(p, r, &send_last, &recv_first);
	bool memcpy_way = false;

	for (size_t i = 0; i < pp->nconns && !memcpy_way; i++)
		memcpy_way = pat->routes[pat->conns[pp->first_conn + i].route].memcpy;
	memset(out, 0, SIG_MAX * sizeof(*out));
	sig_put(&s, pp->shape);
	sig_put(&s, pp->ranks);
	sig_put(&s, pp->steps);
	sig_put(&s, pp->slices_per_chunk);
	sig_put(&s, pp->slice_steps);
	sig_put(&s, pp->chunk_bytes);
	sig_put(&s, bits(pp->share));
	sig_put(&s, bits(pp->conn_cap));
	sig_put(&s, bits(pp->stream_cap));
	sig_put(&s, bits(pp->efficiency));
	sig_put(&s, bits(pp->delay));
	sig_put(&s, memcpy_way);
	sig_put(&s, bits(c->volume));
	sig_put(&s, bits(c->latency));
	sig_put(&s, c->ndeps);
	sig_put(&s, r->hop);
	sig_put(&s, r->intra);
	sig_put(&s, r->send_direct);
	sig_put(&s, r->recv_direct);
	sig_put(&s, r->memcpy);
	sig_put(&s, r->cut_through);
	sig_put(&s, bits(r->latency));
	sig_put(&s, bits(r->private_cap));
	sig_put(&s, fifos);
	sig_put(&s, send_last);
	sig_put(&s, recv_first);
	sig_put(&s, r->nstages);
	for (unsigned i = 0; i < r->nstages; i++) {
		const struct plan_stage *st = &r->stages[i];

		sig_put(&s, st->kind);
		sig_put(&s, st->segment);
		sig_put(&s, st->gpu_memory);
		sig_put(&s, bits(st->latency));
		sig_put(&s, bits(st->chunk_overhead));
		sig_put(&s, bits(st->bandwidth));
		sig_put(&s, bits(st->private_cap));
	}
}

/* One segment's links as seg_build finds them: finite ones, each once,
 * weights summed. */
struct seg_use {
	uint32_t id;
	double weight;
};

static unsigned segment_uses(const struct plan *p, const struct plan_pattern *pat,
			     const struct sgm_fold *f, const struct plan_conn *c,
			     unsigned k, struct seg_use *out)
{
	const struct plan_route *r = &pat->routes[c->route];
	unsigned n = 0;

	for (unsigned i = 0; i < r->nstages; i++) {
		const struct plan_stage *st = &r->stages[i];

		if (st->segment != k)
			continue;
		for (unsigned u = st->first_use; u < st->first_use + st->nuses; u++) {
			const struct plan_use *use = &r->uses[u];
			uint32_t id = sgm_fold_node(p, f, c, use->at_dst) * p->layout.per_node +
				      use->res;
			double cap = res_capacity_of(&p->layout, &p->topo, id);
			unsigned j;

			if (!isfinite(cap) || cap <= 0)
				continue;
			for (j = 0; j < n && out[j].id != id; j++)
				;
			if (j < n) {
				out[j].weight += use->weight;
				continue;
			}
			out[n++] = (struct seg_use){ id, use->weight };
		}
	}
	return n;
}

static unsigned route_segments(const struct plan_route *r)
{
	return r->nstages ? r->stages[r->nstages - 1].segment + 1 : 0;
}

static void graph_destroy(struct sym_graph *g)
{
	free(g->res);
	free(g->cap);
	free(g->first);
	free(g->edge);
	free(g->sig);
	free(g->init);
	free(g->next);
	free(g->table);
	memset(g, 0, sizeof(*g));
}

/* Add @e to vertex @v's edges (counting pass when g->edge is NULL). */
static void edge_add(struct sym_graph *g, size_t *fill, size_t v, struct sym_edge e)
{
	if (g->edge)
		g->edge[fill[v]] = e;
	fill[v]++;
}

/* The edges of the graph: two passes, counting then filling. */
static void graph_edges(const struct plan *p, const struct plan_pattern *pat,
			const struct sgm_fold *f, struct sym_graph *g, const uint32_t *vertex_of,
			size_t *fill)
{
	struct seg_use uses[PLAN_MAX_USES];

	for (size_t k = 0; k < g->nconn; k++) {
		const struct plan_conn *c = &pat->conns[f->kept[k]];
		unsigned nseg = route_segments(&pat->routes[c->route]);

		for (unsigned s = 0; s < nseg; s++) {
			unsigned n = segment_uses(p, pat, f, c, s, uses);

			for (unsigned i = 0; i < n; i++) {
				uint32_t v = vertex_of[uses[i].id];

				edge_add(g, fill, k, (struct sym_edge){ v, TAG_USES << 8 | s,
									 uses[i].weight });
				edge_add(g, fill, v, (struct sym_edge){ (uint32_t)k,
									 TAG_USED_BY << 8 | s,
									 uses[i].weight });
			}
		}
		for (unsigned d = 0; d < c->ndeps; d++) {
			uint32_t from = f->dep[k * PLAN_MAX_DEPS + d];

			edge_add(g, fill, k, (struct sym_edge){ from, TAG_WAITS_FOR << 8, 0 });
			edge_add(g, fill, from, (struct sym_edge){ (uint32_t)k, TAG_FEEDS << 8, 0 });
		}
	}
}

static int graph_build(const struct plan *p, const struct plan_pattern *pat,
		       const struct sgm_fold *f, struct sym_graph *g)
{
	size_t nids = (size_t)f->nodes * p->layout.per_node, nres = 0, nedges;
	uint32_t *vertex_of = malloc((nids ? nids : 1) * sizeof(*vertex_of));
	size_t *fill = NULL;
	struct seg_use uses[PLAN_MAX_USES];
	int err = -ENOMEM;

	memset(g, 0, sizeof(*g));
	g->nconn = f->nkept;
	g->res = malloc((nids ? nids : 1) * sizeof(*g->res));
	g->sig = malloc((g->nconn ? g->nconn : 1) * SIG_MAX * sizeof(*g->sig));
	if (!vertex_of || !g->res || !g->sig)
		goto out;
	for (size_t i = 0; i < nids; i++)
		vertex_of[i] = UINT32_MAX;
	/* The links any segment crosses, numbered after the connections. */
	for (size_t k = 0; k < g->nconn; k++) {
		const struct plan_conn *c = &pat->conns[f->kept[k]];
		unsigned nseg = route_segments(&pat->routes[c->route]);

		sym_signature(p, pat, c, &g->sig[k * SIG_MAX]);
		for (unsigned s = 0; s < nseg; s++) {
			unsigned n = segment_uses(p, pat, f, c, s, uses);

			for (unsigned i = 0; i < n; i++) {
				if (uses[i].id >= nids) {
					err = -ERANGE;
					goto out;
				}
				if (vertex_of[uses[i].id] != UINT32_MAX)
					continue;
				vertex_of[uses[i].id] = (uint32_t)(g->nconn + nres);
				g->res[nres++] = uses[i].id;
			}
		}
	}
	g->nv = g->nconn + nres;
	g->cap = malloc((nres ? nres : 1) * sizeof(*g->cap));
	g->first = calloc(g->nv + 1, sizeof(*g->first));
	fill = calloc(g->nv + 1, sizeof(*fill));
	g->init = malloc((g->nv ? g->nv : 1) * sizeof(*g->init));
	g->next = malloc((g->nv ? g->nv : 1) * sizeof(*g->next));
	for (g->ntable = 16; g->ntable < 2 * g->nv; g->ntable *= 2)
		;
	g->table = malloc(g->ntable * sizeof(*g->table));
	if (!g->cap || !g->first || !fill || !g->init || !g->next || !g->table)
		goto out;
	graph_edges(p, pat, f, g, vertex_of, fill);
	for (size_t v = 0; v < g->nv; v++) {
		g->first[v + 1] = g->first[v] + fill[v];
		if (fill[v] > g->maxdeg)
			g->maxdeg = fill[v];
		fill[v] = g->first[v];
	}
	nedges = g->first[g->nv];
	g->edge = malloc((nedges ? nedges : 1) * sizeof(*g->edge));
	if (!g->edge)
		goto out;
	graph_edges(p, pat, f, g, vertex_of, fill);
	for (size_t k = 0; k < g->nconn; k++) {
		uint64_t h = 0x636f6e6eULL;

		for (unsigned i = 0; i < SIG_MAX; i++)
			h = combine(h, g->sig[k * SIG_MAX + i]);
		g->init[k] = h;
	}
	for (size_t i = 0; i < nres; i++) {
		unsigned node, index;
		enum res_kind kind;

		res_locate(&p->layout, g->res[i], &node, &kind, &index);
		g->cap[i] = res_capacity_of(&p->layout, &p->topo, g->res[i]);
		g->init[g->nconn + i] = combine(combine(0x6c696e6bULL, kind), bits(g->cap[i]));
	}
	err = 0;
out:
	free(fill);
	free(vertex_of);
	if (err)
		graph_destroy(g);
	return err;
}

/* Distinct colours of @col (a hash set; 0 marks an empty slot). */
static size_t count_classes(struct sym_graph *g, const uint64_t *col)
{
	size_t n = 0, mask = g->ntable - 1;

	memset(g->table, 0, g->ntable * sizeof(*g->table));
	for (size_t v = 0; v < g->nv; v++) {
		uint64_t c = col[v] ? col[v] : 1;
		size_t i = (size_t)fmix(c) & mask;

		while (g->table[i] && g->table[i] != c)
			i = (i + 1) & mask;
		if (!g->table[i]) {
			g->table[i] = c;
			n++;
		}
	}
	return n;
}

/*
 * Colour refinement to the stable partition: a vertex's next colour is
 * its colour and the multiset of its edges' (label, neighbour's colour),
 * hashed as a sum so that order does not count. The same colours in give
 * the same colours out, so that two refinements of isomorphic colourings
 * can be compared colour by colour.
 */
static void refine(struct sym_graph *g, uint64_t *col)
{
	size_t classes = count_classes(g, col);

	for (;;) {
		size_t now;

		for (size_t v = 0; v < g->nv; v++) {
			uint64_t h = fmix(col[v] + 1);

			for (size_t e = g->first[v]; e < g->first[v + 1]; e++) {
				const struct sym_edge *x = &g->edge[e];

				h += fmix(combine(combine(x->tag, bits(x->weight)), col[x->to]));
			}
			g->next[v] = fmix(h);
		}
		memcpy(col, g->next, g->nv * sizeof(*col));
		now = count_classes(g, col);
		if (now == classes)
			return;
		classes = now;
	}
}

struct vc {
	uint64_t col;
	uint32_t v;
};

static int cmp_vc(const void *a, const void *b)
{
	const struct vc *x = a, *y = b;

	if (x->col != y->col)
		return (x->col > y->col) - (x->col < y->col);
	return (x->v > y->v) - (x->v < y->v);
}

static void sort_vc(const uint64_t *col, size_t n, struct vc *out)
{
	for (size_t v = 0; v < n; v++)
		out[v] = (struct vc){ col[v], (uint32_t)v };
	qsort(out, n, sizeof(*out), cmp_vc);
}

static int cmp_edge(const void *a, const void *b)
{
	const struct sym_edge *x = a, *y = b;

	if (x->tag != y->tag)
		return (x->tag > y->tag) - (x->tag < y->tag);
	if (x->to != y->to)
		return (x->to > y->to) - (x->to < y->to);
	return (x->weight > y->weight) - (x->weight < y->weight);
}

/* Is @map an automorphism: signatures, capacities and every edge kept? */
static bool sym_check(const struct sym_graph *g, const uint32_t *map, struct sym_edge *a,
		      struct sym_edge *b)
{
	for (size_t v = 0; v < g->nv; v++) {
		size_t w = map[v], n = g->first[v + 1] - g->first[v];

		if ((v < g->nconn) != (w < g->nconn))
			return false;
		if (v < g->nconn ? memcmp(&g->sig[v * SIG_MAX], &g->sig[w * SIG_MAX],
					  SIG_MAX * sizeof(*g->sig)) :
				   g->cap[v - g->nconn] != g->cap[w - g->nconn])
			return false;
		if (g->first[w + 1] - g->first[w] != n)
			return false;
		for (size_t i = 0; i < n; i++) {
			a[i] = g->edge[g->first[v] + i];
			a[i].to = map[a[i].to];
			b[i] = g->edge[g->first[w] + i];
		}
		qsort(a, n, sizeof(*a), cmp_edge);
		qsort(b, n, sizeof(*b), cmp_edge);
		for (size_t i = 0; i < n; i++)
			if (a[i].tag != b[i].tag || a[i].to != b[i].to || a[i].weight != b[i].weight)
				return false;
	}
	return true;
}

struct search {
	struct sym_graph *g;
	struct vc *s1, *s2;
	struct sym_edge *ea, *eb;
	uint32_t *map;
	unsigned budget;
};

/*
 * Refine @c1 and @c2 (individualised alike) and extend them to a
 * permutation: where a class is left with several vertices, individualise
 * its first in @c1 against each of its class in @c2 in turn.
 */
static bool extend(struct search *s, uint64_t *c1, uint64_t *c2, unsigned depth)
{
	struct sym_graph *g = s->g;
	size_t n = g->nv, x = n;
	bool ok = false;

	if (!s->budget)
		return false;
	s->budget--;
	refine(g, c1);
	refine(g, c2);
	sort_vc(c1, n, s->s1);
	sort_vc(c2, n, s->s2);
	for (size_t i = 0; i < n; i++)
		if (s->s1[i].col != s->s2[i].col)
			return false;
	for (size_t i = 0; i + 1 < n; i++)
		if (s->s1[i].col == s->s1[i + 1].col && (x == n || s->s1[i].v < x))
			x = s->s1[i].v;
	if (x == n) {
		for (size_t i = 0; i < n; i++)
			s->map[s->s1[i].v] = s->s2[i].v;
		return sym_check(g, s->map, s->ea, s->eb);
	}
	uint64_t *d1 = malloc(n * sizeof(*d1)), *d2 = malloc(n * sizeof(*d2));
	uint64_t fresh = fmix(0x696e646976ULL + depth);

	for (size_t y = 0; d1 && d2 && y < n && !ok && s->budget; y++) {
		if (c2[y] != c1[x])
			continue;
		memcpy(d1, c1, n * sizeof(*d1));
		memcpy(d2, c2, n * sizeof(*d2));
		d1[x] = combine(d1[x], fresh);
		d2[y] = combine(d2[y], fresh);
		ok = extend(s, d1, d2, depth + 1);
	}
	free(d1);
	free(d2);
	return ok;
}

/* An automorphism taking vertex @a to @b from the stable colouring @col,
 * in s->map; false if none was found within the budget. */
static bool find_automorphism(struct search *s, const uint64_t *col, uint32_t a, uint32_t b)
{
	size_t n = s->g->nv;
	uint64_t *c1 = malloc(n * sizeof(*c1)), *c2 = malloc(n * sizeof(*c2));
	uint64_t fresh = fmix(0x726f6f74ULL);
	bool ok = false;

	if (c1 && c2) {
		memcpy(c1, col, n * sizeof(*c1));
		memcpy(c2, col, n * sizeof(*c2));
		c1[a] = combine(c1[a], fresh);
		c2[b] = combine(c2[b], fresh);
		s->budget = SYM_SEARCH_BUDGET;
		ok = extend(s, c1, c2, 0);
	}
	free(c1);
	free(c2);
	return ok;
}

/*
 * Whether the quotient runs as the whole call: every link of it holds, of
 * each orbit crossing it, one variable (a segment's task), as each link
 * of the call does. So a segment may cross no two links of one orbit, and
 * a link's orbit must be as large as the orbits of the connections that
 * cross it. (Were a link fixed by an automorphism that moves a connection
 * across it, the call's link would hold two variables of one orbit, the
 * quotient's one: FairBottleneck shares a link by its count of variables,
 * so the two would not run alike.) @size: the vertices of each orbit,
 * by its root.
 */
static bool sym_quotient_ok(const struct sym_graph *g, const uint32_t *orbit, uint32_t *size)
{
	bool ok = true;

	memset(size, 0, g->nv * sizeof(*size));
	for (size_t v = 0; v < g->nv; v++)
		size[orbit[v]]++;
	for (size_t k = 0; k < g->nconn && ok; k++)
		for (size_t e = g->first[k]; e < g->first[k + 1] && ok; e++) {
			const struct sym_edge *x = &g->edge[e];

			if (x->tag >> 8 != TAG_USES)
				continue;
			if (size[orbit[x->to]] != size[orbit[k]])
				ok = false;
			for (size_t o = g->first[k]; o < e && ok; o++)
				if (g->edge[o].tag == x->tag && orbit[g->edge[o].to] == orbit[x->to])
					ok = false;
		}
	return ok;
}

/* The orbits of the group @gens (ngens permutations of nv) generate:
 * each vertex's orbit as its first vertex. */
static void orbits_of(const struct sym_graph *g, uint32_t *const *gens, size_t ngens,
		      uint32_t *orbit)
{
	for (size_t v = 0; v < g->nv; v++)
		orbit[v] = (uint32_t)v;
	for (size_t i = 0; i < ngens; i++)
		for (size_t v = 0; v < g->nv; v++)
			uf32_join(orbit, (uint32_t)v, gens[i][v]);
	for (size_t v = 0; v < g->nv; v++)
		orbit[v] = uf32_root(orbit, (uint32_t)v);
}

/* The generators kept, at most SYM_MAX_GENERATORS: each merges orbits,
 * so that few are ever needed (a cyclic group takes one). */
#define SYM_MAX_GENERATORS 16

struct orbit_search {
	struct search s;
	uint32_t *gens[SYM_MAX_GENERATORS];
	size_t ngens;
	uint32_t *orbit, *trial, *size;
};

/*
 * Try to map @a onto @b: an automorphism found is kept as a generator if
 * the group with it still runs as the call (sym_quotient_ok). Returns
 * whether it was kept; -ENOMEM.
 */
static int try_generator(struct orbit_search *o, const uint64_t *col, uint32_t a, uint32_t b)
{
	struct sym_graph *g = o->s.g;
	uint32_t *map;

	if (o->ngens == SYM_MAX_GENERATORS || !find_automorphism(&o->s, col, a, b))
		return 0;
	map = malloc(g->nv * sizeof(*map));
	if (!map)
		return -ENOMEM;
	memcpy(map, o->s.map, g->nv * sizeof(*map));
	o->gens[o->ngens] = map;
	orbits_of(g, o->gens, o->ngens + 1, o->trial);
	if (!sym_quotient_ok(g, o->trial, o->size)) {
		free(map);
		return 0;
	}
	o->ngens++;
	memcpy(o->orbit, o->trial, g->nv * sizeof(*o->orbit));
	return 1;
}

/*
 * The orbits of a group of automorphisms that runs as the call: from the
 * stable colouring, each connection of a class not yet in its first
 * member's orbit is tried against it, until SYM_MAX_FAILURES tries found
 * none to keep (an isomorphism search may branch without end where
 * colour classes are not orbits, and an automorphism that fixes a link
 * it moves a connection across is of no use: sym_quotient_ok).
 */
static int find_orbits(struct sym_graph *g, uint32_t *orbit)
{
	size_t n = g->nv;
	uint64_t *col = malloc(n * sizeof(*col));
	struct vc *cls = malloc(n * sizeof(*cls));
	size_t degs = g->maxdeg ? g->maxdeg : 1;
	struct orbit_search o = {
		.s = { g, malloc(n * sizeof(struct vc)), malloc(n * sizeof(struct vc)),
		       malloc(degs * sizeof(struct sym_edge)), malloc(degs * sizeof(struct sym_edge)),
		       malloc(n * sizeof(uint32_t)), 0 },
		.orbit = orbit, .trial = malloc(n * sizeof(uint32_t)),
		.size = malloc(n * sizeof(uint32_t)),
	};
	unsigned failures = 0;
	int err = -ENOMEM;

	if (!col || !cls || !o.s.s1 || !o.s.s2 || !o.s.ea || !o.s.eb || !o.s.map || !o.trial ||
	    !o.size)
		goto out;
	for (size_t v = 0; v < n; v++)
		orbit[v] = (uint32_t)v;
	memcpy(col, g->init, n * sizeof(*col));
	refine(g, col);
	sort_vc(col, g->nconn, cls); /* the connections' classes */
	err = 0;
	for (size_t i = 1, first = 0; i < g->nconn && failures < SYM_MAX_FAILURES && !err; i++) {
		uint32_t a = cls[first].v, b = cls[i].v;
		int kept;

		if (cls[i].col != cls[first].col) {
			first = i;
			continue;
		}
		if (orbit[a] == orbit[b])
			continue;
		kept = try_generator(&o, col, a, b);
		if (kept < 0)
			err = kept;
		else if (!kept)
			failures++;
	}
out:
	for (size_t i = 0; i < o.ngens; i++)
		free(o.gens[i]);
	free(col);
	free(cls);
	free(o.s.s1);
	free(o.s.s2);
	free(o.s.ea);
	free(o.s.eb);
	free(o.s.map);
	free(o.trial);
	free(o.size);
	return err;
}

/* Keep one connection an orbit, their dependencies on representatives,
 * and each link's stand-in. */
static int sym_quotient(const struct plan *p, const struct plan_pattern *pat,
			const struct sym_graph *g, const uint32_t *orbit, struct sgm_fold *f)
{
	size_t nids = (size_t)f->nodes * p->layout.per_node, n = 0;
	uint32_t *index = malloc((g->nconn ? g->nconn : 1) * sizeof(*index));
	size_t *kept = malloc((g->nconn ? g->nconn : 1) * sizeof(*kept));
	uint32_t *dep = malloc((g->nconn ? g->nconn : 1) * PLAN_MAX_DEPS * sizeof(*dep));
	uint32_t *canon = malloc((nids ? nids : 1) * sizeof(*canon));

	if (!index || !kept || !dep || !canon) {
		free(index);
		free(kept);
		free(dep);
		free(canon);
		return -ENOMEM;
	}
	for (size_t k = 0; k < g->nconn; k++)
		if (orbit[k] == k) {
			index[k] = (uint32_t)n;
			kept[n++] = f->kept[k];
		}
	for (size_t k = 0, j = 0; k < g->nconn; k++) {
		if (orbit[k] != k)
			continue;
		for (unsigned d = 0; d < pat->conns[f->kept[k]].ndeps; d++)
			dep[j * PLAN_MAX_DEPS + d] = index[orbit[f->dep[k * PLAN_MAX_DEPS + d]]];
		j++;
	}
	for (size_t i = 0; i < nids; i++)
		canon[i] = (uint32_t)i;
	for (size_t v = g->nconn; v < g->nv; v++)
		canon[g->res[v - g->nconn]] = g->res[orbit[v] - g->nconn];
	free(f->kept);
	free(f->dep);
	free(f->canon);
	f->kept = kept;
	f->dep = dep;
	f->canon = canon;
	f->ncanon = nids;
	f->sym_conns = g->nconn;
	f->nkept = n;
	free(index);
	return 0;
}

/* A graph and its orbits, kept for the calls after (sgm_sym_cache). */
struct sgm_sym_entry {
	struct sym_graph g;
	uint32_t *orbit;
};

/* Whether @a and @b are one graph, vertex for vertex and edge for edge:
 * then they have the same automorphisms. */
static bool graph_same(const struct sym_graph *a, const struct sym_graph *b)
{
	size_t nres = a->nv - a->nconn;

	return a->nconn == b->nconn && a->nv == b->nv &&
	       !memcmp(a->first, b->first, (a->nv + 1) * sizeof(*a->first)) &&
	       !memcmp(a->edge, b->edge, a->first[a->nv] * sizeof(*a->edge)) &&
	       !memcmp(a->sig, b->sig, a->nconn * SIG_MAX * sizeof(*a->sig)) &&
	       !memcmp(a->res, b->res, nres * sizeof(*a->res)) &&
	       !memcmp(a->cap, b->cap, nres * sizeof(*a->cap));
}

static const uint32_t *cache_find(const struct sgm_sym_cache *c, const struct sym_graph *g)
{
	for (unsigned i = 0; i < c->n; i++)
		if (graph_same(&c->entry[i]->g, g))
			return c->entry[i]->orbit;
	return NULL;
}

/* Keep @g (its arrays now the cache's) and @orbit, the oldest entry
 * giving way when full. */
static void cache_put(struct sgm_sym_cache *c, struct sym_graph *g, uint32_t *orbit)
{
	struct sgm_sym_entry *e = malloc(sizeof(*e));

	if (!e)
		return; /* not kept: the next call searches again */
	e->g = *g;
	e->orbit = orbit;
	memset(g, 0, sizeof(*g));
	if (c->n == SGM_SYM_CACHE) {
		graph_destroy(&c->entry[c->next]->g);
		free(c->entry[c->next]->orbit);
		free(c->entry[c->next]);
		c->entry[c->next] = e;
		c->next = (c->next + 1) % SGM_SYM_CACHE;
		return;
	}
	c->entry[c->n++] = e;
}

void sgm_sym_cache_clear(struct sgm_sym_cache *c)
{
	for (unsigned i = 0; i < c->n; i++) {
		graph_destroy(&c->entry[i]->g);
		free(c->entry[i]->orbit);
		free(c->entry[i]);
	}
	memset(c, 0, sizeof(*c));
}

int sgm_fold_symmetry(const struct plan *p, const struct plan_pattern *pat,
		      struct sgm_sym_cache *cache, struct sgm_fold *f)
{
	struct sym_graph g;
	const uint32_t *known;
	uint32_t *orbit = NULL;
	size_t reps = 0;
	int err;

	if (f->nkept < 2)
		return 0;
	err = graph_build(p, pat, f, &g);
	if (err)
		return err == -ERANGE ? 0 : err;
	known = cache_find(cache, &g);
	if (!known) {
		orbit = malloc(g.nv * sizeof(*orbit));
		err = orbit ? find_orbits(&g, orbit) : -ENOMEM;
		known = orbit;
	}
	for (size_t k = 0; !err && k < g.nconn; k++)
		reps += known[k] == k;
	if (!err && reps < g.nconn)
		err = sym_quotient(p, pat, &g, known, f);
	if (!err && orbit) {
		cache_put(cache, &g, orbit);
		orbit = NULL;
	}
	free(orbit);
	graph_destroy(&g);
	return err;
}

uint32_t sgm_fold_res(const struct sgm_fold *f, uint32_t id)
{
	return f->canon && id < f->ncanon ? f->canon[id] : id;
}
