/* SPDX-License-Identifier: MIT */
/*
 * The nccl-tests reader: the real ABCI outputs (a copy in tests/data, the
 * others from ../shared when it is there) and the synthetic files of
 * tests/data/nccl-tests/ read to the figures written in them, the text and
 * JSON twins agree, and every bad file fails with its exact one-line
 * message and leaves the file struct empty. Expected values are read off
 * the files by eye, never from the reader's output.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "nccl_tests.h"
#include "nccl_tests_noise.h"

#define NT_DATA(name) DATA("nccl-tests/" name)
#define NT_BAD(name) DATA("nccl-tests/bad/" name)
#define ABCI_DIR GDRLAB_SOURCE_DIR "/../shared/data/nccl-tests/abci-v/"

static void load(const char *path, struct nccl_tests_file *f)
{
	struct diag d = { "" };

	cr_assert_eq(nccl_tests_load(path, f, &d), 0, "%s", d.msg);
	cr_assert_str_eq(f->name, path);
}

static void load_str(const char *text, struct nccl_tests_file *f)
{
	struct diag d = { "" };

	cr_assert_eq(nccl_tests_load_buffer(text, strlen(text), "inline", f,
					    &d),
		     0, "%s", d.msg);
}

/* The message @text gives, exactly. */
static void expect_fail(const char *text, const char *msg)
{
	static const struct nccl_tests_file zero;
	struct nccl_tests_file f;
	struct diag d = { "" };

	memset(&f, 0xa5, sizeof(f));
	cr_assert_eq(nccl_tests_load_buffer(text, strlen(text), "inline", &f,
					    &d),
		     -EINVAL, "loaded: %s", text);
	cr_expect_str_eq(d.msg, msg);
	cr_expect_eq(memcmp(&f, &zero, sizeof(f)), 0, "file not emptied");
}

/* Within what "%.2f" (or "%.1f" above 9999.99) loses. */
static int same_figure(double text, double json)
{
	return fabs(text - json) <= 0.0051 || fabs(text - json) <= 1e-5 * json;
}

Test(nccl_tests, abci_2nodes_copy)
{
	struct nccl_tests_file f;
	const struct nccl_tests_row *r;
	size_t i;

	load(NT_DATA("all_reduce_2nodes.txt"), &f);
	cr_expect_eq(f.format, NCCL_TESTS_TEXT);
	cr_expect_str_eq(f.op, ""); /* this version names no test */
	cr_expect_eq(f.nranks, 8);
	cr_expect_eq(f.nhosts, 2);  /* g0185, g0186 */
	cr_expect_str_eq(f.gpu, "Tesla V100-SXM2-16GB");
	cr_expect_eq(f.nccl_version, 0); /* nccl-tests 0b30de5 prints no version line */
	cr_expect_eq(f.avg_busbw, 4.85188);
	cr_assert_eq(f.nrows, 24);  /* 4 B to 32 MiB, -f 2 */

	r = &f.rows[0];
	cr_expect_eq(r->line, 24);
	cr_expect_eq(r->size, 4);
	cr_expect_eq(r->count, 1);
	cr_expect_str_eq(r->type, "float");
	cr_expect_str_eq(r->redop, "sum");
	cr_expect_eq(r->root, -1);
	cr_expect_eq(r->oop.time_us, 17.98);
	cr_expect_eq(r->oop.max_err, 1e-07);
	cr_expect_eq(r->oop.wrong, -1);
	cr_expect(r->oop.valid);
	cr_expect_eq(r->ip.time_us, 18.00);
	cr_expect_eq(r->ip.max_err, 1e-07);

	r = &f.rows[18]; /* line 42 */
	cr_expect_eq(r->size, 1048576);
	cr_expect_eq(r->count, 262144);
	cr_expect_eq(r->oop.time_us, 198.7);
	cr_expect_eq(r->oop.algbw_gbps, 5.28);
	cr_expect_eq(r->oop.busbw_gbps, 9.24);
	cr_expect_eq(r->ip.time_us, 199.3);
	cr_expect_eq(r->ip.busbw_gbps, 9.21);

	r = &f.rows[23];
	cr_expect_eq(r->line, 47);
	cr_expect_eq(r->size, 33554432);
	cr_expect_eq(r->oop.time_us, 2970.9);
	cr_expect_eq(r->oop.busbw_gbps, 19.77);
	cr_expect_eq(r->ip.algbw_gbps, 11.30);
	cr_expect_eq(r->ip.max_err, 5e-07);
	for (i = 1; i < f.nrows; i++)
		cr_expect_eq(f.rows[i].size, 2 * f.rows[i - 1].size);
	nccl_tests_destroy(&f);
	cr_expect_null(f.rows);
	assert_no_leaks();
}

struct abci_case {
	char file[32];
	unsigned nodes;
	unsigned first_line; /* of the 4-byte row */
	double last_oop_time, last_oop_busbw, avg;
};

