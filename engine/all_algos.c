/* SPDX-License-Identifier: MIT */
/*
 * The explicit table of algorithms, in NCCL's order (enum algo_id), as
 * rdma-core lists its providers in all_providers.c: adding one is a file
 * and a line here.
 */
#include "algo.h"

#include <errno.h>
#include <strings.h>

extern const struct algo_ops algo_tree, algo_ring, algo_collnet_direct,
	algo_collnet_chain, algo_nvls, algo_nvls_tree, algo_pat, algo_p2p;

const struct algo_ops *const algo_table[ALGO_COUNT] = {
	[ALGO_TREE] = &algo_tree,
	[ALGO_RING] = &algo_ring,
	[ALGO_COLLNET_DIRECT] = &algo_collnet_direct,
	[ALGO_COLLNET_CHAIN] = &algo_collnet_chain,
	[ALGO_NVLS] = &algo_nvls,
	[ALGO_NVLS_TREE] = &algo_nvls_tree,
	[ALGO_PAT] = &algo_pat,
	[ALGO_P2P] = &algo_p2p,
};

const char *algo_name(enum algo_id a)
{
	return (unsigned)a < ALGO_COUNT ? algo_table[a]->name : "?";
}

int algo_parse(const char *s, enum algo_id *a)
{
	for (unsigned i = 0; i < ALGO_NCCL_COUNT; i++)
		if (strcasecmp(s, algo_table[i]->name) == 0) {
			*a = (enum algo_id)i;
			return 0;
		}
	return -EINVAL;
}

/*
 * tuning.cc's loop: broadcast (and reduce) run on rings only;
 * all-gather and reduce-scatter on ring, PAT, NVLS and CollNetDirect;
 * all-reduce on all but PAT; p2p ops on the p2p path.
 */
bool algo_serves(enum algo_id a, enum trace_op op)
{
	switch (op) {
	case TRACE_OP_ALLREDUCE:
		return a < ALGO_NCCL_COUNT && a != ALGO_PAT;
	case TRACE_OP_ALL_GATHER:
	case TRACE_OP_REDUCE_SCATTER:
		return a == ALGO_RING || a == ALGO_PAT || a == ALGO_NVLS ||
		       a == ALGO_COLLNET_DIRECT;
	case TRACE_OP_BROADCAST:
		return a == ALGO_RING;
	default:
		return a == ALGO_P2P;
	}
}
