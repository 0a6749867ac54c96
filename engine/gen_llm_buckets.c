/* SPDX-License-Identifier: MIT */
/*
 * gen llm: a stage's data-parallel gradient buckets as Megatron-Core
 * makes them (megatron/core/distributed/distributed_data_parallel.py,
 * param_and_grad_buffer.py; megatron/core/optimizer/distrib_optimizer.py
 * _compute_per_buffer_param_layout), from its parameters in the order
 * the model registers them, and the collectives over each.
 */
#include <errno.h>
#include <stdlib.h>

#include "array_grow.h"
#include "gcd.h"
#include "gen_llm_internal.h"

/* One parameter of a rank, its elements, and whether it is the tied
 * embedding's copy on the first or the last stage (Megatron marks it
 * shared_embedding: language_module.py setup_embeddings_and_output_layer). */
struct param {
	uint64_t n;
	bool shared;
};

struct params {
	struct param *p;
	size_t n, cap;
	int err;
};

static void add(struct params *ps, uint64_t n, bool shared)
{
	if (ps->err || !n)
		return;
	if (array_grow((void **)&ps->p, ps->n, &ps->cap, sizeof(*ps->p))) {
		ps->err = -ENOMEM;
		return;
	}
	ps->p[ps->n++] = (struct param){ n, shared };
}

/*
 * Layer @layer's parameters on a rank, as Megatron-Core's layer spec
 * registers them: attention (the query, key and value projection,
 * latent attention's projections: one here), its output projection,
 * then the MLP: a dense one's fc1 and fc2, or a MoE's router, its
 * routed experts (TEGroupedMLP: every local expert's fc1, then every
 * one's fc2) and the shared experts' fc1 and fc2 (moe_layer.py
 * MoELayer). The layer's norms and biases go with its first: a bucket
 * closes at a matrix's end, and they are a few hidden's worth, a
 * thousandth of a bucket or less. The routed experts go to @expert with expert parallelism
 * (their own buffer, over edp: param.allreduce False), else with the
 * rest. The sums are gen_llm_stage's shares to the element.
 */
static void layer_params(const struct gen_llm_options *o, unsigned layer, struct params *dense,
			 struct params *expert)
{
	const struct llm_arch *a = o->arch;
	uint64_t h = a->hidden, tp = o->tp, mats = a->gated_mlp ? 3 : 2;
	uint64_t r = llm_layer_routed_params(a, layer), w = llm_layer_tp_whole_params(a, layer);
	uint64_t share = (llm_layer_params(a, layer) - r - w) / tp + w;
	uint64_t proj = (a->mla.kv_rank ? (uint64_t)a->heads * a->mla.v_dim : h) * h / tp;
	uint64_t f = llm_layer_moe(a, layer) ? (uint64_t)a->shared_experts * a->ffn :
		     a->experts > 1 ? a->dense_ffn : a->ffn;
	uint64_t up = (mats - 1) * h * f / tp, down = h * f / tp;
	uint64_t router = llm_layer_moe(a, layer) ? h * a->experts : 0;
	struct params *to = o->ep > 1 ? expert : dense;

	add(dense, share - proj - router - up - down, false);
	add(dense, proj, false);
	add(dense, router, false);
	if (r) {
		uint64_t local = a->experts / o->ep, eup = (mats - 1) * h * a->ffn / tp;
		uint64_t edown = h * a->ffn / tp, left = r / (tp * o->ep);

		/* the last expert's fc2 takes what the even split leaves */
		for (uint64_t e = 0; e < local; e++, left -= eup)
			add(to, eup, false);
		for (uint64_t e = 0; e + 1 < local; e++, left -= edown)
			add(to, edown, false);
		add(to, left, false);
	}
	add(dense, up, false);
	add(dense, down, false);
}

