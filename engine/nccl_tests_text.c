/* SPDX-License-Identifier: MIT */
/*
 * nccl_tests_text: the table nccl-tests prints on stdout. The header line
 * ("#  size  count  type  redop  root  time  algbw ...") says which
 * columns the rows have, for every release:
 *
 *   size count type [redop] [root]          redop and root come and go
 *     {time|cputime algbw busbw {#wrong|error} [i_min i_max i_p99 i_cv%]}
 *     twice, out of place then in place     error: versions before 2.13
 *   [timestamp]                             a date and a time (-S)
 *
 * and v1.0.0's (2018, the first release), times in milliseconds:
 *
 *   bytes N type [op] [root] {time algbw busbw res} once or twice
 *
 * Lines that are not the table (UCX and NCCL warnings, a job's echo) are
 * skipped, as are the comment lines we have no use for. Only a line
 * between the header and the footer that starts with a number is a row;
 * one where nccl-tests says it failed ends the reading there. A
 * launcher's prefix on each line is read past, and a row that NCCL's log
 * lines cut into pieces is put back together (nccl_tests_noise.h).
 */
#include "nccl_tests_read.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array_grow.h"
#include "nccl_tests_noise.h"

/* nccl-tests prints at most 2048 bytes a line; room for longer noise. */
#define LINE_MAX_LEN 4096
#define TOKENS_MAX 40
#define COLS_MAX 32

struct tok {
	char *s;
	unsigned col; /* 1-based byte column in the line */
};

/*
 * What each column of a row holds, from the header; the first five are
 * numbered as the fields nt_add_row names in its messages.
 */
enum col_kind {
	C_SIZE = NT_F_SIZE,
	C_COUNT = NT_F_COUNT,
	C_TYPE = NT_F_TYPE,
	C_REDOP = NT_F_REDOP,
	C_ROOT = NT_F_ROOT,
	C_TIME,
	C_ALGBW,
	C_BUSBW,
	C_WRONG,
	C_ERROR,
	C_ITER,
	C_STAMP,
	C_BUSBW_EXTRA, /* gdrlab busbw's own columns after nccl-tests' */
};

struct layout {
	unsigned ncols;
	enum col_kind kind[COLS_MAX];
	const char *name[COLS_MAX]; /* the header's word, for messages */
	signed char half[COLS_MAX]; /* 0 out of place, 1 in place, -1 none */
	bool redop;
	bool v1;	/* v1.0.0's "bytes N" header: times in ms, "res" */
	unsigned halves; /* 2, or 1: v1.0.0's broadcast, out of place only */
	unsigned line; /* of the header */
};

/* A device line of v1.0.0, kept until the list ends. */
struct v1_dev {
	long long rank, device;
	char *host, *gpu;
	unsigned line, col;
};

struct text {
	struct nt_reader *r;
	struct diag *d;
	struct layout lay;
	bool have_header, closed, have_avg;
	unsigned line, avg_line;
	unsigned run_line; /* "# nThread ... maxBytes ...": where the run
			    * began (0: not seen), so a table must end */
	/* the first failure nccl-tests printed before the table, if any */
	unsigned fail_line, fail_col;
	char fail[96];
	bool cut;  /* the line is longer than LINE_MAX_LEN - 1 */
	bool last; /* no newline after it: the file ends inside the line */
	bool many; /* more than TOKENS_MAX tokens */
	/* v1.0.0's device lines, until their list ends (flush_v1_devices) */
	struct v1_dev *v1;
	size_t nv1, cap_v1;
	/* NCCL's log lines cut a row: its pieces so far (pending) */
	struct nt_log_hosts hosts;
	bool pending;
	unsigned pend_line;
	size_t npend;
	char pend[LINE_MAX_LEN];
	char phys[LINE_MAX_LEN]; /* a line without its launcher's prefix */
	char orig[LINE_MAX_LEN]; /* the line as written, trailing blanks cut */
	char buf[LINE_MAX_LEN];  /* the same, cut into tokens */
	struct tok tok[TOKENS_MAX];
	unsigned ntok;
};

static const char *const half_name[] = { "out-of-place", "in-place" };

static int line_err(const struct text *t, unsigned col, const char *key,
		    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int line_err(const struct text *t, unsigned col, const char *key,
		    const char *fmt, ...)
{
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = diag_vat(t->d, -EINVAL, t->r->name, t->line, col, key, fmt, ap);
	va_end(ap);
	return err;
}

/* NUL counts as a blank, so that no token hides bytes after one. */
static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' ||
	       c == '\0';
}

static void tokenize(struct text *t, const char *s, size_t len)
{
	size_t n = len < LINE_MAX_LEN - 1 ? len : LINE_MAX_LEN - 1;
	size_t i = 0;

	t->cut = n < len;
	memcpy(t->orig, s, n);
	while (n && is_blank(t->orig[n - 1]))
		n--;
	t->orig[n] = '\0';
	memcpy(t->buf, t->orig, n + 1);
	t->ntok = 0;
	t->many = false;
	while (i < n) {
		while (i < n && is_blank(t->buf[i]))
			t->buf[i++] = '\0';
		if (i >= n)
			break;
		if (t->ntok == TOKENS_MAX) {
			t->many = true;
			break;
		}
		t->tok[t->ntok].s = t->buf + i;
		t->tok[t->ntok].col = (unsigned)i + 1;
		t->ntok++;
		while (i < n && !is_blank(t->buf[i]))
			i++;
		if (i < n)
			t->buf[i++] = '\0';
	}
}

