/* SPDX-License-Identifier: MIT */
/*
 * topo_path: the GPU<->NIC class of every pair of every preset, the NIC each
 * GPU sends through, and the GDR decision at each NCCL level. The expected
 * matrices are written out from each preset's layout (see the comments at
 * the top of each configs/ preset), not computed.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "gdr_policy.h"
#include "topo_path.h"

#define CONFIG(name) GDRLAB_SOURCE_DIR "/configs/" name ".yaml"

#define X TOPO_PATH_PIX
#define B TOPO_PATH_PXB
#define H TOPO_PATH_PHB
#define S TOPO_PATH_SYS

static void load(const char *path, struct topology *t)
{
	struct diag d = { "" };

	cr_assert_eq(topology_load(path, t, &d), 0, "%s", d.msg);
}

static void load_str(const char *yaml, struct topology *t)
{
	struct diag d = { "" };

	cr_assert_eq(topology_load_buffer(yaml, strlen(yaml), "inline", t, &d),
		     0, "%s", d.msg);
}

/* @want is ngpus x nnics, row-major. */
static void check_matrix(const struct topology *t, const enum topo_path_type *want)
{
	enum topo_path_type got;
	unsigned g, n;

	for (g = 0; g < t->ngpus; g++) {
		for (n = 0; n < t->nnics; n++) {
			got = topo_gpu_nic_path(t, (int)g, (int)n);
			cr_assert_eq(got, want[g * t->nnics + n],
				     "%s: %s-%s is %s, want %s", t->name,
				     t->gpus[g].name, t->nics[n].dev.name,
				     topo_path_name(got),
				     topo_path_name(want[g * t->nnics + n]));
		}
	}
}

static void check_nearest(const struct topology *t, const int *want)
{
	unsigned g;

	for (g = 0; g < t->ngpus; g++)
		cr_assert_eq(topo_nearest_nic(t, (int)g), want[g],
			     "%s: %s uses nic%d, want nic%d", t->name,
			     t->gpus[g].name, topo_nearest_nic(t, (int)g),
			     want[g]);
}

/*
 * GDR is allowed iff the class is within the level, and a refusal says
 * why. @want[l] is how many pairs each level allows, counted by hand from
 * the matrix.
 */
static void check_gdr_levels(const struct topology *t, const unsigned *want)
{
	static const char *const levels[] = { "pix", "pxb", "phb", "sys" };
	enum topo_path_type level, path;
	unsigned l, g, n, allowed;
	char why[256];
	bool ok;

	for (l = 0; l < 4; l++) {
		cr_assert_eq(topo_path_parse(levels[l], &level), 0);
		allowed = 0;
		for (g = 0; g < t->ngpus; g++) {
			for (n = 0; n < t->nnics; n++) {
				path = topo_gpu_nic_path(t, (int)g, (int)n);
				why[0] = '\0';
				ok = gdr_allowed(t, (int)g, (int)n, level, why,
						 sizeof(why));
				cr_assert_eq(ok, path <= level,
					     "%s: %s at level %s", t->name,
					     topo_path_name(path), levels[l]);
				cr_assert(ok || why[0], "refusal without reason");
				allowed += ok;
			}
		}
		cr_assert_eq(allowed, want[l], "%s: level %s allows %u pairs",
			     t->name, levels[l], allowed);
	}
}

/*
 * a100-pcie4-200g: sw0,sw1 on cpu0 and sw2,sw3 on cpu1; gpu 2k,2k+1 and
 * nic k under sw k.
 */
Test(topo_path, a100)
{
	static const enum topo_path_type want[8 * 4] = {
		/* nic0 nic1 nic2 nic3 */
		X, H, S, S,	/* gpu0 */
		X, H, S, S,	/* gpu1 */
		H, X, S, S,	/* gpu2 */
		H, X, S, S,	/* gpu3 */
		S, S, X, H,	/* gpu4 */
		S, S, X, H,	/* gpu5 */
		S, S, H, X,	/* gpu6 */
		S, S, H, X,	/* gpu7 */
	};
	static const int nearest[8] = { 0, 0, 1, 1, 2, 2, 3, 3 };
	/* PIX 8 pairs, PHB 8, SYS 16. */
	static const unsigned gdr[4] = { 8, 8, 16, 32 };
	struct topology t;

	load(CONFIG("a100-pcie4-200g"), &t);
	check_matrix(&t, want);
	check_nearest(&t, nearest);
	check_gdr_levels(&t, gdr);
}

/*
 * h100-pcie5-400g: as a100 but nics 2k and 2k+1 under sw k; the two GPUs
 * of a switch tie on its two NICs and take one each.
 */
