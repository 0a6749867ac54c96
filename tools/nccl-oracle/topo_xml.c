/* SPDX-License-Identifier: MIT */
/*
 * A gdrlab topology as NCCL's topology XML (the NCCL_TOPO_FILE format that
 * topo.cc's ncclTopoGetSystemFromXml reads), for the graph-search oracle
 * (search.cc). Read with gdrlab's own loader (libgdrlab_engine.a), so every
 * preset is read as gdrlab reads it, defaults included.
 *
 * usage: topo-xml TOPOLOGY [GPU] > TOPOLOGY.xml
 * GPU (an index, or `last`): the node as a communicator of that GPU alone
 * sees it (NCCL's XML holds the communicator's GPUs only): that GPU, rank
 * 0 but its own dev, and everything else but the other GPUs; "gpu: K" on
 * stderr says which.
 * Exit 0, or 3 with "skip: REASON" on stderr when the topology cannot be
 * written faithfully (or has nothing for the search to compare: one GPU
 * of a whole node, no NIC), 1 when it does not load.
 *
 * What NCCL's XML holds, from what gdrlab's topology holds:
 * - a <cpu> per socket: arch, vendor and, for Intel and AMD, a family and
 *   model. gdrlab knows the vendor only; NCCL reads the model for the
 *   inter-socket bandwidth alone (topo.cc ncclTopoGetInterCpuBw, v2.30.7-1
 *   :66-82), which paths across sockets (SYS) see: Intel is written as a
 *   Skylake-SP (family 6, model 0x55), AMD as a Rome (family 23, model 49).
 * - PCIe switches (nested as in gdrlab) as PCI bridges, GPUs and NICs as
 *   PCI devices under their parent, each with the link_speed/link_width of
 *   its link to the parent, the gen and width the topology gave it
 *   (topology.h topo_link.pcie_gen/pcie_width); a link given as a
 *   bandwidth is refused. Bus ids are made up, in tree order.
 * - a GPU's sm from gdrlab's architecture and its NVLinks: an NVSwitch
 *   fabric as `links` links to one NVSwitch (NCCL adds the NVSwitch node
 *   itself); a point-to-point mesh (kind nvlink) as its `pairs` wire it
 *   (the DGX-1's hybrid cube-mesh), or without them all to all when the
 *   links split evenly over the other GPUs (ABCI's 4 x V100, 2 a pair),
 *   refused otherwise.
 * - a NIC's line rate as NCCL's speed (Mbit/s), GPUDirect RDMA allowed on
 *   both sides (NCCL's GDR level still decides whether it is used).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topology.h"

/* NCCL's names for PCIe generations (xml.h / topo.cc kvDictPciGen). */
static const char *const gt_name[] = { "", "2.5 GT/s", "5 GT/s", "8 GT/s", "16 GT/s",
				       "32 GT/s", "64 GT/s" };

static const struct topology *t;
static int only = -1; /* the one GPU written, or -1: all */
static unsigned gpu_bus[TOPO_MAX_GPUS], nic_bus[TOPO_MAX_NICS], sw_bus[TOPO_MAX_SWITCHES];
static int mesh[TOPO_MAX_GPUS][TOPO_MAX_GPUS];

static void skip(const char *why, const char *name)
{
	fprintf(stderr, "skip: %s%s%s\n", why, name ? ": " : "", name ? name : "");
	exit(3);
}

/* The link's gen and width, as the topology gave them. */
static void link_attrs(const struct topo_link *l, const char *name, unsigned *gen, unsigned *width)
{
	if (l->kind != TOPO_LINK_PCIE)
		skip("a C2C link, which NCCL's XML describes otherwise", name);
	if (!l->pcie_gen)
		skip("a PCIe link given as a bandwidth, not gen x width (NCCL's XML needs them)",
		     name);
	*gen = l->pcie_gen;
	*width = l->pcie_width;
}

static void pci_open(int ind, unsigned bus, const char *cls, const char *ids,
		     const struct topo_link *l, const char *name)
{
	unsigned gen, width;

	link_attrs(l, name, &gen, &width);
	printf("%*s<pci busid=\"0000:%02x:00.0\" class=\"%s\" %s link_speed=\"%s\" link_width=\"%u\">\n",
	       ind, "", bus, cls, ids, gt_name[gen], width);
}

