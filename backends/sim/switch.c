/* sim: the network between the nodes -- SWIF encapsulation and the
 * InfiniBand switch (thesis §4.1, §6.2.3).
 *
 * SWIF's end-to-end retransmission hides network errors from the Core Logic
 * (§4.1).  Without faults configured the network loses nothing, and the
 * model delivers every routable packet, in order per (source, destination),
 * one hop latency after it leaves -- no acknowledgement, no timer, nothing
 * that costs an event or virtual time.  With faults (faults.c) packets go
 * the reliable path: Decision D-SIM-SWIF-RETX, below.  Routing is by DLID
 * to the node whose SMA holds that LID (the emulated Subnet Manager gives
 * node k the LID expanded from CLID k).  Decision D-SIM-SLID (OQ-23): the
 * DIMMnet-2 header has no source LID; SWIF hands the InfiniBand SLID to the
 * receiver with each packet, so every packet carries its sender's LID as
 * link metadata.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "dnet/codes.h"
#include "sim/sim.h"

struct sim_pkt *sim_pkt_alloc(unsigned nlines)
{
	struct sim_pkt *p = calloc(1, sizeof *p + (size_t)nlines * sizeof(uint64_t));
	if (p)
		p->nlines = nlines;
	return p;
}

/* A packet whose every line the caller writes (header, then data): not
 * cleared, apart from its last line (the padding of a partial data line).
 * One of more than half the pool's size comes from s's pool (sim.h). */
struct sim_pkt *sim_pkt_alloc_lines(struct sim *s, unsigned nlines)
{
	bool pool = nlines > SIM_PKT_POOL_LINES / 2 && nlines <= SIM_PKT_POOL_LINES;
	struct sim_pkt *p;
	if (pool && s->pkt_pool) {
		p = s->pkt_pool;
		s->pkt_pool = p->next;
		s->pkt_pool_n--;
	} else {
		p = malloc(sizeof *p + (size_t)(pool ? SIM_PKT_POOL_LINES : nlines) * sizeof(uint64_t));
	}
	if (p) {
		/* the fields before the deferred payload's, which sim_pkt_defer
		 * sets (host speed: a short memset is a few stores, a whole
		 * struct's a slow string instruction) */
		memset(p, 0, offsetof(struct sim_pkt, lazy_src));
		p->lazy_src = NULL;
		p->nlines = nlines;
		p->pooled = pool;
		if (nlines)
			p->line[nlines - 1] = 0;
	}
	return p;
}

/* ---- deferred payloads (host speed only) ----
 * On the fault-free path a packet of SO-DIMM data need not carry a copy:
 * the receiver copies straight from the source's SO-DIMM, once instead of
 * twice, as long as those bytes are what they were when the packet left.
 * So every store to a node's SO-DIMM (sim_sd_phys_write) first fills the
 * packets still deferred on it, and whatever else reads a packet's lines
 * (the reliable path, a loopback, other targets) fills it first. */
void sim_pkt_defer(struct sim_pkt *p, struct sim_node *src, unsigned hl, uint64_t addr, uint32_t len)
{
	/* the payload is what src's SO-DIMM holds now: a copy into it that
	 * is still pending (sodimm.c) is made first */
	if (src->sim->sdcopy.len && src->sim->sdcopy.dst == src)
		sim_sd_copy_flush(src->sim);
	p->lazy_src = src;
	p->lazy_addr = addr;
	p->lazy_len = len;
	p->lazy_hl = (uint8_t)hl;
	p->lazy_prev = NULL;
	p->lazy_next = src->lazy_head;
	if (src->lazy_head)
		src->lazy_head->lazy_prev = p;
	src->lazy_head = p;
}

void sim_pkt_fill(struct sim_pkt *p)
{
	struct sim_node *src = p->lazy_src;
	if (!src)
		return;
	sim_sd_phys_read(src, p->lazy_addr, &p->line[p->lazy_hl], p->lazy_len);
	sim_pkt_unlink(p);
}

