/* SPDX-License-Identifier: MIT */
/*
 * nccl-log: NCCL_DEBUG=INFO output (NCCL_DEBUG_SUBSYS including INIT and
 * COLL, and TUNING for what NCCL ran), from one rank or many, in one file
 * or one per rank.
 *
 * NCCL prints, per process ("host:pid:tid [cudaDev] NCCL INFO ...",
 * src/debug.cc; a timestamp may come first), among others:
 *
 *   comm 0x5581 rank 3 nranks 16 cudaDev 3 nvmlDev 3 busId 1b000
 *     commId 0x8f1e... - Init COMPLETE              (src/init.cc)
 *   AllReduce: opCount 2a sendbuff 0x7f.. recvbuff 0x7f.. count 262144
 *     datatype 7 op 0 root 0 comm 0x5581 [nranks=16] stream 0x55..
 *                                                   (src/enqueue.cc)
 *
 * A communicator is a commId across processes (the comm pointer is only
 * a process's own); before 2.16 the Init line has no commId, and only
 * communicators of every rank can be told apart. From 2.23 on, a
 * communicator made by ncclCommSplit (or Shrink, Grow) prints no commId
 * but its parent, the parent's split count and its color, which name it
 * as well (below). The communicator with the most ranks is the job's
 * world: a process's rank in it is its global rank. A collective is one
 * (communicator, place among each rank's collectives on it): every rank
 * calls them in one order, while opCount counts launches, not calls
 * (the calls of one ncclGroupStart/End share one), and from 2.27 only
 * launches with network work (untrusted_op_count). Every rank logs it,
 * and the ranks must agree on its function, count and type.
 * Sends become sendrecv from the sender to its peer (Recv lines are the
 * same transfers, seen from the other end). A communicator's rank 0 also
 * prints what NCCL ran, with TUNING ("AllReduce: 1048576 Bytes -> Algo
 * RING proto SIMPLE ..."), naming no communicator: it goes to that
 * process's oldest unmatched call of the function and size, as the
 * entry's algo and proto. NCCL's log has no times: every collective is
 * in iteration 0, ready at 0.
 *
 * This file reads the files a line at a time and tells the lines apart;
 * import_nccl_log_ranks.c knows the processes and communicators,
 * import_nccl_log_calls.c matches the calls across ranks and
 * import_nccl_log_trace.c makes the trace (import_nccl_log_internal.h).
 */
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_nccl_log_internal.h"

#define LINE_MAX_LEN 4096

int nlog_fail(struct state *s, const char *key, const char *fmt, ...)
{
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = diag_vat(s->d, -EINVAL, s->in[s->file].name, s->line, 0, key, fmt, ap);
	va_end(ap);
	return err;
}

/* "key value" among @msg's words: the value's start, or NULL. */
const char *nlog_value_of(const char *msg, const char *key)
{
	size_t k = strlen(key);

	for (const char *p = msg; (p = strstr(p, key)); p += k)
		if ((p == msg || p[-1] == ' ') && p[k] == ' ')
			return p + k + 1;
	return NULL;
}

