/* libdnet's barrier and signals between ranks (libdnet/src/sync.c,
 * dnet/sync.h) used from C, without dsh: several ranks on one embedded
 * emulator (sim:nodes=N), driven by one thread through the non-blocking
 * calls, with the default hooks (libdnet's primitives) and with a
 * program's own store hook; the blocking calls' timeouts and the stop
 * hook; that flags of an earlier run never satisfy a new one (D-SYNC-RUN);
 * refusals.  Every wait is bounded. */
/* Decisions pinned here (docs/decisions.md): D-DSH-BARRIER. */
#include <stdlib.h>
#include <string.h>
#include "dnet/dnet.h"
#include "harness.h"

static struct dnet_err E;

static struct dnet_dev *dev_open(unsigned nodes)
{
	char spec[32];
	struct dnet_dev *d = NULL;
	snprintf(spec, sizeof spec, "sim:nodes=%u", nodes);
	CHECK_OK(dnet_open(spec, &d, &E), &E);
	return d;
}

static struct dnet_sync *rank_open(struct dnet_dev *d, unsigned rank, unsigned size, uint32_t run_id,
				   const struct dnet_sync_ops *ops, void *ctx)
{
	struct dnet_sync_params p;
	struct dnet_sync *s = NULL;
	dnet_sync_params_default(&p);
	p.rank = rank;
	p.size = size;
	p.run_id = run_id;
	p.ops = ops;
	p.ctx = ctx;
	CHECK_OK(dnet_sync_open(d, &p, &s, &E), &E);
	return s;
}

/* Drive the started operations of s[0..n) until all are done or polls run
 * out, letting the emulator work between passes: how many finished. */
static unsigned drive(struct dnet_dev *d, struct dnet_sync **s, unsigned n, bool *done, uint32_t *count,
		      unsigned polls)
{
	unsigned fin = 0;
	for (unsigned k = 0; k < n; k++)
		fin += done[k];
	for (unsigned i = 0; i < polls && fin < n; i++) {
		for (unsigned k = 0; k < n; k++) {
			if (done[k])
				continue;
			if (dnet_sync_test(s[k], &done[k], &count[k], &E) < 0) {
				fprintf(stderr, "rank %u: %s\n", k, E.msg);
				return fin;
			}
			fin += done[k];
		}
		dnet_delay(d, 1000, NULL);
	}
	return fin;
}

/* n ranks of one run on d, the hooks ops with ctx[r] (or the defaults). */
static void run_open(struct dnet_dev *d, struct dnet_sync **s, unsigned n, uint32_t run_id,
		     const struct dnet_sync_ops *ops, void *ctx, size_t ctx_size)
{
	for (unsigned r = 0; r < n; r++)
		s[r] = rank_open(d, r, n, run_id, ops, ctx ? (char *)ctx + r * ctx_size : NULL);
}

/* An emulator of n nodes with a run of n ranks, default hooks. */
static struct dnet_dev *cluster(struct dnet_sync **s, unsigned n, uint32_t run_id)
{
	struct dnet_dev *d = dev_open(n);
	run_open(d, s, n, run_id, NULL, NULL, 0);
	return d;
}

static void run_close(struct dnet_dev *d, struct dnet_sync **s, unsigned n)
{
	for (unsigned r = 0; r < n; r++)
		dnet_sync_close(s[r]);
	dnet_close(d);
}

/* A barrier of ranks [0, n) driven to its end: how many finished; count[r]
 * the number each got. */
static unsigned barrier_all(struct dnet_dev *d, struct dnet_sync **s, unsigned n, uint32_t *count)
{
	bool done[8] = { false };
	for (unsigned r = 0; r < n; r++)
		CHECK_OK(dnet_sync_ibarrier(s[r], 10000000000ull, &E), &E);
	return drive(d, s, n, done, count, 20000);
}

