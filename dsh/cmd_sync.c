/* dsh: the synchronisation commands -- barrier, signal RANK, waitfor RANK --
 * over ranks.c's ranks, barrier and signals: arguments and printing only. */
#include <inttypes.h>
#include <string.h>
#include "dsh.h"
#include "sigtime.h"

static int sync_timeout(struct dsh *d, struct dsh_args *a, int start, uint64_t *ns)
{
	*ns = DSH_SYNC_TIMEOUT_NS;
	for (int i = start; i < a->argc; i++) {
		if (strncmp(a->argv[i], "timeout=", 8) != 0)
			return dsh_error(d, "argument %d: unexpected '%s' (timeout=DURATION)", i, a->argv[i]);
		if (dsh_dur_str(d, a->argv[i] + 8, "timeout", ns) < 0)
			return -1;
	}
	return 0;
}

static int rank_arg(struct dsh *d, struct dsh_args *a, unsigned *r)
{
	uint64_t v;
	if (a->argc < 2)
		return dsh_error(d, "usage: %s RANK [timeout=DURATION]", a->argv[0]);
	if (dsh_num(d, a, 1, UINT32_MAX, "rank", &v) < 0)
		return -1;
	if (v >= d->ranks.size)
		return dsh_error(d, "argument 1: rank %" PRIu64 " out of range (0..%u; this run has %u rank%s)",
				 v, d->ranks.size - 1, d->ranks.size, d->ranks.size == 1 ? "" : "s");
	if (v == d->ranks.rank)
		return dsh_error(d, "argument 1: rank %" PRIu64 " is this rank", v);
	*r = (unsigned)v;
	return 0;
}

int cmd_barrier(struct dsh *d, struct dsh_args *a)
{
	d->ranks.sync_used = true; /* even a bad argument list reserves the area, as before */
	uint64_t tmo;
	if (sync_timeout(d, a, 1, &tmo) < 0)
		return -1;
	uint64_t t0 = dsh_mono_ns();
	uint32_t gen;
	unsigned rounds;
	if (dsh_barrier(d, tmo, &gen, &rounds) < 0)
		return -1;
	out_u64(d, "generation", NULL, gen);
	out_u64(d, "rounds", NULL, rounds);
	out_u64(d, "elapsed_ns", NULL, dsh_mono_ns() - t0);
	return 0;
}

int cmd_signal(struct dsh *d, struct dsh_args *a)
{
	d->ranks.sync_used = true; /* even a bad argument list reserves the area, as before */
	unsigned r;
	uint64_t tmo;
	uint32_t n;
	if (rank_arg(d, a, &r) < 0 || sync_timeout(d, a, 2, &tmo) < 0 || dsh_signal(d, r, tmo, &n) < 0)
		return -1;
	out_u64(d, "rank", NULL, r);
	out_u64(d, "count", NULL, n);
	return 0;
}

int cmd_waitfor(struct dsh *d, struct dsh_args *a)
{
	d->ranks.sync_used = true; /* even a bad argument list reserves the area, as before */
	unsigned r;
	uint64_t tmo;
	uint32_t n;
	if (rank_arg(d, a, &r) < 0 || sync_timeout(d, a, 2, &tmo) < 0)
		return -1;
	uint64_t t0 = dsh_mono_ns();
	if (dsh_waitfor(d, r, tmo, &n) < 0)
		return -1;
	out_u64(d, "rank", NULL, r);
	out_u64(d, "count", NULL, n);
	out_u64(d, "elapsed_ns", NULL, dsh_mono_ns() - t0);
	return 0;
}
