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
 * into 4096 (the whole 8 KiB) at 1300; the second pair's broadcast of
 * 2048 floats (8 KiB) at 1400, its "Rank" 1 the root's place in [2, 3]:
 * rank 3, as the NCCL log's "root 1" says. The send and its receive name
 * no peer (as before PyTorch 2.5) and are left out, and so are the
 * barrier and the kernels' copies.
 */
Test(import_kineto, four_ranks_one_gzip)
{
	struct trace t, said;
	struct diag d = { "" };
	const struct trace_entry *b;

	cr_assert_eq(import_as("kineto", ranks, 4, &t, &d), 0, "%s", d.msg);
	cr_assert_eq(t.nentries, 5);
	b = &t.entries[4];
	cr_expect_eq(b->op, TRACE_OP_BROADCAST);
	cr_expect_eq(b->bytes, 8192);
	cr_expect_eq(b->dtype, TRACE_DTYPE_FP32);
	cr_expect_eq(b->root, 3);
	cr_expect_eq(b->peer, -1);
	cr_assert_eq(b->ngroup, 2);
	cr_expect_eq(b->group[0], 2);
	cr_expect_eq(b->group[1], 3);
	cr_expect_eq(b->ready_us, 400);
	cr_expect_str_eq(trace_entry_comm(&t, b), "2");
	calls_profilers_say(&t, &said);
	said.niterations = t.niterations;
	assert_the_made_up_run(&said);
	free(said.entries); /* its groups are t's */
	cr_expect_str_eq(notes.line, "left out, counted on each rank that recorded them: 2 point-to-point calls and 0 broadcasts whose peers and roots the profile does not say (PyTorch records them from 2.5; from 2.2 a send's or receive's outside batch_isend_irecv), 0 reduces, gathers, scatters and out-of-place broadcasts (no root recorded), 4 barriers, waits and empty calls");
	trace_destroy(&t);
}

/* The two formats of one run: the same op, bytes and group for each call
 * that both say (all but the send, whose peer these files do not name,
 * and the broadcast, which the Chakra files do not root either: the
 * shared helper leaves both out; four_ranks_one_gzip checks its root
 * against the log's). */
Test(import_kineto, agrees_with_the_nccl_log)
{
	const char *logs[] = { DATA("nccl-log/job-4ranks.log") };
	struct trace k, n, said, ksaid;
	struct diag d = { "" };

	cr_assert_eq(import_as("kineto", ranks, 4, &k, &d), 0, "%s", d.msg);
	cr_assert_eq(import_as("nccl-log", logs, 1, &n, &d), 0, "%s", d.msg);
	calls_profilers_say(&n, &said);
	calls_profilers_say(&k, &ksaid);
	assert_same_calls(&ksaid, &said, false);
	free(said.entries); /* its groups are n's */
	free(ksaid.entries);
	trace_destroy(&k);
	trace_destroy(&n);
}

/* One rank's file alone: its own calls, the world's without a group, the
 * broadcast of its pair from rank 3, whose file is not read. */
Test(import_kineto, one_rank)
{
	const char *files[] = { KT("rank2.json") };
	struct trace t;
	struct diag d = { "" };

	cr_assert_eq(import_as("kineto", files, 1, &t, &d), 0, "%s", d.msg);
	cr_assert_eq(t.nentries, 4);
	cr_expect_eq(t.entries[3].root, 3);
	cr_expect_eq(t.entries[0].ready_us, 102);
	cr_expect_eq(t.entries[1].group[0], 2);
	trace_destroy(&t);
}

/* Entry @i of @t: its bytes, and when it is ready into its iteration. */
static void expect_bytes_ready(const struct trace *t, size_t i, uint64_t bytes, double ready_us)
{
	cr_expect_eq(t->entries[i].bytes, bytes, "entry %zu", i);
	cr_expect_eq(t->entries[i].ready_us, ready_us, "entry %zu", i);
}

/*
 * Two steps, their events out of order in the file: the steps sorted by
 * start (ProfilerStep#7 at 10000 us, #8 at 20000), each call in the step
 * whose span holds it and ready from that step's start, the entries by
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
	expect_bytes_ready(&t, 0, 4096, 2500);
	expect_bytes_ready(&t, 1, 1024, 6000.5);
	cr_expect_eq(t.entries[2].iteration, 1);
	cr_expect_eq(t.entries[2].ready_us, 1000);
	cr_expect_eq(t.entries[3].ready_us, 6000.5);
	trace_destroy(&t);
}

/*
 * The same two steps and a third between them with no call (a warm-up,
 * an accumulation step; named #9, at 19000 us): the steps with calls are
 * the iterations, 0 and 1, as a trace's must follow one another (the
 * third made the second's calls iteration 2 of 3, one of them empty).
 */
