/* SPDX-License-Identifier: MIT */
/*
 * records_order: which calls of a run wait for which (records.h).
 *
 * NCCL runs a communicator's calls on each rank's stream in the order
 * that rank issued them; a call moves once every rank taking part has
 * reached it. So a collective, which every rank of its communicator
 * takes part in, waits for everything before it on its communicator and
 * stream, and a send waits only for the calls of its own two ranks: the
 * sends of a pipeline's stage pairs run at once. A batch (one
 * ncclGroupStart/End, PyTorch's batch_isend_irecv: group.cc launches its
 * sends as one kernel a rank) starts as one once every rank it has is
 * free, and what comes after on a rank waits for that rank's sends of
 * it. A send outside a batch runs on its pair's own queue: PyTorch puts
 * it on a two-rank communicator of its own, with its own stream
 * (ProcessGroupNCCL::pointToPoint's key getKeySendRecv; in every release
 * to 2.5, and in later ones unless the group was initialised eagerly,
 * with a device_id, which reuses the group's communicator:
 * pytorch#154132).
 */
#include "records.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "array_grow.h"

/* A queue: (communicator, stream), or a pair's on it (lo < hi). */
struct queue_key {
	unsigned comm, stream, lo, hi; /* lo = hi = UINT_MAX: the communicator's own */
	unsigned queue;
};

/* Open addressing over the queues seen; a power of two slots. */
struct queue_table {
	struct queue_key *slot;
	size_t mask;
};

static size_t mix(uint64_t h)
{
	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ull;
	return (size_t)(h ^ (h >> 29));
}

static size_t key_hash(const struct queue_key *k)
{
	return mix((((uint64_t)k->comm * 0x9e3779b97f4a7c15ull ^ k->stream) * 0x94d049bb133111ebull ^
		    k->lo) * 0x9e3779b97f4a7c15ull ^ k->hi);
}

static unsigned queue_find(struct queue_table *t, const struct queue_key *k, unsigned *nqueues)
{
	for (size_t i = key_hash(k) & t->mask;; i = (i + 1) & t->mask) {
		struct queue_key *s = &t->slot[i];

		if (s->queue == UINT_MAX) {
			*s = *k;
			s->queue = (*nqueues)++;
			return s->queue;
		}
		if (s->comm == k->comm && s->stream == k->stream && s->lo == k->lo && s->hi == k->hi)
			return s->queue;
	}
}

static size_t table_slots(size_t n)
{
	size_t cap = 16;

	while (cap < 2 * n)
		cap *= 2;
	return cap;
}

/* Each call's queue, and its batch: the calls in a row on a queue with
 * one batch. @last: scratch, a call per queue. */
static int number_queues(struct records *r, size_t *last)
{
	struct queue_table q = { NULL, table_slots(r->ncoll) - 1 };

	q.slot = malloc((q.mask + 1) * sizeof(*q.slot));
	if (!q.slot)
		return -ENOMEM;
	for (size_t i = 0; i <= q.mask; i++)
		q.slot[i].queue = UINT_MAX;
	r->nqueues = 0;
	for (size_t i = 0; i < r->ncoll; i++) {
		struct coll_record *c = &r->coll[i];
		struct queue_key k = { c->comm, c->stream, UINT_MAX, UINT_MAX, 0 };
		unsigned nq = r->nqueues;

		c->next_in_batch = SIZE_MAX;
		c->pair_queue = c->src >= 0 && !c->batched;
		if (c->pair_queue) {
			k.lo = (unsigned)(c->src < c->dst ? c->src : c->dst);
			k.hi = (unsigned)(c->src < c->dst ? c->dst : c->src);
		}
		c->queue = queue_find(&q, &k, &r->nqueues);
		if (r->nqueues == nq) { /* not its queue's first */
			struct coll_record *b = &r->coll[last[c->queue]];

			c->joins_batch = c->batched && b->batched && b->batch == c->batch &&
					 b->iteration == c->iteration;
			if (c->joins_batch)
				b->next_in_batch = i;
		}
		last[c->queue] = i;
	}
	free(q.slot);
	return 0;
}

/* The calls since a queue's last collective, and the batch each rank
 * took part in last there (its first send). */
struct queue_state {
	size_t full;     /* the last call of all its ranks, or SIZE_MAX */
	size_t *since;   /* batches' sends since, in order */
	size_t nsince, cap;
	unsigned iteration;
};

struct rank_slot {
	unsigned queue;
	int rank;
	size_t call; /* SIZE_MAX: free */
};

struct order {
	struct records *r;
	struct queue_state *qs;
	struct rank_slot *ranks; /* open addressing by (queue, rank) */
	size_t mask;
	size_t *pred, npred, cap; /* all calls' preds, in order */
	size_t *added;            /* per call: 1 + the call whose preds it is in last */
};

static struct rank_slot *rank_last(struct order *o, unsigned queue, int rank)
{
	for (size_t i = mix((uint64_t)queue << 32 ^ (uint32_t)rank) & o->mask;; i = (i + 1) & o->mask) {
		struct rank_slot *s = &o->ranks[i];

		if (s->call == SIZE_MAX) {
			s->queue = queue;
			s->rank = rank;
			return s;
		}
		if (s->queue == queue && s->rank == rank)
			return s;
	}
}

