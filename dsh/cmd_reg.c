/* dsh: registers — ureg_read/ureg_write/sreg_read/sreg_write (original
 * formats), reg (by name, field decode, read-modify-write), snapshot/diff,
 * watch, and the decoders of receive-status and LH Buffer entries.
 *
 * Write-only registers cannot be read back; dsh keeps a shadow of the last
 * value it wrote to each (per node and WID) and always says when a value
 * shown is a shadow.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "dsh.h"

/* ---- shadows and register access ---- */

struct dsh_shadow *dsh_shadow(struct dsh *d)
{
	unsigned node = dnet_node(d->dev);
	if (node == 0 || node > d->nshadow)
		return NULL;
	struct dsh_shadow **slot = &d->shadow[node - 1];
	if (!*slot) {
		struct dsh_shadow *s = calloc(1, sizeof(*s));
		if (!s)
			return NULL;
		for (unsigned w = 0; w < DNET_NWID; w++) {
			s->reg[w] = calloc(d->nregs, sizeof(uint64_t));
			s->reg_has[w] = calloc(d->nregs, sizeof(bool));
			if (!s->reg[w] || !s->reg_has[w]) {
				for (unsigned k = 0; k <= w; k++) {
					free(s->reg[k]);
					free(s->reg_has[k]);
				}
				free(s);
				return NULL;
			}
		}
		*slot = s;
	}
	return *slot;
}

unsigned dsh_reg_index(struct dsh *d, const struct dnet_reg *r)
{
	return (unsigned)(r - d->regs);
}

static unsigned shadow_wid(struct dsh *d, const struct dnet_reg *r)
{
	return r->block == DNET_BLK_USER ? d->wid : 0;
}

static bool reg_readable(const struct dnet_reg *r)
{
	return (r->access & DNET_ACC_R) && !(r->flags & DNET_RF_READ_EFFECT);
}

int dsh_reg_read(struct dsh *d, const struct dnet_reg *r, uint64_t *v, bool *shadow)
{
	struct dnet_err e = { 0 };
	*shadow = false;
	if (r->flags & DNET_RF_READ_EFFECT)
		return dsh_error(d, "reading %s would %s; refused", r->name,
				 r->desc ? r->desc : "have a side effect");
	if (r->access & DNET_ACC_R) {
		if (dnet_reg_read(d->dev, d->wid, r, v, &e) < 0)
			return dsh_derr(d, &e);
		return 0;
	}
	struct dsh_shadow *s = dsh_shadow(d);
	unsigned i = dsh_reg_index(d, r), w = shadow_wid(d, r);
	if (!s || !s->reg_has[w][i])
		return dsh_error(d, "%s is write-only and dsh has not written it on node %u (no shadow)",
				 r->name, dnet_node(d->dev));
	*v = s->reg[w][i];
	*shadow = true;
	return 0;
}

int dsh_reg_write(struct dsh *d, const struct dnet_reg *r, uint64_t v)
{
	struct dnet_err e = { 0 };
	if (!(r->access & DNET_ACC_W))
		return dsh_error(d, "%s is read-only", r->name);
	if (dnet_reg_write(d->dev, d->wid, r, v, &e) < 0)
		return dsh_derr(d, &e);
	struct dsh_shadow *s = dsh_shadow(d);
	if (!s)
		return 0;
	if (r->block == DNET_BLK_SYSTEM && r->offset == DNET_SR_CTL_RESET) {
		/* the controller reset its registers: forget the shadows of this node */
		for (unsigned w = 0; w < DNET_NWID; w++) {
			memset(s->reg_has[w], 0, d->nregs * sizeof(bool));
			memset(s->ww_known[w], 0, sizeof(s->ww_known[w]));
		}
		return 0;
	}
	unsigned i = dsh_reg_index(d, r), w = shadow_wid(d, r);
	s->reg[w][i] = v;
	s->reg_has[w][i] = true;
	return 0;
}

const struct dnet_reg *dsh_reg_at(unsigned block, uint32_t off, unsigned acc)
{
	return dnet_reg_at((enum dnet_reg_block)block, off, acc);
}

int dsh_parse_regspec(struct dsh *d, const char *spec, const struct dnet_reg **r,
		      const struct dnet_field **f)
{
	struct dnet_err e = { 0 };
	if (dnet_reg_parse(spec, r, f, &e) < 0)
		return dsh_derr(d, &e);
	return 0;
}

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

