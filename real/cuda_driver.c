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
	size_t off;           /* of the function pointer in struct cu_api */
	const char *name;     /* the symbol cuda.h maps the API's name to */
	const char *fallback; /* an older one, or "none" */
	bool optional;
};

#define SYM(field, api, sym, old, opt)                                         \
	{ offsetof(struct cu_api, field), #sym, #old, opt },

/* Resolved after cuInit succeeded (the list is in cuda_driver.h). */
static const struct sym syms[] = { CU_DRIVER_SYMBOLS(SYM) };

/* @name as @lib exports it, or NULL. */
static void *find(void *lib, const char *name)
{
	return dlsym(lib, name);
}

/* Function pointers come back from dlsym as void *: POSIX guarantees the
 * round trip, and memcpy keeps -Wpedantic quiet about the cast. */
static int resolve(struct cu_api *cu, const struct sym *s, struct diag *d)
{
	void *f = find(cu->lib, s->name);

	if (!f && strcmp(s->fallback, "none"))
		f = find(cu->lib, s->fallback);
	if (!f && !s->optional)
		return diag_set(d, -ENOSYS, "libcuda.so.1 lacks %s (driver too old?)",
				s->name);
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
	case CUDA_ERROR_NOT_READY:
		return -EAGAIN;
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
	/* Never unloaded once initialised: the driver keeps threads and
	 * exit handlers of its own (NCCL never dlcloses it either); a
	 * later cu_open finds the same copy, already initialised. */
	cu->lib = dlopen(name, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
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

int cu_check_symbols(const char *path, struct diag *d)
{
	struct cu_api cu = { .lib = dlopen(path, RTLD_NOW | RTLD_LOCAL) };
	int err = 0;

	if (!cu.lib)
		return diag_set(d, -ENOENT, "%s: %s", path, dlerror());
	for (size_t i = 0; !err && i < sizeof(syms) / sizeof(syms[0]); i++)
		err = resolve(&cu, &syms[i], d);
	dlclose(cu.lib);
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
