/* Request encoder/decoder (libdnet/src/request.c): the thesis example,
 * every layout round-tripped over random field values, and rejection of
 * out-of-range fields.  Expected words are built here from the bit
 * positions of docs/device.md */
/* Decisions pinned here (docs/decisions.md): D-UNKNOWN-OTYPE. */
#include "dnet/dnet.h"
#include "dnet/request_int.h" /* private: INTERNAL_TESTS */
#include "harness.h"

static void thesis_vs_example(void)
{
	/* App. C Fig. C.7: prim VS dt=0 it=0 dw=0 dl=0 ef=0 size=0x200 src=0x400 dst=0x600
	 * -> cmd:60000000400_20000000008 */
	struct dnet_req r = { .otype = DNET_OT_VS, .size = 0x200, .srcoff = 0x400, .dstoff = 0x600 };
	struct dnet_cmd c;
	struct dnet_err e;
	CHECK_OK(dnet_req_encode(&r, &c, &e), &e);
	CHECK_EQ(c.upper, 0x0000060000000400ull);
	CHECK_EQ(c.lower, 0x0000020000000008ull);
	CHECK(!c.has_ex);
	const struct dnet_otype_info *vs = dnet_otype_by_name("VS");
	CHECK(vs && vs->code == 0x08 && vs->family == DNET_FAM_VS);
}

static void otype_table(void)
{
	/* Tab. 4.13, written out by hand. */
	static const struct { const char *name; unsigned code; enum dnet_family fam; } want[] = {
		{ "NOP", 0x00, DNET_FAM_NONE }, { "BOTF", 0x01, DNET_FAM_BOTF },
		{ "VL", 0x04, DNET_FAM_VL }, { "VLS", 0x05, DNET_FAM_VL }, { "VLI", 0x06, DNET_FAM_VL },
		{ "VS", 0x08, DNET_FAM_VS }, { "VSS", 0x09, DNET_FAM_VS }, { "VSI", 0x0a, DNET_FAM_VS },
		{ "RVL", 0x10, DNET_FAM_RVL }, { "RVLS", 0x11, DNET_FAM_RVL }, { "RVLI", 0x12, DNET_FAM_RVL },
		{ "RVS", 0x14, DNET_FAM_RVS }, { "RVSS", 0x15, DNET_FAM_RVS }, { "RVSI", 0x16, DNET_FAM_RVS },
		{ "IPUSH", 0x18, DNET_FAM_IPUSH }, { "LHSv1", 0x19, DNET_FAM_IPUSH },
		{ "LHSv2", 0x1a, DNET_FAM_IPUSH },
	};
	unsigned n;
	dnet_otypes(&n);
	CHECK_EQ(n, 17);
	for (unsigned i = 0; i < sizeof want / sizeof want[0]; i++) {
		const struct dnet_otype_info *o = dnet_otype_by_name(want[i].name);
		CHECK(o != NULL);
		if (!o)
			continue;
		CHECK_EQ(o->code, want[i].code);
		CHECK_EQ(o->family, want[i].fam);
		CHECK(dnet_otype_info(want[i].code) == o);
	}
	CHECK(dnet_otype_by_name("rvs") == dnet_otype_by_name("RVS"));
	CHECK(dnet_otype_by_name("IPUSH_LHSv1") == dnet_otype_by_name("LHSv1"));
	CHECK(dnet_otype_by_name("VX") == NULL);
	/* Codes outside Tab. 4.13 are undefined (ignored by the executor). */
	unsigned undefined[] = { 0x02, 0x03, 0x07, 0x0b, 0x0c, 0x0f, 0x13, 0x17, 0x1b, 0x1f };
	for (unsigned i = 0; i < sizeof undefined / sizeof undefined[0]; i++)
		CHECK(dnet_otype_info(undefined[i]) == NULL);
}

static void normal_roundtrip(void)
{
	struct dnet_err e;
	for (int i = 0; i < 2000; i++) {
		struct dnet_req r = {
			.otype = (unsigned)t_bits(5), .dtype = (unsigned)t_bits(3),
			.iter = (unsigned)t_bits(8), .dwid = (unsigned)t_bits(1),
			.dclid = (unsigned)t_bits(12), .eflag = (unsigned)t_bits(1),
			.size = (uint32_t)t_bits(32), .srcoff = (uint32_t)t_bits(32),
			.dstoff = (uint32_t)t_bits(32), .has_ex = (i & 1) != 0,
			.ex = { (unsigned)t_bits(5), (unsigned)t_bits(3), (unsigned)t_bits(8),
				(uint32_t)t_bits(32) },
		};
		uint64_t lo = (uint64_t)r.otype | (uint64_t)r.dtype << 5 | (uint64_t)r.iter << 8 |
			      (uint64_t)r.dwid << 16 | (uint64_t)r.dclid << 18 |
			      (uint64_t)r.eflag << 30 | (uint64_t)r.size << 32;
		uint64_t up = (uint64_t)r.srcoff | (uint64_t)r.dstoff << 32;
		uint64_t ex = (uint64_t)r.ex.otype | (uint64_t)r.ex.dtype << 5 |
			      (uint64_t)r.ex.iter << 8 | (uint64_t)r.ex.size << 32;
		struct dnet_cmd c;
		CHECK_OK(dnet_req_encode(&r, &c, &e), &e);
		CHECK_EQ(c.lower, lo);
		CHECK_EQ(c.upper, up);
		CHECK_EQ(c.has_ex, r.has_ex);
		if (r.has_ex)
			CHECK_EQ(c.ex, ex);
		/* Reserved bits 17 and 31 stay clear. */
		CHECK_EQ(c.lower & (1ull << 17 | 1ull << 31), 0);
		struct dnet_req d;
		dnet_req_decode(c.lower, c.upper, r.has_ex ? &c.ex : NULL, &d);
		CHECK(d.otype == r.otype && d.dtype == r.dtype && d.iter == r.iter &&
		      d.dwid == r.dwid && d.dclid == r.dclid && d.eflag == r.eflag &&
		      d.size == r.size && d.srcoff == r.srcoff && d.dstoff == r.dstoff);
		if (r.has_ex)
			CHECK(d.has_ex && d.ex.otype == r.ex.otype && d.ex.dtype == r.ex.dtype &&
			      d.ex.iter == r.ex.iter && d.ex.size == r.ex.size);
	}
}

