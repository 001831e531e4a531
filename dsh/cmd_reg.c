/* dsh: registers -- ureg_read/ureg_write/sreg_read/sreg_write (the original
 * formats and banners) and reg (by name, field decode, read-modify-write).
 */
#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "dsh.h"

static const char *block_name(const struct dnet_reg *r)
{
	return r->block == DNET_BLK_USER ? "ureg" : "sreg";
}

/* ---- the decode listings of the original (Fig. C.13, C.14) ---- */

/* Labels of the Module State listing, in enum dnet_fsm order (Fig. C.13). */
static const char *const fsm_labels[DNET_FSM_COUNT] = {
	"Accepter", "Executer", "Receive Controller", "PWrite",
	"Write Unit rctl_stat", "Write Unit wctl_stat", "Write Unit wu_stride",
	"Write Unit wu_ipush", "Prefetch Unit", "Prefetch Unit pu_ctl", "Prefetch Unit pu_write",
};

void dsh_modstate_listing(struct dsh *d, uint64_t v)
{
	char buf[64];
	out_obj_open(d, "states");
	for (unsigned f = 0; f < DNET_FSM_COUNT; f++) {
		const char *name = dnet_modstate_name(v, (enum dnet_fsm)f, buf, sizeof(buf));
		const struct dnet_fsm_info *fi = dnet_fsm_info((enum dnet_fsm)f);
		if (f == DNET_FSM_WC_ACCEPTER)
			out_text(d, "Window Controller\n");
		out_str(d, NULL, f <= DNET_FSM_WC_EXECUTER ? "    %s : " : "%-26s", fsm_labels[f]);
		out_str(d, fi && fi->label ? fi->label : fsm_labels[f], "%s\n", name);
	}
	out_close(d);
}

void dsh_counter_listing(struct dsh *d, uint64_t v)
{
	out_obj_open(d, "counters");
	for (unsigned f = 0; f < DNET_FAMILY_COUNT; f++) {
		uint64_t n = (v >> DNET_PC_SHIFT(f)) & ((1u << DNET_PC_BITS) - 1);
		const char *name = dnet_family_name((enum dnet_family)f);
		out_str(d, NULL, "%-5s : ", name);
		out_u64(d, name, "%" PRIu64 "\n", n);
	}
	out_close(d);
}

/* Print one register the original way: banner, header, word. */
static void print_reg_orig(struct dsh *d, const struct dnet_reg *r, uint64_t v)
{
	out_str(d, "register", NULL, r->name);
	out_banner(d, r->title);
	out_dump_header(d);
	out_regword(d, dnet_reg_addr(r, d->opts.wid), v);
	if (d->io.json)
		out_fields(d, r, v, NULL);
}

static int read_orig(struct dsh *d, struct dsh_args *a, enum dnet_reg_block blk)
{
	const char *cmd = a->argv[0];
	if (a->argc != 2)
		return dsh_error(d, "usage: %s [Option]", cmd);
	const struct dnet_reg *r;
	const struct dnet_field *f;
	if (dsh_parse_regspec(d, a->argv[1], &r, &f) < 0)
		return -1;
	if (f)
		return dsh_error(d, "%s takes a register, not a field (use: reg %s)", cmd, a->argv[1]);
	if (r->block != blk)
		return dsh_error(d, "%s is a %s register: use %s_read", r->name,
				 r->block == DNET_BLK_USER ? "User" : "System", block_name(r));
	struct dnet_err e = { 0 };
	if (dsh_reg_rule(d, r, false, &e) == DNET_RULE_REG_WO) /* the original reads the device only */
		return dsh_error(d, "%s (use %s_write, or 'reg %s' for dsh's shadow)", e.msg, block_name(r),
				 r->name);
	uint64_t v;
	bool sh;
	if (dsh_reg_read(d, r, &v, &sh) < 0)
		return -1;
	print_reg_orig(d, r, v);
	if (r->block == DNET_BLK_USER && r->offset == DNET_UR_MODULE_STATE)
		dsh_modstate_listing(d, v);
	else if (r->block == DNET_BLK_USER && r->offset == DNET_UR_PRIM_COUNTER)
		dsh_counter_listing(d, v);
	dsh_set_last(d, v);
	return 0;
}

int cmd_ureg_read(struct dsh *d, struct dsh_args *a)
{
	return read_orig(d, a, DNET_BLK_USER);
}

int cmd_sreg_read(struct dsh *d, struct dsh_args *a)
{
	return read_orig(d, a, DNET_BLK_SYSTEM);
}

