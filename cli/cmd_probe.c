/* SPDX-License-Identifier: MIT */
/*
 * gdrlab probe: what this machine offers GPUDirect RDMA, read from sysfs
 * (or a captured tree) and, for the live /sys, from the drivers. A table
 * for people, JSON for tools, a topology file for the model.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "output_file.h"
#include "nccl_tuning.h"
#include "probe_nvlink.h"
#include "probe_p2p.h"
#include "probe_report.h"

static const char probe_usage[] =
	"usage: gdrlab probe [--sysfs DIR] [--json FILE|-] [--emit-topology FILE]\n"
	"\n"
	"Find the GPUs (by PCI vendor and class: no driver needed) and RDMA NICs,\n"
	"the PCIe path between each pair in NCCL's terms (PIX, PXB, P2C, PHB, SYS),\n"
	"ACS on the bridges between them, nvidia-peermem and dma-buf support, and\n"
	"whether GPUDirect RDMA would be used at each GDR level, and why not. On\n"
	"the live /sys the drivers add each GPU's generation and NVLinks (NVML).\n"
	"\n"
	"  -s, --sysfs DIR           read a captured sysfs tree instead of /sys\n"
	"                            (the drivers of this machine are then not asked)\n"
	"      --json FILE|-         write the findings as JSON ('-': stdout, no table)\n"
	"  -e, --emit-topology FILE  write a topology file of this machine for\n"
	"                            'gdrlab run --topology' (estimates are marked)\n"
	"  -h, --help                this help\n"
	"\n"
	"Exit status: 0 ok (also with no GPU or no RDMA device: it says so),\n"
	"1 an output could not be written (--emit-topology with no GPU or NIC too:\n"
	"then neither file is written), 2 bad usage or unreadable --sysfs DIR.\n";

struct probe_args {
	const char *sysfs, *json, *topology;
};

/* Returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, struct probe_args *a)
{
	static const struct option longopts[] = {
		{ "sysfs", required_argument, NULL, 's' },
		{ "json", required_argument, NULL, 'j' },
		{ "emit-topology", required_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(a, 0, sizeof(*a));
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":s:e:h", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			a->sysfs = optarg;
			break;
		case 'j':
			a->json = optarg;
			break;
		case 'e':
			a->topology = optarg;
			break;
		case 'h':
			fputs(probe_usage, stdout);
			return 0;
		case ':':
			return cli_usage_error("probe", "%s needs a value", argv[optind - 1]);
		default:
			return cli_usage_error("probe", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_usage_error("probe", "unexpected argument '%s'", argv[optind]);
	if (a->json && a->topology && !strcmp(a->json, "-") && !strcmp(a->topology, "-"))
		return cli_usage_error("probe", "%s: only one output can go to stdout", "-");
	return -1;
}

static void print_link(const struct probe_link *l)
{
	char max[16] = "?", cur[16] = "?";

	if (l->max_gen && l->max_width)
		snprintf(max, sizeof(max), "Gen%d x%d", l->max_gen, l->max_width);
	if (l->cur_gen && l->cur_width)
		snprintf(cur, sizeof(cur), "Gen%d x%d", l->cur_gen, l->cur_width);
	printf("  %-9s %-9s", max, cur);
}

static void print_devices(const struct probe *p)
{
	unsigned i, k;

	printf("GPUs: %u%s\n", p->ngpus, p->ngpus ? "" : " (no NVIDIA GPU on PCI here)");
	if (p->ngpus)
		printf("  %-5s %-13s %-4s %-5s  %-9s %-9s  %-8s %-8s %s\n", "name",
		       "bus id", "numa", "under", "link max", "link now", "cpu link",
		       "dma-buf", "BAR1 free/total");
	for (i = 0; i < p->ngpus; i++) {
		const struct probe_gpu *g = &p->gpus[i];
		const struct probe_pcidev *d = &g->pci;

		printf("  %-5s %-13s %-4d %-5s", g->name, d->bdf, d->numa,
		       d->parent >= 0 ? p->switches[d->parent].name : p->cpus[d->cpu].name);
		print_link(&d->link);
		printf("  %-8s %-8s ", g->c2c ? "C2C" : "PCIe", probe_tri_name(g->dmabuf));
		if (g->bar1_known)
			printf("%llu/%llu MiB\n", (unsigned long long)(g->bar1_free >> 20),
			       (unsigned long long)(g->bar1_total >> 20));
		else
			printf("unknown\n");
	}
	printf("RDMA devices: %u%s\n", p->nnics,
	       p->nnics ? "" : " (nothing in class/infiniband)");
	if (p->nnics)
		printf("  %-8s %-13s %-4s %-5s  %-9s %-9s  %-8s %s\n", "name", "bus id",
		       "numa", "under", "link max", "link now", "dma-buf", "ports");
	for (i = 0; i < p->nnics; i++) {
		const struct probe_nic *n = &p->nics[i];

		if (!n->is_pci) {
			printf("  %-8s not on PCI in this tree\n", n->name);
			continue;
		}
		printf("  %-8s %-13s %-4d %-5s", n->name, n->pci.bdf, n->pci.numa,
		       n->pci.parent >= 0 ? p->switches[n->pci.parent].name :
					    p->cpus[n->pci.cpu].name);
		print_link(&n->pci.link);
		printf("  %-8s", probe_tri_name(n->dmabuf));
		for (k = 0; k < n->nports; k++)
			printf(" %u: %s, %s", n->ports[k].num, n->ports[k].state,
			       n->ports[k].rate[0] ? n->ports[k].rate : "rate ?");
		printf("\n");
	}
	for (i = 0; i < p->nswitches; i++)
		printf("%-8s %-5s upstream port %s (%04x:%04x) under %s\n",
		       i ? "" : "switches", p->switches[i].name, p->switches[i].bdf,
		       p->switches[i].vendor, p->switches[i].device,
		       p->switches[i].parent >= 0 ? p->switches[p->switches[i].parent].name :
						    p->cpus[p->switches[i].cpu].name);
}

/* Each GPU's NVLinks by far end, as nvidia-smi topo -m's NV# (NVML). */
static void print_nvlinks(const struct probe *p)
{
	static const char *const peer[] = {
		[PROBE_NVL_SWITCH] = "NVSwitch", [PROBE_NVL_GPU] = "", [PROBE_NVL_CPU] = "CPU",
	};
	struct probe_fabric f;

	if (!p->ngpus)
		return;
	probe_nvlink_fabric(p, &f);
	if (f.kind == PROBE_FABRIC_UNKNOWN) {
		printf("NVLinks: not read (nvml: %s)\n", p->nvml);
		return;
	}
	if (f.kind == PROBE_FABRIC_PCIE) {
		printf("NVLinks: none active (NVML)\n");
		return;
	}
	printf("NVLinks (NVML; far end x active links):\n");
	for (unsigned i = 0; i < p->ngpus; i++) {
		const struct probe_gpu *g = &p->gpus[i];
		unsigned links[3] = { 0 }, ends[3] = { 0 };

		printf("  %-5s", g->name);
		for (unsigned k = 0; k < g->nnvlinks; k++) {
			const struct probe_nvlink *l = &g->nvlinks[k];

			if (l->gpu >= 0) {
				printf(" %s x%u", p->gpus[l->gpu].name, l->links);
				continue;
			}
			links[l->peer] += l->links;
			ends[l->peer]++;
		}
		/* a GPU's switches and CPU ends, summed: a DGX's six NVSwitches
		 * are one fabric */
		for (unsigned k = 0; k < 3; k++)
			if (ends[k])
				printf(" %s x%u (%u device%s)", peer[k], links[k], ends[k],
				       ends[k] > 1 ? "s" : "");
		printf("%s\n", g->nnvlinks ? "" : " none");
	}
}

