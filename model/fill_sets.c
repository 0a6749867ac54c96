/* SPDX-License-Identifier: MIT */
/* time_shares' fill sets and their distance from the last one solved
 * (fill_sets.h says what they are). */
#include "fill_sets.h"

#include <errno.h>
#include <stdlib.h>

int conn_clock_cmp(const void *a, const void *b)
{
	const struct conn_clock *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->hop != y->hop)
		return x->hop < y->hop ? -1 : 1;
	return (x->conn > y->conn) - (x->conn < y->conn);
}

static int conn_end_cmp(const void *a, const void *b)
{
	const struct conn_end *x = a, *y = b;

	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	return (x->pos > y->pos) - (x->pos < y->pos);
}

void fill_sets_destroy(struct fill_sets *fs)
{
	free(fs->by_end);
	free(fs->end);
	fs->by_end = NULL;
	fs->end = NULL;
}

int fill_sets_init(struct fill_sets *fs, const struct conn_clock *clk, size_t nc,
		   double spread)
{
	*fs = (struct fill_sets){ .clk = clk, .nc = nc, .nsolved = SIZE_MAX };
	fs->end = malloc((nc ? nc : 1) * sizeof(*fs->end));
	fs->by_end = malloc((nc ? nc : 1) * sizeof(*fs->by_end));
	if (!fs->end || !fs->by_end)
		return -ENOMEM;
	for (size_t m = 0; m < nc; m++) {
		/* as time_shares lists a set: (start + spread) + hop */
		fs->end[m] = clk[m].start + spread + clk[m].hop;
		fs->by_end[m] = (struct conn_end){ fs->end[m], (uint32_t)m };
	}
	qsort(fs->by_end, nc, sizeof(*fs->by_end), conn_end_cmp);
	return 0;
}

void fill_sets_at(struct fill_sets *fs, double t)
{
	for (; fs->next_end < fs->nc && fs->by_end[fs->next_end].at <= t; fs->next_end++)
		if (fs->by_end[fs->next_end].pos < fs->solved_b)
			fs->gone++;
}

size_t fill_sets_until(const struct fill_sets *fs, size_t lo, double to)
{
	size_t hi = fs->nc;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (fs->clk[mid].start < to)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The last set is the positions before solved_b ending after its t, this
 * one those before @b ending after @t (t only grows): they differ by the
 * last one's that have ended since (gone) and, between the two b, by
 * those ending after @t. Counted until it passes the slack.
 */
bool fill_set_near(const struct fill_sets *fs, size_t b, double t, double slack)
{
	size_t diff = fs->gone, most;

	if (fs->nsolved == SIZE_MAX)
		return false;
	most = (size_t)(slack * (double)fs->nsolved);
	for (size_t m = b < fs->solved_b ? b : fs->solved_b,
		    to = b < fs->solved_b ? fs->solved_b : b;
	     m < to && diff <= most; m++)
		diff += fs->end[m] > t;
	return diff <= most;
}

void fill_set_solved(struct fill_sets *fs, size_t b, size_t n)
{
	fs->solved_b = b;
	fs->nsolved = n;
	fs->gone = 0;
}
