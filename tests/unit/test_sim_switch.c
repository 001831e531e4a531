/* Tests of backends/sim/switch.c, SWIF and the InfiniBand switch without
 * faults: routing by LID across a full-size cluster (3071 unicast CLIDs,
 * Tab. 4.6), multicast CLIDs dropped, and back-pressure through the
 * network, the sender's SWIF FIFO filling while a receiver stalls
 * (thesis §4.1, §5.3).
 * Faults and the retransmission under them: test_faults.c. */
/* Decisions pinned here (docs/decisions.md): D-SIM-SWIF-BUF. */
#include <string.h>
#include "test_spec_enc.h"

/* 3071 nodes open at once (unicast CLIDs end at 12'hBFF, Tab. 4.6); node
 * 3071 (CLID 0xBFF) exchanges data with node 1; 3072 nodes are refused and
 * a packet to a multicast CLID is dropped and counted (D-SIM-MULTICAST). */
static void test_3071(void)
{
	struct dnet_dev *bad = NULL;
	CHECK_EQ(dnet_open("sim:nodes=3072", &bad, &E), -DNET_EINVAL);
	CHECK(strstr(E.msg, "1-3071") != NULL);
	struct dnet_dev *d = sim_open("sim:nodes=3071");
	uint64_t v = 0x5a5a5a5a12345678ull, g = 0;
	sd_put(d, 0x100, &v, 8);
	kick(d, 0, 0, LO(DNET_OT_RVS, 0, 0, 0, 0xBFF, 1, 8), UP(0x100, 0x200));
	kick(d, 0, 0, LO(DNET_OT_RVS, 0, 0, 0, 0xC00, 1, 8), UP(0x100, 0x200));
	settle(d);
	CHECK_EQ(stat(d, "multicast_drops"), 1);
	CHECK_EQ(stat(d, "unroutable_drops"), 0);
	node(d, 3071);
	sd_get(d, 0x200, &g, 8);
	CHECK_EQ(g, v);
	CHECK_EQ(st_lo_at(d, 0, 0), STLO(DNET_OT_RVS, 0, 0, 0, 1, 8));
	CHECK(stat(d, "nodes_allocated") <= 3);
	dnet_close(d);
}

/* Back-pressure through the network (§5.3): a receiver
 * whose status ring is full stalls its Receive Controller; the packets
 * for it must not pile up without bound -- the sender's SWIF FIFO fills and
 * its executor waits, so the sender's RVS counter stops and later requests
 * stay in its FIFO.  When the host frees the ring, everything completes. */
