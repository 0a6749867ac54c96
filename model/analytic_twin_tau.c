/* SPDX-License-Identifier: MIT */
/*
 * The tau solves of twin sets (analytic_twins.c), a set a task. A set's
 * connections share their limited links only among themselves, so those
 * joined to a group of them starting together (time_shares: the first
 * slices in flight as the group's start, joined through the links they
 * share) are found among the set's own, and solved alone, in the set's
 * order: what share_joined gives them to rounding, with other sets' groups
 * starting at the same time no longer in the same solve. Two twin sets
 * that pick the same of their connections make the same solve, so a
 * worker keeps each solve's rates by the set's kind, the segment and the
 * connections picked (struct tau_cache): ECMP gives almost every node a
 * timeline of its own, but the NVLink hops in flight as one of them
 * starts come in a few patterns.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analytic_internal.h"
#include "splitmix.h"
#include "workers.h"

/* A set's connection on its clock. */
struct tt_item {
	double start, hop;
	uint32_t local; /* its index in its set */
};

/* Solves kept: by class, segment and the connections joined (a mask of
 * the set's), their rates in the set's order. */
struct tau_entry {
	uint32_t cls, seg;
	size_t mask, rates; /* offsets into the arenas */
	uint64_t hash;
};

struct tau_cache {
	struct tau_entry *e;
	size_t ne, room_e;
	uint32_t *table; /* room: entries by hash, UINT32_MAX empty */
	size_t room;
	uint64_t *masks;
	size_t nmasks, room_masks;
	double *rates;
	size_t nrates, room_rates;
};

/* One worker's room for a set's solves. */
struct tt_room {
	struct tt_item *item;   /* most */
	uint32_t *link_first;   /* per_node + 1: a local link's connections */
	uint32_t *link_conn;    /* most x PLAN_MAX_USES... as counted */
	uint32_t *conn_first;   /* most + 1: a connection's local links */
	uint32_t *conn_link;
	size_t room_uses;
	bool *in;               /* most: joined */
	uint32_t *rank;         /* most: a joined one's place among them */
	uint32_t *queue;        /* most */
	uint32_t *live;         /* most: items whose first slice may be in
				 * flight as the next group starts */
	uint32_t *seen, stamp;  /* per_node: the solve that reached a link */
	uint64_t *mask;         /* words of the largest set */
	uint32_t links_cls;     /* the class and segment whose links those
				 * are (alike for every set of a class), or
				 * UINT32_MAX */
	unsigned links_seg;
	struct tau_cache cache;
};

struct twin_tau_job {
	const struct plan_pattern *pat;
	const struct twins *t;
	unsigned nch, nseg;
	const double *at, *hop;
	double hmax;
	struct room *rooms;
	struct tt_room *tt;
	struct conn_rate *cr;
	unsigned nworkers;
	uint32_t *order;  /* the sets, class by class */
};

static int tt_item_cmp(const void *a, const void *b)
{
	const struct tt_item *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->hop != y->hop)
		return x->hop < y->hop ? -1 : 1;
	return (x->local > y->local) - (x->local < y->local);
}

static void tt_room_destroy(struct tt_room *r)
{
	free(r->item);
	free(r->link_first);
	free(r->link_conn);
	free(r->conn_first);
	free(r->conn_link);
	free(r->rank);
	free(r->in);
	free(r->queue);
	free(r->live);
	free(r->seen);
	free(r->mask);
	free(r->cache.e);
	free(r->cache.table);
	free(r->cache.masks);
	free(r->cache.rates);
	memset(r, 0, sizeof(*r));
}

