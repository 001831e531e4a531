/* sim: the Receive Controller and the Status Write Unit (docs/device.md,
 * 7.3, 6.3-6.5; thesis §4.2.2, §4.5.5.2, §5.4, Tab. 4.9, 4.15, 7.4, App. A).
 *
 * Packets arriving from SWIF queue in order; the RC handles one at a time:
 * header analysis, PGID check, the data write (Write Unit for SO-DIMM, the
 * RC itself for Prefetch Window and LLCM), the hand-over of RVL-family
 * requests to the Window Controller's second FIFO, and -- for eflag = 1 --
 * a 16-byte receive status into the destination process's LLCM ring.  A full
 * ring stalls reception until the host moves the Head (§5.4).
 */
#include <stdlib.h>
#include <string.h>
#include "dnet/bytes.h"
#include "dnet/codes.h"
#include "dnet/modstate.h"
#include "dnet/regs.h"
#include "sim/sim.h"

/* ---- status ring (Decision D-SIM-RING, OQ-14) ----
 * Pointers are absolute 15-bit LLCM byte addresses; each status advances
 * the Tail by 16 and the ring wraps from Initial + Size back to Initial;
 * Empty is Tail == Head, Full is next(Tail) == Head (one slot stays free).
 * Writing Status Initial Address or Status Area Size resets Head and Tail to
 * the Initial Address (the ring is empty after being configured).  The
 * Initial Address is aligned down to 16 bytes. */
static uint16_t ring_next(const struct sim_wid *w, uint16_t p)
{
	uint32_t rel = ((uint32_t)p - w->st_init) & 0x7fffu;
	rel = (rel + DNET_STATUS_SIZE) % w->st_size;
	return (uint16_t)((w->st_init + rel) & 0x7fffu);
}

bool sim_ring_full(const struct sim_wid *w)
{
	return ring_next(w, w->st_tail) == w->st_head;
}

bool sim_ring_empty(const struct sim_wid *w)
{
	return w->st_tail == w->st_head;
}

void sim_ring_config(struct sim_wid *w, int what, uint64_t v)
{
	switch (what) {
	case 0:
		w->st_init = (uint16_t)(v & 0x7ff0u);
		w->st_head = w->st_tail = w->st_init;
		break;
	case 1:
		w->st_size = dnet_status_area_bytes(v & 0x7fu);
		w->st_head = w->st_tail = w->st_init;
		break;
	default:
		w->st_head = (uint16_t)(v & 0x7fffu);
		break;
	}
}

/* ---- RC state ---- */

static void rc_schedule(struct sim *s, struct sim_node *n, uint64_t delay)
{
	if (n->rc_sched)
		return;
	n->rc_sched = true;
	sim_schedule(s, s->now + delay, EV_RC, n->id, n->rc_gen, 0, NULL);
}

bool sim_rc_busy(const struct sim_node *n)
{
	return n->rx_cur || n->rxq_len;
}

/* s = NULL when the whole cluster is being freed (no sender to notify). */
void sim_rc_reset(struct sim *s, struct sim_node *n)
{
	if (s) {
		sim_pkt_retired(n, n->rx_cur);
		sim_pkt_free(s, n->rx_cur);
	} else {
		free(n->rx_cur); /* the cluster is going: no deferred payload is read again */
	}
	n->rx_cur = NULL;
	while (n->rxq_head) {
		struct sim_pkt *p = n->rxq_head;
		n->rxq_head = p->next;
		if (s) {
			sim_sw_taken(s, p); /* dropped: the sender's FIFO slot frees */
			sim_pkt_retired(n, p);
			sim_pkt_free(s, p);
		} else {
			free(p);
		}
	}
	n->rxq_tail = NULL;
	n->rxq_len = 0;
	n->rc_gen++;
	n->rc_sched = false;
	n->rc_wait = RC_RUN;
	n->rc_phase = 0;
	n->rc_ms = DNET_RCS_IDLE;
	sim_ipush_reset(n);
}

