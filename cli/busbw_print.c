/* SPDX-License-Identifier: MIT */
/*
 * busbw's outputs: nccl-tests' table (util.cu writeResultHeader,
 * writeBenchmarkLinePreamble, writeBenchmarkLineBody, writeResultFooter
 * of 2.19: the same widths and number formats, so the two can be read
 * side by side) with gdrlab's columns after it; JSON; CSV.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "algo.h"
#include "busbw.h"
#include "json_util.h"
#include "report.h"

#define PREAMBLE "%12llu  %12llu  %8s  %6s  %6i"

/* The redop column: -o's for a reduction, nccl-tests' own otherwise
 * ("none"; sendrecv prints "sum"). */
static const char *redop_name(const struct busbw_args *a)
{
	return trace_op_reduces(a->coll->op) ? trace_redop_name(a->redop) : a->coll->redop;
}

static bool predicted(const struct predict_point *p)
{
	return p->size != 0;
}

static void print_half(FILE *out, const struct predict_point *p)
{
	char t[8], a[7], b[7];

	if (predicted(p))
		nccl_format_float(t, p->rec.time_us, 7);
	else
		snprintf(t, sizeof(t), "N/A");
	fprintf(out, "  %7s  %6s  %6s  %6s", t, nccl_format_float(a, p->rec.algbw_gbps, 6),
		nccl_format_float(b, p->rec.busbw_gbps, 6), "N/A");
}

static void print_choice(FILE *out, const struct predict_point *p)
{
	char e[9];

	if (!predicted(p)) {
		fprintf(out, "  %-13s  %-6s  %3s  %8s  %s\n", "-", "-", "-", "-", "-");
		return;
	}
	if (isfinite(p->rec.nccl_estimate_us))
		nccl_format_float(e, p->rec.nccl_estimate_us, 8);
	else
		snprintf(e, sizeof(e), "N/A");
	fprintf(out, "  %-13s  %-6s  %3u  %8s  %s\n", algo_name(p->rec.algo),
		proto_name(p->rec.proto), p->rec.nchannels, e, plan_path_used_name(p->rec.path));
}

/* One graph as NCCL_DEBUG_SUBSYS=GRAPH sums it up ("nChannels 4, bw
 * 24.000000/24.000000, type NVL/PXB"): channels, bwIntra/bwInter GB/s a
 * channel, the links inside a node and the farthest GPU-NIC path. */
static void print_graph(FILE *out, const char *name, const struct nccl_graph *g,
			unsigned nodes)
{
	fprintf(out, "%s %u channel%s, bw %.1f/%.1f, type %s", name, g->nchannels,
		g->nchannels == 1 ? "" : "s", g->bw_intra, g->bw_inter,
		g->nvlink ? "NVL" : "PCI");
	if (nodes > 1)
		fprintf(out, "/%s", nccl_graph_inter_name(g));
	/* a tree other than the balanced one NCCL asks for */
	if (nodes > 1 && (g->pattern == NCCL_PATTERN_TREE || g->pattern == NCCL_PATTERN_SPLIT_TREE))
		fprintf(out, ", pattern %s", nccl_pattern_name(g->pattern));
}

/* What NCCL's search gives the whole communicator, to hold against its
 * GRAPH log lines (docs/cli.md). */
static void print_graphs(FILE *out, const struct busbw_run *r)
{
	const struct nccl_channels *c = &r->graphs;

	if (!c->ring.nchannels)
		return;
	fprintf(out, "# NCCL's graphs (NCCL_DEBUG_SUBSYS=GRAPH; bw GB/s a channel): ");
	print_graph(out, "ring", &c->ring, r->nodes);
	if (r->nodes > 1)
		print_graph(out, "; tree", &c->tree, r->nodes);
	if (c->nvls.nchannels)
		print_graph(out, "; nvls", &c->nvls, r->nodes);
	fprintf(out, "; communicator %u channels\n", c->comm_channels);
}

/* Why some sizes did not go direct, as run's tables say it: the first
 * reason and how many sizes it stands for. */
