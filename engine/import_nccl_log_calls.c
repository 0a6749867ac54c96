/* SPDX-License-Identifier: MIT */
/*
 * nccl-log: a call's line matched across ranks. Collectives by
 * (communicator, place among its ranks' collectives), their opCounts
 * joined or not, sends and Recv lines by their launch, streams, and
 * the TUNING lines of what NCCL ran (import_nccl_log_internal.h).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array_grow.h"
#include "import_nccl_log_internal.h"

const struct nccl_log_func nlog_funcs[] = {
	{ "AllReduce", TRACE_OP_ALLREDUCE, false },
	{ "AllGather", TRACE_OP_ALL_GATHER, false },
	{ "ReduceScatter", TRACE_OP_REDUCE_SCATTER, false },
	{ "Broadcast", TRACE_OP_BROADCAST, false },
	{ "AlltoAll", TRACE_OP_ALLTOALL, false }, /* 2.28 and later */
	{ "Send", TRACE_OP_SENDRECV, false },
	{ "Recv", TRACE_OP_SENDRECV, true },
};

/* ncclDataType_t (src/nccl.h.in), as the trace's types of that size:
 * the models time bytes. */
int nlog_dtype_of(int code, enum trace_dtype *t)
{
	static const int map[] = {
		[0] = TRACE_DTYPE_INT8, [1] = TRACE_DTYPE_INT8,  /* int8, uint8 */
		[2] = TRACE_DTYPE_FP32, [3] = TRACE_DTYPE_FP32,  /* int32, uint32 */
		[4] = TRACE_DTYPE_FP64, [5] = TRACE_DTYPE_FP64,  /* int64, uint64 */
		[6] = TRACE_DTYPE_FP16, [7] = TRACE_DTYPE_FP32,  /* half, float */
		[8] = TRACE_DTYPE_FP64, [9] = TRACE_DTYPE_BF16,  /* double, bfloat16 */
		[10] = TRACE_DTYPE_INT8, [11] = TRACE_DTYPE_INT8, /* fp8 e4m3, e5m2 */
	};

	if (code < 0 || code >= (int)(sizeof(map) / sizeof(map[0])))
		return -EINVAL;
	*t = (enum trace_dtype)map[code];
	return 0;
}

static size_t coll_hash(const struct coll *c, size_t nslots)
{
	uint64_t h = c->comm_id * 0x9e3779b97f4a7c15ull ^ c->cseq * 0xc2b2ae3d27d4eb4full ^
		     (uint64_t)c->nranks << 40;

	return (size_t)(h ^ h >> 29) & (nslots - 1);
}

/* The slot of @c's (communicator, place among its collectives): its
 * collective's, or the free one it would take. */
static uint32_t *coll_slot(struct state *s, const struct coll *c)
{
	size_t i = coll_hash(c, s->nslots);

	for (;; i = (i + 1) & (s->nslots - 1)) {
		const struct coll *o;

		if (!s->slots[i])
			return &s->slots[i];
		o = &s->colls[s->slots[i] - 1];
		if (o->comm_id == c->comm_id && o->nranks == c->nranks && o->cseq == c->cseq)
			return &s->slots[i];
	}
}

/* Room for one more collective in the table, twice the slots when half full. */
static int coll_room(struct state *s)
{
	uint32_t *old = s->slots;
	size_t n = s->nslots;

	if (2 * (s->ncolls + 1) <= s->nslots)
		return 0;
	if (s->ncolls >= UINT32_MAX / 2)
		return -ENOMEM;
	s->nslots = n ? 2 * n : 64;
	s->slots = calloc(s->nslots, sizeof(*s->slots));
	if (!s->slots) {
		s->slots = old;
		s->nslots = n;
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->ncolls; i++) {
		const struct coll *c = &s->colls[i];

		if (c->op != TRACE_OP_SENDRECV)
			*coll_slot(s, c) = (uint32_t)i + 1;
	}
	free(old);
	return 0;
}