static void test_tx_backpressure(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=2");
	enum { N = 64 };
	for (unsigned i = 0; i < N; i++) {
		uint64_t v = 0x1000 + i;
		sd_put(d, 8 * i, &v, 8);
	}
	node(d, 2);
	ureg_w(d, 0, DNET_UR_STATUS_SIZE, 0x01); /* 64 B: 3 statuses */
	node(d, 1);
	unsigned issued = 0;
	while (issued < N) {
		if (dnet_wait(d, UR(0, DNET_UR_CTL_STATUS), 5, DNET_COND_EQ, 0, 50000, NULL, &E))
			break; /* the FIFO stays full: the sender is blocked */
		wr64(d, UR(0, DNET_UR_CMD0_UPPER), UP(8 * issued, 0x10000 + 8 * issued));
		wr64(d, UR(0, DNET_UR_CMD0_LOWER), LO(DNET_OT_RVS, 0, 0, 0, 2, 1, 8));
		issued++;
	}
	settle(d);
	CHECK(issued < N);
	CHECK(prim(d, 0, DNET_FAM_RVS) < 32);
	CHECK(ureg(d, 0, DNET_UR_MODULE_STATE) != 0x0000422200020001ull); /* stopped, not idle */
	node(d, 2);
	CHECK(stat(d, "rx_queue") < 32);
	/* Drain: the host consumes statuses, the sender issues the rest. */
	for (unsigned round = 0; round < 200; round++) {
		node(d, 2);
		ureg_w(d, 0, DNET_UR_STATUS_ADDR, tail(d, 0));
		node(d, 1);
		while (issued < N &&
		       !dnet_wait(d, UR(0, DNET_UR_CTL_STATUS), 5, DNET_COND_EQ, 0, 1000, NULL, &E)) {
			wr64(d, UR(0, DNET_UR_CMD0_UPPER), UP(8 * issued, 0x10000 + 8 * issued));
			wr64(d, UR(0, DNET_UR_CMD0_LOWER), LO(DNET_OT_RVS, 0, 0, 0, 2, 1, 8));
			issued++;
		}
		settle(d);
		if (issued == N && prim(d, 0, DNET_FAM_RVS) == N)
			break;
	}
	CHECK_EQ(issued, N);
	CHECK_EQ(prim(d, 0, DNET_FAM_RVS), N);
	node(d, 2);
	for (unsigned round = 0; round < 100 && ureg(d, 0, DNET_UR_PKT_COUNTER) < N; round++) {
		ureg_w(d, 0, DNET_UR_STATUS_ADDR, tail(d, 0));
		settle(d);
	}
	CHECK_EQ(ureg(d, 0, DNET_UR_PKT_COUNTER), N);
	ureg_w(d, 0, DNET_UR_STATUS_ADDR, tail(d, 0));
	settle(d);
	int bad = 0;
	for (unsigned i = 0; i < N; i++) {
		uint64_t g = 0;
		sd_get(d, 0x10000 + 8 * i, &g, 8);
		bad += g != 0x1000 + i;
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(stat(d, "rx_queue"), 0);
	node(d, 1);
	CHECK_EQ(ureg(d, 0, DNET_UR_MODULE_STATE), 0x0000422200020001ull);
	dnet_close(d);
}

static void test_big_cluster(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=3071");
	CHECK_EQ(dnet_node_count(d), 3071);
	/* Node 3071 (CLID 0xBFF, the last unicast CLID) sends to node 1 and back. */
	node(d, 3071);
	uint64_t v = 0x3071, got = 0;
	sd_put(d, 0x80, &v, 8);
	issue_x(d, 0, 0, DNET_OT_RVS, 0, 0, 0, 1, 1, 8, 0x80, 0x88, NULL);
	settle(d);
	node(d, 1);
	sd_get(d, 0x88, &got, 8);
	CHECK_EQ(got, v);
	CHECK_EQ(rd64(d, DNET_LLCM_WID(0)) >> 18 & 0xfff, 0xbff); /* sender's CLID */
	CHECK_EQ(stat(d, "nodes_allocated"), 2);
	dnet_close(d);
}

/* A packet carries its data as the executor read it when it left: a store
 * to the source SO-DIMM while packets are in flight (here the backdoor,
 * with no virtual time passing) reaches only the packets built after it.
 * The emulator defers the copy of a packet's payload to the receiver (host
 * speed), so this checks that a store first gives the packets in flight
 * their bytes.  64 KB in packets of 2032 data bytes (MTU 2048 less two
 * header lines): the receiver must hold whole packets of the old data,
 * then the new, and more old packets than had arrived at the store. */
static void test_payload_at_send(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=2");
	enum { SZ = 64 * 1024, PAY = 2048 - 16, NP = SZ / PAY };
	static uint8_t a[SZ], b[SZ], got[SZ];
	fill(a, SZ, 1);
	fill(b, SZ, 2); /* differs from a at every byte */
	sd_put(d, 0, a, SZ);
	issue_x(d, 0, 0, DNET_OT_RVS, 0, 0, 0, 2, 0, SZ, 0, 0x100000, NULL);
	CHECK_OK(dnet_delay(d, 20000, &E), &E); /* some packets sent, not all received */
	node(d, 2);
	sd_get(d, 0x100000, got, SZ);
	unsigned landed = 0;
	while (landed < NP && !memcmp(got + landed * PAY, a + landed * PAY, PAY))
		landed++;
	node(d, 1);
	sd_put(d, 0, b, SZ);
	settle(d);
	node(d, 2);
	sd_get(d, 0x100000, got, SZ);
	unsigned old = 0;
	while (old < NP && !memcmp(got + old * PAY, a + old * PAY, PAY))
		old++;
	CHECK(!memcmp(got + old * PAY, b + old * PAY, SZ - old * PAY));
	CHECK(landed < old); /* packets in flight at the store kept the old data */
	CHECK(old < NP);     /* and the later ones took the new */
	dnet_close(d);
}

int main(void)
{
	RUN(test_3071);
	RUN(test_tx_backpressure);
	RUN(test_big_cluster);
	RUN(test_payload_at_send);
	return t_summary("test_sim_switch");
}
