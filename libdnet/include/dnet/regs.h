/* SPDX-License-Identifier: MIT */
/* libdnet: the register and bit-field database (docs/device.md;
 * thesis Tab. 4.8, Tab. 4.12, App. A, App. B).
 *
 * One table describes every User and System Register: offset, direction,
 * width and named bit fields.  Registers that share an offset but mean
 * different things on read and on write (Primitive Counter / Primitive
 * Counter Reset at 0x300, ...) are separate entries with their own
 * direction.  Names are the option names of the thesis's debug shell (App. C) where it had one
 * (ctl_status, evpbuf_nwa, ...), so "reg ctl_status.status_empty" works.
 */
#ifndef DNET_REGS_H
#define DNET_REGS_H

#include <stdbool.h>
#include <stdint.h>
#include "dnet/codes.h"
#include "dnet/error.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* libdnet exports what its headers declare */

enum dnet_reg_block {
	DNET_BLK_USER,   /* User Register, one per WID at 0x40000 + 0x1000*wid */
	DNET_BLK_SYSTEM, /* System Register at 0x50000, privileged */
};

/* Direction as the host sees it. */
#define DNET_ACC_R 1u
#define DNET_ACC_W 2u

/* Special behaviour the shell and the library must respect. */
#define DNET_RF_KICK        0x01u /* writing it issues a request (Command Lower) */
#define DNET_RF_ANY_VALUE   0x02u /* the write acts whatever the value (counter reset) */
#define DNET_RF_READ_EFFECT 0x04u /* even a read has an effect (Controller Reset) */
#define DNET_RF_PER_WID     0x08u /* value differs per WID (counters, rings) */

struct dnet_field {
	const char *name;     /* "status_empty" */
	unsigned lsb;
	unsigned width;       /* bits */
	const char *desc;     /* one line */
	const struct dnet_codetab *codes; /* one-hot code table, or NULL */
	const char *const *states;        /* names of each value (2-bit state), or NULL */
	unsigned nstates;
};

struct dnet_reg {
	const char *name;      /* "ctl_status" */
	const char *title;     /* "Controller Status" (App. C's banner) */
	enum dnet_reg_block block;
	uint32_t offset;       /* inside the block */
	unsigned access;       /* DNET_ACC_R | DNET_ACC_W */
	unsigned width;        /* access width in bits (64) */
	uint64_t valid_mask;   /* bits the hardware implements */
	unsigned flags;        /* DNET_RF_* */
	const struct dnet_field *fields;
	unsigned nfields;
	const char *desc;
};

/* The whole table, in offset order (user block first). */
const struct dnet_reg *dnet_regs(unsigned *count);
/* Lookup by name (case-sensitive, also accepts a few aliases such as
 * "controller_status"); NULL if unknown. */
const struct dnet_reg *dnet_reg_by_name(const char *name);
/* The register at (block, offset) with the given direction; NULL if none. */
const struct dnet_reg *dnet_reg_at(enum dnet_reg_block block, uint32_t offset,
				   unsigned access);
const struct dnet_field *dnet_field_by_name(const struct dnet_reg *reg, const char *name);

/* Parse "reg" or "reg.field".  *field is NULL for a bare register.
 * Errors name the unknown part. */
int dnet_reg_parse(const char *spec, const struct dnet_reg **reg,
		   const struct dnet_field **field, struct dnet_err *err);

/* Device offset of a register for process wid (System Register ignores wid). */
uint32_t dnet_reg_addr(const struct dnet_reg *reg, unsigned wid);

/* Field value helpers (no range check on get; set checks the value fits). */
static inline uint64_t dnet_field_mask(const struct dnet_field *f)
{
	return (f->width >= 64 ? ~0ull : ((1ull << f->width) - 1)) << f->lsb;
}
static inline uint64_t dnet_field_get(const struct dnet_field *f, uint64_t reg)
{
	return (reg & dnet_field_mask(f)) >> f->lsb;
}
/* Replace the field in *reg with value; -DNET_ERANGE if value does not fit. */
int dnet_field_set(const struct dnet_field *f, uint64_t *reg, uint64_t value,
		   struct dnet_err *err);
/* Symbolic meaning of a field value ("normal", "2048 bytes (default)") into
 * buf; returns buf, or NULL if the field has no symbolic meaning. */
const char *dnet_field_meaning(const struct dnet_field *f, uint64_t value,
			       char *buf, size_t len);

/* ---- Field indices of the registers the model and the shell use most ---- */

