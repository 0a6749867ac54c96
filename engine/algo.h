/* SPDX-License-Identifier: MIT */
/*
 * algo: NCCL's collective algorithms as a table, one file each
 * (algo_ring.c, algo_tree.c, ...), listed in all_algos.c.
 *
 * An algorithm knows two things. Its cost as NCCL's tuner models it
 * (src/graph/tuning.cc): a latency and a bandwidth per protocol, which
 * tuner.c compares across the table to choose, as NCCL does. And its
 * structure: the connections, pipes and hop chains a collective becomes
 * (plan.h), which the backends time. tuner.c and plan.c call these for
 * both; what they still decide by algorithm is what NCCL's enqueue.cc
 * decides outside its cost model too: which algorithms need the same
 * ranks on every node or refuse 8-bit reductions (NVLS), and a call's
 * threads and channels (topoGetAlgoInfo), and so how many channels a
 * pattern is built with.
 */
#ifndef GDRLAB_ALGO_H
#define GDRLAB_ALGO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "channels.h"
#include "nccl_tuning.h"
#include "p2p_schedule.h"
#include "plan.h"
#include "proto.h"

/* What NCCL's cost model looks at: the communicator and its graphs. */
struct tune_ctx {
	const struct plan *p;
	enum trace_op op;
	enum trace_dtype dtype; /* the call's: set per call (plan.c) */
	enum trace_redop redop; /* the call's too */
	unsigned nranks, nnodes, ppn;
	bool regular;       /* the same number of ranks on every node */
	int src, dst;       /* send/receive: its two ranks */
	struct nccl_channels ch;
	bool net_gdr;       /* the network sides read and write GPU memory */
	bool in_network;    /* the fabric reduces (CollNet) */
	struct p2p_budget p2p; /* send/receive and alltoall: their channels */
};

struct algo_build;
struct route_req;

struct algo_ops {
	const char *name; /* as NCCL_ALGO spells it */
	/*
	 * NCCL's table entry for @op with protocol @p: latency in us and
	 * bandwidth in GB/s (the bw of time = lat + bytes / (1000 * bw)).
	 * *bw = 0 when NCCL would not use it here; @why then says why.
	 */
	void (*cost)(const struct tune_ctx *t, enum proto_id p, double *lat,
		     double *bw, char *why, size_t len);
	/* Size-dependent refinements of ncclTopoGetAlgoTime (optional). */
	void (*refine)(const struct tune_ctx *t, enum proto_id p,
		       uint64_t bytes, unsigned nchannels, double *lat,
		       double *bw);
	/* The connections and pipes of the pattern (channels b->nch). */
	int (*build)(struct algo_build *b);
	/* The chunk pipe @pp of a call of @bytes on @nchannels uses, when
	 * the algorithm shrinks it for small calls (optional; else the
	 * pipe's). */
	uint64_t (*chunk)(const struct plan *p, const struct plan_pattern *pat,
			  const struct plan_pipe *pp, uint64_t bytes, unsigned nchannels);
};

/* The table, indexed by enum algo_id (all_algos.c). */
extern const struct algo_ops *const algo_table[ALGO_COUNT];
const char *algo_name(enum algo_id a);
int algo_parse(const char *s, enum algo_id *a); /* any case */

/* Which ops an algorithm of NCCL's serves (tuning.cc's skips). */
bool algo_serves(enum algo_id a, enum trace_op op);

/* NIC sides that went direct or fell back to staging; the first reason
 * for a fallback, "" when none. */
struct route_notes {
	unsigned staged_sides, direct_sides;
	char why[200];
	/* the first GPU pair copying through host memory (NCCL's SHM), and
	 * why; "" if none */
	char shm[PLAN_SHM_NOTE_MAX];
};

/* Connections a rank makes a channel in most algorithms (a tree's: to
 * its parent and two children, up and down, and its chain's), the room
 * algo_build_init takes for them. */
#define ALGO_CONNS_A_RANK 8

/*
 * Building a pattern. An algorithm opens a pipe per channel (and more
 * when a channel has several, as a double binary tree's two trees do),
 * adds its connections with their volume and latency, ties each to the
 * connections it waits for, and lists the chain of hops a slice crosses.
 */
struct algo_build {
	const struct plan *p;
	const struct tune_ctx *t;
	struct plan_pattern *pat;
	unsigned nch;             /* channels to build */
	/* Bookkeeping of algo_build.c. */
	size_t cap_conns, cap_pipes, cap_hops, cap_routes;
	size_t nslots;            /* route lookup table: index + 1, 0 free */
	uint32_t *slots;
	struct route_req *reqs;   /* the request each route was made for */
	size_t cap_reqs;
	struct route_notes notes;
};

/* Start and end a build; algo_build_end frees the bookkeeping and,
 * on @err, what was built. */
void algo_build_init(struct algo_build *b, const struct plan *p,
		     const struct tune_ctx *t, struct plan_pattern *pat,
		     unsigned nch);
int algo_build_end(struct algo_build *b, int err);

