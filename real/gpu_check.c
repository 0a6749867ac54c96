/* SPDX-License-Identifier: MIT */
/*
 * gdrlab-gpu-check: everything of the real backend that needs only a GPU
 * (no RDMA NIC), measured and verified in well under a minute:
 *   - the pooled device arena (mem_cuda_ops.alloc), SYNC_MEMOPS on it
 *   - staged copies through pinned buffers (cuMemHostAlloc), async on a
 *     stream, timed by events: H2D and D2H bandwidth, median of 3 trials
 *     (nvbandwidth's method), and the per-copy overhead of small copies
 *   - the reduction kernels, fp32 and bf16 (and fp16, fp64, int8), with
 *     every element checked against the host's sum
 *   - dma-buf export of an unaligned arena range (cuMemGetHandleForAddressRange)
 *   - staged copies on the two copy streams at once, checked and timed
 *     against the same copies one after the other
 *   - the receive-side flush: cuFlushGPUDirectRDMAWrites where the device
 *     needs it (the RDMA READ one needs a NIC: named only)
 * Exit: 0 all good, 1 a wrong result or a failed call, 2 usage, 77 no GPU.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpu_measure.h"

#define MiB (1024.0 * 1024.0)
#define TRIALS GPU_MEASURE_TRIALS
#define SMALL_COPIES GPU_MEASURE_SMALL_COPIES

struct check {
	struct mem_cuda *m;
	size_t big;       /* bytes per bandwidth copy */
	void *dev_a, *dev_b;
	void *pin_a, *pin_b;
	double h2d, d2h;  /* bytes/s */
	double overhead_us;
	int failures;
};

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int fail(struct check *c, const char *what, int err)
{
	fprintf(stdout, "FAIL  %s: %s\n", what,
		mem_cuda_error(c->m)[0] ? mem_cuda_error(c->m) : strerror(-err));
	c->failures++;
	return err;
}

static int arena(struct check *c)
{
	const struct vp_mem_ops *ops = &mem_cuda_ops;
	unsigned one = 1;
	int err;

	err = ops->alloc(c->m, c->big, &c->dev_a);
	if (!err)
		err = ops->alloc(c->m, c->big, &c->dev_b);
	if (err)
		return fail(c, "arena alloc", err);
	if ((uintptr_t)c->dev_b % MEM_CUDA_ALIGN) {
		printf("FAIL  arena: block at %p not %u-aligned\n", c->dev_b, MEM_CUDA_ALIGN);
		c->failures++;
		return -EINVAL;
	}
	printf("ok    arena: one cuMemAlloc of %.0f MiB, two blocks of %.0f MiB at %p and %p\n",
	       c->m->arena_len / MiB, c->big / MiB, c->dev_a, c->dev_b);
	err = cu_check(c->m->cu, c->m->cu->PointerSetAttribute(&one, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS,
							      (CUdeviceptr)(uintptr_t)c->dev_a),
		       "cuPointerSetAttribute(SYNC_MEMOPS)", &c->m->err);
	if (err)
		return fail(c, "SYNC_MEMOPS", err);
	printf("ok    CU_POINTER_ATTRIBUTE_SYNC_MEMOPS set on the arena (as UCX does)\n");
	return 0;
}

/* Three timed copies of c->big bytes each way; the data checked once. */
static int copies(struct check *c)
{
	unsigned char *a = c->pin_a, *b = c->pin_b;
	int err;

	for (size_t i = 0; i < c->big; i++)
		a[i] = (unsigned char)(i * 7 + 3);
	err = gpu_measure_copy_bw(c->m, c->dev_a, a, b, c->big, &c->h2d, &c->d2h);
	if (err)
		return fail(c, "staged copies", err);
	if (memcmp(a, b, c->big)) {
		printf("FAIL  staged copies: the bytes that came back differ\n");
		c->failures++;
		return -EIO;
	}
	printf("ok    pinned H2D %.1f GB/s, D2H %.1f GB/s (%.0f MiB, events, median of %d; bytes checked)\n",
	       c->h2d / 1e9, c->d2h / 1e9, c->big / MiB, TRIALS);
	return 0;
}

