/* SPDX-License-Identifier: MIT */
/*
 * Timeline in the Chrome trace event format, which ui.perfetto.dev and
 * chrome://tracing open: "X" (complete) events with ts/dur in microseconds,
 * one track for compute, then per communicator and stream (records'
 * queues) one for its collectives and one per stage of each collective's
 * bottleneck connection, so that collectives running at once never share
 * a track.
 */
#include "report.h"

#include <errno.h>
#include <stdlib.h>

/* Queue q's collectives on track TRACK_QUEUE0 + q * TRACKS_PER_QUEUE, its
 * stages on the tracks after it. */
enum { TRACK_COMPUTE = 1, TRACK_QUEUE0 = 16, TRACKS_PER_QUEUE = 1 + STAGE_KIND_COUNT };

static int queue_track(unsigned queue)
{
	return TRACK_QUEUE0 + (int)(queue * TRACKS_PER_QUEUE);
}

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

/* The names of queue @c->queue's tracks: "collectives" and the stage
 * names when there is one queue, each after "comm[ stream N]" else. */
static void name_tracks(json_t *ev, const struct records *r, const struct coll_record *c)
{
	int tid = queue_track(c->queue);
	char prefix[TRACE_COMM_NAME_MAX + 32] = "", name[sizeof(prefix) + 32];

	if (r->nqueues > 1)
		snprintf(prefix, sizeof(prefix), c->stream ? "%s stream %u" : "%s",
			 records_comm_name(r, c), c->stream);
	json_array_append_new(ev, thread_name(tid, prefix[0] ? prefix : "collectives"));
	for (int k = 0; k < STAGE_KIND_COUNT; k++) {
		snprintf(name, sizeof(name), "%s%s%s", prefix, prefix[0] ? ": " : "",
			 stage_kind_name(k));
		json_array_append_new(ev, thread_name(tid + 1 + k, name));
	}
}

int report_timeline(FILE *out, const struct records *r)
{
	json_t *ev = json_array(), *doc;
	char name[96];
	bool *named;
	int err;

	if (!ev)
		return -ENOMEM;
	json_array_append_new(ev, thread_name(TRACK_COMPUTE, "compute"));
	named = calloc(r->nqueues ? r->nqueues : 1, sizeof(*named));
	if (!named) {
		json_decref(ev);
		return -ENOMEM;
	}
	for (size_t i = 0; i < r->ncoll; i++)
		if (!named[r->coll[i].queue]) {
			named[r->coll[i].queue] = true;
			name_tracks(ev, r, &r->coll[i]);
		}
	free(named);
	for (unsigned i = 0; i < r->niter; i++) {
		snprintf(name, sizeof(name), "iteration %u compute", i);
		if (r->iter[i].compute_us > 0)
			json_array_append_new(ev, event(name, "compute", TRACK_COMPUTE,
							r->iter[i].start_us,
							r->iter[i].compute_us));
	}
	for (size_t i = 0; i < r->ncoll; i++) {
		const struct coll_record *c = &r->coll[i];
		double stretch;
		json_t *e;

		snprintf(name, sizeof(name), "%s %llu B", trace_op_name(c->op),
			 (unsigned long long)c->bytes);
		e = event(name, "collective", queue_track(c->queue), c->start_us, c->time_us);
		if (e)
			json_object_set_new(e, "args",
					    json_pack("{s:s,s:f,s:s,s:f}", "path",
						      plan_path_used_name(c->path),
						      "busbw_gbps", c->busbw_gbps,
						      "comm", records_comm_name(r, c),
						      "alone_us", c->alone_us));
		json_array_append_new(ev, e);
		/* Spans are the backend's, alone; a call that shared its
		 * links ran them slower alike. */
		stretch = c->alone_us > 0 ? c->time_us / c->alone_us : 1;
		for (unsigned s = 0; s < c->nspans; s++)
			json_array_append_new(ev, event(stage_kind_name(c->spans[s].kind),
				"stage", queue_track(c->queue) + 1 + (int)c->spans[s].kind,
				c->start_us + stretch * c->spans[s].start_us,
				stretch * (c->spans[s].end_us - c->spans[s].start_us)));
	}
	doc = json_pack("{s:o,s:s}", "traceEvents", ev, "displayTimeUnit", "ns");
	if (!doc)
		return -ENOMEM;
	err = json_dumpf(doc, out, JSON_COMPACT) ? -EIO : 0;
	fputc('\n', out);
	json_decref(doc);
	return err;
}
