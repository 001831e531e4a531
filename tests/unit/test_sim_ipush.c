/* Tests of backends/sim/ipush.c: IPUSH, IPUSH with LHSv1/LHSv2 and the LH
 * Buffer (thesis chapter 7; decisions D-SIM-AMT-*,
 * D-SIM-IPUSH-*, D-SIM-LHS*).  Requests, AMT words and AMT entries are built
 * bit by bit here; ring positions, LH entry contents, flags and counts are
 * computed by the test's own model of the decisions, not by the emulator. */
/* Decisions pinned here (docs/decisions.md): D-SIM-AMT-TABLE,
 * D-SIM-IPUSH-WIRE, D-SIM-IPUSH-MSG, D-SIM-IPUSH-STATUS, D-SIM-LHS-VL,
 * D-SIM-LHSV2, D-SIM-SLID (each sender's ring is found by its source LID:
 * test_seven_senders). */
#include "test_spec_enc.h"

#define OT_IPUSH 0x18u
#define OT_LHSV1 0x19u
#define OT_LHSV2 0x1au
#define FAM_IPUSH 5u
#define UNIT 4096u           /* IPUSH Area Size unit (D-SIM-IPUSH-AREA) */
#define AMT_IDX 200u         /* AMT entry used by default: LLCM byte 1600 */

/* LID of node k: the CLID expanded (D-CLID) -- CLIDs below 0x100 keep
 * their value, so node k < 256 has LID k. */
static unsigned lid_of(unsigned node) { return node; }

/* AMT Address Table Interface word (App. B): [11:0] value, [12] WID, [29:14] LID. */
static uint64_t amt_word(unsigned idx, unsigned wid, unsigned lid)
{
	return (uint64_t)idx | (uint64_t)wid << 12 | (uint64_t)lid << 14;
}

/* AMT entry (D-SIM-AMT-ENTRY): Head [31:0], Tail [63:32]. */
static void amt_set(struct dnet_dev *d, unsigned wid, unsigned idx, uint32_t head, uint32_t tail)
{
	wr64(d, DNET_LLCM_WID(wid) + 8 * idx, (uint64_t)tail << 32 | head);
}
static uint32_t amt_tail(struct dnet_dev *d, unsigned wid, unsigned idx)
{
	return (uint32_t)(rd64(d, DNET_LLCM_WID(wid) + 8 * idx) >> 32);
}
static void amt_head(struct dnet_dev *d, unsigned wid, unsigned idx, uint32_t head)
{
	CHECK_OK(dnet_write32(d, DNET_LLCM_WID(wid) + 8 * idx, head, &E), &E);
}

/* Receiver set-up on node rx, WID 0: every sender in [1, nsend] maps to
 * AMT entry idx (shared) or idx + sender - 1 (private); each ring is
 * units x 4 KB at base + k x ring size; status ring at LLCM 0 (default). */
/* Leaves the caller on node rx (rx_setup(d, ...) makes d its handle). */
static struct dnet_dev *rx_setup_(struct dnet_dev *d, unsigned rx, unsigned nsend, bool shared, unsigned units,
				  uint32_t base)
{
	node(d, rx);
	for (unsigned k = 1; k <= nsend; k++) {
		unsigned idx = shared ? AMT_IDX : AMT_IDX + k - 1;
		sreg_w(d, DNET_SR_AMT, amt_word(idx, 0, lid_of(k)));
		if (!shared || k == 1) {
			uint32_t r = base + (shared ? 0 : (k - 1) * units * UNIT);
			amt_set(d, 0, idx, r, r);
		}
	}
	ureg_w(d, 0, DNET_UR_IPUSH_AREA, units);
	return d;
}
#define rx_setup(d, ...) ((d) = rx_setup_((d), __VA_ARGS__))

/* Entry slot k of the LH Buffer, as 8 little-endian words. */
static void lh_get(struct dnet_dev *d, unsigned wid, unsigned k, uint64_t e[8])
{
	CHECK_OK(dnet_read_block(d, DNET_LHB_WID(wid) + 64 * k, e, 64, &E), &E);
}

