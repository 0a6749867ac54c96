/* SPDX-License-Identifier: MIT */
/*
 * The chakra importer (engine/import_chakra.c) on Chakra execution traces
 * that the test writes with protobuf-c (the schema gdrlab builds,
 * engine/chakra/et_def.proto) into a scratch folder: the made-up run of
 * tests/data/nccl-log/job-4ranks.log and tests/data/kineto/, one
 * <prefix>.<rank>.et a rank as Chakra's converter writes them (a
 * process_group:init node, a ProfilerStep, the NCCL kernels as
 * COMM_COLL_NODEs with comm_type, comm_size and pg_name), gives the trace
 * worked out by hand, which is the kineto importer's of the same run and
 * the NCCL log's for every call both can say; what a file does not say
 * is asked for; each fault its byte.
 */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "et_def.pb-c.h"
#include "import_helpers.h"

typedef ChakraProtoMsg__Node et_node;
typedef ChakraProtoMsg__AttributeProto et_attr;

enum { ALL_REDUCE = 0, ALL_GATHER = 2, BROADCAST = 5, BARRIER = 9 };

static char dir[64];

static void scratch(void)
{
	snprintf(dir, sizeof(dir), "/tmp/gdrlab-chakra-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

static void put_varint(FILE *fp, uint64_t v)
{
	do {
		fputc((int)(v & 0x7f) | (v > 0x7f ? 0x80 : 0), fp);
		v >>= 7;
	} while (v);
}

/* @m after its length, as protobuf's writeDelimited. */
static void put_msg(FILE *fp, const ProtobufCMessage *m)
{
	size_t n = protobuf_c_message_get_packed_size(m);
	uint8_t *buf = malloc(n ? n : 1);

	cr_assert_not_null(buf);
	cr_assert_eq(protobuf_c_message_pack(m, buf), n);
	put_varint(fp, n);
	fwrite(buf, 1, n, fp);
	free(buf);
}

static void put_meta(FILE *fp)
{
	ChakraProtoMsg__GlobalMetadata meta = CHAKRA_PROTO_MSG__GLOBAL_METADATA__INIT;
	et_attr schema = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__INIT, *attrs[] = { &schema };

	schema.name = "schema";
	schema.value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL;
	schema.string_val = "1.1.1-chakra.1.0.0";
	meta.n_attr = 1;
	meta.attr = attrs;
	put_msg(fp, &meta.base);
}

/* One node: attrs comm_type and comm_size (int64, as Chakra's converter
 * writes them; < 0 leaves one out) and pg_name (NULL: none). */
struct node_spec {
	uint64_t id;
	const char *name;
	ChakraProtoMsg__NodeType type;
	uint64_t start;
	const char *types, *values; /* inputs; NULL: none */
	int64_t comm_type, comm_size;
	const char *pg;
};

static void put_node(FILE *fp, const struct node_spec *s)
{
	et_node n = CHAKRA_PROTO_MSG__NODE__INIT;
	ChakraProtoMsg__IOInfo io = CHAKRA_PROTO_MSG__IOINFO__INIT;
	et_attr a[3] = { CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__INIT, CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__INIT,
			 CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__INIT };
	et_attr *attrs[3];
	size_t na = 0;

	n.id = s->id;
	n.name = (char *)s->name;
	n.type = s->type;
	n.start_time_micros = s->start;
	n.duration_micros = 10;
	if (s->types || s->values) {
		io.types = (char *)(s->types ? s->types : "");
		io.values = (char *)(s->values ? s->values : "");
		n.inputs = &io;
	}
	if (s->comm_type >= 0) {
		a[na].name = "comm_type";
		a[na].value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL;
		a[na].int64_val = s->comm_type;
		attrs[na] = &a[na];
		na++;
	}
	if (s->comm_size >= 0) {
		a[na].name = "comm_size";
		a[na].value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL;
		a[na].int64_val = s->comm_size;
		attrs[na] = &a[na];
		na++;
	}
	if (s->pg) {
		a[na].name = "pg_name";
		a[na].value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL;
		a[na].string_val = (char *)s->pg;
		attrs[na] = &a[na];
		na++;
	}
	n.n_attr = na;
	n.attr = attrs;
	put_msg(fp, &n.base);
}

#define COLL CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE
#define KERNEL(op, ty) "ncclDevKernel_" op "_Sum_" ty "_RING_LL(ncclDevKernelArgsStorage<4096ul>)"

/* How a run's files are written: with start times or none (as Chakra's
 * converter, which keeps durations only), with a ProfilerStep or none,
 * with the process_group:init node or none, with element types or none. */
struct style {
	bool untimed, no_step, no_pgs, no_types;
	int64_t rank1_size; /* rank 1's world all-reduce, 0: as the others' */
	int64_t rank1_share; /* rank 1's all-gather share, 0: as the others' */
};

/* PyTorch's pg_config_info as Chakra keeps it: Python's str() of the
 * record's one string; a rank's own groups only (torch/distributed/
 * distributed_c10d.py registers a group on its members). */
static const char *pgs_of(int rank)
{
	return rank < 2 ? "['[{\"pg_name\": \"0\", \"pg_desc\": \"default_pg\", \"backend_config\": \"cuda:nccl\", \"ranks\": [], \"group_size\": 4, \"group_count\": 3}, "
			  "{\"pg_name\": \"1\", \"pg_desc\": \"undefined\", \"backend_config\": \"cuda:nccl\", \"ranks\": [0, 1], \"group_size\": 2, \"group_count\": 3}]']"
			: "['[{\"pg_name\": \"0\", \"pg_desc\": \"default_pg\", \"backend_config\": \"cuda:nccl\", \"ranks\": [], \"group_size\": 4, \"group_count\": 3}, "
			  "{\"pg_name\": \"2\", \"pg_desc\": \"undefined\", \"backend_config\": \"cuda:nccl\", \"ranks\": [3, 2], \"group_size\": 2, \"group_count\": 3}]']";
}

/*
 * Rank @r's file of the run (tests/data/kineto/README.md): in
 * ProfilerStep#5 from 1000 us, the world all-reduce of 262144 floats at
 * 1100 + r, the pair's 1048576 bfloat16 at 1200, the world all-gather of
 * 1024 halves a rank at 1300, ranks 2 and 3's broadcast at 1400, rank 0's
 * send to rank 2 (and its receive) at 1500, a barrier at 4000.
 */
static void write_rank(const char *path, int r, const struct style *st)
{
	FILE *fp = fopen(path, "wb");
	uint64_t t = st->untimed ? 0 : 1;
	const char *pair = r < 2 ? "1" : "2";

	cr_assert_not_null(fp, "%s", path);
	put_meta(fp);
	if (!st->no_pgs)
		put_node(fp, &(struct node_spec){ 1, "## process_group:init ##", CHAKRA_PROTO_MSG__NODE_TYPE__METADATA_NODE, 0,
						  "['String']", pgs_of(r), -1, -1, NULL });
	if (!st->no_step)
		put_node(fp, &(struct node_spec){ 2, "ProfilerStep#5", CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE, t * 1000,
						  NULL, NULL, -1, -1, NULL });
	put_node(fp, &(struct node_spec){ 3, "aten::mm", CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE, t * 1010,
					  "['Tensor(float)', 'Tensor(float)']", NULL, -1, -1, NULL });
	put_node(fp, &(struct node_spec){ 5, KERNEL("AllReduce", "f32"), COLL, t * (1100 + (uint64_t)r),
					  st->no_types ? NULL : "['Tensor(float)']", NULL, ALL_REDUCE,
					  r == 1 && st->rank1_size ? st->rank1_size : 262144 * 4, "0" });
	put_node(fp, &(struct node_spec){ 7, KERNEL("AllReduce", "bf16"), COLL, t * 1200,
					  st->no_types ? NULL : "['Tensor(c10::BFloat16)']", NULL, ALL_REDUCE, 2097152, pair });
	/* comm_size: one rank's input, 1024 halves */
	put_node(fp, &(struct node_spec){ 9, "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", COLL,
					  t * 1300, st->no_types ? NULL : "['GenericList[Tensor(c10::Half)]', 'Int']", NULL,
					  ALL_GATHER, r == 1 && st->rank1_share ? st->rank1_share : 2048, "0" });
	if (r >= 2)
		put_node(fp, &(struct node_spec){ 11, "ncclDevKernel_Broadcast_RING_LL(ncclDevKernelArgsStorage<4096ul>)", COLL,
						  t * 1400, "['Tensor(float)']", NULL, BROADCAST, 8192, "2" });
	if (r == 0 || r == 2)
		put_node(fp, &(struct node_spec){ 13, "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)",
						  r ? CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE : CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE,
						  t * 1500, "['Tensor(float)']", NULL, -1, 16384, "0" });
	put_node(fp, &(struct node_spec){ 15, "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
					  COLL, t * 4000, "['Tensor(float)']", NULL, BARRIER, 4, "0" });
	cr_assert_eq(fclose(fp), 0);
}

static char paths[4][128];
static const char *run_files[4] = { paths[0], paths[1], paths[2], paths[3] };

static void write_run(const struct style *st)
{
	scratch();
	for (int r = 0; r < 4; r++) {
		snprintf(paths[r], sizeof(paths[r]), "%s/job.%d.et", dir, r);
		write_rank(paths[r], r, st);
	}
}

static void remove_scratch(void)
{
	for (int r = 0; r < 4; r++)
		unlink(paths[r]);
	rmdir(dir);
}

static const char *const kineto_files[] = { DATA("kineto/rank0.json"), DATA("kineto/rank1.json.gz"),
					    DATA("kineto/rank2.json"), DATA("kineto/rank3.json") };

/* The run written as @st, imported: its 4 calls. */
static void import_run(const struct style *st, struct trace *t)
{
	struct diag d = { "" };

	write_run(st);
	cr_assert_eq(import_as("chakra", run_files, 4, t, &d), 0, "%s", d.msg);
	cr_assert_eq(t->nentries, 4);
}

#define LEFT_OUT "left out, counted on each rank that recorded them: 2 point-to-point calls, 2 broadcasts, reduces, gathers and scatters (no peer or root), 4 barriers and empty calls"

Test(import_chakra, four_ranks)
{
	struct trace t;

	import_run(&(struct style){ 0 }, &t);
	assert_the_made_up_run(&t);
	cr_expect_str_eq(notes.line, LEFT_OUT);
	trace_destroy(&t);
	remove_scratch();
	assert_no_leaks();
}

/*
 * Rank 2's file left out (job.0, 1 and 3 of the checked-in run): the
 * world's all-reduce and all-gather come from 3 of their 4 ranks, the
 * pair [2, 3]'s all-reduce from rank 3's file alone, and the header says
 * so (it said nothing); the whole run, or one rank's file, says nothing.
 */
Test(import_chakra, a_ranks_file_missing_is_said)
{
	const char *three[] = { DATA("chakra/job.0.et"), DATA("chakra/job.1.et"),
				DATA("chakra/job.3.et") };
	const char *one[] = { DATA("chakra/job.3.et") };
	struct diag d = { "" };
	struct trace t;

	cr_assert_eq(import_as("chakra", three, 3, &t, &d), 0, "%s", d.msg);
	cr_assert_eq(t.nentries, 4);
	cr_expect_not_null(strstr(notes.line, "; 3 collectives recorded by only some of their ranks (the first: allreduce, "),
			   "%s", notes.line);
	cr_expect_not_null(strstr(notes.line, ", 3 of 4, no file of rank 2): some ranks' files missing"),
			   "%s", notes.line);
	trace_destroy(&t);
	cr_assert_eq(import_as("chakra", one, 1, &t, &d), 0, "%s", d.msg);
	cr_expect_null(strstr(notes.line, "recorded by only some"), "%s", notes.line);
	trace_destroy(&t);
}

/* The three formats of one run: the kineto importer's trace, times and
 * all; the NCCL log's op, bytes and group for each call the profilers can
 * say (all but the broadcast and the send). */
Test(import_chakra, agrees_with_kineto_and_the_nccl_log)
{
	const char *logs[] = { DATA("nccl-log/job-4ranks.log") };
	struct trace c, k, n, said, ksaid;
	struct diag d = { "" };

	import_run(&(struct style){ 0 }, &c);
	cr_assert_eq(import_as("kineto", kineto_files, 4, &k, &d), 0, "%s", d.msg);
	cr_assert_eq(import_as("nccl-log", logs, 1, &n, &d), 0, "%s", d.msg);
	/* kineto reads the broadcast's root (PyTorch 2.5's "Rank"); Chakra's
	 * files, as this importer reads them, do not say it */
	calls_profilers_say(&k, &ksaid);
	assert_same_calls(&c, &ksaid, true);
	free(ksaid.entries); /* its groups are k's */
	calls_profilers_say(&n, &said);
	assert_same_calls(&c, &said, false);
	free(said.entries); /* its groups are n's */
	trace_destroy(&c);
	trace_destroy(&k);
	trace_destroy(&n);
	remove_scratch();
}

/* As Chakra's converter writes: no start times. Each call ready at 0, in
 * the files' order (the pairs' calls side by side, lowest rank first). */
Test(import_chakra, no_times_file_order)
{
	struct trace t;

	import_run(&(struct style){ .untimed = true }, &t);
	cr_expect_eq(t.entries[0].bytes, 1048576);
	cr_expect_eq(t.entries[1].group[0], 0);
	cr_expect_eq(t.entries[2].group[0], 2);
	cr_expect_eq(t.entries[3].op, TRACE_OP_ALL_GATHER);
	for (size_t i = 0; i < t.nentries; i++)
		cr_expect_eq(t.entries[i].ready_us, 0);
	cr_expect_str_eq(notes.line, LEFT_OUT "; no start_time_micros: calls ready at 0, in file order");
	trace_destroy(&t);
	remove_scratch();
}

Test(import_chakra, no_step_one_iteration)
{
	struct trace t;

	import_run(&(struct style){ .no_step = true }, &t);
	cr_expect_eq(t.niterations, 1);
	/* from each file's first call */
	cr_expect_eq(t.entries[0].ready_us, 0);
	cr_expect_eq(t.entries[3].ready_us, 200);
	cr_expect_str_eq(notes.line, LEFT_OUT "; no ProfilerStep nodes: one iteration");
	trace_destroy(&t);
	remove_scratch();
}

/* The run written as @st: rank 0's file fails with @msg, naming its byte. */
static void expect_run_asks(const struct style *st, const char *msg)
{
	struct trace t;
	struct diag d = { "" };

	write_run(st);
	cr_assert_eq(import_as("chakra", run_files, 4, &t, &d), -EINVAL);
	cr_expect_not_null(strstr(d.msg, "job.0.et: byte "), "%s", d.msg);
	cr_expect_not_null(strstr(d.msg, msg), "%s", d.msg);
}

/* No process_group:init: the groups are asked for, then the same trace. */
Test(import_chakra, groups_asked_for)
{
	struct import_options o = { 0 };
	struct trace t;
	struct diag d = { "" };

	expect_run_asks(&(struct style){ .no_pgs = true },
			": pg_name: process group '0' has no ranks in this file (no process_group:init node lists it): give --group 0=RANKS, or --world N if its calls are every rank's");
	cr_assert_eq(import_options_group(&o, "1=0,1", &d), 0, "%s", d.msg);
	cr_assert_eq(import_told("chakra", run_files, 4, &o, &t, &d), -EINVAL);
	cr_expect_not_null(strstr(d.msg, "process group '0' has no ranks"), "%s", d.msg);
	cr_assert_eq(import_options_group(&o, "2=2-3", &d), 0, "%s", d.msg);
	cr_assert_eq(import_options_world(&o, "4", &d), 0, "%s", d.msg);
	cr_assert_eq(import_told("chakra", run_files, 4, &o, &t, &d), 0, "%s", d.msg);
	assert_the_made_up_run(&t);
	trace_destroy(&t);
	import_options_free(&o);
	remove_scratch();
	assert_no_leaks();
}

/* No element types in inputs.types: the reductions' from their kernels'
 * names (f32, bf16), the all-gather's (its kernel has none) asked for. */
Test(import_chakra, dtype_asked_for)
{
	struct import_options o = { 0 };
	struct trace t;
	struct diag d = { "" };

	expect_run_asks(&(struct style){ .no_types = true },
			": node 9: inputs.types: no 'Tensor(...)' to say the element type, nor a reduction's NCCL kernel name: give --dtype");
	cr_assert_eq(import_options_dtype(&o, "fp16", &d), 0);
	cr_assert_eq(import_told("chakra", run_files, 4, &o, &t, &d), 0, "%s", d.msg);
	assert_the_made_up_run(&t);
	trace_destroy(&t);
	remove_scratch();
}

/* Ranks that disagree on a call: both files named, with their bytes. */
Test(import_chakra, ranks_that_disagree)
{
	struct trace t;
	struct diag d = { "" };

	write_run(&(struct style){ .rank1_size = 2 * 262144 * 4 });
	cr_assert_eq(import_as("chakra", run_files, 4, &t, &d), -EINVAL);
	cr_expect_not_null(strstr(d.msg, "job.1.et: byte "), "%s", d.msg);
	cr_expect_not_null(strstr(d.msg, ": comm_type: rank 1's call 0 of group '0' is allreduce of 2097152 bytes, rank 0's ("),
			   "%s", d.msg);
	cr_expect_not_null(strstr(d.msg, "job.0.et: byte "), "%s", d.msg);
	cr_expect_null(t.entries);
	remove_scratch();
}

/*
 * An all-gather whose ranks' shares differ (a list of unequal tensors):
 * rank 1's is 4096 bytes, the others' 2048, so the whole buffer is
 * 3 x 2048 + 4096 = 10240 bytes, not 4 x 2048 = 8192 (the last call of
 * the made-up run), and the header says so.
 */
Test(import_chakra, unequal_shares_take_their_sum)
{
	struct trace t;

	import_run(&(struct style){ .rank1_share = 4096 }, &t);
	cr_expect_eq(t.entries[3].op, TRACE_OP_ALL_GATHER);
	cr_expect_eq(t.entries[3].bytes, 10240);
	cr_expect_not_null(strstr(notes.line, "; 1 all-gather or reduce-scatter of unequal shares across ranks"),
			   "%s", notes.line);
	trace_destroy(&t);
	remove_scratch();
}

/* Many files are merged by the ranks in their names. */
Test(import_chakra, a_file_name_without_a_rank)
{
	char other[160];
	const char *files[2] = { paths[0], other };
	struct trace t;
	struct diag d = { "" };

	write_run(&(struct style){ 0 });
	snprintf(other, sizeof(other), "%s/job.et", dir);
	write_rank(other, 1, &(struct style){ 0 });
	cr_assert_eq(import_as("chakra", files, 2, &t, &d), -EINVAL);
	cr_expect_not_null(strstr(d.msg, "job.et: file name: no rank in it (Chakra names a rank's trace <prefix>.<rank>.et), and 2 files are merged by rank"),
			   "%s", d.msg);
	/* one file alone needs none */
	cr_assert_eq(import_as("chakra", files + 1, 1, &t, &d), 0, "%s", d.msg);
	cr_expect_eq(t.nentries, 3);
	trace_destroy(&t);
	unlink(other);
	remove_scratch();
}

/*
 * Rank 2's file merged under rank 0's name (job.0.et, a renamed copy):
 * its broadcast on the pair [2, 3] would count as rank 0's call on a
 * group without it. Refused where files are merged by their names' ranks;
 * read alone, its name's digits are no rank.
 */
Test(import_chakra, another_ranks_file_under_a_ranks_name)
{
	const char *files[2] = { paths[0], paths[1] };
	struct trace t;
	struct diag d = { "" };

	write_run(&(struct style){ 0 });
	write_rank(paths[0], 2, &(struct style){ 0 });
	cr_assert_eq(import_as("chakra", files, 2, &t, &d), -EINVAL);
	cr_expect_not_null(strstr(d.msg, "job.0.et: byte "), "%s", d.msg);
	cr_expect_not_null(strstr(d.msg, ": pg_name: process group '2' (2 ranks from 2) does not hold rank 0, the file's by its name: is it another rank's file?"),
			   "%s", d.msg);
	cr_assert_eq(import_as("chakra", files, 1, &t, &d), 0, "%s", d.msg);
	trace_destroy(&t);
	remove_scratch();
}

/* A file of the metadata and then @tail's bytes. */
static void write_bad(const char *name, const uint8_t *tail, size_t n)
{
	char path[160];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "wb");
	cr_assert_not_null(fp);
	put_meta(fp);
	if (n)
		fwrite(tail, 1, n, fp);
	cr_assert_eq(fclose(fp), 0);
}

/* A file of the metadata and one collective node. */
static void write_bad_node(const char *name, const struct node_spec *s)
{
	char path[160];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "wb");
	cr_assert_not_null(fp);
	put_meta(fp);
	put_node(fp, s);
	cr_assert_eq(fclose(fp), 0);
}

