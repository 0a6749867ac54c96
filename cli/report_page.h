/* SPDX-License-Identifier: MIT */
/*
 * Inside gdrlab report: cmd_report.c reads the results and frames the
 * page, report_run.c writes a run's or compare's sections,
 * report_sweep.c a sweep's, report_cluster.c the node's PCIe tree.
 */
#ifndef GDRLAB_REPORT_PAGE_H
#define GDRLAB_REPORT_PAGE_H

#include <jansson.h>
#include <stdio.h>

#include "chart.h"
#include "topology.h"

struct report_page {
	FILE *f;
	json_t *doc;         /* the results */
	const char *results; /* their file, for messages */
	const char *topology; /* --topology: the node to draw, or NULL */
	struct topo_override sets[8]; /* a run's --set values (topology_set) */
	unsigned nsets;
	char scratch[64];    /* a folder the charts are drawn in */
	unsigned charts;     /* figures so far: each one's id prefix */
	unsigned nodes;      /* nodes drawn so far */
	int err;             /* the first fatal error (no gnuplot), or 0 */
};

/*
 * Chart @k of @p's document as a figure with @caption, drawn by gnuplot
 * and inlined; where nothing can be drawn (every point failed, data not
 * as gdrlab writes it), a box saying so instead. The figure carries
 * data-kind and data-series (the series gnuplot draws) for a check.
 */
void report_chart(struct report_page *p, enum chart_kind k, const char *caption);

/* A number as the tables show it: 4 significant digits, "-" for none. */
const char *report_num(json_t *v, double scale, char *buf, size_t len);

/*
 * What wrote @doc: a sweep (a plan's object of points, or a file of
 * points' array), a compare (direct and staged runs, staged_memcpy
 * perhaps), a run (its collectives), or none of them.
 */
enum report_doc { REPORT_RUN, REPORT_COMPARE, REPORT_SWEEP, REPORT_UNKNOWN };
enum report_doc report_doc_kind(json_t *doc);

/*
 * Whether each run of a run or compare document has what its sections
 * read, of the type they read it as: its cluster's nodes, GPUs and NICs
 * a node (whole numbers), its collectives (objects, each with a whole
 * iteration and ranks and a time). 0, or -EINVAL with what is wrong in
 * @why: "direct: 'nodes' is not a whole number".
 */
int report_run_check(json_t *doc, char *why, size_t len);

/* The sections of a document report_doc_kind calls a run or a compare,
 * or a sweep. */
void report_run_sections(struct report_page *p);   /* a run or a compare */
void report_sweep_sections(struct report_page *p); /* a sweep */

/* The node of @topology_file drawn, at GDR level @gdr_level ("P2C"), for
 * a run of @path ("staged", ...: one that never uses GPUDirect RDMA is
 * drawn staged throughout; NULL: a sweep's node, whatever its paths). */
void report_node(struct report_page *p, const char *topology_file, const char *gdr_level,
		 const char *path);

#endif