static uint64_t envelope(unsigned ctx, unsigned rank, uint32_t tag)
{
	return (uint64_t)ctx << 48 | (uint64_t)rank << 32 | tag;
}

static void le64(uint8_t *b, uint64_t v)
{
	for (unsigned i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
}

/* Check an LH entry against the message msg[0..total) that was sent:
 * Pointer/Size line, envelope line with the flags, 48 data bytes, and the
 * SO-DIMM part at Pointer.  phase = expected value of both flags. */
static void check_lh_entry(struct dnet_dev *d, unsigned k, const uint8_t *msg, uint32_t total,
			   unsigned phase)
{
	uint64_t e[8];
	lh_get(d, 0, k, e);
	uint32_t size = total > 8 ? total - 8 : 0;
	CHECK_EQ((uint32_t)e[0], size);
	uint8_t envb[8] = { 0 };
	memcpy(envb, msg, total < 8 ? total : 8);
	uint64_t env = 0;
	for (unsigned i = 0; i < 8; i++)
		env |= (uint64_t)envb[i] << (8 * i);
	uint64_t flags = (uint64_t)phase << 47 | (uint64_t)phase << 46;
	CHECK_EQ(e[1], (env & ~(3ull << 46)) | flags);
	uint8_t data[48] = { 0 };
	if (total > 8)
		memcpy(data, msg + 8, size < 48 ? size : 48);
	CHECK(memcmp(&e[2], data, 48) == 0);
	uint32_t ptr = (uint32_t)(e[0] >> 32);
	if (size > 48) {
		uint8_t *got = malloc(size - 48);
		sd_get(d, ptr, got, size - 48);
		CHECK(memcmp(got, msg + 56, size - 48) == 0);
		free(got);
	} else {
		CHECK_EQ(ptr, 0);
	}
}

static uint8_t *message(uint32_t total, uint64_t env, unsigned seed)
{
	uint8_t *m = malloc(total + 8);
	fill(m, total + 8, seed);
	le64(m, env);
	return m;
}

/* ---- 1. IPUSH without LHS: AMT-directed store, Tail, status, counters ---- */
static void test_ipush_plain(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=2");
	rx_setup(d, 2, 1, false, 16, 0x100000);
	node(d, 1);
	uint8_t src[100], got[100];
	fill(src, sizeof src, 3);
	sd_put(d, 0x4000, src, sizeof src);
	kick(d, 0, 0, LO(OT_IPUSH, 0, 0, 0, 2, 1, 100), UP(0x4000, 0xdead0));
	settle(d);
	CHECK_EQ(prim(d, 0, FAM_IPUSH), 1);
	CHECK_EQ(stat(d, "packets_sent"), 1);
	node(d, 2);
	sd_get(d, 0x100000, got, sizeof got);
	CHECK(memcmp(src, got, sizeof got) == 0);
	CHECK_EQ(amt_tail(d, 0, AMT_IDX), 0x100000 + 104); /* rounded to 8 */
	CHECK_EQ(ureg(d, 0, DNET_UR_PKT_COUNTER), 1);
	CHECK_EQ(ureg(d, 0, DNET_UR_STATUS_ADDR), 16);
	/* Status: OTYPE IPUSH, sender CLID 1 / WID 0, Size 100, SRCOff = address. */
	CHECK_EQ(rd64(d, DNET_LLCM_WID(0) + 0), STLO(OT_IPUSH, 0, 0, 0, 1, 100));
	CHECK_EQ((uint32_t)rd64(d, DNET_LLCM_WID(0) + 8), 0x100000);
	CHECK_EQ(stat(d, "ipush_messages"), 1);
	/* The next one follows at the new Tail. */
	node(d, 1);
	kick(d, 0, 0, LO(OT_IPUSH, 0, 0, 0, 2, 1, 24), UP(0x4000, 0));
	settle(d);
	node(d, 2);
	CHECK_EQ((uint32_t)rd64(d, DNET_LLCM_WID(0) + 24), 0x100000 + 104);
	CHECK_EQ(amt_tail(d, 0, AMT_IDX), 0x100000 + 128);
	dnet_close(d);
}

/* ---- 2. LHSv1: every size class, entry contents, overflow in the ring ---- */
static const uint32_t sizes[] = { 0, 1, 47, 48, 49, 64, 512, 4096, 65536 };
#define NSIZES (sizeof sizes / sizeof sizes[0])

static void test_lhsv1_sizes(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=2");
	rx_setup(d, 2, 1, false, 64, 0x200000); /* 256 KB ring */
	uint32_t expect_ptr = 0x200000;
	for (unsigned i = 0; i < NSIZES; i++) {
		uint32_t total = 8 + sizes[i];
		uint8_t *m = message(total, envelope(7, 1, 1000 + i), i);
		node(d, 1);
		sd_put(d, 0x10000, m, total);
		kick(d, 0, 0, LO(OT_LHSV1, 0, 0, 0, 2, 0, total), UP(0x10000, 0));
		settle(d);
		CHECK_EQ(prim(d, 0, FAM_IPUSH), i + 1);
		node(d, 2);
		CHECK_EQ(ureg(d, 0, DNET_UR_LHB_ADDR), 64 * (i + 1));
		check_lh_entry(d, i, m, total, 1);
		if (sizes[i] > 48) {
			uint64_t e[8];
			lh_get(d, 0, i, e);
			CHECK_EQ((uint32_t)(e[0] >> 32), expect_ptr);
			expect_ptr += (sizes[i] - 48 + 7) / 8 * 8;
		}
		CHECK_EQ(amt_tail(d, 0, AMT_IDX), expect_ptr);
		free(m);
	}
	node(d, 2);
	CHECK_EQ(stat(d, "lhs_messages"), NSIZES);
	/* eflag = 0: no status was written. */
	CHECK_EQ(ureg(d, 0, DNET_UR_STATUS_ADDR), 0);
	/* 65544 bytes at MTU 2048 = 33 packets of <= 2024 data bytes. */
	CHECK_EQ(stat(d, "packets_received"), 7 + (4104 + 2023) / 2024 + (65544 + 2023) / 2024);
	dnet_close(d);
}

/* ---- 3. LHSv2: envelope (any prefix) from the Write Window ---- */
static void test_lhsv2(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=2");
	rx_setup(d, 2, 1, false, 64, 0x200000);
	for (unsigned i = 0; i < NSIZES; i++) {
		uint32_t body = sizes[i], total = 8 + body;
		uint8_t *m = message(total, envelope(3, 1, 77 + i), 40 + i);
		node(d, 1);
		ww_put(d, 0, 0x400, m, 8);          /* envelope in WW#2 */
		if (body)
			sd_put(d, 0x30000, m + 8, body);  /* body elsewhere in the SO-DIMM */
		/* Upper (Fig. 7.8): SRCOff [31:0], WW size [41:32], WW address [53:42]. */
		uint64_t up = 0x30000u | 8ull << 32 | 0x400ull << 42;
		kick(d, 0, 0, LO(OT_LHSV2, 0, 0, 0, 2, 1, total), up);
		settle(d);
		node(d, 2);
		check_lh_entry(d, i, m, total, 1);
		/* eflag = 1: status with Size = message bytes, SRCOff = Pointer. */
		uint64_t e[8];
		lh_get(d, 0, i, e);
		CHECK_EQ(rd64(d, DNET_LLCM_WID(0) + 16 * i), STLO(OT_IPUSH, 0, 0, 0, 1, total));
		CHECK_EQ((uint32_t)rd64(d, DNET_LLCM_WID(0) + 16 * i + 8), (uint32_t)(e[0] >> 32));
		free(m);
	}
	/* A 40-byte prefix: the envelope and 32 data bytes come from the
	 * window, the other data from the SO-DIMM, in one message. */
	uint8_t *m = message(8 + 200, envelope(1, 1, 5), 99);
	node(d, 1);
	ww_put(d, 0, 0x600, m, 40);
	sd_put(d, 0x50000, m + 40, 168);
	kick(d, 0, 0, LO(OT_LHSV2, 0, 0, 0, 2, 0, 208), 0x50000u | 40ull << 32 | 0x600ull << 42);
	settle(d);
	node(d, 2);
	check_lh_entry(d, NSIZES, m, 208, 1);
	free(m);
	dnet_close(d);
}

/* ---- 4. Ring wrap, with the test's own model of D-SIM-IPUSH-RING ---- */
static void test_ring_wrap(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=2");
	const uint32_t base = 0x300000, size = UNIT; /* one 4 KB ring */
	rx_setup(d, 2, 1, false, 1, base);
	uint32_t head = base, tail = base;
	uint8_t src[1000], got[1000];
	for (unsigned i = 0; i < 20; i++) {
		uint32_t len = 600 + 17 * i; /* <= 923 */
		fill(src, len, i);
		node(d, 1);
		sd_put(d, 0, src, len);
		kick(d, 0, 0, LO(OT_IPUSH, 0, 0, 0, 2, 1, len), UP(0, 0));
		settle(d);
		/* Model: contiguous, at Tail or at the start, one unit free. */
		uint32_t l = (len + 7) / 8 * 8, at;
		if (tail >= head)
			at = (tail + l < base + size || (tail + l == base + size && head != base))
				     ? tail : base;
		else
			at = tail;
		node(d, 2);
		uint32_t st = (uint32_t)rd64(d, DNET_LLCM_WID(0) + (16 * i) % 1024 + 8);
		CHECK_EQ(st, at);
		sd_get(d, at, got, len);
		CHECK(memcmp(src, got, len) == 0);
		tail = at + l == base + size ? base : at + l;
		CHECK_EQ(amt_tail(d, 0, AMT_IDX), tail);
		/* The host consumes it at once: Head = end of the message. */
		head = tail;
		amt_head(d, 0, AMT_IDX, head);
		ureg_w(d, 0, DNET_UR_STATUS_ADDR, ureg(d, 0, DNET_UR_STATUS_ADDR));
	}
	CHECK_EQ(stat(d, "ipush_stalls"), 0);
	dnet_close(d);
}

/* ---- 5. A full ring stalls the sender; nothing is lost ---- */
static void test_ring_full_stall(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=2");
	const uint32_t base = 0x300000;
	rx_setup(d, 2, 1, false, 1, base);
	node(d, 1);
	uint8_t src[1024];
	/* Five 1000-byte messages: four fit (4 x 1000 < 4096 - 8), the fifth waits. */
	for (unsigned i = 0; i < 5; i++) {
		fill(src, 1000, 50 + i);
		sd_put(d, 0x1000 * i, src, 1000);
		kick(d, 0, 0, LO(OT_IPUSH, 0, 0, 0, 2, 1, 1000), UP(0x1000 * i, 0));
	}
	settle(d);
	CHECK_EQ(prim(d, 0, FAM_IPUSH), 5); /* sent, held in the network */
	node(d, 2);
	CHECK_EQ(ureg(d, 0, DNET_UR_STATUS_ADDR), 4 * 16);
	CHECK_EQ(stat(d, "ipush_stalls"), 1);
	/* Module State: WU IPUSH machine in WAIT (one-hot bit 2 of [11:9] = bit 48). */
	CHECK((ureg(d, 0, DNET_UR_MODULE_STATE) >> 46 & 7u) == 4u);
	/* Freeing the first message is not enough: the fifth would end
	 * exactly at Head (one unit stays free).  Freeing two is. */
	amt_head(d, 0, AMT_IDX, base + 1000);
	settle(d);
	CHECK_EQ(ureg(d, 0, DNET_UR_STATUS_ADDR), 4 * 16);
	amt_head(d, 0, AMT_IDX, base + 2000);
	settle(d);
	CHECK_EQ(ureg(d, 0, DNET_UR_STATUS_ADDR), 5 * 16);
	CHECK_EQ((uint32_t)rd64(d, DNET_LLCM_WID(0) + 4 * 16 + 8), base);
	uint8_t got[1000];
	fill(src, 1000, 54);
	sd_get(d, base, got, 1000);
	CHECK(memcmp(src, got, 1000) == 0);
	dnet_close(d);
}

/* ---- 6. LH Buffer: full at 63, the sender stalls, drained without loss;
 *         the second lap toggles the flags back to 0 (buffer reuse) ---- */
/* Sender side of test_lh_fill_63: message i as a BOTF image (§7.2.2: header
 * TYPE IPUSH, lflag 1; envelope; 16 data bytes) in window i % 4, once the
 * BOTF that last used that window has been sent.  False if the sender is
 * held back (that BOTF did not complete within 1 ms). */
static bool lh_send(struct dnet_dev *d, unsigned i)
{
	node(d, 1);
	if (i >= 4 && dnet_wait(d, UR(0, DNET_UR_PRIM_COUNTER), 0x3ff, DNET_COND_GE, i - 3,
				1000000, NULL, &E))
		return false;
	uint8_t img[40];
	le64(img, H1(sizeof img, OT_IPUSH, 0, 0, 0, lid_of(2), 0, 0, 0, 0, 0, 1));
	le64(img + 8, 0);
	le64(img + 16, envelope(9, 1, i));
	fill(img + 24, 16, i);
	ww_put(d, 0, 0x200 * (i % 4), img, sizeof img);
	kick_botf(d, 0, i % 4, sizeof img);
	return true;
}

static void test_lh_fill_63(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=2");
	rx_setup(d, 2, 1, false, 16, 0x100000);
	unsigned sent = 0;
	while (sent < 100 && lh_send(d, sent))
		sent++;
	settle(d);
	node(d, 2);
	/* 63 entries in use, the 64th message waits in the Receive Controller,
	 * the sender's SWIF FIFO (8 packets) and Request FIFO fill behind it. */
	CHECK_EQ(ureg(d, 0, DNET_UR_LHB_ADDR), 63 * 64);
	CHECK_EQ(stat(d, "lhb_stalls"), 1);
	CHECK_EQ(ureg(d, 0, DNET_UR_PKT_COUNTER), 63);
	CHECK(sent > 64 && sent < 100);
	/* Drain: read and free entries in order, 16 at a time, and let the
	 * sender go on; every message arrives once, in order. */
	unsigned seen = 0, head = 0;
	for (unsigned round = 0; round < 100 && seen < 100; round++) {
		node(d, 2);
		unsigned t = (unsigned)ureg(d, 0, DNET_UR_LHB_ADDR), n = 0;
		while (head != t && n++ < 16) {
			unsigned slot = head / 64, lap = seen / 64;
			uint8_t msg[24];
			le64(msg, envelope(9, 1, seen));
			fill(msg + 8, 16, seen);
			check_lh_entry(d, slot, msg, 24, (lap & 1) ? 0 : 1);
			seen++;
			head = (head + 64) % 4096;
		}
		ureg_w(d, 0, DNET_UR_LHB_ADDR, head);
		while (sent < 100 && lh_send(d, sent))
			sent++;
		settle(d);
	}
	CHECK_EQ(sent, 100);
	CHECK_EQ(seen, 100);
	node(d, 2);
	CHECK_EQ(ureg(d, 0, DNET_UR_PKT_COUNTER), 100);
	dnet_close(d);
}

/* ---- 7. Seven senders to one receiver sharing one ring ---- */
static void test_seven_senders(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=8");
	rx_setup(d, 8, 7, true, 64, 0x400000);
	/* Each sender: 3 messages of 3000 bytes (2 packets each at MTU 2048),
	 * all issued before time runs, so packets interleave at the receiver. */
	for (unsigned k = 1; k <= 7; k++) {
		node(d, k);
		for (unsigned j = 0; j < 3; j++) {
			static uint8_t src[3000];
			fill(src, sizeof src, 10 * k + j);
			sd_put(d, 0x10000 * (j + 1), src, sizeof src);
			kick(d, 0, 0, LO(OT_IPUSH, 0, 0, 0, 8, 1, 3000), UP(0x10000 * (j + 1), 0));
		}
	}
	settle(d);
	node(d, 8);
	CHECK_EQ(ureg(d, 0, DNET_UR_STATUS_ADDR), 21 * 16);
	unsigned count[8] = { 0 };
	uint32_t lo_addr = UINT32_MAX, hi_end = 0;
	for (unsigned i = 0; i < 21; i++) {
		uint64_t lo = rd64(d, DNET_LLCM_WID(0) + 16 * i);
		uint32_t addr = (uint32_t)rd64(d, DNET_LLCM_WID(0) + 16 * i + 8);
		unsigned sclid = (unsigned)(lo >> 18) & 0xfffu;
		CHECK((uint32_t)(lo >> 32) == 3000);
		CHECK(sclid >= 1 && sclid <= 7);
		if (sclid < 1 || sclid > 7)
			continue;
		/* A sender's messages arrive in order: j = count so far. */
		static uint8_t want[3000], got[3000];
		fill(want, sizeof want, 10 * sclid + count[sclid]);
		sd_get(d, addr, got, sizeof got);
		CHECK(memcmp(want, got, sizeof got) == 0);
		count[sclid]++;
		lo_addr = addr < lo_addr ? addr : lo_addr;
		hi_end = addr + 3000 > hi_end ? addr + 3000 : hi_end;
	}
	for (unsigned k = 1; k <= 7; k++)
		CHECK_EQ(count[k], 3);
	/* One shared ring, packed: 21 x 3000 bytes from the ring start. */
	CHECK_EQ(lo_addr, 0x400000);
	CHECK_EQ(hi_end, 0x400000 + 20 * 3000 + 3000);
	dnet_close(d);
}

/* ---- 8. Wrong PGID: dropped and counted, nothing written ---- */
static void test_wrong_pgid(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=2");
	rx_setup(d, 2, 1, false, 16, 0x100000);
	sreg_w(d, DNET_SR_PGID0, 5);
	node(d, 1);
	uint8_t m[64];
	fill(m, sizeof m, 1);
	sd_put(d, 0, m, sizeof m);
	kick(d, 0, 0, LO(OT_LHSV1, 0, 0, 0, 2, 1, 64), UP(0, 0));
	settle(d);
	node(d, 2);
	CHECK_EQ(stat(d, "pgid_drops"), 1);
	CHECK_EQ(ureg(d, 0, DNET_UR_LHB_ADDR), 0);
	CHECK_EQ(ureg(d, 0, DNET_UR_PKT_COUNTER), 0);
	CHECK_EQ(amt_tail(d, 0, AMT_IDX), 0x100000);
	dnet_close(d);
}

/* ---- 9. Rings that cannot receive: size 0, too small, outside the area ---- */
static void test_no_ring(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=2");
	rx_setup(d, 2, 1, false, 0, 0x100000); /* IPUSH Area Size 0 */
	node(d, 1);
	kick(d, 0, 0, LO(OT_IPUSH, 0, 0, 0, 2, 1, 64), UP(0, 0));
	settle(d);
	node(d, 2);
	CHECK_EQ(stat(d, "ipush_no_ring"), 1);
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS) >> 17 & 1u, 1);
	/* 1 unit = 4096 bytes holds at most 4088: 4089 can never fit. */
	ureg_w(d, 0, DNET_UR_IPUSH_AREA, 1);
	node(d, 1);
	kick(d, 0, 0, LO(OT_IPUSH, 0, 0, 0, 2, 1, 4089), UP(0, 0));
	kick(d, 0, 0, LO(OT_IPUSH, 0, 0, 0, 2, 1, 4088), UP(0, 0));
	settle(d);
	node(d, 2);
	CHECK_EQ(stat(d, "ipush_too_big"), 1);
	CHECK_EQ(ureg(d, 0, DNET_UR_STATUS_ADDR), 16); /* the 4088-byte one arrived */
	/* A zero-byte IPUSH needs no ring room. */
	node(d, 1);
	kick(d, 0, 0, LO(OT_IPUSH, 0, 0, 0, 2, 1, 0), UP(0, 0));
	settle(d);
	node(d, 2);
	CHECK_EQ(ureg(d, 0, DNET_UR_STATUS_ADDR), 32);
	CHECK_EQ(rd64(d, DNET_LLCM_WID(0) + 16), STLO(OT_IPUSH, 0, 0, 0, 1, 0));
	dnet_close(d);
}

