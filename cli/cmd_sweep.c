/* SPDX-License-Identifier: MIT */
/*
 * gdrlab sweep: many runs from one file, in parallel processes.
 *
 * The sweep file is JSON Lines, one point a line (docs/sweep-format.md):
 *   {"name": "a100-8", "topology": "../configs/a100-pcie4-200g.yaml",
 *    "trace": "../traces/llama2-7b-ddp.jsonl", "nodes": 8,
 *    "path": "direct", "backend": "model", "gdr_level": "pxb",
 *    "nccl": "2.8.4"}
 * Relative file names are taken from the sweep file's folder. Each point
 * runs in a forked process, at most -j at a time (sweep_run.c); under
 * mpirun or srun each rank runs its share (sweep_spread.c). Rows are
 * printed in file order. A point that fails gives a row with its error;
 * the exit status is then 1.
 *
 * This file: reading the sweep file, printing the rows, the command.
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "cli.h"
#include "cmd_sweep.h"
#include "input_file.h"
#include "json_util.h"
#include "launch.h"
#include "report.h"
#include "sweep.h"

static int sweep_error(struct diag *d, const char *fmt, const char *a,
		       unsigned line, const char *b)
{
	diag_set(d, -EINVAL, fmt, a, line, b);
	return EXIT_USAGE;
}

/* "file:line: key: expected ALLOWED, got 'VALUE'" */
static int sweep_bad_value(struct diag *d, const char *file, unsigned line,
			   const char *key, const char *allowed, const char *value)
{
	char shown[64];

	diag_set(d, -EINVAL, "%s:%u: %s: expected %s, got '%s'", file, line, key, allowed,
		 diag_printable(value, shown, sizeof(shown)));
	return EXIT_USAGE;
}

