/* SPDX-License-Identifier: MIT */
#include "p2p_policy.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "nccl_tuning.h"

static const char *const user_names[] = {
	[P2P_USER_LOC] = "LOC", [P2P_USER_NVL] = "NVL", [P2P_USER_NVB] = "NVB",
	[P2P_USER_PIX] = "PIX", [P2P_USER_PXB] = "PXB", [P2P_USER_PHB] = "PHB",
	[P2P_USER_SYS] = "SYS",
};

static bool name_is(const char *s, const char *name)
{
	while (*s && *name && toupper((unsigned char)*s) == *name) {
		s++;
		name++;
	}
	return !*s && !*name;
}

int p2p_user_level_parse(const char *s, enum p2p_user_level *out)
{
	/* a class name, or the old numbers NCCL_NET_GDR_LEVEL shares
	 * (paths.cc ncclGetLevel reads both variables alike) */
	const char *old = topo_level_old_name(s);

	if (!s || !*s)
		return -EINVAL;
	for (unsigned i = P2P_USER_LOC; i <= P2P_USER_SYS; i++)
		if (name_is(old ? old : s, user_names[i])) {
			*out = (enum p2p_user_level)i;
			return 0;
		}
	return -EINVAL;
}

const char *p2p_user_level_name(enum p2p_user_level l)
{
	return l > P2P_USER_UNSET && l <= P2P_USER_SYS ? user_names[l] : "";
}

/* paths.cc p2pLevel: v2.8.4-1:268-288, v2.21.5-1:279-298,
 * v2.30.7-1:356-362. */
enum topo_path_type p2p_release_level(const struct nccl_release *r, const struct topology *t,
				      unsigned node_gpus)
{
	switch (r ? r->p2p_level : NCCL_P2P_LEVEL_PXB) {
	case NCCL_P2P_LEVEL_VENDOR_284:
		/* Intel PHB, but PXB on Broadwell (v2.8.4-1 paths.cc:282-285);
		 * a CPU of no given class is Skylake's */
		if (t->cpu_vendor == TOPO_CPU_INTEL)
			return t->cpu_model == TOPO_CPU_MODEL_BROADWELL ? TOPO_PATH_PXB :
									  TOPO_PATH_PHB;
		return t->cpu_vendor == TOPO_CPU_ARM	? TOPO_PATH_PXB :
							  TOPO_PATH_SYS;
	case NCCL_P2P_LEVEL_VENDOR:
		return t->cpu_vendor == TOPO_CPU_AMD ? TOPO_PATH_SYS : TOPO_PATH_PXB;
	case NCCL_P2P_LEVEL_PXB:
	default:
		/* "Allow P2P between pairs of GPU devices on AMD systems" */
		return t->cpu_vendor == TOPO_CPU_AMD && node_gpus <= 2 ? TOPO_PATH_SYS :
									  TOPO_PATH_PXB;
	}
}

/* The user's level as a PCIe class; below PIX (LOC, NVL, NVB) none. */
static bool user_pcie_level(enum p2p_user_level user, enum topo_path_type *level)
{
	static const enum topo_path_type pcie[] = {
		[P2P_USER_PIX] = TOPO_PATH_PIX, [P2P_USER_PXB] = TOPO_PATH_PXB,
		[P2P_USER_PHB] = TOPO_PATH_PHB, [P2P_USER_SYS] = TOPO_PATH_SYS,
	};

	if (user < P2P_USER_PIX)
		return false;
	*level = pcie[user];
	return true;
}

bool p2p_allowed(const struct nccl_release *r, enum p2p_user_level user,
		 const struct topology *t, unsigned a, unsigned b, unsigned node_gpus)
{
	enum topo_path_type level;
	unsigned via, links;

	switch (topo_nvlink_way(t, a, b, &via)) {
	case TOPO_NVLINK_DIRECT:
		return user == P2P_USER_UNSET || user >= P2P_USER_NVL;
	case TOPO_NVLINK_VIA:
		return user == P2P_USER_UNSET || user >= P2P_USER_NVB;
	case TOPO_NVLINK_NONE:
		break;
	}
	/* cudaDeviceCanAccessPeer says no (p2p.cc p2pCanConnect) */
	if (t->gpus[a].no_peer_access || t->gpus[b].no_peer_access)
		return false;
	if (user == P2P_USER_UNSET)
		level = p2p_release_level(r, t, node_gpus);
	else if (!user_pcie_level(user, &level))
		return false;
	return topo_gpu_gpu_path(t, a, b, &links) <= level;
}

enum topo_path_type p2p_refused_class(const struct topology *t, unsigned a, unsigned b)
{
	return t->gpus[a].socket == t->gpus[b].socket ? TOPO_PATH_PHB : TOPO_PATH_SYS;
}

bool p2p_all_nvlink(const struct nccl_release *r, enum p2p_user_level user,
		    const struct topology *t, const unsigned *gpus, unsigned n)
{
	unsigned via;

	for (unsigned i = 0; i < n; i++)
		for (unsigned j = 0; j < n; j++)
			if (i != j &&
			    (topo_nvlink_way(t, gpus[i], gpus[j], &via) == TOPO_NVLINK_NONE ||
			     !p2p_allowed(r, user, t, gpus[i], gpus[j], n)))
				return false;
	return topo_has_nvlink(t);
}

const char *p2p_pair_class(const struct topology *t, unsigned a, unsigned b)
{
	unsigned via, links;

	switch (topo_nvlink_way(t, a, b, &via)) {
	case TOPO_NVLINK_DIRECT:
		return "NVL";
	case TOPO_NVLINK_VIA:
		return "NVB";
	default:
		return topo_path_name(topo_gpu_gpu_path(t, a, b, &links));
	}
}

bool p2p_refused(const struct nccl_release *r, enum p2p_user_level user,
		 const struct topology *t, unsigned a, unsigned b, unsigned node_gpus,
		 char *why, size_t len)
{
	const char *cls;
	unsigned via;

	if (p2p_allowed(r, user, t, a, b, node_gpus))
		return false;
	cls = p2p_pair_class(t, a, b);
	if (topo_nvlink_way(t, a, b, &via) == TOPO_NVLINK_NONE &&
	    (t->gpus[a].no_peer_access || t->gpus[b].no_peer_access))
		snprintf(why, len, "CUDA refuses %s peer access (cuDeviceCanAccessPeer)",
			 t->gpus[a].no_peer_access ? t->gpus[a].name : t->gpus[b].name);
	else if (user != P2P_USER_UNSET)
		snprintf(why, len, "NCCL_P2P_LEVEL=%s refuses %s", p2p_user_level_name(user), cls);
	else
		/* the rule's inputs in brackets: the vendor, and on AMD the count */
		snprintf(why, len,
			 "%s is beyond NCCL %s's P2P level here, %s (%s CPUs, %u GPUs); NCCL_P2P_LEVEL=%s would allow it",
			 cls, r ? r->version : "?", topo_path_name(p2p_release_level(r, t, node_gpus)),
			 topo_cpu_vendor_name(t->cpu_vendor), node_gpus, cls);
	return true;
}
