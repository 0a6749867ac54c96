/* SPDX-License-Identifier: MIT */
/*
 * import_calls: what the importers of per-rank profiles share (kineto,
 * chakra). Each file is one rank's: its calls are counted per process
 * group (a call is the n-th of its group on every rank), placed in the
 * file's profiler steps, and at the end the copies of one call from the
 * ranks' files are merged into one trace entry: the lowest rank's stands
 * for the group's, the others must agree on op, bytes and group; an
 * all-to-all's ranks may differ on bytes (PyTorch's all_to_allv records
 * each rank's own), the largest standing for every rank's; an
 * all-gather's or a reduce-scatter's ranks too (the list forms with
 * tensors of unequal sizes, where each rank records its own share), the
 * whole buffer then the sum of the ranks' shares.
 *
 * Process-group names and groups of ranks are kept once each (a job has
 * few), so what a call costs does not grow with its group.
 */
#ifndef GDRLAB_IMPORT_CALLS_H
#define GDRLAB_IMPORT_CALLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "importer.h"

struct import_call {
	double ts;         /* us on the file's clock, or its place in the
			    * file (import_calls_end_file) */
	double ready_us;   /* from its step's start */
	double order;      /* between calls ready at once: their order */
	bool outside;      /* in no step's span (import_calls_end_file) */
	uint64_t bytes;
	uint64_t where;    /* its line, or its byte offset (binary) */
	enum trace_op op;
	enum trace_dtype dtype;
	unsigned iteration;
	unsigned pg;       /* in pgs */
	unsigned seq;      /* its place among its group's calls on its rank */
	unsigned group;    /* in groups */
	int rank;          /* the file's; -1 when unknown (one file), or
			    * until import_calls_end_p2p for a call whose
			    * own arguments cannot say it */
	unsigned file;
	/* A broadcast's root, a send's or a receive's sender (src) and
	 * receiver (dst): global ranks, -1 when none. One side of a
	 * point-to-point call has the peer (import_calls_add_p2p) until
	 * import_calls_end_p2p says the file's rank. */
	int root, peer;
	bool p2p;          /* sendrecv: matched by pair, not group place */
	bool recv;         /* the receiving side's copy */
	bool both;         /* import_calls_build: its two sides were read */
	bool uneven;       /* an all-to-all whose ranks' sizes differ (the
			    * importer's word, or import_calls_build's
			    * finding), or an all-gather's or a
			    * reduce-scatter's (import_calls_build's) */
	uint64_t sum;      /* import_calls_build: the copies' bytes added */
	unsigned copies;   /* import_calls_build: the ranks read */
	/* A send's or a receive's batch_isend_irecv on its side's rank:
	 * 1 .. import_calls.launches, 0 when none (the importer's word);
	 * import_calls_build joins the two sides' (peer_launch: the other
	 * side's) into the trace's batch. */
	uint64_t launch, peer_launch;
};

/* A profiler step's span on its file's clock; end INFINITY where the
 * format does not say it (the step then reaches the next one's start). */
struct import_step {
	double start, end;
};

struct import_calls {
	struct import_call *c;
	size_t n, cap;
	struct import_step *steps; /* the file's */
	size_t nsteps, cap_steps;
	size_t first_of_file; /* calls of the file being read start here */
	struct { char name[64]; unsigned calls; } *pgs; /* calls: the file's */
	size_t npgs, cap_pgs;
	struct { unsigned *ranks, n; } *groups;         /* sorted; owned */
	size_t ngroups, cap_groups;
	int *file_ranks;      /* each file's rank (-1 unknown): whose p2p
			       * side is missing is told from them */
	size_t nfile_ranks, cap_file_ranks;
	struct { unsigned pg; int src, dst; unsigned calls; } *pairs; /* the file's */
	size_t npairs, cap_pairs;
	unsigned uneven;      /* import_calls_build: all-to-alls whose
			       * ranks' bytes differ, taken at the largest */
	unsigned uneven_shares; /* import_calls_build: all-gathers and
				 * reduce-scatters whose ranks' shares
				 * differ, taken at their sum */
	uint64_t launches;    /* launch numbers given (import_call.launch) */
	unsigned batches;     /* import_calls_build: batches of several sends */
	unsigned outside;     /* import_calls_build: calls left out, outside
			       * every step's span on some rank */
	unsigned files, stepless; /* files read; those with calls and no step */
	bool binary;          /* where is a byte offset, not a line */
	const char *rank_key; /* what a rank in two files names */
	const char *key;      /* what a disagreement between ranks names */
	struct diag *d;
};

void import_calls_init(struct import_calls *k, bool binary, const char *rank_key,
		       const char *key, struct diag *d);
