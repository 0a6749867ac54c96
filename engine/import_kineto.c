/* SPDX-License-Identifier: MIT */
/*
 * kineto: PyTorch profiler traces (torch.profiler's Chrome-trace JSON,
 * plain or gzip), one file per rank or one rank's.
 *
 * The collectives are the "record_param_comms" events PyTorch's c10d
 * records with their arguments (PyTorch 2.1 and later, torch/csrc/
 * distributed/c10d/ParamCommsUtils): "Collective name", "In msg nelems",
 * "Out msg nelems", "dtype", "Group size", "Process Group Name",
 * "Process Group Ranks", "Rank". The NCCL kernels carry the same
 * arguments; they are the same calls seen on the GPU and are not counted
 * twice. "ProfilerStep#N" events bound the iterations: a collective is in
 * the step whose span holds it, ready at its start from the step's start.
 *
 * The file is read as a stream: the top level's keys are skipped but for
 * "distributedInfo" (this file's rank) and "traceEvents", whose events
 * are taken one at a time (each parsed alone with jansson), so a trace of
 * any size needs the memory of one event and of the collectives found.
 * Point-to-point calls and broadcasts carry no peer or root in these
 * arguments, and barriers move nothing of the model's: they are left out
 * and counted in the notes.
 */
#include "importer.h"


#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <zlib.h>

#include "array_grow.h"

#define EVENT_MAX (1u << 20) /* bytes of one event's text */
#define IO_CHUNK (1u << 16)

/* A file's bytes, inflated when it is gzip. */
struct src {
	FILE *fp;
	const char *name;
	bool gz, gz_end;
	z_stream z;
	unsigned char in[IO_CHUNK], out[IO_CHUNK];
	size_t pos, len;     /* unread bytes of out (or of in, plain) */
	size_t in_len;
	uint64_t offset;     /* bytes read so far, inflated */
	unsigned line;
	int err;             /* 0, or a negative errno once failed */
	struct diag *d;
};

