/* SPDX-License-Identifier: MIT */
/*
 * gdrlab run / gdrlab compare: replay a trace on a topology through one
 * backend, on one path (run) or on all three (compare).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "cli.h"
#include "output_file.h"
#include "report.h"
#include "trace_jobs.h"
#include "units.h"

#define RUN_MAX_JOBS 16

struct run_args {
	const char *topology, *trace, *backend;
	const char *json, *csv, *timeline;
	struct plan_options opts;
	bool path_given, quiet;
	/* --job FILE@FIRST:NODES: several jobs on one cluster (run only) */
	const char *jobs[RUN_MAX_JOBS];
	unsigned njobs;
	struct cli_sets sets; /* --set PATH=VALUE */
};

static const char run_usage[] =
	"usage: gdrlab %s --topology FILE --trace FILE [options]\n"
	"\n"
	"%s\n"
	"\n"
	"  -t, --topology FILE     node and cluster description (YAML), or a shipped\n"
	"                          one by name (h100-pcie5-400g: configs/NAME.yaml)\n"
	"  -T, --trace FILE        gradient-exchange trace (JSON Lines), or a shipped\n"
	"                          one by name (resnet50-ddp: traces/NAME.jsonl)\n"
	"%s"
	"  -n, --nodes N           number of nodes (default: the topology's)\n"
	"%s"
	"  -b, --backend NAME      analytic (default); see 'gdrlab backends'\n"
	"%s"
	"  -g, --gdr-level LEVEL   farthest GPU-NIC distance where GPUDirect RDMA is\n"
	"                          still used: pix, pxb, p2c (default, as NCCL 2.27+;\n"
	"                          pxb with an --nccl before 2.27), phb, sys, or\n"
	"                          NCCL's old numbers: 1 pix, 2 pxb, 3 phb, 4+ sys\n"
	"%s"
	"      --chunk SIZE        emu and real's staging bounce buffer (e.g. 1MiB);\n"
	"                          the timing backends copy NCCL's slices\n"
	"      --buffers N         staged-memcpy: bounce buffers per side\n"
	"      --json FILE|-       write the results as JSON ('-': stdout, no table)\n"
	"      --csv FILE|-        write one CSV row per collective\n"
	"%s"
	"      --devices LIST      emu: RDMA devices, node i on device i mod count\n"
	"                          (e.g. rxe0,rxe1; default $GDRLAB_EMU_DEVICES, else all)\n"
	"%s"
	"  -q, --quiet             no progress on stderr\n"
	"  -h, --help              this help\n"
	"\n"
	"Exit status: 0 ok, 1 runtime failure or data that arrived wrong (emu, real),\n"
	"2 bad input or usage.\n";

static void print_usage(FILE *out, bool compare)
{
	fprintf(out, run_usage, compare ? "compare" : "run",
		compare ? "Replay the trace over the direct (GPUDirect RDMA) path, NCCL's host\n"
			  "staging and MPI-style memcpy staging, and print them side by side with\n"
			  "the speedups of direct." :
			  "Replay the trace through one backend on one data path.",
		compare ? "" :
			  "      --job FILE@FIRST:NODES  instead of --trace, repeatable: a job's trace\n"
			  "                          on NODES nodes from node FIRST, or FILE@LIST on\n"
			  "                          a list of nodes and ranges (0-3,8-11); the jobs\n"
			  "                          run at once, sharing the fabric, each one's\n"
			  "                          slowdown from the others printed after the table\n",
		cli_set_usage,
		compare ? "" :
			  "  -p, --path PATH         auto (default): direct where the GDR level\n"
			  "                          allows it, NCCL's staging elsewhere; direct;\n"
			  "                          staged (NCCL's: GPU threads write pinned host\n"
			  "                          memory, the NIC reads it); staged-memcpy (MPI's:\n"
			  "                          cudaMemcpy through bounce buffers)\n",
		cli_nccl_usage,
		compare ? "" : "      --timeline FILE|-   write a Chrome/Perfetto trace (ui.perfetto.dev)\n",
		cli_ib_usage);
}

/* Returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, bool compare, struct run_args *a)
{
	static const struct option longopts[] = {
		{ "topology", required_argument, NULL, 't' },
		{ "trace", required_argument, NULL, 'T' },
		{ "nodes", required_argument, NULL, 'n' },
		{ "backend", required_argument, NULL, 'b' },
		{ "path", required_argument, NULL, 'p' },
		{ "gdr-level", required_argument, NULL, 'g' },
		{ "chunk", required_argument, NULL, 'C' },
		{ "buffers", required_argument, NULL, 'B' },
		{ "json", required_argument, NULL, 'j' },
		{ "csv", required_argument, NULL, 'c' },
		{ "timeline", required_argument, NULL, 'l' },
		{ "devices", required_argument, NULL, 'D' },
		{ "job", required_argument, NULL, 'J' },
		{ "set", required_argument, NULL, 'S' },
		CLI_NCCL_LONGOPTS
		CLI_IB_LONGOPTS
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = compare ? "compare" : "run";
	int c, rc;

	memset(a, 0, sizeof(*a));
	a->backend = "analytic";
	plan_options_default(&a->opts);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":t:T:n:b:p:g:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			if (cli_shipped_file(cmd, "--topology", optarg, CLI_SHIPPED_TOPOLOGY, &a->topology))
				return EXIT_USAGE;
			break;
		case 'T':
			if (cli_shipped_file(cmd, "--trace", optarg, CLI_SHIPPED_TRACE, &a->trace))
				return EXIT_USAGE;
			break;
		case 'b':
			a->backend = optarg;
			break;
		case 'p':
			if (compare)
				return cli_usage_error(cmd, "%s: compare runs the direct, staged and staged-memcpy paths; --path is for 'gdrlab run'", "--path");
			a->path_given = true;
			rc = cli_plan_option(cmd, c, optarg, argv, &a->opts);
			if (rc)
				return rc;
			break;
		case 'j':
			a->json = optarg;
			break;
		case 'c':
			a->csv = optarg;
			break;
		case 'l':
			if (compare)
				return cli_usage_error(cmd, "%s: is for 'gdrlab run'", "--timeline");
			a->timeline = optarg;
			break;
		case 'J':
			if (compare)
				return cli_usage_error(cmd, "%s: is for 'gdrlab run'", "--job");
			if (a->njobs >= RUN_MAX_JOBS)
				return cli_usage_error(cmd, "--job: at most %d jobs", RUN_MAX_JOBS);
			a->jobs[a->njobs++] = optarg;
			break;
		case 'S':
			if (cli_set_option(cmd, optarg, &a->sets))
				return EXIT_USAGE;
			break;
		case 'q':
			a->quiet = true;
			break;
		case 'h':
			print_usage(stdout, compare);
			return 0;
		default:
			rc = cli_plan_option(cmd, c, optarg, argv, &a->opts);
			if (rc)
				return rc;
		}
	}
	if (optind < argc)
		return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
	if (!a->topology)
		return cli_usage_error(cmd, "%s is required", "--topology");
	if (a->trace && a->njobs)
		return cli_usage_error(cmd, "--trace and --job exclude each other");
	if (!a->trace && !a->njobs)
		return cli_usage_error(cmd, "%s is required", "--trace");
	if (cli_stdout_twice(cmd, (const char *[]){ a->json, a->csv, a->timeline },
			     (const char *[]){ "--json", "--csv", "--timeline" }, 3))
		return EXIT_USAGE;
	return -1;
}

/* Bytes that arrived wrong fail the run, after its report is out: the
 * report (and --json's per-collective data_errors) is the evidence. */
static int data_status(const char *cmd, const struct records *r)
{
	long i = records_first_corrupted(r);
	const struct coll_record *c;

	if (i < 0)
		return 0;
	c = &r->coll[i];
	fprintf(stderr, "gdrlab %s: data corrupted on %s: %llu of %llu bytes checked arrived wrong, "
		"first in collective %ld (iteration %u, %s of %llu bytes, %s path)\n",
		cmd, r->backend, (unsigned long long)r->data_errors,
		(unsigned long long)r->verified_bytes, i, c->iteration,
		trace_op_name(c->op), (unsigned long long)c->bytes,
		plan_path_used_name(c->path));
	return EXIT_RUNTIME;
}