void import_calls_free(struct import_calls *k);

/* A new file (its steps and group counts start over). */
void import_calls_begin_file(struct import_calls *k);
/* A profiler step of the file starting at @ts and lasting @dur (< 0 or
 * NaN: not said, so it reaches the next step's start). 0 or -ENOMEM. */
int import_calls_step(struct import_calls *k, double ts, double dur, const char *file);
/* The id of the group of @n sorted, distinct @ranks (copied). */
int import_calls_group(struct import_calls *k, const unsigned *ranks,
		       unsigned n, unsigned *id, const char *file);
/* @n ranks sorted in place: false when one is there twice. */
bool import_ranks_sort(unsigned *ranks, size_t n);
/* The ranks 0 .. @n-1 as a group: every rank of a world of @n. */
int import_calls_world_group(struct import_calls *k, unsigned n, unsigned *id,
			     const char *file);
/* @c (all but pg and seq filled) as the next call of process group @pg. */
int import_calls_add(struct import_calls *k, struct import_call *c,
		     const char *pg, const char *file);
/*
 * @c, one side of a send/receive of process group @pg: @c->recv says
 * which, @c->peer the other side's global rank. Its place among the
 * pair's calls is given by import_calls_end_p2p, when the file's rank is
 * known (distributedInfo can come after the events).
 */
int import_calls_add_p2p(struct import_calls *k, struct import_call *c,
			 const char *pg, const char *file);
/* The rank of the file being read (-1 unknown), for what import_calls_end_p2p
 * and import_calls_note_partial tell from the files' ranks; a format that
 * calls import_calls_end_p2p has it said there. 0 or -ENOMEM. */
int import_calls_file_rank(struct import_calls *k, int rank, const char *file);
/* Whether group @id holds global rank @rank. */
bool import_calls_in_group(const struct import_calls *k, unsigned id, int rank);
/*
 * The file's rank is @rank (-1 when not said): into its calls that did
 * not know it, and its sends' and receives' sides; each of those is
 * then the n-th between its two ranks on its group. A file with such
 * calls and no rank, a peer that is the file's own rank, are errors.
 */
int import_calls_end_p2p(struct import_calls *k, int rank, const char *file);
/*
 * The file's calls into its steps: each in the step whose span holds it
 * (the last that starts by it, if it has not ended), ready from that
 * step's start; a call in no step's span (before the first, between two,
 * after the last) is marked outside, and import_calls_build leaves it
 * out. Where the steps' spans are not said, a step reaches the next one's
 * start, the first one back to the file's start (ready at 0). No steps:
 * one iteration, ready from the file's earliest call. With @timed false
 * the calls' and steps' ts are places in the file: each call is then
 * ready at 0 and goes after those before it in its step. A call more
 * than TRACE_TIME_MAX_US from its step's start is an error naming @file,
 * its place and @ts_key (what its clock is): a clock the profile got
 * wrong, not a call between steps.
 */
int import_calls_end_file(struct import_calls *k, bool timed, const char *file,
			  const char *ts_key);

/*
 * The trace's entries, one per (group name, place) over the files (a
 * send/receive: per group, pair and place, one entry for its two sides;
 * a side whose peer's file was read and has no match is an error; an
 * all-to-all the largest of its ranks' bytes, counted in @k->uneven
 * where they differ; an all-gather or a reduce-scatter whose ranks' bytes
 * differ the mean of them, each rank's share times the ranks: the sum
 * of the shares where every rank's file was read, counted in
 * @k->uneven_shares); a group that is ranks 0 .. @world-1 is written as
 * none (every rank). A call outside every step on some rank's file is
 * left out, counted in @k->outside; none left is an error. On
 * failure a negative errno, @k's diag filled and @t untouched.
 */
int import_calls_build(struct import_calls *k, const struct import_input *in,
		       unsigned world, struct trace *t);
/* After import_calls_build: the uneven calls and the batches, appended
 * to @notes->line (after a "; " where it has something). */
void import_calls_note_uneven(const struct import_calls *k, struct import_notes *notes);
/*
 * The header's word on collectives some of whose group's ranks have no
 * file among those read (a rank's file left out), where several ranks'
 * files were: each is its other ranks' copies alone. Binary formats'
 * places are byte offsets.
 */
void import_calls_note_partial(const struct import_calls *k, const struct import_input *in,
			       struct import_notes *notes);
/* After import_calls_build: the calls left out for being outside every
 * @step (what the format names a step: "ProfilerStep"), and the files
 * with no step, whose calls are one iteration. */
void import_calls_note_steps(const struct import_calls *k, const char *step,
			     struct import_notes *notes);

#endif