/* Like nvidia-smi topo -m, in NCCL's classes (nvidia-smi's NODE is PHB). */
static void print_matrix(const struct probe *p)
{
	unsigned g, n;

	printf("\nGPU x NIC path (NCCL classes; nvidia-smi shows PHB across host bridges as NODE):\n      ");
	for (n = 0; n < p->nnics; n++)
		if (probe_nic_in_matrix(p, n))
			printf(" %-8s", p->nics[n].name);
	printf(" CPU\n");
	for (g = 0; g < p->ngpus; g++) {
		printf("%-6s", p->gpus[g].name);
		for (n = 0; n < p->nnics; n++)
			if (probe_nic_in_matrix(p, n))
				printf(" %-8s", probe_class_name(p->pairs[g][n].cls));
		printf(" %s (NUMA %d)\n", p->cpus[p->gpus[g].pci.cpu].name,
		       p->cpus[p->gpus[g].pci.cpu].numa);
	}
}

/*
 * Each two GPUs, as NCCL would copy between them (probe_p2p.h): a matrix
 * of the ways (NVL, NVB, or the PCIe class), * through host memory, then
 * each reason once with its pairs. Every pair is judged once.
 */
static void print_gpu_pairs(const struct probe *p)
{
	struct diag d = { "" };
	struct topology *t = probe_topology(p, &d);
	struct probe_p2p *x;
	struct probe_fabric f;
	unsigned n;

	if (!t) {
		printf("\nGPU x GPU: not judged (%s)\n", d.msg);
		return;
	}
	n = t->ngpus;
	x = calloc((size_t)n * n, sizeof(*x));
	if (!x) {
		printf("\nGPU x GPU: not judged (out of memory)\n");
		free(t);
		return;
	}
	for (unsigned i = 0; i < n; i++)
		for (unsigned k = 0; k < n; k++)
			if (k != i)
				probe_p2p_pair(t, i, k, &x[i * n + k]);
	probe_nvlink_fabric(p, &f);
	printf("\nGPU x GPU (NVL: NVLink, NVB: NVLink through a GPU between, else the PCIe class;\n"
	       "* through host memory, NCCL's SHM transport, by NCCL %s's rule%s%s):\n      ",
	       nccl_release_newest()->version,
	       p->cpu_vendor[0] ? "" : "; CPU vendor unknown, Intel's taken",
	       f.kind == PROBE_FABRIC_UNKNOWN ? "; NVLinks not read, PCIe taken" : "");
	for (unsigned k = 0; k < n; k++)
		printf(" %-6s", p->gpus[k].name);
	printf("\n");
	for (unsigned i = 0; i < n; i++) {
		printf("%-6s", p->gpus[i].name);
		for (unsigned k = 0; k < n; k++) {
			char cell[8] = "X";

			if (k != i)
				snprintf(cell, sizeof(cell), "%s%s", x[i * n + k].path,
					 x[i * n + k].shm ? "*" : "");
			printf(" %-6s", cell);
		}
		printf("\n");
	}
	/* each reason once, at its first pair, with every pair it holds for */
	for (unsigned q = 0; q < n * n; q++) {
		const struct probe_p2p *first = &x[q];
		bool seen = false;
		const char *sep = "*";

		if (q / n >= q % n || !first->shm)
			continue;
		for (unsigned e = 0; e < q && !seen; e++)
			seen = e / n < e % n && x[e].shm && !strcmp(x[e].why, first->why);
		for (unsigned e = q; !seen && e < n * n; e++)
			if (e / n < e % n && x[e].shm && !strcmp(x[e].why, first->why)) {
				printf("%s %s-%s", sep, p->gpus[e / n].name, p->gpus[e % n].name);
				sep = ",";
			}
		if (!seen)
			printf(": %s\n", first->why);
	}
	free(x);
	free(t);
}

