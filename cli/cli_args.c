/* SPDX-License-Identifier: MIT */
/* What the subcommands share in reading their command lines. */
#define _GNU_SOURCE /* strcasestr */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "cli.h"
#include "ib_config.h"
#include "input_file.h"
#include "nccl_conv.h"
#include "output_file.h"
#include "tuner.h"

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "gdrlab %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see 'gdrlab %s --help')\n", cmd);
	return EXIT_USAGE;
}

int cli_error(const char *cmd, int status, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "gdrlab %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return status;
}

int cli_fail(const char *cmd, enum cli_stage stage, int err,
	     const struct diag *d)
{
	bool input = err == -EINVAL || err == -ERANGE ||
		     (stage == CLI_LOADING && (err == -ENOENT || err == -EACCES || err == -EISDIR));

	fprintf(stderr, "gdrlab %s: %s\n", cmd, d->msg[0] ? d->msg : strerror(-err));
	return input ? EXIT_USAGE : EXIT_RUNTIME;
}

int cli_check_outputs(const char *cmd, const char *const *paths, size_t n)
{
	struct diag d = { "" };

	for (size_t i = 0; i < n; i++) {
		int err = paths[i] ? output_file_check(paths[i], &d) : 0;

		if (err)
			return cli_fail(cmd, CLI_LOADING, err, &d);
	}
	return 0;
}

/* The folders a shipped file of each kind is looked for in, in order. */
static const struct {
	const char *what, *ext, *dirs[2];
} shipped[] = {
	[CLI_SHIPPED_TOPOLOGY] = { "topology", ".yaml", { "configs", "configs/validation" } },
	[CLI_SHIPPED_TRACE] = { "trace", ".jsonl", { "traces", NULL } },
};

static bool bare_name(const char *s)
{
	return s[0] && s[0] != '.' &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") ==
		       strlen(s);
}

int cli_shipped_lookup(const char *arg, enum cli_shipped kind, char *out, size_t len)
{
	size_t n = strlen(arg), elen = strlen(shipped[kind].ext);
	bool has_ext = n > elen && !strcmp(arg + n - elen, shipped[kind].ext);

	if (!bare_name(arg) || !access(arg, F_OK))
		return 0;
	for (unsigned i = 0; i < 2 && shipped[kind].dirs[i]; i++) {
		int k = snprintf(out, len, "%s/%s/%s%s", cli_data_dir(), shipped[kind].dirs[i], arg,
				 has_ext ? "" : shipped[kind].ext);

		if (k > 0 && (size_t)k < len && !access(out, F_OK))
			return 1;
	}
	return -ENOENT;
}

/* printf onto the end of @msg (of @len); false, and @msg as it was, where
 * it does not fit. */
