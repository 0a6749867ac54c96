/* SPDX-License-Identifier: MIT */
/*
 * gdrlab busbw: the table an nccl-tests *_perf program should print on a
 * described cluster. The sizes come as nccl-tests makes them (-b, -e, -f
 * or -i), each rounded to what that test really runs; every size is then
 * predicted by a model backend (predict_sizes.c) and printed in
 * nccl-tests' columns, with NCCL's choice and estimate beside them.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "busbw.h"
#include "cli.h"
#include "output_file.h"

static const char busbw_usage[] =
	"usage: gdrlab busbw --topology FILE [options]\n"
	"\n"
	"What should nccl-tests print on this hardware? The table of an\n"
	"all_reduce_perf (or another of its tests) run, every size predicted by a\n"
	"model backend, with the algorithm, protocol and channels NCCL's tuner\n"
	"picks and NCCL's own estimate of the time beside each row (N/A where\n"
	"NCCL has none: sendrecv and alltoall, and one rank, which it copies\n"
	"locally without tuning). Its header gives NCCL's graphs for the\n"
	"communicator, as NCCL_DEBUG_SUBSYS=GRAPH logs them.\n"
	"\n"
	"  -t, --topology FILE     node and cluster description (YAML), or a shipped\n"
	"                          one by name (h100-pcie5-400g: configs/NAME.yaml)\n"
	"  -n, --nodes N           number of nodes (default: the topology's)\n"
	"      --gpus LIST         the GPUs of each node the run uses, as nccl-tests\n"
	"                          started with that many ranks a node on those\n"
	"                          devices (3; 0-3; 0,2,4-7; default all): NCCL then\n"
	"                          searches them alone, with every NIC of the node\n"
	"%s"
	"  -b, --minbytes SIZE     smallest size (default 8); K, M, G: powers of 1024\n"
	"  -e, --maxbytes SIZE     largest size (default 8G)\n"
	"  -f, --stepfactor N      multiply the size by N each step (default 2); 1, as\n"
	"                          in nccl-tests, adds --stepbytes instead\n"
	"  -i, --stepbytes SIZE    add SIZE each step instead (default 1M; with -f\n"
	"                          only as -f 1)\n"
	"      --op OP             allreduce (default), all_gather, reduce_scatter,\n"
	"                          broadcast (root 0), alltoall, sendrecv (these two\n"
	"                          NCCL 2.7 on); nccl-tests' names (all_reduce, ...) too\n"
	"  -d, --datatype TYPE     nccl-tests' type names: float (default), half,\n"
	"                          bfloat16, double, int8, uint8, int32, uint32, int64,\n"
	"                          uint64, f8e4m3, f8e5m2; the model times bytes, so\n"
	"                          each runs as the trace dtype of its size (int32 as\n"
	"                          fp32, int64 as fp64, uint8 and fp8 as int8);\n"
	"                          gdrlab's fp32, fp16, bf16, fp64 too; bfloat16 from\n"
	"                          --nccl 2.10, fp8 from 2.24 and compute capability\n"
	"                          9.0, as nccl-tests lists them\n"
	"  -o, --redop OP          all_reduce and reduce_scatter's reduction: sum\n"
	"                          (default), prod, min, max, avg (NCCL 2.10 on); NVLS\n"
	"                          reduces a sum, and a min or max of half and\n"
	"                          bfloat16, only\n"
	"      --backend NAME      analytic (default) or model: the predicting backend\n"
	"  -p, --path PATH         auto (default), direct, staged, staged-memcpy\n"
	"  -g, --gdr-level LEVEL   pix, pxb, p2c (default; pxb before --nccl 2.27), phb, sys\n"
	"                          or NCCL's old numbers: 1 pix, 2 pxb, 3 phb, 4+ sys\n"
	"%s"
	"      --chunk SIZE        emu and real's staging bounce buffer (e.g. 1MiB);\n"
	"                          the timing backends copy NCCL's slices\n"
	"      --buffers N         staged-memcpy: bounce buffers per side\n"
	"      --json FILE|-       write the rows as JSON ('-': stdout, no table)\n"
	"      --csv FILE|-        write one CSV row per size\n"
	"  -q, --quiet             no progress on stderr\n"
	"  -h, --help              this help\n"
	"\n"
	"-b, -e, -f, -i, -d as nccl-tests takes them; -n and -g are gdrlab's (nodes,\n"
	"GDR level), not nccl-tests' (iterations, GPUs a thread). Sizes that are not\n"
	"a whole number of elements, or for all_gather, reduce_scatter and alltoall\n"
	"of 16-byte shares a rank, are rounded down as nccl-tests rounds them; a\n"
	"size rounded to nothing prints as a 0-byte row, not predicted (NCCL runs\n"
	"nothing). Out of place and in place are the same prediction; #wrong is\n"
	"N/A (nothing is checked). sendrecv: nccl-tests' ring of sends (rank to\n"
	"rank + 1), all at once, at its slowest pair's pace: those from the first\n"
	"two nodes, every kind of pair of alike nodes.\n"
	"\n"
	"Exit status: 0 ok, 1 runtime failure (an output that could not be\n"
	"written), 2 bad input or usage.\n";

enum {
	OPT_OP = 512,
	OPT_SET,
	OPT_BACKEND,
	OPT_JSON,
	OPT_CSV,
	OPT_GPUS,
};

/* nccl-tests' loop: for (size = min; size <= max; size = next). */
static uint64_t next_size(const struct busbw_args *a, uint64_t size)
{
	return a->stepfactor > 1 ? size * a->stepfactor : size + a->stepbytes;
}

