/* SPDX-License-Identifier: MIT */
/*
 * One step of a collective on the verbs path: chunks out to one peer and
 * in from another at the same time, several chunks in flight, each slot
 * handed back by a credit, as NCCL's net_ib send/recv FIFO does.
 *
 * The loop busy-polls the CQ, as perftest and NCCL's proxy do: a wake-up
 * from the completion channel costs more than a small message's whole
 * round trip (204 us against ib_write_lat's 22 us on rxe in the VM).
 * Spinning yields the CPU once nothing has moved for VP_SPIN_FREE_US, so
 * that ranks sharing CPUs still progress, and is bounded: after
 * cfg.spin_us with nothing moving it arms the CQ and sleeps in poll() on
 * the completion channel and the abort fd.
 * No progress for cfg.timeout_ms ends the step with -ETIMEDOUT.
 */
#define _GNU_SOURCE
#include "vp_internal.h"

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#define VP_SPIN_FREE_US 100 /* idle spin before yielding the CPU */
#define VP_CLOCK_TURNS 32 /* idle turns between the loop's clock reads */
#define VP_MAX_SLOTS 64 /* staging.buffers is at most 64 (topology_yaml.c) */

/* Started staged copies of one direction, and their busy span. */
struct copies {
	uint64_t started;            /* chunks whose copy was started */
	unsigned ticket[VP_MAX_SLOTS]; /* [chunk % VP_MAX_SLOTS] */
	unsigned running;
	double t0;                   /* when running went from 0 to 1 */
};

struct step_state {
	const struct vp_step *s;
	uint64_t nsend, nrecv; /* chunks */
	uint64_t sent, got;
	uint64_t send_base;    /* out[send_to].posted at the start */
	struct copies out, in; /* staged: GPU -> bounce, bounce -> GPU */
	struct vp_times *t;
};

static uint64_t nchunks(uint64_t len, uint64_t chunk)
{
	return (len + chunk - 1) / chunk;
}

static uint64_t chunk_len(uint64_t len, uint64_t chunk, uint64_t k)
{
	uint64_t left = len - k * chunk;

	return left < chunk ? left : chunk;
}

static bool async_copies(const struct vp_mem_ops *m)
{
	return m->copy_in_start && m->copy_out_start && m->copy_test;
}

static void copy_started(struct copies *q, unsigned ticket)
{
	q->ticket[q->started % VP_MAX_SLOTS] = ticket;
	if (q->running++ == 0)
		q->t0 = vp_now_us();
	q->started++;
}

/*
 * Whether the copy of chunk @k is done: 0, -EAGAIN while it runs, or its
 * error. The stage's time is the span with any copy of it running, not
 * the sum of the copies, which overlap.
 */
static int copy_done(struct vp_ctx *c, struct copies *q, uint64_t k,
		     enum stage_kind stage, uint64_t len, struct vp_times *t)
{
	int err = c->cfg.mem->copy_test(c->cfg.mem_ctx, q->ticket[k % VP_MAX_SLOTS]);

	if (err == -EAGAIN)
		return err;
	if (--q->running == 0)
		t->us[stage] += vp_now_us() - q->t0;
	t->bytes[stage] += len;
	return err;
}

/* A staged send's copy into its bounce slot failed, starting or done. */
static int copy_out_failed(struct vp_ctx *c, int err, struct diag *d)
{
	const struct vp_mem_ops *m = c->cfg.mem;

	return diag_set(d, err, "rank %u: %s copy to host: %s", c->cfg.rank, m->name,
			vp_mem_strerror(m, c->cfg.mem_ctx, err));
}

static uint64_t send_src(const struct vp_ctx *c, const struct vp_step *s,
			 uint64_t k)
{
	return (s->forward ? s->recv_off : s->send_off) + k * c->cfg.chunk;
}

/*
 * Start the copies into bounce slots of every chunk that could be posted
 * once copied: a credit for its slot at the receiver, a bounce slot whose
 * write has completed, and (a chain) its data arrived.
 */
