/* SPDX-License-Identifier: MIT */
/*
 * What the CUDA driver refuses a GPU, as NCCL asks it: GPUDirect RDMA
 * (GPU_DIRECT_RDMA_SUPPORTED, ncclGpuGdrSupport) and peer access
 * (cuDeviceCanAccessPeer, p2pCanConnect). The driver needs a GPU, so the
 * answers are set on the probe of a captured tree (dgx-8gpu), as
 * probe_driver.c would set them on a GeForce machine; the verdicts and
 * the emitted topology are then checked by hand.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "probe_helpers.h"
#include "topo_path.h"

Test(probe_refusals, no_gpudirect_rdma_at_any_level)
{
	struct probe *p = probe_load(SYSFS("dgx-8gpu"));
	char why[PROBE_WHY_MAX];

	/* gpu0 and mlx5_0 share a switch: PIX, so only the GPU can refuse */
	p->peermem = PROBE_YES;
	cr_expect_eq(probe_gdr_verdict(p, 0, 0, TOPO_PATH_SYS, false, why, sizeof(why)),
		     PROBE_GDR_YES, "%s", why);
	p->gpus[0].gdr_support = PROBE_NO;
	cr_expect_eq(probe_gdr_verdict(p, 0, 0, TOPO_PATH_SYS, false, why, sizeof(why)),
		     PROBE_GDR_NO);
	cr_expect_str_eq(why, "gpu0 has no GPUDirect RDMA (CUDA's GPU_DIRECT_RDMA_SUPPORTED is 0)");
	probe_destroy(p);
}

Test(probe_refusals, into_the_emitted_topology)
{
	struct probe *p = probe_load(SYSFS("dgx-8gpu"));
	struct topology *t;
	char *text = NULL;

	p->gpus[1].gdr_support = PROBE_NO;
	p->gpus[2].peer_access = PROBE_NO;
	p->gpus[3].gdr_support = PROBE_NO;
	p->gpus[3].peer_access = PROBE_NO;
	p->gpus[4].gdr_support = PROBE_YES;
	p->gpus[4].peer_access = PROBE_YES;
	t = probe_emitted(p, &text);
	for (unsigned g = 0; g < 8; g++) {
		cr_expect_eq(t->gpus[g].no_gdr, g == 1 || g == 3, "gpu%u gdr\n%s", g, text);
		cr_expect_eq(t->gpus[g].no_peer_access, g == 2 || g == 3, "gpu%u peer_access", g);
	}
	cr_expect_not_null(strstr(text, "# gdr, peer_access false: the CUDA driver says"), "%s", text);
	free(text);
	free(t);
	probe_destroy(p);
}

/* Nothing refused, nothing said: the file is as before. */
Test(probe_refusals, nothing_refused_nothing_said)
{
	struct probe *p = probe_load(SYSFS("dgx-8gpu"));
	char *text = NULL;
	struct topology *t = probe_emitted(p, &text);

	cr_expect_null(strstr(text, "gdr:"), "%s", text);
	cr_expect_null(strstr(text, "peer_access"), "%s", text);
	free(text);
	free(t);
	probe_destroy(p);
}
