/* SPDX-License-Identifier: MIT */
/* Max-min fair sharing against allocations worked out by hand. */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "maxmin.h"
#include "sort_doubles.h"

Test(maxmin, two_flows_on_one_link_get_half_each)
{
	double cap[] = { 10e9 };
	struct maxmin_use u = { 0, 1 };
	struct maxmin_flow f[2] = { { &u, 1, INFINITY, 0 }, { &u, 1, INFINITY, 0 } };

	cr_assert_eq(maxmin_solve(cap, 1, f, 2), 0);
	cr_assert_float_eq(f[0].rate, 5e9, 1);
	cr_assert_float_eq(f[1].rate, 5e9, 1);
}

/*
 * Link A (1) carries f1 and f2; link B (2) carries f2 and f3. A fills
 * first at 0.5 each, freezing f1 and f2; f3 then takes the rest of B: 1.5.
 */
Test(maxmin, textbook_two_links)
{
	double cap[] = { 1, 2 };
	struct maxmin_use a = { 0, 1 }, ab[] = { { 0, 1 }, { 1, 1 } }, b = { 1, 1 };
	struct maxmin_flow f[3] = {
		{ &a, 1, INFINITY, 0 },
		{ ab, 2, INFINITY, 0 },
		{ &b, 1, INFINITY, 0 },
	};

	cr_assert_eq(maxmin_solve(cap, 2, f, 3), 0);
	cr_assert_float_eq(f[0].rate, 0.5, 1e-12);
	cr_assert_float_eq(f[1].rate, 0.5, 1e-12);
	cr_assert_float_eq(f[2].rate, 1.5, 1e-12);
}

/* A flow using a resource twice per byte (a staged copy writing host memory
 * that its NIC then reads) gets half as much of it. */
Test(maxmin, weighted_use)
{
	double cap[] = { 30 };
	struct maxmin_use twice = { 0, 2 }, once = { 0, 1 };
	struct maxmin_flow f[2] = { { &twice, 1, INFINITY, 0 },
				    { &once, 1, INFINITY, 0 } };

	/* level x: 2x + x = 30 -> both at 10. */
	cr_assert_eq(maxmin_solve(cap, 1, f, 2), 0);
	cr_assert_float_eq(f[0].rate, 10, 1e-12);
	cr_assert_float_eq(f[1].rate, 10, 1e-12);
}

/* A private cap frees the rest of the link for the others. */
Test(maxmin, private_cap)
{
	double cap[] = { 10 };
	struct maxmin_use u = { 0, 1 };
	struct maxmin_flow f[2] = { { &u, 1, 2, 0 }, { &u, 1, INFINITY, 0 } };

	cr_assert_eq(maxmin_solve(cap, 1, f, 2), 0);
	cr_assert_float_eq(f[0].rate, 2, 1e-12);
	cr_assert_float_eq(f[1].rate, 8, 1e-12);
}

Test(maxmin, bad_resource_index)
{
	double cap[] = { 10 };
	struct maxmin_use u = { 3, 1 };
	struct maxmin_flow f = { &u, 1, INFINITY, 0 };

	cr_assert_eq(maxmin_solve(cap, 1, &f, 1), -EINVAL);
}

/*
 * The textbook loop, as maxmin.c had it until 2026-12-02: every round
 * walks every flow's uses and every resource. The solver must give its
 * rates to the bit (the analytic backend's times are compared so).
 */
