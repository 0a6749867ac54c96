/* SPDX-License-Identifier: MIT */
/*
 * topology_write (engine/topology_write.c): every shipped topology, read,
 * written and read again, gives back the same values, and a changed value
 * survives the trip.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "topology_write.h"

static void same(double a, double b, const char *what, unsigned i)
{
	bool ok = (isinf(a) && isinf(b)) || fabs(a - b) <= 1e-9 * fabs(b);

	cr_assert(ok, "%s[%u]: %.17g after the trip, %.17g before", what, i, a, b);
}

static void same_link(const struct topo_link *a, const struct topo_link *b,
		      const char *what, unsigned i)
{
	same(a->bw_up, b->bw_up, what, i);
	same(a->bw_down, b->bw_down, what, i);
	same(a->latency, b->latency, what, i);
	cr_assert_eq(a->kind, b->kind, "%s[%u] link kind", what, i);
}

static void same_device(const struct topo_device *a, const struct topo_device *b,
			const char *what, unsigned i)
{
	cr_assert_str_eq(a->name, b->name);
	cr_assert_eq(a->socket, b->socket, "%s[%u] socket", what, i);
	cr_assert_eq(a->parent_switch, b->parent_switch, "%s[%u] parent", what, i);
	same_link(&a->link, &b->link, what, i);
	same(a->p2p_read_bw, b->p2p_read_bw, what, i);
	same(a->p2p_write_bw, b->p2p_write_bw, what, i);
	cr_assert_eq(a->no_gdr, b->no_gdr, "%s[%u] gdr", what, i);
	cr_assert_eq(a->no_peer_access, b->no_peer_access, "%s[%u] peer_access", what, i);
}

/* Every field of the struct (file aside: it names where it was read). */
static void assert_same(const struct topology *a, const struct topology *b)
{
	cr_assert_str_eq(a->name, b->name);
	cr_assert_eq(a->nodes, b->nodes);
	cr_assert_eq(a->nsockets, b->nsockets);
	cr_assert_eq(a->nswitches, b->nswitches);
	cr_assert_eq(a->ngpus, b->ngpus);
	cr_assert_eq(a->nnics, b->nnics);
	for (unsigned i = 0; i < a->nsockets; i++) {
		cr_assert_str_eq(a->sockets[i].name, b->sockets[i].name);
		same(a->sockets[i].mem_bw, b->sockets[i].mem_bw, "socket", i);
		same(a->sockets[i].p2p_read_bw, b->sockets[i].p2p_read_bw, "socket", i);
		same(a->sockets[i].p2p_write_bw, b->sockets[i].p2p_write_bw, "socket", i);
	}
	for (unsigned i = 0; i < a->nswitches; i++) {
		cr_assert_str_eq(a->switches[i].name, b->switches[i].name);
		cr_assert_eq(a->switches[i].socket, b->switches[i].socket);
		cr_assert_eq(a->switches[i].parent_switch, b->switches[i].parent_switch);
		same_link(&a->switches[i].uplink, &b->switches[i].uplink, "switch", i);
	}
	for (unsigned i = 0; i < a->ngpus; i++)
		same_device(&a->gpus[i], &b->gpus[i], "gpu", i);
	for (unsigned i = 0; i < a->nnics; i++) {
		same_device(&a->nics[i].dev, &b->nics[i].dev, "nic", i);
		same(a->nics[i].line_rate, b->nics[i].line_rate, "nic rate", i);
		same(a->nics[i].efficiency, b->nics[i].efficiency, "nic efficiency", i);
		same(a->nics[i].latency, b->nics[i].latency, "nic latency", i);
	}
	if (a->nsockets > 1)
		same_link(&a->inter_socket, &b->inter_socket, "inter_socket", 0);
	cr_assert_eq(a->gpu_fabric.kind, b->gpu_fabric.kind);
	if (topo_has_nvlink(a)) {
		same(a->gpu_fabric.bw, b->gpu_fabric.bw, "nvlink", 0);
		same(a->gpu_fabric.latency, b->gpu_fabric.latency, "nvlink", 0);
		cr_assert_eq(a->gpu_fabric.links, b->gpu_fabric.links);
		cr_assert_eq(a->gpu_fabric.nvls, b->gpu_fabric.nvls);
		same(a->gpu_fabric.link_bw, b->gpu_fabric.link_bw, "nvlink link", 0);
		cr_assert_eq(a->gpu_fabric.wired, b->gpu_fabric.wired);
	}
	/* all of it, not only the GPUs': what is unwired must stay 0 */
	cr_assert_eq(memcmp(a->gpu_fabric.pair_links, b->gpu_fabric.pair_links,
			    sizeof(a->gpu_fabric.pair_links)), 0, "pair_links differ");
	cr_assert_eq(a->gpu_arch, b->gpu_arch);
	cr_assert_eq(a->cpu_vendor, b->cpu_vendor);
	cr_assert_eq(a->cpu_model, b->cpu_model);
	cr_assert_eq(a->fabric.in_network_reduction, b->fabric.in_network_reduction);
	cr_assert_eq(a->staging.copy_engines, b->staging.copy_engines);
	same(a->fabric.switch_latency, b->fabric.switch_latency, "fabric", 0);
	cr_assert_eq(a->fabric.hops, b->fabric.hops);
	same(a->fabric.oversubscription, b->fabric.oversubscription, "fabric", 0);
	cr_assert_eq(a->staging.chunk_bytes, b->staging.chunk_bytes);
	cr_assert_eq(a->staging.buffers, b->staging.buffers);
	same(a->staging.copy_bw, b->staging.copy_bw, "staging", 0);
	same(a->staging.chunk_overhead, b->staging.chunk_overhead, "staging", 0);
}

