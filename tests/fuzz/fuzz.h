/* Fuzz targets: libFuzzer's entry point plus seeds for the standalone
 * driver (driver.c). */
#ifndef FUZZ_H
#define FUZZ_H
#include <stddef.h>
#include <stdint.h>

#define FUZZ_MAX_INPUT 4096

struct fuzz_seed {
	const uint8_t *data;
	size_t len;
};
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const struct fuzz_seed *fuzz_seeds(size_t *n);
extern const char fuzz_name[];
#endif
