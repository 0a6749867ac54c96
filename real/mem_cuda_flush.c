/* SPDX-License-Identifier: MIT */
/*
 * mem_cuda_flush: making the NIC's writes into GPU memory visible before
 * the GPU reads them (see mem_cuda.h for the rule). Which way is decided
 * once per device; the RDMA READ needs a QP on the data path's PD, which
 * the data path hands over with mem_cuda_flush_attach (rdma_flush.c does
 * the verbs).
 */
#include "mem_cuda_priv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdma_flush.h"

/* Whether NCCL variable @name is set to a non-zero number, as NCCL's
 * NCCL_PARAM reads it (strtoll: "abc" is 0). */
static bool nccl_flag(const char *name, const char **value)
{
	*value = getenv(name);
	return *value && **value && strtol(*value, NULL, 10) != 0;
}

/*
 * NONE where the device orders NIC writes for its own context; without
 * the attribute (CUDA < 11.3), NCCL's rule: "Flush is required on Ampere
 * and earlier" (paths.cc, ncclTopoNeedFlush, v2.30.7-1). Else the driver's
 * flush where it has one for the host, else NCCL's RDMA READ.
 * NCCL_NET_FORCE_FLUSH makes NCCL flush with the READ on every GPU
 * (ncclTopoNeedFlush returns "always" first); NCCL_GDR_FLUSH_DISABLE
 * wins over it, as net_ib builds no flush QP then (connect.cc,
 * flushEnabled).
 */
void mem_cuda_flush_init(struct mem_cuda *m)
{
	const struct cu_api *cu = m->cu;
	const char *off, *force;
	int order = 0, opts = 0;
	bool have;

	/* NCCL's switch (net_ib/connect.cc, IbGdrFlushDisable): a user who
	 * runs NCCL so gets the same here, and is told what it means */
	if (nccl_flag("NCCL_GDR_FLUSH_DISABLE", &off)) {
		m->flush = MEM_CUDA_FLUSH_NONE;
		snprintf(m->flush_why, sizeof(m->flush_why),
			 "none: NCCL_GDR_FLUSH_DISABLE=%s (the GPU may read a chunk before the NIC's writes land)",
			 off);
		return;
	}
	if (nccl_flag("NCCL_NET_FORCE_FLUSH", &force)) {
		m->flush = MEM_CUDA_FLUSH_READ;
		snprintf(m->flush_why, sizeof(m->flush_why),
			 "RDMA READ over a loopback QP: NCCL_NET_FORCE_FLUSH=%s (NCCL then flushes so on every GPU)",
			 force);
		return;
	}
	have = !cu->DeviceGetAttribute(&order, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING,
				       m->dev);

	if (have ? order >= CU_GPU_DIRECT_RDMA_WRITES_ORDERING_OWNER : m->cc_major >= 9) {
		m->flush = MEM_CUDA_FLUSH_NONE;
		if (have)
			snprintf(m->flush_why, sizeof(m->flush_why),
				 "none: the GPU orders NIC writes itself (GPU_DIRECT_RDMA_WRITES_ORDERING %d)",
				 order);
		else
			snprintf(m->flush_why, sizeof(m->flush_why),
				 "none: compute capability 9.0 or newer (NCCL's rule; the driver has no ordering attribute)");
		return;
	}
	if (cu->FlushGPUDirectRDMAWrites &&
	    !cu->DeviceGetAttribute(&opts, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS,
				    m->dev) &&
	    (opts & CU_FLUSH_GPU_DIRECT_RDMA_WRITES_OPTION_HOST)) {
		m->flush = MEM_CUDA_FLUSH_CUDA;
		snprintf(m->flush_why, sizeof(m->flush_why),
			 "cuFlushGPUDirectRDMAWrites (the GPU does not order NIC writes itself)");
		return;
	}
	m->flush = MEM_CUDA_FLUSH_READ;
	snprintf(m->flush_why, sizeof(m->flush_why),
		 "RDMA READ over a loopback QP, as NCCL (the driver offers no cuFlushGPUDirectRDMAWrites for the host)");
}

const char *mem_cuda_flush_name(const struct mem_cuda *m)
{
	return m->flush_why;
}

void mem_cuda_reg_note(struct mem_cuda *m, const struct ibv_pd *pd,
		       const struct ibv_mr *mr, const void *base, size_t len)
{
	struct mem_cuda_reg *r = NULL;

	for (unsigned i = 0; i < MEM_CUDA_FLUSH_PDS && !r; i++)
		if (m->regs[i].pd == pd)
			r = &m->regs[i];
	for (unsigned i = 0; i < MEM_CUDA_FLUSH_PDS && !r; i++)
		if (!m->regs[i].pd)
			r = &m->regs[i];
	if (!r) { /* full: the oldest goes (the data path has one PD) */
		memmove(&m->regs[0], &m->regs[1], sizeof(m->regs) - sizeof(m->regs[0]));
		r = &m->regs[MEM_CUDA_FLUSH_PDS - 1];
	}
	*r = (struct mem_cuda_reg){ pd, mr, base, len };
}