static void emit_gpu(unsigned i, int ind)
{
	pci_open(ind, gpu_bus[i], "0x030200",
		 "vendor=\"0x10de\" device=\"0x20b0\" subsystem_vendor=\"0x10de\" subsystem_device=\"0x1450\"",
		 &t->gpus[i].link, t->gpus[i].name);
	/* one GPU alone is its communicator's rank 0, its dev its own */
	printf("%*s  <gpu dev=\"%u\" sm=\"%d\" rank=\"%u\" gdr=\"1\">\n", ind, "", i,
	       topo_gpu_cc(t), only >= 0 ? 0 : i);
	if (t->gpu_fabric.kind == TOPO_GPU_FABRIC_NVSWITCH)
		printf("%*s    <nvlink target=\"0000:ff:00.0\" count=\"%u\" tclass=\"0x068000\"/>\n", ind,
		       "", t->gpu_fabric.links);
	for (unsigned j = 0; j < t->ngpus; j++)
		if (mesh[i][j] && only < 0)
			printf("%*s    <nvlink target=\"0000:%02x:00.0\" count=\"%d\" tclass=\"0x030200\"/>\n",
			       ind, "", gpu_bus[j], mesh[i][j]);
	printf("%*s  </gpu>\n%*s</pci>\n", ind, "", ind, "");
}

static void emit_nic(unsigned i, int ind)
{
	pci_open(ind, nic_bus[i], "0x020700",
		 "vendor=\"0x15b3\" device=\"0x101b\" subsystem_vendor=\"0x15b3\" subsystem_device=\"0x0007\"",
		 &t->nics[i].dev.link, t->nics[i].dev.name);
	printf("%*s  <nic>\n", ind, "");
	printf("%*s    <net name=\"mlx5_%u\" dev=\"%u\" speed=\"%.0f\" port=\"1\" latency=\"0.000000\" "
	       "guid=\"0x%x\" maxconn=\"131072\" gdr=\"1\"/>\n",
	       ind, "", i, i, t->nics[i].line_rate * 8 / 1e6, i + 1);
	printf("%*s  </nic>\n%*s</pci>\n", ind, "", ind, "");
}

/* What hangs below socket @s's root port (@sw TOPO_NONE) or switch @sw. */
static bool below(const struct topo_device *d, unsigned s, int sw)
{
	return d->parent_switch == sw && (sw != TOPO_NONE || d->socket == (int)s);
}

/* Bus ids in tree order: switch, then what is below it. */
static void number(unsigned s, int sw, unsigned *bus)
{
	for (unsigned k = 0; k < t->nswitches; k++)
		if (t->switches[k].parent_switch == sw &&
		    (sw != TOPO_NONE || t->switches[k].socket == (int)s)) {
			sw_bus[k] = (*bus)++;
			number(s, (int)k, bus);
		}
	for (unsigned i = 0; i < t->ngpus; i++)
		if (below(&t->gpus[i], s, sw))
			gpu_bus[i] = (*bus)++;
	for (unsigned i = 0; i < t->nnics; i++)
		if (below(&t->nics[i].dev, s, sw))
			nic_bus[i] = (*bus)++;
}

static void emit(unsigned s, int sw, int ind)
{
	for (unsigned k = 0; k < t->nswitches; k++)
		if (t->switches[k].parent_switch == sw &&
		    (sw != TOPO_NONE || t->switches[k].socket == (int)s)) {
			pci_open(ind, sw_bus[k], "0x060400",
				 "vendor=\"0x10b5\" device=\"0x8747\" subsystem_vendor=\"0x10b5\" subsystem_device=\"0x8747\"",
				 &t->switches[k].uplink, t->switches[k].name);
			emit(s, (int)k, ind + 2);
			printf("%*s</pci>\n", ind, "");
		}
	for (unsigned i = 0; i < t->ngpus; i++)
		if (below(&t->gpus[i], s, sw) && (only < 0 || (unsigned)only == i))
			emit_gpu(i, ind);
	for (unsigned i = 0; i < t->nnics; i++)
		if (below(&t->nics[i].dev, s, sw))
			emit_nic(i, ind);
}

/* A CPUID family 6 model of class @m, which NCCL's topo.cc turns back
 * into @m. */
