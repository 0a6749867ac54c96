/* SPDX-License-Identifier: MIT */
/*
 * gen llm (gen_llm.h): the job's options and stages, its communicators,
 * each micro-batch's layers (gen_llm_layer.c, their context-parallel ring
 * in gen_llm_cp.c) and pipeline sends on the 1F1B schedule
 * (gen_llm_schedule.c), the gradient buckets, and the collectives into a
 * trace.
 */
#include "gen_llm_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array_grow.h"
#include "gcd.h"
#include "sort_unsigned.h"

#define GEN_LLM_PAR_MAX 65536
/* What a trace may hold: collectives (some 200 bytes each while made, 20
 * times the 2048-GPU Llama-3-70B job's), and ranks listed over all of
 * them (each line holds its group's; 1 GiB). */
#define GEN_LLM_COLLECTIVES_MAX (1u << 22)
#define GEN_LLM_RANKS_LISTED_MAX (1ull << 28)

void gen_llm_options_default(struct gen_llm_options *o)
{
	memset(o, 0, sizeof(*o));
	o->arch = llm_arch_find("llama3-8b");
	o->tp = o->pp = o->dp = o->ep = o->cp = o->vpp = 1;
	o->micro_batches = 1;
	o->micro_batch_size = 1;
	o->dtype = TRACE_DTYPE_BF16;
	/* Megatron-LM reduces a bf16 model's gradients in fp32 unless told
	 * otherwise (megatron/training/arguments.py: "accumulate and
	 * all-reduce gradients in fp32 for bfloat16 data type";
	 * --grad-reduce-in-bf16 to keep them bf16) */
	o->grad_dtype = TRACE_DTYPE_FP32;
	/* H100 SXM's dense BF16 peak (NVIDIA H100 datasheet: 1979 TFLOPS
	 * with sparsity, half without) at 40%, about what Llama 3's
	 * training reports (38-43% BF16 MFU, Llama 3 paper table 4). */
	o->gpu_tflops = 989.5;
	o->efficiency = 0.4;
	/* Megatron-Core's buckets (gen_llm_buckets.c bucket_size), reduced
	 * as backward fills them: off in megatron/training/arguments.py
	 * (--overlap-grad-reduce), on in the large runs' recipes, and what
	 * a replay of communication beside compute is for */
	o->overlap_grad_reduce = true;
	o->bucket_bytes = 0;
	o->iterations = 1;
}

static int opt_err(struct diag *d, const char *opt, const char *fmt, unsigned v)
{
	char msg[160];

	snprintf(msg, sizeof(msg), fmt, v);
	return diag_set(d, -EINVAL, "%s: %s", opt, msg);
}

/*
 * Context parallelism: each sequence in 2 cp chunks, a rank taking chunk
 * c and 2 cp - 1 - c so that a causal mask gives every rank as much
 * work (Megatron-LM's arguments.py: "seq-length should be a multiple of
 * 2 * context-parallel-size"; TransformerEngine context_parallel.py
 * get_batch_on_this_cp_rank).
 */
static int check_cp(const struct gen_llm_options *o, struct diag *d)
{
	if (!o->cp || o->cp > GEN_LLM_PAR_MAX)
		return opt_err(d, "--cp", "%u: between 1 and 65536", o->cp);
	if (o->cp > 1 && o->seq % (2 * o->cp))
		return diag_set(d, -EINVAL,
				"--cp: %u does not split --seq %u into 2 x %u equal chunks (Megatron-LM asks a multiple of 2 x cp)",
				o->cp, o->seq, o->cp);
	if (o->cp_comm >= GEN_LLM_CP_COUNT)
		return diag_set(d, -EINVAL, "--cp-comm-type: expected p2p, all_gather or a2a");
	/* Ulysses splits a rank's heads over cp (context_parallel.py
	 * AttnFuncWithCPAndQKVOA2A: "cp_comm_type='a2a' requires num_heads
	 * % cp_size == 0 for Q, K, V"); latent attention's keys are per head */
	if (o->cp > 1 && o->cp_comm == GEN_LLM_CP_A2A &&
	    (o->arch->heads / o->tp % o->cp ||
	     (!o->arch->mla.kv_rank && o->arch->kv_heads / o->tp % o->cp)))
		return diag_set(d, -EINVAL,
				"--cp-comm-type: a2a splits a rank's heads over cp: --cp %u does not divide %s's %u query and %u key-value heads over --tp %u",
				o->cp, o->arch->name, o->arch->heads,
				o->arch->mla.kv_rank ? o->arch->heads : o->arch->kv_heads, o->tp);
	return 0;
}

/*
 * Interleaving, as Megatron-LM takes it (megatron/training/arguments.py,
 * --num-virtual-stages-per-pipeline-rank, or
 * --num-layers-per-virtual-pipeline-stage = layers / (pp x vpp)): "When
 * interleaved schedule is used, pipeline-model-parallel size should be
 * greater than 1"; the layers split evenly, "number of layers of the
 * model must be divisible pipeline model parallel size" and each stage's
 * by its chunks; and the micro-batches in groups of pp
 * (microbatch_group_size_per_vp_stage, pp by default,
 * model_parallel_config.py), which schedules.py
 * forward_backward_pipelining_with_interleaving asks to lie in [pp, m]
 * with no group left over short of pp: a multiple of pp.
 */
