/* sim: the Window Controller (thesis §5.2.2,
 * §5.3, Fig. 5.7-5.15): command registers -> Request FIFO -> Acceptor ->
 * Executor with one module per primitive family.  The Executor runs one
 * primitive at a time (§5.3, a module returns to PRIM only when its
 * primitive is finished), except that the VL half of an SO-DIMM copy ends
 * without waiting for the Prefetch Unit (§5.3.4).
 */
#include <stdlib.h>
#include <string.h>
#include "dnet/codes.h"
#include "dnet/regs.h"
#include "sim/sim.h"

/* ---- Request FIFOs ---- */

static bool fifo_push(struct sim_fifo *f, const struct sim_req *r)
{
	if (f->count >= f->depth)
		return false;
	f->v[(f->head + f->count++) % f->depth] = *r;
	return true;
}

static bool fifo_pop(struct sim_fifo *f, struct sim_req *r)
{
	if (!f->count)
		return false;
	*r = f->v[f->head];
	f->head = (f->head + 1) % f->depth;
	f->count--;
	return true;
}

/* Decision D-SIM-FIFO (OQ-21): the host Request FIFO holds fifo_depth
 * requests (default 8, option fifo=N) shared by both WIDs (Fig. 5.7).
 * "Almost Full" (Controller Status bit 2) is raised when at most one slot is
 * left (count >= depth - 1), so a host that saw bit 2 = 0 always finds room
 * for the request it kicks next; a kicked request still moves into the FIFO
 * whenever a slot is free. */
bool sim_wc_fifo_almost_full(const struct sim_node *n)
{
	return n->hostq.count + 1 >= n->hostq.depth;
}

bool sim_wc_busy(const struct sim_node *n)
{
	return n->job.kind != SIM_JOB_NONE || n->hostq.count || n->rcq.count ||
	       n->w[0].pending[0] || n->w[0].pending[1] || n->w[1].pending[0] ||
	       n->w[1].pending[1];
}

void sim_wc_reset(struct sim_node *n)
{
	n->hostq.head = n->hostq.count = 0;
	n->rcq.head = n->rcq.count = 0;
	memset(&n->job, 0, sizeof n->job);
	n->job.kind = SIM_JOB_NONE;
	n->wc_gen++;
	n->wc_sched = false;
	n->tx_wait = false;
}

/* The executor's next step, at now + delay.  wc_step_at replaces any step
 * already scheduled (a running job sets its own timing); wc_schedule only
 * makes sure one is scheduled (new requests for an idle executor). */
static void wc_step_at(struct sim *s, struct sim_node *n, uint64_t delay)
{
	n->wc_sched = true;
	sim_schedule(s, s->now + delay, EV_WC, n->id, n->wc_gen, ++n->wc_seq, NULL);
}

static void wc_schedule(struct sim *s, struct sim_node *n, uint64_t delay)
{
	if (n->wc_sched)
		return;
	n->acc_from = s->now; /* the Acceptor starts on the new request (trace) */
	wc_step_at(s, n, delay);
}

/* The executor waits in WAIT while the SWIF FIFO is full (Fig. 5.11 WAIT,
 * 5.14 WAIT, 5.15 RVS1 "SWIF space"); it leaves no step scheduled and
 * sim_sw_taken wakes it, one clock later, when a slot frees. */
static bool swif_wait(struct sim_node *n)
{
	if (sim_sw_can_send(n))
		return false;
	n->tx_wait = true;
	return true;
}

void sim_wc_wake(struct sim *s, struct sim_node *n)
{
	n->tx_wait = false;
	wc_step_at(s, n, sim_clk(s, 1));
}

/* ---- issue: Command Lower kicks (§5.2.2) ---- */

static bool req_is_copy_vl(const struct dnet_req *r)
{
	/* Decision D-SIM-COPY-MARKER (OQ-7): a VL-family request is the first
	 * half of an SO-DIMM copy when DSTOff = 0xffffffff (§4.6.8) or, as
	 * tested by Fig. 5.12 (§5.3.4), SRCOff = 0xffffffff.  In the second form
	 * the other offset (DSTOff) is taken as the SO-DIMM source. */
	return r->dstoff == DNET_COPY_MARKER || r->srcoff == DNET_COPY_MARKER;
}

/* Bytes a VL-family read (or an RVL into the Prefetch Window) puts into
 * the window of PW offset dst: truncated at the window end, with no flag
 * (§4.6.3).  Decision D-SIM-VL-CLIP (OQ-25): VLS/VLI truncate whole
 * elements (Iteration is reduced), VL truncates bytes. */
static uint32_t vl_len(unsigned variant, uint32_t dst, unsigned dtype, unsigned iter,
		       uint64_t size)
{
	uint32_t room = (dst / DNET_WINDOW_SIZE + 1) * DNET_WINDOW_SIZE - dst;
	if (variant == DNET_VAR_CONTIG)
		return size < room ? (uint32_t)size : room;
	uint32_t e = dnet_dtype_bytes(dtype), nfit = room / e;
	return (iter < nfit ? iter : nfit) * e;
}

/* Decision D-SIM-PW-OFF: PW and WW area offsets in requests use their low
 * 11 bits (the 2 KB area of the process); higher bits are ignored. */
#define AREA_OFF(x) ((uint32_t)(x) & (DNET_WINAREA_SIZE - 1u))

