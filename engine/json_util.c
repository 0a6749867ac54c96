/* SPDX-License-Identifier: MIT */
/* A file's name as a JSON string (json_util.h). */
#include "json_util.h"

#include <stdlib.h>
#include <string.h>

/*
 * The length of the well-formed UTF-8 sequence at @s, or 0 when @s does
 * not start one: Unicode 15.0 §3.9, Table 3-7 (no overlong forms, no
 * surrogates, nothing past U+10FFFF).
 */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

json_t *json_file_name(const char *name)
{
	const unsigned char *s = (const unsigned char *)name;
	size_t len = strlen(name), j = 0;
	char *out;
	json_t *v;

	v = json_string(name);
	if (v)
		return v;
	/* at most 3 bytes (U+FFFD) for each byte in */
	out = malloc(3 * len + 1);
	if (!out)
		return NULL;
	for (size_t i = 0; i < len;) {
		size_t n = utf8_len(s + i);

		if (n) {
			memcpy(out + j, s + i, n);
			j += n;
			i += n;
		} else {
			memcpy(out + j, "\xef\xbf\xbd", 3);
			j += 3;
			i++;
		}
	}
	v = json_stringn(out, j);
	free(out);
	return v;
}
