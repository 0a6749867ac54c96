/* SPDX-License-Identifier: MIT */
/*
 * vp_loopback: RDMA WRITE bandwidth of one NIC from one memory kind to
 * another, over two vp_ctx on the same device connected to each other.
 * The method is perftest's ib_write_bw (post a window of writes, keep it
 * full, bytes over the time from the first post to the last completion),
 * with the window and message size of verbs_path's slots.
 */
#define _GNU_SOURCE
#include "vp_loopback.h"

#include <stdlib.h>
#include <string.h>

#include "vp_internal.h"

#define LB_TRIALS 3

struct vp_loopback {
	struct vp_loopback_config cfg;
	struct vp_ctx *end[2];          /* [0] writes into [1] */
	struct vp_peer_info *info[2];
	uint8_t *pattern, *check;       /* host copies of one message */
	struct ib_config ib;            /* port and GID, as a run's */
};

/* Where a message starts on each side: the data region of the "GPU"
 * arena or the host arena, and the keys that go with it. */
struct lb_buf {
	uint8_t *addr;
	uint32_t lkey, rkey;
};

static struct lb_buf lb_buf(const struct vp_ctx *c, enum vp_side side)
{
	if (side == VP_SIDE_GPU)
		return (struct lb_buf){ c->gpu, c->gpu_mr->lkey, c->gpu_mr->rkey };
	return (struct lb_buf){ c->host, c->host_mr->lkey, c->host_mr->rkey };
}

int vp_loopback_open(struct vp_loopback **out,
		     const struct vp_loopback_config *cfg, struct diag *d)
{
	struct vp_loopback *lb = calloc(1, sizeof(*lb));
	int err = 0;

	*out = NULL;
	if (!lb)
		return diag_set(d, -ENOMEM, "out of memory");
	lb->cfg = *cfg;
	lb->pattern = malloc(cfg->msg);
	lb->check = malloc(cfg->msg);
	for (unsigned i = 0; i < 2; i++)
		lb->info[i] = calloc(1, vp_peer_info_size(2));
	if (!lb->pattern || !lb->check || !lb->info[0] || !lb->info[1])
		err = diag_set(d, -ENOMEM, "out of memory");
	/* the port and GID a run of the job would use (NCCL_IB_*) */
	if (!err)
		err = ib_config_from_env(&lb->ib, d);
	/* Each end's data region and host arena hold depth messages: every
	 * write in flight lands in a place of its own. */
	for (unsigned i = 0; !err && i < 2; i++) {
		struct vp_config vc = {
			.device = cfg->device, .ib = &lb->ib, .rank = i, .nranks = 2,
			.data_bytes = (uint64_t)cfg->depth * cfg->msg,
			.chunk = cfg->msg, .slots = cfg->depth,
			.timeout_ms = cfg->timeout_ms, .abort_fd = -1,
			.mem = cfg->mem, .mem_ctx = cfg->mem_ctx,
		};

		err = vp_open(&lb->end[i], &vc, lb->info[i], d);
	}
	for (unsigned i = 0; !err && i < 2; i++)
		err = vp_connect(lb->end[i], (const struct vp_peer_info *const *)lb->info, d);
	for (size_t i = 0; !err && i < cfg->msg; i++)
		lb->pattern[i] = (uint8_t)(i * 131 + (i >> 12) + 7);
	if (err) {
		vp_loopback_close(lb);
		return err;
	}
	*out = lb;
	return 0;
}

const char *vp_loopback_registration(const struct vp_loopback *lb)
{
	return vp_registration(lb->end[0]);
}

void vp_loopback_close(struct vp_loopback *lb)
{
	if (!lb)
		return;
	vp_close(lb->end[0]);
	vp_close(lb->end[1]);
	free(lb->info[0]);
	free(lb->info[1]);
	free(lb->pattern);
	free(lb->check);
	free(lb);
}

static int fill(struct vp_ctx *c, enum vp_side side, const uint8_t *src,
		size_t off, size_t len)
{
	if (side == VP_SIDE_GPU)
		return vp_data_write(c, off, src, len);
	memcpy((uint8_t *)c->host + off, src, len);
	return 0;
}

static int read_back(struct vp_ctx *c, enum vp_side side, uint8_t *dst,
		     size_t off, size_t len)
{
	const struct vp_mem_ops *m = c->cfg.mem;
	int err = 0;

	if (side == VP_SIDE_HOST) {
		memcpy(dst, (uint8_t *)c->host + off, len);
		return 0;
	}
	/* the NIC wrote GPU memory: order it before the GPU reads it */
	if (m->recv_flush)
		err = m->recv_flush(c->cfg.mem_ctx, (uint8_t *)c->gpu + off, len);
	return err ? err : vp_data_read(c, dst, off, len);
}

static int post(struct vp_ctx *c, struct lb_buf src, struct lb_buf dst,
		size_t msg, unsigned slot, struct diag *d)
{
	struct ibv_sge sge = { .addr = (uintptr_t)(src.addr + (size_t)slot * msg),
			       .length = (uint32_t)msg, .lkey = src.lkey };
	struct ibv_send_wr wr = {
		.wr_id = slot,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = (uintptr_t)(dst.addr + (size_t)slot * msg),
			     .rkey = dst.rkey },
	};
	struct ibv_send_wr *bad;
	int ret = ibv_post_send(c->qp[1], &wr, &bad);

	if (ret)
		return diag_set(d, -ret, "loopback on %s: ibv_post_send(RDMA WRITE): %s",
				c->cfg.device, strerror(ret));
	return 0;
}

