/* SPDX-License-Identifier: MIT */
/*
 * nccl-log: the calls read into the trace. Each an entry of global
 * ranks; where opCount counts no launches, ordered by place, each send
 * alone; a group's sends to every peer one alltoall, the other sends
 * batches of their launch; communicators named, the issue order
 * (import_nccl_log_internal.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_nccl_log_internal.h"
#include "nccl_log_groups.h"
#include "sort_unsigned.h"


static int make_entry(struct state *s, const struct coll *c, uint64_t world_id,
		      int world_n, struct trace_entry *e)
{
	bool world = c->comm_id == world_id && c->nranks == world_n;
	const char *file = s->in[c->file].name;
	enum trace_dtype dt = TRACE_DTYPE_FP32;
	uint64_t mult;

	nlog_dtype_of(c->datatype, &dt); /* checked when the line was read */
	memset(e, 0, sizeof(*e));
	e->line = c->line;
	e->op = c->op;
	e->dtype = dt;
	e->compute_us = -1;
	e->root = e->peer = -1;
	memcpy(e->algo, c->algo, sizeof(e->algo));
	memcpy(e->proto, c->proto, sizeof(e->proto));
	/* the trace's bytes: NCCL's count a rank; all-gather,
	 * reduce-scatter and alltoall (count to each peer, src/nccl.h.in)
	 * take the whole buffer, count x ranks */
	mult = trace_dtype_size(dt) * (c->op == TRACE_OP_ALL_GATHER ||
						       c->op == TRACE_OP_REDUCE_SCATTER ||
						       c->op == TRACE_OP_ALLTOALL ?
					       (uint64_t)c->nranks : 1);
	if (c->count > (uint64_t)INT64_MAX / mult)
		return diag_at(s->d, -EINVAL, file, c->line, 0, "count",
			       "%" PRIu64 " elements of %u bytes is more than a trace holds",
			       c->count, trace_dtype_size(dt));
	e->bytes = c->count * mult;
	if (!world && !c->comm_id)
		return diag_at(s->d, -EINVAL, file, c->line, 0, "comm",
			       "a communicator of %d of the world's %d ranks, and this NCCL's log has no commId to find its other ranks by (NCCL 2.16 and later print it)",
			       c->nranks, world_n);
	if (!world) {
		e->group = malloc((size_t)c->nranks * sizeof(*e->group));
		if (!e->group)
			return -ENOMEM;
		e->ngroup = (unsigned)c->nranks;
		for (int r = 0; r < c->nranks; r++) {
			int g = nlog_global_of(s, c->comm_id, c->nranks, r);

			if (g < 0)
				return diag_at(s->d, -EINVAL, file, c->line, 0, "comm",
					       "communicator 0x%" PRIx64 " has %d ranks, the logs show no 'Init COMPLETE' of its rank %d with a world rank: import every rank's log",
					       c->comm_id, c->nranks, r);
			e->group[r] = (unsigned)g;
		}
	}
	/* comm ranks to global ones: the group is in comm rank order here */
	if (c->op == TRACE_OP_BROADCAST)
		e->root = world ? c->root : (int)e->group[c->root];
	/* the sender by its rank in the communicator, as its peer: a
	 * process's world rank may not be that rank's (a process of several
	 * devices whose lines share a comm pointer) */
	if (c->op == TRACE_OP_SENDRECV) {
		e->root = world ? c->comm_rank : (int)e->group[c->comm_rank];
		e->peer = world ? c->root : (int)e->group[c->root];
	}
	if (c->op == TRACE_OP_SENDRECV && e->root == e->peer)
		return diag_at(s->d, -EINVAL, file, c->line, 0, "root",
			       "the send's peer is world rank %d, the sender's own", e->peer);
	if (e->ngroup)
		sort_unsigned(e->group, e->ngroup);
	for (unsigned i = 1; i < e->ngroup; i++)
		if (e->group[i] == e->group[i - 1])
			return diag_at(s->d, -EINVAL, file, c->line, 0, "comm",
				       "world rank %u holds two ranks of communicator 0x%" PRIx64,
				       e->group[i], c->comm_id);
	return 0;
}

struct order_key {
	uint64_t op_count;
	unsigned first_rank, nranks; /* the communicator's */
	bool world;
	uint64_t comm_id;
	uint64_t cseq;
	int src, dst;                /* a send's: one group's sends in any
				      * file's order come out alike */
	size_t seen;                 /* the order lines were read in */
};

