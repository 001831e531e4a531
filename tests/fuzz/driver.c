/* Standalone driver for the fuzz targets (tests/fuzz/fuzz_*.c), so they
 * run without libFuzzer: under `make test` a bounded number of inputs,
 * under `make fuzz` (without clang) many more -- or the same target is
 * linked with clang's -fsanitize=fuzzer instead of this file.
 *
 * Order of a run:
 *   1. every file of tests/fuzz/regress/NAME/ (inputs that once crashed or
 *      hung: the regression replay) and of tests/fuzz/corpus/NAME/ (the
 *      seed corpus, also what libFuzzer starts from);
 *   2. the files given on the command line;
 *   3. ITERATIONS generated inputs: mutations (flip, set, insert, cut) of
 *      the target's built-in seeds and of the corpus files, and random bytes.
 * A crash, a sanitizer report or a target's abort() is the failure; a
 * generated input that kills the process is saved to fuzz-crash.bin.
 *
 *   test_fuzz_X [ITERATIONS] [FILE...]   (FUZZ_ITERS also sets ITERATIONS;
 *   FUZZ_DIR the directory holding regress/ and corpus/)
 *   test_fuzz_X --write-seeds DIR        (the built-in seeds as files, for
 *   the seed corpus tests/fuzz/corpus/X that libFuzzer starts from)
 */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "fuzz.h"

#ifndef FUZZ_SRCDIR
#define FUZZ_SRCDIR "tests/fuzz"
#endif

static uint64_t rng = 0x2545f4914f6cdd1dull;
static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static uint8_t buf[FUZZ_MAX_INPUT];

/* Inputs kept in memory: the corpus files, mutated like the seeds. */
static struct fuzz_seed *pool;
static size_t npool, cappool;

static void keep(const uint8_t *p, size_t n)
{
	if (npool == cappool) {
		size_t c = cappool ? 2 * cappool : 64;
		struct fuzz_seed *q = realloc(pool, c * sizeof *q);
		if (!q)
			return;
		pool = q;
		cappool = c;
	}
	uint8_t *d = malloc(n ? n : 1);
	if (!d)
		return;
	memcpy(d, p, n);
	pool[npool++] = (struct fuzz_seed){ d, n };
}

static int run_file(const char *path, int keep_it)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "%s: cannot open\n", path);
		return -1;
	}
	size_t n = fread(buf, 1, sizeof buf, f);
	fclose(f);
	if (keep_it)
		keep(buf, n);
	LLVMFuzzerTestOneInput(buf, n);
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file of dir/sub/NAME, in name order; the count run. */
static unsigned long run_dir(const char *dir, const char *sub, int keep_it)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s/%s", dir, sub, fuzz_name);
	DIR *d = opendir(path);
	if (!d)
		return 0;
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			char **q = realloc(names, cap * sizeof *q);
			if (!q)
				break;
			names = q;
		}
		names[n] = strdup(de->d_name);
		if (names[n])
			n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof *names, by_name);
	unsigned long done = 0;
	for (size_t i = 0; i < n; i++) {
		char file[8192];
		snprintf(file, sizeof file, "%s/%s", path, names[i]);
		if (run_file(file, keep_it) == 0)
			done++;
		free(names[i]);
	}
	free(names);
	return done;
}

/* The input running, written to fuzz-crash.bin only when the process
 * dies on it (a signal, abort(), a sanitizer report): writing it before
 * every input cost more than the input on a busy disk. */
static size_t cur_len;
static volatile sig_atomic_t generating;

static void save_now(void)
{
	if (!generating)
		return;
	int fd = open("fuzz-crash.bin", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd >= 0) {
		ssize_t w = write(fd, buf, cur_len);
		(void)w;
		close(fd);
	}
	generating = 0;
}

static void on_fatal(int sig)
{
	save_now();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Under ASan/UBSan the sanitizer reports a crash and then calls this. */
extern void __sanitizer_set_death_callback(void (*cb)(void)) __attribute__((weak));

static void save_setup(void)
{
	static const int sigs[] = { SIGABRT, SIGTERM, SIGINT, SIGALRM };
	static const int crash[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL };
	for (unsigned i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		signal(sigs[i], on_fatal);
	if (__sanitizer_set_death_callback)
		__sanitizer_set_death_callback(save_now);
	else /* no sanitizer: its own crash handlers are not there to keep */
		for (unsigned i = 0; i < sizeof crash / sizeof crash[0]; i++)
			signal(crash[i], on_fatal);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	unsigned long iters = fuzz_default_iters;
	const char *env = getenv("FUZZ_ITERS");
	if (env)
		iters = strtoul(env, NULL, 10);
	const char *dir = getenv("FUZZ_DIR");
	if (!dir || !*dir)
		dir = FUZZ_SRCDIR;
	int a = 1;
	if (argc == 3 && strcmp(argv[1], "--write-seeds") == 0) { /* the built-in seeds as files */
		size_t ns = 0;
		const struct fuzz_seed *sd = fuzz_seeds(&ns);
		for (size_t i = 0; i < ns; i++) {
			char path[4096];
			snprintf(path, sizeof path, "%s/seed-%02zu", argv[2], i);
			FILE *f = fopen(path, "wb");
			if (!f || fwrite(sd[i].data, 1, sd[i].len, f) != sd[i].len || fclose(f) != 0) {
				fprintf(stderr, "%s: cannot write\n", path);
				return 2;
			}
		}
		return 0;
	}
	if (argc > 1 && strspn(argv[1], "0123456789") == strlen(argv[1])) {
		iters = strtoul(argv[1], NULL, 10);
		a = 2;
	}
	save_setup();
	double t0 = now_s();
	unsigned long regress = run_dir(dir, "regress", 0);
	unsigned long corpus = run_dir(dir, "corpus", 1);
	unsigned long given = 0;
	for (; a < argc; a++) { /* given inputs (a crash file to replay) */
		if (run_file(argv[a], 0) < 0)
			return 2;
		given++;
	}
	size_t nseeds = 0;
	const struct fuzz_seed *seeds = fuzz_seeds(&nseeds);
	for (unsigned long i = 0; i < iters; i++) {
		size_t n;
		if (nseeds + npool && i % 4 != 3) { /* mutate a seed: flip, set, insert, cut */
			size_t k = next() % (nseeds + npool);
			const struct fuzz_seed *s = k < nseeds ? &seeds[k] : &pool[k - nseeds];
			n = s->len < sizeof buf ? s->len : sizeof buf;
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
		cur_len = n;
		generating = 1;
		LLVMFuzzerTestOneInput(buf, n);
		generating = 0;
	}
	for (size_t i = 0; i < npool; i++)
		free((void *)pool[i].data);
	free(pool);
	double t = now_s() - t0;
	unsigned long done = regress + corpus + given + iters;
	printf("%s: %lu passed, 0 failed (%lu regress, %lu corpus, %lu given, %lu generated; %.1f s, %.0f exec/s)\n",
	       fuzz_name, done, regress, corpus, given, iters, t, t > 0 ? done / t : 0.0);
	return 0;
}
