/* SPDX-License-Identifier: MIT */
/*
 * Charts drawn by gnuplot (chart.h): each kind writes gnuplot's data and
 * script into a scratch folder from the JSON gdrlab wrote, and gnuplot
 * draws them. The data are written by this file; the drawing is
 * gnuplot's.
 */
#define _GNU_SOURCE /* memrchr */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "chart.h"

#define BAR_LABEL_MAX 28 /* characters under a bar, rotated */

const struct chart_kind_info chart_kinds[CHART_KINDS] = {
	[CHART_SCALING] = { "scaling", "scaling", "scaling" },
	[CHART_SPEEDUP] = { "speedup", "gdr_speedup", "gdr_speedup" },
	[CHART_NIC_SPEED] = { "nic_speed", "nic_speed", "nic_speed" },
	[CHART_BREAKDOWN] = { "breakdown", "breakdown_us", "breakdown" },
	[CHART_COST] = { "cost", "cost", "cost" },
	[CHART_PATHS] = { "paths", NULL, NULL },
	[CHART_COLLECTIVES] = { "collectives", NULL, NULL },
	[CHART_BUSBW] = { "busbw", NULL, NULL },
};

int chart_kind_parse(const char *name, enum chart_kind *k)
{
	for (unsigned i = 0; i < CHART_KINDS; i++)
		if (!strcmp(name, chart_kinds[i].name)) {
			*k = (enum chart_kind)i;
			return 0;
		}
	return -EINVAL;
}

/* @s as a string in a gnuplot data file (no command is run from one):
 * double quotes, a quote or a backslash escaped, control characters
 * dropped. */
static void put_data_chars(FILE *f, const char *s)
{
	for (; *s; s++) {
		if ((unsigned char)*s < 0x20)
			continue;
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
}

static void put_data_string(FILE *f, const char *s)
{
	fputc('"', f);
	put_data_chars(f, s);
	fputc('"', f);
}

/*
 * @s as a gnuplot single-quoted string in a script, control characters
 * dropped. Not
 * double quotes: gnuplot runs a `command` inside those through sh, never
 * inside single quotes, where a quote is written twice and nothing else
 * is special; a label comes from the user's files (a trace's name, a
 * results JSON).
 */
static void put_quoted(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if ((unsigned char)*s < 0x20)
			continue;
		if (*s == '\'')
			fputc('\'', f);
		fputc(*s, f);
	}
	fputc('\'', f);
}

/* Whether @s[0..n) names a file gdrlab reads: a trace or topology axis's
 * value, drawn by its name alone. */
static bool is_file_name(const char *s, size_t n)
{
	static const char *const exts[] = { ".jsonl", ".json", ".yaml", ".yml" };

	for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
		size_t m = strlen(exts[i]);

		if (n > m && !memcmp(s + n - m, exts[i], m))
			return true;
	}
	return false;
}

void chart_short_label(const char *label, char *buf, size_t len)
{
	size_t at = 0;

	/* a label is "key=value key=value"; a file's value has no space */
	while (*label && at + 1 < len) {
		size_t n = strcspn(label, " ");
		const char *eq = memchr(label, '=', n), *v = eq ? eq + 1 : label;
		size_t vn = n - (size_t)(v - label);

		if (is_file_name(v, vn)) {
			const char *base = v + vn, *dot;

			while (base > v && base[-1] != '/')
				base--;
			dot = memrchr(base, '.', (size_t)(v + vn - base));
			at += (size_t)snprintf(buf + at, len - at, "%.*s%.*s", (int)(v - label), label,
					       (int)(dot - base), base);
		} else {
			at += (size_t)snprintf(buf + at, len - at, "%.*s", (int)n, label);
		}
		label += n;
		if (*label == ' ' && at + 1 < len)
			buf[at++] = *label++;
		at = at < len ? at : len - 1;
	}
	buf[at < len ? at : len - 1] = '\0';
}

