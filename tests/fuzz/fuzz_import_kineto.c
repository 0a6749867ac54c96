/* SPDX-License-Identifier: MIT */
/* libFuzzer target for the kineto importer (plain and gzip) (fuzz_import.h). */
#include "fuzz_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_importer(&importer_kineto, data, size);
	return 0;
}