static void textbook_solve(const double *capacity, size_t nres, struct maxmin_flow *flows,
			   size_t nflows)
{
	double *remaining = malloc(nres * sizeof(*remaining));
	double *load = calloc(nres, sizeof(*load));
	bool *frozen = calloc(nflows, sizeof(*frozen));
	size_t active = nflows;
	double level = 0;

	cr_assert(remaining && load && frozen);
	for (size_t r = 0; r < nres; r++)
		remaining[r] = capacity[r];
	for (size_t f = 0; f < nflows; f++)
		for (unsigned u = 0; u < flows[f].nuses; u++)
			load[flows[f].uses[u].resource] += flows[f].uses[u].weight;
	while (active) {
		double step = INFINITY;

		for (size_t f = 0; f < nflows; f++) {
			if (frozen[f])
				continue;
			if (flows[f].cap - level < step)
				step = flows[f].cap - level;
			for (unsigned u = 0; u < flows[f].nuses; u++) {
				uint32_t r = flows[f].uses[u].resource;

				if (isfinite(capacity[r]) && remaining[r] / load[r] < step)
					step = remaining[r] / load[r];
			}
		}
		if (!isfinite(step)) {
			for (size_t f = 0; f < nflows; f++)
				if (!frozen[f])
					flows[f].rate = INFINITY;
			break;
		}
		if (step < 0)
			step = 0;
		level += step;
		for (size_t r = 0; r < nres; r++)
			if (load[r] > 0 && isfinite(remaining[r]))
				remaining[r] -= step * load[r];
		for (size_t f = 0; f < nflows; f++) {
			bool stop;

			if (frozen[f])
				continue;
			stop = isfinite(flows[f].cap) &&
			       flows[f].cap - level <= 1e-12 * flows[f].cap;
			for (unsigned u = 0; u < flows[f].nuses && !stop; u++) {
				uint32_t r = flows[f].uses[u].resource;

				stop = isfinite(capacity[r]) && remaining[r] <= 1e-12 * capacity[r];
			}
			if (!stop)
				continue;
			frozen[f] = true;
			flows[f].rate = level;
			active--;
			for (unsigned u = 0; u < flows[f].nuses; u++)
				load[flows[f].uses[u].resource] -= flows[f].uses[u].weight;
		}
	}
	free(frozen);
	free(load);
	free(remaining);
}

/*
 * The definition, independent of any loop (Bertsekas & Gallager 6.5.2):
 * no resource over its capacity, and every flow either at its cap or
 * through a full resource where no other flow runs faster.
 */
static void assert_max_min_fair(const double *capacity, size_t nres,
				const struct maxmin_flow *f, size_t n)
{
	double *used = calloc(nres, sizeof(*used)), *fastest = calloc(nres, sizeof(*fastest));

	cr_assert(used && fastest);
	for (size_t i = 0; i < n; i++)
		for (unsigned u = 0; u < f[i].nuses; u++) {
			uint32_t r = f[i].uses[u].resource;

			cr_assert(r < nres);
			used[r] += f[i].uses[u].weight * f[i].rate;
			if (f[i].rate > fastest[r])
				fastest[r] = f[i].rate;
		}
	for (uint32_t r = 0; r < nres; r++)
		cr_assert(!(used[r] > capacity[r] * (1 + 1e-9) + 1e-9), "resource %u over", r);
	for (size_t i = 0; i < n; i++) {
		bool bound = isfinite(f[i].cap) && f[i].rate >= f[i].cap * (1 - 1e-9);

		for (unsigned u = 0; u < f[i].nuses && !bound; u++) {
			uint32_t r = f[i].uses[u].resource;

			bound = isfinite(capacity[r]) &&
				used[r] >= capacity[r] * (1 - 1e-9) &&
				f[i].rate >= fastest[r] * (1 - 1e-9);
		}
		cr_assert(bound || (isinf(f[i].rate) && !isfinite(f[i].cap)),
			  "flow %zu (%g) has no bottleneck", i, f[i].rate);
	}
	free(fastest);
	free(used);
}

static uint64_t lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 33;
}

/*
 * Random sets of flows over 40 resources (some unlimited, one of no
 * capacity, weights that do not add up exactly), solved one after
 * another in one workspace, a failed solve among them: each gives the
 * textbook loop's rates to the bit, whatever the solves before it saw,
 * and they are max-min fair by the definition (which holds the textbook
 * loop itself to account).
 */
