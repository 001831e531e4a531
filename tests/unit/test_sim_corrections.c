/* The independent-oracle suite: the emulator corrections of the independent
 * audit (issue 7), each pinned against values computed here from the
 * thesis's rules, not by libdnet or the emulator.  It keeps its own name
 * (the per-block tests are test_sim_<file>.c); what each case covers:
 *
 *   test_vss_dst_overrun_rule   wc.c      D-SIM-VS-DST (§4.6.4)
 *   test_rvl_responder_counts   rc.c      D-SIM-RVL-RX (App. A)
 *   test_copy_list_refused      wc.c      D-SIM-COPY-LIST (§4.6.8)
 *   test_ctl_reset_read         node.c    D-REG-READ-EFFECT (App. B)
 *   test_clid_reading_option    sim.c, switch.c   D-CLID (option clid=),
 *                                         D-SIM-MULTICAST (with test_sim_switch.c test_3071)
 *   test_halt_on_error          wc.c      D-SIM-HALT
 *   test_halt_on_receive_error  rc.c      D-SIM-HALT
 */
#include <string.h>
#include "test_spec_enc.h"

/* Controller Status bits (Tab. A.1), written out here. */
#define CS_DONE0 (1ull << 5)
#define CS_SRC_OVR0 (1ull << 6)
#define CS_DST_OVR0 (1ull << 7)
#define CS_DST_OVR3 (1ull << 16) /* 7 + 3 x 3: the copy's group (SRCOff[10:9] = 3) */
#define CS_RC_OVR (1ull << 17)
#define CS_RC_STATE(v) (((v) >> 18) & 3u)
#define CS_ST_EMPTY (1ull << 4)
#define MODSTATE_IDLE 0x0000422200020001ull /* Fig. C.13 */

