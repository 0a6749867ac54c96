/* SPDX-License-Identifier: MIT */
/* A growable array's one rule, shared by the builders and readers. */
#ifndef GDRLAB_ARRAY_GROW_H
#define GDRLAB_ARRAY_GROW_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

/*
 * Room for one more element in *@arr, which holds @n of *@cap elements of
 * @size bytes: the capacity doubles (from 16) when full. 0, or -ENOMEM
 * with *@arr untouched.
 */
static inline int array_grow(void **arr, size_t n, size_t *cap, size_t size)
{
	size_t nc;
	void *p;

	if (n < *cap)
		return 0;
	nc = *cap ? 2 * *cap : 16;
	if (nc > SIZE_MAX / size)
		return -ENOMEM;
	p = realloc(*arr, nc * size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = nc;
	return 0;
}

#endif
