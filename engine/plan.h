/* SPDX-License-Identifier: MIT */
/*
 * plan: what a trace asks of a cluster, down to the links, as NCCL would
 * run it.
 *
 * For each collective the tuner (tuner.h) picks an algorithm, a protocol
 * and a channel count as NCCL's does. The algorithm (algo.h, one file
 * each) turns the collective into connections, each a directed pair of
 * ranks on one channel with its route through the node and the fabric,
 * and pipes: the connections of one channel that pass the same slices
 * along, with the chain of hops a slice crosses. There is no step: a
 * slice moves on as soon as it has arrived and a slot of the next
 * connection is free (docs/model.md). Timing is the backend's.
 *
 * A route is a list of stages on its path:
 *
 *   direct:         [NIC reads GPU (P2P)] [wire] [NIC writes GPU (P2P)]
 *   staged (NCCL):  [GPU threads write host] [NIC reads host] [wire]
 *                   [NIC writes host] [GPU threads read host]
 *   staged-memcpy:  [copy GPU->host] [NIC reads host] [wire]
 *                   [NIC writes host] [copy host->GPU], per-slice copies
 *   inside a node:  [NVLink] or [PCIe P2P]
 *
 * Routes are written relative to the two nodes they join, so the
 * connections of a homogeneous collective share a handful of them.
 * Collectives of one shape (op, group, root, algorithm, protocol) share one
 * pattern, built for the most channels any of them uses.
 */
#ifndef GDRLAB_PLAN_H
#define GDRLAB_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "maxmin.h"
#include "nccl_tuning.h"
#include "p2p_policy.h"
#include "proto.h"
#include "resources.h"
#include "topo_path.h"
#include "topology.h"
#include "trace.h"

/* "gpuA-gpuB: " and p2p_refused's reason (at most 200 bytes). */
#define PLAN_SHM_NOTE_MAX (2 * TOPO_NAME_MAX + 208)

enum stage_kind {
	STAGE_INTRA,     /* GPU to GPU inside a node: NVLink or PCIe P2P */
	STAGE_D2H,       /* GPU -> host buffer: GPU threads' stores (NCCL)
			  * or a copy engine's copy (memcpy) */
	STAGE_NIC_READ,  /* the NIC reads the data (GPU or host memory) */
	STAGE_WIRE,      /* NIC to NIC through the fabric */
	STAGE_NIC_WRITE, /* the NIC writes the data (GPU or host memory) */
	STAGE_H2D,       /* host buffer -> GPU: loads or a copy */
	STAGE_KIND_COUNT,
};

const char *stage_kind_name(enum stage_kind k); /* "copy_to_host", ... */

enum plan_path {
	PLAN_PATH_STAGED,        /* NCCL's own host staging */
	PLAN_PATH_STAGED_MEMCPY, /* MPI/UCX's: copies through bounce buffers */
	PLAN_PATH_DIRECT,
	PLAN_PATH_AUTO,          /* as NCCL: direct where the GDR level allows */
	PLAN_PATH_COUNT,
};
const char *plan_path_name(enum plan_path p);
int plan_path_parse(const char *s, enum plan_path *p);

/* The path a collective actually used. */
enum plan_path_used {
	PLAN_USED_NONE,   /* never left a node */
	PLAN_USED_STAGED,
	PLAN_USED_STAGED_MEMCPY,
	PLAN_USED_DIRECT,
	PLAN_USED_MIXED,  /* some NIC sides direct, some staged */
};
const char *plan_path_used_name(enum plan_path_used p);
/* Whether collectives that took @p left their nodes, none of them
 * through GPUDirect RDMA (staged, on either staged path). */
static inline bool plan_path_used_never_direct(enum plan_path_used p)
{
	return p == PLAN_USED_STAGED || p == PLAN_USED_STAGED_MEMCPY;
}

#define PLAN_MAX_STAGES 6
#define PLAN_MAX_USES 48
#define PLAN_MAX_DEPS 3

struct plan_stage {
	enum stage_kind kind;
	unsigned segment;      /* stages of one segment pass a slice through
				* cut-through; segments hand over whole slices */
	bool gpu_memory;       /* NIC stages: the NIC touches GPU memory */
	double latency;        /* seconds, the links' own (physical) */
	double chunk_overhead; /* seconds of work per slice (memcpy copies) */
	double bandwidth;      /* bytes/s alone on the links, private cap included */
	double private_cap;    /* bytes/s no other flow shares; INFINITY when none */
	unsigned first_use, nuses; /* this stage's entries in the route's uses */
};

