/* SPDX-License-Identifier: MIT */
/*
 * The TCP bootstrap (emu/boot_tcp.c) and launcher detection (emu/launch.c),
 * without RDMA: ranks are processes of this test, forked, on 127.0.0.1.
 * What srun adds (the environment, the real launch) is checked on a real
 * Slurm in tests/emu/test_emu_srun.sh.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "boot.h"
#include "launch.h"

/* ---- launch: host lists, addresses, ports, detection ---- */

static void first_is(const char *list, const char *want)
{
	char h[64];

	cr_assert_eq(emu_launch_first_host(list, h, sizeof(h)), 0, "%s", list);
	cr_assert_str_eq(h, want, "%s", list);
}

Test(emu_launch, first_host)
{
	char h[8];

	first_is("vm", "vm");
	first_is("a,b", "a");
	first_is("gpu[003-010,012],login1", "gpu003");
	first_is("n[12,3-4]", "n12");
	first_is("rack[1-2]-n[07,09]x", "rack1-n07x");
	cr_assert_eq(emu_launch_first_host("", h, sizeof(h)), -EINVAL);
	cr_assert_eq(emu_launch_first_host("x[1-2", h, sizeof(h)), -EINVAL);
	cr_assert_eq(emu_launch_first_host("x]", h, sizeof(h)), -EINVAL);
	cr_assert_eq(emu_launch_first_host("x[[1]]", h, sizeof(h)), -EINVAL);
	cr_assert_eq(emu_launch_first_host("averylongname", h, sizeof(h)), -ENAMETOOLONG);
}

Test(emu_launch, parse_addr)
{
	char h[64];
	unsigned port = 0;

	cr_assert_eq(emu_launch_parse_addr("node1:20001", h, sizeof(h), &port), 0);
	cr_assert_str_eq(h, "node1");
	cr_assert_eq(port, 20001);
	cr_assert_eq(emu_launch_parse_addr("[fe80::1]:5", h, sizeof(h), &port), 0);
	cr_assert_str_eq(h, "fe80::1");
	cr_assert_eq(port, 5);
	static const char *const bad[] = { "::1:5", "h:", "h:0", "h:65536", ":5",
					   "h:12x", "h", "[::1:5", "[]:5", "h:-1" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_eq(emu_launch_parse_addr(bad[i], h, sizeof(h), &port), -EINVAL,
			     "%s", bad[i]);
}

Test(emu_launch, slurm_port)
{
	for (unsigned long job = 1; job < 3000; job += 7) {
		unsigned p = emu_launch_slurm_port(job, 0);

		cr_assert(p >= EMU_SLURM_PORT_BASE &&
			  p < EMU_SLURM_PORT_BASE + EMU_SLURM_PORT_SPAN);
		cr_assert_neq(p, emu_launch_slurm_port(job, 1));
		cr_assert_neq(p, emu_launch_slurm_port(job + 1, 0));
	}
}

static void clear_env(void)
{
	static const char *const names[] = {
		"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK",
		"OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_STEP_ID", "SLURM_PROCID",
		"SLURM_NTASKS", "SLURM_STEP_NUM_TASKS", "SLURM_LOCALID",
		"OMPI_COMM_WORLD_LOCAL_SIZE", "SLURM_STEP_NUM_NODES",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		unsetenv(names[i]);
}

Test(emu_launch, detect, .init = clear_env)
{
	struct emu_launch l;
	struct diag d = { "" };

	cr_assert_eq(emu_launch_detect(&l, &d), 0);
	cr_assert_eq(l.kind, EMU_LAUNCH_NONE);

	/* an sbatch script: SLURM_PROCID and SLURM_NTASKS, no step */
	setenv("SLURM_PROCID", "0", 1);
	setenv("SLURM_NTASKS", "3", 1);
	cr_assert_eq(emu_launch_detect(&l, &d), 0);
	cr_assert_eq(l.kind, EMU_LAUNCH_NONE);

	/* a one-task step (srun --pty bash) */
	setenv("SLURM_STEP_ID", "0", 1);
	setenv("SLURM_STEP_NUM_TASKS", "1", 1);
	cr_assert_eq(emu_launch_detect(&l, &d), 0);
	cr_assert_eq(l.kind, EMU_LAUNCH_NONE);

	/* srun -n 4, task 3, second on its node */
	setenv("SLURM_STEP_NUM_TASKS", "4", 1);
	setenv("SLURM_PROCID", "3", 1);
	setenv("SLURM_LOCALID", "1", 1);
	cr_assert_eq(emu_launch_detect(&l, &d), 0);
	cr_assert_eq(l.kind, EMU_LAUNCH_SRUN);
	cr_assert_str_eq(l.name, "srun");
	cr_assert_eq(l.rank, 3);
	cr_assert_eq(l.size, 4);
	cr_assert_eq(l.local_rank, 1);
	cr_assert(l.one_host, "no SLURM_STEP_NUM_NODES: one node");
	setenv("SLURM_STEP_NUM_NODES", "2", 1);
	cr_assert_eq(emu_launch_detect(&l, &d), 0);
	cr_assert(!l.one_host, "srun -N 2");

	/* mpirun inside an allocation: its ranks see the step of its daemons */
	setenv("OMPI_COMM_WORLD_SIZE", "8", 1);
	setenv("OMPI_COMM_WORLD_RANK", "5", 1);
	setenv("OMPI_COMM_WORLD_LOCAL_RANK", "2", 1);
	cr_assert_eq(emu_launch_detect(&l, &d), 0);
	cr_assert_eq(l.kind, EMU_LAUNCH_MPIRUN);
	cr_assert_eq(l.rank, 5);
	cr_assert_eq(l.size, 8);
	cr_assert_eq(l.local_rank, 2);
	cr_assert(l.one_host, "no OMPI_COMM_WORLD_LOCAL_SIZE: all local");
	setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "4", 1);
	cr_assert_eq(emu_launch_detect(&l, &d), 0);
	cr_assert(!l.one_host, "8 ranks, 4 on this host");
	setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "8", 1);
	cr_assert_eq(emu_launch_detect(&l, &d), 0);
	cr_assert(l.one_host, "8 ranks, all on this host");

	/* a sweep's point process forgets it: its runs fork their ranks */
	emu_launch_forget();
	cr_assert_eq(emu_launch_detect(&l, &d), 0);
	cr_assert_eq(l.kind, EMU_LAUNCH_NONE);
	setenv("SLURM_STEP_ID", "0", 1);

	unsetenv("OMPI_COMM_WORLD_SIZE");
	setenv("SLURM_PROCID", "x", 1);
	cr_assert_eq(emu_launch_detect(&l, &d), -EINVAL);
	cr_assert_str_eq(d.msg, "SLURM_PROCID is 'x', not a number");
}

