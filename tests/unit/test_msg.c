/* The reference messaging layer (libdnet/src/msg.c) on the emulator: every
 * transport and size class, matching rules (ANY_SOURCE/ANY_TAG, order per
 * sender and tag, truncation), ring wrap, the LH Buffer's back-pressure
 * with unexpected messages, refusals, and a randomised run of many
 * messages among 4 ranks checked against the test's own queues.  Payloads
 * are generated from (sender, sequence) here, so every byte delivered is
 * checked against what the test sent. */
/* Decisions pinned here (docs/decisions.md): D-MSG-ENV, D-MSG-EAGER,
 * D-MSG-RNDV, D-MSG-LH-PHASE. */
#include <stdio.h>
#include <string.h>
#include "test_sim_util.h"

/* The call fails (-1) with this error code. */
#define CHECK_ERR(call, want) do { \
	E.code = 0; \
	CHECK((call) < 0); \
	CHECK_EQ(E.code, (want)); \
} while (0)

static void payload(uint8_t *b, size_t len, unsigned src, unsigned seq)
{
	uint64_t x = (uint64_t)src << 40 ^ seq * 0x9e3779b97f4a7c15ull ^ 0x1234567ull;
	for (size_t i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		b[i] = (uint8_t)x;
	}
}

static struct dnet_msg_job *job_open(struct dnet_dev *d, unsigned nranks, const struct dnet_msg_params *p)
{
	struct dnet_msg_job *j = NULL;
	CHECK_OK(dnet_msg_job_open(d, nranks, NULL, NULL, 0, p, &j, &E), &E);
	return j;
}

/* One message rank 0 -> rank 1 and back the same way, checked byte by byte. */
static void roundtrip(struct dnet_msg_job *j, size_t len, enum dnet_msg_via via, unsigned seq)
{
	uint8_t *tx = malloc(len + 1), *rx = malloc(len + 16);
	payload(tx, len, 0, seq);
	memset(rx, 0xee, len + 16);
	CHECK_OK(dnet_msg_send(j, 0, 1, 1000 + seq, tx, len, via, &E), &E);
	struct dnet_msg_status st;
	CHECK_OK(dnet_msg_recv(j, 1, 0, 1000 + seq, rx, len + 16, &st, &E), &E);
	CHECK_EQ(st.source, 0);
	CHECK_EQ(st.tag, 1000 + seq);
	CHECK_EQ(st.len, len);
	CHECK(!st.truncated);
	enum dnet_msg_via want = via != DNET_MSG_VIA_AUTO ? via
				 : len <= DNET_MSG_BOTF_MAX ? DNET_MSG_VIA_BOTF
				 : len <= 16384 ? DNET_MSG_VIA_LHSV2 : DNET_MSG_VIA_RNDV;
	CHECK_EQ(st.via, want);
	if (memcmp(tx, rx, len) != 0) {
		size_t k = 0;
		while (tx[k] == rx[k])
			k++;
		fprintf(stderr, "size %zu via %d: first difference at byte %zu\n", len, (int)via, k);
	}
	CHECK(memcmp(tx, rx, len) == 0);
	CHECK_EQ(rx[len], 0xee); /* nothing written past the message */
	free(tx);
	free(rx);
}

static const size_t sizes[] = { 0, 1, 7, 47, 48, 49, 56, 64, 488, 489, 512, 2047, 2048, 4096, 16384, 16385,
				65536 };
#define NSIZES (sizeof sizes / sizeof sizes[0])