static int check_vpp(const struct gen_llm_options *o, struct diag *d)
{
	unsigned chunks = o->pp * o->vpp;

	if (!o->vpp || o->vpp > o->arch->layers)
		return opt_err(d, "--vpp", "%u model chunks a pipeline rank: between 1 and the model's layers",
			       o->vpp);
	if (o->vpp == 1)
		return 0;
	if (o->pp < 2)
		return diag_set(d, -EINVAL,
				"--vpp: %u model chunks need --pp 2 or more (Megatron-LM interleaves only a pipeline of 2 stages or more)",
				o->vpp);
	if (o->arch->layers % chunks)
		return diag_set(d, -EINVAL,
				"--vpp: %s's %u layers do not split into --pp %u x --vpp %u = %u equal chunks (Megatron-LM asks the layers a multiple of pp x vpp)",
				o->arch->name, o->arch->layers, o->pp, o->vpp, chunks);
	if (o->micro_batches % o->pp)
		return diag_set(d, -EINVAL,
				"--micro-batches: %u with --vpp %u: Megatron-LM's interleaved schedule runs micro-batches in groups of --pp %u, so it asks a multiple of %u",
				o->micro_batches, o->vpp, o->pp, o->pp);
	return 0;
}

int gen_llm_check(const struct gen_llm_options *o, struct diag *d)
{
	const struct llm_arch *a = o->arch;
	int err;

	if (!a)
		return diag_set(d, -EINVAL, "--model: no model");
	if (!o->tp)
		return opt_err(d, "--tp", "%u: expected 1 or more GPUs a tensor-parallel group", 0);
	if (o->tp > GEN_LLM_PAR_MAX || a->heads % o->tp || a->kv_heads % o->tp) {
		if (a->mla.kv_rank || a->kv_heads == a->heads)
			return diag_set(d, -EINVAL,
					"--tp: %u does not divide %s's %u attention heads",
					o->tp, a->name, a->heads);
		return diag_set(d, -EINVAL,
				"--tp: %u does not divide %s's attention heads (%u, %u of keys and values)",
				o->tp, a->name, a->heads, a->kv_heads);
	}
	if (!o->pp || o->pp > a->layers)
		return opt_err(d, "--pp", "%u stages: between 1 and the model's layers", o->pp);
	if (!o->dp || o->dp > GEN_LLM_PAR_MAX)
		return opt_err(d, "--dp", "%u: between 1 and 65536", o->dp);
	err = check_cp(o, d);
	if (err)
		return err;
	if (!o->ep)
		return opt_err(d, "--ep", "%u: expected 1 or more GPUs an expert-parallel group", 0);
	/* the expert rank generator takes its ep and expert-dp ranks from
	 * the dense layers' dp x cp (parallel_state.py: expert_data_parallel_size
	 * = world / (etp x ep x pp)) */
	if (replicas(o) % o->ep)
		return o->cp == 1 ? opt_err(d, "--ep", "%u does not divide --dp", o->ep) :
				    diag_set(d, -EINVAL, "--ep: %u does not divide --dp x --cp (%u)",
					     o->ep, replicas(o));
	if (o->ep > 1 && a->experts < 2)
		return diag_set(d, -EINVAL, "--ep: %s has no experts (not a mixture of experts)",
				a->name);
	if (o->ep > 1 && a->experts % o->ep)
		return diag_set(d, -EINVAL, "--ep: %u does not divide %s's %u experts a layer",
				o->ep, a->name, a->experts);
	/* Megatron-Core trains a MoE under tensor parallelism only with
	 * sequence parallelism (moe_layer.py MoELayer.forward raises: "MoE
	 * and tensor parallelism are enabled without also enabling sequence
	 * parallelism"; TransformerConfig: "When using expert parallelism and
	 * tensor parallelism, sequence parallelism must be used") */
	if (a->experts > 1 && o->tp > 1 && !o->sequence_parallel)
		return diag_set(d, -EINVAL,
				"--tp: %s is a mixture of experts: with --tp %u it needs --sequence-parallel, as Megatron-Core asks",
				a->name, o->tp);
	if ((unsigned long long)o->tp * o->cp * o->pp * o->dp > GEN_LLM_PAR_MAX)
		return o->cp == 1 ? opt_err(d, "--tp", "tp x pp x dp = %u ranks is more than 65536",
					    o->tp * o->pp * o->dp) :
				    diag_set(d, -EINVAL,
					     "--cp: tp x cp x pp x dp = %llu ranks is more than 65536",
					     (unsigned long long)o->tp * o->cp * o->pp * o->dp);
	if (o->zero > 3)
		return opt_err(d, "--zero", "%u: expected 0, 1, 2 or 3", o->zero);
	if (o->zero == 3 && o->ep > 1)
		return opt_err(d, "--zero", "%u with expert parallelism is not modelled", o->zero);
	if (o->sequence_parallel && o->tp < 2)
		return diag_set(d, -EINVAL, "--sequence-parallel: needs --tp 2 or more");
	if (!o->micro_batches || o->micro_batches > GEN_LLM_PAR_MAX)
		return opt_err(d, "--micro-batches", "%u: between 1 and 65536", o->micro_batches);
	/* --vpp first: a chunk count past the layers is its own error, not
	 * the micro-batches' sends below */
	err = check_vpp(o, d);
	if (err)
		return err;
	/* each stage pair's sends a batch number (pp_batch), a trace's up to 2^31 */
	if ((unsigned long long)o->pp * o->vpp * o->micro_batches > (1u << 30))
		return diag_set(d, -EINVAL,
				"--micro-batches: %u with --pp %u: more than 2^30 sends a pipeline",
				o->micro_batches, o->pp);
	if (!o->micro_batch_size || o->micro_batch_size > GEN_LLM_PAR_MAX)
		return opt_err(d, "--micro-batch-size", "%u: between 1 and 65536",
			       o->micro_batch_size);
	if (!o->seq || o->seq > (1u << 24) || (o->sequence_parallel && o->seq % o->tp))
		return opt_err(d, "--seq", "%u tokens: 1 to 16 Mi, a multiple of --tp with --sequence-parallel",
			       o->seq);
	/* a rank's seq / cp tokens split again over tp */
	if (o->sequence_parallel && (o->seq / o->cp) % o->tp)
		return diag_set(d, -EINVAL,
				"--seq: %u tokens over --cp %u leave %u a rank, not a multiple of --tp %u (--sequence-parallel)",
				o->seq, o->cp, o->seq / o->cp, o->tp);
	if (!(o->gpu_tflops > 0) || !isfinite(o->gpu_tflops))
		return diag_set(d, -EINVAL, "--gpu-tflops: must be > 0");
	if (!(o->efficiency > 0 && o->efficiency <= 1))
		return diag_set(d, -EINVAL, "--efficiency: must be in (0, 1]");
	if (!o->iterations)
		return diag_set(d, -EINVAL, "--iterations: must be > 0");
	return 0;
}