static void encode_rejects(void)
{
	struct dnet_err e;
	struct dnet_cmd c;
	struct dnet_req r = { .otype = 0x20 };
	CHECK_EQ(dnet_req_encode(&r, &c, &e), -DNET_EINVAL);
	CHECK(strstr(e.msg, "otype") != NULL);
	r = (struct dnet_req){ .otype = DNET_OT_RVS, .dclid = 0x1000 };
	CHECK_EQ(dnet_req_encode(&r, &c, &e), -DNET_EINVAL);
	CHECK(strstr(e.msg, "dclid") != NULL);
	r = (struct dnet_req){ .otype = DNET_OT_RVS, .dwid = 2 };
	CHECK_EQ(dnet_req_encode(&r, &c, &e), -DNET_EINVAL);
	r = (struct dnet_req){ .otype = DNET_OT_VLS, .dtype = 8 };
	CHECK_EQ(dnet_req_encode(&r, &c, &e), -DNET_EINVAL);
	r = (struct dnet_req){ .otype = DNET_OT_VLS, .iter = 256 };
	CHECK_EQ(dnet_req_encode(&r, &c, &e), -DNET_EINVAL);
	r = (struct dnet_req){ .otype = DNET_OT_RVS, .has_ex = true, .ex = { .iter = 300 } };
	CHECK_EQ(dnet_req_encode(&r, &c, &e), -DNET_EINVAL);
}

static void botf_layout(void)
{
	struct dnet_err e;
	for (unsigned ww = 0; ww < 4; ww++) {
		for (int i = 0; i < 200; i++) {
			struct dnet_botf_req b = { ww, 1 + (unsigned)(t_rand() % 512) };
			uint64_t lo;
			CHECK_OK(dnet_botf_encode(&b, &lo, &e), &e);
			CHECK_EQ(lo, 0x01ull | (uint64_t)ww << 5 | (uint64_t)b.size << 32);
			struct dnet_botf_req d;
			dnet_botf_decode(lo, &d);
			CHECK(d.ww == ww && d.size == b.size);
		}
	}
	uint64_t lo;
	struct dnet_botf_req bad = { 4, 16 };
	CHECK_EQ(dnet_botf_encode(&bad, &lo, &e), -DNET_EINVAL);
	bad = (struct dnet_botf_req){ 0, 0 };
	CHECK_EQ(dnet_botf_encode(&bad, &lo, &e), -DNET_EINVAL);
	bad = (struct dnet_botf_req){ 0, 513 };
	CHECK_EQ(dnet_botf_encode(&bad, &lo, &e), -DNET_EINVAL);
	/* Decoding a hand-built word: WW#3, 0x1f0 bytes. */
	struct dnet_botf_req d;
	dnet_botf_decode(0x000001f000000061ull, &d);
	CHECK(d.ww == 3 && d.size == 0x1f0);
}

static void lhsv2_layout(void)
{
	struct dnet_err e;
	for (int i = 0; i < 500; i++) {
		struct dnet_lhsv2_upper u = { (uint32_t)t_bits(32), (unsigned)(t_rand() % 513),
					      (unsigned)t_bits(12) };
		uint64_t up;
		CHECK_OK(dnet_lhsv2_upper_encode(&u, &up, &e), &e);
		CHECK_EQ(up, (uint64_t)u.srcoff | (uint64_t)u.ww_size << 32 | (uint64_t)u.ww_addr << 42);
		CHECK_EQ(up >> 54, 0);
		struct dnet_lhsv2_upper d;
		core_lhsv2_upper_decode(up, &d);
		CHECK(d.srcoff == u.srcoff && d.ww_size == u.ww_size && d.ww_addr == u.ww_addr);
	}
	struct dnet_lhsv2_upper bad = { 0, 513, 0 };
	uint64_t up;
	CHECK_EQ(dnet_lhsv2_upper_encode(&bad, &up, &e), -DNET_EINVAL);
	bad = (struct dnet_lhsv2_upper){ 0, 8, 0x1000 };
	CHECK_EQ(dnet_lhsv2_upper_encode(&bad, &up, &e), -DNET_EINVAL);
}

int main(void)
{
	RUN(thesis_vs_example);
	RUN(otype_table);
	RUN(normal_roundtrip);
	RUN(encode_rejects);
	RUN(botf_layout);
	RUN(lhsv2_layout);
	return t_summary("test_request");
}
