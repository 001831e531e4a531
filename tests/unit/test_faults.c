/* Faults in the emulated switch and SWIF's end-to-end retransmission
 * (backends/sim/faults.c, switch.c; Decisions D-SIM-FAULTS, D-SIM-SWIF-RETX).
 *
 * The core check is differential: the same random program -- primitives of
 * every family (VS/VL and their stride/list forms, RVS/RVL with stride,
 * list, Command1 and Command Ex, BOTF images into SO-DIMM and LLCM, plain
 * IPUSH into AMT-directed rings, and messages over BOTF, LHSv1, LHSv2 and
 * rendezvous, which are IPUSH/LHS and RVL) among 8 nodes -- runs on a fault-free cluster and on one whose switch
 * loses 5 % of packets and duplicates, reorders, delays and corrupts
 * others, with the same seed; afterwards every byte of every SO-DIMM,
 * LLCM (status rings included), Prefetch Window and LH Buffer of every node
 * and WID must be equal, and so must the ring and LH Buffer pointers.
 * Primitives complete exactly once and in order, or bytes differ: a lost
 * packet leaves data missing, a duplicate writes a status twice, an
 * overtaking packet leaves stale data at the end of a stream.
 *
 * FAULTS_N primitives (default 10000); FAULTS_SEED the program's seed (also
 * the fault PRNG's); FAULTS_SPEC other rules (sim faults= syntax).
 * Rule-by-rule cases check each fault kind and the counters on a single
 * transfer whose outcome the test computes itself.
 */
#include <stdio.h>
#include <string.h>
#include "dnet/msg.h"
#include "dnet/packet.h"
#include "test_sim_util.h"

#define NODES 8u
#define FAULT_SPEC "drop:5%+reorder:3%+dup:2%+corrupt:2%+delay:1%+stall:0.2%:for:10us"

/* The program's own PRNG (xorshift64*), reset per run. */
static uint64_t prng;
static uint64_t rnd(void)
{
	prng ^= prng >> 12;
	prng ^= prng << 25;
	prng ^= prng >> 27;
	return prng * 0x2545f4914f6cdd1dull;
}
static unsigned below(unsigned n) { return (unsigned)(rnd() % n); }

static const unsigned kinds_of_stats = 6;
static const char *const fault_stats[] = {
	"faults_dropped", "faults_duplicated", "faults_reordered", "faults_delayed", "faults_corrupted",
	"faults_stalled",
};

static uint64_t stat_sum(struct dnet_dev *d, const char *name)
{
	uint64_t sum = 0;
	for (unsigned n = 1; n <= NODES; n++) {
		node(d, n);
		sum += stat(d, name);
	}
	node(d, 1);
	return sum;
}

/* Run until no node has work or packets in flight (then nothing timing
 * dependent is left: the next step starts from the same state in both runs). */
static bool drain(struct dnet_dev *d)
{
	for (unsigned iter = 0; iter < 100000; iter++) {
		bool any = false;
		for (unsigned n = 1; n <= NODES && !any; n++) {
			bool b = false;
			node(d, n);
			CHECK_OK(dnet_busy(d, &b, &E), &E);
			any = b;
		}
		if (!any)
			return true;
		CHECK_OK(dnet_delay(d, 5000, &E), &E);
	}
	return false;
}

/* Give every WID-1 status back: Head = Tail. */
static void consume_status(struct dnet_dev *d)
{
	for (unsigned n = 1; n <= NODES; n++) {
		node(d, n);
		uint64_t tail = ureg(d, 1, DNET_UR_STATUS_ADDR) & 0x7fff;
		ureg_w(d, 1, DNET_UR_STATUS_ADDR, tail);
	}
}

struct figures {
	uint64_t prims[DNET_FAMILY_COUNT + 1]; /* by family; [6]: messages */
	uint64_t msg_bytes;
	unsigned msg_bad;
	bool stuck;
};

/* Random offsets inside WID 1's area: data below 1 MB, the index list at
 * LIST (128 indices 0..63, written by VS). */
#define AREA 0x100000u
#define LIST 0xf0000u

/* Plain IPUSH from WID 1 to WID 1: on every node, sender k's messages go
 * to a 4 KB ring at RING + (k - 1) x 4 KB of WID 1's area, through AMT
 * entry AMT0 + k (App. B word: [11:0] index, [12] sender WID, [29:14]
 * sender LID = CLID k; the entry, Head [31:0] / Tail [63:32], in WID 1's
 * LLCM at 8 x index, away from the BOTF targets). */
