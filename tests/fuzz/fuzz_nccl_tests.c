/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the nccl-tests reader, text and JSON: any input
 * must either load or fail with one line that has no control bytes in it,
 * never crash or leak, and leave the file empty on failure; what loads
 * must keep the promises of nccl_tests.h.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nccl_tests.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_loaded(const struct nccl_tests_file *f)
{
	size_t i;

	if (!f->nrows || !f->rows || f->nrows > NCCL_TESTS_ROWS_MAX)
		abort();
	if (f->nhosts > f->nranks || (f->nranks && !f->nhosts))
		abort();
	for (i = 0; i < f->nrows; i++) {
		const struct nccl_tests_row *r = &f->rows[i];

		if (!r->size || (i && r->size <= f->rows[i - 1].size))
			abort();
		if (strcmp(r->type, f->rows[0].type) ||
		    strcmp(r->redop, f->rows[0].redop) ||
		    r->root != f->rows[0].root)
			abort(); /* one series per file */
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct nccl_tests_file zero;
	struct nccl_tests_file f;
	struct diag d;
	size_t i;

	d.msg[0] = '\0';
	if (nccl_tests_load_buffer((const char *)data, size, "fuzz", &f, &d)) {
		if (!d.msg[0] || memcmp(&f, &zero, sizeof(f)))
			abort();
		for (i = 0; d.msg[i]; i++)
			if ((unsigned char)d.msg[i] < 0x20 || d.msg[i] == 0x7f)
				abort();
		return 0;
	}
	check_loaded(&f);
	nccl_tests_destroy(&f);
	return 0;
}
