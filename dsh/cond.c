/* dsh: the one condition evaluator of assert, expect and wait:
 *
 *     TARGET [& MASK] OP VALUE        TARGET: last | REG | REG.FIELD | REGION OFFSET
 *
 * The condition holds when (target & MASK) OP VALUE.  The value is never
 * masked.  A condition whose verdict is the same for every value the target
 * can hold checks nothing, so it is refused when the line is read (and a
 * script's lines are all read before the first runs, check.c): a mask
 * outside the field, a zero mask, for
 * == and != a value with bits outside the mask (naming the width), and for
 * < > <= >= a bound every value is on the same side of.  The values
 * (target & M) can take are the submasks of M -- with M = 0x6: 0, 2, 4, 6 --
 * so the least is 0 and the greatest M itself:
 *
 *     <  V  always when V > M, never when V == 0
 *     <= V  always when V >= M
 *     >  V  never when V >= M
 *     >= V  always when V == 0, never when V > M
 *
 * and every other bound can go either way (V need not be a submask: x & 0x6
 * < 5 holds for 0, 2, 4 and not for 6).  What remains has V <= M, so wait
 * hands the same condition to the backend in register coordinates
 * (dsh_cond_device) without overflow, and assert and wait judge every
 * condition alike.  A register's mask may name its reserved bits (they
 * read 0 on a DIMMnet-2: a bring-up check on hardware); the target is then
 * the 64-bit word.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "dsh.h"

static bool mem_region(const char *s, enum dnet_region *r, bool *sodimm)
{
	*sodimm = false;
	if (strcmp(s, "sodimm") == 0) {
		*sodimm = true;
		*r = DNET_REG_LLCM;
		return true;
	}
	const struct dnet_region_info *ri = dnet_region_by_name(s);
	if (!ri || ri->id == DNET_REG_UREG || ri->id == DNET_REG_SREG)
		return false;
	*r = ri->id;
	return true;
}

/* Bits the target can have, and a phrase naming them for messages. */
static uint64_t target_bits(const struct dsh_cond *c, char *what, size_t n)
{
	if (c->kind == DSH_COND_REG && c->field) {
		snprintf(what, n, "%s.%s (%u bit%s)", c->reg->name, c->field->name, c->field->width,
			 c->field->width == 1 ? "" : "s");
		return c->field->width >= 64 ? UINT64_MAX : (1ull << c->field->width) - 1;
	}
	if (c->kind == DSH_COND_REG && c->reg->valid_mask != UINT64_MAX) {
		snprintf(what, n, "%s (implemented bits 0x%" PRIx64 ")", c->reg->name, c->reg->valid_mask);
		return c->reg->valid_mask;
	}
	snprintf(what, n, "%s (64 bits)", c->kind == DSH_COND_LAST ? "last" : "the 64-bit word");
	return UINT64_MAX;
}

