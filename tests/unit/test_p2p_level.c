/* SPDX-License-Identifier: MIT */
/*
 * NCCL_P2P_LEVEL and NCCL_P2P_DISABLE (`--p2p-level`, p2p_policy.h): the
 * user's level replaces the release's rule (paths.cc ncclTopoCheckP2p
 * "User override"), NVLink included; a pair beyond it copies through host
 * memory and NCCL's search sees its path through the CPU.
 *
 * Times by hand on tests/data/pcie-gpus-shm.yaml's cpu0 (10 GB/s memory,
 * PCIe links 25.2 GB/s), as in test_p2p_shm.c: a two-rank 1 GiB ring
 * all-reduce takes S / 25.2 GB/s = 42.6 ms peer to peer over PCIe and
 * S / 2.5 GB/s = 429.5 ms through host memory (four accesses a byte each
 * way on 10 GB/s).
 */
#include <criterion/criterion.h>

#include "backend.h"
#include "channels.h"
#include "nccl_tuning.h"
#include "p2p_policy.h"
#include "plan.h"
#include "search_loads.h"
#include "topology.h"

#include "helpers.h"

#define S 1073741824.0
#define P2P_S (S / 25.2e9)
#define SHM_S (S / 2.5e9)

Test(p2p_level, parsed_as_nccl_reads_it)
{
	static const struct {
		const char *s;
		enum p2p_user_level l;
	} ok[] = {
		{ "LOC", P2P_USER_LOC }, { "nvl", P2P_USER_NVL }, { "NvB", P2P_USER_NVB },
		{ "pix", P2P_USER_PIX }, { "PXB", P2P_USER_PXB }, { "phb", P2P_USER_PHB },
		{ "SYS", P2P_USER_SYS },
		/* paths.cc levelsOldToNew, larger numbers the last */
		{ "0", P2P_USER_LOC }, { "1", P2P_USER_PIX }, { "2", P2P_USER_PXB },
		{ "3", P2P_USER_PHB }, { "4", P2P_USER_SYS }, { "5", P2P_USER_SYS },
		{ "17", P2P_USER_SYS },
	};
	static const char *const bad[] = { "", "NET", "PXN2", "-1", "2x", "sys ", "local" };
	enum p2p_user_level l;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		cr_expect_eq(p2p_user_level_parse(ok[i].s, &l), 0, "'%s'", ok[i].s);
		cr_expect_eq(l, ok[i].l, "'%s'", ok[i].s);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_expect_neq(p2p_user_level_parse(bad[i], &l), 0, "'%s'", bad[i]);
	cr_expect_str_eq(p2p_user_level_name(P2P_USER_NVB), "NVB");
	cr_expect_str_eq(p2p_user_level_name(P2P_USER_UNSET), "");
}

static struct topology *load(const char *path, enum topo_cpu_vendor vendor)
{
	struct topology *t = malloc(sizeof(*t));
	struct diag d = { "" };

	cr_assert_not_null(t);
	cr_assert_eq(topology_load(path, t, &d), 0, "%s", d.msg);
	t->cpu_vendor = vendor;
	return t;
}

/* The user's level replaces the release's and the CPU vendor's rule. */
Test(p2p_level, overrides_the_release_rule)
{
	static const struct {
		const char *release;
		enum topo_cpu_vendor vendor;
		enum p2p_user_level user;
		unsigned a, b;
		bool p2p;
	} rows[] = {
		/* gpu0-gpu1 PHB, refused by 2.21's Intel rule, allowed */
		{ "2.21.5", TOPO_CPU_INTEL, P2P_USER_PHB, 0, 1, true },
		{ "2.21.5", TOPO_CPU_INTEL, P2P_USER_SYS, 0, 4, true },
		/* allowed by 2.30.7's AMD pair rule, refused */
		{ "2.30.7", TOPO_CPU_AMD, P2P_USER_PIX, 0, 1, false },
		{ "2.30.7", TOPO_CPU_AMD, P2P_USER_PXB, 0, 4, false },
		/* gpu2-gpu3 PIX */
		{ "2.30.7", TOPO_CPU_INTEL, P2P_USER_PIX, 2, 3, true },
		{ "2.30.7", TOPO_CPU_INTEL, P2P_USER_NVB, 2, 3, false },
		{ "2.30.7", TOPO_CPU_INTEL, P2P_USER_LOC, 2, 3, false },
	};
	struct topology *t = load(DATA("pcie-gpus-shm.yaml"), TOPO_CPU_INTEL);

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		t->cpu_vendor = rows[i].vendor;
		cr_expect_eq(p2p_allowed(nccl_release_find(rows[i].release), rows[i].user, t,
					 rows[i].a, rows[i].b, 2),
			     rows[i].p2p, "row %zu: gpu%u-gpu%u at %s", i, rows[i].a, rows[i].b,
			     p2p_user_level_name(rows[i].user));
	}
	/* CUDA refusing peer access still refuses */
	t->gpus[3].no_peer_access = true;
	cr_expect_not(p2p_allowed(nccl_release_newest(), P2P_USER_SYS, t, 2, 3, 2));
	free(t);
}

