/* SPDX-License-Identifier: MIT */
/*
 * The scaling question of a sweep plan (docs/sweep-format.md, "Questions"),
 * answered from its rows: per series (every combination of the other
 * axes), the iteration at the first node count over the iteration at each
 * node count: for data parallelism with a fixed batch a GPU (weak
 * scaling), the throughput a GPU keeps; and the node count where it first
 * falls below the threshold. Over a generator's gen.dp axis instead, the
 * job scaled out by replicas: each point's tokens a second a GPU over the
 * first dp's, and the dp (and its nodes) where it first falls below.
 */
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "sweep.h"
#include "sweep_answer.h"

/* Point @i's tokens a second a GPU it runs on (a generated job's), NAN
 * where it failed or took no time. Its GPUs are its nodes' whole, those
 * its ranks leave idle too: a node is taken whole. */
static double tokens_per_s_per_gpu(const struct sweep *sw, size_t i)
{
	const struct row *r = &sw->rows[i];

	if (r->err || !(r->iteration_us > 0) || !r->gpus)
		return NAN;
	return r->tokens / (r->iteration_us * 1e-6) / r->gpus;
}

/*
 * Efficiency of point @j against the series' first, @i; NAN on an error.
 * Along nodes, a fixed batch a GPU: the first's iteration over @j's.
 * Along gen.dp, the job itself grows (tokens with dp, GPUs with its
 * ranks): the tokens a second a GPU over the first's, which is the same
 * ratio where the GPUs grow as the tokens do, and counts a point's idle
 * GPUs where its ranks do not fill its nodes.
 */
static double efficiency(const struct sweep *sw, size_t i, size_t j)
{
	const struct row *a = &sw->rows[i], *b = &sw->rows[j];

	if (sw->questions.scale_dp)
		return tokens_per_s_per_gpu(sw, j) / tokens_per_s_per_gpu(sw, i);
	if (a->err || b->err || !(b->iteration_us > 0))
		return NAN;
	return a->iteration_us / b->iteration_us;
}

/*
 * Why series @i has no efficiency at node count @v: "error" where that
 * point failed, "n/a" where it ran but the series' first (the reference)
 * failed, or it took no time.
 */
static const char *no_efficiency(const struct sweep *sw, size_t i, unsigned an, unsigned v)
{
	return sw->rows[sweep_with_value(sw, i, an, v)].err ? "error" : "n/a";
}

/* How many of series @i's points (@i its first, along axis @an) failed. */
static unsigned failed_points(const struct sweep *sw, size_t i, unsigned an)
{
	unsigned n = 0;

	for (unsigned v = 0; v < sw->axes[an].nvalues; v++)
		n += sw->rows[sweep_with_value(sw, i, an, v)].err != 0;
	return n;
}

/* Series @i's first node count (along axis @an) whose trace leaves GPUs
 * idle, a trace of fewer ranks than the point's GPUs, or -1. */
static int idle_from(const struct sweep *sw, size_t i, unsigned an)
{
	for (unsigned v = 0; v < sw->axes[an].nvalues; v++) {
		const struct row *r = &sw->rows[sweep_with_value(sw, i, an, v)];

		if (!r->err && r->ranks_used)
			return (int)v;
	}
	return -1;
}

/* The scaling axis's value @v as the answer names it: "4 nodes", or
 * "dp=4 (4 nodes)" with series @i's point's nodes there (a replica is
 * tp x cp x pp ranks, which the dp alone does not say). */
static void scale_value(const struct sweep *sw, size_t i, unsigned v, char *buf, size_t len)
{
	unsigned an = (unsigned)sw->questions.scale_axis;
	const struct row *r = &sw->rows[sweep_with_value(sw, i, an, v)];

	const char *value = sw->axes[an].values[v];

	if (!sw->questions.scale_dp)
		snprintf(buf, len, "%s node%s", value, strcmp(value, "1") ? "s" : "");
	else if (r->err)
		snprintf(buf, len, "dp=%s", value);
	else
		snprintf(buf, len, "dp=%s (%u node%s)", value, r->nodes, r->nodes == 1 ? "" : "s");
}

/* Where series @i's ranks leave GPUs idle (idle_from: its value @v):
 * along nodes a fixed job on more of them, not its job scaled; along
 * gen.dp a job whose ranks do not fill its last node, whose GPUs count
 * them all. */
