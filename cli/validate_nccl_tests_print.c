/* SPDX-License-Identifier: MIT */
/*
 * validate --nccl-tests' outputs: the table, in nccl-tests' number
 * formats as busbw prints them, and the JSON (keys in docs/cli.md).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "algo.h"
#include "json_util.h"
#include "validate_nccl_tests.h"

static const char *const regime_names[VNT_REGIMES] = { "latency", "bandwidth" };

static const char *const verdict_names[] = { "normal", "slower", "faster", "data_corrupted",
					     "mixed" };
static const char *const verdict_words[] = {
	"normal", "slower than expected", "faster than expected",
	"data corrupted", "mixed",
};

void vnt_print_table(FILE *out, const struct vnt_run *r)
{
	const struct nccl_tests_file *f = r->f;
	const struct vnt_args *a = r->a;
	char t[2][8], bw[2][7], ranks[64] = "devices not listed", gpus[200], nccl[48];
	size_t in_place = 0;

	if (f->nhosts)
		snprintf(ranks, sizeof(ranks), "%u ranks on %u host%s", f->nranks,
			 f->nhosts, f->nhosts == 1 ? "" : "s");
	fprintf(out, "validate: %s (%s_perf, %s, %s) measured vs %s predicted\n",
		f->name, r->coll->name, r->type->name, ranks, r->backend);
	node_gpus_describe(&r->gpus, r->topo, gpus, sizeof(gpus));
	/* a release between the tables as busbw's header names it: its own
	 * search constants predicted, not only the table's */
	if (r->file_nccl[0])
		snprintf(nccl, sizeof(nccl), "%s", nccl_releases[a->opts.nccl]->version);
	else
		predict_nccl_name(&a->opts, nccl, sizeof(nccl));
	fprintf(out, "topology %s (%s): %u node%s x %s%s, path %s, GDR level %s, NCCL %s",
		r->topo->name, a->topology, r->nodes, r->nodes == 1 ? "" : "s", gpus,
		r->gpus_from_file ? " (the file's devices)" : "",
		plan_path_name(a->opts.path), topo_path_name(a->opts.gdr_level), nccl);
	if (r->file_nccl[0] && strcmp(r->file_nccl, nccl_releases[a->opts.nccl]->version))
		fprintf(out, " (the file %s %s: the table that stands for it)",
			f->busbw.line ? "was predicted for" : "ran", r->file_nccl);
	else if (r->file_nccl[0])
		fprintf(out, " (the file's)");
	else if (!a->opts.nccl_set)
		fprintf(out, " (the file does not say which NCCL ran: --nccl for another)");
	fputc('\n', out);
	cli_sets_print(out, "", &a->sets);
	for (size_t i = 0; i < r->n; i++)
		in_place += r->rows[i].measured != &r->rows[i].row->oop;
	if (f->blocking && f->blocking != 3)
		fprintf(out, "note: the run waited on the host for each call (-z%s): its times hold that wait%s, which the prediction does not count, so small sizes read slow\n",
			f->blocking == NT_BLOCKING_SAID ? "" : f->blocking == 1 ? " 1" : " 2",
			f->blocking == 1 ? " and a barrier" : "");
	if (f->agg_iters > 1)
		fprintf(out, "note: the run launched %u calls a group (-a %u), their time over %u: one host launch cost for them, which the prediction (NCCL's base latency) counts a call, so small sizes read fast\n",
			f->agg_iters, f->agg_iters, f->agg_iters);
	if (f->cuda_graphs)
		fprintf(out, "note: the run timed %u CUDA graph launches (-G %u): no host launch cost a call, which the prediction (NCCL's base latency) counts, so small sizes read fast\n",
			f->cuda_graphs, f->cuda_graphs);
	fprintf(out, "error = (measured - predicted) / predicted; measured: out-of-place%s%s%s\n",
		in_place ? " (in-place where a row has none)" : "",
		f->cputime ? ", its time size / algbw (the file's times are -C 1's cputime, the host's)" : "",
		r->unmeasured ? (f->cputime ? "; rows under 1 GB/s of algbw left out" :
					      "; rows with no time left out") : "");
	/* nccl-tests' widths and number formats, as busbw prints them */
	fprintf(out, "%12s  %7s  %7s  %7s  %10s  %10s  %-13s  %-6s  %s\n", "size",
		"meas_us", "pred_us", "error", "meas_busbw", "pred_busbw", "algo", "proto",
		"regime");
	for (size_t i = 0; i < r->n; i++) {
		const struct vnt_row *v = &r->rows[i];
		const struct predict_point *p = &r->pts[i];

		fprintf(out, "%12llu  %7s  %7s  %+6.1f%%  %10s  %10s  %-13s  %-6s  %s\n",
			(unsigned long long)p->size,
			nccl_format_float(t[0], v->measured->time_us, 7),
			nccl_format_float(t[1], p->rec.time_us, 7), v->error_pct,
			nccl_format_float(bw[0], v->measured->busbw_gbps, 6),
			nccl_format_float(bw[1], p->rec.busbw_gbps, 6), algo_name(p->rec.algo),
			proto_name(p->rec.proto), regime_names[v->regime]);
	}
	fprintf(out, "\nregimes (latency-bound: predicted busbw below half its peak, %.2f GB/s at %llu bytes):\n",
		r->peak_busbw, (unsigned long long)r->peak_size);
	for (int k = 0; k < VNT_REGIMES; k++) {
		const struct vnt_regime *g = &r->regimes[k];

		if (!g->n) {
			fprintf(out, "  %-9s  no sizes\n", regime_names[k]);
			continue;
		}
		fprintf(out, "  %-9s  %zu size%s, %llu to %llu bytes: mean error %+.1f%%: %s",
			regime_names[k], g->n, g->n == 1 ? "" : "s", (unsigned long long)g->min_size,
			(unsigned long long)g->max_size, g->mean_error_pct, verdict_words[g->verdict]);
		if (g->verdict == VNT_MIXED)
			fprintf(out, " (mean |error| %.1f%%, beyond the tolerance %g%%; some sizes faster, some slower than expected)\n",
				g->mean_abs_error_pct, a->tolerance);
		else if (g->verdict == VNT_CORRUPTED)
			fprintf(out, " (nccl-tests' #wrong: %lld elements in %zu of its sizes): its times say nothing of the hardware until that is fixed\n",
				g->wrong, g->wrong_rows);
		else
			fprintf(out, " (tolerance %g%%)\n", a->tolerance);
	}
}

