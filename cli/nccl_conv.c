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
	{ TRACE_OP_ALLREDUCE, "all_reduce", "sum", -1, false },
	{ TRACE_OP_ALL_GATHER, "all_gather", "none", -1, true },
	{ TRACE_OP_REDUCE_SCATTER, "reduce_scatter", "sum", -1, true },
	{ TRACE_OP_BROADCAST, "broadcast", "none", 0, false },
	{ TRACE_OP_ALLTOALL, "alltoall", "none", -1, true },
	{ TRACE_OP_SENDRECV, "sendrecv", "sum", -1, false },
};

/* common.cu's test_typenames, and the dtype of as many bytes. */
static const struct nccl_type types[] = {
	{ "float", 4, TRACE_DTYPE_FP32 },    { "half", 2, TRACE_DTYPE_FP16 },
	{ "bfloat16", 2, TRACE_DTYPE_BF16 }, { "double", 8, TRACE_DTYPE_FP64 },
	{ "int8", 1, TRACE_DTYPE_INT8 },     { "uint8", 1, TRACE_DTYPE_INT8 },
	{ "int32", 4, TRACE_DTYPE_FP32 },    { "uint32", 4, TRACE_DTYPE_FP32 },
	{ "int64", 8, TRACE_DTYPE_FP64 },    { "uint64", 8, TRACE_DTYPE_FP64 },
	{ "f8e4m3", 1, TRACE_DTYPE_INT8 },   { "f8e5m2", 1, TRACE_DTYPE_INT8 },
	/* common.cu built against NCCL 1 */
	{ "char", 1, TRACE_DTYPE_INT8 },     { "int", 4, TRACE_DTYPE_FP32 },
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