static bool word_is(const struct tok *w, const char *s)
{
	return strcmp(w->s, s) == 0;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

static bool parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (!all_digits(s))
		return false;
	for (; *s; s++) {
		unsigned digit = (unsigned)(*s - '0');

		if (v > (UINT64_MAX - digit) / 10)
			return false;
		v = v * 10 + digit;
	}
	*out = v;
	return true;
}

static bool parse_ll(const char *s, long long *out)
{
	char *end;

	errno = 0;
	*out = strtoll(s, &end, 10);
	return end != s && !*end && !errno;
}

/* A finite number; nccl-tests prints "%.2f", "%.1f", "%.0f" or "%.1e". */
static bool parse_num(const char *s, double *out)
{
	char *end;

	*out = strtod(s, &end);
	return end != s && !*end && isfinite(*out);
}

/* Append a column to the layout the header describes. */
static int add_col(struct text *t, enum col_kind kind, const char *name,
		   int half)
{
	struct layout *l = &t->lay;

	if (l->ncols >= COLS_MAX)
		return line_err(t, 0, "header", "more than %d columns",
				COLS_MAX);
	l->kind[l->ncols] = kind;
	l->name[l->ncols] = name;
	l->half[l->ncols] = (signed char)half;
	l->ncols++;
	return 0;
}

/* The next header word must be @a or @b (which may be NULL). */
static int expect(struct text *t, const struct tok *w, unsigned nw,
		  unsigned *i, const char *a, const char *b, const char **got)
{
	char buf[40];

	if (*i >= nw)
		return line_err(t, 0, "header", "ends where '%s' was expected",
				a);
	if (word_is(&w[*i], a))
		*got = a;
	else if (b && word_is(&w[*i], b))
		*got = b;
	else
		return line_err(t, w[*i].col, "header",
				"'%s' where '%s' was expected",
				diag_printable(w[*i].s, buf, sizeof(buf)), a);
	(*i)++;
	return 0;
}

/*
 * One half's columns: time algbw busbw #wrong [i_min i_max i_p99 i_cv%],
 * or v1.0.0's time algbw busbw res (src/all_reduce.cu print_header), res
 * the largest error as later versions' error column has it.
 */
static int parse_half(struct text *t, const struct tok *w, unsigned nw,
		      unsigned *i, int half)
{
	static const char *const iter[] = { "i_min", "i_max", "i_p99", "i_cv%" };
	const char *got = NULL;
	size_t k;
	int err;

	err = expect(t, w, nw, i, "time", "cputime", &got);
	if (!err && !strcmp(got, "cputime"))
		t->r->f->cputime = true;
	if (!err)
		err = add_col(t, C_TIME, got, half);
	if (!err)
		err = expect(t, w, nw, i, "algbw", NULL, &got);
	if (!err)
		err = add_col(t, C_ALGBW, got, half);
	if (!err)
		err = expect(t, w, nw, i, "busbw", NULL, &got);
	if (!err)
		err = add_col(t, C_BUSBW, got, half);
	if (!err)
		err = t->lay.v1 ? expect(t, w, nw, i, "res", NULL, &got) :
				  expect(t, w, nw, i, "#wrong", "error", &got);
	if (!err)
		err = add_col(t, got[0] == '#' ? C_WRONG : C_ERROR, got, half);
	if (err || *i >= nw || !word_is(&w[*i], iter[0]))
		return err;
	for (k = 0; k < sizeof(iter) / sizeof(iter[0]) && !err; k++) {
		err = expect(t, w, nw, i, iter[k], NULL, &got);
		if (!err)
			err = add_col(t, C_ITER, got, half);
	}
	return err;
}