Test(maxmin, workspace_solves_as_the_textbook_loop)
{
	enum { NRES = 40, NFLOWS = 60, USES = 5 };
	double cap[NRES];
	struct maxmin_use uses[NFLOWS][USES], bad = { NRES, 1 };
	struct maxmin_flow f[NFLOWS], ref[NFLOWS], wrong = { &bad, 1, INFINITY, 0 };
	struct maxmin_ws ws;
	uint64_t seed = 42;

	for (int r = 0; r < NRES; r++)
		cap[r] = r % 7 == 3 ? INFINITY : r == 11 ? 0 : 1e9 * (1 + lcg(&seed) % 1000) / 7;
	cr_assert_eq(maxmin_ws_init(&ws, NRES), 0);
	for (int trial = 0; trial < 200; trial++) {
		size_t n = 1 + lcg(&seed) % NFLOWS;

		for (size_t i = 0; i < n; i++) {
			f[i].nuses = (unsigned)(lcg(&seed) % (USES + 1));
			f[i].uses = uses[i];
			f[i].cap = lcg(&seed) % 4 ? INFINITY : 1e8 * (1 + lcg(&seed) % 100) / 3;
			f[i].rate = -1;
			for (unsigned u = 0; u < f[i].nuses; u++)
				uses[i][u] = (struct maxmin_use){
					(uint32_t)((trial % 3 ? 0 : 11) + lcg(&seed) % (NRES - 11)),
					(1 + lcg(&seed) % 30) / 10.0 };
		}
		memcpy(ref, f, n * sizeof(*f));
		textbook_solve(cap, NRES, ref, n);
		cr_assert_eq(maxmin_ws_solve(&ws, cap, f, n), 0);
		for (size_t i = 0; i < n; i++)
			cr_assert(f[i].rate == ref[i].rate || (isnan(f[i].rate) && isnan(ref[i].rate)),
				  "trial %d flow %zu: %a, textbook %a", trial, i, f[i].rate,
				  ref[i].rate);
		assert_max_min_fair(cap, NRES, f, n);
		if (trial % 17 == 0)
			cr_assert_eq(maxmin_ws_solve(&ws, cap, &wrong, 1), -EINVAL);
	}
	maxmin_ws_destroy(&ws);
}

/*
 * Solves of many levels, each resource filling at its own (distinct
 * capacities, many flows each): past MAXMIN_INDEX_AFTER rounds the
 * solver walks by index (its full resources' flows, its caps in order),
 * and must still give the textbook loop's rates to the bit, caps and
 * unlimited resources among them.
 */
Test(maxmin, many_levels_solve_as_the_textbook_loop)
{
	enum { NRES = 300, NFLOWS = 1500, USES = 4 };
	static double cap[NRES];
	static struct maxmin_use uses[NFLOWS][USES];
	static struct maxmin_flow f[NFLOWS], ref[NFLOWS];
	static double rates[NFLOWS];
	struct maxmin_ws ws;
	uint64_t seed = 2026;

	cr_assert_eq(maxmin_ws_init(&ws, NRES), 0);
	for (int trial = 0; trial < 12; trial++) {
		size_t n = NFLOWS / 2 + lcg(&seed) % (NFLOWS / 2), levels = 0;

		for (int r = 0; r < NRES; r++)
			cap[r] = r % 29 == 5 ? INFINITY : 1e9 * (1 + lcg(&seed) % 100000) / 13;
		for (size_t i = 0; i < n; i++) {
			f[i].nuses = 1 + (unsigned)(lcg(&seed) % USES);
			f[i].uses = uses[i];
			/* a third capped, some caps equal to others */
			f[i].cap = lcg(&seed) % 3 ? INFINITY : 1e7 * (1 + lcg(&seed) % 50);
			f[i].rate = -1;
			for (unsigned u = 0; u < f[i].nuses; u++)
				uses[i][u] = (struct maxmin_use){ (uint32_t)(lcg(&seed) % NRES),
								  (1 + lcg(&seed) % 30) / 10.0 };
		}
		memcpy(ref, f, n * sizeof(*f));
		textbook_solve(cap, NRES, ref, n);
		cr_assert_eq(maxmin_ws_solve(&ws, cap, f, n), 0);
		for (size_t i = 0; i < n; i++) {
			cr_assert(f[i].rate == ref[i].rate, "trial %d flow %zu: %a, textbook %a", trial,
				  i, f[i].rate, ref[i].rate);
			rates[i] = f[i].rate;
		}
		assert_max_min_fair(cap, NRES, f, n);
		/* a level a round: far past the rounds walked in full */
		sort_doubles(rates, n);
		for (size_t i = 0; i < n; i++)
			levels += !i || rates[i] != rates[i - 1];
		cr_assert_gt(levels, 50, "trial %d: %zu levels", trial, levels);
	}
	maxmin_ws_destroy(&ws);
}

