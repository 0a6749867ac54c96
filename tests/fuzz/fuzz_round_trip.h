/* SPDX-License-Identifier: MIT */
/* What the fuzz targets check of every trace a reader or importer gives:
 * it writes, and reads back with as many entries and iterations. */
#ifndef GDRLAB_FUZZ_ROUND_TRIP_H
#define GDRLAB_FUZZ_ROUND_TRIP_H

#include <stdio.h>
#include <stdlib.h>

#include "trace.h"

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
		abort(); /* everything accepted must be writable */
	fclose(f);
	if (trace_load_buffer(buf, len, "written", &back, &d) ||
	    back.nentries != t->nentries || back.niterations != t->niterations)
		abort();
	trace_destroy(&back);
	free(buf);
}

#endif
