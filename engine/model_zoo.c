/* SPDX-License-Identifier: MIT */
/*
 * model_zoo: parameter layouts, built from each architecture's definition
 * (loops over its layers, in the order PyTorch registers the parameters) or
 * read from a "name numel" text file. A built-in layout's weights also carry
 * their layers' forward FLOPs, which gen_ddp times backward by; a file's
 * have none.
 *
 * The totals are checked in tests/unit/test_gen_ddp.c against the published
 * counts: torchvision resnet50 25,557,032; Hugging Face bert-large-uncased
 * BertModel (with pooler, without the pre-training heads) 335,141,888;
 * Llama-2-7b 6,738,415,616.
 */
#include "gen_ddp.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array_grow.h"
#include "input_file.h"

#define LAYOUT_NAME_MAX 255
/* 2^48 elements: far above any single tensor, far below overflow. */
#define LAYOUT_NUMEL_MAX (1ULL << 48)

const char *const model_layout_builtin_names[] = {
	"resnet50",
	"bert-large",
	"llama2-7b",
	NULL,
};

/* Grows a layout; the first failure sticks so loops need not check. */
struct builder {
	struct model_layout *l;
	size_t cap;
	size_t *off; /* name offsets into l->names until builder_finish() */
	size_t nlen, ncap;
	int err;
};

