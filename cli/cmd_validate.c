/* SPDX-License-Identifier: MIT */
/*
 * gdrlab validate: is this bandwidth normal for my hardware?
 *
 * The trace runs twice on one topology file (typically the one `gdrlab
 * calibrate` wrote for this machine): on a backend that measures (emu,
 * real) and on one that predicts (analytic, model). Per collective it
 * prints both times and the error, (measured - predicted) / predicted, and
 * a verdict: within the tolerance "normal", above it "slower" (with what to
 * check for the path the collective took), below it "faster" (the
 * topology file underestimates this machine). Any byte that arrived wrong
 * makes the overall verdict "data corrupted", whatever the times say.
 *
 * With --nccl-tests FILE the measurement is a real nccl-tests output
 * instead: that mode is validate_nccl_tests.c.
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "cli.h"
#include "json_util.h"
#include "output_file.h"
#include "report.h"

enum verdict { VERDICT_NORMAL, VERDICT_SLOWER, VERDICT_FASTER, VERDICT_CORRUPTED };

static const char *const verdict_names[] = {
	[VERDICT_NORMAL] = "normal",
	[VERDICT_SLOWER] = "slower",
	[VERDICT_FASTER] = "faster",
	[VERDICT_CORRUPTED] = "data_corrupted",
};

struct validate_args {
	const char *measure, *predict, *topology, *trace, *json;
	struct plan_options opts;
	double tolerance; /* percent */
	bool quiet;
	bool host_memory; /* the measuring backend's "GPU" is host memory */
};

static const char validate_usage[] =
	"usage: gdrlab validate --backend emu|real --topology FILE --trace FILE [options]\n"
	"\n"
	"Is this bandwidth normal for my hardware? Run the trace on a measuring\n"
	"backend and on a predicting one, on the same topology file (the one\n"
	"'gdrlab calibrate' wrote for this machine), and print per collective the\n"
	"measured and predicted time, the error and a verdict.\n"
	"\n"
	"  -b, --backend NAME      the measuring backend: emu or real\n"
	"  -t, --topology FILE     topology file, typically from 'gdrlab calibrate'\n"
	"                          (or a shipped one by name: configs/NAME.yaml)\n"
	"  -T, --trace FILE        gradient-exchange trace (JSON Lines; or a shipped\n"
	"                          one by name: traces/NAME.jsonl)\n"
	"  -P, --predict NAME      the predicting backend: analytic (default) or model\n"
	"  -n, --nodes N           number of nodes (default: the topology's)\n"
	"  -p, --path PATH         auto (default), direct, staged, staged-memcpy\n"
	"      --algo LIST         NCCL_ALGO syntax (as for 'gdrlab run')\n"
	"      --proto LIST        NCCL_PROTO syntax: LL,LL128,Simple\n"
	"      --channels N        channels a collective uses\n"
	"      --pxn on|off        PXN: send through a peer GPU's NIC over NVLink\n"
	"                          where NCCL would (default on)\n"
	"      --p2p-level LEVEL   NCCL_P2P_LEVEL (as for 'gdrlab run')\n"
	"                          (these five are accepted, but emu and real run\n"
	"                          gdrlab's own ring, Ring/Simple on one channel\n"
	"                          without PXN, and the prediction is of that ring)\n"
	"  -g, --gdr-level LEVEL   pix, pxb, p2c (default; pxb before --nccl 2.27),\n"
	"                          phb, sys (or NCCL's old numbers: 1 pix, 2 pxb,\n"
	"                          3 phb, 4+ sys): where path auto goes direct\n"
	"      --chunk SIZE        emu and real's staging bounce buffer (default:\n"
	"                          the topology's staging.chunk)\n"
	"      --buffers N         bounce buffers per side, 1..64\n"
	"      --nccl VERSION      the NCCL release whose defaults apply: 2.30.7\n"
	"                          (default), 2.21.5, 2.19.3, 2.12.12 or 2.8.4, or\n"
	"                          another 2.x from 2.7, taking the tables for it\n"
	"                          (GDR level default PXB before 2.27)\n"
	"      --tolerance PCT     error still called normal (default 15)\n"
	"      --json FILE|-       write the comparison as JSON ('-': stdout, no table)\n"
	"      --devices LIST      emu/real: RDMA devices (e.g. rxe0,rxe1)\n"
	"%s"
	"  -q, --quiet             no progress on stderr\n"
	"  -h, --help              this help\n"
	"\n"
	"Exit status: 0 it ran (whatever the time verdict), 1 runtime failure (also:\n"
	"the measuring backend cannot run here) or bytes that arrived wrong (the\n"
	"report is still written), 2 bad input or usage.\n";

