/* SPDX-License-Identifier: MIT */
/*
 * verbs_path: the RDMA data path, written once for every memory kind.
 *
 * One rank opens an RDMA device, creates one RC queue pair per peer (a full
 * mesh: emu runs a handful of ranks), registers two arenas once ("GPU"
 * memory through a memory ops table, and host bounce buffers) and moves
 * chunks with RDMA WRITE WITH IMMEDIATE into the receiver's slot ring.
 * The receiver hands each slot back with a zero-byte write-with-immediate
 * (a credit), as NCCL's net_ib transport returns its FIFO slots.
 *
 *   direct: NIC reads the sender's "GPU" buffer, writes the receiver's
 *           "GPU" scratch slot
 *   staged: copy "GPU" -> host send slot, NIC writes the receiver's host
 *           slot, the receiver copies it into its "GPU" scratch slot
 *
 * Memory kinds are a small ops table, as perftest's src/memory.h and
 * libfabric's src/hmem.c: host memory for emu, CUDA memory for real.
 * Errors: 0 or a negative errno; verbs failures are translated here, once,
 * with the verbs call and ibv_wc_status_str in the message.
 */
#ifndef GDRLAB_VERBS_PATH_H
#define GDRLAB_VERBS_PATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "ib_config.h"
#include "plan.h"
#include "records.h"
#include "trace.h"

struct ibv_pd;
struct ibv_mr;

/* Memory that the collectives treat as "GPU" memory. Every op has finished
 * with its buffers when it returns: a slot is handed back right after. */
struct vp_mem_ops {
	const char *name;
	int (*alloc)(void *ctx, size_t len, void **ptr);
	void (*free)(void *ctx, void *ptr, size_t len);
	/* host -> "GPU" and "GPU" -> host (cudaMemcpy in real/) */
	int (*copy_in)(void *ctx, void *gpu, const void *host, size_t len);
	int (*copy_out)(void *ctx, void *host, const void *gpu, size_t len);
	/* Optional: the same copies started, to be tested for completion,
	 * so that several are in flight (one per bounce slot; CUDA's run on
	 * two streams). *ticket names the copy; copy_test is 0 once it is
	 * done with both buffers (the ticket is then free), -EAGAIN while it
	 * runs, or its error. NULL: copy_in/copy_out, one at a time. */
	int (*copy_in_start)(void *ctx, void *gpu, const void *host, size_t len,
			     unsigned *ticket);
	int (*copy_out_start)(void *ctx, void *host, const void *gpu, size_t len,
			      unsigned *ticket);
	int (*copy_test)(void *ctx, unsigned ticket);
	/* "GPU" -> "GPU" (a device-to-device copy in real/) */
	int (*copy_dev)(void *ctx, void *dst, const void *src, size_t len);
	/* "GPU" dst[i] += src[i] for @count elements of @dtype (a kernel in
	 * real/); -ENOTSUP for a dtype it cannot sum. */
	int (*reduce)(void *ctx, void *dst, const void *src, size_t count,
		      enum trace_dtype dtype);
	/* Optional, NULL for host behaviour (real/README.md asked for them):
	 * register the "GPU" arena (dma-buf, peermem; default ibv_reg_mr),
	 * saying how in @how; */
	int (*reg_mr)(void *ctx, struct ibv_pd *pd, void *ptr, size_t len,
		      int access, struct ibv_mr **mr, const char **how);
	/* the bounce arena (pinned host memory; default posix_memalign); */
	int (*host_alloc)(void *ctx, size_t len, void **ptr);
	void (*host_free)(void *ctx, void *ptr, size_t len);
	/* make the chunk the NIC just wrote at [ptr, ptr + len) of "GPU"
	 * memory visible to copy_dev and reduce (GPUDirect RDMA's flush); */
	int (*recv_flush)(void *ctx, const void *ptr, size_t len);
	/* the flush's own resources on the data path's PD (NCCL's is an RC
	 * QP connected to itself, on the port, GID, traffic class @tc and
	 * service level @sl the data QPs use): attached once the "GPU"
	 * arena is registered as @gpu_mr, detached before any QP, MR or
	 * the PD goes; */
	int (*flush_attach)(void *ctx, struct ibv_pd *pd, struct ibv_mr *gpu_mr,
			    uint8_t port, int gid_index, unsigned tc, unsigned sl);
	void (*flush_detach)(void *ctx, struct ibv_pd *pd);
	/* the vendor's message for the last failure (default strerror). */
	const char *(*last_error)(void *ctx);
};

extern const struct vp_mem_ops vp_host_mem_ops; /* mem_host.c */

