/* SPDX-License-Identifier: MIT */
/*
 * cmd_gen: "gdrlab gen ddp" turns a model's parameter layout into a DDP
 * trace (engine/gen_ddp.h) and writes it all-or-nothing.
 */
#include "cmd_gen.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "diag.h"
#include "gen_ddp.h"
#include "output_file.h"
#include "trace.h"
#include "units.h"

#define GEN_ITERATIONS_MAX 1000000UL

struct ddp_args {
	const char *model;  /* built-in name, or NULL */
	const char *layout; /* layout file, or NULL */
	const char *output;
	struct gen_ddp_options o;
	bool bucket_cap_set, first_bucket_set;
};

/* "gdrlab gen: ..." and @status. */
#define fail(status, ...) cli_error("gen", status, __VA_ARGS__)

/* One line per built-in model, computed so the help cannot go stale. */
static void print_models(FILE *out)
{
	const char *const *name;
	struct model_layout l;

	fputs("Built-in models (parameter layouts computed from the architecture):\n",
	      out);
	for (name = model_layout_builtin_names; *name; name++) {
		if (model_layout_builtin(*name, &l)) {
			fprintf(out, "  %s\n", *name);
			continue;
		}
		fprintf(out, "  %-12s %4zu tensors, %" PRIu64 " parameters\n",
			*name, l.nparams, model_layout_numel(&l));
		model_layout_destroy(&l);
	}
}

static void print_gen_help(FILE *out)
{
	fputs("usage: gdrlab gen GENERATOR [options]\n"
	      "\n"
	      "Write a synthetic trace (JSON Lines, docs/trace-format.md).\n"
	      "\n"
	      "Generators:\n"
	      "  ddp    PyTorch DistributedDataParallel: one allreduce per gradient\n"
	      "         bucket per iteration ('gdrlab gen ddp --help')\n"
	      "  llm    an LLM iteration under tensor, pipeline, data (ZeRO 0-3) and\n"
	      "         expert parallelism, each group a communicator of its own\n"
	      "         ('gdrlab gen llm --help')\n"
	      "\n",
	      out);
	print_models(out);
}

static void print_ddp_help(FILE *out)
{
	fputs("usage: gdrlab gen ddp (--model NAME | --layout FILE) [options]\n"
	      "\n"
	      "Write a DDP trace: the gradients are bucketed as PyTorch DDP does in\n"
	      "steady state (parameters in reverse order; a bucket closes once it\n"
	      "reaches the limit, first --first-bucket, then --bucket-cap), one\n"
	      "allreduce per bucket per iteration. A bucket is ready at\n"
	      "forward + f * backward, f the share of backward's work done by then:\n"
	      "by FLOPs for a built-in model, by parameters for a layout file.\n"
	      "\n"
	      "  --model NAME         a built-in layout (listed below)\n"
	      "  --layout FILE        a layout file: one \"name numel\" per line in\n"
	      "                       registration order, '#' starts a comment\n"
	      "  --dtype T            gradient dtype: fp32, fp16, bf16, fp64\n"
	      "                       (default fp32: a model's parameters, and so\n"
	      "                       its gradients, under autocast too; bf16 for\n"
	      "                       a model cast to bf16)\n"
	      "  --bucket-cap SIZE    bucket limit after the first (default 25MiB,\n"
	      "                       DDP's bucket_cap_mb left unset)\n"
	      "  --first-bucket SIZE  limit of the first bucket (default 1MiB, or\n"
	      "                       --bucket-cap where that is given: DDP has\n"
	      "                       no 1 MiB bucket when bucket_cap_mb is set)\n"
	      "  --comm-hook H        allreduce (default: no hook), fp16 or bf16\n"
	      "                       (fp16_compress_hook, bf16_compress_hook): the\n"
	      "                       buckets as the gradients', sent at 2 bytes an\n"
	      "                       element\n"
	      "  --accumulate K       micro-steps an iteration, the first K-1 under\n"
	      "                       no_sync(): one all-reduce per bucket after\n"
	      "                       the last backward (1 to 65536, default 1)\n"
	      "  --find-unused-parameters\n"
	      "                       DDP's find_unused_parameters=True: the buckets\n"
	      "                       made at construction, in registration order,\n"
	      "                       never rebuilt (the small one goes out last),\n"
	      "                       then an all-reduce of the used-parameter map\n"
	      "  --first-iteration    iteration 0 as DDP's first: one bucket of every\n"
	      "                       gradient, all-reduced at the end of backward\n"
	      "                       (the buckets are rebuilt before the second)\n"
	      "  --iterations N       iterations to write, 1 to 1000000 (default 1)\n"
	      "  --forward-us X       forward compute per micro-step, microseconds\n"
	      "                       (default 0)\n"
	      "  --backward-us Y      backward compute per micro-step, microseconds\n"
	      "                       (default 0)\n"
	      "  -o, --output FILE    output file, '-' for stdout (default); written\n"
	      "                       whole or not at all\n"
	      "  -h, --help           this help\n"
	      "\n"
	      "SIZE in bytes, or with K, M or G: powers of 1024, as nccl-tests' -b\n"
	      "takes them (1kB, 1KB and 1KiB are 1K; \"25MiB\", \"4 MB\", \"1.5K\").\n"
	      "\n",
	      out);
	print_models(out);
}

