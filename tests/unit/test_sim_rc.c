/* Tests of backends/sim/rc.c, the Receive Controller and the Status Write
 * Unit: receive actions into SO-DIMM, Prefetch Window and LLCM, BOTF images
 * of every header length, RVL requests answered, PGID protection, the
 * receive-status ring (wrap, Full, back-pressure) and reception past the
 * receive area (thesis
 * §4.5.5.2, §5.4, Tab. 4.9, 4.15, App. A).
 *
 * Header lines and receive statuses are encoded here bit by bit from the
 * spec's tables; every expected word is computed in the test.  IPUSH/LHS
 * reception: test_sim_ipush.c; the audit's pinned cases (RVL responder
 * counts, halt on a receive error): test_sim_corrections.c. */
/* Decisions pinned here (docs/decisions.md): D-SIM-RC-ERR, D-SIM-RVL-PW,
 * D-SIM-BOTF-LINES, D-SIM-STATUS. */
#include "test_spec_enc.h"

static void test_botf_llcm(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=2");
	/* rllcm_write-style image: TYPE RVS, lflag, eflag, DLID 2, a bogus
	 * PGID 0x55 and Packet Size 0 that the controller must rewrite. */
	uint64_t img[3] = {
		0x5000000205514000ull,  /* lflag|eflag | DLID 2 | PGID 0x55 | TYPE 0x14 */
		0x0000010000000100ull,  /* DSTOff 0x100, Initial DSTOff 0x100 */
		0xdeadbeefcafef00dull,
	};
	CHECK_OK(dnet_write_block(d, DNET_WW_WID(0) + 0x200, img, sizeof img, &E), &E);
	CHECK_OK(dnet_wc_flush(d, &E), &E);
	issue_botf(d, 0, 1, 24);
	node(d, 2);
	wait_eq(d, DNET_UREG_WID(0) + DNET_UR_STATUS_ADDR, 0x7fff, 0x10);
	CHECK_EQ(rd64(d, DNET_LLCM_WID(0) + 0x100), 0xdeadbeefcafef00dull);
	uint64_t lo, hi;
	status_at(d, 0, 0, &lo, &hi);
	CHECK_EQ(lo, STLO(0x14, 0, 0, 0, 1, 8));
	CHECK_EQ(hi, 0x0000010000000100ull);
	CHECK_EQ(ureg(d, 0, DNET_UR_PKT_COUNTER), 1);
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS), 0x2); /* ring no longer empty */
	/* The host consumes the status: Head = Tail -> empty again. */
	ureg_w(d, 0, DNET_UR_STATUS_ADDR, 0x10);
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS), 0x12);
	node(d, 1);
	CHECK_EQ(ureg(d, 0, DNET_UR_PRIM_COUNTER), 1);
	/* Size 0 is dropped; size > 512 is treated as 512 (no crash, counts). */
	issue_botf(d, 0, 1, 0);
	settle(d);
	CHECK_EQ(ureg(d, 0, DNET_UR_PRIM_COUNTER), 1);
	CHECK_EQ(stat(d, "botf_dropped"), 1);
	dnet_close(d);
}

static void test_rvs_pw_and_stride(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=3");
	uint8_t src[0x180], got[0x180];
	fill(src, sizeof src, 8);
	node(d, 3);
	sd_put(d, 0x1000, src, sizeof src);
	/* Command1: into node 1's Prefetch Window at 0x80 (lines 1-3 of PW#0). */
	issue_x(d, 0, 1, DNET_OT_RVS, 0, 0, 0, 1, 0, 0x180, 0x1000, 0x80, NULL);
	settle(d);
	node(d, 1);
	CHECK_EQ(ureg(d, 0, DNET_UR_PW_FLAG), 0xe);
	CHECK_OK(dnet_read_block(d, DNET_PW_WID(0) + 0x80, got, 0x180, &E), &E);
	CHECK(memcmp(got, src, 0x180) == 0);
	/* RVSS: 64 contiguous bytes scattered as 4-byte elements every 0x10 into
	 * node 1's WID 1 (DWID 1): 3-line header, status Size = total. */
	node(d, 3);
	issue_x(d, 0, 0, DNET_OT_RVSS, 2, 16, 1, 1, 1, 0x10, 0x1000, 0x5000, NULL);
	settle(d);
	node(d, 1);
	int bad = 0;
	for (unsigned i = 0; i < 16; i++) {
		uint8_t e[4];
		sd_get(d, CAP256 + 0x5000 + 0x10 * i, e, 4);
		bad += memcmp(e, src + 4 * i, 4) != 0;
	}
	CHECK_EQ(bad, 0);
	uint64_t lo, hi;
	status_at(d, 1, 0, &lo, &hi);
	CHECK_EQ(lo, STLO(0x15, 2, 16, 0, 3, 64));
	CHECK_EQ(hi, 0x0000500000005000ull);
	CHECK_EQ(ureg(d, 1, DNET_UR_PKT_COUNTER), 1);
	CHECK_EQ(ureg(d, 0, DNET_UR_PKT_COUNTER), 1);
	dnet_close(d);
}

