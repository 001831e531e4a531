/* Tests of backends/sim/sim.c, the backend itself: spec options and their
 * refusals, statistics names, virtual time and its end (D-SIM-TIME-END),
 * and determinism -- the same sequence twice gives the same state, time
 * and event count (sim.c, eventq.c) -- and the host-speed shortcuts that
 * change nothing the model shows (sim.h: sim_now_is_next, sim_quiet_until,
 * struct sim_sd_copy). */
/* Decisions pinned here (docs/decisions.md): D-SIM-HOST-COST. */
#include <stdio.h>
#include <unistd.h>
#include "test_spec_enc.h"

static void test_spec(void)
{
	const char *bad[] = { "sim:nodes=0", "sim:nodes=3073", "sim:capacity=300", "sim:mtu=100",
			      "sim:fifo=1", "sim:colour", "sim:cold=1", "sim:nodes" };
	for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct dnet_dev *d = NULL;
		CHECK_EQ(dnet_open(bad[i], &d, &E), -DNET_EINVAL);
		CHECK(d == NULL);
	}
	struct dnet_dev *d = sim_open("sim:nodes=3,capacity=1024,mtu=512,fifo=16");
	CHECK_EQ(dnet_node_count(d), 3);
	CHECK_EQ(dnet_dev_caps(d), DNET_CAP_MULTINODE | DNET_CAP_VIRTUAL_TIME | DNET_CAP_BACKDOOR |
					   DNET_CAP_PRIVILEGED);
	/* capacity=1024: the backdoor spans 2 GB, WID 1 at 1 GB. */
	uint64_t v = 5;
	sd_put(d, 2048 * MB - 8, &v, 8);
	CHECK_EQ(dnet_sodimm_access(d, 2048 * MB, &v, 8, true, &E), -DNET_ERANGE);
	/* mtu=512: 1000 bytes = 3 packets of <= 496 data bytes. */
	issue_x(d, 0, 0, DNET_OT_RVS, 0, 0, 0, 2, 0, 1000, 0, 0, NULL);
	settle(d);
	CHECK_EQ(stat(d, "packets_sent"), 3);
	CHECK(dnet_node_dev(d, 4, &E) == NULL);
	CHECK_EQ(E.code, DNET_ERANGE);
	uint64_t x;
	CHECK_EQ(dnet_stat(d, "no_such_stat", &x, &E), -DNET_ENOENT);
	const char *const *names = dnet_stat_names(d);
	unsigned have = 0;
	for (; names && *names; names++)
		for (unsigned i = 0; i < 6; i++)
			have += !strcmp(*names, (const char *[]){ "vtime_ns", "events", "pgid_drops",
						 "packets_sent", "packets_received", "lhs_messages" }[i]);
	CHECK_EQ(have, 6);
	dnet_close(d);
}

/* D-SIM-TIME-END: a delay past the end of virtual time is refused and the
 * clock stays; close to the end, primitives still take their time. */
static uint64_t vs_time(struct dnet_dev *d)
{
	uint64_t t0 = stat(d, "vtime_ns");
	issue(d, 0, DNET_OT_VS, 64, 0, 0x100);
	CHECK_OK(dnet_wait(d, DNET_UREG_WID(0) + DNET_UR_PRIM_COUNTER, 0x3ffull << 20, DNET_COND_NE, 0,
			   1000000, NULL, &E), &E);
	return stat(d, "vtime_ns") - t0;
}

