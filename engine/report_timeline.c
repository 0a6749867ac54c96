/* SPDX-License-Identifier: MIT */
/*
 * Timeline in the Chrome trace event format, which ui.perfetto.dev and
 * chrome://tracing open: "X" (complete) events with ts/dur in microseconds,
 * one track for compute, then per communicator and stream (records'
 * queues; a pair's own for its sends outside a batch) one for its
 * collectives and one per stage of each collective's bottleneck
 * connection, and as many such lanes as it has calls at once (a batch's
 * sends, batches of other ranks), so that collectives running at once
 * never share a track.
 */
#include "report.h"

#include <errno.h>
#include <stdlib.h>

#include "array_grow.h"

/* Lane l's collectives on track TRACK_LANE0 + l * TRACKS_PER_LANE, its
 * stages on the tracks after it; job j's compute on TRACK_COMPUTE + j
 * (jobs each keep their own iterations, which overlap), the lanes after
 * them where there are more jobs than tracks before TRACK_LANE0. */
enum { TRACK_COMPUTE = 1, TRACK_LANE0 = 16, TRACKS_PER_LANE = 1 + STAGE_KIND_COUNT };

static int lane_track(const struct records *r, size_t lane)
{
	int first = TRACK_COMPUTE + (int)r->njobs;

	return (first > TRACK_LANE0 ? first : TRACK_LANE0) + (int)(lane * TRACKS_PER_LANE);
}

/* A call's place in the order of number_lanes: by queue, then start. */
struct lane_key {
	unsigned queue;
	double start;
	size_t call;
};

static int by_queue_start(const void *a, const void *b)
{
	const struct lane_key *x = a, *y = b;

	if (x->queue != y->queue)
		return x->queue < y->queue ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->call < y->call ? -1 : 1;
}

/*
 * Each collective's lane: its queue's first, plus its @place among the
 * queue's calls running at once (a batch's sends, batches of other
 * ranks), the first place free when it starts. @lane and @place get one
 * per collective; returns the lanes, or 0 when out of memory.
 */
