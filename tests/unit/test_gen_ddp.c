/* SPDX-License-Identifier: MIT */
/*
 * The DDP generator: buckets as PyTorch forms them, the built-in layouts'
 * published parameter counts, ready times, layout files, and the shipped
 * traces in traces/ being exactly what the generator makes.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gen_ddp.h"

extern int __lsan_do_recoverable_leak_check(void) __attribute__((weak));

static void expect_no_leaks(void)
{
	if (__lsan_do_recoverable_leak_check)
		cr_expect_eq(__lsan_do_recoverable_leak_check(), 0,
			     "memory leaked");
}

#define MiB (1024 * 1024)

/*
 * Hand-made layout, registration order, fp32 (4 bytes), first bucket 1 MiB
 * (1,048,576 B), cap 4 MiB (4,194,304 B). DDP walks it backwards:
 *
 *   tensor  elements      bytes  open bucket
 *   g         65,536    262,144    262,144  < 1 MiB
 *   f        200,000    800,000  1,062,144  >= 1 MiB: bucket 0 [g f],
 *                                           limit -> 4 MiB
 *   e      2,000,000  8,000,000  8,000,000  >= 4 MiB: bucket 1 [e]
 *                                           (bigger than the cap: alone)
 *   d        500,000  2,000,000  2,000,000
 *   c        300,000  1,200,000  3,200,000
 *   b        250,000  1,000,000  4,200,000  >= 4 MiB: bucket 2 [d c b]
 *   a         25,000    100,000    100,000  model done: bucket 3 [a]
 *
 * Total 3,340,536 elements = 13,362,144 B. Ready fractions are the elements
 * done when each bucket closes: 265,536, 2,265,536, 3,315,536 and all of
 * them, over 3,340,536.
 */
static struct model_param hand_params[] = {
	{ "a", 25000, 0 },     { "b", 250000, 0 },  { "c", 300000, 0 },
	{ "d", 500000, 0 },    { "e", 2000000, 0 }, { "f", 200000, 0 },
	{ "g", 65536, 0 },
};

static struct model_layout hand_layout(void)
{
	struct model_layout l = {
		.name = "hand",
		.nparams = sizeof(hand_params) / sizeof(hand_params[0]),
		.params = hand_params,
	};

	return l;
}

static struct gen_ddp_options hand_options(enum trace_dtype dt)
{
	struct gen_ddp_options o;

	gen_ddp_options_default(&o);
	o.dtype = dt;
	o.bucket_cap_bytes = 4 * MiB;
	return o;
}

Test(gen_ddp, buckets_follow_pytorch_rule)
{
	static const uint64_t want[] = { 1062144, 8000000, 4200000, 100000 };
	static const double done[] = { 265536, 2265536, 3315536, 3340536 };
	struct model_layout l = hand_layout();
	struct gen_ddp_options o = hand_options(TRACE_DTYPE_FP32);
	uint64_t *sizes;
	double *frac;
	long n, i;

	n = gen_ddp_buckets(&l, &o, &sizes, &frac);
	cr_assert_eq(n, 4);
	for (i = 0; i < n; i++) {
		cr_expect_eq(sizes[i], want[i], "bucket %ld: %llu", i,
			     (unsigned long long)sizes[i]);
		cr_expect_float_eq(frac[i], done[i] / 3340536, 1e-15,
				   "bucket %ld", i);
	}
	cr_expect_eq(frac[n - 1], 1.0);
	free(sizes);
	free(frac);
	expect_no_leaks();
}

/*
 * Same layout in bf16 (2 bytes): g 131,072 + f 400,000 = 531,072 < 1 MiB,
 * + e 4,000,000 = 4,531,072 >= 1 MiB: bucket 0 [g f e]. Then d 1,000,000
 * + c 600,000 + b 500,000 + a 50,000 = 2,150,000 never reaches 4 MiB:
 * leftover bucket 1.
 */
Test(gen_ddp, buckets_depend_on_dtype)
{
	struct model_layout l = hand_layout();
	struct gen_ddp_options o = hand_options(TRACE_DTYPE_BF16);
	uint64_t *sizes;
	long n;

	n = gen_ddp_buckets(&l, &o, &sizes, NULL);
	cr_assert_eq(n, 2);
	cr_expect_eq(sizes[0], 4531072);
	cr_expect_eq(sizes[1], 2150000);
	free(sizes);
}

