/* Standalone driver for the fuzz targets (tests/fuzz/fuzz_*.c), so they
 * run without libFuzzer: under `make test` a bounded number of inputs
 * (random bytes and mutations of the target's seeds), under `make fuzz`
 * many more -- or the same target is linked with clang's -fsanitize=fuzzer
 * instead of this file.  A crash, a sanitizer report or a target's abort()
 * is the failure; the last input is saved to fuzz-crash.bin first.
 *
 *   test_fuzz_X [ITERATIONS] [FILE...]   (FUZZ_ITERS also sets ITERATIONS)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz.h"

static uint64_t rng = 0x2545f4914f6cdd1dull;
static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static uint8_t buf[FUZZ_MAX_INPUT];

static void save(size_t n)
{
	FILE *f = fopen("fuzz-crash.bin", "wb");
	if (f) {
		fwrite(buf, 1, n, f);
		fclose(f);
	}
}

int main(int argc, char **argv)
{
	unsigned long iters = 3000;
	const char *env = getenv("FUZZ_ITERS");
	if (env)
		iters = strtoul(env, NULL, 10);
	int a = 1;
	if (argc > 1 && strspn(argv[1], "0123456789") == strlen(argv[1])) {
		iters = strtoul(argv[1], NULL, 10);
		a = 2;
	}
	unsigned long done = 0;
	for (; a < argc; a++) { /* given inputs (a crash file to replay) */
		FILE *f = fopen(argv[a], "rb");
		if (!f) {
			fprintf(stderr, "%s: cannot open\n", argv[a]);
			return 2;
		}
		size_t n = fread(buf, 1, sizeof buf, f);
		fclose(f);
		LLVMFuzzerTestOneInput(buf, n);
		done++;
	}
	size_t nseeds = 0;
	const struct fuzz_seed *seeds = fuzz_seeds(&nseeds);
	for (unsigned long i = 0; i < iters; i++) {
		size_t n;
		if (nseeds && i % 4 != 3) { /* mutate a seed: flip, set, insert, cut */
			const struct fuzz_seed *s = &seeds[next() % nseeds];
			n = s->len;
			memcpy(buf, s->data, n);
			for (unsigned m = 1 + next() % 4; m; m--) {
				uint64_t r = next();
				size_t at = n ? r % n : 0;
				switch ((r >> 32) % 4) {
				case 0: if (n) buf[at] ^= (uint8_t)(1u << (r >> 40 & 7)); break;
				case 1: if (n) buf[at] = (uint8_t)(r >> 48); break;
				case 2: if (n < sizeof buf) { memmove(buf + at + 1, buf + at, n - at); buf[at] = (uint8_t)(r >> 48); n++; } break;
				default: n = at; break;
				}
			}
		} else { /* random bytes */
			n = next() % 256;
			for (size_t k = 0; k < n; k++)
				buf[k] = (uint8_t)next();
		}
		save(n);
		LLVMFuzzerTestOneInput(buf, n);
		done++;
	}
	remove("fuzz-crash.bin");
	printf("%s: %lu passed, 0 failed\n", fuzz_name, done);
	return 0;
}
