/* SPDX-License-Identifier: MIT */
/* verbs_path internals shared by verbs_path.c (set-up) and vp_step.c. */
#ifndef GDRLAB_VP_INTERNAL_H
#define GDRLAB_VP_INTERNAL_H

#include <infiniband/verbs.h>
#include <stdbool.h>
#include <stdint.h>

#include "verbs_path.h"

/*
 * imm of a data write: its sequence number (mod 2^24) in the low bits and,
 * above them, how many of the writer's own slots at the receiver it hands
 * back (a credit carried by the data, 0-127: slots are at most 64). imm of
 * a credit alone: the flag and how many slots it hands back.
 */
#define VP_IMM_CREDIT 0x80000000u
#define VP_IMM_SEQ 0x00ffffffu
#define VP_IMM_CARRY_SHIFT 24
#define VP_IMM_CARRY_MAX 0x7fu
#define VP_IMM_COUNT 0x7fffffffu /* of a credit alone */
#define VP_INLINE_MAX 64 /* bytes a write carries in its work request */

/* A data write's imm: chunk @seq, @carry (at most VP_IMM_CARRY_MAX)
 * slots handed back with it. */
static inline uint32_t vp_imm_data(uint64_t seq, uint32_t carry)
{
	return (uint32_t)(seq & VP_IMM_SEQ) | carry << VP_IMM_CARRY_SHIFT;
}

/* A credit's imm: @slots handed back, no data. */
static inline uint32_t vp_imm_credit(uint32_t slots)
{
	return VP_IMM_CREDIT | (slots & VP_IMM_COUNT);
}

static inline bool vp_imm_is_credit(uint32_t imm)
{
	return imm & VP_IMM_CREDIT;
}

/* A data write's chunk number, mod 2^24. */
static inline uint32_t vp_imm_seq(uint32_t imm)
{
	return imm & VP_IMM_SEQ;
}

/* The slots an imm hands back: a credit's count, or what data carried. */
static inline uint32_t vp_imm_slots(uint32_t imm)
{
	return vp_imm_is_credit(imm) ? imm & VP_IMM_COUNT : imm >> VP_IMM_CARRY_SHIFT;
}

/*
 * wr_id = kind << 56 | count << 32 | peer, for sends and receives alike:
 * an error completion's opcode is undefined (ibv_poll_cq(3)), its wr_id
 * is not. A write's count is the low 24 bits of the data writes posted
 * to the peer as of it: a QP completes its writes in order, so its
 * completion says all of those completed (most writes go unsignaled, as
 * perftest's completion moderation, vp_step.c).
 */
enum vp_wr_kind { VP_WR_DATA = 1, VP_WR_CREDIT = 2, VP_WR_RECV = 3 };
#define VP_WR_COUNT_MASK 0xffffffu

static inline uint64_t vp_wr_id_count(enum vp_wr_kind kind, unsigned peer, uint64_t count)
{
	return (uint64_t)kind << 56 | (count & VP_WR_COUNT_MASK) << 32 | peer;
}

static inline uint64_t vp_wr_id(enum vp_wr_kind kind, unsigned peer)
{
	return vp_wr_id_count(kind, peer, 0);
}

static inline enum vp_wr_kind vp_wr_kind_of(uint64_t wr_id)
{
	return (enum vp_wr_kind)(wr_id >> 56);
}

/* The data writes posted to the peer as of the write of @wr_id, from
 * @posted, the count now: the write kept its low 24 bits, and fewer than
 * 2^24 writes are ever in flight. */
static inline uint64_t vp_wr_upto(uint64_t wr_id, uint64_t posted)
{
	uint32_t count = (uint32_t)(wr_id >> 32) & VP_WR_COUNT_MASK;

	return posted - (((uint32_t)posted - count) & VP_WR_COUNT_MASK);
}

/* Counters of one direction of one peer; they run across steps. */
struct vp_out {
	uint64_t posted;    /* data chunks posted */
	uint64_t completed; /* their send completions */
	uint64_t credits;   /* slots handed back by the receiver */
	uint64_t awaited;   /* posted, as of the last write that reads its
			     * source when it goes out (not inline): a step
			     * ends once completed reaches it */
	unsigned unsignaled; /* writes to the peer posted since the last
			      * signaled one */
};

struct vp_in {
	uint64_t arrived;   /* data chunks landed */
	uint64_t consumed;  /* copied or reduced out of their slot */
	uint64_t credited;  /* of those, handed back to the sender */
};

struct vp_remote {
	uint64_t gpu_addr, host_addr;
	uint32_t gpu_rkey, host_rkey;
};

struct vp_ctx {
	struct vp_config cfg;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *channel;
	struct ibv_cq *cq;
	struct ibv_qp **qp;          /* [nranks]; NULL for this rank */
	uint8_t port;
	int gid_index;
	enum ibv_mtu mtu;            /* the port's, then the path's */
	struct records_link link;
	uint32_t psn;
	unsigned rq_depth;           /* receives kept posted per QP */
	unsigned max_inline;         /* what the QPs took of VP_INLINE_MAX */
	/* "GPU" arena: data region, then slots[peer][slot] of scratch */
	void *gpu;
	size_t gpu_len, scratch_off;
	struct ibv_mr *gpu_mr;        /* NULL: gpu_reg_err says why */
	char gpu_reg_err[256];       /* registration failed, gpu_mr_optional */
	bool flush_attached;         /* mem->flush_attach succeeded */
	const char *reg_how;         /* static string from reg_mr, or "host" */
	/* host arena: send slots[peer][slot], then receive slots[peer][slot] */
	void *host;
	size_t host_len;
	struct ibv_mr *host_mr;
	struct vp_remote *remote;    /* [nranks] */
	struct vp_out *out;          /* [nranks] */
	struct vp_in *in;            /* [nranks] */
	unsigned wire_outstanding;   /* data writes in flight */
	double wire_t0;
	bool aborted;
};

static inline size_t vp_slot_off(const struct vp_ctx *c, unsigned peer,
				 uint64_t seq)
{
	return ((size_t)peer * c->cfg.slots + seq % c->cfg.slots) * c->cfg.chunk;
}

int vp_post_recv(struct vp_ctx *c, unsigned peer, struct diag *d);
/* 0 where the "GPU" arena is registered; else -EOPNOTSUPP with why (it
 * may be missing only under cfg.gpu_mr_optional). */
int vp_need_gpu_mr(const struct vp_ctx *c, struct diag *d);

#endif