/* What it takes to find the queue pair of another rank. */
struct vp_peer_info {
	uint8_t gid[16];
	uint16_t lid;      /* InfiniBand: the port's LID (0 on RoCE) */
	uint8_t global;    /* address by GID (RoCE: always) */
	uint8_t mtu;       /* enum ibv_mtu of its port: the path takes the
			    * smaller of both, as NCCL's net_ib does */
	uint32_t psn;
	uint64_t gpu_addr, host_addr;
	uint32_t gpu_rkey, host_rkey;
	uint32_t qpn[]; /* qpn[r]: this rank's QP that talks to rank r */
};

size_t vp_peer_info_size(unsigned nranks);

struct vp_config {
	const char *device;   /* "rxe0" */
	const struct ib_config *ib; /* port, GID, TC, SL; NULL: defaults */
	unsigned rank, nranks;
	uint64_t data_bytes;  /* "GPU" data region (inputs and outputs) */
	uint64_t chunk;       /* bytes per slot */
	unsigned slots;       /* slots per peer and direction */
	int timeout_ms;       /* no progress for this long: -ETIMEDOUT */
	int spin_us;          /* busy-poll this long with nothing moving
			       * before sleeping on the completion channel;
			       * 0: sleep at once (CPUs shared by many ranks) */
	int abort_fd;         /* readable when the run is aborted, or -1 */
	bool gpu_mr_optional; /* no NIC side of the plan touches "GPU"
			       * memory: a failed reg_mr is said, not fatal
			       * (a GPU without GPUDirect RDMA still runs
			       * the staged path) */
	const struct vp_mem_ops *mem;
	void *mem_ctx;
};

/* Busy time per stage kind, measured by one rank. */
struct vp_times {
	double us[STAGE_KIND_COUNT];
	uint64_t bytes[STAGE_KIND_COUNT];
};

struct vp_ctx;

double vp_now_us(void); /* CLOCK_MONOTONIC */

/* Open the device, allocate and register, create QPs; fill @mine. */
int vp_open(struct vp_ctx **out, const struct vp_config *cfg,
	    struct vp_peer_info *mine, struct diag *d);
/* Bring every QP to RTS against the peers' infos (all, indexed by rank). */
int vp_connect(struct vp_ctx *c, const struct vp_peer_info *const *all,
	       struct diag *d);
/* Tear down everything; keeps going after a failure. NULL is fine. */
void vp_close(struct vp_ctx *c);

/* Host <-> the rank's "GPU" data region (data_bytes long), through the
 * memory ops: how inputs are filled and outputs checked. */
int vp_data_write(struct vp_ctx *c, uint64_t off, const void *host, size_t len);
int vp_data_read(struct vp_ctx *c, void *host, uint64_t off, size_t len);
int vp_data_copy(struct vp_ctx *c, uint64_t dst, uint64_t src, size_t len);

enum vp_consume {
	VP_COPY,   /* the received chunk lands at dst */
	VP_REDUCE, /* dst += received chunk */
};

/*
 * One step of a collective for this rank: send @send_len bytes at
 * @send_off of the data region to @send_to while receiving @recv_len
 * bytes from @recv_from into @recv_off, chunked and pipelined through the
 * slots. -1 for no peer. With @forward (a broadcast chain), chunk k is
 * sent from the receive position only once it has arrived.
 * @staged_send / @staged_recv choose the path of each side (the plan's).
 */
struct vp_step {
	int send_to, recv_from;
	uint64_t send_off, send_len;
	uint64_t recv_off, recv_len;
	enum vp_consume consume;
	enum trace_dtype dtype;
	bool forward;
	bool staged_send;        /* my side copies into a host send slot */
	bool staged_send_remote; /* the receiver takes it in host slots */
	bool staged_recv;        /* mine arrive in host slots: copy in */
	bool intra_send, intra_recv; /* same node: time goes to STAGE_INTRA */
};

int vp_step_run(struct vp_ctx *c, const struct vp_step *s, struct vp_times *t,
		struct diag *d);

/* Which rank's abort message ended the run (set by vp_step_run when
 * abort_fd fired); the caller reads the message itself. */
bool vp_aborted(const struct vp_ctx *c);

/* The port, GID and path MTU in use (the MTU once vp_connect ran). */
const struct records_link *vp_link(const struct vp_ctx *c);

/* How the "GPU" arena was registered: "host", or what reg_mr said. */
const char *vp_registration(const struct vp_ctx *c);

/* The memory ops' message for @err: last_error when it has one. */
const char *vp_mem_strerror(const struct vp_mem_ops *m, void *ctx, int err);

/* Device names in order; caller frees with vp_free_names. -ENODEV when
 * there is none, with the reason in @d. */
int vp_list_devices(char ***names, unsigned *count, struct diag *d);
void vp_free_names(char **names, unsigned count);

#endif
