/* dsh: buffers — llcm_read/llcm_write, evpbuf_read, pw_read, ww_write (the
 * original commands and formats), dump of every region, SO-DIMM access.
 *
 * Printed addresses are d->base + device offset (default base 0x4213c000,
 * the mapping address of the thesis's examples; `set base`).  All offsets
 * and sizes are checked before anything is done.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "dsh.h"

#define DUMP_MAX 0x10000u

/* ---- Write Window with host-side shadow ---- */

int dsh_ww_store(struct dsh *d, uint32_t off, const void *buf, size_t len)
{
	struct dnet_err e = { 0 };
	uint32_t addr;
	if (dnet_region_addr(DNET_REG_WW, d->wid, off, (uint32_t)len, &addr, &e) < 0)
		return dsh_derr(d, &e);
	if (dnet_write_block(d->dev, addr, buf, len, &e) < 0)
		return dsh_derr(d, &e);
	dsh_ww_shadow(d, off, buf, len);
	return 0;
}

void dsh_ww_shadow(struct dsh *d, uint32_t off, const void *buf, size_t len)
{
	struct dsh_shadow *s = dsh_shadow(d);
	if (!s || off >= DNET_WINAREA_SIZE || len > DNET_WINAREA_SIZE - off)
		return;
	memcpy(&s->ww[d->wid][off], buf, len);
	for (size_t i = off; i < off + len; i++)
		s->ww_known[d->wid][i / 8] |= (uint8_t)(1u << (i % 8));
}

/* The bits of the 64-bit Write Window word at off that this shell wrote. */
static uint64_t ww_known_bits(const struct dsh_shadow *s, unsigned wid, uint32_t off)
{
	uint64_t m = 0;
	uint8_t k = s->ww_known[wid][off / 8];
	for (unsigned b = 0; b < 8; b++)
		if (k & (1u << b))
			m |= 0xffull << (8 * b);
	return m;
}

/* ---- SO-DIMM ---- */

static uint64_t capacity(struct dsh *d)
{
	const struct dnet_reg *r = dnet_reg_by_name("sdimm_capacity");
	struct dsh_shadow *s = dsh_shadow(d);
	uint64_t code = DNET_CAPACITY_CODE_DEFAULT;
	if (r && s && s->reg_has[0][dsh_reg_index(d, r)])
		code = s->reg[0][dsh_reg_index(d, r)];
	return dnet_capacity_bytes(code);
}

static int prim_counter(struct dsh *d, uint64_t *v)
{
	const struct dnet_reg *r = dsh_reg_at(DNET_BLK_USER, DNET_UR_PRIM_COUNTER, DNET_ACC_R);
	struct dnet_err e = { 0 };
	if (!r)
		return dsh_error(d, "libdnet has no Primitive Counter");
	if (dnet_reg_read(d->dev, d->wid, r, v, &e) < 0)
		return dsh_derr(d, &e);
	return 0;
}

static int encode_simple(struct dsh *d, unsigned otype, uint32_t src, uint32_t dst, uint32_t size,
			 struct dnet_cmd *cmd)
{
	struct dnet_req rq;
	struct dnet_err e = { 0 };
	memset(&rq, 0, sizeof(rq));
	rq.otype = otype;
	rq.size = size;
	rq.srcoff = src;
	rq.dstoff = dst;
	if (dnet_req_encode(&rq, cmd, &e) < 0)
		return dsh_derr(d, &e);
	return 0;
}

static int issue_simple(struct dsh *d, unsigned otype, uint32_t src, uint32_t dst, uint32_t size)
{
	struct dnet_cmd cmd;
	if (encode_simple(d, otype, src, dst, size, &cmd) < 0)
		return -1;
	return dsh_issue(d, DNET_CMD0, &cmd);
}

