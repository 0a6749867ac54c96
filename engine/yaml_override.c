/* SPDX-License-Identifier: MIT */
/*
 * yaml_override: replace values of a loaded document by a dotted path
 * before a schema reads it: "staging.chunk" is the chunk key of the
 * staging mapping, "nics.rate" the rate of every entry of the nics list,
 * "nics.link.bandwidth" every NIC's link's. Sweep plans vary a topology
 * this way (docs/sweep-format.md). Only existing scalars are replaced: a
 * path the document lacks is an error, never a value quietly added. The
 * one exception is within a list: where some entries give the key and
 * others leave it out (taking its default: gdr: false on one GPU, as
 * probe writes it), the value is every entry's, added where it is
 * missing, since the path means every entry and the key is known good.
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

/* One walk of a path: what it sets, how many it set, and the mappings
 * (node ids) that would hold its last key but leave it out. */
struct walk {
	struct yaml_doc *y;
	const char *value;
	unsigned set; /* the override's place (YAML_DOC_SET_MARK) */
	unsigned hits;
	int *missing;
	unsigned nmissing, cap;
};

/* Note mapping @n as lacking the path's last key, once (an alias can
 * bring one mapping twice). */
static int note_missing(struct walk *w, yaml_node_t *n)
{
	int id = (int)(n - w->y->doc.nodes.start) + 1;
	int *grown;

	for (unsigned i = 0; i < w->nmissing; i++)
		if (w->missing[i] == id)
			return 0;
	if (w->nmissing == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 8;
		grown = realloc(w->missing, w->cap * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		w->missing = grown;
	}
	w->missing[w->nmissing++] = id;
	return 0;
}

/* Set the scalars under @n along @path (@depth parts left) to the walk's
 * value, each marked as its override's (YAML_DOC_SET_MARK); w->hits
 * counts them, w->missing gathers the mappings that leave the last key
 * out. */
static int apply(struct walk *w, yaml_node_t *n, const char *const *part, const size_t *len,
		 unsigned depth)
{
	yaml_node_t *v;
	char *copy;

	if (!n)
		return 0;
	if (n->type == YAML_SEQUENCE_NODE) {
		for (yaml_node_item_t *it = n->data.sequence.items.start;
		     it < n->data.sequence.items.top; it++) {
			int err = apply(w, yaml_document_get_node(&w->y->doc, *it), part, len, depth);

			if (err)
				return err;
		}
		return 0;
	}
	if (!depth) {
		if (n->type != YAML_SCALAR_NODE)
			return -EISDIR; /* a list or mapping, not a value */
		copy = strdup(w->value);
		if (!copy)
			return -ENOMEM;
		/* libyaml frees a scalar's value with free() (yaml_free). */
		free(n->data.scalar.value);
		n->data.scalar.value = (yaml_char_t *)copy;
		n->data.scalar.length = strlen(copy);
		n->start_mark.index = YAML_DOC_SET_MARK - w->set;
		/* a quoted original stays text, an unquoted one a plain scalar */
		w->hits++;
		return 0;
	}
	if (n->type != YAML_MAPPING_NODE)
		return 0;
	v = map_get(&w->y->doc, n, part[0], len[0]);
	if (!v && depth == 1)
		return note_missing(w, n);
	return apply(w, v, part + 1, len + 1, depth - 1);
}

/* Give mapping @id the key @key (@klen bytes) with the walk's value,
 * both marked as the override's, so that a complaint about either names
 * the --set, not a line of the file. */
static int add_pair(struct walk *w, int id, const char *key, size_t klen)
{
	yaml_document_t *doc = &w->y->doc;
	int k = yaml_document_add_scalar(doc, NULL, (yaml_char_t *)key, (int)klen,
					 YAML_PLAIN_SCALAR_STYLE);
	int v = k ? yaml_document_add_scalar(doc, NULL, (yaml_char_t *)w->value, -1,
					     YAML_PLAIN_SCALAR_STYLE) : 0;

	if (!k || !v)
		return -ENOMEM;
	/* (adding nodes may move them all: look them up by id) */
	yaml_document_get_node(doc, k)->start_mark.index = YAML_DOC_SET_MARK - w->set;
	yaml_document_get_node(doc, v)->start_mark.index = YAML_DOC_SET_MARK - w->set;
	if (!yaml_document_append_mapping_pair(doc, id, k, v))
		return -ENOMEM;
	/* the mapping keeps its line; a complaint about it (a key the new
	 * one needs) names the --set too */
	yaml_document_get_node(doc, id)->start_mark.index = YAML_DOC_SET_MARK - w->set;
	w->hits++;
	return 0;
}

int yaml_doc_override(struct yaml_doc *y, const char *path, const char *value,
		      char *why, size_t whylen)
{
	const char *part[PATH_DEPTH_MAX];
	size_t len[PATH_DEPTH_MAX];
	unsigned depth = 0, hits = 0;
	struct walk w = { 0 };
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
	w.y = y;
	w.value = value;
	w.set = y->nsets < YAML_DOC_SETS_MAX ? y->nsets : YAML_DOC_SETS_MAX;
	err = apply(&w, yaml_doc_root(y), part, len, depth);
	/* entries of a list that leave the key out take the value too, where
	 * some entry gives it (it was set on those alone: --set gpus.gdr=false
	 * left every GPU without gdr: in the file with GPUDirect); where none
	 * does, the path is the document's error, as ever */
	for (unsigned i = 0; !err && w.hits && i < w.nmissing; i++)
		err = add_pair(&w, w.missing[i], part[depth - 1], len[depth - 1]);
	free(w.missing);
	hits = w.hits;
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
