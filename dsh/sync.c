/* dsh: ranks and synchronisation through the device itself -- the
 * barrier, signals between ranks (the commands: cmd_sync.c) -- as a bring-up engineer tests it: remote LLCM
 * stores (RVS packets with lflag = 1, sent by BOTF from Write Window 3) into
 * flag words of the peers, each rank polling its own LLCM.
 *
 * Rank and size come from dsh-run (DSH_RANK, DSH_SIZE) or from the launcher
 * that started dsh: Open MPI (OMPI_COMM_WORLD_RANK/SIZE), MPICH and other
 * PMI launchers (PMI_RANK/PMI_SIZE), PMIx (PMIX_RANK), Slurm's srun
 * (SLURM_PROCID/SLURM_NTASKS).  Rank r drives node (CLID) r + 1 with the
 * shell's WID unless DSH_RANKMAP ("CLID:WID,..." one per rank) says
 * otherwise.
 *
 * The flag area, 4 KB of the LLCM of every process at A (0x7000 unless
 * 'set sync_area A'), is reserved where ranks synchronise (a run of more
 * than one rank, or once barrier, signal or waitfor ran: D-SYNC-AREA):
 * dsh's own writes into it (llcm_write, rllcm_write, amt, poke) are then
 * refused unless 'force', and the messaging layer's AMT keeps out of it.
 *   A + 8k        barrier round k (k < 9 for 480 ranks)
 *   A + 0xf8      rank 0's offer and answer to this rank (joining, below)
 *   A + 0x100 + 8s  signals from rank s (s < DSH_SYNC_MAX_RANKS); in rank
 *                 0's area first rank s's request to join
 *
 * Decision D-SYNC-RUN: a flag word holds {generation [63:32], count
 * [31:0]}, the generation a fresh random number rank 0 draws for its run.
 * A rank learns it by joining, at its first barrier, signal or waitfor:
 *   1. rank 0 opens the run: it draws the generation G and writes the
 *      offer {run id, G} into the open word of every other rank;
 *   2. rank r answers an offer of its run id with a request {N, G} into
 *      rank 0's signal word for r, N a fresh random nonce of its own;
 *   3. rank 0 admits a request that names its G (proof that rank r is
 *      alive in this run) with the answer {N, G} into rank r's open word;
 *      rank r joins when its open word holds its own N (proof that the
 *      answer is fresh: nothing of an earlier run can carry N).
 * Rank 0's first barrier/signal/waitfor waits until every rank has joined;
 * the others' until rank 0 has answered them.  So flags of an earlier run
 * (another G) never satisfy a wait: with no launcher and no DSH_RUN_ID (run
 * id 1), with a run id used twice, or a rank started alone.  The run id
 * (DSH_RUN_ID, else the launcher's job id) only keeps ranks of different
 * jobs from answering each other's offers.  No rank clears the area.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>
#include "dsh.h"
#include "sigtime.h"

#define SYNC_WW 3u                  /* Write Window the flag packets are built in */

static bool env_u64(const char *name, uint64_t max, uint64_t *v)
{
	const char *s = getenv(name);
	return s && *s && dnet_parse_u64(s, max, v, name, NULL) == 0;
}

/* 32-bit FNV-1a of a launcher's job identifier: the run id of every rank. */
static uint32_t hash32(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h ? h : 1;
}

