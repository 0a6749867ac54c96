/* SPDX-License-Identifier: MIT */
#include "p2p_policy.h"

#include "nccl_tuning.h"
#include "topo_path.h"

/* The farthest PCIe class NCCL copies peer to peer over (paths.cc
 * p2pLevel: v2.8.4-1:268-288, v2.21.5-1:279-298, v2.30.7-1:356-362). */
static enum topo_path_type p2p_level(const struct nccl_release *r, const struct topology *t,
				     unsigned node_gpus)
{
	switch (r ? r->p2p_level : NCCL_P2P_LEVEL_PXB) {
	case NCCL_P2P_LEVEL_VENDOR_284:
		/* gdrlab has no CPU model: Intel taken as after Broadwell */
		return t->cpu_vendor == TOPO_CPU_INTEL ? TOPO_PATH_PHB :
		       t->cpu_vendor == TOPO_CPU_ARM	? TOPO_PATH_PXB :
							  TOPO_PATH_SYS;
	case NCCL_P2P_LEVEL_VENDOR:
		return t->cpu_vendor == TOPO_CPU_AMD ? TOPO_PATH_SYS : TOPO_PATH_PXB;
	case NCCL_P2P_LEVEL_PXB:
	default:
		/* "Allow P2P between pairs of GPU devices on AMD systems" */
		return t->cpu_vendor == TOPO_CPU_AMD && node_gpus <= 2 ? TOPO_PATH_SYS :
									  TOPO_PATH_PXB;
	}
}

bool p2p_allowed(const struct nccl_release *r, const struct topology *t, unsigned a,
		 unsigned b, unsigned node_gpus)
{
	unsigned via, links;

	if (topo_nvlink_way(t, a, b, &via) != TOPO_NVLINK_NONE)
		return true;
	/* cudaDeviceCanAccessPeer says no (p2p.cc p2pCanConnect) */
	if (t->gpus[a].no_peer_access || t->gpus[b].no_peer_access)
		return false;
	return topo_gpu_gpu_path(t, a, b, &links) <= p2p_level(r, t, node_gpus);
}
