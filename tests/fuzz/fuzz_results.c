/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for what reads gdrlab's results JSON back: the charts
 * of 'gdrlab plot' (cli/chart.c) and the page of 'gdrlab report'
 * (cli/report_run.c, report_sweep.c). A results file may be edited, or
 * come from someone else, so any JSON must give a chart, a page, or a
 * one-line reason, never a crash, a leak or a hang, and two properties
 * hold whatever it says:
 *   - gnuplot runs a `command` through sh anywhere outside a single-quoted
 *     string, so every backquote of a chart's commands lies inside one;
 *   - the page has no script (report_html.h): text from the document is
 *     escaped, so no "<script" comes into it.
 * gnuplot itself is not run (chart_write stops short of it), and the
 * page's node drawing, which reads the topology files a document names,
 * is left out.
 */
#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart.h"
#include "report_page.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Whether every backquote of @s (@n bytes) lies inside a gnuplot
 * single-quoted string, where '' is a quote and nothing else is special. */
static int backquotes_quoted(const char *s, size_t n)
{
	int in = 0;

	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\'') {
			if (in && i + 1 < n && s[i + 1] == '\'')
				i++;
			else
				in = !in;
		} else if (s[i] == '`' && !in) {
			return 0;
		}
	}
	return 1;
}

/* Chart @k of @doc's commands and data, checked; its status. */
static int write_checked(enum chart_kind k, json_t *doc, char *why, size_t len)
{
	FILE *data = tmpfile(), *gp;
	char *script = NULL;
	size_t n = 0;
	int err;

	gp = open_memstream(&script, &n);
	if (!data || !gp)
		abort();
	err = chart_write(k, doc, data, gp, "/nonexistent/data", why, len);
	if (fclose(gp) || fclose(data))
		abort();
	if (err != 0 && err != -EINVAL && err != -ENODATA && err != -EDOM)
		abort(); /* what chart.h promises before gnuplot runs */
	if (err == -EDOM && (!why[0] || strchr(why, '\n')))
		abort(); /* a reason, on one line */
	if (!backquotes_quoted(script, n))
		abort();
	if (!err)
		chart_series(k, doc);
	free(script);
	return err;
}

/* cmd_report.c's, without gnuplot: the chart's commands are written and
 * checked, and the figure says what it would hold. */
void report_chart(struct report_page *p, enum chart_kind k, const char *caption)
{
	char why[512];
	int err = write_checked(k, p->doc, why, sizeof(why));

	fprintf(p->f, "<figure data-kind=\"%s\" data-err=\"%d\">", chart_kinds[k].name, err);
	fputs(caption, p->f);
	fputs("</figure>\n", p->f);
	p->charts++;
}

/* cmd_report.c's reads the topology files the document names. */
void report_node(struct report_page *p, const char *topology_file, const char *gdr_level,
		 const char *path)
{
	(void)p;
	(void)topology_file;
	(void)gdr_level;
	(void)path;
}

static int has_script(const char *s, size_t n)
{
	static const char tag[] = "<script";

	for (size_t i = 0; i + sizeof(tag) - 1 <= n; i++) {
		size_t j = 0;

		while (j < sizeof(tag) - 1 && tolower((unsigned char)s[i + j]) == tag[j])
			j++;
		if (j == sizeof(tag) - 1)
			return 1;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *doc = json_loadb((const char *)data, size, 0, NULL);
	struct report_page p = { .results = "fuzz.json" };
	char why[512], *page = NULL;
	size_t n = 0;

	if (!doc)
		return 0;
	for (int k = 0; k < CHART_KINDS; k++)
		if (chart_has_data((enum chart_kind)k, doc))
			write_checked((enum chart_kind)k, doc, why, sizeof(why));
	/* the sections cmd_report.c writes for what it takes */
	p.doc = doc;
	p.f = open_memstream(&page, &n);
	if (!p.f)
		abort();
	if (report_doc_kind(doc) == REPORT_SWEEP)
		report_sweep_sections(&p);
	else if (report_doc_kind(doc) != REPORT_UNKNOWN && !report_run_check(doc, why, sizeof(why)))
		report_run_sections(&p);
	if (fclose(p.f))
		abort();
	if (has_script(page, n))
		abort();
	free(page);
	json_decref(doc);
	return 0;
}
