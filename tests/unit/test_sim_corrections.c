/* Emulator corrections from the independent audit (issue 7, item 5), each
 * pinned against values computed here from the thesis's rules:
 * D-SIM-VS-DST, D-SIM-MULTICAST (with test_sim_spec.c test_3071),
 * D-SIM-RVL-RX, D-SIM-COPY-LIST, D-CLID (option), D-SIM-HALT. */
#include "test_spec_enc.h"

#define CS_DST_OVR0 (1ull << 7)
#define CS_SRC_OVR0 (1ull << 6)

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

/* The other reading of "bits 9-12 removed": LID[12:9] (option clid=12:9):
 * node 256 (CLID 0x100) has LID 0x0100 instead of 0x1000. */
static void test_clid_reading_option(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=300,clid=12:9");
	node(d, 256);
	CHECK_EQ(rd64(d, DNET_SREG_BASE + DNET_SR_SMA) & 0xffff, 0x0100);
	node(d, 1);
	uint64_t v = 0xabcdef, g = 0;
	sd_put(d, 0x100, &v, 8);
	kick(d, 0, 0, LO(DNET_OT_RVS, 0, 0, 0, 0x100, 1, 8), UP(0x100, 0x200));
	settle(d);
	node(d, 256);
	sd_get(d, 0x200, &g, 8);
	CHECK_EQ(g, v);
	dnet_close(d);
	dnet_clid_set_reading(DNET_CLID_11_8); /* process-wide: back to the default */
	d = sim_open("sim:nodes=300");
	node(d, 256);
	CHECK_EQ(rd64(d, DNET_SREG_BASE + DNET_SR_SMA) & 0xffff, 0x1000);
	dnet_close(d);
	struct dnet_dev *bad = NULL;
	CHECK_EQ(dnet_open("sim:clid=10:7", &bad, &E), -DNET_EINVAL);
}

/* halt_on_error: an error stops the controller until Controller Reset. */
static void test_halt_on_error(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=1,halt_on_error");
	uint8_t ww[16];
	fill(ww, sizeof ww, 2);
	ww_put(d, 0, 0x200, ww, sizeof ww);
	/* 16 bytes from the last 8 of WW#0: source overrun -> halt. */
	kick(d, 0, 0, LO(DNET_OT_VS, 0, 0, 0, 0, 0, 16), UP(0x1f8, 0x100));
	settle(d);
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS) & CS_SRC_OVR0, CS_SRC_OVR0);
	/* Stopped inside the VS (Module State: the executor in VS1, not idle);
	 * it never completes, and the next request is not executed. */
	CHECK_EQ(prim(d, 0, DNET_FAM_VS), 0);
	CHECK(ureg(d, 0, DNET_UR_MODULE_STATE) != 0x0000422200020001ull);
	kick(d, 0, 0, LO(DNET_OT_VS, 0, 0, 0, 0, 0, 8), UP(0x200, 0x300));
	settle(d);
	CHECK_EQ(prim(d, 0, DNET_FAM_VS), 0);
	bool busy = false;
	CHECK_OK(dnet_busy(d, &busy, &E), &E);
	CHECK(busy);
	/* Controller Reset recovers; a new request runs. */
	sreg_w(d, DNET_SR_CTL_RESET, 0);
	kick(d, 0, 0, LO(DNET_OT_VS, 0, 0, 0, 0, 0, 8), UP(0x200, 0x300));
	settle(d);
	CHECK_EQ(prim(d, 0, DNET_FAM_VS), 1);
	uint8_t got[8];
	sd_get(d, 0x300, got, 8);
	CHECK(memcmp(got, ww, 8) == 0);
	dnet_close(d);
	/* Without the option the controller goes on (today's default). */
	d = sim_open("sim:nodes=1");
	ww_put(d, 0, 0x200, ww, sizeof ww);
	kick(d, 0, 0, LO(DNET_OT_VS, 0, 0, 0, 0, 0, 16), UP(0x1f8, 0x100));
	kick(d, 0, 0, LO(DNET_OT_VS, 0, 0, 0, 0, 0, 8), UP(0x200, 0x300));
	settle(d);
	CHECK_EQ(prim(d, 0, DNET_FAM_VS), 2);
	dnet_close(d);
}

int main(void)
{
	RUN(test_vss_dst_overrun_rule);
	RUN(test_rvl_responder_counts);
	RUN(test_copy_list_refused);
	RUN(test_clid_reading_option);
	RUN(test_halt_on_error);
	return t_summary("test_sim_corrections");
}
