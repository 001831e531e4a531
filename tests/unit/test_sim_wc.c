/* Tests of backends/sim/wc.c, the Window Controller: command registers,
 * Request FIFO, Acceptor and the one-primitive-at-a-time Executor; the local
 * VL/VS families, SO-DIMM copy, Command Ex, and the sender's packetisation
 * at each MTU (docs/device.md,
 * 7.1-7.3; thesis §4.6, §5.2.2, §5.3; App. C's worked example).
 *
 * Requests, flags, statuses and every expected byte are written out here
 * from the spec's tables (test_spec_enc.h), not computed by libdnet or the
 * emulator.  Access patterns (stride, list): test_sim_xfer.c; the audit's
 * pinned cases (VSS destination overrun, copy lists, halt on error):
 * test_sim_corrections.c. */
/* Decisions pinned here (docs/decisions.md): D-SIM-FIFO-ARB,
 * D-SIM-COPY-MARKER, D-SIM-COPY-DONE, D-SIM-PWFLAG, D-SIM-COUNTERS,
 * D-SIM-OTYPE, D-SIM-REQ-ID. */
#include "test_spec_enc.h"

/* The thesis's worked example (Fig. C.7, C.12, C.14). */
static void test_vs_golden(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=1");
	uint8_t a[512], b[512], got[512];
	fill(a, sizeof a, 1);
	fill(b, sizeof b, 2);
	CHECK_OK(dnet_write_block(d, DNET_WW_WID(0) + 0x000, a, 512, &E), &E);
	CHECK_OK(dnet_write_block(d, DNET_WW_WID(0) + 0x400, b, 512, &E), &E);
	issue(d, 0, DNET_OT_VS, 0x200, 0x000, 0x2000);
	/* Not complete at the store that kicked it. */
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS) & (1u << 5), 0);
	wait_eq(d, DNET_UREG_WID(0) + DNET_UR_CTL_STATUS, 1u << 5, 1u << 5);
	issue(d, 0, DNET_OT_VS, 0x200, 0x400, 0x600);
	wait_eq(d, DNET_UREG_WID(0) + DNET_UR_CTL_STATUS, 1u << 11, 1u << 11);
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS), 0x832);
	CHECK_EQ(ureg(d, 0, DNET_UR_PRIM_COUNTER), 2ull << 20);
	sd_get(d, 0x600, got, 512);
	CHECK(memcmp(got, b, 512) == 0);
	sd_get(d, 0x2000, got, 512);
	CHECK(memcmp(got, a, 512) == 0);
	/* WID 1's VS goes to its own area at C + DSTOff and its own counter. */
	CHECK_OK(dnet_write_block(d, DNET_WW_WID(1) + 0x200, b, 512, &E), &E);
	issue(d, 1, DNET_OT_VS, 0x100, 0x200, 0x40);
	wait_eq(d, DNET_UREG_WID(1) + DNET_UR_CTL_STATUS, 1u << 8, 1u << 8);
	sd_get(d, CAP256 + 0x40, got, 0x100);
	CHECK(memcmp(got, b, 0x100) == 0);
	CHECK_EQ(ureg(d, 1, DNET_UR_PRIM_COUNTER), 1ull << 20);
	CHECK_EQ(ureg(d, 0, DNET_UR_PRIM_COUNTER), 2ull << 20);
	/* Counter reset, then BOTF 1 + VS 1 reads 0x100001 (Fig. C.14). */
	ureg_w(d, 0, DNET_UR_PRIM_COUNTER, 1);
	CHECK_EQ(ureg(d, 0, DNET_UR_PRIM_COUNTER), 0);
	uint64_t img[3] = { 0x0000000200014000ull, 0, 0 }; /* RVS to LID 2 (no such node) */
	CHECK_OK(dnet_write_block(d, DNET_WW_WID(0) + 0x200, img, 24, &E), &E);
	issue_botf(d, 0, 1, 24);
	issue(d, 0, DNET_OT_VS, 8, 0x000, 0x3000);
	settle(d);
	CHECK_EQ(ureg(d, 0, DNET_UR_PRIM_COUNTER), 0x100001);
	CHECK_EQ(stat(d, "unroutable_drops"), 1);
	dnet_close(d);
}

