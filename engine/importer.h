/* SPDX-License-Identifier: MIT */
/*
 * importer: traces of real jobs into gdrlab's trace (trace.h), one
 * importer per input format, listed in one explicit table
 * (all_importers.c) as the backends are. `gdrlab import FORMAT FILE...`
 * picks one by name.
 *
 * An importer reads its inputs line by line (streaming: the memory it
 * keeps grows with the collectives it finds, not with the input), merges
 * the files of one run (one per rank, or one for all), and fills a trace.
 * What an input does not say is asked for in struct import_options or
 * named in the error, never guessed.
 */
#ifndef GDRLAB_IMPORTER_H
#define GDRLAB_IMPORTER_H

#include <stdio.h>

#include "diag.h"
#include "trace.h"

struct import_options {
	/* nothing yet: the NCCL log says every collective's type, size and
	 * communicator; later formats (Kineto's old arguments) will ask */
	int reserved;
};

/* What an input says about the run beyond its collectives, for the
 * trace's header: one line, "" when nothing. */
struct import_notes {
	char line[256];
};

struct import_input {
	FILE *fp;
	const char *name; /* for messages */
};

struct importer_ops {
	const char *name; /* as `gdrlab import` takes it: "nccl-log" */
	const char *what; /* one line for --help */
	/*
	 * Read @n inputs of one run into @t (and @notes). 0, or a negative
	 * errno with @d "file:line: key: problem" and @t left empty
	 * (nothing to destroy).
	 */
	int (*import)(const struct import_input *in, size_t n,
		      const struct import_options *o, struct trace *t,
		      struct import_notes *notes, struct diag *d);
};

/* The table, NULL-terminated (all_importers.c). */
extern const struct importer_ops *const importer_table[];
const struct importer_ops *importer_find(const char *name);

extern const struct importer_ops importer_nccl_log;
extern const struct importer_ops importer_kineto;

#endif
