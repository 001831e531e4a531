/* SPDX-License-Identifier: MIT */
/* libdnet: the request (primitive) format (docs/device.md;
 * thesis Fig. 4.13, 4.14, 7.8, Tab. 4.4, 4.7, 4.13).
 *
 * A request is 128 bits: Upper (written first) and Lower (writing it kicks
 * the request).  While Command Ex Flag = 1 a 64-bit Command Ex word is
 * written between them.  BOTF uses Lower only.  IPUSH with LHSv2 packs the
 * Write Window part of the message into Upper.
 */
#ifndef DNET_REQUEST_H
#define DNET_REQUEST_H

#include <stdbool.h>
#include <stdint.h>
#include "dnet/error.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* libdnet exports what its headers declare */

/* The 17 OTYPE codes (Tab. 4.13). */
enum dnet_otype {
	DNET_OT_NOP   = 0x00,
	DNET_OT_BOTF  = 0x01,
	DNET_OT_VL    = 0x04,
	DNET_OT_VLS   = 0x05,
	DNET_OT_VLI   = 0x06,
	DNET_OT_VS    = 0x08,
	DNET_OT_VSS   = 0x09,
	DNET_OT_VSI   = 0x0a,
	DNET_OT_RVL   = 0x10,
	DNET_OT_RVLS  = 0x11,
	DNET_OT_RVLI  = 0x12,
	DNET_OT_RVS   = 0x14,
	DNET_OT_RVSS  = 0x15,
	DNET_OT_RVSI  = 0x16,
	DNET_OT_IPUSH = 0x18,
	DNET_OT_LHSV1 = 0x19,
	DNET_OT_LHSV2 = 0x1a,
};
#define DNET_OTYPE_COUNT 17

/* Primitive families; the value is the Primitive Counter slot (Tab. A.2). */
enum dnet_family {
	DNET_FAM_BOTF = 0,
	DNET_FAM_VL = 1,
	DNET_FAM_VS = 2,
	DNET_FAM_RVL = 3,
	DNET_FAM_RVS = 4,
	DNET_FAM_IPUSH = 5,
	DNET_FAM_NONE = 6,   /* NOP: counts nowhere */
};
#define DNET_FAMILY_COUNT 6

enum dnet_variant {
	DNET_VAR_CONTIG = 0,   /* contiguous */
	DNET_VAR_STRIDE = 1,   /* stride (or LHSv1 for IPUSH) */
	DNET_VAR_LIST = 2,     /* list/index (or LHSv2 for IPUSH) */
};

/* Which request fields a primitive uses. */
#define DNET_USE_DTYPE  0x001u
#define DNET_USE_ITER   0x002u
#define DNET_USE_DWID   0x004u
#define DNET_USE_DCLID  0x008u
#define DNET_USE_EFLAG  0x010u
#define DNET_USE_SIZE   0x020u
#define DNET_USE_SRC    0x040u
#define DNET_USE_DST    0x080u
#define DNET_USE_CMD1   0x100u  /* Command0/1 choice matters (remote families) */
#define DNET_USE_EX     0x200u  /* Command Ex applies */

struct dnet_otype_info {
	enum dnet_otype code;
	const char *name;       /* canonical: "RVS", "BOTF", "LHSv1" */
	const char *desc;       /* "remote contiguous store" */
	enum dnet_family family;
	enum dnet_variant variant;
	bool remote;            /* communicates over the network */
	unsigned uses;          /* DNET_USE_* */
	const char *size_name;  /* what Size/List/Stride means: "size", "stride", "list" */
};

/* NULL for codes outside Tab. 4.13 (the hardware ignores them, §5.3.2). */
const struct dnet_otype_info *dnet_otype_info(unsigned code);
/* Case-insensitive; accepts "LHSv1", "IPUSH_LHSv1", "LHSV2", "BOTF"... */
const struct dnet_otype_info *dnet_otype_by_name(const char *name);
/* All 17 in code order. */
const struct dnet_otype_info *dnet_otypes(unsigned *count);
const char *dnet_family_name(enum dnet_family f);   /* "BOTF", "VL", ... */

/* Command Ex word (Fig. 4.13): local-side parameters of RVS/RVL/IPUSH. */
struct dnet_req_ex {
	unsigned otype;   /* 5 bits */
	unsigned dtype;   /* 3 bits */
	unsigned iter;    /* 8 bits */
	uint32_t size;    /* Size / Stride / List (Ex) */
};

/* A normal request, field by field (Tab. 4.4). */
struct dnet_req {
	unsigned otype;   /* 5 bits  [4:0] */
	unsigned dtype;   /* 3 bits  [7:5] */
	unsigned iter;    /* 8 bits  [15:8] */
	unsigned dwid;    /* 1 bit   [16]   (decision D-LOWER-BITS) */
	unsigned dclid;   /* 12 bits [29:18] */
	unsigned eflag;   /* 1 bit   [30]   (decision D-LOWER-BITS) */
	uint32_t size;    /* Size / List / Stride [63:32] */
	uint32_t srcoff;  /* Upper [31:0] */
	uint32_t dstoff;  /* Upper [63:32] */
	bool has_ex;
	struct dnet_req_ex ex;
};

/* The three words to write. */
struct dnet_cmd {
	uint64_t upper;
	uint64_t lower;
	uint64_t ex;
	bool has_ex;
	bool lower_only;  /* BOTF: Upper need not be written */
};

/* Bit positions of Command Lower (one place: libdnet/src/request.c). */
#define DNET_LO_OTYPE_SHIFT 0
#define DNET_LO_DTYPE_SHIFT 5
#define DNET_LO_ITER_SHIFT  8
#define DNET_LO_DWID_SHIFT  16
#define DNET_LO_DCLID_SHIFT 18
#define DNET_LO_EFLAG_SHIFT 30
#define DNET_LO_SIZE_SHIFT  32

/* Encode; rejects (-DNET_EINVAL, naming the field) any value wider than its
 * field instead of masking it. */
int dnet_req_encode(const struct dnet_req *r, struct dnet_cmd *out, struct dnet_err *err);
/* Decode Lower/Upper (and Ex if has_ex). Never fails. */
void dnet_req_decode(uint64_t lower, uint64_t upper, const uint64_t *ex, struct dnet_req *r);

/* BOTF request (Fig. 4.14, Tab. 4.7): Lower only. */
struct dnet_botf_req {
	unsigned ww;      /* [6:5] Write Window number 0-3 */
	unsigned size;    /* [41:32] bytes incl. header; 0 dropped, >512 -> 512 */
};
#define DNET_BOTF_WW_SHIFT   5
#define DNET_BOTF_SIZE_SHIFT 32
#define DNET_BOTF_SIZE_MASK  0x3ffu
#define DNET_BOTF_MAX        512u
int dnet_botf_encode(const struct dnet_botf_req *b, uint64_t *lower, struct dnet_err *err);
void dnet_botf_decode(uint64_t lower, struct dnet_botf_req *b);

/* IPUSH with LHSv2 Upper (Fig. 7.8, §7.2.1). */
struct dnet_lhsv2_upper {
	uint32_t srcoff;  /* [31:0] SO-DIMM source */
	unsigned ww_size; /* [41:32] bytes from the Write Window (<= 512) */
	unsigned ww_addr; /* [53:42] Write Window area offset */
};
int dnet_lhsv2_upper_encode(const struct dnet_lhsv2_upper *u, uint64_t *upper,
			    struct dnet_err *err);

/* The SO-DIMM-to-SO-DIMM copy marker (§4.6.8; decision D-SIM-COPY-MARKER). */
#define DNET_COPY_MARKER 0xffffffffu

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
