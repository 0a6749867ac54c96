/* SPDX-License-Identifier: MIT */
/*
 * The copy part of the staged path, measured (gpu_measure.h): shared by
 * gdrlab-gpu-check and `gdrlab calibrate --backend real`.
 */
#include "gpu_measure.h"

#include <errno.h>
#include <string.h>
#include <time.h>

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

double gpu_median3(const double *v)
{
	double a = v[0], b = v[1], c = v[2];

	if ((a <= b && b <= c) || (c <= b && b <= a))
		return b;
	if ((b <= a && a <= c) || (c <= a && a <= b))
		return a;
	return c;
}

int gpu_measure_copy_bw(struct mem_cuda *m, void *dev, const void *pin_src,
			void *pin_dst, size_t len, double *h2d, double *d2h)
{
	const struct vp_mem_ops *ops = &mem_cuda_ops;
	double in[GPU_MEASURE_TRIALS], out[GPU_MEASURE_TRIALS];
	int err = 0;

	for (int t = 0; !err && t < GPU_MEASURE_TRIALS; t++) {
		err = ops->copy_in(m, dev, pin_src, len);
		in[t] = m->last_copy_us;
		if (!err)
			err = ops->copy_out(m, pin_dst, dev, len);
		out[t] = m->last_copy_us;
	}
	if (err)
		return err;
	*h2d = len / (gpu_median3(in) * 1e-6);
	*d2h = len / (gpu_median3(out) * 1e-6);
	return 0;
}

int gpu_measure_copy_overhead(struct mem_cuda *m, void *dev, const void *pin,
			      double *us)
{
	const struct vp_mem_ops *ops = &mem_cuda_ops;
	double per[GPU_MEASURE_TRIALS];
	int err = 0;

	for (int t = 0; !err && t < GPU_MEASURE_TRIALS; t++) {
		double t0 = now_us();

		for (int i = 0; !err && i < GPU_MEASURE_SMALL_COPIES; i++)
			err = ops->copy_in(m, dev, pin, 64);
		per[t] = (now_us() - t0) / GPU_MEASURE_SMALL_COPIES;
	}
	if (err)
		return err;
	*us = gpu_median3(per);
	return 0;
}

int gpu_measure_reduce(struct mem_cuda *m, void *dst, const void *src,
		       size_t count, enum trace_dtype t, double *bw)
{
	double us[GPU_MEASURE_TRIALS];
	int err = 0;

	for (int k = 0; !err && k < GPU_MEASURE_TRIALS; k++) {
		err = mem_cuda_ops.reduce(m, dst, src, count, t);
		us[k] = m->last_copy_us;
	}
	if (err)
		return err;
	*bw = count * trace_dtype_size(t) / (gpu_median3(us) * 1e-6);
	return 0;
}

int gpu_measure_costs(struct mem_cuda *m, size_t len, struct gpu_copy_costs *out)
{
	const struct vp_mem_ops *ops = &mem_cuda_ops;
	void *dev_a = NULL, *dev_b = NULL, *pin_a = NULL, *pin_b = NULL;
	int err;

	memset(out, 0, sizeof(*out));
	out->len = len;
	err = ops->alloc(m, len, &dev_a);
	if (err)
		return err;
	err = ops->alloc(m, len, &dev_b);
	if (err)
		goto out_dev_a;
	err = mem_cuda_host_alloc(m, len, &pin_a);
	if (err)
		goto out_dev_b;
	err = mem_cuda_host_alloc(m, len, &pin_b);
	if (err)
		goto out_pin_a;
	memset(pin_a, 0, len); /* zero is 0.0 in every dtype */
	err = gpu_measure_copy_bw(m, dev_a, pin_a, pin_b, len, &out->h2d, &out->d2h);
	if (!err)
		err = gpu_measure_copy_overhead(m, dev_b, pin_b, &out->overhead_us);
	if (!err && m->red_ok)
		err = gpu_measure_reduce(m, dev_a, dev_b, len / sizeof(float),
					 TRACE_DTYPE_FP32, &out->reduce_fp32);
	mem_cuda_host_free(m, pin_b, len);
out_pin_a:
	mem_cuda_host_free(m, pin_a, len);
out_dev_b:
	ops->free(m, dev_b, len);
out_dev_a:
	ops->free(m, dev_a, len);
	return err;
}