/* Collective @i, of which @proc is rank 0, may get a TUNING line. */
static int await_tuning(struct state *s, size_t proc, size_t i)
{
	struct proc *p = &s->procs[proc];

	if (array_grow((void **)&p->tuned, p->ntuned, &p->cap_tuned, sizeof(*p->tuned)))
		return -ENOMEM;
	p->tuned[p->ntuned++] = i;
	return 0;
}

/* NCCL's names in TUNING lines (src/collectives.cc ncclAlgoToString,
 * ncclProtoToString) as NCCL_ALGO / NCCL_PROTO spell them, algorithms
 * in NCCL_ALGO_* order, then protocols in NCCL_PROTO_* order. */
static const char *const tuning_names[][2] = {
	{ "TREE", "Tree" },	   { "RING", "Ring" },
	{ "COLLNET_DIRECT", "CollnetDirect" }, { "COLLNET_CHAIN", "CollnetChain" },
	{ "NVLS", "NVLS" },	   { "NVLS_TREE", "NVLSTree" },
	{ "PAT", "PAT" },	   { "LL", "LL" },
	{ "LL128", "LL128" },	   { "SIMPLE", "Simple" },
};

/*
 * NCCL 2.23 prints the numbers instead ("Algo 1 proto 2 time 12.5"):
 * NCCL_ALGO_* and NCCL_PROTO_* of its src/include/nccl_common.h, the
 * names' order above.
 */
static const char *tuning_number(const char *w, size_t n, bool proto)
{
	unsigned x;

	if (n != 1 || !isdigit((unsigned char)w[0]))
		return NULL;
	x = (unsigned)(w[0] - '0');
	if (proto)
		return x < 3 ? tuning_names[7 + x][1] : NULL;
	return x < 7 ? tuning_names[x][1] : NULL;
}

static const char *tuning_name(const char *w, size_t n, bool proto)
{
	for (size_t i = 0; i < sizeof(tuning_names) / sizeof(tuning_names[0]); i++)
		if (strlen(tuning_names[i][0]) == n && !strncmp(w, tuning_names[i][0], n))
			return tuning_names[i][1];
	return tuning_number(w, n, proto);
}

/*
 * "AllReduce: 1048576 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}=
 * {0..7}" (2.24 and later; 2.23: "... -> Algo 1 proto 2 time 12.5"; a
 * communicator's rank 0 only; before 2.23 the line names no function
 * and is not one of these): what NCCL ran
 * for this process's oldest unmatched collective of that function and
 * size, which the TUNING line does not name otherwise.
 */
/*
 * The place in @p's list of its oldest call waiting for a TUNING line of
 * function @f and @bytes, or SIZE_MAX. A line's bytes are the call's
 * count of its type, but for an AllGather or ReduceScatter in 2.23, which
 * printed the larger buffer (v2.23.4-1 enqueue.cc: nBytes from
 * ncclFuncMaxSendRecvCount, count x nranks).
 */
static size_t waiting_in(const struct state *s, const struct proc *p, size_t f,
			 unsigned long long bytes)
{
	for (size_t k = p->head; k < p->ntuned; k++) {
		struct coll *c = &s->colls[p->tuned[k]];
		enum trace_dtype dt = TRACE_DTYPE_FP32;
		unsigned long long mine;
		bool whole;

		nlog_dtype_of(c->datatype, &dt);
		mine = c->count * trace_dtype_size(dt);
		whole = (c->op == TRACE_OP_ALL_GATHER || c->op == TRACE_OP_REDUCE_SCATTER) &&
			mine * (unsigned long long)c->nranks == bytes;
		if (c->func == nlog_funcs[f].name && !c->tuned && (mine == bytes || whole))
			return k;
	}
	return SIZE_MAX;
}

/*
 * The oldest call of @proc's process (any of its devices: a TUNING line
 * names none) waiting for a TUNING line of function @f and @bytes, now
 * tuned; NULL when none waits.
 */
