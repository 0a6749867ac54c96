/* SPDX-License-Identifier: MIT */
/*
 * trace_jsonl: read gradient-exchange traces as JSON Lines
 * (docs/trace-format.md); trace.c writes them. Each line is parsed on its
 * own with json_loadb, so syntax errors carry jansson's column and our own
 * line counter; errors found after parsing name the line and the key only
 * (jansson keeps no positions for parsed values).
 */
#include "trace.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "input_file.h"
#include "json_util.h"
#include "sort_unsigned.h"

#define TRACE_GROUP_MAX 65536
#define TRACE_ITERATION_MAX INT_MAX
#define TRACE_RANK_MAX INT_MAX

static const char *const known_keys[] = {
	"iteration", "op",	   "bytes", "dtype", "ready_us",
	"compute_us", "group", "root",	"src",	 "dst",
	"algo",	      "proto", "comm",	"stream", "batch",
	"redop",
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* State carried from line to line while reading one trace. */
struct reader {
	const char *name; /* file name for messages */
	unsigned line;
	struct trace *t;
	size_t cap;	      /* allocated entries */
	bool have_compute;    /* compute_us seen in the current iteration */
	double compute_us;
	unsigned compute_line;
};

/* "file:line: key: problem" for an error found after parsing. */
static int rd_err(const struct reader *r, struct diag *d, const char *key,
		  const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int rd_err(const struct reader *r, struct diag *d, const char *key,
		  const char *fmt, ...)
{
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = diag_vat(d, -EINVAL, r->name, r->line, 0, key, fmt, ap);
	va_end(ap);
	return err;
}

static bool key_known(const char *key)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(known_keys); i++)
		if (strcmp(key, known_keys[i]) == 0)
			return true;
	return false;
}

/* An integer in [0, @max]; @what says what the value is ("rank"). */
static int get_count(const struct reader *r, const json_t *v, const char *key,
		     const char *what, long long max, long long *out,
		     struct diag *d)
{
	long long x = 0;

	if (!json_is_integer(v))
		return rd_err(r, d, key, "expected an integer, got %s",
			      json_kind(v));
	x = json_integer_value(v);
	if (x < 0)
		return rd_err(r, d, key, "negative %s %lld", what, x);
	if (x > max)
		return rd_err(r, d, key, "%lld is too large (max %lld)", x,
			      max);
	*out = x;
	return 0;
}

/* A time in microseconds: any JSON number >= 0. */
static int get_time(const struct reader *r, const json_t *v, const char *key,
		    double *out, struct diag *d)
{
	double x;

	if (!json_is_number(v))
		return rd_err(r, d, key, "expected a number of microseconds, got %s",
			      json_kind(v));
	x = json_number_value(v);
	if (!(x >= 0) || !isfinite(x))
		return rd_err(r, d, key, "must be >= 0, got %g", x);
	if (x > TRACE_TIME_MAX_US)
		return rd_err(r, d, key, "%g is beyond %g us (11.6 days)", x, TRACE_TIME_MAX_US);
	*out = x;
	return 0;
}

static int get_name(const struct reader *r, const json_t *v, const char *key,
		    const char **out, struct diag *d)
{
	if (!json_is_string(v))
		return rd_err(r, d, key, "expected a string, got %s",
			      json_kind(v));
	*out = json_string_value(v);
	return 0;
}

/*
 * "algo", "proto": what NCCL ran, a name of letters and digits (the
 * planner knows which are NCCL's and says so with this line).
 */
static int parse_choice(const struct reader *r, const json_t *obj,
			const char *key, char *out, struct diag *d)
{
	const json_t *v = json_object_get(obj, key);
	const char *s = NULL;
	char buf[40];
	size_t n;
	int err;

	if (!v)
		return 0;
	err = get_name(r, v, key, &s, d);
	if (err)
		return err;
	n = strlen(s);
	if (!n || n >= TRACE_NAME_MAX)
		return rd_err(r, d, key, "expected a name of 1 to %d characters, got '%s'",
			      TRACE_NAME_MAX - 1, diag_printable(s, buf, sizeof(buf)));
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]))
			return rd_err(r, d, key, "'%s' is not a name (letters and digits)",
				      diag_printable(s, buf, sizeof(buf)));
	memcpy(out, s, n + 1);
	return 0;
}