int dsh_sync_init(struct dsh *d, char *err, size_t errlen)
{
	static const struct { const char *rank, *size; } src[] = {
		{ "DSH_RANK", "DSH_SIZE" },
		{ "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE" },
		{ "PMIX_RANK", "OMPI_COMM_WORLD_SIZE" },
		{ "PMI_RANK", "PMI_SIZE" },
		{ "SLURM_PROCID", "SLURM_NTASKS" },
	};
	d->rank = 0;
	d->size = 1;
	for (size_t i = 0; i < sizeof src / sizeof src[0]; i++) {
		uint64_t r, n;
		if (!env_u64(src[i].rank, DSH_SYNC_MAX_RANKS, &r))
			continue;
		if (!env_u64(src[i].size, DSH_SYNC_MAX_RANKS, &n) || n == 0 || r >= n) {
			snprintf(err, errlen, "%s=%s needs %s (1..%d) above it", src[i].rank, getenv(src[i].rank),
				 src[i].size, DSH_SYNC_MAX_RANKS);
			return -1;
		}
		d->rank = (unsigned)r;
		d->size = (unsigned)n;
		d->rank_from = src[i].rank;
		break;
	}
	/* The run id: given by dsh-run, else the launcher's job identity. */
	static const char *const ids[] = { "DSH_RUN_ID", "PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid",
					   "PMI_JOBID", "SLURM_JOB_ID" };
	d->run_id = 1;
	for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
		const char *v = getenv(ids[i]);
		if (v && *v) {
			char buf[160];
			const char *step = strcmp(ids[i], "SLURM_JOB_ID") == 0 ? getenv("SLURM_STEP_ID") : NULL;
			snprintf(buf, sizeof buf, "%s.%s", v, step ? step : "");
			d->run_id = hash32(buf);
			break;
		}
	}
	d->peer = calloc(d->size, sizeof *d->peer);
	d->sent = calloc(d->size, sizeof *d->sent);
	d->got = calloc(d->size, sizeof *d->got);
	if (!d->peer || !d->sent || !d->got) {
		snprintf(err, errlen, "out of memory for %u ranks", d->size);
		return -1;
	}
	const char *map = getenv("DSH_RANKMAP");
	for (unsigned r = 0; r < d->size; r++) {
		d->peer[r].clid = r + 1;
		d->peer[r].wid = d->wid;
	}
	if (map && *map) {
		const char *p = map;
		for (unsigned r = 0; r < d->size; r++) {
			unsigned c, w;
			int used = 0;
			if (sscanf(p, "%u:%u%n", &c, &w, &used) != 2 || c < 1 || c > DNET_CLID_MAX_UNICAST || w > 1) {
				snprintf(err, errlen, "DSH_RANKMAP: entry %u is not CLID:WID (CLID 1-0x%x, WID 0/1)",
					 r + 1, DNET_CLID_MAX_UNICAST);
				return -1;
			}
			d->peer[r].clid = c;
			d->peer[r].wid = w;
			p += used;
			if (*p == ',')
				p++;
			else if (r + 1 < d->size) {
				snprintf(err, errlen, "DSH_RANKMAP has %u entries for %u ranks", r + 1, d->size);
				return -1;
			}
		}
	}
	return 0;
}

/* The shell attaches to its rank's node and WID (after the backend opened). */
int dsh_sync_attach(struct dsh *d, char *err, size_t errlen)
{
	if (d->size <= 1 && !getenv("DSH_RANKMAP"))
		return 0;
	unsigned want = d->peer[d->rank].clid, n = dnet_node_count(d->dev);
	d->wid = d->peer[d->rank].wid;
	struct dnet_err e = { 0 };
	/* n == 1: the backend is attached to one node already (remote node=K, a board). */
	if (n > 1 && (want > n || dnet_set_node(d->dev, want, &e) < 0)) {
		snprintf(err, errlen, "rank %u drives node %u, but the backend reaches nodes 1..%u", d->rank,
			 want, n);
		return -1;
	}
	/* DSH_PGID (a node table's PGID column): the privileged set-up of the
	 * process group of this rank's WID (§4.4). */
	uint64_t pg;
	if (getenv("DSH_PGID")) {
		if (!env_u64("DSH_PGID", 255, &pg)) {
			snprintf(err, errlen, "DSH_PGID=%s is not a PGID (0-255)", getenv("DSH_PGID"));
			return -1;
		}
		const struct dnet_reg *r = dnet_reg_by_name(d->wid ? "pgid1" : "pgid0");
		if (!r || dsh_reg_write(d, r, pg) < 0) {
			snprintf(err, errlen, "cannot set PGID %" PRIu64 " of WID %u: %s", pg, d->wid,
				 d->have_err ? d->errmsg : "no PGID register");
			return -1;
		}
	}
	return 0;
}

void dsh_sync_free(struct dsh *d)
{
	free(d->peer);
	free(d->sent);
	free(d->got);
	free(d->joined);
}

static uint64_t flag_value(const struct dsh *d, uint32_t count)
{
	return (uint64_t)d->sync_gen << 32 | count;
}

