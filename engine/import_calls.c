/* SPDX-License-Identifier: MIT */
/* The per-rank importers' calls, merged over the files (import_calls.h). */
#include "import_calls.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array_grow.h"
#include "union_find.h"
#include "sort_unsigned.h"

static int oom(struct import_calls *k, const char *file)
{
	return diag_set(k->d, -ENOMEM, "%s: out of memory", file);
}

/* "file:LINE" or "file: byte N": where a call is, for a message. */
static const char *where(const struct import_calls *k, const char *file, uint64_t at,
			 char *buf, size_t n)
{
	if (k->binary)
		snprintf(buf, n, "%s: byte %" PRIu64, file, at);
	else
		snprintf(buf, n, "%s:%" PRIu64, file, at);
	return buf;
}

static int fail_at(struct import_calls *k, const char *file, uint64_t at, const char *key,
		   const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int fail_at(struct import_calls *k, const char *file, uint64_t at, const char *key,
		   const char *fmt, ...)
{
	char loc[300], msg[DIAG_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return diag_set(k->d, -EINVAL, "%s: %s: %s", where(k, file, at, loc, sizeof(loc)), key, msg);
}

void import_calls_init(struct import_calls *k, bool binary, const char *rank_key, const char *key,
		       struct diag *d)
{
	memset(k, 0, sizeof(*k));
	k->binary = binary;
	k->rank_key = rank_key;
	k->key = key;
	k->d = d;
}

void import_calls_free(struct import_calls *k)
{
	for (size_t i = 0; i < k->ngroups; i++)
		free(k->groups[i].ranks);
	free(k->groups);
	free(k->file_ranks);
	free(k->pairs);
	free(k->c);
	free(k->steps);
	free(k->pgs);
}

void import_calls_begin_file(struct import_calls *k)
{
	k->nsteps = 0;
	k->first_of_file = k->n;
	k->npairs = 0;
	for (size_t i = 0; i < k->npgs; i++)
		k->pgs[i].calls = 0;
}

int import_calls_step(struct import_calls *k, double ts, double dur, const char *file)
{
	if (array_grow((void **)&k->steps, k->nsteps, &k->cap_steps, sizeof(*k->steps)))
		return oom(k, file);
	k->steps[k->nsteps].start = ts;
	k->steps[k->nsteps++].end = dur >= 0 ? ts + dur : INFINITY;
	return 0;
}

int import_calls_group(struct import_calls *k, const unsigned *ranks, unsigned n, unsigned *id,
		       const char *file)
{
	size_t i;

	for (i = 0; i < k->ngroups; i++)
		if (k->groups[i].n == n && !memcmp(k->groups[i].ranks, ranks, n * sizeof(*ranks)))
			break;
	if (i == k->ngroups) {
		unsigned *copy = malloc(n * sizeof(*copy));

		if (!copy || array_grow((void **)&k->groups, k->ngroups, &k->cap_groups,
					sizeof(*k->groups))) {
			free(copy);
			return oom(k, file);
		}
		memcpy(copy, ranks, n * sizeof(*copy));
		k->groups[i].ranks = copy;
		k->groups[i].n = n;
		k->ngroups++;
	}
	*id = (unsigned)i;
	return 0;
}


bool import_ranks_sort(unsigned *ranks, size_t n)
{
	sort_unsigned(ranks, n);
	for (size_t i = 1; i < n; i++)
		if (ranks[i] == ranks[i - 1])
			return false;
	return true;
}

int import_calls_world_group(struct import_calls *k, unsigned n, unsigned *id, const char *file)
{
	unsigned *r = malloc(n * sizeof(*r));
	int err;

	if (!r)
		return oom(k, file);
	for (unsigned i = 0; i < n; i++)
		r[i] = i;
	err = import_calls_group(k, r, n, id, file);
	free(r);
	return err;
}

/* The index of process group @pg in pgs (a job has few: a search). */
static int pg_index(struct import_calls *k, const char *pg, unsigned *id, const char *file)
{
	size_t i;

	for (i = 0; i < k->npgs && strcmp(k->pgs[i].name, pg); i++)
		;
	if (i == k->npgs) {
		if (array_grow((void **)&k->pgs, k->npgs, &k->cap_pgs, sizeof(*k->pgs)))
			return oom(k, file);
		snprintf(k->pgs[i].name, sizeof(k->pgs[i].name), "%s", pg);
		k->pgs[i].calls = 0;
		k->npgs++;
	}
	*id = (unsigned)i;
	return 0;
}

/* Room for one more call, and @c's group name as an index, c->pg. */
static int room_for(struct import_calls *k, struct import_call *c, const char *pg,
		    const char *file)
{
	if (pg_index(k, pg, &c->pg, file))
		return -ENOMEM;
	if (array_grow((void **)&k->c, k->n, &k->cap, sizeof(*k->c)))
		return oom(k, file);
	return 0;
}

/* The call's place among its group's calls in this file: a count per
 * group name. */
int import_calls_add(struct import_calls *k, struct import_call *c, const char *pg,
		     const char *file)
{
	if (room_for(k, c, pg, file))
		return -ENOMEM;
	c->p2p = false;
	c->seq = k->pgs[c->pg].calls++;
	k->c[k->n++] = *c;
	return 0;
}

int import_calls_add_p2p(struct import_calls *k, struct import_call *c, const char *pg,
			 const char *file)
{
	if (room_for(k, c, pg, file))
		return -ENOMEM;
	/* a send/receive is not counted among its group's collectives:
	 * NCCL matches it with the peer's by pair and order, and the
	 * group's other ranks never see it */
	c->p2p = true;
	c->both = false;
	c->seq = 0;
	k->c[k->n++] = *c;
	return 0;
}

bool import_calls_in_group(const struct import_calls *k, unsigned id, int rank)
{
	for (unsigned i = 0; i < k->groups[id].n; i++)
		if ((int)k->groups[id].ranks[i] == rank)
			return true;
	return false;
}

/* The file's calls between @src and @dst on group @pg so far. */
static int pair_next(struct import_calls *k, unsigned pg, int src, int dst, unsigned *seq,
		     const char *file)
{
	size_t i;

	for (i = 0; i < k->npairs; i++)
		if (k->pairs[i].pg == pg && k->pairs[i].src == src && k->pairs[i].dst == dst)
			break;
	if (i == k->npairs) {
		if (array_grow((void **)&k->pairs, k->npairs, &k->cap_pairs, sizeof(*k->pairs)))
			return oom(k, file);
		k->pairs[i].pg = pg;
		k->pairs[i].src = src;
		k->pairs[i].dst = dst;
		k->pairs[i].calls = 0;
		k->npairs++;
	}
	*seq = k->pairs[i].calls++;
	return 0;
}

/* Issue order within a file: by its clock, then by its place. */
static int cmp_ts(const void *a, const void *b)
{
	const struct import_call *x = *(const struct import_call *const *)a;
	const struct import_call *y = *(const struct import_call *const *)b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (x->where > y->where) - (x->where < y->where);
}

/* The file's point-to-point calls in issue order, into *@out (@n). */
static int file_p2p(struct import_calls *k, struct import_call ***out, size_t *n, const char *file)
{
	struct import_call **v = NULL;
	size_t cnt = 0, cap = 0;

	for (size_t i = k->first_of_file; i < k->n; i++) {
		if (!k->c[i].p2p)
			continue;
		if (array_grow((void **)&v, cnt, &cap, sizeof(*v))) {
			free(v);
			return oom(k, file);
		}
		v[cnt++] = &k->c[i];
	}
	if (cnt)
		qsort(v, cnt, sizeof(*v), cmp_ts);
	*out = v;
	*n = cnt;
	return 0;
}

int import_calls_file_rank(struct import_calls *k, int rank, const char *file)
{
	if (array_grow((void **)&k->file_ranks, k->nfile_ranks, &k->cap_file_ranks,
		       sizeof(*k->file_ranks)))
		return oom(k, file);
	k->file_ranks[k->nfile_ranks++] = rank;
	return 0;
}

int import_calls_end_p2p(struct import_calls *k, int rank, const char *file)
{
	struct import_call **v = NULL;
	size_t n = 0;
	int err;

	err = import_calls_file_rank(k, rank, file);
	if (err)
		return err;
	for (size_t i = k->first_of_file; i < k->n; i++) {
		struct import_call *c = &k->c[i];

		if (c->rank >= 0)
			continue;
		if (rank < 0)
			return fail_at(k, file, c->where, k->rank_key,
				       "no distributedInfo says this file's rank (a %s's own 'Rank' is its %s's)",
				       c->p2p ? (c->recv ? "recv" : "send") : trace_op_name(c->op),
				       c->p2p ? "peer" : "root");
		c->rank = rank;
	}
	err = file_p2p(k, &v, &n, file);
	for (size_t i = 0; !err && i < n; i++) {
		struct import_call *c = v[i];
		int peer = c->peer;

		if (peer == c->rank)
			err = fail_at(k, file, c->where, c->recv ? "Src Rank" : "Dst Rank",
				      "rank %d's %s names itself as its peer", c->rank,
				      c->recv ? "recv" : "send");
		else if (!import_calls_in_group(k, c->group, c->rank))
			err = fail_at(k, file, c->where, "Process Group Ranks",
				      "this file's rank %d is not in its %s's group (%u ranks from %u)",
				      c->rank, c->recv ? "recv" : "send", k->groups[c->group].n,
				      k->groups[c->group].ranks[0]);
		c->root = c->recv ? peer : c->rank;
		c->peer = c->recv ? c->rank : peer;
		if (!err)
			err = pair_next(k, c->pg, c->root, c->peer, &c->seq, file);
	}
	free(v);
	return err;
}

static int cmp_step(const void *a, const void *b)
{
	const struct import_step *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

/*
 * The last step of the file starting by @ts (the first when none does),
 * and whether its span holds @ts. A step whose end is not said reaches
 * the next one's start, and the first such back to the file's start, as
 * there is no span to read.
 */
static size_t step_of(const struct import_calls *k, double ts, bool *holds)
{
	size_t lo = 0, hi = k->nsteps;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->steps[mid].start <= ts)
			lo = mid;
		else
			hi = mid;
	}
	if (ts < k->steps[lo].start)
		*holds = isinf(k->steps[lo].end);
	else
		*holds = ts <= k->steps[lo].end;
	return lo;
}

/* The earliest call of the file: its one iteration's start, where it has
 * no steps (its calls are in file order, not time order). */
static double first_call(const struct import_calls *k)
{
	double first = k->c[k->first_of_file].ts;

	for (size_t i = k->first_of_file + 1; i < k->n; i++)
		if (k->c[i].ts < first)
			first = k->c[i].ts;
	return first;
}

int import_calls_end_file(struct import_calls *k, bool timed, const char *file,
			  const char *ts_key)
{
	double first = k->n > k->first_of_file ? first_call(k) : 0;

	k->files++;
	if (!k->nsteps && k->n > k->first_of_file)
		k->stepless++;
	if (k->nsteps)
		qsort(k->steps, k->nsteps, sizeof(*k->steps), cmp_step);
	for (size_t i = k->first_of_file; i < k->n; i++) {
		struct import_call *c = &k->c[i];
		bool holds = true;
		size_t s = k->nsteps ? step_of(k, c->ts, &holds) : 0;

		c->iteration = (unsigned)s;
		c->outside = !holds;
		c->ready_us = c->ts - (k->nsteps ? k->steps[s].start : first);
		/* a trace's times are bounded (trace.h): a call so far from
		 * its step's start is a clock the profile got wrong, not a
		 * call between steps to leave out */
		if (!(fabs(c->ready_us) <= TRACE_TIME_MAX_US))
			return fail_at(k, file, c->where, ts_key, "%.17g us %s %s, beyond %g us (11.6 days)",
				       fabs(c->ready_us), c->ready_us < 0 ? "before" : "after",
				       k->nsteps ? "its profiler step's start" : "the file's first call",
				       TRACE_TIME_MAX_US);
		/* before a first step whose span is not said: at its start */
		if (c->ready_us < 0)
			c->ready_us = 0;
		if (!timed) {
			c->order = c->ready_us;
			c->ready_us = 0;
		}
	}
	return 0;
}

/* By group and place, the lowest rank first: a call's copies side by side
 * (a send/receive's by group, pair and place, the sender's first). */
static int cmp_call(const void *a, const void *b)
{
	const struct import_call *x = a, *y = b;

	if (x->pg != y->pg)
		return x->pg < y->pg ? -1 : 1;
	if (x->p2p != y->p2p)
		return x->p2p ? 1 : -1;
	if (x->p2p && x->root != y->root)
		return x->root < y->root ? -1 : 1;
	if (x->p2p && x->peer != y->peer)
		return x->peer < y->peer ? -1 : 1;
	if (x->p2p && x->seq == y->seq && x->recv != y->recv)
		return x->recv ? 1 : -1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

/* Issue order: by iteration, then by the time into it (each rank's clock
 * counted from its own step), then by place, then by rank. */
static int cmp_issue(const void *a, const void *b)
{
	const struct import_call *x = a, *y = b;

	if (x->iteration != y->iteration)
		return x->iteration < y->iteration ? -1 : 1;
	if (x->ready_us != y->ready_us)
		return x->ready_us < y->ready_us ? -1 : 1;
	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

/*
 * Ops whose ranks may record different bytes for one call: PyTorch's
 * all_to_allv, each rank its own split sizes, and the list forms of
 * all_gather and reduce_scatter with tensors of unequal sizes, each rank
 * its own share (ProcessGroupNCCL.cpp, allgather and reduce_scatter:
 * RECORD_PARAM_COMMS_DATA's nelems are the rank's input, or output,
 * times the group's size; NCCL then runs one broadcast, or reduce, a
 * rank's share, grouped).
 */
static bool shares_may_differ(enum trace_op op)
{
	return op == TRACE_OP_ALLTOALL || op == TRACE_OP_ALL_GATHER ||
	       op == TRACE_OP_REDUCE_SCATTER;
}

static bool gathers_shares(enum trace_op op)
{
	return op == TRACE_OP_ALL_GATHER || op == TRACE_OP_REDUCE_SCATTER;
}

/* An all-gather's or a reduce-scatter's whole buffer from its copies:
 * each rank's bytes are its own share times the ranks, so their mean is
 * the sum of the shares where every rank was read, and stands for the
 * ranks not read otherwise. A whole number of elements. */
static uint64_t mean_of_shares(const struct import_call *c)
{
	uint64_t size = trace_dtype_size(c->dtype), mean = c->sum / c->copies;

	mean -= mean % size;
	return mean ? mean : size;
}

/* @c, a copy of @o's call from another file: the same rank is an error,
 * and so is another op, group or size (but where shares_may_differ). */
static int check_copy(struct import_calls *k, const struct import_input *in,
		      const struct import_call *o, const struct import_call *c)
{
	char loc[300], pg[sizeof(k->pgs[0].name)];

	diag_printable(k->pgs[c->pg].name, pg, sizeof(pg));

	if (o->rank == c->rank)
		return fail_at(k, in[c->file].name, c->where, k->rank_key, "rank %d is in two files (%s, %s)",
			       c->rank, in[o->file].name, in[c->file].name);
	if (o->op != c->op || (o->bytes != c->bytes && !shares_may_differ(o->op)))
		return fail_at(k, in[c->file].name, c->where, k->key,
			       "rank %d's call %u of group '%s' is %s of %" PRIu64 " bytes, rank %d's (%s) %s of %" PRIu64,
			       c->rank, c->seq, pg, trace_op_name(c->op), c->bytes, o->rank,
			       where(k, in[o->file].name, o->where, loc, sizeof(loc)),
			       trace_op_name(o->op), o->bytes);
	if (o->group != c->group)
		return fail_at(k, in[c->file].name, c->where, k->key,
			       "rank %d's call %u of group '%s' has %u ranks from %u, rank %d's (%s) %u from %u",
			       c->rank, c->seq, pg, k->groups[c->group].n, k->groups[c->group].ranks[0],
			       o->rank, where(k, in[o->file].name, o->where, loc, sizeof(loc)),
			       k->groups[o->group].n, k->groups[o->group].ranks[0]);
	if (o->op == TRACE_OP_BROADCAST && o->root != c->root)
		return fail_at(k, in[c->file].name, c->where, k->key,
			       "rank %d's call %u of group '%s' is a broadcast from rank %d, rank %d's (%s) from %d",
			       c->rank, c->seq, pg, c->root, o->rank,
			       where(k, in[o->file].name, o->where, loc, sizeof(loc)), o->root);
	return 0;
}

/* A send/receive's two sides: the sender's @o, the receiver's @c. */
static int check_sides(struct import_calls *k, const struct import_input *in,
		       const struct import_call *o, const struct import_call *c)
{
	char loc[300], pg[sizeof(k->pgs[0].name)];

	diag_printable(k->pgs[c->pg].name, pg, sizeof(pg));
	if (o->recv == c->recv)
		return fail_at(k, in[c->file].name, c->where, k->rank_key, "rank %d is in two files (%s, %s)",
			       c->rank, in[o->file].name, in[c->file].name);
	if (o->bytes != c->bytes)
		return fail_at(k, in[c->file].name, c->where, k->key,
			       "rank %d's recv %u from rank %d on group '%s' is %" PRIu64 " bytes, the send (%s) %" PRIu64,
			       c->rank, c->seq, o->rank, pg, c->bytes,
			       where(k, in[o->file].name, o->where, loc, sizeof(loc)), o->bytes);
	return 0;
}

/* The file that is @rank's, or -1 when none was read. */
static long file_of_rank(const struct import_calls *k, int rank)
{
	for (size_t i = 0; i < k->nfile_ranks; i++)
		if (k->file_ranks[i] == rank)
			return (long)i;
	return -1;
}

/* @c, a send/receive's only side: an error when the peer's file was read
 * (it would have the other side), else the entry of the side we have. */
static int check_lone_side(struct import_calls *k, const struct import_input *in,
			   const struct import_call *c)
{
	char pg[sizeof(k->pgs[0].name)];
	int other = c->recv ? c->root : c->peer;
	long f = file_of_rank(k, other);

	if (f < 0)
		return 0;
	diag_printable(k->pgs[c->pg].name, pg, sizeof(pg));
	return fail_at(k, in[c->file].name, c->where, c->recv ? "Src Rank" : "Dst Rank",
		       "rank %d's %s %u %s rank %d on group '%s' has no %s in rank %d's file (%s)",
		       c->rank, c->recv ? "recv" : "send", c->seq, c->recv ? "from" : "to", other, pg,
		       c->recv ? "send" : "recv", other, in[f].name);
}

/*
 * A send's two sides' launches are one batch (each rank's
 * batch_isend_irecv, joined by their transfers: rank 0's send to 1 and
 * receive from 1 with rank 1's send to 0 and receive from 0): each
 * merged call's launch becomes its batch's first launch number; counts
 * the batches of several sends. 0 or -ENOMEM.
 */
static int join_launches(struct import_calls *k)
{
	size_t n = (size_t)k->launches + 1;
	size_t *up, *sends;

	k->batches = 0;
	if (!k->launches)
		return 0;
	up = malloc(n * sizeof(*up));
	sends = calloc(n, sizeof(*sends));
	if (!up || !sends) {
		free(up);
		free(sends);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		up[i] = i;
	for (size_t i = 0; i < k->n; i++)
		if (k->c[i].launch && k->c[i].peer_launch)
			uf_join(up, k->c[i].launch, k->c[i].peer_launch);
	for (size_t i = 0; i < k->n; i++) {
		struct import_call *c = &k->c[i];

		if (!c->launch)
			c->launch = c->peer_launch;
		if (!c->launch)
			continue;
		c->launch = uf_root(up, c->launch);
		if (++sends[c->launch] == 2)
			k->batches++;
	}
	free(up);
	free(sends);
	return 0;
}

static int fill_entry(struct import_calls *k, const struct import_call *c, unsigned world,
		      struct trace_entry *e, const char *file)
{
	const unsigned *r = k->groups[c->group].ranks;
	unsigned nr = k->groups[c->group].n;

	e->line = k->binary || c->where > UINT32_MAX ? 0 : (unsigned)c->where;
	e->iteration = c->iteration;
	e->op = c->op;
	e->dtype = c->dtype;
	e->bytes = c->bytes;
	e->ready_us = c->ready_us;
	e->compute_us = -1;
	e->root = e->peer = -1;
	if (c->op == TRACE_OP_BROADCAST)
		e->root = c->root;
	if (c->op == TRACE_OP_SENDRECV) {
		e->root = c->root;
		e->peer = c->peer;
		e->batched = c->launch != 0;
		e->batch = (unsigned)(c->launch % ((uint64_t)TRACE_BATCH_MAX + 1));
	}
	if (world && nr == world && r[nr - 1] == world - 1)
		return 0; /* every rank: no group */
	e->group = malloc(nr * sizeof(*e->group));
	if (!e->group)
		return oom(k, file);
	memcpy(e->group, r, nr * sizeof(*e->group));
	e->ngroup = nr;
	return 0;
}

static bool entry_has(const struct trace_entry *e, int rank)
{
	if (!e->ngroup)
		return true;
	for (unsigned i = 0; i < e->ngroup; i++)
		if ((int)e->group[i] == rank)
			return true;
	return false;
}

/* A root, sender and receiver are in the entry's group as its
 * communicator has it: a call that names no ranks of its own (--world)
 * gets its process group's from the group's other calls. */
static int check_ends(struct import_calls *k, const struct import_input *in,
		      const struct import_call *c, const struct trace_entry *e)
{
	int bad = !entry_has(e, e->root) ? e->root : e->peer;
	char pg[sizeof(k->pgs[0].name)];

	if (e->root < 0 || (entry_has(e, e->root) && (e->peer < 0 || entry_has(e, e->peer))))
		return 0;
	diag_printable(k->pgs[c->pg].name, pg, sizeof(pg));
	return fail_at(k, in[c->file].name, c->where, "Process Group Ranks",
		       "rank %d is not in process group '%s' as its other calls list it (%u ranks from %u)",
		       bad, pg, e->ngroup, e->group[0]);
}

/*
 * A call outside every step's span on some rank's file (before the
 * first, between two, after the last) was issued in no iteration that
 * the profile bounds: left out, counted once a call, whatever its ranks;
 * its copies that were in a step would have been one rank's alone. None
 * left is an error: there is nothing to replay.
 */
static int drop_outside(struct import_calls *k, const char *file)
{
	size_t kept = 0;

	k->outside = 0;
	for (size_t i = 0; i < k->n; i++) {
		if (k->c[i].outside)
			k->outside++;
		else
			k->c[kept++] = k->c[i];
	}
	k->n = kept;
	if (!kept && k->outside)
		return diag_set(k->d, -EINVAL, "%s: steps: each of the %u calls is outside every profiler step's span (before the first, between two, after the last): none to replay",
				file, k->outside);
	return 0;
}

int import_calls_build(struct import_calls *k, const struct import_input *in, unsigned world,
		       struct trace *t)
{
	struct trace out = { .nentries = 0 };
	unsigned iteration = 0;
	size_t kept = 0;
	int err;

	/* the copies of one call side by side: keep the first, check the rest */
	qsort(k->c, k->n, sizeof(*k->c), cmp_call);
	for (size_t i = 0; i < k->n; i++) {
		const struct import_call *c = &k->c[i], *o = kept ? &k->c[kept - 1] : NULL;

		if (o && o->pg == c->pg && o->seq == c->seq && o->p2p == c->p2p &&
		    (!c->p2p || (o->root == c->root && o->peer == c->peer))) {
			err = c->p2p ? check_sides(k, in, o, c) : check_copy(k, in, o, c);
			if (err)
				return err;
			k->c[kept - 1].peer_launch = c->launch;
			k->c[kept - 1].outside |= c->outside;
			k->c[kept - 1].uneven |= c->uneven || c->bytes != o->bytes;
			k->c[kept - 1].both = true;
			k->c[kept - 1].copies++;
			if (gathers_shares(c->op)) {
				/* the whole buffer: the ranks' shares added */
				if (c->bytes > UINT64_MAX - o->sum)
					return fail_at(k, in[c->file].name, c->where, k->key,
						       "the ranks' bytes of call %u add up past 2^64",
						       c->seq);
				k->c[kept - 1].sum += c->bytes;
			} else if (c->bytes > o->bytes) {
				/* an uneven all-to-all: as if every rank moved
				 * what its fullest does, whose NIC sets the time */
				k->c[kept - 1].bytes = c->bytes;
			}
			continue;
		}
		k->c[kept] = *c;
		k->c[kept].sum = c->bytes;
		k->c[kept++].copies = 1;
	}
	k->n = kept;
	err = drop_outside(k, in[0].name);
	if (err)
		return err;
	k->uneven = k->uneven_shares = 0;
	for (size_t i = 0; i < k->n; i++) {
		struct import_call *c = &k->c[i];

		if (!c->uneven)
			continue;
		if (gathers_shares(c->op)) {
			c->bytes = mean_of_shares(c);
			k->uneven_shares++;
		} else {
			k->uneven++;
		}
	}
	for (size_t i = 0; i < k->n; i++) {
		if (k->c[i].p2p && !k->c[i].both) {
			err = check_lone_side(k, in, &k->c[i]);
			if (err)
				return err;
		}
	}
	err = join_launches(k);
	if (err)
		return oom(k, in[0].name);
	qsort(k->c, k->n, sizeof(*k->c), cmp_issue);
	out.entries = calloc(k->n ? k->n : 1, sizeof(*out.entries));
	if (!out.entries)
		return oom(k, in[0].name);
	snprintf(out.file, sizeof(out.file), "%s", in[0].name);
	for (size_t i = 0; i < k->n; i++) {
		const char *pg = k->pgs[k->c[i].pg].name;
		char name[TRACE_COMM_NAME_MAX];

		err = fill_entry(k, &k->c[i], world, &out.entries[i], in[0].name);
		out.nentries = i + 1; /* its group, if any, is the trace's to free */
		/* Each process group is a communicator of the trace, by its
		 * name where it is one ("0", "default_pg"), else by its place;
		 * a profile that names none leaves it to the group's ranks. */
		name[0] = '\0';
		if (trace_comm_name_valid(pg))
			snprintf(name, sizeof(name), "%s", pg);
		else if (pg[0])
			snprintf(name, sizeof(name), "pg%u", k->c[i].pg);
		if (!err)
			err = trace_comm_assign(&out, &out.entries[i], name, 0, k->d);
		if (!err)
			err = check_ends(k, in, &k->c[i], &out.entries[i]);
		if (err) {
			trace_destroy(&out);
			return err;
		}
		/* the profile's steps that issued calls, counted from 0 as a
		 * trace's iterations are (a step with none, a warm-up or an
		 * accumulation step, has nothing to replay) */
		if (i && k->c[i].iteration != k->c[i - 1].iteration)
			iteration++;
		out.entries[i].iteration = iteration;
		out.niterations = iteration + 1;
	}
	err = trace_gather_batches(&out);
	if (err) {
		trace_destroy(&out);
		return oom(k, in[0].name);
	}
	*t = out;
	return 0;
}

void import_calls_note_uneven(const struct import_calls *k, struct import_notes *notes)
{
	if (k->uneven)
		import_notes_add(notes, "%u all-to-all%s uneven across ranks (all_to_allv), each replayed even, every rank moving over the network what the fullest rank sent or received: the fullest NIC's time, the other ranks' traffic overstated",
				 k->uneven, k->uneven == 1 ? "" : "s");
	if (k->uneven_shares)
		import_notes_add(notes, "%u all-gather%s or reduce-scatter%s of unequal shares across ranks (lists of unequal tensors, which NCCL runs as one broadcast or reduce a share, grouped), each replayed as the even one of the same whole buffer, the sum of the shares",
				 k->uneven_shares, k->uneven_shares == 1 ? "" : "s",
				 k->uneven_shares == 1 ? "" : "s");
	if (k->batches)
		import_notes_add(notes, "%u batch_isend_irecv%s of several sends (the ranks' batches joined by their transfers), each replayed as one batch, its sends at once",
				 k->batches, k->batches == 1 ? "" : "s");
}

/* Whether rank @r has a file among those read. */
static bool has_file(const struct import_calls *k, unsigned r)
{
	for (size_t i = 0; i < k->nfile_ranks; i++)
		if (k->file_ranks[i] == (int)r)
			return true;
	return false;
}

void import_calls_note_partial(const struct import_calls *k, const struct import_input *in,
			       struct import_notes *notes)
{
	const struct import_call *first = NULL;
	unsigned partial = 0, absent = 0, missing = 0;

	/* one rank's file is that rank's view of the job, not a job cut
	 * short: said nothing, as the nccl-log importer says nothing */
	if (k->nfile_ranks < 2)
		return;
	for (size_t i = 0; i < k->nfile_ranks; i++)
		if (k->file_ranks[i] < 0)
			return;
	for (size_t i = 0; i < k->n; i++) {
		const struct import_call *c = &k->c[i];
		unsigned no_file = 0, r0 = 0;

		if (c->p2p)
			continue;
		for (unsigned j = 0; j < k->groups[c->group].n; j++)
			if (!has_file(k, k->groups[c->group].ranks[j]) && !no_file++)
				r0 = k->groups[c->group].ranks[j];
		if (!no_file || c->copies >= k->groups[c->group].n)
			continue;
		if (!partial++) {
			first = c;
			absent = r0;
			missing = no_file;
		}
	}
	if (first)
		import_notes_add(notes, "%u collective%s recorded by only some of their ranks (the first: %s, %s byte %" PRIu64 ", %u of %u, no file of rank %u%s): some ranks' files missing, each such call from its other ranks' files alone",
				 partial, partial == 1 ? "" : "s", trace_op_name(first->op),
				 in[first->file].name, first->where, first->copies,
				 k->groups[first->group].n, absent, missing > 1 ? " and others" : "");
}

void import_calls_note_steps(const struct import_calls *k, const char *step,
			     struct import_notes *notes)
{
	if (k->outside)
		import_notes_add(notes, "%u collective%s outside every %s span on some rank (before the first step, between two, after the last), left out",
				 k->outside, k->outside == 1 ? "" : "s", step);
	if (k->stepless && k->stepless == k->files)
		import_notes_add(notes, "no %s in the profile: the calls are one iteration, each file's ready from its first call",
				 step);
	else if (k->stepless)
		import_notes_add(notes, "%u of the %u files with no %s: each one's calls as one step from its first call",
				 k->stepless, k->files, step);
}
