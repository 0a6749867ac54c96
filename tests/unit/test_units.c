/* SPDX-License-Identifier: MIT */
/*
 * units: every expected value below is worked out by hand from the unit's
 * definition (decimal prefixes are powers of 1000, binary of 1024, a
 * lower-case b is a bit), not by calling the code under test.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>

#include "units.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static int near(double a, double b)
{
	return fabs(a - b) <= 1e-12 * fabs(b);
}

struct good {
	const char *s;
	double want;
};

Test(units, bandwidth_accepted)
{
	static const struct good cases[] = {
		{ "200 Gbit/s", 25e9 },		/* 200e9 / 8 */
		{ "200Gbit/s", 25e9 },		/* the space is optional */
		{ "200 Gb/s", 25e9 },
		{ "200 Gbps", 25e9 },
		{ "100 Mbps", 12.5e6 },
		{ "800 Mb/s", 100e6 },
		{ "1 Tbit/s", 125e9 },
		{ "1 Tb/s", 125e9 },
		{ "8 kbit/s", 1000 },
		{ "8 kb/s", 1000 },
		{ "8 bit/s", 1 },
		{ "24 GB/s", 24e9 },
		{ "0.5 TB/s", 500e9 },
		{ "3 MB/s", 3e6 },
		{ "2 kB/s", 2000 },
		{ "2 KB/s", 2000 },
		{ "7 B/s", 7 },
		{ "1 KiB/s", 1024 },
		{ "1 MiB/s", 1048576 },
		{ "2 GiB/s", 2147483648.0 },
		{ "1.5e3 MB/s", 1.5e9 },
		{ "31.5 GB/s", 31.5e9 },
	};
	const char *why;
	double v;
	size_t i;

	for (i = 0; i < N(cases); i++) {
		v = -1;
		cr_assert_eq(units_parse_bandwidth(cases[i].s, &v, &why), 0,
			     "'%s' rejected: %s", cases[i].s, why);
		cr_assert(near(v, cases[i].want), "'%s' gave %g, want %g",
			  cases[i].s, v, cases[i].want);
	}
}

Test(units, bandwidth_rejected)
{
	static const char *const bad[] = {
		"24",		/* a bare number: GB/s or Gbit/s? */
		"24 GHz",	"24 gb/s",	"24 GBps",	"GB/s",
		"",		"-24 GB/s",	"0 GB/s",	"-0 GB/s",
		"0.0 Gbit/s",	"nan GB/s",	"inf GB/s",	"NaN",
		"24 GB/s x",	"24 GB/s ",	" 24 GB/s",	"24  GB/s",
		"0x10 GB/s",	"1e999 GB/s",	"24 GB",	"24 Gbit",
		"24 us",	"1.2.3 GB/s",	"+ GB/s",	".GB/s",
	};
	const char *why;
	double v = 42;
	size_t i;

	for (i = 0; i < N(bad); i++) {
		why = NULL;
		cr_assert_eq(units_parse_bandwidth(bad[i], &v, &why), -EINVAL,
			     "'%s' accepted as %g", bad[i], v);
		cr_assert(why && *why, "no reason given for '%s'", bad[i]);
	}
	cr_assert_eq(v, 42, "output written on failure");
	cr_assert_eq(units_parse_bandwidth(NULL, &v, &why), -EINVAL);
}

Test(units, bandwidth_reasons)
{
	const char *why;
	double v;

	units_parse_bandwidth("24 GHz", &v, &why);
	cr_assert_str_eq(why,
			 "expected a bandwidth like '24 GB/s' or '200 Gbit/s'");
	units_parse_bandwidth("-3 GB/s", &v, &why);
	cr_assert_str_eq(why, "must be greater than zero");
	units_parse_bandwidth("0 GB/s", &v, &why);
	cr_assert_str_eq(why, "must be greater than zero");
}

Test(units, time_accepted)
{
	static const struct good cases[] = {
		{ "0.5 us", 5e-7 },
		{ "0.5us", 5e-7 },
		{ "1 \xc2\xb5s", 1e-6 },	/* U+00B5 micro sign */
		{ "2\xce\xbcs", 2e-6 },		/* U+03BC greek mu */
		{ "500 ns", 5e-7 },
		{ "2 ms", 2e-3 },
		{ "3 s", 3 },
		{ "1.25 ms", 1.25e-3 },
		{ "1e3 ns", 1e-6 },
	};
	const char *why;
	double v;
	size_t i;

	for (i = 0; i < N(cases); i++) {
		cr_assert_eq(units_parse_time(cases[i].s, &v, &why), 0,
			     "'%s' rejected: %s", cases[i].s, why);
		cr_assert(near(v, cases[i].want), "'%s' gave %g, want %g",
			  cases[i].s, v, cases[i].want);
	}
}

