/* SPDX-License-Identifier: MIT */
#include "input_file.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

FILE *input_open(const char *path, const char *mode, int *err, struct diag *d)
{
	FILE *f = fopen(path, mode);
	struct stat st;

	if (f && !fstat(fileno(f), &st) && S_ISDIR(st.st_mode)) {
		fclose(f);
		f = NULL;
		errno = EISDIR;
	}
	if (!f)
		*err = diag_set(d, -errno, "%s: cannot read: %s", path, strerror(errno));
	return f;
}