static size_t number_lanes(const struct records *r, size_t *lane, size_t *place)
{
	size_t n = r->ncoll, next = 0, nfree = 0, cap = 0;
	struct lane_key *order = malloc((n ? n : 1) * sizeof(*order));
	double *free_at = NULL; /* per place of the queue: when it is free */

	if (!order)
		return 0;
	for (size_t i = 0; i < n; i++)
		order[i] = (struct lane_key){ r->coll[i].queue, r->coll[i].start_us, i };
	qsort(order, n, sizeof(*order), by_queue_start);
	for (size_t k = 0; k < n; k++) {
		const struct coll_record *c = &r->coll[order[k].call];
		size_t p = 0;

		if (k && order[k].queue != order[k - 1].queue) {
			next += nfree;
			nfree = 0;
		}
		while (p < nfree && free_at[p] > c->start_us)
			p++;
		if (p == nfree && array_grow((void **)&free_at, nfree++, &cap, sizeof(*free_at))) {
			free(order);
			free(free_at);
			return 0;
		}
		free_at[p] = c->end_us;
		place[order[k].call] = p;
		lane[order[k].call] = next + p;
	}
	free(order);
	free(free_at);
	return next + nfree ? next + nfree : 1;
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

/* The names of lane @lane's tracks (@c's): "collectives" and the stage
 * names when there is one queue, each after "comm[ stream N][ sends
 * A<->B][ #K]" else, K its place among its queue's calls at once. */
static void name_tracks(json_t *ev, const struct records *r, const struct coll_record *c,
			size_t lane, size_t place)
{
	int tid = lane_track(r, lane);
	char prefix[TRACE_COMM_NAME_MAX + 96] = "", name[sizeof(prefix) + 32];
	int n = 0;

	if (r->nqueues > 1)
		n = snprintf(prefix, sizeof(prefix), c->stream ? "%s stream %u" : "%s",
			     records_comm_name(r, c), c->stream);
	if (r->nqueues > 1 && c->pair_queue)
		n += snprintf(prefix + n, sizeof(prefix) - (size_t)n, " sends %d<->%d",
			      c->src < c->dst ? c->src : c->dst, c->src < c->dst ? c->dst : c->src);
	if (place)
		snprintf(prefix + n, sizeof(prefix) - (size_t)n, "%s#%zu", n ? " " : "collectives ",
			 place + 1);
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
	size_t n = r->ncoll ? r->ncoll : 1, nlanes;
	size_t *lane = malloc(n * sizeof(*lane)), *place = malloc(n * sizeof(*place));
	char name[96];
	bool *named = NULL;
	int err;

	if (!ev || !lane || !place || !(nlanes = number_lanes(r, lane, place)) ||
	    !(named = calloc(nlanes, sizeof(*named)))) {
		json_decref(ev);
		free(lane);
		free(place);
		return -ENOMEM;
	}
	json_array_append_new(ev, thread_name(TRACK_COMPUTE, r->njobs ? "job0 compute" : "compute"));
	for (unsigned j = 1; j < r->njobs; j++) {
		snprintf(name, sizeof(name), "job%u compute", j);
		json_array_append_new(ev, thread_name(TRACK_COMPUTE + (int)j, name));
	}
	for (size_t i = 0; i < r->ncoll; i++)
		if (!named[lane[i]]) {
			named[lane[i]] = true;
			name_tracks(ev, r, &r->coll[i], lane[i], place[i]);
		}
	free(named);
	free(place);
	for (unsigned i = 0; i < r->niter; i++) {
		if (r->njobs)
			snprintf(name, sizeof(name), "job%u iteration %u compute", r->iter[i].job,
				 r->iter[i].iteration);
		else
			snprintf(name, sizeof(name), "iteration %u compute", i);
		if (r->iter[i].compute_us > 0)
			json_array_append_new(ev, event(name, "compute",
							TRACK_COMPUTE + (int)r->iter[i].job,
							r->iter[i].start_us,
							r->iter[i].compute_us));
	}
	for (size_t i = 0; i < r->ncoll; i++) {
		const struct coll_record *c = &r->coll[i];
		double stretch;
		json_t *e;

		snprintf(name, sizeof(name), "%s %llu B", trace_op_name(c->op),
			 (unsigned long long)c->bytes);
		e = event(name, "collective", lane_track(r, lane[i]), c->start_us, c->time_us);
		if (e)
			json_object_set_new(e, "args",
					    json_pack("{s:s,s:f,s:s,s:f}", "path",
						      plan_path_used_name(c->path),
						      "busbw_gbps", c->busbw_gbps,
						      "comm", records_comm_name(r, c),
						      "alone_us", c->alone_us));
		if (e && c->src >= 0) { /* a send's ranks, and its batch */
			json_t *args = json_object_get(e, "args");

			json_object_set_new(args, "src", json_integer(c->src));
			json_object_set_new(args, "dst", json_integer(c->dst));
			json_object_set_new(args, "batch",
					    c->batched ? json_integer(c->batch) : json_null());
		}
		json_array_append_new(ev, e);
		/* Spans are the backend's, alone; a call that shared its
		 * links ran them slower alike. */
		stretch = c->alone_us > 0 ? c->time_us / c->alone_us : 1;
		for (unsigned s = 0; s < c->nspans; s++)
			json_array_append_new(ev, event(stage_kind_name(c->spans[s].kind),
				"stage", lane_track(r, lane[i]) + 1 + (int)c->spans[s].kind,
				c->start_us + stretch * c->spans[s].start_us,
				stretch * (c->spans[s].end_us - c->spans[s].start_us)));
	}
	free(lane);
	/*
	 * ts and dur stay in microseconds, as the format has them;
	 * displayTimeUnit only says how chrome://tracing shows them. "ns",
	 * as `go tool trace` writes: a stage span or a small call's gap is
	 * under a microsecond, which "ms" shows as 0.000 and lays out as if
	 * nested (catapult's trace-viewer #624, #927). ui.perfetto.dev reads ts as microseconds either way (its
	 * reading of "ns" as the unit of ts was dropped: perfetto #274).
	 */
	doc = json_pack("{s:o,s:s}", "traceEvents", ev, "displayTimeUnit", "ns");
	if (!doc)
		return -ENOMEM;
	err = json_dumpf(doc, out, JSON_COMPACT) ? -EIO : 0;
	fputc('\n', out);
	json_decref(doc);
	return err;
}
