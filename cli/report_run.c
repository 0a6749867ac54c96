/* SPDX-License-Identifier: MIT */
/*
 * gdrlab report's sections for a run or a compare (report_page.h): the
 * answer, the set-up, the charts, each path's iteration, each kind of
 * collective with the algorithm and protocol NCCL's tuner chose for it on
 * each path, and the node.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "report_html.h"
#include "report_page.h"

/* The first iteration's collectives of one kind (op, size, ranks,
 * communicator) and, per path, their count and total time. */
struct coll_kind {
	size_t first;     /* index of the first one in the runs' arrays */
	unsigned count;
	double total_us[3];
};

#define MAX_KINDS_SHOWN 40

static bool same_kind(json_t *a, json_t *b)
{
	static const char *const keys[] = { "op", "bytes", "ranks", "comm" };

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!json_equal(json_object_get(a, keys[i]), json_object_get(b, keys[i])))
			return false;
	return true;
}

static int by_time(const void *a, const void *b)
{
	double x = ((const struct coll_kind *)a)->total_us[0];
	double y = ((const struct coll_kind *)b)->total_us[0];

	return x < y ? 1 : x > y ? -1 : 0;
}

/* Runs of one trace list their collectives in the same order, whatever
 * the path: the index is the collective. */
static size_t group_kinds(json_t *runs[3], size_t nruns, struct coll_kind **out)
{
	json_t *colls = json_object_get(runs[0], "collectives"), *c;
	struct coll_kind *k = calloc(json_array_size(colls) + 1, sizeof(*k));
	size_t n = 0, i;

	*out = k;
	if (!k)
		return 0;
	json_array_foreach(colls, i, c) {
		size_t j;

		if (json_integer_value(json_object_get(c, "iteration")) != 0)
			continue;
		for (j = 0; j < n && !same_kind(json_array_get(colls, k[j].first), c); j++)
			;
		if (j == n)
			k[n++].first = i;
		k[j].count++;
		for (size_t r = 0; r < nruns; r++) {
			json_t *o = json_array_get(json_object_get(runs[r], "collectives"), i);

			k[j].total_us[r] += json_number_value(json_object_get(o, "time_us"));
		}
	}
	qsort(k, n, sizeof(*k), by_time);
	return n;
}

static const char *size_text(double bytes, char *buf, size_t len)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	unsigned u = 0;

	while (bytes >= 1024 && u + 1 < sizeof(units) / sizeof(units[0]))
		bytes /= 1024, u++;
	snprintf(buf, len, "%.4g %s", bytes, units[u]);
	return buf;
}

