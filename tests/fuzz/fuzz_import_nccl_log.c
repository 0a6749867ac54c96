/* SPDX-License-Identifier: MIT */
/* libFuzzer target for the nccl-log importer (fuzz_import.h). */
#include "fuzz_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_importer(&importer_nccl_log, data, size);
	return 0;
}
