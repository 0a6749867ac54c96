/* SPDX-License-Identifier: MIT */
/*
 * probe_nvlink: a GPU's NVLinks as NCCL reads them (NVML, link by link:
 * xml.cc ncclTopoGetXmlFromGpu), what is at their far ends, and the GPU
 * fabric of the node they make, for the topology file `probe` writes.
 * probe_driver.c asks NVML; what is here needs no driver and is tested on
 * the captured trees.
 */
#ifndef GDRLAB_PROBE_NVLINK_H
#define GDRLAB_PROBE_NVLINK_H

#include "probe_sysfs.h"

/*
 * Count one active NVLink of @g to the device at bus id @target, as NVML
 * gives it (any case, any domain width; "" or unprintable when the far end
 * is not visible, as NVSwitches in a VM). -E2BIG when @g already has links
 * to as many devices as a probe holds.
 */
int probe_nvlink_add(struct probe_gpu *g, const char *target);

/*
 * Each link's far end: a GPU of the probe, else by its PCI class in the
 * tree read (0x068001: an IBM NPU, the CPU), else an NVSwitch, as NCCL
 * takes a device it cannot see or classify (xml.cc, "assuming NVSwitch").
 */
void probe_nvlink_classify(struct probe *p);

/* NCCL's NVLink bandwidth a link, GB/s each way (topo.h ncclTopoNVLinkBw). */
double probe_nvlink_bw(int sm);

/* The topology file's gpu_arch for compute capability @sm (x 10), by
 * NCCL's tuning index (tuning.cc compCapIndex); NULL when @sm is 0. */
const char *probe_gpu_arch(int sm);

enum probe_fabric_kind {
	PROBE_FABRIC_UNKNOWN,  /* NVML not read for some GPU */
	PROBE_FABRIC_PCIE,     /* no GPU has an NVLink to a GPU or a switch */
	PROBE_FABRIC_NVSWITCH, /* some GPU's NVLinks go to NVSwitches */
	PROBE_FABRIC_NVLINK,   /* NVLinks between GPUs only: a mesh */
};

struct probe_fabric {
	enum probe_fabric_kind kind;
	unsigned links; /* nvswitch: the fewest NVLinks a GPU has to switches */
	bool uneven;    /* nvswitch: GPUs have different counts */
	int sm;         /* the lowest compute capability known (NCCL's minCompCap); 0 none */
	bool nvls;      /* nvswitch, and every GPU has multicast */
};

void probe_nvlink_fabric(const struct probe *p, struct probe_fabric *f);

/* NVLinks between GPUs @a and @b: the fewer of the two GPUs' counts. */
unsigned probe_nvlink_pair(const struct probe *p, unsigned a, unsigned b);

#endif
