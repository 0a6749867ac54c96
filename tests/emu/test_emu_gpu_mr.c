/* SPDX-License-Identifier: MIT */
/*
 * A plan that stages every NIC side runs without the "GPU" arena
 * registered (vp_config.gpu_mr_optional: a GPU without GPUDirect RDMA),
 * and a step that would put a NIC side on that memory is refused with
 * the registration's reason before anything is posted. No RDMA needed:
 * the refusal comes first.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vp_internal.h"

static struct vp_ctx *unregistered(void)
{
	struct vp_ctx *c = calloc(1, sizeof(*c));

	cr_assert_not_null(c);
	c->cfg.rank = 3;
	c->cfg.chunk = 4096;
	snprintf(c->gpu_reg_err, sizeof(c->gpu_reg_err),
		 "cannot register GPU memory with the NIC: no GPUDirect RDMA");
	return c;
}

Test(vp_gpu_mr, direct_sides_are_refused_without_a_registered_arena)
{
	struct vp_ctx *c = unregistered();
	struct vp_step direct_send = { .send_to = 1, .recv_from = -1, .send_len = 64,
				       .staged_send = false, .staged_send_remote = true };
	struct vp_step direct_remote = { .send_to = 1, .recv_from = -1, .send_len = 64,
					 .staged_send = true, .staged_send_remote = false };
	struct vp_step direct_recv = { .send_to = -1, .recv_from = 1, .recv_len = 64,
				       .staged_recv = false };
	const struct vp_step *steps[] = { &direct_send, &direct_remote, &direct_recv };
	struct vp_times t;
	struct diag d = { "" };

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		memset(&t, 0, sizeof(t));
		cr_expect_eq(vp_step_run(c, steps[i], &t, &d), -EOPNOTSUPP, "step %zu", i);
		cr_expect(strstr(d.msg, "rank 3: a NIC side of this step is on GPU memory") &&
				  strstr(d.msg, "no GPUDirect RDMA"),
			  "%s", d.msg);
	}
	cr_expect_eq(vp_need_gpu_mr(c, &d), -EOPNOTSUPP);
	free(c);
}
