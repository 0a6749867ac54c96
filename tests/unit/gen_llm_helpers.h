/* SPDX-License-Identifier: MIT */
/*
 * What the gen llm tests (test_gen_llm.c, test_gen_llm_cp.c,
 * test_gen_llm_vpp.c) share: a model's options at 1024 tokens, its trace,
 * the bytes and calls of an op on the communicators a name starts, and
 * the trace replayed beside its groups.
 */
#ifndef GDRLAB_TEST_GEN_LLM_HELPERS_H
#define GDRLAB_TEST_GEN_LLM_HELPERS_H

#include <string.h>

#include "gen_llm.h"
#include "helpers.h"

/* A gradient's bytes: fp32, Megatron-LM's default reduction of a bf16
 * model's gradients (megatron/training/arguments.py, "accumulate and
 * all-reduce gradients in fp32 for bfloat16 data type"); bf16 until
 * 2026-12-06, half of it. */
#define GRAD 4

static inline struct gen_llm_options base(const char *model)
{
	struct gen_llm_options o;

	gen_llm_options_default(&o);
	o.arch = llm_arch_find(model);
	o.seq = 1024;
	return o;
}

static inline void make(const struct gen_llm_options *o, struct trace *t)
{
	struct diag d = { "" };

	cr_assert_eq(gen_llm_trace(o, t, &d), 0, "%s", d.msg);
}

/* Whether @e is on a communicator whose name starts with @prefix. */
static inline bool on(const struct trace *t, const struct trace_entry *e, const char *prefix)
{
	return !strncmp(trace_entry_comm(t, e), prefix, strlen(prefix));
}

/* Bytes of @op on communicators whose name starts with @prefix. */
static inline uint64_t bytes_of(const struct trace *t, const char *prefix, enum trace_op op)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < t->nentries; i++)
		if (t->entries[i].op == op && on(t, &t->entries[i], prefix))
			sum += t->entries[i].bytes;
	return sum;
}

/* Calls of @op on communicators whose name starts with @prefix. */
static inline size_t calls_of(const struct trace *t, const char *prefix, enum trace_op op)
{
	size_t n = 0;

	for (size_t i = 0; i < t->nentries; i++)
		n += t->entries[i].op == op && on(t, &t->entries[i], prefix);
	return n;
}

/*
 * @o's trace replayed by the analytic backend on @nodes nodes of
 * h100-pcie5-400g, its communicators at once: the records, which the
 * caller destroys, and the trace's communicators in *@ncomms.
 */
static inline void replay(const struct gen_llm_options *o, unsigned nodes, struct records *r,
			  size_t *ncomms)
{
	struct diag d = { "" };
	struct plan_options po;
	struct topology topo;
	struct trace t;
	struct plan p;

	make(o, &t);
	cr_assert_eq(topology_load(CONFIG("h100-pcie5-400g.yaml"), &topo, &d), 0, "%s", d.msg);
	plan_options_default(&po);
	po.nodes = nodes;
	cr_assert_eq(backend_execute(backend_find("analytic"), &topo, &t, &po, NULL, &p, r, &d), 0,
		     "%s", d.msg);
	*ncomms = t.ncomms;
	plan_destroy(&p);
	trace_destroy(&t);
}

#endif
