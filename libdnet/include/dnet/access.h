/* SPDX-License-Identifier: MIT */
/* libdnet: the per-region access rules every raw access obeys (docs/device.md
 * 1.1, 1.3, 3.1, 3.2; thesis Tab. 4.1, Tab. 4.3, §4.2.1, §4.5, App. A/B).
 *
 * dnet_read/dnet_write, the block transfers and dnet_wait check them before
 * anything reaches a backend, so a wrong access never touches a board:
 *
 *   hole        an offset between sub-areas belongs to no region;
 *   span        one access stays inside one region's sub-area;
 *   ww-read     the Write Window is write-only for the host;
 *   ro-region   the Prefetch Window and LH Buffer are read-only for the host;
 *   reg-width   registers are accessed 64 bits at a time, aligned (§4.2.1:
 *               "64 or 128 bit"; a 32-bit store to Command Lower would start
 *               a half-written request);
 *   no-reg      an offset of the register pages where no register is;
 *   reg-wo      a write-only register is not read (Command*, Status Area
 *               Size, ...);
 *   reg-ro      a read-only register is not written (Controller Status, ...);
 *   reg-effect  Controller Reset acts on any access: a read only when
 *               confirmed (dnet_reg_read_effect);
 *   privileged  the System Register only with DNET_CAP_PRIVILEGED (§4.5).
 *
 * The error message starts with the rule's name in brackets, e.g.
 * "[reg-width] ...", and names the register or region.  It is the one
 * wording of the rules: dsh shows it as it is (adding only its own hints). */
#ifndef DNET_ACCESS_H
#define DNET_ACCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "dnet/error.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* libdnet exports what its headers declare */

/* The rule that refused an access, for a caller that acts on which one
 * (dsh shows its shadow of a write-only register on DNET_RULE_REG_WO). */
enum dnet_rule {
	DNET_RULE_NONE,       /* the access is allowed */
	DNET_RULE_HOLE,
	DNET_RULE_SPAN,
	DNET_RULE_WW_READ,
	DNET_RULE_RO_REGION,
	DNET_RULE_REG_WIDTH,
	DNET_RULE_NO_REG,
	DNET_RULE_REG_WO,
	DNET_RULE_REG_RO,
	DNET_RULE_REG_EFFECT,
	DNET_RULE_PRIVILEGED,
};

/* Check an access of len bytes at device offset off made of width-byte
 * accesses (width 8 for block transfers), a write or a read, by a device
 * with capabilities caps; confirmed allows the read of a register whose
 * read acts.  Alignment and map bounds are checked by the caller.
 * Returns 0, -DNET_EPERM (a rule), -DNET_ERANGE (hole, span) or
 * -DNET_EINVAL (width); *rule (may be NULL) says which rule refused it
 * (DNET_RULE_NONE when allowed), err its message. */
int dnet_access_check(unsigned caps, uint32_t off, size_t len, unsigned width, bool write,
		      bool confirmed, enum dnet_rule *rule, struct dnet_err *err);
struct dnet_reg;
/* The same rules for a named register of WID wid, read or written whole
 * (64 bits): first those of its address (dnet_access_check), then its own
 * access -- two registers may share an address, one read and one written
 * (prim_counter, prim_counter_reset), and the one named decides. */
int dnet_reg_access_check(unsigned caps, const struct dnet_reg *reg, unsigned wid, bool write,
			  bool confirmed, enum dnet_rule *rule, struct dnet_err *err);
/* The rule's name as messages bracket it: "reg-wo"; "" for DNET_RULE_NONE. */
const char *dnet_rule_name(enum dnet_rule rule);

/* A short description of a device offset for listings: "ureg0+0x200
 * ctl_status", "llcm1+0x10", "ww0+0x400", "hole". */
const char *dnet_addr_describe(uint32_t off, bool write, char *buf, size_t n);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