/* ---- 10. An early VL from the Pointer waits for the whole message ---- */
static void test_early_vl(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=2");
	rx_setup(d, 2, 1, false, 64, 0x200000);
	uint32_t total = 8 + 20000;
	uint8_t *m = message(total, envelope(2, 1, 9), 5);
	node(d, 1);
	sd_put(d, 0x10000, m, total);
	kick(d, 0, 0, LO(OT_LHSV1, 0, 0, 0, 2, 0, total), UP(0x10000, 0));
	node(d, 2);
	/* Poll for the Valid flag, then issue the VL of the last 512 bytes at once. */
	CHECK_OK(dnet_wait(d, DNET_LHB_WID(0) + 8, 1ull << 47, DNET_COND_EQ, 1ull << 47, 1000000,
			   NULL, &E), &E);
	uint64_t e1 = rd64(d, DNET_LHB_WID(0) + 8);
	CHECK_EQ(e1 >> 46 & 1u, 0); /* not Complete yet: later packets still coming */
	uint32_t ptr = (uint32_t)(rd64(d, DNET_LHB_WID(0)) >> 32);
	uint32_t off = 20000 - 48 - 512;
	kick(d, 0, 0, LO(DNET_OT_VL, 0, 0, 0, 0, 0, 512), UP(ptr + off, 0));
	wait_eq(d, UR(0, DNET_UR_PW_FLAG), 0xf, 0xf);
	uint8_t pw[512];
	pw_get(d, 0, 0, pw, 512);
	CHECK(memcmp(pw, m + 56 + off, 512) == 0);
	CHECK_EQ(rd64(d, DNET_LHB_WID(0) + 8) >> 46 & 1u, 1);
	free(m);
	dnet_close(d);
}

