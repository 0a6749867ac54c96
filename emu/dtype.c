/* SPDX-License-Identifier: MIT */
#include "dtype.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/*
 * The two 16-bit formats, by IEEE 754-2008 s3.6's parameters: w exponent
 * bits, t trailing significand bits. binary16 is s3.6's own; bfloat16 is
 * binary32 cut to its top half (Google's, as CUDA's __nv_bfloat16).
 */
#define HALF_W 5
#define HALF_T 10
#define BF16_W 8
#define BF16_T 7

/*
 * A double to a 16-bit format of @w and @t, rounded once to nearest, ties
 * to even (s4.3.1, the default of s4.3.3), whatever the double:
 *
 *   - below the normal range the result is subnormal, gradual underflow
 *     (s3.4 c), down to zero below half the smallest subnormal (a tie
 *     there goes to the even 0);
 *   - rounding may carry out of the significand: added, not or-ed, to the
 *     exponent field it steps to the next binade, or from the largest
 *     finite value to Inf, which is overflow as s7.4 rounds it;
 *   - Inf stays Inf and zeros keep their sign;
 *   - a NaN stays a NaN, quiet (s6.2.1), with its sign and the top bits
 *     of its payload that fit (s6.2.3 "should"), as x86 F16C and Arm do.
 *
 * From a double, not a float: dtype_set is given doubles, and going
 * through a float first would round twice (1 + 2^-11 + 2^-40 would tie
 * to 1 in fp16 after rounding to 1 + 2^-11 in fp32).
 */
static uint16_t narrow(double d, unsigned w, unsigned t)
{
	const unsigned emax = (1u << w) - 1; /* the exponent field of Inf, NaN */
	const int bias = (1 << (w - 1)) - 1;
	uint64_t u, m, rest, half;
	uint16_t sign;
	unsigned shift, base;
	int e;

	memcpy(&u, &d, sizeof(u));
	sign = (uint16_t)(u >> 63 << (w + t));
	e = (int)(u >> 52 & 0x7ff);
	m = u & ((UINT64_C(1) << 52) - 1);
	if (e == 0x7ff)
		return sign | (uint16_t)(emax << t) |
		       (m ? (uint16_t)(1u << (t - 1) | m >> (52 - t)) : 0);
	if (e == 0)
		return sign; /* zero, or a double subnormal: below 2^-1022 */
	m |= UINT64_C(1) << 52; /* |d| = m x 2^(e - 1075) */
	e = e - 1023 + bias;    /* the biased exponent in the narrow format */
	if (e >= (int)emax)
		return sign | (uint16_t)(emax << t);
	if (e > 0) {
		/* normal: the leading bit of what is kept adds the last 1 to
		 * the exponent field */
		shift = 52 - t;
		base = (unsigned)(e - 1) << t;
	} else {
		/* subnormal: exponent field 0, and one more bit dropped per
		 * binade below the normal range; past 53, m < 2^53 is under
		 * half the smallest subnormal and rounds to 0 */
		if (52 - (int)t + 1 - e > 53)
			return sign;
		shift = 52 - t + (unsigned)(1 - e);
		base = 0;
	}
	rest = m & ((UINT64_C(1) << shift) - 1);
	half = UINT64_C(1) << (shift - 1);
	m >>= shift;
	if (rest > half || (rest == half && (m & 1)))
		m++;
	return sign | (uint16_t)(base + m);
}

/*
 * A 16-bit pattern of @w and @t as a float, exactly: every value of both
 * formats is one of binary32's. A signalling NaN comes back quiet (s6.2.1)
 * with its payload, so that narrow() gives the same pattern, quietened.
 */