static int src_fail(struct src *s, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int src_fail(struct src *s, const char *key, const char *fmt, ...)
{
	char msg[DIAG_MSG_MAX];
	va_list ap;

	if (s->err)
		return s->err;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	s->err = diag_at(s->d, -EINVAL, s->name, s->line, 0, key, "%s (byte %" PRIu64 ")",
			 msg, s->offset);
	return s->err;
}

static int src_open(struct src *s, FILE *fp, const char *name, struct diag *d)
{
	memset(s, 0, sizeof(*s));
	s->fp = fp;
	s->name = name;
	s->line = 1;
	s->d = d;
	s->in_len = fread(s->in, 1, sizeof(s->in), fp);
	if (ferror(fp))
		return s->err = diag_set(d, -EIO, "%s: read error", name);
	s->gz = s->in_len >= 2 && s->in[0] == 0x1f && s->in[1] == 0x8b;
	if (!s->gz) {
		memcpy(s->out, s->in, s->in_len);
		s->len = s->in_len;
		return 0;
	}
	/* 16 + MAX_WBITS: a gzip header and trailer around the deflate data */
	if (inflateInit2(&s->z, 16 + MAX_WBITS) != Z_OK)
		return s->err = diag_set(d, -ENOMEM, "%s: gzip: cannot start", name);
	s->z.next_in = s->in;
	s->z.avail_in = (uInt)s->in_len;
	return 0;
}

static void src_close(struct src *s)
{
	if (s->gz)
		inflateEnd(&s->z);
}

/* More bytes into out: 0, or -1 at the end (s->err set on a fault). */
static int src_fill(struct src *s)
{
	if (!s->gz) {
		s->len = fread(s->out, 1, sizeof(s->out), s->fp);
		s->pos = 0;
		if (ferror(s->fp))
			s->err = diag_set(s->d, -EIO, "%s: read error", s->name);
		return s->len ? 0 : -1;
	}
	while (!s->gz_end) {
		int zr;

		if (!s->z.avail_in) {
			s->in_len = fread(s->in, 1, sizeof(s->in), s->fp);
			if (ferror(s->fp)) {
				s->err = diag_set(s->d, -EIO, "%s: read error", s->name);
				return -1;
			}
			if (!s->in_len) {
				src_fail(s, "gzip", "the stream is cut short");
				return -1;
			}
			s->z.next_in = s->in;
			s->z.avail_in = (uInt)s->in_len;
		}
		s->z.next_out = s->out;
		s->z.avail_out = sizeof(s->out);
		zr = inflate(&s->z, Z_NO_FLUSH);
		if (zr == Z_STREAM_END)
			s->gz_end = true;
		else if (zr != Z_OK && zr != Z_BUF_ERROR) {
			src_fail(s, "gzip", "corrupt data: %s", s->z.msg ? s->z.msg : "inflate failed");
			return -1;
		}
		s->len = sizeof(s->out) - s->z.avail_out;
		s->pos = 0;
		if (s->len)
			return 0;
	}
	return -1;
}

/* The next byte, or -1 at the end or on a fault. */
static int src_get(struct src *s)
{
	int c;

	if (s->err || (s->pos == s->len && src_fill(s)))
		return -1;
	c = s->out[s->pos++];
	s->offset++;
	if (c == '\n')
		s->line++;
	return c;
}

/* The next byte that is not JSON white space. */
static int src_next(struct src *s)
{
	int c;

	do
		c = src_get(s);
	while (c == ' ' || c == '\t' || c == '\n' || c == '\r');
	return c;
}

struct text {
	char *buf;
	size_t len, cap;
};

static int text_add(struct src *s, struct text *t, int c)
{
	if (!t)
		return 0;
	if (t->len + 1 >= t->cap) {
		size_t nc = t->cap ? 2 * t->cap : 4096;
		char *nb;

		if (nc > EVENT_MAX)
			return src_fail(s, "traceEvents", "an event longer than %u bytes", EVENT_MAX);
		nb = realloc(t->buf, nc);
		if (!nb)
			return s->err = diag_set(s->d, -ENOMEM, "%s: out of memory", s->name);
		t->buf = nb;
		t->cap = nc;
	}
	t->buf[t->len++] = (char)c;
	t->buf[t->len] = '\0';
	return 0;
}

/* A JSON string's rest after its '"' (into @t when given). */
static int scan_string(struct src *s, struct text *t)
{
	for (;;) {
		int c = src_get(s);

		if (c < 0)
			return src_fail(s, "json", "the file ends inside a string");
		if (text_add(s, t, c))
			return s->err;
		if (c == '"')
			return 0;
		if (c == '\\') {
			c = src_get(s);
			if (c < 0)
				return src_fail(s, "json", "the file ends inside a string");
			if (text_add(s, t, c))
				return s->err;
		}
	}
}

/*
 * One JSON value whose first byte is @c, copied into @t when given (else
 * skipped); *@after gets the first byte after a scalar (a container or a
 * string ends on its own byte: -2 then).
 */
static int scan_value(struct src *s, int c, struct text *t, int *after)
{
	unsigned depth = 0;

	*after = -2;
	if (c != '{' && c != '[' && c != '"') {
		while (c >= 0 && !strchr(",}] \t\r\n", c)) {
			if (text_add(s, t, c))
				return s->err;
			c = src_get(s);
		}
		if (c < 0)
			return src_fail(s, "json", "the file ends inside a value");
		while (c == ' ' || c == '\t' || c == '\n' || c == '\r')
			c = src_get(s);
		*after = c;
		return 0;
	}
	for (;; c = src_get(s)) {
		if (c < 0)
			return src_fail(s, "json", "the file ends inside %s", depth ? "an object or array" : "a value");
		if (text_add(s, t, c))
			return s->err;
		if (c == '"') {
			if (scan_string(s, t))
				return s->err;
			if (!depth)
				return 0;
		} else if (c == '{' || c == '[') {
			depth++;
		} else if (c == '}' || c == ']') {
			if (!depth)
				return src_fail(s, "json", "'%c' closes nothing", c);
			if (!--depth)
				return 0;
		}
	}
}

/* What PyTorch names a collective in "Collective name", as the trace's. */
static const struct {
	const char *name;
	enum trace_op op;
	int kind; /* 0 a collective, 1 point-to-point, 2 nothing to time,
		   * 3 a rooted call (broadcast, reduce, gather, scatter), whose
		   * root the arguments do not name */
} colls[] = {
	{ "allreduce", TRACE_OP_ALLREDUCE, 0 },
	{ "all_reduce", TRACE_OP_ALLREDUCE, 0 },
	{ "allreduce_coalesced", TRACE_OP_ALLREDUCE, 0 },
	{ "allgather", TRACE_OP_ALL_GATHER, 0 },
	{ "all_gather", TRACE_OP_ALL_GATHER, 0 },
	{ "_allgather_base", TRACE_OP_ALL_GATHER, 0 },
	{ "all_gather_into_tensor", TRACE_OP_ALL_GATHER, 0 },
	{ "allgather_into_tensor_coalesced", TRACE_OP_ALL_GATHER, 0 },
	{ "reduce_scatter", TRACE_OP_REDUCE_SCATTER, 0 },
	{ "_reduce_scatter_base", TRACE_OP_REDUCE_SCATTER, 0 },
	{ "reduce_scatter_tensor", TRACE_OP_REDUCE_SCATTER, 0 },
	{ "reduce_scatter_tensor_coalesced", TRACE_OP_REDUCE_SCATTER, 0 },
	{ "all_to_all", TRACE_OP_ALLTOALL, 0 },
	{ "alltoall", TRACE_OP_ALLTOALL, 0 },
	{ "alltoall_base", TRACE_OP_ALLTOALL, 0 },
	{ "all_to_allv", TRACE_OP_ALLTOALL, 0 },
	{ "send", TRACE_OP_SENDRECV, 1 },
	{ "recv", TRACE_OP_SENDRECV, 1 },
	{ "recvAnysource", TRACE_OP_SENDRECV, 1 },
	{ "broadcast", TRACE_OP_BROADCAST, 3 },
	{ "reduce", TRACE_OP_BROADCAST, 3 },
	{ "gather", TRACE_OP_BROADCAST, 3 },
	{ "scatter", TRACE_OP_BROADCAST, 3 },
	{ "barrier", TRACE_OP_ALLREDUCE, 2 },
	{ "wait", TRACE_OP_ALLREDUCE, 2 },
};

/* c10's ScalarType names ("Float", "BFloat16") as the trace types of
 * their size: the models time bytes. */
static const struct {
	const char *name;
	enum trace_dtype dtype;
} dtypes[] = {
	{ "Float", TRACE_DTYPE_FP32 },	   { "Half", TRACE_DTYPE_FP16 },
	{ "BFloat16", TRACE_DTYPE_BF16 },  { "Double", TRACE_DTYPE_FP64 },
	{ "Byte", TRACE_DTYPE_INT8 },	   { "Char", TRACE_DTYPE_INT8 },
	{ "Bool", TRACE_DTYPE_INT8 },	   { "Int", TRACE_DTYPE_FP32 },
	{ "Long", TRACE_DTYPE_FP64 },	   { "Short", TRACE_DTYPE_FP16 },
	{ "Float8_e4m3fn", TRACE_DTYPE_INT8 }, { "Float8_e5m2", TRACE_DTYPE_INT8 },
};

struct kcoll {
	enum trace_op op;
	enum trace_dtype dtype;
	uint64_t bytes;
	double ts;          /* us, the file's clock */
	unsigned iteration;
	double ready_us;    /* from its step's start */
	char pg[64];        /* "Process Group Name" */
	unsigned seq;       /* its place among its group's calls on its rank */
	unsigned *ranks;    /* "Process Group Ranks", sorted; owned */
	unsigned nranks;
	int rank;           /* the file's */
	size_t file;
	unsigned line;
};

struct step {
	double ts, dur;
};

struct kstate {
	struct kcoll *c;
	size_t n, cap;
	struct step *steps;
	size_t nsteps, cap_steps;
	size_t first_of_file; /* colls of the file being read start here */
	struct { char pg[64]; unsigned calls; } *groups; /* the file's, so far */
	size_t ngroups, cap_groups;
	int rank, world;      /* the file's distributedInfo; -1 when absent */
	unsigned skipped[3]; /* point-to-point, nothing to time, rooted calls */
	size_t file;
	struct diag *d;
};

static int cmp_unsigned(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return (x > y) - (x < y);
}

/* A whole number argument: JSON integer, or a string of digits (PyTorch
 * writes some as strings). */
static int arg_uint(const json_t *args, const char *key, uint64_t *out)
{
	const json_t *v = json_object_get(args, key);
	char *end;

	if (json_is_integer(v) && json_integer_value(v) >= 0) {
		*out = (uint64_t)json_integer_value(v);
		return 0;
	}
	if (json_is_string(v) && *json_string_value(v)) {
		errno = 0;
		*out = strtoull(json_string_value(v), &end, 10);
		if (!errno && !*end && json_string_value(v)[0] != '-')
			return 0;
	}
	return -EINVAL;
}

/* "[0, 1, 2, 3]" (a string, as PyTorch writes it) or a JSON array. */
static int arg_ranks(struct src *s, const json_t *v, unsigned **out, unsigned *n)
{
	size_t cap = 0, cnt = 0;
	unsigned *r = NULL;

	if (json_is_array(v)) {
		for (size_t i = 0; i < json_array_size(v); i++) {
			const json_t *x = json_array_get(v, i);

			if (!json_is_integer(x) || json_integer_value(x) < 0 ||
			    json_integer_value(x) > INT32_MAX || array_grow((void **)&r, cnt, &cap, sizeof(*r)))
				goto bad;
			r[cnt++] = (unsigned)json_integer_value(x);
		}
	} else if (json_is_string(v)) {
		const char *p = json_string_value(v);

		while (*p == ' ' || *p == '[')
			p++;
		while (*p && *p != ']') {
			char *end;
			unsigned long x;

			errno = 0;
			x = strtoul(p, &end, 10);
			if (errno || end == p || x > INT32_MAX || array_grow((void **)&r, cnt, &cap, sizeof(*r)))
				goto bad;
			r[cnt++] = (unsigned)x;
			p = end;
			while (*p == ' ' || *p == ',')
				p++;
		}
	} else {
		goto bad;
	}
	if (!cnt)
		goto bad;
	qsort(r, cnt, sizeof(*r), cmp_unsigned);
	for (size_t i = 1; i < cnt; i++)
		if (r[i] == r[i - 1])
			goto bad;
	*out = r;
	*n = (unsigned)cnt;
	return 0;
bad:
	free(r);
	return src_fail(s, "Process Group Ranks", "expected distinct ranks, like \"[0, 1, 2, 3]\"");
}

/* The call's place among its group's calls in this file: a count per
 * group name (a job has few groups). */
static int place_in_group(struct kstate *k, struct src *s, const char *pg, unsigned *seq)
{
	size_t i;

	for (i = 0; i < k->ngroups && strcmp(k->groups[i].pg, pg); i++)
		;
	if (i == k->ngroups) {
		if (array_grow((void **)&k->groups, k->ngroups, &k->cap_groups, sizeof(*k->groups)))
			return s->err = diag_set(s->d, -ENOMEM, "%s: out of memory", s->name);
		snprintf(k->groups[i].pg, sizeof(k->groups[i].pg), "%s", pg);
		k->groups[i].calls = 0;
		k->ngroups++;
	}
	*seq = k->groups[i].calls++;
	return 0;
}

static int on_collective(struct kstate *k, struct src *s, const json_t *args, double ts)
{
	const char *name = json_string_value(json_object_get(args, "Collective name"));
	const char *dt = json_string_value(json_object_get(args, "dtype"));
	const char *pg = json_string_value(json_object_get(args, "Process Group Name"));
	struct kcoll c = { .ts = ts, .rank = k->rank, .file = k->file, .line = s->line };
	uint64_t in = 0, out = 0, nelems, rank;
	size_t i;
	int err;

	for (i = 0; i < sizeof(colls) / sizeof(colls[0]) && strcmp(colls[i].name, name); i++)
		;
	if (i == sizeof(colls) / sizeof(colls[0]))
		return src_fail(s, "Collective name", "'%.40s' is not one gdrlab's trace has", name);
	if (colls[i].kind) {
		k->skipped[colls[i].kind - 1]++;
		return 0;
	}
	c.op = colls[i].op;
	for (i = 0; dt && i < sizeof(dtypes) / sizeof(dtypes[0]) && strcmp(dtypes[i].name, dt); i++)
		;
	if (!dt || i == sizeof(dtypes) / sizeof(dtypes[0]))
		return src_fail(s, "dtype", "'%.40s' is not a type gdrlab knows (Float, Half, BFloat16, ...)",
				dt ? dt : "(missing)");
	c.dtype = dtypes[i].dtype;
	if (arg_uint(args, "In msg nelems", &in) || arg_uint(args, "Out msg nelems", &out))
		return src_fail(s, "In msg nelems", "expected whole numbers in 'In msg nelems' and 'Out msg nelems'");
	/* the trace's bytes are the whole buffer: an all-gather's output,
	 * the others' input */
	nelems = c.op == TRACE_OP_ALL_GATHER ? out : in;
	if (nelems > (uint64_t)INT64_MAX / 8) /* the largest element */
		return src_fail(s, "In msg nelems", "too many elements");
	c.bytes = nelems * trace_dtype_size(c.dtype);
	if (!c.bytes) {
		k->skipped[1]++;
		return 0;
	}
	if (c.rank < 0 && !arg_uint(args, "Rank", &rank) && rank <= INT32_MAX)
		c.rank = (int)rank;
	if (c.rank < 0)
		return src_fail(s, "Rank", "neither distributedInfo nor the event says this file's rank");
	snprintf(c.pg, sizeof(c.pg), "%s", pg ? pg : "");
	if (arg_ranks(s, json_object_get(args, "Process Group Ranks"), &c.ranks, &c.nranks))
		return s->err;
	err = place_in_group(k, s, c.pg, &c.seq);
	if (err) {
		free(c.ranks);
		return err;
	}
	if (array_grow((void **)&k->c, k->n, &k->cap, sizeof(*k->c))) {
		free(c.ranks);
		return s->err = diag_set(s->d, -ENOMEM, "%s: out of memory", s->name);
	}
	k->c[k->n++] = c;
	return 0;
}

static int on_event(struct kstate *k, struct src *s, const char *text, size_t len)
{
	json_error_t je;
	json_t *e = json_loadb(text, len, 0, &je);
	const json_t *args;
	const char *name;
	double ts;
	int err = 0;

	if (!e || !json_is_object(e)) {
		char why[sizeof(je.text)];

		json_decref(e);
		/* jansson quotes the text near the fault, newlines and all */
		return src_fail(s, "traceEvents", "an event that is not a JSON object%s%s",
				e ? "" : ": ", e ? "" : diag_printable(je.text, why, sizeof(why)));
	}
	name = json_string_value(json_object_get(e, "name"));
	ts = json_number_value(json_object_get(e, "ts"));
	args = json_object_get(e, "args");
	if (name && !strncmp(name, "ProfilerStep#", 13)) {
		double dur = json_number_value(json_object_get(e, "dur"));

		if (array_grow((void **)&k->steps, k->nsteps, &k->cap_steps, sizeof(*k->steps)))
			err = s->err = diag_set(s->d, -ENOMEM, "%s: out of memory", s->name);
		else
			k->steps[k->nsteps++] = (struct step){ ts, dur };
	} else if (name && !strcmp(name, "record_param_comms") && json_is_object(args) &&
		   json_is_string(json_object_get(args, "Collective name"))) {
		err = on_collective(k, s, args, ts);
	}
	/* other events with the same arguments (the NCCL kernels, PyTorch's
	 * own annotations) are copies of a record_param_comms call */
	json_decref(e);
	return err;
}

/* The top level's "distributedInfo": {"rank": R, "world_size": N, ...}. */
static int on_distributed(struct kstate *k, struct src *s, const char *text, size_t len)
{
	json_t *v = json_loadb(text, len, 0, NULL);
	uint64_t r, w;

	if (json_is_object(v) && !arg_uint(v, "rank", &r) && r <= INT32_MAX)
		k->rank = (int)r;
	if (json_is_object(v) && !arg_uint(v, "world_size", &w) && w <= INT32_MAX)
		k->world = (int)w;
	json_decref(v);
	return 0;
}

/* The array of "traceEvents" (@c its first byte), one event at a time. */
static int read_events(struct kstate *k, struct src *s, struct text *t, int c)
{
	int after;

	if (c != '[')
		return src_fail(s, "traceEvents", "expected an array");
	c = src_next(s);
	if (c == ']')
		return 0;
	for (;;) {
		unsigned first = s->line, last;

		t->len = 0;
		if (c != '{')
			return src_fail(s, "traceEvents", "expected an event object");
		if (scan_value(s, c, t, &after))
			return s->err;
		/* its errors and its entry name the line it starts on */
		last = s->line;
		s->line = first;
		if (on_event(k, s, t->buf, t->len))
			return s->err;
		s->line = last;
		c = src_next(s);
		if (c == ']')
			return 0;
		if (c != ',')
			return src_fail(s, "traceEvents", "expected ',' or ']' after an event");
		c = src_next(s);
	}
}

/* The top-level object: its keys, "traceEvents" streamed. */
static int read_file(struct kstate *k, struct src *s)
{
	struct text key = { 0 }, t = { 0 };
	bool events = false;
	int c = src_next(s), after = -2, err = 0;

	if (c != '{')
		err = src_fail(s, "json", "expected a JSON object (a PyTorch profiler trace)");
	c = err ? -1 : src_next(s);
	while (!err && c != '}') {
		key.len = 0;
		if (c != '"') {
			err = src_fail(s, "json", "expected a key");
			break;
		}
		if (scan_string(s, &key) || src_next(s) != ':') {
			err = src_fail(s, "json", "expected ':' after a key");
			break;
		}
		key.buf[key.len - 1] = '\0'; /* its closing quote */
		c = src_next(s);
		if (!strcmp(key.buf, "traceEvents")) {
			err = read_events(k, s, &t, c);
			events = true;
			after = -2;
		} else if (!strcmp(key.buf, "distributedInfo")) {
			t.len = 0;
			err = scan_value(s, c, &t, &after);
			if (!err)
				err = on_distributed(k, s, t.buf, t.len);
		} else {
			err = scan_value(s, c, NULL, &after);
		}
		if (err)
			break;
		c = after == -2 ? src_next(s) : after;
		if (c == ',')
			c = src_next(s);
		else if (c != '}')
			err = src_fail(s, "json", "expected ',' or '}' after a value");
	}
	if (!err && !events)
		err = src_fail(s, "traceEvents", "missing: not a PyTorch profiler trace");
	free(key.buf);
	free(t.buf);
	return err ? err : s->err;
}

/* The steps hold the file's collectives: each its iteration and ready
 * time from its step's start (no steps: one iteration from the first). */
static void place_in_steps(struct kstate *k)
{
	double first = k->n > k->first_of_file ? k->c[k->first_of_file].ts : 0;

	for (size_t i = k->first_of_file; i < k->n; i++) {
		struct kcoll *c = &k->c[i];
		size_t lo = 0, hi = k->nsteps; /* the last step starting by c */
		unsigned it;

		while (hi - lo > 1) {
			size_t mid = lo + (hi - lo) / 2;

			if (k->steps[mid].ts <= c->ts)
				lo = mid;
			else
				hi = mid;
		}
		it = (unsigned)lo;
		c->iteration = it;
		c->ready_us = k->nsteps ? c->ts - k->steps[it].ts : c->ts - first;
		if (c->ready_us < 0)
			c->ready_us = 0;
	}
}

static int cmp_step(const void *a, const void *b)
{
	const struct step *x = a, *y = b;

	return (x->ts > y->ts) - (x->ts < y->ts);
}

/* By group and place, the lowest rank first: a call's copies side by side. */
static int cmp_call(const void *a, const void *b)
{
	const struct kcoll *x = a, *y = b;
	int c = strcmp(x->pg, y->pg);

	if (c)
		return c;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

/* Issue order: by iteration, then by the time into it (each rank's clock
 * counted from its own step), then by rank. */
static int cmp_issue(const void *a, const void *b)
{
	const struct kcoll *x = a, *y = b;

	if (x->iteration != y->iteration)
		return x->iteration < y->iteration ? -1 : 1;
	if (x->ready_us != y->ready_us)
		return x->ready_us < y->ready_us ? -1 : 1;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

/*
 * One entry per (group, place) over the files: the lowest rank's call
 * stands for the group's, every other rank's must agree on op and bytes.
 */
static int build(struct kstate *k, const struct import_input *in, struct trace *t,
		 unsigned world)
{
	size_t n = 0, kept = 0;

	/* the copies of one call side by side: keep the first, check the rest */
	qsort(k->c, k->n, sizeof(*k->c), cmp_call);
	for (size_t i = 0; i < k->n; i++) {
		const struct kcoll *c = &k->c[i], *o = kept ? &k->c[kept - 1] : NULL;

		if (o && !strcmp(o->pg, c->pg) && o->seq == c->seq) {
			if (o->rank == c->rank)
				return diag_at(k->d, -EINVAL, in[c->file].name, c->line, 0, "Rank",
					       "rank %d is in two files (%s, %s)", c->rank,
					       in[o->file].name, in[c->file].name);
			if (o->op != c->op || o->bytes != c->bytes)
				return diag_at(k->d, -EINVAL, in[c->file].name, c->line, 0, "Collective name",
					       "rank %d's call %u of group '%s' is %s of %" PRIu64 " bytes, rank %d's (%s:%u) %s of %" PRIu64,
					       c->rank, c->seq, c->pg, trace_op_name(c->op), c->bytes, o->rank,
					       in[o->file].name, o->line, trace_op_name(o->op), o->bytes);
			free(k->c[i].ranks);
			k->c[i].ranks = NULL;
			continue;
		}
		k->c[kept++] = *c;
	}
	for (size_t i = kept; i < k->n; i++)
		k->c[i].ranks = NULL; /* moved or freed above */
	k->n = kept;
	qsort(k->c, k->n, sizeof(*k->c), cmp_issue);
	t->entries = calloc(k->n ? k->n : 1, sizeof(*t->entries));
	if (!t->entries)
		return diag_set(k->d, -ENOMEM, "%s: out of memory", in[0].name);
	for (size_t i = 0; i < k->n; i++) {
		const struct kcoll *c = &k->c[i];
		struct trace_entry *e;

		e = &t->entries[n++];
		e->line = c->line;
		e->iteration = c->iteration;
		e->op = c->op;
		e->dtype = c->dtype;
		e->bytes = c->bytes;
		e->ready_us = c->ready_us;
		e->compute_us = -1;
		e->root = e->peer = -1;
		if (!(world && c->nranks == world && c->ranks[c->nranks - 1] == world - 1)) {
			e->group = malloc(c->nranks * sizeof(*e->group));
			if (!e->group)
				return diag_set(k->d, -ENOMEM, "%s: out of memory", in[0].name);
			memcpy(e->group, c->ranks, c->nranks * sizeof(*e->group));
			e->ngroup = c->nranks;
		}
		if (e->iteration + 1 > t->niterations)
			t->niterations = e->iteration + 1;
	}
	t->nentries = n;
	return 0;
}

static void state_free(struct kstate *k)
{
	for (size_t i = 0; i < k->n; i++)
		free(k->c[i].ranks);
	free(k->c);
	free(k->steps);
	free(k->groups);
}

static int kineto_import(const struct import_input *in, size_t n,
			 const struct import_options *o, struct trace *t,
			 struct import_notes *notes, struct diag *d)
{
	struct kstate k = { .d = d };
	unsigned world = 0;
	int err = 0;

	(void)o;
	memset(t, 0, sizeof(*t));
	for (k.file = 0; k.file < n && !err; k.file++) {
		struct src *s = malloc(sizeof(*s));

		if (!s)
			return diag_set(d, -ENOMEM, "%s: out of memory", in[k.file].name);
		k.rank = k.world = -1;
		k.nsteps = 0;
		k.ngroups = 0;
		k.first_of_file = k.n;
		err = src_open(s, in[k.file].fp, in[k.file].name, d);
		if (!err)
			err = read_file(&k, s);
		if (!err) {
			if (k.nsteps)
				qsort(k.steps, k.nsteps, sizeof(*k.steps), cmp_step);
			place_in_steps(&k);
			if (k.world > 0)
				world = (unsigned)k.world;
		}
		src_close(s);
		free(s);
	}
	if (!err && !k.n)
		err = diag_set(d, -EINVAL, "%s: kineto: no collectives (record_param_comms events with a 'Collective name': PyTorch 2.1 and later)",
			       in[0].name);
	if (!err)
		err = build(&k, in, t, world);
	if (!err) {
		snprintf(t->file, sizeof(t->file), "%s", in[0].name);
		notes->line[0] = '\0';
		if (k.skipped[0] || k.skipped[1] || k.skipped[2])
			snprintf(notes->line, sizeof(notes->line),
				 "left out: %u point-to-point calls and %u broadcasts, reduces, gathers and scatters (the profiler records no peer or root), %u barriers, waits and empty calls",
				 k.skipped[0], k.skipped[2], k.skipped[1]);
	}
	if (err)
		trace_destroy(t);
	state_free(&k);
	return err;
}

const struct importer_ops importer_kineto = {
	.name = "kineto",
	.what = "PyTorch profiler JSON (plain or gzip), record_param_comms events",
	.import = kineto_import,
};