static void print_fallback(FILE *out, const struct busbw_run *r)
{
	const struct predict_point *first = NULL;
	size_t n = 0, of = 0;

	for (size_t i = 0; i < r->n; i++) {
		of += predicted(&r->pts[i]);
		if (predicted(&r->pts[i]) && r->pts[i].fallback[0]) {
			first = first ? first : &r->pts[i];
			n++;
		}
	}
	if (first)
		fprintf(out, "# %s on %zu of %zu size%s: %s\n", plan_path_used_name(first->rec.path), n,
			of, of == 1 ? "" : "s", first->fallback);
}

static void print_header(FILE *out, const struct busbw_run *r)
{
	const struct busbw_args *a = r->a;
	const struct plan_options *o = &a->opts;
	char gpus[200], nccl[48];

	fprintf(out, "# gdrlab busbw: %s_perf as the %s backend predicts it (nothing was run)\n",
		a->coll->name, r->backend);
	/* nccl-tests' own line (2.16.7 and on), which names the test for a
	 * reader, validate --nccl-tests among them */
	fprintf(out, "# Collective test starting: %s_perf\n", a->coll->name);
	if (a->stepfactor > 1)
		fprintf(out, "# minBytes %llu maxBytes %llu step: %u(factor) type %s\n",
			(unsigned long long)a->minbytes, (unsigned long long)a->maxbytes,
			a->stepfactor, a->type->name);
	else
		fprintf(out, "# minBytes %llu maxBytes %llu step: %llu(bytes) type %s\n",
			(unsigned long long)a->minbytes, (unsigned long long)a->maxbytes,
			(unsigned long long)a->stepbytes, a->type->name);
	node_gpus_describe(&r->gpus, r->topo, gpus, sizeof(gpus));
	fprintf(out, "# topology %s (%s): %u node%s x %s = %u rank%s, %u NIC%s per node\n",
		r->topo->name, a->topology, r->nodes, r->nodes == 1 ? "" : "s", gpus, r->nranks,
		r->nranks == 1 ? "" : "s", r->topo->nnics, r->topo->nnics == 1 ? "" : "s");
	cli_sets_print(out, "# ", &a->sets);
	/* validate --nccl-tests reads this line back (nccl_tests_text.c
	 * busbw_line): the release as asked, "2.15" or "2.18.5", where
	 * another's tables stand for it, for its own GDR default, p2p LL and
	 * search constants (nccl_release_exact) */
	predict_nccl_name(o, nccl, sizeof(nccl));
	fprintf(out, "# path %s, GDR level %s, NCCL %s%s%s%s%s%s%s%s\n", plan_path_name(o->path),
		topo_path_name(o->gdr_level), nccl, o->algo ? ", NCCL_ALGO " : "",
		o->algo ? o->algo : "", o->proto ? ", NCCL_PROTO " : "",
		o->proto ? o->proto : "", o->pxn_off ? ", PXN off" : "",
		o->p2p_level ? ", NCCL_P2P_LEVEL " : "", p2p_user_level_name(o->p2p_level));
	if ((o->algo || o->proto) &&
	    (a->coll->op == TRACE_OP_ALLTOALL || a->coll->op == TRACE_OP_SENDRECV))
		/* enqueue.cc addP2pToPlan: no tuner, LL by a send's size */
		fprintf(out, "# NCCL_ALGO and NCCL_PROTO do not steer NCCL's p2p path (%s): it has "
			     "no algorithm, and each send is LL or Simple by its size\n",
			a->coll->name);
	print_fallback(out, r);
	print_graphs(out, r);
	if (r->nranks == 1)
		/* enqueue.cc: ncclLaunchOneRank, a copy (or a scaling) on the GPU */
		fprintf(out, "# one rank: NCCL copies the buffer on its GPU (src/device/onerank.cu), "
			     "which gdrlab does not time (no GPU memory figure): 0 us\n");
	fprintf(out, "# algo, proto, nch: NCCL's choice; nccl_est: NCCL's own estimate (its TUNING lines)\n");
	fprintf(out, "#\n");
	fprintf(out, "# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          "
		"  %s\n", "", "", "", "", "", "gdrlab: what NCCL runs");
	fprintf(out, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s  %-13s  %-6s  %3s  %8s  %s\n",
		"size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong",
		"time", "algbw", "busbw", "#wrong", "algo", "proto", "nch", "nccl_est", "path");
	fprintf(out, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s  %-13s  %-6s  %3s  %8s\n",
		"(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)",
		"(GB/s)", "(GB/s)", "", "", "", "", "(us)");
}