/* ---- 11. Timing: IPUSH costs 4 clocks more than PUSH per 24-byte packet
 *          (Tab. 7.4 / 7.5: 20 vs 24 clocks at 100 MHz) ---- */
static uint64_t status_time(struct dnet_dev *d, unsigned otype)
{
	node(d, 1);
	uint64_t t0 = now(d);
	kick(d, 0, 0, LO(otype, 0, 0, 0, 2, 1, 8), UP(0, 0x800));
	node(d, 2);
	uint32_t want = (uint32_t)((ureg(d, 0, DNET_UR_STATUS_ADDR) + 16) % 1024);
	CHECK_OK(dnet_wait(d, UR(0, DNET_UR_STATUS_ADDR), 0x7fff, DNET_COND_EQ, want, 1000000,
			   NULL, &E), &E);
	return now(d) - t0;
}

static void test_ipush_timing(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=2");
	rx_setup(d, 2, 1, false, 16, 0x100000);
	uint64_t push = status_time(d, DNET_OT_RVS);
	settle(d);
	uint64_t ipush = status_time(d, OT_IPUSH);
	CHECK_EQ(ipush - push, 40);
	dnet_close(d);
}

/* Virtual ns from issuing a 24-byte PUSH on node 1 until node 2's user
 * register `reg` (masked) moves, on a fresh two-node emulator. */
