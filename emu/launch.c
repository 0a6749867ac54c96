/* SPDX-License-Identifier: MIT */
/* Which launcher started this process, and its bootstrap (launch.h). */
#include "launch.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* @name as an unsigned number; @fallback when unset. */
static int env_unsigned(const char *name, unsigned long fallback,
			unsigned long *out, struct diag *d)
{
	const char *s = getenv(name);
	char *end;

	*out = fallback;
	if (!s || !*s)
		return 0;
	errno = 0;
	*out = strtoul(s, &end, 10);
	if (errno || *end || *s == '-')
		return diag_set(d, -EINVAL, "%s is '%s', not a number", name, s);
	return 0;
}

static int detect_mpirun(struct emu_launch *l, struct diag *d)
{
	unsigned long size, rank, local, local_size;
	int err = env_unsigned("OMPI_COMM_WORLD_SIZE", 0, &size, d);

	if (!err)
		err = env_unsigned("OMPI_COMM_WORLD_RANK", 0, &rank, d);
	if (!err)
		err = env_unsigned("OMPI_COMM_WORLD_LOCAL_RANK", rank, &local, d);
	if (!err)
		err = env_unsigned("OMPI_COMM_WORLD_LOCAL_SIZE", size, &local_size, d);
	if (err)
		return err;
	*l = (struct emu_launch){ .kind = EMU_LAUNCH_MPIRUN, .name = "mpirun",
				  .count_opt = "-np", .unit = "ranks",
				  .rank = (unsigned)rank, .size = (unsigned)size,
				  .local_rank = (unsigned)local,
				  .one_host = local_size >= size };
	return 0;
}

/* A step of srun with two tasks or more; anything else Slurm runs
 * (batch script, salloc shell, one-task step) leaves @l as it is. */
static int detect_srun(struct emu_launch *l, struct diag *d)
{
	unsigned long ntasks, rank, local, nodes;
	int err;

	if (!getenv("SLURM_STEP_ID") || !getenv("SLURM_PROCID"))
		return 0;
	err = env_unsigned("SLURM_NTASKS", 1, &ntasks, d);
	if (!err)
		err = env_unsigned("SLURM_STEP_NUM_TASKS", ntasks, &ntasks, d);
	if (!err)
		err = env_unsigned("SLURM_PROCID", 0, &rank, d);
	if (!err)
		err = env_unsigned("SLURM_LOCALID", 0, &local, d);
	if (!err)
		err = env_unsigned("SLURM_STEP_NUM_NODES", 1, &nodes, d);
	if (err || ntasks < 2)
		return err;
	*l = (struct emu_launch){ .kind = EMU_LAUNCH_SRUN, .name = "srun",
				  .count_opt = "-n", .unit = "tasks",
				  .rank = (unsigned)rank, .size = (unsigned)ntasks,
				  .local_rank = (unsigned)local, .one_host = nodes <= 1 };
	return 0;
}

void emu_launch_forget(void)
{
	unsetenv("OMPI_COMM_WORLD_SIZE");
	unsetenv("SLURM_STEP_ID");
}

int emu_launch_detect(struct emu_launch *l, struct diag *d)
{
	*l = (struct emu_launch){ .kind = EMU_LAUNCH_NONE };
	if (getenv("OMPI_COMM_WORLD_SIZE"))
		return detect_mpirun(l, d);
	return detect_srun(l, d);
}

int emu_launch_first_host(const char *list, char *host, size_t len)
{
	bool in = false, skip = false;
	size_t n = 0;

	for (const char *s = list; *s; s++) {
		if (!in && *s == ',')
			break;
		if (*s == '[' || *s == ']') {
			if (in == (*s == '['))
				return -EINVAL;
			in = *s == '[';
			skip = false;
			continue;
		}
		/* in brackets, only the first number of the first range */
		if (in && (skip || *s == ',' || *s == '-')) {
			skip = true;
			continue;
		}
		if (n + 1 >= len)
			return -ENAMETOOLONG;
		host[n++] = *s;
	}
	if (len)
		host[n < len ? n : len - 1] = '\0';
	return in || !n ? -EINVAL : 0;
}