/* Controller Status (Tab. A.1) */
#define DNET_CS_REQ_PENDING      (1ull << 0)
#define DNET_CS_SDIMM_INIT       (1ull << 1)
#define DNET_CS_FIFO_FULL        (1ull << 2)
#define DNET_CS_STATUS_FULL      (1ull << 3)
#define DNET_CS_STATUS_EMPTY     (1ull << 4)
#define DNET_CS_WW_DONE(w)       (1ull << (5 + 3 * (w)))
#define DNET_CS_WW_SRC_OVR(w)    (1ull << (6 + 3 * (w)))
#define DNET_CS_WW_DST_OVR(w)    (1ull << (7 + 3 * (w)))
#define DNET_CS_WW_BITS(w)       (7ull << (5 + 3 * (w)))
#define DNET_CS_RC_OVERRUN       (1ull << 17)
#define DNET_CS_RC_STATE_SHIFT   18
#define DNET_CS_RC_STATE_MASK    (3ull << 18)
enum dnet_rc_state {
	DNET_RC_NORMAL = 0,        /* 2'b00 */
	DNET_RC_EARLY_SOP = 1,     /* 2'b01 next packet's 1st DW before EOP */
	DNET_RC_HFLAG_MISMATCH = 2,/* 2'b10 hflag vs header lines */
	DNET_RC_ILLEGAL_RVL = 3,   /* 2'b11 RVL packet with data */
};
#define DNET_CS_VALID_MASK       0xfffffull

/* Primitive Counter (Tab. A.2): six 10-bit counters. */
#define DNET_PC_BITS 10u
#define DNET_PC_SHIFT(fam_index) (10u * (fam_index)) /* see enum dnet_family */
/* Module State (Tab. A.4) */
#define DNET_MS_WC_SHIFT 0
#define DNET_MS_WC_BITS 17
#define DNET_MS_RC_SHIFT 17
#define DNET_MS_RC_BITS 20
#define DNET_MS_WU_SHIFT 37
#define DNET_MS_WU_BITS 14
#define DNET_MS_PU_SHIFT 51
#define DNET_MS_PU_BITS 7

/* User Register offsets (Tab. 4.8), relative to DNET_UREG_WID(wid). */
#define DNET_UR_CMD0_LOWER     0x000u
#define DNET_UR_CMD0_UPPER     0x010u
#define DNET_UR_CMD_EX         0x020u
#define DNET_UR_CMD1_LOWER     0x100u
#define DNET_UR_CMD1_UPPER     0x110u
#define DNET_UR_CTL_STATUS     0x200u
#define DNET_UR_PRIM_COUNTER   0x300u
#define DNET_UR_PW_FLAG        0x400u
#define DNET_UR_PKT_COUNTER    0x500u
#define DNET_UR_IPUSH_AREA     0x600u
#define DNET_UR_LHB_ADDR       0x700u  /* W: Next Read (Head), R: Next Write (Tail) */
#define DNET_UR_MODULE_STATE   0x800u
#define DNET_UR_STATUS_INIT    0x900u
#define DNET_UR_STATUS_SIZE    0xa00u
#define DNET_UR_STATUS_ADDR    0xb00u  /* W: Next Read (Head), R: Next Write (Tail) */
#define DNET_UR_CMD_EX_FLAG    0xc00u

/* System Register offsets (Tab. 4.12), relative to DNET_SREG_BASE. */
#define DNET_SR_SDIMM_INIT     0x000u
#define DNET_SR_SDIMM_CAPACITY 0x100u
#define DNET_SR_MTU            0x200u
#define DNET_SR_SMA            0x300u  /* W: SMA Software Reset, R: SMA LID */
#define DNET_SR_LID            0x700u
#define DNET_SR_PGID0          0x800u
#define DNET_SR_PGID1          0x900u
#define DNET_SR_CTL_RESET      0xa00u  /* any access resets the controller */
/* Decision D-AMT-OFFSET (OQ-8): Fig. 4.15 prints 0xa00 for the AMT Address
 * Table Interface, Tab. 4.12 prints 0xb00; 0xa00 is Controller Reset, so the
 * AMT interface is at 0xb00. */
#define DNET_SR_AMT            0xb00u

/* SMA LID read value: [15:0] LID, [17:16] SWIF status, 2'b11 = link up. */
#define DNET_SMA_LINK_UP       (3ull << 16)

/* AMT Address Table Interface word (App. B, Fig. B.1). */
static inline uint64_t dnet_amt_word(unsigned llcm_addr, unsigned wid, unsigned lid)
{
	return (uint64_t)(llcm_addr & 0xfffu) | (uint64_t)(wid & 3u) << 12 |
	       (uint64_t)(lid & 0xffffu) << 14;
}

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
