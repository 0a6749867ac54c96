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

/*
 * Multi-head latent attention (DeepSeek-V2, Liu et al. 2024, section
 * 2.1): queries through a low-rank projection (none where q_rank is 0),
 * keys and values from one compressed latent of kv_rank, each head's
 * query and key a part without positions (qk_nope_dim) and a RoPE part
 * (qk_rope_dim, the key's shared by the heads).
 */
struct llm_mla {
	unsigned q_rank, kv_rank; /* kv_rank 0: not MLA */
	unsigned qk_nope_dim, qk_rope_dim, v_dim;
};

struct llm_arch {
	const char *name;     /* as --model takes it: "llama3-70b" */
	const char *source;   /* where the numbers are from */
	unsigned layers, hidden, heads, kv_heads;
	unsigned ffn;         /* the MLP's inner width (each routed expert's) */
	unsigned vocab;
	unsigned experts;     /* 1: dense; else routed experts per MoE layer */
	unsigned top_k;       /* routed experts a token goes to (MoE) */
	unsigned shared_experts; /* experts every token goes to beside its
				  * routed ones, ffn wide each (DeepSeekMoE) */
	unsigned dense_layers;   /* of a MoE, the first layers whose MLP is
				  * dense, dense_ffn wide (DeepSeek's
				  * first_k_dense_replace) */
	unsigned dense_ffn;
	struct llm_mla mla;
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

/* Whether layer @layer (from 0) is a mixture of experts. */
bool llm_layer_moe(const struct llm_arch *a, unsigned layer);
/* Parameters of one layer's attention (with its norm), every layer's. */
uint64_t llm_attention_params(const struct llm_arch *a);
/* Parameters of one routed expert's MLP (the dense MLP when experts == 1). */
uint64_t llm_expert_params(const struct llm_arch *a);
/* Parameters of layer @layer: attention, its MLP or all its experts
 * (routed and shared), norms, router. */
uint64_t llm_layer_params(const struct llm_arch *a, unsigned layer);
/* Of those, its routed experts' (0 for a dense layer): what expert
 * parallelism splits. */
uint64_t llm_layer_routed_params(const struct llm_arch *a, unsigned layer);
/* Of those, what every tensor-parallel rank holds whole: latent
 * attention's down-projections with their norms and a MoE's router
 * (Megatron-Core builds them duplicated: multi_latent_attention.py
 * parallel_mode 'duplicated', moe/router.py's weight), whose gradients
 * sequence parallelism all-reduces over the tensor-parallel group. */
uint64_t llm_layer_tp_whole_params(const struct llm_arch *a, unsigned layer);
/* The input embedding (and learned positions); the output head when
 * untied, and the final norm. */
uint64_t llm_embedding_params(const struct llm_arch *a);
uint64_t llm_head_params(const struct llm_arch *a);
uint64_t llm_total_params(const struct llm_arch *a);

/*
 * Forward FLOPs of one token of a @seq-token sequence in layer @layer: 2
 * per weight it is multiplied by (attention, and the MLP or the top_k
 * routed and the shared experts' MLPs), plus seq x heads x (query-key
 * and value widths) for the attention scores and their weighted sum, 2 x
 * seq x hidden where heads split hidden: causal, half of the 4 x seq x
 * hidden of a full mask (Narayanan et al. 2021, appendix), as Megatron-LM
 * counts them (megatron/training/training.py
 * num_floating_point_operations; until 2026-12-06 the full mask's).
 * Backward takes twice the forward's.
 */
double llm_layer_flops_per_token(const struct llm_arch *a, unsigned layer, unsigned seq);
/* The output head's: 2 x hidden x vocab. */
double llm_head_flops_per_token(const struct llm_arch *a);

/*
 * Of a token's forward FLOPs in attention (llm_layer_flops_per_token's),
 * in the order they run: the query, key and value projections (latent
 * attention's down- and up-projections), the core (scores and weighted
 * sum over a @seq-token sequence, causal) and the output projection.
 */
struct llm_attention_flops {
	double qkv, core, out;
};

void llm_attention_flops(const struct llm_arch *a, unsigned seq, struct llm_attention_flops *f);

/*
 * Elements of one token's queries, keys, values and attention output,
 * every head's, as the core of attention takes and gives them: heads x
 * head_dim, kv_heads x head_dim twice and heads x head_dim (grouped-query
 * attention), or for latent attention, whose keys and values are
 * up-projected per head, heads x (qk_nope + qk_rope) for the queries and
 * keys and heads x v_dim for the values and output.
 */
struct llm_attention_widths {
	uint64_t q, k, v, out;
};

void llm_attention_widths(const struct llm_arch *a, struct llm_attention_widths *w);

/* Of those, the keys' and values' together: k + v. */
uint64_t llm_kv_width(const struct llm_arch *a);

#endif