static void put_short(FILE *gp, const char *label)
{
	char buf[512];

	chart_short_label(label, buf, sizeof(buf));
	put_quoted(gp, buf);
}

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
		put_short(gp, json_string_value(json_object_get(s, "series")));
	}
	fputc('\n', gp);
}

bool chart_scaling_unreferenced(json_t *s, const char *first)
{
	json_t *failed = json_object_get(s, "failed");
	const char *f = json_string_value(json_array_get(failed, 0));

	return f && first && !strcmp(f, first) &&
	       json_array_size(failed) < json_array_size(json_object_get(s, "efficiency"));
}

json_t *chart_scaling_values(json_t *q, bool *dp)
{
	*dp = json_is_string(json_object_get(q, "axis"));
	return json_object_get(q, *dp ? "dp" : "nodes");
}

/* The scaling chart's title and axes: against nodes, the iteration's
 * ratio; against a generated job's replicas (@dp), its tokens a second a
 * GPU's, the nodes growing with them (each series its own). */
static void put_scaling_axes(FILE *gp, bool dp, double threshold)
{
	if (dp)
		fprintf(gp, "set title 'Scaling efficiency: tokens a second a GPU at each dp over the "
			    "first dp'\nset xlabel 'data-parallel replicas (gen.dp)'\n");
	else
		fprintf(gp, "set title 'Scaling efficiency: the iteration at the first node count over "
			    "each'\nset xlabel 'nodes'\n");
	/* above 1 where a count runs faster than the first: not cut off */
	fprintf(gp, "set ylabel 'efficiency'\nset logscale x 2\n"
		    "set yrange [0:1.05<*]\nset key outside right\nset grid\n"
		    "set arrow from graph 0, first %.6f to graph 1, first %.6f nohead dashtype 2\n",
		threshold, threshold);
}

/* Efficiency against nodes (or dp): one data block and one line per
 * series. */
static int write_scaling(FILE *data, FILE *gp, const char *data_path, json_t *q, char *why,
			 size_t len)
{
	bool dp;
	json_t *nodes = chart_scaling_values(q, &dp), *series = json_object_get(q, "series"), *s;
	double threshold = json_number_value(json_object_get(q, "threshold"));
	const char *first = json_string_value(json_array_get(nodes, 0));
	size_t i, k, drawn = 0, unreferenced = 0;

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
			/* no efficiency: gnuplot's undefined value, not no
			 * line, which would leave the block empty and give
			 * the next series' line this one's title */
			if (json_is_number(e)) {
				fprintf(data, "%s %.6f\n", n, json_number_value(e));
				drawn++;
			} else {
				fprintf(data, "%s NaN\n", n);
			}
		}
		unreferenced += chart_scaling_unreferenced(s, first);
		fprintf(data, "\n\n"); /* gnuplot's index: one block a series */
	}
	/* points ran, but not one that each is measured against */
	if (!drawn && unreferenced) {
		if (dp)
			snprintf(why, len, "no efficiency has a reference: the points at dp=%s (the "
					   "first dp) failed", first);
		else
			snprintf(why, len, "no efficiency has a reference: the points at %s node%s "
					   "(the first node count) failed", first,
				 strcmp(first, "1") ? "s" : "");
		return -EDOM;
	}
	if (!drawn)
		return -ENODATA;
	put_scaling_axes(gp, dp, threshold);
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
		put_short(gp, json_string_value(v) ? json_string_value(v) : "");
		fprintf(gp, " %zu", i);
	}
	fprintf(gp, ")\n");
}

/* The heat map's title, with the values of the other axes it holds (the
 * JSON's "fixed"), where the grid leaves their other values out. */
static void put_speedup_title(FILE *gp, json_t *fixed)
{
	char title[512];
	const char *axis;
	size_t at, n = 0;
	json_t *v;

	at = (size_t)snprintf(title, sizeof(title), "GPUDirect RDMA speedup: iteration time staged / direct");
	json_object_foreach(fixed, axis, v) {
		int k = snprintf(title + at, sizeof(title) - at, "%s%s=%s", n++ ? " " : " at ", axis,
				 json_string_value(v) ? json_string_value(v) : "?");

		if (k < 0 || (size_t)k >= sizeof(title) - at)
			break;
		at += (size_t)k;
	}
	put_short(gp, title); /* a trace axis's value by its file's name */
}

