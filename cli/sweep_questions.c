/* SPDX-License-Identifier: MIT */
/*
 * A sweep plan's questions, answered from its rows (docs/sweep-format.md,
 * "Questions"):
 *
 *   scaling      sweep_scaling.c
 *   gdr_speedup  staged over direct, iteration and communication, on a
 *                grid of two axes (the other axes at their first values).
 *
 * The plan's points are in nested order, so the point that differs from
 * point i only in axis a is found by arithmetic on i.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "sweep.h"
#include "sweep_answer.h"

int sweep_axis_index(const struct sweep *sw, const char *name)
{
	for (unsigned a = 0; a < sw->naxes; a++)
		if (!strcmp(sw->axes[a].name, name))
			return (int)a;
	return -1;
}

int sweep_value_index(const struct sweep_axis *a, const char *value)
{
	for (unsigned i = 0; i < a->nvalues; i++)
		if (!strcmp(a->values[i], value))
			return (int)i;
	return -1;
}

/* Points between two values of axis @a: the product of the later axes'. */
static size_t stride_of(const struct sweep *sw, unsigned a)
{
	size_t s = 1;

	for (unsigned k = a + 1; k < sw->naxes; k++)
		s *= sw->axes[k].nvalues;
	return s;
}

/* Point @i with axis @a at value @v instead. */
size_t sweep_with_value(const struct sweep *sw, size_t i, unsigned a, unsigned v)
{
	size_t st = stride_of(sw, a);

	return i - sw->pts[i].axis_value[a] * st + v * st;
}

/* @i's axis values but axis @skip's (and @skip2's), for a series' name. */
void sweep_series_label(const struct sweep *sw, size_t i, int skip, int skip2, char *buf,
			 size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (unsigned a = 0; a < sw->naxes && at < len; a++) {
		int k;

		if ((int)a == skip || (int)a == skip2)
			continue;
		k = snprintf(buf + at, len - at, "%s%s=%s", at ? " " : "", sw->axes[a].name,
			     sw->axes[a].values[sw->pts[i].axis_value[a]]);
		if (k < 0)
			break;
		at += (size_t)k;
	}
	if (!buf[0])
		snprintf(buf, len, "all");
}

/* The widest label of the series along axis @a (points at its first
 * value), at least @min. */
int sweep_series_width(const struct sweep *sw, unsigned a, int min)
{
	char label[512];
	int w = min;

	for (size_t i = 0; i < sw->n; i++) {
		if (sw->pts[i].axis_value[a])
			continue;
		sweep_series_label(sw, i, (int)a, -1, label, sizeof(label));
		if ((int)strlen(label) > w)
			w = (int)strlen(label);
	}
	return w;
}

/*
 * Iteration (or communication) staged over direct at point @i's cell, or
 * NAN with why into *@why (where not NULL): a point failed, the direct
 * point never left its nodes (GPUDirect RDMA does not apply) or fell back
 * to host staging on every collective that did (none to weigh), or
 * nothing was timed.
 */
static double speedup(const struct sweep *sw, size_t i, unsigned path, unsigned direct,
		      unsigned staged, bool comm, const char **why)
{
	const struct row *d = &sw->rows[sweep_with_value(sw, i, path, direct)];
	const struct row *s = &sw->rows[sweep_with_value(sw, i, path, staged)];
	double num = comm ? s->comm_us : s->iteration_us, den = comm ? d->comm_us : d->iteration_us;
	const char *no = NULL;

	if (d->err || s->err)
		no = "error";
	else if (plan_path_used_never_direct(d->path_used))
		no = "no GDR";
	else if (d->path_used == PLAN_USED_NONE)
		no = "in node";
	else if (!(den > 0))
		no = "n/a";
	if (why)
		*why = no;
	return no ? NAN : num / den;
}

/* The point of grid cell (@rv, @cv): the other axes at their first. */
static size_t cell(const struct sweep *sw, unsigned rows, unsigned rv, unsigned cols, unsigned cv)
{
	return rv * stride_of(sw, rows) + cv * stride_of(sw, cols);
}

/*
 * The heat map's other axes, at their first values (cell): each that has
 * more than one value, "name=value" into @buf ("" for none), for the
 * table's header; as an object of axis: value where @o is not NULL, for
 * the JSON, the chart and the report, which said nothing of the values
 * the grid leaves out.
 */
