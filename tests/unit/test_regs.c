/* Register table, bit fields, code tables, LID<->CLID, Module State and the
 * memory map (libdnet/src/regs.c, codes.c, modstate.c, map.c).  The thesis
 * values of Fig. C.12-C.14 are decoded here. */
/* Decisions pinned here (docs/decisions.md): D-MAP-SCALE, D-AMT-OFFSET,
 * D-AMT-WORD, D-MODSTATE, D-REG-NAMES. */
#include "dnet/dnet.h"
#include "dnet/codes_int.h"    /* private: INTERNAL_TESTS */
#include "dnet/modstate_int.h"
#include "harness.h"

static uint64_t field(const char *spec, uint64_t v)
{
	const struct dnet_reg *r;
	const struct dnet_field *f;
	struct dnet_err e;
	if (dnet_reg_parse(spec, &r, &f, &e) || !f) {
		fprintf(stderr, "no field %s: %s\n", spec, e.msg);
		t_fail++;
		return ~0ull;
	}
	return dnet_field_get(f, v);
}

static void ctl_status_fig_c12(void)
{
	/* Fig. C.12: 0x832 = SO-DIMM initialised, status ring empty, WW#0 and
	 * WW#2 write complete; everything else clear. */
	uint64_t v = 0x832;
	const char *set[] = { "sdimm_init_done", "status_empty", "ww0_done", "ww2_done" };
	const struct dnet_reg *cs = dnet_reg_by_name("ctl_status");
	CHECK(cs && cs->offset == 0x200 && cs->access == DNET_ACC_R && cs->block == DNET_BLK_USER);
	unsigned nset = 0;
	for (unsigned i = 0; cs && i < cs->nfields; i++) {
		uint64_t fv = dnet_field_get(&cs->fields[i], v);
		bool want = false;
		for (unsigned j = 0; j < 4; j++)
			if (strcmp(cs->fields[i].name, set[j]) == 0)
				want = true;
		CHECK_EQ(fv, want ? 1 : 0);
		nset += fv != 0;
	}
	CHECK_EQ(nset, 4);
	CHECK_EQ(field("ctl_status.rc_state", 3ull << 18), 3);
	char buf[96];
	const struct dnet_field *f;
	const struct dnet_reg *r;
	struct dnet_err e;
	CHECK_OK(dnet_reg_parse("ctl_status.rc_state", &r, &f, &e), &e);
	CHECK(strncmp(dnet_field_meaning(f, 2, buf, sizeof buf), "hflag_mismatch", 14) == 0);
	/* Field layout covers bits 0..19 exactly once. */
	uint64_t seen = 0;
	for (unsigned i = 0; cs && i < cs->nfields; i++) {
		CHECK_EQ(seen & dnet_field_mask(&cs->fields[i]), 0);
		seen |= dnet_field_mask(&cs->fields[i]);
	}
	CHECK_EQ(seen, 0xfffff);
}

static void prim_counter_fig_c14(void)
{
	/* Fig. C.14: 0x100001 = BOTF 1, VS 1, others 0. */
	uint64_t v = 0x0000000000100001ull;
	CHECK_EQ(field("prim_counter.botf", v), 1);
	CHECK_EQ(field("prim_counter.vl", v), 0);
	CHECK_EQ(field("prim_counter.vs", v), 1);
	CHECK_EQ(field("prim_counter.rvl", v), 0);
	CHECK_EQ(field("prim_counter.rvs", v), 0);
	CHECK_EQ(field("prim_counter.ipush", v), 0);
	CHECK_EQ(field("prim_counter.ipush", 0x3ffull << 50), 0x3ff);
	const struct dnet_reg *r = dnet_reg_by_name("prim_counter_reset");
	CHECK(r && r->offset == 0x300 && r->access == DNET_ACC_W && (r->flags & DNET_RF_ANY_VALUE));
}

