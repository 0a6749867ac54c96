/* SPDX-License-Identifier: MIT */
/*
 * gdrlab import FORMAT FILE... -o TRACE: a real job's trace into gdrlab's
 * (engine/importer.h has the table of formats). The output is written
 * whole or not at all (output_file.h).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "importer.h"
#include "input_file.h"
#include "output_file.h"

#define IMPORT_MAX_FILES 65536

static void usage(FILE *out)
{
	fputs("usage: gdrlab import FORMAT FILE... -o TRACE\n"
	      "\n"
	      "Read a real job's trace and write it as a gdrlab trace (JSON Lines,\n"
	      "docs/trace-format.md): its collectives, their sizes, types and\n"
	      "communicators' ranks. The files are one run: one per rank, or one\n"
	      "for all ranks.\n"
	      "\n"
	      "formats:\n", out);
	for (size_t i = 0; importer_table[i]; i++)
		fprintf(out, "  %-10s %s\n", importer_table[i]->name, importer_table[i]->what);
	fputs("\n"
	      "  -o, --output FILE   the trace to write ('-': stdout; required)\n"
	      "  -h, --help          this help\n"
	      "\n"
	      "What a trace may not say, for the formats that read it (kineto, chakra):\n"
	      "  --dtype TYPE        the element type of calls whose trace does not say it\n"
	      "                      (fp32, fp16, bf16, fp64, int8)\n"
	      "  --group NAME=RANKS  the ranks of the process group NAME where the trace\n"
	      "                      does not list them (0-3, 0,2,4,6; repeatable)\n"
	      "  --world N           the job's N ranks: a call of a group the trace does\n"
	      "                      not list is every rank's\n"
	      "\n"
	      "docs/import.md says what each format must contain and how it maps.\n"
	      "Exit status: 0 ok, 1 runtime failure (an output that could not be\n"
	      "written), 2 bad usage or input (file:line: key: problem; nothing is\n"
	      "written).\n", out);
}

/* Whether some call of @t is every rank's (no group of its own). */
static bool every_rank_calls(const struct trace *t)
{
	for (size_t i = 0; i < t->nentries; i++)
		if (!t->entries[i].ngroup)
			return true;
	return false;
}

static int write_trace(const char *output, const struct importer_ops *imp,
		       char **files, int nfiles, const struct trace *t,
		       const struct import_notes *notes)
{
	struct output_file of;
	struct diag d = { "" };
	int err;

	err = output_file_open(&of, output, &d);
	if (err)
		return cli_fail("import", CLI_RUNNING, err, &d);
	fprintf(of.fp, "# made by: gdrlab import %s", imp->name);
	for (int i = 0; i < nfiles; i++)
		fprintf(of.fp, " %s", files[i]);
	fprintf(of.fp, "\n# %zu collectives\n", t->nentries);
	if (notes->line[0])
		fprintf(of.fp, "# %s\n", notes->line);
	if (notes->world && every_rank_calls(t))
		fprintf(of.fp, "# the job ran on %u ranks; its calls of every rank (no group) span every "
			       "rank a replay's cluster has: replay on %u ranks to time the job as it ran\n",
			notes->world, notes->world);
	/* rank r on the replay's node r / GPUs a node: as the job had them
	 * where its hosts had as many ranks each as the topology GPUs */
	if (notes->hosts > 1 && notes->per_host)
		fprintf(of.fp, "# its ranks ran on %u hosts, %u a host: a replay places them so on a "
			       "topology of %u GPU%s a node with --nodes %u\n",
			notes->hosts, notes->per_host, notes->per_host, notes->per_host == 1 ? "" : "s",
			notes->hosts);
	else if (notes->hosts > 1)
		fprintf(of.fp, "# its ranks ran on %u hosts, not as many on each: a replay puts them "
			       "in order on its nodes' GPUs\n", notes->hosts);
	err = trace_write(of.fp, t);
	if (err) {
		output_file_abort(&of);
		fprintf(stderr, "gdrlab import: %s: cannot write the trace: %s\n", output,
			strerror(-err));
		return EXIT_RUNTIME;
	}
	err = output_file_commit(&of, &d);
	return err ? cli_fail("import", CLI_RUNNING, err, &d) : 0;
}

/* The FORMAT and FILEs after the options: read, then write the trace. */
static int import_files(int argc, char **argv, const struct import_options *io,
			const char *output)
{
	const struct importer_ops *imp;
	struct import_notes notes = { .line = "" };
	struct import_input *in;
	struct diag d = { "" };
	struct trace t;
	char names[128] = "";
	int n, rc, err = 0;

	for (size_t i = 0; importer_table[i]; i++)
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", i ? ", " : "",
			 importer_table[i]->name);
	if (optind >= argc)
		return cli_usage_error("import", "a FORMAT is required (%s)", names);
	imp = importer_find(argv[optind]);
	if (!imp)
		return cli_usage_error("import", "unknown format '%s' (%s)", argv[optind], names);
	if (!imp->takes_options && (io->has_dtype || io->world || io->ngroups))
		return cli_usage_error("import", "%s takes no --dtype, --group or --world (its input says them)",
				       imp->name);
	n = argc - optind - 1;
	if (n < 1)
		return cli_usage_error("import", "no input FILE");
	if (n > IMPORT_MAX_FILES)
		return cli_usage_error("import", "%d files, at most %d", n, IMPORT_MAX_FILES);
	if (!output)
		return cli_usage_error("import", "--output is required");
	in = calloc((size_t)n, sizeof(*in));
	if (!in)
		return cli_fail("import", CLI_RUNNING, -ENOMEM, NULL);
	for (int i = 0; i < n && !err; i++) {
		in[i].name = argv[optind + 1 + i];
		in[i].fp = strcmp(in[i].name, "-") ? input_open(in[i].name, "r", &err, &d) : stdin;
	}
	if (!err)
		err = imp->import(in, (size_t)n, io, &t, &notes, &d);
	for (int i = 0; i < n; i++)
		if (in[i].fp && in[i].fp != stdin)
			fclose(in[i].fp);
	free(in);
	if (err)
		return cli_fail("import", CLI_LOADING, err, &d);
	rc = write_trace(output, imp, argv + optind + 1, n, &t, &notes);
	trace_destroy(&t);
	return rc;
}

int cmd_import(int argc, char **argv)
{
	enum { OPT_DTYPE = 256, OPT_GROUP, OPT_WORLD };
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "dtype", required_argument, NULL, OPT_DTYPE },
		{ "group", required_argument, NULL, OPT_GROUP },
		{ "world", required_argument, NULL, OPT_WORLD },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct import_options io = { 0 };
	const char *output = NULL;
	struct diag d = { "" };
	int c, rc = -1, err = 0;

	optind = 1;
	while (rc < 0 && (c = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case OPT_DTYPE:
			err = import_options_dtype(&io, optarg, &d);
			break;
		case OPT_GROUP:
			err = import_options_group(&io, optarg, &d);
			break;
		case OPT_WORLD:
			err = import_options_world(&io, optarg, &d);
			break;
		case 'h':
			usage(stdout);
			rc = 0;
			break;
		case ':':
			rc = cli_usage_error("import", "%s needs a value", argv[optind - 1]);
			break;
		default:
			rc = cli_usage_error("import", "unknown option '%s'", argv[optind - 1]);
		}
		if (err)
			rc = cli_usage_error("import", "%s", d.msg);
	}
	if (rc < 0)
		rc = import_files(argc, argv, &io, output);
	import_options_free(&io);
	return rc;
}