int dsh_cond_parse(struct dsh *d, struct dsh_args *a, int start, int end, struct dsh_cond *c)
{
	memset(c, 0, sizeof(*c));
	int i = start;
	if (i >= end)
		return dsh_error(d, "missing condition: TARGET [& MASK] OP VALUE");
	const char *t = a->argv[i];
	if (strcmp(t, "last") == 0) {
		c->kind = DSH_COND_LAST;
		snprintf(c->desc, sizeof(c->desc), "last");
		i++;
	} else if (mem_region(t, &c->region, &c->sodimm)) {
		c->kind = DSH_COND_MEM;
		uint64_t off;
		if (i + 1 >= end)
			return dsh_error(d, "argument %d: %s needs an offset", i, t);
		if (dsh_num(d, a, i + 1, UINT32_MAX, "offset", &off) < 0)
			return -1;
		if (off % 8)
			return dsh_error(d, "argument %d: offset 0x%" PRIx64 " is misaligned (64-bit word: multiple of 8)",
					 i + 1, off);
		if (!c->sodimm) {
			const struct dnet_region_info *ri = dnet_region_info(c->region);
			if (off + 8 > ri->size)
				return dsh_error(d, "argument %d: offset 0x%" PRIx64 " outside %s (%" PRIu32 " bytes)",
						 i + 1, off, ri->name, ri->size);
		}
		c->off = (uint32_t)off;
		snprintf(c->desc, sizeof(c->desc), "%s 0x%" PRIx32, t, c->off);
		i += 2;
	} else {
		if (dsh_parse_regspec(d, t, &c->reg, &c->field) < 0)
			return -1;
		c->kind = DSH_COND_REG;
		snprintf(c->desc, sizeof(c->desc), "%s", t);
		i++;
	}
	char what[96];
	uint64_t bits = target_bits(c, what, sizeof what);
	c->mask = bits;
	if (i < end && strcmp(a->argv[i], "&") == 0) {
		if (i + 1 >= end)
			return dsh_error(d, "argument %d: '&' needs a mask", i);
		if (dsh_num(d, a, i + 1, UINT64_MAX, "mask", &c->mask) < 0)
			return -1;
		if (c->mask == 0)
			return dsh_error(d, "argument %d: mask 0 makes the condition constant", i + 1);
		if ((c->mask & ~bits) && c->kind == DSH_COND_REG && !c->field) {
			/* Reserved bits read 0 on a DIMMnet-2: checking that they
			 * do is a bring-up test on hardware (on the emulator it
			 * holds), so a register's mask may name them; what is
			 * constant is then judged over the 64-bit word. */
			bits = UINT64_MAX;
			snprintf(what, sizeof what, "%s (64 bits)", c->reg->name);
		} else if (c->mask & ~bits) {
			return dsh_error(d, "argument %d: mask 0x%" PRIx64 " has bits outside %s",
					 i + 1, c->mask, what);
		}
		size_t l = strlen(c->desc);
		snprintf(c->desc + l, sizeof(c->desc) - l, " & 0x%" PRIx64, c->mask);
		i += 2;
	}
	if (i >= end)
		return dsh_error(d, "missing operator after '%s' (== != < > <= >=)", a->argv[i - 1]);
	if (dnet_cond_parse(a->argv[i], &c->op) < 0)
		return dsh_error(d, "argument %d: '%s' is not an operator (== != < > <= >=)", i, a->argv[i]);
	if (i + 1 >= end)
		return dsh_error(d, "missing value after '%s'", a->argv[i]);
	if (dsh_num(d, a, i + 1, UINT64_MAX, "value", &c->value) < 0)
		return -1;
	bool eq = c->op == DNET_COND_EQ || c->op == DNET_COND_NE;
	if (eq && (c->value & ~c->mask)) {
		if (c->mask != bits)
			return dsh_error(d, "argument %d: value 0x%" PRIx64 " has bits outside the mask 0x%"
					 PRIx64 " (the condition could never change)", i + 1, c->value, c->mask);
		return dsh_error(d, "argument %d: value 0x%" PRIx64 " does not fit %s", i + 1, c->value,
				 what);
	}
	if (i + 2 != end)
		return dsh_error(d, "argument %d: unexpected '%s'", i + 2, a->argv[i + 2]);
	/* the target as the message names it: the masked target, or the
	 * target with its width */
	char range[192];
	if (c->mask != bits)
		snprintf(range, sizeof range, "%s", c->desc);
	else if (c->kind == DSH_COND_REG && (c->field || c->reg->valid_mask != UINT64_MAX))
		snprintf(range, sizeof range, "%s", what);
	else
		snprintf(range, sizeof range, "%s (64 bits)", c->desc);
	size_t l = strlen(c->desc);
	snprintf(c->desc + l, sizeof(c->desc) - l, " %s 0x%" PRIx64, dnet_cond_name(c->op), c->value);
	/* Range operators: the least value is 0, the greatest the mask. */
	uint64_t v = c->value, m = c->mask;
	int always = -1;   /* 1: holds for every value, 0: for none, -1: depends */
	switch (c->op) {
	case DNET_COND_LT: always = v > m ? 1 : v == 0 ? 0 : -1; break;
	case DNET_COND_LE: always = v >= m ? 1 : -1; break;
	case DNET_COND_GT: always = v >= m ? 0 : -1; break;
	case DNET_COND_GE: always = v == 0 ? 1 : v > m ? 0 : -1; break;
	default: break;
	}
	if (always >= 0)
		return dsh_error(d, "argument %d: %s %s %s can take (0 to 0x%" PRIx64 "): the condition is "
				 "constant", i + 1, c->desc, always ? "holds for every value" : "never holds for any value",
				 range, m);
	return 0;
}

/* The masked target from a raw register word or memory word, after the
 * one check of it: a register's reserved bits set (all ones: nothing
 * answers) make the value not the register's -- an error, unless the
 * condition is about those bits (a whole register's mask naming them).
 * raw is then kept in *v for the message. */
static int cond_value(struct dsh *d, const struct dsh_cond *c, uint64_t raw, uint64_t *v)
{
	struct dnet_err e = { 0 };
	*v = raw;
	if (c->kind == DSH_COND_REG && dnet_reg_check(c->reg, raw, &e) < 0 &&
	    (c->field || !(c->mask & ~c->reg->valid_mask)))
		return dsh_derr(d, &e);
	*v = dsh_cond_from_device(c, raw);
	return 0;
}

/* One raw read of the target (no wait). */
static int cond_read_raw(struct dsh *d, const struct dsh_cond *c, uint64_t *raw)
{
	struct dnet_err e = { 0 };
	bool sh;
	switch (c->kind) {
	case DSH_COND_LAST:
		if (!d->script.has_last)
			return dsh_error(d, "no last result yet");
		*raw = d->script.last;
		return 0;
	case DSH_COND_REG:
		if (!(c->reg->access & DNET_ACC_R) || (c->reg->flags & DNET_RF_READ_EFFECT))
			return dsh_reg_read(d, c->reg, raw, &sh); /* a shadow, or refused */
		if (dnet_read64(d->dev, dnet_reg_addr(c->reg, d->opts.wid), raw, &e) < 0)
			return dsh_derr(d, &e);
		return 0;
	default:
		return dsh_mem_word(d, c->region, c->sodimm, c->off, c->mask, raw);
	}
}