/* VSS: §4.6.4 tests DSTOff + the total transfer size against the area. */
static void test_vss_dst_overrun_rule(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=1");
	uint8_t ww[64], got[8];
	fill(ww, sizeof ww, 4);
	ww_put(d, 0, 0, ww, sizeof ww);
	/* Stride 0 at CAP - 8, 4 elements of 8 bytes: every element lands at
	 * CAP - 8 (inside), but DSTOff + 32 > CAP: the flag rises. */
	kick(d, 0, 0, LO(DNET_OT_VSS, 3, 4, 0, 0, 0, 0), UP(0, (uint32_t)(CAP256 - 8)));
	settle(d);
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS) & CS_DST_OVR0, CS_DST_OVR0);
	sd_get(d, CAP256 - 8, got, 8);
	CHECK(memcmp(got, ww + 24, 8) == 0); /* the last element written last */
	/* A large stride from 0: elements past the area are not written, but
	 * DSTOff + total (8 x 8 bytes) is inside: no flag. */
	uint32_t stride = 0x4000000; /* 64 MB: elements 4..7 fall past 256 MB */
	kick(d, 0, 0, LO(DNET_OT_VSS, 3, 8, 0, 0, 0, stride), UP(0, 0));
	settle(d);
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS) & CS_DST_OVR0, 0);
	for (unsigned i = 0; i < 4; i++) {
		sd_get(d, (uint64_t)i * stride, got, 8);
		CHECK(memcmp(got, ww + 8 * i, 8) == 0);
	}
	/* VSI still tests each element: an index past the area raises it. */
	uint32_t idx[2] = { 0x100, (uint32_t)(CAP256 - 4) };
	sd_put(d, 0x2000, idx, sizeof idx);
	kick(d, 0, 0, LO(DNET_OT_VSI, 3, 2, 0, 0, 0, 0x2000), UP(0, 0));
	settle(d);
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS) & CS_DST_OVR0, CS_DST_OVR0);
	sd_get(d, 0x100, got, 8);
	CHECK(memcmp(got, ww, 8) == 0);
	/* Boundaries: VSS ending exactly at the area end (DSTOff + 2 x 8 =
	 * CAP, Stride 8): no flag; VS of 16 bytes from CAP - 8: flag, the
	 * first 8 bytes written (bytes, not elements). */
	kick(d, 0, 0, LO(DNET_OT_VSS, 3, 2, 0, 0, 0, 8), UP(0, (uint32_t)(CAP256 - 16)));
	settle(d);
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS) & CS_DST_OVR0, 0);
	sd_get(d, CAP256 - 8, got, 8);
	CHECK(memcmp(got, ww + 8, 8) == 0);
	kick(d, 0, 0, LO(DNET_OT_VS, 0, 0, 0, 0, 0, 16), UP(0x20, (uint32_t)(CAP256 - 8)));
	settle(d);
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS) & (CS_DST_OVR0 | CS_DONE0), CS_DST_OVR0 | CS_DONE0);
	sd_get(d, CAP256 - 8, got, 8);
	CHECK(memcmp(got, ww + 0x20, 8) == 0);
	/* A VSI with DSTOff = 0xffffffff is no copy (the VS-family marker is
	 * SRCOff): an ordinary VSI whose element lands outside -- flag,
	 * nothing written, counted. */
	unsigned vs0 = prim(d, 0, DNET_FAM_VS);
	uint32_t idx0 = 0;
	sd_put(d, 0x3000, &idx0, 4);
	kick(d, 0, 0, LO(DNET_OT_VSI, 3, 1, 0, 0, 0, 0x3000), UP(0, 0xffffffffu));
	settle(d);
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS) & CS_DST_OVR0, CS_DST_OVR0);
	CHECK_EQ(prim(d, 0, DNET_FAM_VS), vs0 + 1);
	CHECK_EQ(stat(d, "copy_list_refused"), 0);
	/* The copy's VSS half is judged by DSTOff + total too: 16 bytes copied
	 * with Stride 0 to CAP - 8 -- both elements fit, the flag of group 3
	 * rises; the last element is what stays. */
	uint8_t src[16];
	fill(src, sizeof src, 9);
	sd_put(d, 0x5000, src, sizeof src);
	kick(d, 0, 0, LO(DNET_OT_VL, 0, 0, 0, 0, 0, 16), UP(0x5000, 0xffffffffu));
	kick(d, 0, 0, LO(DNET_OT_VSS, 3, 2, 0, 0, 0, 0), UP(0xffffffffu, (uint32_t)(CAP256 - 8)));
	settle(d);
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS) & CS_DST_OVR3, CS_DST_OVR3);
	sd_get(d, CAP256 - 8, got, 8);
	CHECK(memcmp(got, src + 8, 8) == 0);
	dnet_close(d);
}

/* The RVL responder's Packet Counter counts the request packets (App. A). */
static void test_rvl_responder_counts(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=2");
	for (unsigned i = 0; i < 5; i++)
		kick(d, 0, 0, LO(DNET_OT_RVL, 0, 0, 0, 2, 0, 16), UP(0, 0x100));
	settle(d);
	CHECK_EQ(ureg(d, 0, DNET_UR_PKT_COUNTER), 5); /* the 5 answers */
	node(d, 2);
	CHECK_EQ(ureg(d, 0, DNET_UR_PKT_COUNTER), 5); /* the 5 requests */
	CHECK_EQ(ureg(d, 0, DNET_UR_STATUS_ADDR), 0);  /* and no status */
	/* A request dropped by the PGID check (§4.4) is no reception. */
	sreg_w(d, DNET_SR_PGID0, 5);
	node(d, 1);
	kick(d, 0, 0, LO(DNET_OT_RVL, 0, 0, 0, 2, 0, 16), UP(0, 0x100));
	settle(d);
	node(d, 2);
	CHECK_EQ(ureg(d, 0, DNET_UR_PKT_COUNTER), 5);
	CHECK_EQ(stat(d, "pgid_drops"), 1);
	dnet_close(d);
}