static struct coll *tuning_waiter(struct state *s, size_t proc, size_t f,
				  unsigned long long bytes)
{
	struct proc *best = NULL;
	size_t at = 0;
	struct coll *c;

	for (size_t q = 0; q < s->nprocs; q++) {
		struct proc *p = &s->procs[q];
		size_t k;

		if (strcmp(p->id, s->procs[proc].id))
			continue;
		k = waiting_in(s, p, f, bytes);
		if (k != SIZE_MAX && (!best || p->tuned[k] < best->tuned[at])) {
			best = p;
			at = k;
		}
	}
	if (!best)
		return NULL;
	c = &s->colls[best->tuned[at]];
	c->tuned = true;
	while (best->head < best->ntuned && s->colls[best->tuned[best->head]].tuned)
		best->head++;
	return c;
}

int nlog_tuning_line(struct state *s, size_t proc, const char *msg, size_t f)
{
	struct proc *p = &s->procs[proc];
	struct coll *c;
	const char *a = strstr(msg, " -> Algo "), *pr = a ? strstr(a, " proto ") : NULL;
	const char *an, *pn;
	unsigned long long bytes;
	size_t alen, plen;
	char *end;

	errno = 0;
	bytes = strtoull(msg + strlen(nlog_funcs[f].name) + 2, &end, 10);
	if (errno || strncmp(end, " Bytes", 6) || !a || !pr)
		return nlog_fail(s, "tuning", "expected '%s: N Bytes -> Algo A proto P'", nlog_funcs[f].name);
	a += strlen(" -> Algo ");
	alen = strcspn(a, " ");
	pr += strlen(" proto ");
	plen = strcspn(pr, " ");
	an = tuning_name(a, alen, false);
	pn = tuning_name(pr, plen, true);
	if (!an || !pn)
		return nlog_fail(s, "tuning", "unknown algorithm or protocol '%.*s' / '%.*s'",
			    (int)alen, a, (int)plen, pr);
	c = tuning_waiter(s, proc, f, bytes);
	if (!c)
		return nlog_fail(s, "tuning", "no %s of %llu bytes of %s is waiting for it (its collective line must come first)",
			    nlog_funcs[f].name, bytes, p->id);
	snprintf(c->algo, sizeof(c->algo), "%s", an);
	snprintf(c->proto, sizeof(c->proto), "%s", pn);
	return 0;
}

/*
 * "AllReduce [Symmetric]: 4096 Bytes -> Kernel ..." (2.27 and later, on
 * registered symmetric buffers; 2.27 prints it on every rank), "AllGather
 * [Copy Engine]: 4096 Bytes -> cudaMemcpy" (2.29 and later, v2.29.2-1
 * src/enqueue.cc; "[Hierarchical CE]" from 2.30, src/ce_coll.cc): NCCL ran its
 * own kernel or copies, which gdrlab does not model, for the oldest
 * waiting call of that size. That call is done with (no algo: a replay
 * tunes it), so that the next TUNING line goes to its own call.
 */
void nlog_own_kernel_line(struct state *s, size_t proc, const char *msg, size_t f)
{
	const char *colon = strstr(msg, "]: ");
	unsigned long long bytes;
	char *end;

	if (!colon)
		return;
	errno = 0;
	bytes = strtoull(colon + 3, &end, 10);
	if (!errno && !strncmp(end, " Bytes", 6))
		tuning_waiter(s, proc, f, bytes); /* none: a rank's own */
}

/*
 * "... stream 0x..": the stream a process issued the call on. A stream
 * pointer is a process's own, so the trace numbers a communicator's
 * streams by the order a process first uses them (PyTorch issues a
 * process group's collectives on one NCCL stream: 0). Logs without the
 * key (older NCCL) are one stream.
 */
