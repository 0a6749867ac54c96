/* SPDX-License-Identifier: MIT */
/*
 * probe_emit: a gdrlab topology file (docs/topology-format.md) of the
 * probed machine. sysfs gives the tree, PCIe generations and widths, and
 * NIC rates; the drivers the GPU generation and NVLinks (probe_nvlink.c);
 * everything else is an estimate or a placeholder, and each such
 * value carries a comment saying which, so that no one mistakes it for a
 * measurement.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_util.h"
#include "probe_nvlink.h"
#include "probe_report.h"
#include "topology.h"

/* NVLink-C2C: 900 GB/s total, 450 GB/s per direction (NVIDIA Grace Hopper
 * superchip datasheet). */
#define C2C_GBS 450

static const char *parent_of(const struct probe *p, const struct probe_pcidev *d)
{
	return d->parent >= 0 ? p->switches[d->parent].name : p->cpus[d->cpu].name;
}

/*
 * "{ gen, width, latency }" from the device's max_link_* (current_link_* is
 * not used: idle GPUs train down to Gen1), then, where @close is not NULL,
 * @close and " }" ending the device's entry; then "  # @what".
 */
static void emit_link(FILE *out, const struct probe_link *l, const char *latency,
		      const char *what, const char *close)
{
	bool gen_ok = l->max_gen >= 1 && l->max_gen <= 6;
	int w = l->max_width;
	bool width_ok = w == 1 || w == 2 || w == 4 || w == 8 || w == 16 || w == 32;

	fprintf(out, "{ gen: %d, width: %d, latency: %s }%s%s  # %s%s\n",
		gen_ok ? l->max_gen : 3, width_ok ? w : 16, latency,
		close ? close : "", close ? " }" : "", what,
		gen_ok && width_ok ? "" : "; PLACEHOLDER gen/width: not in sysfs");
}

/*
 * Whether ACS redirect leaves GPU @g no NIC for GPUDirect RDMA: every NIC
 * within NCCL's default GDR level (PXB, or P2C) is behind it, so NCCL's
 * GDR would go up to the root complex (probe_verdict.c says no).
 */
static bool acs_blocked(const struct probe *p, unsigned g)
{
	bool any = false;

	for (unsigned n = 0; n < p->nnics; n++) {
		const struct probe_pair *pr = &p->pairs[g][n];

		if (!probe_nic_in_matrix(p, n) ||
		    !probe_class_within(pr->cls, TOPO_PATH_PXB, true))
			continue;
		if (!pr->acs_redirect)
			return false;
		any = true;
	}
	return any;
}

/* What the CUDA driver refuses GPU @g, or @acs takes from it (acs_blocked),
 * as the topology's keys say it. */
static const char *gpu_refusals(const struct probe_gpu *g, bool acs)
{
	bool gdr = g->gdr_support == PROBE_NO || acs, peer = g->peer_access == PROBE_NO;

	return gdr && peer ? ", gdr: false, peer_access: false" :
	       gdr	    ? ", gdr: false" :
	       peer	    ? ", peer_access: false" :
			      "";
}

/*
 * A GPU on NVLink-C2C, on its socket with kind: c2c, so that a NIC there is
 * at NCCL's P2C distance in the model as in the probe's table, and goes
 * direct at NCCL's default GDR level (NCCL_NET_GDR_C2C, on since 2.27).
 */
static void emit_c2c_gpu(const struct probe *p, const struct probe_gpu *g, FILE *out)
{
	fprintf(out, "  # %s: NVLink-C2C to its CPU (%s):\n"
		"  # a NIC on that socket is P2C, within NCCL's default GDR level since\n"
		"  # 2.27 (NCCL_NET_GDR_C2C).\n", g->name, g->c2c_why);
	fprintf(out, "  - { name: %s, parent: %s, link: { bandwidth: %d GB/s, "
		"latency: 0.1 us, kind: c2c }%s }  # %s: NVLink-C2C, ESTIMATE from the "
		"datasheet's 900 GB/s total\n", g->name, p->cpus[g->pci.cpu].name,
		C2C_GBS, gpu_refusals(g, false), g->pci.bdf);
}