/*
 * Reaching the limit exactly closes the bucket (PyTorch tests size >=
 * limit): two fp32 tensors of 262,144 elements are 1 MiB each, so the first
 * bucket closes on the last tensor alone, and the other is left over.
 */
Test(gen_ddp, exact_limit_closes_bucket)
{
	struct model_param p[] = { { "p", 262144, 0 }, { "q", 262144, 0 } };
	struct model_layout l = { .name = "exact", .nparams = 2, .params = p };
	struct gen_ddp_options o;
	uint64_t *sizes;
	double *frac;
	long n;

	gen_ddp_options_default(&o);
	o.dtype = TRACE_DTYPE_FP32;
	n = gen_ddp_buckets(&l, &o, &sizes, &frac);
	cr_assert_eq(n, 2);
	cr_expect_eq(sizes[0], MiB);
	cr_expect_eq(sizes[1], MiB);
	cr_expect_eq(frac[0], 0.5);
	free(sizes);
	free(frac);

	/* One element less and both share the first bucket. */
	p[1].numel = 262143;
	n = gen_ddp_buckets(&l, &o, &sizes, NULL);
	cr_assert_eq(n, 1);
	cr_expect_eq(sizes[0], 2 * MiB - 4);
	free(sizes);
}

/*
 * Backward progress by FLOPs where the layout has them. The hand layout's
 * buckets again ([g f], [e], [d c b], [a]), with forward FLOPs a 50, b 50,
 * d 300, f 600 (1000 in all; c, e, g none): done when each bucket closes,
 * walking backwards, 600, 600, 950 and 1000 -- where the element counts
 * said 265,536, 2,265,536 and 3,315,536 of 3,340,536.
 */
Test(gen_ddp, ready_follows_flops)
{
	static const double want[] = { 0.6, 0.6, 0.95, 1.0 };
	struct model_param p[sizeof(hand_params) / sizeof(hand_params[0])];
	struct model_layout l = hand_layout();
	struct gen_ddp_options o = hand_options(TRACE_DTYPE_FP32);
	double *frac;
	uint64_t *sizes;
	long n, i;

	memcpy(p, hand_params, sizeof(p));
	p[0].flops = 50;
	p[1].flops = 50;
	p[3].flops = 300;
	p[5].flops = 600;
	l.params = p;
	n = gen_ddp_buckets(&l, &o, &sizes, &frac);
	cr_assert_eq(n, 4);
	for (i = 0; i < n; i++)
		cr_expect_float_eq(frac[i], want[i], 1e-15, "bucket %ld: %g", i,
				   frac[i]);
	free(sizes);
	free(frac);
	p[2].flops = -1;
	cr_expect_eq(gen_ddp_buckets(&l, &o, &sizes, NULL), -EINVAL);
}

/*
 * ResNet-50's first bucket is fc (8,196,000 B of fp32): 2 x 2048 x 1000 =
 * 4,096,000 FLOPs of the ~8.2 GFLOPs of a 224x224 image, so it is ready
 * 0.05% into backward, not the 8% its share of the weights (2,049,000 of
 * 25,557,032) said. Every built-in layout's parameter FLOPs sum to its
 * flops_per_sample.
 */
Test(gen_ddp, builtin_backward_by_flops)
{
	struct gen_ddp_options o;
	struct model_layout l;
	double *frac, sum;
	uint64_t *sizes;
	size_t i, k;

	cr_assert_eq(model_layout_builtin("resnet50", &l), 0);
	gen_ddp_options_default(&o);
	o.dtype = TRACE_DTYPE_FP32;
	cr_assert_eq(gen_ddp_buckets(&l, &o, &sizes, &frac), 5);
	cr_expect_eq(sizes[0], 8196000);
	cr_expect_float_eq(frac[0], 4096000 / l.flops_per_sample, 1e-12);
	cr_expect_lt(frac[0], 0.001, "%g", frac[0]);
	free(sizes);
	free(frac);
	model_layout_destroy(&l);
	for (k = 0; model_layout_builtin_names[k]; k++) {
		cr_assert_eq(model_layout_builtin(model_layout_builtin_names[k],
						  &l),
			     0);
		for (sum = 0, i = 0; i < l.nparams; i++)
			sum += l.params[i].flops;
		cr_expect_float_eq(sum, l.flops_per_sample,
				   1e-12 * l.flops_per_sample, "%s", l.name);
		model_layout_destroy(&l);
	}
	expect_no_leaks();
}