static int tt_room_init(struct tt_room *r, const struct twins *t, size_t per_node)
{
	size_t most = t->most ? t->most : 1, words = (most + 63) / 64;

	memset(r, 0, sizeof(*r));
	r->item = malloc(most * sizeof(*r->item));
	r->link_first = malloc((per_node + 1) * sizeof(*r->link_first));
	r->conn_first = malloc((most + 1) * sizeof(*r->conn_first));
	r->rank = malloc(most * sizeof(*r->rank));
	r->in = malloc(most * sizeof(*r->in));
	r->queue = malloc(most * sizeof(*r->queue));
	r->live = malloc(most * sizeof(*r->live));
	r->seen = calloc(per_node ? per_node : 1, sizeof(*r->seen));
	r->mask = malloc(words * sizeof(*r->mask));
	r->links_cls = UINT32_MAX;
	r->cache.room = 64;
	r->cache.table = malloc(r->cache.room * sizeof(*r->cache.table));
	if (!r->item || !r->link_first || !r->conn_first || !r->rank || !r->in || !r->queue || !r->live ||
	    !r->seen || !r->mask || !r->cache.table)
		return -ENOMEM;
	for (size_t k = 0; k < r->cache.room; k++)
		r->cache.table[k] = UINT32_MAX;
	return 0;
}

/*
 * Set @s's connections' limited links through segment @seg, as links of
 * its node (local: the node's own ids from 0), both ways: each
 * connection's, and each link's connections.
 */
static int set_links(const struct solver *sv, const struct plan_pattern *pat,
		     const struct twins *t, uint32_t s, unsigned seg, struct tt_room *r)
{
	struct maxmin_use tmp[PLAN_MAX_USES + FABRIC_PATH_MAX];
	uint32_t first = t->set_first[s], n = t->set_first[s + 1] - first;
	size_t per_node = sv->p->layout.per_node, at = 0;
	size_t base = (size_t)plan_node_of(sv->p, pat->conns[t->slot_conn[first]].src_rank) *
		      per_node;

	memset(r->link_first, 0, (per_node + 1) * sizeof(*r->link_first));
	for (uint32_t l = 0; l < n; l++) {
		double pcap;
		unsigned k = conn_seg_uses(sv->p, pat, &pat->conns[t->slot_conn[first + l]],
					   (int)seg, &pcap, tmp);

		r->conn_first[l] = (uint32_t)at;
		while (at + k > r->room_uses) {
			size_t room = r->room_uses ? 2 * r->room_uses : 256;
			uint32_t *cl = realloc(r->conn_link, room * sizeof(*cl));
			uint32_t *lc = cl ? realloc(r->link_conn, room * sizeof(*lc)) : NULL;

			if (cl)
				r->conn_link = cl;
			if (!lc)
				return -ENOMEM;
			r->link_conn = lc;
			r->room_uses = room;
		}
		for (unsigned u = 0; u < k; u++) {
			uint32_t id = tmp[u].resource;

			if (!isfinite(sv->cap[id]))
				continue;
			/* twins_build let in only sets whose limited links
			 * are their node's own */
			r->conn_link[at++] = (uint32_t)(id - base);
			r->link_first[id - base + 1]++;
		}
	}
	r->conn_first[n] = (uint32_t)at;
	for (size_t x = 0; x < per_node; x++)
		r->link_first[x + 1] += r->link_first[x];
	/* placed moving each link's start, then moved back by one */
	for (uint32_t l = 0; l < n; l++)
		for (uint32_t u = r->conn_first[l]; u < r->conn_first[l + 1]; u++)
			r->link_conn[r->link_first[r->conn_link[u]]++] = l;
	memmove(r->link_first + 1, r->link_first, per_node * sizeof(*r->link_first));
	r->link_first[0] = 0;
	return 0;
}

static uint64_t key_hash(uint32_t cls, uint32_t seg, const uint64_t *mask, size_t words)
{
	uint64_t h = splitmix_in(cls, seg);

	for (size_t w = 0; w < words; w++)
		h = splitmix_in(h, mask[w]);
	return h;
}