#define SPEEDUP_MIN_SPAN 0.1 /* the colour scale's least reach either side of 1 */

/*
 * Staged over direct on the grid, each cell labelled with its value.
 * The colours diverge from 1.0 (white: the paths alike; red: direct
 * faster; blue: direct slower) over 1 +- the farthest cell, at least
 * SPEEDUP_MIN_SPAN: an auto range from 1.0006 to 1.0022 painted a 0.2%
 * speedup full red. Each cell with a value is a box of its own filled
 * from the palette: a shape, crisp at any size, not one bitmap that a
 * browser blurs when it scales the SVG. Not gnuplot's image ("with image
 * pixels") either, which paints a whole grid of 2 x 2 cells or more and
 * nothing else: a grid of one row or one column, or one missing cell (a
 * failed point, one in a node) whose row and column have others, lost
 * every colour and kept only the labels, exit 0.
 */
static int write_speedup(FILE *data, FILE *gp, const char *data_path, json_t *q)
{
	json_t *rows = json_object_get(q, "row_values"), *cols = json_object_get(q, "column_values");
	json_t *grid = json_object_get(q, "iteration"), *row;
	double reach = SPEEDUP_MIN_SPAN;
	size_t r, c;

	if (!json_is_array(rows) || !json_is_array(cols) || !json_is_array(grid) ||
	    !json_is_string(json_object_get(q, "rows")) || !json_is_string(json_object_get(q, "columns")))
		return -EINVAL;
	json_array_foreach(grid, r, row) {
		json_t *x;

		if (!json_is_array(row))
			return -EINVAL;
		json_array_foreach(row, c, x) {
			if (!json_is_number(x))
				continue;
			fprintf(data, "%zu %zu %.6f\n", c, r, json_number_value(x));
			reach = fmax(reach, fabs(json_number_value(x) - 1));
		}
	}
	fprintf(gp, "set title ");
	put_speedup_title(gp, json_object_get(q, "fixed"));
	fprintf(gp, "\nset xlabel ");
	put_quoted(gp, json_string_value(json_object_get(q, "columns")));
	fprintf(gp, "\nset ylabel ");
	put_quoted(gp, json_string_value(json_object_get(q, "rows")));
	fprintf(gp, "\n");
	put_tics(gp, "x", cols);
	put_tics(gp, "y", rows);
	fprintf(gp, "set cblabel 'speedup (1: the paths alike)'\n"
		    "set palette defined (0 '#2166ac', 0.5 '#f7f7f7', 1 '#b2182b')\n"
		    "set cbrange [%.6f:%.6f]\n"
		    "set xrange [-0.5:%zu.5]\nset yrange [-0.5:%zu.5]\n"
		    "plot '%s' using 1:2:(0.5):(0.5):3 with boxxyerror fillcolor palette "
		    "fillstyle solid 1.0 noborder notitle, "
		    "'' using 1:2:(sprintf('%%.3fx', $3)) with labels notitle\n",
		1 - reach, 1 + reach, json_array_size(cols) - 1, json_array_size(rows) - 1, data_path);
	return 0;
}

/* Exposed communication against the NIC axis: a line a series, the
 * share asked for dashed. */