Test(import_kineto, a_step_without_calls_is_no_iteration)
{
	const char *files[] = { KT("step-without-calls.json") };
	struct trace t;
	struct diag d = { "" };

	cr_assert_eq(import_as("kineto", files, 1, &t, &d), 0, "%s", d.msg);
	cr_assert_eq(t.nentries, 4);
	cr_expect_eq(t.niterations, 2);
	cr_expect_eq(t.entries[1].iteration, 0);
	cr_expect_eq(t.entries[2].iteration, 1);
	cr_expect_eq(t.entries[2].ready_us, 1000); /* from #8's start, not #9's */
	trace_destroy(&t);
}

/*
 * A call is in the step whose span holds it (docs/import-kineto.md):
 * ProfilerStep#3 at 10000-20000 us and #4 at 25000-35000 on rank 0's
 * clock, 100000 us later on rank 1's. Of the all-reduces of 1024, 2048,
 * ... 65536 floats at 5000 (before #3), 15000, 20000 (#3's end), 22000
 * (between the steps), 30000, 35000 (#4's end; rank 1's 0.5 us after
 * it) and 40000 (after #4), four are in no step on some rank and left
 * out, said in the header; the others are ready from their step's start.
 */
Test(import_kineto, calls_outside_the_steps_are_left_out)
{
	const char *files[] = { KT("outside-steps-rank0.json"), KT("outside-steps-rank1.json") };
	struct trace t;
	struct diag d = { "" };

	cr_assert_eq(import_as("kineto", files, 2, &t, &d), 0, "%s", d.msg);
	cr_assert_eq(t.nentries, 3);
	cr_expect_eq(t.niterations, 2);
	cr_expect_eq(t.entries[0].iteration, 0);
	expect_bytes_ready(&t, 0, 8192, 5000);
	cr_expect_eq(t.entries[1].iteration, 0);
	expect_bytes_ready(&t, 1, 16384, 10000);
	cr_expect_eq(t.entries[2].iteration, 1);
	expect_bytes_ready(&t, 2, 65536, 5000);
	cr_expect_str_eq(notes.line, "4 collectives outside every ProfilerStep span on some rank (before the first step, between two, after the last), left out");
	trace_destroy(&t);
}

/* No step at all: one iteration, ready from the file's earliest call
 * (10000 us, its second event), said in the header. */
Test(import_kineto, no_steps_is_one_iteration_said)
{
	const char *files[] = { KT("no-steps.json") };
	struct trace t;
	struct diag d = { "" };

	cr_assert_eq(import_as("kineto", files, 1, &t, &d), 0, "%s", d.msg);
	cr_assert_eq(t.nentries, 3);
	cr_expect_eq(t.niterations, 1);
	expect_bytes_ready(&t, 0, 4096, 0);
	expect_bytes_ready(&t, 1, 16384, 15000);
	expect_bytes_ready(&t, 2, 8192, 20000);
	cr_expect_str_eq(notes.line, "no ProfilerStep in the profile: the calls are one iteration, each file's ready from its first call");
	trace_destroy(&t);
}

/*
 * Without distributedInfo a file's rank is read from a call's "Rank",
 * which ProcessGroupNCCL records as its rank_, the place in the call's
 * group: on group [2, 3] places 0 and 1 are ranks 2 and 3 (they were
 * named ranks 0 and 1, in no such group). The two files' calls differ in
 * size, which the message says of those ranks.
 */
Test(import_kineto, a_subgroup_place_is_a_global_rank)
{
	const char *files[] = { KT("bad/subgroup-rank2.json"), KT("bad/subgroup-rank3.json") };
	struct trace t;
	struct diag d = { "" };

	cr_assert_eq(import_as("kineto", files, 2, &t, &d), -EINVAL);
	cr_expect(strstr(d.msg, "rank 3's call 0 of group '2' is allreduce of 8388608 bytes, "
				"rank 2's ("), "%s", d.msg);
}

/*
 * ProcessGroupNCCL::_broadcast_oop records the file's own rank_ as
 * "Rank", not its root: the out-of-place broadcast is left out, counted
 * in the header, not an unknown collective (nor rank 1 taken as root).
 */
