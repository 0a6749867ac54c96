/* SPDX-License-Identifier: MIT */
/* solve_cache.h's table of kept solves. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "solve_cache.h"
#include "splitmix.h"

int solve_cache_init(struct solve_cache *c)
{
	memset(c, 0, sizeof(*c));
	c->room = 64;
	c->table = malloc(c->room * sizeof(*c->table));
	if (!c->table)
		return -ENOMEM;
	for (size_t k = 0; k < c->room; k++)
		c->table[k] = UINT32_MAX;
	return 0;
}

void solve_cache_destroy(struct solve_cache *c)
{
	free(c->e);
	free(c->table);
	free(c->masks);
	free(c->rates);
	memset(c, 0, sizeof(*c));
}

uint64_t solve_cache_hash(uint32_t cls, uint32_t seg, const uint64_t *mask, size_t words)
{
	return splitmix_words(splitmix_in(cls, seg), mask, words);
}

const double *solve_cache_find(const struct solve_cache *c, uint32_t cls, uint32_t seg,
			       const uint64_t *mask, size_t words, uint64_t h)
{
	for (size_t k = h & (c->room - 1); c->table[k] != UINT32_MAX; k = (k + 1) & (c->room - 1)) {
		const struct solve_entry *e = &c->e[c->table[k]];

		if (e->hash == h && e->cls == cls && e->seg == seg &&
		    !memcmp(c->masks + e->mask, mask, words * sizeof(*mask)))
			return c->rates + e->rates;
	}
	return NULL;
}

/* Room for @need elements of @size bytes in *@p, which has *@room:
 * doubled from 64 (an arena: its entries are found by offset). */
static int grow(void **p, size_t need, size_t *room, size_t size)
{
	size_t r = *room ? *room : 64;
	void *q;

	if (need <= *room)
		return 0;
	while (r < need)
		r *= 2;
	q = realloc(*p, r * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	*room = r;
	return 0;
}

double *solve_cache_add(struct solve_cache *c, uint32_t cls, uint32_t seg, const uint64_t *mask,
			size_t words, uint64_t h, size_t n)
{
	size_t k;

	if (2 * (c->ne + 1) > c->room) {
		size_t room = 2 * c->room;
		uint32_t *table = malloc(room * sizeof(*table));

		if (!table)
			return NULL;
		for (k = 0; k < room; k++)
			table[k] = UINT32_MAX;
		for (size_t i = 0; i < c->ne; i++) {
			for (k = c->e[i].hash & (room - 1); table[k] != UINT32_MAX;
			     k = (k + 1) & (room - 1))
				;
			table[k] = (uint32_t)i;
		}
		free(c->table);
		c->table = table;
		c->room = room;
	}
	if (grow((void **)&c->e, c->ne + 1, &c->room_e, sizeof(*c->e)) ||
	    grow((void **)&c->masks, c->nmasks + words, &c->room_masks, sizeof(*c->masks)) ||
	    grow((void **)&c->rates, c->nrates + n, &c->room_rates, sizeof(*c->rates)))
		return NULL;
	c->e[c->ne] = (struct solve_entry){ cls, seg, c->nmasks, c->nrates, h };
	memcpy(c->masks + c->nmasks, mask, words * sizeof(*mask));
	c->nmasks += words;
	c->nrates += n;
	for (k = h & (c->room - 1); c->table[k] != UINT32_MAX; k = (k + 1) & (c->room - 1))
		;
	c->table[k] = (uint32_t)c->ne++;
	return c->rates + c->nrates - n;
}

