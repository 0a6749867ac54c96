/* SPDX-License-Identifier: MIT */
/*
 * The nccl-log importer (engine/import_nccl_log.c) on NCCL logs written by
 * hand (tests/data/nccl-log/README.md), against traces written by hand:
 * the same run in one file and in one file a rank, in any order, gives one
 * trace; each fault gives its one line.
 */
#include "import_helpers.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

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
		cr_expect_eq(a->batched, b->batched, "entry %zu", i);
		cr_expect_eq(a->batch, b->batch, "entry %zu", i);
	}
}

/* Entry @i of @t: its op and bytes. */
static void expect_op_bytes(const struct trace *t, size_t i, enum trace_op op, uint64_t bytes)
{
	cr_expect_eq(t->entries[i].op, op, "entry %zu", i);
	cr_expect_eq(t->entries[i].bytes, bytes, "entry %zu", i);
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

/* A line of the job's own longer than NCCL's ever are (a script's print,
 * line 4 of long-print.log, else job-4ranks.log) is not NCCL's: skipped,
 * the same trace. */
Test(import_nccl_log, a_long_line_not_nccls_is_skipped)
{
	const char *files[] = { LOG("long-print.log") };
	struct trace got, want;
	struct diag d = { "" };

	cr_assert_eq(import_as("nccl-log", files, 1, &got, &d), 0, "%s", d.msg);
	load_expected(&want);
	assert_same(&got, &want);
	trace_destroy(&got);
	trace_destroy(&want);
}

/*
 * PyTorch's all-to-all over send/receive (before NCCL 2.28) sends every
 * rank its share, its own too, in one NCCL group (one opCount): a rank's
 * send to itself is a copy on its GPU, left out, and the others, every
 * ordered pair of the 2 ranks once at 256 floats, are the one alltoall
 * NCCL runs them as: 2 x 256 x 4 = 2048 bytes, a rank's send buffer, not
 * two sends one after the other. Without rank 1's log the group is half
 * an all-to-all and stays the send it is.
 */
Test(import_nccl_log, a_groups_sends_to_every_peer_are_one_alltoall)
{
	const char *files[] = { LOG("alltoall-sends.log") };
	struct diag d = { "" };
	struct trace t;

	cr_assert_eq(import_as("nccl-log", files, 1, &t, &d), 0, "%s", d.msg);
	cr_assert_eq(t.nentries, 1);
	expect_op_bytes(&t, 0, TRACE_OP_ALLTOALL, 2048);
	cr_expect_eq(t.entries[0].ngroup, 0);
	cr_expect_eq(t.entries[0].root, -1);
	cr_expect_str_eq(trace_entry_comm(&t, &t.entries[0]), "world");
	cr_expect_not_null(strstr(notes.line, "1 all-to-all from the sends of one NCCL group"), "%s",
			   notes.line);
	trace_destroy(&t);
}

/*
 * A pipeline of 4 ranks exchanging with its neighbours, each exchange one
 * NCCL group on each side (batch_isend_irecv): ranks 0 and 3 launch once
 * (opCount 1), ranks 1 and 2 twice, 1's second launch being 2's first.
 * The launches joined by their transfers are 0 <-> 1, 1 <-> 2 and
 * 2 <-> 3, each a batch of two sends in a row, though 2 -> 1 and 0 -> 1
 * share opCount 1. Replayed, each batch's two sends run at once, and
 * 1 <-> 2 waits for 0 <-> 1 (rank 1's stream), 2 <-> 3 for 1 <-> 2.
 */
Test(import_nccl_log, a_pipelines_exchanges_are_batches_of_their_launches)
{
	static const int pairs[6][2] = { { 0, 1 }, { 1, 0 }, { 2, 1 }, { 1, 2 }, { 3, 2 }, { 2, 3 } };
	const char *files[] = { LOG("pipeline-sends.log") };
	struct plan_options o;
	struct diag d = { "" };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct trace t;
	struct run r;
	double t01;

	cr_assert_eq(import_as("nccl-log", files, 1, &t, &d), 0, "%s", d.msg);
	cr_assert_eq(t.nentries, 6);
	for (size_t i = 0; i < 6; i++) {
		cr_expect_eq(t.entries[i].root, pairs[i][0], "entry %zu", i);
		cr_expect_eq(t.entries[i].peer, pairs[i][1], "entry %zu", i);
		cr_expect(t.entries[i].batched, "entry %zu", i);
		cr_expect_eq(t.entries[i].batch, t.entries[i & ~1u].batch, "entry %zu", i);
	}
	cr_expect_neq(t.entries[0].batch, t.entries[2].batch);
	cr_expect_neq(t.entries[2].batch, t.entries[4].batch);
	cr_expect_not_null(strstr(notes.line, "3 NCCL groups of several sends"), "%s", notes.line);
	cr_assert_not_null(f);
	cr_assert_eq(trace_write(f, &t), 0);
	cr_assert_eq(fclose(f), 0);
	plan_options_default(&o);
	o.nodes = 4;
	o.path = PLAN_PATH_DIRECT;
	run_trace(&r, "analytic", DATA("round-numbers.yaml"), text, &o);
	t01 = r.rec.coll[0].alone_us;
	for (size_t i = 0; i < 6; i++)
		assert_rel(r.rec.coll[i].start_us + 1, (double)(i / 2) * t01 + 1, 1e-12);
	run_destroy(&r);
	free(text);
	trace_destroy(&t);
}

/*
 * An all-to-all's sends (opCount 1 on 3 ranks), folded, then two
 * exchanges 0 <-> 1 (opCounts 2, 3: 2000 and 3000 floats): the folded
 * group's receives are not matched with the exchanges' sends, which stay
 * each its own batch (found by a review: the k-th receive of a pair
 * shifted by the all-to-all's, 8000 B joined with 12000 B). With rank
 * 0's send to 1 twice the others (all_to_allv), the all-to-all is still
 * one, of its largest send.
 */
Test(import_nccl_log, an_alltoalls_receives_do_not_shift_the_pairs_after)
{
	const char *files[] = { LOG("alltoall-then-pairs.log") };
	const char *uneven[] = { LOG("uneven-alltoall-sends.log") };
	struct diag d = { "" };
	struct trace t;

	cr_assert_eq(import_as("nccl-log", files, 1, &t, &d), 0, "%s", d.msg);
	cr_assert_eq(t.nentries, 5);
	expect_op_bytes(&t, 0, TRACE_OP_ALLTOALL, 3 * 256 * 4);
	cr_expect_eq(t.entries[1].bytes, 8000);
	cr_expect_eq(t.entries[2].bytes, 8000);
	cr_expect_eq(t.entries[1].batch, t.entries[2].batch);
	cr_expect_eq(t.entries[3].bytes, 12000);
	cr_expect_eq(t.entries[3].batch, t.entries[4].batch);
	cr_expect_neq(t.entries[1].batch, t.entries[3].batch);
	trace_destroy(&t);
	cr_assert_eq(import_as("nccl-log", uneven, 1, &t, &d), 0, "%s", d.msg);
	cr_assert_eq(t.nentries, 1);
	expect_op_bytes(&t, 0, TRACE_OP_ALLTOALL, 3 * 512 * 4);
	cr_expect_not_null(strstr(notes.line, "1 of them of unequal sends (all_to_allv)"), "%s",
			   notes.line);
	trace_destroy(&t);
}

/*
 * NCCL 2.27 and later count a launch in opCount only when it has network
 * work (v2.27.3-1 src/enqueue.cc hostStreamPlanTask -> ncclProxyStart,
 * src/proxy.cc's comm->opCount++), so on one node every call prints
 * opCount 0 (NVIDIA/nccl#2021). pipeline-2.27.log: 3 ranks on one node,
 * forward 0 -> 1, 1 -> 2 (1000 bf16 = 2000 B), backward 2 -> 1, 1 -> 0
 * (4000 B), each its own launch, then an all-reduce of 256 floats
 * (1 KiB): 4 sends, each a batch of its own, not the one batch of 4 that
 * opCount 0 made them; the all-reduce one call, last (after rank 1's
 * send to 0, its 4th line). exchange-2.27.log: 0 -> 1, later 1 -> 0,
 * 4194304 bf16 each: two sends of 8 MiB, not one alltoall of 16 MiB.
 */
/* The two 8 MiB sends of exchange-2.27.log (0 -> 1, then 1 -> 0), each
 * its own launch: not one batch. */
static void expect_two_sends_each_a_launch(const struct trace *t)
{
	cr_assert_eq(t->nentries, 2);
	for (size_t i = 0; i < 2; i++) {
		expect_op_bytes(t, i, TRACE_OP_SENDRECV, 8388608);
		cr_expect_eq(t->entries[i].root, (int)i, "entry %zu", i);
	}
	cr_expect_neq(t->entries[0].batch, t->entries[1].batch);
}

Test(import_nccl_log, sends_of_nccl_2_27_on_one_node_are_each_a_launch)
{
	static const int pairs[4][2] = { { 0, 1 }, { 1, 2 }, { 2, 1 }, { 1, 0 } };
	static const int64_t bytes[4] = { 2000, 2000, 4000, 4000 };
	const char *pipe[] = { LOG("pipeline-2.27.log") };
	const char *pair[] = { LOG("exchange-2.27.log") };
	struct diag d = { "" };
	struct trace t;

	cr_assert_eq(import_as("nccl-log", pipe, 1, &t, &d), 0, "%s", d.msg);
	cr_assert_eq(t.nentries, 5);
	for (size_t i = 0; i < 4; i++) {
		cr_expect_eq(t.entries[i].op, TRACE_OP_SENDRECV, "entry %zu", i);
		cr_expect_eq(t.entries[i].root, pairs[i][0], "entry %zu", i);
		cr_expect_eq(t.entries[i].peer, pairs[i][1], "entry %zu", i);
		cr_expect_eq(t.entries[i].bytes, bytes[i], "entry %zu", i);
		for (size_t j = 0; j < i; j++)
			cr_expect_neq(t.entries[i].batch, t.entries[j].batch, "entries %zu, %zu", j, i);
	}
	expect_op_bytes(&t, 4, TRACE_OP_ALLREDUCE, 1024);
	cr_expect_null(strstr(notes.line, "NCCL group"), "%s", notes.line);
	cr_expect_not_null(strstr(notes.line, "4 sends each its own launch"), "%s", notes.line);
	trace_destroy(&t);
	cr_assert_eq(import_as("nccl-log", pair, 1, &t, &d), 0, "%s", d.msg);
	expect_two_sends_each_a_launch(&t);
	cr_expect_null(strstr(notes.line, "all-to-all"), "%s", notes.line);
	trace_destroy(&t);
}

/*
 * exchange-2.27-no-version.log: exchange-2.27.log with no "NCCL version"
 * line (a log cut or filtered), but each rank's "Assigned NET plugin IB
 * to comm", which every communicator's init prints from 2.27 on (INFO of
 * INIT|NET: v2.27.3-1 src/plugin/net.cc:174 from commAlloc, src/init.cc;
 * none in v2.26.6-1): read as 2.27's, two sends of 8 MiB each its own
 * launch, not the one alltoall of 16 MiB that opCount 0 made them, and
 * the header says why. A log with neither line whose sends were grouped
 * by opCount (alltoall-sends.log, written as 2.21's) says it was read as
 * an older NCCL's; one with its version line (job-4ranks.log) says nothing.
 */
Test(import_nccl_log, nccl_2_27_without_its_version_line)
{
	const char *pair[] = { LOG("exchange-2.27-no-version.log") };
	const char *old[] = { LOG("alltoall-sends.log") };
	const char *said[] = { LOG("job-4ranks.log") };
	struct diag d = { "" };
	struct trace t;

	cr_assert_eq(import_as("nccl-log", pair, 1, &t, &d), 0, "%s", d.msg);
	expect_two_sends_each_a_launch(&t);
	cr_expect_not_null(strstr(notes.line, "no 'NCCL version' line: read as NCCL 2.27 or later, which alone prints 'Assigned NET plugin' ("),
			   "%s", notes.line);
	cr_expect_not_null(strstr(notes.line, "exchange-2.27-no-version.log:1)"), "%s", notes.line);
	trace_destroy(&t);
	cr_assert_eq(import_as("nccl-log", old, 1, &t, &d), 0, "%s", d.msg);
	cr_expect_not_null(strstr(notes.line, "sends grouped by opCount, as NCCL before 2.27 counts launches; a 2.27 or later log needs its 'NCCL version' line kept"),
			   "%s", notes.line);
	trace_destroy(&t);
	cr_assert_eq(import_as("nccl-log", said, 1, &t, &d), 0, "%s", d.msg);
	cr_expect_null(strstr(notes.line, "'NCCL version'"), "%s", notes.line);
	trace_destroy(&t);
}

/*
 * Two nodes, three all-reduces of 1 MiB floats (4 MiB): rank 0 counts
 * them 0, 1, 2, rank 1, whose launches had no network work (2.27+), 0,
 * 0, 0 and prints no version line. A collective is each rank's n-th on
 * the communicator: three calls, none logged by only some ranks (by
 * opCount they were five, four of them said to be cut short).
 */
Test(import_nccl_log, a_rank_whose_opcount_stays_matches_by_place)
{
	const char *files[] = { LOG("opcount-stuck-rank.log") };
	struct diag d = { "" };
	struct trace t;

	cr_assert_eq(import_as("nccl-log", files, 1, &t, &d), 0, "%s", d.msg);
	cr_assert_eq(t.nentries, 3);
	for (size_t i = 0; i < 3; i++) {
		expect_op_bytes(&t, i, TRACE_OP_ALLREDUCE, 4194304);
		cr_expect_eq(t.entries[i].ngroup, 0, "entry %zu", i);
	}
	cr_expect_null(strstr(notes.line, "only some of their ranks"), "%s", notes.line);
	trace_destroy(&t);
}

/*
 * One process driving two GPUs (ncclCommInitAll, nccl-tests -g 2): both
 * ranks' lines are node0:100's, and its COLL lines' "[0]" is the calling
 * thread's device, not the rank's; the Init lines' cudaDev and the comm
 * pointers tell the ranks apart. An all-reduce of 1 MiB floats (4 MiB),
 * rank 0's TUNING line Ring Simple, then rank 1 (comm 0x510) sends 256
 * floats (1 KiB) to rank 0. Refused as "process node0:100 has ranks 0
 * and 1" before.
 */
Test(import_nccl_log, one_process_of_two_gpus)
{
	const char *files[] = { LOG("one-process-two-gpus.log") };
	struct diag d = { "" };
	struct trace t;

	cr_assert_eq(import_as("nccl-log", files, 1, &t, &d), 0, "%s", d.msg);
	cr_assert_eq(t.nentries, 2);
	expect_op_bytes(&t, 0, TRACE_OP_ALLREDUCE, 4194304);
	cr_expect_eq(t.entries[0].ngroup, 0);
	cr_expect_str_eq(t.entries[0].algo, "Ring");
	cr_expect_str_eq(t.entries[0].proto, "Simple");
	expect_op_bytes(&t, 1, TRACE_OP_SENDRECV, 1024);
	cr_expect_eq(t.entries[1].root, 1);
	cr_expect_eq(t.entries[1].peer, 0);
	cr_expect_null(strstr(notes.line, "only some of their ranks"), "%s", notes.line);
	cr_expect_eq(notes.world, 2);
	cr_expect_eq(notes.hosts, 1);
	cr_expect_eq(notes.per_host, 2);
	trace_destroy(&t);
}

/*
 * Two nodes of two GPUs, tensor-parallel pairs {n0 dev 0, n0 dev 1},
 * {n1 dev 0, n1 dev 1} and data-parallel pairs across the nodes, no
 * communicator of all four: global ranks by host, then device, 0-3, so
 * the TP pairs are {0, 1} and {2, 3} (4096 bf16 = 8 KiB, twice each) and
 * the DP pairs {0, 2} and {1, 3} (reduce-scatter of 1 Mi floats a rank x
 * 2 = 8 MiB). Refused before as a pair's rank with no world rank.
 */
Test(import_nccl_log, no_communicator_of_every_rank)
{
	const char *files[] = { LOG("no-world.log") };
	unsigned tp[2] = { 0 }, dp[2] = { 0 };
	struct diag d = { "" };
	struct trace t;

	cr_assert_eq(import_as("nccl-log", files, 1, &t, &d), 0, "%s", d.msg);
	cr_assert_eq(t.nentries, 6);
	for (size_t i = 0; i < t.nentries; i++) {
		const struct trace_entry *e = &t.entries[i];

		cr_assert_eq(e->ngroup, 2, "entry %zu", i);
		if (e->op == TRACE_OP_ALLREDUCE) {
			cr_expect_eq(e->bytes, 8192, "entry %zu", i);
			cr_expect_eq(e->group[1], e->group[0] + 1, "entry %zu", i);
			cr_expect(e->group[0] == 0 || e->group[0] == 2, "entry %zu", i);
			tp[e->group[0] / 2]++;
		} else {
			cr_expect_eq(e->op, TRACE_OP_REDUCE_SCATTER, "entry %zu", i);
			cr_expect_eq(e->bytes, 8388608, "entry %zu", i);
			cr_expect_eq(e->group[1], e->group[0] + 2, "entry %zu", i);
			cr_expect_lt(e->group[0], 2, "entry %zu", i);
			dp[e->group[0]]++;
		}
	}
	cr_expect(tp[0] == 2 && tp[1] == 2 && dp[0] == 1 && dp[1] == 1);
	cr_expect_eq(notes.world, 4);
	cr_expect_eq(notes.per_host, 2);
	cr_expect_not_null(strstr(notes.line, "no communicator has every rank of the logs: global ranks 0 to 3"),
			   "%s", notes.line);
	trace_destroy(&t);
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
	expect_op_bytes(&t, 1, TRACE_OP_REDUCE_SCATTER, 16384);
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

/*
 * A Reduce among the all-reduces (a function the trace has no op for) is
 * left out on every rank and said so, not the whole log refused: its
 * two ranks' lines, the first at line 5; the all-reduces of opCount 0
 * and 2 pair up across the ranks as before.
 */
Test(import_nccl_log, a_reduce_is_left_out_and_said)
{
	const char *files[] = { LOG("reduce-among.log") };
	struct trace t;
	struct diag d = { "" };

	cr_assert_eq(import_as("nccl-log", files, 1, &t, &d), 0, "%s", d.msg);
	cr_assert_eq(t.nentries, 2);
	cr_expect_eq(t.entries[0].bytes, 1024 * 4);
	cr_expect_eq(t.entries[1].bytes, 2048 * 4);
	cr_expect(strstr(notes.line, "left out: 2 ranks' lines of NCCL functions the trace has no op "
				     "for (the first: Reduce, ") &&
			  strstr(notes.line, "reduce-among.log:5)"),
		  "%s", notes.line);
	trace_destroy(&t);
}

Test(import_nccl_log, every_fault_its_line)
{
	static const struct bad_case cases[] = {
		{ "no-init.log", "no-init.log:1: comm: communicator 0x10 of node0:1001 has no 'Init COMPLETE' line before it (NCCL_DEBUG_SUBSYS must include INIT)" },
		{ "bad-datatype.log", "bad-datatype.log:2: datatype: unknown NCCL datatype 42 (0-11: ncclInt8 .. ncclFloat8e5m2)" },
		{ "disagree.log", "disagree.log:4: call: AllReduce, this rank's collective 0 on communicator 0x20, disagrees with " },
		{ "missing-count.log", "missing-count.log:2: count: missing from the line" },
		{ "partial-comm.log", "partial-comm.log:4: comm: communicator 0x88 has 2 ranks, the logs show no 'Init COMPLETE' of its rank 1 with a world rank: import every rank's log" },
		{ "partial-comm2.log", "partial-comm2.log:3: comm: communicator 0x88 has 2 ranks" },
		{ "reduce.log", "reduce.log:2: collective: 'Reduce' is not one gdrlab's trace has (AllReduce, AllGather, ReduceScatter, Broadcast, AlltoAll, Send/Recv), and the logs have no other" },
		{ "no-collectives.log", "no-collectives.log: nccl-log: no collectives (NCCL_DEBUG_SUBSYS must include COLL)" },
		{ "no-init-line.log", "no-init-line.log: nccl-log: no 'Init COMPLETE' line" },
		{ "bad-prefix.log", "bad-prefix.log:2: prefix: expected 'host:pid:tid [device] NCCL INFO'" },
		{ "no-commid.log", "no-commid.log:3: comm: a communicator of 1 of the world's 2 ranks, and this NCCL's log has no commId" },
		{ "long-line.log", "long-line.log:2: line: an NCCL line longer than 4095 bytes" },
		{ "nul-byte.log", "nul-byte.log:2: line: a NUL byte" },
		{ "send-to-nobody.log", "send-to-nobody.log:2: root: a send's peer must be one of the 2 ranks, got 2" },
		{ "rank-out-of-range.log", "rank-out-of-range.log:1: rank: rank 2 of 2 ranks" },
		{ "tuning-unmatched.log", "tuning-unmatched.log:2: tuning: no AllReduce of 4096 bytes of node0:1001 is waiting for it (its collective line must come first)" },
		{ "tuning-unknown.log", "tuning-unknown.log:3: tuning: unknown algorithm or protocol 'RINGS' / 'LL'" },
	};

	expect_bad_imports("nccl-log", LOG("bad/"), cases, sizeof(cases) / sizeof(cases[0]));
}

/* The entry of @t whose comm is @comm and op @op, the @nth such. */
static const struct trace_entry *find_entry(const struct trace *t, const char *comm,
					    enum trace_op op, unsigned nth)
{
	for (size_t i = 0; i < t->nentries; i++)
		if (t->entries[i].op == op && !strcmp(trace_entry_comm(t, &t->entries[i]), comm) &&
		    !nth--)
			return &t->entries[i];
	return NULL;
}

/*
 * NCCL 2.23 (split-2.23.log, by hand from its src/init.cc and
 * src/enqueue.cc): the pairs (0, 2) and (1, 3) are ncclCommSplit children
 * of the world, whose Init lines name their parent and color, not a
 * commId (colors past 2^30, as PyTorch hashes a group's ranks into
 * one: until 2026-12-06 refused); the comm pointers are the same in every process, as in
 * identical processes they often are. The world's 262144 floats = 1 MiB,
 * each pair's 65536 bfloat16 = 128 KiB. 2.23's TUNING lines give numbers:
 * Algo 1 proto 2 = Ring Simple, 0 1 = Tree LL128, 1 0 = Ring LL
 * (nccl_common.h: TREE 0, RING 1; LL 0, LL128 1, SIMPLE 2). Then an
 * AllGather of 1024 floats a rank: 16 KiB in all, which 2.23's TUNING
 * line gives as the larger buffer (enqueue.cc nBytes from
 * ncclFuncMaxSendRecvCount), not a rank's 4 KiB as 2.24 and on do.
 */
Test(import_nccl_log, split_children_of_nccl_2_23)
{
	const char *files[] = { LOG("split-2.23.log") };
	struct diag d = { "" };
	struct trace t;

	cr_assert_eq(import_as("nccl-log", files, 1, &t, &d), 0, "%s", d.msg);
	cr_assert_eq(t.nentries, 4);
	cr_expect_eq(t.entries[0].bytes, 1048576);
	cr_expect_eq(t.entries[0].ngroup, 0);
	cr_expect_str_eq(trace_entry_comm(&t, &t.entries[0]), "world");
	cr_expect_str_eq(t.entries[0].algo, "Ring");
	cr_expect_str_eq(t.entries[0].proto, "Simple");
	for (size_t i = 1; i < 3; i++) {
		expect_op_bytes(&t, i, TRACE_OP_ALLREDUCE, 131072);
		cr_expect_eq(t.entries[i].dtype, TRACE_DTYPE_BF16);
		cr_assert_eq(t.entries[i].ngroup, 2);
		cr_expect_eq(t.entries[i].group[0], i - 1);
		cr_expect_eq(t.entries[i].group[1], i + 1);
		cr_expect_eq(strncmp(trace_entry_comm(&t, &t.entries[i]), "comm-", 5), 0);
	}
	cr_expect_str_neq(trace_entry_comm(&t, &t.entries[1]), trace_entry_comm(&t, &t.entries[2]));
	cr_expect_str_eq(t.entries[1].algo, "Tree");
	cr_expect_str_eq(t.entries[1].proto, "LL128");
	cr_expect_str_eq(t.entries[2].algo, "Ring");
	cr_expect_str_eq(t.entries[2].proto, "LL");
	expect_op_bytes(&t, 3, TRACE_OP_ALL_GATHER, 16384);
	cr_expect_str_eq(t.entries[3].algo, "Ring");
	cr_expect_str_eq(t.entries[3].proto, "LL");
	trace_destroy(&t);
}

/*
 * NCCL 2.29 through mpirun --tag-output ("[1,0]<stdout>:" glued to the
 * host) and, on two lines, NCCL_DEBUG_TIMESTAMP_FORMAT's stamp: two
 * children of the 2-rank world with the same ranks and color, told apart
 * by childCount; three calls of one ncclGroupStart/End on the world
 * (opCount 1: two all-reduces of 1024 floats and an all-gather of 256
 * floats a rank) are three entries; AlltoAll (2.28+) of 256 halves to
 * each of 2 ranks is the 1 KiB send buffer. By hand: world 4 B
 * (1 float); child 1 all-gather 1024 x 2 ranks x 2 B = 4 KiB bf16;
 * child 2 reduce-scatter 512 x 2 x 4 B = 4 KiB; world 4 KiB, 4 KiB,
 * 256 x 2 x 4 = 2 KiB; alltoall 256 x 2 x 2 = 1 KiB. One file or one a
 * node, in either order, give the same trace.
 */
Test(import_nccl_log, groups_splits_and_alltoall_of_nccl_2_29)
{
	const char *one[] = { LOG("split-2.29.log") };
	const char *two[] = { LOG("split-2.29-node1.log"), LOG("split-2.29-node0.log") };
	const struct trace_entry *ag, *rs;
	struct diag d = { "" };
	struct trace t, u;

	cr_assert_eq(import_as("nccl-log", one, 1, &t, &d), 0, "%s", d.msg);
	cr_assert_eq(t.nentries, 7);
	expect_op_bytes(&t, 0, TRACE_OP_ALLREDUCE, 4);
	cr_expect_str_eq(trace_entry_comm(&t, &t.entries[0]), "world");
	ag = t.entries[1].op == TRACE_OP_ALL_GATHER ? &t.entries[1] : &t.entries[2];
	rs = ag == &t.entries[1] ? &t.entries[2] : &t.entries[1];
	cr_expect_eq(ag->op, TRACE_OP_ALL_GATHER);
	cr_expect_eq(ag->bytes, 4096);
	cr_expect_eq(ag->dtype, TRACE_DTYPE_BF16);
	cr_expect_eq(rs->op, TRACE_OP_REDUCE_SCATTER);
	cr_expect_eq(rs->bytes, 4096);
	cr_expect_eq(rs->dtype, TRACE_DTYPE_FP32);
	cr_expect_eq(ag->ngroup, 2);
	cr_expect_str_neq(trace_entry_comm(&t, ag), trace_entry_comm(&t, rs));
	cr_expect_str_neq(trace_entry_comm(&t, ag), "world");
	cr_expect_str_neq(trace_entry_comm(&t, rs), "world");
	expect_op_bytes(&t, 3, TRACE_OP_ALLREDUCE, 4096);
	expect_op_bytes(&t, 4, TRACE_OP_ALLREDUCE, 4096);
	expect_op_bytes(&t, 5, TRACE_OP_ALL_GATHER, 2048);
	expect_op_bytes(&t, 6, TRACE_OP_ALLTOALL, 1024);
	cr_expect_eq(t.entries[6].dtype, TRACE_DTYPE_FP16);
	cr_expect_eq(t.entries[6].ngroup, 0);
	for (size_t i = 3; i < 7; i++)
		cr_expect_str_eq(trace_entry_comm(&t, &t.entries[i]), "world");
	cr_expect_not_null(find_entry(&t, "world", TRACE_OP_ALLREDUCE, 2));
	cr_assert_eq(import_as("nccl-log", two, 2, &u, &d), 0, "%s", d.msg);
	assert_same(&u, &t);
	trace_destroy(&u);
	trace_destroy(&t);
}

Test(import_nccl_log, faults_of_newer_releases)
{
	static const struct bad_case cases[] = {
		{ "interleaved.log", "interleaved.log:3: line: two processes' NCCL lines run into one (their output interleaved): log one file a process, NCCL_DEBUG_FILE=nccl.%h.%p.log" },
		{ "split-no-parent.log", "split-no-parent.log:2: parent: communicator 0x30 of node0:1001, split from here, has no 'Init COMPLETE' line before it" },
		{ "tuning-2.23-unknown.log", "tuning-2.23-unknown.log:3: tuning: unknown algorithm or protocol '7' / '2'" },
	};

	expect_bad_imports("nccl-log", LOG("bad/"), cases, sizeof(cases) / sizeof(cases[0]));
}

/*
 * NCCL 2.28: the first all-reduce of 4 KiB ran NCCL's symmetric kernel
 * (its TUNING line says "[Symmetric]", no algorithm), the second Ring
 * LL: the Ring line is the second call's, not the first's, which keeps
 * no algo for a replay to tune.
 */
Test(import_nccl_log, symmetric_kernel_lines_of_nccl_2_28)
{
	const char *files[] = { LOG("symmetric-2.28.log") };
	struct diag d = { "" };
	struct trace t;

	cr_assert_eq(import_as("nccl-log", files, 1, &t, &d), 0, "%s", d.msg);
	cr_assert_eq(t.nentries, 2);
	cr_expect_str_eq(t.entries[0].algo, "");
	cr_expect_str_eq(t.entries[0].proto, "");
	cr_expect_str_eq(t.entries[1].algo, "Ring");
	cr_expect_str_eq(t.entries[1].proto, "LL");
	cr_expect_eq(t.entries[1].bytes, 4096);
	trace_destroy(&t);
}

/*
 * A killed job's log ends inside a line: job-4ranks.log cut 40 bytes
 * before its last line (a Destroy line), inside the Recv line before it.
 * That line is left out, the header says so; the same cut line inside
 * the file is still an error.
 */
Test(import_nccl_log, a_last_line_cut_short_is_left_out)
{
	char path[] = "/tmp/gdrlab-cut-XXXXXX", buf[1 << 16];
	FILE *in = fopen(LOG("job-4ranks.log"), "r");
	size_t n = in ? fread(buf, 1, sizeof(buf) - 1, in) : 0;
	const char *files[] = { path };
	struct diag d = { "" };
	struct trace t;
	const char *last;
	int fd = mkstemp(path);

	cr_assert(in && fd >= 0 && n > 40 && n < sizeof(buf) - 1);
	fclose(in);
	buf[n] = '\0';
	last = strstr(buf, "Destroy COMPLETE");
	cr_assert_not_null(last);
	while (last > buf && last[-1] != '\n')
		last--;
	n = (size_t)(last - buf) - 40;
	cr_assert_eq(write(fd, buf, n), (ssize_t)n);
	close(fd);
	cr_assert_eq(import_as("nccl-log", files, 1, &t, &d), 0, "%s", d.msg);
	cr_expect_not_null(strstr(notes.line, "cut short (line "), "%s", notes.line);
	cr_expect_not_null(strstr(notes.line, ", no end), left out"), "%s", notes.line);
	trace_destroy(&t);
	/* the cut line, then a whole one: an error at the cut line */
	fd = open(path, O_WRONLY | O_APPEND);
	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, "\n", 1), 1);
	cr_assert_eq(write(fd, buf, 10), 10);
	close(fd);
	cr_assert_eq(import_as("nccl-log", files, 1, &t, &d), -EINVAL);
	unlink(path);
}