static int write_nic_speed(FILE *data, FILE *gp, const char *data_path, json_t *q)
{
	json_t *values = json_object_get(q, "values"), *series = json_object_get(q, "series"), *s, *e;
	double share = json_number_value(json_object_get(q, "exposed_share"));
	double lo = INFINITY, hi = 0, bottom = 0;
	size_t i, k, drawn = 0, zeros = 0;
	bool log;

	if (!json_is_array(values) || !json_is_array(series) || !json_array_size(series) ||
	    !json_is_string(json_object_get(q, "axis")))
		return -EINVAL;
	json_array_foreach(series, i, s) {
		json_t *ex = json_object_get(s, "exposed");

		if (!json_is_array(ex) || !json_is_string(json_object_get(s, "series")))
			return -EINVAL;
		json_array_foreach(ex, k, e) {
			double v = 100 * json_number_value(e);

			if (!json_is_number(e))
				continue;
			drawn++;
			zeros += !(v > 0);
			lo = v > 0 && v < lo ? v : lo;
			hi = v > hi ? v : hi;
		}
	}
	if (!drawn)
		return -ENODATA; /* gnuplot draws no plot of undefined values */
	/* shares over decades (a slow NIC's 20%, a fast one's 0.1%): log
	 * scale, or the small ones, where the question is, lie on the axis;
	 * not when 0 is asked for, which a log scale cannot show. A share of
	 * 0 (all of it hidden: often the answer) stands at the axis's
	 * bottom, a decade under the least share and the one asked for,
	 * labelled 0: gnuplot dropped it, and the line stopped above the
	 * dashed share as if no value hid the communication */
	log = share > 0 && hi > 20 * lo;
	if (log)
		bottom = pow(10, floor(log10(fmin(lo, 100 * share)))) / 10;
	json_array_foreach(series, i, s) {
		json_array_foreach(json_object_get(s, "exposed"), k, e) {
			double v = 100 * json_number_value(e);

			/* gnuplot's undefined value, as for scaling: an empty
			 * block would give the next series' line this title */
			if (!json_is_number(e))
				fprintf(data, "%zu NaN\n", k);
			else
				fprintf(data, "%zu %.6g\n", k, log && !(v > 0) ? bottom : v);
		}
		fprintf(data, "\n\n");
	}
	if (log)
		fprintf(gp, "set logscale y 10\n");
	if (log && zeros)
		fprintf(gp, "set yrange [%g:*]\nset ytics add ('0' %g)\n", bottom, bottom);
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

bool chart_cost_has_tokens(json_t *cost)
{
	return json_object_get(json_array_get(cost, 0), "per_million_tokens") != NULL;
}

/*
 * Per point, its stage busy times side by side (breakdown), or one bar
 * of its cost: a million tokens' where the plan says how many an
 * iteration has, the answer the report and the table lead with (an
 * iteration of 64 nodes costs 16 of 4 nodes' and trains 16 times the
 * tokens: its bar stood 16 times as high over the same cost a token),
 * else an iteration's; the points' labels from the document. Not
 * stacked: a connection's stages overlap when pipelined (each busy the
 * whole transfer at once), so their sum is no time the point took; a
 * staged all-reduce's five stages of 27 ms each stood 134 ms high over
 * its 27 ms of communication, beside direct's three at 80 ms.
 */
static int write_bars(FILE *data, FILE *gp, const char *data_path, json_t *doc, json_t *q,
		      bool cost)
{
	static const char *const stages[] = { "intra_node", "copy_to_host", "nic_read",
					      "wire", "nic_write", "copy_to_gpu" };
	json_t *points = json_object_get(doc, "points"), *x;
	size_t i, nstages = sizeof(stages) / sizeof(stages[0]);
	bool numbered = false, tokens = cost && chart_cost_has_tokens(q);
	const char *key = !cost ? stages[0] : tokens ? "per_million_tokens" : "per_iteration";
	char shown[512];

	if (!json_is_array(points) || !json_is_array(q) || json_array_size(points) != json_array_size(q) ||
	    !json_array_size(q))
		return -EINVAL;
	/* labels too long to stand under a bar: the points' numbers */
	json_array_foreach(points, i, x) {
		const char *label = json_string_value(json_object_get(x, "point"));

		chart_short_label(label ? label : "", shown, sizeof(shown));
		numbered |= strlen(shown) > BAR_LABEL_MAX;
	}
	json_array_foreach(q, i, x) {
		const char *label = json_string_value(json_object_get(json_array_get(points, i), "point"));

		if (!label || !json_is_object(x))
			return -EINVAL;
		/* a failed point's values are null: no bar, the page says why */
		if (!json_is_number(json_object_get(x, key)))
			continue;
		chart_short_label(label, shown, sizeof(shown));
		if (numbered)
			snprintf(shown, sizeof(shown), "%zu", i + 1);
		put_data_string(data, shown);
		if (cost)
			fprintf(data, " %.9g", json_number_value(json_object_get(x, key)));
		for (size_t k = 0; !cost && k < nstages; k++) {
			json_t *v = json_object_get(x, stages[k]);

			fprintf(data, " %.3f", json_is_number(v) ? json_number_value(v) : 0);
		}
		fputc('\n', data);
	}
	fprintf(gp, "set title '%s'\nset style data histograms\nset style fill solid 0.8 border -1\n"
		    "set boxwidth 0.8\nset xtics rotate by -60 font ',8'\nset key outside right\n"
		    "set grid ytics\nset ylabel '%s'\nset format y '%%g'\n%s",
		tokens ? "Cost of a million tokens" : cost ? "Cost of an iteration" :
		       "Stage busy time of the bottleneck connections (stages overlap: not a sum)",
		tokens ? "cost a million tokens" : cost ? "cost an iteration" : "us an iteration",
		numbered ? "set xlabel 'point, by its number in the table'\n" : "");
	if (cost) {
		/* from 0, as bars are read: an automatic range from 0.2371
		 * to 0.2374 drew a 0.1% difference ten times as high */
		fprintf(gp, "set yrange [0:*]\nplot '%s' using 2:xtic(1) notitle\n", data_path);
		return 0;
	}
	fprintf(gp, "set style histogram clustered gap 1\nset yrange [0:*]\nplot ");
	for (size_t k = 0; k < nstages; k++)
		fprintf(gp, "%s'%s' using %zu%s title '%s'", k ? ", " : "", data_path, k + 2,
			k ? "" : ":xtic(1)", stages[k]);
	fputc('\n', gp);
	return 0;
}

/* gnuplot's stderr in @s, cut to its first complaint: it echoes the
 * script's line and a caret first ("\n  plot ...\n  ^\n"), then
 * '"plot.gp" line 7: all points y value undefined!'. */
static void first_complaint(char *s)
{
	char *line = s, *pick = NULL;

	while (*line) {
		size_t n = strcspn(line, "\n");
		bool last = !line[n];

		line[n] = '\0';
		if (strstr(line, " line ") && strchr(line, ':')) {
			pick = line;
			break;
		}
		if (!pick && line[strspn(line, " \t^")])
			pick = line;
		if (last)
			break;
		line += n + 1;
	}
	if (!pick)
		s[0] = '\0';
	else
		memmove(s, pick + strspn(pick, " \t"), strlen(pick + strspn(pick, " \t")) + 1);
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
	close(pipefd[0]);
	first_complaint(why);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return -ENOENT;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -EIO;
}


size_t chart_runs(json_t *doc, json_t *runs[3])
{
	static const char *const paths[] = { "direct", "staged", "staged_memcpy" };
	size_t n = 0;

	if (json_is_array(json_object_get(doc, "collectives"))) {
		runs[0] = doc;
		return 1;
	}
	for (size_t i = 0; i < 3; i++) {
		json_t *r = json_object_get(doc, paths[i]);

		if (json_is_object(r) && json_is_array(json_object_get(r, "collectives")))
			runs[n++] = r;
	}
	return n;
}

static const char *run_path(json_t *run)
{
	const char *p = json_string_value(json_object_get(run, "path"));

	return p ? p : "?";
}

double chart_comm_busy(json_t *run)
{
	json_t *busy = json_object_get(run, "comm_busy_us");
	double comm = json_number_value(json_object_get(run, "comm_time_us"));
	double iter = json_number_value(json_object_get(run, "iteration_time_us"));

	if (json_is_number(busy))
		return json_number_value(busy);
	/* a file from before comm_busy_us: the sum is the span where calls
	 * ran one at a time, and never more than the iteration */
	return comm < iter ? comm : iter;
}

/*
 * Per path, its communication in flight as two stacked bars: the part
 * hidden behind compute and the part exposed (what the iteration waits
 * for). In flight, not summed: where communicators run at once the sum
 * of durations exceeds the iteration, and sum less exposed was "hidden"
 * time the iteration never had. Each bar's label gives its iteration.
 */
static int write_paths(FILE *data, FILE *gp, const char *data_path, json_t *doc)
{
	json_t *runs[3];
	size_t n = chart_runs(doc, runs);

	if (!n)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		json_t *it = json_object_get(runs[i], "iteration_time_us");
		json_t *ex = json_object_get(runs[i], "exposed_comm_us");
		double busy = chart_comm_busy(runs[i]), exposed = json_number_value(ex);

		if (!json_is_number(json_object_get(runs[i], "comm_time_us")) || !json_is_number(ex) ||
		    !json_is_number(it))
			return -EINVAL;
		/* exposed is within the span in flight; an edited file's not */
		exposed = exposed < busy ? exposed : busy;
		/* the path, and under it (gnuplot's \\n in a data string) its
		 * iteration, what the bar is to be read against */
		fputc('"', data);
		put_data_chars(data, run_path(runs[i]));
		fprintf(data, "\\n(iteration %.4g ms)\" %.6f %.6f\n", json_number_value(it) / 1e3,
			(busy - exposed) / 1e3, exposed / 1e3);
	}
	fprintf(gp, "set title 'Communication in flight an iteration, per path (calls at once counted once)'\n"
		    "set style data histograms\n"
		    "set style histogram rowstacked\nset style fill solid 0.8 border -1\n"
		    "set boxwidth 0.6\nset key outside right\nset grid ytics\n"
		    "set bmargin 4\nset xtics font ',9'\n"
		    "set ylabel 'ms an iteration'\nset yrange [0:*]\n"
		    "plot '%s' using 2:xtic(1) title 'hidden behind compute', "
		    "'' using 3 title 'exposed: the iteration waits'\n",
		    data_path);
	return 0;
}

