/* SPDX-License-Identifier: MIT */
/* The 1F1B schedule of gen llm's stages, plain or interleaved
 * (gen_llm_internal.h). */
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
	free(sc->rank_end);
}

/*
 * Op @k of a rank that runs @total forwards and as many backwards, the
 * first @warm forwards alone (the warm-up), then a forward and a backward
 * in turn, then the backwards left: forward or backward, of which of the
 * @total (1F1B's micro-batch; interleaved, the virtual micro-batch).
 */
static unsigned op_of(unsigned total, unsigned warm, unsigned k, bool *fwd)
{
	if (k < warm) {
		*fwd = true;
		return k;
	}
	if (k < warm + 2 * (total - warm)) {
		*fwd = (k - warm) % 2 == 0;
		return *fwd ? warm + (k - warm) / 2 : (k - warm) / 2;
	}
	*fwd = false;
	return k - total; /* backwards total - warm .. total - 1 */
}

/*
 * The interleaved schedule's warm-up on rank @s: Megatron's
 * get_pp_rank_microbatches, (pp - s - 1) x 2 + (vpp - 1) x
 * microbatch_group_size_per_vp_stage forwards (pp, its default), all of
 * them where that is more than the m x vpp there are.
 */
static unsigned interleaved_warmup(const struct schedule *sc, unsigned s)
{
	unsigned total = sc->m * sc->vpp;
	unsigned warm = (sc->pp - s - 1) * 2 + (sc->vpp - 1) * sc->pp;

	return warm < total ? warm : total;
}

/*
 * Virtual micro-batch @v (0 .. m x vpp - 1): get_schedule_table's
 * (micro-batch, chunk), in groups of pp micro-batches (gen_llm_check
 * asks m a multiple of pp, so every group is whole): group g runs chunk
 * 0 of micro-batches g pp .. g pp + pp - 1, then chunk 1 of them, and so
 * on. A backward takes the chunks the other way (get_model_chunk_id:
 * vpp - chunk - 1 where not forward).
 */
static void interleaved_vid(const struct schedule *sc, unsigned v, bool fwd, unsigned *i,
			    unsigned *c)
{
	unsigned pp = sc->pp, group = pp * sc->vpp, r = v % group;

	*i = v / group * pp + r % pp;
	*c = fwd ? r / pp : sc->vpp - 1 - r / pp;
}

/*
 * Megatron's forward_backward_pipelining_with_interleaving: the warm-up's
 * forwards, then (steady state) forward k + warm-up and backward k in
 * turn, the forward first (forward_backward_helper_wrapper), then the
 * cool-down's backwards.
 */
void gen_llm_schedule_op(const struct schedule *sc, unsigned s, unsigned k, bool *fwd,
			 unsigned *i, unsigned *c)
{
	unsigned v;

	if (sc->vpp == 1) {
		/* 1F1B's warm-up: min(pp - 1 - s, m) forwards */
		*c = 0;
		*i = op_of(sc->m, sc->pp - 1 - s < sc->m ? sc->pp - 1 - s : sc->m, k, fwd);
		return;
	}
	v = op_of(sc->m * sc->vpp, interleaved_warmup(sc, s), k, fwd);
	interleaved_vid(sc, v, *fwd, i, c);
}

/*
 * When op (fwd, i, c) of rank @s may start as far as its inputs go (the
 * rank's own order aside): a forward after the previous virtual stage's
 * forward (rank s - 1's chunk c, or for rank 0 rank pp - 1's chunk c -
 * 1: recv_tensor_from_previous_stage), a backward after the next one's
 * backward, the last virtual stage's after its own forward. -1: not yet
 * placed; 0: nothing to wait for.
 */
static double dep_of(const struct schedule *sc, unsigned s, bool fwd, unsigned i, unsigned c)
{
	unsigned pp = sc->pp, vpp = sc->vpp, ps, pc;
	double at;

	if (fwd && !s && !c)
		return 0;
	if (fwd) {
		ps = s ? s - 1 : pp - 1;
		pc = s ? c : c - 1;
		at = sc->f[sched_at(sc, ps, pc, i)];
		return at < 0 ? -1 : at + sc->fdur[chunk_at(sc, ps, pc)];
	}
	if (s + 1 == pp && c + 1 == vpp)
		return sc->f[sched_at(sc, s, c, i)] + sc->fdur[chunk_at(sc, s, c)];
	ps = s + 1 < pp ? s + 1 : 0;
	pc = s + 1 < pp ? c : c + 1;
	at = sc->b[sched_at(sc, ps, pc, i)];
	return at < 0 ? -1 : at + sc->bdur[chunk_at(sc, ps, pc)];
}

