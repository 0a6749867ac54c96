/* SPDX-License-Identifier: MIT */
/*
 * real: the CUDA side of the real backend. Without a GPU (CI) the driver
 * loader's "no GPU" paths, the CUresult translation and the backend's
 * probe are tested, the kernels' image and the archs it loads on, and
 * mem_cuda's two copy streams and flush rule over a fake driver; every
 * test that needs a GPU is reported skipped with the reason, printed here
 * because Criterion shows skips only with --verbose. With a GPU they run:
 * arena, copies, kernels (as real/gpu-check does, smaller).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "cuda_driver.h"
#include "cuda_reduce.h"
#include "mem_cuda.h"
#include "mem_cuda_priv.h" /* the fake driver tests reach inside */

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

/* SASS runs on the same major and a minor at least as high; PTX on any
 * GPU at least as new (CUDA's binary and PTX compatibility rules). */
Test(real, kernels_load_where_cuda_compatibility_says)
{
	static const unsigned cuda13[] = { 75, 80, 90, 0 }, cuda12[] = { 70, 75, 80, 90, 0 };
	static const unsigned none[] = { 0 };

	cr_expect_not(cuda_reduce_loads_on(cuda13, 90, 70)); /* V100 */
	cr_expect_not(cuda_reduce_loads_on(cuda13, 90, 72)); /* Xavier */
	cr_expect(cuda_reduce_loads_on(cuda13, 90, 75));     /* T4: sm_75 */
	cr_expect(cuda_reduce_loads_on(cuda13, 90, 80));     /* A100 */
	cr_expect(cuda_reduce_loads_on(cuda13, 90, 86));     /* A10: sm_80 */
	cr_expect(cuda_reduce_loads_on(cuda13, 90, 89));     /* L40: sm_80 */
	cr_expect(cuda_reduce_loads_on(cuda13, 90, 90));     /* H100 */
	cr_expect(cuda_reduce_loads_on(cuda13, 90, 100));    /* B200: PTX */
	cr_expect(cuda_reduce_loads_on(cuda13, 90, 120));    /* RTX 50: PTX */
	cr_expect_not(cuda_reduce_loads_on(cuda13, 0, 100)); /* no PTX */
	cr_expect_not(cuda_reduce_loads_on(cuda13, 90, 61)); /* Pascal */
	cr_expect(cuda_reduce_loads_on(cuda12, 90, 70));
	cr_expect(cuda_reduce_loads_on(cuda12, 90, 72));
	cr_expect_not(cuda_reduce_loads_on(none, 90, 89));   /* PTX only: 9.0 up */
	cr_expect(cuda_reduce_loads_on(none, 90, 90));
}

/*
 * The fatbin's entries as public fatbin readers take them (no NVIDIA
 * header has the layout; checked against what nvcc 13.0 writes): a
 * 16-byte header (magic 0xba55ed50, u16 version, u16 header size, u64
 * size of the entries), then entries of u16 kind (1 PTX, 2 ELF), u16,
 * u32 header size, u64 payload size, ..., u32 arch at +28.
 */
static unsigned fatbin_archs(const unsigned char *img, size_t len, unsigned kind,
			     unsigned *arch, unsigned max)
{
	uint32_t magic;
	uint16_t hs;
	uint64_t size, off;
	unsigned n = 0;

	cr_assert_geq(len, 16);
	memcpy(&magic, img, 4);
	memcpy(&hs, img + 6, 2);
	memcpy(&size, img + 8, 8);
	cr_assert_eq(magic, 0xba55ed50);
	cr_assert_leq(hs + size, len);
	for (off = hs; off + 32 <= hs + size;) {
		uint16_t k;
		uint32_t ehs, a;
		uint64_t payload;

		memcpy(&k, img + off, 2);
		memcpy(&ehs, img + off + 4, 4);
		memcpy(&payload, img + off + 8, 8);
		memcpy(&a, img + off + 28, 4);
		if (k == kind && n < max)
			arch[n++] = a;
		cr_assert_gt(ehs, 0);
		off += ehs + payload;
	}
	return n;
}

static bool has(const unsigned *v, unsigned n, unsigned a)
{
	for (unsigned i = 0; i < n; i++)
		if (v[i] == a)
			return true;
	return false;
}

