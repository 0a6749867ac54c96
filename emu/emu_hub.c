/* SPDX-License-Identifier: MIT */
/*
 * The fork hub: gdrlab forks one process per rank and stays as their
 * parent. It relays their allgathers over socketpairs, collects their
 * results, and watches them: a rank that dies or reports a failure makes
 * the hub send every other rank an ABORT with the reason, which they see
 * on the same socket even in the middle of a collective (verbs_path
 * polls it beside the completion channel). A rank that does not reach a
 * barrier within the boot time-out of the first one there (hung, stopped,
 * stuck outside the data path, where the no-progress time-out cannot see
 * it) aborts the run alike, as the TCP hub's barriers do. Ranks that do
 * not leave within HUB_GRACE_MS after an abort are killed, so a run
 * always ends.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emu_memory.h"
#include "emu_rank.h"
#include "fd_io.h"
#include "vp_internal.h"

#define HUB_GRACE_MS 10000
/*
 * How long a rank polls for the barrier's release before it sleeps: as
 * long as the other ranks may take to check the last collective's bytes
 * and prepare the next. Longer than the data path's spin (which would
 * take CPU from rxe's kernel work), since no RDMA runs during a barrier:
 * a receiver released while its sender sleeps would time the sender's
 * wake-up (300 us under TCG; bench_emu.sh's 8 B medians of 77 and 397).
 */
#define HUB_BARRIER_SPIN_US 50000

struct kid {
	pid_t pid;
	int fd;          /* -1 once closed */
	bool reaped, result;
	char *gather;    /* its pending contribution */
	size_t glen;
};

struct hub {
	const struct emu_rank_args *a;
	unsigned n;
	size_t ncoll;
	struct kid *kids;
	struct emu_rank_coll *all;
	unsigned ngathered;
	double round_at;    /* when this barrier's first rank came */
	bool aborted;
	double abort_at;
	uint64_t oom_kills; /* emu_oom_kills() before the first fork */
	int err;
	struct diag *d;
};

/*
 * Bind forked rank @rank of @n to the @rank-th CPU this process may run
 * on, where there is one for each rank; else leave it unbound (ranks
 * share CPUs anyway). A hint: a failure leaves the rank unbound.
 */
static void bind_rank(unsigned rank, unsigned n)
{
	cpu_set_t allowed, one;
	unsigned k = 0;

	if (sched_getaffinity(0, sizeof(allowed), &allowed) ||
	    (unsigned)CPU_COUNT(&allowed) < n)
		return;
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &allowed) || k++ != rank)
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		(void)sched_setaffinity(0, sizeof(one), &one);
		return;
	}
}

static int child_main(const struct emu_rank_args *a, const char *device,
		      unsigned rank, unsigned n, int fd)
{
	struct emu_rank_args ca = *a;
	struct emu_rank_coll *out;
	struct diag d = { "" };
	struct boot b;
	int err;

	ca.device = device;
	ca.progress = NULL;
	if (a->bind_cpus)
		bind_rank(rank, n);
	boot_fork_init(&b, rank, n, fd);
	b.spin_us = a->spin_us ? HUB_BARRIER_SPIN_US : 0;
	out = calloc(a->plan->ncollectives + 1, sizeof(*out));
	err = out ? emu_rank_main(&ca, &b, out, &d) : -ENOMEM;
	if (!err)
		err = b.ops->results(&b, out, NULL,
				     a->plan->ncollectives * sizeof(*out), &d);
	free(out);
	b.ops->close(&b);
	return err ? 1 : 0;
}

