/* SPDX-License-Identifier: MIT */
/*
 * topology loader: the presets load with the values their comments derive,
 * the defaults apply, and each bad file in tests/data/bad-topology/ gets its
 * one-line message at the right line and column.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "topology.h"

#define CONFIG(name) GDRLAB_SOURCE_DIR "/configs/" name ".yaml"
#define BAD_DIR GDRLAB_SOURCE_DIR "/tests/data/bad-topology/"

/* Within 0.1%: enough to tell 31.5 GB/s from 25.2 GB/s or 24 GB/s. */
static int close_to(double a, double b)
{
	return fabs(a - b) <= 1e-3 * fabs(b);
}

static void load(const char *path, struct topology *t)
{
	struct diag d = { "" };

	cr_assert_eq(topology_load(path, t, &d), 0, "%s", d.msg);
	cr_assert_str_eq(t->file, path);
}

static void load_str(const char *yaml, struct topology *t)
{
	struct diag d = { "" };

	cr_assert_eq(topology_load_buffer(yaml, strlen(yaml), "inline", t, &d),
		     0, "%s", d.msg);
}

/* Gen4 x16 at the default 0.8: 16 lanes x 1.969 GB/s x 0.8. */
#define GEN4_X16 (16 * 1.969e9 * 0.8)
#define GEN5_X16 (16 * 3.938e9 * 0.8)

static void check_link(const struct topo_link *l, double bw, double lat)
{
	cr_assert(close_to(l->bw_up, bw), "bw_up %g, want %g", l->bw_up, bw);
	cr_assert(close_to(l->bw_down, bw), "bw_down %g, want %g", l->bw_down,
		  bw);
	cr_assert(close_to(l->latency, lat), "latency %g, want %g", l->latency,
		  lat);
}

Test(topology, a100_preset)
{
	struct topology t;
	unsigned i;

	load(CONFIG("a100-pcie4-200g"), &t);
	cr_assert_str_eq(t.name, "a100-pcie4-200g");
	cr_assert_eq(t.nodes, 2);
	cr_assert_eq(t.nsockets, 2);
	cr_assert_eq(t.nswitches, 4);
	cr_assert_eq(t.ngpus, 8);
	cr_assert_eq(t.nnics, 4);
	for (i = 0; i < 2; i++) {
		cr_assert(close_to(t.sockets[i].mem_bw, 150e9));
		cr_assert(close_to(t.sockets[i].p2p_read_bw, 16e9));
		cr_assert(isinf(t.sockets[i].p2p_write_bw));
	}
	check_link(&t.inter_socket, 64e9, 0.2e-6);
	/* Two switches per socket, on root ports. */
	for (i = 0; i < 4; i++) {
		cr_assert_eq(t.switches[i].socket, (int)i / 2);
		cr_assert_eq(t.switches[i].parent_switch, TOPO_NONE);
		check_link(&t.switches[i].uplink, GEN4_X16, 0.15e-6);
	}
	/* Two GPUs per switch, one NIC per switch. */
	for (i = 0; i < 8; i++) {
		cr_assert_eq(t.gpus[i].parent_switch, (int)i / 2);
		cr_assert_eq(t.gpus[i].socket, (int)i / 4);
		check_link(&t.gpus[i].link, GEN4_X16, 0.1e-6);
	}
	for (i = 0; i < 4; i++) {
		cr_assert_eq(t.nics[i].dev.parent_switch, (int)i);
		cr_assert_eq(t.nics[i].dev.socket, (int)i / 2);
		check_link(&t.nics[i].dev.link, GEN4_X16, 0.1e-6);
		cr_assert_eq(t.nics[i].line_rate, 25e9); /* 200 Gbit/s */
		cr_assert(close_to(t.nics[i].efficiency, 0.95));
		cr_assert(close_to(t.nics[i].latency, 0.6e-6));
	}
	/* NVSwitch, 12 links at NCCL's 20 GB/s (src/graph/topo.h), no SHARP */
	cr_assert_eq(t.gpu_fabric.kind, TOPO_GPU_FABRIC_NVSWITCH);
	cr_assert_eq(t.gpu_fabric.links, 12);
	cr_assert(close_to(t.gpu_fabric.bw, 240e9));
	cr_assert(!t.gpu_fabric.nvls);
	cr_assert_eq(t.gpu_arch, TOPO_GPU_AMPERE);
	cr_assert_eq(t.cpu_vendor, TOPO_CPU_AMD);
	cr_assert(close_to(t.fabric.switch_latency, 0.2e-6));
	cr_assert_eq(t.fabric.hops, 1);
	cr_assert_eq(t.fabric.oversubscription, 1);
	cr_assert_eq(t.staging.chunk_bytes, 512 * 1024);
	cr_assert_eq(t.staging.buffers, 8);
	cr_assert_eq(t.staging.copy_bw, 25e9);
	cr_assert(close_to(t.staging.chunk_overhead, 2e-6));
}

Test(topology, h100_preset)
{
	struct topology t;
	unsigned i;

	load(CONFIG("h100-pcie5-400g"), &t);
	cr_assert_eq(t.nodes, 2);
	cr_assert_eq(t.nsockets, 2);
	cr_assert_eq(t.nswitches, 4);
	cr_assert_eq(t.ngpus, 8);
	cr_assert_eq(t.nnics, 8);
	cr_assert(close_to(t.sockets[1].mem_bw, 211e9));
	cr_assert(close_to(t.sockets[1].p2p_read_bw, 32e9));
	for (i = 0; i < 8; i++) {
		/* Two GPUs and two NICs per switch. */
		cr_assert_eq(t.gpus[i].parent_switch, (int)i / 2);
		cr_assert_eq(t.nics[i].dev.parent_switch, (int)i / 2);
		cr_assert_eq(t.nics[i].dev.socket, (int)i / 4);
		check_link(&t.gpus[i].link, GEN5_X16, 0.1e-6);
		cr_assert_eq(t.nics[i].line_rate, 50e9); /* 400 Gbit/s */
	}
	check_link(&t.switches[3].uplink, GEN5_X16, 0.15e-6);
	/* NVSwitch with NVLink SHARP, 18 links at NCCL's 20.6 GB/s */
	cr_assert_eq(t.gpu_fabric.kind, TOPO_GPU_FABRIC_NVSWITCH);
	cr_assert_eq(t.gpu_fabric.links, 18);
	cr_assert(close_to(t.gpu_fabric.bw, 18 * 20.6e9));
	cr_assert(t.gpu_fabric.nvls);
	cr_assert_eq(t.gpu_arch, TOPO_GPU_HOPPER);
	cr_assert_eq(t.staging.copy_bw, 35e9);
}