static int stream_of(struct state *s, struct comm_view *v, const char *msg, unsigned *out)
{
	uint64_t ptr = 0;
	unsigned k;
	int err;

	*out = 0;
	if (!nlog_value_of(msg, "stream"))
		return 0;
	err = nlog_number(s, msg, "stream", 16, UINT64_MAX, &ptr);
	if (err)
		return err;
	for (k = 0; k < v->nstreams && v->streams[k] != ptr; k++)
		;
	if (k == v->nstreams) {
		if (k == NCCL_LOG_STREAMS)
			return nlog_fail(s, "stream", "more than %d streams on communicator 0x%" PRIx64 " of %s",
				    NCCL_LOG_STREAMS, v->ptr, s->procs[v->proc].id);
		v->streams[v->nstreams++] = ptr;
	}
	*out = k;
	return 0;
}

/*
 * A collective's place on @v: the rank's n-th collective on the
 * communicator is every rank's n-th, since NCCL requires each rank to
 * call a communicator's collectives in one order. Its opCount is not a
 * key: NCCL prints comm->opCount as the call is enqueued and counts
 * launches (src/proxy.cc, ncclProxyStart: comm->opCount++), so the calls
 * of one ncclGroupStart/End share it, a rank's sends and receives put
 * the ranks' counts out of step, and from 2.27 a launch without network
 * work counts nothing (below). *@joined: the opCount is the rank's
 * previous collective's on @v.
 */
static uint64_t place_of_coll(struct comm_view *v, uint64_t op_count, bool *joined)
{
	*joined = v->ncolls && v->last_op == op_count;
	v->last_op = op_count;
	return v->ncolls++;
}

/*
 * A communicator whose opCount counts no launches (only 2.27 and later,
 * whose hostStreamPlanTask in src/enqueue.cc calls ncclProxyStart, the
 * one place comm->opCount++ is, only for a plan with proxy ops: network
 * work): a rank's two collectives share an opCount where another rank's
 * differ. Where it counts launches, the calls of one group share it on
 * every rank (each rank's group holds the same collectives).
 */
static int mark_stuck(struct state *s, uint64_t id, int nranks)
{
	for (size_t i = 0; i < s->nstuck; i++)
		if (s->stuck[i].id == id && s->stuck[i].nranks == nranks)
			return 0;
	if (array_grow((void **)&s->stuck, s->nstuck, &s->cap_stuck, sizeof(*s->stuck)))
		return -ENOMEM;
	s->stuck[s->nstuck++] = (struct comm_present_id){ id, nranks };
	return 0;
}

/* A Recv line, the @seq-th line of its rank on the communicator: its
 * launch, for batch_sends. */
static int add_recv(struct state *s, const struct nlg_end *r, uint64_t seq)
{
	if (array_grow((void **)&s->recv_seq, s->nrecvs, &s->cap_recv_seq, sizeof(*s->recv_seq)) ||
	    array_grow((void **)&s->recvs, s->nrecvs, &s->cap_recvs, sizeof(*s->recvs)))
		return -ENOMEM;
	s->recv_seq[s->nrecvs] = seq;
	s->recvs[s->nrecvs++] = *r;
	return 0;
}