/* After the GlobalMetadata put_meta writes: a 1-byte length, 31 bytes. */
#define AFTER_META "byte 32"

Test(import_chakra, every_fault_its_byte)
{
	static const uint8_t ff[11] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t past_end[] = { 0x40, 0x08, 0x01 };       /* 64 bytes, 2 there */
	static const uint8_t cut_length[] = { 0x80 };                  /* a varint's first byte */
	static const uint8_t huge[] = { 0xff, 0xff, 0xff, 0xff, 0x0f }; /* 4 GiB */
	static const uint8_t not_a_node[] = { 0x03, 0x0f, 0xff, 0xff }; /* field 1, wire type 7 */
	static const struct bad_case cases[] = {
		{ "bad-varint.et", "bad-varint.et: " AFTER_META ": length: a bad varint (more than 64 bits)" },
		{ "past-end.et", "past-end.et: " AFTER_META ": length: a message of 64 bytes, and the file ends 2 bytes into it" },
		{ "cut-length.et", "cut-length.et: " AFTER_META ": length: the file ends inside a message's length" },
		{ "huge.et", "huge.et: " AFTER_META ": length: a message of 4294967295 bytes, more than the 33554432 a Chakra node may take (not a Chakra trace?)" },
		{ "not-a-node.et", "not-a-node.et: " AFTER_META ": node: a message of 3 bytes that does not unpack as a Node" },
		{ "unknown-comm-type.et", "unknown-comm-type.et: " AFTER_META ": node 17: comm_type: unknown value 42 (0-9: ALL_REDUCE .. BARRIER)" },
		{ "no-comm-size.et", "no-comm-size.et: " AFTER_META ": node 17: comm_size: missing (the call's bytes)" },
		{ "no-comm-type.et", "no-comm-type.et: " AFTER_META ": node 17: comm_type: missing" },
		{ "odd-size.et", "odd-size.et: " AFTER_META ": node 17: comm_size: 6 bytes is not a whole number of fp32 elements" },
		{ "unknown-type.et", "unknown-type.et: " AFTER_META ": node 17: inputs.types: 'Tensor(c10::complex<float>)' is not a type gdrlab knows" },
		{ "bad-kernel.et", "bad-kernel.et: " AFTER_META ": node 17: name: type suffix 'f128' is not one NCCL writes (f16, f32, bf16, f64, i8, u8, ...)" },
		/* what the fuzz target found: a name's bytes quoted as they were */
		{ "kernel-newline.et", "kernel-newline.et: " AFTER_META ": node 17: name: 'All?' is not a collective NCCL has" },
		{ "bad-pgs.et", "bad-pgs.et: " AFTER_META ": node 17: inputs.values: the process groups are not the list PyTorch writes: a group whose 'ranks' are not 'group_size' many" },
		{ "empty.et", "empty.et: chakra: an empty file (a Chakra trace starts with its GlobalMetadata)" },
		{ "json.et", "json.et: byte 0: GlobalMetadata: does not unpack (not a Chakra execution trace?)" },
		{ "no-collectives.et", "no-collectives.et: chakra: no collectives (COMM_COLL_NODE nodes with a comm_type)" },
		/* a call 23 days into its step: more than a trace holds */
		{ "clock-jump.et", "clock-jump.et: " AFTER_META ": start_time_micros: 2000000000000 us after its profiler step's start, beyond 1e+12 us (11.6 days)" },
	};
	FILE *fp;
	char path[160];

	scratch();
	write_bad("bad-varint.et", ff, sizeof(ff));
	write_bad("past-end.et", past_end, sizeof(past_end));
	write_bad("cut-length.et", cut_length, sizeof(cut_length));
	write_bad("huge.et", huge, sizeof(huge));
	write_bad("not-a-node.et", not_a_node, sizeof(not_a_node));
	write_bad("no-collectives.et", NULL, 0);
	write_bad_node("unknown-comm-type.et", &(struct node_spec){ 17, "x", COLL, 5, "['Tensor(float)']", NULL, 42, 4, "0" });
	write_bad_node("no-comm-size.et", &(struct node_spec){ 17, "x", COLL, 5, "['Tensor(float)']", NULL, ALL_REDUCE, -1, "0" });
	write_bad_node("no-comm-type.et", &(struct node_spec){ 17, "x", COLL, 5, "['Tensor(float)']", NULL, -1, 4, "0" });
	write_bad_node("odd-size.et", &(struct node_spec){ 17, "x", COLL, 5, "['Tensor(float)']", NULL, ALL_REDUCE, 6, "0" });
	write_bad_node("unknown-type.et", &(struct node_spec){ 17, "x", COLL, 5, "['Tensor(c10::complex<float>)']", NULL, ALL_REDUCE, 8, "0" });
	write_bad_node("bad-kernel.et", &(struct node_spec){ 17, "ncclDevKernel_AllReduce_Sum_f128_RING_LL(ncclDevKernelArgsStorage<4096ul>)", COLL, 5,
						    NULL, NULL, ALL_REDUCE, 8, "0" });
	write_bad_node("kernel-newline.et", &(struct node_spec){ 17, "ncclDevKernel_All\n", COLL, 5, NULL, NULL, ALL_REDUCE, 8, "0" });
	write_bad_node("bad-pgs.et", &(struct node_spec){ 17, "## process_group:init ##", CHAKRA_PROTO_MSG__NODE_TYPE__METADATA_NODE, 0, NULL,
						 "['[{\"pg_name\": \"1\", \"ranks\": [0, 1], \"group_size\": 4}]']", -1, -1, NULL });
	snprintf(path, sizeof(path), "%s/clock-jump.et", dir);
	fp = fopen(path, "wb");
	cr_assert_not_null(fp);
	put_meta(fp);
	put_node(fp, &(struct node_spec){ 17, "x", COLL, 2000000001000, "['Tensor(float)']", NULL, ALL_REDUCE, 8, "0" });
	put_node(fp, &(struct node_spec){ 2, "ProfilerStep#5", CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE, 1000, NULL, NULL,
					  -1, -1, NULL });
	put_node(fp, &(struct node_spec){ 1, "## process_group:init ##", CHAKRA_PROTO_MSG__NODE_TYPE__METADATA_NODE, 0,
					  "['String']", pgs_of(0), -1, -1, NULL });
	cr_assert_eq(fclose(fp), 0);
	snprintf(path, sizeof(path), "%s/empty.et", dir);
	fp = fopen(path, "wb");
	cr_assert_not_null(fp);
	fclose(fp);
	snprintf(path, sizeof(path), "%s/json.et", dir);
	fp = fopen(path, "wb");
	cr_assert_not_null(fp);
	/* a profiler trace's first bytes: '{' reads as a length of 123 */
	fputs("{\n \"schemaVersion\": 1,\n \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 0, \"world_size\": 4},\n"
	      " \"traceEvents\": [\n  {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#5\", \"ts\": 1000.0, \"dur\": 5000.0}\n ]\n}\n",
	      fp);
	fclose(fp);
	snprintf(path, sizeof(path), "%s/", dir);
	expect_bad_imports("chakra", path, cases, sizeof(cases) / sizeof(cases[0]));
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, cases[i].file);
		unlink(path);
	}
	rmdir(dir);
	assert_no_leaks();
}

