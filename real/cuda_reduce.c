/* SPDX-License-Identifier: MIT */
#include "cuda_reduce.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
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

const unsigned *cuda_reduce_sass(unsigned *ptx)
{
	*ptx = gdrlab_reduce_ptx;
	return gdrlab_reduce_sass;
}

const char *cuda_reduce_toolkit(void)
{
	return gdrlab_reduce_toolkit;
}

const char *cuda_reduce_archs(char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (const unsigned *a = gdrlab_reduce_sass; *a && off < len; a++)
		off += (size_t)snprintf(buf + off, len - off, "%ssm_%u",
					off ? " " : "", *a);
	if (gdrlab_reduce_ptx && off < len)
		snprintf(buf + off, len - off, "%scompute_%u", off ? " " : "",
			 gdrlab_reduce_ptx);
	if (!buf[0])
		snprintf(buf, len, "none");
	return buf;
}

bool cuda_reduce_loads_on(const unsigned *sass, unsigned ptx, unsigned cc)
{
	for (; *sass; sass++)
		if (*sass / 10 == cc / 10 && *sass <= cc)
			return true;
	return ptx && ptx <= cc;
}

static unsigned device_cc(const struct cu_api *cu, CUdevice dev)
{
	int major = 0, minor = 0;

	if (cu->DeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev) ||
	    cu->DeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev))
		return 0;
	return (unsigned)(major * 10 + minor);
}

/*
 * Say before cuModuleLoadData what it would only call
 * CUDA_ERROR_NO_BINARY_FOR_GPU: this GPU is older than everything in the
 * image. CUDA 13 builds nothing below sm_75, so a V100 (sm_70) needs a
 * gdrlab built with a CUDA 12 toolkit (real/CMakeLists.txt keeps sm_70
 * whenever nvcc still has it).
 */
static int too_old(unsigned cc, const char *archs, struct diag *d)
{
	bool volta = cc / 10 == 7 && atoi(gdrlab_reduce_toolkit) >= 13;
	char need[64];

	/* the image's oldest SASS, not always sm_70: a CUDA 13 build
	 * starts at sm_75 (nvcc --list-gpu-code) */
	snprintf(need, sizeof(need), "gdrlab's kernels here need sm_%u or newer",
		 gdrlab_reduce_sass[0] ? gdrlab_reduce_sass[0] : 70);
	return diag_set(d, -ENOEXEC,
			"reduction kernels: this GPU is sm_%u and the image has only %s (built by CUDA %s): %s",
			cc, archs, gdrlab_reduce_toolkit,
			volta ? "CUDA 13 dropped sm_70 (Volta); build gdrlab with a CUDA 12 toolkit for this GPU" :
				need);
}

int cuda_reduce_open(struct cuda_reduce *r, const struct cu_api *cu,
		     CUdevice dev, struct diag *d)
{
	char archs[96], what[192];
	unsigned cc;
	int sms = 0, err;

	memset(r, 0, sizeof(*r));
	r->cu = cu;
	if (!cuda_reduce_built())
		return diag_set(d, -ENOSYS,
				"gdrlab was built without the CUDA toolkit (nvcc): no reduction kernels (reconfigure with -DGDRLAB_CUDA=ON)");
	cuda_reduce_archs(archs, sizeof(archs));
	cc = device_cc(cu, dev);
	if (cc && !cuda_reduce_loads_on(gdrlab_reduce_sass, gdrlab_reduce_ptx, cc))
		return too_old(cc, archs, d);
	snprintf(what, sizeof(what),
		 "cuModuleLoadData(reduce.cu fatbin: %s, CUDA %s) on sm_%u", archs,
		 gdrlab_reduce_toolkit, cc);
	err = cu_check(cu, cu->ModuleLoadData(&r->mod, gdrlab_reduce_fatbin), what, d);
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
