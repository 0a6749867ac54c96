/* SPDX-License-Identifier: MIT */
/*
 * nccl_tests_noise: what a job's output carries besides nccl-tests' own
 * lines, for the text reader (nccl_tests_text.c) to see through:
 *
 *  - a launcher's prefix on every line: Open MPI's --tag-output
 *    ("[1,0]<stdout>:"), MPICH's and Intel MPI's -prepend-rank ("[0] "),
 *    Slurm's srun -l / --label (" 0: ");
 *  - NCCL's own log (NCCL_DEBUG=INFO or WARN) on the same stdout:
 *    "HOST:PID:TID [DEV] NCCL INFO ...", one line each, but glued to the
 *    end of a row's first cells where it came while nccl-tests timed a
 *    size (src/common.cu prints a row's size .. root, then each half's
 *    cells, as it goes, with no newline between).
 */
#ifndef GDRLAB_NCCL_TESTS_NOISE_H
#define GDRLAB_NCCL_TESTS_NOISE_H

#include <stdbool.h>
#include <stddef.h>

/* The length of the launcher's prefix that @s (@len bytes) starts with,
 * 0 where it has none. */
size_t nt_launcher_prefix(const char *s, size_t len);

/* The hosts whose NCCL log lines were seen whole, so that one glued to
 * a row's cells is told apart from the cell before it. */
#define NT_LOG_HOSTS 8
#define NT_LOG_HOST_MAX 64
struct nt_log_hosts {
	char name[NT_LOG_HOSTS][NT_LOG_HOST_MAX];
	unsigned n;
};

/* Whether @s is a line of NCCL's log from its start; its host is then
 * kept in @hosts. */
bool nt_log_line(const char *s, size_t len, struct nt_log_hosts *hosts);

/*
 * Where a line of NCCL's log starts inside @s, glued to what was written
 * before it on the line: its offset, or @len where there is none. The
 * host is one of @hosts, or else what follows the cell before it (a
 * number, or N/A).
 */
size_t nt_glued_log(const char *s, size_t len, const struct nt_log_hosts *hosts);

#endif
