/* The per-region access rules (access.h). */
#include <stdio.h>

#include "dnet/access_int.h"
#include "dnet/device.h"
#include "dnet/map.h"
#include "dnet/regs.h"

static const char *const rule_names[] = {
	[DNET_RULE_NONE] = "", [DNET_RULE_HOLE] = "hole", [DNET_RULE_SPAN] = "span",
	[DNET_RULE_WW_READ] = "ww-read", [DNET_RULE_RO_REGION] = "ro-region",
	[DNET_RULE_REG_WIDTH] = "reg-width", [DNET_RULE_NO_REG] = "no-reg",
	[DNET_RULE_REG_WO] = "reg-wo", [DNET_RULE_REG_RO] = "reg-ro",
	[DNET_RULE_REG_EFFECT] = "reg-effect", [DNET_RULE_PRIVILEGED] = "privileged",
};

const char *dnet_rule_name(enum dnet_rule rule)
{
	return (unsigned)rule < sizeof rule_names / sizeof rule_names[0] ? rule_names[rule] : "?";
}

/* Refused by rule R: *rule says so, err gets "[name] " and the message. */
#define REFUSE(R, code, fmt, ...) \
	(*rule = (R), dnet_seterr(err, code, "[%s] " fmt, rule_names[R], __VA_ARGS__))

static int reg_rule(unsigned caps, enum dnet_region r, unsigned wid, uint32_t roff, uint32_t off,
		    size_t len, unsigned width, bool write, bool confirmed, enum dnet_rule *rule,
		    struct dnet_err *err)
{
	const char *rname = r == DNET_REG_UREG ? "User Register" : "System Register";
	if (r == DNET_REG_SREG && !(caps & DNET_CAP_PRIVILEGED))
		return REFUSE(DNET_RULE_PRIVILEGED, DNET_EPERM,
				   "offset 0x%x is in the System Register: privileged clients only "
				   "(the privileged process, §4.5); this handle has no privilege (devmem: "
				   "open with ,privileged; remote: not as a user client)", off);
	if (width != 8)
		return REFUSE(DNET_RULE_REG_WIDTH, DNET_EINVAL,
				   "a %u-bit access at 0x%x: %s registers are accessed 64 bits "
				   "at a time (§4.2.1)", width * 8, off, rname);
	enum dnet_reg_block blk = r == DNET_REG_UREG ? DNET_BLK_USER : DNET_BLK_SYSTEM;
	for (size_t k = 0; k < len; k += 8) {
		uint32_t o = roff + (uint32_t)k;
		const struct dnet_reg *reg = dnet_reg_at(blk, o, write ? DNET_ACC_W : DNET_ACC_R);
		if (!reg) {
			const struct dnet_reg *other = dnet_reg_at(blk, o, write ? DNET_ACC_R : DNET_ACC_W);
			if (other)
				return REFUSE(write ? DNET_RULE_REG_RO : DNET_RULE_REG_WO, DNET_EPERM,
					      "0x%x is %s (%s %u+0x%03x), which is %s: it is not %s",
						   off + (uint32_t)k, other->name,
						   r == DNET_REG_UREG ? "ureg" : "sreg", wid, o,
						   write ? "read-only" : "write-only", write ? "written" : "read");
			return REFUSE(DNET_RULE_NO_REG, DNET_EPERM, "0x%x (%s +0x%03x): no register there",
					   off + (uint32_t)k, rname, o);
		}
		if (!write && (reg->flags & DNET_RF_READ_EFFECT) && !confirmed)
			return REFUSE(DNET_RULE_REG_EFFECT, DNET_EPERM,
					   "0x%x is %s: any access, a read too, resets the "
					   "controller (App. B); dnet_reg_read_effect ('reg %s confirm') "
					   "reads it on purpose", off + (uint32_t)k, reg->name, reg->name);
	}
	return 0;
}