static void sanitize(const char *in, char *out, size_t len)
{
	size_t i;

	for (i = 0; in[i] && i + 1 < len && i < TOPO_NAME_MAX - 1; i++) {
		char c = in[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';

		out[i] = ok ? c : '_';
	}
	out[i] = '\0';
}

static double nic_gbit(const struct probe_nic *n, unsigned *port)
{
	unsigned i;

	for (i = 0; i < n->nports; i++)
		if (n->ports[i].gbit > 0 && strstr(n->ports[i].state, "ACTIVE")) {
			*port = n->ports[i].num;
			return n->ports[i].gbit;
		}
	for (i = 0; i < n->nports; i++)
		if (n->ports[i].gbit > 0) {
			*port = n->ports[i].num;
			return n->ports[i].gbit;
		}
	return 0;
}

static void emit_header(const struct probe *p, FILE *out)
{
	const char *base = strrchr(p->sysfs, '/');
	/* --sysfs is any bytes, the file YAML: UTF-8 (YAML 1.2 §5.2, which
	 * gdrlab's own reader holds it to), on one comment line */
	char *from = utf8_dup_valid(p->sysfs), name[48];

	base = base && base[1] ? base + 1 : p->sysfs;
	sanitize(base, name, sizeof(name));
	fprintf(out,
		"# Written by 'gdrlab probe --emit-topology' from %s.\n"
		"# From sysfs: NUMA nodes (sockets), PCIe switches, GPUs, NICs, link\n"
		"# generation and width (max_link_*), NIC rates (ports/*/rate). From the\n"
		"# drivers (the live /sys only): the GPU generation and the NVLinks; a\n"
		"# Grace Hopper's generation and CPU from its PCI id and NVLink-C2C.\n"
		"# ESTIMATE: a typical value with its reasoning; PLACEHOLDER: sysfs cannot\n"
		"# tell, replace it with a measurement. Both must be checked before the\n"
		"# model's numbers are trusted.\n"
		"name: probed-%s\n"
		"nodes: 2                          # PLACEHOLDER: cluster size (gdrlab run --nodes)\n\n",
		from ? from : "?", strcmp(p->sysfs, "/sys") ? name : "sys");
	free(from);
	fprintf(out, "# PLACEHOLDER memory_bandwidth: measure with STREAM. No p2p caps.\nsockets:\n");
}

/*
 * Each pair ACS redirect denies GPUDirect RDMA, named with the probe's
 * reason. The format says gdr per GPU, not per pair: a GPU with no other
 * NIC in reach is written gdr: false; otherwise the model cannot be told.
 */
static void emit_acs(const struct probe *p, FILE *out)
{
	char why[PROBE_WHY_MAX];

	for (unsigned g = 0; g < p->ngpus; g++)
		for (unsigned n = 0; n < p->nnics; n++) {
			if (!probe_nic_in_matrix(p, n) || !p->pairs[g][n].acs_redirect)
				continue;
			probe_gdr_verdict(p, g, n, TOPO_PATH_SYS, true, why, sizeof(why));
			fprintf(out, "# %s-%s: no GPUDirect RDMA: %s.\n",
				p->gpus[g].name, p->nics[n].name, why);
			if (acs_blocked(p, g))
				fprintf(out, "# %s has no other NIC within NCCL's default GDR level, so it is\n"
					"# written gdr: false (the format has no per-pair key): at a wider\n"
					"# --gdr-level its farther pairs are staged too.\n",
					p->gpus[g].name);
			else
				fprintf(out, "# The format has no per-pair key, and %s has other NICs:\n"
					"# the model takes this pair as direct where the level allows.\n",
					p->gpus[g].name);
		}
}

static void emit_devices(const struct probe *p, FILE *out)
{
	char name[TOPO_NAME_MAX], what[96];
	unsigned i, port = 0;
	double gbit;

	for (i = 0; i < p->ncpus; i++)
		fprintf(out, "  - { name: %s, memory_bandwidth: 100 GB/s }  # NUMA node %d\n",
			p->cpus[i].name, p->cpus[i].numa);
	if (p->ncpus > 1)
		fprintf(out, "\n# PLACEHOLDER: sysfs does not describe the inter-socket link.\n"
			"inter_socket: { bandwidth: 50 GB/s, latency: 0.2 us }\n");
	if (p->nswitches) {
		fprintf(out, "\n# Switch latency: ESTIMATE, cut-through forwarding of 100-150 ns.\nswitches:\n");
		for (i = 0; i < p->nswitches; i++) {
			const struct probe_switch *s = &p->switches[i];

			snprintf(what, sizeof(what), "upstream port %s, %04x:%04x",
				 s->bdf, s->vendor, s->device);
			fprintf(out, "  - { name: %s, parent: %s, link: ", s->name,
				s->parent >= 0 ? p->switches[s->parent].name :
						 p->cpus[s->cpu].name);
			emit_link(out, &s->link, "0.15 us", what, "");
		}
	}
	fprintf(out, "\n# Device link latency: ESTIMATE, 0.1 us.\n");
	for (i = 0; i < p->ngpus; i++)
		if (gpu_refusals(&p->gpus[i], false)[0]) {
			fprintf(out, "# gdr, peer_access false: the CUDA driver says the GPU has no\n"
				"# GPUDirect RDMA, or no peer access to the other GPUs.\n");
			break;
		}
	emit_acs(p, out);
	fprintf(out, "gpus:\n");
	for (i = 0; i < p->ngpus; i++) {
		const struct probe_gpu *g = &p->gpus[i];

		if (g->c2c) {
			emit_c2c_gpu(p, g, out);
			continue;
		}
		snprintf(what, sizeof(what), "%s, %04x:%04x", g->pci.bdf,
			 g->pci.vendor, g->pci.device);
		fprintf(out, "  - { name: %s, parent: %s, link: ", g->name,
			parent_of(p, &g->pci));
		emit_link(out, &g->pci.link, "0.1 us", what, gpu_refusals(g, acs_blocked(p, i)));
	}
	fprintf(out, "\nnics:\n");
	for (i = 0; i < p->nnics; i++) {
		const struct probe_nic *n = &p->nics[i];

		if (!n->is_pci)
			continue;
		sanitize(n->name, name, sizeof(name));
		snprintf(what, sizeof(what), "%s, %04x:%04x", n->pci.bdf,
			 n->pci.vendor, n->pci.device);
		fprintf(out, "  - name: %s\n    parent: %s\n    link: ", name,
			parent_of(p, &n->pci));
		emit_link(out, &n->pci.link, "0.1 us", what, NULL);
		gbit = nic_gbit(n, &port);
		if (gbit > 0)
			fprintf(out, "    # rate: from ports/%u/rate\n", port);
		else
			fprintf(out, "    # rate: PLACEHOLDER, no port rate in sysfs\n");
		fprintf(out, "    # efficiency, latency: ESTIMATE (InfiniBand headers <1%%"
			" at 4 KiB MTU; vendor sub-us latency)\n");
		fprintf(out, "    rate: %g Gbit/s\n    efficiency: 0.95\n    latency: 0.6 us\n",
			gbit > 0 ? gbit : 100.0);
	}
}

/* NCCL's latency of an NVLink hop, as the shipped presets take it. */
#define NVLINK_LATENCY "0.6 us"

/* The mesh's pairs, each once (probe_nvlink_pair). */
static void emit_pairs(const struct probe *p, FILE *out)
{
	fprintf(out, "  pairs:\n");
	for (unsigned a = 0; a < p->ngpus; a++)
		for (unsigned b = a + 1; b < p->ngpus; b++) {
			unsigned n = probe_nvlink_pair(p, a, b);

			if (n)
				fprintf(out, "    - { gpus: [%s, %s], links: %u }\n",
					p->gpus[a].name, p->gpus[b].name, n);
		}
}

/* The lowest compute capability the GPUs' PCI ids imply, when every GPU's
 * does (a known C2C part: probe_sysfs.c); 0 otherwise. */
static int id_sm(const struct probe *p, unsigned *gpu)
{
	int sm = 0;

	for (unsigned i = 0; i < p->ngpus; i++) {
		if (!p->gpus[i].id_sm)
			return 0;
		if (!sm || p->gpus[i].id_sm < sm) {
			sm = p->gpus[i].id_sm;
			*gpu = i;
		}
	}
	return sm;
}

/* gpu_arch where the CUDA driver did not say: from the PCI ids where they
 * name the part, else a placeholder that says it is one. */
static void emit_arch_unknown(const struct probe *p, FILE *out)
{
	unsigned g = 0;
	int sm = id_sm(p, &g);

	if (sm)
		fprintf(out, "\n# From the PCI id: 10de:%04x is a Grace Hopper superchip, whose GPU is\n"
			"# compute capability %d.%d (NCCL's tuning index, tuning.cc).\ngpu_arch: %s\n",
			p->gpus[g].pci.device, sm / 10, sm % 10, probe_gpu_arch(sm));
	else
		fprintf(out, "\n# PLACEHOLDER: the CUDA driver did not give the compute capability.\n"
			"gpu_arch: ampere\n");
}

/* What NCCL's tuner picks its tables by: the GPU generation (the lowest
 * compute capability, tuning.cc) and the CPU vendor (probe_cpu.c). */
static void emit_generations(const struct probe *p, const struct probe_fabric *f, FILE *out)
{
	const char *arch = probe_gpu_arch(f->sm);

	if (arch && f->sm % 10 && f->sm != 89) /* 8.6: Ampere's tables, not its LL128 */
		fprintf(out, "\n# From the CUDA driver: compute capability %d.%d (NCCL's tuning "
			"index, tuning.cc).\ngpu_arch: %s\ncompute_capability: %d.%d\n", f->sm / 10,
			f->sm % 10, arch, f->sm / 10, f->sm % 10);
	else if (arch)
		fprintf(out, "\n# From the CUDA driver: compute capability %d.%d (NCCL's tuning "
			"index, tuning.cc).\ngpu_arch: %s\n", f->sm / 10, f->sm % 10, arch);
	else
		emit_arch_unknown(p, out);
	if (p->cpu_vendor[0])
		fprintf(out, "# From %s: %s.\ncpu_vendor: %s\n",
			p->cpu_vendor_c2c ? "the GPUs" : "/proc/cpuinfo", p->cpu_vendor_why,
			p->cpu_vendor);
	else
		fprintf(out, "# PLACEHOLDER: CPU vendor unknown (%s).\ncpu_vendor: intel\n",
			p->cpu_vendor_why);
	if (p->cpu_model[0])
		fprintf(out, "# From /proc/cpuinfo: %s, NCCL's class for the link between "
			"sockets (topo.cc ncclTopoAddCpu).\ncpu_model: %s\n", p->cpu_model_why,
			p->cpu_model);
}

/*
 * gpu_arch, cpu_vendor and gpu_fabric from the live machine: the compute
 * capability (libcuda) and each GPU's NVLinks (NVML), counted a link at
 * NCCL's figure for the GPU (topo.h; the presets' convention); a captured
 * tree, or a machine whose drivers did not answer, gets placeholders.
 */
static void emit_gpu_fabric(const struct probe *p, FILE *out)
{
	struct probe_fabric f;

	probe_nvlink_fabric(p, &f);
	emit_generations(p, &f, out);
	switch (f.kind) {
	case PROBE_FABRIC_UNKNOWN:
		fprintf(out, "\n# PLACEHOLDER: NVML did not give the NVLinks (%s).\n"
			"gpu_fabric: { kind: pcie }\n", p->nvml);
		break;
	case PROBE_FABRIC_PCIE:
		fprintf(out, "\n# From NVML: no GPU has an active NVLink to a GPU or an NVSwitch.\n"
			"gpu_fabric: { kind: pcie }\n");
		break;
	case PROBE_FABRIC_NVSWITCH:
		fprintf(out, "\n# From NVML: NVLinks to NVSwitches (%s%u a GPU); NCCL's %.1f GB/s a link\n"
			"# (topo.h); NVLink SHARP where every GPU has multicast (the CUDA driver).\n"
			"# Latency: ESTIMATE, NCCL's NVLink hop as the presets.\n",
			f.uneven ? "GPUs differ, the fewest: " : "", f.links, probe_nvlink_bw(f.sm));
		fprintf(out, "gpu_fabric: { kind: nvswitch, links: %u, link_bandwidth: %.1f GB/s, "
			"latency: %s, nvls: %s }\n", f.links, probe_nvlink_bw(f.sm), NVLINK_LATENCY,
			f.nvls ? "true" : "false");
		break;
	case PROBE_FABRIC_NVLINK:
		fprintf(out, "\n# From NVML: NVLinks between GPUs, pair by pair; NCCL's %.1f GB/s a\n"
			"# link (topo.h). Latency: ESTIMATE, NCCL's NVLink hop as the presets.\n"
			"gpu_fabric:\n  kind: nvlink\n  link_bandwidth: %.1f GB/s\n  latency: %s\n",
			probe_nvlink_bw(f.sm), probe_nvlink_bw(f.sm), NVLINK_LATENCY);
		emit_pairs(p, out);
		break;
	}
}

int probe_emit_topology(const struct probe *p, FILE *out, struct diag *d)
{
	unsigned i, npci = 0;

	for (i = 0; i < p->nnics; i++)
		npci += p->nics[i].is_pci;
	if (!p->ngpus || !npci)
		return diag_set(d, -ENODEV,
				"%s: no %s found: a topology needs at least one GPU and one RDMA NIC",
				p->sysfs, !p->ngpus ? "GPU" : "PCI RDMA device");
	if (p->ncpus > TOPO_MAX_SOCKETS || p->nswitches > TOPO_MAX_SWITCHES ||
	    p->ngpus > TOPO_MAX_GPUS || npci > TOPO_MAX_NICS)
		return diag_set(d, -E2BIG, "%s: more sockets, switches, GPUs or NICs "
				"than a topology file holds", p->sysfs);
	emit_header(p, out);
	emit_devices(p, out);
	emit_gpu_fabric(p, out);
	fprintf(out,
		"\n# PLACEHOLDER: sysfs knows nothing of the network.\n"
		"fabric: { switch_latency: 0.2 us, hops: 1, oversubscription: 1 }\n"
		"# ESTIMATE: NCCL's network buffers (NCCL_BUFFSIZE 4 MiB in 8 slots), about\n"
		"# 2 us per cudaMemcpyAsync; copy bandwidth PLACEHOLDER (gdrlab calibrate).\n"
		"staging: { chunk: 512 KiB, buffers: 8, copy_bandwidth: 20 GB/s, chunk_overhead: 2 us }\n");
	return ferror(out) ? diag_set(d, -EIO, "write error") : 0;
}
