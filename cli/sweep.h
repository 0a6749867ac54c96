/* SPDX-License-Identifier: MIT */
/*
 * Inside gdrlab sweep: cmd_sweep.c reads the file and prints the rows,
 * sweep_run.c runs the points in forked processes, sweep_spread.c spreads
 * them over the ranks of an mpirun or srun launch. cmd_sweep.h is the API.
 */
#ifndef GDRLAB_SWEEP_H
#define GDRLAB_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cli.h"
#include "diag.h"
#include "plan.h"

#define SWEEP_MAX_POINTS 100000
#define SWEEP_TICK_MS 1000 /* launched ranks line up this often */

#define SWEEP_MAX_AXES 8
#define SWEEP_AXIS_VALUES 4096
#define SWEEP_VALUE_MAX 96

struct point {
	char name[64], topology[1024], trace[1024], backend[32];
	char gen[512];            /* a plan's generator options, "key=value" lines;
				   * "" when the point has a trace file */
	char algo[64], proto[64]; /* NCCL_ALGO / NCCL_PROTO; "" for all */
	struct plan_options opts;  /* opts.algo, opts.proto: set where it runs */
	unsigned line;
	/* A plan's point (sweep_plan.c): its value of each axis. */
	uint16_t axis_value[SWEEP_MAX_AXES];
};

/* One axis of a sweep plan: a key of the point, or a dotted topology
 * path ("nics.rate") whose values override the topology file's. */
struct sweep_axis {
	char name[64];
	bool topology_path;
	bool gen_option;     /* "gen.KEY": an option of the plan's generator */
	unsigned line, nvalues;
	char (*values)[SWEEP_VALUE_MAX]; /* owned */
};

/* One point's outcome, fixed-size: sent whole over a pipe from the point's
 * process, and between ranks. */
struct row {
	int err;                    /* 0 or a negative errno */
	char error[512];    /* as struct diag's message */
	char topo_name[64];
	unsigned nodes, gpus;
	enum plan_path_used path_used; /* records_path_used: whether it
					* left its nodes, and how */
	unsigned ranks_used;        /* the trace's (trace_ranks_used), where
				     * fewer than gpus: the rest idle; else 0 */
	double iteration_us, comm_us, exposed_us, wall_s;
	double busy_us;             /* communication in flight, calls at once
				     * counted once (records.comm_busy_us) */
	unsigned nics;              /* a node's */
	double switch_ports;        /* the fabric's switch ports a node takes */
	double tokens;              /* an iteration's, when a generator made the trace */
	double gen_tflops;          /* the --gpu-tflops the generator took from the
				     * topology (the plan gave none), else 0 */
	/* stage busy time of the collectives' bottleneck connections, an
	 * iteration (the run table's last lines) */
	double stage_us[STAGE_KIND_COUNT];
	bool concurrent; /* calls ran at once (records_concurrent): each
			  * stage's time is summed over them */
};

/*
 * A plan's questions (sweep_questions.c), each answered from the rows as
 * a small table after them: how the iteration scales with nodes, and what
 * GPUDirect RDMA buys over two axes.
 */
struct sweep_questions {
	bool scaling;          /* efficiency against the first node count */
	double threshold;      /* ... and where it falls below this */
	int scale_axis;        /* ... along this axis (index): nodes, or ... */
	bool scale_dp;         /* ... the generator's gen.dp (weak scaling of
				* the job: tokens a second a GPU, not the
				* iteration, sweep_questions.c) */
	bool speedup;          /* staged over direct iteration, rows x columns */
	int rows, columns;     /* axes of the heat map (indices) */
	bool nic_speed;        /* the first value of axis @nic_axis where ... */
	int nic_axis;
	double exposed_share;  /* ... exposed communication is at most this */
	bool breakdown;        /* each point's stage busy times */
	bool cost;             /* per iteration and per million tokens */
	double gpu_hour, nic_hour, switch_port_hour; /* prices an hour */
	double tokens, tokens_per_gpu; /* an iteration's tokens, whole or a GPU's (0: none) */
};

struct sweep {
	size_t n;
	struct point *pts;  /* owned */
	struct row *rows;   /* owned */
	unsigned naxes;     /* a plan's; 0 for a file of points */
	struct sweep_axis axes[SWEEP_MAX_AXES];
	struct progress *progress; /* points done on stderr; NULL for none */
	bool no_wall;       /* leave the points' wall times out (--no-wall) */
	struct sweep_questions questions;
	char plan_file[1024]; /* a plan's file, "" for a file of points */
	char title[256];      /* a plan's title: the question it answers */
};

