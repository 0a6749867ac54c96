/* SPDX-License-Identifier: MIT */
/*
 * cuda_driver: the CUDA driver API, loaded at run time.
 *
 * libcuda.so.1 is dlopen'ed, never linked (as libfabric's src/hmem_cuda.c,
 * NCCL and perftest do), so gdrlab starts on machines without a driver and
 * builds without the toolkit: the few types and constants used are declared
 * here with cuda.h's values (cuda_abi_check.c compares them with cuda.h
 * when the toolkit is there). Versioned entry points are resolved by their
 * real symbol names (cuMemAlloc_v2, ...), which is what cuda.h's macros
 * expand to.
 *
 * A CUresult becomes a negative errno once, here, with cuGetErrorName and
 * cuGetErrorString in the message. "No GPU here" (no libcuda.so.1, cuInit
 * failing, zero devices) is -ENODEV with a message that starts with
 * "no NVIDIA GPU: ".
 */
#ifndef GDRLAB_CUDA_DRIVER_H
#define GDRLAB_CUDA_DRIVER_H

#include <stddef.h>

#include "diag.h"

/*
 * The driver API's constants with cuda.h's names and values: one list, so
 * that cuda_abi_check.c can compare each with cuda.h.
 */
#define CU_DRIVER_CONSTANTS(X)                                                 \
	X(CUDA_SUCCESS, 0)                                                     \
	X(CUDA_ERROR_INVALID_VALUE, 1)                                         \
	X(CUDA_ERROR_OUT_OF_MEMORY, 2)                                         \
	X(CUDA_ERROR_NOT_INITIALIZED, 3)                                       \
	X(CUDA_ERROR_STUB_LIBRARY, 34)                                         \
	X(CUDA_ERROR_NO_DEVICE, 100)                                           \
	X(CUDA_ERROR_INVALID_DEVICE, 101)                                      \
	X(CUDA_ERROR_NO_BINARY_FOR_GPU, 209)                                   \
	X(CUDA_ERROR_NOT_FOUND, 500)                                           \
	X(CUDA_ERROR_NOT_READY, 600)                                           \
	X(CUDA_ERROR_NOT_SUPPORTED, 801)                                       \
	X(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 16)                        \
	X(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 75)                    \
	X(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 76)                    \
	X(CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED, 116)                  \
	X(CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS, 117)       \
	X(CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING, 118)            \
	X(CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, 124)                          \
	X(CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, 6)                                 \
	X(CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 1)                              \
	X(CU_STREAM_NON_BLOCKING, 1)                                           \
	X(CU_EVENT_DEFAULT, 0)                                                 \
	X(CU_MEMHOSTALLOC_PORTABLE, 1)                                         \
	X(CU_FLUSH_GPU_DIRECT_RDMA_WRITES_OPTION_HOST, 1)                      \
	X(CU_GPU_DIRECT_RDMA_WRITES_ORDERING_OWNER, 100)                       \
	X(CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_CTX, 0)               \
	X(CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_OWNER, 100)

/* cuda.h already declares all this where it is included first (only
 * cuda_abi_check.c does): then the struct below is checked against its
 * prototypes. */
#ifndef CUDA_VERSION
typedef int CUresult;
typedef int CUdevice;
typedef int CUdevice_attribute;
typedef int CUpointer_attribute;
typedef int CUmemRangeHandleType;
typedef int CUflushGPUDirectRDMAWritesTarget;
typedef int CUflushGPUDirectRDMAWritesScope;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;

#define CU_ENUM_ENTRY(name, value) name = value,
enum { CU_DRIVER_CONSTANTS(CU_ENUM_ENTRY) };
#undef CU_ENUM_ENTRY
#endif

/*
 * The entry points cu_open resolves after cuInit, one list so that
 * cuda_abi_check.c can check each row against cuda.h: X(field of struct
 * cu_api, the name cuda.h declares, the symbol libcuda.so.1 exports for
 * it (what cuda.h's #define maps the name to: cuMemAlloc -> cuMemAlloc_v2),
 * an older symbol to try when that one is missing or `none`, optional).
 * dlsym sees no macros: a missing _v2 here finds an old ABI or nothing.
 */