void busbw_print_table(FILE *out, const struct busbw_run *r)
{
	const struct busbw_args *a = r->a;

	print_header(out, r);
	for (size_t i = 0; i < r->n; i++) {
		const struct predict_point *p = &r->pts[i];

		fprintf(out, PREAMBLE, (unsigned long long)p->size,
			(unsigned long long)r->counts[i], a->type->name,
			redop_name(a), a->coll->root);
		/* out of place, in place: NCCL runs both alike */
		print_half(out, p);
		print_half(out, p);
		print_choice(out, p);
	}
	/* nccl-tests' footer (src/util.cu writeResultFooter): nothing was
	 * checked, so nothing was out of bounds; no -G check of the average */
	fprintf(out, "# %-20s : %d %s\n", "Out of bounds values", 0, "OK");
	fprintf(out, "# %-20s : %g %s\n", "Avg bus bandwidth", r->avg_busbw, "");
	fprintf(out, "#\n");
	fprintf(out, "# Collective test concluded: %s_perf\n", r->a->coll->name);
}

static json_t *real_or_null(bool ok, double v)
{
	return ok && isfinite(v) ? json_real(v) : json_null();
}

static json_t *string_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *row_json(const struct busbw_run *r, size_t i)
{
	const struct predict_point *p = &r->pts[i];
	bool ok = predicted(p);

	/*
	 * One rank: 0, as the table and `run --json` give it, not null
	 * (which says "not predicted": a 0-byte row's time). Nothing crosses
	 * a link (NCCL copies the buffer on its GPU, enqueue.cc
	 * ncclLaunchOneRank: the header says it is not timed, so 0 us and
	 * algbw 0, schedule.c's rule for a time of 0), and nccl-tests' busbw
	 * factor is 0 for one rank (nccl-tests 2.19.6 src/all_reduce.cu:63
	 * AllReduceGetBw, 2(n-1)/n; (n-1)/n for the gathers and alltoall).
	 */
	return json_pack("{s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "size", (json_int_t)p->size, "count", (json_int_t)r->counts[i],
			 "time_us", real_or_null(ok, p->rec.time_us),
			 "algbw_gbps", real_or_null(true, p->rec.algbw_gbps),
			 "busbw_gbps", real_or_null(true, p->rec.busbw_gbps),
			 "algo", string_or_null(ok ? algo_name(p->rec.algo) : NULL),
			 "proto", string_or_null(ok ? proto_name(p->rec.proto) : NULL),
			 "channels", ok ? json_integer(p->rec.nchannels) : json_null(),
			 "nccl_estimate_us", real_or_null(ok, p->rec.nccl_estimate_us),
			 "path", string_or_null(ok ? plan_path_used_name(p->rec.path) : NULL),
			 "fallback", string_or_null(ok && p->fallback[0] ? p->fallback : NULL));
}

static json_t *graph_json(const struct nccl_graph *g, unsigned nodes)
{
	if (!g->nchannels)
		return json_null();
	return json_pack("{s:i, s:f, s:f, s:s, s:o, s:b, s:s}", "channels", (int)g->nchannels,
			 "bw_intra_gbps", g->bw_intra, "bw_inter_gbps", g->bw_inter,
			 "intra", g->nvlink ? "NVL" : "PCI",
			 "inter", nodes > 1 ? json_string(nccl_graph_inter_name(g)) : json_null(),
			 "pxn", g->pxn, "pattern", nccl_pattern_name(g->pattern));
}

/* null when nothing was predicted */
static json_t *graphs_json(const struct busbw_run *r)
{
	const struct nccl_channels *c = &r->graphs;

	if (!c->ring.nchannels)
		return json_null();
	return json_pack("{s:o, s:o, s:o, s:i}", "ring", graph_json(&c->ring, r->nodes),
			 "tree", r->nodes > 1 ? graph_json(&c->tree, r->nodes) : json_null(),
			 "nvls", graph_json(&c->nvls, r->nodes), "comm_channels",
			 (int)c->comm_channels);
}