static void issue_pw_flags(struct sim_wid *w, const struct sim_req *q)
{
	struct dnet_req r;
	dnet_req_decode(q->lower, q->upper, q->has_ex ? &q->ex : NULL, &r);
	const struct dnet_otype_info *oi = dnet_otype_info(r.otype);
	if (!oi)
		return;
	/* Decision D-SIM-PWFLAG (OQ-16): the flags of the destination
	 * window are reset when Command Lower is written ("at issue"), and the
	 * lines the read will not write are set at the same moment.  This
	 * applies to VL-family reads and to RVL-family reads through Command1
	 * (their data also lands in the Prefetch Window). */
	if (oi->family == DNET_FAM_VL && !req_is_copy_vl(&r)) {
		uint32_t dst = AREA_OFF(r.dstoff);
		uint64_t size = oi->variant == DNET_VAR_CONTIG ? r.size : 0;
		sim_pw_flags_issue(w, dst, vl_len(oi->variant, dst, r.dtype, r.iter, size));
	} else if (oi->family == DNET_FAM_RVL && q->sel == 1) {
		uint32_t dst = AREA_OFF(r.dstoff);
		uint64_t total = oi->variant == DNET_VAR_CONTIG
					 ? r.size : (uint64_t)dnet_dtype_bytes(r.dtype) * r.iter;
		sim_pw_flags_issue(w, dst, vl_len(DNET_VAR_CONTIG, dst, 0, 0, total));
	}
}

void sim_wc_kick_lower(struct sim *s, struct sim_node *n, unsigned wid, unsigned sel,
		   uint64_t lower)
{
	struct sim_wid *w = &n->w[wid];
	if (w->pending[sel])
		n->st[ST_REQ_OVERWRITTEN]++; /* the register is simply overwritten [I] */
	struct sim_req *q = &w->pend[sel];
	memset(q, 0, sizeof *q);
	/* Lower is taken with the current Upper of the same command register
	 * and, while Command Ex Flag = 1, Command Ex (§5.2.2).  Upper and Ex
	 * keep their values after a kick (OQ-30). */
	q->lower = lower;
	q->upper = w->cmd_upper[sel];
	q->has_ex = w->ex_flag;
	q->ex = w->cmd_ex;
	q->sel = sel;
	q->wid = wid;
	/* its own id (D-SIM-REQ-ID); 0 is skipped when the count wraps */
	struct sim_caused *k = &n->caused[wid & 1u];
	if (!++k->requests)
		k->requests = 1;
	q->org_req = k->requests;
	struct sim_req_rec *rec = &k->rec[q->org_req % SIM_REQ_RECS];
	memset(rec, 0, sizeof *rec);
	rec->req = q->org_req;
	w->pending[sel] = true;
	w->pend_seq[sel] = n->pend_seq++;
	issue_pw_flags(w, q);
	sim_schedule(s, s->now + sim_clk(s, s->t.cfg_forward_clk), EV_ACCEPT, n->id, 0, 0, NULL);
}

/* Move kicked requests from the command registers into the Request FIFO,
 * oldest first, while there is room (§5.2.2 step 4). */
static void accept_pending(struct sim_node *n)
{
	for (;;) {
		struct sim_wid *best = NULL;
		unsigned bsel = 0;
		for (unsigned wi = 0; wi < DNET_NWID; wi++)
			for (unsigned sel = 0; sel < 2; sel++)
				if (n->w[wi].pending[sel] &&
				    (!best || n->w[wi].pend_seq[sel] < best->pend_seq[bsel])) {
					best = &n->w[wi];
					bsel = sel;
				}
		if (!best || !fifo_push(&n->hostq, &best->pend[bsel]))
			break;
		best->pending[bsel] = false;
	}
}

void sim_wc_accept(struct sim *s, struct sim_node *n)
{
	accept_pending(n);
	if (n->job.kind == SIM_JOB_NONE && n->hostq.count)
		wc_schedule(s, n, sim_clk(s, s->t.acc_clk));
}

bool sim_wc_rcq_push(struct sim *s, struct sim_node *n, const struct sim_req *r)
{
	if (!fifo_push(&n->rcq, r))
		return false;
	if (n->job.kind == SIM_JOB_NONE)
		wc_schedule(s, n, sim_clk(s, s->t.acc_clk));
	return true;
}

/* Decision D-SIM-FIFO-ARB (OQ-21): the Acceptor serves the host FIFO and
 * the Receive Controller's FIFO round-robin when both hold requests. */
static bool pick(struct sim *s, struct sim_node *n, struct sim_req *r)
{
	bool from_rc;
	if (n->hostq.count && n->rcq.count)
		from_rc = (n->rr ^= 1u) != 0;
	else
		from_rc = n->rcq.count != 0;
	if (from_rc) {
		if (!fifo_pop(&n->rcq, r))
			return false;
		sim_rc_retry(s, n);
	} else {
		if (!fifo_pop(&n->hostq, r))
			return false;
		accept_pending(n); /* a FIFO slot freed; the running job schedules itself */
	}
	return true;
}

static void job_done(struct sim *s, struct sim_node *n, uint64_t delay)
{
	if (s->trace && n->job.kind != SIM_JOB_NONE) {
		const struct dnet_otype_info *oi = dnet_otype_info(n->job.r.otype);
		sim_trace_span(s, n->id, SIM_TR_EXEC, n->job.t_start, s->now + delay, "%s%s",
			       n->job.req.from_rc ? "RVL response " : "", oi ? oi->name : "?");
	}
	memset(&n->job, 0, sizeof n->job);
	n->job.kind = SIM_JOB_NONE;
	if (n->hostq.count || n->rcq.count) {
		n->acc_from = s->now + delay; /* it pre-read the next request (Fig. 5.9) */
		wc_step_at(s, n, delay + sim_clk(s, s->t.acc_pre_clk));
	}
}

static void job_next(struct sim *s, struct sim_node *n, unsigned phase, uint64_t delay)
{
	n->job.phase = phase;
	wc_step_at(s, n, delay);
}

static uint64_t lines_of(uint64_t bytes)
{
	return (bytes + 7) / 8;
}

/* ---- packet building ---- */