static void test_time_end(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=1");
	uint64_t first = vs_time(d);
	CHECK(first > 0 && first < 100000);
	uint64_t t = stat(d, "vtime_ns");
	CHECK_EQ(dnet_delay(d, UINT64_MAX, &E), -DNET_ERANGE);
	CHECK_EQ(stat(d, "vtime_ns"), t);
	uint64_t end = 1ull << 62;
	CHECK_OK(dnet_delay(d, end - t - 1000000, &E), &E);
	CHECK_EQ(stat(d, "vtime_ns"), end - 1000000);
	ureg_w(d, 0, DNET_UR_PRIM_COUNTER, 0);
	CHECK_EQ(vs_time(d), first); /* the same duration as at t = 0 */
	/* Up to the end exactly, then host reads carry the clock past it: a
	 * delay is still refused (no wrap) and a wait still ends, at once. */
	t = stat(d, "vtime_ns");
	CHECK_OK(dnet_delay(d, end - t, &E), &E);
	uint64_t v;
	for (int i = 0; i < 3; i++)
		CHECK_OK(dnet_read64(d, DNET_UREG_WID(0) + DNET_UR_CTL_STATUS, &v, &E), &E);
	t = stat(d, "vtime_ns");
	CHECK(t > end);
	CHECK_EQ(dnet_delay(d, 1, &E), -DNET_ERANGE);
	CHECK_EQ(dnet_delay(d, UINT64_MAX - 10, &E), -DNET_ERANGE);
	CHECK_EQ(stat(d, "vtime_ns"), t);
	CHECK_EQ(dnet_wait(d, DNET_UREG_WID(0) + DNET_UR_CTL_STATUS, 1ull << 40, DNET_COND_NE, 0, 1000, NULL, &E),
		 -DNET_ETIMEDOUT);
	CHECK(stat(d, "vtime_ns") < t + 1000000);
	dnet_close(d);
}

/* One scenario with cross traffic; returns a digest of the final state. */
static uint64_t scenario(uint64_t *vtime, uint64_t *events)
{
	struct dnet_dev *d = sim_open("sim:nodes=3");
	uint8_t buf[4096];
	for (unsigned n = 1; n <= 3; n++) {
		node(d, n);
		fill(buf, sizeof buf, n);
		sd_put(d, 0x10000, buf, sizeof buf);
		CHECK_OK(dnet_write_block(d, DNET_WW_WID(0), buf, 2048, &E), &E);
	}
	for (unsigned r = 0; r < 4; r++)
		for (unsigned n = 1; n <= 3; n++) {
			node(d, n);
			unsigned to = n % 3 + 1;
			issue_x(d, 0, 0, DNET_OT_RVS, 0, 0, 0, to, 1, 3000, 0x10000, 0x20000 + 0x1000 * r, NULL);
			issue_x(d, 0, r & 1, DNET_OT_RVL, 0, 0, 0, to, 1, 0x100, 0x10000, 0x100 * r, NULL);
			issue(d, 0, DNET_OT_VS, 0x200, 0x200 * r, 0x40000);
			issue(d, 0, DNET_OT_VL, 0x200, 0x20000, 0x200 * r);
		}
	settle(d);
	uint64_t h = 1469598103934665603ull;
	for (unsigned n = 1; n <= 3; n++) {
		node(d, n);
		sd_get(d, 0x20000, buf, sizeof buf);
		for (size_t i = 0; i < sizeof buf; i++)
			h = (h ^ buf[i]) * 1099511628211ull;
		CHECK_OK(dnet_read_block(d, DNET_LLCM_WID(0), buf, 256, &E), &E);
		for (size_t i = 0; i < 256; i++)
			h = (h ^ buf[i]) * 1099511628211ull;
		h ^= ureg(d, 0, DNET_UR_PRIM_COUNTER) * 31 + ureg(d, 0, DNET_UR_PKT_COUNTER);
	}
	CHECK_OK(dnet_now(d, vtime, &E), &E);
	*events = stat(d, "events");
	dnet_close(d);
	return h;
}

static void test_determinism(void)
{
	uint64_t t1, t2, e1, e2;
	uint64_t h1 = scenario(&t1, &e1), h2 = scenario(&t2, &e2);
	CHECK_EQ(h1, h2);
	CHECK_EQ(t1, t2);
	CHECK_EQ(e1, e2);
	CHECK(e1 > 100);
}

