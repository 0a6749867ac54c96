/* SPDX-License-Identifier: MIT */
/* The gdrlab command: one function per subcommand, each returning the
 * process exit status (0 ok, 1 runtime failure, 2 bad input or usage). */
#ifndef GDRLAB_CLI_H
#define GDRLAB_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "plan.h"
#include "topology.h"

enum { EXIT_RUNTIME = 1, EXIT_USAGE = 2 };

/* "gdrlab CMD: <message> (see 'gdrlab CMD --help')" on stderr; returns
 * EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* "gdrlab CMD: <message>" on stderr; returns @status. */
int cli_error(const char *cmd, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

struct diag;

/* Where an engine error came from, for its exit status. */
enum cli_stage {
	CLI_LOADING, /* reading the user's files: a missing or unreadable one
		      * is bad input too */
	CLI_RUNNING, /* planning, running, writing: only a bad value is */
};

/*
 * "gdrlab CMD: <message>" on stderr (the diag's, else strerror) and the
 * exit status of @err: EXIT_USAGE for the input's fault (-EINVAL, -ERANGE;
 * while loading also -ENOENT, -EACCES), else EXIT_RUNTIME. One mapping for
 * every command, so that a script sees the same status for the same fault.
 */
int cli_fail(const char *cmd, enum cli_stage stage, int err,
	     const struct diag *d);

/*
 * The output files @paths (NULL entries: not asked for) checked before a
 * command's run (output_file_check): a folder that is not there is said
 * at once, not after minutes of measuring. 0, or the exit status with the
 * message said.
 */
int cli_check_outputs(const char *cmd, const char *const *paths, size_t n);

/* A whole number in 1..@max: 0, or -EINVAL. */
int cli_parse_unsigned(const char *s, unsigned max, unsigned *out);

/*
 * A size on the command line, as nccl-tests' -b takes it (nccl_conv.h
 * nccl_parse_size): 8, 1K, 8M, 8G, powers of 1024, KB and KiB the same
 * (nccl-tests reads the letter alone), a space before the unit allowed
 * ('1 MiB', as a topology file writes it). 0, or -EINVAL when it is not
 * one, -ERANGE when it is over @max.
 */
int cli_parse_size(const char *s, uint64_t max, uint64_t *bytes);
#define CLI_SIZE_FORMS "8, 1K, 8M or 8G (powers of 1024; 8MB and 8MiB are 8M)"

/* What a shipped file is, by name (cli_shipped_file). */
enum cli_shipped {
	CLI_SHIPPED_TOPOLOGY, /* configs/NAME.yaml, configs/validation/NAME.yaml */
	CLI_SHIPPED_TRACE,    /* traces/NAME.jsonl */
};

/*
 * The file option @opt of @cmd names, @arg: @arg itself where it is a
 * file (or any path with a '/'), else a shipped one by that name in the
 * data folder (cli_data_dir: "-t h100-pcie5-400g", "-T resnet50-ddp"),
 * the extension optional. *@out is the file to read, valid for the
 * process. Returns 0, or the exit status after a one-line usage error
 * where a bare name is neither.
 */
int cli_shipped_file(const char *cmd, const char *opt, const char *arg,
		     enum cli_shipped kind, const char **out);

/* The same, into @out (@len bytes): 1 where a shipped file was found
 * there, 0 where @arg is to be read as it is, -ENOENT where a bare name
 * is neither (cli_shipped_error says so in @msg). */
int cli_shipped_lookup(const char *arg, enum cli_shipped kind, char *out, size_t len);
void cli_shipped_error(const char *opt, const char *arg, enum cli_shipped kind, char *msg,
		       size_t len);

/* validate's --tolerance PCT, above 0 and at most 1000: 0, or the exit
 * status after a one-line usage error of @cmd. */
int cli_parse_tolerance(const char *cmd, const char *arg, double *pct);

struct plan_options;

/* NCCL's knobs, long options only: NCCL_ALGO, NCCL_PROTO, the channel
 * count (NCCL_MIN/MAX_NCHANNELS), PXN (NCCL_PXN_DISABLE) and the release
 * whose tuner and constants apply. */
enum {
	CLI_OPT_ALGO = 256,
	CLI_OPT_PROTO,
	CLI_OPT_CHANNELS,
	CLI_OPT_PXN,
	CLI_OPT_P2P_LEVEL,
	CLI_OPT_NCCL,
	CLI_OPT_IB_GID_INDEX,
	CLI_OPT_IB_TC,
	CLI_OPT_IB_SL,
	CLI_OPT_IB_PORT,
	CLI_OPT_IB_RELAXED_ORDERING,
};
#define CLI_NCCL_LONGOPTS                                                     \
	{ "algo", required_argument, NULL, CLI_OPT_ALGO },                    \
	{ "proto", required_argument, NULL, CLI_OPT_PROTO },                  \
	{ "channels", required_argument, NULL, CLI_OPT_CHANNELS },            \
	{ "pxn", required_argument, NULL, CLI_OPT_PXN },                      \
	{ "p2p-level", required_argument, NULL, CLI_OPT_P2P_LEVEL },          \
	{ "nccl", required_argument, NULL, CLI_OPT_NCCL },
/* Their lines of --help. */
extern const char cli_nccl_usage[];

/* How emu and real address the fabric, long options only: each sets the
 * variable the ranks read (emu/ib_config.h), which they inherit. */
#define CLI_IB_LONGOPTS                                                       \
	{ "ib-gid-index", required_argument, NULL, CLI_OPT_IB_GID_INDEX },    \
	{ "ib-tc", required_argument, NULL, CLI_OPT_IB_TC },                  \
	{ "ib-sl", required_argument, NULL, CLI_OPT_IB_SL },                  \
	{ "ib-port", required_argument, NULL, CLI_OPT_IB_PORT },              \
	{ "ib-relaxed-ordering", required_argument, NULL, CLI_OPT_IB_RELAXED_ORDERING },
extern const char cli_ib_usage[];

/*
 * The options of a run that several commands take alike (run, compare,
 * validate, busbw; each lists those it takes in its getopt table): -n/--nodes, -p/--path, -g/--gdr-level, --chunk ('C'),
 * --buffers ('B'), --devices ('D', which sets GDRLAB_EMU_DEVICES for the
 * ranks to inherit), CLI_NCCL_LONGOPTS and CLI_IB_LONGOPTS; getopt's ':' (a value
 * missing) and anything else is an unknown option. 0 when @c was handled, else the exit status after a
 * one-line usage error. The default case of a command's getopt loop.
 */
int cli_plan_option(const char *cmd, int c, const char *arg, char *const *argv,
		    struct plan_options *o);

/*
 * --set PATH=VALUE (run, compare, busbw, validate --nccl-tests): a value
 * of the topology file replaced by its dotted path, as a sweep plan's
 * axis does (engine/yaml_override.c); at most CLI_MAX_SETS of them.
 */
#define CLI_MAX_SETS 8
struct cli_sets {
	struct topo_override v[CLI_MAX_SETS];
	unsigned n;
};
/* One more --set @arg into @s: 0, or the exit status after a one-line
 * usage error of @cmd. */
int cli_set_option(const char *cmd, const char *arg, struct cli_sets *s);
/* Its lines of --help. */
extern const char cli_set_usage[];
/* The values as "topology_set": {path: value} in @doc (nothing when
 * none): what the topology file was read with. 0 or -ENOMEM. */
struct json_t;
int cli_sets_json(struct json_t *doc, const struct cli_sets *s);
/* "@prefix--set PATH=VALUE, PATH=VALUE" and a newline on @out (nothing
 * when none): a table's header line of what was set. */
void cli_sets_print(FILE *out, const char *prefix, const struct cli_sets *s);
/*
 * --chunk, --buffers and each --set that nothing a run of @path computes
 * reads (plan_set_unread: the timing backends copy NCCL's slices, not
 * emu's and real's own ring's chunks; only staged-memcpy has bounce
 * buffers): "gdrlab @cmd: note: ... changes nothing here: why" on stderr,
 * a line each, so that every command that takes them says it alike; and
 * a GDR level the release does not know (plan_options_gdr_level_unknown:
 * -g p2c before 2.27), which the run takes as NCCL does, at its default.
 * @own_ring: the backend runs gdrlab's own ring (emu, real).
 */
void cli_note_unread(const char *cmd, const struct plan_options *o, const struct cli_sets *sets,
		     enum plan_path path, bool own_ring);

struct backend_ops;
/* The built backend called @name, or NULL after a one-line error that
 * says why (absent from this build, with the reason, or unknown);
 * @opt (may be NULL) names the option it came from. */
const struct backend_ops *cli_find_backend(const char *cmd, const char *opt,
					   const char *name);

int cmd_run(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_backends(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_busbw(int argc, char **argv);
int cmd_import(int argc, char **argv);
/* validate's help, both modes, on stdout; returns 0. */
int cmd_validate_help(void);
/* validate --nccl-tests FILE (validate_nccl_tests.c), the mode chosen by
 * that option anywhere before "--"; its part of validate's help is a
 * printf format that takes cli_nccl_usage. */
bool validate_nccl_tests_wanted(int argc, char **argv);
int validate_nccl_tests(int argc, char **argv);
extern const char validate_nccl_tests_usage[];
int cmd_default(void);

/* Where configs/, traces/ and scenarios/ are: $GDRLAB_DATA_DIR, else the
 * source tree this binary was built from. */
const char *cli_data_dir(void);

/* Progress on stderr for runs that take more than about a second; silent
 * with --quiet and when stderr is not a terminal. */
struct progress {
	bool enabled;
	bool shown;
	double t0, last;
	const char *label;
	const char *unit;  /* what is counted: "collectives" (the default), "points" */
};

void progress_init(struct progress *p, const char *label, bool quiet);
void progress_update(void *ctx, size_t done, size_t total);
void progress_done(struct progress *p);

/* A JSON file gdrlab wrote (report, plot): NULL with "FILE:LINE: what"
 * in @d, or "FILE: cannot read: why" for a directory or a missing file. */
struct json_t *cli_load_json(const char *path, struct diag *d);

/* A usage error (its message printed, 1 returned) where two of the @n
 * outputs @vals (named @opts) are "-": both on stdout would be one
 * document run into another. */
int cli_stdout_twice(const char *cmd, const char *const *vals, const char *const *opts,
		     unsigned n);

#endif