static void speedup_fixed(const struct sweep *sw, char *buf, size_t len, json_t *o)
{
	const struct sweep_questions *q = &sw->questions;
	int ap = sweep_axis_index(sw, "path");
	size_t at = 0;

	buf[0] = '\0';
	for (unsigned a = 0; a < sw->naxes; a++) {
		const struct sweep_axis *ax = &sw->axes[a];
		int k;

		if ((int)a == q->rows || (int)a == q->columns || (int)a == ap || ax->nvalues < 2)
			continue;
		if (o)
			json_object_set_new(o, ax->name, json_string(ax->values[0]));
		if (at >= len)
			continue;
		k = snprintf(buf + at, len - at, "%s%s=%s", at ? " " : "", ax->name, ax->values[0]);
		at += k > 0 ? (size_t)k : 0;
	}
}

static void print_speedup(const struct sweep *sw, FILE *out)
{
	const struct sweep_questions *q = &sw->questions;
	unsigned ap = (unsigned)sweep_axis_index(sw, "path");
	unsigned direct = (unsigned)sweep_value_index(&sw->axes[ap], "direct");
	unsigned staged = (unsigned)sweep_value_index(&sw->axes[ap], "staged");
	const struct sweep_axis *r = &sw->axes[q->rows], *c = &sw->axes[q->columns];
	bool never = false, inside = false;
	int rw = 16, cw = 12;
	char fixed[512];

	for (unsigned rv = 0; rv < r->nvalues; rv++)
		if ((int)strlen(r->values[rv]) > rw)
			rw = (int)strlen(r->values[rv]);
	for (unsigned cv = 0; cv < c->nvalues; cv++)
		if ((int)strlen(c->values[cv]) > cw)
			cw = (int)strlen(c->values[cv]);
	speedup_fixed(sw, fixed, sizeof(fixed), NULL);
	diag_printable(fixed, fixed, sizeof(fixed)); /* one line */
	fprintf(out, "\nGPUDirect RDMA speedup, iteration time staged / direct (%s down, %s across%s%s)\n%-*s",
		r->name, c->name, fixed[0] ? "; the other axes at their first values: " : "", fixed,
		rw, "");
	for (unsigned cv = 0; cv < c->nvalues; cv++)
		fprintf(out, " %*s", cw, c->values[cv]);
	fputc('\n', out);
	for (unsigned rv = 0; rv < r->nvalues; rv++) {
		fprintf(out, "%-*s", rw, r->values[rv]);
		for (unsigned cv = 0; cv < c->nvalues; cv++) {
			size_t i = cell(sw, (unsigned)q->rows, rv, (unsigned)q->columns, cv);
			const char *why;
			double x = speedup(sw, i, ap, direct, staged, false, &why);

			if (why)
				fprintf(out, " %*s", cw, why);
			else
				fprintf(out, " %*.3fx", cw - 1, x);
			never |= why && !strcmp(why, "no GDR");
			inside |= why && !strcmp(why, "in node");
		}
		fputc('\n', out);
	}
	if (never)
		fprintf(out, "(no GDR: the direct point fell back to host staging on every collective "
			     "that leaves its node)\n");
	if (inside)
		fprintf(out, "(in node: no collective left its node, GPUDirect RDMA does not apply)\n");
}

/* Series @i's first value of the NIC axis where the exposed
 * communication is at most the share, or -1. */
static int nic_first(const struct sweep *sw, size_t i, double *share)
{
	unsigned a = (unsigned)sw->questions.nic_axis;

	for (unsigned v = 0; v < sw->axes[a].nvalues; v++) {
		const struct row *r = &sw->rows[sweep_with_value(sw, i, a, v)];

		if (r->err || !(r->iteration_us > 0))
			continue;
		*share = r->exposed_us / r->iteration_us;
		if (*share <= sw->questions.exposed_share)
			return (int)v;
	}
	return -1;
}

/*
 * Series @i's first failed value of the NIC axis before @v (all of them
 * where @v < 0), or -1: the communication may hide there, which the
 * answer cannot say ("the first value" was a later one, unsaid).
 */
static int nic_failed_before(const struct sweep *sw, size_t i, int v)
{
	unsigned a = (unsigned)sw->questions.nic_axis;

	for (unsigned k = 0; k < (v < 0 ? sw->axes[a].nvalues : (unsigned)v); k++)
		if (sw->rows[sweep_with_value(sw, i, a, k)].err)
			return (int)k;
	return -1;
}