static int parse_size(const char *opt, const char *s, uint64_t *out)
{
	if (cli_parse_size(s, UINT64_MAX, out))
		return fail(EXIT_USAGE, "%s: '%s': expected a size like %s", opt, s,
			    CLI_SIZE_FORMS);
	if (!*out)
		return fail(EXIT_USAGE, "%s: '%s': must be greater than zero", opt, s);
	return 0;
}

static int parse_us(const char *opt, const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	if (end == s || *end || errno || !isfinite(*out) || *out < 0 ||
	    *out > TRACE_TIME_MAX_US)
		return fail(EXIT_USAGE,
			    "%s: expected microseconds from 0 to %g (a trace's times), got '%s'",
			    opt, TRACE_TIME_MAX_US, s);
	return 0;
}

/* A whole number from 1 to @max for option @opt, digits alone (no sign,
 * no blank: strtoul would take them). */
static int parse_count(const char *opt, const char *s, unsigned long max, unsigned *out)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (*s < '0' || *s > '9' || *end || errno || v < 1 || v > max)
		return fail(EXIT_USAGE, "%s: expected a whole number from 1 to %lu, got '%s'",
			    opt, max, s);
	*out = (unsigned)v;
	return 0;
}

static const char *const hook_names[] = { "allreduce", "fp16", "bf16" };

static int parse_hook(const char *s, enum gen_ddp_hook *out)
{
	unsigned i;

	for (i = 0; i < sizeof(hook_names) / sizeof(hook_names[0]); i++) {
		if (strcmp(s, hook_names[i]) == 0) {
			*out = (enum gen_ddp_hook)i;
			return 0;
		}
	}
	return fail(EXIT_USAGE,
		    "--comm-hook: expected allreduce, fp16 or bf16, got '%s'",
		    s);
}

enum {
	OPT_MODEL = 256,
	OPT_LAYOUT,
	OPT_DTYPE,
	OPT_BUCKET_CAP,
	OPT_FIRST_BUCKET,
	OPT_ITERATIONS,
	OPT_FORWARD,
	OPT_BACKWARD,
	OPT_COMM_HOOK,
	OPT_ACCUMULATE,
	OPT_FIND_UNUSED,
	OPT_FIRST_ITERATION,
};

