/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for what comes after the topology reader: a topology
 * that loads is planned and timed by the analytic backend (NCCL's tuner,
 * the channel search, every algorithm's build, the routes, the closed
 * form) on a short trace of every collective, on each data path. A file
 * the reader accepts must give times or a one-line message, never a
 * crash, a leak, a hang or a time that is not a number. Seed it with
 * configs/ and the test topologies (tests/data).
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every op, small and large, so that LL, LL128 and Simple, trees, rings,
 * NVLS and PAT are all chosen somewhere. */
static const char trace_text[] =
	"{\"iteration\":0,\"op\":\"allreduce\",\"bytes\":4096,\"dtype\":\"fp32\"}\n"
	"{\"iteration\":0,\"op\":\"allreduce\",\"bytes\":67108864,\"dtype\":\"bf16\"}\n"
	"{\"iteration\":0,\"op\":\"broadcast\",\"bytes\":1048576,\"dtype\":\"fp32\",\"root\":0}\n"
	"{\"iteration\":0,\"op\":\"reduce_scatter\",\"bytes\":8388608,\"dtype\":\"fp16\"}\n"
	"{\"iteration\":0,\"op\":\"all_gather\",\"bytes\":8388608,\"dtype\":\"fp16\"}\n"
	"{\"iteration\":0,\"op\":\"alltoall\",\"bytes\":4194304,\"dtype\":\"fp32\"}\n"
	"{\"iteration\":0,\"op\":\"sendrecv\",\"bytes\":2097152,\"dtype\":\"int8\","
	"\"src\":0,\"dst\":1}\n";

static const enum plan_path paths[] = {
	PLAN_PATH_AUTO, PLAN_PATH_DIRECT, PLAN_PATH_STAGED, PLAN_PATH_STAGED_MEMCPY,
};

/* Failure says why on one line; success gives finite, non-negative times. */
static void check(int err, const struct diag *d, const struct records *rec)
{
	if (err) {
		if (!d->msg[0] || strchr(d->msg, '\n'))
			abort();
		return;
	}
	for (size_t i = 0; i < rec->ncoll; i++)
		if (!isfinite(rec->coll[i].time_us) || rec->coll[i].time_us < 0)
			abort();
	if (!isfinite(rec->iteration_time_us))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct trace trace;
	static bool loaded;
	const struct backend_ops *b = backend_find("analytic");
	struct topology topo;
	struct diag d = { "" };

	if (!b)
		abort();
	if (!loaded) {
		if (trace_load_buffer(trace_text, strlen(trace_text), "fuzz.jsonl", &trace, &d))
			abort();
		loaded = true;
	}
	if (topology_load_buffer((const char *)data, size, "fuzz", &topo, &d))
		return 0;
	for (size_t k = 0; k < sizeof(paths) / sizeof(paths[0]); k++) {
		struct plan_options o;
		struct plan plan;
		struct records rec;
		int err;

		plan_options_default(&o);
		o.path = paths[k];
		/* A few nodes: the planner's cost grows with them, and what a
		 * large count reaches (folds, classes) the unit tests cover. */
		o.nodes = topo.nodes < 4 ? 0 : 4;
		d.msg[0] = '\0';
		err = backend_execute(b, &topo, &trace, &o, NULL, &plan, &rec, &d);
		check(err, &d, &rec);
		if (!err) {
			records_destroy(&rec);
			plan_destroy(&plan);
		}
	}
	return 0;
}
