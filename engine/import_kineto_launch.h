/* SPDX-License-Identifier: MIT */
/*
 * import_kineto_launch: which sends and receives of a rank's profile ran
 * in one torch.distributed.batch_isend_irecv.
 *
 * PyTorch records each send and receive of a batch as its own
 * record_param_comms call, then ends the batch with a "nccl:coalesced"
 * record function that has no arguments (ProcessGroupNCCL::endCoalescing:
 * initWork's profiling title); a send outside a batch opens its own title,
 * "nccl:send A->B", inside its call (pointToPoint's initWork, from 2.2),
 * which a batch's do not from 2.4 on. So on one thread, the sends and
 * receives that the next "nccl:coalesced" ends, with no other
 * communication event between (a collective, a title, another "nccl:"
 * record function), are one launch. A batch of 2.2's, whose sends open
 * titles, reads as sends outside a batch.
 */
#ifndef GDRLAB_IMPORT_KINETO_LAUNCH_H
#define GDRLAB_IMPORT_KINETO_LAUNCH_H

#include <stddef.h>
#include <stdint.h>

#include "import_calls.h"

enum klaunch_kind {
	KLAUNCH_P2P,      /* a send or a receive, import_calls' call */
	KLAUNCH_OTHER,    /* any other communication event: ends a batch */
	KLAUNCH_COALESCED /* "nccl:coalesced": the batch before it is one */
};

struct klaunch_ev {
	int64_t pid, tid;
	double ts;
	enum klaunch_kind kind;
	size_t call;  /* KLAUNCH_P2P: its index in import_calls.c */
	size_t order; /* the order added */
};

struct klaunch {
	struct klaunch_ev *ev;
	size_t n, cap;
};

/* Keep an event of the file being read: 0 or -ENOMEM. */
int klaunch_add(struct klaunch *l, int64_t pid, int64_t tid, double ts, enum klaunch_kind kind,
		size_t call);

/*
 * At the file's end: each send or receive of a batch gets the batch's
 * launch number (import_call.launch), the next of @k->launches; the
 * file's events are then forgotten.
 */
void klaunch_end_file(struct klaunch *l, struct import_calls *k);

void klaunch_free(struct klaunch *l);

#endif
