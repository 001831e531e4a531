/* SPDX-License-Identifier: MIT */
/* libdnet: the packet format and the receive-side records (docs/device.md
 * section 6; thesis Fig. 4.23, Tab. 4.9, 4.14, 4.15, Fig. 7.6, 7.7).
 *
 * A packet is a sequence of 64-bit lines (DW) with a 2-bit line identifier:
 * 2-4 header lines then data.  A BOTF packet image is the same without the
 * identifiers.  The receive status (16 B, in the LLCM ring) has the request
 * format; an LH Buffer entry is 64 B.
 */
#ifndef DNET_PACKET_H
#define DNET_PACKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "dnet/error.h"
#include "dnet/request.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* libdnet exports what its headers declare */

/* Line identifiers (Tab. 4.14). */
enum dnet_line_id {
	DNET_LINE_FIRST = 1,  /* 2'b01 */
	DNET_LINE_LAST = 2,   /* 2'b10, EOP */
	DNET_LINE_MIDDLE = 3, /* 2'b11 */
};

#define DNET_HDR_MAX_LINES 4
#define DNET_PKT_SIZE_MAX  0xfffu   /* 12-bit Packet Size */

/* Packet header, all four DWs (decisions D-HDR-DW1, D-HDR-DW23). */
struct dnet_pkt_hdr {
	/* 1st DW */
	unsigned size;    /* [11:0] packet bytes incl. header */
	unsigned type;    /* [16:12] primitive code */
	unsigned pgid;    /* [27:20] */
	unsigned dwid;    /* [28] */
	unsigned swid;    /* [29] */
	unsigned dlid;    /* [47:32] full 16-bit LID */
	unsigned dtype;   /* [50:48] */
	unsigned iter;    /* [58:51] */
	unsigned rflag;   /* [59] 1 = to Prefetch Window */
	unsigned eflag;   /* [60] last packet, write a status */
	unsigned hflag;   /* [61] 0 = 2 header lines, 1 = 3 or 4 */
	unsigned lflag;   /* [62] RVS: to LLCM; IPUSH: LHS */
	/* 2nd DW */
	uint32_t src_or_init_dst; /* [31:0] RVL: SRCOff; RVS: Initial DSTOff */
	uint32_t dstoff;          /* [63:32] */
	/* 3rd DW (hflag = 1) */
	uint32_t total;           /* [31:0] Total Transfer Size */
	uint32_t stride_list;     /* [63:32] */
	/* 4th DW (RVL with Ex only) */
	struct dnet_req_ex ex;
};

#define DNET_H1_SIZE_SHIFT  0
#define DNET_H1_TYPE_SHIFT  12
#define DNET_H1_PGID_SHIFT  20
#define DNET_H1_DWID_SHIFT  28
#define DNET_H1_SWID_SHIFT  29
#define DNET_H1_DLID_SHIFT  32
#define DNET_H1_DTYPE_SHIFT 48
#define DNET_H1_ITER_SHIFT  51
#define DNET_H1_RFLAG_SHIFT 59
#define DNET_H1_EFLAG_SHIFT 60
#define DNET_H1_HFLAG_SHIFT 61
#define DNET_H1_LFLAG_SHIFT 62
#define DNET_H1_PGID_MASK   (0xffull << DNET_H1_PGID_SHIFT)
#define DNET_H1_SIZE_MASK   0xfffull

/* Encoders mask nothing silently: dnet_hdr_encode rejects out-of-range
 * fields.  The dwN helpers mask (for the emulator's hot path). */
int dnet_hdr_encode(const struct dnet_pkt_hdr *h, uint64_t dw[DNET_HDR_MAX_LINES],
		    unsigned *nlines, struct dnet_err *err);
uint64_t dnet_hdr_dw1(const struct dnet_pkt_hdr *h);
uint64_t dnet_hdr_dw2(const struct dnet_pkt_hdr *h);
void dnet_hdr_decode_dw1(uint64_t dw1, struct dnet_pkt_hdr *h);
/* Decode from up to n lines (n >= 2); lines beyond n are left zero. */
void dnet_hdr_decode(const uint64_t *dw, unsigned n, struct dnet_pkt_hdr *h);
/* Number of header lines implied by TYPE and hflag (2, 3 or 4): RVL-family
 * requests are always 4 lines (§5.3.6). */
unsigned dnet_hdr_lines(const struct dnet_pkt_hdr *h);

/* ---- Packet receive status (Tab. 4.9, §4.5.5.2) ----
 * 16 bytes in LLCM: Lower at +0, Upper at +8 (decision D-STATUS-ORDER). */
struct dnet_status {
	unsigned otype;   /* packet TYPE */
	unsigned dtype;
	unsigned iter;
	unsigned swid;    /* sender's WID (the DWID field) */
	unsigned sclid;   /* sender's CLID (the DCLID field) */
	unsigned eflag;
	uint32_t size;    /* bytes received by the primitive */
	uint32_t addr;    /* first address written (the SRCOff field) */
	uint32_t aux;     /* the DSTOff field: no particular meaning */
};
void dnet_status_decode(uint64_t lo, uint64_t hi, struct dnet_status *s);

/* ---- LH Buffer entry (Fig. 7.7; decision D-LH-ENTRY) ----
 * line 0: [63:32] Pointer, [31:0] Size
 * line 1: [63:48] Context, [47] Valid, [46] Complete, [45:32] Rank, [31:0] Tag
 * lines 2-7: 48 bytes of user data */
#define DNET_LH_DATA_BYTES 48u
#define DNET_LH_VALID_BIT    47
#define DNET_LH_COMPLETE_BIT 46
struct dnet_lh_entry {
	uint32_t pointer;
	uint32_t size;
	unsigned context; /* 16 bits */
	unsigned rank;    /* 14 bits */
	uint32_t tag;
	unsigned valid;
	unsigned complete;
	uint8_t data[DNET_LH_DATA_BYTES];
};
void dnet_lh_decode(const uint64_t line[8], struct dnet_lh_entry *e);

/* LHS message envelope (Fig. 7.6): Context [63:48], Rank [45:32], Tag [31:0]. */
static inline uint64_t dnet_envelope(unsigned context, unsigned rank, uint32_t tag)
{
	return (uint64_t)(context & 0xffffu) << 48 | (uint64_t)(rank & 0x3fffu) << 32 | tag;
}

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