static int parse_header(struct text *t, const struct tok *w, unsigned nw)
{
	const char *got = NULL;
	unsigned i = 2;
	char buf[40];
	int err = 0;

	if (t->have_header)
		return line_err(t, w[0].col, "header",
				"a second results table (the first began on line %u): one nccl-tests run per file",
				t->lay.line);
	memset(&t->lay, 0, sizeof(t->lay));
	t->lay.line = t->line;
	t->lay.v1 = word_is(&w[0], "bytes");
	t->lay.halves = 2;
	if (t->many)
		return line_err(t, 0, "header", "more than %d columns",
				TOKENS_MAX);
	err = add_col(t, C_SIZE, "size", -1);
	if (!err)
		err = add_col(t, C_COUNT, "count", -1);
	if (!err)
		err = expect(t, w, nw, &i, "type", NULL, &got);
	if (!err)
		err = add_col(t, C_TYPE, "type", -1);
	if (!err && i < nw && word_is(&w[i], t->lay.v1 ? "op" : "redop")) {
		i++;
		t->lay.redop = true;
		err = add_col(t, C_REDOP, "redop", -1);
	}
	if (!err && i < nw && word_is(&w[i], "root")) {
		i++;
		err = add_col(t, C_ROOT, "root", -1);
	}
	if (!err)
		err = parse_half(t, w, nw, &i, 0);
	/* v1.0.0's broadcast timed out of place only (RunTest's inPlace 0) */
	if (!err && t->lay.v1 && i == nw)
		t->lay.halves = 1;
	else if (!err)
		err = parse_half(t, w, nw, &i, 1);
	if (!err && i < nw && word_is(&w[i], "timestamp")) {
		i++;
		err = add_col(t, C_STAMP, "timestamp", -1); /* date */
		if (!err)
			err = add_col(t, C_STAMP, "timestamp", -1); /* time */
	}
	/* a table `gdrlab busbw` printed: its columns after nccl-tests' say
	 * what it chose (cli/busbw_print.c), read past */
	if (!err && i + 5 == nw && word_is(&w[i], "algo") && word_is(&w[i + 1], "proto") &&
	    word_is(&w[i + 2], "nch") && word_is(&w[i + 3], "nccl_est") &&
	    word_is(&w[i + 4], "path"))
		for (; !err && i < nw; i++)
			err = add_col(t, C_BUSBW_EXTRA, "busbw", -1);
	if (!err && i < nw)
		err = line_err(t, w[i].col, "header",
			       "unknown column '%s' after the last one",
			       diag_printable(w[i].s, buf, sizeof(buf)));
	if (!err)
		t->have_header = true;
	return err;
}

/*
 * "#  Rank  0 Group  0 Pid 1234 on host device  0 [0000:3d:00] NAME"
 * (src/common.cu, later util.cu writeDeviceReport): Group since 2.13.4,
 * the bus as domain:bus:device since 2.14.1 ("[0x3d]" before), and no
 * Pid in v1.0.0 ("#   Rank %2d on %10s device %2d [0x%02x] %s").
 */
static int keep_v1_device(struct text *t, long long rank, long long device, const char *host,
			  const char *gpu, unsigned col)
{
	struct v1_dev *v;

	if (t->nv1 == t->cap_v1 &&
	    array_grow((void **)&t->v1, t->nv1, &t->cap_v1, sizeof(*t->v1)))
		return diag_set(t->d, -ENOMEM, "%s: out of memory", t->r->name);
	v = &t->v1[t->nv1];
	*v = (struct v1_dev){ rank, device, strdup(host), strdup(gpu), t->line, col };
	if (!v->host || !v->gpu) {
		free(v->host);
		free(v->gpu);
		return diag_set(t->d, -ENOMEM, "%s: out of memory", t->r->name);
	}
	t->nv1++;
	return 0;
}

static void drop_v1_devices(struct text *t)
{
	for (size_t i = 0; i < t->nv1; i++) {
		free(t->v1[i].host);
		free(t->v1[i].gpu);
	}
	t->nv1 = 0;
}

static int v1_dev_cmp(const void *a, const void *b)
{
	const struct v1_dev *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return (x->line > y->line) - (x->line < y->line);
}

/*
 * The end of v1.0.0's device list. Each process printed its own ranks'
 * lines, one process after another with an MPI_Barrier between them
 * (src/common.cu: no gather to rank 0 before v2.0.0), so mpirun's
 * forwarding of their output may interleave or reorder the processes'
 * lines: they are taken in rank order, each rank once.
 */
static int flush_v1_devices(struct text *t)
{
	int err = 0;

	qsort(t->v1, t->nv1, sizeof(*t->v1), v1_dev_cmp);
	for (size_t i = 0; i < t->nv1 && !err; i++) {
		const struct v1_dev *v = &t->v1[i];
		struct nt_dev_at at = { v->line, v->col, "Rank" };

		if (i && v->rank == t->v1[i - 1].rank)
			err = diag_at(t->d, -EINVAL, t->r->name, v->line, v->col, "Rank",
				      "rank %lld again (also on line %u): " NT_SECOND_RUN,
				      v->rank, t->v1[i - 1].line);
		else
			err = nt_add_devices(t->r, v->rank, 1, -1, v->host, v->device, v->gpu, &at,
					     t->d);
	}
	drop_v1_devices(t);
	return err;
}

static int parse_device(struct text *t, const struct tok *w, unsigned nw)
{
	struct nt_dev_at at = { t->line, w[0].col, "Rank" };
	long long rank = 0, group = -1, x, device;
	const char *host, *gpu = "";
	bool v1 = true; /* no Group, no Pid: v1.0.0's line */
	unsigned i = 1;

	if (i >= nw || !parse_ll(w[i].s, &rank) || rank < 0)
		goto bad;
	i++;
	if (i < nw && word_is(&w[i], "Group")) {
		if (i + 1 >= nw || !parse_ll(w[i + 1].s, &group) || group < 0)
			goto bad;
		i += 2;
		v1 = false;
	}
	if (i < nw && word_is(&w[i], "Pid")) {
		if (i + 1 >= nw || !parse_ll(w[i + 1].s, &x))
			goto bad;
		i += 2;
		v1 = false;
	}
	if (i + 1 >= nw || !word_is(&w[i], "on"))
		goto bad;
	host = w[i + 1].s;
	i += 2;
	if (i + 1 >= nw || !word_is(&w[i], "device") ||
	    !parse_ll(w[i + 1].s, &device) || device < 0)
		goto bad;
	i += 2;
	if (i >= nw || w[i].s[0] != '[' || w[i].s[strlen(w[i].s) - 1] != ']')
		goto bad;
	i++;
	if (i < nw)
		gpu = t->orig + w[i].col - 1; /* the rest of the line */
	if (v1)
		return keep_v1_device(t, rank, device, host, gpu, w[0].col);
	return nt_add_devices(t->r, rank, 1, group, host, device, gpu, &at, t->d);
bad:
	return line_err(t, i < nw ? w[i].col : 0, "Rank",
			"expected 'Rank N [Group G] [Pid P] on HOST device D [BUS] NAME'");
}