/* @call among call @i's preds, once. */
static int add_pred(struct order *o, size_t i, size_t call)
{
	int err;

	if (o->added[call] == i + 1)
		return 0;
	err = array_grow((void **)&o->pred, o->npred, &o->cap, sizeof(*o->pred));
	if (!err) {
		o->pred[o->npred++] = call;
		o->added[call] = i + 1;
	}
	return err;
}

static bool touches(const struct coll_record *c, int rank)
{
	return c->src == rank || c->dst == rank;
}

/* Batch @i's preds on its queue: the queue's last collective and, for
 * each of its ranks, the sends of that rank in the last batch since that
 * took it: NCCL launches a group as a kernel a rank, which ends when that
 * rank's own sends and receives have, so a rank waits for its own part
 * of a batch, not for the batch's other ranks. The batch becomes its
 * ranks' last. */
static int batch_preds(struct order *o, size_t i)
{
	struct records *r = o->r;
	struct queue_state *s = &o->qs[r->coll[i].queue];
	int err = s->full == SIZE_MAX ? 0 : add_pred(o, i, s->full);

	for (size_t j = i; j != SIZE_MAX && !err; j = r->coll[j].next_in_batch) {
		for (int end = 0; end < 2 && !err; end++) {
			int rank = end ? r->coll[j].dst : r->coll[j].src;
			struct rank_slot *slot = rank_last(o, r->coll[i].queue, rank);
			size_t last = slot->call; /* that batch's first send */

			/* this batch (from i on) is not waited for */
			if (last != SIZE_MAX && last < i &&
			    r->coll[last].iteration == r->coll[i].iteration &&
			    (s->full == SIZE_MAX || last > s->full))
				for (size_t m = last; m != SIZE_MAX && !err; m = r->coll[m].next_in_batch)
					if (touches(&r->coll[m], rank))
						err = add_pred(o, i, m);
			slot->call = i;
		}
		if (!err)
			err = array_grow((void **)&s->since, s->nsince, &s->cap, sizeof(*s->since));
		if (!err)
			s->since[s->nsince++] = j;
	}
	return err;
}

static int link_calls(struct order *o)
{
	struct records *r = o->r;
	int err = 0;

	for (size_t i = 0; i < r->ncoll && !err; i++) {
		struct coll_record *c = &r->coll[i];
		struct queue_state *s = &o->qs[c->queue];

		r->pred_first[i] = o->npred;
		if (c->joins_batch)
			continue;
		if (s->iteration != c->iteration) { /* iterations follow one another */
			s->full = SIZE_MAX;
			s->nsince = 0;
			s->iteration = c->iteration;
		}
		if (c->batched) {
			err = batch_preds(o, i);
			continue;
		}
		if (s->full != SIZE_MAX)
			err = add_pred(o, i, s->full);
		for (size_t k = 0; k < s->nsince && !err; k++)
			err = add_pred(o, i, s->since[k]);
		s->full = i;
		s->nsince = 0;
	}
	r->pred_first[r->ncoll] = o->npred;
	return err;
}

int records_order(struct records *r)
{
	size_t n = r->ncoll ? r->ncoll : 1;
	size_t *last = malloc(n * sizeof(*last));
	struct order o = { r, NULL, NULL, table_slots(2 * r->ncoll) - 1, NULL, 0, 0, NULL };
	int err = last ? number_queues(r, last) : -ENOMEM;

	free(last);
	if (!err) {
		o.qs = calloc(r->nqueues ? r->nqueues : 1, sizeof(*o.qs));
		o.ranks = malloc((o.mask + 1) * sizeof(*o.ranks));
		o.added = calloc(n, sizeof(*o.added));
		r->pred_first = malloc((r->ncoll + 1) * sizeof(*r->pred_first));
		err = o.qs && o.ranks && o.added && r->pred_first ? 0 : -ENOMEM;
	}
	for (size_t k = 0; !err && k <= o.mask; k++)
		o.ranks[k].call = SIZE_MAX;
	for (unsigned q = 0; !err && q < r->nqueues; q++)
		o.qs[q] = (struct queue_state){ SIZE_MAX, NULL, 0, 0, UINT_MAX };
	if (!err)
		err = link_calls(&o);
	for (unsigned q = 0; o.qs && q < r->nqueues; q++)
		free(o.qs[q].since);
	free(o.qs);
	free(o.ranks);
	free(o.added);
	r->preds = o.pred;
	return err;
}

bool records_concurrent(const struct records *r)
{
	if (r->nqueues > 1)
		return true;
	for (size_t i = 0; i < r->ncoll; i++)
		if (r->coll[i].batched)
			return true;
	return false;
}

double records_batch_ready(const struct records *r, size_t lead)
{
	double ready = 0;

	for (size_t i = lead; i != SIZE_MAX; i = r->coll[i].next_in_batch)
		if (r->coll[i].ready_us > ready)
			ready = r->coll[i].ready_us;
	return ready;
}