static void test_vs_clip(void)
{
	struct dnet_dev *d = sim_open("sim");
	uint8_t ww[2048], got[0x200], zero[0x200] = { 0 };
	fill(ww, sizeof ww, 3);
	CHECK_OK(dnet_write_block(d, DNET_WW_WID(0), ww, sizeof ww, &E), &E);
	/* WW#1 is 0x200-0x3ff: 0x200 bytes from 0x300 are clipped to 0x100,
	 * source overrun of window 1 = bit 9, done = bit 8. */
	issue(d, 0, DNET_OT_VS, 0x200, 0x300, 0x10000);
	settle(d);
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS), 0x12 | 1u << 8 | 1u << 9);
	sd_get(d, 0x10000, got, 0x200);
	CHECK(memcmp(got, ww + 0x300, 0x100) == 0);
	CHECK(memcmp(got + 0x100, zero, 0x100) == 0);
	/* Destination past the 256 MB area: 16 of 64 bytes written, bit 16
	 * (window 3 dst overrun), done bit 14.  Nothing lands in WID 1's area. */
	issue(d, 0, DNET_OT_VS, 0x40, 0x600, (uint32_t)(CAP256 - 0x10));
	settle(d);
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS), 0x12 | 1u << 8 | 1u << 9 | 1u << 14 | 1u << 16);
	sd_get(d, CAP256 - 0x10, got, 0x20);
	CHECK(memcmp(got, ww + 0x600, 0x10) == 0);
	CHECK(memcmp(got + 0x10, zero, 0x10) == 0);
	/* A new VS from window 1 clears window 1's bits first. */
	issue(d, 0, DNET_OT_VS, 0x10, 0x200, 0x20000);
	settle(d);
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS), 0x12 | 1u << 8 | 1u << 14 | 1u << 16);
	/* VSS: 8-byte elements (DTYPE 3), 70 of them from 0x600 would need 560
	 * bytes of WW#3 (512 - 0 = 512 available): Iteration clipped to 64. */
	issue_x(d, 0, 0, DNET_OT_VSS, 3, 70, 0, 0, 0, 32, 0x600, 0x30000, NULL);
	settle(d);
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS), 0x12 | 1u << 8 | 1u << 14 | 1u << 15);
	uint8_t el[8];
	int bad = 0;
	for (unsigned i = 0; i < 64; i++) {
		sd_get(d, 0x30000 + 32 * i, el, 8);
		bad += memcmp(el, ww + 0x600 + 8 * i, 8) != 0;
		sd_get(d, 0x30000 + 32 * i + 8, el, 8);
		bad += memcmp(el, zero, 8) != 0;
	}
	CHECK_EQ(bad, 0);
	sd_get(d, 0x30000 + 32 * 64, el, 8);
	CHECK(memcmp(el, zero, 8) == 0);
	dnet_close(d);
}

static void test_vl_flags(void)
{
	struct dnet_dev *d = sim_open("sim");
	uint8_t src[0x200], pw[0x200];
	fill(src, sizeof src, 5);
	sd_put(d, 0x4000, src, sizeof src);
	/* Earlier state: flags of every window are 0 after reset. */
	CHECK_EQ(ureg(d, 0, DNET_UR_PW_FLAG), 0);
	/* VL 0x80 bytes into PW#1 line 1 (0x280): lines 0, 2, 3 are set at
	 * issue (bits 4, 6, 7), line 1 when the data lands. */
	issue(d, 0, DNET_OT_VL, 0x80, 0x4000, 0x280);
	CHECK_EQ(ureg(d, 0, DNET_UR_PW_FLAG), 0xd0);
	wait_eq(d, DNET_UREG_WID(0) + DNET_UR_PW_FLAG, 0xf0, 0xf0);
	CHECK_OK(dnet_read_block(d, DNET_PW_WID(0) + 0x280, pw, 0x80, &E), &E);
	CHECK(memcmp(pw, src, 0x80) == 0);
	/* A whole window: observe the flags rise line by line. */
	uint8_t old[1];
	issue(d, 0, DNET_OT_VL, 0x200, 0x4000, 0x000);
	CHECK_EQ(ureg(d, 0, DNET_UR_PW_FLAG) & 0xf, 0);
	for (unsigned k = 0; k < 2; k++) {
		/* The wait returns at the moment line k's flag rises: the lines
		 * before it are done, the lines after it are not. */
		uint64_t last = 0;
		CHECK_OK(dnet_wait(d, DNET_UREG_WID(0) + DNET_UR_PW_FLAG, 1u << k, DNET_COND_NE, 0,
				   1000000, &last, &E), &E);
		CHECK_EQ(last & 0xf, (2u << k) - 1);
	}
	/* A partially completed window: lines 0-1 can be read already. */
	CHECK_OK(dnet_read_block(d, DNET_PW_WID(0), pw, 0x100, &E), &E);
	CHECK(memcmp(pw, src, 0x100) == 0);
	(void)old;
	wait_eq(d, DNET_UREG_WID(0) + DNET_UR_PW_FLAG, 0xf, 0xf);
	CHECK_OK(dnet_read_block(d, DNET_PW_WID(0), pw, 0x200, &E), &E);
	CHECK(memcmp(pw, src, 0x200) == 0);
	/* Truncation at the window end, no flag: 0x200 bytes at 0x580 -> 0x80. */
	uint8_t before[0x80];
	CHECK_OK(dnet_read_block(d, DNET_PW_WID(0) + 0x600, before, 0x80, &E), &E);
	issue(d, 0, DNET_OT_VL, 0x200, 0x4000, 0x580);
	CHECK_EQ(ureg(d, 0, DNET_UR_PW_FLAG) & 0xf00, 0x700);
	wait_eq(d, DNET_UREG_WID(0) + DNET_UR_PW_FLAG, 0xf00, 0xf00);
	CHECK_OK(dnet_read_block(d, DNET_PW_WID(0) + 0x580, pw, 0x100, &E), &E);
	CHECK(memcmp(pw, src, 0x80) == 0);
	CHECK(memcmp(pw + 0x80, before, 0x80) == 0); /* PW#3 untouched */
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS), 0x12);
	CHECK_EQ(ureg(d, 0, DNET_UR_PRIM_COUNTER), 3ull << 10);
	dnet_close(d);
}