static void test_sizes_per_transport(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=2");
	struct dnet_msg_job *j = job_open(d, 2, NULL);
	unsigned seq = 0;
	for (unsigned via = DNET_MSG_VIA_AUTO; via <= DNET_MSG_VIA_RNDV; via++)
		for (unsigned i = 0; i < NSIZES; i++) {
			if (via == DNET_MSG_VIA_BOTF && sizes[i] > DNET_MSG_BOTF_MAX)
				continue;
			roundtrip(j, sizes[i], via, seq++);
		}
	/* The hardware saw them: node 2's LH Buffer Tail moved one entry per
	 * message, and every ring byte was given back (AMT Head == Tail). */
	node(d, 2);
	uint64_t tail = 0, amt = 0;
	CHECK_OK(dnet_read64(d, DNET_UREG_WID(0) + DNET_UR_LHB_ADDR, &tail, &E), &E);
	/* Rendezvous: an RTS entry at the receiver, a completion at the sender. */
	unsigned nrndv = NSIZES + 2; /* every size by RNDV, 16385 and 65536 by AUTO */
	CHECK_EQ(tail & 0xfc0, (64u * seq) % 4096u);
	CHECK_OK(dnet_read64(d, DNET_LLCM_WID(0) + 8u * (256 + 0), &amt, &E), &E);
	CHECK_EQ((uint32_t)amt, (uint32_t)(amt >> 32));
	struct dnet_msg_counters c;
	CHECK_EQ(dnet_msg_counters(j, 1, &c), 0);
	CHECK_EQ(c.received, seq);
	CHECK_EQ(c.lh_entries_freed, seq);
	CHECK_EQ(c.pulls, nrndv);
	struct dnet_msg_counters c0;
	CHECK_EQ(dnet_msg_counters(j, 0, &c0), 0);
	CHECK_EQ(c0.sent_rndv, nrndv);
	CHECK_EQ(c0.lh_entries_freed, nrndv); /* the completions */
	uint64_t ring = 0;
	for (unsigned via = DNET_MSG_VIA_AUTO; via <= DNET_MSG_VIA_LHSV2; via++)
		for (unsigned i = 0; i < NSIZES; i++)
			if (!(via == DNET_MSG_VIA_BOTF && sizes[i] > DNET_MSG_BOTF_MAX) && sizes[i] > 48 &&
			    !(via == DNET_MSG_VIA_AUTO && sizes[i] > 16384))
				ring += (sizes[i] - 48 + 7) / 8 * 8;
	CHECK_EQ(c.ring_bytes_freed, ring);
	dnet_msg_job_close(j);
	dnet_close(d);
}

