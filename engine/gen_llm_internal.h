/* SPDX-License-Identifier: MIT */
/*
 * What gen_llm.c (the job: its options, stages, communicators, sends
 * and the trace), gen_llm_buckets.c (the gradient buckets),
 * gen_llm_schedule.c (the 1F1B schedule), gen_llm_layer.c (a layer's
 * tensor-parallel, expert and ZeRO 3 collectives) and gen_llm_cp.c (its
 * context-parallel ring) share.
 */
#ifndef GDRLAB_GEN_LLM_INTERNAL_H
#define GDRLAB_GEN_LLM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gen_llm.h"

/* The 1F1B schedule (Narayanan et al. 2021, figure 4; Megatron's
 * forward_backward_pipelining_without_interleaving): stage s runs
 * min(pp - 1 - s, m) forwards, then one forward and one backward in
 * turn, then the backwards left. A forward waits for the previous
 * stage's forward of that micro-batch, a backward for the next stage's
 * backward (the last stage's for its own forward). With vpp model chunks
 * a rank (Narayanan et al. 2021 section 2.2.2, figure 4 below; Megatron's
 * forward_backward_pipelining_with_interleaving) each rank runs its
 * chunks' forwards and backwards in get_schedule_table's order, the
 * virtual stages c x pp + s in a ring: rank 0's chunk c + 1 waits for
 * rank pp - 1's chunk c. Sends are taken as instant here: the schedule
 * is compute's. */
struct schedule {
	unsigned pp, m, vpp;
	double *f, *b;       /* starts: micro-batch i of chunk c on rank s at
			      * [(s vpp + c) m + i] (sched_at); < 0 unplaced */
	double *fdur, *bdur; /* per chunk: [s vpp + c] */
	double *rank_end;    /* per rank: its last backward's end */
	double end;
};

/* Chunk @c of rank @s among a schedule's chunks (fdur, bdur). */
static inline size_t chunk_at(const struct schedule *sc, unsigned s, unsigned c)
{
	return (size_t)s * sc->vpp + c;
}

static inline size_t sched_at(const struct schedule *sc, unsigned s, unsigned c, unsigned i)
{
	return chunk_at(sc, s, c) * sc->m + i;
}

/* The schedule of @vpp chunks on each of @pp ranks over @m micro-batches
 * (vpp 1: 1F1B), each chunk's forward and backward times given
 * ([s vpp + c]): 0, -ENOMEM, or -EDEADLK (a bug: 1F1B cannot deadlock). */
int gen_llm_schedule_make(unsigned pp, unsigned vpp, unsigned m, const double *fdur,
			  const double *bdur, struct schedule *sc);
/* The job's: its chunks' compute times (gen_llm_chunk). */
int gen_llm_schedule_1f1b(const struct gen_llm_options *o, struct schedule *sc);
void gen_llm_schedule_destroy(struct schedule *sc);

/* Rank @s's op @k of 2 m vpp in its order: forward or backward of
 * micro-batch *i of chunk *c. */
void gen_llm_schedule_op(const struct schedule *sc, unsigned s, unsigned k, bool *fwd,
			 unsigned *i, unsigned *c);

/* With --vpp, when chunk @c of rank @s starts its gradients' reduction,
 * all its buckets at once: Megatron-LM's align_grad_reduce (its default
 * with --overlap-grad-reduce) makes config.grad_sync_func the chunks'
 * start_grad_sync, which the interleaved schedule calls after backward
 * step k once step k - s was the chunk's last micro-batch
 * (backward_step_helper_postprocess: "launch asynchronous communication
 * at the same time across the pipeline-parallel group"); the chunks left
 * at the end of the schedule ("Launch any remaining grad reductions"),
 * at the rank's last backward's end. */
double gen_llm_schedule_chunk_sync(const struct schedule *sc, unsigned s, unsigned c);

