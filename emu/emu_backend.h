/* SPDX-License-Identifier: MIT */
/*
 * The emu backend (emu_backend.c). Without libibverbs at configure time it
 * is left out of the build and listed as absent with the reason, as the
 * SimGrid backend is (model/simgrid.h), so cli/all_backends.c needs no
 * #ifdef.
 */
#ifndef GDRLAB_EMU_BACKEND_H
#define GDRLAB_EMU_BACKEND_H

#include "backend.h"

#ifdef GDRLAB_HAVE_EMU
extern const struct backend_ops emu_backend_ops;

struct emu_mem; /* emu_rank.h */
/* emu's run with another memory than host memory (the real backend's CUDA
 * memory): devices, fork or mpirun, checks and records as emu's own. */
int emu_run_with(const struct plan *p, struct records *rec,
		 const struct emu_mem *mem, struct diag *d);
#define EMU_BACKEND_ENTRY &emu_backend_ops,
#define EMU_BACKEND_ABSENT_ENTRY
#else
#define EMU_BACKEND_ENTRY
#define EMU_BACKEND_ABSENT_ENTRY                                               \
	{ "emu", "libibverbs was not found when gdrlab was built "             \
		 "(pkg-config libibverbs; Debian: libibverbs-dev)" },
#endif

#endif