static void module_state_fig_c13(void)
{
	/* Fig. C.13: 0x0000422200020001 decodes to these names. */
	uint64_t v = 0x0000422200020001ull;
	static const char *const want[DNET_FSM_COUNT] = {
		"P_RPATH_NOP", "P_BOTF_WAIT", "IDLE", "IDLE", "IDLE", "IDLE", "IDLE", "M_IDLE",
		"ST_R_IDLE", "ST_IDLE", "ST_FIFO_IDLE, ST_PW_IDLE",
	};
	char buf[32];
	for (unsigned f = 0; f < DNET_FSM_COUNT; f++)
		CHECK_STR(dnet_modstate_name(v, (enum dnet_fsm)f, buf, sizeof buf), want[f]);
	/* The module fields of Tab. A.4. */
	CHECK_EQ(field("module_state.wc", v), 0x1);
	CHECK_EQ(field("module_state.rc", v), 0x10001);
	CHECK_EQ(field("module_state.wu", v), 0x211);
	CHECK_EQ(field("module_state.pu", v), 0);
	CHECK_EQ(DNET_MODSTATE_IDLE, v);
	/* Encoding then decoding each state gives it back, and sub-machines do
	 * not overlap. */
	uint64_t all = 0;
	for (unsigned f = 0; f < DNET_FSM_COUNT; f++) {
		const struct dnet_fsm_info *m = dnet_fsm_info((enum dnet_fsm)f);
		uint64_t mask = ((1ull << m->width) - 1) << m->lsb;
		CHECK_EQ(all & mask, 0);
		all |= mask;
		for (unsigned s = 0; s < m->nstates; s++) {
			uint64_t x = v;
			core_modstate_set(&x, (enum dnet_fsm)f, s);
			CHECK_EQ(core_modstate_get(x, (enum dnet_fsm)f), s);
		}
	}
	CHECK_EQ(all, (1ull << 58) - 1);
	/* Two one-hot bits: not a state. */
	CHECK_EQ(core_modstate_get(0x3, DNET_FSM_WC_ACCEPTER), -1);
}

static void table_offsets(void)
{
	/* Tab. 4.8 and 4.12, by hand: name, block, offset, direction. */
	static const struct { const char *name; enum dnet_reg_block b; uint32_t off; unsigned acc; } want[] = {
		{ "cmd0_lower", DNET_BLK_USER, 0x000, DNET_ACC_W }, { "cmd0_upper", DNET_BLK_USER, 0x010, DNET_ACC_W },
		{ "cmd_ex", DNET_BLK_USER, 0x020, DNET_ACC_W }, { "cmd1_lower", DNET_BLK_USER, 0x100, DNET_ACC_W },
		{ "cmd1_upper", DNET_BLK_USER, 0x110, DNET_ACC_W }, { "ctl_status", DNET_BLK_USER, 0x200, DNET_ACC_R },
		{ "prim_counter", DNET_BLK_USER, 0x300, DNET_ACC_R }, { "prim_counter_reset", DNET_BLK_USER, 0x300, DNET_ACC_W },
		{ "pw_flag", DNET_BLK_USER, 0x400, DNET_ACC_R }, { "pkt_counter", DNET_BLK_USER, 0x500, DNET_ACC_R },
		{ "pkt_counter_reset", DNET_BLK_USER, 0x500, DNET_ACC_W }, { "ivs_area_size", DNET_BLK_USER, 0x600, DNET_ACC_W },
		{ "evpbuf_nra", DNET_BLK_USER, 0x700, DNET_ACC_W }, { "evpbuf_nwa", DNET_BLK_USER, 0x700, DNET_ACC_R },
		{ "module_state", DNET_BLK_USER, 0x800, DNET_ACC_R }, { "status_initial_addr", DNET_BLK_USER, 0x900, DNET_ACC_W },
		{ "status_area_size", DNET_BLK_USER, 0xa00, DNET_ACC_W }, { "status_nra", DNET_BLK_USER, 0xb00, DNET_ACC_W },
		{ "status_nwa", DNET_BLK_USER, 0xb00, DNET_ACC_R }, { "cmd_ex_flag", DNET_BLK_USER, 0xc00, DNET_ACC_W },
		{ "sdimm_init", DNET_BLK_SYSTEM, 0x000, DNET_ACC_W }, { "sdimm_capacity", DNET_BLK_SYSTEM, 0x100, DNET_ACC_W },
		{ "mtu", DNET_BLK_SYSTEM, 0x200, DNET_ACC_W }, { "sma_reset", DNET_BLK_SYSTEM, 0x300, DNET_ACC_W },
		{ "sma_lid", DNET_BLK_SYSTEM, 0x300, DNET_ACC_R }, { "lid", DNET_BLK_SYSTEM, 0x700, DNET_ACC_W },
		{ "pgid0", DNET_BLK_SYSTEM, 0x800, DNET_ACC_W }, { "pgid1", DNET_BLK_SYSTEM, 0x900, DNET_ACC_W },
		{ "ctl_reset", DNET_BLK_SYSTEM, 0xa00, DNET_ACC_R | DNET_ACC_W }, { "amt", DNET_BLK_SYSTEM, 0xb00, DNET_ACC_W },
	};
	unsigned n;
	dnet_regs(&n);
	CHECK_EQ(n, sizeof want / sizeof want[0]);
	for (unsigned i = 0; i < sizeof want / sizeof want[0]; i++) {
		const struct dnet_reg *r = dnet_reg_by_name(want[i].name);
		CHECK(r != NULL);
		if (!r)
			continue;
		CHECK_EQ(r->block, want[i].b);
		CHECK_EQ(r->offset, want[i].off);
		CHECK_EQ(r->access, want[i].acc);
		CHECK_EQ(r->width, 64);
		CHECK(r->nfields > 0);
	}
	const struct dnet_reg *r = dnet_reg_by_name("status_nwa");
	CHECK_EQ(dnet_reg_addr(r, 0), 0x40b00);
	CHECK_EQ(dnet_reg_addr(r, 1), 0x41b00);
	CHECK_EQ(dnet_reg_addr(dnet_reg_by_name("sma_lid"), 1), 0x50300);
	CHECK(dnet_reg_by_name("clt_reset") == dnet_reg_by_name("ctl_reset"));
	CHECK(dnet_reg_at(DNET_BLK_USER, 0x300, DNET_ACC_W) == dnet_reg_by_name("prim_counter_reset"));
	CHECK(dnet_reg_at(DNET_BLK_USER, 0x300, DNET_ACC_R) == dnet_reg_by_name("prim_counter"));
	/* AMT word (Fig. B.1): addr [11:0], wid [13:12], lid [29:14]. */
	CHECK_EQ(dnet_amt_word(0x123, 1, 0xbeef), 0x123ull | 1ull << 12 | 0xbeefull << 14);
	CHECK_EQ(field("amt.lid", dnet_amt_word(0x123, 1, 0xbeef)), 0xbeef);
	CHECK_EQ(field("sma_lid.swif", 0x30005), 3);
}

