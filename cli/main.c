/* SPDX-License-Identifier: MIT */
/*
 * gdrlab: what the data path of a gradient exchange costs, host-staged or
 * GPUDirect RDMA, replayed through one engine and interchangeable backends.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "cli.h"
#include "cmd_gen.h"
#include "cmd_sweep.h"
#include "output_file.h"

#ifndef GDRLAB_VERSION
#define GDRLAB_VERSION "unknown"
#endif

static const char usage[] =
	"usage: gdrlab [COMMAND] [options]\n"
	"\n"
	"What does the data path of a gradient exchange cost, host-staged or\n"
	"GPUDirect RDMA? gdrlab replays a trace of collectives on a cluster\n"
	"description through a backend and reports the time of each.\n"
	"\n"
	"With no command, runs the shipped default scenario (ResNet-50 DDP on\n"
	"two 8-GPU A100 servers) and prints its comparison of the direct, staged\n"
	"and staged-memcpy paths.\n"
	"\n"
	"commands:\n"
	"  run        replay a trace on one path        (gdrlab run --help)\n"
	"  compare    replay it direct, staged and staged-memcpy, with direct's speedups\n"
	"  gen        make traces (gen ddp: PyTorch DDP buckets; gen llm: tp/cp/pp/dp/ep jobs)\n"
	"  import     a real job's trace into gdrlab's (nccl-log, kineto, chakra)\n"
	"  backends   list the backends and whether each can run here\n"
	"  probe      this machine's GPUs, RDMA NICs, paths and GPUDirect verdicts\n"
	"  sweep      run a file of points, or a plan of axes and questions, in parallel\n"
	"  plot       a chart of a sweep plan's answer, a run, or busbw and\n"
	"             validate's curves (gnuplot: SVG or PNG)\n"
	"  report     one self-contained HTML page of a run, compare or sweep\n"
	"  calibrate  measure this host (--backend emu or real), write its topology file\n"
	"  validate   measured vs predicted per collective: is this bandwidth normal?\n"
	"             (--nccl-tests FILE: a real nccl-tests output against the model)\n"
	"  busbw      the nccl-tests table (all_reduce_perf, ...) predicted for a topology\n"
	"\n"
	"options:\n"
	"  -h, --help     this help\n"
	"  --version      print the version\n"
	"\n"
	"Exit status: 0 ok, 1 runtime failure, 2 bad input or usage.\n"
	"Shipped data is read from %s (set GDRLAB_DATA_DIR to move it).\n";

const char *cli_data_dir(void)
{
	const char *env = getenv("GDRLAB_DATA_DIR");

	return env && *env ? env : GDRLAB_DATA_DIR;
}

int cmd_backends(int argc, char **argv)
{
	if (argc > 1) {
		if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
			printf("usage: gdrlab backends\n\nList the backends, their "
			       "capabilities, and whether each can run here.\n");
			return 0;
		}
		fprintf(stderr, "gdrlab backends: unexpected argument '%s'\n", argv[1]);
		return EXIT_USAGE;
	}
	for (size_t i = 0; gdrlab_backends[i]; i++) {
		const struct backend_ops *b = gdrlab_backends[i];
		char why[256] = "";
		int err = backend_probe(b, why, sizeof(why));

		printf("%-9s %-9s %s%s%s\n", b->name, err ? "skipped" : "available",
		       b->description, err ? ": " : "", err ? why : "");
	}
	for (size_t i = 0; gdrlab_backends_absent[i].name; i++)
		printf("%-9s %-9s %s\n", gdrlab_backends_absent[i].name,
		       "absent", gdrlab_backends_absent[i].why);
	return 0;
}

/*
 * The shipped default scenario (scenarios/default), run from the data
 * directory so that its output matches scenarios/default/expected.txt.
 */
int cmd_default(void)
{
	char *args[] = { "compare", "--topology", "configs/a100-pcie4-200g.yaml",
			 "--trace", "traces/resnet50-ddp.jsonl", NULL };
	const char *dir = cli_data_dir();

	if (chdir(dir)) {
		fprintf(stderr, "gdrlab: cannot enter the data directory %s: %s "
			"(set GDRLAB_DATA_DIR)\n", dir, strerror(errno));
		return EXIT_RUNTIME;
	}
	return cmd_compare(5, args);
}

static int dispatch(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;

	if (!cmd)
		return cmd_default();
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
		printf(usage, cli_data_dir());
		return 0;
	}
	if (!strcmp(cmd, "--version")) {
		printf("gdrlab %s\n", GDRLAB_VERSION);
		return 0;
	}
	if (!strcmp(cmd, "run"))
		return cmd_run(argc - 1, argv + 1);
	if (!strcmp(cmd, "compare"))
		return cmd_compare(argc - 1, argv + 1);
	if (!strcmp(cmd, "gen"))
		return cmd_gen(argc - 1, argv + 1);
	if (!strcmp(cmd, "backends"))
		return cmd_backends(argc - 1, argv + 1);
	if (!strcmp(cmd, "probe"))
		return cmd_probe(argc - 1, argv + 1);
	if (!strcmp(cmd, "sweep"))
		return cmd_sweep(argc - 1, argv + 1);
	if (!strcmp(cmd, "plot"))
		return cmd_plot(argc - 1, argv + 1);
	if (!strcmp(cmd, "report"))
		return cmd_report(argc - 1, argv + 1);
	if (!strcmp(cmd, "calibrate"))
		return cmd_calibrate(argc - 1, argv + 1);
	if (!strcmp(cmd, "validate"))
		return cmd_validate(argc - 1, argv + 1);
	if (!strcmp(cmd, "busbw"))
		return cmd_busbw(argc - 1, argv + 1);
	if (!strcmp(cmd, "import"))
		return cmd_import(argc - 1, argv + 1);
	fprintf(stderr, "gdrlab: unknown command '%s' (see 'gdrlab --help')\n", cmd);
	return EXIT_USAGE;
}

/* Every command's tables and answers go to stdout: a command that
 * succeeded has not, if they did not arrive (gdrlab run > /dev/full, a
 * full disk, a closed pipe). */
int main(int argc, char **argv)
{
	int rc = dispatch(argc, argv);
	struct diag d = { "" };

	if (!rc && output_stdout_flush(&d)) {
		fprintf(stderr, "gdrlab%s%s: %s\n", argc > 1 ? " " : "", argc > 1 ? argv[1] : "", d.msg);
		rc = EXIT_RUNTIME;
	}
	return rc;
}
