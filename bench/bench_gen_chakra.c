/* SPDX-License-Identifier: MIT */
/*
 * bench_gen_chakra OUT [MIB]: a Chakra execution trace of about MIB MiB
 * (default 2048) for bench_import.sh, one rank's as Chakra's converter
 * writes it (src/converter/pytorch_converter.py: durations, no start
 * times; each node with its inputs and its eight attributes): the
 * process_group:init node, then 100 steps, each a ProfilerStep, 20
 * all-reduces of 6553600 bfloat16 among the world's 8 ranks, and aten::mm
 * nodes filling the rest.
 */
#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "et_def.pb-c.h"

typedef ChakraProtoMsg__AttributeProto et_attr;

static int put(FILE *fp, const ProtobufCMessage *m, uint64_t *written)
{
	static uint8_t buf[4096];
	size_t n = protobuf_c_message_get_packed_size(m), len = 0;
	uint8_t head[10];

	if (n > sizeof(buf))
		return -EINVAL;
	protobuf_c_message_pack(m, buf);
	for (size_t v = n; len == 0 || v; v >>= 7)
		head[len++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
	if (fwrite(head, 1, len, fp) != len || fwrite(buf, 1, n, fp) != n)
		return -EIO;
	*written += len + n;
	return 0;
}

/* The converter's attributes of every node, then the collective's. */
static et_attr attrs[11];
static et_attr *attr_ptrs[11];

static void set_int(et_attr *a, const char *name, int64_t v)
{
	*a = (et_attr)CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__INIT;
	a->name = (char *)name;
	a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL;
	a->int64_val = v;
}

static int put_node(FILE *fp, uint64_t id, const char *name, ChakraProtoMsg__NodeType type,
		    const char *values, const char *shapes, const char *types, bool coll,
		    uint64_t *written)
{
	ChakraProtoMsg__Node n = CHAKRA_PROTO_MSG__NODE__INIT;
	ChakraProtoMsg__IOInfo in = CHAKRA_PROTO_MSG__IOINFO__INIT;
	size_t na = 8;

	n.id = id;
	n.name = (char *)name;
	n.type = type;
	n.ctrl_deps = &(uint64_t){ id - 1 };
	n.n_ctrl_deps = 1;
	n.duration_micros = 3;
	in.values = (char *)values;
	in.shapes = (char *)shapes;
	in.types = (char *)types;
	n.inputs = &in;
	n.outputs = &in;
	set_int(&attrs[0], "rf_id", (int64_t)id);
	set_int(&attrs[1], "fw_parent", 0);
	set_int(&attrs[2], "seq_id", -1);
	set_int(&attrs[3], "scope", 7);
	set_int(&attrs[4], "tid", 1);
	set_int(&attrs[5], "fw_tid", 0);
	attrs[6] = (et_attr)CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__INIT;
	attrs[6].name = "op_schema";
	attrs[6].value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL;
	attrs[6].string_val = "";
	attrs[7] = (et_attr)CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__INIT;
	attrs[7].name = "is_cpu_op";
	attrs[7].value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_VAL;
	attrs[7].bool_val = !coll;
	if (coll) {
		set_int(&attrs[na++], "comm_type", 0);            /* ALL_REDUCE */
		set_int(&attrs[na++], "comm_size", 6553600 * 2);  /* bfloat16 */
		attrs[na] = (et_attr)CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__INIT;
		attrs[na].name = "pg_name";
		attrs[na].value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL;
		attrs[na++].string_val = "0";
	}
	for (size_t i = 0; i < na; i++)
		attr_ptrs[i] = &attrs[i];
	n.attr = attr_ptrs;
	n.n_attr = na;
	return put(fp, &n.base, written);
}

int main(int argc, char **argv)
{
	ChakraProtoMsg__GlobalMetadata meta = CHAKRA_PROTO_MSG__GLOBAL_METADATA__INIT;
	uint64_t limit, written = 0, id = 1;
	FILE *fp;
	int err;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: bench_gen_chakra OUT [MIB]\n");
		return 2;
	}
	limit = (argc == 3 ? strtoull(argv[2], NULL, 10) : 2048) << 20;
	fp = fopen(argv[1], "wb");
	if (!fp) {
		fprintf(stderr, "bench_gen_chakra: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	err = put(fp, &meta.base, &written);
	if (!err)
		err = put_node(fp, id++, "## process_group:init ##", CHAKRA_PROTO_MSG__NODE_TYPE__METADATA_NODE,
			       "['[{\"pg_name\": \"0\", \"pg_desc\": \"default_pg\", \"backend_config\": \"cuda:nccl\", \"ranks\": [], \"group_size\": 8, \"group_count\": 1}]']",
			       "[[]]", "['String']", false, &written);
	for (unsigned step = 0; !err && written < limit; step++) {
		uint64_t per_call = limit / 100 / 20, start = written;
		char name[32];

		snprintf(name, sizeof(name), "ProfilerStep#%u", step);
		err = put_node(fp, id++, name, CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE, "[]", "[]", "[]", false,
			       &written);
		for (unsigned c = 0; !err && c < 20; c++) {
			err = put_node(fp, id++, "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
				       CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE,
				       "[[5, 6, 0, 6553600, 2, 'cuda:0']]", "[[6553600]]", "['Tensor(c10::BFloat16)']", true,
				       &written);
			while (!err && written - start < (c + 1) * per_call)
				err = put_node(fp, id++, "aten::mm", CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE,
					       "[[1, 2, 0, 16777216, 2, 'cuda:0'], [3, 4, 0, 16777216, 2, 'cuda:0']]",
					       "[[4096, 4096], [4096, 4096]]",
					       "['Tensor(c10::BFloat16)', 'Tensor(c10::BFloat16)']", false, &written);
		}
	}
	if (fclose(fp) && !err)
		err = -EIO;
	if (err) {
		fprintf(stderr, "bench_gen_chakra: %s: %s\n", argv[1], strerror(-err));
		return 1;
	}
	return 0;
}