Test(import_kineto, an_out_of_place_broadcast_is_left_out)
{
	const char *files[] = { KT("broadcast-oop.json") };
	struct trace t;
	struct diag d = { "" };

	cr_assert_eq(import_as("kineto", files, 1, &t, &d), 0, "%s", d.msg);
	cr_assert_eq(t.nentries, 1);
	cr_expect_eq(t.entries[0].op, TRACE_OP_ALLREDUCE);
	cr_expect(strstr(notes.line, " 1 reduces, gathers, scatters and out-of-place broadcasts"),
		  "%s", notes.line);
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
		/* PyTorch 2.5's sends: the peer must be in the group, and the
		 * file's rank is distributedInfo's (a send's "Rank" is its peer's) */
		{ "p2p-peer-outside.json", "p2p-peer-outside.json:16: Dst Rank: rank 3 is not in process group '3' (2 ranks from 0)" },
		{ "p2p-no-rank.json", "p2p-no-rank.json:10: Rank: no distributedInfo says this file's rank (a send's own 'Rank' is its peer's)" },
		{ "event-not-object.json", "event-not-object.json:1: traceEvents: expected an event object" },
		/* a clock no trace can hold (kineto's epoch microseconds on a
		 * call, the step's from 0): refused at the call, not written */
		{ "clock-jump.json", "clock-jump.json:16: ts: 1700000025980500 us after its profiler step's start, beyond 1e+12 us (11.6 days)" },
		/* every call outside the steps: nothing to replay */
		{ "all-outside-steps.json", "all-outside-steps.json: steps: each of the 2 calls is outside every profiler step's span (before the first, between two, after the last): none to replay" },
		/* jansson's quote of the text near a bad escape holds the newline */
		{ "bad-escape.json", "bad-escape.json:1: traceEvents: an event that is not a JSON object: invalid escape near" },
		/* PyTorch before 2.1: the call's kernel says what it is */
		{ "old-unknown-suffix.json", "old-unknown-suffix.json:15: name: type suffix 'f128' is not one NCCL writes (f16, f32, bf16, f64, i8, u8, ...)" },
		{ "old-no-kernel.json", "old-no-kernel.json:12: External id: no NCCL kernel has External id 11 (profile with ProfilerActivity.CUDA)" },
		{ "old-wrong-kernel.json", "old-wrong-kernel.json:15: name: an NCCL AllGather kernel, for the nccl:all_reduce on line 12" },
		/* an all_to_allv's splits: whole numbers, one a place */
		{ "splits-not-numbers.json", "splits-not-numbers.json:18: In split size: expected a list of whole numbers, like \"[1000, 3000]\"" },
		{ "splits-wrong-length.json", "splits-wrong-length.json:18: Out split size: 2 places where 'In split size' has 3" },
		/* an all-gather's output is its input x the group's ranks */
		{ "gather-nelems.json", "gather-nelems.json:18: Out msg nelems: 4097 elements is not In msg nelems 1024 x the group's 4 ranks" },
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

static const char *const old_ranks[] = { KT("old-rank0.json"), KT("old-rank1.json"), KT("old-rank2.json"),
					 KT("old-rank3.json") };

/* The entries of @t at @idx, a view (free v->entries only). */
static void pick(const struct trace *t, const size_t *idx, size_t n, struct trace *v)
{
	memset(v, 0, sizeof(*v));
	v->entries = calloc(n, sizeof(*v->entries));
	cr_assert_not_null(v->entries);
	for (size_t i = 0; i < n; i++) {
		cr_assert_lt(idx[i], t->nentries);
		v->entries[v->nentries++] = t->entries[idx[i]];
	}
}

/*
 * PyTorch before 2.1 (old-rank*.json, README): the run's world calls as
 * nccl:* events with "Input Dims" and their kernels' types, told that
 * every call is every rank's: the new-style files' world all-reduce and
 * all-gather, times and all, and the barrier as NCCL ran it, an
 * all-reduce of one byte at 3000 us.
 */
Test(import_kineto, old_style_is_the_same_run)
{
	static const size_t old_world[] = { 0, 1 }, new_world[] = { 0, 3 };
	struct import_options o = { .world = 4 };
	struct trace old, neu, a, b;
	struct diag d = { "" };

	cr_assert_eq(import_told("kineto", old_ranks, 4, &o, &old, &d), 0, "%s", d.msg);
	cr_expect_str_eq(notes.line, "left out, counted on each rank that recorded them: 2 point-to-point calls and 2 broadcasts whose peers and roots the profile does not say (PyTorch records them from 2.5; from 2.2 a send's or receive's outside batch_isend_irecv), 0 reduces, gathers, scatters and out-of-place broadcasts (no root recorded), 0 barriers, waits and empty calls");
	cr_assert_eq(import_as("kineto", ranks, 4, &neu, &d), 0, "%s", d.msg);
	cr_assert_eq(old.nentries, 3);
	pick(&old, old_world, 2, &a);
	pick(&neu, new_world, 2, &b);
	assert_same_calls(&a, &b, true);
	cr_expect_eq(old.entries[2].op, TRACE_OP_ALLREDUCE);
	cr_expect_eq(old.entries[2].bytes, 1);
	cr_expect_eq(old.entries[2].dtype, TRACE_DTYPE_INT8);
	cr_expect_eq(old.entries[2].ready_us, 3000);
	free(a.entries);
	free(b.entries);
	trace_destroy(&old);
	trace_destroy(&neu);
}

/* NCCL 2.19's kernel names and older kineto's "external id": the same. */
Test(import_kineto, old_style_nccl_2_19)
{
	const char *files[] = { KT("old-nccl-2.19.json") };
	struct import_options o = { .world = 4 };
	struct trace t, want;
	struct diag d = { "" };

	cr_assert_eq(import_told("kineto", files, 1, &o, &t, &d), 0, "%s", d.msg);
	cr_assert_eq(import_told("kineto", old_ranks, 1, &o, &want, &d), 0, "%s", d.msg);
	assert_same_calls(&t, &want, true);
	trace_destroy(&t);
	trace_destroy(&want);
}

/* What an old trace does not say is asked for; calls on two streams (two
 * communicators) cannot be every rank's. */
Test(import_kineto, old_style_asks)
{
	const char *two[] = { KT("bad/old-two-streams.json") }, *untyped[] = { KT("bad/old-no-type.json") };
	struct import_options o = { .world = 4 };
	struct trace t;
	struct diag d = { "" };

	cr_assert_eq(import_as("kineto", old_ranks, 1, &t, &d), -EINVAL);
	cr_expect_str_eq(d.msg, KT("old-rank0.json") ":12: group: nccl:all_reduce names no process group (PyTorch before 2.1): give --world N if every call is every rank's");
	o.world = 8;
	cr_assert_eq(import_told("kineto", old_ranks, 1, &o, &t, &d), -EINVAL);
	cr_expect_str_eq(d.msg, KT("old-rank0.json") ":12: group: --world 8, and distributedInfo's world_size is 4");
	o.world = 4;
	cr_assert_eq(import_told("kineto", two, 1, &o, &t, &d), -EINVAL);
	cr_expect_not_null(strstr(d.msg, "old-two-streams.json:21: stream: this file's NCCL kernels run on streams 13 and 7 (line 15), one a communicator, and a trace before PyTorch 2.1 does not say whose each call is"),
			   "%s", d.msg);
	cr_assert_eq(import_told("kineto", untyped, 1, &o, &t, &d), -EINVAL);
	cr_expect_not_null(strstr(d.msg, "old-no-type.json:18: Input type: missing, and its kernel (line 21) names no type: give --dtype"),
			   "%s", d.msg);
	cr_expect_null(t.entries);
}

/* A new-style call without its type or group: asked for, then given. */
Test(import_kineto, what_is_not_said_is_asked_for)
{
	const char *files[] = { KT("no-groups.json") };
	struct import_options o = { 0 };
	struct trace t;
	struct diag d = { "" };

	cr_assert_eq(import_as("kineto", files, 1, &t, &d), -EINVAL);
	cr_expect_not_null(strstr(d.msg, "no-groups.json:6: Process Group Ranks: missing: give --group 0=RANKS, or --world N if the call is every rank's"),
			   "%s", d.msg);
	cr_assert_eq(import_options_world(&o, "4", &d), 0);
	cr_assert_eq(import_told("kineto", files, 1, &o, &t, &d), -EINVAL);
	cr_expect_not_null(strstr(d.msg, "no-groups.json:9: dtype: missing: give --dtype"), "%s", d.msg);
	cr_assert_eq(import_options_dtype(&o, "bf16", &d), 0);
	cr_assert_eq(import_options_group(&o, "1=0,1", &d), 0);
	cr_assert_eq(import_told("kineto", files, 1, &o, &t, &d), 0, "%s", d.msg);
	cr_assert_eq(t.nentries, 2);
	cr_expect_eq(t.entries[0].ngroup, 0); /* --world's every rank */
	cr_expect_eq(t.entries[1].dtype, TRACE_DTYPE_BF16);
	cr_expect_eq(t.entries[1].bytes, 2097152);
	cr_assert_eq(t.entries[1].ngroup, 2);
	cr_expect_eq(t.entries[1].group[1], 1);
	trace_destroy(&t);
	import_options_free(&o);
}

/*
 * Rank 0 of 64 (big-world.json): the profiler cuts "Process Group Ranks"
 * past 30. The world's, in PyTorch 2.1-2.x's form "[0, 1, ..., 29, ...]"
 * with "Group size" 64 = distributedInfo's world_size: every rank, no
 * group; 1048576 floats = 4 MiB. The even ranks' group, in the later
 * form "[0, 2, ..., 56, ..., 62]" (the first 29 and the last), with
 * "Global rank start" 0 and "Global rank stride" 2: the 32 ranks 0, 2,
 * .., 62; 524288 bfloat16 = 1 MiB. kineto's GPU copies of ProfilerStep#3
 * and #4 ("gpu_user_annotation", at 1500 and 11600 us, on the GPU's
 * clock) are not steps: the calls at 1100 and 2000 are step 3's, 100 and
 * 1000 us in, the one at 11100 step 4's, 100 us in. The NCCL kernels
 * carry copies of the arguments and are not counted.
 */
Test(import_kineto, ranks_past_30_and_gpu_steps)
{
	const char *files[] = { KT("big-world.json") };
	struct trace t;
	struct diag d = { "" };

	cr_assert_eq(import_as("kineto", files, 1, &t, &d), 0, "%s", d.msg);
	cr_assert_eq(t.nentries, 3);
	cr_expect_eq(t.niterations, 2);
	cr_expect_eq(t.entries[0].bytes, 4194304);
	cr_expect_eq(t.entries[0].ngroup, 0);
	cr_expect_eq(t.entries[0].iteration, 0);
	cr_expect_eq(t.entries[0].ready_us, 100);
	cr_expect_eq(t.entries[1].bytes, 1048576);
	cr_expect_eq(t.entries[1].dtype, TRACE_DTYPE_BF16);
	cr_expect_eq(t.entries[1].iteration, 0);
	cr_expect_eq(t.entries[1].ready_us, 1000);
	cr_assert_eq(t.entries[1].ngroup, 32);
	for (unsigned i = 0; i < 32; i++)
		cr_expect_eq(t.entries[1].group[i], 2 * i);
	cr_expect_eq(t.entries[2].iteration, 1);
	cr_expect_eq(t.entries[2].ready_us, 100);
	cr_expect_eq(t.entries[2].ngroup, 0);
	trace_destroy(&t);
}

/*
 * A group of 40 ranks, 0-19 and 32-51, cut to 30 and not evenly spaced
 * ("Global rank stride" -1): its ranks are asked for, and --group says
 * them. reduce_scatter_tensor's input, 40 x 65536 bfloat16 = 5 MiB.
 */
Test(import_kineto, cut_ranks_are_asked_for)
{
	const char *files[] = { KT("bad/cut-ranks.json") };
	struct import_options o = { 0 };
	struct trace t;
	struct diag d = { "" };

	cr_assert_eq(import_as("kineto", files, 1, &t, &d), -EINVAL);
	cr_expect_not_null(strstr(d.msg, "cut-ranks.json:18: Process Group Ranks: the profiler lists only 30 of the group's 40 ranks (it cuts a list past 30): give --group 2=RANKS, or --world N if they are every rank"),
			   "%s", d.msg);
	cr_assert_eq(import_options_group(&o, "2=0-19,32-50", &d), 0);
	cr_assert_eq(import_told("kineto", files, 1, &o, &t, &d), -EINVAL);
	cr_expect_not_null(strstr(d.msg, "--group 2 gives 39 ranks, the profile 40"), "%s", d.msg);
	import_options_free(&o);
	memset(&o, 0, sizeof(o));
	cr_assert_eq(import_options_group(&o, "2=0-19,32-51", &d), 0);
	cr_assert_eq(import_told("kineto", files, 1, &o, &t, &d), 0, "%s", d.msg);
	cr_assert_eq(t.nentries, 1);
	cr_expect_eq(t.entries[0].op, TRACE_OP_REDUCE_SCATTER);
	cr_expect_eq(t.entries[0].bytes, 5242880);
	cr_assert_eq(t.entries[0].ngroup, 40);
	cr_expect_eq(t.entries[0].group[19], 19);
	cr_expect_eq(t.entries[0].group[20], 32);
	cr_expect_eq(t.entries[0].group[39], 51);
	trace_destroy(&t);
	import_options_free(&o);
}

/*
 * An on-demand trace (kineto's own distributedInfo, with its pg_config,
 * written after traceEvents: libkineto output_json.cpp,
 * addOnDemandDistMetadata) of rank 2: the same trace as rank2.json's,
 * the file's rank from each call's "Rank" until distributedInfo comes.
 */
Test(import_kineto, distributed_info_after_the_events)
{
	const char *late[] = { KT("on-demand-rank2.json") }, *early[] = { KT("rank2.json") };
	struct trace a, b;
	struct diag d = { "" };

	cr_assert_eq(import_as("kineto", late, 1, &a, &d), 0, "%s", d.msg);
	cr_assert_eq(import_as("kineto", early, 1, &b, &d), 0, "%s", d.msg);
	cr_expect_eq(a.nentries, 4); /* the broadcast's root is not its rank */
	assert_same_calls(&a, &b, true);
	trace_destroy(&a);
	trace_destroy(&b);
}

static const char *const pp_ranks[] = { KT("pp-rank0.json"), KT("pp-rank1.json"),
					KT("pp-rank2.json"), KT("pp-rank3.json") };

static void expect_p2p(const struct trace *t, size_t i, unsigned iteration, int src, int dst,
		       double ready_us)
{
	const struct trace_entry *e = &t->entries[i];
	/* the pipeline groups, "3" = [0, 2] and "4" = [1, 3] (PyTorch names
	 * groups "0", "1", ... in the order every rank makes them) */
	unsigned lo = src < dst ? (unsigned)src : (unsigned)dst;

	cr_expect_eq(e->op, TRACE_OP_SENDRECV, "entry %zu", i);
	cr_expect_eq(e->iteration, iteration, "entry %zu", i);
	cr_expect_eq(e->root, src, "entry %zu", i);
	cr_expect_eq(e->peer, dst, "entry %zu", i);
	cr_expect_eq(e->bytes, 2097152, "entry %zu", i);
	cr_expect_eq(e->dtype, TRACE_DTYPE_BF16, "entry %zu", i);
	cr_expect_eq(e->ready_us, ready_us, "entry %zu", i);
	cr_assert_eq(e->ngroup, 2, "entry %zu", i);
	cr_expect_eq(e->group[0], lo, "entry %zu", i);
	cr_expect_eq(e->group[1], lo + 2, "entry %zu", i);
	cr_expect_str_eq(trace_entry_comm(t, e), lo == 0 ? "3" : "4", "entry %zu", i);
}

/* A step's 8 sends of the pipeline below, from entry @b: activations 0 -> 2
 * and 1 -> 3 at 100 and 200 us, gradients back at 450 and 550. */
/* Entries @at and @at + 1: each stage's all-reduce of 16 MiB at 800 us,
 * on [0, 1] and then [2, 3]. */
static void expect_stage_allreduces(const struct trace *t, size_t at)
{
	for (size_t j = 0; j < 2; j++) {
		const struct trace_entry *e = &t->entries[at + j];

		cr_expect_eq(e->op, TRACE_OP_ALLREDUCE);
		cr_expect_eq(e->bytes, 16777216);
		cr_expect_eq(e->ready_us, 800);
		cr_assert_eq(e->ngroup, 2);
		cr_expect_eq(e->group[0], j ? 2u : 0u);
	}
}

static void expect_pipeline_step(const struct trace *t, size_t b, unsigned it)
{
	static const struct { int src, dst; double ready; } sends[] = {
		{ 0, 2, 100 }, { 1, 3, 100 }, { 0, 2, 200 }, { 1, 3, 200 },
		{ 2, 0, 450 }, { 3, 1, 450 }, { 2, 0, 550 }, { 3, 1, 550 },
	};

	for (size_t i = 0; i < sizeof(sends) / sizeof(sends[0]); i++)
		expect_p2p(t, b + i, it, sends[i].src, sends[i].dst, sends[i].ready);
}

/*
 * A two-stage pipeline on 4 ranks (pp-rank*.json, PyTorch 2.5's
 * arguments): stage 0 is ranks 0 and 1, stage 1 ranks 2 and 3; each
 * stage rank sends its 1048576 bfloat16 activations (2 MiB) of two
 * micro-batches to its peer on its pipeline group (0 -> 2 at 100 and 200
 * us into the step, the receives at 150 and 250 on rank 2's clock) and
 * gets their gradients back (2 -> 0 at 450 and 550, received at 500 and
 * 600); a world broadcast of 1024 floats at 10 whose "Rank" 2 is the
 * root; each stage's all-reduce of 4194304 floats (16 MiB) at 800. Two
 * steps, the same. By hand: per step 11 entries, each send/recv once,
 * ready at its sender's time, ties by the kept copy's rank.
 */
Test(import_kineto, pipeline_sends_and_receives)
{
	struct trace t;
	struct diag d = { "" };

	cr_assert_eq(import_as("kineto", pp_ranks, 4, &t, &d), 0, "%s", d.msg);
	cr_assert_eq(t.nentries, 22);
	cr_expect_eq(t.niterations, 2);
	cr_expect_str_eq(notes.line, "");
	for (unsigned it = 0; it < 2; it++) {
		size_t b = 11 * it;
		const struct trace_entry *e = &t.entries[b];

		cr_expect_eq(e->op, TRACE_OP_BROADCAST);
		cr_expect_eq(e->iteration, it);
		cr_expect_eq(e->root, 2);
		cr_expect_eq(e->bytes, 4096);
		cr_expect_eq(e->ngroup, 0);
		cr_expect_eq(e->ready_us, 10);
		expect_pipeline_step(&t, b + 1, it);
		expect_stage_allreduces(&t, b + 9);
	}
	trace_destroy(&t);
}

/*
 * Stage 0's files alone: its sends are entries (the peers from "Dst
 * Rank"), and so are its receives, from "Src Rank", ready at the
 * receiver's 500 and 600 (no sender's file to time them); stage 1's
 * all-reduce is not seen. 10 a step.
 */
Test(import_kineto, one_side_of_the_pipeline)
{
	const char *files[] = { KT("pp-rank0.json"), KT("pp-rank1.json") };
	struct trace t;
	struct diag d = { "" };

	cr_assert_eq(import_as("kineto", files, 2, &t, &d), 0, "%s", d.msg);
	cr_assert_eq(t.nentries, 20);
	expect_p2p(&t, 1, 0, 0, 2, 100);
	expect_p2p(&t, 4, 0, 1, 3, 200);
	expect_p2p(&t, 5, 0, 2, 0, 500);
	expect_p2p(&t, 8, 0, 3, 1, 600);
	cr_expect_eq(t.entries[9].op, TRACE_OP_ALLREDUCE);
	cr_expect_eq(t.entries[9].group[0], 0);
	cr_expect_eq(t.entries[10].op, TRACE_OP_BROADCAST);
	cr_expect_eq(t.entries[10].iteration, 1);
	trace_destroy(&t);
}

/*
 * batch_isend_irecv in PyTorch 2.5's form (batch-rank*.json): rank 0
 * sends to 1 and receives from 1, rank 1 receives from 0 and sends to 0,
 * each ending its batch with "nccl:coalesced": one batch of the two
 * sends, though each rank's is its own launch. A send with its own
 * "nccl:send 0->1" title is outside a batch; so is one whose rank's next
 * event is an all-reduce, though a "nccl:coalesced" comes after it.
 */
Test(import_kineto, a_batch_isend_irecv_is_one_batch_of_both_ranks)
{
	const char *files[] = { KT("batch-rank0.json"), KT("batch-rank1.json") };
	struct diag d = { "" };
	struct trace t;

	cr_assert_eq(import_as("kineto", files, 2, &t, &d), 0, "%s", d.msg);
	cr_assert_eq(t.nentries, 5);
	cr_expect_eq(t.entries[0].root, 0);
	cr_expect_eq(t.entries[1].root, 1);
	cr_expect(t.entries[0].batched);
	cr_expect(t.entries[1].batched);
	cr_expect_eq(t.entries[0].batch, t.entries[1].batch);
	cr_expect_not(t.entries[2].batched);
	cr_expect_not(t.entries[3].batched);
	cr_expect_eq(t.entries[4].op, TRACE_OP_ALLREDUCE);
	cr_expect_not_null(strstr(notes.line, "1 batch_isend_irecv of several sends"), "%s",
			   notes.line);
	trace_destroy(&t);
}

static const char *const pp24_ranks[] = { KT("pp24-rank0.json"), KT("pp24-rank1.json"),
					  KT("pp24-rank2.json"), KT("pp24-rank3.json") };

/*
 * The same pipeline as PyTorch 2.2 to 2.4 profile it (pp24-rank*.json):
 * no "Rank", "Dst Rank" or "Src Rank". Each send's and receive's peer is
 * the second place of the "nccl:send 0->1" / "nccl:recv 0<-1" title
 * opened inside it, in its group ([0, 2] or [1, 3]): the same 8 sends a
 * step as pp-rank*.json's arguments say (kineto's GPU copies of the
 * titles, on the stream, are not read). The broadcasts (no root before
 * 2.5: 4 files x 2 steps) and rank 0's send inside a batch (no title of
 * its own: 2 steps) are left out. By hand: per step 10 entries.
 */
Test(import_kineto, pipeline_peers_from_titles)
{
	struct trace t;
	struct diag d = { "" };

	cr_assert_eq(import_as("kineto", pp24_ranks, 4, &t, &d), 0, "%s", d.msg);
	cr_assert_eq(t.nentries, 20);
	cr_expect_eq(t.niterations, 2);
	cr_expect_str_eq(notes.line, "left out, counted on each rank that recorded them: 2 point-to-point calls and 8 broadcasts whose peers and roots the profile does not say (PyTorch records them from 2.5; from 2.2 a send's or receive's outside batch_isend_irecv), 0 reduces, gathers, scatters and out-of-place broadcasts (no root recorded), 0 barriers, waits and empty calls");
	for (unsigned it = 0; it < 2; it++) {
		size_t b = 10 * it;

		expect_pipeline_step(&t, b, it);
		expect_stage_allreduces(&t, b + 8);
	}
	trace_destroy(&t);
}

/* A title's places are checked: in the call's group, and the first one
 * this file's rank. */
Test(import_kineto, titles_that_do_not_fit)
{
	const char *outside[] = { KT("bad/p2p-title-outside.json") };
	const char *not_mine[] = { KT("bad/p2p-title-not-mine.json") };
	struct trace t;
	struct diag d = { "" };

	cr_assert_eq(import_as("kineto", outside, 1, &t, &d), -EINVAL);
	cr_expect(strstr(d.msg, "p2p-title-outside.json:106: nccl:send 0->5: place 5 is not in process group '3' (2 ranks, places 0 to 1)") != NULL,
		  "%s", d.msg);
	cr_assert_eq(import_as("kineto", not_mine, 1, &t, &d), -EINVAL);
	cr_expect(strstr(d.msg, "p2p-title-not-mine.json:106: nccl:send 1->0: place 1 of process group '3' is rank 2, but distributedInfo says this file is rank 0's") != NULL,
		  "%s", d.msg);
}

/* Both ranks' files read, rank 2 receives twice from rank 0, which sends
 * once: the second receive has no send, said with rank 0's file. */
Test(import_kineto, a_recv_without_its_send)
{
	const char *files[] = { KT("bad/p2p-lone-rank0.json"), KT("bad/p2p-lone-rank2.json") };
	struct trace t;
	struct diag d = { "" };

	cr_assert_eq(import_as("kineto", files, 2, &t, &d), -EINVAL);
	cr_expect(strstr(d.msg, "p2p-lone-rank2.json:41: Src Rank: rank 2's recv 1 from rank 0 on group '3' has no send in rank 0's file (") != NULL,
		  "%s", d.msg);
	cr_expect(strstr(d.msg, "p2p-lone-rank0.json)") != NULL, "%s", d.msg);
}

/*
 * A broadcast of group "2" that lists no ranks, with --world 4: its
 * "Rank" 1 is the world's rank 1, but group "2" is [2, 3] by its other
 * call, whose communicator it is on: the root is not in it (found by the
 * fuzz target, as a trace that did not read back).
 */
Test(import_kineto, a_root_outside_its_communicator)
{
	const char *files[] = { KT("bad/broadcast-no-ranks.json") };
	struct import_options o = { .world = 4 };
	struct trace t;
	struct diag d = { "" };

	cr_assert_eq(import_told("kineto", files, 1, &o, &t, &d), -EINVAL);
	cr_expect(strstr(d.msg, "broadcast-no-ranks.json:27: Process Group Ranks: rank 1 is not in process group '2' as its other calls list it (2 ranks from 2)") != NULL,
		  "%s", d.msg);
}

/*
 * An uneven all-to-all (tests/data/kineto/uneven-rank*.json): rank 0
 * sends 1000 and 3000 floats to ranks 0 and 1, rank 1 500 and 200. Over
 * the network rank 0 sends 3000 and receives 500, rank 1 sends 500 and
 * receives 3000: the fullest moves 3000 floats, which an even all-to-all
 * of 2 ranks sends to the other rank when its buffer is 2 x 3000 floats,
 * 24000 bytes. Each file's splits say as much, so rank 1's alone gives
 * the same; the header says the call was uneven either way. The even
 * all-to-all after it (2048 floats on both) is 8192 bytes, not counted.
 */
Test(import_kineto, uneven_all_to_all_takes_the_fullest_rank)
{
	const char *both[] = { KT("uneven-rank0.json"), KT("uneven-rank1.json") };
	const char *one[] = { KT("uneven-rank1.json") };
	struct diag d = { "" };
	struct trace t;

	cr_assert_eq(import_as("kineto", both, 2, &t, &d), 0, "%s", d.msg);
	cr_assert_eq(t.nentries, 2);
	cr_expect_eq(t.entries[0].op, TRACE_OP_ALLTOALL);
	cr_expect_eq(t.entries[0].bytes, 24000);
	cr_expect_eq(t.entries[1].bytes, 8192);
	cr_expect(strstr(notes.line, "1 all-to-all uneven across ranks (all_to_allv), each replayed even"),
		  "%s", notes.line);
	trace_destroy(&t);

	cr_assert_eq(import_as("kineto", one, 1, &t, &d), 0, "%s", d.msg);
	cr_expect_eq(t.entries[0].bytes, 24000);
	cr_expect(strstr(notes.line, "1 all-to-all uneven"), "%s", notes.line);
	trace_destroy(&t);
}

/*
 * An all-gather and a reduce-scatter of unequal shares
 * (tests/data/kineto/uneven-shares-rank*.json): each rank records its own
 * share times the 2 ranks, rank 0 1000 and 500 floats, rank 1 3000 and
 * 1500. The whole buffers are the shares added, 4000 floats (16000 bytes)
 * and 2000 (8000); an even all-gather after them (1024 floats a rank,
 * 8192 bytes) is not counted. One rank's file alone cannot tell: its own
 * share times 2 (24000 and 12000 bytes), nothing said.
 */
Test(import_kineto, unequal_shares_take_their_sum)
{
	const char *both[] = { KT("uneven-shares-rank0.json"), KT("uneven-shares-rank1.json") };
	const char *one[] = { KT("uneven-shares-rank1.json") };
	struct diag d = { "" };
	struct trace t;

	cr_assert_eq(import_as("kineto", both, 2, &t, &d), 0, "%s", d.msg);
	cr_assert_eq(t.nentries, 3);
	cr_expect_eq(t.entries[0].op, TRACE_OP_ALL_GATHER);
	cr_expect_eq(t.entries[0].bytes, 16000);
	cr_expect_eq(t.entries[1].op, TRACE_OP_REDUCE_SCATTER);
	cr_expect_eq(t.entries[1].bytes, 8000);
	cr_expect_eq(t.entries[2].bytes, 8192);
	cr_expect(strstr(notes.line, "2 all-gathers or reduce-scatters of unequal shares across ranks"),
		  "%s", notes.line);
	cr_expect_null(strstr(notes.line, "all-to-all"), "%s", notes.line);
	trace_destroy(&t);

	cr_assert_eq(import_as("kineto", one, 1, &t, &d), 0, "%s", d.msg);
	cr_expect_eq(t.entries[0].bytes, 24000);
	cr_expect_eq(t.entries[1].bytes, 12000);
	cr_expect_null(strstr(notes.line, "unequal"), "%s", notes.line);
	trace_destroy(&t);
}
