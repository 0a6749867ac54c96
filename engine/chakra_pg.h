/* SPDX-License-Identifier: MIT */
/*
 * chakra_pg: the process groups a Chakra trace lists, from the
 * METADATA_NODE "## process_group:init ##" that PyTorch's execution trace
 * records (torch/profiler/profiler.py, ExecutionTraceObserver.
 * _record_pg_config) and Chakra's converter keeps: its inputs.values is
 * Python's str() of the record's one argument, the JSON of
 * _World.pg_config_info (torch/distributed/distributed_c10d.py):
 *
 *   ['[{"pg_name": "0", "pg_desc": "default_pg", "backend_config": "cuda:nccl",
 *       "ranks": [], "group_size": 4, "group_count": 3}, ...]']
 *
 * where "ranks" is empty when the group is every rank (then group_size is
 * the world's). The JSON alone, or in a JSON list of one, is read too.
 */
#ifndef GDRLAB_CHAKRA_PG_H
#define GDRLAB_CHAKRA_PG_H

#include <stddef.h>

#include "import_calls.h"

#define CHAKRA_PG_NAME_MAX 64

struct chakra_pg {
	char name[CHAKRA_PG_NAME_MAX];
	unsigned group; /* in the import_calls' groups */
	unsigned size;
};

struct chakra_pgs {
	struct chakra_pg *pg;
	size_t n, cap;
	unsigned world; /* the size of a group listed as every rank; 0 none */
};

/*
 * The groups in @text into @pgs (their ranks kept in @calls). 0; -EINVAL
 * with @why saying what is wrong; or -ENOMEM with the calls' diag set.
 */
int chakra_pgs_parse(struct chakra_pgs *pgs, struct import_calls *calls, const char *text,
		     char *why, size_t nwhy, const char *file);
const struct chakra_pg *chakra_pgs_find(const struct chakra_pgs *pgs, const char *name);
/* *@world (0: not known yet) and --world @given checked against the
 * file's default group; 0, or -EINVAL with @d. */
int chakra_pgs_world(const struct chakra_pgs *pgs, unsigned *world, unsigned given,
		     const char *file, struct diag *d);
void chakra_pgs_clear(struct chakra_pgs *pgs); /* for the next file */
void chakra_pgs_free(struct chakra_pgs *pgs);

#endif