static void print_acs(const struct probe *p)
{
	char flags[128];
	unsigned i;

	printf("\nACS on the bridges between GPUs and NICs (ReqRedir/CmpltRedir break P2P\n"
	       "where it would turn around in a switch: PIX, PXB; PHB and SYS paths go\n"
	       "through the root complex anyway):\n");
	if (!p->nbridges)
		printf("  (no bridges on any GPU-NIC path)\n");
	for (i = 0; i < p->nbridges; i++) {
		const struct probe_bridge *b = &p->bridges[i];

		flags[0] = '\0';
		if (b->acs == PROBE_ACS_CLEAR || b->acs == PROBE_ACS_REDIRECT)
			probe_acs_flags(b->ctrl, flags, sizeof(flags));
		printf("  %-13s %-10s %s\n", b->bdf, probe_acs_state_name(b->acs), flags);
	}
}

static void print_verdicts(const struct probe *p)
{
	char why[5][PROBE_WHY_MAX];
	enum probe_gdr v[5];
	unsigned g, n, l;

	printf("\nnvidia-peermem: %s\n", p->peermem_why);
	printf("drivers: cuda: %s; nvml: %s; verbs: %s\n", p->cuda, p->nvml, p->verbs);
	printf("cpu vendor: %s (%s)\n", p->cpu_vendor[0] ? p->cpu_vendor : "unknown",
	       p->cpu_vendor_why);
	if (p->cpu_model[0])
		printf("cpu model: %s (%s)\n", p->cpu_model, p->cpu_model_why);
	if (!p->ngpus || !p->nnics)
		return;
	printf("\nGPUDirect RDMA per GDR level (nccl: NCCL's default, PXB or P2C):\n");
	printf("  %-16s %-4s %-5s %-5s %-5s %-5s %-5s %s\n", "pair", "path", "pix",
	       "pxb", "phb", "sys", "nccl", "why not (at nccl's level; at sys if other)");
	for (g = 0; g < p->ngpus; g++) {
		for (n = 0; n < p->nnics; n++) {
			char pair[2 * PROBE_NAME_MAX + 2];

			if (!probe_nic_in_matrix(p, n))
				continue;
			snprintf(pair, sizeof(pair), "%s-%s", p->gpus[g].name, p->nics[n].name);
			printf("  %-16s %-4s", pair, probe_class_name(p->pairs[g][n].cls));
			for (l = 0; l <= 4; l++) {
				v[l] = probe_gdr_verdict(p, g, n,
							 l < 4 ? topo_pcie_levels[l] : TOPO_PATH_PXB,
							 l == 4, why[l], sizeof(why[l]));
				printf(" %-5s", probe_gdr_name(v[l]));
			}
			/* 3 is sys, 4 NCCL's default. */
			printf(" %s%s%s\n", v[4] != PROBE_GDR_YES ? why[4] : "",
			       v[3] != PROBE_GDR_YES && strcmp(why[3], why[4]) ? "; at sys: " : "",
			       v[3] != PROBE_GDR_YES && strcmp(why[3], why[4]) ? why[3] : "");
		}
	}
}