static void parse_errors(void)
{
	const struct dnet_reg *r;
	const struct dnet_field *f;
	struct dnet_err e;
	CHECK_EQ(dnet_reg_parse("nosuch", &r, &f, &e), -DNET_ENOENT);
	CHECK(strstr(e.msg, "nosuch") != NULL);
	CHECK_EQ(dnet_reg_parse("ctl_status.nosuch", &r, &f, &e), -DNET_ENOENT);
	CHECK(strstr(e.msg, "nosuch") != NULL);
	CHECK_OK(dnet_reg_parse("pw_flag", &r, &f, &e), &e);
	CHECK(f == NULL);
	uint64_t v = 0xffff;
	CHECK_OK(dnet_field_set(dnet_field_by_name(r, "pw2"), &v, 0x5, &e), &e);
	CHECK_EQ(v, 0xf5ff);
	CHECK_EQ(dnet_field_set(dnet_field_by_name(r, "pw2"), &v, 0x10, &e), -DNET_ERANGE);
	CHECK_EQ(v, 0xf5ff);
}

static void code_tables(void)
{
	struct dnet_err e;
	bool def;
	/* Tab. 4.10 */
	CHECK_EQ(dnet_capacity_bytes(0x01), 256ull << 20);
	CHECK_EQ(dnet_capacity_bytes(0x20), 8192ull << 20);
	CHECK_EQ(dnet_code_decode(&core_codetab_capacity, 0x03, &def), 256ull << 20);
	CHECK(!def);
	/* Tab. 4.11 with decision D-MTU-1024 */
	CHECK_EQ(core_mtu_bytes(0x01), 256);
	CHECK_EQ(core_mtu_bytes(0x04), 1024);
	CHECK_EQ(core_mtu_bytes(0x08), 2048);
	CHECK_EQ(core_mtu_bytes(0x10), 4096);
	CHECK_EQ(core_mtu_bytes(0x14), 2048); /* as printed in the thesis: undefined -> default */
	CHECK_EQ(core_mtu_bytes(0), 2048);
	uint64_t c;
	CHECK_OK(dnet_code_encode(&core_codetab_mtu, 1024, &c, &e), &e);
	CHECK_EQ(c, 0x04);
	CHECK_EQ(dnet_code_encode(&core_codetab_mtu, 1000, &c, &e), -DNET_EINVAL);
	/* Tab. A.5 */
	CHECK_EQ(dnet_status_area_bytes(0x00), 1024);
	CHECK_EQ(dnet_status_area_bytes(0x01), 64);
	CHECK_EQ(dnet_status_area_bytes(0x40), 4096);
	CHECK_EQ(dnet_status_area_bytes(0x41), 1024);
	/* Tab. 4.5 */
	for (unsigned d = 0; d < 8; d++)
		CHECK_EQ(dnet_dtype_bytes(d), 1u << d);
}