/* A resource a route crosses: a per-node id (resources.h) on its source
 * node or on its destination node. */
struct plan_use {
	uint32_t res;
	bool at_dst;
	double weight;  /* bytes on it per payload byte (NVLS's owner share) */
};

struct plan_route {
	enum hop_class hop;    /* NCCL's latency class of the hop */
	bool intra;            /* inside one node */
	bool send_direct, recv_direct; /* NIC sides on GPU memory */
	bool memcpy;           /* staged the memcpy way */
	bool cut_through;      /* the receiver passes each grain on as it
				* arrives (LL, LL128 between GPUs of a node:
				* a flag per line); across the network the
				* proxy sends whole slots, and Simple waits
				* for a slot's flag */
	unsigned pxn_gpu;      /* PXN: the peer GPU whose NIC sends; else the
				* source GPU */
	int nic_src, nic_dst;  /* NICs of an inter-node hop, else -1 */
	bool fabric;           /* its wire stage crosses the switches between
				* its nodes' leaves (plan_conn_fabric) */
	double latency;        /* seconds: the links' latencies, all stages */
	double private_cap;    /* smallest private cap (a copy engine) */
	unsigned nstages;
	struct plan_stage stages[PLAN_MAX_STAGES];
	unsigned nuses;        /* in stage order */
	struct plan_use uses[PLAN_MAX_USES];
};

/* One connection: slices from one rank to another on one channel. */
struct plan_conn {
	uint32_t src_rank, dst_rank;
	uint32_t route;        /* into plan_pattern.routes */
	uint32_t pipe;         /* into plan_pattern.pipes */
	double volume;         /* payload bytes per byte of the collective */
	double latency;        /* seconds a slice spends on the hop beyond its
				* bytes: NCCL's per-hop latency for the
				* algorithm and protocol, or the links' own if
				* longer */
	unsigned ndeps;        /* connections whose slice it forwards or
				* reduces: its slice q needs their slice q */
	uint32_t deps[PLAN_MAX_DEPS];
};

enum pipe_shape {
	/* Every rank starts with data of its own; a chunk travels `steps`
	 * connections of the ring per loop (ring algorithms). */
	PIPE_RING,
	/* Slices start at the leaves of a dependency tree and flow through
	 * a fixed chain (trees, NVLS, CollNet, PAT, p2p). */
	PIPE_CHAIN,
};

struct plan_pipe {
	enum pipe_shape shape;
	unsigned channel;
	unsigned ranks;          /* PIPE_RING: chunks per loop (ranks in it) */
	unsigned steps;          /* PIPE_RING: connections a chunk crosses a loop */
	unsigned slices_per_chunk;
	unsigned slice_steps;    /* slots a slice takes (NCCL_STEPS in all) */
	uint64_t chunk_bytes;    /* payload of a full chunk (the protocol's) */
	double share;            /* of the collective's bytes: this pipe's */
	double conn_cap;         /* payload bytes/s a connection's threads
				  * move at most on every hop, a slice's
				  * too; INFINITY for none (NCCL's
				  * per-channel limits are stream_cap's) */
	double stream_cap;       /* payload bytes/s a connection takes slices
				  * at most in steady state, without slowing
				  * what one slice takes on its links: a
				  * limit NCCL's cost model puts in the
				  * bandwidth term alone (a tree's and a
				  * ring's per-channel maxima, a ring's LL
				  * share); INFINITY for none */
	double efficiency;       /* of the links' share it gets (NVLS, PAT) */
	double delay;            /* seconds its end comes later than its
				  * slices take, sharing the links with
				  * every other pipe: the latencies of the
				  * batches of NCCL's p2p work before its own
				  * on its channel (algo_p2p.c); 0 for the
				  * rest */
	size_t first_conn, nconns;
	/* The connections a slice crosses, in order: the critical path. */
	size_t first_hop, nhops;
};

