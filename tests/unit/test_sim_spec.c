/* Emulator: adversarial scenarios derived from spec/hardware.md sections 3-7
 * (and the emulator decisions of docs/decisions.md).  Requests, header
 * lines and receive statuses are encoded here bit by bit from the spec's
 * tables (4.2, 4.4, 6.2, 6.5), not with libdnet's codecs, and every expected
 * byte, flag and count is computed in the test. */
#include "test_spec_enc.h"

/* ================================================================== */
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

/* ---- remote helpers ---- */

static uint64_t st_lo_at(struct dnet_dev *d, unsigned wid, uint32_t off)
{
	return rd64(d, DNET_LLCM_WID(wid) + off);
}

static uint64_t st_hi_at(struct dnet_dev *d, unsigned wid, uint32_t off)
{
	return rd64(d, DNET_LLCM_WID(wid) + off + 8);
}

static uint32_t tail(struct dnet_dev *d, unsigned wid)
{
	return (uint32_t)ureg(d, wid, DNET_UR_STATUS_ADDR) & 0x7fffu;
}

/* ================================================================== */
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

/* Two SO-DIMMs interleaved every 8 bytes (§4.5.6): address bit 3 selects
 * the module.  Observed through the sparse storage: 8 bytes at 0x0 and at
 * 0x10 share one module's first chunk, 8 bytes at 0x8 need the other
 * module.  Module offset of address a = (a >> 4) * 8 + a % 8, so 0x1fff0
 * is still in the first 64 KB chunk and 0x20000 is not. */
static void test_interleave(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=1");
	uint64_t one = 0x1122334455667788ull, chunk = stat(d, "sodimm_bytes");
	CHECK_EQ(chunk, 0);
	sd_put(d, 0x0, &one, 8);
	chunk = stat(d, "sodimm_bytes");
	CHECK(chunk > 0);
	sd_put(d, 0x10, &one, 8);
	sd_put(d, 0x1fff0, &one, 8);
	CHECK_EQ(stat(d, "sodimm_bytes"), chunk);
	sd_put(d, 0x8, &one, 8);
	CHECK_EQ(stat(d, "sodimm_bytes"), 2 * chunk);
	sd_put(d, 0x20000, &one, 8);
	CHECK_EQ(stat(d, "sodimm_bytes"), 3 * chunk);
	/* A VS of 16 bytes touches both modules at one line each. */
	struct dnet_dev *e = sim_open("sim:nodes=1");
	uint8_t ww[16];
	fill(ww, 16, 1);
	ww_put(e, 0, 0, ww, 16);
	kick(e, 0, 0, LO(DNET_OT_VS, 0, 0, 0, 0, 0, 8), UP(0, 0x40));
	settle(e);
	CHECK_EQ(stat(e, "sodimm_bytes"), chunk);
	kick(e, 0, 0, LO(DNET_OT_VS, 0, 0, 0, 0, 0, 8), UP(8, 0x48));
	settle(e);
	CHECK_EQ(stat(e, "sodimm_bytes"), 2 * chunk);
	dnet_close(e);
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

/* Status ring (hardware.md 6.5, D-SIM-RING): 64-byte ring near the end of
 * LLCM holds 3 statuses; the 4th stalls reception (Full, bit 3) until the
 * host advances Status Next Read Address; the Tail wraps to Initial. */
static void test_ring_wrap(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=2");
	uint64_t v[5];
	for (unsigned i = 0; i < 5; i++) {
		v[i] = 0x0101010101010101ull * (i + 1);
		sd_put(d, 0x1000 + 8 * i, &v[i], 8);
	}
	node(d, 2);
	const uint32_t R = 0x7fc0;
	ureg_w(d, 0, DNET_UR_STATUS_INIT, R);
	ureg_w(d, 0, DNET_UR_STATUS_SIZE, 0x01); /* 64 B */
	CHECK_EQ(tail(d, 0), R);
	node(d, 1);
	for (unsigned i = 0; i < 5; i++)
		kick(d, 0, 0, LO(DNET_OT_RVS, 0, 0, 0, 2, 1, 8), UP(0x1000 + 8 * i, 0x2000 + 0x100 * i));
	settle(d);
	node(d, 2);
	CHECK_EQ(tail(d, 0), R + 0x30);
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS), 0x2 | 0x8); /* full, not empty */
	CHECK_EQ(stat(d, "rc_stalls"), 1);
	/* Writing the Head without freeing a slot is still the same stall. */
	ureg_w(d, 0, DNET_UR_STATUS_ADDR, R);
	settle(d);
	CHECK_EQ(stat(d, "rc_stalls"), 1);
	CHECK_EQ(tail(d, 0), R + 0x30);
	for (unsigned i = 0; i < 3; i++) {
		CHECK_EQ(st_lo_at(d, 0, R + 16 * i), STLO(DNET_OT_RVS, 0, 0, 0, 1, 8));
		CHECK_EQ(st_hi_at(d, 0, R + 16 * i), UP(0x2000 + 0x100 * i, 0x2000 + 0x100 * i));
	}
	/* Consume one: the 4th status goes to R + 0x30, the Tail wraps to R,
	 * and the ring is full again (next(Tail) = R + 0x10 = Head). */
	ureg_w(d, 0, DNET_UR_STATUS_ADDR, R + 0x10);
	settle(d);
	CHECK_EQ(tail(d, 0), R);
	CHECK_EQ(st_hi_at(d, 0, R + 0x30), UP(0x2300, 0x2300));
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS), 0x2 | 0x8);
	/* Consume two more: the 5th lands at R (overwriting the consumed 1st). */
	ureg_w(d, 0, DNET_UR_STATUS_ADDR, R + 0x30);
	settle(d);
	CHECK_EQ(tail(d, 0), R + 0x10);
	CHECK_EQ(st_hi_at(d, 0, R), UP(0x2400, 0x2400));
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS), 0x2);
	CHECK_EQ(ureg(d, 0, DNET_UR_PKT_COUNTER), 5);
	for (unsigned i = 0; i < 5; i++) {
		uint64_t g = 0;
		sd_get(d, 0x2000 + 0x100 * i, &g, 8);
		CHECK_EQ(g, v[i]);
	}
	ureg_w(d, 0, DNET_UR_STATUS_ADDR, R + 0x10);
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS), CS_OK);
	dnet_close(d);
}

