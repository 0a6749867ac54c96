/* SPDX-License-Identifier: MIT */
/*
 * yaml_doc: load a YAML buffer with libyaml's document API and read its
 * nodes through typed accessors that name file, line, column and key in
 * every complaint.
 *
 * The document API keeps each node's position, which is why it is used
 * rather than the event API: a schema can point at the offending key or
 * value long after the parser has moved on. Aliases are harmless because
 * nothing here follows the graph; a schema walks it to a fixed depth.
 */
#include "yaml_doc.h"
#include "units.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *yaml_doc_show(char *buf, size_t cap, const char *s)
{
	size_t i, n = 0;

	for (i = 0; s[i] && n + 4 < cap && i < YAML_DOC_SHOW_MAX; i++) {
		unsigned char ch = (unsigned char)s[i];

		buf[n++] = (ch < 0x20 || ch == 0x7f) ? '?' : (char)ch;
	}
	if (s[i]) {
		/* Do not leave half a UTF-8 sequence before the ellipsis. */
		while (n && ((unsigned char)buf[n - 1] & 0xc0) == 0x80)
			n--;
		if (n && ((unsigned char)buf[n - 1] & 0xc0) == 0xc0)
			n--;
		buf[n++] = '.';
		buf[n++] = '.';
		buf[n++] = '.';
	}
	buf[n] = '\0';
	return buf;
}

/*
 * Most complaints about a value quote it back (@got): doing it here keeps
 * the quoting (bounded, control characters replaced) the same everywhere.
 */
static int vfail(const struct yaml_doc *y, const yaml_node_t *n,
		 const char *key, bool got, const char *fmt, va_list ap)
	__attribute__((format(printf, 5, 0)));

static int vfail(const struct yaml_doc *y, const yaml_node_t *n,
		 const char *key, bool got, const char *fmt, va_list ap)
{
	char what[DIAG_MSG_MAX];
	char k[YAML_DOC_SHOW_BUF], v[YAML_DOC_SHOW_BUF];
	unsigned line = (unsigned)n->start_mark.line + 1;
	unsigned col = (unsigned)n->start_mark.column + 1;
	size_t set = YAML_DOC_SET_MARK - n->start_mark.index;

	vsnprintf(what, sizeof(what), fmt, ap);
	yaml_doc_show(k, sizeof(k), key);
	/* a value --set (or a plan's axis) put there: not the file's line */
	if (n->type == YAML_SCALAR_NODE && set < y->nsets)
		return diag_set(y->d, -EINVAL, "%s=%s, set on %s: %s: %s", y->set_path[set],
				yaml_doc_show(v, sizeof(v), y->set_value[set]), y->file, k, what);
	/* a mapping it gave a key the file leaves out (an entry of a list):
	 * the file's line, and the --set that changed it */
	if (set < y->nsets)
		return diag_set(y->d, -EINVAL, "%s=%s, set on %s:%u:%u: %s: %s", y->set_path[set],
				yaml_doc_show(v, sizeof(v), y->set_value[set]), y->file, line, col,
				k, what);
	if (got)
		return diag_at(y->d, -EINVAL, y->file, line, col, k,
			       "%s, got '%s'", what,
			       yaml_doc_show(v, sizeof(v),
					     (const char *)n->data.scalar.value));
	return diag_at(y->d, -EINVAL, y->file, line, col, k, "%s", what);
}

int yaml_doc_fail(const struct yaml_doc *y, const yaml_node_t *n,
		  const char *key, const char *fmt, ...)
{
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = vfail(y, n, key, false, fmt, ap);
	va_end(ap);
	return err;
}

int yaml_doc_fail_got(const struct yaml_doc *y, const yaml_node_t *n,
		      const char *key, const char *fmt, ...)
{
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = vfail(y, n, key, true, fmt, ap);
	va_end(ap);
	return err;
}

/* libyaml's getter takes a non-const document but only reads it. */
static yaml_node_t *node(const struct yaml_doc *y, yaml_node_item_t i)
{
	return yaml_document_get_node((yaml_document_t *)&y->doc, i);
}

yaml_node_t *yaml_doc_root(struct yaml_doc *y)
{
	return yaml_document_get_root_node(&y->doc);
}

