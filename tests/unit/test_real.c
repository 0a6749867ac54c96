/* SPDX-License-Identifier: MIT */
/*
 * real: the CUDA side of the real backend. Without a GPU (CI) the driver
 * loader's "no GPU" paths, the CUresult translation and the backend's
 * probe are tested, and every test that needs a GPU is reported skipped
 * with the reason, printed here because Criterion shows skips only with
 * --verbose. With a GPU they run: arena, copies, kernels (as
 * real/gpu-check does, smaller).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "cuda_driver.h"
#include "cuda_reduce.h"
#include "mem_cuda.h"

#define STUB "/usr/local/cuda/lib64/stubs/libcuda.so"

/* The GPU, or the test reported skipped with the driver's reason. */
static struct mem_cuda *gpu_or_skip(const char *test)
{
	struct mem_cuda *m;
	struct diag d = { "" };

	if (mem_cuda_open(&m, 0, 0, &d)) {
		printf("test_real: %s skipped: %s\n", test, d.msg);
		fflush(stdout);
		cr_skip_test("%s", d.msg);
	}
	return m;
}

Test(real, cuda_errors_become_errno)
{
	struct diag d = { "" };

	cr_assert_eq(cu_errno(CUDA_SUCCESS), 0);
	cr_assert_eq(cu_errno(CUDA_ERROR_OUT_OF_MEMORY), -ENOMEM);
	cr_assert_eq(cu_errno(CUDA_ERROR_NO_DEVICE), -ENODEV);
	cr_assert_eq(cu_errno(CUDA_ERROR_STUB_LIBRARY), -ENODEV);
	cr_assert_eq(cu_errno(CUDA_ERROR_NOT_SUPPORTED), -EOPNOTSUPP);
	cr_assert_eq(cu_errno(CUDA_ERROR_INVALID_VALUE), -EINVAL);
	cr_assert_eq(cu_errno(999), -EIO);
	cr_assert_eq(cu_check(NULL, CUDA_SUCCESS, "x", &d), 0);
	cr_assert_eq(cu_check(NULL, 999, "cuMemAlloc", &d), -EIO);
	cr_assert_str_eq(d.msg, "cuMemAlloc: CUresult 999");
}