#define RING 0x90000u
#define AMT0 0xc00u

static void ipush_setup(struct dnet_dev *d)
{
	for (unsigned rx = 1; rx <= NODES; rx++) {
		node(d, rx);
		for (unsigned k = 1; k <= NODES; k++) {
			if (k == rx)
				continue;
			uint32_t r = RING + (k - 1) * 0x1000u;
			sreg_w(d, DNET_SR_AMT, (uint64_t)(AMT0 + k) | 1ull << 12 | (uint64_t)k << 14);
			wr64(d, DNET_LLCM_WID(1) + 8 * (AMT0 + k), (uint64_t)r << 32 | r);
		}
		ureg_w(d, 1, DNET_UR_IPUSH_AREA, 1);
	}
}

/* Give src's ring at dst back: Head = Tail. */
static void ipush_consume(struct dnet_dev *d, unsigned src, unsigned dst)
{
	node(d, dst);
	uint32_t tail = (uint32_t)(rd64(d, DNET_LLCM_WID(1) + 8 * (AMT0 + src)) >> 32);
	CHECK_OK(dnet_write32(d, DNET_LLCM_WID(1) + 8 * (AMT0 + src), tail, &E), &E);
}

static void ww_fill(struct dnet_dev *d, unsigned wid, unsigned win, const uint8_t *b, unsigned len)
{
	CHECK_OK(dnet_write_block(d, DNET_WW_WID(wid) + win * DNET_WINDOW_SIZE, b, (len + 7) & ~7u, &E),
		 &E);
}

/* VS 512 B of indices into LIST.. on every node, WID 1. */
static void write_lists(struct dnet_dev *d)
{
	uint8_t b[512];
	for (unsigned i = 0; i < 128; i++) {
		uint32_t v = i * 37u % 64u;
		memcpy(b + 4 * i, &v, 4);
	}
	for (unsigned n = 1; n <= NODES; n++) {
		node(d, n);
		ww_fill(d, 1, 0, b, sizeof b);
		issue_x(d, 1, 0, DNET_OT_VS, 0, 0, 0, 0, 0, sizeof b, 0, LIST, NULL);
	}
	drain(d);
}

static const unsigned raw_ops[] = {
	DNET_OT_VS, DNET_OT_VSS, DNET_OT_VSI, DNET_OT_VL, DNET_OT_VLS, DNET_OT_VLI,
	DNET_OT_RVS, DNET_OT_RVS, DNET_OT_RVS, DNET_OT_RVSS, DNET_OT_RVSI,
	DNET_OT_RVL, DNET_OT_RVL, DNET_OT_RVLS, DNET_OT_RVLI, DNET_OT_BOTF, DNET_OT_BOTF,
	DNET_OT_IPUSH, DNET_OT_IPUSH,
};