static void test_copy(void)
{
	struct dnet_dev *d = sim_open("sim");
	uint8_t src[0x300], got[0x300];
	fill(src, sizeof src, 6);
	sd_put(d, 0x7000, src, sizeof src);
	/* VL with DSTOff = 0xffffffff then VS with SRCOff = 0xffffffff. */
	issue(d, 0, DNET_OT_VL, 0x300, 0x7000, 0xffffffffu);
	issue(d, 0, DNET_OT_VS, 0x300, 0xffffffffu, 0x9000);
	wait_eq(d, DNET_UREG_WID(0) + DNET_UR_CTL_STATUS, 1u << 14, 1u << 14);
	sd_get(d, 0x9000, got, sizeof got);
	CHECK(memcmp(got, src, sizeof src) == 0);
	CHECK_EQ(ureg(d, 0, DNET_UR_PRIM_COUNTER), 1ull << 10 | 1ull << 20);
	CHECK_EQ(ureg(d, 0, DNET_UR_PW_FLAG), 0); /* no Prefetch Window involved */
	/* VLS + VS = transpose a column: 4-byte elements every 0x40 bytes.
	 * Marker in SRCOff (Fig. 5.12 reading): the source is then DSTOff. */
	issue_x(d, 0, 0, DNET_OT_VLS, 2, 8, 0, 0, 0, 0x40, 0xffffffffu, 0x7000, NULL);
	issue(d, 0, DNET_OT_VS, 32, 0xffffffffu, 0xa000);
	settle(d);
	uint8_t exp[32];
	for (unsigned i = 0; i < 8; i++)
		memcpy(exp + 4 * i, src + 0x40 * i, 4);
	sd_get(d, 0xa000, got, 32);
	CHECK(memcmp(got, exp, 32) == 0);
	dnet_close(d);
}

static void test_fifo(void)
{
	struct dnet_dev *d = sim_open("sim:fifo=4");
	/* Kick VS requests straight into Command0 Lower without flow control:
	 * with a 4-deep FIFO, Almost Full (bit 2) rises and the last request
	 * stays pending (bit 0) in the register. */
	uint64_t upper = 0x0000800000000000ull; /* DSTOff 0x8000, SRCOff 0 */
	wr64(d, DNET_UREG_WID(0) + DNET_UR_CMD0_UPPER, upper);
	uint64_t lower = 0x0000020000000008ull; /* VS, size 0x200 */
	for (unsigned i = 0; i < 8; i++)
		wr64(d, DNET_UREG_WID(0) + DNET_UR_CMD0_LOWER, lower);
	uint64_t cs = ureg(d, 0, DNET_UR_CTL_STATUS);
	CHECK(cs & DNET_CS_FIFO_FULL);
	CHECK(cs & DNET_CS_REQ_PENDING);
	CHECK(stat(d, "requests_overwritten") >= 1);
	/* While busy Module State is not idle. */
	CHECK(ureg(d, 0, DNET_UR_MODULE_STATE) != 0x0000422200020001ull);
	bool busy = false;
	CHECK_OK(dnet_busy(d, &busy, &E), &E);
	CHECK(busy);
	settle(d);
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS) & 7, 2);
	CHECK_EQ(ureg(d, 0, DNET_UR_MODULE_STATE), 0x0000422200020001ull);
	/* Every kick was eventually executed (none overwritten here). */
	CHECK_EQ((ureg(d, 0, DNET_UR_PRIM_COUNTER) >> 20) & 0x3ff,
		 8 - stat(d, "requests_overwritten"));
	dnet_close(d);
}

