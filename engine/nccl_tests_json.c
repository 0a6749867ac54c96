/* SPDX-License-Identifier: MIT */
/*
 * nccl_tests_json: the file nccl-tests writes with -J (src/util.cu; JSON
 * versions 1 to 3, nccl-tests v2.17.3 and later):
 *
 *   {"version": 3, "args": ["./all_reduce_perf", ...], ...,
 *    "config": {..., "devices": [{"rank": 0, "hostname": "h0",
 *               "device_info": "NVIDIA H100 80GB HBM3", ...}, ...]},
 *    "results": [{"size": 1024, "count": 256, "type": "float",
 *                 "redop": "sum", "root": "    -1",
 *                 "out_of_place": {"time": 20.1, "alg_bw": 0.05,
 *                                  "bus_bw": 0.09, "nwrong": 0.0},
 *                 "in_place": {...}, ...}, ...],
 *    "average_bus_bandwidth": {"bandwidth": 4.85, ...}, ...}
 *
 * "nwrong" is null where the run did not check, a half is null where it
 * was not measured, and version 1 files before v2.17.9 spell
 * "average_bus_bandwidith" and "bandwidith". Keys we do not use are left
 * alone, so later versions still read.
 *
 * jansson keeps no positions for parsed values, so a scan of the text
 * (find_spots) notes where each top-level value and each results entry
 * starts, and messages point there. nccl-tests writes the whole file on
 * one line: the column is what tells entries apart.
 */
#include "nccl_tests_read.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "json_util.h"

enum top_key { K_VERSION, K_ARGS, K_CONFIG, K_RESULTS, K_AVG, K_AVG_OLD, K_N };

static const char *const top_keys[K_N] = {
	[K_VERSION] = "version",
	[K_ARGS] = "args",
	[K_CONFIG] = "config",
	[K_RESULTS] = "results",
	[K_AVG] = "average_bus_bandwidth",
	[K_AVG_OLD] = "average_bus_bandwidith", /* sic, until v2.17.9 */
};

struct json_rd {
	struct nt_reader *r;
	struct diag *d;
	const char *buf;
	size_t len;
	size_t top;	 /* offset of the opening brace */
	size_t key[K_N]; /* offset of each top-level value; top when absent */
	size_t *elem;	 /* owned: offset of each results entry */
	size_t nelem, maxelem;
	bool ended;	 /* the run wrote what follows its results */
	/* offset -> line and column, for offsets that mostly increase */
	size_t lc_off, lc_bol;
	unsigned lc_line;
};

static void where(struct json_rd *j, size_t off, unsigned *line,
		  unsigned *col)
{
	if (off < j->lc_off) {
		j->lc_off = 0;
		j->lc_bol = 0;
		j->lc_line = 1;
	}
	for (; j->lc_off < off && j->lc_off < j->len; j->lc_off++) {
		if (j->buf[j->lc_off] == '\n') {
			j->lc_line++;
			j->lc_bol = j->lc_off + 1;
		}
	}
	*line = j->lc_line;
	*col = (unsigned)(off - j->lc_bol + 1);
}

