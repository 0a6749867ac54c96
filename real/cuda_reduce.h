/* SPDX-License-Identifier: MIT */
/*
 * cuda_reduce: the sum kernels of reduce.cu, loaded from the embedded
 * fatbin with cuModuleLoadData and launched with cuLaunchKernel (no
 * cudart). Needs a current context (mem_cuda.c makes one).
 */
#ifndef GDRLAB_CUDA_REDUCE_H
#define GDRLAB_CUDA_REDUCE_H

#include <stdbool.h>
#include <stddef.h>

#include "cuda_driver.h"
#include "trace.h"

struct cuda_reduce {
	const struct cu_api *cu; /* borrowed: outlives this */
	CUmodule mod;
	CUfunction fn[TRACE_DTYPE_COUNT];
	unsigned max_blocks; /* a few per SM: the grid-stride loop does the rest */
};

/* Whether the fatbin is in this build (nvcc found at configure time). */
bool cuda_reduce_built(void);
/* The embedded image (@len 0 when not built), for tests. */
const void *cuda_reduce_image(size_t *len);

/* What the image holds, "sm_75 sm_80 sm_90 compute_90" ("none" when not
 * built), and the toolkit that built it. */
const char *cuda_reduce_archs(char *buf, size_t len);
const char *cuda_reduce_toolkit(void);
/* The image's SASS list (0-ended) and, in *@ptx, its PTX arch; for tests. */
const unsigned *cuda_reduce_sass(unsigned *ptx);

/*
 * Whether a GPU of compute capability @cc (major * 10 + minor) can load an
 * image with SASS for @sass (0-ended) and PTX for @ptx (0: none). SASS for
 * X.y runs on X.z, z >= y; PTX for X.Y is JIT-compiled for any cc >= X.Y
 * (CUDA C++ Programming Guide, "Binary Compatibility", "PTX
 * Compatibility"). Asks nothing of the driver.
 */
bool cuda_reduce_loads_on(const unsigned *sass, unsigned ptx, unsigned cc);

/* Load the module on @dev's current context; -ENOSYS when not built,
 * -ENOEXEC, naming both sides, when @dev can load nothing in the image. */
int cuda_reduce_open(struct cuda_reduce *r, const struct cu_api *cu,
		     CUdevice dev, struct diag *d);
void cuda_reduce_close(struct cuda_reduce *r);

/* Enqueue dst[i] += src[i] for @count elements on @s (not synchronised). */
int cuda_reduce_launch(struct cuda_reduce *r, CUdeviceptr dst,
		       CUdeviceptr src, size_t count, enum trace_dtype t,
		       CUstream s, struct diag *d);

#endif