static int cmp_order(const void *pa, const void *pb)
{
	const struct order_key *a = pa, *b = pb;

	if (a->op_count != b->op_count)
		return a->op_count < b->op_count ? -1 : 1;
	if (a->first_rank != b->first_rank)
		return a->first_rank < b->first_rank ? -1 : 1;
	if (a->nranks != b->nranks)
		return a->nranks > b->nranks ? -1 : 1;
	/* communicators of the same ranks (split children of the world's
	 * ranks): the world's first, the others by id, whatever file came
	 * first */
	if (a->world != b->world)
		return a->world ? -1 : 1;
	if (a->comm_id != b->comm_id)
		return a->comm_id < b->comm_id ? -1 : 1;
	if (a->cseq != b->cseq)
		return a->cseq < b->cseq ? -1 : 1;
	if (a->src != b->src)
		return a->src < b->src ? -1 : 1;
	if (a->dst != b->dst)
		return a->dst < b->dst ? -1 : 1;
	return (a->seen > b->seen) - (a->seen < b->seen);
}

/*
 * The log says each communicator's order (its opCount) but not how
 * communicators interleave: entries go by opCount, then by their
 * communicator's lowest global rank, larger communicators first, so that
 * one run gives one trace whether its ranks logged to one file or many,
 * in any order.
 */
static int issue_order(const struct state *s, struct trace *t, uint64_t world_id, int world_n)
{
	struct order_key *k = malloc(t->nentries * sizeof(*k));
	struct trace_entry *e = malloc(t->nentries * sizeof(*e));

	if (!k || !e) {
		free(k);
		free(e);
		return -ENOMEM;
	}
	for (size_t i = 0; i < t->nentries; i++) {
		const struct trace_entry *x = &t->entries[i];

		k[i].op_count = s->colls[i].op_count;
		k[i].first_rank = x->ngroup ? x->group[0] : 0;
		k[i].nranks = (unsigned)s->colls[i].nranks;
		k[i].world = s->colls[i].comm_id == world_id && s->colls[i].nranks == world_n;
		k[i].comm_id = s->colls[i].comm_id;
		k[i].cseq = s->colls[i].cseq;
		k[i].src = x->op == TRACE_OP_SENDRECV ? x->root : -1;
		k[i].dst = x->op == TRACE_OP_SENDRECV ? x->peer : -1;
		k[i].seen = i;
	}
	qsort(k, t->nentries, sizeof(*k), cmp_order);
	for (size_t i = 0; i < t->nentries; i++)
		e[i] = t->entries[k[i].seen];
	memcpy(t->entries, e, t->nentries * sizeof(*e));
	free(e);
	free(k);
	return 0;
}

/* A send, by (communicator, opCount), then sender and receiver. */
struct send_key {
	uint64_t comm_id, op_count;
	int nranks, src, dst; /* global ranks */
	size_t i;             /* its call and entry */
};

static int cmp_send(const void *pa, const void *pb)
{
	const struct send_key *x = pa, *y = pb;

	if (x->comm_id != y->comm_id)
		return x->comm_id < y->comm_id ? -1 : 1;
	if (x->nranks != y->nranks)
		return x->nranks < y->nranks ? -1 : 1;
	if (x->op_count != y->op_count)
		return x->op_count < y->op_count ? -1 : 1;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	return (x->dst > y->dst) - (x->dst < y->dst);
}

/* @n sorted sends from @k: every ordered pair of the communicator's
 * ranks once, each of one type, within a trace's bytes; *@uneven: not
 * all of one count (PyTorch's all_to_allv over sends). */
static bool whole_alltoall(const struct state *s, const struct trace *t,
			   const struct send_key *k, size_t n, bool *uneven)
{
	const struct coll *c0 = &s->colls[k[0].i];
	uint64_t ranks = (uint64_t)c0->nranks;

	*uneven = false;
	if (ranks < 2 || n != ranks * (ranks - 1))
		return false;
	for (size_t j = 0; j < n; j++) {
		const struct coll *c = &s->colls[k[j].i];

		if (c->datatype != c0->datatype || t->entries[k[j].i].bytes > (uint64_t)INT64_MAX / ranks ||
		    (j && k[j].src == k[j - 1].src && k[j].dst == k[j - 1].dst))
			return false;
		*uneven |= c->count != c0->count;
	}
	return true;
}

/* A folded group's receives: not matched with the sends left
 * (batch_sends), whose k-th of a pair they would shift. */
static void drop_folded_recvs(struct state *s, const struct send_key *folded, size_t nfolded)
{
	size_t kept = 0;

	for (size_t i = 0; i < s->nrecvs; i++) {
		bool in = false;

		for (size_t f = 0; f < nfolded && !in; f++)
			in = folded[f].comm_id == s->recvs[i].comm &&
			     folded[f].op_count == s->recvs[i].op_count;
		if (!in)
			s->recvs[kept++] = s->recvs[i];
	}
	s->nrecvs = kept;
}