/* "a list", "a mapping" or the scalar quoted, for "expected X, got Y". */
static const char *describe(const yaml_node_t *n, char *buf, size_t cap)
{
	char v[YAML_DOC_SHOW_BUF];

	if (n->type == YAML_SEQUENCE_NODE)
		return "a list";
	if (n->type == YAML_MAPPING_NODE)
		return "a mapping";
	if (n->type != YAML_SCALAR_NODE || n->data.scalar.length == 0)
		return "nothing";
	snprintf(buf, cap, "'%s'",
		 yaml_doc_show(v, sizeof(v),
			       (const char *)n->data.scalar.value));
	return buf;
}

static int expect_type(const struct yaml_doc *y, const yaml_node_t *n,
		       const char *key, yaml_node_type_t type)
{
	static const char *const name[] = {
		[YAML_SCALAR_NODE] = "a value",
		[YAML_SEQUENCE_NODE] = "a list",
		[YAML_MAPPING_NODE] = "a mapping",
	};
	char buf[YAML_DOC_SHOW_BUF + 8];

	if (n->type == type)
		return 0;
	return yaml_doc_fail(y, n, key, "expected %s, got %s", name[type],
			     describe(n, buf, sizeof(buf)));
}

/*
 * libyaml allows NUL inside quoted scalars ("\0"), which would silently
 * cut the string short for every C parser after us.
 */
int yaml_doc_scalar(const struct yaml_doc *y, const yaml_node_t *n,
		    const char *key, const char **s)
{
	int err = expect_type(y, n, key, YAML_SCALAR_NODE);

	if (err)
		return err;
	*s = (const char *)n->data.scalar.value;
	if (strlen(*s) != n->data.scalar.length)
		return yaml_doc_fail(y, n, key, "contains a NUL character");
	return 0;
}

int yaml_doc_read_map(const struct yaml_doc *y, yaml_node_t *n,
		      const char *what, const struct yaml_doc_key *spec,
		      size_t nspec, struct yaml_doc_found *f)
{
	yaml_node_pair_t *p;
	const char *k;
	size_t i;
	int err;

	memset(f, 0, nspec * sizeof(*f));
	err = expect_type(y, n, what, YAML_MAPPING_NODE);
	if (err)
		return err;
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *kn = node(y, p->key), *vn = node(y, p->value);

		if (!kn || !vn)
			return yaml_doc_fail(y, n, what, "malformed mapping");
		/* A list or mapping as a key ("? [a]: b") fails here. */
		err = yaml_doc_scalar(y, kn, what, &k);
		if (err)
			return err;
		for (i = 0; i < nspec; i++)
			if (strcmp(k, spec[i].key) == 0)
				break;
		if (i == nspec)
			return yaml_doc_fail(y, kn, k, "unknown key");
		if (f[i].key)
			return yaml_doc_fail(y, kn, k,
					     "duplicate key (first on line %u)",
					     (unsigned)f[i].key->start_mark.line + 1);
		f[i].key = kn;
		f[i].val = vn;
	}
	for (i = 0; i < nspec; i++)
		if (spec[i].required && !f[i].val)
			return yaml_doc_fail(y, n, spec[i].key,
					     "missing required key");
	return 0;
}

int yaml_doc_refuse_keys(const struct yaml_doc *y,
			 const struct yaml_doc_key *spec,
			 const struct yaml_doc_found *f, int from, int to,
			 const char *why)
{
	int i;

	for (i = from; i <= to; i++)
		if (f[i].key)
			return yaml_doc_fail(y, f[i].key, spec[i].key, "%s",
					     why);
	return 0;
}

int yaml_doc_read_list(const struct yaml_doc *y, yaml_node_t *n,
		       const char *key, unsigned min, unsigned max,
		       int (*item)(void *arg, yaml_node_t *n, unsigned i),
		       void *arg)
{
	yaml_node_item_t *it;
	unsigned i = 0;
	int err;

	err = expect_type(y, n, key, YAML_SEQUENCE_NODE);
	if (err)
		return err;
	for (it = n->data.sequence.items.start;
	     it < n->data.sequence.items.top; it++, i++) {
		yaml_node_t *e = node(y, *it);

		if (!e)
			return yaml_doc_fail(y, n, key, "malformed list");
		if (i >= max)
			return yaml_doc_fail(y, e, key,
					     "too many entries (at most %u)",
					     max);
		err = item(arg, e, i);
		if (err)
			return err;
	}
	if (i < min)
		return yaml_doc_fail(y, n, key, "needs at least %u %s", min,
				     min == 1 ? "entry" : "entries");
	return 0;
}