void sim_sd_fill_all(struct sim_node *n)
{
	while (n->lazy_head)
		sim_pkt_fill(n->lazy_head);
}

/* Free p, a pooled packet into s's pool while it has room; free() is
 * right for any packet that is not deferred (the pool only saves
 * malloc's work). */
void sim_pkt_free(struct sim *s, struct sim_pkt *p)
{
	if (p)
		sim_pkt_unlink(p);
	if (p && p->pooled && s->pkt_pool_n < SIM_PKT_POOL_MAX) {
		p->next = s->pkt_pool;
		s->pkt_pool = p;
		s->pkt_pool_n++;
		return;
	}
	free(p);
}

void sim_pkt_pool_free(struct sim *s)
{
	while (s->pkt_pool) {
		struct sim_pkt *p = s->pkt_pool;
		s->pkt_pool = p->next;
		free(p);
	}
	s->pkt_pool_n = 0;
}

/* Decision D-SIM-SWIF-BUF: the sender's SWIF FIFO holds SIM_SWIF_TX_PKTS
 * packets that the receiving Receive Controller has not taken yet.  When it
 * is full the executor waits (the WAIT states of Fig. 5.11, 5.14, 5.15), so
 * a stalled receiver (full status ring, §5.4) backs up to its senders
 * instead of queueing their packets without bound. */
bool sim_sw_can_send(const struct sim_node *src)
{
	return src->tx_unacked < SIM_SWIF_TX_PKTS;
}

/* One of src's SWIF FIFO slots is free again. */
static void slot_release(struct sim *s, struct sim_node *src)
{
	if (!src->tx_unacked)
		return;
	src->tx_unacked--;
	if (src->tx_wait)
		sim_wc_wake(s, src);
}

static void slot_free(struct sim *s, struct sim_node *src, struct sim_swif_slot *sl)
{
	sl->used = false;
	src->swif.used--;
	slot_release(s, src);
}

/* The receiving RC took packet p off its queue (or a Controller Reset
 * dropped it): its slot in the sender's SWIF FIFO is free again -- on the
 * reliable path once it is acknowledged too. */
void sim_sw_taken(struct sim *s, const struct sim_pkt *p)
{
	struct sim_node *src = p->src_node ? s->node[p->src_node - 1] : NULL;
	if (!src)
		return;
	if (!p->rel) {
		slot_release(s, src);
		return;
	}
	/* Reliable path: the slot frees once the packet is also acknowledged. */
	for (unsigned i = 0; i < SIM_SWIF_TX_PKTS; i++) {
		struct sim_swif_slot *sl = &src->slot[i];
		if (sl->used && !sl->taken && sl->dst == p->aux && sl->psn == p->psn) {
			sl->taken = true;
			if (sl->acked)
				slot_free(s, src, sl);
			return;
		}
	}
}

/* ---- Decision D-SIM-SWIF-RETX: SWIF's end-to-end retransmission ----
 * Thesis §4.1 ("SWIF role"): SWIF wraps each DIMMnet-2
 * packet in an InfiniBand packet and has its own end-to-end
 * retransmission, so the DIMMnet-2 layer never sees network errors -- every
 * packet exactly once and in order.  The thesis gives no protocol details.  The model is InfiniBand's
 * Reliable Connection (IBA vol. 1 §9.7), as the layer DIMMnet-2 rides on:
 *   - a 32-bit PSN per (source, destination) node pair, and an ICRC
 *     (CRC-32 over PSN and lines) checked on receipt: a bad packet is
 *     discarded (crc_errors) and recovered by the timeout;
 *   - the receiver takes only the expected PSN, hands it to the Receive
 *     Controller and ACKs it (cumulative); an older PSN is a duplicate
 *     (duplicates_dropped, re-ACKed); a newer one is out of sequence,
 *     discarded, and NAKed once per gap (naks_sent);
 *   - the sender keeps each packet in its SWIF send FIFO slot
 *     (D-SIM-SWIF-BUF) until it is acknowledged *and* taken by the remote
 *     RC -- so a stalled receiver still backs up to its senders; a NAK or
 *     the retransmit timeout (rto, virtual ns, default 16.384 us = IB's
 *     4.096 us x 2^2) resends every unacknowledged packet to that
 *     destination from the oldest (go-back-N), without a retry limit;
 *   - ACK/NAK packets cross the same faulty links; timers are events.
 * The reliable path is taken while rules are configured, and after that
 * until the sender's last copy is acknowledged (so no packet overtakes a
 * retransmission); the PSNs are counted on both paths. */

