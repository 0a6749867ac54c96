/* SPDX-License-Identifier: MIT */
/*
 * The nccl-log importer (engine/import_nccl_log.c) on NCCL logs written by
 * hand (tests/data/nccl-log/README.md), against traces written by hand:
 * the same run in one file and in one file a rank, in any order, gives one
 * trace; each fault gives its one line.
 */
#include "import_helpers.h"

#define LOG(name) DATA("nccl-log/" name)

/* Every field of two traces' entries. */
static void assert_same(const struct trace *got, const struct trace *want)
{
	assert_same_calls(got, want, true);
	cr_assert_eq(got->niterations, want->niterations);
	for (size_t i = 0; i < want->nentries; i++) {
		const struct trace_entry *a = &got->entries[i], *b = &want->entries[i];

		cr_expect_eq(a->root, b->root, "entry %zu", i);
		cr_expect_eq(a->peer, b->peer, "entry %zu", i);
		cr_expect_str_eq(a->algo, b->algo, "entry %zu", i);
		cr_expect_str_eq(a->proto, b->proto, "entry %zu", i);
		cr_expect_str_eq(trace_entry_comm(got, a), trace_entry_comm(want, b), "entry %zu", i);
		cr_expect_eq(a->stream, b->stream, "entry %zu", i);
	}
}

static void load_expected(struct trace *t)
{
	struct diag d = { "" };

	cr_assert_eq(trace_load(LOG("job-4ranks.expected.jsonl"), t, &d), 0, "%s", d.msg);
}

Test(import_nccl_log, one_file_of_four_ranks)
{
	const char *files[] = { LOG("job-4ranks.log") };
	struct trace got, want;
	struct diag d = { "" };

	cr_assert_eq(import_as("nccl-log", files, 1, &got, &d), 0, "%s", d.msg);
	load_expected(&want);
	assert_same(&got, &want);
	/* its Channel lines: sends 1->2 and 3->0 (through rank 2's NIC, PXN)
	 * on GPU memory, receive 1->2 on GPU memory, 3->0 staged */
	cr_expect_str_eq(notes.line, "NCCL's network connections: 2 sends, 2 of them GPUDirect RDMA, 1 through a PXN proxy; 2 receives, 1 GPUDirect RDMA (replay with --path auto)");
	trace_destroy(&got);
	trace_destroy(&want);
}

/* One file a rank, in two orders: the same trace as the one file. */
Test(import_nccl_log, one_file_a_rank_in_any_order)
{
	const char *a[] = { LOG("rank-1001.log"), LOG("rank-1002.log"), LOG("rank-2001.log"),
			    LOG("rank-2002.log") };
	const char *b[] = { LOG("rank-2002.log"), LOG("rank-2001.log"), LOG("rank-1002.log"),
			    LOG("rank-1001.log") };
	struct trace got, want;
	struct diag d = { "" };

	load_expected(&want);
	cr_assert_eq(import_as("nccl-log", a, 4, &got, &d), 0, "%s", d.msg);
	assert_same(&got, &want);
	cr_expect_not_null(strstr(notes.line, "2 sends, 2 of them"), "%s", notes.line);
	trace_destroy(&got);
	cr_assert_eq(import_as("nccl-log", b, 4, &got, &d), 0, "%s", d.msg);
	assert_same(&got, &want);
	trace_destroy(&got);
	trace_destroy(&want);
}

/*
 * One rank of eight, NCCL 2.8 (no commId): the world is every rank, so no
 * group; 4096 x half = 8 KiB; ReduceScatter's 512 floats a rank x 8 ranks
 * = 16 KiB, the whole buffer; a count of 0 moves nothing and is left out.
 */
