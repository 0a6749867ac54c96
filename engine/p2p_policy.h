/* SPDX-License-Identifier: MIT */
/*
 * p2p_policy: do two GPUs of a node copy to each other peer to peer, or
 * through host memory?
 *
 * As NCCL decides (src/graph/paths.cc ncclTopoCheckP2p): over NVLink
 * always; over PCIe while the pair's path class is within the release's
 * P2P level (nccl_tuning.h, enum nccl_p2p_level) and CUDA lets the two
 * access each other (topology `peer_access: false` says it does not);
 * else NCCL's SHM transport carries the data through a host buffer
 * (route.c).
 * NCCL_P2P_LEVEL is not modelled.
 */
#ifndef GDRLAB_P2P_POLICY_H
#define GDRLAB_P2P_POLICY_H

#include <stdbool.h>

#include "topology.h"

struct nccl_release;

/*
 * Whether GPUs @a and @b of a node copy peer to peer under release @r,
 * in a communicator of @node_gpus GPUs on that node (2.23 on, an AMD node
 * of at most two lets them at any distance).
 */
bool p2p_allowed(const struct nccl_release *r, const struct topology *t, unsigned a,
		 unsigned b, unsigned node_gpus);

#endif