/*
 * fp16_compress_hook: the hand layout's fp32 buckets ([g f] 1,062,144 B,
 * [e] 8,000,000, [d c b] 4,200,000, [a] 100,000: formed from the fp32
 * gradients) go out as fp16, half the bytes each; bf16_compress_hook the
 * same as bf16. Accumulating 3 micro-steps of 100 + 200 us: compute 900
 * us, and the buckets ready in the last backward only, at 600 + 100 +
 * 200 x (265,536 / 3,340,536) = 715.898 us (rounded to the ns), ...,
 * 900.
 */
Test(gen_ddp, comm_hook_and_accumulation)
{
	static const uint64_t fp32[] = { 1062144, 8000000, 4200000, 100000 };
	struct model_layout l = hand_layout();
	struct gen_ddp_options o = hand_options(TRACE_DTYPE_FP32);
	struct trace t;
	size_t i;

	o.hook = GEN_DDP_HOOK_FP16;
	o.accumulate = 3;
	o.forward_us = 100;
	o.backward_us = 200;
	cr_assert_eq(gen_ddp_trace(&l, &o, &t), 0);
	cr_assert_eq(t.nentries, 4);
	for (i = 0; i < 4; i++) {
		cr_expect_eq(t.entries[i].dtype, TRACE_DTYPE_FP16);
		cr_expect_eq(t.entries[i].bytes, fp32[i] / 2, "bucket %zu", i);
		cr_expect_eq(t.entries[i].compute_us, 900);
		cr_expect_geq(t.entries[i].ready_us, 700);
	}
	cr_expect_eq(t.entries[0].ready_us, 715.898);
	cr_expect_eq(t.entries[3].ready_us, 900);
	trace_destroy(&t);
	o.hook = GEN_DDP_HOOK_BF16;
	o.accumulate = 1;
	cr_assert_eq(gen_ddp_trace(&l, &o, &t), 0);
	cr_expect_eq(t.entries[1].dtype, TRACE_DTYPE_BF16);
	cr_expect_eq(t.entries[1].bytes, 4000000);
	cr_expect_eq(t.entries[0].ready_us, 115.898);
	trace_destroy(&t);
	o.accumulate = 0;
	cr_expect_eq(gen_ddp_trace(&l, &o, &t), -EINVAL);
	expect_no_leaks();
}

/*
 * find_unused_parameters=True: the construction-time buckets stay, made in
 * registration order with the same limits (1 MiB, then 4 MiB) and
 * reversed:
 *
 *   a 100,000 + b 1,000,000 = 1,100,000 >= 1 MiB: [a b], limit -> 4 MiB
 *   c 1,200,000 + d 2,000,000 + e 8,000,000 = 11,200,000: [c d e]
 *   f 800,000 + g 262,144 = 1,062,144 left over: [f g]
 *
 * launched [f g], [c d e], [a b], each ready when backward reaches its
 * first tensor: 265,536, 3,065,536 and all 3,340,536 elements done. Then
 * the used-parameter map: 7 int32, 28 bytes, at the end of backward.
 */
Test(gen_ddp, find_unused_parameters_keeps_initial_buckets)
{
	static const uint64_t want[] = { 1062144, 11200000, 1100000, 28 };
	static const double done[] = { 265536, 3065536, 3340536, 3340536 };
	struct model_layout l = hand_layout();
	struct gen_ddp_options o = hand_options(TRACE_DTYPE_FP32);
	struct trace t;
	size_t i;

	o.find_unused_parameters = true;
	o.iterations = 2;
	o.backward_us = 1000;
	cr_assert_eq(gen_ddp_trace(&l, &o, &t), 0);
	cr_assert_eq(t.nentries, 8);
	for (i = 0; i < t.nentries; i++) {
		cr_expect_eq(t.entries[i].bytes, want[i % 4], "entry %zu", i);
		cr_expect_float_eq(t.entries[i].ready_us,
				   1000 * done[i % 4] / 3340536, 1e-3,
				   "entry %zu", i);
		cr_expect_eq(t.entries[i].iteration, i / 4);
	}
	trace_destroy(&t);
	expect_no_leaks();
}

