/* SPDX-License-Identifier: MIT */
/*
 * gpu_measure: the copy part of a GPU's staged path, measured the one way
 * both gdrlab-gpu-check and `gdrlab calibrate --backend real` report it:
 *   - pinned H2D and D2H bandwidth: copies of @len bytes through
 *     mem_cuda_ops, timed by the stream's events, median of 3 trials
 *     (nvbandwidth's method)
 *   - per-copy overhead: wall time of one synchronised 64-byte copy
 *     (enqueue, DMA, event wait), median of 3 batches of 200
 *   - reduction throughput: bytes of dst per second of the sum kernel,
 *     event time, median of 3
 * Each returns 0 or a negative errno, with the message in mem_cuda_error().
 */
#ifndef GDRLAB_GPU_MEASURE_H
#define GDRLAB_GPU_MEASURE_H

#include <stddef.h>

#include "mem_cuda.h"

#define GPU_MEASURE_TRIALS 3
#define GPU_MEASURE_SMALL_COPIES 200

double gpu_median3(const double *v);

/* @len bytes from @pin_src to @dev and back to @pin_dst, three times;
 * bytes/s in *@h2d and *@d2h. The caller may compare the buffers after. */
int gpu_measure_copy_bw(struct mem_cuda *m, void *dev, const void *pin_src,
			void *pin_dst, size_t len, double *h2d, double *d2h);

/* Microseconds per small H2D copy from @pin into @dev (64 bytes each). */
int gpu_measure_copy_overhead(struct mem_cuda *m, void *dev, const void *pin,
			      double *us);

/* Bytes of @dst per second of dst += src over @count elements of @t. */
int gpu_measure_reduce(struct mem_cuda *m, void *dst, const void *src,
		       size_t count, enum trace_dtype t, double *bw);

/* All three on buffers of its own (2 x @len device, 2 x @len pinned):
 * what calibrate asks for. reduce_fp32 is 0 in a build without kernels. */
struct gpu_copy_costs {
	size_t len;             /* bytes per bandwidth copy */
	double h2d, d2h;        /* bytes/s */
	double overhead_us;     /* per copy */
	double reduce_fp32;     /* bytes/s of dst, 0 if not measured */
};

int gpu_measure_costs(struct mem_cuda *m, size_t len, struct gpu_copy_costs *out);

#endif
