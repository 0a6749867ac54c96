/* SPDX-License-Identifier: MIT */
/*
 * mem_cuda: CUDA memory for the verbs data path (emu/verbs_path.h's
 * struct vp_mem_ops), the table emu fills with host memory.
 *
 * - "GPU" buffers come from ONE device arena, carved with a bump pointer:
 *   BAR1 is 256 MB on many cards and each registration pins its own BAR1
 *   window, so NCCL and the notes (real-gpudirect.md) register one pool.
 * - Staged copies (host <-> GPU, mem_cuda_copy.c) are cuMemcpy*Async on
 *   two streams taken in turn, each bracketed by events of its own: one
 *   may be started while another runs (mem_cuda_copy_*_start), and its
 *   end event says when its bounce buffer is free. The vp ops wait for
 *   theirs; the event time is kept for calibration (nvbandwidth's method).
 * - Pinned host buffers (cuMemHostAlloc) for staging: only pinned memory
 *   makes the copies truly asynchronous DMA.
 * - Sums run the kernels of reduce.cu (cuda_reduce.c).
 * - NIC writes into GPU memory are made visible before the GPU reads them
 *   (mem_cuda_flush.c): by cuFlushGPUDirectRDMAWrites, else by an RDMA
 *   READ as NCCL does, where the GPU does not order them itself.
 *
 * The vp ops return only an errno; the message of the last failure is in
 * mem_cuda_error().
 */
#ifndef GDRLAB_MEM_CUDA_H
#define GDRLAB_MEM_CUDA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuda_driver.h"
#include "cuda_reduce.h"
#include "verbs_path.h"

#define MEM_CUDA_ALIGN (64u << 10) /* GPU page: what BAR1 maps */
#define MEM_CUDA_STREAMS 2         /* staged copies alternate between them */
#define MEM_CUDA_COPIES 64         /* staged copies in flight at once */
#define MEM_CUDA_FLUSH_PDS 4       /* PDs with a flush QP (calibration: 2) */

struct rdma_flush;
struct ibv_pd;
struct ibv_mr;

/* GPU memory gpu_reg_mr registered on a PD: the range its MR covers as
 * the NIC addresses it (the iova), which a dma-buf MR does not say
 * (its ibv_mr.addr is the dma-buf offset: rdma-core libibverbs/verbs.c,
 * ibv_reg_dmabuf_mr). The pointers are borrowed, only compared. */
struct mem_cuda_reg {
	const struct ibv_pd *pd;
	const struct ibv_mr *mr;
	const void *base;
	size_t len;
};

/* How NIC writes into GPU memory are ordered before the GPU reads them. */
enum mem_cuda_flush {
	MEM_CUDA_FLUSH_NONE, /* the GPU orders them for its own context */
	MEM_CUDA_FLUSH_CUDA, /* cuFlushGPUDirectRDMAWrites */
	MEM_CUDA_FLUSH_READ, /* an RDMA READ over a loopback QP (NCCL's) */
};

/* One staged copy: its stream, events, and the GPU range it touches
 * (later GPU work on an overlapping range waits for it). */
struct mem_cuda_copy {
	bool busy;
	unsigned stream; /* index into copy_stream */
	CUevent start, done;
	CUdeviceptr gpu;
	size_t len;
};

struct mem_cuda {
	struct cu_api *cu; /* owned */
	int ordinal;
	CUdevice dev;
	CUcontext ctx; /* the device's primary context, retained */
	char name[96];
	int cc_major, cc_minor;
	CUstream stream; /* kernels and device-to-device copies */
	CUevent ev_start, ev_end;
	CUstream copy_stream[MEM_CUDA_STREAMS]; /* staged copies */
	unsigned next_stream;
	struct mem_cuda_copy copies[MEM_CUDA_COPIES];
	struct cuda_reduce red;
	bool red_ok;
	/* the arena: [arena, arena + arena_len), used up to arena_used */
	CUdeviceptr arena;
	size_t arena_len, arena_used, arena_min;
	/* receive-side ordering (mem_cuda_flush.c) */
	enum mem_cuda_flush flush;
	char flush_why[128];                /* how that was decided */
	struct rdma_flush *flushers[MEM_CUDA_FLUSH_PDS]; /* owned, one per PD */
	struct mem_cuda_reg regs[MEM_CUDA_FLUSH_PDS]; /* the last MR per PD */
	unsigned long long flushes, unflushed; /* READs done; chunks with no QP */
	double last_copy_us; /* event time of the last copy or sum */
	struct diag err;     /* the last failure's message */
};

extern const struct vp_mem_ops mem_cuda_ops; /* ctx: struct mem_cuda * */