/* VLI/VSI with the copy marker: no copy, no counter (§4.6.8). */
static void test_copy_list_refused(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=1");
	uint64_t v = 0x1122334455667788ull, g = 0;
	sd_put(d, 0x1000, &v, 8);
	kick(d, 0, 0, LO(DNET_OT_VLI, 3, 1, 0, 0, 0, 0x3000), UP(0x1000, 0xffffffffu));
	kick(d, 0, 0, LO(DNET_OT_VSI, 3, 1, 0, 0, 0, 0x3000), UP(0xffffffffu, 0x2000));
	settle(d);
	CHECK_EQ(stat(d, "copy_list_refused"), 2);
	CHECK_EQ(prim(d, 0, DNET_FAM_VL), 0);
	CHECK_EQ(prim(d, 0, DNET_FAM_VS), 0);
	sd_get(d, 0x2000, &g, 8);
	CHECK_EQ(g, 0);
	/* VL + VS (contiguous) still copy. */
	kick(d, 0, 0, LO(DNET_OT_VL, 0, 0, 0, 0, 0, 8), UP(0x1000, 0xffffffffu));
	kick(d, 0, 0, LO(DNET_OT_VS, 0, 0, 0, 0, 0, 8), UP(0xffffffffu, 0x2000));
	settle(d);
	sd_get(d, 0x2000, &g, 8);
	CHECK_EQ(g, v);
	dnet_close(d);
}

/* Controller Reset read (App. B: any access resets the controller):
 * dnet_reg_read refuses it and nothing happens; dnet_reg_read_effect is
 * the confirmed read and resets (D-REG-READ-EFFECT). */
static void test_ctl_reset_read(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=1");
	const struct dnet_reg *r = NULL, *cs = NULL;
	CHECK_OK(dnet_reg_parse("ctl_reset", &r, NULL, &E), &E);
	CHECK_OK(dnet_reg_parse("ctl_status", &cs, NULL, &E), &E);
	issue(d, 0, DNET_OT_VS, 8, 0, 0x100);
	settle(d);
	CHECK_EQ(prim(d, 0, DNET_FAM_VS), 1);
	uint64_t v = 0;
	CHECK_EQ(dnet_reg_read(d, 0, r, &v, &E), -DNET_EPERM);
	CHECK(strstr(E.msg, "resets the controller") != NULL);
	CHECK_EQ(prim(d, 0, DNET_FAM_VS), 1); /* refused: nothing reset */
	CHECK_OK(dnet_reg_read_effect(d, 0, r, &v, &E), &E);
	CHECK_EQ(prim(d, 0, DNET_FAM_VS), 0); /* the read reset the controller */
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS) & CS_DONE0, 0);
	CHECK_EQ(dnet_reg_read_effect(d, 0, cs, &v, &E), -DNET_EINVAL);
	dnet_close(d);
}

/* The LID a CLID expands to, written out from the two readings of "bits
 * 9-12 removed" (D-CLID): a 4-bit hole at LID[11:8] or at LID[12:9]. */
static uint16_t lid_of(unsigned clid, bool r12_9)
{
	if (clid == 0xfff)
		return 0xffff;
	if (r12_9)
		return (uint16_t)(((clid >> 9) & 7u) << 13 | (clid & 0x1ffu));
	return (uint16_t)(((clid >> 8) & 0xfu) << 12 | (clid & 0xffu));
}

/* The other reading, LID[12:9] (option clid=12:9), for a whole sim
 * instance: SMA LIDs, routing and the sender's CLID in the status. */
