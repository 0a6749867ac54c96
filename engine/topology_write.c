/* SPDX-License-Identifier: MIT */
/*
 * topology_write: a struct topology as the YAML topology_load() reads
 * (docs/topology-format.md), so that a program can change a topology and
 * hand it on: `gdrlab calibrate --layout` puts what it measured into a
 * machine's own layout. Every value is written in base units with ten
 * significant digits (bandwidths in GB/s, or MB/s below 1 GB/s; times in
 * us), links as explicit
 * bandwidth_up/bandwidth_down (the loader's PCIe efficiency is already in
 * them), absent caps (INFINITY) as absent keys, a wired NVLink mesh's
 * pairs one a line.
 */
#include "topology_write.h"

#include <errno.h>
#include <math.h>

static const char *parent_name(const struct topology *t, int socket, int sw)
{
	return sw != TOPO_NONE ? t->switches[sw].name : t->sockets[socket].name;
}

static void bw(FILE *f, const char *key, double v)
{
	if (v >= 1e9)
		fprintf(f, "%s: %.10g GB/s", key, v / 1e9);
	else
		fprintf(f, "%s: %.10g MB/s", key, v / 1e6);
}

/* One tier of switches; @top: no uplinks to write. */
static void tier(FILE *f, const char *name, const struct topo_tier *w, bool top)
{
	fprintf(f, "  %s: { ports: %u, ", name, w->ports);
	bw(f, "port_speed", w->port_bw);
	if (!top) {
		fprintf(f, ", uplinks: %u, ", w->uplinks);
		bw(f, "uplink_speed", w->uplink_bw);
	}
	fprintf(f, ", latency: %.10g us", w->latency * 1e6);
	if (w->nodes)
		fprintf(f, ", nodes: %u", w->nodes);
	if (w->count)
		fprintf(f, ", count: %u", w->count);
	fprintf(f, " }\n");
}

static void switches(FILE *f, const struct topo_fabric *fab)
{
	fprintf(f, "fabric:\n");
	/* Optional with switches: every tier carries its own latency. */
	if (fab->switch_latency > 0)
		fprintf(f, "  switch_latency: %.10g us\n", fab->switch_latency * 1e6);
	fprintf(f, "  in_network_reduction: %s\n  attach: %s\n  ecmp_seed: %llu\n",
		fab->in_network_reduction ? "true" : "false",
		fab->attach == TOPO_ATTACH_RAIL ? "rail" : "node",
		(unsigned long long)fab->ecmp_seed);
	tier(f, "leaf", &fab->leaf, false);
	tier(f, "spine", &fab->spine, fab->tiers == 2);
	if (fab->tiers == 3)
		tier(f, "core", &fab->core, true);
}

static void link(FILE *f, const struct topo_link *l)
{
	fprintf(f, "{ ");
	bw(f, "bandwidth_up", l->bw_up);
	fprintf(f, ", ");
	bw(f, "bandwidth_down", l->bw_down);
	fprintf(f, ", latency: %.10g us%s }", l->latency * 1e6,
		l->kind == TOPO_LINK_C2C ? ", kind: c2c" : "");
}

/* ", p2p_read: ..., p2p_write: ..." for the caps that are set. */
static void caps(FILE *f, double read, double write)
{
	if (isfinite(read)) {
		fprintf(f, ", ");
		bw(f, "p2p_read", read);
	}
	if (isfinite(write)) {
		fprintf(f, ", ");
		bw(f, "p2p_write", write);
	}
}

