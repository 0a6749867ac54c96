/* SPDX-License-Identifier: MIT */
/*
 * validate_nccl_tests: between validate_nccl_tests.c (the command line,
 * the file, the prediction, the verdicts) and validate_nccl_tests_print.c
 * (the table and the JSON). Not used elsewhere.
 */
#ifndef GDRLAB_VALIDATE_NCCL_TESTS_H
#define GDRLAB_VALIDATE_NCCL_TESTS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cli.h"
#include "nccl_conv.h"
#include "nccl_tests.h"
#include "predict_sizes.h"

enum vnt_regime_kind { VNT_LATENCY, VNT_BANDWIDTH, VNT_REGIMES };

/* A row is latency-bound where its predicted busbw is below half the
 * peak the prediction reaches, at the file's sizes or, where they stop
 * short of it, at this size too (a collective's busbw is near its peak
 * there on every preset). */
#define VNT_PEAK_BYTES (256ull << 20)

/* A regime with a row nccl-tests found wrong elements in is
 * VNT_CORRUPTED whatever its times: a run that failed its own data check
 * is no measure of the hardware (the emu and real backends' verdict). */
enum vnt_verdict { VNT_NORMAL, VNT_SLOWER, VNT_FASTER, VNT_CORRUPTED, VNT_MIXED };

struct vnt_args {
	const char *file, *topology, *backend, *json, *op;
	const char *gpus;     /* --gpus: each host's GPUs the file's ranks ran on */
	struct plan_options opts;
	struct cli_sets sets; /* --set PATH=VALUE */
	double tolerance; /* percent */
	bool quiet;
	bool path_set;    /* -p given: a busbw table's own path is not taken */
};

/* One size of the file, measured and predicted. */
struct vnt_row {
	const struct nccl_tests_row *row;
	const struct nccl_tests_result *measured; /* the half used */
	double error_pct;
	enum vnt_regime_kind regime;
};

struct vnt_regime {
	size_t n;
	uint64_t min_size, max_size;
	double mean_error_pct;
	double mean_abs_error_pct; /* sizes off both ways cancel in the mean:
				    * beyond the tolerance here, within it
				    * there, the regime is VNT_MIXED */
	long long wrong;      /* wrong elements nccl-tests counted, both halves */
	size_t wrong_rows;    /* the rows they were in */
	enum vnt_verdict verdict;
};

struct vnt_run {
	const struct vnt_args *a;
	const struct nccl_tests_file *f;
	const struct topology *topo;
	const struct nccl_coll *coll;
	const struct nccl_type *type;
	enum trace_redop redop;     /* the rows' reduction (check_op_columns) */
	const char *backend;
	unsigned nodes, nranks;
	struct node_gpus gpus;      /* --gpus read, or the file's devices
				     * (gpus_from_file); n 0: every GPU */
	bool gpus_from_file;
	size_t n, unmeasured; /* rows compared; rows with no time in either half */
	struct vnt_row *rows;       /* owned */
	struct predict_point *pts;  /* owned, one per row, and the peak's
				     * reference after them where the rows
				     * stop short of it (VNT_PEAK_BYTES) */
	double peak_busbw;          /* highest predicted busbw */
	uint64_t peak_size;         /* its size */
	/* The NCCL the file says it ran with ("2.27.3"), when that chose
	 * the release (no --nccl); "" otherwise. */
	char file_nccl[16];
	struct vnt_regime regimes[VNT_REGIMES];
};

void vnt_print_table(FILE *out, const struct vnt_run *r);
/* A new reference; NULL on allocation failure. */
json_t *vnt_json(const struct vnt_run *r);

#endif