Test(units, time_rejected)
{
	static const char *const bad[] = {
		"5",	"0 us",	"-1 us",	"5 min",	"5 sec",
		"nan s",	"inf s",	"5 us!",	"us",	"5 US",
		"5 Ms",	"",
	};
	const char *why;
	double v;
	size_t i;

	for (i = 0; i < N(bad); i++)
		cr_assert_eq(units_parse_time(bad[i], &v, &why), -EINVAL,
			     "'%s' accepted as %g", bad[i], v);
	units_parse_time("0 us", &v, &why);
	cr_assert_str_eq(why, "must be greater than zero");
}

Test(units, size_accepted)
{
	static const struct {
		const char *s;
		uint64_t want;
	} cases[] = {
		{ "1 MiB", 1048576 },
		{ "1MiB", 1048576 },
		{ "4096 B", 4096 },
		{ "1.5 KiB", 1536 },
		{ "512 KiB", 524288 },
		{ "2 kB", 2000 },
		{ "2 KB", 2000 },
		{ "25 MB", 25000000 },
		{ "1 GB", 1000000000 },
		{ "1 TB", 1000000000000ULL },
		{ "4 GiB", 4294967296ULL },
		{ "1 TiB", 1099511627776ULL },
	};
	const char *why;
	uint64_t v;
	size_t i;

	for (i = 0; i < N(cases); i++) {
		cr_assert_eq(units_parse_size(cases[i].s, &v, &why), 0,
			     "'%s' rejected: %s", cases[i].s, why);
		cr_assert_eq(v, cases[i].want, "'%s' gave %llu", cases[i].s,
			     (unsigned long long)v);
	}
}

Test(units, size_rejected)
{
	static const char *const bad[] = {
		"1",		"0 B",		"-1 KiB",	"1.5 B",
		"1 MiB/s",	"1 mib",	"1 Mi",		"1 kiB",
		"20000000 TB",	/* 2e19 bytes: over 2^64 */
		"nan B",	"1 MiB extra",	"",
	};
	const char *why;
	uint64_t v;
	size_t i;

	for (i = 0; i < N(bad); i++)
		cr_assert_eq(units_parse_size(bad[i], &v, &why), -EINVAL,
			     "'%s' accepted as %llu", bad[i],
			     (unsigned long long)v);
	units_parse_size("1.5 B", &v, &why);
	cr_assert_str_eq(why, "must be a whole number of bytes");
}

Test(units, fraction)
{
	static const struct good cases[] = {
		{ "0.95", 0.95 }, { "1", 1 },	   { "95%", 0.95 },
		{ "100%", 1 },	  { "0.5 %", 0.005 }, { "1e-1", 0.1 },
	};
	static const char *const bad[] = {
		"0",	"1.2",	"120%",	"0%",	"-0.5",	"abc",
		"95 percent",	"",	"nan",	"0.9 GB/s",
	};
	const char *why;
	double v;
	size_t i;

	for (i = 0; i < N(cases); i++) {
		cr_assert_eq(units_parse_fraction(cases[i].s, &v, &why), 0,
			     "'%s' rejected: %s", cases[i].s, why);
		cr_assert(near(v, cases[i].want), "'%s' gave %g", cases[i].s,
			  v);
	}
	for (i = 0; i < N(bad); i++)
		cr_assert_eq(units_parse_fraction(bad[i], &v, &why), -EINVAL,
			     "'%s' accepted as %g", bad[i], v);
}

/*
 * Per lane, per direction: GT/s x encoding / 8 bits. gen1: 2.5 x 8/10 / 8 =
 * 0.25 GB/s; gen3: 8 x 128/130 / 8 = 0.984615... GB/s; gen4 and gen5
 * double it. gen6 is flit mode: 64 x 242/256 / 8 = 7.5625 GB/s.
 */
Test(units, pcie_lane_rate)
{
	static const double want[] = {
		0, 0.25e9, 0.5e9, 0.984615385e9, 1.969230769e9, 3.938461538e9,
		7.5625e9,
	};
	double v;
	unsigned g;

	for (g = 1; g <= 6; g++) {
		cr_assert_eq(units_pcie_lane_rate(g, &v), 0);
		cr_assert(fabs(v - want[g]) < 1, "gen%u gave %.1f", g, v);
	}
	/* The rounded figures people quote: 0.9846, 1.969, 3.938; gen6's
	 * flit mode 242 of 256 bytes: 7.5625. */
	units_pcie_lane_rate(4, &v);
	cr_assert(fabs(v * 16 - 31.5e9) < 0.01e9, "gen4 x16 is 31.5 GB/s");
	cr_assert_eq(units_pcie_lane_rate(0, &v), -EINVAL);
	cr_assert_eq(units_pcie_lane_rate(7, &v), -EINVAL);
	cr_assert_eq(units_pcie_lane_rate(1000, &v), -EINVAL);
}
