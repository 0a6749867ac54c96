/* SPDX-License-Identifier: MIT */
/*
 * kineto: PyTorch profiler traces (torch.profiler's Chrome-trace JSON,
 * plain or gzip), one file per rank or one rank's.
 *
 * The collectives are the "record_param_comms" events PyTorch's c10d
 * records with their arguments (PyTorch 2.1 and later, torch/csrc/
 * distributed/c10d/ParamCommsUtils): "Collective name", "In msg nelems",
 * "Out msg nelems", "dtype", "Group size", "Process Group Name",
 * "Process Group Ranks", "Rank". The NCCL kernels carry the same
 * arguments; they are the same calls seen on the GPU and are not counted
 * twice. "ProfilerStep#N" events bound the iterations: a collective is in
 * the step whose span holds it, ready at its start from the step's start;
 * one in no step's span is left out, counted in the notes
 * (import_calls.h).
 *
 * The file is read as a stream (json_stream.h): the top level's keys are
 * skipped but for "distributedInfo" (this file's rank) and
 * "traceEvents", whose events are taken one at a time (each parsed alone
 * with jansson), so a trace of any size needs the memory of one event and
 * of the collectives found.
 * Sends, receives and broadcasts carry their peer or root from PyTorch
 * 2.5 ("Dst Rank", "Src Rank", a broadcast's "Rank": on_p2p,
 * on_broadcast); a send's or a receive's of 2.2 to 2.4 is in the title
 * of the event its call opens (import_kineto_p2p.h: on_peerless, then
 * peers_from_titles at the file's end); other sends, receives and
 * broadcasts before 2.5 are left out, and so are barriers, which
 * move nothing of the model's, all counted in the notes. A missing "dtype" or "Process Group Ranks"
 * is asked for (--dtype, --group, --world). Traces before PyTorch 2.1,
 * whose calls carry no arguments, are read from their nccl:* events and
 * NCCL kernels (import_kineto_old.h).
 */
#include "importer.h"


#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "array_grow.h"
#include "import_calls.h"
#include "import_kineto_old.h"
#include "import_kineto_launch.h"
#include "import_kineto_p2p.h"
#include "json_stream.h"
#include "torch_dtype.h"

#define EVENT_MAX (1u << 20) /* bytes of one event's text */
#define JTEXT_EVENT { .max = EVENT_MAX, .key = "traceEvents", .what = "an event" }

/*
 * What PyTorch names a collective in "Collective name", as the trace's.
 * A send's, a receive's and a broadcast's peer or root is read where the
 * profiler records it (on_p2p, on_broadcast); reduce, gather and scatter
 * have no op in the trace.
 */
static const struct {
	const char *name;
	enum trace_op op;
	int kind; /* 0 read, else enum kskip + 1: what it is when left out */
} colls[] = {
	{ "allreduce", TRACE_OP_ALLREDUCE, 0 },
	{ "all_reduce", TRACE_OP_ALLREDUCE, 0 },
	{ "allreduce_coalesced", TRACE_OP_ALLREDUCE, 0 },
	{ "allgather", TRACE_OP_ALL_GATHER, 0 },
	{ "all_gather", TRACE_OP_ALL_GATHER, 0 },
	{ "_allgather_base", TRACE_OP_ALL_GATHER, 0 },
	{ "all_gather_into_tensor", TRACE_OP_ALL_GATHER, 0 },
	{ "allgather_into_tensor_coalesced", TRACE_OP_ALL_GATHER, 0 },
	{ "reduce_scatter", TRACE_OP_REDUCE_SCATTER, 0 },
	{ "_reduce_scatter_base", TRACE_OP_REDUCE_SCATTER, 0 },
	{ "reduce_scatter_tensor", TRACE_OP_REDUCE_SCATTER, 0 },
	{ "reduce_scatter_tensor_coalesced", TRACE_OP_REDUCE_SCATTER, 0 },
	{ "all_to_all", TRACE_OP_ALLTOALL, 0 },
	{ "alltoall", TRACE_OP_ALLTOALL, 0 },
	{ "alltoall_base", TRACE_OP_ALLTOALL, 0 },
	{ "all_to_allv", TRACE_OP_ALLTOALL, 0 },
	{ "send", TRACE_OP_SENDRECV, KSKIP_P2P + 1 },
	{ "recv", TRACE_OP_SENDRECV, KSKIP_P2P + 1 },
	/* the sender is not known until it arrives: never a peer */
	{ "recvAnysource", TRACE_OP_SENDRECV, KSKIP_P2P + 1 },
	{ "broadcast", TRACE_OP_BROADCAST, KSKIP_BROADCAST + 1 },
	/* out of place: ProcessGroupNCCL::_broadcast_oop records its own
	 * rank_ as "Rank", not the root (as _reduce_oop does) */
	{ "_broadcast_oop", TRACE_OP_BROADCAST, KSKIP_ROOTED + 1 },
	{ "reduce", TRACE_OP_BROADCAST, KSKIP_ROOTED + 1 },
	{ "_reduce_oop", TRACE_OP_BROADCAST, KSKIP_ROOTED + 1 },
	{ "gather", TRACE_OP_BROADCAST, KSKIP_ROOTED + 1 },
	{ "scatter", TRACE_OP_BROADCAST, KSKIP_ROOTED + 1 },
	{ "barrier", TRACE_OP_ALLREDUCE, KSKIP_NOTHING + 1 },
	{ "wait", TRACE_OP_ALLREDUCE, KSKIP_NOTHING + 1 },
};

