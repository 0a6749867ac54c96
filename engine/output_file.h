/* SPDX-License-Identifier: MIT */
/*
 * output_file: write a result file all-or-nothing.
 *
 * The data goes to a temporary file beside the target, renamed over it only
 * by output_file_commit(); output_file_abort() (or any failure) removes it.
 * So a failed run never leaves a half-written JSON/CSV/trace behind. The path
 * "-" means standard output, which is flushed but never closed.
 */
#ifndef GDRLAB_OUTPUT_FILE_H
#define GDRLAB_OUTPUT_FILE_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

#include "diag.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

struct output_file {
	FILE *fp;            /* where to write; NULL when not open */
	bool is_stdout;
	char path[PATH_MAX]; /* final name */
	char tmp[PATH_MAX];  /* temporary name while writing */
};

int output_file_open(struct output_file *o, const char *path, struct diag *d);
/* Flush, close and rename into place. The file is closed either way. */
int output_file_commit(struct output_file *o, struct diag *d);
/* Close and remove the temporary file; safe on a never-opened struct. */
void output_file_abort(struct output_file *o);

#endif
