/* SPDX-License-Identifier: MIT */
/*
 * bench_analytic: wall time and peak memory of the analytic backend for one
 * iteration of a trace on growing clusters. Prints figures, asserts nothing.
 *
 *   bench_analytic [TOPOLOGY [TRACE [NODES...]]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "bench_util.h"

int main(int argc, char **argv)
{
	const char *topo_path = argc > 1 ? argv[1] : BENCH_DEFAULT_TOPOLOGY;
	const char *trace_path = argc > 2 ? argv[2] : BENCH_DEFAULT_TRACE;
	const struct backend_ops *b = backend_find("analytic");
	struct topology topo;
	struct trace trace;
	struct diag d = { "" };
	size_t n = argc > 3 ? (size_t)(argc - 3) : sizeof(bench_default_nodes) / sizeof(bench_default_nodes[0]);

	if (topology_load(topo_path, &topo, &d) || trace_load(trace_path, &trace, &d)) {
		fprintf(stderr, "bench_analytic: %s\n", d.msg);
		return 2;
	}
	printf("# analytic backend: %s, %s (%zu collectives, %u iterations)\n",
	       topo.name, trace_path, trace.nentries, trace.niterations);
	printf("%8s %8s %10s %12s %14s %12s\n", "nodes", "gpus", "path", "wall_s",
	       "peak_rss_MiB", "iter_us");
	for (size_t i = 0; i < n; i++) {
		unsigned nodes = argc > 3 ? (unsigned)atoi(argv[3 + i]) : bench_default_nodes[i];

		for (int path = PLAN_PATH_STAGED; path <= PLAN_PATH_DIRECT; path++) {
			struct plan_options o;
			struct plan p;
			struct records r;
			double t0 = bench_now();

			plan_options_default(&o);
			o.nodes = nodes;
			o.path = path;
			if (backend_execute(b, &topo, &trace, &o, NULL, &p, &r, &d)) {
				fprintf(stderr, "bench_analytic: %s\n", d.msg);
				trace_destroy(&trace);
				return 1;
			}
			printf("%8u %8u %10s %12.3f %14.1f %12.1f\n", nodes,
			       nodes * topo.ngpus, plan_path_name(path), bench_now() - t0,
			       bench_peak_rss_mib(), r.iteration_time_us);
			fflush(stdout);
			records_destroy(&r);
			plan_destroy(&p);
		}
	}
	trace_destroy(&trace);
	return 0;
}