void sim_wc_job_origin(const struct sim_node *n, uint16_t *node, uint8_t *wid, uint32_t *req)
{
	const struct sim_req *r = &n->job.req;
	*node = r->from_rc ? r->org_node : (uint16_t)n->id;
	*wid = (uint8_t)(r->from_rc ? r->org_wid : r->wid & 1u);
	*req = r->org_req;
}

/* An overrun flag of window win rose for the running job (D-SIM-CAUSE). */
static void ww_cause(struct sim_node *n, unsigned win, bool dst)
{
	uint16_t on;
	uint8_t ow;
	uint32_t orq;
	sim_wc_job_origin(n, &on, &ow, &orq);
	sim_cause(n, on, ow, orq, (enum sim_cause)(SIM_CAUSE_WW0_SRC + 2 * win + (dst ? 1 : 0)));
}

/* The caller writes the data_bytes after the header lines; dw1 is h's
 * 1st DW (dnet_hdr_dw1). */
static struct sim_pkt *build_pkt_dw1(struct sim *s, struct sim_node *n, const struct dnet_pkt_hdr *h,
				     uint64_t dw1, unsigned hdr_lines, uint64_t data_bytes)
{
	struct sim_pkt *p = sim_pkt_alloc_lines(s, hdr_lines + (unsigned)lines_of(data_bytes));
	if (!p) {
		n->st[ST_ALLOC_FAIL]++;
		return NULL;
	}
	p->line[0] = dw1;
	p->line[1] = dnet_hdr_dw2(h);
	if (hdr_lines > 2)
		p->line[2] = core_hdr_dw3(h);
	if (hdr_lines > 3)
		p->line[3] = core_hdr_dw4(h);
	return p;
}

static struct sim_pkt *build_pkt(struct sim *s, struct sim_node *n, const struct dnet_pkt_hdr *h,
				 unsigned hdr_lines, uint64_t data_bytes)
{
	return build_pkt_dw1(s, n, h, dnet_hdr_dw1(h), hdr_lines, data_bytes);
}

/* ---- BOTF (§4.6.2, §5.3.3, Fig. 5.11) ---- */

static void exec_botf(struct sim *s, struct sim_node *n)
{
	struct sim_wcjob *j = &n->job;
	if (j->phase == 1) {
		n->w[j->req.wid].prim[DNET_FAM_BOTF]++;
		job_done(s, n, 0);
		return;
	}
	struct dnet_botf_req b;
	dnet_botf_decode(j->req.lower, &b);
	if (b.size == 0) { /* invalid request, dropped (§5.3.3) */
		n->st[ST_BOTF_DROPPED]++;
		job_done(s, n, sim_clk(s, 1));
		return;
	}
	if (swif_wait(n))
		return;
	unsigned size = b.size > DNET_BOTF_MAX ? DNET_BOTF_MAX : b.size;
	/* Decision D-SIM-BOTF-LINES (OQ-22): ceil(Size/8) lines are read from
	 * the start of the window; the Packet Size field is set to Size (after
	 * the 512 cap); only PGID and Packet Size are rewritten (§4.6.2). */
	unsigned nl = (unsigned)lines_of(size);
	struct sim_pkt *p = sim_pkt_alloc(nl);
	if (!p) {
		n->st[ST_ALLOC_FAIL]++;
		job_done(s, n, 0);
		return;
	}
	memcpy(p->line, n->w[j->req.wid].ww + b.ww * DNET_WINDOW_SIZE, (size_t)nl * 8);
	uint64_t pg = (uint64_t)n->pgid[j->req.wid] << DNET_H1_PGID_SHIFT;
	p->line[0] = (p->line[0] & ~(DNET_H1_PGID_MASK | DNET_H1_SIZE_MASK)) |
		     (pg & DNET_H1_PGID_MASK) | ((uint64_t)size << DNET_H1_SIZE_SHIFT);
	uint64_t send = sim_clk(s, s->t.botf_setup_clk + (uint64_t)nl * s->t.line_clk);
	sim_sw_send(s, n, p, s->now + send);
	job_next(s, n, 1, send + sim_clk(s, s->t.botf_end_clk));
}

/* ---- VL family (§4.6.3, §5.3.4, Fig. 5.12) ---- */

/* Moving pos bytes of pattern p at line_ns per 64-bit line, plus a
 * per-element cost for stride/list accesses. */
static uint64_t pat_time(const struct sim *s, const struct sim_pat *p, uint64_t pos,
			 uint64_t line_ns)
{
	uint64_t ns = lines_of(pos) * line_ns;
	if (p->kind != SIM_PAT_CONTIG && p->esize) {
		uint64_t elems = (pos + p->esize - 1) / p->esize;
		ns += sim_clk(s, elems * (s->t.pu_elem_clk + (p->kind == SIM_PAT_LIST ? s->t.pu_list_clk : 0)));
	}
	return ns;
}

/* Lines the Prefetch Unit reads for `lines` lines of data: whole bursts. */
static uint64_t pu_lines(const struct sim *s, uint64_t lines)
{
	uint64_t b = s->t.pu_burst_lines ? s->t.pu_burst_lines : 1;
	return (lines + b - 1) / b * b;
}

/* Prefetch Unit: first-data latency, then its streaming rate. */
static uint64_t stream_time(const struct sim *s, const struct sim_pat *p, uint64_t pos)
{
	uint64_t ns = pat_time(s, p, pos, s->t.pu_8b_ns);
	uint64_t l = lines_of(pos);
	return sim_clk(s, s->t.pu_first_clk) + ns + (pu_lines(s, l) - l) * s->t.pu_8b_ns;
}

static uint64_t clip_contig_src(const struct sim_node *n, uint64_t src, uint64_t total)
{
	/* Decision D-SIM-SRC-CLIP (OQ-25): a contiguous SO-DIMM read that runs
	 * past the end of the process's area is truncated there, without a
	 * flag (the thesis defines no source error for the VL/RVS families). */
	uint64_t cap = sim_capacity(n);
	if (src >= cap)
		return 0;
	return total < cap - src ? total : cap - src;
}