static int stage_out(struct vp_ctx *c, struct step_state *st, bool *moved,
		     struct diag *d)
{
	const struct vp_step *s = st->s;
	unsigned peer = (unsigned)s->send_to;
	struct vp_out *o = &c->out[peer];
	const struct vp_mem_ops *m = c->cfg.mem;

	while (st->out.started < st->nsend) {
		uint64_t k = st->out.started, seq = o->posted + (k - st->sent);
		uint64_t len = chunk_len(s->send_len, c->cfg.chunk, k);
		unsigned ticket;
		int err;

		if (seq >= o->credits || seq - o->completed >= c->cfg.slots ||
		    (s->forward && k >= st->got))
			break;
		err = m->copy_out_start(c->cfg.mem_ctx,
					(uint8_t *)c->host + vp_slot_off(c, peer, seq),
					(uint8_t *)c->gpu + send_src(c, s, k), len, &ticket);
		if (err == -EBUSY)
			break; /* the memory's own limit: one finishes first */
		if (err)
			return copy_out_failed(c, err, d);
		copy_started(&st->out, ticket);
		*moved = true;
	}
	return 0;
}

/* The bounce slot of chunk st->sent, filled: 0, -EAGAIN, or an error. */
static int bounce_ready(struct vp_ctx *c, struct step_state *st, uint64_t len,
			uint8_t *bounce, bool *moved, struct diag *d)
{
	const struct vp_mem_ops *m = c->cfg.mem;
	int err;

	if (!async_copies(m)) {
		double t0 = vp_now_us();

		err = m->copy_out(c->cfg.mem_ctx, bounce,
				  (uint8_t *)c->gpu + send_src(c, st->s, st->sent), len);
		st->t->us[STAGE_D2H] += vp_now_us() - t0;
		st->t->bytes[STAGE_D2H] += len;
	} else {
		err = stage_out(c, st, moved, d);
		if (err)
			return err;
		if (st->out.started == st->sent)
			return -EAGAIN;
		err = copy_done(c, &st->out, st->sent, STAGE_D2H, len, st->t);
		if (err == -EAGAIN)
			return err;
	}
	return err ? copy_out_failed(c, err, d) : 0;
}

/* Whether a write of @len bytes goes inline: its bytes taken from the
 * work request at the post, its buffer free again at once. */
static bool sent_inline(const struct vp_ctx *c, uint64_t len)
{
	return len && len <= c->max_inline;
}

/*
 * Post a write to @peer, signaled when @signal or when the QP's send
 * queue would otherwise fill with unsignaled ones (their slots are freed
 * by a later signaled write's completion). Its completion says every
 * data write posted to @peer as of it has completed (handle_wc): as
 * perftest moderates completions (--cq-mod), most writes make none, so
 * a rank that sleeps on the completion channel is woken by what it
 * waits for, not by each write's acknowledgement.
 */
static int post_write(struct vp_ctx *c, unsigned peer, enum vp_wr_kind kind,
		      void *local, uint32_t lkey, uint64_t len,
		      uint64_t raddr, uint32_t rkey, uint32_t imm, bool signal,
		      struct diag *d)
{
	struct vp_out *o = &c->out[peer];
	struct ibv_sge sge = { .addr = (uintptr_t)local, .length = (uint32_t)len,
			       .lkey = lkey };
	uint64_t upto = o->posted + (kind == VP_WR_DATA);
	struct ibv_send_wr wr = {
		.wr_id = vp_wr_id_count(kind, peer, upto),
		.sg_list = &sge,
		.num_sge = len ? 1 : 0,
		.opcode = IBV_WR_RDMA_WRITE_WITH_IMM,
		.send_flags = (sent_inline(c, len) ? IBV_SEND_INLINE : 0),
		.imm_data = htonl(imm),
		.wr.rdma = { .remote_addr = raddr, .rkey = rkey },
	};
	struct ibv_send_wr *bad;
	int ret;

