/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE /* fopencookie */
#include "output_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "input_file.h"

/* Links followed before giving up with ELOOP, as the kernel does. */
#define OUTPUT_MAX_LINKS 40

/*
 * The file descriptor behind an output's FILE. stdio keeps only a flag once
 * a write fails; this keeps the errno too, so that /dev/full or a full disk
 * says "No space left on device" rather than "Input/output error".
 */
struct output_sink {
	int fd;
	int err; /* first failure, a positive errno; 0 while none */
};

static ssize_t sink_write(void *cookie, const char *buf, size_t len)
{
	struct output_sink *s = cookie;
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(s->fd, buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!s->err)
				s->err = n < 0 ? errno : EIO;
			errno = s->err;
			return -1;
		}
		done += (size_t)n;
	}
	return (ssize_t)len;
}

static int sink_seek(void *cookie, off64_t *pos, int whence)
{
	struct output_sink *s = cookie;
	off_t at = lseek(s->fd, (off_t)*pos, whence);

	if (at < 0)
		return -1;
	*pos = at;
	return 0;
}

static int sink_close(void *cookie)
{
	struct output_sink *s = cookie;

	if (close(s->fd) && !s->err && errno != EINTR) {
		s->err = errno;
		return -1;
	}
	return 0;
}

/* A FILE writing to @fd, which it owns from here on (closed on failure). */
static FILE *sink_open(struct output_file *o, int fd)
{
	static const cookie_io_functions_t io = {
		.write = sink_write, .seek = sink_seek, .close = sink_close,
	};
	int err;

	o->sink = calloc(1, sizeof(*o->sink));
	if (o->sink) {
		o->sink->fd = fd;
		o->fp = fopencookie(o->sink, "w", io);
		if (o->fp)
			return o->fp;
	}
	err = errno;
	close(fd);
	free(o->sink);
	o->sink = NULL;
	errno = err;
	return NULL;
}

/* fclose, and the first error of the whole output as a negative errno. */
static int sink_close_all(struct output_file *o)
{
	int err = 0;

	if (fflush(o->fp))
		err = -(o->sink->err ? o->sink->err : errno ? errno : EIO);
	else if (ferror(o->fp))
		err = -(o->sink->err ? o->sink->err : EIO);
	fclose(o->fp);
	if (!err && o->sink->err)
		err = -o->sink->err;
	free(o->sink);
	o->sink = NULL;
	o->fp = NULL;
	return err;
}

/*
 * Follow @path's symbolic links to the name they end at, into @out (len
 * bytes): a name that may not exist yet (a dangling link names the file to
 * create). Stops at a link that lives in /proc (/dev/stdout, /dev/fd/N,
 * /proc/self/fd/N): what those name is an open file, possibly a pipe or a
 * deleted file, not a path to put a file beside; *@magic says so.
 */
static int resolve_links(const char *path, char *out, size_t len, bool *magic)
{
	struct stat st, proc;
	bool have_proc = lstat("/proc/self", &proc) == 0;
	char link[PATH_MAX];

	*magic = false;
	if (snprintf(out, len, "%s", path) >= (int)len)
		return -ENAMETOOLONG;
	for (unsigned hop = 0; hop < OUTPUT_MAX_LINKS; hop++) {
		const char *slash;
		ssize_t n;
		int dirlen;

		if (lstat(out, &st) || !S_ISLNK(st.st_mode))
			return 0; /* the end, or an error the open will report */
		if (have_proc && st.st_dev == proc.st_dev) {
			*magic = true;
			return 0;
		}
		n = readlink(out, link, sizeof(link));
		if (n < 0)
			return 0;
		if ((size_t)n >= sizeof(link))
			return -ENAMETOOLONG;
		link[n] = '\0';
		slash = strrchr(out, '/');
		dirlen = link[0] == '/' || !slash ? 0 : (int)(slash - out + 1);
		if ((size_t)dirlen + (size_t)n >= len)
			return -ENAMETOOLONG;
		memmove(out + dirlen, link, (size_t)n + 1);
	}
	return -ELOOP;
}

