/* SPDX-License-Identifier: MIT */
#include "maxmin.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

/* A resource within this relative margin of full counts as saturated. */
#define MAXMIN_EPS 1e-12

int maxmin_solve(const double *capacity, size_t nres, struct maxmin_flow *flows,
		 size_t nflows)
{
	double *remaining, *load;
	bool *frozen;
	size_t active = nflows, f;
	double level = 0;
	int err = -ENOMEM;

	remaining = malloc(nres * sizeof(*remaining));
	load = calloc(nres, sizeof(*load));
	frozen = calloc(nflows ? nflows : 1, sizeof(*frozen));
	if (!remaining || !load || !frozen)
		goto out_free;

	for (size_t r = 0; r < nres; r++)
		remaining[r] = capacity[r];
	for (f = 0; f < nflows; f++) {
		for (unsigned u = 0; u < flows[f].nuses; u++) {
			if (flows[f].uses[u].resource >= nres) {
				err = -EINVAL;
				goto out_free;
			}
			load[flows[f].uses[u].resource] += flows[f].uses[u].weight;
		}
	}

	while (active) {
		double step = INFINITY;

		/* The smallest increase of the common level that fills a
		 * resource or reaches a flow's private cap. */
		for (f = 0; f < nflows; f++) {
			if (frozen[f])
				continue;
			if (flows[f].cap - level < step)
				step = flows[f].cap - level;
			for (unsigned u = 0; u < flows[f].nuses; u++) {
				uint32_t r = flows[f].uses[u].resource;
				double s;

				if (!isfinite(capacity[r]))
					continue;
				s = remaining[r] / load[r];
				if (s < step)
					step = s;
			}
		}
		if (!isfinite(step)) {
			/* Nothing limits the remaining flows. */
			for (f = 0; f < nflows; f++)
				if (!frozen[f])
					flows[f].rate = INFINITY;
			break;
		}
		if (step < 0)
			step = 0;
		level += step;
		for (size_t r = 0; r < nres; r++)
			if (load[r] > 0 && isfinite(remaining[r]))
				remaining[r] -= step * load[r];

		/* Freeze the flows that hit a full resource or their cap. */
		for (f = 0; f < nflows; f++) {
			bool stop;

			if (frozen[f])
				continue;
			stop = isfinite(flows[f].cap) &&
			       flows[f].cap - level <= MAXMIN_EPS * flows[f].cap;
			for (unsigned u = 0; u < flows[f].nuses && !stop; u++) {
				uint32_t r = flows[f].uses[u].resource;

				stop = isfinite(capacity[r]) &&
				       remaining[r] <= MAXMIN_EPS * capacity[r];
			}
			if (!stop)
				continue;
			frozen[f] = true;
			flows[f].rate = level;
			active--;
			for (unsigned u = 0; u < flows[f].nuses; u++)
				load[flows[f].uses[u].resource] -= flows[f].uses[u].weight;
		}
	}
	err = 0;
out_free:
	free(frozen);
	free(load);
	free(remaining);
	return err;
}
