/* SPDX-License-Identifier: MIT */
/*
 * input_file: open a file a reader takes, or say in one line why not.
 *
 * fopen() opens a directory for reading and its first read fails
 * (EISDIR), which each reader then told in its own way ("read error",
 * "no points", a JSON syntax error) and with its own exit status; here a
 * directory is refused at the door, as a missing file is, with -EISDIR
 * (an input error: the command's exit status 2).
 */
#ifndef GDRLAB_INPUT_FILE_H
#define GDRLAB_INPUT_FILE_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>

#include "diag.h"

/* fopen(@path, @mode) for reading; NULL with "PATH: cannot read: REASON"
 * in @d and *@err its -errno where it cannot be read or is a
 * directory. */
FILE *input_open(const char *path, const char *mode, int *err, struct diag *d);

/*
 * Whether the file @st describes was opened by input_open in this
 * process, and by what name (*@path): an output must not be written over
 * an input (output_file.c), or `--csv trace.jsonl` replaced the trace.
 */
bool input_file_was_read(const struct stat *st, const char **path);

#endif