/* "group": distinct non-negative ranks; fills e->group (owned by @e). */
static int parse_group(const struct reader *r, const json_t *v,
		       struct trace_entry *e, struct diag *d)
{
	unsigned *sorted;
	size_t i, n;
	long long x = 0;
	int err;

	if (!json_is_array(v))
		return rd_err(r, d, "group", "expected an array of ranks, got %s",
			      json_kind(v));
	n = json_array_size(v);
	if (n < 1 || n > TRACE_GROUP_MAX)
		return rd_err(r, d, "group", "must list 1 to %d ranks, got %zu",
			      TRACE_GROUP_MAX, n);
	e->group = malloc(n * sizeof(*e->group));
	sorted = malloc(n * sizeof(*sorted));
	if (!e->group || !sorted) {
		free(sorted);
		return diag_set(d, -ENOMEM, "%s:%u: out of memory", r->name,
				r->line);
	}
	e->ngroup = (unsigned)n;
	for (i = 0; i < n; i++) {
		err = get_count(r, json_array_get(v, i), "group", "rank",
				TRACE_RANK_MAX, &x, d);
		if (err)
			goto out;
		e->group[i] = (unsigned)x;
	}
	/* Sorting a copy finds duplicates in n log n, for 64 Ki ranks too. */
	memcpy(sorted, e->group, n * sizeof(*sorted));
	sort_unsigned(sorted, n);
	for (i = 1; i < n; i++) {
		if (sorted[i] == sorted[i - 1]) {
			err = rd_err(r, d, "group", "rank %u listed twice",
				     sorted[i]);
			goto out;
		}
	}
	err = 0;
out:
	free(sorted);
	return err;
}

static bool in_group(const struct trace_entry *e, long long rank)
{
	unsigned i;

	if (!e->ngroup)
		return true;
	for (i = 0; i < e->ngroup; i++)
		if (e->group[i] == rank)
			return true;
	return false;
}

/* A rank key (root, src, dst): present iff @needed, and in the group. */
static int parse_rank(const struct reader *r, const json_t *obj,
		      const char *key, bool needed, const char *op,
		      struct trace_entry *e, int *out, struct diag *d)
{
	json_t *v = json_object_get(obj, key);
	long long x = 0;
	int err;

	if (!v && needed)
		return rd_err(r, d, key, "missing required key (%s needs it)",
			      op);
	if (v && !needed)
		return rd_err(r, d, key, "not allowed for %s", op);
	if (!v)
		return 0;
	err = get_count(r, v, key, "rank", TRACE_RANK_MAX, &x, d);
	if (err)
		return err;
	if (!in_group(e, x))
		return rd_err(r, d, key, "rank %lld is not in the group", x);
	*out = (int)x;
	return 0;
}

static int check_iteration(struct reader *r, struct trace_entry *e,
			   struct diag *d)
{
	const struct trace *t = r->t;
	unsigned prev;

	/* Iterations are counted from 0, one after another: one with no
	 * collective has nothing to replay, and a number far ahead would be
	 * that many empty iterations held and averaged in. */
	if (!t->nentries) {
		if (e->iteration)
			return rd_err(r, d, "iteration",
				      "%u on the first line (iterations are counted from 0)",
				      e->iteration);
		return 0;
	}
	prev = t->entries[t->nentries - 1].iteration;
	if (e->iteration < prev)
		return rd_err(r, d, "iteration",
			      "%u after %u (iterations must not decrease)",
			      e->iteration, prev);
	if (e->iteration > prev + 1)
		return rd_err(r, d, "iteration",
			      "%u after %u (iterations follow one another: one with no collective "
			      "has nothing to replay)",
			      e->iteration, prev);
	if (e->iteration > prev)
		r->have_compute = false;
	return 0;
}