/* Chakra's converter writes the groups as Python's str() of a list; the
 * JSON itself, or in a JSON list of one, reads the same. */
Test(import_chakra, process_groups_in_other_forms)
{
	static const char *const forms[] = {
		"[{\"pg_name\": \"0\", \"ranks\": [], \"group_size\": 2}]",
		"[[{\"pg_name\": \"0\", \"ranks\": [], \"group_size\": 2}]]",
		"[\"[{\\\"pg_name\\\": \\\"0\\\", \\\"ranks\\\": [], \\\"group_size\\\": 2}]\"]",
		"['[{\"pg_name\": \"0\", \"pg_desc\": \"it\\'s\", \"ranks\": [], \"group_size\": 2}]']",
	};

	scratch();
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		char path[160];
		const char *files[] = { path };
		struct trace t;
		struct diag d = { "" };
		FILE *fp;

		snprintf(path, sizeof(path), "%s/one.0.et", dir);
		fp = fopen(path, "wb");
		cr_assert_not_null(fp);
		put_meta(fp);
		put_node(fp, &(struct node_spec){ 1, "## process_group:init ##", CHAKRA_PROTO_MSG__NODE_TYPE__METADATA_NODE, 0,
						  NULL, forms[i], -1, -1, NULL });
		put_node(fp, &(struct node_spec){ 2, "y", COLL, 0, "['Tensor(float)']", NULL, ALL_GATHER, 4096, "0" });
		cr_assert_eq(fclose(fp), 0);
		cr_assert_eq(import_as("chakra", files, 1, &t, &d), 0, "form %zu: %s", i, d.msg);
		cr_assert_eq(t.nentries, 1);
		cr_expect_eq(t.entries[0].bytes, 8192, "form %zu", i);
		cr_expect_eq(t.entries[0].ngroup, 0, "form %zu", i);
		trace_destroy(&t);
		unlink(path);
	}
	rmdir(dir);
}

