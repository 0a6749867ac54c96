/* SPDX-License-Identifier: MIT */
/*
 * The probe's GPU x GPU verdict (real/probe_p2p.c): peer to peer or
 * through host memory, as NCCL 2.30.7 would copy (paths.cc
 * ncclTopoCheckP2p: PXB, an AMD pair of GPUs at any distance), on the
 * captured pxb-8gpu tree (a DGX-1's PCIe: gpu0 and gpu1 under one switch,
 * gpu2 and gpu3 under another of cpu0, gpu4-gpu7 on cpu1), its CPU
 * vendor unknown and so Intel's rule taken, as the emitted file says.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>

#include "probe_helpers.h"
#include "probe_p2p.h"

static void expect_pair(const struct topology *t, unsigned a, unsigned b, const char *path,
			bool shm, const char *why)
{
	struct probe_p2p x;

	probe_p2p_pair(t, a, b, &x);
	cr_expect_str_eq(x.path, path, "gpu%u-gpu%u", a, b);
	cr_expect_eq(x.shm, shm, "gpu%u-gpu%u", a, b);
	cr_expect_str_eq(x.why, why, "gpu%u-gpu%u", a, b);
}

/* @p's topology, as the probe judges its pairs on it. */
static struct topology *judged(const struct probe *p)
{
	struct diag d = { "" };
	struct topology *t = probe_topology(p, &d);

	cr_assert_not_null(t, "%s", d.msg);
	return t;
}

Test(probe_p2p, pcie_pairs_by_the_p2p_level)
{
	struct probe *p = probe_load(SYSFS("pxb-8gpu"));
	struct topology *t = judged(p);

	expect_pair(t, 0, 1, "PIX", false, "");
	expect_pair(t, 0, 2, "PHB", true,
		    "PHB is beyond NCCL 2.30.7's P2P level here, PXB (intel CPUs, 8 GPUs); "
		    "NCCL_P2P_LEVEL=PHB would allow it");
	expect_pair(t, 3, 4, "SYS", true,
		    "SYS is beyond NCCL 2.30.7's P2P level here, PXB (intel CPUs, 8 GPUs); "
		    "NCCL_P2P_LEVEL=SYS would allow it");
	free(t);
	probe_destroy(p);
}

/* The cube mesh wired as NVML would report it: a pair's own links
 * (gpu0-gpu4), or through a GPU between (gpu0-gpu5: gpu1 and gpu4 are
 * wired to both), peer to peer however far apart on PCIe. */
Test(probe_p2p, nvlink_pairs_copy_peer_to_peer)
{
	struct probe *p = probe_load(SYSFS("pxb-8gpu"));
	struct topology *t;

	wire_dgx1_mesh(p);
	t = judged(p);
	expect_pair(t, 0, 4, "NVL", false, "");
	expect_pair(t, 0, 5, "NVB", false, "");
	free(t);
	probe_destroy(p);
}

/* CUDA refusing a GPU peer access sends even its switch neighbour
 * through host memory. */
Test(probe_p2p, refused_peer_access)
{
	struct probe *p = probe_load(SYSFS("pxb-8gpu"));
	struct topology *t;

	p->gpus[3].peer_access = PROBE_NO;
	t = judged(p);
	expect_pair(t, 2, 3, "PIX", true, "CUDA refuses gpu3 peer access (cuDeviceCanAccessPeer)");
	free(t);
	probe_destroy(p);
}

/* JSON: each pair once, in order; null where no topology can be written
 * (no RDMA device). */
Test(probe_p2p, json_pairs)
{
	struct probe *p = probe_load(SYSFS("pxb-8gpu"));
	json_t *j = probe_json(p), *a, *x;

	cr_assert_not_null(j);
	a = json_object_get(j, "gpu_pairs");
	cr_assert(json_is_array(a));
	cr_expect_eq(json_array_size(a), 28, "8 x 7 / 2 pairs");
	x = json_array_get(a, 0);
	cr_expect_str_eq(json_string_value(json_array_get(json_object_get(x, "gpus"), 1)), "gpu1");
	cr_expect_str_eq(json_string_value(json_object_get(x, "path")), "PIX");
	cr_expect_str_eq(json_string_value(json_object_get(x, "transport")), "p2p");
	cr_expect(json_is_null(json_object_get(x, "why")));
	x = json_array_get(a, 1);
	cr_expect_str_eq(json_string_value(json_object_get(x, "transport")), "shm");
	cr_expect(json_is_string(json_object_get(x, "why")));
	json_decref(j);
	p->nnics = 0;
	j = probe_json(p);
	cr_expect(json_is_null(json_object_get(j, "gpu_pairs")));
	json_decref(j);
	probe_destroy(p);
}
