/* SPDX-License-Identifier: MIT */
/*
 * p2p_policy: do two GPUs of a node copy to each other peer to peer, or
 * through host memory?
 *
 * As NCCL decides (src/graph/paths.cc ncclTopoCheckP2p): while the pair's
 * path class is within the P2P level and CUDA lets the two access each
 * other (topology `peer_access: false` says it does not); else NCCL's SHM
 * transport carries the data through a host buffer (route.c), and its
 * search sees the pair's path through the receiver's CPU (paths.cc
 * ncclTopoComputePaths, addInterStep; search_loads.c). The level is the
 * release's (nccl_tuning.h, enum nccl_p2p_level: NVLink always, PCIe by
 * CPU vendor) unless NCCL_P2P_LEVEL or NCCL_P2P_DISABLE sets it
 * (enum p2p_user_level), which may refuse NVLink too.
 */
#ifndef GDRLAB_P2P_POLICY_H
#define GDRLAB_P2P_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#include "topo_path.h"
#include "topology.h"

struct nccl_release;

/*
 * NCCL_P2P_LEVEL as a user sets it: the farthest path class two GPUs copy
 * peer to peer over, NCCL's names (topo.cc topoPathTypeStr) nearest first.
 * LOC is NCCL_P2P_DISABLE=1: not even NVLink. NVB is NVLink through a GPU
 * between (a wired mesh's pairs without links of their own).
 */
enum p2p_user_level {
	P2P_USER_UNSET, /* the release's rule */
	P2P_USER_LOC,
	P2P_USER_NVL,
	P2P_USER_NVB,
	P2P_USER_PIX,
	P2P_USER_PXB,
	P2P_USER_PHB,
	P2P_USER_SYS,
};

/*
 * @s as NCCL reads NCCL_P2P_LEVEL (paths.cc ncclGetLevel): a class name
 * (LOC, NVL, NVB, PIX, PXB, PHB, SYS; any case here) or the old numbers
 * 0-5 (LOC, PIX, PXB, PHB, SYS, SYS; larger ones SYS). 0 and *@out, or
 * -EINVAL.
 */
int p2p_user_level_parse(const char *s, enum p2p_user_level *out);
const char *p2p_user_level_name(enum p2p_user_level l); /* "LOC", ...; "" unset */

/*
 * Whether GPUs @a and @b of a node copy peer to peer under release @r and
 * the user's level @user, in a communicator of @node_gpus GPUs on that
 * node (2.23 on, an AMD node of at most two lets them at any distance).
 */
bool p2p_allowed(const struct nccl_release *r, enum p2p_user_level user,
		 const struct topology *t, unsigned a, unsigned b, unsigned node_gpus);

/* GPUs @a and @b's way as NCCL_P2P_LEVEL names it: "NVL" (their own
 * NVLinks), "NVB" (NVLink through a GPU between), or the PCIe class. */
const char *p2p_pair_class(const struct topology *t, unsigned a, unsigned b);

/*
 * Whether GPUs @a and @b may not copy peer to peer (p2p_allowed's
 * opposite), with why in @why (@len): the user's level, CUDA refusing
 * peer access, or the release's level, with the NCCL_P2P_LEVEL that
 * would allow the pair.
 */
bool p2p_refused(const struct nccl_release *r, enum p2p_user_level user,
		 const struct topology *t, unsigned a, unsigned b, unsigned node_gpus,
		 char *why, size_t len);

/* Whether NVLink pairs may copy peer to peer at level @user: all but
 * LOC (NCCL_P2P_DISABLE=1) let a pair's own links. NVLS's multicast is
 * not peer-to-peer and stays either way. */
static inline bool p2p_nvlink_usable(enum p2p_user_level user)
{
	return user != P2P_USER_LOC;
}

/* The farthest PCIe class release @r copies peer to peer over on @t, in
 * a communicator of @node_gpus GPUs a node, NCCL_P2P_LEVEL unset. */
enum topo_path_type p2p_release_level(const struct nccl_release *r, const struct topology *t,
				      unsigned node_gpus);

/* Whether every two of the @n GPUs @gpus of a node (a communicator's
 * there: NCCL trims the node to them, topo.cc ncclTopoTrimSystem) copy
 * to each other over NVLink, their own pair's or through a GPU between
 * (paths.cc ncclTopoPathAllNVLink: the farthest GPU-GPU path, once
 * refused pairs go through the CPU, is under PATH_PIX). */
bool p2p_all_nvlink(const struct nccl_release *r, enum p2p_user_level user,
		    const struct topology *t, const unsigned *gpus, unsigned n);

/* The class NCCL gives a refused pair's path, through @b's CPU: PHB on
 * one socket, else SYS (addInterStep merges the two halves' classes). */
enum topo_path_type p2p_refused_class(const struct topology *t, unsigned a, unsigned b);

#endif