int dsh_sodimm_rw(struct dsh *d, uint64_t off, void *buf, size_t len, bool write, const char **how)
{
	struct dnet_err e = { 0 };
	uint64_t cap = capacity(d);
	uint64_t limit = cap < 0x100000000ull ? cap : 0x100000000ull;
	if (off % 8 || len % 8)
		return dsh_error(d, "SO-DIMM offset and size must be multiples of 8 (got 0x%" PRIx64 ", %zu)", off, len);
	if (off >= limit || len > limit - off)
		return dsh_error(d, "SO-DIMM range 0x%" PRIx64 "+%zu is outside the WID's area (0x%" PRIx64 " bytes)",
				 off, len, limit);
	if (d->caps & DNET_CAP_BACKDOOR) {
		*how = "emulator backdoor";
		if (dnet_sodimm_access(d->dev, (uint64_t)d->wid * cap + off, buf, len, write, &e) < 0)
			return dsh_derr(d, &e);
		return 0;
	}
	uint8_t *p = buf;
	const uint32_t win = 3 * DNET_WINDOW_SIZE; /* WW#3 / PW#3 */
	/* every request is encoded (checked) before the first one is issued */
	for (size_t k = 0; k < len; k += DNET_WINDOW_SIZE) {
		uint32_t n = (uint32_t)(len - k < DNET_WINDOW_SIZE ? len - k : DNET_WINDOW_SIZE);
		struct dnet_cmd cmd;
		if (write ? encode_simple(d, DNET_OT_VS, win, (uint32_t)(off + k), n, &cmd) :
			    encode_simple(d, DNET_OT_VL, (uint32_t)(off + k), win, n, &cmd))
			return -1;
	}
	if (write) {
		*how = "WW#3 + VS";
		for (size_t k = 0; k < len; k += DNET_WINDOW_SIZE) {
			uint32_t n = (uint32_t)(len - k < DNET_WINDOW_SIZE ? len - k : DNET_WINDOW_SIZE);
			uint64_t before;
			if (dsh_ww_store(d, win, p + k, n) < 0 || prim_counter(d, &before) < 0)
				return -1;
			if (issue_simple(d, DNET_OT_VS, win, (uint32_t)(off + k), n) < 0)
				return -1;
			uint64_t mask = ((1ull << DNET_PC_BITS) - 1) << DNET_PC_SHIFT(DNET_FAM_VS);
			const struct dnet_reg *r = dsh_reg_at(DNET_BLK_USER, DNET_UR_PRIM_COUNTER, DNET_ACC_R);
			if (dnet_wait(d->dev, dnet_reg_addr(r, d->wid), mask, DNET_COND_NE, before & mask,
				      d->timeout_ns, NULL, &e) < 0)
				return dsh_derr(d, &e);
		}
		return 0;
	}
	*how = "VL into PW#3";
	const struct dnet_reg *fr = dsh_reg_at(DNET_BLK_USER, DNET_UR_PW_FLAG, DNET_ACC_R);
	const struct dnet_field *f3 = fr ? dnet_field_by_name(fr, "pw3") : NULL;
	if (!f3)
		return dsh_error(d, "libdnet has no pw_flag.pw3 field");
	const struct dnet_reg *pc = dsh_reg_at(DNET_BLK_USER, DNET_UR_PRIM_COUNTER, DNET_ACC_R);
	uint64_t vl_mask = ((1ull << DNET_PC_BITS) - 1) << DNET_PC_SHIFT(DNET_FAM_VL);
	for (size_t k = 0; k < len; k += DNET_WINDOW_SIZE) {
		uint32_t n = (uint32_t)(len - k < DNET_WINDOW_SIZE ? len - k : DNET_WINDOW_SIZE);
		uint64_t before;
		if (prim_counter(d, &before) < 0)
			return -1;
		if (issue_simple(d, DNET_OT_VL, (uint32_t)(off + k), win, n) < 0)
			return -1;
		/* OQ-16 leaves open whether the window's flags reset at the Lower
		 * write or when the controller starts the request: on a board that
		 * resets them at start, the flags still read 4'b1111 from the last
		 * read for a while.  So first the VL counter must move (this VL
		 * completed), then the flags must be 4'b1111 (as the VS path waits
		 * for its counter). */
		if (dnet_wait(d->dev, dnet_reg_addr(pc, d->wid), vl_mask, DNET_COND_NE, before & vl_mask,
			      d->timeout_ns, NULL, &e) < 0)
			return dsh_error(d, "VL into PW#3: the Primitive Counter's VL count did not move from %"
					 PRIu64 " (no completion): %s", (before & vl_mask) >> DNET_PC_SHIFT(DNET_FAM_VL),
					 e.msg);
		uint64_t mask = dnet_field_mask(f3);
		if (dnet_wait(d->dev, dnet_reg_addr(fr, d->wid), mask, DNET_COND_EQ, mask, d->timeout_ns,
			      NULL, &e) < 0)
			return dsh_derr(d, &e);
		uint32_t addr;
		if (dnet_region_addr(DNET_REG_PW, d->wid, win, n, &addr, &e) < 0 ||
		    dnet_read_block(d->dev, addr, p + k, n, &e) < 0)
			return dsh_derr(d, &e);
	}
	return 0;
}