/*
 * Open device @ordinal: the driver, its primary context (current on this
 * thread), the streams, events and the kernels. The arena is allocated on
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
 * The vp ops' staged copies (mem_cuda_copy.c): a copy started and waited
 * for, so each returns once it is done with both buffers, its event time
 * in last_copy_us.
 */
int mem_cuda_copy_in(void *ctx, void *gpu, const void *host, size_t len);
int mem_cuda_copy_out(void *ctx, void *host, const void *gpu, size_t len);

/*
 * Staged copies that return at once, for a data path that keeps one in
 * flight per bounce buffer: on the two copy streams in turn, so that two
 * run at the same time (an H2D and a D2H on their own copy engines, or
 * two of one direction hiding each other's fixed cost). *@ticket names
 * the copy. It first waits, on the GPU, for in-flight copies whose GPU
 * range overlaps its own; the host buffer is the caller's to leave alone
 * until mem_cuda_copy_test says 0. -EBUSY when MEM_CUDA_COPIES are in
 * flight.
 */
int mem_cuda_copy_in_start(void *ctx, void *gpu, const void *host, size_t len,
			   unsigned *ticket);
int mem_cuda_copy_out_start(void *ctx, void *host, const void *gpu, size_t len,
			    unsigned *ticket);
/* 0 once copy @ticket is done (the ticket is then free, last_copy_us its
 * event time), -EAGAIN while it runs, or its error (ticket freed too). */
int mem_cuda_copy_test(void *ctx, unsigned ticket);
/* The same, waiting until it is done. */
int mem_cuda_copy_wait(void *ctx, unsigned ticket);

/*
 * Make NIC writes into GPU memory visible before a kernel or copy reads
 * them (mem_cuda_flush.c), as m->flush says: nothing where the GPU orders
 * them (CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING at OWNER, or,
 * without the attribute, compute capability 9.0 and up, NCCL's rule in
 * paths.cc ncclTopoNeedFlush); cuFlushGPUDirectRDMAWrites where the
 * driver offers it for the host (FLUSH_WRITES_OPTIONS); else an RDMA READ
 * of the chunk at @ptr, NCCL's ncclIbIflush, on the QP attached for the
 * PD whose GPU MR holds it. With no QP attached (the data path has not
 * called mem_cuda_flush_attach) the chunk is counted in m->unflushed and
 * said once on stderr: there is nothing else that orders it.
 */
int mem_cuda_recv_flush_at(void *ctx, const void *ptr, size_t len);
/* The same for the chunk the data path does not name: any attached QP
 * reads the first byte of its MR (PCIe orders the READ behind the NIC's
 * writes into the same GPU whatever the address). The vp op of today. */
int mem_cuda_recv_flush(void *ctx);

/*
 * The data path's side of the READ flush, once per PD: @mr is the "GPU"
 * arena registered on @pd (by gpu_reg_mr_op, which asks for REMOTE_READ
 * when the READ flush is in use), @port, @gid_index, @tc and @sl those its
 * QPs use (NCCL's flush QP takes the data QPs' class and level:
 * net_ib/connect.cc, v2.30.7-1).
 * Builds the loopback QP when m->flush is READ, else does nothing. Detach
 * before the PD or the MR goes (the QP lives on the PD).
 */
int mem_cuda_flush_attach(void *ctx, struct ibv_pd *pd, struct ibv_mr *mr,
			  uint8_t port, int gid_index, unsigned tc, unsigned sl);
void mem_cuda_flush_detach(void *ctx, struct ibv_pd *pd);
/*
 * gpu_reg_mr's note of what it registered: @mr on @pd covers [@base,
 * @base + @len) (a newer MR on the same PD replaces it); and the lookup
 * flush_attach does: the range of @mr on @pd, or NULL where it was not
 * registered by gpu_reg_mr (then the MR's own addr and length hold).
 */
void mem_cuda_reg_note(struct mem_cuda *m, const struct ibv_pd *pd,
		       const struct ibv_mr *mr, const void *base, size_t len);
const void *mem_cuda_reg_range(const struct mem_cuda *m, const struct ibv_pd *pd,
			       const struct ibv_mr *mr, size_t *len);
/* "none (...)", "cuFlushGPUDirectRDMAWrites", "RDMA READ (...)". */
const char *mem_cuda_flush_name(const struct mem_cuda *m);

/*
 * A dma-buf fd for [ptr, ptr + len) of device memory: the range handed to
 * the driver is page aligned (down and up), *@offset is ptr - aligned
 * (perftest src/cuda_memory.c, NCCL net_ib). The caller closes *@fd.
 */
int mem_cuda_dmabuf_export(struct mem_cuda *m, void *ptr, size_t len,
			   int *fd, size_t *offset, struct diag *d);

#endif
