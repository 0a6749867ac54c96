/* SPDX-License-Identifier: MIT */
/* What `gdrlab import` is told that a trace may not say (importer.h). */
#include "importer.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "array_grow.h"
#include "import_calls.h"

#define GROUP_MAX 65536 /* ranks in a group, as the trace reads them */

int import_options_dtype(struct import_options *o, const char *arg, struct diag *d)
{
	char q[44];

	if (trace_dtype_parse(arg, &o->dtype))
		return diag_set(d, -EINVAL, "--dtype: unknown type '%s' (fp32, fp16, bf16, fp64, int8)",
				diag_printable(arg, q, sizeof(q)));
	o->has_dtype = true;
	return 0;
}

/* A whole number 0 .. @max, all of @s up to @end (NULL: the string's). */
static int parse_uint(const char *s, const char **end, unsigned long max, unsigned long *out)
{
	char *e;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*out = strtoul(s, &e, 10);
	if (errno || *out > max || (!end && *e))
		return -EINVAL;
	if (end)
		*end = e;
	return 0;
}

int import_options_world(struct import_options *o, const char *arg, struct diag *d)
{
	unsigned long n;
	char q[44];

	if (parse_uint(arg, NULL, GROUP_MAX, &n) || !n)
		return diag_set(d, -EINVAL, "--world: expected a number of ranks, 1 to %d, got '%s'",
				GROUP_MAX, diag_printable(arg, q, sizeof(q)));
	o->world = (unsigned)n;
	return 0;
}

/* "0-3,8,10-11" into sorted, distinct ranks. */
static int parse_ranks(const char *s, unsigned **out, unsigned *n)
{
	unsigned *r = NULL;
	size_t cnt = 0, cap = 0;

	for (;;) {
		unsigned long lo, hi;

		if (parse_uint(s, &s, INT32_MAX, &lo))
			goto bad;
		hi = lo;
		if (*s == '-' && (parse_uint(s + 1, &s, INT32_MAX, &hi) || hi < lo))
			goto bad;
		for (unsigned long x = lo; x <= hi; x++) {
			if (cnt == GROUP_MAX || array_grow((void **)&r, cnt, &cap, sizeof(*r)))
				goto bad;
			r[cnt++] = (unsigned)x;
		}
		if (!*s)
			break;
		if (*s++ != ',')
			goto bad;
	}
	if (!import_ranks_sort(r, cnt))
		goto bad;
	*out = r;
	*n = (unsigned)cnt;
	return 0;
bad:
	free(r);
	return -EINVAL;
}

int import_options_group(struct import_options *o, const char *arg, struct diag *d)
{
	const char *eq = strchr(arg, '=');
	struct import_group g = { .n = 0 }, *more;
	char q[68];
	size_t len = eq ? (size_t)(eq - arg) : 0;

	if (!len || len >= sizeof(g.name))
		return diag_set(d, -EINVAL, "--group: expected NAME=RANKS (a process group's name as the trace has it, then its ranks: 0-3 or 0,2,4), got '%s'",
				diag_printable(arg, q, sizeof(q)));
	memcpy(g.name, arg, len);
	if (import_options_find_group(o, g.name))
		return diag_set(d, -EINVAL, "--group: '%s' is given twice",
				diag_printable(g.name, q, sizeof(q)));
	if (parse_ranks(eq + 1, &g.ranks, &g.n))
		return diag_set(d, -EINVAL, "--group: '%s': expected distinct ranks, at most %d, like 0-3 or 0,2,4",
				diag_printable(eq + 1, q, sizeof(q)), GROUP_MAX);
	/* one more each time: a command line names few */
	more = realloc(o->groups, (o->ngroups + 1) * sizeof(*more));
	if (!more) {
		free(g.ranks);
		return diag_set(d, -ENOMEM, "--group: out of memory");
	}
	o->groups = more;
	o->groups[o->ngroups++] = g;
	return 0;
}

const struct import_group *import_options_find_group(const struct import_options *o,
						     const char *name)
{
	for (size_t i = 0; i < o->ngroups; i++)
		if (!strcmp(o->groups[i].name, name))
			return &o->groups[i];
	return NULL;
}

void import_options_free(struct import_options *o)
{
	for (size_t i = 0; i < o->ngroups; i++)
		free(o->groups[i].ranks);
	free(o->groups);
	memset(o, 0, sizeof(*o));
}
