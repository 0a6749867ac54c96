/* SPDX-License-Identifier: MIT */
/* What every C benchmark here measures with, and its default workload. */
#ifndef GDRLAB_BENCH_UTIL_H
#define GDRLAB_BENCH_UTIL_H

#include <sys/resource.h>
#include <time.h>

#define BENCH_DEFAULT_TOPOLOGY GDRLAB_SOURCE_DIR "/configs/a100-pcie4-200g.yaml"
#define BENCH_DEFAULT_TRACE GDRLAB_SOURCE_DIR "/traces/llama2-7b-ddp.jsonl"

static const unsigned bench_default_nodes[] = { 8, 16, 64, 256, 1024 };

static inline double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Peak RSS of this process and of its largest child, in MiB. */
static inline double bench_peak_rss_mib(void)
{
	struct rusage self, kids;

	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &kids);
	return (self.ru_maxrss > kids.ru_maxrss ? self.ru_maxrss : kids.ru_maxrss) /
	       1024.0;
}

#endif
