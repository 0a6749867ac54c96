/* SPDX-License-Identifier: MIT */
/*
 * gdrlab report's sections for a sweep (report_page.h): what the plan
 * asks, each question's answer in a sentence, its chart and its table,
 * every point, the failed ones with their errors, and the node.
 */
#include <math.h>
#include <string.h>

#include "report_html.h"
#include "report_page.h"

#define MAX_NODES_DRAWN 6 /* distinct topology files drawn */

static json_t *points_of(json_t *doc)
{
	return json_is_array(doc) ? doc : json_object_get(doc, "points");
}

/* A point's communication in flight, calls at once counted once (a
 * multi-communicator trace's sum of calls can exceed its iteration); a
 * sweep's JSON from before the key: the sum. */
static json_t *in_flight(json_t *pt)
{
	json_t *busy = json_object_get(pt, "comm_busy_us");

	return busy ? busy : json_object_get(pt, "comm_time_us");
}

static const char *str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

static size_t failed_points(json_t *doc)
{
	json_t *pt;
	size_t n = 0, i;

	json_array_foreach(points_of(doc), i, pt)
		n += json_is_string(json_object_get(pt, "error"));
	return n;
}

/* Under a chart: the points missing from it and why. */
static void failed_note(FILE *f, json_t *doc)
{
	size_t n = failed_points(doc), shown = 0, i;
	char list[1536] = "";
	json_t *pt;

	if (!n)
		return;
	json_array_foreach(points_of(doc), i, pt) {
		if (!json_is_string(json_object_get(pt, "error")) || shown++ == 3)
			continue;
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "\n%s: %s", str(pt, "point"),
			 str(pt, "error"));
	}
	html_error(f, "%zu of %zu points failed and are missing from this answer:%s%s", n,
		   json_array_size(points_of(doc)), list, n > 3 ? "\n(the others: Points, below)" : "");
}

#define MAX_VALUES_NAMED 4

/* A row of what the points ran with: @key's values, each once, in the
 * points' order; "varies" beyond a few. */
static bool ran_row(FILE *f, json_t *pts, const char *key, const char *label, bool head)
{
	const char *seen[MAX_VALUES_NAMED];
	size_t n = 0, more = 0, i;
	json_t *pt;

	json_array_foreach(pts, i, pt) {
		const char *v = json_string_value(json_object_get(pt, key));
		size_t k;

		for (k = 0; v && k < n && strcmp(seen[k], v); k++)
			;
		if (!v || !*v || k < n)
			continue;
		if (n == MAX_VALUES_NAMED)
			more++;
		else
			seen[n++] = v;
	}
	if (!n)
		return false;
	fputs(head ? "<table class=\"setup\"><tr>" : "<tr>", f);
	html_cell(f, "th", "%s", label);
	fputs("<td>", f);
	for (size_t k = 0; k < n; k++)
		html_printf(f, "%s%s", k ? ", " : "", seen[k]);
	if (more)
		html_printf(f, " and %zu more (each point's in the results)", more);
	fputs("</td></tr>\n", f);
	return true;
}

/* What the points ran: every point carries its backend, NCCL release,
 * GDR level, trace and topology, which the page names as a run's does;
 * a generated point its trace's gen llm command instead of a file (its
 * trace_file is "", which drew an empty "trace" row). */
static void ran_table(FILE *f, json_t *doc)
{
	static const struct {
		const char *label, *key;
	} rows[] = {
		{ "backend", "backend" }, { "NCCL", "nccl" }, { "GDR level", "gdr_level" },
		{ "trace", "trace_file" }, { "trace made by", "gen" },
		{ "topology", "topology_file" },
	};
	size_t shown = 0;

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		shown += ran_row(f, points_of(doc), rows[i].key, rows[i].label, !shown);
	if (shown)
		fputs("</table>\n", f);
}