/* d becomes node's handle (D-NODE-HANDLE); rc as a libdnet call's. */
static int set_node(struct dnet_dev **d, unsigned node, struct dnet_err *e)
{
	struct dnet_dev *h = dnet_node_dev(*d, node, e);
	if (!h)
		return -e->code;
	*d = h;
	return 0;
}

/* LLCM word off of (node, WID 0). */
static uint64_t llcm_word(struct dnet_dev *d, unsigned node, uint32_t off)
{
	uint32_t addr;
	uint64_t v = 0;
	CHECK_OK(set_node(&d, node, &E), &E);
	CHECK_OK(dnet_region_addr(DNET_REG_LLCM, 0, off, 8, &addr, &E), &E);
	CHECK_OK(dnet_read64(d, addr, &v, &E), &E);
	return v;
}

/* Four ranks, default hooks: no rank leaves a barrier before the last has
 * come; every rank gets the same number; the flags carry the generation. */
static void four_ranks_barrier(void)
{
	struct dnet_sync *s[4];
	struct dnet_dev *d = cluster(s, 4, 7);
	bool done[4] = { false };
	uint32_t count[4] = { 0 };
	for (unsigned r = 0; r < 3; r++)
		CHECK_OK(dnet_sync_ibarrier(s[r], 10000000000ull, &E), &E);
	CHECK_EQ(drive(d, s, 3, done, count, 300), 0); /* rank 3 has not come */
	CHECK_OK(dnet_sync_ibarrier(s[3], 10000000000ull, &E), &E);
	CHECK_EQ(drive(d, s, 4, done, count, 20000), 4);
	uint32_t gen = dnet_sync_generation(s[0]);
	CHECK(gen != 0);
	for (unsigned r = 0; r < 4; r++) {
		CHECK_EQ(count[r], 1);
		CHECK_EQ(dnet_sync_generation(s[r]), gen);
	}
	/* a second barrier: number 2; round 1 of rank 2 came from rank 0 */
	CHECK_EQ(barrier_all(d, s, 4, count), 4);
	for (unsigned r = 0; r < 4; r++)
		CHECK_EQ(count[r], 2);
	CHECK_EQ(llcm_word(d, 3, DNET_SYNC_AREA + DNET_SYNC_BARRIER + 8), (uint64_t)gen << 32 | 2);
	/* one operation per rank at a time; a test with none under way */
	bool dn;
	CHECK_EQ(dnet_sync_test(s[0], &dn, NULL, &E), -DNET_EINVAL);
	CHECK_OK(dnet_sync_ibarrier(s[0], 1000000, &E), &E);
	CHECK_EQ(dnet_sync_ibarrier(s[0], 1000000, &E), -DNET_EBUSY);
	run_close(d, s, 4);
}

/* Signals: counts per sender, a waitfor that times out names the rank. */
static void signals(void)
{
	struct dnet_sync *s[3];
	struct dnet_dev *d = cluster(s, 3, 9);
	uint32_t count[3] = { 0 };
	/* every rank joins at its first operation: a barrier first */
	CHECK_EQ(barrier_all(d, s, 3, count), 3);
	for (unsigned i = 1; i <= 2; i++) {
		CHECK_OK(dnet_sync_signal(s[1], 2, 1000000000ull, &count[1], &E), &E);
		CHECK_EQ(count[1], i);
	}
	dnet_delay(d, 100000, NULL);
	for (unsigned i = 1; i <= 2; i++) {
		CHECK_OK(dnet_sync_waitfor(s[2], 1, 1000000000ull, &count[2], &E), &E);
		CHECK_EQ(count[2], i);
	}
	uint64_t t0 = dnet_mono_ns();
	CHECK_EQ(dnet_sync_waitfor(s[2], 1, 50000000ull, &count[2], &E), -DNET_ETIMEDOUT);
	CHECK(dnet_mono_ns() - t0 >= 50000000ull);
	CHECK(dnet_mono_ns() - t0 < 5000000000ull);
	CHECK_STR(E.msg, "rank 1 did not signal within 0.050 s (signal 3 from rank 1)");
	CHECK_EQ(dnet_sync_signal(s[1], 1, 1000000, NULL, &E), -DNET_EINVAL); /* itself */
	CHECK_EQ(dnet_sync_signal(s[1], 3, 1000000, NULL, &E), -DNET_EINVAL); /* no rank 3 */
	run_close(d, s, 3);
}

