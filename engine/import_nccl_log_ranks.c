/* SPDX-License-Identifier: MIT */
/*
 * nccl-log: who is who. A line's process (host, pid and cudaDev), its
 * communicators (commId, or a split's parent, count and color) and
 * the world: global ranks from the communicator of every rank, or
 * numbered by host, then cudaDev (import_nccl_log_internal.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "array_grow.h"
#include "import_nccl_log_internal.h"

/* The last @c in @p's first @len bytes, or NULL. */
static const char *last_of(const char *p, size_t len, char c)
{
	while (len-- > 0)
		if (p[len] == c)
			return p + len;
	return NULL;
}

/*
 * The process of "host:pid:tid" (its host and pid) on device @dev, read
 * from the right: a launcher may glue its own prefix to it with no space
 * (mpirun --tag-output "[1,0]<stdout>:host:pid:tid", torchrun's
 * "[default0]:"), and a host name has no ':'.
 */
int nlog_proc_of(struct state *s, const char *hpt, size_t len, int dev, size_t *out)
{
	const char *tid = last_of(hpt, len, ':');
	const char *pid = tid ? last_of(hpt, (size_t)(tid - hpt), ':') : NULL;
	const char *host = pid ? last_of(hpt, (size_t)(pid - hpt), ':') : NULL;
	size_t n;

	if (!pid || pid == hpt || pid + 1 == tid)
		return nlog_fail(s, "prefix", "expected 'host:pid:tid' before '[device] NCCL INFO'");
	host = host ? host + 1 : hpt;
	if (host == pid)
		return nlog_fail(s, "prefix", "expected 'host:pid:tid' before '[device] NCCL INFO'");
	n = (size_t)(tid - host);
	hpt = host;
	if (n >= sizeof(s->procs[0].id))
		return nlog_fail(s, "prefix", "expected 'host:pid:tid' before '[device] NCCL INFO'");
	for (size_t i = 0; i < s->nprocs; i++)
		if (strlen(s->procs[i].id) == n && !memcmp(s->procs[i].id, hpt, n) &&
		    (dev == ANY_DEV || s->procs[i].dev == dev)) {
			*out = i;
			return 0;
		}
	if (array_grow((void **)&s->procs, s->nprocs, &s->cap_procs, sizeof(*s->procs)))
		return -ENOMEM;
	memset(&s->procs[s->nprocs], 0, sizeof(s->procs[0]));
	memcpy(s->procs[s->nprocs].id, hpt, n);
	s->procs[s->nprocs].dev = dev == ANY_DEV ? -1 : dev;
	s->procs[s->nprocs].world = -1;
	*out = s->nprocs++;
	return 0;
}

/* Process @proc's communicator @ptr, on whichever of its devices. */
const struct comm_view *nlog_view_of(const struct state *s, size_t proc, uint64_t ptr)
{
	for (size_t i = s->nviews; i-- > 0;)
		if (s->views[i].ptr == ptr && !strcmp(s->procs[s->views[i].proc].id, s->procs[proc].id))
			return &s->views[i];
	return NULL;
}

/* splitmix64's finaliser: the bits of @x spread over all 64 */
static uint64_t mix64(uint64_t x)
{
	x = (x ^ x >> 30) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ x >> 27) * 0x94d049bb133111ebull;
	return x ^ x >> 31;
}

/*
 * "... parent 0x.. splitCount C color K key R - Init COMPLETE": a child
 * communicator, which 2.23 and later name by their parent instead of a
 * commId (src/init.cc, ncclCommInitRankFunc; "childCount" from 2.29,
 * no count at all in 2.23). Every rank of the parent counts its splits
 * alike (comm->splitCount, ++ at each ncclCommSplit, NOCOLOR ranks
 * included), so (the parent's commId, the count, the color) is the same
 * communicator on every rank: it is what NCCL hashes the child's own
 * commHash from ("%016lx-%d-%d", parent commHash, splitCount, color; 2.23
 * without the count). Its id here is a hash of the three.
 */