/* A send or receive of PyTorch 2.2 to 2.4, until its title is found. */
struct kwait {
	struct import_call c; /* all but its ranks */
	char *pg;
	int64_t pid, tid;
	double end;           /* the call's span: [c.ts, end] */
	bool recv;
};

struct kstate {
	struct import_calls calls;
	struct kp2p titles;   /* the file's "nccl:send A->B" events */
	struct klaunch launches; /* the file's communication events, by thread */
	struct kwait *wait;   /* the file's sends and receives with no peer */
	size_t nwait, cap_wait;
	struct kold old;      /* the file's calls as PyTorch before 2.1 has them */
	bool new_style;       /* the file has record_param_comms calls */
	const struct import_options *o;
	int rank, world;      /* the file's distributedInfo; -1 when absent */
	unsigned skipped[KSKIP_N]; /* what is left out, by kind */
	unsigned file;
};

/* A whole number argument: JSON integer, or a string of digits (PyTorch
 * writes some as strings). */
static int arg_uint(const json_t *args, const char *key, uint64_t *out)
{
	const json_t *v = json_object_get(args, key);
	char *end;

	if (json_is_integer(v) && json_integer_value(v) >= 0) {
		*out = (uint64_t)json_integer_value(v);
		return 0;
	}
	if (json_is_string(v) && *json_string_value(v)) {
		errno = 0;
		*out = strtoull(json_string_value(v), &end, 10);
		if (!errno && !*end && json_string_value(v)[0] != '-')
			return 0;
	}
	return -EINVAL;
}

/*
 * "[0, 1, 2, 3]" (a string, as PyTorch writes it) or a JSON array. The
 * profiler cuts a list of more than 30: "[0, 1, ..., 29, ...]" (PyTorch
 * 2.1 to 2.x, torch/csrc/profiler/util.cpp format_list, kTruncatLength),
 * "[0, 1, ..., 28, ..., 63]" (later: the first 29 and the last); then
 * *@cut is set and the ranks are those it lists.
 */
static int arg_ranks(struct jstream *s, const json_t *v, unsigned **out, unsigned *n, bool *cut)
{
	size_t cap = 0, cnt = 0;
	unsigned *r = NULL;

	*cut = false;
	if (json_is_array(v)) {
		for (size_t i = 0; i < json_array_size(v); i++) {
			const json_t *x = json_array_get(v, i);

			if (!json_is_integer(x) || json_integer_value(x) < 0 ||
			    json_integer_value(x) > INT32_MAX || array_grow((void **)&r, cnt, &cap, sizeof(*r)))
				goto bad;
			r[cnt++] = (unsigned)json_integer_value(x);
		}
	} else if (json_is_string(v)) {
		const char *p = json_string_value(v);

		while (*p == ' ' || *p == '[')
			p++;
		while (*p && *p != ']') {
			char *end;
			unsigned long x;

			if (!strncmp(p, "...", 3)) {
				*cut = true;
				for (p += 3; *p == ' ' || *p == ','; p++)
					;
				continue;
			}
			errno = 0;
			x = strtoul(p, &end, 10);
			if (errno || end == p || x > INT32_MAX || array_grow((void **)&r, cnt, &cap, sizeof(*r)))
				goto bad;
			r[cnt++] = (unsigned)x;
			p = end;
			while (*p == ' ' || *p == ',')
				p++;
		}
	} else {
		goto bad;
	}
	if (!cnt || !import_ranks_sort(r, cnt))
		goto bad;
	*out = r;
	*n = (unsigned)cnt;
	return 0;
bad:
	free(r);
	return jstream_fail(s, "Process Group Ranks", "expected distinct ranks, like \"[0, 1, 2, 3]\"");
}

/*
 * An all_to_allv's "In split size" or "Out split size" ("[1000, 3000]",
 * elements to or from each place of the group): their sum and the one at
 * @place, in *@sum and *@own, *@uneven set where two differ. Their count;
 * 0 where the list is absent, empty (an even all-to-all) or cut by the
 * profiler ("[0, 1, ..., 29, ...]"); -1 where it is not a list of whole
 * numbers.
 */
static int arg_splits(const json_t *args, const char *key, uint64_t place, uint64_t *sum,
		      uint64_t *own, bool *uneven)
{
	const json_t *v = json_object_get(args, key);
	const char *p = json_is_string(v) ? json_string_value(v) : "";
	unsigned long long first = 0;
	int n = 0;

	*sum = *own = 0;
	if (v && !json_is_string(v))
		return -1;
	if (strstr(p, "..."))
		return 0;
	while (*p == ' ')
		p++;
	if (*p && *p++ != '[')
		return -1;
	while (*p == ' ')
		p++;
	while (*p && *p != ']') {
		char *end;
		unsigned long long x;

		errno = 0;
		x = strtoull(p, &end, 10);
		if (errno || end == p || *p == '-' || *p == '+' || x > UINT64_MAX / 2 - *sum ||
		    n == INT32_MAX)
			return -1;
		if ((uint64_t)n == place)
			*own = x;
		if (!n)
			first = x;
		*uneven |= x != first;
		*sum += x;
		n++;
		for (p = end; *p == ' ' || *p == ','; p++)
			;
	}
	return *p == ']' || !n ? n : -1;
}