/* A YAML double-quoted scalar: the name may hold anything. */
static void quoted(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\x%02x", (unsigned char)*s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void devices(FILE *f, const struct topology *t)
{
	fprintf(f, "gpus:\n");
	for (unsigned i = 0; i < t->ngpus; i++) {
		const struct topo_device *g = &t->gpus[i];

		fprintf(f, "  - { name: %s, parent: %s, link: ", g->name,
			parent_name(t, g->socket, g->parent_switch));
		link(f, &g->link);
		caps(f, g->p2p_read_bw, g->p2p_write_bw);
		if (g->no_gdr)
			fprintf(f, ", gdr: false");
		if (g->no_peer_access)
			fprintf(f, ", peer_access: false");
		fprintf(f, " }\n");
	}
	fprintf(f, "nics:\n");
	for (unsigned i = 0; i < t->nnics; i++) {
		const struct topo_nic *n = &t->nics[i];

		fprintf(f, "  - { name: %s, parent: %s, link: ", n->dev.name,
			parent_name(t, n->dev.socket, n->dev.parent_switch));
		link(f, &n->dev.link);
		fprintf(f, ", ");
		bw(f, "rate", n->line_rate);
		fprintf(f, ", efficiency: %.10g, latency: %.10g us }\n",
			n->efficiency, n->latency * 1e6);
	}
}

/*
 * A wired mesh (kind nvlink with pairs) in block style, each pair on its
 * own line in GPU order. links is written even where the pairs would give
 * it, so that a count above every GPU's pairs survives.
 */
static void wired_mesh(FILE *f, const struct topology *t)
{
	const struct topo_gpu_fabric *g = &t->gpu_fabric;

	fprintf(f, "gpu_fabric:\n  kind: nvlink\n");
	if (g->links)
		fprintf(f, "  links: %u\n", g->links);
	fprintf(f, "  ");
	bw(f, "link_bandwidth", g->link_bw);
	fprintf(f, "\n  latency: %.10g us\n  pairs:\n", g->latency * 1e6);
	for (unsigned i = 0; i < t->ngpus; i++)
		for (unsigned j = i + 1; j < t->ngpus; j++)
			if (g->pair_links[i][j])
				fprintf(f, "    - { gpus: [%s, %s], links: %u }\n",
					t->gpus[i].name, t->gpus[j].name,
					(unsigned)g->pair_links[i][j]);
}

static void gpu_fabric(FILE *f, const struct topology *t)
{
	const struct topo_gpu_fabric *g = &t->gpu_fabric;

	if (!topo_has_nvlink(t)) {
		fprintf(f, "gpu_fabric: { kind: pcie }\n");
		return;
	}
	if (g->kind == TOPO_GPU_FABRIC_NVLINK && g->wired) {
		wired_mesh(f, t);
		return;
	}
	fprintf(f, "gpu_fabric: { kind: %s, ",
		g->kind == TOPO_GPU_FABRIC_NVSWITCH ? "nvswitch" : "nvlink");
	if (g->links) {
		fprintf(f, "links: %u, ", g->links);
		/* A struct filled by hand may lack link_bw: the whole's share. */
		bw(f, "link_bandwidth", g->link_bw > 0 ? g->link_bw : g->bw / g->links);
	} else {
		bw(f, "bandwidth", g->bw);
	}
	fprintf(f, ", latency: %.10g us", g->latency * 1e6);
	if (g->kind == TOPO_GPU_FABRIC_NVSWITCH)
		fprintf(f, ", nvls: %s", g->nvls ? "true" : "false");
	fprintf(f, " }\n");
}

int topology_write(FILE *f, const struct topology *t)
{
	fprintf(f, "name: ");
	quoted(f, t->name);
	fprintf(f, "\nnodes: %u\nsockets:\n", t->nodes);
	for (unsigned i = 0; i < t->nsockets; i++) {
		const struct topo_socket *s = &t->sockets[i];

		fprintf(f, "  - { name: %s, ", s->name);
		bw(f, "memory_bandwidth", s->mem_bw);
		caps(f, s->p2p_read_bw, s->p2p_write_bw);
		fprintf(f, " }\n");
	}
	if (t->nsockets > 1) {
		fprintf(f, "inter_socket: ");
		link(f, &t->inter_socket);
		fprintf(f, "\n");
	}
	if (t->nswitches)
		fprintf(f, "switches:\n");
	for (unsigned i = 0; i < t->nswitches; i++) {
		const struct topo_switch *s = &t->switches[i];

		fprintf(f, "  - { name: %s, parent: %s, link: ", s->name,
			parent_name(t, s->socket, s->parent_switch));
		link(f, &s->uplink);
		fprintf(f, " }\n");
	}
	devices(f, t);
	gpu_fabric(f, t);
	if (t->fabric.tiers)
		switches(f, &t->fabric);
	else
		fprintf(f, "fabric: { switch_latency: %.10g us, hops: %u, oversubscription: %.10g, "
			"in_network_reduction: %s }\n",
			t->fabric.switch_latency * 1e6, t->fabric.hops,
			t->fabric.oversubscription,
			t->fabric.in_network_reduction ? "true" : "false");
	fprintf(f, "staging: { chunk: %llu B, buffers: %u, ",
		(unsigned long long)t->staging.chunk_bytes, t->staging.buffers);
	bw(f, "copy_bandwidth", t->staging.copy_bw);
	fprintf(f, ", chunk_overhead: %.10g us, copy_engines: %u }\n",
		t->staging.chunk_overhead * 1e6, t->staging.copy_engines);
	fprintf(f, "gpu_arch: %s\ncpu_vendor: %s\n", topo_gpu_arch_name(t->gpu_arch),
		topo_cpu_vendor_name(t->cpu_vendor));
	if (t->cpu_model != TOPO_CPU_MODEL_UNSET)
		fprintf(f, "cpu_model: %s\n", topo_cpu_model_name(t->cpu_model));
	if (t->gpu_cc && t->gpu_cc % 10)
		fprintf(f, "compute_capability: %u.%u\n", t->gpu_cc / 10, t->gpu_cc % 10);
	if (t->gpu_tflops > 0)
		fprintf(f, "gpu_tflops: %.10g\n", t->gpu_tflops);
	return ferror(f) ? -EIO : 0;
}