Test(topology, commodity_preset)
{
	struct topology t;

	load(CONFIG("two-socket-commodity"), &t);
	cr_assert_eq(t.nsockets, 2);
	cr_assert_eq(t.nswitches, 0);
	cr_assert_eq(t.ngpus, 2);
	cr_assert_eq(t.nnics, 1);
	cr_assert_eq(t.gpus[0].socket, 0);
	cr_assert_eq(t.gpus[1].socket, 0);
	cr_assert_eq(t.gpus[1].parent_switch, TOPO_NONE);
	cr_assert_eq(t.nics[0].dev.socket, 1);
	cr_assert_eq(t.nics[0].dev.parent_switch, TOPO_NONE);
	cr_assert(close_to(t.sockets[0].p2p_read_bw, 16e9));
	cr_assert(close_to(t.sockets[1].p2p_read_bw, 16e9));
	check_link(&t.inter_socket, 40e9, 0.2e-6);
	cr_assert_eq(t.gpu_fabric.kind, TOPO_GPU_FABRIC_PCIE);
	cr_assert_eq(t.gpu_fabric.bw, 0);
	cr_assert_eq(t.gpu_fabric.latency, 0);
}

static const char minimal[] =
	"name: tiny\n"
	"sockets: [ { name: cpu0, memory_bandwidth: 100 GB/s } ]\n"
	"gpus: [ { name: g0, parent: cpu0, link: { bandwidth: 24 GB/s, latency: 1 us } } ]\n"
	"nics:\n"
	"  - name: n0\n"
	"    parent: cpu0\n"
	"    link: { bandwidth_up: 20 GB/s, bandwidth_down: 10 GB/s, latency: 2 us }\n"
	"    rate: 100 Gbit/s\n"
	"    latency: 1 us\n"
	"fabric: { switch_latency: 300 ns }\n"
	"staging: { chunk: 1 MiB, buffers: 4, copy_bandwidth: 20 GB/s, chunk_overhead: 2 us }\n";

Test(topology, defaults_and_link_forms)
{
	struct topology t;

	load_str(minimal, &t);
	cr_assert_eq(t.nodes, 1);
	cr_assert(isinf(t.sockets[0].p2p_read_bw));
	cr_assert(isinf(t.sockets[0].p2p_write_bw));
	cr_assert_eq(t.inter_socket.bw_up, 0);
	cr_assert_eq(t.inter_socket.latency, 0);
	cr_assert_eq(t.gpus[0].parent_switch, TOPO_NONE);
	check_link(&t.gpus[0].link, 24e9, 1e-6);
	cr_assert_eq(t.nics[0].dev.link.bw_up, 20e9);
	cr_assert_eq(t.nics[0].dev.link.bw_down, 10e9);
	cr_assert_eq(t.nics[0].efficiency, 1.0);
	cr_assert_eq(t.nics[0].line_rate, 12.5e9);
	cr_assert_eq(t.gpu_fabric.kind, TOPO_GPU_FABRIC_PCIE);
	cr_assert_eq(t.fabric.hops, 1);
	cr_assert_eq(t.fabric.oversubscription, 1);
	cr_assert_eq(t.staging.chunk_bytes, 1048576);
	cr_assert_str_eq(t.file, "inline");
}

/*
 * A switch may name a parent listed after it; its socket is the one at the
 * top of the chain. An explicit efficiency replaces the 0.8 default.
 */
Test(topology, switch_tree_and_efficiency)
{
	static const char yaml[] =
		"name: tree\n"
		"nodes: 64\n"
		"sockets:\n"
		"  - { name: cpu0, memory_bandwidth: 100 GB/s }\n"
		"  - { name: cpu1, memory_bandwidth: 100 GB/s, p2p_write: 5 GB/s }\n"
		"inter_socket: { bandwidth: 40 GB/s, latency: 0.2 us }\n"
		"switches:\n"
		"  - { name: leaf, parent: top, link: { gen: 3, width: 8, efficiency: 50%, latency: 0.1 us } }\n"
		"  - { name: top, parent: cpu1, link: { gen: 4, width: 16, efficiency: 1, latency: 0.1 us } }\n"
		"gpus: [ { name: g0, parent: leaf, link: { gen: 4, width: 16, latency: 0.1 us } } ]\n"
		"nics: [ { name: n0, parent: top, link: { gen: 4, width: 16, latency: 0.1 us }, rate: 200 Gbit/s, efficiency: 90%, latency: 1 us } ]\n"
		"fabric: { switch_latency: 0.3 us, hops: 3, oversubscription: 2.5 }\n"
		"staging: { chunk: 1 MiB, buffers: 4, copy_bandwidth: 20 GB/s, chunk_overhead: 2 us }\n";
	struct topology t;

	load_str(yaml, &t);
	cr_assert_eq(t.nodes, 64);
	cr_assert_eq(t.switches[0].parent_switch, 1);
	cr_assert_eq(t.switches[0].socket, 1);
	cr_assert_eq(t.switches[1].parent_switch, TOPO_NONE);
	cr_assert_eq(t.switches[1].socket, 1);
	cr_assert_eq(t.gpus[0].socket, 1);
	cr_assert_eq(t.gpus[0].parent_switch, 0);
	cr_assert_eq(t.nics[0].dev.parent_switch, 1);
	/* gen3 x8 at 50%: 8 x 0.9846 GB/s x 0.5; gen4 x16 at 100%: 31.5. */
	check_link(&t.switches[0].uplink, 8 * 0.9846e9 * 0.5, 0.1e-6);
	check_link(&t.switches[1].uplink, 16 * 1.969e9, 0.1e-6);
	cr_assert(close_to(t.nics[0].efficiency, 0.9));
	cr_assert(close_to(t.sockets[1].p2p_write_bw, 5e9));
	cr_assert(isinf(t.sockets[1].p2p_read_bw));
	cr_assert_eq(t.fabric.hops, 3);
	cr_assert_eq(t.fabric.oversubscription, 2.5);
}

