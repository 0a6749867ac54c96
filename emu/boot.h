/* SPDX-License-Identifier: MIT */
/*
 * boot: how the ranks of an emu run find each other (QP numbers, GIDs,
 * rkeys) and line up (barriers). Data never goes through it: it moves
 * over verbs.
 *
 * Three implementations behind one ops table:
 *   fork: the gdrlab process forks the ranks and relays their allgathers
 *         over socketpairs (boot.c, emu_hub.c); it also watches them die.
 *   mpi:  mpirun started the ranks; MPI_Allgather (boot_mpi.c), built only
 *         when CMake found MPI.
 *   tcp:  srun (or any launcher) started the ranks; rank 0 listens and
 *         relays the allgathers over TCP (boot_tcp.c). No MPI needed.
 * Which one a process uses: launch.h.
 */
#ifndef GDRLAB_EMU_BOOT_H
#define GDRLAB_EMU_BOOT_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"

struct boot;

struct boot_ops {
	const char *name;
	/* Every rank contributes @len bytes; @all receives size * len. */
	int (*allgather)(struct boot *b, const void *mine, void *all,
			 size_t len, struct diag *d);
	/* Hand this rank's results (@len bytes) to whoever reports them:
	 * @all (size * len) is filled where this rank needs them too. */
	int (*results)(struct boot *b, const void *mine, void *all, size_t len,
		       struct diag *d);
	void (*close)(struct boot *b);
};

struct boot {
	const struct boot_ops *ops;
	unsigned rank, size;
	int abort_fd; /* readable when the run is being aborted; -1: none */
	int fd;       /* fork: the socket to the parent */
	int spin_us;  /* fork: poll for the parent's reply this long before
		       * blocking in read (0: block at once) */
	void *priv;   /* tcp: its own state, freed by close */
};

/*
 * An allgather that carries each rank's status, so that a rank that
 * failed still takes part and every rank stops at the same point with the
 * same error: "rank R: message" of the lowest failing rank.
 */
int boot_sync(struct boot *b, int err, const struct diag *mine_d,
	      const void *mine, void *all, size_t len, struct diag *d);

/* @msg without a leading "rank RANK: ", which the caller adds its own way. */
const char *boot_strip_rank(const char *msg, unsigned rank);

/*
 * "1, 3, 4", or "1 (pid 812), 3 (pid 815)" with @pids: the ranks @from to
 * @size - 1 not in @have, the first eight named and the rest counted
 * (" and 5 more"), as a barrier's or a connect's time-out names them.
 */
void boot_missing_list(const bool *have, const int32_t *pids, unsigned from,
		       unsigned size, char *s, size_t len);

/* CLOCK_MONOTONIC, microseconds. */
double boot_now_us(void);

/* What boot_sync puts first in each contribution: the fork hub reads it
 * to abort every rank as soon as one reports a failure. */
struct boot_sync_hdr {
	int err;
	char msg[DIAG_MSG_MAX];
};

/* The fork hub, child side (the parent side is in emu_fork.h). */
void boot_fork_init(struct boot *b, unsigned rank, unsigned size, int fd);

/* Messages between a forked rank and its parent. */
enum boot_msg {
	BOOT_MSG_GATHER = 1,  /* child -> parent: contribution */
	BOOT_MSG_ALL,         /* parent -> child: every contribution */
	BOOT_MSG_RESULT,      /* child -> parent: its results; then it exits */
	BOOT_MSG_ABORT,       /* parent -> child: stop, with the reason */
};

struct boot_hdr {
	unsigned type;
	unsigned len; /* payload bytes that follow (fd_io.h moves them) */
};

/* Where the TCP bootstrap's rank 0 listens, and how long anyone waits. */
struct boot_tcp_cfg {
	const char *host; /* rank 0's host, as the others reach it */
	unsigned port;    /* rank 0 listens on it, on every address */
	const char *from; /* where host:port came from, for messages */
	uint64_t key;     /* the same in every rank of one run (job, step) */
	int timeout_ms;   /* to connect, and for each barrier (x2 for rank 0's word) */
};

/*
 * Rank 0 listens and waits until every other rank has connected; the
 * others connect, retrying until rank 0 is up. Each step is bounded by
 * @c->timeout_ms and fails with one line that names the missing ranks
 * or the unreachable address.
 */
int boot_tcp_init(struct boot *b, unsigned rank, unsigned size,
		  const struct boot_tcp_cfg *c, struct diag *d);

#ifdef GDRLAB_HAVE_MPI
/* Started by mpirun (OMPI_COMM_WORLD_SIZE is set): MPI_Init once, with
 * MPI_Finalize at exit. A barrier that does not complete within
 * @timeout_ms fails, and the exit then calls MPI_Abort, which ends the
 * job (MPI_Finalize would wait for the rank that hung). */
int boot_mpi_init(struct boot *b, int timeout_ms, struct diag *d);
#else
static inline int boot_mpi_init(struct boot *b, int timeout_ms, struct diag *d)
{
	return diag_set(d, -ENOSYS,
			"started by mpirun, but this gdrlab was built without MPI (install libopenmpi-dev and rebuild)");
}
#endif

#endif
