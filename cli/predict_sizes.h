/* SPDX-License-Identifier: MIT */
/*
 * predict_sizes: one collective at a list of sizes, predicted by a
 * backend on a topology, as nccl-tests would time it size after size.
 * What `gdrlab busbw` prints and `gdrlab validate --nccl-tests` holds
 * against a measured file, computed in one place so both agree.
 */
#ifndef GDRLAB_PREDICT_SIZES_H
#define GDRLAB_PREDICT_SIZES_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "channels.h"
#include "diag.h"
#include "records.h"
#include "topology.h"

struct predict_point {
	/* In: nccl-tests' size (the larger buffer, trace.h's bytes); 0 for
	 * a row of no elements, which NCCL returns from at once: it is
	 * left unpredicted (time 0). */
	uint64_t size;
	unsigned line; /* for messages about it: where it came from */
	/* Out: the backend's record of it: time, nccl-tests' bandwidths, the
	 * path, and what NCCL's tuner chose (estimate NAN for p2p: NCCL does
	 * not model it); zero, estimate NAN, for an unpredicted row. Its
	 * fallback reason, which was the plan's, is in @fallback. */
	struct coll_record rec;
	char fallback[200]; /* why direct was not used; "" if it was */
};

/*
 * The GPUs of each node a run uses, as nccl-tests' ranks on a host: their
 * indices in the node, ascending, each once (--gpus "0-3,7"). n 0: all.
 */
struct node_gpus {
	unsigned n;
	unsigned idx[TOPO_MAX_GPUS];
};

/*
 * Parse @s ("3", "0-3", "0,2,4-7") against @topo's GPUs into @out; 0, or
 * -EINVAL with @d naming @opt, the value and what is wrong.
 */
int node_gpus_parse(const char *opt, const char *s, const struct topology *topo,
		    struct node_gpus *out, struct diag *d);

/* A command's --gpus @s, when given (NULL: every GPU), into @out: 0, or
 * EXIT_USAGE once @cmd's usage error is said. */
int node_gpus_option(const char *cmd, const char *s, const struct topology *topo,
		     struct node_gpus *out);

/* The GPUs @g lists a node, or all of @topo's where it lists none. */
unsigned node_gpus_count(const struct node_gpus *g, const struct topology *topo);

/* "8 GPUs", or "1 of 8 GPUs (3)" where @g lists some, into @buf. */
void node_gpus_describe(const struct node_gpus *g, const struct topology *topo, char *buf,
			size_t len);

/* Each node's GPUs a run uses, as a JSON array of indices (new
 * reference; NULL on allocation failure). */
json_t *node_gpus_json(const struct node_gpus *g, const struct topology *topo);

struct predict_setup {
	const struct backend_ops *backend;
	const struct topology *topo;
	const struct plan_options *opts; /* nodes: 0 for the topology's */
	const struct node_gpus *gpus;    /* NULL: every GPU of each node */
	enum trace_op op;
	enum trace_dtype dtype;
	enum trace_redop redop;   /* sum where the collective reduces nothing */
	int root;                 /* broadcast's; -1 for 0 */
	const char *name;         /* file (or command) named in messages */
	const struct backend_hooks *hooks; /* progress; may be NULL */
	/* Out, where not NULL: the graphs NCCL would search for the whole
	 * communicator (tune_world_graphs); zero when no row was predicted. */
	struct nccl_channels *graphs;
};

/*
 * The predicting backend called @name (one with a simulated clock:
 * analytic, model), or NULL after a one-line usage error of @cmd
 * (gdrlab's exit status is then EXIT_USAGE); @measures ends the message
 * for a backend that measures instead ("", or "; ..." saying why).
 */
const struct backend_ops *predict_backend(const char *cmd, const char *name,
					  const char *measures);

/* The NCCL release @o predicts with, as the release asked for where
 * another's tables stand for it ("2.18.5 (2.19.3's tables)", "2.18
 * (...)"), since its search constants, GDR default and p2p LL are its
 * own (nccl_release_exact); else the table's own ("2.30.7"). busbw's
 * header and validate --nccl-tests' both say it this way. */
void predict_nccl_name(const struct plan_options *o, char *buf, size_t len);

/* The nodes and ranks a prediction with @o on @gpus of each node (NULL:
 * all) runs on. */
unsigned predict_nodes(const struct topology *topo, const struct plan_options *o);
unsigned predict_ranks(const struct topology *topo, const struct plan_options *o,
		       const struct node_gpus *gpus);

/*
 * Predict every point of @pts (@n of them) with @s, one collective each,
 * one after another as nccl-tests runs them: on every rank, or with
 * s->gpus on those GPUs of each node, a communicator of their own (a
 * broadcast's root its first rank). Send/receive is the one pair that
 * crosses between the first two nodes (node 0's last GPU to node 1's
 * first; 0 to 1 on one node): nccl-tests' ring of sends moves one such
 * pair per NIC direction at once, each about as fast as one alone.
 * On failure a negative errno and @d filled (-EINVAL: the input's fault,
 * as plan_build's).
 */
int predict_sizes(const struct predict_setup *s, struct predict_point *pts,
		  size_t n, struct diag *d);

#endif