/* The kept solve of @cls, @seg and @mask, or NULL. */
static const double *cache_find(const struct tau_cache *c, uint32_t cls, uint32_t seg,
				const uint64_t *mask, size_t words, uint64_t h)
{
	for (size_t k = h & (c->room - 1); c->table[k] != UINT32_MAX; k = (k + 1) & (c->room - 1)) {
		const struct tau_entry *e = &c->e[c->table[k]];

		if (e->hash == h && e->cls == cls && e->seg == seg &&
		    !memcmp(c->masks + e->mask, mask, words * sizeof(*mask)))
			return c->rates + e->rates;
	}
	return NULL;
}

static int grow(void **p, size_t need, size_t *room, size_t size)
{
	size_t r = *room ? *room : 64;
	void *q;

	if (need <= *room)
		return 0;
	while (r < need)
		r *= 2;
	q = realloc(*p, r * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	*room = r;
	return 0;
}

/* Keeps @n rates of @cls, @seg and @mask; where they go, or NULL on
 * -ENOMEM. */
static double *cache_add(struct tau_cache *c, uint32_t cls, uint32_t seg, const uint64_t *mask,
			 size_t words, uint64_t h, size_t n)
{
	size_t k;

	if (2 * (c->ne + 1) > c->room) {
		size_t room = 2 * c->room;
		uint32_t *table = malloc(room * sizeof(*table));

		if (!table)
			return NULL;
		for (k = 0; k < room; k++)
			table[k] = UINT32_MAX;
		for (size_t i = 0; i < c->ne; i++) {
			for (k = c->e[i].hash & (room - 1); table[k] != UINT32_MAX;
			     k = (k + 1) & (room - 1))
				;
			table[k] = (uint32_t)i;
		}
		free(c->table);
		c->table = table;
		c->room = room;
	}
	if (grow((void **)&c->e, c->ne + 1, &c->room_e, sizeof(*c->e)) ||
	    grow((void **)&c->masks, c->nmasks + words, &c->room_masks, sizeof(*c->masks)) ||
	    grow((void **)&c->rates, c->nrates + n, &c->room_rates, sizeof(*c->rates)))
		return NULL;
	c->e[c->ne] = (struct tau_entry){ cls, seg, c->nmasks, c->nrates, h };
	memcpy(c->masks + c->nmasks, mask, words * sizeof(*mask));
	c->nmasks += words;
	c->nrates += n;
	for (k = h & (c->room - 1); c->table[k] != UINT32_MAX; k = (k + 1) & (c->room - 1))
		;
	c->table[k] = (uint32_t)c->ne++;
	return c->rates + c->nrates - n;
}

/*
 * The connections joined to the group at items [@g, @end) through the
 * set's links, among the group and those in flight (r->live), into
 * r->mask (by index in the set); their count. Those in flight are few (a
 * node's NVLink hops at once), so each pass asks each of them whether one
 * of its links is one the joined reach, until none joins.
 */
static size_t joined_mask(struct tt_room *r, size_t g, size_t end, size_t nlive, size_t words,
			  size_t per_node)
{
	size_t nq = 0;
	bool grew = true;

	memset(r->mask, 0, words * sizeof(*r->mask));
	if (!++r->stamp) {
		memset(r->seen, 0, per_node * sizeof(*r->seen));
		r->stamp = 1;
	}
	for (size_t j = g; j < end; j++) {
		uint32_t l = r->item[j].local;

		r->queue[nq++] = l;
		for (uint32_t u = r->conn_first[l]; u < r->conn_first[l + 1]; u++)
			r->seen[r->conn_link[u]] = r->stamp;
	}
	while (grew) {
		grew = false;
		for (size_t q = 0; q < nlive; q++) {
			uint32_t l = r->item[r->live[q]].local, u;

			if (r->in[l])
				continue;
			for (u = r->conn_first[l]; u < r->conn_first[l + 1]; u++)
				if (r->seen[r->conn_link[u]] == r->stamp)
					break;
			if (u == r->conn_first[l + 1])
				continue;
			r->in[l] = true;
			r->queue[nq++] = l;
			for (u = r->conn_first[l]; u < r->conn_first[l + 1]; u++)
				r->seen[r->conn_link[u]] = r->stamp;
			grew = true;
		}
	}
	for (size_t q = 0; q < nq; q++) {
		uint32_t l = r->queue[q];

		r->mask[l / 64] |= 1ull << (l % 64);
		r->in[l] = false;
	}
	return nq;
}

/* The joined connections' rates through segment @seg, in the set's
 * order: the kept solve, or one solved now and kept. NULL with *@err
 * set on failure. */
static const double *joined_rates(const struct twin_tau_job *job, struct room *rm,
				  struct tt_room *r, uint32_t s, unsigned seg, size_t n,
				  size_t words, int *err)
{
	const struct twins *t = job->t;
	const struct plan_pattern *pat = job->pat;
	uint32_t cls = t->set_class[s], first = t->set_first[s];
	uint64_t h = key_hash(cls, seg, r->mask, words);
	const double *kept = cache_find(&r->cache, cls, seg, r->mask, words, h);
	struct share_ws *ws = &rm->ws;
	double *rates;
	size_t q = 0, at = 0;

	if (kept)
		return kept;
	for (size_t w = 0; w < words; w++)
		for (uint64_t bits = r->mask[w]; bits; bits &= bits - 1) {
			const struct plan_conn *c =
				&pat->conns[t->slot_conn[first + w * 64 + (size_t)__builtin_ctzll(bits)]];

			*err = seg_flow(&rm->sv, ws, pat, c, job->nch, (int)seg, &at, &ws->flows[q]);
			if (*err)
				return NULL;
			if (c->volume > 0)
				ws->flows[q].cap /= c->volume;
			ws->conn[q++] = (uint32_t)(c - pat->conns);
		}
	pool_uses(ws, ws->flows, n);
	*err = maxmin_ws_solve(rm->sv.mm, rm->sv.cap, ws->flows, n);
	if (*err)
		return NULL;
	rates = cache_add(&r->cache, cls, seg, r->mask, words, h, n);
	if (!rates) {
		*err = -ENOMEM;
		return NULL;
	}
	for (q = 0; q < n; q++)
		rates[q] = flow_conn_rate(&pat->conns[ws->conn[q]], &ws->flows[q]);
	return rates;
}

/* Set @s's taus: its groups along its own clock, a segment at a time. */
static int twin_tau(void *ctx, unsigned worker, size_t s)
{
	const struct twin_tau_job *job = ctx;
	const struct twins *t = job->t;
	const struct plan_pattern *pat = job->pat;
	struct room *rm = &job->rooms[worker];
	struct tt_room *r = &job->tt[worker];
	uint32_t first = t->set_first[s], n = t->set_first[s + 1] - first;
	size_t words = (n + 63) / 64, per_node = rm->sv.p->layout.per_node, ni = 0;
	int err = 0;

	for (uint32_t l = 0; l < n; l++) {
		uint32_t i = t->slot_conn[first + l];

		if (conn_active(pat, &pat->conns[i], job->nch))
			r->item[ni++] = (struct tt_item){ job->at[i], job->hop[i], l };
		r->in[l] = false;
	}
	qsort(r->item, ni, sizeof(*r->item), tt_item_cmp);
	for (unsigned k = 0; !err && k < job->nseg; k++) {
		size_t nlive = 0;

		/* a class's sets cross their node's links alike: found once
		 * for a run of them (job->order keeps a class together) */
		if (r->links_cls != t->set_class[s] || r->links_seg != k) {
			err = set_links(&rm->sv, pat, t, (uint32_t)s, k, r);
			r->links_cls = err ? UINT32_MAX : t->set_class[s];
			r->links_seg = k;
		}
		for (size_t g = 0, end; !err && g < ni; g = end) {
			double t0 = r->item[g].start, cut = t0 + 1e-9 * fmax(job->hmax, t0);
			const double *rates;
			size_t nj, kept = 0;

			for (end = g; end < ni && r->item[end].start <= cut; end++)
				;
			/* the first slices in flight as the group starts (from
			 * the longest hop before: once out, out for good), and
			 * the group */
			for (size_t q = 0; q < nlive; q++) {
				const struct tt_item *it = &r->item[r->live[q]];

				if (it->start >= t0 - job->hmax && it->start + it->hop > cut)
					r->live[kept++] = r->live[q];
			}
			nlive = kept;
			nj = joined_mask(r, g, end, nlive, words, per_node);
			rates = joined_rates(job, rm, r, (uint32_t)s, k, nj, words, &err);
			/* the rates are the joined's in the set's order: each
			 * one's place among them */
			for (size_t w = 0, q = 0; rates && w < words; w++)
				for (uint64_t bits = r->mask[w]; bits; bits &= bits - 1)
					r->rank[w * 64 + (size_t)__builtin_ctzll(bits)] = (uint32_t)q++;
			for (size_t j = g; rates && j < end; j++) {
				uint32_t l = r->item[j].local;
				struct conn_rate *c = &job->cr[t->slot_conn[first + l]];

				if (k < c->nseg)
					c->seg_bw[k] = rates[r->rank[l]];
			}
			for (size_t j = g; j < end; j++)
				r->live[nlive++] = (uint32_t)j;
		}
	}
	return err;
}

/* @t's sets class by class (a class is its first set), each class's in
 * order: a worker's next set is then most often of its last's class. */
static uint32_t *set_order(const struct twins *t)
{
	uint32_t *order = malloc((t->nsets ? t->nsets : 1) * sizeof(*order));
	uint32_t *at = calloc((size_t)t->nsets + 1, sizeof(*at));

	if (order && at) {
		for (uint32_t s = 0; s < t->nsets; s++)
			at[t->set_class[s] + 1]++;
		for (uint32_t c = 0; c < t->nsets; c++)
			at[c + 1] += at[c];
		for (uint32_t s = 0; s < t->nsets; s++)
			order[at[t->set_class[s]]++] = s;
	} else {
		free(order);
		order = NULL;
	}
	free(at);
	return order;
}

struct twin_tau_job *twin_taus_begin(const struct solver *sv, const struct plan_pattern *pat,
				     const struct twins *t, unsigned nch, unsigned nseg,
				     const double *at, const double *hop, double hmax,
				     struct room *rooms, unsigned nworkers, struct conn_rate *cr)
{
	struct twin_tau_job *job = calloc(1, sizeof(*job));
	struct tt_room *tt = calloc(nworkers ? nworkers : 1, sizeof(*tt));
	int err = job && tt ? 0 : -ENOMEM;

	for (unsigned w = 0; !err && w < nworkers; w++)
		err = tt_room_init(&tt[w], t, sv->p->layout.per_node);
	if (err) {
		for (unsigned w = 0; tt && w < nworkers; w++)
			tt_room_destroy(&tt[w]);
		free(tt);
		free(job);
		return NULL;
	}
	*job = (struct twin_tau_job){ pat, t, nch, nseg, at, hop, hmax, rooms, tt, cr, nworkers,
				      set_order(t) };
	if (!job->order) {
		twin_taus_end(job);
		return NULL;
	}
	return job;
}

int twin_taus_set(struct twin_tau_job *job, unsigned worker, size_t task)
{
	return twin_tau(job, worker, job->order[task]);
}

void twin_taus_end(struct twin_tau_job *job)
{
	for (unsigned w = 0; job && w < job->nworkers; w++)
		tt_room_destroy(&job->tt[w]);
	if (job) {
		free(job->tt);
		free(job->order);
	}
	free(job);
}