/* The index of axis @name, or -1; of @value among an axis's, or -1. */
int sweep_axis_index(const struct sweep *sw, const char *name);
int sweep_value_index(const struct sweep_axis *a, const char *value);

/* The plan's questions answered from @sw's rows: a table on @out, or
 * (@json non-NULL) an object set on it. 0, or -ENOMEM. */
struct json_t;
bool sweep_has_questions(const struct sweep *sw);
int sweep_questions_print(const struct sweep *sw, FILE *out);
int sweep_questions_json(const struct sweep *sw, struct json_t *doc);

/* "nccl" of a point: the tables of nccl_tuning.h that stand for that
 * release (nccl_release_for_version), and their GDR level unless one is
 * given; -1 for what is no NCCL 2 version. */
int sweep_point_nccl(struct point *pt, const char *version);

/* "gdr_level" of a point, as --gdr-level reads it (topo_gdr_level_parse:
 * NCCL_NET_GDR_LEVEL's names or old numbers); -1 with what it takes in
 * @why (@len bytes) where it is none. */
int sweep_point_gdr_level(struct point *pt, const char *s, char *why, size_t len);

/*
 * A plan's generator (sweep_gen.c): a point's `gdrlab gen llm` options as
 * "key=value" lines (@gen, the plan's spelling: micro_batches). put sets
 * one (-E2BIG when full); get copies one's value or gives NULL; check
 * tries one value alone; args makes gen llm's options of all of them (0 or
 * -EINVAL, the reason in @d); command writes them as the command line.
 */
struct gen_llm_args;
int sweep_gen_put(char *gen, size_t len, const char *key, const char *value);
const char *sweep_gen_get(const char *gen, const char *key, char *buf, size_t len);
int sweep_gen_check(const char *key, const char *value, struct diag *d);
int sweep_gen_args(const char *gen, struct gen_llm_args *a, struct diag *d);
void sweep_gen_command(const char *gen, double gpu_tflops, char *buf, size_t len);

/* Read a sweep plan (YAML: a base and axes, sweep_plan.c) into @sw, as
 * sweep_load does a file of points. */
int sweep_plan_load(const char *file, struct sweep *sw, struct diag *d);
void sweep_free(struct sweep *sw);

/* A point's label: its name, or a plan point's axis values. */
void sweep_point_label(const struct sweep *sw, const struct point *p, char *buf, size_t len);
/* The widest of the points' labels, at least @min: a table's first
 * column, so that every row's other columns line up. */
int sweep_label_width(const struct sweep *sw, int min);

/* Read @file: 0, or an exit status (EXIT_USAGE, EXIT_RUNTIME) with the
 * one-line reason in @d. */
int sweep_load(const char *file, struct sweep *sw, struct diag *d);

/*
 * A launched rank's line-up with the others while its points run: called
 * every SWEEP_TICK_MS, and at once when this rank's last point ends (@done).
 * It returns 1 when every rank is done, 0 to go on, or a negative errno to
 * stop (running points are then killed).
 */
struct sweep_tick {
	int (*fn)(void *arg, bool done);
	void *arg;
};

/*
 * Run points @first, @first + @stride, ... at most @jobs at a time, each
 * in a forked process, and fill their rows; with @tick, until it says that
 * every rank is done. 0, -ENOMEM, or @tick's error.
 */
int sweep_run(struct sweep *sw, unsigned jobs, size_t first, size_t stride,
	      const struct sweep_tick *tick);

struct emu_launch;
/*
 * Under a launcher: this rank's share of the points (@load_rc, @load_d:
 * how reading the file went here), then every row gathered to every rank.
 * 0 when the rows are there, on every rank; else the exit status, the same
 * on every rank, after a one-line error: from rank 0 alone when every rank
 * knows it (a bad sweep file), from each rank when the bootstrap fails.
 * @report is true on rank 0 only, which prints the rows.
 */
int sweep_spread(const struct emu_launch *l, const char *file, struct sweep *sw,
		 unsigned jobs, int load_rc, const struct diag *load_d,
		 bool *report);

#endif