/* "# Avg bus bandwidth    : 4.85188 [OK|FAILED]" */
static int parse_avg(struct text *t, const struct tok *w, unsigned nw)
{
	static const char key[] = "Avg bus bandwidth";
	char buf[40], *end;
	double v;

	if (t->have_avg)
		return line_err(t, w[0].col, key, "given twice (first on line %u)",
				t->avg_line);
	if (nw < 5 || !word_is(&w[3], ":"))
		return line_err(t, nw > 3 ? w[3].col : 0, key,
				"expected ': <GB/s>'");
	/* With no rows nccl-tests averages nothing and prints nan. */
	v = strtod(w[4].s, &end);
	if (end == w[4].s || *end || isinf(v))
		return line_err(t, w[4].col, key, "'%s' is not a number",
				diag_printable(w[4].s, buf, sizeof(buf)));
	if (v < 0)
		return line_err(t, w[4].col, key, "must be >= 0, got %s",
				diag_printable(w[4].s, buf, sizeof(buf)));
	t->r->f->avg_busbw = v;
	t->have_avg = true;
	t->avg_line = t->line;
	return 0;
}

/* The key of column @c in messages: "size", "in-place busbw". */
static const char *col_key(const struct layout *l, unsigned c, char *buf,
			   size_t n)
{
	if (l->half[c] < 0)
		return l->name[c];
	snprintf(buf, n, "%s %s", half_name[(int)l->half[c]], l->name[c]);
	return buf;
}

/* One cell of a half: time, bandwidths, wrong elements or error. */
static int parse_cell(struct text *t, unsigned c, const struct tok *tok,
		      struct nccl_tests_result *res)
{
	const struct layout *l = &t->lay;
	char key[48], buf[40];
	double v = 0;

	col_key(l, c, key, sizeof(key));
	diag_printable(tok->s, buf, sizeof(buf));
	if ((l->kind[c] == C_WRONG || l->kind[c] == C_ERROR) &&
	    word_is(tok, "N/A"))
		return 0; /* not checked: wrong stays -1, max_err NAN */
	if (!parse_num(tok->s, &v))
		return line_err(t, tok->col, key, "'%s' is not a number", buf);
	if (l->kind[c] == C_ITER)
		return 0;
	if (v < 0)
		return line_err(t, tok->col, key, "must be >= 0, got %s", buf);
	switch (l->kind[c]) {
	case C_TIME:
		/* v1.0.0 src/common.cu BenchTime: "%7.3f" of deltaSec * 1.0E3 */
		res->time_us = l->v1 ? v * 1e3 : v;
		break;
	case C_ALGBW:
		res->algbw_gbps = v;
		break;
	case C_BUSBW:
		res->busbw_gbps = v;
		break;
	case C_WRONG:
		/* "%6g": a whole count, perhaps in exponent form */
		if (v != floor(v) || v >= 0x1p63)
			return line_err(t, tok->col, key,
					"'%s' is not a count of wrong elements",
					buf);
		res->wrong = (long long)v;
		break;
	default: /* C_ERROR */
		res->max_err = v;
		break;
	}
	return 0;
}

static int parse_field(struct text *t, unsigned c, const struct tok *tok,
		       struct nccl_tests_row *row)
{
	const struct layout *l = &t->lay;
	char buf[40];
	long long x = 0;
	size_t i, n;