static void print_nic_speed(const struct sweep *sw, FILE *out)
{
	unsigned a = (unsigned)sw->questions.nic_axis;
	char label[512];

	int w = sweep_series_width(sw, a, 40);

	/* %.3g, as the report: 0.0004 was "at most 0.0%" */
	fprintf(out, "\nthe first %s at which exposed communication is at most %.3g%% of the iteration\n",
		sw->axes[a].name, 100 * sw->questions.exposed_share);
	for (size_t i = 0; i < sw->n; i++) {
		double share = 0;
		int v, failed;

		if (sw->pts[i].axis_value[a])
			continue;
		sweep_series_label(sw, i, (int)a, -1, label, sizeof(label));
		diag_printable(label, label, sizeof(label)); /* one row a point */
		v = nic_first(sw, i, &share);
		failed = nic_failed_before(sw, i, v);
		if (v < 0)
			fprintf(out, "%-*s none of its values%s\n", w, label,
				failed >= 0 ? " where it ran" : "");
		else if (failed >= 0)
			fprintf(out, "%-*s %s (exposed %.2f%%), or %s, whose point failed\n", w, label,
				sw->axes[a].values[v], 100 * share, sw->axes[a].values[failed]);
		else
			fprintf(out, "%-*s %s (exposed %.2f%%)\n", w, label, sw->axes[a].values[v],
				100 * share);
	}
}

/* Whether a point's calls ran at once, its stage times summed over them. */
static bool any_concurrent(const struct sweep *sw)
{
	for (size_t i = 0; i < sw->n; i++)
		if (!sw->rows[i].err && sw->rows[i].concurrent)
			return true;
	return false;
}

static void print_breakdown(const struct sweep *sw, FILE *out)
{
	char label[512];

	int w = sweep_label_width(sw, 40);

	/* as gdrlab run's table: a pipelined transfer's stages are busy at
	 * once, and their columns add up to no time the point took */
	fprintf(out, "\nstage busy time of the bottleneck connections, us an iteration (stages "
		     "overlap when pipelined: not a sum)\n%-*s", w, "point");
	for (int k = 0; k < STAGE_KIND_COUNT; k++)
		fprintf(out, " %13s", stage_kind_name(k));
	fputc('\n', out);
	for (size_t i = 0; i < sw->n; i++) {
		sweep_point_label(sw, &sw->pts[i], label, sizeof(label));
		diag_printable(label, label, sizeof(label)); /* one row a point */
		fprintf(out, "%-*s", w, label);
		for (int k = 0; k < STAGE_KIND_COUNT; k++)
			if (sw->rows[i].err)
				fprintf(out, " %13s", "error");
			else
				fprintf(out, " %13.1f", sw->rows[i].stage_us[k]);
		fputs(!sw->rows[i].err && sw->rows[i].concurrent ? " *\n" : "\n", out);
	}
	/* as gdrlab run's table says it: a tensor- and pipeline-parallel
	 * job's copy_to_host read 1.48 s an iteration of 0.49 s, unsaid */
	if (any_concurrent(sw))
		fprintf(out, "(*: calls ran at once, each stage's time summed over them: it can "
			     "exceed the iteration)\n");
}

/* Cost of point @i's iteration: its GPUs (and NICs) for its time. */
static double cost_of(const struct sweep *sw, size_t i)
{
	const struct row *r = &sw->rows[i];
	const struct sweep_questions *q = &sw->questions;

	if (r->err)
		return NAN;
	return r->iteration_us * 1e-6 / 3600 *
	       (r->gpus * q->gpu_hour + (double)r->nodes * r->nics * q->nic_hour +
		r->nodes * r->switch_ports * q->switch_port_hour);
}

/*
 * Point @i's tokens an iteration: the plan's, or its working GPUs' (weak
 * scaling: each GPU its batch); 0 when the plan gives neither. A trace of
 * fewer ranks than the point's GPUs (ranks_used) trains on those ranks
 * alone: the idle GPUs are paid for (cost_of) but have no batch, and
 * counting them gave a fixed job on twice the nodes the same cost a
 * million tokens at twice the cost an iteration.
 */
static double tokens_of(const struct sweep *sw, size_t i)
{
	const struct sweep_questions *q = &sw->questions;
	const struct row *r = &sw->rows[i];

	if (q->tokens > 0)
		return q->tokens;
	if (q->tokens_per_gpu > 0)
		return q->tokens_per_gpu * (r->ranks_used ? r->ranks_used : r->gpus);
	return r->tokens;
}