/* How many sizes the loop makes, or BUSBW_SIZES_MAX + 1 for too many.
 * Sizes stay below 2^40 and factors 2^10: nothing overflows. */
static size_t count_sizes(const struct busbw_args *a)
{
	size_t n = 0;

	for (uint64_t size = a->minbytes; size <= a->maxbytes && n <= BUSBW_SIZES_MAX;
	     size = next_size(a, size))
		n++;
	return n;
}

/* Returns -1 to go on, else the exit status. */
static int parse(int argc, char **argv, struct busbw_args *a)
{
	static const struct option longopts[] = {
		{ "topology", required_argument, NULL, 't' },
		{ "nodes", required_argument, NULL, 'n' },
		{ "gpus", required_argument, NULL, OPT_GPUS },
		{ "set", required_argument, NULL, OPT_SET },
		{ "minbytes", required_argument, NULL, 'b' },
		{ "maxbytes", required_argument, NULL, 'e' },
		{ "stepfactor", required_argument, NULL, 'f' },
		{ "stepbytes", required_argument, NULL, 'i' },
		{ "op", required_argument, NULL, OPT_OP },
		{ "datatype", required_argument, NULL, 'd' },
		{ "redop", required_argument, NULL, 'o' },
		{ "backend", required_argument, NULL, OPT_BACKEND },
		{ "path", required_argument, NULL, 'p' },
		{ "gdr-level", required_argument, NULL, 'g' },
		{ "chunk", required_argument, NULL, 'C' },
		{ "buffers", required_argument, NULL, 'B' },
		CLI_NCCL_LONGOPTS
		{ "json", required_argument, NULL, OPT_JSON },
		{ "csv", required_argument, NULL, OPT_CSV },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool factor_given = false, step_given = false;
	int c, rc;

	memset(a, 0, sizeof(*a));
	a->backend = "analytic";
	a->coll = nccl_coll_of(TRACE_OP_ALLREDUCE);
	a->type = nccl_type_find("float");
	a->minbytes = 8;
	a->maxbytes = 8ull << 30;
	a->stepfactor = 2;
	a->stepbytes = 1 << 20; /* nccl-tests' default -i */
	plan_options_default(&a->opts);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":t:n:b:e:f:i:d:o:p:g:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			if (cli_shipped_file("busbw", "--topology", optarg, CLI_SHIPPED_TOPOLOGY, &a->topology))
				return EXIT_USAGE;
			break;
		case 'b':
		case 'e':
			if (cli_parse_size(optarg, NCCL_SIZE_MAX, c == 'b' ? &a->minbytes : &a->maxbytes))
				return cli_usage_error("busbw", "%s: expected a size like " CLI_SIZE_FORMS " (at most 1024G), got '%s'",
						       c == 'b' ? "--minbytes" : "--maxbytes", optarg);
			break;
		case 'f':
			if (cli_parse_unsigned(optarg, 1024, &a->stepfactor))
				return cli_usage_error("busbw", "--stepfactor: expected a whole number from 1 to 1024, got '%s'", optarg);
			factor_given = true;
			break;
		case 'i':
			if (cli_parse_size(optarg, NCCL_SIZE_MAX, &a->stepbytes) || !a->stepbytes)
				return cli_usage_error("busbw", "--stepbytes: expected a size above 0 like 1M, got '%s'", optarg);
			step_given = true;
			break;
		case OPT_OP:
			a->coll = nccl_coll_find(optarg);
			if (!a->coll)
				return cli_usage_error("busbw", "--op: expected " NCCL_COLL_NAMES ", got '%s'", optarg);
			break;
		case 'o':
			if (trace_redop_parse(optarg, &a->redop))
				return cli_usage_error("busbw", "--redop: expected sum, prod, min, max or avg, got '%s'", optarg);
			a->redop_given = true;
			break;
		case 'd':
			a->type = nccl_type_find(optarg);
			if (!a->type)
				return cli_usage_error("busbw", "--datatype: expected " NCCL_TYPE_NAMES ", got '%s'", optarg);
			break;
		case OPT_SET:
			if (cli_set_option("busbw", optarg, &a->sets))
				return EXIT_USAGE;
			break;
		case OPT_BACKEND:
			a->backend = optarg;
			break;
		case OPT_JSON:
			a->json = optarg;
			break;
		case OPT_CSV:
			a->csv = optarg;
			break;
		case OPT_GPUS:
			a->gpus = optarg;
			break;
		case 'q':
			a->quiet = true;
			break;
		case 'h':
			printf(busbw_usage, cli_set_usage, cli_nccl_usage);
			return 0;
		default:
			rc = cli_plan_option("busbw", c, optarg, argv, &a->opts);
			if (rc)
				return rc;
		}
	}
	if (optind < argc)
		return cli_usage_error("busbw", "unexpected argument '%s'", argv[optind]);
	if (!a->topology)
		return cli_usage_error("busbw", "%s is required", "--topology");
	if (cli_stdout_twice("busbw", (const char *[]){ a->json, a->csv },
			     (const char *[]){ "--json", "--csv" }, 2))
		return EXIT_USAGE;
	/* nccl-tests adds -i only when -f is 1; asked for both with another
	 * factor, one is a mistake */
	if (factor_given && step_given && a->stepfactor != 1)
		return cli_usage_error("busbw", "--stepfactor and --stepbytes exclude each other unless -f is 1 (-f multiplies, -i adds)");
	if (step_given)
		a->stepfactor = 1;
	/* the trace's int8 stands for fp8 too: the tuner is told */
	a->opts.fp8 = a->type->fp8;
	if (a->redop_given && !trace_op_reduces(a->coll->op))
		return cli_usage_error("busbw", "--redop: %s reduces nothing", a->coll->name);
	if (a->minbytes > a->maxbytes)
		return cli_usage_error("busbw", "--minbytes %llu is above --maxbytes %llu",
				       (unsigned long long)a->minbytes,
				       (unsigned long long)a->maxbytes);
	if (!a->minbytes && a->stepfactor > 1)
		return cli_usage_error("busbw", "--minbytes 0 with --stepfactor: the size would stay 0 (use --stepbytes)");
	if (count_sizes(a) > BUSBW_SIZES_MAX)
		return cli_usage_error("busbw", "--minbytes %llu to --maxbytes %llu %s %llu makes more than %d sizes",
				       (unsigned long long)a->minbytes,
				       (unsigned long long)a->maxbytes,
				       a->stepfactor > 1 ? "by a factor of" : "in steps of",
				       (unsigned long long)(a->stepfactor > 1 ? a->stepfactor : a->stepbytes),
				       BUSBW_SIZES_MAX);
	return -1;
}

