/* SPDX-License-Identifier: MIT */
#include "nic_measure.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vp_loopback.h"

int nic_measure_device(char *name, size_t len, struct diag *d)
{
	const char *env = getenv("GDRLAB_EMU_DEVICES");
	char **names;
	unsigned n;
	int err;

	if (env && *env) {
		snprintf(name, len, "%.*s", (int)strcspn(env, ","), env);
		return 0;
	}
	err = vp_list_devices(&names, &n, d);
	if (err)
		return err;
	snprintf(name, len, "%s", names[0]);
	vp_free_names(names, n);
	return 0;
}

int nic_measure_loopback(struct nic_loopback *out, const struct vp_mem_ops *mem,
			 void *mem_ctx, bool gpu, struct diag *d)
{
	struct vp_loopback_config cfg = {
		.device = out->device, .mem = mem ? mem : &vp_host_mem_ops,
		.mem_ctx = mem_ctx,
		.msg = NIC_MEASURE_MSG, .depth = NIC_MEASURE_DEPTH,
		.seconds = NIC_MEASURE_SECONDS, .timeout_ms = 10000,
	};
	struct vp_loopback_result r;
	struct vp_loopback *lb;
	int err = vp_loopback_open(&lb, &cfg, d);

	if (err)
		return err;
	out->gpu_read = out->gpu_write = 0;
	err = vp_loopback_write_bw(lb, VP_SIDE_HOST, VP_SIDE_HOST, &r, d);
	out->host = r.bw;
	if (!err && gpu) {
		snprintf(out->registration, sizeof(out->registration), "%s",
			 vp_loopback_registration(lb));
		err = vp_loopback_write_bw(lb, VP_SIDE_GPU, VP_SIDE_HOST, &r, d);
		out->gpu_read = r.bw;
	}
	if (!err && gpu) {
		err = vp_loopback_write_bw(lb, VP_SIDE_HOST, VP_SIDE_GPU, &r, d);
		out->gpu_write = r.bw;
	}
	vp_loopback_close(lb);
	return err;
}