static const uint32_t crc_tab[16] = {
	0x00000000, 0x1db71064, 0x3b6e20c8, 0x26d930ac, 0x76dc4190, 0x6b6b51f4, 0x4db26158, 0x5005713c,
	0xedb88320, 0xf00f9344, 0xd6d6a3e8, 0xcb61b38c, 0x9b64c2b0, 0x86d3d2d4, 0xa00ae278, 0xbdbdf21c,
};

static uint32_t crc_word(uint32_t c, uint64_t w)
{
	for (unsigned i = 0; i < 8; i++) {
		unsigned b = (unsigned)(w >> (8 * i)) & 0xffu;
		c = crc_tab[(c ^ b) & 0xfu] ^ (c >> 4);
		c = crc_tab[(c ^ (b >> 4)) & 0xfu] ^ (c >> 4);
	}
	return c;
}

/* CRC-32 (IEEE, reflected) of the PSN, the kind and the lines. */
static uint32_t pkt_crc(unsigned kind, uint32_t psn, const uint64_t *line, unsigned nlines)
{
	uint32_t c = crc_word(0xffffffffu, (uint64_t)kind << 32 | psn);
	for (unsigned i = 0; i < nlines; i++)
		c = crc_word(c, line[i]);
	return ~c;
}

static uint64_t hop_ns(const struct sim *s)
{
	return 2ull * s->t.swif_ns + s->t.switch_ns;
}

/* One transmission over the link from src to node dst, leaving at depart:
 * the fault rules decide what becomes of it. */
static void transmit(struct sim *s, struct sim_node *src, unsigned dst, struct sim_pkt *p,
		     uint64_t depart)
{
	struct sim_fault_fx fx;
	sim_faults_apply(s, src, dst, p->kind != SIM_PKT_DATA, &fx);
	uint64_t at = depart + hop_ns(s) + fx.hold_ns;
	/* A delayed packet holds the link: what src sends after it arrives
	 * no earlier (delay keeps order, reorder does not). */
	if (at < src->swif.link_free)
		at = src->swif.link_free;
	if (fx.hold_ns)
		src->swif.link_free = at;
	at += fx.extra_ns;
	p->stall_ns = fx.stall_ns;
	if (fx.corrupt) {
		uint64_t r = fx.corrupt_rand;
		if (p->nlines)
			p->line[(r >> 6) % p->nlines] ^= 1ull << (r & 63u);
		else
			p->psn ^= 1u << (r & 31u);
	}
	if (fx.dup) {
		struct sim_pkt *q = sim_pkt_alloc(p->nlines);
		if (q) {
			memcpy(q, p, sizeof *p + (size_t)p->nlines * sizeof(uint64_t));
			q->next = NULL;
			q->pooled = false; /* sized to its lines */
			sim_schedule(s, at + fx.dup_ns, EV_ARRIVE, dst, 0, 0, q);
		} else {
			src->st[ST_ALLOC_FAIL]++;
		}
	}
	if (fx.drop)
		free(p);
	else
		sim_schedule(s, at, EV_ARRIVE, dst, 0, 0, p);
}

