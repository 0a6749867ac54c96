/* SPDX-License-Identifier: MIT */
/*
 * json_stream: a JSON file read as a stream of bytes, plain or gzip (by
 * its magic), with the line and byte each fault is at, and values
 * scanned whole or skipped without being parsed: a reader takes a top
 * level of any size one value at a time and parses each with jansson
 * (the kineto importer's profiler traces, gigabytes of events).
 */
#include "json_stream.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int jstream_fail(struct jstream *s, const char *key, const char *fmt, ...)
{
	char msg[DIAG_MSG_MAX];
	va_list ap;

	if (s->err)
		return s->err;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	s->err = diag_at(s->d, -EINVAL, s->name, s->line, 0, key, "%s (byte %" PRIu64 ")",
			 msg, s->offset);
	return s->err;
}

int jstream_open(struct jstream *s, FILE *fp, const char *name, struct diag *d)
{
	memset(s, 0, sizeof(*s));
	s->fp = fp;
	s->name = name;
	s->line = 1;
	s->d = d;
	s->in_len = fread(s->in, 1, sizeof(s->in), fp);
	if (ferror(fp))
		return s->err = diag_set(d, -EIO, "%s: read error", name);
	s->gz = s->in_len >= 2 && s->in[0] == 0x1f && s->in[1] == 0x8b;
	if (!s->gz) {
		memcpy(s->out, s->in, s->in_len);
		s->len = s->in_len;
		return 0;
	}
	/* 16 + MAX_WBITS: a gzip header and trailer around the deflate data */
	if (inflateInit2(&s->z, 16 + MAX_WBITS) != Z_OK)
		return s->err = diag_set(d, -ENOMEM, "%s: gzip: cannot start", name);
	s->z.next_in = s->in;
	s->z.avail_in = (uInt)s->in_len;
	return 0;
}

void jstream_close(struct jstream *s)
{
	if (s->gz)
		inflateEnd(&s->z);
}

/* More bytes into out: 0, or -1 at the end (s->err set on a fault). */
static int fill(struct jstream *s)
{
	if (!s->gz) {
		s->len = fread(s->out, 1, sizeof(s->out), s->fp);
		s->pos = 0;
		if (ferror(s->fp))
			s->err = diag_set(s->d, -EIO, "%s: read error", s->name);
		return s->len ? 0 : -1;
	}
	while (!s->gz_end) {
		int zr;

		if (!s->z.avail_in) {
			s->in_len = fread(s->in, 1, sizeof(s->in), s->fp);
			if (ferror(s->fp)) {
				s->err = diag_set(s->d, -EIO, "%s: read error", s->name);
				return -1;
			}
			if (!s->in_len) {
				jstream_fail(s, "gzip", "the stream is cut short");
				return -1;
			}
			s->z.next_in = s->in;
			s->z.avail_in = (uInt)s->in_len;
		}
		s->z.next_out = s->out;
		s->z.avail_out = sizeof(s->out);
		zr = inflate(&s->z, Z_NO_FLUSH);
		if (zr == Z_STREAM_END)
			s->gz_end = true;
		else if (zr != Z_OK && zr != Z_BUF_ERROR) {
			jstream_fail(s, "gzip", "corrupt data: %s", s->z.msg ? s->z.msg : "inflate failed");
			return -1;
		}
		s->len = sizeof(s->out) - s->z.avail_out;
		s->pos = 0;
		if (s->len)
			return 0;
	}
	return -1;
}

/* The next byte, or -1 at the end or on a fault. */
int jstream_get(struct jstream *s)
{
	int c;

	if (s->err || (s->pos == s->len && fill(s)))
		return -1;
	c = s->out[s->pos++];
	s->offset++;
	if (c == '\n')
		s->line++;
	return c;
}

/* The next byte that is not JSON white space. */
int jstream_next(struct jstream *s)
{
	int c;

	do
		c = jstream_get(s);
	while (c == ' ' || c == '\t' || c == '\n' || c == '\r');
	return c;
}


static int text_add(struct jstream *s, struct jtext *t, int c)
{
	if (!t)
		return 0;
	if (t->len + 1 >= t->cap) {
		size_t nc = t->cap ? 2 * t->cap : 4096;
		char *nb;

		if (t->max && nc > t->max)
			return jstream_fail(s, t->key, "%s longer than %zu bytes", t->what, t->max);
		nb = realloc(t->buf, nc);
		if (!nb)
			return s->err = diag_set(s->d, -ENOMEM, "%s: out of memory", s->name);
		t->buf = nb;
		t->cap = nc;
	}
	t->buf[t->len++] = (char)c;
	t->buf[t->len] = '\0';
	return 0;
}

/* A JSON string's rest after its '"' (into @t when given). */
int jstream_string(struct jstream *s, struct jtext *t)
{
	for (;;) {
		int c = jstream_get(s);

		if (c < 0)
			return jstream_fail(s, "json", "the file ends inside a string");
		if (text_add(s, t, c))
			return s->err;
		if (c == '"')
			return 0;
		if (c == '\\') {
			c = jstream_get(s);
			if (c < 0)
				return jstream_fail(s, "json", "the file ends inside a string");
			if (text_add(s, t, c))
				return s->err;
		}
	}
}

/*
 * One JSON value whose first byte is @c, copied into @t when given (else
 * skipped); *@after gets the first byte after a scalar (a container or a
 * string ends on its own byte: -2 then).
 */
int jstream_value(struct jstream *s, int c, struct jtext *t, int *after)
{
	unsigned depth = 0;

	*after = -2;
	if (c != '{' && c != '[' && c != '"') {
		while (c >= 0 && !strchr(",}] \t\r\n", c)) {
			if (text_add(s, t, c))
				return s->err;
			c = jstream_get(s);
		}
		if (c < 0)
			return jstream_fail(s, "json", "the file ends inside a value");
		while (c == ' ' || c == '\t' || c == '\n' || c == '\r')
			c = jstream_get(s);
		*after = c;
		return 0;
	}
	for (;; c = jstream_get(s)) {
		if (c < 0)
			return jstream_fail(s, "json", "the file ends inside %s", depth ? "an object or array" : "a value");
		if (text_add(s, t, c))
			return s->err;
		if (c == '"') {
			if (jstream_string(s, t))
				return s->err;
			if (!depth)
				return 0;
		} else if (c == '{' || c == '[') {
			depth++;
		} else if (c == '}' || c == ']') {
			if (!depth)
				return jstream_fail(s, "json", "'%c' closes nothing", c);
			if (!--depth)
				return 0;
		}
	}
}

