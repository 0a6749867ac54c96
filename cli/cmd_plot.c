/* SPDX-License-Identifier: MIT */
/*
 * gdrlab plot: a sweep plan's answers as a chart, drawn by gnuplot
 * (Debian's gnuplot-nox), not by hand: the command writes gnuplot's data
 * and script into a scratch folder and runs it (docs/sweep-format.md,
 * "Charts", says why gnuplot).
 *
 *   gdrlab sweep plan.yaml --json > results.json
 *   gdrlab plot results.json --kind scaling -o scaling.svg
 *   gdrlab plot results.json --kind speedup -o speedup.png
 *
 * The chart file is written whole or not at all (output_file.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "cmd_sweep.h"
#include "output_file.h"

static const char plot_usage[] =
	"usage: gdrlab plot RESULTS --kind KIND -o FILE.svg|FILE.png\n"
	"\n"
	"Draw a sweep plan's answer as a chart with gnuplot (Debian: gnuplot-nox).\n"
	"RESULTS is what 'gdrlab sweep PLAN --json' wrote for a plan that asks the\n"
	"question (docs/sweep-format.md, \"Questions\"):\n"
	"\n"
	"  --kind scaling   efficiency against nodes, a line per series, the\n"
	"                   threshold dashed (the scaling question)\n"
	"  --kind speedup   staged over direct iteration as a heat map over the\n"
	"                   question's two axes (the gdr_speedup question)\n"
	"  --kind nic_speed exposed communication against the NIC axis, a line per\n"
	"                   series, the share asked for dashed\n"
	"  --kind breakdown each point's stage busy times, stacked bars\n"
	"  --kind cost      each point's cost an iteration, bars\n"
	"  -o, --output F   the chart: SVG or PNG by its extension; written whole\n"
	"                   or not at all\n"
	"  -h, --help       this help\n"
	"\n"
	"Exit status: 0 ok, 1 gnuplot missing or failing, 2 bad input or usage.\n";

/* @s for a gnuplot double-quoted string: quotes and backslashes escaped,
 * control characters dropped. */
