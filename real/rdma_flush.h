/* SPDX-License-Identifier: MIT */
/*
 * rdma_flush: make a NIC's writes into GPU memory visible by reading a
 * byte of that memory back with an RDMA READ, as NCCL's net_ib does when
 * the GPU does not order them itself (src/transport/net_ib/p2p.cc,
 * ncclIbIflush; the QP and buffer: connect.cc, gpuFlush; v2.30.7-1).
 *
 * An RC queue pair connected to itself (its own QPN, LID or GID) on the
 * data path's PD and port posts a 1-byte READ of the GPU buffer into a
 * small host buffer. PCIe does not let a read pass the posted writes
 * ahead of it on the same path, so when the READ completes the NIC's
 * earlier writes into the GPU have landed: the GPU may then read them.
 * Any address behind the same GPU would order them; NCCL reads the
 * buffer just received, and so does rdma_flush_read when told which.
 *
 * Built with libibverbs (the real backend); elsewhere the stubs below say
 * -ENOSYS, so that mem_cuda.c needs no #ifdef.
 */
#ifndef GDRLAB_RDMA_FLUSH_H
#define GDRLAB_RDMA_FLUSH_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"

struct ibv_pd;
struct ibv_mr;
struct rdma_flush;

/* Where the flush QP sends its READ: the data path's own port, GID index
 * (RoCE), traffic class (RoCE's GRH) and service level, as NCCL's
 * gpuFlush QP takes the data QPs' (net_ib/connect.cc, v2.30.7-1). */
struct rdma_flush_path {
	uint8_t port;
	int gid_index;
	unsigned tc, sl;
};

#ifdef GDRLAB_HAVE_REAL
/*
 * A flush QP on @pd's device, on @path's port, addressed by its GID index
 * on RoCE (by the port's LID on InfiniBand): what the data path's own QPs
 * use.
 * @target is the MR of the GPU memory to read; it must have been
 * registered with IBV_ACCESS_REMOTE_READ. Neither is owned: close the
 * flush before they go. [@base, @base + @len) is the range @target was
 * registered for, the addresses a READ names (its iova); NULL @base takes
 * target->addr and ->length, which is right for ibv_reg_mr only: a
 * dma-buf MR's addr is its offset into the dma-buf, not the iova
 * (rdma-core libibverbs/verbs.c, ibv_reg_dmabuf_mr).
 */
int rdma_flush_open(struct rdma_flush **out, struct ibv_pd *pd,
		    struct ibv_mr *target, const void *base, size_t len,
		    const struct rdma_flush_path *path, struct diag *d);
/* READ the byte at @addr (NULL: the target's first) and wait for it. */
int rdma_flush_read(struct rdma_flush *f, const void *addr, struct diag *d);
/* Whether @addr lies in the flush's target MR. */
bool rdma_flush_covers(const struct rdma_flush *f, const void *addr);
struct ibv_pd *rdma_flush_pd(const struct rdma_flush *f);
/* Keeps going after a failure; NULL is fine. */
void rdma_flush_close(struct rdma_flush *f);
#else
static inline int rdma_flush_open(struct rdma_flush **out, struct ibv_pd *pd,
				  struct ibv_mr *target, const void *base,
				  size_t len, const struct rdma_flush_path *path,
				  struct diag *d)
{
	*out = NULL;
	return diag_set(d, -ENOSYS, "built without libibverbs: no RDMA READ flush");
}

static inline int rdma_flush_read(struct rdma_flush *f, const void *addr,
				  struct diag *d)
{
	return diag_set(d, -ENOSYS, "built without libibverbs: no RDMA READ flush");
}

static inline bool rdma_flush_covers(const struct rdma_flush *f, const void *addr)
{
	return false;
}

static inline struct ibv_pd *rdma_flush_pd(const struct rdma_flush *f)
{
	return NULL;
}

static inline void rdma_flush_close(struct rdma_flush *f)
{
}
#endif

#endif
