/* SPDX-License-Identifier: MIT */
/*
 * topo_path: how far apart two devices of a node are, in NCCL's terms, and
 * the links a transfer between two points of a node crosses.
 */
#ifndef GDRLAB_TOPO_PATH_H
#define GDRLAB_TOPO_PATH_H

#include <stdbool.h>

#include "topology.h"

/*
 * NCCL's path classes between a GPU and a NIC (src/graph/topo.h), nearest
 * first. The order matters: a GDR level allows every class up to itself.
 */
enum topo_path_type {
	TOPO_PATH_PIX, /* at most one PCIe switch between them */
	TOPO_PATH_PXB, /* several switches, not through the CPU */
	TOPO_PATH_P2C, /* the GPU's NVLink-C2C to its CPU, then PCIe to the
			* NIC (Grace Hopper) */
	TOPO_PATH_PHB, /* through the root complex of one CPU */
	TOPO_PATH_SYS, /* across the inter-socket link */
	TOPO_PATH_COUNT,
};

/* The PCIe levels `gdrlab probe` tabulates, nearest first. */
extern const enum topo_path_type topo_pcie_levels[4];

const char *topo_path_name(enum topo_path_type t); /* "PIX", ... */
/* "pix"... (case-insensitive) -> 0 and *t, or -EINVAL. */
int topo_path_parse(const char *s, enum topo_path_type *t);

/*
 * NCCL's old numbers for a level (NCCL_P2P_LEVEL, NCCL_NET_GDR_LEVEL), as
 * paths.cc ncclGetLevel reads a value that is no class name: 0 LOC, 1 PIX,
 * 2 PXB, 3 PHB, 4 and above SYS (levelsOldToNew, the same from v2.6.4-1 to
 * v2.30.7-1, so no release reads them differently). @s a whole decimal
 * number -> its class name ("LOC"...), else NULL.
 */
const char *topo_level_old_name(const char *s);

/*
 * NCCL_NET_GDR_LEVEL as NCCL reads it: a class name (topo_path_parse) or an
 * old number (topo_level_old_name). 0 and *@t; -ERANGE for 0 (LOC: no NIC
 * is that near, so GPUDirect RDMA is never used); -EINVAL else.
 */
int topo_gdr_level_parse(const char *s, enum topo_path_type *t);
/* What it takes, for an error's "expected ...". */
#define TOPO_GDR_LEVEL_FORMS \
	"pix, pxb, p2c, phb, sys or NCCL's old numbers (1 pix, 2 pxb, 3 phb, 4 and above sys)"

enum topo_path_type topo_gpu_nic_path(const struct topology *topo, int gpu,
				      int nic);

/* The PCIe class between GPUs @a and @b (PIX, PXB, PHB, SYS) and, in
 * *@links, the links a PCIe path between them crosses (NCCL's path
 * count, its tie-break between graphs of one bandwidth). */
enum topo_path_type topo_gpu_gpu_path(const struct topology *topo, unsigned a, unsigned b,
				      unsigned *links);

/* The links a PCIe path from GPU @gpu to NIC @nic crosses. */
unsigned topo_gpu_nic_links(const struct topology *topo, unsigned gpu, unsigned nic);

/*
 * The NIC a GPU uses for traffic leaving the node: the nearest one; among
 * equally near ones, GPUs are spread round-robin so that every NIC carries
 * traffic (NCCL does the same in its channel search).
 */
int topo_nearest_nic(const struct topology *topo, int gpu);

/* Fill @t's nearest_nics from its devices as they stand; the reader
 * calls it once the file is whole. */
void topo_cache_paths(struct topology *t);

/* Whether @nic is among the NICs nearest to @gpu. */
bool topo_nic_is_nearest(const struct topology *topo, unsigned gpu, int nic);

/* The @rank-th NIC (by index) at class @cls from @gpu, or -1. */
int topo_nic_at_class(const struct topology *topo, unsigned gpu, enum topo_path_type cls,
		      unsigned rank);

/*
 * The same, turned @rotation places along the GPU's equally near NICs:
 * NCCL's channels rotate over the NICs, so a GPU with four equally near
 * NICs sends channel c through the (k + c) mod 4-th, k its own place.
 */
int topo_nearest_nic_rotated(const struct topology *topo, int gpu,
			     unsigned rotation);

/*
 * How GPU @a's data reaches GPU @b of the same node over NVLink, as
 * NCCL's paths.cc finds it: by the links of their own pair (PATH_NVL;
 * on NVSwitches and unwired meshes every pair), through one GPU wired to
 * both (PATH_NVB, *@via: the one whose two pairs have the most links,
 * the lowest index at a tie), or not at all (PCIe peer-to-peer).
 */
enum topo_nvlink_way {
	TOPO_NVLINK_DIRECT,
	TOPO_NVLINK_VIA,
	TOPO_NVLINK_NONE,
};

enum topo_nvlink_way topo_nvlink_way(const struct topology *topo, unsigned a,
				     unsigned b, unsigned *via);

/*
 * The pairs of a wired mesh a transfer from GPU @a to GPU @b crosses, in
 * @pairs as indices a x GPUs + b (RES_NVLINK_PAIR's): one over their own
 * pair, two through a GPU between; none over PCIe or where the mesh is
 * not wired (an NVSwitch, a mesh counted per GPU).
 */
unsigned topo_wired_pairs(const struct topology *topo, unsigned a, unsigned b,
			  unsigned pairs[2]);

#endif