/*
 * What the analytic backend's joined solves (model/analytic_joined.c)
 * rest on: max-min fairness splits over the sets of flows joined through
 * limited resources, so the flows joined to some wanted ones, solved
 * alone, get the rates the whole solve gives them, to rounding. The sets
 * here are found by a walk of this test's own; each trial has sparse
 * random flows over 60 resources, so it splits.
 */
Test(maxmin, flows_joined_to_some_solve_alone_as_in_the_whole)
{
	enum { NRES = 60, NFLOWS = 40, USES = 2 };
	double cap[NRES];
	struct maxmin_use uses[NFLOWS][USES];
	struct maxmin_flow f[NFLOWS], sub[NFLOWS];
	uint64_t seed = 7;
	unsigned split = 0;

	for (int r = 0; r < NRES; r++)
		cap[r] = r % 9 == 4 ? INFINITY : 1e9 * (1 + lcg(&seed) % 100);
	for (int trial = 0; trial < 300; trial++) {
		bool in[NFLOWS] = { false }, reached[NRES] = { false };
		size_t n = 2 + lcg(&seed) % (NFLOWS - 1), nsub = 0, grew = 1;

		for (size_t i = 0; i < n; i++) {
			f[i].nuses = (unsigned)(1 + lcg(&seed) % USES);
			f[i].uses = uses[i];
			f[i].cap = lcg(&seed) % 3 ? INFINITY : 1e8 * (1 + lcg(&seed) % 50);
			for (unsigned u = 0; u < f[i].nuses; u++)
				uses[i][u] = (struct maxmin_use){ (uint32_t)(lcg(&seed) % NRES),
								  (1 + lcg(&seed) % 20) / 10.0 };
		}
		/* the flows joined to flow 0, by limited resources */
		in[0] = true;
		while (grew) {
			grew = 0;
			for (size_t i = 0; i < n; i++)
				for (unsigned u = 0; u < f[i].nuses; u++) {
					uint32_t r = f[i].uses[u].resource;

					if (!isfinite(cap[r]))
						continue;
					if (in[i] && !reached[r])
						reached[r] = true, grew = 1;
					if (!in[i] && reached[r])
						in[i] = true, grew = 1;
				}
		}
		for (size_t i = 0; i < n; i++)
			if (in[i])
				sub[nsub++] = f[i];
		split += nsub < n;
		cr_assert_eq(maxmin_solve(cap, NRES, f, n), 0);
		cr_assert_eq(maxmin_solve(cap, NRES, sub, nsub), 0);
		for (size_t i = 0, k = 0; i < n; i++) {
			if (!in[i])
				continue;
			cr_assert(sub[k].rate == f[i].rate ||
					  fabs(sub[k].rate - f[i].rate) <= 1e-12 * f[i].rate,
				  "trial %d flow %zu: alone %a, whole %a", trial, i, sub[k].rate,
				  f[i].rate);
			k++;
		}
	}
	cr_assert(split > 100, "only %u of 300 trials split", split);
}
