/* SPDX-License-Identifier: MIT */
/*
 * Built only where the CUDA toolkit is, never linked into anything:
 * cuda_driver.h declares the driver API's types and constants itself (so
 * that the rest builds without cuda.h); here, with cuda.h included first,
 * every constant and every function pointer of struct cu_api is checked
 * against cuda.h at compile time. The plain names expand to the versioned
 * ones (cuMemAlloc -> cuMemAlloc_v2) that cuda_driver.c resolves.
 */
#include <cuda.h>

#include "cuda_driver.h"

#define SAME_VALUE(name, value) _Static_assert(name == value, #name " differs from cuda.h");
CU_DRIVER_CONSTANTS(SAME_VALUE)

#define SAME_TYPE(field, fn)                                                   \
	_Static_assert(__builtin_types_compatible_p(                           \
			       __typeof__(((struct cu_api *)0)->field),        \
			       __typeof__(&fn)),                               \
		       #field " does not match cuda.h's " #fn);

SAME_TYPE(Init, cuInit)
SAME_TYPE(DriverGetVersion, cuDriverGetVersion)
SAME_TYPE(GetErrorName, cuGetErrorName)
SAME_TYPE(GetErrorString, cuGetErrorString)
SAME_TYPE(DeviceGetCount, cuDeviceGetCount)
SAME_TYPE(DeviceGet, cuDeviceGet)
SAME_TYPE(DeviceGetName, cuDeviceGetName)
SAME_TYPE(DeviceGetAttribute, cuDeviceGetAttribute)
SAME_TYPE(DevicePrimaryCtxRetain, cuDevicePrimaryCtxRetain)
SAME_TYPE(DevicePrimaryCtxRelease, cuDevicePrimaryCtxRelease)
SAME_TYPE(CtxSetCurrent, cuCtxSetCurrent)
SAME_TYPE(MemGetInfo, cuMemGetInfo)
SAME_TYPE(MemAlloc, cuMemAlloc)
SAME_TYPE(MemFree, cuMemFree)
SAME_TYPE(MemHostAlloc, cuMemHostAlloc)
SAME_TYPE(MemFreeHost, cuMemFreeHost)
SAME_TYPE(MemsetD8, cuMemsetD8)
SAME_TYPE(MemcpyHtoDAsync, cuMemcpyHtoDAsync)
SAME_TYPE(MemcpyDtoHAsync, cuMemcpyDtoHAsync)
SAME_TYPE(MemcpyDtoDAsync, cuMemcpyDtoDAsync)
SAME_TYPE(StreamCreate, cuStreamCreate)
SAME_TYPE(StreamDestroy, cuStreamDestroy)
SAME_TYPE(StreamSynchronize, cuStreamSynchronize)
SAME_TYPE(EventCreate, cuEventCreate)
SAME_TYPE(EventDestroy, cuEventDestroy)
SAME_TYPE(EventRecord, cuEventRecord)
SAME_TYPE(EventSynchronize, cuEventSynchronize)
SAME_TYPE(EventElapsedTime, cuEventElapsedTime)
SAME_TYPE(ModuleLoadData, cuModuleLoadData)
SAME_TYPE(ModuleUnload, cuModuleUnload)
SAME_TYPE(ModuleGetFunction, cuModuleGetFunction)
SAME_TYPE(LaunchKernel, cuLaunchKernel)
SAME_TYPE(PointerSetAttribute, cuPointerSetAttribute)
SAME_TYPE(MemGetHandleForAddressRange, cuMemGetHandleForAddressRange)
SAME_TYPE(FlushGPUDirectRDMAWrites, cuFlushGPUDirectRDMAWrites)
