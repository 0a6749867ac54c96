/* SPDX-License-Identifier: MIT */
#include "import_kineto_launch.h"

#include <errno.h>
#include <stdlib.h>

#include "array_grow.h"

int klaunch_add(struct klaunch *l, int64_t pid, int64_t tid, double ts, enum klaunch_kind kind,
		size_t call)
{
	if (array_grow((void **)&l->ev, l->n, &l->cap, sizeof(*l->ev)))
		return -ENOMEM;
	l->ev[l->n] = (struct klaunch_ev){ pid, tid, ts, kind, call, l->n };
	l->n++;
	return 0;
}

/* By thread, then time; at one time a call before what ends it. */
static int cmp_ev(const void *pa, const void *pb)
{
	const struct klaunch_ev *a = pa, *b = pb;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	return (a->order > b->order) - (a->order < b->order);
}

void klaunch_end_file(struct klaunch *l, struct import_calls *k)
{
	size_t first = 0; /* the thread's sends since its last other event */

	if (!l->n)
		return;
	qsort(l->ev, l->n, sizeof(*l->ev), cmp_ev);
	for (size_t i = 0; i < l->n; i++) {
		const struct klaunch_ev *e = &l->ev[i];

		if (i && (e->pid != e[-1].pid || e->tid != e[-1].tid))
			first = i;
		if (e->kind == KLAUNCH_OTHER) {
			first = i + 1;
		} else if (e->kind == KLAUNCH_COALESCED) {
			if (first < i)
				k->launches++;
			for (size_t j = first; j < i; j++)
				k->c[l->ev[j].call].launch = k->launches;
			first = i + 1;
		}
	}
	l->n = 0;
}

void klaunch_free(struct klaunch *l)
{
	free(l->ev);
	l->ev = NULL;
	l->n = l->cap = 0;
}