void gen_llm_chunk(const struct gen_llm_options *o, unsigned s, unsigned c,
		   struct gen_llm_stage *st)
{
	const struct llm_arch *a = o->arch;
	/* virtual stage v of pp x vpp (transformer_layer.py
	 * get_transformer_layer_offset: vp_stage x layers / vpp + pp_rank x
	 * layers / (pp x vpp)); v is s and the chunks the stages with vpp 1 */
	unsigned nv = o->pp * o->vpp, v = c * o->pp + s;
	unsigned base = a->layers / nv, extra = a->layers % nv;
	bool first = v == 0, last_stage = v + 1 == nv;
	/* a rank's share of a micro-batch's tokens: seq / cp with context
	 * parallelism, each attending on average to as many keys as without
	 * (the chunks are balanced), so its FLOPs a token are seq's */
	double tokens = (double)o->micro_batch_size * (o->seq / o->cp), flops;
	uint64_t dense = 0, routed = 0;
	unsigned moe = 0, last;

	/* Megatron splits layers evenly; any remainder goes to the first. */
	st->layers = base + (v < extra);
	st->first_layer = v * base + (v < extra ? v : extra);
	last = st->first_layer + st->layers - 1;
	/* Tensor parallelism splits every matrix but the few every rank
	 * holds whole (llm_layer_tp_whole_params; norms are small enough to
	 * count as split); a rank holds its share of each module (zero3_share
	 * gathers them one at a time) */
	st->tp_whole_params = 0;
	for (unsigned l = st->first_layer; l <= last; l++) {
		uint64_t r = llm_layer_routed_params(a, l), w = llm_layer_tp_whole_params(a, l);

		dense += (llm_layer_params(a, l) - r - w) / o->tp + w;
		routed += r / ((uint64_t)o->tp * o->ep);
		st->tp_whole_params += w;
		moe += llm_layer_moe(a, l);
	}
	/* a stage's dense and MoE layers, each kind's FLOPs alike (its
	 * first and its last layer stand for them) */
	flops = (st->layers - moe) * llm_layer_flops_per_token(a, st->first_layer, o->seq) +
		moe * llm_layer_flops_per_token(a, last, o->seq);
	/* the words' embedding split over tp (VocabParallelEmbedding), the
	 * learned positions whole on every rank (language_model_embedding.py:
	 * a torch.nn.Embedding); with tied embeddings over stages the last
	 * holds its own copy of the words' as its output layer (gpt_model.py
	 * skip_weight_param_allocation only where pre_process) */
	if (first)
		dense += (uint64_t)a->vocab * a->hidden / o->tp +
			 (uint64_t)a->learned_positions * a->hidden;
	if (last_stage)
		dense += llm_head_params(a) / o->tp +
			 (a->tied_embeddings && o->pp > 1 ? (uint64_t)a->vocab * a->hidden / o->tp : 0);
	st->dense_params = dense;
	st->expert_params = routed;
	flops = tokens * (flops + (last_stage ? llm_head_flops_per_token(a) : 0));
	st->forward_us = flops / o->tp / (o->gpu_tflops * 1e12 * o->efficiency) * 1e6;
	st->backward_us = 2 * st->forward_us;
}