void sim_rc_arrive(struct sim *s, struct sim_node *n, struct sim_pkt *p)
{
	p->next = NULL;
	if (n->rxq_tail)
		n->rxq_tail->next = p;
	else
		n->rxq_head = p;
	n->rxq_tail = p;
	n->rxq_len++;
	if (n->rx_cur)
		return;
	/* the step would be the next event: run it in place (host speed) */
	if (!n->rc_sched && sim_now_is_next(s))
		sim_rc_step(s, n);
	else
		rc_schedule(s, n, 0);
}

void sim_rc_retry(struct sim *s, struct sim_node *n)
{
	if (n->rx_cur && n->rc_wait != RC_RUN) {
		n->rc_wait = RC_RUN;
		rc_schedule(s, n, 0);
	}
}

static void rc_error(struct sim_node *n, enum dnet_rc_state st)
{
	/* Decision D-SIM-RC-ERR (OQ-18, Tab. A.1): the error code in [19:18]
	 * (and bit 17) is sticky until Controller Reset; the offending packet
	 * is dropped and reception continues -- unless halt_on_error, where the
	 * RC stops holding it (D-SIM-HALT, rc_finish). */
	n->cs_rc = (n->cs_rc & ~DNET_CS_RC_STATE_MASK) | ((uint64_t)st << DNET_CS_RC_STATE_SHIFT);
	n->st[ST_BAD_PKT]++;
	sim_rx_cause(n, SIM_CAUSE_RC_STATE);
	sim_error_raised(n);
}

static void rc_finish(struct sim *s, struct sim_node *n, uint64_t delay)
{
	/* Decision D-SIM-HALT: stopped on an error, the Receive Controller
	 * keeps the offending packet and its state (Module State) until
	 * Controller Reset (sim_rc_reset) drops it. */
	if (n->halted)
		return;
	sim_pkt_retired(n, n->rx_cur);
	sim_pkt_free(s, n->rx_cur);
	n->rx_cur = NULL;
	n->rc_phase = 0;
	n->rc_ms = DNET_RCS_IDLE;
	if (n->rxq_head)
		rc_schedule(s, n, delay);
}

/* Host speed: the data step of p may run now, at its time now + dur,
 * instead of as an event, when nothing can tell -- a contiguous RVS
 * packet into the SO-DIMM that fits there (no error, no status), nothing
 * queued behind it, and until then no event touches this node
 * (sim_quiet_until): the step schedules nothing and raises nothing. */
static bool rc_fuse_ok(struct sim *s, const struct sim_node *n, const struct sim_pkt *p,
		       const struct sim_rx_info *x, uint64_t dur)
{
	const struct sim_caused *k;
	return x->oi && x->oi->family == DNET_FAM_RVS && x->oi->variant == DNET_VAR_CONTIG && !x->h.eflag &&
	       !x->h.lflag && !x->h.rflag && !p->rel && !n->rxq_head &&
	       x->h.dstoff + x->dlen <= sim_capacity(n) && sim_quiet_until(s, n->id, s->now + dur) &&
	       (!(k = sim_pkt_origin(s, p)) || k->in_flight); /* retiring p commutes with sends */
}

/* Every field of x is set (no memset first: host speed, once a packet).
 * x holds the last packet decoded from *dw1 lines (nd of them): a packet
 * of two lines whose 1st DW is the last one's (the packets of one RVS)
 * only needs its 2nd DW decoded (host speed). */