static void test_clid_reading_option(void)
{
	CHECK_EQ(lid_of(0x100, false), 0x1000);
	CHECK_EQ(lid_of(0x100, true), 0x0100);
	CHECK_EQ(lid_of(0x300, true), 0x2100);
	CHECK_EQ(lid_of(0x1ff, false), 0x10ff);
	struct dnet_dev *d = sim_open("sim:nodes=1000,clid=12:9");
	CHECK_EQ(dnet_dev_clid_reading(d), DNET_CLID_12_9);
	static const unsigned ids[] = { 1, 0xff, 0x100, 0x1ff, 0x200, 0x300, 0x3e7 };
	for (unsigned i = 0; i < sizeof ids / sizeof ids[0]; i++) {
		node(d, ids[i]);
		CHECK_EQ(rd64(d, DNET_SREG_BASE + DNET_SR_SMA) & 0xffff, lid_of(ids[i], true));
	}
	/* Node 0x300 -> node 0x100 and back through the switch. */
	node(d, 0x300);
	uint64_t v = 0xabcdef, g = 0;
	sd_put(d, 0x100, &v, 8);
	kick(d, 0, 0, LO(DNET_OT_RVS, 0, 0, 0, 0x100, 1, 8), UP(0x100, 0x200));
	settle(d);
	node(d, 0x100);
	sd_get(d, 0x200, &g, 8);
	CHECK_EQ(g, v);
	CHECK_EQ(rd64(d, DNET_LLCM_WID(0)), STLO(DNET_OT_RVS, 0, 0, 0, 0x300, 8));
	CHECK_EQ(stat(d, "unroutable_drops"), 0);
	/* The reading is the handle's (D-CLID): a sim with the other reading
	 * opens beside this one, each routes and builds LIDs with its own. */
	struct dnet_dev *bad = NULL, *other = sim_open("sim:nodes=1000");
	CHECK_EQ(dnet_dev_clid_reading(other), DNET_CLID_11_8);
	CHECK_EQ(dnet_dev_clid_reading(d), DNET_CLID_12_9);
	CHECK_EQ(dnet_clid_to_lid(dnet_dev_clid_reading(d), 0x300), lid_of(0x300, true));
	CHECK_EQ(dnet_clid_to_lid(dnet_dev_clid_reading(other), 0x300), lid_of(0x300, false));
	for (unsigned i = 0; i < sizeof ids / sizeof ids[0]; i++) {
		node(other, ids[i]);
		CHECK_EQ(rd64(other, DNET_SREG_BASE + DNET_SR_SMA) & 0xffff, lid_of(ids[i], false));
		node(d, ids[i]);
		CHECK_EQ(rd64(d, DNET_SREG_BASE + DNET_SR_SMA) & 0xffff, lid_of(ids[i], true));
	}
	dnet_close(other);
	dnet_close(d);
	CHECK_EQ(dnet_open("sim:clid=12:9,nodes=3072", &bad, &E), -DNET_EINVAL);
	CHECK_EQ(dnet_open("sim:clid=10:7", &bad, &E), -DNET_EINVAL);
	d = sim_open("sim:nodes=1000");
	for (unsigned i = 0; i < sizeof ids / sizeof ids[0]; i++) {
		node(d, ids[i]);
		CHECK_EQ(rd64(d, DNET_SREG_BASE + DNET_SR_SMA) & 0xffff, lid_of(ids[i], false));
	}
	dnet_close(d);
}

static void busy_is(struct dnet_dev *d, bool want)
{
	bool busy = !want;
	CHECK_OK(dnet_busy(d, &busy, &E), &E);
	CHECK_EQ(busy, want);
}

/* halt_on_error, Window Controller: a VS overrun stops it after the
 * clipped write, before the Vector Store Status, until Controller Reset. */
