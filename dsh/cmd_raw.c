/* dsh: raw access -- peek and poke one value of 8, 16, 32 or 64 bits at a
 * region offset, as devmem reads and writes one value at an address, with
 * the checks a named register gets: libdnet's access rules (dnet_access_check,
 * before anything is read or written: no read of a write-only register or of
 * one whose read acts, no write of a read-only one or of the host-read-only
 * Prefetch Window and LH Buffer, no Write Window read, registers 64 bits at a
 * time), values that fit the width (and, for a whole register, its
 * implemented bits), the flag area of LLCM protected.
 *
 *   peek REGION OFFSET [width=8|16|32|64]
 *   poke REGION OFFSET VALUE [width=8|16|32|64] [force]
 */
#include <inttypes.h>
#include <string.h>
#include "dsh.h"

struct raw {
	enum dnet_region region;
	const struct dnet_region_info *ri;
	uint32_t off, addr;
	unsigned width;        /* bytes */
	const struct dnet_reg *reg;
};

static int raw_args(struct dsh *d, struct dsh_args *a, uint64_t w, bool write, struct raw *r)
{
	memset(r, 0, sizeof *r);
	r->ri = dnet_region_by_name(a->argv[1]);
	if (!r->ri)
	{
		char near[96];
		return dsh_error(d, "argument 1: unknown region '%s' (%sww pw llcm lhb ureg sreg)", a->argv[1],
				 dsh_did_you_mean(a->argv[1], "ww pw llcm lhb ureg sreg", near, sizeof near));
	}
	r->region = r->ri->id;
	uint64_t off;
	if (dsh_num(d, a, 2, UINT32_MAX, "offset", &off) < 0)
		return -1;
	r->width = (unsigned)(w / 8);
	if (off % r->width)
		return dsh_error(d, "argument 2: offset 0x%" PRIx64 " is misaligned for a %" PRIu64 "-bit access", off, w);
	if (off + r->width > r->ri->size)
		return dsh_error(d, "argument 2: offset 0x%" PRIx64 " outside %s (0x%" PRIx32 " bytes)", off,
				 r->ri->name, r->ri->size);
	r->off = (uint32_t)off;
	struct dnet_err e = { 0 };
	if (dnet_region_addr(r->region, d->opts.wid, r->off, r->width, &r->addr, &e) < 0)
		return dsh_derr(d, &e);
	enum dnet_rule rule;
	if (dnet_access_check(dnet_dev_caps(d->dev), r->addr, r->width, r->width, write, false, &rule, &e) < 0)
		return rule == DNET_RULE_WW_READ ? dsh_error(d, "%s; 'dump ww' shows what this shell wrote", e.msg)
						 : dsh_derr(d, &e);
	if (r->region == DNET_REG_UREG || r->region == DNET_REG_SREG) /* the one the rules let through */
		r->reg = dsh_reg_at(r->region == DNET_REG_UREG ? DNET_BLK_USER : DNET_BLK_SYSTEM, r->off & ~7u,
				    write ? DNET_ACC_W : DNET_ACC_R);
	return 0;
}

/* D-RAW-WIDTH: the width is a keyword, width=BITS, after the positional
 * words, never a position.  devmem reads ADDRESS [WIDTH [VALUE]] and dsh
 * read OFFSET VALUE [WIDTH]: 'poke llcm 0 64 32' had a reading for each, and
 * dsh wrote 0x40 at width 32 where a devmem user meant 32 at width 64.  A
 * number where no positional word is left is refused naming width=, so
 * neither order can write anything.  One function for the run (cmd_peek,
 * cmd_poke) and the whole-script check (check.c): w[] are the words after
 * the command name; with vars, a word holding '$' is not known yet (checked
 * when it runs). */
int dsh_raw_form(const char *cmd, int n, const char *const *w, bool vars, char *msg, size_t len)
{
	static const char *const names[] = { "REGION", "OFFSET", "VALUE" };
	bool poke = strcmp(cmd, "poke") == 0;
	int npos = poke ? 3 : 2;
	const char *usage = dsh_cmd_find(cmd)->usage;
	for (int j = 0; j < n; j++) {
		bool opt = strchr(w[j], '=') || (poke && strcmp(w[j], "force") == 0);
		bool unknown = vars && strchr(w[j], '$');
		if (j < npos) {
			if (opt && !unknown) {
				snprintf(msg, len, "missing %s before '%s' (usage: %s)", names[j], w[j], usage);
				return -1;
			}
			continue;
		}
		if (opt || unknown)
			continue;
		uint64_t v;
		struct dnet_err e = { 0 };
		if (dnet_parse_u64(w[j], UINT64_MAX, &v, "width", &e) < 0)
			snprintf(msg, len, "argument %d: unexpected '%s' (usage: %s)", j + 1, w[j], usage);
		else if (!poke && (v == 8 || v == 16 || v == 32 || v == 64))
			snprintf(msg, len, "argument %d ('%s'): a width is given as width=%" PRIu64 ", not by "
				 "position (usage: %s)", j + 1, w[j], v, usage);
		else
			snprintf(msg, len, "argument %d ('%s'): a width is given as width=BITS after %s, not by "
				 "position (usage: %s)", j + 1, w[j], names[npos - 1], usage);
		return -1;
	}
	if (n < npos) {
		snprintf(msg, len, "missing %s (usage: %s)", names[n], usage);
		return -1;
	}
	return 0;
}

