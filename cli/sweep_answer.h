/* SPDX-License-Identifier: MIT */
/*
 * What the answers to a sweep plan's questions share (sweep_questions.c,
 * sweep_scaling.c): the plan's points in nested order, each found from
 * another by arithmetic, and their series' labels.
 */
#ifndef GDRLAB_SWEEP_ANSWER_H
#define GDRLAB_SWEEP_ANSWER_H

#include <stddef.h>
#include <stdio.h>

#include "sweep.h"

struct json_t;

/* Point @i with axis @a at value @v instead. */
size_t sweep_with_value(const struct sweep *sw, size_t i, unsigned a, unsigned v);
/* @i's axis values but axis @skip's (and @skip2's), for a series' name. */
void sweep_series_label(const struct sweep *sw, size_t i, int skip, int skip2, char *buf,
			size_t len);
/* The widest label of the series along axis @a, at least @min. */
int sweep_series_width(const struct sweep *sw, unsigned a, int min);
/* @x as JSON, null where it is NAN (no answer). */
struct json_t *sweep_number_or_null(double x);

/* The scaling question's table (sweep_scaling.c), and its JSON. */
void sweep_scaling_print(const struct sweep *sw, FILE *out);
struct json_t *sweep_scaling_json(const struct sweep *sw);

#endif
