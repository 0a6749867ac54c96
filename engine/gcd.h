/* SPDX-License-Identifier: MIT */
/* The greatest common divisor, Euclid's way: for NCCL's p2p schedule
 * groups and the padding of sharded buckets. */
#ifndef GDRLAB_GCD_H
#define GDRLAB_GCD_H

#include <stdint.h>

/* gcd(a, 0) is a. */
static inline uint64_t gcd_u64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t r = a % b;

		a = b;
		b = r;
	}
	return a;
}

#endif
