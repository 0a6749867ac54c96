/* SPDX-License-Identifier: MIT */
/* Shared by the engine tests: run a trace given inline through a backend. */
#ifndef GDRLAB_TEST_HELPERS_H
#define GDRLAB_TEST_HELPERS_H

#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "backend.h"

/*
 * LeakSanitizer's report does not fail a Criterion test (the forked child
 * reports after its result; see ../shared/notes/dependencies.md), so tests
 * that must be leak-free ask for a check themselves.
 */
#ifndef __has_feature
#define __has_feature(x) 0
#endif
#if defined(__SANITIZE_ADDRESS__) || __has_feature(address_sanitizer)
#include <sanitizer/lsan_interface.h>
#define assert_no_leaks() \
	cr_assert_eq(__lsan_do_recoverable_leak_check(), 0, "memory leaked")
#else
#define assert_no_leaks() ((void)0)
#endif

#define DATA(name) GDRLAB_SOURCE_DIR "/tests/data/" name
#define CONFIG(name) GDRLAB_SOURCE_DIR "/configs/" name

struct run {
	struct topology topo;
	struct trace trace;
	struct plan plan;
	struct records rec;
};

/* Parse @jsonl and execute it on @backend over r->topo, loaded (and
 * changed, where a test does) already. */
static inline void run_loaded(struct run *r, const char *backend, const char *jsonl,
			      const struct plan_options *opts)
{
	struct diag d = { "" };
	const struct backend_ops *b = backend_find(backend);
	int err;

	cr_assert_not_null(b, "backend %s", backend);
	err = trace_load_buffer(jsonl, strlen(jsonl), "inline.jsonl", &r->trace, &d);
	cr_assert_eq(err, 0, "%s", d.msg);
	err = backend_execute(b, &r->topo, &r->trace, opts, NULL, &r->plan,
			      &r->rec, &d);
	cr_assert_eq(err, 0, "%s", d.msg);
}

/* Load @topo_path, parse @jsonl, and execute it on @backend. */
static inline void run_trace(struct run *r, const char *backend,
			     const char *topo_path, const char *jsonl,
			     const struct plan_options *opts)
{
	struct diag d = { "" };

	cr_assert_eq(topology_load(topo_path, &r->topo, &d), 0, "%s", d.msg);
	run_loaded(r, backend, jsonl, opts);
}

static inline void run_destroy(struct run *r)
{
	records_destroy(&r->rec);
	plan_destroy(&r->plan);
	trace_destroy(&r->trace);
	assert_no_leaks();
}

/* |got - want| <= rel * |want| */
#define assert_rel(got, want, rel)                                            \
	cr_assert(fabs((double)(got) - (double)(want)) <= (rel) * fabs((double)(want)), \
		                  \
		  "%s = %.6f, expected %.6f (within %g)", #got, (double)(got), \
		  (double)(want), (double)(rel))

#endif