static json_t *row_json(const struct vnt_run *r, size_t i)
{
	const struct vnt_row *v = &r->rows[i];
	const struct predict_point *p = &r->pts[i];

	return json_pack("{s:I, s:I, s:i, s:s, s:f, s:f, s:f, s:f, s:f, s:s, s:s, s:i, s:o, s:s, s:s}",
			 "size", (json_int_t)p->size, "count", (json_int_t)v->row->count,
			 "line", (int)v->row->line,
			 "measured_half", v->measured == &v->row->oop ? "out_of_place" : "in_place",
			 "measured_us", v->measured->time_us, "predicted_us", p->rec.time_us,
			 "error_pct", v->error_pct,
			 "measured_busbw_gbps", v->measured->busbw_gbps,
			 "predicted_busbw_gbps", p->rec.busbw_gbps, "algo", algo_name(p->rec.algo),
			 "proto", proto_name(p->rec.proto), "channels", (int)p->rec.nchannels,
			 "nccl_estimate_us", isfinite(p->rec.nccl_estimate_us) ?
				 json_real(p->rec.nccl_estimate_us) : json_null(),
			 "path", plan_path_used_name(p->rec.path),
			 "regime", regime_names[v->regime]);
}

static json_t *regime_json(const struct vnt_run *r, int k)
{
	const struct vnt_regime *g = &r->regimes[k];

	if (!g->n)
		return json_pack("{s:i, s:n, s:n, s:n, s:n, s:n}", "sizes", 0, "min_size",
				 "max_size", "mean_error_pct", "mean_abs_error_pct", "verdict");
	return json_pack("{s:I, s:I, s:I, s:f, s:f, s:I, s:s}", "sizes", (json_int_t)g->n,
			 "min_size", (json_int_t)g->min_size, "max_size",
			 (json_int_t)g->max_size, "mean_error_pct", g->mean_error_pct,
			 "mean_abs_error_pct", g->mean_abs_error_pct,
			 "wrong_elements", (json_int_t)g->wrong,
			 "verdict", verdict_names[g->verdict]);
}

