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
 * connections picked (solve_cache.h): ECMP gives almost every node a
 * timeline of its own, but the NVLink hops in flight as one of them
 * starts come in a few patterns.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analytic_internal.h"
#include "solve_cache.h"
#include "workers.h"

/* One worker's room for a set's solves. */
struct tt_room {
	struct conn_clock *item; /* most: the set's active connections on
				  * its clock, .conn their index in it */
	uint32_t *link_first;   /* per_node + 1: a local link's connections */
	uint32_t *link_conn;    /* room_uses: each link's connections */
	uint32_t *conn_first;   /* most + 1: a connection's local links */
	uint32_t *conn_link;    /* room_uses: each connection's links */
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
	struct solve_cache cache;
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
	solve_cache_destroy(&r->cache);
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
	if (solve_cache_init(&r->cache))
		return -ENOMEM;
	if (!r->item || !r->link_first || !r->conn_first || !r->rank || !r->in || !r->queue || !r->live ||
	    !r->seen || !r->mask)
		return -ENOMEM;
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
		uint32_t l = r->item[j].conn;

		r->queue[nq++] = l;
		for (uint32_t u = r->conn_first[l]; u < r->conn_first[l + 1]; u++)
			r->seen[r->conn_link[u]] = r->stamp;
	}
	while (grew) {
		grew = false;
		for (size_t q = 0; q < nlive; q++) {
			uint32_t l = r->item[r->live[q]].conn, u;

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
	uint64_t h = solve_cache_hash(cls, seg, r->mask, words);
	const double *kept = solve_cache_find(&r->cache, cls, seg, r->mask, words, h);
	struct share_ws *ws = &rm->ws;
	double *rates;
	size_t q = 0;

	if (kept)
		return kept;
	for (size_t w = 0; w < words; w++)
		for (uint64_t bits = r->mask[w]; bits; bits &= bits - 1)
			ws->conn[q++] = t->slot_conn[first + w * 64 + (size_t)__builtin_ctzll(bits)];
	*err = conn_flows(&rm->sv, ws, pat, job->nch, seg, n);
	if (!*err)
		*err = maxmin_ws_solve(rm->sv.mm, rm->sv.cap, ws->flows, n);
	if (*err)
		return NULL;
	rates = solve_cache_add(&r->cache, cls, seg, r->mask, words, h, n);
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
			r->item[ni++] = (struct conn_clock){ job->at[i], job->hop[i], l };
		r->in[l] = false;
	}
	qsort(r->item, ni, sizeof(*r->item), conn_clock_cmp);
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
			double t0 = r->item[g].start, cut = group_cut(t0, job->hmax);
			const double *rates;
			size_t nj, kept = 0;

			for (end = g; end < ni && r->item[end].start <= cut; end++)
				;
			/* the first slices in flight as the group starts (from
			 * the longest hop before: once out, out for good), and
			 * the group */
			for (size_t q = 0; q < nlive; q++) {
				const struct conn_clock *it = &r->item[r->live[q]];

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
				uint32_t l = r->item[j].conn;
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
