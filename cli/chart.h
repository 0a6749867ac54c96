/* SPDX-License-Identifier: MIT */
/*
 * Charts of gdrlab's JSON results, drawn by gnuplot (Debian's
 * gnuplot-nox), not by hand: what 'gdrlab plot' writes to a file and
 * 'gdrlab report' inlines into its page (docs/sweep-format.md, "Charts",
 * says why gnuplot).
 */
#ifndef GDRLAB_CHART_H
#define GDRLAB_CHART_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum chart_kind {
	CHART_SCALING,     /* a plan's scaling question: efficiency vs nodes */
	CHART_SPEEDUP,     /* gdr_speedup: staged / direct as a heat map */
	CHART_NIC_SPEED,   /* nic_speed: exposed share vs the NIC axis */
	CHART_BREAKDOWN,   /* breakdown: stage busy times per point */
	CHART_COST,        /* cost: each point's iteration in money */
	CHART_PATHS,       /* a run or compare: its iteration per path */
	CHART_COLLECTIVES, /* a run or compare: each collective's time */
	CHART_BUSBW,       /* busbw's predicted curve, or validate
			    * --nccl-tests' measured and predicted ones */
	CHART_KINDS,
};

struct chart_kind_info {
	const char *name;     /* --kind's value */
	const char *question; /* its key under a plan's "questions"; NULL: a
			       * run's or compare's chart */
	const char *asked;    /* the question as a plan asks it, what messages
			       * call it (breakdown's key is breakdown_us) */
};

extern const struct chart_kind_info chart_kinds[CHART_KINDS];

/* The kind called @name; -EINVAL if none is. */
int chart_kind_parse(const char *name, enum chart_kind *k);

/*
 * The runs in a run's or compare's document: a run's is the document
 * itself, a compare's one object per path (direct, staged,
 * staged_memcpy) in that order. Their count; 0 when @doc is neither.
 */
size_t chart_runs(json_t *doc, json_t *runs[3]);

/*
 * A run's communication in flight an iteration, calls at once counted
 * once (comm_busy_us): what the paths chart and the page show, never
 * beyond the iteration. A file written before that key: its summed
 * comm_time_us, at most its iteration.
 */
double chart_comm_busy(json_t *run);

/* Whether a plan's cost answer @cost (its points') is per million tokens
 * too: the plan, or its generator, gave the tokens. What the chart draws
 * and the report leads with. */
bool chart_cost_has_tokens(json_t *cost);

/* Whether @doc (a run's, compare's or plan's --json) has what chart @k
 * draws. */
int chart_has_data(enum chart_kind k, json_t *doc);

/* The number of series chart @k draws from @doc (lines, bar colours, 1
 * for a heat map), as a check can count them in the drawing. */
size_t chart_series(enum chart_kind k, json_t *doc);

/*
 * Draw chart @k of @doc into @out_path with gnuplot, an SVG when @svg,
 * else a PNG. 0; -EINVAL when @doc lacks the chart's data or it is not
 * as gdrlab writes it; -ENODATA when it has no value to draw (every
 * point failed); -EDOM when it has values but none the chart can show,
 * why in @why; -ENOENT when gnuplot is not installed; another -errno
 * when gnuplot or a scratch file failed, its first complaint in @why.
 */
int chart_draw(enum chart_kind k, json_t *doc, const char *out_path, bool svg, char *why,
	       size_t len);

/*
 * What chart_draw hands gnuplot, without gnuplot: chart @k of @doc's
 * commands into @gp (after the terminal and output it sets) and their
 * data into @data (read back, so opened for update), which the commands
 * name @data_path. 0, -EINVAL, -ENODATA or -EDOM as chart_draw.
 */
int chart_write(enum chart_kind k, json_t *doc, FILE *data, FILE *gp, const char *data_path,
		char *why, size_t len);

/* Whether scaling series @s (an object of the answer's "series") has no
 * efficiency because its point at the first node count, @first, failed
 * while others ran: the reference each is measured against. */
bool chart_scaling_unreferenced(json_t *s, const char *first);

/* The values scaling's answer @q goes along: its "nodes", or where it
 * scaled a generated job by its replicas ("axis": "gen.dp"), its "dp",
 * with *@dp set; NULL where it has neither. */
json_t *chart_scaling_values(json_t *q, bool *dp);

/* @label ("trace=../../traces/bert-large-ddp.jsonl nodes=8") with each
 * file-valued part by the file's name alone ("trace=bert-large-ddp
 * nodes=8"): how charts and the report's tables show a point. */
void chart_short_label(const char *label, char *buf, size_t len);

#endif