static void modstate_listing(struct dsh *d, uint64_t v)
{
	char buf[64];
	cJSON *st = d->json ? cJSON_AddObjectToObject(d->res, "states") : NULL;
	for (unsigned f = 0; f < DNET_FSM_COUNT; f++) {
		const char *name = dnet_modstate_name(v, (enum dnet_fsm)f, buf, sizeof(buf));
		const struct dnet_fsm_info *fi = dnet_fsm_info((enum dnet_fsm)f);
		if (st) {
			jstr(st, fi && fi->label ? fi->label : fsm_labels[f], name);
			continue;
		}
		if (f == DNET_FSM_WC_ACCEPTER)
			printf("Window Controller\n");
		if (f <= DNET_FSM_WC_EXECUTER)
			printf("    %s : %s\n", fsm_labels[f], name);
		else
			printf("%-26s%s\n", fsm_labels[f], name);
	}
}

static void counter_listing(struct dsh *d, uint64_t v)
{
	cJSON *c = d->json ? cJSON_AddObjectToObject(d->res, "counters") : NULL;
	for (unsigned f = 0; f < DNET_FAMILY_COUNT; f++) {
		uint64_t n = (v >> DNET_PC_SHIFT(f)) & ((1u << DNET_PC_BITS) - 1);
		const char *name = dnet_family_name((enum dnet_family)f);
		if (c)
			jnum(c, name, n);
		else
			printf("%-5s : %" PRIu64 "\n", name, n);
	}
}

/* Print one register the original way: banner, header, word. */
static void print_reg_orig(struct dsh *d, const struct dnet_reg *r, uint64_t v)
{
	jstr(out_res(d), "register", r->name);
	out_banner(d, r->title);
	out_dump_header(d);
	out_regword(d, dnet_reg_addr(r, d->wid), v);
	if (d->json)
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
	if (!(r->access & DNET_ACC_R))
		return dsh_error(d, "%s is write-only (use %s_write, or 'reg %s' for dsh's shadow)",
				 r->name, block_name(r), r->name);
	uint64_t v;
	bool sh;
	if (dsh_reg_read(d, r, &v, &sh) < 0)
		return -1;
	print_reg_orig(d, r, v);
	if (r->block == DNET_BLK_USER && r->offset == DNET_UR_MODULE_STATE)
		modstate_listing(d, v);
	else if (r->block == DNET_BLK_USER && r->offset == DNET_UR_PRIM_COUNTER)
		counter_listing(d, v);
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
	if (!(r->access & DNET_ACC_W))
		return dsh_error(d, "%s is read-only (use %s_read)", r->name, block_name(r));
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
	jstr(out_res(d), "register", r->name);
	jhex(out_res(d), "value", v);
	jhex(out_res(d), "device_offset", dnet_reg_addr(r, d->wid));
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
		jstr(out_res(d), "register", "amt");
		jhex(out_res(d), "value", w);
		return 0;
	}
	return write_orig(d, a, DNET_BLK_SYSTEM);
}

/* ---- reg ---- */