/* ---- reading regions ---- */

static int region_read(struct dsh *d, enum dnet_region reg, uint32_t off, uint8_t *buf, size_t len)
{
	struct dnet_err e = { 0 };
	uint32_t addr;
	if (dnet_region_addr(reg, d->wid, off, (uint32_t)len, &addr, &e) < 0)
		return dsh_derr(d, &e);
	if (reg == DNET_REG_WW) {
		struct dsh_shadow *s = dsh_shadow(d);
		if (!s)
			return dsh_error(d, "out of memory");
		memcpy(buf, &s->ww[d->wid][off], len);
		return 0;
	}
	if (dnet_read_block(d->dev, addr, buf, len, &e) < 0)
		return dsh_derr(d, &e);
	return 0;
}

int dsh_mem_word(struct dsh *d, enum dnet_region r, bool sodimm, uint32_t off, uint64_t need, uint64_t *v)
{
	uint8_t b[8];
	if (off % 8)
		return dsh_error(d, "offset 0x%" PRIx32 " is not a multiple of 8", off);
	if (!sodimm && r == DNET_REG_WW) {
		/* As a write-only register never written (shadow.c): the host
		 * cannot read the window, and what this shell did not write is
		 * not known -- never a 0. */
		struct dsh_shadow *s = dsh_shadow(d);
		if (!s)
			return dsh_error(d, "out of memory");
		if (off >= DNET_WINAREA_SIZE)
			return dsh_error(d, "offset 0x%" PRIx32 " outside the Write Window area", off);
		uint64_t missing = need & ~ww_known_bits(s, d->wid, off);
		if (missing == need)
			return dsh_error(d, "ww 0x%" PRIx32 " is write-only (the Write Window cannot be read back) "
					 "and dsh has not written it on node %u, WID %u (no shadow)", off,
					 dnet_node(d->dev), d->wid);
		if (missing)
			return dsh_error(d, "ww 0x%" PRIx32 " is write-only (the Write Window cannot be read back) "
					 "and dsh has not written bits 0x%" PRIx64 " of it on node %u, WID %u (no "
					 "shadow; a mask can leave them out)", off, missing, dnet_node(d->dev), d->wid);
	}
	if (sodimm) {
		const char *how;
		if (dsh_sodimm_rw(d, off, b, 8, false, &how) < 0)
			return -1;
	} else if (region_read(d, r, off, b, 8) < 0) {
		return -1;
	}
	uint64_t x = 0;
	for (int i = 7; i >= 0; i--)
		x = x << 8 | b[i];
	*v = x;
	return 0;
}

/* Parse [Offset] [Size] at argv[first..] for a region of rsize bytes, both
 * multiples of 8, inside the region. */
static int off_size_al(struct dsh *d, struct dsh_args *a, int first, uint64_t rsize, uint64_t def_size,
		       unsigned align, uint64_t *off, uint64_t *size);

static int off_size(struct dsh *d, struct dsh_args *a, int first, uint64_t rsize, uint64_t def_size,
		    uint64_t *off, uint64_t *size)
{
	return off_size_al(d, a, first, rsize, def_size, 8, off, size);
}

