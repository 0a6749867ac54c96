/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the replay of a trace the reader takes: planned
 * and timed by the analytic backend on a small cluster (two GPUs a node
 * on one NIC, eight nodes), then scheduled (engine/records_order.c,
 * engine/schedule.c). Whatever the calls, communicators, streams and
 * batches, the replay must end (no call left waiting), with finite
 * times, each call starting at or after its bucket is ready and after
 * every call it waits for has ended, a batch's sends at once; or fail
 * with a one-line message. And the waits themselves are held to the rule
 * they come from (records_order.c), told again here: a call starts after
 * every earlier call of its queue and iteration that shares a rank with
 * it (a collective shares all), but the sends of its own batch. Seeded
 * with the shipped traces.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "topology.h"
#include "trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char topo_text[] =
	"name: fuzz-replay\n"
	"nodes: 8\n"
	"sockets:\n"
	"  - { name: cpu0, memory_bandwidth: 100 GB/s }\n"
	"switches:\n"
	"  - { name: sw0, parent: cpu0, link: { bandwidth: 32 GB/s, latency: 1 us } }\n"
	"gpus:\n"
	"  - { name: gpu0, parent: sw0, link: { bandwidth: 32 GB/s, latency: 1 us } }\n"
	"  - { name: gpu1, parent: sw0, link: { bandwidth: 32 GB/s, latency: 1 us } }\n"
	"nics:\n"
	"  - { name: nic0, parent: sw0, link: { bandwidth: 32 GB/s, latency: 1 us },\n"
	"      rate: 200 Gbit/s, efficiency: 0.9, latency: 2 us }\n"
	"gpu_fabric: { kind: pcie }\n"
	"fabric: { switch_latency: 1 us, hops: 1, oversubscription: 1 }\n"
	"staging: { chunk: 512 KiB, buffers: 4, copy_bandwidth: 16 GB/s, chunk_overhead: 2 us }\n";

/* Calls a trace may have here: the planner's cost grows with them. */
#define FUZZ_REPLAY_MAX_CALLS 64

/* The first send of @i's batch (itself outside one). */
static size_t lead_of(const struct records *r, size_t i)
{
	for (size_t l = 0; l <= i; l++)
		for (size_t j = l; j != SIZE_MAX; j = r->coll[j].next_in_batch)
			if (j == i && (l == i || !r->coll[l].joins_batch))
				return l;
	return i;
}

static bool share_a_rank(const struct coll_record *a, const struct coll_record *b)
{
	if (a->src < 0 || b->src < 0) /* a collective: every rank of its queue */
		return true;
	return a->src == b->src || a->src == b->dst || a->dst == b->src || a->dst == b->dst;
}

/* Each rank's stream in order, told without records_order's waits. */
static void check_order(const struct records *r, double eps)
{
	for (size_t j = 0; j < r->ncoll; j++)
		for (size_t i = 0; i < j; i++) {
			const struct coll_record *a = &r->coll[i], *b = &r->coll[j];

			if (a->queue != b->queue || a->iteration != b->iteration ||
			    !share_a_rank(a, b) || lead_of(r, i) == lead_of(r, j))
				continue;
			if (b->start_us < a->end_us - eps * (1 + b->start_us))
				abort();
		}
}

static void check(const struct records *r)
{
	const double eps = 1e-6;

	for (size_t i = 0; i < r->ncoll; i++) {
		const struct coll_record *c = &r->coll[i];
		double it0 = r->iter[c->iteration].start_us;

		if (!isfinite(c->start_us) || !isfinite(c->end_us) || c->end_us < c->start_us - eps)
			abort();
		if (c->start_us < it0 + c->ready_us - eps * (1 + c->ready_us))
			abort(); /* before its bucket was ready */
		for (size_t k = r->pred_first[i]; k < r->pred_first[i + 1]; k++)
			if (c->start_us < r->coll[r->preds[k]].end_us - eps * (1 + c->start_us))
				abort(); /* before a call it waits for ended */
		if (c->next_in_batch != SIZE_MAX &&
		    fabs(r->coll[c->next_in_batch].start_us - c->start_us) > eps * (1 + c->start_us))
			abort(); /* a batch's sends apart */
	}
	if (!isfinite(r->iteration_time_us))
		abort();
	check_order(r, eps);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct topology topo;
	static bool loaded;
	const struct backend_ops *b = backend_find("analytic");
	struct plan_options o;
	struct diag d = { "" };
	struct records rec;
	struct trace t;
	struct plan plan;
	int err;

	if (!b)
		abort();
	if (!loaded) {
		if (topology_load_buffer(topo_text, strlen(topo_text), "fuzz.yaml", &topo, &d))
			abort();
		loaded = true;
	}
	if (trace_load_buffer((const char *)data, size, "fuzz.jsonl", &t, &d))
		return 0;
	if (t.nentries > FUZZ_REPLAY_MAX_CALLS) {
		trace_destroy(&t);
		return 0;
	}
	plan_options_default(&o);
	d.msg[0] = '\0';
	err = backend_execute(b, &topo, &t, &o, NULL, &plan, &rec, &d);
	if (err && (!d.msg[0] || strchr(d.msg, '\n')))
		abort();
	if (!err) {
		check(&rec);
		records_destroy(&rec);
		plan_destroy(&plan);
	}
	trace_destroy(&t);
	return 0;
}