/* The rows: each size of the loop as the test rounds it. */
static int make_rows(struct busbw_run *r, struct diag *d)
{
	const struct busbw_args *a = r->a;
	size_t n = count_sizes(a), i = 0;

	r->counts = calloc(n, sizeof(*r->counts));
	r->pts = calloc(n, sizeof(*r->pts));
	if (!r->counts || !r->pts)
		return diag_set(d, -ENOMEM, "out of memory for %zu sizes", n);
	for (uint64_t size = a->minbytes; i < n; size = next_size(a, size), i++) {
		nccl_coll_size(a->coll, a->type->size, r->nranks, size,
			       &r->pts[i].size, &r->counts[i]);
		r->pts[i].line = (unsigned)i + 1;
	}
	r->n = n;
	return 0;
}

/*
 * What nccl-tests built against the release asked for runs on these
 * GPUs: a type, op or reduction it does not have it would run as float
 * or sum, or not at all (nccl_runs). 0 or the exit status.
 */
static int check_runs(const struct busbw_args *a, const struct topology *topo)
{
	char why[160];

	if (!nccl_runs(a->coll, a->type, a->redop, plan_options_nccl_minor(&a->opts),
		       topo_gpu_cc(topo), why, sizeof(why)))
		return 0;
	return cli_usage_error("busbw", "%s", why);
}

static void run_destroy(struct busbw_run *r)
{
	free(r->counts);
	free(r->pts);
}

/*
 * The engine names the trace's file and line in its messages; busbw's
 * trace has neither, so "busbw:3: op: ..." becomes "size 32: ...", and
 * "busbw: ..." (the whole table's) "...": the command names itself.
 */
