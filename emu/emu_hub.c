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
 *
 * The hub itself never waits on one rank without a bound: a message a
 * rank began and did not finish (stopped between its header and its
 * payload) is read for the boot time-out at most, a write to a rank that
 * stopped reading gives up after as long (SO_SNDTIMEO), and a rank that
 * closed its socket is reaped without blocking, killed when it does not
 * exit within HUB_GRACE_MS. Before 2026-12-05 each of these waited for
 * ever, and a rank stopped in the middle of a message hung the whole run
 * (tests/emu/test_emu_faults.sh, 2c).
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
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emu_hub.h"
#include "emu_memory.h"
#include "fd_io.h"
#include "vp_internal.h"

#define HUB_GRACE_MS 10000
#define HUB_REAP_MS 1000
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
	bool killed;     /* by the hub: its abort (or result) says why */
	double closed_at; /* when fd was closed; the grace runs from there */
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
void emu_hub_die_with_parent(void)
{
	pid_t parent = getppid();

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(1); /* it died before the signal was armed */
}

/* Writes to a rank give up after @ms (fd_write_full: -EAGAIN). A hint,
 * as on the TCP hub's sockets: without it a write may block. */
static void set_send_timeout(int fd, int ms)
{
	struct timeval tv = { .tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000 };

	(void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

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
	emu_hub_die_with_parent();
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

/*
 * Say why rank @r ended, once its socket is drained and it is reaped
 * (status @st): a signal, the OOM killer, or an exit before its results.
 * One the hub killed is explained by the abort that came first.
 */
static void kid_judge(struct hub *h, unsigned r, int st)
{
	struct kid *k = &h->kids[r];

	if (k->killed)
		return;
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

/* Reap rank @r, whose socket is closed, if it has exited. */
static bool kid_reap(struct hub *h, unsigned r)
{
	struct kid *k = &h->kids[r];
	int st = 0;

	if (!k->reaped && waitpid(k->pid, &st, WNOHANG) == k->pid) {
		k->reaped = true;
		kid_judge(h, r, st);
	}
	return k->reaped;
}

/* Stop listening to rank @r; the loop reaps it, or kills it after the
 * grace (hub_reap). */
static void kid_drop(struct hub *h, unsigned r)
{
	close(h->kids[r].fd);
	h->kids[r].fd = -1;
	h->kids[r].closed_at = vp_now_us();
}

/*
 * Rank @r's socket reached its end. A rank closes it as it exits, a
 * moment before the kernel lets it be reaped: wait that moment
 * (HUB_REAP_MS at most), so that its death is reported before its peers'
 * reactions to it.
 */
static void kid_closed(struct hub *h, unsigned r)
{
	kid_drop(h, r);
	while (!kid_reap(h, r) &&
	       vp_now_us() - h->kids[r].closed_at < HUB_REAP_MS * 1e3)
		usleep(1000);
}

/*
 * Rank @r has not taken a message for the boot time-out (SO_SNDTIMEO:
 * its socket's buffer stayed full): hung or stopped. What it has of the
 * message is out of step, so the hub stops talking to it, as to one that
 * stalled mid-message.
 */
static void kid_deaf(struct hub *h, unsigned r)
{
	kid_drop(h, r); /* first: the abort is not written to it */
	hub_abort(h, -ETIMEDOUT,
		  "rank %u (pid %d) took nothing from the hub for %g s (GDRLAB_BOOT_TIMEOUT): hung or stopped",
		  r, (int)h->kids[r].pid, h->a->barrier_ms / 1e3);
}

static void hub_send_all(struct hub *h)
{
	size_t len = h->kids[0].glen;
	struct boot_hdr hdr = { BOOT_MSG_ALL, (unsigned)(len * h->n) };

	for (unsigned r = 0; r < h->n; r++)
		if (h->kids[r].glen != len)
			return hub_abort(h, -EPROTO, "ranks disagree on a bootstrap message size");
	for (unsigned r = 0; r < h->n; r++) {
		int err = fd_write_full(h->kids[r].fd, &hdr, sizeof(hdr));

		for (unsigned q = 0; !err && q < h->n; q++)
			err = fd_write_full(h->kids[r].fd, h->kids[q].gather, len);
		if (err == -EAGAIN)
			kid_deaf(h, r);
		/* else a rank that is gone: its end of file reports it */
	}
	for (unsigned r = 0; r < h->n; r++) {
		free(h->kids[r].gather);
		h->kids[r].gather = NULL;
		h->kids[r].glen = 0;
	}
	h->ngathered = 0;
}

/*
 * Rank @r stopped in the middle of a message: the rest of it may never
 * come, and what does would be read out of step, so the hub stops
 * listening to it, aborts the run and kills it after the grace.
 */
static void kid_stalled(struct hub *h, unsigned r)
{
	kid_drop(h, r); /* first: the abort is not written to it */
	hub_abort(h, -ETIMEDOUT,
		  "rank %u (pid %d) stopped in the middle of a message to the hub: no more of it within %g s (GDRLAB_BOOT_TIMEOUT): hung or stopped",
		  r, (int)h->kids[r].pid, h->a->barrier_ms / 1e3);
}

/* Read rank @r's next message, which poll says has begun. */
static void kid_message(struct hub *h, unsigned r)
{
	struct kid *k = &h->kids[r];
	int64_t by = fd_now_ms() + h->a->barrier_ms;
	struct boot_hdr hdr;
	char *buf;
	int err;

	err = fd_read_by(k->fd, &hdr, sizeof(hdr), by);
	buf = err ? NULL : malloc(hdr.len ? hdr.len : 1);
	if (buf)
		err = fd_read_by(k->fd, buf, hdr.len, by);
	if (err || !buf) {
		free(buf);
		return err == -ETIMEDOUT ? kid_stalled(h, r) : kid_closed(h, r);
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
		kid_drop(h, r); /* what follows it cannot be read in step */
	}
	free(buf);
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

static int hub_grace_ms(const struct hub *h)
{
	return h->a->grace_ms > 0 ? h->a->grace_ms : HUB_GRACE_MS;
}

static bool all_reaped(const struct hub *h)
{
	for (unsigned r = 0; r < h->n; r++)
		if (!h->kids[r].reaped)
			return false;
	return true;
}

static void kid_kill(struct hub *h, unsigned r)
{
	kill(h->kids[r].pid, SIGKILL);
	h->kids[r].killed = true;
}

/*
 * Reap the ranks whose sockets closed, and kill the ones that outstay a
 * grace (hub_grace_ms): every rank after an abort, and one that closed its
 * socket without exiting for as long.
 */
static void hub_reap(struct hub *h)
{
	double now = vp_now_us();

	for (unsigned r = 0; r < h->n; r++) {
		struct kid *k = &h->kids[r];

		if (k->fd >= 0 || kid_reap(h, r) || k->killed ||
		    now - k->closed_at <= hub_grace_ms(h) * 1e3)
			continue;
		if (!k->result)
			hub_abort(h, -ETIMEDOUT,
				  "rank %u (pid %d) closed its connection to the hub but did not exit within %g s",
				  r, (int)k->pid, hub_grace_ms(h) / 1e3);
		kid_kill(h, r);
	}
	if (h->aborted && now - h->abort_at > hub_grace_ms(h) * 1e3) {
		for (unsigned r = 0; r < h->n; r++)
			if (!h->kids[r].reaped)
				kid_kill(h, r);
		h->abort_at = now; /* their ends of file come next */
	}
}

static void hub_loop(struct hub *h)
{
	struct pollfd *pfd = calloc(h->n, sizeof(*pfd));

	if (!pfd)
		return hub_abort(h, -ENOMEM, "out of memory");
	while (!all_reaped(h)) {
		int ready;

		/* one entry a rank; poll skips the closed ones' -1 */
		for (unsigned r = 0; r < h->n; r++)
			pfd[r] = (struct pollfd){ .fd = h->kids[r].fd, .events = POLLIN };
		ready = poll(pfd, h->n, 200);
		if (ready < 0 && errno != EINTR) {
			hub_abort(h, -errno, "poll: %s", strerror(errno));
			break;
		}
		/* a message may close another rank's socket (kid_deaf) */
		for (unsigned r = 0; ready > 0 && r < h->n; r++)
			if (pfd[r].revents && h->kids[r].fd >= 0)
				kid_message(h, r);
		barrier_late(h);
		hub_reap(h);
	}
	free(pfd);
}

int emu_hub_run(const struct emu_rank_args *a, const char *const *devices,
		struct emu_rank_coll *all, struct diag *d)
{
	return emu_hub_run_ranks(a, devices, child_main, all, d);
}

int emu_hub_run_ranks(const struct emu_rank_args *a,
		      const char *const *devices, emu_hub_rank_fn *rank_main,
		      struct emu_rank_coll *all, struct diag *d)
{
	struct hub h = { .a = a, .n = a->plan->nranks,
			 .ncoll = a->plan->ncollectives, .all = all, .d = d,
			 .oom_kills = emu_oom_kills() };
	unsigned started = 0;

	h.kids = calloc(h.n, sizeof(*h.kids));
	if (!h.kids)
		return diag_set(d, -ENOMEM, "out of memory");
	for (unsigned r = 0; r < h.n; r++) /* none until forked */
		h.kids[r] = (struct kid){ .fd = -1, .reaped = true };
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
			_exit(rank_main(a, devices[started], started, h.n, sv[1]));
		}
		close(sv[1]);
		h.kids[started] = (struct kid){ .pid = pid, .fd = sv[0] };
		set_send_timeout(sv[0], a->barrier_ms);
	}
	hub_loop(&h);
	for (unsigned r = 0; r < started; r++) {
		if (!h.kids[r].reaped) { /* the loop failed: end them */
			kill(h.kids[r].pid, SIGKILL);
			waitpid(h.kids[r].pid, NULL, 0);
		}
		if (h.kids[r].fd >= 0)
			close(h.kids[r].fd);
		free(h.kids[r].gather);
	}
	for (unsigned r = 0; !h.err && r < started; r++)
		if (!h.kids[r].result)
			h.err = diag_set(d, -EPROTO, "rank %u ended without results", r);
	free(h.kids);
	return h.err;
}