/* Whether the plan, or a generator, says how many tokens an iteration has. */
static bool has_tokens(const struct sweep *sw)
{
	const struct sweep_questions *q = &sw->questions;

	for (size_t i = 0; i < sw->n; i++)
		if (sw->rows[i].tokens > 0)
			return true;
	return q->tokens > 0 || q->tokens_per_gpu > 0;
}

/* Under tokens_per_gpu's column: the first point whose trace leaves GPUs
 * idle, whose tokens are its ranks' (tokens_of). */
static void print_idle_tokens(const struct sweep *sw, FILE *out)
{
	char label[512];

	for (size_t i = 0; i < sw->n; i++) {
		const struct row *r = &sw->rows[i];

		if (r->err || !r->ranks_used)
			continue;
		sweep_point_label(sw, &sw->pts[i], label, sizeof(label));
		diag_printable(label, label, sizeof(label));
		fprintf(out, "(from %s, the trace's %u ranks leave GPUs idle: tokens are counted on "
			     "its ranks, the cost on every GPU)\n", label, r->ranks_used);
		return;
	}
}

static void print_cost(const struct sweep *sw, FILE *out)
{
	const struct sweep_questions *q = &sw->questions;
	bool tokens = has_tokens(sw);
	int w = sweep_label_width(sw, 40);
	char label[512];

	fprintf(out, "\ncost at %g a GPU-hour", q->gpu_hour);
	if (q->nic_hour > 0)
		fprintf(out, ", %g a NIC-hour", q->nic_hour);
	if (q->switch_port_hour > 0)
		fprintf(out, ", %g a switch-port-hour", q->switch_port_hour);
	fprintf(out, "\n%-*s %16s%s\n", w, "point", "per iteration",
		tokens ? "  per million tokens" : "");
	for (size_t i = 0; i < sw->n; i++) {
		double c = cost_of(sw, i);

		sweep_point_label(sw, &sw->pts[i], label, sizeof(label));
		diag_printable(label, label, sizeof(label)); /* one row a point */
		if (isnan(c)) {
			fprintf(out, "%-*s %16s\n", w, label, "error");
			continue;
		}
		fprintf(out, "%-*s %16.4g", w, label, c);
		if (tokens)
			fprintf(out, "  %18.4g", tokens_of(sw, i) > 0 ? c / tokens_of(sw, i) * 1e6 : NAN);
		fputc('\n', out);
	}
	if (q->tokens_per_gpu > 0)
		print_idle_tokens(sw, out);
}

bool sweep_has_questions(const struct sweep *sw)
{
	const struct sweep_questions *q = &sw->questions;

	return q->scaling || q->speedup || q->nic_speed || q->breakdown || q->cost;
}

int sweep_questions_print(const struct sweep *sw, FILE *out)
{
	if (sw->questions.scaling)
		sweep_scaling_print(sw, out);
	if (sw->questions.speedup)
		print_speedup(sw, out);
	if (sw->questions.nic_speed)
		print_nic_speed(sw, out);
	if (sw->questions.breakdown)
		print_breakdown(sw, out);
	if (sw->questions.cost)
		print_cost(sw, out);
	return ferror(out) ? -EIO : 0;
}

json_t *sweep_number_or_null(double x)
{
	return isnan(x) ? json_null() : json_real(x);
}

static json_t *speedup_json(const struct sweep *sw)
{
	const struct sweep_questions *q = &sw->questions;
	unsigned ap = (unsigned)sweep_axis_index(sw, "path");
	unsigned direct = (unsigned)sweep_value_index(&sw->axes[ap], "direct");
	unsigned staged = (unsigned)sweep_value_index(&sw->axes[ap], "staged");
	const struct sweep_axis *r = &sw->axes[q->rows], *c = &sw->axes[q->columns];
	json_t *rows = json_array(), *cols = json_array(), *it = json_array(), *cm = json_array();
	json_t *fixed = json_object(), *no = json_array();
	char buf[512];

	for (unsigned cv = 0; cv < c->nvalues; cv++)
		json_array_append_new(cols, json_string(c->values[cv]));
	for (unsigned rv = 0; rv < r->nvalues; rv++) {
		json_t *a = json_array(), *b = json_array(), *w = json_array();

		json_array_append_new(rows, json_string(r->values[rv]));
		for (unsigned cv = 0; cv < c->nvalues; cv++) {
			size_t i = cell(sw, (unsigned)q->rows, rv, (unsigned)q->columns, cv);
			const char *why;

			json_array_append_new(a, sweep_number_or_null(speedup(sw, i, ap, direct, staged, false, &why)));
			json_array_append_new(b, sweep_number_or_null(speedup(sw, i, ap, direct, staged, true, NULL)));
			/* a null cell's reason, as the table gives it ("no GDR":
			 * the report's cell was a bare "-") */
			json_array_append_new(w, why ? json_string(why) : json_null());
		}
		json_array_append_new(it, a);
		json_array_append_new(cm, b);
		json_array_append_new(no, w);
	}
	speedup_fixed(sw, buf, sizeof(buf), fixed);
	return json_pack("{s:s,s:s,s:o,s:o,s:o,s:o,s:o,s:o}", "rows", r->name, "columns", c->name,
			 "row_values", rows, "column_values", cols, "iteration", it,
			 "communication", cm, "fixed", fixed, "no_value", no);
}