/* NVLink too: a pair's own links from NVL, through a GPU between (NVB)
 * from NVB, neither at LOC (NCCL_P2P_DISABLE=1). */
Test(p2p_level, refuses_nvlink_below_its_class)
{
	struct topology *t = load(DATA("dgx1-wired-mesh.yaml"), TOPO_CPU_INTEL);
	const struct nccl_release *r = nccl_release_newest();
	static const unsigned all[] = { 0, 1, 2, 3, 4, 5, 6, 7 }, wired[] = { 0, 4 };

	/* gpu0-gpu4 are wired to each other, gpu0-gpu5 are not */
	cr_expect(p2p_allowed(r, P2P_USER_NVL, t, 0, 4, 8));
	cr_expect_not(p2p_allowed(r, P2P_USER_NVL, t, 0, 5, 8));
	cr_expect(p2p_allowed(r, P2P_USER_NVB, t, 0, 5, 8));
	cr_expect(p2p_allowed(r, P2P_USER_PIX, t, 0, 5, 8));
	cr_expect_not(p2p_allowed(r, P2P_USER_LOC, t, 0, 4, 8));
	cr_expect(p2p_all_nvlink(r, P2P_USER_UNSET, t, all, 8));
	cr_expect(p2p_all_nvlink(r, P2P_USER_NVB, t, all, 8));
	cr_expect_not(p2p_all_nvlink(r, P2P_USER_NVL, t, all, 8), "NVB pairs go through the CPU");
	/* a communicator of gpu0 and gpu4 alone has only their own pair */
	cr_expect(p2p_all_nvlink(r, P2P_USER_NVL, t, wired, 2));
	free(t);
}

/* PXN needs NVLink's peer-to-peer to the relay (paths.cc: PATH_NVL). */
Test(p2p_level, p2p_disable_turns_pxn_off)
{
	struct plan *p = calloc(1, sizeof(*p));

	cr_assert_not_null(p);
	plan_options_default(&p->opts);
	p->nccl = nccl_release_newest();
	cr_expect(plan_uses_pxn(p));
	p->opts.p2p_level = P2P_USER_NVL;
	cr_expect(plan_uses_pxn(p));
	p->opts.p2p_level = P2P_USER_LOC;
	cr_expect_not(plan_uses_pxn(p));
	free(p);
}

/* A 1 GiB Ring/Simple all-reduce of gpu0 and gpu1 of @yaml (a file, or
 * NULL for pcie-gpus-shm.yaml) under @release and the user's @level. */
static double pair_time(const char *backend, const char *yaml, const char *release,
			enum topo_cpu_vendor vendor, enum p2p_user_level level)
{
	static const char trace[] = "{\"iteration\":0,\"op\":\"allreduce\",\"bytes\":1073741824,"
				    "\"dtype\":\"fp32\",\"group\":[0,1]}\n";
	struct diag d = { "" };
	struct plan_options o;
	struct run *r = calloc(1, sizeof(*r));
	double us;

	cr_assert_not_null(r);
	if (yaml)
		cr_assert_eq(topology_load_buffer(yaml, strlen(yaml), "inline", &r->topo, &d), 0,
			     "%s", d.msg);
	else
		cr_assert_eq(topology_load(DATA("pcie-gpus-shm.yaml"), &r->topo, &d), 0, "%s",
			     d.msg);
	r->topo.cpu_vendor = vendor;
	plan_options_default(&o);
	plan_options_set_nccl(&o, nccl_release_find(release));
	o.algo = "ring";
	o.proto = "simple";
	o.p2p_level = level;
	run_loaded(r, backend, trace, &o);
	us = r->rec.coll[0].time_us;
	run_destroy(r);
	free(r);
	return us / 1e6;
}

