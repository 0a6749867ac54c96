/* SPDX-License-Identifier: MIT */
/*
 * The gdrlab command as scripts use it: exit status, one-line errors, no
 * output file left behind on failure, and the JSON keys of the contract.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* |got - want| <= rel * |want| */
#define assert_rel(got, want, rel)                                            \
	cr_assert(fabs((double)(got) - (double)(want)) <= (rel) * fabs((double)(want)), \
		  "%s = %.12g, expected %.12g", #got, (double)(got), (double)(want))

#define GDRLAB GDRLAB_BINARY_DIR "/cli/gdrlab"
#define SRC GDRLAB_SOURCE_DIR
#define A100 SRC "/configs/a100-pcie4-200g.yaml"
#define RESNET SRC "/traces/resnet50-ddp.jsonl"

struct result {
	int status;
	char out[1 << 20];
	char err[1 << 14];
};

static void slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, len - 1, f);
		fclose(f);
	}
	buf[n] = 0;
}

/* Run "gdrlab ARGS" through the shell; capture stdout, stderr, status. */
static struct result *gdrlab(const char *args)
{
	static struct result r;
	char dir[] = "/tmp/gdrlab-cli-XXXXXX", cmd[4096], o[512], e[512];

	cr_assert_not_null(mkdtemp(dir));
	snprintf(o, sizeof(o), "%s/out", dir);
	snprintf(e, sizeof(e), "%s/err", dir);
	snprintf(cmd, sizeof(cmd), "%s %s >%s 2>%s </dev/null", GDRLAB, args, o, e);
	r.status = system(cmd);
	r.status = WIFEXITED(r.status) ? WEXITSTATUS(r.status) : -1;
	slurp(o, r.out, sizeof(r.out));
	slurp(e, r.err, sizeof(r.err));
	unlink(o);
	unlink(e);
	rmdir(dir);
	return &r;
}

static unsigned count_lines(const char *s)
{
	unsigned n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

Test(cli, help_is_true_and_exits_zero)
{
	static const char *const cmds[] = { "--help", "run --help", "compare --help",
					    "gen --help", "gen ddp --help", "backends --help" };

	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		struct result *r = gdrlab(cmds[i]);

		cr_assert_eq(r->status, 0, "gdrlab %s: exit %d", cmds[i], r->status);
		cr_assert_not_null(strstr(r->out, "usage: gdrlab"), "gdrlab %s", cmds[i]);
	}
	/* Every option the run help names is accepted. */
	cr_assert_not_null(strstr(gdrlab("run --help")->out, "--gdr-level"));
}

Test(cli, usage_errors_exit_2_with_one_line)
{
	static const char *const cmds[] = {
		"frobnicate", "run --bogus", "run --topology " A100,
		"run --topology " A100 " --trace " RESNET " --nodes 0",
		"run --topology " A100 " --trace " RESNET " --path sideways",
		"run --topology " A100 " --trace " RESNET " --gdr-level far",
		"run --topology " A100 " --trace " RESNET " --backend nope",
		"compare --topology " A100 " --trace " RESNET " --path direct",
		"run --topology /nonexistent.yaml --trace " RESNET,
		"run --topology " A100 " --trace " RESNET " --ib-sl 16",
		"run --topology " A100 " --trace " RESNET " --ib-tc -1",
		"run --topology " A100 " --trace " RESNET " --ib-port 0",
		"compare --topology " A100 " --trace " RESNET " --ib-gid-index x",
	};

	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		struct result *r = gdrlab(cmds[i]);

		cr_assert_eq(r->status, 2, "gdrlab %s: exit %d", cmds[i], r->status);
		cr_assert_eq(count_lines(r->err), 1, "gdrlab %s: stderr:\n%s", cmds[i], r->err);
		cr_assert_str_empty(r->out, "gdrlab %s", cmds[i]);
	}
}

/* A backend left out of this build is named with the reason, not as
 * "unknown": take one that `gdrlab backends` lists as absent. */
