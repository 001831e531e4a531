/* sim: IPUSH and LHS reception (thesis chapter 7: §7.1.3, §7.1.5, §7.2.1,
 * Fig. 7.1, 7.4, 7.7, Tab. 7.2, 7.5).
 *
 * The Receive Controller hands every IPUSH-family packet here.  The sender's
 * {CLID, WID} indexes the AMT Address Table, whose value names the AMT entry
 * (Head/Tail of a ring in the SO-DIMM) in the receiving process's LLCM; the
 * Write Unit stores the message at the ring's Tail, or waits while the ring
 * has no room.  With LHS (lflag = 1) the envelope and the first 48 bytes of
 * user data go into the next LH Buffer entry instead, and only the rest goes
 * into the ring.  Every reading the thesis leaves open is decided once here
 * (docs/decisions.md, D-SIM-AMT-*, D-SIM-IPUSH-*, D-SIM-LHS).
 */
#include <stdlib.h>
#include <string.h>
#include "dnet/bytes.h"
#include "dnet/codes.h"
#include "dnet/modstate.h"
#include "dnet/regs.h"
#include "sim/sim.h"

/* Bytes of the message kept in an LH entry: the 8-byte envelope and 48 bytes
 * of user data (Fig. 7.7). */
#define LH_HEAD_BYTES (8u + DNET_LH_DATA_BYTES)
/* Decision D-SIM-IPUSH-AREA (OQ-12): IPUSH Area Size counts 4 KB units, so
 * its 16 bits span the prototype's 256 MB per-process area. */
#define IPUSH_AREA_UNIT 4096u
/* The Write Unit writes whole 64-bit lines; a ring advances by 8 bytes. */
#define RING_UNIT 8u

/* Decision D-SIM-IPUSH-WIRE (OQ-15): TYPE 5'b11001 / 5'b11010 on the wire
 * (the §7.2.2 BOTF images) are received as LHS, like IPUSH with lflag = 1. */
bool sim_ipush_is_lhs_type(unsigned type)
{
	return type == DNET_OT_LHSV1 || type == DNET_OT_LHSV2;
}

/* ---- AMT (Decisions D-SIM-AMT-TABLE, D-SIM-AMT-ENTRY) ---- */

static unsigned amt_lookup(const struct sim_node *n, uint16_t slid, unsigned swid)
{
	/* Indexed by the sender's {CLID, WID} (App. B); the sender's LID is
	 * the link's source LID (OQ-23).  Entries never written read 0. */
	uint16_t clid;
	if (!n->amt || core_lid_to_clid(sim_clid_reading(n->sim), slid, &clid, NULL))
		return 0;
	return n->amt[(unsigned)clid << 1 | (swid & 1u)];
}

/* The AMT entry: one 64-bit word of the receiving process's LLCM at
 * 8 x index, Head in [31:0] (the host's), Tail in [63:32] (ours). */
static void amt_entry_read(const struct sim_wid *w, unsigned idx, uint32_t *head, uint32_t *tail)
{
	uint64_t v = dnet_get64(w->llcm + 8u * (idx & 0xfffu));
	*head = (uint32_t)v;
	*tail = (uint32_t)(v >> 32);
}

static void amt_entry_set_tail(struct sim_wid *w, unsigned idx, uint32_t tail)
{
	uint8_t *e = w->llcm + 8u * (idx & 0xfffu);
	dnet_put64(e, (dnet_get64(e) & 0xffffffffull) | (uint64_t)tail << 32);
}

/* ---- rings (Decisions D-SIM-IPUSH-AREA, D-SIM-IPUSH-RING) ---- */

/* The ring holding Tail: the IPUSH-Area-Size-aligned block around it
 * ("compute start / end of receive area", Tab. 7.5).  False if there is no
 * usable ring (size 0, or the ring is not inside the process's area). */
static bool ring_bounds(const struct sim_node *n, const struct sim_wid *w, uint32_t tail,
			uint64_t *start, uint64_t *end)
{
	uint64_t size = (uint64_t)w->ipush_area * IPUSH_AREA_UNIT;
	if (!size)
		return false;
	*start = tail - tail % size;
	*end = *start + size;
	return *end <= sim_capacity(n);
}

