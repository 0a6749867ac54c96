/* SPDX-License-Identifier: MIT */
/* PyTorch's element type names (torch_dtype.h). */
#include "torch_dtype.h"

#include <errno.h>
#include <string.h>

static const struct dtype_name scalar_types[] = {
	{ "Float", TRACE_DTYPE_FP32 },	       { "Half", TRACE_DTYPE_FP16 },
	{ "BFloat16", TRACE_DTYPE_BF16 },      { "Double", TRACE_DTYPE_FP64 },
	{ "Byte", TRACE_DTYPE_INT8 },	       { "Char", TRACE_DTYPE_INT8 },
	{ "Bool", TRACE_DTYPE_INT8 },	       { "Int", TRACE_DTYPE_FP32 },
	{ "Long", TRACE_DTYPE_FP64 },	       { "Short", TRACE_DTYPE_FP16 },
	{ "Float8_e4m3fn", TRACE_DTYPE_INT8 }, { "Float8_e5m2", TRACE_DTYPE_INT8 },
};

static const struct dtype_name cpp_types[] = {
	{ "float", TRACE_DTYPE_FP32 },	       { "float32", TRACE_DTYPE_FP32 },
	{ "double", TRACE_DTYPE_FP64 },	       { "float64", TRACE_DTYPE_FP64 },
	{ "half", TRACE_DTYPE_FP16 },	       { "float16", TRACE_DTYPE_FP16 },
	{ "c10::Half", TRACE_DTYPE_FP16 },     { "bfloat16", TRACE_DTYPE_BF16 },
	{ "c10::BFloat16", TRACE_DTYPE_BF16 }, { "int8", TRACE_DTYPE_INT8 },
	{ "uint8", TRACE_DTYPE_INT8 },	       { "signed char", TRACE_DTYPE_INT8 },
	{ "unsigned char", TRACE_DTYPE_INT8 }, { "bool", TRACE_DTYPE_INT8 },
	{ "c10::Float8_e4m3fn", TRACE_DTYPE_INT8 }, { "c10::Float8_e5m2", TRACE_DTYPE_INT8 },
	{ "short", TRACE_DTYPE_FP16 },	       { "short int", TRACE_DTYPE_FP16 },
	{ "int16", TRACE_DTYPE_FP16 },	       { "int", TRACE_DTYPE_FP32 },
	{ "int32", TRACE_DTYPE_FP32 },	       { "long", TRACE_DTYPE_FP64 },
	{ "long int", TRACE_DTYPE_FP64 },      { "int64", TRACE_DTYPE_FP64 },
};

int dtype_name_find(const struct dtype_name *tab, size_t n, const char *name, size_t len,
		    enum trace_dtype *t)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(tab[i].name) == len && !strncmp(tab[i].name, name, len)) {
			*t = tab[i].dtype;
			return 0;
		}
	return -EINVAL;
}

int torch_scalar_type(const char *name, enum trace_dtype *t)
{
	return dtype_name_find(scalar_types, sizeof(scalar_types) / sizeof(scalar_types[0]), name,
		    strlen(name), t);
}

int torch_cpp_type(const char *name, size_t len, enum trace_dtype *t)
{
	return dtype_name_find(cpp_types, sizeof(cpp_types) / sizeof(cpp_types[0]), name, len, t);
}