int yaml_doc_read_unit(const struct yaml_doc *y, const yaml_node_t *n,
		       const char *key, yaml_doc_unit_parser parse,
		       double *out)
{
	const char *s, *why = "is not valid";
	int err;

	err = yaml_doc_scalar(y, n, key, &s);
	if (!err && parse(s, out, &why))
		err = yaml_doc_fail_got(y, n, key, "%s", why);
	return err;
}

int yaml_doc_read_size(const struct yaml_doc *y, const yaml_node_t *n,
		       const char *key, uint64_t *out)
{
	const char *s, *why = "is not valid";
	int err;

	err = yaml_doc_scalar(y, n, key, &s);
	if (!err && units_parse_size(s, out, &why))
		err = yaml_doc_fail_got(y, n, key, "%s", why);
	return err;
}

/* Digits only, so that "0x10", "1e3" or "inf" cannot slip in. */
int yaml_doc_read_decimal(const struct yaml_doc *y, const yaml_node_t *n,
			  const char *key, const char *expected, double *out)
{
	const char *s, *p;
	size_t ndig = 0;
	int err;

	err = yaml_doc_scalar(y, n, key, &s);
	if (err)
		return err;
	p = s;
	if (*p == '-')
		p++;
	for (; *p >= '0' && *p <= '9'; p++)
		ndig++;
	if (*p == '.' && ndig)
		for (p++; *p >= '0' && *p <= '9'; p++)
			;
	if (!ndig || *p || ndig > 9)
		return yaml_doc_fail_got(y, n, key, "expected %s", expected);
	*out = strtod(s, NULL);
	return 0;
}

int yaml_doc_read_uint(const struct yaml_doc *y, const yaml_node_t *n,
		       const char *key, unsigned min, unsigned max,
		       unsigned *out)
{
	double v = 0;
	int err;

	err = yaml_doc_read_decimal(y, n, key, "a whole number", &v);
	if (err)
		return err;
	if (v != floor(v))
		return yaml_doc_fail_got(y, n, key, "expected a whole number");
	if (v < min || v > max)
		return yaml_doc_fail_got(y, n, key,
					 "must be between %u and %u", min,
					 max);
	*out = (unsigned)v;
	return 0;
}

int yaml_doc_read_choice(const struct yaml_doc *y, const yaml_node_t *n,
			 const char *key, const char *const *names,
			 unsigned count, unsigned *out)
{
	char list[256];
	size_t len = 0;
	const char *s;
	unsigned i;
	int err;

	err = yaml_doc_scalar(y, n, key, &s);
	if (err)
		return err;
	for (i = 0; i < count; i++)
		if (strcmp(s, names[i]) == 0) {
			*out = i;
			return 0;
		}
	list[0] = '\0';
	for (i = 0; i < count && len < sizeof(list); i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s'%s'",
					i == 0 ? "" : i + 1 == count ? " or " : ", ",
					names[i]);
	return yaml_doc_fail_got(y, n, key, "expected %s", list);
}

int yaml_doc_read_bool(const struct yaml_doc *y, const yaml_node_t *n,
		       const char *key, bool *out)
{
	static const char *const names[] = { "false", "true" };
	unsigned v = 0;
	int err;

	err = yaml_doc_read_choice(y, n, key, names, 2, &v);
	if (!err)
		*out = v;
	return err;
}

/* The strict set is safe in SimGrid host names, CSV cells and file names. */
int yaml_doc_read_name(const struct yaml_doc *y, const yaml_node_t *n,
		       const char *key, char *dst, size_t cap, bool strict)
{
	const char *s;
	size_t i, len;
	int err;

	err = yaml_doc_scalar(y, n, key, &s);
	if (err)
		return err;
	len = strlen(s);
	if (!len)
		return yaml_doc_fail(y, n, key, "must not be empty");
	if (len >= cap)
		return yaml_doc_fail_got(y, n, key,
					 "name too long (at most %zu characters)",
					 cap - 1);
	for (i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)s[i];
		bool ok = strict ? (ch >= 'a' && ch <= 'z') ||
					   (ch >= 'A' && ch <= 'Z') ||
					   (ch >= '0' && ch <= '9') ||
					   ch == '_' || ch == '-' || ch == '.' :
				   ch >= 0x20 && ch < 0x7f;

		if (!ok)
			return yaml_doc_fail_got(y, n, key, "%s", strict ?
						 "use letters, digits, '_', '-' or '.'" :
						 "use printable ASCII");
	}
	memcpy(dst, s, len + 1);
	return 0;
}