enum place { PLACE_OK, PLACE_FULL, PLACE_NEVER };

/* Where a message of len bytes goes: contiguous, at Tail if it fits before
 * the ring end, else at the ring start (the end is skipped, so the host can
 * read it with one VL from the address it is given, §7.2.1).  One unit stays
 * free: Tail never catches up with Head, so Tail == Head means empty. */
static enum place ring_place(uint64_t start, uint64_t end, uint32_t head, uint32_t tail,
			     uint32_t len, uint32_t *pos, uint32_t *new_tail)
{
	uint64_t l = ((uint64_t)len + RING_UNIT - 1) / RING_UNIT * RING_UNIT;
	if (l + RING_UNIT > end - start)
		return PLACE_NEVER;
	if (head < start || head >= end)
		return PLACE_NEVER; /* Head outside the ring: nothing can be freed */
	uint64_t at;
	if (tail >= head) {
		if (tail + l < end || (tail + l == end && head != start))
			at = tail;
		else if (start + l < head)
			at = start;
		else
			return PLACE_FULL;
	} else {
		if (tail + l < head)
			at = tail;
		else
			return PLACE_FULL;
	}
	uint64_t nt = at + l;
	*pos = (uint32_t)at;
	*new_tail = (uint32_t)(nt == end ? start : nt);
	return PLACE_OK;
}

/* ---- LH Buffer (Decision D-SIM-LHS; §4.5.4, §5.1.4, §7.2.1) ---- */

static bool lhb_full(const struct sim_wid *w)
{
	return ((w->lhb_tail + DNET_LHB_ENTRY) & (DNET_LHB_SIZE - 1u)) == w->lhb_head;
}

/* Toggle one flag of an entry's envelope line (Valid [47], Complete [46]). */
static void lh_toggle(struct sim_wid *w, unsigned slot, unsigned bit)
{
	uint8_t *line1 = w->lhb + slot * DNET_LHB_ENTRY + 8u;
	dnet_put64(line1, dnet_get64(line1) ^ (1ull << bit));
}

/* Write the entry's first two lines when the message's first packet comes:
 * Pointer/Size, and the envelope with the Complete flag kept and the Valid
 * flag toggled (the host may start its VL now, §7.2.1). */
static void lh_open(struct sim_wid *w, const struct ipush_msg *m)
{
	uint8_t *e = w->lhb + m->lh_slot * DNET_LHB_ENTRY;
	uint64_t flags = dnet_get64(e + 8) & (1ull << DNET_LH_VALID_BIT | 1ull << DNET_LH_COMPLETE_BIT);
	uint32_t size = m->total > 8 ? m->total - 8 : 0;
	uint32_t pointer = m->ring_len ? m->addr : 0;
	dnet_put64(e, (uint64_t)pointer << 32 | size);
	memset(e + 8, 0, DNET_LHB_ENTRY - 8);
	dnet_put64(e + 8, flags ^ (1ull << DNET_LH_VALID_BIT));
}

/* Message bytes [off, off + len) that belong to the entry: envelope (with
 * the flag bits kept) and user data bytes 1-48. */
static void lh_fill(struct sim_wid *w, unsigned slot, uint32_t off, const uint8_t *b, uint32_t len)
{
	uint8_t *e = w->lhb + slot * DNET_LHB_ENTRY + 8u;
	uint64_t fmask = 1ull << DNET_LH_VALID_BIT | 1ull << DNET_LH_COMPLETE_BIT;
	uint64_t flags = dnet_get64(e) & fmask;
	for (uint32_t i = 0; i < len && off + i < LH_HEAD_BYTES; i++)
		e[off + i] = b[i];
	dnet_put64(e, (dnet_get64(e) & ~fmask) | flags);
}

/* ---- messages in progress (Decision D-SIM-IPUSH-MSG) ---- */

static struct ipush_msg **msg_find(struct sim_node *n, uint16_t slid, unsigned swid)
{
	struct ipush_msg **pp = &n->rx_msgs;
	while (*pp && !((*pp)->slid == slid && (*pp)->swid == swid))
		pp = &(*pp)->next;
	return pp;
}