static void collectives_table(FILE *f, json_t *runs[3], size_t nruns)
{
	struct coll_kind *k;
	size_t n = group_kinds(runs, nruns, &k);
	/* switches named in the topology: where each kind's traffic collides */
	bool fabric = json_is_object(json_object_get(runs[0], "fabric"));
	char a[64];

	fputs("<h2 id=\"collectives\">Collectives</h2>\n<p>The first iteration's collectives by kind, the most time "
	      "first; per path the algorithm, protocol and channels NCCL's tuner chose (its cost "
	      "model, docs/model.md) and the time of one.</p>\n<table class=\"collectives\"><tr>"
	      "<th>op</th><th>size</th><th>ranks</th><th>communicator</th><th>count</th>", f);
	for (size_t r = 0; r < nruns; r++) {
		html_cell(f, "th", "%s: algorithm", json_string_value(json_object_get(runs[r], "path")));
		html_cell(f, "th", "%s: us each", json_string_value(json_object_get(runs[r], "path")));
	}
	if (fabric)
		html_cell(f, "th", "%s: busiest fabric link", json_string_value(json_object_get(runs[0], "path")));
	fputs("</tr>\n", f);
	for (size_t i = 0; i < n && i < MAX_KINDS_SHOWN; i++) {
		json_t *c = json_array_get(json_object_get(runs[0], "collectives"), k[i].first);

		fputs("<tr>", f);
		html_cell(f, "td", "%s", json_string_value(json_object_get(c, "op")));
		html_cell(f, "td", "%s", size_text(json_number_value(json_object_get(c, "bytes")), a,
						   sizeof(a)));
		fprintf(f, "<td class=\"num\">%lld</td>", json_integer_value(json_object_get(c, "ranks")));
		html_cell(f, "td", "%s", json_is_string(json_object_get(c, "comm")) ?
						  json_string_value(json_object_get(c, "comm")) : "world");
		fprintf(f, "<td class=\"num\">%u</td>", k[i].count);
		for (size_t r = 0; r < nruns; r++) {
			json_t *o = json_array_get(json_object_get(runs[r], "collectives"), k[i].first);
			const char *fb = json_string_value(json_object_get(o, "fallback"));

			/* why it was staged: in the answer above, once */
			html_cell(f, "td", "%s/%s x%lld%s", json_string_value(json_object_get(o, "algo")),
				  json_string_value(json_object_get(o, "proto")),
				  json_integer_value(json_object_get(o, "channels")), fb ? ", staged" : "");
			fprintf(f, "<td class=\"num\">%.4g</td>", k[i].total_us[r] / k[i].count);
		}
		if (fabric && json_is_string(json_object_get(c, "fabric_link")))
			html_cell(f, "td", "%s: %lld flows, %.3g of a port each",
				  json_string_value(json_object_get(c, "fabric_link")),
				  json_integer_value(json_object_get(c, "fabric_flows")),
				  json_number_value(json_object_get(c, "fabric_share")));
		else if (fabric)
			fputs("<td>-</td>", f);
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
	if (n > MAX_KINDS_SHOWN)
		fprintf(f, "<p>... and %zu kinds more, each in the results file.</p>\n",
			n - MAX_KINDS_SHOWN);
	free(k);
}

/* What the run forced of NCCL's choice (--algo, --proto, --channels,
 * --pxn off), one row each, as NCCL's variables: the algorithms on the
 * page are then not the tuner's own pick. */
static void forced_row(FILE *f, const char *what)
{
	fputs("<tr><th>forced</th>", f);
	html_cell(f, "td", "%s", what);
	fputs("</tr>\n", f);
}

static void forced_rows(FILE *f, json_t *run)
{
	json_t *algo = json_object_get(run, "nccl_algo"), *proto = json_object_get(run, "nccl_proto");
	json_t *ch = json_object_get(run, "nchannels");
	char buf[256];

	if (json_is_string(algo)) {
		snprintf(buf, sizeof(buf), "NCCL_ALGO=%s", json_string_value(algo));
		forced_row(f, buf);
	}
	if (json_is_string(proto)) {
		snprintf(buf, sizeof(buf), "NCCL_PROTO=%s", json_string_value(proto));
		forced_row(f, buf);
	}
	if (json_is_integer(ch)) {
		snprintf(buf, sizeof(buf), "--channels %lld", json_integer_value(ch));
		forced_row(f, buf);
	}
	if (json_is_false(json_object_get(run, "pxn")))
		forced_row(f, "--pxn off (NCCL_PXN_DISABLE=1)");
}

/* The topology's values --set replaced, each named. */
static void set_row(FILE *f, json_t *doc)
{
	json_t *sets = json_object_get(doc, "topology_set"), *v;
	const char *path;
	bool first = true;

	if (!json_object_size(sets))
		return;
	fputs("<tr><th>--set</th><td>", f);
	json_object_foreach(sets, path, v) {
		html_printf(f, "%s%s=%s", first ? "" : ", ", path,
			    json_is_string(v) ? json_string_value(v) : "?");
		first = false;
	}
	fputs("</td></tr>\n", f);
}

static void setup_table(FILE *f, json_t *doc, json_t *run)
{
	static const struct {
		const char *label, *key;
	} rows[] = {
		{ "topology", "topology_file" }, { "trace", "trace_file" }, { "backend", "backend" },
		{ "NCCL", "nccl" }, { "GDR level", "gdr_level" }, { "links shared", "sharing" },
	};
	long long nodes = json_integer_value(json_object_get(run, "nodes")),
		  gpus = json_integer_value(json_object_get(run, "gpus_per_node")),
		  nics = json_integer_value(json_object_get(run, "nics_per_node"));

	fputs("<h2 id=\"setup\">What ran</h2>\n<table class=\"setup\">", f);
	fputs("<tr><th>cluster</th>", f);
	html_cell(f, "td", "%lld node%s x %lld GPU%s, %lld NIC%s a node", nodes,
		  nodes == 1 ? "" : "s", gpus, gpus == 1 ? "" : "s", nics, nics == 1 ? "" : "s");
	fputs("</tr>\n", f);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		json_t *v = json_object_get(run, rows[i].key);

		if (!json_is_string(v))
			continue;
		fputs("<tr>", f);
		html_cell(f, "th", "%s", rows[i].label);
		html_cell(f, "td", "%s", json_string_value(v));
		fputs("</tr>\n", f);
	}
	forced_rows(f, run);
	set_row(f, doc);
	fputs("</table>\n", f);
}