/*
 * tests/data/gpu-p2p.yaml: per-GPU peer-to-peer caps in any bandwidth
 * unit (40 Gbit/s is 5 GB/s); absent ones, and every NIC's, are no cap.
 */
Test(topology, gpu_p2p_caps)
{
	struct topology t;

	load(GDRLAB_SOURCE_DIR "/tests/data/gpu-p2p.yaml", &t);
	cr_assert_eq(t.ngpus, 3);
	cr_assert_eq(t.gpus[0].p2p_read_bw, 4e9);
	cr_assert(isinf(t.gpus[0].p2p_write_bw));
	cr_assert(isinf(t.gpus[1].p2p_read_bw));
	cr_assert_eq(t.gpus[1].p2p_write_bw, 5e9);
	cr_assert_eq(t.gpus[2].p2p_read_bw, 1e12);
	cr_assert_eq(t.gpus[2].p2p_write_bw, 1e12);
	cr_assert(isinf(t.nics[0].dev.p2p_read_bw));
	cr_assert(isinf(t.nics[0].dev.p2p_write_bw));
	load_str(minimal, &t);
	cr_assert(isinf(t.gpus[0].p2p_read_bw));
	cr_assert(isinf(t.gpus[0].p2p_write_bw));
}

Test(topology, find)
{
	struct topology t;

	load(CONFIG("a100-pcie4-200g"), &t);
	cr_assert_eq(topology_find_gpu(&t, "gpu5"), 5);
	cr_assert_eq(topology_find_nic(&t, "nic3"), 3);
	cr_assert_eq(topology_find_switch(&t, "sw2"), 2);
	cr_assert_eq(topology_find_socket(&t, "cpu1"), 1);
	cr_assert_eq(topology_find_gpu(&t, "nic0"), TOPO_NONE);
	cr_assert_eq(topology_find_nic(&t, "gpu0"), TOPO_NONE);
	cr_assert_eq(topology_find_switch(&t, "cpu0"), TOPO_NONE);
	cr_assert_eq(topology_find_socket(&t, ""), TOPO_NONE);
}

/*
 * tests/data/dgx1-wired-mesh.yaml: DGX-1V's hybrid cube-mesh, the NV1 and
 * NV2 of nvidia-smi topo -m. Each GPU has 1+1+2+2 = 6 links, so links,
 * absent, is 6 and a GPU's bandwidth 6 x 20 GB/s. gpu_fabric comes before
 * gpus in that file; gpu7, gpu6 is listed in that order.
 */
Test(topology, wired_mesh)
{
	static const uint8_t want[8][8] = {
		/*  0  1  2  3  4  5  6  7 */
		{ 0, 1, 1, 2, 2, 0, 0, 0 }, /* gpu0 */
		{ 1, 0, 2, 1, 0, 2, 0, 0 }, /* gpu1 */
		{ 1, 2, 0, 2, 0, 0, 1, 0 }, /* gpu2 */
		{ 2, 1, 2, 0, 0, 0, 0, 1 }, /* gpu3 */
		{ 2, 0, 0, 0, 0, 1, 1, 2 }, /* gpu4 */
		{ 0, 2, 0, 0, 1, 0, 2, 1 }, /* gpu5 */
		{ 0, 0, 1, 0, 1, 2, 0, 2 }, /* gpu6 */
		{ 0, 0, 0, 1, 2, 1, 2, 0 }, /* gpu7 */
	};
	struct topology t;

	load(GDRLAB_SOURCE_DIR "/tests/data/dgx1-wired-mesh.yaml", &t);
	cr_assert_eq(t.ngpus, 8);
	cr_assert_eq(t.gpu_fabric.kind, TOPO_GPU_FABRIC_NVLINK);
	cr_assert(t.gpu_fabric.wired);
	cr_assert_eq(t.gpu_fabric.links, 6);
	cr_assert_eq(t.gpu_fabric.link_bw, 20e9);
	cr_assert_eq(t.gpu_fabric.bw, 120e9);
	cr_assert(close_to(t.gpu_fabric.latency, 0.6e-6));
	for (unsigned i = 0; i < TOPO_MAX_GPUS; i++)
		for (unsigned j = 0; j < TOPO_MAX_GPUS; j++)
			cr_assert_eq(t.gpu_fabric.pair_links[i][j],
				     i < 8 && j < 8 ? want[i][j] : 0,
				     "pair_links[%u][%u] = %u", i, j,
				     t.gpu_fabric.pair_links[i][j]);
}

/*
 * Four PCIe cards, two pairs joined by NVLink bridges (as H100 NVL): 12
 * links a pair, the GPU's 18 given, so bw is 18 x 20.6 GB/s although only
 * 12 are wired. gpu0 and gpu2 share no link.
 */
Test(topology, wired_bridges_with_links)
{
	static const char yaml[] =
		"name: bridged\n"
		"sockets: [ { name: cpu0, memory_bandwidth: 100 GB/s } ]\n"
		"gpus:\n"
		"  - { name: a, parent: cpu0, link: { gen: 5, width: 16, latency: 0.1 us } }\n"
		"  - { name: b, parent: cpu0, link: { gen: 5, width: 16, latency: 0.1 us } }\n"
		"  - { name: c, parent: cpu0, link: { gen: 5, width: 16, latency: 0.1 us } }\n"
		"  - { name: d, parent: cpu0, link: { gen: 5, width: 16, latency: 0.1 us } }\n"
		"nics: [ { name: n0, parent: cpu0, link: { gen: 5, width: 16, latency: 0.1 us }, rate: 400 Gbit/s, latency: 1 us } ]\n"
		"gpu_fabric:\n"
		"  kind: nvlink\n"
		"  links: 18\n"
		"  link_bandwidth: 20.6 GB/s\n"
		"  latency: 0.6 us\n"
		"  pairs: [ { gpus: [a, b], links: 12 }, { links: 12, gpus: [d, c] } ]\n"
		"fabric: { switch_latency: 300 ns }\n"
		"staging: { chunk: 1 MiB, buffers: 4, copy_bandwidth: 20 GB/s, chunk_overhead: 2 us }\n";
	const struct topo_gpu_fabric *g;
	struct topology t;

	load_str(yaml, &t);
	g = &t.gpu_fabric;
	cr_assert(g->wired);
	cr_assert_eq(g->links, 18);
	cr_assert(close_to(g->link_bw, 20.6e9));
	cr_assert(close_to(g->bw, 18 * 20.6e9));
	cr_assert_eq(g->pair_links[0][1], 12);
	cr_assert_eq(g->pair_links[1][0], 12);
	cr_assert_eq(g->pair_links[2][3], 12);
	cr_assert_eq(g->pair_links[3][2], 12);
	cr_assert_eq(g->pair_links[0][2], 0);
	cr_assert_eq(g->pair_links[1][3], 0);
	cr_assert_eq(g->pair_links[0][0], 0);
}

