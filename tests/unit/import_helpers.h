/* SPDX-License-Identifier: MIT */
/* What the importers' tests share: import files by format, and check that
 * each bad file fails with its one line and keeps nothing. */
#ifndef GDRLAB_TEST_IMPORT_HELPERS_H
#define GDRLAB_TEST_IMPORT_HELPERS_H

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "helpers.h"
#include "importer.h"

static struct import_notes notes; /* the last import's */

/* @files read as @format, told @o. */
static int import_told(const char *format, const char *const *files, size_t n,
		       const struct import_options *o, struct trace *t, struct diag *d)
{
	struct import_input in[8];
	int err;

	cr_assert_leq(n, 8);
	for (size_t i = 0; i < n; i++) {
		in[i].name = files[i];
		in[i].fp = fopen(files[i], "r");
		cr_assert_not_null(in[i].fp, "%s", files[i]);
	}
	err = importer_find(format)->import(in, n, o, t, &notes, d);
	for (size_t i = 0; i < n; i++)
		fclose(in[i].fp);
	return err;
}

static int import_as(const char *format, const char *const *files, size_t n,
		     struct trace *t, struct diag *d)
{
	struct import_options o = { 0 };

	return import_told(format, files, n, &o, t, d);
}

/* Op, bytes, dtype and group of every entry; iteration and ready_us too
 * when @times. */
static inline void assert_same_calls(const struct trace *got, const struct trace *want, bool times)
{
	cr_assert_eq(got->nentries, want->nentries);
	for (size_t i = 0; i < want->nentries; i++) {
		const struct trace_entry *a = &got->entries[i], *b = &want->entries[i];

		cr_expect_eq(a->op, b->op, "entry %zu", i);
		cr_expect_eq(a->bytes, b->bytes, "entry %zu", i);
		cr_expect_eq(a->dtype, b->dtype, "entry %zu", i);
		if (times) {
			cr_expect_eq(a->iteration, b->iteration, "entry %zu", i);
			cr_expect_eq(a->ready_us, b->ready_us, "entry %zu", i);
		}
		cr_assert_eq(a->ngroup, b->ngroup, "entry %zu", i);
		for (unsigned g = 0; g < a->ngroup; g++)
			cr_expect_eq(a->group[g], b->group[g], "entry %zu", i);
	}
}

/*
 * @t's entries that a profiler can say, all but the broadcasts and the
 * sends (its arguments name no root or peer), into @said: a view of @t's
 * (free said->entries only).
 */
static inline void calls_profilers_say(const struct trace *t, struct trace *said)
{
	memset(said, 0, sizeof(*said));
	said->entries = calloc(t->nentries ? t->nentries : 1, sizeof(*said->entries));
	cr_assert_not_null(said->entries);
	for (size_t i = 0; i < t->nentries; i++)
		if (t->entries[i].op != TRACE_OP_BROADCAST && t->entries[i].op != TRACE_OP_SENDRECV)
			said->entries[said->nentries++] = t->entries[i];
}

/*
 * The made-up run of tests/data/nccl-log/job-4ranks.log as the profilers
 * see it (tests/data/kineto/, the Chakra files test_import_chakra.c
 * writes), by hand: in its one step, the world all-reduce of 262144
 * floats (1 MiB) at the lowest rank's 100 us in, each pair's 1048576
 * bfloat16 (2 MiB, groups [0, 1] and [2, 3]) at 200, the world all-gather
 * of 1024 halves a rank (the whole 8 KiB) at 300; no compute.
 */
static inline void assert_the_made_up_run(const struct trace *t)
{
	const struct trace_entry *e = t->entries;

	cr_assert_eq(t->nentries, 4);
	cr_expect_eq(t->niterations, 1);
	cr_expect_eq(e[0].op, TRACE_OP_ALLREDUCE);
	cr_expect_eq(e[0].bytes, 1048576);
	cr_expect_eq(e[0].dtype, TRACE_DTYPE_FP32);
	cr_expect_eq(e[0].ngroup, 0);
	cr_expect_eq(e[0].ready_us, 100);
	cr_expect_eq(e[1].bytes, 2097152);
	cr_expect_eq(e[1].dtype, TRACE_DTYPE_BF16);
	cr_assert_eq(e[1].ngroup, 2);
	cr_expect_eq(e[1].group[0], 0);
	cr_expect_eq(e[1].group[1], 1);
	cr_expect_eq(e[1].ready_us, 200);
	cr_assert_eq(e[2].ngroup, 2);
	cr_expect_eq(e[2].group[0], 2);
	cr_expect_eq(e[2].group[1], 3);
	cr_expect_eq(e[3].op, TRACE_OP_ALL_GATHER);
	cr_expect_eq(e[3].bytes, 8192);
	cr_expect_eq(e[3].dtype, TRACE_DTYPE_FP16);
	cr_expect_eq(e[3].ngroup, 0);
	cr_expect_eq(e[3].ready_us, 300);
	for (size_t i = 0; i < t->nentries; i++)
		cr_expect_eq(e[i].compute_us, -1);
}

struct bad_case {
	const char *file, *msg; /* in @dir; a part of its one line */
};

static void expect_bad_imports(const char *format, const char *dir,
			       const struct bad_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char path[512];
		const char *files[] = { path };
		struct trace t;
		struct diag d = { "" };

		snprintf(path, sizeof(path), "%s%s", dir, cases[i].file);
		cr_expect_eq(import_as(format, files, 1, &t, &d), -EINVAL, "%s", cases[i].file);
		cr_expect_not_null(strstr(d.msg, cases[i].msg), "%s: got '%s'", cases[i].file, d.msg);
		cr_expect_null(strchr(d.msg, '\n'), "%s: one line", cases[i].file);
		cr_expect_null(t.entries, "%s: nothing kept", cases[i].file);
	}
}

#endif