static void send_ctl(struct sim *s, struct sim_node *n, unsigned to, enum sim_pkt_kind kind,
		     uint32_t psn)
{
	struct sim_pkt *a = sim_pkt_alloc(0);
	if (!a) {
		n->st[ST_ALLOC_FAIL]++;
		return;
	}
	a->kind = (uint8_t)kind;
	a->rel = true;
	a->psn = psn;
	a->src_node = n->id;
	a->slid = sim_sma_lid(s, n);
	a->crc = pkt_crc(kind, psn, NULL, 0);
	n->st[kind == SIM_PKT_ACK ? ST_ACKS_SENT : ST_NAKS_SENT]++;
	transmit(s, n, to, a, s->now);
}

static void arm_timer(struct sim *s, struct sim_node *n)
{
	uint64_t t = UINT64_MAX;
	for (unsigned i = 0; i < SIM_SWIF_TX_PKTS; i++) {
		const struct sim_swif_slot *sl = &n->slot[i];
		if (sl->used && !sl->acked && sl->deadline < t)
			t = sl->deadline;
	}
	if (t == UINT64_MAX || (n->swif.timer_at && n->swif.timer_at <= t))
		return;
	struct sim_pkt *tm = sim_pkt_alloc(0);
	if (!tm) {
		n->st[ST_ALLOC_FAIL]++;
		return;
	}
	tm->kind = SIM_PKT_TIMER;
	tm->aux = ++n->swif.timer_gen;
	n->swif.timer_at = t;
	sim_schedule(s, t, EV_ARRIVE, n->id, 0, 0, tm);
}

/* Go-back-N: resend every unacknowledged packet to dst with a PSN from
 * psn on (all of them when from_all), oldest first. */
static void resend(struct sim *s, struct sim_node *n, unsigned dst, uint32_t psn, bool from_all)
{
	uint64_t last = 0;
	for (;;) {
		struct sim_swif_slot *next = NULL;
		for (unsigned i = 0; i < SIM_SWIF_TX_PKTS; i++) {
			struct sim_swif_slot *sl = &n->slot[i];
			if (!sl->used || sl->acked || sl->dst != dst || sl->order <= last ||
			    (!from_all && (int32_t)(sl->psn - psn) < 0))
				continue;
			if (!next || sl->order < next->order)
				next = sl;
		}
		if (!next)
			break;
		last = next->order;
		struct sim_pkt *q = sim_pkt_alloc(next->nlines);
		if (!q) {
			n->st[ST_ALLOC_FAIL]++;
			break;
		}
		memcpy(q->line, next->line, (size_t)next->nlines * sizeof(uint64_t));
		q->slid = next->slid;
		q->src_node = n->id;
		q->org_node = next->org_node;
		q->org_wid = next->org_wid;
		q->org_req = next->org_req;
		q->rel = true;
		q->psn = next->psn;
		q->aux = dst;
		q->crc = pkt_crc(SIM_PKT_DATA, q->psn, q->line, q->nlines);
		next->deadline = s->now + sim_faults_rto(s);
		n->st[ST_RETRANSMITS]++;
		transmit(s, n, dst, q, s->now);
	}
}

static void on_timer(struct sim *s, struct sim_node *n, const struct sim_pkt *tm)
{
	if (tm->aux != n->swif.timer_gen)
		return; /* superseded by an earlier timer */
	n->swif.timer_at = 0;
	bool fired = false;
	for (unsigned i = 0; i < SIM_SWIF_TX_PKTS; i++) {
		struct sim_swif_slot *sl = &n->slot[i];
		if (sl->used && !sl->acked && sl->deadline <= s->now) {
			fired = true;
			resend(s, n, sl->dst, 0, true);
		}
	}
	if (fired)
		n->st[ST_RETX_TIMEOUTS]++;
	arm_timer(s, n);
}

/* ACK(e) or NAK(e) from node `from`: every PSN before e arrived. */
static void on_ack(struct sim *s, struct sim_node *n, const struct sim_pkt *a)
{
	unsigned from = a->src_node;
	for (unsigned i = 0; i < SIM_SWIF_TX_PKTS; i++) {
		struct sim_swif_slot *sl = &n->slot[i];
		if (sl->used && !sl->acked && sl->dst == from && (int32_t)(sl->psn - a->psn) < 0) {
			sl->acked = true;
			if (sl->taken)
				slot_free(s, n, sl);
		}
	}
	if (a->kind == SIM_PKT_NAK)
		resend(s, n, from, a->psn, false);
	arm_timer(s, n);
}