/*
 * An all-to-all before NCCL 2.28 is a group of sends (PyTorch's
 * all2all_single_equal_split: ncclGroupStart, a send and a receive a
 * peer, ncclGroupEnd), its lines one opCount: NCCL runs them at once, as
 * one alltoall (its p2p plan), where the trace's sends would run one after
 * another. The sends of one (communicator, opCount) that are every
 * ordered pair of its ranks once, of one count, become that alltoall: its
 * bytes the count x ranks, a rank's send buffer (its own share, which it
 * copies and logs no line for, included), at its first line. @t's entries
 * and the state's calls stay side by side; *@folded counts them.
 */
static int fold_alltoalls(struct state *s, struct trace *t, unsigned *folded)
{
	struct send_key *k = malloc((s->ncolls ? s->ncolls : 1) * sizeof(*k));
	bool *drop = calloc(s->ncolls ? s->ncolls : 1, sizeof(*drop));
	size_t n = 0, kept = 0;

	*folded = 0;
	if (!k || !drop) {
		free(k);
		free(drop);
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->ncolls; i++)
		if (s->colls[i].op == TRACE_OP_SENDRECV && !s->colls[i].lone)
			k[n++] = (struct send_key){ s->colls[i].comm_id, s->colls[i].op_count,
						    s->colls[i].nranks, t->entries[i].root,
						    t->entries[i].peer, i };
	qsort(k, n, sizeof(*k), cmp_send);
	for (size_t a = 0, b; a < n; a = b) {
		size_t first = k[a].i;
		uint64_t most = 0;
		struct trace_entry *e;
		bool uneven;

		for (b = a + 1; b < n && k[b].comm_id == k[a].comm_id && k[b].nranks == k[a].nranks &&
				k[b].op_count == k[a].op_count;
		     b++)
			first = k[b].i < first ? k[b].i : first;
		if (!whole_alltoall(s, t, k + a, b - a, &uneven))
			continue;
		for (size_t j = a; j < b; j++) {
			drop[k[j].i] = k[j].i != first;
			most = t->entries[k[j].i].bytes > most ? t->entries[k[j].i].bytes : most;
		}
		/* an uneven one as the even one of its largest send (the
		 * kineto importer's all_to_allv, import_calls.h) */
		e = &t->entries[first];
		e->op = TRACE_OP_ALLTOALL;
		e->bytes = most * (uint64_t)k[a].nranks;
		e->root = e->peer = -1;
		s->colls[first].op = TRACE_OP_ALLTOALL;
		s->colls[first].logged = s->colls[first].nranks;
		/* the folded groups, for their receives, in the slots behind a */
		k[(*folded)++] = k[a];
		s->uneven_alltoalls += uneven;
	}
	drop_folded_recvs(s, k, *folded);
	for (size_t i = 0; i < s->ncolls; i++) {
		if (drop[i]) {
			free(t->entries[i].group);
			continue;
		}
		t->entries[kept] = t->entries[i];
		s->colls[kept++] = s->colls[i];
	}
	s->ncolls = t->nentries = kept;
	free(k);
	free(drop);
	return 0;
}

/*
 * Every other send is a batch of the sends of its launch
 * (nccl_log_groups.h): they run at once and wait for their ranks' calls
 * before them, not for the other ranks' sends (records_order).
 * s->batches counts the launches of more than one send.
 */
static int batch_sends(struct state *s, struct trace *t)
{
	size_t n = s->ncolls ? s->ncolls : 1, nsends = 0;
	struct nlg_end *sends = malloc(n * sizeof(*sends));
	size_t *idx = malloc(n * sizeof(*idx)), *group = malloc(n * sizeof(*group));
	unsigned *size = calloc(n, sizeof(*size));
	int err = sends && idx && group && size ? 0 : -ENOMEM;

	for (size_t i = 0; i < s->ncolls && !err; i++) {
		const struct coll *c = &s->colls[i];

		if (c->op != TRACE_OP_SENDRECV)
			continue;
		sends[nsends] = (struct nlg_end){ c->comm_id, c->comm_rank, c->root, c->op_count, i };
		idx[nsends++] = i;
	}
	if (!err)
		err = nlg_group(sends, nsends, s->recvs, s->nrecvs, group);
	for (size_t k = 0; k < nsends && !err; k++) {
		struct trace_entry *e = &t->entries[idx[k]];

		e->batched = true;
		e->batch = (unsigned)(group[k] % ((size_t)TRACE_BATCH_MAX + 1));
		if (++size[group[k]] == 2)
			s->batches++;
	}
	free(sends);
	free(idx);
	free(group);
	free(size);
	return err;
}