/* Without pairs nothing is wired; link_bw is the per-link figure when the
 * bandwidth is given as links x link_bandwidth, 0 when given whole. */
Test(topology, link_bw_without_pairs)
{
	char yaml[sizeof(minimal) + 128];
	struct topology t;

	load(CONFIG("a100-pcie4-200g"), &t);
	cr_assert(!t.gpu_fabric.wired);
	cr_assert_eq(t.gpu_fabric.link_bw, 20e9);
	snprintf(yaml, sizeof(yaml), "%sgpu_fabric: { kind: nvlink, links: 6, link_bandwidth: 25 GB/s, latency: 1 us }\n",
		 minimal);
	load_str(yaml, &t);
	cr_assert(!t.gpu_fabric.wired);
	cr_assert_eq(t.gpu_fabric.links, 6);
	cr_assert_eq(t.gpu_fabric.link_bw, 25e9);
	cr_assert_eq(t.gpu_fabric.bw, 150e9);
	snprintf(yaml, sizeof(yaml), "%sgpu_fabric: { kind: nvlink, bandwidth: 150 GB/s, latency: 1 us }\n",
		 minimal);
	load_str(yaml, &t);
	cr_assert(!t.gpu_fabric.wired);
	cr_assert_eq(t.gpu_fabric.links, 0);
	cr_assert_eq(t.gpu_fabric.link_bw, 0);
	cr_assert_eq(t.gpu_fabric.bw, 150e9);
}

/*
 * --set still reaches gpu_fabric with pairs: link_bandwidth; every pair's
 * links through the list (3 each: gpu0's four pairs make links 12); links
 * where the file has it (pairs-over-links: 7 lets gpu3's 7 in, 5 is below
 * gpu0's 2 + 4 and is refused, naming the --set).
 */
Test(topology, wired_mesh_overrides)
{
	static const char mesh[] = GDRLAB_SOURCE_DIR "/tests/data/dgx1-wired-mesh.yaml";
	static const char over[] = BAD_DIR "pairs-over-links.yaml";
	struct topo_override faster = { "gpu_fabric.link_bandwidth", "25 GB/s" };
	struct topo_override thicker = { "gpu_fabric.pairs.links", "3" };
	struct topo_override more = { "gpu_fabric.links", "7" };
	struct topo_override fewer = { "gpu_fabric.links", "5" };
	struct topology t;
	struct diag d = { "" };

	cr_assert_eq(topology_load_with(mesh, &faster, 1, &t, &d), 0, "%s", d.msg);
	cr_assert_eq(t.gpu_fabric.links, 6);
	cr_assert_eq(t.gpu_fabric.bw, 150e9);
	cr_assert_eq(topology_load_with(mesh, &thicker, 1, &t, &d), 0, "%s", d.msg);
	cr_assert_eq(t.gpu_fabric.links, 12);
	cr_assert_eq(t.gpu_fabric.pair_links[7][6], 3);
	cr_assert_eq(t.gpu_fabric.bw, 240e9);
	cr_assert_eq(topology_load_with(over, &more, 1, &t, &d), 0, "%s", d.msg);
	cr_assert_eq(t.gpu_fabric.links, 7);
	cr_assert_eq(t.gpu_fabric.pair_links[2][3], 3);
	cr_assert_eq(topology_load_with(over, &fewer, 1, &t, &d), -EINVAL);
	cr_assert_str_eq(d.msg, "gpu_fabric.links=5, set on " BAD_DIR "pairs-over-links.yaml: "
			 "links: gpu0 has 6 NVLinks in pairs, more than links (5)");
}

#define SOME_ENTRIES GDRLAB_SOURCE_DIR "/tests/data/set-some-entries.yaml"

/*
 * A path through a list is every entry's, also where an entry leaves the
 * key out and takes its default: tests/data/set-some-entries.yaml has
 * gdr: false on gpu1 alone, efficiency 0.9 on nic0 alone. --set
 * gpus.gdr=false set gpu1's only, leaving gpu0 with GPUDirect (run said
 * "mixed" where every GPU was asked to stage), and nics.efficiency nic0's.
 */
Test(topology, some_entries_take_the_set_value_too)
{
	struct topo_override no_gdr = { "gpus.gdr", "false" };
	struct topo_override gdr = { "gpus.gdr", "true" };
	struct topo_override half = { "nics.efficiency", "0.5" };
	struct topology t;
	struct diag d = { "" };

	cr_assert_eq(topology_load(SOME_ENTRIES, &t, &d), 0, "%s", d.msg);
	cr_assert(!t.gpus[0].no_gdr && t.gpus[1].no_gdr);
	cr_assert_float_eq(t.nics[0].efficiency, 0.9, 1e-12);
	cr_assert_float_eq(t.nics[1].efficiency, 1.0, 1e-12);
	cr_assert_eq(topology_load_with(SOME_ENTRIES, &no_gdr, 1, &t, &d), 0, "%s", d.msg);
	cr_assert(t.gpus[0].no_gdr, "gpu0 kept GPUDirect under --set gpus.gdr=false");
	cr_assert(t.gpus[1].no_gdr);
	cr_assert_eq(topology_load_with(SOME_ENTRIES, &gdr, 1, &t, &d), 0, "%s", d.msg);
	cr_assert(!t.gpus[0].no_gdr && !t.gpus[1].no_gdr);
	cr_assert_eq(topology_load_with(SOME_ENTRIES, &half, 1, &t, &d), 0, "%s", d.msg);
	cr_assert_float_eq(t.nics[0].efficiency, 0.5, 1e-12);
	cr_assert_float_eq(t.nics[1].efficiency, 0.5, 1e-12, "nic1 kept its default efficiency");
}

#define ALIASED GDRLAB_SOURCE_DIR "/tests/data/aliased-links.yaml"

