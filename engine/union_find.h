/* SPDX-License-Identifier: MIT */
/*
 * union_find: sets joined by pairs, over the indices 0 .. n - 1 of an
 * array @up the caller owns and starts with up[i] = i. A set's root is
 * its lowest index. The uf32_ pair does the same over 32-bit indices, half
 * the memory where there are millions (a 4096-node call's connections).
 */
#ifndef GDRLAB_UNION_FIND_H
#define GDRLAB_UNION_FIND_H

#include <stddef.h>
#include <stdint.h>

/* The root of @a's set, halving the path to it. */
static inline size_t uf_root(size_t *up, size_t a)
{
	while (up[a] != a)
		a = up[a] = up[up[a]];
	return a;
}

/* One set of @a's and @b's. */
static inline void uf_join(size_t *up, size_t a, size_t b)
{
	a = uf_root(up, a);
	b = uf_root(up, b);
	if (a < b)
		up[b] = a;
	else if (b < a)
		up[a] = b;
}

static inline uint32_t uf32_root(uint32_t *up, uint32_t a)
{
	while (up[a] != a)
		a = up[a] = up[up[a]];
	return a;
}

static inline void uf32_join(uint32_t *up, uint32_t a, uint32_t b)
{
	a = uf32_root(up, a);
	b = uf32_root(up, b);
	if (a < b)
		up[b] = a;
	else if (b < a)
		up[a] = b;
}

#endif