static bool append(char *msg, size_t len, const char *fmt, ...)
{
	size_t at = strlen(msg);
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(msg + at, len - at, fmt, ap);
	va_end(ap);
	if (k < 0 || (size_t)k >= len - at) {
		msg[at] = '\0';
		return false;
	}
	return true;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* Appends to @msg the names of @kind's shipped files that contain @arg
 * (any case), or all of them with @all, sorted, as far as they fit (the
 * first 64); returns how many it named. */
static unsigned shipped_names(const char *arg, enum cli_shipped kind, bool all, char *msg,
			      size_t len)
{
	char names[64][128];
	size_t elen = strlen(shipped[kind].ext);
	unsigned n = 0, named = 0;

	for (unsigned i = 0; i < 2 && shipped[kind].dirs[i]; i++) {
		char dir[4096];
		struct dirent *e;
		DIR *d;

		snprintf(dir, sizeof(dir), "%s/%s", cli_data_dir(), shipped[kind].dirs[i]);
		if (!(d = opendir(dir)))
			continue;
		while (n < 64 && (e = readdir(d))) {
			size_t k = strlen(e->d_name);

			if (k > elen && k - elen < sizeof(names[0]) &&
			    !strcmp(e->d_name + k - elen, shipped[kind].ext) &&
			    (all || strcasestr(e->d_name, arg)))
				snprintf(names[n++], sizeof(names[0]), "%.*s", (int)(k - elen),
					 e->d_name);
		}
		closedir(d);
	}
	qsort(names, n, sizeof(names[0]), name_cmp);
	while (named < n && append(msg, len, "%s%s", named ? ", " : "", names[named]))
		named++;
	return named;
}

/* The error for @arg, neither a file nor a shipped name: with the shipped
 * names that contain it, or else every shipped name, so that a user who
 * typed "a100" or "resnet50" sees what to type. */
void cli_shipped_error(const char *opt, const char *arg, enum cli_shipped kind, char *msg,
		       size_t len)
{
	size_t at;

	snprintf(msg, len, "%s: '%s': no such file, nor a shipped %s of that name", opt, arg,
		 shipped[kind].what);
	at = strlen(msg);
	if (append(msg, len, "; did you mean ") && shipped_names(arg, kind, false, msg, len) &&
	    append(msg, len, "?"))
		return;
	msg[at] = '\0';
	if (append(msg, len, " (shipped: ") && shipped_names(arg, kind, true, msg, len) &&
	    append(msg, len, ")"))
		return;
	msg[at] = '\0';
	append(msg, len, " (none shipped in %s/%s)", cli_data_dir(), shipped[kind].dirs[0]);
}

int cli_shipped_file(const char *cmd, const char *opt, const char *arg,
		     enum cli_shipped kind, const char **out)
{
	/* a command resolves a topology, a layout and a trace at most; a
	 * fifth option is read as it is given */
	static char kept[4][4096];
	static unsigned nkept;
	char msg[DIAG_MSG_MAX];
	int found;

	*out = arg;
	if (nkept == 4)
		return 0;
	found = cli_shipped_lookup(arg, kind, kept[nkept], sizeof(kept[0]));
	if (found > 0)
		*out = kept[nkept++];
	if (found >= 0)
		return 0;
	cli_shipped_error(opt, arg, kind, msg, sizeof(msg));
	return cli_usage_error(cmd, "%s", msg);
}

int cli_parse_unsigned(const char *s, unsigned max, unsigned *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v == 0 || v > max || s[0] == '-')
		return -EINVAL;
	*out = (unsigned)v;
	return 0;
}

int cli_parse_size(const char *s, uint64_t max, uint64_t *bytes)
{
	char joined[64];
	const char *space = strchr(s, ' ');
	uint64_t v;

	/* "1 MiB", as a topology file writes it: the number and its unit */
	if (space && strlen(s) < sizeof(joined) && !strchr(space + 1, ' ')) {
		snprintf(joined, sizeof(joined), "%.*s%s", (int)(space - s), s, space + 1);
		s = joined;
	}
	if (nccl_parse_size(s, &v))
		return -EINVAL;
	if (v > max)
		return -ERANGE;
	*bytes = v;
	return 0;
}

int cli_parse_tolerance(const char *cmd, const char *arg, double *pct)
{
	char *end;

	*pct = strtod(arg, &end);
	if (end == arg || *end || !(*pct > 0) || *pct > 1000)
		return cli_usage_error(cmd, "--tolerance: expected a percentage above 0 and at most 1000, got '%s'", arg);
	return 0;
}

const struct backend_ops *cli_find_backend(const char *cmd, const char *opt,
					   const char *name)
{
	char why[256];
	const struct backend_ops *b = backend_lookup(name, why, sizeof(why));

	if (!b)
		fprintf(stderr, "gdrlab %s: %s%s%s\n", cmd, opt ? opt : "",
			opt ? ": " : "", why);
	return b;
}

const char cli_nccl_usage[] =
	"      --algo LIST         NCCL_ALGO syntax: ring,tree,nvls,nvlstree,pat,\n"
	"                          collnetdirect,collnetchain, '^' to exclude, and\n"
	"                          'allreduce:tree;broadcast:ring' (default: all,\n"
	"                          the fastest by NCCL's own cost model)\n"
	"      --proto LIST        NCCL_PROTO syntax: LL,LL128,Simple (default: all;\n"
	"                          LL128 where NCCL enables it)\n"
	"      --channels N        channels a collective uses (default: NCCL's count)\n"
	"      --pxn on|off        PXN: send through a peer GPU's NIC over NVLink\n"
	"                          where NCCL would (default on)\n"
	"      --p2p-level LEVEL   NCCL_P2P_LEVEL: the farthest GPU pair that copies\n"
	"                          peer to peer, loc (NCCL_P2P_DISABLE=1: not even\n"
	"                          NVLink), nvl, nvb, pix, pxb, phb or sys; farther\n"
	"                          ones go through host memory (default: NCCL's\n"
	"                          rule for the release and CPU vendor)\n"
	"      --nccl VERSION      the NCCL release whose tuner, constants and\n"
	"                          defaults apply: 2.30.7 (default), 2.21.5, 2.19.3,\n"
	"                          2.12.12 (no NVLS) or 2.8.4 (no PXN or NVLS), or\n"
	"                          another 2.x from 2.7, taking the tables for it\n"
	"                          with its own search constants (2.Y alone: its\n"
	"                          last patch release); GDR level default PXB\n"
	"                          before 2.27\n";

