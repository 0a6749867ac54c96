/* SPDX-License-Identifier: MIT */
/*
 * import_kineto_p2p: the peers of PyTorch 2.2 to 2.4's sends and
 * receives. Their record_param_comms calls name no peer (saveNcclMeta
 * writes "Dst Rank" and "Src Rank" from 2.5, pytorch/pytorch#130812),
 * but ProcessGroupNCCL::send and ::recv pass pointToPoint a profiling
 * title with both group places, "nccl:send <rank_>-><dstRank>" and
 * "nccl:recv <rank_><-<srcRank>" (from 2.2, pytorch/pytorch#111811),
 * which becomes a record function opened inside the call's
 * RECORD_PARAM_COMMS_DATA scope, on its thread. A file's titles are kept
 * until its end; each peerless call takes the first unused one of its
 * kind that starts within its own span on its thread.
 *
 * Sends and receives inside torch.distributed.batch_isend_irecv (one
 * "nccl:coalesced" for the batch, no title each) and those of PyTorch
 * 2.1 ("nccl:send", no places) find none and stay left out.
 */
#ifndef GDRLAB_IMPORT_KINETO_P2P_H
#define GDRLAB_IMPORT_KINETO_P2P_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One "nccl:send A->B" / "nccl:recv A<-B" event. */
struct kp2p_title {
	int64_t pid, tid;
	double ts;
	unsigned self, peer; /* A and B: places in the call's group */
	unsigned line;       /* where it starts in its file */
	bool recv, used;
};

struct kp2p {
	struct kp2p_title *t;
	size_t n, cap;
};

/* Whether @name is such a title: 1 (and its kind and places), else 0. */
int kp2p_parse(const char *name, bool *recv, unsigned *self, unsigned *peer);

/* Keep a title: 0 or -ENOMEM. */
int kp2p_add(struct kp2p *p, const struct kp2p_title *t);

/* Sort the titles kept, once the file's end is read: kp2p_take needs it. */
void kp2p_sort(struct kp2p *p);

/* The first unused title of @recv's kind on @pid/@tid starting in
 * [@ts, @end], marked used; NULL when none. */
struct kp2p_title *kp2p_take(struct kp2p *p, int64_t pid, int64_t tid, double ts, double end,
			     bool recv);

void kp2p_clear(struct kp2p *p);
void kp2p_free(struct kp2p *p);

#endif