/* Each collective of the first iteration, in trace order, a line per
 * path; lines alone past a few hundred points, where marks would hide
 * them. */
static int write_collectives(FILE *data, FILE *gp, const char *data_path, json_t *doc,
			     char *why, size_t len)
{
	json_t *runs[3], *c;
	size_t n = chart_runs(doc, runs), most = 0, drawn = 0, k;

	if (!n)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		size_t x = 0;

		json_array_foreach(json_object_get(runs[i], "collectives"), k, c) {
			json_t *t = json_object_get(c, "time_us");

			if (json_integer_value(json_object_get(c, "iteration")) != 0)
				continue;
			if (!json_is_number(t))
				return -EINVAL;
			x++;
			/* a log scale has no 0: a collective of one rank
			 * moves nothing, and is left out */
			if (json_number_value(t) > 0) {
				fprintf(data, "%zu %.6f\n", x, json_number_value(t));
				drawn++;
			}
		}
		most = x > most ? x : most;
		fprintf(data, "\n\n");
	}
	if (!most)
		return -EINVAL;
	if (!drawn) {
		snprintf(why, len, "every collective took 0 us (one rank each: nothing moves), "
			 "which a log scale cannot show");
		return -EDOM;
	}
	fprintf(gp, "set title 'Each collective of the first iteration'\n"
		    "set xlabel 'collective, in trace order'\nset ylabel 'us'\n"
		    "set logscale y 10\nset key outside right\nset grid\nset xrange [0.5:%zu.5]\nplot ",
		most);
	for (size_t i = 0; i < n; i++) {
		fprintf(gp, "%s'%s' index %zu using 1:2 with %s title ", i ? ", " : "", data_path, i,
			most > 300 ? "lines" : "linespoints");
		put_quoted(gp, run_path(runs[i]));
	}
	fputc('\n', gp);
	return 0;
}