/* Whether @run's communicators ran calls at once ("sharing": fluid,
 * simgrid), so that its summed communication exceeds what was in
 * flight. */
static bool runs_at_once(json_t *run)
{
	const char *s = json_string_value(json_object_get(run, "sharing"));

	return s && (!strcmp(s, "fluid") || !strcmp(s, "simgrid"));
}

static void paths_row(FILE *f, const char *label, double v[3], size_t nruns)
{
	fputs("<tr>", f);
	html_cell(f, "th", "%s", label);
	for (size_t r = 0; r < nruns; r++)
		fprintf(f, "<td class=\"num\">%.4g</td>", v[r] / 1e3);
	fputs("</tr>\n", f);
}

/*
 * Each path's iteration, communication and exposed part. Where calls ran
 * at once, communication is two rows: in flight (calls at once counted
 * once, within the iteration) and every call's summed, which can exceed
 * the iteration and is labelled so.
 */
static void paths_table(FILE *f, json_t *runs[3], size_t nruns)
{
	bool at_once = runs_at_once(runs[0]);
	double it[3], busy[3], sum[3], ex[3];

	for (size_t r = 0; r < nruns; r++) {
		it[r] = json_number_value(json_object_get(runs[r], "iteration_time_us"));
		busy[r] = chart_comm_busy(runs[r]);
		sum[r] = json_number_value(json_object_get(runs[r], "comm_time_us"));
		ex[r] = json_number_value(json_object_get(runs[r], "exposed_comm_us"));
	}
	fputs("<table class=\"paths\"><tr><th>an iteration</th>", f);
	for (size_t r = 0; r < nruns; r++)
		html_cell(f, "th", "%s", json_string_value(json_object_get(runs[r], "path")));
	fputs("</tr>\n", f);
	paths_row(f, "iteration (ms)", it, nruns);
	paths_row(f, at_once ? "communication in flight (ms)" : "communication (ms)",
		  at_once ? busy : sum, nruns);
	if (at_once)
		paths_row(f, "communication, every call summed (ms)", sum, nruns);
	paths_row(f, "exposed communication (ms)", ex, nruns);
	fputs("</table>\n", f);
	if (at_once)
		fputs("<p>Communicators ran calls at once here: every call's time "
		      "summed counts the same milliseconds once per call, so it can exceed the "
		      "iteration. In flight counts them once; the chart above shows that.</p>\n", f);
}

/* The first collective of @run with a note @key ("fallback": GPUDirect
 * RDMA could not carry it; "shm": a GPU pair through host memory), and
 * in *@count how many have one. */
static const char *first_note(json_t *run, const char *key, size_t *count)
{
	json_t *c;
	const char *why = NULL;
	size_t i;

	*count = 0;
	json_array_foreach(json_object_get(run, "collectives"), i, c) {
		const char *note = json_string_value(json_object_get(c, key));

		if (note && !(*count)++)
			why = note;
	}
	return why;
}

/* Whether a run's trace gives any compute to overlap (its iterations'
 * compute_us). */
static bool run_has_compute(const json_t *run)
{
	const json_t *it;
	size_t i;

	json_array_foreach(json_object_get(run, "iterations"), i, it)
		if (json_number_value(json_object_get(it, "compute_us")) > 0)
			return true;
	return false;
}

/* Whether some collective of @run crossed the network ("intra_node": it
 * never left a node, engine/plan.c), and whether one did through
 * GPUDirect RDMA ("direct", or "mixed": some of its NIC sides). */
static bool leaves_node(json_t *run, bool *direct)
{
	bool leaves = false;
	json_t *c;
	size_t i;

	*direct = false;
	json_array_foreach(json_object_get(run, "collectives"), i, c) {
		const char *path = json_string_value(json_object_get(c, "path"));

		if (path && strcmp(path, "intra_node")) {
			leaves = true;
			*direct |= !strcmp(path, "direct") || !strcmp(path, "mixed");
		}
	}
	return leaves;
}