int cmd_validate_help(void)
{
	printf(validate_usage, cli_ib_usage);
	printf("\n");
	printf(validate_nccl_tests_usage, cli_set_usage, cli_nccl_usage);
	return 0;
}

/* Returns -1 to go on, else the exit status. */
static int parse(int argc, char **argv, struct validate_args *a)
{
	static const struct option longopts[] = {
		{ "backend", required_argument, NULL, 'b' },
		{ "predict", required_argument, NULL, 'P' },
		{ "topology", required_argument, NULL, 't' },
		{ "trace", required_argument, NULL, 'T' },
		{ "nodes", required_argument, NULL, 'n' },
		{ "path", required_argument, NULL, 'p' },
		{ "tolerance", required_argument, NULL, 'o' },
		{ "json", required_argument, NULL, 'j' },
		{ "devices", required_argument, NULL, 'D' },
		{ "gdr-level", required_argument, NULL, 'g' },
		{ "chunk", required_argument, NULL, 'C' },
		{ "buffers", required_argument, NULL, 'B' },
		CLI_NCCL_LONGOPTS
		CLI_IB_LONGOPTS
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, rc;

	memset(a, 0, sizeof(*a));
	a->predict = "analytic";
	a->tolerance = 15;
	plan_options_default(&a->opts);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":b:P:t:T:n:p:g:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			a->measure = optarg;
			break;
		case 'P':
			a->predict = optarg;
			break;
		case 't':
			if (cli_shipped_file("validate", "--topology", optarg, CLI_SHIPPED_TOPOLOGY, &a->topology))
				return EXIT_USAGE;
			break;
		case 'T':
			if (cli_shipped_file("validate", "--trace", optarg, CLI_SHIPPED_TRACE, &a->trace))
				return EXIT_USAGE;
			break;
		case 'o':
			rc = cli_parse_tolerance("validate", optarg, &a->tolerance);
			if (rc)
				return rc;
			break;
		case 'j':
			a->json = optarg;
			break;
		case 'q':
			a->quiet = true;
			break;
		case 'h':
			return cmd_validate_help();
		default:
			rc = cli_plan_option("validate", c, optarg, argv, &a->opts);
			if (rc)
				return rc;
		}
	}
	if (optind < argc)
		return cli_usage_error("validate", "unexpected argument '%s'", argv[optind]);
	if (!a->measure)
		return cli_usage_error("validate", "%s is required (emu or real)", "--backend");
	if (!a->topology)
		return cli_usage_error("validate", "%s is required", "--topology");
	if (!a->trace)
		return cli_usage_error("validate", "%s is required", "--trace");
	return -1;
}

/* A built backend with capability @cap, or NULL after a one-line error. */
static const struct backend_ops *pick(const char *opt, const char *name,
				      unsigned cap, const char *kind)
{
	const struct backend_ops *b = cli_find_backend("validate", opt, name);

	if (b && !(b->caps & cap))
		fprintf(stderr, "gdrlab validate: %s: '%s' is not a %s backend (see 'gdrlab backends')\n",
			opt, name, kind);
	return b && (b->caps & cap) ? b : NULL;
}

static double error_pct(double measured, double predicted)
{
	return predicted > 0 ? 100 * (measured - predicted) / predicted : 0;
}

static enum verdict judge(double err, double tolerance)
{
	if (err > tolerance)
		return VERDICT_SLOWER;
	if (err < -tolerance)
		return VERDICT_FASTER;
	return VERDICT_NORMAL;
}

/* One collective's verdict: its bytes first, then its time. */
static enum verdict judge_coll(const struct coll_record *m,
			       const struct coll_record *p, double tolerance)
{
	if (m->data_errors)
		return VERDICT_CORRUPTED;
	return judge(error_pct(m->time_us, p->time_us), tolerance);
}