void gen_llm_stage(const struct gen_llm_options *o, unsigned s, struct gen_llm_stage *st)
{
	gen_llm_chunk(o, s, 0, st);
	for (unsigned c = 1; c < o->vpp; c++) {
		struct gen_llm_stage more;

		gen_llm_chunk(o, s, c, &more);
		st->layers += more.layers;
		st->dense_params += more.dense_params;
		st->expert_params += more.expert_params;
		st->tp_whole_params += more.tp_whole_params;
		st->forward_us += more.forward_us;
		st->backward_us += more.backward_us;
	}
}


/* Communicator @k, of @n ranks (added by add_rank), named @name. */
static void set_comm_name(struct gen *g, size_t k, unsigned n, const char *name)
{
	struct gcomm *gc = &g->comms[k];

	snprintf(gc->name, sizeof(gc->name), "%s", name);
	gc->idx = -1;
	gc->n = 0;
	gc->ranks = malloc(n * sizeof(*gc->ranks));
	if (!gc->ranks)
		g->err = -ENOMEM;
}

static void set_comm(struct gen *g, size_t k, unsigned n, const char *fmt, unsigned a,
		     unsigned b, unsigned c)
{
	char name[sizeof(g->comms[k].name)];

	snprintf(name, sizeof(name), fmt, a, b, c);
	set_comm_name(g, k, n, name);
}

static void add_rank(struct gen *g, size_t k, unsigned r)
{
	if (g->comms[k].ranks)
		g->comms[k].ranks[g->comms[k].n++] = r;
}

/* Whether the last stage holds a copy of the tied embedding (its output
 * layer) apart from the first's. */
static bool tied_copy(const struct gen_llm_options *o)
{
	return o->arch->tied_embeddings && o->pp > 1;
}

/* A group of replica @r: named "{kind}-{before}d{d}{after}" as before
 * context parallelism where there is none (r is d), else
 * "{kind}-{before}d{d}-c{c}{after}". */
static void set_replica_comm(struct gen *g, size_t k, unsigned n, const char *kind,
			     const char *before, unsigned r, const char *after)
{
	char name[sizeof(g->comms[k].name)];
	unsigned cp = g->o->cp;

	if (cp == 1)
		snprintf(name, sizeof(name), "%s-%sd%u%s", kind, before, r, after);
	else
		snprintf(name, sizeof(name), "%s-%sd%u-c%u%s", kind, before, r / cp, r % cp, after);
	set_comm_name(g, k, n, name);
}

static void make_stage_comms(struct gen *g, unsigned s)
{
	const struct gen_llm_options *o = g->o;
	unsigned tp = o->tp, cp = o->cp, ep = o->ep, nr = replicas(o);

	for (unsigned r = 0; r < nr; r++) {
		char stage[16];

		snprintf(stage, sizeof(stage), "s%u-", s);
		set_replica_comm(g, tp_comm(g, s, r), tp, "tp", stage, r, "");
		for (unsigned t = 0; t < tp; t++)
			add_rank(g, tp_comm(g, s, r), rank_of(o, t, r, s));
	}
	for (unsigned t = 0; t < tp; t++) {
		/* Megatron-Core's "dp-cp" group with cp 2 or more */
		set_comm(g, dp_comm(g, s, t), nr, cp > 1 ? "dp-cp-s%u-t%u" : "dp-s%u-t%u", s, t, 0);
		for (unsigned r = 0; r < nr; r++)
			add_rank(g, dp_comm(g, s, t), rank_of(o, t, r, s));
		for (unsigned b = 0; ep > 1 && b < nr / ep; b++) {
			set_comm(g, ep_comm(g, s, t, b), ep, "ep-s%u-t%u-b%u", s, t, b);
			for (unsigned j = 0; j < ep; j++)
				add_rank(g, ep_comm(g, s, t, b), rank_of(o, t, b * ep + j, s));
		}
		for (unsigned j = 0; ep > 1 && j < ep; j++) {
			set_comm(g, edp_comm(g, s, t, j), nr / ep, "edp-s%u-t%u-e%u", s, t, j);
			for (unsigned b = 0; b < nr / ep; b++)
				add_rank(g, edp_comm(g, s, t, j), rank_of(o, t, b * ep + j, s));
		}
		for (unsigned d = 0; cp > 1 && d < o->dp; d++) {
			set_comm(g, cp_comm(g, s, d, t), cp, "cp-s%u-d%u-t%u", s, d, t);
			for (unsigned c = 0; c < cp; c++)
				add_rank(g, cp_comm(g, s, d, t), rank_of(o, t, c + cp * d, s));
		}
	}
}