/*
 * An all-to-all's elements as the trace has them, every rank's alike, in
 * *@out: where the rank's splits say it (all_to_allv), the even all-to-all
 * whose ranks send and receive over the network as much as this rank does
 * at most, max(sent, received to and from other ranks) x n / (n - 1);
 * else its larger side. *@uneven: the rank's sizes differ. A split list
 * that is no list of whole numbers, or not one a place of the group
 * ("Group size"), is an error.
 */
static int alltoall_nelems(struct jstream *s, const json_t *args, uint64_t in, uint64_t out,
			   uint64_t *nelems, bool *uneven)
{
	uint64_t place, size, in_sum, in_own, out_sum, out_own, off;
	int n, m;

	*uneven = in != out;
	*nelems = in > out ? in : out;
	if (arg_uint(args, "Rank", &place))
		place = UINT64_MAX;
	n = arg_splits(args, "In split size", place, &in_sum, &in_own, uneven);
	m = arg_splits(args, "Out split size", place, &out_sum, &out_own, uneven);
	if (n < 0 || m < 0)
		return jstream_fail(s, n < 0 ? "In split size" : "Out split size",
				    "expected a list of whole numbers, like \"[1000, 3000]\"");
	if (!n || !m)
		return 0;
	if (n != m)
		return jstream_fail(s, "Out split size", "%d places where 'In split size' has %d", m, n);
	if (!arg_uint(args, "Group size", &size) && size != (uint64_t)n)
		return jstream_fail(s, "In split size", "%d places in a group of %llu ranks", n,
				    (unsigned long long)size);
	if (n < 2 || place >= (uint64_t)n)
		return 0;
	off = in_sum - in_own > out_sum - out_own ? in_sum - in_own : out_sum - out_own;
	*nelems = off > UINT64_MAX / (unsigned)n ? UINT64_MAX :
						   (off * (unsigned)n + (unsigned)n - 2) / ((unsigned)n - 1);
	return 0;
}

/* Is every one of the @n sorted @listed ranks one of the @m sorted @all? */
static bool ranks_within(const unsigned *listed, unsigned n, const unsigned *all, unsigned m)
{
	unsigned j = 0;

	for (unsigned i = 0; i < n; i++) {
		while (j < m && all[j] < listed[i])
			j++;
		if (j == m || all[j] != listed[i])
			return false;
	}
	return true;
}

/*
 * The ranks of a group whose "Process Group Ranks" the profiler cut
 * (@listed, @n of them): "Global rank start" and "Global rank stride"
 * (later releases' saveNcclMeta, from ProcessGroupNCCL's
 * getGlobalRankStartAndStride: a stride of -1 when the ranks are not
 * evenly spaced) with "Group size" say all of them; else a group of
 * distributedInfo's world_size is every rank; else --group says them.
 */
static int cut_group(struct kstate *k, struct jstream *s, const json_t *args, const char *pg,
		     const unsigned *listed, unsigned n, unsigned *id)
{
	const struct import_group *g = import_options_find_group(k->o, pg);
	json_int_t start = json_integer_value(json_object_get(args, "Global rank start"));
	json_int_t stride = json_integer_value(json_object_get(args, "Global rank stride"));
	uint64_t size = 0;
	unsigned *r;
	char q[48];
	int err;

	if (arg_uint(args, "Group size", &size) || size < n || size > 65536)
		return jstream_fail(s, "Process Group Ranks", "cut short, and no 'Group size' to say how many there are");
	if (json_is_integer(json_object_get(args, "Global rank start")) &&
	    json_is_integer(json_object_get(args, "Global rank stride")) && start >= 0 && stride > 0 &&
	    start + stride * (json_int_t)(size - 1) <= INT32_MAX) {
		r = malloc(size * sizeof(*r));
		if (!r)
			return s->err = diag_set(s->d, -ENOMEM, "%s: out of memory", s->name);
		for (uint64_t i = 0; i < size; i++)
			r[i] = (unsigned)(start + stride * (json_int_t)i);
		if (!ranks_within(listed, n, r, (unsigned)size)) {
			free(r);
			return jstream_fail(s, "Global rank stride", "%" JSON_INTEGER_FORMAT " ranks from %" JSON_INTEGER_FORMAT " by %" JSON_INTEGER_FORMAT " are not the 'Process Group Ranks' listed",
					(json_int_t)size, start, stride);
		}
		err = import_calls_group(&k->calls, r, (unsigned)size, id, s->name);
		free(r);
		return err;
	}
	if (g && *pg && g->n == size && ranks_within(listed, n, g->ranks, g->n))
		return import_calls_group(&k->calls, g->ranks, g->n, id, s->name);
	if (g && *pg)
		return jstream_fail(s, "Process Group Ranks", "--group %s gives %u ranks, the profile %" PRIu64 " from %u, ...",
				diag_printable(pg, q, sizeof(q)), g->n, size, listed[0]);
	if ((k->world > 0 && size == (uint64_t)k->world) || (k->o->world && size == k->o->world))
		return import_calls_world_group(&k->calls, (unsigned)size, id, s->name);
	return jstream_fail(s, "Process Group Ranks", "the profiler lists only %u of the group's %" PRIu64 " ranks (it cuts a list past 30): give --group %s=RANKS, or --world N if they are every rank",
			n, size, *pg ? diag_printable(pg, q, sizeof(q)) : "NAME");
}