/* ANY_SOURCE, ANY_TAG, per-sender order, probe, truncation. */
static void test_matching(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=3");
	struct dnet_msg_job *j = job_open(d, 3, NULL);
	uint32_t v;
	for (uint32_t k = 0; k < 4; k++) {
		v = 100 + k;
		CHECK_OK(dnet_msg_send(j, 1, 0, k % 2 ? 7 : 5, &v, sizeof v, DNET_MSG_VIA_AUTO, &E), &E);
	}
	v = 200;
	CHECK_OK(dnet_msg_send(j, 2, 0, 5, &v, sizeof v, DNET_MSG_VIA_LHSV1, &E), &E);
	bool found = false;
	struct dnet_msg_status st;
	CHECK_OK(dnet_msg_probe(j, 0, 2, DNET_MSG_ANY_TAG, &found, &st, &E), &E);
	CHECK(found);
	CHECK_EQ(st.source, 2);
	CHECK_OK(dnet_msg_probe(j, 0, 2, 7, &found, NULL, &E), &E);
	CHECK(!found);
	/* Tag 7 from rank 1: 101 then 103, in order, passing the tag-5 ones. */
	CHECK_OK(dnet_msg_recv(j, 0, 1, 7, &v, sizeof v, &st, &E), &E);
	CHECK_EQ(v, 101);
	CHECK_OK(dnet_msg_recv(j, 0, DNET_MSG_ANY_SOURCE, 7, &v, sizeof v, &st, &E), &E);
	CHECK_EQ(v, 103);
	/* ANY/ANY: arrival order -- 100, 102, then rank 2's 200. */
	uint32_t want[] = { 100, 102, 200 };
	for (unsigned k = 0; k < 3; k++) {
		CHECK_OK(dnet_msg_recv(j, 0, DNET_MSG_ANY_SOURCE, DNET_MSG_ANY_TAG, &v, sizeof v, &st, &E), &E);
		CHECK_EQ(v, want[k]);
		CHECK_EQ(st.source, k < 2 ? 1u : 2u);
	}
	/* Truncation: 100 bytes into 10. */
	uint8_t big[100], small[12];
	payload(big, sizeof big, 1, 9);
	memset(small, 0, sizeof small);
	CHECK_OK(dnet_msg_send(j, 1, 0, 9, big, sizeof big, DNET_MSG_VIA_BOTF, &E), &E);
	CHECK_OK(dnet_msg_recv(j, 0, 1, 9, small, 10, &st, &E), &E);
	CHECK(st.truncated);
	CHECK_EQ(st.len, 100);
	CHECK(memcmp(small, big, 10) == 0);
	CHECK_EQ(small[10], 0);
	/* A posted receive completes when the message comes (irecv first). */
	struct dnet_msg_req *q;
	CHECK_OK(dnet_msg_irecv(j, 2, 0, 3, &v, sizeof v, &q, &E), &E);
	bool done = true;
	CHECK_OK(dnet_msg_test(j, q, &done, NULL, &E), &E);
	CHECK(!done);
	uint32_t w = 77;
	CHECK_OK(dnet_msg_send(j, 0, 2, 3, &w, sizeof w, DNET_MSG_VIA_LHSV2, &E), &E);
	CHECK_OK(dnet_msg_wait(j, q, &st, &E), &E);
	CHECK_EQ(v, 77);
	CHECK_EQ(st.via, DNET_MSG_VIA_LHSV2);
	/* Nothing left: a receive times out, naming the rank. */
	struct dnet_msg_params p;
	dnet_msg_job_close(j);
	dnet_msg_params_default(&p);
	p.timeout_ns = 100000;
	j = job_open(d, 3, &p);
	CHECK_ERR(dnet_msg_recv(j, 0, DNET_MSG_ANY_SOURCE, DNET_MSG_ANY_TAG, &v, sizeof v, &st, &E),
		  DNET_ETIMEDOUT);
	CHECK(strstr(E.msg, "rank 0") != NULL);
	dnet_msg_job_close(j);
	dnet_close(d);
}

/* A 4 KB ring wraps many times; the LH Buffer (63 entries) fills while the
 * receiver posts nothing: sends keep going because waiting drains it into
 * the unexpected queue. */
static void test_wrap_and_backpressure(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=2");
	struct dnet_msg_params p;
	dnet_msg_params_default(&p);
	p.ring_units = 1;
	struct dnet_msg_job *j = job_open(d, 2, &p);
	CHECK_EQ(dnet_msg_max_len(j, DNET_MSG_VIA_LHSV1), 4096 - 8 + 48);
	CHECK_EQ(dnet_msg_max_len(j, DNET_MSG_VIA_RNDV), 8u << 20);
	enum { N = 200 };
	uint8_t tx[1000], rx[1000];
	for (unsigned k = 0; k < N; k++) {
		size_t len = 200 + (k * 37) % 800;
		payload(tx, len, 0, k);
		CHECK_OK(dnet_msg_send(j, 0, 1, k, tx, len, k % 2 ? DNET_MSG_VIA_LHSV1 : DNET_MSG_VIA_LHSV2, &E),
			 &E);
	}
	for (unsigned k = 0; k < N; k++) {
		size_t len = 200 + (k * 37) % 800;
		struct dnet_msg_status st;
		payload(tx, len, 0, k);
		CHECK_OK(dnet_msg_recv(j, 1, 0, DNET_MSG_ANY_TAG, rx, sizeof rx, &st, &E), &E);
		CHECK_EQ(st.tag, k);
		CHECK_EQ(st.len, len);
		CHECK(memcmp(tx, rx, len) == 0);
	}
	struct dnet_msg_counters c;
	CHECK_EQ(dnet_msg_counters(j, 1, &c), 0);
	CHECK_EQ(c.received, N);
	CHECK(c.unexpected >= N - 64); /* at most what the LH Buffer held was still there */
	dnet_msg_job_close(j);
	dnet_close(d);
}