static void vl_schedule_line(struct sim *s, struct sim_node *n)
{
	struct sim_wcjob *j = &n->job;
	uint32_t lend = (j->line + 1) * DNET_PW_LINE;
	uint32_t end = j->dst + j->len < lend ? j->dst + j->len : lend;
	uint64_t at = j->t0 + stream_time(s, &j->pat, end - j->dst);
	job_next(s, n, 1, at > s->now ? at - s->now : 0);
}

static void exec_vl(struct sim *s, struct sim_node *n)
{
	struct sim_wcjob *j = &n->job;
	struct sim_wid *w = &n->w[j->req.wid];
	const struct dnet_otype_info *oi = dnet_otype_info(j->r.otype);
	if (j->phase == 0) {
		struct dnet_req *r = &j->r;
		/* Decision D-SIM-LHS-VL (§7.2.1): a VL issued as soon as an LH
		 * entry's Valid flag toggled is not executed until the message's
		 * reception is complete; ipush.c wakes the executor. */
		if (sim_ipush_receiving(n, j->req.wid)) {
			n->vl_hold = true;
			return;
		}
		if (req_is_copy_vl(r)) {
			/* First half of an SO-DIMM copy: remember the source and end at
			 * once (VL1 -> VL END, §5.3.4).  Decision D-SIM-COPY-DONE
			 * (OQ-7): the VL counter counts this half when it ends. */
			uint32_t src = r->dstoff == DNET_COPY_MARKER ? r->srcoff : r->dstoff;
			uint64_t total = oi->variant == DNET_VAR_CONTIG
						 ? clip_contig_src(n, src, r->size)
						 : (uint64_t)dnet_dtype_bytes(r->dtype) * r->iter;
			n->copy.valid = true;
			n->copy.wid = j->req.wid;
			sim_pat_from_req(&n->copy.src, oi->variant, src, r->dtype, r->iter, r->size, total);
			w->prim[DNET_FAM_VL]++;
			job_done(s, n, sim_clk(s, 1 + s->t.end_clk));
			return;
		}
		j->dst = AREA_OFF(r->dstoff);
		uint64_t size = oi->variant == DNET_VAR_CONTIG ? clip_contig_src(n, r->srcoff, r->size) : 0;
		j->len = vl_len(oi->variant, j->dst, r->dtype, r->iter, size);
		sim_pat_from_req(&j->pat, oi->variant, r->srcoff, r->dtype, r->iter, r->size, j->len);
		/* The data is read when the Prefetch Unit starts (a snapshot);
		 * it lands in the window line by line, each line's flag set as it
		 * completes (§4.5.5.2 step 3). */
		sim_pat_gather(n, j->req.wid, &j->pat, 0, j->buf, j->len);
		sim_pw_flags_unwritten(w, j->dst, j->len);
		if (j->len == 0) {
			w->prim[DNET_FAM_VL]++;
			job_done(s, n, sim_clk(s, 1 + s->t.end_clk));
			return;
		}
		j->t0 = s->now + sim_clk(s, 1);
		j->line = j->dst / DNET_PW_LINE;
		vl_schedule_line(s, n);
		return;
	}
	/* phase 1: line j->line has landed */
	uint32_t lo = j->line * DNET_PW_LINE, hi = lo + DNET_PW_LINE;
	uint32_t a = j->dst > lo ? j->dst : lo;
	uint32_t b = j->dst + j->len < hi ? j->dst + j->len : hi;
	memcpy(w->pw + a, j->buf + (a - j->dst), b - a);
	w->pw_flag |= (uint16_t)(1u << j->line);
	if (b == j->dst + j->len) {
		w->prim[DNET_FAM_VL]++;
		job_done(s, n, sim_clk(s, s->t.end_clk));
		return;
	}
	j->line++;
	vl_schedule_line(s, n);
}

/* ---- VS family (§4.6.4, §5.3.5, Fig. 5.13) ---- */

