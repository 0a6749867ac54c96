/* SPDX-License-Identifier: MIT */
/*
 * output_file (engine/output_file.c): a regular file is replaced whole or
 * not at all; a symbolic link is written through (it stays a link, its
 * target gets the data); a FIFO or a device is written in place, never
 * replaced by a regular file; a write error names its cause.
 */
#define _GNU_SOURCE /* mknod, makedev */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "output_file.h"

static char dir[] = "/tmp/gdrlab-output-file-XXXXXX";
static char buf[PATH_MAX];

static void make_dir(void)
{
	cr_assert_not_null(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
}

static void remove_dir(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd)) {
		/* nothing more to do: a scratch folder in /tmp */
	}
}

TestSuite(output_file, .init = make_dir, .fini = remove_dir, .timeout = 30);

static const char *at(const char *name)
{
	static char path[4][PATH_MAX];
	static unsigned next;
	char *p = path[next++ % 4];

	snprintf(p, PATH_MAX, "%s/%s", dir, name);
	return p;
}

static const char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	size_t n;

	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void spit(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

/* Files in the scratch folder: no temporary left behind. */
static unsigned entries(void)
{
	char cmd[PATH_MAX + 32], line[64] = "";
	FILE *p;

	snprintf(cmd, sizeof(cmd), "ls -A '%s' | wc -l", dir);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	cr_assert_not_null(fgets(line, sizeof(line), p));
	pclose(p);
	return (unsigned)atoi(line);
}

static void write_all(const char *path, const char *text)
{
	struct output_file o;
	struct diag d = { "" };

	cr_assert_eq(output_file_open(&o, path, &d), 0, "open %s: %s", path, d.msg);
	fputs(text, o.fp);
	cr_assert_eq(output_file_commit(&o, &d), 0, "commit %s: %s", path, d.msg);
}

Test(output_file, regular_file_all_or_nothing)
{
	const char *f = at("out.json");
	struct output_file o;
	struct diag d = { "" };

	write_all(f, "first\n");
	cr_assert_str_eq(slurp(f), "first\n");
	cr_assert_eq(output_file_open(&o, f, &d), 0, "%s", d.msg);
	cr_assert(!o.direct);
	fputs("half", o.fp);
	output_file_abort(&o);
	cr_assert_str_eq(slurp(f), "first\n", "an aborted write changed the file");
	write_all(f, "second\n");
	cr_assert_str_eq(slurp(f), "second\n");
	cr_assert_eq(entries(), 1, "a temporary file was left behind");
}

Test(output_file, symlink_written_through)
{
	const char *target = at("target.txt"), *link = at("link.json");
	struct stat st;

	spit(target, "old\n");
	cr_assert_eq(symlink("target.txt", link), 0);
	write_all(link, "new\n");
	cr_assert_eq(lstat(link, &st), 0);
	cr_assert(S_ISLNK(st.st_mode), "link.json is no longer a symbolic link");
	cr_assert_str_eq(slurp(target), "new\n", "the link's target was not written");
	cr_assert_eq(entries(), 2, "a temporary file was left behind");
}

Test(output_file, symlink_chain_and_dangling)
{
	const char *link = at("a.json"), *mid = at("sub/b.json"), *end = at("sub/new.json");
	struct stat st;

	cr_assert_eq(mkdir(at("sub"), 0700), 0);
	/* a.json -> sub/b.json -> new.json (relative to sub/), which does not
	 * exist yet: the write creates it. */
	cr_assert_eq(symlink("sub/b.json", link), 0);
	cr_assert_eq(symlink("new.json", mid), 0);
	write_all(link, "made\n");
	cr_assert_eq(lstat(link, &st), 0);
	cr_assert(S_ISLNK(st.st_mode));
	cr_assert_eq(lstat(mid, &st), 0);
	cr_assert(S_ISLNK(st.st_mode));
	cr_assert_eq(lstat(end, &st), 0);
	cr_assert(S_ISREG(st.st_mode));
	cr_assert_str_eq(slurp(end), "made\n");
}

Test(output_file, symlink_loop_fails)
{
	const char *a = at("a"), *b = at("b");
	struct output_file o;
	struct diag d = { "" };

	cr_assert_eq(symlink("b", a), 0);
	cr_assert_eq(symlink("a", b), 0);
	cr_assert_eq(output_file_open(&o, a, &d), -ELOOP, "%s", d.msg);
	cr_assert_null(o.fp);
}

/*
 * output_file_check says what the open would, creating nothing: a file
 * in a folder that is there (also through a link into another folder),
 * "-", a device written in place; a folder that is not there, also as a
 * link's final target's, is "cannot create".
 */
Test(output_file, check_before_the_run)
{
	struct diag d = { "" };

	cr_assert_eq(output_file_check(at("new.json"), &d), 0, "%s", d.msg);
	cr_assert_eq(output_file_check("-", &d), 0, "%s", d.msg);
	cr_assert_eq(output_file_check("/dev/null", &d), 0, "%s", d.msg);
	cr_assert_eq(mkdir(at("sub"), 0700), 0);
	cr_assert_eq(symlink("sub/x.json", at("to-sub")), 0);
	cr_assert_eq(output_file_check(at("to-sub"), &d), 0, "%s", d.msg);
	cr_assert_eq(output_file_check(at("none/x.json"), &d), -ENOENT);
	cr_expect_not_null(strstr(d.msg, "/none/x.json: cannot create: No such file or directory"),
			   "%s", d.msg);
	cr_assert_eq(symlink("gone/x.json", at("to-gone")), 0);
	cr_assert_eq(output_file_check(at("to-gone"), &d), -ENOENT);
	cr_expect_not_null(strstr(d.msg, "/to-gone: cannot create: "), "%s", d.msg);
	/* nothing made: the folder holds sub and the two links alone */
	cr_expect_eq(entries(), 3);
}

Test(output_file, fifo_gets_the_data)
{
	const char *fifo = at("f.json"), *got = at("got.txt");
	struct output_file o;
	struct diag d = { "" };
	struct stat st;
	int status;
	pid_t pid;

	cr_assert_eq(mkfifo(fifo, 0600), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) { /* the reader: copy what comes to got.txt */
		char chunk[256];
		ssize_t n;
		int in, out;

		alarm(10);
		in = open(fifo, O_RDONLY);
		out = open(got, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (in < 0 || out < 0)
			_exit(2);
		while ((n = read(in, chunk, sizeof(chunk))) > 0)
			if (write(out, chunk, (size_t)n) != n)
				_exit(3);
		_exit(n < 0 ? 4 : 0);
	}
	alarm(10); /* an open that waits for a reader that never comes */
	cr_assert_eq(output_file_open(&o, fifo, &d), 0, "%s", d.msg);
	cr_assert(o.direct);
	cr_assert_str_eq(o.tmp, fifo, "a named writer would not write into the FIFO");
	fputs("through the pipe\n", o.fp);
	cr_assert_eq(output_file_commit(&o, &d), 0, "%s", d.msg);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	alarm(0);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "reader failed: %#x", status);
	cr_assert_str_eq(slurp(got), "through the pipe\n");
	cr_assert_eq(lstat(fifo, &st), 0);
	cr_assert(S_ISFIFO(st.st_mode), "the FIFO was replaced");
}

/* Enough to overflow any stdio buffer, so that a write fails before the
 * commit's flush. */
static void fill(FILE *f)
{
	for (unsigned i = 0; i < 8192; i++)
		fputs("0123456789abcdef0123456789abcdef\n", f);
}

static bool is_chr(const char *path, unsigned minor)
{
	struct stat st;

	return lstat(path, &st) == 0 && S_ISCHR(st.st_mode) && major(st.st_rdev) == 1 &&
	       minor(st.st_rdev) == minor;
}

/* @path, a full device (1,7): the commit fails with ENOSPC, named. */
static void full_fails(const char *path)
{
	struct output_file o;
	struct diag d = { "" };

	cr_assert_eq(output_file_open(&o, path, &d), 0, "%s", d.msg);
	fputs("x\n", o.fp);
	cr_assert_eq(output_file_commit(&o, &d), -ENOSPC, "%s: %s", path, d.msg);
	cr_assert(strstr(d.msg, path) && strstr(d.msg, "No space left on device"),
		  "message: %s", d.msg);
	cr_assert(is_chr(path, 7), "%s is no longer the full device", path);

	/* A writer that saw the error first (stdio says only -EIO). */
	cr_assert_eq(output_file_open(&o, path, &d), 0, "%s", d.msg);
	fill(o.fp);
	cr_assert_eq(output_file_fail(&o, -EIO, &d), -ENOSPC, "%s", d.msg);
	cr_assert(strstr(d.msg, "No space left on device"), "message: %s", d.msg);
	cr_assert_null(o.fp);
	cr_assert(is_chr(path, 7));
}

/*
 * Devices, as root only (nobody else could replace one). Each check runs
 * first on a device node of our own in the scratch folder, so that an
 * output_file that replaces devices fails there, before /dev/null and
 * /dev/full are touched.
 */
Test(output_file, devices_written_in_place)
{
	const char *null = at("null"), *full = at("full");
	struct output_file o;
	struct diag d = { "" };
	int err;

	if (geteuid() != 0)
		cr_skip_test("not root: device nodes cannot be made or replaced");
	cr_assert_eq(mknod(null, S_IFCHR | 0666, makedev(1, 3)), 0, "%s", strerror(errno));
	cr_assert_eq(mknod(full, S_IFCHR | 0666, makedev(1, 7)), 0, "%s", strerror(errno));
	err = output_file_open(&o, full, &d);
	if (err == -EACCES)
		cr_skip_test("%s is on a nodev mount: %s", dir, d.msg);
	cr_assert_eq(err, 0, "%s", d.msg);
	fputs("x\n", o.fp);
	cr_assert_eq(output_file_commit(&o, &d), -ENOSPC,
		     "a full device took the write (replaced by a file?): %s", d.msg);
	cr_assert(is_chr(full, 7), "the device node was replaced");
	write_all(null, "gone\n");
	cr_assert(is_chr(null, 3), "the device node was replaced");
	full_fails(full);

	/* The same for the system's own, now that they are known safe. */
	if (!is_chr("/dev/null", 3) || !is_chr("/dev/full", 7))
		cr_skip_test("no /dev/null or /dev/full here");
	write_all("/dev/null", "gone\n");
	cr_assert(is_chr("/dev/null", 3), "/dev/null was replaced");
	full_fails("/dev/full");
}

Test(output_file, directory_fails_at_open)
{
	struct output_file o;
	struct diag d = { "" };

	cr_assert_eq(output_file_open(&o, dir, &d), -EISDIR, "%s", d.msg);
	cr_assert_null(o.fp);
}

Test(output_file, stdout_write_error_named)
{
	struct diag d = { "" };
	int fds[2];

	signal(SIGPIPE, SIG_IGN);
	cr_assert_eq(pipe(fds), 0);
	close(fds[0]); /* nobody reads: writes fail with EPIPE */
	cr_assert_geq(dup2(fds[1], STDOUT_FILENO), 0);
	fill(stdout);
	cr_assert_eq(output_stdout_flush(&d), -EPIPE, "%s", d.msg);
	cr_assert_str_eq(d.msg, "stdout: Broken pipe");
	clearerr(stdout);
}

Test(output_file, failed_writer_without_stream_error)
{
	const char *f = at("out.csv");
	struct output_file o;
	struct diag d = { "" };

	cr_assert_eq(output_file_open(&o, f, &d), 0, "%s", d.msg);
	fputs("partial", o.fp);
	cr_assert_eq(output_file_fail(&o, -EINVAL, &d), -EINVAL);
	cr_assert_str_eq(d.msg, "", "the writer's own error was overwritten");
	cr_assert_null(o.fp);
	cr_assert_eq(entries(), 0, "a temporary file was left behind");
}
