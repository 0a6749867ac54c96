/* SPDX-License-Identifier: MIT */
/*
 * probe_verdict: would GPUDirect RDMA be used for a GPU-NIC pair? The
 * checks, in the order that a "no" is reported:
 *   1. the GPU: CUDA's GPU_DIRECT_RDMA_SUPPORTED, what NCCL asks first
 *      (ncclGpuGdrSupport; GeForce cards have none);
 *   2. distance: the pair's class within the GDR level, as
 *      engine/gdr_policy.c and NCCL's ncclTopoCheckGdr decide it;
 *   3. ACS redirect on a bridge where P2P would turn around;
 *   4. a registration path: dma-buf on both the GPU and the NIC (NCCL's
 *      first choice), else nvidia-peermem (net_ib/gdr.cc).
 * What could not be read (ACS as non-root, no driver) gives "maybe".
 * Not checked: the IOMMU mode, NCCL_NET_GDR_READ for pre-Ampere GPUs,
 * BAR1 being large enough for the buffers (shown, not judged).
 */
#include <stdio.h>
#include <string.h>

#include "probe_sysfs.h"

static const char *const meaning[] = {
	[TOPO_PATH_PIX] = "behind one PCIe switch",
	[TOPO_PATH_PXB] = "across PCIe switches",
	[TOPO_PATH_P2C] = "over NVLink-C2C and the CPU's PCIe",
	[TOPO_PATH_PHB] = "through the CPU root complex",
	[TOPO_PATH_SYS] = "across CPU sockets",
};

const char *probe_gdr_name(enum probe_gdr v)
{
	return v == PROBE_GDR_YES ? "yes" : v == PROBE_GDR_NO ? "no" : "maybe";
}

static const char *first_bridge(const struct probe *p,
				const struct probe_pair *pr,
				enum probe_acs_state s)
{
	unsigned i;

	for (i = 0; i < pr->nbridges; i++)
		if (p->bridges[pr->bridges[i]].acs == s)
			return p->bridges[pr->bridges[i]].bdf;
	return "?";
}

enum probe_gdr probe_gdr_verdict(const struct probe *p, unsigned g,
				 unsigned n, enum topo_path_type level,
				 bool allow_p2c, char *why, size_t len)
{
	const struct probe_pair *pr;
	const struct probe_gpu *gpu;
	const struct probe_nic *nic;
	bool dmabuf, dmabuf_no, acs_unknown;

	if (g >= p->ngpus || !probe_nic_in_matrix(p, n)) {
		snprintf(why, len, "no such GPU-NIC pair");
		return PROBE_GDR_NO;
	}
	pr = &p->pairs[g][n];
	gpu = &p->gpus[g];
	nic = &p->nics[n];
	if (gpu->gdr_support == PROBE_NO) {
		snprintf(why, len, "%s has no GPUDirect RDMA (CUDA's GPU_DIRECT_RDMA_SUPPORTED is 0)",
			 gpu->name);
		return PROBE_GDR_NO;
	}
	if (!probe_class_within(pr->cls, level, allow_p2c)) {
		snprintf(why, len, "path %s (%s) is beyond GDR level %s",
			 probe_class_name(pr->cls),
			 pr->cls.p2c ? "GPU over C2C to the CPU, then PCIe" :
				       meaning[pr->cls.type],
			 topo_path_name(level));
		return PROBE_GDR_NO;
	}
	if (pr->acs_redirect) {
		snprintf(why, len, "ACS redirect on bridge %s sends P2P up to the root complex",
			 first_bridge(p, pr, PROBE_ACS_REDIRECT));
		return PROBE_GDR_NO;
	}
	dmabuf = gpu->dmabuf == PROBE_YES && nic->dmabuf == PROBE_YES;
	dmabuf_no = gpu->dmabuf == PROBE_NO || nic->dmabuf == PROBE_NO;
	acs_unknown = pr->acs_unknown;
	if (!dmabuf && p->peermem == PROBE_NO && dmabuf_no) {
		snprintf(why, len, "nvidia-peermem not loaded and no dma-buf (GPU %s, NIC %s)",
			 probe_tri_name(gpu->dmabuf), probe_tri_name(nic->dmabuf));
		return PROBE_GDR_NO;
	}
	if (!dmabuf && p->peermem != PROBE_YES) {
		snprintf(why, len, "cannot tell: peermem %s, dma-buf GPU %s NIC %s%s%s",
			 probe_tri_name(p->peermem), probe_tri_name(gpu->dmabuf),
			 probe_tri_name(nic->dmabuf),
			 acs_unknown ? "; ACS needs root on " : "",
			 acs_unknown ? first_bridge(p, pr, PROBE_ACS_NEEDS_ROOT) : "");
		return PROBE_GDR_MAYBE;
	}
	if (acs_unknown) {
		snprintf(why, len, "cannot tell: ACS of a bridge is unreadable (%s needs root)",
			 first_bridge(p, pr, PROBE_ACS_NEEDS_ROOT));
		return PROBE_GDR_MAYBE;
	}
	snprintf(why, len, "via %s", dmabuf ? "dma-buf" : "nvidia-peermem");
	return PROBE_GDR_YES;
}
