/* SPDX-License-Identifier: MIT */
/*
 * The MPI bootstrap: ranks started by mpirun (Open MPI) exchange their
 * queue pair details with MPI_Allgather; data still moves over verbs.
 * Built only when CMake finds MPI (GDRLAB_HAVE_MPI).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "boot.h"

static void mpi_finalize(void)
{
	int done = 0;

	MPI_Finalized(&done);
	if (!done)
		MPI_Finalize();
}

static int mpi_error(struct diag *d, const char *call, int rc)
{
	char s[MPI_MAX_ERROR_STRING];
	int len = 0;

	MPI_Error_string(rc, s, &len);
	return diag_set(d, -EIO, "%s: %.*s", call, len, s);
}

static int mpi_allgather(struct boot *b, const void *mine, void *all,
			 size_t len, struct diag *d)
{
	int rc = MPI_Allgather(mine, (int)len, MPI_BYTE, all, (int)len, MPI_BYTE,
			       MPI_COMM_WORLD);

	return rc == MPI_SUCCESS ? 0 : mpi_error(d, "MPI_Allgather", rc);
}

static void mpi_close(struct boot *b)
{
	/* MPI_Finalize runs at exit: `gdrlab compare` runs twice. */
}

static const struct boot_ops boot_mpi_ops = {
	.name = "mpi",
	.allgather = mpi_allgather,
	.results = mpi_allgather,
	.close = mpi_close,
};

int boot_mpi_init(struct boot *b, struct diag *d)
{
	int inited = 0, rank, size, rc;

	MPI_Initialized(&inited);
	if (!inited) {
		rc = MPI_Init(NULL, NULL);
		if (rc != MPI_SUCCESS)
			return mpi_error(d, "MPI_Init", rc);
		atexit(mpi_finalize);
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	b->ops = &boot_mpi_ops;
	b->rank = (unsigned)rank;
	b->size = (unsigned)size;
	b->abort_fd = -1; /* mpirun ends every rank when one dies */
	b->fd = -1;
	return 0;
}