/*
 * A node the file aliases (link: *pcie on the switch, both GPUs and both
 * NICs) is set where the path reaches it, not everywhere: --set
 * switches.link.bandwidth=5GB/s slowed every GPU's and NIC's link too (a
 * direct all-reduce under the switch took twice as long). A path through
 * every alias (nics.rate, one anchor for both) still sets them all.
 */
Test(topology, set_through_an_alias)
{
	struct topo_override sw = { "switches.link.bandwidth", "5 GB/s" };
	struct topo_override gpus = { "gpus.link.bandwidth", "7 GB/s" };
	struct topo_override rate = { "nics.rate", "40 Gbit/s" };
	struct topology t;
	struct diag d = { "" };

	cr_assert_eq(topology_load_with(ALIASED, &sw, 1, &t, &d), 0, "%s", d.msg);
	cr_assert_eq(t.switches[0].uplink.bw_up, 5e9);
	for (unsigned i = 0; i < 2; i++) {
		cr_assert_eq(t.gpus[i].link.bw_up, 100e9, "gpu%u's link changed with the switch's", i);
		cr_assert_eq(t.nics[i].dev.link.bw_down, 100e9, "nic%u's link changed with the switch's", i);
	}
	cr_assert_eq(topology_load_with(ALIASED, &gpus, 1, &t, &d), 0, "%s", d.msg);
	cr_assert_eq(t.gpus[0].link.bw_up, 7e9);
	cr_assert_eq(t.gpus[1].link.bw_down, 7e9);
	cr_assert_eq(t.switches[0].uplink.bw_up, 100e9);
	cr_assert_eq(t.nics[1].dev.link.bw_up, 100e9);
	cr_assert_eq(topology_load_with(ALIASED, &rate, 1, &t, &d), 0, "%s", d.msg);
	cr_assert_eq(t.nics[0].line_rate, 5e9);
	cr_assert_eq(t.nics[1].line_rate, 5e9);
}

/* tests/data/@name with --set nics.rate refused, the message holding
 * @gist: the override's walk through aliased lists stops at a bound. */
static void rate_set_refused(const char *name, const char *gist)
{
	char path[256];
	struct topo_override rate = { "nics.rate", "1 Gbit/s" };
	struct topology t;
	struct diag d = { "" };

	snprintf(path, sizeof(path), "%s/tests/data/%s", GDRLAB_SOURCE_DIR, name);
	cr_assert_eq(topology_load_with(path, &rate, 1, &t, &d), -EINVAL);
	cr_assert(strstr(d.msg, gist), "%s", d.msg);
}

/* A walk through lists of aliased lists stops at its bound, an error,
 * rather than copying 9^9 entries. */
Test(topology, set_alias_bomb, .timeout = 20)
{
	rate_set_refused("alias-bomb.yaml",
			 "nics.rate: 'nics.rate' goes through more than 1048576 values");
}

/* A list aliased inside itself: the walk stops at 16 lists deep and says
 * so, where it overflowed the stack (fuzz_topology). */
Test(topology, set_alias_loop, .timeout = 20)
{
	rate_set_refused("alias-loop.yaml",
			 "nics.rate: 'nics.rate' goes through lists nested more than 16 deep");
}

/*
 * Where the value cannot go on an entry that leaves the key out (gen on
 * sw1's link, given as a bandwidth), the load fails naming the --set and
 * the entry's line, rather than setting sw0's alone; a value an added key
 * refuses names the --set; a key no entry gives is still the path's error.
 */
Test(topology, some_entries_refusals)
{
	struct topo_override gen = { "switches.link.gen", "5" };
	struct topo_override bad = { "nics.efficiency", "2" };
	struct topo_override typo = { "gpus.gdrr", "false" };
	struct topology t;
	struct diag d = { "" };

	cr_assert_eq(topology_load_with(SOME_ENTRIES, &gen, 1, &t, &d), -EINVAL);
	cr_assert_str_eq(d.msg, "switches.link.gen=5, set on " SOME_ENTRIES ":12:38: width: "
			 "missing required key (a link with gen needs width)");
	cr_assert_eq(topology_load_with(SOME_ENTRIES, &bad, 1, &t, &d), -EINVAL);
	cr_assert_str_eq(d.msg, "nics.efficiency=2, set on " SOME_ENTRIES ": efficiency: "
			 "must be in (0, 1] or (0%, 100%]");
	cr_assert_eq(topology_load_with(SOME_ENTRIES, &typo, 1, &t, &d), -EINVAL);
	cr_assert_str_eq(d.msg, SOME_ENTRIES ": gpus.gdrr: the topology has no 'gpus.gdrr' to set");
}

/*
 * Load tests/data/bad-topology/@name.yaml and check the message: it starts
 * with "path:line:col: key: " and contains @gist. The struct must come back
 * all zero.
 */
static void check_bad(const char *name, unsigned line, unsigned col,
		      const char *key, const char *gist)
{
	static const struct topology zero;
	char path[512], prefix[600];
	struct topology t;
	struct diag d = { "" };

	snprintf(path, sizeof(path), BAD_DIR "%s.yaml", name);
	snprintf(prefix, sizeof(prefix), "%s:%u:%u: %s: ", path, line, col,
		 key);
	memset(&t, 0xa5, sizeof(t));
	cr_assert_eq(topology_load(path, &t, &d), -EINVAL, "%s loaded", name);
	cr_assert_eq(strncmp(d.msg, prefix, strlen(prefix)), 0,
		     "%s: got \"%s\", want prefix \"%s\"", name, d.msg, prefix);
	cr_assert(strstr(d.msg + strlen(prefix), gist),
		  "%s: \"%s\" does not say \"%s\"", name, d.msg, gist);
	cr_assert(!strchr(d.msg, '\n'), "%s: message spans lines", name);
	cr_assert_eq(memcmp(&t, &zero, sizeof(t)), 0,
		     "%s: topology not zeroed", name);
}

Test(bad_topology, wrong_unit)
{
	check_bad("wrong-unit", 3, 37, "memory_bandwidth",
		  "expected a bandwidth like '24 GB/s' or '200 Gbit/s', got '24 GHz'");
}

Test(bad_topology, missing_unit)
{
	check_bad("missing-unit", 11, 54, "copy_bandwidth",
		  "expected a bandwidth like '24 GB/s' or '200 Gbit/s', got '20'");
}

Test(bad_topology, negative_bandwidth)
{
	check_bad("negative-bandwidth", 11, 54, "copy_bandwidth",
		  "must be greater than zero, got '-20 GB/s'");
}

