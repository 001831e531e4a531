/* Module State sub-fields (modstate.h).  Decision D-MODSTATE (Tab. A.4,
 * Fig. C.13, OQ-19): the thesis gives only the four module ranges and one
 * decoded value, 0x0000422200020001 (bits 0, 17, 33, 37, 41, 46).  This
 * layout is the simplest that decodes that value to exactly the names of
 * Fig. C.13: one-hot machines have their idle state at their lowest bit,
 * binary machines read 0 when idle.  The executer's code 0 is the name the
 * real idle controller showed, P_BOTF_WAIT. */
#include <stdio.h>

#include "dnet/modstate_int.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const char *const acc[] = { "P_RPATH_NOP", "P_RPATH_REQ", "P_RPATH_REQ_IN", "P_RPATH_WAIT" };
static const char *const exe[DNET_EX_COUNT] = {
	"P_BOTF_WAIT", "P_PRIM", "P_BOTF_WAITSW", "P_BOTF1", "P_BOTF2", "P_BOTF3", "P_BOTF4",
	"P_BOTF_END1", "P_BOTF_END2", "P_VL_WAIT", "P_VL1", "P_VL2", "P_VL_END",
	"P_VS_WAIT", "P_VSS1", "P_VS1", "P_VS_END", "P_RVL_WAIT", "P_RVL1", "P_RVL2",
	"P_RVL3", "P_RVL_END", "P_RVS_WAIT", "P_RVS1", "P_RVS2", "P_RVS3", "P_RVS4",
	"P_RVS5", "P_RVSS1", "P_RVSS2", "P_RVS_END", "P_IPUSH_WW",
};
static const char *const rc[DNET_RCS_COUNT] = {
	"IDLE", "HEAD", "ANALYZE", "WU_START", "PW_WRITE", "LLCM_WRITE", "LH_WRITE",
	"REQ_SEP", "STATUS", "STALL",
};
static const char *const pwrite[] = { "IDLE", "WRITE", "END" };
static const char *const wu_rctl[] = { "IDLE", "REQ", "DATA", "END" };
static const char *const wu_wctl[] = { "IDLE", "ARB", "WRITE", "STATUS", "END" };
static const char *const wu_stride[] = { "IDLE", "ELEM", "LIST", "END" };
static const char *const wu_ipush[] = { "M_IDLE", "M_RING", "M_WAIT" };
static const char *const pu[] = { "ST_R_IDLE", "ST_R_READ", "ST_R_LIST", "ST_R_END" };
static const char *const pu_ctl[] = { "ST_IDLE", "ST_BUSY", "ST_DONE" };
static const char *const pu_write[] = {
	"ST_FIFO_IDLE, ST_PW_IDLE", "ST_FIFO_BUSY, ST_PW_IDLE",
	"ST_FIFO_IDLE, ST_PW_WRITE", "ST_FIFO_BUSY, ST_PW_WRITE",
};

#define M(id, label, lsb, w, oh, st) { id, label, lsb, w, oh, st, N(st) }
static const struct dnet_fsm_info fsms[DNET_FSM_COUNT] = {
	M(DNET_FSM_WC_ACCEPTER, "Window Controller Accepter", 0, 4, 1, acc),
	M(DNET_FSM_WC_EXECUTER, "Window Controller Executer", 4, 13, 0, exe),
	M(DNET_FSM_RC, "Receive Controller", 17, 16, 1, rc),
	M(DNET_FSM_RC_PWRITE, "PWrite", 33, 4, 1, pwrite),
	M(DNET_FSM_WU_RCTL, "Write Unit rctl_stat", 37, 4, 1, wu_rctl),
	M(DNET_FSM_WU_WCTL, "Write Unit wctl_stat", 41, 5, 1, wu_wctl),
	M(DNET_FSM_WU_STRIDE, "Write Unit wu_stride", 49, 2, 0, wu_stride),
	M(DNET_FSM_WU_IPUSH, "Write Unit wu_ipush", 46, 3, 1, wu_ipush),
	M(DNET_FSM_PU, "Prefetch Unit", 51, 3, 0, pu),
	M(DNET_FSM_PU_CTL, "Prefetch Unit pu_ctl", 54, 2, 0, pu_ctl),
	M(DNET_FSM_PU_WRITE, "Prefetch Unit pu_write", 56, 2, 0, pu_write),
};

const struct dnet_fsm_info *dnet_fsm_info(enum dnet_fsm f)
{
	return (unsigned)f < DNET_FSM_COUNT ? &fsms[f] : NULL;
}

int core_modstate_get(uint64_t v, enum dnet_fsm f)
{
	const struct dnet_fsm_info *m = dnet_fsm_info(f);
	if (!m)
		return -1;
	uint64_t bits = v >> m->lsb & ((1ull << m->width) - 1);
	if (m->onehot) {
		if (bits == 0 || (bits & (bits - 1)))
			return -1;
		unsigned s = (unsigned)__builtin_ctzll(bits);
		return s < m->nstates ? (int)s : -1;
	}
	return bits < m->nstates ? (int)bits : -1;
}

const char *dnet_modstate_name(uint64_t v, enum dnet_fsm f, char *buf, size_t len)
{
	const struct dnet_fsm_info *m = dnet_fsm_info(f);
	int s = core_modstate_get(v, f);
	if (m && s >= 0)
		return m->states[s];
	uint64_t bits = m ? (v >> m->lsb & ((1ull << m->width) - 1)) : 0;
	snprintf(buf, len, "?0x%llx", (unsigned long long)bits);
	return buf;
}

void core_modstate_set(uint64_t *v, enum dnet_fsm f, unsigned s)
{
	const struct dnet_fsm_info *m = dnet_fsm_info(f);
	if (!m || s >= m->nstates)
		return;
	uint64_t mask = ((1ull << m->width) - 1) << m->lsb;
	uint64_t bits = m->onehot ? 1ull << s : s;
	*v = (*v & ~mask) | (bits << m->lsb);
}