/*
 * DDP's first iteration: one bucket of every gradient (13,362,144 B of
 * the hand layout), ready at the end of backward; the rebuilt buckets from
 * iteration 1 on. With find_unused_parameters nothing is rebuilt, so
 * iteration 0 is as the others.
 */
Test(gen_ddp, first_iteration_is_one_bucket)
{
	struct model_layout l = hand_layout();
	struct gen_ddp_options o = hand_options(TRACE_DTYPE_FP32);
	struct trace t;

	o.first_iteration = true;
	o.iterations = 2;
	o.forward_us = 10;
	o.backward_us = 20;
	cr_assert_eq(gen_ddp_trace(&l, &o, &t), 0);
	cr_assert_eq(t.nentries, 5);
	cr_expect_eq(t.entries[0].iteration, 0);
	cr_expect_eq(t.entries[0].bytes, 13362144);
	cr_expect_eq(t.entries[0].ready_us, 30);
	cr_expect_eq(t.entries[1].iteration, 1);
	cr_expect_eq(t.entries[1].bytes, 1062144);
	trace_destroy(&t);
	o.find_unused_parameters = true;
	cr_assert_eq(gen_ddp_trace(&l, &o, &t), 0);
	cr_expect_eq(t.nentries, 8);
	cr_expect_eq(t.entries[0].bytes, t.entries[4].bytes);
	trace_destroy(&t);
	expect_no_leaks();
}

Test(gen_ddp, bad_options_and_layouts)
{
	struct model_param zero[] = { { "z", 0, 0 } };
	struct model_layout l = hand_layout(), empty = { .name = "e" };
	struct model_layout z = { .name = "z", .nparams = 1, .params = zero };
	struct gen_ddp_options o = hand_options(TRACE_DTYPE_FP32);
	uint64_t *sizes;
	struct trace t;

	o.bucket_cap_bytes = 0;
	cr_expect_eq(gen_ddp_buckets(&l, &o, &sizes, NULL), -EINVAL);
	o = hand_options(TRACE_DTYPE_FP32);
	cr_expect_eq(gen_ddp_buckets(&empty, &o, &sizes, NULL), -EINVAL);
	cr_expect_eq(gen_ddp_buckets(&z, &o, &sizes, NULL), -EINVAL);
	/* No integer gradients: autograd refuses requires_grad on them. */
	o.dtype = TRACE_DTYPE_INT8;
	cr_expect_eq(gen_ddp_buckets(&l, &o, &sizes, NULL), -EINVAL);
	cr_expect_eq(gen_ddp_trace(&l, &o, &t), -EINVAL);
	o = hand_options(TRACE_DTYPE_FP32);
	o.iterations = 0;
	cr_expect_eq(gen_ddp_trace(&l, &o, &t), -EINVAL);
	o.iterations = 1;
	o.backward_us = -1;
	cr_expect_eq(gen_ddp_trace(&l, &o, &t), -EINVAL);
	cr_expect_eq(model_layout_builtin("gpt-5", &l), -ENOENT);
}

struct published {
	const char *name;
	uint64_t numel;
	size_t tensors;
};

static const struct published published[] = {
	/* torchvision resnet50: 25,557,032 (weights table); 161 tensors */
	{ "resnet50", 25557032, 161 },
	/* bert-large-uncased BertModel with pooler: 335,141,888 */
	{ "bert-large", 335141888, 391 },
	/* Llama-2-7b: 6,738,415,616 (Hugging Face model card/config) */
	{ "llama2-7b", 6738415616ULL, 291 },
};

Test(gen_ddp, builtins_match_published_counts)
{
	struct model_layout l;
	size_t i, n = 0;

	for (i = 0; i < sizeof(published) / sizeof(published[0]); i++) {
		cr_assert_eq(model_layout_builtin(published[i].name, &l), 0);
		cr_expect_eq(model_layout_numel(&l), published[i].numel,
			     "%s: %llu", published[i].name,
			     (unsigned long long)model_layout_numel(&l));
		cr_expect_eq(l.nparams, published[i].tensors, "%s: %zu",
			     published[i].name, l.nparams);
		cr_expect_str_eq(l.name, published[i].name);
		cr_expect_gt(l.flops_per_sample, 0);
		cr_expect_not_null(l.params[0].name);
		model_layout_destroy(&l);
	}
	while (model_layout_builtin_names[n])
		n++;
	cr_expect_eq(n, sizeof(published) / sizeof(published[0]));
	/* torchvision lists 4.09 G multiply-adds for resnet50 at 224x224. */
	cr_assert_eq(model_layout_builtin("resnet50", &l), 0);
	cr_expect_float_eq(l.flops_per_sample, 2 * 4.09e9, 0.01 * 8.18e9);
	cr_expect_str_eq(l.params[0].name, "conv1.weight");
	cr_expect_str_eq(l.params[160].name, "fc.bias");
	model_layout_destroy(&l);
	expect_no_leaks();
}

