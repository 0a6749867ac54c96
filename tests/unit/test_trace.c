/* SPDX-License-Identifier: MIT */
/*
 * The JSON Lines trace reader and writer: good traces read to the values
 * written, every bad file in tests/data/bad-trace/ fails with its own
 * one-line message, and what trace_write emits reads back equal.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

/* Present only in sanitizer builds: LSan's findings do not fail a
 * Criterion test by themselves (docs: shared/notes/dependencies.md). */
extern int __lsan_do_recoverable_leak_check(void) __attribute__((weak));

static void expect_no_leaks(void)
{
	if (__lsan_do_recoverable_leak_check)
		cr_expect_eq(__lsan_do_recoverable_leak_check(), 0,
			     "memory leaked");
}

static const char good[] =
	"# a comment line\n"
	"{\"iteration\": 0, \"op\": \"allreduce\", \"bytes\": 26214400, "
	"\"dtype\": \"bf16\", \"ready_us\": 1520.5, \"compute_us\": 4100}\n"
	"   \n"
	"{\"iteration\": 0, \"op\": \"all_reduce\", \"bytes\": 1024, "
	"\"dtype\": \"float\", \"ready_us\": 3000, \"redop\": \"avg\"}\r\n"
	"{\"iteration\": 1, \"op\": \"reducescatter\", \"bytes\": 8, "
	"\"dtype\": \"double\", \"group\": [3, 1, 2]}\n"
	"{\"iteration\": 1, \"op\": \"allgather\", \"bytes\": 2, "
	"\"dtype\": \"half\", \"compute_us\": 10.25}\n"
	"{\"iteration\": 2, \"op\": \"broadcast\", \"bytes\": 1, "
	"\"dtype\": \"int8\", \"group\": [7, 8], \"root\": 8}\n"
	"{\"iteration\": 2, \"op\": \"send_recv\", \"bytes\": 4, "
	"\"dtype\": \"bfloat16\", \"src\": 0, \"dst\": 9}\n"
	"  # an indented comment\n"
	"{\"bytes\": 16, \"dtype\": \"float64\", \"op\": \"alltoall\", "
	"\"iteration\": 3}";

Test(trace, good_trace_reads_as_written)
{
	struct trace t;
	struct diag d = { "" };
	const struct trace_entry *e;

	cr_assert_eq(trace_load_buffer(good, strlen(good), "good.jsonl", &t,
				       &d),
		     0, "%s", d.msg);
	cr_assert_eq(t.nentries, 7);
	cr_expect_eq(t.niterations, 4);
	cr_expect_str_eq(t.file, "good.jsonl");

	e = &t.entries[0];
	cr_expect_eq(e->line, 2);
	cr_expect_eq(e->iteration, 0);
	cr_expect_eq(e->op, TRACE_OP_ALLREDUCE);
	cr_expect_eq(e->dtype, TRACE_DTYPE_BF16);
	cr_expect_eq(e->bytes, 26214400);
	cr_expect_eq(e->ready_us, 1520.5);
	cr_expect_eq(e->compute_us, 4100);
	cr_expect_eq(e->root, -1);
	cr_expect_eq(e->peer, -1);
	cr_expect_eq(e->ngroup, 0);
	cr_expect_null(e->group);

	e = &t.entries[1]; /* alias, CRLF, defaults */
	cr_expect_eq(e->line, 4);
	cr_expect_eq(e->op, TRACE_OP_ALLREDUCE);
	cr_expect_eq(e->dtype, TRACE_DTYPE_FP32);
	cr_expect_eq(e->redop, TRACE_REDOP_AVG);
	cr_expect_eq(t.entries[0].redop, TRACE_REDOP_SUM, "a sum by default");
	cr_expect_eq(e->ready_us, 3000);
	cr_expect_lt(e->compute_us, 0);

	e = &t.entries[2];
	cr_expect_eq(e->op, TRACE_OP_REDUCE_SCATTER);
	cr_expect_eq(e->dtype, TRACE_DTYPE_FP64);
	cr_expect_eq(e->ready_us, 0);
	cr_assert_eq(e->ngroup, 3);
	cr_expect_eq(e->group[0], 3);
	cr_expect_eq(e->group[1], 1);
	cr_expect_eq(e->group[2], 2);

	e = &t.entries[3];
	cr_expect_eq(e->op, TRACE_OP_ALL_GATHER);
	cr_expect_eq(e->dtype, TRACE_DTYPE_FP16);
	cr_expect_eq(e->compute_us, 10.25);

	e = &t.entries[4];
	cr_expect_eq(e->op, TRACE_OP_BROADCAST);
	cr_expect_eq(e->dtype, TRACE_DTYPE_INT8);
	cr_expect_eq(e->root, 8);
	cr_expect_eq(e->ngroup, 2);

	e = &t.entries[5];
	cr_expect_eq(e->op, TRACE_OP_SENDRECV);
	cr_expect_eq(e->dtype, TRACE_DTYPE_BF16);
	cr_expect_eq(e->root, 0);
	cr_expect_eq(e->peer, 9);

	e = &t.entries[6]; /* keys in any order, no final newline */
	cr_expect_eq(e->line, 10);
	cr_expect_eq(e->op, TRACE_OP_ALLTOALL);
	cr_expect_eq(e->iteration, 3);

	trace_destroy(&t);
	cr_expect_eq(t.nentries, 0);
	cr_expect_null(t.entries);
	expect_no_leaks();
}