static int make_comms(struct gen *g)
{
	const struct gen_llm_options *o = g->o;
	unsigned tp = o->tp, pp = o->pp, dp = o->dp, cp = o->cp, ep = o->ep, nr = replicas(o);

	g->off_dp = (size_t)pp * nr;
	g->off_pp = g->off_dp + (size_t)pp * tp;
	g->off_ep = g->off_pp + (pp > 1 ? (size_t)nr * tp : 0);
	g->off_edp = g->off_ep + (ep > 1 ? (size_t)pp * tp * (nr / ep) : 0);
	g->off_emb = g->off_edp + (ep > 1 ? (size_t)pp * tp * ep : 0);
	g->off_cp = g->off_emb + (tied_copy(o) ? (size_t)nr * tp : 0);
	g->ncomms = g->off_cp + (cp > 1 ? (size_t)pp * dp * tp : 0);
	g->comms = calloc(g->ncomms, sizeof(*g->comms));
	if (!g->comms)
		return -ENOMEM;
	for (unsigned s = 0; s < pp && !g->err; s++)
		make_stage_comms(g, s);
	for (unsigned r = 0; pp > 1 && r < nr && !g->err; r++)
		for (unsigned t = 0; t < tp; t++) {
			char rank[16];

			snprintf(rank, sizeof(rank), "-t%u", t);
			set_replica_comm(g, pp_comm(g, r, t), pp, "pp", "", r, rank);
			for (unsigned s = 0; s < pp; s++)
				add_rank(g, pp_comm(g, r, t), rank_of(o, t, r, s));
		}
	for (unsigned r = 0; tied_copy(o) && r < nr && !g->err; r++)
		for (unsigned t = 0; t < tp; t++) {
			char rank[16];

			snprintf(rank, sizeof(rank), "-t%u", t);
			set_replica_comm(g, emb_comm(g, r, t), 2, "emb", "", r, rank);
			add_rank(g, emb_comm(g, r, t), rank_of(o, t, r, 0));
			add_rank(g, emb_comm(g, r, t), rank_of(o, t, r, pp - 1));
		}
	for (size_t k = 0; k < g->ncomms && !g->err; k++)
		sort_unsigned(g->comms[k].ranks, g->comms[k].n);
	return g->err;
}

struct gev *gen_llm_emit(struct gen *g, size_t comm, enum trace_op op, enum trace_dtype dt,
			 uint64_t bytes, double ready, int src, int dst)
{
	struct gev *v;

	if (g->err || !bytes)
		return NULL;
	/* refused as it grows past what a trace may hold, not once made */
	g->listed += g->comms[comm].n;
	if (g->nev >= GEN_LLM_COLLECTIVES_MAX || g->listed > GEN_LLM_RANKS_LISTED_MAX) {
		g->err = -E2BIG;
		return NULL;
	}
	if (array_grow((void **)&g->ev, g->nev, &g->cap, sizeof(*g->ev))) {
		g->err = -ENOMEM;
		return NULL;
	}
	v = &g->ev[g->nev];
	memset(v, 0, sizeof(*v));
	v->e.iteration = g->iteration;
	v->e.op = op;
	v->e.dtype = dt;
	v->e.bytes = bytes;
	v->e.ready_us = ready;
	v->e.compute_us = g->compute_us;
	v->e.root = src;
	v->e.peer = dst;
	v->comm = comm;
	v->seq = g->nev++;
	return v;
}

/*
 * The batch of a send between stages b and b + 1 (Megatron-LM's
 * batch_p2p_comm, its default without interleaving: p2p_communication.py
 * sends through torch.distributed.batch_isend_irecv). In 1F1B, stage b's
 * forward of micro-batch i, past its warm-up (w = min(pp - 1 - b, m)),
 * sends the activations with the receive of micro-batch i - w's
 * gradients (send_forward_recv_backward), which stage b + 1's
 * send_backward_recv_forward sends with that receive: one batch both
 * ways. The warm-up's activations and the cool-down's gradients go alone.
 */
static unsigned pp_batch(const struct gen_llm_options *o, unsigned b, bool grad, unsigned i)
{
	unsigned m = o->micro_batches, w = o->pp - 1 - b < m ? o->pp - 1 - b : m;

	if (!grad)
		return 2 * (b * m + i);
	return i + w < m ? 2 * (b * m + i + w) : 2 * (b * m + i) + 1;
}

/* How a pipeline send goes: batched (1F1B's batch_isend_irecv) in
 * @batch, or alone on @stream; @tie orders it among sends at one time. */
struct pp_way {
	bool batched;
	unsigned batch, stream, tie;
};

/* A micro-batch's activations or gradients from rank @s to rank @to at
 * @at (sequence parallel: a tensor rank's share), on every pipeline
 * (replica, tensor rank), as @w says. */
static void pp_emit(struct gen *g, unsigned s, unsigned to, double at, const struct pp_way *w)
{
	const struct gen_llm_options *o = g->o;
	uint64_t bytes = activation_bytes(o) / (o->sequence_parallel ? o->tp : 1);

	for (unsigned r = 0; r < replicas(o); r++)
		for (unsigned t = 0; t < o->tp; t++) {
			struct gev *v = gen_llm_emit(g, pp_comm(g, r, t), TRACE_OP_SENDRECV, o->dtype,
						     bytes, at, (int)rank_of(o, t, r, s),
						     (int)rank_of(o, t, r, to));

			if (v) {
				v->e.batched = w->batched;
				v->e.batch = w->batch;
				v->e.stream = w->stream;
				v->tie = w->tie;
			}
		}
}