/* A run of jobs (run --job): each job's iteration, on its own clock,
 * never the jobs' figures added together. */
static void jobs_answer(FILE *f, json_t *jobs)
{
	json_t *j;
	size_t i;

	json_array_foreach(jobs, i, j) {
		double slow = json_number_value(json_object_get(j, "slowdown"));

		html_printf(f, "%sJob %zu (%s, nodes %s): an iteration takes %.4g ms, %.4g ms of it "
			       "communication (%.2fx its time alone), %.4g ms of that not hidden "
			       "behind compute.",
			    i ? " " : "", i, json_string_value(json_object_get(j, "trace")),
			    json_string_value(json_object_get(j, "nodes")),
			    json_number_value(json_object_get(j, "iteration_time_us")) / 1e3,
			    json_number_value(json_object_get(j, "comm_together_us")) / 1e3, slow,
			    json_number_value(json_object_get(j, "exposed_comm_us")) / 1e3);
	}
}

static void answer(FILE *f, json_t *doc, json_t *runs[3], size_t nruns)
{
	json_t *s = json_object_get(json_object_get(doc, "speedups"), "direct_vs_staged");
	double comm = json_number_value(json_object_get(s, "communication"));
	double it_d = json_number_value(json_object_get(runs[0], "iteration_time_us"));
	size_t fallbacks, shms;
	bool direct, leaves = leaves_node(runs[0], &direct);
	const char *why = first_note(runs[0], "fallback", &fallbacks);
	const char *shm = first_note(runs[0], "shm", &shms);

	if (nruns == 1 && json_array_size(json_object_get(runs[0], "jobs"))) {
		fputs("<p class=\"lead\">What does an iteration of each job cost here?</p>\n<p class=\"answer\">", f);
		jobs_answer(f, json_object_get(runs[0], "jobs"));
	} else if (nruns == 1) {
		fputs("<p class=\"lead\">What does an iteration cost on this path?</p>\n<p class=\"answer\">", f);
		html_printf(f, "An iteration takes %.4g ms, %.4g ms of it with communication in "
			       "flight%s, %.4g ms of that not hidden behind compute.",
			    it_d / 1e3, chart_comm_busy(runs[0]) / 1e3,
			    runs_at_once(runs[0]) ? " (calls at once counted once)" : "",
			    json_number_value(json_object_get(runs[0], "exposed_comm_us")) / 1e3);
	} else {
		double it_s = json_number_value(json_object_get(runs[1], "iteration_time_us"));

		fputs("<p class=\"lead\">Does GPUDirect RDMA pay here?</p>\n<p class=\"answer\">", f);
		if (leaves && !direct)
			html_printf(f, "GPUDirect RDMA cannot be used here: every collective that "
				       "leaves its node falls back to host staging (%s), so the paths "
				       "cost the same.", why ? why : "no GPU-NIC path allows it");
		/* in a node the speedups are null too (as two staged runs'):
		 * time moved, none of it across the network */
		else if (!leaves &&
			 json_number_value(json_object_get(runs[0], "comm_time_us")) > 0)
			html_printf(f, "No collective here leaves its node (NVLink or PCIe inside "
				       "it): GPUDirect RDMA does not apply, and the paths cost the "
				       "same.");
		else if (!json_is_number(json_object_get(s, "communication")))
			html_printf(f, "No collective here moves data between GPUs (each is on one "
				       "rank): the paths cost the same.");
		else {
			if (fabs(comm - 1) < REPORT_SAME_SPEED)
				html_printf(f, "Direct (GPUDirect RDMA) communication is as fast as "
					       "NCCL's host staging");
			else
				html_printf(f, "Direct (GPUDirect RDMA) communication is %.3gx %s "
					       "than NCCL's host staging",
					    comm >= 1 ? comm : 1 / comm, comm >= 1 ? "faster" : "slower");
			/* the iteration as compare's verdict words it, after
			 * either (report_table.c): within REPORT_SAME_ITERATION
			 * "as long either way", where the page said "0.022%
			 * shorter" beside its "as long", and said nothing of it
			 * after "as fast as" */
			if (fabs(1 - it_d / it_s) < REPORT_SAME_ITERATION)
				html_printf(f, "; the iteration takes as long either way.");
			else
				html_printf(f, "; %s the iteration is %.2g%% %s.",
					    run_has_compute(runs[0]) ? "with compute overlap" :
								       "with no compute in the trace,",
					    100 * (it_s > it_d ? 1 - it_d / it_s : it_d / it_s - 1),
					    it_s >= it_d ? "shorter" : "longer");
		}
	}
	if (fallbacks && (nruns == 1 || direct))
		html_printf(f, " %zu collectives on the direct path were staged all the same: %s.",
			    fallbacks, why);
	if (shms)
		html_printf(f, " %zu collectives copy between GPUs of a node through host memory "
			       "(NCCL's SHM transport), %s.",
			    shms, shm);
	fputs("</p>\n", f);
}

