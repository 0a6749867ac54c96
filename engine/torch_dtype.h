/* SPDX-License-Identifier: MIT */
/*
 * torch_dtype: PyTorch's names of element types, as the trace type of
 * their size (the models time bytes, not values): int32 as fp32, int64 as
 * fp64, bool and the fp8 types as int8. Two spellings exist:
 *
 * - c10::ScalarType's names ("Float", "BFloat16"; c10/core/ScalarType.h),
 *   which record_param_comms' "dtype" argument carries;
 * - C++ type names as c10::TypeMeta prints them ("float", "c10::Half",
 *   "long int"), which the profiler's "Input type" and the execution
 *   trace's "Tensor(...)" carry, with the names of Chakra's converter
 *   (src/converter/pytorch_node.py, get_data_type_size: "float32",
 *   "bfloat16", ...).
 */
#ifndef GDRLAB_TORCH_DTYPE_H
#define GDRLAB_TORCH_DTYPE_H

#include <stddef.h>

#include "trace.h"

/* A table of type names, and its lookup of the @len bytes at @name (not
 * 0-terminated): 0, or -EINVAL. The importers' tables share it. */
struct dtype_name {
	const char *name;
	enum trace_dtype dtype;
};
int dtype_name_find(const struct dtype_name *tab, size_t n, const char *name, size_t len,
		    enum trace_dtype *t);

/* 0, or -EINVAL for a name not known. */
int torch_scalar_type(const char *name, enum trace_dtype *t);
/* The @len bytes at @name (not 0-terminated). */
int torch_cpp_type(const char *name, size_t len, enum trace_dtype *t);

#endif