static void name_size(const struct busbw_run *r, struct diag *d)
{
	char rest[DIAG_MSG_MAX - 32]; /* room for "size N: " */
	unsigned line;
	int at = 0;

	if (!strncmp(d->msg, "busbw: ", 7)) {
		memmove(d->msg, d->msg + 7, strlen(d->msg + 7) + 1);
		return;
	}
	if (sscanf(d->msg, "busbw:%u: %n", &line, &at) != 1 || !at || !line ||
	    line > r->n)
		return;
	/* busbw wrote the trace's op itself: a key the user never wrote */
	if (!strncmp(d->msg + at, "op: ", 4))
		at += 4;
	snprintf(rest, sizeof(rest), "%s", d->msg + at);
	snprintf(d->msg, sizeof(d->msg), "size %llu: %s",
		 (unsigned long long)r->pts[line - 1].size, rest);
}

static int predict(struct busbw_run *r, const struct backend_ops *b,
		   struct diag *d)
{
	struct progress progress;
	struct backend_hooks hooks = { progress_update, &progress };
	struct predict_setup s = {
		.backend = b, .topo = r->topo, .opts = &r->a->opts,
		.op = r->a->coll->op, .dtype = r->a->type->dtype, .redop = r->a->redop,
		.root = r->a->coll->root, .name = "busbw", .hooks = &hooks,
		.graphs = &r->graphs, .gpus = &r->gpus,
	};
	double sum = 0;
	int err;

	progress_init(&progress, "busbw", r->a->quiet);
	err = predict_sizes(&s, r->pts, r->n, d);
	progress_done(&progress);
	if (err) {
		name_size(r, d);
		return err;
	}
	/* nccl-tests averages every half it printed, 0-byte rows too */
	for (size_t i = 0; i < r->n; i++)
		sum += r->pts[i].rec.busbw_gbps;
	r->avg_busbw = r->n ? sum / r->n : 0;
	return 0;
}

static int write_outputs(const struct busbw_run *r, struct diag *d)
{
	const struct busbw_args *a = r->a;
	struct output_file json = { 0 }, csv = { 0 };
	int err = 0;

	if (a->json)
		err = output_file_open(&json, a->json, d);
	if (!err && a->csv)
		err = output_file_open(&csv, a->csv, d);
	/* a writer's bare -EIO: the stream's own cause instead */
	if (!err && json.fp && (err = busbw_write_json(json.fp, r)))
		err = output_file_fail(&json, err, d);
	if (!err && csv.fp && (err = busbw_write_csv(csv.fp, r)))
		err = output_file_fail(&csv, err, d);
	if (!err && json.fp)
		err = output_file_commit(&json, d);
	if (!err && csv.fp)
		err = output_file_commit(&csv, d);
	output_file_abort(&json);
	output_file_abort(&csv);
	return err;
}

int cmd_busbw(int argc, char **argv)
{
	const struct backend_ops *b;
	struct busbw_args a;
	struct topology topo;
	struct busbw_run r = { 0 };
	struct diag d = { "" };
	int rc, err;

	rc = parse(argc, argv, &a);
	if (rc >= 0)
		return rc;
	rc = cli_check_outputs("busbw", (const char *[]){ a.json, a.csv }, 2);
	if (rc)
		return rc;
	b = predict_backend("busbw", a.backend, "");
	if (!b)
		return EXIT_USAGE;
	err = topology_load_with(a.topology, a.sets.v, a.sets.n, &topo, &d);
	if (err)
		return cli_fail("busbw", CLI_LOADING, err, &d);
	if (check_runs(&a, &topo))
		return EXIT_USAGE;
	/* the table is the one without them, which a note says */
	cli_note_unread("busbw", &a.opts, &a.sets, a.opts.path, false);
	r.a = &a;
	r.topo = &topo;
	r.backend = b->name;
	if (node_gpus_option("busbw", a.gpus, &topo, &r.gpus))
		return EXIT_USAGE;
	r.nodes = predict_nodes(&topo, &a.opts);
	r.nranks = predict_ranks(&topo, &a.opts, &r.gpus);
	err = make_rows(&r, &d);
	if (!err)
		err = predict(&r, b, &d);
	if (!err)
		err = write_outputs(&r, &d);
	if (err) {
		rc = cli_fail("busbw", CLI_RUNNING, err, &d);
		goto out;
	}
	if ((!a.json || strcmp(a.json, "-")) && (!a.csv || strcmp(a.csv, "-")))
		busbw_print_table(stdout, &r);
	rc = 0;
out:
	run_destroy(&r);
	return rc;
}