/* The blocking barrier times out, naming who did not come: before joining
 * and after; and a new run on the same flags (same run id) does not pass
 * on what the earlier run left. */
static void timeouts(void)
{
	struct dnet_sync *s[2];
	struct dnet_dev *d = cluster(s, 2, 5);
	uint32_t count[2] = { 0 };
	uint64_t t0 = dnet_mono_ns();
	CHECK_EQ(dnet_sync_barrier(s[0], 30000000ull, NULL, NULL, &E), -DNET_ETIMEDOUT);
	CHECK(dnet_mono_ns() - t0 >= 30000000ull && dnet_mono_ns() - t0 < 5000000000ull);
	CHECK_STR(E.msg, "barrier 1: rank 1 has not joined this run within 0.030 s: rank 0's first barrier, "
		  "signal or waitfor waits until every rank has reached its own first one");
	CHECK_EQ(barrier_all(d, s, 2, count), 2);
	CHECK_EQ(count[0], 1);
	unsigned rounds = 9;
	CHECK_EQ(dnet_sync_barrier(s[0], 30000000ull, NULL, &rounds, &E), -DNET_ETIMEDOUT);
	CHECK_STR(E.msg, "barrier 2: rank 1 did not arrive within 0.030 s (no flag from it at LLCM 0x7000 in "
		  "round 1; it has not reached the barrier)");
	/* rank 1 came late: its barrier 2 passes on rank 0's flag, rank 0's next is 3 */
	CHECK_OK(dnet_sync_barrier(s[1], 1000000000ull, &count[1], &rounds, &E), &E);
	CHECK_EQ(count[1], 2);
	CHECK_EQ(rounds, 1);
	for (unsigned r = 0; r < 2; r++)
		dnet_sync_close(s[r]);
	/* a new run, same run id, the old flags still there: rank 1 alone
	 * must not pass (no offer of this run), nor rank 0 alone */
	run_open(d, s, 2, 5, NULL, NULL, 0);
	CHECK_EQ(dnet_sync_barrier(s[1], 30000000ull, NULL, NULL, &E), -DNET_ETIMEDOUT);
	CHECK_STR(E.msg, "barrier 1: rank 0 did not admit this rank to the run within 0.030 s (no offer from "
		  "rank 0; a rank joins at its first barrier, signal or waitfor, when rank 0 has reached its own "
		  "first one)");
	CHECK_EQ(dnet_sync_generation(s[1]), 0);
	run_close(d, s, 2);
}

/* D-SYNC-RUN after joining: both ranks joined a new run (through a
 * signal, so the barrier words still hold the earlier run's flags, a count
 * above the new run's); rank 0's barrier 1 must not pass on the earlier
 * run's flag while rank 1 has not come, then passes when it comes. */
