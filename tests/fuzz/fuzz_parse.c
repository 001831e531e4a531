/* Fuzz target: every text parser and bit-field codec of libdnet's public
 * headers (parse.c, codes.c, packet.c, request.c, regs.c, map.c,
 * modstate.c, device.c's condition names, the backend option splitter) and
 * the socket address parser of the remote backend (addr.c).
 *
 * The first input byte picks the codec; the rest is its text or its words.
 * Where a round trip holds it is asserted (decode(encode(x)) == x, a parsed
 * number printed and parsed back, a raw word decoded and re-encoded within
 * its valid bits): a mismatch abort()s, which is a finding like a crash. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dnet/dnet.h"
#include "dnet/backend.h" /* private headers too: the codecs the emulator uses */
#include "dnet/codes_int.h"
#include "dnet/map.h"
#include "dnet/modstate_int.h"
#include "dnet/packet_int.h"
#include "dnet/parse_int.h"
#include "dnet/request_int.h"
#include "dnet/regs.h"
#include "dnet/request.h"
#include "remote/wire/proto.h"
#include "fuzz.h"

const char fuzz_name[] = "fuzz_parse";
const unsigned long fuzz_default_iters = 100000;

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "fuzz_parse: %s:%d: %s\n", __FILE__, __LINE__, #c); abort(); } } while (0)

static uint64_t word(const uint8_t *p, size_t n, unsigned i)
{
	uint64_t v = 0;
	for (unsigned b = 0; b < 8; b++)
		if (i * 8 + b < n)
			v |= (uint64_t)p[i * 8 + b] << (8 * b);
	return v;
}

/* Numbers, sizes, durations: the accepted ones print back to the same value. */
static void numbers(const char *s, uint64_t max)
{
	struct dnet_err e;
	uint64_t v = 0, w = 0;
	char buf[64];
	if (dnet_parse_u64(s, max, &v, "n", &e) == 0) {
		CHECK(v <= max);
		snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);
		CHECK(dnet_parse_u64(buf, max, &w, "n", &e) == 0 && w == v);
		snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)v);
		CHECK(dnet_parse_u64(buf, max, &w, "n", &e) == 0 && w == v);
	}
	if (core_parse_size(s, max, &v, NULL, &e) == 0)
		CHECK(v <= max);
	if (dnet_parse_duration(s, &v, "d", &e) == 0) {
		size_t n = strlen(s); /* a unit is required but for 0 (D-DURATION) */
		CHECK(v == 0 || (n && ((s[n - 1] >= 'a' && s[n - 1] <= 'z'))));
		dnet_format_duration(v, buf, sizeof buf);
		CHECK(dnet_parse_duration(buf, &w, "d", &e) == 0 && w == v);
		dnet_format_time(v, buf, sizeof buf);
	}
}

static void names(const char *s)
{
	struct dnet_err e;
	const struct dnet_reg *r = NULL;
	const struct dnet_field *f = NULL;
	if (dnet_reg_parse(s, &r, &f, &e) == 0) {
		CHECK(r != NULL);
		CHECK(dnet_reg_by_name(r->name) != NULL);
		(void)dnet_reg_addr(r, 1);
	}
	const struct dnet_codetab *t = core_codetab_by_name(s);
	if (t)
		CHECK(strcmp(t->name, s) == 0);
	const struct dnet_otype_info *oi = dnet_otype_by_name(s);
	if (oi)
		CHECK(dnet_otype_info(oi->code) == oi);
	const struct dnet_region_info *ri = dnet_region_by_name(s);
	if (ri)
		CHECK(dnet_region_info(ri->id) == ri);
	enum dnet_cond c;
	if (dnet_cond_parse(s, &c) == 0) {
		enum dnet_cond c2;
		CHECK(dnet_cond_parse(dnet_cond_name(c), &c2) == 0 && c2 == c);
	}
	struct dnet_kv kv[8];
	unsigned n = 0;
	core_kv_split(s, kv, 8, &n, &e);
	struct dnet_sockspec a, b;
	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	if (rmt_sockspec_parse(s, &a, &e) == 0) {
		char txt[400];
		rmt_sockspec_format(&a, txt, sizeof txt);
		CHECK(rmt_sockspec_parse(txt, &b, &e) == 0 && a.tcp == b.tcp);
		CHECK(a.tcp ? strcmp(a.host, b.host) == 0 && strcmp(a.port, b.port) == 0
			    : strcmp(a.path, b.path) == 0);
	}
}

