/* SPDX-License-Identifier: MIT */
/*
 * yaml_override: replace values of a loaded document by a dotted path
 * before a schema reads it: "staging.chunk" is the chunk key of the
 * staging mapping, "nics.rate" the rate of every entry of the nics list,
 * "nics.link.bandwidth" every NIC's link's. Sweep plans vary a topology
 * this way (docs/sweep-format.md). Only existing scalars are replaced: a
 * path the document lacks is an error, never a value quietly added.
 */
#include "yaml_doc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define PATH_DEPTH_MAX 8

static yaml_node_t *map_get(yaml_document_t *doc, yaml_node_t *m, const char *key,
			    size_t klen)
{
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(doc, p->key);

		if (k && k->type == YAML_SCALAR_NODE && k->data.scalar.length == klen &&
		    !memcmp(k->data.scalar.value, key, klen))
			return yaml_document_get_node(doc, p->value);
	}
	return NULL;
}

/* Set the scalars under @n along @path (@depth parts left) to @value,
 * each marked as override @set's (YAML_DOC_SET_MARK); *@hits counts them. */
static int apply(struct yaml_doc *y, yaml_node_t *n, const char *const *part,
		 const size_t *len, unsigned depth, const char *value, unsigned *hits,
		 unsigned set)
{
	yaml_node_t *v;
	char *copy;

	if (!n)
		return 0;
	if (n->type == YAML_SEQUENCE_NODE) {
		for (yaml_node_item_t *it = n->data.sequence.items.start;
		     it < n->data.sequence.items.top; it++) {
			int err = apply(y, yaml_document_get_node(&y->doc, *it), part, len, depth,
					value, hits, set);

			if (err)
				return err;
		}
		return 0;
	}
	if (!depth) {
		if (n->type != YAML_SCALAR_NODE)
			return -EISDIR; /* a list or mapping, not a value */
		copy = strdup(value);
		if (!copy)
			return -ENOMEM;
		/* libyaml frees a scalar's value with free() (yaml_free). */
		free(n->data.scalar.value);
		n->data.scalar.value = (yaml_char_t *)copy;
		n->data.scalar.length = strlen(copy);
		n->start_mark.index = YAML_DOC_SET_MARK - set;
		/* a quoted original stays text, an unquoted one a plain scalar */
		(*hits)++;
		return 0;
	}
	if (n->type != YAML_MAPPING_NODE)
		return 0;
	v = map_get(&y->doc, n, part[0], len[0]);
	return apply(y, v, part + 1, len + 1, depth - 1, value, hits, set);
}

int yaml_doc_override(struct yaml_doc *y, const char *path, const char *value,
		      char *why, size_t whylen)
{
	const char *part[PATH_DEPTH_MAX];
	size_t len[PATH_DEPTH_MAX];
	unsigned depth = 0, hits = 0;
	const char *s = path;
	int err;

	while (*s && depth < PATH_DEPTH_MAX) {
		const char *dot = strchr(s, '.');
		size_t n = dot ? (size_t)(dot - s) : strlen(s);

		if (!n)
			break;
		part[depth] = s;
		len[depth++] = n;
		s += n + (dot ? 1 : 0);
		if (!dot)
			break;
	}
	if (!depth || *s || path[strlen(path) - 1] == '.') {
		snprintf(why, whylen, "'%s' is not a path of keys joined by dots (at most %d)", path,
			 PATH_DEPTH_MAX);
		return -EINVAL;
	}
	err = apply(y, yaml_doc_root(y), part, len, depth, value, &hits,
		    y->nsets < YAML_DOC_SETS_MAX ? y->nsets : YAML_DOC_SETS_MAX);
	if (!err && hits && y->nsets < YAML_DOC_SETS_MAX) {
		y->set_path[y->nsets] = path;
		y->set_value[y->nsets++] = value;
	}
	if (err == -EISDIR)
		snprintf(why, whylen, "'%s' is a list or a mapping, not a value", path);
	else if (err == -ENOMEM)
		snprintf(why, whylen, "out of memory");
	else if (!hits)
		snprintf(why, whylen, "the topology has no '%s' to set", path);
	return err ? err : hits ? 0 : -ENOENT;
}