/* Offset and size of a dump: multiples of align (8, or 4 for 'dump'). */
static int off_size_al(struct dsh *d, struct dsh_args *a, int first, uint64_t rsize, uint64_t def_size,
		       unsigned align, uint64_t *off, uint64_t *size)
{
	*off = 0;
	*size = def_size;
	if (a->argc > first + 2) {
		const struct dsh_cmd *c = dsh_cmd_find(a->argv[0]);
		return dsh_error(d, "argument %d: unexpected '%s'; usage: %s", first + 2, a->argv[first + 2],
				 c ? c->usage : a->argv[0]);
	}
	if (a->argc > first && dsh_num(d, a, first, rsize - 1, "offset", off) < 0)
		return -1;
	if (a->argc > first + 1 && dsh_num(d, a, first + 1, rsize, "size", size) < 0)
		return -1;
	if (*off % align)
		return dsh_error(d, "argument %d: offset 0x%" PRIx64 " is misaligned (must be a multiple of %u)",
				 first, *off, align);
	if (*size == 0 || *size % align)
		return dsh_error(d, "argument %d: size %" PRIu64 " must be a positive multiple of %u", first + 1,
				 *size, align);
	if (*off + *size > rsize)
		return dsh_error(d, "offset 0x%" PRIx64 " + size %" PRIu64 " runs past the end of the region (%" PRIu64 " bytes)",
				 *off, *size, rsize);
	return 0;
}

static int dump_region(struct dsh *d, enum dnet_region reg, uint32_t off, uint32_t len)
{
	const struct dnet_region_info *ri = dnet_region_info(reg);
	uint8_t *buf = malloc(len);
	if (!buf)
		return dsh_error(d, "out of memory");
	int rc = region_read(d, reg, off, buf, len);
	if (rc == 0) {
		uint32_t addr = ri->base[d->wid] + off;
		if (reg == DNET_REG_WW) {
			jbool(out_res(d), "shadow", true);
			out_text(d, "# Write Window: host-side shadow of what dsh wrote (the window is write-only;"
				 " ? = not written by this shell)\n");
			struct dsh_shadow *s = dsh_shadow(d);
			out_dump_known(d, ri->name, d->wid, addr, off, buf, len,
				       s ? &s->ww_known[d->wid][off / 8] : NULL);
		} else {
			out_dump(d, ri->name, d->wid, addr, off, buf, len);
		}
	}
	free(buf);
	return rc;
}

/* A dump that is 4- but not 8-byte aligned: 32-bit reads and 32-bit words
 * (as devmem users expect); the Write Window comes from the shadow. */
static int dump_region32(struct dsh *d, const struct dnet_region_info *ri, uint32_t off, uint32_t len)
{
	struct dnet_err e = { 0 };
	uint32_t addr;
	if (dnet_region_addr(ri->id, d->wid, off, len, &addr, &e) < 0)
		return dsh_derr(d, &e);
	if (ri->id == DNET_REG_PW || ri->id == DNET_REG_LHB) {
		uint32_t lo = addr & ~63u, hi = (addr + len + 63) & ~63u;
		if (dnet_cache_flush(d->dev, lo, hi - lo, &e) < 0)
			return dsh_derr(d, &e);
	}
	struct dsh_shadow *s = ri->id == DNET_REG_WW ? dsh_shadow(d) : NULL;
	cJSON *res = out_res(d);
	jstr(res, "region", ri->name);
	jnum(res, "wid", d->wid);
	jhex(res, "offset", off);
	jhex(res, "device_offset", addr);
	jhex(res, "address", (uint64_t)d->base + addr);
	jnum(res, "length", len);
	cJSON *arr = d->json ? cJSON_AddArrayToObject(res, "words32") : NULL;
	if (!d->json)
		printf("# ADDR     +0       +4       +8       +c        (32-bit words)\n");
	for (uint32_t i = 0; i < len; i += 4) {
		uint32_t v = 0;
		bool known = true;
		if (s) {
			/* the four bytes of this 32-bit word, all written */
			unsigned sh = (off + i) % 8;
			known = (s->ww_known[d->wid][(off + i) / 8] >> sh & 0xfu) == 0xfu;
			memcpy(&v, &s->ww[d->wid][off + i], 4);
		} else if (dnet_read32(d->dev, addr + i, &v, &e) < 0) {
			return dsh_derr(d, &e);
		}
		char w[12];
		snprintf(w, sizeof w, known ? "%08" PRIx32 : "????????", v);
		if (arr) {
			char h[16];
			snprintf(h, sizeof h, "0x%08" PRIx32, v);
			cJSON_AddItemToArray(arr, known ? cJSON_CreateString(h) : cJSON_CreateNull());
		} else {
			if (i % 16 == 0)
				printf("#%08" PRIx32 ":", d->base + addr + i);
			printf(" %s", w);
			if (i % 16 == 12 || i + 4 == len)
				putchar('\n');
		}
	}
	return 0;
}

