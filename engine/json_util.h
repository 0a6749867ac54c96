/* SPDX-License-Identifier: MIT */
/* What the jansson readers (trace_jsonl.c, nccl_tests_json.c) and writers share. */
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

/*
 * A file's name as a JSON string, for the `*_file` keys of the reports.
 * A Linux file name is any bytes but '/' and NUL, while JSON text is
 * Unicode (RFC 8259 §8.1) and jansson's json_string() returns NULL for
 * bytes that are not UTF-8, which json_object_set_new() then drops
 * without a word (a key missing from the report, exit 0) and json_pack()
 * turns into a failed document. Each byte that does not start a
 * well-formed UTF-8 sequence (Unicode 15.0 §3.9, Table 3-7) is written
 * as U+FFFD, the replacement character: the key is always there, the
 * rest of the name as it was. NULL only when out of memory.
 */
json_t *json_file_name(const char *name);
/* @s with each such byte as U+FFFD, for other Unicode text (a YAML file,
 * YAML 1.2 §5.2): malloc'd, NULL when out of memory. */
char *utf8_dup_valid(const char *s);

#endif
