/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "child_call.h"

#include "fd_io.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct child_header {
	int err;
	char msg[DIAG_MSG_MAX];
};

static void child_main(int fd, child_fn fn, void *arg, void *answer,
		       size_t len)
{
	struct child_header h = { 0 };
	struct diag d = { "" };

	h.err = fn(arg, answer, len, &d);
	memcpy(h.msg, d.msg, sizeof(h.msg));
	if (fd_write_full(fd, &h, sizeof(h)) ||
	    (!h.err && fd_write_full(fd, answer, len)))
		_exit(1);
	_exit(h.err ? 1 : 0);
}

static int wait_child(const char *what, pid_t pid, struct diag *d)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return diag_set(d, -errno, "%s: waitpid: %s", what,
					strerror(errno));
	if (WIFSIGNALED(status))
		return diag_set(d, -EIO, "%s: the process died of signal %d (%s)",
				what, WTERMSIG(status), strsignal(WTERMSIG(status)));
	if (!WIFEXITED(status))
		return diag_set(d, -EIO, "%s: the process failed", what);
	return WEXITSTATUS(status) ? 1 : 0;
}

int child_call(const char *what, child_fn fn, void *arg, void *answer,
	       size_t len, struct diag *d)
{
	struct child_header h;
	int fds[2], werr, herr, aerr = 0;
	pid_t pid;

	if (pipe(fds))
		return diag_set(d, -errno, "%s: pipe: %s", what, strerror(errno));
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		int err = -errno;

		close(fds[0]);
		close(fds[1]);
		return diag_set(d, err, "%s: fork: %s", what, strerror(-err));
	}
	if (pid == 0) {
		close(fds[0]);
		child_main(fds[1], fn, arg, answer, len);
	}
	close(fds[1]);
	memset(&h, 0, sizeof(h));
	herr = fd_read_full(fds[0], &h, sizeof(h));
	if (!herr && !h.err)
		aerr = fd_read_full(fds[0], answer, len);
	close(fds[0]);
	werr = wait_child(what, pid, d);
	if (werr < 0)
		return werr;
	if (!herr && h.err)
		return diag_set(d, h.err, "%s", h.msg[0] ? h.msg : strerror(-h.err));
	if (werr || herr || aerr)
		return diag_set(d, -EIO, "%s: the process ended without an answer%s",
				what, werr ? " (exit status 1)" : "");
	return 0;
}