/* One raw primitive from (src, WID 1) to dst; returns its family. */
static enum dnet_family raw_prim(struct dnet_dev *d, unsigned src, unsigned dst, struct figures *f)
{
	unsigned op = raw_ops[below(sizeof raw_ops / sizeof raw_ops[0])];
	const struct dnet_otype_info *oi = dnet_otype_info(op);
	uint8_t b[DNET_WINDOW_SIZE];
	for (unsigned i = 0; i < sizeof b; i++)
		b[i] = (uint8_t)rnd();
	node(d, src);
	unsigned win = below(4);
	ww_fill(d, 1, win, b, sizeof b);
	unsigned eflag = below(2);
	uint32_t soff = (uint32_t)(below(AREA / 2) & ~7u), doff = (uint32_t)(below(AREA / 2) & ~7u);
	unsigned dtype = below(4), iter = 1 + below(32);
	uint32_t esz = 1u << dtype;
	f->prims[oi->family]++;
	if (op == DNET_OT_BOTF) {
		/* An RVS image into dst's SO-DIMM or LLCM (WID 1). */
		unsigned dlen = 8 * below(60);
		bool llcm = below(2);
		struct dnet_pkt_hdr h = { 0 };
		h.size = 16 + dlen;
		h.type = DNET_OT_RVS;
		h.dwid = 1;
		h.swid = 1;
		h.dlid = dnet_clid_to_lid(dnet_dev_clid_reading(d), (uint16_t)dst);
		h.eflag = eflag;
		h.lflag = llcm;
		h.src_or_init_dst = llcm ? 0x1000u + 8 * below(0x600) : doff;
		h.dstoff = h.src_or_init_dst;
		uint64_t img[64];
		memcpy(img, b, sizeof img);
		img[0] = dnet_hdr_dw1(&h);
		img[1] = dnet_hdr_dw2(&h);
		ww_fill(d, 1, win, (const uint8_t *)img, h.size);
		issue_botf(d, 1, win, h.size);
		return oi->family;
	}
	if (op == DNET_OT_IPUSH) {
		/* Up to 2 KB from the SO-DIMM into dst's ring for src. */
		issue_x(d, 1, 0, op, 0, 0, 1, dst, eflag, 1 + below(2048), soff, 0, NULL);
		return oi->family;
	}
	uint32_t size;
	switch (oi->variant) {
	case DNET_VAR_STRIDE:
		size = esz * (1 + below(4)); /* stride */
		break;
	case DNET_VAR_LIST:
		size = LIST + 4 * below(64); /* list address */
		break;
	default:
		size = oi->remote ? 8 + below(oi->family == DNET_FAM_RVS ? 12000 : 6000) : 8 + below(500);
		break;
	}
	unsigned sel = 0;
	if (!oi->remote) {
		/* VS: Write Window -> SO-DIMM; VL: SO-DIMM -> Prefetch Window. */
		if (oi->variant != DNET_VAR_CONTIG) { /* within one window */
			iter = 1 + below(512 / (esz * (oi->variant == DNET_VAR_STRIDE ? size / esz : 1)) / 2 + 1);
			if (iter > 255)
				iter = 255;
		}
		if (oi->family == DNET_FAM_VS)
			soff = win * DNET_WINDOW_SIZE;
		else
			doff = win * DNET_WINDOW_SIZE;
		if (oi->variant == DNET_VAR_CONTIG && size > DNET_WINDOW_SIZE)
			size = DNET_WINDOW_SIZE;
		if (oi->variant == DNET_VAR_CONTIG)
			iter = 0;
		issue_x(d, 1, 0, op, oi->variant ? dtype : 0, iter, 0, 0, 0, size, soff, doff, NULL);
		return oi->family;
	}
	if (oi->variant == DNET_VAR_CONTIG) {
		dtype = 0;
		iter = 0;
		sel = below(4) == 0; /* Command1: into the Prefetch Window */
		if (sel) {
			size = 8 + 8 * below(200);
			doff = (uint32_t)(8 * below((2048 - size) / 8));
		}
	}
	struct dnet_req_ex ex = { 0 }, *exp = NULL;
	if (op == DNET_OT_RVL && !sel && below(4) == 0) {
		/* Command Ex: the issuer's local write is strided. */
		ex = (struct dnet_req_ex){ .otype = DNET_OT_VSS, .dtype = 3, .iter = 8, .size = 0x10 };
		size = 64;
		exp = &ex;
	}
	issue_x(d, 1, sel, op, dtype, iter, 1, dst, eflag, size, soff, doff, exp);
	return oi->family;
}