static void lead(FILE *f, json_t *doc)
{
	json_t *plan = json_object_get(doc, "plan"), *q = json_object_get(doc, "questions"), *ax;
	static const struct {
		const char *key, *text;
	} asks[] = {
		{ "scaling", "how the iteration scales with nodes" },
		{ "gdr_speedup", "what GPUDirect RDMA buys" },
		{ "nic_speed", "which NIC speed hides the communication" },
		{ "breakdown_us", "where the bottleneck transfer spends its time" },
		{ "cost", "what an iteration costs" },
	};
	size_t i, asked = 0;
	/* cost() answers per million tokens where the plan gives them */
	bool tokens = chart_cost_has_tokens(json_object_get(q, "cost"));
	/* scaling along a generator's gen.dp, not nodes */
	bool dp;

	chart_scaling_values(json_object_get(q, "scaling"), &dp);

	fputs("<p class=\"lead\">", f);
	html_printf(f, "%zu points", json_array_size(points_of(doc)));
	if (plan)
		html_printf(f, " of the plan %s", str(plan, "file"));
	for (i = 0; i < sizeof(asks) / sizeof(asks[0]); i++)
		if (json_object_get(q, asks[i].key))
			html_printf(f, "%s%s", asked++ ? "; " : ", asking ",
				    tokens && !strcmp(asks[i].key, "cost") ?
					    "what a million tokens cost" :
				    !strcmp(asks[i].key, "scaling") && dp ?
					    "how the job scales with its data-parallel replicas" :
					    asks[i].text);
	fputs(".</p>\n", f);
	ran_table(f, doc);
	if (!json_array_size(json_object_get(plan, "axes")))
		return;
	fputs("<table class=\"axes\"><tr><th>axis</th><th>values</th></tr>\n", f);
	json_array_foreach(json_object_get(plan, "axes"), i, ax) {
		json_t *v;
		size_t k;

		fputs("<tr>", f);
		html_cell(f, "th", "%s", str(ax, "axis"));
		fputs("<td>", f);
		json_array_foreach(json_object_get(ax, "values"), k, v)
			html_printf(f, "%s%s", k ? ", " : "", json_string_value(v));
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* A table of series (rows) over values (columns); cells from each
 * series' array @key, scaled. */
static void series_table(FILE *f, const char *corner, json_t *columns, json_t *series,
			 const char *key, double scale)
{
	json_t *c, *s;
	size_t i, k;
	char buf[32];

	fputs("<table><tr>", f);
	html_cell(f, "th", "%s", corner);
	json_array_foreach(columns, i, c)
		html_cell(f, "th", "%s", json_string_value(c));
	fputs("</tr>\n", f);
	json_array_foreach(series, i, s) {
		fputs("<tr>", f);
		html_cell(f, "th", "%s", str(s, "series"));
		json_array_foreach(json_object_get(s, key), k, c)
			fprintf(f, "<td class=\"num\">%s</td>", report_num(c, scale, buf, sizeof(buf)));
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* Scaling series @s's point at value @k of @values as the answer names
 * it: "4 nodes", or along gen.dp (@dp) "dp=4 (4 nodes)", its own nodes
 * (a replica is tp x cp x pp ranks, which dp alone does not say). */
static const char *scaling_at(char *buf, size_t len, bool dp, json_t *values, json_t *s, size_t k)
{
	const char *v = json_string_value(json_array_get(values, k));
	json_t *n = json_array_get(json_object_get(s, "nodes"), k);

	if (!dp)
		snprintf(buf, len, "%s node%s", v ? v : "?", v && !strcmp(v, "1") ? "" : "s");
	else if (json_is_integer(n))
		snprintf(buf, len, "dp=%s (%lld node%s)", v ? v : "?", json_integer_value(n),
			 json_integer_value(n) == 1 ? "" : "s");
	else
		snprintf(buf, len, "dp=%s", v ? v : "?");
	return buf;
}

/* The index of @s among @values, or the array's size. */
static size_t value_index(json_t *values, const char *s)
{
	json_t *v;
	size_t i;

	json_array_foreach(values, i, v)
		if (s && json_string_value(v) && !strcmp(json_string_value(v), s))
			return i;
	return json_array_size(values);
}

/* Scaling series @s's answer in a sentence, an item of the list. */
static void scaling_item(struct report_page *p, json_t *q, json_t *s, bool dp, json_t *values)
{
	double t = json_number_value(json_object_get(q, "threshold"));
	const char *below = json_string_value(json_object_get(s, "below_from"));
	const char *first = json_string_value(json_array_get(values, 0));
	size_t k, failed = 0, last = 0;
	char at[128];
	json_t *e;

	json_array_foreach(json_object_get(s, "efficiency"), k, e) {
		failed += !json_is_number(e);
		last = json_is_number(e) ? k : last;
	}
	fputs("<li>", p->f);
	if (below)
		html_printf(p->f, "%s: below %.3g from %s", str(s, "series"), t,
			    scaling_at(at, sizeof(at), dp, values, s, value_index(values, below)));
	else if (chart_scaling_unreferenced(s, first))
		html_printf(p->f, "%s: no reference for its efficiencies: its point at %s "
				  "(the first %s) failed", str(s, "series"),
			    scaling_at(at, sizeof(at), dp, values, s, 0), dp ? "dp" : "node count");
	else if (failed == json_array_size(json_object_get(s, "efficiency")))
		html_printf(p->f, "%s: no answer, its points failed", str(s, "series"));
	else
		html_printf(p->f, "%s: at or above %.3g through %s%s", str(s, "series"), t,
			    scaling_at(at, sizeof(at), dp, values, s, last),
			    failed ? " (where its points ran)" : "");
	if (json_is_string(json_object_get(s, "idle_from")) && dp)
		html_printf(p->f, "; at dp=%s the job's %lld ranks leave GPUs of its nodes idle: its "
				  "tokens a second a GPU count them", str(s, "idle_from"),
			    json_integer_value(json_object_get(s, "trace_ranks")));
	else if (json_is_string(json_object_get(s, "idle_from")))
		html_printf(p->f, "; from %s node%s the trace's %lld ranks leave GPUs idle: "
				  "not its job scaled", str(s, "idle_from"),
			    strcmp(str(s, "idle_from"), "1") ? "s" : "",
			    json_integer_value(json_object_get(s, "trace_ranks")));
	fputs("</li>\n", p->f);
}

/* Along nodes, the iteration's ratio; along a generated job's gen.dp,
 * its tokens a second a GPU's, with each point's nodes and rate. */
static void scaling(struct report_page *p, json_t *q)
{
	bool dp;
	json_t *values = chart_scaling_values(q, &dp), *series = json_object_get(q, "series"), *s;
	size_t i;

	fputs("<h2 id=\"scaling\">Scaling efficiency</h2>\n<ul class=\"answer\">\n", p->f);
	json_array_foreach(series, i, s)
		scaling_item(p, q, s, dp, values);
	fputs("</ul>\n", p->f);
	report_chart(p, CHART_SCALING, dp ? "Efficiency: tokens a second a GPU at each data-parallel "
					    "width over that at the plan's first (weak scaling: each "
					    "replica its batch, the nodes growing with the replicas); "
					    "the threshold dashed." :
					    "Efficiency: the iteration at the plan's first node count over the "
					    "iteration at each count (weak scaling: the same work a GPU); "
					    "the threshold dashed.");
	failed_note(p->f, p->doc);
	series_table(p->f, dp ? "efficiency (dp)" : "efficiency", values, series, "efficiency", 1);
	if (!dp)
		return;
	series_table(p->f, "nodes", values, series, "nodes", 1);
	series_table(p->f, "tokens/s a GPU", values, series, "tokens_per_s_per_gpu", 1);
}

/* The values of the plan's other axes that the grid holds (the JSON's
 * "fixed"), where it leaves some out: the answer is theirs alone. */
static void speedup_fixed(FILE *f, json_t *q)
{
	json_t *fixed = json_object_get(q, "fixed"), *v;
	const char *axis;
	size_t n = 0;

	if (!json_object_size(fixed))
		return;
	fputs("<p class=\"answer\">", f);
	json_object_foreach(fixed, axis, v)
		html_printf(f, "%s%s=%s", n++ ? ", " : "This grid holds only ", axis,
			    json_string_value(v) ? json_string_value(v) : "?");
	html_printf(f, ", the plan's first value%s; the others are not in it.", n > 1 ? "s" : "");
	fputs("</p>\n", f);
}

/* The grid's extremes: which cell GPUDirect pays most and least in. */
static void speedup(struct report_page *p, json_t *q)
{
	json_t *grid = json_object_get(q, "iteration"), *row, *x;
	json_t *rv = json_object_get(q, "row_values"), *cv = json_object_get(q, "column_values");
	json_t *no = json_object_get(q, "no_value"); /* a null cell's reason */
	bool never = false, inside = false;
	double lo = INFINITY, hi = -INFINITY;
	size_t r, c, lr = 0, lc = 0, hr = 0, hc = 0;
	char buf[32];

	json_array_foreach(grid, r, row)
		json_array_foreach(row, c, x) {
			double v = json_number_value(x);

			if (!json_is_number(x))
				continue;
			if (v < lo)
				lo = v, lr = r, lc = c;
			if (v > hi)
				hi = v, hr = r, hc = c;
		}
	fputs("<h2 id=\"gdr-speedup\">What GPUDirect RDMA buys</h2>\n", p->f);
	if (isfinite(lo)) {
		fputs("<p class=\"answer\">", p->f);
		/* the heat map's ratio, named as it is: "direct over staged"
		 * read as direct's iteration over staged's, the inverse */
		html_printf(p->f, "Staged over direct, the iteration (above 1: GPUDirect RDMA "
				  "faster): from %.3fx (%s %s, %s %s) to %.3fx (%s %s, %s %s).",
			    lo, str(q, "rows"), json_string_value(json_array_get(rv, lr)), str(q, "columns"),
			    json_string_value(json_array_get(cv, lc)), hi, str(q, "rows"),
			    json_string_value(json_array_get(rv, hr)), str(q, "columns"),
			    json_string_value(json_array_get(cv, hc)));
		fputs("</p>\n", p->f);
	}
	speedup_fixed(p->f, q);
	report_chart(p, CHART_SPEEDUP, "The staged path's iteration over the direct path's, each cell "
				       "a pair of the two axes' values.");
	failed_note(p->f, p->doc);
	fputs("<table><tr>", p->f);
	html_cell(p->f, "th", "%s \\ %s", str(q, "rows"), str(q, "columns"));
	json_array_foreach(cv, c, x)
		html_cell(p->f, "th", "%s", json_string_value(x));
	fputs("</tr>\n", p->f);
	json_array_foreach(grid, r, row) {
		fputs("<tr>", p->f);
		html_cell(p->f, "th", "%s", json_string_value(json_array_get(rv, r)));
		json_array_foreach(row, c, x) {
			const char *why = json_string_value(json_array_get(json_array_get(no, r), c));

			if (!json_is_number(x) && why)
				html_cell(p->f, "td", "%s", why);
			else
				fprintf(p->f, "<td class=\"num\">%s</td>", report_num(x, 1, buf, sizeof(buf)));
			never |= !json_is_number(x) && why && !strcmp(why, "no GDR");
			inside |= !json_is_number(x) && why && !strcmp(why, "in node");
		}
		fputs("</tr>\n", p->f);
	}
	fputs("</table>\n", p->f);
	/* as the table's notes: a cell without a value says why */
	if (never)
		fputs("<p>no GDR: the direct point fell back to host staging on every collective "
		      "that leaves its node.</p>\n", p->f);
	if (inside)
		fputs("<p>in node: no collective left its node, GPUDirect RDMA does not apply.</p>\n",
		      p->f);
}

/* Series @s's first failed value before its answer (every one where it
 * has none), or NULL: the communication may hide there too. */
static const char *nic_failed_before(json_t *q, json_t *s)
{
	json_t *values = json_object_get(q, "values");
	const char *f = json_string_value(json_array_get(json_object_get(s, "failed"), 0));
	const char *v = json_string_value(json_object_get(s, "value"));

	return f && value_index(values, f) < value_index(values, v) ? f : NULL;
}

static void nic_speed(struct report_page *p, json_t *q)
{
	double share = json_number_value(json_object_get(q, "exposed_share"));
	json_t *s;
	size_t i;

	fputs("<h2 id=\"nic-speed\">NIC speed</h2>\n<ul class=\"answer\">\n", p->f);
	json_array_foreach(json_object_get(q, "series"), i, s) {
		const char *v = json_string_value(json_object_get(s, "value"));
		const char *failed = nic_failed_before(q, s);

		fputs("<li>", p->f);
		if (v)
			html_printf(p->f, "%s: exposed communication at most %.3g%% of the iteration "
					  "from %s", str(s, "series"), 100 * share, v);
		else
			html_printf(p->f, "%s: above %.3g%% at every %s swept", str(s, "series"),
				    100 * share, str(q, "axis"));
		if (failed)
			html_printf(p->f, v ? ", or from %s, whose point failed" :
					      " where its points ran (%s failed)", failed);
		fputs("</li>\n", p->f);
	}
	fputs("</ul>\n", p->f);
	report_chart(p, CHART_NIC_SPEED, "Communication not hidden behind compute, as a share of the "
					 "iteration, against the NIC axis; the share asked for dashed.");
	failed_note(p->f, p->doc);
	series_table(p->f, "exposed (%)", json_object_get(q, "values"), json_object_get(q, "series"),
		     "exposed", 100);
}

/* One row a point: @keys of each answer. */
static void per_point_table(FILE *f, json_t *doc, json_t *q, const char *const *keys,
			    size_t nkeys)
{
	json_t *x;
	size_t i;
	char buf[32];

	fputs("<table><tr><th>#</th><th>point</th>", f);
	for (size_t k = 0; k < nkeys; k++)
		html_cell(f, "th", "%s", keys[k]);
	fputs("</tr>\n", f);
	json_array_foreach(q, i, x) {
		fprintf(f, "<tr><td class=\"num\">%zu</td>", i + 1); /* a bar's number */
		html_cell(f, "th", "%s", str(json_array_get(points_of(doc), i), "point"));
		for (size_t k = 0; k < nkeys; k++)
			fprintf(f, "<td class=\"num\">%s</td>",
				report_num(json_object_get(x, keys[k]), 1, buf, sizeof(buf)));
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

static void breakdown(struct report_page *p, json_t *q)
{
	static const char *const stages[] = { "intra_node", "copy_to_host", "nic_read",
					      "wire", "nic_write", "copy_to_gpu" };
	bool concurrent = false;
	json_t *x;
	size_t i;

	fputs("<h2 id=\"breakdown\">Where the bottleneck transfer spends its time</h2>\n", p->f);
	report_chart(p, CHART_BREAKDOWN, "Each point's stage busy times (us an iteration) on the "
					 "connections that bound its collectives, side by side: a "
					 "pipelined transfer's stages are busy at once, and add up "
					 "to no time the point took.");
	failed_note(p->f, p->doc);
	per_point_table(p->f, p->doc, q, stages, sizeof(stages) / sizeof(stages[0]));
	json_array_foreach(q, i, x)
		concurrent |= json_is_true(json_object_get(x, "concurrent"));
	if (concurrent)
		fputs("<p>Some points' calls ran at once (a tensor-, pipeline- and data-parallel "
		      "job's): each stage's time is summed over them, and can exceed the "
		      "iteration.</p>\n", p->f);
}

static void cost(struct report_page *p, json_t *q)
{
	static const char *const keys[] = { "per_iteration", "per_million_tokens" };
	json_t *prices = json_object_get(json_object_get(p->doc, "plan"), "prices"), *x;
	/* per million tokens where the plan gives them: the smallest job's
	 * iteration is the cheapest whatever it trains */
	bool tokens = chart_cost_has_tokens(q);
	const char *key = keys[tokens];
	double best = INFINITY;
	size_t i, at = 0;

	json_array_foreach(q, i, x) {
		json_t *c = json_object_get(x, key);

		if (json_is_number(c) && json_number_value(c) < best)
			best = json_number_value(c), at = i;
	}
	fputs("<h2 id=\"cost\">Cost</h2>\n", p->f);
	if (isfinite(best)) {
		double nic = json_number_value(json_object_get(prices, "nic_hour"));
		double port = json_number_value(json_object_get(prices, "switch_port_hour"));

		fputs("<p class=\"answer\">", p->f);
		html_printf(p->f, "The cheapest %s: %s, %.4g",
			    tokens ? "million tokens" : "iteration",
			    str(json_array_get(points_of(p->doc), at), "point"), best);
		if (prices)
			html_printf(p->f, " at %g a GPU-hour%s%s",
				    json_number_value(json_object_get(prices, "gpu_hour")),
				    nic > 0 ? ", its NICs' price" : "",
				    port > 0 ? ", its switch ports'" : "");
		fputs(".</p>\n", p->f);
	}
	report_chart(p, CHART_COST, tokens ? "Each point's cost a million tokens: its iterations at "
					     "its GPUs' (and NICs' and switch ports') hourly price." :
					     "Each point's iteration at its GPUs' (and NICs' and switch "
					     "ports') hourly price.");
	failed_note(p->f, p->doc);
	per_point_table(p->f, p->doc, q, keys, tokens ? 2 : 1);
}

static void points_table(FILE *f, json_t *doc)
{
	json_t *pt;
	size_t i;
	char a[32], b[32], c[32];

	fputs("<h2 id=\"points\">Points</h2>\n<table class=\"points\"><tr><th>point</th><th>nodes</th><th>GPUs</th>"
	      "<th>path used</th><th>iteration (ms)</th><th>communication in flight (ms)</th>"
	      "<th>exposed (ms)</th></tr>\n", f);
	json_array_foreach(points_of(doc), i, pt) {
		fputs("<tr>", f);
		html_cell(f, "th", "%s", str(pt, "point"));
		if (json_is_string(json_object_get(pt, "error"))) {
			fputs("<td colspan=\"6\" class=\"staged\">", f);
			html_printf(f, "failed: %s", str(pt, "error"));
			fputs("</td></tr>\n", f);
			continue;
		}
		fprintf(f, "<td class=\"num\">%lld</td><td class=\"num\">%lld</td>",
			json_integer_value(json_object_get(pt, "nodes")),
			json_integer_value(json_object_get(pt, "gpus")));
		html_cell(f, "td", "%s", str(pt, "path_used"));
		fprintf(f, "<td class=\"num\">%s</td><td class=\"num\">%s</td><td class=\"num\">%s</td></tr>\n",
			report_num(json_object_get(pt, "iteration_time_us"), 1e-3, a, sizeof(a)),
			report_num(in_flight(pt), 1e-3, b, sizeof(b)),
			report_num(json_object_get(pt, "exposed_comm_us"), 1e-3, c, sizeof(c)));
	}
	fputs("</table>\n", f);
}

/* Each topology file the points name, once (axes that override a value
 * change numbers, not the tree). */
static void nodes(struct report_page *p)
{
	json_t *pts = points_of(p->doc), *pt;
	const char *drawn[MAX_NODES_DRAWN];
	size_t n = 0, i;

	json_array_foreach(pts, i, pt) {
		const char *file = json_string_value(json_object_get(pt, "topology_file"));
		size_t k;

		for (k = 0; k < n && file && strcmp(drawn[k], file); k++)
			;
		if (!file || k < n || n == MAX_NODES_DRAWN)
			continue;
		drawn[n++] = file;
		report_node(p, file, json_string_value(json_object_get(pt, "gdr_level")), NULL);
		if (p->topology)
			break; /* --topology: one node */
	}
	if (!n)
		report_node(p, NULL, NULL, NULL);
}

void report_sweep_sections(struct report_page *p)
{
	json_t *q = json_object_get(p->doc, "questions"), *x;

	lead(p->f, p->doc);
	if ((x = json_object_get(q, "scaling")))
		scaling(p, x);
	if ((x = json_object_get(q, "gdr_speedup")))
		speedup(p, x);
	if ((x = json_object_get(q, "nic_speed")))
		nic_speed(p, x);
	if ((x = json_object_get(q, "breakdown_us")))
		breakdown(p, x);
	if ((x = json_object_get(q, "cost")))
		cost(p, x);
	points_table(p->f, p->doc);
	nodes(p);
}
