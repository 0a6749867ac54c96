/* SPDX-License-Identifier: MIT */
/*
 * model/fill_sets.c against the sets themselves: time_shares' walk over
 * its groups (analytic_fill.c), on random clocks, each set listed in full
 * (every position from the first whose start is past t - spread - the
 * longest hop to b, ending after t) and its difference from the last
 * solved one counted by hand, must agree with fill_set_near at every
 * group and hop. Whole numbers keep every sum exact, so the listed sets
 * are the counted ones to the last connection.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "fill_sets.h"

/* A small generator of our own: the same cases on every libc. */
static uint32_t next(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(*s >> 33);
}

/* |a ^ b| for two marks of @n positions. */
static size_t differ(const bool *a, const bool *b, size_t n)
{
	size_t d = 0;

	for (size_t i = 0; i < n; i++)
		d += a[i] != b[i];
	return d;
}

/* One random case; how many sets were solved (the rest kept) into *@solves. */
static void one_case(uint64_t *seed, double slack, size_t *solves, size_t *kept)
{
	static const double hops[] = { 1, 2, 5, 9 }; /* few, as a chain's */
	size_t nc = 1 + next(seed) % 300;
	double spread = next(seed) % 40, hmax = 0;
	struct conn_clock *clk = calloc(nc, sizeof(*clk));
	bool *set = calloc(nc, sizeof(*set)), *last = calloc(nc, sizeof(*last));
	size_t nlast = SIZE_MAX;
	struct fill_sets fs;

	cr_assert(clk && set && last);
	for (size_t i = 0; i < nc; i++) {
		clk[i] = (struct conn_clock){ next(seed) % 200, hops[next(seed) % 4], (uint32_t)i };
		if (clk[i].hop > hmax)
			hmax = clk[i].hop;
	}
	qsort(clk, nc, sizeof(*clk), conn_clock_cmp);
	cr_assert_eq(fill_sets_init(&fs, clk, nc, spread), 0);
	for (size_t g = 0, end; g < nc; g = end) {
		double t = clk[g].start, from = t - spread - hmax;
		size_t a = g;

		for (end = g; end < nc && clk[end].start == t; end++)
			;
		while (a > 0 && clk[a - 1].start > from)
			a--;
		fill_sets_at(&fs, t);
		for (size_t j = g; j < end; j++) {
			size_t b, n = 0;
			bool near, by_hand;

			if (j > g && clk[j].hop == clk[j - 1].hop)
				continue;
			b = fill_sets_until(&fs, end, t + spread + clk[j].hop);
			cr_assert(b == nc || clk[b].start >= t + spread + clk[j].hop);
			cr_assert(b == end || clk[b - 1].start < t + spread + clk[j].hop);
			memset(set, 0, nc * sizeof(*set));
			for (size_t m = a; m < b; m++)
				if (clk[m].start + spread + clk[m].hop > t) {
					set[m] = true;
					n++;
				}
			by_hand = nlast != SIZE_MAX &&
				  differ(set, last, nc) <= (size_t)(slack * (double)nlast);
			near = fill_set_near(&fs, b, t, slack);
			cr_assert_eq(near, by_hand,
				     "nc %zu spread %g t %g hop %g: near %d, by hand %d (%zu of %zu)",
				     nc, spread, t, clk[j].hop, near, by_hand,
				     nlast == SIZE_MAX ? 0 : differ(set, last, nc), nlast);
			if (!near) {
				fill_set_solved(&fs, b, n);
				memcpy(last, set, nc * sizeof(*set));
				nlast = n;
				(*solves)++;
			} else {
				(*kept)++;
			}
		}
	}
	fill_sets_destroy(&fs);
	free(last);
	free(set);
	free(clk);
}

Test(fill_sets, near_as_the_listed_sets_differ)
{
	static const double slacks[] = { 0, 0.01, 0.1, 0.3 };
	uint64_t seed = 1;
	size_t solves = 0, kept = 0;

	for (int i = 0; i < 400; i++)
		one_case(&seed, slacks[i % 4], &solves, &kept);
	/* both answers taken many times, or the test proves little */
	cr_assert_gt(solves, 1000, "%zu solves", solves);
	cr_assert_gt(kept, 1000, "%zu kept", kept);
}