json_t *vnt_json(const struct vnt_run *r)
{
	const struct nccl_tests_file *f = r->f;
	const struct vnt_args *a = r->a;
	json_t *doc = json_object(), *sizes = json_array(), *regimes = json_object();

	if (!doc || !sizes || !regimes)
		goto err;
	json_object_set_new(doc, "nccl_tests_file", json_file_name(f->name));
	json_object_set_new(doc, "format", json_string(f->format == NCCL_TESTS_JSON ? "json" : "text"));
	json_object_set_new(doc, "topology", json_string(r->topo->name));
	json_object_set_new(doc, "topology_file", json_file_name(a->topology));
	if (cli_sets_json(doc, &a->sets))
		goto err;
	json_object_set_new(doc, "predicted_backend", json_string(r->backend));
	json_object_set_new(doc, "op", json_string(trace_op_name(r->coll->op)));
	json_object_set_new(doc, "nccl_tests_op", json_string(r->coll->name));
	json_object_set_new(doc, "type", json_string(r->type->name));
	json_object_set_new(doc, "hosts", json_integer(f->nhosts));
	json_object_set_new(doc, "file_ranks", json_integer(f->nranks));
	json_object_set_new(doc, "nodes", json_integer(r->nodes));
	json_object_set_new(doc, "gpus_per_node", json_integer(r->topo->ngpus));
	json_object_set_new(doc, "gpus", node_gpus_json(&r->gpus, r->topo));
	json_object_set_new(doc, "ranks", json_integer(r->nranks));
	json_object_set_new(doc, "path", json_string(plan_path_name(a->opts.path)));
	json_object_set_new(doc, "gdr_level", json_string(topo_path_name(a->opts.gdr_level)));
	json_object_set_new(doc, "nccl", json_string(nccl_releases[a->opts.nccl]->version));
	json_object_set_new(doc, "nccl_file", r->file_nccl[0] ? json_string(r->file_nccl) : json_null());
	json_object_set_new(doc, "tolerance_pct", json_real(a->tolerance));
	json_object_set_new(doc, "peak_predicted_busbw_gbps", json_real(r->peak_busbw));
	json_object_set_new(doc, "peak_predicted_size", json_integer((json_int_t)r->peak_size));
	json_object_set_new(doc, "unmeasured_rows", json_integer((json_int_t)r->unmeasured));
	json_object_set_new(doc, "time_from_algbw", json_boolean(f->cputime));
	json_object_set_new(doc, "cuda_graphs", json_integer(f->cuda_graphs));
	json_object_set_new(doc, "agg_iters", json_integer(f->agg_iters ? f->agg_iters : 1));
	json_object_set_new(doc, "blocking", json_boolean(f->blocking && f->blocking != 3));
	for (size_t i = 0; i < r->n; i++)
		if (json_array_append_new(sizes, row_json(r, i)))
			goto err;
	for (int k = 0; k < VNT_REGIMES; k++)
		if (json_object_set_new(regimes, regime_names[k], regime_json(r, k)))
			goto err;
	json_object_set_new(doc, "sizes", sizes);
	json_object_set_new(doc, "regimes", regimes);
	return doc;
err:
	json_decref(regimes);
	json_decref(sizes);
	json_decref(doc);
	return NULL;
}
