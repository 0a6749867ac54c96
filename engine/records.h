/* SPDX-License-Identifier: MIT */
/*
 * records: what a backend measured or computed, in one shape for every
 * backend, so reports and comparisons never care which one ran.
 *
 * The engine fills what the plan knows (op, bytes, path, ready time);
 * the backend fills each collective's duration and stage spans; the
 * schedule (schedule.h) then places collectives on the timeline of each
 * iteration, unless the backend had a clock of its own and did it.
 */
#ifndef GDRLAB_RECORDS_H
#define GDRLAB_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plan.h"

struct stage_span {
	enum stage_kind kind;
	double start_us, end_us; /* from the start of the collective */
	uint64_t bytes;
};

struct coll_record {
	size_t entry;          /* index into the trace */
	unsigned iteration;    /* its job's iteration */
	unsigned job;          /* trace_entry.job: 0 but in a run of jobs */
	unsigned iter_at;      /* its iteration's record: records.iter[iter_at] */
	enum trace_op op;
	uint64_t bytes;
	unsigned nranks;
	double ready_us;       /* from the start of its iteration */
	unsigned comm, stream; /* its communicator (records.comms) and stream */
	unsigned queue;        /* its (communicator, stream), or the pair's
				* for a send outside a batch (records_order) */
	bool batched;          /* a send of a batch (trace_entry.batched) */
	unsigned batch;        /* its batch's number, when batched */
	bool joins_batch;      /* starts with the call before it on its queue:
				* both of one batch */
	size_t next_in_batch;  /* the batch's next send, or SIZE_MAX */
	bool pair_queue;       /* its queue is its pair's (src, dst) */
	int src, dst;          /* a send/receive's ranks, else -1 */
	double time_us;        /* duration: filled by the backend, alone;
				* stretched by the schedule where other
				* communicators shared its links */
	double alone_us;       /* the backend's duration, alone */
	double start_us, end_us; /* absolute, from the start of the run */
	enum plan_path_used path;
	const char *fallback;  /* NULL, or a reason borrowed from the plan */
	const char *shm;       /* NULL, or a GPU pair through host memory and
				* why, borrowed from the plan */
	/* What ran, as NCCL's tuner chose it, and NCCL's own estimate of
	 * it (NAN for p2p, which NCCL's tuner does not model). */
	enum algo_id algo;
	enum proto_id proto;
	unsigned nchannels;
	double nccl_estimate_us;
	double algbw_gbps, busbw_gbps;
	/* The bottleneck connection: busy time and bytes per stage kind,
	 * and when its stages were busy. */
	double stage_us[STAGE_KIND_COUNT];
	uint64_t stage_bytes[STAGE_KIND_COUNT];
	unsigned nspans;
	struct stage_span spans[PLAN_MAX_STAGES];
	/* Backends that check data (records.data_checked): bytes of this
	 * collective that arrived wrong, summed over ranks. */
	uint64_t data_errors;
	/* With switches (fabric.h), what the plan puts on them: the link
	 * (a switch's uplink, or a NIC's cable to its leaf) with the most
	 * bytes per byte of capacity, the connections crossing it, and the
	 * even share of it each one has, in NIC ports (0.25: a quarter of
	 * a port's payload rate). fabric_link: an index into
	 * records.link_names, or RECORDS_NO_LINK. */
	uint32_t fabric_link;
	unsigned fabric_flows;
	double fabric_share;
};

#define RECORDS_NO_LINK UINT32_MAX
#define RECORDS_LINK_NAME 64

/* One job's iteration: jobs on one cluster each keep their own clock. */
struct iter_record {
	unsigned job;      /* 0 but in a run of jobs (trace_jobs.h) */
	unsigned iteration;
	size_t first, end; /* its calls: records.coll[first .. end) */
	double start_us, end_us;
	double compute_us; /* compute time of the iteration (0 if the trace has none) */
	double comm_us;    /* sum of its collectives' durations */
	double busy_us;    /* time some collective was in flight: calls
			    * at once counted once, so never beyond the
			    * iteration, where comm_us may be */
	double exposed_us; /* iteration time not hidden behind compute */
};

/* How a backend's queue pairs addressed the fabric (emu, real): rank 0's.
 * device[0] == 0 for backends that move no bytes. */
struct records_link {
	char device[32];
	unsigned port;
	int gid_index;
	char gid[46];          /* as inet_ntop writes it: IPv4-mapped or IPv6 */
	char gid_type[12];     /* "RoCEv2", "RoCEv1", "IB" */
	unsigned mtu;          /* path MTU in bytes: every peer's accounted */
	unsigned tc, sl;       /* traffic class, service level */
	bool relaxed_ordering; /* memory registered with PCIe relaxed
				* ordering (NCCL_IB_PCI_RELAXED_ORDERING) */
	/* 8 B one-way latency of the data path, half the median of
	 * latency_rounds round trips (emu/pingpong.h); 0: not measured */
	double latency_us;
	unsigned latency_rounds;
};

/* How collectives that ran at once shared the links. */
enum records_sharing {
	RECORDS_SHARED_NONE,    /* one queue: nothing ran at once */
	RECORDS_SHARED_FLUID,   /* the engine's fluid schedule (overlap.h) */
	RECORDS_SHARED_SIMGRID, /* simulated together (the model backend) */
	RECORDS_SHARED_SERIAL,  /* run one by one (backends that move bytes) */
};
const char *records_sharing_name(enum records_sharing s); /* "fluid", ... */