static void exec_vs(struct sim *s, struct sim_node *n)
{
	struct sim_wcjob *j = &n->job;
	struct dnet_req *r = &j->r;
	unsigned wid = j->req.wid;
	struct sim_wid *w = &n->w[wid];
	const struct dnet_otype_info *oi = dnet_otype_info(r->otype);
	/* The status group is chosen by the source window w = SRCOff[10:9]
	 * ([R], Fig. C.12).  For the copy (SRCOff = 0xffffffff) that is group 3:
	 * decision D-SIM-COPY-DONE reports the copy there. */
	unsigned win = (r->srcoff >> 9) & 3u;
	bool copy = r->srcoff == DNET_COPY_MARKER;
	uint64_t e = dnet_dtype_bytes(r->dtype);
	struct sim_pat dp;
	if (j->phase == 0) {
		/* Decision D-SIM-CS-CLEAR (OQ-18): the window's three bits are
		 * cleared when a new VS-family request from it starts. */
		w->cs_ww &= ~DNET_CS_WW_BITS(win);
		uint64_t total;
		if (copy) {
			total = n->copy.valid ? n->copy.src.total : 0;
			uint64_t vt = oi->variant == DNET_VAR_CONTIG ? r->size : e * r->iter;
			if (vt < total)
				total = vt;
		} else {
			/* Decision D-SIM-VS-SRC (§4.6.4, Tab. A.1 bit 6+3w): a
			 * source offset past the process's 2 KB Write Window area
			 * runs past the end of the window: nothing is written and
			 * the source-overrun flag of window SRCOff[10:9] rises. */
			uint32_t src = AREA_OFF(r->srcoff);
			uint32_t room = r->srcoff >= DNET_WINAREA_SIZE
						? 0 : (win + 1) * DNET_WINDOW_SIZE - src;
			if (oi->variant == DNET_VAR_CONTIG) {
				total = r->size;
				if (total > room) { /* Size clipped, source overrun */
					total = room;
					w->cs_ww |= DNET_CS_WW_SRC_OVR(win);
					ww_cause(n, win, false);
				}
			} else {
				uint64_t it = r->iter;
				if (it * e > room) { /* Iteration clipped, source overrun */
					it = room / e;
					w->cs_ww |= DNET_CS_WW_SRC_OVR(win);
					ww_cause(n, win, false);
				}
				total = it * e;
			}
			memcpy(j->buf, w->ww + src, total);
		}
		j->len = (uint32_t)(total > UINT32_MAX ? UINT32_MAX : total);
		j->pos = total;
		sim_pat_from_req(&dp, oi->variant, r->dstoff, r->dtype, r->iter, r->size, total);
		uint64_t clk = s->t.wu_setup_clk + s->t.wu_write_clk + s->t.end_clk;
		uint64_t t = sim_clk(s, clk) + pat_time(s, &dp, total, sim_clk(s, s->t.line_clk));
		job_next(s, n, 1, t);
		return;
	}
	/* phase 1: the Write Unit has written the data; Vector Store Status. */
	uint64_t total = j->pos;
	sim_pat_from_req(&dp, oi->variant, r->dstoff, r->dtype, r->iter, r->size, total);
	bool ok = true;
	if (copy) {
		uint8_t tmp[4096];
		for (uint64_t pos = 0; pos < total; pos += sizeof tmp) {
			uint64_t len = total - pos < sizeof tmp ? total - pos : sizeof tmp;
			sim_pat_gather(n, n->copy.wid, &n->copy.src, pos, tmp, len);
			if (!sim_pat_scatter(n, wid, SIM_TGT_SDIMM, &dp, pos, tmp, len))
				ok = false;
		}
		n->copy.valid = false;
	} else {
		ok = sim_pat_scatter(n, wid, SIM_TGT_SDIMM, &dp, 0, j->buf, total);
	}
	/* Destination past the process's own SO-DIMM area: only what fits is
	 * written, flag bit 7 + 3w.  Decision D-SIM-VS-DST (§4.6.4): the flag
	 * is judged as the thesis states it -- VS and VSS on DSTOff + the total
	 * transfer size against the area (for VSS not per strided element:
	 * Stride 0 near the end raises it although every element fits, a large
	 * Stride from a low DSTOff does not although elements fall outside);
	 * VSI on each element (DSTOff + list offset + element size).  What is
	 * written does not depend on the flag: every whole element (VS: every
	 * byte) inside the area, nothing outside (sim_pat_scatter).  The copy's
	 * second half (SRCOff = 0xffffffff) is judged the same way. */
	if (oi->variant == DNET_VAR_STRIDE)
		ok = (uint64_t)r->dstoff + total <= sim_capacity(n);
	if (!ok) {
		w->cs_ww |= DNET_CS_WW_DST_OVR(win);
		ww_cause(n, win, true);
	}
	/* Decision D-SIM-HALT: with halt_on_error an overrun (source or
	 * destination) stops the Window Controller here, after the clipped
	 * write and before the Vector Store Status: no "write complete" bit, no
	 * VS counter, Module State keeps showing the executor in VS. */
	if (w->cs_ww & (DNET_CS_WW_SRC_OVR(win) | DNET_CS_WW_DST_OVR(win))) {
		sim_error_raised(n);
		if (n->halted)
			return;
	}
	w->cs_ww |= DNET_CS_WW_DONE(win);
	w->prim[DNET_FAM_VS]++;
	job_done(s, n, 0);
}

/* ---- RVL family, issued by the host (§4.6.5, §5.3.6, Fig. 5.14) ---- */

static void exec_rvl(struct sim *s, struct sim_node *n)
{
	struct sim_wcjob *j = &n->job;
	struct dnet_req *r = &j->r;
	unsigned wid = j->req.wid;
	if (j->phase == 1) {
		/* Decision D-SIM-COUNTERS (OQ-17): RVL counts once the request
		 * packet has been sent. */
		n->w[wid].prim[DNET_FAM_RVL]++;
		job_done(s, n, 0);
		return;
	}
	if (swif_wait(n))
		return;
	const struct dnet_otype_info *oi = dnet_otype_info(r->otype);
	struct dnet_pkt_hdr h;
	memset(&h, 0, sizeof h);
	h.size = 4 * 8; /* always 4 lines, no data (§5.3.6) */
	h.type = r->otype;
	h.pgid = n->pgid[wid];
	h.dwid = r->dwid;
	h.swid = wid;
	h.dlid = dnet_clid_to_lid(sim_clid_reading(s), (uint16_t)r->dclid);
	h.dtype = r->dtype;
	h.iter = r->iter;
	h.rflag = j->req.sel;
	h.eflag = r->eflag;
	h.hflag = 1;
	h.src_or_init_dst = r->srcoff;
	h.dstoff = r->dstoff;
	h.total = oi->variant == DNET_VAR_CONTIG ? r->size : dnet_dtype_bytes(r->dtype) * r->iter;
	h.stride_list = oi->variant == DNET_VAR_CONTIG ? 0 : r->size;
	if (r->has_ex)
		h.ex = r->ex; /* 4th DW: the Ex parameters (§4.7) */
	struct sim_pkt *p = build_pkt(s, n, &h, 4, 0);
	uint64_t send = sim_clk(s, s->t.rvl_clk + 4ull * s->t.line_clk);
	if (p)
		sim_sw_send(s, n, p, s->now + send);
	job_next(s, n, 1, send + sim_clk(s, s->t.end_clk));
}

/* ---- RVS family (§4.6.6, §5.3.7, Fig. 5.15), also the RVL response ---- */