static int builder_grow(struct builder *b, size_t namelen)
{
	struct model_param *p;
	size_t *off;
	char *names;
	size_t cap;

	if (b->l->nparams == b->cap) {
		cap = b->cap ? 2 * b->cap : 256;
		p = realloc(b->l->params, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		b->l->params = p;
		off = realloc(b->off, cap * sizeof(*off));
		if (!off)
			return -ENOMEM;
		b->off = off;
		b->cap = cap;
	}
	if (b->nlen + namelen + 1 > b->ncap) {
		cap = b->ncap ? 2 * b->ncap : 4096;
		while (cap < b->nlen + namelen + 1)
			cap *= 2;
		names = realloc(b->l->names, cap);
		if (!names)
			return -ENOMEM;
		b->l->names = names;
		b->ncap = cap;
	}
	return 0;
}

static void add_param(struct builder *b, uint64_t numel, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void add_param(struct builder *b, uint64_t numel, const char *fmt, ...)
{
	char name[LAYOUT_NAME_MAX + 1];
	va_list ap;
	int n;

	if (b->err)
		return;
	va_start(ap, fmt);
	n = vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	if (n < 0 || n > LAYOUT_NAME_MAX) {
		b->err = -ENAMETOOLONG;
		return;
	}
	b->err = builder_grow(b, (size_t)n);
	if (b->err)
		return;
	memcpy(b->l->names + b->nlen, name, (size_t)n + 1);
	b->off[b->l->nparams] = b->nlen;
	b->l->params[b->l->nparams].numel = numel;
	b->l->params[b->l->nparams].flops = 0;
	b->l->nparams++;
	b->nlen += (size_t)n + 1;
}

/*
 * Adds forward FLOPs to the parameter added last. A layer's work goes on
 * its last-registered parameter (a linear's bias where it has one): walking
 * backwards that is the first of the layer's gradients reached, and all of
 * them come out of the layer's one backward node together.
 */
static void add_flops(struct builder *b, double flops)
{
	if (!b->err && b->l->nparams)
		b->l->params[b->l->nparams - 1].flops += flops;
}

static void builder_init(struct builder *b, struct model_layout *l,
			 const char *name)
{
	memset(l, 0, sizeof(*l));
	memset(b, 0, sizeof(*b));
	b->l = l;
	snprintf(l->name, sizeof(l->name), "%s", name);
}

/* Names can move while the storage grows: point at them only at the end. */
static int builder_finish(struct builder *b)
{
	size_t i;
	int err = b->err;

	if (!err && !b->l->nparams)
		err = -EINVAL;
	if (!err)
		for (i = 0; i < b->l->nparams; i++)
			b->l->params[i].name = b->l->names + b->off[i];
	free(b->off);
	if (err)
		model_layout_destroy(b->l);
	return err;
}

/* A linear layer over @tokens tokens a sample: 2 FLOPs a weight a token. */
static void linear(struct builder *b, const char *prefix, const char *name,
		   uint64_t in, uint64_t out, bool bias, double tokens)
{
	add_param(b, in * out, "%s%s.weight", prefix, name);
	if (bias)
		add_param(b, out, "%s%s.bias", prefix, name);
	add_flops(b, 2 * tokens * (double)in * (double)out);
}

/* --- ResNet-50 (torchvision.models.resnet50, i.e. v1.5) ----------------- */

/* A conv without bias and its BatchNorm; adds the conv's multiply-adds. */
static void conv_bn(struct builder *b, double *macs, const char *prefix,
		    const char *conv, const char *bn, unsigned cin,
		    unsigned cout, unsigned k, unsigned hw_out)
{
	double m = (double)cin * cout * k * k * hw_out * hw_out;

	add_param(b, (uint64_t)cin * cout * k * k, "%s%s.weight", prefix, conv);
	add_flops(b, 2 * m);
	add_param(b, cout, "%s%s.weight", prefix, bn);
	add_param(b, cout, "%s%s.bias", prefix, bn);
	*macs += m;
}

static void build_resnet50(struct builder *b)
{
	static const unsigned blocks[4] = { 3, 4, 6, 3 };
	unsigned stage, blk, in = 64, width, hw = 56, hw_in;
	double macs = 0;
	char p[64];

	/* 224x224 input: the 7x7/2 stem gives 112, the max pool 56. */
	conv_bn(b, &macs, "", "conv1", "bn1", 3, 64, 7, 112);
	for (stage = 0; stage < 4; stage++) {
		width = 64u << stage;
		for (blk = 0; blk < blocks[stage]; blk++) {
			snprintf(p, sizeof(p), "layer%u.%u.", stage + 1, blk);
			hw_in = hw;
			/* v1.5: the stride-2 is in the 3x3 conv. */
			if (stage > 0 && blk == 0)
				hw /= 2;
			conv_bn(b, &macs, p, "conv1", "bn1", in, width, 1,
				hw_in);
			conv_bn(b, &macs, p, "conv2", "bn2", width, width, 3,
				hw);
			conv_bn(b, &macs, p, "conv3", "bn3", width, 4 * width,
				1, hw);
			if (blk == 0)
				conv_bn(b, &macs, p, "downsample.0",
					"downsample.1", in, 4 * width, 1, hw);
			in = 4 * width;
		}
	}
	linear(b, "", "fc", 2048, 1000, true, 1);
	macs += 2048.0 * 1000;
	/* Convolutions and the classifier only; about 4.1 G multiply-adds,
	 * the "4.09 GFLOPS" torchvision lists (it counts multiply-adds). */
	b->l->flops_per_sample = 2 * macs;
}

/* --- Transformers -------------------------------------------------------- */


/*
 * Forward FLOPs of one sequence of @seq tokens: 2 per weight of every
 * per-token matrix multiply, plus 4 * seq^2 * d per layer for the attention
 * scores and their weighted sum (as in Kaplan et al. 2020, table 1).
 */
static double attention_flops(unsigned seq, unsigned d)
{
	return 4.0 * (double)seq * seq * d;
}

static double transformer_flops(uint64_t matmul_params, unsigned layers,
				unsigned seq, unsigned d)
{
	return 2.0 * seq * (double)matmul_params +
	       layers * attention_flops(seq, d);
}

/* bert-large-uncased as Hugging Face's BertModel registers it. */
static void build_bert_large(struct builder *b)
{
	const unsigned d = 1024, ffn = 4096, layers = 24, vocab = 30522;
	const unsigned max_pos = 512, types = 2, seq = 512;
	uint64_t per_layer = 4ULL * d * d + 2ULL * d * ffn;
	unsigned i;
	char p[64];

	add_param(b, (uint64_t)vocab * d, "embeddings.word_embeddings.weight");
	add_param(b, (uint64_t)max_pos * d,
		  "embeddings.position_embeddings.weight");
	add_param(b, (uint64_t)types * d,
		  "embeddings.token_type_embeddings.weight");
	add_param(b, d, "embeddings.LayerNorm.weight");
	add_param(b, d, "embeddings.LayerNorm.bias");
	for (i = 0; i < layers; i++) {
		snprintf(p, sizeof(p), "encoder.layer.%u.", i);
		linear(b, p, "attention.self.query", d, d, true, seq);
		linear(b, p, "attention.self.key", d, d, true, seq);
		linear(b, p, "attention.self.value", d, d, true, seq);
		add_flops(b, attention_flops(seq, d));
		linear(b, p, "attention.output.dense", d, d, true, seq);
		add_param(b, d, "%sattention.output.LayerNorm.weight", p);
		add_param(b, d, "%sattention.output.LayerNorm.bias", p);
		linear(b, p, "intermediate.dense", d, ffn, true, seq);
		linear(b, p, "output.dense", ffn, d, true, seq);
		add_param(b, d, "%soutput.LayerNorm.weight", p);
		add_param(b, d, "%soutput.LayerNorm.bias", p);
	}
	/* One 512-token sequence; the pooler sees one token, left out. */
	linear(b, "", "pooler.dense", d, d, true, 0);
	b->l->flops_per_sample =
		transformer_flops(layers * per_layer, layers, seq, d);
}

/* Llama-2-7b as Hugging Face's LlamaForCausalLM registers it. */
static void build_llama2_7b(struct builder *b)
{
	const unsigned d = 4096, ffn = 11008, layers = 32, vocab = 32000;
	const unsigned seq = 4096;
	uint64_t per_layer = 4ULL * d * d + 3ULL * d * ffn;
	unsigned i;
	char p[64];

	add_param(b, (uint64_t)vocab * d, "model.embed_tokens.weight");
	for (i = 0; i < layers; i++) {
		snprintf(p, sizeof(p), "model.layers.%u.", i);
		linear(b, p, "self_attn.q_proj", d, d, false, seq);
		linear(b, p, "self_attn.k_proj", d, d, false, seq);
		linear(b, p, "self_attn.v_proj", d, d, false, seq);
		add_flops(b, attention_flops(seq, d));
		linear(b, p, "self_attn.o_proj", d, d, false, seq);
		linear(b, p, "mlp.gate_proj", d, ffn, false, seq);
		linear(b, p, "mlp.up_proj", d, ffn, false, seq);
		linear(b, p, "mlp.down_proj", ffn, d, false, seq);
		add_param(b, d, "%sinput_layernorm.weight", p);
		add_param(b, d, "%spost_attention_layernorm.weight", p);
	}
	add_param(b, d, "model.norm.weight");
	/* Not tied to the embedding in Llama 2. */
	linear(b, "", "lm_head", d, vocab, false, seq);
	/* One 4096-token sequence, the output head included. */
	b->l->flops_per_sample = transformer_flops(
		layers * per_layer + (uint64_t)d * vocab, layers, seq, d);
}

static const struct {
	const char *name;
	void (*build)(struct builder *b);
} builtins[] = {
	{ "resnet50", build_resnet50 },
	{ "bert-large", build_bert_large },
	{ "llama2-7b", build_llama2_7b },
};

int model_layout_builtin(const char *name, struct model_layout *l)
{
	struct builder b;
	size_t i;

	memset(l, 0, sizeof(*l));
	for (i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++) {
		if (strcmp(name, builtins[i].name) == 0) {
			builder_init(&b, l, name);
			builtins[i].build(&b);
			return builder_finish(&b);
		}
	}
	return -ENOENT;
}

/* --- Layout files --------------------------------------------------------- */

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* "name numel": columns are 1-based byte offsets, for the messages. */
static int parse_layout_line(struct builder *b, char *s, const char *path,
			     unsigned line, struct diag *d)
{
	char *name, *num, *end, *hash = strchr(s, '#');
	unsigned long long v;
	size_t i = 0, nlen;

	if (hash)
		*hash = '\0';
	while (is_blank(s[i]))
		i++;
	if (!s[i])
		return 0;
	name = s + i;
	while (s[i] && !is_blank(s[i]))
		i++;
	nlen = (size_t)(s + i - name);
	if (nlen > LAYOUT_NAME_MAX)
		return diag_at(d, -EINVAL, path, line, (unsigned)(name - s) + 1,
			       "name", "longer than %d characters",
			       LAYOUT_NAME_MAX);
	if (s[i])
		s[i++] = '\0';
	while (is_blank(s[i]))
		i++;
	if (!s[i])
		return diag_at(d, -EINVAL, path, line, 0, "numel",
			       "missing (expected 'name numel')");
	num = s + i;
	while (s[i] && !is_blank(s[i]))
		i++;
	if (s[i])
		s[i++] = '\0';
	errno = 0;
	v = strtoull(num, &end, 10);
	if (*num < '0' || *num > '9' || *end || errno || v == 0 ||
	    v > LAYOUT_NUMEL_MAX)
		return diag_at(d, -EINVAL, path, line, (unsigned)(num - s) + 1,
			       "numel",
			       "expected a positive integer up to 2^48, got '%.40s'",
			       num);
	while (is_blank(s[i]))
		i++;
	if (s[i])
		return diag_at(d, -EINVAL, path, line, (unsigned)i + 1,
			       "layout", "unexpected '%.40s' after numel",
			       s + i);
	add_param(b, v, "%s", name);
	if (b->err)
		return diag_set(d, b->err, "%s:%u: out of memory", path, line);
	return 0;
}

struct name_line {
	const char *name;
	unsigned line;
};

static int cmp_name_line(const void *a, const void *b)
{
	const struct name_line *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->line > y->line) - (x->line < y->line);
}

/*
 * A name twice is refused: Module.named_parameters() (what the layout is
 * printed from) yields each name once, and a parameter shared by two
 * modules once too (remove_duplicate=True), as DDP's
 * _build_params_for_reducer dedups it; read twice, its gradient would be
 * all-reduced twice. @lines holds each parameter's line.
 */
static int check_unique_names(const struct model_layout *l,
			      const unsigned *lines, const char *path,
			      struct diag *d)
{
	struct name_line *v = malloc(l->nparams * sizeof(*v));
	size_t i, dup = 0;
	int err = 0;

	if (!v)
		return diag_set(d, -ENOMEM, "%s: out of memory", path);
	for (i = 0; i < l->nparams; i++)
		v[i] = (struct name_line){ l->params[i].name, lines[i] };
	qsort(v, l->nparams, sizeof(*v), cmp_name_line);
	for (i = 1; i < l->nparams; i++)
		if (strcmp(v[i].name, v[i - 1].name) == 0 &&
		    (!dup || v[i].line < v[dup].line))
			dup = i;
	if (dup)
		err = diag_at(d, -EINVAL, path, v[dup].line, 0, "name",
			      "'%.64s' is listed twice (first on line %u): named_parameters() gives a parameter once",
			      v[dup].name, v[dup - 1].line);
	free(v);
	return err;
}

/* Appends a parameter's line. */
static int note_line(unsigned **lines, size_t *n, size_t *room, unsigned line,
		     const char *path, struct diag *d)
{
	if (array_grow((void **)lines, *n, room, sizeof(**lines)))
		return diag_set(d, -ENOMEM, "%s: out of memory", path);
	(*lines)[(*n)++] = line;
	return 0;
}

static void layout_name_from_path(const char *path, char *out, size_t n)
{
	const char *base = strrchr(path, '/'), *dot;
	size_t len;

	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	len = dot && dot != base ? (size_t)(dot - base) : strlen(base);
	if (len >= n)
		len = n - 1;
	memcpy(out, base, len);
	out[len] = '\0';
}

int model_layout_load(const char *path, struct model_layout *l,
		      struct diag *d)
{
	char *line = NULL, name[64];
	unsigned lineno = 0, *lines = NULL;
	struct builder b;
	size_t cap = 0, nlines = 0, lines_room = 0;
	ssize_t n;
	FILE *f;
	int err = 0;

	memset(l, 0, sizeof(*l));
	f = input_open(path, "r", &err, d);
	if (!f)
		return err;
	layout_name_from_path(path, name, sizeof(name));
	builder_init(&b, l, name);
	while (!err && (n = getline(&line, &cap, f)) >= 0) {
		lineno++;
		if (n && line[n - 1] == '\n')
			line[--n] = '\0';
		/* A NUL inside the line would hide the rest from the parser. */
		if (strlen(line) != (size_t)n)
			err = diag_at(d, -EINVAL, path, lineno, 0, "layout",
				      "NUL byte in line");
		else
			err = parse_layout_line(&b, line, path, lineno, d);
		if (!err && l->nparams > nlines)
			err = note_line(&lines, &nlines, &lines_room, lineno, path, d);
	}
	if (!err && ferror(f))
		err = diag_set(d, -EIO, "%s: read error", path);
	free(line);
	fclose(f);
	if (!err && !l->nparams)
		err = diag_set(d, -EINVAL, "%s: layout: no parameters", path);
	if (err)
		b.err = err;
	err = builder_finish(&b);
	if (!err)
		err = check_unique_names(l, lines, path, d);
	if (err)
		model_layout_destroy(l);
	free(lines);
	return err;
}

uint64_t model_layout_numel(const struct model_layout *l)
{
	uint64_t total = 0;
	size_t i;

	for (i = 0; i < l->nparams; i++)
		total += l->params[i].numel;
	return total;
}

void model_layout_destroy(struct model_layout *l)
{
	if (!l)
		return;
	free(l->params);
	free(l->names);
	memset(l, 0, sizeof(*l));
}
