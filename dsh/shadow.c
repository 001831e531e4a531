/* dsh: register access with shadows.  Write-only registers cannot be read
 * back; dsh keeps a shadow of the last value it wrote to each (per node and
 * WID) and always says when a value shown is a shadow.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "dsh.h"


struct dsh_shadow *dsh_shadow(struct dsh *d)
{
	unsigned node = dnet_node(d->dev);
	if (node == 0 || node > d->reg.nshadow)
		return NULL;
	struct dsh_shadow **slot = &d->reg.shadow[node - 1];
	if (!*slot) {
		struct dsh_shadow *s = calloc(1, sizeof(*s));
		if (!s)
			return NULL;
		for (unsigned w = 0; w < DNET_NWID; w++) {
			s->reg[w] = calloc(d->reg.ndb, sizeof(uint64_t));
			s->reg_has[w] = calloc(d->reg.ndb, sizeof(bool));
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
	return (unsigned)(r - d->reg.db);
}

unsigned dsh_shadow_wid(struct dsh *d, const struct dnet_reg *r)
{
	return r->block == DNET_BLK_USER ? d->opts.wid : 0;
}

enum dnet_rule dsh_reg_rule(struct dsh *d, const struct dnet_reg *r, bool write, struct dnet_err *e)
{
	enum dnet_rule rule = DNET_RULE_NONE;
	dnet_reg_access_check(dnet_dev_caps(d->dev), r, d->opts.wid, write, false, &rule, e);
	return rule;
}

bool dsh_reg_readable(struct dsh *d, const struct dnet_reg *r)
{
	return dsh_reg_rule(d, r, false, NULL) == DNET_RULE_NONE;
}

int dsh_reg_read(struct dsh *d, const struct dnet_reg *r, uint64_t *v, bool *shadow)
{
	struct dnet_err e = { 0 };
	*shadow = false;
	enum dnet_rule rule = dsh_reg_rule(d, r, false, &e);
	if (rule == DNET_RULE_NONE) {
		if (dnet_reg_read(d->dev, d->opts.wid, r, v, &e) < 0)
			return dsh_derr(d, &e);
		return 0;
	}
	if (rule != DNET_RULE_REG_WO)
		return dsh_derr(d, &e);
	/* write-only: what dsh wrote, said to be a shadow */
	struct dsh_shadow *s = dsh_shadow(d);
	unsigned i = dsh_reg_index(d, r), w = dsh_shadow_wid(d, r);
	if (!s || !s->reg_has[w][i])
		return dsh_error(d, "%s; dsh has not written it on node %u (no shadow)", e.msg,
				 dnet_node(d->dev));
	*v = s->reg[w][i];
	*shadow = true;
	return 0;
}

int dsh_reg_write(struct dsh *d, const struct dnet_reg *r, uint64_t v)
{
	struct dnet_err e = { 0 };
	if (dnet_reg_write(d->dev, d->opts.wid, r, v, &e) < 0) /* read-only: the access rules' message */
		return dsh_derr(d, &e);
	if (r->block == DNET_BLK_SYSTEM && r->offset == DNET_SR_CTL_RESET)
		return dsh_ctl_reset_done(d);
	struct dsh_shadow *s = dsh_shadow(d);
	if (!s)
		return 0;
	unsigned i = dsh_reg_index(d, r), w = dsh_shadow_wid(d, r);
	s->reg[w][i] = v;
	s->reg_has[w][i] = true;
	return 0;
}

/* Decision D-RESET-SEEN: what a Controller Reset made through dsh did,
 * decided here for every path that makes one: a write through
 * dsh_reg_write (sreg_write, reg ctl_reset = V, poke sreg 0xa00 V: the
 * access rules allow only whole 64-bit accesses there) and the confirmed
 * read ('reg ctl_reset confirm', which dsh-run's isolation reset runs).  The node's shadows go first,
 * whatever the outcome (if the reset did not act, dsh no longer knows what
 * the device holds): every User Register's, of both WIDs (the reset clears
 * them), and the Write Window's (whether Block RAM survives is not given,
 * OQ-26: not known is never a false pass); the System Register's stay, as
 * the device keeps that configuration (D-SIM-RESET).  Then the
 * effect must be seen: the counters the reset clears (Primitive Counter
 * and Packet Counter of both WIDs, D-SIM-RESET) read 0; a counter that
 * kept a value, reserved bits set (all ones: nothing answers) or a read
 * that fails make the reset a failure naming what did not change. */
int dsh_ctl_reset_done(struct dsh *d)
{
	struct dsh_shadow *s = dsh_shadow(d);
	for (unsigned w = 0; s && w < DNET_NWID; w++) {
		for (unsigned i = 0; i < d->reg.ndb; i++)
			if (d->reg.db[i].block == DNET_BLK_USER)
				s->reg_has[w][i] = false;
		memset(s->ww_known[w], 0, sizeof(s->ww_known[w]));
	}
	static const char *const cleared[] = { "prim_counter", "pkt_counter" };
	for (unsigned w = 0; w < DNET_NWID; w++)
		for (size_t k = 0; k < sizeof cleared / sizeof cleared[0]; k++) {
			const struct dnet_reg *r = dnet_reg_by_name(cleared[k]);
			struct dnet_err e = { 0 };
			uint64_t v = 0;
			if (!r)
				continue;
			if (dnet_reg_read(d->dev, w, r, &v, &e) < 0)
				return dsh_error(d, "the Controller Reset of node %u was not seen: %s of WID %u: %s",
						 dnet_node(d->dev), r->name, w, e.msg);
			if (v)
				return dsh_error(d, "the Controller Reset of node %u was not seen: %s of WID %u "
						 "reads 0x%016" PRIx64 " after it, and a Controller Reset clears it "
						 "(nothing resets at this address, or it is plain memory)",
						 dnet_node(d->dev), r->name, w, v);
		}
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


bool dsh_shadow_of(struct dsh *d, const char *name, uint64_t *v)
{
	const struct dnet_reg *r = dnet_reg_by_name(name);
	struct dsh_shadow *s = dsh_shadow(d);
	if (!r || !s)
		return false;
	unsigned i = dsh_reg_index(d, r), w = dsh_shadow_wid(d, r);
	if (!s->reg_has[w][i])
		return false;
	*v = s->reg[w][i];
	return true;
}

uint64_t dsh_area_bytes(struct dsh *d)
{
	/* Each process's SO-DIMM area is one module's capacity (Tab. 4.10,
	 * Fig. 4.16): what dsh wrote to SO-DIMM Capacity, else what the
	 * backend reports, else the power-on default (256 MB). */
	uint64_t code, v;
	if (dsh_shadow_of(d, "sdimm_capacity", &code))
		return dnet_capacity_bytes(code);
	if (d->dev && dnet_stat(d->dev, "sodimm_area_bytes", &v, NULL) == 0 && v)
		return v;
	return dnet_capacity_bytes(0);
}