static unsigned intel_model_id(enum topo_cpu_model m)
{
	static const unsigned id[TOPO_CPU_MODEL_COUNT] = {
		[TOPO_CPU_MODEL_UNSET] = 0x55, [TOPO_CPU_MODEL_BROADWELL] = 0x4F,
		[TOPO_CPU_MODEL_SKYLAKE] = 0x55, [TOPO_CPU_MODEL_SAPPHIRE_RAPIDS] = 0x8F,
		[TOPO_CPU_MODEL_EMERALD_RAPIDS] = 0xCF,
	};

	return id[m];
}

int main(int argc, char **argv)
{
	static struct topology topo; /* large */
	unsigned bus = 0x10, gen, width;
	struct diag d;

	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: %s TOPOLOGY [GPU]\n", argv[0]);
		return 2;
	}
	if (topology_load(argv[1], &topo, &d)) {
		fprintf(stderr, "%s\n", d.msg);
		return 1;
	}
	t = &topo;
	if (argc == 3) {
		char *end = NULL;

		bool last = !strcmp(argv[2], "last");

		only = last ? (int)t->ngpus - 1 : (int)strtol(argv[2], &end, 10);
		if (only < 0 || (unsigned)only >= t->ngpus || (!last && *end)) {
			fprintf(stderr, "%s: no GPU %s\n", argv[1], argv[2]);
			return 2;
		}
		fprintf(stderr, "gpu: %d\n", only);
	} else if (t->ngpus < 2) {
		skip("one GPU a node", NULL);
	}
	if (!t->nnics)
		skip("no NIC", NULL);
	if (t->gpu_fabric.kind == TOPO_GPU_FABRIC_NVSWITCH && !t->gpu_fabric.links)
		skip("NVSwitch bandwidth given whole: NCCL's XML counts links", NULL);
	if (t->gpu_fabric.kind == TOPO_GPU_FABRIC_NVLINK) {
		unsigned n = t->ngpus, links = t->gpu_fabric.links;

		if (t->gpu_fabric.wired) {
			for (unsigned i = 0; i < n; i++)
				for (unsigned j = 0; j < n; j++)
					mesh[i][j] = (int)topo_pair_links(t, i, j);
		} else if (links && links % (n - 1) == 0) {
			for (unsigned i = 0; i < n; i++)
				for (unsigned j = 0; j < n; j++)
					mesh[i][j] = i == j ? 0 : (int)(links / (n - 1));
		} else {
			skip("an NVLink mesh whose wiring the topology does not give (pairs)", NULL);
		}
	}
	/* every link is checked before anything is written */
	for (unsigned k = 0; k < t->nswitches; k++)
		link_attrs(&t->switches[k].uplink, t->switches[k].name, &gen, &width);
	for (unsigned i = 0; i < t->ngpus; i++)
		link_attrs(&t->gpus[i].link, t->gpus[i].name, &gen, &width);
	for (unsigned i = 0; i < t->nnics; i++)
		link_attrs(&t->nics[i].dev.link, t->nics[i].dev.name, &gen, &width);
	for (unsigned s = 0; s < t->nsockets; s++)
		number(s, TOPO_NONE, &bus);

	printf("<system version=\"1\">\n");
	for (unsigned s = 0; s < t->nsockets; s++) {
		/* topo.cc reads host_hash from 2.21 on; search.cc's harness
		 * names 0x1 as its host. */
		printf("  <cpu host_hash=\"0x1\" numaid=\"%u\" affinity=\"ffffffff\" ", s);
		switch (t->cpu_vendor) {
		case TOPO_CPU_INTEL:
			/* a model of the class: Broadwell-EP 0x4F, Skylake-SP
			 * 0x55 (also where cpu_model is unset), Sapphire Rapids
			 * 0x8F, Emerald Rapids 0xCF (topo.cc ncclTopoAddCpu) */
			printf("arch=\"x86_64\" vendor=\"GenuineIntel\" familyid=\"6\" "
			       "modelid=\"%u\">\n", intel_model_id(t->cpu_model));
			break;
		case TOPO_CPU_AMD:
			printf("arch=\"x86_64\" vendor=\"AuthenticAMD\" familyid=\"23\" modelid=\"49\">\n");
			break;
		default:
			printf("arch=\"arm64\">\n");
			break;
		}
		emit(s, TOPO_NONE, 4);
		printf("  </cpu>\n");
	}
	printf("</system>\n");
	return 0;
}