static void hub_abort(struct hub *h, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void hub_abort(struct hub *h, int err, const char *fmt, ...)
{
	char msg[DIAG_MSG_MAX];
	struct boot_hdr hdr = { BOOT_MSG_ABORT, 0 };
	va_list ap;

	if (h->aborted)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	h->aborted = true;
	h->abort_at = vp_now_us();
	h->err = diag_set(h->d, err, "%s", msg);
	hdr.len = (unsigned)strlen(msg);
	for (unsigned r = 0; r < h->n; r++)
		if (h->kids[r].fd >= 0 &&
		    (fd_write_full(h->kids[r].fd, &hdr, sizeof(hdr)) ||
		     fd_write_full(h->kids[r].fd, msg, hdr.len)))
			continue; /* that one is gone already; reaped later */
}

/* Whether the kernel OOM-killed something since the ranks started: a
 * SIGKILL then is its (the count is system-wide; nothing else here
 * allocates while a run waits on its ranks). */
static bool oom_killed(const struct hub *h)
{
	uint64_t now = emu_oom_kills();

	return h->oom_kills != UINT64_MAX && now != UINT64_MAX && now > h->oom_kills;
}

static void kid_closed(struct hub *h, unsigned r)
{
	struct kid *k = &h->kids[r];
	int st = 0;

	close(k->fd);
	k->fd = -1;
	if (waitpid(k->pid, &st, 0) == k->pid)
		k->reaped = true;
	if (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL && oom_killed(h)) {
		char advice[160];

		emu_memory_advice(advice, sizeof(advice));
		hub_abort(h, -ENOMEM,
			  "rank %u (pid %d) was killed by the kernel's OOM killer: out of memory (each rank needs about %llu MiB; %s)",
			  r, (int)k->pid,
			  (unsigned long long)(emu_rank_memory(h->a->plan) >> 20), advice);
	} else if (WIFSIGNALED(st))
		hub_abort(h, -ECONNRESET, "rank %u (pid %d) was killed by signal %d (%s)",
			  r, (int)k->pid, WTERMSIG(st), strsignal(WTERMSIG(st)));
	else if (!k->result && WIFEXITED(st))
		hub_abort(h, -ECONNRESET, "rank %u (pid %d) exited with status %d before it finished",
			  r, (int)k->pid, WEXITSTATUS(st));
}

static void hub_send_all(struct hub *h)
{
	size_t len = h->kids[0].glen;
	struct boot_hdr hdr = { BOOT_MSG_ALL, (unsigned)(len * h->n) };

	for (unsigned r = 0; r < h->n; r++)
		if (h->kids[r].glen != len)
			return hub_abort(h, -EPROTO, "ranks disagree on a bootstrap message size");
	for (unsigned r = 0; r < h->n; r++) {
		if (fd_write_full(h->kids[r].fd, &hdr, sizeof(hdr)))
			continue; /* dead: its EOF reports it */
		for (unsigned q = 0; q < h->n; q++)
			if (fd_write_full(h->kids[r].fd, h->kids[q].gather, len))
				break;
	}
	for (unsigned r = 0; r < h->n; r++) {
		free(h->kids[r].gather);
		h->kids[r].gather = NULL;
		h->kids[r].glen = 0;
	}
	h->ngathered = 0;
}

static void kid_message(struct hub *h, unsigned r)
{
	struct kid *k = &h->kids[r];
	struct boot_hdr hdr;
	char *buf;

	if (fd_read_full(k->fd, &hdr, sizeof(hdr)))
		return kid_closed(h, r);
	buf = malloc(hdr.len ? hdr.len : 1);
	if (!buf || fd_read_full(k->fd, buf, hdr.len)) {
		free(buf);
		return kid_closed(h, r);
	}
	if (h->aborted) {
		free(buf); /* draining: the ranks are on their way out */
		return;
	}
	if (hdr.type == BOOT_MSG_RESULT &&
	    hdr.len == h->ncoll * sizeof(struct emu_rank_coll)) {
		memcpy(h->all + r * h->ncoll, buf, hdr.len);
		k->result = true;
	} else if (hdr.type == BOOT_MSG_GATHER && !k->gather &&
		   hdr.len >= sizeof(struct boot_sync_hdr)) {
		const struct boot_sync_hdr *sh = (const void *)buf;

		k->gather = buf;
		k->glen = hdr.len;
		buf = NULL;
		if (sh->err)
			return hub_abort(h, sh->err, "rank %u failed: %.*s", r,
					 DIAG_MSG_MAX - 32,
					 boot_strip_rank(sh->msg, r));
		if (h->ngathered++ == 0)
			h->round_at = vp_now_us();
		if (h->ngathered == h->n)
			hub_send_all(h);
	} else {
		hub_abort(h, -EPROTO, "rank %u sent a bad bootstrap message", r);
	}
	free(buf);
}

static unsigned live(const struct hub *h)
{
	unsigned n = 0;

	for (unsigned r = 0; r < h->n; r++)
		n += h->kids[r].fd >= 0;
	return n;
}

/*
 * Abort when the ranks missing from the barrier have had a->barrier_ms
 * since the first one came: naming them, with their pids, says which
 * process to look at (gdb -p, /proc/PID/stack).
 */
static void barrier_late(struct hub *h)
{
	char list[160] = "";
	bool *have;
	int32_t *pids;
	unsigned late = 0;

	if (h->aborted || !h->ngathered ||
	    vp_now_us() - h->round_at <= h->a->barrier_ms * 1e3)
		return;
	have = calloc(h->n, sizeof(*have));
	pids = calloc(h->n, sizeof(*pids));
	for (unsigned r = 0; have && pids && r < h->n; r++) {
		have[r] = h->kids[r].gather != NULL;
		pids[r] = h->kids[r].pid;
		late += !have[r];
	}
	if (have && pids)
		boot_missing_list(have, pids, 0, h->n, list, sizeof(list));
	else
		snprintf(list, sizeof(list), "(out of memory to name them)");
	free(have);
	free(pids);
	hub_abort(h, -ETIMEDOUT,
		  "rank%s %s did not reach the barrier within %g s of the first (GDRLAB_BOOT_TIMEOUT): hung, stopped, or one collective takes longer",
		  late > 1 ? "s" : "", list, h->a->barrier_ms / 1e3);
}

static void hub_loop(struct hub *h)
{
	struct pollfd *pfd = calloc(h->n, sizeof(*pfd));

	if (!pfd)
		return hub_abort(h, -ENOMEM, "out of memory");
	while (live(h)) {
		unsigned m = 0;
		int ready;

		for (unsigned r = 0; r < h->n; r++)
			if (h->kids[r].fd >= 0)
				pfd[m++] = (struct pollfd){ .fd = h->kids[r].fd, .events = POLLIN };
		ready = poll(pfd, m, 200);
		if (ready < 0 && errno != EINTR) {
			hub_abort(h, -errno, "poll: %s", strerror(errno));
			break;
		}
		for (unsigned r = 0, i = 0; ready > 0 && r < h->n; r++) {
			if (h->kids[r].fd < 0)
				continue;
			if (pfd[i++].revents)
				kid_message(h, r);
		}
		barrier_late(h);
		if (h->aborted && vp_now_us() - h->abort_at > HUB_GRACE_MS * 1e3) {
			for (unsigned r = 0; r < h->n; r++)
				if (h->kids[r].fd >= 0)
					kill(h->kids[r].pid, SIGKILL);
			h->abort_at = vp_now_us(); /* their EOFs come next */
		}
	}
	free(pfd);
}

int emu_hub_run(const struct emu_rank_args *a, const char *const *devices,
		struct emu_rank_coll *all, struct diag *d)
{
	struct hub h = { .a = a, .n = a->plan->nranks,
			 .ncoll = a->plan->ncollectives, .all = all, .d = d,
			 .oom_kills = emu_oom_kills() };
	unsigned started = 0;

	h.kids = calloc(h.n, sizeof(*h.kids));
	if (!h.kids)
		return diag_set(d, -ENOMEM, "out of memory");
	for (unsigned r = 0; r < h.n; r++)
		h.kids[r].fd = -1;
	fflush(stdout);
	fflush(stderr);
	for (; started < h.n; started++) {
		int sv[2];
		pid_t pid;

		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
			hub_abort(&h, -errno, "socketpair: %s", strerror(errno));
			break;
		}
		pid = fork();
		if (pid < 0) {
			hub_abort(&h, -errno, "fork: %s", strerror(errno));
			close(sv[0]);
			close(sv[1]);
			break;
		}
		if (pid == 0) {
			/* the child keeps only its own end */
			for (unsigned r = 0; r < started; r++)
				close(h.kids[r].fd);
			close(sv[0]);
			free(h.kids);
			_exit(child_main(a, devices[started], started, h.n, sv[1]));
		}
		close(sv[1]);
		h.kids[started] = (struct kid){ .pid = pid, .fd = sv[0] };
	}
	hub_loop(&h);
	for (unsigned r = 0; r < started; r++) {
		if (!h.kids[r].reaped)
			waitpid(h.kids[r].pid, NULL, 0);
		free(h.kids[r].gather);
	}
	for (unsigned r = 0; !h.err && r < started; r++)
		if (!h.kids[r].result)
			h.err = diag_set(d, -EPROTO, "rank %u ended without results", r);
	free(h.kids);
	return h.err;
}