Test(gen_ddp, bytes_sum_to_numel_times_dtype)
{
	struct gen_ddp_options o;
	struct model_layout l;
	uint64_t *sizes, sum;
	size_t i;
	long n, b;
	int dt;

	for (i = 0; model_layout_builtin_names[i]; i++) {
		cr_assert_eq(model_layout_builtin(model_layout_builtin_names[i],
						  &l),
			     0);
		for (dt = 0; dt < TRACE_DTYPE_COUNT; dt++) {
			if (!gen_ddp_dtype_ok(dt))
				continue;
			gen_ddp_options_default(&o);
			o.dtype = dt;
			n = gen_ddp_buckets(&l, &o, &sizes, NULL);
			cr_assert_gt(n, 0);
			for (sum = 0, b = 0; b < n; b++) {
				sum += sizes[b];
				cr_expect_eq(sizes[b] % trace_dtype_size(dt),
					     0);
			}
			cr_expect_eq(sum, model_layout_numel(&l) *
						  trace_dtype_size(dt),
				     "%s %s", l.name, trace_dtype_name(dt));
			free(sizes);
		}
		model_layout_destroy(&l);
	}
	expect_no_leaks();
}

Test(gen_ddp, ready_times_rise_to_end_of_backward)
{
	struct gen_ddp_options o;
	struct model_layout l;
	struct trace t;
	size_t i, per;
	unsigned it;

	cr_assert_eq(model_layout_builtin("bert-large", &l), 0);
	gen_ddp_options_default(&o);
	o.iterations = 3;
	o.forward_us = 1000.5;
	o.backward_us = 2000.25;
	cr_assert_eq(gen_ddp_trace(&l, &o, &t), 0);
	cr_expect_eq(t.niterations, 3);
	cr_assert_eq(t.nentries % 3, 0);
	per = t.nentries / 3;
	for (it = 0; it < 3; it++) {
		const struct trace_entry *e = &t.entries[it * per];

		for (i = 0; i < per; i++) {
			cr_expect_eq(e[i].iteration, it);
			cr_expect_eq(e[i].op, TRACE_OP_ALLREDUCE);
			/* DDP's default: fp32 parameters, fp32 grads */
			cr_expect_eq(e[i].dtype, TRACE_DTYPE_FP32);
			cr_expect_eq(e[i].compute_us, 3000.75);
			cr_expect_eq(e[i].ngroup, 0);
			cr_expect_geq(e[i].ready_us, o.forward_us);
			/* Equal only where no matrix multiply is left
			 * between them: the embeddings, last, and the pooler
			 * (one token, counted as none), first. */
			if (i)
				cr_expect_geq(e[i].ready_us, e[i - 1].ready_us,
					      "bucket %zu", i);
		}
		cr_expect_eq(e[per - 1].ready_us, 3000.75);
	}
	trace_destroy(&t);
	model_layout_destroy(&l);
	expect_no_leaks();
}

/* A layout file written to a temporary path; returns the loader's error. */
static int load_text(const char *text, struct model_layout *l, struct diag *d,
		     char *path, size_t n)
{
	int fd, err;

	snprintf(path, n, "/tmp/gdrlab-layout-XXXXXX");
	fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	err = model_layout_load(path, l, d);
	unlink(path);
	return err;
}

Test(gen_ddp, layout_file)
{
	struct model_layout l;
	struct diag d = { "" };
	char path[64];

	cr_assert_eq(load_text("# a tiny model\n"
			       "embed.weight 1000\n"
			       "\n"
			       "  fc.weight\t4096   # trailing comment\n"
			       "fc.bias 4\r\n",
			       &l, &d, path, sizeof(path)),
		     0, "%s", d.msg);
	cr_assert_eq(l.nparams, 3);
	cr_expect_str_eq(l.params[0].name, "embed.weight");
	cr_expect_str_eq(l.params[1].name, "fc.weight");
	cr_expect_eq(l.params[1].numel, 4096);
	cr_expect_str_eq(l.params[2].name, "fc.bias");
	cr_expect_eq(model_layout_numel(&l), 5100);
	cr_expect_eq(l.flops_per_sample, 0);
	model_layout_destroy(&l);
	expect_no_leaks();
}

