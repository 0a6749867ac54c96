/* SPDX-License-Identifier: MIT */
#include "cuda_reduce.h"

#include <errno.h>
#include <string.h>

#include "reduce_fatbin.h"

#define BLOCK 256
#define BLOCKS_PER_SM 8

/* Kernel names of reduce.cu, by trace dtype. */
static const char *const kernel[TRACE_DTYPE_COUNT] = {
	[TRACE_DTYPE_FP32] = "gdrlab_sum_fp32",
	[TRACE_DTYPE_FP16] = "gdrlab_sum_fp16",
	[TRACE_DTYPE_BF16] = "gdrlab_sum_bf16",
	[TRACE_DTYPE_FP64] = "gdrlab_sum_fp64",
	[TRACE_DTYPE_INT8] = "gdrlab_sum_int8",
};

bool cuda_reduce_built(void)
{
	return gdrlab_reduce_fatbin_len > 0;
}

const void *cuda_reduce_image(size_t *len)
{
	*len = gdrlab_reduce_fatbin_len;
	return gdrlab_reduce_fatbin;
}

int cuda_reduce_open(struct cuda_reduce *r, const struct cu_api *cu,
		     CUdevice dev, struct diag *d)
{
	int sms = 0, err;

	memset(r, 0, sizeof(*r));
	r->cu = cu;
	if (!cuda_reduce_built())
		return diag_set(d, -ENOSYS,
				"gdrlab was built without the CUDA toolkit (nvcc): no reduction kernels (reconfigure with -DGDRLAB_CUDA=ON)");
	err = cu_check(cu, cu->ModuleLoadData(&r->mod, gdrlab_reduce_fatbin),
		       "cuModuleLoadData(reduce.cu fatbin: sm_80, sm_90, compute_90 PTX)", d);
	if (err)
		return err;
	for (int t = 0; t < TRACE_DTYPE_COUNT; t++) {
		err = cu_check(cu, cu->ModuleGetFunction(&r->fn[t], r->mod, kernel[t]),
			       kernel[t], d);
		if (err)
			goto err_unload;
	}
	if (cu->DeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev) ||
	    sms <= 0)
		sms = 16;
	r->max_blocks = (unsigned)sms * BLOCKS_PER_SM;
	return 0;
err_unload:
	cu->ModuleUnload(r->mod);
	r->mod = NULL;
	return err;
}

void cuda_reduce_close(struct cuda_reduce *r)
{
	if (r->mod)
		r->cu->ModuleUnload(r->mod);
	r->mod = NULL;
}

int cuda_reduce_launch(struct cuda_reduce *r, CUdeviceptr dst,
		       CUdeviceptr src, size_t count, enum trace_dtype t,
		       CUstream s, struct diag *d)
{
	unsigned long long n = count;
	void *args[] = { &dst, &src, &n };
	size_t blocks = (count + BLOCK - 1) / BLOCK;

	if ((unsigned)t >= TRACE_DTYPE_COUNT || !r->fn[t])
		return diag_set(d, -ENOTSUP, "no reduction kernel for dtype %d", (int)t);
	if (!count)
		return 0;
	if (blocks > r->max_blocks)
		blocks = r->max_blocks;
	return cu_check(r->cu,
			r->cu->LaunchKernel(r->fn[t], (unsigned)blocks, 1, 1, BLOCK, 1, 1,
					    0, s, args, NULL),
			kernel[t], d);
}
