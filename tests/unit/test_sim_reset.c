/* Tests of Controller Reset (backends/sim/node.c ctl_reset, and what it
 * abandons in wc.c and rc.c): what returns to its reset value (counters,
 * Controller Status, PW flags, Ex flag, ring pointers), what survives
 * (SO-DIMM, LLCM, PW contents, System Register configuration), and a reset
 * receiver releasing a blocked sender (docs/device.md,
 * 7.5; Decision D-SIM-RESET).  The audit's pinned case (a reset by read):
 * test_sim_corrections.c. */
#include "test_spec_enc.h"

static void test_ctl_reset(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=2");
	uint64_t v = 77, got;
	sreg_w(d, DNET_SR_PGID0, 5);
	wr64(d, DNET_WW_WID(0), v);
	issue(d, 0, DNET_OT_VS, 0x300, 0, 0x100); /* clipped: overrun bit */
	ureg_w(d, 0, DNET_UR_STATUS_INIT, 0x400);
	ureg_w(d, 0, DNET_UR_CMD_EX_FLAG, 1);
	settle(d);
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS), 0x12 | 0x60);
	CHECK_EQ(ureg(d, 0, DNET_UR_STATUS_ADDR), 0x400);
	/* Any access, even a read, resets the controller. */
	uint64_t r = 1;
	CHECK_OK(dnet_reg_read_effect(d, 0, dnet_reg_by_name("ctl_reset"), &r, &E), &E);
	CHECK_EQ(r, 0);
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS), 0x12);
	CHECK_EQ(ureg(d, 0, DNET_UR_PRIM_COUNTER), 0);
	CHECK_EQ(ureg(d, 0, DNET_UR_STATUS_ADDR), 0);
	CHECK_EQ(ureg(d, 0, DNET_UR_MODULE_STATE), 0x0000422200020001ull);
	/* SO-DIMM contents and PGID survive; Command Ex Flag is 0 again, so a
	 * plain 128-bit request works. */
	sd_get(d, 0x100, &got, 8);
	CHECK_EQ(got, v);
	node(d, 2);
	sreg_w(d, DNET_SR_PGID0, 5);
	node(d, 1);
	issue_x(d, 0, 0, DNET_OT_RVS, 0, 0, 0, 2, 1, 8, 0x100, 0x100, NULL);
	settle(d);
	node(d, 2);
	sd_get(d, 0x100, &got, 8);
	CHECK_EQ(got, v);
	CHECK_EQ(stat(d, "pgid_drops"), 0);
	dnet_close(d);
}

/* Controller Reset scope (D-SIM-RESET): counters, Controller Status, PW
 * flags, Ex flag and ring pointers return to reset values, a running
 * primitive is abandoned; SO-DIMM, LLCM, PW contents and the System
 * Register configuration (PGID, MTU) survive.  Any access resets. */
static void test_ctl_reset_scope(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=2");
	uint8_t src[0x200], pw[0x200];
	fill(src, sizeof src, 22);
	sd_put(d, 0x1000, src, sizeof src);
	sreg_w(d, DNET_SR_PGID0, 5);
	sreg_w(d, DNET_SR_MTU, 0x01); /* 256 */
	wr64(d, DNET_LLCM_WID(0) + 0x4000, 0x1234);
	kick(d, 0, 0, LO(DNET_OT_VL, 0, 0, 0, 0, 0, 0x200), UP(0x1000, 0));
	kick(d, 0, 0, LO(DNET_OT_VS, 0, 0, 0, 0, 0, 0x300), UP(0x100, 0x3000));
	settle(d);
	ureg_w(d, 0, DNET_UR_STATUS_INIT, 0x100);
	ureg_w(d, 0, DNET_UR_CMD_EX_FLAG, 1);
	ureg_w(d, 0, DNET_UR_CMD_EX, EX(DNET_OT_VLS, 3, 1, 0));
	CHECK_EQ(ureg(d, 0, DNET_UR_PW_FLAG), 0xffff & 0xf);
	CHECK(ureg(d, 0, DNET_UR_CTL_STATUS) != CS_OK);
	/* Start a VL into PW#1 and reset (a read of 0xa00) while it runs. */
	kick(d, 0, 0, LO(DNET_OT_VL, 0, 0, 0, 0, 0, 0x200), UP(0x1000, 0x200));
	CHECK_EQ(ureg(d, 0, DNET_UR_PW_FLAG) & 0xf0, 0);
	CHECK_OK(dnet_reg_read_effect(d, 0, dnet_reg_by_name("ctl_reset"), &(uint64_t){ 0 }, &E), &E);
	settle(d);
	CHECK_EQ(ureg(d, 0, DNET_UR_PW_FLAG), 0);
	CHECK_EQ(ureg(d, 0, DNET_UR_PRIM_COUNTER), 0);
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS), CS_OK);
	CHECK_EQ(tail(d, 0), 0);
	CHECK_EQ(rd64(d, DNET_LLCM_WID(0) + 0x4000), 0x1234);
	pw_get(d, 0, 0, pw, 0x200);
	CHECK(memcmp(pw, src, 0x200) == 0);
	/* PGID 5 and MTU 256 kept, Ex flag cleared: an RVS of 480 bytes is
	 * contiguous, 2 packets, dropped by node 2 (PGID 0). */
	kick(d, 0, 0, LO(DNET_OT_RVS, 0, 0, 0, 2, 1, 480), UP(0x1000, 0x2000));
	settle(d);
	CHECK_EQ(stat(d, "packets_sent"), 2);
	node(d, 2);
	CHECK_EQ(stat(d, "pgid_drops"), 2);
	sreg_w(d, DNET_SR_PGID0, 5);
	node(d, 1);
	kick(d, 0, 0, LO(DNET_OT_RVS, 0, 0, 0, 2, 1, 480), UP(0x1000, 0x2000));
	settle(d);
	node(d, 2);
	uint8_t got[480];
	sd_get(d, 0x2000, got, 480);
	CHECK(memcmp(got, src, 480) == 0);
	dnet_close(d);
}

/* A Controller Reset of a stalled receiver drops its queued packets
 * (D-SIM-RESET); the blocked sender's SWIF FIFO then drains and the sender
 * finishes its primitives. */
static void test_reset_releases_sender(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=2");
	node(d, 2);
	ureg_w(d, 0, DNET_UR_STATUS_SIZE, 0x01);
	node(d, 1);
	unsigned issued = 0;
	while (issued < 40 &&
	       !dnet_wait(d, UR(0, DNET_UR_CTL_STATUS), 5, DNET_COND_EQ, 0, 50000, NULL, &E)) {
		wr64(d, UR(0, DNET_UR_CMD0_UPPER), UP(0, 0x100));
		wr64(d, UR(0, DNET_UR_CMD0_LOWER), LO(DNET_OT_RVS, 0, 0, 0, 2, 1, 8));
		issued++;
	}
	settle(d);
	unsigned done = prim(d, 0, DNET_FAM_RVS);
	CHECK(done < issued);
	node(d, 2);
	sreg_w(d, DNET_SR_CTL_RESET, 0);
	settle(d);
	node(d, 1);
	CHECK_EQ(prim(d, 0, DNET_FAM_RVS), issued);
	bool busy = true;
	CHECK_OK(dnet_busy(d, &busy, &E), &E);
	CHECK(!busy);
	dnet_close(d);
}

int main(void)
{
	RUN(test_ctl_reset);
	RUN(test_ctl_reset_scope);
	RUN(test_reset_releases_sender);
	return t_summary("test_sim_reset");
}