struct outputs {
	struct output_file json, csv, timeline;
};

static void outputs_abort(struct outputs *o)
{
	output_file_abort(&o->json);
	output_file_abort(&o->csv);
	output_file_abort(&o->timeline);
}

/* A writer failed with @err: every output aborted, and @d names the one
 * whose stream failed and why (a full disk, not "Input/output error"). */
static int outputs_fail(struct outputs *o, int err, struct diag *d)
{
	err = output_file_fail(&o->json, err, d);
	err = output_file_fail(&o->csv, err, d);
	return output_file_fail(&o->timeline, err, d);
}

/* Every requested output's folder, before the run. */
static int outputs_check(const char *cmd, const struct run_args *a)
{
	const char *paths[] = { a->json, a->csv, a->timeline };

	return cli_check_outputs(cmd, paths, 3);
}

/* Open every requested output before writing any, commit them together. */
static int outputs_open(struct outputs *o, const struct run_args *a,
			struct diag *d)
{
	int err = 0;

	memset(o, 0, sizeof(*o));
	if (a->json)
		err = output_file_open(&o->json, a->json, d);
	if (!err && a->csv)
		err = output_file_open(&o->csv, a->csv, d);
	if (!err && a->timeline)
		err = output_file_open(&o->timeline, a->timeline, d);
	if (err)
		outputs_abort(o);
	return err;
}

static int outputs_commit(struct outputs *o, struct diag *d)
{
	int err = 0;

	if (o->json.fp)
		err = output_file_commit(&o->json, d);
	if (!err && o->csv.fp)
		err = output_file_commit(&o->csv, d);
	if (!err && o->timeline.fp)
		err = output_file_commit(&o->timeline, d);
	outputs_abort(o);
	return err;
}

static bool stdout_taken(const struct run_args *a)
{
	return (a->json && !strcmp(a->json, "-")) || (a->csv && !strcmp(a->csv, "-")) ||
	       (a->timeline && !strcmp(a->timeline, "-"));
}

struct session {
	struct topology topo;
	struct trace trace;
	char job_where[RUN_MAX_JOBS][48]; /* a job's nodes, as the table shows them */
	char job_name[RUN_MAX_JOBS][19];  /* its trace's name, as the table shows it */
	const struct backend_ops *backend;
	struct progress progress;
};

/* A node number or count at *@s, digits only, moving *@s past it; false
 * where there is none or it is above TOPO_MAX_NODES (never wrapped, as
 * scanf's %u would wrap 4294967297 to 1). */
static bool node_number(const char **s, unsigned *v)
{
	const char *p = *s;

	*v = 0;
	if (*p < '0' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		*v = *v * 10 + (unsigned)(*p - '0');
		if (*v > TOPO_MAX_NODES)
			return false;
	}
	*s = p;
	return true;
}

/* The job's nodes from "FIRST:NODES" or a list of nodes and ranges
 * ("0-3,8-11", as Slurm writes node lists): their count, each once, in
 * @nodes (TOPO_MAX_NODES of room); 0 when @s is neither. */
static unsigned job_nodes(const char *s, unsigned *nodes)
{
	unsigned first, count, lo, hi, n = 0;
	bool seen[TOPO_MAX_NODES] = { false };
	const char *p = s;

	if (node_number(&p, &first) && *p == ':') {
		p++;
		if (!node_number(&p, &count) || *p || !count || first >= TOPO_MAX_NODES ||
		    count > TOPO_MAX_NODES - first)
			return 0;
		for (unsigned i = 0; i < count; i++)
			nodes[i] = first + i;
		return count;
	}
	for (;;) {
		if (!node_number(&s, &lo))
			return 0;
		hi = lo;
		if (*s == '-') {
			s++;
			if (!node_number(&s, &hi))
				return 0;
		}
		if (hi < lo || hi >= TOPO_MAX_NODES)
			return 0;
		for (unsigned v = lo; v <= hi; v++) {
			if (seen[v])
				return 0; /* a node twice */
			seen[v] = true;
			nodes[n++] = v;
		}
		if (!*s)
			return n;
		if (*s++ != ',')
			return 0;
	}
}