/* All of the file @path, malloc'd, in *@n bytes. */
static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *fp = fopen(path, "rb");
	uint8_t *buf = malloc(1 << 16);

	cr_assert_not_null(fp, "%s", path);
	cr_assert_not_null(buf);
	*n = fread(buf, 1, 1 << 16, fp);
	cr_assert(feof(fp), "%s: longer than 64 KiB", path);
	fclose(fp);
	return buf;
}

/*
 * tests/data/chakra/ keeps the run's files as this test writes them, for
 * the fuzz target's seeds and the CLI test: the same bytes as
 * write_run's (GDRLAB_CHAKRA_FIXTURES=DIR writes them anew into DIR).
 */
Test(import_chakra, the_checked_in_files_are_the_run)
{
	const char *out = getenv("GDRLAB_CHAKRA_FIXTURES");

	write_run(&(struct style){ 0 });
	for (int r = 0; r < 4; r++) {
		char kept[512];
		size_t n, m;
		uint8_t *a = slurp(paths[r], &n), *b;

		if (out) {
			FILE *fp;

			snprintf(kept, sizeof(kept), "%s/job.%d.et", out, r);
			fp = fopen(kept, "wb");
			cr_assert_not_null(fp, "%s", kept);
			fwrite(a, 1, n, fp);
			cr_assert_eq(fclose(fp), 0);
		}
		snprintf(kept, sizeof(kept), "%s/job.%d.et", DATA("chakra"), r);
		b = slurp(kept, &m);
		cr_expect(n == m && !memcmp(a, b, n), "%s differs from what the test writes", kept);
		free(a);
		free(b);
	}
	remove_scratch();
}

