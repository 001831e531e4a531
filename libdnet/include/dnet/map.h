/* SPDX-License-Identifier: MIT */
/* libdnet: the host memory map of DIMMnet-2 (docs/device.md;
 * thesis Tab. 4.1, Tab. 4.3, Fig. 4.8-4.12).
 *
 * All addresses are byte offsets from the base of the physical range that
 * the board occupies.  Each region has one sub-area per WID (process 0/1),
 * except the System Register, which is a single privileged page.
 */
#ifndef DNET_MAP_H
#define DNET_MAP_H

#include <stdbool.h>
#include <stdint.h>
#include "dnet/error.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* libdnet exports what its headers declare */

#define DNET_MAP_SIZE      0x51000u  /* span to map: System Register + 4 KB */
#define DNET_PAGE_SIZE     0x1000u
#define DNET_NWID          2u

#define DNET_WW_BASE       0x00000u
#define DNET_PW_BASE       0x10000u
#define DNET_LLCM_BASE     0x20000u
#define DNET_LHB_BASE      0x30000u
#define DNET_UREG_BASE     0x40000u
#define DNET_SREG_BASE     0x50000u

/* Per-WID sub-area bases (Tab. 4.3). */
#define DNET_WW_WID(w)     (DNET_WW_BASE + (uint32_t)(w) * 0x2000u)
#define DNET_PW_WID(w)     (DNET_PW_BASE + (uint32_t)(w) * 0x2000u)
#define DNET_LLCM_WID(w)   (DNET_LLCM_BASE + (uint32_t)(w) * 0x8000u)
#define DNET_LHB_WID(w)    (DNET_LHB_BASE + (uint32_t)(w) * 0x8000u)
#define DNET_UREG_WID(w)   (DNET_UREG_BASE + (uint32_t)(w) * 0x1000u)

#define DNET_WINDOWS       4u        /* Write / Prefetch Windows per WID */
#define DNET_WINDOW_SIZE   512u
#define DNET_WINAREA_SIZE  (DNET_WINDOWS * DNET_WINDOW_SIZE) /* 2 KB */
#define DNET_PW_LINE       128u      /* one Prefetch Window Flag bit each */
#define DNET_PW_LINES      (DNET_WINDOW_SIZE / DNET_PW_LINE)
#define DNET_LLCM_SIZE     0x8000u   /* 32 KB per WID */
#define DNET_LHB_SIZE      0x1000u   /* 4 KB per WID */
#define DNET_LHB_ENTRY     64u
#define DNET_LHB_ENTRIES   (DNET_LHB_SIZE / DNET_LHB_ENTRY)
#define DNET_UREG_SIZE     0x1000u
#define DNET_SREG_SIZE     0x1000u
#define DNET_STATUS_SIZE   16u       /* one packet receive status */

enum dnet_region {
	DNET_REG_WW = 0,   /* Write Window */
	DNET_REG_PW,       /* Prefetch Window */
	DNET_REG_LLCM,     /* Low Latency Common Memory */
	DNET_REG_LHB,      /* LH Buffer */
	DNET_REG_UREG,     /* User Register */
	DNET_REG_SREG,     /* System Register */
	DNET_REGION_COUNT
};

/* Memory type the host must use (Tab. 4.1). */
enum dnet_memattr {
	DNET_ATTR_UC, /* uncachable */
	DNET_ATTR_WC, /* write combining */
	DNET_ATTR_WB, /* write back (needs clflush / prefetch) */
};

/* What the host may do. */
#define DNET_HOST_R 1u
#define DNET_HOST_W 2u

struct dnet_region_info {
	enum dnet_region id;
	const char *name;       /* short name: "ww", "pw", ... */
	const char *title;      /* "Write Window" */
	uint32_t base[DNET_NWID]; /* sub-area base per WID (same for SREG) */
	uint32_t size;          /* bytes per WID */
	unsigned host_access;   /* DNET_HOST_R | DNET_HOST_W */
	enum dnet_memattr attr;
	bool privileged;        /* only the privileged process may map it */
	bool per_wid;           /* false for the System Register */
	unsigned units;         /* windows (4) for WW/PW, entries for LHB, else 1 */
	uint32_t unit_size;     /* 512 for windows, 64 for LHB entries */
};

const struct dnet_region_info *dnet_region_info(enum dnet_region r);
/* By short name ("ww", "pw", "llcm", "lhb", "ureg", "sreg"); NULL if none. */
const struct dnet_region_info *dnet_region_by_name(const char *name);

/* Address of [off, off+len) of region r for process wid, checked against the
 * region bounds.  Returns 0 or -DNET_ERANGE / -DNET_EINVAL with a message. */
int dnet_region_addr(enum dnet_region r, unsigned wid, uint32_t off,
		     uint32_t len, uint32_t *addr, struct dnet_err *err);

/* Reverse lookup of a device offset: region, WID and offset inside the
 * sub-area.  Returns -DNET_ERANGE for holes between sub-areas. */
int dnet_addr_lookup(uint32_t addr, enum dnet_region *r, unsigned *wid,
		     uint32_t *off);

/* Memory attribute of the page holding addr (UC for holes). */
enum dnet_memattr dnet_addr_attr(uint32_t addr);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