static void lid_clid(void)
{
	struct dnet_err e;
	uint16_t clid;
	/* Tab. 4.6 rows, decision D-CLID: CLID = {LID[15:12], LID[7:0]}. */
	CHECK_EQ(dnet_clid_to_lid(DNET_CLID_11_8, 0x001), 0x0001);
	CHECK_EQ(dnet_clid_to_lid(DNET_CLID_11_8, 0xBFF), 0xB0FF);
	CHECK_EQ(dnet_clid_to_lid(DNET_CLID_11_8, 0xC00), 0xC000);
	CHECK_EQ(dnet_clid_to_lid(DNET_CLID_11_8, 0xFFF), 0xFFFF);
	CHECK_EQ(dnet_clid_to_lid(DNET_CLID_11_8, 0x123), 0x1023);
	CHECK_OK(core_lid_to_clid(DNET_CLID_11_8, 0x1023, &clid, &e), &e);
	CHECK_EQ(clid, 0x123);
	CHECK_OK(core_lid_to_clid(DNET_CLID_11_8, 0xFFFF, &clid, &e), &e);
	CHECK_EQ(clid, 0xFFF);
	CHECK_EQ(core_lid_to_clid(DNET_CLID_11_8, 0x0100, &clid, &e), -DNET_EINVAL);
	for (unsigned c = 0; c < 0x1000; c++) {
		uint16_t back;
		CHECK_OK(core_lid_to_clid(DNET_CLID_11_8, dnet_clid_to_lid(DNET_CLID_11_8, (uint16_t)c), &back, &e), &e);
		CHECK_EQ(back, c);
	}
	CHECK_STR(core_clid_kind(0), "reserved");
	CHECK_STR(core_clid_kind(0xBFF), "unicast");
	CHECK_STR(core_clid_kind(0xC00), "multicast");
}

static void memory_map(void)
{
	struct dnet_err e;
	uint32_t a;
	/* Tab. 4.3 */
	CHECK_OK(dnet_region_addr(DNET_REG_WW, 1, 0x600, 0x200, &a, &e), &e);
	CHECK_EQ(a, 0x2600);
	CHECK_OK(dnet_region_addr(DNET_REG_PW, 1, 0, 16, &a, &e), &e);
	CHECK_EQ(a, 0x12000);
	CHECK_OK(dnet_region_addr(DNET_REG_LLCM, 1, 0x7ff0, 16, &a, &e), &e);
	CHECK_EQ(a, 0x2fff0);
	CHECK_OK(dnet_region_addr(DNET_REG_LHB, 1, 0, 64, &a, &e), &e);
	CHECK_EQ(a, 0x38000);
	CHECK_OK(dnet_region_addr(DNET_REG_UREG, 1, 0x200, 8, &a, &e), &e);
	CHECK_EQ(a, 0x41200);
	CHECK_OK(dnet_region_addr(DNET_REG_SREG, 1, 0x300, 8, &a, &e), &e);
	CHECK_EQ(a, 0x50300);
	CHECK_EQ(dnet_region_addr(DNET_REG_LLCM, 0, 0x7ff8, 16, &a, &e), -DNET_ERANGE);
	CHECK_EQ(dnet_region_addr(DNET_REG_WW, 2, 0, 8, &a, &e), -DNET_EINVAL);
	enum dnet_region r;
	unsigned wid;
	uint32_t off;
	CHECK_OK(dnet_addr_lookup(0x38040, &r, &wid, &off), &e);
	CHECK(r == DNET_REG_LHB && wid == 1 && off == 0x40);
	CHECK_EQ(dnet_addr_lookup(0x00800, &r, &wid, &off), -DNET_ERANGE); /* hole after WID 0's WW */
	CHECK_EQ(dnet_addr_attr(0x00400), DNET_ATTR_WC);
	CHECK_EQ(dnet_addr_attr(0x10400), DNET_ATTR_WB);
	CHECK_EQ(dnet_addr_attr(0x20400), DNET_ATTR_UC);
	CHECK_EQ(dnet_addr_attr(0x38000), DNET_ATTR_WB);
	CHECK_EQ(dnet_addr_attr(0x41000), DNET_ATTR_UC);
	const struct dnet_region_info *ri = dnet_region_by_name("sreg");
	CHECK(ri && ri->privileged && !ri->per_wid);
	CHECK_EQ(DNET_MAP_SIZE, 0x51000);
}

int main(void)
{
	RUN(ctl_status_fig_c12);
	RUN(prim_counter_fig_c14);
	RUN(module_state_fig_c13);
	RUN(table_offsets);
	RUN(parse_errors);
	RUN(code_tables);
	RUN(lid_clid);
	RUN(memory_map);
	return t_summary("test_regs");
}
