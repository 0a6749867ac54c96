/* SPDX-License-Identifier: MIT */
/*
 * JSON reports. The keys of `run --json` and `compare --json` are a
 * contract other tools rely on (docs/cli.md): add keys, never rename them.
 */
#include "report.h"

#include <errno.h>
#include <math.h>

#include "algo.h"

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

static json_t *collective_json(const struct records *r, const struct coll_record *c)
{
	return json_pack("{s:I,s:s,s:I,s:i,s:f,s:f,s:f,s:f,s:f,s:f,s:s,s:o,s:o,"
			 "s:s,s:s,s:i,s:o,s:s,s:i,s:f}",
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
			 "stages", stages_json(c),
			 "algo", algo_name(c->algo),
			 "proto", proto_name(c->proto),
			 "channels", (int)c->nchannels,
			 "nccl_estimate_us", isfinite(c->nccl_estimate_us) ?
				 json_real(c->nccl_estimate_us) : json_null(),
			 "comm", records_comm_name(r, c),
			 "stream", (int)c->stream,
			 "alone_us", c->alone_us);
}

json_t *report_json(const struct report_context *ctx, const struct records *r)
{
	const struct plan *p = ctx->plan;
	json_t *doc, *colls, *iters;

	doc = json_pack("{s:s,s:s,s:s,s:s,s:s,s:i,s:i,s:i,s:f,s:f,s:f,s:s,s:s,s:I,s:i}",
			"backend", r->backend,
			"path", plan_path_name(r->path),
			"topology", p->topo.name,
			"topology_file", ctx->topology_file,
			"trace_file", ctx->trace_file,
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
	json_object_set_new(doc, "communicators", json_integer((json_int_t)(r->ncomms ? r->ncomms : 1)));
	json_object_set_new(doc, "sharing", json_string(records_sharing_name(r->sharing)));
	if (r->gpu_registration)
		json_object_set_new(doc, "gpu_registration",
				    json_string(r->gpu_registration));
	if (r->link.device[0])
		json_object_set_new(doc, "rdma",
			json_pack("{s:s,s:i,s:i,s:s,s:s,s:i,s:i,s:i}",
				  "device", r->link.device,
				  "port", (int)r->link.port,
				  "gid_index", r->link.gid_index,
				  "gid", r->link.gid,
				  "gid_type", r->link.gid_type,
				  "mtu", (int)r->link.mtu,
				  "traffic_class", (int)r->link.tc,
				  "service_level", (int)r->link.sl));
	if (r->data_checked) {
		json_object_set_new(doc, "verified_bytes",
				    json_integer((json_int_t)r->verified_bytes));
		json_object_set_new(doc, "data_errors",
				    json_integer((json_int_t)r->data_errors));
	}
	for (unsigned i = 0; i < r->niter; i++)
		json_array_append_new(iters,
			json_pack("{s:i,s:f,s:f,s:f,s:f,s:f}",
				  "iteration", (int)r->iter[i].iteration,
				  "start_us", r->iter[i].start_us,
				  "end_us", r->iter[i].end_us,
				  "compute_us", r->iter[i].compute_us,
				  "comm_us", r->iter[i].comm_us,
				  "exposed_comm_us", r->iter[i].exposed_us));
	for (size_t i = 0; i < r->ncoll; i++) {
		json_t *c = collective_json(r, &r->coll[i]);

		if (c && r->data_checked)
			json_object_set_new(c, "data_errors",
					    json_integer((json_int_t)r->coll[i].data_errors));
		json_array_append_new(colls, c);
	}
	json_object_set_new(doc, "iterations", iters);
	json_object_set_new(doc, "collectives", colls);
	return doc;
err:
	json_decref(doc);
	json_decref(colls);
	json_decref(iters);
	return NULL;
}

/* Speedups of direct over one staged path, under explicit names. */
static json_t *speedups_json(const struct records *slow, const struct records *fast)
{
	return json_pack("{s:f,s:f}", "communication", report_comm_speedup(slow, fast),
			 "iteration", report_speedup(slow, fast));
}

json_t *report_compare_json(const struct report_context *ctx,
			    const struct records *const r[REPORT_PATHS])
{
	/* "speedup" (iteration, direct over staged) is the old key, kept. */
	return json_pack("{s:o,s:o,s:o,s:f,s:{s:o,s:o}}",
			 "direct", report_json(ctx, r[REPORT_DIRECT]),
			 "staged", report_json(ctx, r[REPORT_STAGED]),
			 "staged_memcpy", report_json(ctx, r[REPORT_STAGED_MEMCPY]),
			 "speedup", report_speedup(r[REPORT_STAGED], r[REPORT_DIRECT]),
			 "speedups",
			 "direct_vs_staged", speedups_json(r[REPORT_STAGED], r[REPORT_DIRECT]),
			 "direct_vs_staged_memcpy",
			 speedups_json(r[REPORT_STAGED_MEMCPY], r[REPORT_DIRECT]));
}

int report_json_write(FILE *out, json_t *doc)
{
	int err = 0;

	if (!doc)
		return -ENOMEM;
	if (json_dumpf(doc, out, JSON_INDENT(2) | JSON_REAL_PRECISION(10)))
		err = -EIO;
	else
		fputc('\n', out);
	json_decref(doc);
	return err;
}
