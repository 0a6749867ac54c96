/* SPDX-License-Identifier: MIT */
/*
 * probe_path: NCCL's class of every GPU-NIC pair, the bridges between
 * them with their ACS settings, and the GPUDirect RDMA verdict per level.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe_read.h"

const char *probe_class_name(struct probe_class c)
{
	return c.p2c ? "P2C" : topo_path_name(c.type);
}

/*
 * NCCL orders PIX < PXB < P2C < PHB < SYS (src/include/graph.h), so P2C is
 * within any level from PHB up; its default level is P2C when
 * NCCL_NET_GDR_C2C is on (the default since 2.27.3), else PXB (paths.cc,
 * ncclTopoCheckGdr).
 */
bool probe_class_within(struct probe_class c, enum topo_path_type level,
			bool allow_p2c)
{
	if (c.p2c)
		return allow_p2c || level >= TOPO_PATH_P2C;
	return c.type <= level;
}

/* Indices of the NCCL PCI nodes above @d, nearest first (see probe_sysfs.c). */
static unsigned switch_chain(const struct probe *p, const struct probe_pcidev *d,
			     int *chain)
{
	unsigned n = 0;
	int s = d->parent;

	while (s >= 0 && n < PROBE_MAX_SWITCHES) {
		chain[n++] = s;
		s = p->switches[s].parent;
	}
	return n;
}

/*
 * SYS across CPUs; on one CPU, PIX when both hang from the same switch,
 * PXB when a switch is common to both, PHB otherwise (through the root
 * complex, or across host bridges of one NUMA node, which nvidia-smi calls
 * NODE).
 */
static enum topo_path_type pcie_class(const struct probe *p,
				      const struct probe_pcidev *g,
				      const struct probe_pcidev *n)
{
	int cg[PROBE_MAX_SWITCHES], cn[PROBE_MAX_SWITCHES];
	unsigned ng, nn, i, k;

	if (g->cpu != n->cpu)
		return TOPO_PATH_SYS;
	ng = switch_chain(p, g, cg);
	nn = switch_chain(p, n, cn);
	if (ng && nn && cg[0] == cn[0])
		return TOPO_PATH_PIX;
	for (i = 0; i < ng; i++)
		for (k = 0; k < nn; k++)
			if (cg[i] == cn[k])
				return TOPO_PATH_PXB;
	return TOPO_PATH_PHB;
}

static int bridge_index(struct probe *p, const char *real_root,
			const struct probe_pcidev *d, unsigned upto)
{
	char dir[PATH_MAX + PROBE_MAX_DEPTH * PROBE_BDF_MAX];
	uint8_t cfg[4096];
	struct probe_bridge *b;
	size_t off;
	unsigned i;
	long got;
	int err;

	for (i = 0; i < p->nbridges; i++)
		if (!strcmp(p->bridges[i].bdf, d->path[upto]))
			return (int)i;
	if (p->nbridges == PROBE_MAX_BRIDGES)
		return -1;
	b = &p->bridges[p->nbridges];
	snprintf(b->bdf, sizeof(b->bdf), "%s", d->path[upto]);
	off = (size_t)snprintf(dir, sizeof(dir), "%s/devices/%s", real_root, d->root);
	for (i = 0; i <= upto; i++)
		off += (size_t)snprintf(dir + off, sizeof(dir) - off, "/%s", d->path[i]);
	snprintf(dir + off, sizeof(dir) - off, "/config");
	got = probe_read_bytes(dir, cfg, sizeof(cfg));
	if (got < 0) {
		b->acs = PROBE_ACS_UNREADABLE;
	} else {
		err = probe_acs_parse(cfg, (size_t)got, &b->ctrl);
		b->acs = err == -EACCES  ? PROBE_ACS_NEEDS_ROOT :
			 err == -ENODATA ? PROBE_ACS_NO_EXT :
			 err == -ENOENT  ? PROBE_ACS_ABSENT :
			 err             ? PROBE_ACS_UNREADABLE :
			 b->ctrl & (PROBE_ACS_RR | PROBE_ACS_CR) ? PROBE_ACS_REDIRECT :
								   PROBE_ACS_CLEAR;
	}
	return (int)p->nbridges++;
}

static void add_bridge(struct probe_pair *pr, int b)
{
	if (b >= 0 && pr->nbridges < PROBE_MAX_PAIR_BRIDGES)
		pr->bridges[pr->nbridges++] = b;
}