bool sim_ipush_receiving(const struct sim_node *n, unsigned dwid)
{
	for (const struct ipush_msg *m = n->rx_msgs; m; m = m->next)
		if (m->dwid == dwid)
			return true;
	return false;
}

void sim_ipush_reset(struct sim_node *n)
{
	while (n->rx_msgs) {
		struct ipush_msg *m = n->rx_msgs;
		n->rx_msgs = m->next;
		free(m);
	}
	n->wu_ipush = DNET_WUI_IDLE;
}

static void rx_drop(struct sim_node *n, enum sim_stat why)
{
	/* The message cannot be received at all: "a reception exceeded the
	 * receive area" (Controller Status bit 17, Tab. A.1). */
	n->cs_rc |= DNET_CS_RC_OVERRUN;
	sim_rx_cause(n, SIM_CAUSE_RC_OVERRUN);
	sim_error_raised(n);
	n->st[why]++;
	n->wu_ipush = DNET_WUI_IDLE;
}

/* No room yet: the packet waits; a Head write (AMT entry in LLCM, LH Buffer
 * Next Read Address) or an IPUSH Area Size write retries it.  Counted once
 * per stalled packet. */
static enum ipush_rx_result rx_stall(struct sim_node *n, enum sim_stat why)
{
	if (!n->rc_stall_counted)
		n->st[why]++;
	n->rc_stall_counted = true;
	n->wu_ipush = DNET_WUI_WAIT;
	return IPUSH_RX_STALL;
}

/* The first packet of a message: find its ring, reserve room for all of it
 * and, with LHS, the next LH entry.  Stalls (no change) while either is
 * full: the Write Unit waits (§7.1.5 step 6), the LH Buffer's full signal
 * holds the Receive Controller (§5.1.4). */
static enum ipush_rx_result msg_open(struct sim_node *n, uint16_t slid, unsigned swid,
				     unsigned dwid, bool lhs, uint32_t total, struct ipush_msg **out)
{
	struct sim_wid *w = &n->w[dwid];
	unsigned idx = amt_lookup(n, slid, swid);
	uint32_t ring_len = lhs ? (total > LH_HEAD_BYTES ? total - LH_HEAD_BYTES : 0) : total;
	if (lhs && lhb_full(w))
		return rx_stall(n, ST_LHB_STALLS);
	uint32_t head, tail, pos = 0, new_tail = 0;
	amt_entry_read(w, idx, &head, &tail);
	if (ring_len) {
		uint64_t start, end;
		n->wu_ipush = DNET_WUI_RING;
		if (!ring_bounds(n, w, tail, &start, &end)) {
			rx_drop(n, ST_IPUSH_NO_RING);
			return IPUSH_RX_DROP;
		}
		switch (ring_place(start, end, head, tail, ring_len, &pos, &new_tail)) {
		case PLACE_NEVER:
			rx_drop(n, ST_IPUSH_TOO_BIG);
			return IPUSH_RX_DROP;
		case PLACE_FULL:
			return rx_stall(n, ST_IPUSH_STALLS);
		case PLACE_OK:
			break;
		}
	} else {
		pos = tail; /* nothing goes to the ring: the status shows Tail */
	}
	struct ipush_msg *m = calloc(1, sizeof *m);
	if (!m) {
		n->st[ST_ALLOC_FAIL]++;
		return IPUSH_RX_STALL;
	}
	m->slid = slid;
	m->swid = swid;
	m->dwid = dwid;
	m->lhs = lhs;
	m->total = total;
	m->addr = pos;
	m->ring_len = ring_len;
	/* Decision D-SIM-IPUSH-MSG: the Tail moves past the whole message when
	 * its room is taken, so another sender sharing the ring cannot take
	 * the same bytes while later packets are still on their way. */
	if (ring_len)
		amt_entry_set_tail(w, idx, new_tail);
	if (lhs) {
		m->lh_slot = w->lhb_tail / DNET_LHB_ENTRY;
		lh_open(w, m);
		w->lhb_tail = (uint16_t)((w->lhb_tail + DNET_LHB_ENTRY) & (DNET_LHB_SIZE - 1u));
	}
	/* A message with the same sender still open lost its tail packets
	 * (Controller Reset at the sender): it is abandoned. */
	struct ipush_msg **pp = msg_find(n, slid, swid);
	if (*pp) {
		struct ipush_msg *old = *pp;
		*pp = old->next;
		free(old);
		n->st[ST_IPUSH_ORPHANS]++;
	}
	m->next = n->rx_msgs;
	n->rx_msgs = m;
	n->st[lhs ? ST_LHS_MSGS : ST_IPUSH_MSGS]++;
	*out = m;
	return IPUSH_RX_DONE;
}