/* An H2D into dev_a and a D2H out of dev_b, @together on the two copy
 * streams or one after the other: wall time in microseconds. */
static int h2d_and_d2h(struct check *c, bool together, double *us)
{
	unsigned in, out;
	double t0 = now_us();
	int err;

	err = mem_cuda_copy_in_start(c->m, c->dev_a, c->pin_a, c->big, &in);
	if (!err && !together)
		err = mem_cuda_copy_wait(c->m, in);
	if (!err)
		err = mem_cuda_copy_out_start(c->m, c->pin_b, c->dev_b, c->big, &out);
	if (!err && together)
		err = mem_cuda_copy_wait(c->m, in);
	if (!err)
		err = mem_cuda_copy_wait(c->m, out);
	*us = now_us() - t0;
	return err;
}

/*
 * The staged path's two streams: an H2D and a D2H started together must
 * finish sooner than one after the other (how much is the machine's:
 * bidirectional PCIe is not always double); and a D2H of a range that an
 * H2D on the other stream is still writing must wait for it (the
 * cross-stream order mem_cuda_copy.c keeps), so it brings back the H2D's
 * bytes.
 */
static int overlap(struct check *c)
{
	unsigned char *a = c->pin_a, *b = c->pin_b;
	double one[TRIALS], two[TRIALS];
	unsigned in, out;
	int err = 0;

	for (int t = 0; !err && t < TRIALS; t++) {
		err = h2d_and_d2h(c, false, &one[t]);
		if (!err)
			err = h2d_and_d2h(c, true, &two[t]);
	}
	for (size_t i = 0; !err && i < c->big; i++)
		a[i] = (unsigned char)(i * 13 + 5);
	memset(b, 0, c->big);
	if (!err)
		err = mem_cuda_copy_in_start(c->m, c->dev_b, a, c->big, &in);
	if (!err)
		err = mem_cuda_copy_out_start(c->m, b, c->dev_b, c->big, &out);
	if (!err)
		err = mem_cuda_copy_wait(c->m, out);
	if (!err)
		err = mem_cuda_copy_wait(c->m, in);
	if (err)
		return fail(c, "two copy streams", err);
	if (memcmp(a, b, c->big)) {
		printf("FAIL  two copy streams: a D2H did not wait for the H2D of its range on the other stream\n");
		c->failures++;
		return -EIO;
	}
	printf("ok    two copy streams: H2D + D2H of %.0f MiB together %.2f ms, one after the other %.2f ms (median of %d); a D2H behind an H2D of its range got its bytes\n",
	       c->big / MiB, gpu_median3(two) / 1e3, gpu_median3(one) / 1e3, TRIALS);
	return 0;
}

/* Per-copy cost of small copies: wall time of one synchronised copy
 * (enqueue, DMA, event wait), median of 3 batches. */
static int overhead(struct check *c)
{
	int err = gpu_measure_copy_overhead(c->m, c->dev_b, c->pin_b, &c->overhead_us);

	if (err)
		return fail(c, "small copies", err);
	printf("ok    per-copy overhead %.2f us (64-byte H2D copy with its event wait, median of %d x %d)\n",
	       c->overhead_us, TRIALS, SMALL_COPIES);
	return 0;
}

/* Element @i of @buf set to the small integer @v (< 128): exact in
 * every dtype, so the GPU's sum must match the host's bit for bit. */
