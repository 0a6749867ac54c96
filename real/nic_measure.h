/* SPDX-License-Identifier: MIT */
/*
 * nic_measure: what `gdrlab calibrate` measures of a NIC on its own, over
 * a loopback pair of queue pairs (emu/vp_loopback.h): RDMA WRITE bandwidth
 * host -> host and, given CUDA memory ops, GPU -> host (the NIC reading
 * GPU memory: the direct path's send side) and host -> GPU (the NIC
 * writing it: the receive side). perftest's judgement of GPUDirect RDMA
 * is the same comparison (ib_write_bw with and without --use_cuda; see
 * ../shared/notes/real-gpudirect.md).
 *
 * Built with the real backend (libibverbs found); elsewhere both are
 * stubs returning -ENOSYS (calibrate never gets there: neither emu nor
 * real exists in such a build).
 */
#ifndef GDRLAB_NIC_MEASURE_H
#define GDRLAB_NIC_MEASURE_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#include "diag.h"
#include "verbs_path.h"

#define NIC_MEASURE_MSG (1u << 20) /* bytes per RDMA WRITE */
#define NIC_MEASURE_DEPTH 8        /* writes in flight */
#define NIC_MEASURE_SECONDS 0.3    /* per trial; three trials, median */

struct nic_loopback {
	char device[64];
	char registration[16]; /* of the GPU memory: "dmabuf", "peermem" */
	double host;           /* bytes/s host -> host */
	double gpu_read;       /* GPU -> host; 0: not measured */
	double gpu_write;      /* host -> GPU; 0: not measured */
	char gpu_error[256];   /* why GPU memory was not measured ("" if it was) */
};

#ifdef GDRLAB_HAVE_REAL
/* The device node 0 of an emu or real run uses: the first of
 * $GDRLAB_EMU_DEVICES, else the first device (in name order). */
int nic_measure_device(char *name, size_t len, struct diag *d);

/* Measure on out->device; GPU memory too when @gpu (through @mem; NULL:
 * host memory, emu's). GPU memory the NIC cannot register is not an error:
 * host -> host is measured alone and gpu_error says why. */
int nic_measure_loopback(struct nic_loopback *out, const struct vp_mem_ops *mem,
			 void *mem_ctx, bool gpu, struct diag *d);
#else
static inline int nic_measure_device(char *name, size_t len, struct diag *d)
{
	(void)name, (void)len;
	return diag_set(d, -ENOSYS, "gdrlab was built without libibverbs");
}

static inline int nic_measure_loopback(struct nic_loopback *out,
				       const struct vp_mem_ops *mem,
				       void *mem_ctx, bool gpu, struct diag *d)
{
	(void)out, (void)mem, (void)mem_ctx, (void)gpu;
	return diag_set(d, -ENOSYS, "gdrlab was built without libibverbs");
}
#endif

#endif
