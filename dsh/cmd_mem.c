/* dsh: buffers — llcm_read/llcm_write, evpbuf_read, pw_read, ww_write (the
 * original commands and formats), dump of every region, SO-DIMM access.
 *
 * Printed addresses are d->opts.base + device offset (default base 0x4213c000,
 * the mapping address of the thesis's examples; `set base`).  All offsets
 * and sizes are checked before anything is done.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "dsh.h"

#define DUMP_MAX 0x10000u

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
	int rc = dsh_region_read(d, reg, off, buf, len);
	if (rc == 0) {
		uint32_t addr = ri->base[d->opts.wid] + off;
		if (reg == DNET_REG_WW) {
			out_bool(d, "shadow", "# Write Window: host-side shadow of what dsh wrote (the window is "
				 "write-only; ? = not written by this shell)\n", true);
			struct dsh_shadow *s = dsh_shadow(d);
			out_dump_known(d, ri->name, d->opts.wid, addr, off, buf, len,
				       s ? &s->ww_known[d->opts.wid][off / 8] : NULL);
		} else {
			out_dump(d, ri->name, d->opts.wid, addr, off, buf, len);
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
	if (dnet_region_addr(ri->id, d->opts.wid, off, len, &addr, &e) < 0)
		return dsh_derr(d, &e);
	if (ri->id == DNET_REG_PW || ri->id == DNET_REG_LHB) {
		uint32_t lo = addr & ~63u, hi = (addr + len + 63) & ~63u;
		if (dnet_cache_flush(d->dev, lo, hi - lo, &e) < 0)
			return dsh_derr(d, &e);
	}
	struct dsh_shadow *s = ri->id == DNET_REG_WW ? dsh_shadow(d) : NULL;
	out_str(d, "region", NULL, ri->name);
	out_u64(d, "wid", NULL, d->opts.wid);
	out_hex(d, "offset", NULL, off);
	out_hex(d, "device_offset", NULL, addr);
	out_hex(d, "address", NULL, (uint64_t)d->opts.base + addr);
	out_u64(d, "length", NULL, len);
	out_arr_open(d, "words32");
	out_text(d, "# ADDR     +0       +4       +8       +c        (32-bit words)\n");
	for (uint32_t i = 0; i < len; i += 4) {
		uint32_t v = 0;
		bool known = true;
		if (s) {
			/* the four bytes of this 32-bit word, all written */
			unsigned sh = (off + i) % 8;
			known = (s->ww_known[d->opts.wid][(off + i) / 8] >> sh & 0xfu) == 0xfu;
			memcpy(&v, &s->ww[d->opts.wid][off + i], 4);
		} else if (dnet_read32(d->dev, addr + i, &v, &e) < 0) {
			return dsh_derr(d, &e);
		}
		/* text: 8 hex digits; JSON: "0x" and 8 digits, null if not known */
		char h[16];
		snprintf(h, sizeof h, known ? "0x%08" PRIx32 : "0x????????", v);
		if (i % 16 == 0)
			out_u64(d, NULL, "#%08" PRIx64 ":", (uint64_t)(d->opts.base + addr + i));
		out_str(d, NULL, " %s", h + 2);
		if (known)
			out_str(d, "word", NULL, h);
		else
			out_null(d, "word");
		if (i % 16 == 12 || i + 4 == len)
			out_text(d, "\n");
	}
	out_close(d);
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
	out_hex(d, "from", NULL, from);
	out_u64(d, "it", NULL, it);
	out_hex(d, "val", NULL, val);
	out_hex(d, "inc", NULL, inc);
	enum dnet_region reg = DNET_REG_LLCM;
	uint32_t roff = (uint32_t)from;
	if (ww) {
		reg = DNET_REG_WW;
		roff = (uint32_t)(kv[4].val * DNET_WINDOW_SIZE + from);
		out_u64(d, "ww", NULL, kv[4].val);
	}
	uint32_t addr;
	if (dnet_region_addr(reg, d->opts.wid, roff, (uint32_t)(it * 4), &addr, &e) < 0)
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
	out_arr_open(d, "registers");
	out_dump_header(d);
	for (unsigned i = 0; i < d->reg.ndb; i++) {
		const struct dnet_reg *r = &d->reg.db[i];
		if (r->block != blk || r->offset < off || r->offset >= off + size)
			continue;
		if (!(r->access & DNET_ACC_R) && (r->flags & (DNET_RF_KICK | DNET_RF_ANY_VALUE)))
			continue; /* command kicks and reset strobes hold no state */
		uint32_t addr = dnet_reg_addr(r, d->opts.wid);
		char note[DNET_ERR_MSG_MAX + 8] = "";
		uint64_t v = 0;
		bool have = false;
		if (r->flags & DNET_RF_READ_EFFECT) {
			snprintf(note, sizeof(note), "not read: a read would act");
		} else if (r->access & DNET_ACC_R) {
			struct dnet_err e = { 0 };
			if (dnet_reg_read(d->dev, d->opts.wid, r, &v, &e) == 0)
				have = true;
			else
				snprintf(note, sizeof(note), "%s", e.msg);
		} else {
			struct dsh_shadow *s = dsh_shadow(d);
			unsigned w = blk == DNET_BLK_USER ? d->opts.wid : 0;
			if (s && s->reg_has[w][i]) {
				v = s->reg[w][i];
				have = true;
				snprintf(note, sizeof(note), "shadow");
			} else {
				snprintf(note, sizeof(note), "write-only, not written by dsh");
			}
		}
		out_obj_open(d, NULL);
		out_u64(d, NULL, "#%08" PRIx64 ": ", (uint64_t)(d->opts.base + addr));
		if (have)
			out_text(d, "%016" PRIx64 "  ", v);
		else
			out_text(d, "----------------  ");
		out_str(d, "register", "%s", r->name);
		out_hex(d, "device_offset", NULL, addr);
		if (have)
			out_hex(d, "value", NULL, v);
		else
			out_null(d, "value");
		out_str(d, note[0] ? "note" : NULL, note[0] ? " (%s)\n" : "\n", note);
		out_close(d);
	}
	out_close(d);
	out_str(d, "region", NULL, blk == DNET_BLK_USER ? "ureg" : "sreg");
	return 0;
}