static void run_program(struct dnet_dev *d, unsigned n, uint64_t seed, struct figures *f)
{
	prng = seed | 1;
	memset(f, 0, sizeof *f);
	write_lists(d);
	ipush_setup(d);
	struct dnet_msg_job *j = NULL;
	CHECK_OK(dnet_msg_job_open(d, NODES, NULL, NULL, 0, NULL, &j, &E), &E);
	static uint8_t tx[40000], rx[40000];
	unsigned done = 0, msgseq = 0;
	while (done < n) {
		unsigned src = 1 + below(NODES), dst = 1 + (src + below(NODES - 1)) % NODES;
		if (below(5) == 0) {
			/* A message (IPUSH/LHS, BOTF or RVL underneath), received at once. */
			size_t len = below(8) ? below(700) : below(sizeof tx);
			enum dnet_msg_via via = (enum dnet_msg_via)below(5);
			if (via == DNET_MSG_VIA_BOTF && len > DNET_MSG_BOTF_MAX)
				via = DNET_MSG_VIA_AUTO;
			for (size_t i = 0; i < len; i++)
				tx[i] = (uint8_t)rnd();
			struct dnet_msg_status st;
			if (dnet_msg_send(j, src - 1, dst - 1, msgseq, tx, len, via, &E) < 0 ||
			    dnet_msg_recv(j, dst - 1, (int)(src - 1), msgseq, rx, sizeof rx, &st, &E) < 0) {
				CHECK_OK(-1, &E);
				f->stuck = true;
				break;
			}
			if (st.len != len || memcmp(tx, rx, len))
				f->msg_bad++;
			f->msg_bytes += len;
			f->prims[DNET_FAMILY_COUNT]++;
			msgseq++;
			done++;
		} else {
			/* A burst of 1-4 primitives, all from src to dst: the same
			 * pair, whose order SWIF keeps end to end, so the outcome is
			 * fixed.  An RVL ends a burst: its response lands in src's
			 * memory whenever the network brings it, so what src does
			 * after it would race with it, faults or not.  So does an
			 * IPUSH: the ring (4 KB) is given back between steps. */
			unsigned k = 1 + below(4);
			for (unsigned i = 0; i < k && done < n; i++) {
				done++;
				enum dnet_family fam = raw_prim(d, src, dst, f);
				if (fam == DNET_FAM_RVL || fam == DNET_FAM_IPUSH)
					break;
			}
		}
		if (!drain(d)) {
			f->stuck = true;
			fprintf(stderr, "faults: cluster still busy after 500 ms of virtual time\n");
			break;
		}
		consume_status(d);
		ipush_consume(d, src, dst);
	}
	dnet_msg_job_close(j);
	drain(d);
}

/* Every byte of both clusters' memories. */
static uint64_t compare(struct dnet_dev *a, struct dnet_dev *b, unsigned *diffs)
{
	static uint8_t x[1u << 20], y[1u << 20];
	uint64_t bytes = 0;
	*diffs = 0;
	for (unsigned n = 1; n <= NODES; n++) {
		node(a, n);
		node(b, n);
		uint64_t space = 2 * stat(a, "sodimm_area_bytes");
		CHECK_EQ(stat(a, "sodimm_bytes"), stat(b, "sodimm_bytes"));
		for (uint64_t off = 0; off < space; off += sizeof x) {
			sd_get(a, off, x, sizeof x);
			sd_get(b, off, y, sizeof y);
			bytes += sizeof x;
			if (memcmp(x, y, sizeof x)) {
				size_t k = 0;
				while (x[k] == y[k])
					k++;
				if ((*diffs)++ < 5)
					fprintf(stderr, "node %u: SO-DIMM differs at 0x%llx\n", n,
						(unsigned long long)(off + k));
			}
		}
		for (unsigned w = 0; w < DNET_NWID; w++) {
			static const struct { const char *name; uint32_t size; } reg[] = {
				{ "LLCM", DNET_LLCM_SIZE }, { "LH Buffer", DNET_LHB_SIZE }, { "PW", DNET_WINAREA_SIZE },
			};
			uint32_t base[] = { DNET_LLCM_WID(w), DNET_LHB_WID(w), DNET_PW_WID(w) };
			for (unsigned r = 0; r < 3; r++) {
				CHECK_OK(dnet_read_block(a, base[r], x, reg[r].size, &E), &E);
				CHECK_OK(dnet_read_block(b, base[r], y, reg[r].size, &E), &E);
				bytes += reg[r].size;
				if (memcmp(x, y, reg[r].size) && (*diffs)++ < 5)
					fprintf(stderr, "node %u WID %u: %s differs\n", n, w, reg[r].name);
			}
			/* The readable ring pointers: status ring and LH Buffer Tails. */
			static const uint32_t regs[] = { DNET_UR_STATUS_ADDR, DNET_UR_LHB_ADDR };
			for (unsigned r = 0; r < sizeof regs / sizeof regs[0]; r++) {
				uint64_t va = ureg(a, w, regs[r]), vb = ureg(b, w, regs[r]);
				bytes += 8;
				if (va != vb && (*diffs)++ < 5)
					fprintf(stderr, "node %u WID %u: register 0x%x 0x%llx != 0x%llx\n", n, w,
						regs[r], (unsigned long long)va, (unsigned long long)vb);
			}
		}
	}
	node(a, 1);
	node(b, 1);
	return bytes;
}