static void test_counter_wrap(void)
{
	struct dnet_dev *d = sim_open("sim");
	/* 1025 NOPs count nowhere; 1025 VS wrap the 10-bit VS counter to 1. */
	for (unsigned i = 0; i < 3; i++)
		issue(d, 0, DNET_OT_NOP, 0, 0, 0);
	issue(d, 0, 0x1f, 0, 0, 0); /* undefined code: ignored */
	settle(d);
	CHECK_EQ(ureg(d, 0, DNET_UR_PRIM_COUNTER), 0);
	CHECK_EQ(stat(d, "unknown_otype"), 1);
	for (unsigned i = 0; i < 1025; i++)
		issue(d, 0, DNET_OT_VS, 8, 0, 0x100);
	settle(d);
	CHECK_EQ(ureg(d, 0, DNET_UR_PRIM_COUNTER), 1ull << 20);
	dnet_close(d);
}

/* The Request Executor runs one primitive at a time (§5.3, VS1 waits for the
 * Write Unit): N back-to-back 512-byte VS take at least N times the Write
 * Unit's 64 lines at one line per 10 ns clock, and complete in order. */
static void test_serial_executor(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=1");
	uint64_t t0, t1;
	CHECK_OK(dnet_now(d, &t0, &E), &E);
	for (unsigned i = 0; i < 5; i++)
		issue(d, 0, DNET_OT_VS, 512, 0, 0x10000 + 0x200 * i);
	/* Issuing takes the host 5 x 2 uncachable stores; some VS may be done
	 * by then.  From there every count is seen in turn: one completion at
	 * a time (a wait for == k would miss k if two completed at once). */
	uint64_t last = ureg(d, 0, DNET_UR_PRIM_COUNTER) >> 20 & 0x3ff;
	CHECK(last < 5);
	for (unsigned k = (unsigned)last + 1; k <= 5; k++) {
		CHECK_OK(dnet_wait(d, DNET_UREG_WID(0) + DNET_UR_PRIM_COUNTER, 0x3ffull << 20,
				   DNET_COND_EQ, (uint64_t)k << 20, 100000, &last, &E), &E);
		CHECK_EQ(last >> 20 & 0x3ff, k);
	}
	CHECK_OK(dnet_now(d, &t1, &E), &E);
	CHECK(t1 - t0 >= 5 * 64 * 10);
	dnet_close(d);
}

/* VL family: a read whose SO-DIMM source runs past the process's area is
 * truncated (D-SIM-SRC-CLIP); the lines it will not write must still have
 * their flags set (§4.5.5.2 step 2), so the window reaches 4'b1111 and the
 * host's completion poll ends. */
static void test_vl_src_clip_flags(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=1");
	uint8_t src[0x80], pw[0x80];
	fill(src, sizeof src, 11);
	sd_put(d, CAP256 - 0x80, src, sizeof src);
	/* 0x200 bytes from C - 0x80 into PW#1: only 0x80 exist. */
	kick(d, 0, 0, LO(DNET_OT_VL, 0, 0, 0, 0, 0, 0x200), UP((uint32_t)(CAP256 - 0x80), 0x200));
	CHECK_OK(dnet_wait(d, UR(0, DNET_UR_PW_FLAG), 0xf0, DNET_COND_EQ, 0xf0, 100000, NULL, &E),
		 &E);
	pw_get(d, 0, 0x200, pw, sizeof pw);
	CHECK(memcmp(pw, src, sizeof pw) == 0);
	CHECK_EQ(prim(d, 0, DNET_FAM_VL), 1);
	/* Entirely outside the area: nothing read, the window completes. */
	kick(d, 0, 0, LO(DNET_OT_VL, 0, 0, 0, 0, 0, 0x100), UP((uint32_t)CAP256 + 0x1000, 0x400));
	CHECK_OK(dnet_wait(d, UR(0, DNET_UR_PW_FLAG), 0xf00, DNET_COND_EQ, 0xf00, 100000, NULL, &E),
		 &E);
	CHECK_EQ(prim(d, 0, DNET_FAM_VL), 2);
	dnet_close(d);
}

/* VS family: the status group is w = SRCOff[10:9] (Fig. C.12); Size is
 * clipped at the end of the source window (bit 6 + 3w); Iteration is
 * clipped to whole elements for VSS; a new VS from window w clears only
 * window w's three bits (D-SIM-CS-CLEAR). */