/* The call's group: "Process Group Ranks", else what --group says of its
 * "Process Group Name", else --world's every rank. */
static int call_group(struct kstate *k, struct jstream *s, const json_t *args, const char *pg,
		      unsigned *id)
{
	const struct import_group *g = import_options_find_group(k->o, pg);
	const json_t *v = json_object_get(args, "Process Group Ranks");
	unsigned *ranks = NULL, nranks = 0;
	bool cut;
	char q[48];
	int err;

	if (v) {
		if (arg_ranks(s, v, &ranks, &nranks, &cut))
			return s->err;
		if (cut)
			err = cut_group(k, s, args, pg, ranks, nranks, id);
		else
			err = import_calls_group(&k->calls, ranks, nranks, id, s->name);
		free(ranks);
		return err;
	}
	if (g && *pg)
		return import_calls_group(&k->calls, g->ranks, g->n, id, s->name);
	if (k->o->world)
		return import_calls_world_group(&k->calls, k->o->world, id, s->name);
	return jstream_fail(s, "Process Group Ranks", "missing: give --group %s=RANKS, or --world N if the call is every rank's",
			*pg ? diag_printable(pg, q, sizeof(q)) : "NAME");
}

/* Is global rank @r one of group @id's? */
static bool in_group(const struct kstate *k, unsigned id, uint64_t r)
{
	const unsigned *g = k->calls.groups[id].ranks;
	unsigned n = k->calls.groups[id].n;

	for (unsigned i = 0; i < n; i++)
		if (g[i] == r)
			return true;
	return false;
}

/*
 * One side of a send/receive (@c: its bytes and type). Its peer is a
 * global rank: torch/csrc/profiler/util.cpp's saveNcclMeta writes "Dst
 * Rank" on a send and "Src Rank" on a receive as groupRanks[rank], rank
 * being what ProcessGroupNCCL::send/recv record in the call's "Rank" (the
 * peer's place in the group: RECORD_PARAM_COMMS_DATA(..., dstRank, //
 * dst rank, "send", ...)); PyTorch 2.5 and later (pytorch/pytorch#130812).
 * So "Rank" is not this file's rank here: import_calls_end_p2p gives it.
 */
static int on_p2p(struct kstate *k, struct jstream *s, const json_t *args, struct import_call *c,
		  const char *pg, bool recv)
{
	const char *key = recv ? "Src Rank" : "Dst Rank";
	uint64_t peer;
	char q[48];
	int err;

	if (arg_uint(args, key, &peer) || peer > INT32_MAX)
		return jstream_fail(s, key, "expected a rank, like 1");
	err = call_group(k, s, args, pg, &c->group);
	if (err)
		return s->err = err;
	if (!in_group(k, c->group, peer))
		return jstream_fail(s, key, "rank %" PRIu64 " is not in process group '%s' (%u ranks from %u)",
				peer, diag_printable(pg, q, sizeof(q)), k->calls.groups[c->group].n,
				k->calls.groups[c->group].ranks[0]);
	c->rank = k->rank;
	c->recv = recv;
	c->peer = (int)peer;
	err = import_calls_add_p2p(&k->calls, c, pg, s->name);
	return err ? (s->err = err) : 0;
}
/*
 * A broadcast: its root is the group's member at the place the call's
 * "Rank" says (ProcessGroupNCCL::broadcast records opts.rootRank there:
 * RECORD_PARAM_COMMS_DATA(..., opts.rootRank, // root rank, "broadcast",
 * ...); saveNcclMeta writes it as "Rank" from PyTorch 2.5,
 * pytorch/pytorch#129528), the same on every rank: not the file's rank.
 */
static int on_broadcast(struct kstate *k, struct jstream *s, const json_t *args,
			struct import_call *c, const char *pg)
{
	uint64_t place;
	unsigned n;
	int err;

	if (arg_uint(args, "Rank", &place))
		return jstream_fail(s, "Rank", "expected the root's place in the group, like 0");
	err = call_group(k, s, args, pg, &c->group);
	if (err)
		return s->err = err;
	n = k->calls.groups[c->group].n;
	if (place >= n)
		return jstream_fail(s, "Rank", "a broadcast's 'Rank' is its root's place in the group, 0 to %u, not %" PRIu64,
				n - 1, place);
	c->root = (int)k->calls.groups[c->group].ranks[place];
	c->rank = k->rank;
	err = import_calls_add(&k->calls, c, pg, s->name);
	return err ? (s->err = err) : 0;
}