static bool ex_is(const struct dnet_req_ex *x, enum dnet_family fam)
{
	const struct dnet_otype_info *oi = dnet_otype_info(x->otype);
	return oi && oi->family == fam;
}

static void rvs_setup_host(struct sim *s, struct sim_node *n)
{
	(void)s;
	struct sim_wcjob *j = &n->job;
	struct dnet_req *r = &j->r;
	unsigned wid = j->req.wid;
	const struct dnet_otype_info *oi = dnet_otype_info(r->otype);
	uint64_t total = oi->variant == DNET_VAR_CONTIG ? r->size
			 : (uint64_t)dnet_dtype_bytes(r->dtype) * r->iter;
	/* Decision D-SIM-EX (OQ-4): Command Ex describes only the local side.
	 * For RVS it is used when OTYPE (Ex) is a VL-family code: the local
	 * data is gathered with VL/VLS/VLI semantics from SRCOff with DTYPE
	 * (Ex), Iteration (Ex) and Stride/List (Ex); the amount sent is the
	 * remote total (Size, or E x N), cut to E(Ex) x N(Ex) for a strided or
	 * listed local read.  Any other OTYPE (Ex) leaves the read contiguous. */
	if (r->has_ex && ex_is(&r->ex, DNET_FAM_VL)) {
		const struct dnet_otype_info *xi = dnet_otype_info(r->ex.otype);
		if (xi->variant != DNET_VAR_CONTIG) {
			uint64_t xt = (uint64_t)dnet_dtype_bytes(r->ex.dtype) * r->ex.iter;
			if (xt < total)
				total = xt;
		} else {
			total = clip_contig_src(n, r->srcoff, total);
		}
		sim_pat_from_req(&j->pat, xi->variant, r->srcoff, r->ex.dtype, r->ex.iter, r->ex.size,
			     total);
	} else {
		total = clip_contig_src(n, r->srcoff, total);
		sim_pat_from_req(&j->pat, DNET_VAR_CONTIG, r->srcoff, 0, 0, 0, total);
	}
	struct dnet_pkt_hdr *h = &j->h;
	memset(h, 0, sizeof *h);
	h->type = r->otype;
	h->pgid = n->pgid[wid];
	h->dwid = r->dwid;
	h->swid = wid;
	h->dlid = dnet_clid_to_lid(sim_clid_reading(s), (uint16_t)r->dclid);
	h->dtype = r->dtype;
	h->iter = r->iter;
	h->rflag = j->req.sel;
	h->eflag = r->eflag; /* applied to the last packet only */
	h->hflag = oi->variant != DNET_VAR_CONTIG;
	h->src_or_init_dst = r->dstoff;
	h->total = (uint32_t)total;
	h->stride_list = oi->variant == DNET_VAR_CONTIG ? 0 : r->size;
	j->count = true;
	j->fam = DNET_FAM_RVS;
}

/* An RVL-family request from the network, rewritten into an RVS-family
 * send back to the issuer (§5.3.6 end). */
static void rvs_setup_response(struct sim *s, struct sim_node *n)
{
	(void)s;
	struct sim_wcjob *j = &n->job;
	const struct dnet_pkt_hdr *q = &j->req.hdr;
	unsigned wid = q->dwid; /* the responding process */
	const struct dnet_otype_info *oi = dnet_otype_info(q->type);
	uint64_t total = q->total;
	if (oi->variant == DNET_VAR_CONTIG)
		total = clip_contig_src(n, q->src_or_init_dst, total);
	sim_pat_from_req(&j->pat, oi->variant, q->src_or_init_dst, q->dtype, q->iter, q->stride_list,
		     total);
	struct dnet_pkt_hdr *h = &j->h;
	memset(h, 0, sizeof *h);
	h->type = DNET_OT_RVS;
	h->dtype = 0;
	h->iter = 0;
	h->stride_list = 0;
	/* Decision D-SIM-EX (OQ-4), RVL side: the 4th DW is used only if its
	 * OTYPE (Ex) is a VS-family code; then the return packets are RVSS/RVSI
	 * with DTYPE/Iteration/Stride-List (Ex), so the issuer's local write is
	 * non-contiguous. */
	if (ex_is(&q->ex, DNET_FAM_VS)) {
		const struct dnet_otype_info *xi = dnet_otype_info(q->ex.otype);
		if (xi->variant != DNET_VAR_CONTIG) {
			uint64_t e = dnet_dtype_bytes(q->ex.dtype);
			uint64_t xt = e * q->ex.iter;
			if (xt < total)
				total = xt;
			total -= total % e;
			h->type = xi->variant == DNET_VAR_STRIDE ? DNET_OT_RVSS : DNET_OT_RVSI;
			h->dtype = q->ex.dtype;
			h->iter = q->ex.iter;
			h->stride_list = q->ex.size;
			j->pat.total = total;
		}
	}
	h->pgid = n->pgid[wid];
	h->dwid = q->swid;                 /* back to the issuing process */
	h->swid = wid;
	h->dlid = j->req.slid;             /* issuer's LID from the link (OQ-23) */
	h->rflag = q->rflag;
	h->eflag = q->eflag;
	h->hflag = h->type != DNET_OT_RVS;
	h->src_or_init_dst = q->dstoff;
	h->total = (uint32_t)total;
	j->req.wid = wid;
	/* Decision D-SIM-COUNTERS (OQ-17): the RVS a responder runs on behalf
	 * of a remote RVL counts nowhere (counters count the WID's own
	 * primitives). */
	j->count = false;
}

/* IPUSH, IPUSH with LHSv1, IPUSH with LHSv2 (§4.6.7, §5.3.8, §7.2.1): sent
 * exactly like RVS, the receiver chooses the address (ipush.c).  LHSv2 reads
 * its Write Window part first, then the SO-DIMM part. */
