/* SPDX-License-Identifier: MIT */
/*
 * vp_loopback: what one RDMA NIC moves from one kind of memory to another,
 * over a loopback pair of RC queue pairs on the same device (both ends in
 * this process), as `ib_write_bw` run against localhost does.
 *
 * Each measurement is a stream of RDMA WRITEs: the NIC reads the source
 * (host memory, or "GPU" memory through the memory ops) and writes the
 * destination. So "GPU -> host" is the NIC reading GPU memory (the direct
 * path's send side, a PCIe peer-to-peer read) and "host -> GPU" the NIC
 * writing it (the receive side); "host -> host" is the reference.
 *
 * Both ends are two vp_ctx of verbs_path (one per "rank"), so the
 * registration (dma-buf, peermem, host) is the data path's own.
 */
#ifndef GDRLAB_VP_LOOPBACK_H
#define GDRLAB_VP_LOOPBACK_H

#include <stddef.h>

#include "diag.h"
#include "verbs_path.h"

enum vp_side { VP_SIDE_HOST, VP_SIDE_GPU };

struct vp_loopback_config {
	const char *device;         /* "rxe0", "mlx5_0" */
	const struct vp_mem_ops *mem;
	void *mem_ctx;
	size_t msg;                 /* bytes per RDMA WRITE */
	unsigned depth;             /* writes in flight */
	double seconds;             /* length of one trial (at least depth writes) */
	int timeout_ms;             /* no completion for this long: -ETIMEDOUT */
};

/* One measurement: the median of three trials, each checked. */
struct vp_loopback_result {
	double bw;                  /* bytes/s */
	unsigned long long writes;  /* in the median trial */
	double seconds;             /* of the median trial */
};

struct vp_loopback;

int vp_loopback_open(struct vp_loopback **out,
		     const struct vp_loopback_config *cfg, struct diag *d);
/* RDMA WRITE bandwidth from @src memory to @dst memory. After every
 * trial the last message is read back and compared with what was sent:
 * -EIO when they differ. */
int vp_loopback_write_bw(struct vp_loopback *lb, enum vp_side src,
			 enum vp_side dst, struct vp_loopback_result *r,
			 struct diag *d);
/* How the "GPU" memory was registered ("host", "dmabuf", "peermem"). */
const char *vp_loopback_registration(const struct vp_loopback *lb);
void vp_loopback_close(struct vp_loopback *lb);

#endif