static void stale_flag_after_join(void)
{
	struct dnet_sync *s[2];
	struct dnet_dev *d = cluster(s, 2, 11);
	uint32_t count[2] = { 0 };
	for (unsigned i = 0; i < 3; i++)
		CHECK_EQ(barrier_all(d, s, 2, count), 2);
	uint32_t old = dnet_sync_generation(s[0]);
	for (unsigned r = 0; r < 2; r++)
		dnet_sync_close(s[r]);
	run_open(d, s, 2, 11, NULL, NULL, 0);
	bool done[2] = { false };
	CHECK_OK(dnet_sync_iwaitfor(s[0], 1, 10000000000ull, &E), &E);
	CHECK_OK(dnet_sync_isignal(s[1], 0, 10000000000ull, &E), &E);
	CHECK_EQ(drive(d, s, 2, done, count, 20000), 2);
	uint32_t gen = dnet_sync_generation(s[0]);
	CHECK(gen != 0 && gen != old);
	CHECK_EQ(dnet_sync_generation(s[1]), gen);
	/* rank 0's round-1 word: the earlier run's barrier 3, from rank 1 */
	CHECK_EQ(llcm_word(d, 1, DNET_SYNC_AREA + DNET_SYNC_BARRIER), (uint64_t)old << 32 | 3);
	done[0] = done[1] = false;
	CHECK_OK(dnet_sync_ibarrier(s[0], 10000000000ull, &E), &E);
	CHECK_EQ(drive(d, s, 1, done, count, 300), 0); /* rank 1 has not come */
	CHECK_OK(dnet_sync_ibarrier(s[1], 10000000000ull, &E), &E);
	CHECK_EQ(drive(d, s, 2, done, count, 20000), 2);
	CHECK_EQ(count[0], 1);
	CHECK_EQ(count[1], 1);
	run_close(d, s, 2);
}

/* A program's own hooks: its store is the one used (and may keep a view
 * of the device of its own); its stop hook ends a wait at once. */
struct own {
	struct dnet_dev *dev;
	unsigned node, stores;
	bool stop;
};

static int own_store(void *ctx, unsigned node, unsigned wid, uint32_t off, uint64_t v, struct dnet_err *err)
{
	struct own *o = ctx;
	struct dnet_sync_flag_pkt p;
	uint32_t addr;
	int rc;
	o->stores++;
	if ((rc = set_node(&o->dev, o->node, err)) < 0 ||
	    (rc = dnet_sync_flag_pkt(dnet_dev_clid_reading(o->dev), 0, node, wid, 0, off, v, 1, &p, err)) < 0 ||
	    (rc = dnet_region_addr(DNET_REG_WW, 0, 1 * DNET_WINDOW_SIZE, (uint32_t)p.len, &addr, err)) < 0 ||
	    (rc = dnet_write_block(o->dev, addr, p.bytes, p.len, err)) < 0)
		return rc;
	return dnet_issue(o->dev, 0, DNET_CMD0, &p.cmd, 1000000000ull, err);
}

static int own_load(void *ctx, uint32_t off, uint64_t *v, unsigned n, struct dnet_err *err)
{
	struct own *o = ctx;
	uint32_t addr;
	int rc;
	if ((rc = set_node(&o->dev, o->node, err)) < 0 ||
	    (rc = dnet_region_addr(DNET_REG_LLCM, 0, off, 8 * n, &addr, err)) < 0)
		return rc;
	return dnet_read_block(o->dev, addr, v, 8u * n, err);
}

static bool own_stop(void *ctx)
{
	return ((struct own *)ctx)->stop;
}

static void hooks(void)
{
	struct dnet_dev *d = dev_open(2);
	static const struct dnet_sync_ops ops = { .store = own_store, .load = own_load, .stop = own_stop };
	struct own o[2] = { { d, 1, 0, false }, { d, 2, 0, false } };
	struct dnet_sync *s[2];
	uint32_t count[2] = { 0 };
	run_open(d, s, 2, 3, &ops, o, sizeof o[0]);
	CHECK_EQ(barrier_all(d, s, 2, count), 2);
	/* rank 0: the offer, the answer, its flag; rank 1: its request, its flag */
	CHECK_EQ(o[0].stores, 3);
	CHECK_EQ(o[1].stores, 2);
	o[1].stop = true;
	uint64_t t0 = dnet_mono_ns();
	CHECK_EQ(dnet_sync_barrier(s[1], 10000000000ull, NULL, NULL, &E), -DNET_EINTR);
	CHECK(dnet_mono_ns() - t0 < 5000000000ull);
	CHECK_STR(E.msg, "barrier 2: interrupted in round 1 while waiting for rank 0");
	CHECK_EQ(dnet_sync_waitfor(s[1], 0, 10000000000ull, NULL, &E), -DNET_EINTR);
	CHECK_STR(E.msg, "interrupted while waiting for signal 1 from rank 0");
	run_close(d, s, 2);
}