static uint64_t push_seen(uint32_t reg, uint64_t mask)
{
	struct dnet_dev *d = sim_open("sim:nodes=2");
	rx_setup(d, 2, 1, false, 16, 0x100000);
	node(d, 2);
	uint64_t before = ureg(d, 0, reg) & mask;
	node(d, 1);
	uint64_t t0 = now(d);
	kick(d, 0, 0, LO(DNET_OT_RVS, 0, 0, 0, 2, 1, 8), UP(0, 0x800));
	node(d, 2);
	CHECK_OK(dnet_wait(d, UR(0, reg), mask, DNET_COND_NE, before, 1000000, NULL, &E), &E);
	uint64_t t = now(d) - t0;
	dnet_close(d);
	return t;
}

/* The receive status is seen when Tab. 7.4's last step ("RC: write
 * status", 4 clocks) ends, 4 clocks after the data is written and the
 * Packet Counter counts it (the end of the Write Unit's SO-DIMM write). */
static void test_status_seen_at_end(void)
{
	uint64_t counted = push_seen(DNET_UR_PKT_COUNTER, ~0ull);
	uint64_t status = push_seen(DNET_UR_STATUS_ADDR, 0x7fff);
	CHECK_EQ(status - counted, 4 * 10);
}

/* ---- 12. lhs_type=own: LHSv1 goes out with its own TYPE; received the same ---- */
static void test_lhs_type_option(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=2,lhs_type=own");
	rx_setup(d, 2, 1, false, 16, 0x100000);
	node(d, 1);
	uint8_t *m = message(8 + 100, envelope(1, 1, 1), 1);
	sd_put(d, 0, m, 108);
	kick(d, 0, 0, LO(OT_LHSV1, 0, 0, 0, 2, 1, 108), UP(0, 0));
	settle(d);
	node(d, 2);
	check_lh_entry(d, 0, m, 108, 1);
	CHECK_EQ(rd64(d, DNET_LLCM_WID(0)), STLO(OT_LHSV1, 0, 0, 0, 1, 108));
	free(m);
	dnet_close(d);
}

