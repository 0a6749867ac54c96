/* SPDX-License-Identifier: MIT */
/*
 * gen llm: context parallelism's exchanges in each attention layer, as
 * TransformerEngine runs them for Megatron-Core (megatron/training/
 * arguments.py --cp-comm-type, default p2p; megatron/core/extensions/
 * transformer_engine.py TEDotProductAttention; transformer_engine/
 * pytorch/attention/dot_product_attention/context_parallel.py). Every
 * rank holds 2 of the sequence's 2 cp chunks (gen_llm_check), one kind
 * of exchange a row of cp_comms:
 *
 *   p2p         AttnFuncWithCPAndKVP2P: the queries stay, the keys and
 *               values go round the ring in cp steps of attention, one
 *               a chunk pair. Forward, steps 0 .. cp - 2 send this
 *               rank's current K,V to the next rank (send_dst = rank +
 *               1), the send of step j issued as the attention of step
 *               j starts, so that it overlaps it; backward, cp steps the
 *               other way (send_dst = rank - 1): step 0 sends K,V, steps
 *               1 .. cp - 2 K,V with the dK,dV gathered so far
 *               (p2p_comm_buffers[i % 2], [kv, dkv] in one tensor), the
 *               last only dK,dV, which so reach their own rank;
 *   all_gather  AttnFuncWithCPAndKVAllGather: K and V each all-gathered
 *               before attention (gather_along_first_dim), again in
 *               backward, and dK, dV reduce-scattered after it
 *               (reduce_scatter_along_first_dim): not overlapped;
 *   a2a         AttnFuncWithCPAndQKVOA2A (DeepSpeed-Ulysses): q, k and
 *               v each an all-to-all from sequence to heads before
 *               attention, the output one back after it; backward the
 *               output's gradient before and dq, dk, dv after
 *               (flash_attn_a2a_communicate, one all_to_all_single a
 *               tensor).
 *
 * A rank's tensors: its seq / cp tokens x its tp share of the heads
 * (llm_attention_widths), in the activations' dtype (the dK,dV buffer is
 * kv's dtype too).
 */
#include <errno.h>
#include <string.h>

#include "gen_llm_internal.h"

/* Where a layer's attention core runs and which way. */
struct cp_core {
	unsigned s, i, k;  /* stage, micro-batch, its layer in the stage */
	double start, dur; /* the core's */
	bool backward;
};

/* A rank's @width-wide tensor of its tokens, @width over every head. */
static uint64_t local_bytes(const struct gen_llm_options *o, uint64_t width)
{
	return (uint64_t)o->micro_batch_size * (o->seq / o->cp) * (width / o->tp) *
	       trace_dtype_size(o->dtype);
}

/* The batch of step @j of the ring in the @k-th layer of micro-batch @i:
 * one a step on its communicator in an iteration (trace_gather_batches
 * keys a batch by communicator, iteration and number). Batched only with
 * cp 2 (ring_step): below 65536 x the model's layers x 4, a trace's
 * batch holds it. */
static unsigned ring_batch(const struct gen_llm_options *o, const struct cp_core *c, unsigned j)
{
	return ((c->i * o->arch->layers + c->k) * 2 + c->backward) * o->cp + j;
}

/*
 * Step @j's sends on every cp group of the stage, @bytes from each rank
 * to the next (forward) or the previous (backward), ready at @at. TE
 * batches a step's send and receive (flash_attn_p2p_communicate:
 * batch_isend_irecv) where batch_p2p_comm is set: NVTE_BATCH_MHA_P2P_COMM,
 * or a GPU before compute capability 10.0 (A100, H100: the presets')
 * with cp_size 2; there both ranks' sends are one batch. Otherwise each
 * isend runs on its own, on its pair's stream.
 */
static void ring_step(struct gen *g, const struct cp_core *core, unsigned j, uint64_t bytes,
		      double at)
{
	const struct gen_llm_options *o = g->o;
	unsigned cp = o->cp, s = core->s;

	/* a step is cp sends a group, and a layer cp steps: at a large cp
	 * the trace's limit (g->err) comes within one layer, past which
	 * going on would take minutes to emit nothing */
	for (unsigned d = 0; d < o->dp && !g->err; d++)
		for (unsigned t = 0; t < o->tp && !g->err; t++)
			for (unsigned c = 0; c < cp && !g->err; c++) {
				unsigned to = core->backward ? (c + cp - 1) % cp : (c + 1) % cp;
				struct gev *v = gen_llm_emit(g, cp_comm(g, s, d, t), TRACE_OP_SENDRECV,
							     o->dtype, bytes, at,
							     (int)rank_of(o, t, c + cp * d, s),
							     (int)rank_of(o, t, to + cp * d, s));

				if (v && cp == 2) {
					v->e.batched = true;
					v->e.batch = ring_batch(o, core, j);
				}
			}
}