int nlog_number(struct state *s, const char *msg, const char *key, int base, uint64_t max,
	   uint64_t *out)
{
	const char *v = nlog_value_of(msg, key);
	char *end;
	unsigned long long x;

	if (!v)
		return nlog_fail(s, key, "missing from the line");
	if (base == 16 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X'))
		v += 2;
	errno = 0;
	x = strtoull(v, &end, base);
	if (errno || end == v || (*end && *end != ' ') || x > max || v[0] == '-')
		return nlog_fail(s, key, "expected a number up to %" PRIu64, max);
	*out = x;
	return 0;
}

int nlog_small_int(struct state *s, const char *msg, const char *key, int *out)
{
	const char *v = nlog_value_of(msg, key);
	uint64_t x;
	int err;

	if (v && *v == '-') { /* root -1 of collectives without one */
		if (strncmp(v, "-1", 2) || (v[2] && v[2] != ' '))
			return nlog_fail(s, key, "expected a rank or -1");
		*out = -1;
		return 0;
	}
	err = nlog_number(s, msg, key, 10, 1u << 30, &x);
	if (!err)
		*out = (int)x;
	return err;
}

/*
 * "Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0/GDRDMA" (transport/
 * net.cc; "NET/IB/0(3)/GDRDMA" when rank 3 sends for it, PXN): whether
 * NCCL put this connection's network side on GPU memory.
 */
static void channel_line(struct state *s, const char *msg)
{
	const char *via = strstr(msg, " via NET/");
	bool send = strstr(msg, " [send] ") != NULL;

	if (!via || (!send && !strstr(msg, " [receive] ")))
		return; /* P2P, SHM, CollNet: not the network's */
	s->net[send]++;
	if (strstr(via, "/GDRDMA"))
		s->gdr[send]++;
	if (send && strchr(via, '('))
		s->pxn += strchr(via, '(')[1] != 'P'; /* "(PCI)" is GDR's mode */
}

/* A communicator (by commId and size) and how many processes' logs hold
 * a rank of it. */
struct comm_present {
	uint64_t id;
	int nranks, procs;
};

/* Each communicator of the logs with its processes, into *@out (freed by
 * the caller); its count, 0 when out of memory (nothing is then said). */
static size_t comms_present(const struct state *s, struct comm_present **out)
{
	struct comm_present *c = calloc(s->nviews ? s->nviews : 1, sizeof(*c));
	size_t n = 0;

	*out = c;
	for (size_t i = 0; c && i < s->nviews; i++) {
		const struct comm_view *v = &s->views[i];
		size_t k = 0;

		/* a process has one view of a communicator (its rank in it) */
		while (k < n && (c[k].id != v->id || c[k].nranks != v->nranks))
			k++;
		if (k == n)
			c[n++] = (struct comm_present){ v->id, v->nranks, 0 };
		c[k].procs++;
	}
	return c ? n : 0;
}

/*
 * Whether collective @c was logged by fewer of its communicator's ranks
 * than the logs hold (@comms, @n): a job cut short, or a log. Importing
 * some ranks' logs only (one rank of eight) is not: a call is then logged
 * by as many ranks as the logs have of its communicator.
 */
static bool cut_short(const struct comm_present *comms, size_t n, const struct coll *c)
{
	if (c->op == TRACE_OP_SENDRECV || c->logged >= c->nranks)
		return false;
	for (size_t k = 0; k < n; k++)
		if (comms[k].id == c->comm_id && comms[k].nranks == c->nranks)
			return c->logged < comms[k].procs;
	return false;
}

/* The hosts of the world's ranks ("host:pid"): how many, and the ranks
 * of each where they all have as many. */
static void count_hosts(const struct state *s, struct import_notes *notes)
{
	unsigned *count = calloc(s->nprocs ? s->nprocs : 1, sizeof(*count));
	size_t *first = malloc((s->nprocs ? s->nprocs : 1) * sizeof(*first));

	notes->hosts = notes->per_host = 0;
	for (size_t i = 0; count && first && i < s->nprocs; i++) {
		size_t len = strcspn(s->procs[i].id, ":"), k;

		if (s->procs[i].world < 0)
			continue;
		for (k = 0; k < notes->hosts; k++)
			if (!strncmp(s->procs[first[k]].id, s->procs[i].id, len + 1))
				break;
		if (k == notes->hosts)
			first[notes->hosts++] = i;
		count[k]++;
	}
	notes->per_host = notes->hosts ? count[0] : 0;
	for (unsigned k = 1; k < notes->hosts; k++)
		if (count[k] != count[0])
			notes->per_host = 0;
	free(count);
	free(first);
}

/*
 * A log without an "NCCL version" line: the release its lines show (2.27
 * or later), or, where its sends were grouped by opCount, that it was
 * read as an older NCCL's and what would have said otherwise.
 */
static void release_notes(const struct state *s, struct import_notes *notes)
{
	if (s->version_said)
		return;
	if (s->newer_line)
		import_notes_add(notes, "no 'NCCL version' line: read as NCCL 2.27 or later, which alone prints '%s' (%s:%u)",
				 s->newer_by, s->in[s->newer_file].name, s->newer_line);
	else if (s->alltoalls || s->batches)
		import_notes_add(notes, "no 'NCCL version' line, nor one only NCCL 2.27 and later print ('Assigned NET plugin', NCCL_DEBUG_SUBSYS=INIT): sends grouped by opCount, as NCCL before 2.27 counts launches; a 2.27 or later log needs its 'NCCL version' line kept");
}

/* The header line of what the Channel lines said, what was left out and
 * which calls fewer ranks logged than the logs hold. */
static void notes_of(const struct state *s, struct import_notes *notes)
{
	const char *path = s->gdr[0] + s->gdr[1] == 0 ? "staged" :
			   s->gdr[0] == s->net[0] && s->gdr[1] == s->net[1] ? "direct" : "auto";

	const struct coll *first = NULL; /* the first call cut short */
	struct comm_present *comms;
	size_t ncomms, partial = 0;

	notes->line[0] = '\0';
	notes->world = s->world_n > 0 ? (unsigned)s->world_n : 0;
	count_hosts(s, notes);
	if (s->net[0] + s->net[1])
		import_notes_add(notes, "NCCL's network connections: %u sends, %u of them GPUDirect RDMA, %u through a PXN proxy; %u receives, %u GPUDirect RDMA (replay with --path %s)",
				 s->net[1], s->gdr[1], s->pxn, s->net[0], s->gdr[0], path);
	if (s->left_out)
		import_notes_add(notes, "left out: %u ranks' lines of NCCL functions the trace has no op for (the first: %s, %s:%u)",
				 s->left_out, s->left_out_name, s->in[s->left_out_file].name,
				 s->left_out_line);
	/* a job that died, or a log cut short: kept, as each call's own
	 * logged line says what it was, but said */
	ncomms = comms_present(s, &comms);
	for (size_t i = 0; i < s->ncolls; i++)
		if (cut_short(comms, ncomms, &s->colls[i]) && !partial++)
			first = &s->colls[i];
	if (first)
		import_notes_add(notes, "%zu collective%s logged by only some of their ranks (the first: %s, %s:%u, %d of %d): a job cut short or some ranks' logs missing",
				 partial, partial == 1 ? "" : "s", first->func, s->in[first->file].name,
				 first->line, first->logged, first->nranks);
	if (s->numbered)
		import_notes_add(notes, "no communicator has every rank of the logs: global ranks 0 to %d numbered by host, then cudaDev, then process (a host's ranks a node's; not the job's own numbers, which no line says)",
				 s->world_n - 1);
	if (s->cut_line)
		import_notes_add(notes, "the last line of %s cut short (line %u, no end), left out",
				 s->in[s->cut_file].name, s->cut_line);
	if (s->alltoalls)
		import_notes_add(notes, "%u all-to-all%s from the sends of one NCCL group (one opCount, every rank to every other), each replayed as the one alltoall NCCL runs them as",
				 s->alltoalls, s->alltoalls == 1 ? "" : "s");
	if (s->uneven_alltoalls)
		import_notes_add(notes, "%u of them of unequal sends (all_to_allv), each replayed even, every rank sending each peer what the largest send moved: the fullest NIC's time, the other ranks' traffic overstated",
				 s->uneven_alltoalls);
	if (s->lone_sends)
		import_notes_add(notes, "%u send%s each its own launch, replayed one at a time: %s NCCL's opCount counts only launches with network work (2.27 and later, NVIDIA/nccl#2021), so the log does not say which sends were one group",
				 s->lone_sends, s->lone_sends == 1 ? "" : "s",
				 s->release >= 22700 ? "this" : "in this log");
	if (s->batches)
		import_notes_add(notes, "%u NCCL group%s of several sends (each rank's one opCount, joined by their transfers; not every rank to every other: a pipeline's exchange, batch_isend_irecv), each replayed as one batch, its sends at once",
				 s->batches, s->batches == 1 ? "" : "s");
	release_notes(s, notes);
	free(comms);
}

/*
 * "NCCL version 2.27.3+cuda12.9" (src/init.cc showVersion, INFO of
 * NCCL_ALL: printed whatever NCCL_DEBUG_SUBSYS, once a process): the
 * newest release logged, for untrusted_op_count.
 */
static void version_line(struct state *s, const char *v)
{
	unsigned major, minor, patch;

	if (sscanf(v, "%3u.%3u.%3u", &major, &minor, &patch) != 3 || minor >= 100 || patch >= 100)
		return;
	s->version_said = true;
	if (major * 10000 + minor * 100 + patch > s->release)
		s->release = major * 10000 + minor * 100 + patch;
}

/*
 * A line only NCCL 2.27 and later print, @what its words: the release is
 * at least 2.27 (whose opCount counts only launches with network work)
 * though a log cut or filtered lacks its "NCCL version" line. The lines
 * taken are those a log the importer can read has: "Assigned NET plugin
 * IB to comm" (INFO of INIT|NET at each communicator's init, v2.27.3-1
 * src/plugin/net.cc:174, none in v2.26.6-1), a TUNING line of NCCL's own
 * kernels ("[Symmetric]", v2.27.3-1 src/enqueue.cc; "[Copy Engine]" 2.29)
 * and an AlltoAll call (v2.28.3-1 src/collectives.cc).
 */
static void release_from_line(struct state *s, const char *what)
{
	if (!s->newer_line) {
		s->newer_by = what;
		s->newer_file = s->file;
		s->newer_line = s->line;
	}
	if (s->release < 22700)
		s->release = 22700;
}

/* " [Symmetric]: ..." after a function's name: a TUNING line of NCCL's
 * own kernels (nlog_own_kernel_line), its tag; NULL if not one. */
static const char *own_kernel_tag(const char *after_name)
{
	static const char *const tags[] = { "[Symmetric]", "[Copy Engine]", "[Hierarchical CE]" };

	for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
		size_t n = strlen(tags[i]);

		if (after_name[0] == ' ' && !strncmp(after_name + 1, tags[i], n) &&
		    !strncmp(after_name + 1 + n, ": ", 2))
			return tags[i];
	}
	return NULL;
}

