/* Emulator: local primitives (VL/VS families, SO-DIMM copy), clipping and
 * error flags, Prefetch Window flags line by line, counters, Controller
 * Status and Module State.  Expected values are written out by hand. */
#include "test_sim_util.h"

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

static void put32(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)v; b[1] = (uint8_t)(v >> 8); b[2] = (uint8_t)(v >> 16); b[3] = (uint8_t)(v >> 24);
}

static void test_vsi_vli(void)
{
	struct dnet_dev *d = sim_open("sim");
	/* Index array at SO-DIMM 0x100: 0x40, 0x1000, 0x10, 0x800 */
	uint8_t idx[16];
	put32(idx, 0x40); put32(idx + 4, 0x1000); put32(idx + 8, 0x10); put32(idx + 12, 0x800);
	sd_put(d, 0x100, idx, 16);
	uint8_t ww[64];
	fill(ww, sizeof ww, 4);
	CHECK_OK(dnet_write_block(d, DNET_WW_WID(0), ww, 64, &E), &E);
	/* VSI, 16-byte elements (DTYPE 4), 4 of them, base 0x50000. */
	issue_x(d, 0, 0, DNET_OT_VSI, 4, 4, 0, 0, 0, 0x100, 0x0, 0x50000, NULL);
	settle(d);
	uint8_t got[16];
	const uint32_t off[4] = { 0x40, 0x1000, 0x10, 0x800 };
	for (unsigned i = 0; i < 4; i++) {
		sd_get(d, 0x50000 + off[i], got, 16);
		CHECK(memcmp(got, ww + 16 * i, 16) == 0);
	}
	/* VLI gathers them back into PW#2 in order. */
	issue_x(d, 0, 0, DNET_OT_VLI, 4, 4, 0, 0, 0, 0x100, 0x50000, 0x400, NULL);
	wait_eq(d, DNET_UREG_WID(0) + DNET_UR_PW_FLAG, 0xf00, 0xf00);
	uint8_t pw[64];
	CHECK_OK(dnet_read_block(d, DNET_PW_WID(0) + 0x400, pw, 64, &E), &E);
	CHECK(memcmp(pw, ww, 64) == 0);
	/* VLS: 4-byte elements every 0x10 from 0x50000 */
	issue_x(d, 0, 0, DNET_OT_VLS, 2, 8, 0, 0, 0, 0x10, 0x50000 + 0x800, 0x600, NULL);
	wait_eq(d, DNET_UREG_WID(0) + DNET_UR_PW_FLAG, 0xf000, 0xf000);
	uint8_t exp[32], src[0x80];
	sd_get(d, 0x50800, src, sizeof src);
	for (unsigned i = 0; i < 8; i++)
		memcpy(exp + 4 * i, src + 0x10 * i, 4);
	CHECK_OK(dnet_read_block(d, DNET_PW_WID(0) + 0x600, pw, 32, &E), &E);
	CHECK(memcmp(pw, exp, 32) == 0);
	CHECK_EQ(ureg(d, 0, DNET_UR_PRIM_COUNTER), 2ull << 10 | 1ull << 20);
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

int main(void)
{
	RUN(test_idle);
	RUN(test_vs_golden);
	RUN(test_vs_clip);
	RUN(test_vsi_vli);
	RUN(test_vl_flags);
	RUN(test_copy);
	RUN(test_fifo);
	RUN(test_counter_wrap);
	RUN(test_serial_executor);
	return t_summary("test_sim_local");
}