/* What open and set_area refuse. */
static void refusals(void)
{
	struct dnet_dev *d = dev_open(2);
	struct dnet_sync_params p;
	struct dnet_sync *s = NULL;
	dnet_sync_params_default(&p);
	p.size = 0;
	CHECK_EQ(dnet_sync_open(d, &p, &s, &E), -DNET_EINVAL);
	p.size = DNET_SYNC_MAX_RANKS + 1;
	CHECK_EQ(dnet_sync_open(d, &p, &s, &E), -DNET_EINVAL);
	p.size = 2;
	p.rank = 2;
	CHECK_EQ(dnet_sync_open(d, &p, &s, &E), -DNET_EINVAL);
	p.rank = 0;
	p.area = DNET_SYNC_AREA + 4;
	CHECK_EQ(dnet_sync_open(d, &p, &s, &E), -DNET_EINVAL);
	p.area = DNET_LLCM_SIZE - DNET_SYNC_AREA_SIZE + 8;
	CHECK_EQ(dnet_sync_open(d, &p, &s, &E), -DNET_EINVAL);
	CHECK(s == NULL);
	/* D-SYNC-PEERS: two ranks on one node and WID, or a node/WID that does
	 * not exist, refused before anything runs */
	p.area = DNET_SYNC_AREA;
	p.size = 3;
	struct dnet_msg_rank dup[3] = { { 1, 0 }, { 2, 0 }, { 1, 0 } };
	p.peers = dup;
	CHECK_EQ(dnet_sync_open(d, &p, &s, &E), -DNET_EINVAL);
	CHECK_STR(E.msg, "sync: ranks 0 and 2 are both on node 1 WID 0: two ranks on one CLID:WID would share a "
		  "flag area (every rank needs its own node or WID)");
	CHECK(s == NULL);
	dup[2].wid = 2;
	CHECK_EQ(dnet_sync_open(d, &p, &s, &E), -DNET_EINVAL);
	CHECK_STR(E.msg, "sync: rank 2 is on node 1 WID 2 (nodes 1-0xbff, WID 0-1)");
	dup[2].wid = 1; /* node 1 WID 1: a flag area of its own */
	CHECK_OK(dnet_sync_open(d, &p, &s, &E), &E);
	dnet_sync_close(s);
	s = NULL;
	p.peers = NULL;
	p.size = 2;
	/* the area moves until the rank knows the run's generation */
	p.area = 0;
	CHECK_OK(dnet_sync_open(d, &p, &s, &E), &E);
	CHECK_OK(dnet_sync_set_area(s, 0x1000, &E), &E);
	CHECK_EQ(dnet_sync_barrier(s, 1000000, NULL, NULL, &E), -DNET_ETIMEDOUT); /* rank 0 opened the run */
	CHECK(dnet_sync_generation(s) != 0);
	CHECK_EQ(dnet_sync_set_area(s, 0x2000, &E), -DNET_EINVAL);
	CHECK_OK(dnet_sync_set_area(s, 0x1000, &E), &E);
	dnet_sync_close(s);
	/* one rank: a barrier of no rounds */
	p.size = 1;
	CHECK_OK(dnet_sync_open(d, &p, &s, &E), &E);
	uint32_t n = 0;
	unsigned rounds = 9;
	CHECK_OK(dnet_sync_barrier(s, 1000000, &n, &rounds, &E), &E);
	CHECK_EQ(n, 1);
	CHECK_EQ(rounds, 0);
	dnet_sync_close(s);
	dnet_close(d);
}

int main(void)
{
	RUN(four_ranks_barrier);
	RUN(signals);
	RUN(timeouts);
	RUN(stale_flag_after_join);
	RUN(hooks);
	RUN(refusals);
	return t_summary("test_sync");
}