static unsigned count0(const unsigned *v)
{
	unsigned n = 0;

	while (v[n])
		n++;
	return n;
}

static const char *find_cuobjdump(void)
{
	static const char *const tools[] = { "cuobjdump", "/usr/local/cuda/bin/cuobjdump" };
	char cmd[128];

	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null", tools[i]);
		if (!system(cmd))
			return tools[i];
	}
	return NULL;
}

/* cuobjdump's own listing of the image, where the toolkit has it. */
static void cuobjdump_agrees(const void *img, size_t len, const unsigned *sass,
			     unsigned ptx)
{
	const char *tool = find_cuobjdump();
	char path[] = "/tmp/gdrlab-fatbin-XXXXXX", cmd[256], line[256];
	unsigned elf = 0, nptx = 0;
	FILE *f, *p;
	int fd;

	if (!tool) {
		printf("test_real: cuobjdump not found: the image's archs were checked by its headers only\n");
		return;
	}
	fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	f = fdopen(fd, "w");
	cr_assert_not_null(f);
	cr_assert_eq(fwrite(img, 1, len, f), len);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "%s --list-elf --list-ptx %s", tool, path);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	/* "ELF file    1: gdrlab-fatbin-XXXXXX.1.sm_75.cubin", "PTX file ..." */
	while (fgets(line, sizeof(line), p)) {
		const char *sm = strstr(line, ".sm_");
		unsigned a = sm ? (unsigned)atoi(sm + 4) : 0;

		if (!strncmp(line, "ELF file", 8)) {
			elf++;
			cr_expect(has(sass, count0(sass), a), "cuobjdump lists sm_%u, not configured", a);
		} else if (!strncmp(line, "PTX file", 8)) {
			nptx++;
			cr_expect_eq(a, ptx, "cuobjdump lists PTX for %u", a);
		}
	}
	cr_expect_eq(pclose(p), 0, "%s", cmd);
	unlink(path);
	cr_expect_eq(elf, count0(sass), "cuobjdump: %u ELF images", elf);
	cr_expect_eq(nptx, 1);
}

/*
 * The image holds what real/CMakeLists.txt asked nvcc for, no more, no
 * less: SASS sm_75 sm_80 sm_90 (and sm_70 with a toolkit that still
 * builds it: CUDA 12) and compute_90 PTX for newer GPUs.
 */