struct plan_pattern {
	enum trace_op op;
	enum algo_id algo;
	enum proto_id proto;
	unsigned nranks, nnodes;     /* of its group */
	unsigned *ranks;             /* owned; the group, sorted */
	int root, peer;
	unsigned nchannels;          /* channels built; a call uses a prefix */
	unsigned parts;              /* send/receive and alltoall: channels a
				      * send to one peer takes (0 for others) */
	size_t nroutes;
	struct plan_route *routes;   /* owned */
	size_t nconns;
	struct plan_conn *conns;     /* owned, channel by channel */
	size_t npipes;
	struct plan_pipe *pipes;     /* owned, channel by channel */
	size_t nhops;
	uint32_t *hops;              /* owned; pipes' chains, conn indices */
	double base_latency;         /* seconds per collective (launch) */
	double total_cap;            /* payload bytes/s all channels of a call
				      * move at most on every hop (a tree's
				      * LL llMaxBws), shared evenly;
				      * INFINITY for none */
	double total_stream_cap;     /* payload bytes/s all channels of a call
				      * take at most in steady state (a
				      * ring's LL llMaxBws), shared evenly:
				      * a stream limit as stream_cap;
				      * INFINITY for none */
	enum plan_path_used path;
	char fallback[256];          /* why direct was not used; "" if it was */
	char shm[PLAN_SHM_NOTE_MAX]; /* a GPU pair through host memory, and
				      * why; "" if none (p2p_policy.h) */
	unsigned nfallback;          /* NIC sides that fell back to staged */
	double bus_factor;           /* nccl-tests busbw = algbw * bus_factor */
};

struct plan_options {
	enum plan_path path;
	enum topo_path_type gdr_level;
	unsigned nodes;         /* 0: the topology's own */
	uint64_t chunk_bytes;   /* 0: the topology's own (memcpy staging) */
	unsigned buffers;       /* 0: the topology's own (memcpy staging) */
	const char *algo;       /* NCCL_ALGO syntax; NULL: all */
	const char *proto;      /* NCCL_PROTO syntax; NULL: all */
	unsigned nchannels;     /* 0: as NCCL; else a fixed channel count */
	bool pxn_off;           /* NCCL_PXN_DISABLE=1 */
	enum p2p_user_level p2p_level; /* NCCL_P2P_LEVEL; unset: the release's */
	/* The NCCL release whose tuner and constants the plan follows:
	 * an index into nccl_releases[] (nccl_tuning.h), 0 the newest. */
	unsigned nccl;
	/* The NCCL 2 minor release asked for where another release's tables
	 * stand for it (2.26 in 2.30.7's): what the tables cannot tell
	 * follows it (plan_nccl_minor). 0: the table's own. */
	unsigned nccl_minor;
	/* ... and its patch release (3 for 2.27.3; NCCL_PATCH_LAST where
	 * only 2.Y was given): the search's constants follow it
	 * (nccl_release_exact). Unread where nccl_minor is 0. */
	unsigned nccl_patch;
	bool nccl_set;          /* nccl given, not the default */
	bool gdr_level_set;     /* gdr_level given, not the release's default */
	/* The collectives of gdrlab's own verbs ring, as emu and real run
	 * them: one ring channel, each rank's block sent whole, a step as
	 * soon as the last one arrived, no NCCL software costs (the links'
	 * latencies only). Backends without BACKEND_CAP_ALGORITHMS get it,
	 * and `validate` predicts them with it. */
	bool ring_only;
	/* The calls' 8-bit data is fp8 (nccl-tests' -d f8e4m3, f8e5m2),
	 * which a trace's int8 stands for with int8 and uint8: NCCL's tuner
	 * tells them apart (tuner.c fp8_relegated). */
	bool fp8;
	/* Plan an alltoall's every send, where its nodes alike would let
	 * two of them stand for all (algo_alltoall_fold): for checking it. */
	bool alltoall_every_send;
	/* The most ranks of an alltoall planned send by send (the backend's:
	 * backend_ops.alltoall_max_ranks); 0: PLAN_ALLTOALL_MAX_RANKS. */
	unsigned alltoall_max_ranks;
};

void plan_options_default(struct plan_options *o);
/* Follow NCCL release @r (nccl_tuning.h): its tables, and its GDR level
 * default unless a level was given (before or after). */
