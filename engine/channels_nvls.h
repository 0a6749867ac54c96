/* SPDX-License-Identifier: MIT */
/*
 * channels_nvls: NVLS's graph (search.cc ncclTopoSearchTryNvls: a channel
 * a head, across nodes one head a NIC) and the communicator's figures its
 * tuning reads (minNetBw, ncclNvlsTuning), for channels_search.c.
 * channels_nvls_head, which the algorithms read, is in channels.h.
 */
#ifndef GDRLAB_CHANNELS_NVLS_H
#define GDRLAB_CHANNELS_NVLS_H

#include "channels.h"

/* NVLS's graph for @ppn GPUs @gpus a node over @nnodes nodes; no
 * channels where the node's NVSwitch has no NVLS or release @r none. */
void channels_search_nvls(const struct nccl_release *r, const struct search_env *env,
			  const struct topology *t, const unsigned *gpus, unsigned nnodes,
			  unsigned ppn, struct nccl_graph *g);

/* comm->minNetBw (topo.cc ncclTopoGetMinNetBw) of @ppn GPUs a node, GB/s. */
double channels_min_net_bw(const struct nccl_release *r, const struct topology *t,
			   unsigned ppn);

/* ncclNvlsTuning (nccl_tuning.h) on @out's NVLS graph and minNetBw: its
 * channels and chunks, where the graph has channels. */
void channels_nvls_tuning(const struct nccl_release *r, const struct topology *t,
			  unsigned nnodes, unsigned ppn, struct nccl_channels *out);

#endif
