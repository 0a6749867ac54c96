/* SPDX-License-Identifier: MIT */
/* Which launcher started this process, and its bootstrap (launch.h). */
#include "launch.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
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
	if (*out > UINT_MAX)
		return diag_set(d, -EINVAL, "%s is '%s', more than %u", name, s, UINT_MAX);
	return 0;
}

static bool env_set(const char *name)
{
	const char *s = getenv(name);

	return s && *s;
}

/* A rank, or a local rank, that the launcher says is not below its count:
 * a broken or hand-made environment, refused before any bootstrap waits
 * for a rank that does not exist. */
static int below(const char *name, unsigned long v, const char *count_name,
		 unsigned long count, struct diag *d)
{
	if (v < count)
		return 0;
	return diag_set(d, -EINVAL, "%s is %lu, not below %s %lu", name, v,
			count_name, count);
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
	if (!err)
		err = below("OMPI_COMM_WORLD_RANK", rank, "OMPI_COMM_WORLD_SIZE", size, d);
	if (err)
		return err;
	*l = (struct emu_launch){ .kind = EMU_LAUNCH_MPIRUN, .name = "mpirun",
				  .count_opt = "-np", .unit = "ranks",
				  .rank = (unsigned)rank, .size = (unsigned)size,
				  .local_rank = (unsigned)local,
				  .one_host = local_size >= size };
	return 0;
}

/* The Slurm step this process is a task of, if any (for detect_pmi). */
struct slurm_step {
	bool in;
	unsigned long rank, ntasks;
};

/* A step of srun with two tasks or more; anything else Slurm runs
 * (batch script, salloc shell, one-task step) leaves @l as it is. */
static int detect_srun(struct emu_launch *l, struct slurm_step *st,
		       struct diag *d)
{
	const char *count = env_set("SLURM_STEP_NUM_TASKS") ? "SLURM_STEP_NUM_TASKS" :
							      "SLURM_NTASKS";
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
	if (err)
		return err;
	*st = (struct slurm_step){ .in = true, .rank = rank, .ntasks = ntasks };
	if (ntasks < 2)
		return 0;
	err = below("SLURM_PROCID", rank, count, ntasks, d);
	if (err)
		return err;
	*l = (struct emu_launch){ .kind = EMU_LAUNCH_SRUN, .name = "srun",
				  .count_opt = "-n", .unit = "tasks",
				  .rank = (unsigned)rank, .size = (unsigned)ntasks,
				  .local_rank = (unsigned)local, .one_host = nodes <= 1 };
	return 0;
}

/*
 * The PMI and PMIx launchers, by the variable that carries the rank:
 *
 *   PMI_RANK   with PMI_SIZE: MPICH's and Intel MPI's Hydra (mpiexec,
 *              mpirun), whose proxy sets them for each process with
 *              MPI_LOCALRANKID and MPI_LOCALNRANKS (MPICH
 *              src/pm/hydra/proxy/pmip_cb.c, launch_procs; seen so from
 *              MPICH 4.0.2's mpiexec.hydra); also Slurm's srun --mpi=pmi2
 *              (src/plugins/mpi/pmi2/mpi_pmi2.c).
 *   PMI_ID     with PMI_PORT: Hydra's -pmi-port, which sets no PMI_SIZE.
 *   PMIX_RANK  any PMIx server (OpenPMIx, PRRTE, srun --mpi=pmix); the
 *              size is PMIX_JOB_SIZE in the server's store, not in the
 *              environment.
 *
 * None of them is Open MPI's mpirun, so boot_mpi.c (Open MPI's libmpi and
 * ABI) cannot gather for them; nor do they name rank 0's host, so the TCP
 * bootstrap needs GDRLAB_BOOT_ADDR. Without the size or the address a run
 * stops, in every rank, rather than fork a whole job of its own.
 */
struct pmi_var {
	const char *rank; /* the rank's variable */
	const char *with; /* and one that must be set with it, or NULL */
	const char *who;  /* what sets them, for messages */
};

