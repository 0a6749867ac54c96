/* SPDX-License-Identifier: MIT */
/*
 * gdrlab report: one self-contained HTML page for a run, a compare or a
 * sweep: the question and its answer, the charts (gnuplot's SVG, inlined),
 * the tables, the node's PCIe tree with its GPUDirect verdicts, and a link
 * to the Perfetto timeline. No script and nothing fetched: it opens
 * offline, anywhere.
 *
 *   gdrlab sweep plan.yaml --json > results.json
 *   gdrlab report results.json -o report.html
 *
 * The page is written whole or not at all (output_file.h).
 */
#define _DEFAULT_SOURCE /* realpath */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cmd_sweep.h"
#include "gdr_policy.h"
#include "output_file.h"
#include "report_cluster.h"
#include "report_html.h"
#include "report_page.h"
#include "topology.h"

#ifndef GDRLAB_VERSION
#define GDRLAB_VERSION "unknown"
#endif

static const char report_usage[] =
	"usage: gdrlab report RESULTS -o FILE.html [--timeline FILE] [--topology FILE]\n"
	"\n"
	"Write one self-contained HTML page (no network needed to open it) for\n"
	"RESULTS, what 'gdrlab run --json', 'gdrlab compare --json' or 'gdrlab\n"
	"sweep --json' wrote: the question and its answer, the charts (drawn by\n"
	"gnuplot, Debian: gnuplot-nox), the tables, the algorithm and protocol of\n"
	"each collective, and one node's PCIe tree with each GPU-NIC path class\n"
	"and GPUDirect RDMA verdict, as 'gdrlab probe' prints them.\n"
	"\n"
	"  -o, --output FILE   the page; written whole or not at all\n"
	"      --timeline FILE link the page to this Perfetto trace ('gdrlab run\n"
	"                      --timeline'), by its path from the page\n"
	"      --topology FILE draw this node instead of the one RESULTS name (a\n"
	"                      file, or a shipped topology by name)\n"
	"  -h, --help          this help\n"
	"\n"
	"Exit status: 0 ok, 1 gnuplot missing or failing, 2 bad input or usage.\n";

#define fail(status, ...) cli_error("report", status, __VA_ARGS__)

void report_chart(struct report_page *p, enum chart_kind k, const char *caption)
{
	char svg[128], prefix[16], why[512];
	int err;

	if (p->err)
		return;
	snprintf(svg, sizeof(svg), "%s/chart%u.svg", p->scratch, p->charts);
	snprintf(prefix, sizeof(prefix), "c%u-", p->charts);
	err = chart_draw(k, p->doc, svg, true, why, sizeof(why));
	if (err == -ENOENT || (err && err != -EINVAL && err != -ENODATA && err != -EDOM)) {
		p->err = err == -ENOENT ? -ENOENT : -EIO;
		fail(EXIT_RUNTIME, "%s", err == -ENOENT ? "gnuplot is not installed (Debian: gnuplot-nox)" : why);
		return;
	}
	fprintf(p->f, "<figure class=\"chart\" id=\"chart%u\" data-kind=\"%s\" data-series=\"%zu\">\n",
		p->charts, chart_kinds[k].name, err ? 0 : chart_series(k, p->doc));
	if (err == -ENODATA)
		html_error(p->f, "No chart: every point it needs failed (the errors are listed below).");
	else if (err == -EDOM)
		html_error(p->f, "No chart: %s.", why);
	else if (err)
		html_error(p->f, "No chart: %s is not as gdrlab writes it.", p->results);
	else if (html_inline_svg(p->f, svg, prefix))
		html_error(p->f, "No chart: gnuplot's drawing could not be read back.");
	fputs("<figcaption>", p->f);
	html_text(p->f, caption);
	fputs("</figcaption></figure>\n", p->f);
	unlink(svg);
	p->charts++;
}

/* @path as it is, else beside the results file (a sweep names its
 * points' topologies from where it ran). */
static int load_beside(const struct report_page *p, const char *path, struct topology *t,
		       struct diag *d)
{
	const char *slash = strrchr(p->results, '/');
	char other[PATH_MAX];
	struct diag ignored;

	if (!topology_load_with(path, p->sets, p->nsets, t, d))
		return 0;
	if (path[0] == '/' || !slash)
		return -EINVAL;
	snprintf(other, sizeof(other), "%.*s/%s", (int)(slash - p->results), p->results, path);
	return topology_load_with(other, p->sets, p->nsets, t, &ignored) ? -EINVAL : 0;
}

/* Whether a run asked for @path never uses GPUDirect RDMA: the staged
 * paths stage every transfer, whatever the GDR level allows. */
static bool path_never_direct(const char *path)
{
	return path && (!strcmp(path, "staged") || !strcmp(path, "staged-memcpy"));
}

