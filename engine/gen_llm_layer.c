/* SPDX-License-Identifier: MIT */
/*
 * gen llm: one layer's collectives as Megatron-Core issues them, under
 * tensor and sequence parallelism (latent attention's latents, the
 * hidden state's), through a MoE's all-to-all dispatcher, and ZeRO 3's
 * gathers and scatters of each module (gen_llm_internal.h).
 */
#include <string.h>

#include "gen_llm_internal.h"

/* A micro-batch's tokens (a rank's seq / cp) x @width elements of the
 * model's dtype. */
static uint64_t tokens_bytes(const struct gen_llm_options *o, uint64_t width)
{
	return (uint64_t)o->micro_batch_size * (o->seq / o->cp) * width * trace_dtype_size(o->dtype);
}

/*
 * Half a layer under tensor parallelism: the inputs its column-parallel
 * linears take, each gathered with sequence parallelism (widths of a
 * token), an input gathered on its own (MLA's RoPE key, 0: none), and
 * whether a row-parallel linear ends it (its output reduced).
 */
struct tp_half {
	uint64_t cols[2];
	unsigned ncols;
	uint64_t gathered;
	bool row;
};

/*
 * Layer @layer's halves: attention, then the MLP. Latent attention's
 * down-projections run on each rank's sequence shard, whole, and its
 * up-projections gather the latents (multi_latent_attention.py: the
 * query's, or the hidden state without one, the keys' and values', and
 * the RoPE key by gather_from_sequence_parallel_region). A MoE layer's
 * routed experts take their tokens through the dispatcher (moe_layer),
 * its shared experts, where it has them, as a dense MLP.
 */
static void tp_halves(const struct llm_arch *a, unsigned layer, struct tp_half h[2])
{
	const struct llm_mla *m = &a->mla;

	memset(h, 0, 2 * sizeof(*h));
	h[0].row = true;
	if (m->kv_rank) {
		h[0].cols[h[0].ncols++] = m->q_rank ? m->q_rank : a->hidden;
		h[0].cols[h[0].ncols++] = m->kv_rank;
		h[0].gathered = m->qk_rope_dim;
	} else {
		h[0].cols[h[0].ncols++] = a->hidden;
	}
	if (!llm_layer_moe(a, layer) || a->shared_experts) {
		h[1].cols[h[1].ncols++] = a->hidden;
		h[1].row = true;
	}
}

/*
 * A layer's tensor-parallel collectives at @at (its start) over @dur:
 * after attention and after the MLP, or with sequence parallelism an
 * all-gather of each column-parallel linear's input before each and a
 * reduce-scatter after (Korthikanti et al. 2022, figure 5). A @backward
 * half gathers the gradient of its output, then each column-parallel
 * linear's input once more, for its weight's gradient, where the
 * forward kept only its rank's share of it (Megatron-LM, megatron/core/
 * tensor_parallel/layers.py, LinearWithGradAccumulationAndAsyncCommun-
 * ication.backward: "if ctx.sequence_parallel" all-gathers the input to
 * total_input), and reduce-scatters its input's gradient. Backward runs
 * the MLP's half first.
 */
void gen_llm_tp_layer(struct gen *g, unsigned s, unsigned layer, double at, double dur,
		     bool backward)
{
	const struct gen_llm_options *o = g->o;
	uint64_t act = activation_bytes(o);
	struct tp_half halves[2];

	if (o->tp < 2)
		return;
	tp_halves(o->arch, layer, halves);
	for (unsigned r = 0; r < replicas(o); r++)
		for (int n = 0; n < 2; n++) {
			/* attention, then the MLP; backward the other way */
			const struct tp_half *h = &halves[backward ? 1 - n : n];
			double start = at + n * dur / 2, end = start + dur / 2, mid = (start + end) / 2;
			size_t c = tp_comm(g, s, r);

			if (!o->sequence_parallel) {
				if (h->row)
					gen_llm_emit(g, c, TRACE_OP_ALLREDUCE, o->dtype, act, end, -1, -1);
				continue;
			}
			if (backward && h->row)
				gen_llm_emit(g, c, TRACE_OP_ALL_GATHER, o->dtype, act, start, -1, -1);
			for (unsigned k = 0; k < h->ncols; k++)
				gen_llm_emit(g, c, TRACE_OP_ALL_GATHER, o->dtype, tokens_bytes(o, h->cols[k]),
					     backward ? mid : start, -1, -1);
			if (h->gathered && !backward)
				gen_llm_emit(g, c, TRACE_OP_ALL_GATHER, o->dtype, tokens_bytes(o, h->gathered),
					     start, -1, -1);
			if (!backward && h->row)
				gen_llm_emit(g, c, TRACE_OP_REDUCE_SCATTER, o->dtype, act, end, -1, -1);
			for (unsigned k = 0; backward && k < h->ncols; k++)
				gen_llm_emit(g, c, TRACE_OP_REDUCE_SCATTER, o->dtype, tokens_bytes(o, h->cols[k]),
					     end, -1, -1);
			if (h->gathered && backward)
				gen_llm_emit(g, c, TRACE_OP_REDUCE_SCATTER, o->dtype, tokens_bytes(o, h->gathered),
					     end, -1, -1);
		}
}

