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

	if (path <= level)
		return true;
	if (gpu < 0 || (unsigned)gpu >= topo->ngpus || nic < 0 ||
	    (unsigned)nic >= topo->nnics) {
		if (why)
			snprintf(why, len, "no GPU %d or NIC %d in this node", gpu, nic);
		return false;
	}
	if (why)
		snprintf(why, len, "%s-%s path is %s (%s), beyond GDR level %s",
			 topo->gpus[gpu].name, topo->nics[nic].dev.name,
			 topo_path_name(path), path_meaning[path],
			 topo_path_name(level));
	return false;
}
