/* SPDX-License-Identifier: MIT */
/*
 * llm_arch: decoder-only transformers as their published configurations
 * give them (each entry of llm_arch.c cites its source), and the counts
 * the LLM generator (gen_llm.h) needs from them: parameters per layer and
 * per expert, embeddings, FLOPs per token.
 */
#ifndef GDRLAB_LLM_ARCH_H
#define GDRLAB_LLM_ARCH_H

#include <stdbool.h>
#include <stdint.h>

struct llm_arch {
	const char *name;     /* as --model takes it: "llama3-70b" */
	const char *source;   /* where the numbers are from */
	unsigned layers, hidden, heads, kv_heads;
	unsigned ffn;         /* the MLP's inner width (each expert's) */
	unsigned vocab;
	unsigned experts;     /* 1: dense; else experts per MoE layer */
	unsigned top_k;       /* experts a token goes to (MoE) */
	bool gated_mlp;       /* SwiGLU: three matrices, else two */
	bool biases;          /* linear layers and LayerNorms have biases */
	bool tied_embeddings; /* the output head is the embedding */
	bool qk_norm;         /* RMSNorms on the queries and keys (OLMoE) */
	unsigned learned_positions; /* positions of a learned table, 0: RoPE */
	unsigned default_seq; /* the training sequence length of its paper */
};

/* The table, NULL-name terminated. */
extern const struct llm_arch llm_archs[];
const struct llm_arch *llm_arch_find(const char *name);

/* Parameters of one layer's attention (with its norm). */
uint64_t llm_attention_params(const struct llm_arch *a);
/* Parameters of one expert's MLP (the dense MLP when experts == 1). */
uint64_t llm_expert_params(const struct llm_arch *a);
/* Parameters of one layer: attention, all its experts, norm, router. */
uint64_t llm_layer_params(const struct llm_arch *a);
/* The input embedding (and learned positions); the output head when
 * untied, and the final norm. */
uint64_t llm_embedding_params(const struct llm_arch *a);
uint64_t llm_head_params(const struct llm_arch *a);
uint64_t llm_total_params(const struct llm_arch *a);

/*
 * Forward FLOPs of one token of a @seq-token sequence in one layer: 2 per
 * weight it is multiplied by (attention, and top_k experts' MLPs), plus
 * 4 x seq x hidden for the attention scores and their weighted sum
 * (Kaplan et al. 2020, table 1; Narayanan et al. 2021, appendix).
 * Backward takes twice the forward's.
 */
double llm_layer_flops_per_token(const struct llm_arch *a, unsigned seq);
/* The output head's: 2 x hidden x vocab. */
double llm_head_flops_per_token(const struct llm_arch *a);

#endif