static int split_id(struct state *s, size_t proc, const char *msg, uint64_t *id)
{
	const struct comm_view *parent;
	uint64_t ptr, count = 0, color;
	int err;

	err = nlog_number(s, msg, "parent", 16, UINT64_MAX, &ptr);
	if (!err && nlog_value_of(msg, "splitCount"))
		err = nlog_number(s, msg, "splitCount", 10, UINT32_MAX, &count);
	else if (!err && nlog_value_of(msg, "childCount"))
		err = nlog_number(s, msg, "childCount", 10, UINT32_MAX, &count);
	/* a color is any int from 0 (NCCL_SPLIT_NOCOLOR, -1, logs no
	 * split): PyTorch's genNcclSplitColor hashes a group's ranks into
	 * [0, INT32_MAX) (torch/csrc/distributed/c10d/NCCLUtils.cpp) */
	if (!err)
		err = nlog_number(s, msg, "color", 10, INT32_MAX, &color);
	if (err)
		return err;
	parent = nlog_view_of(s, proc, ptr);
	if (!parent)
		return nlog_fail(s, "parent", "communicator 0x%" PRIx64 " of %s, split from here, has no 'Init COMPLETE' line before it",
			    ptr, s->procs[proc].id);
	if (!parent->id)
		return nlog_fail(s, "parent", "communicator 0x%" PRIx64 ", split from here, has no commId to name its children by",
			    ptr);
	*id = mix64(mix64(parent->id) ^ count << 32 ^ (uint32_t)color) | 1; /* 0 is none */
	return 0;
}

/* "[func] comm 0x.. rank R nranks N ... [commId 0x.. | parent 0x.. ...]
 * - Init COMPLETE" */
int nlog_init_line(struct state *s, size_t proc, const char *msg)
{
	struct comm_view v = { .proc = proc };
	int err;

	err = nlog_number(s, msg, "comm", 16, UINT64_MAX, &v.ptr);
	if (!err)
		err = nlog_small_int(s, msg, "rank", &v.rank);
	if (!err)
		err = nlog_small_int(s, msg, "nranks", &v.nranks);
	if (!err && nlog_value_of(msg, "commId"))
		err = nlog_number(s, msg, "commId", 16, UINT64_MAX, &v.id);
	else if (!err && nlog_value_of(msg, "parent"))
		err = split_id(s, proc, msg, &v.id);
	if (err)
		return err;
	if (v.nranks < 1 || v.rank < 0 || v.rank >= v.nranks)
		return nlog_fail(s, "rank", "rank %d of %d ranks", v.rank, v.nranks);
	for (size_t i = 0; i < s->nviews; i++) {
		struct comm_view *w = &s->views[i];

		if (w->id == v.id && w->nranks == v.nranks && w->rank == v.rank && w->proc != proc &&
		    v.id)
			return nlog_fail(s, "rank", "rank %d of communicator 0x%" PRIx64 " is in two processes, %s and %s",
				    v.rank, v.id, s->procs[w->proc].id, s->procs[proc].id);
		if (w->proc == proc && w->ptr == v.ptr) { /* a comm pointer reused */
			*w = v;
			return 0;
		}
	}
	if (array_grow((void **)&s->views, s->nviews, &s->cap_views, sizeof(*s->views)))
		return -ENOMEM;
	s->views[s->nviews++] = v;
	return 0;
}

/* Ranks by host, then device, then process: a host's ranks in a row. */
static int cmp_rank_proc(const void *pa, const void *pb)
{
	const struct proc *a = *(const struct proc *const *)pa, *b = *(const struct proc *const *)pb;
	size_t ha = strcspn(a->id, ":"), hb = strcspn(b->id, ":");
	int c = strncmp(a->id, b->id, ha < hb ? ha : hb);

	if (c || ha != hb)
		return c ? c : ha < hb ? -1 : 1;
	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	return strcmp(a->id, b->id);
}

