/* SPDX-License-Identifier: MIT */
/*
 * json_stream: a JSON file read as a stream of bytes, plain or gzip (by
 * its magic), with the line and byte each fault is at, and values
 * scanned whole or skipped without being parsed: a reader takes a top
 * level of any size one value at a time and parses each with jansson
 * (the kineto importer's profiler traces, gigabytes of events).
 */
#ifndef GDRLAB_JSON_STREAM_H
#define GDRLAB_JSON_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <zlib.h>

#include "diag.h"

#define JSTREAM_CHUNK (1u << 16)

/* A file's bytes, inflated when it is gzip. */
struct jstream {
	FILE *fp;
	const char *name;
	bool gz, gz_end;
	z_stream z;
	unsigned char in[JSTREAM_CHUNK], out[JSTREAM_CHUNK];
	size_t pos, len;     /* unread bytes of out (or of in, plain) */
	size_t in_len;
	uint64_t offset;     /* bytes read so far, inflated */
	unsigned line;
	int err;             /* 0, or a negative errno once failed */
	struct diag *d;
};

/* A value's text as scanned; longer than @max (0: any) is @key's fault,
 * "@what longer than @max bytes". */
struct jtext {
	char *buf;
	size_t len, cap;
	size_t max;
	const char *key, *what;
};

/* "file:line: key: what (byte N)", once: the first fault stays. */
int jstream_fail(struct jstream *s, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Start reading @fp (named @name in errors): 0, or the fault in @d. */
int jstream_open(struct jstream *s, FILE *fp, const char *name, struct diag *d);
void jstream_close(struct jstream *s);

/* The next byte, or -1 at the end or on a fault (s->err). */
int jstream_get(struct jstream *s);
/* The next byte that is not JSON white space. */
int jstream_next(struct jstream *s);

/* A JSON string's rest after its '"' (into @t when given). */
int jstream_string(struct jstream *s, struct jtext *t);

/*
 * One JSON value whose first byte is @c, copied into @t when given (else
 * skipped); *@after gets the first byte after a scalar (a container or a
 * string ends on its own byte: -2 then).
 */
int jstream_value(struct jstream *s, int c, struct jtext *t, int *after);

#endif