static int json_fail(struct json_rd *j, size_t off, const char *key,
		     const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int json_fail(struct json_rd *j, size_t off, const char *key,
		     const char *fmt, ...)
{
	unsigned line, col;
	va_list ap;
	int err;

	where(j, off, &line, &col);
	va_start(ap, fmt);
	err = diag_vat(j->d, -EINVAL, j->r->name, line, col, key, fmt, ap);
	va_end(ap);
	return err;
}

/* @i is at a string's opening quote: the index of its closing one. */
static size_t skip_string(const char *s, size_t len, size_t i)
{
	for (i++; i < len; i++) {
		if (s[i] == '\\')
			i++;
		else if (s[i] == '"')
			return i;
	}
	return len;
}

static int top_key_index(const char *s, size_t n)
{
	int k;

	for (k = 0; k < K_N; k++)
		if (strlen(top_keys[k]) == n && memcmp(top_keys[k], s, n) == 0)
			return k;
	return -1;
}

/*
 * Note where the top-level values and the entries of "results" start.
 * Runs on text jansson accepted, so only depth, strings and the
 * punctuation at depths 1 and 2 matter. A key written with escapes is
 * not recognised; its messages then point at the opening brace.
 */
static void find_spots(struct json_rd *j)
{
	const char *s = j->buf;
	bool want_key = false, want_value = false, want_elem = false;
	bool in_results = false;
	int depth = 0, key = -1, k;
	size_t i, e;

	for (k = 0; k < K_N; k++)
		j->key[k] = SIZE_MAX;
	for (i = 0; i < j->len; i++) {
		char c = s[i];

		if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
			continue;
		if (want_value) {
			if (key >= 0)
				j->key[key] = i;
			in_results = key == K_RESULTS && c == '[';
			want_value = false;
		}
		if (want_elem && c != ']') {
			if (j->nelem < j->maxelem)
				j->elem[j->nelem++] = i;
			want_elem = false;
		}
		if (c == '"') {
			e = skip_string(s, j->len, i);
			if (depth == 1 && want_key) {
				key = top_key_index(s + i + 1, e - i - 1);
				want_key = false;
			}
			i = e;
			continue;
		}
		switch (c) {
		case '{':
		case '[':
			if (!depth)
				j->top = i;
			depth++;
			want_key = depth == 1 && c == '{';
			want_elem = depth == 2 && in_results;
			break;
		case '}':
		case ']':
			depth--;
			if (depth == 1)
				in_results = false;
			break;
		case ':':
			want_value = depth == 1;
			break;
		case ',':
			want_key = depth == 1;
			want_elem = depth == 2 && in_results;
			break;
		}
	}
	for (k = 0; k < K_N; k++)
		if (j->key[k] == SIZE_MAX)
			j->key[k] = j->top;
}

/* A whole number >= 0 at @obj.@name. */
static int get_u64(struct json_rd *j, size_t off, const json_t *obj,
		   const char *prefix, const char *name, uint64_t *out)
{
	json_t *v = json_object_get(obj, name);
	char key[64];

	snprintf(key, sizeof(key), "%s%s", prefix, name);
	if (!v)
		return json_fail(j, off, key, "missing required key");
	if (!json_is_integer(v))
		return json_fail(j, off, key, "expected an integer, got %s",
				 json_kind(v));
	if (json_integer_value(v) < 0)
		return json_fail(j, off, key, "must be >= 0, got %lld",
				 (long long)json_integer_value(v));
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

static int get_str(struct json_rd *j, size_t off, const json_t *obj,
		   const char *prefix, const char *name, bool required,
		   const char **out)
{
	json_t *v = json_object_get(obj, name);
	char key[64];

	snprintf(key, sizeof(key), "%s%s", prefix, name);
	if (!v && !required)
		return 0;
	if (!v)
		return json_fail(j, off, key, "missing required key");
	if (!json_is_string(v))
		return json_fail(j, off, key, "expected a string, got %s",
				 json_kind(v));
	*out = json_string_value(v);
	return 0;
}

/* A finite number >= 0 at @obj.@name. */
static int get_num(struct json_rd *j, size_t off, const json_t *obj,
		   const char *prefix, const char *name, double *out)
{
	json_t *v = json_object_get(obj, name);
	char key[80];
	double x;

	snprintf(key, sizeof(key), "%s%s", prefix, name);
	if (!v)
		return json_fail(j, off, key, "missing required key");
	if (!json_is_number(v))
		return json_fail(j, off, key, "expected a number, got %s",
				 json_kind(v));
	x = json_number_value(v);
	if (!isfinite(x) || x < 0)
		return json_fail(j, off, key, "must be >= 0, got %g", x);
	*out = x;
	return 0;
}

/* "out_of_place" or "in_place": null, or time, alg_bw, bus_bw, nwrong. */
static int read_half(struct json_rd *j, size_t off, const json_t *row,
		     const char *prefix, const char *name,
		     struct nccl_tests_result *res)
{
	json_t *h = json_object_get(row, name), *w;
	char key[64];
	const char *tkey = "time";
	double x;
	int err;

	res->time_us = res->algbw_gbps = res->busbw_gbps = NAN;
	res->wrong = -1;
	res->max_err = NAN;
	res->valid = false;
	snprintf(key, sizeof(key), "%s%s", prefix, name);
	/*
	 * A failed run's file ends in the size it failed in: since 2.18.5
	 * (src/util.cu jsonOutputFinalize, "Fix JSON finalization on early
	 * errors") nccl-tests closes what it had open, and writes no footer.
	 */
	if (!h && !j->ended)
		return json_fail(j, off, key,
				 "missing: the run stopped in this size (no average_bus_bandwidth after the results: nccl-tests failed here)");
	if (!h)
		return json_fail(j, off, key, "missing required key");
	if (json_is_null(h))
		return 0; /* nccl-tests measured only the other half */
	if (!json_is_object(h))
		return json_fail(j, off, key, "expected an object or null, got %s",
				 json_kind(h));
	snprintf(key, sizeof(key), "%s%s.", prefix, name);
	if (!json_object_get(h, tkey) && json_object_get(h, "cpu_time")) {
		tkey = "cpu_time"; /* -C 1 */
		j->r->f->cputime = true;
	}
	err = get_num(j, off, h, key, tkey, &res->time_us);
	if (!err)
		err = get_num(j, off, h, key, "alg_bw", &res->algbw_gbps);
	if (!err)
		err = get_num(j, off, h, key, "bus_bw", &res->busbw_gbps);
	if (err)
		return err;
	w = json_object_get(h, "nwrong");
	if (w && !json_is_null(w)) {
		err = get_num(j, off, h, key, "nwrong", &x);
		if (err)
			return err;
		if (x != floor(x) || x >= 0x1p63) {
			snprintf(key, sizeof(key), "%s%s.nwrong", prefix, name);
			return json_fail(j, off, key,
					 "%g is not a count of wrong elements",
					 x);
		}
		res->wrong = (long long)x;
	} else if (!w) {
		snprintf(key, sizeof(key), "%s%s.nwrong", prefix, name);
		return json_fail(j, off, key, "missing required key");
	}
	res->valid = true;
	return 0;
}

/* "root": "%6i" written as a string ("    -1"); an integer is fine too. */
static int read_root(struct json_rd *j, size_t off, const json_t *row,
		     const char *prefix, int *root)
{
	json_t *v = json_object_get(row, "root");
	char key[64], buf[40], *end;
	const char *s;
	long long x;

	snprintf(key, sizeof(key), "%sroot", prefix);
	if (!v)
		return 0;
	if (json_is_integer(v)) {
		x = json_integer_value(v);
	} else if (json_is_string(v)) {
		s = json_string_value(v);
		errno = 0;
		x = strtoll(s, &end, 10);
		while (*end == ' ')
			end++;
		if (end == s || *end || errno)
			return json_fail(j, off, key, "'%s' is not a rank",
					 diag_printable(s, buf, sizeof(buf)));
	} else {
		return json_fail(j, off, key, "expected a string or an integer, got %s",
				 json_kind(v));
	}
	if (x < -1 || x > INT_MAX)
		return json_fail(j, off, key, "%lld is not a rank", x);
	*root = (int)x;
	return 0;
}

static int read_result(struct json_rd *j, size_t i, const json_t *v)
{
	size_t off = i < j->nelem ? j->elem[i] : j->key[K_RESULTS];
	struct nccl_tests_row row = { .root = -1 };
	struct nt_at at;
	char prefix[40], key[64], buf[40];
	const char *s = NULL;
	unsigned line, col, f;
	int err;

	where(j, off, &line, &col);
	snprintf(prefix, sizeof(prefix), "results[%zu]", i);
	if (!json_is_object(v))
		return json_fail(j, off, prefix, "expected an object, got %s",
				 json_kind(v));
	snprintf(prefix, sizeof(prefix), "results[%zu].", i);
	at.line = line;
	at.prefix = prefix;
	at.index = (long)i;
	for (f = 0; f < NT_F_N; f++)
		at.col[f] = col;
	row.line = line;
	err = get_u64(j, off, v, prefix, "size", &row.size);
	if (!err)
		err = get_u64(j, off, v, prefix, "count", &row.count);
	if (!err)
		err = get_str(j, off, v, prefix, "type", true, &s);
	if (err)
		return err;
	snprintf(row.type, sizeof(row.type), "%s", s);
	err = get_str(j, off, v, prefix, "redop", true, &s);
	if (err)
		return err;
	if (strlen(s) >= sizeof(row.redop)) {
		snprintf(key, sizeof(key), "%sredop", prefix);
		return json_fail(j, off, key, "'%s' is not a reduction name",
				 diag_printable(s, buf, sizeof(buf)));
	}
	strcpy(row.redop, s);
	err = read_root(j, off, v, prefix, &row.root);
	if (!err)
		err = read_half(j, off, v, prefix, "out_of_place", &row.oop);
	if (!err)
		err = read_half(j, off, v, prefix, "in_place", &row.ip);
	if (!err)
		err = nt_add_row(j->r, &row, &at, j->d);
	return err;
}

static int read_results(struct json_rd *j, const json_t *root)
{
	json_t *res = json_object_get(root, "results");
	size_t i, n;
	int err = 0;

	if (!res)
		return json_fail(j, j->top, "results", "missing required key");
	if (!json_is_array(res))
		return json_fail(j, j->key[K_RESULTS], "results",
				 "expected an array, got %s", json_kind(res));
	n = json_array_size(res);
	for (i = 0; i < n && !err; i++)
		err = read_result(j, i, json_array_get(res, i));
	if (!err && !j->r->f->nrows)
		err = json_fail(j, j->key[K_RESULTS], "results", "no rows%s",
				j->r->skipped_empty ? " (only rows of 0 bytes)" : "");
	return err;
}

static int read_version(struct json_rd *j, const json_t *root)
{
	json_t *v = json_object_get(root, "version");

	if (!v)
		return json_fail(j, j->top, "version",
				 "missing required key (not an nccl-tests -J file?)");
	if (!json_is_integer(v))
		return json_fail(j, j->key[K_VERSION], "version",
				 "expected an integer, got %s", json_kind(v));
	if (json_integer_value(v) < 1)
		return json_fail(j, j->key[K_VERSION], "version",
				 "must be >= 1, got %lld",
				 (long long)json_integer_value(v));
	return 0;
}

/* "nccl_version": 21805, the NCCL the run used (every JSON version,
 * src/util.cu), as the text's "nccl-library=21805". */
static void read_nccl_version(struct json_rd *j, const json_t *root)
{
	json_t *v = json_object_get(root, "nccl_version");

	if (json_is_integer(v) && json_integer_value(v) > 0)
		nt_set_nccl_version(j->r, (unsigned long long)json_integer_value(v));
}

/* args[0] is the program: "./build/all_reduce_perf". */
static int read_args(struct json_rd *j, const json_t *root)
{
	json_t *v = json_object_get(root, "args"), *a0;

	if (!v)
		return 0;
	if (!json_is_array(v))
		return json_fail(j, j->key[K_ARGS], "args",
				 "expected an array, got %s", json_kind(v));
	a0 = json_array_get(v, 0);
	if (!a0)
		return 0;
	if (!json_is_string(a0))
		return json_fail(j, j->key[K_ARGS], "args[0]",
				 "expected a string, got %s", json_kind(a0));
	nt_set_program(j->r, json_string_value(a0));
	return 0;
}

/* An integer >= @min at @obj.@name, or @dflt where it is absent. */
static int get_opt_int(struct json_rd *j, size_t off, const json_t *obj,
		       const char *prefix, const char *name, long long min,
		       long long dflt, long long *out)
{
	json_t *v = json_object_get(obj, name);
	char key[64];

	snprintf(key, sizeof(key), "%s%s", prefix, name);
	*out = dflt;
	if (!v)
		return 0;
	if (!json_is_integer(v))
		return json_fail(j, off, key, "expected an integer, got %s",
				 json_kind(v));
	if (json_integer_value(v) < min)
		return json_fail(j, off, key, "must be >= %lld, got %lld", min,
				 (long long)json_integer_value(v));
	*out = json_integer_value(v);
	return 0;
}

/*
 * The devices one entry of config.devices stands for. writeDeviceReport
 * (src/util.cu, every JSON version) parses one "Rank" line per process,
 * the first of the nthreads x ngpus its process drives: -g 8 lists one.
 */
static int devices_per_entry(struct json_rd *j, size_t off, const json_t *cfg,
			     unsigned *per)
{
	long long t, g;
	int err;

	err = get_opt_int(j, off, cfg, "config.", "nthreads", 1, 1, &t);
	if (!err)
		err = get_opt_int(j, off, cfg, "config.", "ngpus", 1, 1, &g);
	if (err)
		return err;
	if (t > NCCL_TESTS_DEVICES_MAX / g)
		return json_fail(j, off, "config.ngpus",
				 "%lld threads x %lld GPUs are more than %u devices",
				 t, g, NCCL_TESTS_DEVICES_MAX);
	*per = (unsigned)(t * g);
	return 0;
}

/* util.cu's jsonBool: "true" or "false", as strings; a JSON boolean too. */
static bool json_flag(json_t *v)
{
	const char *s = json_string_value(v);

	return json_is_true(v) || (s && !strcmp(s, "true"));
}

/* One process's entry: its first rank, host, group and device. */
static int read_device(struct json_rd *j, size_t off, const json_t *dev,
		       size_t i, unsigned per)
{
	const char *host = NULL, *gpu = "";
	char prefix[48], key[64];
	struct nt_dev_at at = { .key = key };
	long long rank, group, device;
	int err;

	snprintf(prefix, sizeof(prefix), "config.devices[%zu]", i);
	if (!json_is_object(dev))
		return json_fail(j, off, prefix, "expected an object, got %s",
				 json_kind(dev));
	snprintf(prefix, sizeof(prefix), "config.devices[%zu].", i);
	err = get_str(j, off, dev, prefix, "hostname", true, &host);
	if (!err)
		err = get_str(j, off, dev, prefix, "device_info", false, &gpu);
	/* no rank given: nothing to check; no group: one communicator */
	if (!err)
		err = get_opt_int(j, off, dev, prefix, "rank", 0, -1, &rank);
	if (!err)
		err = get_opt_int(j, off, dev, prefix, "group", 0, -1, &group);
	/* the CUDA device index, as the text's "device N" (every JSON
	 * version: v2.17.3 src/util.cu jsonRankInfo) */
	if (!err)
		err = get_opt_int(j, off, dev, prefix, "device", 0, -1, &device);
	if (err)
		return err;
	snprintf(key, sizeof(key), "%srank", prefix);
	where(j, off, &at.line, &at.col);
	return nt_add_devices(j->r, rank, per, group, host, device, gpu, &at, j->d);
}

static int read_devices(struct json_rd *j, const json_t *root)
{
	json_t *cfg = json_object_get(root, "config"), *devs, *dev, *graph;
	size_t off = j->key[K_CONFIG], i;
	unsigned per = 1;
	int err;

	if (!cfg)
		return 0;
	if (!json_is_object(cfg))
		return json_fail(j, off, "config", "expected an object, got %s",
				 json_kind(cfg));
	/* -G N: CUDA graph launches (nccl_tests_file cuda_graphs) */
	graph = json_object_get(cfg, "graph");
	if (json_is_integer(graph) && json_integer_value(graph) > 0 &&
	    json_integer_value(graph) <= UINT_MAX)
		j->r->f->cuda_graphs = (unsigned)json_integer_value(graph);
	/* -z: blocking_collectives, said but not which mode */
	if (json_flag(json_object_get(cfg, "blocking_collectives")))
		j->r->f->blocking = NT_BLOCKING_SAID;
	/* -a N: calls a group launch (nccl_tests_file agg_iters) */
	graph = json_object_get(cfg, "aggregated_iterations");
	if (json_is_integer(graph) && json_integer_value(graph) > 0 &&
	    json_integer_value(graph) <= UINT_MAX)
		j->r->f->agg_iters = (unsigned)json_integer_value(graph);
	devs = json_object_get(cfg, "devices");
	if (!devs)
		return 0;
	if (!json_is_array(devs))
		return json_fail(j, off, "config.devices",
				 "expected an array, got %s", json_kind(devs));
	err = devices_per_entry(j, off, cfg, &per);
	json_array_foreach(devs, i, dev) {
		if (!err)
			err = read_device(j, off, dev, i, per);
	}
	return err;
}

static int read_avg(struct json_rd *j, const json_t *root)
{
	const char *name = top_keys[K_AVG], *bw_name = "bandwidth";
	size_t off = j->key[K_AVG];
	json_t *avg = json_object_get(root, name), *bw;
	char key[64];

	if (!avg) {
		name = top_keys[K_AVG_OLD];
		bw_name = "bandwidith";
		off = j->key[K_AVG_OLD];
		avg = json_object_get(root, name);
	}
	if (!avg)
		return 0;
	if (!json_is_object(avg))
		return json_fail(j, off, name, "expected an object, got %s",
				 json_kind(avg));
	snprintf(key, sizeof(key), "%s.%s", name, bw_name);
	bw = json_object_get(avg, bw_name);
	if (!bw)
		return json_fail(j, off, key, "missing required key");
	/* nccl-tests writes NaN, an average over no rows, as "nan" */
	if (json_is_string(bw) && strcmp(json_string_value(bw), "nan") == 0)
		return 0;
	snprintf(key, sizeof(key), "%s.", name);
	return get_num(j, off, avg, key, bw_name, &j->r->f->avg_busbw);
}

/*
 * A file that stops inside its JSON was cut, or its run died: before
 * 2.18.5 nccl-tests left a failed run's file unclosed. One that goes on
 * after its document holds two (nccl-tests writes each run a file of its
 * own, "FILE.0", "FILE.1" when FILE is taken).
 */
static int syntax_error(const struct nt_reader *r, const json_error_t *jerr,
			size_t len, struct diag *d)
{
	char text[JSON_ERROR_TEXT_LENGTH];
	const char *why = "";

	unsigned line = jerr->line > 0 ? (unsigned)jerr->line : 0;
	unsigned col = jerr->column > 0 ? (unsigned)jerr->column : 0;

	if (jerr->position > 0 && (size_t)jerr->position >= len)
		why = ": the file ends inside its JSON (cut short, or its run died before closing it)";
	else if (strstr(jerr->text, "end of file expected"))
		why = ": more follows the document (two runs' files joined?): one run per file";
	return diag_at(d, -EINVAL, r->name, line, col, "json", "%s%s",
		       diag_printable(jerr->text, text, sizeof(text)), why);
}

int nt_load_json(struct nt_reader *r, const char *buf, size_t len,
		 struct diag *d)
{
	struct json_rd j = {
		.r = r, .d = d, .buf = buf, .len = len, .lc_line = 1,
	};
	json_error_t jerr;
	json_t *root, *res;
	int err;

	root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		return syntax_error(r, &jerr, len, d);
	res = json_object_get(root, "results");
	if (json_is_array(res) && json_array_size(res)) {
		j.maxelem = json_array_size(res);
		if (j.maxelem > NCCL_TESTS_ROWS_MAX + 1)
			j.maxelem = NCCL_TESTS_ROWS_MAX + 1;
		j.elem = malloc(j.maxelem * sizeof(*j.elem));
		if (!j.elem) {
			err = diag_set(d, -ENOMEM, "%s: out of memory", r->name);
			goto out;
		}
	}
	find_spots(&j);
	j.ended = json_object_get(root, top_keys[K_AVG]) ||
		  json_object_get(root, top_keys[K_AVG_OLD]) ||
		  json_object_get(root, "out_of_bounds");
	if (!json_is_object(root)) {
		err = json_fail(&j, j.top, "json", "expected an object, got %s",
				json_kind(root));
		goto out;
	}
	err = read_version(&j, root);
	if (!err)
		read_nccl_version(&j, root);
	if (!err)
		err = read_args(&j, root);
	if (!err)
		err = read_devices(&j, root);
	if (!err)
		err = read_results(&j, root);
	if (!err)
		err = read_avg(&j, root);
out:
	free(j.elem);
	json_decref(root);
	return err;
}