Test(p2p_level, sys_lets_a_phb_pair_copy_peer_to_peer)
{
	/* 2.21.5 on Intel: PXB, so gpu0-gpu1 (PHB) go through memory */
	assert_rel(pair_time("analytic", NULL, "2.21.5", TOPO_CPU_INTEL, P2P_USER_UNSET), SHM_S,
		   0.01);
	assert_rel(pair_time("analytic", NULL, "2.21.5", TOPO_CPU_INTEL, P2P_USER_SYS), P2P_S,
		   0.01);
	/* 2.30.7's AMD pair copies peer to peer; PIX refuses it */
	assert_rel(pair_time("analytic", NULL, "2.30.7", TOPO_CPU_AMD, P2P_USER_PIX), SHM_S,
		   0.01);
}

/*
 * gpu0 and gpu1 of pcie-gpus-shm.yaml's cpu0 wired by 2 NVLinks of
 * 20 GB/s: S / 40 GB/s = 26.8 ms over NVLink; NCCL_P2P_DISABLE=1 sends
 * the pair through cpu0's memory, 429.5 ms as any refused pair there.
 */
static const char nvlink_pair[] =
	"name: nvlink-pair\nnodes: 1\ngpu_arch: ampere\ncpu_vendor: intel\n"
	"sockets: [ { name: cpu0, memory_bandwidth: 10 GB/s } ]\n"
	"gpus:\n"
	"  - { name: gpu0, parent: cpu0, link: { gen: 4, width: 16, latency: 0.1 us } }\n"
	"  - { name: gpu1, parent: cpu0, link: { gen: 4, width: 16, latency: 0.1 us } }\n"
	"nics: [ { name: nic0, parent: cpu0, link: { gen: 4, width: 16, latency: 0.1 us },"
	" rate: 200 Gbit/s, latency: 1 us } ]\n"
	"gpu_fabric: { kind: nvlink, link_bandwidth: 20 GB/s, latency: 0.6 us,"
	" pairs: [ { gpus: [gpu0, gpu1], links: 2 } ] }\n"
	"fabric: { switch_latency: 0.2 us }\n"
	"staging: { chunk: 512 KiB, buffers: 8, copy_bandwidth: 20 GB/s, chunk_overhead: 2 us }\n";

Test(p2p_level, loc_sends_nvlink_pairs_through_host_memory)
{
	assert_rel(pair_time("analytic", nvlink_pair, "2.30.7", TOPO_CPU_INTEL, P2P_USER_UNSET),
		   S / 40e9, 0.01);
	assert_rel(pair_time("analytic", nvlink_pair, "2.30.7", TOPO_CPU_INTEL, P2P_USER_NVL),
		   S / 40e9, 0.01);
	assert_rel(pair_time("analytic", nvlink_pair, "2.30.7", TOPO_CPU_INTEL, P2P_USER_LOC),
		   SHM_S, 0.01);
}

Test(p2p_level, the_model_backend_agrees)
{
	const struct backend_ops *b = backend_find("model");
	char why[256] = "";

	if (!b || backend_probe(b, why, sizeof(why)))
		cr_skip_test("model backend not testable here: %s", why);
	assert_rel(pair_time("model", NULL, "2.21.5", TOPO_CPU_INTEL, P2P_USER_SYS), P2P_S, 0.01);
	assert_rel(pair_time("model", nvlink_pair, "2.30.7", TOPO_CPU_INTEL, P2P_USER_LOC), SHM_S,
		   0.01);
}

/*
 * NCCL's search with NCCL_P2P_DISABLE=1 on a100-pcie4-200g (two GPUs a
 * PCIe switch, NVSwitch between all eight): every hop of a ring goes up
 * to the receiver's CPU and down, so each switch's uplink carries its two
 * GPUs' sends up and their receives down, 2 speeds each way, on NCCL's
 * 24 GB/s for Gen4 x16: a graph of 12 GB/s in all at most, where NVLink
 * alone allows 12 x 20 = 240. typeIntra is no longer NVLink (LL128 off).
 */