static void test_vs_window_groups(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=1");
	uint8_t ww[2048], got[32], zero[32] = { 0 };
	fill(ww, sizeof ww, 12);
	ww_put(d, 0, 0, ww, sizeof ww);
	uint64_t want = CS_OK;
	for (unsigned w = 0; w < 4; w++) {
		/* 16 bytes from the last 8 of window w: 8 sent, overrun. */
		uint32_t src = w * 0x200 + 0x1f8, dst = 0x1000 * (w + 1);
		kick(d, 0, 0, LO(DNET_OT_VS, 0, 0, 0, 0, 0, 16), UP(src, dst));
		settle(d);
		want |= 1ull << (5 + 3 * w) | 1ull << (6 + 3 * w);
		CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS), want);
		sd_get(d, dst, got, 16);
		CHECK(memcmp(got, ww + src, 8) == 0);
		CHECK(memcmp(got + 8, zero, 8) == 0);
	}
	/* WID 1's Controller Status is untouched (bits 3-16 per WID). */
	CHECK_EQ(ureg(d, 1, DNET_UR_CTL_STATUS), CS_OK);
	/* A clean VS from window 2 clears only group 2's overrun bit. */
	kick(d, 0, 0, LO(DNET_OT_VS, 0, 0, 0, 0, 0, 8), UP(0x400, 0x8000));
	settle(d);
	want &= ~(1ull << 12);
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS), want);
	/* VSS from 0x3f0 (WW#1), 4-byte elements, Iteration 7: 16 bytes left
	 * in the window -> 4 elements, overrun bit 9; stride 0x10. */
	kick(d, 0, 0, LO(DNET_OT_VSS, 2, 7, 0, 0, 0, 0x10), UP(0x3f0, 0x9000));
	settle(d);
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS), want);
	for (unsigned i = 0; i < 7; i++) {
		sd_get(d, 0x9000 + 0x10 * i, got, 4);
		CHECK(memcmp(got, i < 4 ? ww + 0x3f0 + 4 * i : zero, 4) == 0);
	}
	/* SRCOff above the 2 KB area runs past the Write Window (D-SIM-VS-SRC):
	 * 0x810 is group SRCOff[10:9] = 0; nothing written, overrun + done. */
	uint8_t before[16];
	sd_get(d, 0xa000, before, 16);
	kick(d, 0, 0, LO(DNET_OT_VS, 0, 0, 0, 0, 0, 0x1f0), UP(0x810, 0xa000));
	settle(d);
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS), want);
	sd_get(d, 0xa000, got, 16);
	CHECK(memcmp(got, before, 16) == 0);
	CHECK_EQ(prim(d, 0, DNET_FAM_VS), 7);
	dnet_close(d);
}

/* VSI destination overrun is tested element by element (DSTOff + idx[i] +
 * E, §4.6.4): an element straddling the end of the own area is not
 * written (D-SIM-VS-DST), the others are, and bit 7 + 3w is set.  WID 1
 * is checked against its own area [C, 2C). */
static void test_vsi_dst_overrun(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=1,capacity=512");
	const uint64_t C = 512 * MB;
	uint8_t idx[12], ww[48], got[16], zero[16] = { 0 };
	fill(ww, sizeof ww, 13);
	for (unsigned wid = 0; wid < 2; wid++) {
		uint64_t base = wid * C;
		/* Index array at area offset 0x100. */
		le32(idx, 0x10);
		le32(idx + 4, (uint32_t)(C - 0x1000 - 8)); /* element 1 straddles C */
		le32(idx + 8, 0x30);
		sd_put(d, base + 0x100, idx, sizeof idx);
		ww_put(d, wid, 0x600, ww, sizeof ww);
		/* VSI from WW#3, 16-byte elements, 3 of them, base 0x1000. */
		kick(d, wid, 0, LO(DNET_OT_VSI, 4, 3, 0, 0, 0, 0x100), UP(0x600, 0x1000));
		settle(d);
		CHECK_EQ(ureg(d, wid, DNET_UR_CTL_STATUS), CS_OK | 1u << 14 | 1u << 16);
		sd_get(d, base + 0x1010, got, 16);
		CHECK(memcmp(got, ww, 16) == 0);
		sd_get(d, base + 0x1030, got, 16);
		CHECK(memcmp(got, ww + 32, 16) == 0);
		sd_get(d, base + C - 8, got, 8);
		CHECK(memcmp(got, zero, 8) == 0);
		if (wid == 0) { /* nothing spilled into WID 1's area */
			sd_get(d, C, got, 16);
			CHECK(memcmp(got, zero, 16) == 0);
		}
	}
	CHECK_EQ(prim(d, 0, DNET_FAM_VS), 1);
	CHECK_EQ(prim(d, 1, DNET_FAM_VS), 1);
	dnet_close(d);
}

/* VLS into the Prefetch Window: whole elements up to the window end
 * (D-SIM-VL-CLIP), flags of lines not written set at issue. */
static void test_vls_pw_boundary(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=1");
	uint8_t src[0x400], pw[0x40], before[0x20];
	fill(src, sizeof src, 14);
	sd_put(d, 0x20000, src, sizeof src);
	pw_get(d, 0, 0x200, before, sizeof before);
	/* 8-byte elements every 0x40, 10 of them, into PW#0 at 0x1e0: 32
	 * bytes of room -> 4 elements; lines 0-2 of PW#0 set at issue. */
	kick(d, 0, 0, LO(DNET_OT_VLS, 3, 10, 0, 0, 0, 0x40), UP(0x20000, 0x1e0));
	CHECK_EQ(ureg(d, 0, DNET_UR_PW_FLAG) & 0xf, 0x7);
	wait_eq(d, UR(0, DNET_UR_PW_FLAG), 0xf, 0xf);
	pw_get(d, 0, 0x1e0, pw, 0x40);
	for (unsigned i = 0; i < 4; i++)
		CHECK(memcmp(pw + 8 * i, src + 0x40 * i, 8) == 0);
	CHECK(memcmp(pw + 0x20, before, 0x20) == 0); /* PW#1 untouched */
	CHECK_EQ(ureg(d, 0, DNET_UR_PW_FLAG) & 0xf0, 0);
	dnet_close(d);
}

