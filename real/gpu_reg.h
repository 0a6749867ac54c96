/* SPDX-License-Identifier: MIT */
/*
 * gpu_reg: register CUDA memory with an RDMA NIC for the direct path.
 *
 * dma-buf first (cuMemGetHandleForAddressRange + ibv_reg_dmabuf_mr,
 * page-aligned range, offset = ptr - aligned, iova = the real pointer, fd
 * closed after: perftest src/cuda_memory.c, NCCL net_ib/reg.cc), then
 * plain ibv_reg_mr when nvidia-peermem (or nv_peer_mem) is loaded, as NCCL
 * falls back. The registered range gets CU_POINTER_ATTRIBUTE_SYNC_MEMOPS
 * first, as UCX does, so that synchronous CUDA copies into it finish
 * before the NIC can read it.
 *
 * A GPU whose CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED is 0 is
 * refused first, with that reason (NCCL's ncclGpuGdrSupport).
 *
 * *@how says which way it went, for records and JSON: "dmabuf" or
 * "peermem" (static strings). On failure @d gives both reasons.
 */
#ifndef GDRLAB_GPU_REG_H
#define GDRLAB_GPU_REG_H

#include <stddef.h>

#include "diag.h"

struct ibv_pd;
struct ibv_mr;
struct mem_cuda;

#define GPU_REG_DMABUF "dmabuf"
#define GPU_REG_PEERMEM "peermem"

int gpu_reg_mr(struct mem_cuda *m, struct ibv_pd *pd, void *ptr, size_t len,
	       int access, struct ibv_mr **mr, const char **how,
	       struct diag *d);

/* The vp_mem_ops-shaped hook (ctx is the struct mem_cuda *); the message
 * of a failure is in mem_cuda_error(). Built with libibverbs only (the
 * real backend); GPU_REG_MR_OP is NULL elsewhere, where nothing
 * registers memory (gdrlab-gpu-check on a machine without rdma-core). */
#ifdef GDRLAB_HAVE_REAL
int gpu_reg_mr_op(void *ctx, struct ibv_pd *pd, void *ptr, size_t len,
		  int access, struct ibv_mr **mr, const char **how);
#define GPU_REG_MR_OP gpu_reg_mr_op
#else
#define GPU_REG_MR_OP NULL
#endif

/* nvidia-peermem, nv_peer_mem or the old memory_peers interface under
 * @sys ("/sys"); the found path or NULL. */
const char *gpu_reg_peermem(const char *sys, char *buf, size_t len);

#endif
