/* SPDX-License-Identifier: MIT */
/*
 * cuda_driver: dlopen libcuda.so.1 and translate CUresult (see the header).
 * The order matters for the messages: cuInit and the device count come
 * first, so a machine without a GPU says "no NVIDIA GPU" rather than "the
 * driver lacks cuMemAlloc_v2".
 */
#include "cuda_driver.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define NO_GPU "no NVIDIA GPU: "

struct sym {
	size_t off;        /* of the function pointer in struct cu_api */
	const char *names; /* candidates, newest first, '|' separated */
	bool optional;
};

#define SYM(field, names) { offsetof(struct cu_api, field), names, false }
#define OPT(field, names) { offsetof(struct cu_api, field), names, true }

/* Resolved after cuInit succeeded. The _v2 names are what cuda.h maps the
 * plain names to; cuEventElapsedTime_v2 is new in 12.8, hence the
 * fallback. */
static const struct sym syms[] = {
	SYM(DeviceGet, "cuDeviceGet"),
	SYM(DeviceGetName, "cuDeviceGetName"),
	SYM(DeviceGetAttribute, "cuDeviceGetAttribute"),
	SYM(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"),
	SYM(DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2"),
	SYM(CtxSetCurrent, "cuCtxSetCurrent"),
	SYM(MemGetInfo, "cuMemGetInfo_v2"),
	SYM(MemAlloc, "cuMemAlloc_v2"),
	SYM(MemFree, "cuMemFree_v2"),
	SYM(MemHostAlloc, "cuMemHostAlloc"),
	SYM(MemFreeHost, "cuMemFreeHost"),
	SYM(MemsetD8, "cuMemsetD8_v2"),
	SYM(MemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2"),
	SYM(MemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2"),
	SYM(MemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2"),
	SYM(StreamCreate, "cuStreamCreate"),
	SYM(StreamDestroy, "cuStreamDestroy_v2"),
	SYM(StreamSynchronize, "cuStreamSynchronize"),
	SYM(EventCreate, "cuEventCreate"),
	SYM(EventDestroy, "cuEventDestroy_v2"),
	SYM(EventRecord, "cuEventRecord"),
	SYM(EventSynchronize, "cuEventSynchronize"),
	SYM(EventElapsedTime, "cuEventElapsedTime_v2|cuEventElapsedTime"),
	SYM(ModuleLoadData, "cuModuleLoadData"),
	SYM(ModuleUnload, "cuModuleUnload"),
	SYM(ModuleGetFunction, "cuModuleGetFunction"),
	SYM(LaunchKernel, "cuLaunchKernel"),
	SYM(PointerSetAttribute, "cuPointerSetAttribute"),
	OPT(MemGetHandleForAddressRange, "cuMemGetHandleForAddressRange"),
	OPT(FlushGPUDirectRDMAWrites, "cuFlushGPUDirectRDMAWrites"),
};

/* The first of @names that @lib exports, or NULL. */
static void *find(void *lib, const char *names)
{
	char buf[128];
	const char *p = names;

	while (*p) {
		size_t n = strcspn(p, "|");
		void *f;

		if (n >= sizeof(buf))
			return NULL;
		memcpy(buf, p, n);
		buf[n] = '\0';
		f = dlsym(lib, buf);
		if (f)
			return f;
		p += n + (p[n] == '|');
	}
	return NULL;
}

/* Function pointers come back from dlsym as void *: POSIX guarantees the
 * round trip, and memcpy keeps -Wpedantic quiet about the cast. */
static int resolve(struct cu_api *cu, const struct sym *s, struct diag *d)
{
	void *f = find(cu->lib, s->names);

	if (!f && !s->optional)
		return diag_set(d, -ENOSYS, "libcuda.so.1 lacks %s (driver too old?)",
				s->names);
	memcpy((char *)cu + s->off, &f, sizeof(f));
	return 0;
}

int cu_errno(CUresult rc)
{
	switch (rc) {
	case CUDA_SUCCESS:
		return 0;
	case CUDA_ERROR_INVALID_VALUE:
		return -EINVAL;
	case CUDA_ERROR_OUT_OF_MEMORY:
		return -ENOMEM;
	case CUDA_ERROR_STUB_LIBRARY:
	case CUDA_ERROR_NO_DEVICE:
	case CUDA_ERROR_INVALID_DEVICE:
		return -ENODEV;
	case CUDA_ERROR_NO_BINARY_FOR_GPU:
		return -ENOEXEC;
	case CUDA_ERROR_NOT_FOUND:
		return -ENOENT;
	case CUDA_ERROR_NOT_SUPPORTED:
		return -EOPNOTSUPP;
	default:
		return -EIO;
	}
}

/* For when the driver cannot name its own error: the toolkit's stub
 * libcuda answers every call, cuGetErrorName included, with 34. */
static const char *known_name(CUresult rc)
{
	switch (rc) {
	case CUDA_ERROR_STUB_LIBRARY:
		return "CUDA_ERROR_STUB_LIBRARY: the toolkit's stub libcuda, not a driver";
	case CUDA_ERROR_NO_DEVICE:
		return "CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected";
	default:
		return NULL;
	}
}

int cu_check(const struct cu_api *cu, CUresult rc, const char *what,
	     struct diag *d)
{
	const char *name = NULL, *str = NULL;

	if (rc == CUDA_SUCCESS)
		return 0;
	if (cu && cu->GetErrorName && cu->GetErrorName(rc, &name))
		name = NULL;
	if (cu && cu->GetErrorString && cu->GetErrorString(rc, &str))
		str = NULL;
	if (name && str)
		return diag_set(d, cu_errno(rc), "%s: %s: %s", what, name, str);
	if (known_name(rc))
		return diag_set(d, cu_errno(rc), "%s: %s", what, known_name(rc));
	return diag_set(d, cu_errno(rc), "%s: CUresult %d", what, rc);
}

/* cuInit and the device count: -ENODEV "no NVIDIA GPU: ..." on failure. */
static int init_driver(struct cu_api *cu, struct diag *d)
{
	struct diag ld = { "" };
	CUresult rc;

	cu->Init = (CUresult(*)(unsigned))find(cu->lib, "cuInit");
	cu->DriverGetVersion = (CUresult(*)(int *))find(cu->lib, "cuDriverGetVersion");
	cu->GetErrorName = (CUresult(*)(CUresult, const char **))find(cu->lib, "cuGetErrorName");
	cu->GetErrorString = (CUresult(*)(CUresult, const char **))find(cu->lib, "cuGetErrorString");
	cu->DeviceGetCount = (CUresult(*)(int *))find(cu->lib, "cuDeviceGetCount");
	if (!cu->Init || !cu->DeviceGetCount || !cu->DriverGetVersion)
		return diag_set(d, -ENODEV, NO_GPU "libcuda.so.1 lacks cuInit");
	rc = cu->Init(0);
	if (rc) {
		cu_check(cu, rc, "cuInit", &ld);
		return diag_set(d, -ENODEV, NO_GPU "%s", ld.msg);
	}
	if (cu->DriverGetVersion(&cu->driver_version))
		cu->driver_version = 0;
	rc = cu->DeviceGetCount(&cu->ndevices);
	if (rc) {
		cu_check(cu, rc, "cuDeviceGetCount", &ld);
		return diag_set(d, -ENODEV, NO_GPU "%s", ld.msg);
	}
	if (cu->ndevices <= 0)
		return diag_set(d, -ENODEV, NO_GPU "the driver sees 0 devices");
	return 0;
}

int cu_open(struct cu_api **out, struct diag *d)
{
	const char *env = getenv("GDRLAB_LIBCUDA");
	const char *name = env && *env ? env : "libcuda.so.1";
	struct cu_api *cu;
	int err;

	*out = NULL;
	cu = calloc(1, sizeof(*cu));
	if (!cu)
		return diag_set(d, -ENOMEM, "out of memory");
	cu->lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (!cu->lib) {
		err = diag_set(d, -ENODEV, NO_GPU "%s not found (no NVIDIA driver)", name);
		goto err_free;
	}
	err = init_driver(cu, d);
	for (size_t i = 0; !err && i < sizeof(syms) / sizeof(syms[0]); i++)
		err = resolve(cu, &syms[i], d);
	if (err)
		goto err_close;
	*out = cu;
	return 0;
err_close:
	dlclose(cu->lib);
err_free:
	free(cu);
	return err;
}

void cu_close(struct cu_api *cu)
{
	if (!cu)
		return;
	if (cu->lib)
		dlclose(cu->lib);
	free(cu);
}
