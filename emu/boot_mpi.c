/* SPDX-License-Identifier: MIT */
/*
 * The MPI bootstrap: ranks started by mpirun (Open MPI) exchange their
 * queue pair details with MPI_Allgather; data still moves over verbs.
 * Built only when CMake finds MPI (GDRLAB_HAVE_MPI).
 *
 * libmpi is opened at run time rather than linked, so that gdrlab runs
 * where no MPI is installed, and its calls are looked up in libmpi's own
 * handle. SimGrid exports MPI_* functions too (SMPI); it is opened
 * locally by the model backend (model/simgrid_api.h), so libmpi's calls
 * to its own MPI_Wtime and PMPI_* find libmpi's. (Until 2026-12-03
 * SimGrid was linked in and libmpi needed RTLD_DEEPBIND, which the
 * sanitizers refuse and which gave libmpi glibc's malloc beside a gdrlab
 * allocating through jemalloc: "free(): invalid pointer" under mpirun.)
 * mpi.h still gives the types.
 *
 * A barrier waits GDRLAB_BOOT_TIMEOUT at most, as the fork and TCP hubs'
 * do: MPI_Allgather would wait for a hung rank for ever, so the exchange
 * is an MPI_Iallgather tested until then.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot.h"

struct mpi_api {
	void *lib;
	int (*init)(int *, char ***);
	int (*initialized)(int *);
	int (*finalized)(int *);
	int (*finalize)(void);
	int (*comm_rank)(MPI_Comm, int *);
	int (*comm_size)(MPI_Comm, int *);
	int (*iallgather)(const void *, int, MPI_Datatype, void *, int,
			  MPI_Datatype, MPI_Comm, MPI_Request *);
	int (*test)(MPI_Request *, int *, MPI_Status *);
	int (*abort)(MPI_Comm, int);
	int (*error_string)(int, char *, int *);
	MPI_Comm world;
	MPI_Datatype byte;
};

/* The one process-wide MPI: MPI_Init may run once per process, and
 * `gdrlab compare` runs the backend twice. Set once, then read-only. */
static struct mpi_api mpi;
static int barrier_ms;     /* GDRLAB_BOOT_TIMEOUT */
static bool abort_at_exit; /* a barrier timed out: abort, not finalize */

static void mpi_finalize(void)
{
	int done = 0;

	mpi.finalized(&done);
	if (done)
		return;
	if (abort_at_exit)
		mpi.abort(mpi.world, 1);
	mpi.finalize();
}


static int mpi_error(struct diag *d, const char *call, int rc)
{
	char s[MPI_MAX_ERROR_STRING];
	int len = 0;

	mpi.error_string(rc, s, &len);
	return diag_set(d, -EIO, "%s: %.*s", call, len, s);
}

/*
 * Tested in a loop, as MPI_Allgather's own wait spins in Open MPI's
 * progress engine; yielding once past a millisecond, for ranks that
 * share CPUs.
 */
static int mpi_allgather(struct boot *b, const void *mine, void *all,
			 size_t len, struct diag *d)
{
	MPI_Request req;
	double t0 = boot_now_us(), t;
	int done = 0;
	int rc = mpi.iallgather(mine, (int)len, mpi.byte, all, (int)len,
				mpi.byte, mpi.world, &req);

	if (rc != MPI_SUCCESS)
		return mpi_error(d, "MPI_Iallgather", rc);
	for (;;) {
		rc = mpi.test(&req, &done, MPI_STATUS_IGNORE);
		if (rc != MPI_SUCCESS)
			return mpi_error(d, "MPI_Test", rc);
		if (done)
			return 0;
		t = boot_now_us() - t0;
		if (t > barrier_ms * 1e3)
			break;
		if (t > 1e3)
			sched_yield();
	}
	abort_at_exit = true;
	return diag_set(d, -ETIMEDOUT,
			"rank %u: a barrier did not complete within %g s (GDRLAB_BOOT_TIMEOUT): a rank hung, stopped, or one collective takes longer (mpirun ends the job)",
			b->rank, barrier_ms / 1e3);
}

static void mpi_close(struct boot *b)
{
	/* MPI_Finalize runs at exit (see above). */
}

static const struct boot_ops boot_mpi_ops = {
	.name = "mpi",
	.allgather = mpi_allgather,
	.results = mpi_allgather,
	.close = mpi_close,
};

#define SYM(field, name)                                                      \
	do {                                                                  \
		*(void **)&a.field = dlsym(a.lib, name);                      \
		if (!a.field)                                                 \
			goto missing;                                         \
	} while (0)

static int mpi_load(struct diag *d)
{
	static const char *const names[] = { GDRLAB_MPI_LIBRARY, "libmpi.so.40",
					     "libmpi.so" };
	struct mpi_api a = { 0 };
	const char *missing = "";

	if (mpi.lib)
		return 0;
	for (size_t i = 0; !a.lib && i < sizeof(names) / sizeof(names[0]); i++)
		a.lib = dlopen(names[i], RTLD_NOW | RTLD_GLOBAL);
	if (!a.lib)
		return diag_set(d, -ENOSYS, "started by mpirun, but cannot load %s: %s",
				GDRLAB_MPI_LIBRARY, dlerror());
	missing = "MPI_Init";
	SYM(init, "MPI_Init");
	missing = "MPI_Initialized";
	SYM(initialized, "MPI_Initialized");
	SYM(finalized, "MPI_Finalized");
	SYM(finalize, "MPI_Finalize");
	SYM(comm_rank, "MPI_Comm_rank");
	SYM(comm_size, "MPI_Comm_size");
	SYM(iallgather, "MPI_Iallgather");
	SYM(test, "MPI_Test");
	SYM(abort, "MPI_Abort");
	SYM(error_string, "MPI_Error_string");
	/* Open MPI's MPI_COMM_WORLD and MPI_BYTE are these objects */
	missing = "ompi_mpi_comm_world (is this Open MPI?)";
	SYM(world, "ompi_mpi_comm_world");
	SYM(byte, "ompi_mpi_byte");
	mpi = a;
	return 0;
missing:
	dlclose(a.lib);
	return diag_set(d, -ENOSYS, "%s has no %s", GDRLAB_MPI_LIBRARY, missing);
}

int boot_mpi_init(struct boot *b, int timeout_ms, struct diag *d)
{
	int inited = 0, rank, size, rc;
	int err = mpi_load(d);

	if (err)
		return err;
	barrier_ms = timeout_ms;
	mpi.initialized(&inited);
	if (!inited) {
		rc = mpi.init(NULL, NULL);
		if (rc != MPI_SUCCESS)
			return mpi_error(d, "MPI_Init", rc);
		atexit(mpi_finalize);
	}
	mpi.comm_rank(mpi.world, &rank);
	mpi.comm_size(mpi.world, &size);
	b->ops = &boot_mpi_ops;
	b->rank = (unsigned)rank;
	b->size = (unsigned)size;
	b->abort_fd = -1; /* mpirun ends every rank when one dies */
	b->fd = -1;
	b->priv = NULL;
	return 0;
}
