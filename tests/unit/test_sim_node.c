/* Tests of backends/sim/node.c, one node's host interface: the idle state
 * of Controller Status, Module State and the SMA, the cold start and the
 * initialisation sequence through the System Register, SO-DIMM Init, and
 * WID 1's own area, flags, counters and ring
 * (thesis §4.4, Fig. 4.16,
 * Tab. 4.8, 4.12, App. A, App. B).  Expected register values are written out
 * by hand.  Controller Reset: test_sim_reset.c. */
/* Decisions pinned here (docs/decisions.md): D-SDIMM-INIT-BIT,
 * D-SIM-RING-DEFAULT, D-SIM-AREA. */
#include "test_spec_enc.h"

static void test_idle(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=2");
	/* SO-DIMM initialised (bit 1) and status ring empty (bit 4). */
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS), 0x12);
	CHECK_EQ(ureg(d, 1, DNET_UR_CTL_STATUS), 0x12);
	CHECK_EQ(ureg(d, 0, DNET_UR_MODULE_STATE), 0x0000422200020001ull);
	CHECK_EQ(ureg(d, 0, DNET_UR_PRIM_COUNTER), 0);
	CHECK_EQ(ureg(d, 0, DNET_UR_STATUS_ADDR), 0);
	/* SMA LID: link up 2'b11 in [17:16], LID 2 for node 2. */
	node(d, 2);
	CHECK_EQ(rd64(d, DNET_SREG_BASE + DNET_SR_SMA), 0x30002);
	bool busy = true;
	CHECK_OK(dnet_busy(d, &busy, &E), &E);
	CHECK(!busy);
	dnet_close(d);
}

static void test_cold_init(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=2,cold");
	/* Power-on: SO-DIMM not initialised, link not up yet. */
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS), 0x10);
	CHECK_EQ(rd64(d, DNET_SREG_BASE + DNET_SR_SMA), 0);
	/* A VS before SO-DIMM Init stores nothing. */
	uint64_t v = 0xabcdef, got = 1;
	wr64(d, DNET_WW_WID(0), v);
	issue(d, 0, DNET_OT_VS, 8, 0, 0x100);
	settle(d);
	sd_get(d, 0x100, &got, 8);
	CHECK_EQ(got, 0);
	CHECK(stat(d, "sdimm_uninit_accesses") >= 1);
	/* docs/device.md: capacity, init, poll bit 1; MTU; SMA LID; LID; PGID. */
	sreg_w(d, DNET_SR_SDIMM_CAPACITY, 0x02); /* 512 MB */
	sreg_w(d, DNET_SR_SDIMM_INIT, 1);
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS) & 2, 0); /* takes time */
	wait_eq(d, DNET_UREG_WID(0) + DNET_UR_CTL_STATUS, 2, 2);
	sreg_w(d, DNET_SR_MTU, 0x08);
	uint64_t sma = 0;
	CHECK_OK(dnet_wait(d, DNET_SREG_BASE + DNET_SR_SMA, 3ull << 16, DNET_COND_EQ, 3ull << 16,
			   1000000000ull, &sma, &E), &E);
	CHECK_EQ(sma, 0x30001);
	sreg_w(d, DNET_SR_LID, sma & 0xffff);
	sreg_w(d, DNET_SR_PGID0, 0);
	issue(d, 0, DNET_OT_VS, 8, 0, 0x100);
	settle(d);
	sd_get(d, 0x100, &got, 8);
	CHECK_EQ(got, v);
	/* 512 MB modules: WID 1's area starts at 512 MB. */
	wr64(d, DNET_WW_WID(1), v + 1);
	issue(d, 1, DNET_OT_VS, 8, 0, 0x100);
	settle(d);
	sd_get(d, 512 * MB + 0x100, &got, 8);
	CHECK_EQ(got, v + 1);
	/* SMA Software Reset: link down for a while, then up again. */
	sreg_w(d, DNET_SR_SMA, 1);
	CHECK_EQ(rd64(d, DNET_SREG_BASE + DNET_SR_SMA), 0);
	wait_eq(d, DNET_SREG_BASE + DNET_SR_SMA, 3ull << 16, 3ull << 16);
	dnet_close(d);
}

/* Cold start (D-SIM-START, D-SIM-SDIMM-INIT): SO-DIMM not usable until
 * SO-DIMM Init completes (200 us), Controller Status bit 1 tracks it; a
 * second Init restarts the 200 us. */
