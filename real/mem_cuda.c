/* SPDX-License-Identifier: MIT */
/*
 * mem_cuda: CUDA memory behind struct vp_mem_ops (see mem_cuda.h): the
 * device, the arena, kernels and device-to-device copies on the main
 * stream, pinned host memory, dma-buf export. Staged copies are in
 * mem_cuda_copy.c, the receive-side flush in mem_cuda_flush.c.
 */
#include "mem_cuda_priv.h"
#include "gpu_reg.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ARENA_ROUND (2u << 20)

static size_t round_up(size_t v, size_t a)
{
	return (v + a - 1) / a * a;
}

/* Wait for the end event; keep the time between the two events. */
static int finish(struct mem_cuda *m, const char *what)
{
	float ms = 0;
	int err;

	err = mem_cuda_check(m, m->cu->EventRecord(m->ev_end, m->stream), "cuEventRecord");
	if (!err)
		err = mem_cuda_check(m, m->cu->EventSynchronize(m->ev_end), what);
	if (!err)
		err = mem_cuda_check(m, m->cu->EventElapsedTime(&ms, m->ev_start, m->ev_end),
				     "cuEventElapsedTime");
	m->last_copy_us = err ? 0 : ms * 1e3;
	return err;
}

/* Main-stream work on [@a, +@alen) and [@b, +@blen) begins: after the
 * staged copies in flight on those ranges, between two events. */
static int start(struct mem_cuda *m, const void *a, size_t alen, const void *b,
		 size_t blen)
{
	int err = mem_cuda_current(m);

	if (!err)
		err = mem_cuda_order_after(m, m->stream, mem_cuda_dptr(a), alen, -1);
	if (!err)
		err = mem_cuda_order_after(m, m->stream, mem_cuda_dptr(b), blen, -1);
	if (!err)
		err = mem_cuda_check(m, m->cu->EventRecord(m->ev_start, m->stream), "cuEventRecord");
	return err;
}

static int arena_create(struct mem_cuda *m, size_t len)
{
	size_t want = round_up(len > m->arena_min ? len : m->arena_min, ARENA_ROUND);
	int err;

	err = mem_cuda_check(m, m->cu->MemAlloc(&m->arena, want), "cuMemAlloc (arena)");
	if (err) {
		snprintf(m->err.msg + strlen(m->err.msg),
			 sizeof(m->err.msg) - strlen(m->err.msg),
			 " (%zu bytes)", want);
		m->arena = 0;
		return err;
	}
	m->arena_len = want;
	m->arena_used = 0;
	return 0;
}

static int cuda_alloc(void *ctx, size_t len, void **ptr)
{
	struct mem_cuda *m = ctx;
	size_t at;
	int err = mem_cuda_current(m);

	if (err)
		return err;
	if (!m->arena) {
		err = arena_create(m, len);
		if (err)
			return err;
	}
	at = round_up(m->arena_used, MEM_CUDA_ALIGN);
	if (at > m->arena_len || len > m->arena_len - at)
		return diag_set(&m->err, -ENOMEM,
				"CUDA arena full: %zu of %zu bytes used, %zu more asked (one arena is registered, for BAR1's sake: raise arena_min)",
				m->arena_used, m->arena_len, len);
	/* cuMemsetD8 is asynchronous for device memory and runs on the
	 * legacy default stream, which our non-blocking stream does not wait
	 * for (CUDA driver API, "API synchronization behavior"): wait here,
	 * or the zeroing could land after the first copy or NIC write. */
	err = mem_cuda_check(m, m->cu->MemsetD8(m->arena + at, 0, len), "cuMemsetD8");
	if (!err)
		err = mem_cuda_check(m, m->cu->StreamSynchronize(NULL), "cuMemsetD8 (waiting)");
	if (err)
		return err;
	m->arena_used = at + len;
	*ptr = (void *)(uintptr_t)(m->arena + at);
	return 0;
}

/* A bump arena: freeing the newest block gives it back, others wait for
 * mem_cuda_close. */
