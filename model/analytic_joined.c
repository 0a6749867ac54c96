/* SPDX-License-Identifier: MIT */
/*
 * time_shares' tau solves, each over the connections joined to one group
 * of connections through the limited links they share (analytic_fill.c).
 * A group's taus are its shares among every connection in flight as it
 * starts, but max-min fairness splits over the sets of connections that
 * share links, one with another: solved with only the set its group
 * belongs to, a group's connections get the shares the whole solve gives
 * them, to rounding (the common level rises in other steps). A group of
 * one to a few connections starting alone (a part-filled pod of a Clos:
 * 1 025 nodes, 18 300 groups) joins some 35 of the 1 400 in flight. The
 * connections each link carries are found once a call, per segment. (A
 * fill solve's window of phases joins most of what it holds: those stay
 * whole, share_conns.) The pick is a window of the clock, never listed:
 * listing it for every group was most of a 4096-node tree's time (4 800
 * groups, 87 million picks, 1.7 million joined).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analytic_internal.h"
#include "sort_unsigned.h"
#include "workers.h"

static void seg_users_destroy(struct seg_users *u)
{
	free(u->first);
	free(u->pos);
	memset(u, 0, sizeof(*u));
}

void joined_destroy(struct joined_ws *j)
{
	for (unsigned k = 0; k < j->nseg && j->seg; k++)
		seg_users_destroy(&j->seg[k]);
	free(j->seg);
	memset(j, 0, sizeof(*j));
}

int joined_marks_init(struct joined_marks *m, const struct solver *sv, size_t nc)
{
	m->stamp = 0;
	m->in = calloc(nc ? nc : 1, sizeof(*m->in));
	m->seen = calloc(sv->nres ? sv->nres : 1, sizeof(*m->seen));
	return m->in && m->seen ? 0 : -ENOMEM;
}

void joined_marks_destroy(struct joined_marks *m)
{
	free(m->seen);
	free(m->in);
	memset(m, 0, sizeof(*m));
}

/* Whether @w picks the connection at clock position @q in [lo, end). */
static bool picked(const struct pick_window *w, uint32_t q)
{
	return q >= w->g || w->clk[q].start + w->clk[q].hop > w->cut;
}

/* Where link @r's connections at clock positions from @lo start. */
static uint32_t window_from(const struct seg_users *su, uint32_t r, size_t lo)
{
	uint32_t a = su->first[r], b = su->first[r + 1];

	while (a < b) {
		uint32_t m = a + (b - a) / 2;

		if (su->pos[m] < lo)
			a = m + 1;
		else
			b = m;
	}
	return a;
}


/* Connection @i's links through segment @seg, into @tmp; their count. */
static unsigned links_of(const struct solver *sv, const struct plan_pattern *pat, unsigned seg,
			 size_t i, struct maxmin_use *tmp)
{
	double pcap;

	return conn_seg_uses(sv->p, pat, &pat->conns[i], (int)seg, &pcap, tmp);
}

/*
 * Segment @seg's limited links, each with the clock positions of the
 * connections that cross it there (pos[first[r]..first[r + 1]]), in
 * order: a window's are found by a binary search, not a walk past every
 * connection of a switch uplink that ECMP gave it. Counted, then placed,
 * each range of positions by a worker of its own (users_pass): a link's
 * places go to the ranges in turn, so its positions stay in order.
 */
struct users_job {
	const struct solver *sv;
	const struct plan_pattern *pat;
	const struct joined_ws *j;
	unsigned seg;
	size_t per;       /* positions a range */
	uint32_t **at;    /* per range and link: its count, then its next place */
	struct seg_users *su;
	bool place;       /* the second pass */
};

static int users_pass(void *ctx, unsigned worker, size_t range)
{
	const struct users_job *u = ctx;
	struct maxmin_use tmp[PLAN_MAX_USES + FABRIC_PATH_MAX];
	uint32_t *at = u->at[range];
	size_t lo = range * u->per, hi = lo + u->per < u->j->nc ? lo + u->per : u->j->nc;

	(void)worker;
	for (size_t q = lo; q < hi; q++) {
		unsigned k = links_of(u->sv, u->pat, u->seg, u->j->clk[q].conn, tmp);

		for (unsigned i = 0; i < k; i++) {
			uint32_t r = tmp[i].resource;

			if (r >= u->sv->nres)
				return -EINVAL; /* as maxmin_solve would say */
			if (!isfinite(u->sv->cap[r]))
				continue;
			if (u->place)
				u->su->pos[at[r]++] = (uint32_t)q;
			else
				at[r]++;
		}
	}
	return 0;
}

