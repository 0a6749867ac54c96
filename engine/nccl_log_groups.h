/* SPDX-License-Identifier: MIT */
/*
 * nccl_log_groups: which sends of an NCCL log ran as one launch.
 *
 * An NCCL log gives each rank's calls its own opCount, which counts that
 * rank's launches on the communicator (enqueue.cc): the sends and
 * receives of one ncclGroupStart/End share it. Collectives keep the
 * ranks' counts in step, but point-to-point calls do not: a pipeline's
 * middle stage launches with both neighbours, its ends with one. So a
 * group is a rank's opCount, and a transfer joins its sender's group to
 * its receiver's: the k-th send from A to B on a communicator is the k-th
 * receive on B from A (NCCL matches them in order). Groups joined so run
 * as one launch: rank 0 sending to 1 and receiving from 1 in one group,
 * rank 1 doing the same in its own, is one exchange both ways.
 */
#ifndef GDRLAB_NCCL_LOG_GROUPS_H
#define GDRLAB_NCCL_LOG_GROUPS_H

#include <stddef.h>
#include <stdint.h>

/* A Send line (at its sender) or a Recv line (at its receiver). */
struct nlg_end {
	uint64_t comm;     /* commId */
	int src, dst;      /* ranks in the communicator */
	uint64_t op_count; /* the logging rank's (src's for a send, dst's for a receive) */
	size_t order;      /* the order the line was read in, by its rank */
};

/*
 * For each of the @nsends sends, @group gets the index (into @sends) of
 * the first send of its launch: the sends whose ranks' groups the
 * receives (@nrecvs of them, matched in order) join. A send whose
 * receive is not in the logs is its sender's group's alone. 0 or
 * -ENOMEM.
 */
int nlg_group(const struct nlg_end *sends, size_t nsends, const struct nlg_end *recvs,
	      size_t nrecvs, size_t *group);

#endif
