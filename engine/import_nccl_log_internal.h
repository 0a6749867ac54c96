/* SPDX-License-Identifier: MIT */
/*
 * What the nccl-log importer's files share: import_nccl_log.c (the
 * importer: the files read a line at a time, each line's prefix and kind,
 * the Channel and version lines, the header's notes),
 * import_nccl_log_ranks.c (processes, communicators, the world's ranks),
 * import_nccl_log_calls.c (collective, send and TUNING lines matched
 * across ranks) and import_nccl_log_trace.c (the calls into the trace).
 */
#ifndef GDRLAB_IMPORT_NCCL_LOG_INTERNAL_H
#define GDRLAB_IMPORT_NCCL_LOG_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "importer.h"
#include "nccl_log_groups.h"

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
	 * as 22703, or that a line only 2.27 and later print shows (22700,
	 * release_from_lines); 0 if neither */
	unsigned release;
	bool version_said;  /* some process logged its "NCCL version" line */
	/* the first line only NCCL 2.27 and later print (release_from_line):
	 * its words, file and line; line 0 if none */
	const char *newer_by;
	size_t newer_file;
	unsigned newer_line;
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

/* import_nccl_log.c: the line's place in the diagnostic, -EINVAL; the
 * words of a line ("key value") read */
int nlog_fail(struct state *s, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
const char *nlog_value_of(const char *msg, const char *key);
int nlog_number(struct state *s, const char *msg, const char *key, int base, uint64_t max,
	   uint64_t *out);
int nlog_small_int(struct state *s, const char *msg, const char *key, int *out);

/* proc_of's @dev for a line that names no device: the process's first */
#define ANY_DEV (-2)

/* import_nccl_log_ranks.c: a line's process, its communicators, the
 * world and a communicator's ranks in it */
int nlog_proc_of(struct state *s, const char *hpt, size_t len, int dev, size_t *out);
const struct comm_view *nlog_view_of(const struct state *s, size_t proc, uint64_t ptr);
int nlog_init_line(struct state *s, size_t proc, const char *msg);
int nlog_world_ranks(struct state *s, uint64_t *world_id, int *world_n);
int nlog_cmp_view(const void *pa, const void *pb);
int nlog_global_of(const struct state *s, uint64_t id, int n, int r);

/* import_nccl_log_calls.c: NCCL's functions the lines name, and the
 * lines of calls */
struct nccl_log_func {
	const char *name;
	enum trace_op op;
	bool skip; /* the other end of a transfer logged elsewhere */
};
extern const struct nccl_log_func nlog_funcs[7];
int nlog_dtype_of(int code, enum trace_dtype *t);
int nlog_coll_line(struct state *s, size_t proc, const char *msg, size_t f);
int nlog_tuning_line(struct state *s, size_t proc, const char *msg, size_t f);
void nlog_own_kernel_line(struct state *s, size_t proc, const char *msg, size_t f);

/* import_nccl_log_trace.c: the trace of the calls read */
int nlog_build(struct state *s, struct trace *t);

#endif