static int parse_line(struct state *s, char *line)
{
	char *info = strstr(line, " NCCL INFO "), *msg, *dev, *hpt;
	const char *kernel;
	size_t proc, len;

	if (!strncmp(line, "NCCL INFO ", 10))
		return nlog_fail(s, "prefix", "expected 'host:pid:tid [device] NCCL INFO'");
	if (!info)
		return 0; /* the application's own output, other levels */
	msg = info + strlen(" NCCL INFO ");
	/* processes that print to one file at once can cut each other's
	 * lines (NCCL writes a line with one fprintf, the launcher merges
	 * the pipes): the rest of one line then runs into another's, whose
	 * words would be read as its */
	if (strstr(msg, " NCCL INFO ") || strstr(msg, " NCCL WARN "))
		return nlog_fail(s, "line", "two processes' NCCL lines run into one (their output interleaved): log one file a process, NCCL_DEBUG_FILE=nccl.%%h.%%p.log");
	*info = '\0';
	/* "... host:pid:tid [dev]": the last two words before NCCL INFO */
	dev = strrchr(line, ' ');
	if (!dev || dev[1] != '[')
		return nlog_fail(s, "prefix", "expected 'host:pid:tid [device] NCCL INFO'");
	*dev = '\0';
	hpt = strrchr(line, ' ');
	hpt = hpt ? hpt + 1 : line;
	len = strlen(hpt);
	if (!strncmp(msg, "Channel ", 8)) {
		channel_line(s, msg);
		return 0;
	}
	if (!strncmp(msg, "NCCL version ", 13)) {
		version_line(s, msg + 13);
		return 0;
	}
	if (!strncmp(msg, "Assigned NET plugin ", 20)) {
		release_from_line(s, "Assigned NET plugin");
		return 0;
	}
	if (strstr(msg, " - Init COMPLETE")) {
		int cuda_dev = -1, err = 0;

		if (nlog_value_of(msg, "cudaDev"))
			err = nlog_small_int(s, msg, "cudaDev", &cuda_dev);
		if (!err)
			err = nlog_proc_of(s, hpt, len, cuda_dev < 0 ? -1 : cuda_dev, &proc);
		return err ? err : nlog_init_line(s, proc, msg);
	}
	for (size_t f = 0; f < sizeof(nlog_funcs) / sizeof(nlog_funcs[0]); f++) {
		size_t n = strlen(nlog_funcs[f].name);

		if (!strncmp(msg, nlog_funcs[f].name, n) && !strncmp(msg + n, ": opCount ", 10)) {
			int err = nlog_proc_of(s, hpt, len, ANY_DEV, &proc);

			if (nlog_funcs[f].op == TRACE_OP_ALLTOALL)
				release_from_line(s, "AlltoAll: opCount");

			return err ? err : nlog_coll_line(s, proc, msg, f);
		}
		if (!strncmp(msg, nlog_funcs[f].name, n) && !strncmp(msg + n, ": ", 2) &&
		    isdigit((unsigned char)msg[n + 2]) && strstr(msg, " Bytes -> Algo ")) {
			int err = nlog_proc_of(s, hpt, len, ANY_DEV, &proc);

			return err ? err : nlog_tuning_line(s, proc, msg, f);
		}
		if (!strncmp(msg, nlog_funcs[f].name, n) && (kernel = own_kernel_tag(msg + n))) {
			int err = nlog_proc_of(s, hpt, len, ANY_DEV, &proc);

			release_from_line(s, kernel);
			if (!err)
				nlog_own_kernel_line(s, proc, msg, f);
			return err;
		}
	}
	/* another of NCCL's functions (Reduce, Gather, Scatter, ...): left
	 * out, and said so; every rank leaves out its own line, so the
	 * calls of each communicator still pair up by their place */
	info = strstr(msg, ": opCount ");
	if (info && info > msg && info - msg < (ptrdiff_t)sizeof(s->left_out_name) &&
	    !memchr(msg, ' ', (size_t)(info - msg))) {
		if (!s->left_out++) {
			snprintf(s->left_out_name, sizeof(s->left_out_name), "%.*s",
				 (int)(info - msg), msg);
			s->left_out_line = s->line;
			s->left_out_file = s->file;
		}
	}
	return 0;
}