static float widen(uint16_t h, unsigned w, unsigned t)
{
	const unsigned emax = (1u << w) - 1;
	const int bias = (1 << (w - 1)) - 1;
	uint32_t sign = (uint32_t)(h >> (w + t)) << 31;
	unsigned e = h >> t & emax, m = h & ((1u << t) - 1);
	uint32_t u;
	float f;

	if (e == emax)
		u = sign | 0x7f800000 | (m ? 0x400000 | m << (23 - t) : 0);
	else if (e)
		u = sign | (uint32_t)((int)e - bias + 127) << 23 | m << (23 - t);
	else
		/* subnormal: m x 2^(1 - bias - t), a normal float here, or
		 * bf16's own subnormals, which are binary32's */
		return sign ? -ldexpf((float)m, 1 - bias - (int)t) :
			      ldexpf((float)m, 1 - bias - (int)t);
	memcpy(&f, &u, sizeof(f));
	return f;
}

static float half_to_float(uint16_t h)
{
	return widen(h, HALF_W, HALF_T);
}

static float bf16_to_float(uint16_t h)
{
	return widen(h, BF16_W, BF16_T);
}

double dtype_get(const void *buf, size_t i, enum trace_dtype t)
{
	switch (t) {
	case TRACE_DTYPE_FP32: {
		float f;

		memcpy(&f, (const char *)buf + 4 * i, 4);
		return f;
	}
	case TRACE_DTYPE_FP64: {
		double v;

		memcpy(&v, (const char *)buf + 8 * i, 8);
		return v;
	}
	case TRACE_DTYPE_BF16:
	case TRACE_DTYPE_FP16: {
		uint16_t h;

		memcpy(&h, (const char *)buf + 2 * i, 2);
		return t == TRACE_DTYPE_BF16 ? bf16_to_float(h) : half_to_float(h);
	}
	case TRACE_DTYPE_INT8:
		return ((const int8_t *)buf)[i];
	default:
		return NAN;
	}
}

void dtype_set(void *buf, size_t i, enum trace_dtype t, double v)
{
	switch (t) {
	case TRACE_DTYPE_FP32: {
		float f = (float)v;

		memcpy((char *)buf + 4 * i, &f, 4);
		break;
	}
	case TRACE_DTYPE_FP64:
		memcpy((char *)buf + 8 * i, &v, 8);
		break;
	case TRACE_DTYPE_BF16:
	case TRACE_DTYPE_FP16: {
		uint16_t h = t == TRACE_DTYPE_BF16 ? narrow(v, BF16_W, BF16_T) :
						     narrow(v, HALF_W, HALF_T);

		memcpy((char *)buf + 2 * i, &h, 2);
		break;
	}
	case TRACE_DTYPE_INT8:
		((int8_t *)buf)[i] = (int8_t)v;
		break;
	default:
		break;
	}
}

/*
 * The 16-bit sums: each pair added in double, then rounded once. The
 * double sum may itself be rounded (2^127 + 2^-133 in bf16), but rounding
 * to 53 bits and then to p bits equals rounding once to p bits when
 * 53 >= 2p + 2 (Figueroa, "When is double rounding innocuous?", SIGNUM
 * Newsletter 30(3), 1995): p is 11 for fp16, 8 for bf16.
 */
int dtype_sum(void *dst, const void *src, size_t count, enum trace_dtype t)
{
	if (t == TRACE_DTYPE_FP32) {
		float *a = dst;
		const float *b = src;

		/* the common case, kept a plain loop the compiler vectorises */
		for (size_t i = 0; i < count; i++)
			a[i] += b[i];
		return 0;
	}
	if (t == TRACE_DTYPE_BF16 || t == TRACE_DTYPE_FP16) {
		unsigned w = t == TRACE_DTYPE_BF16 ? BF16_W : HALF_W;
		unsigned tb = t == TRACE_DTYPE_BF16 ? BF16_T : HALF_T;
		uint16_t *a = dst;
		const uint16_t *b = src;

		for (size_t i = 0; i < count; i++)
			a[i] = narrow((double)widen(a[i], w, tb) + widen(b[i], w, tb),
				      w, tb);
		return 0;
	}
	if (t >= TRACE_DTYPE_COUNT)
		return -ENOTSUP;
	for (size_t i = 0; i < count; i++)
		dtype_set(dst, i, t, dtype_get(dst, i, t) + dtype_get(src, i, t));
	return 0;
}
