/* SPDX-License-Identifier: MIT */
#include "output_file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int output_file_open(struct output_file *o, const char *path, struct diag *d)
{
	mode_t mask;
	int fd;

	memset(o, 0, sizeof(*o));
	if (strcmp(path, "-") == 0) {
		o->fp = stdout;
		o->is_stdout = true;
		return 0;
	}
	if (snprintf(o->path, sizeof(o->path), "%s", path) >= (int)sizeof(o->path) ||
	    snprintf(o->tmp, sizeof(o->tmp), "%s.tmp.XXXXXX", path) >= (int)sizeof(o->tmp))
		return diag_set(d, -ENAMETOOLONG, "%s: path too long", path);
	fd = mkstemp(o->tmp);
	if (fd < 0)
		return diag_set(d, -errno, "%s: cannot create: %s", path,
				strerror(errno));
	/* mkstemp makes the file 0600; give it the mode a plain fopen
	 * would have (0666 less the umask). */
	mask = umask(0);
	umask(mask);
	fchmod(fd, 0666 & ~mask);
	o->fp = fdopen(fd, "w");
	if (!o->fp) {
		int err = errno;

		close(fd);
		unlink(o->tmp);
		return diag_set(d, -err, "%s: %s", path, strerror(err));
	}
	return 0;
}

int output_file_commit(struct output_file *o, struct diag *d)
{
	int err = 0;

	if (!o->fp)
		return diag_set(d, -EBADF, "%s: not open", o->path);
	if (o->is_stdout) {
		err = fflush(stdout) ? -errno : 0;
		o->fp = NULL;
		return err ? diag_set(d, err, "stdout: %s", strerror(-err)) : 0;
	}
	if (ferror(o->fp))
		err = -EIO;
	if (fclose(o->fp) && !err)
		err = -errno;
	o->fp = NULL;
	if (!err && rename(o->tmp, o->path))
		err = -errno;
	if (err) {
		unlink(o->tmp);
		return diag_set(d, err, "%s: cannot write: %s", o->path,
				strerror(-err));
	}
	return 0;
}

void output_file_abort(struct output_file *o)
{
	if (!o->fp)
		return;
	if (o->is_stdout) {
		fflush(stdout);
	} else {
		fclose(o->fp);
		unlink(o->tmp);
	}
	o->fp = NULL;
}