void plan_options_set_nccl(struct plan_options *o, const struct nccl_release *r);
/* The same for NCCL 2.@minor.@patch, which @r's tables stand for
 * (@minor 0: @r's own release): the GDR level's default is PXB before
 * 2.27, the search's constants are that release's. */
void plan_options_set_nccl_release(struct plan_options *o, const struct nccl_release *r,
				   unsigned minor, unsigned patch);

/* One collective of the trace, with what the tuner chose for it. */
struct plan_collective {
	size_t entry;       /* index into the trace */
	size_t pattern;     /* index into plan.patterns */
	uint64_t bytes;
	unsigned nchannels; /* channels this call uses (a prefix) */
	double nccl_estimate_us; /* NCCL's own cost model for the choice */
};

struct plan {
	struct topology topo;    /* copy, with the options applied */
	const struct trace *trace; /* borrowed; must outlive the plan */
	struct plan_options opts;
	/* opts.nccl's tables as the release asked for has them
	 * (nccl_release_exact): points at nccl_exact */
	const struct nccl_release *nccl;
	struct nccl_release nccl_exact;
	unsigned nodes, gpus_per_node, nranks;
	/* No two calls of the trace can run at once: one communicator and
	 * stream, no send on its pair's own (records_order.c). Only then
	 * may a call be planned on some of its nodes for all of them
	 * (algo_alltoall_fold): what runs beside it on the others would
	 * not meet it there. */
	bool calls_alone;
	unsigned p2p_net_channels[TOPO_MAX_GPUS]; /* algo_p2p_net_channels of each
						   * GPU of a node, found once */
	struct res_layout layout;
	size_t npatterns;
	struct plan_pattern *patterns; /* owned */
	size_t ncollectives;
	struct plan_collective *collectives; /* owned; trace order */
};

/*
 * Build the plan for @trace on @topo. Errors that are the input's (a rank
 * outside the cluster, too many nodes, an --algo that cannot run) return
 * -EINVAL with @d filled.
 */
int plan_build(struct plan *p, const struct topology *topo,
	       const struct trace *trace, const struct plan_options *opts,
	       struct diag *d);
void plan_destroy(struct plan *p);

/* nccl-tests' busbw factor (doc/PERFORMANCE.md): all-reduce 2(n-1)/n;
 * reduce-scatter, all-gather, alltoall (n-1)/n; broadcast, send/recv 1. */
double plan_bus_factor(enum trace_op op, unsigned n);
/*
 * Why a topology value replaced by dotted path @key (--set, a sweep's
 * axis) changes nothing a run on @path computes, or NULL where it may:
 * staging.* is the MPI/UCX way's bounce buffers (staged-memcpy) and
 * staging.chunk only gdrlab's own verbs ring's (@own_ring: emu, real),
 * where direct calls and NCCL's own staging read none of it.
 */
const char *plan_set_unread(const char *key, enum plan_path path, bool own_ring);

/*
 * Patterns that are one another moved along the nodes (the same GPUs of
 * their nodes, the same distances between nodes, the same choice), whose
 * times alone are therefore equal: @cls[i] is pattern i's class, the
 * lowest-numbered pattern alike (plan_classes.c). 0 or -ENOMEM.
 */
int plan_pattern_classes(const struct plan *p, size_t *cls);

/* Capacities of every resource of the plan's cluster; caller frees. */
double *plan_capacities(const struct plan *p);

/* The global id of use @u of a route joining @src_node to @dst_node. */
static inline uint32_t plan_use_id(const struct plan *p,
				   const struct plan_use *u,
				   unsigned src_node, unsigned dst_node)
{
	return (u->at_dst ? dst_node : src_node) * p->layout.per_node + u->res;
}

/* Whether sends may go through a PXN relay (gdr_policy.h): NCCL's way,
 * with GPUDirect RDMA possible, NCCL_PXN_DISABLE unset and NVLink's
 * peer-to-peer not disabled (PXN needs a PATH_NVL to the relay: paths.cc). */
static inline bool plan_uses_pxn(const struct plan *p)
{
	return !p->opts.pxn_off && !p->opts.ring_only && (!p->nccl || p->nccl->pxn) &&
	       p2p_nvlink_usable(p->opts.p2p_level) &&
	       p->opts.path != PLAN_PATH_STAGED &&
	       p->opts.path != PLAN_PATH_STAGED_MEMCPY;
}

