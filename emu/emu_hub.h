/* SPDX-License-Identifier: MIT */
/*
 * The fork hub with any rank body (emu_hub.c). emu_hub_run (emu_rank.h)
 * forks emu_rank_main on each RDMA device; tests/emu/test_emu_hub.c forks
 * ranks that stop, hang or leave at chosen points of the bootstrap, which
 * is how the hub's bounds are checked without a device or a guest.
 */
#ifndef GDRLAB_EMU_HUB_H
#define GDRLAB_EMU_HUB_H

#include "emu_rank.h"

/*
 * What forked rank @rank of @n runs, with its end @fd of the socket to the
 * hub (boot_fork_init) and its device from emu_hub_run's @devices: the
 * process's exit status.
 */
typedef int emu_hub_rank_fn(const struct emu_rank_args *a, const char *device,
			    unsigned rank, unsigned n, int fd);

int emu_hub_run_ranks(const struct emu_rank_args *a,
		      const char *const *devices, emu_hub_rank_fn *rank_main,
		      struct emu_rank_coll *all, struct diag *d);

/*
 * A forked rank's first call: SIGKILL it when the hub (gdrlab) dies, so
 * that a hub killed outright leaves no rank holding RDMA resources behind
 * it (each would otherwise run to its own time-out).
 */
void emu_hub_die_with_parent(void);

#endif