/* The usual suspects for a path that is slower than it should be. */
static const char *suspects(enum plan_path_used p)
{
	switch (p) {
	case PLAN_USED_DIRECT:
		return "the GDR level and GPU-NIC path type, ACS redirect on the bridges between them, "
		       "nvidia-peermem or dma-buf registration (gdrlab probe)";
	case PLAN_USED_STAGED:
		return "the pinned copy bandwidth (gdrlab calibrate --backend real, real/gpu-check) "
		       "and the bounce buffers (chunk, buffers)";
	case PLAN_USED_MIXED:
		return "both: GDR level/ACS/peermem for the direct sides, copy bandwidth for the staged ones";
	default:
		return "the GPU-to-GPU fabric inside the node (NVLink or PCIe peer-to-peer)";
	}
}

struct outcome {
	enum verdict verdict;
	double err;      /* of the comm time per iteration */
	char advice[768];
};

/* The overall verdict: data first, then the comm time per iteration. */
static void conclude(const struct validate_args *a, const struct records *m,
		     const struct records *p, struct outcome *o)
{
	unsigned paths = 0;
	size_t len = 0;

	o->err = error_pct(m->comm_time_us, p->comm_time_us);
	o->verdict = judge(o->err, a->tolerance);
	if (m->data_checked && m->data_errors) {
		o->verdict = VERDICT_CORRUPTED;
		snprintf(o->advice, sizeof(o->advice),
			 "data corrupted: %llu of %llu bytes checked arrived wrong; the times "
			 "mean nothing until that is fixed (registration, receive-side flush, the NIC)",
			 (unsigned long long)m->data_errors,
			 (unsigned long long)m->verified_bytes);
		return;
	}
	if (o->verdict == VERDICT_NORMAL) {
		snprintf(o->advice, sizeof(o->advice),
			 "normal: within %g%% of what %s predicts for this hardware",
			 a->tolerance, a->topology);
		return;
	}
	if (o->verdict == VERDICT_FASTER) {
		snprintf(o->advice, sizeof(o->advice),
			 "faster than predicted: the topology file underestimates this machine "
			 "(re-run gdrlab calibrate --backend %s)", a->measure);
		return;
	}
	/* slower: the suspects of every path a slow collective took */
	for (size_t i = 0; i < m->ncoll; i++)
		if (judge(error_pct(m->coll[i].time_us, p->coll[i].time_us),
			  a->tolerance) == VERDICT_SLOWER)
			paths |= 1u << m->coll[i].path;
	if (!paths)
		for (size_t i = 0; i < m->ncoll; i++)
			paths |= 1u << m->coll[i].path;
	len = snprintf(o->advice, sizeof(o->advice),
		       "slower than this hardware should be: check");
	for (unsigned k = 0; k <= PLAN_USED_MIXED && len < sizeof(o->advice); k++)
		if (paths & (1u << k))
			len += snprintf(o->advice + len, sizeof(o->advice) - len, " %s%s: %s;",
					k == PLAN_USED_NONE ? "intra-node" :
							      plan_path_used_name(k),
					k == PLAN_USED_NONE ? "" : " path", suspects(k));
	if (len && len < sizeof(o->advice))
		o->advice[len - 1] = '\0'; /* the last ';' */
	if (a->host_memory && len < sizeof(o->advice))
		snprintf(o->advice + len - 1, sizeof(o->advice) - len + 1,
			 "; and this host's load: %s's \"GPU\" is host memory and its NIC "
			 "may be software (SoftRoCE runs on the CPU)", a->measure);
}