/*
 * What Chakra's converter (src/converter/pytorch_converter.py at
 * 21585d8) writes for an MoE job's rank 0 with NCCL before 2.19: an
 * all-reduce kernel of NCCL 2.8-2.18's name and no inputs.types
 * (ncclKernel_AllReduce_RING_LL_Sum_float: fp32, comm_size 4 MiB), and
 * PyTorch's nccl:all_to_all, which NCCL runs as sends and receives, as a
 * COMM_COLL_NODE named ncclDevKernel_SendRecv with comm_type ALL_TO_ALL
 * (6) and one rank's input of 65536 bfloat16 = 128 KiB, the whole send
 * buffer. No process_group:init node: --world 2 says the calls are every
 * rank's. No step: one iteration.
 */
Test(import_chakra, old_kernel_names_and_alltoall)
{
	struct import_options o = { 0 };
	const char *files[1];
	char path[128];
	struct trace t;
	struct diag d = { "" };
	FILE *fp;

	scratch();
	snprintf(path, sizeof(path), "%s/moe.0.et", dir);
	files[0] = path;
	fp = fopen(path, "wb");
	cr_assert_not_null(fp);
	put_meta(fp);
	put_node(fp, &(struct node_spec){ 4, "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", COLL, 1000,
					  NULL, NULL, ALL_REDUCE, 4194304, "0" });
	put_node(fp, &(struct node_spec){ 6, "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", COLL, 1200,
					  "['Tensor(c10::BFloat16)', 'Tensor(c10::BFloat16)', 'GenericList[]', 'GenericList[]']",
					  NULL, 6, 131072, "0" });
	cr_assert_eq(fclose(fp), 0);
	cr_assert_eq(import_options_world(&o, "2", &d), 0);
	cr_assert_eq(import_told("chakra", files, 1, &o, &t, &d), 0, "%s", d.msg);
	cr_assert_eq(t.nentries, 2);
	cr_expect_eq(t.niterations, 1);
	cr_expect_eq(t.entries[0].op, TRACE_OP_ALLREDUCE);
	cr_expect_eq(t.entries[0].dtype, TRACE_DTYPE_FP32);
	cr_expect_eq(t.entries[0].bytes, 4194304);
	cr_expect_eq(t.entries[0].ngroup, 0);
	cr_expect_eq(t.entries[1].op, TRACE_OP_ALLTOALL);
	cr_expect_eq(t.entries[1].dtype, TRACE_DTYPE_BF16);
	cr_expect_eq(t.entries[1].bytes, 131072);
	cr_expect_eq(t.entries[1].ready_us, 200);
	trace_destroy(&t);
	import_options_free(&o);
	unlink(path);
	rmdir(dir);
}