static void test_halt_on_error(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=1,halt_on_error");
	uint8_t ww[24], got[8], zero[8] = { 0 };
	fill(ww, sizeof ww, 2);
	ww_put(d, 0, 0x1e8, ww, sizeof ww); /* the last 24 bytes of WW#0 */
	/* (a) 16 bytes from the last 8 of WW#0: source overrun (Size cut to
	 * 8, §4.6.4), the 8 bytes are written, then the controller stops:
	 * no "write complete", no VS counter, Module State not idle. */
	kick(d, 0, 0, LO(DNET_OT_VS, 0, 0, 0, 0, 0, 16), UP(0x1f8, 0x100));
	settle(d);
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS) & (CS_SRC_OVR0 | CS_DONE0), CS_SRC_OVR0);
	CHECK_EQ(prim(d, 0, DNET_FAM_VS), 0);
	CHECK(ureg(d, 0, DNET_UR_MODULE_STATE) != MODSTATE_IDLE);
	sd_get(d, 0x100, got, 8);
	CHECK(memcmp(got, ww + 16, 8) == 0);
	/* The next request is not executed. */
	kick(d, 0, 0, LO(DNET_OT_VS, 0, 0, 0, 0, 0, 8), UP(0x1e8, 0x300));
	settle(d);
	CHECK_EQ(prim(d, 0, DNET_FAM_VS), 0);
	sd_get(d, 0x300, got, 8);
	CHECK(memcmp(got, zero, 8) == 0);
	busy_is(d, true);
	/* Controller Reset recovers (the waiting request is dropped with the
	 * FIFO, D-SIM-RESET); a new request runs. */
	sreg_w(d, DNET_SR_CTL_RESET, 0);
	CHECK_EQ(ureg(d, 0, DNET_UR_MODULE_STATE), MODSTATE_IDLE);
	kick(d, 0, 0, LO(DNET_OT_VS, 0, 0, 0, 0, 0, 8), UP(0x1f0, 0x300));
	settle(d);
	CHECK_EQ(prim(d, 0, DNET_FAM_VS), 1);
	sd_get(d, 0x300, got, 8);
	CHECK(memcmp(got, ww + 8, 8) == 0);
	/* (b) destination overrun: 16 bytes to CAP - 8, the first 8 written,
	 * stopped the same way. */
	kick(d, 0, 0, LO(DNET_OT_VS, 0, 0, 0, 0, 0, 16), UP(0x1e8, (uint32_t)(CAP256 - 8)));
	settle(d);
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS) & (CS_DST_OVR0 | CS_DONE0), CS_DST_OVR0);
	CHECK_EQ(prim(d, 0, DNET_FAM_VS), 1);
	CHECK(ureg(d, 0, DNET_UR_MODULE_STATE) != MODSTATE_IDLE);
	sd_get(d, CAP256 - 8, got, 8);
	CHECK(memcmp(got, ww, 8) == 0);
	busy_is(d, true);
	/* A read of Controller Reset recovers too (App. B: any access). */
	/* the read made on purpose: a raw read is refused (access.h reg-effect) */
	CHECK_OK(dnet_reg_read_effect(d, 0, dnet_reg_by_name("ctl_reset"), &(uint64_t){ 0 }, &E), &E);
	busy_is(d, false);
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS) & (CS_DST_OVR0 | CS_DONE0), 0);
	dnet_close(d);
	/* Without the option the controller goes on (the default). */
	d = sim_open("sim:nodes=1");
	ww_put(d, 0, 0x1e8, ww, sizeof ww);
	kick(d, 0, 0, LO(DNET_OT_VS, 0, 0, 0, 0, 0, 16), UP(0x1f8, 0x100));
	kick(d, 0, 0, LO(DNET_OT_VS, 0, 0, 0, 0, 0, 8), UP(0x1e8, 0x300));
	settle(d);
	CHECK_EQ(prim(d, 0, DNET_FAM_VS), 2);
	CHECK_EQ(ureg(d, 0, DNET_UR_MODULE_STATE), MODSTATE_IDLE);
	dnet_close(d);
}

/* halt_on_error, Receive Controller: a header error ([19:18]) or a receive
 * overrun (bit 17) stops it holding the packet; later packets wait. */