/* The kinds of connection a route is made for. */
enum conn_kind {
	CONN_P2P,          /* rank to rank: NVLink, PCIe or the network */
	CONN_NVLS_REDUCE,  /* a GPU's data into the NVSwitch, reduced there */
	CONN_NVLS_MCAST,   /* the NVSwitch multicasting to a GPU */
	CONN_COLLNET,      /* a node's NIC to the reducing fabric and back */
};

int algo_pipe_begin(struct algo_build *b, enum pipe_shape shape,
		    unsigned channel, double share);
/* The pipe being built. */
struct plan_pipe *algo_pipe(struct algo_build *b);
/*
 * A connection from @src to @dst (for NVLS and CollNet, both the GPU)
 * on channel @channel carrying @volume payload bytes per collective byte;
 * its latency is NCCL's for @hop's class unless @latency_us >= 0 says
 * otherwise. *out gets its index.
 */
int algo_conn(struct algo_build *b, enum conn_kind kind, unsigned src,
	      unsigned dst, unsigned channel, double volume,
	      double latency_us, uint32_t *out);
/* The same through NICs the channel's layout chose (-1: the GPU's own). */
int algo_conn_via(struct algo_build *b, enum conn_kind kind, unsigned src,
		  unsigned dst, unsigned channel, int nic_src, int nic_dst,
		  double volume, double latency_us, uint32_t *out);

/*
 * Channel @c's layout on the @node-th node of the group (channels.h), and
 * the rank at place @k of it.
 */
/* A channel leaves a node by the NIC it came in by where NCCL's search
 * keeps it there, and with switches and PXN always (its rail), the exit
 * GPU relaying through that NIC's GPU. */
void algo_rail_align(const struct algo_build *b, struct channel_layout *l);
void algo_layout(const struct algo_build *b, unsigned node, unsigned c,
		 struct channel_layout *l);
/* The local GPUs of the group's @node-th node, in its ranks' order. */
void algo_node_gpus(const struct algo_build *b, unsigned node, unsigned *gpus);
unsigned algo_layout_rank(const struct algo_build *b, unsigned node,
			  const struct channel_layout *l, unsigned k);
int algo_dep(struct algo_build *b, uint32_t conn, uint32_t dep);
int algo_hop(struct algo_build *b, uint32_t conn);

/* NCCL's per-hop latency, us, for a hop of class @h of this pattern
 * (ring intra hops across nodes pay at least the network overhead). */
double algo_hop_latency(const struct algo_build *b, enum hop_class h);

/* The rank of local GPU @gpu on node @node (group order is ranks). */
static inline unsigned algo_rank(const struct algo_build *b, unsigned node,
				 unsigned gpu)
{
	return b->pat->ranks[node * b->t->ppn + gpu];
}

/* Group helpers shared by several algorithms. */
unsigned algo_log2(unsigned n); /* floor(log2(n)), 0 for n < 2 */

/* NCCL's double binary tree: node @r's parent and children in tree
 * @which (0 or 1) of @n nodes, -1 for none (algo_tree.c). */
void algo_dtree(int n, int r, int which, int *up, int *d0, int *d1);
/* NVLS, shared by NVLS and NVLS-tree (algo_nvls.c). */
bool algo_nvls_available(const struct tune_ctx *t, char *why, size_t len);
double algo_nvls_bw(const struct tune_ctx *t, bool tree);
double algo_nvls_algbw(const struct tune_ctx *t, bool tree, unsigned nsteps);
/* One of enqueue.cc's chunk cuts: a call of fewer than @chunks chunks a
 * concurrent op (a channel's head; one a GPU here) takes @to where its
 * chunk is larger. algo_nvls_chunk_cut applies @cuts in order from
 * @chunk. */
struct nvls_chunk_cut {
	uint64_t chunks, to;
};
uint64_t algo_nvls_chunk_cut(uint64_t chunk, uint64_t bytes, const struct plan *p,
			     unsigned nchannels, const struct nvls_chunk_cut *cuts, size_t n);
/* The chunk an NVLS or NVLS-tree pattern's pipes were built with: the
 * communicator's (ncclNvlsTuning), before a call's cuts. */
uint64_t algo_nvls_pattern_chunk(const struct plan_pattern *pat);
/* Whether a send/receive from @src to @dst, or an alltoall over @nnodes
 * nodes, crosses the network (algo_p2p.c). */
bool algo_p2p_network(const struct plan *p, enum trace_op op, unsigned nnodes, int src,
		      int dst);
/* The ranks a node of an alltoall over the sorted @ranks (@n of them)
 * takes where its sends can be planned from two nodes (algo_p2p.c,
 * alltoall_fold): 0 where they cannot. */
unsigned algo_alltoall_fold(const struct plan *p, const unsigned *ranks, unsigned n);
/* Channels a send from GPU @g of a node to another node uses at most,
 * release @r counting the links. */
unsigned algo_p2p_net_channels(const struct nccl_release *r, const struct topology *t,
			       unsigned g);

#endif
