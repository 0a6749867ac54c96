/* SPDX-License-Identifier: MIT */
/*
 * yaml_doc: walk a libyaml document with every complaint placed.
 *
 * A reader loads its buffer with yaml_doc_load(), then walks its schema
 * from yaml_doc_root() with the typed accessors below. Each accessor checks
 * the node's type before touching its data and, on a bad value, fills the
 * diag with "file:line:col: key: problem" at that node and returns -EINVAL,
 * so a schema is a sequence of `if (!err) err = yaml_doc_read_...()` lines.
 *
 * The input is untrusted: nothing here follows aliases or recurses, and
 * every loop is bounded by a list's length or a caller's maximum.
 */
#ifndef GDRLAB_YAML_DOC_H
#define GDRLAB_YAML_DOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

#include "diag.h"

/* How much of a bad value to echo back: enough to recognise it. */
#define YAML_DOC_SHOW_MAX 40
/* A buffer for yaml_doc_show(): the value, "..." and the NUL. */
#define YAML_DOC_SHOW_BUF (YAML_DOC_SHOW_MAX + 8)

/* Overrides a document keeps for its messages (yaml_doc_override). A
 * value one of them set carries YAML_DOC_SET_MARK - k as its start mark's
 * byte index, k its place here (no file has that many bytes). */
#define YAML_DOC_SETS_MAX 16
#define YAML_DOC_SET_MARK SIZE_MAX

struct yaml_doc {
	const char *file; /* name for messages; borrowed from the caller */
	struct diag *d;   /* where complaints go; borrowed, may be NULL */
	yaml_document_t doc;
	/* yaml_doc_override's paths and values, borrowed: a complaint about
	 * a value one of them set names it, not the file's line */
	const char *set_path[YAML_DOC_SETS_MAX], *set_value[YAML_DOC_SETS_MAX];
	unsigned nsets;
};

/* One key a mapping may hold. */
struct yaml_doc_key {
	const char *key;
	bool required;
};

/* What yaml_doc_read_map() found for one yaml_doc_key: key and value. */
struct yaml_doc_found {
	yaml_node_t *key;
	yaml_node_t *val; /* NULL when the key is absent */
};

/* A units.h parser of a double: bandwidth, time or fraction. */
typedef int (*yaml_doc_unit_parser)(const char *s, double *v,
				    const char **why);

/*
 * Parse @buf (@len bytes, NULL for none) as one YAML document named @name
 * in messages. A syntax error is reported as "name:line:col: syntax error:
 * problem". On success the caller owns the document until
 * yaml_doc_destroy(); on failure there is nothing to destroy.
 */
int yaml_doc_load(struct yaml_doc *y, const char *buf, size_t len,
		  const char *name, struct diag *d);
void yaml_doc_destroy(struct yaml_doc *y);

/* The top node, or NULL for an empty document. */
yaml_node_t *yaml_doc_root(struct yaml_doc *y);

/*
 * Set every value the dotted @path names to @value (yaml_override.c):
 * mapping keys, and through a list every entry ("nics.rate": each NIC's).
 * 0; -ENOENT when the document has no such value, -EINVAL for a bad path,
 * -EISDIR when the path names a list or mapping: the reason in @why.
 */
int yaml_doc_override(struct yaml_doc *y, const char *path, const char *value,
		      char *why, size_t whylen);

/* Copy @s for a one-line message: bounded, control characters replaced. */
const char *yaml_doc_show(char *buf, size_t cap, const char *s);

/* Report a problem at node @n, under @key; returns -EINVAL. */
int yaml_doc_fail(const struct yaml_doc *y, const yaml_node_t *n,
		  const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Same, ending in ", got '<value>'" for @n, which must be a scalar. */
int yaml_doc_fail_got(const struct yaml_doc *y, const yaml_node_t *n,
		      const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* The text of scalar @n; a list, a mapping or an embedded NUL is refused. */
int yaml_doc_scalar(const struct yaml_doc *y, const yaml_node_t *n,
		    const char *key, const char **s);

/*
 * Match the keys of mapping @n, called @what in messages, against
 * @spec[0..@nspec): unknown and repeated keys are errors pointing at the
 * key, a missing required key points at the mapping. @f[i] receives what
 * was found for @spec[i].
 */
int yaml_doc_read_map(const struct yaml_doc *y, yaml_node_t *n,
		      const char *what, const struct yaml_doc_key *spec,
		      size_t nspec, struct yaml_doc_found *f);

/* Refuse whichever of keys @from..@to (of @spec and @f) is present. */
int yaml_doc_refuse_keys(const struct yaml_doc *y,
			 const struct yaml_doc_key *spec,
			 const struct yaml_doc_found *f, int from, int to,
			 const char *why);

/*
 * The entries of list @n, which must hold @min..@max of them; each entry's
 * node is handed to @item with @arg and its index.
 */
int yaml_doc_read_list(const struct yaml_doc *y, yaml_node_t *n,
		       const char *key, unsigned min, unsigned max,
		       int (*item)(void *arg, yaml_node_t *n, unsigned i),
		       void *arg);

/* A value with a unit, through @parse; its reason becomes the message. */
int yaml_doc_read_unit(const struct yaml_doc *y, const yaml_node_t *n,
		       const char *key, yaml_doc_unit_parser parse,
		       double *out);
/* A size in bytes ("1 MiB"), through units_parse_size(). */
int yaml_doc_read_size(const struct yaml_doc *y, const yaml_node_t *n,
		       const char *key, uint64_t *out);

/*
 * A plain decimal ("2", "1.5"): digits only, at most 9 before the point.
 * @expected names what was wanted ("a whole number") in the message.
 */
int yaml_doc_read_decimal(const struct yaml_doc *y, const yaml_node_t *n,
			  const char *key, const char *expected, double *out);
/* A whole number in [@min, @max]. */
int yaml_doc_read_uint(const struct yaml_doc *y, const yaml_node_t *n,
		       const char *key, unsigned min, unsigned max,
		       unsigned *out);

/*
 * One of @names[0..@count) (exact, case-sensitive), its index in @out;
 * anything else is "expected one of 'a', 'b' or 'c'".
 */
int yaml_doc_read_choice(const struct yaml_doc *y, const yaml_node_t *n,
			 const char *key, const char *const *names,
			 unsigned count, unsigned *out);
/* true or false, as YAML 1.2's core schema spells them. */
int yaml_doc_read_bool(const struct yaml_doc *y, const yaml_node_t *n,
		       const char *key, bool *out);

/*
 * A name copied into @dst: non-empty, shorter than @cap, and made of
 * letters, digits, '_', '-' and '.' when @strict, printable ASCII if not.
 */
int yaml_doc_read_name(const struct yaml_doc *y, const yaml_node_t *n,
		       const char *key, char *dst, size_t cap, bool strict);

#endif
