/* SPDX-License-Identifier: MIT */
/*
 * gdrlab validate --nccl-tests FILE: a real nccl-tests output held against
 * the model. Every size of the file is predicted on the topology, as
 * `gdrlab busbw` predicts it (predict_sizes.c), for the cluster the file
 * ran on: its hosts are the nodes, its ranks per host must be the
 * topology's GPUs per node. Per size the measured and predicted times and
 * the error; then a verdict per regime, because a model is usually off
 * in one of them and not the other: latency-bound sizes (launch and hop
 * latencies, NCCL's LL protocols) and bandwidth-bound ones (links, NICs,
 * PCIe, GPUDirect).
 *
 * The regime is the prediction's, not the measurement's, so that a slow
 * measurement does not move the border: a size is latency-bound when its
 * predicted busbw is below half the highest the prediction reaches, over
 * the file's sizes and 256 MiB (VNT_PEAK_BYTES).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "nccl_conv.h"
#include "nccl_tests.h"
#include "output_file.h"
#include "report.h"
#include "validate_nccl_tests.h"

const char validate_nccl_tests_usage[] =
	"usage: gdrlab validate --nccl-tests FILE --topology FILE [options]\n"
	"\n"
	"Is what nccl-tests measured normal for this hardware? Read an nccl-tests\n"
	"output (its table, or the JSON of -J), predict each of its sizes on the\n"
	"topology as 'gdrlab busbw' does, and print per size the measured and\n"
	"predicted time, the error and busbw, and a verdict for the latency-bound\n"
	"and the bandwidth-bound sizes.\n"
	"\n"
	"      --nccl-tests FILE   nccl-tests output: the collective, type and\n"
	"                          sizes are the file's; its out-of-place times\n"
	"                          (in place where it has none) are the measurement\n"
	"  -t, --topology FILE     the measured nodes: as many GPUs per node as the\n"
	"                          file has ranks per host, or --gpus (or a shipped\n"
	"                          topology by name: abci-v100-2xedr,\n"
	"                          configs/validation/NAME.yaml)\n"
	"  -n, --nodes N           nodes to predict (default: the file's hosts, or\n"
	"                          a gdrlab busbw table's nodes)\n"
	"      --gpus LIST         the GPUs of each node the file's ranks ran on,\n"
	"                          where fewer than the topology's (3; 0-3; 0,2,4-7;\n"
	"                          default: the devices its text lists, where every\n"
	"                          host's are the same, or a busbw table's GPUs):\n"
	"                          predicted as NCCL searches those alone\n"
	"%s"
	"      --op OP             the collective, for files that do not name it\n"
	"                          (nccl-tests before 2.16.7): allreduce, all_gather,\n"
	"                          reduce_scatter, broadcast, alltoall, sendrecv\n"
	"  -b, --backend NAME      the predicting backend: analytic (default) or\n"
	"                          model (-P, --predict: the same)\n"
	"  -p, --path PATH         auto (default), direct, staged, staged-memcpy\n"
	"  -g, --gdr-level LEVEL   pix, pxb, p2c (default; pxb before --nccl 2.27), phb, sys\n"
	"                          or NCCL's old numbers: 1 pix, 2 pxb, 3 phb, 4+ sys\n"
	"%s"
	"      --chunk SIZE        emu and real's staging bounce buffer (e.g. 1MiB);\n"
	"                          the timing backends copy NCCL's slices\n"
	"      --buffers N         staged-memcpy: bounce buffers per side\n"
	"      --tolerance PCT     mean error still called normal (default 15)\n"
	"      --json FILE|-       write the comparison as JSON ('-': stdout, no table)\n"
	"  -q, --quiet             no progress on stderr\n"
	"\n"
	"A size is latency-bound when its predicted busbw is below half the\n"
	"highest the prediction reaches (over the file's sizes and 256 MiB), else\n"
	"bandwidth-bound; each regime's\n"
	"verdict is its mean error, (measured - predicted) / predicted, against\n"
	"the tolerance: normal, slower or faster than expected; data corrupted,\n"
	"whatever the times, where nccl-tests' #wrong counted wrong elements in\n"
	"one of its sizes.\n"
	"\n"
	"Exit status: 0 it ran (whatever the verdict), 1 runtime failure, 2 bad\n"
	"input or usage (also a malformed nccl-tests file: one line, file:line).\n";

bool validate_nccl_tests_wanted(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--nccl-tests") ||
		    !strncmp(argv[i], "--nccl-tests=", 13))
			return true;
	return false;
}

enum {
	OPT_NCCL_TESTS = 512,
	OPT_GPUS,
	OPT_OP,
	OPT_TOLERANCE,
	OPT_JSON,
	OPT_SET,
};

/* Returns -1 to go on, else the exit status. */
static int parse(int argc, char **argv, struct vnt_args *a)
{
	static const struct option longopts[] = {
		{ "nccl-tests", required_argument, NULL, OPT_NCCL_TESTS },
		{ "topology", required_argument, NULL, 't' },
		{ "nodes", required_argument, NULL, 'n' },
		{ "gpus", required_argument, NULL, OPT_GPUS },
		{ "set", required_argument, NULL, OPT_SET },
		{ "op", required_argument, NULL, OPT_OP },
		{ "backend", required_argument, NULL, 'b' },
		{ "predict", required_argument, NULL, 'P' },
		{ "path", required_argument, NULL, 'p' },
		{ "gdr-level", required_argument, NULL, 'g' },
		{ "chunk", required_argument, NULL, 'C' },
		{ "buffers", required_argument, NULL, 'B' },
		CLI_NCCL_LONGOPTS
		{ "tolerance", required_argument, NULL, OPT_TOLERANCE },
		{ "json", required_argument, NULL, OPT_JSON },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, rc;

	memset(a, 0, sizeof(*a));
	a->tolerance = 15;
	plan_options_default(&a->opts);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":t:n:b:P:p:g:qh", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_NCCL_TESTS:
			a->file = optarg;
			break;
		case OPT_GPUS:
			a->gpus = optarg;
			break;
		case 't':
			if (cli_shipped_file("validate", "--topology", optarg, CLI_SHIPPED_TOPOLOGY, &a->topology))
				return EXIT_USAGE;
			break;
		case OPT_SET:
			if (cli_set_option("validate", optarg, &a->sets))
				return EXIT_USAGE;
			break;
		case OPT_OP:
			if (!nccl_coll_find(optarg))
				return cli_usage_error("validate", "--op: expected " NCCL_COLL_NAMES ", got '%s'", optarg);
			a->op = optarg;
			break;
		case 'b':
		case 'P':
			/* the file is the measurement: either names the predictor */
			if (a->backend && strcmp(a->backend, optarg))
				return cli_usage_error("validate", "--backend %s and --predict %s: with --nccl-tests both name the predicting backend",
						       a->backend, optarg);
			a->backend = optarg;
			break;
		case OPT_TOLERANCE:
			rc = cli_parse_tolerance("validate", optarg, &a->tolerance);
			if (rc)
				return rc;
			break;
		case OPT_JSON:
			a->json = optarg;
			break;
		case 'q':
			a->quiet = true;
			break;
		case 'h':
			return cmd_validate_help();
		default:
			a->path_set |= c == 'p';
			rc = cli_plan_option("validate", c, optarg, argv, &a->opts);
			if (rc)
				return rc;
		}
	}
	if (optind < argc)
		return cli_usage_error("validate", "unexpected argument '%s'", argv[optind]);
	if (!a->file)
		return cli_usage_error("validate", "%s is required", "--nccl-tests");
	if (!a->topology)
		return cli_usage_error("validate", "%s is required", "--topology");
	if (!a->backend)
		a->backend = "analytic";
	return -1;
}