int dnet_access_check(unsigned caps, uint32_t off, size_t len, unsigned width, bool write,
		      bool confirmed, enum dnet_rule *rule, struct dnet_err *err)
{
	enum dnet_region r;
	unsigned wid;
	uint32_t roff;
	enum dnet_rule ignored;
	if (!rule)
		rule = &ignored;
	*rule = DNET_RULE_NONE;
	if (len == 0)
		return 0;
	if (dnet_addr_lookup(off, &r, &wid, &roff) < 0)
		return REFUSE(DNET_RULE_HOLE, DNET_ERANGE,
				   "offset 0x%x is in no region (between the sub-areas of Tab. 4.3)", off);
	const struct dnet_region_info *ri = dnet_region_info(r);
	if (len > ri->size - roff) {
		/* Into the next sub-area (the other WID's pages: a protection
		 * matter, §4.4) or into a hole. */
		uint64_t endo = (uint64_t)off + len - 1;
		bool other = endo <= UINT32_MAX && dnet_addr_lookup((uint32_t)endo, NULL, NULL, NULL) == 0;
		return REFUSE(DNET_RULE_SPAN, other ? DNET_EPERM : DNET_ERANGE,
				   "0x%x+%zu runs past the end of %s %u (0x%x bytes)%s", off, len,
				   ri->title, wid, ri->size, other ? " into another sub-area" : "");
	}
	if (!write && !(ri->host_access & DNET_HOST_R))
		return REFUSE(DNET_RULE_WW_READ, DNET_EPERM,
				   "0x%x is in the Write Window, write-only for the host (Tab. 4.1)",
				   off);
	if (write && !(ri->host_access & DNET_HOST_W))
		return REFUSE(DNET_RULE_RO_REGION, DNET_EPERM,
				   "0x%x is in the %s, read-only for the host: the controller "
				   "writes it (Tab. 4.1)", off, ri->title);
	if (r == DNET_REG_UREG || r == DNET_REG_SREG)
		return reg_rule(caps, r, wid, roff, off, len, width, write, confirmed, rule, err);
	return 0;
}

int dnet_reg_access_check(unsigned caps, const struct dnet_reg *reg, unsigned wid, bool write,
			  bool confirmed, enum dnet_rule *rule, struct dnet_err *err)
{
	enum dnet_rule ignored;
	if (!rule)
		rule = &ignored;
	*rule = DNET_RULE_NONE;
	if (wid >= DNET_NWID)
		return dnet_seterr(err, DNET_EINVAL, "WID %u out of range (0-1)", wid);
	uint32_t off = dnet_reg_addr(reg, wid);
	int rc = dnet_access_check(caps, off, 8, 8, write, confirmed, rule, err);
	if (*rule == DNET_RULE_PRIVILEGED || (reg->access & (write ? DNET_ACC_W : DNET_ACC_R)))
		return rc;
	return REFUSE(write ? DNET_RULE_REG_RO : DNET_RULE_REG_WO, DNET_EPERM,
		      "0x%x is %s (%s %u+0x%03x), which is %s: it is not %s", off, reg->name,
		      reg->block == DNET_BLK_USER ? "ureg" : "sreg", reg->block == DNET_BLK_USER ? wid : 0,
		      (unsigned)reg->offset, write ? "read-only" : "write-only", write ? "written" : "read");
}

const char *dnet_addr_describe(uint32_t off, bool write, char *buf, size_t n)
{
	enum dnet_region r;
	unsigned wid;
	uint32_t roff;
	if (dnet_addr_lookup(off, &r, &wid, &roff) < 0) {
		snprintf(buf, n, "hole");
		return buf;
	}
	const struct dnet_region_info *ri = dnet_region_info(r);
	const struct dnet_reg *reg = NULL;
	if (r == DNET_REG_UREG || r == DNET_REG_SREG) {
		enum dnet_reg_block blk = r == DNET_REG_UREG ? DNET_BLK_USER : DNET_BLK_SYSTEM;
		reg = dnet_reg_at(blk, roff & ~7u, write ? DNET_ACC_W : DNET_ACC_R);
		if (!reg)
			reg = dnet_reg_at(blk, roff & ~7u, DNET_ACC_R | DNET_ACC_W);
	}
	if (ri->per_wid)
		snprintf(buf, n, "%s%u+0x%x%s%s", ri->name, wid, roff, reg ? " " : "", reg ? reg->name : "");
	else
		snprintf(buf, n, "%s+0x%x%s%s", ri->name, roff, reg ? " " : "", reg ? reg->name : "");
	return buf;
}
