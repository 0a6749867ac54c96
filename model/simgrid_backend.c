/* SPDX-License-Identifier: MIT */
/*
 * The model backend's ops table and its process wrapper.
 *
 * SimGrid cannot be initialised twice in one process (the second platform
 * load aborts), and gdrlab runs several plans per process (compare, sweep,
 * tests). So every simulation runs in a forked child that writes its
 * results to a pipe and leaves with _exit (no atexit handlers, no buffered
 * output of the parent written twice: stdio is flushed before the fork). A
 * child that dies (SimGrid aborts on what it cannot handle) closes the pipe:
 * the parent reads a short answer, reaps the child and reports a clean
 * error naming the signal, never hangs.
 */
#include "simgrid_internal.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static int cmp_job(const void *a, const void *b)
{
	const struct sgm_job *x = a, *y = b;

	if (x->pattern != y->pattern)
		return (x->pattern > y->pattern) - (x->pattern < y->pattern);
	return (x->bytes > y->bytes) - (x->bytes < y->bytes);
}

/* One job per distinct (pattern, bytes), sorted. */
static int jobs_build(const struct plan *p, struct sgm_job **out, size_t *n)
{
	struct sgm_job *j = malloc((p->ncollectives ? p->ncollectives : 1) * sizeof(*j));
	size_t k = 0;

	if (!j)
		return -ENOMEM;
	for (size_t i = 0; i < p->ncollectives; i++) {
		j[i].pattern = p->collectives[i].pattern;
		j[i].bytes = p->collectives[i].bytes;
	}
	qsort(j, p->ncollectives, sizeof(*j), cmp_job);
	for (size_t i = 0; i < p->ncollectives; i++)
		if (k == 0 || cmp_job(&j[k - 1], &j[i]))
			j[k++] = j[i];
	*out = j;
	*n = k;
	return 0;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *b = buf;

	while (len) {
		ssize_t w = write(fd, b, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -EIO;
		b += w;
		len -= (size_t)w;
	}
	return 0;
}

/* Bytes read before EOF or an error. */
static size_t read_all(int fd, void *buf, size_t len)
{
	char *b = buf;
	size_t got = 0;

	while (got < len) {
		ssize_t r = read(fd, b + got, len - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	return got;
}

static void child_main(int fd, const struct plan *p,
		       const struct model_options *o,
		       const struct sgm_job *jobs, size_t njobs)
{
	struct sgm_result *res = calloc(njobs ? njobs : 1, sizeof(*res));
	struct sgm_header h = { 0 };

	/* Fault injection (tests/unit/test_model.c): die as SimGrid does
	 * when it aborts, so that the parent's error path runs. */
	if (getenv("GDRLAB_MODEL_CRASH"))
		abort();
	if (!res) {
		h.err = -ENOMEM;
		snprintf(h.msg, sizeof(h.msg), "model backend: out of memory");
	} else {
		sgm_simulate(p, o, jobs, njobs, res, &h);
	}
	if (write_all(fd, &h, sizeof(h)) ||
	    (!h.err && write_all(fd, res, njobs * sizeof(*res))))
		_exit(1);
	_exit(h.err ? 1 : 0);
}

static int wait_child(pid_t pid, struct diag *d)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return diag_set(d, -errno, "model backend: waitpid: %s",
					strerror(errno));
	if (WIFSIGNALED(status))
		return diag_set(d, -EIO,
				"model backend: the simulation process died of signal %d (%s)",
				WTERMSIG(status), strsignal(WTERMSIG(status)));
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return diag_set(d, -EIO,
				"model backend: the simulation process failed (exit status %d)",
				WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return 0;
}

static void fill_record(struct coll_record *c, const struct sgm_result *r)
{
	c->time_us = r->time_us;
	memcpy(c->stage_us, r->stage_us, sizeof(c->stage_us));
	memcpy(c->stage_bytes, r->stage_bytes, sizeof(c->stage_bytes));
	c->nspans = r->nspans;
	memcpy(c->spans, r->spans, sizeof(c->spans));
}

int model_simulate(const struct plan *p, const struct model_options *o,
		   struct records *rec, struct model_stats *stats,
		   struct diag *d)
{
	static const struct model_options defaults = { 0 };
	struct sgm_result *res = NULL;
	struct sgm_header h;
	struct sgm_job *jobs = NULL;
	size_t njobs = 0, got;
	int fds[2], err, werr;
	pid_t pid;

	if (!o)
		o = &defaults;
	err = jobs_build(p, &jobs, &njobs);
	if (!err) {
		res = calloc(njobs ? njobs : 1, sizeof(*res));
		if (!res)
			err = -ENOMEM;
	}
	if (err) {
		diag_set(d, err, "model backend: out of memory");
		goto out_free;
	}
	if (pipe(fds)) {
		err = diag_set(d, -errno, "model backend: pipe: %s", strerror(errno));
		goto out_free;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		err = diag_set(d, -errno, "model backend: fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		goto out_free;
	}
	if (pid == 0) {
		close(fds[0]);
		child_main(fds[1], p, o, jobs, njobs);
	}
	close(fds[1]);
	memset(&h, 0, sizeof(h));
	got = read_all(fds[0], &h, sizeof(h));
	if (got == sizeof(h) && !h.err)
		got += read_all(fds[0], res, njobs * sizeof(*res));
	close(fds[0]);
	werr = wait_child(pid, d);
	if (got == sizeof(h) && h.err) {
		err = diag_set(d, h.err, "%s", h.msg);
		goto out_free;
	}
	if (werr || got != sizeof(h) + njobs * sizeof(*res)) {
		err = werr ? werr :
			     diag_set(d, -EIO, "model backend: short answer from the simulation process");
		goto out_free;
	}
	for (size_t i = 0; i < p->ncollectives; i++) {
		struct sgm_job key = { p->collectives[i].pattern,
				       p->collectives[i].bytes };
		struct sgm_job *j = bsearch(&key, jobs, njobs, sizeof(*jobs), cmp_job);

		fill_record(&rec->coll[i], &res[j - jobs]);
		records_progress(rec, i + 1);
	}
	if (stats)
		*stats = h.stats;
	err = 0;
out_free:
	free(res);
	free(jobs);
	return err;
}

static int model_run(const struct plan *p, struct records *rec, struct diag *d)
{
	return model_simulate(p, NULL, rec, NULL, d);
}

const struct backend_ops model_backend_ops = {
	.size = sizeof(struct backend_ops),
	.name = "model",
	.description = "SimGrid: flows over PCIe and network links, max-min shared",
	.caps = BACKEND_CAP_SIM_CLOCK,
	.run = model_run,
};