Test(bad_topology, zero_bandwidth)
{
	check_bad("zero-bandwidth", 9, 84, "rate",
		  "must be greater than zero, got '0 Gbit/s'");
}

Test(bad_topology, zero_latency)
{
	check_bad("zero-latency", 7, 68, "latency",
		  "must be greater than zero, got '0 us'");
}

Test(bad_topology, unknown_switch)
{
	check_bad("unknown-switch", 7, 27, "parent",
		  "unknown socket or switch 'sw9'");
}

/* A GPU with no parent: the missing key is reported at its mapping. */
Test(bad_topology, no_parent)
{
	check_bad("no-parent", 7, 5, "parent", "missing required key");
}

Test(bad_topology, unknown_key)
{
	check_bad("unknown-key", 7, 19, "wieght", "unknown key");
}

Test(bad_topology, duplicate_key)
{
	check_bad("duplicate-key", 10, 35, "switch_latency", "duplicate key");
}

Test(bad_topology, duplicate_name)
{
	check_bad("duplicate-name", 8, 13, "name",
		  "duplicate name 'gpu0' (first on line 7)");
}

Test(bad_topology, switch_cycle)
{
	check_bad("switch-cycle", 5, 26, "parent",
		  "switch cycle: sw0 -> sw1 -> sw0");
}

/* libyaml's own problem text and position, plus where the context began. */
Test(bad_topology, syntax_error)
{
	check_bad("syntax-error", 4, 9, "syntax error",
		  "did not find expected ',' or '}' (while parsing a flow mapping on line 3)");
}

/* A second document after "---" was never read: its NIC rate, and any
 * syntax error in it, went unseen while the first loaded. */
Test(bad_topology, two_documents)
{
	check_bad("two-documents", 12, 1, "syntax error",
		  "a second YAML document: the file must hold one");
}

/* hops: 0 cables two nodes back to back: a third has no switch to meet
 * the others in, and ran as if it had (a 4-node ring, no switch ports
 * in a plan's cost); two are fine, and so is 1 hop for any number. */
Test(bad_topology, back_to_back_three)
{
	check_bad("back-to-back-three", 11, 41, "hops",
		  "0 is two nodes cabled back to back, with no switch: 3 nodes need one");
}

Test(topology, back_to_back_fits_two)
{
	struct topology t = { 0 };
	char why[160] = "";

	t.fabric.hops = 0;
	cr_assert(topology_fabric_fits(&t, 1, why, sizeof(why)));
	cr_assert(topology_fabric_fits(&t, 2, why, sizeof(why)));
	cr_assert(!topology_fabric_fits(&t, 3, why, sizeof(why)));
	cr_assert_str_eq(why, "0 is two nodes cabled back to back, with no switch: 3 nodes need "
			 "one (hops: 1 or more)");
	t.fabric.hops = 1;
	cr_assert(topology_fabric_fits(&t, 65536, why, sizeof(why)));
}

Test(bad_topology, not_a_mapping)
{
	check_bad("not-a-mapping", 1, 1, "topology",
		  "expected a mapping, got a list");
}

Test(bad_topology, empty_file)
{
	check_bad("empty", 1, 1, "topology", "empty file");
}

Test(bad_topology, bad_width)
{
	check_bad("bad-width", 7, 55, "width",
		  "must be 1, 2, 4, 8, 16 or 32, got '3'");
}

Test(bad_topology, bad_gen)
{
	check_bad("bad-gen", 5, 45, "gen", "must be between 1 and 6, got '7'");
}

/* The top-level mapping starts at 1:1; the missing key is staging. */
Test(bad_topology, missing_key)
{
	check_bad("missing-key", 1, 1, "staging", "missing required key");
}

Test(bad_topology, missing_inter_socket)
{
	check_bad("missing-inter-socket", 1, 1, "inter_socket",
		  "missing required key (needed with 2 sockets)");
}

Test(bad_topology, number_expected)
{
	check_bad("number-expected", 11, 35, "buffers",
		  "expected a whole number, got 'four'");
}

Test(bad_topology, list_expected)
{
	check_bad("list-expected", 6, 7, "gpus", "expected a list, got 'gpu0'");
}

Test(bad_topology, link_conflict)
{
	check_bad("link-conflict", 7, 59, "bandwidth",
		  "cannot be combined with gen and width");
}

Test(bad_topology, name_too_long)
{
	check_bad("name-too-long", 7, 13, "name",
		  "name too long (at most 31 characters)");
}

Test(bad_topology, too_many_sockets)
{
	check_bad("too-many-sockets", 11, 5, "sockets",
		  "too many entries (at most 8)");
}

Test(bad_topology, oversubscription_below_one)
{
	check_bad("oversubscription-below-one", 10, 53, "oversubscription",
		  "must be at least 1, got '0.5'");
}

Test(bad_topology, nvlink_needs_bandwidth)
{
	check_bad("nvlink-needs-bandwidth", 10, 13, "bandwidth",
		  "missing required key (NVLink needs bandwidth, or links and link_bandwidth)");
}

Test(bad_topology, bad_fraction)
{
	check_bad("bad-fraction", 9, 108, "efficiency",
		  "must be in (0, 1] or (0%, 100%], got '1.2'");
}

Test(bad_topology, gpu_p2p_wrong_unit)
{
	check_bad("gpu-p2p-wrong-unit", 7, 88, "p2p_read",
		  "expected a bandwidth like '24 GB/s' or '200 Gbit/s', got '12 GHz'");
}

Test(bad_topology, gpu_p2p_zero)
{
	check_bad("gpu-p2p-zero", 7, 108, "p2p_write",
		  "must be greater than zero, got '0 GB/s'");
}

/* The caps are the GPU's, on its memory: a NIC has none to give. */
Test(bad_topology, nic_p2p_read)
{
	check_bad("nic-p2p-read", 9, 111, "p2p_read", "unknown key");
}

/* What CUDA refuses a GPU is a bool, and a GPU's alone. */
Test(bad_topology, gdr_is_a_bool)
{
	check_bad("gdr-not-bool", 7, 83, "gdr", "expected 'false' or 'true', got 'no'");
}

Test(bad_topology, nic_peer_access)
{
	check_bad("nic-peer-access", 9, 111, "peer_access", "unknown key");
}

