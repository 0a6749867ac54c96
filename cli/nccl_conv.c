/* SPDX-License-Identifier: MIT */
/*
 * nccl-tests' names, sizes and counts (NVIDIA/nccl-tests 2.19,
 * src/<collective>.cu). Per-rank shares are cut to whole 16 bytes since
 * v2.13.12 (commit 29f4114, 2024: aligned buffers for any number of
 * ranks); older versions cut them to whole elements only, so their small
 * sizes differ.
 */
#include "nccl_conv.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * redop and root: what each test's RunTest passes to TimeTest by default
 * (-o sum, -r 0); "none" where the collective reduces nothing, root -1
 * where it has none.
 */
static const struct nccl_coll colls[] = {
	{ TRACE_OP_ALLREDUCE, "all_reduce", "sum", -1, false, 0 },
	{ TRACE_OP_ALL_GATHER, "all_gather", "none", -1, true, 0 },
	{ TRACE_OP_REDUCE_SCATTER, "reduce_scatter", "sum", -1, true, 0 },
	{ TRACE_OP_BROADCAST, "broadcast", "none", 0, false, 0 },
	/* ncclSend and ncclRecv came with NCCL 2.7 (v2.7.3-1 nccl.h.in):
	 * alltoall.cu prints "NCCL 2.7 or later is needed for alltoall"
	 * before, sendrecv.cu does not build */
	{ TRACE_OP_ALLTOALL, "alltoall", "none", -1, true, 7 },
	{ TRACE_OP_SENDRECV, "sendrecv", "sum", -1, false, 7 },
};

/*
 * common.cu's test_typenames, and the dtype of as many bytes. bfloat16
 * from NCCL 2.10 (ncclBfloat16, v2.10.3-1 nccl.h.in), fp8 from 2.24
 * (ncclFloat8e4m3, v2.24.3-1), which main() drops from the list on GPUs
 * below compute capability 9.0 (minCudaArch < 900; NCCL itself refuses
 * their reductions there: enqueue.cc "FP8 reduction support begins with
 * sm90 capable devices").
 */
static const struct nccl_type types[] = {
	/* name, size, dtype, nccl_minor, min_cc, nccl1, fp8 */
	{ "float", 4, TRACE_DTYPE_FP32, 0, 0, false, false },
	{ "half", 2, TRACE_DTYPE_FP16, 0, 0, false, false },
	{ "bfloat16", 2, TRACE_DTYPE_BF16, 10, 0, false, false },
	{ "double", 8, TRACE_DTYPE_FP64, 0, 0, false, false },
	{ "int8", 1, TRACE_DTYPE_INT8, 0, 0, false, false },
	{ "uint8", 1, TRACE_DTYPE_INT8, 0, 0, false, false },
	{ "int32", 4, TRACE_DTYPE_FP32, 0, 0, false, false },
	{ "uint32", 4, TRACE_DTYPE_FP32, 0, 0, false, false },
	{ "int64", 8, TRACE_DTYPE_FP64, 0, 0, false, false },
	{ "uint64", 8, TRACE_DTYPE_FP64, 0, 0, false, false },
	{ "f8e4m3", 1, TRACE_DTYPE_INT8, 24, 90, false, true },
	{ "f8e5m2", 1, TRACE_DTYPE_INT8, 24, 90, false, true },
	/* common.cu built against NCCL 1, whose tables validate reads */
	{ "char", 1, TRACE_DTYPE_INT8, 0, 0, true, false },
	{ "int", 4, TRACE_DTYPE_FP32, 0, 0, true, false },
};

const struct nccl_coll *nccl_coll_find(const char *name)
{
	enum trace_op op;

	for (size_t i = 0; i < ARRAY_SIZE(colls); i++)
		if (strcmp(colls[i].name, name) == 0)
			return &colls[i];
	/* gdrlab's names and the spellings the trace reader takes */
	if (trace_op_parse(name, &op))
		return NULL;
	return nccl_coll_of(op);
}

const struct nccl_coll *nccl_coll_of(enum trace_op op)
{
	for (size_t i = 0; i < ARRAY_SIZE(colls); i++)
		if (colls[i].op == op)
			return &colls[i];
	return NULL;
}