	diag_printable(tok->s, buf, sizeof(buf));
	switch (l->kind[c]) {
	case C_SIZE:
		if (!parse_u64(tok->s, &row->size))
			return line_err(t, tok->col, "size",
					"'%s' is not a byte count", buf);
		return 0;
	case C_COUNT:
		if (!parse_u64(tok->s, &row->count))
			return line_err(t, tok->col, "count",
					"'%s' is not an element count", buf);
		return 0;
	case C_TYPE:
		snprintf(row->type, sizeof(row->type), "%s", tok->s);
		return 0;
	case C_REDOP:
		/* a word, so that a shifted number is not taken for one */
		n = strlen(tok->s);
		for (i = 0; i < n; i++) {
			char ch = tok->s[i];
			bool letter = (ch >= 'a' && ch <= 'z') ||
				      (ch >= 'A' && ch <= 'Z') || ch == '_';

			if (!letter && !(i && ch >= '0' && ch <= '9'))
				break;
		}
		if (i < n || n >= sizeof(row->redop))
			return line_err(t, tok->col, "redop",
					"'%s' is not a reduction name", buf);
		memcpy(row->redop, tok->s, n + 1);
		return 0;
	case C_ROOT:
		if (!parse_ll(tok->s, &x) || x < -1 || x > INT_MAX)
			return line_err(t, tok->col, "root",
					"'%s' is not a rank", buf);
		row->root = (int)x;
		return 0;
	case C_STAMP:
	case C_BUSBW_EXTRA:
		return 0;
	case C_TIME:
	case C_ALGBW:
	case C_BUSBW:
		/* gdrlab busbw's row of nothing to move (a size that rounds
		 * to 0 bytes): no time, where nccl-tests prints its launch's;
		 * the row is left out as any 0-byte row */
		if (!row->size && word_is(tok, "N/A"))
			return 0;
		return parse_cell(t, c, tok, l->half[c] ? &row->ip : &row->oop);
	default:
		return parse_cell(t, c, tok,
				  l->half[c] ? &row->ip : &row->oop);
	}
}

static void init_result(struct nccl_tests_result *res)
{
	memset(res, 0, sizeof(*res));
	res->wrong = -1;
	res->max_err = NAN;
	res->valid = true;
}

/* A half the run did not time, as the JSON reader leaves a null one. */
static void no_result(struct nccl_tests_result *res)
{
	res->time_us = res->algbw_gbps = res->busbw_gbps = NAN;
	res->valid = false;
}

/*
 * A row has a token per column, except one quirk: an empty redop under a
 * redop header, so a row one token short whose redop cell is a number has
 * no redop. alltoall prints one before 2.13, every test that reduces
 * nothing from 2.13.0 to 2.13.3 (src/<test>.cu: TimeTest(..., "", root);
 * "none" since 2.13.4), and hypercube still.
 */
static int parse_row(struct text *t)
{
	const struct layout *l = &t->lay;
	struct nccl_tests_row row;
	struct nt_at at = { .line = t->line, .prefix = "", .index = -1 };
	unsigned c, j = 0, n = t->ntok;
	double v;
	char key[48];
	bool no_redop = false;
	int err;

	if (t->cut)
		return line_err(t, 0, "row", "line longer than %d bytes",
				LINE_MAX_LEN - 1);
	if (t->many || n > l->ncols)
		return line_err(t, t->tok[t->many ? n - 1 : l->ncols].col, "row",
				"%s%u columns where the header on line %u has %u",
				t->many ? "more than " : "", n, l->line,
				l->ncols);
	if (n < l->ncols) {
		/* size count type, then where redop would be */
		no_redop = l->redop && n == l->ncols - 1 &&
			   parse_num(t->tok[3].s, &v);
		if (!no_redop)
			return line_err(t, 0, col_key(l, n, key, sizeof(key)),
					t->last ? "the file ends in the middle of a row (%u of %u columns)"
						: "missing: the row has %u of the %u columns of the header",
					n, l->ncols);
	}
	memset(&row, 0, sizeof(row));
	row.root = -1;
	row.line = t->line;
	init_result(&row.oop);
	init_result(&row.ip);
	for (c = 0; c < l->ncols; c++) {
		if (no_redop && l->kind[c] == C_REDOP)
			continue;
		if (l->kind[c] <= C_ROOT)
			at.col[l->kind[c]] = t->tok[j].col; /* same numbering */
		err = parse_field(t, c, &t->tok[j++], &row);
		if (err)
			return err;
	}
	if (l->halves == 1)
		no_result(&row.ip);
	return nt_add_row(t->r, &row, &at, t->d);
}

/* "nccl-library=22703" among @w: the NCCL the test ran with. A value that
 * is not a version code is noise, as the rest of the line is. */
static void library_version(struct text *t, const struct tok *w, unsigned nw)
{
	static const char key[] = "nccl-library=";

	for (unsigned i = 0; i < nw; i++) {
		const char *v = w[i].s + sizeof(key) - 1;
		char *end;
		unsigned long code;

		if (strncmp(w[i].s, key, sizeof(key) - 1) || !isdigit((unsigned char)*v))
			continue;
		errno = 0;
		code = strtoul(v, &end, 10);
		if (!errno && !*end)
			nt_set_nccl_version(t->r, code);
	}
}

/* @w's word as written, less the comma that ends it, into @buf. */
static void word_copy(const struct tok *w, char *buf, size_t len)
{
	size_t n = strlen(w->s);

	if (n && w->s[n - 1] == ',')
		n--;
	snprintf(buf, len, "%.*s", (int)n, w->s);
}

/* "# path auto, GDR level PHB, NCCL 2.8.4[, ...]": what `gdrlab busbw`
 * predicted its table with (cli/busbw_print.c), for validate to read
 * back; nccl-tests prints no such line. */
