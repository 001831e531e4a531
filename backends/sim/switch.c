/* sim: the network between the nodes -- SWIF encapsulation and the
 * InfiniBand switch (hardware.md 0.3, 6.1, 6.2; thesis §4.1, §6.2.3).
 *
 * SWIF's end-to-end retransmission hides network errors from the Core Logic
 * (§4.1), so the model delivers every routable packet, in order per
 * (source, destination).  Routing is by DLID to the node whose SMA holds
 * that LID (the emulated Subnet Manager gives node k the LID expanded from
 * CLID k).  Decision D-SIM-SLID (OQ-23): the DIMMnet-2 header has no source
 * LID; SWIF hands the InfiniBand SLID to the receiver with each packet, so
 * every packet carries its sender's LID as link metadata.
 */
#include <stdlib.h>
#include "dnet/codes.h"
#include "sim/sim.h"

struct sim_pkt *pkt_alloc(unsigned nlines)
{
	struct sim_pkt *p = calloc(1, sizeof *p + (size_t)nlines * sizeof(uint64_t));
	if (p)
		p->nlines = nlines;
	return p;
}

/* Decision D-SIM-SWIF-BUF: the sender's SWIF FIFO holds SIM_SWIF_TX_PKTS
 * packets that the receiving Receive Controller has not taken yet.  When it
 * is full the executor waits (the WAIT states of Fig. 5.11, 5.14, 5.15), so
 * a stalled receiver (full status ring, §5.4) backs up to its senders
 * instead of queueing their packets without bound. */
bool sw_can_send(const struct sim_node *src)
{
	return src->tx_unacked < SIM_SWIF_TX_PKTS;
}

/* The receiving RC took packet p off its queue (or a Controller Reset
 * dropped it): its slot in the sender's SWIF FIFO is free again. */
void sw_taken(struct sim *s, const struct sim_pkt *p)
{
	struct sim_node *src = p->src_node ? s->node[p->src_node - 1] : NULL;
	if (!src || !src->tx_unacked)
		return;
	src->tx_unacked--;
	if (src->tx_wait)
		wc_wake(s, src);
}

void sw_send(struct sim *s, struct sim_node *src, struct sim_pkt *p, uint64_t depart)
{
	struct dnet_pkt_hdr h;
	dnet_hdr_decode_dw1(p->line[0], &h);
	p->slid = sim_sma_lid(s, src);
	p->src_node = src->id;
	src->st[ST_PKT_SENT]++;
	uint16_t clid;
	/* Decision D-SIM-MULTICAST (Tab. 4.6): CLIDs 12'hC00-12'hFFE are
	 * multicast groups, which the thesis does not describe further; the
	 * emulated switch has none, so such packets are dropped and counted
	 * (stat multicast_drops) -- dsh refuses to address them. */
	if (dnet_lid_to_clid((uint16_t)h.dlid, &clid, NULL) == 0 && clid > DNET_CLID_MAX_UNICAST &&
	    clid != DNET_CLID_INIT) {
		src->st[ST_MULTICAST_DROPS]++;
		free(p);
		return;
	}
	if (dnet_lid_to_clid((uint16_t)h.dlid, &clid, NULL) || clid < 1 || clid > s->nnodes) {
		/* No such port on the switch: dropped (counted at the sender). */
		src->st[ST_UNROUTABLE]++;
		free(p);
		return;
	}
	src->st[ST_BYTES_SENT] += h.size; /* packet bytes, header included */
	src->tx_inflight++;
	src->tx_unacked++;
	sim_schedule(s, depart + 2ull * s->t.swif_ns + s->t.switch_ns, EV_ARRIVE, clid, 0, 0, p);
}

void sw_deliver(struct sim *s, unsigned node, struct sim_pkt *p)
{
	struct sim_node *src = p->src_node ? s->node[p->src_node - 1] : NULL;
	if (src && src->tx_inflight)
		src->tx_inflight--;
	struct sim_node *n = sim_node_get(s, node);
	if (!n) {
		free(p);
		return;
	}
	rc_arrive(s, n, p);
}
