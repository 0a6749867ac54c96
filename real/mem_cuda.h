/* SPDX-License-Identifier: MIT */
/*
 * mem_cuda: CUDA memory for the verbs data path (emu/verbs_path.h's
 * struct vp_mem_ops), the table emu fills with host memory.
 *
 * - "GPU" buffers come from ONE device arena, carved with a bump pointer:
 *   BAR1 is 256 MB on many cards and each registration pins its own BAR1
 *   window, so NCCL and the notes (real-gpudirect.md) register one pool.
 * - Copies are cuMemcpy*Async on a stream of our own, bracketed by two
 *   events; the op returns when the end event completes, with the event
 *   time kept for calibration (nvbandwidth's method).
 * - Pinned host buffers (cuMemHostAlloc) for staging: only pinned memory
 *   makes the copies truly asynchronous DMA.
 * - Sums run the kernels of reduce.cu (cuda_reduce.c).
 *
 * The vp ops return only an errno; the message of the last failure is in
 * mem_cuda_error().
 */
#ifndef GDRLAB_MEM_CUDA_H
#define GDRLAB_MEM_CUDA_H

#include <stdbool.h>
#include <stddef.h>

#include "cuda_driver.h"
#include "cuda_reduce.h"
#include "verbs_path.h"

#define MEM_CUDA_ALIGN (64u << 10) /* GPU page: what BAR1 maps */

struct mem_cuda {
	struct cu_api *cu; /* owned */
	int ordinal;
	CUdevice dev;
	CUcontext ctx; /* the device's primary context, retained */
	char name[96];
	int cc_major, cc_minor;
	CUstream stream;
	CUevent ev_start, ev_end;
	struct cuda_reduce red;
	bool red_ok;
	/* the arena: [arena, arena + arena_len), used up to arena_used */
	CUdeviceptr arena;
	size_t arena_len, arena_used, arena_min;
	/* receive-side ordering (see mem_cuda_recv_flush) */
	bool flush_needed;
	double last_copy_us; /* event time of the last copy or sum */
	struct diag err;     /* the last failure's message */
};

extern const struct vp_mem_ops mem_cuda_ops; /* ctx: struct mem_cuda * */

/*
 * Open device @ordinal: the driver, its primary context (current on this
 * thread), a stream, events and the kernels. The arena is allocated on
 * the first alloc, at least @arena_min bytes. -ENODEV "no NVIDIA GPU: ..."
 * where there is none. A build without nvcc opens, with red_ok false.
 */
int mem_cuda_open(struct mem_cuda **out, int ordinal, size_t arena_min,
		  struct diag *d);
void mem_cuda_close(struct mem_cuda *m); /* NULL is fine */

const char *mem_cuda_error(const struct mem_cuda *m);

/* Pinned, portable host memory (cuMemHostAlloc) and its release. */
int mem_cuda_host_alloc(void *ctx, size_t len, void **ptr);
void mem_cuda_host_free(void *ctx, void *ptr, size_t len);

/*
 * Make NIC writes into GPU memory visible before a kernel or copy reads
 * them: cuFlushGPUDirectRDMAWrites where the device does not order them
 * natively (CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING below
 * OWNER). NCCL's alternative is a 1-byte RDMA READ (net_ib/p2p.cc).
 * A no-op when not needed.
 */
int mem_cuda_recv_flush(void *ctx);

/*
 * A dma-buf fd for [ptr, ptr + len) of device memory: the range handed to
 * the driver is page aligned (down and up), *@offset is ptr - aligned
 * (perftest src/cuda_memory.c, NCCL net_ib). The caller closes *@fd.
 */
int mem_cuda_dmabuf_export(struct mem_cuda *m, void *ptr, size_t len,
			   int *fd, size_t *offset, struct diag *d);

#endif