static void busbw_line(struct text *t, const struct tok *w, unsigned nw)
{
	struct nccl_tests_busbw *b = &t->r->f->busbw;

	if (nw < 7 || !word_is(&w[0], "path") || !word_is(&w[2], "GDR") ||
	    !word_is(&w[3], "level") || !word_is(&w[5], "NCCL") || b->line)
		return;
	b->line = t->line;
	word_copy(&w[1], b->path, sizeof(b->path));
	word_copy(&w[4], b->gdr_level, sizeof(b->gdr_level));
	word_copy(&w[6], b->nccl, sizeof(b->nccl));
}

/*
 * "# topology NAME (FILE): 4 nodes x 2 of 8 GPUs (0-1) = 8 ranks, ...",
 * or "... x 8 GPUs = ...": the cluster `gdrlab busbw` predicted for
 * (cli/busbw_print.c, node_gpus_describe), which nccl-tests names by its
 * devices instead. Found by its "N node(s) x" words, whatever blanks the
 * file name holds.
 */
static void busbw_topology_line(struct text *t, const struct tok *w, unsigned nw)
{
	struct nccl_tests_busbw *b = &t->r->f->busbw;
	uint64_t n;

	if (!word_is(&w[0], "topology") || b->topo_line)
		return;
	for (unsigned i = 2; i + 1 < nw; i++) {
		if (!(word_is(&w[i], "node") || word_is(&w[i], "nodes")) ||
		    !word_is(&w[i + 1], "x") || !parse_u64(w[i - 1].s, &n) || !n || n > UINT_MAX)
			continue;
		b->topo_line = t->line;
		b->nodes = (unsigned)n;
		/* "K of G GPUs (LIST)": the list, less its parentheses */
		if (i + 6 < nw && word_is(&w[i + 3], "of") && w[i + 6].s[0] == '(') {
			const char *s = w[i + 6].s + 1;
			size_t len = strcspn(s, ")");

			snprintf(b->gpus, sizeof(b->gpus), "%.*s", (int)len, s);
		}
		return;
	}
}

/* "... agg iters: 4 ... graph: 10 ..." in the run's line: the calls a
 * group launch holds (-a) and its CUDA graph launches (-G). */
static void run_graphs(struct text *t, const struct tok *w, unsigned nw)
{
	uint64_t n;

	for (unsigned i = 0; i + 1 < nw; i++) {
		if (word_is(&w[i], "graph:") && parse_u64(w[i + 1].s, &n) && n <= UINT_MAX)
			t->r->f->cuda_graphs = (unsigned)n;
		if (i && word_is(&w[i - 1], "agg") && word_is(&w[i], "iters:") &&
		    parse_u64(w[i + 1].s, &n) && n <= UINT_MAX)
			t->r->f->agg_iters = (unsigned)n;
	}
}

/* "# Blocking Enabled: wait and barrier after each inner iteration (-m)"
 * (-z 1), "wait after each inner iteration (-m), no barrier" (-z 2),
 * "wait and barrier after each outer iteration (-n); time excludes
 * barrier" (-z 3): util.cu's lines after the run's. */
static void blocking_line(struct text *t, const struct tok *w, unsigned nw)
{
	unsigned mode = 1;

	for (unsigned i = 2; i < nw; i++) {
		if (word_is(&w[i], "outer"))
			mode = 3;
		if (i + 1 < nw && word_is(&w[i], "no") && word_is(&w[i + 1], "barrier"))
			mode = 2;
	}
	t->r->f->blocking = mode;
}

/* A comment line: the header, a device, the footer, or nothing to us. */
static int parse_comment(struct text *t)
{
	const struct tok *w = t->tok + 1;
	unsigned nw = t->ntok - 1;
	int (*parse)(struct text *, const struct tok *, unsigned) = NULL;

	if (!word_is(&t->tok[0], "#") || !nw)
		return 0; /* "#" glued to a word: nccl-tests never prints it */
	if (nw >= 2 && ((word_is(&w[0], "size") && word_is(&w[1], "count")) ||
			(word_is(&w[0], "bytes") && word_is(&w[1], "N")))) {
		parse = parse_header;
	} else if (word_is(&w[0], "Rank")) {
		parse = parse_device;
	} else if (nw >= 3 && word_is(&w[0], "Avg") && word_is(&w[1], "bus") &&
		   word_is(&w[2], "bandwidth")) {
		parse = parse_avg;
		t->closed = t->have_header;
	} else if (nw >= 3 && word_is(&w[0], "Out") && word_is(&w[1], "of") &&
		   word_is(&w[2], "bounds")) {
		t->closed = t->have_header;
	} else if (nw >= 4 && word_is(&w[0], "Collective") &&
		   word_is(&w[1], "test") && word_is(&w[2], "starting:")) {
		nt_set_program(t->r, w[3].s);
	} else if (nw >= 2 && word_is(&w[0], "nThread") && !t->run_line) {
		t->run_line = t->line;
		run_graphs(t, w, nw);
	} else if (nw >= 3 && word_is(&w[0], "nccl-tests") && word_is(&w[1], "version")) {
		library_version(t, w + 2, nw - 2);
	} else if (nw >= 2 && word_is(&w[0], "Blocking") && word_is(&w[1], "Enabled:")) {
		blocking_line(t, w, nw);
	} else if (word_is(&w[0], "topology")) {
		busbw_topology_line(t, w, nw);
	} else {
		busbw_line(t, w, nw);
	}
	if (!parse)
		return 0;
	if (t->cut)
		return line_err(t, 0, w[0].s, "line longer than %d bytes",
				LINE_MAX_LEN - 1);
	return parse(t, w, nw);
}