/* Requests: a decoded word re-encodes to itself within the valid bits; a
 * request that encodes decodes to the same fields. */
static void requests(const uint8_t *p, size_t n)
{
	struct dnet_err e;
	uint64_t lo = word(p, n, 0), up = word(p, n, 1), ex = word(p, n, 2);
	struct dnet_req r;
	memset(&r, 0, sizeof r);
	dnet_req_decode(lo, up, (lo >> 31) & 1 ? &ex : NULL, &r);
	(void)dnet_otype_info(r.otype);
	struct dnet_cmd c;
	if (dnet_req_encode(&r, &c, &e) == 0) {
		struct dnet_req r2;
		memset(&r2, 0, sizeof r2);
		dnet_req_decode(c.lower, c.upper, c.has_ex ? &c.ex : NULL, &r2);
		CHECK(r2.otype == r.otype && r2.dtype == r.dtype && r2.iter == r.iter && r2.dwid == r.dwid &&
		      r2.dclid == r.dclid && r2.eflag == r.eflag && r2.size == r.size && r2.srcoff == r.srcoff &&
		      r2.dstoff == r.dstoff && r2.has_ex == r.has_ex);
		if (r.has_ex)
			CHECK(r2.ex.otype == r.ex.otype && r2.ex.dtype == r.ex.dtype && r2.ex.iter == r.ex.iter &&
			      r2.ex.size == r.ex.size);
		CHECK(core_req_lower(&r) == c.lower && core_req_upper(&r) == c.upper);
	}
	struct dnet_req_ex x;
	core_req_ex_decode(ex, &x);
	struct dnet_req_ex x2;
	core_req_ex_decode(core_req_ex_word(&x), &x2);
	CHECK(memcmp(&x, &x2, sizeof x) == 0);

	struct dnet_botf_req b, b2;
	dnet_botf_decode(lo, &b);
	uint64_t lo2;
	if (dnet_botf_encode(&b, &lo2, &e) == 0) {
		dnet_botf_decode(lo2, &b2);
		CHECK(b2.ww == b.ww && b2.size == b.size);
	}
	struct dnet_lhsv2_upper u, u2;
	core_lhsv2_upper_decode(up, &u);
	uint64_t up2;
	if (dnet_lhsv2_upper_encode(&u, &up2, &e) == 0) {
		core_lhsv2_upper_decode(up2, &u2);
		CHECK(u2.srcoff == u.srcoff && u2.ww_size == u.ww_size && u2.ww_addr == u.ww_addr);
	}
	(void)dnet_family_name((enum dnet_family)((n ? p[0] : 0) % (DNET_FAMILY_COUNT + 2)));
}

