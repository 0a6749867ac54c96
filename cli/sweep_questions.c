/* SPDX-License-Identifier: MIT */
/*
 * A sweep plan's questions, answered from its rows (docs/sweep-format.md,
 * "Questions"):
 *
 *   scaling      per series (every combination of the other axes), the
 *                iteration at the first node count over the iteration at each
 *                node count: for data parallelism with a fixed batch a GPU
 *                (weak scaling), the throughput a GPU keeps; and the node
 *                count where it first falls below the threshold. Over a
 *                generator's gen.dp axis instead, the job scaled out by
 *                replicas: each point's tokens a second a GPU over the
 *                first dp's, and the dp (and its nodes) where it first
 *                falls below.
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
static size_t with_value(const struct sweep *sw, size_t i, unsigned a, unsigned v)
{
	size_t st = stride_of(sw, a);

	return i - sw->pts[i].axis_value[a] * st + v * st;
}

/* @i's axis values but axis @skip's (and @skip2's), for a series' name. */
static void series_label(const struct sweep *sw, size_t i, int skip, int skip2, char *buf,
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
static int series_width(const struct sweep *sw, unsigned a, int min)
{
	char label[512];
	int w = min;

	for (size_t i = 0; i < sw->n; i++) {
		if (sw->pts[i].axis_value[a])
			continue;
		series_label(sw, i, (int)a, -1, label, sizeof(label));
		if ((int)strlen(label) > w)
			w = (int)strlen(label);
	}
	return w;
}

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
 * Iteration (or communication) staged over direct at point @i's cell, or
 * NAN with why into *@why (where not NULL): a point failed, the direct
 * point never left its nodes (GPUDirect RDMA does not apply) or fell back
 * to host staging on every collective that did (none to weigh), or
 * nothing was timed.
 */
static double speedup(const struct sweep *sw, size_t i, unsigned path, unsigned direct,
		      unsigned staged, bool comm, const char **why)
{
	const struct row *d = &sw->rows[with_value(sw, i, path, direct)];
	const struct row *s = &sw->rows[with_value(sw, i, path, staged)];
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
 * Why series @i has no efficiency at node count @v: "error" where that
 * point failed, "n/a" where it ran but the series' first (the reference)
 * failed, or it took no time.
 */
static const char *no_efficiency(const struct sweep *sw, size_t i, unsigned an, unsigned v)
{
	return sw->rows[with_value(sw, i, an, v)].err ? "error" : "n/a";
}

/* How many of series @i's points (@i its first, along axis @an) failed. */
static unsigned failed_points(const struct sweep *sw, size_t i, unsigned an)
{
	unsigned n = 0;

	for (unsigned v = 0; v < sw->axes[an].nvalues; v++)
		n += sw->rows[with_value(sw, i, an, v)].err != 0;
	return n;
}

/* Series @i's first node count (along axis @an) whose trace leaves GPUs
 * idle, a trace of fewer ranks than the point's GPUs, or -1. */
static int idle_from(const struct sweep *sw, size_t i, unsigned an)
{
	for (unsigned v = 0; v < sw->axes[an].nvalues; v++) {
		const struct row *r = &sw->rows[with_value(sw, i, an, v)];

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
	const struct row *r = &sw->rows[with_value(sw, i, an, v)];

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
	const struct row *r = &sw->rows[with_value(sw, i, (unsigned)sw->questions.scale_axis, v)];
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
		const struct row *r = &sw->rows[with_value(sw, i, an, v)];

		/* under the efficiencies' digits, no space at the end */
		if (r->err)
			fprintf(out, "%s %7s", v ? " " : "", "error");
		else
			fprintf(out, "%s %7u", v ? " " : "", r->nodes);
	}
	fprintf(out, "\n%-*s", w, "  tokens/s a GPU");
	for (unsigned v = 0; v < sw->axes[an].nvalues; v++) {
		double t = tokens_per_s_per_gpu(sw, with_value(sw, i, an, v));

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

static void print_scaling(const struct sweep *sw, FILE *out)
{
	unsigned an = (unsigned)sw->questions.scale_axis;
	const struct sweep_axis *ax = &sw->axes[an];
	char label[512];

	int w = series_width(sw, an, 40);

	print_scaling_header(sw, out, w);
	for (size_t i = 0; i < sw->n; i++) {
		int below = -1;

		if (sw->pts[i].axis_value[an])
			continue;
		series_label(sw, i, (int)an, -1, label, sizeof(label));
		diag_printable(label, label, sizeof(label)); /* one row a point */
		fprintf(out, "%-*s", w, label);
		for (unsigned v = 0; v < ax->nvalues; v++) {
			double e = efficiency(sw, i, with_value(sw, i, an, v));
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
		const struct row *r = &sw->rows[with_value(sw, i, a, v)];

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
		if (sw->rows[with_value(sw, i, a, k)].err)
			return (int)k;
	return -1;
}

static void print_nic_speed(const struct sweep *sw, FILE *out)
{
	unsigned a = (unsigned)sw->questions.nic_axis;
	char label[512];

	int w = series_width(sw, a, 40);

	/* %.3g, as the report: 0.0004 was "at most 0.0%" */
	fprintf(out, "\nthe first %s at which exposed communication is at most %.3g%% of the iteration\n",
		sw->axes[a].name, 100 * sw->questions.exposed_share);
	for (size_t i = 0; i < sw->n; i++) {
		double share = 0;
		int v, failed;

		if (sw->pts[i].axis_value[a])
			continue;
		series_label(sw, i, (int)a, -1, label, sizeof(label));
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
		print_scaling(sw, out);
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

static json_t *number_or_null(double x)
{
	return isnan(x) ? json_null() : json_real(x);
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
		size_t j = with_value(sw, i, an, v);

		json_array_append_new(nodes, count_or_null(&sw->rows[j], sw->rows[j].nodes));
		json_array_append_new(gpus, count_or_null(&sw->rows[j], sw->rows[j].gpus));
		json_array_append_new(rate, number_or_null(tokens_per_s_per_gpu(sw, j)));
	}
	json_object_set_new(o, "below_from_nodes", below < 0 ? json_null() :
			    json_integer(sw->rows[with_value(sw, i, an, (unsigned)below)].nodes));
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

	series_label(sw, i, (int)an, -1, label, sizeof(label));
	for (unsigned v = 0; v < ax->nvalues; v++) {
		double e = efficiency(sw, i, with_value(sw, i, an, v));

		json_array_append_new(eff, number_or_null(e));
		if (e < sw->questions.threshold && below < 0)
			below = (int)v;
		/* a null efficiency's reason: this point, or the first */
		if (sw->rows[with_value(sw, i, an, v)].err)
			json_array_append_new(failed, json_string(ax->values[v]));
	}
	/* where the trace's ranks leave GPUs idle: not its job scaled,
	 * which the table said and the report did not */
	o = json_pack("{s:s,s:o,s:o,s:o,s:o,s:o}", "series", label, "efficiency", eff,
		      "below_from", below < 0 ? json_null() : json_string(ax->values[below]),
		      "failed", failed, "idle_from",
		      idle < 0 ? json_null() : json_string(ax->values[idle]), "trace_ranks",
		      idle < 0 ? json_null() :
				 json_integer(sw->rows[with_value(sw, i, an, (unsigned)idle)].ranks_used));
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
static json_t *scaling_json(const struct sweep *sw)
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

			json_array_append_new(a, number_or_null(speedup(sw, i, ap, direct, staged, false, &why)));
			json_array_append_new(b, number_or_null(speedup(sw, i, ap, direct, staged, true, NULL)));
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
		series_label(sw, i, (int)a, -1, label, sizeof(label));
		v = nic_first(sw, i, &share);
		/* the share at every value of the axis, for the chart */
		for (unsigned k = 0; k < sw->axes[a].nvalues; k++) {
			const struct row *r = &sw->rows[with_value(sw, i, a, k)];

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

			json_object_set_new(o, "per_iteration", number_or_null(c));
			if (tokens)
				json_object_set_new(o, "per_million_tokens",
						    number_or_null(tokens_of(sw, i) > 0 ?
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
		json_object_set_new(q, "scaling", scaling_json(sw));
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