static void put_quoted(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if ((unsigned char)*s < 0x20)
			continue;
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static const char *terminal_of(const char *path)
{
	size_t n = strlen(path);

	if (n > 4 && !strcmp(path + n - 4, ".svg"))
		return "svg size 900,540 dynamic noenhanced font 'sans,11' background rgb 'white'";
	if (n > 4 && !strcmp(path + n - 4, ".png"))
		return "pngcairo size 900,540 noenhanced font 'sans,10'";
	return NULL;
}

/* "gdrlab plot: ..." and @status. */
#define fail(status, ...) cli_error("plot", status, __VA_ARGS__)

/* "plot" of one line per series: data block i (gnuplot's index) titled
 * with series i's name. */
static void put_series_plot(FILE *gp, const char *data_path, json_t *series)
{
	json_t *s;
	size_t i;

	fprintf(gp, "plot ");
	json_array_foreach(series, i, s) {
		fprintf(gp, "%s'%s' index %zu using 1:2 with linespoints title ", i ? ", " : "",
			data_path, i);
		put_quoted(gp, json_string_value(json_object_get(s, "series")));
	}
	fputc('\n', gp);
}

/* Efficiency against nodes: one data block and one line per series. */
static int write_scaling(FILE *data, FILE *gp, const char *data_path, json_t *q)
{
	json_t *nodes = json_object_get(q, "nodes"), *series = json_object_get(q, "series"), *s;
	double threshold = json_number_value(json_object_get(q, "threshold"));
	size_t i, k;

	if (!json_is_array(nodes) || !json_is_array(series) || !json_array_size(series))
		return -EINVAL;
	json_array_foreach(series, i, s) {
		json_t *eff = json_object_get(s, "efficiency"), *e;

		if (!json_is_array(eff) || !json_is_string(json_object_get(s, "series")))
			return -EINVAL;
		json_array_foreach(eff, k, e) {
			const char *n = json_string_value(json_array_get(nodes, k));

			if (!n)
				return -EINVAL;
			if (json_is_number(e))
				fprintf(data, "%s %.6f\n", n, json_number_value(e));
		}
		fprintf(data, "\n\n"); /* gnuplot's index: one block a series */
	}
	fprintf(gp, "set title 'Scaling efficiency: the iteration at the fewest nodes over each'\n"
		    "set xlabel 'nodes'\nset ylabel 'efficiency'\nset logscale x 2\n"
		    "set yrange [0:1.05]\nset key outside right\nset grid\n"
		    "set arrow from graph 0, first %.6f to graph 1, first %.6f nohead dashtype 2\n",
		threshold, threshold);
	put_series_plot(gp, data_path, series);
	return 0;
}

static void put_tics(FILE *gp, const char *axis, json_t *values)
{
	json_t *v;
	size_t i;

	fprintf(gp, "set %stics (", axis);
	json_array_foreach(values, i, v) {
		fprintf(gp, "%s", i ? ", " : "");
		put_quoted(gp, json_string_value(v) ? json_string_value(v) : "");
		fprintf(gp, " %zu", i);
	}
	fprintf(gp, ")\n");
}

/* Staged over direct on the grid, each cell labelled with its value. */
static int write_speedup(FILE *data, FILE *gp, const char *data_path, json_t *q)
{
	json_t *rows = json_object_get(q, "row_values"), *cols = json_object_get(q, "column_values");
	json_t *grid = json_object_get(q, "iteration"), *row;
	size_t r, c;

	if (!json_is_array(rows) || !json_is_array(cols) || !json_is_array(grid) ||
	    !json_is_string(json_object_get(q, "rows")) || !json_is_string(json_object_get(q, "columns")))
		return -EINVAL;
	json_array_foreach(grid, r, row) {
		json_t *x;

		if (!json_is_array(row))
			return -EINVAL;
		json_array_foreach(row, c, x)
			if (json_is_number(x))
				fprintf(data, "%zu %zu %.6f\n", c, r, json_number_value(x));
	}
	fprintf(gp, "set title 'GPUDirect RDMA speedup: iteration time staged / direct'\nset xlabel ");
	put_quoted(gp, json_string_value(json_object_get(q, "columns")));
	fprintf(gp, "\nset ylabel ");
	put_quoted(gp, json_string_value(json_object_get(q, "rows")));
	fprintf(gp, "\n");
	put_tics(gp, "x", cols);
	put_tics(gp, "y", rows);
	fprintf(gp, "set cblabel 'speedup'\nset palette rgbformulae 33,13,10\n"
		    "set xrange [-0.5:%zu.5]\nset yrange [-0.5:%zu.5]\n"
		    "plot '%s' using 1:2:3 with image notitle, "
		    "'' using 1:2:(sprintf('%%.3fx', $3)) with labels notitle\n",
		json_array_size(cols) - 1, json_array_size(rows) - 1, data_path);
	return 0;
}

/* Exposed communication against the NIC axis: a line a series, the
 * share asked for dashed. */
static int write_nic_speed(FILE *data, FILE *gp, const char *data_path, json_t *q)
{
	json_t *values = json_object_get(q, "values"), *series = json_object_get(q, "series"), *s;
	double share = json_number_value(json_object_get(q, "exposed_share"));
	size_t i, k;

	if (!json_is_array(values) || !json_is_array(series) || !json_array_size(series) ||
	    !json_is_string(json_object_get(q, "axis")))
		return -EINVAL;
	json_array_foreach(series, i, s) {
		json_t *ex = json_object_get(s, "exposed"), *e;

		if (!json_is_array(ex) || !json_is_string(json_object_get(s, "series")))
			return -EINVAL;
		json_array_foreach(ex, k, e)
			if (json_is_number(e))
				fprintf(data, "%zu %.6f\n", k, 100 * json_number_value(e));
		fprintf(data, "\n\n");
	}
	fprintf(gp, "set title 'Exposed communication, share of the iteration'\nset xlabel ");
	put_quoted(gp, json_string_value(json_object_get(q, "axis")));
	fprintf(gp, "\nset ylabel 'exposed (%%)'\nset key outside right\nset grid\n"
		    "set xrange [-0.2:%zu.2]\n"
		    "set arrow from graph 0, first %.6f to graph 1, first %.6f nohead dashtype 2\n",
		json_array_size(values) - 1, 100 * share, 100 * share);
	put_tics(gp, "x", values);
	put_series_plot(gp, data_path, series);
	return 0;
}

/* Per point, one bar: its stage busy times stacked (breakdown) or its
 * cost an iteration; the points' labels from the document. */
static int write_bars(FILE *data, FILE *gp, const char *data_path, json_t *doc, json_t *q,
		      bool cost)
{
	static const char *const stages[] = { "intra_node", "copy_to_host", "nic_read",
					      "wire", "nic_write", "copy_to_gpu" };
	json_t *points = json_object_get(doc, "points"), *x;
	size_t i, nstages = sizeof(stages) / sizeof(stages[0]);

	if (!json_is_array(points) || !json_is_array(q) || json_array_size(points) != json_array_size(q) ||
	    !json_array_size(q))
		return -EINVAL;
	json_array_foreach(q, i, x) {
		const char *label = json_string_value(json_object_get(json_array_get(points, i), "point"));

		if (!label || !json_is_object(x))
			return -EINVAL;
		put_quoted(data, label);
		if (cost) {
			json_t *c = json_object_get(x, "per_iteration");

			fprintf(data, " %.9g", json_is_number(c) ? json_number_value(c) : 0);
		}
		for (size_t k = 0; !cost && k < nstages; k++) {
			json_t *v = json_object_get(x, stages[k]);

			fprintf(data, " %.3f", json_is_number(v) ? json_number_value(v) : 0);
		}
		fputc('\n', data);
	}
	fprintf(gp, "set title '%s'\nset style data histograms\nset style fill solid 0.8 border -1\n"
		    "set boxwidth 0.8\nset xtics rotate by -60 font ',8'\nset key outside right\n"
		    "set grid ytics\nset ylabel '%s'\n",
		cost ? "Cost of an iteration" : "Stage busy time of the bottleneck connections",
		cost ? "cost an iteration" : "us an iteration");
	if (cost) {
		fprintf(gp, "plot '%s' using 2:xtic(1) notitle\n", data_path);
		return 0;
	}
	fprintf(gp, "set style histogram rowstacked\nplot ");
	for (size_t k = 0; k < nstages; k++)
		fprintf(gp, "%s'%s' using %zu%s title '%s'", k ? ", " : "", data_path, k + 2,
			k ? "" : ":xtic(1)", stages[k]);
	fputc('\n', gp);
	return 0;
}

/* Run gnuplot on @script; its first complaint in @why. */
static int run_gnuplot(const char *script, char *why, size_t len)
{
	int pipefd[2], status;
	ssize_t n;
	pid_t pid;

	if (pipe(pipefd))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(null, 0);
		dup2(null, 1);
		dup2(pipefd[1], 2);
		close(pipefd[0]);
		execlp("gnuplot", "gnuplot", script, (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	n = read(pipefd[0], why, len - 1);
	why[n > 0 ? n : 0] = '\0';
	why[strcspn(why, "\n")] = '\0';
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return -ENOENT;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -EIO;
}

/* Each kind of chart: the question it draws (its key in the results'
 * "questions") and how. */
enum plot_kind { PLOT_SCALING, PLOT_SPEEDUP, PLOT_NIC_SPEED, PLOT_BREAKDOWN, PLOT_COST, PLOT_KINDS };

static const struct {
	const char *name, *question;
} plot_kinds[PLOT_KINDS] = {
	[PLOT_SCALING] = { "scaling", "scaling" },
	[PLOT_SPEEDUP] = { "speedup", "gdr_speedup" },
	[PLOT_NIC_SPEED] = { "nic_speed", "nic_speed" },
	[PLOT_BREAKDOWN] = { "breakdown", "breakdown_us" },
	[PLOT_COST] = { "cost", "cost" },
};

static int write_chart(enum plot_kind k, FILE *data, FILE *gp, const char *data_path,
		       json_t *doc, json_t *q)
{
	switch (k) {
	case PLOT_SCALING: return write_scaling(data, gp, data_path, q);
	case PLOT_SPEEDUP: return write_speedup(data, gp, data_path, q);
	case PLOT_NIC_SPEED: return write_nic_speed(data, gp, data_path, q);
	case PLOT_BREAKDOWN: return write_bars(data, gp, data_path, doc, q, false);
	default: return write_bars(data, gp, data_path, doc, q, true);
	}
}

static int plot(const char *results, enum plot_kind kind, const char *out)
{
	char dir[] = "/tmp/gdrlab-plot-XXXXXX", data_path[64], script[64], why[512] = "";
	const char *term = terminal_of(out);
	struct diag d = { "" };
	struct output_file of;
	json_error_t je;
	json_t *doc, *q;
	FILE *data = NULL, *gp = NULL;
	int err, rc = 0;

	if (!term)
		return cli_usage_error("plot", "-o: '%s' is not a .svg or .png file name", out);
	doc = json_load_file(results, 0, &je);
	if (!doc)
		return fail(EXIT_USAGE, "%s:%s", results, je.text);
	q = json_object_get(json_object_get(doc, "questions"), plot_kinds[kind].question);
	if (!q) {
		json_decref(doc);
		return fail(EXIT_USAGE, "%s: no %s answer in it (a plan's --json with that question)",
			    results, plot_kinds[kind].question);
	}
	if (!mkdtemp(dir)) {
		json_decref(doc);
		return fail(EXIT_RUNTIME, "cannot make a scratch folder: %s", strerror(errno));
	}
	snprintf(data_path, sizeof(data_path), "%s/data", dir);
	snprintf(script, sizeof(script), "%s/plot.gp", dir);
	data = fopen(data_path, "w");
	gp = fopen(script, "w");
	err = output_file_open(&of, out, &d);
	if (err || !data || !gp) {
		rc = fail(EXIT_RUNTIME, "%s", err ? d.msg : "cannot write the scratch files");
		goto out;
	}
	fprintf(gp, "set terminal %s\nset output ", term);
	put_quoted(gp, of.tmp);
	fputc('\n', gp);
	err = write_chart(kind, data, gp, data_path, doc, q);
	if (err) {
		rc = fail(EXIT_USAGE, "%s: its %s answer is not one gdrlab sweep writes", results,
			  plot_kinds[kind].question);
		goto out;
	}
	fprintf(gp, "unset output\n");
	if (fclose(data) | fclose(gp)) {
		data = gp = NULL;
		rc = fail(EXIT_RUNTIME, "cannot write the scratch files");
		goto out;
	}
	data = gp = NULL;
	err = run_gnuplot(script, why, sizeof(why));
	if (err == -ENOENT)
		rc = fail(EXIT_RUNTIME, "gnuplot is not installed (Debian: gnuplot-nox)");
	else if (err)
		rc = fail(EXIT_RUNTIME, "gnuplot failed: %s", why[0] ? why : strerror(-err));
	else if (output_file_commit(&of, &d))
		rc = fail(EXIT_RUNTIME, "%s", d.msg);
out:
	if (rc)
		output_file_abort(&of);
	if (data)
		fclose(data);
	if (gp)
		fclose(gp);
	unlink(data_path);
	unlink(script);
	rmdir(dir);
	json_decref(doc);
	return rc;
}

int cmd_plot(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "kind", required_argument, NULL, 'k' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *kind = NULL, *out = NULL;
	unsigned k = 0;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":k:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'k':
			kind = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'h':
			fputs(plot_usage, stdout);
			return 0;
		case ':':
			return cli_usage_error("plot", "%s needs a value", argv[optind - 1]);
		default:
			return cli_usage_error("plot", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind + 1 != argc)
		return cli_usage_error("plot", "expected one results file (gdrlab sweep PLAN --json)");
	for (; kind && k < PLOT_KINDS && strcmp(kind, plot_kinds[k].name); k++)
		;
	if (!kind || k == PLOT_KINDS)
		return cli_usage_error("plot", "--kind: scaling, speedup, nic_speed, breakdown or cost");
	if (!out)
		return cli_usage_error("plot", "-o: where the chart goes (.svg or .png)");
	return plot(argv[optind], (enum plot_kind)k, out);
}
