/* SPDX-License-Identifier: MIT */
/*
 * Solves kept (analytic_twin_tau.c): the rates of a twin set's solve, by
 * the set's class, the segment and the connections joined (a mask of the
 * set's, in words), in the set's order. Two sets of a class that join the
 * same connections make the same solve to the bit, so a later one takes
 * the kept rates. Open addressing over a table twice the entries, the
 * masks and rates in arenas of their own.
 */
#ifndef GDRLAB_SOLVE_CACHE_H
#define GDRLAB_SOLVE_CACHE_H

#include <stddef.h>
#include <stdint.h>

struct solve_entry {
	uint32_t cls, seg;
	size_t mask, rates; /* offsets into the arenas */
	uint64_t hash;
};

struct solve_cache {
	struct solve_entry *e;
	size_t ne, room_e;
	uint32_t *table; /* room: entries by hash, UINT32_MAX empty */
	size_t room;
	uint64_t *masks;
	size_t nmasks, room_masks;
	double *rates;
	size_t nrates, room_rates;
};

/* 0 or -ENOMEM; solve_cache_destroy in either case. */
int solve_cache_init(struct solve_cache *c);
void solve_cache_destroy(struct solve_cache *c);
uint64_t solve_cache_hash(uint32_t cls, uint32_t seg, const uint64_t *mask, size_t words);
/* The kept rates of @cls, @seg and @mask (hash @h), or NULL. */
const double *solve_cache_find(const struct solve_cache *c, uint32_t cls, uint32_t seg,
			       const uint64_t *mask, size_t words, uint64_t h);
/* Room for the @n rates of @cls, @seg and @mask, kept; where they go
 * (valid until the next add), or NULL on -ENOMEM. */
double *solve_cache_add(struct solve_cache *c, uint32_t cls, uint32_t seg, const uint64_t *mask,
			size_t words, uint64_t h, size_t n);

#endif