/* Is a call of kind @kind left out for what its arguments lack: a send's
 * or a receive's peer, a broadcast's root (PyTorch before 2.5)? */
static bool lacks_peer(const json_t *args, const char *name, int kind)
{
	if (kind == KSKIP_P2P + 1 && !strcmp(name, "send"))
		return !json_object_get(args, "Dst Rank");
	if (kind == KSKIP_P2P + 1 && !strcmp(name, "recv"))
		return !json_object_get(args, "Src Rank");
	if (kind == KSKIP_BROADCAST + 1)
		return !json_object_get(args, "Rank");
	return kind != 0;
}

/* The event's "pid" or "tid": an integer, else -1 (kineto names a GPU
 * stream's "stream 7"; the calls and their titles are on CPU threads). */
static int64_t event_id(const json_t *e, const char *key)
{
	const json_t *v = json_object_get(e, key);

	return json_is_integer(v) ? (int64_t)json_integer_value(v) : -1;
}

/* A send or receive whose arguments name no peer: kept until the file's
 * end, when its title may say it (peers_from_titles). */
static int on_peerless(struct kstate *k, struct jstream *s, const json_t *e, const json_t *args,
		       struct import_call *c, const char *pg, bool recv)
{
	struct kwait *w;
	int err = call_group(k, s, args, pg, &c->group);

	if (err)
		return s->err = err;
	if (k->nwait == k->cap_wait &&
	    array_grow((void **)&k->wait, k->nwait, &k->cap_wait, sizeof(*k->wait)))
		return s->err = diag_set(s->d, -ENOMEM, "%s: out of memory", s->name);
	w = &k->wait[k->nwait];
	*w = (struct kwait){ .c = *c, .pg = strdup(pg), .pid = event_id(e, "pid"),
			     .tid = event_id(e, "tid"), .recv = recv };
	if (!w->pg)
		return s->err = diag_set(s->d, -ENOMEM, "%s: out of memory", s->name);
	w->end = c->ts + json_number_value(json_object_get(e, "dur"));
	k->nwait++;
	return 0;
}

/* An all-gather's output is its input from every rank of its group, a
 * reduce-scatter's input its output to every rank (ProcessGroupNCCL's
 * RECORD_PARAM_COMMS_DATA: the one nelems times the group's size): another
 * pair is no such call. */
static int check_gather_nelems(const struct kstate *k, struct jstream *s,
			       const struct import_call *c, uint64_t in, uint64_t out)
{
	uint64_t n = k->calls.groups[c->group].n, whole, part;

	if (c->op != TRACE_OP_ALL_GATHER && c->op != TRACE_OP_REDUCE_SCATTER)
		return 0;
	whole = c->op == TRACE_OP_ALL_GATHER ? out : in;
	part = c->op == TRACE_OP_ALL_GATHER ? in : out;
	if (whole % n == 0 && whole / n == part)
		return 0;
	return jstream_fail(s, c->op == TRACE_OP_ALL_GATHER ? "Out msg nelems" : "In msg nelems",
			    "%" PRIu64 " elements is not %s msg nelems %" PRIu64 " x the group's %" PRIu64 " ranks",
			    whole, c->op == TRACE_OP_ALL_GATHER ? "In" : "Out", part, n);
}