static void test_differential(void)
{
	unsigned n = 10000;
	const char *env = getenv("FAULTS_N");
	if (env)
		n = (unsigned)strtoul(env, NULL, 10);
	uint64_t seed = 20261125;
	if ((env = getenv("FAULTS_SEED")))
		seed = strtoull(env, NULL, 0);
	const char *rules = getenv("FAULTS_SPEC") ? getenv("FAULTS_SPEC") : FAULT_SPEC;
	char spec[256];
	snprintf(spec, sizeof spec, "sim:nodes=%u,faults=%s+seed:%llu", NODES, rules, (unsigned long long)seed);
	struct dnet_dev *clean = sim_open("sim:nodes=8");
	struct dnet_dev *faulty = sim_open(spec);
	struct figures fa, fb;
	run_program(clean, n, seed, &fa);
	run_program(faulty, n, seed, &fb);
	CHECK(!fa.stuck);
	CHECK(!fb.stuck);
	CHECK_EQ(fa.msg_bad, 0);
	CHECK_EQ(fb.msg_bad, 0);
	for (unsigned k = 0; k <= DNET_FAMILY_COUNT; k++)
		CHECK_EQ(fa.prims[k], fb.prims[k]);
	unsigned diffs;
	uint64_t bytes = compare(clean, faulty, &diffs);
	CHECK_EQ(diffs, 0);
	/* The fault-free run took the fault-free path. */
	CHECK_EQ(stat_sum(clean, "faults_injected"), 0);
	CHECK_EQ(stat_sum(clean, "retransmissions"), 0);
	CHECK_EQ(stat_sum(clean, "acks_sent"), 0);
	/* Every kind of fault happened, and was repaired. */
	uint64_t kinds[6], total = 0;
	for (unsigned k = 0; k < kinds_of_stats; k++) {
		kinds[k] = stat_sum(faulty, fault_stats[k]);
		total += kinds[k];
		if (n >= 1000 && !getenv("FAULTS_SPEC"))
			CHECK(kinds[k] > 0);
	}
	CHECK_EQ(stat_sum(faulty, "faults_injected"), total);
	uint64_t retx = stat_sum(faulty, "retransmissions"), dups = stat_sum(faulty, "duplicates_dropped");
	uint64_t crc = stat_sum(faulty, "crc_errors"), oos = stat_sum(faulty, "out_of_sequence");
	uint64_t pkts = stat_sum(faulty, "packets_sent");
	CHECK_EQ(pkts, stat_sum(clean, "packets_sent")); /* the same primitives, packet for packet */
	CHECK_EQ(stat_sum(faulty, "packets_received"), stat_sum(clean, "packets_received"));
	/* IPUSH messages: plain ones and LHS of the messaging layer, each once. */
	uint64_t ipm = stat_sum(clean, "ipush_messages");
	CHECK_EQ(stat_sum(faulty, "ipush_messages"), ipm);
	CHECK_EQ(stat_sum(faulty, "lhs_messages"), stat_sum(clean, "lhs_messages"));
	if (n >= 1000)
		CHECK(ipm > 0);
	if (n >= 1000 && !getenv("FAULTS_SPEC")) {
		CHECK(retx > 0);
		CHECK(dups > 0);
		CHECK(crc > 0);
	}
	uint64_t ta = stat(clean, "vtime_ns"), tb = stat(faulty, "vtime_ns");
	uint64_t prims = 0;
	for (unsigned k = 0; k < DNET_FAMILY_COUNT; k++)
		prims += fa.prims[k];
	printf("faults: %u steps: %llu primitives (BOTF %llu, VL %llu, VS %llu, RVL %llu, RVS %llu, IPUSH %llu) + "
	       "%llu messages (%llu bytes; BOTF, LHSv1, LHSv2, rendezvous) among %u nodes, seed %llu\n",
	       n, (unsigned long long)prims, (unsigned long long)fa.prims[DNET_FAM_BOTF],
	       (unsigned long long)fa.prims[DNET_FAM_VL], (unsigned long long)fa.prims[DNET_FAM_VS],
	       (unsigned long long)fa.prims[DNET_FAM_RVL], (unsigned long long)fa.prims[DNET_FAM_RVS],
	       (unsigned long long)fa.prims[DNET_FAM_IPUSH],
	       (unsigned long long)fa.prims[DNET_FAMILY_COUNT], (unsigned long long)fa.msg_bytes, NODES,
	       (unsigned long long)seed);
	printf("faults: %llu packets sent; injected %llu: dropped %llu, duplicated %llu, reordered %llu, "
	       "delayed %llu, corrupted %llu, stalls %llu\n",
	       (unsigned long long)pkts, (unsigned long long)total, (unsigned long long)kinds[0],
	       (unsigned long long)kinds[1], (unsigned long long)kinds[2], (unsigned long long)kinds[3],
	       (unsigned long long)kinds[4], (unsigned long long)kinds[5]);
	printf("faults: retransmissions %llu, duplicates dropped %llu, CRC errors %llu, out of sequence %llu; "
	       "virtual time %.3f ms fault-free, %.3f ms with faults\n",
	       (unsigned long long)retx, (unsigned long long)dups, (unsigned long long)crc,
	       (unsigned long long)oos, ta / 1e6, tb / 1e6);
	printf("faults: %llu bytes compared (SO-DIMM, LLCM with status rings, LH Buffer, PW, ring pointers "
	       "of every node and WID), %u differ\n", (unsigned long long)bytes, diffs);
	dnet_close(clean);
	dnet_close(faulty);
}

