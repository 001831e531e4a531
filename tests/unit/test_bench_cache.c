/* dsh bench's host cache model (dsh/bench/bench_cache.c, decision D-BENCH-L2),
 * linked in, against an independent oracle: a simulated physically
 * indexed, set-associative LRU cache into which a destination of P pages,
 * each placed at a random physical page, is written whole message after
 * message, with the Prefetch Window's 2 KB filled into it before each
 * copy.  The share of destination lines that hit in the steady state,
 * averaged over many placements, must match the closed form. */
#include "bench/bench_host.h"
#include <stdlib.h>
#include <string.h>
#include "harness.h"

#define LINE 64u

struct cache {
	unsigned sets, ways;
	uint64_t *tag;     /* sets x ways, UINT64_MAX: empty */
	uint64_t *stamp;   /* last use, for LRU */
	uint64_t clock;
};

static void cache_init(struct cache *c, uint64_t bytes, unsigned ways)
{
	c->ways = ways;
	c->sets = (unsigned)(bytes / LINE / ways);
	c->tag = malloc(sizeof *c->tag * c->sets * ways);
	c->stamp = calloc((size_t)c->sets * ways, sizeof *c->stamp);
	memset(c->tag, 0xff, sizeof *c->tag * c->sets * ways);
	c->clock = 0;
}

/* Touch the line at physical address pa: true on a hit. */
static bool cache_touch(struct cache *c, uint64_t pa)
{
	uint64_t line = pa / LINE;
	unsigned set = (unsigned)(line % c->sets);
	uint64_t *t = c->tag + (size_t)set * c->ways, *s = c->stamp + (size_t)set * c->ways;
	unsigned victim = 0;
	for (unsigned w = 0; w < c->ways; w++) {
		if (t[w] == line) {
			s[w] = ++c->clock;
			return true;
		}
		if (s[w] < s[victim])
			victim = w;
	}
	t[victim] = line;
	s[victim] = ++c->clock;
	return false;
}

static void cache_flush(struct cache *c, uint64_t pa)
{
	uint64_t line = pa / LINE;
	unsigned set = (unsigned)(line % c->sets);
	for (unsigned w = 0; w < c->ways; w++)
		if (c->tag[(size_t)set * c->ways + w] == line) {
			c->tag[(size_t)set * c->ways + w] = UINT64_MAX;
			c->stamp[(size_t)set * c->ways + w] = 0;
		}
}

/* The oracle: the share of destination lines that hit in the third
 * message, averaged over `trials` random placements. */
static double simulate(uint64_t footprint, uint64_t l2, unsigned ways, uint64_t page, unsigned trials)
{
	uint64_t pages = (footprint + page - 1) / page;
	uint64_t frames = 1u << 16; /* 256 MB of physical pages to draw from */
	uint64_t *frame = malloc(sizeof *frame * pages);
	double sum = 0;
	for (unsigned tr = 0; tr < trials; tr++) {
		struct cache c;
		cache_init(&c, l2, ways);
		for (uint64_t i = 0; i < pages; i++) {
			bool again;
			do { /* distinct frames */
				frame[i] = t_rand() % frames;
				again = false;
				for (uint64_t j = 0; j < i; j++)
					again |= frame[j] == frame[i];
			} while (again);
		}
		/* The Prefetch Window: 2 KB of the device at a page of its own. */
		uint64_t pw = (frames + t_rand() % frames) * page;
		uint64_t hits = 0, lines = 0;
		for (unsigned msg = 0; msg < 3; msg++) {
			for (uint64_t a = 0; a < 2048; a += LINE)
				cache_touch(&c, pw + a);
			for (uint64_t off = 0; off < footprint; off += LINE) {
				bool hit = cache_touch(&c, frame[off / page] * page + off % page);
				if (msg == 2) {
					hits += hit;
					lines++;
				}
			}
			for (uint64_t a = 0; a < 2048; a += LINE)
				cache_flush(&c, pw + a);
		}
		sum += (double)hits / (double)lines;
		free(c.tag);
		free(c.stamp);
	}
	free(frame);
	return sum / trials;
}

static void test_small_destinations_hit(void)
{
	/* A 64-byte area, a page, and anything that cannot overflow a set. */
	CHECK(bench_l2_hit_fraction(64, 512u << 10, 8, 4096, 2048) == 1);
	CHECK(bench_l2_hit_fraction(4096, 512u << 10, 8, 4096, 2048) == 1);
	CHECK(bench_l2_hit_fraction(7 * 4096, 512u << 10, 8, 4096, 2048) == 1);
}

static void test_against_simulated_lru(void)
{
	static const uint64_t kb[] = { 64, 128, 256, 384, 512, 768, 1024 };
	for (size_t i = 0; i < sizeof kb / sizeof kb[0]; i++) {
		double model = bench_l2_hit_fraction(kb[i] << 10, 512u << 10, 8, 4096, 2048);
		double sim = simulate(kb[i] << 10, 512u << 10, 8, 4096, 300);
		if (getenv("SHOW") || model - sim > 0.03 || sim - model > 0.03)
			printf("  %llu KB: model %.4f, simulated LRU %.4f\n", (unsigned long long)kb[i], model, sim);
		CHECK(model - sim <= 0.03 && sim - model <= 0.03);
	}
}

static void test_falls_with_size(void)
{
	/* The thesis's account (§6.3.2): the hit rate falls as the destination
	 * grows, well before it reaches the L2's size, and nearly all misses
	 * at twice that. */
	double prev = 1.1;
	for (uint64_t kb = 64; kb <= 1024; kb += 64) {
		double h = bench_l2_hit_fraction(kb << 10, 512u << 10, 8, 4096, 2048);
		CHECK(h <= prev);
		prev = h;
	}
	CHECK(bench_l2_hit_fraction(384u << 10, 512u << 10, 8, 4096, 2048) < 0.9);
	CHECK(bench_l2_hit_fraction(1024u << 10, 512u << 10, 8, 4096, 2048) < 0.05);
	/* A direct-mapped cache of the same size thrashes sooner. */
	CHECK(bench_l2_hit_fraction(128u << 10, 512u << 10, 1, 4096, 0) <
	      bench_l2_hit_fraction(128u << 10, 512u << 10, 8, 4096, 0));
}

int main(void)
{
	RUN(test_small_destinations_hit);
	RUN(test_against_simulated_lru);
	RUN(test_falls_with_size);
	return t_summary("bench_cache");
}