Test(p2p_level, the_search_goes_through_the_cpu)
{
	struct topology *t = load(CONFIG("a100-pcie4-200g.yaml"), TOPO_CPU_AMD);
	struct search_env on = { true, TOPO_PATH_PXB, P2P_USER_UNSET },
			  off = { false, TOPO_PATH_PXB, P2P_USER_LOC };
	struct nccl_channels nvl, loc;

	channels_search(nccl_release_newest(), &on, t, 1, 8, &nvl);
	channels_search(nccl_release_newest(), &off, t, 1, 8, &loc);
	cr_expect(nvl.ring.nvlink);
	cr_expect_gt(nvl.ring.bw_intra * nvl.ring.nchannels, 100, "%u x %g GB/s",
		     nvl.ring.nchannels, nvl.ring.bw_intra);
	cr_expect_not(loc.ring.nvlink);
	cr_expect_leq(loc.ring.bw_intra * loc.ring.nchannels, 12 + 1e-9, "%u x %g GB/s",
		      loc.ring.nchannels, loc.ring.bw_intra);
	cr_expect_gt(loc.ring.nchannels, 0);
	free(t);
}

/*
 * NVLS keeps its multicast with NVLink's P2P off, but from 2.25 NCCL's
 * search starts typeIntra at the nearest GPU pair (search.cc
 * ncclTopoGetGpuMinPath), PHB once every pair goes through the CPU, and
 * never widens an NVLS graph's: the tuner takes PCI's latencies for it.
 * 2.21 starts at NVL.
 */
Test(p2p_level, nvls_stays_its_type_from_2_25)
{
	struct topology *t = load(CONFIG("h100-pcie5-400g.yaml"), TOPO_CPU_INTEL);
	struct search_env loc = { false, TOPO_PATH_PXB, P2P_USER_LOC };
	struct nccl_channels new, old;

	channels_search(nccl_release_find("2.30.7"), &loc, t, 1, 8, &new);
	channels_search(nccl_release_find("2.21.5"), &loc, t, 1, 8, &old);
	cr_assert_gt(new.nvls.nchannels, 0, "NVLS without P2P");
	cr_assert_gt(old.nvls.nchannels, 0, "NVLS without P2P");
	cr_expect_not(new.nvls.nvlink, "2.30.7: PHB");
	cr_expect(old.nvls.nvlink, "2.21.5: NVL");
	free(t);
}

/* Why a pair goes through host memory, as `run` and `probe` say it. */
Test(p2p_level, refusal_reasons)
{
	struct topology *t = load(DATA("pcie-gpus-shm.yaml"), TOPO_CPU_INTEL);
	struct topology *mesh = load(DATA("dgx1-wired-mesh.yaml"), TOPO_CPU_INTEL);
	const struct nccl_release *r = nccl_release_find("2.21.5");
	char why[200] = "untouched";

	cr_expect_not(p2p_refused(r, P2P_USER_UNSET, t, 2, 3, 2, why, sizeof(why)));
	cr_expect_str_eq(why, "untouched");
	cr_expect(p2p_refused(r, P2P_USER_UNSET, t, 0, 1, 2, why, sizeof(why)));
	cr_expect_str_eq(why, "PHB is beyond NCCL 2.21.5's P2P level here, PXB (intel CPUs, 2 GPUs); "
			      "NCCL_P2P_LEVEL=PHB would allow it");
	cr_expect(p2p_refused(r, P2P_USER_LOC, t, 2, 3, 2, why, sizeof(why)));
	cr_expect_str_eq(why, "NCCL_P2P_LEVEL=LOC refuses PIX");
	t->gpus[3].no_peer_access = true;
	cr_expect(p2p_refused(r, P2P_USER_SYS, t, 2, 3, 2, why, sizeof(why)));
	cr_expect_str_eq(why, "CUDA refuses gpu3 peer access (cuDeviceCanAccessPeer)");
	cr_expect(p2p_refused(r, P2P_USER_LOC, mesh, 0, 4, 8, why, sizeof(why)));
	cr_expect_str_eq(why, "NCCL_P2P_LEVEL=LOC refuses NVL");
	cr_expect(p2p_refused(r, P2P_USER_NVL, mesh, 0, 5, 8, why, sizeof(why)));
	cr_expect_str_eq(why, "NCCL_P2P_LEVEL=NVL refuses NVB");
	free(mesh);
	free(t);
}