static json_t *run_json(const struct busbw_run *r)
{
	const struct busbw_args *a = r->a;
	const struct plan_options *o = &a->opts;
	json_t *doc = json_object(), *rows = json_array();
	char test[48];

	if (!doc || !rows)
		goto err;
	snprintf(test, sizeof(test), "%s_perf", a->coll->name);
	json_object_set_new(doc, "backend", json_string(r->backend));
	json_object_set_new(doc, "topology", json_string(r->topo->name));
	json_object_set_new(doc, "topology_file", json_file_name(a->topology));
	if (cli_sets_json(doc, &a->sets))
		goto err;
	json_object_set_new(doc, "test", json_string(test));
	json_object_set_new(doc, "op", json_string(trace_op_name(a->coll->op)));
	json_object_set_new(doc, "type", json_string(a->type->name));
	json_object_set_new(doc, "dtype", json_string(trace_dtype_name(a->type->dtype)));
	json_object_set_new(doc, "redop", json_string(redop_name(a)));
	json_object_set_new(doc, "root", json_integer(a->coll->root));
	json_object_set_new(doc, "nodes", json_integer(r->nodes));
	json_object_set_new(doc, "gpus_per_node", json_integer(r->topo->ngpus));
	json_object_set_new(doc, "gpus", node_gpus_json(&r->gpus, r->topo));
	json_object_set_new(doc, "ranks", json_integer(r->nranks));
	json_object_set_new(doc, "path", json_string(plan_path_name(o->path)));
	json_object_set_new(doc, "gdr_level", json_string(topo_path_name(o->gdr_level)));
	json_object_set_new(doc, "nccl", json_string(nccl_releases[o->nccl]->version));
	json_object_set_new(doc, "nccl_algo", string_or_null(o->algo));
	json_object_set_new(doc, "nccl_proto", string_or_null(o->proto));
	json_object_set_new(doc, "nchannels", o->nchannels ? json_integer(o->nchannels) : json_null());
	json_object_set_new(doc, "pxn", json_boolean(!o->pxn_off));
	json_object_set_new(doc, "p2p_level", o->p2p_level ?
				 json_string(p2p_user_level_name(o->p2p_level)) : json_null());
	json_object_set_new(doc, "graphs", graphs_json(r));
	json_object_set_new(doc, "min_bytes", json_integer((json_int_t)a->minbytes));
	json_object_set_new(doc, "max_bytes", json_integer((json_int_t)a->maxbytes));
	json_object_set_new(doc, "step_factor", json_integer(a->stepfactor));
	json_object_set_new(doc, "step_bytes", a->stepfactor > 1 ? json_null() :
				 json_integer((json_int_t)a->stepbytes));
	for (size_t i = 0; i < r->n; i++) {
		json_t *row = row_json(r, i);

		if (!row || json_array_append_new(rows, row))
			goto err;
	}
	json_object_set_new(doc, "rows", rows);
	json_object_set_new(doc, "avg_busbw_gbps", json_real(r->avg_busbw));
	return doc;
err:
	json_decref(rows);
	json_decref(doc);
	return NULL;
}

int busbw_write_json(FILE *out, const struct busbw_run *r)
{
	return report_json_write_doc(out, run_json(r));
}

int busbw_write_csv(FILE *out, const struct busbw_run *r)
{
	const struct busbw_args *a = r->a;

	fprintf(out, "size,count,type,redop,root,time_us,algbw_gbps,busbw_gbps,algo,proto,"
		"channels,nccl_estimate_us,path\n");
	for (size_t i = 0; i < r->n; i++) {
		const struct predict_point *p = &r->pts[i];

		fprintf(out, "%llu,%llu,%s,%s,%d,", (unsigned long long)p->size,
			(unsigned long long)r->counts[i], a->type->name, redop_name(a),
			a->coll->root);
		if (!predicted(p)) {
			fprintf(out, ",0,0,,,,,\n");
			continue;
		}
		/* one rank too: 0, as in JSON and `run --csv` */
		fprintf(out, "%.3f,%.4f,%.4f,", p->rec.time_us, p->rec.algbw_gbps,
			p->rec.busbw_gbps);
		fprintf(out, "%s,%s,%u,", algo_name(p->rec.algo), proto_name(p->rec.proto),
			p->rec.nchannels);
		if (isfinite(p->rec.nccl_estimate_us))
			fprintf(out, "%.3f", p->rec.nccl_estimate_us);
		fprintf(out, ",%s\n", plan_path_used_name(p->rec.path));
	}
	return ferror(out) ? -EIO : 0;
}
