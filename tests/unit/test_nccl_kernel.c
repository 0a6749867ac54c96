/* SPDX-License-Identifier: MIT */
/*
 * NCCL kernels' names (engine/nccl_kernel.c) as NCCL 2.8-2.18 and 2.19+
 * name them (src/include/collectives.h NCCL_KERN_NAME, src/enqueue.cc;
 * src/device/generate.py), with the argument lists the CUDA profiler
 * shows; PyTorch's type names (engine/torch_dtype.c).
 */
#include <criterion/criterion.h>
#include <errno.h>

#include "nccl_kernel.h"
#include "torch_dtype.h"

Test(nccl_kernel, names_of_both_eras)
{
	static const struct {
		const char *name;
		enum nccl_kernel_func func;
		int dtype; /* -1: the name carries none */
	} cases[] = {
		{ "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", NCCL_KERNEL_ALLREDUCE, TRACE_DTYPE_FP32 },
		{ "ncclKernel_AllReduce_RING_LL_Sum_half(ncclDevComm*, unsigned long, ncclWork*)", NCCL_KERNEL_ALLREDUCE, TRACE_DTYPE_FP16 },
		{ "ncclKernel_AllReduce_TREE_LL_Sum___nv_bfloat16(ncclDevComm*, unsigned long, ncclWork*)", NCCL_KERNEL_ALLREDUCE, TRACE_DTYPE_BF16 },
		{ "ncclKernel_ReduceScatter_COLLNET_DIRECT_LL_Sum_uint8_t(ncclDevComm*, unsigned long, ncclWork*)", NCCL_KERNEL_REDUCESCATTER, TRACE_DTYPE_INT8 },
		{ "ncclKernel_AllReduce_NVLS_TREE_LL_Sum_int64_t", NCCL_KERNEL_ALLREDUCE, TRACE_DTYPE_FP64 },
		/* copies: int8_t whatever the data */
		{ "ncclKernel_AllGather_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)", NCCL_KERNEL_ALLGATHER, -1 },
		{ "ncclKernel_Broadcast_RING_LL_Sum_int8_t(ncclWorkElem)", NCCL_KERNEL_BROADCAST, -1 },
		{ "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)", NCCL_KERNEL_SENDRECV, -1 },
		{ "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", NCCL_KERNEL_ALLREDUCE, TRACE_DTYPE_FP32 },
		{ "ncclDevKernel_AllReduce_Sum_f16_RING_LL", NCCL_KERNEL_ALLREDUCE, TRACE_DTYPE_FP16 },
		{ "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", NCCL_KERNEL_REDUCESCATTER, TRACE_DTYPE_BF16 },
		{ "ncclDevKernel_Reduce_Sum_u64_RING_LL", NCCL_KERNEL_REDUCE, TRACE_DTYPE_FP64 },
		{ "ncclDevKernel_AllReduce_Sum_f8e4m3_TREE_LL", NCCL_KERNEL_ALLREDUCE, TRACE_DTYPE_INT8 },
		{ "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", NCCL_KERNEL_ALLGATHER, -1 },
		{ "ncclDevKernel_AllGatherV_RING_LL", NCCL_KERNEL_ALLGATHER, -1 },
		{ "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", NCCL_KERNEL_SENDRECV, -1 },
		{ "ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)", NCCL_KERNEL_GENERIC, -1 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct nccl_kernel k;
		char why[128] = "";

		cr_assert_eq(nccl_kernel_parse(cases[i].name, &k, why, sizeof(why)), 0, "%s: %s", cases[i].name, why);
		cr_expect_eq(k.func, cases[i].func, "%s", cases[i].name);
		cr_expect_eq(k.has_dtype, cases[i].dtype >= 0, "%s", cases[i].name);
		if (cases[i].dtype >= 0)
			cr_expect_eq(k.dtype, (enum trace_dtype)cases[i].dtype, "%s", cases[i].name);
	}
}

Test(nccl_kernel, what_is_not_one)
{
	struct nccl_kernel k;
	char why[128] = "";

	cr_expect_eq(nccl_kernel_parse("void at::native::vectorized_elementwise_kernel", &k, why, sizeof(why)), 1);
	cr_expect_eq(nccl_kernel_parse("ncclDevKernel_AllReduce_Sum_f128_RING_LL", &k, why, sizeof(why)), -EINVAL);
	cr_expect_str_eq(why, "type suffix 'f128' is not one NCCL writes (f16, f32, bf16, f64, i8, u8, ...)");
	cr_expect_eq(nccl_kernel_parse("ncclKernel_AllReduce_RING_LL_Sum_complex(ncclWorkElem)", &k, why, sizeof(why)), -EINVAL);
	cr_expect_str_eq(why, "type suffix 'complex' is not one NCCL writes (half, float, __nv_bfloat16, double, int8_t, ...)");
	cr_expect_eq(nccl_kernel_parse("ncclDevKernel_AllToAll_RING_LL", &k, why, sizeof(why)), -EINVAL);
	cr_expect_str_eq(why, "'AllToAll' is not a collective NCCL has");
}

Test(torch_dtype, both_spellings)
{
	enum trace_dtype t;

	cr_expect(!torch_scalar_type("BFloat16", &t) && t == TRACE_DTYPE_BF16);
	cr_expect(!torch_scalar_type("Long", &t) && t == TRACE_DTYPE_FP64);
	cr_expect_eq(torch_scalar_type("bfloat16", &t), -EINVAL);
	cr_expect(!torch_cpp_type("c10::Half", 9, &t) && t == TRACE_DTYPE_FP16);
	cr_expect(!torch_cpp_type("long int)", 8, &t) && t == TRACE_DTYPE_FP64);
	cr_expect(!torch_cpp_type("unsigned char", 13, &t) && t == TRACE_DTYPE_INT8);
	cr_expect_eq(torch_cpp_type("Float", 5, &t), -EINVAL);
}