/* ---- 13. A full status area stalls IPUSH too (§5.4); the message data
 *          is already in the ring, the status follows when Head moves ---- */
static void test_status_full(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=2");
	rx_setup(d, 2, 1, false, 16, 0x100000);
	ureg_w(d, 0, DNET_UR_STATUS_SIZE, 1); /* 64 B: 4 slots, 3 usable */
	node(d, 1);
	for (unsigned i = 0; i < 5; i++)
		kick(d, 0, 0, LO(OT_IPUSH, 0, 0, 0, 2, 1, 16), UP(0, 0));
	settle(d);
	node(d, 2);
	CHECK_EQ(ureg(d, 0, DNET_UR_STATUS_ADDR), 48);
	CHECK_EQ(ureg(d, 0, DNET_UR_CTL_STATUS) >> 3 & 1u, 1); /* Status Area Full */
	CHECK_EQ(stat(d, "rc_stalls"), 1);
	CHECK_EQ(amt_tail(d, 0, AMT_IDX), 0x100000 + 4 * 16); /* 4th written, status waits */
	ureg_w(d, 0, DNET_UR_STATUS_ADDR, 48); /* consume all three */
	settle(d);
	/* 4th status in slot 48, 5th in slot 0 (the ring wraps): Tail 16. */
	CHECK_EQ(ureg(d, 0, DNET_UR_STATUS_ADDR), 16);
	CHECK_EQ(amt_tail(d, 0, AMT_IDX), 0x100000 + 5 * 16);
	CHECK_EQ((uint32_t)rd64(d, DNET_LLCM_WID(0) + 48 + 8), 0x100000 + 3 * 16);
	CHECK_EQ((uint32_t)rd64(d, DNET_LLCM_WID(0) + 0 + 8), 0x100000 + 4 * 16);
	dnet_close(d);
}

int main(void)
{
	RUN(test_ipush_plain);
	RUN(test_lhsv1_sizes);
	RUN(test_lhsv2);
	RUN(test_ring_wrap);
	RUN(test_status_seen_at_end);
	RUN(test_ring_full_stall);
	RUN(test_lh_fill_63);
	RUN(test_seven_senders);
	RUN(test_wrong_pgid);
	RUN(test_no_ring);
	RUN(test_early_vl);
	RUN(test_ipush_timing);
	RUN(test_lhs_type_option);
	RUN(test_status_full);
	return t_summary("test_sim_ipush");
}
