/* SPDX-License-Identifier: MIT */
/*
 * Host memory standing in for GPU memory (the emu backend): every "GPU"
 * copy is a memcpy and every sum a loop on the CPU. real/ plugs CUDA
 * memory into the same table.
 */
#include <errno.h>
#include <stdbool.h>
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

/*
 * Started copies, done on their second test: a memcpy has no latency to
 * overlap, but the data path's handling of a copy still in flight (what
 * CUDA's asynchronous copies give it) then runs under emu, on real rxe,
 * with every byte checked. One rank per process, one thread: a table.
 */
#define HOST_COPIES 256

static struct host_copy_job {
	void *dst;
	const void *src;
	size_t len;
	bool busy, tested;
} jobs[HOST_COPIES];

static int host_copy_start(void *ctx, void *dst, const void *src, size_t len,
			   unsigned *ticket)
{
	for (unsigned i = 0; i < HOST_COPIES; i++)
		if (!jobs[i].busy) {
			jobs[i] = (struct host_copy_job){ dst, src, len, true, false };
			*ticket = i;
			return 0;
		}
	return -EBUSY;
}

static int host_copy_test(void *ctx, unsigned ticket)
{
	struct host_copy_job *j = &jobs[ticket % HOST_COPIES];

	if (!j->busy)
		return -EINVAL;
	if (!j->tested) {
		j->tested = true;
		return -EAGAIN;
	}
	memcpy(j->dst, j->src, j->len);
	j->busy = false;
	return 0;
}

static int host_copy_in_start(void *ctx, void *gpu, const void *host,
			      size_t len, unsigned *ticket)
{
	return host_copy_start(ctx, gpu, host, len, ticket);
}

static int host_copy_out_start(void *ctx, void *host, const void *gpu,
			       size_t len, unsigned *ticket)
{
	return host_copy_start(ctx, host, gpu, len, ticket);
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
	.copy_in_start = host_copy_in_start,
	.copy_out_start = host_copy_out_start,
	.copy_test = host_copy_test,
	.copy_dev = host_copy,
	.reduce = host_reduce,
};
