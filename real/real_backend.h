/* SPDX-License-Identifier: MIT */
/*
 * The real backend (real_backend.c): CUDA memory over real RDMA NICs. It
 * rides on emu's verbs data path, so it is built when emu is (libibverbs
 * found); otherwise listed as absent with the reason, as emu_backend.h
 * does, so cli/all_backends.c needs no #ifdef. CUDA itself is never a
 * build requirement: the driver is dlopen'ed (cuda_driver.h).
 */
#ifndef GDRLAB_REAL_BACKEND_H
#define GDRLAB_REAL_BACKEND_H

#include "backend.h"
#include "diag.h"

#ifdef GDRLAB_HAVE_REAL
extern const struct backend_ops real_backend_ops;
#define REAL_BACKEND_ENTRY &real_backend_ops,
#define REAL_BACKEND_ABSENT_ENTRY
#else
#define REAL_BACKEND_ENTRY
#define REAL_BACKEND_ABSENT_ENTRY                                              \
	{ "real", "libibverbs was not found when gdrlab was built "            \
		  "(pkg-config libibverbs; Debian: libibverbs-dev)" },
#endif

struct vp_mem_ops;

/*
 * The per-rank memory of a real run, opened in the rank's own process
 * (CUDA state does not survive fork): CUDA device @local_rank modulo the
 * devices the driver sees, as NCCL maps local ranks to GPUs.
 */
int real_mem_open(void *arg, unsigned rank, unsigned local_rank,
		  const struct vp_mem_ops **ops, void **ctx, struct diag *d);
void real_mem_close(void *ctx);

#endif
