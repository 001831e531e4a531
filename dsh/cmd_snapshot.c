/* dsh: snapshot / diff of all readable registers, and watch. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "dsh.h"

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
	struct dsh_snap *s = d->script.snaps;
	while (s) {
		struct dsh_snap *n = s->next;
		snap_free(s);
		s = n;
	}
	d->script.snaps = NULL;
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
	s->val = calloc(d->reg.ndb, sizeof(uint64_t));
	s->has = calloc(d->reg.ndb, sizeof(bool));
	if (!s->name || !s->val || !s->has) {
		snap_free(s);
		dsh_error(d, "out of memory");
		return NULL;
	}
	s->node = dnet_node(d->dev);
	s->wid = d->opts.wid;
	struct dsh_shadow *sh = dsh_shadow(d);
	for (unsigned i = 0; i < d->reg.ndb; i++) {
		const struct dnet_reg *r = &d->reg.db[i];
		struct dnet_err e = { 0 };
		enum dnet_rule rule = dsh_reg_rule(d, r, false, NULL); /* privilege too: skipped */
		if (rule == DNET_RULE_NONE) {
			if (dnet_reg_read(d->dev, d->opts.wid, r, &s->val[i], &e) < 0) {
				dsh_error(d, "cannot read %s: %s", r->name, e.msg[0] ? e.msg : dnet_strerror(e.code));
				snap_free(s);
				return NULL;
			}
			s->has[i] = true;
		} else if (rule == DNET_RULE_REG_WO && sh && !(r->flags & (DNET_RF_KICK | DNET_RF_ANY_VALUE))) {
			unsigned w = dsh_shadow_wid(d, r);
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
	for (struct dsh_snap *s = d->script.snaps; s; s = s->next)
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
	struct dsh_snap **pp = &d->script.snaps;
	while (*pp) {
		if (strcmp((*pp)->name, s->name) == 0) {
			struct dsh_snap *old = *pp;
			*pp = old->next;
			snap_free(old);
			break;
		}
		pp = &(*pp)->next;
	}
	s->next = d->script.snaps;
	d->script.snaps = s;
	unsigned n = 0;
	for (unsigned i = 0; i < d->reg.ndb; i++)
		n += s->has[i];
	out_str(d, "snapshot", "snapshot %s", s->name);
	out_u64(d, "registers", ": %" PRIu64 " registers", n);
	out_text(d, " of node %u WID %u\n", s->node, s->wid);
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
	out_arr_open(d, "changes");
	unsigned n = 0;
	for (unsigned i = 0; i < d->reg.ndb; i++) {
		const struct dnet_reg *r = &d->reg.db[i];
		if (A->has[i] == B->has[i] && (!A->has[i] || A->val[i] == B->val[i]))
			continue;
		n++;
		out_obj_open(d, NULL);
		out_str(d, "register", "%-20s", r->name);
		/* text: 16 digits or (none); JSON: hex or null */
		char sa[24] = "(none)", sb[24] = "(none)";
		if (A->has[i])
			snprintf(sa, sizeof(sa), "0x%016" PRIx64, A->val[i]);
		if (B->has[i])
			snprintf(sb, sizeof(sb), "0x%016" PRIx64, B->val[i]);
		out_text(d, " %s -> %s\n", sa, sb);
		if (A->has[i])
			out_hex(d, "a", NULL, A->val[i]);
		else
			out_null(d, "a");
		if (B->has[i])
			out_hex(d, "b", NULL, B->val[i]);
		else
			out_null(d, "b");
		if (A->has[i] && B->has[i]) {
			out_obj_open(d, "fields");
			for (unsigned k = 0; k < r->nfields; k++) {
				const struct dnet_field *f = &r->fields[k];
				uint64_t x = dnet_field_get(f, A->val[i]), y = dnet_field_get(f, B->val[i]);
				if (x == y)
					continue;
				out_arr_open(d, f->name); /* [a, b] */
				out_str(d, NULL, "  .%-18s", f->name);
				out_hex(d, "a", " 0x%" PRIx64, x);
				out_hex(d, "b", " -> 0x%" PRIx64 "\n", y);
				out_close(d);
			}
			out_close(d);
		}
		out_close(d);
	}
	out_close(d);
	out_u64(d, "differences", "%" PRIu64, n);
	out_text(d, " register%s differ%s\n", n == 1 ? "" : "s", n == 1 ? "s" : "");
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
	struct dnet_err re = { 0 };
	if (dsh_reg_rule(d, r, false, &re) != DNET_RULE_NONE)
		return dsh_derr(d, &re);
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
	out_arr_open(d, "samples");
	uint64_t t0 = 0, prev = 0;
	if (dsh_now(d, &t0) < 0)
		return -1;
	for (uint64_t i = 0; i < count; i++) {
		uint64_t v, t;
		struct dnet_err e = { 0 };
		if (dnet_reg_read(d->dev, d->opts.wid, r, &v, &e) < 0)
			return dsh_derr(d, &e);
		if (f)
			v = dnet_field_get(f, v);
		if (dsh_now(d, &t) < 0)
			return -1;
		char ts[24];
		out_obj_open(d, NULL);
		out_u64(d, "t_ns", NULL, t - t0); /* text: scaled */
		out_text(d, "%c t=+%s %s%s%s", (i && v != prev) ? '*' : ' ', dnet_format_time(t - t0, ts, sizeof ts),
			 r->name, f ? "." : "", f ? f->name : "");
		out_hex(d, "value", " = 0x%" PRIx64 "\n", v);
		out_close(d);
		if (!d->io.json)
			fflush(stdout); /* a sample is seen when it is taken */
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

