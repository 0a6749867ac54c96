/* SPDX-License-Identifier: MIT */
/* What the jansson readers (trace_jsonl.c, nccl_tests_json.c) share. */
#ifndef GDRLAB_JSON_UTIL_H
#define GDRLAB_JSON_UTIL_H

#include <jansson.h>

/* "an object", "a string", ...: what a value is, for "expected X, got Y". */
static inline const char *json_kind(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
		return "an integer";
	case JSON_REAL:
		return "a real number";
	case JSON_TRUE:
		return "true";
	case JSON_FALSE:
		return "false";
	default:
		return "null";
	}
}

#endif
