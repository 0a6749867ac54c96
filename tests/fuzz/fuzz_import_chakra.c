/* SPDX-License-Identifier: MIT */
/* libFuzzer target for the chakra importer (fuzz_import.h): the files are
 * named as Chakra names a rank's, so that two of them merge. */
#include "fuzz_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[2] = { "job.0.et", "job.1.et" };

	fuzz_importer_named(&importer_chakra, data, size, names);
	return 0;
}