/* "Func: opCount .. count .. datatype .. root .. comm 0x.. [nranks=N]" */
int nlog_coll_line(struct state *s, size_t proc, const char *msg, size_t f)
{
	struct coll c = { .op = nlog_funcs[f].op, .func = nlog_funcs[f].name, .proc = proc,
			  .line = s->line, .file = s->file };
	const struct comm_view *v;
	enum trace_dtype dt;
	uint64_t ptr;
	int err;

	err = nlog_number(s, msg, "opCount", 16, UINT64_MAX, &c.op_count);
	if (!err)
		err = nlog_number(s, msg, "count", 10, UINT64_MAX / 16, &c.count);
	if (!err)
		err = nlog_small_int(s, msg, "datatype", &c.datatype);
	if (!err)
		err = nlog_small_int(s, msg, "root", &c.root);
	if (!err)
		err = nlog_number(s, msg, "comm", 16, UINT64_MAX, &ptr);
	if (err)
		return err;
	if (nlog_dtype_of(c.datatype, &dt))
		return nlog_fail(s, "datatype", "unknown NCCL datatype %d (0-11: ncclInt8 .. ncclFloat8e5m2)",
			    c.datatype);
	if (!c.count)
		return 0; /* NCCL returns at once: nothing moves */
	v = nlog_view_of(s, proc, ptr);
	if (!v)
		return nlog_fail(s, "comm", "communicator 0x%" PRIx64 " of %s has no 'Init COMPLETE' line before it (NCCL_DEBUG_SUBSYS must include INIT)",
			    ptr, s->procs[proc].id);
	proc = c.proc = v->proc; /* the rank, of its process's devices */
	c.comm_id = v->id;
	c.nranks = v->nranks;
	c.comm_rank = v->rank;
	err = stream_of(s, &s->views[v - s->views], msg, &c.stream);
	if (err)
		return err;
	c.seq = s->views[v - s->views].nlines++;
	if (nlog_funcs[f].skip)
		return c.root < 0 || c.root >= c.nranks || c.root == v->rank ? 0 :
		       add_recv(s, &(struct nlg_end){ c.comm_id, c.root, v->rank, c.op_count, s->nrecvs },
				c.seq);
	if (c.op != TRACE_OP_SENDRECV)
		c.cseq = place_of_coll(&s->views[v - s->views], c.op_count, &c.joined);
	if (c.op == TRACE_OP_BROADCAST && (c.root < 0 || c.root >= c.nranks))
		return nlog_fail(s, "root", "%d is not a rank of the %d", c.root, c.nranks);
	if (c.op == TRACE_OP_SENDRECV && (c.root < 0 || c.root >= c.nranks))
		return nlog_fail(s, "root", "a send's peer must be one of the %d ranks, got %d",
			    c.nranks, c.root);
	/* a rank's send to itself (PyTorch's all-to-all over send/receive
	 * before NCCL 2.28 sends every rank its share, its own included):
	 * a copy on the GPU, nothing crosses a link */
	if (c.op == TRACE_OP_SENDRECV && c.root == v->rank)
		return 0;
	if (coll_room(s) || array_grow((void **)&s->colls, s->ncolls, &s->cap_colls, sizeof(*s->colls)))
		return -ENOMEM;
	/* every rank logs a collective; the first stands for all (sends are
	 * each their own) */
	if (c.op != TRACE_OP_SENDRECV) {
		uint32_t *slot = coll_slot(s, &c);
		const struct coll *o = *slot ? &s->colls[*slot - 1] : NULL;

		if (o && (o->op != c.op || o->count != c.count || o->datatype != c.datatype ||
			  o->root != c.root))
			return nlog_fail(s, "call", "%s, this rank's collective %" PRIu64 " on communicator 0x%" PRIx64 ", disagrees with %s:%u's %s (count %" PRIu64 " datatype %d root %d against %" PRIu64 " %d %d): every rank calls a communicator's collectives in one order",
				    c.func, c.cseq, v->ptr, s->in[o->file].name, o->line, o->func, c.count,
				    c.datatype, c.root, o->count, o->datatype, o->root);
		if (o && o->joined != c.joined && mark_stuck(s, c.comm_id, c.nranks))
			return -ENOMEM;
		if (o && c.seq > o->seq)
			s->colls[*slot - 1].seq = c.seq;
		if (o) {
			s->colls[*slot - 1].logged++;
			return v->rank ? 0 : await_tuning(s, proc, (size_t)(*slot - 1));
		}
		*slot = (uint32_t)s->ncolls + 1;
	}
	c.logged = 1;
	s->colls[s->ncolls++] = c;
	return v->rank || c.op == TRACE_OP_SENDRECV ? 0 : await_tuning(s, proc, s->ncolls - 1);
}
