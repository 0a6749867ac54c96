/* SPDX-License-Identifier: MIT */
/* NCCL kernels' names (nccl_kernel.h). */
#include "nccl_kernel.h"
#include "torch_dtype.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const struct {
	const char *name;
	enum nccl_kernel_func func;
	bool reduces; /* its name carries the element type */
} funcs[] = {
	{ "AllReduce", NCCL_KERNEL_ALLREDUCE, true },
	{ "AllGather", NCCL_KERNEL_ALLGATHER, false },
	{ "AllGatherV", NCCL_KERNEL_ALLGATHER, false },
	{ "ReduceScatter", NCCL_KERNEL_REDUCESCATTER, true },
	{ "Broadcast", NCCL_KERNEL_BROADCAST, false },
	{ "Reduce", NCCL_KERNEL_REDUCE, true },
	{ "SendRecv", NCCL_KERNEL_SENDRECV, false },
	{ "Generic", NCCL_KERNEL_GENERIC, false },
};

/* NCCL 2.8-2.18's C++ type names (src/enqueue.cc, NCCL_FUNCS3A) */
static const struct dtype_name old_types[] = {
	{ "int8_t", TRACE_DTYPE_INT8 },	  { "uint8_t", TRACE_DTYPE_INT8 },
	{ "int32_t", TRACE_DTYPE_FP32 },  { "uint32_t", TRACE_DTYPE_FP32 },
	{ "int64_t", TRACE_DTYPE_FP64 },  { "uint64_t", TRACE_DTYPE_FP64 },
	{ "half", TRACE_DTYPE_FP16 },	  { "float", TRACE_DTYPE_FP32 },
	{ "double", TRACE_DTYPE_FP64 },	  { "__nv_bfloat16", TRACE_DTYPE_BF16 },
};

/* NCCL 2.19 and later's (src/device/generate.py, all_tys) */
static const struct dtype_name new_types[] = {
	{ "i8", TRACE_DTYPE_INT8 },  { "u8", TRACE_DTYPE_INT8 },     { "i32", TRACE_DTYPE_FP32 },
	{ "u32", TRACE_DTYPE_FP32 }, { "i64", TRACE_DTYPE_FP64 },    { "u64", TRACE_DTYPE_FP64 },
	{ "f16", TRACE_DTYPE_FP16 }, { "f32", TRACE_DTYPE_FP32 },    { "f64", TRACE_DTYPE_FP64 },
	{ "bf16", TRACE_DTYPE_BF16 }, { "f8e4m3", TRACE_DTYPE_INT8 }, { "f8e5m2", TRACE_DTYPE_INT8 },
};

const char *nccl_kernel_func_name(enum nccl_kernel_func f)
{
	for (size_t i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++)
		if (funcs[i].func == f)
			return funcs[i].name;
	return "?";
}

/* The length of the token at @s: up to '_', '(' or the end. */
static size_t token(const char *s)
{
	return strcspn(s, "_(");
}

/* The @len bytes at @s, safe to quote in a message (diag_printable). */
static const char *quote(const char *s, size_t len, char *buf, size_t n)
{
	char tok[32];

	snprintf(tok, sizeof(tok), "%.*s", len < sizeof(tok) ? (int)len : (int)sizeof(tok) - 1, s);
	return diag_printable(tok, buf, n);
}

int nccl_kernel_parse(const char *name, struct nccl_kernel *k, char *why, size_t n)
{
	bool dev = !strncmp(name, "ncclDevKernel_", 14);
	const char *p = name + (dev ? 14 : 11), *ty = p;
	size_t len, i;
	char q[32];
	int err;

	if (!dev && strncmp(name, "ncclKernel_", 11))
		return 1;
	len = token(p);
	for (i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++)
		if (strlen(funcs[i].name) == len && !strncmp(funcs[i].name, p, len))
			break;
	if (i == sizeof(funcs) / sizeof(funcs[0])) {
		snprintf(why, n, "'%s' is not a collective NCCL has", quote(p, len, q, sizeof(q)));
		return -EINVAL;
	}
	k->func = funcs[i].func;
	k->has_dtype = funcs[i].reduces;
	if (!k->has_dtype)
		return 0;
	p += len;
	if (dev) { /* _<Redop>_<ty>_<ALGO>_<PROTO> */
		ty = p + (*p == '_');
		ty += token(ty);
		ty += *ty == '_';
		len = token(ty);
		err = dtype_name_find(new_types, sizeof(new_types) / sizeof(new_types[0]), ty, len, &k->dtype);
	} else { /* _<ALGO>_<PROTO>_<Redop>_<type>: ALGO may hold '_' */
		static const char *const protos[] = { "_LL_", "_LL128_", "_SIMPLE_" };
		const char *at = NULL;

		for (i = 0; !at && i < sizeof(protos) / sizeof(protos[0]); i++)
			if ((at = strstr(p, protos[i])))
				ty = at + strlen(protos[i]);
		if (!at)
			ty = p;
		ty += token(ty); /* the redop */
		ty += *ty == '_';
		len = strcspn(ty, "(");
		err = dtype_name_find(old_types, sizeof(old_types) / sizeof(old_types[0]), ty, len, &k->dtype);
	}
	if (err)
		snprintf(why, n, "type suffix '%s' is not one NCCL writes (%s)", quote(ty, len, q, sizeof(q)),
			 dev ? "f16, f32, bf16, f64, i8, u8, ..." : "half, float, __nv_bfloat16, double, int8_t, ...");
	return err;
}