static void round_trip(const struct topology *in, struct topology *out)
{
	struct diag d = { "" };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	cr_assert_eq(topology_write(f, in), 0);
	cr_assert_eq(fclose(f), 0);
	cr_assert_eq(topology_load_buffer(buf, len, "written.yaml", out, &d), 0,
		     "%s\n%s", d.msg, buf);
	free(buf);
}

static const char *const files[] = {
	CONFIG("a100-pcie4-200g.yaml"), CONFIG("h100-pcie5-400g.yaml"),
	CONFIG("two-socket-commodity.yaml"), CONFIG("emu-vm.yaml"),
	CONFIG("gh200-grace-hopper.yaml"), CONFIG("validation/dgx1-v100-4xedr.yaml"),
	CONFIG("validation/abci-v100-2xedr.yaml"), CONFIG("validation/h100-4x400g-roce.yaml"),
	DATA("round-numbers.yaml"),
	DATA("two-gpus-one-nic.yaml"), DATA("gpu-p2p.yaml"),
	DATA("mixed-gdr.yaml"), DATA("ring-400g.yaml"),
	DATA("one-gpu-four-nics.yaml"), DATA("one-gpu-two-nics.yaml"),
	DATA("pxn-two-gpus.yaml"), DATA("eight-gpus-one-socket.yaml"),
	DATA("dgx1-wired-mesh.yaml"),
	CONFIG("h100-superpod-ib.yaml"), CONFIG("h100-roce-clos.yaml"),
	CONFIG("h100-nvl-pcie-pairs.yaml"),
	DATA("fabric/leaf-2to1.yaml"), DATA("fabric/rail.yaml"), DATA("fabric/node.yaml"),
};

Test(topology_write, every_shipped_topology_round_trips)
{
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct topology a, b;
		struct diag d = { "" };

		cr_assert_eq(topology_load(files[i], &a, &d), 0, "%s", d.msg);
		round_trip(&a, &b);
		assert_same(&b, &a);
	}
}

/* What calibrate does: change values, write, read: the new values, and a
 * name that needs quoting. */
Test(topology_write, changed_values_survive)
{
	struct topology a, b;
	struct diag d = { "" };

	cr_assert_eq(topology_load(CONFIG("a100-pcie4-200g.yaml"), &a, &d), 0, "%s", d.msg);
	snprintf(a.name, sizeof(a.name), "calibrated: \"a100\" \\ host");
	a.gpus[3].p2p_read_bw = 11.5e9;
	a.nics[1].line_rate = 23.25e9;
	a.staging.copy_bw = 19.75e9;
	a.gpus[5].no_gdr = true;
	a.gpus[6].no_peer_access = true;
	round_trip(&a, &b);
	assert_same(&b, &a);
	cr_assert(isinf(b.gpus[2].p2p_read_bw));
	cr_assert(b.gpus[5].no_gdr && !b.gpus[5].no_peer_access);
	cr_assert(b.gpus[6].no_peer_access && !b.gpus[6].no_gdr);
}

/* A wired mesh changed: two more links a GPU and a pair added (gpu0 and
 * gpu5 had none), so that links is above what the file's pairs gave. */
Test(topology_write, changed_mesh_survives)
{
	struct topology a, b;
	struct diag d = { "" };

	cr_assert_eq(topology_load(DATA("dgx1-wired-mesh.yaml"), &a, &d), 0, "%s", d.msg);
	a.gpu_fabric.links = 8;
	a.gpu_fabric.bw = 8 * a.gpu_fabric.link_bw;
	a.gpu_fabric.pair_links[0][5] = 2;
	a.gpu_fabric.pair_links[5][0] = 2;
	round_trip(&a, &b);
	assert_same(&b, &a);
	cr_assert_eq(b.gpu_fabric.pair_links[5][0], 2);
	cr_assert_eq(b.gpu_fabric.bw, 160e9);
}
