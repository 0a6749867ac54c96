/* SPDX-License-Identifier: MIT */
/*
 * probe_nvlink: NVLinks counted per far device and classified as NCCL
 * does (xml.cc ncclTopoGetXmlFromGpu, topo.cc ncclTopoAddNvLinks), and the
 * node's GPU fabric they make (probe_nvlink.h).
 */
#include "probe_nvlink.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "probe_read.h"

/* PCI class of an IBM NPU, NCCL's CPU end of an NVLink (topo.cc kvDictPciClass). */
#define PCI_CLASS_NPU "0x068001"

static bool printable(const char *s)
{
	for (; *s; s++)
		if (!isprint((unsigned char)*s))
			return false;
	return true;
}

int probe_nvlink_add(struct probe_gpu *g, const char *target)
{
	char bdf[PROBE_BDF_MAX] = "";
	unsigned i;

	if (target[0] && printable(target))
		probe_norm_bdf(target, bdf, sizeof(bdf));
	for (i = 0; i < g->nnvlinks; i++) {
		if (!strcmp(g->nvlinks[i].target, bdf)) {
			g->nvlinks[i].links++;
			return 0;
		}
	}
	if (g->nnvlinks == PROBE_MAX_NVLINK_PEERS)
		return -E2BIG;
	snprintf(g->nvlinks[i].target, sizeof(g->nvlinks[i].target), "%s", bdf);
	g->nvlinks[i].links = 1;
	g->nvlinks[i].peer = PROBE_NVL_SWITCH;
	g->nvlinks[i].gpu = -1;
	g->nnvlinks++;
	return 0;
}

static enum probe_nvl_peer peer_class(const struct probe *p, const char *bdf)
{
	char dir[4096 + 64], cls[32];

	if (!bdf[0] || probe_fmt(dir, sizeof(dir), "%s/bus/pci/devices/%s", p->sysfs, bdf) ||
	    probe_read_line(dir, "class", cls, sizeof(cls)))
		return PROBE_NVL_SWITCH;
	return strncmp(cls, PCI_CLASS_NPU, strlen(PCI_CLASS_NPU)) ? PROBE_NVL_SWITCH : PROBE_NVL_CPU;
}

void probe_nvlink_classify(struct probe *p)
{
	for (unsigned i = 0; i < p->ngpus; i++) {
		struct probe_gpu *g = &p->gpus[i];

		for (unsigned k = 0; k < g->nnvlinks; k++) {
			struct probe_nvlink *l = &g->nvlinks[k];

			l->gpu = l->target[0] ? probe_gpu_at(p, l->target) : -1;
			l->peer = l->gpu >= 0 ? PROBE_NVL_GPU : peer_class(p, l->target);
		}
	}
}

double probe_nvlink_bw(int sm)
{
	return sm >= 100 ? 40.1 : sm >= 90 ? 20.6 : sm == 86 ? 12.0 :
	       sm >= 80 ? 20.0 : sm >= 70 ? 20.0 : sm >= 60 ? 18.0 : 20.0;
}

const char *probe_gpu_arch(int sm)
{
	if (!sm)
		return NULL;
	return sm >= 100 ? "blackwell" : sm >= 90 ? "hopper" : sm == 89 ? "ada" :
	       sm >= 80 ? "ampere" : "volta";
}

static unsigned links_to(const struct probe_gpu *g, enum probe_nvl_peer peer, int gpu)
{
	unsigned n = 0;

	for (unsigned k = 0; k < g->nnvlinks; k++)
		if (g->nvlinks[k].peer == peer && (peer != PROBE_NVL_GPU || g->nvlinks[k].gpu == gpu))
			n += g->nvlinks[k].links;
	return n;
}

unsigned probe_nvlink_pair(const struct probe *p, unsigned a, unsigned b)
{
	unsigned ab = links_to(&p->gpus[a], PROBE_NVL_GPU, (int)b);
	unsigned ba = links_to(&p->gpus[b], PROBE_NVL_GPU, (int)a);

	return ab < ba ? ab : ba;
}

void probe_nvlink_fabric(const struct probe *p, struct probe_fabric *f)
{
	unsigned most = 0, fewest = 0;
	bool any_gpu = false, multicast = p->ngpus > 0;

	memset(f, 0, sizeof(*f));
	f->kind = PROBE_FABRIC_UNKNOWN;
	for (unsigned i = 0; i < p->ngpus; i++) {
		const struct probe_gpu *g = &p->gpus[i];
		unsigned to_switch = links_to(g, PROBE_NVL_SWITCH, -1);

		if (!g->nvlinks_read)
			return;
		if (g->sm && (!f->sm || g->sm < f->sm))
			f->sm = g->sm;
		multicast &= g->multicast == PROBE_YES;
		for (unsigned j = 0; j < p->ngpus; j++)
			any_gpu |= j != i && probe_nvlink_pair(p, i, j);
		if (to_switch > most)
			most = to_switch;
		if (to_switch && (!fewest || to_switch < fewest))
			fewest = to_switch;
		f->uneven |= to_switch != links_to(&p->gpus[0], PROBE_NVL_SWITCH, -1);
	}
	f->kind = most ? PROBE_FABRIC_NVSWITCH : any_gpu ? PROBE_FABRIC_NVLINK : PROBE_FABRIC_PCIE;
	f->links = fewest;
	f->uneven &= most > 0;
	f->nvls = most && multicast;
}
