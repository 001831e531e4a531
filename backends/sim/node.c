/* sim: one node's host interface (thesis Tab. 4.3,
 * Tab. 4.8, Tab. 4.12, App. A, App. B): decode of host reads and writes
 * into Write Window, Prefetch Window, LLCM, LH Buffer, User Register and
 * System Register of each WID; Controller Status, Module State, Controller
 * Reset; node creation in the default or cold state.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "dnet/bytes.h"
#include "dnet/codes.h"
#include "dnet/modstate.h"
#include "dnet/regs.h"
#include "sim/sim.h"

/* Set the Capacity and MTU codes, and the bytes they mean (looked up once
 * here, not per packet: host speed; sim_capacity and sim_mtu in sim.h
 * return them). */
static void set_cap_code(struct sim_node *n, uint64_t code)
{
	n->cap_code = code;
	n->cap_bytes = dnet_capacity_bytes(code);
}

static void set_mtu_code(struct sim_node *n, uint64_t code)
{
	n->mtu_code = code;
	n->mtu_bytes = core_mtu_bytes(code);
}

/* SMA LID (System Register 0x300 read): [15:0] the LID the Subnet Manager
 * assigned, [17:16] SWIF status, 2'b11 = link up (App. B).  The emulated
 * Subnet Manager gives node k the LID expanded from CLID k. */
uint16_t sim_sma_lid(const struct sim *s, const struct sim_node *n)
{
	(void)s;
	return dnet_clid_to_lid(sim_clid_reading(s), (uint16_t)n->id);
}

static void ring_defaults(struct sim_wid *w)
{
	/* Decision D-SIM-RING-DEFAULT: at reset Status Initial Address = 0,
	 * Area Size code 0 = 1024 B (Tab. A.5), Head = Tail = 0 (empty). */
	w->st_init = 0;
	w->st_size = dnet_status_area_bytes(0);
	w->st_head = w->st_tail = 0;
}

static void wid_reset(struct sim_wid *w, bool fresh)
{
	w->cmd_upper[0] = w->cmd_upper[1] = 0;
	w->cmd_ex = 0;
	w->ex_flag = false;
	w->pending[0] = w->pending[1] = false;
	w->cs_ww = 0;
	memset(w->prim, 0, sizeof w->prim);
	w->pkt_count = 0;
	/* Decision D-SIM-PWFLAG (OQ-16): the flags read 0 after reset. */
	w->pw_flag = 0;
	w->ipush_area = 0;
	w->lhb_head = w->lhb_tail = 0;
	/* LH flags are 0 after Controller Reset (§7.2.1): clear the entries
	 * (a new node's are zero already, and stay untouched). */
	if (!fresh)
		memset(w->lhb, 0, DNET_LHB_SIZE);
	ring_defaults(w);
}

#if defined(__SANITIZE_ADDRESS__)
#define NODE_CALLOC 1 /* AddressSanitizer watches heap blocks, not mappings */
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NODE_CALLOC 1
#endif
#endif

