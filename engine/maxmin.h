/* SPDX-License-Identifier: MIT */
/*
 * maxmin: max-min fair sharing of capacities among flows (progressive
 * filling, Bertsekas & Gallager, "Data Networks", 6.5.2).
 *
 * A flow uses each resource with a weight: a pipelined staged
 * transfer whose copy writes host memory while its NIC reads it uses host
 * memory twice per byte. A flow may also carry a private cap (a copy
 * engine's speed) that no other flow shares.
 */
#ifndef GDRLAB_MAXMIN_H
#define GDRLAB_MAXMIN_H

#include <stddef.h>
#include <stdint.h>

struct maxmin_use {
	uint32_t resource; /* index into the capacity array */
	double weight;     /* bytes of this resource per byte of the flow */
};

struct maxmin_flow {
	const struct maxmin_use *uses; /* borrowed; nuses entries */
	unsigned nuses;
	double cap;  /* private limit, bytes/s; INFINITY for none */
	double rate; /* result, bytes/s */
};

/*
 * Give every flow its max-min fair rate. @capacity has @nres entries
 * (INFINITY = unlimited). Returns 0, -ENOMEM, or -EINVAL when a resource
 * index is out of range.
 */
int maxmin_solve(const double *capacity, size_t nres, struct maxmin_flow *flows,
		 size_t nflows);

#endif