struct records {
	const char *backend;   /* static name of the backend that ran */
	enum plan_path path;   /* path requested */
	unsigned nodes, gpus_per_node;
	bool scheduled;        /* the backend placed collectives itself */
	size_t ncoll;
	struct coll_record *coll;  /* owned */
	/* The trace's communicators (borrowed: the trace outlives these
	 * records); none when the trace keeps none (one, "world"). */
	size_t ncomms;
	const struct trace_comm *comms;
	unsigned nqueues;          /* distinct (communicator, stream), pairs' */
	/* What each call waits for (records_order): the calls
	 * preds[pred_first[i] .. pred_first[i + 1]) of its iteration; a
	 * batch's first send holds what the whole batch waits for, its
	 * others nothing; a call waited for is a batch's send, not the
	 * batch. */
	size_t *pred_first, *preds;
	bool overlapped;           /* collectives shared links at once */
	enum records_sharing sharing;
	/* Every job's iterations, job by job (one job: iter[i] is iteration
	 * i); njobs: 0 for a trace of one job, else trace.njobs. */
	unsigned niter, njobs;
	struct iter_record *iter;  /* owned */
	/* Means over iterations (with jobs, over every job's). */
	double iteration_time_us, comm_time_us, exposed_comm_us;
	double comm_busy_us;
	/* Progress of a long run, called by backends now and then with the
	 * collectives done so far; NULL for none. */
	void (*progress)(void *ctx, size_t done, size_t total);
	void *progress_ctx;
	/* How the NIC was given "GPU" memory: "host" (emu), "dmabuf" or
	 * "peermem" (real); NULL for backends that register nothing. Static
	 * storage. */
	const char *gpu_registration;
	struct records_link link;
	/* Backends that move real bytes check them. */
	bool data_checked;
	uint64_t verified_bytes, data_errors;
	/* The fabric links collectives name (coll_record.fabric_link),
	 * "leaf3.up1" or "node2/nic0.port_rx"; owned. */
	size_t nlink_names;
	char (*link_names)[RECORDS_LINK_NAME];
	/* The switches of the run (fabric.h); tiers 0: a crossbar. */
	struct fabric_geom fabric;
	double leaf_oversubscription, spine_oversubscription;
	enum topo_attach attach;
	uint64_t ecmp_seed;
};

int records_init(struct records *r, const struct plan *p, const char *backend);
/* The fabric_* fields of every collective (records_fabric.c); records_init
 * calls it. 0 or -ENOMEM. */
int records_fabric(struct records *r, const struct plan *p);
void records_destroy(struct records *r);

/* The path the run's collectives took between nodes: NONE where none
 * left its node, MIXED where they differ. */
enum plan_path_used records_path_used(const struct records *r);
/* Whether collectives left their nodes, none of them through GPUDirect
 * RDMA: a run asked to go direct that fell back everywhere. */
bool records_never_direct(const struct records *r);

static inline void records_progress(const struct records *r, size_t done)
{
	if (r->progress)
		r->progress(r->progress_ctx, done, r->ncoll);
}

/*
 * Place collectives and compute bandwidths and iteration summaries.
 * Each call starts when its bucket is ready and the calls it waits for
 * (records_order) have ended, as on each rank's CUDA stream. With @p
 * (the plan a model backend timed), calls that do not wait for each
 * other run at the same time and share the links they both use
 * (overlap.h). Without it every collective
 * waits for the one before it in the trace (its job's iteration), as the backends that move
 * real bytes ran them. An iteration ends when both its compute and its
 * last collective have ended; the next starts then, each job's on its
 * own clock. 0, -ENOMEM, or
 * -EDEADLK where a call would wait for ever (a bug).
 */
int records_schedule(struct records *r, const struct plan *p);

/*
 * Which calls wait for which, as NCCL and PyTorch order them
 * (records_order.c): a call starts once the calls before it on its
 * communicator and stream that share a rank with it have ended, as each
 * rank's stream runs its own calls in order: a collective waits for all
 * before it, a batch's sends (one ncclGroupStart/End, trace_entry.batched)
 * for those of their ranks, and a call after a batch for the batch's
 * sends of its own ranks. A send outside a batch runs on its pair's own
 * queue, as PyTorch runs it on a two-rank communicator of its own. From
 * the calls' comm, stream, src, dst, batched, batch and iteration, sets
 * queue, joins_batch, next_in_batch, pair_queue, nqueues and the preds.
 * 0 or -ENOMEM.
 */
int records_order(struct records *r);

/* Whether two of @r's collectives may run at once: two queues, or a
 * batch's sends. */
bool records_concurrent(const struct records *r);

/* When call @lead and the rest of its batch are all ready, from the start
 * of their iteration: a batch starts once every buffer of it is. */
double records_batch_ready(const struct records *r, size_t lead);

/* The name of collective @c's communicator. */
const char *records_comm_name(const struct records *r, const struct coll_record *c);

/* The index of the first collective with data errors, or -1 (also when
 * the backend does not check data). */
long records_first_corrupted(const struct records *r);

#endif