static json_t *nic_speed_json(const struct sweep *sw)
{
	unsigned a = (unsigned)sw->questions.nic_axis;
	json_t *series = json_array();
	char label[512];

	for (size_t i = 0; i < sw->n; i++) {
		double share = 0;
		json_t *each, *failed;
		int v;

		if (sw->pts[i].axis_value[a])
			continue;
		each = json_array();
		failed = json_array();
		sweep_series_label(sw, i, (int)a, -1, label, sizeof(label));
		v = nic_first(sw, i, &share);
		/* the share at every value of the axis, for the chart */
		for (unsigned k = 0; k < sw->axes[a].nvalues; k++) {
			const struct row *r = &sw->rows[sweep_with_value(sw, i, a, k)];

			json_array_append_new(each, r->err || !(r->iteration_us > 0) ? json_null() :
						    json_real(r->exposed_us / r->iteration_us));
			/* a null share's reason, and what the answer cannot
			 * rule out before its value */
			if (r->err)
				json_array_append_new(failed, json_string(sw->axes[a].values[k]));
		}
		json_array_append_new(series, json_pack("{s:s,s:o,s:o,s:o,s:o}", "series", label, "value",
			v < 0 ? json_null() : json_string(sw->axes[a].values[v]),
			"exposed_share", v < 0 ? json_null() : json_real(share), "exposed", each,
			"failed", failed));
	}
	{
		json_t *values = json_array();

		for (unsigned k = 0; k < sw->axes[a].nvalues; k++)
			json_array_append_new(values, json_string(sw->axes[a].values[k]));
		return json_pack("{s:s,s:o,s:f,s:o}", "axis", sw->axes[a].name, "values", values,
				 "exposed_share", sw->questions.exposed_share, "series", series);
	}
}

/* Per point, in the points' order: its stage busy times, or its cost. */
static json_t *per_point_json(const struct sweep *sw, bool cost)
{
	json_t *arr = json_array();
	bool tokens = cost && has_tokens(sw); /* once: it reads every row */

	for (size_t i = 0; i < sw->n; i++) {
		json_t *o = json_object();

		if (cost) {
			double c = cost_of(sw, i);

			json_object_set_new(o, "per_iteration", sweep_number_or_null(c));
			if (tokens)
				json_object_set_new(o, "per_million_tokens",
						    sweep_number_or_null(tokens_of(sw, i) > 0 ?
								   c / tokens_of(sw, i) * 1e6 : NAN));
		} else {
			for (int k = 0; k < STAGE_KIND_COUNT; k++)
				json_object_set_new(o, stage_kind_name(k),
						    sw->rows[i].err ? json_null() :
								      json_real(sw->rows[i].stage_us[k]));
			/* each stage summed over calls at once */
			json_object_set_new(o, "concurrent",
					    json_boolean(!sw->rows[i].err && sw->rows[i].concurrent));
		}
		json_array_append_new(arr, o);
	}
	return arr;
}

int sweep_questions_json(const struct sweep *sw, json_t *doc)
{
	json_t *q = json_object();

	if (!q)
		return -ENOMEM;
	if (sw->questions.scaling)
		json_object_set_new(q, "scaling", sweep_scaling_json(sw));
	if (sw->questions.speedup)
		json_object_set_new(q, "gdr_speedup", speedup_json(sw));
	if (sw->questions.nic_speed)
		json_object_set_new(q, "nic_speed", nic_speed_json(sw));
	if (sw->questions.breakdown)
		json_object_set_new(q, "breakdown_us", per_point_json(sw, false));
	if (sw->questions.cost)
		json_object_set_new(q, "cost", per_point_json(sw, true));
	return json_object_set_new(doc, "questions", q) ? -ENOMEM : 0;
}