Test(cli, absent_backend_says_why)
{
	char name[32] = "", args[1024];
	const char *line = gdrlab("backends")->out;
	struct result *r;

	for (; *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : "") {
		char state[32];

		if (sscanf(line, "%31s %31s", name, state) == 2 && !strcmp(state, "absent"))
			break;
		name[0] = 0;
	}
	if (!name[0]) {
		cr_log_info("skipped: every backend is built in");
		cr_skip_test("every backend is built in");
	}
	snprintf(args, sizeof(args), "run --topology %s --trace %s --backend %s",
		 A100, RESNET, name);
	r = gdrlab(args);
	cr_assert_eq(r->status, 2);
	cr_assert_not_null(strstr(r->err, "not in this build"), "%s", r->err);
}

/* A bad input names file and line, exits 2, and leaves no output file. */
Test(cli, bad_input_leaves_no_output_file)
{
	char dir[] = "/tmp/gdrlab-out-XXXXXX", args[2048], json[600], csv[600];
	struct result *r;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(json, sizeof(json), "%s/r.json", dir);
	snprintf(csv, sizeof(csv), "%s/r.csv", dir);
	snprintf(args, sizeof(args),
		 "run --topology %s/tests/data/bad-topology/unknown-switch.yaml "
		 "--trace %s --json %s --csv %s", SRC, RESNET, json, csv);
	r = gdrlab(args);
	cr_assert_eq(r->status, 2, "%s", r->err);
	cr_assert_eq(count_lines(r->err), 1, "%s", r->err);
	cr_assert_not_null(strstr(r->err, "unknown-switch.yaml:"), "%s", r->err);
	cr_assert(!exists(json) && !exists(csv));
	cr_assert_eq(rmdir(dir), 0, "temporary files left in %s", dir);
}

static json_t *parse(const char *text)
{
	json_error_t e;
	json_t *j = json_loads(text, 0, &e);

	cr_assert_not_null(j, "not JSON: %s at %d:%d", e.text, e.line, e.column);
	return j;
}

static void check_run_json(json_t *run, const char *path)
{
	static const char *const numbers[] = { "iteration_time_us", "comm_time_us",
					       "exposed_comm_us" };
	static const char *const coll_keys[] = { "op", "bytes", "ranks", "time_us",
						 "algbw_gbps", "busbw_gbps", "path", "algo",
						 "proto", "channels", "nccl_estimate_us" };
	json_t *colls = json_object_get(run, "collectives");

	cr_assert_str_eq(json_string_value(json_object_get(run, "backend")), "analytic");
	cr_assert_str_eq(json_string_value(json_object_get(run, "path")), path);
	cr_assert_eq(json_integer_value(json_object_get(run, "nodes")), 2);
	cr_assert_eq(json_integer_value(json_object_get(run, "gpus_per_node")), 8);
	for (size_t i = 0; i < 3; i++)
		cr_assert(json_is_number(json_object_get(run, numbers[i])), "%s", numbers[i]);
	cr_assert(json_is_array(colls) && json_array_size(colls) > 0);
	for (size_t i = 0; i < json_array_size(colls); i++) {
		json_t *c = json_array_get(colls, i), *fb = json_object_get(c, "fallback");

		for (size_t k = 0; k < sizeof(coll_keys) / sizeof(coll_keys[0]); k++)
			cr_assert_not_null(json_object_get(c, coll_keys[k]), "%s", coll_keys[k]);
		cr_assert(json_is_null(fb) || json_is_string(fb));
		/* what NCCL's tuner chose, in NCCL_ALGO / NCCL_PROTO spelling */
		cr_assert(strstr("Tree Ring CollnetDirect CollnetChain NVLS NVLSTree PAT",
				 json_string_value(json_object_get(c, "algo"))));
		cr_assert(strstr("LL LL128 Simple", json_string_value(json_object_get(c, "proto"))));
		cr_assert_geq(json_integer_value(json_object_get(c, "channels")), 1);
		/* busbw = algbw * 2(n-1)/n for all-reduce (nccl-tests) */
		cr_assert_float_eq(json_number_value(json_object_get(c, "busbw_gbps")),
				   json_number_value(json_object_get(c, "algbw_gbps")) * 2 * 15 / 16,
				   1e-6);
	}
}