/* A fresh random 32-bit number, never 0, a or b: a generation or a nonce. */
static uint32_t fresh32(uint32_t a, uint32_t b)
{
	static uint64_t calls;
	for (;;) {
		uint32_t v;
		if (getrandom(&v, sizeof v, GRND_NONBLOCK) != (ssize_t)sizeof v) {
			/* no entropy yet: the clocks, pid and a counter, mixed (splitmix64) */
			struct timespec ts;
			clock_gettime(CLOCK_REALTIME, &ts);
			uint64_t x = dsh_mono_ns() ^ (uint64_t)ts.tv_nsec << 20 ^ (uint64_t)ts.tv_sec ^
				     (uint64_t)getpid() << 40 ^ ++calls * 0x9e3779b97f4a7c15ull;
			x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
			x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
			v = (uint32_t)(x ^ (x >> 31));
		}
		if (v && v != a && v != b)
			return v;
	}
}

/* One word of this process's flag area. */
static int own_word(struct dsh *d, uint32_t off, uint64_t *v)
{
	struct dnet_err e = { 0 };
	uint32_t addr;
	if (dnet_region_addr(DNET_REG_LLCM, d->wid, off, 8, &addr, &e) < 0 || dnet_read64(d->dev, addr, v, &e) < 0)
		return dsh_derr(d, &e);
	return 0;
}

/* Between two polls: the device keeps working (a little virtual time on
 * the emulator), then a real-time sleep once polling has gone on.  Every
 * rank polls at once and they share one device (one dnetd on the
 * emulator): the more ranks, the sooner and the longer each sleeps, so
 * that the pollers leave the device to the ranks with work to do (rank 0
 * admitting the others one by one; the stores of a barrier round) --
 * without it 480 ranks could not even join a run within 30 s. */
static int poll_pause(struct dsh *d, unsigned spin)
{
	struct dnet_err e = { 0 };
	if (dnet_delay(d->dev, d->caps & DNET_CAP_VIRTUAL_TIME ? 1000 : 0, &e) < 0)
		return dsh_derr(d, &e);
	unsigned free_spins = d->size <= 16 ? 100 : 1600 / d->size;
	if (spin >= free_spins) {
		/* 20 us, doubling every 2 polls up to size x 100 us (at least 1 ms) */
		uint64_t cap = d->size > 10 ? 100000ull * d->size : 1000000ull;
		unsigned sh = (spin - free_spins) / 2;
		uint64_t ns = sh < 20 ? 20000ull << sh : cap;
		if (ns > cap)
			ns = cap;
		struct timespec ts = { (time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull) };
		nanosleep(&ts, NULL);
	}
	return 0;
}

/* Rank 0 admits the ranks whose request names this run's generation
 * (steps 2-3 of D-SYNC-RUN): one read of its signal words per call. */
static int admit(struct dsh *d)
{
	struct dnet_err e = { 0 };
	uint32_t addr;
	uint64_t *w = malloc(8u * d->size);
	if (!w)
		return dsh_error(d, "out of memory");
	if (dnet_region_addr(DNET_REG_LLCM, d->wid, d->sync_area + DSH_SYNC_SIGNAL, 8 * d->size, &addr, &e) < 0 ||
	    dnet_read_block(d->dev, addr, w, 8u * d->size, &e) < 0) {
		free(w);
		return dsh_derr(d, &e);
	}
	int rc = 0;
	for (unsigned r = 1; r < d->size && rc == 0; r++) {
		uint32_t nonce = (uint32_t)(w[r] >> 32);
		if (d->joined[r] || (uint32_t)w[r] != d->sync_gen || nonce == d->sync_gen || nonce == 0)
			continue;
		rc = dsh_rllcm_store(d, d->peer[r].clid, d->peer[r].wid, d->sync_area + DSH_SYNC_OPEN,
				     (uint64_t)nonce << 32 | d->sync_gen, SYNC_WW);
		if (rc == 0) {
			d->joined[r] = true;
			d->unjoined--;
		}
	}
	free(w);
	return rc;
}

/* Join the run (D-SYNC-RUN) before a barrier, signal or waitfor counts:
 * *ok false when the deadline passed or the shell was interrupted first. */
