/* SPDX-License-Identifier: MIT */
/*
 * plan: what a trace asks of a cluster, down to the links.
 *
 * Each collective becomes algorithm steps (ring, chain, pairwise exchange),
 * each step point-to-point transfers between GPUs that run at the same
 * time, and each transfer a list of stages on its path:
 *
 *   direct: [NIC reads GPU (P2P)] [wire] [NIC writes GPU (P2P)]
 *   staged: [copy GPU->host] [NIC reads host] [wire] [NIC writes host]
 *           [copy host->GPU], chunked through bounce buffers
 *   inside a node: [NVLink or PCIe P2P]
 *
 * Collectives of the same shape (op, group, root) share one "pattern": the
 * steps and transfers with each transfer's share of the collective's bytes.
 * A backend times a pattern once per size, not once per bucket.
 */
#ifndef GDRLAB_PLAN_H
#define GDRLAB_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "maxmin.h"
#include "resources.h"
#include "topo_path.h"
#include "topology.h"
#include "trace.h"

enum stage_kind {
	STAGE_INTRA,     /* GPU to GPU inside a node: NVLink or PCIe P2P */
	STAGE_D2H,       /* copy GPU -> host bounce buffer */
	STAGE_NIC_READ,  /* the NIC reads the data (GPU or host memory) */
	STAGE_WIRE,      /* NIC to NIC through the fabric */
	STAGE_NIC_WRITE, /* the NIC writes the data (GPU or host memory) */
	STAGE_H2D,       /* copy host bounce buffer -> GPU */
	STAGE_KIND_COUNT,
};

const char *stage_kind_name(enum stage_kind k); /* "copy_to_host", ... */

enum plan_path {
	PLAN_PATH_STAGED,
	PLAN_PATH_DIRECT,
	PLAN_PATH_AUTO, /* as NCCL: direct where the GDR level allows it */
};
const char *plan_path_name(enum plan_path p);
int plan_path_parse(const char *s, enum plan_path *p);

/* The path a collective actually used. */
enum plan_path_used {
	PLAN_USED_NONE,   /* never left a node */
	PLAN_USED_STAGED,
	PLAN_USED_DIRECT,
	PLAN_USED_MIXED,  /* some NIC sides direct, some staged */
};
const char *plan_path_used_name(enum plan_path_used p);

#define PLAN_MAX_STAGES 6
#define PLAN_MAX_USES 48

struct plan_stage {
	enum stage_kind kind;
	unsigned segment;      /* stages in one segment pass each chunk through
				* cut-through; segments hand over whole chunks */
	bool gpu_memory;       /* NIC stages: the NIC touches GPU memory */
	double latency;        /* seconds, paid once per transfer */
	double chunk_overhead; /* seconds of work per chunk (copies) */
	double bandwidth;      /* bytes/s alone on the links, private cap included */
	double private_cap;    /* bytes/s no other transfer shares (a copy
				* engine); INFINITY when none */
	unsigned first_use, nuses; /* this stage's entries in the transfer's uses */
};

struct plan_transfer {
	unsigned src_rank, dst_rank;
	double share;  /* fraction of the collective's bytes it carries */
	bool chunked;  /* pipelined through bounce buffers (a side is staged) */
	unsigned nstages;
	struct plan_stage stages[PLAN_MAX_STAGES];
	/* Stage resources, in stage order, each with weight 1. */
	unsigned nuses;
	struct maxmin_use uses[PLAN_MAX_USES];
	/* The same, merged: one entry per resource with summed weights. */
	unsigned nflow_uses;
	struct maxmin_use flow_uses[PLAN_MAX_USES];
	double cap; /* private cap: the smallest copy bandwidth on the path */
};

enum plan_step_kind {
	PLAN_STEP_PARALLEL, /* transfers run side by side; the slowest ends it */
	PLAN_STEP_CHAIN,    /* a pipelined chain (broadcast): latencies add up */
};

struct plan_step {
	enum plan_step_kind kind;
	unsigned repeat;       /* identical steps in a row (ring symmetry) */
	size_t first_transfer; /* into plan_pattern.transfers */
	size_t ntransfers;
};

struct plan_pattern {
	enum trace_op op;
	unsigned nranks;
	unsigned *ranks;         /* owned; the group in ring order */
	int root, peer;
	size_t nsteps;
	struct plan_step *steps; /* owned */
	size_t ntransfers;
	struct plan_transfer *transfers; /* owned */
	enum plan_path_used path;
	char fallback[256];      /* why direct was not used; "" if it was */
	unsigned nfallback;      /* NIC sides that fell back to staged */
	double bus_factor;       /* nccl-tests busbw = algbw * bus_factor */
};

struct plan_options {
	enum plan_path path;
	enum topo_path_type gdr_level;
	unsigned nodes;         /* 0: the topology's own */
	uint64_t chunk_bytes;   /* 0: the topology's own */
	unsigned buffers;       /* 0: the topology's own */
};

void plan_options_default(struct plan_options *o);

struct plan_collective {
	size_t entry;   /* index into the trace */
	size_t pattern; /* index into plan.patterns */
	uint64_t bytes;
};

struct plan {
	struct topology topo;    /* copy, with the options applied */
	const struct trace *trace; /* borrowed; must outlive the plan */
	struct plan_options opts;
	unsigned nodes, gpus_per_node, nranks;
	unsigned nchannels;      /* rings per collective: one per NIC */
	struct res_layout layout;
	size_t npatterns;
	struct plan_pattern *patterns; /* owned */
	size_t ncollectives;
	struct plan_collective *collectives; /* owned; trace order */
};

/*
 * Build the plan for @trace on @topo. Errors that are the input's (a rank
 * outside the cluster, too many nodes) return -EINVAL with @d filled.
 */
int plan_build(struct plan *p, const struct topology *topo,
	       const struct trace *trace, const struct plan_options *opts,
	       struct diag *d);
void plan_destroy(struct plan *p);

/* nccl-tests' busbw factor (doc/PERFORMANCE.md): all-reduce 2(n-1)/n;
 * reduce-scatter, all-gather, alltoall (n-1)/n; broadcast, send/recv 1. */
double plan_bus_factor(enum trace_op op, unsigned n);

/* Capacities of every resource of the plan's cluster; caller frees. */
double *plan_capacities(const struct plan *p);

#endif
