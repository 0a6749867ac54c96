/* SPDX-License-Identifier: MIT */
/*
 * trace: a gradient-exchange trace, one collective per line of JSON
 * (docs/trace-format.md). Example line:
 *
 *   {"iteration": 0, "op": "allreduce", "bytes": 26214400, "dtype": "bf16",
 *    "ready_us": 1520.0, "compute_us": 4100.0}
 *
 * "group" (a list of global ranks) is optional and means every rank when
 * absent; broadcast takes "root", send/recv "src" and "dst", each of which
 * must be a member of the group. "comm" names the communicator and
 * "stream" the stream a collective runs on: collectives of one
 * communicator and stream run one after another, those of different ones
 * at the same time; "batch" groups sends into one launch
 * (docs/trace-format.md).
 */
#ifndef GDRLAB_TRACE_H
#define GDRLAB_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "diag.h"

enum trace_op {
	TRACE_OP_ALLREDUCE,
	TRACE_OP_REDUCE_SCATTER,
	TRACE_OP_ALL_GATHER,
	TRACE_OP_BROADCAST,
	TRACE_OP_ALLTOALL,
	TRACE_OP_SENDRECV,
	TRACE_OP_COUNT,
};

enum trace_dtype {
	TRACE_DTYPE_FP32,
	TRACE_DTYPE_FP16,
	TRACE_DTYPE_BF16,
	TRACE_DTYPE_FP64,
	TRACE_DTYPE_INT8,
	TRACE_DTYPE_COUNT,
};

/* A reduction's operation (NCCL's ncclRedOp_t; PyTorch's ReduceOp):
 * which algorithms can run it (NVLS reduces in the switch, which does
 * some operations on some types only). */
enum trace_redop {
	TRACE_REDOP_SUM, /* the default: zero */
	TRACE_REDOP_PROD,
	TRACE_REDOP_MIN,
	TRACE_REDOP_MAX,
	TRACE_REDOP_AVG,
	TRACE_REDOP_COUNT,
};

#define TRACE_NAME_MAX 16
#define TRACE_COMM_NAME_MAX 64
#define TRACE_STREAM_MAX 65535
#define TRACE_BATCH_MAX 2147483647
/* A time's ceiling (ready_us, compute_us), us: 10^12 us is 11.6 days,
 * beyond any iteration, and keeps every sum of a trace's times finite and
 * exact to a nanosecond (a double's 53 bits). */
#define TRACE_TIME_MAX_US 1e12

struct trace_entry {
	unsigned line;      /* line in the file, for messages */
	unsigned iteration;
	enum trace_op op;
	enum trace_dtype dtype;
	enum trace_redop redop; /* all-reduce, reduce-scatter; else sum */
	uint64_t bytes;     /* the buffer as nccl-tests sizes it: all-gather,
			     * reduce-scatter, alltoall: all ranks' shares */
	double ready_us;    /* when the bucket is ready, from iteration start */
	double compute_us;  /* compute time of the iteration; < 0 when absent */
	int root;           /* broadcast root, send/recv source; -1 when absent */
	int peer;           /* send/recv destination; -1 when absent */
	unsigned ngroup;    /* 0 = every rank */
	unsigned *group;    /* owned by the entry; NULL when ngroup == 0 */
	/* What NCCL ran, when the trace knows it (its TUNING lines): an
	 * algorithm and a protocol as NCCL_ALGO / NCCL_PROTO name them;
	 * "" when not said. The planner checks the names. */
	char algo[TRACE_NAME_MAX], proto[TRACE_NAME_MAX];
	unsigned comm;      /* index into trace.comms (0 when it has none) */
	unsigned stream;    /* the stream on that communicator, 0 by default */
	/* A send/receive of one ncclGroupStart/End (PyTorch's
	 * batch_isend_irecv): the lines of one communicator and stream
	 * in a row with the same batch run at once, as one launch. */
	bool batched;
	unsigned batch;     /* 0 .. TRACE_BATCH_MAX when batched */
	unsigned job;       /* its job of several on one cluster
			     * (trace_jobs.h), 0 in a trace of its own */
};