static int sync_join(struct dsh *d, uint64_t deadline, bool *ok)
{
	*ok = true;
	if (d->size <= 1)
		return 0;
	if (d->rank == 0) {
		if (!d->sync_gen) {
			if (!(d->joined = calloc(d->size, sizeof *d->joined)))
				return dsh_error(d, "out of memory for %u ranks", d->size);
			d->joined[0] = true;
			d->unjoined = d->size - 1;
			d->sync_gen = fresh32(d->run_id, 0);
		}
		for (unsigned r = 1; !d->sync_offered && r < d->size; r++)
			if (dsh_rllcm_store(d, d->peer[r].clid, d->peer[r].wid, d->sync_area + DSH_SYNC_OPEN,
					    (uint64_t)d->run_id << 32 | d->sync_gen, SYNC_WW) < 0)
				return -1;
		d->sync_offered = true;
		for (unsigned spin = 0; d->unjoined; spin++) {
			if (admit(d) < 0)
				return -1;
			if (!d->unjoined)
				break;
			if (dsh_mono_ns() >= deadline || dsh_interrupted(d)) {
				*ok = false;
				return 0;
			}
			if (poll_pause(d, spin) < 0)
				return -1;
		}
		return 0;
	}
	if (d->sync_gen)
		return 0;
	if (!d->sync_nonce)
		d->sync_nonce = fresh32(d->run_id, 0);
	for (unsigned spin = 0;; spin++) {
		uint64_t v;
		if (own_word(d, d->sync_area + DSH_SYNC_OPEN, &v) < 0)
			return -1;
		uint32_t hi = (uint32_t)(v >> 32), lo = (uint32_t)v;
		if (hi == d->sync_nonce && lo) { /* rank 0's answer: joined */
			d->sync_gen = lo;
			return 0;
		}
		if (hi == d->run_id && lo && lo != d->sync_echo) { /* an offer: ask to join */
			if (d->sync_nonce == lo) /* a request must not read as a signal {G, count} */
				d->sync_nonce = fresh32(d->run_id, lo);
			if (dsh_rllcm_store(d, d->peer[0].clid, d->peer[0].wid,
					    d->sync_area + DSH_SYNC_SIGNAL + 8 * d->rank,
					    (uint64_t)d->sync_nonce << 32 | lo, SYNC_WW) < 0)
				return -1;
			d->sync_echo = lo;
		}
		if (dsh_mono_ns() >= deadline || dsh_interrupted(d)) {
			*ok = false;
			return 0;
		}
		if (poll_pause(d, spin) < 0)
			return -1;
	}
}

/* Why joining failed, for "WHAT: ..." (rank 0: a rank that has not joined,
 * want first if it is one of them). */
static int join_error(struct dsh *d, const char *what, int want, uint64_t tmo)
{
	if (dsh_interrupted(d))
		return dsh_error(d, "%s: interrupted while %s", what,
				 d->rank ? "waiting for rank 0 to admit this rank to the run"
					 : "waiting for the other ranks to join the run");
	if (d->rank)
		return dsh_error(d, "%s: rank 0 did not admit this rank to the run within %.3f s (%s; a rank "
				 "joins at its first barrier, signal or waitfor, when rank 0 has reached its own "
				 "first one)", what, (double)tmo / 1e9,
				 d->sync_echo ? "no answer to its request" : "no offer from rank 0");
	unsigned first = want > 0 && !d->joined[want] ? (unsigned)want : 0;
	for (unsigned r = 1; !first && r < d->size; r++)
		if (!d->joined[r])
			first = r;
	char more[64] = "";
	if (d->unjoined > 1)
		snprintf(more, sizeof more, " (nor %s %u other rank%s)", d->unjoined > 2 ? "have" : "has",
			 d->unjoined - 1, d->unjoined > 2 ? "s" : "");
	return dsh_error(d, "%s: rank %u has not joined this run within %.3f s%s: rank 0's first barrier, "
			 "signal or waitfor waits until every rank has reached its own first one", what, first,
			 (double)tmo / 1e9, more);
}

/* Poll this process's flag word at off until its count reaches want
 * (this run's generation), or the real-time deadline passes. */
static int wait_flag(struct dsh *d, uint32_t off, uint32_t want, uint64_t deadline, bool *arrived)
{
	for (unsigned spin = 0;; spin++) {
		uint64_t v;
		if (own_word(d, off, &v) < 0)
			return -1;
		if ((uint32_t)(v >> 32) == d->sync_gen && (uint32_t)v >= want) {
			*arrived = true;
			return 0;
		}
		if (dsh_mono_ns() >= deadline || dsh_interrupted(d)) {
			*arrived = false;
			return 0;
		}
		if (poll_pause(d, spin) < 0)
			return -1;
	}
}