/* The words of peek (start 3) or poke (start 4, force taken when given):
 * the form (dsh_raw_form), then width= after the positional words: *bits,
 * 64 when not given. */
static int raw_width(struct dsh *d, struct dsh_args *a, int start, uint64_t *bits, bool *force)
{
	char msg[512];
	if (dsh_raw_form(a->argv[0], a->argc - 1, (const char *const *)&a->argv[1], false, msg, sizeof msg) < 0)
		return dsh_error(d, "%s", msg);
	if (force)
		*force = dsh_take_word(a, start, "force");
	struct dsh_kv kv[] = { { "width", UINT64_MAX, 0, "width (bits)", 0, NULL, false } };
	if (dsh_kv_parse(d, a, start, a->argc, kv, 1) < 0)
		return -1;
	*bits = kv[0].given ? kv[0].val : 64;
	if (*bits == 8 || *bits == 16 || *bits == 32 || *bits == 64)
		return 0;
	int at = start;
	while (at < a->argc && strncmp(a->argv[at], "width=", 6) != 0)
		at++;
	return dsh_error(d, "argument %d: width=%" PRIu64 " is not 8, 16, 32 or 64 bits", at, *bits);
}

int cmd_peek(struct dsh *d, struct dsh_args *a)
{
	uint64_t bits;
	if (raw_width(d, a, 3, &bits, NULL) < 0)
		return -1;
	struct raw r;
	if (raw_args(d, a, bits, false, &r) < 0)
		return -1;
	struct dnet_err e = { 0 };
	uint64_t v = 0;
	if (r.region == DNET_REG_PW || r.region == DNET_REG_LHB) {
		/* Write-back regions: flush the line first (D-WB-READ). */
		if (dnet_cache_flush(d->dev, r.addr & ~63u, 64, &e) < 0)
			return dsh_derr(d, &e);
	}
	if (dnet_read(d->dev, r.addr, &v, r.width, &e) < 0)
		return dsh_derr(d, &e);
	char vfmt[32]; /* the value in as many digits as the access is wide */
	snprintf(vfmt, sizeof vfmt, " = 0x%%0%u" PRIx64 "\n", r.width * 2);
	out_str(d, "region", "%s", r.ri->name);
	out_hex(d, "offset", " 0x%" PRIx64, r.off);
	out_hex(d, "device_offset", NULL, r.addr);
	out_u64(d, "width", NULL, r.width * 8);
	if (r.reg)
		out_str(d, "register", " (%s)", r.reg->name);
	out_hex(d, "value", vfmt, v);
	dsh_set_last(d, v);
	return 0;
}

int cmd_poke(struct dsh *d, struct dsh_args *a)
{
	bool force;
	uint64_t bits;
	if (raw_width(d, a, 4, &bits, &force) < 0)
		return -1;
	struct raw r;
	if (raw_args(d, a, bits, true, &r) < 0)
		return -1;
	uint64_t v;
	uint64_t max = r.width == 8 ? UINT64_MAX : (1ull << (8 * r.width)) - 1;
	if (dsh_num(d, a, 3, max, "value", &v) < 0)
		return -1;
	if (r.reg && r.width == 8 && (v & ~r.reg->valid_mask))
		return dsh_error(d, "argument 3: value 0x%" PRIx64 " has bits outside %s (implemented bits 0x%"
				 PRIx64 ")", v, r.reg->name, r.reg->valid_mask);
	if (r.region == DNET_REG_LLCM && !force && dsh_sync_area_guard(d, r.off, r.width) < 0)
		return -1;
	struct dnet_err e = { 0 };
	if (r.reg && r.width == 8) {
		/* A whole register: through the register path, which keeps dsh's
		 * shadow of write-only registers. */
		if (dsh_reg_write(d, r.reg, v) < 0)
			return -1;
	} else if (dnet_write(d->dev, r.addr, &v, r.width, &e) < 0) {
		return dsh_derr(d, &e);
	}
	if (r.region == DNET_REG_WW)
		dsh_ww_shadow(d, r.off, &v, r.width);
	out_str(d, "region", NULL, r.ri->name);
	out_hex(d, "offset", NULL, r.off);
	out_hex(d, "device_offset", NULL, r.addr);
	out_u64(d, "width", NULL, r.width * 8);
	out_hex(d, "value", NULL, v);
	if (r.reg)
		out_str(d, "register", NULL, r.reg->name);
	return 0;
}
