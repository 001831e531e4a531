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

int dsh_cond_read(struct dsh *d, const struct dsh_cond *c, uint64_t *v)
{
	switch (c->kind) {
	case DSH_COND_LAST:
		if (!d->has_last)
			return dsh_error(d, "no last result yet");
		*v = d->last & c->mask;
		return 0;
	case DSH_COND_REG: {
		bool sh;
		*v = 0;
		if (dsh_reg_read(d, c->reg, v, &sh) < 0) {
			/* reserved bits set: not an error when the condition is
			 * about them (the read gave the raw value) */
			if (c->field || !(*v & ~c->reg->valid_mask) || !(c->mask & ~c->reg->valid_mask))
				return -1;
			d->have_err = false;
			d->errmsg[0] = '\0';
		}
		if (c->field)
			*v = dnet_field_get(c->field, *v);
		*v &= c->mask;
		return 0;
	}
	default:
		if (dsh_mem_word(d, c->region, c->sodimm, c->off, c->mask, v) < 0)
			return -1;
		*v &= c->mask;
		return 0;
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

/* From a raw device word back to the masked target value. */
uint64_t dsh_cond_from_device(const struct dsh_cond *c, uint64_t raw)
{
	if (c->kind == DSH_COND_REG && c->field)
		raw = dnet_field_get(c->field, raw);
	return raw & c->mask;
}
