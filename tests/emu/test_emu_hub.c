/* SPDX-License-Identifier: MIT */
/*
 * The fork hub's bounds (emu/emu_hub.c), without RDMA: the hub forks two
 * ranks that run the bootstrap's real messages (boot.c's fork ops) and
 * misbehave at chosen points: stop in the middle of a message, stop
 * before the barrier, stop without reading, leave early, close their
 * socket and linger. Each run must end with the reason named, the
 * misbehaving rank's pid in it, and every process reaped. Criterion's
 * time-out (60 s) turns a hang, which each of these was or could be
 * before 2026-12-05, into a failure.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "boot.h"
#include "emu_hub.h"
#include "plan.h"

enum misdeed {
	NONE,
	STOP_MID_MESSAGE, /* rank 1: a barrier's header, then SIGSTOP */
	STOP_BEFORE,      /* rank 1: SIGSTOP before its first barrier */
	STOP_UNREAD,      /* rank 1: its (large) part of the barrier, then
			   * SIGSTOP before it reads the release */
	EXIT_EARLY,       /* rank 1: exit status 3 before its barrier */
	LINGER_NO_RESULT, /* rank 1: the barrier, then closes its socket
			   * and sleeps, with no results sent */
	LINGER_DONE,      /* rank 1: everything, then closes and sleeps */
};

static enum misdeed misdeed;
static size_t part = 64; /* each rank's part of the barrier, bytes */

static int rank_body(const struct emu_rank_args *a, const char *device,
		     unsigned rank, unsigned n, int fd)
{
	struct emu_rank_coll out = { 0 };
	struct diag d = { "" };
	struct boot b;
	char *mine = calloc(1, part), *all = calloc(n, part);
	bool bad = rank == 1;

	(void)device;
	emu_hub_die_with_parent(); /* a test that times out leaves none */
	boot_fork_init(&b, rank, n, fd);
	if (bad && misdeed == STOP_BEFORE)
		raise(SIGSTOP);
	if (bad && misdeed == EXIT_EARLY)
		return 3;
	if (bad && misdeed == STOP_MID_MESSAGE) {
		struct boot_hdr h = { BOOT_MSG_GATHER, 4096 };

		(void)!write(fd, &h, sizeof(h));
		raise(SIGSTOP);
	}
	if (bad && misdeed == STOP_UNREAD) {
		/* boot_sync's record: its header, then the part, aligned */
		size_t rec = ((sizeof(struct boot_sync_hdr) + 15) & ~(size_t)15) + part;
		struct boot_hdr h = { BOOT_MSG_GATHER, (unsigned)rec };
		char *r = calloc(1, rec);

		(void)!write(fd, &h, sizeof(h));
		(void)!write(fd, r, rec);
		raise(SIGSTOP);
	}
	if (boot_sync(&b, 0, NULL, mine, all, part, &d))
		return 1;
	if (bad && misdeed == LINGER_NO_RESULT) {
		b.ops->close(&b);
		sleep(50);
	}
	if (b.ops->results(&b, &out, NULL, a->plan->ncollectives * sizeof(out), &d))
		return 1;
	b.ops->close(&b);
	if (bad && misdeed == LINGER_DONE)
		sleep(50);
	return 0;
}

/* Run two ranks; the error, and the message in @d */
static int run_hub(enum misdeed m, struct diag *d)
{
	static struct plan p = { .nranks = 2, .ncollectives = 1 };
	struct emu_rank_args a = { .plan = &p, .barrier_ms = 300,
				   .grace_ms = 500 };
	const char *devices[2] = { "none", "none" };
	struct emu_rank_coll all[2];
	int err;

	misdeed = m;
	err = emu_hub_run_ranks(&a, devices, rank_body, all, d);
	/* every rank reaped: nothing left for this test process to wait on */
	cr_assert_eq(waitpid(-1, NULL, WNOHANG), -1, "a rank was left unreaped");
	cr_assert_eq(errno, ECHILD);
	return err;
}

/* A run with rank 1 misbehaving as @m ends with @want, its message
 * naming rank 1's pid and saying @what (NULL: a run that stands). */
static void ends(enum misdeed m, int want, const char *what)
{
	struct diag d = { "" };

	cr_assert_eq(run_hub(m, &d), want, "%s", d.msg);
	if (!what)
		return;
	cr_assert(strstr(d.msg, what), "'%s' lacks '%s'", d.msg, what);
	cr_assert(strstr(d.msg, "rank 1 (pid "), "'%s' does not name rank 1's pid", d.msg);
}

TestSuite(emu_hub, .timeout = 60);

Test(emu_hub, ranks_that_behave_finish)
{
	ends(NONE, 0, NULL);
}

Test(emu_hub, a_rank_stopped_in_the_middle_of_a_message)
{
	ends(STOP_MID_MESSAGE, -ETIMEDOUT,
	     "stopped in the middle of a message to the hub: no more of it within 0.3 s");
}

Test(emu_hub, a_rank_stopped_before_the_barrier)
{
	ends(STOP_BEFORE, -ETIMEDOUT, "did not reach the barrier within 0.3 s of the first");
}

/* The release of a barrier of two 1 MiB parts does not fit a socket's
 * buffer (208 KiB by default): a rank that does not read it blocks the
 * hub's write until SO_SNDTIMEO. */
Test(emu_hub, a_rank_that_stops_reading)
{
	part = 1 << 20;
	ends(STOP_UNREAD, -ETIMEDOUT, "took nothing from the hub for 0.3 s");
}

Test(emu_hub, a_rank_that_exits_early)
{
	ends(EXIT_EARLY, -ECONNRESET, "exited with status 3 before it finished");
}

Test(emu_hub, a_rank_that_closes_without_results_and_lingers)
{
	ends(LINGER_NO_RESULT, -ETIMEDOUT,
	     "closed its connection to the hub but did not exit within 0.5 s");
}

/* Its results are in: the hub ends it after the grace and the run stands. */
Test(emu_hub, a_rank_that_finished_and_lingers)
{
	ends(LINGER_DONE, 0, NULL);
}