static const struct pmi_var pmi_vars[] = {
	{ "PMI_RANK", NULL, "a PMI launcher (MPICH's or Intel MPI's mpiexec)" },
	{ "PMI_ID", "PMI_PORT", "a PMI launcher (Hydra's mpiexec -pmi-port)" },
	{ "PMIX_RANK", NULL, "a PMIx launcher" },
};

/* "PMI_RANK=1 PMI_SIZE=4": what a refusal names. */
static void pmi_seen(const struct pmi_var *v, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s=%s", v->rank, getenv(v->rank));

	if (v->with && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, " %s=%s", v->with,
			      getenv(v->with));
	if (env_set("PMI_SIZE") && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, " PMI_SIZE=%s", getenv("PMI_SIZE"));
}

/*
 * After detect_srun has read Slurm's variables (@slurm, its result, and
 * @st, the step): a PMI or PMIx launch, or else @slurm. PMI wins over
 * Slurm's variables, which Hydra's ranks inherit from the step that
 * started its proxies (one task per node), unless both say the same rank
 * and size: srun --mpi=pmi2 or pmix, whose own bootstrap needs no address,
 * or a one-task step with PMIx (srun --pty bash), which forks as any.
 */
static int detect_pmi(struct emu_launch *l, const struct emu_launch *slurm,
		      const struct slurm_step *st, struct diag *d)
{
	const struct pmi_var *v = NULL;
	const char *addr = getenv("GDRLAB_BOOT_ADDR");
	unsigned long rank, size, local, local_size;
	bool sized = env_set("PMI_SIZE");
	char seen[160];
	int err;

	*l = *slurm;
	for (size_t i = 0; !v && i < sizeof(pmi_vars) / sizeof(pmi_vars[0]); i++)
		if (env_set(pmi_vars[i].rank) &&
		    (!pmi_vars[i].with || env_set(pmi_vars[i].with)))
			v = &pmi_vars[i];
	if (!v)
		return 0;
	err = env_unsigned(v->rank, 0, &rank, d);
	if (!err)
		err = env_unsigned("PMI_SIZE", 0, &size, d);
	if (err)
		return err;
	if (st->in && st->rank == rank && (!sized || st->ntasks == size))
		return 0;
	*l = (struct emu_launch){ .kind = EMU_LAUNCH_NONE };
	pmi_seen(v, seen, sizeof(seen));
	if (!sized)
		return diag_set(d, -ENOTSUP,
				"%s: started by %s, but nothing in the environment says how many ranks (PMI_SIZE, OMPI_COMM_WORLD_SIZE, a Slurm step's SLURM_STEP_NUM_TASKS): launch with mpiexec (Hydra, without -pmi-port), Open MPI's mpirun or srun",
				seen, v->who);
	err = below(v->rank, rank, "PMI_SIZE", size, d);
	if (!err)
		err = env_unsigned("MPI_LOCALNRANKS", size, &local_size, d);
	if (!err)
		err = env_unsigned("MPI_LOCALRANKID", rank, &local, d);
	if (!err && env_set("MPI_LOCALRANKID"))
		err = below("MPI_LOCALRANKID", local, "MPI_LOCALNRANKS", local_size, d);
	if (!err && local_size > size)
		err = diag_set(d, -EINVAL, "MPI_LOCALNRANKS is %lu, more than PMI_SIZE %lu",
			       local_size, size);
	if (err || size < 2)
		return err; /* one process: it forks its ranks, as under srun -n 1 */
	if (!addr || !*addr)
		return diag_set(d, -ENOTSUP,
				"%s: started by %s, which gdrlab's MPI bootstrap (Open MPI's) cannot join: set GDRLAB_BOOT_ADDR=host:port, rank 0's host and a free port, for the TCP bootstrap, or launch with Open MPI's mpirun or srun",
				seen, v->who);
	*l = (struct emu_launch){ .kind = EMU_LAUNCH_MPIEXEC, .name = "mpiexec",
				  .count_opt = "-n", .unit = "ranks",
				  .rank = (unsigned)rank, .size = (unsigned)size,
				  .local_rank = (unsigned)local,
				  .one_host = local_size >= size };
	return 0;
}