	if (signal || o->unsignaled + 1 >= c->cfg.slots)
		wr.send_flags |= IBV_SEND_SIGNALED;
	ret = ibv_post_send(c->qp[peer], &wr, &bad);
	if (ret)
		return diag_set(d, -ret, "rank %u: ibv_post_send(RDMA WRITE to rank %u): %s",
				c->cfg.rank, peer, strerror(ret));
	o->unsignaled = wr.send_flags & IBV_SEND_SIGNALED ? 0 : o->unsignaled + 1;
	return 0;
}

/* Whether a data write is signaled: every half of the slots (so that the
 * window of slots in flight, which completions open, never stalls), and
 * the step's last (a step ends once its writes completed). */
static bool signal_data(const struct vp_ctx *c, const struct step_state *st,
			const struct vp_out *o)
{
	unsigned every = c->cfg.slots > 1 ? c->cfg.slots / 2 : 1;

	return st->sent + 1 == st->nsend || (o->posted + 1) % every == 0;
}

/*
 * Post the next data chunk if a slot and a credit allow it. The slots of
 * the peer's chunks consumed so far ride along in the write's immediate:
 * where data and a credit go to the same peer in a turn (a ring of two,
 * a pairwise exchange, a ping-pong), one write and one post carry both,
 * and the credit is behind no data of its own.
 */
static int try_send(struct vp_ctx *c, struct step_state *st, bool *moved,
		    struct diag *d)
{
	const struct vp_step *s = st->s;
	unsigned peer = (unsigned)s->send_to;
	struct vp_out *o = &c->out[peer];
	uint64_t chunk = c->cfg.chunk;

	while (st->sent < st->nsend) {
		uint64_t len = chunk_len(s->send_len, chunk, st->sent);
		size_t slot = vp_slot_off(c, c->cfg.rank, o->posted);
		uint8_t *src = (uint8_t *)c->gpu + send_src(c, s, st->sent);
		uint32_t lkey = c->gpu_mr ? c->gpu_mr->lkey : 0, rkey;
		uint64_t raddr, carry;
		int err;

		/* credits start at cfg.slots (vp_connect): one per free slot */
		if (o->posted >= o->credits)
			break; /* every slot of the receiver is taken */
		/* a host send slot is reused once its write completed; and
		 * a peer's data writes in the send queue are at most slots */
		if (o->posted - o->completed >= c->cfg.slots)
			break;
		if (s->forward && st->sent >= st->got)
			break; /* a chain forwards only what has arrived */
		if (s->staged_send) {
			uint8_t *bounce = (uint8_t *)c->host +
					  vp_slot_off(c, peer, o->posted);

			err = bounce_ready(c, st, len, bounce, moved, d);
			if (err == -EAGAIN)
				break; /* its copy is still running */
			if (err)
				return err;
			src = bounce;
			lkey = c->host_mr->lkey;
		}
		if (s->staged_send_remote) {
			raddr = c->remote[peer].host_addr + slot;
			rkey = c->remote[peer].host_rkey;
		} else {
			raddr = c->remote[peer].gpu_addr + slot;
			rkey = c->remote[peer].gpu_rkey;
		}
		carry = c->in[peer].consumed - c->in[peer].credited;
		if (carry > VP_IMM_CARRY_MAX)
			carry = VP_IMM_CARRY_MAX; /* the rest in hand_back() */
		err = post_write(c, peer, VP_WR_DATA, src, lkey, len, raddr, rkey,
				 vp_imm_data(o->posted, (uint32_t)carry),
				 signal_data(c, st, o), d);
		if (err)
			return err;
		c->in[peer].credited += carry;
		if (c->wire_outstanding++ == 0)
			c->wire_t0 = vp_now_us();
		st->t->bytes[s->intra_send ? STAGE_INTRA : STAGE_WIRE] += len;
		o->posted++;
		if (len && !sent_inline(c, len))
			o->awaited = o->posted; /* the NIC reads its buffer later */
		st->sent++;
		if (st->out.started < st->sent)
			st->out.started = st->sent; /* copied in line, or not staged */
		*moved = true;
	}
	return 0;
}

