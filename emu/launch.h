/* SPDX-License-Identifier: MIT */
/*
 * launch: did a launcher start this process as one rank of an emu run
 * (mpirun, srun, mpiexec), or does gdrlab fork the ranks itself? And the
 * bootstrap that goes with each launcher (boot.h).
 *
 *   mpirun   Open MPI's: OMPI_COMM_WORLD_SIZE is set. First, because
 *            mpirun's ranks inside a Slurm allocation also inherit the
 *            SLURM_* variables of the step that started Open MPI's daemons.
 *   srun     a step of two tasks or more: SLURM_STEP_ID, SLURM_PROCID and
 *            SLURM_STEP_NUM_TASKS > 1. An sbatch script (SLURM_PROCID=0 and
 *            SLURM_NTASKS=N, but no step), an salloc shell or a one-task
 *            step (srun --pty bash) is not one: gdrlab forks its ranks there
 *            as anywhere else.
 *   mpiexec  MPICH's or Intel MPI's (Hydra), or another PMI launcher:
 *            PMI_RANK and PMI_SIZE > 1, and GDRLAB_BOOT_ADDR for the TCP
 *            bootstrap (the MPI one is Open MPI's). Over Slurm's variables,
 *            unless they agree (srun --mpi=pmi2). A PMI launch without a
 *            size (PMIX_RANK alone, Hydra's -pmi-port) or without
 *            GDRLAB_BOOT_ADDR is refused, with the variables seen: each
 *            process would otherwise fork a whole job of its own.
 *
 * Any launch whose rank is not below its size is refused.
 */
#ifndef GDRLAB_EMU_LAUNCH_H
#define GDRLAB_EMU_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>

#include "boot.h"

#define EMU_BOOT_TIMEOUT_S 60   /* default GDRLAB_BOOT_TIMEOUT */
#define EMU_SLURM_PORT_BASE 20000 /* derived ports: below Linux's ephemeral */
#define EMU_SLURM_PORT_SPAN 12000 /* range (32768-60999) */

enum emu_launcher {
	EMU_LAUNCH_NONE,   /* gdrlab forks the ranks */
	EMU_LAUNCH_MPIRUN,
	EMU_LAUNCH_SRUN,
	EMU_LAUNCH_MPIEXEC, /* Hydra's PMI: TCP at GDRLAB_BOOT_ADDR */
};

struct emu_launch {
	enum emu_launcher kind;
	const char *name;      /* "mpirun", "srun", "mpiexec" (static strings) */
	const char *count_opt; /* how to ask it for N ranks: "-np", "-n" */
	const char *unit;      /* what it calls them: "ranks", "tasks" */
	unsigned rank, size;
	unsigned local_rank;   /* this process's index on its host */
	bool one_host;         /* every rank runs on this host */
};

/* Read the environment; kind EMU_LAUNCH_NONE when no launcher. */
int emu_launch_detect(struct emu_launch *l, struct diag *d);

/* Make this process, and what it starts, no launched rank: a sweep's
 * point processes, whose emu or real runs fork their own ranks even
 * when the sweep itself was launched (the variables detection reads are
 * removed from the environment). */
void emu_launch_forget(void);

/* Start the launcher's bootstrap: MPI under mpirun, TCP under srun and
 * mpiexec. */
int emu_launch_boot(const struct emu_launch *l, struct boot *b, struct diag *d);

/* The first host of a Slurm host list: "gpu[003-010,012],login1" gives
 * "gpu003". 0, -EINVAL (empty or malformed) or -ENAMETOOLONG. */
int emu_launch_first_host(const char *list, char *host, size_t len);

/* Seconds from the environment variable @name (above 0, at most a day)
 * in ms, @dflt_s when unset or empty. 0 or -EINVAL (a bad value, named). */
int emu_env_seconds_ms(const char *name, int dflt_s, int *ms, struct diag *d);
/* GDRLAB_BOOT_TIMEOUT so, EMU_BOOT_TIMEOUT_S when unset: how long a
 * barrier waits for its last rank, forked or launched. */
int emu_boot_timeout_ms(int *ms, struct diag *d);

/* "host:port", "[v6addr]:port" -> host and port (1-65535). 0 or -EINVAL. */
int emu_launch_parse_addr(const char *s, char *host, size_t len, unsigned *port);

/* Rank 0's port for a Slurm step when GDRLAB_BOOT_ADDR does not say:
 * EMU_SLURM_PORT_BASE + (job x 16 + step) mod EMU_SLURM_PORT_SPAN, so that
 * the steps of one job, and most jobs sharing a node, differ. */
unsigned emu_launch_slurm_port(unsigned long job, unsigned long step);

#endif