/* BOTF packet images of every header length (§4.6.2, §6.2, Tab. 4.15):
 * the controller rewrites only PGID and Packet Size; the receiver acts on
 * TYPE; hflag disagreeing with the header length the TYPE needs gives
 * Controller Status [19:18] = 2'b10, an RVL carrying data 2'b11 (Tab. A.1).
 */
static void test_botf_images(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=2");
	node(d, 1);
	sreg_w(d, DNET_SR_PGID0, 7);
	node(d, 2);
	sreg_w(d, DNET_SR_PGID0, 7);
	uint8_t data[512];
	fill(data, sizeof data, 16);
	sd_put(d, 0x7000, data, 64); /* node 2's source for the RVL image */
	node(d, 1);
	/* (a) 2-line RVS image, Size 20 (not a multiple of 8): 4 data bytes;
	 * garbage PGID 0x55 and Packet Size 0xfff are rewritten. */
	uint64_t img[64];
	img[0] = H1(0xfff, DNET_OT_RVS, 0x55, 0, 0, 2, 0, 0, 0, 1, 0, 0);
	img[1] = UP(0x3000, 0x3000);
	memcpy(&img[2], data, 8);
	ww_put(d, 0, 0, img, 24);
	kick_botf(d, 0, 0, 20);
	settle(d);
	node(d, 2);
	uint8_t got[64], zero[64] = { 0 };
	sd_get(d, 0x3000, got, 8);
	CHECK(memcmp(got, data, 4) == 0);
	CHECK(memcmp(got + 4, zero, 4) == 0);
	CHECK_EQ(st_lo_at(d, 0, 0), STLO(DNET_OT_RVS, 0, 0, 0, 1, 4));
	CHECK_EQ(st_hi_at(d, 0, 0), UP(0x3000, 0x3000));
	CHECK_EQ(stat(d, "pgid_drops"), 0);
	/* (b) 3-line RVSS image in WW#1: 4-byte elements, 4 of them, stride
	 * 0x20; status Size = Total Transfer Size. */
	node(d, 1);
	img[0] = H1(0, DNET_OT_RVSS, 0, 0, 0, 2, 2, 4, 0, 1, 1, 0);
	img[1] = UP(0x4000, 0x4000);
	img[2] = 16 | (uint64_t)0x20 << 32;
	memcpy(&img[3], data + 100, 16);
	ww_put(d, 0, 0x200, img, 40);
	kick_botf(d, 0, 1, 40);
	/* (c) 4-line RVL image in WW#2: node 2 returns 64 bytes from its 0x7000
	 * to node 1's 0x5000, with a status at node 1. */
	img[0] = H1(0, DNET_OT_RVL, 0, 0, 0, 2, 0, 0, 0, 1, 1, 0);
	img[1] = UP(0x7000, 0x5000);
	img[2] = 64;
	img[3] = 0;
	ww_put(d, 0, 0x400, img, 32);
	kick_botf(d, 0, 2, 32);
	settle(d);
	CHECK_EQ(prim(d, 0, DNET_FAM_BOTF), 3);
	CHECK_EQ(prim(d, 0, DNET_FAM_RVL), 0);
	sd_get(d, 0x5000, got, 64);
	CHECK(memcmp(got, data, 64) == 0);
	CHECK_EQ(st_lo_at(d, 0, 0), STLO(DNET_OT_RVS, 0, 0, 0, 2, 64));
	CHECK_EQ(st_hi_at(d, 0, 0), UP(0x5000, 0x5000));
	node(d, 2);
	for (unsigned i = 0; i < 4; i++) {
		sd_get(d, 0x4000 + 0x20 * i, got, 4);
		CHECK(memcmp(got, data + 100 + 4 * i, 4) == 0);
	}
	CHECK_EQ(st_lo_at(d, 0, 16), STLO(DNET_OT_RVSS, 2, 4, 0, 1, 16));
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS) >> 17, 0);
	/* RVSS packet + the RVL request packet (App. A: packets received). */
	CHECK_EQ(ureg(d, 0, DNET_UR_PKT_COUNTER), 3);
	/* (d) RVS with hflag = 1 and RVSS with hflag = 0: 2'b10 on both WIDs,
	 * nothing written, no Packet Counter. */
	node(d, 1);
	img[0] = H1(0, DNET_OT_RVS, 0, 0, 0, 2, 0, 0, 0, 1, 1, 0);
	img[1] = UP(0x6000, 0x6000);
	img[2] = 8;
	img[3] = 0x1111111111111111ull;
	ww_put(d, 0, 0x600, img, 32);
	kick_botf(d, 0, 3, 32);
	settle(d);
	node(d, 2);
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS) >> 17, 2u << 1);
	CHECK_EQ(ureg(d, 1, DNET_UR_CTL_STATUS) >> 17, 2u << 1);
	sd_get(d, 0x6000, got, 16);
	CHECK(memcmp(got, zero, 16) == 0);
	CHECK_EQ(ureg(d, 0, DNET_UR_PKT_COUNTER), 3);
	/* (e) an RVL image carrying data (5 lines): 2'b11. */
	node(d, 1);
	img[0] = H1(0, DNET_OT_RVL, 0, 0, 0, 2, 0, 0, 0, 1, 1, 0);
	img[1] = UP(0x7000, 0x5800);
	img[2] = 8;
	img[3] = 0;
	img[4] = 0x2222222222222222ull;
	ww_put(d, 0, 0x600, img, 40);
	kick_botf(d, 0, 3, 40);
	settle(d);
	node(d, 2);
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS) >> 17, 3u << 1);
	node(d, 1);
	sd_get(d, 0x5800, got, 8);
	CHECK(memcmp(got, zero, 8) == 0);
	/* (f) Size > 512 is treated as 512: a 2-line RVS image carries 496
	 * data bytes. */
	img[0] = H1(0, DNET_OT_RVS, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0);
	img[1] = UP(0x8000, 0x8000);
	memcpy(&img[2], data, 496);
	ww_put(d, 0, 0, img, 512);
	kick_botf(d, 0, 0, 1000);
	settle(d);
	node(d, 2);
	uint8_t big[512];
	sd_get(d, 0x8000, big, 512);
	CHECK(memcmp(big, data, 496) == 0);
	CHECK(memcmp(big + 496, zero, 16) == 0);
	dnet_close(d);
}