/* A data packet on the reliable path reached node n's SWIF. */
static void rx_reliable(struct sim *s, struct sim_node *n, struct sim_pkt *p)
{
	unsigned from = p->src_node;
	if (pkt_crc(SIM_PKT_DATA, p->psn, p->line, p->nlines) != p->crc) {
		n->st[ST_CRC_ERRORS]++; /* discarded; the sender's timeout recovers it */
		free(p);
		return;
	}
	uint32_t e = n->peer[from].rx_epsn;
	int32_t d = (int32_t)(p->psn - e);
	if (d < 0) {
		n->st[ST_DUPS_DROPPED]++;
		send_ctl(s, n, from, SIM_PKT_ACK, e);
		free(p);
		return;
	}
	if (d > 0) {
		n->st[ST_OUT_OF_SEQ]++;
		if (!n->peer[from].rx_nak) {
			n->peer[from].rx_nak = 1;
			send_ctl(s, n, from, SIM_PKT_NAK, e);
		}
		free(p);
		return;
	}
	n->peer[from].rx_epsn = e + 1;
	n->peer[from].rx_nak = 0;
	struct sim_node *src = s->node[from - 1];
	if (src && src->tx_inflight)
		src->tx_inflight--;
	send_ctl(s, n, from, SIM_PKT_ACK, e + 1);
	sim_rc_arrive(s, n, p);
}

void sim_sw_send(struct sim *s, struct sim_node *src, struct sim_pkt *p, uint64_t depart)
{
	p->depart = depart;
	/* only DLID and Packet Size of the 1st DW are needed here */
	uint16_t dlid = (uint16_t)(p->line[0] >> DNET_H1_DLID_SHIFT);
	unsigned size = (unsigned)(p->line[0] & DNET_H1_SIZE_MASK);
	p->slid = sim_sma_lid(s, src);
	p->src_node = src->id;
	sim_wc_job_origin(src, &p->org_node, &p->org_wid, &p->org_req);
	src->st[ST_PKT_SENT]++;
	uint16_t clid;
	bool routable = core_lid_to_clid(sim_clid_reading(s), dlid, &clid, NULL) == 0;
	/* Decision D-SIM-MULTICAST (Tab. 4.6): CLIDs 12'hC00-12'hFFE are
	 * multicast groups, which the thesis does not describe further; the
	 * emulated switch has none, so such packets are dropped and counted
	 * (stat multicast_drops) -- a careful caller does not address them. */
	if (routable && clid > DNET_CLID_MAX_UNICAST && clid != DNET_CLID_INIT) {
		src->st[ST_MULTICAST_DROPS]++;
		sim_cause(src, p->org_node, p->org_wid, p->org_req, SIM_CAUSE_UNROUTABLE);
		sim_pkt_free(s, p);
		return;
	}
	if (!routable || clid < 1 || clid > s->nnodes) {
		/* No such port on the switch: dropped (counted at the sender). */
		src->st[ST_UNROUTABLE]++;
		sim_cause(src, p->org_node, p->org_wid, p->org_req, SIM_CAUSE_UNROUTABLE);
		sim_pkt_free(s, p);
		return;
	}
	src->st[ST_BYTES_SENT] += size; /* packet bytes, header included */
	sim_pkt_sent(s, p);
	src->tx_inflight++;
	src->tx_unacked++;
	p->psn = src->peer[clid].tx_psn++;
	p->aux = clid;
	struct sim_swif_slot *sl = NULL;
	if ((sim_faults_on(s) || src->swif.used) && p->nlines <= SIM_SWIF_SLOT_LINES)
		for (unsigned i = 0; i < SIM_SWIF_TX_PKTS && !sl; i++)
			if (!src->slot[i].used)
				sl = &src->slot[i];
	if (!sl) { /* the fault-free path: exactly the model without faults */
		sim_schedule(s, depart + hop_ns(s), EV_ARRIVE, clid, 0, 0, p);
		return;
	}
	sim_pkt_fill(p); /* the reliable path copies, checks and may corrupt the lines */
	*sl = (struct sim_swif_slot){ .used = true, .dst = clid, .psn = p->psn,
				      .order = ++src->swif.order, .nlines = p->nlines, .slid = p->slid,
				      .org_node = p->org_node, .org_wid = p->org_wid, .org_req = p->org_req,
				      .deadline = depart + sim_faults_rto(s) };
	memcpy(sl->line, p->line, (size_t)p->nlines * sizeof(uint64_t));
	src->swif.used++;
	p->rel = true;
	p->crc = pkt_crc(SIM_PKT_DATA, p->psn, p->line, p->nlines);
	transmit(s, src, clid, p, depart);
	arm_timer(s, src);
}

