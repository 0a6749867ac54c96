/* SPDX-License-Identifier: MIT */
/*
 * rdma_flush: the RDMA READ flush of NIC writes into GPU memory (see
 * rdma_flush.h). The QP is set up as NCCL sets up its gpuFlush QP
 * (net_ib/connect.cc, v2.30.7-1): RC, no receive queue, access
 * LOCAL_WRITE | REMOTE_READ, connected to its own QPN with the port's LID
 * (InfiniBand) or its own GID (RoCE), one READ in flight; the landing
 * buffer is a few host bytes registered LOCAL_WRITE, of which 1 is read.
 */
#define _GNU_SOURCE
#include "rdma_flush.h"

#include <errno.h>
#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A loopback READ takes microseconds; this long means the NIC is stuck. */
#define FLUSH_TIMEOUT_MS 5000

struct rdma_flush {
	struct ibv_pd *pd;     /* the data path's; borrowed */
	struct ibv_mr *target; /* the GPU memory's MR; borrowed */
	const char *base;      /* target's range as READs address it (iova) */
	size_t len;
	struct ibv_cq *cq;     /* owned, polled: only this QP's READs */
	struct ibv_qp *qp;     /* owned */
	struct ibv_mr *land_mr; /* owned: registers land */
	uint32_t land;         /* what the READ brings back; never looked at */
	uint64_t reads;        /* wr_id of the next READ */
};

static int verbs_err(struct diag *d, int err, const char *what)
{
	return diag_set(d, err ? -err : -EIO, "RDMA READ flush: %s: %s", what,
			strerror(err ? err : EIO));
}

static int create(struct rdma_flush *f, struct diag *d)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 1, .max_send_sge = 1 },
	};

	f->cq = ibv_create_cq(f->pd->context, 1, NULL, NULL, 0);
	if (!f->cq)
		return verbs_err(d, errno, "ibv_create_cq");
	ia.send_cq = ia.recv_cq = f->cq;
	f->qp = ibv_create_qp(f->pd, &ia);
	if (!f->qp)
		return verbs_err(d, errno, "ibv_create_qp");
	f->land_mr = ibv_reg_mr(f->pd, &f->land, sizeof(f->land),
				IBV_ACCESS_LOCAL_WRITE);
	if (!f->land_mr)
		return verbs_err(d, errno, "ibv_reg_mr (landing buffer)");
	return 0;
}