static void rx_decode(const struct sim *s, const struct sim_pkt *p, struct sim_rx_info *x, uint64_t *dw1,
		      unsigned *nd)
{
	unsigned n = p->nlines < DNET_HDR_MAX_LINES ? p->nlines : DNET_HDR_MAX_LINES;
	/* a deferred payload's lines are not filled: only its header lines
	 * are read (the fields of further lines, unused by its TYPE, read 0) */
	if (p->lazy_src && n > p->lazy_hl)
		n = p->lazy_hl;
	if (n == 2 && *nd == 2 && p->line[0] == *dw1) {
		x->h.src_or_init_dst = (uint32_t)p->line[1];
		x->h.dstoff = (uint32_t)(p->line[1] >> 32);
	} else {
		dnet_hdr_decode(p->line, n, &x->h);
		x->oi = s->oi[x->h.type & 31u]; /* dnet_otype_info, looked up at open */
		x->hl = dnet_hdr_lines(&x->h);
		*dw1 = n ? p->line[0] : 0;
		*nd = n;
	}
	uint64_t have = p->nlines > x->hl ? (uint64_t)(p->nlines - x->hl) * 8 : 0;
	uint64_t said = x->h.size > x->hl * 8u ? x->h.size - x->hl * 8u : 0;
	x->dlen = said < have ? said : have;
}

/* Header checks; false = packet dropped (with the error recorded). */
static bool rx_check(struct sim_node *n, const struct sim_pkt *p, const struct sim_rx_info *x)
{
	const struct dnet_pkt_hdr *h = &x->h;
	if (p->nlines < 2) {
		rc_error(n, DNET_RC_HFLAG_MISMATCH);
		return false;
	}
	/* hflag must agree with the number of header lines the TYPE needs:
	 * 3 or 4 lines for RVSS/RVSI/RVL-family, 2 for RVS (Tab. 4.15). */
	if (x->oi) {
		bool needs3 = x->oi->family == DNET_FAM_RVL ||
			      (x->oi->family == DNET_FAM_RVS && x->oi->variant != DNET_VAR_CONTIG);
		bool two = x->oi->family == DNET_FAM_RVS && x->oi->variant == DNET_VAR_CONTIG;
		if ((needs3 && !h->hflag) || (two && h->hflag) || p->nlines < x->hl ||
		    h->size < x->hl * 8u) {
			rc_error(n, DNET_RC_HFLAG_MISMATCH);
			return false;
		}
	}
	/* Decision D-SIM-PGID (OQ-24, §4.4): a packet is delivered only if its
	 * PGID equals the PGID of the destination WID; otherwise it is dropped
	 * without any visible effect and counted (stat "pgid_drops"). */
	if (h->pgid != n->pgid[h->dwid & 1u]) {
		n->st[ST_PGID_DROPS]++;
		sim_rx_cause(n, SIM_CAUSE_PGID_DROP);
		return false;
	}
	/* An RVL-family packet must not carry data: [19:18] = 2'b11. */
	if (x->oi && x->oi->family == DNET_FAM_RVL && (p->nlines > 4 || h->size > 32)) {
		rc_error(n, DNET_RC_ILLEGAL_RVL);
		return false;
	}
	return true;
}

/* Scatter the packet's data, a deferred payload (switch.c) straight from
 * the source's SO-DIMM where it is stored in one piece: one copy, not two.
 * Only a contiguous store into another node's initialised SO-DIMM goes so
 * (cut at the end of the area as sim_pat_scatter cuts it, piece by piece
 * as one store would write); anything else fills p first. */
static bool rx_scatter(struct sim_node *n, struct sim_pkt *p, const struct sim_rx_info *x,
		       enum sim_target tg, const struct sim_pat *pat)
{
	unsigned dwid = x->h.dwid & 1u;
	uint8_t *data = (uint8_t *)&p->line[x->hl];
	struct sim_node *src = p->lazy_src;
	if (!src || src == n || tg != SIM_TGT_SDIMM || pat->kind != SIM_PAT_CONTIG || !n->sdimm_ready ||
	    p->lazy_hl != x->hl || p->lazy_len != x->dlen) {
		sim_pkt_fill(p);
		return sim_pat_scatter(n, dwid, tg, pat, 0, data, x->dlen);
	}
	uint64_t addr = p->lazy_addr, lim = sim_capacity(n), a = pat->base;
	uint64_t in = a >= lim ? 0 : (lim - a < x->dlen ? lim - a : x->dlen);
	sim_pkt_unlink(p); /* read now: nothing can store to src meanwhile */
	if (n->sim->running) {
		/* made with the next packets' copies, before anything reads or
		 * writes an SO-DIMM (sodimm.c) */
		if (in)
			sim_sd_copy_add(n, (uint64_t)dwid * lim + a, src, addr, in);
		return in == x->dlen;
	}
	for (uint64_t pos = 0; pos < in;) {
		size_t k = (size_t)(in - pos);
		const uint8_t *from = sim_sd_phys_ptr(src, addr + pos, &k);
		if (!from) {
			sim_sd_phys_read(src, addr + pos, data + pos, k);
			from = data + pos;
		}
		sim_sd_area_write(n, dwid, a + pos, from, k);
		pos += k;
	}
	return in == x->dlen;
}

