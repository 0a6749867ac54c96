/* SPDX-License-Identifier: MIT */
/*
 * dtype: element conversions and sums on the host, for the host memory ops
 * and the data checks. fp16 (IEEE 754 binary16) and bf16 are converted as
 * IEEE 754-2008 says: rounded once to nearest, ties to even, subnormals
 * kept, overflow to Inf, NaNs quiet; back to a double exactly. A 16-bit
 * sum is rounded once per addition, so sums of arbitrary values depend on
 * their order; the checks use small integers, which every type holds
 * exactly (bf16 up to 256, fp16 up to 2048, int8 to 127), so their sums
 * are exact whatever the order.
 */
#ifndef GDRLAB_EMU_DTYPE_H
#define GDRLAB_EMU_DTYPE_H

#include <stddef.h>

#include "trace.h"

double dtype_get(const void *buf, size_t i, enum trace_dtype t);
void dtype_set(void *buf, size_t i, enum trace_dtype t, double v);
/* dst[i] += src[i]; -ENOTSUP for an unknown dtype. */
int dtype_sum(void *dst, const void *src, size_t count, enum trace_dtype t);

#endif