/* MTU packetisation for every MTU code (Tab. 4.11, D-MTU-1024, D-SIM-MTU):
 * header + data <= MTU, packets <= 4088 bytes; exactly one status, on the
 * last packet; Packet Counter counts packets; status Size = total and
 * Upper = {last packet's DSTOff, Initial DSTOff}. */
static void test_mtu_codes(void)
{
	static const struct { unsigned code, mtu; } m[] = {
		{ 0x01, 256 }, { 0x02, 512 }, { 0x04, 1024 }, { 0x08, 2048 },
		{ 0x10, 4096 }, { 0x14, 2048 }, { 0x00, 2048 }, { 0x03, 2048 },
	};
	struct dnet_dev *d = sim_open("sim:nodes=2");
	static uint8_t src[10000], got[10000];
	fill(src, sizeof src, 15);
	sd_put(d, 0x40000, src, sizeof src);
	uint32_t head = 0;
	for (unsigned i = 0; i < sizeof m / sizeof m[0]; i++) {
		node(d, 1);
		sreg_w(d, DNET_SR_MTU, m[i].code);
		unsigned pkt = (m[i].mtu < 4088 ? m[i].mtu : 4088) - 16;
		unsigned npk = (10000 + pkt - 1) / pkt;
		uint32_t dst = 0x100000 * (i + 1);
		uint64_t sent0 = stat(d, "packets_sent");
		kick(d, 0, 0, LO(DNET_OT_RVS, 0, 0, 0, 2, 1, 10000), UP(0x40000, dst));
		settle(d);
		CHECK_EQ(stat(d, "packets_sent") - sent0, npk);
		CHECK_EQ(prim(d, 0, DNET_FAM_RVS), i + 1);
		node(d, 2);
		CHECK_EQ(ureg(d, 0, DNET_UR_PKT_COUNTER), npk);
		ureg_w(d, 0, DNET_UR_PKT_COUNTER, 0);
		CHECK_EQ(tail(d, 0), (head + 16) % 1024);
		CHECK_EQ(st_lo_at(d, 0, head), STLO(DNET_OT_RVS, 0, 0, 0, 1, 10000));
		CHECK_EQ(st_hi_at(d, 0, head), UP(dst, dst + (npk - 1) * pkt));
		head = (head + 16) % 1024;
		ureg_w(d, 0, DNET_UR_STATUS_ADDR, head);
		sd_get(d, dst, got, sizeof got);
		CHECK(memcmp(got, src, sizeof got) == 0);
	}
	dnet_close(d);
}

/* Command Ex forms (§4.6.9, D-SIM-EX): a local strided gather for RVS, an
 * issuer-side scatter for RVL, and no effect on local primitives. */
static void test_ex_forms(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=2");
	uint8_t src[0x200], got[64], ww[64];
	fill(src, sizeof src, 19);
	sd_put(d, 0xc000, src, sizeof src);
	ureg_w(d, 0, DNET_UR_CMD_EX_FLAG, 1);
	/* RVS 64 bytes, Ex = VLS 8-byte elements x 8 every 0x20. */
	ureg_w(d, 0, DNET_UR_CMD_EX, EX(DNET_OT_VLS, 3, 8, 0x20));
	kick(d, 0, 0, LO(DNET_OT_RVS, 0, 0, 0, 2, 0, 64), UP(0xc000, 0xd000));
	/* Local VS with the flag on: Ex ignored. */
	fill(ww, sizeof ww, 20);
	ww_put(d, 0, 0, ww, 64);
	kick(d, 0, 0, LO(DNET_OT_VS, 0, 0, 0, 0, 0, 64), UP(0, 0xe000));
	settle(d);
	sd_get(d, 0xe000, got, 64);
	CHECK(memcmp(got, ww, 64) == 0);
	node(d, 2);
	sd_get(d, 0xd000, got, 64);
	for (unsigned i = 0; i < 8; i++)
		CHECK(memcmp(got + 8 * i, src + 0x20 * i, 8) == 0);
	/* Node 2 issues RVL of 32 bytes from node 1's 0xc000, Ex = VSS 4-byte
	 * elements x 8 every 0x10 at node 2's 0xf000. */
	ureg_w(d, 0, DNET_UR_CMD_EX_FLAG, 1);
	ureg_w(d, 0, DNET_UR_CMD_EX, EX(DNET_OT_VSS, 2, 8, 0x10));
	kick(d, 0, 0, LO(DNET_OT_RVL, 0, 0, 0, 1, 1, 32), UP(0xc000, 0xf000));
	settle(d);
	for (unsigned i = 0; i < 8; i++) {
		sd_get(d, 0xf000 + 0x10 * i, got, 4);
		CHECK(memcmp(got, src + 4 * i, 4) == 0);
	}
	CHECK_EQ(st_lo_at(d, 0, 0), STLO(DNET_OT_RVSS, 2, 8, 0, 1, 32));
	dnet_close(d);
}