/*
 * A MoE layer's dispatch and combine around its experts (the MLP's half
 * of the layer, the second forward, the first backward), Megatron-Core's
 * all-to-all token dispatcher (token_dispatcher.py
 * MoEAlltoAllTokenDispatcher; Lepikhin et al. 2020, GShard): each rank
 * sends its tokens' top_k copies over the expert-parallel group, and
 * under tensor parallelism (the experts' tensor parallelism,
 * expert_tensor_parallel_size, being --tp) the tokens it receives are
 * all-gathered over the tensor-parallel group after the all-to-all
 * (dispatch_postprocess) and reduce-scattered before the combine's
 * (combine_preprocess): all-to-all, all-gather, reduce-scatter,
 * all-to-all, forward and, as the gradients go back through the combine
 * first, backward alike. Balanced: every rank's tokens split evenly
 * among the experts (Megatron passes the counts as they fall). An
 * alltoall's bytes are one rank's send buffer, its chunks for every rank
 * (nccl-tests' size; PyTorch's `In msg nelems`), whatever ep is; the
 * gathered tokens are the tensor-parallel group's, tokens x top_k x
 * hidden. Layer @layer (of the model) only where it is a MoE: DeepSeek's
 * first are dense.
 */
void gen_llm_moe_layer(struct gen *g, unsigned s, unsigned layer, double at, double dur,
		      bool backward)
{
	const struct gen_llm_options *o = g->o;
	uint64_t routed = activation_bytes(o) * o->arch->top_k;
	uint64_t mine = routed / (o->sequence_parallel ? o->tp : 1);
	double first = backward ? at : at + dur / 2, last = first + dur / 2;
	unsigned blocks = replicas(o) / o->ep;

	if (!llm_layer_moe(o->arch, layer))
		return;
	for (unsigned t = 0; o->ep > 1 && t < o->tp; t++)
		for (unsigned b = 0; b < blocks; b++)
			gen_llm_emit(g, ep_comm(g, s, t, b), TRACE_OP_ALLTOALL, o->dtype, mine, first, -1,
				     -1);
	for (unsigned r = 0; o->tp > 1 && r < replicas(o); r++)
		gen_llm_emit(g, tp_comm(g, s, r), TRACE_OP_ALL_GATHER, o->dtype, routed, first, -1, -1);
	for (unsigned r = 0; o->tp > 1 && r < replicas(o); r++)
		gen_llm_emit(g, tp_comm(g, s, r), TRACE_OP_REDUCE_SCATTER, o->dtype, routed, last, -1, -1);
	for (unsigned t = 0; o->ep > 1 && t < o->tp; t++)
		for (unsigned b = 0; b < blocks; b++)
			gen_llm_emit(g, ep_comm(g, s, t, b), TRACE_OP_ALLTOALL, o->dtype, mine, last, -1,
				     -1);
}

static uint64_t zero3_share(const struct gen_llm_options *o, int module)
{
	const struct llm_arch *a = o->arch;
	uint64_t r, w;

	/* as gen_llm_stage shares them: the learned positions whole, the
	 * last stage's copy of a tied embedding with its head */
	if (module == Z3_EMBEDDING)
		return (uint64_t)a->vocab * a->hidden / o->tp +
		       (uint64_t)a->learned_positions * a->hidden;
	if (module == Z3_HEAD)
		return llm_head_params(a) / o->tp +
		       (a->tied_embeddings && o->pp > 1 ? (uint64_t)a->vocab * a->hidden / o->tp : 0);
	r = llm_layer_routed_params(a, (unsigned)module);
	w = llm_layer_tp_whole_params(a, (unsigned)module);
	return (llm_layer_params(a, (unsigned)module) - r - w) / o->tp + w +
	       r / ((uint64_t)o->tp * o->ep);
}

void gen_llm_zero3_op(struct gen *g, unsigned s, int module, enum trace_op op, double at)
{
	const struct gen_llm_options *o = g->o;
	enum trace_dtype dt = op == TRACE_OP_ALL_GATHER ? o->dtype : o->grad_dtype;

	for (unsigned t = 0; t < o->tp; t++)
		gen_llm_emit(g, dp_comm(g, s, t), op, dt,
			     gen_llm_sharded(g, dp_comm(g, s, t),
			     zero3_share(o, module) * trace_dtype_size(dt), dt),
			     at, -1, -1);
}