/* ---- the TCP bootstrap ---- */

/* A port nobody listens on right now (the kernel's pick, released). */
static unsigned free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	cr_assert(fd >= 0);
	cr_assert_eq(bind(fd, (void *)&a, sizeof(a)), 0);
	cr_assert_eq(getsockname(fd, (void *)&a, &len), 0);
	close(fd);
	return ntohs(a.sin_port);
}

static struct boot_tcp_cfg cfg(unsigned port, int timeout_ms)
{
	return (struct boot_tcp_cfg){ .host = "127.0.0.1", .port = port,
				      .from = "test", .key = 42,
				      .timeout_ms = timeout_ms };
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Run @fn(rank, size, port) in a child; its exit status says how it went. */
static pid_t spawn(int (*fn)(unsigned, unsigned, unsigned), unsigned rank,
		   unsigned size, unsigned port)
{
	pid_t pid = fork();

	cr_assert(pid >= 0);
	if (pid == 0)
		_exit(fn(rank, size, port));
	return pid;
}

static int exit_of(pid_t pid)
{
	int st = 0;

	cr_assert_eq(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Two barriers carrying each rank's number, then the results; 0 when every
 * rank saw every number. */
static int good_rank(unsigned rank, unsigned size, unsigned port)
{
	struct boot_tcp_cfg c = cfg(port, 5000);
	struct diag d = { "" };
	unsigned all[8] = { 0 }, mine;
	struct boot b;

	if (boot_tcp_init(&b, rank, size, &c, &d))
		return 10;
	for (unsigned round = 0; round < 2; round++) {
		mine = rank * 100 + round;
		if (boot_sync(&b, 0, NULL, &mine, all, sizeof(mine), &d))
			return 11;
		for (unsigned r = 0; r < size; r++)
			if (all[r] != r * 100 + round)
				return 12;
	}
	mine = rank + 7;
	memset(all, 0, sizeof(all));
	if (b.ops->results(&b, &mine, all, sizeof(mine), &d))
		return 13;
	for (unsigned r = 0; r < size; r++)
		if (all[r] != r + 7)
			return 14;
	b.ops->close(&b);
	return 0;
}

Test(emu_boot_tcp, allgather_four_ranks)
{
	unsigned port = free_port();
	pid_t kids[3];

	/* the others first: they retry until rank 0 listens */
	for (unsigned r = 1; r < 4; r++)
		kids[r - 1] = spawn(good_rank, r, 4, port);
	usleep(300000);
	cr_assert_eq(good_rank(0, 4, port), 0);
	for (unsigned r = 1; r < 4; r++)
		cr_assert_eq(exit_of(kids[r - 1]), 0, "rank %u", r);
}

Test(emu_boot_tcp, twice_on_one_port)
{
	unsigned port = free_port();

	/* gdrlab compare runs the backend twice in one process */
	for (int run = 0; run < 2; run++) {
		pid_t kid = spawn(good_rank, 1, 2, port);

		cr_assert_eq(good_rank(0, 2, port), 0, "run %d", run);
		cr_assert_eq(exit_of(kid), 0, "run %d", run);
	}
}

Test(emu_boot_tcp, stranger_is_ignored)
{
	unsigned port = free_port();
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	pid_t zero = spawn(good_rank, 0, 2, port), one;
	char junk[128];
	int fd = -1;

	/* something else on the port first: a scan, another program */
	memset(junk, 'x', sizeof(junk));
	for (int i = 0; i < 200 && fd < 0; i++) {
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (connect(fd, (void *)&a, sizeof(a))) {
			close(fd);
			fd = -1;
			usleep(10000);
		}
	}
	cr_assert(fd >= 0);
	cr_assert_eq(send(fd, junk, sizeof(junk), MSG_NOSIGNAL), (ssize_t)sizeof(junk));
	one = spawn(good_rank, 1, 2, port);
	cr_assert_eq(exit_of(zero), 0);
	cr_assert_eq(exit_of(one), 0);
	close(fd);
}

Test(emu_boot_tcp, no_rank_0)
{
	struct boot_tcp_cfg c = cfg(free_port(), 400);
	struct diag d = { "" };
	struct boot b;
	double t0 = now_s();
	char want[128];

	cr_assert_eq(boot_tcp_init(&b, 1, 2, &c, &d), -ETIMEDOUT);
	cr_assert_lt(now_s() - t0, 2.0);
	snprintf(want, sizeof(want),
		 "rank 1: cannot reach rank 0 at 127.0.0.1:%u (test) within 0.4 s", c.port);
	cr_assert(!strncmp(d.msg, want, strlen(want)), "%s", d.msg);
	cr_assert(strstr(d.msg, "Connection refused"), "%s", d.msg);
}

Test(emu_boot_tcp, unresolvable_host)
{
	struct boot_tcp_cfg c = cfg(free_port(), 400);
	struct diag d = { "" };
	struct boot b;

	c.host = "no-such-host.invalid";
	cr_assert_eq(boot_tcp_init(&b, 1, 2, &c, &d), -EHOSTUNREACH);
	cr_assert(!strncmp(d.msg, "rank 1: cannot resolve rank 0's host 'no-such-host.invalid' (test)", 66),
		  "%s", d.msg);
}

static int connect_only(unsigned rank, unsigned size, unsigned port)
{
	struct boot_tcp_cfg c = cfg(port, 3000);
	struct diag d = { "" };
	struct boot b;

	return boot_tcp_init(&b, rank, size, &c, &d) ? 20 : 0;
}

Test(emu_boot_tcp, a_rank_missing)
{
	struct boot_tcp_cfg c = cfg(free_port(), 500);
	struct diag d = { "" };
	struct boot b;
	pid_t kid = spawn(connect_only, 1, 3, c.port);
	double t0 = now_s();

	cr_assert_eq(boot_tcp_init(&b, 0, 3, &c, &d), -ETIMEDOUT);
	cr_assert_lt(now_s() - t0, 2.0);
	cr_assert(!strncmp(d.msg, "rank 0: rank 2 of 3 did not connect to port", 43), "%s", d.msg);
	/* rank 1 hears that rank 0 gave up */
	cr_assert_eq(exit_of(kid), 20);
}

/* Rank 1 fails its part: every rank stops with its message. */
static int failing_rank(unsigned rank, unsigned size, unsigned port)
{
	struct boot_tcp_cfg c = cfg(port, 3000);
	struct diag d = { "" }, mine = { "rank 1: boom" };
	struct boot b;
	int err;

	if (boot_tcp_init(&b, rank, size, &c, &d))
		return 30;
	err = boot_sync(&b, -EIO, &mine, NULL, NULL, 0, &d);
	b.ops->close(&b);
	return err == -ECONNABORTED && !strcmp(d.msg, "rank 1 failed: boom") ? 0 : 31;
}

static int waiting_rank(unsigned rank, unsigned size, unsigned port)
{
	struct boot_tcp_cfg c = cfg(port, 3000);
	struct diag d = { "" };
	struct boot b;
	int err;

	if (boot_tcp_init(&b, rank, size, &c, &d))
		return 40;
	err = boot_sync(&b, 0, NULL, NULL, NULL, 0, &d);
	b.ops->close(&b);
	return err == -ECONNABORTED && !strcmp(d.msg, "rank 1 failed: boom") ? 0 : 41;
}

Test(emu_boot_tcp, failure_reaches_everyone)
{
	struct boot_tcp_cfg c = cfg(free_port(), 3000);
	struct diag d = { "" };
	struct boot b;
	pid_t k1 = spawn(failing_rank, 1, 3, c.port);
	pid_t k2 = spawn(waiting_rank, 2, 3, c.port);

	cr_assert_eq(boot_tcp_init(&b, 0, 3, &c, &d), 0, "%s", d.msg);
	cr_assert_eq(boot_sync(&b, 0, NULL, NULL, NULL, 0, &d), -EIO);
	cr_assert_str_eq(d.msg, "rank 1 failed: boom");
	b.ops->close(&b);
	cr_assert_eq(exit_of(k1), 0);
	cr_assert_eq(exit_of(k2), 0);
}

Test(emu_boot_tcp, a_rank_dies)
{
	struct boot_tcp_cfg c = cfg(free_port(), 3000);
	struct diag d = { "" };
	struct boot b;
	pid_t kid = spawn(connect_only, 1, 2, c.port);
	struct pollfd pfd;
	char want[64];

	cr_assert_eq(boot_tcp_init(&b, 0, 2, &c, &d), 0, "%s", d.msg);
	/* mid-collective, rank 0 hears of it through abort_fd */
	pfd = (struct pollfd){ .fd = b.abort_fd, .events = POLLIN };
	cr_assert_eq(poll(&pfd, 1, 2000), 1);
	cr_assert_eq(boot_sync(&b, 0, NULL, NULL, NULL, 0, &d), -ECONNRESET);
	snprintf(want, sizeof(want), "rank 1 (pid %d on ", (int)kid);
	cr_assert(!strncmp(d.msg, want, strlen(want)), "%s", d.msg);
	cr_assert(strstr(d.msg, "closed its bootstrap connection"), "%s", d.msg);
	b.ops->close(&b);
	cr_assert_eq(exit_of(kid), 0);
}

Test(emu_boot_tcp, rank_0_dies)
{
	struct boot_tcp_cfg c = cfg(free_port(), 3000);
	struct diag d = { "" };
	struct boot b;
	pid_t kid = spawn(connect_only, 0, 2, c.port);
	struct pollfd pfd;
	char want[64];

	cr_assert_eq(boot_tcp_init(&b, 1, 2, &c, &d), 0, "%s", d.msg);
	pfd = (struct pollfd){ .fd = b.abort_fd, .events = POLLIN };
	cr_assert_eq(poll(&pfd, 1, 2000), 1);
	cr_assert_eq(boot_sync(&b, 0, NULL, NULL, NULL, 0, &d), -ECONNRESET);
	snprintf(want, sizeof(want), "rank 1: lost rank 0 (pid %d on ", (int)kid);
	cr_assert(!strncmp(d.msg, want, strlen(want)), "%s", d.msg);
	b.ops->close(&b);
	cr_assert_eq(exit_of(kid), 0);
}

static int hung_rank(unsigned rank, unsigned size, unsigned port)
{
	struct boot_tcp_cfg c = cfg(port, 3000);
	struct diag d = { "" };
	struct boot b;

	if (boot_tcp_init(&b, rank, size, &c, &d))
		return 50;
	pause(); /* never reaches the barrier; killed by the test */
	return 51;
}

Test(emu_boot_tcp, barrier_time_out)
{
	struct boot_tcp_cfg c = cfg(free_port(), 500);
	struct diag d = { "" };
	struct boot b;
	pid_t kid = spawn(hung_rank, 1, 2, c.port);
	double t0;

	cr_assert_eq(boot_tcp_init(&b, 0, 2, &c, &d), 0, "%s", d.msg);
	t0 = now_s();
	cr_assert_eq(boot_sync(&b, 0, NULL, NULL, NULL, 0, &d), -ETIMEDOUT);
	cr_assert_lt(now_s() - t0, 4.0); /* 0.5 s, and at most 2 s of lingering */
	cr_assert_str_eq(d.msg,
			 "rank 1 did not reach the barrier within 0.5 s (GDRLAB_BOOT_TIMEOUT): hung, or one collective takes longer");
	b.ops->close(&b);
	kill(kid, SIGKILL);
	exit_of(kid);
}
