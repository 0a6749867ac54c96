/* SPDX-License-Identifier: MIT */
/* A file's name as a JSON string, or as UTF-8 text (json_util.h). */
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

char *utf8_dup_valid(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t len = strlen(s), j = 0;
	char *out = malloc(3 * len + 1); /* at most U+FFFD's 3 bytes a byte */

	if (!out)
		return NULL;
	for (size_t i = 0; i < len;) {
		size_t n = utf8_len(u + i);

		if (n) {
			memcpy(out + j, u + i, n);
			j += n;
			i += n;
		} else {
			memcpy(out + j, "\xef\xbf\xbd", 3);
			j += 3;
			i++;
		}
	}
	out[j] = '\0';
	return out;
}

json_t *json_file_name(const char *name)
{
	json_t *v = json_string(name);
	char *valid;

	if (v)
		return v;
	valid = utf8_dup_valid(name);
	v = valid ? json_string(valid) : NULL;
	free(valid);
	return v;
}