/* Every rank's ops placed as their inputs allow, in turn; 0 or -EDEADLK. */
static int place_ops(struct schedule *sc, unsigned *next, double *free_at)
{
	unsigned pp = sc->pp, vpp = sc->vpp, ops = 2 * sc->m * vpp;
	size_t left = (size_t)pp * ops;
	bool progress = true;

	while (left && progress) {
		progress = false;
		for (unsigned s = 0; s < pp; s++)
			while (next[s] < ops) {
				bool fwd;
				unsigned i, c;
				double dep, dur, *at;

				gen_llm_schedule_op(sc, s, next[s], &fwd, &i, &c);
				dep = dep_of(sc, s, fwd, i, c);
				if (dep < 0)
					break;
				dur = fwd ? sc->fdur[chunk_at(sc, s, c)] : sc->bdur[chunk_at(sc, s, c)];
				at = fwd ? &sc->f[sched_at(sc, s, c, i)] : &sc->b[sched_at(sc, s, c, i)];

				*at = fmax(dep, free_at[s]);
				free_at[s] = *at + dur;
				sc->end = fmax(sc->end, free_at[s]);
				next[s]++;
				left--;
				progress = true;
			}
	}
	return left ? -EDEADLK : 0;
}

int gen_llm_schedule_make(unsigned pp, unsigned vpp, unsigned m, const double *fdur,
			  const double *bdur, struct schedule *sc)
{
	size_t n = (size_t)pp * vpp * m, chunks = (size_t)pp * vpp;
	unsigned *next = calloc(pp, sizeof(*next));
	double *free_at = calloc(pp, sizeof(*free_at));
	int err = -ENOMEM;

	memset(sc, 0, sizeof(*sc));
	sc->pp = pp;
	sc->vpp = vpp;
	sc->m = m;
	sc->f = malloc(n * sizeof(*sc->f));
	sc->b = malloc(n * sizeof(*sc->b));
	sc->fdur = malloc(chunks * sizeof(*sc->fdur));
	sc->bdur = malloc(chunks * sizeof(*sc->bdur));
	sc->rank_end = malloc(pp * sizeof(*sc->rank_end));
	if (next && free_at && sc->f && sc->b && sc->fdur && sc->bdur && sc->rank_end) {
		for (size_t k = 0; k < n; k++)
			sc->f[k] = sc->b[k] = -1;
		memcpy(sc->fdur, fdur, chunks * sizeof(*fdur));
		memcpy(sc->bdur, bdur, chunks * sizeof(*bdur));
		err = place_ops(sc, next, free_at); /* 1F1B cannot deadlock: a bug */
		memcpy(sc->rank_end, free_at, pp * sizeof(*free_at));
	}
	free(next);
	free(free_at);
	if (err)
		gen_llm_schedule_destroy(sc);
	return err;
}

int gen_llm_schedule_1f1b(const struct gen_llm_options *o, struct schedule *sc)
{
	size_t chunks = (size_t)o->pp * o->vpp;
	double *fdur = malloc(chunks * sizeof(*fdur)), *bdur = malloc(chunks * sizeof(*bdur));
	int err = -ENOMEM;

	if (fdur && bdur) {
		for (unsigned s = 0; s < o->pp; s++)
			for (unsigned c = 0; c < o->vpp; c++) {
				struct gen_llm_stage st;

				gen_llm_chunk(o, s, c, &st);
				fdur[s * o->vpp + c] = st.forward_us;
				bdur[s * o->vpp + c] = st.backward_us;
			}
		err = gen_llm_schedule_make(o->pp, o->vpp, o->micro_batches, fdur, bdur, sc);
	}
	free(fdur);
	free(bdur);
	return err;
}

double gen_llm_schedule_chunk_sync(const struct schedule *sc, unsigned s, unsigned c)
{
	unsigned pp = sc->pp, vpp = sc->vpp, total = sc->m * vpp, i, cc;
	/* the backward of the chunk's last micro-batch: backward step k is
	 * virtual micro-batch k, and chunk c's last is in the last group,
	 * its (vpp - 1 - c)-th run of pp, the run's last */
	unsigned k = (sc->m / pp - 1) * pp * vpp + (vpp - 1 - c) * pp + pp - 1 + s;

	if (k >= total)
		return sc->rank_end[s];
	interleaved_vid(sc, k, false, &i, &cc);
	return sc->b[sched_at(sc, s, cc, i)] + sc->bdur[chunk_at(sc, s, cc)];
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