/* Where chunk @k of the step lands: its place in the data region, or
 * (a sum) the scratch slot of its sequence number @seq. */
static uint8_t *recv_dst(const struct vp_ctx *c, const struct vp_step *s,
			 unsigned peer, uint64_t k, uint64_t seq)
{
	if (s->consume == VP_COPY)
		return (uint8_t *)c->gpu + s->recv_off + k * c->cfg.chunk;
	return (uint8_t *)c->gpu + c->scratch_off + vp_slot_off(c, peer, seq);
}

/* Start the copies out of the host slots of every chunk that arrived. */
static int stage_in(struct vp_ctx *c, struct step_state *st, bool *moved,
		    struct diag *d)
{
	const struct vp_step *s = st->s;
	unsigned peer = (unsigned)s->recv_from;
	struct vp_in *in = &c->in[peer];
	const struct vp_mem_ops *m = c->cfg.mem;

	while (st->in.started < st->nrecv &&
	       in->consumed + (st->in.started - st->got) < in->arrived) {
		uint64_t k = st->in.started, seq = in->consumed + (k - st->got);
		uint64_t len = chunk_len(s->recv_len, c->cfg.chunk, k);
		uint8_t *hslot = (uint8_t *)c->host + c->host_len / 2 +
				 vp_slot_off(c, peer, seq);
		unsigned ticket;
		int err;

		err = m->copy_in_start(c->cfg.mem_ctx, recv_dst(c, s, peer, k, seq),
				       hslot, len, &ticket);
		if (err == -EBUSY)
			break;
		if (err)
			return diag_set(d, err, "rank %u: %s copy from host of a chunk from rank %u: %s",
					c->cfg.rank, m->name, peer,
					vp_mem_strerror(m, c->cfg.mem_ctx, err));
		copy_started(&st->in, ticket);
		*moved = true;
	}
	return 0;
}

/* Chunk st->got in place in "GPU" memory: 0, -EAGAIN, or an error. */
static int landed(struct vp_ctx *c, struct step_state *st, uint64_t len,
		  uint8_t *scratch, uint8_t *dst, uint8_t *hslot, bool *moved,
		  struct diag *d)
{
	const struct vp_step *s = st->s;
	const struct vp_mem_ops *m = c->cfg.mem;
	double t0;
	int err;

	if (!s->staged_recv) {
		/* the NIC wrote the "GPU" slot: make it visible first */
		err = m->recv_flush ? m->recv_flush(c->cfg.mem_ctx, scratch, len) : 0;
		if (!err && s->consume == VP_COPY)
			err = m->copy_dev(c->cfg.mem_ctx, dst, scratch, len);
		return err;
	}
	if (async_copies(m)) {
		err = stage_in(c, st, moved, d);
		if (err)
			return err;
		return st->in.started == st->got ? -EAGAIN :
			copy_done(c, &st->in, st->got, STAGE_H2D, len, st->t);
	}
	t0 = vp_now_us();
	err = m->copy_in(c->cfg.mem_ctx, s->consume == VP_COPY ? dst : scratch,
			 hslot, len);
	st->t->us[STAGE_H2D] += vp_now_us() - t0;
	st->t->bytes[STAGE_H2D] += len;
	return err;
}

/* Take arrived chunks out of their slots, and hand the slots back. */
static int consume(struct vp_ctx *c, struct step_state *st, bool *moved,
		   struct diag *d)
{
	const struct vp_step *s = st->s;
	const struct vp_mem_ops *m = c->cfg.mem;
	unsigned peer = (unsigned)s->recv_from;
	struct vp_in *in = &c->in[peer];
	uint64_t chunk = c->cfg.chunk;
	unsigned esize = trace_dtype_size(s->dtype);