const char cli_ib_usage[] =
	"      --ib-gid-index N    emu, real: RoCE GID index (NCCL_IB_GID_INDEX;\n"
	"                          default: a RoCEv2 IPv4 GID, as NCCL picks)\n"
	"      --ib-tc N           traffic class 0-255 (NCCL_IB_TC; default 0)\n"
	"      --ib-sl N           service level 0-15 (NCCL_IB_SL; default 0)\n"
	"      --ib-port N         port of every device (default: the first active;\n"
	"                          NCCL_IB_HCA=mlx5_0:1,... chooses devices and ports)\n"
	"      --ib-relaxed-ordering N\n"
	"                          0: register memory without PCIe relaxed ordering;\n"
	"                          1 or 2 (default): with it, as NCCL does\n"
	"                          (NCCL_IB_PCI_RELAXED_ORDERING)\n";

/* --ib-*: checked here, then handed to the ranks as the variable. */
static int ib_option(const char *cmd, int c, const char *arg)
{
	static const struct ib_opt {
		const char *opt;
		const struct ib_var *var; /* its variable and range */
	} ib[] = {
		[CLI_OPT_IB_GID_INDEX - CLI_OPT_IB_GID_INDEX] = { "--ib-gid-index", &ib_var_gid_index },
		[CLI_OPT_IB_TC - CLI_OPT_IB_GID_INDEX] = { "--ib-tc", &ib_var_tc },
		[CLI_OPT_IB_SL - CLI_OPT_IB_GID_INDEX] = { "--ib-sl", &ib_var_sl },
		[CLI_OPT_IB_PORT - CLI_OPT_IB_GID_INDEX] = { "--ib-port", &ib_var_port },
		[CLI_OPT_IB_RELAXED_ORDERING - CLI_OPT_IB_GID_INDEX] = { "--ib-relaxed-ordering",
									 &ib_var_relaxed_ordering },
	};
	const struct ib_opt *o = &ib[c - CLI_OPT_IB_GID_INDEX];
	long lo = o->var->lo, hi = o->var->hi;
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' || v < (unsigned long)lo ||
	    v > (unsigned long)hi)
		return cli_usage_error(cmd, "%s: expected a whole number from %ld to %ld, got '%s'",
				       o->opt, lo, hi, arg);
	if (setenv(o->var->env, arg, 1))
		return cli_usage_error(cmd, "%s: cannot set %s", o->opt, o->var->env);
	return 0;
}

/* -g: a class name or NCCL's old number, as ncclGetLevel reads
 * NCCL_NET_GDR_LEVEL (topo_gdr_level_parse) */
static int gdr_level_option(const char *cmd, const char *arg, struct plan_options *o)
{
	int err = topo_gdr_level_parse(arg, &o->gdr_level);

	if (err == -ERANGE)
		return cli_usage_error(cmd, "--gdr-level: NCCL reads 0 as LOC, GPUDirect RDMA to no NIC; for that run --path staged");
	if (err)
		return cli_usage_error(cmd, "--gdr-level: expected " TOPO_GDR_LEVEL_FORMS ", got '%s'",
				       arg);
	o->gdr_level_set = true;
	return 0;
}

int cli_plan_option(const char *cmd, int c, const char *arg, char *const *argv,
		    struct plan_options *o)
{
	struct tune_enable scratch;
	struct diag d = { "" };
	uint64_t bytes;