Test(real, kernels_image_has_the_configured_archs)
{
	size_t len;
	const unsigned char *img = cuda_reduce_image(&len);
	unsigned ptx, elf[16], ptxs[4], n, k, i;
	const unsigned *sass = cuda_reduce_sass(&ptx);
	unsigned nsass = count0(sass);
	char archs[96];

	if (!cuda_reduce_built()) {
		printf("test_real: kernels_image_has_the_configured_archs skipped: built without nvcc (GDRLAB_CUDA=OFF)\n");
		cr_skip_test("built without nvcc");
	}
	cr_expect(has(sass, nsass, 75) && has(sass, nsass, 80) && has(sass, nsass, 90),
		  "configured: %s", cuda_reduce_archs(archs, sizeof(archs)));
	cr_expect_eq(ptx, 90);
	n = fatbin_archs(img, len, 2, elf, 16);
	k = fatbin_archs(img, len, 1, ptxs, 4);
	for (i = 0; i < nsass; i++)
		cr_expect(has(elf, n, sass[i]), "no sm_%u ELF in the image", sass[i]);
	cr_expect_eq(n, nsass, "%u ELF images for %u configured archs", n, nsass);
	cr_assert_eq(k, 1);
	cr_expect_eq(ptxs[0], 90);
	cr_expect_str_eq(cuda_reduce_archs(archs, sizeof(archs)),
			 has(sass, nsass, 70) ? "sm_70 sm_75 sm_80 sm_90 compute_90" :
						"sm_75 sm_80 sm_90 compute_90");
	cuobjdump_agrees(img, len, sass, ptx);
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

/*
 * A fake driver, so that mem_cuda's two copy streams and its flush rule
 * are tested without a GPU: a copy happens when it is enqueued (host
 * memory stands in for the GPU's), the one event the test holds is "not
 * ready", and every cuStreamWaitEvent is written down.
 */
static struct {
	unsigned nwaits;
	CUstream wait_stream[8];
	CUevent wait_event[8];
	CUevent held;  /* cuEventQuery: CUDA_ERROR_NOT_READY */
	int order;     /* GPU_DIRECT_RDMA_WRITES_ORDERING; -1: no attribute */
	int opts;      /* GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS */
	unsigned flushes;
} fake;

static CUresult f_ctx(CUcontext c)
{
	return CUDA_SUCCESS;
}

static CUresult f_record(CUevent e, CUstream s)
{
	return CUDA_SUCCESS;
}

static CUresult f_htod(CUdeviceptr dst, const void *src, size_t n, CUstream s)
{
	memcpy((void *)(uintptr_t)dst, src, n);
	return CUDA_SUCCESS;
}

static CUresult f_dtoh(void *dst, CUdeviceptr src, size_t n, CUstream s)
{
	memcpy(dst, (const void *)(uintptr_t)src, n);
	return CUDA_SUCCESS;
}

static CUresult f_dtod(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s)
{
	memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
	return CUDA_SUCCESS;
}

static CUresult f_wait(CUstream s, CUevent e, unsigned flags)
{
	if (fake.nwaits < 8) {
		fake.wait_stream[fake.nwaits] = s;
		fake.wait_event[fake.nwaits] = e;
	}
	fake.nwaits++;
	return CUDA_SUCCESS;
}

static CUresult f_query(CUevent e)
{
	return e == fake.held ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS;
}

static CUresult f_sync(CUevent e)
{
	return CUDA_SUCCESS;
}

static CUresult f_elapsed(float *ms, CUevent a, CUevent b)
{
	*ms = 0.5f;
	return CUDA_SUCCESS;
}

static CUresult f_attr(int *v, CUdevice_attribute a, CUdevice dev)
{
	if (a == CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING) {
		if (fake.order < 0)
			return CUDA_ERROR_INVALID_VALUE;
		*v = fake.order;
	} else if (a == CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS) {
		*v = fake.opts;
	}
	return CUDA_SUCCESS;
}

static CUresult f_flush(CUflushGPUDirectRDMAWritesTarget t,
			CUflushGPUDirectRDMAWritesScope s)
{
	fake.flushes++;
	return CUDA_SUCCESS;
}

static struct cu_api fake_cu = {
	.CtxSetCurrent = f_ctx, .EventRecord = f_record,
	.MemcpyHtoDAsync = f_htod, .MemcpyDtoHAsync = f_dtoh,
	.MemcpyDtoDAsync = f_dtod, .StreamWaitEvent = f_wait,
	.EventQuery = f_query, .EventSynchronize = f_sync,
	.EventElapsedTime = f_elapsed, .DeviceGetAttribute = f_attr,
	.FlushGPUDirectRDMAWrites = f_flush,
};

#define FAKE_HANDLE(type, v) ((type)(uintptr_t)(v))

static void fake_mem(struct mem_cuda *m, int cc_major)
{
	memset(m, 0, sizeof(*m));
	memset(&fake, 0, sizeof(fake));
	m->cu = &fake_cu;
	m->cc_major = cc_major;
	snprintf(m->name, sizeof(m->name), "fake GPU");
	m->stream = FAKE_HANDLE(CUstream, 0x30);
	m->copy_stream[0] = FAKE_HANDLE(CUstream, 0x10);
	m->copy_stream[1] = FAKE_HANDLE(CUstream, 0x20);
	for (unsigned i = 0; i < MEM_CUDA_COPIES; i++) {
		m->copies[i].start = FAKE_HANDLE(CUevent, 0x1000 + 2 * i);
		m->copies[i].done = FAKE_HANDLE(CUevent, 0x1001 + 2 * i);
	}
}

/*
 * Copies alternate between the two streams; one waits, on the GPU, only
 * for an in-flight copy on the other stream whose GPU range it overlaps
 * (and device work on the main stream likewise); a copy is in flight
 * until its end event says done, and then its ticket is free.
 */
Test(real, staged_copies_take_two_streams_in_turn_and_keep_order)
{
	static unsigned char gpu[3 << 12], h1[4096], h2[4096], back[4096];
	struct mem_cuda *m = malloc(sizeof(*m));
	unsigned a, b, c, d, t[MEM_CUDA_COPIES];

	cr_assert_not_null(m);
	fake_mem(m, 8);
	memset(h1, 1, sizeof(h1));
	memset(h2, 2, sizeof(h2));
	/* A: H2D into the first page; B: into the second; no overlap */
	cr_assert_eq(mem_cuda_copy_in_start(m, gpu, h1, 4096, &a), 0);
	cr_assert_eq(mem_cuda_copy_in_start(m, gpu + 4096, h2, 4096, &b), 0);
	cr_expect_eq(m->copies[a].stream, 0);
	cr_expect_eq(m->copies[b].stream, 1);
	cr_expect_eq(fake.nwaits, 0);
	/* C: D2H of B's page, on stream 0, while B is in flight on stream 1 */
	cr_assert_eq(mem_cuda_copy_out_start(m, back, gpu + 4096, 4096, &c), 0);
	cr_expect_eq(m->copies[c].stream, 0);
	cr_assert_eq(fake.nwaits, 1);
	cr_expect_eq(fake.wait_stream[0], m->copy_stream[0]);
	cr_expect_eq(fake.wait_event[0], m->copies[b].done);
	cr_expect_eq(memcmp(back, h2, 4096), 0);
	/* D: D2H of the third page, on stream 1: nothing to wait for (A's
	 * range is elsewhere, and C on stream 0 only reads B's) */
	cr_assert_eq(mem_cuda_copy_out_start(m, back, gpu + 8192, 4096, &d), 0);
	cr_expect_eq(m->copies[d].stream, 1);
	cr_expect_eq(fake.nwaits, 1);
	/* device work on the main stream: its destination (D's page, which
	 * D still reads) waits for D, its source (A's page) for A */
	cr_assert_eq(mem_cuda_ops.copy_dev(m, gpu + 8192, gpu, 4096), 0, "%s", mem_cuda_error(m));
	cr_assert_eq(fake.nwaits, 3);
	cr_expect_eq(fake.wait_stream[1], m->stream);
	cr_expect_eq(fake.wait_event[1], m->copies[d].done);
	cr_expect_eq(fake.wait_stream[2], m->stream);
	cr_expect_eq(fake.wait_event[2], m->copies[a].done);
	/* B runs until its end event is done; then its ticket is free */
	fake.held = m->copies[b].done;
	cr_expect_eq(mem_cuda_copy_test(m, b), -EAGAIN);
	cr_expect(m->copies[b].busy);
	fake.held = NULL;
	cr_expect_eq(mem_cuda_copy_test(m, b), 0);
	cr_expect_not(m->copies[b].busy);
	cr_expect_eq(m->last_copy_us, 500.0);
	cr_expect_eq(mem_cuda_copy_test(m, b), -EINVAL);
	cr_expect_eq(mem_cuda_copy_wait(m, a), 0);
	cr_expect_eq(mem_cuda_copy_wait(m, c), 0);
	cr_expect_eq(mem_cuda_copy_wait(m, d), 0);
	/* MEM_CUDA_COPIES in flight at most */
	for (unsigned i = 0; i < MEM_CUDA_COPIES; i++)
		cr_assert_eq(mem_cuda_copy_in_start(m, gpu, h1, 16, &t[i]), 0);
	cr_expect_eq(mem_cuda_copy_in_start(m, gpu, h1, 16, &a), -EBUSY);
	cr_expect(strstr(mem_cuda_error(m), "staged copies in flight"), "%s", mem_cuda_error(m));
	for (unsigned i = 0; i < MEM_CUDA_COPIES; i++)
		cr_expect_eq(mem_cuda_copy_wait(m, t[i]), 0);
	/* the vp ops' copies are a copy started and waited for */
	cr_expect_eq(mem_cuda_ops.copy_out(m, back, gpu, 4096), 0);
	for (unsigned i = 0; i < MEM_CUDA_COPIES; i++)
		cr_expect_not(m->copies[i].busy, "copy %u still in flight", i);
	free(m);
}

/* @m's flush decided with NCCL variable @var set to @value, then unset. */
static enum mem_cuda_flush flush_with(struct mem_cuda *m, const char *var, const char *value)
{
	setenv(var, value, 1);
	mem_cuda_flush_init(m);
	unsetenv(var);
	return m->flush;
}

/*
 * How NIC writes are ordered, per what the driver says: nothing where
 * the GPU orders them; cuFlushGPUDirectRDMAWrites where it is offered for
 * the host; else NCCL's RDMA READ, which without a QP attached is counted
 * (and said once on stderr) rather than silently skipped. Without the
 * ordering attribute NCCL's rule decides: no flush from compute
 * capability 9.0 up.
 */
Test(real, receive_flush_follows_the_driver_then_nccl)
{
	struct mem_cuda *m = malloc(sizeof(*m));

	cr_assert_not_null(m);
	fake_mem(m, 8);
	fake.order = CU_GPU_DIRECT_RDMA_WRITES_ORDERING_OWNER;
	mem_cuda_flush_init(m);
	cr_expect_eq(m->flush, MEM_CUDA_FLUSH_NONE);
	cr_expect_eq(mem_cuda_recv_flush(m), 0);
	cr_expect_eq(fake.flushes, 0);
	cr_expect(!strncmp(mem_cuda_flush_name(m), "none: the GPU orders", 20), "%s",
		  mem_cuda_flush_name(m));

	fake.order = 0;
	fake.opts = CU_FLUSH_GPU_DIRECT_RDMA_WRITES_OPTION_HOST;
	mem_cuda_flush_init(m);
	cr_expect_eq(m->flush, MEM_CUDA_FLUSH_CUDA);
	cr_expect_eq(mem_cuda_recv_flush_at(m, NULL, 0), 0);
	cr_expect_eq(fake.flushes, 1);
	/* attaching a QP is for the READ flush only: nothing to build here */
	cr_expect_eq(mem_cuda_flush_attach(m, NULL, NULL, 1, 0, 0, 0), 0);
	cr_expect_null(m->flushers[0]);

	fake.opts = 0;
	mem_cuda_flush_init(m);
	cr_expect_eq(m->flush, MEM_CUDA_FLUSH_READ);
	cr_expect(strstr(mem_cuda_flush_name(m), "RDMA READ"), "%s", mem_cuda_flush_name(m));
	cr_expect_eq(mem_cuda_recv_flush(m), 0);
	cr_expect_eq(mem_cuda_recv_flush_at(m, m, 64), 0);
	cr_expect_eq(m->unflushed, 2);
	cr_expect_eq(m->flushes, 0);
	cr_expect_eq(fake.flushes, 1);

	fake.opts = CU_FLUSH_GPU_DIRECT_RDMA_WRITES_OPTION_HOST;
	fake_cu.FlushGPUDirectRDMAWrites = NULL; /* a driver older than 11.3 */
	mem_cuda_flush_init(m);
	cr_expect_eq(m->flush, MEM_CUDA_FLUSH_READ);
	fake_cu.FlushGPUDirectRDMAWrites = f_flush;

	fake.order = -1; /* no ordering attribute: NCCL's compute-capability rule */
	mem_cuda_flush_init(m);
	cr_expect_eq(m->flush, MEM_CUDA_FLUSH_CUDA);
	m->cc_major = 9;
	mem_cuda_flush_init(m);
	cr_expect_eq(m->flush, MEM_CUDA_FLUSH_NONE);
	cr_expect(strstr(mem_cuda_flush_name(m), "NCCL's rule"), "%s", mem_cuda_flush_name(m));

	/* NCCL's switch wins over a GPU that would need the READ */
	m->cc_major = 8;
	fake.order = 0;
	fake.opts = 0;
	cr_expect_eq(flush_with(m, "NCCL_GDR_FLUSH_DISABLE", "1"), MEM_CUDA_FLUSH_NONE);
	cr_expect(strstr(mem_cuda_flush_name(m), "NCCL_GDR_FLUSH_DISABLE=1"), "%s",
		  mem_cuda_flush_name(m));
	cr_expect_eq(flush_with(m, "NCCL_GDR_FLUSH_DISABLE", "0"), MEM_CUDA_FLUSH_READ);

	/* NCCL_NET_FORCE_FLUSH: the READ even where the GPU orders NIC
	 * writes itself (paths.cc ncclTopoNeedFlush: "always" before any
	 * GPU test), and NCCL_GDR_FLUSH_DISABLE still wins (net_ib then
	 * builds no flush QP) */
	m->cc_major = 9;
	fake.order = CU_GPU_DIRECT_RDMA_WRITES_ORDERING_OWNER;
	setenv("NCCL_NET_FORCE_FLUSH", "1", 1);
	mem_cuda_flush_init(m);
	cr_expect_eq(m->flush, MEM_CUDA_FLUSH_READ);
	cr_expect(strstr(mem_cuda_flush_name(m), "NCCL_NET_FORCE_FLUSH=1"), "%s",
		  mem_cuda_flush_name(m));
	cr_expect_eq(flush_with(m, "NCCL_GDR_FLUSH_DISABLE", "1"), MEM_CUDA_FLUSH_NONE);
	unsetenv("NCCL_NET_FORCE_FLUSH");
	cr_expect_eq(flush_with(m, "NCCL_NET_FORCE_FLUSH", "0"), MEM_CUDA_FLUSH_NONE);
	mem_cuda_flush_close(m);
	free(m);
}

/*
 * The READ flush must address the GPU range by the iova it was registered
 * with: a dma-buf MR's ibv_mr.addr is the dma-buf offset (rdma-core
 * libibverbs/verbs.c, ibv_reg_dmabuf_mr), so gpu_reg_mr notes the range
 * per PD and flush_attach looks it up; an MR it did not register (NULL)
 * keeps the MR's own addr. Fake PD and MR pointers: only compared.
 */
Test(real, flush_target_range_is_the_registered_iova)
{
	static char arena[1 << 16];
	struct mem_cuda *m = calloc(1, sizeof(*m));
	const struct ibv_pd *pd1 = FAKE_HANDLE(const struct ibv_pd *, 0x100),
			    *pd2 = FAKE_HANDLE(const struct ibv_pd *, 0x200);
	const struct ibv_mr *mr1 = FAKE_HANDLE(const struct ibv_mr *, 0x1100),
			    *mr2 = FAKE_HANDLE(const struct ibv_mr *, 0x1200);
	size_t len = 1;

	cr_assert_not_null(m);
	cr_expect_null(mem_cuda_reg_range(m, pd1, mr1, &len));
	cr_expect_eq(len, 0);
	mem_cuda_reg_note(m, pd1, mr1, arena + 4096, 8192);
	cr_expect_eq(mem_cuda_reg_range(m, pd1, mr1, &len), arena + 4096);
	cr_expect_eq(len, 8192);
	cr_expect_null(mem_cuda_reg_range(m, pd1, mr2, &len), "another MR: its own addr");
	cr_expect_null(mem_cuda_reg_range(m, pd2, mr1, &len), "another PD");
	/* a new registration on the same PD replaces the old one */
	mem_cuda_reg_note(m, pd1, mr2, arena, sizeof(arena));
	cr_expect_null(mem_cuda_reg_range(m, pd1, mr1, &len));
	cr_expect_eq(mem_cuda_reg_range(m, pd1, mr2, &len), arena);
	cr_expect_eq(len, sizeof(arena));
	/* more PDs than slots: the oldest goes, the newest stay */
	for (uintptr_t i = 0; i < MEM_CUDA_FLUSH_PDS; i++)
		mem_cuda_reg_note(m, FAKE_HANDLE(const struct ibv_pd *, 0x300 + i), mr1,
				  arena, 64);
	cr_expect_null(mem_cuda_reg_range(m, pd1, mr2, &len));
	cr_expect_eq(mem_cuda_reg_range(m, FAKE_HANDLE(const struct ibv_pd *, 0x300), mr1,
					&len), arena);
	free(m);
}

/*
 * A GPU whose driver says it has no GPUDirect RDMA is refused with that
 * reason before any verbs call (NCCL's ncclGpuGdrSupport asks the same
 * attribute first), not with ibv_reg_mr's bare EFAULT.
 */
static int gdr_attr;

static CUresult f_attr_gdr(int *v, CUdevice_attribute a, CUdevice dev)
{
	if (a != CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED)
		return f_attr(v, a, dev);
	if (gdr_attr < 0)
		return CUDA_ERROR_INVALID_VALUE;
	*v = gdr_attr;
	return CUDA_SUCCESS;
}

Test(real, registration_refused_on_a_gpu_without_gpudirect_rdma)
{
	struct mem_cuda *m = malloc(sizeof(*m));
	struct ibv_mr *mr = FAKE_HANDLE(struct ibv_mr *, 1);
	const char *how = "x";

	if (!mem_cuda_ops.reg_mr)
		cr_skip_test("built without libibverbs: no GPU registration");
	cr_assert_not_null(m);
	fake_mem(m, 8);
	fake_cu.DeviceGetAttribute = f_attr_gdr;
	gdr_attr = 0;
	cr_expect_eq(mem_cuda_ops.reg_mr(m, NULL, m, 4096, 0, &mr, &how), -EOPNOTSUPP);
	cr_expect_null(mr);
	cr_expect_null(how);
	cr_expect(strstr(mem_cuda_error(m), "fake GPU has no GPUDirect RDMA"), "%s",
		  mem_cuda_error(m));
	fake_cu.DeviceGetAttribute = f_attr;
	free(m);
}

/*
 * A GPU older than everything in the image is told which arch the image
 * starts at (sm_75 from a CUDA 13 toolkit, sm_70 from CUDA 12), before
 * cuModuleLoadData would answer only NO_BINARY_FOR_GPU: a fake Pascal.
 */
static CUresult f_attr_pascal(int *v, CUdevice_attribute a, CUdevice dev)
{
	*v = a == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR ? 6 : 1;
	return CUDA_SUCCESS;
}

Test(real, kernels_refused_on_an_older_gpu_name_the_oldest_arch)
{
	struct cu_api cu = { .DeviceGetAttribute = f_attr_pascal };
	struct cuda_reduce r;
	struct diag d = { "" };
	unsigned ptx;
	const unsigned *sass = cuda_reduce_sass(&ptx);
	char want[64];

	if (!cuda_reduce_built())
		cr_skip_test("built without nvcc: no kernel image");
	snprintf(want, sizeof(want), "need sm_%u or newer", sass[0]);
	cr_expect_eq(cuda_reduce_open(&r, &cu, 0, &d), -ENOEXEC);
	cr_expect(strstr(d.msg, "this GPU is sm_61") && strstr(d.msg, want), "%s", d.msg);
}

/* On a GPU: copies on both streams at once, each D2H behind the H2D of
 * its range on the other stream, every byte checked. */
Test(real, staged_copies_overlap_on_a_gpu)
{
	struct mem_cuda *m = gpu_or_skip("staged_copies_overlap_on_a_gpu");
	enum { N = 8, LEN = 1 << 20 };
	unsigned char *h, *back;
	unsigned in[N], out[N];
	void *g;

	cr_assert_eq(mem_cuda_host_alloc(m, N * LEN, (void **)&h), 0, "%s", mem_cuda_error(m));
	cr_assert_eq(mem_cuda_host_alloc(m, N * LEN, (void **)&back), 0);
	cr_assert_eq(mem_cuda_ops.alloc(m, N * LEN, &g), 0, "%s", mem_cuda_error(m));
	for (size_t i = 0; i < (size_t)N * LEN; i++)
		h[i] = (unsigned char)(i * 29 + 1);
	for (int k = 0; k < N; k++) {
		cr_assert_eq(mem_cuda_copy_in_start(m, (char *)g + k * LEN, h + k * LEN,
						    LEN, &in[k]), 0, "%s", mem_cuda_error(m));
		cr_assert_eq(mem_cuda_copy_out_start(m, back + k * LEN, (char *)g + k * LEN,
						     LEN, &out[k]), 0, "%s", mem_cuda_error(m));
	}
	for (int k = 0; k < N; k++) {
		cr_assert_eq(mem_cuda_copy_wait(m, out[k]), 0, "%s", mem_cuda_error(m));
		cr_assert_eq(mem_cuda_copy_wait(m, in[k]), 0, "%s", mem_cuda_error(m));
	}
	cr_assert_eq(memcmp(h, back, (size_t)N * LEN), 0);
	mem_cuda_host_free(m, h, N * LEN);
	mem_cuda_host_free(m, back, N * LEN);
	mem_cuda_close(m);
}
