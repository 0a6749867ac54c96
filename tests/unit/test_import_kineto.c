/* SPDX-License-Identifier: MIT */
/*
 * The kineto importer (engine/import_kineto.c) on PyTorch profiler traces
 * written by a script (tests/data/kineto/README.md): the 4 ranks' files of
 * the made-up run of tests/data/nccl-log/job-4ranks.log, one of them gzip,
 * give the trace worked out by hand, and the same op, bytes and group as
 * the NCCL-log importer for every call both can say; each fault its line.
 */
#include "import_helpers.h"

#define KT(name) DATA("kineto/" name)

static const char *const ranks[] = { KT("rank0.json"), KT("rank1.json.gz"), KT("rank2.json"),
				     KT("rank3.json") };

/*
 * By hand from the files: in ProfilerStep#5 (from 1000 us on each rank's
 * clock) the world all-reduce of 262144 floats at 1100 + rank (1 MiB, the
 * lowest rank's 100 us in), each pair's 1048576 bfloat16 at 1200 (2 MiB,
 * group [0, 1] and [2, 3]), the world all-gather of 1024 halves a rank
 * into 4096 (the whole 8 KiB) at 1300; the broadcast and the send are left
 * out, and so are the barrier and the kernels' copies.
 */
Test(import_kineto, four_ranks_one_gzip)
{
	struct trace t;
	struct diag d = { "" };

	cr_assert_eq(import_as("kineto", ranks, 4, &t, &d), 0, "%s", d.msg);
	assert_the_made_up_run(&t);
	cr_expect_str_eq(notes.line, "left out: 2 point-to-point calls and 2 broadcasts, reduces, gathers and scatters (the profiler records no peer or root), 4 barriers, waits and empty calls");
	trace_destroy(&t);
}

/* The two formats of one run: the same op, bytes and group for each call
 * the profiler can say (all but the broadcast and the send). */
Test(import_kineto, agrees_with_the_nccl_log)
{
	const char *logs[] = { DATA("nccl-log/job-4ranks.log") };
	struct trace k, n, said;
	struct diag d = { "" };

	cr_assert_eq(import_as("kineto", ranks, 4, &k, &d), 0, "%s", d.msg);
	cr_assert_eq(import_as("nccl-log", logs, 1, &n, &d), 0, "%s", d.msg);
	calls_profilers_say(&n, &said);
	assert_same_calls(&k, &said, false);
	free(said.entries); /* its groups are n's */
	trace_destroy(&k);
	trace_destroy(&n);
}

/* One rank's file alone: its own calls, the world's without a group. */
Test(import_kineto, one_rank)
{
	const char *files[] = { KT("rank2.json") };
	struct trace t;
	struct diag d = { "" };

	cr_assert_eq(import_as("kineto", files, 1, &t, &d), 0, "%s", d.msg);
	cr_assert_eq(t.nentries, 3);
	cr_expect_eq(t.entries[0].ready_us, 102);
	cr_expect_eq(t.entries[1].group[0], 2);
	trace_destroy(&t);
}

/*
 * Two steps, their events out of order in the file: the steps sorted by
 * start (ProfilerStep#7 at 10000 us, #8 at 20000), each call in the last
 * step that starts by it and ready from that step's start, the entries by
 * iteration then time into it.
 */
Test(import_kineto, calls_go_to_their_steps)
{
	const char *files[] = { KT("two-steps.json") };
	struct trace t;
	struct diag d = { "" };

	cr_assert_eq(import_as("kineto", files, 1, &t, &d), 0, "%s", d.msg);
	cr_assert_eq(t.nentries, 4);
	cr_expect_eq(t.niterations, 2);
	cr_expect_eq(t.entries[0].iteration, 0);
	cr_expect_eq(t.entries[0].ready_us, 2500);
	cr_expect_eq(t.entries[0].bytes, 4096);
	cr_expect_eq(t.entries[1].ready_us, 6000.5);
	cr_expect_eq(t.entries[1].bytes, 1024);
	cr_expect_eq(t.entries[2].iteration, 1);
	cr_expect_eq(t.entries[2].ready_us, 1000);
	cr_expect_eq(t.entries[3].ready_us, 6000.5);
	trace_destroy(&t);
}

Test(import_kineto, every_fault_its_line)
{
	static const struct bad_case cases[] = {
		{ "truncated.json", "truncated.json:16: json: the file ends inside an object or array (byte 226)" },
		{ "cut.json.gz", "cut.json.gz:16: gzip: the stream is cut short (byte 233)" },
		{ "corrupt.json.gz", "corrupt.json.gz:1: gzip: corrupt data: " },
		{ "not-an-object.json", "not-an-object.json:1: json: expected a JSON object (a PyTorch profiler trace)" },
		{ "no-events.json", "no-events.json:1: traceEvents: missing: not a PyTorch profiler trace" },
		{ "unknown-dtype.json", "unknown-dtype.json:8: dtype: 'ComplexFloat' is not a type gdrlab knows" },
		{ "unknown-collective.json", "unknown-collective.json:8: Collective name: 'allgatherv2' is not one gdrlab's trace has" },
		{ "no-rank.json", "no-rank.json:4: Rank: neither distributedInfo nor the event says this file's rank" },
		{ "repeated-rank.json", "repeated-rank.json:8: Process Group Ranks: expected distinct ranks" },
		{ "no-collectives.json", "no-collectives.json: kineto: no collectives" },
		{ "event-not-object.json", "event-not-object.json:1: traceEvents: expected an event object" },
		/* jansson's quote of the text near a bad escape holds the newline */
		{ "bad-escape.json", "bad-escape.json:1: traceEvents: an event that is not a JSON object: invalid escape near" },
	};

	expect_bad_imports("kineto", KT("bad/"), cases, sizeof(cases) / sizeof(cases[0]));
}

/* Ranks that disagree on a call: both files named. */
Test(import_kineto, ranks_that_disagree)
{
	const char *files[] = { KT("bad/disagree-rank0.json"), KT("bad/disagree-rank1.json") };
	struct trace t;
	struct diag d = { "" };

	cr_assert_eq(import_as("kineto", files, 2, &t, &d), -EINVAL);
	cr_expect_not_null(strstr(d.msg, "disagree-rank1.json:8: Collective name: rank 1's call 0 of group '0' is allreduce of 8192 bytes, rank 0's ("),
			   "%s", d.msg);
	cr_expect_not_null(strstr(d.msg, "disagree-rank0.json:8) allreduce of 4096"), "%s", d.msg);
}