static const struct option ddp_options[] = {
	{ "model", required_argument, NULL, OPT_MODEL },
	{ "layout", required_argument, NULL, OPT_LAYOUT },
	{ "dtype", required_argument, NULL, OPT_DTYPE },
	{ "bucket-cap", required_argument, NULL, OPT_BUCKET_CAP },
	{ "first-bucket", required_argument, NULL, OPT_FIRST_BUCKET },
	{ "iterations", required_argument, NULL, OPT_ITERATIONS },
	{ "forward-us", required_argument, NULL, OPT_FORWARD },
	{ "backward-us", required_argument, NULL, OPT_BACKWARD },
	{ "comm-hook", required_argument, NULL, OPT_COMM_HOOK },
	{ "accumulate", required_argument, NULL, OPT_ACCUMULATE },
	{ "find-unused-parameters", no_argument, NULL, OPT_FIND_UNUSED },
	{ "first-iteration", no_argument, NULL, OPT_FIRST_ITERATION },
	{ "output", required_argument, NULL, 'o' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int parse_one(struct ddp_args *a, int c, const char *arg)
{
	switch (c) {
	case OPT_MODEL:
		a->model = arg;
		return 0;
	case OPT_LAYOUT:
		a->layout = arg;
		return 0;
	case OPT_DTYPE:
		if (trace_dtype_parse(arg, &a->o.dtype))
			return fail(EXIT_USAGE,
				    "--dtype: unknown dtype '%s' (fp32, fp16, bf16, fp64)",
				    arg);
		if (!gen_ddp_dtype_ok(a->o.dtype))
			return fail(EXIT_USAGE,
				    "--dtype: %s: a gradient is floating point (fp32, fp16, bf16, fp64); "
				    "an integer parameter cannot require grad",
				    trace_dtype_name(a->o.dtype));
		return 0;
	case OPT_BUCKET_CAP:
		a->bucket_cap_set = true;
		return parse_size("--bucket-cap", arg, &a->o.bucket_cap_bytes);
	case OPT_FIRST_BUCKET:
		a->first_bucket_set = true;
		return parse_size("--first-bucket", arg,
				  &a->o.first_bucket_bytes);
	case OPT_ITERATIONS:
		return parse_count("--iterations", arg, GEN_ITERATIONS_MAX, &a->o.iterations);
	case OPT_FORWARD:
		return parse_us("--forward-us", arg, &a->o.forward_us);
	case OPT_BACKWARD:
		return parse_us("--backward-us", arg, &a->o.backward_us);
	case OPT_COMM_HOOK:
		return parse_hook(arg, &a->o.hook);
	case OPT_ACCUMULATE:
		return parse_count("--accumulate", arg, GEN_DDP_ACCUMULATE_MAX, &a->o.accumulate);
	case OPT_FIND_UNUSED:
		a->o.find_unused_parameters = true;
		return 0;
	case OPT_FIRST_ITERATION:
		a->o.first_iteration = true;
		return 0;
	case 'o':
		a->output = arg;
		return 0;
	}
	return fail(EXIT_USAGE, "internal: unhandled option %d", c);
}

/*
 * DDP gives the first bucket 1 MiB (dist._DEFAULT_FIRST_BUCKET_BYTES) only
 * when bucket_cap_mb is left at its default: DistributedDataParallel.__init__
 * (torch/nn/parallel/distributed.py) sets bucket_bytes_cap_default only when
 * bucket_cap_mb is None, and _ddp_init_helper passes the Reducer
 * first_bucket_bytes_cap = bucket_bytes_cap otherwise, which
 * Reducer::rebuild_buckets (reducer.cpp) uses as the first limit. So a
 * --bucket-cap without --first-bucket (even 25MiB, bucket_cap_mb=25 given)
 * has no small first bucket; --first-bucket still sets one (the releases
 * before bucket_bytes_cap_default always used 1 MiB).
 */
static void first_bucket_as_pytorch(struct ddp_args *a)
{
	if (a->bucket_cap_set && !a->first_bucket_set)
		a->o.first_bucket_bytes = a->o.bucket_cap_bytes;
}

/* 0 to go on, -1 when the help was printed, else an exit status. */
static int parse_ddp_args(int argc, char **argv, struct ddp_args *a)
{
	int c, err;

	memset(a, 0, sizeof(*a));
	gen_ddp_options_default(&a->o);
	a->output = "-";
	/* glibc: 0 makes getopt start afresh even if main() used it. */
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:h", ddp_options, NULL)) != -1) {
		if (c == 'h') {
			print_ddp_help(stdout);
			return -1;
		}
		if (c == ':')
			return fail(EXIT_USAGE, "%s needs a value",
				    argv[optind - 1]);
		if (c == '?')
			return fail(EXIT_USAGE,
				    "unknown option '%s' (see 'gdrlab gen ddp --help')",
				    argv[optind - 1]);
		err = parse_one(a, c, optarg);
		if (err)
			return err;
	}
	if (optind < argc)
		return fail(EXIT_USAGE, "unexpected argument '%s'",
			    argv[optind]);
	if (!a->model == !a->layout)
		return fail(EXIT_USAGE,
			    "give exactly one of --model NAME or --layout FILE");
	first_bucket_as_pytorch(a);
	return 0;
}

static int load_layout(const struct ddp_args *a, struct model_layout *l)
{
	const char *const *name;
	struct diag d = { "" };
	char names[128] = "";
	int err;

	if (a->layout) {
		err = model_layout_load(a->layout, l, &d);
		if (err)
			return fail(err == -ENOMEM ? EXIT_RUNTIME : EXIT_USAGE,
				    "%s", d.msg);
		return 0;
	}
	err = model_layout_builtin(a->model, l);
	if (err == -ENOENT) {
		for (name = model_layout_builtin_names; *name; name++)
			snprintf(names + strlen(names),
				 sizeof(names) - strlen(names), "%s%s",
				 name == model_layout_builtin_names ? "" : ", ",
				 *name);
		return fail(EXIT_USAGE, "--model: unknown model '%s' (built-in: %s)",
			    a->model, names);
	}
	if (err)
		return fail(EXIT_RUNTIME, "%s: %s", a->model, strerror(-err));
	return 0;
}

/* "25MiB" when exact, else bytes: a size units_parse_size reads back. */
static const char *fmt_size(uint64_t b, char *buf, size_t n)
{
	if (b % (1024 * 1024) == 0)
		snprintf(buf, n, "%" PRIu64 "MiB", b / (1024 * 1024));
	else if (b % 1024 == 0)
		snprintf(buf, n, "%" PRIu64 "KiB", b / 1024);
	else
		snprintf(buf, n, "%" PRIu64 "B", b);
	return buf;
}

/* Comment lines (skipped by readers) saying how to make the file again. */
static void write_header(FILE *out, const struct ddp_args *a,
			 const struct model_layout *l, const struct trace *t)
{
	const struct gen_ddp_options *o = &a->o;
	char cap[32], first[32];
	uint64_t bytes = 0;
	/* the buckets of the last (steady-state) iteration, not the
	 * used-parameter map after them */
	size_t i, per_it = 0, last = t->nentries;

	while (last > 0 && t->entries[last - 1].iteration == o->iterations - 1)
		last--;
	per_it = t->nentries - last - o->find_unused_parameters;
	for (i = last; i < last + per_it; i++)
		bytes += t->entries[i].bytes;
	fprintf(out,
		"# made by: gdrlab gen ddp %s %s --dtype %s --bucket-cap %s --first-bucket %s --iterations %u --forward-us %.15g --backward-us %.15g",
		a->model ? "--model" : "--layout",
		a->model ? a->model : a->layout, trace_dtype_name(o->dtype),
		fmt_size(o->bucket_cap_bytes, cap, sizeof(cap)),
		fmt_size(o->first_bucket_bytes, first, sizeof(first)),
		o->iterations, o->forward_us, o->backward_us);
	/* Only where given, so the shipped traces' lines stay as made. */
	if (o->hook != GEN_DDP_HOOK_ALLREDUCE)
		fprintf(out, " --comm-hook %s", hook_names[o->hook]);
	if (o->accumulate != 1)
		fprintf(out, " --accumulate %u", o->accumulate);
	if (o->find_unused_parameters)
		fputs(" --find-unused-parameters", out);
	if (o->first_iteration)
		fputs(" --first-iteration", out);
	fputc('\n', out);
	fprintf(out,
		"# %s: %zu tensor%s, %" PRIu64 " parameters; %zu bucket%s, %" PRIu64 " bytes of %s gradients per iteration\n",
		l->name, l->nparams, l->nparams == 1 ? "" : "s", model_layout_numel(l), per_it,
		per_it == 1 ? "" : "s", bytes,
		trace_dtype_name(gen_ddp_wire_dtype(o)));
	if (o->find_unused_parameters)
		fprintf(out,
			"# then the used-parameter map, %zu bytes (int32 a parameter, as fp32)\n",
			l->nparams * 4);
}

static int write_trace(const struct ddp_args *a, const struct model_layout *l,
		       const struct trace *t)
{
	struct output_file of;
	struct diag d = { "" };
	int err;

	err = output_file_open(&of, a->output, &d);
	if (err)
		return fail(EXIT_RUNTIME, "%s", d.msg);
	write_header(of.fp, a, l, t);
	err = trace_write(of.fp, t);
	if (err) {
		output_file_abort(&of);
		return fail(EXIT_RUNTIME, "%s: cannot write the trace: %s",
			    a->output, strerror(-err));
	}
	err = output_file_commit(&of, &d);
	if (err)
		return fail(EXIT_RUNTIME, "%s", d.msg);
	return 0;
}

static int gen_ddp_main(int argc, char **argv)
{
	struct model_layout l;
	struct ddp_args a;
	struct trace t;
	int status;

	status = parse_ddp_args(argc, argv, &a);
	if (status)
		return status < 0 ? 0 : status;
	if (a.o.accumulate * (a.o.forward_us + a.o.backward_us) > TRACE_TIME_MAX_US)
		return fail(EXIT_USAGE, "--forward-us + --backward-us%s: %g us, beyond the %g a trace's "
			    "compute may be", a.o.accumulate > 1 ? ", times --accumulate" : "",
			    a.o.accumulate * (a.o.forward_us + a.o.backward_us), TRACE_TIME_MAX_US);
	status = load_layout(&a, &l);
	if (status)
		return status;
	status = gen_ddp_trace(&l, &a.o, &t);
	if (status) {
		status = fail(status == -ENOMEM ? EXIT_RUNTIME : EXIT_USAGE,
			      "cannot make the trace: %s", strerror(-status));
		goto out_layout;
	}
	status = write_trace(&a, &l, &t);
	trace_destroy(&t);
out_layout:
	model_layout_destroy(&l);
	return status;
}

int cmd_gen(int argc, char **argv)
{
	if (argc < 2)
		return fail(EXIT_USAGE,
			    "which generator? (see 'gdrlab gen --help')");
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		print_gen_help(stdout);
		return 0;
	}
	if (strcmp(argv[1], "ddp") == 0)
		return gen_ddp_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "llm") == 0)
		return cmd_gen_llm(argc - 1, argv + 1);
	return fail(EXIT_USAGE, "unknown generator '%s' (see 'gdrlab gen --help')",
		    argv[1]);
}