const void *mem_cuda_reg_range(const struct mem_cuda *m, const struct ibv_pd *pd,
			       const struct ibv_mr *mr, size_t *len)
{
	for (unsigned i = 0; i < MEM_CUDA_FLUSH_PDS; i++) {
		if (m->regs[i].pd == pd && m->regs[i].mr == mr && pd) {
			*len = m->regs[i].len;
			return m->regs[i].base;
		}
	}
	*len = 0;
	return NULL;
}

int mem_cuda_flush_attach(void *ctx, struct ibv_pd *pd, struct ibv_mr *mr,
			  uint8_t port, int gid_index, unsigned tc, unsigned sl)
{
	struct mem_cuda *m = ctx;
	struct rdma_flush **slot = NULL;
	const void *base;
	size_t len;

	if (m->flush != MEM_CUDA_FLUSH_READ)
		return 0; /* NCCL too builds its flush QP only when it flushes */
	for (unsigned i = 0; i < MEM_CUDA_FLUSH_PDS; i++) {
		if (m->flushers[i] && rdma_flush_pd(m->flushers[i]) == pd)
			return diag_set(&m->err, -EEXIST,
					"RDMA READ flush: this PD has its QP already");
		if (!m->flushers[i] && !slot)
			slot = &m->flushers[i];
	}
	if (!slot)
		return diag_set(&m->err, -ENOSPC,
				"RDMA READ flush: %d PDs attached already", MEM_CUDA_FLUSH_PDS);
	/* the READ names the iova, which a dma-buf MR does not carry */
	base = mem_cuda_reg_range(m, pd, mr, &len);
	return rdma_flush_open(slot, pd, mr, base, len,
			       &(struct rdma_flush_path){ port, gid_index, tc, sl }, &m->err);
}

void mem_cuda_flush_detach(void *ctx, struct ibv_pd *pd)
{
	struct mem_cuda *m = ctx;

	for (unsigned i = 0; i < MEM_CUDA_FLUSH_PDS; i++) {
		if (m->flushers[i] && rdma_flush_pd(m->flushers[i]) == pd) {
			rdma_flush_close(m->flushers[i]);
			m->flushers[i] = NULL;
		}
	}
}

void mem_cuda_flush_close(struct mem_cuda *m)
{
	for (unsigned i = 0; i < MEM_CUDA_FLUSH_PDS; i++) {
		rdma_flush_close(m->flushers[i]);
		m->flushers[i] = NULL;
	}
}

/* The QP whose GPU MR holds @ptr, else any attached: PCIe orders a READ
 * behind the NIC's writes into the same GPU whatever address it reads. */
static struct rdma_flush *flusher_for(struct mem_cuda *m, const void *ptr,
				      bool *covers)
{
	struct rdma_flush *any = NULL;

	*covers = false;
	for (unsigned i = 0; i < MEM_CUDA_FLUSH_PDS; i++) {
		if (!m->flushers[i])
			continue;
		if (ptr && rdma_flush_covers(m->flushers[i], ptr)) {
			*covers = true;
			return m->flushers[i];
		}
		if (!any)
			any = m->flushers[i];
	}
	return any;
}

/* No QP to read with: nothing orders the writes. Said once, counted. */
static int unflushed(struct mem_cuda *m)
{
	if (!m->unflushed++)
		fprintf(stderr,
			"gdrlab: %s: NIC writes into GPU memory need an RDMA READ flush here, but the data path attached no queue pair for it (mem_cuda_flush_attach): received chunks are read unflushed\n",
			m->name);
	return 0;
}

static int read_flush(struct mem_cuda *m, const void *ptr)
{
	bool covers;
	struct rdma_flush *f = flusher_for(m, ptr, &covers);
	int err;

	if (!f)
		return unflushed(m);
	err = rdma_flush_read(f, covers ? ptr : NULL, &m->err);
	if (!err)
		m->flushes++;
	return err;
}

int mem_cuda_recv_flush_at(void *ctx, const void *ptr, size_t len)
{
	struct mem_cuda *m = ctx;
	int err;

	(void)len; /* NCCL reads one byte of the buffer, whatever its size */
	switch (m->flush) {
	case MEM_CUDA_FLUSH_CUDA:
		/* the target is the context current on this thread: ours */
		err = mem_cuda_current(m);
		if (!err)
			err = mem_cuda_check(m, m->cu->FlushGPUDirectRDMAWrites(
					     CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_CTX,
					     CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_OWNER),
					     "cuFlushGPUDirectRDMAWrites");
		return err;
	case MEM_CUDA_FLUSH_READ:
		return read_flush(m, ptr);
	default:
		return 0;
	}
}

int mem_cuda_recv_flush(void *ctx)
{
	return mem_cuda_recv_flush_at(ctx, NULL, 0);
}