/*
 * A communicator: a set of ranks with a name. A trace names them with
 * "comm"; a line without one is on the communicator of its group,
 * "world" for every rank, "group1", "group2", ... for the others in the
 * order they first appear. One name is one set of ranks.
 */
struct trace_comm {
	char name[TRACE_COMM_NAME_MAX];
	bool named;         /* some line gave the name (written back) */
	unsigned line;      /* where it first appears */
	unsigned ngroup;    /* 0 = every rank */
	unsigned *group;    /* owned; NULL when ngroup == 0 */
	uint64_t hash;      /* of the rank set, to find it again */
};

struct trace {
	char file[256];
	size_t nentries;
	struct trace_entry *entries; /* owned; in file order */
	unsigned niterations;       /* highest iteration + 1 */
	unsigned njobs;             /* jobs merged into it (trace_jobs.h),
				     * each with its own iterations; 0: a
				     * trace of one job */
	size_t ncomms, cap_comms;
	struct trace_comm *comms;   /* owned; in order of first appearance;
				     * none when a producer left every entry
				     * on one communicator */
	size_t ncomm_groups;        /* implicit ones named so far */
	uint32_t *comm_slots;       /* owned: comms by name, open addressing
				     * (index + 1, 0 empty; trace_comm.c) */
	size_t ncomm_slots;
};

/* The inverse of trace_op_parse; "allreduce", "reduce_scatter", ... */
const char *trace_op_name(enum trace_op op);
int trace_op_parse(const char *s, enum trace_op *op);
const char *trace_dtype_name(enum trace_dtype t);
int trace_dtype_parse(const char *s, enum trace_dtype *t);
/* NCCL's names: sum, prod, min, max, avg; parse: 0 or -EINVAL. */
const char *trace_redop_name(enum trace_redop op);
int trace_redop_parse(const char *s, enum trace_redop *op);
/* Whether @op reduces (all-reduce, reduce-scatter): takes a redop. */
bool trace_op_reduces(enum trace_op op);
unsigned trace_dtype_size(enum trace_dtype t);

/*
 * Read a trace file. Entries must be grouped by iteration in increasing
 * order. On failure returns a negative errno, fills @d with
 * "file:line:col: key: problem" and leaves @t empty (nothing to destroy).
 */
int trace_load(const char *path, struct trace *t, struct diag *d);
int trace_load_buffer(const char *buf, size_t len, const char *name,
		      struct trace *t, struct diag *d);

/*
 * Put entry @e (already appended to @t, its group set) on communicator
 * @name ("" or NULL: its group's own) and stream @stream. An entry with no
 * group on a communicator that has one gets a copy of it; a group that
 * differs from the communicator's is an error naming both lines.
 */
int trace_comm_assign(struct trace *t, struct trace_entry *e, const char *name,
		      unsigned stream, struct diag *d);
/* The name of @e's communicator ("world" when @t keeps none). */
const char *trace_entry_comm(const struct trace *t, const struct trace_entry *e);
/* Whether @s may name a communicator: 1-63 of [A-Za-z0-9_.:/-]. */
bool trace_comm_name_valid(const char *s);

/* Write @t as JSON Lines; the output reads back to an equal trace. */
int trace_write(FILE *out, const struct trace *t);

/*
 * The lines of each batch (trace_entry.batched: one communicator, stream,
 * iteration and batch) in a row at its last line's place, the others in
 * their order, as a trace's batch is its lines in a row: for importers
 * and generators, whose order of issue may put other lines of the
 * communicator between a batch's. The last: a batch starts once all its
 * sends are ready (NCCL launches a group once every rank has issued it),
 * so the calls issued before its last send are before it on its ranks'
 * streams. 0 or -ENOMEM.
 */
int trace_gather_batches(struct trace *t);

/* The ranks the trace's entries name: its highest rank (groups, roots,
 * peers) + 1, 0 where every entry is on every rank. */
unsigned trace_ranks_named(const struct trace *t);
/* How many ranks the trace's calls take (groups, roots, peers), or 0
 * where a call is on every rank (so on every rank of the cluster it runs
 * on). */
unsigned trace_ranks_used(const struct trace *t);

void trace_destroy(struct trace *t);

#endif