/* Packet headers, receive statuses, LH Buffer entries. */
static void packets(const uint8_t *p, size_t n)
{
	struct dnet_err e;
	uint64_t dw[DNET_HDR_MAX_LINES];
	for (unsigned i = 0; i < DNET_HDR_MAX_LINES; i++)
		dw[i] = word(p, n, i);
	struct dnet_pkt_hdr h;
	memset(&h, 0, sizeof h);
	dnet_hdr_decode(dw, 2 + (unsigned)(n % 3), &h);
	unsigned lines = dnet_hdr_lines(&h);
	CHECK(lines >= 2 && lines <= DNET_HDR_MAX_LINES);
	uint64_t out[DNET_HDR_MAX_LINES];
	unsigned nl = 0;
	if (dnet_hdr_encode(&h, out, &nl, &e) == 0) {
		CHECK(nl >= 2 && nl <= DNET_HDR_MAX_LINES);
		struct dnet_pkt_hdr h2;
		memset(&h2, 0, sizeof h2);
		dnet_hdr_decode(out, nl, &h2);
		CHECK(h2.size == h.size && h2.type == h.type && h2.pgid == h.pgid && h2.dwid == h.dwid &&
		      h2.swid == h.swid && h2.dlid == h.dlid && h2.dtype == h.dtype && h2.iter == h.iter &&
		      h2.rflag == h.rflag && h2.eflag == h.eflag && h2.hflag == h.hflag && h2.lflag == h.lflag &&
		      h2.src_or_init_dst == h.src_or_init_dst && h2.dstoff == h.dstoff);
		CHECK(out[0] == dnet_hdr_dw1(&h) && out[1] == dnet_hdr_dw2(&h));
	}
	struct dnet_pkt_hdr h1;
	memset(&h1, 0, sizeof h1);
	dnet_hdr_decode_dw1(dw[0], &h1);
	(void)core_hdr_dw3(&h);
	(void)core_hdr_dw4(&h);

	struct dnet_status s, s2;
	uint64_t lo, hi;
	dnet_status_decode(dw[0], dw[1], &s);
	core_status_encode(&s, &lo, &hi);
	dnet_status_decode(lo, hi, &s2);
	CHECK(memcmp(&s, &s2, sizeof s) == 0);

	uint64_t line[8], line2[8];
	for (unsigned i = 0; i < 8; i++)
		line[i] = word(p, n, i);
	struct dnet_lh_entry le, le2;
	dnet_lh_decode(line, &le);
	core_lh_encode(&le, line2);
	dnet_lh_decode(line2, &le2);
	CHECK(memcmp(&le, &le2, sizeof le) == 0);
}

/* Registers: every field of every register, set and read back; symbolic
 * meanings; the one-hot code tables; CLIDs; module states; the map. */
