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
 * must be a member of the group.
 */
#ifndef GDRLAB_TRACE_H
#define GDRLAB_TRACE_H

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

#define TRACE_NAME_MAX 16

struct trace_entry {
	unsigned line;      /* line in the file, for messages */
	unsigned iteration;
	enum trace_op op;
	enum trace_dtype dtype;
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
};

struct trace {
	char file[256];
	size_t nentries;
	struct trace_entry *entries; /* owned; in file order */
	unsigned niterations;       /* highest iteration + 1 */
};

/* The inverse of trace_op_parse; "allreduce", "reduce_scatter", ... */
const char *trace_op_name(enum trace_op op);
int trace_op_parse(const char *s, enum trace_op *op);
const char *trace_dtype_name(enum trace_dtype t);
int trace_dtype_parse(const char *s, enum trace_dtype *t);
unsigned trace_dtype_size(enum trace_dtype t);

/*
 * Read a trace file. Entries must be grouped by iteration in increasing
 * order. On failure returns a negative errno, fills @d with
 * "file:line:col: key: problem" and leaves @t empty (nothing to destroy).
 */
int trace_load(const char *path, struct trace *t, struct diag *d);
int trace_load_buffer(const char *buf, size_t len, const char *name,
		      struct trace *t, struct diag *d);

/* Write @t as JSON Lines; the output reads back to an equal trace. */
int trace_write(FILE *out, const struct trace *t);

void trace_destroy(struct trace *t);

#endif
