/* SPDX-License-Identifier: MIT */
/*
 * emu/dtype.c, on which the emu data checks and the host reductions rest:
 *
 *   - fp32 to fp16 and bf16 bit for bit against tests/data/dtype/
 *     half-ref.txt, which gen-half-ref.py writes from Python's own
 *     binary16 packing and checks in exact rationals (not from this code);
 *   - every fp16 and bf16 pattern to a double exactly, by the formula of
 *     IEEE 754-2008 s3.4, and back to the same pattern;
 *   - sums of non-integer values rounded once, worked by hand below;
 *   - small integers survive every dtype and sum exactly, as the data
 *     checks need to compare results byte for byte.
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dtype.h"
#include "trace.h"

#define HALF_REF GDRLAB_SOURCE_DIR "/tests/data/dtype/half-ref.txt"

static const enum trace_dtype all[] = { TRACE_DTYPE_FP32, TRACE_DTYPE_FP16,
					TRACE_DTYPE_BF16, TRACE_DTYPE_FP64,
					TRACE_DTYPE_INT8 };

static uint16_t set16(enum trace_dtype t, double v)
{
	uint16_t h;

	dtype_set(&h, 0, t, v);
	return h;
}

static double get16(enum trace_dtype t, uint16_t h)
{
	return dtype_get(&h, 0, t);
}

static float float_of(uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

static uint32_t bits_of(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

/* Count a mismatch, and show the first few of them. */
static void mismatch(unsigned *bad, unsigned line, const char *what,
		     int width, uint32_t in, uint32_t got, uint32_t want,
		     const char *tag)
{
	if (++*bad <= 20)
		cr_log_error("half-ref.txt:%u: %s of %0*x (%s): %0*x, want %0*x",
			     line, what, width == 4 ? 8 : 4, in, tag, width, got,
			     width, want);
}

Test(emu_dtype, fp32_to_half_and_bf16_match_the_reference)
{
	FILE *f = fopen(HALF_REF, "r");
	unsigned line = 0, n = 0, bad = 0;
	char buf[256], tag[64];

	cr_assert(f, "cannot open %s", HALF_REF);
	while (fgets(buf, sizeof(buf), f)) {
		unsigned in, half, bf16, back;
		uint32_t got;
		float x;

		line++;
		if (buf[0] == '#')
			continue;
		cr_assert_eq(sscanf(buf, "%x %x %x %x %63s", &in, &half, &bf16,
				    &back, tag), 5, "half-ref.txt:%u: '%s'", line, buf);
		x = float_of(in);
		n++;
		got = set16(TRACE_DTYPE_FP16, x);
		if (got != half)
			mismatch(&bad, line, "fp16", 4, in, got, half, tag);
		got = set16(TRACE_DTYPE_BF16, x);
		if (got != bf16)
			mismatch(&bad, line, "bf16", 4, in, got, bf16, tag);
		/* and the fp16 result back, exactly (NaNs with their payload) */
		got = bits_of((float)get16(TRACE_DTYPE_FP16, (uint16_t)half));
		if (got != back)
			mismatch(&bad, line, "fp16 back to fp32", 8, half, got, back, tag);
	}
	fclose(f);
	cr_assert_geq(n, 2000, "only %u values in %s", n, HALF_REF);
	cr_assert_eq(bad, 0, "%u of %u conversions differ from %s", bad, n, HALF_REF);
}

/*
 * dtype_set takes doubles: a signalling NaN there (its quiet bit 51 clear,
 * which no float-to-double conversion would leave) must still give a quiet
 * NaN, never Inf, with the sign and the payload's top bits (s6.2.1,
 * s6.2.3): 0x7ff0000000000001 has only a low payload bit, which neither
 * format keeps; 0xfff4000000000000 has bit 50, the format's second bit.
 */
Test(emu_dtype, signalling_nans_from_double_stay_nan)
{
	static const struct {
		uint64_t in;
		uint16_t half, bf16;
	} c[] = {
		{ UINT64_C(0x7ff0000000000001), 0x7e00, 0x7fc0 },
		{ UINT64_C(0xfff4000000000000), 0xff00, 0xffe0 },
		{ UINT64_C(0x7ff8000000000000), 0x7e00, 0x7fc0 },
		{ UINT64_C(0x7ff0000000000000), 0x7c00, 0x7f80 }, /* Inf */
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		double d;

		memcpy(&d, &c[i].in, sizeof(d));
		cr_expect_eq(set16(TRACE_DTYPE_FP16, d), c[i].half, "%016llx: fp16 %04x",
			     (unsigned long long)c[i].in, set16(TRACE_DTYPE_FP16, d));
		cr_expect_eq(set16(TRACE_DTYPE_BF16, d), c[i].bf16, "%016llx: bf16 %04x",
			     (unsigned long long)c[i].in, set16(TRACE_DTYPE_BF16, d));
	}
}

