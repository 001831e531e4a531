/* dsh: ranks and synchronisation through the device itself -- which rank
 * this shell is, and the barrier and signals between ranks (the commands:
 * cmd_sync.c) as a bring-up engineer tests them: remote LLCM stores (RVS
 * packets with lflag = 1, sent by BOTF from Write Window 3) into flag words
 * of the peers, each rank polling its own LLCM.  The protocol -- the
 * barrier, signals, and joining a run (D-SYNC-RUN) -- is libdnet's
 * (dnet/sync.h); dsh gives it hooks that store through its Write Window
 * shadow and its Command Ex Flag rule (device_ops.c) and stop on Ctrl-C or
 * --max-time (D-DSH-BARRIER).
 *
 * Rank and size come from dsh-run (DSH_RANK, DSH_SIZE) or from the launcher
 * that started dsh: Open MPI (OMPI_COMM_WORLD_RANK/SIZE), MPICH and other
 * PMI launchers (PMI_RANK/PMI_SIZE), PMIx (PMIX_RANK), Slurm's srun
 * (SLURM_PROCID/SLURM_NTASKS).  Rank r drives node (CLID) r + 1 with the
 * shell's WID unless DSH_RANKMAP ("CLID:WID,..." one per rank) says
 * otherwise.
 *
 * The flag area, 4 KB of the LLCM of every process at A (0x7000 unless
 * 'set sync_area A'; its layout in dnet/sync.h), is reserved where ranks
 * synchronise (a run of more than one rank, or once barrier, signal or
 * waitfor ran: D-SYNC-AREA): dsh's own writes into it (llcm_write,
 * rllcm_write, amt, poke) are then refused unless 'force', and the
 * messaging layer's AMT keeps out of it.  The run id (DSH_RUN_ID, else the
 * launcher's job id, else 1) keeps ranks of different jobs from answering
 * each other's offers.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "dsh.h"

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
	d->ranks.rank = 0;
	d->ranks.size = 1;
	for (size_t i = 0; i < sizeof src / sizeof src[0]; i++) {
		uint64_t r, n;
		if (!env_u64(src[i].rank, DSH_SYNC_MAX_RANKS, &r))
			continue;
		if (!env_u64(src[i].size, DSH_SYNC_MAX_RANKS, &n) || n == 0 || r >= n) {
			snprintf(err, errlen, "%s=%s needs %s (1..%d) above it", src[i].rank, getenv(src[i].rank),
				 src[i].size, DSH_SYNC_MAX_RANKS);
			return -1;
		}
		d->ranks.rank = (unsigned)r;
		d->ranks.size = (unsigned)n;
		d->ranks.from = src[i].rank;
		break;
	}
	/* The run id: given by dsh-run, else the launcher's job identity. */
	static const char *const ids[] = { "DSH_RUN_ID", "PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid",
					   "PMI_JOBID", "SLURM_JOB_ID" };
	d->ranks.run_id = 1;
	for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
		const char *v = getenv(ids[i]);
		if (v && *v) {
			char buf[160];
			const char *step = strcmp(ids[i], "SLURM_JOB_ID") == 0 ? getenv("SLURM_STEP_ID") : NULL;
			snprintf(buf, sizeof buf, "%s.%s", v, step ? step : "");
			d->ranks.run_id = hash32(buf);
			break;
		}
	}
	d->ranks.peer = calloc(d->ranks.size, sizeof *d->ranks.peer);
	if (!d->ranks.peer) {
		snprintf(err, errlen, "out of memory for %u ranks", d->ranks.size);
		return -1;
	}
	const char *map = getenv("DSH_RANKMAP");
	for (unsigned r = 0; r < d->ranks.size; r++) {
		d->ranks.peer[r].node = r + 1;
		d->ranks.peer[r].wid = d->opts.wid;
	}
	if (map && *map) {
		const char *p = map;
		for (unsigned r = 0; r < d->ranks.size; r++) {
			unsigned c, w;
			int used = 0;
			if (sscanf(p, "%u:%u%n", &c, &w, &used) != 2 || c < 1 || c > DNET_CLID_MAX_UNICAST || w > 1) {
				snprintf(err, errlen, "DSH_RANKMAP: entry %u is not CLID:WID (CLID 1-0x%x, WID 0/1)",
					 r + 1, DNET_CLID_MAX_UNICAST);
				return -1;
			}
			d->ranks.peer[r].node = c;
			d->ranks.peer[r].wid = w;
			p += used;
			if (*p == ',')
				p++;
			else if (r + 1 < d->ranks.size) {
				snprintf(err, errlen, "DSH_RANKMAP has %u entries for %u ranks", r + 1, d->ranks.size);
				return -1;
			}
			/* D-SYNC-PEERS: one flag area per rank (libdnet refuses it too,
			 * but only at the first barrier: here nothing has run yet) */
			for (unsigned q = 0; q < r; q++)
				if (d->ranks.peer[q].node == c && d->ranks.peer[q].wid == w) {
					snprintf(err, errlen, "DSH_RANKMAP: entries %u and %u (ranks %u and %u) are both "
						 "CLID %u WID %u: two ranks on one CLID:WID would share a flag area "
						 "(every rank needs its own CLID:WID)", q + 1, r + 1, q, r, c, w);
					return -1;
				}
		}
		if (*p || p[-1] == ',') { /* strict: an entry beyond the ranks is a map of another run */
			snprintf(err, errlen, "DSH_RANKMAP has more than %u entries for %u ranks (from '%s')",
				 d->ranks.size, d->ranks.size, p[-1] == ',' && !*p ? "," : p);
			return -1;
		}
		d->ranks.rankmap = true;
	}
	return 0;
}

