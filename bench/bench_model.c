/* SPDX-License-Identifier: MIT */
/*
 * bench_model: wall time, peak memory and SimGrid comms per second of the
 * model backend (symmetry fold, and the replay of every node and step where
 * affordable), next to the analytic backend, for a trace on growing
 * clusters; then one 64 MiB all-reduce over 4096 nodes
 * (tests/data/ring-400g.yaml), as NCCL's tuner chooses it. Each measurement runs in a
 * process of its own so that peak RSS is its own (the simulation child's
 * included). Prints figures, asserts nothing.
 *
 *   bench_model [TOPOLOGY [TRACE [NODES...]]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "bench_util.h"
#include "simgrid.h"

enum mode { ANALYTIC, MODEL, MODEL_REPLAY };
static const char *const mode_names[] = { "analytic", "model", "model-replay" };

/* In a worker process: one measurement, one line. */
static int measure(const struct topology *topo, const struct trace *trace,
		   unsigned nodes, enum plan_path path, enum mode m)
{
	struct model_options mo = { .replay = m == MODEL_REPLAY };
	struct model_stats st = { 0 };
	struct plan_options o;
	struct plan p;
	struct records r;
	struct diag d = { "" };
	double t0 = bench_now(), wall;
	int err;

	plan_options_default(&o);
	o.nodes = nodes;
	o.path = path;
	if (m == ANALYTIC) {
		err = backend_execute(backend_find("analytic"), topo, trace, &o, NULL,
				      &p, &r, &d);
	} else {
		err = plan_build(&p, topo, trace, &o, &d);
		if (!err) {
			err = records_init(&r, &p, "model");
			if (err)
				plan_destroy(&p);
		}
		if (!err) {
			err = model_simulate(&p, &mo, &r, &st, &d);
			if (err) {
				records_destroy(&r);
				plan_destroy(&p);
			} else if ((err = records_schedule(&r, &p))) {
				diag_set(&d, err, "schedule: out of memory");
				records_destroy(&r);
				plan_destroy(&p);
			}
		}
	}
	if (err) {
		fprintf(stderr, "bench_model: %s\n", d.msg);
		return 1;
	}
	wall = bench_now() - t0;
	printf("%8u %8u %8s %13s %10.3f %10.1f %12.0f %16.1f %9u\n", nodes, p.nranks,
	       plan_path_name(path), mode_names[m], wall, bench_peak_rss_mib(),
	       m == ANALYTIC ? 0 : st.ptasks / wall, r.iteration_time_us, st.sim_nodes);
	records_destroy(&r);
	plan_destroy(&p);
	return 0;
}

static void run_isolated(const struct topology *topo, const struct trace *trace,
			 unsigned nodes, enum plan_path path, enum mode m)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int rc = measure(topo, trace, nodes, path, m);

		fflush(stdout); /* _exit does not */
		_exit(rc);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

static int load(const char *topo_path, const char *trace_path,
		struct topology *topo, struct trace *trace)
{
	struct diag d = { "" };

	if (topology_load(topo_path, topo, &d) || trace_load(trace_path, trace, &d)) {
		fprintf(stderr, "bench_model: %s\n", d.msg);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *topo_path = argc > 1 ? argv[1] : BENCH_DEFAULT_TOPOLOGY;
	const char *trace_path = argc > 2 ? argv[2] : BENCH_DEFAULT_TRACE;
	size_t n = argc > 3 ? (size_t)(argc - 3) :
			      sizeof(bench_default_nodes) / sizeof(bench_default_nodes[0]);
	static const char ring[] =
		"{\"iteration\":0,\"op\":\"allreduce\",\"bytes\":67108864,\"dtype\":\"fp32\"}\n";
	struct topology topo;
	struct trace trace;
	struct diag d = { "" };

	if (!backend_find("model")) {
		printf("bench_model: skipped: the model backend is not in this build\n");
		return 0;
	}
	if (load(topo_path, trace_path, &topo, &trace))
		return 2;
	printf("# %s, %s (%zu collectives, %u iterations); comms = SimGrid ptasks\n",
	       topo.name, trace_path, trace.nentries, trace.niterations);
	printf("%8s %8s %8s %13s %10s %10s %12s %16s %9s\n", "nodes", "gpus", "path",
	       "backend", "wall_s", "rss_MiB", "comms_per_s", "iteration_us",
	       "sim_nodes");
	for (size_t i = 0; i < n; i++) {
		unsigned nodes = argc > 3 ? (unsigned)atoi(argv[3 + i]) : bench_default_nodes[i];

		for (int path = PLAN_PATH_STAGED; path <= PLAN_PATH_DIRECT; path++) {
			run_isolated(&topo, &trace, nodes, path, ANALYTIC);
			run_isolated(&topo, &trace, nodes, path, MODEL);
			if (nodes <= 16)
				run_isolated(&topo, &trace, nodes, path, MODEL_REPLAY);
		}
	}
	trace_destroy(&trace);

	if (topology_load(GDRLAB_SOURCE_DIR "/tests/data/ring-400g.yaml", &topo, &d) ||
	    trace_load_buffer(ring, strlen(ring), "ring.jsonl", &trace, &d)) {
		fprintf(stderr, "bench_model: %s\n", d.msg);
		return 2;
	}
	printf("# 64 MiB all-reduce, 4096 nodes x 1 GPU, 400 Gbit/s, 500 ns/hop, NCCL's "
	       "choice; a flat ring's alpha-beta: %.1f us\n",
	       2.0 * 4095 / 4096 * 64 * 1048576.0 / 50e9 * 1e6 + 2 * 4095 * 0.5);
	run_isolated(&topo, &trace, 4096, PLAN_PATH_DIRECT, ANALYTIC);
	run_isolated(&topo, &trace, 4096, PLAN_PATH_DIRECT, MODEL);
	trace_destroy(&trace);
	return 0;
}
