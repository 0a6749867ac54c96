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

/* cu_open resolves these before the table below (init_driver). */
SAME_TYPE(Init, cuInit)
SAME_TYPE(DriverGetVersion, cuDriverGetVersion)
SAME_TYPE(GetErrorName, cuGetErrorName)
SAME_TYPE(GetErrorString, cuGetErrorString)
SAME_TYPE(DeviceGetCount, cuDeviceGetCount)

/*
 * Every row of CU_DRIVER_SYMBOLS: the prototype, and the symbol name.
 * The row's symbol and fallback become enumerators as written; the name
 * cuda.h declares (@api) goes through XCAT, so it is macro-expanded to
 * what cuda.h maps it to (cuMemAlloc -> cuMemAlloc_v2). Unless that is
 * one of the two, the compiler stops on an undeclared identifier that
 * names the symbol cuda.h wants (gdrlab_sym_MemAlloc_cuMemAlloc_v3).
 */
#define CAT(a, b) a##b
#define XCAT(a, b) CAT(a, b)
#define ROW(field, api, sym, old, opt)                                         \
	SAME_TYPE(field, api)                                                  \
	enum { gdrlab_sym_##field##_##sym = 1, gdrlab_sym_##field##_##old = 1 }; \
	_Static_assert(XCAT(gdrlab_sym_##field##_, api) == 1,                  \
		       #field ": cuda.h maps " #api " to another symbol");
CU_DRIVER_SYMBOLS(ROW)