static void cuda_free(void *ctx, void *ptr, size_t len)
{
	struct mem_cuda *m = ctx;
	CUdeviceptr p = mem_cuda_dptr(ptr);

	if (p >= m->arena && p + len == m->arena + m->arena_used)
		m->arena_used = p - m->arena;
}

static int cuda_copy_dev(void *ctx, void *dst, const void *src, size_t len)
{
	struct mem_cuda *m = ctx;
	int err = start(m, dst, len, src, len);

	if (!err)
		err = mem_cuda_check(m, m->cu->MemcpyDtoDAsync(mem_cuda_dptr(dst),
							       mem_cuda_dptr(src), len,
							       m->stream),
				     "cuMemcpyDtoDAsync");
	return err ? err : finish(m, "cuMemcpyDtoDAsync");
}

static int cuda_reduce(void *ctx, void *dst, const void *src, size_t count,
		       enum trace_dtype dtype)
{
	struct mem_cuda *m = ctx;
	size_t len;
	int err;

	if (!m->red_ok)
		return diag_set(&m->err, -ENOSYS,
				"gdrlab was built without the CUDA toolkit: no reduction kernels");
	len = count * trace_dtype_size(dtype);
	err = start(m, dst, len, src, len);
	if (!err)
		err = cuda_reduce_launch(&m->red, mem_cuda_dptr(dst), mem_cuda_dptr(src),
					 count, dtype, m->stream, &m->err);
	return err ? err : finish(m, "reduction kernel");
}

static const char *cuda_last_error(void *ctx)
{
	return mem_cuda_error(ctx);
}

const struct vp_mem_ops mem_cuda_ops = {
	.name = "cuda",
	.alloc = cuda_alloc,
	.free = cuda_free,
	.copy_in = mem_cuda_copy_in,
	.copy_out = mem_cuda_copy_out,
	.copy_in_start = mem_cuda_copy_in_start,
	.copy_out_start = mem_cuda_copy_out_start,
	.copy_test = mem_cuda_copy_test,
	.copy_dev = cuda_copy_dev,
	.reduce = cuda_reduce,
	.reg_mr = GPU_REG_MR_OP,
	.host_alloc = mem_cuda_host_alloc,
	.host_free = mem_cuda_host_free,
	.recv_flush = mem_cuda_recv_flush_at,
	.flush_attach = mem_cuda_flush_attach,
	.flush_detach = mem_cuda_flush_detach,
	.last_error = cuda_last_error,
};

int mem_cuda_host_alloc(void *ctx, size_t len, void **ptr)
{
	struct mem_cuda *m = ctx;
	int err = mem_cuda_current(m);

	if (!err)
		err = mem_cuda_check(m, m->cu->MemHostAlloc(ptr, len ? len : 1,
							    CU_MEMHOSTALLOC_PORTABLE),
				     "cuMemHostAlloc");
	if (!err)
		memset(*ptr, 0, len);
	return err;
}

void mem_cuda_host_free(void *ctx, void *ptr, size_t len)
{
	struct mem_cuda *m = ctx;

	if (ptr && !mem_cuda_current(m))
		m->cu->MemFreeHost(ptr);
}

int mem_cuda_dmabuf_export(struct mem_cuda *m, void *ptr, size_t len,
			   int *fd, size_t *offset, struct diag *d)
{
	/* the host page size, as NCCL takes it (64 KiB on some arm64) */
	long page = sysconf(_SC_PAGESIZE) > 0 ? sysconf(_SC_PAGESIZE) : 4096;
	CUdeviceptr p = mem_cuda_dptr(ptr);
	CUdeviceptr aligned = p / (CUdeviceptr)page * (CUdeviceptr)page;
	size_t alen = round_up(len + (size_t)(p - aligned), (size_t)page);
	int v = 0, err;

	*fd = -1;
	*offset = (size_t)(p - aligned);
	if (!m->cu->MemGetHandleForAddressRange)
		return diag_set(d, -EOPNOTSUPP,
				"dma-buf: the driver lacks cuMemGetHandleForAddressRange (CUDA >= 11.7)");
	if (!m->cu->DeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, m->dev) &&
	    !v)
		return diag_set(d, -EOPNOTSUPP,
				"dma-buf: not supported by this GPU/driver (CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED = 0: needs the open kernel modules >= 515)");
	err = mem_cuda_current(m);
	if (!err)
		err = cu_check(m->cu,
			       m->cu->MemGetHandleForAddressRange(fd, aligned, alen,
								  CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0),
			       "cuMemGetHandleForAddressRange(DMA_BUF_FD)", d);
	if (err)
		*fd = -1;
	return err;
}

