/* SPDX-License-Identifier: MIT */
/*
 * gen llm: context parallelism's ring in each attention layer, as
 * TransformerEngine runs it for Megatron-Core's default cp_comm_type
 * "p2p" (megatron/training/arguments.py --cp-comm-type, default p2p;
 * megatron/core/extensions/transformer_engine.py TEDotProductAttention;
 * transformer_engine/pytorch/attention/dot_product_attention/
 * context_parallel.py AttnFuncWithCPAndKVP2P). Every rank holds 2 of the
 * sequence's 2 cp chunks (gen_llm_check) and its queries stay; the keys
 * and values go round the ring, cp steps of attention, one a chunk pair:
 *
 *   forward   steps 0 .. cp - 2 send this rank's current K,V to the next
 *             rank (send_dst = rank + 1) and receive the previous one's,
 *             the send of step j issued as the attention of step j
 *             starts, so that it overlaps it;
 *   backward  cp steps the other way (send_dst = rank - 1): step 0 sends
 *             K,V, steps 1 .. cp - 2 K,V with the dK,dV gathered so far
 *             (p2p_comm_buffers[i % 2], [kv, dkv] in one tensor), the
 *             last only dK,dV, which so reach their own rank.
 *
 * K,V of a rank: its seq / cp tokens x its tp share of the heads' keys
 * and values (llm_kv_width), in the activations' dtype (torch.cat of k
 * and v: p2p_comm_buffers[0]; the dK,dV buffer is kv's dtype too).
 */
#include "gen_llm_internal.h"

static uint64_t kv_bytes(const struct gen_llm_options *o)
{
	return (uint64_t)o->micro_batch_size * (o->seq / o->cp) * (llm_kv_width(o->arch) / o->tp) *
	       trace_dtype_size(o->dtype);
}

/* The batch of step @j of the ring in the @k-th layer of micro-batch @i:
 * one a step on its communicator in an iteration (trace_gather_batches
 * keys a batch by communicator, iteration and number). Batched only with
 * cp 2 (ring_step): below 65536 x the model's layers x 4, a trace's
 * batch holds it. */
static unsigned ring_batch(const struct gen_llm_options *o, unsigned i, unsigned k, bool backward,
			   unsigned j)
{
	return ((i * o->arch->layers + k) * 2 + backward) * o->cp + j;
}

/*
 * Step @j's sends on every cp group of stage @s, @bytes from each rank
 * to the next (forward) or the previous (backward), ready at @at. TE
 * batches a step's send and receive (flash_attn_p2p_communicate:
 * batch_isend_irecv) where batch_p2p_comm is set: NVTE_BATCH_MHA_P2P_COMM,
 * or a GPU before compute capability 10.0 (A100, H100: the presets')
 * with cp_size 2; there both ranks' sends are one batch. Otherwise each
 * isend runs on its own, on its pair's stream.
 */
static void ring_step(struct gen *g, unsigned s, bool backward, uint64_t bytes, double at,
		      unsigned batch)
{
	const struct gen_llm_options *o = g->o;
	unsigned cp = o->cp;

	for (unsigned d = 0; d < o->dp; d++)
		for (unsigned t = 0; t < o->tp; t++)
			for (unsigned c = 0; c < cp; c++) {
				unsigned to = backward ? (c + cp - 1) % cp : (c + 1) % cp;
				size_t before = g->nev;

				gen_llm_emit(g, cp_comm(g, s, d, t), TRACE_OP_SENDRECV, o->dtype, bytes, at,
					     (int)rank_of(o, t, c + cp * d, s),
					     (int)rank_of(o, t, to + cp * d, s));
				if (g->nev > before && cp == 2) {
					g->ev[before].e.batched = true;
					g->ev[before].e.batch = batch;
				}
			}
}

/*
 * The ring of the @k-th layer of stage @s in micro-batch @i, the layer
 * at @at over @dur. Attention is the layer's first half forward and its
 * second backward (gen_llm_tp_layer's halves); in it the projections and
 * the core take their FLOPs' shares in the order they run (forward q, k,
 * v, the core, the output projection; backward the other way), and the
 * core's cp steps take equal shares of it: with the chunks balanced
 * every step computes two chunk pairs' worth (the diagonal's two halves
 * and the pair below, or a half of the queries against whole K,V).
 */
void gen_llm_cp_layer(struct gen *g, unsigned s, unsigned i, unsigned k, double at, double dur,
		      bool backward)
{
	const struct gen_llm_options *o = g->o;
	struct llm_attention_flops f;
	uint64_t kv = kv_bytes(o);
	unsigned cp = o->cp;
	double all, core, step;

	if (cp < 2)
		return;
	llm_attention_flops(o->arch, o->seq, &f);
	all = f.qkv + f.core + f.out;
	core = backward ? at + dur / 2 + dur / 2 * f.out / all : at + dur / 2 * f.qkv / all;
	step = dur / 2 * f.core / all / cp;
	for (unsigned j = 0; !backward && j + 1 < cp; j++)
		ring_step(g, s, false, kv, core + j * step, ring_batch(o, i, k, false, j));
	for (unsigned j = 0; backward && j < cp; j++)
		ring_step(g, s, true, j == 0 || j + 1 == cp ? kv : 2 * kv, core + j * step,
			  ring_batch(o, i, k, true, j));
}
