/* SPDX-License-Identifier: MIT */
/* Shared by the probe tests: a captured tree read, and the topology file
 * `probe --emit-topology` writes from a probe, read back. */
#ifndef GDRLAB_TEST_PROBE_HELPERS_H
#define GDRLAB_TEST_PROBE_HELPERS_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

#include "probe_report.h"
#include "topology.h"

#define SYSFS(name) GDRLAB_SOURCE_DIR "/tests/data/sysfs/" name

/* The captured tree @dir, its drivers not asked. */
static inline struct probe *probe_load(const char *dir)
{
	struct probe_options opt = { dir, false };
	struct diag d = { "" };
	struct probe *p;

	cr_assert_eq(probe_run(&opt, &p, &d), 0, "%s", d.msg);
	return p;
}

/* @p's emitted topology, loaded; its text in *@text (both to be freed). */
static inline struct topology *probe_emitted(const struct probe *p, char **text)
{
	struct topology *t = malloc(sizeof(*t));
	struct diag d = { "" };
	size_t len = 0;
	FILE *fp = open_memstream(text, &len);

	cr_assert_not_null(t);
	cr_assert_not_null(fp);
	cr_assert_eq(probe_emit_topology(p, fp, &d), 0, "%s", d.msg);
	fclose(fp);
	cr_assert_eq(topology_load_buffer(*text, len, "emitted.yaml", t, &d), 0, "%s\n%s",
		     d.msg, *text);
	return t;
}

#endif