int cmd_llcm_read(struct dsh *d, struct dsh_args *a)
{
	uint64_t off, size;
	if (off_size(d, a, 1, DNET_LLCM_SIZE, 64, &off, &size) < 0)
		return -1;
	return dump_region(d, DNET_REG_LLCM, (uint32_t)off, (uint32_t)size);
}

int cmd_evpbuf_read(struct dsh *d, struct dsh_args *a)
{
	uint64_t off, size;
	if (off_size(d, a, 1, DNET_LHB_SIZE, 64, &off, &size) < 0)
		return -1;
	return dump_region(d, DNET_REG_LHB, (uint32_t)off, (uint32_t)size);
}

int cmd_pw_read(struct dsh *d, struct dsh_args *a)
{
	uint64_t pw, size = DNET_WINDOW_SIZE;
	if (a->argc < 2 || a->argc > 3)
		return dsh_error(d, "usage: pw_read [PW#(0-3)] [Size(Byte)]");
	if (dsh_num(d, a, 1, DNET_WINDOWS - 1, "PW#", &pw) < 0)
		return -1;
	if (a->argc == 3 && dsh_num(d, a, 2, DNET_WINDOW_SIZE, "size", &size) < 0)
		return -1;
	if (size == 0 || size % 8)
		return dsh_error(d, "argument 2: size %" PRIu64 " must be a positive multiple of 8", size);
	return dump_region(d, DNET_REG_PW, (uint32_t)(pw * DNET_WINDOW_SIZE), (uint32_t)size);
}

/* llcm_write / ww_write: 32-bit values, Iteration times, +Increment. */
static int write32_series(struct dsh *d, struct dsh_args *a, bool ww)
{
	struct dsh_kv kv[] = {
		{ .key = "from", .max = UINT32_MAX, .what = "offset" },
		{ .key = "it", .max = DNET_LLCM_SIZE / 4, .what = "iteration" },
		{ .key = "val", .max = UINT32_MAX, .flags = DSH_KV_REQ, .what = "value (32 bit)" },
		{ .key = "inc", .max = UINT32_MAX, .what = "increment (32 bit)" },
		{ .key = "ww", .max = DNET_WINDOWS - 1, .flags = DSH_KV_REQ, .what = "WW# (0-3)" },
	};
	unsigned nkv = ww ? 5 : 4;
	bool force = !ww && dsh_take_word(a, 1, "force");
	if (dsh_kv_parse(d, a, 1, a->argc, kv, nkv) < 0)
		return -1;
	uint64_t from = kv[0].val, it = kv[1].given ? kv[1].val : 1, val = kv[2].val,
		 inc = kv[3].val;
	uint64_t limit = ww ? DNET_WINDOW_SIZE : DNET_LLCM_SIZE;
	if (it == 0)
		return dsh_error(d, "it=0: nothing to write (Iteration is at least 1)");
	if (from % 4)
		return dsh_error(d, "from=0x%" PRIx64 " is misaligned (32-bit values: a multiple of 4)", from);
	if (from >= limit || it * 4 > limit - from)
		return dsh_error(d, "from=0x%" PRIx64 " it=%" PRIu64 " runs past the end of the %s (%" PRIu64 " bytes)",
				 from, it, ww ? "Write Window" : "LLCM", limit);
	if (!ww && !force && dsh_sync_area_guard(d, (uint32_t)from, (uint32_t)(it * 4)) < 0)
		return -1;
	struct dnet_err e = { 0 };
	jhex(out_res(d), "from", from);
	jnum(out_res(d), "it", it);
	jhex(out_res(d), "val", val);
	jhex(out_res(d), "inc", inc);
	enum dnet_region reg = DNET_REG_LLCM;
	uint32_t roff = (uint32_t)from;
	if (ww) {
		reg = DNET_REG_WW;
		roff = (uint32_t)(kv[4].val * DNET_WINDOW_SIZE + from);
		jnum(out_res(d), "ww", kv[4].val);
	}
	uint32_t addr;
	if (dnet_region_addr(reg, d->wid, roff, (uint32_t)(it * 4), &addr, &e) < 0)
		return dsh_derr(d, &e);
	for (uint64_t i = 0; i < it; i++) {
		uint32_t v = (uint32_t)(val + i * inc);
		if (dnet_write32(d->dev, addr + (uint32_t)(i * 4), v, &e) < 0)
			return dsh_derr(d, &e);
		if (ww)
			dsh_ww_shadow(d, roff + (uint32_t)(i * 4), &v, 4);
	}
	if (ww && dnet_wc_flush(d->dev, &e) < 0)
		return dsh_derr(d, &e);
	return 0;
}

