/* SPDX-License-Identifier: MIT */
/*
 * NCCL's P2P level (paths.cc ncclTopoCheckP2p, engine/p2p_policy.c) and
 * its SHM transport beyond it (engine/route.c), on
 * tests/data/pcie-gpus-shm.yaml: PCIe GPUs, cpu0's memory 10 GB/s.
 *
 * By hand, a two-rank ring all-reduce of S = 1 GiB on gpu0 and gpu1 (PHB)
 * sends S each way. Peer to peer the bytes cross the GPUs' links only,
 * 25.2 GB/s each way: S / 25.2 GB/s = 42.6 ms. Through SHM each byte is
 * written into cpu0's memory and read out of it, both ways at once: four
 * accesses a byte of each way's flow on 10 GB/s, 2.5 GB/s each way:
 * S / 2.5 GB/s = 429.5 ms.
 */
#include <criterion/criterion.h>
#include <math.h>

#include "backend.h"
#include "channels.h"
#include "gdr_policy.h"
#include "nccl_tuning.h"
#include "p2p_policy.h"
#include "search_loads.h"
#include "topology.h"

#include "helpers.h"

#define S 1073741824.0
#define P2P_S (S / 25.2e9)
#define SHM_S (S / 2.5e9)

static void load(struct topology *t, enum topo_cpu_vendor vendor)
{
	struct diag d = { "" };

	cr_assert_eq(topology_load(DATA("pcie-gpus-shm.yaml"), t, &d), 0, "%s", d.msg);
	t->cpu_vendor = vendor;
}

Test(p2p_shm, nccl_p2p_level_by_release_and_vendor)
{
	static const struct {
		const char *release;
		enum topo_cpu_vendor vendor;
		unsigned a, b, node_gpus;
		bool p2p;
	} rows[] = {
		/* 2.23 on: PXB, an AMD pair at any distance */
		{ "2.30.7", TOPO_CPU_INTEL, 0, 1, 2, false },
		{ "2.30.7", TOPO_CPU_INTEL, 2, 3, 5, true },
		{ "2.30.7", TOPO_CPU_AMD, 0, 4, 2, true },
		{ "2.30.7", TOPO_CPU_AMD, 0, 1, 3, false },
		{ "2.30.7", TOPO_CPU_ARM, 0, 1, 2, false },
		/* 2.12 - 2.22: SYS, Intel and Arm PXB */
		{ "2.21.5", TOPO_CPU_INTEL, 0, 1, 2, false },
		{ "2.21.5", TOPO_CPU_INTEL, 2, 3, 2, true },
		{ "2.21.5", TOPO_CPU_AMD, 0, 4, 5, true },
		{ "2.12.12", TOPO_CPU_ARM, 0, 1, 2, false },
		/* 2.8.4: Intel PHB, Arm PXB, else SYS */
		{ "2.8.4", TOPO_CPU_INTEL, 0, 1, 2, true },
		{ "2.8.4", TOPO_CPU_INTEL, 0, 4, 2, false },
		{ "2.8.4", TOPO_CPU_ARM, 0, 1, 2, false },
		{ "2.8.4", TOPO_CPU_AMD, 1, 4, 5, true },
	};
	struct topology *t = malloc(sizeof(*t));

	cr_assert_not_null(t);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		load(t, rows[i].vendor);
		cr_expect_eq(p2p_allowed(nccl_release_find(rows[i].release), P2P_USER_UNSET, t,
					 rows[i].a, rows[i].b, rows[i].node_gpus),
			     rows[i].p2p, "row %zu: %s gpu%u-gpu%u", i, rows[i].release,
			     rows[i].a, rows[i].b);
	}
	free(t);
}

/* NVLink always copies peer to peer, however far apart on PCIe. */
Test(p2p_shm, nvlink_always)
{
	struct topology *t = malloc(sizeof(*t));
	struct diag d = { "" };

	cr_assert_not_null(t);
	cr_assert_eq(topology_load(DATA("dgx1-wired-mesh.yaml"), t, &d), 0, "%s", d.msg);
	cr_expect(p2p_allowed(nccl_release_find("2.30.7"), P2P_USER_UNSET, t, 0, 4, 8),
		  "a pair, across sockets");
	cr_expect(p2p_allowed(nccl_release_find("2.30.7"), P2P_USER_UNSET, t, 0, 5, 8),
		  "through a GPU (NVB)");
	free(t);
}

/* A 1 GiB Ring/Simple all-reduce of gpu@a and gpu@a + 1 under @release;
 * @refused: CUDA refuses the second of them peer access. */
static double pair_time(const char *backend, const char *release, enum topo_cpu_vendor vendor,
			unsigned a, bool refused)
{
	struct plan_options o;
	struct run *r = calloc(1, sizeof(*r));
	char trace[160];
	double us;

	cr_assert_not_null(r);
	snprintf(trace, sizeof(trace),
		 "{\"iteration\":0,\"op\":\"allreduce\",\"bytes\":1073741824,"
		 "\"dtype\":\"fp32\",\"group\":[%u,%u]}\n", a, a + 1);
	load(&r->topo, vendor);
	r->topo.gpus[a + 1].no_peer_access = refused;
	plan_options_default(&o);
	plan_options_set_nccl(&o, nccl_release_find(release));
	o.algo = "ring";
	o.proto = "simple";
	run_loaded(r, backend, trace, &o);
	us = r->rec.coll[0].time_us;
	run_destroy(r);
	free(r);
	return us / 1e6;
}

