// SPDX-License-Identifier: MIT
/*
 * The reduction kernels: dst[i] += src[i], one per element type the traces
 * name. nvcc turns this file into a fatbin at build time (SASS for sm_75,
 * sm_80, sm_90, and sm_70 with a toolkit older than CUDA 13; compute_90
 * PTX, which newer GPUs JIT: real/CMakeLists.txt), embedded in the library
 * and loaded with cuModuleLoadData (cuda_reduce.c): no cudart, so gdrlab
 * starts where CUDA is absent. extern "C" keeps the names plain for
 * cuModuleGetFunction.
 *
 * bf16 and fp16 are summed in fp32 and rounded once, to nearest even, as
 * the host's dtype_sum does (emu/dtype.c), so both give the same bits.
 * A grid-stride loop lets one launch of a few blocks per SM cover any n.
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>

template <typename T> __device__ __forceinline__ T add(T a, T b)
{
	return a + b;
}

template <>
__device__ __forceinline__ __nv_bfloat16 add(__nv_bfloat16 a, __nv_bfloat16 b)
{
	return __float2bfloat16_rn(__bfloat162float(a) + __bfloat162float(b));
}

template <> __device__ __forceinline__ __half add(__half a, __half b)
{
	return __float2half_rn(__half2float(a) + __half2float(b));
}

template <typename T>
__device__ __forceinline__ void sum(T *__restrict__ dst,
				    const T *__restrict__ src,
				    unsigned long long n)
{
	unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x +
			       threadIdx.x;
	unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;

	for (; i < n; i += stride)
		dst[i] = add(dst[i], src[i]);
}

extern "C" {
__global__ void gdrlab_sum_fp32(float *dst, const float *src,
				unsigned long long n)
{
	sum(dst, src, n);
}

__global__ void gdrlab_sum_fp16(__half *dst, const __half *src,
				unsigned long long n)
{
	sum(dst, src, n);
}

__global__ void gdrlab_sum_bf16(__nv_bfloat16 *dst, const __nv_bfloat16 *src,
				unsigned long long n)
{
	sum(dst, src, n);
}

__global__ void gdrlab_sum_fp64(double *dst, const double *src,
				unsigned long long n)
{
	sum(dst, src, n);
}

__global__ void gdrlab_sum_int8(signed char *dst, const signed char *src,
				unsigned long long n)
{
	sum(dst, src, n);
}
}