static int on_collective(struct kstate *k, struct jstream *s, const json_t *e, const json_t *args,
			 double ts)
{
	const char *name = json_string_value(json_object_get(args, "Collective name"));
	const char *dt = json_string_value(json_object_get(args, "dtype"));
	const char *pg = json_string_value(json_object_get(args, "Process Group Name"));
	struct import_call c = { .ts = ts, .rank = k->rank, .file = k->file, .where = s->line,
				 .root = -1, .peer = -1 };
	uint64_t in = 0, out = 0, nelems, rank;
	bool peerless;
	char q[44];
	size_t i;
	int err;

	for (i = 0; i < sizeof(colls) / sizeof(colls[0]) && strcmp(colls[i].name, name); i++)
		;
	if (i == sizeof(colls) / sizeof(colls[0]))
		return jstream_fail(s, "Collective name", "'%s' is not one gdrlab's trace has",
				diag_printable(name, q, sizeof(q)));
	/* a send's or a receive's peer may be in its title (2.2 to 2.4) */
	peerless = lacks_peer(args, name, colls[i].kind);
	if (peerless && (strcmp(name, "send") && strcmp(name, "recv"))) {
		k->skipped[colls[i].kind - 1]++;
		return 0;
	}
	c.op = colls[i].op;
	if (!dt && k->o->has_dtype)
		c.dtype = k->o->dtype;
	else if (!dt)
		return jstream_fail(s, "dtype", "missing: give --dtype");
	else if (torch_scalar_type(dt, &c.dtype))
		return jstream_fail(s, "dtype", "'%s' is not a type gdrlab knows (Float, Half, BFloat16, ...)",
				diag_printable(dt, q, sizeof(q)));
	if (arg_uint(args, "In msg nelems", &in) || arg_uint(args, "Out msg nelems", &out))
		return jstream_fail(s, "In msg nelems", "expected whole numbers in 'In msg nelems' and 'Out msg nelems'");
	/* the trace's bytes are the whole buffer: an all-gather's output,
	 * an all-to-all's send buffer as an even one (alltoall_nelems), the
	 * others' input (a send's and a receive's tensor) */
	nelems = c.op == TRACE_OP_ALL_GATHER ? out : in;
	if (c.op == TRACE_OP_ALLTOALL && (err = alltoall_nelems(s, args, in, out, &nelems, &c.uneven)))
		return err;
	if (nelems > (uint64_t)INT64_MAX / 8) /* the largest element */
		return jstream_fail(s, "In msg nelems", "too many elements");
	c.bytes = nelems * trace_dtype_size(c.dtype);
	if (!c.bytes) {
		k->skipped[KSKIP_NOTHING]++;
		return 0;
	}
	if (c.op == TRACE_OP_SENDRECV && peerless)
		return on_peerless(k, s, e, args, &c, pg ? pg : "", !strcmp(name, "recv"));
	if (c.op == TRACE_OP_SENDRECV)
		return on_p2p(k, s, args, &c, pg ? pg : "", !strcmp(name, "recv"));
	if (c.op == TRACE_OP_BROADCAST)
		return on_broadcast(k, s, args, &c, pg ? pg : "");
	if (c.rank < 0 && (arg_uint(args, "Rank", &rank) || rank > INT32_MAX))
		return jstream_fail(s, "Rank", "neither distributedInfo nor the event says this file's rank");
	err = call_group(k, s, args, pg ? pg : "", &c.group);
	if (err)
		return s->err = err;
	err = check_gather_nelems(k, s, &c, in, out);
	if (err)
		return err;
	/* without distributedInfo: "Rank" is the file's place in the call's
	 * group (ProcessGroupNCCL records its own rank_), its global rank
	 * the group's rank of that place (PyTorch sorts a group's ranks,
	 * new_group) */
	if (c.rank < 0) {
		const unsigned *g = k->calls.groups[c.group].ranks, n = k->calls.groups[c.group].n;

		if (rank >= n)
			return jstream_fail(s, "Rank", "this file's place in its group of %u, 0 to %u, not %" PRIu64,
					n, n - 1, rank);
		c.rank = (int)g[rank];
	}
	err = import_calls_add(&k->calls, &c, pg ? pg : "", s->name);
	return err ? (s->err = err) : 0;
}

static int on_event(struct kstate *k, struct jstream *s, const char *text, size_t len)
{
	json_error_t je;
	json_t *e = json_loadb(text, len, 0, &je);
	const json_t *args;
	const char *name, *cat;
	bool gpu_copy;
	double ts;
	int err = 0;

	if (!e || !json_is_object(e)) {
		char why[sizeof(je.text)];

		json_decref(e);
		/* jansson quotes the text near the fault, newlines and all */
		return jstream_fail(s, "traceEvents", "an event that is not a JSON object%s%s",
				e ? "" : ": ", e ? "" : diag_printable(je.text, why, sizeof(why)));
	}
	name = json_string_value(json_object_get(e, "name"));
	cat = json_string_value(json_object_get(e, "cat"));
	ts = json_number_value(json_object_get(e, "ts"));
	args = json_object_get(e, "args");
	/* kineto copies a user annotation, ProfilerStep#N too, onto the GPU
	 * stream its kernels ran on ("gpu_user_annotation", libkineto's
	 * GenericActivityProfiler createUserGpuSpan), spanning those kernels
	 * on the GPU's clock: not a step of the host's */
	gpu_copy = cat && !strcmp(cat, "gpu_user_annotation");
	if (name && !strncmp(name, "ProfilerStep#", 13) && !gpu_copy) {
		/* its span bounds its calls; without "dur" (not an "X"
		 * event) it reaches the next step's start */
		const json_t *dur = json_object_get(e, "dur");

		err = import_calls_step(&k->calls, ts, json_is_number(dur) ? json_number_value(dur) : -1,
					s->name);
		if (err)
			s->err = err;
	} else if (name && !strcmp(name, "record_param_comms") && json_is_object(args) &&
		   json_is_string(json_object_get(args, "Collective name"))) {
		size_t before = k->calls.n;
		bool p2p;

		k->new_style = true;
		err = on_collective(k, s, e, args, ts);
		p2p = k->calls.n > before && k->calls.c[k->calls.n - 1].p2p;
		if (!err && klaunch_add(&k->launches, event_id(e, "pid"), event_id(e, "tid"), ts,
					p2p ? KLAUNCH_P2P : KLAUNCH_OTHER, k->calls.n - 1))
			err = s->err = diag_set(s->d, -ENOMEM, "%s: out of memory", s->name);
	} else if (name && (!strncmp(name, "nccl:", 5) || !strncmp(name, "ncclKernel_", 11) ||
			    !strncmp(name, "ncclDevKernel_", 14))) {
		/* PyTorch before 2.1's calls and the kernels that say their
		 * types (import_kineto_old.h); 2.2 to 2.4's titles of sends
		 * and receives, on the host (not kineto's GPU copies) */
		struct kp2p_title pt = { .pid = event_id(e, "pid"), .tid = event_id(e, "tid"),
					 .ts = ts, .line = s->line };

		if (!gpu_copy && kp2p_parse(name, &pt.recv, &pt.self, &pt.peer) &&
		    kp2p_add(&k->titles, &pt))
			err = s->err = diag_set(s->d, -ENOMEM, "%s: out of memory", s->name);
		/* a batch_isend_irecv ends with "nccl:coalesced"; any other
		 * record function of a call ends a batch's sends before it */
		if (!err && !gpu_copy && !strncmp(name, "nccl:", 5) &&
		    klaunch_add(&k->launches, pt.pid, pt.tid, ts,
				strcmp(name, "nccl:coalesced") ? KLAUNCH_OTHER : KLAUNCH_COALESCED, 0))
			err = s->err = diag_set(s->d, -ENOMEM, "%s: out of memory", s->name);
		if (!err)
			err = kold_event(&k->old, e, name, ts, s->line, s->name, s->d);
		if (err)
			s->err = err;
	}
	/* other events with the same arguments (the NCCL kernels, PyTorch's
	 * own annotations) are copies of a record_param_comms call */
	json_decref(e);
	return err;
}