static void print_scaling_idle(const struct sweep *sw, FILE *out, size_t i, unsigned v)
{
	const struct row *r = &sw->rows[sweep_with_value(sw, i, (unsigned)sw->questions.scale_axis, v)];
	const char *value = sw->axes[sw->questions.scale_axis].values[v];

	if (sw->questions.scale_dp)
		fprintf(out, "  at dp=%s the job's %u ranks leave GPUs of its %u node%s idle: its "
			     "tokens a second a GPU count all %u\n", value, r->ranks_used, r->nodes,
			r->nodes == 1 ? "" : "s", r->gpus);
	else
		fprintf(out, "  from %s node%s the trace's %u ranks leave GPUs idle: not its job scaled\n",
			value, strcmp(value, "1") ? "s" : "", r->ranks_used);
}

/* After series @i's efficiencies, on their line: where it first falls
 * below the threshold (@below, the axis's value, or -1), or why it cannot
 * say. */
static void print_scaling_verdict(const struct sweep *sw, FILE *out, size_t i, int below)
{
	unsigned an = (unsigned)sw->questions.scale_axis;
	unsigned failed = failed_points(sw, i, an);
	char value[128];

	scale_value(sw, i, below < 0 ? 0 : (unsigned)below, value, sizeof(value));
	if (below >= 0)
		fprintf(out, "  below from %s\n", value);
	else if (failed == sw->axes[an].nvalues)
		fprintf(out, "  no answer: its points failed\n");
	else if (sw->rows[i].err)
		/* the others ran, but each is measured against this one */
		fprintf(out, "  no reference: its point at %s (the first %s) failed\n", value,
			sw->questions.scale_dp ? "dp" : "node count");
	else
		fprintf(out, "  never below%s\n", failed ? " where it ran" : "");
}

/* Along gen.dp, under a series' efficiencies: each point's nodes and
 * tokens a second a GPU, what the efficiency is made of. */
static void print_scaling_dp_rows(const struct sweep *sw, FILE *out, size_t i, int w)
{
	unsigned an = (unsigned)sw->questions.scale_axis;

	fprintf(out, "%-*s", w, "  nodes");
	for (unsigned v = 0; v < sw->axes[an].nvalues; v++) {
		const struct row *r = &sw->rows[sweep_with_value(sw, i, an, v)];

		/* under the efficiencies' digits, no space at the end */
		if (r->err)
			fprintf(out, "%s %7s", v ? " " : "", "error");
		else
			fprintf(out, "%s %7u", v ? " " : "", r->nodes);
	}
	fprintf(out, "\n%-*s", w, "  tokens/s a GPU");
	for (unsigned v = 0; v < sw->axes[an].nvalues; v++) {
		double t = tokens_per_s_per_gpu(sw, sweep_with_value(sw, i, an, v));

		if (isnan(t))
			fprintf(out, "%s %7s", v ? " " : "", "error");
		else
			fprintf(out, "%s %7.1f", v ? " " : "", t);
	}
	fputc('\n', out);
}

static void print_scaling_header(const struct sweep *sw, FILE *out, int w)
{
	const struct sweep_axis *ax = &sw->axes[sw->questions.scale_axis];

	if (sw->questions.scale_dp)
		fprintf(out, "\nscaling efficiency over gen.dp (weak scaling: each replica its batch): "
			     "tokens a second a GPU at each dp over that at dp=%s (* below %.2f)\n%-*s",
			ax->values[0], sw->questions.threshold, w, "series (dp)");
	else
		fprintf(out, "\nscaling efficiency: the iteration at %s nodes over the iteration at "
			     "each (* below %.2f)\n%-*s", ax->values[0], sw->questions.threshold, w,
			"series");
	for (unsigned v = 0; v < ax->nvalues; v++)
		fprintf(out, " %8s", ax->values[v]);
	fputc('\n', out);
}

void sweep_scaling_print(const struct sweep *sw, FILE *out)
{
	unsigned an = (unsigned)sw->questions.scale_axis;
	const struct sweep_axis *ax = &sw->axes[an];
	char label[512];

	int w = sweep_series_width(sw, an, 40);

	print_scaling_header(sw, out, w);
	for (size_t i = 0; i < sw->n; i++) {
		int below = -1;

		if (sw->pts[i].axis_value[an])
			continue;
		sweep_series_label(sw, i, (int)an, -1, label, sizeof(label));
		diag_printable(label, label, sizeof(label)); /* one row a point */
		fprintf(out, "%-*s", w, label);
		for (unsigned v = 0; v < ax->nvalues; v++) {
			double e = efficiency(sw, i, sweep_with_value(sw, i, an, v));
			bool low = e < sw->questions.threshold;

			/* a cell's word under the digits, where a '*'
			 * would follow them */
			if (isnan(e))
				fprintf(out, " %7s ", no_efficiency(sw, i, an, v));
			else
				fprintf(out, " %7.3f%c", e, low ? '*' : ' ');
			if (low && below < 0)
				below = (int)v;
		}
		print_scaling_verdict(sw, out, i, below);
		if (sw->questions.scale_dp)
			print_scaling_dp_rows(sw, out, i, w);
		if (idle_from(sw, i, an) >= 0)
			print_scaling_idle(sw, out, i, (unsigned)idle_from(sw, i, an));
	}
}

