/* SPDX-License-Identifier: MIT */
/* CSV: one row per collective, a header row naming the columns. */
#include "report.h"

#include <errno.h>
#include <math.h>

#include "algo.h"

void report_csv_field(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

int report_csv(FILE *out, const struct records *r, bool header)
{
	if (!header)
		goto rows;
	/* requested_path: what the run asked for, so that compare's three
	 * runs stay apart where direct fell back to staging (path) */
	fprintf(out, "backend,iteration,index,op,bytes,ranks,ready_us,start_us,"
		     "end_us,time_us,algbw_gbps,busbw_gbps,requested_path,path,fallback");
	for (int k = 0; k < STAGE_KIND_COUNT; k++)
		fprintf(out, ",%s_us", stage_kind_name(k));
	fprintf(out, ",algo,proto,channels,nccl_estimate_us,comm,stream,alone_us,"
		     "fabric_link,fabric_flows,fabric_share,src,dst,batch\n");
rows:
	for (size_t i = 0; i < r->ncoll; i++) {
		const struct coll_record *c = &r->coll[i];

		fprintf(out, "%s,%u,%zu,%s,%llu,%u,%.3f,%.3f,%.3f,%.3f,%.4f,%.4f,%s,%s,",
			r->backend, c->iteration, c->entry, trace_op_name(c->op),
			(unsigned long long)c->bytes, c->nranks, c->ready_us,
			c->start_us, c->end_us, c->time_us, c->algbw_gbps,
			c->busbw_gbps, plan_path_name(r->path), plan_path_used_name(c->path));
		report_csv_field(out, c->fallback ? c->fallback : "");
		for (int k = 0; k < STAGE_KIND_COUNT; k++)
			fprintf(out, ",%.3f", c->stage_us[k]);
		fprintf(out, ",%s,%s,%u,", algo_name(c->algo), proto_name(c->proto),
			c->nchannels);
		if (isfinite(c->nccl_estimate_us))
			fprintf(out, "%.3f", c->nccl_estimate_us);
		/* Names are letters, digits and _.:/- (trace_comm_name_valid):
		 * nothing to quote. */
		fprintf(out, ",%s,%u,%.3f,", records_comm_name(r, c), c->stream, c->alone_us);
		/* the busiest switch link (records_fabric.c): empty on a crossbar */
		if (c->fabric_link != RECORDS_NO_LINK && c->fabric_link < r->nlink_names) {
			report_csv_field(out, r->link_names[c->fabric_link]);
			fprintf(out, ",%u,%.6f", c->fabric_flows, c->fabric_share);
		} else {
			fprintf(out, ",,");
		}
		/* a send's ranks and batch: empty for a collective, outside one */
		if (c->src >= 0)
			fprintf(out, ",%d,%d,", c->src, c->dst);
		else
			fprintf(out, ",,,");
		if (c->batched)
			fprintf(out, "%u", c->batch);
		fputc('\n', out);
	}
	return ferror(out) ? -EIO : 0;
}
