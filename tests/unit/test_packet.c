/* Packet header codec, receive status and LH entry decoders
 * (libdnet/src/packet.c).  Expected words are assembled here from the
 * positions of docs/device.md */
/* Decisions pinned here (docs/decisions.md): D-HDR-DW1, D-HDR-DW23,
 * D-HDR-LINES, D-STATUS-ORDER, D-LH-ENTRY. */
#include "dnet/dnet.h"
#include "dnet/packet_int.h" /* private: INTERNAL_TESTS */
#include "harness.h"

static void header_roundtrip(void)
{
	struct dnet_err e;
	for (int i = 0; i < 3000; i++) {
		struct dnet_pkt_hdr h = {
			.size = (unsigned)t_bits(12), .type = (unsigned)t_bits(5),
			.pgid = (unsigned)t_bits(8), .dwid = (unsigned)t_bits(1),
			.swid = (unsigned)t_bits(1), .dlid = (unsigned)t_bits(16),
			.dtype = (unsigned)t_bits(3), .iter = (unsigned)t_bits(8),
			.rflag = (unsigned)t_bits(1), .eflag = (unsigned)t_bits(1),
			.hflag = (unsigned)t_bits(1), .lflag = (unsigned)t_bits(1),
			.src_or_init_dst = (uint32_t)t_bits(32), .dstoff = (uint32_t)t_bits(32),
			.total = (uint32_t)t_bits(32), .stride_list = (uint32_t)t_bits(32),
			.ex = { (unsigned)t_bits(5), (unsigned)t_bits(3), (unsigned)t_bits(8),
				(uint32_t)t_bits(32) },
		};
		bool rvl = h.type == 0x10 || h.type == 0x11 || h.type == 0x12;
		if (rvl)
			h.hflag = 1;
		uint64_t dw1 = (uint64_t)h.size | (uint64_t)h.type << 12 | (uint64_t)h.pgid << 20 |
			       (uint64_t)h.dwid << 28 | (uint64_t)h.swid << 29 |
			       (uint64_t)h.dlid << 32 | (uint64_t)h.dtype << 48 |
			       (uint64_t)h.iter << 51 | (uint64_t)h.rflag << 59 |
			       (uint64_t)h.eflag << 60 | (uint64_t)h.hflag << 61 |
			       (uint64_t)h.lflag << 62;
		uint64_t dw2 = (uint64_t)h.src_or_init_dst | (uint64_t)h.dstoff << 32;
		uint64_t dw3 = (uint64_t)h.total | (uint64_t)h.stride_list << 32;
		uint64_t dw4 = (uint64_t)h.ex.otype | (uint64_t)h.ex.dtype << 5 |
			       (uint64_t)h.ex.iter << 8 | (uint64_t)h.ex.size << 32;
		unsigned want_lines = rvl ? 4 : h.hflag ? 3 : 2;
		uint64_t dw[4];
		unsigned n;
		CHECK_OK(dnet_hdr_encode(&h, dw, &n, &e), &e);
		CHECK_EQ(n, want_lines);
		CHECK_EQ(dw[0], dw1);
		CHECK_EQ(dw[1], dw2);
		CHECK_EQ(dw[0] >> 63, 0);                      /* reserved [63] */
		CHECK_EQ(dw[0] >> 17 & 7, 0);                  /* reserved [19:17] */
		CHECK_EQ(dw[0] >> 30 & 3, 0);                  /* reserved [31:30] */
		if (n >= 3)
			CHECK_EQ(dw[2], dw3);
		if (n >= 4)
			CHECK_EQ(dw[3], dw4);
		struct dnet_pkt_hdr d;
		dnet_hdr_decode(dw, n, &d);
		CHECK(d.size == h.size && d.type == h.type && d.pgid == h.pgid &&
		      d.dwid == h.dwid && d.swid == h.swid && d.dlid == h.dlid &&
		      d.dtype == h.dtype && d.iter == h.iter && d.rflag == h.rflag &&
		      d.eflag == h.eflag && d.hflag == h.hflag && d.lflag == h.lflag &&
		      d.src_or_init_dst == h.src_or_init_dst && d.dstoff == h.dstoff);
		if (n >= 3)
			CHECK(d.total == h.total && d.stride_list == h.stride_list);
		if (n >= 4)
			CHECK(d.ex.otype == h.ex.otype && d.ex.dtype == h.ex.dtype &&
			      d.ex.iter == h.ex.iter && d.ex.size == h.ex.size);
	}
}

