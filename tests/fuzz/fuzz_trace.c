/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the trace reader: any input must either load or
 * fail with a one-line message, never crash or leak; what loads must also
 * survive trace_write and read back to the same number of entries.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

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
		abort(); /* everything the reader accepts must be writable */
	fclose(f);
	if (trace_load_buffer(buf, len, "written", &back, &d) ||
	    back.nentries != t->nentries || back.niterations != t->niterations)
		abort();
	trace_destroy(&back);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace t;
	struct diag d;

	d.msg[0] = '\0';
	if (trace_load_buffer((const char *)data, size, "fuzz", &t, &d)) {
		if (!d.msg[0] || strchr(d.msg, '\n') || t.entries)
			abort();
		return 0;
	}
	check_round_trip(&t);
	trace_destroy(&t);
	return 0;
}
