/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the nccl-log importer: any input, read as one or as
 * two files (split at its first NUL-free half), must import or fail with a
 * one-line message and nothing kept, never crash or leak; what imports
 * must be a trace that writes and reads back with as many entries.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "importer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_round_trip(const struct trace *t)
{
	struct trace back;
	struct diag d;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return;
	if (trace_write(f, t))
		abort();
	fclose(f);
	if (trace_load_buffer(buf, len, "written", &back, &d) || back.nentries != t->nentries)
		abort();
	trace_destroy(&back);
	free(buf);
}

static void one(const uint8_t *data, size_t size, size_t split)
{
	struct import_input in[2];
	struct import_options o = { 0 };
	struct import_notes notes;
	struct trace t;
	struct diag d;
	size_t n = split ? 2 : 1;

	in[0].name = "a.log";
	in[0].fp = fmemopen((void *)data, split ? split : size, "r");
	in[1].name = "b.log";
	in[1].fp = split ? fmemopen((void *)(data + split), size - split, "r") : NULL;
	if (!in[0].fp || (split && !in[1].fp))
		goto out;
	d.msg[0] = '\0';
	if (importer_nccl_log.import(in, n, &o, &t, &notes, &d)) {
		if (!d.msg[0] || strchr(d.msg, '\n') || t.entries)
			abort();
	} else {
		check_round_trip(&t);
		trace_destroy(&t);
	}
out:
	for (size_t i = 0; i < n; i++)
		if (in[i].fp)
			fclose(in[i].fp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0; /* fmemopen wants a buffer */
	one(data, size, 0);
	if (size > 1)
		one(data, size, size / 2);
	return 0;
}