#define CU_DRIVER_SYMBOLS(X)                                                   \
	X(DeviceGet, cuDeviceGet, cuDeviceGet, none, 0)                        \
	X(DeviceGetName, cuDeviceGetName, cuDeviceGetName, none, 0)            \
	X(DeviceGetAttribute, cuDeviceGetAttribute, cuDeviceGetAttribute,     \
	  none, 0)                                                             \
	X(DevicePrimaryCtxRetain, cuDevicePrimaryCtxRetain,                    \
	  cuDevicePrimaryCtxRetain, none, 0)                                   \
	X(DevicePrimaryCtxRelease, cuDevicePrimaryCtxRelease,                  \
	  cuDevicePrimaryCtxRelease_v2, none, 0)                               \
	X(CtxSetCurrent, cuCtxSetCurrent, cuCtxSetCurrent, none, 0)            \
	X(MemGetInfo, cuMemGetInfo, cuMemGetInfo_v2, none, 0)                  \
	X(MemAlloc, cuMemAlloc, cuMemAlloc_v2, none, 0)                        \
	X(MemFree, cuMemFree, cuMemFree_v2, none, 0)                           \
	X(MemHostAlloc, cuMemHostAlloc, cuMemHostAlloc, none, 0)               \
	X(MemFreeHost, cuMemFreeHost, cuMemFreeHost, none, 0)                  \
	X(MemsetD8, cuMemsetD8, cuMemsetD8_v2, none, 0)                        \
	X(MemcpyHtoDAsync, cuMemcpyHtoDAsync, cuMemcpyHtoDAsync_v2, none, 0)   \
	X(MemcpyDtoHAsync, cuMemcpyDtoHAsync, cuMemcpyDtoHAsync_v2, none, 0)   \
	X(MemcpyDtoDAsync, cuMemcpyDtoDAsync, cuMemcpyDtoDAsync_v2, none, 0)   \
	X(StreamCreate, cuStreamCreate, cuStreamCreate, none, 0)               \
	X(StreamDestroy, cuStreamDestroy, cuStreamDestroy_v2, none, 0)         \
	X(StreamSynchronize, cuStreamSynchronize, cuStreamSynchronize, none, 0) \
	X(EventCreate, cuEventCreate, cuEventCreate, none, 0)                  \
	X(EventDestroy, cuEventDestroy, cuEventDestroy_v2, none, 0)            \
	X(EventRecord, cuEventRecord, cuEventRecord, none, 0)                  \
	X(EventSynchronize, cuEventSynchronize, cuEventSynchronize, none, 0)   \
	X(EventQuery, cuEventQuery, cuEventQuery, none, 0)                     \
	X(StreamWaitEvent, cuStreamWaitEvent, cuStreamWaitEvent, none, 0)      \
	/* _v2 is new in 12.8: older drivers and toolkits have the plain one */ \
	X(EventElapsedTime, cuEventElapsedTime, cuEventElapsedTime_v2,         \
	  cuEventElapsedTime, 0)                                               \
	X(ModuleLoadData, cuModuleLoadData, cuModuleLoadData, none, 0)         \
	X(ModuleUnload, cuModuleUnload, cuModuleUnload, none, 0)               \
	X(ModuleGetFunction, cuModuleGetFunction, cuModuleGetFunction, none, 0) \
	X(LaunchKernel, cuLaunchKernel, cuLaunchKernel, none, 0)               \
	X(PointerSetAttribute, cuPointerSetAttribute, cuPointerSetAttribute,   \
	  none, 0)                                                             \
	/* optional (NULL on drivers that lack them): CUDA >= 11.7, 11.3 */    \
	X(MemGetHandleForAddressRange, cuMemGetHandleForAddressRange,          \
	  cuMemGetHandleForAddressRange, none, 1)                              \
	X(FlushGPUDirectRDMAWrites, cuFlushGPUDirectRDMAWrites,                \
	  cuFlushGPUDirectRDMAWrites, none, 1)

