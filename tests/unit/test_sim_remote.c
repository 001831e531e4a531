/* Emulator: communication primitives across nodes (BOTF, RVS family, RVL
 * family), receive actions into SO-DIMM / Prefetch Window / LLCM, the
 * receive-status ring, PGID isolation, MTU packetisation.  Expected header
 * and status words are written out bit by bit from the spec tables. */
#include "test_sim_util.h"

/* Receive status by hand (Tab. 4.9 in the request layout of Tab. 4.4):
 * Lower = OTYPE | DTYPE<<5 | Iter<<8 | SWID<<16 | SCLID<<18 | eflag<<30 | Size<<32,
 * Upper = first address | DSTOff<<32. */
static uint64_t st_lo(unsigned otype, unsigned dtype, unsigned iter, unsigned swid,
		      unsigned sclid, uint32_t size)
{
	return otype | dtype << 5 | iter << 8 | swid << 16 | (uint64_t)sclid << 18 | 1ull << 30 |
	       (uint64_t)size << 32;
}

static void status_at(struct dnet_dev *d, unsigned wid, uint32_t llcm_off, uint64_t *lo,
		      uint64_t *hi)
{
	*lo = rd64(d, DNET_LLCM_WID(wid) + llcm_off);
	*hi = rd64(d, DNET_LLCM_WID(wid) + llcm_off + 8);
}

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
	CHECK_EQ(lo, st_lo(0x14, 0, 0, 0, 1, 8));
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
	CHECK_EQ(lo, st_lo(0x14, 0, 0, 0, 1, 9216));
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
	CHECK_EQ(lo, st_lo(0x15, 2, 16, 0, 3, 64));
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
	CHECK_EQ(lo, st_lo(0x14, 0, 0, 0, 2, 0x300));
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
	CHECK_EQ(lo, st_lo(0x14, 0, 0, 0, 1, 8));
	CHECK_EQ(hi, 0x0000110000001100ull); /* 5th: 0x1100 */
	uint64_t got;
	sd_get(d, 0x1100, &got, 8);
	CHECK_EQ(got, 0x104);
	dnet_close(d);
}

int main(void)
{
	RUN(test_botf_llcm);
	RUN(test_rvs_mtu);
	RUN(test_rvs_pw_and_stride);
	RUN(test_pgid);
	RUN(test_rvl);
	RUN(test_rvs_ex_gather);
	RUN(test_ring_backpressure);
	return t_summary("test_sim_remote");
}
