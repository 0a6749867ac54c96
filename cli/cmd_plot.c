/* SPDX-License-Identifier: MIT */
/*
 * gdrlab plot: a sweep plan's answers, or a run's or compare's
 * collectives, as a chart drawn by gnuplot (chart.h).
 *
 *   gdrlab sweep plan.yaml --json > results.json
 *   gdrlab plot results.json --kind scaling -o scaling.svg
 *   gdrlab plot results.json --kind speedup -o speedup.png
 *
 * The chart file is written whole or not at all (output_file.h).
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "chart.h"
#include "cli.h"
#include "cmd_sweep.h"
#include "output_file.h"

static const char plot_usage[] =
	"usage: gdrlab plot RESULTS --kind KIND -o FILE.svg|FILE.png\n"
	"\n"
	"Draw gdrlab's results as a chart with gnuplot (Debian: gnuplot-nox).\n"
	"RESULTS is what 'gdrlab sweep PLAN --json' wrote for a plan that asks the\n"
	"question (docs/sweep-format.md, \"Questions\"):\n"
	"\n"
	"  --kind scaling   efficiency against nodes (a generated job's: against\n"
	"                   gen.dp), a line per series, the threshold dashed (the\n"
	"                   scaling question)\n"
	"  --kind speedup   staged over direct iteration as a heat map over the\n"
	"                   question's two axes (the gdr_speedup question)\n"
	"  --kind nic_speed exposed communication against the NIC axis, a line per\n"
	"                   series, the share asked for dashed\n"
	"  --kind breakdown each point's stage busy times, bars side by side\n"
	"  --kind cost      each point's cost a million tokens (where the plan gives\n"
	"                   tokens), else an iteration, bars\n"
	"\n"
	"or what 'gdrlab run --json' or 'gdrlab compare --json' wrote:\n"
	"\n"
	"  --kind paths     each path's communication: hidden behind compute, exposed\n"
	"  --kind collectives  each collective's time in the first iteration, a\n"
	"                   line per path\n"
	"\n"
	"or what 'gdrlab busbw --json' or 'gdrlab validate --nccl-tests --json' wrote:\n"
	"\n"
	"  --kind busbw     bus bandwidth against size: the predicted curve, and\n"
	"                   validate's measured one beside it\n"
	"\n"
	"  -o, --output F   the chart: SVG or PNG by its extension; written whole\n"
	"                   or not at all\n"
	"  -h, --help       this help\n"
	"\n"
	"Exit status: 0 ok, 1 gnuplot missing or failing, 2 bad input or usage.\n";

/* "gdrlab plot: ..." and @status. */
#define fail(status, ...) cli_error("plot", status, __VA_ARGS__)

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);

	return n > m && !strcmp(s + n - m, tail);
}

static int plot(const char *results, enum chart_kind kind, const char *out)
{
	bool svg = ends_with(out, ".svg");
	char why[512];
	struct diag d = { "" };
	struct output_file of;
	const char *asked = chart_kinds[kind].asked;
	json_t *doc;
	int err, rc = 0;

	if (!svg && !ends_with(out, ".png"))
		return cli_usage_error("plot", "-o: '%s' is not a .svg or .png file name", out);
	doc = cli_load_json(results, &d);
	if (!doc)
		return fail(EXIT_USAGE, "%s", d.msg);
	if (!chart_has_data(kind, doc)) {
		json_decref(doc);
		if (asked)
			return fail(EXIT_USAGE, "%s: no %s answer in it (a plan's --json with that question)",
				    results, asked);
		if (kind == CHART_BUSBW)
			return fail(EXIT_USAGE, "%s: no busbw table in it (busbw's or validate --nccl-tests' --json)",
				    results);
		return fail(EXIT_USAGE, "%s: no collectives in it (a run's or compare's --json)", results);
	}
	if (output_file_open(&of, out, &d)) {
		json_decref(doc);
		return fail(EXIT_RUNTIME, "%s", d.msg);
	}
	err = chart_draw(kind, doc, of.tmp, svg, why, sizeof(why));
	if (err == -EINVAL)
		rc = fail(EXIT_USAGE, "%s: its %s is not as gdrlab writes it", results,
			  asked ? asked : kind == CHART_BUSBW ? "busbw table" : "collectives");
	else if (err == -ENODATA)
		rc = fail(EXIT_RUNTIME, "%s: nothing to draw: no point of its %s has a value (each failed, or its iteration took no time: its rows say which)",
			  results, asked ? asked : "run");
	else if (err == -EDOM)
		rc = fail(EXIT_RUNTIME, "%s: nothing to draw: %s", results, why);
	else if (err == -ENOENT)
		rc = fail(EXIT_RUNTIME, "gnuplot is not installed (Debian: gnuplot-nox)");
	else if (err)
		rc = fail(EXIT_RUNTIME, "gnuplot failed: %s", why[0] ? why : strerror(-err));
	else if (output_file_commit(&of, &d))
		rc = fail(EXIT_RUNTIME, "%s", d.msg);
	if (rc)
		output_file_abort(&of);
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
	enum chart_kind k;
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
	if (!kind)
		return cli_usage_error("plot", "--kind is needed: scaling, speedup, nic_speed, "
					       "breakdown, cost, paths, collectives or busbw");
	if (chart_kind_parse(kind, &k))
		return cli_usage_error("plot", "--kind: unknown kind '%s' (scaling, speedup, "
					       "nic_speed, breakdown, cost, paths, collectives or busbw)",
				       kind);
	if (!out)
		return cli_usage_error("plot", "-o: where the chart goes (.svg or .png)");
	return plot(argv[optind], k, out);
}