	switch (c) {
	case CLI_OPT_ALGO:
	case CLI_OPT_PROTO:
		tune_enable_default(&scratch);
		if (tune_enable_parse(&scratch, c == CLI_OPT_ALGO ? arg : NULL,
				      c == CLI_OPT_PROTO ? arg : NULL, &d))
			return cli_usage_error(cmd, "%s", d.msg);
		if (c == CLI_OPT_ALGO)
			o->algo = arg;
		else
			o->proto = arg;
		return 0;
	case CLI_OPT_CHANNELS:
		if (cli_parse_unsigned(arg, NCCL_MAX_CHANNELS, &o->nchannels))
			return cli_usage_error(cmd, "--channels: expected a whole number from 1 to %d, got '%s'",
					       NCCL_MAX_CHANNELS, arg);
		return 0;
	case CLI_OPT_IB_GID_INDEX:
	case CLI_OPT_IB_TC:
	case CLI_OPT_IB_SL:
	case CLI_OPT_IB_PORT:
	case CLI_OPT_IB_RELAXED_ORDERING:
		return ib_option(cmd, c, arg);
	case CLI_OPT_PXN:
		if (strcmp(arg, "on") && strcmp(arg, "off"))
			return cli_usage_error(cmd, "--pxn: expected on or off, got '%s'", arg);
		o->pxn_off = !strcmp(arg, "off");
		return 0;
	case CLI_OPT_P2P_LEVEL:
		if (p2p_user_level_parse(arg, &o->p2p_level))
			return cli_usage_error(cmd, "--p2p-level: expected loc, nvl, nvb, pix, pxb, phb, sys or NCCL's old numbers (0 loc, 1 pix, 2 pxb, 3 phb, 4 and above sys), got '%s'",
					       arg);
		return 0;
	case CLI_OPT_NCCL: {
		unsigned minor, patch;
		const struct nccl_release *r = nccl_release_for_version(arg, &minor, &patch);
		char span[32];

		if (!r)
			return cli_usage_error(cmd, "--nccl: expected an NCCL 2 version from 2.7 on (2.18.5, 2.18), got '%s'; this build has the tables of %s",
					       arg, nccl_release_list());
		/* another release of a table's range: say whose tables */
		if (minor) {
			nccl_release_span(r, span, sizeof(span));
			fprintf(stderr, "gdrlab %s: --nccl %s: NCCL %s's tables, which stand for %s\n",
				cmd, arg, r->version, span);
		}
		plan_options_set_nccl_release(o, r, minor, patch);
		o->nccl_set = true;
		return 0;
	}
	case 'n':
		if (cli_parse_unsigned(arg, TOPO_MAX_NODES, &o->nodes))
			return cli_usage_error(cmd, "--nodes: expected a whole number from 1 to 65536, got '%s'", arg);
		return 0;
	case 'p':
		if (plan_path_parse(arg, &o->path))
			return cli_usage_error(cmd, "--path: expected direct, staged, staged-memcpy or auto, got '%s'", arg);
		return 0;
	case 'g':
		return gdr_level_option(cmd, arg, o);
	case 'C':
		if (cli_parse_size(arg, UINT64_MAX, &bytes) || !bytes)
			return cli_usage_error(cmd, "--chunk: expected a size above 0 like " CLI_SIZE_FORMS ", got '%s'", arg);
		o->chunk_bytes = bytes;
		return 0;
	case 'B':
		if (cli_parse_unsigned(arg, 64, &o->buffers))
			return cli_usage_error(cmd, "--buffers: expected a whole number from 1 to 64, got '%s'", arg);
		return 0;
	case 'D':
		/* the emu backend reads it; the ranks it forks or that a
		 * launcher starts inherit it */
		if (!*arg || setenv("GDRLAB_EMU_DEVICES", arg, 1))
			return cli_usage_error(cmd, "--devices: expected a list like 'rxe0,rxe1', got '%s'", arg);
		return 0;
	case ':':
		return cli_usage_error(cmd, "%s needs a value", argv[optind - 1]);
	default:
		return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
	}
}

const char cli_set_usage[] =
	"      --set PATH=VALUE    a value of the topology file replaced by its dotted\n"
	"                          path (nics.rate=100Gbit/s, fabric.leaf.uplinks=8;\n"
	"                          repeatable); a path the file lacks is an error\n";

