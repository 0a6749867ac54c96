/* SPDX-License-Identifier: MIT */
/* The 1F1B schedule of gen llm's stages (gen_llm_internal.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gen_llm_internal.h"


void gen_llm_schedule_destroy(struct schedule *sc)
{
	free(sc->f);
	free(sc->b);
	free(sc->fdur);
	free(sc->bdur);
}

/* Stage s's op k: which micro-batch, forward or backward. */
static unsigned op_of(unsigned pp, unsigned m, unsigned s, unsigned k, bool *fwd)
{
	unsigned warm = pp - 1 - s < m ? pp - 1 - s : m;

	if (k < warm) {
		*fwd = true;
		return k;
	}
	if (k < warm + 2 * (m - warm)) {
		*fwd = (k - warm) % 2 == 0;
		return *fwd ? warm + (k - warm) / 2 : (k - warm) / 2;
	}
	*fwd = false;
	return k - m; /* backwards m - warm .. m - 1 */
}

int gen_llm_schedule_1f1b(const struct gen_llm_options *o, struct schedule *sc)
{
	unsigned pp = o->pp, m = o->micro_batches;
	size_t n = (size_t)pp * m, left = 2 * n;
	unsigned *next = calloc(pp, sizeof(*next));
	double *free_at = calloc(pp, sizeof(*free_at));
	bool progress = true;

	memset(sc, 0, sizeof(*sc));
	sc->pp = pp;
	sc->m = m;
	sc->f = malloc(n * sizeof(*sc->f));
	sc->b = malloc(n * sizeof(*sc->b));
	sc->fdur = malloc(pp * sizeof(*sc->fdur));
	sc->bdur = malloc(pp * sizeof(*sc->bdur));
	if (!next || !free_at || !sc->f || !sc->b || !sc->fdur || !sc->bdur) {
		free(next);
		free(free_at);
		gen_llm_schedule_destroy(sc);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		sc->f[i] = sc->b[i] = -1;
	for (unsigned s = 0; s < pp; s++) {
		struct gen_llm_stage st;

		gen_llm_stage(o, s, &st);
		sc->fdur[s] = st.forward_us;
		sc->bdur[s] = st.backward_us;
	}
	while (left && progress) {
		progress = false;
		for (unsigned s = 0; s < pp; s++)
			while (next[s] < 2 * m) {
				bool fwd;
				unsigned i = op_of(pp, m, s, next[s], &fwd);
				double dep = 0, *at = fwd ? &sc->f[s * m + i] : &sc->b[s * m + i];

				if (fwd && s) {
					if (sc->f[(s - 1) * m + i] < 0)
						break;
					dep = sc->f[(s - 1) * m + i] + sc->fdur[s - 1];
				} else if (!fwd && s + 1 < pp) {
					if (sc->b[(s + 1) * m + i] < 0)
						break;
					dep = sc->b[(s + 1) * m + i] + sc->bdur[s + 1];
				} else if (!fwd) {
					dep = sc->f[s * m + i] + sc->fdur[s];
				}
				*at = fmax(dep, free_at[s]);
				free_at[s] = *at + (fwd ? sc->fdur[s] : sc->bdur[s]);
				sc->end = fmax(sc->end, free_at[s]);
				next[s]++;
				left--;
				progress = true;
			}
	}
	free(next);
	free(free_at);
	if (left) {
		gen_llm_schedule_destroy(sc);
		return -EDEADLK; /* 1F1B cannot deadlock: a bug */
	}
	return 0;
}

double gen_llm_iteration_us(const struct gen_llm_options *o)
{
	struct schedule sc;
	double end;

	if (gen_llm_schedule_1f1b(o, &sc))
		return NAN;
	end = sc.end;
	gen_llm_schedule_destroy(&sc);
	return end;
}