/* "FILE@NODES": the file, and the job's nodes (job_nodes). */
static int job_spec(const char *spec, char *file, size_t len, unsigned *nodes, unsigned *n,
		    struct diag *d)
{
	const char *at = strrchr(spec, '@');

	if (!at || (size_t)(at - spec) >= len || !(*n = job_nodes(at + 1, nodes)))
		return diag_set(d, -EINVAL, "--job: expected FILE@FIRST:NODES or FILE@LIST "
				"(nodes and ranges, each once: 0-3,8-11), got '%s'", spec);
	memcpy(file, spec, (size_t)(at - spec));
	file[at - spec] = '\0';
	return 0;
}

/* @file's name for the jobs table, into @out: its folder and .jsonl say
 * nothing (the spec's first 18 characters once showed traces/bert-large-
 * for two traces alike). */
static void job_name(const char *file, char *out, size_t len)
{
	const char *slash = strrchr(file, '/'), *name = slash ? slash + 1 : file;
	size_t n = strlen(name);

	if (n > 6 && !strcmp(name + n - 6, ".jsonl"))
		n -= 6;
	snprintf(out, len, "%.*s", (int)n, name);
}

/* A job's trace file, or a shipped one by that name (cli_shipped_file). */
static int job_trace_file(char *file, size_t len, struct diag *d)
{
	char shipped[sizeof(((struct trace *)0)->file)];
	int found = cli_shipped_lookup(file, CLI_SHIPPED_TRACE, shipped, sizeof(shipped));

	if (found == -ENOENT) {
		cli_shipped_error("--job", file, CLI_SHIPPED_TRACE, d->msg, sizeof(d->msg));
		return -ENOENT;
	}
	if (found > 0 && strlen(shipped) < len)
		strcpy(file, shipped);
	return 0;
}

/* Every --job's trace, merged into s->trace on its nodes (trace_jobs.h). */
static int load_jobs(struct session *s, struct run_args *a, struct diag *d)
{
	struct trace traces[RUN_MAX_JOBS];
	struct trace_job jobs[RUN_MAX_JOBS] = { { 0 } };
	unsigned *ranks[RUN_MAX_JOBS] = { NULL };
	unsigned *nodes = malloc(TOPO_MAX_NODES * sizeof(*nodes));
	unsigned gpn = s->topo.ngpus, end = 0, loaded = 0, n = 0;
	int err = nodes ? 0 : -ENOMEM;

	for (; loaded < a->njobs && !err; loaded++) {
		char file[sizeof(traces[0].file)];
		const char *where;

		err = job_spec(a->jobs[loaded], file, sizeof(file), nodes, &n, d);
		if (!err)
			job_name(file, s->job_name[loaded], sizeof(s->job_name[0]));
		for (unsigned i = 0; !err && a->opts.nodes && i < n; i++)
			if (nodes[i] >= a->opts.nodes)
				err = diag_set(d, -EINVAL,
					       "--job %s: node %u is beyond the %u nodes of --nodes "
					       "(0 to %u)", a->jobs[loaded], nodes[i], a->opts.nodes,
					       a->opts.nodes - 1);
		if (!err)
			err = job_trace_file(file, sizeof(file), d);
		if (!err && !(ranks[loaded] = malloc((size_t)n * gpn * sizeof(unsigned))))
			err = -ENOMEM;
		if (!err)
			err = trace_load(file, &traces[loaded], d);
		if (err)
			break;
		/* its rank r on node nodes[r / gpn]'s GPU r % gpn */
		for (unsigned i = 0; i < n * gpn; i++)
			ranks[loaded][i] = nodes[i / gpn] * gpn + i % gpn;
		jobs[loaded] = (struct trace_job){ &traces[loaded], n * gpn, ranks[loaded], 0 };
		for (unsigned i = 0; i < n; i++)
			end = nodes[i] + 1 > end ? nodes[i] + 1 : end;
		where = strrchr(a->jobs[loaded], '@') + 1;
		if (strchr(where, ':') && n > 1)
			snprintf(s->job_where[loaded], sizeof(s->job_where[0]), "%5u-%-5u", nodes[0],
				 nodes[n - 1]);
		else if (strchr(where, ':'))
			snprintf(s->job_where[loaded], sizeof(s->job_where[0]), "%5u      ", nodes[0]);
		else
			snprintf(s->job_where[loaded], sizeof(s->job_where[0]), "%-11s", where);
	}
	if (!err)
		err = trace_jobs_merge(jobs, a->njobs, &s->trace, d);
	while (loaded-- > 0)
		trace_destroy(&traces[loaded]);
	for (unsigned k = 0; k < a->njobs; k++)
		free(ranks[k]);
	free(nodes);
	if (err == -ENOMEM)
		diag_set(d, err, "out of memory");
	/* The cluster holds every job unless --nodes says otherwise. */
	if (!err && !a->opts.nodes && end > s->topo.nodes)
		a->opts.nodes = end;
	return err;
}

