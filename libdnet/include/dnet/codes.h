/* SPDX-License-Identifier: MIT */
/* libdnet: code tables of DIMMnet-2.
 *
 * One-hot configuration codes: DTYPE (Tab. 4.5), SO-DIMM Capacity (Tab. 4.10),
 * MTU (Tab. 4.11), Status Area Size (Tab. A.5); and LID <-> CLID (Tab. 4.6).
 * The hardware maps every value it does not know to a default; the *_decode
 * functions do the same and say whether the value was a defined code.
 */
#ifndef DNET_CODES_H
#define DNET_CODES_H

#include <stdbool.h>
#include <stdint.h>
#include "dnet/error.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* libdnet exports what its headers declare */

/* One entry of a code table: the register value and what it means. */
struct dnet_code {
	uint64_t code;
	uint64_t value;     /* bytes (or element bytes for DTYPE) */
	const char *label;  /* "2048", "256MB", ... */
};

struct dnet_codetab {
	const char *name;          /* "mtu", "sdimm_capacity", "status_area_size", "dtype" */
	const char *unit;          /* "bytes" */
	const struct dnet_code *codes;
	unsigned ncodes;
	uint64_t width_mask;       /* bits the hardware looks at */
	uint64_t default_value;    /* meaning of an undefined code */
	bool has_default;          /* false for DTYPE: every code is defined */
};

extern const struct dnet_codetab dnet_codetab_status_area;

/* Meaning of a register value, as the hardware reads it (masked, undefined
 * codes -> default).  *defined (may be NULL) tells whether it was a code of
 * the table. */
uint64_t dnet_code_decode(const struct dnet_codetab *t, uint64_t code, bool *defined);
/* Code for a meaning (e.g. MTU 1024 -> 0x04); -DNET_EINVAL if none. */
int dnet_code_encode(const struct dnet_codetab *t, uint64_t value, uint64_t *code,
		     struct dnet_err *err);

/* Convenience wrappers. */
static inline unsigned dnet_dtype_bytes(unsigned dtype) { return 1u << (dtype & 7u); }
uint64_t dnet_capacity_bytes(uint64_t code);     /* per module */
uint32_t dnet_status_area_bytes(uint64_t code);

/* Default configuration after the standard initialisation. */
#define DNET_CAPACITY_CODE_DEFAULT  0x01u   /* 256 MB per module */
#define DNET_MTU_CODE_DEFAULT       0x08u   /* 2048 B */
#define DNET_STATUS_AREA_DEFAULT    0x10u   /* 1024 B */

/* LID <-> CLID (Tab. 4.6; decision D-CLID in docs/decisions.md). */
#define DNET_CLID_MAX_UNICAST 0xBFFu
#define DNET_CLID_INIT        0xFFFu
#define DNET_LID_INIT         0xFFFFu
/* The two readings of "bits 9-12 removed" (decision D-CLID): LID[11:8]
 * (the default) or LID[12:9].  A property of the device handle: a sim
 * opened with clid=12:9 reads LID[12:9], every other handle LID[11:8]. */
enum dnet_clid_reading { DNET_CLID_11_8, DNET_CLID_12_9 };
struct dnet_dev;
enum dnet_clid_reading dnet_dev_clid_reading(const struct dnet_dev *dev);
/* The LID of a CLID under reading r (that of the device the LID is for:
 * dnet_clid_to_lid(dnet_dev_clid_reading(dev), clid)). */
uint16_t dnet_clid_to_lid(enum dnet_clid_reading r, uint16_t clid);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