/* INIT -> RTR -> RTS, the remote end being the QP itself. */
static int connect_self(struct rdma_flush *f, const struct rdma_flush_path *path,
			struct diag *d)
{
	uint8_t port = path->port;
	int gid_index = path->gid_index;
	struct ibv_port_attr pa;
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = port,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ,
	};
	union ibv_gid gid;
	int ret;

	ret = ibv_query_port(f->pd->context, port, &pa);
	if (ret)
		return verbs_err(d, ret, "ibv_query_port");
	ret = ibv_modify_qp(f->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					       IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (ret)
		return verbs_err(d, ret, "ibv_modify_qp(INIT)");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = pa.active_mtu;
	a.dest_qp_num = f->qp->qp_num;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.port_num = port;
	a.ah_attr.dlid = pa.lid;
	a.ah_attr.sl = (uint8_t)path->sl;
	if (pa.link_layer == IBV_LINK_LAYER_ETHERNET) {
		if (gid_index < 0 || ibv_query_gid(f->pd->context, port, gid_index, &gid))
			return diag_set(d, -EADDRNOTAVAIL,
					"RDMA READ flush: no GID at index %d of port %u",
					gid_index, port);
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = gid;
		a.ah_attr.grh.sgid_index = (uint8_t)gid_index;
		a.ah_attr.grh.hop_limit = 255;
		a.ah_attr.grh.traffic_class = (uint8_t)path->tc;
	}
	ret = ibv_modify_qp(f->qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
					       IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
					       IBV_QP_MAX_DEST_RD_ATOMIC |
					       IBV_QP_MIN_RNR_TIMER);
	if (ret)
		return verbs_err(d, ret, "ibv_modify_qp(RTR, to itself)");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	ret = ibv_modify_qp(f->qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
					       IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
					       IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
	if (ret)
		return verbs_err(d, ret, "ibv_modify_qp(RTS)");
	return 0;
}

int rdma_flush_open(struct rdma_flush **out, struct ibv_pd *pd,
		    struct ibv_mr *target, const void *base, size_t len,
		    const struct rdma_flush_path *path, struct diag *d)
{
	struct rdma_flush *f = calloc(1, sizeof(*f));
	int err;

	*out = NULL;
	if (!f)
		return diag_set(d, -ENOMEM, "out of memory");
	f->pd = pd;
	f->target = target;
	/* not target->addr for a dma-buf MR: that is the dma-buf offset
	 * (0 for a page-aligned arena), and a READ there fails with a
	 * remote access error (rdma-core libibverbs/verbs.c) */
	f->base = base ? base : target->addr;
	f->len = base ? len : target->length;
	err = create(f, d);
	if (!err)
		err = connect_self(f, path, d);
	if (err) {
		rdma_flush_close(f);
		return err;
	}
	*out = f;
	return 0;
}

bool rdma_flush_covers(const struct rdma_flush *f, const void *addr)
{
	return (const char *)addr >= f->base &&
	       (const char *)addr < f->base + f->len;
}

struct ibv_pd *rdma_flush_pd(const struct rdma_flush *f)
{
	return f->pd;
}

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* Busy-poll for the READ's completion: the consumer of the chunk waits
 * for it anyway, and it is a few microseconds away. */
static int wait_read(struct rdma_flush *f, uint64_t id, struct diag *d)
{
	double t0 = now_ms();
	struct ibv_wc wc;
	int n;

	for (;;) {
		n = ibv_poll_cq(f->cq, 1, &wc);
		if (n < 0)
			return diag_set(d, -EIO, "RDMA READ flush: ibv_poll_cq failed");
		if (n && wc.status != IBV_WC_SUCCESS)
			return diag_set(d, -EIO,
					"RDMA READ flush: %s (wc status %d, vendor error 0x%x)%s",
					ibv_wc_status_str(wc.status), wc.status,
					wc.vendor_err,
					wc.status == IBV_WC_REM_ACCESS_ERR ?
					" (GPU memory registered without IBV_ACCESS_REMOTE_READ?)" : "");
		if (n && wc.wr_id == id)
			return 0;
		if (now_ms() - t0 > FLUSH_TIMEOUT_MS)
			return diag_set(d, -ETIMEDOUT,
					"RDMA READ flush: no completion in %d ms",
					FLUSH_TIMEOUT_MS);
	}
}

int rdma_flush_read(struct rdma_flush *f, const void *addr, struct diag *d)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)&f->land, .length = 1, .lkey = f->land_mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = ++f->reads,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_READ,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = {
			.remote_addr = (uintptr_t)(addr ? addr : f->base),
			.rkey = f->target->rkey,
		},
	};
	struct ibv_send_wr *bad;
	int ret;

	if (addr && !rdma_flush_covers(f, addr))
		return diag_set(d, -EINVAL, "RDMA READ flush: %p is outside the registered GPU memory",
				addr);
	ret = ibv_post_send(f->qp, &wr, &bad);
	if (ret)
		return verbs_err(d, ret, "ibv_post_send(RDMA READ)");
	return wait_read(f, wr.wr_id, d);
}

void rdma_flush_close(struct rdma_flush *f)
{
	int rc;

	if (!f)
		return;
	/* each returns the errno value itself on failure (its man page) */
	if (f->qp && (rc = ibv_destroy_qp(f->qp)))
		fprintf(stderr, "gdrlab: RDMA READ flush: ibv_destroy_qp: %s\n", strerror(rc));
	if (f->land_mr && (rc = ibv_dereg_mr(f->land_mr)))
		fprintf(stderr, "gdrlab: RDMA READ flush: ibv_dereg_mr: %s\n", strerror(rc));
	if (f->cq && (rc = ibv_destroy_cq(f->cq)))
		fprintf(stderr, "gdrlab: RDMA READ flush: ibv_destroy_cq: %s\n", strerror(rc));
	free(f);
}
