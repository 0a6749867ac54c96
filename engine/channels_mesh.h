/* SPDX-License-Identifier: MIT */
/*
 * channels_mesh: the order a channel takes through the GPUs of a wired
 * NVLink mesh (topology.h gpu_fabric.wired: DGX-1's hybrid cube-mesh,
 * NVLink bridges between pairs of PCIe cards), where the next GPU must be
 * one the current shares links with, as NCCL's search finds it: a hop over
 * a pair's own links (PATH_NVL) before one through a GPU between
 * (PATH_NVB) before one over PCIe (search.cc widens typeIntra only where
 * no channel is found), and among those the order whose busiest pair
 * leaves the channel the most links, counted with the channels before it
 * (each channel searched after the previous ones took their links).
 * channels.c lays every channel out through it on such a mesh.
 */
#ifndef GDRLAB_CHANNELS_MESH_H
#define GDRLAB_CHANNELS_MESH_H

#include <stdbool.h>

#include "topology.h"

/* Where channel @c of a layout enters and leaves the node: indices into
 * the GPUs; @exit < 0 for a ring closing inside the node. */
typedef void (*mesh_ends_fn)(const struct topology *t, const unsigned *gpus, unsigned n,
			     unsigned c, bool network, int *entry, int *exit);

/*
 * The order of channel @channel over the @n GPUs @gpus (indices into
 * @gpus, @order[0] its entry): from its entry to its exit, or round a
 * ring closing at its entry, every channel before it laid out first
 * (@ends gives each one's ends). Results are kept for the last mesh and
 * GPUs asked about.
 */
void mesh_order(const struct topology *t, const unsigned *gpus, unsigned n,
		unsigned channel, bool network, mesh_ends_fn ends, unsigned *order);

#endif
