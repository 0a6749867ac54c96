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

/* Seconds from the environment, as GDRLAB_BOOT_TIMEOUT and
 * GDRLAB_EMU_TIMEOUT take them: a bad value named with both limits (the
 * boot's said "more than 0" alone, though it refused more than a day). */
Test(emu_launch, seconds_from_the_environment)
{
	struct diag d = { "" };
	int ms = 0;

	unsetenv("GDRLAB_TEST_SECONDS");
	cr_assert_eq(emu_env_seconds_ms("GDRLAB_TEST_SECONDS", 7, &ms, &d), 0);
	cr_expect_eq(ms, 7000);
	setenv("GDRLAB_TEST_SECONDS", "0.25", 1);
	cr_assert_eq(emu_env_seconds_ms("GDRLAB_TEST_SECONDS", 7, &ms, &d), 0);
	cr_expect_eq(ms, 250);
	setenv("GDRLAB_TEST_SECONDS", "90000", 1);
	cr_assert_eq(emu_env_seconds_ms("GDRLAB_TEST_SECONDS", 7, &ms, &d), -EINVAL);
	cr_expect_str_eq(d.msg, "GDRLAB_TEST_SECONDS is '90000': seconds, more than 0 and at most 86400");
	setenv("GDRLAB_BOOT_TIMEOUT", "abc", 1);
	cr_assert_eq(emu_boot_timeout_ms(&ms, &d), -EINVAL);
	cr_expect_str_eq(d.msg, "GDRLAB_BOOT_TIMEOUT is 'abc': seconds, more than 0 and at most 86400");
	unsetenv("GDRLAB_BOOT_TIMEOUT");
	unsetenv("GDRLAB_TEST_SECONDS");
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
		"PMI_RANK", "PMI_SIZE", "PMI_ID", "PMI_PORT", "PMIX_RANK",
		"MPI_LOCALRANKID", "MPI_LOCALNRANKS", "GDRLAB_BOOT_ADDR",
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

/* What a launcher says of itself must hold together: a rank below the
 * size, numbers that are numbers. */
Test(emu_launch, inconsistent_is_refused, .init = clear_env)
{
	struct emu_launch l;
	struct diag d = { "" };

	setenv("OMPI_COMM_WORLD_SIZE", "4", 1);
	setenv("OMPI_COMM_WORLD_RANK", "4", 1);
	cr_assert_eq(emu_launch_detect(&l, &d), -EINVAL);
	cr_assert_str_eq(d.msg, "OMPI_COMM_WORLD_RANK is 4, not below OMPI_COMM_WORLD_SIZE 4");
	setenv("OMPI_COMM_WORLD_SIZE", "99999999999", 1);
	cr_assert_eq(emu_launch_detect(&l, &d), -EINVAL);
	cr_assert_str_eq(d.msg, "OMPI_COMM_WORLD_SIZE is '99999999999', more than 4294967295");
	unsetenv("OMPI_COMM_WORLD_SIZE");

	setenv("SLURM_STEP_ID", "0", 1);
	setenv("SLURM_PROCID", "2", 1);
	setenv("SLURM_STEP_NUM_TASKS", "2", 1);
	cr_assert_eq(emu_launch_detect(&l, &d), -EINVAL);
	cr_assert_str_eq(d.msg, "SLURM_PROCID is 2, not below SLURM_STEP_NUM_TASKS 2");
	unsetenv("SLURM_STEP_ID");

	setenv("GDRLAB_BOOT_ADDR", "127.0.0.1:29400", 1);
	setenv("PMI_RANK", "4", 1);
	setenv("PMI_SIZE", "4", 1);
	cr_assert_eq(emu_launch_detect(&l, &d), -EINVAL);
	cr_assert_str_eq(d.msg, "PMI_RANK is 4, not below PMI_SIZE 4");
	setenv("PMI_SIZE", "0", 1);
	setenv("PMI_RANK", "0", 1);
	cr_assert_eq(emu_launch_detect(&l, &d), -EINVAL);
	cr_assert_str_eq(d.msg, "PMI_RANK is 0, not below PMI_SIZE 0");
	setenv("PMI_RANK", "one", 1);
	cr_assert_eq(emu_launch_detect(&l, &d), -EINVAL);
	cr_assert_str_eq(d.msg, "PMI_RANK is 'one', not a number");
	setenv("PMI_RANK", "1", 1);
	setenv("PMI_SIZE", "-4", 1);
	cr_assert_eq(emu_launch_detect(&l, &d), -EINVAL);
	cr_assert_str_eq(d.msg, "PMI_SIZE is '-4', not a number");
	setenv("PMI_SIZE", "4", 1);
	setenv("MPI_LOCALRANKID", "2", 1);
	setenv("MPI_LOCALNRANKS", "2", 1);
	cr_assert_eq(emu_launch_detect(&l, &d), -EINVAL);
	cr_assert_str_eq(d.msg, "MPI_LOCALRANKID is 2, not below MPI_LOCALNRANKS 2");
	setenv("MPI_LOCALRANKID", "1", 1);
	setenv("MPI_LOCALNRANKS", "5", 1);
	cr_assert_eq(emu_launch_detect(&l, &d), -EINVAL);
	cr_assert_str_eq(d.msg, "MPI_LOCALNRANKS is 5, more than PMI_SIZE 4");
	setenv("MPI_LOCALNRANKS", "2", 1);
	cr_assert_eq(emu_launch_detect(&l, &d), 0);
	cr_assert_eq(l.kind, EMU_LAUNCH_MPIEXEC);
}

/*
 * MPICH's and Intel MPI's mpiexec (Hydra) set PMI_RANK, PMI_SIZE,
 * MPI_LOCALRANKID and MPI_LOCALNRANKS for each process (MPICH
 * src/pm/hydra/proxy/pmip_cb.c; Intel MPI's Hydra is MPICH's), and with
 * -pmi-port PMI_ID and PMI_PORT instead of the first two: so MPICH 4.0.2's
 * mpiexec.hydra -n 3 and -pmi-port -n 2, printing their environment. Their
 * MPI is not Open MPI's, so the TCP bootstrap serves, at GDRLAB_BOOT_ADDR.
 */
Test(emu_launch, detect_hydra, .init = clear_env)
{
	struct emu_launch l;
	struct diag d = { "" };

	/* mpiexec -n 4 -ppn 2, rank 2, first on the second host */
	setenv("PMI_RANK", "2", 1);
	setenv("PMI_SIZE", "4", 1);
	setenv("MPI_LOCALRANKID", "0", 1);
	setenv("MPI_LOCALNRANKS", "2", 1);
	cr_assert_eq(emu_launch_detect(&l, &d), -ENOTSUP);
	cr_assert_eq(l.kind, EMU_LAUNCH_NONE);
	cr_assert_str_eq(d.msg,
			 "PMI_RANK=2 PMI_SIZE=4: started by a PMI launcher (MPICH's or Intel MPI's mpiexec), which gdrlab's MPI bootstrap (Open MPI's) cannot join: set GDRLAB_BOOT_ADDR=host:port, rank 0's host and a free port, for the TCP bootstrap, or launch with Open MPI's mpirun or srun");
	setenv("GDRLAB_BOOT_ADDR", "node1:29400", 1);
	cr_assert_eq(emu_launch_detect(&l, &d), 0);
	cr_assert_eq(l.kind, EMU_LAUNCH_MPIEXEC);
	cr_assert_str_eq(l.name, "mpiexec");
	cr_assert_str_eq(l.count_opt, "-n");
	cr_assert_eq(l.rank, 2);
	cr_assert_eq(l.size, 4);
	cr_assert_eq(l.local_rank, 0);
	cr_assert(!l.one_host, "2 of 4 ranks on this host");
	setenv("MPI_LOCALRANKID", "2", 1);
	setenv("MPI_LOCALNRANKS", "4", 1);
	cr_assert_eq(emu_launch_detect(&l, &d), 0);
	cr_assert_eq(l.local_rank, 2);
	cr_assert(l.one_host, "4 of 4 ranks on this host");
	unsetenv("MPI_LOCALRANKID");
	unsetenv("MPI_LOCALNRANKS");
	cr_assert_eq(emu_launch_detect(&l, &d), 0);
	cr_assert_eq(l.local_rank, 2, "no MPI_LOCALRANKID: the rank");
	cr_assert(l.one_host, "no MPI_LOCALNRANKS: all local");

	/* Hydra inside a Slurm allocation starts one proxy per node with
	 * srun: its ranks see the proxies' step (task 1 of 2), not theirs */
	setenv("SLURM_STEP_ID", "0", 1);
	setenv("SLURM_PROCID", "1", 1);
	setenv("SLURM_STEP_NUM_TASKS", "2", 1);
	setenv("PMI_RANK", "5", 1);
	setenv("PMI_SIZE", "8", 1);
	cr_assert_eq(emu_launch_detect(&l, &d), 0);
	cr_assert_eq(l.kind, EMU_LAUNCH_MPIEXEC);
	cr_assert_eq(l.rank, 5);
	cr_assert_eq(l.size, 8);

	/* srun --mpi=pmi2 says the same as its step: srun, which needs no
	 * address (Slurm's mpi_pmi2.c sets PMI_RANK and PMI_SIZE) */
	unsetenv("GDRLAB_BOOT_ADDR");
	setenv("PMI_RANK", "1", 1);
	setenv("PMI_SIZE", "2", 1);
	cr_assert_eq(emu_launch_detect(&l, &d), 0);
	cr_assert_eq(l.kind, EMU_LAUNCH_SRUN);
	cr_assert_eq(l.rank, 1);
	cr_assert_eq(l.size, 2);
	unsetenv("SLURM_STEP_ID");

	/* one process: it forks its ranks, as under srun -n 1 */
	setenv("PMI_RANK", "0", 1);
	setenv("PMI_SIZE", "1", 1);
	cr_assert_eq(emu_launch_detect(&l, &d), 0);
	cr_assert_eq(l.kind, EMU_LAUNCH_NONE);

	/* Open MPI comes first (Open MPI 5's ranks have PMIX_RANK too) */
	setenv("OMPI_COMM_WORLD_SIZE", "2", 1);
	setenv("OMPI_COMM_WORLD_RANK", "1", 1);
	setenv("PMIX_RANK", "1", 1);
	cr_assert_eq(emu_launch_detect(&l, &d), 0);
	cr_assert_eq(l.kind, EMU_LAUNCH_MPIRUN);

	/* a sweep's point process forgets the PMI launch too */
	setenv("PMI_SIZE", "4", 1);
	setenv("GDRLAB_BOOT_ADDR", "node1:29400", 1);
	emu_launch_forget();
	cr_assert_eq(emu_launch_detect(&l, &d), 0);
	cr_assert_eq(l.kind, EMU_LAUNCH_NONE);
}

/* A rank with no size in the environment: PMIx keeps it in its server's
 * store (PMIX_JOB_SIZE), Hydra's -pmi-port sets PMI_ID and PMI_PORT only. */
Test(emu_launch, detect_pmi_without_size, .init = clear_env)
{
	struct emu_launch l;
	struct diag d = { "" };

	setenv("GDRLAB_BOOT_ADDR", "node1:29400", 1);
	setenv("PMIX_RANK", "3", 1);
	cr_assert_eq(emu_launch_detect(&l, &d), -ENOTSUP);
	cr_assert_eq(l.kind, EMU_LAUNCH_NONE);
	cr_assert_str_eq(d.msg,
			 "PMIX_RANK=3: started by a PMIx launcher, but nothing in the environment says how many ranks (PMI_SIZE, OMPI_COMM_WORLD_SIZE, a Slurm step's SLURM_STEP_NUM_TASKS): launch with mpiexec (Hydra, without -pmi-port), Open MPI's mpirun or srun");

	/* srun --pty bash where Slurm's MPI default is pmix: a one-task
	 * step, PMIX_RANK=0; it forks, as any one-task step */
	setenv("SLURM_STEP_ID", "7", 1);
	setenv("SLURM_PROCID", "0", 1);
	setenv("SLURM_STEP_NUM_TASKS", "1", 1);
	setenv("PMIX_RANK", "0", 1);
	cr_assert_eq(emu_launch_detect(&l, &d), 0, "%s", d.msg);
	cr_assert_eq(l.kind, EMU_LAUNCH_NONE);
	setenv("PMIX_RANK", "3", 1);

	/* srun --mpi=pmix: the step gives the size */
	setenv("SLURM_STEP_ID", "7", 1);
	setenv("SLURM_PROCID", "3", 1);
	setenv("SLURM_STEP_NUM_TASKS", "4", 1);
	cr_assert_eq(emu_launch_detect(&l, &d), 0);
	cr_assert_eq(l.kind, EMU_LAUNCH_SRUN);
	cr_assert_eq(l.rank, 3);
	cr_assert_eq(l.size, 4);
	/* a PMIx rank that is not the step's task: the step is someone else's */
	setenv("SLURM_PROCID", "1", 1);
	cr_assert_eq(emu_launch_detect(&l, &d), -ENOTSUP);
	cr_assert(strstr(d.msg, "PMIX_RANK=3: started by a PMIx launcher"), "%s", d.msg);
	unsetenv("SLURM_STEP_ID");

	/* a PMIx rank with PMI_SIZE (OpenPMIx's MPICH personality sets it,
	 * with PMI_RANK): a size, so the address is all it needs */
	setenv("PMI_SIZE", "4", 1);
	cr_assert_eq(emu_launch_detect(&l, &d), 0);
	cr_assert_eq(l.kind, EMU_LAUNCH_MPIEXEC);
	cr_assert_eq(l.rank, 3);
	cr_assert_eq(l.size, 4);
	unsetenv("PMI_SIZE");
	unsetenv("PMIX_RANK");

	setenv("PMI_ID", "1", 1);
	cr_assert_eq(emu_launch_detect(&l, &d), 0, "PMI_ID alone is no launch");
	cr_assert_eq(l.kind, EMU_LAUNCH_NONE);
	setenv("PMI_PORT", "node1:41234", 1);
	cr_assert_eq(emu_launch_detect(&l, &d), -ENOTSUP);
	cr_assert_str_eq(d.msg,
			 "PMI_ID=1 PMI_PORT=node1:41234: started by a PMI launcher (Hydra's mpiexec -pmi-port), but nothing in the environment says how many ranks (PMI_SIZE, OMPI_COMM_WORLD_SIZE, a Slurm step's SLURM_STEP_NUM_TASKS): launch with mpiexec (Hydra, without -pmi-port), Open MPI's mpirun or srun");
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

/* A rank as mpiexec (Hydra) starts it: its environment, then detection
 * and the launch's own bootstrap, TCP at GDRLAB_BOOT_ADDR. */
static int hydra_rank(unsigned rank, unsigned size, unsigned port)
{
	struct diag d = { "" };
	unsigned all[8] = { 0 }, mine = rank * 100;
	struct emu_launch l;
	char v[32];
	struct boot b;

	snprintf(v, sizeof(v), "%u", rank);
	setenv("PMI_RANK", v, 1);
	setenv("MPI_LOCALRANKID", v, 1);
	snprintf(v, sizeof(v), "%u", size);
	setenv("PMI_SIZE", v, 1);
	setenv("MPI_LOCALNRANKS", v, 1);
	snprintf(v, sizeof(v), "127.0.0.1:%u", port);
	setenv("GDRLAB_BOOT_ADDR", v, 1);
	setenv("GDRLAB_BOOT_TIMEOUT", "5", 1);
	if (emu_launch_detect(&l, &d) || l.kind != EMU_LAUNCH_MPIEXEC ||
	    l.rank != rank || l.size != size)
		return 20;
	if (emu_launch_boot(&l, &b, &d))
		return 21;
	if (b.rank != rank || b.size != size ||
	    boot_sync(&b, 0, NULL, &mine, all, sizeof(mine), &d))
		return 22;
	for (unsigned r = 0; r < size; r++)
		if (all[r] != r * 100)
			return 23;
	b.ops->close(&b);
	return 0;
}

Test(emu_boot_tcp, mpiexec_ranks_boot_at_the_address, .init = clear_env)
{
	unsigned port = free_port();
	pid_t kids[2];

	for (unsigned r = 1; r < 3; r++)
		kids[r - 1] = spawn(hydra_rank, r, 3, port);
	cr_assert_eq(hydra_rank(0, 3, port), 0);
	for (unsigned r = 1; r < 3; r++)
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
