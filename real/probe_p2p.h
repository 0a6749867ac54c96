/* SPDX-License-Identifier: MIT */
/*
 * probe_p2p: how NCCL would copy between each two GPUs of the probed
 * machine: peer to peer (NVLink, or PCIe within the P2P level) or through
 * host memory (its SHM transport), by the rule of the newest release gdrlab
 * has tables for, NCCL_P2P_LEVEL unset (engine/p2p_policy.h).
 *
 * The pairs are judged on the topology `--emit-topology` writes, read
 * back, so the probe and a model of the same machine agree: its NVLinks
 * (none where NVML was not read), CPU vendor (Intel where unknown) and
 * peer access (allowed where CUDA was not asked) are the emitted ones.
 */
#ifndef GDRLAB_PROBE_P2P_H
#define GDRLAB_PROBE_P2P_H

#include <stdbool.h>

#include "probe_sysfs.h"
#include "topology.h"

/*
 * The probed machine as a gdrlab topology (probe_emit_topology's file,
 * loaded); NULL with @d set where none can be written (no GPU or no RDMA
 * device) or read. Free it.
 */
struct topology *probe_topology(const struct probe *p, struct diag *d);

struct probe_p2p {
	const char *path; /* "NVL", "NVB" (NVLink through a GPU between),
			   * or the PCIe class: "PIX" ... "SYS" */
	bool shm;         /* through host memory */
	char why[PROBE_WHY_MAX]; /* why, where shm */
};

/* GPUs @a and @b of @t (probe_topology's), @t's GPUs all one
 * communicator's. */
void probe_p2p_pair(const struct topology *t, unsigned a, unsigned b, struct probe_p2p *out);

#endif
