/* SPDX-License-Identifier: MIT */
/*
 * topo_path: NCCL's GPU<->NIC distance classes (src/graph/paths.cc) on
 * gdrlab's PCIe tree, and the NIC each GPU sends through.
 */
#include "topo_path.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *const path_names[TOPO_PATH_COUNT] = {
	[TOPO_PATH_PIX] = "PIX",
	[TOPO_PATH_PXB] = "PXB",
	[TOPO_PATH_P2C] = "P2C",
	[TOPO_PATH_PHB] = "PHB",
	[TOPO_PATH_SYS] = "SYS",
};

const enum topo_path_type topo_pcie_levels[4] = {
	TOPO_PATH_PIX, TOPO_PATH_PXB, TOPO_PATH_PHB, TOPO_PATH_SYS,
};

#define NPATHS (sizeof(path_names) / sizeof(path_names[0]))

const char *topo_path_name(enum topo_path_type t)
{
	if ((unsigned)t >= NPATHS)
		return "?";
	return path_names[t];
}

int topo_path_parse(const char *s, enum topo_path_type *t)
{
	unsigned i, k;

	if (!s)
		return -EINVAL;
	for (i = 0; i < NPATHS; i++) {
		for (k = 0; path_names[i][k] &&
			    toupper((unsigned char)s[k]) == path_names[i][k];
		     k++)
			;
		if (!path_names[i][k] && !s[k]) {
			*t = (enum topo_path_type)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *topo_level_old_name(const char *s)
{
	/* v2.30.7-1 paths.cc:243 levelsOldToNew; larger numbers are its last */
	static const char *const old[] = { "LOC", "PIX", "PXB", "PHB", "SYS" };
	const unsigned last = sizeof(old) / sizeof(old[0]) - 1;
	char *end;
	unsigned long n;

	if (!s || !isdigit((unsigned char)s[0]))
		return NULL;
	errno = 0;
	n = strtoul(s, &end, 10);
	if (*end)
		return NULL;
	return old[errno || n > last ? last : n];
}

int topo_gdr_level_parse(const char *s, enum topo_path_type *t)
{
	const char *old = topo_level_old_name(s);

	if (old && !strcmp(old, "LOC"))
		return -ERANGE;
	return topo_path_parse(old ? old : s, t);
}

static bool switch_ok(const struct topology *topo, int sw)
{
	return sw >= 0 && (unsigned)sw < topo->nswitches &&
	       sw < TOPO_MAX_SWITCHES;
}

/*
 * Whether switch @anc is @sw or above it. The walk is bounded by the
 * number of switches so that a cycle in a hand-built struct cannot hang us.
 */
static bool switch_is_ancestor(const struct topology *topo, int anc, int sw)
{
	unsigned k;

	for (k = 0; k <= topo->nswitches && switch_ok(topo, sw); k++) {
		if (sw == anc)
			return true;
		sw = topo->switches[sw].parent_switch;
	}
	return false;
}

/* The links from a device under switch @sw (TOPO_NONE: on a root port)
 * up to switch @top (TOPO_NONE: its CPU): its own, and the uplink of each
 * switch it passes below @top. */
static unsigned links_up(const struct topology *topo, int sw, int top)
{
	unsigned links = 1;

	for (unsigned k = 0; sw != top && switch_ok(topo, sw) && k <= topo->nswitches; k++) {
		links++;
		sw = topo->switches[sw].parent_switch;
	}
	return links;
}

/*
 * The PCIe class between two devices of a node: PIX, same parent switch;
 * PXB, different parents under a common switch; PHB, same socket, the
 * lowest common ancestor the root complex (which includes a device sitting
 * directly on a root port); SYS, across the inter-socket link. *@links:
 * the links a path between them crosses, as NCCL counts a path's hops
 * (each device's link, each switch's uplink up to the common point, the
 * link between the sockets).
 */
static enum topo_path_type device_path(const struct topology *topo, const struct topo_device *a,
				       const struct topo_device *b, unsigned *links)
{
	int sw = a->parent_switch;

	if (a->socket != b->socket) {
		*links = links_up(topo, a->parent_switch, TOPO_NONE) +
			 links_up(topo, b->parent_switch, TOPO_NONE) + 1;
		return TOPO_PATH_SYS;
	}
	/* up from a, one switch at a time, until b is below */
	for (unsigned k = 0; k <= topo->nswitches && switch_ok(topo, sw); k++) {
		if (switch_ok(topo, b->parent_switch) &&
		    switch_is_ancestor(topo, sw, b->parent_switch)) {
			*links = links_up(topo, a->parent_switch, sw) +
				 links_up(topo, b->parent_switch, sw);
			return sw == a->parent_switch && sw == b->parent_switch ? TOPO_PATH_PIX :
										  TOPO_PATH_PXB;
		}
		sw = topo->switches[sw].parent_switch;
	}
	*links = links_up(topo, a->parent_switch, TOPO_NONE) +
		 links_up(topo, b->parent_switch, TOPO_NONE);
	return TOPO_PATH_PHB;
}

/* A GPU on NVLink-C2C reaches a NIC of its socket through its CPU (NCCL's
 * PATH_P2C, src/graph/paths.cc). Out-of-range indices give SYS, the class
 * that no GDR level short of SYS allows. */
enum topo_path_type topo_gpu_nic_path(const struct topology *topo, int gpu,
				      int nic)
{
	unsigned links;

	if (gpu < 0 || (unsigned)gpu >= topo->ngpus || gpu >= TOPO_MAX_GPUS ||
	    nic < 0 || (unsigned)nic >= topo->nnics || nic >= TOPO_MAX_NICS)
		return TOPO_PATH_SYS;
	if (topo->gpus[gpu].link.kind == TOPO_LINK_C2C &&
	    topo->gpus[gpu].socket == topo->nics[nic].dev.socket)
		return TOPO_PATH_P2C;
	return device_path(topo, &topo->gpus[gpu], &topo->nics[nic].dev, &links);
}

unsigned topo_gpu_nic_links(const struct topology *topo, unsigned gpu, unsigned nic)
{
	unsigned links;

	device_path(topo, &topo->gpus[gpu], &topo->nics[nic].dev, &links);
	return links;
}

enum topo_path_type topo_gpu_gpu_path(const struct topology *topo, unsigned a, unsigned b,
				      unsigned *links)
{
	return device_path(topo, &topo->gpus[a], &topo->gpus[b], links);
}

/* The set of NICs nearest to @gpu, as a bit mask (TOPO_MAX_NICS is 64),
 * found by walking the switches. */
static uint64_t walk_nearest_set(const struct topology *topo, int gpu)
{
	enum topo_path_type best = TOPO_PATH_SYS, p;
	uint64_t set = 0;
	unsigned i;

	for (i = 0; i < topo->nnics && i < TOPO_MAX_NICS; i++) {
		p = topo_gpu_nic_path(topo, gpu, (int)i);
		if (p < best) {
			best = p;
			set = 0;
		}
		if (p == best)
			set |= UINT64_C(1) << i;
	}
	return set;
}

void topo_cache_paths(struct topology *t)
{
	for (unsigned g = 0; g < t->ngpus && g < TOPO_MAX_GPUS; g++)
		t->nearest_nics[g] = walk_nearest_set(t, (int)g);
	t->nearest_cached = true;
}

static uint64_t nearest_set(const struct topology *topo, int gpu)
{
	if (topo->nearest_cached && gpu >= 0 && (unsigned)gpu < topo->ngpus &&
	    gpu < TOPO_MAX_GPUS)
		return topo->nearest_nics[gpu];
	return walk_nearest_set(topo, gpu);
}

/*
 * Among equally near NICs, GPU number k of those sharing the same set takes
 * the (k mod n)-th one, so GPUs spread over all the NICs they could use.
 */
int topo_nearest_nic(const struct topology *topo, int gpu)
{
	return topo_nearest_nic_rotated(topo, gpu, 0);
}

bool topo_nic_is_nearest(const struct topology *topo, unsigned gpu, int nic)
{
	return nic >= 0 && nic < TOPO_MAX_NICS &&
	       (nearest_set(topo, (int)gpu) >> (unsigned)nic & 1);
}

int topo_nic_at_class(const struct topology *topo, unsigned gpu, enum topo_path_type cls,
		      unsigned rank)
{
	for (unsigned k = 0; k < topo->nnics; k++)
		if (topo_gpu_nic_path(topo, (int)gpu, (int)k) == cls && !rank--)
			return (int)k;
	return -1;
}

int topo_nearest_nic_rotated(const struct topology *topo, int gpu,
			     unsigned rotation)
{
	uint64_t set;
	unsigned i, k = 0, ncand = 0, pick;
	int g;

	if (gpu < 0 || (unsigned)gpu >= topo->ngpus || gpu >= TOPO_MAX_GPUS)
		return TOPO_NONE;
	set = nearest_set(topo, gpu);
	if (!set)
		return TOPO_NONE;
	for (g = 0; g < gpu; g++)
		if (nearest_set(topo, g) == set)
			k++;
	for (i = 0; i < TOPO_MAX_NICS; i++)
		if (set & (UINT64_C(1) << i))
			ncand++;
	pick = (unsigned)(((uint64_t)k + rotation) % ncand);
	for (i = 0; i < TOPO_MAX_NICS; i++) {
		if (!(set & (UINT64_C(1) << i)))
			continue;
		if (pick-- == 0)
			return (int)i;
	}
	return TOPO_NONE;
}

enum topo_nvlink_way topo_nvlink_way(const struct topology *topo, unsigned a,
				     unsigned b, unsigned *via)
{
	unsigned best = 0;

	*via = a;
	if (!topo_has_nvlink(topo))
		return TOPO_NVLINK_NONE;
	if (!topo->gpu_fabric.wired || topo_pair_links(topo, a, b))
		return TOPO_NVLINK_DIRECT;
	for (unsigned v = 0; v < topo->ngpus; v++) {
		unsigned in = topo_pair_links(topo, a, v), out = topo_pair_links(topo, v, b);
		unsigned links = in < out ? in : out;

		if (v != a && v != b && links > best) {
			best = links;
			*via = v;
		}
	}
	return best ? TOPO_NVLINK_VIA : TOPO_NVLINK_NONE;
}

unsigned topo_wired_pairs(const struct topology *topo, unsigned a, unsigned b,
			  unsigned pairs[2])
{
	unsigned via, n = topo->ngpus;

	if (!topo->gpu_fabric.wired)
		return 0;
	switch (topo_nvlink_way(topo, a, b, &via)) {
	case TOPO_NVLINK_DIRECT:
		pairs[0] = a * n + b;
		return 1;
	case TOPO_NVLINK_VIA:
		pairs[0] = a * n + via;
		pairs[1] = via * n + b;
		return 2;
	default:
		return 0;
	}
}