static void print_table(const struct validate_args *a, const struct records *m,
			const struct records *p, const struct outcome *o)
{
	printf("validate: %s measured vs %s predicted, %s, %u node%s, path %s, trace %s\n",
	       m->backend, p->backend, a->topology, m->nodes, m->nodes == 1 ? "" : "s",
	       plan_path_name(a->opts.path), a->trace);
	printf("%4s %5s %-14s %10s %-10s %12s %12s %8s  %s\n", "iter", "index", "op",
	       "bytes", "path", "measured_us", "predicted_us", "error", "verdict");
	for (size_t i = 0; i < m->ncoll; i++) {
		const struct coll_record *c = &m->coll[i];
		double err = error_pct(c->time_us, p->coll[i].time_us);

		printf("%4u %5zu %-14s %10llu %-10s %12.1f %12.1f %+7.1f%%  %s",
		       c->iteration, c->entry, trace_op_name(c->op),
		       (unsigned long long)c->bytes, plan_path_used_name(c->path),
		       c->time_us, p->coll[i].time_us, err,
		       verdict_names[judge_coll(c, &p->coll[i], a->tolerance)]);
		if (c->data_errors)
			printf(" (%llu bytes wrong)", (unsigned long long)c->data_errors);
		printf("\n");
	}
	printf("\ncomm per iteration: measured %.1f us, predicted %.1f us (%+.1f%%)\n",
	       m->comm_time_us, p->comm_time_us, o->err);
	if (m->data_checked)
		printf("data: %llu bytes verified, %llu errors\n",
		       (unsigned long long)m->verified_bytes,
		       (unsigned long long)m->data_errors);
	else
		printf("data: not checked by %s\n", m->backend);
	printf("verdict: %s\n", o->advice);
}

static json_t *to_json(const struct validate_args *a, const struct records *m,
		       const struct records *p, const struct outcome *o)
{
	json_t *doc = json_object(), *colls = json_array();

	if (!doc || !colls) {
		json_decref(doc);
		json_decref(colls);
		return NULL;
	}
	json_object_set_new(doc, "measured_backend", json_string(m->backend));
	json_object_set_new(doc, "predicted_backend", json_string(p->backend));
	json_object_set_new(doc, "topology_file", json_file_name(a->topology));
	json_object_set_new(doc, "trace_file", json_file_name(a->trace));
	json_object_set_new(doc, "path", json_string(plan_path_name(a->opts.path)));
	json_object_set_new(doc, "nodes", json_integer(m->nodes));
	json_object_set_new(doc, "tolerance_pct", json_real(a->tolerance));
	json_object_set_new(doc, "measured_comm_time_us", json_real(m->comm_time_us));
	json_object_set_new(doc, "predicted_comm_time_us", json_real(p->comm_time_us));
	json_object_set_new(doc, "error_pct", json_real(o->err));
	json_object_set_new(doc, "verdict", json_string(verdict_names[o->verdict]));
	json_object_set_new(doc, "advice", json_string(o->advice));
	json_object_set_new(doc, "data_checked", json_boolean(m->data_checked));
	json_object_set_new(doc, "verified_bytes", json_integer((json_int_t)m->verified_bytes));
	json_object_set_new(doc, "data_errors", json_integer((json_int_t)m->data_errors));
	json_object_set_new(doc, "gpu_registration", m->gpu_registration ?
				 json_string(m->gpu_registration) : json_null());
	for (size_t i = 0; i < m->ncoll; i++) {
		const struct coll_record *c = &m->coll[i];
		double err = error_pct(c->time_us, p->coll[i].time_us);

		json_array_append_new(colls, json_pack(
			"{s:i, s:i, s:s, s:I, s:i, s:s, s:f, s:f, s:f, s:s, s:I}",
			"iteration", (int)c->iteration, "index", (int)c->entry,
			"op", trace_op_name(c->op), "bytes", (json_int_t)c->bytes,
			"ranks", (int)c->nranks, "path", plan_path_used_name(c->path),
			"measured_us", c->time_us, "predicted_us", p->coll[i].time_us,
			"error_pct", err,
			"verdict", verdict_names[judge_coll(c, &p->coll[i], a->tolerance)],
			"data_errors", (json_int_t)c->data_errors));
	}
	json_object_set_new(doc, "collectives", colls);
	return doc;
}