/* Micro-batch @i's activations (to the next stage) or gradients (to the
 * previous one) from stage @s, on every pipeline. */
static void pp_send(struct gen *g, unsigned s, unsigned to, unsigned i, double at)
{
	const struct gen_llm_options *o = g->o;
	unsigned batch = pp_batch(o, s < to ? s : to, to < s, i);
	/* At one time a stage sends what it has just run before it receives
	 * its next work (1F1B: send_forward before the next recv_forward,
	 * send_backward before the next recv_backward): a later stage's
	 * activations before an earlier one's, an earlier stage's gradients
	 * before a later one's. */
	struct pp_way w = { true, batch, 0, 1 + (s < to ? o->pp - s : s) };

	pp_emit(g, s, to, at, &w);
}

/*
 * With --vpp, a micro-batch's activations (@grad false: to the next
 * rank, the last rank's to the first, whose next chunk takes them) or
 * gradients (to the previous rank, the first's to the last) from rank
 * @s, on every pipeline (p2p_communication.py P2PCommunicator: next_rank
 * and prev_rank modulo the pipeline group's size). Megatron-LM
 * interleaves with --overlap-p2p-comm on (its default:
 * --no-overlap-p2p-communication turns it off) and so batch_p2p_comm
 * off (training/argument_utils.py: "not args.overlap_p2p_comm"): each
 * send an isend of its own (_p2p_ops), which PyTorch runs on its pair's
 * own communicator and stream, issued as the forward or backward that
 * made it ends. With pp 2 _p2p_ops puts the odd rank's sends on the
 * world group, another pair communicator, so that they overlap the even
 * rank's: here stream 1 of the pipeline group.
 */
static void pp_send_interleaved(struct gen *g, unsigned s, bool grad, double at)
{
	const struct gen_llm_options *o = g->o;
	unsigned pp = o->pp, to = grad ? (s + pp - 1) % pp : (s + 1) % pp;
	/* as pp_send's: a later rank's activations first, an earlier one's
	 * gradients (the ring's wrap aside) */
	struct pp_way w = { false, 0, pp == 2 && s % 2, 1 + (grad ? s : pp - s) };

	pp_emit(g, s, to, at, &w);
}

/* ZeRO 3's @op of @layer at @at, with the module that runs before it and
 * the one after (Z3_EMBEDDING, Z3_HEAD; Z3_NONE: none), in that order;
 * nothing without ZeRO 3. */
static void zero3_modules(struct gen *g, unsigned s, enum trace_op op, double at, int before,
			  int layer, int after)
{
	if (g->o->zero != 3)
		return;
	if (before != Z3_NONE)
		gen_llm_zero3_op(g, s, before, op, at);
	gen_llm_zero3_op(g, s, layer, op, at);
	if (after != Z3_NONE)
		gen_llm_zero3_op(g, s, after, op, at);
}

/* Rank @s's sends after chunk @c's forward (@grad false) or backward of
 * micro-batch @i, ending at @at: 1F1B's batched ones (vpp 1) or the
 * interleaved schedule's, but for the first virtual stage's gradients
 * and the last one's activations. */
static void chunk_send(struct gen *g, unsigned s, unsigned c, bool grad, unsigned i, double at)
{
	const struct gen_llm_options *o = g->o;

	if (o->vpp == 1) {
		if (!grad && s + 1 < o->pp)
			pp_send(g, s, s + 1, i, at);
		if (grad && s > 0)
			pp_send(g, s, s - 1, i, at);
		return;
	}
	if (grad ? s || c : s + 1 < o->pp || c + 1 < o->vpp)
		pp_send_interleaved(g, s, grad, at);
}