static int write_orig(struct dsh *d, struct dsh_args *a, enum dnet_reg_block blk)
{
	const char *cmd = a->argv[0];
	if (a->argc < 2 || a->argc > 3)
		return dsh_error(d, "usage: %s [Option] [Value]", cmd);
	const struct dnet_reg *r;
	const struct dnet_field *f;
	if (dsh_parse_regspec(d, a->argv[1], &r, &f) < 0)
		return -1;
	if (f)
		return dsh_error(d, "%s takes a register, not a field (use: reg %s = VALUE)", cmd, a->argv[1]);
	if (r->block != blk)
		return dsh_error(d, "%s is a %s register: use %s_write", r->name,
				 r->block == DNET_BLK_USER ? "User" : "System", block_name(r));
	struct dnet_err e = { 0 };
	if (dsh_reg_rule(d, r, true, &e) != DNET_RULE_NONE) /* before the value: the rule is the error */
		return dsh_derr(d, &e);
	uint64_t v = 0;
	if (a->argc == 3) {
		if (dsh_num(d, a, 2, UINT64_MAX, "value", &v) < 0)
			return -1;
		if (v & ~r->valid_mask && !(r->flags & DNET_RF_ANY_VALUE))
			return dsh_error(d, "argument 2: value 0x%" PRIx64 " has bits outside %s (valid mask 0x%" PRIx64 ")",
					 v, r->name, r->valid_mask);
	} else if (!(r->flags & DNET_RF_ANY_VALUE)) {
		return dsh_error(d, "missing argument 2 (value); usage: %s %s VALUE", cmd, r->name);
	}
	if (dsh_reg_write(d, r, v) < 0)
		return -1;
	out_str(d, "register", NULL, r->name);
	out_hex(d, "value", NULL, v);
	out_hex(d, "device_offset", NULL, dnet_reg_addr(r, d->opts.wid));
	/* The original printed a banner for the counter resets (Fig. C.14). */
	if (blk == DNET_BLK_USER && (r->flags & DNET_RF_ANY_VALUE))
		out_banner(d, r->title);
	return 0;
}

int cmd_ureg_write(struct dsh *d, struct dsh_args *a)
{
	return write_orig(d, a, DNET_BLK_USER);
}

int cmd_sreg_write(struct dsh *d, struct dsh_args *a)
{
	if (a->argc >= 2 && strcmp(a->argv[1], "amt") == 0) {
		struct dsh_kv kv[] = {
			{ .key = "addr", .max = 0xfff, .flags = DSH_KV_REQ, .what = "LLCM Address (12 bits)" },
			{ .key = "wid", .max = 3, .flags = DSH_KV_REQ, .what = "sender WID" },
			{ .key = "lid", .max = 0xffff, .flags = DSH_KV_REQ, .what = "sender LID" },
		};
		if (dsh_kv_parse(d, a, 2, a->argc, kv, 3) < 0)
			return -1;
		const struct dnet_reg *r = dnet_reg_by_name("amt");
		if (!r)
			return dsh_error(d, "libdnet has no 'amt' register");
		uint64_t w = dnet_amt_word((unsigned)kv[0].val, (unsigned)kv[1].val, (unsigned)kv[2].val);
		if (dsh_reg_write(d, r, w) < 0)
			return -1;
		out_str(d, "register", NULL, "amt");
		out_hex(d, "value", NULL, w);
		return 0;
	}
	return write_orig(d, a, DNET_BLK_SYSTEM);
}

/* ---- reg ---- */

static int reg_list(struct dsh *d)
{
	out_arr_open(d, "registers");
	for (unsigned i = 0; i < d->reg.ndb; i++) {
		const struct dnet_reg *r = &d->reg.db[i];
		char acc[4] = "";
		if (r->access & DNET_ACC_R)
			strcat(acc, "R");
		if (r->access & DNET_ACC_W)
			strcat(acc, "W");
		out_obj_open(d, NULL);
		out_str(d, "name", "%-20s", r->name);
		out_str(d, "block", " %s", block_name(r));
		out_hex(d, "offset", " +0x%03" PRIx64, r->offset);
		out_hex(d, "device_offset", NULL, dnet_reg_addr(r, d->opts.wid));
		out_str(d, "access", " %-2s", acc);
		out_str(d, "title", " %-30s", r->title);
		out_u64(d, "fields", NULL, r->nfields);
		for (unsigned k = 0; k < r->nfields; k++)
			out_str(d, NULL, " %s", r->fields[k].name);
		out_text(d, "\n");
		out_close(d);
	}
	out_close(d);
	return 0;
}