/* All lines of one iteration that give compute_us must give the same. */
static int check_compute(struct reader *r, const struct trace_entry *e,
			 struct diag *d)
{
	if (e->compute_us < 0)
		return 0;
	if (!r->have_compute) {
		r->have_compute = true;
		r->compute_us = e->compute_us;
		r->compute_line = r->line;
		return 0;
	}
	if (e->compute_us != r->compute_us)
		return rd_err(r, d, "compute_us",
			      "%.17g disagrees with %.17g given on line %u for iteration %u",
			      e->compute_us, r->compute_us, r->compute_line,
			      e->iteration);
	return 0;
}

/* "batch": which ncclGroupStart/End a send/receive was issued in. */
static int parse_batch(struct reader *r, const json_t *obj, struct trace_entry *e,
		       struct diag *d)
{
	const json_t *v = json_object_get(obj, "batch");
	long long batch;
	int err;

	if (!v)
		return 0;
	if (e->op != TRACE_OP_SENDRECV)
		return rd_err(r, d, "batch", "only sendrecv lines are batched, not %s",
			      trace_op_name(e->op));
	err = get_count(r, v, "batch", "batch", TRACE_BATCH_MAX, &batch, d);
	if (err)
		return err;
	e->batched = true;
	e->batch = (unsigned)batch;
	return 0;
}

static int parse_fields(struct reader *r, const json_t *obj,
			struct trace_entry *e, struct diag *d)
{
	static const char *const required[] = { "iteration", "op", "bytes" };
	char buf[64];
	const char *key, *s = NULL;
	unsigned dsize;
	json_t *v;
	long long x = 0;
	size_t i;
	int err;

	json_object_foreach((json_t *)obj, key, v) {
		if (!key_known(key))
			return rd_err(r, d, diag_printable(key, buf, sizeof(buf)),
				      "unknown key");
	}
	for (i = 0; i < ARRAY_SIZE(required); i++)
		if (!json_object_get(obj, required[i]))
			return rd_err(r, d, required[i],
				      "missing required key");

	err = get_count(r, json_object_get(obj, "iteration"), "iteration",
			"iteration", TRACE_ITERATION_MAX, &x, d);
	if (err)
		return err;
	e->iteration = (unsigned)x;
	err = check_iteration(r, e, d);
	if (err)
		return err;

	err = get_name(r, json_object_get(obj, "op"), "op", &s, d);
	if (err)
		return err;
	if (trace_op_parse(s, &e->op))
		return rd_err(r, d, "op",
			      "unknown op '%s' (allreduce, reduce_scatter, all_gather, broadcast, alltoall, sendrecv)",
			      diag_printable(s, buf, sizeof(buf)));

	v = json_object_get(obj, "redop");
	if (v) {
		err = get_name(r, v, "redop", &s, d);
		if (err)
			return err;
		if (!trace_op_reduces(e->op))
			return rd_err(r, d, "redop", "%s reduces nothing; only allreduce and "
				      "reduce_scatter take a redop", trace_op_name(e->op));
		if (trace_redop_parse(s, &e->redop))
			return rd_err(r, d, "redop", "unknown redop '%s' (sum, prod, min, max, avg)",
				      diag_printable(s, buf, sizeof(buf)));
	}

	e->dtype = TRACE_DTYPE_BF16;
	v = json_object_get(obj, "dtype");
	if (v) {
		err = get_name(r, v, "dtype", &s, d);
		if (err)
			return err;
		if (trace_dtype_parse(s, &e->dtype))
			return rd_err(r, d, "dtype",
				      "unknown dtype '%s' (fp32, fp16, bf16, fp64, int8)",
				      diag_printable(s, buf, sizeof(buf)));
	}

	v = json_object_get(obj, "bytes");
	if (!json_is_integer(v))
		return rd_err(r, d, "bytes", "expected an integer, got %s",
			      json_kind(v));
	x = json_integer_value(v);
	if (x <= 0)
		return rd_err(r, d, "bytes", "must be > 0, got %lld", x);
	dsize = trace_dtype_size(e->dtype);
	if (x % dsize)
		return rd_err(r, d, "bytes",
			      "%lld is not a multiple of the %s element size (%u bytes)",
			      x, trace_dtype_name(e->dtype), dsize);
	e->bytes = (uint64_t)x;

