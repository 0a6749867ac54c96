/* SPDX-License-Identifier: MIT */
/*
 * nccl_tests: what NVIDIA/nccl-tests' *_perf programs measured, read back
 * so that measured curves can stand beside predicted ones. Two formats:
 *
 *  - the table printed on stdout, every release from v1.0.0 (2018) to
 *    v2.19: v1.0.0 times in ms under a "bytes N ... res" header (and
 *    broadcast out of place only); later ones in us, with no root column
 *    before v2.13.0 and a largest-error column where newer ones count
 *    wrong elements; a column the run did not check reads N/A (in place
 *    for alltoall and sendrecv, everything with -c 0);
 *  - the JSON file written with -J (v2.17.3 and later, one line).
 *
 * A run that nccl-tests says failed ("Test NCCL failure ...") in or
 * before its table is refused at that line.
 *
 * Noise around the table (UCX and NCCL warnings, a job's own prints) is
 * skipped. A file holds one run of one collective over one data type,
 * reduction and root: -d all, -o all, -r -1 (several roots) and -N
 * repeats make several series and are refused, as are two runs in one log.
 */
#ifndef GDRLAB_NCCL_TESTS_H
#define GDRLAB_NCCL_TESTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"

#define NT_BLOCKING_SAID 4

/* More sizes than -b 1 -e 64G -f 2 gives by far; a bigger file is wrong. */
#define NCCL_TESTS_ROWS_MAX 65536
#define NCCL_TESTS_DEVICES_MAX (1u << 20)
#define NCCL_TESTS_FILE_MAX (64u << 20)

/* One half of a row: out of place or in place. */
struct nccl_tests_result {
	double time_us;    /* nccl-tests' time (with -C, from algbw) */
	double algbw_gbps; /* size / time */
	double busbw_gbps; /* algbw x the collective's bus factor */
	long long wrong;   /* wrong elements; -1 when N/A or not counted */
	double max_err;    /* old versions' "error" column; NAN otherwise */
	bool valid;        /* measured: false only where JSON gives null */
};

struct nccl_tests_row {
	uint64_t size;  /* bytes, as nccl-tests prints it (the larger buffer) */
	uint64_t count; /* elements, as nccl-tests prints it */
	char type[16];  /* "float", "bfloat16", ... */
	char redop[16]; /* "sum", ...; "none" or "" when the op reduces nothing */
	int root;       /* -1 when no root column, or none */
	struct nccl_tests_result oop, ip;
	unsigned line; /* source line (JSON: where its results entry starts) */
};

enum nccl_tests_format { NCCL_TESTS_TEXT, NCCL_TESTS_JSON };

struct nccl_tests_file {
	char name[256];
	enum nccl_tests_format format;
	/*
	 * The collective as nccl-tests names it ("all_reduce"), from the
	 * "# Collective test starting: all_reduce_perf" line (v2.16.7 and
	 * later) or the JSON's args[0]; "" when the file does not say.
	 */
	char op[32];
	/*
	 * The ranks of the communicator whose rows these are: rank 0's
	 * group. NCCL_TESTS_SPLIT (nccl-tests 2.13.4 and later) splits the
	 * devices listed into groups ("Group G", JSON "group") that run at
	 * once, and rank 0 prints its own's times.
	 */
	unsigned nranks; /* its devices; 0 if not listed */
	unsigned nhosts; /* distinct host names among them; 0 if not listed */
	/* the fewest and most of them a host has (equal where even) */
	unsigned host_ranks_min, host_ranks_max;
	/* ranks listed a host at a time (rank r on host r / per host, as
	 * mpirun --map-by slot places them), not spread over the hosts */
	bool hosts_in_blocks;
	unsigned ngroups; /* groups among all devices listed; 0 if not listed */
	char gpu[64];    /* rank 0's device name (cut to fit); "" if absent */
	/* The devices ("device D" of the text's list, the JSON's "device")
	 * its ranks ran on on each host, where every host lists the same
	 * ones: ascending, each once; ndevices 0 where the file does not say
	 * or the hosts differ. */
	unsigned ndevices;
	unsigned devices[64];
	/*
	 * The time columns were -C 1's cputime: the host's time to enqueue
	 * the calls, not the collective's (src/common.cu, v2.14.1 on: algbw
	 * and busbw still come from the GPU's time). So each half's time is
	 * size / algbw instead; a half of under 1 GB/s of algbw, whose two
	 * decimals cannot tell its time, is left unmeasured (valid false).
	 */
	bool cputime;
	/* -G N (nccl-tests 2.11 on: "graph: N" in the run's line, the
	 * JSON's config.graph): N CUDA graph launches timed, which leave out
	 * the host's launch cost a call otherwise pays; 0 if not. */
	unsigned cuda_graphs;
	/* -a N (> 1: "agg iters: N", the JSON's config.aggregated_iterations):
	 * N calls a ncclGroupStart/End, one launch for them (src/common.cu
	 * startColl), the time a call that launch's over N; 0 or 1 if not. */
	unsigned agg_iters;
	/* -z N: the host waited for each call (src/common.cu completeColl):
	 * 1 and a barrier, 2 without one, both timing the wait; 3 a wait
	 * a timed iteration, the calls timed by events (the text's
	 * "# Blocking Enabled: ..." line); NT_BLOCKING_SAID where only that
	 * it blocked is said (the JSON's config.blocking_collectives); 0 no. */
	unsigned blocking;
	/* The NCCL library's NCCL_VERSION_CODE, from "# nccl-tests version
	 * ... nccl-library=22703" (nccl-tests 2.13 and later) or the JSON's
	 * "nccl_version"; 0 if not said. */
	unsigned nccl_version;
	/*
	 * A table `gdrlab busbw` printed (cli/busbw_print.c): its line
	 * "# path auto, GDR level PHB, NCCL 2.8.4" (or "NCCL 2.15 (2.12.12's
	 * tables)"), the options it predicted with, as written ("auto",
	 * "PHB", "2.15"); line 0 where the file has none.
	 */
	struct nccl_tests_busbw {
		unsigned line;
		char path[16], gdr_level[8], nccl[16];
		/* its "# topology NAME (FILE): N nodes x ..." line: the
		 * nodes, and the GPUs a node where not all ("0-1,4"), as
		 * --gpus reads them; 0 and "" where there is none */
		unsigned topo_line, nodes;
		char gpus[96];
	} busbw;
	size_t nrows;
	/*
	 * Owned; strictly ascending size, in file order. Rows of 0 bytes are
	 * left out: all_gather and its kin round small sizes down to nothing.
	 */
	struct nccl_tests_row *rows;
	double avg_busbw; /* the "Avg bus bandwidth" figure, or NAN */
};

/*
 * Read an nccl-tests output, text or JSON (told apart by the first
 * character that is not blank). On failure return a negative errno, fill
 * @d with one line "file:line[:col]: key: problem" and leave @f empty
 * (nothing to destroy). @name is used in messages and copied to f->name.
 */
int nccl_tests_load(const char *path, struct nccl_tests_file *f,
		    struct diag *d);
int nccl_tests_load_buffer(const char *buf, size_t len, const char *name,
			   struct nccl_tests_file *f, struct diag *d);

void nccl_tests_destroy(struct nccl_tests_file *f);

/*
 * The trace op (trace.h's names: "allreduce", "all_gather", ...) for an
 * nccl-tests collective ("all_reduce"); NULL for ones the trace has no op
 * for (reduce, gather, scatter, hypercube, alltoallv) and unknown names.
 */
const char *nccl_tests_op_to_trace(const char *op);

#endif
