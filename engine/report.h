/* SPDX-License-Identifier: MIT */
/*
 * report: records as people and tools read them: a terminal table, JSON,
 * CSV and a Chrome/Perfetto timeline (ui.perfetto.dev opens it).
 */
#ifndef GDRLAB_REPORT_H
#define GDRLAB_REPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "plan.h"
#include "records.h"

/* What a report says about the run besides the records. */
struct report_context {
	const struct plan *plan;
	const char *topology_file;
	const char *trace_file;
};

/* What `compare` runs: the same trace on each data path. */
enum report_path {
	REPORT_DIRECT,        /* GPUDirect RDMA where the GDR level allows */
	REPORT_STAGED,        /* NCCL's host staging */
	REPORT_STAGED_MEMCPY, /* MPI/UCX's: copies through bounce buffers */
	REPORT_PATHS,
};
extern const enum plan_path report_path_plan[REPORT_PATHS];

void report_table(FILE *out, const struct report_context *ctx,
		  const struct records *r);
void report_compare_table(FILE *out, const struct report_context *ctx,
			  const struct records *const r[REPORT_PATHS]);

/* New references; NULL on allocation failure. */
json_t *report_json(const struct report_context *ctx, const struct records *r);
json_t *report_compare_json(const struct report_context *ctx,
			    const struct records *const r[REPORT_PATHS]);
/* Writes @doc and drops the reference (as json_object_set_new steals it),
 * so report_json_write(f, report_json(...)) leaks nothing. */
int report_json_write(FILE *out, json_t *doc);

/* @header: start with the row of column names. */
int report_csv(FILE *out, const struct records *r, bool header);
int report_timeline(FILE *out, const struct records *r);

/* Speedup of @fast over @slow: iteration time, or communication time. */
double report_speedup(const struct records *slow, const struct records *fast);
double report_comm_speedup(const struct records *slow, const struct records *fast);

#endif