/* Decision D-COND-ONE: the read of assert, expect and wait and every check
 * of it, in this one function, so that a wait and an assert of the same
 * condition always agree.  wait_ns NULL: one read; else wait up to
 * *wait_ns for the condition -- the backend waits on the raw word
 * (dnet_wait; dnetd waits in the server) where the target is a readable
 * register or a region word, else the shell polls -- and the word it ends
 * on is checked as a single read is: a register with reserved bits set
 * fails the wait as it fails the assert, whether or not the raw word
 * matched.  *r: the masked value, whether it holds, the time waited. */
int dsh_cond_eval(struct dsh *d, const struct dsh_cond *c, const uint64_t *wait_ns, struct dsh_cond_result *r)
{
	memset(r, 0, sizeof *r);
	uint64_t raw = 0, t0 = 0, t = 0;
	if (!wait_ns) {
		if (cond_read_raw(d, c, &raw) < 0) {
			r->value = raw;
			return -1;
		}
		if (cond_value(d, c, raw, &r->value) < 0)
			return -1;
		r->holds = dsh_cond_holds(c, r->value);
		return 0;
	}
	if (c->kind == DSH_COND_LAST || (c->kind == DSH_COND_MEM && c->region == DNET_REG_WW && !c->sodimm))
		return dsh_error(d, "%s cannot change by itself (use assert)",
				 c->kind == DSH_COND_LAST ? "last" : "the Write Window shadow");
	bool direct = (c->kind == DSH_COND_REG && (c->reg->access & DNET_ACC_R) &&
		       !(c->reg->flags & DNET_RF_READ_EFFECT)) ||
		      (c->kind == DSH_COND_MEM && !c->sodimm);
	if (c->kind == DSH_COND_REG && !direct)
		return dsh_error(d, "%s cannot be read (write-only or read side effect)", c->reg->name);
	struct dnet_err e = { 0 };
	if (dsh_now(d, &t0) < 0)
		return -1;
	if (direct) {
		uint32_t addr;
		uint64_t mask, value;
		if (c->kind == DSH_COND_REG)
			addr = dnet_reg_addr(c->reg, d->opts.wid);
		else if (dnet_region_addr(c->region, d->opts.wid, c->off, 8, &addr, &e) < 0)
			return dsh_derr(d, &e);
		/* the condition moved to the raw word, not the value masked */
		dsh_cond_device(c, &mask, &value);
		int rc = dnet_wait(d->dev, addr, mask, c->op, value, *wait_ns, &raw, &e);
		if (rc < 0 && e.code != DNET_ETIMEDOUT)
			return dsh_derr(d, &e);
		if (dsh_now(d, &t) < 0)
			return -1;
		r->elapsed = t - t0;
		if (cond_value(d, c, raw, &r->value) < 0)
			return -1;
		r->holds = rc == 0 && dsh_cond_holds(c, r->value);
		return 0;
	}
	for (;;) {
		if (cond_read_raw(d, c, &raw) < 0 || cond_value(d, c, raw, &r->value) < 0 || dsh_now(d, &t) < 0)
			return -1;
		r->elapsed = t - t0;
		if ((r->holds = dsh_cond_holds(c, r->value)))
			return 0;
		if (r->elapsed >= *wait_ns)
			return 0;
		if (dsh_interrupted(d)) {
			r->interrupted = true;
			return 0;
		}
		if (dnet_delay(d->dev, (d->caps & DNET_CAP_VIRTUAL_TIME) ? 1000 : 100000, &e) < 0)
			return dsh_derr(d, &e);
	}
}

bool dsh_cond_holds(const struct dsh_cond *c, uint64_t masked)
{
	return dnet_cond_eval(c->op, masked, c->value);
}

/* The same condition on the raw 64-bit register or word: a field's mask and
 * value shift to its position, which keeps every operator's meaning
 * because the value is at most the mask (dsh_cond_parse), which fits the
 * field. */
void dsh_cond_device(const struct dsh_cond *c, uint64_t *mask, uint64_t *value)
{
	unsigned sh = c->kind == DSH_COND_REG && c->field ? c->field->lsb : 0;
	*mask = c->mask << sh;
	*value = c->value << sh;
}

/* From a raw device word back to the masked target value (no check:
 * cond_value). */
uint64_t dsh_cond_from_device(const struct dsh_cond *c, uint64_t raw)
{
	if (c->kind == DSH_COND_REG && c->field)
		raw = dnet_field_get(c->field, raw);
	return raw & c->mask;
}