void emu_launch_forget(void)
{
	unsetenv("OMPI_COMM_WORLD_SIZE");
	unsetenv("SLURM_STEP_ID");
	for (size_t i = 0; i < sizeof(pmi_vars) / sizeof(pmi_vars[0]); i++)
		unsetenv(pmi_vars[i].rank);
}

int emu_launch_detect(struct emu_launch *l, struct diag *d)
{
	struct emu_launch slurm = { .kind = EMU_LAUNCH_NONE };
	struct slurm_step st = { .in = false };
	int err;

	*l = (struct emu_launch){ .kind = EMU_LAUNCH_NONE };
	if (getenv("OMPI_COMM_WORLD_SIZE"))
		return detect_mpirun(l, d);
	err = detect_srun(&slurm, &st, d);
	return err ? err : detect_pmi(l, &slurm, &st, d);
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

int emu_env_seconds_ms(const char *name, int dflt_s, int *ms, struct diag *d)
{
	const char *s = getenv(name);
	char *end;
	double v;

	*ms = dflt_s * 1000;
	if (!s || !*s)
		return 0;
	v = strtod(s, &end);
	/* a day at most: more would wrap an int of ms past 2^31 (25 days) */
	if (*end || !(v > 0) || v > 86400)
		return diag_set(d, -EINVAL, "%s is '%s': seconds, more than 0 and at most 86400",
				name, s);
	*ms = v * 1000 < 1 ? 1 : (int)(v * 1000);
	return 0;
}

int emu_boot_timeout_ms(int *ms, struct diag *d)
{
	return emu_env_seconds_ms("GDRLAB_BOOT_TIMEOUT", EMU_BOOT_TIMEOUT_S, ms, d);
}

/* The TCP bootstrap with rank 0 at GDRLAB_BOOT_ADDR (@addr). */
static int addr_boot(const struct emu_launch *l, const char *addr, uint64_t key,
		     struct boot *b, struct diag *d)
{
	struct boot_tcp_cfg c = { .key = key, .from = "GDRLAB_BOOT_ADDR" };
	char host[256];
	int err = emu_boot_timeout_ms(&c.timeout_ms, d);

	if (err)
		return err;
	if (emu_launch_parse_addr(addr, host, sizeof(host), &c.port))
		return diag_set(d, -EINVAL, "GDRLAB_BOOT_ADDR is '%s', not host:port", addr);
	c.host = host;
	return boot_tcp_init(b, l->rank, l->size, &c, d);
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
	if (err)
		return err;
	c.key = (uint64_t)job << 32 | (step & 0xffffffffu);
	if (addr && *addr)
		return addr_boot(l, addr, c.key, b, d);
	err = emu_boot_timeout_ms(&c.timeout_ms, d);
	if (err)
		return err;
	c.host = host;
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

/*
 * Hydra's environment has no job id to tell runs apart, so the key is a
 * constant, "mpiexec" in ASCII, and the address alone separates runs: a
 * second rank 0 on the same port fails to listen, and says which port.
 */
#define EMU_MPIEXEC_KEY UINT64_C(0x6d70696578656300)

int emu_launch_boot(const struct emu_launch *l, struct boot *b, struct diag *d)
{
	const char *addr = getenv("GDRLAB_BOOT_ADDR");
	int ms, err;

	switch (l->kind) {
	case EMU_LAUNCH_MPIRUN:
		err = emu_boot_timeout_ms(&ms, d);
		return err ? err : boot_mpi_init(b, ms, d);
	case EMU_LAUNCH_SRUN:
		return srun_boot(l, b, d);
	case EMU_LAUNCH_MPIEXEC:
		if (!addr || !*addr)
			return diag_set(d, -EINVAL, "mpiexec: GDRLAB_BOOT_ADDR is not set");
		return addr_boot(l, addr, EMU_MPIEXEC_KEY, b, d);
	default:
		return diag_set(d, -EINVAL, "not started by a launcher");
	}
}
