/* SPDX-License-Identifier: MIT */
/*
 * cmd_gen_llm: "gdrlab gen llm", an LLM training iteration under tensor,
 * pipeline, data, expert and context parallelism (engine/gen_llm.h), written
 * all-or-nothing.
 */
#include "cmd_gen.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "diag.h"
#include "gen_llm.h"
#include "output_file.h"
#include "trace.h"
#include "units.h"

#define EXIT_USAGE 2
#define EXIT_RUNTIME 1

static void print_llm_help(FILE *out)
{
	fputs("usage: gdrlab gen llm --model NAME [options]\n"
	      "\n"
	      "Write the collectives of an LLM training iteration as Megatron-LM and\n"
	      "ZeRO run them (docs/gen-llm.md), every group on a communicator of its\n"
	      "own so that they overlap when replayed. Ranks: t + tp (c + cp (d + dp s))\n"
	      "(Megatron-Core's tp-cp-ep-dp-pp order); tp x cp x pp x dp ranks in all.\n"
	      "\n"
	      "  --model NAME           a model of the zoo (below)\n"
	      "  --tp N                 tensor parallel ranks (default 1)\n"
	      "  --pp N                 pipeline stages, 1F1B schedule (default 1)\n"
	      "  --vpp N                model chunks a pipeline rank, the interleaved 1F1B\n"
	      "                         schedule (Megatron-LM's --num-virtual-stages-per-\n"
	      "                         pipeline-rank; default 1: none): needs --pp 2 or\n"
	      "                         more, layers a multiple of pp x N, micro-batches\n"
	      "                         of pp\n"
	      "  --dp N                 data parallel replicas (default 1)\n"
	      "  --ep N                 expert parallel ranks within dp x cp (MoE; default 1)\n"
	      "  --cp N                 context parallel ranks (default 1): each sequence in\n"
	      "                         2 x N chunks, keys and values passed round a ring\n"
	      "                         in every attention layer (TransformerEngine's p2p),\n"
	      "                         gradients reduced over dp x cp\n"
	      "  --cp-comm-type T       how attention exchanges over cp: p2p (default, the\n"
	      "                         ring), all_gather (K, V gathered) or a2a (Ulysses)\n"
	      "  --zero N               0: gradients all-reduced; 1, 2: reduce-scattered\n"
	      "                         and parameters all-gathered after the step; 3:\n"
	      "                         each module (the embedding, every layer, the head)\n"
	      "                         gathered forward and backward and its gradients\n"
	      "                         reduce-scattered (default 0)\n"
	      "  --sequence-parallel    tensor parallel all-gathers and reduce-scatters\n"
	      "                         instead of all-reduces (a MoE needs it with --tp)\n"
	      "  --micro-batches N      per iteration (default 1)\n"
	      "  --micro-batch-size N   sequences per micro-batch (default 1)\n"
	      "  --seq N                tokens per sequence (default: the model's)\n"
	      "  --dtype T              parameters and activations (default bf16)\n"
	      "  --grad-dtype T         gradients as reduced (default fp32, Megatron-LM's for a\n"
	      "                         bf16 model; bf16: PyTorch DDP, FSDP)\n"
	      "  --gpu-tflops X         one GPU's dense peak, TFLOP/s (default 989.5,\n"
	      "                         H100 SXM BF16)\n"
	      "  --efficiency X         of that peak the model reaches, (0, 1]\n"
	      "                         (default 0.4)\n"
	      "  --overlap-grad-reduce on|off\n"
	      "                         on (default): the gradients reduced in buckets\n"
	      "                         as backward fills them, Megatron-Core's: at\n"
	      "                         least max(40M, 1M x dp) parameters each, on the\n"
	      "                         first stage (later stages: one bucket); with\n"
	      "                         --vpp only chunk 0 of the first stage buckets,\n"
	      "                         each chunk's buckets reduced at once when the\n"
	      "                         schedule syncs it (align_grad_reduce); off: one\n"
	      "                         bucket a stage (a chunk), after its backward\n"
	      "  --bucket-cap SIZE      gradients a bucket at least, in place of\n"
	      "                         Megatron-Core's size (first stage, its chunk 0\n"
	      "                         with --vpp; overlap on)\n"
	      "  --iterations N         iterations to write (default 1)\n"
	      "  -o, --output FILE      output file, '-' for stdout (default)\n"
	      "  -h, --help             this help\n"
	      "\n"
	      "Models:\n",
	      out);
	for (const struct llm_arch *a = llm_archs; a->name; a++)
		fprintf(out, "  %-16s %6.1fB parameters, %3u layers, %s\n", a->name,
			llm_total_params(a) / 1e9, a->layers, a->source);
}