/* The top level's "distributedInfo": {"rank": R, "world_size": N, ...}. */
static int on_distributed(struct kstate *k, struct jstream *s, const char *text, size_t len)
{
	json_t *v = json_loadb(text, len, 0, NULL);
	uint64_t r, w;

	if (json_is_object(v) && !arg_uint(v, "rank", &r) && r <= INT32_MAX)
		k->rank = (int)r;
	if (json_is_object(v) && !arg_uint(v, "world_size", &w) && w <= INT32_MAX)
		k->world = (int)w;
	json_decref(v);
	return 0;
}

/* The array of "traceEvents" (@c its first byte), one event at a time. */
static int read_events(struct kstate *k, struct jstream *s, struct jtext *t, int c)
{
	int after;

	if (c != '[')
		return jstream_fail(s, "traceEvents", "expected an array");
	c = jstream_next(s);
	if (c == ']')
		return 0;
	for (;;) {
		unsigned first = s->line, last;

		t->len = 0;
		if (c != '{')
			return jstream_fail(s, "traceEvents", "expected an event object");
		if (jstream_value(s, c, t, &after))
			return s->err;
		/* its errors and its entry name the line it starts on */
		last = s->line;
		s->line = first;
		if (on_event(k, s, t->buf, t->len))
			return s->err;
		s->line = last;
		c = jstream_next(s);
		if (c == ']')
			return 0;
		if (c != ',')
			return jstream_fail(s, "traceEvents", "expected ',' or ']' after an event");
		c = jstream_next(s);
	}
}

/* The top-level object: its keys, "traceEvents" streamed. */
static int read_file(struct kstate *k, struct jstream *s)
{
	struct jtext key = JTEXT_EVENT, t = JTEXT_EVENT;
	bool events = false;
	int c = jstream_next(s), after = -2, err = 0;

	if (c != '{')
		err = jstream_fail(s, "json", "expected a JSON object (a PyTorch profiler trace)");
	c = err ? -1 : jstream_next(s);
	while (!err && c != '}') {
		key.len = 0;
		if (c != '"') {
			err = jstream_fail(s, "json", "expected a key");
			break;
		}
		if (jstream_string(s, &key) || jstream_next(s) != ':') {
			err = jstream_fail(s, "json", "expected ':' after a key");
			break;
		}
		key.buf[key.len - 1] = '\0'; /* its closing quote */
		c = jstream_next(s);
		if (!strcmp(key.buf, "traceEvents")) {
			err = read_events(k, s, &t, c);
			events = true;
			after = -2;
		} else if (!strcmp(key.buf, "distributedInfo")) {
			t.len = 0;
			err = jstream_value(s, c, &t, &after);
			if (!err)
				err = on_distributed(k, s, t.buf, t.len);
		} else {
			err = jstream_value(s, c, NULL, &after);
		}
		if (err)
			break;
		c = after == -2 ? jstream_next(s) : after;
		if (c == ',')
			c = jstream_next(s);
		else if (c != '}')
			err = jstream_fail(s, "json", "expected ',' or '}' after a value");
	}
	if (!err && !events)
		err = jstream_fail(s, "traceEvents", "missing: not a PyTorch profiler trace");
	free(key.buf);
	free(t.buf);
	return err ? err : s->err;
}

static void waits_clear(struct kstate *k)
{
	for (size_t i = 0; i < k->nwait; i++)
		free(k->wait[i].pg);
	k->nwait = 0;
	kp2p_clear(&k->titles);
}