Test(topo_path, h100)
{
	static const enum topo_path_type want[8 * 8] = {
		/* nic0..7 */
		X, X, H, H, S, S, S, S,	/* gpu0 */
		X, X, H, H, S, S, S, S,	/* gpu1 */
		H, H, X, X, S, S, S, S,	/* gpu2 */
		H, H, X, X, S, S, S, S,	/* gpu3 */
		S, S, S, S, X, X, H, H,	/* gpu4 */
		S, S, S, S, X, X, H, H,	/* gpu5 */
		S, S, S, S, H, H, X, X,	/* gpu6 */
		S, S, S, S, H, H, X, X,	/* gpu7 */
	};
	static const int nearest[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	/* PIX 16 pairs, PHB 16, SYS 32. */
	static const unsigned gdr[4] = { 16, 16, 32, 64 };
	struct topology t;

	load(CONFIG("h100-pcie5-400g"), &t);
	check_matrix(&t, want);
	check_nearest(&t, nearest);
	check_gdr_levels(&t, gdr);
}

/* two-socket-commodity: GPUs on cpu0 root ports, the NIC on cpu1's. */
Test(topo_path, commodity)
{
	static const enum topo_path_type want[2 * 1] = { S, S };
	static const int nearest[2] = { 0, 0 };
	/* GDR only if the user allows SYS. */
	static const unsigned gdr[4] = { 0, 0, 0, 2 };
	struct topology t;

	load(CONFIG("two-socket-commodity"), &t);
	check_matrix(&t, want);
	check_nearest(&t, nearest);
	check_gdr_levels(&t, gdr);
}

/*
 * No preset has two switch levels, so PXB is checked on a hand-made tree:
 *
 *   cpu0 ── top ─┬─ leafA: gpu0, nic0
 *        │       ├─ leafB: nic1
 *        │       └─ gpu1, nic2
 *        ├─ other: nic3
 *        └─ nic4 (root port)
 *   cpu1 ── nic5
 */
static const char tree[] =
	"name: tree\n"
	"sockets:\n"
	"  - { name: cpu0, memory_bandwidth: 100 GB/s }\n"
	"  - { name: cpu1, memory_bandwidth: 100 GB/s }\n"
	"inter_socket: { bandwidth: 40 GB/s, latency: 0.2 us }\n"
	"switches:\n"
	"  - { name: leafA, parent: top, link: { bandwidth: 24 GB/s, latency: 0.1 us } }\n"
	"  - { name: leafB, parent: top, link: { bandwidth: 24 GB/s, latency: 0.1 us } }\n"
	"  - { name: top, parent: cpu0, link: { bandwidth: 24 GB/s, latency: 0.1 us } }\n"
	"  - { name: other, parent: cpu0, link: { bandwidth: 24 GB/s, latency: 0.1 us } }\n"
	"gpus:\n"
	"  - { name: gpu0, parent: leafA, link: { bandwidth: 24 GB/s, latency: 0.1 us } }\n"
	"  - { name: gpu1, parent: top, link: { bandwidth: 24 GB/s, latency: 0.1 us } }\n"
	"nics:\n"
	"  - { name: nic0, parent: leafA, link: { bandwidth: 24 GB/s, latency: 0.1 us }, rate: 200 Gbit/s, latency: 1 us }\n"
	"  - { name: nic1, parent: leafB, link: { bandwidth: 24 GB/s, latency: 0.1 us }, rate: 200 Gbit/s, latency: 1 us }\n"
	"  - { name: nic2, parent: top, link: { bandwidth: 24 GB/s, latency: 0.1 us }, rate: 200 Gbit/s, latency: 1 us }\n"
	"  - { name: nic3, parent: other, link: { bandwidth: 24 GB/s, latency: 0.1 us }, rate: 200 Gbit/s, latency: 1 us }\n"
	"  - { name: nic4, parent: cpu0, link: { bandwidth: 24 GB/s, latency: 0.1 us }, rate: 200 Gbit/s, latency: 1 us }\n"
	"  - { name: nic5, parent: cpu1, link: { bandwidth: 24 GB/s, latency: 0.1 us }, rate: 200 Gbit/s, latency: 1 us }\n"
	"fabric: { switch_latency: 0.3 us }\n"
	"staging: { chunk: 1 MiB, buffers: 4, copy_bandwidth: 20 GB/s, chunk_overhead: 2 us }\n";

Test(topo_path, switch_tree)
{
	static const enum topo_path_type want[2 * 6] = {
		/* nic0 nic1 nic2 nic3 nic4 nic5 */
		X, B, B, H, H, S,	/* gpu0: leafA */
		B, B, X, H, H, S,	/* gpu1: top */
	};
	static const int nearest[2] = { 0, 2 };
	/* PIX 2 pairs, PXB 4, PHB 4, SYS 2. */
	static const unsigned gdr[4] = { 2, 6, 10, 12 };
	struct topology t;

	load_str(tree, &t);
	check_matrix(&t, want);
	check_nearest(&t, nearest);
	check_gdr_levels(&t, gdr);
}

/*
 * Ties are spread round-robin among GPUs with the same candidate set: four
 * GPUs and two NICs, all on cpu0's root ports (all PHB), alternate; gpu2 on
 * cpu1 has a different set ({nic2}) and does not shift the count.
 */
Test(topo_path, round_robin)
{
	static const char yaml[] =
		"name: rr\n"
		"sockets:\n"
		"  - { name: cpu0, memory_bandwidth: 100 GB/s }\n"
		"  - { name: cpu1, memory_bandwidth: 100 GB/s }\n"
		"inter_socket: { bandwidth: 40 GB/s, latency: 0.2 us }\n"
		"gpus:\n"
		"  - { name: gpu0, parent: cpu0, link: { bandwidth: 24 GB/s, latency: 0.1 us } }\n"
		"  - { name: gpu1, parent: cpu0, link: { bandwidth: 24 GB/s, latency: 0.1 us } }\n"
		"  - { name: gpu2, parent: cpu1, link: { bandwidth: 24 GB/s, latency: 0.1 us } }\n"
		"  - { name: gpu3, parent: cpu0, link: { bandwidth: 24 GB/s, latency: 0.1 us } }\n"
		"  - { name: gpu4, parent: cpu0, link: { bandwidth: 24 GB/s, latency: 0.1 us } }\n"
		"nics:\n"
		"  - { name: nic0, parent: cpu0, link: { bandwidth: 24 GB/s, latency: 0.1 us }, rate: 200 Gbit/s, latency: 1 us }\n"
		"  - { name: nic1, parent: cpu0, link: { bandwidth: 24 GB/s, latency: 0.1 us }, rate: 200 Gbit/s, latency: 1 us }\n"
		"  - { name: nic2, parent: cpu1, link: { bandwidth: 24 GB/s, latency: 0.1 us }, rate: 200 Gbit/s, latency: 1 us }\n"
		"fabric: { switch_latency: 0.3 us }\n"
		"staging: { chunk: 1 MiB, buffers: 4, copy_bandwidth: 20 GB/s, chunk_overhead: 2 us }\n";
	/* gpu2 is alone on cpu1; gpu0,1,3,4 share {nic0, nic1}. */
	static const int nearest[5] = { 0, 1, 2, 0, 1 };
	struct topology t;

	load_str(yaml, &t);
	check_nearest(&t, nearest);
}

Test(topo_path, bad_indices)
{
	struct topology t;

	load(CONFIG("a100-pcie4-200g"), &t);
	cr_assert_eq(topo_gpu_nic_path(&t, -1, 0), TOPO_PATH_SYS);
	cr_assert_eq(topo_gpu_nic_path(&t, 8, 0), TOPO_PATH_SYS);
	cr_assert_eq(topo_gpu_nic_path(&t, 0, 4), TOPO_PATH_SYS);
	cr_assert_eq(topo_nearest_nic(&t, 8), TOPO_NONE);
	cr_assert_eq(topo_nearest_nic(&t, -1), TOPO_NONE);
}

/* NCCL_NET_GDR_LEVEL's old numbers, by v2.30.7-1 paths.cc:243
 * levelsOldToNew {LOC, PIX, PXB, PHB, SYS, SYS} (the same table in
 * v2.8.4-1:207 and v2.27.3-1:209), larger numbers its last */
Test(topo_path, gdr_level_old_numbers)
{
	static const struct {
		const char *s;
		enum topo_path_type t;
	} good[] = {
		{ "1", X }, { "2", B }, { "3", H }, { "4", S }, { "5", S },
		{ "6", S }, { "99999999999999999999999", S },
		{ "pix", X }, { "P2C", TOPO_PATH_P2C }, { "sys", S },
	};
	static const char *const bad[] = { "", "-1", "2x", " 2", "2 ", "0x2", "loc" };
	enum topo_path_type t;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		cr_expect_eq(topo_gdr_level_parse(good[i].s, &t), 0, "'%s'", good[i].s);
		cr_expect_eq(t, good[i].t, "'%s'", good[i].s);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_expect_eq(topo_gdr_level_parse(bad[i], &t), -EINVAL, "'%s'", bad[i]);
	/* 0 is LOC: no NIC is that near, GPUDirect RDMA never */
	cr_expect_eq(topo_gdr_level_parse("0", &t), -ERANGE);
	cr_expect_eq(topo_gdr_level_parse("00", &t), -ERANGE);
	cr_expect_str_eq(topo_level_old_name("0"), "LOC");
	cr_expect_null(topo_level_old_name("pxb"));
}

Test(topo_path, names_and_parse)
{
	static const struct {
		const char *s;
		enum topo_path_type t;
	} good[] = {
		{ "pix", X }, { "PIX", X }, { "Pxb", B }, { "pXB", B },
		{ "phb", H }, { "PHB", H }, { "sys", S }, { "SYS", S },
	};
	static const char *const bad[] = { "", "pi", "pixx", "node", "nvl",
					   " pix", "loc" };
	enum topo_path_type t;
	unsigned i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		cr_assert_eq(topo_path_parse(good[i].s, &t), 0, "%s", good[i].s);
		cr_assert_eq(t, good[i].t, "%s", good[i].s);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_eq(topo_path_parse(bad[i], &t), -EINVAL, "'%s'",
			     bad[i]);
	cr_assert_eq(topo_path_parse(NULL, &t), -EINVAL);
	cr_assert_str_eq(topo_path_name(TOPO_PATH_PIX), "PIX");
	cr_assert_str_eq(topo_path_name(TOPO_PATH_PXB), "PXB");
	cr_assert_str_eq(topo_path_name(TOPO_PATH_PHB), "PHB");
	cr_assert_str_eq(topo_path_name(TOPO_PATH_SYS), "SYS");
	cr_assert_str_eq(topo_path_name((enum topo_path_type)7), "?");
	/* Nearest first: a level allows every class up to itself. */
	cr_assert(TOPO_PATH_PIX < TOPO_PATH_PXB &&
		  TOPO_PATH_PXB < TOPO_PATH_P2C &&
		  TOPO_PATH_P2C < TOPO_PATH_PHB &&
		  TOPO_PATH_PHB < TOPO_PATH_SYS);
	cr_assert_str_eq(topo_path_name(TOPO_PATH_P2C), "P2C");
}

/* A Grace Hopper node: the GPU on its CPU over NVLink-C2C, four NICs on
 * that CPU's PCIe. Every NIC is P2C, within NCCL's default GDR level. */
Test(topo_path, c2c_gpu_is_p2c_to_its_cpus_nics)
{
	static const char yaml[] =
		"name: gh\n"
		"sockets: [ { name: grace, memory_bandwidth: 400 GB/s } ]\n"
		"gpus: [ { name: h100, parent: grace, link: { bandwidth: 450 GB/s, latency: 0.2 us, kind: c2c } } ]\n"
		"nics:\n"
		"  - { name: nic0, parent: grace, link: { gen: 5, width: 16, latency: 0.1 us }, rate: 400 Gbit/s, latency: 0.6 us }\n"
		"  - { name: nic1, parent: grace, link: { gen: 5, width: 16, latency: 0.1 us }, rate: 400 Gbit/s, latency: 0.6 us }\n"
		"fabric: { switch_latency: 0.2 us }\n"
		"staging: { chunk: 512 KiB, buffers: 8, copy_bandwidth: 25 GB/s, chunk_overhead: 2 us }\n";
	struct topology t;
	struct diag d = { "" };

	cr_assert_eq(topology_load_buffer(yaml, sizeof(yaml) - 1, "gh", &t, &d), 0, "%s", d.msg);
	cr_assert_eq(t.gpus[0].link.kind, TOPO_LINK_C2C);
	cr_assert_eq(topo_gpu_nic_path(&t, 0, 0), TOPO_PATH_P2C);
	cr_assert_eq(topo_gpu_nic_path(&t, 0, 1), TOPO_PATH_P2C);
	cr_assert(gdr_allowed(&t, 0, 1, GDR_LEVEL_DEFAULT, NULL, 0));
	cr_assert(!gdr_allowed(&t, 0, 1, TOPO_PATH_PXB, NULL, 0));
}

/* The reader's cache of each GPU's nearest NICs (topo_cache_paths) says
 * what the walk up the switches says, on every shipped topology: a copy
 * marked uncached walks them. */
Test(topo_path, cached_nearest_nics_are_the_walked_ones)
{
	static const char *const files[] = {
		"a100-pcie4-200g", "gh200-grace-hopper", "h100-nvl-pcie-pairs",
		"h100-pcie5-400g", "h100-roce-clos", "h100-superpod-ib",
		"two-socket-commodity", "validation/abci-v100-2xedr",
		"validation/dgx1-v100-4xedr", "validation/h100-4x400g-roce",
	};
	static struct topology t, walked;

	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		char path[512];

		snprintf(path, sizeof(path), GDRLAB_SOURCE_DIR "/configs/%s.yaml", files[f]);
		load(path, &t);
		cr_assert(t.nearest_cached, "%s", files[f]);
		walked = t;
		walked.nearest_cached = false;
		for (unsigned g = 0; g < t.ngpus; g++)
			for (int n = 0; n < (int)t.nnics; n++)
				cr_assert_eq(topo_nic_is_nearest(&t, g, n),
					     topo_nic_is_nearest(&walked, g, n), "%s: gpu %u nic %d",
					     files[f], g, n);
	}
}
