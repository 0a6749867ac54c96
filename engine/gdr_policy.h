/* SPDX-License-Identifier: MIT */
/*
 * gdr_policy: may the NIC read or write this GPU's memory directly?
 *
 * As NCCL decides (src/graph/paths.cc, NCCL_NET_GDR_LEVEL): GPUDirect RDMA
 * is used between a GPU and a NIC only when their path class is no farther
 * than the GDR level; the default level is P2C (NCCL 2.27 and later:
 * through PCIe switches, or a GPU's NVLink-C2C to its own CPU; never
 * through a CPU's PCIe root complex), and never for a GPU CUDA says has
 * no GPUDirect RDMA (topology `gdr: false`: GeForce cards).
 */
#ifndef GDRLAB_GDR_POLICY_H
#define GDRLAB_GDR_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#include "topo_path.h"

#define GDR_LEVEL_DEFAULT TOPO_PATH_P2C

/*
 * Whether direct is allowed for @gpu with @nic at @level. When it is not and
 * @why is not NULL, a one-line reason is written there.
 */
bool gdr_allowed(const struct topology *topo, int gpu, int nic,
		 enum topo_path_type level, char *why, size_t len);

/*
 * PXN (NCCL 2.12+, src/graph/paths.cc, "Update paths for NICs"): the GPU
 * whose NIC @gpu sends through over NVLink, or -1. NCCL relays a GPU's
 * sends through the NIC's own GPU when NVLink joins the two, that GPU is
 * within P2C of the NIC with GPUDirect RDMA allowed at @level, and @gpu's
 * own path to the NIC goes through a CPU (PHB, SYS). NCCL then also judges
 * @gpu's receives from that NIC by the relay's distance: the NIC writes
 * into @gpu's memory directly. (NCCL's other case, a relay with more
 * bandwidth to the NIC over an equally near path, is not modelled.)
 */
int gdr_pxn_relay(const struct topology *topo, int gpu, int nic,
		  enum topo_path_type level);

#endif