/* The shell attaches to its rank's node and WID (after the backend opened). */
int dsh_sync_attach(struct dsh *d, char *err, size_t errlen)
{
	if (d->ranks.size <= 1 && !getenv("DSH_RANKMAP"))
		return 0;
	unsigned want = d->ranks.peer[d->ranks.rank].node, n = dnet_node_count(d->dev);
	d->opts.wid = d->ranks.peer[d->ranks.rank].wid;
	struct dnet_err e = { 0 };
	/* n == 1: the backend is attached to one node already (remote node=K, a board). */
	struct dnet_dev *h = n > 1 && want <= n ? dnet_node_dev(d->dev, want, &e) : NULL;
	if (n > 1 && !h) {
		snprintf(err, errlen, "rank %u drives node %u, but the backend reaches nodes 1..%u", d->ranks.rank,
			 want, n);
		return -1;
	}
	if (h)
		d->dev = h; /* the rank's node's handle (D-NODE-HANDLE) */
	/* DSH_PGID (a node table's PGID column): the privileged set-up of the
	 * process group of this rank's WID (§4.4). */
	uint64_t pg;
	if (getenv("DSH_PGID")) {
		if (!env_u64("DSH_PGID", 255, &pg)) {
			snprintf(err, errlen, "DSH_PGID=%s is not a PGID (0-255)", getenv("DSH_PGID"));
			return -1;
		}
		const struct dnet_reg *r = dnet_reg_by_name(d->opts.wid ? "pgid1" : "pgid0");
		if (!r || dsh_reg_write(d, r, pg) < 0) {
			snprintf(err, errlen, "cannot set PGID %" PRIu64 " of WID %u: %s", pg, d->opts.wid,
				 d->cur.have_err ? d->cur.errmsg : "no PGID register");
			return -1;
		}
	}
	return 0;
}

void dsh_sync_free(struct dsh *d)
{
	dnet_sync_close(d->ranks.sync);
	d->ranks.sync = NULL;
	free(d->ranks.peer);
}

/* ---- libdnet's barrier and signals with dsh's hooks ---- */

/* A flag: through the shadow and the Command Ex Flag rule (device_ops.c). */
static int hook_store(void *ctx, unsigned node, unsigned wid, uint32_t off, uint64_t v, struct dnet_err *err)
{
	struct dsh *d = ctx;
	if (dsh_rllcm_store(d, node, wid, off, v, DNET_SYNC_WW) < 0)
		return dnet_seterr(err, DNET_EIO, "%s", d->cur.errmsg); /* d keeps it as the first error */
	return 0;
}

/* The own flags: in the LLCM of this rank's flag WID, where the peers
 * store them (D-SYNC-WID), whatever WID the shell uses now. */
static int hook_load(void *ctx, uint32_t off, uint64_t *v, unsigned n, struct dnet_err *err)
{
	struct dsh *d = ctx;
	uint32_t addr;
	int rc = dnet_region_addr(DNET_REG_LLCM, d->ranks.peer[d->ranks.rank].wid, off, 8 * n, &addr, err);
	if (rc == 0)
		rc = n == 1 ? dnet_read64(d->dev, addr, v, err) : dnet_read_block(d->dev, addr, v, 8u * n, err);
	return rc;
}