/* An unsigned count as JSON, or null for a failed point's. */
static json_t *count_or_null(const struct row *r, unsigned n)
{
	return r->err ? json_null() : json_integer(n);
}

/*
 * Along gen.dp, what series @i's efficiencies are made of, set on @o:
 * each point's nodes, GPUs and tokens a second a GPU (nodes grow with
 * the replicas, by tp x cp x pp ranks each, which dp alone does not
 * say), and the nodes of the point it falls below at (@below, or -1).
 */
static void scaling_dp_json(const struct sweep *sw, size_t i, int below, json_t *o)
{
	unsigned an = (unsigned)sw->questions.scale_axis;
	json_t *nodes = json_array(), *gpus = json_array(), *rate = json_array();

	for (unsigned v = 0; v < sw->axes[an].nvalues; v++) {
		size_t j = sweep_with_value(sw, i, an, v);

		json_array_append_new(nodes, count_or_null(&sw->rows[j], sw->rows[j].nodes));
		json_array_append_new(gpus, count_or_null(&sw->rows[j], sw->rows[j].gpus));
		json_array_append_new(rate, sweep_number_or_null(tokens_per_s_per_gpu(sw, j)));
	}
	json_object_set_new(o, "below_from_nodes", below < 0 ? json_null() :
			    json_integer(sw->rows[sweep_with_value(sw, i, an, (unsigned)below)].nodes));
	json_object_set_new(o, "nodes", nodes);
	json_object_set_new(o, "gpus", gpus);
	json_object_set_new(o, "tokens_per_s_per_gpu", rate);
}

/* Series @i (its first point) of scaling's answer. */
static json_t *scaling_series_json(const struct sweep *sw, size_t i)
{
	unsigned an = (unsigned)sw->questions.scale_axis;
	const struct sweep_axis *ax = &sw->axes[an];
	json_t *eff = json_array(), *failed = json_array(), *o;
	char label[512];
	int idle = idle_from(sw, i, an), below = -1;

	sweep_series_label(sw, i, (int)an, -1, label, sizeof(label));
	for (unsigned v = 0; v < ax->nvalues; v++) {
		double e = efficiency(sw, i, sweep_with_value(sw, i, an, v));

		json_array_append_new(eff, sweep_number_or_null(e));
		if (e < sw->questions.threshold && below < 0)
			below = (int)v;
		/* a null efficiency's reason: this point, or the first */
		if (sw->rows[sweep_with_value(sw, i, an, v)].err)
			json_array_append_new(failed, json_string(ax->values[v]));
	}
	/* where the trace's ranks leave GPUs idle: not its job scaled,
	 * which the table said and the report did not */
	o = json_pack("{s:s,s:o,s:o,s:o,s:o,s:o}", "series", label, "efficiency", eff,
		      "below_from", below < 0 ? json_null() : json_string(ax->values[below]),
		      "failed", failed, "idle_from",
		      idle < 0 ? json_null() : json_string(ax->values[idle]), "trace_ranks",
		      idle < 0 ? json_null() :
				 json_integer(sw->rows[sweep_with_value(sw, i, an, (unsigned)idle)].ranks_used));
	if (sw->questions.scale_dp)
		scaling_dp_json(sw, i, below, o);
	return o;
}

/*
 * {"threshold", "nodes": [...], "series": [...]}; along gen.dp, "axis":
 * "gen.dp" and "dp": [...] in place of "nodes", whose counts are then each
 * series' own (scaling_dp_json): the readers (chart.c, report_sweep.c)
 * tell the two apart by "axis".
 */
json_t *sweep_scaling_json(const struct sweep *sw)
{
	unsigned an = (unsigned)sw->questions.scale_axis;
	const struct sweep_axis *ax = &sw->axes[an];
	json_t *o = json_object(), *values = json_array(), *series = json_array();

	for (unsigned v = 0; v < ax->nvalues; v++)
		json_array_append_new(values, json_string(ax->values[v]));
	for (size_t i = 0; i < sw->n; i++)
		if (!sw->pts[i].axis_value[an])
			json_array_append_new(series, scaling_series_json(sw, i));
	json_object_set_new(o, "threshold", json_real(sw->questions.threshold));
	if (sw->questions.scale_dp)
		json_object_set_new(o, "axis", json_string(ax->name));
	json_object_set_new(o, sw->questions.scale_dp ? "dp" : "nodes", values);
	json_object_set_new(o, "series", series);
	return o;
}
