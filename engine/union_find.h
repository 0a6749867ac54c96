/* SPDX-License-Identifier: MIT */
/*
 * union_find: sets joined by pairs, over the indices 0 .. n - 1 of an
 * array @up the caller owns and starts with up[i] = i. A set's root is
 * its lowest index. (model/simgrid_sym.c keeps a 32-bit one of its own.)
 */
#ifndef GDRLAB_UNION_FIND_H
#define GDRLAB_UNION_FIND_H

#include <stddef.h>

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

#endif
