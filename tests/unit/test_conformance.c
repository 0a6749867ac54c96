/* SPDX-License-Identifier: MIT */
/*
 * One conformance suite, run over every backend with a simulated clock
 * (UCX's UCT_INSTANTIATE_TEST_CASE, in Criterion): the ground truths worked
 * out by hand in test_analytic.c (tests/data/round-numbers.yaml and
 * two-gpus-one-nic.yaml; the derivations are there) must hold within 1% on
 * each. A backend left out of this build, or without a simulated clock, is
 * reported skipped with its reason, never passed.
 */
#include <math.h>
#include <stdio.h>

#include "helpers.h"

#define MiB 1048576.0
#define TOL 0.01

/* NULL with the reason printed (Criterion shows skips only with
 * --verbose) when @name cannot be tested here. */
static const struct backend_ops *conformance_backend(const char *name)
{
	const struct backend_ops *b = backend_find(name);
	char why[256] = "";

	if (!b) {
		for (size_t i = 0; gdrlab_backends_absent[i].name; i++)
			if (!strcmp(gdrlab_backends_absent[i].name, name))
				snprintf(why, sizeof(why), "%s", gdrlab_backends_absent[i].why);
		printf("conformance: %s skipped: not in this build: %s\n", name, why);
		return NULL;
	}
	if (!(b->caps & BACKEND_CAP_SIM_CLOCK)) {
		printf("conformance: %s skipped: no simulated clock\n", name);
		return NULL;
	}
	if (backend_probe(b, why, sizeof(why))) {
		printf("conformance: %s skipped: %s\n", name, why);
		return NULL;
	}
	return b;
}

#define NEED_BACKEND(name)                                                    \
	do {                                                                  \
		if (!conformance_backend(name))                               \
			cr_skip_test("backend %s not testable here", name);   \
	} while (0)

static struct plan_options opts_path(enum plan_path path, unsigned nodes)
{
	struct plan_options o;

	plan_options_default(&o);
	o.path = path;
	o.nodes = nodes;
	return o;
}

static const char sendrecv_64mib[] =
	"{\"iteration\":0,\"op\":\"sendrecv\",\"bytes\":67108864,"
	"\"dtype\":\"fp32\",\"src\":0,\"dst\":1}\n";

static void uncontended_direct(const char *backend)
{
	struct plan_options o = opts_path(PLAN_PATH_DIRECT, 0);
	struct run r;

	NEED_BACKEND(backend);
	run_trace(&r, backend, DATA("round-numbers.yaml"), sendrecv_64mib, &o);
	assert_rel(r.rec.coll[0].time_us, 9 + 64 * MiB / 10e9 * 1e6, TOL);
	run_destroy(&r);
}

static void uncontended_staged(const char *backend)
{
	struct plan_options o = opts_path(PLAN_PATH_STAGED, 0);
	struct run r;
	double fill_us = 2 * (2 + MiB / 16e9 * 1e6);

	NEED_BACKEND(backend);
	run_trace(&r, backend, DATA("round-numbers.yaml"), sendrecv_64mib, &o);
	assert_rel(r.rec.coll[0].time_us, 13 + 64 * MiB / 10e9 * 1e6 + fill_us, TOL);
	run_destroy(&r);
}

/* 2(n-1)/n * S/B + 2(n-1) * alpha */
static void ring_allreduce(const char *backend)
{
	struct plan_options o = opts_path(PLAN_PATH_DIRECT, 4);
	struct run r;
	unsigned n = 4;
	double S = 32 * MiB;

	NEED_BACKEND(backend);
	run_trace(&r, backend, DATA("round-numbers.yaml"),
		  "{\"iteration\":0,\"op\":\"allreduce\",\"bytes\":33554432,"
		  "\"dtype\":\"fp32\"}\n", &o);
	assert_rel(r.rec.coll[0].time_us,
		   2.0 * (n - 1) / n * S / 10e9 * 1e6 + 2 * (n - 1) * 9.0, TOL);
	run_destroy(&r);
}

/* Alltoall, 2 nodes x 2 GPUs: the middle step's two flows share a 10 GB/s
 * uplink, 5 GB/s each. */
static void two_flows_get_half(const char *backend)
{
	struct plan_options o = opts_path(PLAN_PATH_DIRECT, 0);
	struct run r;
	double q = 40e6 / 4;

	NEED_BACKEND(backend);
	o.gdr_level = TOPO_PATH_PHB;
	run_trace(&r, backend, DATA("two-gpus-one-nic.yaml"),
		  "{\"iteration\":0,\"op\":\"alltoall\",\"bytes\":40000000,\"dtype\":\"int8\"}\n",
		  &o);
	assert_rel(r.rec.coll[0].time_us,
		   3 * 11 + (q / 10e9 + q / 5e9 + q / 10e9) * 1e6, TOL);
	run_destroy(&r);
}

#define CONFORMANCE(backend)                                                  \
	Test(conformance_##backend, uncontended_direct)                       \
	{                                                                     \
		uncontended_direct(#backend);                                 \
	}                                                                     \
	Test(conformance_##backend, uncontended_staged_pipelined)            \
	{                                                                     \
		uncontended_staged(#backend);                                 \
	}                                                                     \
	Test(conformance_##backend, ring_allreduce_alpha_beta)                \
	{                                                                     \
		ring_allreduce(#backend);                                     \
	}                                                                     \
	Test(conformance_##backend, two_flows_on_one_link_get_half)           \
	{                                                                     \
		two_flows_get_half(#backend);                                 \
	}

/* Every backend with a simulated clock gdrlab knows, built or not. */
CONFORMANCE(analytic)
CONFORMANCE(model)