/* @out = @dir/@name unless @name is absolute. */
static int join_path(char *out, size_t len, const char *dir, const char *name)
{
	int n = name[0] == '/' ? snprintf(out, len, "%s", name) :
				 snprintf(out, len, "%s/%s", dir, name);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* A point's file: beside the sweep file, else a shipped one by that
 * name (cli_shipped_file: "topology": "h100-pcie5-400g"); a name that is
 * neither stays beside the sweep file, for the loader to say so. */
static int point_file(char *out, size_t len, const char *dir, const char *name,
		      enum cli_shipped kind)
{
	char shipped[sizeof(((struct point *)0)->topology)];
	int err = join_path(out, len, dir, name);

	if (!err && access(out, F_OK) &&
	    cli_shipped_lookup(name, kind, shipped, sizeof(shipped)) > 0 && strlen(shipped) < len)
		strcpy(out, shipped);
	return err;
}

static int point_parse(json_t *o, const char *file, unsigned line,
		       const char *dir, struct point *pt, struct diag *d)
{
	const char *key;
	json_t *v;

	memset(pt, 0, sizeof(*pt));
	plan_options_default(&pt->opts);
	strcpy(pt->backend, "analytic");
	pt->line = line;
	snprintf(pt->name, sizeof(pt->name), "line%u", line);
	if (!json_is_object(o))
		return sweep_error(d, "%s:%u: json: expected an object, got %s", file, line,
				   json_kind(o));
	json_object_foreach(o, key, v) {
		static const char *const keys[] = { "name", "topology", "trace", "nodes", "path",
						    "backend", "gdr_level", "nccl" };
		const char *s = json_string_value(v);
		size_t k = 0;
		int bad = 0;

		/* an unknown key is that, whatever its value */
		while (k < sizeof(keys) / sizeof(keys[0]) && strcmp(key, keys[k]))
			k++;
		if (k == sizeof(keys) / sizeof(keys[0])) {
			char shown[64];

			return sweep_error(d, "%s:%u: %s: unknown key (name, topology, trace, nodes, path, backend, gdr_level, nccl)",
					   file, line, diag_printable(key, shown, sizeof(shown)));
		}
		if (!strcmp(key, "nodes")) {
			json_int_t n = json_integer_value(v);

			if (!json_is_integer(v) || n < 1 || n > TOPO_MAX_NODES)
				return sweep_error(d, "%s:%u: nodes: expected a whole number from 1 to 65536%s",
						   file, line, "");
			pt->opts.nodes = (unsigned)n;
			continue;
		}
		if (!s)
			return sweep_error(d, "%s:%u: %s: expected a string", file, line, key);
		if (!strcmp(key, "name")) {
			/* (struct point's name[64]) not cut to fit: two names
			 * alike in their first 63 bytes would label two rows
			 * alike, and a cut inside a character is no UTF-8, which
			 * left the point out of --json (exit 0) */
			if (strlen(s) >= sizeof(pt->name))
				return sweep_error(d, "%s:%u: name: longer than %s bytes", file,
						   line, "63");
			snprintf(pt->name, sizeof(pt->name), "%s", s);
		} else if (!strcmp(key, "topology"))
			bad = point_file(pt->topology, sizeof(pt->topology), dir, s,
					 CLI_SHIPPED_TOPOLOGY);
		else if (!strcmp(key, "trace"))
			bad = point_file(pt->trace, sizeof(pt->trace), dir, s, CLI_SHIPPED_TRACE);
		else if (!strcmp(key, "backend")) {
			char why[256], shown[DIAG_MSG_MAX];

			/* as a plan's backend axis: known before anything runs
			 * (@why quotes the name as given) */
			if (!backend_lookup(s, why, sizeof(why)))
				return sweep_error(d, "%s:%u: backend: %s", file, line,
						   diag_printable(why, shown, sizeof(shown)));
			snprintf(pt->backend, sizeof(pt->backend), "%s", s);
		} else if (!strcmp(key, "path")) {
			if (plan_path_parse(s, &pt->opts.path))
				return sweep_bad_value(d, file, line, key,
						       "auto, direct, staged or staged-memcpy", s);
		} else if (!strcmp(key, "gdr_level")) {
			char why[160], shown[64];

			if (sweep_point_gdr_level(pt, s, why, sizeof(why))) {
				diag_set(d, -EINVAL, "%s:%u: gdr_level: %s, got '%s'", file, line, why,
					 diag_printable(s, shown, sizeof(shown)));
				return EXIT_USAGE;
			}
		} else if (!strcmp(key, "nccl")) {
			if (sweep_point_nccl(pt, s)) {
				diag_set(d, -EINVAL, "%s:%u: nccl: expected an NCCL 2 version from 2.7 on (2.18.5, 2.18), got '%s'; this build has the tables of %s",
					 file, line, s, nccl_release_list());
				return EXIT_USAGE;
			}
		}
		if (bad) /* a topology or trace path too long to join to the file's folder */
			return sweep_error(d, "%s:%u: %s: path too long", file, line, key);
	}
	if (!pt->topology[0] || !pt->trace[0])
		return sweep_error(d, "%s:%u: %s: missing required key", file, line,
				   pt->topology[0] ? "trace" : "topology");
	return 0;
}

static bool is_plan(const char *file)
{
	size_t n = strlen(file);

	return (n > 5 && !strcmp(file + n - 5, ".yaml")) || (n > 4 && !strcmp(file + n - 4, ".yml"));
}

int sweep_load(const char *file, struct sweep *sw, struct diag *d)
{
	char *dir, *nl, *slash, *buf = NULL;
	size_t cap = 0, np = 0;
	unsigned line = 0;
	FILE *f;
	int rc = 0, err;

	memset(sw, 0, sizeof(*sw));
	if (is_plan(file))
		return sweep_plan_load(file, sw, d);
	f = input_open(file, "r", &err, d);
	if (!f)
		return EXIT_USAGE;
	dir = strdup(file);
	if (!dir) {
		fclose(f);
		diag_set(d, -ENOMEM, "out of memory");
		return EXIT_RUNTIME;
	}
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	else
		strcpy(dir, ".");
	while (!rc && getline(&buf, &cap, f) > 0) {
		json_error_t je;
		json_t *o;
		struct point *p;
		size_t len;

		line++;
		nl = buf + strspn(buf, " \t\r\n");
		if (!*nl || *nl == '#')
			continue;
		len = strlen(buf);
		while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
			len--;
		/* a key given twice is refused, as a trace line's is: jansson
		 * would keep the last one ("nodes": 2, "nodes": 8 ran 8) */
		o = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
		if (!o) {
			char text[JSON_ERROR_TEXT_LENGTH];

			/* file:line:col: json: ..., as a trace's syntax error */
			diag_set(d, -EINVAL, "%s:%u:%d: json: %s", file, line,
				 je.column > 0 ? je.column : 1,
				 diag_printable(je.text, text, sizeof(text)));
			rc = EXIT_USAGE;
			break;
		}
		if (sw->n == np) {
			np = np ? 2 * np : 16;
			p = np <= SWEEP_MAX_POINTS ? realloc(sw->pts, np * sizeof(*p)) : NULL;
			if (!p) {
				json_decref(o);
				rc = sweep_error(d, "%s:%u: too many points%s", file, line, "");
				break;
			}
			sw->pts = p;
		}
		rc = point_parse(o, file, line, dir, &sw->pts[sw->n], d);
		json_decref(o);
		if (!rc)
			sw->n++;
	}
	free(buf);
	free(dir);
	fclose(f);
	if (!rc && !sw->n) {
		diag_set(d, -EINVAL, "%s: no points", file); /* no line has one */
		rc = EXIT_USAGE;
	}
	if (!rc) {
		sw->rows = calloc(sw->n, sizeof(*sw->rows));
		if (!sw->rows) {
			diag_set(d, -ENOMEM, "out of memory");
			rc = EXIT_RUNTIME;
		}
	}
	return rc;
}

static void print_table(const struct sweep *sw)
{
	int lw = sweep_label_width(sw, 20), tw = 22, pw = 8;

	for (size_t i = 0; i < sw->n; i++) {
		if (!sw->rows[i].err && (int)strlen(sw->rows[i].topo_name) > tw)
			tw = (int)strlen(sw->rows[i].topo_name);
		if (!sw->rows[i].err && (int)strlen(plan_path_used_name(sw->rows[i].path_used)) > pw)
			pw = (int)strlen(plan_path_used_name(sw->rows[i].path_used));
	}
	printf("%-*s %-*s %6s %6s %-8s %-*s %-6s %14s %14s %12s %8s\n", lw, "point", tw,
	       "topology", "nodes", "gpus", "backend", pw, "path", "gdr", "iteration_us",
	       "comm_us", "exposed_us", "wall_s");
	for (size_t i = 0; i < sw->n; i++) {
		const struct point *p = &sw->pts[i];
		const struct row *r = &sw->rows[i];
		char label[512];

		sweep_point_label(sw, p, label, sizeof(label));
		diag_printable(label, label, sizeof(label)); /* one row a point */
		if (r->err) {
			printf("%-*s error: %s\n", lw, label, r->error);
			continue;
		}
		printf("%-*s %-*s %6u %6u %-8s %-*s %-6s %14.3f %14.3f %12.3f ",
		       lw, label, tw, r->topo_name, r->nodes, r->gpus, p->backend, pw,
		       plan_path_used_name(r->path_used),
		       topo_path_name(p->opts.gdr_level), r->iteration_us, r->comm_us,
		       r->exposed_us);
		if (sw->no_wall)
			printf("%8s\n", "-");
		else
			printf("%8.3f\n", r->wall_s);
	}
}

/* The CSV's own columns, and whether a plan's axis is one of them (its
 * value is in it already: a second column of one name would leave a
 * reader to pick one). */
static const char *const csv_columns[] = {
	"point", "line", "topology", "nodes", "gpus", "backend", "path", "path_used", "gdr_level",
	"iteration_us", "comm_us", "exposed_us", "wall_s", "error",
};

static bool csv_has_column(const char *name)
{
	for (size_t k = 0; k < sizeof(csv_columns) / sizeof(csv_columns[0]); k++)
		if (!strcmp(csv_columns[k], name))
			return true;
	return false;
}

static void print_csv(const struct sweep *sw)
{
	for (size_t k = 0; k < sizeof(csv_columns) / sizeof(csv_columns[0]); k++)
		printf("%s%s", k ? "," : "", csv_columns[k]);
	/* a plan's other axes, one column each, after them */
	for (unsigned a = 0; a < sw->naxes; a++) {
		if (csv_has_column(sw->axes[a].name))
			continue;
		putchar(',');
		report_csv_field(stdout, sw->axes[a].name);
	}
	printf("\n");
	for (size_t i = 0; i < sw->n; i++) {
		const struct point *p = &sw->pts[i];
		const struct row *r = &sw->rows[i];
		char label[512];

		sweep_point_label(sw, p, label, sizeof(label));
		report_csv_field(stdout, label);
		printf(",%u,", p->line);
		report_csv_field(stdout, r->topo_name);
		/* a failed point has no figures: empty, not 0 */
		if (r->err)
			printf(",,,%s,%s,,%s,,,,", p->backend, plan_path_name(p->opts.path),
			       topo_path_name(p->opts.gdr_level));
		else
			printf(",%u,%u,%s,%s,%s,%s,%.3f,%.3f,%.3f,", r->nodes, r->gpus, p->backend,
			       plan_path_name(p->opts.path), plan_path_used_name(r->path_used),
			       topo_path_name(p->opts.gdr_level), r->iteration_us, r->comm_us,
			       r->exposed_us);
		if (!sw->no_wall)
			printf("%.3f", r->wall_s);
		putchar(',');
		report_csv_field(stdout, r->error);
		for (unsigned a = 0; a < sw->naxes; a++) {
			if (csv_has_column(sw->axes[a].name))
				continue;
			putchar(',');
			report_csv_field(stdout, sw->axes[a].values[p->axis_value[a]]);
		}
		printf("\n");
	}
}

/* A plan's file, title, axes and prices: what 'gdrlab report' says it
 * asked. */
static json_t *plan_json(const struct sweep *sw)
{
	json_t *o = json_pack("{s:s}", "file", sw->plan_file), *axes = json_array();

	if (sw->title[0])
		json_object_set_new(o, "title", json_string(sw->title));
	for (unsigned a = 0; a < sw->naxes; a++) {
		json_t *values = json_array();

		for (unsigned v = 0; v < sw->axes[a].nvalues; v++)
			json_array_append_new(values, json_string(sw->axes[a].values[v]));
		json_array_append_new(axes, json_pack("{s:s, s:o}", "axis", sw->axes[a].name,
						      "values", values));
	}
	json_object_set_new(o, "axes", axes);
	if (sw->questions.cost)
		json_object_set_new(o, "prices", json_pack("{s:f, s:f, s:f, s:f, s:f}",
			"gpu_hour", sw->questions.gpu_hour, "nic_hour", sw->questions.nic_hour,
			"switch_port_hour", sw->questions.switch_port_hour,
			"tokens_per_iteration", sw->questions.tokens,
			"tokens_per_gpu", sw->questions.tokens_per_gpu));
	return o;
}

static int print_json(const struct sweep *sw)
{
	json_t *arr = json_array();
	int err = 0;

	for (size_t i = 0; arr && i < sw->n; i++) {
		const struct point *p = &sw->pts[i];
		const struct row *r = &sw->rows[i];
		char label[512];
		json_t *o, *axes;

		sweep_point_label(sw, p, label, sizeof(label));
		/* the label is cut at its buffer's end, maybe inside a
		 * character: json_file_name() keeps it a JSON string */
		o = json_pack("{s:o, s:i, s:o, s:o, s:s, s:s, s:s, s:s}",
				      "point", json_file_name(label), "line", (int)p->line,
				      "topology_file", json_file_name(p->topology),
				      "trace_file", json_file_name(p->trace),
				      "backend", p->backend, "path", plan_path_name(p->opts.path),
				      "gdr_level", topo_path_name(p->opts.gdr_level),
				      "nccl", nccl_releases[p->opts.nccl]->version);

		if (!o) { /* out of memory: not a document without the point */
			json_decref(arr);
			arr = NULL;
			break;
		}
		if (p->gen[0]) {
			char cmd[1024];

			sweep_gen_command(p->gen, r->err ? 0 : r->gen_tflops, cmd, sizeof(cmd));
			json_object_set_new(o, "gen", json_string(cmd));
		}
		if (sw->naxes && (axes = json_object())) {
			for (unsigned a = 0; a < sw->naxes; a++)
				json_object_set_new(axes, sw->axes[a].name,
						    json_string(sw->axes[a].values[p->axis_value[a]]));
			json_object_set_new(o, "axes", axes);
		}
		if (r->err)
			json_object_set_new(o, "error", json_file_name(r->error)); /* names files */
		else
			json_object_update_new(o, json_pack("{s:s, s:i, s:i, s:s, s:b, s:o, s:f, s:f, s:f, s:f}",
				"topology", r->topo_name, "nodes", (int)r->nodes,
				"gpus", (int)r->gpus, "path_used", plan_path_used_name(r->path_used),
				"never_direct", plan_path_used_never_direct(r->path_used),
				"trace_ranks", r->ranks_used ? json_integer(r->ranks_used) : json_null(),
				"iteration_time_us", r->iteration_us, "comm_time_us", r->comm_us,
				"comm_busy_us", r->busy_us, "exposed_comm_us", r->exposed_us));
		if (!r->err && !sw->no_wall)
			json_object_set_new(o, "wall_s", json_real(r->wall_s));
		json_array_append_new(arr, o);
	}
	if (arr && sweep_has_questions(sw)) {
		/* a plan with questions: what it is, its points and their answers */
		arr = json_pack("{s:o, s:o}", "plan", plan_json(sw), "points", arr);
		if (arr && sweep_questions_json(sw, arr)) {
			json_decref(arr);
			arr = NULL;
		}
	}
	if (!arr || json_dumpf(arr, stdout, JSON_INDENT(2)))
		err = -EIO;
	printf("\n");
	json_decref(arr);
	return err;
}

/*
 * An axis of topology values that no point's run reads (staging.* off
 * the staged-memcpy path): its values give the same rows, and a flat
 * line or heat map would read as a finding. Said on stderr, once an axis.
 */
static void note_unread_axes(const struct sweep *sw)
{
	for (unsigned a = 0; a < sw->naxes; a++) {
		const char *why = NULL;

		if (!sw->axes[a].topology_path)
			continue;
		for (size_t i = 0; i < sw->n; i++) {
			const struct backend_ops *b = backend_find(sw->pts[i].backend);
			bool own_ring = b && !(b->caps & BACKEND_CAP_ALGORITHMS);

			why = plan_set_unread(sw->axes[a].name, sw->pts[i].opts.path, own_ring);
			if (!why)
				break;
		}
		if (why)
			fprintf(stderr, "gdrlab sweep: note: axis %s changes nothing any point computes: %s; its values give the same rows\n",
				sw->axes[a].name, why);
	}
}

enum sweep_fmt { TABLE, JSON, CSV };

static int sweep_print(const struct sweep *sw, enum sweep_fmt fmt)
{
	if (fmt == JSON)
		return print_json(sw) ? EXIT_RUNTIME : 0;
	if (fmt == CSV) {
		print_csv(sw);
		return 0;
	}
	print_table(sw);
	return sweep_questions_print(sw, stdout) ? EXIT_RUNTIME : 0;
}

/* Run, or under a launcher run this rank's share, and print (rank 0). */
static int sweep_cmd(const char *file, unsigned jobs, enum sweep_fmt fmt, bool quiet,
		     bool no_wall)
{
	struct diag d = { "" };
	struct progress prog;
	struct emu_launch l;
	struct sweep sw;
	bool report = true;
	int rc;

	if (emu_launch_detect(&l, &d)) {
		fprintf(stderr, "gdrlab sweep: %s\n", d.msg);
		return EXIT_USAGE;
	}
	rc = sweep_load(file, &sw, &d);
	sw.no_wall = no_wall;
	if (l.kind != EMU_LAUNCH_NONE) {
		rc = sweep_spread(&l, file, &sw, jobs, rc, &d, &report);
	} else if (rc) {
		fprintf(stderr, "gdrlab sweep: %s\n", d.msg);
	} else {
		progress_init(&prog, "gdrlab sweep", quiet);
		prog.unit = "points";
		sw.progress = &prog;
		if (sweep_run(&sw, jobs, 0, 1, NULL)) {
			fprintf(stderr, "gdrlab sweep: out of memory\n");
			rc = EXIT_RUNTIME;
		}
	}
	if (!rc) {
		if (report)
			note_unread_axes(&sw);
		rc = report ? sweep_print(&sw, fmt) : 0;
		for (size_t i = 0; !rc && i < sw.n; i++)
			if (sw.rows[i].err)
				rc = EXIT_RUNTIME;
	}
	sweep_free(&sw);
	return rc;
}

static const char sweep_usage[] =
	"usage: gdrlab sweep FILE [-j N] [--json] [--csv] [--no-wall] [-q]\n"
	"\n"
	"Run every point of a sweep file in parallel processes and print one row\n"
	"per point, in file order. FILE is JSON Lines, one point a line (name,\n"
	"topology, trace, nodes, path, backend, gdr_level, nccl), or a plan\n"
	"(.yaml, .yml): a base point and axes whose cartesian product is the\n"
	"points, the first axis slowest (nodes: 8..1024 x2, path: [direct,\n"
	"staged], nics.rate: {values: [100, 400], unit: Gbit/s}: any value of the\n"
	"topology by its dotted path); docs/sweep-format.md.\n"
	"Under mpirun -np N, srun -n N or mpiexec -n N (MPICH, Intel MPI: with\n"
	"GDRLAB_BOOT_ADDR=host:port), the N ranks share the points and rank 0\n"
	"prints the rows.\n"
	"\n"
	"  -j, --jobs N   points run at once (default 2)\n"
	"      --json     rows as JSON on stdout: an array, or for a plan that asks\n"
	"                 questions {\"plan\", \"points\", \"questions\"}, the answers\n"
	"                 beside the rows\n"
	"      --csv      rows as CSV on stdout\n"
	"  -q, --quiet    no progress on stderr (shown on a terminal: points done,\n"
	"                 their pace, the time left)\n"
	"      --no-wall  leave out each point's wall time, so that two runs of one\n"
	"                 sweep print the same bytes (scenarios, diffs)\n"
	"  -h, --help     this help\n"
	"\n"
	"Exit status: 0 ok, 1 a point failed (its row says why), 2 bad input or usage.\n";

int cmd_sweep(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "jobs", required_argument, NULL, 'j' },
		{ "json", no_argument, NULL, 'J' },
		{ "csv", no_argument, NULL, 'C' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "no-wall", no_argument, NULL, 'W' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum sweep_fmt fmt = TABLE;
	bool quiet = false, no_wall = false;
	unsigned jobs = 2;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":j:qh", longopts, NULL)) != -1) {
		char *end;
		unsigned long v;

		switch (c) {
		case 'j':
			errno = 0;
			v = strtoul(optarg, &end, 10);
			if (errno || *end || v < 1 || v > 256 || optarg[0] == '-') {
				fprintf(stderr, "gdrlab sweep: --jobs: expected 1 to 256, got '%s'\n",
					optarg);
				return EXIT_USAGE;
			}
			jobs = (unsigned)v;
			break;
		case 'J':
			fmt = JSON;
			break;
		case 'C':
			fmt = CSV;
			break;
		case 'q':
			quiet = true;
			break;
		case 'W':
			no_wall = true;
			break;
		case 'h':
			fputs(sweep_usage, stdout);
			return 0;
		case ':':
			return cli_usage_error("sweep", "%s needs a value",
					       argv[optind - 1]);
		default:
			return cli_usage_error("sweep", "unknown option '%s'",
					       argv[optind - 1]);
		}
	}
	if (optind + 1 != argc) {
		return cli_usage_error("sweep", "expected one sweep file");
	}
	return sweep_cmd(argv[optind], jobs, fmt, quiet, no_wall);
}