static void put(void *buf, size_t i, enum trace_dtype t, unsigned v)
{
	unsigned e = v ? 31 - (unsigned)__builtin_clz(v) : 0;
	float f = (float)v;
	uint32_t u;

	switch (t) {
	case TRACE_DTYPE_FP32:
		((float *)buf)[i] = f;
		break;
	case TRACE_DTYPE_BF16: /* the top half of the fp32 */
		memcpy(&u, &f, sizeof(u));
		((uint16_t *)buf)[i] = (uint16_t)(u >> 16);
		break;
	case TRACE_DTYPE_FP16: /* biased exponent, 10-bit mantissa */
		((uint16_t *)buf)[i] = v ? (uint16_t)(((e + 15) << 10) |
						      ((v << (10 - e)) & 0x3ff)) : 0;
		break;
	case TRACE_DTYPE_FP64:
		((double *)buf)[i] = v;
		break;
	default:
		((int8_t *)buf)[i] = (int8_t)v;
		break;
	}
}

static unsigned value(size_t i, unsigned salt)
{
	return (unsigned)((i * 31 + salt) % 60);
}

/* dst += src on the GPU for an odd count (the grid-stride tail), the
 * result compared bit for bit with the sum done on the host and encoded
 * in the same dtype; then the kernel throughput, median of 3. */
static int reduce_one(struct check *c, enum trace_dtype t)
{
	const struct vp_mem_ops *ops = &mem_cuda_ops;
	unsigned size = trace_dtype_size(t);
	size_t n = (c->big / size - 1) | 1, bad = 0;
	unsigned char *a = c->pin_a, *b = c->pin_b;
	double bw;
	void *want;
	int err;

	want = malloc(n * size);
	if (!want)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		put(a, i, t, value(i, 1));
		put(b, i, t, value(i, 2));
		put(want, i, t, value(i, 1) + value(i, 2));
	}
	err = ops->copy_in(c->m, c->dev_a, a, n * size);
	if (!err)
		err = ops->copy_in(c->m, c->dev_b, b, n * size);
	if (!err)
		err = ops->reduce(c->m, c->dev_a, c->dev_b, n, t);
	if (!err)
		err = ops->copy_out(c->m, a, c->dev_a, n * size);
	if (err) {
		free(want);
		return fail(c, trace_dtype_name(t), err);
	}
	for (size_t i = 0; i < n; i++)
		bad += memcmp(a + i * size, (char *)want + i * size, size) != 0;
	free(want);
	err = gpu_measure_reduce(c->m, c->dev_a, c->dev_b, n, t, &bw);
	if (err)
		return fail(c, trace_dtype_name(t), err);
	if (bad) {
		printf("FAIL  reduce %s: %zu of %zu elements wrong\n", trace_dtype_name(t), bad, n);
		c->failures++;
		return -EIO;
	}
	printf("ok    reduce %-4s %zu elements verified; %.1f GB/s of dst (median of %d)\n",
	       trace_dtype_name(t), n, bw / 1e9, TRIALS);
	return 0;
}

static void dmabuf(struct check *c)
{
	struct diag d = { "" };
	size_t off;
	int fd, gdr = -1;
	int err;

	/* what gpu_reg_mr asks first (NCCL's ncclGpuGdrSupport): 0 means
	 * no registration, so no direct path (staged-only plans still run) */
	if (c->m->cu->DeviceGetAttribute(&gdr, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED,
					 c->m->dev))
		printf("ok    GPUDirect RDMA: the driver has no GPU_DIRECT_RDMA_SUPPORTED attribute (< 11.3): registration is tried\n");
	else
		printf("ok    GPUDirect RDMA: %s (CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED = %d)\n",
		       gdr ? "supported" : "not supported: no GPU memory is registered with a NIC (the direct path is refused)",
		       gdr);
	err = mem_cuda_dmabuf_export(c->m, (char *)c->dev_a + 100, 1 << 20, &fd, &off, &d);
	if (err) {
		printf("no    dma-buf export: %s (registration would fall back to nvidia-peermem)\n",
		       d.msg);
		return;
	}
	printf("ok    dma-buf export: fd %d for a 1 MiB range at +100 bytes (offset %zu in the page-aligned range)\n",
	       fd, off);
	close(fd);
}