enum {
	OPT_MODEL = 256, OPT_TP, OPT_PP, OPT_VPP, OPT_DP, OPT_EP, OPT_CP, OPT_CP_COMM, OPT_ZERO, OPT_SP, OPT_MB, OPT_MBS,
	OPT_SEQ, OPT_DTYPE, OPT_GRAD_DTYPE, OPT_TFLOPS, OPT_EFF, OPT_OVERLAP, OPT_BUCKET, OPT_ITER,
};

static const struct option llm_options[] = {
	{ "model", required_argument, NULL, OPT_MODEL },
	{ "tp", required_argument, NULL, OPT_TP },
	{ "pp", required_argument, NULL, OPT_PP },
	{ "vpp", required_argument, NULL, OPT_VPP },
	{ "dp", required_argument, NULL, OPT_DP },
	{ "ep", required_argument, NULL, OPT_EP },
	{ "cp", required_argument, NULL, OPT_CP },
	{ "cp-comm-type", required_argument, NULL, OPT_CP_COMM },
	{ "zero", required_argument, NULL, OPT_ZERO },
	{ "sequence-parallel", no_argument, NULL, OPT_SP },
	{ "micro-batches", required_argument, NULL, OPT_MB },
	{ "micro-batch-size", required_argument, NULL, OPT_MBS },
	{ "seq", required_argument, NULL, OPT_SEQ },
	{ "dtype", required_argument, NULL, OPT_DTYPE },
	{ "grad-dtype", required_argument, NULL, OPT_GRAD_DTYPE },
	{ "gpu-tflops", required_argument, NULL, OPT_TFLOPS },
	{ "efficiency", required_argument, NULL, OPT_EFF },
	{ "overlap-grad-reduce", required_argument, NULL, OPT_OVERLAP },
	{ "bucket-cap", required_argument, NULL, OPT_BUCKET },
	{ "iterations", required_argument, NULL, OPT_ITER },
	{ "output", required_argument, NULL, 'o' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int usage_err(struct diag *d, const char *opt, const char *what, const char *got)
{
	char buf[64];

	diag_set(d, -EINVAL, "--%s: expected %s, got '%s'", opt, what,
		 diag_printable(got, buf, sizeof(buf)));
	return EXIT_USAGE;
}

/* A whole number up to @max: the engine's check (gen_llm_check) then
 * holds it to its option's own range. */
static int parse_count_to(struct diag *d, const char *opt, const char *s, unsigned long max,
			  unsigned *out)
{
	unsigned long v;
	char *end;
	char what[48];

	errno = 0;
	v = strtoul(s, &end, 10);
	snprintf(what, sizeof(what), "a whole number up to %lu", max);
	if (*s < '0' || *s > '9' || *end || errno || v > max)
		return usage_err(d, opt, what, s);
	*out = (unsigned)v;
	return 0;
}

static int parse_count(struct diag *d, const char *opt, const char *s, unsigned *out)
{
	return parse_count_to(d, opt, s, 1000000, out);
}

/* A count of which there is at least one (GPUs a group, micro-batches,
 * iterations): 0 is refused as it is read, so that a sweep plan's axis
 * value is refused at its line (sweep_gen_check), not as its point's
 * error. */
static int parse_some(struct diag *d, const char *opt, const char *s, unsigned *out)
{
	int err = parse_count(d, opt, s, out);

	return err || *out ? err : usage_err(d, opt, "1 or more", s);
}

static int parse_real(struct diag *d, const char *opt, const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	if (end == s || *end || errno || !isfinite(*out))
		return usage_err(d, opt, "a number", s);
	return 0;
}

static int parse_dtype(struct diag *d, const char *opt, const char *s, enum trace_dtype *out)
{
	return trace_dtype_parse(s, out) ? usage_err(d, opt, "fp32, fp16, bf16, fp64 or int8", s) : 0;
}

static int parse_one(struct gen_llm_args *a, int c, const char *opt, const char *arg,
		     struct diag *d)
{
	switch (c) {
	case OPT_MODEL:
		snprintf(a->model, sizeof(a->model), "%s", arg);
		return 0;
	case OPT_TP: return parse_some(d, opt, arg, &a->o.tp);
	case OPT_PP: return parse_some(d, opt, arg, &a->o.pp);
	case OPT_VPP: return parse_some(d, opt, arg, &a->o.vpp);
	case OPT_DP: return parse_some(d, opt, arg, &a->o.dp);
	case OPT_EP: return parse_some(d, opt, arg, &a->o.ep);
	case OPT_CP: return parse_some(d, opt, arg, &a->o.cp);
	case OPT_CP_COMM:
		if (gen_llm_cp_comm_parse(arg, &a->o.cp_comm))
			return usage_err(d, opt, "p2p, all_gather or a2a", arg);
		a->cp_comm_set = true;
		return 0;
	case OPT_ZERO: return parse_count(d, opt, arg, &a->o.zero);
	case OPT_SP:
		a->o.sequence_parallel = true;
		return 0;
	case OPT_MB: return parse_some(d, opt, arg, &a->o.micro_batches);
	case OPT_MBS: return parse_some(d, opt, arg, &a->o.micro_batch_size);
	case OPT_SEQ:
		a->seq_set = true;
		return parse_count_to(d, opt, arg, 1ul << 24, &a->o.seq); /* 16 Mi tokens */
	case OPT_DTYPE: return parse_dtype(d, opt, arg, &a->o.dtype);
	case OPT_GRAD_DTYPE: return parse_dtype(d, opt, arg, &a->o.grad_dtype);
	case OPT_TFLOPS: return parse_real(d, opt, arg, &a->o.gpu_tflops);
	case OPT_EFF: return parse_real(d, opt, arg, &a->o.efficiency);
	case OPT_OVERLAP:
		/* on, off; true, false as a plan's YAML may give them */
		if (!strcmp(arg, "on") || !strcmp(arg, "true"))
			a->o.overlap_grad_reduce = true;
		else if (!strcmp(arg, "off") || !strcmp(arg, "false"))
			a->o.overlap_grad_reduce = false;
		else
			return usage_err(d, opt, "on or off", arg);
		return 0;
	case OPT_BUCKET:
		if (cli_parse_size(arg, UINT64_MAX, &a->o.bucket_bytes) || !a->o.bucket_bytes)
			return usage_err(d, opt, "a size above 0 like " CLI_SIZE_FORMS, arg);
		return 0;
	case OPT_ITER: return parse_some(d, opt, arg, &a->o.iterations);
	default:
		diag_set(d, -EINVAL, "--%s: not an option of gen llm", opt);
		return EXIT_USAGE;
	}
}

void gen_llm_args_init(struct gen_llm_args *a)
{
	memset(a, 0, sizeof(*a));
	gen_llm_options_default(&a->o);
}

int gen_llm_set(struct gen_llm_args *a, const char *name, const char *value, struct diag *d)
{
	char shown[64];

	for (const struct option *p = llm_options; p->name; p++) {
		if (strcmp(p->name, name) || p->val < OPT_MODEL)
			continue;
		if (p->has_arg == no_argument) {
			/* a flag: given, or in a plan true or false */
			if (value && strcmp(value, "true") && strcmp(value, "false"))
				return usage_err(d, name, "true or false", value);
			if (value && !strcmp(value, "false"))
				return 0;
		} else if (!value) {
			diag_set(d, -EINVAL, "--%s: needs a value", diag_printable(name, shown, sizeof(shown)));
			return EXIT_USAGE;
		}
		return parse_one(a, p->val, p->name, value, d);
	}
	diag_set(d, -EINVAL, "--%s: not an option of gen llm (see 'gdrlab gen llm --help')",
		 diag_printable(name, shown, sizeof(shown)));
	return EXIT_USAGE;
}

/* An unknown --model, named with the zoo's models, as gen ddp names its
 * own: a user who typed llama3-7b sees what there is without --help. */
static int unknown_model(struct diag *d, const char *model)
{
	char buf[64], names[512] = "";
	size_t n = 0;

	for (const struct llm_arch *m = llm_archs; m->name && n < sizeof(names); m++)
		n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s",
				      m == llm_archs ? "" : ", ", m->name);
	diag_set(d, -EINVAL, "--model: unknown model '%s' (the zoo: %s)",
		 diag_printable(model, buf, sizeof(buf)), names);
	return EXIT_USAGE;
}

int gen_llm_finish(struct gen_llm_args *a, struct diag *d)
{
	if (!a->model[0]) {
		diag_set(d, -EINVAL, "--model: which model? (see 'gdrlab gen llm --help')");
		return EXIT_USAGE;
	}
	a->o.arch = llm_arch_find(a->model);
	if (!a->o.arch)
		return unknown_model(d, a->model);
	if (!a->seq_set)
		a->o.seq = a->o.arch->default_seq;
	return 0;
}

/* The command line into @a and @output; -1 after --help. */
static int parse_args(int argc, char **argv, struct gen_llm_args *a, const char **output,
		      struct diag *d)
{
	int c, i;

	gen_llm_args_init(a);
	*output = "-";
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:h", llm_options, &i)) != -1) {
		if (c == 'h') {
			print_llm_help(stdout);
			return -1;
		}
		if (c == 'o') {
			*output = optarg;
			continue;
		}
		if (c == '?' || c == ':') {
			diag_set(d, -EINVAL, "%s '%s' (see 'gdrlab gen llm --help')",
				 c == '?' ? "unknown option" : "missing value for", argv[optind - 1]);
			return EXIT_USAGE;
		}
		/* getopt found it: its long name is the table's */
		for (i = 0; llm_options[i].name && llm_options[i].val != c; i++)
			;
		if (parse_one(a, c, llm_options[i].name, optarg, d))
			return EXIT_USAGE;
	}
	if (optind < argc) {
		diag_set(d, -EINVAL, "unexpected argument '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	return gen_llm_finish(a, d);
}

/* Comment lines (skipped by readers) saying how to make the file again,
 * and what an iteration holds. */
static void write_header(FILE *out, const struct gen_llm_args *a, const struct trace *t)
{
	const struct gen_llm_options *o = &a->o;
	uint64_t by_op[TRACE_OP_COUNT] = { 0 };
	size_t per_it = t->nentries / o->iterations;
	char cap[48] = "", cp[64] = "", vpp[24] = "";

	if (o->bucket_bytes)
		snprintf(cap, sizeof(cap), " --bucket-cap %" PRIu64 "B", o->bucket_bytes);
	if (o->vpp > 1)
		snprintf(vpp, sizeof(vpp), " --vpp %u", o->vpp);
	if (o->cp > 1 && o->cp_comm == GEN_LLM_CP_P2P)
		snprintf(cp, sizeof(cp), " --cp %u", o->cp);
	else if (o->cp > 1)
		snprintf(cp, sizeof(cp), " --cp %u --cp-comm-type %s", o->cp,
			 gen_llm_cp_comm_name(o->cp_comm));

	for (size_t i = 0; i < per_it; i++)
		by_op[t->entries[i].op] += t->entries[i].bytes;
	fprintf(out, "# made by: gdrlab gen llm --model %s --tp %u --pp %u%s --dp %u%s --ep %u --zero %u%s "
		     "--micro-batches %u --micro-batch-size %u --seq %u --dtype %s --grad-dtype %s "
		     "--gpu-tflops %.15g --efficiency %.15g --overlap-grad-reduce %s%s --iterations %u\n",
		o->arch->name, o->tp, o->pp, vpp, o->dp, cp, o->ep, o->zero,
		o->sequence_parallel ? " --sequence-parallel" : "", o->micro_batches,
		o->micro_batch_size, o->seq, trace_dtype_name(o->dtype),
		trace_dtype_name(o->grad_dtype), o->gpu_tflops, o->efficiency,
		o->overlap_grad_reduce ? "on" : "off", cap, o->iterations);
	fprintf(out, "# %s: %.3fB parameters on %u ranks; %zu collectives an iteration on %zu "
		     "communicators; compute %.1f us an iteration (%s1F1B, bubble included)\n",
		o->arch->name, llm_total_params(o->arch) / 1e9, o->tp * o->cp * o->pp * o->dp, per_it,
		t->ncomms, t->entries[0].compute_us, o->vpp > 1 ? "interleaved " : "");
	fprintf(out, "# bytes an iteration:");
	for (int k = 0; k < TRACE_OP_COUNT; k++)
		if (by_op[k])
			fprintf(out, " %s %" PRIu64, trace_op_name((enum trace_op)k), by_op[k]);
	fputc('\n', out);
}

int cmd_gen_llm(int argc, char **argv)
{
	struct diag d = { "" };
	struct output_file of;
	struct gen_llm_args a;
	const char *output;
	struct trace t;
	int err = parse_args(argc, argv, &a, &output, &d);

	if (err < 0)
		return 0;
	if (err) {
		fprintf(stderr, "gdrlab gen: %s\n", d.msg);
		return err;
	}
	err = gen_llm_trace(&a.o, &t, &d);
	if (err) {
		fprintf(stderr, "gdrlab gen: %s\n", d.msg);
		return err == -ENOMEM ? EXIT_RUNTIME : EXIT_USAGE;
	}
	/* taken, as Megatron-LM takes it, but said: nothing reads it */
	if (a.cp_comm_set && a.o.cp == 1)
		fprintf(stderr, "gdrlab gen: note: --cp-comm-type %s changes nothing without --cp 2 or more (no context parallelism)\n",
			gen_llm_cp_comm_name(a.o.cp_comm));
	err = output_file_open(&of, output, &d);
	if (err) {
		trace_destroy(&t);
		fprintf(stderr, "gdrlab gen: %s\n", d.msg);
		return EXIT_RUNTIME;
	}
	write_header(of.fp, &a, &t);
	err = trace_write(of.fp, &t);
	trace_destroy(&t);
	if (err) {
		/* the stream's own errno where it has one (/dev/full: ENOSPC) */
		d.msg[0] = '\0';
		err = output_file_fail(&of, err, &d);
		if (d.msg[0])
			fprintf(stderr, "gdrlab gen: %s\n", d.msg);
		else
			fprintf(stderr, "gdrlab gen: %s: cannot write the trace: %s\n", output,
				strerror(-err));
		return EXIT_RUNTIME;
	}
	err = output_file_commit(&of, &d);
	if (err) {
		fprintf(stderr, "gdrlab gen: %s\n", d.msg);
		return EXIT_RUNTIME;
	}
	return 0;
}