/*
 * The value of a binary16 (w = 5, t = 10) or bfloat16 (w = 8, t = 7)
 * pattern by IEEE 754-2008 s3.4: (-1)^s x 2^(e - bias) x (1 + m / 2^t),
 * subnormals 2^(1 - bias) x (m / 2^t); ldexp of an integer is exact.
 * NaN for a NaN, whose sign is checked apart.
 */
static double value_of(uint16_t h, int w, int t)
{
	int bias = (1 << (w - 1)) - 1, e = (h >> t) & ((1 << w) - 1);
	int m = h & ((1 << t) - 1);
	double v;

	if (e == (1 << w) - 1)
		v = m ? NAN : INFINITY;
	else if (e)
		v = ldexp((1 << t) + m, e - bias - t);
	else
		v = ldexp(m, 1 - bias - t);
	return h & 0x8000 ? -v : v;
}

/* Every pattern of @t to a double and back: exact, a signalling NaN
 * quietened (@quiet, the quiet bit) and nothing else changed. */
static void every_pattern(enum trace_dtype t, int w, int tbits, uint16_t quiet)
{
	for (uint32_t i = 0; i <= 0xffff; i++) {
		uint16_t h = (uint16_t)i, back;
		double v = get16(t, h), want = value_of(h, w, tbits);

		if (isnan(want)) {
			cr_assert(isnan(v), "%s %04x: %g, not NaN",
				  trace_dtype_name(t), h, v);
		} else {
			cr_assert(v == want, "%s %04x: %a, want %a",
				  trace_dtype_name(t), h, v, want);
		}
		cr_assert_eq(!!signbit(v), !!(h & 0x8000), "%s %04x: sign",
			     trace_dtype_name(t), h);
		back = set16(t, v);
		cr_assert_eq(back, isnan(want) ? (h | quiet) : h,
			     "%s %04x: back as %04x", trace_dtype_name(t), h, back);
	}
}

Test(emu_dtype, every_half_pattern_is_exact_and_round_trips)
{
	every_pattern(TRACE_DTYPE_FP16, 5, 10, 0x0200);
}

Test(emu_dtype, every_bf16_pattern_is_exact_and_round_trips)
{
	every_pattern(TRACE_DTYPE_BF16, 8, 7, 0x0040);
}

struct sum_case {
	uint16_t a, b, want;
	const char *why;
};

/*
 * fp16: 11 significant bits, so the unit in the last place of [1, 2) is
 * 2^-10, of [0.25, 0.5) 2^-12, of [2048, 4096) 2, of [32768, 65504] 32.
 * Each sum is exact in a double, then rounded once to nearest, ties to
 * the even significand (IEEE 754-2008 s4.3.1); the patterns as s3.4.
 */
static const struct sum_case fp16_sums[] = {
	{ 0x3c00, 0x1000, 0x3c00,
	  "1 + 2^-11: halfway between 1 and 1 + 2^-10, to even 1" },
	{ 0x3c00, 0x1600, 0x3c02,
	  "1 + 3 x 2^-11: halfway between 1 + 2^-10 (odd) and 1 + 2^-9" },
	{ 0x3c00, 0x1001, 0x3c01,
	  "1 + 2^-11 + 2^-21: past halfway, up to 1 + 2^-10" },
	{ 0x3c00, 0x8c00, 0x3c00,
	  "1 - 2^-12: halfway between 1 - 2^-11 (odd, 0x3bff) and 1" },
	{ 0x2e66, 0x3266, 0x34cc,
	  "0.0999755859375 + 0.199951171875 = 1228.5 x 2^-12: to even 1228" },
	{ 0x6800, 0x3c00, 0x6800, "2048 + 1: halfway between 2048 and 2050" },
	{ 0x6800, 0x4200, 0x6802, "2048 + 3: halfway between 2050 (odd) and 2052" },
	{ 0x7bff, 0x4800, 0x7bff, "65504 + 8: short of halfway to 2^16" },
	{ 0x7bff, 0x4c00, 0x7c00,
	  "65504 + 16 = 65520: halfway to 2^16, whose even side is Inf (s7.4)" },
	{ 0x0001, 0x0001, 0x0002, "2^-24 + 2^-24: subnormal, exact" },
	{ 0x03ff, 0x0001, 0x0400,
	  "largest subnormal + 2^-24: the smallest normal 2^-14" },
	{ 0x0001, 0x8001, 0x0000, "x + -x: +0 when rounding to nearest (s6.3)" },
	{ 0x8000, 0x8000, 0x8000, "-0 + -0: -0 (s6.3)" },
	{ 0x7c00, 0x3c00, 0x7c00, "Inf + 1: Inf" },
};

/* bf16: 8 significant bits, so the ulp of [1, 2) is 2^-7, of [256, 512) 2,
 * of the top binade 2^120; fp32's exponent range and subnormals. */