/* Dissemination barrier: in round k rank r stores the barrier's number into
 * rank (r + 2^k) mod N's word k and waits for rank (r - 2^k) mod N's store
 * into its own word k; log2(N) rounds.  The first joins the run. */
int dsh_barrier(struct dsh *d, uint64_t tmo, uint32_t *genp, unsigned *roundsp)
{
	d->sync_used = true;
	uint64_t t0 = dsh_mono_ns(), deadline = t0 + tmo;
	bool joined;
	if (sync_join(d, deadline, &joined) < 0)
		return -1;
	if (!joined) {
		char what[32];
		snprintf(what, sizeof what, "barrier %" PRIu32, d->barrier_gen + 1);
		return join_error(d, what, -1, tmo);
	}
	uint32_t gen = ++d->barrier_gen;
	unsigned rounds = 0;
	for (unsigned dist = 1; dist < d->size; dist <<= 1, rounds++) {
		unsigned to = (d->rank + dist) % d->size, from = (d->rank + d->size - dist) % d->size;
		uint32_t off = d->sync_area + DSH_SYNC_BARRIER + 8 * rounds;
		if (dsh_rllcm_store(d, d->peer[to].clid, d->peer[to].wid, off, flag_value(d, gen), SYNC_WW) < 0)
			return -1;
		bool ok;
		if (wait_flag(d, off, gen, deadline, &ok) < 0)
			return -1;
		if (!ok && dsh_interrupted(d))
			return dsh_error(d, "barrier %" PRIu32 ": interrupted in round %u while waiting for rank %u",
					 gen, rounds + 1, from);
		if (!ok)
			return dsh_error(d, "barrier %" PRIu32 ": rank %u did not arrive within %.3f s (no flag "
					 "from it at LLCM 0x%" PRIx32 " in round %u; %s)", gen, from,
					 (double)tmo / 1e9, off, rounds + 1,
					 rounds ? "it may itself wait for a rank that did not arrive"
						: "it has not reached the barrier");
	}
	*genp = gen;
	*roundsp = rounds;
	return 0;
}

int dsh_signal(struct dsh *d, unsigned r, uint64_t tmo, uint32_t *count)
{
	d->sync_used = true;
	bool joined;
	if (sync_join(d, dsh_mono_ns() + tmo, &joined) < 0)
		return -1;
	if (!joined) {
		char what[32];
		snprintf(what, sizeof what, "signal %u", r);
		return join_error(d, what, (int)r, tmo);
	}
	uint32_t n = ++d->sent[r];
	uint32_t off = d->sync_area + DSH_SYNC_SIGNAL + 8 * d->rank;
	if (dsh_rllcm_store(d, d->peer[r].clid, d->peer[r].wid, off, flag_value(d, n), SYNC_WW) < 0) {
		d->sent[r]--;
		return -1;
	}
	*count = n;
	return 0;
}

int dsh_waitfor(struct dsh *d, unsigned r, uint64_t tmo, uint32_t *count)
{
	d->sync_used = true;
	uint32_t n = d->got[r] + 1;
	uint64_t t0 = dsh_mono_ns();
	bool ok;
	if (sync_join(d, t0 + tmo, &ok) < 0)
		return -1;
	if (!ok && d->rank == 0 && !d->joined[r] && !dsh_interrupted(d))
		return dsh_error(d, "rank %u did not signal within %.3f s: it has not joined this run (rank 0's "
				 "first barrier, signal or waitfor waits until every rank has reached its own first "
				 "one)", r, (double)tmo / 1e9);
	if (!ok) {
		char what[32];
		snprintf(what, sizeof what, "waitfor %u", r);
		return join_error(d, what, (int)r, tmo);
	}
	if (wait_flag(d, d->sync_area + DSH_SYNC_SIGNAL + 8 * r, n, t0 + tmo, &ok) < 0)
		return -1;
	if (!ok && dsh_interrupted(d))
		return dsh_error(d, "interrupted while waiting for signal %" PRIu32 " from rank %u", n, r);
	if (!ok)
		return dsh_error(d, "rank %u did not signal within %.3f s (signal %" PRIu32 " from rank %u)", r,
				 (double)tmo / 1e9, n, r);
	d->got[r] = n;
	*count = n;
	return 0;
}
