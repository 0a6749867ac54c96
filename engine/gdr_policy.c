/* SPDX-License-Identifier: MIT */
#include "gdr_policy.h"

#include <stdio.h>

static const char *const path_meaning[TOPO_PATH_COUNT] = {
	[TOPO_PATH_PIX] = "behind one PCIe switch",
	[TOPO_PATH_PXB] = "across PCIe switches",
	[TOPO_PATH_P2C] = "over NVLink-C2C and the CPU's PCIe",
	[TOPO_PATH_PHB] = "through the CPU root complex",
	[TOPO_PATH_SYS] = "across CPU sockets",
};

bool gdr_allowed(const struct topology *topo, int gpu, int nic,
		 enum topo_path_type level, char *why, size_t len)
{
	enum topo_path_type path = topo_gpu_nic_path(topo, gpu, nic);

	if (gpu < 0 || (unsigned)gpu >= topo->ngpus || nic < 0 ||
	    (unsigned)nic >= topo->nnics) {
		if (why)
			snprintf(why, len, "no GPU %d or NIC %d in this node", gpu, nic);
		return false;
	}
	/* NCCL's gpu.gdrSupport, cudaDevAttrGPUDirectRDMASupported
	 * (paths.cc ncclTopoCheckGdr, plugin/net.cc ncclGpuGdrSupport) */
	if (topo->gpus[gpu].no_gdr) {
		if (why)
			snprintf(why, len, "%s does not support GPUDirect RDMA (gdr: false)",
				 topo->gpus[gpu].name);
		return false;
	}
	if (path <= level)
		return true;
	if (why)
		snprintf(why, len, "%s-%s path is %s (%s), beyond GDR level %s",
			 topo->gpus[gpu].name, topo->nics[nic].dev.name,
			 topo_path_name(path), path_meaning[path],
			 topo_path_name(level));
	return false;
}

/*
 * ncclTopoGetLocalGpu (src/graph/paths.cc): of the GPUs nearest to @nic,
 * the one that takes @nic as its own on the lowest channel (channel c's
 * NIC of each GPU, ncclTopoGetLocalNet); the first of them if none does.
 * Two GPUs that share two NICs so each relay through one NIC of their
 * own, not both through the first GPU's.
 */
static int nic_local_gpu(const struct topology *topo, int nic)
{
	enum topo_path_type best = TOPO_PATH_COUNT;
	int local = -1;

	for (unsigned g = 0; g < topo->ngpus; g++) {
		enum topo_path_type p = topo_gpu_nic_path(topo, (int)g, nic);

		if (p < best) {
			best = p;
			local = (int)g;
		}
	}
	for (unsigned c = 0; c < topo->nnics; c++)
		for (unsigned g = 0; g < topo->ngpus; g++)
			if (topo_gpu_nic_path(topo, (int)g, nic) == best &&
			    topo_nearest_nic_rotated(topo, (int)g, c) == nic)
				return (int)g;
	return local;
}

int gdr_pxn_relay(const struct topology *topo, int gpu, int nic,
		  enum topo_path_type level)
{
	unsigned via;
	int relay;

	if (!topo_has_nvlink(topo) || gpu < 0 || (unsigned)gpu >= topo->ngpus || nic < 0 ||
	    (unsigned)nic >= topo->nnics || topo_gpu_nic_path(topo, gpu, nic) < TOPO_PATH_PHB)
		return -1;
	relay = nic_local_gpu(topo, nic);
	/* PXN sends over NVLink to a peer it shares links with (paths.cc:
	 * the peer's path must be PATH_NVL) */
	if (relay < 0 || relay == gpu ||
	    topo_nvlink_way(topo, (unsigned)gpu, (unsigned)relay, &via) != TOPO_NVLINK_DIRECT ||
	    topo_gpu_nic_path(topo, relay, nic) > TOPO_PATH_P2C ||
	    !gdr_allowed(topo, relay, nic, level, NULL, 0))
		return -1;
	return relay;
}
