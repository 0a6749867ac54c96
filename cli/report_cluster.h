/* SPDX-License-Identifier: MIT */
/*
 * A node of the cluster in gdrlab report's page: its PCIe tree drawn
 * (sockets, switches, GPUs, NICs) and each GPU-NIC pair's path class and
 * GPUDirect RDMA verdict, as 'gdrlab probe' prints them.
 */
#ifndef GDRLAB_REPORT_CLUSTER_H
#define GDRLAB_REPORT_CLUSTER_H

#include <stdio.h>

#include "topo_path.h"

/* @t's tree as an inline SVG, then the GPU x NIC table at GDR level
 * @level; for a run whose path @staged_path ("staged", "staged-memcpy")
 * never uses GPUDirect RDMA, every pair staged and said why (NULL: as
 * the GDR level decides). */
void report_cluster(FILE *f, const struct topology *t, enum topo_path_type level,
		    const char *staged_path);

#endif
