/* SPDX-License-Identifier: MIT */
/*
 * cmd_gen: the "gdrlab gen" subcommand, which writes synthetic traces
 * (docs/trace-format.md): "ddp" (cmd_gen.c) and "llm" (cmd_gen_llm.c).
 */
#ifndef GDRLAB_CMD_GEN_H
#define GDRLAB_CMD_GEN_H

/*
 * argv[0] is "gen". Returns the process exit status: 0 done, 2 bad usage or
 * input, 1 a failure at run time (memory, writing the output). Errors are
 * one line on stderr, prefixed "gdrlab gen: ".
 */
int cmd_gen(int argc, char **argv);
/* "gen llm": argv[0] is "llm"; the same statuses. */
int cmd_gen_llm(int argc, char **argv);

#endif