enum ipush_rx_result sim_ipush_rx(struct sim *s, struct sim_node *n, const struct sim_pkt *p,
			      const struct dnet_pkt_hdr *h, unsigned hl, uint64_t dlen)
{
	unsigned dwid = h->dwid & 1u;
	struct sim_wid *w = &n->w[dwid];
	bool lhs = h->lflag || sim_ipush_is_lhs_type(h->type);
	/* Decision D-SIM-IPUSH-WIRE: a 2-line header is a whole message; with
	 * 3 lines the 3rd DW gives the message size and the 2nd DW the offset
	 * of this packet's data (DSTOff - Initial DSTOff, as RVS sends it). */
	uint32_t total = h->hflag ? h->total : (uint32_t)dlen;
	uint32_t off = h->hflag ? h->dstoff - h->src_or_init_dst : 0;
	struct ipush_msg *m;
	if (off == 0) {
		enum ipush_rx_result r = msg_open(n, p->slid, h->swid, dwid, lhs, total, &m);
		if (r != IPUSH_RX_DONE)
			return r;
	} else {
		struct ipush_msg **pp = msg_find(n, p->slid, h->swid);
		if (!*pp) {
			/* A later packet of a message whose start was dropped. */
			n->st[ST_IPUSH_ORPHANS]++;
			sim_rx_cause(n, SIM_CAUSE_RX_DROP);
			return IPUSH_RX_DROP;
		}
		m = *pp;
	}
	n->wu_ipush = DNET_WUI_RING;
	const uint8_t *b = (const uint8_t *)&p->line[hl];
	uint64_t len = dlen;
	if (off >= m->total)
		len = 0;
	else if (len > m->total - off)
		len = m->total - off;
	if (len < dlen) {
		n->cs_rc |= DNET_CS_RC_OVERRUN; /* more data than the message said */
		sim_rx_cause(n, SIM_CAUSE_RC_OVERRUN);
		sim_error_raised(n);
	}
	uint32_t head_part = 0;
	if (m->lhs) {
		if (off < LH_HEAD_BYTES) {
			head_part = (uint32_t)(len < LH_HEAD_BYTES - off ? len : LH_HEAD_BYTES - off);
			lh_fill(w, m->lh_slot, off, b, head_part);
		}
		if (len > head_part)
			sim_sd_area_write(n, dwid, (uint64_t)m->addr + (off + head_part - LH_HEAD_BYTES),
				      b + head_part, len - head_part);
	} else if (len) {
		sim_sd_area_write(n, dwid, (uint64_t)m->addr + off, b, len);
	}
	m->got += (uint32_t)len;
	if (m->got >= m->total) {
		/* The whole message is in place: Complete toggles (§7.2.1); a VL
		 * held for it may run now (D-SIM-LHS-VL). */
		if (m->lhs)
			lh_toggle(w, m->lh_slot, DNET_LH_COMPLETE_BIT);
		n->rx_st_addr = m->lhs ? (m->ring_len ? m->addr : 0) : m->addr;
		n->rx_st_size = m->total;
		struct ipush_msg **pp = msg_find(n, m->slid, m->swid);
		*pp = m->next;
		free(m);
		n->wu_ipush = DNET_WUI_IDLE;
		if (n->vl_hold && !sim_ipush_receiving(n, dwid)) {
			n->vl_hold = false;
			sim_wc_wake(s, n);
		}
	}
	return IPUSH_RX_DONE;
}
