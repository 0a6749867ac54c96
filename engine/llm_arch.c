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
	{
		/* DeepSeek-V2-Lite (DeepSeek-AI 2024, "DeepSeek-V2", section
		 * 3.1 and appendix B): deepseek-ai/DeepSeek-V3's
		 * inference/configs/config_16B.json and model.py. 27 layers,
		 * the first dense (10944 wide), the others 64 routed experts
		 * of 1408, 6 a token, and 2 shared ones; multi-head latent
		 * attention without a query rank. 15,706,484,224 parameters
		 * (the paper's 15.7B); 4K-token pre-training sequences. */
		.name = "deepseek-v2-lite",
		.source = "deepseek-ai/DeepSeek-V3 inference/configs/config_16B.json, model.py; DeepSeek-V2 paper",
		.layers = 27, .hidden = 2048, .heads = 16, .kv_heads = 16, .ffn = 1408,
		.vocab = 102400, .experts = 64, .top_k = 6, .shared_experts = 2,
		.dense_layers = 1, .dense_ffn = 10944, .gated_mlp = true,
		.mla = { .q_rank = 0, .kv_rank = 512, .qk_nope_dim = 128, .qk_rope_dim = 64,
			 .v_dim = 128 },
		.default_seq = 4096,
	},
	{
		/* DeepSeek-V3 (DeepSeek-AI 2024, "DeepSeek-V3 Technical
		 * Report", sections 2.1 and 4.2): inference/configs/
		 * config_671B.json and model.py of deepseek-ai/DeepSeek-V3. 61
		 * layers, the first 3 dense (18432 wide), the others 256
		 * routed experts of 2048, 8 a token, and one shared. 671,026,
		 * 404,352 parameters (the report's 671B) without the gate's
		 * score-correction bias (256 a MoE layer), which its
		 * load-balancing rule sets, not a gradient, and without the
		 * multi-token-prediction module (the checkpoint's other 14B);
		 * 4K-token pre-training sequences. */
		.name = "deepseek-v3",
		.source = "deepseek-ai/DeepSeek-V3 inference/configs/config_671B.json, model.py; DeepSeek-V3 report",
		.layers = 61, .hidden = 7168, .heads = 128, .kv_heads = 128, .ffn = 2048,
		.vocab = 129280, .experts = 256, .top_k = 8, .shared_experts = 1,
		.dense_layers = 3, .dense_ffn = 18432, .gated_mlp = true,
		.mla = { .q_rank = 1536, .kv_rank = 512, .qk_nope_dim = 128, .qk_rope_dim = 64,
			 .v_dim = 128 },
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

bool llm_layer_moe(const struct llm_arch *a, unsigned layer)
{
	return a->experts > 1 && layer >= a->dense_layers;
}

/* An attention's matrices: q, k, v, o, or MLA's projections. */
static uint64_t attention_weights(const struct llm_arch *a)
{
	const struct llm_mla *m = &a->mla;
	uint64_t h = a->hidden, kv = (uint64_t)a->kv_heads * (a->hidden / a->heads);
	uint64_t heads = a->heads, qk = (uint64_t)m->qk_nope_dim + m->qk_rope_dim, q;

	if (!m->kv_rank)
		return 2 * h * h + 2 * h * kv; /* q, o; k, v */
	/* DeepSeek-V3 inference/model.py MLA: wq (or wq_a, wq_b), wkv_a
	 * (the latent and the shared RoPE key), wkv_b, wo */
	q = m->q_rank ? h * m->q_rank + m->q_rank * heads * qk : h * heads * qk;
	return q + h * (m->kv_rank + m->qk_rope_dim) +
	       m->kv_rank * heads * (m->qk_nope_dim + m->v_dim) + heads * m->v_dim * h;
}

uint64_t llm_attention_params(const struct llm_arch *a)
{
	uint64_t h = a->hidden, kv = (uint64_t)a->kv_heads * (a->hidden / a->heads);
	uint64_t w = attention_weights(a);

	if (a->biases)
		w += 2 * h + 2 * kv;
	if (a->qk_norm)
		w += h + kv;
	if (a->mla.kv_rank) /* q_norm, kv_norm on the low ranks */
		w += a->mla.q_rank + a->mla.kv_rank;
	return w + norm(a);
}

/* An MLP of @f inner width. */
static uint64_t mlp_params(const struct llm_arch *a, uint64_t f)
{
	uint64_t h = a->hidden;

	if (a->gated_mlp)
		return 3 * h * f + (a->biases ? 2 * f + h : 0);
	return 2 * h * f + (a->biases ? f + h : 0);
}

uint64_t llm_expert_params(const struct llm_arch *a)
{
	return mlp_params(a, a->ffn);
}

uint64_t llm_layer_routed_params(const struct llm_arch *a, unsigned layer)
{
	return llm_layer_moe(a, layer) ? a->experts * llm_expert_params(a) : 0;
}

uint64_t llm_layer_params(const struct llm_arch *a, unsigned layer)
{
	uint64_t mlp;

	if (llm_layer_moe(a, layer))
		/* the shared experts are one MLP of their widths together
		 * (model.py MLP(dim, n_shared_experts * moe_inter_dim)) */
		mlp = llm_layer_routed_params(a, layer) +
		      (a->shared_experts ? mlp_params(a, (uint64_t)a->shared_experts * a->ffn) : 0) +
		      (uint64_t)a->hidden * a->experts; /* router */
	else
		mlp = mlp_params(a, a->experts > 1 ? a->dense_ffn : a->ffn);
	return llm_attention_params(a) + mlp + norm(a);
}

uint64_t llm_layer_tp_whole_params(const struct llm_arch *a, unsigned layer)
{
	const struct llm_mla *m = &a->mla;
	uint64_t h = a->hidden, w = llm_layer_moe(a, layer) ? h * a->experts : 0;

	if (m->kv_rank) /* wq_a and q_norm, wkv_a and kv_norm */
		w += (h + 1) * m->q_rank + h * (m->kv_rank + m->qk_rope_dim) + m->kv_rank;
	return w;
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
	uint64_t sum = llm_embedding_params(a) + llm_head_params(a);

	for (unsigned l = 0; l < a->layers; l++)
		sum += llm_layer_params(a, l);
	return sum;
}

double llm_layer_flops_per_token(const struct llm_arch *a, unsigned layer, unsigned seq)
{
	const struct llm_mla *m = &a->mla;
	double h = a->hidden, mats = a->gated_mlp ? 3 : 2, mlp, widths;

	if (llm_layer_moe(a, layer))
		mlp = (double)(a->top_k + a->shared_experts) * a->ffn;
	else
		mlp = a->experts > 1 ? a->dense_ffn : a->ffn;
	/* scores: each head's query-key width; weighted sum: its value's;
	 * causal, half the seq x seq of each computed (FlashAttention skips
	 * the masked blocks), as Megatron-LM counts them (megatron/training/
	 * training.py num_floating_point_operations: "causal mask (only half
	 * of the mask is non-zero)") */
	widths = m->kv_rank ? (double)a->heads * (m->qk_nope_dim + m->qk_rope_dim + m->v_dim) :
			      2 * h;
	return 2.0 * attention_weights(a) + 2.0 * mats * h * mlp + seq * widths;
}

void llm_attention_flops(const struct llm_arch *a, unsigned seq, struct llm_attention_flops *f)
{
	const struct llm_mla *m = &a->mla;
	double h = a->hidden;
	/* the output projection: every head's value back to hidden (wo) */
	double out = m->kv_rank ? 2.0 * a->heads * m->v_dim * h : 2.0 * h * h;

	f->out = out;
	f->qkv = 2.0 * attention_weights(a) - out;
	/* as llm_layer_flops_per_token counts them */
	f->core = seq * (m->kv_rank ? (double)a->heads * (m->qk_nope_dim + m->qk_rope_dim + m->v_dim) :
				      2 * h);
}

void llm_attention_widths(const struct llm_arch *a, struct llm_attention_widths *w)
{
	const struct llm_mla *m = &a->mla;
	uint64_t hd = a->hidden / a->heads;

	if (m->kv_rank) {
		w->q = w->k = (uint64_t)a->heads * (m->qk_nope_dim + m->qk_rope_dim);
		w->v = w->out = (uint64_t)a->heads * m->v_dim;
		return;
	}
	w->q = w->out = (uint64_t)a->heads * hd;
	w->k = w->v = (uint64_t)a->kv_heads * hd;
}

uint64_t llm_kv_width(const struct llm_arch *a)
{
	struct llm_attention_widths w;

	llm_attention_widths(a, &w);
	return w.k + w.v;
}

double llm_head_flops_per_token(const struct llm_arch *a)
{
	return 2.0 * a->hidden * a->vocab;
}