static int report(const struct validate_args *a, const struct records *m,
		  const struct records *p)
{
	struct output_file out;
	struct outcome o;
	struct diag d = { "" };
	int err;

	conclude(a, m, p, &o);
	if (a->json) {
		err = output_file_open(&out, a->json, &d);
		if (err)
			return cli_fail("validate", CLI_RUNNING, err, &d);
		err = report_json_write_doc(out.fp, to_json(a, m, p, &o));
		if (err) {
			output_file_abort(&out);
			return cli_fail("validate", CLI_RUNNING, err, &d);
		}
		err = output_file_commit(&out, &d);
		if (err)
			return cli_fail("validate", CLI_RUNNING, err, &d);
	}
	if (!a->json || strcmp(a->json, "-"))
		print_table(a, m, p, &o);
	/*
	 * Bytes that arrived wrong fail validate as they fail gdrlab run,
	 * after the report: the verdict said "data corrupted" but the exit
	 * status was 0, so that a script checking it took a NIC or
	 * registration that corrupts data for one that passed.
	 */
	if (m->data_checked && m->data_errors) {
		fprintf(stderr, "gdrlab validate: data corrupted on %s: %llu of %llu bytes checked arrived wrong, first in collective %ld\n",
			m->backend, (unsigned long long)m->data_errors,
			(unsigned long long)m->verified_bytes, records_first_corrupted(m));
		return EXIT_RUNTIME;
	}
	return 0;
}

int cmd_validate(int argc, char **argv)
{
	const struct backend_ops *measure, *predict;
	struct validate_args a;
	struct topology topo;
	struct trace trace;
	struct plan plan_m, plan_p;
	struct records rec_m, rec_p;
	struct progress progress;
	struct backend_hooks hooks = { progress_update, &progress };
	struct diag d = { "" };
	char why[256] = "";
	int rc, err;

	/* a measured nccl-tests file instead of a measuring backend */
	if (validate_nccl_tests_wanted(argc, argv))
		return validate_nccl_tests(argc, argv);
	rc = parse(argc, argv, &a);
	if (rc >= 0)
		return rc;
	rc = cli_check_outputs("validate", (const char *[]){ a.json }, 1);
	if (rc)
		return rc;
	measure = pick("--backend", a.measure, BACKEND_CAP_WALL_CLOCK, "measuring (wall-clock)");
	predict = pick("--predict", a.predict, BACKEND_CAP_SIM_CLOCK, "predicting (model)");
	if (!measure || !predict)
		return EXIT_USAGE;
	a.host_memory = !(measure->caps & BACKEND_CAP_GPU_MEMORY);
	/* emu and real run gdrlab's own ring, not NCCL's algorithms: predict
	 * that ring (plan.h, ring_only). */
	if (!(measure->caps & BACKEND_CAP_ALGORITHMS))
		a.opts.ring_only = true;
	err = topology_load(a.topology, &topo, &d);
	if (!err)
		err = trace_load(a.trace, &trace, &d);
	if (err)
		return cli_fail("validate", CLI_LOADING, err, &d);
	err = backend_probe(measure, why, sizeof(why));
	if (err) {
		fprintf(stderr, "gdrlab validate: backend %s cannot run here: %s\n",
			measure->name, why[0] ? why : strerror(-err));
		rc = EXIT_RUNTIME;
		goto out_trace;
	}
	/* the prediction first: it is quick, and finds a bad plan early */
	err = backend_execute(predict, &topo, &trace, &a.opts, NULL, &plan_p, &rec_p, &d);
	if (err) {
		rc = cli_fail("validate", CLI_RUNNING, err, &d);
		goto out_trace;
	}
	progress_init(&progress, "validate", a.quiet);
	err = backend_execute(measure, &topo, &trace, &a.opts, &hooks, &plan_m, &rec_m, &d);
	progress_done(&progress);
	if (err) {
		rc = cli_fail("validate", CLI_RUNNING, err, &d);
		goto out_predicted;
	}
	if (rec_m.ncoll != rec_p.ncoll) {
		fprintf(stderr, "gdrlab validate: %s ran %zu collectives, %s %zu\n",
			measure->name, rec_m.ncoll, predict->name, rec_p.ncoll);
		rc = EXIT_RUNTIME;
	} else {
		rc = report(&a, &rec_m, &rec_p);
	}
	records_destroy(&rec_m);
	plan_destroy(&plan_m);
out_predicted:
	records_destroy(&rec_p);
	plan_destroy(&plan_p);
out_trace:
	trace_destroy(&trace);
	return rc;
}