static void test_refusals(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=2");
	struct dnet_msg_job *j = job_open(d, 2, NULL);
	uint8_t b[600] = { 0 };
	struct dnet_msg_req *q;
	CHECK_ERR(dnet_msg_isend(j, 0, 1, 0, b, 489, DNET_MSG_VIA_BOTF, &q, &E), DNET_ERANGE);
	CHECK(strstr(E.msg, "BOTF") != NULL);
	CHECK_ERR(dnet_msg_isend(j, 0, 2, 0, b, 1, DNET_MSG_VIA_AUTO, &q, &E), DNET_EINVAL);
	CHECK_ERR(dnet_msg_isend(j, 0, 1, 0, b, 64u * 4096 + 41, DNET_MSG_VIA_LHSV1, &q, &E), DNET_ERANGE);
	CHECK_ERR(dnet_msg_isend(j, 0, 1, 0, b, (8u << 20) + 1, DNET_MSG_VIA_AUTO, &q, &E), DNET_ERANGE);
	CHECK(strstr(E.msg, "stage_size") != NULL);
	CHECK_ERR(dnet_msg_isend(j, 0, 1, 0, b, 1, (enum dnet_msg_via)9, &q, &E), DNET_EINVAL);
	CHECK_ERR(dnet_msg_irecv(j, 1, 5, 0, b, 1, &q, &E), DNET_EINVAL);
	dnet_msg_job_close(j);
	struct dnet_msg_rank map[2] = { { 1, 0 }, { 1, 0 } };
	struct dnet_msg_job *bad = NULL;
	CHECK_ERR(dnet_msg_job_open(d, 2, map, NULL, 0, NULL, &bad, &E), DNET_EINVAL);
	CHECK(strstr(E.msg, "rank 1") != NULL);
	struct dnet_msg_params p;
	dnet_msg_params_default(&p);
	p.ring_base = 4096; /* not a multiple of 256 KB */
	CHECK_ERR(dnet_msg_job_open(d, 2, NULL, NULL, 0, &p, &bad, &E), DNET_EALIGN);
	dnet_msg_job_close(bad);
	dnet_close(d);
}

/* Two ranks on one node (WID 0 and 1) and one elsewhere. */
static void test_two_wids(void)
{
	struct dnet_dev *d = sim_open("sim:nodes=2");
	struct dnet_msg_rank map[3] = { { 1, 0 }, { 1, 1 }, { 2, 0 } };
	struct dnet_msg_job *j = NULL;
	CHECK_OK(dnet_msg_job_open(d, 3, map, NULL, 0, NULL, &j, &E), &E);
	uint8_t tx[300], rx[300];
	for (unsigned s = 0; s < 3; s++)
		for (unsigned r = 0; r < 3; r++) {
			if (r == s)
				continue;
			payload(tx, sizeof tx, s, r);
			CHECK_OK(dnet_msg_send(j, s, r, s, tx, sizeof tx, DNET_MSG_VIA_LHSV1, &E), &E);
		}
	for (unsigned r = 0; r < 3; r++)
		for (unsigned s = 0; s < 3; s++) {
			if (r == s)
				continue;
			struct dnet_msg_status st;
			payload(tx, sizeof tx, s, r);
			CHECK_OK(dnet_msg_recv(j, r, (int)s, s, rx, sizeof rx, &st, &E), &E);
			CHECK(memcmp(tx, rx, sizeof rx) == 0);
		}
	dnet_msg_job_close(j);
	dnet_close(d);
}

/* Randomised: N messages among 4 ranks, random transport, size, tag, and
 * receive order (specific or wildcard source/tag); each receive must get
 * the oldest matching message the test's own queues hold. */
#define R 4
#define TAGS 3
#define QMAX 4096
struct sent { unsigned seq; size_t len; uint32_t tag; };
static struct sent qs[R][R][QMAX]; /* [src][dst] FIFO of messages in flight */
static unsigned qh[R][R], qt[R][R];