int cmd_llcm_write(struct dsh *d, struct dsh_args *a)
{
	return write32_series(d, a, false);
}

int cmd_ww_write(struct dsh *d, struct dsh_args *a)
{
	return write32_series(d, a, true);
}

/* ---- dump ---- */

static int dump_regs(struct dsh *d, enum dnet_reg_block blk, uint64_t off, uint64_t size)
{
	cJSON *arr = d->json ? cJSON_AddArrayToObject(d->res, "registers") : NULL;
	jstr(out_res(d), "region", blk == DNET_BLK_USER ? "ureg" : "sreg");
	out_dump_header(d);
	for (unsigned i = 0; i < d->nregs; i++) {
		const struct dnet_reg *r = &d->regs[i];
		if (r->block != blk || r->offset < off || r->offset >= off + size)
			continue;
		if (!(r->access & DNET_ACC_R) && (r->flags & (DNET_RF_KICK | DNET_RF_ANY_VALUE)))
			continue; /* command kicks and reset strobes hold no state */
		uint32_t addr = dnet_reg_addr(r, d->wid);
		cJSON *o = arr ? cJSON_CreateObject() : NULL;
		jstr(o, "register", r->name);
		jhex(o, "device_offset", addr);
		char note[DNET_ERR_MSG_MAX + 8] = "";
		uint64_t v = 0;
		bool have = false;
		if (r->flags & DNET_RF_READ_EFFECT) {
			snprintf(note, sizeof(note), "not read: a read would act");
		} else if (r->access & DNET_ACC_R) {
			struct dnet_err e = { 0 };
			if (dnet_reg_read(d->dev, d->wid, r, &v, &e) == 0)
				have = true;
			else
				snprintf(note, sizeof(note), "%s", e.msg);
		} else {
			struct dsh_shadow *s = dsh_shadow(d);
			unsigned w = blk == DNET_BLK_USER ? d->wid : 0;
			if (s && s->reg_has[w][i]) {
				v = s->reg[w][i];
				have = true;
				snprintf(note, sizeof(note), "shadow");
			} else {
				snprintf(note, sizeof(note), "write-only, not written by dsh");
			}
		}
		if (o) {
			if (have)
				jhex(o, "value", v);
			else
				cJSON_AddNullToObject(o, "value");
			if (note[0])
				jstr(o, "note", note);
			cJSON_AddItemToArray(arr, o);
			continue;
		}
		if (have)
			printf("#%08" PRIx32 ": %016" PRIx64 "  %s%s%s%s\n", d->base + addr, v, r->name,
			       note[0] ? " (" : "", note, note[0] ? ")" : "");
		else
			printf("#%08" PRIx32 ": ----------------  %s (%s)\n", d->base + addr, r->name, note);
	}
	return 0;
}

