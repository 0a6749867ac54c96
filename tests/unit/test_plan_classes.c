/* SPDX-License-Identifier: MIT */
/*
 * Patterns that are one another moved along the nodes (engine/plan_classes.c)
 * share one simulation in the model backend: the classes must join the
 * groups that are alike and only those, and a class's members must take
 * the time each takes alone, simulated by itself.
 */
#include <math.h>

#include "helpers.h"

/* The class of each of @t's collectives' patterns, on @topo over @nodes. */
static void classes(const char *topo, unsigned nodes, const char *jsonl, size_t *out, size_t n)
{
	struct plan_options o;
	size_t *cls;
	struct run r;

	plan_options_default(&o);
	o.nodes = nodes;
	run_trace(&r, "analytic", topo, jsonl, &o);
	cr_assert_eq(r.plan.ncollectives, n);
	cls = malloc(r.plan.npatterns * sizeof(*cls));
	cr_assert_not_null(cls);
	cr_assert_eq(plan_pattern_classes(&r.plan, cls), 0);
	for (size_t i = 0; i < n; i++)
		out[i] = cls[r.plan.collectives[i].pattern];
	free(cls);
	run_destroy(&r);
}

#define AR(group) "{\"iteration\":0,\"op\":\"allreduce\",\"bytes\":16777216,\"group\":" group "}\n"

/* Two nodes' tensor-parallel groups are one class; the data-parallel
 * groups of GPU 0 and GPU 5, each with a NIC of its own alike, too; a
 * group twice as far apart, or of another op, is not. */
Test(plan_classes, groups_moved_along_the_nodes_are_one_class)
{
	size_t c[6];

	classes(CONFIG("h100-pcie5-400g.yaml"), 4,
		AR("[0,1,2,3,4,5,6,7]") AR("[16,17,18,19,20,21,22,23]") AR("[0,8]") AR("[5,13]")
		AR("[0,16]") "{\"iteration\":0,\"op\":\"all_gather\",\"bytes\":16777216,\"group\":[1,9]}\n",
		c, 6);
	cr_expect_eq(c[0], c[1], "tp groups of node 0 and node 2");
	cr_expect_eq(c[2], c[3], "dp groups of GPU 0 and GPU 5");
	cr_expect_neq(c[2], c[4], "nodes 1 apart and 2 apart");
	cr_expect_neq(c[0], c[2]);
	cr_expect_neq(c[5], c[2], "another op");
}

/* GPU 0 reaches the NIC directly (PIX), GPU 1 through the root complex
 * (staged): their cross-node groups are not alike. */
Test(plan_classes, groups_on_unlike_gpus_are_not)
{
	size_t c[3];

	classes(DATA("mixed-gdr.yaml"), 4, AR("[0,2]") AR("[1,3]") AR("[4,6]"), c, 3);
	cr_expect_neq(c[0], c[1]);
	cr_expect_eq(c[0], c[2]);
}

/* The model backend simulates a class once: each member's time equals its
 * time simulated by itself (to SimGrid's rounding: its clock runs on from
 * one job to the next). */
Test(plan_classes, a_class_takes_its_members_times_alone)
{
	const struct backend_ops *m = backend_find("model");
	static const char *const lines[] = { AR("[0,8]"), AR("[5,13]"), AR("[16,17,18,19,20,21,22,23]") };
	char why[256] = "", all[1024] = "";
	struct plan_options o;
	struct run r;
	double alone[3];

	if (!m || backend_probe(m, why, sizeof(why)))
		cr_skip_test("model backend: %s", m ? why : "not built");
	plan_options_default(&o);
	o.nodes = 4;
	for (int i = 0; i < 3; i++) {
		run_trace(&r, "model", CONFIG("h100-pcie5-400g.yaml"), lines[i], &o);
		alone[i] = r.rec.coll[0].alone_us;
		run_destroy(&r);
		strcat(all, lines[i]);
	}
	run_trace(&r, "model", CONFIG("h100-pcie5-400g.yaml"), all, &o);
	for (int i = 0; i < 3; i++)
		assert_rel(r.rec.coll[i].alone_us, alone[i], 1e-12); /* SimGrid's clock runs on between jobs */
	run_destroy(&r);
}
