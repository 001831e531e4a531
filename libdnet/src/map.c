/* The host memory map (map.h, thesis Tab. 4.1 and 4.3).
 * Decision D-MAP-SCALE: Tab. 4.3's 0x10000 spacing, not Fig. 4.7's 0x1000
 * (confirmed by the dump addresses of App. C's debug shell, OQ-27). */
#include <string.h>

#include "dnet/map.h"

static const struct dnet_region_info regions[DNET_REGION_COUNT] = {
	[DNET_REG_WW] = { DNET_REG_WW, "ww", "Write Window",
		{ DNET_WW_WID(0), DNET_WW_WID(1) }, DNET_WINAREA_SIZE,
		DNET_HOST_W, DNET_ATTR_WC, false, true, DNET_WINDOWS, DNET_WINDOW_SIZE },
	[DNET_REG_PW] = { DNET_REG_PW, "pw", "Prefetch Window",
		{ DNET_PW_WID(0), DNET_PW_WID(1) }, DNET_WINAREA_SIZE,
		DNET_HOST_R, DNET_ATTR_WB, false, true, DNET_WINDOWS, DNET_WINDOW_SIZE },
	[DNET_REG_LLCM] = { DNET_REG_LLCM, "llcm", "LLCM",
		{ DNET_LLCM_WID(0), DNET_LLCM_WID(1) }, DNET_LLCM_SIZE,
		DNET_HOST_R | DNET_HOST_W, DNET_ATTR_UC, false, true, 1, DNET_LLCM_SIZE },
	[DNET_REG_LHB] = { DNET_REG_LHB, "lhb", "LH Buffer",
		{ DNET_LHB_WID(0), DNET_LHB_WID(1) }, DNET_LHB_SIZE,
		DNET_HOST_R, DNET_ATTR_WB, false, true, DNET_LHB_ENTRIES, DNET_LHB_ENTRY },
	[DNET_REG_UREG] = { DNET_REG_UREG, "ureg", "User Register",
		{ DNET_UREG_WID(0), DNET_UREG_WID(1) }, DNET_UREG_SIZE,
		DNET_HOST_R | DNET_HOST_W, DNET_ATTR_UC, false, true, 1, DNET_UREG_SIZE },
	[DNET_REG_SREG] = { DNET_REG_SREG, "sreg", "System Register",
		{ DNET_SREG_BASE, DNET_SREG_BASE }, DNET_SREG_SIZE,
		DNET_HOST_R | DNET_HOST_W, DNET_ATTR_UC, true, false, 1, DNET_SREG_SIZE },
};

const struct dnet_region_info *dnet_region_info(enum dnet_region r)
{
	return (unsigned)r < DNET_REGION_COUNT ? &regions[r] : NULL;
}

const struct dnet_region_info *dnet_region_by_name(const char *name)
{
	for (unsigned i = 0; i < DNET_REGION_COUNT; i++)
		if (strcmp(regions[i].name, name) == 0)
			return &regions[i];
	return NULL;
}

int dnet_region_addr(enum dnet_region r, unsigned wid, uint32_t off, uint32_t len,
		     uint32_t *addr, struct dnet_err *err)
{
	const struct dnet_region_info *ri = dnet_region_info(r);
	if (!ri)
		return dnet_seterr(err, DNET_EINVAL, "unknown region %d", (int)r);
	if (wid >= DNET_NWID)
		return dnet_seterr(err, DNET_EINVAL, "WID %u out of range (0-1)", wid);
	if (off > ri->size || len > ri->size - off)
		return dnet_seterr(err, DNET_ERANGE,
				   "%s: offset 0x%x + length 0x%x exceeds the %u-byte area",
				   ri->name, off, len, ri->size);
	*addr = ri->base[ri->per_wid ? wid : 0] + off;
	return 0;
}

_Static_assert(DNET_WW_BASE == 0x10000u * DNET_REG_WW && DNET_PW_BASE == 0x10000u * DNET_REG_PW &&
	       DNET_LLCM_BASE == 0x10000u * DNET_REG_LLCM && DNET_LHB_BASE == 0x10000u * DNET_REG_LHB &&
	       DNET_UREG_BASE == 0x10000u * DNET_REG_UREG && DNET_SREG_BASE == 0x10000u * DNET_REG_SREG &&
	       DNET_WW_WID(1) + DNET_WINAREA_SIZE <= DNET_PW_BASE &&
	       DNET_PW_WID(1) + DNET_WINAREA_SIZE <= DNET_LLCM_BASE &&
	       DNET_LLCM_WID(1) + DNET_LLCM_SIZE <= DNET_LHB_BASE &&
	       DNET_LHB_WID(1) + DNET_LHB_SIZE <= DNET_UREG_BASE &&
	       DNET_UREG_WID(1) + DNET_UREG_SIZE <= DNET_SREG_BASE,
	       "dnet_addr_lookup: one region per 64 KB block");

int dnet_addr_lookup(uint32_t addr, enum dnet_region *r, unsigned *wid, uint32_t *off)
{
	/* Region i and all its sub-areas lie in the 64 KB block at 0x10000 * i
	 * (Tab. 4.3, the DNET_*_BASE of map.h): one look, no scan. */
	uint32_t blk = addr >> 16;
	if (blk >= DNET_REGION_COUNT)
		return -DNET_ERANGE;
	const struct dnet_region_info *ri = &regions[blk];
	for (unsigned w = 0; w < (ri->per_wid ? DNET_NWID : 1); w++) {
		if (addr >= ri->base[w] && addr - ri->base[w] < ri->size) {
			if (r)
				*r = ri->id;
			if (wid)
				*wid = w;
			if (off)
				*off = addr - ri->base[w];
			return 0;
		}
	}
	return -DNET_ERANGE;
}

enum dnet_memattr dnet_addr_attr(uint32_t addr)
{
	/* Attributes are per 4 KB page and each region is 64 KB aligned. */
	switch (addr >> 16) {
	case 0: return DNET_ATTR_WC;
	case 1: case 3: return DNET_ATTR_WB;
	default: return DNET_ATTR_UC;
	}
}
