/* Tests of the costs in backends/sim/timing.c as the model charges them:
 * send and receive run in parallel, one direction moves at most one 64-bit
 * line per 10 ns clock, one Receive Controller takes two senders one line
 * per clock (thesis §5.3,
 * chapter 6).  The bounds are computed here from the clock, not read from
 * the table.  The calibration points themselves: tests/shell/test_bench.sh;
 * the IPUSH costs: test_sim_ipush.c. */
/* Decisions pinned here (docs/decisions.md): D-SIM-SD-CONTEND. */
#include "test_spec_enc.h"

/* Leaves *dp on node n. */
static uint64_t wait_tail(struct dnet_dev **dp, unsigned n, uint32_t v)
{
	node(*dp, n);
	wait_eq(*dp, UR(0, DNET_UR_STATUS_ADDR), 0x7fff, v);
	return now(*dp);
}

/* Send and receive run in parallel (§5.3): a bidirectional exchange takes
 * about as long as one direction; one direction moves at most one 64-bit
 * line per 10 ns clock (800 MB/s).  Two senders into one receiver: the
 * single Receive Controller takes both, one line per clock. */
static void test_parallel(void)
{
	const uint32_t SZ = 32768;
	static uint8_t a[32768], b[32768], got[32768];
	fill(a, SZ, 40);
	fill(b, SZ, 41);
	struct dnet_dev *d = sim_open("sim:nodes=3");
	sd_put(d, 0x10000, a, SZ);
	uint64_t t0 = now(d);
	kick(d, 0, 0, LO(DNET_OT_RVS, 0, 0, 0, 2, 1, SZ), UP(0x10000, 0x80000));
	uint64_t one = wait_tail(&d, 2, 16) - t0;
	CHECK(one >= SZ / 8 * 10);
	dnet_close(d);

	d = sim_open("sim:nodes=3");
	sd_put(d, 0x10000, a, SZ);
	node(d, 2);
	sd_put(d, 0x10000, b, SZ);
	node(d, 1);
	t0 = now(d);
	kick(d, 0, 0, LO(DNET_OT_RVS, 0, 0, 0, 2, 1, SZ), UP(0x10000, 0x80000));
	node(d, 2);
	kick(d, 0, 0, LO(DNET_OT_RVS, 0, 0, 0, 1, 1, SZ), UP(0x10000, 0x80000));
	uint64_t t2 = wait_tail(&d, 2, 16), t1 = wait_tail(&d, 1, 16);
	uint64_t both = (t1 > t2 ? t1 : t2) - t0;
	/* ... but both nodes' SO-DIMMs serve a read and a write stream at once
	 * (§6.3.1): E5 gives 727.20 MB/s one way and 953.50 MB/s both ways, so
	 * each direction takes 727.20 / (953.50 / 2) = 1.53 times as long. */
	CHECK(both * 100 > one * 130 && both * 100 < one * 175);
	sd_get(d, 0x80000, got, SZ);
	CHECK(memcmp(got, b, SZ) == 0);
	node(d, 2);
	sd_get(d, 0x80000, got, SZ);
	CHECK(memcmp(got, a, SZ) == 0);
	dnet_close(d);

	/* Nodes 1 and 3 send 16 KB each to node 2 at once. */
	d = sim_open("sim:nodes=3");
	sd_put(d, 0x10000, a, SZ / 2);
	node(d, 3);
	sd_put(d, 0x10000, b, SZ / 2);
	node(d, 1);
	t0 = now(d);
	kick(d, 0, 0, LO(DNET_OT_RVS, 0, 0, 0, 2, 1, SZ / 2), UP(0x10000, 0x80000));
	node(d, 3);
	kick(d, 0, 0, LO(DNET_OT_RVS, 0, 0, 0, 2, 1, SZ / 2), UP(0x10000, 0x90000));
	uint64_t t = wait_tail(&d, 2, 32) - t0;
	CHECK(t >= SZ / 8 * 10);
	uint64_t s0 = st_lo_at(d, 0, 0), s1 = st_lo_at(d, 0, 16);
	CHECK((s0 == STLO(DNET_OT_RVS, 0, 0, 0, 1, SZ / 2) &&
	       s1 == STLO(DNET_OT_RVS, 0, 0, 0, 3, SZ / 2)) ||
	      (s1 == STLO(DNET_OT_RVS, 0, 0, 0, 1, SZ / 2) &&
	       s0 == STLO(DNET_OT_RVS, 0, 0, 0, 3, SZ / 2)));
	sd_get(d, 0x80000, got, SZ / 2);
	CHECK(memcmp(got, a, SZ / 2) == 0);
	sd_get(d, 0x90000, got, SZ / 2);
	CHECK(memcmp(got, b, SZ / 2) == 0);
	CHECK_EQ(ureg(d, 0, DNET_UR_PKT_COUNTER), 2 * ((SZ / 2 + 2031) / 2032));
	dnet_close(d);
}

int main(void)
{
	RUN(test_parallel);
	return t_summary("test_sim_timing");
}