/*
 * The bridges a P2P transfer between @g and @n crosses: each side's own
 * bridges below the deepest bridge they share, and that shared one (the
 * switch where the transfer turns around). With no shared bridge, both
 * paths up to and including their root ports.
 */
static void pair_bridges(struct probe *p, const char *real_root,
			 struct probe_pair *pr, const struct probe_pcidev *g,
			 const struct probe_pcidev *n)
{
	unsigned k = 0, i;

	if (!strcmp(g->root, n->root))
		while (k < g->depth && k < n->depth && !strcmp(g->path[k], n->path[k]))
			k++;
	for (i = k ? k - 1 : 0; i < g->depth; i++)
		add_bridge(pr, bridge_index(p, real_root, g, i));
	for (i = k; i < n->depth; i++)
		add_bridge(pr, bridge_index(p, real_root, n, i));
}

/*
 * ACS redirect matters where P2P would otherwise turn around inside a
 * switch (PIX, PXB): RR/CR send it up to the root complex instead (NCCL
 * troubleshooting, "PCI Access Control Services"). PHB and SYS paths go
 * through the root complex anyway, so there ACS is only listed.
 */
static void pair_acs(const struct probe *p, struct probe_pair *pr)
{
	unsigned i;

	if (pr->cls.p2c || pr->cls.type > TOPO_PATH_PXB)
		return;
	for (i = 0; i < pr->nbridges; i++) {
		enum probe_acs_state s = p->bridges[pr->bridges[i]].acs;

		if (s == PROBE_ACS_REDIRECT)
			pr->acs_redirect = true;
		if (s == PROBE_ACS_NEEDS_ROOT || s == PROBE_ACS_UNREADABLE)
			pr->acs_unknown = true;
	}
}

/*
 * P2C: a PHB pair whose GPU reaches that CPU over C2C, and only when no
 * NIC is nearer to the GPU than PHB ("P2C is only set when the NET is the
 * closest to the GPU", paths.cc, ncclTopoComputePaths).
 */
static void mark_p2c(struct probe *p, unsigned g)
{
	unsigned n;

	if (!p->gpus[g].c2c)
		return;
	for (n = 0; n < p->nnics; n++)
		if (probe_nic_in_matrix(p, n) && p->pairs[g][n].cls.type < TOPO_PATH_PHB)
			return;
	for (n = 0; n < p->nnics; n++)
		if (probe_nic_in_matrix(p, n) && p->pairs[g][n].cls.type == TOPO_PATH_PHB)
			p->pairs[g][n].cls.p2c = true;
}

static int cmp_bridge(const void *a, const void *b)
{
	return strcmp(((const struct probe_bridge *)a)->bdf,
		      ((const struct probe_bridge *)b)->bdf);
}

/* Bridges in bus-id order, for readers; the pairs' indices follow. */
static void sort_bridges(struct probe *p)
{
	struct probe_bridge old[PROBE_MAX_BRIDGES];
	int map[PROBE_MAX_BRIDGES];
	unsigned g, n, i, k;

	memcpy(old, p->bridges, sizeof(old[0]) * p->nbridges);
	qsort(p->bridges, p->nbridges, sizeof(p->bridges[0]), cmp_bridge);
	for (i = 0; i < p->nbridges; i++)
		for (k = 0; k < p->nbridges; k++)
			if (!strcmp(old[i].bdf, p->bridges[k].bdf))
				map[i] = (int)k;
	for (g = 0; g < p->ngpus; g++)
		for (n = 0; n < p->nnics; n++)
			for (i = 0; i < p->pairs[g][n].nbridges; i++)
				p->pairs[g][n].bridges[i] = map[p->pairs[g][n].bridges[i]];
}

void probe_classify(struct probe *p, const char *real_root)
{
	unsigned g, n;

	for (g = 0; g < p->ngpus; g++) {
		for (n = 0; n < p->nnics; n++) {
			struct probe_pair *pr = &p->pairs[g][n];

			if (!probe_nic_in_matrix(p, n))
				continue;
			pr->cls.type = pcie_class(p, &p->gpus[g].pci, &p->nics[n].pci);
			pair_bridges(p, real_root, pr, &p->gpus[g].pci, &p->nics[n].pci);
		}
		mark_p2c(p, g);
		for (n = 0; n < p->nnics; n++)
			if (probe_nic_in_matrix(p, n))
				pair_acs(p, &p->pairs[g][n]);
	}
	sort_bridges(p);
}