/* Each job's iteration, its communication together and alone, after the
 * table: an iteration's of its own, as the run's figures are. */
static void print_jobs(const struct session *s, const struct run_args *a,
		       const struct records *r)
{
	struct trace_jobs_time t[RUN_MAX_JOBS];

	trace_jobs_times(&s->trace, r, a->njobs, t);
	printf("\njobs on one cluster       nodes   iteration (us)   comm alone (us)   comm together (us)   slowdown\n");
	for (unsigned k = 0; k < a->njobs; k++)
		printf("  job%-2u %-18s %s %14.1f %17.1f %20.1f %9.2fx\n", k, s->job_name[k],
		       s->job_where[k], t[k].iteration_us, t[k].alone_us, t[k].together_us,
		       t[k].alone_us > 0 ? t[k].together_us / t[k].alone_us : 1);
}

/* The same in the JSON: "jobs", each its --job as given, its nodes as the
 * table shows them, its iteration, exposed communication and
 * communication alone and together (us, means over its iterations) and
 * the slowdown. */
static int jobs_json(json_t *doc, const struct session *s, const struct run_args *a,
		     const struct records *r)
{
	struct trace_jobs_time t[RUN_MAX_JOBS];
	json_t *jobs = json_array();
	int err = jobs ? 0 : -ENOMEM;

	trace_jobs_times(&s->trace, r, a->njobs, t);
	for (unsigned k = 0; k < a->njobs && !err; k++) {
		char where[sizeof(s->job_where[0])], *w = where, *end;

		snprintf(where, sizeof(where), "%s", s->job_where[k]);
		while (*w == ' ')
			w++;
		for (end = w + strlen(w); end > w && end[-1] == ' ';)
			*--end = '\0';
		if (json_array_append_new(jobs, json_pack("{s:s, s:s, s:s, s:i, s:f, s:f, s:f, s:f, s:f}",
							  "job", a->jobs[k], "trace", s->job_name[k],
							  "nodes", w, "iterations", (int)t[k].iterations,
							  "iteration_time_us", t[k].iteration_us,
							  "exposed_comm_us", t[k].exposed_us,
							  "comm_alone_us", t[k].alone_us,
							  "comm_together_us", t[k].together_us, "slowdown",
							  t[k].alone_us > 0 ? t[k].together_us / t[k].alone_us : 1.0)))
			err = -ENOMEM;
	}
	if (!err && json_object_set_new(doc, "jobs", jobs))
		err = -ENOMEM;
	else if (err)
		json_decref(jobs);
	return err;
}

static int session_load(struct session *s, const char *cmd,
			struct run_args *a)
{
	struct diag d = { "" };
	int err;

