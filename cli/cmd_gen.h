/* SPDX-License-Identifier: MIT */
/*
 * cmd_gen: the "gdrlab gen" subcommand, which writes synthetic traces
 * (docs/trace-format.md): "ddp" (cmd_gen.c) and "llm" (cmd_gen_llm.c).
 */
#ifndef GDRLAB_CMD_GEN_H
#define GDRLAB_CMD_GEN_H

#include <stdbool.h>

#include "diag.h"
#include "gen_llm.h"

/*
 * argv[0] is "gen". Returns the process exit status: 0 done, 2 bad usage or
 * input, 1 a failure at run time (memory, writing the output). Errors are
 * one line on stderr, prefixed "gdrlab gen: ".
 */
int cmd_gen(int argc, char **argv);
/* "gen llm": argv[0] is "llm"; the same statuses. */
int cmd_gen_llm(int argc, char **argv);

/*
 * gen llm's options one at a time, as a sweep plan's `gen` gives them:
 * init, then set each by its long name ("tp", "micro-batches") and value
 * (NULL, "true" or "false" for a flag such as "sequence-parallel"), then
 * finish (the model looked up, its sequence length unless given). set
 * and finish return 0, or EXIT_USAGE with the reason in @d.
 */
struct gen_llm_args {
	char model[64];
	bool seq_set;
	bool cp_comm_set; /* --cp-comm-type given */
	struct gen_llm_options o;
};
void gen_llm_args_init(struct gen_llm_args *a);
int gen_llm_set(struct gen_llm_args *a, const char *name, const char *value, struct diag *d);
int gen_llm_finish(struct gen_llm_args *a, struct diag *d);

#endif
