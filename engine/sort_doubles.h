/* SPDX-License-Identifier: MIT */
/* Doubles in ascending order: medians and bests of measurements. */
#ifndef GDRLAB_SORT_DOUBLES_H
#define GDRLAB_SORT_DOUBLES_H

#include <stddef.h>
#include <stdlib.h>

static inline int sort_doubles_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static inline void sort_doubles(double *v, size_t n)
{
	if (n)
		qsort(v, n, sizeof(*v), sort_doubles_cmp);
}

#endif