static const struct sum_case bf16_sums[] = {
	{ 0x3f80, 0x3b80, 0x3f80,
	  "1 + 2^-8: halfway between 1 and 1 + 2^-7, to even 1" },
	{ 0x3f80, 0x3c40, 0x3f82,
	  "1 + 3 x 2^-8: halfway between 1 + 2^-7 (odd) and 1 + 2^-6" },
	{ 0x3f80, 0xbb00, 0x3f80,
	  "1 - 2^-9: halfway between 1 - 2^-8 (odd, 0x3f7f) and 1" },
	{ 0x3dcd, 0x3e4d, 0x3e9a,
	  "0.10009765625 + 0.2001953125 = 153.75 x 2^-9: up to 154 x 2^-9" },
	{ 0x4380, 0x3f80, 0x4380, "256 + 1: halfway between 256 and 258" },
	{ 0x4380, 0x4040, 0x4382, "256 + 3: halfway between 258 (odd) and 260" },
	{ 0x7f7f, 0x7a80, 0x7f7f,
	  "largest + 2^118: a quarter ulp, stays" },
	{ 0x7f7f, 0x7b00, 0x7f80,
	  "largest + 2^119: halfway to 2^128, whose even side is Inf" },
	{ 0x0001, 0x0001, 0x0002, "2^-133 + 2^-133: subnormal, exact" },
	{ 0x007f, 0x0001, 0x0080, "largest subnormal + 2^-133: 2^-126" },
	{ 0x0001, 0x8001, 0x0000, "x + -x: +0" },
};

static void sums(enum trace_dtype t, const struct sum_case *c, size_t n)
{
	uint16_t a[16], b[16];

	cr_assert_leq(n, 16);
	for (size_t i = 0; i < n; i++) {
		a[i] = c[i].a;
		b[i] = c[i].b;
	}
	cr_assert_eq(dtype_sum(a, b, n, t), 0);
	for (size_t i = 0; i < n; i++)
		cr_expect_eq(a[i], c[i].want, "%s %04x + %04x = %04x, want %04x: %s",
			     trace_dtype_name(t), c[i].a, c[i].b, a[i], c[i].want,
			     c[i].why);
}

Test(emu_dtype, sums_round_once_to_nearest_even)
{
	uint16_t a[2] = { 0x7c00, 0x7e00 }, b[2] = { 0xfc00, 0x3c00 };

	sums(TRACE_DTYPE_FP16, fp16_sums, sizeof(fp16_sums) / sizeof(fp16_sums[0]));
	sums(TRACE_DTYPE_BF16, bf16_sums, sizeof(bf16_sums) / sizeof(bf16_sums[0]));
	/* Inf + -Inf is invalid, a quiet NaN (s7.2); NaN + 1 stays NaN */
	cr_assert_eq(dtype_sum(a, b, 2, TRACE_DTYPE_FP16), 0);
	cr_assert(isnan(get16(TRACE_DTYPE_FP16, a[0])), "Inf + -Inf: %04x", a[0]);
	cr_assert(isnan(get16(TRACE_DTYPE_FP16, a[1])), "NaN + 1: %04x", a[1]);
	a[0] = 0x7fc1;
	b[0] = 0x3f80;
	cr_assert_eq(dtype_sum(a, b, 1, TRACE_DTYPE_BF16), 0);
	cr_assert(isnan(get16(TRACE_DTYPE_BF16, a[0])), "bf16 NaN + 1: %04x", a[0]);
}

Test(emu_dtype, small_integers_round_trip)
{
	uint8_t buf[8 * 300];

	for (size_t k = 0; k < sizeof(all) / sizeof(all[0]); k++) {
		int lim = all[k] == TRACE_DTYPE_INT8 ? 127 : 256;

		for (int v = -lim; v <= lim; v++) {
			dtype_set(buf, 3, all[k], v);
			cr_assert_eq(dtype_get(buf, 3, all[k]), (double)v, "%s %d",
				     trace_dtype_name(all[k]), v);
		}
	}
}

Test(emu_dtype, sums_are_exact)
{
	uint8_t a[8 * 64], b[8 * 64];

	for (size_t k = 0; k < sizeof(all) / sizeof(all[0]); k++) {
		for (int i = 0; i < 64; i++) {
			dtype_set(a, i, all[k], (i % 17) - 8);
			dtype_set(b, i, all[k], 8 - (i % 13));
		}
		for (int rep = 0; rep < 7; rep++)
			cr_assert_eq(dtype_sum(a, b, 64, all[k]), 0);
		for (int i = 0; i < 64; i++)
			cr_assert_eq(dtype_get(a, i, all[k]),
				     (double)((i % 17) - 8 + 7 * (8 - (i % 13))),
				     "%s element %d", trace_dtype_name(all[k]), i);
	}
	cr_assert_eq(dtype_sum(a, b, 1, TRACE_DTYPE_COUNT), -ENOTSUP);
}