/* busbw --json's rows, or validate --nccl-tests --json's sizes: the
 * curves' points, and whether they are validate's (measured too). */
static json_t *busbw_points(json_t *doc, bool *measured)
{
	json_t *rows = json_object_get(doc, "rows"), *sizes = json_object_get(doc, "sizes");

	*measured = !json_is_array(rows) && json_is_array(sizes) &&
		    json_object_get(doc, "nccl_tests_file");
	if (json_is_array(rows) && json_object_get(doc, "test"))
		return rows;
	return *measured ? sizes : NULL;
}

/*
 * Bus bandwidth against size, as nccl-tests' curves are read: busbw's
 * predicted curve, or validate's measured one beside the prediction.
 * Sizes of no busbw (0 bytes, one rank) are left out; the size axis is
 * log 2 with byte tics.
 */
static int write_busbw(FILE *data, FILE *gp, const char *data_path, json_t *doc, char *why,
		       size_t len)
{
	static const char *const keys[2][2] = { { "busbw_gbps", NULL },
						{ "measured_busbw_gbps", "predicted_busbw_gbps" } };
	bool measured;
	json_t *pts = busbw_points(doc, &measured), *p;
	unsigned ncurves = measured ? 2 : 1;
	size_t i, drawn = 0;

	if (!pts)
		return -EINVAL;
	for (unsigned c = 0; c < ncurves; c++) {
		json_array_foreach(pts, i, p) {
			json_t *size = json_object_get(p, "size"), *bw = json_object_get(p, keys[measured][c]);

			if (!json_is_integer(size) || (bw && !json_is_null(bw) && !json_is_number(bw)))
				return -EINVAL;
			if (json_integer_value(size) <= 0 || !json_is_number(bw) ||
			    json_number_value(bw) <= 0)
				continue;
			fprintf(data, "%lld %.6f\n", (long long)json_integer_value(size),
				json_number_value(bw));
			drawn++;
		}
		fprintf(data, "\n\n");
	}
	if (!drawn) {
		snprintf(why, len, "no size has a bus bandwidth above 0 (one rank, or 0-byte rows), "
			 "which a log scale cannot show");
		return -EDOM;
	}
	fprintf(gp, "set title ");
	put_quoted(gp, measured ? "nccl-tests bus bandwidth: measured and predicted" :
				  "nccl-tests bus bandwidth, predicted");
	fprintf(gp, "\nset xlabel 'size (bytes)'\nset ylabel 'busbw (GB/s)'\n"
		    "set logscale x 2\nset logscale y 10\nset format x '%%.0b %%BB'\n"
		    "set key outside right\nset grid\nplot ");
	for (unsigned c = 0; c < ncurves; c++) {
		fprintf(gp, "%s'%s' index %u using 1:2 with linespoints title ", c ? ", " : "", data_path,
			c);
		put_quoted(gp, measured ? (c ? "predicted" : "measured") :
					  json_string_value(json_object_get(doc, "topology")) ?
					  json_string_value(json_object_get(doc, "topology")) : "predicted");
	}
	fputc('\n', gp);
	return 0;
}