Test(gen_ddp, layout_file_errors)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "a 10\nb ten\n", ":2:3: numel: expected a positive integer" },
		{ "a 10\n\nb\n", ":3: numel: missing" },
		{ "a 0\n", ":1:3: numel: expected a positive integer" },
		{ "a -5\n", ":1:3: numel: expected a positive integer" },
		{ "a 5 6\n", ":1:5: layout: unexpected '6'" },
		{ "a 99999999999999999999\n", ":1:3: numel: expected" },
		{ "# nothing\n", ": layout: no parameters" },
		/* named_parameters() prints a parameter once: a name twice
		 * would all-reduce its gradient twice */
		{ "a 10\nb 20\n# c\na 30\nb 5\n",
		  ":4: name: 'a' is listed twice (first on line 1)" },
	};
	struct model_layout l;
	struct diag d;
	char path[64], want[128];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cr_expect_eq(load_text(cases[i].text, &l, &d, path,
				       sizeof(path)),
			     -EINVAL, "case %zu", i);
		snprintf(want, sizeof(want), "%s%s", path, cases[i].want);
		cr_expect_eq(strncmp(d.msg, want, strlen(want)), 0,
			     "want '%s', got '%s'", want, d.msg);
		cr_expect_eq(l.nparams, 0);
	}
	cr_expect_eq(model_layout_load("/nonexistent/layout", &l, &d), -ENOENT);
	expect_no_leaks();
}

/* The shipped traces are what traces/README.md says made them. */
Test(gen_ddp, shipped_traces_match_generator)
{
	static const struct {
		const char *model, *file;
		enum trace_dtype dtype;
		double fwd, bwd;
		size_t buckets;
	} shipped[] = {
		{ "resnet50", "resnet50-ddp.jsonl", TRACE_DTYPE_FP32, 34548,
		  69096, 5 },
		{ "bert-large", "bert-large-ddp.jsonl", TRACE_DTYPE_FP32, 50794,
		  101587, 38 },
		{ "llama2-7b", "llama2-7b-ddp.jsonl", TRACE_DTYPE_BF16, 452986,
		  905972, 226 },
	};
	struct gen_ddp_options o;
	struct model_layout l;
	struct trace got, want;
	struct diag d = { "" };
	char path[512];
	size_t i, k;

	for (i = 0; i < sizeof(shipped) / sizeof(shipped[0]); i++) {
		snprintf(path, sizeof(path), "%s/traces/%s", GDRLAB_SOURCE_DIR,
			 shipped[i].file);
		cr_assert_eq(trace_load(path, &got, &d), 0, "%s", d.msg);
		cr_assert_eq(model_layout_builtin(shipped[i].model, &l), 0);
		gen_ddp_options_default(&o);
		o.dtype = shipped[i].dtype;
		o.iterations = 2;
		o.forward_us = shipped[i].fwd;
		o.backward_us = shipped[i].bwd;
		cr_assert_eq(gen_ddp_trace(&l, &o, &want), 0);
		cr_expect_eq(want.nentries, 2 * shipped[i].buckets);
		cr_assert_eq(got.nentries, want.nentries, "%s", path);
		cr_expect_eq(got.niterations, 2);
		for (k = 0; k < got.nentries; k++) {
			cr_expect_eq(got.entries[k].bytes,
				     want.entries[k].bytes);
			cr_expect_eq(got.entries[k].dtype,
				     want.entries[k].dtype);
			cr_expect_eq(got.entries[k].ready_us,
				     want.entries[k].ready_us, "%s entry %zu",
				     path, k);
			cr_expect_eq(got.entries[k].compute_us,
				     want.entries[k].compute_us);
			cr_expect_eq(got.entries[k].iteration,
				     want.entries[k].iteration);
		}
		trace_destroy(&got);
		trace_destroy(&want);
		model_layout_destroy(&l);
	}
	expect_no_leaks();
}
