/* SPDX-License-Identifier: MIT */
/*
 * JSON reports. The keys of `run --json` and `compare --json` are a
 * contract other tools rely on (docs/cli.md): add keys, never rename them.
 */
#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo.h"
#include "json_util.h"

static json_t *stages_json(const struct coll_record *c)
{
	json_t *o = json_object();

	for (int k = 0; k < STAGE_KIND_COUNT && o; k++)
		if (c->stage_us[k] > 0)
			json_object_set_new(o, stage_kind_name(k),
					    json_pack("{s:f,s:I}", "busy_us",
						      c->stage_us[k], "bytes",
						      (json_int_t)c->stage_bytes[k]));
	return o;
}

/* A send's rank, or null. */
static json_t *rank_or_null(int rank)
{
	return rank >= 0 ? json_integer(rank) : json_null();
}

static json_t *collective_json(const struct records *r, const struct coll_record *c)
{
	return json_pack("{s:I,s:s,s:I,s:i,s:f,s:f,s:f,s:f,s:f,s:f,s:s,s:o,s:o,s:o,"
			 "s:s,s:s,s:i,s:o,s:s,s:i,s:f,s:o,s:o,s:o,s:b}",
			 "iteration", (json_int_t)c->iteration,
			 "op", trace_op_name(c->op),
			 "bytes", (json_int_t)c->bytes,
			 "ranks", (int)c->nranks,
			 "ready_us", c->ready_us,
			 "start_us", c->start_us,
			 "end_us", c->end_us,
			 "time_us", c->time_us,
			 "algbw_gbps", c->algbw_gbps,
			 "busbw_gbps", c->busbw_gbps,
			 "path", plan_path_used_name(c->path),
			 "fallback", c->fallback ? json_string(c->fallback) : json_null(),
			 "shm", c->shm ? json_string(c->shm) : json_null(),
			 "stages", stages_json(c),
			 "algo", algo_name(c->algo),
			 "proto", proto_name(c->proto),
			 "channels", (int)c->nchannels,
			 "nccl_estimate_us", isfinite(c->nccl_estimate_us) ?
				 json_real(c->nccl_estimate_us) : json_null(),
			 "comm", records_comm_name(r, c),
			 "stream", (int)c->stream,
			 "alone_us", c->alone_us,
			 "src", rank_or_null(c->src),
			 "dst", rank_or_null(c->dst),
			 "batch", c->batched ? json_integer(c->batch) : json_null(),
			 "pair_stream", c->pair_queue);
}

/* The placeholder of list @k: a string no name can hold. jansson writes
 * the control character as \u0001: LIST_MARK_OUT is how it reads back. */
#define LIST_MARK_TEXT "gdrlab collectives "
#define LIST_MARK "\x01" LIST_MARK_TEXT "%u\x01"
#define LIST_MARK_OUT "\"\\u0001" LIST_MARK_TEXT

/* The switches (engine/fabric.h), or null for a crossbar. */
static json_t *fabric_json(const struct records *r)
{
	const struct fabric_geom *g = &r->fabric;

	if (!g->tiers)
		return json_null();
	return json_pack("{s:i,s:s,s:I,s:i,s:i,s:i,s:i,s:f,s:f}",
			 "tiers", (int)g->tiers,
			 "attach", r->attach == TOPO_ATTACH_RAIL ? "rail" : "node",
			 "ecmp_seed", (json_int_t)r->ecmp_seed,
			 "leaves", (int)g->leaves,
			 "spines", (int)g->spines,
			 "cores", (int)g->cores,
			 "pods", (int)g->pods,
			 "leaf_oversubscription", r->leaf_oversubscription,
			 "spine_oversubscription", r->spine_oversubscription);
}

static json_t *run_json(const struct report_context *ctx, const struct records *r,
			struct report_json *j)
{
	const struct plan *p = ctx->plan;
	json_t *doc, *colls, *iters;
	char mark[64];

