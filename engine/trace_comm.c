/* SPDX-License-Identifier: MIT */
/*
 * trace_comm: a trace's communicators. Every reader and producer of
 * traces puts each entry on one with trace_comm_assign, so that the
 * schedule (schedule.c) knows which collectives are ordered (one
 * communicator and stream, as on one CUDA stream of one NCCL
 * communicator) and which may run at once (PyTorch's process groups each
 * have their own NCCL communicator and stream).
 */
#include "trace.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array_grow.h"

#define WORLD "world"

bool trace_comm_name_valid(const char *s)
{
	size_t n = strlen(s);

	if (!n || n >= TRACE_COMM_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || strchr("_.:/-", c)))
			return false;
	}
	return true;
}

/* FNV-1a over the ranks in the order given (groups are kept as written;
 * one communicator is written one way). */
static uint64_t group_hash(const unsigned *g, unsigned n)
{
	uint64_t h = 1469598103934665603ull ^ n;

	for (unsigned i = 0; i < n; i++) {
		h ^= g[i];
		h *= 1099511628211ull;
	}
	return h;
}

static bool same_group(const struct trace_comm *c, const unsigned *g, unsigned n,
		       uint64_t h)
{
	return c->ngroup == n && c->hash == h &&
	       (!n || memcmp(c->group, g, n * sizeof(*g)) == 0);
}

static size_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return (size_t)h;
}

/* The slot of @name: its communicator's, or the empty one it would take.
 * A generated job has thousands of communicators, each line looked up. */
static size_t slot_of(const struct trace *t, const char *name)
{
	size_t mask = t->ncomm_slots - 1, i = name_hash(name) & mask;

	while (t->comm_slots[i] && strcmp(t->comms[t->comm_slots[i] - 1].name, name))
		i = (i + 1) & mask;
	return i;
}

static long find_name(const struct trace *t, const char *name)
{
	size_t i;

	if (!t->ncomm_slots)
		return -1;
	i = slot_of(t, name);
	return t->comm_slots[i] ? (long)t->comm_slots[i] - 1 : -1;
}

/* Room for one more name: the table at most half full. */
static int index_grow(struct trace *t)
{
	size_t n = t->ncomm_slots ? t->ncomm_slots : 16;
	uint32_t *old = t->comm_slots;
	size_t nold = t->ncomm_slots;

	if (2 * (t->ncomms + 1) <= t->ncomm_slots)
		return 0;
	while (2 * (t->ncomms + 1) > n)
		n *= 2;
	t->comm_slots = calloc(n, sizeof(*t->comm_slots));
	if (!t->comm_slots) {
		t->comm_slots = old;
		return -ENOMEM;
	}
	t->ncomm_slots = n;
	for (size_t k = 0; k < nold; k++)
		if (old[k])
			t->comm_slots[slot_of(t, t->comms[old[k] - 1].name)] = old[k];
	free(old);
	return 0;
}

static int add_comm(struct trace *t, const char *name, const struct trace_entry *e,
		    uint64_t h, struct diag *d)
{
	struct trace_comm *c;

	if (index_grow(t) || array_grow((void **)&t->comms, t->ncomms, &t->cap_comms, sizeof(*c)))
		return diag_set(d, -ENOMEM, "%s:%u: out of memory", t->file, e->line);
	c = &t->comms[t->ncomms];
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->line = e->line;
	c->hash = h;
	if (e->ngroup) {
		c->group = malloc(e->ngroup * sizeof(*c->group));
		if (!c->group)
			return diag_set(d, -ENOMEM, "%s:%u: out of memory", t->file, e->line);
		memcpy(c->group, e->group, e->ngroup * sizeof(*c->group));
		c->ngroup = e->ngroup;
	}
	t->comm_slots[slot_of(t, c->name)] = (uint32_t)++t->ncomms;
	return 0;
}

/* The communicator of a line without a name: its group's. */
static int implicit_comm(struct trace *t, const struct trace_entry *e, uint64_t h,
			 size_t *out, struct diag *d)
{
	char name[TRACE_COMM_NAME_MAX];
	long taken;
	int err;

	for (size_t i = 0; i < t->ncomms; i++)
		if (same_group(&t->comms[i], e->group, e->ngroup, h)) {
			*out = i;
			return 0;
		}
	if (e->ngroup) {
		/* The next groupN a named communicator has not taken with
		 * other ranks: a line may name "group2" for ranks an unnamed
		 * line got first (the same one, then), and a written trace
		 * names it from its first line, so the numbers after it must
		 * not depend on which line first said the name. */
		for (size_t n = t->ncomm_groups + 1;; n++) {
			snprintf(name, sizeof(name), "group%zu", n);
			if (find_name(t, name) < 0)
				break;
		}
	} else {
		snprintf(name, sizeof(name), WORLD);
	}
	/* A named communicator took "world" with other ranks. */
	taken = find_name(t, name);
	if (taken >= 0)
		return diag_at(d, -EINVAL, t->file, e->line, 0, "group",
			       "these ranks need a communicator of their own, but '%s' "
			       "(line %u) has other ranks: name it with \"comm\"",
			       name, t->comms[taken].line);
	err = add_comm(t, name, e, h, d);
	if (!err && e->ngroup)
		t->ncomm_groups++;
	*out = t->ncomms - 1;
	return err;
}

int trace_comm_assign(struct trace *t, struct trace_entry *e, const char *name,
		      unsigned stream, struct diag *d)
{
	uint64_t h = group_hash(e->group, e->ngroup);
	size_t k = 0;
	long at;
	int err;

	if (stream > TRACE_STREAM_MAX)
		return diag_at(d, -EINVAL, t->file, e->line, 0, "stream",
			       "%u is too large (max %d)", stream, TRACE_STREAM_MAX);
	e->stream = stream;
	if (!name || !name[0]) {
		err = implicit_comm(t, e, h, &k, d);
		if (err)
			return err;
		e->comm = (unsigned)k;
		return 0;
	}
	if (!trace_comm_name_valid(name))
		return diag_at(d, -EINVAL, t->file, e->line, 0, "comm",
			       "expected a name of 1 to %d letters, digits or _.:/-",
			       TRACE_COMM_NAME_MAX - 1);
	at = find_name(t, name);
	if (at < 0) {
		err = add_comm(t, name, e, h, d);
		if (err)
			return err;
		at = (long)t->ncomms - 1;
	}
	k = (size_t)at;
	t->comms[k].named = true;
	if (!e->ngroup && t->comms[k].ngroup) {
		/* The communicator's ranks, as if the line gave them. */
		e->group = malloc(t->comms[k].ngroup * sizeof(*e->group));
		if (!e->group)
			return diag_set(d, -ENOMEM, "%s:%u: out of memory", t->file, e->line);
		memcpy(e->group, t->comms[k].group, t->comms[k].ngroup * sizeof(*e->group));
		e->ngroup = t->comms[k].ngroup;
	} else if (!same_group(&t->comms[k], e->group, e->ngroup, h)) {
		char had[32];

		if (t->comms[k].ngroup)
			snprintf(had, sizeof(had), "%u ranks", t->comms[k].ngroup);
		else
			snprintf(had, sizeof(had), "every rank");
		return diag_at(d, -EINVAL, t->file, e->line, 0, "group",
			       "communicator '%s' has %s from line %u; this line gives "
			       "other ranks", t->comms[k].name, had, t->comms[k].line);
	}
	e->comm = (unsigned)k;
	return 0;
}

const char *trace_entry_comm(const struct trace *t, const struct trace_entry *e)
{
	return e->comm < t->ncomms ? t->comms[e->comm].name : WORLD;
}
