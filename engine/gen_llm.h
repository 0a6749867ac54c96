/* SPDX-License-Identifier: MIT */
/*
 * gen_llm: the collectives of one LLM training iteration under tensor,
 * pipeline, data and expert parallelism, as Megatron-LM and ZeRO run them
 * (docs/gen-llm.md), every group on a communicator of its own so that
 * they overlap when replayed:
 *
 *   tensor (tp)   per layer and micro-batch, two all-reduces forward and
 *                 two backward of the activations, or with sequence
 *                 parallelism an all-gather and a reduce-scatter for each;
 *   pipeline (pp) a send of the activations to the next stage after each
 *                 forward and of their gradient to the previous one after
 *                 each backward, under the 1F1B schedule, or with
 *                 --vpp the interleaved one (each rank vpp model
 *                 chunks, the last rank's sends to the first's next
 *                 chunk); a tied embedding's gradients all-reduced
 *                 between the first stage and the last, which holds a
 *                 copy of it;
 *   data (dp)     the gradients: all-reduced in Megatron-Core's buckets
 *                 (ZeRO 0), reduce-scattered and each bucket's
 *                 parameters all-gathered after the step (ZeRO 1, 2:
 *                 its distributed optimizer), or every layer's parameters
 *                 all-gathered forward and backward and its gradients
 *                 reduce-scattered, each micro-batch (ZeRO 3);
 *   expert (ep)   per MoE layer and micro-batch an all-to-all dispatch and
 *                 combine forward and backward; the experts' gradients
 *                 over the dp / ep ranks that hold the same experts;
 *   context (cp)  each sequence split over cp ranks, and per layer and
 *                 micro-batch the keys and values passed round the cp
 *                 group's ring, forward and backward (TransformerEngine's
 *                 AttnFuncWithCPAndKVP2P); the gradients reduced over
 *                 the dp x cp ranks.
 *
 * Ranks are numbered as Megatron-Core's default order "tp-cp-ep-dp-pp"
 * (megatron/core/parallel_state.py RankGenerator): rank = t + tp (c + cp
 * (d + dp s)). Compute times come from FLOPs over a stated GPU peak and
 * efficiency.
 */
#ifndef GDRLAB_GEN_LLM_H
#define GDRLAB_GEN_LLM_H

#include <stdbool.h>
#include <stdint.h>

#include "diag.h"
#include "llm_arch.h"
#include "trace.h"

/*
 * How attention's core communicates over the context-parallel group,
 * Megatron-LM's --cp-comm-type (TransformerEngine's cp_comm_type):
 * "p2p", the default, K,V round a ring overlapping each step's
 * attention; "all_gather", K and V all-gathered before it; "a2a"
 * (DeepSpeed-Ulysses), the queries, keys and values exchanged from
 * sequence to heads by all-to-alls, and the output back.
 */
enum gen_llm_cp_comm {
	GEN_LLM_CP_P2P,
	GEN_LLM_CP_ALL_GATHER,
	GEN_LLM_CP_A2A,
	GEN_LLM_CP_COUNT
};

/* Its names as --cp-comm-type spells them; -EINVAL for another. */
const char *gen_llm_cp_comm_name(enum gen_llm_cp_comm c);
int gen_llm_cp_comm_parse(const char *name, enum gen_llm_cp_comm *out);

struct gen_llm_options {
	const struct llm_arch *arch;
	unsigned tp, pp, dp, ep;     /* ep divides dp x cp; ep > 1 needs experts */
	unsigned vpp;                /* model chunks a pipeline rank (interleaved
				      * 1F1B), 1: none; pp x vpp divide the
				      * layers, pp the micro-batches */
	unsigned cp;                 /* context parallel: 2 cp chunks divide seq */
	enum gen_llm_cp_comm cp_comm; /* how attention exchanges over cp */
	unsigned zero;               /* 0 to 3 */
	bool sequence_parallel;      /* needs tp > 1 */
	unsigned micro_batches;      /* per iteration, per pipeline */
	unsigned micro_batch_size;   /* sequences per micro-batch */
	unsigned seq;                /* tokens per sequence */
	enum trace_dtype dtype;      /* parameters and activations */
	enum trace_dtype grad_dtype; /* gradients as reduced */
	double gpu_tflops;           /* dense peak of one GPU, TFLOP/s */
	double efficiency;           /* of that peak the model reaches */
	bool overlap_grad_reduce;    /* buckets reduced as backward fills
				      * them (Megatron-Core's bucket_size);
				      * off: one bucket a buffer */
	uint64_t bucket_bytes;       /* of gradients a bucket at least;
				      * 0: Megatron-Core's size */
	unsigned iterations;
};

void gen_llm_options_default(struct gen_llm_options *o);

/* Check @o (an error names the option, as the command line spells it). */
int gen_llm_check(const struct gen_llm_options *o, struct diag *d);

/* What one stage's rank holds and computes, for the trace's header and
 * the tests' closed forms. */
struct gen_llm_stage {
	unsigned first_layer, layers;
	uint64_t dense_params;   /* per rank: its tp share of the stage's
				  * attention, norms, embeddings, head (and
				  * dense MLPs, shared experts), whole what
				  * tp does not split (learned positions
				  * too); the last stage's copy of a tied
				  * embedding with its head */
	uint64_t expert_params;  /* per rank: its tp and ep share of the
				  * stage's experts (0 for a dense model) */
	uint64_t tp_whole_params; /* of dense_params, what every tp rank
				   * holds whole (llm_layer_tp_whole_params) */
	double forward_us, backward_us; /* one micro-batch */
};

/* Stage @s: with --vpp, its rank's chunks summed (first_layer its first
 * chunk's; the chunks' layers are not in a row). */
void gen_llm_stage(const struct gen_llm_options *o, unsigned s, struct gen_llm_stage *st);

/* Model chunk @c of pipeline rank @s: virtual stage c x pp + s of pp x vpp
 * (Megatron-Core's get_transformer_layer_offset), the embedding on the
 * first, the output layer on the last; chunk 0 is the stage with vpp 1. */
void gen_llm_chunk(const struct gen_llm_options *o, unsigned s, unsigned c,
		   struct gen_llm_stage *st);

/* The 1F1B schedule's length (interleaved with --vpp): every stage's
 * compute, with its bubble. */
double gen_llm_iteration_us(const struct gen_llm_options *o);

/* The trace: @o->iterations iterations, every group's collectives. */
int gen_llm_trace(const struct gen_llm_options *o, struct trace *t, struct diag *d);

#endif
