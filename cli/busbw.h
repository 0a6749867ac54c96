/* SPDX-License-Identifier: MIT */
/*
 * busbw: between cmd_busbw.c (the command line, the sizes, the run) and
 * busbw_print.c (the table, JSON and CSV). Not used elsewhere.
 */
#ifndef GDRLAB_BUSBW_H
#define GDRLAB_BUSBW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "backend.h"
#include "cli.h"
#include "nccl_conv.h"
#include "predict_sizes.h"

/* More sizes than this is a typing error (nccl-tests' reader's limit). */
#define BUSBW_SIZES_MAX 65536

struct busbw_args {
	const char *topology, *backend, *json, *csv;
	const char *gpus;     /* --gpus: each node's GPUs the run uses */
	const struct nccl_coll *coll;
	const struct nccl_type *type;
	enum trace_redop redop; /* -o: all-reduce and reduce-scatter */
	bool redop_given;
	uint64_t minbytes, maxbytes, stepbytes;
	unsigned stepfactor;  /* > 1: sizes multiply; 1: they add stepbytes */
	struct plan_options opts;
	struct cli_sets sets; /* --set PATH=VALUE */
	bool quiet;
};

struct busbw_run {
	const struct busbw_args *a;
	const struct topology *topo;
	const char *backend;        /* its static name */
	unsigned nodes, nranks;
	struct node_gpus gpus;      /* --gpus read; n 0: every GPU */
	size_t n;                   /* rows, in nccl-tests' order */
	uint64_t *counts;           /* owned: count per row, as printed */
	struct predict_point *pts;  /* owned: size and prediction per row */
	double avg_busbw;           /* nccl-tests' "Avg bus bandwidth" */
	struct nccl_channels graphs; /* NCCL's, for the whole communicator */
};

void busbw_print_table(FILE *out, const struct busbw_run *r);
int busbw_write_json(FILE *out, const struct busbw_run *r);
int busbw_write_csv(FILE *out, const struct busbw_run *r);

#endif