static json_t *question_of(enum chart_kind k, json_t *doc)
{
	if (!chart_kinds[k].question)
		return NULL;
	return json_object_get(json_object_get(doc, "questions"), chart_kinds[k].question);
}

int chart_has_data(enum chart_kind k, json_t *doc)
{
	json_t *runs[3];
	bool measured;

	if (k == CHART_BUSBW)
		return busbw_points(doc, &measured) != NULL;
	return chart_kinds[k].question ? question_of(k, doc) != NULL : chart_runs(doc, runs) > 0;
}

size_t chart_series(enum chart_kind k, json_t *doc)
{
	static const size_t stages = 6; /* write_bars' */
	json_t *runs[3];

	switch (k) {
	case CHART_SCALING:
	case CHART_NIC_SPEED:
		return json_array_size(json_object_get(question_of(k, doc), "series"));
	case CHART_BREAKDOWN: return stages;
	case CHART_SPEEDUP: return 2; /* the cells and their labels */
	case CHART_PATHS: return 2;
	case CHART_COLLECTIVES: return chart_runs(doc, runs);
	case CHART_BUSBW: {
		bool measured;

		return busbw_points(doc, &measured) ? 1 + measured : 0;
	}
	default: return 1;
	}
}

static int write_chart(enum chart_kind k, FILE *data, FILE *gp, const char *data_path,
		       json_t *doc, char *why, size_t len)
{
	json_t *q = question_of(k, doc);

	if (chart_kinds[k].question && !q)
		return -EINVAL;
	switch (k) {
	case CHART_SCALING: return write_scaling(data, gp, data_path, q, why, len);
	case CHART_SPEEDUP: return write_speedup(data, gp, data_path, q);
	case CHART_NIC_SPEED: return write_nic_speed(data, gp, data_path, q);
	case CHART_BREAKDOWN: return write_bars(data, gp, data_path, doc, q, false);
	case CHART_COST: return write_bars(data, gp, data_path, doc, q, true);
	case CHART_PATHS: return write_paths(data, gp, data_path, doc);
	case CHART_BUSBW: return write_busbw(data, gp, data_path, doc, why, len);
	default: return write_collectives(data, gp, data_path, doc, why, len);
	}
}