/* One communicator of the job, and its ranks. */
struct gcomm {
	char name[48];
	unsigned n;
	unsigned *ranks; /* owned */
	long idx;        /* its index in the trace, once placed; -1 */
};

struct gev {
	struct trace_entry e; /* group left to the comm */
	size_t comm;
	unsigned tie;         /* between calls ready at once: the lower first */
	size_t seq;           /* the order made, to keep ties stable */
};

struct gen {
	const struct gen_llm_options *o;
	struct gcomm *comms;
	size_t ncomms;
	size_t off_dp, off_pp, off_ep, off_edp, off_emb, off_cp;
	struct gev *ev;
	size_t nev, cap;
	unsigned long long listed; /* ranks the events' groups list, in all */
	unsigned iteration;
	double compute_us;
	int err;
};

/*
 * A model replica's index r = c + cp d: context-parallel rank c of
 * data-parallel replica d. Every group but the data-parallel one and
 * the context-parallel ring is one replica's (its tp ranks, its
 * pipeline), and Megatron-Core's data-parallel group with context
 * parallelism is every replica's (parallel_state.py get_ranks("dp-cp")),
 * so the generator walks replicas: with cp 1, r is d.
 */
static inline unsigned replicas(const struct gen_llm_options *o)
{
	return o->dp * o->cp;
}

/* Megatron-Core's order "tp-cp-ep-dp-pp" (parallel_state.py
 * RankGenerator, generate_masked_orthogonal_rank_groups; ep 1 in the
 * dense layers' generator): t + tp (c + cp (d + dp s)) = t + tp (r +
 * dp cp s). */
static inline unsigned rank_of(const struct gen_llm_options *o, unsigned t, unsigned r, unsigned s)
{
	return t + o->tp * (r + replicas(o) * s);
}

static inline size_t tp_comm(const struct gen *g, unsigned s, unsigned r)
{
	return (size_t)s * replicas(g->o) + r;
}

/* The data-parallel group of (s, t), with context parallelism every
 * replica's: Megatron-Core's DDP and distributed optimizer reduce over
 * it (distributed_data_parallel.py intra_dp_cp_group). */
static inline size_t dp_comm(const struct gen *g, unsigned s, unsigned t)
{
	return g->off_dp + (size_t)s * g->o->tp + t;
}

/* The stages of pipeline (r, t): Megatron-LM's pipeline group. */
static inline size_t pp_comm(const struct gen *g, unsigned r, unsigned t)
{
	return g->off_pp + (size_t)r * g->o->tp + t;
}

/* The first and the last stage of pipeline (r, t), where the embedding
 * is tied over stages: Megatron-LM's embedding group
 * (parallel_state.py default_embedding_ranks). */
static inline size_t emb_comm(const struct gen *g, unsigned r, unsigned t)
{
	return g->off_emb + (size_t)r * g->o->tp + t;
}

/* Expert-parallel block b: replicas b ep .. b ep + ep - 1 (Megatron-Core's
 * expert rank generator has no cp: its ep and expert-dp ranks take the
 * dense layers' cp and dp ones, ep first). */
static inline size_t ep_comm(const struct gen *g, unsigned s, unsigned t, unsigned b)
{
	return g->off_ep + ((size_t)s * g->o->tp + t) * (replicas(g->o) / g->o->ep) + b;
}

/* The ranks holding the same experts: position j of every block. */
static inline size_t edp_comm(const struct gen *g, unsigned s, unsigned t, unsigned j)
{
	return g->off_edp + ((size_t)s * g->o->tp + t) * g->o->ep + j;
}

/* The context-parallel ring of stage s, data-parallel replica d, tensor
 * rank t: its cp ranks (parallel_state.py get_ranks("cp")). */
static inline size_t cp_comm(const struct gen *g, unsigned s, unsigned d, unsigned t)
{
	return g->off_cp + ((size_t)s * g->o->dp + d) * g->o->tp + t;
}