/* "common.cu:393": a file name, a colon, a line number, then a blank. */
static bool file_line(const char *s)
{
	const char *colon = NULL, *p;

	for (p = s; *p && !is_blank(*p); p++)
		if (*p == ':')
			colon = p;
	if (!colon || colon == s || colon + 1 == p)
		return false;
	for (colon++; colon < p; colon++)
		if (*colon < '0' || *colon > '9')
			return false;
	return true;
}

/*
 * Where nccl-tests says, in @s, that it failed, or NULL. Its CUDACHECK,
 * NCCLCHECK and TESTCHECK macros print (src/common.h):
 *
 *   v1.0.0   "Cuda failure %s:%d '%s'", "NCCL failure %s:%d '%s'"
 *   v2.0.0-  "%s: Test CUDA failure %s:%d '%s'",
 *            "%s: Test NCCL failure %s:%d '%s'" ('%s / %s' since 2.13),
 *            " .. %s: Test failure %s:%d" (" .. %s pid %d: ..." since 2.10)
 *   v2.13.4- "%s: Test timeout (%ds) %s:%d" (src/common.cu, -T)
 *
 * and not at a line's start only: the process of rank 0 prints a row's
 * first cells before it times them, so a failure there ends that row's
 * line. A file:line must follow, or NCCL's own "NCCL WARN Cuda failure
 * 'out of memory'" would count: NCCL warns of what it may survive.
 */
static const char *failure_in(const char *s)
{
	static const char *const marks[] = {
		"Test NCCL failure ", "Test CUDA failure ", "Test failure ",
		"NCCL failure ", "Cuda failure ",
	};
	static const char timeout[] = "Test timeout (";
	const char *p, *q;
	size_t k;

	for (k = 0; k < sizeof(marks) / sizeof(marks[0]); k++)
		for (p = strstr(s, marks[k]); p; p = strstr(p + 1, marks[k]))
			if (file_line(p + strlen(marks[k])))
				return p;
	for (p = strstr(s, timeout); p; p = strstr(p + 1, timeout)) {
		for (q = p + sizeof(timeout) - 1; *q >= '0' && *q <= '9'; q++)
			;
		if (q[0] == 's' && q[1] == ')' && q[2] == ' ' && file_line(q + 3))
			return p;
	}
	return NULL;
}

/* A failure in the table refuses the file; one before it is kept for the
 * message should no table follow. */
static int check_failure(struct text *t)
{
	const struct nccl_tests_file *f = t->r->f;
	const char *p = failure_in(t->orig);
	char what[96], rows[64];
	unsigned col;

	if (!p || t->closed)
		return 0;
	col = (unsigned)(p - t->orig) + 1;
	diag_printable(p, what, sizeof(what));
	if (!t->have_header) {
		if (!t->fail_line) {
			t->fail_line = t->line;
			t->fail_col = col;
			memcpy(t->fail, what, sizeof(t->fail));
		}
		return 0;
	}
	if (f->nrows)
		snprintf(rows, sizeof(rows), "after %zu row%s (the last %llu bytes)",
			 f->nrows, f->nrows == 1 ? "" : "s",
			 (unsigned long long)f->rows[f->nrows - 1].size);
	else
		snprintf(rows, sizeof(rows), "before its first row");
	return line_err(t, col, "run",
			"nccl-tests failed %s: '%s': the table is incomplete",
			rows, what);
}

/*
 * v1.0.0 prints its run line and its footer without the '#' (src/common.cu
 * main: "nThread %d nGpus %d ...", " Out of bounds values : %d %s",
 * " Avg bus bandwidth    : %g %s").
 */
static int parse_v1_line(struct text *t)
{
	const struct tok *w = t->tok;
	unsigned nw = t->ntok;

	if (word_is(&w[0], "nThread") && !t->run_line) {
		t->run_line = t->line;
		return 0;
	}
	if (!t->have_header || !t->lay.v1 || nw < 3)
		return 0;
	if (word_is(&w[0], "Avg") && word_is(&w[1], "bus") &&
	    word_is(&w[2], "bandwidth")) {
		t->closed = true;
		return parse_avg(t, w, nw);
	}
	if (word_is(&w[0], "Out") && word_is(&w[1], "of") &&
	    word_is(&w[2], "bounds"))
		t->closed = true;
	return 0;
}

static int parse_line(struct text *t, const char *s, size_t len)
{
	int err;

	tokenize(t, s, len);
	/* any other line ends v1.0.0's device list */
	if (t->nv1 && !(t->ntok >= 2 && word_is(&t->tok[0], "#") && word_is(&t->tok[1], "Rank"))) {
		err = flush_v1_devices(t);
		if (err)
			return err;
	}
	if (!t->ntok)
		return 0;
	if (t->tok[0].s[0] == '#')
		return parse_comment(t);
	err = check_failure(t);
	if (err)
		return err;
	if (t->have_header && !t->closed && all_digits(t->tok[0].s))
		return parse_row(t);
	/* noise: warnings, a job's prints, what follows the table */
	return parse_v1_line(t);
}

