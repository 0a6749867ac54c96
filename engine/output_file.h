/* SPDX-License-Identifier: MIT */
/*
 * output_file: write a result file all-or-nothing.
 *
 * The data goes to a temporary file beside the target, renamed over it only
 * by output_file_commit(); output_file_abort() (or any failure) removes it.
 * So a failed run never leaves a half-written JSON/CSV/trace behind. The path
 * "-" means standard output, which is flushed but never closed.
 *
 * A symbolic link is written through: the temporary file goes beside the
 * link's final target and is renamed over that, so the link stays a link.
 * A target that exists and is not a regular file (a FIFO, /dev/null, a
 * terminal, a link into /proc such as /dev/stdout) is opened and written
 * directly: that cannot be all-or-nothing, and a failed run may have written
 * part of its output into it.
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

struct output_sink;

struct output_file {
	FILE *fp;            /* where to write; NULL when not open */
	bool is_stdout;
	bool direct;         /* written in place: no temporary, no rename */
	char path[PATH_MAX]; /* the name as given, for messages */
	char dest[PATH_MAX]; /* what is renamed over (a link's final target) */
	/* Temporary name while writing; a writer that needs a name (gnuplot)
	 * writes here. When direct, the target itself. */
	char tmp[PATH_MAX];
	struct output_sink *sink; /* behind fp: remembers the first write error */
};

int output_file_open(struct output_file *o, const char *path, struct diag *d);
/*
 * Whether output_file_open could create @path: its folder (a link's
 * final target's) there and writable, said as the open would say it
 * ("PATH: cannot create: No such file or directory"). Nothing is created:
 * a command asks before a long run, not after it, and a run stopped by a
 * signal leaves no temporary behind.
 */
int output_file_check(const char *path, struct diag *d);
/* Flush, close and rename into place. The file is closed either way. */
int output_file_commit(struct output_file *o, struct diag *d);
/* Close and remove the temporary file; safe on a never-opened struct. */
void output_file_abort(struct output_file *o);
/*
 * A writer to @o->fp failed with @err (often -EIO: stdio keeps only a flag).
 * When the stream itself had a write error, says which and why in @d
 * ("PATH: cannot write: No space left on device", "stdout: ...") and
 * returns that errno; otherwise returns @err and leaves @d alone. Either
 * way @o is aborted, as by output_file_abort().
 */
int output_file_fail(struct output_file *o, int err, struct diag *d);

/*
 * Flush standard output and check it for an earlier write error: 0, or a
 * negative errno with @d set to "stdout: <why>". For a command's last step,
 * so that `gdrlab ... > /dev/full` fails instead of exiting 0.
 */
int output_stdout_flush(struct diag *d);

#endif
