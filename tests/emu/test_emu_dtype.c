/* SPDX-License-Identifier: MIT */
/* The emu data checks rest on this: small integers survive every dtype and
 * their sums are exact, so a result can be compared byte for byte. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>

#include "dtype.h"
#include "trace.h"

static const enum trace_dtype all[] = { TRACE_DTYPE_FP32, TRACE_DTYPE_FP16,
					TRACE_DTYPE_BF16, TRACE_DTYPE_FP64,
					TRACE_DTYPE_INT8 };

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