static void ipush_setup(struct sim *s, struct sim_node *n)
{
	struct sim_wcjob *j = &n->job;
	struct dnet_req *r = &j->r;
	unsigned wid = j->req.wid;
	uint64_t total = r->size;
	uint32_t src = r->srcoff;
	j->pre_len = 0;
	if (r->otype == DNET_OT_LHSV2) {
		/* Decision D-SIM-LHSV2 (Fig. 7.8): Upper [41:32] Write Window
		 * bytes at area offset [53:42], cut at 512 B and at the 2 KB
		 * area end; Size counts both parts. */
		struct dnet_lhsv2_upper u;
		core_lhsv2_upper_decode(j->req.upper, &u);
		uint32_t wa = AREA_OFF(u.ww_addr), wl = u.ww_size;
		if (wl > DNET_BOTF_MAX)
			wl = DNET_BOTF_MAX;
		if (wl > DNET_WINAREA_SIZE - wa)
			wl = DNET_WINAREA_SIZE - wa;
		if (wl > total)
			wl = (uint32_t)total;
		memcpy(j->buf, n->w[wid].ww + wa, wl);
		j->pre_len = wl;
		src = u.srcoff;
	}
	uint64_t body = clip_contig_src(n, src, total - j->pre_len);
	total = j->pre_len + body;
	sim_pat_from_req(&j->pat, DNET_VAR_CONTIG, src, 0, 0, 0, body);
	struct dnet_pkt_hdr *h = &j->h;
	memset(h, 0, sizeof *h);
	/* Decision D-SIM-IPUSH-WIRE (§7.2.1, OQ-15): LHSv1/LHSv2 go out as
	 * TYPE = IPUSH with lflag = 1 (option lhs_type=own keeps their code). */
	bool lhs = r->otype != DNET_OT_IPUSH;
	h->type = lhs && !s->lhs_own_type ? DNET_OT_IPUSH : r->otype;
	h->lflag = lhs;
	h->pgid = n->pgid[wid];
	h->dwid = r->dwid;
	h->swid = wid;
	h->dlid = dnet_clid_to_lid(sim_clid_reading(s), (uint16_t)r->dclid);
	h->dtype = r->dtype;
	h->iter = r->iter;
	h->rflag = 0;
	h->eflag = r->eflag;
	/* A message that fits one packet has the 16-byte header of §7.1.6;
	 * a longer one carries its Total Transfer Size in a 3rd line. */
	uint32_t mtu = sim_mtu(n);
	uint32_t maxpkt = mtu < 4088 ? mtu : 4088;
	h->hflag = total + 16 > maxpkt;
	h->src_or_init_dst = r->dstoff;
	h->total = (uint32_t)total;
	j->count = true;
	j->fam = DNET_FAM_IPUSH;
}

/* Message bytes [pos, pos + len): the LHSv2 Write Window part, then the
 * SO-DIMM pattern. */
static void job_gather(struct sim_node *n, struct sim_wcjob *j, uint64_t pos, uint8_t *b,
		       uint64_t len)
{
	if (pos < j->pre_len) {
		uint64_t k = j->pre_len - pos < len ? j->pre_len - pos : len;
		memcpy(b, j->buf + pos, k);
		b += k;
		pos += k;
		len -= k;
	}
	if (len)
		sim_pat_gather(n, j->req.wid, &j->pat, pos - j->pre_len, b, len);
}

static void exec_rvs(struct sim *s, struct sim_node *n)
{
	struct sim_wcjob *j = &n->job;
	struct dnet_pkt_hdr *h = &j->h;
	if (j->phase == 0) {
		if (j->req.from_rc)
			rvs_setup_response(s, n);
		else if (j->kind == SIM_JOB_IPUSH)
			ipush_setup(s, n);
		else
			rvs_setup_host(s, n);
		j->hdr_lines = h->hflag ? 3 : 2;
		j->pos = 0;
		j->pkt_dst = h->src_or_init_dst;
		j->pkt_list = h->stride_list;
		job_next(s, n, 1, sim_clk(s, s->t.rvs_setup_clk + s->t.pu_first_clk));
		return;
	}
	if (j->phase == 2) {
		if (j->count)
			n->w[j->req.wid].prim[j->fam]++;
		job_done(s, n, 0);
		return;
	}
	if (swif_wait(n))
		return;
	/* phase 1: build and send one packet.  Decision D-SIM-MTU (OQ-10):
	 * header + data <= MTU; a packet never exceeds 4088 bytes, the largest
	 * whole-line size the 12-bit Packet Size can express (MTU 4096);
	 * RVSS/RVSI packets carry whole elements only (RVSS1/RVSS2). */
	uint32_t mtu = sim_mtu(n);
	uint32_t maxpkt = mtu < 4088 ? mtu : 4088;
	uint64_t room = maxpkt - j->hdr_lines * 8u;
	uint64_t total = j->pre_len + j->pat.total, left = total - j->pos;
	bool elems = h->type == DNET_OT_RVSS || h->type == DNET_OT_RVSI;
	uint64_t e = elems ? dnet_dtype_bytes(h->dtype) : 1;
	if (e > 1)
		room -= room % e;
	uint64_t d = left < room ? left : room;
	bool last = j->pos + d >= total;
	struct dnet_pkt_hdr ph = *h;
	ph.size = (unsigned)(j->hdr_lines * 8u + d);
	ph.eflag = last ? h->eflag : 0;
	ph.dstoff = j->pkt_dst;
	/* Decision D-SIM-RVSI-LIST (OQ-10): every packet keeps Initial DSTOff;
	 * RVSS packets advance DSTOff by elements x Stride; RVSI packets keep
	 * DSTOff (the base) and advance the List Address of the 3rd DW by 4
	 * bytes per element already sent. */
	if (h->type == DNET_OT_RVSI)
		ph.stride_list = j->pkt_list;
	/* Header lines at the SWIF's line rate, data at the PU's, slowed while
	 * the Write Unit shares the SO-DIMM (D-SIM-SD-CONTEND). */
	uint64_t dl = lines_of(d);
	uint64_t dur = sim_clk(s, j->hdr_lines * s->t.line_clk) + pu_lines(s, dl) * s->t.pu_8b_ns;
	dur += sim_sd_contend(s, dur, n->wu_until, dl);
	n->pu_until = s->now + dur;
	/* the 1st DW changes with Packet Size and eflag only (host speed) */
	if (!j->dw1_valid || ph.size != j->dw1_size || ph.eflag != j->dw1_eflag) {
		j->dw1 = dnet_hdr_dw1(&ph);
		j->dw1_size = ph.size;
		j->dw1_eflag = ph.eflag;
		j->dw1_valid = true;
	}
	struct sim_pkt *p = build_pkt_dw1(s, n, &ph, j->dw1, j->hdr_lines, d);
	if (p) {
		uint64_t a = j->pat.base + (j->pos - j->pre_len);
		/* SO-DIMM data the gather would copy as it is: deferred, the
		 * receiver copies it (host speed only, switch.c) */
		if (j->kind == SIM_JOB_RVS && j->pat.kind == SIM_PAT_CONTIG && j->pos >= j->pre_len &&
		    n->sdimm_ready && d && a < sim_capacity(n) && d <= sim_capacity(n) - a)
			sim_pkt_defer(p, n, j->hdr_lines, (uint64_t)j->req.wid * sim_capacity(n) + a,
				      (uint32_t)d);
		else
			job_gather(n, j, j->pos, (uint8_t *)&p->line[j->hdr_lines], d);
		sim_sw_send(s, n, p, s->now + dur);
	}
	j->pos += d;
	if (h->type == DNET_OT_RVSS)
		j->pkt_dst += (uint32_t)((d / e) * h->stride_list);
	else if (h->type == DNET_OT_RVSI)
		j->pkt_list += (uint32_t)(4 * (d / e));
	else
		j->pkt_dst += (uint32_t)d; /* RVS and the IPUSH family */
	if (last)
		job_next(s, n, 2, dur + sim_clk(s, s->t.end_clk));
	else
		job_next(s, n, 1, dur + sim_clk(s, s->t.rvs_pkt_gap_clk));
}