/*
 * Open a target that is not a regular file in place. Not all-or-nothing:
 * a FIFO's reader or a device sees the data as it is written, and a failed
 * run may have written part of it. O_TRUNC as fopen "w" (no effect on a
 * FIFO or a device). Opening a FIFO waits for a reader, as a shell
 * redirection does.
 */
static int open_direct(struct output_file *o, struct diag *d)
{
	int fd;

	o->direct = true;
	memcpy(o->tmp, o->path, sizeof(o->tmp));
	do
		fd = open(o->path, O_WRONLY | O_TRUNC | O_NOCTTY | O_CLOEXEC);
	while (fd < 0 && errno == EINTR);
	if (fd < 0)
		return diag_set(d, -errno, "%s: cannot open: %s", o->path,
				strerror(errno));
	if (!sink_open(o, fd))
		return diag_set(d, -errno, "%s: %s", o->path, strerror(errno));
	return 0;
}

/*
 * The outputs open in this process, so that two of one command cannot
 * name one file (`--json x --csv x` kept only the last committed): a
 * command opens a few.
 */
#define OPEN_OUTPUTS_MAX 16
static struct output_file *open_outputs[OPEN_OUTPUTS_MAX];

static void track(struct output_file *o, bool open)
{
	for (size_t i = 0; i < OPEN_OUTPUTS_MAX; i++) {
		if (open && !open_outputs[i]) {
			open_outputs[i] = o;
			return;
		}
		if (!open && open_outputs[i] == o)
			open_outputs[i] = NULL;
	}
}

/* @a and @b name one file: the same name in the same folder (either may
 * not exist yet). */
static bool same_target(const char *a, const char *b)
{
	const char *sa = strrchr(a, '/'), *sb = strrchr(b, '/');
	const char *base_a = sa ? sa + 1 : a, *base_b = sb ? sb + 1 : b;
	char dir_a[PATH_MAX], dir_b[PATH_MAX];
	struct stat st_a, st_b;

	if (strcmp(base_a, base_b))
		return false;
	snprintf(dir_a, sizeof(dir_a), "%.*s", sa ? (int)(sa - a) + 1 : 1, sa ? a : ".");
	snprintf(dir_b, sizeof(dir_b), "%.*s", sb ? (int)(sb - b) + 1 : 1, sb ? b : ".");
	return !stat(dir_a, &st_a) && !stat(dir_b, &st_b) && st_a.st_dev == st_b.st_dev &&
	       st_a.st_ino == st_b.st_ino;
}

/* An output over an input this command read, or over another of its
 * outputs, refused: the input would be gone, or one output lost. */
static int check_target(const struct output_file *o, struct diag *d)
{
	const char *input;
	struct stat st;

	if (!stat(o->dest, &st) && input_file_was_read(&st, &input))
		return diag_set(d, -EINVAL, "%s: is an input of this command too (%s): write the output to another file",
				o->path, input);
	for (size_t i = 0; i < OPEN_OUTPUTS_MAX; i++)
		if (open_outputs[i] && open_outputs[i] != o && !open_outputs[i]->is_stdout &&
		    !open_outputs[i]->direct && same_target(open_outputs[i]->dest, o->dest))
			return diag_set(d, -EINVAL, "%s: is another output of this command too (%s): give each its own file",
					o->path, open_outputs[i]->path);
	return 0;
}

/*
 * Where @path's output goes, its links followed (resolve_links), into
 * @dest, and whether it is written in place (*@direct): a link into
 * /proc, or a target that is there and no regular file. What opening it
 * and checking it beforehand (output_file_check) both ask.
 */
static int resolve_target(const char *path, char *dest, size_t len, bool *direct,
			  struct diag *d)
{
	struct stat st;
	bool magic;
	int err = resolve_links(path, dest, len, &magic);

	if (err)
		return diag_set(d, err, "%s: %s", path, strerror(-err));
	*direct = magic || (stat(dest, &st) == 0 && !S_ISREG(st.st_mode));
	return 0;
}