static void test_halt_on_receive_error(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=2,halt_on_error");
	uint64_t v = 0x0123456789abcdefull, w2 = 0xfedcba9876543210ull, g = 0;
	node(d, 2);
	sd_put(d, 0x100, &v, 8);
	sd_put(d, 0x108, &w2, 8);
	/* (a) a BOTF image of a 2-line RVS sent with hflag = 1: 2'b10 at node 1. */
	uint64_t img[4];
	img[0] = H1(0, DNET_OT_RVS, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0);
	img[1] = UP(0x3000, 0x3000);
	img[2] = 8;
	img[3] = v;
	ww_put(d, 0, 0, img, sizeof img);
	kick_botf(d, 0, 0, sizeof img);
	settle(d);
	node(d, 1);
	CHECK_EQ(CS_RC_STATE(ureg(d, 0, DNET_UR_CTL_STATUS)), 2);
	CHECK(ureg(d, 0, DNET_UR_MODULE_STATE) != MODSTATE_IDLE);
	/* A good RVS from node 2 now waits: not written, not counted. */
	node(d, 2);
	kick(d, 0, 0, LO(DNET_OT_RVS, 0, 0, 0, 1, 1, 8), UP(0x100, 0x200));
	settle(d);
	CHECK_EQ(prim(d, 0, DNET_FAM_RVS), 1); /* sent */
	node(d, 1);
	sd_get(d, 0x200, &g, 8);
	CHECK_EQ(g, 0);
	CHECK_EQ(ureg(d, 0, DNET_UR_PKT_COUNTER), 0);
	CHECK_EQ(stat(d, "rx_queue"), 2); /* the packet in error (held) + the good one */
	/* Controller Reset of node 1: the held and the queued packets are
	 * dropped (D-SIM-RESET); the next RVS is received. */
	sreg_w(d, DNET_SR_CTL_RESET, 0);
	CHECK_EQ(ureg(d, 0, DNET_UR_MODULE_STATE), MODSTATE_IDLE);
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS) >> 17, 0);
	node(d, 2);
	kick(d, 0, 0, LO(DNET_OT_RVS, 0, 0, 0, 1, 1, 8), UP(0x100, 0x200));
	settle(d);
	node(d, 1);
	sd_get(d, 0x200, &g, 8);
	CHECK_EQ(g, v);
	CHECK_EQ(ureg(d, 0, DNET_UR_PKT_COUNTER), 1);
	/* (b) 16 bytes to node 1's CAP - 8: bit 17, the first 8 bytes written,
	 * then stopped before the Packet Counter and the status. */
	/* Status Address reads the Tail (Next Write), a write sets the Head
	 * (Next Read, App. A): Head := Tail empties the ring. */
	ureg_w(d, 0, DNET_UR_STATUS_ADDR, ureg(d, 0, DNET_UR_STATUS_ADDR));
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS) & CS_ST_EMPTY, CS_ST_EMPTY);
	node(d, 2);
	kick(d, 0, 0, LO(DNET_OT_RVS, 0, 0, 0, 1, 1, 16), UP(0x100, (uint32_t)(CAP256 - 8)));
	settle(d);
	node(d, 1);
	uint64_t cs = ureg(d, 0, DNET_UR_CTL_STATUS);
	CHECK_EQ(cs & CS_RC_OVR, CS_RC_OVR);
	CHECK_EQ(cs & CS_ST_EMPTY, CS_ST_EMPTY); /* no status */
	CHECK_EQ(ureg(d, 0, DNET_UR_PKT_COUNTER), 1);
	sd_get(d, CAP256 - 8, &g, 8);
	CHECK_EQ(g, v);
	CHECK(ureg(d, 0, DNET_UR_MODULE_STATE) != MODSTATE_IDLE);
	sreg_w(d, DNET_SR_CTL_RESET, 0);
	CHECK_EQ(ureg(d, 0, DNET_UR_MODULE_STATE), MODSTATE_IDLE);
	dnet_close(d);
	/* Without the option: flagged, counted, and reception goes on. */
	d = sim_open("sim:nodes=2");
	node(d, 2);
	sd_put(d, 0x100, &v, 8);
	kick(d, 0, 0, LO(DNET_OT_RVS, 0, 0, 0, 1, 1, 16), UP(0x100, (uint32_t)(CAP256 - 8)));
	kick(d, 0, 0, LO(DNET_OT_RVS, 0, 0, 0, 1, 1, 8), UP(0x100, 0x200));
	settle(d);
	node(d, 1);
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS) & CS_RC_OVR, CS_RC_OVR);
	CHECK_EQ(ureg(d, 0, DNET_UR_PKT_COUNTER), 2);
	sd_get(d, 0x200, &g, 8);
	CHECK_EQ(g, v);
	dnet_close(d);
}

int main(void)
{
	RUN(test_vss_dst_overrun_rule);
	RUN(test_rvl_responder_counts);
	RUN(test_copy_list_refused);
	RUN(test_ctl_reset_read);
	RUN(test_clid_reading_option);
	RUN(test_halt_on_error);
	RUN(test_halt_on_receive_error);
	return t_summary("test_sim_corrections");
}