/* ---- rule by rule, on one RVS whose outcome the test knows ---- */

/* RVS of len bytes from node 1 SO-DIMM 0x10000 to node 2 SO-DIMM 0x20000
 * (WID 0, eflag 1); returns the virtual time to its status at node 2. */
static uint64_t one_rvs(struct dnet_dev *d, size_t len, unsigned seed)
{
	uint8_t *b = malloc(len), *r = malloc(len);
	fill(b, len, seed);
	node(d, 1);
	sd_put(d, 0x10000, b, len); /* WID 0: area offset = SO-DIMM address */
	node(d, 2);
	uint64_t tail0 = ureg(d, 0, DNET_UR_STATUS_ADDR) & 0x7fff;
	node(d, 1);
	uint64_t t0 = stat(d, "vtime_ns");
	issue_x(d, 0, 0, DNET_OT_RVS, 0, 0, 0, 2, 1, (uint32_t)len, 0x10000, 0x20000, NULL);
	node(d, 2);
	wait_eq(d, DNET_UREG_WID(0) + DNET_UR_STATUS_ADDR, 0x7fff, (tail0 + 16) & 0x7fff);
	uint64_t t = stat(d, "vtime_ns") - t0;
	settle(d);
	/* Exactly one status, and the data. */
	CHECK_EQ(ureg(d, 0, DNET_UR_STATUS_ADDR) & 0x7fff, (tail0 + 16) & 0x7fff);
	sd_get(d, 0x20000, r, len);
	CHECK(memcmp(b, r, len) == 0);
	free(b);
	free(r);
	return t;
}

static uint64_t nstat(struct dnet_dev *d, unsigned n, const char *name)
{
	node(d, n);
	uint64_t v = stat(d, name);
	node(d, 1);
	return v;
}