/* RVL family round trips (§4.6.5, §5.3.6): the responder returns RVS
 * packets; Command0 lands in the issuer's SO-DIMM, Command1 in its
 * Prefetch Window with the line flags; the status goes to the issuer with
 * the responder's WID and CLID; the RVL counter counts at the issuer only. */
static void test_rvl_roundtrip(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=2");
	uint8_t src[0x400], got[0x400], idx[12];
	fill(src, sizeof src, 17);
	node(d, 2);
	sd_put(d, CAP256 + 0x5000, src, sizeof src); /* node 2, WID 1 area */
	le32(idx, 0x300);
	le32(idx + 4, 0x8);
	le32(idx + 8, 0x100);
	sd_put(d, CAP256 + 0x40, idx, sizeof idx);
	node(d, 1);
	/* RVL through Command0: 0x300 bytes from node 2 WID 1's 0x5000. */
	kick(d, 0, 0, LO(DNET_OT_RVL, 0, 0, 1, 2, 1, 0x300), UP(0x5000, 0x9000));
	settle(d);
	sd_get(d, 0x9000, got, 0x300);
	CHECK(memcmp(got, src, 0x300) == 0);
	CHECK_EQ(st_lo_at(d, 0, 0), STLO(DNET_OT_RVS, 0, 0, 1, 2, 0x300));
	CHECK_EQ(st_hi_at(d, 0, 0), UP(0x9000, 0x9000));
	CHECK_EQ(prim(d, 0, DNET_FAM_RVL), 1);
	CHECK_EQ(ureg(d, 0, DNET_UR_PKT_COUNTER), 1);
	/* RVLS through Command1: 16 x 4 bytes every 0x10 into PW#1 line 0;
	 * the other lines of PW#1 are flagged at issue. */
	kick(d, 0, 1, LO(DNET_OT_RVLS, 2, 16, 1, 2, 1, 0x10), UP(0x5000, 0x200));
	CHECK_EQ(ureg(d, 0, DNET_UR_PW_FLAG) & 0xf0, 0xe0);
	wait_eq(d, UR(0, DNET_UR_PW_FLAG), 0xf0, 0xf0);
	pw_get(d, 0, 0x200, got, 64);
	for (unsigned i = 0; i < 16; i++)
		CHECK(memcmp(got + 4 * i, src + 0x10 * i, 4) == 0);
	settle(d);
	CHECK_EQ(st_lo_at(d, 0, 16), STLO(DNET_OT_RVS, 0, 0, 1, 2, 64));
	CHECK_EQ(st_hi_at(d, 0, 16), UP(0x200, 0x200));
	/* RVLI through Command0: 8-byte elements at 0x5000 + idx[i] of node 2. */
	kick(d, 0, 0, LO(DNET_OT_RVLI, 3, 3, 1, 2, 1, 0x40), UP(0x5000, 0xa000));
	settle(d);
	sd_get(d, 0xa000, got, 24);
	CHECK(memcmp(got, src + 0x300, 8) == 0);
	CHECK(memcmp(got + 8, src + 0x8, 8) == 0);
	CHECK(memcmp(got + 16, src + 0x100, 8) == 0);
	CHECK_EQ(st_lo_at(d, 0, 32), STLO(DNET_OT_RVS, 0, 0, 1, 2, 24));
	CHECK_EQ(prim(d, 0, DNET_FAM_RVL), 3);
	CHECK_EQ(ureg(d, 0, DNET_UR_PKT_COUNTER), 3);
	node(d, 2);
	CHECK_EQ(ureg(d, 1, DNET_UR_PRIM_COUNTER), 0);
	/* The responder received the three RVL request packets (App. A). */
	CHECK_EQ(ureg(d, 1, DNET_UR_PKT_COUNTER), 3);
	CHECK_EQ(ureg(d, 1, DNET_UR_CTL_STATUS), CS_OK);
	/* A multi-packet answer uses the responder's MTU (1024: 1008 data
	 * bytes per packet): 5000 bytes -> 5 packets, one status at the end. */
	static uint8_t big[5000], bgot[5000];
	fill(big, sizeof big, 23);
	sd_put(d, CAP256 + 0x10000, big, sizeof big);
	sreg_w(d, DNET_SR_MTU, 0x04);
	node(d, 1);
	ureg_w(d, 0, DNET_UR_PKT_COUNTER, 0);
	kick(d, 0, 0, LO(DNET_OT_RVL, 0, 0, 1, 2, 1, 5000), UP(0x10000, 0x20000));
	settle(d);
	sd_get(d, 0x20000, bgot, sizeof bgot);
	CHECK(memcmp(bgot, big, sizeof big) == 0);
	CHECK_EQ(ureg(d, 0, DNET_UR_PKT_COUNTER), 5);
	CHECK_EQ(tail(d, 0), 64);
	CHECK_EQ(st_lo_at(d, 0, 48), STLO(DNET_OT_RVS, 0, 0, 1, 2, 5000));
	CHECK_EQ(st_hi_at(d, 0, 48), UP(0x20000, 0x20000 + 4 * 1008));
	dnet_close(d);
}