/* Nine switches deep: the deepest (sw8, line 13) is one too many. */
Test(bad_topology, switch_too_deep)
{
	check_bad("switch-too-deep", 13, 26, "parent",
		  "switches nested 9 deep (at most 8)");
}

Test(bad_topology, unreadable_file)
{
	struct topology t;
	struct diag d = { "" };

	cr_assert_eq(topology_load(BAD_DIR "no-such-file.yaml", &t, &d),
		     -ENOENT);
	cr_assert_str_eq(d.msg, BAD_DIR
			 "no-such-file.yaml: cannot read: No such file or directory");
}

/* Inputs that only a buffer can hold: NUL bytes, bad UTF-8, no input. */
Test(bad_topology, buffer_edge_cases)
{
	static const char bad_utf8[] = "name: x\nsockets: \xff\n";
	char nul_in_value[sizeof(minimal) + 16];
	struct topology t;
	struct diag d = { "" };

	/* minimal, with its name holding an escaped NUL. */
	snprintf(nul_in_value, sizeof(nul_in_value), "name: \"a\\0b\"\n%s",
		 strchr(minimal, '\n') + 1);
	cr_assert_eq(topology_load_buffer(nul_in_value, strlen(nul_in_value),
					  "b", &t, &d),
		     -EINVAL);
	cr_assert_str_eq(d.msg, "b:1:7: name: contains a NUL character");
	cr_assert_eq(topology_load_buffer(bad_utf8, sizeof(bad_utf8) - 1, "b",
					  &t, &d),
		     -EINVAL);
	cr_assert_eq(strncmp(d.msg, "b:2:10: syntax error: ", 22), 0, "%s",
		     d.msg);
	cr_assert_eq(topology_load_buffer(NULL, 0, "b", &t, &d), -EINVAL);
	cr_assert_str_eq(d.msg,
			 "b:1:1: topology: empty file, expected a mapping with name, sockets, gpus, nics, fabric and staging");
	/* A NULL diag is allowed: the caller only wants the verdict. */
	cr_assert_eq(topology_load_buffer("[", 1, "b", &t, NULL), -EINVAL);
	/* Only @len bytes are read: the valid prefix of a longer string. */
	cr_assert_eq(topology_load_buffer(minimal, strlen(minimal) - 20, "b",
					  &t, &d),
		     -EINVAL);
}

/* The schema of issue 9: NVLink given per link, NVSwitch and NVLS, C2C,
 * in-network reduction, copy engines, GPU generation. */
Test(bad_topology, nvlink_links_need_link_bandwidth)
{
	check_bad("nvlink-links-need-bandwidth", 10, 13, "link_bandwidth",
		  "missing required key (links needs it)");
}

Test(bad_topology, nvls_needs_nvswitch)
{
	check_bad("nvls-without-nvswitch", 10, 67, "nvls",
		  "only allowed with kind: nvswitch");
}

Test(bad_topology, nvls_is_a_bool)
{
	check_bad("nvls-not-bool", 10, 75, "nvls",
		  "expected 'false' or 'true', got 'yes'");
}

Test(bad_topology, gpu_fabric_kind)
{
	check_bad("gpu-fabric-kind", 10, 21, "kind",
		  "expected 'pcie', 'nvlink' or 'nvswitch', got 'nvsw'");
}

Test(bad_topology, c2c_gpu_under_a_switch)
{
	check_bad("c2c-under-switch", 7, 27, "parent",
		  "a GPU with a c2c link hangs under its socket, not under switch 'sw0'");
}

Test(bad_topology, c2c_only_for_gpus)
{
	check_bad("c2c-nic", 9, 38, "kind", "only a GPU's link can be c2c");
}

/* nor the link between the sockets (it was taken, as any kind) */
Test(bad_topology, c2c_not_between_sockets)
{
	check_bad("c2c-inter-socket", 5, 15, "kind", "only a GPU's link can be c2c");
}

Test(bad_topology, c2c_is_no_pcie_link)
{
	check_bad("c2c-with-gen", 7, 77, "kind",
		  "a c2c link takes bandwidth, not gen and width");
}

Test(bad_topology, gpu_arch_by_name)
{
	check_bad("gpu-arch", 12, 11, "gpu_arch",
		  "expected 'volta', 'ampere', 'ada', 'hopper' or 'blackwell', got 'sm90'");
}

Test(bad_topology, in_network_reduction_is_a_bool)
{
	check_bad("inr-not-bool", 10, 57, "in_network_reduction",
		  "expected 'false' or 'true', got '1'");
}

Test(bad_topology, copy_engines_at_least_one)
{
	check_bad("copy-engines-zero", 11, 99, "copy_engines",
		  "must be between 1 and 64, got '0'");
}

/* The switches (fabric.h), each problem at the key it is about. */
Test(bad_topology, fabric_nic_on_a_full_leaf)
{
	/* 5 nodes of one NIC on a leaf of 8 ports, 4 of them uplinks. */
	check_bad("fabric-leaf-full", 13, 81, "nodes",
		  "5 nodes x 1 NIC need 5 ports of one leaf, which has 4 free");
}

Test(bad_topology, fabric_spine_short_of_ports)
{
	/* 40 nodes, 4 a leaf: 10 leaves, each with one uplink to each of
	 * the 4 spines; a spine has 8 ports. */
	check_bad("fabric-spine-short", 15, 19, "ports",
		  "10 leaves of 40 nodes need 10 ports on each spine");
}

Test(bad_topology, fabric_core_short_of_ports)
{
	/* 600 nodes, 4 a leaf: 150 leaves; 8 spine ports down a pod, one
	 * link a leaf to each spine: 8 leaves a pod, 19 pods; a core has 16. */
	check_bad("fabric-core-short", 16, 18, "ports",
		  "19 pods of 8 leaves need 19 ports on each core, which has 16");
}

Test(bad_topology, fabric_unknown_attach)
{
	check_bad("fabric-attach", 12, 11, "attach", "expected 'rail' or 'node', got 'rack'");
}

Test(bad_topology, fabric_hops_with_leaf)
{
	check_bad("fabric-hops-with-leaf", 13, 3, "hops", "cannot be combined with leaf");
}

Test(bad_topology, fabric_leaf_without_downlinks)
{
	check_bad("fabric-no-downlinks", 13, 30, "uplinks",
		  "must be fewer than the 8 ports, to leave some down, got '8'");
}

