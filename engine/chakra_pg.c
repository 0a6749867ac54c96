/* SPDX-License-Identifier: MIT */
/* A Chakra trace's process groups (chakra_pg.h). */
#include "chakra_pg.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "array_grow.h"

#define GROUP_MAX 65536 /* ranks in a group, as the trace reads them */

static int bad(char *why, size_t n, const char *what)
{
	snprintf(why, n, "the process groups are not the list PyTorch writes: %s", what);
	return -EINVAL;
}

/*
 * Python's str() of a one-string list, ['...'] (or ["..."] when the text
 * holds a '), into the string: str() escapes only backslashes and the
 * quote in text that json.dumps wrote. NULL when @s is not one.
 */
static char *python_string(const char *s)
{
	size_t len = strlen(s), j = 0;
	char q, *out;

	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	if (len < 4 || s[0] != '[' || (s[1] != '\'' && s[1] != '"') || s[len - 1] != ']' ||
	    s[len - 2] != s[1])
		return NULL;
	q = s[1];
	out = malloc(len);
	if (!out)
		return NULL;
	for (size_t i = 2; i < len - 2; i++) {
		if (s[i] == q)
			goto no;
		if (s[i] == '\\') {
			if (s[i + 1] != '\\' && s[i + 1] != q)
				goto no;
			i++;
		}
		out[j++] = s[i];
	}
	out[j] = '\0';
	return out;
no:
	free(out);
	return NULL;
}

static int add(struct chakra_pgs *pgs, struct import_calls *calls, const char *name,
	       unsigned group, unsigned size, char *why, size_t nwhy, const char *file)
{
	const struct chakra_pg *old = chakra_pgs_find(pgs, name);

	if (old)
		return old->group == group ? 0 : bad(why, nwhy, "a group listed twice, with other ranks");
	if (array_grow((void **)&pgs->pg, pgs->n, &pgs->cap, sizeof(*pgs->pg)))
		return diag_set(calls->d, -ENOMEM, "%s: out of memory", file);
	snprintf(pgs->pg[pgs->n].name, sizeof(pgs->pg[pgs->n].name), "%s", name);
	pgs->pg[pgs->n].group = group;
	pgs->pg[pgs->n].size = size;
	pgs->n++;
	return 0;
}

/* One {"pg_name": ..., "ranks": [...], "group_size": N}. */
static int one_pg(struct chakra_pgs *pgs, struct import_calls *calls, const json_t *g,
		  char *why, size_t nwhy, const char *file)
{
	const char *name = json_string_value(json_object_get(g, "pg_name"));
	const json_t *ranks = json_object_get(g, "ranks"), *size = json_object_get(g, "group_size");
	size_t n = json_array_size(ranks);
	unsigned *r, id;
	json_int_t sz = json_integer_value(size);
	int err;

	if (!name || strlen(name) >= CHAKRA_PG_NAME_MAX)
		return bad(why, nwhy, "a group without a 'pg_name' (a string of at most 63 bytes)");
	if (!json_is_array(ranks) || !json_is_integer(size) || sz < 1 || sz > GROUP_MAX)
		return bad(why, nwhy, "a group without 'ranks' (a list) and 'group_size' (1 to 65536)");
	if (!n) { /* every rank: the world's size */
		if (pgs->world && pgs->world != (unsigned)sz)
			return bad(why, nwhy, "two groups of every rank, of different sizes");
		pgs->world = (unsigned)sz;
		err = import_calls_world_group(calls, (unsigned)sz, &id, file);
		return err ? err : add(pgs, calls, name, id, (unsigned)sz, why, nwhy, file);
	}
	if (n != (size_t)sz)
		return bad(why, nwhy, "a group whose 'ranks' are not 'group_size' many");
	r = malloc(n * sizeof(*r));
	if (!r)
		return diag_set(calls->d, -ENOMEM, "%s: out of memory", file);
	for (size_t i = 0; i < n; i++) {
		json_int_t x = json_integer_value(json_array_get(ranks, i));

		if (!json_is_integer(json_array_get(ranks, i)) || x < 0 || x > INT32_MAX) {
			free(r);
			return bad(why, nwhy, "a rank that is not a whole number");
		}
		r[i] = (unsigned)x;
	}
	if (!import_ranks_sort(r, n)) {
		free(r);
		return bad(why, nwhy, "a rank listed twice in a group");
	}
	err = import_calls_group(calls, r, (unsigned)n, &id, file);
	free(r);
	return err ? err : add(pgs, calls, name, id, (unsigned)n, why, nwhy, file);
}

int chakra_pgs_parse(struct chakra_pgs *pgs, struct import_calls *calls, const char *text,
		     char *why, size_t nwhy, const char *file)
{
	char *inner = python_string(text);
	json_t *v = json_loads(inner ? inner : text, JSON_REJECT_DUPLICATES, NULL), *list = v;
	int err = 0;

	free(inner);
	/* a JSON list of one: the string of the list, or the list */
	if (json_is_array(list) && json_array_size(list) == 1 && json_is_string(json_array_get(list, 0))) {
		json_t *s = json_loads(json_string_value(json_array_get(v, 0)), 0, NULL);

		json_decref(v);
		list = v = s;
	}
	if (json_is_array(list) && json_array_size(list) == 1 && json_is_array(json_array_get(list, 0)))
		list = json_array_get(list, 0);
	if (!json_is_array(list))
		err = bad(why, nwhy, "not a JSON list of groups");
	for (size_t i = 0; !err && i < json_array_size(list); i++) {
		const json_t *g = json_array_get(list, i);

		err = json_is_object(g) ? one_pg(pgs, calls, g, why, nwhy, file)
					: bad(why, nwhy, "a group that is not a JSON object");
	}
	json_decref(v);
	return err;
}

const struct chakra_pg *chakra_pgs_find(const struct chakra_pgs *pgs, const char *name)
{
	for (size_t i = 0; i < pgs->n; i++)
		if (!strcmp(pgs->pg[i].name, name))
			return &pgs->pg[i];
	return NULL;
}

int chakra_pgs_world(const struct chakra_pgs *pgs, unsigned *world, unsigned given,
		     const char *file, struct diag *d)
{
	if (!pgs->world)
		return 0;
	if (given && given != pgs->world)
		return diag_set(d, -EINVAL, "%s: process_group:init: a group of every rank has %u ranks, and --world says %u",
				file, pgs->world, given);
	if (*world && *world != pgs->world)
		return diag_set(d, -EINVAL, "%s: process_group:init: a group of every rank has %u ranks, an earlier file's %u",
				file, pgs->world, *world);
	*world = pgs->world;
	return 0;
}

void chakra_pgs_clear(struct chakra_pgs *pgs)
{
	pgs->n = 0;
	pgs->world = 0;
}

void chakra_pgs_free(struct chakra_pgs *pgs)
{
	free(pgs->pg);
	memset(pgs, 0, sizeof(*pgs));
}