static void test_random(void)
{
	unsigned n = 10000;
	const char *env = getenv("MSG_RANDOM_N");
	if (env)
		n = (unsigned)strtoul(env, NULL, 10);
	struct dnet_dev *d = sim_open("sim:nodes=4");
	struct dnet_msg_job *j = job_open(d, R, NULL);
	static uint8_t tx[70000], rx[70000];
	unsigned seq = 0, received = 0, bad = 0;
	while (received < n) {
		bool do_send = seq < n && (t_rand() % 3 != 0 || received == seq);
		if (do_send) {
			unsigned s = (unsigned)(t_rand() % R), r = (unsigned)((s + 1 + t_rand() % (R - 1)) % R);
			size_t len = t_rand() % 8 ? t_rand() % 600 : t_rand() % 70000;
			if (t_rand() % 50 == 0)
				len = 65536 + t_rand() % 4000;
			enum dnet_msg_via via = (enum dnet_msg_via)(t_rand() % 5);
			if (via == DNET_MSG_VIA_BOTF && len > DNET_MSG_BOTF_MAX)
				via = DNET_MSG_VIA_AUTO;
			uint32_t tag = (uint32_t)(t_rand() % TAGS);
			payload(tx, len, s, seq);
			if (dnet_msg_send(j, s, r, tag, tx, len, via, &E) < 0) {
				CHECK_OK(-1, &E);
				break;
			}
			qs[s][r][qt[s][r]++ % QMAX] = (struct sent){ seq, len, tag };
			seq++;
			continue;
		}
		/* Receive at a rank with something in flight to it. */
		unsigned r, s = 0;
		do
			r = (unsigned)(t_rand() % R);
		while (!(qt[0][r] - qh[0][r] + qt[1][r] - qh[1][r] + qt[2][r] - qh[2][r] + qt[3][r] - qh[3][r]));
		int src = DNET_MSG_ANY_SOURCE;
		int64_t tag = DNET_MSG_ANY_TAG;
		if (t_rand() % 2) { /* a specific source with something queued */
			do
				s = (unsigned)(t_rand() % R);
			while (qt[s][r] == qh[s][r]);
			src = (int)s;
			if (t_rand() % 2)
				tag = qs[s][r][(qh[s][r] + t_rand() % (qt[s][r] - qh[s][r])) % QMAX].tag;
		}
		struct dnet_msg_status st;
		if (dnet_msg_recv(j, r, src, tag, rx, sizeof rx, &st, &E) < 0) {
			CHECK_OK(-1, &E);
			break;
		}
		/* The message must be the oldest from st.source with a matching
		 * tag (MPI's non-overtaking rule per sender). */
		s = st.source;
		CHECK(s < R && (src == DNET_MSG_ANY_SOURCE || (unsigned)src == s));
		unsigned k = qh[s][r];
		while (k != qt[s][r] && !(tag == DNET_MSG_ANY_TAG || qs[s][r][k % QMAX].tag == (uint32_t)tag))
			k++;
		if (k == qt[s][r]) {
			bad++;
			break;
		}
		struct sent m = qs[s][r][k % QMAX];
		for (unsigned i = k; i != qh[s][r]; i--) /* remove entry k, keep order */
			qs[s][r][i % QMAX] = qs[s][r][(i - 1) % QMAX];
		qh[s][r]++;
		payload(tx, m.len, s, m.seq);
		if (st.len != m.len || st.tag != m.tag || memcmp(tx, rx, m.len) != 0)
			bad++;
		received++;
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(received, n);
	CHECK_EQ(seq, n);
	dnet_msg_job_close(j);
	dnet_close(d);
}

int main(void)
{
	RUN(test_sizes_per_transport);
	RUN(test_matching);
	RUN(test_wrap_and_backpressure);
	RUN(test_refusals);
	RUN(test_two_wids);
	RUN(test_random);
	return t_summary("msg");
}
