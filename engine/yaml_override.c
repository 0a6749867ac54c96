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

/* One walk of a path: what it sets, how many it set, the mappings (node
 * ids) that would hold its last key but leave it out, and how many places
 * of the document hold each node (aliases: more than one). */
struct walk {
	struct yaml_doc *y;
	const char *value;
	unsigned set; /* the override's place (YAML_DOC_SET_MARK) */
	unsigned hits;
	int *missing;
	unsigned nmissing, cap;
	unsigned *refs; /* by node id */
	size_t nrefs;
	unsigned long visits; /* nodes walked, at most WALK_MAX */
};

/* Nodes one walk may go through: a file of lists aliased in lists (a
 * billion laughs) would have it walk, and copy, without end. A topology
 * has hundreds. */
#define WALK_MAX (1UL << 20)

/* Lists one walk may go down, one inside another: a topology's are one
 * deep (its gpus, its nics), a sweep plan's axes two. */
#define LIST_NEST_MAX 16

/* Node @id, looked up afresh: adding a node may move them all. */
static yaml_node_t *node_of(struct walk *w, int id)
{
	return yaml_document_get_node(&w->y->doc, id);
}

/* Room in w->refs for node @id. */
static int track(struct walk *w, int id)
{
	size_t want = (size_t)id + 1, n = w->nrefs;
	unsigned *grown;

	if (want <= n)
		return 0;
	n = n ? n : 64;
	while (n < want)
		n *= 2;
	grown = realloc(w->refs, n * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	memset(grown + w->nrefs, 0, (n - w->nrefs) * sizeof(*grown));
	w->refs = grown;
	w->nrefs = n;
	return 0;
}

/* How many mapping keys and values and list items hold each node. */
static int count_refs(struct walk *w)
{
	yaml_document_t *doc = &w->y->doc;
	int err = track(w, (int)(doc->nodes.top - doc->nodes.start));

	for (yaml_node_t *n = doc->nodes.start; !err && n < doc->nodes.top; n++) {
		if (n->type == YAML_MAPPING_NODE)
			for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
			     p < n->data.mapping.pairs.top; p++) {
				w->refs[p->key]++;
				w->refs[p->value]++;
			}
		else if (n->type == YAML_SEQUENCE_NODE)
			for (yaml_node_item_t *it = n->data.sequence.items.start;
			     it < n->data.sequence.items.top; it++)
				w->refs[*it]++;
	}
	return err;
}

/* One more place holds node @id. */
static int hold(struct walk *w, int id)
{
	int err = track(w, id);

	if (!err)
		w->refs[id]++;
	return err;
}

/* A copy of node @id one level deep (its children held by both), at the
 * original's place in the file for messages; 0 when out of memory. */
static int copy_node(struct walk *w, int id)
{
	yaml_document_t *doc = &w->y->doc;
	yaml_node_t orig = *node_of(w, id); /* its lists stay where they are */
	int c = 0, err = 0;

	if (orig.type == YAML_SCALAR_NODE)
		c = yaml_document_add_scalar(doc, orig.tag, orig.data.scalar.value,
					     (int)orig.data.scalar.length, orig.data.scalar.style);
	else if (orig.type == YAML_SEQUENCE_NODE) {
		c = yaml_document_add_sequence(doc, orig.tag, orig.data.sequence.style);
		for (yaml_node_item_t *it = orig.data.sequence.items.start;
		     c && !err && it < orig.data.sequence.items.top; it++)
			err = !yaml_document_append_sequence_item(doc, c, *it) ? -ENOMEM :
										 hold(w, *it);
	} else if (orig.type == YAML_MAPPING_NODE) {
		c = yaml_document_add_mapping(doc, orig.tag, orig.data.mapping.style);
		for (yaml_node_pair_t *p = orig.data.mapping.pairs.start;
		     c && !err && p < orig.data.mapping.pairs.top; p++) {
			err = !yaml_document_append_mapping_pair(doc, c, p->key, p->value) ? -ENOMEM :
											      hold(w, p->key);
			if (!err)
				err = hold(w, p->value);
		}
	}
	if (!c || err || track(w, c))
		return 0;
	node_of(w, c)->start_mark = orig.start_mark;
	node_of(w, c)->end_mark = orig.end_mark;
	return c;
}