void report_node(struct report_page *p, const char *topology_file, const char *gdr_level,
		 const char *path)
{
	struct topology *t = calloc(1, sizeof(*t));
	enum topo_path_type level = GDR_LEVEL_DEFAULT;
	struct diag d = { "" };

	if (p->topology)
		topology_file = p->topology;
	if (!p->nodes++)
		fputs("<h2 id=\"node\">Inside a node</h2>\n", p->f);
	if (!t || !topology_file) {
		html_error(p->f, "Cannot draw the node: %s", t ? "the results name no topology file"
							       : "out of memory");
		free(t);
		return;
	}
	if (gdr_level)
		topo_path_parse(gdr_level, &level);
	if (load_beside(p, topology_file, t, &d)) {
		html_error(p->f, "Cannot draw the node: %s", d.msg);
	} else {
		fputs("<h3>", p->f);
		html_printf(p->f, "%s (%s%s", t->name, topology_file, p->nsets ? ", with --set " : "");
		for (unsigned i = 0; i < p->nsets; i++)
			html_printf(p->f, "%s%s=%s", i ? ", " : "", p->sets[i].path, p->sets[i].value);
		fputs(")</h3>\n", p->f);
		report_cluster(p->f, t, level, path_never_direct(path) ? path : NULL);
	}
	free(t);
}

/* @path's folder names, in place: "/a/b/c" is a, b, c. Their count. */
static size_t split_path(char *path, char **parts, size_t max)
{
	size_t n = 0;
	char *save;

	for (char *t = strtok_r(path, "/", &save); t && n < max; t = strtok_r(NULL, "/", &save))
		parts[n++] = t;
	return n;
}

/* The href of @target from the folder @out is written in: relative, so
 * the page and its timeline move together; each byte but the unreserved
 * ones and '/' percent-encoded. 0 or -errno (@target not there). */
static int relative_href(const char *target, const char *out, char *buf, size_t len)
{
	char to[PATH_MAX], from[PATH_MAX], dir[PATH_MAX], rel[PATH_MAX] = "";
	char *tp[PATH_MAX / 2], *fp[PATH_MAX / 2];
	const char *slash = strrchr(out, '/');
	size_t nt, nf, common = 0, at = 0;

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s", slash == out ? 1 : (int)(slash - out), out);
	if (!realpath(target, to) || !realpath(dir, from))
		return -errno;
	nt = split_path(to, tp, PATH_MAX / 2);
	nf = split_path(from, fp, PATH_MAX / 2);
	while (common + 1 < nt && common < nf && !strcmp(tp[common], fp[common]))
		common++;
	for (size_t i = common; i < nf; i++)
		strncat(rel, "../", sizeof(rel) - strlen(rel) - 1);
	for (size_t i = common; i < nt; i++) {
		strncat(rel, tp[i], sizeof(rel) - strlen(rel) - 1);
		if (i + 1 < nt)
			strncat(rel, "/", sizeof(rel) - strlen(rel) - 1);
	}
	for (const char *c = rel; *c && at + 4 < len; c++) {
		unsigned char u = (unsigned char)*c;

		if ((u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') ||
		    strchr("/-._~", u))
			buf[at++] = (char)u;
		else
			at += (size_t)snprintf(buf + at, len - at, "%%%02X", u);
	}
	buf[at] = '\0';
	return 0;
}

/* A run's or compare's --set values: the node is drawn as it ran. */
static void read_sets(struct report_page *p)
{
	const char *path;
	json_t *v;

	json_object_foreach(json_object_get(p->doc, "topology_set"), path, v) {
		struct topo_override *o = &p->sets[p->nsets];

		if (p->nsets == sizeof(p->sets) / sizeof(p->sets[0]) || !json_is_string(v))
			break;
		snprintf(o->path, sizeof(o->path), "%s", path);
		snprintf(o->value, sizeof(o->value), "%s", json_string_value(v));
		p->nsets++;
	}
}

static const char *base_name(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;

	return slash ? slash + 1 : path ? path : "?";
}

/* The page's title: the plan's own, else what was replayed where. */
static void title_of(json_t *doc, enum report_doc kind, char *buf, size_t len)
{
	json_t *run = kind == REPORT_COMPARE ? json_object_get(doc, "direct") : doc;
	const char *trace = base_name(json_string_value(json_object_get(run, "trace_file")));
	const char *topo = json_string_value(json_object_get(run, "topology"));
	const char *path = json_string_value(json_object_get(doc, "path"));
	json_t *plan = json_object_get(doc, "plan");

	if (kind == REPORT_SWEEP) {
		const char *t = json_string_value(json_object_get(plan, "title"));
		size_t n = json_is_array(doc) ? json_array_size(doc) :
						json_array_size(json_object_get(doc, "points"));

		if (t)
			snprintf(buf, len, "%s", t);
		else if (plan)
			snprintf(buf, len, "Sweep plan %s: %zu points", base_name(json_string_value(
					   json_object_get(plan, "file"))), n);
		else
			snprintf(buf, len, "Sweep of %zu points", n);
		return;
	}
	if (kind == REPORT_COMPARE) {
		json_t *runs[3];
		size_t n = chart_runs(doc, runs), at;

		/* after the paths it holds: three since staged-memcpy came */
		at = (size_t)snprintf(buf, len, "%s on %s: ", trace, topo ? topo : "?");
		for (size_t i = 0; i < n && at < len; i++) {
			const char *rp = json_string_value(json_object_get(runs[i], "path"));

			at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? " vs " : "", rp ? rp : "?");
		}
	} else
		snprintf(buf, len, "%s on %s, the %s path", trace, topo ? topo : "?", path ? path : "?");
}

