/* SPDX-License-Identifier: MIT */
#include "nccl_log_groups.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "union_find.h"

/* A line by (communicator, sender, receiver, order): the k-th of a pair
 * on both sides lines up. */
struct pair_key {
	const struct nlg_end *e;
	size_t i;
};

static int cmp_pair(const void *pa, const void *pb)
{
	const struct nlg_end *x = ((const struct pair_key *)pa)->e;
	const struct nlg_end *y = ((const struct pair_key *)pb)->e;

	if (x->comm != y->comm)
		return x->comm < y->comm ? -1 : 1;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	if (x->dst != y->dst)
		return x->dst < y->dst ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

static bool same_pair(const struct nlg_end *x, const struct nlg_end *y)
{
	return x->comm == y->comm && x->src == y->src && x->dst == y->dst;
}

/* A rank's launch: (communicator, rank, opCount). */
struct group_key {
	uint64_t comm, op_count;
	int rank;
};

static int cmp_group(const void *pa, const void *pb)
{
	const struct group_key *x = pa, *y = pb;

	if (x->comm != y->comm)
		return x->comm < y->comm ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return (x->op_count > y->op_count) - (x->op_count < y->op_count);
}

/* @recv_of[i]: the receive matched with send i, or SIZE_MAX. */
static int match_receives(const struct nlg_end *sends, size_t nsends, const struct nlg_end *recvs,
			  size_t nrecvs, size_t *recv_of)
{
	struct pair_key *s = malloc((nsends ? nsends : 1) * sizeof(*s));
	struct pair_key *r = malloc((nrecvs ? nrecvs : 1) * sizeof(*r));
	size_t a = 0, b = 0;

	if (!s || !r) {
		free(s);
		free(r);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nsends; i++) {
		s[i] = (struct pair_key){ &sends[i], i };
		recv_of[i] = SIZE_MAX;
	}
	for (size_t j = 0; j < nrecvs; j++)
		r[j] = (struct pair_key){ &recvs[j], j };
	qsort(s, nsends, sizeof(*s), cmp_pair);
	qsort(r, nrecvs, sizeof(*r), cmp_pair);
	while (a < nsends && b < nrecvs) {
		int c = cmp_pair(&s[a], &r[b]);

		if (same_pair(s[a].e, r[b].e)) /* the k-th of each side */
			recv_of[s[a++].i] = r[b++].i;
		else if (c < 0)
			a++;
		else
			b++;
	}
	free(s);
	free(r);
	return 0;
}

int nlg_group(const struct nlg_end *sends, size_t nsends, const struct nlg_end *recvs,
	      size_t nrecvs, size_t *group)
{
	size_t n = nsends ? 2 * nsends : 1, nkeys = 0;
	size_t *recv_of = malloc((nsends ? nsends : 1) * sizeof(*recv_of));
	struct group_key *keys = malloc(n * sizeof(*keys));
	size_t *up = malloc(n * sizeof(*up)), *first = malloc(n * sizeof(*first));
	int err = recv_of && keys && up && first ? 0 : -ENOMEM;

	if (!err)
		err = match_receives(sends, nsends, recvs, nrecvs, recv_of);
	for (size_t i = 0; i < nsends && !err; i++) {
		keys[nkeys++] = (struct group_key){ sends[i].comm, sends[i].op_count, sends[i].src };
		if (recv_of[i] != SIZE_MAX)
			keys[nkeys++] = (struct group_key){ sends[i].comm, recvs[recv_of[i]].op_count,
							    sends[i].dst };
	}
	if (!err) {
		size_t u = 0;

		qsort(keys, nkeys, sizeof(*keys), cmp_group);
		for (size_t k = 0; k < nkeys; k++)
			if (!u || cmp_group(&keys[u - 1], &keys[k]))
				keys[u++] = keys[k];
		nkeys = u;
		for (size_t k = 0; k < nkeys; k++) {
			up[k] = k;
			first[k] = SIZE_MAX;
		}
	}
	for (size_t i = 0; i < nsends && !err; i++) {
		struct group_key a = { sends[i].comm, sends[i].op_count, sends[i].src };
		size_t ka = (size_t)((struct group_key *)bsearch(&a, keys, nkeys, sizeof(*keys),
								   cmp_group) - keys);

		group[i] = ka; /* for now: the sender's group */
		if (recv_of[i] != SIZE_MAX) {
			struct group_key b = { sends[i].comm, recvs[recv_of[i]].op_count, sends[i].dst };
			size_t kb = (size_t)((struct group_key *)bsearch(&b, keys, nkeys,
									   sizeof(*keys), cmp_group) - keys);

			uf_join(up, ka, kb);
		}
	}
	/* each launch by its first send */
	for (size_t i = 0; i < nsends && !err; i++) {
		size_t root = uf_root(up, group[i]);

		if (first[root] == SIZE_MAX)
			first[root] = i;
		group[i] = first[root];
	}
	free(recv_of);
	free(keys);
	free(up);
	free(first);
	return err;
}
