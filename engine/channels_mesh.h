/* SPDX-License-Identifier: MIT */
/*
 * channels_mesh: the order a channel takes through the GPUs of a wired
 * NVLink mesh (topology.h gpu_fabric.wired: DGX-1's hybrid cube-mesh,
 * NVLink bridges between pairs of PCIe cards), as NCCL's search finds it:
 * the narrowest typeInter, then typeIntra, a chain can have (a pair's own
 * links before a GPU between before PCIe's classes; across nodes NCCL
 * never widens typeIntra past typeInter, so where the chain must cross
 * the CPUs it may leave by a GPU as far from the NIC), then the order
 * whose busiest pair leaves the channel the most links, counted with the
 * channels before it, then the fewest links crossed. Its last GPU is the
 * one it leaves the node by. channels.c lays every channel out through
 * it on such a mesh.
 */
#ifndef GDRLAB_CHANNELS_MESH_H
#define GDRLAB_CHANNELS_MESH_H

#include <stdbool.h>

#include "topology.h"

struct nccl_release;

/* Where channel @c of a layout enters the node (an index into the GPUs)
 * and the NIC it enters and leaves by; @nic < 0 for a ring closing inside
 * the node. */
typedef void (*mesh_ends_fn)(const struct nccl_release *r, const struct topology *t,
			     const unsigned *gpus, unsigned n, unsigned c, bool network,
			     int *entry, int *nic);

/*
 * The order of channel @channel over the @n GPUs @gpus (indices into
 * @gpus, @order[0] its entry): from its entry through every GPU, leaving
 * the node from the last by its NIC, or round a ring closing at its
 * entry, every channel before it laid out first (@ends gives each one's
 * entry and NIC). Results are kept for the last mesh and GPUs asked about.
 */
void mesh_order(const struct nccl_release *r, const struct topology *t, const unsigned *gpus,
		unsigned n, unsigned channel, bool network, mesh_ends_fn ends, unsigned *order);

#endif