static void trim(char *s)
{
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = 0;
	size_t k = 0;
	while (s[k] == ' ' || s[k] == '\t')
		k++;
	memmove(s, s + k, n - k + 1);
}

/* reg NAME confirm: the one read that acts -- Controller Reset (App. B:
 * any access resets the controller) -- done on purpose, by a privileged
 * process only (the System Register). */
static int reg_read_confirmed(struct dsh *d, const char *name)
{
	const struct dnet_reg *r;
	const struct dnet_field *f;
	if (dsh_parse_regspec(d, name, &r, &f) < 0)
		return -1;
	if (!(r->flags & DNET_RF_READ_EFFECT))
		return dsh_error(d, "'confirm' is only for a register whose read acts (%s reads without effect)",
				 r->name);
	uint64_t v = 0;
	struct dnet_err e = { 0 };
	if (dnet_reg_read_effect(d->dev, d->opts.wid, r, &v, &e) < 0)
		return dsh_derr(d, &e);
	if (r->block == DNET_BLK_SYSTEM && r->offset == DNET_SR_CTL_RESET && dsh_ctl_reset_done(d) < 0)
		return -1; /* reported only when its effect is seen (D-RESET-SEEN) */
	out_str(d, "register", "%s read", r->name);
	out_hex(d, "value", " (value 0x%" PRIx64 ")", v);
	out_bool(d, "acted", NULL, true);
	out_text(d, ": the controller of node %u was reset\n", dnet_node(d->dev));
	dsh_set_last(d, v);
	return 0;
}

/* reg PATTERN: every register whose name matches the shell pattern
 * (fnmatch(3): ctl_*, 'status_*', '*counter*'), one line each; write-only
 * registers show dsh's shadow, a read that acts is not done. */
static int reg_glob(struct dsh *d, const char *pat)
{
	out_arr_open(d, "registers");
	unsigned n = 0;
	for (unsigned i = 0; i < d->reg.ndb; i++) {
		const struct dnet_reg *r = &d->reg.db[i];
		if (fnmatch(pat, r->name, 0) != 0)
			continue;
		n++;
		uint64_t v = 0;
		bool sh = false;
		const char *note = NULL;
		enum dnet_rule rule = dsh_reg_rule(d, r, false, NULL);
		if (rule == DNET_RULE_REG_EFFECT) {
			note = "not read: a read acts";
		} else if (rule == DNET_RULE_REG_WO && !dsh_shadow_of(d, r->name, &v)) {
			note = "write-only, not written by dsh";
		} else if (dsh_reg_read(d, r, &v, &sh) < 0) {
			out_close(d);
			return -1;
		}
		out_obj_open(d, NULL);
		out_str(d, "register", "%-22s", r->name);
		out_hex(d, "device_offset", NULL, dnet_reg_addr(r, d->opts.wid));
		out_str(d, NULL, " %-36s", r->title);
		if (note) {
			out_null(d, "value");
			out_str(d, "note", " (%s)\n", note);
		} else {
			out_hex(d, "value", " = 0x%016" PRIx64, v);
			out_bool(d, "shadow", "  [shadow]", sh);
			out_text(d, "\n");
		}
		out_close(d);
	}
	out_close(d);
	if (!n)
		return dsh_error(d, "no register matches '%s' ('reg' lists them)", pat);
	return 0;
}