/* Whether @data holds a value, not only gnuplot's block separators. */
static bool has_data(FILE *data)
{
	int c;

	if (fflush(data) || fseek(data, 0, SEEK_SET))
		return true; /* let gnuplot find out */
	while ((c = fgetc(data)) != EOF)
		if (c != '\n')
			return true;
	return false;
}

int chart_write(enum chart_kind k, json_t *doc, FILE *data, FILE *gp, const char *data_path,
		char *why, size_t len)
{
	int err;

	why[0] = '\0';
	err = write_chart(k, data, gp, data_path, doc, why, len);
	if (!err && !has_data(data))
		err = -ENODATA;
	return err;
}

int chart_draw(enum chart_kind k, json_t *doc, const char *out_path, bool svg, char *why,
	       size_t len)
{
	char dir[] = "/tmp/gdrlab-chart-XXXXXX", data_path[64], script[64];
	FILE *data, *gp;
	int err;

	why[0] = '\0';
	if (!mkdtemp(dir)) {
		snprintf(why, len, "cannot make a scratch folder: %s", strerror(errno));
		return -errno;
	}
	snprintf(data_path, sizeof(data_path), "%s/data", dir);
	snprintf(script, sizeof(script), "%s/plot.gp", dir);
	data = fopen(data_path, "w+");
	gp = fopen(script, "w");
	if (!data || !gp) {
		snprintf(why, len, "cannot write the scratch files in %s", dir);
		err = -EIO;
		goto out;
	}
	fprintf(gp, "set terminal %s\nset output ",
		svg ? "svg size 900,540 dynamic noenhanced font 'sans,11' background rgb 'white'"
		    : "pngcairo size 900,540 noenhanced font 'sans,10'");
	put_quoted(gp, out_path);
	fputc('\n', gp);
	err = chart_write(k, doc, data, gp, data_path, why, len);
	if (err)
		goto out;
	fprintf(gp, "unset output\n");
	err = fclose(data) | fclose(gp) ? -EIO : 0;
	data = gp = NULL;
	if (err)
		snprintf(why, len, "cannot write the scratch files in %s", dir);
	else
		err = run_gnuplot(script, why, len);
out:
	if (data)
		fclose(data);
	if (gp)
		fclose(gp);
	unlink(data_path);
	unlink(script);
	rmdir(dir);
	return err;
}