	v = json_object_get(obj, "ready_us");
	if (v && (err = get_time(r, v, "ready_us", &e->ready_us, d)))
		return err;
	v = json_object_get(obj, "compute_us");
	if (v && (err = get_time(r, v, "compute_us", &e->compute_us, d)))
		return err;
	err = check_compute(r, e, d);
	if (err)
		return err;

	v = json_object_get(obj, "group");
	if (v && (err = parse_group(r, v, e, d)))
		return err;

	s = trace_op_name(e->op);
	err = parse_rank(r, obj, "root", e->op == TRACE_OP_BROADCAST, s, e,
			 &e->root, d);
	if (!err)
		err = parse_rank(r, obj, "src", e->op == TRACE_OP_SENDRECV, s,
				 e, &e->root, d);
	if (!err)
		err = parse_rank(r, obj, "dst", e->op == TRACE_OP_SENDRECV, s,
				 e, &e->peer, d);
	if (!err && e->op == TRACE_OP_SENDRECV && e->root == e->peer)
		err = rd_err(r, d, "dst", "must differ from src (both %d)",
			     e->root);
	if (!err)
		err = parse_choice(r, obj, "algo", e->algo, d);
	if (!err)
		err = parse_choice(r, obj, "proto", e->proto, d);
	if (!err)
		err = parse_batch(r, obj, e, d);
	return err;
}

/* A line that took its communicator's ranks: its root, or its sender
 * and receiver, must be among them, as a line's own group checks them
 * (a broadcast from outside would plan a chain from no rank; found by
 * fuzz_replay). */
static int ends_in_comm(const struct reader *r, const struct trace_entry *e, struct diag *d)
{
	const struct trace_comm *c = &r->t->comms[e->comm];
	const char *key = e->op == TRACE_OP_SENDRECV ? "src" : "root";
	int bad = e->root;

	if (e->root < 0 || in_group(e, e->root)) {
		key = "dst";
		bad = e->peer;
		if (e->peer < 0 || in_group(e, e->peer))
			return 0;
	}
	return rd_err(r, d, key, "rank %d is not in communicator '%s' (%u ranks from line %u)", bad,
		      c->name, c->ngroup, c->line);
}

/* "comm" and "stream": the entry's place among the communicators. */
static int parse_comm(struct reader *r, const json_t *obj, struct trace_entry *e,
		      struct diag *d)
{
	const json_t *v = json_object_get(obj, "comm");
	const char *name = NULL;
	char buf[TRACE_COMM_NAME_MAX + 8];
	long long stream = 0;
	int err = 0;

	if (v && !(err = get_name(r, v, "comm", &name, d)) && !trace_comm_name_valid(name))
		err = rd_err(r, d, "comm", "'%s' is not a name of 1 to %d letters, digits or _.:/-",
			     diag_printable(name, buf, sizeof(buf)), TRACE_COMM_NAME_MAX - 1);
	v = json_object_get(obj, "stream");
	if (!err && v)
		err = get_count(r, v, "stream", "stream", TRACE_STREAM_MAX, &stream, d);
	if (!err) {
		bool took_ranks = !e->ngroup; /* the communicator's, if it has some */

		err = trace_comm_assign(r->t, e, name, (unsigned)stream, d);
		if (!err && took_ranks && e->ngroup)
			err = ends_in_comm(r, e, d);
	}
	return err;
}

static int append(struct reader *r, const struct trace_entry *e,
		  struct diag *d)
{
	struct trace *t = r->t;
	struct trace_entry *n;
	size_t cap;

	if (t->nentries == r->cap) {
		cap = r->cap ? 2 * r->cap : 64;
		if (cap > SIZE_MAX / sizeof(*n))
			return diag_set(d, -ENOMEM, "%s: too many entries",
					r->name);
		n = realloc(t->entries, cap * sizeof(*n));
		if (!n)
			return diag_set(d, -ENOMEM, "%s:%u: out of memory",
					r->name, r->line);
		t->entries = n;
		r->cap = cap;
	}
	t->entries[t->nentries++] = *e;
	t->niterations = e->iteration + 1;
	return 0;
}

static bool skippable(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (s[i] == '#')
			return true;
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return false;
	}
	return true;
}