/* No libcuda at all: one -ENODEV, worded for people. */
Test(real, missing_driver_says_no_gpu)
{
	struct cu_api *cu = (void *)1;
	struct diag d = { "" };

	setenv("GDRLAB_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
	cr_assert_eq(cu_open(&cu, &d), -ENODEV);
	cr_assert_null(cu);
	cr_assert_str_eq(d.msg, "no NVIDIA GPU: /nonexistent/libcuda.so.1 not found (no NVIDIA driver)");
}

/* The toolkit's stub library loads but its cuInit fails: still "no GPU",
 * with the driver's error named. */
Test(real, stub_driver_says_no_gpu)
{
	struct cu_api *cu;
	struct diag d = { "" };
	FILE *f = fopen(STUB, "r");

	if (!f) {
		printf("test_real: stub_driver_says_no_gpu skipped: no %s (CUDA toolkit)\n", STUB);
		cr_skip_test("no CUDA toolkit stub");
	}
	fclose(f);
	setenv("GDRLAB_LIBCUDA", STUB, 1);
	cr_assert_eq(cu_open(&cu, &d), -ENODEV);
	cr_assert(strstr(d.msg, "no NVIDIA GPU: cuInit: CUDA_ERROR_STUB_LIBRARY"), "%s", d.msg);
}

/* Every entry point is looked up by a name libcuda.so.1 exports (the
 * stub's exports are the driver's): a missing _v2 would fail here, not on
 * the first machine with a GPU. */
Test(real, driver_symbols_exist_in_libcuda)
{
	struct diag d = { "" };
	FILE *f = fopen(STUB, "r");

	if (!f) {
		printf("test_real: driver_symbols_exist_in_libcuda skipped: no %s (CUDA toolkit)\n", STUB);
		cr_skip_test("no CUDA toolkit stub");
	}
	fclose(f);
	cr_assert_eq(cu_check_symbols(STUB, &d), 0, "%s", d.msg);
	cr_assert_eq(cu_check_symbols("libc.so.6", &d), -ENOSYS);
	cr_assert_str_eq(d.msg, "libcuda.so.1 lacks cuDeviceGet (driver too old?)");
}

/* The kernels are embedded when nvcc was found; the image is a fatbin
 * (its header's magic is 0xba55ed50, little endian). */
Test(real, kernels_embedded_when_built)
{
	size_t len;
	const unsigned char *img = cuda_reduce_image(&len);

	if (!cuda_reduce_built()) {
		printf("test_real: kernels_embedded_when_built skipped: built without nvcc (GDRLAB_CUDA=OFF)\n");
		cr_skip_test("built without nvcc");
	}
	cr_assert_gt(len, 1000);
	cr_assert_eq(img[0], 0x50);
	cr_assert_eq(img[1], 0xed);
	cr_assert_eq(img[2], 0x55);
	cr_assert_eq(img[3], 0xba);
}

/* The backend is listed with GPU memory and data checks, and where it
 * cannot run, probe says why in words a person can act on. */
Test(real, backend_probe_gives_the_reason)
{
	const struct backend_ops *b = backend_find("real");
	char why[256] = "";
	int err;

	if (!b) {
		for (size_t i = 0; gdrlab_backends_absent[i].name; i++)
			if (!strcmp(gdrlab_backends_absent[i].name, "real"))
				printf("test_real: backend_probe_gives_the_reason skipped: %s\n",
				       gdrlab_backends_absent[i].why);
		cr_skip_test("real backend not in this build");
	}
	cr_assert_eq(b->caps & (BACKEND_CAP_GPU_MEMORY | BACKEND_CAP_DATA_CHECK |
				BACKEND_CAP_WALL_CLOCK),
		     BACKEND_CAP_GPU_MEMORY | BACKEND_CAP_DATA_CHECK | BACKEND_CAP_WALL_CLOCK);
	err = backend_probe(b, why, sizeof(why));
	if (!err)
		return; /* a GPU and an RDMA NIC: nothing to explain */
	cr_assert_eq(err, -ENODEV);
	cr_assert(!strncmp(why, "no NVIDIA GPU: ", 15) || !strncmp(why, "no RDMA device: ", 16),
		  "%s", why);
	printf("test_real: the real backend cannot run here: %s\n", why);
}

Test(real, arena_hands_out_aligned_blocks_of_one_allocation)
{
	struct mem_cuda *m = gpu_or_skip("arena_hands_out_aligned_blocks_of_one_allocation");
	void *a, *b, *c;

	cr_assert_eq(mem_cuda_ops.alloc(m, 1000, &a), 0, "%s", mem_cuda_error(m));
	cr_assert_eq(mem_cuda_ops.alloc(m, 1000, &b), 0, "%s", mem_cuda_error(m));
	cr_assert_eq((uintptr_t)b - (uintptr_t)a, MEM_CUDA_ALIGN);
	mem_cuda_ops.free(m, b, 1000); /* the newest block comes back */
	cr_assert_eq(mem_cuda_ops.alloc(m, 1000, &c), 0);
	cr_assert_eq(c, b);
	cr_assert_eq(mem_cuda_ops.alloc(m, m->arena_len, &c), -ENOMEM);
	mem_cuda_close(m);
}

Test(real, copies_round_trip_through_pinned_memory)
{
	struct mem_cuda *m = gpu_or_skip("copies_round_trip_through_pinned_memory");
	size_t len = (1 << 20) + 3;
	unsigned char *h, *back;
	void *g, *g2;

	cr_assert_eq(mem_cuda_host_alloc(m, len, (void **)&h), 0, "%s", mem_cuda_error(m));
	cr_assert_eq(mem_cuda_host_alloc(m, len, (void **)&back), 0);
	cr_assert_eq(mem_cuda_ops.alloc(m, len, &g), 0);
	cr_assert_eq(mem_cuda_ops.alloc(m, len, &g2), 0);
	for (size_t i = 0; i < len; i++)
		h[i] = (unsigned char)(i * 13);
	cr_assert_eq(mem_cuda_ops.copy_in(m, g, h, len), 0, "%s", mem_cuda_error(m));
	cr_assert_eq(mem_cuda_ops.copy_dev(m, g2, g, len), 0, "%s", mem_cuda_error(m));
	cr_assert_eq(mem_cuda_ops.copy_out(m, back, g2, len), 0, "%s", mem_cuda_error(m));
	cr_assert_eq(memcmp(h, back, len), 0);
	cr_assert_gt(m->last_copy_us, 0);
	mem_cuda_host_free(m, h, len);
	mem_cuda_host_free(m, back, len);
	mem_cuda_close(m);
}

/* fp32 and bf16 sums of small integers: exact, so compared bit for bit. */
Test(real, kernels_sum_fp32_and_bf16)
{
	struct mem_cuda *m = gpu_or_skip("kernels_sum_fp32_and_bf16");
	enum { N = 100003 };
	static float f[N], g[N];
	static uint16_t bf[N], bg[N];
	void *d1, *d2;

	cr_assert(m->red_ok, "kernels not built");
	for (int i = 0; i < N; i++) {
		f[i] = (float)(i % 50);
		g[i] = (float)(i % 7);
	}
	cr_assert_eq(mem_cuda_ops.alloc(m, sizeof(f), &d1), 0);
	cr_assert_eq(mem_cuda_ops.alloc(m, sizeof(g), &d2), 0);
	cr_assert_eq(mem_cuda_ops.copy_in(m, d1, f, sizeof(f)), 0);
	cr_assert_eq(mem_cuda_ops.copy_in(m, d2, g, sizeof(g)), 0);
	cr_assert_eq(mem_cuda_ops.reduce(m, d1, d2, N, TRACE_DTYPE_FP32), 0, "%s",
		     mem_cuda_error(m));
	cr_assert_eq(mem_cuda_ops.copy_out(m, f, d1, sizeof(f)), 0);
	for (int i = 0; i < N; i++)
		cr_assert_eq(f[i], (float)(i % 50 + i % 7), "fp32 element %d", i);
	for (int i = 0; i < N; i++) {
		float a = (float)(i % 50), b = (float)(i % 7);
		uint32_t ua, ub;

		memcpy(&ua, &a, 4);
		memcpy(&ub, &b, 4);
		bf[i] = (uint16_t)(ua >> 16);
		bg[i] = (uint16_t)(ub >> 16);
	}
	cr_assert_eq(mem_cuda_ops.copy_in(m, d1, bf, sizeof(bf)), 0);
	cr_assert_eq(mem_cuda_ops.copy_in(m, d2, bg, sizeof(bg)), 0);
	cr_assert_eq(mem_cuda_ops.reduce(m, d1, d2, N, TRACE_DTYPE_BF16), 0, "%s",
		     mem_cuda_error(m));
	cr_assert_eq(mem_cuda_ops.copy_out(m, bf, d1, sizeof(bf)), 0);
	for (int i = 0; i < N; i++) {
		float want = (float)(i % 50 + i % 7);
		uint32_t u;

		memcpy(&u, &want, 4);
		cr_assert_eq(bf[i], (uint16_t)(u >> 16), "bf16 element %d", i);
	}
	mem_cuda_close(m);
}