static void print_table(const struct probe *p)
{
	unsigned i;

	printf("gdrlab probe: %s%s\n", p->sysfs,
	       p->live ? "" : " (captured tree: drivers not asked)");
	print_devices(p);
	print_nvlinks(p);
	if (!p->ngpus || !p->nnics)
		printf("No %s here: no GPU x NIC pairs to judge.\n",
		       !p->ngpus && !p->nnics ? "GPU and no RDMA device" :
		       !p->ngpus ? "GPU" : "RDMA device");
	else
		print_matrix(p);
	if (p->ngpus > 1)
		print_gpu_pairs(p);
	if (p->ngpus && p->nnics)
		print_acs(p);
	print_verdicts(p);
	for (i = 0; i < p->nwarnings; i++)
		printf("note: %s\n", p->warnings[i]);
}

static int write_outputs(const struct probe_args *a, const struct probe *p)
{
	struct output_file json = { 0 }, topo = { 0 };
	struct diag d = { "" };
	json_t *j = NULL;
	int err = 0;

	if (a->json) {
		j = probe_json(p);
		err = j ? output_file_open(&json, a->json, &d) :
			  diag_set(&d, -ENOMEM, "out of memory");
		if (!err && json_dumpf(j, json.fp, JSON_INDENT(2)))
			err = diag_set(&d, -EIO, "%s: cannot write JSON", a->json);
		if (!err)
			fputc('\n', json.fp);
	}
	if (!err && a->topology) {
		err = output_file_open(&topo, a->topology, &d);
		if (!err)
			err = probe_emit_topology(p, topo.fp, &d);
	}
	/* Commit only when every output was written, so none is half done. */
	if (!err && json.fp)
		err = output_file_commit(&json, &d);
	if (!err && topo.fp)
		err = output_file_commit(&topo, &d);
	output_file_abort(&json);
	output_file_abort(&topo);
	json_decref(j);
	if (err)
		fprintf(stderr, "gdrlab probe: %s\n", d.msg);
	return err ? EXIT_RUNTIME : 0;
}

int cmd_probe(int argc, char **argv)
{
	struct probe_options opt = { 0 };
	struct probe_args a;
	struct probe *p;
	struct diag d = { "" };
	int rc, err;

	rc = parse_args(argc, argv, &a);
	if (rc >= 0)
		return rc;
	opt.sysfs = a.sysfs;
	opt.drivers = !a.sysfs; /* a captured tree is not this machine */
	err = probe_run(&opt, &p, &d);
	if (err) {
		fprintf(stderr, "gdrlab probe: %s\n", d.msg);
		return EXIT_USAGE;
	}
	rc = write_outputs(&a, p);
	if (!rc && !(a.json && !strcmp(a.json, "-")) &&
	    !(a.topology && !strcmp(a.topology, "-")))
		print_table(p);
	probe_destroy(p);
	return rc;
}
