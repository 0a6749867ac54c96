/* SPDX-License-Identifier: MIT */
/* What the tuner's tests share: NCCL's view (tune_ctx) of one 1 MiB
 * collective over every rank of a topology, and its choices. */
#ifndef GDRLAB_TEST_TUNED_HELPERS_H
#define GDRLAB_TEST_TUNED_HELPERS_H

#include "helpers.h"
#include "tuner.h"

struct tuned {
	struct topology topo;
	struct trace trace;
	struct plan plan;
	struct tune_ctx t;
	struct tune_enable e;
};

/* @op over every rank of @topo_path, its values @ov (@nov of them)
 * replaced, planned with @o (its --algo/--proto as the enable rows). */
static void tuned_init_with(struct tuned *x, const char *topo_path,
			    const struct topo_override *ov, size_t nov,
			    const struct plan_options *o, enum trace_op op)
{
	static const char line[] =
		"{\"iteration\":0,\"op\":\"allreduce\",\"bytes\":1048576,\"dtype\":\"fp32\"}\n";
	struct diag d = { "" };
	unsigned ranks[256];

	cr_assert_eq(topology_load_with(topo_path, ov, nov, &x->topo, &d), 0, "%s", d.msg);
	cr_assert_eq(trace_load_buffer(line, strlen(line), "inline.jsonl", &x->trace, &d), 0,
		     "%s", d.msg);
	cr_assert_eq(plan_build(&x->plan, &x->topo, &x->trace, o, &d), 0, "%s", d.msg);
	cr_assert_leq(x->plan.nranks, 256);
	for (unsigned i = 0; i < x->plan.nranks; i++)
		ranks[i] = i;
	tune_ctx_init(&x->t, &x->plan, op, ranks, x->plan.nranks, NULL);
	tune_enable_default(&x->e);
	cr_assert_eq(tune_enable_parse(&x->e, o->algo, o->proto, &d), 0, "%s", d.msg);
}

static void tuned_init_opts(struct tuned *x, const char *topo_path,
			    const struct plan_options *o, enum trace_op op)
{
	tuned_init_with(x, topo_path, NULL, 0, o, op);
}

/* An all-reduce's tuner on @nodes nodes of @topo_path under NCCL @version. */
static inline void tuned_release(struct tuned *x, const char *topo_path, unsigned nodes,
				 const char *version)
{
	struct plan_options o;

	plan_options_default(&o);
	o.nodes = nodes;
	plan_options_set_nccl(&o, nccl_release_find(version));
	tuned_init_opts(x, topo_path, &o, TRACE_OP_ALLREDUCE);
}

static void tuned_destroy(struct tuned *x)
{
	plan_destroy(&x->plan);
	trace_destroy(&x->trace);
}

static inline double entry(const struct tuned *x, enum algo_id a, enum proto_id p,
			   uint64_t bytes)
{
	char why[200];

	return tune_entry(&x->t, &x->e, a, p, bytes, why, sizeof(why));
}

static inline struct tune_choice choose(const struct tuned *x, uint64_t bytes)
{
	struct tune_choice c;
	struct diag d = { "" };

	cr_assert_eq(tune_choose(&x->t, &x->e, bytes, &c, &d), 0, "%s", d.msg);
	return c;
}

#endif