/* Request flow control with both WIDs issuing (§5.2.2, D-SIM-FIFO,
 * D-SIM-CS-SCOPE): the FIFO is shared, bit 2 reads the same in both User
 * Registers, bit 0 belongs to the WID whose request waits in its register;
 * requests run in the order they were kicked. */
static void test_flow_two_wids(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=1,fifo=4");
	uint8_t ww[2][0x800], got[0x200];
	for (unsigned w = 0; w < 2; w++) {
		fill(ww[w], sizeof ww[w], 30 + w);
		ww_put(d, w, 0, ww[w], sizeof ww[w]);
	}
	/* 7 VS of 512 bytes (about 0.8 us each), alternating WIDs, written
	 * without waiting (two UC writes, 0.17 us, per kick): one runs, four
	 * fill the FIFO, one more enters when the first ends, and the 7th
	 * (WID 0's) waits in its register. */
	for (unsigned i = 0; i < 7; i++) {
		unsigned w = i & 1;
		wr64(d, UR(w, DNET_UR_CMD0_UPPER), UP(0x200 * (i / 2), 0x40000));
		wr64(d, UR(w, DNET_UR_CMD0_LOWER), LO(DNET_OT_VS, 0, 0, 0, 0, 0, 0x200));
	}
	uint64_t c0 = ureg(d, 0, DNET_UR_CTL_STATUS), c1 = ureg(d, 1, DNET_UR_CTL_STATUS);
	CHECK(c0 & 4);
	CHECK(c1 & 4);
	CHECK_EQ(c0 & 1, 1);
	CHECK_EQ(c1 & 1, 0);
	settle(d);
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS) & 7, 2);
	CHECK_EQ(ureg(d, 1, DNET_UR_CTL_STATUS) & 7, 2);
	CHECK_EQ(prim(d, 0, DNET_FAM_VS), 4);
	CHECK_EQ(prim(d, 1, DNET_FAM_VS), 3);
	CHECK_EQ(stat(d, "requests_overwritten"), 0);
	for (unsigned w = 0; w < 2; w++) { /* the last one kicked wins */
		sd_get(d, w * CAP256 + 0x40000, got, 0x200);
		CHECK(memcmp(got, ww[w] + (w ? 0x400 : 0x600), 0x200) == 0);
	}
	dnet_close(d);
}

/* The Executor runs one primitive at a time (§5.3.2-5.3.7): a VS kicked
 * right after a 512-byte VL cannot complete until the VL has landed and
 * the VS's own 64 lines have been written; a VS behind an RVS completes
 * only after the RVS has counted. */
static void test_serial_rule(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=2");
	uint8_t src[0x200];
	fill(src, sizeof src, 42);
	sd_put(d, 0x1000, src, sizeof src);
	kick(d, 0, 0, LO(DNET_OT_VL, 0, 0, 0, 0, 0, 0x200), UP(0x1000, 0));
	kick(d, 0, 0, LO(DNET_OT_VS, 0, 0, 0, 0, 0, 0x200), UP(0x200, 0x5000));
	wait_eq(d, UR(0, DNET_UR_PW_FLAG), 0xf, 0xf);
	uint64_t tvl = now(d);
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS) & (1u << 8), 0);
	wait_eq(d, UR(0, DNET_UR_CTL_STATUS), 1u << 8, 1u << 8);
	CHECK(now(d) - tvl >= 64 * 10);
	kick(d, 0, 0, LO(DNET_OT_RVS, 0, 0, 0, 2, 0, 16384), UP(0x1000, 0x1000));
	kick(d, 0, 0, LO(DNET_OT_VS, 0, 0, 0, 0, 0, 8), UP(0x400, 0x6000));
	wait_eq(d, UR(0, DNET_UR_CTL_STATUS), 1u << 11, 1u << 11);
	CHECK_EQ(prim(d, 0, DNET_FAM_RVS), 1);
	/* Two 512-byte BOTFs (64 lines each at one line per clock, §5.3.3):
	 * the second counts no earlier than 128 clocks after the first kick. */
	uint64_t img[64] = { H1(0, DNET_OT_RVS, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0), UP(0x7000, 0x7000) };
	ww_put(d, 0, 0, img, sizeof img);
	ww_put(d, 0, 0x200, img, sizeof img);
	ureg_w(d, 0, DNET_UR_PRIM_COUNTER, 0);
	uint64_t t0 = now(d);
	kick_botf(d, 0, 0, 512);
	kick_botf(d, 0, 1, 512);
	wait_eq(d, UR(0, DNET_UR_PRIM_COUNTER), 0x3ff, 2);
	CHECK(now(d) - t0 >= 128 * 10);
	dnet_close(d);
}