/* gpu0 and gpu1: the P2P level decides */
static double ring_time(const char *backend, const char *release, enum topo_cpu_vendor vendor)
{
	return pair_time(backend, release, vendor, 0, false);
}

Test(p2p_shm, shm_crosses_host_memory_twice)
{
	assert_rel(ring_time("analytic", "2.30.7", TOPO_CPU_INTEL), SHM_S, 0.01);
	assert_rel(ring_time("analytic", "2.21.5", TOPO_CPU_INTEL), SHM_S, 0.01);
}

Test(p2p_shm, p2p_crosses_the_links_only)
{
	/* 2.8.4 lets Intel's PHB pairs copy peer to peer; 2.23 on an AMD pair */
	assert_rel(ring_time("analytic", "2.8.4", TOPO_CPU_INTEL), P2P_S, 0.01);
	assert_rel(ring_time("analytic", "2.30.7", TOPO_CPU_AMD), P2P_S, 0.01);
}

Test(p2p_shm, the_model_backend_agrees)
{
	const struct backend_ops *b = backend_find("model");
	char why[256] = "";

	if (!b || backend_probe(b, why, sizeof(why)))
		cr_skip_test("model backend not testable here: %s", why);
	assert_rel(ring_time("model", "2.30.7", TOPO_CPU_INTEL), SHM_S, 0.01);
	assert_rel(ring_time("model", "2.8.4", TOPO_CPU_INTEL), P2P_S, 0.01);
}

/*
 * CUDA refusing peer access (GeForce cards; topology `peer_access:
 * false`) sends even a pair under one switch through host memory: gpu2
 * and gpu3 (PIX) take SHM's 429.5 ms, where peer to peer they turn at
 * their switch, 42.6 ms.
 */
Test(p2p_shm, refused_peer_access_goes_through_host_memory)
{
	assert_rel(pair_time("analytic", "2.30.7", TOPO_CPU_INTEL, 2, false), P2P_S, 0.01);
	assert_rel(pair_time("analytic", "2.30.7", TOPO_CPU_INTEL, 2, true), SHM_S, 0.01);
}

/*
 * NCCL's search sees the refused pair's way through the CPU (paths.cc
 * addInterStep): two GPUs under one switch, Gen4 (NCCL's 24 GB/s). Peer
 * to peer each hop crosses the two GPUs' links, one speed each; through
 * the CPU both hops cross the switch's uplink each way, and with Intel's
 * overhead on a PHB path (6/5) the uplink carries 2 x 1.2 = 2.4 speeds:
 * at most 10 GB/s in all, where the links alone allow 24.
 */
Test(p2p_shm, the_search_sees_the_way_through_the_cpu)
{
	static const char yaml[] =
		"name: pair\nnodes: 1\ncpu_vendor: intel\n"
		"sockets: [ { name: cpu0, memory_bandwidth: 100 GB/s } ]\n"
		"switches: [ { name: sw0, parent: cpu0, link: { gen: 4, width: 16, latency: 0.1 us } } ]\n"
		"gpus:\n"
		"  - { name: gpu0, parent: sw0, link: { gen: 4, width: 16, latency: 0.1 us } }\n"
		"  - { name: gpu1, parent: sw0, link: { gen: 4, width: 16, latency: 0.1 us } }\n"
		"nics: [ { name: nic0, parent: cpu0, link: { gen: 4, width: 16, latency: 0.1 us },"
		" rate: 200 Gbit/s, latency: 1 us } ]\n"
		"fabric: { switch_latency: 0.2 us }\n"
		"staging: { chunk: 512 KiB, buffers: 8, copy_bandwidth: 20 GB/s, chunk_overhead: 2 us }\n";
	struct topology *t = malloc(sizeof(*t));
	struct search_env env = { true, TOPO_PATH_P2C, P2P_USER_UNSET };
	struct nccl_channels p2p, shm;
	struct diag d = { "" };

	cr_assert_not_null(t);
	cr_assert_eq(topology_load_buffer(yaml, sizeof(yaml) - 1, "pair", t, &d), 0, "%s", d.msg);
	channels_search(nccl_release_newest(), &env, t, 1, 2, &p2p);
	t->gpus[1].no_peer_access = true;
	channels_search(nccl_release_newest(), &env, t, 1, 2, &shm);
	cr_expect_geq(p2p.ring.bw_intra * p2p.ring.nchannels, 24 - 1e-9, "peer to peer: %u x %g GB/s",
		      p2p.ring.nchannels, p2p.ring.bw_intra);
	cr_expect_leq(shm.ring.bw_intra * shm.ring.nchannels, 10 + 1e-9,
		      "through the CPU: %u x %g GB/s", shm.ring.nchannels, shm.ring.bw_intra);
	free(t);
}

/* A GPU without GPUDirect RDMA (topology `gdr: false`) stages, and says
 * why, whatever the distance to its NIC. */
Test(p2p_shm, no_gdr_stages)
{
	struct topology *t = malloc(sizeof(*t));
	struct diag d = { "" };
	char why[200] = "";

	cr_assert_not_null(t);
	cr_assert_eq(topology_load(CONFIG("a100-pcie4-200g.yaml"), t, &d), 0, "%s", d.msg);
	cr_expect(gdr_allowed(t, 0, 0, TOPO_PATH_P2C, why, sizeof(why)));
	t->gpus[0].no_gdr = true;
	cr_expect_not(gdr_allowed(t, 0, 0, TOPO_PATH_SYS, why, sizeof(why)));
	cr_expect_str_eq(why, "gpu0 does not support GPUDirect RDMA (gdr: false)");
	free(t);
}