const char *mem_cuda_error(const struct mem_cuda *m)
{
	return m->err.msg;
}

static int open_device(struct mem_cuda *m, struct diag *d)
{
	const struct cu_api *cu = m->cu;
	int err;

	if (m->ordinal < 0 || m->ordinal >= cu->ndevices)
		return diag_set(d, -ENODEV, "CUDA device %d: the driver sees %d",
				m->ordinal, cu->ndevices);
	err = cu_check(cu, cu->DeviceGet(&m->dev, m->ordinal), "cuDeviceGet", d);
	if (!err && cu->DeviceGetName(m->name, sizeof(m->name), m->dev))
		snprintf(m->name, sizeof(m->name), "CUDA device %d", m->ordinal);
	if (!err)
		err = cu_check(cu, cu->DevicePrimaryCtxRetain(&m->ctx, m->dev),
			       "cuDevicePrimaryCtxRetain", d);
	if (err)
		return err;
	err = cu_check(cu, cu->CtxSetCurrent(m->ctx), "cuCtxSetCurrent", d);
	if (!err)
		err = cu_check(cu, cu->StreamCreate(&m->stream, CU_STREAM_NON_BLOCKING),
			       "cuStreamCreate", d);
	if (!err)
		err = cu_check(cu, cu->EventCreate(&m->ev_start, CU_EVENT_DEFAULT),
			       "cuEventCreate", d);
	if (!err)
		err = cu_check(cu, cu->EventCreate(&m->ev_end, CU_EVENT_DEFAULT),
			       "cuEventCreate", d);
	if (!err)
		err = mem_cuda_copies_open(m, d);
	cu->DeviceGetAttribute(&m->cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, m->dev);
	cu->DeviceGetAttribute(&m->cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, m->dev);
	mem_cuda_flush_init(m);
	return err;
}

int mem_cuda_open(struct mem_cuda **out, int ordinal, size_t arena_min,
		  struct diag *d)
{
	struct mem_cuda *m;
	struct diag rd = { "" };
	int err;

	*out = NULL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return diag_set(d, -ENOMEM, "out of memory");
	m->ordinal = ordinal;
	m->arena_min = arena_min;
	err = cu_open(&m->cu, d);
	if (!err)
		err = open_device(m, d);
	if (err)
		goto err_close;
	/* Without the kernels copies still work; sums say why they cannot. */
	m->red_ok = !cuda_reduce_open(&m->red, m->cu, m->dev, &rd);
	if (!m->red_ok && cuda_reduce_built()) {
		/* rd names the GPU's arch and the image's */
		err = diag_set(d, -ENOEXEC, "%s (%s)", rd.msg, m->name);
		goto err_close;
	}
	*out = m;
	return 0;
err_close:
	mem_cuda_close(m);
	return err;
}

/* Keeps going after a failure: every resource is released. */
void mem_cuda_close(struct mem_cuda *m)
{
	const struct cu_api *cu;

	if (!m)
		return;
	cu = m->cu;
	mem_cuda_flush_close(m);
	if (cu && m->ctx) {
		cu->CtxSetCurrent(m->ctx);
		mem_cuda_copies_close(m);
		if (m->stream)
			cu->StreamSynchronize(m->stream);
		cuda_reduce_close(&m->red);
		if (m->arena)
			cu->MemFree(m->arena);
		if (m->ev_end)
			cu->EventDestroy(m->ev_end);
		if (m->ev_start)
			cu->EventDestroy(m->ev_start);
		if (m->stream)
			cu->StreamDestroy(m->stream);
		cu->DevicePrimaryCtxRelease(m->dev);
	}
	cu_close(m->cu);
	free(m);
}