Test(trace, load_file_and_missing_file)
{
	struct trace t;
	struct diag d = { "" };

	cr_assert_eq(trace_load(GDRLAB_SOURCE_DIR "/traces/resnet50-ddp.jsonl",
				&t, &d),
		     0, "%s", d.msg);
	cr_expect_eq(t.niterations, 2);
	trace_destroy(&t);

	cr_expect_eq(trace_load("/nonexistent/x.jsonl", &t, &d), -ENOENT);
	cr_expect_str_eq(d.msg,
			 "/nonexistent/x.jsonl: cannot read: No such file or directory");
	cr_expect_eq(t.nentries, 0);
	expect_no_leaks();
}

Test(trace, names_parse_back)
{
	enum trace_dtype dt;
	enum trace_redop ro;
	enum trace_op op;
	int i;

	for (i = 0; i < TRACE_OP_COUNT; i++) {
		cr_assert_eq(trace_op_parse(trace_op_name(i), &op), 0);
		cr_expect_eq((int)op, i);
	}
	for (i = 0; i < TRACE_DTYPE_COUNT; i++) {
		cr_assert_eq(trace_dtype_parse(trace_dtype_name(i), &dt), 0);
		cr_expect_eq((int)dt, i);
		cr_expect_gt(trace_dtype_size(i), 0);
	}
	for (i = 0; i < TRACE_REDOP_COUNT; i++) {
		cr_assert_eq(trace_redop_parse(trace_redop_name(i), &ro), 0);
		cr_expect_eq((int)ro, i);
	}
	cr_expect_eq(trace_redop_parse("mean", &ro), -EINVAL);
	cr_expect(trace_op_reduces(TRACE_OP_ALLREDUCE) && trace_op_reduces(TRACE_OP_REDUCE_SCATTER));
	cr_expect(!trace_op_reduces(TRACE_OP_ALL_GATHER) && !trace_op_reduces(TRACE_OP_SENDRECV));
	cr_expect_eq(trace_op_parse("AllReduce", &op), -EINVAL);
	cr_expect_eq(trace_dtype_parse("", &dt), -EINVAL);
	cr_expect_eq(trace_dtype_size(TRACE_DTYPE_BF16), 2);
	cr_expect_eq(trace_dtype_size(TRACE_DTYPE_FP64), 8);
}

/* One bad file: where the message must point and what it must say. */
struct bad_case {
	char file[40];
	char where[40]; /* ":line[:col]: key: " right after the file name */
	char gist[64];	/* a substring of the rest */
};