Test(cli, run_json_contract)
{
	struct result *r = gdrlab("run --topology " A100 " --trace " RESNET " --path staged --json -");
	json_t *j;

	cr_assert_eq(r->status, 0, "%s", r->err);
	j = parse(r->out);
	check_run_json(j, "staged");
	json_decref(j);
}

Test(cli, compare_json_contract)
{
	struct result *r = gdrlab("compare --topology " A100 " --trace " RESNET " --json -");
	json_t *j, *s, *d;

	cr_assert_eq(r->status, 0, "%s", r->err);
	j = parse(r->out);
	s = json_object_get(j, "staged");
	d = json_object_get(j, "direct");
	check_run_json(s, "staged");
	check_run_json(d, "direct");
	check_run_json(json_object_get(j, "staged_memcpy"), "staged-memcpy");
	/* written with 10 significant digits */
	assert_rel(json_number_value(json_object_get(j, "speedup")),
		   json_number_value(json_object_get(s, "iteration_time_us")) /
			   json_number_value(json_object_get(d, "iteration_time_us")),
		   1e-8);
	for (int k = 0; k < 2; k++) {
		const char *vs = k ? "direct_vs_staged_memcpy" : "direct_vs_staged";
		json_t *slow = json_object_get(j, k ? "staged_memcpy" : "staged");
		json_t *sp = json_object_get(json_object_get(j, "speedups"), vs);

		cr_assert(json_is_object(sp), "speedups.%s", vs);
		assert_rel(json_number_value(json_object_get(sp, "communication")),
			   json_number_value(json_object_get(slow, "comm_time_us")) /
				   json_number_value(json_object_get(d, "comm_time_us")),
			   1e-8);
		assert_rel(json_number_value(json_object_get(sp, "iteration")),
			   json_number_value(json_object_get(slow, "iteration_time_us")) /
				   json_number_value(json_object_get(d, "iteration_time_us")),
			   1e-8);
	}
	json_decref(j);
}

/* The duration of the timeline's first compute event, -1 when none. */
static double compute_dur(const json_t *j)
{
	const json_t *e;
	size_t i;

	json_array_foreach(json_object_get(j, "traceEvents"), i, e) {
		const char *cat = json_string_value(json_object_get(e, "cat"));

		if (cat && !strcmp(cat, "compute"))
			return json_number_value(json_object_get(e, "dur"));
	}
	return -1;
}

Test(cli, csv_and_timeline_files)
{
	char dir[] = "/tmp/gdrlab-out-XXXXXX", args[2048], csv[600], tl[600];
	static char buf[1 << 20];
	struct result *r;
	json_t *j;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(csv, sizeof(csv), "%s/r.csv", dir);
	snprintf(tl, sizeof(tl), "%s/t.json", dir);
	snprintf(args, sizeof(args), "run --topology %s --trace %s --csv %s --timeline %s",
		 A100, RESNET, csv, tl);
	r = gdrlab(args);
	cr_assert_eq(r->status, 0, "%s", r->err);
	slurp(csv, buf, sizeof(buf));
	/* a header and one row per collective of the trace (10) */
	cr_assert_eq(count_lines(buf), 11, "%s", buf);
	cr_assert(!strncmp(buf, "backend,iteration,index,op,bytes", 32));
	slurp(tl, buf, sizeof(buf));
	j = parse(buf);
	cr_assert(json_is_array(json_object_get(j, "traceEvents")));
	/* ts and dur in microseconds (the trace's 103644 us of compute),
	 * "ns" only the viewer's display */
	cr_expect_str_eq(json_string_value(json_object_get(j, "displayTimeUnit")), "ns");
	cr_expect_eq(compute_dur(j), 103644);
	json_decref(j);
	unlink(csv);
	unlink(tl);
	rmdir(dir);
}

/*
 * Two communicators, one of them on two streams: the timeline gives each
 * (communicator, stream) a track of its own, with its stage tracks, and
 * every collective lands on its own queue's; CSV and JSON name both.
 */
