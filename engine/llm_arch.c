/* SPDX-License-Identifier: MIT */
/*
 * The LLM zoo. Each entry's numbers are its published configuration's;
 * the totals these give are checked in tests/unit/test_gen_llm.c against
 * the published parameter counts.
 */
#include "llm_arch.h"

#include <string.h>

const struct llm_arch llm_archs[] = {
	{
		/* Hugging Face meta-llama/Meta-Llama-3-8B config.json; 8192-token
		 * sequences (Meta's model card). 8,030,261,248 parameters. */
		.name = "llama3-8b", .source = "meta-llama/Meta-Llama-3-8B config.json",
		.layers = 32, .hidden = 4096, .heads = 32, .kv_heads = 8, .ffn = 14336,
		.vocab = 128256, .experts = 1, .top_k = 1, .gated_mlp = true,
		.default_seq = 8192,
	},
	{
		/* meta-llama/Meta-Llama-3-70B config.json. 70,553,706,496. */
		.name = "llama3-70b", .source = "meta-llama/Meta-Llama-3-70B config.json",
		.layers = 80, .hidden = 8192, .heads = 64, .kv_heads = 8, .ffn = 28672,
		.vocab = 128256, .experts = 1, .top_k = 1, .gated_mlp = true,
		.default_seq = 8192,
	},
	{
		/* meta-llama/Llama-3.1-405B config.json; "The Llama 3 Herd of
		 * Models" (2024), table 3. 405,853,388,800. */
		.name = "llama3-405b", .source = "meta-llama/Llama-3.1-405B config.json; Llama 3 paper, table 3",
		.layers = 126, .hidden = 16384, .heads = 128, .kv_heads = 8, .ffn = 53248,
		.vocab = 128256, .experts = 1, .top_k = 1, .gated_mlp = true,
		.default_seq = 8192,
	},
	{
		/* Brown et al. 2020, "Language Models are Few-Shot Learners",
		 * table 2.1: 96 layers, d_model 12288, 96 heads, 2048-token
		 * context; GPT-2's 50257-token vocabulary, learned positions,
		 * biases and LayerNorms, the FFN 4 x d_model, the output head
		 * tied to the embedding (Radford et al. 2019). */
		.name = "gpt3-175b", .source = "Brown et al. 2020, table 2.1",
		.layers = 96, .hidden = 12288, .heads = 96, .kv_heads = 96, .ffn = 49152,
		.vocab = 50257, .experts = 1, .top_k = 1, .biases = true,
		.tied_embeddings = true, .learned_positions = 2048, .default_seq = 2048,
	},
	{
		/* mistralai/Mixtral-8x7B-v0.1 config.json; Jiang et al. 2024,
		 * "Mixtral of Experts", table 1: 8 experts, 2 a token.
		 * 46,702,792,704 parameters. The paper gives the 32768-token
		 * context, not the training length: --seq says it. */
		.name = "mixtral-8x7b", .source = "mistralai/Mixtral-8x7B-v0.1 config.json; Mixtral paper, table 1",
		.layers = 32, .hidden = 4096, .heads = 32, .kv_heads = 8, .ffn = 14336,
		.vocab = 32000, .experts = 8, .top_k = 2, .gated_mlp = true,
		.default_seq = 32768,
	},
	{
		/* allenai/OLMoE-1B-7B-0924 config.json; Muennighoff et al.
		 * 2024, "OLMoE: Open Mixture-of-Experts Language Models": 64
		 * small experts, 8 a token, RMSNorms on queries and keys
		 * (transformers' OlmoeAttention q_norm, k_norm), the output
		 * head its own. 6,919,161,856 parameters. Trained on 4096
		 * tokens (max_position_embeddings). */
		.name = "olmoe-1b-7b", .source = "allenai/OLMoE-1B-7B-0924 config.json; OLMoE paper",
		.layers = 16, .hidden = 2048, .heads = 16, .kv_heads = 16, .ffn = 1024,
		.vocab = 50304, .experts = 64, .top_k = 8, .gated_mlp = true, .qk_norm = true,
		.default_seq = 4096,
	},
	{ .name = NULL },
};

const struct llm_arch *llm_arch_find(const char *name)
{
	for (const struct llm_arch *a = llm_archs; a->name; a++)
		if (strcmp(a->name, name) == 0)
			return a;
	return NULL;
}

/* A norm's parameters: a scale (RMSNorm), and a shift (LayerNorm). */
static uint64_t norm(const struct llm_arch *a)
{
	return (a->biases ? 2ULL : 1ULL) * a->hidden;
}

uint64_t llm_attention_params(const struct llm_arch *a)
{
	uint64_t h = a->hidden, kv = (uint64_t)a->kv_heads * (a->hidden / a->heads);
	uint64_t w = 2 * h * h + 2 * h * kv; /* q, o; k, v */

	if (a->biases)
		w += 2 * h + 2 * kv;
	if (a->qk_norm)
		w += h + kv;
	return w + norm(a);
}

uint64_t llm_expert_params(const struct llm_arch *a)
{
	uint64_t h = a->hidden, f = a->ffn;

	if (a->gated_mlp)
		return 3 * h * f + (a->biases ? 2 * f + h : 0);
	return 2 * h * f + (a->biases ? f + h : 0);
}

uint64_t llm_layer_params(const struct llm_arch *a)
{
	uint64_t router = a->experts > 1 ? (uint64_t)a->hidden * a->experts : 0;

	return llm_attention_params(a) + a->experts * llm_expert_params(a) + norm(a) + router;
}

uint64_t llm_embedding_params(const struct llm_arch *a)
{
	return ((uint64_t)a->vocab + a->learned_positions) * a->hidden;
}

uint64_t llm_head_params(const struct llm_arch *a)
{
	return (a->tied_embeddings ? 0 : (uint64_t)a->vocab * a->hidden) + norm(a);
}

uint64_t llm_total_params(const struct llm_arch *a)
{
	return a->layers * llm_layer_params(a) + llm_embedding_params(a) + llm_head_params(a);
}

double llm_layer_flops_per_token(const struct llm_arch *a, unsigned seq)
{
	double h = a->hidden, kv = (double)a->kv_heads * (a->hidden / a->heads);
	double attn = 2 * (2 * h * h + 2 * h * kv);
	double mlp = 2.0 * a->top_k * (a->gated_mlp ? 3 : 2) * h * a->ffn;

	return attn + mlp + 4.0 * seq * h;
}

double llm_head_flops_per_token(const struct llm_arch *a)
{
	return 2.0 * a->hidden * a->vocab;
}