/* What read_line found besides the line. */
enum line_end { LINE_OK, LINE_LONG, LINE_NUL, LINE_EOF };

/* A file read a block at a time, its lines found with memchr. */
struct line_reader {
	FILE *fp;
	size_t at, end;
	char block[1 << 16];
};

/*
 * The next line of @r into @buf (@len bytes: the first @len - 1 of a
 * longer line, the rest read and dropped), its newline (and a CR before
 * it) off. A NUL byte ends the reading at once: no NCCL line has one, and
 * a stream of them (/dev/zero) may have no newline to wait for.
 */
static enum line_end read_line(struct line_reader *r, char *buf, size_t len, bool *unended)
{
	size_t n = 0;
	bool any = false, cut = false;

	*unended = false;
	for (;;) {
		const char *from, *nl;
		size_t take, room = len - 1 - n;

		if (r->at == r->end) {
			r->at = 0;
			r->end = fread(r->block, 1, sizeof(r->block), r->fp);
			if (!r->end) {
				*unended = any; /* the file ends inside it */
				break;
			}
		}
		from = r->block + r->at;
		nl = memchr(from, '\n', r->end - r->at);
		take = nl ? (size_t)(nl - from) : r->end - r->at;
		any = true;
		if (memchr(from, '\0', take))
			return LINE_NUL;
		memcpy(buf + n, from, take < room ? take : room);
		cut |= take > room;
		n += take < room ? take : room;
		r->at += take + (nl != NULL);
		if (nl)
			break;
	}
	buf[n] = '\0';
	if (n && buf[n - 1] == '\r')
		buf[--n] = '\0';
	if (!any)
		return LINE_EOF;
	return cut ? LINE_LONG : LINE_OK;
}