/* Whether @s starts as a row does, in the table: a whole number. */
static bool row_start(const struct text *t, const char *s, size_t len)
{
	size_t i = 0;

	while (i < len && is_blank(s[i]))
		i++;
	if (!t->have_header || t->closed || i == len || s[i] < '0' || s[i] > '9')
		return false;
	while (i < len && s[i] >= '0' && s[i] <= '9')
		i++;
	return i == len || is_blank(s[i]);
}

/* @n more bytes of a row cut by NCCL's log, after a blank. Past the
 * buffer the row is as long as it, which tokenize takes for a line too
 * long (its message). */
static void pend(struct text *t, const char *s, size_t n)
{
	size_t room = sizeof(t->pend) - t->npend;

	if (t->npend && room) {
		t->pend[t->npend++] = ' ';
		room--;
	}
	if (n > room)
		n = room;
	memcpy(t->pend + t->npend, s, n);
	t->npend += n;
}

/* The row put back together, read at the line it began on. */
static int parse_pending(struct text *t)
{
	unsigned line = t->line;
	int err;

	t->pending = false;
	t->line = t->pend_line;
	err = parse_line(t, t->pend, t->npend);
	t->line = line;
	return err;
}

/*
 * One line of the file, seen through a launcher's prefix and NCCL's log
 * (nccl_tests_noise.h): a log line inside a row is dropped, and where
 * one was glued to a row's cells the row waits for the rest of its
 * cells, on the next line that is no log line.
 */
static int take_line(struct text *t, const char *s, size_t len)
{
	size_t p = nt_launcher_prefix(s, len), cut;
	bool log;

	if (len >= sizeof(t->phys))
		return t->pending ? parse_pending(t) : parse_line(t, s, len);
	memcpy(t->phys, s, len);
	memset(t->phys, ' ', p); /* read past, the columns kept */
	log = nt_log_line(t->phys + p, len - p, &t->hosts);
	if (log && t->pending)
		return 0;
	cut = log ? len : p + nt_glued_log(t->phys + p, len - p, &t->hosts);
	if (t->pending) {
		pend(t, t->phys + p, cut - p);
		return cut < len ? 0 : parse_pending(t);
	}
	if (cut < len && row_start(t, t->phys, cut)) {
		t->pending = true;
		t->pend_line = t->line;
		t->npend = 0;
		pend(t, t->phys, cut);
		return 0;
	}
	return parse_line(t, t->phys, len);
}

int nt_load_text(struct nt_reader *r, const char *buf, size_t len,
		 struct diag *d)
{
	const char *end = buf + len, *nl;
	struct text *t;
	int err = 0;

	t = calloc(1, sizeof(*t)); /* 8 KiB of line buffers: not the stack */
	if (!t)
		return diag_set(d, -ENOMEM, "%s: out of memory", r->name);
	t->r = r;
	t->d = d;
	if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
		buf += 3; /* a byte-order mark an editor may add */
	while (!err && buf < end) {
		nl = memchr(buf, '\n', (size_t)(end - buf));
		t->last = !nl;
		if (!nl)
			nl = end;
		t->line++;
		err = take_line(t, buf, (size_t)(nl - buf));
		buf = nl + 1;
	}
	if (!err && t->pending) {
		t->last = true; /* the file ends inside the row */
		err = parse_pending(t);
	}
	if (!err && t->nv1)
		err = flush_v1_devices(t);
	/* where the reader ran out of lines: the last one (1 for nothing) */
	if (!err && !t->have_header && t->fail_line)
		err = diag_at(d, -EINVAL, r->name, t->fail_line, t->fail_col, "run",
			      "nccl-tests failed before its results table: '%s'",
			      t->fail);
	else if (!err && !t->have_header)
		err = diag_at(d, -EINVAL, r->name, t->line ? t->line : 1, 0, "table",
			      "no nccl-tests results table in its %u line%s (no '#  size  count  type ...' header line)",
			      t->line, t->line == 1 ? "" : "s");
	else if (!err && !r->f->nrows)
		err = diag_at(d, -EINVAL, r->name, t->lay.line, 0, "table",
			      "no result rows after the header%s",
			      r->skipped_empty ? " (only rows of 0 bytes)" : "");
	/* nccl-tests ends every table it began with "# Out of bounds values"
	 * and "# Avg bus bandwidth": a run whose start is here and whose end
	 * is not was cut short, or its file was, maybe at a row's end */
	else if (!err && t->run_line && !t->closed)
		err = diag_at(d, -EINVAL, r->name, t->line, 0, "table",
			      "ends after %zu rows (the last %llu bytes) without the "
			      "'# Avg bus bandwidth' line that closes a run begun on line %u: "
			      "the run was cut short or the file truncated",
			      r->f->nrows, (unsigned long long)r->f->rows[r->f->nrows - 1].size,
			      t->run_line);
	drop_v1_devices(t); /* an error ended the list's reading */
	free(t->v1);
	free(t);
	return err;
}