/* The entry points gdrlab uses; every one is resolved by cu_open. */
struct cu_api {
	void *lib; /* dlopen handle; owned */
	int driver_version; /* 13000 for CUDA 13.0 */
	int ndevices;
	CUresult (*Init)(unsigned flags);
	CUresult (*DriverGetVersion)(int *v);
	CUresult (*GetErrorName)(CUresult rc, const char **s);
	CUresult (*GetErrorString)(CUresult rc, const char **s);
	CUresult (*DeviceGetCount)(int *n);
	CUresult (*DeviceGet)(CUdevice *dev, int ordinal);
	CUresult (*DeviceGetName)(char *name, int len, CUdevice dev);
	CUresult (*DeviceGetAttribute)(int *v, CUdevice_attribute attr, CUdevice dev);
	CUresult (*DevicePrimaryCtxRetain)(CUcontext *ctx, CUdevice dev);
	CUresult (*DevicePrimaryCtxRelease)(CUdevice dev);
	CUresult (*CtxSetCurrent)(CUcontext ctx);
	CUresult (*MemGetInfo)(size_t *free, size_t *total);
	CUresult (*MemAlloc)(CUdeviceptr *p, size_t len);
	CUresult (*MemFree)(CUdeviceptr p);
	CUresult (*MemHostAlloc)(void **p, size_t len, unsigned flags);
	CUresult (*MemFreeHost)(void *p);
	CUresult (*MemsetD8)(CUdeviceptr p, unsigned char v, size_t n);
	CUresult (*MemcpyHtoDAsync)(CUdeviceptr dst, const void *src, size_t n,
				    CUstream s);
	CUresult (*MemcpyDtoHAsync)(void *dst, CUdeviceptr src, size_t n,
				    CUstream s);
	CUresult (*MemcpyDtoDAsync)(CUdeviceptr dst, CUdeviceptr src, size_t n,
				    CUstream s);
	CUresult (*StreamCreate)(CUstream *s, unsigned flags);
	CUresult (*StreamDestroy)(CUstream s);
	CUresult (*StreamSynchronize)(CUstream s);
	CUresult (*EventCreate)(CUevent *e, unsigned flags);
	CUresult (*EventDestroy)(CUevent e);
	CUresult (*EventRecord)(CUevent e, CUstream s);
	CUresult (*EventSynchronize)(CUevent e);
	CUresult (*EventQuery)(CUevent e); /* CUDA_ERROR_NOT_READY: not yet */
	CUresult (*StreamWaitEvent)(CUstream s, CUevent e, unsigned flags);
	CUresult (*EventElapsedTime)(float *ms, CUevent start, CUevent end);
	CUresult (*ModuleLoadData)(CUmodule *m, const void *image);
	CUresult (*ModuleUnload)(CUmodule m);
	CUresult (*ModuleGetFunction)(CUfunction *f, CUmodule m,
				      const char *name);
	CUresult (*LaunchKernel)(CUfunction f, unsigned gx, unsigned gy,
				 unsigned gz, unsigned bx, unsigned by,
				 unsigned bz, unsigned shared, CUstream s,
				 void **params, void **extra);
	CUresult (*PointerSetAttribute)(const void *value,
					CUpointer_attribute attr,
					CUdeviceptr p);
	/* Optional (NULL on drivers that lack them): CUDA >= 11.7, 11.3. */
	CUresult (*MemGetHandleForAddressRange)(void *handle, CUdeviceptr p,
						size_t len,
						CUmemRangeHandleType type,
						unsigned long long flags);
	CUresult (*FlushGPUDirectRDMAWrites)(CUflushGPUDirectRDMAWritesTarget target,
					     CUflushGPUDirectRDMAWritesScope scope);
};

/*
 * Load the driver and initialise it. The library is libcuda.so.1, or
 * $GDRLAB_LIBCUDA (tests point it at the toolkit's stub). -ENODEV with
 * "no NVIDIA GPU: ..." when there is no usable GPU.
 */
int cu_open(struct cu_api **out, struct diag *d);
void cu_close(struct cu_api *cu); /* NULL is fine */

/* The negative errno for a CUresult (never 0 for a failure). */
int cu_errno(CUresult rc);

/*
 * 0 for CUDA_SUCCESS; otherwise fill @d with "@what: NAME: string" and
 * return cu_errno(@rc). @cu may be NULL (then only the number is shown).
 */
int cu_check(const struct cu_api *cu, CUresult rc, const char *what,
	     struct diag *d);

/*
 * Whether the library at @path exports every required entry point of
 * CU_DRIVER_SYMBOLS by the name cu_open looks up, calling none of them:
 * 0, or -ENOSYS naming the first missing one. For the tests, on the
 * toolkit's stub libcuda, whose exports are the driver's.
 */
int cu_check_symbols(const char *path, struct diag *d);

#endif
