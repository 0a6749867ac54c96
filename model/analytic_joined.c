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
 * whole, share_conns.)
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analytic_internal.h"

#define NOT_PICKED UINT32_MAX

static void seg_users_destroy(struct seg_users *u)
{
	free(u->first);
	free(u->conn);
	memset(u, 0, sizeof(*u));
}

void joined_destroy(struct joined_ws *j)
{
	for (unsigned k = 0; k < j->nseg && j->seg; k++)
		seg_users_destroy(&j->seg[k]);
	free(j->seg);
	free(j->seen);
	free(j->in);
	free(j->pos);
	memset(j, 0, sizeof(*j));
}

int joined_init(struct joined_ws *j, const struct solver *sv, const struct plan_pattern *pat,
		unsigned nseg)
{
	size_t n = pat->nconns ? pat->nconns : 1;

	memset(j, 0, sizeof(*j));
	j->nseg = nseg;
	j->seg = calloc(nseg ? nseg : 1, sizeof(*j->seg));
	j->pos = malloc(n * sizeof(*j->pos));
	j->in = calloc(n, sizeof(*j->in));
	j->seen = calloc(sv->nres ? sv->nres : 1, sizeof(*j->seen));
	if (!j->seg || !j->pos || !j->in || !j->seen)
		return -ENOMEM;
	for (size_t i = 0; i < pat->nconns; i++)
		j->pos[i] = NOT_PICKED;
	return 0;
}

/* Connection @i's links through segment @seg, into @tmp; their count. */
static unsigned links_of(const struct solver *sv, const struct plan_pattern *pat, unsigned seg,
			 size_t i, struct maxmin_use *tmp)
{
	double pcap;

	return conn_seg_uses(sv->p, pat, &pat->conns[i], (int)seg, &pcap, tmp);
}

/* Segment @seg's limited links, each with the active connections that
 * cross it there (conn[first[r]..first[r + 1]]). */
static int seg_users_build(const struct solver *sv, const struct plan_pattern *pat,
			   unsigned nch, unsigned seg, struct seg_users *su)
{
	struct maxmin_use tmp[PLAN_MAX_USES + FABRIC_PATH_MAX];

	su->first = calloc(sv->nres + 1, sizeof(*su->first));
	if (!su->first)
		return -ENOMEM;
	/* counted at first[r + 1], summed into the starts, filled moving
	 * each start to its end, then moved back by one link */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < pat->nconns; i++) {
			unsigned k;

			if (!conn_active(pat, &pat->conns[i], nch))
				continue;
			k = links_of(sv, pat, seg, i, tmp);
			for (unsigned u = 0; u < k; u++) {
				uint32_t r = tmp[u].resource;

				if (r >= sv->nres)
					return -EINVAL; /* as maxmin_solve would say */
				if (!isfinite(sv->cap[r]))
					continue;
				if (pass)
					su->conn[su->first[r]++] = (uint32_t)i;
				else
					su->first[r + 1]++;
			}
		}
		if (pass)
			break;
		for (size_t r = 0; r < sv->nres; r++)
			su->first[r + 1] += su->first[r];
		su->conn = malloc((su->first[sv->nres] ? su->first[sv->nres] : 1) *
				  sizeof(*su->conn));
		if (!su->conn)
			return -ENOMEM;
	}
	memmove(su->first + 1, su->first, sv->nres * sizeof(*su->first));
	su->first[0] = 0;
	su->built = true;
	return 0;
}

/* The picked connections joined to the wanted ones, in pick order, into
 * ws->conn[0..*n): from the wanted out, every picked connection on a
 * limited link of one already taken. */
static void gather_joined(const struct solver *sv, struct share_ws *ws, struct joined_ws *j,
			  const struct plan_pattern *pat, const struct seg_users *su, unsigned seg,
			  const uint32_t *pick, size_t npick, const uint32_t *want, size_t nwant,
			  size_t *n)
{
	struct maxmin_use tmp[PLAN_MAX_USES + FABRIC_PATH_MAX];
	uint32_t *queue = ws->conn;
	size_t nq = 0, m = 0;

	for (size_t q = 0; q < nwant; q++)
		if (j->pos[want[q]] != NOT_PICKED && !j->in[want[q]]) {
			j->in[want[q]] = true;
			queue[nq++] = want[q];
		}
	for (size_t q = 0; q < nq; q++) {
		unsigned k = links_of(sv, pat, seg, queue[q], tmp);

		for (unsigned u = 0; u < k; u++) {
			uint32_t r = tmp[u].resource;

			if (!isfinite(sv->cap[r]) || j->seen[r] == j->stamp)
				continue;
			j->seen[r] = j->stamp;
			for (uint32_t x = su->first[r]; x < su->first[r + 1]; x++) {
				uint32_t c = su->conn[x];

				if (j->pos[c] != NOT_PICKED && !j->in[c]) {
					j->in[c] = true;
					queue[nq++] = c;
				}
			}
		}
	}
	/* in pick order: the whole solve's, so their loads add alike */
	for (size_t q = 0; q < npick; q++)
		if (j->in[pick[q]]) {
			j->in[pick[q]] = false;
			queue[m++] = pick[q];
		}
	*n = m;
}

/* The joined connections' flows, as share_conns makes them. */
static int joined_flows(const struct solver *sv, struct share_ws *ws,
			const struct plan_pattern *pat, unsigned nch, unsigned seg, size_t n)
{
	size_t at = 0;

	for (size_t q = 0; q < n; q++) {
		const struct plan_conn *c = &pat->conns[ws->conn[q]];
		int err = seg_flow(sv, ws, pat, c, nch, (int)seg, &at, &ws->flows[q]);

		if (err)
			return err;
		if (c->volume > 0)
			ws->flows[q].cap /= c->volume;
	}
	pool_uses(ws, ws->flows, n);
	return 0;
}

int share_joined(const struct solver *sv, struct share_ws *ws, struct joined_ws *j,
		 const struct plan_pattern *pat, unsigned nch, unsigned seg, const uint32_t *pick,
		 size_t npick, const uint32_t *want, size_t nwant, double *rate)
{
	struct seg_users *su;
	size_t n;
	int err;

	if (seg >= j->nseg)
		return -EINVAL;
	su = &j->seg[seg];
	if (!su->built && (err = seg_users_build(sv, pat, nch, seg, su)))
		return err;
	if (!++j->stamp) {
		/* the stamp wrapped: no link seen */
		memset(j->seen, 0, sv->nres * sizeof(*j->seen));
		j->stamp = 1;
	}
	for (size_t q = 0; q < npick; q++)
		j->pos[pick[q]] = (uint32_t)q;
	gather_joined(sv, ws, j, pat, su, seg, pick, npick, want, nwant, &n);
	for (size_t q = 0; q < npick; q++)
		j->pos[pick[q]] = NOT_PICKED;
	err = joined_flows(sv, ws, pat, nch, seg, n);
	if (!err)
		err = maxmin_ws_solve(sv->mm, sv->cap, ws->flows, n);
	for (size_t q = 0; !err && q < n; q++)
		rate[ws->conn[q]] = flow_conn_rate(&pat->conns[ws->conn[q]], &ws->flows[q]);
	return err;
}
