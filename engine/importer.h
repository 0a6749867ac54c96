/* SPDX-License-Identifier: MIT */
/*
 * importer: traces of real jobs into gdrlab's trace (trace.h), one
 * importer per input format, listed in one explicit table
 * (all_importers.c) as the backends are. `gdrlab import FORMAT FILE...`
 * picks one by name.
 *
 * An importer reads its inputs line by line or message by message
 * (streaming: the memory it keeps grows with the collectives it finds,
 * not with the input), merges the files of one run (one per rank, or one
 * for all), and fills a trace.
 * What an input does not say is asked for in struct import_options or
 * named in the error, never guessed.
 */
#ifndef GDRLAB_IMPORTER_H
#define GDRLAB_IMPORTER_H

#include <stdbool.h>
#include <stdio.h>

#include "diag.h"
#include "trace.h"

/* A process group's ranks as `--group NAME=RANKS` gives them. */
struct import_group {
	char name[64];   /* as the trace names it (pg_name, Process Group Name) */
	unsigned *ranks; /* sorted, distinct; owned by the options */
	unsigned n;
};

/*
 * What the user says that an input may not: each used only where the
 * input is silent (the NCCL log says everything and takes none). Zeroed
 * means nothing said.
 */
struct import_options {
	/* --dtype: the element type of calls whose trace does not say it */
	bool has_dtype;
	enum trace_dtype dtype;
	/* --world N: the job's ranks are 0 .. N-1, and a call of a group the
	 * trace does not list is every rank's; 0 when not given */
	unsigned world;
	/* --group NAME=RANKS: groups the trace names but does not list */
	struct import_group *groups;
	size_t ngroups;
};

/* The options' parsers, one per flag (import_options.c): 0, or -EINVAL
 * with @d "--flag: problem". */
int import_options_dtype(struct import_options *o, const char *arg, struct diag *d);
int import_options_world(struct import_options *o, const char *arg, struct diag *d);
int import_options_group(struct import_options *o, const char *arg, struct diag *d);
/* The --group of that name, or NULL. */
const struct import_group *import_options_find_group(const struct import_options *o,
						     const char *name);
void import_options_free(struct import_options *o);

/* What an input says about the run beyond its collectives, for the
 * trace's header: one line, "" when nothing. */
struct import_notes {
	char line[1024]; /* kineto's left-out counts alone take 330 */
	unsigned world; /* the job's ranks where the input says them, else 0 */
	/* The hosts they ran on, where the input says them (an NCCL log's
	 * "host:pid"), else 0; per_host: the ranks of each, when every host
	 * had as many, else 0. */
	unsigned hosts, per_host;
};

/* One more thing said in @n's line, after a "; " where it has one; cut
 * where the line is full. */
void import_notes_add(struct import_notes *n, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

struct import_input {
	FILE *fp;
	const char *name; /* for messages */
};

struct importer_ops {
	const char *name; /* as `gdrlab import` takes it: "nccl-log" */
	const char *what; /* one line for --help */
	bool takes_options; /* reads --dtype, --group, --world where its
			     * input is silent */
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
extern const struct importer_ops importer_chakra;

#endif