/* A collective of @bytes on communicator @comm, ready at @ready (src,
 * dst: a send's ranks, else -1); none for 0 bytes, and none once @g has
 * failed or holds what a trace may (g->err). The event made, for a
 * caller to mark (a send's batch or stream), or NULL where none was; it
 * moves with the next. */
struct gev *gen_llm_emit(struct gen *g, size_t comm, enum trace_op op, enum trace_dtype dt,
			 uint64_t bytes, double ready, int src, int dst);

/* @bytes of @dt sharded over communicator @comm (a reduce-scatter's, an
 * all-gather's): padded to a whole number of elements a rank, as
 * Megatron's distributed optimizer pads a bucket's end to lcm(dp, 128)
 * elements (megatron/core/optimizer/param_layout.py bucket_end_divisor),
 * so that every rank's shard is the same; ZeRO 3's modules are padded
 * alike (FSDP pads a flat parameter to its world's multiple, DeepSpeed
 * to its own alignment: 128 stands for both). */
uint64_t gen_llm_sharded(const struct gen *g, size_t comm, uint64_t bytes, enum trace_dtype dt);

/* The activations one layer's tensor-parallel collectives move: a
 * micro-batch's tokens x hidden (the whole buffer, as the trace counts
 * all-gathers and reduce-scatters too), a rank's seq / cp of them with
 * context parallelism. */
static inline uint64_t activation_bytes(const struct gen_llm_options *o)
{
	return (uint64_t)o->micro_batch_size * (o->seq / o->cp) * o->arch->hidden *
	       trace_dtype_size(o->dtype);
}

/* What gen_llm_grad_sync emits: the gradients' reductions, the
 * parameters' all-gathers after the step (ZeRO 1, 2), or both. */
enum { GEN_LLM_SYNC_REDUCE = 1, GEN_LLM_SYNC_GATHER = 2, GEN_LLM_SYNC_BOTH = 3 };

/* gen_llm_buckets.c: chunk @c of stage @s's gradients over its
 * data-parallel (and expert data-parallel) groups in Megatron-Core's
 * buckets (each chunk a DDP module of its own), produced from @b0 over
 * @dur (0: all at once); with ZeRO 1, 2 its parameters all-gathered
 * after, at @b0 + @dur. @what: GEN_LLM_SYNC_*. */
void gen_llm_grad_sync(struct gen *g, unsigned s, unsigned c, double b0, double dur, int what);

/* gen_llm_layer.c: layer @layer's collectives, at @at (its start) over
 * @dur, forward or @backward */
void gen_llm_tp_layer(struct gen *g, unsigned s, unsigned layer, double at, double dur,
		      bool backward);
void gen_llm_moe_layer(struct gen *g, unsigned s, unsigned layer, double at, double dur,
		       bool backward);

/* gen_llm_cp.c: the context-parallel ring of the @k-th layer of stage
 * @s in micro-batch @i, the layer at @at over @dur, forward or @backward */
void gen_llm_cp_layer(struct gen *g, unsigned s, unsigned i, unsigned k, double at, double dur,
		      bool backward);

/*
 * ZeRO 3 gathers a stage's parameters a module at a time, each before it
 * runs, as PyTorch's FSDP and DeepSpeed's stage 3 fetch them: the
 * embedding on the first stage, each layer, the output head with the
 * final norm on the last; a rank's tp share of each, every layer's
 * experts with it (ZeRO 3 with expert parallelism is refused:
 * gen_llm_check). Their gradients are reduce-scattered as each module's
 * backward ends. Module @layer of the model, or Z3_EMBEDDING, Z3_HEAD.
 */
enum { Z3_EMBEDDING = -1, Z3_HEAD = -2, Z3_NONE = -3 };

/* @op (an all-gather of the parameters or a reduce-scatter of their
 * gradients) of @module on stage @s's dp groups, at @at. */
void gen_llm_zero3_op(struct gen *g, unsigned s, int module, enum trace_op op, double at);

#endif