static void rx_write_data(struct sim_node *n, struct sim_pkt *p, const struct sim_rx_info *x)
{
	const struct dnet_pkt_hdr *h = &x->h;
	struct sim_pat pat;
	sim_pat_from_req(&pat, x->oi->variant, h->dstoff, h->dtype, h->iter, h->stride_list, x->dlen);
	/* Receive destination (Tab. 4.15, §4.2.2): lflag = 1 -> the process's
	 * LLCM at DSTOff; else rflag = 1 -> its Prefetch Window area at DSTOff
	 * (0-0x7FF); else its SO-DIMM area.  Decision D-SIM-RX-CLIP (OQ-25):
	 * data past the end of the target area is not written and sets
	 * Controller Status bit 17. */
	enum sim_target tg = h->lflag ? SIM_TGT_LLCM : h->rflag ? SIM_TGT_PW : SIM_TGT_SDIMM;
	if (!rx_scatter(n, p, x, tg, &pat)) {
		n->cs_rc |= DNET_CS_RC_OVERRUN;
		sim_rx_cause(n, SIM_CAUSE_RC_OVERRUN);
		sim_error_raised(n);
	}
}

/* Write the receive status (Tab. 4.9, Decision D-SIM-STATUS, OQ-13):
 * OTYPE = packet TYPE, DTYPE/Iteration as received, DWID field = sender's
 * WID, DCLID field = sender's CLID (from the link's source LID, OQ-23),
 * eflag = 1, SRCOff field = first address written (Initial DSTOff), DSTOff
 * field = this packet's DSTOff, Size = bytes of the whole primitive: Total
 * Transfer Size for 3-line headers, else DSTOff + data - Initial DSTOff. */
static void rx_status(struct sim_node *n, const struct sim_pkt *p, const struct sim_rx_info *x)
{
	const struct dnet_pkt_hdr *h = &x->h;
	struct sim_wid *w = &n->w[h->dwid & 1u];
	struct dnet_status st;
	memset(&st, 0, sizeof st);
	uint16_t sclid = DNET_CLID_INIT;
	(void)core_lid_to_clid(sim_clid_reading(n->sim), p->slid, &sclid, NULL);
	st.otype = h->type;
	st.dtype = h->dtype;
	st.iter = h->iter;
	st.swid = h->swid;
	st.sclid = sclid;
	st.eflag = 1;
	if (x->oi && x->oi->family == DNET_FAM_IPUSH) {
		/* Decision D-SIM-IPUSH-STATUS: where the receiver put the
		 * message and its size (ipush.c). */
		st.size = n->rx_st_size;
		st.addr = n->rx_st_addr;
	} else {
		st.size = h->hflag ? h->total : (uint32_t)(h->dstoff + x->dlen - h->src_or_init_dst);
		st.addr = h->src_or_init_dst;
	}
	st.aux = h->dstoff;
	uint64_t lo, hi;
	core_status_encode(&st, &lo, &hi);
	/* WRITE1 writes the upper half, WRITE2 the lower and moves the Tail
	 * (§5.4); Lower at +0, Upper at +8 (OQ-13). */
	dnet_put64(w->llcm + ((w->st_tail + 8u) & 0x7fffu), hi);
	dnet_put64(w->llcm + (w->st_tail & 0x7fffu), lo);
	w->st_tail = ring_next(w, w->st_tail);
	if (sim_ring_full(w))
		sim_rx_cause(n, SIM_CAUSE_STATUS_FULL);
}

