/* SPDX-License-Identifier: MIT */
/* Unsigned integers in ascending order: ranks, flow and clock positions
 * (uint32_t, which is unsigned int on every target gdrlab builds for). */
#ifndef GDRLAB_SORT_UNSIGNED_H
#define GDRLAB_SORT_UNSIGNED_H

#include <stddef.h>
#include <stdlib.h>

static inline int sort_unsigned_cmp(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return (x > y) - (x < y);
}

static inline void sort_unsigned(unsigned *v, size_t n)
{
	if (n)
		qsort(v, n, sizeof(*v), sort_unsigned_cmp);
}

#endif