	memset(s, 0, sizeof(*s));
	s->backend = cli_find_backend(cmd, NULL, a->backend);
	if (!s->backend)
		return EXIT_USAGE;
	err = topology_load_with(a->topology, a->sets.v, a->sets.n, &s->topo, &d);
	if (!err && a->njobs)
		err = load_jobs(s, a, &d);
	else if (!err)
		err = trace_load(a->trace, &s->trace, &d);
	if (err)
		return cli_fail(cmd, CLI_LOADING, err, &d);
	progress_init(&s->progress, cmd, a->quiet);
	return 0;
}

/*
 * A trace whose groups name fewer ranks than the cluster has, with calls
 * of no group: those run on every rank of the cluster, not on the job's
 * (an imported 4-rank job replayed on 2 x 8 GPUs), so the replay is of
 * another job. Said once on stderr, not refused: a trace of world calls
 * and sub-groups can mean the cluster (gen llm's, a plan's).
 */
static void note_job_ranks(const struct session *s, const struct run_args *a, const char *cmd,
			   const struct plan *p)
{
	int most = -1;
	size_t world = 0;
	unsigned used;

	if (a->njobs)
		return; /* each job's trace on nodes of its own */
	for (size_t i = 0; i < s->trace.nentries; i++) {
		const struct trace_entry *e = &s->trace.entries[i];

		world += !e->ngroup;
		for (unsigned g = 0; g < e->ngroup; g++)
			most = (int)e->group[g] > most ? (int)e->group[g] : most;
	}
	if (most < 0)
		return;
	if (world && (unsigned)most + 1 < p->nranks)
		fprintf(stderr,
			"gdrlab %s: note: the trace's groups name ranks 0 to %d, and its %zu call%s of no group run%s on all %u ranks of this cluster: a job of %d ranks replayed as a larger one (give --nodes for its own)\n",
			cmd, most, world, world == 1 ? "" : "s", world == 1 ? "s" : "", p->nranks,
			most + 1);
	else if (!world && (used = trace_ranks_used(&s->trace)) < p->nranks)
		fprintf(stderr,
			"gdrlab %s: note: the trace's calls take %u ranks (of 0 to %d): %u of this cluster's %u GPUs take no part (give --nodes for the job's own)\n",
			cmd, used, most, p->nranks - used, p->nranks);
}

static int execute(struct session *s, const struct plan_options *opts,
		   struct plan *plan, struct records *rec, struct diag *d)
{
	struct backend_hooks hooks = { progress_update, &s->progress };
	int err;

	err = backend_execute(s->backend, &s->topo, &s->trace, opts, &hooks,
			      plan, rec, d);
	progress_done(&s->progress);
	return err;
}

int cmd_run(int argc, char **argv)
{
	struct run_args a;
	struct session s;
	struct plan plan;
	struct records rec;
	struct outputs out;
	struct report_context ctx;
	struct diag d = { "" };
	int rc, err;

	rc = parse_args(argc, argv, false, &a);
	if (rc >= 0)
		return rc;
	rc = outputs_check("run", &a);
	if (rc)
		return rc;
	rc = session_load(&s, "run", &a);
	if (rc)
		goto out_trace;
	err = execute(&s, &a.opts, &plan, &rec, &d);
	if (err) {
		rc = cli_fail("run", CLI_RUNNING, err, &d);
		goto out_trace;
	}
	note_job_ranks(&s, &a, "run", &plan);
	cli_note_unread("run", &a.opts, &a.sets, a.opts.path,
			!(s.backend->caps & BACKEND_CAP_ALGORITHMS));
	ctx = (struct report_context){ &plan, a.topology, a.trace ? a.trace : "jobs" };
	err = outputs_open(&out, &a, &d);
	if (err) {
		rc = cli_fail("run", CLI_RUNNING, err, &d);
		goto out_records;
	}
	if (out.json.fp) {
		struct report_json j;

		err = report_json(&ctx, &rec, &j);
		if (!err && a.njobs)
			err = jobs_json(j.doc, &s, &a, &rec);
		err = report_json_write(out.json.fp, &j, err ? err : cli_sets_json(j.doc, &a.sets));
	}
	if (!err && out.csv.fp)
		err = report_csv(out.csv.fp, &rec, true);
	if (!err && out.timeline.fp)
		err = report_timeline(out.timeline.fp, &rec);
	if (err) {
		err = outputs_fail(&out, err, &d);
		rc = cli_fail("run", CLI_RUNNING, err, &d);
		goto out_records;
	}
	err = outputs_commit(&out, &d);
	if (err) {
		rc = cli_fail("run", CLI_RUNNING, err, &d);
		goto out_records;
	}
	if (!stdout_taken(&a)) {
		/* the values the topology file was run with, first */
		cli_sets_print(stdout, "", &a.sets);
		report_table(stdout, &ctx, &rec);
	}
	if (!stdout_taken(&a) && a.njobs)
		print_jobs(&s, &a, &rec);
	rc = data_status("run", &rec);
out_records:
	records_destroy(&rec);
	plan_destroy(&plan);
out_trace:
	trace_destroy(&s.trace);
	return rc;
}