int emu_launch_parse_addr(const char *s, char *host, size_t len, unsigned *port)
{
	const char *colon = strrchr(s, ':'), *h = s;
	size_t hlen;
	char *end;
	unsigned long p;

	if (!colon || colon == s)
		return -EINVAL;
	hlen = (size_t)(colon - s);
	if (s[0] == '[') {
		if (colon[-1] != ']' || hlen < 3)
			return -EINVAL;
		h++;
		hlen -= 2;
	} else if (memchr(s, ':', hlen)) {
		return -EINVAL; /* a bare IPv6 address: brackets, please */
	}
	errno = 0;
	p = strtoul(colon + 1, &end, 10);
	if (errno || *end || colon[1] == '\0' || colon[1] == '-' || !p || p > 65535 ||
	    hlen + 1 > len)
		return -EINVAL;
	memcpy(host, h, hlen);
	host[hlen] = '\0';
	*port = (unsigned)p;
	return 0;
}

unsigned emu_launch_slurm_port(unsigned long job, unsigned long step)
{
	return EMU_SLURM_PORT_BASE +
	       (unsigned)((job * 16 + step) % EMU_SLURM_PORT_SPAN);
}

static int boot_timeout_ms(int *ms, struct diag *d)
{
	const char *s = getenv("GDRLAB_BOOT_TIMEOUT");
	char *end;
	double v;

	*ms = EMU_BOOT_TIMEOUT_S * 1000;
	if (!s || !*s)
		return 0;
	v = strtod(s, &end);
	if (*end || !(v > 0) || v > 86400)
		return diag_set(d, -EINVAL, "GDRLAB_BOOT_TIMEOUT is '%s': seconds, more than 0", s);
	*ms = v * 1000 < 1 ? 1 : (int)(v * 1000);
	return 0;
}

/* Rank 0 on the step's first node, on a port of the job and step; or
 * wherever GDRLAB_BOOT_ADDR says. */
static int srun_boot(const struct emu_launch *l, struct boot *b, struct diag *d)
{
	const char *addr = getenv("GDRLAB_BOOT_ADDR");
	const char *list = getenv("SLURM_STEP_NODELIST");
	const char *node = getenv("SLURMD_NODENAME");
	struct boot_tcp_cfg c = { 0 };
	unsigned long job, step;
	char host[256];
	int err;

	err = env_unsigned("SLURM_JOB_ID", 0, &job, d);
	if (!err)
		err = env_unsigned("SLURM_STEP_ID", 0, &step, d);
	if (!err)
		err = boot_timeout_ms(&c.timeout_ms, d);
	if (err)
		return err;
	c.host = host;
	c.key = (uint64_t)job << 32 | (step & 0xffffffffu);
	if (addr && *addr) {
		if (emu_launch_parse_addr(addr, host, sizeof(host), &c.port))
			return diag_set(d, -EINVAL, "GDRLAB_BOOT_ADDR is '%s', not host:port", addr);
		c.from = "GDRLAB_BOOT_ADDR";
		return boot_tcp_init(b, l->rank, l->size, &c, d);
	}
	if (!list || !*list)
		list = getenv("SLURM_JOB_NODELIST");
	if (!list || emu_launch_first_host(list, host, sizeof(host)))
		return diag_set(d, -EINVAL, "srun: cannot tell rank 0's node from SLURM_STEP_NODELIST '%s': set GDRLAB_BOOT_ADDR=host:port",
				list ? list : "");
	c.port = emu_launch_slurm_port(job, step);
	c.from = "the step's first node, port from the job and step; GDRLAB_BOOT_ADDR sets another";
	/* -m arbitrary, or a hostfile, can put task 0 elsewhere */
	if (l->rank == 0 && node && strcmp(node, host))
		return diag_set(d, -EINVAL, "rank 0 runs on %s, not on the step's first node %s: set GDRLAB_BOOT_ADDR=%s:%u",
				node, host, node, c.port);
	return boot_tcp_init(b, l->rank, l->size, &c, d);
}

int emu_launch_boot(const struct emu_launch *l, struct boot *b, struct diag *d)
{
	switch (l->kind) {
	case EMU_LAUNCH_MPIRUN:
		return boot_mpi_init(b, d);
	case EMU_LAUNCH_SRUN:
		return srun_boot(l, b, d);
	default:
		return diag_set(d, -EINVAL, "not started by a launcher");
	}
}