/* The core's cp steps take equal shares of it: with the chunks balanced
 * every step computes two chunk pairs' worth (the diagonal's two halves
 * and the pair below, or a half of the queries against whole K,V). */
static void p2p(struct gen *g, const struct cp_core *c)
{
	uint64_t kv = local_bytes(g->o, llm_kv_width(g->o->arch));
	unsigned cp = g->o->cp;
	double step = c->dur / cp;

	for (unsigned j = 0; !c->backward && j + 1 < cp && !g->err; j++)
		ring_step(g, c, j, kv, c->start + j * step);
	for (unsigned j = 0; c->backward && j < cp && !g->err; j++)
		ring_step(g, c, j, j == 0 || j + 1 == cp ? kv : 2 * kv, c->start + j * step);
}

/* @op of a @width-wide tensor on every cp group of the stage at @at: an
 * all-gather's or reduce-scatter's bytes the whole buffer, cp ranks'
 * shares (docs/trace-format.md), an all-to-all's a rank's. */
static void cp_collective(struct gen *g, unsigned s, enum trace_op op, uint64_t width, double at)
{
	const struct gen_llm_options *o = g->o;
	uint64_t bytes = local_bytes(o, width) * (op == TRACE_OP_ALLTOALL ? 1 : o->cp);

	for (unsigned d = 0; d < o->dp; d++)
		for (unsigned t = 0; t < o->tp; t++)
			gen_llm_emit(g, cp_comm(g, s, d, t), op, o->dtype, bytes, at, -1, -1);
}

static void all_gather(struct gen *g, const struct cp_core *c)
{
	struct llm_attention_widths w;
	double end = c->start + c->dur;

	llm_attention_widths(g->o->arch, &w);
	cp_collective(g, c->s, TRACE_OP_ALL_GATHER, w.k, c->start);
	cp_collective(g, c->s, TRACE_OP_ALL_GATHER, w.v, c->start);
	if (!c->backward)
		return;
	cp_collective(g, c->s, TRACE_OP_REDUCE_SCATTER, w.k, end);
	cp_collective(g, c->s, TRACE_OP_REDUCE_SCATTER, w.v, end);
}

static void a2a(struct gen *g, const struct cp_core *c)
{
	struct llm_attention_widths w;
	double end = c->start + c->dur;

	llm_attention_widths(g->o->arch, &w);
	if (c->backward)
		cp_collective(g, c->s, TRACE_OP_ALLTOALL, w.out, c->start);
	cp_collective(g, c->s, TRACE_OP_ALLTOALL, w.q, c->backward ? end : c->start);
	cp_collective(g, c->s, TRACE_OP_ALLTOALL, w.k, c->backward ? end : c->start);
	cp_collective(g, c->s, TRACE_OP_ALLTOALL, w.v, c->backward ? end : c->start);
	if (!c->backward)
		cp_collective(g, c->s, TRACE_OP_ALLTOALL, w.out, end);
}

static const struct {
	const char *name; /* Megatron-LM's --cp-comm-type */
	void (*layer)(struct gen *g, const struct cp_core *c);
} cp_comms[GEN_LLM_CP_COUNT] = {
	[GEN_LLM_CP_P2P] = { "p2p", p2p },
	[GEN_LLM_CP_ALL_GATHER] = { "all_gather", all_gather },
	[GEN_LLM_CP_A2A] = { "a2a", a2a },
};

const char *gen_llm_cp_comm_name(enum gen_llm_cp_comm c)
{
	return c < GEN_LLM_CP_COUNT ? cp_comms[c].name : "?";
}

int gen_llm_cp_comm_parse(const char *name, enum gen_llm_cp_comm *out)
{
	for (int c = 0; c < GEN_LLM_CP_COUNT; c++)
		if (!strcmp(name, cp_comms[c].name)) {
			*out = (enum gen_llm_cp_comm)c;
			return 0;
		}
	return -EINVAL;
}

/*
 * The exchanges of the @k-th layer of stage @s in micro-batch @i, the
 * layer at @at over @dur. Attention is the layer's first half forward
 * and its second backward (gen_llm_tp_layer's halves); in it the
 * projections and the core take their FLOPs' shares in the order they
 * run (forward q, k, v, the core, the output projection; backward the
 * other way).
 */
void gen_llm_cp_layer(struct gen *g, unsigned s, unsigned i, unsigned k, double at, double dur,
		      bool backward)
{
	const struct gen_llm_options *o = g->o;
	struct llm_attention_flops f;
	struct cp_core c = { .s = s, .i = i, .k = k, .backward = backward };
	double all;

	if (o->cp < 2 || o->cp_comm >= GEN_LLM_CP_COUNT)
		return;
	llm_attention_flops(o->arch, o->seq, &f);
	all = f.qkv + f.core + f.out;
	c.start = backward ? at + dur / 2 + dur / 2 * f.out / all : at + dur / 2 * f.qkv / all;
	c.dur = dur / 2 * f.core / all;
	cp_comms[o->cp_comm].layer(g, &c);
}