int cmd_compare(int argc, char **argv)
{
	struct run_args a;
	struct session s;
	struct plan plans[REPORT_PATHS];
	struct records recs[REPORT_PATHS];
	const struct records *rp[REPORT_PATHS];
	struct outputs out;
	struct report_context ctx;
	struct diag d = { "" };
	int rc = 0, err = 0, done = 0;

	rc = parse_args(argc, argv, true, &a);
	if (rc >= 0)
		return rc;
	rc = outputs_check("compare", &a);
	if (rc)
		return rc;
	rc = session_load(&s, "compare", &a);
	if (rc)
		goto out_trace;
	/* The same trace on each path: direct, NCCL's staging, memcpy's. */
	for (; done < REPORT_PATHS; done++) {
		struct plan_options opts = a.opts;

		opts.path = report_path_plan[done];
		err = execute(&s, &opts, &plans[done], &recs[done], &d);
		if (err) {
			rc = cli_fail("compare", CLI_RUNNING, err, &d);
			goto out_runs;
		}
		rp[done] = &recs[done];
	}
	note_job_ranks(&s, &a, "compare", &plans[REPORT_DIRECT]);
	/* compare runs staged-memcpy too: what that path reads is read */
	cli_note_unread("compare", &a.opts, &a.sets, PLAN_PATH_STAGED_MEMCPY,
			!(s.backend->caps & BACKEND_CAP_ALGORITHMS));
	ctx = (struct report_context){ &plans[REPORT_DIRECT], a.topology, a.trace };
	err = outputs_open(&out, &a, &d);
	if (err) {
		rc = cli_fail("compare", CLI_RUNNING, err, &d);
		goto out_runs;
	}
	if (out.json.fp) {
		struct report_json j;

		err = report_compare_json(&ctx, rp, &j);
		err = report_json_write(out.json.fp, &j, err ? err : cli_sets_json(j.doc, &a.sets));
	}
	/* CSV rows: staged, then direct (as before there were three paths),
	 * then staged-memcpy. */
	for (int k = 0; k < REPORT_PATHS && !err && out.csv.fp; k++) {
		static const enum report_path csv_order[REPORT_PATHS] = {
			REPORT_STAGED, REPORT_DIRECT, REPORT_STAGED_MEMCPY
		};

		err = report_csv(out.csv.fp, rp[csv_order[k]], k == 0);
	}
	if (!err)
		err = outputs_commit(&out, &d);
	else
		err = outputs_fail(&out, err, &d);
	if (err) {
		rc = cli_fail("compare", CLI_RUNNING, err, &d);
		goto out_runs;
	}
	if (!stdout_taken(&a)) {
		cli_sets_print(stdout, "", &a.sets);
		report_compare_table(stdout, &ctx, rp);
	}
	for (int k = 0; k < REPORT_PATHS && !rc; k++)
		rc = data_status("compare", rp[k]);
out_runs:
	while (done-- > 0) {
		records_destroy(&recs[done]);
		plan_destroy(&plans[done]);
	}
out_trace:
	trace_destroy(&s.trace);
	return rc;
}
