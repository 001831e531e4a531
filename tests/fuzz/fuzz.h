/* Fuzz targets: libFuzzer's entry point plus seeds and a default input
 * count for the standalone driver (driver.c). */
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
/* Generated inputs of a make-test run (FUZZ_ITERS or an argument
 * overrides): sized so that every target takes a second or two. */
extern const unsigned long fuzz_default_iters;
#endif