static void test_pgid(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=2");
	uint64_t v = 0x1122334455667788ull, got = 0;
	sd_put(d, 0x800, &v, 8);
	node(d, 2);
	sreg_w(d, DNET_SR_PGID0, 3);
	node(d, 1);
	/* PGID 0 -> node 2 WID 0 (PGID 3): dropped. */
	issue_x(d, 0, 0, DNET_OT_RVS, 0, 0, 0, 2, 1, 8, 0x800, 0x900, NULL);
	settle(d);
	node(d, 2);
	CHECK_EQ(stat(d, "pgid_drops"), 1);
	CHECK_EQ(ureg(d, 0, DNET_UR_PKT_COUNTER), 0);
	CHECK_EQ(ureg(d, 0, DNET_UR_STATUS_ADDR), 0);
	sd_get(d, 0x900, &got, 8);
	CHECK_EQ(got, 0);
	/* ... but WID 1 of node 2 is still in group 0. */
	node(d, 1);
	issue_x(d, 0, 0, DNET_OT_RVS, 0, 0, 1, 2, 1, 8, 0x800, 0x900, NULL);
	settle(d);
	node(d, 2);
	sd_get(d, CAP256 + 0x900, &got, 8);
	CHECK_EQ(got, v);
	/* Node 1 WID 0 joins group 3: now it reaches node 2 WID 0, and a BOTF
	 * image claiming PGID 3 from group 0 would be rewritten, not trusted. */
	node(d, 1);
	sreg_w(d, DNET_SR_PGID0, 3);
	issue_x(d, 0, 0, DNET_OT_RVS, 0, 0, 0, 2, 1, 8, 0x800, 0x900, NULL);
	settle(d);
	node(d, 2);
	sd_get(d, 0x900, &got, 8);
	CHECK_EQ(got, v);
	CHECK_EQ(stat(d, "pgid_drops"), 1);
	node(d, 1);
	uint64_t img[3] = { 0x0000000200314000ull, 0x00000a0000000a00ull, 42 }; /* PGID 3 forged */
	CHECK_OK(dnet_write_block(d, DNET_WW_WID(1), img, sizeof img, &E), &E);
	issue_botf(d, 1, 0, 24); /* WID 1 is in group 0 */
	settle(d);
	node(d, 2);
	CHECK_EQ(stat(d, "pgid_drops"), 2);
	sd_get(d, 0xa00, &got, 8);
	CHECK_EQ(got, 0);
	dnet_close(d);
}

static void test_rvl(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=2");
	uint8_t src[0x300], got[0x300];
	fill(src, sizeof src, 9);
	node(d, 2);
	sd_put(d, 0x300000, src, sizeof src);
	node(d, 1);
	/* Command0: remote SO-DIMM -> local SO-DIMM, status on the issuer. */
	issue_x(d, 0, 0, DNET_OT_RVL, 0, 0, 0, 2, 1, 0x300, 0x300000, 0x400000, NULL);
	wait_eq(d, DNET_UREG_WID(0) + DNET_UR_STATUS_ADDR, 0x7fff, 0x10);
	sd_get(d, 0x400000, got, sizeof got);
	CHECK(memcmp(got, src, sizeof src) == 0);
	uint64_t lo, hi;
	status_at(d, 0, 0, &lo, &hi);
	CHECK_EQ(lo, STLO(0x14, 0, 0, 0, 2, 0x300));
	CHECK_EQ(hi, 0x0040000000400000ull);
	CHECK_EQ(ureg(d, 0, DNET_UR_PRIM_COUNTER), 1ull << 30);
	CHECK_EQ(ureg(d, 0, DNET_UR_PKT_COUNTER), 1);
	/* Command1: into PW#2; flags reset at issue, 4'b1111 when done. */
	issue_x(d, 0, 1, DNET_OT_RVL, 0, 0, 0, 2, 0, 0x200, 0x300000, 0x400, NULL);
	CHECK_EQ(ureg(d, 0, DNET_UR_PW_FLAG) & 0xf00, 0);
	wait_eq(d, DNET_UREG_WID(0) + DNET_UR_PW_FLAG, 0xf00, 0xf00);
	CHECK_OK(dnet_read_block(d, DNET_PW_WID(0) + 0x400, got, 0x200, &E), &E);
	CHECK(memcmp(got, src, 0x200) == 0);
	/* RVLS: 8-byte elements every 0x20 bytes on the remote side. */
	issue_x(d, 0, 0, DNET_OT_RVLS, 3, 16, 0, 2, 0, 0x20, 0x300000, 0x500000, NULL);
	settle(d);
	uint8_t exp[128];
	for (unsigned i = 0; i < 16; i++)
		memcpy(exp + 8 * i, src + 0x20 * i, 8);
	sd_get(d, 0x500000, got, 128);
	CHECK(memcmp(got, exp, 128) == 0);
	/* RVL with Command Ex (OTYPE (Ex) = VSS): the issuer's local write is
	 * strided: 4-byte elements every 0x10. */
	ureg_w(d, 0, DNET_UR_CMD_EX_FLAG, 1);
	struct dnet_req_ex ex = { .otype = DNET_OT_VSS, .dtype = 2, .iter = 8, .size = 0x10 };
	issue_x(d, 0, 0, DNET_OT_RVL, 0, 0, 0, 2, 0, 32, 0x300000, 0x600000, &ex);
	settle(d);
	int bad = 0;
	for (unsigned i = 0; i < 8; i++) {
		uint8_t e[4];
		sd_get(d, 0x600000 + 0x10 * i, e, 4);
		bad += memcmp(e, src + 4 * i, 4) != 0;
	}
	CHECK_EQ(bad, 0);
	ureg_w(d, 0, DNET_UR_CMD_EX_FLAG, 0);
	CHECK_EQ(ureg(d, 0, DNET_UR_PRIM_COUNTER), 4ull << 30);
	/* The responder ran RVS on the issuer's behalf: no primitive counts
	 * there; its Packet Counter counts the 4 request packets (App. A). */
	node(d, 2);
	CHECK_EQ(ureg(d, 0, DNET_UR_PRIM_COUNTER), 0);
	CHECK_EQ(ureg(d, 0, DNET_UR_PKT_COUNTER), 4);
	CHECK_EQ(stat(d, "packets_sent"), 4);
	dnet_close(d);
}