	while (st->got < st->nrecv && in->consumed < in->arrived) {
		uint64_t len = chunk_len(s->recv_len, chunk, st->got);
		size_t slot = vp_slot_off(c, peer, in->consumed);
		uint8_t *dst = (uint8_t *)c->gpu + s->recv_off + st->got * chunk;
		uint8_t *scratch = (uint8_t *)c->gpu + c->scratch_off + slot;
		uint8_t *hslot = (uint8_t *)c->host + c->host_len / 2 + slot;
		int err = landed(c, st, len, scratch, dst, hslot, moved, d);

		if (err == -EAGAIN)
			break; /* its copy is still running */
		if (!err && s->consume == VP_REDUCE)
			err = m->reduce(c->cfg.mem_ctx, dst, scratch, len / esize,
					s->dtype);
		if (err)
			return diag_set(d, err, "rank %u: %s %s of a chunk from rank %u: %s",
					c->cfg.rank, m->name,
					s->consume == VP_REDUCE ? "sum" : "copy",
					peer, err == -ENOTSUP ? "dtype not supported" :
								vp_mem_strerror(m, c->cfg.mem_ctx, err));
		in->consumed++; /* its slot goes back in hand_back() */
		st->got++;
		if (st->in.started < st->got)
			st->in.started = st->got;
		*moved = true;
	}
	return 0;
}

/*
 * Hand back every slot consumed since the last credit to each peer, in
 * one write a peer: after this turn's data went out, so that a credit's
 * post (a system call) is never on the way of the data, and several
 * slots cost one write. Slots a data write to the peer carried back in
 * this turn (try_send) are credited already. Slots consumed at the end
 * of a step go back in the next step's first turn: nobody waits for them
 * before it, since a sender's step ends only after all of its chunks
 * were posted.
 */
static int hand_back(struct vp_ctx *c, bool *moved, struct diag *d)
{
	for (unsigned peer = 0; peer < c->cfg.nranks; peer++) {
		struct vp_in *in = &c->in[peer];
		uint64_t n = in->consumed - in->credited;
		int err;

		if (!n)
			continue;
		err = post_write(c, peer, VP_WR_CREDIT, NULL, 0, 0, 0, 0,
				 vp_imm_credit((uint32_t)n), false, d);
		if (err)
			return err;
		in->credited = in->consumed;
		*moved = true;
	}
	return 0;
}

static const char *wr_what(enum vp_wr_kind kind)
{
	switch (kind) {
	case VP_WR_DATA:
		return "write of a chunk to";
	case VP_WR_CREDIT:
		return "credit to";
	case VP_WR_RECV:
		return "receive from";
	}
	return "work request with";
}