/*
 * Node @id as the place being walked holds it: itself where no other
 * place does, else a copy of it for this place alone (one level deep, so
 * that the walk copies what it goes through and no more). A file that
 * writes one link once and aliases it (link: *pcie on every GPU and NIC)
 * changed every alias's with --set switches.link.bandwidth. 0 when out
 * of memory.
 */
static int own(struct walk *w, int id)
{
	int c;

	if (w->refs[id] <= 1)
		return id;
	c = copy_node(w, id);
	if (!c)
		return 0;
	w->refs[id]--;
	w->refs[c] = 1;
	return c;
}

/* The index of mapping @m's pair with key @key (@klen bytes), or -1. */
static long pair_of(struct walk *w, int m, const char *key, size_t klen)
{
	yaml_node_t *n = node_of(w, m);

	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = node_of(w, p->key);

		if (k && k->type == YAML_SCALAR_NODE && k->data.scalar.length == klen &&
		    !memcmp(k->data.scalar.value, key, klen))
			return p - n->data.mapping.pairs.start;
	}
	return -1;
}

/* Note mapping @id as lacking the path's last key, once. */
static int note_missing(struct walk *w, int id)
{
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

/* Set the scalars under node @id along @path (@depth parts left) to the
 * walk's value, each marked as its override's (YAML_DOC_SET_MARK);
 * w->hits counts them, w->missing gathers the mappings that leave the
 * last key out. Each node on the way is this place's own (own). */
static int apply(struct walk *w, int id, const char *const *part, const size_t *len,
		 unsigned depth, unsigned nest)
{
	yaml_node_t *n = node_of(w, id);
	char *copy;
	long k;
	int c;

	if (!n)
		return 0;
	if (++w->visits > WALK_MAX)
		return -E2BIG;
	/* a list is walked without a key of the path: a list aliased inside
	 * itself (&a [*a]) would be walked down for ever, and overflowed the
	 * stack before WALK_MAX (fuzz_topology) */
	if (n->type == YAML_SEQUENCE_NODE && nest >= LIST_NEST_MAX)
		return -ELOOP;
	if (n->type == YAML_SEQUENCE_NODE) {
		size_t count = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);

		for (size_t i = 0; i < count; i++) {
			int err;

			c = own(w, node_of(w, id)->data.sequence.items.start[i]);
			if (!c)
				return -ENOMEM;
			node_of(w, id)->data.sequence.items.start[i] = c;
			err = apply(w, c, part, len, depth, nest + 1);
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
	k = pair_of(w, id, part[0], len[0]);
	if (k < 0)
		return depth == 1 ? note_missing(w, id) : 0;
	c = own(w, node_of(w, id)->data.mapping.pairs.start[k].value);
	if (!c)
		return -ENOMEM;
	node_of(w, id)->data.mapping.pairs.start[k].value = c;
	return apply(w, c, part + 1, len + 1, depth - 1, nest);
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
	err = count_refs(&w);
	if (!err)
		err = apply(&w, 1, part, len, depth, 0); /* the root is node 1 */
	/* entries of a list that leave the key out take the value too, where
	 * some entry gives it (it was set on those alone: --set gpus.gdr=false
	 * left every GPU without gdr: in the file with GPUDirect); where none
	 * does, the path is the document's error, as ever */
	for (unsigned i = 0; !err && w.hits && i < w.nmissing; i++)
		err = add_pair(&w, w.missing[i], part[depth - 1], len[depth - 1]);
	free(w.missing);
	free(w.refs);
	hits = w.hits;
	if (!err && hits && y->nsets < YAML_DOC_SETS_MAX) {
		y->set_path[y->nsets] = path;
		y->set_value[y->nsets++] = value;
	}
	if (err == -EISDIR)
		snprintf(why, whylen, "'%s' is a list or a mapping, not a value", path);
	else if (err == -ENOMEM)
		snprintf(why, whylen, "out of memory");
	else if (err == -ELOOP)
		snprintf(why, whylen, "'%s' goes through lists nested more than %d deep (a list aliased inside itself?)",
			 path, LIST_NEST_MAX);
	else if (err == -E2BIG)
		snprintf(why, whylen, "'%s' goes through more than %lu values (lists of aliased lists)",
			 path, WALK_MAX);
	else if (!hits)
		snprintf(why, whylen, "the topology has no '%s' to set", path);
	return err ? err : hits ? 0 : -ENOENT;
}
