/* SPDX-License-Identifier: MIT */
/*
 * nccl_conv: nccl-tests' conventions, as its *_perf programs apply them
 * (NVIDIA/nccl-tests src/common.cu setupArgs and parsesize, and each
 * src/<collective>.cu's GetCollByteCount), for the commands that print or
 * read its tables: busbw and validate --nccl-tests.
 */
#ifndef GDRLAB_NCCL_CONV_H
#define GDRLAB_NCCL_CONV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace.h"

/* One collective of nccl-tests that gdrlab has an op for. */
struct nccl_coll {
	enum trace_op op;
	const char *name;   /* nccl-tests' ("all_reduce", as in all_reduce_perf) */
	const char *redop;  /* what its redop column says by default */
	int root;           /* its root column: -1, or the default root 0 */
	bool per_rank;      /* each rank's share is a count of its own,
			     * aligned to 16 bytes; size = count x ranks */
	unsigned nccl_minor; /* the first NCCL 2 minor release that runs it
			      * (ncclSend and ncclRecv: 2.7); 0: all */
};

/* By gdrlab's op name or nccl-tests' ("allreduce", "all_reduce", ...);
 * NULL when neither. */
const struct nccl_coll *nccl_coll_find(const char *name);
const struct nccl_coll *nccl_coll_of(enum trace_op op);
/* "allreduce, all_gather, ..." for messages. */
#define NCCL_COLL_NAMES                                                       \
	"allreduce, all_gather, reduce_scatter, broadcast, alltoall, sendrecv"

/* A data type by nccl-tests' name, and the trace dtype that moves as
 * many bytes an element (the models time bytes, not values). */
struct nccl_type {
	const char *name; /* nccl-tests' */
	unsigned size;
	enum trace_dtype dtype;
	unsigned nccl_minor; /* the first NCCL 2 minor release with it
			      * (bfloat16 2.10, fp8 2.24); 0: all */
	unsigned min_cc;     /* the least compute capability x 10 nccl-tests
			      * offers it on (fp8: 90); 0: any */
	bool nccl1;          /* nccl-tests' name built against NCCL 1 only */
	bool fp8;            /* f8e4m3, f8e5m2: NCCL tunes them apart from
			      * the int8 they run as (plan_options.fp8) */
};

/* By nccl-tests' name, or gdrlab's (fp32, fp16, bf16, fp64); NULL when
 * neither. */
const struct nccl_type *nccl_type_find(const char *name);
#define NCCL_TYPE_NAMES                                                       \
	"float, half, bfloat16, double, int8, uint8, int32, uint32, int64, "  \
	"uint64, f8e4m3, f8e5m2"

/*
 * Whether nccl-tests built against NCCL 2.@minor runs @c of @t reducing
 * by @redop (TRACE_REDOP_SUM where it reduces nothing) on GPUs of
 * compute capability @cc x 10: 0, or -EINVAL with why not in @why. A
 * type or op it does not list it runs as float or sum (common.h
 * ncclstringtotype: "invalid type bfloat16, defaulting to float"), not
 * what was asked.
 */
int nccl_runs(const struct nccl_coll *c, const struct nccl_type *t,
	      enum trace_redop redop, unsigned minor, unsigned cc, char *why,
	      size_t len);

/*
 * The size and count nccl-tests prints for a run of @bytes (its -b..-e
 * loop variable): count = bytes / type size, then per-rank collectives
 * cut each rank's share to a multiple of 16 bytes (so small sizes give
 * 0); size is the larger of the send and receive buffers.
 */
void nccl_coll_size(const struct nccl_coll *c, unsigned tsize,
		    unsigned nranks, uint64_t bytes, uint64_t *size,
		    uint64_t *count);

/* The largest size busbw takes: 1024G. */
#define NCCL_SIZE_MAX (1ull << 40)

/*
 * A size as nccl-tests' -b, -e and -i take it: a number (a fraction is
 * allowed) with an optional K, M or G, powers of 1024 (either case; KB
 * and KiB are K too, as nccl-tests reads the letter alone), or B,
 * rounded down to whole bytes. 0, or -EINVAL when it is not one or is
 * above NCCL_SIZE_MAX.
 */
int nccl_parse_size(const char *s, uint64_t *bytes);

/*
 * @v in @width characters as nccl-tests prints times and bandwidths
 * (util.cu getFloatStr): two decimals, then one, none, and an exponent
 * when even that is too wide. @buf holds @width + 1 at least.
 */
const char *nccl_format_float(char *buf, double v, int width);

#endif