/* A title's fault, at its line (the file is read to its end: no byte). */
static int title_fail(struct jstream *s, const struct kp2p_title *t, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int title_fail(struct jstream *s, const struct kp2p_title *t, const char *fmt, ...)
{
	char key[40], msg[DIAG_MSG_MAX];
	va_list ap;

	snprintf(key, sizeof(key), "nccl:%s %u%s%u", t->recv ? "recv" : "send", t->self,
		 t->recv ? "<-" : "->", t->peer);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return s->err = diag_at(s->d, -EINVAL, s->name, t->line, 0, key, "%s", msg);
}

/*
 * The file's sends and receives with no peer in their arguments, each
 * given the peer of the title opened within its span on its thread
 * (import_kineto_p2p.h), in the order the file has them; those with
 * none are left out. The title's places are in the call's group: the
 * first is this file's, which distributedInfo's rank must be.
 */
static int peers_from_titles(struct kstate *k, struct jstream *s)
{
	int err = 0;

	kp2p_sort(&k->titles);
	for (size_t i = 0; i < k->nwait && !err; i++) {
		struct kwait *w = &k->wait[i];
		const struct kp2p_title *t = kp2p_take(&k->titles, w->pid, w->tid, w->c.ts, w->end,
						       w->recv);
		const unsigned *g = k->calls.groups[w->c.group].ranks;
		unsigned n = k->calls.groups[w->c.group].n;
		char q[48];

		if (!t) {
			k->skipped[KSKIP_P2P]++;
			continue;
		}
		if (t->self >= n || t->peer >= n)
			return title_fail(s, t, "place %u is not in process group '%s' (%u ranks, places 0 to %u)",
					  t->self >= n ? t->self : t->peer,
					  diag_printable(w->pg, q, sizeof(q)), n, n - 1);
		if (k->rank >= 0 && g[t->self] != (unsigned)k->rank)
			return title_fail(s, t, "place %u of process group '%s' is rank %u, but distributedInfo says this file is rank %d's",
					  t->self, diag_printable(w->pg, q, sizeof(q)), g[t->self], k->rank);
		w->c.rank = (int)g[t->self];
		w->c.recv = w->recv;
		w->c.peer = (int)g[t->peer];
		err = import_calls_add_p2p(&k->calls, &w->c, w->pg, s->name);
	}
	return err;
}

static int kineto_import(const struct import_input *in, size_t n,
			 const struct import_options *o, struct trace *t,
			 struct import_notes *notes, struct diag *d)
{
	struct kstate k = { .o = o };
	unsigned world = 0;
	int err = 0;

	memset(t, 0, sizeof(*t));
	import_calls_init(&k.calls, false, "Rank", "Collective name", d);
	for (k.file = 0; k.file < n && !err; k.file++) {
		struct jstream *s = malloc(sizeof(*s));

		if (!s) {
			err = diag_set(d, -ENOMEM, "%s: out of memory", in[k.file].name);
			break;
		}
		k.rank = k.world = -1;
		k.new_style = false;
		kold_clear(&k.old);
		import_calls_begin_file(&k.calls);
		err = jstream_open(s, in[k.file].fp, in[k.file].name, d);
		if (!err)
			err = read_file(&k, s);
		if (!err)
			klaunch_end_file(&k.launches, &k.calls);
		k.launches.n = 0;
		if (!err && !k.new_style) {
			struct kold_file f = { in[k.file].name, k.file, k.rank, k.world, o };

			err = kold_end_file(&k.old, &f, &k.calls, k.skipped);
		}
		if (!err)
			err = peers_from_titles(&k, s);
		waits_clear(&k);
		/* a send's, a receive's, a broadcast's "Rank" is not the
		 * file's: distributedInfo's, which may come after the events */
		if (!err)
			err = import_calls_end_p2p(&k.calls, k.rank, in[k.file].name);
		if (!err)
			err = import_calls_end_file(&k.calls, true, in[k.file].name, "ts");
		if (!err && k.world > 0)
			world = (unsigned)k.world;
		jstream_close(s);
		free(s);
	}
	if (!err && !k.calls.n)
		err = diag_set(d, -EINVAL, "%s: kineto: no collectives (record_param_comms events with a 'Collective name', PyTorch 2.1 and later; before, nccl:* events and their NCCL kernels)",
			       in[0].name);
	if (!err)
		err = import_calls_build(&k.calls, in, world ? world : o->world, t);
	if (!err) {
		notes->line[0] = '\0';
		notes->world = world ? world : o->world;
		if (k.skipped[KSKIP_P2P] || k.skipped[KSKIP_NOTHING] || k.skipped[KSKIP_BROADCAST] ||
		    k.skipped[KSKIP_ROOTED])
			import_notes_add(notes,
				 "left out, counted on each rank that recorded them: %u point-to-point calls and %u broadcasts whose peers and roots the profile does not say (PyTorch records them from 2.5; from 2.2 a send's or receive's outside batch_isend_irecv), %u reduces, gathers, scatters and out-of-place broadcasts (no root recorded), %u barriers, waits and empty calls",
				 k.skipped[KSKIP_P2P], k.skipped[KSKIP_BROADCAST], k.skipped[KSKIP_ROOTED],
				 k.skipped[KSKIP_NOTHING]);
		import_calls_note_steps(&k.calls, "ProfilerStep", notes);
		import_calls_note_uneven(&k.calls, notes);
	}
	import_calls_free(&k.calls);
	kold_free(&k.old);
	waits_clear(&k);
	free(k.wait);
	kp2p_free(&k.titles);
	klaunch_free(&k.launches);
	return err;
}

const struct importer_ops importer_kineto = {
	.name = "kineto",
	.what = "PyTorch profiler JSON (plain or gzip): record_param_comms, or nccl:* and kernels",
	.takes_options = true,
	.import = kineto_import,
};