/* Determinism: the same sequence twice gives identical state and time. */
static void scenario2(struct dnet_dev *d, uint64_t out[8])
{
	uint8_t src[4096];
	fill(src, sizeof src, 43);
	sd_put(d, 0x1000, src, sizeof src);
	node(d, 2);
	sd_put(d, 0x1000, src + 100, 2048);
	kick(d, 0, 0, LO(DNET_OT_RVS, 0, 0, 0, 1, 1, 2048), UP(0x1000, 0x9000));
	node(d, 1);
	kick(d, 0, 0, LO(DNET_OT_RVS, 0, 0, 0, 2, 1, 4000), UP(0x1000, 0x9000));
	kick(d, 0, 1, LO(DNET_OT_RVL, 0, 0, 0, 2, 1, 0x180), UP(0x1000, 0x80));
	ww_put(d, 0, 0, src, 512);
	kick(d, 0, 0, LO(DNET_OT_VSS, 3, 64, 0, 0, 0, 24), UP(0, 0x20000));
	settle(d);
	uint8_t buf[4096];
	sd_get(d, 0x9000, buf, 4096);
	uint64_t h = 1469598103934665603ull;
	for (unsigned i = 0; i < 4096; i++)
		h = (h ^ buf[i]) * 1099511628211ull;
	out[0] = h;
	out[1] = stat(d, "vtime_ns");
	out[2] = stat(d, "events");
	out[3] = ureg(d, 0, DNET_UR_PRIM_COUNTER);
	out[4] = ureg(d, 0, DNET_UR_PW_FLAG);
	out[5] = st_lo_at(d, 0, 0) ^ st_hi_at(d, 0, 0) << 1;
	node(d, 2);
	sd_get(d, 0x9000, buf, 4096);
	for (unsigned i = 0; i < 4096; i++)
		h = (h ^ buf[i]) * 1099511628211ull;
	out[6] = h;
	out[7] = ureg(d, 0, DNET_UR_PKT_COUNTER) << 32 | tail(d, 0);
}

static void test_determinism2(void)
{
	uint64_t r[2][8];
	for (unsigned k = 0; k < 2; k++) {
		struct dnet_dev *d = sim_open("sim:nodes=2");
		scenario2(d, r[k]);
		dnet_close(d);
	}
	for (unsigned i = 0; i < 8; i++)
		CHECK_EQ(r[0][i], r[1][i]);
}

/* What the host sees of a 3-node cluster, folded into *h: per node its
 * clock, counters, Module State, Controller Status, busy and traffic. */
static void hs_look(struct dnet_dev *d, uint64_t *h)
{
	static const char *const names[] = { "vtime_ns", "packets_sent", "packets_received",
					      "bytes_received", "w0_in_flight", "sodimm_bytes" };
	for (unsigned k = 1; k <= 3; k++) {
		node(d, k);
		uint64_t v[10];
		for (unsigned i = 0; i < 6; i++)
			v[i] = stat(d, names[i]);
		v[6] = ureg(d, 0, DNET_UR_PKT_COUNTER);
		v[7] = ureg(d, 0, DNET_UR_MODULE_STATE);
		v[8] = ureg(d, 0, DNET_UR_CTL_STATUS);
		bool busy = false;
		CHECK_OK(dnet_busy(d, &busy, &E), &E);
		v[9] = busy;
		for (unsigned i = 0; i < 10; i++)
			*h = (*h ^ v[i]) * 1099511628211ull;
	}
}

static void hs_hash_sd(struct dnet_dev *d, unsigned n, uint64_t addr, size_t len, uint64_t *h)
{
	static uint8_t buf[256 << 10];
	node(d, n);
	sd_get(d, addr, buf, len);
	for (size_t i = 0; i < len; i++)
		*h = (*h ^ buf[i]) * 1099511628211ull;
}

/* RVS streams crossing (1 -> 2, 2 -> 1 partly out of what 1 -> 2 brings,
 * 3 -> 2), stores into a source while its packets fly, reads of a
 * destination half written; the host looks between slices of virtual time
 * of odd lengths. */
