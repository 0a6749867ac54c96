/* SPDX-License-Identifier: MIT */
#include "import_kineto_p2p.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "array_grow.h"

/* A group place: digits, at most INT32_MAX; *@p moved past them. */
static bool place(const char **p, unsigned *out)
{
	unsigned long v = 0;
	const char *s = *p;

	if (*s < '0' || *s > '9')
		return false;
	while (*s >= '0' && *s <= '9') {
		v = v * 10 + (unsigned long)(*s++ - '0');
		if (v > INT32_MAX)
			return false;
	}
	*out = (unsigned)v;
	*p = s;
	return true;
}

int kp2p_parse(const char *name, bool *recv, unsigned *self, unsigned *peer)
{
	const char *arrow;

	if (!strncmp(name, "nccl:send ", 10)) {
		*recv = false;
		arrow = "->";
	} else if (!strncmp(name, "nccl:recv ", 10)) {
		*recv = true;
		arrow = "<-";
	} else {
		return 0;
	}
	name += 10;
	if (!place(&name, self) || strncmp(name, arrow, 2))
		return 0;
	name += 2;
	return place(&name, peer) && !*name;
}

int kp2p_add(struct kp2p *p, const struct kp2p_title *t)
{
	if (p->n == p->cap && array_grow((void **)&p->t, p->n, &p->cap, sizeof(*p->t)))
		return -ENOMEM;
	p->t[p->n++] = *t;
	return 0;
}

/* Order: thread, kind, start. */
static int key_cmp(int64_t pid, int64_t tid, bool recv, double ts, const struct kp2p_title *t)
{
	if (pid != t->pid)
		return pid < t->pid ? -1 : 1;
	if (tid != t->tid)
		return tid < t->tid ? -1 : 1;
	if (recv != t->recv)
		return recv ? 1 : -1;
	return ts < t->ts ? -1 : ts > t->ts;
}

static int title_cmp(const void *a, const void *b)
{
	const struct kp2p_title *x = a, *y = b;
	int c = key_cmp(x->pid, x->tid, x->recv, x->ts, y);

	/* a stable order for titles that start together: the file's */
	return c ? c : (x->line > y->line) - (x->line < y->line);
}

void kp2p_sort(struct kp2p *p)
{
	if (p->n)
		qsort(p->t, p->n, sizeof(*p->t), title_cmp);
}

struct kp2p_title *kp2p_take(struct kp2p *p, int64_t pid, int64_t tid, double ts, double end,
			     bool recv)
{
	size_t lo = 0, hi = p->n;

	/* the first title not before (pid, tid, recv, ts) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (key_cmp(pid, tid, recv, ts, &p->t[mid]) > 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < p->n && key_cmp(pid, tid, recv, end, &p->t[i]) >= 0; i++) {
		if (!p->t[i].used) {
			p->t[i].used = true;
			return &p->t[i];
		}
	}
	return NULL;
}

void kp2p_clear(struct kp2p *p)
{
	p->n = 0;
}

void kp2p_free(struct kp2p *p)
{
	free(p->t);
	memset(p, 0, sizeof(*p));
}
