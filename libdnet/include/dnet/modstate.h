/* SPDX-License-Identifier: MIT */
/* libdnet: Module State (User Register 0x800) sub-fields and state names
 * (thesis Tab. A.4, Fig. C.13; decision D-MODSTATE).
 *
 * The thesis gives the four module ranges and one decoded example; the
 * sub-field layout below is chosen so that the example value
 * 0x0000422200020001 decodes exactly to Fig. C.13, and it is what the
 * emulator reports.  An idle controller reads 0x0000422200020001.
 */
#ifndef DNET_MODSTATE_H
#define DNET_MODSTATE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* libdnet exports what its headers declare */

/* The eleven sub-machines, in the order App. C lists them. */
enum dnet_fsm {
	DNET_FSM_WC_ACCEPTER,  /* WC [3:0]  one-hot */
	DNET_FSM_WC_EXECUTER,  /* WC [16:4] binary  */
	DNET_FSM_RC,           /* RC [15:0] one-hot (bits 17..32) */
	DNET_FSM_RC_PWRITE,    /* RC [19:16] one-hot (bits 33..36) */
	DNET_FSM_WU_RCTL,      /* WU [3:0] one-hot (bits 37..40) */
	DNET_FSM_WU_WCTL,      /* WU [8:4] one-hot (bits 41..45) */
	DNET_FSM_WU_STRIDE,    /* WU [13:12] binary (bits 49..50) */
	DNET_FSM_WU_IPUSH,     /* WU [11:9] one-hot (bits 46..48) */
	DNET_FSM_PU,           /* PU [2:0] binary (bits 51..53) */
	DNET_FSM_PU_CTL,       /* PU [4:3] binary (bits 54..55) */
	DNET_FSM_PU_WRITE,     /* PU [6:5]: [5] FIFO side, [6] PW side (bits 56..57) */
	DNET_FSM_COUNT
};

struct dnet_fsm_info {
	enum dnet_fsm id;
	const char *label;        /* "Write Unit rctl_stat" */
	unsigned lsb;             /* absolute bit in the register */
	unsigned width;
	int onehot;               /* 1: one bit per state; 0: binary code */
	const char *const *states;/* names by state index */
	unsigned nstates;
};

const struct dnet_fsm_info *dnet_fsm_info(enum dnet_fsm f);

/* Name of that state ("IDLE"), or "?<bits>" written into buf. */
const char *dnet_modstate_name(uint64_t v, enum dnet_fsm f, char *buf, size_t len);
/* The value of a fully idle controller (Fig. C.13). */
#define DNET_MODSTATE_IDLE 0x0000422200020001ull

/* State indices the emulator uses. */
enum { DNET_ACC_NOP, DNET_ACC_REQ, DNET_ACC_REQ_IN, DNET_ACC_WAIT };
enum {
	DNET_EX_IDLE = 0,   /* printed P_BOTF_WAIT, as the real idle controller (Fig. C.13) */
	DNET_EX_PRIM, DNET_EX_BOTF_WAIT, DNET_EX_BOTF1, DNET_EX_BOTF2, DNET_EX_BOTF3,
	DNET_EX_BOTF4, DNET_EX_BOTF_END1, DNET_EX_BOTF_END2,
	DNET_EX_VL_WAIT, DNET_EX_VL1, DNET_EX_VL2, DNET_EX_VL_END,
	DNET_EX_VS_WAIT, DNET_EX_VSS1, DNET_EX_VS1, DNET_EX_VS_END,
	DNET_EX_RVL_WAIT, DNET_EX_RVL1, DNET_EX_RVL2, DNET_EX_RVL3, DNET_EX_RVL_END,
	DNET_EX_RVS_WAIT, DNET_EX_RVS1, DNET_EX_RVS2, DNET_EX_RVS3, DNET_EX_RVS4,
	DNET_EX_RVS5, DNET_EX_RVSS1, DNET_EX_RVSS2, DNET_EX_RVS_END,
	DNET_EX_IPUSH_WW, DNET_EX_COUNT
};
enum { DNET_RCS_IDLE, DNET_RCS_HEAD, DNET_RCS_ANALYZE, DNET_RCS_WU, DNET_RCS_PW,
       DNET_RCS_LLCM, DNET_RCS_LH, DNET_RCS_REQ, DNET_RCS_STATUS, DNET_RCS_STALL,
       DNET_RCS_COUNT };
enum { DNET_PWR_IDLE, DNET_PWR_WRITE, DNET_PWR_END };
enum { DNET_WUR_IDLE, DNET_WUR_REQ, DNET_WUR_DATA, DNET_WUR_END };
enum { DNET_WUW_IDLE, DNET_WUW_ARB, DNET_WUW_WRITE, DNET_WUW_STATUS, DNET_WUW_END };
enum { DNET_WUS_IDLE, DNET_WUS_ELEM, DNET_WUS_LIST, DNET_WUS_END };
enum { DNET_WUI_IDLE, DNET_WUI_RING, DNET_WUI_WAIT };
enum { DNET_PUS_IDLE, DNET_PUS_READ, DNET_PUS_LIST, DNET_PUS_END };
enum { DNET_PUC_IDLE, DNET_PUC_BUSY, DNET_PUC_DONE };
enum { DNET_PUW_IDLE, DNET_PUW_FIFO, DNET_PUW_PW, DNET_PUW_BOTH };

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
