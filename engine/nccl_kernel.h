/* SPDX-License-Identifier: MIT */
/*
 * nccl_kernel: what the name of an NCCL kernel, as the CUDA profiler
 * shows it ("ncclDevKernel_AllReduce_Sum_f32_RING_LL(...)"), says of its
 * call: the collective, and for a reduction the element type.
 *
 * NCCL 2.8 to 2.18: ncclKernel_<Func>_<ALGO>_<PROTO>_<Redop>_<type>
 *   (src/include/collectives.h, NCCL_KERN_NAME; the kernels launched are
 *   the LL, Sum ones of each type: src/enqueue.cc, ncclKerns), type one
 *   of int8_t uint8_t int32_t uint32_t int64_t uint64_t half float double
 *   __nv_bfloat16. Copies (AllGather, Broadcast) and SendRecv use the
 *   int8_t kernel whatever the data: bytes, not the data's type.
 * NCCL 2.19 and later (src/device/generate.py, best_kernel):
 *   ncclDevKernel_<Func>_Sum_<ty>_<ALGO>_LL for the reductions, ty one of
 *   i8 u8 i32 u32 i64 u64 f16 f32 f64 bf16 f8e4m3 f8e5m2;
 *   ncclDevKernel_<Func>_<ALGO>_LL for AllGather, AllGatherV and
 *   Broadcast (no type); ncclDevKernel_SendRecv; ncclDevKernel_Generic.
 */
#ifndef GDRLAB_NCCL_KERNEL_H
#define GDRLAB_NCCL_KERNEL_H

#include <stdbool.h>
#include <stddef.h>

#include "trace.h"

enum nccl_kernel_func {
	NCCL_KERNEL_ALLREDUCE,
	NCCL_KERNEL_ALLGATHER,
	NCCL_KERNEL_REDUCESCATTER,
	NCCL_KERNEL_BROADCAST,
	NCCL_KERNEL_REDUCE,
	NCCL_KERNEL_SENDRECV,
	NCCL_KERNEL_GENERIC, /* runs any collective */
};

struct nccl_kernel {
	enum nccl_kernel_func func;
	bool has_dtype;        /* a reduction's kernel: its element type */
	enum trace_dtype dtype; /* the trace type of its size */
};

/*
 * 0 with @k filled; 1 when @name is not an NCCL kernel's; -EINVAL when it
 * is one, with a collective or a type NCCL does not write, @why saying
 * which (@n bytes).
 */
int nccl_kernel_parse(const char *name, struct nccl_kernel *k, char *why, size_t n);
/* "AllReduce", ... */
const char *nccl_kernel_func_name(enum nccl_kernel_func f);

#endif
