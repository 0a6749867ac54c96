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

static void config(struct vp_loopback_config *cfg, const char *device,
		   const struct vp_mem_ops *mem, void *mem_ctx)
{
	*cfg = (struct vp_loopback_config){
		.device = device, .mem = mem, .mem_ctx = mem_ctx,
		.msg = NIC_MEASURE_MSG, .depth = NIC_MEASURE_DEPTH,
		.seconds = NIC_MEASURE_SECONDS, .timeout_ms = 10000,
	};
}

/* host -> host, and GPU -> host and host -> GPU when @gpu. */
static int measure(struct vp_loopback *lb, struct nic_loopback *out, bool gpu,
		   struct diag *d)
{
	struct vp_loopback_result r;
	int err = vp_loopback_write_bw(lb, VP_SIDE_HOST, VP_SIDE_HOST, &r, d);

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
	return err;
}

int nic_measure_loopback(struct nic_loopback *out, const struct vp_mem_ops *mem,
			 void *mem_ctx, bool gpu, struct diag *d)
{
	struct vp_loopback_config cfg;
	struct vp_loopback *lb;
	struct diag gd = { "" };
	int err;

	out->host = out->gpu_read = out->gpu_write = 0;
	out->gpu_error[0] = '\0';
	config(&cfg, out->device, mem ? mem : &vp_host_mem_ops, mem_ctx);
	err = vp_loopback_open(&lb, &cfg, gpu ? &gd : d);
	if (err && gpu) {
		/* GPU memory the NIC cannot register (no dma-buf, no peermem):
		 * no GPUDirect here, which is a finding, not a failure; the
		 * NIC is still measured on host memory. */
		snprintf(out->gpu_error, sizeof(out->gpu_error), "%.*s",
			 (int)sizeof(out->gpu_error) - 1, gd.msg);
		gpu = false;
		config(&cfg, out->device, &vp_host_mem_ops, NULL);
		err = vp_loopback_open(&lb, &cfg, d);
	}
	if (err)
		return err;
	err = measure(lb, out, gpu, d);
	vp_loopback_close(lb);
	return err;
}