static void micro_batch(struct gen *g, const struct schedule *sc, unsigned s, unsigned c,
			unsigned i, const struct gen_llm_stage *st)
{
	const struct gen_llm_options *o = g->o;
	size_t ix = sched_at(sc, s, c, i), ch = chunk_at(sc, s, c);
	double f0 = sc->f[ix], b0 = sc->b[ix];
	double lf = sc->fdur[ch] / st->layers, lb = sc->bdur[ch] / st->layers;
	bool first = s == 0 && c == 0, end = s + 1 == o->pp && c + 1 == o->vpp;
	/* a layer's place among its rank's, for the cp ring's batches */
	unsigned k0 = c * st->layers;

	/* the embedding and the head run with the first and the last layer,
	 * in their time */
	for (unsigned k = 0; k < st->layers; k++) {
		int layer = (int)(st->first_layer + k);
		int embedding = first && !k ? Z3_EMBEDDING : Z3_NONE;
		int head = end && k + 1 == st->layers ? Z3_HEAD : Z3_NONE;

		zero3_modules(g, s, TRACE_OP_ALL_GATHER, f0 + k * lf, embedding, layer, head);
		gen_llm_tp_layer(g, s, (unsigned)layer, f0 + k * lf, lf, false);
		gen_llm_cp_layer(g, s, i, k0 + k, f0 + k * lf, lf, false);
		gen_llm_moe_layer(g, s, (unsigned)layer, f0 + k * lf, lf, false);
	}
	chunk_send(g, s, c, false, i, f0 + sc->fdur[ch]);
	/* backward, the head and the last layer first; the head's backward
	 * runs first, but its time is shared out with the layers' (lb): it
	 * ends with the first slot, its gradients' scatter ahead of the last
	 * layer's */
	for (unsigned k = 0; k < st->layers; k++) {
		int layer = (int)(st->first_layer + st->layers - 1 - k);
		double at = b0 + k * lb, done = b0 + (k + 1) * lb;
		int head = end && !k ? Z3_HEAD : Z3_NONE;
		int embedding = first && k + 1 == st->layers ? Z3_EMBEDDING : Z3_NONE;

		zero3_modules(g, s, TRACE_OP_ALL_GATHER, at, head, layer, embedding);
		gen_llm_tp_layer(g, s, (unsigned)layer, at, lb, true);
		gen_llm_cp_layer(g, s, i, k0 + k, at, lb, true);
		gen_llm_moe_layer(g, s, (unsigned)layer, at, lb, true);
		zero3_modules(g, s, TRACE_OP_REDUCE_SCATTER, done, head, layer, embedding);
	}
	chunk_send(g, s, c, true, i, b0 + sc->bdur[ch]);
}

uint64_t gen_llm_sharded(const struct gen *g, size_t comm, uint64_t bytes, enum trace_dtype dt)
{
	uint64_t e = trace_dtype_size(dt), n = g->comms[comm].n ? g->comms[comm].n : 1;
	uint64_t unit = n / gcd_u64(n, 128) * 128, elts = (bytes / e + unit - 1) / unit * unit;

	return elts * e;
}