	doc = json_pack("{s:s,s:s,s:s,s:o,s:o,s:i,s:i,s:i,s:f,s:f,s:f,s:s,s:s,s:I,s:i}",
			"backend", r->backend,
			"path", plan_path_name(r->path),
			"topology", p->topo.name,
			/* any bytes, where the other strings are ours */
			"topology_file", json_file_name(ctx->topology_file),
			"trace_file", json_file_name(ctx->trace_file),
			"nodes", (int)r->nodes,
			"gpus_per_node", (int)r->gpus_per_node,
			"nics_per_node", (int)p->topo.nnics,
			"iteration_time_us", r->iteration_time_us,
			"comm_time_us", r->comm_time_us,
			"exposed_comm_us", r->exposed_comm_us,
			"nccl", p->nccl->version,
			"gdr_level", topo_path_name(p->opts.gdr_level),
			"chunk_bytes", (json_int_t)p->topo.staging.chunk_bytes,
			"buffers", (int)p->topo.staging.buffers);
	colls = json_array();
	iters = json_array();
	if (!doc || !colls || !iters)
		goto err;
	/* calls at once counted once: what the sum, comm_time_us, is not */
	json_object_set_new(doc, "comm_busy_us", json_real(r->comm_busy_us));
	json_object_set_new(doc, "p2p_level", p->opts.p2p_level ?
			    json_string(p2p_user_level_name(p->opts.p2p_level)) : json_null());
	/* the tuner's choice forced, as busbw --json names it: a reader
	 * sees that "algo" per collective was not NCCL's own */
	json_object_set_new(doc, "nccl_algo", p->opts.algo ? json_string(p->opts.algo) : json_null());
	json_object_set_new(doc, "nccl_proto", p->opts.proto ? json_string(p->opts.proto) : json_null());
	json_object_set_new(doc, "nchannels", p->opts.nchannels ? json_integer(p->opts.nchannels) :
								   json_null());
	json_object_set_new(doc, "pxn", json_boolean(!p->opts.pxn_off));
	json_object_set_new(doc, "communicators", json_integer((json_int_t)(r->ncomms ? r->ncomms : 1)));
	json_object_set_new(doc, "sharing", json_string(records_sharing_name(r->sharing)));
	json_object_set_new(doc, "fabric", fabric_json(r));
	if (r->gpu_registration)
		json_object_set_new(doc, "gpu_registration",
				    json_string(r->gpu_registration));
	if (r->link.device[0]) {
		json_t *rdma = json_pack("{s:s,s:i,s:i,s:s,s:s,s:i,s:i,s:i,s:b}",
					 "device", r->link.device,
					 "port", (int)r->link.port,
					 "gid_index", r->link.gid_index,
					 "gid", r->link.gid,
					 "gid_type", r->link.gid_type,
					 "mtu", (int)r->link.mtu,
					 "traffic_class", (int)r->link.tc,
					 "service_level", (int)r->link.sl,
					 "relaxed_ordering", (int)r->link.relaxed_ordering);

		/* 8 B one-way, half the median round trip: ib_write_lat's
		 * t_typical, for the data path (emu/pingpong.h) */
		if (rdma && r->link.latency_rounds) {
			json_object_set_new(rdma, "latency_us", json_real(r->link.latency_us));
			json_object_set_new(rdma, "latency_rounds",
					    json_integer(r->link.latency_rounds));
		}
		json_object_set_new(doc, "rdma", rdma);
	}
	if (r->data_checked) {
		json_object_set_new(doc, "verified_bytes",
				    json_integer((json_int_t)r->verified_bytes));
		json_object_set_new(doc, "data_errors",
				    json_integer((json_int_t)r->data_errors));
	}
	for (unsigned i = 0; i < r->niter; i++) {
		json_t *it = json_pack("{s:i,s:f,s:f,s:f,s:f,s:f,s:f}",
				       "iteration", (int)r->iter[i].iteration,
				       "start_us", r->iter[i].start_us,
				       "end_us", r->iter[i].end_us,
				       "compute_us", r->iter[i].compute_us,
				       "comm_us", r->iter[i].comm_us,
				       "comm_busy_us", r->iter[i].busy_us,
				       "exposed_comm_us", r->iter[i].exposed_us);

		/* jobs each keep their own iterations: whose this one is */
		if (it && r->njobs)
			json_object_set_new(it, "job", json_integer(r->iter[i].job));
		json_array_append_new(iters, it);
	}
	/* the collectives: written in place of this when the report is */
	snprintf(mark, sizeof(mark), LIST_MARK, j->nlists);
	j->lists[j->nlists++] = r;
	json_decref(colls);
	colls = json_string(mark);
	json_object_set_new(doc, "iterations", iters);
	json_object_set_new(doc, "collectives", colls);
	return doc;
err:
	json_decref(doc);
	json_decref(colls);
	json_decref(iters);
	return NULL;
}

/* A speedup, null where it is undefined (report_speedup's 0: nothing
 * timed on the faster path). */
static json_t *speedup_json(double x)
{
	return x > 0 ? json_real(x) : json_null();
}

/* Speedups of direct over one staged path, under explicit names. */
static json_t *speedups_json(const struct records *slow, const struct records *fast)
{
	return json_pack("{s:o,s:o}", "communication", speedup_json(report_comm_speedup(slow, fast)),
			 "iteration", speedup_json(report_speedup(slow, fast)));
}