static int reg_list(struct dsh *d)
{
	cJSON *arr = d->json ? cJSON_AddArrayToObject(d->res, "registers") : NULL;
	for (unsigned i = 0; i < d->nregs; i++) {
		const struct dnet_reg *r = &d->regs[i];
		char acc[4] = "";
		if (r->access & DNET_ACC_R)
			strcat(acc, "R");
		if (r->access & DNET_ACC_W)
			strcat(acc, "W");
		if (arr) {
			cJSON *o = cJSON_CreateObject();
			jstr(o, "name", r->name);
			jstr(o, "title", r->title);
			jstr(o, "block", block_name(r));
			jhex(o, "offset", r->offset);
			jhex(o, "device_offset", dnet_reg_addr(r, d->wid));
			jstr(o, "access", acc);
			jnum(o, "fields", r->nfields);
			cJSON_AddItemToArray(arr, o);
			continue;
		}
		printf("%-20s %s +0x%03" PRIx32 " %-2s %-30s", r->name, block_name(r), r->offset, acc, r->title);
		for (unsigned k = 0; k < r->nfields; k++)
			printf(" %s", r->fields[k].name);
		printf("\n");
	}
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

int cmd_reg(struct dsh *d, struct dsh_args *a)
{
	if (a->argc == 1)
		return reg_list(d);
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
	cJSON *res = out_res(d);
	jstr(res, "register", r->name);
	if (f)
		jstr(res, "field", f->name);
	jstr(res, "title", r->title);
	jhex(res, "device_offset", dnet_reg_addr(r, d->wid));
	uint32_t addr = dnet_reg_addr(r, d->wid);

	if (!val) {
		uint64_t v;
		bool sh;
		if (dsh_reg_read(d, r, &v, &sh) < 0)
			return -1;
		jhex(res, "value", v);
		jbool(res, "shadow", sh);
		const char *note = sh ? "  [shadow: last value written by dsh; the register is write-only]" : "";
		if (f) {
			uint64_t fv = dnet_field_get(f, v);
			char mb[128];
			const char *m = dnet_field_meaning(f, fv, mb, sizeof(mb));
			if (f->width > 52)
				jhex(res, "field_value", fv);
			else
				jnum(res, "field_value", fv);
			if (m)
				jstr(res, "meaning", m);
			out_text(d, "%s.%s = 0x%" PRIx64 " (%" PRIu64 ")%s%s%s%s\n", r->name, f->name, fv, fv,
				 m ? " " : "", m ? m : "", note, "");
			dsh_set_last(d, fv);
			return 0;
		}
		out_text(d, "%s (%s) %s+0x%03" PRIx32 " @0x%05" PRIx32 " = 0x%016" PRIx64 "%s\n", r->name, r->title,
			 block_name(r), r->offset, addr, v, note);
		out_fields(d, r, v, NULL);
		dsh_set_last(d, v);
		return 0;
	}

	uint64_t nv;
	if (dsh_num_str(d, val, UINT64_MAX, "value", &nv) < 0)
		return -1;
	if (!(r->access & DNET_ACC_W))
		return dsh_error(d, "%s is read-only", r->name);
	uint64_t w = nv;
	bool base_shadow = false, base_none = false;
	if (f) {
		uint64_t base = 0;
		if (reg_readable(r)) {
			bool sh;
			if (dsh_reg_read(d, r, &base, &sh) < 0)
				return -1;
		} else {
			struct dsh_shadow *s = dsh_shadow(d);
			unsigned i = dsh_reg_index(d, r), sw = shadow_wid(d, r);
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
	jhex(res, "written", w);
	if (base_shadow)
		jstr(res, "base", "shadow");
	else if (base_none)
		jstr(res, "base", "none");
	if (f)
		out_text(d, "%s.%s = 0x%" PRIx64 " -> %s = 0x%016" PRIx64 "%s\n", r->name, f->name, nv, r->name, w,
			 base_shadow ? " (other fields from dsh's shadow)" :
			 base_none ? " (no shadow: other fields written as 0)" : "");
	else
		out_text(d, "%s = 0x%016" PRIx64 "\n", r->name, w);
	if (reg_readable(r)) {
		uint64_t rb;
		bool sh;
		if (dsh_reg_read(d, r, &rb, &sh) < 0)
			return -1;
		jhex(res, "readback", rb);
		out_text(d, "read back: 0x%016" PRIx64 "\n", rb);
	}
	dsh_set_last(d, w);
	return 0;
}

/* ---- snapshot / diff ---- */

static void snap_free(struct dsh_snap *s)
{
	free(s->name);
	free(s->val);
	free(s->has);
	free(s);
}

void dsh_snaps_free(struct dsh *d)
{
	struct dsh_snap *s = d->snaps;
	while (s) {
		struct dsh_snap *n = s->next;
		snap_free(s);
		s = n;
	}
	d->snaps = NULL;
}

/* Read every readable register; NULL (the error set) if one cannot be read:
 * a snapshot is complete or not taken. */
static struct dsh_snap *snap_take(struct dsh *d, const char *name)
{
	struct dsh_snap *s = calloc(1, sizeof(*s));
	if (!s) {
		dsh_error(d, "out of memory");
		return NULL;
	}
	s->name = strdup(name);
	s->val = calloc(d->nregs, sizeof(uint64_t));
	s->has = calloc(d->nregs, sizeof(bool));
	if (!s->name || !s->val || !s->has) {
		snap_free(s);
		dsh_error(d, "out of memory");
		return NULL;
	}
	s->node = dnet_node(d->dev);
	s->wid = d->wid;
	struct dsh_shadow *sh = dsh_shadow(d);
	for (unsigned i = 0; i < d->nregs; i++) {
		const struct dnet_reg *r = &d->regs[i];
		struct dnet_err e = { 0 };
		if (reg_readable(r)) {
			if (r->block == DNET_BLK_SYSTEM && !(d->caps & DNET_CAP_PRIVILEGED))
				continue;
			if (dnet_reg_read(d->dev, d->wid, r, &s->val[i], &e) < 0) {
				dsh_error(d, "cannot read %s: %s", r->name, e.msg[0] ? e.msg : dnet_strerror(e.code));
				snap_free(s);
				return NULL;
			}
			s->has[i] = true;
		} else if (!(r->access & DNET_ACC_R) && sh && !(r->flags & (DNET_RF_KICK | DNET_RF_ANY_VALUE))) {
			unsigned w = shadow_wid(d, r);
			if (sh->reg_has[w][i]) {
				s->val[i] = sh->reg[w][i];
				s->has[i] = true;
			}
		}
	}
	return s;
}

static struct dsh_snap *snap_find(struct dsh *d, const char *name)
{
	for (struct dsh_snap *s = d->snaps; s; s = s->next)
		if (strcmp(s->name, name) == 0)
			return s;
	return NULL;
}

int cmd_snapshot(struct dsh *d, struct dsh_args *a)
{
	if (a->argc != 2)
		return dsh_error(d, "usage: snapshot NAME");
	if (!a->argv[1][0])
		return dsh_error(d, "argument 1: empty snapshot name");
	struct dsh_snap *s = snap_take(d, a->argv[1]);
	if (!s)
		return -1;
	struct dsh_snap **pp = &d->snaps;
	while (*pp) {
		if (strcmp((*pp)->name, s->name) == 0) {
			struct dsh_snap *old = *pp;
			*pp = old->next;
			snap_free(old);
			break;
		}
		pp = &(*pp)->next;
	}
	s->next = d->snaps;
	d->snaps = s;
	unsigned n = 0;
	for (unsigned i = 0; i < d->nregs; i++)
		n += s->has[i];
	jstr(out_res(d), "snapshot", s->name);
	jnum(out_res(d), "registers", n);
	out_text(d, "snapshot %s: %u registers of node %u WID %u\n", s->name, n, s->node, s->wid);
	return 0;
}

int cmd_diff(struct dsh *d, struct dsh_args *a)
{
	if (a->argc < 2 || a->argc > 3)
		return dsh_error(d, "usage: diff A [B]");
	struct dsh_snap *A = snap_find(d, a->argv[1]), *B, *tmp = NULL;
	if (!A)
		return dsh_error(d, "argument 1: no snapshot '%s'", a->argv[1]);
	if (a->argc == 3) {
		B = snap_find(d, a->argv[2]);
		if (!B)
			return dsh_error(d, "argument 2: no snapshot '%s'", a->argv[2]);
	} else {
		B = tmp = snap_take(d, "(now)");
		if (!B)
			return -1;
	}
	cJSON *arr = d->json ? cJSON_AddArrayToObject(d->res, "changes") : NULL;
	unsigned n = 0;
	for (unsigned i = 0; i < d->nregs; i++) {
		const struct dnet_reg *r = &d->regs[i];
		if (A->has[i] == B->has[i] && (!A->has[i] || A->val[i] == B->val[i]))
			continue;
		n++;
		if (arr) {
			cJSON *o = cJSON_CreateObject();
			jstr(o, "register", r->name);
			if (A->has[i])
				jhex(o, "a", A->val[i]);
			else
				cJSON_AddNullToObject(o, "a");
			if (B->has[i])
				jhex(o, "b", B->val[i]);
			else
				cJSON_AddNullToObject(o, "b");
			if (A->has[i] && B->has[i]) {
				cJSON *fo = cJSON_AddObjectToObject(o, "fields");
				for (unsigned k = 0; k < r->nfields; k++) {
					const struct dnet_field *f = &r->fields[k];
					uint64_t x = dnet_field_get(f, A->val[i]), y = dnet_field_get(f, B->val[i]);
					if (x == y)
						continue;
					cJSON *p = cJSON_CreateArray();
					char b1[24], b2[24];
					cJSON_AddItemToArray(p, cJSON_CreateString(hexstr(b1, sizeof(b1), x)));
					cJSON_AddItemToArray(p, cJSON_CreateString(hexstr(b2, sizeof(b2), y)));
					cJSON_AddItemToObject(fo, f->name, p);
				}
			}
			cJSON_AddItemToArray(arr, o);
			continue;
		}
		char sa[24] = "(none)", sb[24] = "(none)";
		if (A->has[i])
			snprintf(sa, sizeof(sa), "0x%016" PRIx64, A->val[i]);
		if (B->has[i])
			snprintf(sb, sizeof(sb), "0x%016" PRIx64, B->val[i]);
		printf("%-20s %s -> %s\n", r->name, sa, sb);
		if (A->has[i] && B->has[i])
			for (unsigned k = 0; k < r->nfields; k++) {
				const struct dnet_field *f = &r->fields[k];
				uint64_t x = dnet_field_get(f, A->val[i]), y = dnet_field_get(f, B->val[i]);
				if (x != y)
					printf("  .%-18s 0x%" PRIx64 " -> 0x%" PRIx64 "\n", f->name, x, y);
			}
	}
	jnum(out_res(d), "differences", n);
	out_text(d, "%u register%s differ%s\n", n, n == 1 ? "" : "s", n == 1 ? "s" : "");
	dsh_set_last(d, n);
	if (tmp)
		snap_free(tmp);
	return 0;
}

/* ---- watch ---- */

int cmd_watch(struct dsh *d, struct dsh_args *a)
{
	if (a->argc < 2 || a->argc > 4)
		return dsh_error(d, "usage: watch REG[.FIELD] [INTERVAL] [COUNT]");
	const struct dnet_reg *r;
	const struct dnet_field *f;
	if (dsh_parse_regspec(d, a->argv[1], &r, &f) < 0)
		return -1;
	if (!reg_readable(r))
		return dsh_error(d, "%s cannot be read (write-only or read side effect)", r->name);
	uint64_t interval = 1000000, count = 10;
	if (a->argc >= 3) {
		struct dnet_err e = { 0 };
		if (dnet_parse_duration(a->argv[2], &interval, "interval", &e) < 0)
			return dsh_error(d, "argument 2: %s", e.msg);
	}
	if (a->argc >= 4 && dsh_num(d, a, 3, 1000000, "count", &count) < 0)
		return -1;
	if (count == 0)
		return dsh_error(d, "argument 3: count must be at least 1");
	cJSON *arr = d->json ? cJSON_AddArrayToObject(d->res, "samples") : NULL;
	uint64_t t0 = 0, prev = 0;
	if (dsh_now(d, &t0) < 0)
		return -1;
	for (uint64_t i = 0; i < count; i++) {
		uint64_t v, t;
		struct dnet_err e = { 0 };
		if (dnet_reg_read(d->dev, d->wid, r, &v, &e) < 0)
			return dsh_derr(d, &e);
		if (f)
			v = dnet_field_get(f, v);
		if (dsh_now(d, &t) < 0)
			return -1;
		if (arr) {
			cJSON *o = cJSON_CreateObject();
			jnum(o, "t_ns", t - t0);
			jhex(o, "value", v);
			cJSON_AddItemToArray(arr, o);
		} else {
			printf("%c t=+%.3fus %s%s%s = 0x%" PRIx64 "\n", (i && v != prev) ? '*' : ' ',
			       (double)(t - t0) / 1000.0, r->name, f ? "." : "", f ? f->name : "", v);
			fflush(stdout);
		}
		prev = v;
		dsh_set_last(d, v);
		if (i + 1 < count && dsh_interrupted(d))
			return dsh_error(d, "interrupted after %" PRIu64 " of %" PRIu64 " samples", i + 1, count);
		if (i + 1 < count) {
			if (dnet_delay(d->dev, interval, &e) < 0)
				return dsh_derr(d, &e);
		}
	}
	return 0;
}

/* ---- receive status and LH Buffer decoders ---- */

static void print_status(struct dsh *d, cJSON *o, uint32_t off, uint64_t lo, uint64_t hi)
{
	(void)d;
	struct dnet_status s;
	dnet_status_decode(lo, hi, &s);
	const struct dnet_otype_info *oi = dnet_otype_info(s.otype);
	const char *tn = oi ? oi->name : "?";
	if (o) {
		jhex(o, "offset", off);
		jhex(o, "lower", lo);
		jhex(o, "upper", hi);
		jstr(o, "type", tn);
		jnum(o, "otype", s.otype);
		jnum(o, "dtype", s.dtype);
		jnum(o, "iter", s.iter);
		jnum(o, "swid", s.swid);
		jnum(o, "sclid", s.sclid);
		jnum(o, "eflag", s.eflag);
		jnum(o, "size", s.size);
		jhex(o, "addr", s.addr);
		jhex(o, "aux", s.aux);
		return;
	}
	printf("status @0x%04" PRIx32 ": %-5s from clid %u wid %u size %" PRIu32 " addr 0x%" PRIx32
	       " dtype %u iter %u eflag %u aux 0x%" PRIx32 "\n",
	       off, tn, s.sclid, s.swid, s.size, s.addr, s.dtype, s.iter, s.eflag, s.aux);
}

static int read_words(struct dsh *d, enum dnet_region reg, uint32_t off, uint64_t *w, unsigned n)
{
	uint32_t addr;
	struct dnet_err e = { 0 };
	if (dnet_region_addr(reg, d->wid, off, n * 8, &addr, &e) < 0)
		return dsh_derr(d, &e);
	if (dnet_read_block(d->dev, addr, w, n * 8, &e) < 0)
		return dsh_derr(d, &e);
	return 0;
}

static bool shadow_of(struct dsh *d, const char *name, uint64_t *v)
{
	const struct dnet_reg *r = dnet_reg_by_name(name);
	struct dsh_shadow *s = dsh_shadow(d);
	if (!r || !s)
		return false;
	unsigned i = dsh_reg_index(d, r), w = shadow_wid(d, r);
	if (!s->reg_has[w][i])
		return false;
	*v = s->reg[w][i];
	return true;
}

int cmd_status(struct dsh *d, struct dsh_args *a)
{
	if (a->argc > 2)
		return dsh_error(d, "usage: status [OFFSET | ring]");
	cJSON *arr = d->json ? cJSON_AddArrayToObject(d->res, "entries") : NULL;
	if (a->argc == 2 && strcmp(a->argv[1], "ring") != 0) {
		uint64_t off;
		if (dsh_num(d, a, 1, DNET_LLCM_SIZE - DNET_STATUS_SIZE, "LLCM offset", &off) < 0)
			return -1;
		if (off % DNET_STATUS_SIZE)
			return dsh_error(d, "argument 1: offset 0x%" PRIx64 " is not a multiple of 16", off);
		uint64_t w[2];
		if (read_words(d, DNET_REG_LLCM, (uint32_t)off, w, 2) < 0)
			return -1;
		cJSON *o = arr ? cJSON_CreateObject() : NULL;
		print_status(d, o, (uint32_t)off, w[0], w[1]);
		if (o)
			cJSON_AddItemToArray(arr, o);
		return 0;
	}
	uint64_t init = 0, code = 0, head, tail;
	bool have_init = shadow_of(d, "status_initial_addr", &init);
	shadow_of(d, "status_area_size", &code);
	uint32_t size = dnet_status_area_bytes(code);
	const struct dnet_reg *tr = dnet_reg_by_name("status_nwa");
	struct dnet_err e = { 0 };
	if (!tr)
		return dsh_error(d, "libdnet has no status_nwa register");
	if (dnet_reg_read(d->dev, d->wid, tr, &tail, &e) < 0)
		return dsh_derr(d, &e);
	bool have_head = shadow_of(d, "status_nra", &head);
	if (!have_head)
		head = init;
	jhex(out_res(d), "ring_start", init);
	jnum(out_res(d), "ring_size", size);
	jhex(out_res(d), "head", head);
	jhex(out_res(d), "tail", tail);
	out_text(d, "status ring: start 0x%04" PRIx64 "%s size %" PRIu32 " head 0x%04" PRIx64 "%s tail 0x%04" PRIx64 "\n",
		 init, have_init ? "" : " (not set by dsh: assumed)", size, head,
		 have_head ? "" : " (not set by dsh: ring start)", tail);
	unsigned n = 0;
	uint64_t p = head;
	while (p != tail && n < 256) {
		if (p < init || p + DNET_STATUS_SIZE > init + size || p + DNET_STATUS_SIZE > DNET_LLCM_SIZE)
			return dsh_error(d, "head 0x%" PRIx64 " outside the ring [0x%" PRIx64 ", 0x%" PRIx64 ")",
					 p, init, init + size);
		uint64_t w[2];
		if (read_words(d, DNET_REG_LLCM, (uint32_t)p, w, 2) < 0)
			return -1;
		cJSON *o = arr ? cJSON_CreateObject() : NULL;
		print_status(d, o, (uint32_t)p, w[0], w[1]);
		if (o)
			cJSON_AddItemToArray(arr, o);
		n++;
		p += DNET_STATUS_SIZE;
		if (p >= init + size)
			p = init;
	}
	out_text(d, "%u entr%s\n", n, n == 1 ? "y" : "ies");
	dsh_set_last(d, n);
	return 0;
}

static void print_lh(struct dsh *d, cJSON *o, unsigned idx, const uint64_t line[8])
{
	(void)d;
	struct dnet_lh_entry e;
	dnet_lh_decode(line, &e);
	char data[DNET_LH_DATA_BYTES * 2 + 1];
	for (unsigned i = 0; i < DNET_LH_DATA_BYTES; i++)
		snprintf(data + 2 * i, 3, "%02x", e.data[i]);
	if (o) {
		jnum(o, "index", idx);
		jhex(o, "pointer", e.pointer);
		jnum(o, "size", e.size);
		jnum(o, "context", e.context);
		jnum(o, "rank", e.rank);
		jnum(o, "tag", e.tag);
		jnum(o, "valid", e.valid);
		jnum(o, "complete", e.complete);
		jstr(o, "data", data);
		return;
	}
	printf("lh[%2u] @0x%03x: valid %u complete %u context %u rank %u tag 0x%" PRIx32
	       " size %" PRIu32 " pointer 0x%" PRIx32 "\n", idx, idx * DNET_LHB_ENTRY, e.valid, e.complete,
	       e.context, e.rank, e.tag, e.size, e.pointer);
	printf("        data %.32s %.32s %.32s\n", data, data + 32, data + 64);
}

int cmd_lh(struct dsh *d, struct dsh_args *a)
{
	if (a->argc > 2)
		return dsh_error(d, "usage: lh [INDEX | ring]");
	cJSON *arr = d->json ? cJSON_AddArrayToObject(d->res, "entries") : NULL;
	if (a->argc == 2 && strcmp(a->argv[1], "ring") != 0) {
		uint64_t idx;
		if (dsh_num(d, a, 1, DNET_LHB_ENTRIES - 1, "entry index", &idx) < 0)
			return -1;
		uint64_t w[8];
		if (read_words(d, DNET_REG_LHB, (uint32_t)idx * DNET_LHB_ENTRY, w, 8) < 0)
			return -1;
		cJSON *o = arr ? cJSON_CreateObject() : NULL;
		print_lh(d, o, (unsigned)idx, w);
		if (o)
			cJSON_AddItemToArray(arr, o);
		return 0;
	}
	uint64_t head = 0, tail;
	bool have_head = shadow_of(d, "evpbuf_nra", &head);
	const struct dnet_reg *tr = dnet_reg_by_name("evpbuf_nwa");
	struct dnet_err e = { 0 };
	if (!tr)
		return dsh_error(d, "libdnet has no evpbuf_nwa register");
	if (dnet_reg_read(d->dev, d->wid, tr, &tail, &e) < 0)
		return dsh_derr(d, &e);
	jhex(out_res(d), "head", head);
	jhex(out_res(d), "tail", tail);
	out_text(d, "LH ring: head 0x%03" PRIx64 "%s tail 0x%03" PRIx64 "\n", head,
		 have_head ? "" : " (not set by dsh: 0)", tail);
	unsigned n = 0;
	uint64_t p = head % DNET_LHB_SIZE;
	while (p != tail % DNET_LHB_SIZE && n < DNET_LHB_ENTRIES) {
		uint64_t w[8];
		if (read_words(d, DNET_REG_LHB, (uint32_t)p, w, 8) < 0)
			return -1;
		cJSON *o = arr ? cJSON_CreateObject() : NULL;
		print_lh(d, o, (unsigned)(p / DNET_LHB_ENTRY), w);
		if (o)
			cJSON_AddItemToArray(arr, o);
		n++;
		p = (p + DNET_LHB_ENTRY) % DNET_LHB_SIZE;
	}
	out_text(d, "%u entr%s\n", n, n == 1 ? "y" : "ies");
	dsh_set_last(d, n);
	return 0;
}

/* ---- decode (no device access) ---- */

static int words(struct dsh *d, struct dsh_args *a, int from, uint64_t *w, int min, int max)
{
	int n = a->argc - from;
	if (n < min || n > max) {
		if (min == max)
			return dsh_error(d, "%s %s takes %d word%s, got %d", a->argv[0], a->argv[1], min,
					 min == 1 ? "" : "s", n);
		return dsh_error(d, "%s %s takes %d to %d words, got %d", a->argv[0], a->argv[1], min, max, n);
	}
	for (int i = 0; i < n; i++)
		if (dsh_num(d, a, from + i, UINT64_MAX, "word", &w[i]) < 0)
			return -1;
	return n;
}

static void print_req(struct dsh *d, const struct dnet_req *r)
{
	const struct dnet_otype_info *oi = dnet_otype_info(r->otype);
	cJSON *o = out_res(d);
	if (o) {
		jstr(o, "prim", oi ? oi->name : "?");
		jnum(o, "otype", r->otype);
		jnum(o, "dtype", r->dtype);
		jnum(o, "iter", r->iter);
		jnum(o, "dwid", r->dwid);
		jnum(o, "dclid", r->dclid);
		jnum(o, "eflag", r->eflag);
		jhex(o, "size", r->size);
		jhex(o, "src", r->srcoff);
		jhex(o, "dst", r->dstoff);
		if (r->has_ex) {
			cJSON *x = cJSON_AddObjectToObject(o, "ex");
			jnum(x, "otype", r->ex.otype);
			jnum(x, "dtype", r->ex.dtype);
			jnum(x, "iter", r->ex.iter);
			jhex(x, "size", r->ex.size);
		}
		return;
	}
	printf("%s (otype 0x%02x) dt=%u it=%u dw=%u dl=%u ef=%u size=0x%" PRIx32 " src=0x%" PRIx32 " dst=0x%" PRIx32 "\n",
	       oi ? oi->name : "?", r->otype, r->dtype, r->iter, r->dwid, r->dclid, r->eflag,
	       r->size, r->srcoff, r->dstoff);
	if (r->has_ex)
		printf("  ex: otype 0x%02x dt=%u it=%u size=0x%" PRIx32 "\n", r->ex.otype, r->ex.dtype,
		       r->ex.iter, r->ex.size);
}

static void print_hdr(struct dsh *d, const struct dnet_pkt_hdr *h)
{
	const struct dnet_otype_info *oi = dnet_otype_info(h->type);
	cJSON *o = out_res(d);
	if (o) {
		jstr(o, "type_name", oi ? oi->name : "?");
		jnum(o, "size", h->size);
		jnum(o, "type", h->type);
		jnum(o, "pgid", h->pgid);
		jnum(o, "dwid", h->dwid);
		jnum(o, "swid", h->swid);
		jhex(o, "dlid", h->dlid);
		jnum(o, "dtype", h->dtype);
		jnum(o, "iter", h->iter);
		jnum(o, "rflag", h->rflag);
		jnum(o, "eflag", h->eflag);
		jnum(o, "hflag", h->hflag);
		jnum(o, "lflag", h->lflag);
		jhex(o, "src_or_init_dst", h->src_or_init_dst);
		jhex(o, "dstoff", h->dstoff);
		jhex(o, "total", h->total);
		jhex(o, "stride_list", h->stride_list);
		jnum(o, "lines", dnet_hdr_lines(h));
		return;
	}
	printf("%s size %u pgid %u dlid 0x%x dwid %u swid %u dtype %u iter %u rflag %u eflag %u hflag %u lflag %u\n",
	       oi ? oi->name : "?", h->size, h->pgid, h->dlid, h->dwid, h->swid, h->dtype, h->iter,
	       h->rflag, h->eflag, h->hflag, h->lflag);
	printf("  dw2: src/init_dst 0x%" PRIx32 " dstoff 0x%" PRIx32 "  dw3: total %" PRIu32 " stride/list 0x%" PRIx32
	       "  (%u header lines)\n", h->src_or_init_dst, h->dstoff, h->total, h->stride_list, dnet_hdr_lines(h));
}

int cmd_decode(struct dsh *d, struct dsh_args *a)
{
	if (a->argc < 3)
		return dsh_error(d, "usage: decode req|hdr|status|lh|REG WORD...");
	const char *what = a->argv[1];
	uint64_t w[8] = { 0 };
	int n;
	if (strcmp(what, "req") == 0) {
		if ((n = words(d, a, 2, w, 1, 3)) < 0)
			return -1;
		if ((w[0] & 0x1f) == DNET_OT_BOTF) {
			struct dnet_botf_req b;
			dnet_botf_decode(w[0], &b);
			jstr(out_res(d), "prim", "BOTF");
			jnum(out_res(d), "ww", b.ww);
			jnum(out_res(d), "size", b.size);
			out_text(d, "BOTF ww=%u size=%u\n", b.ww, b.size);
			return 0;
		}
		struct dnet_req r;
		dnet_req_decode(w[0], w[1], n == 3 ? &w[2] : NULL, &r);
		print_req(d, &r);
		return 0;
	}
	if (strcmp(what, "hdr") == 0) {
		if ((n = words(d, a, 2, w, 1, 4)) < 0)
			return -1;
		struct dnet_pkt_hdr h;
		memset(&h, 0, sizeof(h));
		if (n == 1)
			dnet_hdr_decode_dw1(w[0], &h);
		else
			dnet_hdr_decode(w, (unsigned)n, &h);
		print_hdr(d, &h);
		return 0;
	}
	if (strcmp(what, "status") == 0) {
		if ((n = words(d, a, 2, w, 2, 2)) < 0)
			return -1;
		cJSON *arr = d->json ? cJSON_AddArrayToObject(d->res, "entries") : NULL;
		cJSON *o = arr ? cJSON_CreateObject() : NULL;
		print_status(d, o, 0, w[0], w[1]);
		if (o)
			cJSON_AddItemToArray(arr, o);
		return 0;
	}
	if (strcmp(what, "lh") == 0) {
		if ((n = words(d, a, 2, w, 8, 8)) < 0)
			return -1;
		cJSON *arr = d->json ? cJSON_AddArrayToObject(d->res, "entries") : NULL;
		cJSON *o = arr ? cJSON_CreateObject() : NULL;
		print_lh(d, o, 0, w);
		if (o)
			cJSON_AddItemToArray(arr, o);
		return 0;
	}
	const struct dnet_reg *r;
	const struct dnet_field *f;
	if (dsh_parse_regspec(d, what, &r, &f) < 0)
		return dsh_error(d, "argument 1: '%s' is not req, hdr, status, lh or a register", what);
	if ((n = words(d, a, 2, w, 1, 1)) < 0)
		return -1;
	jstr(out_res(d), "register", r->name);
	jhex(out_res(d), "value", w[0]);
	out_text(d, "%s = 0x%016" PRIx64 "\n", r->name, w[0]);
	out_fields(d, r, w[0], f);
	if (r->block == DNET_BLK_USER && r->offset == DNET_UR_MODULE_STATE && (r->access & DNET_ACC_R))
		modstate_listing(d, w[0]);
	if (r->block == DNET_BLK_USER && r->offset == DNET_UR_PRIM_COUNTER && (r->access & DNET_ACC_R))
		counter_listing(d, w[0]);
	return 0;
}