/* The receive-side flush this GPU gets; the RDMA READ one needs a NIC's
 * QP (calibrate and runs attach one), so here it is only named. */
static void flush(struct check *c)
{
	int err;

	if (c->m->flush == MEM_CUDA_FLUSH_READ) {
		printf("ok    receive-side ordering: %s; not run here (no NIC's queue pair)\n",
		       mem_cuda_flush_name(c->m));
		return;
	}
	err = mem_cuda_recv_flush(c->m);
	if (err)
		fail(c, "cuFlushGPUDirectRDMAWrites", err);
	else
		printf("ok    receive-side ordering: %s%s\n", mem_cuda_flush_name(c->m),
		       c->m->flush == MEM_CUDA_FLUSH_CUDA ? ": it runs" : "");
}

static int run(struct check *c)
{
	static const enum trace_dtype types[] = {
		TRACE_DTYPE_FP32, TRACE_DTYPE_BF16, TRACE_DTYPE_FP16,
		TRACE_DTYPE_FP64, TRACE_DTYPE_INT8,
	};
	int err;

	if (arena(c))
		return -EIO;
	err = mem_cuda_host_alloc(c->m, c->big, &c->pin_a);
	if (!err)
		err = mem_cuda_host_alloc(c->m, c->big, &c->pin_b);
	if (err)
		return fail(c, "cuMemHostAlloc", err);
	printf("ok    pinned host buffers: 2 x %.0f MiB (cuMemHostAlloc, portable)\n",
	       c->big / MiB);
	if (!copies(c) && !overhead(c))
		overlap(c);
	if (!c->m->red_ok) {
		printf("FAIL  reduce: gdrlab was built without nvcc (configure with -DGDRLAB_CUDA=ON)\n");
		c->failures++;
	}
	for (size_t i = 0; c->m->red_ok && i < sizeof(types) / sizeof(types[0]); i++)
		reduce_one(c, types[i]);
	dmabuf(c);
	flush(c);
	if (c->h2d > 0)
		printf("\ncalibrated staging (a topology file's staging line):\n"
		       "staging: { chunk: 512 KiB, buffers: 8, copy_bandwidth: %.1f GB/s, chunk_overhead: %.1f us }\n",
		       (c->h2d < c->d2h ? c->h2d : c->d2h) / 1e9, c->overhead_us);
	return 0;
}

int main(int argc, char **argv)
{
	struct check c = { .big = 64u << 20 };
	struct diag d = { "" };
	int ordinal = 0, err;
	double t0 = now_us();

	if (argc > 2 || (argc == 2 && (sscanf(argv[1], "%d", &ordinal) != 1 || ordinal < 0))) {
		fprintf(stderr, "usage: gdrlab-gpu-check [CUDA-DEVICE]\n");
		return 2;
	}
	err = mem_cuda_open(&c.m, ordinal, 2 * c.big, &d);
	if (err == -ENODEV) {
		printf("gdrlab-gpu-check: skipped: %s\n", d.msg);
		return 77;
	}
	if (err) {
		printf("gdrlab-gpu-check: FAIL: %s\n", d.msg);
		return 1;
	}
	printf("GPU %d: %s, sm_%d%d, driver %d.%d, %d device(s); kernels %s\n", ordinal,
	       c.m->name, c.m->cc_major, c.m->cc_minor, c.m->cu->driver_version / 1000,
	       c.m->cu->driver_version % 1000 / 10, c.m->cu->ndevices,
	       c.m->red_ok ? "loaded" : "not built");
	run(&c);
	mem_cuda_host_free(c.m, c.pin_a, c.big);
	mem_cuda_host_free(c.m, c.pin_b, c.big);
	mem_cuda_close(c.m);
	printf("\n%s in %.1f s\n", c.failures ? "FAILED" : "all checks passed",
	       (now_us() - t0) / 1e6);
	return c.failures ? 1 : 0;
}