static int write_page(struct report_page *p, enum report_doc kind, const char *href)
{
	char title[512];

	title_of(p->doc, kind, title, sizeof(title));
	html_begin(p->f, title);
	fputs("<h1>", p->f);
	html_text(p->f, title);
	fputs("</h1>\n", p->f);
	if (kind == REPORT_SWEEP)
		report_sweep_sections(p);
	else
		report_run_sections(p);
	if (href) {
		fputs("<h2 id=\"timeline\">Timeline</h2>\n<p>Every collective, stage and link over time: <a href=\"", p->f);
		fputs(href, p->f);
		fputs("\">", p->f);
		html_text(p->f, base_name(href));
		fputs("</a>, a Chrome/Perfetto trace. Open it at <code>ui.perfetto.dev</code> "
		      "(Open trace file) or in <code>chrome://tracing</code>; it does not leave "
		      "your machine.</p>\n", p->f);
	}
	fputs("<footer>Written by gdrlab " GDRLAB_VERSION " from ", p->f);
	html_text(p->f, base_name(p->results));
	fputs(". The model and its sources: docs/model.md; how far to trust it: "
	      "docs/validation.md.</footer>\n", p->f);
	html_end(p->f);
	return p->err;
}

static int report(const char *results, const char *out, const char *timeline, const char *topology)
{
	struct report_page p = { .results = results, .topology = topology };
	char href[PATH_MAX * 3];
	struct diag d = { "" };
	struct output_file of;
	enum report_doc kind;
	int rc = 0;

	if (timeline && relative_href(timeline, out, href, sizeof(href)))
		return fail(EXIT_USAGE, "--timeline %s: %s", timeline, strerror(errno));
	if (topology && access(topology, R_OK))
		return fail(EXIT_USAGE, "--topology %s: %s", topology, strerror(errno));
	p.doc = cli_load_json(results, &d);
	if (!p.doc)
		return fail(EXIT_USAGE, "%s", d.msg);
	kind = report_doc_kind(p.doc);
	read_sets(&p);
	if (kind == REPORT_UNKNOWN) {
		json_decref(p.doc);
		return fail(EXIT_USAGE, "%s: not what gdrlab run, compare or sweep write with --json",
			    results);
	}
	if (kind != REPORT_SWEEP && report_run_check(p.doc, d.msg, sizeof(d.msg))) {
		json_decref(p.doc);
		return fail(EXIT_USAGE, "%s: %s", results, d.msg);
	}
	snprintf(p.scratch, sizeof(p.scratch), "/tmp/gdrlab-report-XXXXXX");
	if (!mkdtemp(p.scratch)) {
		json_decref(p.doc);
		return fail(EXIT_RUNTIME, "cannot make a scratch folder: %s", strerror(errno));
	}
	if (output_file_open(&of, out, &d))
		rc = fail(EXIT_RUNTIME, "%s", d.msg);
	else {
		p.f = of.fp;
		if (write_page(&p, kind, timeline ? href : NULL))
			rc = EXIT_RUNTIME; /* said where it failed */
		else if (output_file_commit(&of, &d))
			rc = fail(EXIT_RUNTIME, "%s", d.msg);
		if (rc)
			output_file_abort(&of);
	}
	rmdir(p.scratch);
	json_decref(p.doc);
	return rc;
}

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "timeline", required_argument, NULL, 'T' },
		{ "topology", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL, *timeline = NULL, *topology = NULL;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'T':
			timeline = optarg;
			break;
		case 't':
			if (cli_shipped_file("report", "--topology", optarg, CLI_SHIPPED_TOPOLOGY, &topology))
				return EXIT_USAGE;
			break;
		case 'h':
			fputs(report_usage, stdout);
			return 0;
		case ':':
			return cli_usage_error("report", "%s needs a value", argv[optind - 1]);
		default:
			return cli_usage_error("report", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind + 1 != argc)
		return cli_usage_error("report", "expected one results file (gdrlab run, compare or "
						 "sweep --json)");
	if (!out)
		return cli_usage_error("report", "-o: where the page goes (.html)");
	return report(argv[optind], out, timeline, topology);
}
