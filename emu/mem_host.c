/* SPDX-License-Identifier: MIT */
/*
 * Host memory standing in for GPU memory (the emu backend): every "GPU"
 * copy is a memcpy and every sum a loop on the CPU. real/ plugs CUDA
 * memory into the same table.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "verbs_path.h"

static int host_alloc(void *ctx, size_t len, void **ptr)
{
	/* page aligned, as cudaMalloc'd memory is for registration */
	if (posix_memalign(ptr, 4096, len ? len : 1))
		return -ENOMEM;
	memset(*ptr, 0, len);
	return 0;
}

static void host_free(void *ctx, void *ptr, size_t len)
{
	free(ptr);
}

static int host_copy(void *ctx, void *dst, const void *src, size_t len)
{
	memcpy(dst, src, len);
	return 0;
}

static int host_reduce(void *ctx, void *dst, const void *src, size_t count,
		       enum trace_dtype dtype)
{
	return dtype_sum(dst, src, count, dtype);
}

const struct vp_mem_ops vp_host_mem_ops = {
	.name = "host",
	.alloc = host_alloc,
	.free = host_free,
	.copy_in = host_copy,
	.copy_out = host_copy,
	.copy_dev = host_copy,
	.reduce = host_reduce,
};
