/* SPDX-License-Identifier: MIT */
#include "dtype.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* bf16 is the top half of an fp32: exact for the small integers used. */
static float bf16_to_float(uint16_t h)
{
	uint32_t u = (uint32_t)h << 16;
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

static uint16_t float_to_bf16(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	u += 0x7fff + ((u >> 16) & 1); /* round to nearest even */
	return (uint16_t)(u >> 16);
}

/* IEEE half, normal numbers and zero only: enough for small integers. */
static float half_to_float(uint16_t h)
{
	int e = (h >> 10) & 0x1f;
	float m = (float)(h & 0x3ff);
	float v = e ? ldexpf(1.0f + m / 1024.0f, e - 15) : ldexpf(m / 1024.0f, -14);

	return h & 0x8000 ? -v : v;
}

static uint16_t float_to_half(float f)
{
	uint16_t sign = signbit(f) ? 0x8000 : 0;
	int e;
	float m;

	f = fabsf(f);
	if (f == 0.0f)
		return sign;
	m = frexpf(f, &e); /* f = m * 2^e, m in [0.5, 1) */
	e += 14;
	if (e <= 0)
		return sign; /* below the normal range: flushed */
	if (e >= 31)
		return sign | 0x7c00;
	return sign | (uint16_t)(e << 10) |
	       (uint16_t)lrintf((m * 2.0f - 1.0f) * 1024.0f);
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
		uint16_t h = t == TRACE_DTYPE_BF16 ? float_to_bf16((float)v) :
						     float_to_half((float)v);

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
	if (t == TRACE_DTYPE_BF16) {
		uint16_t *a = dst;
		const uint16_t *b = src;

		for (size_t i = 0; i < count; i++)
			a[i] = float_to_bf16(bf16_to_float(a[i]) + bf16_to_float(b[i]));
		return 0;
	}
	if (t >= TRACE_DTYPE_COUNT)
		return -ENOTSUP;
	for (size_t i = 0; i < count; i++)
		dtype_set(dst, i, t, dtype_get(dst, i, t) + dtype_get(src, i, t));
	return 0;
}
