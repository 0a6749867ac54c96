/* SPDX-License-Identifier: MIT */
/*
 * Timeline in the Chrome trace event format, which ui.perfetto.dev and
 * chrome://tracing open: "X" (complete) events with ts/dur in microseconds,
 * one track for compute, one for collectives, and one per stage of the
 * slowest transfer of each collective's first step.
 */
#include "report.h"

#include <errno.h>

enum { TRACK_COMPUTE = 1, TRACK_COLL = 2, TRACK_STAGE0 = 10 };

static json_t *event(const char *name, const char *cat, int tid, double ts,
		     double dur)
{
	return json_pack("{s:s,s:s,s:s,s:i,s:i,s:f,s:f}", "name", name, "cat", cat,
			 "ph", "X", "pid", 1, "tid", tid, "ts", ts, "dur", dur);
}

static json_t *thread_name(int tid, const char *name)
{
	return json_pack("{s:s,s:s,s:i,s:i,s:{s:s}}", "name", "thread_name", "ph",
			 "M", "pid", 1, "tid", tid, "args", "name", name);
}

int report_timeline(FILE *out, const struct records *r)
{
	json_t *ev = json_array(), *doc;
	char name[96];
	int err;

	if (!ev)
		return -ENOMEM;
	json_array_append_new(ev, thread_name(TRACK_COMPUTE, "compute"));
	json_array_append_new(ev, thread_name(TRACK_COLL, "collectives"));
	for (int k = 0; k < STAGE_KIND_COUNT; k++)
		json_array_append_new(ev, thread_name(TRACK_STAGE0 + k,
						      stage_kind_name(k)));
	for (unsigned i = 0; i < r->niter; i++) {
		snprintf(name, sizeof(name), "iteration %u compute", i);
		if (r->iter[i].compute_us > 0)
			json_array_append_new(ev, event(name, "compute", TRACK_COMPUTE,
							r->iter[i].start_us,
							r->iter[i].compute_us));
	}
	for (size_t i = 0; i < r->ncoll; i++) {
		const struct coll_record *c = &r->coll[i];
		json_t *e;

		snprintf(name, sizeof(name), "%s %llu B", trace_op_name(c->op),
			 (unsigned long long)c->bytes);
		e = event(name, "collective", TRACK_COLL, c->start_us, c->time_us);
		if (e)
			json_object_set_new(e, "args",
					    json_pack("{s:s,s:f}", "path",
						      plan_path_used_name(c->path),
						      "busbw_gbps", c->busbw_gbps));
		json_array_append_new(ev, e);
		for (unsigned s = 0; s < c->nspans; s++)
			json_array_append_new(ev, event(stage_kind_name(c->spans[s].kind),
				"stage", TRACK_STAGE0 + c->spans[s].kind,
				c->start_us + c->spans[s].start_us,
				c->spans[s].end_us - c->spans[s].start_us));
	}
	doc = json_pack("{s:o,s:s}", "traceEvents", ev, "displayTimeUnit", "ns");
	if (!doc)
		return -ENOMEM;
	err = json_dumpf(doc, out, JSON_COMPACT) ? -EIO : 0;
	fputc('\n', out);
	json_decref(doc);
	return err;
}
