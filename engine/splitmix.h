/* SPDX-License-Identifier: MIT */
/*
 * splitmix64's finaliser (Steele, Lea, Flood, "Fast splittable
 * pseudorandom number generators", OOPSLA 2014): every input bit moves
 * every output bit, so keys that differ in a few bits (neighbouring
 * flows, masks of a set's connections) spread over a table indexed by
 * the low bits.
 */
#ifndef GDRLAB_SPLITMIX_H
#define GDRLAB_SPLITMIX_H

#include <stddef.h>
#include <stdint.h>

static inline uint64_t splitmix(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* @h with @v folded in. */
static inline uint64_t splitmix_in(uint64_t h, uint64_t v)
{
	return splitmix(h ^ v);
}

/* @h with the @n words at @w folded in, in order (a mask of a set's
 * connections: the twins' tables, the kept tau solves'). */
static inline uint64_t splitmix_words(uint64_t h, const uint64_t *w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = splitmix_in(h, w[i]);
	return h;
}

#endif