int output_file_open(struct output_file *o, const char *path, struct diag *d)
{
	bool direct;
	mode_t mask;
	int fd, err;

	memset(o, 0, sizeof(*o));
	if (strcmp(path, "-") == 0) {
		o->fp = stdout;
		o->is_stdout = true;
		return 0;
	}
	if (snprintf(o->path, sizeof(o->path), "%s", path) >= (int)sizeof(o->path))
		return diag_set(d, -ENAMETOOLONG, "%s: path too long", path);
	err = resolve_target(path, o->dest, sizeof(o->dest), &direct, d);
	if (err)
		return err;
	if (direct)
		return open_direct(o, d);
	err = check_target(o, d);
	if (err)
		return err;

	/* A regular file, or none yet: write a temporary beside it. */
	if (snprintf(o->tmp, sizeof(o->tmp), "%s.tmp.XXXXXX", o->dest) >= (int)sizeof(o->tmp))
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
	if (!sink_open(o, fd)) {
		err = errno;
		unlink(o->tmp);
		return diag_set(d, -err, "%s: %s", path, strerror(err));
	}
	track(o, true);
	return 0;
}

int output_file_check(const char *path, struct diag *d)
{
	char dest[PATH_MAX];
	bool direct;
	char *slash;
	int err;

	if (strcmp(path, "-") == 0)
		return 0;
	err = resolve_target(path, dest, sizeof(dest), &direct, d);
	if (err || direct)
		return err; /* written in place, opened then (open_direct) */
	/* the temporary goes beside the target: its folder takes it */
	slash = strrchr(dest, '/');
	if (!slash)
		snprintf(dest, sizeof(dest), ".");
	else if (slash == dest)
		dest[1] = '\0'; /* a file in / */
	else
		*slash = '\0';
	if (access(dest, W_OK | X_OK))
		return diag_set(d, -errno, "%s: cannot create: %s", path, strerror(errno));
	return 0;
}

int output_stdout_flush(struct diag *d)
{
	int err = 0;

	if (fflush(stdout))
		err = -(errno ? errno : EIO);
	else if (ferror(stdout))
		err = -EIO; /* failed earlier; stdio kept no errno */
	return err ? diag_set(d, err, "stdout: %s", strerror(-err)) : 0;
}

int output_file_commit(struct output_file *o, struct diag *d)
{
	int err;

	if (!o->fp)
		return diag_set(d, -EBADF, "%s: not open", o->path);
	if (o->is_stdout) {
		o->fp = NULL;
		return output_stdout_flush(d);
	}
	/* an input read since the output was opened */
	if (!o->direct && check_target(o, d)) {
		output_file_abort(o);
		return -EINVAL;
	}
	track(o, false);
	err = sink_close_all(o);
	if (!err && !o->direct && rename(o->tmp, o->dest))
		err = -errno;
	if (err) {
		if (!o->direct)
			unlink(o->tmp);
		return diag_set(d, err, "%s: cannot write: %s", o->path,
				strerror(-err));
	}
	return 0;
}

/* Close @o's file and remove its temporary: what is left of a failed
 * output. Returns the stream's first error, as sink_close_all. */
static int drop(struct output_file *o)
{
	int err;

	track(o, false);
	err = sink_close_all(o);

	if (!o->direct)
		unlink(o->tmp);
	return err;
}

int output_file_fail(struct output_file *o, int err, struct diag *d)
{
	int why;

	if (!o->fp || !ferror(o->fp)) {
		output_file_abort(o);
		return err;
	}
	if (o->is_stdout) {
		o->fp = NULL;
		why = output_stdout_flush(d);
		return why ? why : err;
	}
	why = drop(o);
	why = why ? why : -EIO;
	return diag_set(d, why, "%s: cannot write: %s", o->path, strerror(-why));
}

void output_file_abort(struct output_file *o)
{
	if (!o->fp)
		return;
	if (o->is_stdout) {
		fflush(stdout);
		o->fp = NULL;
		return;
	}
	drop(o);
}