/*
 * Chunk @c of stage @s's parameters on a rank in the model's order
 * (GPTModel: the embedding, its words then its learned positions, the
 * layers, the final norm, the output layer; the embedding in the first
 * virtual stage, the output layer in the last: pre_process and
 * post_process by vp_stage). With tied embeddings and more than one
 * stage the last holds a copy of the words' embedding as its output
 * layer (gpt_model.py: skip_weight_param_allocation only where
 * pre_process), kept equal to the first's by an all-reduce of their
 * gradients (finalize_model_grads.py _allreduce_word_embedding_grads).
 */
static void stage_params(const struct gen_llm_options *o, unsigned s, unsigned c,
			 struct params *dense, struct params *expert)
{
	const struct llm_arch *a = o->arch;
	struct gen_llm_stage st;
	uint64_t words = (uint64_t)a->vocab * a->hidden / o->tp;
	bool tied_copy = a->tied_embeddings && o->pp > 1;

	gen_llm_chunk(o, s, c, &st);
	if (s == 0 && c == 0) {
		add(dense, words, tied_copy);
		add(dense, (uint64_t)a->learned_positions * a->hidden, false);
	}
	for (unsigned l = st.first_layer; l < st.first_layer + st.layers; l++)
		layer_params(o, l, dense, expert);
	if (s + 1 == o->pp && c + 1 == o->vpp) {
		uint64_t head = llm_head_params(a) / o->tp;

		if (a->tied_embeddings) {
			add(dense, head, false);
			if (tied_copy)
				add(dense, words, true);
		} else {
			add(dense, head - words, false);
			add(dense, words, false);
		}
	}
}

static uint64_t round_up(uint64_t v, uint64_t d)
{
	return (v + d - 1) / d * d;
}

/* A buffer's layout as it is made: elements from its start. */
struct layout {
	struct gen *g;
	size_t comm;
	bool distopt;
	uint64_t div;          /* a bucket's end, with distopt */
	uint64_t start;        /* the next parameter's */
	uint64_t bstart;       /* the open bucket's */
	uint64_t total, done;  /* parameters, and those placed */
	bool open;
	double b0, dur;
	bool reduce;           /* emit the buckets' reductions */
	uint64_t *numel;       /* the buckets closed */
	size_t nb, cap;
};

static void close_bucket(struct layout *l, uint64_t end)
{
	const struct gen_llm_options *o = l->g->o;

	if (l->distopt)
		end = round_up(end, l->div);
	if (array_grow((void **)&l->numel, l->nb, &l->cap, sizeof(*l->numel))) {
		l->g->err = -ENOMEM;
		return;
	}
	l->numel[l->nb++] = end - l->bstart;
	if (l->reduce)
		gen_llm_emit(l->g, l->comm, l->distopt ? TRACE_OP_REDUCE_SCATTER : TRACE_OP_ALLREDUCE,
		     o->grad_dtype, (end - l->bstart) * trace_dtype_size(o->grad_dtype),
		     l->b0 + l->dur * (double)l->done / (double)l->total, -1, -1);
	l->bstart = l->start = end;
	l->open = false;
}

/*
 * The buckets of @ps reduced over communicator @comm, as Megatron-Core
 * lays a buffer out: its parameters in reverse (backward's order), a
 * bucket closed at the end of the parameter that brings it to @size
 * elements or more (0: never, one bucket). The distributed optimizer
 * (ZeRO 1, 2) starts each parameter at a multiple of 64 elements
 * (param_layout.py pad_param_start), pads each bucket's end to
 * lcm(ranks, 128) (bucket_end_divisor) so that every rank's shard is
 * whole, and gives the tied embedding's copy a bucket of its own
 * (distrib_optimizer.py _compute_per_buffer_param_layout,
 * _does_param_require_new_bucket); without it, none of these
 * (param_and_grad_buffer.py _compute_default_per_buffer_param_layout).
 * A bucket is reduced when the last micro-batch's backward, spread
 * evenly over the parameters, has produced its last gradient; with the
 * distributed optimizer each bucket's parameters are all-gathered after
 * the step, the same buckets in the parameters' dtype
 * (_ParamAndGradBucketGroup.start_param_sync: one all-gather a bucket,
 * in the buckets' order).
 */