/* RVSS / RVSI at MTU 256 (§5.3.7, D-SIM-MTU, D-SIM-RVSI-LIST): 3-line
 * headers, whole 16-byte elements per packet ((256 - 24) / 16 = 14), the
 * remote side scatters with Stride or with the list in its own SO-DIMM. */
static void test_rvss_rvsi_packets(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=2,mtu=256");
	uint8_t src[640], got[16], idx[160];
	fill(src, sizeof src, 18);
	sd_put(d, 0x8000, src, sizeof src);
	node(d, 2);
	for (unsigned i = 0; i < 40; i++)
		le32(idx + 4 * i, (39 - i) * 0x20);
	sd_put(d, 0x200, idx, sizeof idx);
	node(d, 1);
	kick(d, 0, 0, LO(DNET_OT_RVSS, 4, 40, 0, 2, 1, 0x40), UP(0x8000, 0x10000));
	settle(d);
	CHECK_EQ(stat(d, "packets_sent"), 3);
	kick(d, 0, 0, LO(DNET_OT_RVSI, 4, 40, 0, 2, 1, 0x200), UP(0x8000, 0x20000));
	settle(d);
	CHECK_EQ(stat(d, "packets_sent"), 6);
	CHECK_EQ(prim(d, 0, DNET_FAM_RVS), 2);
	node(d, 2);
	CHECK_EQ(ureg(d, 0, DNET_UR_PKT_COUNTER), 6);
	int bad = 0;
	for (unsigned i = 0; i < 40; i++) {
		sd_get(d, 0x10000 + 0x40 * i, got, 16);
		bad += memcmp(got, src + 16 * i, 16) != 0;
		sd_get(d, 0x20000 + (39 - i) * 0x20, got, 16);
		bad += memcmp(got, src + 16 * i, 16) != 0;
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(st_lo_at(d, 0, 0), STLO(DNET_OT_RVSS, 4, 40, 0, 1, 640));
	CHECK_EQ(st_hi_at(d, 0, 0), UP(0x10000, 0x10000 + 28 * 0x40));
	CHECK_EQ(st_lo_at(d, 0, 16), STLO(DNET_OT_RVSI, 4, 40, 0, 1, 640));
	CHECK_EQ(st_hi_at(d, 0, 16), UP(0x20000, 0x20000));
	CHECK_EQ(tail(d, 0), 32);
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

/* PGID protection per WID (§4.4, D-SIM-PGID): a packet is delivered only to
 * a destination WID of the same PGID; RVL requests of another group get no
 * answer. */
static void test_pgid_per_wid(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=2");
	uint64_t v = 0xabcdef0123456789ull, g;
	sd_put(d, 0x100, &v, 8);
	sreg_w(d, DNET_SR_PGID0, 2);
	node(d, 2);
	sd_put(d, 0x100, &v, 8);
	sreg_w(d, DNET_SR_PGID0, 1);
	sreg_w(d, DNET_SR_PGID1, 2);
	node(d, 1);
	kick(d, 0, 0, LO(DNET_OT_RVS, 0, 0, 0, 2, 1, 8), UP(0x100, 0x200));
	kick(d, 0, 0, LO(DNET_OT_RVS, 0, 0, 1, 2, 1, 8), UP(0x100, 0x300));
	kick(d, 0, 0, LO(DNET_OT_RVL, 0, 0, 0, 2, 1, 8), UP(0x100, 0x400));
	settle(d);
	g = 1;
	sd_get(d, 0x400, &g, 8);
	CHECK_EQ(g, 0);
	CHECK_EQ(tail(d, 0), 0);
	CHECK_EQ(prim(d, 0, DNET_FAM_RVL), 1);
	node(d, 2);
	CHECK_EQ(stat(d, "pgid_drops"), 2);
	g = 1;
	sd_get(d, 0x200, &g, 8);
	CHECK_EQ(g, 0);
	sd_get(d, CAP256 + 0x300, &g, 8);
	CHECK_EQ(g, v);
	CHECK_EQ(ureg(d, 0, DNET_UR_PKT_COUNTER), 0);
	CHECK_EQ(ureg(d, 1, DNET_UR_PKT_COUNTER), 1);
	CHECK_EQ(tail(d, 0), 0);
	CHECK_EQ(tail(d, 1), 16);
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS), CS_OK);
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

static uint64_t wait_tail(struct dnet_dev *d, unsigned n, uint32_t v)
{
	node(d, n);
	wait_eq(d, UR(0, DNET_UR_STATUS_ADDR), 0x7fff, v);
	return now(d);
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
	uint64_t one = wait_tail(d, 2, 16) - t0;
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
	uint64_t t2 = wait_tail(d, 2, 16), t1 = wait_tail(d, 1, 16);
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
	uint64_t t = wait_tail(d, 2, 32) - t0;
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

/* Determinism: the same sequence twice gives identical state and time. */
static void scenario(struct dnet_dev *d, uint64_t out[8])
{
	uint8_t src[4096];
	fill(src, sizeof src, 43);
	sd_put(d, 0x1000, src, sizeof src);
	node(d, 2);
	sd_put(d, 0x1000, src + 100, 2048);
	kick(d, 0, 0, LO(DNET_OT_RVS, 0, 0, 0, 1, 1, 2048), UP(0x1000, 0x9000));
	node(d, 1);
	kick(d, 0, 0, LO(DNET_OT_RVS, 0, 0, 0, 2, 1, 4000), UP(0x1000, 0x9000));
	kick(d, 0, 1, LO(DNET_OT_RVL, 0, 0, 0, 2, 1, 0x180), UP(0x1000, 0x80));
	ww_put(d, 0, 0, src, 512);
	kick(d, 0, 0, LO(DNET_OT_VSS, 3, 64, 0, 0, 0, 24), UP(0, 0x20000));
	settle(d);
	uint8_t buf[4096];
	sd_get(d, 0x9000, buf, 4096);
	uint64_t h = 1469598103934665603ull;
	for (unsigned i = 0; i < 4096; i++)
		h = (h ^ buf[i]) * 1099511628211ull;
	out[0] = h;
	out[1] = stat(d, "vtime_ns");
	out[2] = stat(d, "events");
	out[3] = ureg(d, 0, DNET_UR_PRIM_COUNTER);
	out[4] = ureg(d, 0, DNET_UR_PW_FLAG);
	out[5] = st_lo_at(d, 0, 0) ^ st_hi_at(d, 0, 0) << 1;
	node(d, 2);
	sd_get(d, 0x9000, buf, 4096);
	for (unsigned i = 0; i < 4096; i++)
		h = (h ^ buf[i]) * 1099511628211ull;
	out[6] = h;
	out[7] = ureg(d, 0, DNET_UR_PKT_COUNTER) << 32 | tail(d, 0);
}

static void test_determinism2(void)
{
	uint64_t r[2][8];
	for (unsigned k = 0; k < 2; k++) {
		struct dnet_dev *d = sim_open("sim:nodes=2");
		scenario(d, r[k]);
		dnet_close(d);
	}
	for (unsigned i = 0; i < 8; i++)
		CHECK_EQ(r[0][i], r[1][i]);
}

/* 3071 nodes open at once (unicast CLIDs end at 12'hBFF, Tab. 4.6); node
 * 3071 (CLID 0xBFF) exchanges data with node 1; 3072 nodes are refused and
 * a packet to a multicast CLID is dropped and counted (D-SIM-MULTICAST). */
static void test_3071(void)
{
	struct dnet_dev *bad = NULL;
	CHECK_EQ(dnet_open("sim:nodes=3072", &bad, &E), -DNET_EINVAL);
	CHECK(strstr(E.msg, "1-3071") != NULL);
	struct dnet_dev *d = sim_open("sim:nodes=3071");
	uint64_t v = 0x5a5a5a5a12345678ull, g = 0;
	sd_put(d, 0x100, &v, 8);
	kick(d, 0, 0, LO(DNET_OT_RVS, 0, 0, 0, 0xBFF, 1, 8), UP(0x100, 0x200));
	kick(d, 0, 0, LO(DNET_OT_RVS, 0, 0, 0, 0xC00, 1, 8), UP(0x100, 0x200));
	settle(d);
	CHECK_EQ(stat(d, "multicast_drops"), 1);
	CHECK_EQ(stat(d, "unroutable_drops"), 0);
	node(d, 3071);
	sd_get(d, 0x200, &g, 8);
	CHECK_EQ(g, v);
	CHECK_EQ(st_lo_at(d, 0, 0), STLO(DNET_OT_RVS, 0, 0, 0, 1, 8));
	CHECK(stat(d, "nodes_allocated") <= 3);
	dnet_close(d);
}

/* Back-pressure through the network (§5.3, hardware.md 7.1): a receiver
 * whose status ring is full stalls its Receive Controller; the packets
 * for it must not pile up without bound -- the sender's SWIF FIFO fills and
 * its executor waits, so the sender's RVS counter stops and later requests
 * stay in its FIFO.  When the host frees the ring, everything completes. */
static void test_tx_backpressure(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=2");
	enum { N = 64 };
	for (unsigned i = 0; i < N; i++) {
		uint64_t v = 0x1000 + i;
		sd_put(d, 8 * i, &v, 8);
	}
	node(d, 2);
	ureg_w(d, 0, DNET_UR_STATUS_SIZE, 0x01); /* 64 B: 3 statuses */
	node(d, 1);
	unsigned issued = 0;
	while (issued < N) {
		if (dnet_wait(d, UR(0, DNET_UR_CTL_STATUS), 5, DNET_COND_EQ, 0, 50000, NULL, &E))
			break; /* the FIFO stays full: the sender is blocked */
		wr64(d, UR(0, DNET_UR_CMD0_UPPER), UP(8 * issued, 0x10000 + 8 * issued));
		wr64(d, UR(0, DNET_UR_CMD0_LOWER), LO(DNET_OT_RVS, 0, 0, 0, 2, 1, 8));
		issued++;
	}
	settle(d);
	CHECK(issued < N);
	CHECK(prim(d, 0, DNET_FAM_RVS) < 32);
	CHECK(ureg(d, 0, DNET_UR_MODULE_STATE) != 0x0000422200020001ull); /* stopped, not idle */
	node(d, 2);
	CHECK(stat(d, "rx_queue") < 32);
	/* Drain: the host consumes statuses, the sender issues the rest. */
	for (unsigned round = 0; round < 200; round++) {
		node(d, 2);
		ureg_w(d, 0, DNET_UR_STATUS_ADDR, tail(d, 0));
		node(d, 1);
		while (issued < N &&
		       !dnet_wait(d, UR(0, DNET_UR_CTL_STATUS), 5, DNET_COND_EQ, 0, 1000, NULL, &E)) {
			wr64(d, UR(0, DNET_UR_CMD0_UPPER), UP(8 * issued, 0x10000 + 8 * issued));
			wr64(d, UR(0, DNET_UR_CMD0_LOWER), LO(DNET_OT_RVS, 0, 0, 0, 2, 1, 8));
			issued++;
		}
		settle(d);
		if (issued == N && prim(d, 0, DNET_FAM_RVS) == N)
			break;
	}
	CHECK_EQ(issued, N);
	CHECK_EQ(prim(d, 0, DNET_FAM_RVS), N);
	node(d, 2);
	for (unsigned round = 0; round < 100 && ureg(d, 0, DNET_UR_PKT_COUNTER) < N; round++) {
		ureg_w(d, 0, DNET_UR_STATUS_ADDR, tail(d, 0));
		settle(d);
	}
	CHECK_EQ(ureg(d, 0, DNET_UR_PKT_COUNTER), N);
	ureg_w(d, 0, DNET_UR_STATUS_ADDR, tail(d, 0));
	settle(d);
	int bad = 0;
	for (unsigned i = 0; i < N; i++) {
		uint64_t g = 0;
		sd_get(d, 0x10000 + 8 * i, &g, 8);
		bad += g != 0x1000 + i;
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(stat(d, "rx_queue"), 0);
	node(d, 1);
	CHECK_EQ(ureg(d, 0, DNET_UR_MODULE_STATE), 0x0000422200020001ull);
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

/* Reception past the receive area (Tab. A.1 bit 17, D-SIM-RX-CLIP, D-SIM-
 * RC-ERR): only what fits is written (2 KB Prefetch Window area, own
 * SO-DIMM area), bit 17 is set for both WIDs and stays until Controller
 * Reset; the status is still written. */
static void test_rx_overrun(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=2");
	uint8_t src[32], got[16], zero[16] = { 0 };
	fill(src, sizeof src, 24);
	sd_put(d, 0x100, src, sizeof src);
	kick(d, 0, 1, LO(DNET_OT_RVS, 0, 0, 0, 2, 1, 32), UP(0x100, 0x7f0));
	kick(d, 0, 0, LO(DNET_OT_RVS, 0, 0, 0, 2, 1, 16), UP(0x100, (uint32_t)(CAP256 - 8)));
	settle(d);
	node(d, 2);
	pw_get(d, 0, 0x7f0, got, 16);
	CHECK(memcmp(got, src, 16) == 0);
	CHECK_EQ(ureg(d, 0, DNET_UR_PW_FLAG), 0x8000);
	sd_get(d, CAP256 - 8, got, 16);
	CHECK(memcmp(got, src, 8) == 0);
	CHECK(memcmp(got + 8, zero, 8) == 0);
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS), 0x2 | 1u << 17);
	CHECK_EQ(ureg(d, 1, DNET_UR_CTL_STATUS), CS_OK | 1u << 17);
	CHECK_EQ(tail(d, 0), 32);
	ureg_w(d, 0, DNET_UR_STATUS_ADDR, 32);
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS), CS_OK | 1u << 17);
	sreg_w(d, DNET_SR_CTL_RESET, 1);
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS), CS_OK);
	dnet_close(d);
}