/* ---- the Executor ---- */

void sim_wc_step(struct sim *s, struct sim_node *n)
{
	n->wc_sched = false;
	if (n->halted)
		return; /* stopped on an error (D-SIM-HALT) */
	struct sim_wcjob *j = &n->job;
	if (j->kind == SIM_JOB_NONE) {
		struct sim_req q;
		if (!pick(s, n, &q))
			return;
		memset(j, 0, sizeof *j);
		j->req = q;
		j->kind = SIM_JOB_START;
		j->t_start = s->now;
		if (s->trace && n->acc_from <= s->now)
			sim_trace_span(s, n->id, SIM_TR_ACC, n->acc_from, s->now, "accept %s request",
				       q.from_rc ? "RC FIFO" : "host FIFO");
	}
	if (j->kind == SIM_JOB_START) {
		/* OTYPE sits in the same bits in every layout, BOTF's included. */
		dnet_req_decode(j->req.lower, j->req.upper, j->req.has_ex ? &j->req.ex : NULL, &j->r);
		if (j->req.from_rc) {
			j->kind = SIM_JOB_RVS;
		} else if (j->r.otype == DNET_OT_BOTF) {
			j->kind = SIM_JOB_BOTF;
		} else {
			const struct dnet_otype_info *oi = dnet_otype_info(j->r.otype);
			/* Decision D-SIM-OTYPE (OQ-20): codes outside Tab. 4.13 start
			 * no module (§5.3.2); NOP does nothing; neither counts. */
			if (!oi || oi->family == DNET_FAM_NONE) {
				if (!oi)
					n->st[ST_UNKNOWN_OTYPE]++;
				job_done(s, n, sim_clk(s, 1));
				return;
			}
			/* Decision D-SIM-COPY-LIST (§4.6.8): only contiguous and stride
			 * access take part in an SO-DIMM copy; a VLI carrying the copy
			 * marker (DSTOff or SRCOff = 0xffffffff, D-SIM-COPY-MARKER) or a
			 * VSI carrying it (SRCOff = 0xffffffff) starts nothing and
			 * counts nowhere. */
			if (oi->variant == DNET_VAR_LIST &&
			    ((oi->family == DNET_FAM_VL && req_is_copy_vl(&j->r)) ||
			     (oi->family == DNET_FAM_VS && j->r.srcoff == DNET_COPY_MARKER))) {
				n->st[ST_COPY_LIST_REFUSED]++;
				job_done(s, n, sim_clk(s, 1));
				return;
			}
			switch (oi->family) {
			case DNET_FAM_VL: j->kind = SIM_JOB_VL; break;
			case DNET_FAM_VS: j->kind = SIM_JOB_VS; break;
			case DNET_FAM_RVL: j->kind = SIM_JOB_RVL; break;
			case DNET_FAM_RVS: j->kind = SIM_JOB_RVS; break;
			default: j->kind = SIM_JOB_IPUSH; break;
			}
		}
		j->phase = 0;
	}
	switch (j->kind) {
	case SIM_JOB_BOTF: exec_botf(s, n); break;
	case SIM_JOB_VL: exec_vl(s, n); break;
	case SIM_JOB_VS: exec_vs(s, n); break;
	case SIM_JOB_RVL: exec_rvl(s, n); break;
	case SIM_JOB_RVS: exec_rvs(s, n); break;
	case SIM_JOB_IPUSH: exec_rvs(s, n); break;
	default: job_done(s, n, 0); break;
	}
}