Test(cli, communicators_get_tracks_of_their_own)
{
	char dir[] = "/tmp/gdrlab-comm-XXXXXX", args[2048], trace[600], tl[600], csv[600];
	static const char lines[] =
		"{\"iteration\":0,\"op\":\"allreduce\",\"bytes\":1048576,\"comm\":\"tp\",\"group\":[0,1,2,3]}\n"
		"{\"iteration\":0,\"op\":\"allreduce\",\"bytes\":1048576,\"comm\":\"tp\",\"stream\":2}\n"
		"{\"iteration\":0,\"op\":\"allreduce\",\"bytes\":1048576,\"comm\":\"dp\",\"group\":[0,8]}\n";
	static char buf[1 << 20];
	const char *want_tracks[] = { "tp", "tp stream 2", "dp" };
	int want_tid[3] = { -1, -1, -1 };
	struct result *r;
	json_t *j, *ev, *e;
	size_t i;
	FILE *f;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(trace, sizeof(trace), "%s/t.jsonl", dir);
	snprintf(tl, sizeof(tl), "%s/tl.json", dir);
	snprintf(csv, sizeof(csv), "%s/r.csv", dir);
	f = fopen(trace, "w");
	cr_assert_not_null(f);
	fputs(lines, f);
	fclose(f);
	snprintf(args, sizeof(args), "run --topology %s --trace %s -n 2 --timeline %s --csv %s",
		 A100, trace, tl, csv);
	r = gdrlab(args);
	cr_assert_eq(r->status, 0, "%s", r->err);
	cr_expect_not_null(strstr(r->out, "communicators        2 (tp, dp) on 3 streams"), "%s", r->out);
	slurp(tl, buf, sizeof(buf));
	j = parse(buf);
	ev = json_object_get(j, "traceEvents");
	json_array_foreach(ev, i, e) {
		const char *name = json_string_value(json_object_get(e, "name"));
		const char *track = json_string_value(json_object_get(json_object_get(e, "args"), "name"));

		for (int k = 0; k < 3 && name && !strcmp(name, "thread_name"); k++)
			if (track && !strcmp(track, want_tracks[k]))
				want_tid[k] = (int)json_integer_value(json_object_get(e, "tid"));
	}
	for (int k = 0; k < 3; k++)
		cr_expect_geq(want_tid[k], 0, "no track named '%s'", want_tracks[k]);
	cr_expect_neq(want_tid[0], want_tid[1]);
	cr_expect_neq(want_tid[1], want_tid[2]);
	/* the collectives, in trace order, each on its own queue's track */
	{
		int k = 0;

		json_array_foreach(ev, i, e)
			if (!strcmp(json_string_value(json_object_get(e, "cat")) ?
					    json_string_value(json_object_get(e, "cat")) : "", "collective")) {
				cr_assert_lt(k, 3);
				cr_expect_eq(json_integer_value(json_object_get(e, "tid")), want_tid[k],
					     "collective %d", k);
				k++;
			}
		cr_expect_eq(k, 3);
	}
	json_decref(j);
	slurp(csv, buf, sizeof(buf));
	cr_expect_not_null(strstr(buf, ",comm,stream,alone_us,fabric_link,fabric_flows,fabric_share,src,dst,batch\n"),
			   "%s", buf);
	cr_expect_not_null(strstr(buf, ",tp,2,"), "%s", buf);
	cr_expect_not_null(strstr(buf, ",dp,0,"), "%s", buf);
	unlink(trace);
	unlink(tl);
	unlink(csv);
	rmdir(dir);
}

/* No arguments: the default scenario, exactly as stored. */
Test(cli, no_arguments_runs_default_scenario)
{
	static char want[1 << 16];
	struct result *r = gdrlab("");

	cr_assert_eq(r->status, 0, "%s", r->err);
	slurp(SRC "/scenarios/default/expected.txt", want, sizeof(want));
	cr_assert_str_eq(r->out, want);
	cr_assert_not_null(strstr(r->out, "staged"));
	cr_assert_not_null(strstr(r->out, "direct"));
}

Test(cli, backends_lists_analytic_available)
{
	struct result *r = gdrlab("backends");

	cr_assert_eq(r->status, 0);
	cr_assert_not_null(strstr(r->out, "analytic  available"), "%s", r->out);
}