int cmd_dump(struct dsh *d, struct dsh_args *a)
{
	if (a->argc < 2)
		return dsh_error(d, "usage: dump REGION [Offset] [Size] (REGION: ww pw llcm lhb ureg sreg sodimm)");
	const char *rn = a->argv[1];
	uint64_t off, size;
	if (strcmp(rn, "sodimm") == 0 || strcmp(a->argv[0], "sodimm") == 0) {
		uint64_t cap = capacity(d);
		if (off_size(d, a, 2, cap < 0x100000000ull ? cap : 0x100000000ull, 64, &off, &size) < 0)
			return -1;
		if (size > DUMP_MAX)
			return dsh_error(d, "argument 3: size %" PRIu64 " is larger than %u", size, DUMP_MAX);
		uint8_t *buf = malloc(size);
		if (!buf)
			return dsh_error(d, "out of memory");
		const char *how = "";
		int rc = dsh_sodimm_rw(d, off, buf, size, false, &how);
		if (rc == 0) {
			jstr(out_res(d), "via", how);
			out_text(d, "# SO-DIMM WID %u offset 0x%" PRIx64 " (via %s; addresses are SO-DIMM offsets)\n",
				 d->wid, off, how);
			if (d->json) {
				out_dump(d, "sodimm", d->wid, 0, (uint32_t)off, buf, size);
			} else {
				uint32_t saved = d->base;
				d->base = 0;
				out_dump(d, "sodimm", d->wid, (uint32_t)off, (uint32_t)off, buf, size);
				d->base = saved;
			}
		}
		free(buf);
		return rc;
	}
	if (strcmp(rn, "ureg") == 0 || strcmp(rn, "sreg") == 0) {
		if (off_size(d, a, 2, DNET_UREG_SIZE, DNET_UREG_SIZE, &off, &size) < 0)
			return -1;
		return dump_regs(d, rn[0] == 'u' ? DNET_BLK_USER : DNET_BLK_SYSTEM, off, size);
	}
	const struct dnet_region_info *ri = dnet_region_by_name(rn);
	if (!ri)
		return dsh_error(d, "argument 1: unknown region '%s' (ww pw llcm lhb ureg sreg sodimm)", rn);
	if (off_size_al(d, a, 2, ri->size, ri->size < 64 ? ri->size : 64, 4, &off, &size) < 0)
		return -1;
	if (off % 8 || size % 8)
		return dump_region32(d, ri, (uint32_t)off, (uint32_t)size);
	return dump_region(d, ri->id, (uint32_t)off, (uint32_t)size);
}

/* ---- sodimm ---- */

int cmd_sodimm(struct dsh *d, struct dsh_args *a)
{
	if (a->argc >= 2 && strcmp(a->argv[1], "read") == 0) {
		if (a->argc < 3 || a->argc > 4)
			return dsh_error(d, "usage: sodimm read OFF [SIZE]");
		/* reuse dump sodimm OFF SIZE (same argument positions) */
		return cmd_dump(d, a);
	}
	if (a->argc >= 2 && strcmp(a->argv[1], "write") == 0) {
		if (a->argc < 4)
			return dsh_error(d, "usage: sodimm write OFF WORD...");
		uint64_t off;
		if (dsh_num(d, a, 2, UINT32_MAX, "offset", &off) < 0)
			return -1;
		if (off % 8)
			return dsh_error(d, "argument 2: offset 0x%" PRIx64 " is misaligned (multiple of 8)", off);
		size_t n = (size_t)(a->argc - 3);
		uint8_t *buf = malloc(n * 8);
		if (!buf)
			return dsh_error(d, "out of memory");
		for (size_t i = 0; i < n; i++) {
			uint64_t w;
			if (dsh_num(d, a, (int)(3 + i), UINT64_MAX, "word", &w) < 0) {
				free(buf);
				return -1;
			}
			for (int k = 0; k < 8; k++)
				buf[i * 8 + (size_t)k] = (uint8_t)(w >> (8 * k));
		}
		const char *how = "";
		int rc = dsh_sodimm_rw(d, off, buf, n * 8, true, &how);
		free(buf);
		if (rc == 0) {
			jstr(out_res(d), "via", how);
			jhex(out_res(d), "offset", off);
			jnum(out_res(d), "words", n);
		}
		return rc;
	}
	return dsh_error(d, "usage: sodimm read OFF [SIZE] | sodimm write OFF WORD...");
}
