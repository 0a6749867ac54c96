/* SPDX-License-Identifier: MIT */
/*
 * time_shares' fill sets (analytic_fill.c). A filling chain's connection
 * has its slices in flight from its first's start to its last's end (that
 * start, the chain's spread, its hop). A group of connections starting at
 * t shares its links, up to a window's far end `to`, with the connections
 * whose first slice starts before `to` (clock positions before b) and
 * whose spans end after t. A set that differs from the last one solved by
 * at most a slack of it keeps that solve's shares (FILL_SET_SLACK).
 *
 * The difference is counted from the two sets' edges, not by listing
 * both (some 50 000 connections a set at 1024 nodes): the last set's
 * connections whose spans have ended since (t only grows) and those
 * between the two sets' b. Where no span ending after t can start before
 * t - spread - hop (every hop at most the longest), that is the
 * difference of the listed sets, exactly (tests/unit/test_fill_sets.c).
 */
#ifndef GDRLAB_FILL_SETS_H
#define GDRLAB_FILL_SETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A connection of a filling chain on the call's clock. */
struct conn_clock {
	double start; /* its first slice's start */
	double hop;   /* that slice's latency + tau through it */
	uint32_t conn;
};

/* The clock's order, qsort's: by start, then hop, then connection. */
int conn_clock_cmp(const void *a, const void *b);

/* A clock position by when its slices have all left. */
struct conn_end {
	double at;
	uint32_t pos;
};

struct fill_sets {
	const struct conn_clock *clk; /* by start */
	size_t nc;
	double *end;             /* per position: start + spread + hop */
	struct conn_end *by_end; /* every position, by end */
	size_t next_end;         /* by_end's first ending after the group's t */
	size_t solved_b;         /* the last set solved: its b */
	size_t nsolved;          /* and its size; SIZE_MAX before any */
	size_t gone;             /* its connections ended since */
};

/* @fs over @nc connections @clk, ordered by start, of a chain of
 * @spread: 0 or -ENOMEM (destroy it either way). */
int fill_sets_init(struct fill_sets *fs, const struct conn_clock *clk, size_t nc,
		   double spread);
void fill_sets_destroy(struct fill_sets *fs);
/* On to a group starting at @t, no earlier than the last group's. */
void fill_sets_at(struct fill_sets *fs, double t);
/* b for a window ending at @to: the first position at or after @lo whose
 * first slice starts at or after @to. */
size_t fill_sets_until(const struct fill_sets *fs, size_t lo, double to);
/* Whether the set up to @b at fill_sets_at's @t is the last one solved
 * but for at most @slack of it (never before a first solve). */
bool fill_set_near(const struct fill_sets *fs, size_t b, double t, double slack);
/* The set up to @b, of @n connections, was solved. */
void fill_set_solved(struct fill_sets *fs, size_t b, size_t n);

#endif
