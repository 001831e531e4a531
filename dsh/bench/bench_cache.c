/* dsh bench: which lines of a host copy's destination are in the L2 cache
 * when the copy writes them (decision D-BENCH-L2, docs/timing-model.md).
 *
 * The thesis explains E6/E7's "SO-DIMM to Host" curves by the destination
 * being write-back memory that "presses on the cache as the receive area
 * grows, so the hit rate falls" (§6.3.2), while a fixed 64-byte area shows
 * no drop.  The mechanism, from Tab. 6.1's host: a physically indexed L2 of
 * host_l2_bytes with host_l2_ways ways, and Linux 2.4 placing the
 * destination's pages at random physical addresses.  A page then falls in
 * one of C = L2 / (ways x page) "colours" (the sets its lines map to); the
 * ping-pong writes the whole destination once per message, in order, so in
 * a colour holding more pages than it has ways LRU keeps none of them (a
 * cyclic access larger than the set misses every time), and in the others
 * every line hits.  The Prefetch Window's 2 KB, prefetched into L2 before
 * each copy, take one way in the sets of its own half page.
 *
 * The fraction of destination lines that hit, averaged over where the
 * pages land: a given page shares its colour with j ~ Binomial(P - 1, 1/C)
 * of the P - 1 other pages and hits when 1 + j <= ways (ways - 1 in the
 * sets the Prefetch Window's lines take).
 */
#include <math.h>
#include "bench_host.h"

/* P(j <= k) for j ~ Binomial(n, p). */
static double binom_cdf(uint64_t n, double p, int64_t k)
{
	if (k < 0)
		return 0;
	if ((uint64_t)k >= n)
		return 1;
	double term = pow(1 - p, (double)n), sum = term; /* P(j = 0) */
	for (int64_t j = 1; j <= k; j++) {
		term *= (double)(n - (uint64_t)j + 1) / (double)j * p / (1 - p);
		sum += term;
	}
	return sum > 1 ? 1 : sum;
}

double bench_l2_hit_fraction(uint64_t footprint, uint64_t l2_bytes, uint64_t ways, uint64_t page,
			     uint64_t pw_bytes)
{
	uint64_t pages = (footprint + page - 1) / page;
	uint64_t colours = l2_bytes / (ways * page);
	if (pages <= 1 || colours == 0)
		return colours == 0 && pages > ways ? 0 : 1;
	double p = 1.0 / (double)colours;
	double full = binom_cdf(pages - 1, p, (int64_t)ways - 1);     /* a page with all its ways */
	double less = binom_cdf(pages - 1, p, (int64_t)ways - 2);     /* one way taken by the PW */
	double pw_share = (double)(pw_bytes < page ? pw_bytes : page) / (double)page;
	/* A page in the PW's colour (probability p): pw_share of its lines
	 * see one way fewer. */
	return full - p * pw_share * (full - less);
}
