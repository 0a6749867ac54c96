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
#include "nccl_tuning.h"
#include "p2p_policy.h"
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
		cr_expect_eq(p2p_allowed(nccl_release_find(rows[i].release), t, rows[i].a,
					 rows[i].b, rows[i].node_gpus),
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
	cr_expect(p2p_allowed(nccl_release_find("2.30.7"), t, 0, 4, 8), "a pair, across sockets");
	cr_expect(p2p_allowed(nccl_release_find("2.30.7"), t, 0, 5, 8), "through a GPU (NVB)");
	free(t);
}

/* A 1 GiB Ring/Simple all-reduce of gpu0 and gpu1 under @release. */
static double ring_time(const char *backend, const char *release, enum topo_cpu_vendor vendor)
{
	static const char trace[] = "{\"iteration\":0,\"op\":\"allreduce\",\"bytes\":1073741824,"
				    "\"dtype\":\"fp32\",\"group\":[0,1]}\n";
	const struct backend_ops *b = backend_find(backend);
	struct diag d = { "" };
	struct plan_options o;
	struct run *r = calloc(1, sizeof(*r));
	double us;

	cr_assert_not_null(r);
	cr_assert_not_null(b);
	load(&r->topo, vendor);
	plan_options_default(&o);
	plan_options_set_nccl(&o, nccl_release_find(release));
	o.algo = "ring";
	o.proto = "simple";
	cr_assert_eq(trace_load_buffer(trace, strlen(trace), "inline.jsonl", &r->trace, &d), 0,
		     "%s", d.msg);
	cr_assert_eq(backend_execute(b, &r->topo, &r->trace, &o, NULL, &r->plan, &r->rec, &d), 0,
		     "%s", d.msg);
	us = r->rec.coll[0].time_us;
	run_destroy(r);
	free(r);
	return us / 1e6;
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