/* Whether a communicator of @node_gpus GPUs a node relays through PXN:
 * the relay is a peer GPU of the communicator on the node, so with one
 * GPU a node there is none (paths.cc: the PXN peer is a rank). */
static inline bool plan_pxn_for(const struct plan *p, unsigned node_gpus)
{
	return plan_uses_pxn(p) && node_gpus > 1;
}

/* The NCCL 2 minor release the plan follows: the one asked for, else its
 * table's own. */
unsigned plan_nccl_minor(const struct plan *p);
/* The same of options not yet planned (a command's checks). */
unsigned plan_options_nccl_minor(const struct plan_options *o);
/* A GDR level the release does not know (P2C before 2.27), which NCCL
 * ignores for its default, PXB; plan_build plans that. */
bool plan_options_gdr_level_unknown(const struct plan_options *o);

static inline unsigned plan_node_of(const struct plan *p, unsigned rank)
{
	return rank / p->gpus_per_node;
}

/*
 * The fabric links (global ids, fabric.h) connection @c of @pat crosses
 * on its wire stage, ECMP-hashed by its nodes, NICs and channel: routes
 * are shared by node pairs, these are the connection's own. Fills @ids
 * (FABRIC_PATH_MAX) and returns how many; 0 on a crossbar, inside a
 * node, or under one leaf.
 */
unsigned plan_conn_fabric(const struct plan *p, const struct plan_pattern *pat,
			  const struct plan_conn *c, uint32_t *ids);

/* The stage of @r whose links plan_conn_fabric's join (its wire), or -1. */
int plan_route_wire(const struct plan_route *r);

/*
 * Whether @r's slots are NCCL's proxy's two FIFOs (docs/model.md §6): a
 * network route of NCCL's own transport (not the memcpy staging, not
 * gdrlab's own ring). The sender's FIFO then spans segments 0 ..
 * @send_last (up to and including the NIC's), the receiver's
 * @recv_first .. the last (from the NIC's on), and each FIFO's credit
 * comes back through a proxy. Otherwise one FIFO spans the whole route
 * and its credit comes back at the links' own latency.
 */
bool plan_route_proxy_fifos(const struct plan *p, const struct plan_route *r,
			    unsigned *send_last, unsigned *recv_first);

/*
 * How a call of @bytes on the first @nchannels channels of @pat cuts pipe
 * @pp's data into slices (plan_slicing.c): what both timing backends pace
 * a pipe by.
 */
struct plan_slicing {
	bool active;        /* the call uses this pipe's channel */
	double scale;       /* the call's bytes per byte of the pattern's
			     * volumes (all channels built / channels used) */
	double chunk;       /* payload bytes of a chunk */
	double slices;      /* K: slices each connection carries */
	double per_loop;    /* P: slices a connection carries in a loop */
	double per_stream;  /* m: slices one chunk's stream has in the last loop */
	unsigned slots;     /* slices a connection has in flight at most */
};

void plan_slicing(const struct plan *p, const struct plan_pattern *pat,
		  const struct plan_pipe *pp, uint64_t bytes,
		  unsigned nchannels, struct plan_slicing *s);

/* The stream limit of a connection of @pp in a call on @nchannels
 * channels: its pipe's, and its share of the call's whole. */
static inline double plan_stream_cap(const struct plan_pattern *pat,
				     const struct plan_pipe *pp,
				     unsigned nchannels)
{
	double share = pat->total_stream_cap / (nchannels ? nchannels : 1);

	return share < pp->stream_cap ? share : pp->stream_cap;
}

/* Payload bytes one slice of connection @c carries in that call. */
static inline double plan_slice_bytes(const struct plan_conn *c,
				      const struct plan_slicing *s,
				      uint64_t bytes)
{
	return c->volume * (double)bytes * s->scale / s->slices;
}

/*
 * For backends that run their own ring over real bytes (emu, real): the
 * ring of channel 0 (broadcast: from the root), and how each side of the
 * pair src -> dst moves its data.
 */
void plan_pattern_ring(const struct plan_pattern *pat, unsigned *order);
void plan_pair_sides(const struct plan_pattern *pat, unsigned src,
		     unsigned dst, bool *send_staged, bool *recv_staged,
		     bool *intra);

#endif
