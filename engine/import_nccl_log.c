/* SPDX-License-Identifier: MIT */
/*
 * nccl-log: NCCL_DEBUG=INFO output (NCCL_DEBUG_SUBSYS including INIT and
 * COLL, and TUNING for what NCCL ran), from one rank or many, in one file
 * or one per rank.
 *
 * NCCL prints, per process ("host:pid:tid [cudaDev] NCCL INFO ...",
 * src/debug.cc; a timestamp may come first), among others:
 *
 *   comm 0x5581 rank 3 nranks 16 cudaDev 3 nvmlDev 3 busId 1b000
 *     commId 0x8f1e... - Init COMPLETE              (src/init.cc)
 *   AllReduce: opCount 2a sendbuff 0x7f.. recvbuff 0x7f.. count 262144
 *     datatype 7 op 0 root 0 comm 0x5581 [nranks=16] stream 0x55..
 *                                                   (src/enqueue.cc)
 *
 * A communicator is a commId across processes (the comm pointer is only
 * a process's own); before 2.16 the Init line has no commId, and only
 * communicators of every rank can be told apart. From 2.23 on, a
 * communicator made by ncclCommSplit (or Shrink, Grow) prints no commId
 * but its parent, the parent's split count and its color, which name it
 * as well (below). The communicator with the most ranks is the job's
 * world: a process's rank in it is its global rank. A collective is one
 * (communicator, place among each rank's collectives on it): every rank
 * calls them in one order, while opCount counts launches, not calls
 * (the calls of one ncclGroupStart/End share one), and from 2.27 only
 * launches with network work (untrusted_op_count). Every rank logs it,
 * and the ranks must agree on its function, count and type.
 * Sends become sendrecv from the sender to its peer (Recv lines are the
 * same transfers, seen from the other end). A communicator's rank 0 also
 * prints what NCCL ran, with TUNING ("AllReduce: 1048576 Bytes -> Algo
 * RING proto SIMPLE ..."), naming no communicator: it goes to that
 * process's oldest unmatched call of the function and size, as the
 * entry's algo and proto. NCCL's log has no times: every collective is
 * in iteration 0, ready at 0.
 */
#include "importer.h"


#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "array_grow.h"
#include "nccl_log_groups.h"

#define LINE_MAX_LEN 4096

/*
 * A rank's process: "host:pid" and the device its communicators run on.
 * One process may drive several GPUs (nccl-tests -g/-t, ncclCommInitAll),
 * a rank each: the Init line's cudaDev (comm->cudaDev, src/init.cc) tells
 * them apart, where the prefix's "[dev]" is only the calling thread's
 * current device (src/debug.cc cudaGetDevice). Its collective lines are
 * found by their comm pointer, a process's own.
 */
struct proc {
	char id[128]; /* "host:pid" */
	int dev;      /* the Init lines' cudaDev; -1 where they have none */
	int world;    /* global rank; -1 until known */
	/* its collectives as some communicator's rank 0, which alone prints
	 * TUNING lines, in order: indices into colls, the first head ones
	 * matched */
	size_t *tuned;
	size_t ntuned, cap_tuned, head;
};

/* Streams one process uses with one communicator, told apart. */
#define NCCL_LOG_STREAMS 16

/* One communicator as one process sees it. */
struct comm_view {
	size_t proc;
	uint64_t ptr;     /* the process's comm pointer */
	uint64_t id;      /* commId (or a split's, split_id); 0 before 2.16 */
	int rank, nranks;
	uint64_t streams[NCCL_LOG_STREAMS]; /* its COLL lines' streams, in order */
	unsigned nstreams;
	/* its lines so far (collectives, sends, receives) and its
	 * collectives; the opCount of its last collective line */
	uint64_t nlines, ncolls;
	uint64_t last_op;
};

struct coll {
	enum trace_op op;
	const char *func; /* as NCCL names it */
	uint64_t comm_id, op_count;
	uint64_t seq;     /* its line's place among its rank's lines on the
			   * communicator (a collective's: the latest of its
			   * ranks', after every rank's calls before it) */
	uint64_t cseq;    /* its place among its ranks' collectives on the
			   * communicator: a collective's key */
	bool joined;      /* the first rank's opCount was its previous
			   * collective's (one launch, if opCount counts them) */
	bool lone;        /* a send of a communicator whose opCount does not
			   * count launches (untrusted_op_count) */
	int nranks;
	uint64_t count;
	int datatype;
	int root;         /* comm rank: broadcast root, send's peer */
	size_t proc;      /* sender (send) or first rank seen */
	int comm_rank;    /* the first rank seen's rank in the communicator */
	unsigned stream;  /* the first rank seen's: its n-th stream on the comm */
	unsigned line;
	size_t file;
	int logged;       /* the ranks whose line of it the logs hold */
	char algo[TRACE_NAME_MAX], proto[TRACE_NAME_MAX]; /* from TUNING */
	bool tuned;       /* its TUNING line came (algo stays "" for NCCL's
			   * own kernels: symmetric, copy engine) */
};

struct state {
	const struct import_input *in;
	size_t file;
	unsigned line;
	int world_n; /* the world communicator's ranks, once built */
	struct proc *procs;
	size_t nprocs, cap_procs;
	struct comm_view *views;
	size_t nviews, cap_views;
	struct coll *colls;
	size_t ncolls, cap_colls;
	unsigned alltoalls; /* all-to-alls made of a group's sends */
	unsigned uneven_alltoalls; /* of them, those of unequal sends */
	unsigned batches;   /* launches of several sends, not an all-to-all */
	struct nlg_end *recvs; /* Recv lines: which launch took each transfer in */
	uint64_t *recv_seq;    /* each one's place among its rank's lines */
	size_t nrecvs, cap_recvs, cap_recv_seq;
	/* the newest NCCL release a process logged ("NCCL version 2.27.3"),
	 * as 22703; 0 if none did */
	unsigned release;
	/* communicators whose ranks' opCounts show it counts no launches
	 * (one rank's collectives one launch, another's two): id, ranks */
	struct comm_present_id { uint64_t id; int nranks; } *stuck;
	size_t nstuck, cap_stuck;
	unsigned lone_sends; /* sends of such communicators, each its own launch */
	bool numbered;       /* no communicator of every rank: number_ranks */
	unsigned cut_line;  /* a file's last line, cut short and left out */
	size_t cut_file;
	/* network connections by their Channel lines: sends and receives,
	 * those of them with GPUDirect RDMA, sends through a PXN proxy */
	unsigned net[2], gdr[2], pxn;
	/* lines of NCCL functions the trace has no op for (Reduce, Gather,
	 * Scatter, ...): how many, and the first's name and place */
	unsigned left_out, left_out_line;
	size_t left_out_file;
	char left_out_name[32];
	/* collectives by (communicator, opCount): index + 1, 0 free; open
	 * addressing, at most half full */
	uint32_t *slots;
	size_t nslots;
	struct diag *d;
};