static void header_rejects(void)
{
	struct dnet_err e;
	uint64_t dw[4];
	unsigned n;
	struct dnet_pkt_hdr h = { .size = 0x1000 };
	CHECK_EQ(dnet_hdr_encode(&h, dw, &n, &e), -DNET_EINVAL);
	CHECK(strstr(e.msg, "size") != NULL);
	h = (struct dnet_pkt_hdr){ .pgid = 256 };
	CHECK_EQ(dnet_hdr_encode(&h, dw, &n, &e), -DNET_EINVAL);
	h = (struct dnet_pkt_hdr){ .dlid = 0x10000 };
	CHECK_EQ(dnet_hdr_encode(&h, dw, &n, &e), -DNET_EINVAL);
	h = (struct dnet_pkt_hdr){ .lflag = 2 };
	CHECK_EQ(dnet_hdr_encode(&h, dw, &n, &e), -DNET_EINVAL);
}

static void rllcm_header(void)
{
	/* The header rllcm_write builds: RVS, lflag=1, 2 lines + 8 bytes = 24 B
	 * to CLID 3 (LID 3), WID 0, offset 200. */
	struct dnet_pkt_hdr h = { .size = 24, .type = DNET_OT_RVS, .dlid = 3, .lflag = 1,
				  .src_or_init_dst = 200, .dstoff = 200 };
	CHECK_EQ(dnet_hdr_dw1(&h), 0x4000000300014018ull);
	CHECK_EQ(dnet_hdr_dw2(&h), 0x000000c8000000c8ull);
	CHECK_EQ(dnet_hdr_lines(&h), 2);
}

static void status_entry(void)
{
	/* A status for 0x1000 bytes of RVS from CLID 2 WID 1 written at 0x600:
	 * Lower = Size<<32 | eflag<<30 | CLID<<18 | WID<<16 | OTYPE. */
	uint64_t lo = 0x0000100000000000ull | 1ull << 30 | 2ull << 18 | 1ull << 16 | 0x14;
	uint64_t hi = 0x600;
	struct dnet_status s;
	dnet_status_decode(lo, hi, &s);
	CHECK_EQ(s.otype, DNET_OT_RVS);
	CHECK_EQ(s.sclid, 2);
	CHECK_EQ(s.swid, 1);
	CHECK_EQ(s.eflag, 1);
	CHECK_EQ(s.size, 0x1000);
	CHECK_EQ(s.addr, 0x600);
	uint64_t lo2, hi2;
	core_status_encode(&s, &lo2, &hi2);
	CHECK_EQ(lo2, lo);
	CHECK_EQ(hi2, hi);
	/* The unexplained LLCM word of Fig. C.5 (0x4000000040000000) read as a
	 * status Lower has eflag set and Size 0x40000000. */
	dnet_status_decode(0x4000000040000000ull, 0, &s);
	CHECK_EQ(s.eflag, 1);
	CHECK_EQ(s.size, 0x40000000);
}

static void lh_entry(void)
{
	uint64_t line[8] = {
		0x0012340000000100ull,                 /* Pointer 0x123400, Size 0x100 */
		0xbeef800012345678ull | 5ull << 32,    /* Context 0xbeef, Valid, Rank 5, Tag */
		0x0706050403020100ull, 0x0f0e0d0c0b0a0908ull, 0, 0, 0, 0xffull << 56,
	};
	struct dnet_lh_entry e;
	dnet_lh_decode(line, &e);
	CHECK_EQ(e.pointer, 0x123400);
	CHECK_EQ(e.size, 0x100);
	CHECK_EQ(e.context, 0xbeef);
	CHECK_EQ(e.valid, 1);
	CHECK_EQ(e.complete, 0);
	CHECK_EQ(e.rank, 5);
	CHECK_EQ(e.tag, 0x12345678);
	for (unsigned i = 0; i < 16; i++)
		CHECK_EQ(e.data[i], i);
	CHECK_EQ(e.data[47], 0xff);
	uint64_t back[8];
	core_lh_encode(&e, back);
	for (unsigned i = 0; i < 8; i++)
		CHECK_EQ(back[i], line[i]);
	CHECK_EQ(dnet_envelope(0xbeef, 5, 0x12345678), 0xbeef000512345678ull);
}

int main(void)
{
	RUN(header_roundtrip);
	RUN(header_rejects);
	RUN(rllcm_header);
	RUN(status_entry);
	RUN(lh_entry);
	return t_summary("test_packet");
}
