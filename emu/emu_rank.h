/* SPDX-License-Identifier: MIT */
/* What one emu rank does, however it was started (forked, mpirun, srun). */
#ifndef GDRLAB_EMU_RANK_H
#define GDRLAB_EMU_RANK_H

#include <stdbool.h>
#include <stdint.h>

#include "boot.h"
#include "plan.h"
#include "verbs_path.h"

/* One collective as one rank measured it. */
struct emu_rank_coll {
	double time_us;
	double stage_us[STAGE_KIND_COUNT];
	uint64_t stage_bytes[STAGE_KIND_COUNT];
	uint64_t verified, errors;
	char registration[16]; /* vp_registration(): "host", "dmabuf", ... */
	struct records_link link; /* vp_link() */
};

/*
 * Where a rank's "GPU" memory comes from. NULL open: host memory. Opened
 * in the rank's own process (CUDA state does not survive fork), closed
 * after the data path; local_rank is the rank's index within its node.
 */
struct emu_mem {
	int (*open)(void *arg, unsigned rank, unsigned local_rank,
		    const struct vp_mem_ops **ops, void **ctx, struct diag *d);
	void (*close)(void *ctx);
	void *arg;
};

struct emu_rank_args {
	const struct plan *plan;
	const struct emu_mem *mem; /* NULL: host memory */
	const char *device; /* this rank's RDMA device */
	const struct ib_config *ib; /* port, GID, TC, SL (NCCL_IB_*) */
	/* Started by a launcher (mpirun, srun): its index of this process on
	 * its host picks the GPU. Forked: the plan's rank % GPUs per node. */
	bool launched;
	unsigned local_rank;
	int timeout_ms;
	int barrier_ms;     /* forked: the hub's wait for the last rank at a
			     * barrier (GDRLAB_BOOT_TIMEOUT) */
	int grace_ms;       /* forked: how long the ranks have to leave after
			     * an abort before the hub kills them; 0: 10 s */
	int spin_us;        /* vp_config.spin_us */
	bool bind_cpus;     /* forked: rank r on the r-th CPU of the ones
			     * gdrlab may use, where there is one a rank */
	unsigned pingpong_rounds; /* emu_pingpong() before the first
				   * collective; 0: none */
	/* rank 0 under a launcher reports progress here (may be NULL) */
	struct records *progress;
};

/*
 * Open the data path, run every collective of the plan with barriers in
 * between, check the data, close everything. @out holds one entry per
 * collective. Every rank returns the same error: the lowest failing rank's.
 */
int emu_rank_main(const struct emu_rank_args *a, struct boot *b,
		  struct emu_rank_coll *out, struct diag *d);

/*
 * Fork the ranks and relay their bootstrap (emu_hub.c): devices[r] is rank
 * r's device. Fills @all (nranks x ncoll entries) on success.
 */
int emu_hub_run(const struct emu_rank_args *a, const char *const *devices,
		struct emu_rank_coll *all, struct diag *d);

#endif