/* An error about the file, at its line when there is one, as the reader
 * writes its own. */
static int file_error(const char *file, unsigned line, const char *key,
		      struct diag *d, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static int file_error(const char *file, unsigned line, const char *key,
		      struct diag *d, const char *fmt, ...)
{
	char what[DIAG_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (line)
		return diag_at(d, -EINVAL, file, line, 0, key, "%s", what);
	return diag_set(d, -EINVAL, "%s: %s: %s", file, key, what);
}

/* The collective: the file's, or --op for a file that does not say. */
static int resolve_op(struct vnt_run *r, struct diag *d)
{
	const struct nccl_tests_file *f = r->f;
	const char *op = r->a->op;

	if (f->op[0]) {
		r->coll = nccl_coll_find(f->op);
		if (!r->coll || strcmp(r->coll->name, f->op))
			return file_error(f->name, 0, "collective", d,
					  "%s_perf: gdrlab predicts no such collective (" NCCL_COLL_NAMES ")",
					  f->op);
		if (op && nccl_coll_find(op) != r->coll)
			return file_error(f->name, 0, "collective", d,
					  "the file is %s_perf, --op says %s", f->op, op);
		return 0;
	}
	if (!op)
		return file_error(f->name, 0, "collective", d,
				  "the file does not name its collective (nccl-tests before 2.16.7 print no 'Collective test starting' line): give --op");
	r->coll = nccl_coll_find(op);
	return 0;
}

/*
 * The cluster: nodes from the hosts (or --nodes), and as many ranks per
 * host as the topology has GPUs per node, or the prediction is of
 * another machine.
 */
static int resolve_cluster(struct vnt_run *r, struct plan_options *o,
			   struct diag *d)
{
	const struct nccl_tests_file *f = r->f;
	unsigned gpn;

	/* fewer ranks a host than GPUs a node, on devices the file lists
	 * alike for every host: those GPUs, as --gpus would give them */
	if (!r->gpus.n && f->nhosts && f->ndevices == f->nranks / f->nhosts &&
	    f->ndevices < r->topo->ngpus && f->devices[f->ndevices - 1] < r->topo->ngpus) {
		r->gpus.n = f->ndevices;
		memcpy(r->gpus.idx, f->devices, f->ndevices * sizeof(*f->devices));
		r->gpus_from_file = true;
	}
	gpn = node_gpus_count(&r->gpus, r->topo);
	/*
	 * NCCL_TESTS_SPLIT: the groups ran their collectives at once, and
	 * src/common.cu Allreduce averages the time over every process of
	 * every group; rank 0's rows are no collective that ran alone.
	 */
	if (f->ngroups > 1)
		return file_error(f->name, 0, "devices", d,
				  "%u groups of ranks ran at once (NCCL_TESTS_SPLIT): the times are the mean over all groups, rank 0's of %u ranks sharing the machines with the others; gdrlab predicts one collective alone",
				  f->ngroups, f->nranks);
	if (f->nhosts) {
		if (f->nranks % f->nhosts || f->host_ranks_min != f->host_ranks_max)
			return file_error(f->name, 0, "devices", d,
					  "%u ranks on %u hosts, %u to %u a host: not as many on every host, which gdrlab cannot model",
					  f->nranks, f->nhosts, f->host_ranks_min, f->host_ranks_max);
		if (f->nranks / f->nhosts != gpn && r->gpus.n)
			return file_error(f->name, 0, "devices", d,
					  "%u rank%s per host (%u on %u host%s), but --gpus gives %u GPUs a node: give the ones they ran on",
					  f->nranks / f->nhosts, f->nranks / f->nhosts == 1 ? "" : "s", f->nranks, f->nhosts,
					  f->nhosts == 1 ? "" : "s", gpn);
		if (f->nranks / f->nhosts != gpn)
			return file_error(f->name, 0, "devices", d,
					  "%u rank%s per host (%u on %u host%s), but %s has %u GPUs per node: give --gpus with the GPUs they ran on, or a topology of the measured nodes",
					  f->nranks / f->nhosts, f->nranks / f->nhosts == 1 ? "" : "s", f->nranks, f->nhosts,
					  f->nhosts == 1 ? "" : "s", r->a->topology, gpn);
		/* sendrecv_perf sends rank r's buffer to r + 1 (src/sendrecv.cu):
		 * with ranks a host at a time one send leaves each host, which
		 * busbw's pair across nodes stands for; spread over the hosts
		 * (mpirun --map-by node) every send does, sharing the NICs */
		if (r->coll->op == TRACE_OP_SENDRECV && f->nhosts > 1 && !f->hosts_in_blocks)
			return file_error(f->name, 0, "devices", d,
					  "the ranks are spread over the hosts, not listed a host at a time: sendrecv_perf's ring (rank r to r + 1) then leaves a host at every rank, sharing its NICs, where gdrlab predicts one pair across nodes; run it with ranks placed a host at a time (mpirun --map-by slot)");
		if (!o->nodes)
			o->nodes = f->nhosts;
	} else if (!o->nodes) {
		return file_error(f->name, 0, "devices", d,
				  "the file lists no devices, so not its hosts: give --nodes");
	}
	r->nodes = predict_nodes(r->topo, o);
	r->nranks = predict_ranks(r->topo, o, &r->gpus);
	/* NCCL runs no collective on one rank: it copies the buffer on the
	 * GPU, or in place does nothing (enqueue.cc ncclLaunchOneRank,
	 * device/onerank.cu), a cost of GPU memory no topology here gives */
	if (r->nranks == 1)
		return file_error(f->name, 0, "devices", d,
				  "one rank: NCCL moves nothing between GPUs there (it copies the buffer on the GPU, or in place does nothing), and gdrlab predicts what crosses NVLink, PCIe and the network: run nccl-tests on 2 or more GPUs");
	return 0;
}

/*
 * Whether the first row's redop and root are those of --op's collective,
 * for a file that does not name its own. nccl-tests prints the reduction
 * (-o, "sum") for all_reduce and reduce_scatter, and for the others
 * "none" (2.13.4 and later), an empty cell (2.13.0-2.13.3) or no column
 * (before); a root (-r, 0) for broadcast only, and -1 or no column for
 * the others. sendrecv prints -o's reduction though it reduces nothing
 * (2.13 and later: run_opnames, src/sendrecv.cu) and none before.
 */
static int check_op_columns(const struct vnt_run *r, struct diag *d)
{
	const struct nccl_tests_file *f = r->f;
	const struct nccl_tests_row *row0 = f->rows;
	enum trace_op op = r->coll->op;
	bool reduces = row0->redop[0] && strcmp(row0->redop, "none");

	if ((op == TRACE_OP_ALLREDUCE || op == TRACE_OP_REDUCE_SCATTER) && !reduces)
		return file_error(f->name, row0->line, "redop", d,
				  "'%s': the rows reduce nothing, %s_perf's reduce: is --op right?",
				  row0->redop, r->coll->name);
	if ((op == TRACE_OP_ALL_GATHER || op == TRACE_OP_BROADCAST ||
	     op == TRACE_OP_ALLTOALL) && reduces)
		return file_error(f->name, row0->line, "redop", d,
				  "'%s': the rows reduce, %s_perf's do not: is --op right?",
				  row0->redop, r->coll->name);
	if ((op == TRACE_OP_BROADCAST) != (row0->root >= 0))
		return file_error(f->name, row0->line, "root", d,
				  "%d: %s_perf's rows %s: is --op right?", row0->root,
				  r->coll->name,
				  op == TRACE_OP_BROADCAST ? "have a root" : "have none (-1)");
	return 0;
}

/*
 * The rows' reduction (-o), which the prediction keeps: NVLS reduces a
 * sum, and a min or max of some types, only. -o mulsum is
 * ncclRedOpCreatePreMulSum's, a sum after a multiplication, as an
 * average of floats is (ncclDevPreMulSum): timed as avg.
 */
static int read_redop(struct vnt_run *r, struct diag *d)
{
	const struct nccl_tests_row *row0 = r->f->rows;

	r->redop = TRACE_REDOP_SUM;
	if (!trace_op_reduces(r->coll->op) || !trace_redop_parse(row0->redop, &r->redop))
		return 0;
	if (!strcmp(row0->redop, "mulsum")) {
		r->redop = TRACE_REDOP_AVG;
		return 0;
	}
	return file_error(r->f->name, row0->line, "redop", d,
			  "'%s': not a reduction nccl-tests runs (sum, prod, min, max, avg, mulsum)",
			  row0->redop);
}

/* The half of a row that is the measurement: out of place, else in place
 * (a -J file may have only that). */
static const struct nccl_tests_result *measured_half(const struct nccl_tests_row *row)
{
	return row->oop.valid ? &row->oop : row->ip.valid ? &row->ip : NULL;
}

/*
 * The ranks the file ran on against the prediction's: the file's device
 * lines say them; without them, the rows' busbw over algbw (nccl-tests'
 * bus factor, 2 (n - 1) / n or (n - 1) / n) tells, read off the row of
 * most algbw where it is 1 GB/s or more. Both are printed to 0.01 GB/s
 * (util.cu's %6.2f), so the factor is known to within half of that of
 * each, relatively: at 44.94 and 87.08 GB/s, 0.017% (32 ranks' 1.938
 * against 16's 1.875 and 64's 1.969 are 3% and 1.6% apart). A factor
 * further off the prediction's is refused: -n or --gpus that say another
 * machine would otherwise compare collectives of other sizes.
 */
static int check_ranks(const struct vnt_run *r, struct diag *d)
{
	const struct nccl_tests_file *f = r->f;
	const struct nccl_tests_result *best = NULL, *m;
	enum trace_op op = r->coll->op;
	unsigned line = 0;
	double want, got, within;

	if (f->nranks && f->nranks != r->nranks)
		return file_error(f->name, 0, "devices", d,
				  "the file ran %u ranks, the prediction takes %u: give -n and --gpus as they ran",
				  f->nranks, r->nranks);
	if (f->nranks || r->nranks < 2 ||
	    (op != TRACE_OP_ALLREDUCE && op != TRACE_OP_ALL_GATHER &&
	     op != TRACE_OP_REDUCE_SCATTER && op != TRACE_OP_ALLTOALL))
		return 0; /* listed, or a factor of 1 whatever the ranks */
	for (size_t i = 0; i < f->nrows; i++)
		if ((m = measured_half(&f->rows[i])) && (!best || m->algbw_gbps > best->algbw_gbps)) {
			best = m;
			line = f->rows[i].line;
		}
	if (!best || best->algbw_gbps < 1)
		return 0;
	want = plan_bus_factor(op, r->nranks);
	got = best->busbw_gbps / best->algbw_gbps;
	within = got * (0.005 / best->busbw_gbps + 0.005 / best->algbw_gbps) + 1e-9;
	if (fabs(got - want) <= within)
		return 0;
	return file_error(f->name, line, "busbw", d,
			  "%.2f / %.2f GB/s: a bus factor of %.3f, where %u ranks give %.3f: the rows ran on other ranks than predicted (give -n and --gpus as they ran)",
			  best->busbw_gbps, best->algbw_gbps, got, r->nranks, want);
}

/*
 * The data type, and for a collective given by --op a check that the
 * sizes, reduction and root are that collective's: the reader checked
 * them only against the collective the file names.
 */
static int resolve_rows(struct vnt_run *r, struct diag *d)
{
	const struct nccl_tests_file *f = r->f;
	const struct nccl_tests_row *row0 = f->rows;
	unsigned ranks = f->nranks ? f->nranks : r->nranks;
	uint64_t want;
	int err;

	if (!f->nrows) /* every row had 0 bytes */
		return file_error(f->name, 0, "table", d, "no row of more than 0 bytes to compare");
	r->type = nccl_type_find(row0->type);
	if (!r->type)
		return file_error(f->name, row0->line, "type", d,
				  "'%s' has no dtype in gdrlab", row0->type);
	want = row0->count * r->type->size * (r->coll->per_rank ? ranks : 1);
	if (!f->op[0] && row0->size != want)
		return file_error(f->name, row0->line, "size", d,
				  "%llu bytes for count %llu x %u-byte %s is not %s_perf's %llu%s: is --op right?",
				  (unsigned long long)row0->size,
				  (unsigned long long)row0->count, r->type->size,
				  row0->type, r->coll->name, (unsigned long long)want,
				  r->coll->per_rank ? " (count x ranks)" : "");
	err = f->op[0] ? 0 : check_op_columns(r, d);
	return err ? err : read_redop(r, d);
}

static enum vnt_verdict judge(double err, double tolerance)
{
	if (err > tolerance)
		return VNT_SLOWER;
	if (err < -tolerance)
		return VNT_FASTER;
	return VNT_NORMAL;
}

static int predict(struct vnt_run *r, const struct backend_ops *b,
		   const struct plan_options *o, struct diag *d)
{
	const struct nccl_tests_file *f = r->f;
	struct progress progress;
	struct backend_hooks hooks = { progress_update, &progress };
	uint64_t largest = 0;
	struct predict_setup s = {
		.backend = b, .topo = r->topo, .opts = o, .op = r->coll->op,
		.dtype = r->type->dtype, .redop = r->redop, .root = f->rows[0].root,
		.name = f->name, .hooks = &hooks, .gpus = &r->gpus,
	};
	int err;

	r->rows = calloc(f->nrows, sizeof(*r->rows));
	r->pts = calloc(f->nrows + 1, sizeof(*r->pts));
	if (!r->rows || !r->pts)
		return diag_set(d, -ENOMEM, "out of memory for %zu sizes", f->nrows);
	for (size_t i = 0; i < f->nrows; i++) {
		const struct nccl_tests_row *row = &f->rows[i];
		const struct nccl_tests_result *m = measured_half(row);

		if (!m) {
			r->unmeasured++;
			continue;
		}
		r->rows[r->n] = (struct vnt_row){ .row = row, .measured = m };
		r->pts[r->n].size = row->size;
		r->pts[r->n].line = row->line;
		r->n++;
	}
	/* the peak's reference: a file that stops at small sizes never
	 * reaches it, and every row would read bandwidth-bound against its
	 * own largest */
	for (size_t i = 0; i < r->n; i++)
		largest = r->pts[i].size > largest ? r->pts[i].size : largest;
	if (r->n && largest < VNT_PEAK_BYTES) {
		uint64_t unit = (uint64_t)r->type->size * (r->coll->per_rank ? r->nranks : 1);

		r->pts[r->n] = (struct predict_point){ .size = VNT_PEAK_BYTES / unit * unit,
						       .line = r->pts[r->n - 1].line };
	}
	progress_init(&progress, "validate", r->a->quiet);
	err = predict_sizes(&s, r->pts, r->n + !!r->pts[r->n].size, d);
	progress_done(&progress);
	return err;
}

/* The wrong elements nccl-tests counted in @row's halves (#wrong; N/A,
 * -1, where it did not check: -c 0). */
static long long row_wrong(const struct nccl_tests_row *row)
{
	return (row->oop.valid && row->oop.wrong > 0 ? row->oop.wrong : 0) +
	       (row->ip.valid && row->ip.wrong > 0 ? row->ip.wrong : 0);
}

/* Errors, regimes and their verdicts. */
static void conclude(struct vnt_run *r)
{
	double sum[VNT_REGIMES] = { 0 }, abs_sum[VNT_REGIMES] = { 0 };

	for (size_t i = 0; i <= r->n; i++)
		if (r->pts[i].rec.busbw_gbps > r->peak_busbw) {
			r->peak_busbw = r->pts[i].rec.busbw_gbps;
			r->peak_size = r->pts[i].size;
		}
	for (size_t i = 0; i < r->n; i++) {
		struct vnt_row *v = &r->rows[i];
		const struct predict_point *p = &r->pts[i];
		struct vnt_regime *g;

		v->error_pct = p->rec.time_us > 0 ?
				       100 * (v->measured->time_us - p->rec.time_us) / p->rec.time_us : 0;
		v->regime = p->rec.busbw_gbps < r->peak_busbw / 2 ? VNT_LATENCY :
								 VNT_BANDWIDTH;
		g = &r->regimes[v->regime];
		if (!g->n++)
			g->min_size = p->size;
		g->max_size = p->size;
		sum[v->regime] += v->error_pct;
		abs_sum[v->regime] += fabs(v->error_pct);
		if (row_wrong(v->row)) {
			g->wrong += row_wrong(v->row);
			g->wrong_rows++;
		}
	}
	for (int k = 0; k < VNT_REGIMES; k++) {
		struct vnt_regime *g = &r->regimes[k];

		if (!g->n)
			continue;
		g->mean_error_pct = sum[k] / g->n;
		g->mean_abs_error_pct = abs_sum[k] / g->n;
		g->verdict = g->wrong ? VNT_CORRUPTED : judge(g->mean_error_pct, r->a->tolerance);
		if (g->verdict == VNT_NORMAL && g->mean_abs_error_pct > r->a->tolerance)
			g->verdict = VNT_MIXED;
	}
}

static int write_json(const struct vnt_run *r, struct diag *d)
{
	struct output_file out;
	int err;

	err = output_file_open(&out, r->a->json, d);
	if (err)
		return err;
	err = report_json_write_doc(out.fp, vnt_json(r));
	if (err) {
		output_file_abort(&out);
		return diag_set(d, err, "%s: %s", r->a->json, strerror(-err));
	}
	return output_file_commit(&out, d);
}

/* No --nccl: the release of the NCCL the file ran with, or the nearest
 * this build has tables for (said in the header), and its GDR default. */
static void file_release(struct plan_options *o, unsigned code, char *name, size_t len)
{
	const struct nccl_release *r = nccl_release_for_code(code, name, len);
	unsigned minor, patch;

	/* the file's own minor release, where another's tables stand for it */
	nccl_release_for_version(name, &minor, &patch);
	plan_options_set_nccl_release(o, r, minor, patch);
}

/*
 * A table `gdrlab busbw` printed names what it predicted with (its "# path
 * auto, GDR level PHB, NCCL 2.8.4" line): those are the options read back
 * where not given here, so that the table agrees with itself. Under
 * another --nccl its GDR level is kept only where it is not its own
 * release's default: given to busbw, then, where a default is the
 * release's, which --nccl changes.
 */
static int busbw_options(struct vnt_args *a, const struct nccl_tests_file *f, char *name,
			 size_t len, struct diag *d)
{
	const struct nccl_tests_busbw *h = &f->busbw;
	const struct nccl_release *r;
	struct plan_options own;
	enum topo_path_type level;
	enum plan_path path;
	unsigned minor, patch;

	if (!h->line)
		return 0;
	r = nccl_release_for_version(h->nccl, &minor, &patch);
	if (!r || plan_path_parse(h->path, &path) || topo_path_parse(h->gdr_level, &level))
		return file_error(f->name, h->line, "path", d,
				  "'path %s, GDR level %s, NCCL %s' is not what gdrlab busbw writes (a path, a GDR level name, an NCCL 2 release)",
				  h->path, h->gdr_level, h->nccl);
	if (!a->path_set)
		a->opts.path = path;
	plan_options_default(&own);
	plan_options_set_nccl_release(&own, r, minor, patch);
	if (!a->opts.gdr_level_set && (!a->opts.nccl_set || level != own.gdr_level)) {
		a->opts.gdr_level = level;
		a->opts.gdr_level_set = true;
	}
	if (!a->opts.nccl_set) {
		plan_options_set_nccl_release(&a->opts, r, minor, patch);
		snprintf(name, len, "%s", h->nccl);
	}
	return 0;
}

/*
 * And the cluster it predicted for (its "# topology ...: 4 nodes x 2 of 8
 * GPUs (0-1)" line), where --nodes and --gpus do not say: nccl-tests
 * names its hosts and devices, busbw its nodes and GPUs.
 */
static int busbw_cluster(struct vnt_args *a, const struct nccl_tests_file *f,
			 const struct topology *topo, struct node_gpus *gpus, struct diag *d)
{
	const struct nccl_tests_busbw *h = &f->busbw;
	struct diag why = { "" };

	if (!h->topo_line)
		return 0;
	if (!a->opts.nodes)
		a->opts.nodes = h->nodes;
	if (a->gpus || !h->gpus[0])
		return 0;
	if (node_gpus_parse("GPUs", h->gpus, topo, gpus, &why))
		return file_error(f->name, h->topo_line, "topology", d,
				  "%s: this topology does not have the GPUs the table was predicted on (give --gpus)",
				  why.msg);
	return 0;
}

int validate_nccl_tests(int argc, char **argv)
{
	const struct backend_ops *b;
	struct vnt_args a;
	struct topology topo;
	struct nccl_tests_file f;
	struct plan_options opts;
	struct vnt_run r = { 0 };
	struct diag d = { "" };
	int rc, err;

	rc = parse(argc, argv, &a);
	if (rc >= 0)
		return rc;
	b = predict_backend("validate", a.backend,
			    "; with --nccl-tests the file is the measurement");
	if (!b)
		return EXIT_USAGE;
	err = topology_load_with(a.topology, a.sets.v, a.sets.n, &topo, &d);
	if (err)
		return cli_fail("validate", CLI_LOADING, err, &d);
	if (node_gpus_option("validate", a.gpus, &topo, &r.gpus))
		return EXIT_USAGE;
	/* busbw's run options, said alike where they change nothing (this
	 * took --chunk, --buffers and --set staging.* in silence) */
	cli_note_unread("validate", &a.opts, &a.sets, a.opts.path, false);
	err = nccl_tests_load(a.file, &f, &d);
	if (err)
		return cli_fail("validate", CLI_LOADING, err, &d);
	if (f.nccl_version && !a.opts.nccl_set)
		file_release(&a.opts, f.nccl_version, r.file_nccl, sizeof(r.file_nccl));
	err = busbw_options(&a, &f, r.file_nccl, sizeof(r.file_nccl), &d);
	if (!err)
		err = busbw_cluster(&a, &f, &topo, &r.gpus, &d);
	if (err) {
		nccl_tests_destroy(&f);
		return cli_fail("validate", CLI_LOADING, err, &d);
	}
	opts = a.opts;
	r.a = &a;
	r.f = &f;
	r.topo = &topo;
	r.backend = b->name;
	err = resolve_op(&r, &d);
	if (!err)
		err = resolve_cluster(&r, &opts, &d);
	if (!err)
		err = resolve_rows(&r, &d);
	if (!err)
		err = check_ranks(&r, &d);
	/* the trace's int8 stands for fp8 too: the tuner is told */
	if (!err)
		opts.fp8 = r.type->fp8;
	if (!err)
		err = predict(&r, b, &opts, &d);
	if (!err)
		conclude(&r);
	if (!err && a.json)
		err = write_json(&r, &d);
	if (err) {
		rc = cli_fail("validate", CLI_RUNNING, err, &d);
		goto out;
	}
	if (!a.json || strcmp(a.json, "-"))
		vnt_print_table(stdout, &r);
	rc = 0;
out:
	free(r.rows);
	free(r.pts);
	nccl_tests_destroy(&f);
	return rc;
}
