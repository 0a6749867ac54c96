/* SPDX-License-Identifier: MIT */
/*
 * probe_bcm: NCCL's flattening of Broadcom PEX switches.
 *
 * A Broadcom PEX88000 (Gen4) or PEX89000 (Gen5) switch in base mode shows
 * itself to the OS as two levels of switches, "even though they're
 * supposed to sustain full BW across all ports", so NCCL folds the lower
 * level into the upper one before it computes paths (src/graph/topo.cc,
 * getBcmGen and ncclTopoFlattenBcmSwitches, v2.30.7-1; called from
 * ncclTopoGetSystemFromXml). A GPU and a NIC under two sub-switches of one
 * chip are then PIX to each other, not PXB: what NCCL (and so its GDR
 * level) sees on those servers. This file does the same to the probe's
 * switch table; the bridges between a pair, and so its ACS, stay the
 * physical ones.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "probe_read.h"

/*
 * NCCL's getBcmGen: the generation of a Broadcom PEX switch at @level (0
 * the upper one, 1 the lower one), or 0. It matches the 64-bit id
 * ncclTopoGetIntDevice builds from vendor, device, subsystem vendor and
 * subsystem device (16 bits each, in that order), its low 12 bits masked:
 *   1000:c010 1000:a0xx  PEX88000, Gen4: both levels alike
 *   1000:c030 1000:0xxx  PEX89000, Gen5, upper level (PEX89144 is 0144)
 *   1000:c030 1000:1xxx  PEX89000, Gen5, lower level (100b, the
 *                        "Virtual Upstream/Downstream Port" of pci.ids)
 * PLX's own vendor id (10b5: PEX87xx, Gen3) is not flattened by NCCL.
 */
static int bcm_gen(const struct probe_switch *s, int level)
{
	uint64_t id = (uint64_t)s->vendor << 48 | (uint64_t)s->device << 32 |
		      (uint64_t)s->subsys_vendor << 16 | s->subsys_device;

	id &= ~(uint64_t)0xfff;
	if (id == 0x1000c0101000a000ull)
		return 4;
	if (id == (0x1000c03010000000ull | (uint64_t)level * 0x1000))
		return 5;
	return 0;
}

/* Switches above @s, up to its CPU. */
static unsigned depth_of(const struct probe *p, int s)
{
	unsigned n = 0;

	while ((s = p->switches[s].parent) >= 0 && n < PROBE_MAX_SWITCHES)
		n++;
	return n;
}

/* Hang everything below switch @from on switch @to instead. */
static void reparent(struct probe *p, int from, int to)
{
	unsigned i;

	for (i = 0; i < p->nswitches; i++)
		if (p->switches[i].parent == from)
			p->switches[i].parent = to;
	for (i = 0; i < p->ngpus; i++)
		if (p->gpus[i].pci.parent == from)
			p->gpus[i].pci.parent = to;
	for (i = 0; i < p->nnics; i++)
		if (p->nics[i].is_pci && p->nics[i].pci.parent == from)
			p->nics[i].pci.parent = to;
}

/*
 * Fold into @s its child switches of the same generation at the lower
 * level. The children are picked before any is folded, as NCCL takes
 * them from @s's links first: a grandchild that comes up to @s is not
 * folded into it, it is judged as an upper level of its own later.
 * Returns how many were folded.
 */
static unsigned fold_children(struct probe *p, int s, bool *gone)
{
	int gen = bcm_gen(&p->switches[s], 0), subs[PROBE_MAX_SWITCHES];
	unsigned n = 0, i;

	if (!gen)
		return 0;
	for (i = 0; i < p->nswitches; i++)
		if (!gone[i] && p->switches[i].parent == s &&
		    bcm_gen(&p->switches[i], 1) == gen)
			subs[n++] = (int)i;
	for (i = 0; i < n; i++) {
		reparent(p, subs[i], s);
		gone[subs[i]] = true;
	}
	p->switches[s].folded += n;
	return n;
}

/* Drop the folded switches, keep the others in order, renamed sw0... */
static void compact(struct probe *p, const bool *gone)
{
	int map[PROBE_MAX_SWITCHES];
	unsigned i, n = 0;

	for (i = 0; i < p->nswitches; i++) {
		map[i] = gone[i] ? -1 : (int)n;
		if (!gone[i])
			p->switches[n++] = p->switches[i];
	}
	p->nswitches = n;
	for (i = 0; i < n; i++) {
		if (p->switches[i].parent >= 0)
			p->switches[i].parent = map[p->switches[i].parent];
		snprintf(p->switches[i].name, sizeof(p->switches[i].name), "sw%u", i);
	}
	for (i = 0; i < p->ngpus; i++)
		if (p->gpus[i].pci.parent >= 0)
			p->gpus[i].pci.parent = map[p->gpus[i].pci.parent];
	for (i = 0; i < p->nnics; i++)
		if (p->nics[i].is_pci && p->nics[i].pci.parent >= 0)
			p->nics[i].pci.parent = map[p->nics[i].pci.parent];
}

static void note(struct probe *p, unsigned folded, unsigned into)
{
	if (p->nwarnings == sizeof(p->warnings) / sizeof(p->warnings[0]))
		return;
	snprintf(p->warnings[p->nwarnings++], PROBE_WHY_MAX,
		 "%u Broadcom PEX sub-switch%s folded into %u switch%s, as NCCL does (topo.cc ncclTopoFlattenBcmSwitches)",
		 folded, folded == 1 ? "" : "es", into, into == 1 ? "" : "es");
}

/*
 * Every switch is judged once as an upper level, parents before their
 * children, as NCCL's loop meets them (a switch's node is created before
 * those below it). NCCL then marks the switch (device |= 0xffff) so that
 * it is never folded itself; here the order alone guarantees that.
 */
void probe_flatten_bcm(struct probe *p)
{
	bool gone[PROBE_MAX_SWITCHES] = { false };
	unsigned depth[PROBE_MAX_SWITCHES], d, i, folded = 0, into = 0, n;

	for (i = 0; i < p->nswitches; i++)
		depth[i] = depth_of(p, (int)i);
	for (d = 0; d < PROBE_MAX_SWITCHES; d++) {
		for (i = 0; i < p->nswitches; i++) {
			if (gone[i] || depth[i] != d)
				continue;
			n = fold_children(p, (int)i, gone);
			folded += n;
			into += n > 0;
		}
	}
	if (!folded)
		return;
	compact(p, gone);
	note(p, folded, into);
}