ParameterizedTestParameters(nccl_tests, abci_all)
{
	/* The last row (32 MiB) and the average, read off each file. */
	static struct abci_case cases[] = {
		{ "all_reduce_2nodes.txt", 2, 24, 2970.9, 19.77, 4.85188 },
		{ "all_reduce_4nodes.txt", 4, 40, 3156.6, 19.93, 4.25971 },
		{ "all_reduce_8nodes.txt", 8, 72, 3319.4, 19.59, 3.5418 },
		{ "all_reduce_16nodes.txt", 16, 136, 3857.6, 17.12, 2.8419 },
		{ "all_reduce_32nodes.txt", 32, 264, 5031.7, 13.23, 2.23976 },
	};

	return cr_make_param_array(struct abci_case, cases,
				   sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct abci_case *c, nccl_tests, abci_all)
{
	struct nccl_tests_file f;
	const struct nccl_tests_row *last;
	char path[512];

	snprintf(path, sizeof(path), "%s%s", ABCI_DIR, c->file);
	if (access(path, R_OK))
		cr_skip_test("%s: not here (../shared is not in every checkout)",
			     path);
	load(path, &f);
	cr_expect_eq(f.nranks, 4 * c->nodes, "%s: 4 GPUs a node", c->file);
	cr_expect_eq(f.nhosts, c->nodes, "%s", c->file);
	cr_expect(f.nranks >= 8 && f.nranks <= 128);
	cr_expect(f.nhosts >= 2 && f.nhosts <= 32);
	cr_expect_str_eq(f.gpu, "Tesla V100-SXM2-16GB");
	cr_expect_eq(f.avg_busbw, c->avg, "%s", c->file);
	cr_assert_eq(f.nrows, 24, "%s", c->file);
	cr_expect_eq(f.rows[0].line, c->first_line, "%s", c->file);
	cr_expect_eq(f.rows[0].size, 4);
	last = &f.rows[23];
	cr_expect_eq(last->size, 33554432);
	cr_expect_eq(last->count, 8388608);
	cr_expect_eq(last->oop.time_us, c->last_oop_time, "%s", c->file);
	cr_expect_eq(last->oop.busbw_gbps, c->last_oop_busbw, "%s", c->file);
	nccl_tests_destroy(&f);
	assert_no_leaks();
}

Test(nccl_tests, newer_text_with_root_and_noise)
{
	struct nccl_tests_file f;
	const struct nccl_tests_row *r;

	load(NT_DATA("all_reduce_a100_2nodes.txt"), &f);
	cr_expect_str_eq(f.op, "all_reduce");
	cr_expect_eq(f.nranks, 16);
	cr_expect_eq(f.nhosts, 2);
	cr_expect_str_eq(f.gpu, "NVIDIA A100-SXM4-80GB");
	cr_expect_eq(f.nccl_version, 22703); /* "nccl-library=22703" */
	cr_expect_eq(f.avg_busbw, 71.9137);
	cr_assert_eq(f.nrows, 11); /* 1 MiB to 1 GiB, past an NCCL INFO line */
	r = &f.rows[0];
	cr_expect_eq(r->line, 28);
	cr_expect_eq(r->root, -1);
	cr_expect_eq(r->oop.time_us, 62.23);
	cr_expect_eq(r->oop.busbw_gbps, 31.59);
	cr_expect_eq(r->oop.wrong, 0);
	cr_expect(isnan(r->oop.max_err));
	r = &f.rows[4]; /* after the NCCL INFO line */
	cr_expect_eq(r->line, 33);
	cr_expect_eq(r->size, 16777216);
	r = &f.rows[10];
	cr_expect_eq(r->size, 1073741824);
	cr_expect_eq(r->oop.time_us, 23450.1);
	cr_expect_eq(r->ip.busbw_gbps, 85.51);
	nccl_tests_destroy(&f);
	assert_no_leaks();
}

/*
 * The devices each host's ranks ran on ("on HOST device D"), where every
 * host lists the same: all 8 on each of all_reduce_a100_2nodes' two hosts;
 * device 0 on each in the one-rank-a-host file; none where the hosts'
 * differ (device 0 on one, 1 on the other). The JSON twin names them as
 * the text does (config.devices[].device); its NCCL is the text's too
 * ("nccl_version": 22703, the text's nccl-library=22703).
 */
Test(nccl_tests, devices_every_host_ran_on)
{
	struct nccl_tests_file f;

	load(NT_DATA("all_reduce_a100_2nodes.txt"), &f);
	cr_assert_eq(f.ndevices, 8);
	for (unsigned k = 0; k < 8; k++)
		cr_expect_eq(f.devices[k], k);
	nccl_tests_destroy(&f);
	load(NT_DATA("all_reduce_1gpu_2nodes.txt"), &f);
	cr_expect_eq(f.nranks, 2);
	cr_expect_eq(f.nhosts, 2);
	cr_assert_eq(f.ndevices, 1);
	cr_expect_eq(f.devices[0], 0);
	nccl_tests_destroy(&f);
	load(NT_DATA("all_reduce_1gpu_2nodes_devices_differ.txt"), &f);
	cr_expect_eq(f.ndevices, 0);
	nccl_tests_destroy(&f);
	load(NT_DATA("all_reduce_a100_2nodes.json"), &f);
	cr_assert_eq(f.ndevices, 8);
	for (unsigned k = 0; k < 8; k++)
		cr_expect_eq(f.devices[k], k);
	cr_expect_eq(f.nccl_version, 22703);
	cr_expect_eq(f.cuda_graphs, 0); /* "graph": 0 */
	cr_expect_eq(f.agg_iters, 1); /* "aggregated_iterations": 1 */
	nccl_tests_destroy(&f);
	assert_no_leaks();
}

Test(nccl_tests, json_twin_reads_like_the_text)
{
	struct nccl_tests_file t, j;
	size_t i;

	load(NT_DATA("all_reduce_a100_2nodes.txt"), &t);
	load(NT_DATA("all_reduce_a100_2nodes.json"), &j);
	cr_expect_eq(j.format, NCCL_TESTS_JSON);
	cr_expect_str_eq(j.op, "all_reduce"); /* args[0] ".\/build\/all_reduce_perf" */
	cr_expect_eq(j.nranks, 16);
	cr_expect_eq(j.nhosts, 2);
	cr_expect_str_eq(j.gpu, "NVIDIA A100-SXM4-80GB");
	cr_expect_eq(j.avg_busbw, 71.913736);
	cr_assert_eq(j.nrows, t.nrows);
	cr_expect_eq(j.rows[0].oop.time_us, 62.232781);
	cr_expect_eq(j.rows[0].line, 1); /* nccl-tests writes one line */
	for (i = 0; i < j.nrows; i++) {
		const struct nccl_tests_row *a = &t.rows[i], *b = &j.rows[i];

		cr_expect_eq(a->size, b->size, "row %zu", i);
		cr_expect_eq(a->count, b->count, "row %zu", i);
		cr_expect_str_eq(a->type, b->type);
		cr_expect_str_eq(a->redop, b->redop);
		cr_expect_eq(a->root, b->root, "row %zu", i);
		cr_expect(same_figure(a->oop.time_us, b->oop.time_us),
			  "row %zu: %g %g", i, a->oop.time_us, b->oop.time_us);
		cr_expect(same_figure(a->oop.algbw_gbps, b->oop.algbw_gbps));
		cr_expect(same_figure(a->ip.busbw_gbps, b->ip.busbw_gbps),
			  "row %zu: %g %g", i, a->ip.busbw_gbps, b->ip.busbw_gbps);
		cr_expect_eq(a->oop.wrong, b->oop.wrong);
		cr_expect_eq(a->ip.wrong, b->ip.wrong);
		cr_expect(b->oop.valid && b->ip.valid);
	}
	nccl_tests_destroy(&t);
	nccl_tests_destroy(&j);
	assert_no_leaks();
}

Test(nccl_tests, alltoall_na_and_empty_rows)
{
	struct nccl_tests_file f;
	const struct nccl_tests_row *r;

	load(NT_DATA("alltoall_a100_2nodes.txt"), &f);
	cr_expect_str_eq(f.op, "alltoall");
	/* 64 and 128 B give 0 elements a rank: two "0 0" rows left out */
	cr_assert_eq(f.nrows, 13);
	r = &f.rows[0];
	cr_expect_eq(r->line, 28);
	cr_expect_eq(r->size, 256); /* 4 elements x 16 ranks x 4 B */
	cr_expect_eq(r->count, 4);
	cr_expect_str_eq(r->redop, "none");
	cr_expect_eq(r->oop.wrong, 0);
	cr_expect_eq(r->ip.wrong, -1); /* N/A: in place is not checked */
	cr_expect(r->ip.valid);
	cr_expect_eq(r->ip.time_us, 32.11);
	cr_expect_eq(f.rows[12].size, 1048576);
	cr_expect_eq(f.rows[12].oop.busbw_gbps, 12.66);
	cr_expect_eq(f.avg_busbw, 2.28);
	nccl_tests_destroy(&f);
	assert_no_leaks();
}

Test(nccl_tests, per_iteration_columns_and_timestamps)
{
	struct nccl_tests_file f;
	const struct nccl_tests_row *r;

	load(NT_DATA("sendrecv_per_iter.txt"), &f);
	cr_expect_str_eq(f.op, "sendrecv");
	cr_expect_eq(f.nranks, 2);
	cr_expect_eq(f.nhosts, 1);
	cr_assert_eq(f.nrows, 3);
	r = &f.rows[2];
	cr_expect_eq(r->size, 4194304);
	cr_expect_eq(r->oop.time_us, 31.30);
	cr_expect_eq(r->oop.busbw_gbps, 134.00);
	cr_expect_eq(r->ip.time_us, 31.36); /* after i_min ... i_cv% */
	cr_expect_eq(r->ip.algbw_gbps, 133.73);
	cr_expect_eq(r->ip.wrong, -1);
	nccl_tests_destroy(&f);
}

Test(nccl_tests, old_alltoall_without_redop)
{
	struct nccl_tests_file f;
	const struct nccl_tests_row *r;

	load(NT_DATA("alltoall_2021.txt"), &f);
	cr_expect_eq(f.nranks, 4);
	cr_expect_eq(f.nhosts, 2);
	cr_expect_str_eq(f.gpu, "Tesla V100-SXM2-32GB");
	cr_assert_eq(f.nrows, 3);
	r = &f.rows[1];
	cr_expect_str_eq(r->redop, "");
	cr_expect_eq(r->size, 2048);
	cr_expect_eq(r->count, 128);
	cr_expect_eq(r->oop.time_us, 25.87);
	cr_expect_eq(r->oop.max_err, 0);
	cr_expect(isnan(r->ip.max_err)); /* N/A */
	cr_expect_eq(r->ip.time_us, 26.27);
	nccl_tests_destroy(&f);
}

/* Formats the shipped files do not show: each read inline. */
Test(nccl_tests, other_layouts)
{
	struct nccl_tests_file f;

	/* Broadcast before 2.13: a root column and no redop; -C 1 cputime,
	 * whose halves' algbw (0.10) is too coarse to give a time */
	load_str("#       size         count    type    root  cputime   algbw   busbw  error  cputime   algbw   busbw  error\n"
		 "        1024           256   float       3    10.00    0.10    0.10  0e+00    10.00    0.10    0.10  0e+00\n"
		 "# Avg bus bandwidth    : -nan \n",
		 &f);
	cr_assert_eq(f.nrows, 1);
	cr_expect(f.cputime);
	cr_expect_not(f.rows[0].oop.valid);
	cr_expect(isnan(f.rows[0].ip.time_us));
	cr_expect_eq(f.rows[0].root, 3);
	cr_expect_str_eq(f.rows[0].redop, "");
	cr_expect(isnan(f.avg_busbw));
	cr_expect_eq(f.nranks, 0);
	cr_expect_eq(f.nhosts, 0);
	cr_expect_str_eq(f.gpu, "");
	nccl_tests_destroy(&f);

	/* hypercube prints an empty redop under today's header, CRLF lines */
	load_str("# Collective test starting: hypercube_perf_mpi\r\n"
		 "#  Rank  0 Group  0 Pid   7 on h1 device  0 [0000:07:00] G\r\n"
		 "#  Rank  1 Group  0 Pid   8 on h2 device  0 [0000:07:00] G\r\n"
		 "#  size  count  type  redop  root  time  algbw  busbw  #wrong  time  algbw  busbw  #wrong\r\n"
		 "   1024    128  float            -1  9.00   0.11   0.06       0  9.00   0.11   0.06       0\r\n",
		 &f);
	cr_expect_str_eq(f.op, "hypercube");
	cr_assert_eq(f.nrows, 1);
	cr_expect_str_eq(f.rows[0].redop, "");
	cr_expect_eq(f.nhosts, 2);
	cr_expect_str_eq(f.gpu, "G");
	nccl_tests_destroy(&f);

	/* JSON version 1 as first written: typos, cpu_time (the time from
	 * alg_bw: 8 B / 2 GB/s = 0.004 us), nulls, int root */
	load_str("  {\"version\": 1, \"args\": [\"/opt/nt/broadcast_perf\"],\n"
		 "   \"results\": [{\"size\": 8, \"count\": 2, \"type\": \"float\",\n"
		 "     \"redop\": \"none\", \"root\": 0, \"out_of_place\": null,\n"
		 "     \"in_place\": {\"cpu_time\": 5.5, \"alg_bw\": 2.0, \"bus_bw\": 2.0,\n"
		 "                  \"nwrong\": null}}],\n"
		 "   \"average_bus_bandwidith\": {\"bandwidith\": 0.5}}",
		 &f);
	cr_expect_eq(f.format, NCCL_TESTS_JSON);
	cr_expect_str_eq(f.op, "broadcast");
	cr_assert_eq(f.nrows, 1);
	cr_expect_eq(f.rows[0].line, 2);
	cr_expect_eq(f.rows[0].root, 0);
	cr_expect_not(f.rows[0].oop.valid);
	cr_expect(isnan(f.rows[0].oop.time_us));
	cr_expect(f.rows[0].ip.valid);
	cr_expect(f.cputime);
	cr_expect_eq(f.rows[0].ip.time_us, 8 / 2.0e3);
	cr_expect_eq(f.rows[0].ip.wrong, -1);
	cr_expect_eq(f.avg_busbw, 0.5);
	nccl_tests_destroy(&f);
	assert_no_leaks();
}

/*
 * One file per release format (tests/data/nccl-tests/README.md), each
 * written with that release's printf formats; every figure below is read
 * off the file by eye.
 */

/* Within what a double makes of "0.118" x 1000. */
static int near(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fmax(1, fabs(b));
}

/* v1.0.0 (2018): "bytes N type op", times in ms, "res", no '#' footer,
 * device lines without Pid, one per process */
Test(nccl_tests, release_v1_all_reduce_ms)
{
	struct nccl_tests_file f;
	const struct nccl_tests_row *r;

	load(NT_DATA("v1.0.0_all_reduce.txt"), &f);
	cr_expect_str_eq(f.op, "");
	cr_expect_eq(f.nranks, 4);
	cr_expect_eq(f.nhosts, 2); /* node-a1, node-a2 */
	cr_expect_eq(f.ngroups, 1);
	cr_expect_str_eq(f.gpu, "Tesla P100-SXM2-16GB");
	cr_expect_eq(f.nccl_version, 0); /* "compiled with NCCL 2.2" is no library */
	cr_expect_eq(f.avg_busbw, 1.34824); /* " Avg bus bandwidth    : 1.34824" */
	cr_assert_eq(f.nrows, 9); /* 8 B to 512 KiB, -f 4 */
	r = &f.rows[0];
	cr_expect_eq(r->line, 11);
	cr_expect_eq(r->size, 8);
	cr_expect_eq(r->count, 2);
	cr_expect_str_eq(r->redop, "sum");
	cr_expect_eq(r->root, -1);
	cr_expect(near(r->oop.time_us, 31), "%g", r->oop.time_us); /* 0.031 ms */
	cr_expect(near(r->ip.time_us, 32), "%g", r->ip.time_us);
	cr_expect_eq(r->oop.max_err, 0); /* 0e+00 */
	cr_expect_eq(r->oop.wrong, -1);
	r = &f.rows[8];
	cr_expect_eq(r->size, 524288);
	cr_expect_eq(r->count, 131072);
	cr_expect(near(r->oop.time_us, 118), "%g", r->oop.time_us);
	cr_expect_eq(r->oop.algbw_gbps, 4.43);
	cr_expect_eq(r->oop.busbw_gbps, 6.64);
	cr_expect_eq(r->oop.max_err, 1e-07);
	cr_expect(near(r->ip.time_us, 119), "%g", r->ip.time_us);
	cr_expect_eq(r->ip.busbw_gbps, 6.59);
	cr_expect(r->ip.valid);
	nccl_tests_destroy(&f);
	assert_no_leaks();
}

/*
 * v1.0.0 under mpirun: each process printed its own ranks' lines, one
 * process after another (no gather to rank 0 before v2.0.0), and
 * mpirun's forwarding put process 1's (ranks 2, 3) first. The same run
 * as in order: 4 ranks on 2 hosts, rank 0's GPU, the same 9 rows.
 */
Test(nccl_tests, release_v1_device_lines_out_of_order)
{
	struct nccl_tests_file f, g;

	load(NT_DATA("v1.0.0_all_reduce_mpi.txt"), &f);
	load(NT_DATA("v1.0.0_all_reduce.txt"), &g);
	cr_expect_eq(f.nranks, 4);
	cr_expect_eq(f.nhosts, 2);
	cr_expect_eq(f.ngroups, 1);
	cr_expect_str_eq(f.gpu, "Tesla P100-SXM2-16GB");
	cr_assert_eq(f.nrows, g.nrows);
	for (size_t i = 0; i < f.nrows; i++) {
		cr_expect_eq(f.rows[i].size, g.rows[i].size);
		cr_expect_eq(f.rows[i].oop.time_us, g.rows[i].oop.time_us);
		cr_expect_eq(f.rows[i].ip.busbw_gbps, g.rows[i].ip.busbw_gbps);
	}
	nccl_tests_destroy(&f);
	nccl_tests_destroy(&g);
	assert_no_leaks();
}

/* v1.0.0's broadcast: out of place only, a root column, -c 0 ("\tN/A") */
Test(nccl_tests, release_v1_broadcast_one_half)
{
	struct nccl_tests_file f;
	const struct nccl_tests_row *r;

	load(NT_DATA("v1.0.0_broadcast_nocheck.txt"), &f);
	cr_expect_eq(f.nranks, 4);
	cr_expect_eq(f.nhosts, 1);
	cr_expect_eq(f.avg_busbw, 24.2307);
	cr_assert_eq(f.nrows, 5);
	r = &f.rows[0];
	cr_expect_eq(r->line, 11);
	cr_expect_eq(r->size, 65536);
	cr_expect_eq(r->root, 1);
	cr_expect_str_eq(r->redop, "");
	cr_expect(near(r->oop.time_us, 14), "%g", r->oop.time_us);
	cr_expect_eq(r->oop.busbw_gbps, 4.81);
	cr_expect(isnan(r->oop.max_err)); /* N/A */
	cr_expect(r->oop.valid);
	cr_expect_not(r->ip.valid); /* never timed */
	cr_expect(isnan(r->ip.time_us));
	r = &f.rows[4];
	cr_expect_eq(r->size, 16777216);
	cr_expect(near(r->oop.time_us, 431), "%g", r->oop.time_us);
	cr_expect_eq(r->oop.busbw_gbps, 38.89);
	nccl_tests_destroy(&f);
	assert_no_leaks();
}

/* v2.11.0: no redop or root for all_gather, "error", "%7.0f" past 10 ms,
 * 2 processes x -t 2 listing their threads' ranks in order */
Test(nccl_tests, release_v2_11_all_gather_threads)
{
	struct nccl_tests_file f;
	const struct nccl_tests_row *r;

	load(NT_DATA("v2.11.0_all_gather_threads.txt"), &f);
	cr_expect_eq(f.nranks, 4);
	cr_expect_eq(f.nhosts, 2);
	cr_expect_str_eq(f.gpu, "A100-SXM4-40GB");
	cr_expect_eq(f.avg_busbw, 6.92027);
	cr_assert_eq(f.nrows, 7); /* 1 KiB to 256 MiB, -f 8 */
	r = &f.rows[0];
	cr_expect_eq(r->line, 12);
	cr_expect_eq(r->size, 1024);
	cr_expect_eq(r->count, 64); /* a rank's: 1024 / 4 B / 4 ranks */
	cr_expect_str_eq(r->redop, "");
	cr_expect_eq(r->root, -1);
	cr_expect_eq(r->oop.time_us, 24.06);
	cr_expect_eq(r->oop.busbw_gbps, 0.03);
	cr_expect_eq(r->oop.max_err, 0);
	cr_expect_eq(r->ip.time_us, 24.56);
	cr_expect_eq(f.rows[4].oop.time_us, 257.0); /* "%7.1f" */
	r = &f.rows[6];
	cr_expect_eq(r->size, 268435456);
	cr_expect_eq(r->count, 16777216);
	cr_expect_eq(r->oop.time_us, 14937); /* "%7.0f" */
	cr_expect_eq(r->oop.busbw_gbps, 13.48);
	cr_expect_eq(r->ip.time_us, 14938);
	nccl_tests_destroy(&f);
	assert_no_leaks();
}

/* v2.13.0-v2.13.3: redop and root for every test, broadcast's redop an
 * empty cell; "#wrong" */
Test(nccl_tests, release_v2_13_0_broadcast_empty_redop)
{
	struct nccl_tests_file f;
	const struct nccl_tests_row *r;

	load(NT_DATA("v2.13.0_broadcast.txt"), &f);
	cr_expect_eq(f.nranks, 8);
	cr_expect_eq(f.nhosts, 1);
	cr_expect_eq(f.avg_busbw, 53.0804);
	cr_assert_eq(f.nrows, 13); /* 8 B to 128 MiB, -f 4 */
	r = &f.rows[0];
	cr_expect_eq(r->line, 16);
	cr_expect_eq(r->size, 8);
	cr_expect_str_eq(r->redop, "");
	cr_expect_eq(r->root, 3);
	cr_expect_eq(r->oop.time_us, 9.20);
	cr_expect_eq(r->oop.wrong, 0);
	r = &f.rows[11];
	cr_expect_eq(r->size, 33554432);
	cr_expect_eq(r->oop.time_us, 185.8);
	cr_expect_eq(r->oop.busbw_gbps, 180.59);
	r = &f.rows[12];
	cr_expect_eq(r->size, 134217728);
	cr_expect_eq(r->oop.time_us, 715.6);
	cr_expect_eq(r->ip.time_us, 715.7);
	cr_expect_eq(r->ip.busbw_gbps, 187.53);
	nccl_tests_destroy(&f);
	assert_no_leaks();
}

/* v2.14.1-v2.16.6: "Rank .. Group .. Pid", the bus as domain:bus:device;
 * -C 1 and -G 10: the time columns are the host's enqueue time (8 us),
 * algbw the GPU's, so each time is size / algbw (src/common.cu v2.15.0:
 * cputimeSec before completeColl, getBw of deltaSec) */
Test(nccl_tests, release_v2_15_reduce_scatter_cputime)
{
	struct nccl_tests_file f;
	const struct nccl_tests_row *r;

	load(NT_DATA("v2.15.0_reduce_scatter_cputime.txt"), &f);
	cr_expect_str_eq(f.op, "");
	cr_expect_eq(f.nranks, 16);
	cr_expect_eq(f.nhosts, 2);
	cr_expect_eq(f.ngroups, 1);
	cr_expect_str_eq(f.gpu, "NVIDIA H100 80GB HBM3");
	cr_expect_eq(f.avg_busbw, 157.547);
	cr_assert_eq(f.nrows, 8); /* 32 MiB to 4 GiB */
	r = &f.rows[0];
	cr_expect_eq(r->line, 24);
	cr_expect_eq(r->size, 33554432);
	cr_expect_eq(r->count, 524288); /* a rank's: 32 MiB / 4 B / 16 */
	cr_expect_str_eq(r->redop, "sum");
	cr_expect(f.cputime);
	cr_expect_eq(f.cuda_graphs, 10); /* "graph: 10" in its run's line */
	cr_expect_eq(f.agg_iters, 1);    /* "agg iters: 1" there too */
	cr_expect_eq(r->oop.time_us, 33554432 / 140.74e3); /* 238.4 us */
	cr_expect_eq(r->oop.busbw_gbps, 131.94);
	cr_expect_eq(r->ip.time_us, 33554432 / 138.90e3);
	r = &f.rows[7];
	cr_expect_eq(r->size, 4294967296);
	cr_expect_eq(r->count, 67108864);
	cr_expect_eq(r->oop.time_us, 4294967296 / 179.61e3); /* 23913 us */
	cr_expect_eq(r->oop.busbw_gbps, 168.38);
	cr_expect_eq(r->ip.time_us, 4294967296 / 176.62e3);
	nccl_tests_destroy(&f);
	assert_no_leaks();
}

/* v2.17.3-v2.19.5 getFloatStr: "%7.0f" up to 9999999 us, then "%7.1e" */
Test(nccl_tests, release_v2_17_large_times)
{
	struct nccl_tests_file f;
	const struct nccl_tests_row *r;

	load(NT_DATA("v2.17.9_all_reduce_tcp.txt"), &f);
	cr_expect_str_eq(f.op, "all_reduce"); /* all_reduce_perf_mpi */
	cr_expect_eq(f.nccl_version, 22803);
	cr_expect_eq(f.nranks, 2);
	cr_expect_eq(f.nhosts, 2);
	cr_expect_str_eq(f.gpu, "NVIDIA RTX A6000");
	cr_expect_eq(f.avg_busbw, 1.01759);
	cr_assert_eq(f.nrows, 8); /* 1 MiB to 16 GiB, -f 4 */
	cr_expect_eq(f.rows[0].line, 13); /* past an NCCL INFO line */
	cr_expect_eq(f.rows[2].oop.time_us, 16158.3);
	cr_expect_eq(f.rows[4].oop.time_us, 255833);
	cr_expect_eq(f.rows[6].oop.time_us, 4090625);
	r = &f.rows[7];
	cr_expect_eq(r->size, 17179869184ULL);
	cr_expect_eq(r->count, 4294967296ULL);
	cr_expect_eq(r->oop.time_us, 1.6e7); /* "1.6e+07" */
	cr_expect_eq(r->oop.busbw_gbps, 1.05);
	cr_expect_eq(r->ip.time_us, 1.7e7);
	cr_expect_eq(r->ip.busbw_gbps, 1.04);
	nccl_tests_destroy(&f);
	assert_no_leaks();
}

/* mpirun -np 2 all_gather_perf -g 2: the text lists 4 ranks, -J one
 * entry per process (src/util.cu parseRankInfo), so 2 x ngpus 2 */
/*
 * NCCL's log on nccl-tests' stdout (NCCL_DEBUG=INFO, as in NVIDIA/nccl
 * issue 1453): rank 0 prints a row's size .. root, then NCCL logs the
 * calls it times, each a line of its own but the first glued to the
 * cells before it, on a host whose name starts with digits
 * ("-110-1-0-7:31000:31000 [0] NCCL INFO ..."). Its log lines before
 * the table name the host, so every row reads as printed; and the same
 * run through Open MPI's --tag-output, rank 1's log lines among rank 0's.
 */
Test(nccl_tests, rows_cut_by_nccl_log_lines_and_launcher_prefixes)
{
	static const struct { uint64_t size; double oop, ip; } want[] = {
		{ 8, 19.90, 18.96 }, { 128, 20.11, 20.02 }, { 2048, 22.40, 22.31 },
		{ 32768, 31.50, 31.22 }, { 524288, 70.05, 69.80 },
	};
	const char *files[] = { NT_DATA("all_reduce_nccl_info.txt"), NT_DATA("all_reduce_ompi_tag.txt") };

	for (size_t k = 0; k < 2; k++) {
		struct nccl_tests_file f;

		load(files[k], &f);
		cr_expect_str_eq(f.op, "all_reduce");
		cr_expect_eq(f.nranks, 2);
		cr_expect_eq(f.nhosts, 2);
		cr_expect_eq(f.nccl_version, 22703);
		cr_assert_eq(f.nrows, 5, "%s", files[k]);
		for (size_t i = 0; i < 5; i++) {
			cr_expect_eq(f.rows[i].size, want[i].size, "%s row %zu", files[k], i);
			cr_expect_eq(f.rows[i].oop.time_us, want[i].oop, "%s row %zu", files[k], i);
			cr_expect_eq(f.rows[i].ip.time_us, want[i].ip, "%s row %zu", files[k], i);
		}
		/* the rows cut by the log are read at the line they began on */
		cr_expect_eq(f.rows[0].line, k ? 18 : 15, "%s: %u", files[k], f.rows[0].line);
		nccl_tests_destroy(&f);
	}
	assert_no_leaks();
}

/* A row that NCCL's log cut, its pieces longer than a line may be, is
 * refused as a line too long, at the line it began on (the fuzz target
 * found the pieces written past the buffer). */
Test(nccl_tests, a_cut_row_longer_than_a_line)
{
	static const char head[] =
		"#  size  count  type  redop  root  time  algbw  busbw  #wrong  time  algbw  busbw  #wrong\n"
		"       8      2 float    sum    -1h:1:1 [0] NCCL INFO x\n";
	size_t n = strlen(head) + 3 * 4100;
	char *text = malloc(n);

	cr_assert_not_null(text);
	strcpy(text, head);
	for (int k = 0; k < 3; k++) {
		size_t at = strlen(text);

		memset(text + at, ' ', 2);
		memset(text + at + 2, '1', 3988);
		strcpy(text + at + 3990, "h:1:1 [0] NCCL INFO y\n");
	}
	expect_fail(text, "inline:2: row: line longer than 4095 bytes");
	free(text);
}

/* The prefixes launchers write, and the log line glued to a row's last
 * cell: after a host seen whole, else after the cell (a number, N/A);
 * a host of digits not seen whole cannot be told from the cell. */
Test(nccl_tests, launcher_prefixes_and_glued_log_lines)
{
	struct nt_log_hosts hosts = { .n = 0 };
	const char *glued = "   -1nodeA:12:34 [0] NCCL INFO x";
	const char *na = "   N/Anode-b:1:1 [3] NCCL WARN y";
	const char *digits = "   -110-1-0-7:1:2 [0] NCCL INFO z";
	const char *log = "10-1-0-7:31000:31000 [0] NCCL INFO NCCL version 2.27.3";

#define PFX(s) nt_launcher_prefix(s, strlen(s))
	cr_expect_eq(PFX("[1,0]<stdout>:# size"), 14);
	cr_expect_eq(PFX("[12,3]<stderr>:x"), 15);
	cr_expect_eq(PFX("[0] # nThread"), 4);
	cr_expect_eq(PFX(" 0: #"), 4);
	cr_expect_eq(PFX("12: x"), 4);
	cr_expect_eq(PFX("           8             2"), 0);
	cr_expect_eq(PFX("[0]x"), 0);
	cr_expect_eq(PFX("1234:5678:5678 [0] NCCL INFO"), 0);
#undef PFX
	cr_expect_eq(nt_glued_log(glued, strlen(glued), &hosts), 5);
	cr_expect_eq(nt_glued_log(na, strlen(na), &hosts), 6);
	cr_expect_eq(nt_glued_log(digits, strlen(digits), &hosts), strlen(digits));
	cr_expect_not(nt_log_line(glued, strlen(glued), &hosts));
	cr_assert(nt_log_line(log, strlen(log), &hosts));
	cr_expect_str_eq(hosts.name[0], "10-1-0-7");
	cr_expect_eq(nt_glued_log(digits, strlen(digits), &hosts), 5);
	cr_expect_eq(nt_glued_log(log, strlen(log), &hosts), strlen(log)); /* not glued */
}

Test(nccl_tests, release_v2_19_json_one_entry_per_process)
{
	struct nccl_tests_file t, j;
	size_t i;

	load(NT_DATA("all_gather_2procs_g2.txt"), &t);
	load(NT_DATA("all_gather_2procs_g2.json"), &j);
	cr_expect_eq(t.nranks, 4);
	cr_expect_eq(j.nranks, 4);
	cr_expect_eq(t.nhosts, 2);
	cr_expect_eq(j.nhosts, 2);
	cr_expect_str_eq(j.op, "all_gather");
	cr_expect_eq(j.avg_busbw, 10.916575);
	cr_expect_eq(t.avg_busbw, 10.9166);
	cr_assert_eq(t.nrows, 7);
	cr_assert_eq(j.nrows, 7);
	cr_expect_eq(t.rows[0].size, 65536);
	cr_expect_eq(t.rows[0].count, 4096); /* 64 KiB / 4 B / 4 ranks */
	cr_expect_eq(t.rows[6].oop.time_us, 13442.8);
	cr_expect_eq(j.rows[6].oop.time_us, 13442.772800);
	for (i = 0; i < j.nrows; i++) {
		cr_expect_eq(t.rows[i].size, j.rows[i].size, "row %zu", i);
		cr_expect_eq(t.rows[i].count, j.rows[i].count, "row %zu", i);
		cr_expect(same_figure(t.rows[i].oop.busbw_gbps, j.rows[i].oop.busbw_gbps),
			  "row %zu", i);
		cr_expect(same_figure(t.rows[i].ip.time_us, j.rows[i].ip.time_us),
			  "row %zu", i);
	}
	nccl_tests_destroy(&t);
	nccl_tests_destroy(&j);
	assert_no_leaks();
}

/* NCCL_TESTS_SPLIT=%2: ranks 0 and 2 (group 0) and 1 and 3 (group 1) ran
 * two all_gathers at once; the rows are group 0's, sized for 2 ranks */
Test(nccl_tests, split_groups)
{
	struct nccl_tests_file f;

	load(NT_DATA("split_all_gather.txt"), &f);
	cr_expect_eq(f.ngroups, 2);
	cr_expect_eq(f.nranks, 2);
	cr_expect_eq(f.nhosts, 2); /* n1 and n2, one rank on each */
	cr_assert_eq(f.nrows, 3);
	cr_expect_eq(f.rows[0].size, 1048576);
	cr_expect_eq(f.rows[0].count, 131072); /* 1 MiB / 4 B / 2 ranks */
	nccl_tests_destroy(&f);
	/* the same in -J, whose entries carry the group */
	load_str("{\"version\": 3, \"args\": [\"./all_gather_perf_mpi\"],"
		 " \"config\": {\"nthreads\": 1, \"ngpus\": 1, \"devices\": ["
		 "{\"rank\": 0, \"group\": 0, \"hostname\": \"n1\"},"
		 "{\"rank\": 1, \"group\": 1, \"hostname\": \"n1\"},"
		 "{\"rank\": 2, \"group\": 0, \"hostname\": \"n2\"},"
		 "{\"rank\": 3, \"group\": 1, \"hostname\": \"n2\"}]},"
		 " \"results\": [{\"size\": 1048576, \"count\": 131072, \"type\": \"float\","
		 " \"redop\": \"none\", \"root\": \"    -1\","
		 " \"out_of_place\": {\"time\": 125.3, \"alg_bw\": 8.37, \"bus_bw\": 4.18, \"nwrong\": 0.0},"
		 " \"in_place\": {\"time\": 125.3, \"alg_bw\": 8.37, \"bus_bw\": 4.18, \"nwrong\": 0.0}}]}",
		 &f);
	cr_expect_eq(f.ngroups, 2);
	cr_expect_eq(f.nranks, 2);
	cr_expect_eq(f.nhosts, 2);
	nccl_tests_destroy(&f);
	assert_no_leaks();
}

Test(nccl_tests, op_names)
{
	cr_expect_str_eq(nccl_tests_op_to_trace("all_reduce"), "allreduce");
	cr_expect_str_eq(nccl_tests_op_to_trace("all_gather"), "all_gather");
	cr_expect_str_eq(nccl_tests_op_to_trace("reduce_scatter"),
			 "reduce_scatter");
	cr_expect_str_eq(nccl_tests_op_to_trace("broadcast"), "broadcast");
	cr_expect_str_eq(nccl_tests_op_to_trace("alltoall"), "alltoall");
	cr_expect_str_eq(nccl_tests_op_to_trace("sendrecv"), "sendrecv");
	cr_expect_null(nccl_tests_op_to_trace("reduce"));
	cr_expect_null(nccl_tests_op_to_trace("gather"));
	cr_expect_null(nccl_tests_op_to_trace("scatter"));
	cr_expect_null(nccl_tests_op_to_trace("hypercube"));
	cr_expect_null(nccl_tests_op_to_trace("alltoallv"));
	cr_expect_null(nccl_tests_op_to_trace(""));
	cr_expect_null(nccl_tests_op_to_trace("allreduce"));
	cr_expect_null(nccl_tests_op_to_trace(NULL));
}

/* One bad file and the whole message it must give after its path. */
struct bad_case {
	char file[32];
	char msg[256];
};

ParameterizedTestParameters(nccl_tests, bad_file)
{
	static struct bad_case cases[] = {
		/* 7 lines of warnings and comments, the last one where it ran out */
		{ "no-table.txt", ":7: table: no nccl-tests results table in its 7 lines (no '#  size  count  type ...' header line)" },
		{ "no-rows.txt", ":10: table: no result rows after the header" },
		{ "truncated-row.txt", ":13: in-place #wrong: missing: the row has 12 of the 13 columns of the header" },
		{ "cut-row.txt", ":14: in-place time: the file ends in the middle of a row (9 of 13 columns)" },
		{ "no-footer.txt", ":30: table: ends after 7 rows (the last 256 bytes) without the '# Avg bus bandwidth' line that closes a run begun on line 9: the run was cut short or the file truncated" },
		{ "bad-number.txt", ":13:74: out-of-place busbw: '0.2x' is not a number" },
		{ "negative-time.txt", ":13:56: out-of-place time: must be >= 0, got -10.31" },
		{ "size-order.txt", ":14:9: size: 2048 bytes after 4096 on line 13: sizes must increase" },
		{ "size-repeat.txt", ":14:9: size: 2048 bytes again (as on line 13): sizes must increase (one run per file, no -N)" },
		{ "size-count.txt", ":13:9: size: 2048 bytes disagrees with count 256 x 4-byte float (1024 bytes)" },
		{ "unknown-type.txt", ":12:30: type: unknown data type 'float16' (int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16, f8e4m3, f8e5m2)" },
		{ "two-types.txt", ":14:33: type: 'half' after 'float' on line 12: one data type per file (run nccl-tests with one -d)" },
		{ "extra-column.txt", ":13:126: row: 14 columns where the header on line 10 has 13" },
		{ "bad-device.txt", ":7:46: Rank: expected 'Rank N [Group G] [Pid P] on HOST device D [BUS] NAME'" },
		{ "bad-header.txt", ":10:72: header: '#wrong' where 'busbw' was expected" },
		{ "two-runs.txt", ":23:4: Rank: rank 0 again (the list began on line 6): a second run, or the 1-rank runs of an nccl-tests built without MPI and started as several processes; one run per file" },
		{ "no-mpi-two-processes.txt", ":12:4: Rank: rank 0 again (the list began on line 11): a second run, or the 1-rank runs of an nccl-tests built without MPI and started as several processes; one run per file" },
		/* v1.0.0's lines are taken in rank order, but each rank once */
		{ "v1-rank-twice.txt", ":6:5: Rank: rank 1 again (also on line 5): a second run, or the 1-rank runs of an nccl-tests built without MPI and started as several processes; one run per file" },
		{ "cycles.txt", ":15:9: size: 1024 bytes after 4096 on line 14: the sizes start over (nccl-tests -N repeats them, or a second run): one series per file" },
		/* the failure line of another process, of rank 0's own ending
		 * a row (common.h NCCLCHECK), one before the table */
		{ "failure-other-rank.txt", ":16:9: run: nccl-tests failed after 3 rows (the last 4194304 bytes): 'Test NCCL failure common.cu:507 'remote process exited or there was a network error / NET/IB...': the table is incomplete" },
		{ "failure-in-row.txt", ":14:86: run: nccl-tests failed after 2 rows (the last 2097152 bytes): 'Test NCCL failure common.cu:492 'unhandled cuda error'': the table is incomplete" },
		{ "failure-before-table.txt", ":7:8: run: nccl-tests failed before its results table: 'Test NCCL failure common.cu:1005 'unhandled cuda error (run with NCCL_DEBUG=INFO for details...'" },
		{ "json-syntax.json", ":1:730: json: '}' expected near '\"count\"'" },
		{ "json-truncated.json", ":1:859: json: string or '}' expected near end of file: the file ends inside its JSON (cut short, or its run died before closing it)" },
		{ "json-failed-run.json", ":1:1152: results[2].in_place: missing: the run stopped in this size (no average_bus_bandwidth after the results: nccl-tests failed here)" },
		{ "json-no-version.json", ":1:1: version: missing required key (not an nccl-tests -J file?)" },
		{ "json-no-results.json", ":1:1: results: missing required key" },
		{ "json-missing-key.json", ":1:711: results[1].in_place.bus_bw: missing required key" },
		{ "json-size-string.json", ":1:442: results[0].size: expected an integer, got a string" },
		{ "json-gather-size.json", ":1:982: results[2].size: 4096 bytes disagrees with count 1024 x 4-byte float x 2 ranks (8192 bytes)" },
		{ "json-order.json", ":1:981: results[2].size: 2048 bytes after 4096 in results[1]: sizes must increase" },
		{ "json-nwrong.json", ":1:980: results[2].out_of_place.nwrong: 0.5 is not a count of wrong elements" },
	};

	return cr_make_param_array(struct bad_case, cases,
				   sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct bad_case *c, nccl_tests, bad_file)
{
	static const struct nccl_tests_file zero;
	char path[512], want[800];
	struct nccl_tests_file f;
	struct diag d = { "" };
	int err;

	snprintf(path, sizeof(path), "%s", NT_BAD(""));
	strncat(path, c->file, sizeof(path) - strlen(path) - 1);
	memset(&f, 0xa5, sizeof(f));
	err = nccl_tests_load(path, &f, &d);
	cr_assert_eq(err, -EINVAL, "%s: got %d (%s)", c->file, err, d.msg);
	snprintf(want, sizeof(want), "%s%s", path, c->msg);
	cr_expect_str_eq(d.msg, want, "%s", c->file);
	cr_expect_null(strchr(d.msg, '\n'), "message is not one line");
	cr_expect_eq(memcmp(&f, &zero, sizeof(f)), 0, "%s: not emptied",
		     c->file);
	assert_no_leaks();
}

/* Rules that need no file of their own. */
Test(nccl_tests, bad_inline)
{
	static const char hdr[] =
		"#  Rank  0 Group  0 Pid 1 on h1 device 0 [0000:07:00] G\n"
		"#  Rank  1 Group  0 Pid 2 on h1 device 1 [0000:0f:00] G\n"
		"#  size  count  type  redop  root  time  algbw  busbw  #wrong  time  algbw  busbw  #wrong\n";
	char buf[1024];

	/* No test name: the factor may be 1 or the ranks listed, no other */
	snprintf(buf, sizeof(buf), "%s%s", hdr,
		 "  24  2  float  sum  -1  1.0  0.0  0.0  0  1.0  0.0  0.0  0\n");
	expect_fail(buf, "inline:4:3: size: 24 bytes disagrees with count 2 x 4-byte float: neither 8 bytes nor that x 2 ranks");
	/* ... and the same for every row */
	snprintf(buf, sizeof(buf), "%s%s", hdr,
		 "  8  2  float  sum  -1  1.0  0.0  0.0  0  1.0  0.0  0.0  0\n"
		 "  32  4  float  sum  -1  1.0  0.0  0.0  0  1.0  0.0  0.0  0\n");
	expect_fail(buf, "inline:5:3: size: 32 bytes disagrees with count 4 x 4-byte float x 1 as on line 4 (16 bytes)");
	snprintf(buf, sizeof(buf), "%s%s", hdr,
		 "  8  2  float  sum  -1  1.0  0.0  0.0  1.5  1.0  0.0  0.0  0\n");
	expect_fail(buf, "inline:4:40: out-of-place #wrong: '1.5' is not a count of wrong elements");
	snprintf(buf, sizeof(buf), "%s%s", hdr,
		 "  8  2  float  sum  -1  1.0  0.0  inf  0  1.0  0.0  0.0  0\n");
	expect_fail(buf, "inline:4:35: out-of-place busbw: 'inf' is not a number");
	snprintf(buf, sizeof(buf), "%s%s", hdr,
		 "  8  2  float  s+m  -1  1.0  0.0  0.0  0  1.0  0.0  0.0  0\n");
	expect_fail(buf, "inline:4:16: redop: 's+m' is not a reduction name");
	snprintf(buf, sizeof(buf), "%s%s", hdr,
		 "  0  3  float  sum  -1  1.0  0.0  0.0  0  1.0  0.0  0.0  0\n");
	expect_fail(buf, "inline:4:6: count: 3 elements in a row of 0 bytes");
	snprintf(buf, sizeof(buf), "%s%s", hdr,
		 "  0  0  float  sum  -1  1.0  0.0  0.0  0  1.0  0.0  0.0  0\n");
	expect_fail(buf, "inline:3: table: no result rows after the header (only rows of 0 bytes)");
	snprintf(buf, sizeof(buf), "%s%s", hdr,
		 "  8  2  float  sum  -1  1.0  0.0  0.0  0  1.0  0.0  0.0  0\n"
		 "# Avg bus bandwidth    : fast\n");
	expect_fail(buf, "inline:5:26: Avg bus bandwidth: 'fast' is not a number");
	snprintf(buf, sizeof(buf), "%s%s", hdr,
		 "  8  2  float  sum  -1  1.0  0.0  0.0  0  1.0  0.0  0.0  0\n"
		 "  16  4  float  sum  0  1.0  0.0  0.0  0  1.0  0.0  0.0  0\n");
	expect_fail(buf, "inline:5:22: root: 0 after -1 on line 4: one root per file (run nccl-tests with one -r)");
	expect_fail("#  size  count  type  time  algbw  busbw  #wrong  time  algbw  busbw  #wrong  extra\n",
		    "inline:1:79: header: unknown column 'extra' after the last one");
	expect_fail("", "inline:1: table: no nccl-tests results table in its 0 lines (no '#  size  count  type ...' header line)");
	expect_fail("{\"version\": 3, \"results\": []}",
		    "inline:1:27: results: no rows");
	expect_fail("{\"version\": 0, \"results\": []}",
		    "inline:1:13: version: must be >= 1, got 0");
	expect_fail("{\"version\": 3, \"config\": {\"devices\": [{\"rank\": 1, \"hostname\": \"h\"}]}, \"results\": []}",
		    "inline:1:26: config.devices[0].rank: rank 1 where rank 0 was due (each rank once, in order; one run per file)");
	expect_fail("{\"version\": 3, \"results\": [7]}",
		    "inline:1:28: results[0]: expected an object, got an integer");
	/* -J lists a process's first rank only: with -g 2 the next is 2 */
	expect_fail("{\"version\": 3, \"config\": {\"ngpus\": 2, \"devices\": [{\"rank\": 0, \"hostname\": \"h\"}, {\"rank\": 1, \"hostname\": \"h\"}]}, \"results\": []}",
		    "inline:1:26: config.devices[1].rank: rank 1 where rank 2 was due (each rank once, in order; one run per file)");
	expect_fail("{\"version\": 3, \"config\": {\"ngpus\": 0, \"devices\": []}, \"results\": []}",
		    "inline:1:26: config.ngpus: must be >= 1, got 0");
	expect_fail("{\"version\": 3, \"results\": []}{\"version\": 3}",
		    "inline:1:30: json: end of file expected near '{': more follows the document (two runs' files joined?): one run per file");
	/* nccl-tests' failures in the table, its timeout (-T) and v1.0.0's */
	snprintf(buf, sizeof(buf), "%s%s", hdr,
		 "  8  2  float  sum  -1  1.0  0.0  0.0  0  1.0  0.0  0.0  0\n"
		 "h1: Test timeout (5s) common.cu:336\n");
	expect_fail(buf, "inline:5:5: run: nccl-tests failed after 1 row (the last 8 bytes): 'Test timeout (5s) common.cu:336': the table is incomplete");
	snprintf(buf, sizeof(buf), "%s%s", hdr,
		 "  8  2  float  sumNCCL failure common.cu:461 'unhandled cuda error'\n");
	expect_fail(buf, "inline:4:19: run: nccl-tests failed before its first row: 'NCCL failure common.cu:461 'unhandled cuda error'': the table is incomplete");
	assert_no_leaks();
}

/* What only looks like a failure is noise, as before. */
Test(nccl_tests, failure_lookalikes)
{
	struct nccl_tests_file f;

	/* NCCL's own warning (no file:line after it), a job's echo */
	load_str("#  size  count  type  redop  root  time  algbw  busbw  #wrong  time  algbw  busbw  #wrong\n"
		 "  8  2  float  sum  -1  1.0  0.0  0.0  0  1.0  0.0  0.0  0\n"
		 "h1:1:2 [0] NCCL WARN Cuda failure 'out of memory'\n"
		 "echo: Test failure modes next\n"
		 "  16  4  float  sum  -1  1.0  0.0  0.0  0  1.0  0.0  0.0  0\n"
		 "# Avg bus bandwidth    : 0 \n"
		 "h1: Test NCCL failure common.cu:1790 'invalid usage'\n", /* after the footer */
		 &f);
	cr_expect_eq(f.nrows, 2);
	nccl_tests_destroy(&f);
	assert_no_leaks();
}

Test(nccl_tests, missing_file)
{
	struct nccl_tests_file f;
	struct diag d = { "" };

	cr_expect_eq(nccl_tests_load(NT_DATA("no-such-file.txt"), &f, &d),
		     -ENOENT);
	cr_expect_not_null(strstr(d.msg, "no-such-file.txt: cannot read: "),
			   "%s", d.msg);
	cr_expect_null(f.rows);
}

/* More than NCCL_TESTS_ROWS_MAX sizes (-i 4 from 4 B) is refused. */
Test(nccl_tests, row_limit)
{
	const size_t n = NCCL_TESTS_ROWS_MAX + 1;
	struct nccl_tests_file f;
	struct diag d = { "" };
	size_t cap = n * 80 + 200, len, i;
	char *buf = malloc(cap);

	cr_assert_not_null(buf);
	len = (size_t)snprintf(buf, cap, "#  size  count  type  redop  time  algbw  busbw  #wrong  time  algbw  busbw  #wrong\n");
	for (i = 1; i <= n; i++)
		len += (size_t)snprintf(buf + len, cap - len,
					"%zu %zu float sum 1.0 0.0 0.0 0 1.0 0.0 0.0 0\n",
					4 * i, i);
	cr_assert_eq(nccl_tests_load_buffer(buf, len, "big", &f, &d), -EINVAL);
	cr_expect_str_eq(d.msg, "big:65538:1: size: more than 65536 rows");
	cr_expect_null(f.rows);
	/* one row fewer loads */
	buf[len - 1] = '\0';	      /* the last row's newline */
	strrchr(buf, '\n')[1] = '\0'; /* and the row */
	cr_assert_eq(nccl_tests_load_buffer(buf, strlen(buf), "big", &f, &d), 0,
		     "%s", d.msg);
	cr_expect_eq(f.nrows, NCCL_TESTS_ROWS_MAX);
	nccl_tests_destroy(&f);
	free(buf);
	assert_no_leaks();
}

/* Every cut of a good file either reads or fails cleanly, on one line. */
static void every_prefix(const char *path)
{
	struct nccl_tests_file f;
	struct diag d;
	char *buf;
	long size;
	size_t n;
	FILE *fp = fopen(path, "rb");
	int err;

	cr_assert_not_null(fp, "%s", path);
	fseek(fp, 0, SEEK_END);
	size = ftell(fp);
	rewind(fp);
	buf = malloc((size_t)size);
	cr_assert_not_null(buf);
	cr_assert_eq(fread(buf, 1, (size_t)size, fp), (size_t)size);
	fclose(fp);
	for (n = 0; n <= (size_t)size; n++) {
		d.msg[0] = '\0';
		err = nccl_tests_load_buffer(buf, n, "cut", &f, &d);
		if (err) {
			cr_expect_eq(err, -EINVAL, "length %zu: %d", n, err);
			cr_expect_neq(d.msg[0], '\0', "length %zu: no message", n);
			cr_expect_null(strchr(d.msg, '\n'));
			cr_expect_null(f.rows);
		} else {
			cr_expect_gt(f.nrows, 0);
			nccl_tests_destroy(&f);
		}
	}
	free(buf);
}

Test(nccl_tests, every_prefix_is_handled)
{
	every_prefix(NT_DATA("all_reduce_a100_2nodes.txt"));
	every_prefix(NT_DATA("all_reduce_a100_2nodes.json"));
	every_prefix(NT_DATA("v1.0.0_broadcast_nocheck.txt"));
	every_prefix(NT_DATA("all_gather_2procs_g2.json"));
	every_prefix(NT_BAD("failure-in-row.txt"));
	assert_no_leaks();
}