static void test_rvs_mtu(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=2");
	static uint8_t src[9216], got[9216];
	fill(src, sizeof src, 7);
	sd_put(d, 0x100000, src, sizeof src);
	/* 9 KB at MTU 2048: 2032 data bytes per packet -> 5 packets, only the
	 * last with eflag (one status). */
	issue_x(d, 0, 0, DNET_OT_RVS, 0, 0, 0, 2, 1, 9216, 0x100000, 0x200000, NULL);
	wait_eq(d, DNET_UREG_WID(0) + DNET_UR_PRIM_COUNTER, 0x3ffull << 40, 1ull << 40);
	CHECK_EQ(stat(d, "packets_sent"), 5);
	node(d, 2);
	wait_eq(d, DNET_UREG_WID(0) + DNET_UR_STATUS_ADDR, 0x7fff, 0x10);
	CHECK_EQ(ureg(d, 0, DNET_UR_PKT_COUNTER), 5);
	CHECK_EQ(stat(d, "packets_received"), 5);
	sd_get(d, 0x200000, got, sizeof got);
	CHECK(memcmp(got, src, sizeof src) == 0);
	uint64_t lo, hi;
	status_at(d, 0, 0, &lo, &hi);
	CHECK_EQ(lo, STLO(0x14, 0, 0, 0, 1, 9216));
	CHECK_EQ(hi, 0x00201fc000200000ull); /* last packet DSTOff 0x200000 + 4*2032 */
	CHECK_EQ(rd64(d, DNET_LLCM_WID(0) + 0x10), 0); /* no second status */
	/* MTU 256 (System Register code 5'b00001): 1000 bytes -> 240 per packet
	 * -> 5 packets. */
	node(d, 1);
	sreg_w(d, DNET_SR_MTU, 0x01);
	issue_x(d, 0, 0, DNET_OT_RVS, 0, 0, 0, 2, 0, 1000, 0x100000, 0x300000, NULL);
	settle(d);
	node(d, 2);
	CHECK_EQ(ureg(d, 0, DNET_UR_PKT_COUNTER), 10);
	sd_get(d, 0x300000, got, 1000);
	CHECK(memcmp(got, src, 1000) == 0);
	/* Packet Counter reset. */
	ureg_w(d, 0, DNET_UR_PKT_COUNTER, 0);
	CHECK_EQ(ureg(d, 0, DNET_UR_PKT_COUNTER), 0);
	dnet_close(d);
}

static void test_rvs_ex_gather(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=2");
	uint8_t src[0x100];
	fill(src, sizeof src, 10);
	sd_put(d, 0x2000, src, sizeof src);
	/* RVS with Ex OTYPE VLS: gather 8 x 4 bytes every 0x20 locally, store
	 * 32 contiguous bytes remotely. */
	ureg_w(d, 0, DNET_UR_CMD_EX_FLAG, 1);
	struct dnet_req_ex ex = { .otype = DNET_OT_VLS, .dtype = 2, .iter = 8, .size = 0x20 };
	issue_x(d, 0, 0, DNET_OT_RVS, 0, 0, 0, 2, 0, 32, 0x2000, 0x3000, &ex);
	settle(d);
	node(d, 2);
	uint8_t exp[32], got[32];
	for (unsigned i = 0; i < 8; i++)
		memcpy(exp + 4 * i, src + 0x20 * i, 4);
	sd_get(d, 0x3000, got, 32);
	CHECK(memcmp(got, exp, 32) == 0);
	dnet_close(d);
}

int main(void)
{
	RUN(test_vs_golden);
	RUN(test_vs_clip);
	RUN(test_vl_flags);
	RUN(test_copy);
	RUN(test_fifo);
	RUN(test_counter_wrap);
	RUN(test_serial_executor);
	RUN(test_vl_src_clip_flags);
	RUN(test_vs_window_groups);
	RUN(test_vsi_dst_overrun);
	RUN(test_vls_pw_boundary);
	RUN(test_mtu_codes);
	RUN(test_ex_forms);
	RUN(test_flow_two_wids);
	RUN(test_serial_rule);
	RUN(test_rvs_mtu);
	RUN(test_rvs_ex_gather);
	return t_summary("test_sim_wc");
}