static int seg_users_build(const struct solver *sv, const struct plan_pattern *pat,
			   const struct joined_ws *j, unsigned seg, struct seg_users *su)
{
	unsigned nw = sv->nworkers ? sv->nworkers : 1;
	size_t per = (j->nc + nw - 1) / nw, n = per ? (j->nc + per - 1) / per : 0, run = 0;
	uint32_t *at[WORKERS_MAX] = { NULL };
	struct users_job u = { sv, pat, j, seg, per, at, su, false };
	int err = 0;

	su->first = malloc((sv->nres + 1) * sizeof(*su->first));
	if (!su->first)
		return -ENOMEM;
	for (size_t t = 0; t < n && !err; t++)
		if (!(at[t] = calloc(sv->nres ? sv->nres : 1, sizeof(*at[t]))))
			err = -ENOMEM;
	if (!err)
		err = workers_run(nw, n, users_pass, &u);
	/* each range's count of a link becomes where its first goes */
	for (size_t r = 0; !err && r < sv->nres; r++) {
		su->first[r] = (uint32_t)run;
		for (size_t t = 0; t < n; t++) {
			uint32_t c = at[t][r];

			at[t][r] = (uint32_t)run;
			run += c;
		}
	}
	su->first[sv->nres] = (uint32_t)run;
	if (!err && !(su->pos = malloc((run ? run : 1) * sizeof(*su->pos))))
		err = -ENOMEM;
	u.place = true;
	if (!err)
		err = workers_run(nw, n, users_pass, &u);
	for (size_t t = 0; t < n; t++)
		free(at[t]);
	su->built = !err;
	return err;
}

int joined_init(struct joined_ws *j, const struct solver *sv, const struct plan_pattern *pat,
		unsigned nseg, const struct conn_clock *clk, size_t nc)
{
	int err = 0;

	memset(j, 0, sizeof(*j));
	j->nseg = nseg;
	j->clk = clk;
	j->nc = nc;
	j->seg = calloc(nseg ? nseg : 1, sizeof(*j->seg));
	if (!j->seg)
		return -ENOMEM;
	/* every group solves every segment: found before the workers
	 * read them */
	for (unsigned k = 0; !err && k < nseg; k++)
		err = seg_users_build(sv, pat, j, k, &j->seg[k]);
	return err;
}

/* The picked connections joined to @w's group, in clock order, into
 * ws->conn[0..*n): from the group out, every picked connection on a
 * limited link of one already taken. */
static void gather_joined(const struct solver *sv, struct share_ws *ws, struct joined_marks *j,
			  const struct plan_pattern *pat, const struct seg_users *su, unsigned seg,
			  const struct pick_window *w, size_t *n)
{
	struct maxmin_use tmp[PLAN_MAX_USES + FABRIC_PATH_MAX];
	uint32_t *queue = ws->conn;
	size_t nq = 0;

	for (size_t q = w->g; q < w->end; q++) {
		j->in[q] = true;
		queue[nq++] = (uint32_t)q;
	}
	for (size_t q = 0; q < nq; q++) {
		unsigned k = links_of(sv, pat, seg, w->clk[queue[q]].conn, tmp);

		for (unsigned u = 0; u < k; u++) {
			uint32_t r = tmp[u].resource;

			if (!isfinite(sv->cap[r]) || j->seen[r] == j->stamp)
				continue;
			j->seen[r] = j->stamp;
			for (uint32_t x = window_from(su, r, w->lo);
			     x < su->first[r + 1] && su->pos[x] < w->end; x++) {
				uint32_t p = su->pos[x];

				if (!j->in[p] && picked(w, p)) {
					j->in[p] = true;
					queue[nq++] = p;
				}
			}
		}
	}
	/* in clock order, the order a whole pick's solve takes them, so
	 * their loads add alike: sorted, or read off the window where they
	 * fill much of it (a sort of n costs some n log n, about 16 n at
	 * the few thousand joined a solve takes at most: past that, the
	 * window's walk is cheaper) */
	if (nq * 16 < w->end - w->lo) {
		sort_unsigned(queue, nq);
	} else {
		size_t m = 0;

		for (size_t q = w->lo; q < w->end; q++)
			if (j->in[q])
				queue[m++] = (uint32_t)q;
	}
	for (size_t q = 0; q < nq; q++) {
		j->in[queue[q]] = false;
		queue[q] = w->clk[queue[q]].conn;
	}
	*n = nq;
}

int share_joined(const struct solver *sv, struct share_ws *ws, const struct joined_ws *j,
		 struct joined_marks *m, const struct plan_pattern *pat, unsigned nch,
		 unsigned seg, const struct pick_window *w, double *rate)
{
	size_t n, ng = w->end - w->g;
	int err;

	if (seg >= j->nseg || !j->seg[seg].built)
		return -EINVAL;
	if (!++m->stamp) {
		/* the stamp wrapped: no link seen */
		memset(m->seen, 0, sv->nres * sizeof(*m->seen));
		m->stamp = 1;
	}
	gather_joined(sv, ws, m, pat, &j->seg[seg], seg, w, &n);
	err = conn_flows(sv, ws, pat, nch, seg, n);
	if (!err)
		err = maxmin_ws_solve(sv->mm, sv->cap, ws->flows, n);
	/* the group's positions are the last: nothing after it is picked */
	for (size_t q = n - ng; !err && q < n; q++)
		rate[q - (n - ng)] = flow_conn_rate(&pat->conns[ws->conn[q]], &ws->flows[q]);
	return err;
}
