/* SPDX-License-Identifier: MIT */
#include "input_file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The regular files read so far: a command reads a few (a topology, a
 * trace, a plan's), so a list is enough. */
static struct read_file {
	dev_t dev;
	ino_t ino;
	char *path;
} *read_files;
static size_t nread_files;

static void remember(const struct stat *st, const char *path)
{
	struct read_file *grown;
	const char *known;

	if (!S_ISREG(st->st_mode) || input_file_was_read(st, &known))
		return;
	grown = realloc(read_files, (nread_files + 1) * sizeof(*read_files));
	if (!grown)
		return; /* a guard, not the read: go on without it */
	read_files = grown;
	read_files[nread_files].path = strdup(path);
	if (!read_files[nread_files].path)
		return;
	read_files[nread_files].dev = st->st_dev;
	read_files[nread_files++].ino = st->st_ino;
}

FILE *input_open(const char *path, const char *mode, int *err, struct diag *d)
{
	FILE *f = fopen(path, mode);
	struct stat st;

	if (f && !fstat(fileno(f), &st)) {
		if (S_ISDIR(st.st_mode)) {
			fclose(f);
			f = NULL;
			errno = EISDIR;
		} else {
			remember(&st, path);
		}
	}
	if (!f)
		*err = diag_set(d, -errno, "%s: cannot read: %s", path, strerror(errno));
	return f;
}

bool input_file_was_read(const struct stat *st, const char **path)
{
	for (size_t i = 0; i < nread_files; i++)
		if (read_files[i].dev == st->st_dev && read_files[i].ino == st->st_ino) {
			*path = read_files[i].path;
			return true;
		}
	return false;
}
