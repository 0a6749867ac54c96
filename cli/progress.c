/* SPDX-License-Identifier: MIT */
#include "cli.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

/* Show nothing for runs shorter than this, and redraw at most this often. */
#define PROGRESS_DELAY_S 1.0
#define PROGRESS_PERIOD_S 0.2

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

void progress_init(struct progress *p, const char *label, bool quiet)
{
	p->enabled = !quiet && isatty(STDERR_FILENO);
	p->shown = false;
	p->t0 = now();
	p->last = 0;
	p->label = label;
	p->unit = "collectives";
}

void progress_update(void *ctx, size_t done, size_t total)
{
	struct progress *p = ctx;
	double t;

	if (!p->enabled)
		return;
	t = now();
	if (t - p->t0 < PROGRESS_DELAY_S || t - p->last < PROGRESS_PERIOD_S)
		return;
	p->last = t;
	p->shown = true;
	fprintf(stderr, "\r%s: %zu/%zu %s (%.0f%%), %.1f s", p->label, done, total, p->unit,
		total ? 100.0 * done / total : 100.0, t - p->t0);
	/* the pace so far, and what it leaves */
	if (done && done < total)
		fprintf(stderr, ", %.1f a second, about %.0f s left\033[K",
			done / (t - p->t0), (total - done) * (t - p->t0) / done);
	fflush(stderr);
}

void progress_done(struct progress *p)
{
	if (p->shown)
		fprintf(stderr, "\r\033[K");
	p->shown = false;
}