static int read_input(struct state *s)
{
	struct line_reader *r = malloc(sizeof(*r));
	char buf[LINE_MAX_LEN];
	enum line_end end;
	bool unended;
	int err = 0;

	if (!r)
		return -ENOMEM;
	r->fp = s->in[s->file].fp;
	r->at = r->end = 0;
	s->line = 0;
	while (!err && (end = read_line(r, buf, sizeof(buf), &unended)) != LINE_EOF) {
		s->line++;
		/* a job's own long lines (a script's print) are not NCCL's,
		 * skipped: NCCL's lines are short, and one cut would be
		 * misread */
		if (end == LINE_NUL)
			err = nlog_fail(s, "line", "a NUL byte");
		else if (end == LINE_LONG && strstr(buf, " NCCL INFO "))
			err = nlog_fail(s, "line", "an NCCL line longer than %d bytes", LINE_MAX_LEN - 1);
		else if (end == LINE_OK)
			err = parse_line(s, buf);
		/* a killed job's last line, cut where its file ends: what it
		 * began to say is lost, not wrong (notes_of says so) */
		if (err == -EINVAL && unended && !s->cut_line) {
			s->cut_line = s->line;
			s->cut_file = s->file;
			s->d->msg[0] = '\0';
			err = 0;
		}
	}
	if (!err && ferror(r->fp))
		err = diag_set(s->d, -EIO, "%s: read error", s->in[s->file].name);
	free(r);
	return err;
}

static int nccl_log_import(const struct import_input *in, size_t n,
			   const struct import_options *o, struct trace *t,
			   struct import_notes *notes, struct diag *d)
{
	struct state s = { .in = in, .d = d };
	int err = 0;

	(void)o;
	memset(t, 0, sizeof(*t));
	for (s.file = 0; s.file < n && !err; s.file++)
		err = read_input(&s);
	if (!err)
		err = nlog_build(&s, t);
	if (!err)
		notes_of(&s, notes);
	if (err == -ENOMEM)
		diag_set(d, err, "%s: out of memory", in[0].name);
	if (err)
		trace_destroy(t);
	for (size_t i = 0; i < s.nprocs; i++)
		free(s.procs[i].tuned);
	free(s.procs);
	free(s.views);
	free(s.colls);
	free(s.recvs);
	free(s.recv_seq);
	free(s.stuck);
	free(s.slots);
	return err;
}

const struct importer_ops importer_nccl_log = {
	.name = "nccl-log",
	.what = "NCCL_DEBUG=INFO output (INIT, COLL, TUNING lines), one rank's or many",
	.import = nccl_log_import,
};
