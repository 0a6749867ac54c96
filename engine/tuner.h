/* SPDX-License-Identifier: MIT */
/*
 * tuner: NCCL's choice of algorithm, protocol and channel count for one
 * collective call (src/graph/tuning.cc ncclTopoTuneModel and
 * ncclTopoGetAlgoTime, src/enqueue.cc topoGetAlgoInfo), over the table
 * of algo.h. The fastest enabled (algorithm, protocol) by NCCL's own
 * estimate lat + bytes / (1000 bw) wins; then channels are dropped while
 * the call has fewer bytes than its threads want.
 */
#ifndef GDRLAB_TUNER_H
#define GDRLAB_TUNER_H

#include <stdbool.h>
#include <stddef.h>

#include "algo.h"
#include "diag.h"

/* What NCCL_ALGO and NCCL_PROTO allow, per op. */
struct tune_enable {
	bool algo[TRACE_OP_COUNT][ALGO_NCCL_COUNT];
	/* 1 on, 0 off, 2 NCCL's own default (LL128: where it is safe). */
	int proto[TRACE_OP_COUNT][PROTO_COUNT];
};

void tune_enable_default(struct tune_enable *e);
/*
 * Apply @algo and @proto (either may be NULL) in NCCL_ALGO / NCCL_PROTO
 * syntax: "ring,tree", "^nvls", "allreduce:tree;broadcast:ring" (the
 * first list may go without a prefix). Errors name the option and the
 * word, -EINVAL.
 */
int tune_enable_parse(struct tune_enable *e, const char *algo,
		      const char *proto, struct diag *d);

struct tune_choice {
	enum algo_id algo;
	enum proto_id proto;
	unsigned nchannels;
	unsigned parts;     /* send/receive and alltoall: the channels one
			     * send to a peer is cut over (p2p_schedule.h); 0
			     * for a collective */
	double estimate_us; /* NCCL's estimate of the call; NAN for p2p and
			     * for one rank, which NCCL does not tune */
};

/*
 * The channel searches of a plan's groups, kept by (nodes, GPUs a node):
 * they depend on nothing else of a group, and a job's many groups have
 * few shapes.
 */
struct channels_cache {
	unsigned n;
	struct {
		unsigned nnodes, ppn;
		struct nccl_channels ch;
	} e[16];
};

/*
 * The graphs NCCL searches for the communicator of every rank of @p (its
 * nodes, all GPUs of each): what NCCL_DEBUG_SUBSYS=GRAPH logs.
 */
void tune_world_graphs(const struct plan *p, struct nccl_channels *out);
/* The same for the communicator of the sorted ranks @ranks (@n). */
void tune_group_graphs(const struct plan *p, const unsigned *ranks, unsigned n,
		       struct nccl_channels *out);

/*
 * The communicator NCCL's model sees for @op over the sorted group
 * @ranks (@n of them): nodes, GPUs a node, channel graphs, GDR. @cache
 * (may be NULL: search every time) keeps the channel searches.
 */
void tune_ctx_init(struct tune_ctx *t, const struct plan *p, enum trace_op op,
		   const unsigned *ranks, unsigned n,
		   struct channels_cache *cache);

/*
 * One (algorithm, protocol) entry of NCCL's table for a call of @bytes:
 * its estimate in us, or a negative value with @why when NCCL would not
 * use it (disabled, unsupported here, or not allowed by @e).
 */
double tune_entry(const struct tune_ctx *t, const struct tune_enable *e,
		  enum algo_id a, enum proto_id p, uint64_t bytes, char *why,
		  size_t len);

/*
 * NCCL's choice for a call of @bytes. -EINVAL with @d filled when @e
 * allows nothing that can run.
 */
int tune_choose(const struct tune_ctx *t, const struct tune_enable *e,
		uint64_t bytes, struct tune_choice *c, struct diag *d);

#endif