static int handle_wc(struct vp_ctx *c, struct step_state *st,
		     const struct ibv_wc *wc, struct diag *d)
{
	enum vp_wr_kind kind = vp_wr_kind_of(wc->wr_id);
	unsigned peer = (unsigned)(wc->wr_id & 0xffffffffu);

	if (peer >= c->cfg.nranks || !c->qp[peer])
		return diag_set(d, -EPROTO, "rank %u: completion with unknown work request id 0x%llx",
				c->cfg.rank, (unsigned long long)wc->wr_id);
	if (wc->status != IBV_WC_SUCCESS) {
		/* only wr_id, status, vendor_err and qp_num are defined here
		 * (ibv_poll_cq(3)): the opcode is not */
		return diag_set(d, -EIO,
				"rank %u: RDMA %s rank %u failed on %s: %s (ibv_poll_cq wc status %d, vendor error 0x%x)",
				c->cfg.rank, wr_what(kind), peer, c->cfg.device,
				ibv_wc_status_str(wc->status), wc->status,
				wc->vendor_err);
	}
	if (kind == VP_WR_DATA || kind == VP_WR_CREDIT) {
		struct vp_out *o = &c->out[peer];
		uint64_t upto = vp_wr_upto(wc->wr_id, o->posted);

		/* a write's completion is every earlier one's too */
		if (upto > o->completed) {
			uint64_t n = upto - o->completed;

			o->completed = upto;
			c->wire_outstanding -= (unsigned)n;
			if (!c->wire_outstanding)
				st->t->us[st->s->intra_send ? STAGE_INTRA : STAGE_WIRE] +=
					vp_now_us() - c->wire_t0;
		}
		return 0;
	}
	if (kind == VP_WR_RECV && wc->opcode == IBV_WC_RECV_RDMA_WITH_IMM) {
		uint32_t imm = ntohl(wc->imm_data);
		int err = vp_post_recv(c, peer, d);

		if (err)
			return err;
		c->out[peer].credits += vp_imm_slots(imm); /* alone or carried */
		if (vp_imm_is_credit(imm))
			return 0;
		if (vp_imm_seq(imm) != vp_imm_seq(vp_imm_data(c->in[peer].arrived, 0)))
			return diag_set(d, -EPROTO,
					"rank %u: chunk %u from rank %u out of order (expected %u)",
					c->cfg.rank, vp_imm_seq(imm), peer,
					vp_imm_seq(vp_imm_data(c->in[peer].arrived, 0)));
		c->in[peer].arrived++;
		return 0;
	}
	return diag_set(d, -EPROTO, "rank %u: unexpected completion opcode %d from rank %u",
			c->cfg.rank, wc->opcode, peer);
}

static int poll_cq(struct vp_ctx *c, struct step_state *st, bool *moved,
		   struct diag *d)
{
	struct ibv_wc wc[16];
	int n;

	while ((n = ibv_poll_cq(c->cq, 16, wc)) > 0) {
		for (int i = 0; i < n; i++) {
			int err = handle_wc(c, st, &wc[i], d);

			if (err)
				return err;
		}
		*moved = true;
	}
	if (n < 0)
		return diag_set(d, -EIO, "rank %u: ibv_poll_cq failed", c->cfg.rank);
	return 0;
}

static bool step_done(const struct vp_ctx *c, const struct step_state *st)
{
	const struct vp_step *s = st->s;

	if (st->sent < st->nsend || st->got < st->nrecv)
		return false;
	/* The data region is rewritten by the next step or collective:
	 * every write that reads it must have completed. An inline write
	 * took its bytes when it was posted: its completion (the ACK, a
	 * round trip) is not waited for, as NCCL's proxy does not hold
	 * the GPU for a send's completion; the counters take it later. */
	return s->send_to < 0 ||
	       c->out[s->send_to].completed >= c->out[s->send_to].awaited;
}

/* Sleep until the CQ has something, the run is aborted, or @ms pass. */
static int wait_event(struct vp_ctx *c, int ms, struct diag *d)
{
	struct pollfd pfd[2] = {
		{ .fd = c->channel->fd, .events = POLLIN },
		{ .fd = c->cfg.abort_fd, .events = POLLIN },
	};
	struct ibv_cq *ev_cq;
	void *ev_ctx;
	int n;

	n = poll(pfd, c->cfg.abort_fd >= 0 ? 2 : 1, ms);
	if (n < 0)
		return errno == EINTR ? 0 : diag_set(d, -errno, "poll: %s", strerror(errno));
	if (n > 0 && c->cfg.abort_fd >= 0 && pfd[1].revents) {
		c->aborted = true;
		return diag_set(d, -ECONNABORTED, "rank %u: run aborted", c->cfg.rank);
	}
	if (n > 0 && pfd[0].revents) {
		if (ibv_get_cq_event(c->channel, &ev_cq, &ev_ctx))
			return diag_set(d, -EIO, "ibv_get_cq_event: %s", strerror(errno));
		ibv_ack_cq_events(ev_cq, 1);
		if (ibv_req_notify_cq(c->cq, 0))
			return diag_set(d, -EIO, "ibv_req_notify_cq: %s", strerror(errno));
	}
	return 0;
}

