/* SPDX-License-Identifier: MIT */
/*
 * proto: NCCL's three protocols as data.
 *
 * A protocol decides how many bytes a GPU puts on a link per byte of
 * payload, how big a connection's buffer and its eight slots are, how many
 * threads a channel runs and below how many bytes per thread a call gives
 * up channels. Numbers from NVIDIA/nccl v2.30.7-1 (src/include/device.h,
 * comm.h, collectives.h, src/init.cc); ../shared/notes/nccl-algorithms.md
 * §1 and §4.
 */
#ifndef GDRLAB_PROTO_H
#define GDRLAB_PROTO_H

#include <stdint.h>

/* NCCL's order (NCCL_PROTO_LL, _LL128, _SIMPLE): tables are indexed so. */
enum proto_id {
	PROTO_LL,
	PROTO_LL128,
	PROTO_SIMPLE,
	PROTO_COUNT,
};

/* Slots per connection and protocol (NCCL_STEPS). */
#define PROTO_STEPS 8

struct proto_info {
	const char *name;          /* as NCCL_PROTO spells it */
	double wire_ratio;         /* bytes on the link per byte of payload */
	uint64_t buffer;           /* bytes of one connection's buffer */
	double data_fraction;      /* payload share of a slot */
	unsigned max_threads;      /* per channel */
	unsigned thread_threshold; /* bytes per thread a call needs to keep a
				    * channel (ring LL: times the ranks) */
	unsigned grain;            /* payload bytes a receiver can pass on at
				    * once (ncclProtoGrainSize): LL and LL128
				    * flag every line, Simple a whole slot */
};

const struct proto_info *proto_get(enum proto_id p);
static inline const char *proto_name(enum proto_id p)
{
	return proto_get(p)->name;
}

/* Payload bytes of one slot: the buffer over NCCL_STEPS, less the flags. */
uint64_t proto_step_bytes(enum proto_id p);

/* "ll", "LL128", "simple" (any case) -> 0 and *p, else -EINVAL. */
int proto_parse(const char *s, enum proto_id *p);

#endif