static json_t *one_collective(const struct records *r, size_t i)
{
	json_t *c = collective_json(r, &r->coll[i]);

	const struct coll_record *rc = &r->coll[i];
	bool link = rc->fabric_link != RECORDS_NO_LINK && rc->fabric_link < r->nlink_names;

	if (c && r->data_checked)
		json_object_set_new(c, "data_errors",
				    json_integer((json_int_t)r->coll[i].data_errors));
	if (c) {
		json_object_set_new(c, "fabric_link",
				    link ? json_string(r->link_names[rc->fabric_link]) : json_null());
		json_object_set_new(c, "fabric_flows",
				    json_integer(link ? (json_int_t)rc->fabric_flows : 0));
		json_object_set_new(c, "fabric_share",
				    link ? json_real(rc->fabric_share) : json_null());
	}
	return c;
}

int report_json(const struct report_context *ctx, const struct records *r,
		struct report_json *j)
{
	memset(j, 0, sizeof(*j));
	j->doc = run_json(ctx, r, j);
	return j->doc ? 0 : -ENOMEM;
}

int report_compare_json(const struct report_context *ctx,
			const struct records *const r[REPORT_PATHS], struct report_json *j)
{
	memset(j, 0, sizeof(*j));
	/* "speedup" (iteration, direct over staged) is the old key, kept. */
	j->doc = json_pack("{s:o,s:o,s:o,s:o,s:{s:o,s:o}}",
			   "direct", run_json(ctx, r[REPORT_DIRECT], j),
			   "staged", run_json(ctx, r[REPORT_STAGED], j),
			   "staged_memcpy", run_json(ctx, r[REPORT_STAGED_MEMCPY], j),
			   "speedup", speedup_json(report_speedup(r[REPORT_STAGED], r[REPORT_DIRECT])),
			   "speedups",
			   "direct_vs_staged", speedups_json(r[REPORT_STAGED], r[REPORT_DIRECT]),
			   "direct_vs_staged_memcpy",
			   speedups_json(r[REPORT_STAGED_MEMCPY], r[REPORT_DIRECT]));
	return j->doc ? 0 : -ENOMEM;
}

#define JSON_FLAGS (JSON_INDENT(2) | JSON_REAL_PRECISION(10))

/* @s with @indent spaces after every newline, as if it sat there. */
static void put_indented(FILE *out, const char *s, size_t indent)
{
	for (; *s; s++) {
		fputc(*s, out);
		if (*s == '\n')
			fprintf(out, "%*s", (int)indent, "");
	}
}

/* List @r's collectives as the array the placeholder stands for, laid
 * out as jansson lays out its own arrays on a line indented @indent. */
static int put_list(FILE *out, const struct records *r, size_t indent)
{
	fputc('[', out);
	for (size_t i = 0; i < r->ncoll; i++) {
		json_t *c = one_collective(r, i);
		char *s = c ? json_dumps(c, JSON_FLAGS) : NULL;

		json_decref(c);
		if (!s)
			return -ENOMEM;
		fprintf(out, "%s\n%*s", i ? "," : "", (int)indent + 2, "");
		put_indented(out, s, indent + 2);
		free(s);
	}
	if (r->ncoll)
		fprintf(out, "\n%*s", (int)indent, "");
	fputc(']', out);
	return 0;
}

int report_json_write_doc(FILE *out, json_t *doc)
{
	struct report_json j = { .doc = doc };

	return report_json_write(out, &j, 0);
}

int report_json_write(FILE *out, struct report_json *j, int err)
{
	char *text = NULL, *at;
	unsigned k;

	if (!err && !j->doc)
		err = -ENOMEM;
	if (!err)
		text = json_dumps(j->doc, JSON_FLAGS);
	if (!err && !text)
		err = -ENOMEM;
	/* The document, with each placeholder (a quoted string, escaped by
	 * jansson as \u0001...) written as its list. */
	for (at = text; !err && at;) {
		char *m = strstr(at, LIST_MARK_OUT);
		char *line;

		if (!m) {
			fputs(at, out);
			break;
		}
		fwrite(at, 1, (size_t)(m - at), out);
		for (line = m; line > text && line[-1] != '\n'; line--)
			;
		if (sscanf(m + strlen(LIST_MARK_OUT), "%u", &k) != 1 || k >= j->nlists) {
			err = -EINVAL;
			break;
		}
		err = put_list(out, j->lists[k], strspn(line, " "));
		at = strchr(m + 1, '"');
		at = at ? at + 1 : NULL;
	}
	if (!err)
		fputc('\n', out);
	if (!err && ferror(out))
		err = -EIO;
	free(text);
	json_decref(j->doc);
	memset(j, 0, sizeof(*j));
	return err;
}
