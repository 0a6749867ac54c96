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

/*
 * A JSON report being made: the document, and the records whose
 * collectives it lists. Those are written one at a time when the
 * document is: as one tree, a 400,000-collective run took 1.8 GB.
 */
struct report_json {
	json_t *doc;   /* with a placeholder where each list goes */
	unsigned nlists;
	const struct records *lists[REPORT_PATHS];
};

/* Fill @j (a new reference). 0 or -ENOMEM (@j then empty). */
int report_json(const struct report_context *ctx, const struct records *r,
		struct report_json *j);
int report_compare_json(const struct report_context *ctx,
			const struct records *const r[REPORT_PATHS], struct report_json *j);
/* Write @j (the records it names still alive) and drop it, so that
 * report_json(...) then report_json_write(f, ...) leaks nothing; @err
 * (report_json's answer) passes through. */
int report_json_write(FILE *out, struct report_json *j, int err);
/* Any other document (validate's, busbw's), as the reports are laid out;
 * drops the reference. */
int report_json_write_doc(FILE *out, json_t *doc);

/* @header: start with the row of column names. */
int report_csv(FILE *out, const struct records *r, bool header);
/* One CSV field as RFC 4180 has it: quoted, a quote inside doubled (names
 * come from the user's files, and may hold commas, quotes, newlines). */
void report_csv_field(FILE *out, const char *s);
int report_timeline(FILE *out, const struct records *r);

/* Speedup of @fast, the direct run, over @slow, a staged one: iteration
 * time, or communication time; 0 where it is undefined: nothing timed, or
 * @fast never went direct (records_never_direct, which cannot tell a
 * direct run that fell back from a staged one: @fast must be direct). */
double report_speedup(const struct records *slow, const struct records *fast);
/* A speedup this close to 1 reads "as fast as" in a verdict (the table's
 * and the page's), not "1.00x slower". */
#define REPORT_SAME_SPEED 0.005
/* An iteration this little shorter or longer (a share of the staged one)
 * "takes as long either way", in the table's verdict and the page's
 * answer alike: "0.0% shorter" at the table's one decimal. */
#define REPORT_SAME_ITERATION 0.0005
double report_comm_speedup(const struct records *slow, const struct records *fast);

#endif