static const struct dnet_sync_ops dsh_sync_ops = {
	.store = hook_store, .load = hook_load, .stop = dsh_stop_hook, /* the clock: libdnet's, dsh's too */
};

/* The run's libdnet object, opened on first use (with the area as set
 * then); from the first barrier, signal or waitfor on the area is reserved. */
static struct dnet_sync *sync_obj(struct dsh *d)
{
	d->ranks.sync_used = true;
	if (!d->ranks.sync) {
		struct dnet_sync_params p;
		struct dnet_err e = { 0 };
		dnet_sync_params_default(&p);
		p.rank = d->ranks.rank;
		p.size = d->ranks.size;
		p.peers = d->ranks.peer;
		p.run_id = d->ranks.run_id;
		p.area = d->ranks.sync_area;
		p.ops = &dsh_sync_ops;
		p.ctx = d;
		if (dnet_sync_open(d->dev, &p, &d->ranks.sync, &e) < 0)
			dsh_derr(d, &e);
	}
	return d->ranks.sync;
}

/* set sync_area A: refused once this rank joined the run with the area where it is. */
int dsh_sync_area_set(struct dsh *d, const char *v)
{
	uint64_t a;
	if (dsh_num_str(d, v, DNET_LLCM_SIZE - DSH_SYNC_AREA_SIZE, "sync_area", &a) < 0)
		return -1;
	if (a % 8)
		return dsh_error(d, "set sync_area: 0x%" PRIx64 " is not 8-byte aligned", a);
	if (d->ranks.sync && dnet_sync_generation(d->ranks.sync) && a != d->ranks.sync_area)
		return dsh_error(d, "set sync_area: this rank has joined the run with its flags at LLCM 0x%" PRIx32
				 " already (every rank sets the same area before its first barrier, signal or "
				 "waitfor)", d->ranks.sync_area);
	struct dnet_err e = { 0 };
	if (d->ranks.sync && dnet_sync_set_area(d->ranks.sync, (uint32_t)a, &e) < 0)
		return dsh_derr(d, &e);
	d->ranks.sync_area = (uint32_t)a;
	return 0;
}

/* set wid W (D-SYNC-WID).  Without DSH_RANKMAP every rank's flags are in
 * the LLCM of the shell's WID: until this rank has joined the run they
 * follow set wid (every rank sets the same, as for sync_area), the object
 * opened by an operation that did not join reopened with them.  Once it
 * joined, the peers store into the WID it joined with: the flags stay
 * there, and set wid moves only the shell.  DSH_RANKMAP fixes each rank's
 * WID from the start. */
int dsh_sync_wid_set(struct dsh *d, unsigned w)
{
	d->opts.wid = w;
	bool joined = d->ranks.sync && dnet_sync_generation(d->ranks.sync);
	if (d->ranks.rankmap || joined || !d->ranks.peer)
		return 0;
	for (unsigned r = 0; r < d->ranks.size; r++)
		d->ranks.peer[r].wid = w;
	dnet_sync_close(d->ranks.sync);
	d->ranks.sync = NULL;
	return 0;
}

/* A libdnet call's outcome as dsh reports it. */
static int sync_done(struct dsh *d, int rc, const struct dnet_err *e)
{
	return rc < 0 ? dsh_derr(d, e) : 0;
}

int dsh_barrier(struct dsh *d, uint64_t tmo, uint32_t *number, unsigned *rounds)
{
	struct dnet_err e = { 0 };
	if (!sync_obj(d))
		return -1;
	return sync_done(d, dnet_sync_barrier(d->ranks.sync, tmo, number, rounds, &e), &e);
}

int dsh_signal(struct dsh *d, unsigned r, uint64_t tmo, uint32_t *count)
{
	struct dnet_err e = { 0 };
	if (!sync_obj(d))
		return -1;
	return sync_done(d, dnet_sync_signal(d->ranks.sync, r, tmo, count, &e), &e);
}

int dsh_waitfor(struct dsh *d, unsigned r, uint64_t tmo, uint32_t *count)
{
	struct dnet_err e = { 0 };
	if (!sync_obj(d))
		return -1;
	return sync_done(d, dnet_sync_waitfor(d->ranks.sync, r, tmo, count, &e), &e);
}