static int fail(struct state *s, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(struct state *s, const char *key, const char *fmt, ...)
{
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = diag_vat(s->d, -EINVAL, s->in[s->file].name, s->line, 0, key, fmt, ap);
	va_end(ap);
	return err;
}

/* The last @c in @p's first @len bytes, or NULL. */
static const char *last_of(const char *p, size_t len, char c)
{
	while (len-- > 0)
		if (p[len] == c)
			return p + len;
	return NULL;
}

/* proc_of's @dev for a line that names no device: the process's first */
#define ANY_DEV (-2)

/*
 * The process of "host:pid:tid" (its host and pid) on device @dev, read
 * from the right: a launcher may glue its own prefix to it with no space
 * (mpirun --tag-output "[1,0]<stdout>:host:pid:tid", torchrun's
 * "[default0]:"), and a host name has no ':'.
 */
static int proc_of(struct state *s, const char *hpt, size_t len, int dev, size_t *out)
{
	const char *tid = last_of(hpt, len, ':');
	const char *pid = tid ? last_of(hpt, (size_t)(tid - hpt), ':') : NULL;
	const char *host = pid ? last_of(hpt, (size_t)(pid - hpt), ':') : NULL;
	size_t n;

	if (!pid || pid == hpt || pid + 1 == tid)
		return fail(s, "prefix", "expected 'host:pid:tid' before '[device] NCCL INFO'");
	host = host ? host + 1 : hpt;
	if (host == pid)
		return fail(s, "prefix", "expected 'host:pid:tid' before '[device] NCCL INFO'");
	n = (size_t)(tid - host);
	hpt = host;
	if (n >= sizeof(s->procs[0].id))
		return fail(s, "prefix", "expected 'host:pid:tid' before '[device] NCCL INFO'");
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

/* "key value" among @msg's words: the value's start, or NULL. */
static const char *value_of(const char *msg, const char *key)
{
	size_t k = strlen(key);

	for (const char *p = msg; (p = strstr(p, key)); p += k)
		if ((p == msg || p[-1] == ' ') && p[k] == ' ')
			return p + k + 1;
	return NULL;
}

static int number(struct state *s, const char *msg, const char *key, int base,
		  uint64_t max, uint64_t *out)
{
	const char *v = value_of(msg, key);
	char *end;
	unsigned long long x;

	if (!v)
		return fail(s, key, "missing from the line");
	if (base == 16 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X'))
		v += 2;
	errno = 0;
	x = strtoull(v, &end, base);
	if (errno || end == v || (*end && *end != ' ') || x > max || v[0] == '-')
		return fail(s, key, "expected a number up to %" PRIu64, max);
	*out = x;
	return 0;
}

static int small_int(struct state *s, const char *msg, const char *key, int *out)
{
	const char *v = value_of(msg, key);
	uint64_t x;
	int err;

	if (v && *v == '-') { /* root -1 of collectives without one */
		if (strncmp(v, "-1", 2) || (v[2] && v[2] != ' '))
			return fail(s, key, "expected a rank or -1");
		*out = -1;
		return 0;
	}
	err = number(s, msg, key, 10, 1u << 30, &x);
	if (!err)
		*out = (int)x;
	return err;
}

/* Process @proc's communicator @ptr, on whichever of its devices. */
static const struct comm_view *view_of(const struct state *s, size_t proc, uint64_t ptr)
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

	err = number(s, msg, "parent", 16, UINT64_MAX, &ptr);
	if (!err && value_of(msg, "splitCount"))
		err = number(s, msg, "splitCount", 10, UINT32_MAX, &count);
	else if (!err && value_of(msg, "childCount"))
		err = number(s, msg, "childCount", 10, UINT32_MAX, &count);
	/* a color is any int from 0 (NCCL_SPLIT_NOCOLOR, -1, logs no
	 * split): PyTorch's genNcclSplitColor hashes a group's ranks into
	 * [0, INT32_MAX) (torch/csrc/distributed/c10d/NCCLUtils.cpp) */
	if (!err)
		err = number(s, msg, "color", 10, INT32_MAX, &color);
	if (err)
		return err;
	parent = view_of(s, proc, ptr);
	if (!parent)
		return fail(s, "parent", "communicator 0x%" PRIx64 " of %s, split from here, has no 'Init COMPLETE' line before it",
			    ptr, s->procs[proc].id);
	if (!parent->id)
		return fail(s, "parent", "communicator 0x%" PRIx64 ", split from here, has no commId to name its children by",
			    ptr);
	*id = mix64(mix64(parent->id) ^ count << 32 ^ (uint32_t)color) | 1; /* 0 is none */
	return 0;
}

/* "[func] comm 0x.. rank R nranks N ... [commId 0x.. | parent 0x.. ...]
 * - Init COMPLETE" */
static int init_line(struct state *s, size_t proc, const char *msg)
{
	struct comm_view v = { .proc = proc };
	int err;

	err = number(s, msg, "comm", 16, UINT64_MAX, &v.ptr);
	if (!err)
		err = small_int(s, msg, "rank", &v.rank);
	if (!err)
		err = small_int(s, msg, "nranks", &v.nranks);
	if (!err && value_of(msg, "commId"))
		err = number(s, msg, "commId", 16, UINT64_MAX, &v.id);
	else if (!err && value_of(msg, "parent"))
		err = split_id(s, proc, msg, &v.id);
	if (err)
		return err;
	if (v.nranks < 1 || v.rank < 0 || v.rank >= v.nranks)
		return fail(s, "rank", "rank %d of %d ranks", v.rank, v.nranks);
	for (size_t i = 0; i < s->nviews; i++) {
		struct comm_view *w = &s->views[i];

		if (w->id == v.id && w->nranks == v.nranks && w->rank == v.rank && w->proc != proc &&
		    v.id)
			return fail(s, "rank", "rank %d of communicator 0x%" PRIx64 " is in two processes, %s and %s",
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

static const struct {
	const char *name;
	enum trace_op op;
	bool skip; /* the other end of a transfer logged elsewhere */
} funcs[] = {
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
static int dtype_of(int code, enum trace_dtype *t)
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

		dtype_of(c->datatype, &dt);
		mine = c->count * trace_dtype_size(dt);
		whole = (c->op == TRACE_OP_ALL_GATHER || c->op == TRACE_OP_REDUCE_SCATTER) &&
			mine * (unsigned long long)c->nranks == bytes;
		if (c->func == funcs[f].name && !c->tuned && (mine == bytes || whole))
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

static int tuning_line(struct state *s, size_t proc, const char *msg, size_t f)
{
	struct proc *p = &s->procs[proc];
	struct coll *c;
	const char *a = strstr(msg, " -> Algo "), *pr = a ? strstr(a, " proto ") : NULL;
	const char *an, *pn;
	unsigned long long bytes;
	size_t alen, plen;
	char *end;

	errno = 0;
	bytes = strtoull(msg + strlen(funcs[f].name) + 2, &end, 10);
	if (errno || strncmp(end, " Bytes", 6) || !a || !pr)
		return fail(s, "tuning", "expected '%s: N Bytes -> Algo A proto P'", funcs[f].name);
	a += strlen(" -> Algo ");
	alen = strcspn(a, " ");
	pr += strlen(" proto ");
	plen = strcspn(pr, " ");
	an = tuning_name(a, alen, false);
	pn = tuning_name(pr, plen, true);
	if (!an || !pn)
		return fail(s, "tuning", "unknown algorithm or protocol '%.*s' / '%.*s'",
			    (int)alen, a, (int)plen, pr);
	c = tuning_waiter(s, proc, f, bytes);
	if (!c)
		return fail(s, "tuning", "no %s of %llu bytes of %s is waiting for it (its collective line must come first)",
			    funcs[f].name, bytes, p->id);
	snprintf(c->algo, sizeof(c->algo), "%s", an);
	snprintf(c->proto, sizeof(c->proto), "%s", pn);
	return 0;
}

/*
 * "AllReduce [Symmetric]: 4096 Bytes -> Kernel ..." (2.27 and later, on
 * registered symmetric buffers; 2.27 prints it on every rank), "AllGather
 * [Copy Engine]: 4096 Bytes -> cudaMemcpy" (2.28 and later): NCCL ran its
 * own kernel or copies, which gdrlab does not model, for the oldest
 * waiting call of that size. That call is done with (no algo: a replay
 * tunes it), so that the next TUNING line goes to its own call.
 */
static void own_kernel_line(struct state *s, size_t proc, const char *msg, size_t f)
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
	if (!value_of(msg, "stream"))
		return 0;
	err = number(s, msg, "stream", 16, UINT64_MAX, &ptr);
	if (err)
		return err;
	for (k = 0; k < v->nstreams && v->streams[k] != ptr; k++)
		;
	if (k == v->nstreams) {
		if (k == NCCL_LOG_STREAMS)
			return fail(s, "stream", "more than %d streams on communicator 0x%" PRIx64 " of %s",
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
static int coll_line(struct state *s, size_t proc, const char *msg, size_t f)
{
	struct coll c = { .op = funcs[f].op, .func = funcs[f].name, .proc = proc,
			  .line = s->line, .file = s->file };
	const struct comm_view *v;
	enum trace_dtype dt;
	uint64_t ptr;
	int err;

	err = number(s, msg, "opCount", 16, UINT64_MAX, &c.op_count);
	if (!err)
		err = number(s, msg, "count", 10, UINT64_MAX / 16, &c.count);
	if (!err)
		err = small_int(s, msg, "datatype", &c.datatype);
	if (!err)
		err = small_int(s, msg, "root", &c.root);
	if (!err)
		err = number(s, msg, "comm", 16, UINT64_MAX, &ptr);
	if (err)
		return err;
	if (dtype_of(c.datatype, &dt))
		return fail(s, "datatype", "unknown NCCL datatype %d (0-11: ncclInt8 .. ncclFloat8e5m2)",
			    c.datatype);
	if (!c.count)
		return 0; /* NCCL returns at once: nothing moves */
	v = view_of(s, proc, ptr);
	if (!v)
		return fail(s, "comm", "communicator 0x%" PRIx64 " of %s has no 'Init COMPLETE' line before it (NCCL_DEBUG_SUBSYS must include INIT)",
			    ptr, s->procs[proc].id);
	proc = c.proc = v->proc; /* the rank, of its process's devices */
	c.comm_id = v->id;
	c.nranks = v->nranks;
	c.comm_rank = v->rank;
	err = stream_of(s, &s->views[v - s->views], msg, &c.stream);
	if (err)
		return err;
	c.seq = s->views[v - s->views].nlines++;
	if (funcs[f].skip)
		return c.root < 0 || c.root >= c.nranks || c.root == v->rank ? 0 :
		       add_recv(s, &(struct nlg_end){ c.comm_id, c.root, v->rank, c.op_count, s->nrecvs },
				c.seq);
	if (c.op != TRACE_OP_SENDRECV)
		c.cseq = place_of_coll(&s->views[v - s->views], c.op_count, &c.joined);
	if (c.op == TRACE_OP_BROADCAST && (c.root < 0 || c.root >= c.nranks))
		return fail(s, "root", "%d is not a rank of the %d", c.root, c.nranks);
	if (c.op == TRACE_OP_SENDRECV && (c.root < 0 || c.root >= c.nranks))
		return fail(s, "root", "a send's peer must be one of the %d ranks, got %d",
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
			return fail(s, "call", "%s, this rank's collective %" PRIu64 " on communicator 0x%" PRIx64 ", disagrees with %s:%u's %s (count %" PRIu64 " datatype %d root %d against %" PRIu64 " %d %d): every rank calls a communicator's collectives in one order",
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

/*
 * "Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0/GDRDMA" (transport/
 * net.cc; "NET/IB/0(3)/GDRDMA" when rank 3 sends for it, PXN): whether
 * NCCL put this connection's network side on GPU memory.
 */
static void channel_line(struct state *s, const char *msg)
{
	const char *via = strstr(msg, " via NET/");
	bool send = strstr(msg, " [send] ") != NULL;

	if (!via || (!send && !strstr(msg, " [receive] ")))
		return; /* P2P, SHM, CollNet: not the network's */
	s->net[send]++;
	if (strstr(via, "/GDRDMA"))
		s->gdr[send]++;
	if (send && strchr(via, '('))
		s->pxn += strchr(via, '(')[1] != 'P'; /* "(PCI)" is GDR's mode */
}

/* A communicator (by commId and size) and how many processes' logs hold
 * a rank of it. */
struct comm_present {
	uint64_t id;
	int nranks, procs;
};

/* Each communicator of the logs with its processes, into *@out (freed by
 * the caller); its count, 0 when out of memory (nothing is then said). */
static size_t comms_present(const struct state *s, struct comm_present **out)
{
	struct comm_present *c = calloc(s->nviews ? s->nviews : 1, sizeof(*c));
	size_t n = 0;

	*out = c;
	for (size_t i = 0; c && i < s->nviews; i++) {
		const struct comm_view *v = &s->views[i];
		size_t k = 0;

		/* a process has one view of a communicator (its rank in it) */
		while (k < n && (c[k].id != v->id || c[k].nranks != v->nranks))
			k++;
		if (k == n)
			c[n++] = (struct comm_present){ v->id, v->nranks, 0 };
		c[k].procs++;
	}
	return c ? n : 0;
}

/*
 * Whether collective @c was logged by fewer of its communicator's ranks
 * than the logs hold (@comms, @n): a job cut short, or a log. Importing
 * some ranks' logs only (one rank of eight) is not: a call is then logged
 * by as many ranks as the logs have of its communicator.
 */
static bool cut_short(const struct comm_present *comms, size_t n, const struct coll *c)
{
	if (c->op == TRACE_OP_SENDRECV || c->logged >= c->nranks)
		return false;
	for (size_t k = 0; k < n; k++)
		if (comms[k].id == c->comm_id && comms[k].nranks == c->nranks)
			return c->logged < comms[k].procs;
	return false;
}

/* The hosts of the world's ranks ("host:pid"): how many, and the ranks
 * of each where they all have as many. */
static void count_hosts(const struct state *s, struct import_notes *notes)
{
	unsigned *count = calloc(s->nprocs ? s->nprocs : 1, sizeof(*count));
	size_t *first = malloc((s->nprocs ? s->nprocs : 1) * sizeof(*first));

	notes->hosts = notes->per_host = 0;
	for (size_t i = 0; count && first && i < s->nprocs; i++) {
		size_t len = strcspn(s->procs[i].id, ":"), k;

		if (s->procs[i].world < 0)
			continue;
		for (k = 0; k < notes->hosts; k++)
			if (!strncmp(s->procs[first[k]].id, s->procs[i].id, len + 1))
				break;
		if (k == notes->hosts)
			first[notes->hosts++] = i;
		count[k]++;
	}
	notes->per_host = notes->hosts ? count[0] : 0;
	for (unsigned k = 1; k < notes->hosts; k++)
		if (count[k] != count[0])
			notes->per_host = 0;
	free(count);
	free(first);
}

/* The header line of what the Channel lines said, what was left out and
 * which calls fewer ranks logged than the logs hold. */
static void notes_of(const struct state *s, struct import_notes *notes)
{
	const char *path = s->gdr[0] + s->gdr[1] == 0 ? "staged" :
			   s->gdr[0] == s->net[0] && s->gdr[1] == s->net[1] ? "direct" : "auto";

	const struct coll *first = NULL; /* the first call cut short */
	struct comm_present *comms;
	size_t ncomms, partial = 0;

	notes->line[0] = '\0';
	notes->world = s->world_n > 0 ? (unsigned)s->world_n : 0;
	count_hosts(s, notes);
	if (s->net[0] + s->net[1])
		import_notes_add(notes, "NCCL's network connections: %u sends, %u of them GPUDirect RDMA, %u through a PXN proxy; %u receives, %u GPUDirect RDMA (replay with --path %s)",
				 s->net[1], s->gdr[1], s->pxn, s->net[0], s->gdr[0], path);
	if (s->left_out)
		import_notes_add(notes, "left out: %u ranks' lines of NCCL functions the trace has no op for (the first: %s, %s:%u)",
				 s->left_out, s->left_out_name, s->in[s->left_out_file].name,
				 s->left_out_line);
	/* a job that died, or a log cut short: kept, as each call's own
	 * logged line says what it was, but said */
	ncomms = comms_present(s, &comms);
	for (size_t i = 0; i < s->ncolls; i++)
		if (cut_short(comms, ncomms, &s->colls[i]) && !partial++)
			first = &s->colls[i];
	if (first)
		import_notes_add(notes, "%zu collective%s logged by only some of their ranks (the first: %s, %s:%u, %d of %d): a job cut short or some ranks' logs missing",
				 partial, partial == 1 ? "" : "s", first->func, s->in[first->file].name,
				 first->line, first->logged, first->nranks);
	if (s->numbered)
		import_notes_add(notes, "no communicator has every rank of the logs: global ranks 0 to %d numbered by host, then cudaDev, then process (a host's ranks a node's; not the job's own numbers, which no line says)",
				 s->world_n - 1);
	if (s->cut_line)
		import_notes_add(notes, "the last line of %s cut short (line %u, no end), left out",
				 s->in[s->cut_file].name, s->cut_line);
	if (s->alltoalls)
		import_notes_add(notes, "%u all-to-all%s from the sends of one NCCL group (one opCount, every rank to every other), each replayed as the one alltoall NCCL runs them as",
				 s->alltoalls, s->alltoalls == 1 ? "" : "s");
	if (s->uneven_alltoalls)
		import_notes_add(notes, "%u of them of unequal sends (all_to_allv), each replayed even, every rank sending each peer what the largest send moved: the fullest NIC's time, the other ranks' traffic overstated",
				 s->uneven_alltoalls);
	if (s->lone_sends)
		import_notes_add(notes, "%u send%s each its own launch, replayed one at a time: %s NCCL's opCount counts only launches with network work (2.27 and later, NVIDIA/nccl#2021), so the log does not say which sends were one group",
				 s->lone_sends, s->lone_sends == 1 ? "" : "s",
				 s->release >= 22700 ? "this" : "in this log");
	if (s->batches)
		import_notes_add(notes, "%u NCCL group%s of several sends (each rank's one opCount, joined by their transfers; not every rank to every other: a pipeline's exchange, batch_isend_irecv), each replayed as one batch, its sends at once",
				 s->batches, s->batches == 1 ? "" : "s");
	free(comms);
}

/*
 * "NCCL version 2.27.3+cuda12.9" (src/init.cc showVersion, INFO of
 * NCCL_ALL: printed whatever NCCL_DEBUG_SUBSYS, once a process): the
 * newest release logged, for untrusted_op_count.
 */
static void version_line(struct state *s, const char *v)
{
	unsigned major, minor, patch;

	if (sscanf(v, "%3u.%3u.%3u", &major, &minor, &patch) == 3 && minor < 100 && patch < 100 &&
	    major * 10000 + minor * 100 + patch > s->release)
		s->release = major * 10000 + minor * 100 + patch;
}

static int parse_line(struct state *s, char *line)
{
	char *info = strstr(line, " NCCL INFO "), *msg, *dev, *hpt;
	size_t proc, len;

	if (!strncmp(line, "NCCL INFO ", 10))
		return fail(s, "prefix", "expected 'host:pid:tid [device] NCCL INFO'");
	if (!info)
		return 0; /* the application's own output, other levels */
	msg = info + strlen(" NCCL INFO ");
	/* processes that print to one file at once can cut each other's
	 * lines (NCCL writes a line with one fprintf, the launcher merges
	 * the pipes): the rest of one line then runs into another's, whose
	 * words would be read as its */
	if (strstr(msg, " NCCL INFO ") || strstr(msg, " NCCL WARN "))
		return fail(s, "line", "two processes' NCCL lines run into one (their output interleaved): log one file a process, NCCL_DEBUG_FILE=nccl.%%h.%%p.log");
	*info = '\0';
	/* "... host:pid:tid [dev]": the last two words before NCCL INFO */
	dev = strrchr(line, ' ');
	if (!dev || dev[1] != '[')
		return fail(s, "prefix", "expected 'host:pid:tid [device] NCCL INFO'");
	*dev = '\0';
	hpt = strrchr(line, ' ');
	hpt = hpt ? hpt + 1 : line;
	len = strlen(hpt);
	if (!strncmp(msg, "Channel ", 8)) {
		channel_line(s, msg);
		return 0;
	}
	if (!strncmp(msg, "NCCL version ", 13)) {
		version_line(s, msg + 13);
		return 0;
	}
	if (strstr(msg, " - Init COMPLETE")) {
		int cuda_dev = -1, err = 0;

		if (value_of(msg, "cudaDev"))
			err = small_int(s, msg, "cudaDev", &cuda_dev);
		if (!err)
			err = proc_of(s, hpt, len, cuda_dev < 0 ? -1 : cuda_dev, &proc);
		return err ? err : init_line(s, proc, msg);
	}
	for (size_t f = 0; f < sizeof(funcs) / sizeof(funcs[0]); f++) {
		size_t n = strlen(funcs[f].name);

		if (!strncmp(msg, funcs[f].name, n) && !strncmp(msg + n, ": opCount ", 10)) {
			int err = proc_of(s, hpt, len, ANY_DEV, &proc);

			return err ? err : coll_line(s, proc, msg, f);
		}
		if (!strncmp(msg, funcs[f].name, n) && !strncmp(msg + n, ": ", 2) &&
		    isdigit((unsigned char)msg[n + 2]) && strstr(msg, " Bytes -> Algo ")) {
			int err = proc_of(s, hpt, len, ANY_DEV, &proc);

			return err ? err : tuning_line(s, proc, msg, f);
		}
		if (!strncmp(msg, funcs[f].name, n) &&
		    (!strncmp(msg + n, " [Symmetric]: ", 14) || !strncmp(msg + n, " [Copy Engine]: ", 16) ||
		     !strncmp(msg + n, " [Hierarchical CE]: ", 20))) {
			int err = proc_of(s, hpt, len, ANY_DEV, &proc);

			if (!err)
				own_kernel_line(s, proc, msg, f);
			return err;
		}
	}
	/* another of NCCL's functions (Reduce, Gather, Scatter, ...): left
	 * out, and said so; every rank leaves out its own line, so the
	 * calls of each communicator still pair up by their place */
	info = strstr(msg, ": opCount ");
	if (info && info > msg && info - msg < (ptrdiff_t)sizeof(s->left_out_name) &&
	    !memchr(msg, ' ', (size_t)(info - msg))) {
		if (!s->left_out++) {
			snprintf(s->left_out_name, sizeof(s->left_out_name), "%.*s",
				 (int)(info - msg), msg);
			s->left_out_line = s->line;
			s->left_out_file = s->file;
		}
	}
	return 0;
}

/* What read_line found besides the line. */
enum line_end { LINE_OK, LINE_LONG, LINE_NUL, LINE_EOF };

/* A file read a block at a time, its lines found with memchr. */
struct line_reader {
	FILE *fp;
	size_t at, end;
	char block[1 << 16];
};

/*
 * The next line of @r into @buf (@len bytes: the first @len - 1 of a
 * longer line, the rest read and dropped), its newline (and a CR before
 * it) off. A NUL byte ends the reading at once: no NCCL line has one, and
 * a stream of them (/dev/zero) may have no newline to wait for.
 */
static enum line_end read_line(struct line_reader *r, char *buf, size_t len, bool *unended)
{
	size_t n = 0;
	bool any = false, cut = false;

	*unended = false;
	for (;;) {
		const char *from, *nl;
		size_t take, room = len - 1 - n;

		if (r->at == r->end) {
			r->at = 0;
			r->end = fread(r->block, 1, sizeof(r->block), r->fp);
			if (!r->end) {
				*unended = any; /* the file ends inside it */
				break;
			}
		}
		from = r->block + r->at;
		nl = memchr(from, '\n', r->end - r->at);
		take = nl ? (size_t)(nl - from) : r->end - r->at;
		any = true;
		if (memchr(from, '\0', take))
			return LINE_NUL;
		memcpy(buf + n, from, take < room ? take : room);
		cut |= take > room;
		n += take < room ? take : room;
		r->at += take + (nl != NULL);
		if (nl)
			break;
	}
	buf[n] = '\0';
	if (n && buf[n - 1] == '\r')
		buf[--n] = '\0';
	if (!any)
		return LINE_EOF;
	return cut ? LINE_LONG : LINE_OK;
}

static int read_input(struct state *s)
{
	struct line_reader *r = malloc(sizeof(*r));
	char buf[LINE_MAX_LEN];
	enum line_end end;
	bool unended;
	int err = 0;

	if (!r)
		return -ENOMEM;
	r->fp = s->in[s->file].fp;
	r->at = r->end = 0;
	s->line = 0;
	while (!err && (end = read_line(r, buf, sizeof(buf), &unended)) != LINE_EOF) {
		s->line++;
		/* a job's own long lines (a script's print) are not NCCL's,
		 * skipped: NCCL's lines are short, and one cut would be
		 * misread */
		if (end == LINE_NUL)
			err = fail(s, "line", "a NUL byte");
		else if (end == LINE_LONG && strstr(buf, " NCCL INFO "))
			err = fail(s, "line", "an NCCL line longer than %d bytes", LINE_MAX_LEN - 1);
		else if (end == LINE_OK)
			err = parse_line(s, buf);
		/* a killed job's last line, cut where its file ends: what it
		 * began to say is lost, not wrong (notes_of says so) */
		if (err == -EINVAL && unended && !s->cut_line) {
			s->cut_line = s->line;
			s->cut_file = s->file;
			s->d->msg[0] = '\0';
			err = 0;
		}
	}
	if (!err && ferror(r->fp))
		err = diag_set(s->d, -EIO, "%s: read error", s->in[s->file].name);
	free(r);
	return err;
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
static int world_ranks(struct state *s, uint64_t *world_id, int *world_n)
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
static int cmp_view(const void *pa, const void *pb)
{
	const struct comm_view *a = pa, *b = pb;

	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	if (a->nranks != b->nranks)
		return a->nranks < b->nranks ? -1 : 1;
	return (a->rank > b->rank) - (a->rank < b->rank);
}

/* The global rank of rank @r of communicator (@id, @n); -1 if unseen.
 * The views are sorted by cmp_view once the logs are read. */
static int global_of(const struct state *s, uint64_t id, int n, int r)
{
	const struct comm_view key = { .id = id, .nranks = n, .rank = r };
	const struct comm_view *v = bsearch(&key, s->views, s->nviews, sizeof(*s->views), cmp_view);

	return v ? s->procs[v->proc].world : -1;
}

static int cmp_unsigned(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return (x > y) - (x < y);
}

static int make_entry(struct state *s, const struct coll *c, uint64_t world_id,
		      int world_n, struct trace_entry *e)
{
	bool world = c->comm_id == world_id && c->nranks == world_n;
	const char *file = s->in[c->file].name;
	enum trace_dtype dt = TRACE_DTYPE_FP32;
	uint64_t mult;

	dtype_of(c->datatype, &dt); /* checked when the line was read */
	memset(e, 0, sizeof(*e));
	e->line = c->line;
	e->op = c->op;
	e->dtype = dt;
	e->compute_us = -1;
	e->root = e->peer = -1;
	memcpy(e->algo, c->algo, sizeof(e->algo));
	memcpy(e->proto, c->proto, sizeof(e->proto));
	/* the trace's bytes: NCCL's count a rank; all-gather,
	 * reduce-scatter and alltoall (count to each peer, src/nccl.h.in)
	 * take the whole buffer, count x ranks */
	mult = trace_dtype_size(dt) * (c->op == TRACE_OP_ALL_GATHER ||
						       c->op == TRACE_OP_REDUCE_SCATTER ||
						       c->op == TRACE_OP_ALLTOALL ?
					       (uint64_t)c->nranks : 1);
	if (c->count > (uint64_t)INT64_MAX / mult)
		return diag_at(s->d, -EINVAL, file, c->line, 0, "count",
			       "%" PRIu64 " elements of %u bytes is more than a trace holds",
			       c->count, trace_dtype_size(dt));
	e->bytes = c->count * mult;
	if (!world && !c->comm_id)
		return diag_at(s->d, -EINVAL, file, c->line, 0, "comm",
			       "a communicator of %d of the world's %d ranks, and this NCCL's log has no commId to find its other ranks by (NCCL 2.16 and later print it)",
			       c->nranks, world_n);
	if (!world) {
		e->group = malloc((size_t)c->nranks * sizeof(*e->group));
		if (!e->group)
			return -ENOMEM;
		e->ngroup = (unsigned)c->nranks;
		for (int r = 0; r < c->nranks; r++) {
			int g = global_of(s, c->comm_id, c->nranks, r);

			if (g < 0)
				return diag_at(s->d, -EINVAL, file, c->line, 0, "comm",
					       "communicator 0x%" PRIx64 " has %d ranks, the logs show no 'Init COMPLETE' of its rank %d with a world rank: import every rank's log",
					       c->comm_id, c->nranks, r);
			e->group[r] = (unsigned)g;
		}
	}
	/* comm ranks to global ones: the group is in comm rank order here */
	if (c->op == TRACE_OP_BROADCAST)
		e->root = world ? c->root : (int)e->group[c->root];
	/* the sender by its rank in the communicator, as its peer: a
	 * process's world rank may not be that rank's (a process of several
	 * devices whose lines share a comm pointer) */
	if (c->op == TRACE_OP_SENDRECV) {
		e->root = world ? c->comm_rank : (int)e->group[c->comm_rank];
		e->peer = world ? c->root : (int)e->group[c->root];
	}
	if (c->op == TRACE_OP_SENDRECV && e->root == e->peer)
		return diag_at(s->d, -EINVAL, file, c->line, 0, "root",
			       "the send's peer is world rank %d, the sender's own", e->peer);
	if (e->ngroup)
		qsort(e->group, e->ngroup, sizeof(*e->group), cmp_unsigned);
	for (unsigned i = 1; i < e->ngroup; i++)
		if (e->group[i] == e->group[i - 1])
			return diag_at(s->d, -EINVAL, file, c->line, 0, "comm",
				       "world rank %u holds two ranks of communicator 0x%" PRIx64,
				       e->group[i], c->comm_id);
	return 0;
}

struct order_key {
	uint64_t op_count;
	unsigned first_rank, nranks; /* the communicator's */
	bool world;
	uint64_t comm_id;
	uint64_t cseq;
	int src, dst;                /* a send's: one group's sends in any
				      * file's order come out alike */
	size_t seen;                 /* the order lines were read in */
};

static int cmp_order(const void *pa, const void *pb)
{
	const struct order_key *a = pa, *b = pb;

	if (a->op_count != b->op_count)
		return a->op_count < b->op_count ? -1 : 1;
	if (a->first_rank != b->first_rank)
		return a->first_rank < b->first_rank ? -1 : 1;
	if (a->nranks != b->nranks)
		return a->nranks > b->nranks ? -1 : 1;
	/* communicators of the same ranks (split children of the world's
	 * ranks): the world's first, the others by id, whatever file came
	 * first */
	if (a->world != b->world)
		return a->world ? -1 : 1;
	if (a->comm_id != b->comm_id)
		return a->comm_id < b->comm_id ? -1 : 1;
	if (a->cseq != b->cseq)
		return a->cseq < b->cseq ? -1 : 1;
	if (a->src != b->src)
		return a->src < b->src ? -1 : 1;
	if (a->dst != b->dst)
		return a->dst < b->dst ? -1 : 1;
	return (a->seen > b->seen) - (a->seen < b->seen);
}

/*
 * The log says each communicator's order (its opCount) but not how
 * communicators interleave: entries go by opCount, then by their
 * communicator's lowest global rank, larger communicators first, so that
 * one run gives one trace whether its ranks logged to one file or many,
 * in any order.
 */
static int issue_order(const struct state *s, struct trace *t, uint64_t world_id, int world_n)
{
	struct order_key *k = malloc(t->nentries * sizeof(*k));
	struct trace_entry *e = malloc(t->nentries * sizeof(*e));

	if (!k || !e) {
		free(k);
		free(e);
		return -ENOMEM;
	}
	for (size_t i = 0; i < t->nentries; i++) {
		const struct trace_entry *x = &t->entries[i];

		k[i].op_count = s->colls[i].op_count;
		k[i].first_rank = x->ngroup ? x->group[0] : 0;
		k[i].nranks = (unsigned)s->colls[i].nranks;
		k[i].world = s->colls[i].comm_id == world_id && s->colls[i].nranks == world_n;
		k[i].comm_id = s->colls[i].comm_id;
		k[i].cseq = s->colls[i].cseq;
		k[i].src = x->op == TRACE_OP_SENDRECV ? x->root : -1;
		k[i].dst = x->op == TRACE_OP_SENDRECV ? x->peer : -1;
		k[i].seen = i;
	}
	qsort(k, t->nentries, sizeof(*k), cmp_order);
	for (size_t i = 0; i < t->nentries; i++)
		e[i] = t->entries[k[i].seen];
	memcpy(t->entries, e, t->nentries * sizeof(*e));
	free(e);
	free(k);
	return 0;
}

/* A send, by (communicator, opCount), then sender and receiver. */
struct send_key {
	uint64_t comm_id, op_count;
	int nranks, src, dst; /* global ranks */
	size_t i;             /* its call and entry */
};

static int cmp_send(const void *pa, const void *pb)
{
	const struct send_key *x = pa, *y = pb;

	if (x->comm_id != y->comm_id)
		return x->comm_id < y->comm_id ? -1 : 1;
	if (x->nranks != y->nranks)
		return x->nranks < y->nranks ? -1 : 1;
	if (x->op_count != y->op_count)
		return x->op_count < y->op_count ? -1 : 1;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	return (x->dst > y->dst) - (x->dst < y->dst);
}

/* @n sorted sends from @k: every ordered pair of the communicator's
 * ranks once, each of one type, within a trace's bytes; *@uneven: not
 * all of one count (PyTorch's all_to_allv over sends). */
static bool whole_alltoall(const struct state *s, const struct trace *t,
			   const struct send_key *k, size_t n, bool *uneven)
{
	const struct coll *c0 = &s->colls[k[0].i];
	uint64_t ranks = (uint64_t)c0->nranks;

	*uneven = false;
	if (ranks < 2 || n != ranks * (ranks - 1))
		return false;
	for (size_t j = 0; j < n; j++) {
		const struct coll *c = &s->colls[k[j].i];

		if (c->datatype != c0->datatype || t->entries[k[j].i].bytes > (uint64_t)INT64_MAX / ranks ||
		    (j && k[j].src == k[j - 1].src && k[j].dst == k[j - 1].dst))
			return false;
		*uneven |= c->count != c0->count;
	}
	return true;
}

/* A folded group's receives: not matched with the sends left
 * (batch_sends), whose k-th of a pair they would shift. */
static void drop_folded_recvs(struct state *s, const struct send_key *folded, size_t nfolded)
{
	size_t kept = 0;

	for (size_t i = 0; i < s->nrecvs; i++) {
		bool in = false;

		for (size_t f = 0; f < nfolded && !in; f++)
			in = folded[f].comm_id == s->recvs[i].comm &&
			     folded[f].op_count == s->recvs[i].op_count;
		if (!in)
			s->recvs[kept++] = s->recvs[i];
	}
	s->nrecvs = kept;
}

/*
 * An all-to-all before NCCL 2.28 is a group of sends (PyTorch's
 * all2all_single_equal_split: ncclGroupStart, a send and a receive a
 * peer, ncclGroupEnd), its lines one opCount: NCCL runs them at once, as
 * one alltoall (its p2p plan), where the trace's sends would run one after
 * another. The sends of one (communicator, opCount) that are every
 * ordered pair of its ranks once, of one count, become that alltoall: its
 * bytes the count x ranks, a rank's send buffer (its own share, which it
 * copies and logs no line for, included), at its first line. @t's entries
 * and the state's calls stay side by side; *@folded counts them.
 */
static int fold_alltoalls(struct state *s, struct trace *t, unsigned *folded)
{
	struct send_key *k = malloc((s->ncolls ? s->ncolls : 1) * sizeof(*k));
	bool *drop = calloc(s->ncolls ? s->ncolls : 1, sizeof(*drop));
	size_t n = 0, kept = 0;

	*folded = 0;
	if (!k || !drop) {
		free(k);
		free(drop);
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->ncolls; i++)
		if (s->colls[i].op == TRACE_OP_SENDRECV && !s->colls[i].lone)
			k[n++] = (struct send_key){ s->colls[i].comm_id, s->colls[i].op_count,
						    s->colls[i].nranks, t->entries[i].root,
						    t->entries[i].peer, i };
	qsort(k, n, sizeof(*k), cmp_send);
	for (size_t a = 0, b; a < n; a = b) {
		size_t first = k[a].i;
		uint64_t most = 0;
		struct trace_entry *e;
		bool uneven;

		for (b = a + 1; b < n && k[b].comm_id == k[a].comm_id && k[b].nranks == k[a].nranks &&
				k[b].op_count == k[a].op_count;
		     b++)
			first = k[b].i < first ? k[b].i : first;
		if (!whole_alltoall(s, t, k + a, b - a, &uneven))
			continue;
		for (size_t j = a; j < b; j++) {
			drop[k[j].i] = k[j].i != first;
			most = t->entries[k[j].i].bytes > most ? t->entries[k[j].i].bytes : most;
		}
		/* an uneven one as the even one of its largest send (the
		 * kineto importer's all_to_allv, import_calls.h) */
		e = &t->entries[first];
		e->op = TRACE_OP_ALLTOALL;
		e->bytes = most * (uint64_t)k[a].nranks;
		e->root = e->peer = -1;
		s->colls[first].op = TRACE_OP_ALLTOALL;
		s->colls[first].logged = s->colls[first].nranks;
		/* the folded groups, for their receives, in the slots behind a */
		k[(*folded)++] = k[a];
		s->uneven_alltoalls += uneven;
	}
	drop_folded_recvs(s, k, *folded);
	for (size_t i = 0; i < s->ncolls; i++) {
		if (drop[i]) {
			free(t->entries[i].group);
			continue;
		}
		t->entries[kept] = t->entries[i];
		s->colls[kept++] = s->colls[i];
	}
	s->ncolls = t->nentries = kept;
	free(k);
	free(drop);
	return 0;
}

/*
 * Every other send is a batch of the sends of its launch
 * (nccl_log_groups.h): they run at once and wait for their ranks' calls
 * before them, not for the other ranks' sends (records_order).
 * s->batches counts the launches of more than one send.
 */
static int batch_sends(struct state *s, struct trace *t)
{
	size_t n = s->ncolls ? s->ncolls : 1, nsends = 0;
	struct nlg_end *sends = malloc(n * sizeof(*sends));
	size_t *idx = malloc(n * sizeof(*idx)), *group = malloc(n * sizeof(*group));
	unsigned *size = calloc(n, sizeof(*size));
	int err = sends && idx && group && size ? 0 : -ENOMEM;

	for (size_t i = 0; i < s->ncolls && !err; i++) {
		const struct coll *c = &s->colls[i];

		if (c->op != TRACE_OP_SENDRECV)
			continue;
		sends[nsends] = (struct nlg_end){ c->comm_id, c->comm_rank, c->root, c->op_count, i };
		idx[nsends++] = i;
	}
	if (!err)
		err = nlg_group(sends, nsends, s->recvs, s->nrecvs, group);
	for (size_t k = 0; k < nsends && !err; k++) {
		struct trace_entry *e = &t->entries[idx[k]];

		e->batched = true;
		e->batch = (unsigned)(group[k] % ((size_t)TRACE_BATCH_MAX + 1));
		if (++size[group[k]] == 2)
			s->batches++;
	}
	free(sends);
	free(idx);
	free(group);
	free(size);
	return err;
}

/*
 * Whether communicator (@id, @nranks)'s opCount fails to count its
 * launches: NCCL 2.27 and later (v2.27.3-1 src/enqueue.cc
 * hostStreamPlanTask calls ncclProxyStart, whose comm->opCount++ in
 * src/proxy.cc is the only one, only for a plan with proxy ops), so a
 * launch with no network work (one node over NVLink, or a rank whose
 * channels reach no NIC) leaves it where it was: a single node's calls
 * all print opCount 0 (NVIDIA/nccl#2021), or ranks disagree (mark_stuck).
 * @nranks < 0: any communicator of that id (a Recv line's).
 * Nothing in the log then says which calls were one group
 * (ncclGroupStart/End log nothing at INFO).
 */
static bool untrusted_op_count(const struct state *s, uint64_t id, int nranks)
{
	if (s->release >= 22700)
		return true;
	for (size_t i = 0; i < s->nstuck; i++)
		if (s->stuck[i].id == id && (nranks < 0 || s->stuck[i].nranks == nranks))
			return true;
	return false;
}

/*
 * Where a communicator's opCount counts no launches, each of its calls
 * is ordered by its place among its rank's lines instead, and each send
 * and receive is a launch of its own: never one batch or all-to-all
 * that the log cannot show was one group. Collectives need nothing: they
 * pair up by their place among the ranks' collectives (place_of_coll).
 */
static void order_by_place(struct state *s)
{
	for (size_t i = 0; i < s->ncolls; i++) {
		struct coll *c = &s->colls[i];

		if (!untrusted_op_count(s, c->comm_id, c->nranks))
			continue;
		c->op_count = c->seq;
		c->lone = c->op == TRACE_OP_SENDRECV;
		s->lone_sends += c->lone;
	}
	for (size_t i = 0; i < s->nrecvs; i++)
		if (untrusted_op_count(s, s->recvs[i].comm, -1))
			s->recvs[i].op_count = s->recv_seq[i];
}

static int build(struct state *s, struct trace *t)
{
	uint64_t world_id = 0;
	int world_n = 0, err;

	err = world_ranks(s, &world_id, &world_n);
	if (err)
		return err;
	s->world_n = world_n;
	/* a group's members are looked up once per rank of every entry */
	qsort(s->views, s->nviews, sizeof(*s->views), cmp_view);
	if (!s->ncolls && s->left_out)
		return diag_set(s->d, -EINVAL, "%s:%u: collective: '%s' is not one gdrlab's trace has (AllReduce, AllGather, ReduceScatter, Broadcast, AlltoAll, Send/Recv), and the logs have no other",
				s->in[s->left_out_file].name, s->left_out_line, s->left_out_name);
	if (!s->ncolls)
		return diag_set(s->d, -EINVAL, "%s: nccl-log: no collectives (NCCL_DEBUG_SUBSYS must include COLL)",
				s->in[0].name);
	order_by_place(s);
	t->entries = calloc(s->ncolls, sizeof(*t->entries));
	if (!t->entries)
		return -ENOMEM;
	t->nentries = s->ncolls;
	t->niterations = 1;
	snprintf(t->file, sizeof(t->file), "%s", s->in[0].name);
	for (size_t i = 0; i < s->ncolls && !err; i++)
		err = make_entry(s, &s->colls[i], world_id, world_n, &t->entries[i]);
	if (!err)
		err = fold_alltoalls(s, t, &s->alltoalls);
	if (!err)
		err = batch_sends(s, t);
	/* Each NCCL communicator is one of the trace's, named by its commId
	 * (the world's "world"), so that two of the same ranks stay two. */
	for (size_t i = 0; i < s->ncolls && !err; i++) {
		const struct coll *c = &s->colls[i];
		char name[TRACE_COMM_NAME_MAX];

		if (c->comm_id == world_id && c->nranks == world_n)
			snprintf(name, sizeof(name), "world");
		else
			snprintf(name, sizeof(name), "comm-%016" PRIx64, c->comm_id);
		err = trace_comm_assign(t, &t->entries[i], name, c->stream, s->d);
	}
	if (!err)
		err = issue_order(s, t, world_id, world_n);
	/* the issue order puts a rank's sends by its own opCount, and a
	 * launch joins ranks whose counts differ (a pipeline's middle stage's
	 * second exchange is its neighbour's first) */
	if (!err)
		err = trace_gather_batches(t);
	return err;
}

static int nccl_log_import(const struct import_input *in, size_t n,
			   const struct import_options *o, struct trace *t,
			   struct import_notes *notes, struct diag *d)
{
	struct state s = { .in = in, .d = d };
	int err = 0;

	(void)o;
	memset(t, 0, sizeof(*t));
	for (s.file = 0; s.file < n && !err; s.file++)
		err = read_input(&s);
	if (!err)
		err = build(&s, t);
	if (!err)
		notes_of(&s, notes);
	if (err == -ENOMEM)
		diag_set(d, err, "%s: out of memory", in[0].name);
	if (err)
		trace_destroy(t);
	for (size_t i = 0; i < s.nprocs; i++)
		free(s.procs[i].tuned);
	free(s.procs);
	free(s.views);
	free(s.colls);
	free(s.recvs);
	free(s.recv_seq);
	free(s.stuck);
	free(s.slots);
	return err;
}

const struct importer_ops importer_nccl_log = {
	.name = "nccl-log",
	.what = "NCCL_DEBUG=INFO output (INIT, COLL, TUNING lines), one rank's or many",
	.import = nccl_log_import,
};