/*
 * jansson parses one line at a time here, so its "near end of file" means
 * the line stopped early: say so in JSON Lines terms.
 */
static int syntax_error(const struct reader *r, const json_error_t *jerr,
			size_t len, struct diag *d)
{
	static const char eof[] = " near end of file";
	const size_t neof = sizeof(eof) - 1;
	char text[JSON_ERROR_TEXT_LENGTH];
	size_t n;

	diag_printable(jerr->text, text, sizeof(text));
	n = strlen(text);
	if (jerr->position >= 0 && (size_t)jerr->position >= len &&
	    n >= neof && strcmp(text + n - neof, eof) == 0) {
		text[n - neof] = '\0';
		return diag_at(d, -EINVAL, r->name, r->line,
			       jerr->column > 0 ? (unsigned)jerr->column : 0,
			       "json", "truncated line: %s at the end of the line",
			       text);
	}
	return diag_at(d, -EINVAL, r->name, r->line,
		       jerr->column > 0 ? (unsigned)jerr->column : 0, "json",
		       "%s", text);
}

/* Parse one line (without its '\n'); r->line already counts it. */
static int parse_line(struct reader *r, const char *s, size_t len,
		      struct diag *d)
{
	struct trace_entry e = {
		.line = r->line, .compute_us = -1, .root = -1, .peer = -1,
	};
	json_error_t jerr;
	bool appended = false;
	json_t *obj;
	int err;

	if (len && s[len - 1] == '\r')
		len--;
	if (skippable(s, len))
		return 0;
	obj = json_loadb(s, len, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES,
			 &jerr);
	if (!obj)
		return syntax_error(r, &jerr, len, d);
	if (!json_is_object(obj)) {
		err = rd_err(r, d, "json", "expected an object, got %s",
			     json_kind(obj));
		goto out;
	}
	err = parse_fields(r, obj, &e, d);
	if (!err)
		err = append(r, &e, d);
	if (!err) { /* the trace owns the entry (and its group) now */
		appended = true;
		err = parse_comm(r, obj, &r->t->entries[r->t->nentries - 1], d);
	}
out:
	if (err && !appended)
		free(e.group);
	json_decref(obj);
	return err;
}

static int reader_init(struct reader *r, const char *name, struct trace *t)
{
	memset(t, 0, sizeof(*t));
	memset(r, 0, sizeof(*r));
	r->name = name ? name : "<trace>";
	r->t = t;
	snprintf(t->file, sizeof(t->file), "%s", r->name);
	return 0;
}

static int reader_finish(struct reader *r, int err, struct diag *d)
{
	if (!err && !r->t->nentries)
		err = diag_set(d, -EINVAL, "%s: trace: no entries (empty trace)",
			       r->name);
	if (err)
		trace_destroy(r->t);
	return err;
}

int trace_load_buffer(const char *buf, size_t len, const char *name,
		      struct trace *t, struct diag *d)
{
	const char *nl, *end = buf + len;
	struct reader r;
	int err = 0;

	reader_init(&r, name, t);
	while (len && buf < end && !err) {
		nl = memchr(buf, '\n', (size_t)(end - buf));
		if (!nl)
			nl = end;
		r.line++;
		err = parse_line(&r, buf, (size_t)(nl - buf), d);
		buf = nl + 1;
	}
	return reader_finish(&r, err, d);
}

int trace_load(const char *path, struct trace *t, struct diag *d)
{
	char *line = NULL;
	size_t cap = 0;
	struct reader r;
	ssize_t n;
	FILE *f;
	int err = 0;

	memset(t, 0, sizeof(*t));
	f = input_open(path, "r", &err, d);
	if (!f)
		return err;
	reader_init(&r, path, t);
	while (!err && (n = getline(&line, &cap, f)) >= 0) {
		r.line++;
		if (n && line[n - 1] == '\n')
			n--;
		err = parse_line(&r, line, (size_t)n, d);
	}
	if (!err && ferror(f))
		err = diag_set(d, -EIO, "%s: read error", path);
	free(line);
	fclose(f);
	return reader_finish(&r, err, d);
}