/*
 * Whether communicator (@id, @nranks)'s opCount fails to count its
 * launches: NCCL 2.27 and later (v2.27.3-1 src/enqueue.cc
 * hostStreamPlanTask calls ncclProxyStart, whose comm->opCount++ in
 * src/proxy.cc is the only one, only for a plan with proxy ops), so a
 * launch with no network work (one node over NVLink, or a rank whose
 * channels reach no NIC) leaves it where it was: a single node's calls
 * all print opCount 0 (NVIDIA/nccl#2021), or ranks disagree (mark_stuck).
 * @nranks < 0: any communicator of that id (a Recv line's).
 * Nothing in the log then says which calls were one group
 * (ncclGroupStart/End log nothing at INFO).
 */
static bool untrusted_op_count(const struct state *s, uint64_t id, int nranks)
{
	if (s->release >= 22700)
		return true;
	for (size_t i = 0; i < s->nstuck; i++)
		if (s->stuck[i].id == id && (nranks < 0 || s->stuck[i].nranks == nranks))
			return true;
	return false;
}

/*
 * Where a communicator's opCount counts no launches, each of its calls
 * is ordered by its place among its rank's lines instead, and each send
 * and receive is a launch of its own: never one batch or all-to-all
 * that the log cannot show was one group. Collectives need nothing: they
 * pair up by their place among the ranks' collectives (place_of_coll).
 */
static void order_by_place(struct state *s)
{
	for (size_t i = 0; i < s->ncolls; i++) {
		struct coll *c = &s->colls[i];

		if (!untrusted_op_count(s, c->comm_id, c->nranks))
			continue;
		c->op_count = c->seq;
		c->lone = c->op == TRACE_OP_SENDRECV;
		s->lone_sends += c->lone;
	}
	for (size_t i = 0; i < s->nrecvs; i++)
		if (untrusted_op_count(s, s->recvs[i].comm, -1))
			s->recvs[i].op_count = s->recv_seq[i];
}

int nlog_build(struct state *s, struct trace *t)
{
	uint64_t world_id = 0;
	int world_n = 0, err;

	err = nlog_world_ranks(s, &world_id, &world_n);
	if (err)
		return err;
	s->world_n = world_n;
	/* a group's members are looked up once per rank of every entry */
	qsort(s->views, s->nviews, sizeof(*s->views), nlog_cmp_view);
	if (!s->ncolls && s->left_out)
		return diag_set(s->d, -EINVAL, "%s:%u: collective: '%s' is not one gdrlab's trace has (AllReduce, AllGather, ReduceScatter, Broadcast, AlltoAll, Send/Recv), and the logs have no other",
				s->in[s->left_out_file].name, s->left_out_line, s->left_out_name);
	if (!s->ncolls)
		return diag_set(s->d, -EINVAL, "%s: nccl-log: no collectives (NCCL_DEBUG_SUBSYS must include COLL)",
				s->in[0].name);
	order_by_place(s);
	t->entries = calloc(s->ncolls, sizeof(*t->entries));
	if (!t->entries)
		return -ENOMEM;
	t->nentries = s->ncolls;
	t->niterations = 1;
	snprintf(t->file, sizeof(t->file), "%s", s->in[0].name);
	for (size_t i = 0; i < s->ncolls && !err; i++)
		err = make_entry(s, &s->colls[i], world_id, world_n, &t->entries[i]);
	if (!err)
		err = fold_alltoalls(s, t, &s->alltoalls);
	if (!err)
		err = batch_sends(s, t);
	/* Each NCCL communicator is one of the trace's, named by its commId
	 * (the world's "world"), so that two of the same ranks stay two. */
	for (size_t i = 0; i < s->ncolls && !err; i++) {
		const struct coll *c = &s->colls[i];
		char name[TRACE_COMM_NAME_MAX];

		if (c->comm_id == world_id && c->nranks == world_n)
			snprintf(name, sizeof(name), "world");
		else
			snprintf(name, sizeof(name), "comm-%016" PRIx64, c->comm_id);
		err = trace_comm_assign(t, &t->entries[i], name, c->stream, s->d);
	}
	if (!err)
		err = issue_order(s, t, world_id, world_n);
	/* the issue order puts a rank's sends by its own opCount, and a
	 * launch joins ranks whose counts differ (a pipeline's middle stage's
	 * second exchange is its neighbour's first) */
	if (!err)
		err = trace_gather_batches(t);
	return err;
}