/* VSS/VLS and VSI/VLI round trips for every SO-DIMM element size (DTYPE
 * 2..7, Tab. 4.5: 4..128 bytes) with a full window and a short Iteration:
 * element i goes to SO-DIMM base + i x Stride (or base + idx[i]) and comes
 * back to PW offset i x E (Fig. 4.18-4.22). */
static void test_vector_sweep(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=1");
	uint8_t ww[0x400], pw[0x200], idx[4 * 128], el[128];
	fill(ww, sizeof ww, 60);
	ww_put(d, 0, 0x200, ww, sizeof ww); /* WW#1 and WW#2 */
	unsigned vs = 0, vl = 0;
	for (unsigned dt = 2; dt <= 7; dt++) {
		uint32_t e = 1u << dt;
		const unsigned iters[2] = { 512 / e, 3 };
		for (unsigned k = 0; k < 2; k++) {
			unsigned it = iters[k];
			uint32_t stride = 2 * e, B = 0x100000 * dt + 0x10000 * k;
			int bad = 0;
			kick(d, 0, 0, LO(DNET_OT_VSS, dt, it, 0, 0, 0, stride), UP(0x200, B));
			for (unsigned i = 0; i < it; i++)
				le32(idx + 4 * i, (it - 1 - i) * 3 * e);
			uint32_t L = B + 0x8000, B2 = B + 0x9000;
			sd_put(d, L, idx, 4 * it);
			kick(d, 0, 0, LO(DNET_OT_VSI, dt, it, 0, 0, 0, L), UP(0x400, B2));
			kick(d, 0, 0, LO(DNET_OT_VLS, dt, it, 0, 0, 0, stride), UP(B, 0x400));
			wait_eq(d, UR(0, DNET_UR_PW_FLAG), 0xf00, 0xf00);
			kick(d, 0, 0, LO(DNET_OT_VLI, dt, it, 0, 0, 0, L), UP(B2, 0x600));
			wait_eq(d, UR(0, DNET_UR_PW_FLAG), 0xf000, 0xf000);
			vs += 2;
			vl += 2;
			for (unsigned i = 0; i < it; i++) {
				sd_get(d, B + i * stride, el, e);
				bad += memcmp(el, ww + i * e, e) != 0;
				sd_get(d, B2 + (it - 1 - i) * 3 * e, el, e);
				bad += memcmp(el, ww + 0x200 + i * e, e) != 0;
			}
			pw_get(d, 0, 0x400, pw, 0x200);
			bad += memcmp(pw, ww, it * e) != 0;
			pw_get(d, 0, 0x600, pw, 0x200);
			bad += memcmp(pw, ww + 0x200, it * e) != 0;
			CHECK_EQ(bad, 0);
		}
	}
	settle(d);
	CHECK_EQ(prim(d, 0, DNET_FAM_VS), vs & 0x3ff);
	CHECK_EQ(prim(d, 0, DNET_FAM_VL), vl & 0x3ff);
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS), CS_OK | 1u << 8 | 1u << 11);
	dnet_close(d);
}

int main(void)
{
	RUN(test_vl_src_clip_flags);
	RUN(test_vs_window_groups);
	RUN(test_vsi_dst_overrun);
	RUN(test_vls_pw_boundary);
	RUN(test_interleave);
	RUN(test_mtu_codes);
	RUN(test_ring_wrap);
	RUN(test_botf_images);
	RUN(test_rvl_roundtrip);
	RUN(test_rvss_rvsi_packets);
	RUN(test_ex_forms);
	RUN(test_pgid_per_wid);
	RUN(test_cold_sdimm_init);
	RUN(test_ctl_reset_scope);
	RUN(test_flow_two_wids);
	RUN(test_parallel);
	RUN(test_serial_rule);
	RUN(test_determinism2);
	RUN(test_3071);
	RUN(test_tx_backpressure);
	RUN(test_reset_releases_sender);
	RUN(test_wid1);
	RUN(test_rx_overrun);
	RUN(test_vector_sweep);
	return t_summary("test_sim_spec");
}