static void registers(const uint8_t *p, size_t n)
{
	struct dnet_err e;
	unsigned count = 0;
	const struct dnet_reg *regs = dnet_regs(&count);
	uint64_t v = word(p, n, 1), x = word(p, n, 2);
	const struct dnet_reg *r = &regs[(n ? p[0] : 0) % count];
	CHECK(dnet_reg_at(r->block, r->offset, r->access & DNET_ACC_R ? DNET_ACC_R : DNET_ACC_W) != NULL);
	for (unsigned i = 0; i < r->nfields; i++) {
		const struct dnet_field *f = &r->fields[i];
		CHECK(dnet_field_by_name(r, f->name) == f);
		uint64_t reg = v, val = x & (f->width >= 64 ? ~0ull : (1ull << f->width) - 1);
		CHECK(dnet_field_set(f, &reg, val, &e) == 0 && dnet_field_get(f, reg) == val);
		CHECK((reg & ~dnet_field_mask(f)) == (v & ~dnet_field_mask(f)));
		char buf[128];
		(void)dnet_field_meaning(f, dnet_field_get(f, v), buf, sizeof buf);
		uint64_t big = x | 1ull << 63;
		if (f->width < 64 && dnet_field_set(f, &reg, big, &e) == 0)
			CHECK(big < (1ull << f->width));
	}
	static const struct dnet_codetab *const tabs[] = { &core_codetab_dtype, &core_codetab_capacity,
							   &core_codetab_mtu, &dnet_codetab_status_area };
	for (unsigned i = 0; i < 4; i++) {
		bool defined = false;
		uint64_t meaning = dnet_code_decode(tabs[i], v, &defined), code = 0;
		if (defined) {
			CHECK(dnet_code_encode(tabs[i], meaning, &code, &e) == 0);
			CHECK(dnet_code_decode(tabs[i], code, NULL) == meaning);
		}
		if (dnet_code_encode(tabs[i], x, &code, &e) == 0)
			CHECK(dnet_code_decode(tabs[i], code, NULL) == x);
	}
	(void)core_mtu_bytes(v);
	(void)dnet_capacity_bytes(v);
	(void)dnet_status_area_bytes(v);
	uint16_t clid = (uint16_t)v;
	(void)core_clid_kind(clid);
	for (int rd = DNET_CLID_11_8; rd <= DNET_CLID_12_9; rd++) { /* both readings of D-CLID */
		uint16_t lid = dnet_clid_to_lid((enum dnet_clid_reading)rd, clid), back = 0;
		if (clid <= DNET_CLID_MAX_UNICAST)
			CHECK(core_lid_to_clid((enum dnet_clid_reading)rd, lid, &back, &e) == 0 && back == clid);
		/* CLID 12'hFFF <-> LID 16'hFFFF is special (D-CLID): LID 16'hF0FF
		 * (16'hE1FF) also reads as 12'hFFF, which goes back to 16'hFFFF. */
		if (core_lid_to_clid((enum dnet_clid_reading)rd, (uint16_t)x, &back, &e) == 0 && back != DNET_CLID_INIT)
			CHECK(dnet_clid_to_lid((enum dnet_clid_reading)rd, back) == (uint16_t)x);
	}
	for (int f = 0; f < DNET_FSM_COUNT; f++) {
		char buf[64];
		int st = core_modstate_get(v, (enum dnet_fsm)f);
		(void)dnet_modstate_name(v, (enum dnet_fsm)f, buf, sizeof buf);
		if (st >= 0) {
			uint64_t m = 0;
			core_modstate_set(&m, (enum dnet_fsm)f, (unsigned)st);
			CHECK(core_modstate_get(m, (enum dnet_fsm)f) == st);
		}
	}
	enum dnet_region rg;
	unsigned wid;
	uint32_t off, addr;
	if (dnet_addr_lookup((uint32_t)v, &rg, &wid, &off) == 0) {
		CHECK(dnet_region_addr(rg, wid, off, 1, &addr, &e) == 0 && addr == (uint32_t)v);
	}
	(void)dnet_addr_attr((uint32_t)v);
	/* a range inside a region is in the map (an empty one may end it) */
	uint32_t rlen = (uint32_t)(x >> 40) & 0xffff;
	if (dnet_region_addr((enum dnet_region)(x % (DNET_REGION_COUNT + 1)), (unsigned)(x >> 8) % 3, (uint32_t)(x >> 16),
			     rlen, &addr, &e) == 0 && rlen)
		CHECK(dnet_addr_lookup(addr, &rg, &wid, &off) == 0 && dnet_addr_lookup(addr + rlen - 1, &rg, &wid, &off) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	const uint8_t *p = data + 1;
	size_t n = size - 1;
	char s[512];
	size_t sl = n < sizeof s - 1 ? n : sizeof s - 1;
	memcpy(s, p, sl);
	s[sl] = 0;
	switch (data[0] % 5) {
	case 0: numbers(s, word(p, n, 0) | (data[0] & 0x80 ? ~0ull : 0)); break;
	case 1: names(s); break;
	case 2: requests(p, n); break;
	case 3: packets(p, n); break;
	default: registers(p, n); break;
	}
	return 0;
}

const struct fuzz_seed *fuzz_seeds(size_t *n)
{
#define S(x) { (const uint8_t *)(x), sizeof(x) - 1 }
	static const struct fuzz_seed seeds[] = {
		S("\x80" "0x1234_5678"), S("\x80" "0b1010"), S("\x80" "0o777"), S("\x80" "64K"),
		S("\x80" "3us"), S("\x80" "1500ns"), S("\x80" "18446744073709551615"),
		S("\x01" "ctl_status.status_empty"), S("\x01" "mtu"), S("\x01" "RVS"), S("\x01" "LHSv2"),
		S("\x01" "llcm"), S("\x01" "<="), S("\x01" "unix:/tmp/x.sock"), S("\x01" "tcp:[::1]:7000"),
		S("\x01" "tcp:7000"), S("\x01" "nodes=2,trace=x,user"),
		S("\x02" "\x14\x00\x02\x00\x00\x00\x00\x80\x00\x04\x00\x00\x00\x06\x00\x00\x08\x00\x00\x00\x10\x00\x00\x00"),
		S("\x02" "\x21\x00\x00\x00\x18\x00\x00\x00"),
		S("\x03" "\x18\x40\x20\x40\x00\x00\x00\x40\x00\x01\x00\x00\x00\x02\x00\x00"),
		S("\x04" "\x05\x01\x00\x00\x00\x00\x00\x00\x00\x08\x00\x00\x00\x00\x00\x00\x00"),
	};
#undef S
	*n = sizeof seeds / sizeof seeds[0];
	return seeds;
}