static struct sim_node *node_alloc(void)
{
#ifdef NODE_CALLOC
	return calloc(1, sizeof(struct sim_node));
#else
	void *m = mmap(NULL, sizeof(struct sim_node), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
#ifdef MADV_NOHUGEPAGE
	/* a touched page is 4 KB, never a huge page (THP "always"); and the
	 * nodes' mappings, alike, merge into few VMAs */
	(void)madvise(m, sizeof(struct sim_node), MADV_NOHUGEPAGE);
#endif
	return m;
#endif
}

static void node_release(struct sim_node *n)
{
#ifdef NODE_CALLOC
	free(n);
#else
	munmap(n, sizeof *n);
#endif
}

struct sim_node *sim_node_get(struct sim *s, unsigned id)
{
	if (id < 1 || id > s->nnodes)
		return NULL;
	struct sim_node *n = s->node[id - 1];
	if (n)
		return n;
	/* An anonymous mapping, not calloc: its pages are zero without being
	 * written, and the large parts a node does not use (its Block RAMs,
	 * the tables per peer node, most of the SO-DIMM table) take no memory
	 * -- 3071 nodes fit in tens of MB. */
	if (!(n = node_alloc()))
		return NULL;
	n->id = id;
	n->sim = s;
	for (unsigned w = 0; w < DNET_NWID; w++) {
		n->w[w].ww = n->mem[w].ww;
		n->w[w].pw = n->mem[w].pw;
		n->w[w].llcm = n->mem[w].llcm;
		n->w[w].lhb = n->mem[w].lhb;
	}
	n->halt_on_error = s->halt_on_error;
	n->hostq.depth = n->rcq.depth = s->fifo_depth;
	n->hostq.v = calloc(s->fifo_depth, sizeof(struct sim_req));
	n->rcq.v = calloc(s->fifo_depth, sizeof(struct sim_req));
	if (!n->hostq.v || !n->rcq.v) {
		sim_node_free(n);
		return NULL;
	}
	for (unsigned w = 0; w < DNET_NWID; w++)
		wid_reset(&n->w[w], true);
	/* Decision D-SIM-START: by default a node is as after the standard
	 * initialisation (thesis App. A) -- SO-DIMM Init done, Capacity and
	 * MTU from the spec options (default 256 MB, 2048 B), LID = the SMA's
	 * LID (expanded from the node number as CLID), PGID0/1 = 0, link up,
	 * status rings at their reset values.  "cold" is power-on: all System
	 * Register values 0 (Capacity/MTU codes 0 read as the defaults of Tab.
	 * 4.10/4.11), SO-DIMM not initialised, LID 0, and the SMA reports the
	 * link up only after sma_up_ns. */
	if (s->cold) {
		set_cap_code(n, 0);
		set_mtu_code(n, 0);
		n->lid = 0;
		n->sdimm_ready = false;
		n->sma_up_at = s->t.sma_up_ns;
	} else {
		set_cap_code(n, s->cap_code);
		set_mtu_code(n, s->mtu_code);
		n->lid = sim_sma_lid(s, n);
		n->sdimm_ready = true;
		n->sma_up_at = 0;
	}
	s->node[id - 1] = n;
	s->nodes_allocated++;
	return n;
}

void sim_node_free(struct sim_node *n)
{
	if (!n)
		return;
	free(n->posted);
	sim_rc_reset(NULL, n);
	sim_sd_free(n);
	free(n->amt);
	free(n->hostq.v);
	free(n->rcq.v);
	node_release(n);
}

/* ---- Prefetch Window Flag (App. A, Tab. A.3; §4.5.5.2) ----
 * Decision D-SIM-PWFLAG (OQ-16): bit k of window n's nibble covers bytes
 * 128k..128k+127 of PW#n, so bit index = (PW area offset) / 128. */
/* The flags of the lines of dst's window that [dst, dst + len) does not
 * touch, as a nibble (§4.5.5.2 step 2). */
static unsigned pw_unwritten_nib(uint32_t dst, uint64_t len)
{
	uint32_t wbase = ((dst >> 9) & 3u) * DNET_WINDOW_SIZE;
	unsigned nib = 0;
	for (unsigned k = 0; k < DNET_PW_LINES; k++) {
		uint32_t lo = wbase + k * DNET_PW_LINE, hi = lo + DNET_PW_LINE;
		if (len == 0 || hi <= dst || lo >= dst + len)
			nib |= 1u << k;
	}
	return nib;
}

void sim_pw_flags_issue(struct sim_wid *w, uint32_t dst, uint64_t len)
{
	/* At issue the window's flags are reset and the lines the read will
	 * not write are set at once (§4.5.5.2 steps 1-2). */
	unsigned win = (dst >> 9) & 3u;
	w->pw_flag = (uint16_t)((w->pw_flag & ~(0xfu << (4 * win))) |
				pw_unwritten_nib(dst, len) << (4 * win));
}

void sim_pw_flags_unwritten(struct sim_wid *w, uint32_t dst, uint64_t len)
{
	/* When the Prefetch Unit starts, the read's real length is known (the
	 * SO-DIMM source may have cut it, D-SIM-SRC-CLIP): lines it will not
	 * write are set too, so that the window still reaches 4'b1111 (§4.5.5.2
	 * step 4). */
	unsigned win = (dst >> 9) & 3u;
	w->pw_flag = (uint16_t)(w->pw_flag | pw_unwritten_nib(dst, len) << (4 * win));
}

void sim_pw_flags_written(struct sim_wid *w, uint32_t off, uint32_t len)
{
	if (!len)
		return;
	for (uint32_t l = off / DNET_PW_LINE; l <= (off + len - 1) / DNET_PW_LINE && l < 16; l++)
		w->pw_flag |= (uint16_t)(1u << l);
}

/* Decision D-SIM-HALT (§4.5.5.2: Module State shows where the controller
 * stopped on an error; Controller Reset recovers): with the sim option
 * halt_on_error, a receive error (Controller Status [19:18], bit 17) or a
 * VS overrun flag stops the Window Controller and the Receive Controller
 * in their current states; nothing more is executed or received (packets
 * wait in the network) until Controller Reset.  Where each stops: a VS
 * after its clipped write, before the Vector Store Status (no "write
 * complete" bit, no VS counter; wc.c exec_vs); the RC holding the packet
 * in error -- in HEAD for a header error ([19:18]), after the clipped
 * write of an RVS-family packet's overrun (bit 17), before Packet Counter
 * and status; an IPUSH packet that cannot be received (bit 17) where
 * ipush.c drops it (rc.c rc_finish, sim_rc_step).  Module State shows those states.  Off by
 * default. */
void sim_error_raised(struct sim_node *n)
{
	if (n->halt_on_error)
		n->halted = true;
}

const char *const sim_cause_names[SIM_CAUSE_COUNT] = {
	"rc_overrun", "rc_state", "status_full", "pgid_drop", "unroutable", "rx_drop",
	"ww0_src_overrun", "ww0_dst_overrun", "ww1_src_overrun", "ww1_dst_overrun",
	"ww2_src_overrun", "ww2_dst_overrun", "ww3_src_overrun", "ww3_dst_overrun",
};

void sim_cause(struct sim_node *at, unsigned org_node, unsigned org_wid, uint32_t org_req, enum sim_cause c)
{
	struct sim *s = at->sim;
	struct sim_node *o = org_node >= 1 && org_node <= s->nnodes ? s->node[org_node - 1] : NULL;
	if (!o)
		return; /* no host request behind it (a fault's stray packet) */
	struct sim_caused *k = &o->caused[org_wid & 1u];
	k->last[c] = ++k->total;
	k->node[c] = (uint16_t)at->id;
	/* The request's own record (D-SIM-REQ-ID), unless a later request
	 * took its slot. */
	struct sim_req_rec *r = &k->rec[org_req % SIM_REQ_RECS];
	if (!org_req || r->req != org_req)
		return;
	r->errors++;
	if (!r->node[c])
		r->node[c] = (uint16_t)at->id;
}

void sim_rx_cause(struct sim_node *n, enum sim_cause c)
{
	if (n->rx_cur)
		sim_cause(n, n->rx_cur->org_node, n->rx_cur->org_wid, n->rx_cur->org_req, c);
}

void sim_sdimm_init_done(struct sim *s, struct sim_node *n)
{
	(void)s;
	n->sdimm_init_busy = false;
	n->sdimm_ready = true;
}

/* ---- Module State (Tab. A.4) with libdnet's sub-field layout ---- */
uint64_t sim_modstate(const struct sim_node *n)
{
	uint64_t v = DNET_MODSTATE_IDLE;
	const struct sim_wcjob *j = &n->job;
	if (j->kind != SIM_JOB_NONE) {
		unsigned ex = DNET_EX_PRIM;
		switch (j->kind) {
		case SIM_JOB_BOTF: ex = DNET_EX_BOTF3; break;
		case SIM_JOB_VL: ex = DNET_EX_VL2; break;
		case SIM_JOB_VS: ex = DNET_EX_VS1; break;
		case SIM_JOB_RVL: ex = DNET_EX_RVL1; break;
		case SIM_JOB_RVS:
		case SIM_JOB_IPUSH: /* the RVS states (§5.3.8) */
			ex = j->phase ? DNET_EX_RVS5 : DNET_EX_RVS1;
			break;
		default: break;
		}
		/* Waiting for SWIF FIFO space: BOTF and RVL wait in WAIT, RVS
		 * stays in RVS1 (Fig. 5.11, 5.14, 5.15). */
		if (n->tx_wait)
			ex = j->kind == SIM_JOB_BOTF ? DNET_EX_BOTF_WAIT
			   : j->kind == SIM_JOB_RVL ? DNET_EX_RVL_WAIT : DNET_EX_RVS1;
		core_modstate_set(&v, DNET_FSM_WC_EXECUTER, ex);
		/* While the executor is busy the Acceptor holds the next request
		 * in WAIT (§5.3.1). */
		if (n->hostq.count || n->rcq.count)
			core_modstate_set(&v, DNET_FSM_WC_ACCEPTER, DNET_ACC_WAIT);
		if (j->kind == SIM_JOB_VL || j->kind == SIM_JOB_RVS || j->kind == SIM_JOB_IPUSH) {
			core_modstate_set(&v, DNET_FSM_PU, DNET_PUS_READ);
			core_modstate_set(&v, DNET_FSM_PU_CTL, DNET_PUC_BUSY);
		}
		if (j->kind == SIM_JOB_VS) {
			core_modstate_set(&v, DNET_FSM_WU_WCTL, DNET_WUW_WRITE);
			core_modstate_set(&v, DNET_FSM_WU_RCTL, DNET_WUR_DATA);
		}
	} else if (n->hostq.count || n->rcq.count) {
		core_modstate_set(&v, DNET_FSM_WC_ACCEPTER, DNET_ACC_REQ);
	}
	if (n->rx_cur) {
		core_modstate_set(&v, DNET_FSM_RC, n->rc_ms);
		if (n->rc_ms == DNET_RCS_PW || n->rc_ms == DNET_RCS_LLCM)
			core_modstate_set(&v, DNET_FSM_RC_PWRITE, DNET_PWR_WRITE);
		if (n->rc_ms == DNET_RCS_WU)
			core_modstate_set(&v, DNET_FSM_WU_WCTL, DNET_WUW_WRITE);
		if (n->wu_ipush)
			core_modstate_set(&v, DNET_FSM_WU_IPUSH, n->wu_ipush);
	}
	return v;
}

static uint64_t ctl_status(const struct sim_node *n, unsigned wid)
{
	/* Decision D-SIM-CS-SCOPE (OQ-18): bits 0, 3-16 per WID; bits 1, 2 and
	 * 17-19 are the same in both User Registers. */
	const struct sim_wid *w = &n->w[wid];
	uint64_t v = w->cs_ww | n->cs_rc;
	if (w->pending[0] || w->pending[1])
		v |= DNET_CS_REQ_PENDING;
	if (n->sdimm_ready)
		v |= DNET_CS_SDIMM_INIT;
	if (sim_wc_fifo_almost_full(n))
		v |= DNET_CS_FIFO_FULL;
	if (sim_ring_full(w))
		v |= DNET_CS_STATUS_FULL;
	if (sim_ring_empty(w))
		v |= DNET_CS_STATUS_EMPTY;
	return v & DNET_CS_VALID_MASK;
}

static uint64_t ureg_read(const struct sim_node *n, unsigned wid, uint32_t o)
{
	const struct sim_wid *w = &n->w[wid];
	switch (o) {
	case DNET_UR_CTL_STATUS:
		return ctl_status(n, wid);
	case DNET_UR_PRIM_COUNTER: {
		uint64_t v = 0;
		for (unsigned f = 0; f < DNET_FAMILY_COUNT; f++)
			v |= (uint64_t)(w->prim[f] & ((1u << DNET_PC_BITS) - 1)) << DNET_PC_SHIFT(f);
		return v;
	}
	case DNET_UR_PW_FLAG:
		return w->pw_flag;
	case DNET_UR_PKT_COUNTER:
		return w->pkt_count;
	case DNET_UR_LHB_ADDR:
		return w->lhb_tail & 0xfffu;
	case DNET_UR_MODULE_STATE:
		return sim_modstate(n);
	case DNET_UR_STATUS_ADDR:
		return w->st_tail & 0x7fffu;
	default:
		return 0; /* write-only or unassigned: reads 0 [I] */
	}
}

static void ureg_write(struct sim *s, struct sim_node *n, unsigned wid, uint32_t o, uint64_t v)
{
	struct sim_wid *w = &n->w[wid];
	switch (o) {
	case DNET_UR_CMD0_LOWER: sim_wc_kick_lower(s, n, wid, 0, v); break;
	case DNET_UR_CMD1_LOWER: sim_wc_kick_lower(s, n, wid, 1, v); break;
	case DNET_UR_CMD0_UPPER: w->cmd_upper[0] = v; break;
	case DNET_UR_CMD1_UPPER: w->cmd_upper[1] = v; break;
	case DNET_UR_CMD_EX: w->cmd_ex = v; break;
	case DNET_UR_PRIM_COUNTER: memset(w->prim, 0, sizeof w->prim); break;
	case DNET_UR_PKT_COUNTER: w->pkt_count = 0; break;
	case DNET_UR_IPUSH_AREA: w->ipush_area = (uint16_t)v; sim_rc_retry(s, n); break;
	/* Decision D-SIM-LHS: Head steps by whole 64-byte entries [I]. */
	case DNET_UR_LHB_ADDR:
		w->lhb_head = (uint16_t)(v & 0xfc0u);
		sim_rc_retry(s, n);
		break;
	case DNET_UR_STATUS_INIT: sim_ring_config(w, 0, v); sim_rc_retry(s, n); break;
	case DNET_UR_STATUS_SIZE: sim_ring_config(w, 1, v); sim_rc_retry(s, n); break;
	case DNET_UR_STATUS_ADDR: sim_ring_config(w, 2, v); sim_rc_retry(s, n); break;
	case DNET_UR_CMD_EX_FLAG: w->ex_flag = v & 1u; break;
	default: break; /* read-only or unassigned: no effect [I] */
	}
}

/* Controller Reset (System Register 0xa00, any access; App. B).
 * Decision D-SIM-RESET (OQ-26): the reset returns the Core Logic's state
 * machines and User Register state to their reset values: both Request
 * FIFOs and command registers are emptied, the executor and the Receive
 * Controller abandon their work (queued received packets are dropped),
 * Controller Status bits (except 1), counters, PW flags, Command Ex Flag,
 * status ring and LH Buffer pointers are cleared, LH flags are 0.
 * Survive: SO-DIMM contents and SO-DIMM Init (App. B: need not be repeated
 * until power-off), the System Register configuration (Capacity, MTU, LID,
 * PGID0/1, AMT table: the privileged process's setup), and the contents of
 * Write Window, Prefetch Window and LLCM (Block RAM is not cleared). */
static void ctl_reset(struct sim *s, struct sim_node *n)
{
	sim_wc_reset(n);
	sim_rc_reset(s, n);
	for (unsigned w = 0; w < DNET_NWID; w++)
		wid_reset(&n->w[w], false);
	n->cs_rc = 0;
	n->copy.valid = false;
	n->halted = false;
}

static uint64_t sreg_read(struct sim *s, struct sim_node *n, uint32_t o, bool peek)
{
	switch (o) {
	case DNET_SR_SMA:
		if (s->now < n->sma_up_at)
			return 0; /* link not up: reads 0 (Fig. C.10) */
		return DNET_SMA_LINK_UP | sim_sma_lid(s, n);
	case DNET_SR_CTL_RESET:
		if (!peek)
			ctl_reset(s, n);
		return 0;
	default:
		return 0; /* only SMA LID is readable (§C.3.9) */
	}
}

static void amt_write(struct sim_node *n, uint64_t v)
{
	/* AMT Address Table Interface (App. B, Fig. B.1): [11:0] LLCM address,
	 * [13:12] sender WID (bit 12 used), [29:14] sender LID.  Stored by
	 * {CLID, WID} (8192 x 12 bit, Tab. 5.2; OQ-12; D-SIM-AMT-TABLE);
	 * ipush.c reads it on reception. */
	uint16_t clid;
	if (core_lid_to_clid(sim_clid_reading(n->sim), (uint16_t)(v >> 14), &clid, NULL)) {
		n->st[ST_AMT_BAD_LID]++; /* no CLID: no entry (D-SIM-AMT-TABLE) */
		return;
	}
	if (!n->amt && !(n->amt = calloc(8192, sizeof *n->amt))) {
		n->st[ST_ALLOC_FAIL]++;
		return;
	}
	n->amt[(unsigned)clid << 1 | ((v >> 12) & 1u)] = (uint16_t)(v & 0xfffu);
}

static void sreg_write(struct sim *s, struct sim_node *n, uint32_t o, uint64_t v)
{
	switch (o) {
	case DNET_SR_SDIMM_INIT:
		/* Decision D-SIM-SDIMM-INIT (OQ-11): bit 0 starts initialisation;
		 * Controller Status bit 1 reads 0 until it completes. */
		if (v & 1u) {
			/* A new Init restarts the full initialisation: the
			 * completion of an earlier one must not end it early
			 * (its event carries an older generation). */
			n->sdimm_ready = false;
			n->sdimm_init_busy = true;
			sim_schedule(s, s->now + s->t.sdimm_init_ns, EV_SDIMM_INIT, n->id,
				     ++n->sdimm_init_gen, 0, NULL);
		}
		break;
	case DNET_SR_SDIMM_CAPACITY: set_cap_code(n, v & 0x3fu); break;
	case DNET_SR_MTU: set_mtu_code(n, v & 0x1fu); break;
	case DNET_SR_SMA:
		/* SMA Software Reset: the link is re-trained; SMA LID reads 0 for
		 * sma_reset_ns [I]. */
		n->sma_up_at = s->now + s->t.sma_reset_ns;
		sim_schedule(s, n->sma_up_at, EV_TICK, n->id, 0, 0, NULL);
		break;
	case DNET_SR_LID: n->lid = (uint16_t)v; break;
	case DNET_SR_PGID0: n->pgid[0] = (uint8_t)v; break;
	case DNET_SR_PGID1: n->pgid[1] = (uint8_t)v; break;
	case DNET_SR_CTL_RESET: ctl_reset(s, n); break;
	case DNET_SR_AMT: amt_write(n, v); break;
	default: break;
	}
}

/* The host's cache state of the 64-byte line at device offset off: the
 * word holding its bit and the bit, or NULL outside the write-back regions
 * (Prefetch Window, LH Buffer). */
static uint64_t *wb_line(struct sim_node *n, uint32_t off, uint64_t *bit)
{
	enum dnet_region r;
	unsigned wid;
	uint32_t o;
	if (dnet_addr_lookup(off, &r, &wid, &o) || (r != DNET_REG_PW && r != DNET_REG_LHB))
		return NULL;
	*bit = 1ull << ((o / 64u) & 63u);
	return r == DNET_REG_PW ? &n->w[wid].pw_cached : &n->w[wid].lhb_cached;
}

/* What host accesses cost the host, in virtual ns, and the host-side
 * state they leave (WC buffers to drain, lines in the cache): naccess
 * accesses covering [off, off + len).  Decision D-SIM-HOST-COST
 * (docs/timing-model.md): Write Window stores are write-combined (§4.5.1)
 * and the next uncachable access drains them first; Prefetch Window and LH
 * Buffer reads are write-back (§4.5.2, §4.5.4): a line not cached is filled
 * from the DIMM (one bus access), a cached one reads at host memory speed;
 * clflush (sim_host_flush) evicts. */
static uint64_t charge_span(const struct sim *s, struct sim_node *n, uint32_t off, size_t len, size_t naccess,
			    bool write)
{
	const struct sim_timing *t = &s->t;
	uint32_t end = off + (uint32_t)len;
	switch (dnet_addr_attr(off)) {
	case DNET_ATTR_WC:
		if (write) {
			/* Stores into one 64-byte line combine into one burst:
			 * every line once, but not the line still being combined. */
			uint32_t l0 = off / 64u, l1 = (end - 1u) / 64u;
			uint64_t cost = (uint64_t)(l1 - l0 + 1u) * t->host_bus_line_ns;
			if (n->wc_dirty && n->wc_line == l0)
				cost -= t->host_bus_line_ns;
			n->wc_line = l1;
			n->wc_dirty = true;
			return cost;
		}
		break;
	case DNET_ATTR_WB: {
		uint64_t bit, *set;
		if (write || !wb_line(n, off, &bit))
			break;
		uint64_t cost = (uint64_t)((len + 7u) / 8u) * t->host_l2_8b_ns;
		for (uint32_t a = off & ~63u; a < end; a += 64)
			if ((set = wb_line(n, a, &bit)) && !(*set & bit)) {
				cost += t->host_wb_miss_ns;
				*set |= bit;
			}
		return cost;
	}
	default:
		break;
	}
	uint64_t cost = (uint64_t)naccess * (write ? t->host_uc_write_ns : t->host_uc_read_ns);
	if (n->wc_dirty) {
		cost += t->host_wc_drain_ns;
		n->wc_dirty = false;
	}
	return cost;
}

/* One host access of width bytes. */
uint64_t sim_host_charge(const struct sim *s, struct sim_node *n, uint32_t off, unsigned width,
			 bool write)
{
	return charge_span(s, n, off, width, 1, write);
}

/* ---- runs of 8-byte host accesses (block transfers) ----
 * A block transfer is a run of 8-byte accesses (host_xfer, sim.c).  Inside
 * one memory region (Write Window, Prefetch Window, LLCM, LH Buffer) the
 * run is charged and copied in one go, with exactly the cost and the state
 * the accesses one by one give; registers and holes go access by access. */

/* The bytes from off, at most len, that such a run covers: 0 if off is
 * not 8-aligned in a memory region. */
size_t sim_host_run(uint32_t off, size_t len)
{
	enum dnet_region r;
	unsigned wid;
	uint32_t o;
	if ((off & 7u) || len < 8 || dnet_addr_lookup(off, &r, &wid, &o) ||
	    (r != DNET_REG_WW && r != DNET_REG_PW && r != DNET_REG_LLCM && r != DNET_REG_LHB))
		return 0;
	size_t room = dnet_region_info(r)->size - o;
	return (len < room ? len : room) & ~(size_t)7;
}

/* The sum of sim_host_charge over the 8-byte accesses of a run, leaving
 * the same host-side state (WC line, cached lines). */
uint64_t sim_host_charge_run(const struct sim *s, struct sim_node *n, uint32_t off, size_t len,
			     bool write)
{
	return charge_span(s, n, off, len, len / 8u, write);
}

void sim_host_read_run(struct sim_node *n, uint32_t off, uint8_t *buf, size_t len)
{
	enum dnet_region r;
	unsigned wid;
	uint32_t o;
	if (dnet_addr_lookup(off, &r, &wid, &o))
		return;
	const struct sim_wid *w = &n->w[wid];
	switch (r) {
	case DNET_REG_PW: memcpy(buf, w->pw + o, len); break;
	case DNET_REG_LLCM: memcpy(buf, w->llcm + o, len); break;
	case DNET_REG_LHB: memcpy(buf, w->lhb + o, len); break;
	default: memset(buf, 0, len); break; /* Write Window: write-only */
	}
}

void sim_host_write_run(struct sim *s, struct sim_node *n, uint32_t off, const uint8_t *buf,
			size_t len)
{
	enum dnet_region r;
	unsigned wid;
	uint32_t o;
	if (dnet_addr_lookup(off, &r, &wid, &o))
		return;
	struct sim_wid *w = &n->w[wid];
	switch (r) {
	case DNET_REG_WW: memcpy(w->ww + o, buf, len); break;
	case DNET_REG_LLCM:
		memcpy(w->llcm + o, buf, len);
		sim_rc_retry(s, n); /* once is as good as once per access: no event runs between */
		break;
	default: break; /* Prefetch Window, LH Buffer: read-only */
	}
}

/* PREFETCHNTA of [off, off+len): lines not cached are filled back to
 * back, the first after a DIMM access, the others one bus burst each. */
uint64_t sim_host_prefetch(const struct sim *s, struct sim_node *n, uint32_t off, size_t len)
{
	uint64_t cost = 0, bit, *set;
	for (size_t i = 0; i < len; i += 64)
		if ((set = wb_line(n, off + (uint32_t)i, &bit)) && !(*set & bit)) {
			cost += cost ? s->t.host_bus_line_ns : s->t.host_wb_miss_ns;
			*set |= bit;
		}
	return cost;
}

/* clflush of [off, off+len): the lines of a write-back region leave the
 * cache (the next read misses).  Returns the host cost. */
uint64_t sim_host_flush(const struct sim *s, struct sim_node *n, uint32_t off, size_t len)
{
	uint64_t bit, *set;
	for (size_t i = 0; i < len; i += 64)
		if ((set = wb_line(n, off + (uint32_t)i, &bit)))
			*set &= ~bit;
	return (len + 63) / 64 * s->t.host_clflush_64b_ns;
}

int sim_host_read(struct sim *s, struct sim_node *n, uint32_t off, uint8_t *buf, unsigned wd,
		  bool peek)
{
	enum dnet_region r;
	unsigned wid;
	uint32_t o;
	if (dnet_addr_lookup(off, &r, &wid, &o)) {
		memset(buf, 0, wd); /* holes read 0 */
		return 0;
	}
	struct sim_wid *w = &n->w[wid];
	switch (r) {
	case DNET_REG_PW: memcpy(buf, w->pw + o, wd); return 0;
	case DNET_REG_LLCM: memcpy(buf, w->llcm + o, wd); return 0;
	case DNET_REG_LHB: memcpy(buf, w->lhb + o, wd); return 0;
	case DNET_REG_UREG:
	case DNET_REG_SREG:
		for (unsigned i = 0; i < wd; i += 8) {
			uint32_t o8 = (o + i) & ~7u;
			uint64_t v = r == DNET_REG_UREG ? ureg_read(n, wid, o8) : sreg_read(s, n, o8, peek);
			unsigned sh = (o + i) & 7u, len = wd < 8 ? wd : 8;
			for (unsigned b = 0; b < len; b++)
				buf[i + b] = (uint8_t)(v >> (8 * (sh + b)));
		}
		return 0;
	default:
		memset(buf, 0, wd); /* Write Window: write-only for the host [I] */
		return 0;
	}
}

int sim_host_write(struct sim *s, struct sim_node *n, uint32_t off, const uint8_t *buf,
		   unsigned wd)
{
	enum dnet_region r;
	unsigned wid;
	uint32_t o;
	if (dnet_addr_lookup(off, &r, &wid, &o))
		return 0; /* holes: ignored */
	struct sim_wid *w = &n->w[wid];
	switch (r) {
	case DNET_REG_WW: memcpy(w->ww + o, buf, wd); return 0;
	case DNET_REG_LLCM:
		memcpy(w->llcm + o, buf, wd);
		sim_rc_retry(s, n); /* a Head of an AMT entry may have moved (§7.1.3) */
		return 0;
	case DNET_REG_UREG:
	case DNET_REG_SREG:
		/* Registers are 64 bit; a narrower store writes its bytes with the
		 * other bytes of the register zero [I]. */
		for (unsigned i = 0; i < wd; i += 8) {
			uint32_t o8 = (o + i) & ~7u;
			unsigned sh = (o + i) & 7u, len = wd < 8 ? wd : 8;
			uint64_t v = dnet_get_le(buf + i, len) << (8 * sh);
			if (r == DNET_REG_UREG)
				ureg_write(s, n, wid, o8, v);
			else
				sreg_write(s, n, o8, v);
		}
		return 0;
	default:
		return 0; /* PW and LH Buffer are read-only for the host */
	}
}