enum report_doc report_doc_kind(json_t *doc)
{
	json_t *runs[3];
	size_t n;

	if (json_is_array(doc) || json_is_array(json_object_get(doc, "points")))
		return REPORT_SWEEP;
	n = chart_runs(doc, runs);
	if (n == 1 && runs[0] == doc)
		return REPORT_RUN;
	/* the sections read direct as the first run, staged as the second */
	if (n >= 2 && runs[0] == json_object_get(doc, "direct") &&
	    runs[1] == json_object_get(doc, "staged"))
		return REPORT_COMPARE;
	return REPORT_UNKNOWN;
}

/* "direct: " for a compare's section, "" for a run. */
static const char *run_label(json_t *doc, json_t *run, char *buf, size_t len)
{
	const char *key;
	json_t *v;

	buf[0] = 0;
	json_object_foreach(doc, key, v)
		if (v == run && run != doc)
			snprintf(buf, len, "%s: ", key);
	return buf;
}

int report_run_check(json_t *doc, char *why, size_t len)
{
	static const char *const whole[] = { "nodes", "gpus_per_node", "nics_per_node" };
	json_t *runs[3], *c;
	size_t nruns = chart_runs(doc, runs), i;
	char at[64];

	for (size_t r = 0; r < nruns; r++) {
		run_label(doc, runs[r], at, sizeof(at));
		for (size_t k = 0; k < sizeof(whole) / sizeof(whole[0]); k++)
			if (!json_is_integer(json_object_get(runs[r], whole[k])) ||
			    json_integer_value(json_object_get(runs[r], whole[k])) < 1) {
				snprintf(why, len, "%s'%s' is not a whole number above 0", at, whole[k]);
				return -EINVAL;
			}
		if (!json_is_array(json_object_get(runs[r], "collectives"))) {
			snprintf(why, len, "%s'collectives' is not a list", at);
			return -EINVAL;
		}
		json_array_foreach(json_object_get(runs[r], "collectives"), i, c)
			if (!json_is_integer(json_object_get(c, "iteration")) ||
			    !json_is_integer(json_object_get(c, "ranks")) ||
			    !json_is_number(json_object_get(c, "time_us"))) {
				snprintf(why, len,
					 "%scollectives[%zu]: needs a whole 'iteration' and 'ranks' and a number 'time_us'",
					 at, i);
				return -EINVAL;
			}
	}
	return 0;
}

void report_run_sections(struct report_page *p)
{
	json_t *runs[3];
	size_t nruns = chart_runs(p->doc, runs);

	answer(p->f, p->doc, runs, nruns);
	setup_table(p->f, p->doc, runs[0]);
	fputs("<h2 id=\"iteration\">An iteration</h2>\n", p->f);
	report_chart(p, CHART_PATHS, "Each path's communication in flight an iteration (calls at "
				     "once counted once, so never more than the iteration, given "
				     "under each bar): the part compute hides and the part the "
				     "iteration waits for.");
	paths_table(p->f, runs, nruns);
	report_chart(p, CHART_COLLECTIVES, "Each collective of the first iteration, in trace order, "
					   "a line per path (log scale).");
	collectives_table(p->f, runs, nruns);
	report_node(p, json_string_value(json_object_get(runs[0], "topology_file")),
		    json_string_value(json_object_get(runs[0], "gdr_level")),
		    json_string_value(json_object_get(runs[0], "path")));
}