/* Line and column (1-based) of byte @off of @buf, for reader errors. */
static void locate(const char *buf, size_t len, size_t off, unsigned *line,
		   unsigned *col)
{
	size_t i, bol = 0;

	*line = 1;
	if (off > len)
		off = len;
	for (i = 0; i < off; i++) {
		if (buf[i] == '\n') {
			(*line)++;
			bol = i + 1;
		}
	}
	*col = (unsigned)(off - bol) + 1;
}

/*
 * The reader (bad UTF-8) only knows a byte offset; the scanner and parser
 * know a mark, and the parser also the construct it was inside.
 */
static int syntax_error(const yaml_parser_t *p, const char *buf, size_t len,
			const char *name, struct diag *d)
{
	unsigned line, col;

	if (p->error == YAML_MEMORY_ERROR)
		return diag_set(d, -ENOMEM, "%s: out of memory", name);
	if (p->error == YAML_READER_ERROR) {
		locate(buf, len, p->problem_offset, &line, &col);
		return diag_at(d, -EINVAL, name, line, col, "syntax error",
			       "%s", p->problem ? p->problem : "unreadable");
	}
	if (p->context)
		return diag_at(d, -EINVAL, name,
			       (unsigned)p->problem_mark.line + 1,
			       (unsigned)p->problem_mark.column + 1,
			       "syntax error", "%s (%s on line %u)",
			       p->problem ? p->problem : "invalid YAML",
			       p->context, (unsigned)p->context_mark.line + 1);
	return diag_at(d, -EINVAL, name, (unsigned)p->problem_mark.line + 1,
		       (unsigned)p->problem_mark.column + 1, "syntax error",
		       "%s", p->problem ? p->problem : "invalid YAML");
}

/* An empty document: a "---" with nothing after it but comments. */
static bool empty_document(yaml_document_t *doc)
{
	yaml_node_t *root = yaml_document_get_root_node(doc);

	return root->type == YAML_SCALAR_NODE && !root->data.scalar.length &&
	       root->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

/*
 * What follows the first document: nothing, or empty documents (a
 * trailing "---"). libyaml loads one document a call, so a second one
 * ("---" and another topology or plan after it) was never read, and its
 * values were ignored in silence, its syntax errors too. Each call reads
 * on through the input, so the loop ends with it.
 */
static int no_second_document(yaml_parser_t *p, const char *buf, size_t len,
			      const char *name, struct diag *d)
{
	for (;;) {
		yaml_document_t next;
		bool end, empty;

		if (!yaml_parser_load(p, &next))
			return syntax_error(p, buf, len, name, d);
		/* at the end of the stream: a document with no nodes */
		end = !yaml_document_get_root_node(&next);
		empty = end || empty_document(&next);
		if (!empty) {
			int err = diag_at(d, -EINVAL, name, (unsigned)next.start_mark.line + 1,
					  (unsigned)next.start_mark.column + 1, "syntax error",
					  "a second YAML document: the file must hold one, and the "
					  "rest would be ignored");

			yaml_document_delete(&next);
			return err;
		}
		yaml_document_delete(&next);
		if (end)
			return 0;
	}
}

int yaml_doc_load(struct yaml_doc *y, const char *buf, size_t len,
		  const char *name, struct diag *d)
{
	yaml_parser_t parser;
	int err = 0;

	if (!buf)
		len = 0;
	if (!yaml_parser_initialize(&parser))
		return diag_set(d, -ENOMEM, "%s: out of memory", name);
	yaml_parser_set_input_string(&parser,
				     (const unsigned char *)(buf ? buf : ""),
				     len);
	/* On failure yaml_parser_load() has already freed the document. */
	if (!yaml_parser_load(&parser, &y->doc))
		err = syntax_error(&parser, buf, len, name, d);
	else if ((err = no_second_document(&parser, buf, len, name, d)))
		yaml_document_delete(&y->doc); /* nothing left to destroy */
	/* The document owns its nodes: the parser is not needed past here. */
	yaml_parser_delete(&parser);
	y->file = name;
	y->d = d;
	y->nsets = 0;
	return err;
}

void yaml_doc_destroy(struct yaml_doc *y)
{
	yaml_document_delete(&y->doc);
}
