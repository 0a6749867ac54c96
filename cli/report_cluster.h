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
 * @level. */
void report_cluster(FILE *f, const struct topology *t, enum topo_path_type level);

#endif