const struct nccl_type *nccl_type_find(const char *name)
{
	enum trace_dtype t;

	for (size_t i = 0; i < ARRAY_SIZE(types); i++)
		if (strcmp(types[i].name, name) == 0)
			return &types[i];
	/* gdrlab's names: the nccl-tests type of that dtype */
	if (trace_dtype_parse(name, &t))
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(types); i++)
		if (types[i].dtype == t)
			return &types[i];
	return NULL;
}

int nccl_runs(const struct nccl_coll *c, const struct nccl_type *t,
	      enum trace_redop redop, unsigned minor, unsigned cc, char *why,
	      size_t len)
{
	if (c->nccl_minor > minor)
		snprintf(why, len, "%s needs NCCL 2.%u or later (ncclSend, ncclRecv), not 2.%u (--nccl)",
			 c->name, c->nccl_minor, minor);
	else if (t->nccl1)
		snprintf(why, len, "%s is nccl-tests' name against NCCL 1; against NCCL 2 it is %s",
			 t->name, t->size == 1 ? "int8" : "int32");
	else if (t->nccl_minor > minor)
		snprintf(why, len, "%s needs NCCL 2.%u or later, not 2.%u (--nccl)", t->name,
			 t->nccl_minor, minor);
	else if (cc && t->min_cc > cc)
		snprintf(why, len, "%s needs GPUs of compute capability %u.%u or later; the topology's are %u.%u (gpu_arch, compute_capability)",
			 t->name, t->min_cc / 10, t->min_cc % 10, cc / 10, cc % 10);
	/* ncclAvg: v2.10.3-1 nccl.h.in; common.cu counts it from 2.10 */
	else if (redop == TRACE_REDOP_AVG && minor < 10)
		snprintf(why, len, "avg needs NCCL 2.10 or later (ncclAvg), not 2.%u (--nccl)", minor);
	else
		return 0;
	return -EINVAL;
}

void nccl_coll_size(const struct nccl_coll *c, unsigned tsize,
		    unsigned nranks, uint64_t bytes, uint64_t *size,
		    uint64_t *count)
{
	uint64_t n = bytes / tsize;

	if (c->per_rank) {
		/* (count / nranks) & ~(16 / eltSize - 1): whole 16 bytes */
		uint64_t base = nranks ? (n / nranks) & ~(uint64_t)(16 / tsize - 1) : 0;

		*count = base;
		*size = base * nranks * tsize;
		return;
	}
	*count = n;
	*size = n * tsize;
}

int nccl_parse_size(const char *s, uint64_t *bytes)
{
	size_t len = strspn(s, "0123456789."), dots = 0;
	double v, unit = 1;
	char *end;

	/* digits and at most one point: no sign, no "inf", and none of
	 * strtod's hexadecimal (0x10) or exponents (1e3), which the help
	 * does not offer */
	for (size_t i = 0; i < len; i++)
		dots += s[i] == '.';
	if (dots > 1 || len == dots)
		return -EINVAL;
	v = strtod(s, &end);
	if (end != s + len || !isfinite(v))
		return -EINVAL;
	switch (*end) {
	case 'G':
	case 'g':
		unit *= 1024;
		/* fall through */
	case 'M':
	case 'm':
		unit *= 1024;
		/* fall through */
	case 'K':
	case 'k':
		unit *= 1024;
		end++;
		/* nccl-tests reads the letter alone (common.cu parsesize's
		 * "%lf %1s"): 1KB and 1KiB are 1K too */
		if (*end == 'i')
			end++;
		if (*end == 'B')
			end++;
		break;
	case 'B':
		end++; /* bytes */
		break;
	}
	if (*end)
		return -EINVAL;
	v *= unit;
	if (v > (double)NCCL_SIZE_MAX)
		return -EINVAL;
	*bytes = (uint64_t)v; /* nccl-tests' (size_t) cast: rounded down */
	return 0;
}

const char *nccl_format_float(char *buf, double v, int width)
{
	size_t n = (size_t)width + 1;

	if (snprintf(buf, n, "%*.2f", width, v) <= width)
		return buf;
	if (snprintf(buf, n, "%*.1f", width, v) <= width)
		return buf;
	if (snprintf(buf, n, "%*.0f", width, v) <= width)
		return buf;
	snprintf(buf, n, width >= 7 ? "%*.1e" : "%*.0e", width, v);
	return buf;
}
