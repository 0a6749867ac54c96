/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "child_call.h"

#include "fd_io.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
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

unsigned child_call_cpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		return (unsigned)CPU_COUNT(&set);
	return 1;
}

/* A child running (child_call), or running item @i (child_call_each). */
struct each_child {
	pid_t pid;
	int fd;
	size_t i;
};

struct each_call {
	child_each_fn fn;
	void *arg;
	size_t i;
};

static int each_trampoline(void *arg, void *answer, size_t len, struct diag *d)
{
	const struct each_call *c = arg;

	return c->fn(c->arg, c->i, answer, len, d);
}

/* Fork a child running fn(arg, answer, len) into @out (its pipe, its
 * pid); the parent returns at once. */
static int start_child(const char *what, child_fn fn, void *arg, void *answer,
		       size_t len, struct each_child *out, struct diag *d)
{
	int fds[2];

	if (pipe(fds))
		return diag_set(d, -errno, "%s: pipe: %s", what, strerror(errno));
	fflush(NULL);
	out->pid = fork();
	if (out->pid < 0) {
		int err = -errno;

		close(fds[0]);
		close(fds[1]);
		return diag_set(d, err, "%s: fork: %s", what, strerror(-err));
	}
	if (out->pid == 0) {
		close(fds[0]);
		child_main(fds[1], fn, arg, answer, len);
	}
	close(fds[1]);
	out->fd = fds[0];
	return 0;
}

static int each_start(const char *what, child_each_fn fn, void *arg, size_t i,
		      void *answer, size_t len, struct each_child *out, struct diag *d)
{
	/* The child reads it from this frame, which it never leaves. */
	struct each_call call = { fn, arg, i };

	out->i = i;
	return start_child(what, each_trampoline, &call, answer, len, out, d);
}

/* Read child @c's answer (its pipe ends when it does) and reap it. */
static int finish_child(const char *what, struct each_child *c, void *answer, size_t len,
		       struct diag *d)
{
	struct child_header h;
	int werr, herr, aerr = 0;

	memset(&h, 0, sizeof(h));
	herr = fd_read_full(c->fd, &h, sizeof(h));
	if (!herr && !h.err)
		aerr = fd_read_full(c->fd, answer, len);
	close(c->fd);
	werr = wait_child(what, c->pid, d);
	if (werr < 0)
		return werr;
	if (!herr && h.err)
		return diag_set(d, h.err, "%s", h.msg[0] ? h.msg : strerror(-h.err));
	if (werr || herr || aerr)
		return diag_set(d, -EIO, "%s: the process ended without an answer%s",
				what, werr ? " (exit status 1)" : "");
	return 0;
}

int child_call(const char *what, child_fn fn, void *arg, void *answer,
	       size_t len, struct diag *d)
{
	return child_call_ticking(what, fn, arg, answer, len, NULL, d);
}

int child_call_ticking(const char *what, child_fn fn, void *arg, void *answer, size_t len,
		       const struct child_tick *tick, struct diag *d)
{
	struct each_child c;
	int err = start_child(what, fn, arg, answer, len, &c, d);

	if (err)
		return err;
	/* until the child writes or ends; any error here is finish_child's
	 * to find and say */
	while (tick && tick->fn) {
		struct pollfd pfd = { .fd = c.fd, .events = POLLIN };
		int n = poll(&pfd, 1, CHILD_TICK_MS);

		if (n > 0 || (n < 0 && errno != EINTR))
			break;
		tick->fn(tick->ctx);
	}
	return finish_child(what, &c, answer, len, d);
}

int child_call_each(const char *what, child_each_fn fn, void *arg, size_t n,
		    void *answers, size_t len, unsigned parallel, struct diag *d)
{
	struct each_child *run;
	struct pollfd *pfd;
	size_t next = 0, nrun = 0, first_bad = n;
	int err = 0;

	if (!parallel)
		parallel = 1;
	if (parallel > n)
		parallel = n ? (unsigned)n : 1;
	run = calloc(parallel, sizeof(*run));
	pfd = calloc(parallel, sizeof(*pfd));
	if (!run || !pfd) {
		free(run);
		free(pfd);
		return diag_set(d, -ENOMEM, "%s: out of memory", what);
	}
	while (next < n || nrun) {
		/* Keep @parallel children going; a failed fork ends the starts. */
		while (next < n && nrun < parallel && first_bad == n) {
			struct diag de = { "" };
			int e = each_start(what, fn, arg, next, (char *)answers + next * len, len,
					   &run[nrun], &de);

			if (e) {
				err = e;
				first_bad = next;
				*d = de;
				break;
			}
			next++;
			nrun++;
		}
		if (!nrun)
			break;
		for (size_t k = 0; k < nrun; k++)
			pfd[k] = (struct pollfd){ .fd = run[k].fd, .events = POLLIN };
		if (poll(pfd, nrun, -1) < 0) {
			if (errno == EINTR)
				continue;
			/* Cannot wait for one: take them in turn. */
			for (size_t k = 0; k < nrun; k++)
				pfd[k].revents = POLLIN;
		}
		for (size_t k = 0; k < nrun;) {
			struct diag de = { "" };
			int e;

			if (!pfd[k].revents) {
				k++;
				continue;
			}
			e = finish_child(what, &run[k], (char *)answers + run[k].i * len, len, &de);
			if (e && run[k].i < first_bad) {
				err = e;
				first_bad = run[k].i;
				*d = de;
			}
			run[k] = run[nrun - 1];
			pfd[k] = pfd[nrun - 1];
			nrun--;
		}
	}
	free(run);
	free(pfd);
	return err;
}