void sim_rc_step(struct sim *s, struct sim_node *n)
{
	n->rc_sched = false;
	if (n->halted)
		return; /* stopped on an error (D-SIM-HALT) */
	if (!n->rx_cur) {
		struct sim_pkt *p = n->rxq_head;
		if (!p)
			return;
		n->rxq_head = p->next;
		if (!n->rxq_head)
			n->rxq_tail = NULL;
		n->rxq_len--;
		n->rx_cur = p;
		rx_decode(s, p, &n->rx_x, &n->rx_dw1, &n->rx_nd); /* once: the packet does not change while held */
		sim_sw_taken(s, p);
		n->rc_phase = 0;
		n->rc_wait = RC_RUN;
		n->rc_stall_counted = false;
	}
	struct sim_pkt *p = n->rx_cur;
	const struct sim_rx_info *x = &n->rx_x; /* not copied: host speed */
	const struct sim_timing *t = &s->t;
	switch (n->rc_phase) {
	case 0: {
		n->rc_ms = DNET_RCS_HEAD;
		if (!rx_check(n, p, x)) {
			rc_finish(s, n, sim_clk(s, t->rc_hdr_clk));
			return;
		}
		uint64_t lines = (x->dlen + 7) / 8, clk = t->rc_hdr_clk, wu_lines = 0;
		if (!x->oi) {
			/* header only: dropped in phase 1 */
		} else if (x->oi->family == DNET_FAM_IPUSH) {
			/* Tab. 7.5: the Write Unit's AMT steps (Head/Tail fetch, ring
			 * start, ring end, room check) come before the PUSH steps;
			 * with LHS the RC writes the 8 lines of the LH entry [I]. */
			bool lhs = x->h.lflag || sim_ipush_is_lhs_type(x->h.type);
			uint64_t entry = lhs && x->dlen ? t->lh_entry_clk : 0;
			uint64_t rl = lhs ? (lines > 7 ? lines - 7 : 0) : lines;
			n->rc_ms = lhs ? DNET_RCS_LH : DNET_RCS_WU;
			clk += t->ipush_amt_clk + entry;
			if (rl)
				clk += t->wu_setup_clk + t->wu_write_clk + (rl - 1) * t->line_clk;
			wu_lines = rl;
		} else if (x->oi->family == DNET_FAM_RVL) {
			n->rc_ms = DNET_RCS_REQ;
			clk += t->rc_req_clk;
		} else if (x->h.lflag || x->h.rflag) {
			n->rc_ms = x->h.lflag ? DNET_RCS_LLCM : DNET_RCS_PW;
			clk += lines * t->line_clk;
		} else {
			n->rc_ms = DNET_RCS_WU;
			clk += t->wu_setup_clk + t->wu_write_clk + (lines ? lines - 1 : 0) * t->line_clk;
			wu_lines = lines;
		}
		n->rc_phase = 1;
		uint64_t dur = sim_clk(s, clk);
		if (wu_lines) {
			/* The Write Unit shares the SO-DIMM with the PU (D-SIM-SD-CONTEND). */
			dur += sim_sd_contend(s, dur, n->pu_until, wu_lines);
			n->wu_until = s->now + dur;
		}
		if (s->trace)
			sim_trace_span(s, n->id, SIM_TR_RC, s->now, s->now + dur, "receive %s %llu B from node %u",
				       x->oi ? x->oi->name : "?", (unsigned long long)x->dlen, p->src_node);
		if (rc_fuse_ok(s, n, p, x, dur)) {
			uint64_t t0 = s->now;
			s->now = t0 + dur;
			sim_rc_step(s, n);
			s->now = t0;
			return;
		}
		rc_schedule(s, n, dur);
		return;
	}
	case 1:
		if (!x->oi || (x->oi->family != DNET_FAM_RVS && x->oi->family != DNET_FAM_RVL &&
			      x->oi->family != DNET_FAM_IPUSH)) {
			/* Decision D-SIM-RX-TYPE: TYPEs with no receive action
			 * (NOP, BOTF, VL/VS families, unknown codes) are dropped. */
			n->st[ST_BAD_PKT]++;
			sim_rx_cause(n, SIM_CAUSE_RX_DROP);
			rc_finish(s, n, 0);
			return;
		}
		if (x->oi->family == DNET_FAM_IPUSH) {
			switch (sim_ipush_rx(s, n, p, &x->h, x->hl, x->dlen)) {
			case IPUSH_RX_STALL:
				n->rc_wait = RC_WAIT_IPUSH;
				n->rc_ms = DNET_RCS_STALL;
				return;
			case IPUSH_RX_DROP:
				rc_finish(s, n, 0);
				return;
			case IPUSH_RX_DONE:
				break;
			}
			n->rc_stall_counted = false;
			n->w[x->h.dwid & 1u].pkt_count++;
			n->st[ST_PKT_RECV]++;
			n->st[ST_BYTES_RECV] += x->dlen;
			if (!x->h.eflag) {
				rc_finish(s, n, 0);
				return;
			}
			n->rc_phase = 2;
			goto status;
		}
		if (x->oi->family == DNET_FAM_RVL) {
			struct sim_req q;
			memset(&q, 0, sizeof q);
			q.from_rc = true;
			q.slid = p->slid;
			q.org_node = p->org_node;
			q.org_wid = p->org_wid;
			q.org_req = p->org_req;
			q.hdr = x->h;
			q.wid = x->h.dwid & 1u;
			if (!sim_wc_rcq_push(s, n, &q)) {
				/* Second Request FIFO full: the RC waits [I]. */
				n->rc_wait = RC_WAIT_FIFO;
				return;
			}
			/* Decision D-SIM-RVL-RX: the Packet Counter counts every
			 * packet received (App. A), the RVL request too; it writes
			 * no status (§5.4: the Request Separator makes it a request). */
			n->w[x->h.dwid & 1u].pkt_count++;
			n->st[ST_PKT_RECV]++;
			rc_finish(s, n, 0);
			return;
		}
		rx_write_data(n, p, x);
		if (n->halted)
			return; /* bit 17 with halt_on_error: stopped after the clipped write (D-SIM-HALT) */
		/* Packet Counter of the DWID process += 1 per packet (App. A). */
		n->w[x->h.dwid & 1u].pkt_count++;
		n->st[ST_PKT_RECV]++;
		n->st[ST_BYTES_RECV] += x->dlen;
		if (!x->h.eflag) {
			rc_finish(s, n, 0);
			return;
		}
		n->rc_phase = 2;
		/* fall through */
	case 2:
	status: {
		struct sim_wid *w = &n->w[x->h.dwid & 1u];
		if (sim_ring_full(w)) {
			/* Status Write Unit busy: reception stalls (§5.4).  A wake-up
			 * that finds the ring still full (a Head write that frees
			 * nothing, a request taken from the RC FIFO) continues the
			 * same stall: it is counted once per packet. */
			if (!n->rc_stall_counted)
				n->st[ST_RC_STALLS]++;
			n->rc_stall_counted = true;
			n->rc_wait = RC_WAIT_RING;
			n->rc_ms = DNET_RCS_STALL;
			return;
		}
		n->rc_ms = DNET_RCS_STATUS;
		n->rc_phase = 3;
		sim_trace_span(s, n->id, SIM_TR_STATUS, s->now, s->now + sim_clk(s, t->rc_status_clk), "status");
		rc_schedule(s, n, sim_clk(s, t->rc_status_clk));
		return;
	}
	case 3:
		/* The status and Status Next Write Address are seen when the
		 * step ends: WRITE2 writes the lower half and moves the address
		 * (§5.4), the last of Tab. 7.4's "write status" clocks.  Only
		 * this RC writes the ring, so it still has room. */
		rx_status(n, p, x);
		rc_finish(s, n, 0);
		return;
	default:
		rc_finish(s, n, 0);
		return;
	}
}