static int cmp_ev(const void *pa, const void *pb)
{
	const struct gev *a = pa, *b = pb;

	if (a->e.ready_us != b->e.ready_us)
		return a->e.ready_us < b->e.ready_us ? -1 : 1;
	if (a->tie != b->tie)
		return a->tie < b->tie ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

/* What every tp rank of stage @s holds whole saw only its sequence
 * shard: its gradients summed over the group after the dp sync
 * (finalize_model_grads.py, finish_grad_sync then
 * _allreduce_non_tensor_model_parallel_grads, one coalesced call over
 * the rank's model chunks; the norms', counted as split, left out). */
static void tp_whole_sync(struct gen *g, unsigned s, double at)
{
	const struct gen_llm_options *o = g->o;
	struct gen_llm_stage st;

	gen_llm_stage(o, s, &st);
	for (unsigned r = 0; o->sequence_parallel && st.tp_whole_params && r < replicas(o); r++)
		gen_llm_emit(g, tp_comm(g, s, r), TRACE_OP_ALLREDUCE, o->grad_dtype,
			     st.tp_whole_params * trace_dtype_size(o->grad_dtype), at, -1, -1);
}

/* Stage @s's micro-batches and gradient sync, 1F1B. */
static void stage_1f1b(struct gen *g, const struct schedule *sc, unsigned s)
{
	const struct gen_llm_options *o = g->o;
	struct gen_llm_stage st;
	double b0 = sc->b[sched_at(sc, s, 0, sc->m - 1)];

	gen_llm_stage(o, s, &st);
	for (unsigned i = 0; i < o->micro_batches && !g->err; i++)
		micro_batch(g, sc, s, 0, i, &st);
	if (o->zero < 3 && replicas(o) > 1)
		gen_llm_grad_sync(g, s, 0, b0, sc->bdur[s], GEN_LLM_SYNC_BOTH);
	tp_whole_sync(g, s, b0 + sc->bdur[s]);
}

/*
 * Rank @s's chunks, interleaved: each chunk's micro-batches, then its
 * gradients (each chunk a DDP module of its own, Megatron's model list),
 * all its buckets at once when the schedule starts its sync
 * (gen_llm_schedule_chunk_sync), or at the rank's end without
 * --overlap-grad-reduce (finalize_model_grads); with ZeRO 1, 2 every
 * chunk's parameters gathered after the step, chunk by chunk, once all
 * are reduced.
 */
static void stage_interleaved(struct gen *g, const struct schedule *sc, unsigned s)
{
	const struct gen_llm_options *o = g->o;
	bool sync = o->zero < 3 && replicas(o) > 1;
	double end = sc->rank_end[s];

	for (unsigned c = 0; c < o->vpp && !g->err; c++) {
		struct gen_llm_stage st;

		gen_llm_chunk(o, s, c, &st);
		for (unsigned i = 0; i < o->micro_batches && !g->err; i++)
			micro_batch(g, sc, s, c, i, &st);
		if (sync)
			gen_llm_grad_sync(g, s, c,
					  o->overlap_grad_reduce ? gen_llm_schedule_chunk_sync(sc, s, c) : end,
					  0, GEN_LLM_SYNC_REDUCE);
	}
	for (unsigned c = 0; sync && c < o->vpp; c++)
		gen_llm_grad_sync(g, s, c, end, 0, GEN_LLM_SYNC_GATHER);
	tp_whole_sync(g, s, end);
}

static void one_iteration(struct gen *g, const struct schedule *sc)
{
	const struct gen_llm_options *o = g->o;
	size_t first = g->nev;

	for (unsigned s = 0; s < o->pp && !g->err; s++) {
		if (o->vpp == 1)
			stage_1f1b(g, sc, s);
		else
			stage_interleaved(g, sc, s);
	}
	/* the tied embedding's two copies, on the first stage and the last
	 * (chunk 0 of the first, the last chunk of the last with --vpp),
	 * their gradients summed once both stages' data-parallel sync is
	 * done (finalize_model_grads.py: finish_grad_sync, then
	 * _allreduce_word_embedding_grads over the embedding group: the
	 * whole main_grad, in the gradients' dtype), the first stage's
	 * backward ending last in 1F1B */
	for (unsigned r = 0; tied_copy(o) && r < replicas(o); r++)
		for (unsigned t = 0; t < o->tp; t++) {
			double end0 = sc->rank_end[0], endl = sc->rank_end[o->pp - 1];

			gen_llm_emit(g, emb_comm(g, r, t), TRACE_OP_ALLREDUCE, o->grad_dtype,
				     (uint64_t)o->arch->vocab * o->arch->hidden / o->tp *
					     trace_dtype_size(o->grad_dtype),
				     end0 > endl ? end0 : endl, -1, -1);
		}
	if (!g->err && g->nev > first) /* (no events: g->ev may be NULL) */
		qsort(g->ev + first, g->nev - first, sizeof(*g->ev), cmp_ev);
}

/* The events into @t, each on its communicator with its ranks. */
static int fill_trace(struct gen *g, struct trace *t, struct diag *d)
{
	t->entries = calloc(g->nev ? g->nev : 1, sizeof(*t->entries));
	if (!t->entries)
		return -ENOMEM;
	t->niterations = g->o->iterations;
	for (size_t i = 0; i < g->nev; i++) {
		struct gcomm *c = &g->comms[g->ev[i].comm];
		struct trace_entry *e = &t->entries[t->nentries++];
		int err;

		*e = g->ev[i].e;
		e->line = (unsigned)(i + 1);
		e->group = malloc(c->n * sizeof(*e->group));
		if (!e->group)
			return -ENOMEM;
		memcpy(e->group, c->ranks, c->n * sizeof(*e->group));
		e->ngroup = c->n;
		if (c->idx >= 0) {
			e->comm = (unsigned)c->idx;
			continue;
		}
		err = trace_comm_assign(t, e, c->name, e->stream, d);
		if (err)
			return err;
		c->idx = (long)e->comm;
	}
	return 0;
}

int gen_llm_trace(const struct gen_llm_options *o, struct trace *t, struct diag *d)
{
	struct gen g = { .o = o };
	struct schedule sc;
	int err;

	memset(t, 0, sizeof(*t));
	snprintf(t->file, sizeof(t->file), "gen llm %s", o->arch ? o->arch->name : "");
	err = gen_llm_check(o, d);
	if (err)
		return err;
	err = gen_llm_schedule_1f1b(o, &sc);
	if (!err && !(sc.end <= TRACE_TIME_MAX_US)) {
		err = diag_set(d, -EINVAL,
			       "--gpu-tflops: an iteration's compute at %g TFLOP/s x %g comes to %g us, "
			       "beyond the %g a trace holds",
			       o->gpu_tflops, o->efficiency, sc.end, TRACE_TIME_MAX_US);
		gen_llm_schedule_destroy(&sc);
		return err;
	}
	if (!err) {
		g.compute_us = sc.end;
		err = make_comms(&g);
		for (unsigned it = 0; !err && it < o->iterations; it++) {
			g.iteration = it;
			one_iteration(&g, &sc);
			err = g.err;
		}
		if (err == -E2BIG)
			diag_set(d, err,
				 "the trace would hold more than %u collectives or list more than %llu ranks over them (every line its group's): fewer ranks a group (--dp, --tp, --cp), fewer --micro-batches or --iterations, or a larger --bucket-cap",
				 GEN_LLM_COLLECTIVES_MAX, GEN_LLM_RANKS_LISTED_MAX);
		if (!err && !g.nev)
			err = diag_set(d, -EINVAL, "gen llm: no collectives (a single GPU: --tp, --pp, --dp all 1)");
		if (!err)
			err = fill_trace(&g, t, d);
		/* a batch's two sends, ready apart, in a row */
		if (!err)
			err = trace_gather_batches(t);
		gen_llm_schedule_destroy(&sc);
	}
	for (size_t k = 0; k < g.ncomms; k++)
		free(g.comms[k].ranks);
	free(g.comms);
	free(g.ev);
	if (err == -ENOMEM)
		diag_set(d, err, "gen llm: out of memory");
	if (err)
		trace_destroy(t);
	return err;
}