static void test_rules(void)
{
	/* Fault-free: no rule, no reliability traffic, no extra time. */
	struct dnet_dev *d = sim_open("sim:nodes=2");
	uint64_t t_clean = one_rvs(d, 8192, 1);
	uint64_t ev_clean = stat(d, "events");
	CHECK_EQ(nstat(d, 2, "acks_sent"), 0);
	dnet_close(d);
	/* A seed alone configures no rule: exactly the same run. */
	d = sim_open("sim:nodes=2,faults=seed:99");
	CHECK_EQ(one_rvs(d, 8192, 1), t_clean);
	CHECK_EQ(stat(d, "events"), ev_clean);
	dnet_close(d);

	/* drop the 2nd data packet from 1 to 2: one retransmission by timeout
	 * (or NAK), the rest arrives once; 8192 B at MTU 2048 = 5 packets. */
	d = sim_open("sim:nodes=2,faults=drop:nth:2:from:1:to:2:data");
	uint64_t t = one_rvs(d, 8192, 2);
	CHECK(t > t_clean);
	CHECK_EQ(nstat(d, 1, "faults_dropped"), 1);
	CHECK_EQ(nstat(d, 1, "faults_injected"), 1);
	CHECK(nstat(d, 1, "retransmissions") >= 1);
	CHECK(nstat(d, 2, "out_of_sequence") >= 1); /* packets 3.. came before 2 */
	CHECK_EQ(nstat(d, 2, "packets_received"), 5);
	dnet_close(d);

	/* Every data packet duplicated: each copy dropped, one status. */
	d = sim_open("sim:nodes=2,faults=dup:data");
	one_rvs(d, 8192, 3);
	CHECK_EQ(nstat(d, 1, "faults_duplicated"), 5);
	CHECK_EQ(nstat(d, 2, "duplicates_dropped"), 5);
	CHECK_EQ(nstat(d, 2, "packets_received"), 5);
	dnet_close(d);

	/* Corrupt the first packet: the CRC catches it, the timeout resends. */
	d = sim_open("sim:nodes=2,faults=corrupt:nth:1:data+rto:5us");
	t = one_rvs(d, 2000, 4);
	CHECK_EQ(nstat(d, 2, "crc_errors"), 1);
	CHECK_EQ(nstat(d, 1, "retransmit_timeouts"), 1);
	CHECK(t >= 5000);
	dnet_close(d);

	/* Reorder the first packet behind the others: in-order delivery. */
	d = sim_open("sim:nodes=2,faults=reorder:nth:1:for:3us:data");
	one_rvs(d, 8192, 5);
	CHECK(nstat(d, 2, "out_of_sequence") >= 1);
	CHECK_EQ(nstat(d, 1, "faults_reordered"), 1);
	dnet_close(d);

	/* Delay (every data packet, 4 us) keeps the link's order: nothing out of
	 * sequence, and the transfer ends 4 us later. */
	d = sim_open("sim:nodes=2,faults=delay:for:4us:data");
	t = one_rvs(d, 8192, 6);
	CHECK_EQ(nstat(d, 2, "out_of_sequence"), 0);
	CHECK(t >= t_clean + 4000);
	dnet_close(d);

	/* Stall the receiver 50 us: the transfer ends at least that late. */
	d = sim_open("sim:nodes=2,faults=stall:nth:1:to:2:for:50us");
	t = one_rvs(d, 8192, 7);
	CHECK(t >= 50000);
	CHECK_EQ(nstat(d, 1, "faults_stalled"), 1);
	dnet_close(d);

	/* A link that drops every ACK for a while, then heals (count). */
	d = sim_open("sim:nodes=2,faults=drop:acks:count:6");
	one_rvs(d, 8192, 8);
	CHECK_EQ(nstat(d, 2, "faults_dropped"), 6);
	CHECK(nstat(d, 2, "duplicates_dropped") >= 1); /* resent packets were there already */
	dnet_close(d);

	/* Same seed, same faults, same time; another seed differs. */
	uint64_t tt[3], inj[3];
	const char *specs[3] = { "sim:nodes=2,faults=drop:20%+dup:10%+seed:5",
				 "sim:nodes=2,faults=drop:20%+dup:10%+seed:5",
				 "sim:nodes=2,faults=drop:20%+dup:10%+seed:6" };
	for (unsigned i = 0; i < 3; i++) {
		d = sim_open(specs[i]);
		tt[i] = 0;
		for (unsigned k = 0; k < 5; k++)
			tt[i] += one_rvs(d, 12000, 10 + k);
		inj[i] = nstat(d, 1, "faults_injected") + nstat(d, 2, "faults_injected");
		dnet_close(d);
	}
	CHECK_EQ(tt[0], tt[1]);
	CHECK_EQ(inj[0], inj[1]);
	CHECK(tt[0] != tt[2] || inj[0] != inj[2]);
}

/* Rules added and cleared (dsh's fault command) while a 64 KB RVS (33
 * packets) is crossing the switch: packets already sent on the fault-free
 * path and those sent on the reliable one still arrive once, in order --
 * also when the rules go while two lost packets await retransmission (the
 * packets after them must not take the fault-free path and overtake). */
/* A parameter read as a number (dnet/param.h). */
static uint64_t param(struct dnet_dev *d, const char *name)
{
	uint64_t v = 0;
	CHECK_OK(dnet_param_get_u64(d, name, &v, &E), &E);
	return v;
}