static uint64_t hs_scenario(const char *spec, uint64_t *events)
{
	struct dnet_dev *d = sim_open(spec);
	static uint8_t src[64 << 10];
	fill(src, sizeof src, 5);
	sd_put(d, 0, src, sizeof src); /* the rest of the 1 MB source is zeros */
	node(d, 2);
	sd_put(d, 0x40000, src + 1, 32 << 10);
	node(d, 3);
	sd_put(d, 0, src + 2, 16 << 10);
	uint64_t h = 1469598103934665603ull;
	node(d, 1);
	kick(d, 0, 0, LO(DNET_OT_RVS, 0, 0, 0, 2, 0, 1u << 20), UP(0, 0x100000));
	for (unsigned i = 0; i < 60; i++) {
		CHECK_OK(dnet_delay(d, 1000 + (i * 1777u) % 9000, &E), &E);
		if (i == 1) { /* node 2 sends on what it is receiving */
			node(d, 2);
			kick(d, 0, 0, LO(DNET_OT_RVS, 0, 0, 0, 1, 1, 128u << 10), UP(0x108000, 0x200000));
			kick(d, 0, 0, LO(DNET_OT_RVS, 0, 0, 0, 1, 0, 128u << 10), UP(0x40000, 0x300000));
		}
		if (i == 5) {
			node(d, 3);
			kick(d, 0, 0, LO(DNET_OT_RVS, 0, 0, 0, 2, 0, 64u << 10), UP(0, 0x180000));
		}
		if (i % 9 == 4) {
			node(d, 1);
			sd_put(d, 0x1000 * i, src + i, 300); /* into the source while it is sent */
		}
		if (i % 11 == 3)
			hs_hash_sd(d, 2, 0x100000 + 0x3000 * i, 4096, &h);
		hs_look(d, &h);
	}
	settle(d);
	settle(d);
	hs_look(d, &h);
	hs_hash_sd(d, 2, 0x100000, 256 << 10, &h);
	hs_hash_sd(d, 2, 0x180000, 64 << 10, &h);
	hs_hash_sd(d, 1, 0x200000, 128 << 10, &h);
	hs_hash_sd(d, 1, 0x300000, 128 << 10, &h);
	*events = stat(d, "events");
	dnet_close(d);
	return h;
}

static void test_host_speed(void)
{
	/* A trace turns the shortcuts off: with it, every step is an event. */
	char spec[128];
	snprintf(spec, sizeof spec, "sim:nodes=3,trace=/tmp/test_sim_hs_%d.json", (int)getpid());
	uint64_t e_fast, e_slow;
	uint64_t h_fast = hs_scenario("sim:nodes=3", &e_fast), h_slow = hs_scenario(spec, &e_slow);
	unlink(spec + strlen("sim:nodes=3,trace="));
	CHECK_EQ(h_fast, h_slow);
	CHECK(e_fast < e_slow);
	/* One 1 MB RVS alone: the Receive Controller's two steps run in the
	 * arrival's event, about two events a packet (four otherwise). */
	struct dnet_dev *d = sim_open("sim:nodes=2");
	static uint8_t src[1 << 20];
	fill(src, sizeof src, 9);
	sd_put(d, 0, src, sizeof src);
	uint64_t e0 = stat(d, "events");
	kick(d, 0, 0, LO(DNET_OT_RVS, 0, 0, 0, 2, 0, 1u << 20), UP(0, 0x100000));
	settle(d);
	settle(d);
	settle(d);
	settle(d);
	settle(d);
	settle(d);
	settle(d);
	settle(d);
	node(d, 2);
	uint64_t pkts = ((1u << 20) + 2031) / 2032; /* 2 KB packets of 16 B header and 2032 B */
	CHECK_EQ(stat(d, "packets_received"), pkts);
	CHECK(stat(d, "events") - e0 < 3 * pkts);
	dnet_close(d);
}

int main(void)
{
	RUN(test_spec);
	RUN(test_time_end);
	RUN(test_determinism);
	RUN(test_determinism2);
	RUN(test_host_speed);
	return t_summary("test_sim");
}