/* The trace of a data packet's way: the sender's SWIF, the link and the
 * switch (and any retransmission or fault delay), the receiver's SWIF. */
static void trace_hop(struct sim *s, const struct sim_pkt *p, unsigned to)
{
	uint64_t swif = s->t.swif_ns, t0 = p->depart, t3 = s->now;
	if (t3 < t0 + 2 * swif) {
		sim_trace_span(s, p->src_node, SIM_TR_SWITCH, t0, t3, "packet to node %u, %u lines", to, p->nlines);
		return;
	}
	sim_trace_span(s, p->src_node, SIM_TR_SWIF_TX, t0, t0 + swif, "send to node %u, %u lines", to, p->nlines);
	sim_trace_span(s, p->src_node, SIM_TR_SWITCH, t0 + swif, t3 - swif, "packet to node %u, %u lines", to,
		       p->nlines);
	sim_trace_span(s, to, SIM_TR_SWIF_RX, t3 - swif, t3, "from node %u, %u lines", p->src_node, p->nlines);
}

void sim_sw_deliver(struct sim *s, unsigned node, struct sim_pkt *p)
{
	if (p->kind == SIM_PKT_TIMER) {
		struct sim_node *tn = s->node[node - 1];
		if (tn)
			on_timer(s, tn, p);
		free(p);
		return;
	}
	struct sim_node *src = p->src_node ? s->node[p->src_node - 1] : NULL;
	if (s->trace && p->kind == SIM_PKT_DATA)
		trace_hop(s, p, node);
	struct sim_node *n = s->node[node - 1] ? s->node[node - 1] : sim_node_get(s, node);
	if (!n) {
		if (!p->rel && src && src->tx_inflight)
			src->tx_inflight--;
		sim_pkt_free(s, p);
		return;
	}
	/* A stall fault: the receive side takes nothing until it ends; what
	 * arrives meanwhile waits, in arrival order. */
	if (p->stall_ns) {
		if (n->swif.stall_until < s->now + p->stall_ns)
			n->swif.stall_until = s->now + p->stall_ns;
		p->stall_ns = 0;
	}
	if (n->swif.stall_until > s->now) {
		sim_schedule(s, n->swif.stall_until, EV_ARRIVE, node, 0, 0, p);
		return;
	}
	if (p->kind == SIM_PKT_ACK || p->kind == SIM_PKT_NAK) {
		if (pkt_crc(p->kind, p->psn, NULL, 0) != p->crc)
			n->st[ST_CRC_ERRORS]++;
		else
			on_ack(s, n, p);
		free(p);
		return;
	}
	if (p->rel) {
		rx_reliable(s, n, p);
		return;
	}
	if (src && src->tx_inflight)
		src->tx_inflight--;
	n->peer[p->src_node].rx_epsn = p->psn + 1;
	sim_rc_arrive(s, n, p);
}