static void test_cold_sdimm_init(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=1,cold");
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS), 0x10);
	CHECK_EQ(rd64(d, DNET_SREG_BASE + DNET_SR_SMA), 0); /* link not up yet */
	uint8_t ww[16], got[16], zero[16] = { 0 };
	fill(ww, 16, 21);
	ww_put(d, 0, 0, ww, 16);
	kick(d, 0, 0, LO(DNET_OT_VS, 0, 0, 0, 0, 0, 16), UP(0, 0x100));
	settle(d);
	sd_get(d, 0x100, got, 16);
	CHECK(memcmp(got, zero, 16) == 0);
	CHECK((rd64(d, DNET_SREG_BASE + DNET_SR_SMA) >> 16 & 3) == 3);
	uint64_t t0 = now(d);
	sreg_w(d, DNET_SR_SDIMM_INIT, 1);
	CHECK_OK(dnet_delay(d, 100000, &E), &E);
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS) & 2, 0);
	sreg_w(d, DNET_SR_SDIMM_INIT, 1); /* again at t0 + 100 us */
	uint64_t t1 = now(d);
	wait_eq(d, UR(0, DNET_UR_CTL_STATUS), 2, 2);
	CHECK(now(d) - t1 >= 200000);
	CHECK(now(d) - t0 >= 300000);
	kick(d, 0, 0, LO(DNET_OT_VS, 0, 0, 0, 0, 0, 16), UP(0, 0x100));
	settle(d);
	sd_get(d, 0x100, got, 16);
	CHECK(memcmp(got, ww, 16) == 0);
	dnet_close(d);
}

/* WID 1 (§4.4, Fig. 4.16): its SO-DIMM area starts at C (here 1 GB), its
 * Prefetch Window flags, counters and ring are its own; an RVS from it
 * lands in the destination's WID 1 area at that node's own C. */
static void test_wid1(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=2,capacity=1024");
	const uint64_t C = 1024 * MB;
	uint8_t src[0x100], got[0x100];
	fill(src, sizeof src, 50);
	sd_put(d, C + 0x3000, src, sizeof src);
	kick(d, 1, 0, LO(DNET_OT_VL, 0, 0, 0, 0, 0, 0x100), UP(0x3000, 0x700));
	CHECK_EQ(ureg(d, 1, DNET_UR_PW_FLAG), 0x3000);
	wait_eq(d, UR(1, DNET_UR_PW_FLAG), 0xf000, 0xf000);
	pw_get(d, 1, 0x700, got, 0x100);
	CHECK(memcmp(got, src, 0x100) == 0);
	CHECK_EQ(ureg(d, 0, DNET_UR_PW_FLAG), 0);
	CHECK_EQ(prim(d, 1, DNET_FAM_VL), 1);
	CHECK_EQ(ureg(d, 0, DNET_UR_PRIM_COUNTER), 0);
	/* Exactly at the end of WID 1's area: fits, no flag; 8 more: overrun. */
	ww_put(d, 1, 0, src, 16);
	kick(d, 1, 0, LO(DNET_OT_VS, 0, 0, 0, 0, 0, 8), UP(0, (uint32_t)(C - 8)));
	settle(d);
	CHECK_EQ(ureg(d, 1, DNET_UR_CTL_STATUS), CS_OK | 1u << 5);
	kick(d, 1, 0, LO(DNET_OT_VS, 0, 0, 0, 0, 0, 16), UP(0, (uint32_t)(C - 8)));
	settle(d);
	CHECK_EQ(ureg(d, 1, DNET_UR_CTL_STATUS), CS_OK | 1u << 5 | 1u << 7);
	sd_get(d, 2 * C - 8, got, 8);
	CHECK(memcmp(got, src, 8) == 0);
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS), CS_OK);
	/* Node 2 at 256 MB per module: WID 1's area starts at 256 MB there. */
	node(d, 2);
	sreg_w(d, DNET_SR_SDIMM_CAPACITY, 0x01);
	node(d, 1);
	kick(d, 1, 0, LO(DNET_OT_RVS, 0, 0, 1, 2, 1, 0x100), UP(0x3000, 0x40));
	settle(d);
	CHECK_EQ(prim(d, 1, DNET_FAM_RVS), 1);
	node(d, 2);
	sd_get(d, CAP256 + 0x40, got, 0x100);
	CHECK(memcmp(got, src, 0x100) == 0);
	CHECK_EQ(st_lo_at(d, 1, 0), STLO(DNET_OT_RVS, 0, 0, 1, 1, 0x100));
	CHECK_EQ(tail(d, 0), 0);
	dnet_close(d);
}

int main(void)
{
	RUN(test_idle);
	RUN(test_cold_init);
	RUN(test_cold_sdimm_init);
	RUN(test_wid1);
	return t_summary("test_sim_node");
}