int cmd_dump(struct dsh *d, struct dsh_args *a)
{
	if (a->argc < 2)
		return dsh_error(d, "usage: dump REGION [Offset] [Size] (REGION: ww pw llcm lhb ureg sreg sodimm)");
	const char *rn = a->argv[1];
	uint64_t off, size;
	if (strcmp(rn, "sodimm") == 0 || strcmp(a->argv[0], "sodimm") == 0) {
		uint64_t cap = dsh_sodimm_capacity(d);
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
			out_text(d, "# SO-DIMM WID %u offset 0x%" PRIx64, d->opts.wid, off);
			out_str(d, "via", " (via %s; addresses are SO-DIMM offsets)\n", how);
			if (d->io.json) {
				out_dump(d, "sodimm", d->opts.wid, 0, (uint32_t)off, buf, size);
			} else {
				uint32_t saved = d->opts.base;
				d->opts.base = 0;
				out_dump(d, "sodimm", d->opts.wid, (uint32_t)off, (uint32_t)off, buf, size);
				d->opts.base = saved;
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
	{
		char near[96];
		return dsh_error(d, "argument 1: unknown region '%s' (%sww pw llcm lhb ureg sreg sodimm)", rn,
				 dsh_did_you_mean(rn, "ww pw llcm lhb ureg sreg sodimm", near, sizeof near));
	}
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
			out_str(d, "via", NULL, how);
			out_hex(d, "offset", NULL, off);
			out_u64(d, "words", NULL, n);
		}
		return rc;
	}
	return dsh_error(d, "usage: sodimm read OFF [SIZE] | sodimm write OFF WORD...");
}