/* Completions of the writes in flight: how many finished, or an error. */
static int reap(struct vp_ctx *c, unsigned *done, double *last_us,
		struct diag *d)
{
	struct ibv_wc wc[16];
	int n = ibv_poll_cq(c->cq, 16, wc);

	if (n < 0)
		return diag_set(d, -EIO, "loopback on %s: ibv_poll_cq failed",
				c->cfg.device);
	for (int i = 0; i < n; i++)
		if (wc[i].status != IBV_WC_SUCCESS)
			return diag_set(d, -EIO,
					"loopback on %s: RDMA WRITE failed: %s (wc status %d, vendor error 0x%x)",
					c->cfg.device, ibv_wc_status_str(wc[i].status),
					wc[i].status, wc[i].vendor_err);
	if (n > 0)
		*last_us = vp_now_us();
	*done = (unsigned)n;
	return 0;
}

/* One trial: keep depth writes in flight for cfg.seconds (and at least
 * depth writes), then drain. */
static int trial(struct vp_loopback *lb, struct lb_buf src, struct lb_buf dst,
		 struct vp_loopback_result *r, struct diag *d)
{
	const struct vp_loopback_config *cfg = &lb->cfg;
	struct vp_ctx *c = lb->end[0];
	unsigned long long posted = 0, completed = 0;
	double t0 = vp_now_us(), last = t0, progress = t0;
	int err = 0;

	while (!err) {
		bool more = posted < cfg->depth ||
			    vp_now_us() - t0 < cfg->seconds * 1e6;
		unsigned done = 0;

		while (!err && more && posted - completed < cfg->depth) {
			err = post(c, src, dst, cfg->msg, (unsigned)(posted % cfg->depth), d);
			posted++;
		}
		if (!err)
			err = reap(c, &done, &last, d);
		completed += done;
		if (done)
			progress = last;
		if (!more && completed == posted)
			break;
		if (!err && vp_now_us() - progress > cfg->timeout_ms * 1e3)
			err = diag_set(d, -ETIMEDOUT,
				       "loopback on %s: no RDMA WRITE completed for %d ms",
				       cfg->device, cfg->timeout_ms);
	}
	if (err) {
		/* drain what is still in flight before the QPs go away */
		unsigned done;
		double when;
		struct diag ignore = { "" };

		while (completed < posted && !reap(c, &done, &when, &ignore) &&
		       vp_now_us() - progress < cfg->timeout_ms * 1e3)
			completed += done;
		return err;
	}
	r->writes = completed;
	r->seconds = (last - t0) * 1e-6;
	r->bw = completed * (double)cfg->msg / r->seconds;
	return 0;
}

static int cmp_result(const void *a, const void *b)
{
	double x = ((const struct vp_loopback_result *)a)->bw;
	double y = ((const struct vp_loopback_result *)b)->bw;

	return (x > y) - (x < y);
}

static const char *side_name(enum vp_side s)
{
	return s == VP_SIDE_GPU ? "GPU" : "host";
}

int vp_loopback_write_bw(struct vp_loopback *lb, enum vp_side src,
			 enum vp_side dst, struct vp_loopback_result *r,
			 struct diag *d)
{
	const struct vp_loopback_config *cfg = &lb->cfg;
	struct lb_buf s = lb_buf(lb->end[0], src), t = lb_buf(lb->end[1], dst);
	struct vp_loopback_result tr[LB_TRIALS];
	size_t last = (size_t)(cfg->depth - 1) * cfg->msg;
	int err = 0;

	for (unsigned i = 0; !err && i < cfg->depth; i++)
		err = fill(lb->end[0], src, lb->pattern, (size_t)i * cfg->msg, cfg->msg);
	for (unsigned i = 0; !err && i < LB_TRIALS; i++) {
		/* a stale copy would pass the check: clear the last slot */
		memset(lb->check, 0, cfg->msg);
		err = fill(lb->end[1], dst, lb->check, last, cfg->msg);
		if (!err)
			err = trial(lb, s, t, &tr[i], d);
		if (!err)
			err = read_back(lb->end[1], dst, lb->check, last, cfg->msg);
		if (!err && memcmp(lb->check, lb->pattern, cfg->msg))
			err = diag_set(d, -EIO,
				       "loopback on %s: %s -> %s: the bytes read back differ from those written",
				       cfg->device, side_name(src), side_name(dst));
	}
	if (err) {
		if (!d->msg[0])
			diag_set(d, err, "loopback on %s: %s memory: %s", cfg->device,
				 cfg->mem->name,
				 vp_mem_strerror(cfg->mem, cfg->mem_ctx, err));
		return err;
	}
	qsort(tr, LB_TRIALS, sizeof(tr[0]), cmp_result);
	*r = tr[LB_TRIALS / 2];
	return 0;
}