static void test_runtime_rules(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=2");
	enum { LEN = 65536 };
	static uint8_t b[LEN], r[LEN];
	char rules[512];
	for (unsigned round = 0; round < 3; round++) {
		fill(b, LEN, 40 + round);
		node(d, 1);
		sd_put(d, 0x100000, b, LEN);
		node(d, 2);
		uint64_t tail0 = ureg(d, 0, DNET_UR_STATUS_ADDR) & 0x7fff;
		node(d, 1);
		uint64_t sent0 = stat(d, "packets_sent");
		if (round == 1) /* two losses still to retransmit when the rules go */
			CHECK_OK(dnet_param_set(d, "fault.add", "drop data count 2", &E), &E);
		issue_x(d, 0, 0, DNET_OT_RVS, 0, 0, 0, 2, 1, LEN, 0x100000, 0x200000, NULL);
		if (round == 1)
			while (stat(d, "packets_sent") < sent0 + 2)
				CHECK_OK(dnet_delay(d, 100, &E), &E);
		else
			CHECK_OK(dnet_delay(d, 8000, &E), &E); /* a few packets out */
		if (round == 0) {
			CHECK_OK(dnet_param_set(d, "fault.add", "drop 30%; dup 20%; reorder 20% for 1us; corrupt 10%", &E), &E);
		} else if (round == 1) {
			CHECK(param(d, "swif.unacked") > 0);
			CHECK_OK(dnet_param_set(d, "fault.rules", "", &E), &E); /* the reliable path drains first */
		} else {
			CHECK_OK(dnet_param_set(d, "fault.add", "seed 3; stall to 2 nth 2 for 30us; delay every 3 for 1us", &E), &E);
		}
		node(d, 2);
		wait_eq(d, DNET_UREG_WID(0) + DNET_UR_STATUS_ADDR, 0x7fff, (tail0 + 16) & 0x7fff);
		settle(d);
		CHECK_EQ(ureg(d, 0, DNET_UR_STATUS_ADDR) & 0x7fff, (tail0 + 16) & 0x7fff);
		memset(r, 0, LEN);
		sd_get(d, 0x200000, r, LEN);
		CHECK(memcmp(b, r, LEN) == 0);
		CHECK_EQ(param(d, "swif.unacked"), 0);
		if (round == 0) {
			CHECK(param(d, "fault.injected.drop") > 0);
			CHECK(param(d, "swif.retransmissions") > 0);
		}
	}
	/* cleared in round 1; seed is no rule */
	CHECK_OK(dnet_param_get(d, "fault.rules", rules, sizeof rules, &E), &E);
	CHECK_STR(rules, "stall to 2 for 30us nth 2\ndelay for 1us every 3");
	CHECK_EQ(param(d, "fault.seed"), 3);
	CHECK_EQ(param(d, "fault.injected.stall"), 1); /* one stall */
	/* Each of the 3 x 33 packets (2032 data bytes each) arrived once. */
	node(d, 1);
	CHECK_EQ(stat(d, "packets_sent"), 3 * 33);
	node(d, 2);
	CHECK_EQ(stat(d, "packets_received"), 3 * 33);
	dnet_close(d);
	/* A device without parameters: refused, saying why. */
	struct dnet_dev *dv = NULL;
	CHECK_OK(dnet_open_dry("sim:nodes=2", &dv, &E), &E); /* a dry run has none */
	CHECK(dnet_param_set(dv, "fault.add", "drop", &E) == -DNET_ENOENT);
	CHECK(strstr(E.msg, "has no parameters") != NULL);
	dnet_close(dv);
}

static void test_spec_errors(void)
{
	static const struct { const char *spec, *want; } bad[] = {
		{ "sim:faults=explode:5%", "unknown kind 'explode'" },
		{ "sim:faults=drop:150%", "'150%'" },
		{ "sim:faults=drop:from", "'from' needs a value" },
		{ "sim:faults=drop:from:0", "from 0" },
		{ "sim:faults=drop:nth:0", "nth 0 never fires" },
		{ "sim:faults=stall:for:0", "stall needs a duration" },
		{ "sim:faults=rto:5", "rto: '5' needs a unit" },
		{ "sim:faults=rto:5ns", "rto 5ns out of range" },
		{ "sim:faults=drop:5%:6%", "a second rate '6%' in a drop rule" },
		{ "sim:faults=drop:5%:sometimes", "'sometimes' in a drop rule is not a rate" },
	};
	for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct dnet_dev *d = NULL;
		E.msg[0] = '\0';
		CHECK(dnet_open(bad[i].spec, &d, &E) < 0);
		if (!strstr(E.msg, bad[i].want))
			fprintf(stderr, "%s: got \"%s\", want \"%s\"\n", bad[i].spec, E.msg, bad[i].want);
		CHECK(strstr(E.msg, bad[i].want) != NULL);
		if (d)
			dnet_close(d);
	}
}

int main(void)
{
	RUN(test_spec_errors);
	RUN(test_rules);
	RUN(test_runtime_rules);
	RUN(test_differential);
	return t_summary("faults");
}
