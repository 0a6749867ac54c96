/* SPDX-License-Identifier: MIT */
/* What the importers' tests share: import files by format, and check that
 * each bad file fails with its one line and keeps nothing. */
#ifndef GDRLAB_TEST_IMPORT_HELPERS_H
#define GDRLAB_TEST_IMPORT_HELPERS_H

#include <errno.h>

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