static void test_ring_backpressure(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=2");
	node(d, 2);
	/* 64-byte ring at LLCM 0x200: 4 slots, 3 usable. */
	ureg_w(d, 0, DNET_UR_STATUS_INIT, 0x200);
	ureg_w(d, 0, DNET_UR_STATUS_SIZE, 0x01);
	ureg_w(d, 0, DNET_UR_STATUS_ADDR, 0x200);
	node(d, 1);
	for (unsigned i = 0; i < 5; i++) {
		uint64_t v = 0x100 + i;
		sd_put(d, 0x40 * i, &v, 8);
		issue_x(d, 0, 0, DNET_OT_RVS, 0, 0, 0, 2, 1, 8, 0x40 * i, 0x1000 + 0x40 * i, NULL);
	}
	settle(d);
	node(d, 2);
	CHECK_EQ(ureg(d, 0, DNET_UR_STATUS_ADDR), 0x230);
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS), 0x2 | 0x8); /* full */
	CHECK_EQ(stat(d, "rc_stalls"), 1);
	CHECK_EQ(ureg(d, 0, DNET_UR_PKT_COUNTER), 4); /* 4th waits for its status */
	CHECK_EQ(stat(d, "rx_queue"), 2);
	/* Consume the three statuses: the two others are written, wrapping. */
	ureg_w(d, 0, DNET_UR_STATUS_ADDR, 0x230);
	settle(d);
	CHECK_EQ(ureg(d, 0, DNET_UR_STATUS_ADDR), 0x210);
	CHECK_EQ(ureg(d, 0, DNET_UR_PKT_COUNTER), 5);
	uint64_t lo, hi;
	status_at(d, 0, 0x230, &lo, &hi);
	CHECK_EQ(hi, 0x000010c0000010c0ull); /* 4th: DSTOff 0x10c0 */
	status_at(d, 0, 0x200, &lo, &hi);
	CHECK_EQ(lo, STLO(0x14, 0, 0, 0, 1, 8));
	CHECK_EQ(hi, 0x0000110000001100ull); /* 5th: 0x1100 */
	uint64_t got;
	sd_get(d, 0x1100, &got, 8);
	CHECK_EQ(got, 0x104);
	dnet_close(d);
}

/* Status ring (D-SIM-RING): 64-byte ring near the end of
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

static void test_malformed_rvl(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=2");
	/* A malformed RVL (with data) sets Controller Status [19:18] = 2'b11. */
	node(d, 1);
	uint64_t rvl[5] = { 0x2000000200010000ull, 0, 0, 0, 9 }; /* RVL, hflag, 40 bytes */
	CHECK_OK(dnet_write_block(d, DNET_WW_WID(0) + 0x200, rvl, sizeof rvl, &E), &E);
	issue_botf(d, 0, 1, 40);
	settle(d);
	node(d, 2);
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS) >> 18, 3);
	dnet_close(d);
}

int main(void)
{
	RUN(test_botf_llcm);
	RUN(test_rvs_pw_and_stride);
	RUN(test_pgid);
	RUN(test_rvl);
	RUN(test_ring_backpressure);
	RUN(test_ring_wrap);
	RUN(test_botf_images);
	RUN(test_rvl_roundtrip);
	RUN(test_pgid_per_wid);
	RUN(test_rx_overrun);
	RUN(test_malformed_rvl);
	return t_summary("test_sim_rc");
}