Test(import_nccl_log, one_rank_of_nccl_2_8)
{
	const char *files[] = { LOG("one-rank-2.8.log") };
	struct trace t;
	struct diag d = { "" };

	cr_assert_eq(import_as("nccl-log", files, 1, &t, &d), 0, "%s", d.msg);
	cr_expect_str_eq(notes.line, "", "no Channel lines, nothing said");
	cr_assert_eq(t.nentries, 2);
	cr_expect_eq(t.entries[0].op, TRACE_OP_ALLREDUCE);
	cr_expect_eq(t.entries[0].dtype, TRACE_DTYPE_FP16);
	cr_expect_eq(t.entries[0].bytes, 8192);
	cr_expect_eq(t.entries[0].ngroup, 0);
	cr_expect_eq(t.entries[1].op, TRACE_OP_REDUCE_SCATTER);
	cr_expect_eq(t.entries[1].bytes, 16384);
	trace_destroy(&t);
}

/* One process, one communicator, two streams (0xa0 first, then 0xb0):
 * the trace's streams 0, 1, 0, so that the call on the side stream runs
 * beside the others when replayed. */
Test(import_nccl_log, streams_of_one_communicator)
{
	const char *files[] = { LOG("two-streams.log") };
	struct diag d = { "" };
	struct trace t;

	cr_assert_eq(import_as("nccl-log", files, 1, &t, &d), 0, "%s", d.msg);
	cr_assert_eq(t.nentries, 3);
	cr_expect_eq(t.entries[0].stream, 0);
	cr_expect_eq(t.entries[1].stream, 1);
	cr_expect_eq(t.entries[2].stream, 0);
	cr_expect_eq(t.entries[1].bytes, 8192);
	cr_expect_str_eq(trace_entry_comm(&t, &t.entries[1]), "world");
	trace_destroy(&t);
}

Test(import_nccl_log, every_fault_its_line)
{
	static const struct bad_case cases[] = {
		{ "no-init.log", "no-init.log:1: comm: communicator 0x10 of node0:1001 has no 'Init COMPLETE' line before it (NCCL_DEBUG_SUBSYS must include INIT)" },
		{ "bad-datatype.log", "bad-datatype.log:2: datatype: unknown NCCL datatype 42 (0-11: ncclInt8 .. ncclFloat8e5m2)" },
		{ "disagree.log", "disagree.log:4: opCount: AllReduce opCount 0 disagrees with " },
		{ "missing-count.log", "missing-count.log:2: count: missing from the line" },
		{ "partial-comm.log", "partial-comm.log:4: comm: communicator 0x88 has 2 ranks, the logs show no 'Init COMPLETE' of its rank 1 with a world rank: import every rank's log" },
		{ "partial-comm2.log", "partial-comm2.log:3: comm: communicator 0x88 has 2 ranks" },
		{ "reduce.log", "reduce.log:2: collective: 'Reduce' is not one gdrlab's trace has" },
		{ "no-collectives.log", "no-collectives.log: nccl-log: no collectives (NCCL_DEBUG_SUBSYS must include COLL)" },
		{ "no-init-line.log", "no-init-line.log: nccl-log: no 'Init COMPLETE' line" },
		{ "bad-prefix.log", "bad-prefix.log:2: prefix: expected 'host:pid:tid [device] NCCL INFO'" },
		{ "no-commid.log", "no-commid.log:3: comm: a communicator of 1 of the world's 2 ranks, and this NCCL's log has no commId" },
		{ "long-line.log", "long-line.log:2: line: longer than 4095 bytes" },
		{ "send-to-self.log", "send-to-self.log:2: root: a send's peer must be another of the 2 ranks, got 0" },
		{ "rank-out-of-range.log", "rank-out-of-range.log:1: rank: rank 2 of 2 ranks" },
		{ "tuning-unmatched.log", "tuning-unmatched.log:2: tuning: no AllReduce of 4096 bytes of node0:1001 is waiting for it (its collective line must come first)" },
		{ "tuning-unknown.log", "tuning-unknown.log:3: tuning: unknown algorithm or protocol 'RINGS' / 'LL'" },
	};

	expect_bad_imports("nccl-log", LOG("bad/"), cases, sizeof(cases) / sizeof(cases[0]));
}