static void buckets(struct gen *g, size_t comm, const struct params *ps, uint64_t size,
		    double b0, double dur, int what)
{
	uint64_t n = g->comms[comm].n;
	struct layout l = {
		.g = g, .comm = comm, .distopt = g->o->zero > 0,
		.div = n / gcd_u64(n, 128) * 128, .b0 = b0, .dur = dur,
		.reduce = what & GEN_LLM_SYNC_REDUCE,
	};

	for (size_t i = 0; i < ps->n; i++)
		l.total += ps->p[i].n;
	for (size_t k = ps->n; k-- > 0 && !g->err;) {
		const struct param *p = &ps->p[k];
		uint64_t end;

		if (l.distopt)
			l.start = round_up(l.start, 64);
		if (l.distopt && p->shared && l.open)
			close_bucket(&l, l.start);
		end = l.start + p->n;
		l.done += p->n;
		l.open = true;
		if ((size && end - l.bstart >= size) || (l.distopt && p->shared))
			close_bucket(&l, end);
		else
			l.start = end;
	}
	if (l.open && !g->err)
		close_bucket(&l, l.start);
	for (size_t b = 0; l.distopt && (what & GEN_LLM_SYNC_GATHER) && b < l.nb; b++)
		gen_llm_emit(g, comm, TRACE_OP_ALL_GATHER, g->o->dtype,
			     l.numel[b] * trace_dtype_size(g->o->dtype), b0 + dur, -1, -1);
	free(l.numel);
}

/*
 * Megatron-Core's bucket, in parameters: max(40M, 1M x dp) with
 * overlap_grad_reduce (distributed_data_parallel.py: "If using very
 * large dp_sizes, make buckets larger"), --bucket-cap's gradients where
 * given; none (one bucket a buffer) without overlap, and on every stage
 * but the first ("Turn off bucketing if we are on a pipeline stage that
 * is not the first (since data-parallel communication on these stages
 * is not on the critical path)"), nor on any model chunk but the first
 * with --vpp (training.py get_model: per_chunk_disable_bucketing,
 * chunk_idx > 0). Its dp is the data-parallel group's
 * without context parallelism (dp_group.size(), the group
 * setup_process_groups_for_ddp takes with_context_parallel=False), though
 * the buckets are reduced over dp x cp ranks (intra_dp_cp_group).
 */
static uint64_t bucket_size(const struct gen_llm_options *o, unsigned s, unsigned c)
{
	uint64_t e = trace_dtype_size(o->grad_dtype);

	if (!o->overlap_grad_reduce || s > 0 || c > 0)
		return 0;
	if (o->bucket_bytes)
		return o->bucket_bytes / e ? o->bucket_bytes / e : 1;
	return o->dp > 40 ? 1000000ull * o->dp : 40000000ull;
}

void gen_llm_grad_sync(struct gen *g, unsigned s, unsigned c, double b0, double dur, int what)
{
	const struct gen_llm_options *o = g->o;
	struct params dense = { 0 }, expert = { 0 };
	uint64_t size = bucket_size(o, s, c);

	stage_params(o, s, c, &dense, &expert);
	if (dense.err || expert.err)
		g->err = -ENOMEM;
	for (unsigned t = 0; !g->err && t < o->tp; t++) {
		buckets(g, dp_comm(g, s, t), &dense, size, b0, dur, what);
		for (unsigned j = 0; o->ep > 1 && replicas(o) / o->ep > 1 && j < o->ep; j++)
			buckets(g, edp_comm(g, s, t, j), &expert, size, b0, dur, what);
	}
	free(dense.p);
	free(expert.p);
}
