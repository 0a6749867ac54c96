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

#include <stdbool.h>
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

/*
 * Room for solves, one after another, over the same @nres resources: a
 * solve through it costs what its flows use, not the number of resources
 * (a caller that solves many small sets of a large cluster). Every array
 * is owned; between solves they hold nothing of the last one.
 */
struct maxmin_ws {
	size_t nres;
	double *remaining, *load; /* per resource, valid where touched */
	uint32_t *users;          /* per resource: uses by flows not frozen
				   * (0 where not touched) */
	bool *full;               /* per resource: saturated this round */
	uint32_t *touched;        /* the resources this solve uses */
	size_t ntouched, room_touched;
	uint32_t *active;         /* of those, the limited ones live flows
				   * still use: what a round walks */
	size_t nactive, room_active;
	uint32_t *live;           /* flows not frozen yet, in order */
	uint32_t *frozen;         /* flows frozen this round, in order */
	size_t room_live;         /* of live and frozen */
	uint32_t *slot;           /* per resource: its place among the
				   * active, in a solve of many rounds */
};

/* 0 or -ENOMEM; maxmin_ws_destroy in either case. */
int maxmin_ws_init(struct maxmin_ws *ws, size_t nres);
void maxmin_ws_destroy(struct maxmin_ws *ws);

/* maxmin_solve over @ws's resources: the same rates to the bit. */
int maxmin_ws_solve(struct maxmin_ws *ws, const double *capacity,
		    struct maxmin_flow *flows, size_t nflows);

#endif