int cmd_reg(struct dsh *d, struct dsh_args *a)
{
	if (a->argc == 1)
		return reg_list(d);
	if (a->argc == 2 && strpbrk(a->argv[1], "*?[") && !strchr(a->argv[1], '='))
		return reg_glob(d, a->argv[1]);
	if (a->argc == 3 && strcmp(a->argv[2], "confirm") == 0)
		return reg_read_confirmed(d, a->argv[1]);
	char line[512] = "";
	for (int i = 1; i < a->argc; i++) {
		if (strlen(line) + strlen(a->argv[i]) + 2 >= sizeof(line))
			return dsh_error(d, "arguments too long");
		if (i > 1)
			strcat(line, " ");
		strcat(line, a->argv[i]);
	}
	char *eq = strchr(line, '=');
	char *val = NULL;
	if (eq) {
		*eq = 0;
		val = eq + 1;
		trim(val);
		if (!*val)
			return dsh_error(d, "missing value after '='");
		if (strchr(val, ' '))
			return dsh_error(d, "bad value '%s' (one number)", val);
	}
	trim(line);
	if (!*line || strchr(line, ' '))
		return dsh_error(d, "usage: reg [NAME[.FIELD] [= VALUE]]");
	const struct dnet_reg *r;
	const struct dnet_field *f;
	if (dsh_parse_regspec(d, line, &r, &f) < 0)
		return -1;
	out_str(d, "register", NULL, r->name);
	if (f)
		out_str(d, "field", NULL, f->name);
	out_str(d, "title", NULL, r->title);
	out_hex(d, "device_offset", NULL, dnet_reg_addr(r, d->opts.wid));
	uint32_t addr = dnet_reg_addr(r, d->opts.wid);

	if (!val) {
		uint64_t v = 0;
		bool sh = false;
		/* Reserved bits set: the command fails (the error names them), and
		 * the raw value is still shown beside its decode. */
		bool bad = dsh_reg_read(d, r, &v, &sh) < 0;
		if (bad && !(v & ~r->valid_mask))
			return -1;
		out_hex(d, "value", NULL, v);
		out_bool(d, "shadow", NULL, sh);
		const char *note = sh ? "  [shadow: last value written by dsh; the register is write-only]" : "";
		if (f) {
			uint64_t fv = dnet_field_get(f, v);
			char mb[128];
			const char *m = dnet_field_meaning(f, fv, mb, sizeof(mb));
			out_text(d, "%s.%s = 0x%" PRIx64, r->name, f->name, fv);
			if (f->width > 52)
				out_hex(d, "field_value", " (%" PRIu64 ")", fv);
			else
				out_u64(d, "field_value", " (%" PRIu64 ")", fv);
			if (m)
				out_str(d, "meaning", " %s", m);
			out_text(d, "%s", note);
			if (bad)
				out_text(d, "  [raw 0x%016" PRIx64 ": reserved bits set]", v);
			out_text(d, "\n");
			if (bad)
				return -1;
			dsh_set_last(d, fv);
			return 0;
		}
		out_text(d, "%s (%s) %s+0x%03" PRIx32 " @0x%05" PRIx32 " = 0x%016" PRIx64 "%s%s\n", r->name, r->title,
			 block_name(r), r->offset, addr, v, note, bad ? "  [raw: reserved bits set]" : "");
		out_fields(d, r, v, NULL);
		if (bad)
			return -1;
		dsh_set_last(d, v);
		return 0;
	}

	uint64_t nv;
	if (dsh_num_str(d, val, UINT64_MAX, "value", &nv) < 0)
		return -1;
	struct dnet_err re = { 0 };
	if (dsh_reg_rule(d, r, true, &re) != DNET_RULE_NONE)
		return dsh_derr(d, &re);
	uint64_t w = nv;
	bool base_shadow = false, base_none = false;
	if (f) {
		uint64_t base = 0;
		if (dsh_reg_readable(d, r)) {
			bool sh;
			if (dsh_reg_read(d, r, &base, &sh) < 0)
				return -1;
		} else {
			struct dsh_shadow *s = dsh_shadow(d);
			unsigned i = dsh_reg_index(d, r), sw = dsh_shadow_wid(d, r);
			if (s && s->reg_has[sw][i]) {
				base = s->reg[sw][i];
				base_shadow = true;
			} else {
				base_none = true;
			}
		}
		struct dnet_err e = { 0 };
		w = base;
		if (dnet_field_set(f, &w, nv, &e) < 0)
			return dsh_derr(d, &e);
	} else if (nv & ~r->valid_mask && !(r->flags & DNET_RF_ANY_VALUE)) {
		return dsh_error(d, "value 0x%" PRIx64 " has bits outside %s (valid mask 0x%" PRIx64 ")",
				 nv, r->name, r->valid_mask);
	}
	if (dsh_reg_write(d, r, w) < 0)
		return -1;
	out_hex(d, "written", NULL, w);
	if (base_shadow)
		out_str(d, "base", NULL, "shadow");
	else if (base_none)
		out_str(d, "base", NULL, "none");
	if (f)
		out_text(d, "%s.%s = 0x%" PRIx64 " -> %s = 0x%016" PRIx64 "%s\n", r->name, f->name, nv, r->name, w,
			 base_shadow ? " (other fields from dsh's shadow)" :
			 base_none ? " (no shadow: other fields written as 0)" : "");
	else
		out_text(d, "%s = 0x%016" PRIx64 "\n", r->name, w);
	if (dsh_reg_readable(d, r)) {
		uint64_t rb;
		bool sh;
		if (dsh_reg_read(d, r, &rb, &sh) < 0)
			return -1;
		out_hex(d, "readback", "read back: 0x%016" PRIx64 "\n", rb);
	}
	dsh_set_last(d, w);
	return 0;
}