ParameterizedTestParameters(trace, bad_file)
{
	static struct bad_case cases[] = {
		{ "truncated", ":2:47: json: ", "truncated line" },
		{ "not-object", ":2: json: ", "expected an object, got an array" },
		{ "unknown-op", ":1: op: ", "unknown op 'allreduse'" },
		{ "algo-not-a-name", ":1: algo: ", "'Ring;Tree' is not a name (letters and digits)" },
		{ "algo-number", ":1: algo: ", "expected a string, got an integer" },
		{ "proto-too-long", ":1: proto: ", "expected a name of 1 to 15 characters" },
		{ "bytes-string", ":1: bytes: ", "expected an integer, got a string" },
		{ "bytes-float", ":1: bytes: ", "expected an integer, got a real number" },
		{ "bytes-zero", ":1: bytes: ", "must be > 0, got 0" },
		{ "bytes-negative", ":1: bytes: ", "must be > 0, got -4096" },
		{ "bytes-not-multiple", ":1: bytes: ", "1001 is not a multiple of the fp32" },
		{ "iteration-float", ":1: iteration: ", "expected an integer, got a real" },
		{ "unknown-dtype", ":1: dtype: ", "unknown dtype 'fp8'" },
		{ "root-outside-group", ":1: root: ", "rank 5 is not in the group" },
		{ "dst-outside-group", ":1: dst: ", "rank 6 is not in the group" },
		{ "negative-rank", ":1: group: ", "negative rank -1" },
		{ "negative-root", ":1: root: ", "negative rank -2" },
		{ "duplicate-rank", ":1: group: ", "rank 1 listed twice" },
		{ "iteration-backwards", ":3: iteration: ", "0 after 1" },
		{ "iteration-gap", ":2: iteration: ", "2 after 0 (iterations follow one another" },
		{ "iteration-first-not-zero", ":1: iteration: ", "3 on the first line (iterations are counted from 0)" },
		{ "ready-huge", ":1: ready_us: ", "1.7e+308 is beyond 1e+12 us" },
		{ "compute-huge", ":1: compute_us: ", "2e+12 is beyond 1e+12 us" },
		{ "unknown-key", ":1: bucket: ", "unknown key" },
		{ "missing-bytes", ":1: bytes: ", "missing required key" },
		{ "missing-root", ":1: root: ", "missing required key" },
		{ "compute-disagree", ":3: compute_us: ", "5000 disagrees with 4100 given on line 1" },
		{ "empty", ": trace: ", "no entries" },
		{ "sendrecv-same-rank", ":1: dst: ", "must differ from src" },
		{ "ready-negative", ":1: ready_us: ", "must be >= 0" },
		{ "group-empty", ":1: group: ", "must list 1 to 65536 ranks" },
		{ "root-not-broadcast", ":1: root: ", "not allowed for allreduce" },
		{ "redop-not-reducing", ":1: redop: ", "all_gather reduces nothing" },
		{ "redop-unknown", ":1: redop: ", "unknown redop 'mean' (sum, prod" },
		{ "duplicate-key", ":1:58: json: ", "duplicate object key" },
		{ "comm-not-a-name", ":1: comm: ", "'tp 0' is not a name of 1 to 63" },
		{ "comm-number", ":1: comm: ", "expected a string, got an integer" },
		{ "comm-other-ranks", ":2: group: ", "communicator 'tp0' has 2 ranks from line 1" },
		{ "comm-subset-of-world", ":2: group: ", "'dp' has every rank from line 1" },
		{ "comm-world-taken", ":2: group: ", "but 'world' (line 1) has other ranks" },
		{ "stream-too-large", ":1: stream: ", "65536 is too large (max 65535)" },
		{ "stream-negative", ":1: stream: ", "negative stream -1" },
		{ "batch-not-sendrecv", ":1: batch: ", "only sendrecv lines are batched, not allreduce" },
		{ "batch-negative", ":1: batch: ", "negative batch -2" },
		{ "root-outside-comm", ":2: root: ", "rank 3 is not in communicator 'pp' (2 ranks from line 1)" },
		{ "dst-outside-comm", ":2: dst: ", "rank 2 is not in communicator 'pp' (2 ranks from line 1)" },
	};

	return cr_make_param_array(struct bad_case, cases,
				   sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct bad_case *c, trace, bad_file)
{
	char path[512], want[600];
	struct diag d = { "" };
	struct trace t;
	int err;

	snprintf(path, sizeof(path), "%s/tests/data/bad-trace/%s.jsonl",
		 GDRLAB_SOURCE_DIR, c->file);
	err = trace_load(path, &t, &d);
	cr_assert_eq(err, -EINVAL, "%s: got %d (%s)", c->file, err, d.msg);
	snprintf(want, sizeof(want), "%s%s", path, c->where);
	cr_expect_eq(strncmp(d.msg, want, strlen(want)), 0,
		     "%s: want prefix '%s', got '%s'", c->file, want, d.msg);
	cr_expect_not_null(strstr(d.msg + strlen(path), c->gist),
			   "%s: want '%s' in '%s'", c->file, c->gist, d.msg);
	cr_expect_null(strchr(d.msg, '\n'), "message is not one line");
	cr_expect_eq(t.nentries, 0);
	cr_expect_null(t.entries);
	expect_no_leaks();
}

static void expect_equal(const struct trace *a, const struct trace *b)
{
	size_t i;
	unsigned g;

	cr_assert_eq(a->nentries, b->nentries);
	cr_expect_eq(a->niterations, b->niterations);
	for (i = 0; i < a->nentries; i++) {
		const struct trace_entry *x = &a->entries[i];
		const struct trace_entry *y = &b->entries[i];

		cr_expect_eq(x->iteration, y->iteration, "entry %zu", i);
		cr_expect_eq(x->op, y->op, "entry %zu", i);
		cr_expect_eq(x->dtype, y->dtype, "entry %zu", i);
		cr_expect_eq(x->redop, y->redop, "entry %zu", i);
		cr_expect_eq(x->bytes, y->bytes, "entry %zu", i);
		cr_expect_eq(x->ready_us, y->ready_us, "entry %zu", i);
		cr_expect_eq(x->compute_us < 0, y->compute_us < 0, "entry %zu",
			     i);
		if (x->compute_us >= 0)
			cr_expect_eq(x->compute_us, y->compute_us, "entry %zu",
				     i);
		cr_expect_eq(x->root, y->root, "entry %zu", i);
		cr_expect_eq(x->peer, y->peer, "entry %zu", i);
		cr_expect_str_eq(x->algo, y->algo, "entry %zu", i);
		cr_expect_str_eq(x->proto, y->proto, "entry %zu", i);
		cr_assert_eq(x->ngroup, y->ngroup, "entry %zu", i);
		for (g = 0; g < x->ngroup; g++)
			cr_expect_eq(x->group[g], y->group[g], "entry %zu", i);
		cr_expect_str_eq(trace_entry_comm(a, x), trace_entry_comm(b, y), "entry %zu", i);
		cr_expect_eq(x->stream, y->stream, "entry %zu", i);
		cr_expect_eq(x->batched, y->batched, "entry %zu", i);
		cr_expect_eq(x->batch, y->batch, "entry %zu", i);
	}
	cr_expect_eq(a->ncomms, b->ncomms);
}

/* @t written, read back and held equal to @t; the text written, for the
 * caller to look into and free. */
static char *write_reads_back(const struct trace *t)
{
	struct diag d = { "" };
	struct trace u;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	cr_assert_eq(trace_write(f, t), 0);
	cr_assert_eq(fclose(f), 0);
	cr_assert_eq(trace_load_buffer(buf, len, "written", &u, &d), 0, "%s\n%s", d.msg, buf);
	expect_equal(t, &u);
	trace_destroy(&u);
	return buf;
}

/*
 * Communicators: a line without "comm" is on its group's ("world" for all
 * ranks, group1, group2, ... in order), a named one keeps its ranks for
 * the lines that leave them out, and two names may hold the same ranks.
 */
Test(trace, communicators)
{
	static const char text[] =
		"{\"iteration\": 0, \"op\": \"allreduce\", \"bytes\": 4096}\n"
		"{\"iteration\": 0, \"op\": \"allreduce\", \"bytes\": 4096, \"group\": [2, 3]}\n"
		"{\"iteration\": 0, \"op\": \"allreduce\", \"bytes\": 4096, \"comm\": \"tp0\", \"group\": [0, 1]}\n"
		"{\"iteration\": 0, \"op\": \"allreduce\", \"bytes\": 4096, \"comm\": \"tp0\", \"stream\": 3}\n"
		"{\"iteration\": 0, \"op\": \"allreduce\", \"bytes\": 4096, \"group\": [0, 1]}\n"
		"{\"iteration\": 0, \"op\": \"allreduce\", \"bytes\": 4096, \"comm\": \"tp0-copy\", \"group\": [0, 1]}\n"
		"{\"iteration\": 1, \"op\": \"allreduce\", \"bytes\": 4096, \"group\": [2, 3]}\n"
		"{\"iteration\": 1, \"op\": \"sendrecv\", \"bytes\": 4096, \"src\": 3, \"dst\": 2, \"comm\": \"pp\", \"group\": [2, 3], \"batch\": 2147483647}\n";
	static const char *const want[] = { "world", "group1", "tp0", "tp0", "tp0", "tp0-copy", "group1", "pp" };
	struct diag d = { "" };
	struct trace t;
	char *buf;

	cr_assert_eq(trace_load_buffer(text, strlen(text), "comms", &t, &d), 0, "%s", d.msg);
	cr_assert_eq(t.nentries, 8);
	cr_expect_eq(t.ncomms, 5);
	cr_expect(t.entries[7].batched);
	cr_expect_eq(t.entries[7].batch, 2147483647);
	cr_expect_not(t.entries[0].batched);
	for (size_t i = 0; i < t.nentries; i++)
		cr_expect_str_eq(trace_entry_comm(&t, &t.entries[i]), want[i], "line %zu", i + 1);
	/* tp0's ranks on the line that left them out, and its stream */
	cr_assert_eq(t.entries[3].ngroup, 2);
	cr_expect_eq(t.entries[3].group[0], 0);
	cr_expect_eq(t.entries[3].group[1], 1);
	cr_expect_eq(t.entries[3].stream, 3);
	cr_expect_eq(t.entries[0].stream, 0);
	/* an unnamed line with tp0's ranks is on tp0: one set, one name */
	cr_expect_eq(t.entries[4].comm, t.entries[2].comm);
	buf = write_reads_back(&t);
	cr_expect_null(strstr(buf, "\"comm\": \"world\""), "implicit names stay implicit:\n%s", buf);
	free(buf);
	trace_destroy(&t);
	expect_no_leaks();
}

/*
 * An unnamed line's group takes the next groupN no named communicator has
 * taken. Found by fuzz_trace: [0, 2] and [0, 1] unnamed are group1 and
 * group2, [2, 1] group3, and a later line names "group2" for [0, 1] (the
 * same communicator). Written, group2 is named from its first line, so
 * on reading back [2, 1] must skip the taken group2 and be group3 again,
 * where it once failed ("'group2' (line 2) has other ranks"). A trace
 * naming "group1" before any unnamed group gives the first unnamed one
 * group2.
 */
Test(trace, implicit_names_skip_taken_ones)
{
	static const char adopted[] =
		"{\"iteration\": 0, \"op\": \"allreduce\", \"bytes\": 4096, \"group\": [0, 2]}\n"
		"{\"iteration\": 0, \"op\": \"allreduce\", \"bytes\": 4096, \"group\": [0, 1]}\n"
		"{\"iteration\": 0, \"op\": \"allreduce\", \"bytes\": 4096, \"group\": [2, 1]}\n"
		"{\"iteration\": 0, \"op\": \"allreduce\", \"bytes\": 4096, \"group\": [0, 1], \"comm\": \"group2\"}\n";
	static const char *const want[] = { "group1", "group2", "group3", "group2" };
	static const char named_first[] =
		"{\"iteration\": 0, \"op\": \"allreduce\", \"bytes\": 4096, \"group\": [0, 1], \"comm\": \"group1\"}\n"
		"{\"iteration\": 0, \"op\": \"allreduce\", \"bytes\": 4096, \"group\": [2, 3]}\n";
	struct diag d = { "" };
	struct trace t;

	cr_assert_eq(trace_load_buffer(adopted, strlen(adopted), "adopted", &t, &d), 0, "%s", d.msg);
	for (size_t i = 0; i < t.nentries; i++)
		cr_expect_str_eq(trace_entry_comm(&t, &t.entries[i]), want[i], "line %zu", i + 1);
	free(write_reads_back(&t));
	trace_destroy(&t);

	cr_assert_eq(trace_load_buffer(named_first, strlen(named_first), "named", &t, &d), 0,
		     "%s", d.msg);
	cr_expect_str_eq(trace_entry_comm(&t, &t.entries[1]), "group2");
	trace_destroy(&t);
	expect_no_leaks();
}

Test(trace, write_reads_back_equal)
{
	struct trace a;
	struct diag d = { "" };
	char *buf;

	cr_assert_eq(trace_load_buffer(good, strlen(good), "good", &a, &d), 0,
		     "%s", d.msg);
	/* Values that need all 17 digits must survive too. */
	a.entries[0].ready_us = 0.1 + 0.2;
	a.entries[1].ready_us = 1e-7;
	a.entries[0].compute_us = 123456789.123456789;
	/* what NCCL ran, when known, goes out and comes back */
	snprintf(a.entries[1].algo, sizeof(a.entries[1].algo), "NVLSTree");
	snprintf(a.entries[1].proto, sizeof(a.entries[1].proto), "LL128");
	/* a reduction other than a sum too (the reduce-scatter) */
	a.entries[2].redop = TRACE_REDOP_MAX;
	buf = write_reads_back(&a);
	cr_expect_not_null(strstr(buf, "\"redop\": \"max\""));
	cr_expect_null(strstr(buf, "\"redop\": \"sum\""), "a sum is not written");
	cr_expect_not_null(strstr(buf, "\"op\": \"reduce_scatter\""),
			   "canonical names on output");
	cr_expect_not_null(strstr(buf, "\"dtype\": \"fp32\""));
	free(buf);
	trace_destroy(&a);
	expect_no_leaks();
}

Test(trace, write_refuses_invalid_entries)
{
	struct trace_entry e = {
		.op = TRACE_OP_BROADCAST, .dtype = TRACE_DTYPE_FP32,
		.bytes = 4, .compute_us = -1, .root = -1, .peer = -1,
	};
	struct trace t = { .nentries = 1, .entries = &e, .niterations = 1 };
	FILE *f = fopen("/dev/null", "w");

	cr_assert_not_null(f);
	cr_expect_eq(trace_write(f, &t), -EINVAL, "broadcast without root");
	e.root = 0;
	cr_expect_eq(trace_write(f, &t), 0);
	e.redop = TRACE_REDOP_MAX;
	cr_expect_eq(trace_write(f, &t), -EINVAL, "a broadcast's reduction");
	e.redop = TRACE_REDOP_SUM;
	e.bytes = 0;
	cr_expect_eq(trace_write(f, &t), -EINVAL, "zero bytes");
	fclose(f);
}

/* Every cut of a good trace either reads or fails cleanly, one line. */
Test(trace, every_prefix_is_handled)
{
	struct diag d;
	struct trace t;
	size_t n;
	int err;

	for (n = 0; n <= sizeof(good) - 1; n++) {
		d.msg[0] = '\0';
		err = trace_load_buffer(good, n, "cut", &t, &d);
		if (err) {
			cr_expect_eq(err, -EINVAL, "length %zu: %d", n, err);
			cr_expect_neq(d.msg[0], '\0', "length %zu: no message",
				      n);
			cr_expect_null(strchr(d.msg, '\n'));
			cr_expect_null(t.entries);
		} else {
			cr_expect_gt(t.nentries, 0);
			trace_destroy(&t);
		}
	}
	expect_no_leaks();
}

Test(trace, hostile_text_stays_on_one_line)
{
	static const char bad[] =
		"{\"iteration\": 0, \"op\": \"all\\nreduce\\u0007\", \"bytes\": 4}";
	static const char badkey[] = "{\"a\\nb\": 1}";
	struct diag d = { "" };
	struct trace t;

	cr_assert_eq(trace_load_buffer(bad, sizeof(bad) - 1, "h", &t, &d),
		     -EINVAL);
	cr_expect_null(strchr(d.msg, '\n'), "%s", d.msg);
	cr_expect_not_null(strstr(d.msg, "unknown op 'all?reduce?'"), "%s",
			   d.msg);
	cr_assert_eq(trace_load_buffer(badkey, sizeof(badkey) - 1, "h", &t, &d),
		     -EINVAL);
	cr_expect_str_eq(d.msg, "h:1: a?b: unknown key");
	/* An embedded NUL byte is a syntax error, not a short line. */
	cr_expect_eq(trace_load_buffer("{\"iteration\"\0: 0}", 17, "h", &t, &d),
		     -EINVAL);
	cr_expect_eq(trace_load_buffer(NULL, 0, "h", &t, &d), -EINVAL);
	cr_expect_str_eq(d.msg, "h: trace: no entries (empty trace)");
	expect_no_leaks();
}

Test(trace, large_group_and_limits)
{
	const char *line;
	char *buf;
	size_t cap = 16 * 65537 + 256, len;
	struct diag d = { "" };
	struct trace t;
	unsigned i;

	buf = malloc(cap);
	cr_assert_not_null(buf);
	len = (size_t)snprintf(buf, cap,
			       "{\"iteration\": 0, \"op\": \"allreduce\", \"bytes\": 2, \"group\": [");
	for (i = 0; i < 65536; i++)
		len += (size_t)snprintf(buf + len, cap - len, "%s%u",
					i ? "," : "", 65535 - i);
	snprintf(buf + len, cap - len, "]}");
	cr_assert_eq(trace_load_buffer(buf, strlen(buf), "big", &t, &d), 0,
		     "%s", d.msg);
	cr_expect_eq(t.entries[0].ngroup, 65536);
	trace_destroy(&t);
	/* One more rank is one too many. */
	len = strlen(buf) - 2;
	snprintf(buf + len, cap - len, ",65536]}");
	cr_expect_eq(trace_load_buffer(buf, strlen(buf), "big", &t, &d),
		     -EINVAL);
	cr_expect_not_null(strstr(d.msg, "must list 1 to 65536 ranks"), "%s",
			   d.msg);
	free(buf);

	line = "{\"iteration\": 2147483648, \"op\": \"allreduce\", \"bytes\": 2}";
	cr_expect_eq(trace_load_buffer(line, strlen(line), "l", &t, &d),
		     -EINVAL);
	cr_expect_str_eq(d.msg,
			 "l:1: iteration: 2147483648 is too large (max 2147483647)");
	expect_no_leaks();
}

/* A batch's lines in a row at its last's place; a batch of the same
 * number on another communicator, and the other lines, keep their order. */
Test(trace, gather_batches_puts_a_batchs_lines_in_a_row)
{
	static const char text[] =
		"{\"iteration\": 0, \"op\": \"sendrecv\", \"bytes\": 8, \"src\": 0, \"dst\": 1, \"comm\": \"pp\", \"batch\": 4}\n"
		"{\"iteration\": 0, \"op\": \"sendrecv\", \"bytes\": 16, \"src\": 2, \"dst\": 3, \"comm\": \"pp\", \"batch\": 5}\n"
		"{\"iteration\": 0, \"op\": \"sendrecv\", \"bytes\": 24, \"src\": 0, \"dst\": 1, \"comm\": \"other\", \"batch\": 4}\n"
		"{\"iteration\": 0, \"op\": \"sendrecv\", \"bytes\": 32, \"src\": 1, \"dst\": 0, \"comm\": \"pp\", \"batch\": 4}\n"
		"{\"iteration\": 0, \"op\": \"allreduce\", \"bytes\": 40, \"comm\": \"pp\"}\n";
	static const uint64_t want[] = { 16, 24, 8, 32, 40 };
	struct diag d = { "" };
	struct trace t;

	cr_assert_eq(trace_load_buffer(text, strlen(text), "batches", &t, &d), 0, "%s", d.msg);
	cr_assert_eq(trace_gather_batches(&t), 0);
	for (size_t i = 0; i < 5; i++)
		cr_expect_eq(t.entries[i].bytes, want[i], "line %zu", i + 1);
	trace_destroy(&t);
	expect_no_leaks();
}
