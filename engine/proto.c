/* SPDX-License-Identifier: MIT */
#include "proto.h"

#include <errno.h>
#include <strings.h>

/*
 * LL: 16-byte lines of 8 bytes of data and 8 of flags (union ncclLLFifoLine),
 * buffer NCCL_LL_LINES_PER_THREAD (8) x NCCL_LL_MAX_NTHREADS (512) x
 * NCCL_STEPS x 16 B = 512 KiB. LL128: 128-byte lines of 120 bytes of data
 * and an 8-byte flag, buffer NCCL_LL128_ELEMS_PER_THREAD (120) x
 * NCCL_LL128_MAX_NTHREADS (640) x NCCL_STEPS x 8 B = 4,915,200 B. Simple:
 * plain data with one flag per slot, DEFAULT_BUFFSIZE = 4 MiB
 * (NCCL_BUFFSIZE). Thread thresholds: NCCL_LL_THREAD_THRESHOLD 8,
 * NCCL_LL128_THREAD_THRESHOLD 8, NCCL_SIMPLE_THREAD_THRESHOLD 64
 * (src/include/comm.h). Grains: ncclProtoGrainSize (src/include/device.h):
 * LL 16 B, LL128 a warp's 1920 B, Simple 512 B (its alignment; a Simple
 * receiver waits for its slot's flag, the whole slice).
 */
static const struct proto_info protos[PROTO_COUNT] = {
	[PROTO_LL] = { "LL", 2.0, 524288, 0.5, 512, 8, 16 },
	[PROTO_LL128] = { "LL128", 128.0 / 120.0, 4915200, 120.0 / 128.0, 640, 8, 1920 },
	[PROTO_SIMPLE] = { "Simple", 1.0, 4194304, 1.0, 512, 64, 512 },
};

const struct proto_info *proto_get(enum proto_id p)
{
	return &protos[(unsigned)p < PROTO_COUNT ? p : PROTO_SIMPLE];
}

uint64_t proto_step_bytes(enum proto_id p)
{
	const struct proto_info *i = proto_get(p);

	return (uint64_t)((double)(i->buffer / PROTO_STEPS) * i->data_fraction);
}

int proto_parse(const char *s, enum proto_id *p)
{
	for (unsigned i = 0; i < PROTO_COUNT; i++)
		if (strcasecmp(s, protos[i].name) == 0) {
			*p = (enum proto_id)i;
			return 0;
		}
	return -EINVAL;
}
