/* SPDX-License-Identifier: MIT */
/* Max-min fair sharing against allocations worked out by hand. */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>

#include "maxmin.h"

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