Test(bad_topology, fabric_spine_under_a_core_needs_uplinks)
{
	/* a missing key points at the mapping that should hold it */
	check_bad("fabric-spine-needs-uplinks", 14, 10, "uplinks",
		  "missing required key (spine has a tier above it)");
}

/* gpu_fabric.pairs: a mesh as wired (a GPU list defined above the
 * gpu_fabric of each file, which comes last). */
Test(bad_topology, pairs_only_for_a_mesh)
{
	check_bad("pairs-with-pcie", 15, 3, "pairs", "only allowed with kind: nvlink");
	check_bad("pairs-with-nvswitch", 17, 3, "pairs", "only allowed with kind: nvlink");
}

Test(bad_topology, pairs_need_link_bandwidth)
{
	check_bad("pairs-with-bandwidth", 15, 3, "bandwidth",
		  "pairs need link_bandwidth: NVLinks are counted per pair");
	/* the missing key is reported at the gpu_fabric mapping */
	check_bad("pairs-need-link-bandwidth", 14, 3, "link_bandwidth",
		  "missing required key (pairs need it)");
}

Test(bad_topology, pairs_name_two_distinct_gpus)
{
	check_bad("pairs-unknown-gpu", 18, 22, "gpus", "unknown GPU 'gpu9'");
	check_bad("pairs-self", 19, 22, "gpus", "gpu2 paired with itself");
	check_bad("pairs-three-gpus", 18, 28, "gpus", "too many entries (at most 2)");
}

/* gpu1, gpu0 on line 20 is gpu0, gpu1 of line 18 again. */
Test(bad_topology, pairs_listed_twice)
{
	check_bad("pairs-twice", 20, 15, "gpus",
		  "pair gpu1, gpu0 listed twice (first on line 18)");
}

/* gpu3: 2 + 2 + 3 = 7 links; gpu0 and gpu1, at exactly 6, pass. */
Test(bad_topology, pairs_over_links)
{
	check_bad("pairs-over-links", 15, 10, "links",
		  "gpu3 has 7 NVLinks in pairs, more than links (6)");
}

Test(bad_topology, pair_keys)
{
	check_bad("pairs-missing-links", 18, 7, "links", "missing required key");
	check_bad("pairs-unknown-key", 18, 29, "link", "unknown key");
	check_bad("pairs-links-range", 18, 36, "links", "must be between 1 and 18, got '19'");
}

/* An Intel CPU's class: one of NCCL's four names; and none for another
 * vendor, whose CPUs NCCL does not tell apart (topo.cc ncclTopoAddCpu). */
Test(bad_topology, cpu_model_by_name)
{
	check_bad("cpu-model", 12, 12, "cpu_model",
		  "expected 'broadwell', 'skylake', 'sapphire_rapids' or 'emerald_rapids', "
		  "got 'haswell'");
}

Test(bad_topology, cpu_model_on_intel_alone)
{
	check_bad("cpu-model-not-intel", 13, 12, "cpu_model",
		  "only with cpu_vendor: intel (NCCL tells Intel's CPU models apart alone), "
		  "where cpu_vendor is amd");
}

/* The presets that name their CPU say its class; the others, and an
 * Intel CPU left unnamed, have none (Skylake's figures: nccl_tuning.h). */
Test(topology, cpu_model_of_the_presets)
{
	static const struct {
		const char *path;
		enum topo_cpu_model model;
	} rows[] = {
		{ CONFIG("validation/dgx1-v100-4xedr"), TOPO_CPU_MODEL_BROADWELL },
		{ CONFIG("validation/abci-v100-2xedr"), TOPO_CPU_MODEL_SKYLAKE },
		{ CONFIG("two-socket-commodity"), TOPO_CPU_MODEL_SKYLAKE },
		{ CONFIG("h100-pcie5-400g"), TOPO_CPU_MODEL_SAPPHIRE_RAPIDS },
		{ CONFIG("validation/h100-4x400g-roce"), TOPO_CPU_MODEL_SAPPHIRE_RAPIDS },
		{ CONFIG("a100-pcie4-200g"), TOPO_CPU_MODEL_UNSET },
		{ GDRLAB_SOURCE_DIR "/tests/data/round-numbers.yaml", TOPO_CPU_MODEL_UNSET },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct topology t;
		struct diag d = { "" };

		cr_assert_eq(topology_load(rows[i].path, &t, &d), 0, "%s", d.msg);
		cr_expect_eq(t.cpu_model, rows[i].model, "%s: %s", rows[i].path,
			     topo_cpu_model_name(t.cpu_model));
	}
}

/*
 * NCCL's classes of CPUID family 6 models (v2.30.7-1 topo.cc:748-751:
 * ERP from 0xCF, SRP from 0x8F, SKL from 0x55, else BDW; the family
 * must be 6), on the models of Linux's intel-family.h: Broadwell-X 0x4F,
 * Skylake-X 0x55, Ice Lake-X 0x6A, Sapphire Rapids-X 0x8F, Granite
 * Rapids-X 0xAD (SRP's class: NCCL has none of its own), Emerald
 * Rapids-X 0xCF; and a family-15 Pentium 4.
 */
Test(topology, cpu_model_of_cpuid_as_nccl)
{
	static const struct {
		unsigned family, model;
		enum topo_cpu_model m;
	} rows[] = {
		{ 6, 0x4F, TOPO_CPU_MODEL_BROADWELL },
		{ 6, 0x54, TOPO_CPU_MODEL_BROADWELL },
		{ 6, 0x55, TOPO_CPU_MODEL_SKYLAKE },
		{ 6, 0x6A, TOPO_CPU_MODEL_SKYLAKE },
		{ 6, 0x8E, TOPO_CPU_MODEL_SKYLAKE },
		{ 6, 0x8F, TOPO_CPU_MODEL_SAPPHIRE_RAPIDS },
		{ 6, 0xAD, TOPO_CPU_MODEL_SAPPHIRE_RAPIDS },
		{ 6, 0xCE, TOPO_CPU_MODEL_SAPPHIRE_RAPIDS },
		{ 6, 0xCF, TOPO_CPU_MODEL_EMERALD_RAPIDS },
		{ 15, 0x8F, TOPO_CPU_MODEL_BROADWELL },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		cr_expect_eq(topo_cpu_model_of_cpuid(rows[i].family, rows[i].model), rows[i].m,
			     "family %u model 0x%x", rows[i].family, rows[i].model);
}
