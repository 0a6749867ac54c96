/* SPDX-License-Identifier: MIT */
/*
 * gdrlab sweep under mpirun or srun (launch.h): rank r of n runs points
 * r, r + n, r + 2n, ... (-j at a time, as alone), and rank 0 prints every
 * row, in file order, exactly as a sweep run alone would.
 *
 * Over the launcher's bootstrap (boot.h: MPI under mpirun, gdrlab's TCP
 * one under srun), three steps:
 *   1. hello: every rank says how reading the sweep file went, and what it
 *      read (points and a hash of them), so that every rank stops at once
 *      with the same status on a bad file or a file that differs by host;
 *   2. ticks: while points run, the ranks line up every SWEEP_TICK_MS (a
 *      boot_sync: a rank gone or failed stops all), until all are done.
 *      Waiting out the slowest rank's points in one barrier would run into
 *      the TCP bootstrap's time-out (GDRLAB_BOOT_TIMEOUT) on long points;
 *   3. rows: each rank sends its own rows, ceil(points / n) fixed-size
 *      struct rows (the same as a point's process sends over its pipe),
 *      and every rank gets them all, so every rank exits the same.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot.h"
#include "cli.h"
#include "launch.h"
#include "sweep.h"

/* What each rank read, in step 1. */
struct hello {
	int32_t rc;   /* 0, or the exit status reading the file gave */
	uint32_t n;   /* points */
	uint64_t sum; /* FNV-1a of the points */
	uint32_t row_size, point_size; /* this build's: rows cross ranks whole */
	char msg[DIAG_MSG_MAX];
};

static uint64_t points_sum(const struct sweep *sw)
{
	const unsigned char *p = (const void *)sw->pts;
	uint64_t h = 0xcbf29ce484222325ull;

	/* point_parse zeroes each point first: no stray bytes in it */
	for (size_t i = 0; i < sw->n * sizeof(*sw->pts); i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

/* Step 1: 0 when every rank read the same points; the exit status of the
 * lowest rank that could not, with why in @d (every rank knows it: rank 0
 * says it); or a negative errno when the bootstrap failed. */
static int spread_hello(struct boot *b, const char *file, const struct sweep *sw,
			int load_rc, const struct diag *load_d, struct diag *d)
{
	struct hello mine = { .rc = load_rc, .row_size = sizeof(struct row),
			      .point_size = sizeof(*sw->pts) },
		     *all = calloc(b->size, sizeof(*all));
	int err;

	if (!all)
		return diag_set(d, -ENOMEM, "out of memory");
	if (load_rc) {
		snprintf(mine.msg, sizeof(mine.msg), "%s", load_d->msg);
	} else {
		mine.n = (uint32_t)sw->n;
		mine.sum = points_sum(sw);
	}
	err = b->ops->results(b, &mine, all, sizeof(mine), d);
	for (unsigned r = 0; !err && r < b->size; r++) {
		const struct hello *h = &all[r];

		err = h->rc;
		if (h->rc && !r)
			diag_set(d, 0, "%s", h->msg);
		else if (h->rc)
			diag_set(d, 0, "rank %u: %.*s", r, DIAG_MSG_MAX - 32, h->msg);
		else if (h->row_size != all[0].row_size || h->point_size != all[0].point_size)
			err = diag_set(d, EXIT_USAGE, "rank %u runs another gdrlab than rank 0 (its points and rows %u and %u bytes, rank 0's %u and %u): the same build on every host",
				       r, h->point_size, h->row_size, all[0].point_size,
				       all[0].row_size);
		else if (h->n != all[0].n || h->sum != all[0].sum)
			err = diag_set(d, EXIT_USAGE, "rank %u read %u points from %s, rank 0 %u%s: is the file the same on every host?",
				       r, h->n, file, all[0].n,
				       h->n == all[0].n ? ", not the same" : "");
	}
	free(all);
	return err;
}

/* Step 2's state: the ticks' boot_sync, and who is done. */
struct spread {
	struct boot *b;
	uint32_t *done; /* one per rank, from the last tick; 4 bytes, so that
			 * boot_sync's records (a header and this) stay aligned */
	struct diag *d;
};

/* One tick: every rank's status and whether it is done; @err (with @why)
 * stops every rank. 1 when all are done, 0 when not, or an error. */
static int spread_sync(struct spread *s, int err, const struct diag *why, bool done)
{
	uint32_t mine = done;

	err = boot_sync(s->b, err, why, &mine, s->done, sizeof(mine), s->d);
	for (unsigned r = 0; !err && r < s->b->size; r++)
		if (!s->done[r])
			return 0;
	return err ? err : 1;
}

static int spread_tick(void *arg, bool done)
{
	return spread_sync(arg, 0, NULL, done);
}

/* Step 3: each rank's rows (point rank + k x size in its k-th slot) to
 * every rank. */
static int spread_rows(struct boot *b, struct sweep *sw, struct row *mine,
		       struct row *all, size_t per, struct diag *d)
{
	int err;

	for (size_t k = 0, i = b->rank; k < per && i < sw->n; k++, i += b->size)
		mine[k] = sw->rows[i];
	err = b->ops->results(b, mine, all, per * sizeof(*mine), d);
	for (unsigned q = 0; !err && q < b->size; q++)
		for (size_t k = 0, i = q; k < per && i < sw->n; k++, i += b->size)
			sw->rows[i] = all[q * per + k];
	return err;
}

/* Steps 2 and 3. The row buffers are taken first: a rank that cannot
 * have them says so at once rather than leave the others waiting. */
static int spread_run(struct boot *b, struct sweep *sw, unsigned jobs,
		      struct diag *d)
{
	size_t per = (sw->n + b->size - 1) / b->size;
	struct row *mine = calloc(per, sizeof(*mine));
	struct row *all = calloc(per * b->size, sizeof(*all));
	struct spread s = { .b = b, .done = calloc(b->size, sizeof(uint32_t)),
			   .d = d };
	struct sweep_tick tick = { .fn = spread_tick, .arg = &s };
	struct diag oom = { "out of memory" };
	int err = -ENOMEM;

	if (mine && all && s.done)
		err = sweep_run(sw, jobs, b->rank, b->size, &tick);
	/* a failure of this rank's own (a tick's has its message): tell the
	 * others at what they take for a tick */
	if (err == -ENOMEM && !d->msg[0] && s.done)
		err = spread_sync(&s, -ENOMEM, &oom, false);
	if (!err)
		err = spread_rows(b, sw, mine, all, per, d);
	if (err && !d->msg[0])
		diag_set(d, err, "%s", strerror(-err));
	free(s.done);
	free(all);
	free(mine);
	return err;
}

int sweep_spread(const struct emu_launch *l, const char *file, struct sweep *sw,
		 unsigned jobs, int load_rc, const struct diag *load_d,
		 bool *report)
{
	struct diag d = { "" };
	struct boot b = { 0 };
	int rc;

	*report = false;
	rc = emu_launch_boot(l, &b, &d);
	if (!rc)
		rc = spread_hello(&b, file, sw, load_rc, load_d, &d);
	if (rc > 0 && b.rank == 0) /* the sweep file: every rank knows */
		fprintf(stderr, "gdrlab sweep: %s\n", d.msg);
	if (!rc)
		rc = spread_run(&b, sw, jobs, &d);
	if (rc < 0) { /* the bootstrap, or a rank: each says what it saw */
		fprintf(stderr, "gdrlab sweep: %s\n", d.msg);
		rc = EXIT_RUNTIME;
	}
	*report = !rc && b.rank == 0;
	if (b.ops)
		b.ops->close(&b);
	return rc;
}
