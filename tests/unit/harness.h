/* Minimal unit-test harness: CHECK macros that count, and a summary line
 * "N passed, N failed, N skipped" that tests/run.sh adds up.  No framework
 * to install. */
#ifndef TEST_HARNESS_H
#define TEST_HARNESS_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static unsigned t_pass, t_fail, t_skip;
static const char *t_name = "test";

#define CHECK(cond) do { \
	if (cond) { t_pass++; } else { t_fail++; \
		fprintf(stderr, "%s:%d: %s: CHECK failed: %s\n", __FILE__, __LINE__, t_name, #cond); } \
} while (0)

#define CHECK_EQ(a, b) do { \
	uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b); \
	if (a_ == b_) { t_pass++; } else { t_fail++; \
		fprintf(stderr, "%s:%d: %s: %s == %s failed: 0x%" PRIx64 " != 0x%" PRIx64 "\n", \
			__FILE__, __LINE__, t_name, #a, #b, a_, b_); } \
} while (0)

#define CHECK_STR(a, b) do { \
	const char *a_ = (a), *b_ = (b); \
	if (a_ && b_ && strcmp(a_, b_) == 0) { t_pass++; } else { t_fail++; \
		fprintf(stderr, "%s:%d: %s: %s == %s failed: \"%s\" != \"%s\"\n", \
			__FILE__, __LINE__, t_name, #a, #b, a_ ? a_ : "(null)", b_ ? b_ : "(null)"); } \
} while (0)

/* Call with 0 expected: prints the library's message on failure. */
#define CHECK_OK(expr, errp) do { \
	int r_ = (expr); \
	if (r_ == 0) { t_pass++; } else { t_fail++; \
		fprintf(stderr, "%s:%d: %s: %s returned %d: %s\n", __FILE__, __LINE__, t_name, \
			#expr, r_, (errp)->msg); } \
} while (0)

/* Checks that cannot run here (mknod refused, a backend not linked in):
 * one skip, never a pass, and the reason, printf-style. */
#define SKIP(...) do { \
	t_skip++; fprintf(stderr, "SKIP [%s] ", t_name); \
	fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); \
} while (0)

#define RUN(fn) do { t_name = #fn; fn(); } while (0)

static inline int t_summary(const char *suite)
{
	printf("%s: %u passed, %u failed, %u skipped\n", suite, t_pass, t_fail, t_skip);
	return t_fail ? 1 : 0;
}

/* Deterministic PRNG for round-trip tests (xorshift64*). */
static uint64_t t_rng_state = 0x9e3779b97f4a7c15ull;
static inline uint64_t t_rand(void)
{
	uint64_t x = t_rng_state;
	x ^= x >> 12; x ^= x << 25; x ^= x >> 27;
	t_rng_state = x;
	return x * 0x2545f4914f6cdd1dull;
}
static inline uint64_t t_bits(unsigned n) { return n >= 64 ? t_rand() : t_rand() & ((1ull << n) - 1); }

#endif