int vp_step_run(struct vp_ctx *c, const struct vp_step *s, struct vp_times *t,
		struct diag *d)
{
	struct step_state st = { .s = s, .t = t };
	double last = 0, now;
	bool stamp = true;  /* the last progress is not timed yet */
	bool asleep = false; /* the last idle turn slept on the channel */
	bool late = false;  /* idle past VP_SPIN_FREE_US: yield each turn */
	unsigned idle = 0;  /* turns since the last progress */
	int err = 0;

	/* a NIC side on "GPU" memory needs it registered: refused before
	 * anything is posted (the peer's step, from the same plan, too) */
	if ((s->send_to >= 0 && (!s->staged_send || !s->staged_send_remote)) ||
	    (s->recv_from >= 0 && !s->staged_recv)) {
		err = vp_need_gpu_mr(c, d);
		if (err)
			return err;
	}
	st.nsend = s->send_to >= 0 ? nchunks(s->send_len, c->cfg.chunk) : 0;
	st.nrecv = s->recv_from >= 0 ? nchunks(s->recv_len, c->cfg.chunk) : 0;
	if (s->forward)
		st.nsend = s->send_to >= 0 ? st.nrecv : 0;
	while (!step_done(c, &st)) {
		bool moved = false;

		if (st.nsend)
			err = try_send(c, &st, &moved, d);
		if (!err)
			err = hand_back(c, &moved, d);
		if (!err)
			err = poll_cq(c, &st, &moved, d);
		if (!err && st.nrecv)
			err = consume(c, &st, &moved, d);
		if (err)
			return err;
		/* The clock is a system call where the guest's clocksource
		 * is HPET (2.6 us a read under TCG, against a 30 us
		 * round trip): the loop reads it only every VP_CLOCK_TURNS
		 * idle turns, not after each turn that moved, on the way
		 * from a completion to the post it allows. A turn that
		 * moved counts as done when the clock is next read; the
		 * spin, yield and time-out bounds are late by at most
		 * VP_CLOCK_TURNS turns of polling, each bounded. */
		if (moved) {
			stamp = true;
			asleep = late = false;
			idle = 0;
			continue;
		}
		/* spin_us 0: sleep at the first idle turn, as before */
		if (!asleep && c->cfg.spin_us && ++idle % VP_CLOCK_TURNS) {
			if (late)
				sched_yield();
			continue;
		}
		now = vp_now_us();
		if (stamp) {
			last = now;
			stamp = false;
		}
		/* a copy in flight ends without a completion event: poll */
		if (now - last < c->cfg.spin_us || st.out.running || st.in.running) {
			/* a yield is a system call (20-30 us of a 90 us
			 * round trip under TCG): only once a reply is late,
			 * then every idle turn */
			late = now - last > VP_SPIN_FREE_US;
			if (late)
				sched_yield();
			if (now - last <= c->cfg.timeout_ms * 1e3)
				continue;
		} else {
			err = wait_event(c, 100, d);
			if (err)
				return err;
			asleep = true; /* the clock read at once after a sleep */
		}
		if (vp_now_us() - last > c->cfg.timeout_ms * 1e3)
			return diag_set(d, -ETIMEDOUT,
					"rank %u: no RDMA progress for %.0f s on %s (sent %llu/%llu chunks to rank %d, received %llu/%llu from rank %d): peer gone or link down?",
					c->cfg.rank, c->cfg.timeout_ms / 1e3,
					c->cfg.device,
					(unsigned long long)st.sent,
					(unsigned long long)st.nsend, s->send_to,
					(unsigned long long)st.got,
					(unsigned long long)st.nrecv, s->recv_from);
	}
	return 0;
}