/*
 * No communicator has every rank of the logs (a job of tensor- and
 * data-parallel groups only: PyTorch makes the default group's
 * communicator only when a call uses it): the global ranks are the logs'
 * ranks numbered by host, then device, then process, so that a host's
 * ranks are a node's in a replay. Their numbers are not the job's, which
 * no line says, but every group keeps its members. Only where every
 * communicator has a commId to find its members by (2.16 and later).
 */
static int number_ranks(struct state *s, int *world_n)
{
	struct proc **order = malloc((s->nprocs ? s->nprocs : 1) * sizeof(*order));
	size_t n = 0;

	if (!order)
		return -ENOMEM;
	for (size_t i = 0; i < s->nprocs; i++) {
		bool any = false;

		for (size_t k = 0; k < s->nviews && !any; k++)
			any = s->views[k].proc == i;
		if (any)
			order[n++] = &s->procs[i];
	}
	qsort(order, n, sizeof(*order), cmp_rank_proc);
	for (size_t i = 0; i < n; i++)
		order[i]->world = (int)i;
	free(order);
	*world_n = (int)n;
	s->numbered = true;
	return 0;
}

/* The world: the communicator with the most ranks; each process's rank
 * in it is its global rank. */
int nlog_world_ranks(struct state *s, uint64_t *world_id, int *world_n)
{
	const struct comm_view *best = NULL;
	size_t ranks = 0;
	bool ids = true;

	for (size_t i = 0; i < s->nviews; i++)
		if (!best || s->views[i].nranks > best->nranks)
			best = &s->views[i];
	if (!best)
		return diag_set(s->d, -EINVAL, "%s: nccl-log: no 'Init COMPLETE' line (NCCL_DEBUG=INFO with NCCL_DEBUG_SUBSYS=INIT,COLL)",
				s->in[0].name);
	/* the logs' ranks (a process and device with a communicator) */
	for (size_t i = 0; i < s->nprocs; i++) {
		bool any = false;

		for (size_t k = 0; k < s->nviews && !any; k++)
			any = s->views[k].proc == i;
		ranks += any;
	}
	for (size_t k = 0; k < s->nviews; k++)
		ids &= s->views[k].id != 0;
	if ((size_t)best->nranks < ranks && ids) {
		*world_id = 0; /* none: every call has its group */
		return number_ranks(s, world_n);
	}
	*world_id = best->id;
	*world_n = best->nranks;
	for (size_t i = 0; i < s->nviews; i++) {
		const struct comm_view *v = &s->views[i];

		if (v->id != best->id || v->nranks != best->nranks)
			continue;
		if (s->procs[v->proc].world >= 0 && s->procs[v->proc].world != v->rank)
			return diag_set(s->d, -EINVAL, "%s: nccl-log: process %s has ranks %d and %d in the world communicator on one device (cudaDev %d of their Init lines)",
					s->in[0].name, s->procs[v->proc].id, s->procs[v->proc].world, v->rank,
					s->procs[v->proc].dev);
		s->procs[v->proc].world = v->rank;
	}
	return 0;
}

/* Views by (commId, ranks, rank), for global_of's search. */
int nlog_cmp_view(const void *pa, const void *pb)
{
	const struct comm_view *a = pa, *b = pb;

	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	if (a->nranks != b->nranks)
		return a->nranks < b->nranks ? -1 : 1;
	return (a->rank > b->rank) - (a->rank < b->rank);
}

/* The global rank of rank @r of communicator (@id, @n); -1 if unseen.
 * The views are sorted by nlog_cmp_view once the logs are read. */
int nlog_global_of(const struct state *s, uint64_t id, int n, int r)
{
	const struct comm_view key = { .id = id, .nranks = n, .rank = r };
	const struct comm_view *v = bsearch(&key, s->views, s->nviews, sizeof(*s->views), nlog_cmp_view);

	return v ? s->procs[v->proc].world : -1;
}