int cli_set_option(const char *cmd, const char *arg, struct cli_sets *s)
{
	const char *eq = strchr(arg, '=');
	struct topo_override *o = &s->v[s->n];

	if (s->n >= CLI_MAX_SETS)
		return cli_usage_error(cmd, "--set: at most %d values", CLI_MAX_SETS);
	if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof(o->path) ||
	    strlen(eq + 1) >= sizeof(o->value) || !eq[1])
		return cli_usage_error(cmd, "--set: expected PATH=VALUE (nics.rate=100Gbit/s), got '%s'",
				       arg);
	snprintf(o->path, sizeof(o->path), "%.*s", (int)(eq - arg), arg);
	snprintf(o->value, sizeof(o->value), "%s", eq + 1);
	/* one way to say the cluster's size: beside -n the --set was echoed
	 * in the header and lost */
	if (!strcmp(o->path, "nodes"))
		return cli_usage_error(cmd, "--set nodes: give the node count with --nodes (-n)");
	/* a path set again: the last value is the one the file gets, so
	 * the earlier one leaves the list (the header and the JSON name only
	 * what ran); what came between is applied before it either way */
	for (unsigned i = 0; i < s->n; i++) {
		if (strcmp(s->v[i].path, o->path))
			continue;
		memmove(&s->v[i], &s->v[i + 1], (s->n - i) * sizeof(s->v[0]));
		s->n--;
		break;
	}
	s->n++;
	return 0;
}

int cli_sets_json(json_t *doc, const struct cli_sets *s)
{
	json_t *o;

	if (!s->n)
		return 0;
	o = json_object();
	for (unsigned i = 0; o && i < s->n; i++)
		json_object_set_new(o, s->v[i].path, json_string(s->v[i].value));
	return !o || json_object_set_new(doc, "topology_set", o) ? -ENOMEM : 0;
}

void cli_sets_print(FILE *out, const char *prefix, const struct cli_sets *s)
{
	if (!s->n)
		return;
	fprintf(out, "%s--set", prefix);
	for (unsigned i = 0; i < s->n; i++)
		fprintf(out, "%s %s=%s", i ? "," : "", s->v[i].path, s->v[i].value);
	fputc('\n', out);
}

void cli_note_unread(const char *cmd, const struct plan_options *o, const struct cli_sets *sets,
		     enum plan_path path, bool own_ring)
{
	static const struct { const char *opt, *key; } opts[] = {
		{ "--chunk", "staging.chunk" },
		{ "--buffers", "staging.buffers" },
	};
	const bool given[] = { o->chunk_bytes != 0, o->buffers != 0 };
	const char *why;

	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		if (given[i] && (why = plan_set_unread(opts[i].key, path, own_ring)))
			fprintf(stderr, "gdrlab %s: note: %s changes nothing here: %s\n", cmd,
				opts[i].opt, why);
	for (unsigned i = 0; i < sets->n; i++)
		if ((why = plan_set_unread(sets->v[i].path, path, own_ring)))
			fprintf(stderr, "gdrlab %s: note: --set %s changes nothing here: %s\n", cmd,
				sets->v[i].path, why);
	if (plan_options_gdr_level_unknown(o))
		fprintf(stderr, "gdrlab %s: note: -g p2c: NCCL 2.%u has no P2C level (from 2.27): it ignores NCCL_NET_GDR_LEVEL=P2C for its default, PXB, which this run takes\n",
			cmd, plan_options_nccl_minor(o));
}

json_t *cli_load_json(const char *path, struct diag *d)
{
	json_error_t je;
	json_t *doc;
	int err;
	FILE *f = input_open(path, "r", &err, d);

	if (!f)
		return NULL;
	/* gdrlab writes each key once: a key twice is an edited file,
	 * whose reader would keep one of them unsaid */
	doc = json_loadf(f, JSON_REJECT_DUPLICATES, &je);
	fclose(f);
	if (!doc)
		diag_set(d, -EINVAL, "%s:%d: %s", path, je.line, je.text);
	return doc;
}

int cli_stdout_twice(const char *cmd, const char *const *vals, const char *const *opts,
		     unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		for (unsigned j = i + 1; j < n; j++)
			if (vals[i] && vals[j] && !strcmp(vals[i], "-") && !strcmp(vals[j], "-")) {
				cli_usage_error(cmd, "%s - and %s -: one output on stdout at most",
						opts[i], opts[j]);
				return 1;
			}
	return 0;
}
