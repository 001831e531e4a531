/* dsh: ranks and synchronisation through the device itself -- barrier,
 * signal RANK, waitfor RANK -- as a bring-up engineer tests it: remote LLCM
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
 * The flag area, LLCM 0x7000-0x7fff of every process, is reserved: dsh's
 * own writes into it (llcm_write, rllcm_write) are refused unless 'force'.
 *   0x7000 + 8k   barrier round k (k < 32)
 *   0x7100 + 8s   signals from rank s (s < DSH_SYNC_MAX_RANKS)
 * A flag word holds {run id [63:32], count [31:0]}: values left by another
 * run (another run id) never satisfy a wait, so no rank has to clear the
 * area before its peers may write to it.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "dsh.h"

#define SYNC_WW 3u                  /* Write Window the flag packets are built in */
#define DEFAULT_SYNC_TIMEOUT_NS 30000000000ull /* 30 s of real time */

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int dsh_sync_area_guard(struct dsh *d, uint32_t off, uint32_t len)
{
	if (off + len > DSH_SYNC_AREA && off < DSH_SYNC_AREA + DSH_SYNC_AREA_SIZE)
		return dsh_error(d, "LLCM 0x%" PRIx32 "-0x%" PRIx32 " overlaps the synchronisation area "
				 "0x%x-0x%x used by barrier/signal/waitfor; add 'force' to write it anyway",
				 off, off + len - 1, DSH_SYNC_AREA, DSH_SYNC_AREA + DSH_SYNC_AREA_SIZE - 1);
	return 0;
}

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
}

static uint64_t flag_value(const struct dsh *d, uint32_t count)
{
	return (uint64_t)d->run_id << 32 | count;
}

/* Poll this process's flag word at off until its count reaches want
 * (same run id), or the real-time deadline passes.  The device keeps
 * working meanwhile (a little virtual time per poll on the emulator). */
static int wait_flag(struct dsh *d, uint32_t off, uint32_t want, uint64_t deadline, bool *arrived)
{
	struct dnet_err e = { 0 };
	uint32_t addr;
	if (dnet_region_addr(DNET_REG_LLCM, d->wid, off, 8, &addr, &e) < 0)
		return dsh_derr(d, &e);
	bool virt = d->caps & DNET_CAP_VIRTUAL_TIME;
	for (unsigned spin = 0;; spin++) {
		uint64_t v;
		if (dnet_read64(d->dev, addr, &v, &e) < 0)
			return dsh_derr(d, &e);
		if ((uint32_t)(v >> 32) == d->run_id && (uint32_t)v >= want) {
			*arrived = true;
			return 0;
		}
		if (mono_ns() >= deadline || dsh_interrupted(d)) {
			*arrived = false;
			return 0;
		}
		if (dnet_delay(d->dev, virt ? 1000 : 0, &e) < 0)
			return dsh_derr(d, &e);
		if (spin > 100) {
			struct timespec ts = { 0, spin > 10000 ? 1000000 : 20000 };
			nanosleep(&ts, NULL);
		}
	}
}

static int sync_timeout(struct dsh *d, struct dsh_args *a, int start, uint64_t *ns)
{
	*ns = DEFAULT_SYNC_TIMEOUT_NS;
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
	if (v >= d->size)
		return dsh_error(d, "argument 1: rank %" PRIu64 " out of range (0..%u; this run has %u rank%s)",
				 v, d->size - 1, d->size, d->size == 1 ? "" : "s");
	if (v == d->rank)
		return dsh_error(d, "argument 1: rank %" PRIu64 " is this rank", v);
	*r = (unsigned)v;
	return 0;
}

/* Dissemination barrier: in round k rank r stores the generation into
 * rank (r + 2^k) mod N's word k and waits for rank (r - 2^k) mod N's store
 * into its own word k; log2(N) rounds. */
int cmd_barrier(struct dsh *d, struct dsh_args *a)
{
	uint64_t tmo;
	if (sync_timeout(d, a, 1, &tmo) < 0)
		return -1;
	uint32_t gen = ++d->barrier_gen;
	uint64_t t0 = mono_ns(), deadline = t0 + tmo;
	unsigned rounds = 0;
	for (unsigned dist = 1; dist < d->size; dist <<= 1, rounds++) {
		unsigned to = (d->rank + dist) % d->size, from = (d->rank + d->size - dist) % d->size;
		uint32_t off = DSH_SYNC_BARRIER + 8 * rounds;
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
	jnum(out_res(d), "generation", gen);
	jnum(out_res(d), "rounds", rounds);
	jnum(out_res(d), "elapsed_ns", mono_ns() - t0);
	return 0;
}

int cmd_signal(struct dsh *d, struct dsh_args *a)
{
	unsigned r;
	uint64_t tmo;
	if (rank_arg(d, a, &r) < 0 || sync_timeout(d, a, 2, &tmo) < 0)
		return -1;
	uint32_t n = ++d->sent[r];
	uint32_t off = DSH_SYNC_SIGNAL + 8 * d->rank;
	if (dsh_rllcm_store(d, d->peer[r].clid, d->peer[r].wid, off, flag_value(d, n), SYNC_WW) < 0) {
		d->sent[r]--;
		return -1;
	}
	jnum(out_res(d), "rank", r);
	jnum(out_res(d), "count", n);
	return 0;
}

int cmd_waitfor(struct dsh *d, struct dsh_args *a)
{
	unsigned r;
	uint64_t tmo;
	if (rank_arg(d, a, &r) < 0 || sync_timeout(d, a, 2, &tmo) < 0)
		return -1;
	uint32_t n = d->got[r] + 1;
	uint64_t t0 = mono_ns();
	bool ok;
	if (wait_flag(d, DSH_SYNC_SIGNAL + 8 * r, n, t0 + tmo, &ok) < 0)
		return -1;
	if (!ok && dsh_interrupted(d))
		return dsh_error(d, "interrupted while waiting for signal %" PRIu32 " from rank %u", n, r);
	if (!ok)
		return dsh_error(d, "rank %u did not signal within %.3f s (signal %" PRIu32 " from rank %u)", r,
				 (double)tmo / 1e9, n, r);
	d->got[r] = n;
	jnum(out_res(d), "rank", r);
	jnum(out_res(d), "count", n);
	jnum(out_res(d), "elapsed_ns", mono_ns() - t0);
	return 0;
}
