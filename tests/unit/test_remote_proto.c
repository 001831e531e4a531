/* The dnetd wire protocol (backends/remote/wire/, docs/protocol.md):
 * frames computed by hand, encode/decode round trips, rejection of
 * malformed frames, and a mutation fuzz of every valid frame. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "remote/wire/proto.h"

static struct dnet_pbuf pb;

static void msg(struct dnet_proto_msg *m, uint16_t type, uint32_t id)
{
	memset(m, 0, sizeof *m);
	m->type = type;
	m->id = id;
	if (wire_noded(type))
		m->node = 1; /* every request on the device names its node (2.0) */
}

/* Encode m into pb (fresh) and return 0 or the error. */
static int enc(const struct dnet_proto_msg *m)
{
	struct dnet_err e;
	pb.len = 0;
	return wire_encode(&pb, m, &e);
}

/* Decode raw bytes; returns the code, message in *e. */
static int dec(const uint8_t *b, size_t n, struct dnet_proto_msg *m, struct dnet_err *e)
{
	dnet_clearerr(e);
	return wire_decode(b, n, m, e);
}

/* Build a frame by hand: header + payload, as it is (frame_raw), or with
 * node 1 before the payload of a request that names its node (2.0). */
static size_t frame_raw(uint8_t *out, uint16_t type, uint32_t id, const uint8_t *payload, size_t n)
{
	dnet_put32(out, (uint32_t)n);
	dnet_put16(out + 4, type);
	dnet_put16(out + 6, 0);
	dnet_put32(out + 8, id);
	if (n)
		memcpy(out + 12, payload, n);
	return 12 + n;
}

static size_t frame(uint8_t *out, uint16_t type, uint32_t id, const uint8_t *payload, size_t n)
{
	if (!wire_noded(type))
		return frame_raw(out, type, id, payload, n);
	uint8_t p[DNET_PROTO_NODE_SIZE + 64];
	dnet_put32(p, 1);
	if (n)
		memcpy(p + DNET_PROTO_NODE_SIZE, payload, n);
	return frame_raw(out, type, id, p, DNET_PROTO_NODE_SIZE + n);
}

static void test_hand_read(void)
{
	/* READ id 7 of the Controller Status of WID 0, 8 bytes. */
	static const uint8_t want[] = {
		0x0c, 0x00, 0x00, 0x00, /* len 12 */
		0x02, 0x00,             /* READ */
		0x00, 0x00,             /* flags */
		0x07, 0x00, 0x00, 0x00, /* id 7 */
		0x02, 0x00, 0x00, 0x00, /* node 2 (2.0) */
		0x00, 0x02, 0x04, 0x00, /* off 0x40200 */
		0x08, 0x00, 0x00, 0x00, /* width 8, reserved */
	};
	struct dnet_proto_msg m, d;
	struct dnet_err e;
	msg(&m, DNET_MSG_READ, 7);
	m.node = 2;
	m.off = 0x40200;
	m.width = 8;
	CHECK_OK(enc(&m), &e);
	CHECK_EQ(pb.len, sizeof want);
	CHECK(pb.len == sizeof want && memcmp(pb.p, want, sizeof want) == 0);
	CHECK_OK(dec(want, sizeof want, &d, &e), &e);
	CHECK_EQ(d.type, DNET_MSG_READ);
	CHECK_EQ(d.id, 7);
	CHECK_EQ(d.node, 2);
	CHECK_EQ(wire_frame_node(want, sizeof want), 2);
	CHECK_EQ(d.off, 0x40200);
	CHECK_EQ(d.width, 8);

	/* Its 16-byte reply: value {low, high} little-endian. */
	static const uint8_t rep[] = {
		0x10, 0, 0, 0, 0x02, 0x80, 0, 0, 0x07, 0, 0, 0,
		0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
	};
	CHECK_OK(dec(rep, sizeof rep, &d, &e), &e);
	CHECK_EQ(d.type, DNET_MSG_READ | DNET_MSG_REPLY);
	CHECK_EQ(d.width, 16);
	CHECK_EQ(d.val[0], 0x1122334455667788ull);
	CHECK_EQ(d.val[1], 0x0807060504030201ull);
	msg(&m, DNET_MSG_READ | DNET_MSG_REPLY, 7);
	m.width = 16;
	m.val[0] = 0x1122334455667788ull;
	m.val[1] = 0x0807060504030201ull;
	CHECK_OK(enc(&m), &e);
	CHECK(pb.len == sizeof rep && memcmp(pb.p, rep, sizeof rep) == 0);
}

static void test_hand_hello(void)
{
	static const uint8_t want[] = {
		0x13, 0, 0, 0, 0x01, 0x00, 0, 0, 0x01, 0, 0, 0,
		'D', 'N', 'E', 'T',     /* magic */
		0x01, 0x00, 0x00, 0x00, /* version 1.0 */
		0x03, 0x00, 0x00, 0x00, /* node 3 */
		0x01, 0x00,             /* wid 1, user */
		0x03, 0x00, 'a', 'b', 'c',
	};
	struct dnet_proto_msg m, d;
	struct dnet_err e;
	msg(&m, DNET_MSG_HELLO, 1);
	m.ver_major = 1;
	m.node = 3;
	m.wid = 1;
	m.privileged = 0;
	strcpy(m.token, "abc");
	CHECK_OK(enc(&m), &e);
	CHECK(pb.len == sizeof want && memcmp(pb.p, want, sizeof want) == 0);
	CHECK_OK(dec(want, sizeof want, &d, &e), &e);
	CHECK_STR(d.token, "abc");
	CHECK_EQ(d.node, 3);
	CHECK_EQ(d.wid, 1);
	CHECK_EQ(d.privileged, 0);
	CHECK_EQ(d.ver_major, 1);
}

static void test_hand_error(void)
{
	static const uint8_t want[] = {
		0x08, 0, 0, 0, 0xff, 0x80, 0, 0, 0x2a, 0, 0, 0,
		0x03, 0x00, 0x00, 0x00, /* DNET_EPERM */
		0x02, 0x00, 'n', 'o',
	};
	struct dnet_proto_msg d;
	struct dnet_err e;
	pb.len = 0;
	CHECK_OK(wire_encode_error(&pb, 42, -DNET_EPERM, "no", &e), &e);
	CHECK(pb.len == sizeof want && memcmp(pb.p, want, sizeof want) == 0);
	CHECK_OK(dec(want, sizeof want, &d, &e), &e);
	CHECK_EQ(d.code, DNET_EPERM);
	CHECK_STR(d.msg, "no");
	/* A long message is cut to 255 bytes, not refused. */
	char big[600];
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = 0;
	pb.len = 0;
	CHECK_OK(wire_encode_error(&pb, 1, DNET_EIO, big, &e), &e);
	CHECK_EQ(pb.len, 12 + 6 + 255);
}

/* ---- round trips of every message type ---- */

static struct dnet_proto_msg samples[64];
static unsigned nsamples;
static uint8_t blob[300];
static const char *const names3[] = {"vtime_ns", "events", "pgid_drops", NULL};

static struct dnet_proto_msg *add(uint16_t type)
{
	struct dnet_proto_msg *m = &samples[nsamples++];
	msg(m, type, 1000 + nsamples);
	return m;
}

static void build_samples(void)
{
	struct dnet_proto_msg *m;
	for (unsigned i = 0; i < sizeof blob; i++)
		blob[i] = (uint8_t)(i * 7 + 3);
	nsamples = 0;
	m = add(DNET_MSG_HELLO); m->ver_major = 1; m->ver_minor = 2; m->node = 64; m->privileged = 1;
	strcpy(m->token, "s3cr3t-token");
	m = add(DNET_MSG_HELLO); m->ver_major = 1; m->node = 1; m->wid = 1; /* no token */
	m = add(DNET_MSG_HELLO | DNET_MSG_REPLY); m->ver_major = 1; m->nodes = 3072; m->node = 3072;
	m->caps = 0x2f; m->max_payload = DNET_PROTO_MAX_PAYLOAD;
	/* 1.2: the cluster id appended (32 bytes) */
	m = add(DNET_MSG_HELLO | DNET_MSG_REPLY); m->ver_major = 1; m->ver_minor = 2; m->nodes = 2; m->node = 1;
	m->caps = 0x23; m->max_payload = DNET_PROTO_MAX_PAYLOAD; m->cluster = 0x8877665544332211ull;
	static const unsigned widths[] = {1, 2, 4, 8, 16};
	for (unsigned i = 0; i < 5; i++) {
		m = add(DNET_MSG_READ); m->off = 0x20000 + widths[i] * 16; m->width = (uint8_t)widths[i];
		m = add(DNET_MSG_WRITE); m->off = 0x28000; m->width = (uint8_t)widths[i];
		m->val[0] = widths[i] == 8 || widths[i] == 16 ? 0xfedcba9876543210ull
							     : 0xfedcba9876543210ull & ((1ull << (8 * widths[i])) - 1);
		m->val[1] = widths[i] == 16 ? 0x0123456789abcdefull : 0;
		m = add(DNET_MSG_READ | DNET_MSG_REPLY); m->width = (uint8_t)widths[i];
		m->val[0] = widths[i] >= 8 ? 0x8000000000000001ull : 0x81ull;
		m->val[1] = widths[i] == 16 ? 0xffffffffffffffffull : 0;
	}
	m = add(DNET_MSG_READ_BLOCK); m->off = 0x10000; m->len = DNET_PROTO_MAX_DATA;
	m = add(DNET_MSG_WRITE_BLOCK); m->off = 0; m->len = 256; m->data = blob; m->data_len = 256;
	m = add(DNET_MSG_READ_BLOCK | DNET_MSG_REPLY); m->data = blob; m->data_len = 64;
	m = add(DNET_MSG_WC_FLUSH);
	m = add(DNET_MSG_CACHE_FLUSH); m->off = 0x12000; m->len = 512;
	m = add(DNET_MSG_PREFETCH); m->off = 0x30000; m->len = 4096;
	m = add(DNET_MSG_READ); m->off = 0x20000; m->width = 8; m->node = 3072; /* the last node of 11:8 */
	m = add(DNET_MSG_WAIT); m->off = 0x40200; m->mask = 1; m->cond = 5; m->value = 0;
	m->timeout_ns = 1000000000ull;
	m = add(DNET_MSG_WAIT | DNET_MSG_REPLY); m->last = 0x11;
	m = add(DNET_MSG_WAIT | DNET_MSG_REPLY); m->timed_out = 1; m->last = 0x10;
	strcpy(m->msg, "timed out after 5 ns");
	m = add(DNET_MSG_DELAY); m->ns = 123456789;
	m = add(DNET_MSG_NOW);
	m = add(DNET_MSG_NOW | DNET_MSG_REPLY); m->ns = 0xffffffffffull;
	m = add(DNET_MSG_BUSY);
	m = add(DNET_MSG_BUSY | DNET_MSG_REPLY); m->busy = 1;
	m = add(DNET_MSG_SODIMM_READ); m->addr = 0x1fffffff8ull; m->len = 8;
	m = add(DNET_MSG_SODIMM_WRITE); m->addr = 0x10000000; m->len = 24; m->data = blob + 1; m->data_len = 24;
	m = add(DNET_MSG_SODIMM_READ | DNET_MSG_REPLY); m->data = blob; m->data_len = 0;
	m = add(DNET_MSG_STAT); strcpy(m->name, "packets_sent");
	m = add(DNET_MSG_STAT | DNET_MSG_REPLY); m->stat = 99;
	m = add(DNET_MSG_STAT_NAMES);
	m = add(DNET_MSG_STAT_NAMES | DNET_MSG_REPLY); m->count = 3; m->names = names3;
	m = add(DNET_MSG_PARAM); m->op = DNET_PARAM_OP_LIST;
	m = add(DNET_MSG_PARAM); m->op = DNET_PARAM_OP_GET; strcpy(m->name, "fault.rules");
	m = add(DNET_MSG_PARAM); m->op = DNET_PARAM_OP_SET; strcpy(m->name, "fault.add");
	m->data = (const uint8_t *)"drop 5% from 1 to 2"; m->data_len = 19;
	m = add(DNET_MSG_PARAM | DNET_MSG_REPLY); m->data = (const uint8_t *)"16384"; m->data_len = 5;
	m = add(DNET_MSG_PARAM | DNET_MSG_REPLY);
	m = add(DNET_MSG_PARAM_ALL);
	m = add(DNET_MSG_PARAM_ALL | DNET_MSG_REPLY); m->count = 2;
	m->data = (const uint8_t *)"fault.seed\0003\0fault.rules\0\0"; m->data_len = 26;
	m = add(DNET_MSG_PARAM_ALL | DNET_MSG_REPLY);
	m = add(DNET_MSG_ERROR); m->code = DNET_ERANGE; strcpy(m->msg, "offset out of range");
	/* the other empty replies, and SYNC */
	static const uint16_t empty[] = {DNET_MSG_WRITE, DNET_MSG_WRITE_BLOCK, DNET_MSG_WC_FLUSH,
					 DNET_MSG_CACHE_FLUSH, DNET_MSG_PREFETCH, DNET_MSG_DELAY,
					 DNET_MSG_SODIMM_WRITE};
	for (unsigned i = 0; i < sizeof empty / sizeof empty[0]; i++)
		add((uint16_t)(empty[i] | DNET_MSG_REPLY));
	m = add(DNET_MSG_SYNC);
	m = add(DNET_MSG_SYNC | DNET_MSG_REPLY); m->count = 5; m->skipped = 2;
}

static bool same(const struct dnet_proto_msg *a, const struct dnet_proto_msg *b)
{
	if (a->type != b->type || a->id != b->id)
		return false;
	if (wire_noded(a->type) && a->node != b->node)
		return false;
	switch (a->type) {
	case DNET_MSG_HELLO:
		return a->ver_major == b->ver_major && a->ver_minor == b->ver_minor && a->node == b->node &&
		       a->wid == b->wid && a->privileged == b->privileged && !strcmp(a->token, b->token);
	case DNET_MSG_HELLO | DNET_MSG_REPLY:
		return a->ver_major == b->ver_major && a->nodes == b->nodes && a->node == b->node &&
		       a->caps == b->caps && a->max_payload == b->max_payload && a->cluster == b->cluster;
	case DNET_MSG_READ:
		return a->off == b->off && a->width == b->width;
	case DNET_MSG_WRITE:
	case DNET_MSG_READ | DNET_MSG_REPLY:
		return a->off == b->off && a->width == b->width && a->val[0] == b->val[0] &&
		       a->val[1] == b->val[1];
	case DNET_MSG_READ_BLOCK:
	case DNET_MSG_CACHE_FLUSH:
	case DNET_MSG_PREFETCH:
		return a->off == b->off && a->len == b->len;
	case DNET_MSG_WRITE_BLOCK:
	case DNET_MSG_SODIMM_WRITE:
		return a->off == b->off && a->addr == b->addr && a->len == b->len &&
		       a->data_len == b->data_len && !memcmp(a->data, b->data, a->data_len);
	case DNET_MSG_READ_BLOCK | DNET_MSG_REPLY:
	case DNET_MSG_SODIMM_READ | DNET_MSG_REPLY:
		return a->data_len == b->data_len && (!a->data_len || !memcmp(a->data, b->data, a->data_len));
	case DNET_MSG_WAIT:
		return a->off == b->off && a->mask == b->mask && a->cond == b->cond &&
		       a->value == b->value && a->timeout_ns == b->timeout_ns;
	case DNET_MSG_WAIT | DNET_MSG_REPLY:
		return a->timed_out == b->timed_out && a->last == b->last && !strcmp(a->msg, b->msg);
	case DNET_MSG_DELAY:
	case DNET_MSG_NOW | DNET_MSG_REPLY:
		return a->ns == b->ns;
	case DNET_MSG_BUSY | DNET_MSG_REPLY:
		return a->busy == b->busy;
	case DNET_MSG_SODIMM_READ:
		return a->addr == b->addr && a->len == b->len;
	case DNET_MSG_STAT:
		return !strcmp(a->name, b->name);
	case DNET_MSG_STAT | DNET_MSG_REPLY:
		return a->stat == b->stat;
	case DNET_MSG_STAT_NAMES | DNET_MSG_REPLY: {
		if (a->count != b->count)
			return false;
		const struct dnet_proto_msg *d = a->names ? b : a;
		const struct dnet_proto_msg *o = a->names ? a : b;
		size_t pos = 0;
		char nm[DNET_PROTO_NAME_MAX + 1];
		for (uint32_t i = 0; i < o->count; i++)
			if (!wire_next_name(d, &pos, nm) || strcmp(nm, o->names[i]))
				return false;
		return !wire_next_name(d, &pos, nm);
	}
	case DNET_MSG_PARAM:
	case DNET_MSG_PARAM | DNET_MSG_REPLY:
		return a->op == b->op && !strcmp(a->name, b->name) && a->data_len == b->data_len &&
		       (!a->data_len || !memcmp(a->data, b->data, a->data_len));
	case DNET_MSG_PARAM_ALL | DNET_MSG_REPLY:
		return a->count == b->count && a->data_len == b->data_len &&
		       (!a->data_len || !memcmp(a->data, b->data, a->data_len));
	case DNET_MSG_ERROR:
		return a->code == b->code && !strcmp(a->msg, b->msg);
	case DNET_MSG_SYNC | DNET_MSG_REPLY:
		return a->count == b->count && a->skipped == b->skipped;
	default:
		return true;
	}
}

static void test_round_trips(void)
{
	struct dnet_err e;
	build_samples();
	for (unsigned i = 0; i < nsamples; i++) {
		struct dnet_proto_msg d;
		int r = enc(&samples[i]);
		CHECK_OK(r, &e);
		if (r)
			continue;
		size_t flen = 0;
		CHECK_EQ(wire_peek(pb.p, pb.len, &flen, &e), 1);
		CHECK_EQ(flen, pb.len);
		CHECK_EQ(wire_peek(pb.p, pb.len - 1, &flen, &e), 0);
		CHECK_EQ(wire_peek(pb.p, 11, &flen, &e), 0);
		CHECK_OK(dec(pb.p, pb.len, &d, &e), &e);
		if (!same(&samples[i], &d))
			fprintf(stderr, "round trip of %s differs\n", wire_type_name(samples[i].type));
		CHECK(same(&samples[i], &d));
		CHECK(wire_is_request(d.type) != wire_is_reply(d.type));
	}
	/* Several frames back to back in one buffer. */
	pb.len = 0;
	for (unsigned i = 0; i < nsamples; i++)
		CHECK_OK(wire_encode(&pb, &samples[i], &e), &e);
	size_t pos = 0;
	unsigned n = 0;
	for (;;) {
		size_t flen;
		if (wire_peek(pb.p + pos, pb.len - pos, &flen, &e) != 1)
			break;
		struct dnet_proto_msg d;
		CHECK_OK(dec(pb.p + pos, flen, &d, &e), &e);
		CHECK(n < nsamples && same(&samples[n], &d));
		pos += flen;
		n++;
	}
	CHECK_EQ(n, nsamples);
	CHECK_EQ(pos, pb.len);
}

/* ---- the encoder refuses what the decoder would ---- */

static void test_encode_rejects(void)
{
	struct dnet_proto_msg m;
	msg(&m, DNET_MSG_READ, 1); m.width = 3;
	CHECK_EQ(enc(&m), -DNET_EINVAL);
	msg(&m, DNET_MSG_WRITE, 1); m.width = 0;
	CHECK_EQ(enc(&m), -DNET_EINVAL);
	msg(&m, DNET_MSG_HELLO, 1); m.wid = 2;
	CHECK_EQ(enc(&m), -DNET_EINVAL);
	msg(&m, DNET_MSG_HELLO, 1); memset(m.token, 'k', sizeof m.token); /* no NUL: 256 bytes */
	CHECK_EQ(enc(&m), -DNET_EINVAL);
	msg(&m, 0x0009, 1);                  /* SET_NODE of 1.x: retired */
	CHECK_EQ(enc(&m), -DNET_EINVAL);
	msg(&m, DNET_MSG_READ, 1); m.width = 8; m.node = 0; /* the node of a request: from 1 */
	CHECK_EQ(enc(&m), -DNET_EINVAL);
	msg(&m, DNET_MSG_NOW, 1); m.node = 0;
	CHECK_EQ(enc(&m), -DNET_EINVAL);
	msg(&m, DNET_MSG_WAIT, 1); m.cond = 6;
	CHECK_EQ(enc(&m), -DNET_EINVAL);
	msg(&m, DNET_MSG_READ_BLOCK, 1); m.len = DNET_PROTO_MAX_DATA + 8;
	CHECK_EQ(enc(&m), -DNET_EINVAL);
	msg(&m, DNET_MSG_WRITE_BLOCK, 1); m.len = 16; m.data = blob; m.data_len = 8;
	CHECK_EQ(enc(&m), -DNET_EINVAL);
	msg(&m, DNET_MSG_STAT, 1);
	CHECK_EQ(enc(&m), -DNET_EINVAL);
	msg(&m, DNET_MSG_ERROR, 1); m.code = 0;
	CHECK_EQ(enc(&m), -DNET_EINVAL);
	msg(&m, DNET_MSG_WAIT | DNET_MSG_REPLY, 1); strcpy(m.msg, "x"); /* message without timeout */
	CHECK_EQ(enc(&m), -DNET_EINVAL);
	msg(&m, 0x0042, 1);
	CHECK_EQ(enc(&m), -DNET_EINVAL);
	msg(&m, DNET_MSG_HELLO | DNET_MSG_REPLY, 1); m.nodes = 2; m.node = 3;
	CHECK_EQ(enc(&m), -DNET_EINVAL);
}

/* ---- malformed frames, computed by hand ---- */

struct bad {
	const char *what;
	uint16_t type;
	size_t n;
	uint8_t p[40];
};

static void test_decode_rejects(void)
{
	static const struct bad cases[] = {
		{"unknown type", 0x0042, 0, {0}},
		{"unknown reply type", 0x8042, 0, {0}},
		{"READ width 3", DNET_MSG_READ, 8, {0, 0, 2, 0, 3, 0, 0, 0}},
		{"READ width 0", DNET_MSG_READ, 8, {0, 0, 2, 0, 0, 0, 0, 0}},
		{"READ reserved", DNET_MSG_READ, 8, {0, 0, 2, 0, 8, 0, 1, 0}},
		{"READ short", DNET_MSG_READ, 7, {0, 0, 2, 0, 8, 0, 0}},
		{"READ long", DNET_MSG_READ, 9, {0, 0, 2, 0, 8, 0, 0, 0, 0}},
		{"WRITE value short", DNET_MSG_WRITE, 12, {0, 0, 2, 0, 8, 0, 0, 0, 1, 2, 3, 4}},
		{"WRITE value long", DNET_MSG_WRITE, 10, {0, 0, 2, 0, 1, 0, 0, 0, 1, 2}},
		{"READ reply 3 bytes", DNET_MSG_READ | DNET_MSG_REPLY, 3, {1, 2, 3}},
		{"READ reply empty", DNET_MSG_READ | DNET_MSG_REPLY, 0, {0}},
		{"WRITE_BLOCK short data", DNET_MSG_WRITE_BLOCK, 16, {0, 0, 0, 0, 16, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8}},
		{"WRITE_BLOCK oversize len", DNET_MSG_WRITE_BLOCK, 8, {0, 0, 0, 0, 0, 0, 0x10, 0}},
		{"READ_BLOCK oversize len", DNET_MSG_READ_BLOCK, 8, {0, 0, 0, 0, 1, 0, 4, 0}},
		{"HELLO short", DNET_MSG_HELLO, 15, {'D', 'N', 'E', 'T', 1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0}},
		{"HELLO bad magic", DNET_MSG_HELLO, 16, {'G', 'E', 'T', ' ', 1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0}},
		{"HELLO wid 2", DNET_MSG_HELLO, 16, {'D', 'N', 'E', 'T', 1, 0, 0, 0, 1, 0, 0, 0, 2, 1, 0, 0}},
		{"HELLO privileged 2", DNET_MSG_HELLO, 16, {'D', 'N', 'E', 'T', 1, 0, 0, 0, 1, 0, 0, 0, 0, 2, 0, 0}},
		{"HELLO token past end", DNET_MSG_HELLO, 18, {'D', 'N', 'E', 'T', 1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 3, 0, 'a', 'b'}},
		{"HELLO token NUL", DNET_MSG_HELLO, 18, {'D', 'N', 'E', 'T', 1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 2, 0, 'a', 0}},
		{"SET_NODE (1.x, retired)", 0x0009, 4, {1, 0, 0, 0}},
		{"WAIT cond 6", DNET_MSG_WAIT, 32, {0, 2, 4, 0, 6, 0, 0, 0}},
		{"WAIT short", DNET_MSG_WAIT, 24, {0, 2, 4, 0, 0, 0, 0, 0}},
		{"WAIT reply timed_out 2", DNET_MSG_WAIT | DNET_MSG_REPLY, 18, {2}},
		{"WAIT reply msg without timeout", DNET_MSG_WAIT | DNET_MSG_REPLY, 19, .p = {[16] = 1, [18] = 'x'}},
		{"DELAY short", DNET_MSG_DELAY, 4, {1, 0, 0, 0}},
		{"NOW with payload", DNET_MSG_NOW, 1, {0}},
		{"WC_FLUSH with payload", DNET_MSG_WC_FLUSH, 4, {0}},
		{"BUSY reply 2", DNET_MSG_BUSY | DNET_MSG_REPLY, 4, {2, 0, 0, 0}},
		{"SODIMM_READ reserved", DNET_MSG_SODIMM_READ, 16, {0, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 1}},
		{"SODIMM_READ data", DNET_MSG_SODIMM_READ, 17, {0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 9}},
		{"SODIMM_WRITE short data", DNET_MSG_SODIMM_WRITE, 17, {0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 9}},
		{"STAT empty name", DNET_MSG_STAT, 2, {0, 0}},
		{"STAT name 64", DNET_MSG_STAT, 2, {64, 0}},
		{"STAT name NUL", DNET_MSG_STAT, 4, {2, 0, 'a', 0}},
		{"STAT name past end", DNET_MSG_STAT, 4, {3, 0, 'a', 'b'}},
		{"STAT_NAMES reply truncated", DNET_MSG_STAT_NAMES | DNET_MSG_REPLY, 7, {2, 0, 0, 0, 1, 0, 'a'}},
		{"STAT_NAMES reply trailing", DNET_MSG_STAT_NAMES | DNET_MSG_REPLY, 8, {1, 0, 0, 0, 1, 0, 'a', 'b'}},
		{"STAT_NAMES reply count", DNET_MSG_STAT_NAMES | DNET_MSG_REPLY, 4, {1, 4, 0, 0}},
		{"STAT_NAMES reply empty name", DNET_MSG_STAT_NAMES | DNET_MSG_REPLY, 6, {1, 0, 0, 0, 0, 0}},
		{"PARAM op 3", DNET_MSG_PARAM, 4, {3, 0, 0, 0}},
		{"PARAM LIST with a name", DNET_MSG_PARAM, 5, {0, 0, 1, 0, 'a'}},
		{"PARAM GET without a name", DNET_MSG_PARAM, 4, {1, 0, 0, 0}},
		{"PARAM GET with a value", DNET_MSG_PARAM, 6, {1, 0, 1, 0, 'a', 'b'}},
		{"PARAM reserved byte", DNET_MSG_PARAM, 5, {1, 1, 1, 0, 'a'}},
		{"PARAM name past end", DNET_MSG_PARAM, 5, {1, 0, 2, 0, 'a'}},
		{"PARAM value NUL", DNET_MSG_PARAM, 6, {2, 0, 1, 0, 'a', 0}},
		{"PARAM reply NUL", DNET_MSG_PARAM | DNET_MSG_REPLY, 2, {'a', 0}},
		{"PARAM_ALL with payload", DNET_MSG_PARAM_ALL, 1, {0}},
		{"PARAM_ALL reply name without NUL", DNET_MSG_PARAM_ALL | DNET_MSG_REPLY, 2, {'a', 'b'}},
		{"PARAM_ALL reply name without value", DNET_MSG_PARAM_ALL | DNET_MSG_REPLY, 2, {'a', 0}},
		{"PARAM_ALL reply value without NUL", DNET_MSG_PARAM_ALL | DNET_MSG_REPLY, 3, {'a', 0, '1'}},
		{"PARAM_ALL reply empty name", DNET_MSG_PARAM_ALL | DNET_MSG_REPLY, 3, {0, '1', 0}},
		{"ERROR code 0", DNET_MSG_ERROR, 6, {0, 0, 0, 0, 0, 0}},
		{"ERROR code 65536", DNET_MSG_ERROR, 6, {0, 0, 1, 0, 0, 0}},
		{"ERROR msg past end", DNET_MSG_ERROR, 8, {1, 0, 0, 0, 5, 0, 'a', 'b'}},
		{"ERROR short", DNET_MSG_ERROR, 5, {1, 0, 0, 0, 0}},
		{"HELLO reply node 0", DNET_MSG_HELLO | DNET_MSG_REPLY, 24, {'D', 'N', 'E', 'T', 1, 0, 0, 0, 1, 0, 0, 0}},
	};
	uint8_t buf[64];
	for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct dnet_proto_msg d;
		struct dnet_err e;
		size_t n = frame(buf, cases[i].type, 5, cases[i].p, cases[i].n);
		int r = dec(buf, n, &d, &e);
		if (r != -DNET_EPROTO)
			fprintf(stderr, "accepted malformed frame: %s\n", cases[i].what);
		CHECK_EQ(r, -DNET_EPROTO);
		CHECK(e.msg[0] != 0);
		CHECK_EQ(d.id, 5); /* so that an error reply can echo it */
	}

	/* The node of a request (2.0): there, and from 1. */
	static const struct bad raw[] = {
		{"READ node 0", DNET_MSG_READ, 12, {0, 0, 0, 0, 0, 0, 2, 0, 8, 0, 0, 0}},
		{"READ without a node (1.x layout)", DNET_MSG_READ, 8, {0, 0, 2, 0, 8, 0, 0, 0}},
		{"NOW node short", DNET_MSG_NOW, 2, {1, 0}},
		{"NOW without a node", DNET_MSG_NOW, 0, {0}},
		{"WC_FLUSH node 0", DNET_MSG_WC_FLUSH, 4, {0, 0, 0, 0}},
	};
	for (unsigned i = 0; i < sizeof raw / sizeof raw[0]; i++) {
		struct dnet_proto_msg d;
		struct dnet_err e;
		size_t n = frame_raw(buf, raw[i].type, 5, raw[i].p, raw[i].n);
		int r = dec(buf, n, &d, &e);
		if (r != -DNET_EPROTO)
			fprintf(stderr, "accepted malformed frame: %s\n", raw[i].what);
		CHECK_EQ(r, -DNET_EPROTO);
		if (!strstr(raw[i].what, "1.x")) /* that one's first word reads as a node */
			CHECK(strstr(e.msg, "node") != NULL);
	}

	/* Header-level problems. */
	struct dnet_proto_msg d;
	struct dnet_err e;
	size_t flen;
	size_t n = frame(buf, DNET_MSG_SYNC, 1, NULL, 0);
	CHECK_EQ(dec(buf, n - 1, &d, &e), -DNET_EPROTO);          /* shorter than a header */
	CHECK_OK(dec(buf, n, &d, &e), &e);
	buf[6] = 1;                                  /* POSTED on a SYNC: not postable */
	CHECK_EQ(dec(buf, n, &d, &e), -DNET_EPROTO);
	CHECK(strstr(e.msg, "SYNC") != NULL);
	CHECK_EQ(wire_peek(buf, n, &flen, &e), 1); /* the length is still good */
	buf[6] = 4;                                  /* an unknown flag */
	CHECK_EQ(dec(buf, n, &d, &e), -DNET_EPROTO);
	CHECK_EQ(wire_peek(buf, n, &flen, &e), -DNET_EPROTO);
	buf[7] = 0x80;                               /* an unknown flag, high byte */
	buf[6] = 0;
	CHECK_EQ(wire_peek(buf, n, &flen, &e), -DNET_EPROTO);
	buf[7] = 0;
	dnet_put32(buf, 4);                                       /* length says 4, none there */
	CHECK_EQ(dec(buf, n, &d, &e), -DNET_EPROTO);
	CHECK_EQ(wire_peek(buf, n, &flen, &e), 0);          /* waits for 4 more bytes */
	CHECK_EQ(flen, 16);
	dnet_put32(buf, DNET_PROTO_MAX_PAYLOAD + 1);              /* oversize */
	CHECK_EQ(wire_peek(buf, n, &flen, &e), -DNET_EPROTO);
	CHECK(strstr(e.msg, "exceeds") != NULL);
	dnet_put32(buf, 0xffffffffu);
	CHECK_EQ(wire_peek(buf, n, &flen, &e), -DNET_EPROTO);
	CHECK_EQ(dec(buf, n, &d, &e), -DNET_EPROTO);
	dnet_put32(buf, DNET_PROTO_MAX_PAYLOAD);                  /* the maximum itself is fine */
	CHECK_EQ(wire_peek(buf, n, &flen, &e), 0);
	CHECK_EQ(flen, 12 + DNET_PROTO_MAX_PAYLOAD);
}

/* Every single-byte change of every valid frame either fails to decode or
 * decodes to something that encodes back to exactly the same bytes. */
/* Protocol 1.1: posted requests (flags in the header) and SYNC. */
static void test_posted(void)
{
	uint8_t buf[64];
	struct dnet_proto_msg m, d;
	struct dnet_err e;
	struct dnet_pbuf b = { 0 };
	/* A posted WRITE by hand: flags 0x0003 at bytes 6-7. */
	uint8_t pl[24] = { 0 };
	dnet_put32(pl, 0x100000);
	pl[4] = 8;
	dnet_put64(pl + 8, 0x1122334455667788ull);
	size_t n = frame(buf, DNET_MSG_WRITE, 9, pl, 16);
	buf[6] = 3;
	CHECK_OK(dec(buf, n, &d, &e), &e);
	CHECK_EQ(d.flags, DNET_PROTO_F_POSTED | DNET_PROTO_F_STOP);
	CHECK_EQ(d.val[0], 0x1122334455667788ull);
	buf[6] = 2;                                  /* STOP without POSTED */
	CHECK_EQ(dec(buf, n, &d, &e), -DNET_EPROTO);
	CHECK(strstr(e.msg, "STOP") != NULL);
	/* The encoder writes the flags, and refuses them where the decoder would. */
	msg(&m, DNET_MSG_WC_FLUSH, 10);
	m.flags = DNET_PROTO_F_POSTED;
	CHECK_OK(wire_encode(&b, &m, &e), &e);
	CHECK_EQ(b.len, 12 + DNET_PROTO_NODE_SIZE);
	CHECK_EQ(dnet_get16(b.p + 6), DNET_PROTO_F_POSTED);
	CHECK_OK(dec(b.p, b.len, &d, &e), &e);
	CHECK_EQ(d.flags, DNET_PROTO_F_POSTED);
	b.len = 0;
	msg(&m, DNET_MSG_READ, 11);
	m.off = 0;
	m.width = 8;
	m.flags = DNET_PROTO_F_POSTED;              /* a READ cannot be posted */
	CHECK_EQ(wire_encode(&b, &m, &e), -DNET_EINVAL);
	CHECK_EQ(b.len, 0);
	/* Which types may be posted: the ones whose reply says only "done". */
	static const uint16_t yes[] = { DNET_MSG_WRITE, DNET_MSG_WRITE_BLOCK, DNET_MSG_WC_FLUSH,
					DNET_MSG_CACHE_FLUSH, DNET_MSG_PREFETCH, DNET_MSG_SODIMM_WRITE,
					DNET_MSG_DELAY };
	for (uint16_t t = 0; t <= DNET_MSG_REQ_LAST + 1; t++) {
		bool want = false;
		for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
			want |= yes[i] == t;
		CHECK_EQ(wire_postable(t), want);
	}
	/* SYNC: an empty request; its reply carries failed and skipped counts. */
	n = frame(buf, DNET_MSG_SYNC, 12, NULL, 0);
	CHECK_OK(dec(buf, n, &d, &e), &e);
	CHECK_EQ(d.type, DNET_MSG_SYNC);
	uint8_t rp[8];
	dnet_put32(rp, 5);
	dnet_put32(rp + 4, 3);
	n = frame(buf, DNET_MSG_SYNC | DNET_MSG_REPLY, 12, rp, 8);
	CHECK_OK(dec(buf, n, &d, &e), &e);
	CHECK_EQ(d.count, 5);
	CHECK_EQ(d.skipped, 3);
	dnet_put32(rp + 4, 6);                       /* more skipped than failed */
	n = frame(buf, DNET_MSG_SYNC | DNET_MSG_REPLY, 12, rp, 8);
	CHECK_EQ(dec(buf, n, &d, &e), -DNET_EPROTO);
	n = frame(buf, DNET_MSG_SYNC | DNET_MSG_REPLY, 12, rp, 4);
	CHECK_EQ(dec(buf, n, &d, &e), -DNET_EPROTO);
	CHECK(strcmp(wire_type_name(DNET_MSG_SYNC), "SYNC") == 0);
	wire_pbuf_free(&b);
}

static void test_mutations(void)
{
	struct dnet_err e;
	unsigned bad = 0, checked = 0;
	build_samples();
	for (unsigned i = 0; i < nsamples; i++) {
		if (enc(&samples[i]) != 0)
			continue;
		size_t n = pb.len;
		uint8_t *orig = malloc(n), *mut = malloc(n);
		memcpy(orig, pb.p, n);
		for (size_t pos = 0; pos < n && pos < 64; pos++) {
			for (unsigned k = 0; k < 6; k++) {
				static const uint8_t vals[] = {0x00, 0x01, 0x02, 0x7f, 0x80, 0xff};
				memcpy(mut, orig, n);
				mut[pos] = vals[k];
				struct dnet_proto_msg d;
				checked++;
				if (dec(mut, n, &d, &e) != 0)
					continue;
				if (d.type == (DNET_MSG_STAT_NAMES | DNET_MSG_REPLY))
					continue; /* the decoded form keeps the raw list */
				if (enc(&d) != 0 || pb.len != n || memcmp(pb.p, mut, n) != 0)
					bad++;
			}
		}
		free(orig);
		free(mut);
	}
	CHECK(checked > 1000);
	CHECK_EQ(bad, 0);

	/* Random garbage with a plausible header never crashes the decoder. */
	uint8_t buf[128];
	for (unsigned it = 0; it < 20000; it++) {
		size_t n = 12 + t_rand() % 100;
		for (size_t j = 0; j < n; j++)
			buf[j] = (uint8_t)t_rand();
		dnet_put32(buf, (uint32_t)(n - 12));
		dnet_put16(buf + 4, (uint16_t)((t_rand() & 1 ? 0x8000 : 0) | (t_rand() % 20)));
		buf[6] = buf[7] = 0;
		struct dnet_proto_msg d;
		(void)dec(buf, n, &d, &e);
	}
	CHECK(1);
}

/* The descriptor table (proto_types.c) that drives the encoder, the
 * decoder and the names: an entry for every request type, each of its
 * messages round-tripped by test_round_trips (a sample of each here), the
 * size the encoder gives agreeing with the size the decoder demands. */
static void test_table(void)
{
	struct dnet_err e;
	build_samples();
	CHECK(wire_type(0) == NULL);
	CHECK(wire_type(DNET_MSG_REQ_LAST + 1) == NULL);
	CHECK(wire_codec(0x4242) == NULL);
	CHECK(wire_codec(DNET_MSG_ERROR) != NULL);
	for (uint16_t t = 1; t <= DNET_MSG_REQ_LAST; t++) {
		const struct wire_type *d = wire_type(t);
		if (t == 0x0009) { /* SET_NODE of 1.x: retired, no request (2.0) */
			CHECK(d == NULL && !wire_is_request(t) && wire_codec(t) == NULL);
			CHECK(!wire_is_reply((uint16_t)(t | DNET_MSG_REPLY)));
			continue;
		}
		CHECK(d && d->name && d->reply_name);
		if (!d || !d->name || !d->reply_name)
			continue;
		CHECK_STR(wire_type_name(t), d->name);
		CHECK_EQ(wire_postable(t), d->postable);
		for (int rep = 0; rep < 2; rep++) {
			uint16_t type = (uint16_t)(rep ? t | DNET_MSG_REPLY : t);
			const struct wire_codec *c = wire_codec(type);
			CHECK(c == (rep ? &d->rep : &d->req));
			unsigned found = 0;
			for (unsigned i = 0; i < nsamples; i++) {
				if (samples[i].type != type)
					continue;
				found++;
				if (enc(&samples[i]) != 0)
					continue; /* test_round_trips says why */
				size_t n = pb.len - DNET_PROTO_HDR_SIZE;
				if (c->fixed == DNET_PROTO_VAR)
					continue;
				CHECK_EQ(n - (!rep && d->noded ? DNET_PROTO_NODE_SIZE : 0), c->fixed);
				/* one byte more or less: the decoder refuses it */
				uint8_t buf[DNET_PROTO_HDR_SIZE + 64] = {0};
				memcpy(buf, pb.p, pb.len < sizeof buf ? pb.len : sizeof buf);
				struct dnet_proto_msg m;
				dnet_put32(buf, (uint32_t)(n + 1));
				CHECK_EQ(dec(buf, pb.len + 1, &m, &e), -DNET_EPROTO);
				if (n) {
					dnet_put32(buf, (uint32_t)(n - 1));
					CHECK_EQ(dec(buf, pb.len - 1, &m, &e), -DNET_EPROTO);
				}
			}
			if (!found)
				fprintf(stderr, "no sample of %s\n", wire_type_name(type));
			CHECK(found > 0);
		}
	}
}

static void test_names(void)
{
	CHECK_STR(wire_type_name(DNET_MSG_WAIT), "WAIT");
	CHECK_STR(wire_type_name(DNET_MSG_WAIT | DNET_MSG_REPLY), "WAIT reply");
	CHECK_STR(wire_type_name(DNET_MSG_ERROR), "ERROR");
	CHECK_STR(wire_type_name(0x4242), "?");
	CHECK(wire_is_request(DNET_MSG_HELLO));
	CHECK(!wire_is_request(0));
	CHECK(!wire_is_request(DNET_MSG_ERROR));
	CHECK(wire_is_reply(DNET_MSG_ERROR));
	CHECK(!wire_is_reply(DNET_MSG_REPLY)); /* 0x8000: reply to nothing */
}

static void test_addresses(void)
{
	struct dnet_sockspec a;
	struct dnet_err e;
	char buf[300];
	CHECK_OK(rmt_sockspec_parse("unix:/tmp/d.sock", &a, &e), &e);
	CHECK(!a.tcp);
	CHECK_STR(a.path, "/tmp/d.sock");
	CHECK_OK(rmt_sockspec_parse("tcp:7000", &a, &e), &e);
	CHECK(a.tcp);
	CHECK_STR(a.host, "127.0.0.1");
	CHECK_STR(a.port, "7000");
	CHECK_OK(rmt_sockspec_parse("tcp::0", &a, &e), &e);
	CHECK_STR(a.host, "127.0.0.1");
	CHECK_STR(a.port, "0");
	CHECK_OK(rmt_sockspec_parse("tcp:bench1:7000", &a, &e), &e);
	CHECK_STR(a.host, "bench1");
	CHECK_OK(rmt_sockspec_parse("tcp:[::1]:65535", &a, &e), &e);
	CHECK_STR(a.host, "::1");
	rmt_sockspec_format(&a, buf, sizeof buf);
	CHECK_STR(buf, "tcp:[::1]:65535");
	CHECK_EQ(rmt_sockspec_parse("tcp:a:65536", &a, &e), -DNET_EINVAL);
	CHECK_EQ(rmt_sockspec_parse("tcp:a:", &a, &e), -DNET_EINVAL);
	CHECK_EQ(rmt_sockspec_parse("tcp:::1:80", &a, &e), -DNET_EINVAL);
	CHECK_EQ(rmt_sockspec_parse("tcp:a:12x", &a, &e), -DNET_EINVAL);
	CHECK_EQ(rmt_sockspec_parse("unix:", &a, &e), -DNET_EINVAL);
	CHECK_EQ(rmt_sockspec_parse("/tmp/x", &a, &e), -DNET_EINVAL);
	CHECK_EQ(rmt_sockspec_parse("", &a, &e), -DNET_EINVAL);
	memset(buf, 'p', 200);
	memcpy(buf, "unix:/", 6);
	buf[200] = 0;
	CHECK_EQ(rmt_sockspec_parse(buf, &a, &e), -DNET_EINVAL); /* longer than sun_path */
	rmt_sockspec_default(buf, sizeof buf, NULL, &e);
	CHECK(strncmp(buf, "unix:/", 6) == 0);
}

/* D-DNETD-SOCKET: the one default socket of dnetd and -b remote. */
static void test_default_socket(void)
{
	char buf[160], want[160];
	const char *from = NULL;
	struct dnet_err e;
	char *old_s = getenv("DNETD_SOCKET") ? strdup(getenv("DNETD_SOCKET")) : NULL;
	char *old_x = getenv("XDG_RUNTIME_DIR") ? strdup(getenv("XDG_RUNTIME_DIR")) : NULL;
	/* 1. DNETD_SOCKET: a path, or an address as given */
	setenv("DNETD_SOCKET", "/srv/d.sock", 1);
	setenv("XDG_RUNTIME_DIR", "/tmp", 1);
	CHECK_EQ(rmt_sockspec_default(buf, sizeof buf, &from, &e), 0);
	CHECK_STR(buf, "unix:/srv/d.sock");
	CHECK_STR(from, "DNETD_SOCKET");
	setenv("DNETD_SOCKET", "tcp:127.0.0.1:7000", 1);
	CHECK_EQ(rmt_sockspec_default(buf, sizeof buf, NULL, &e), 0);
	CHECK_STR(buf, "tcp:127.0.0.1:7000");
	setenv("DNETD_SOCKET", "tcp:host:99999", 1);
	CHECK_EQ(rmt_sockspec_default(buf, sizeof buf, NULL, &e), -DNET_EINVAL);
	CHECK(strstr(e.msg, "DNETD_SOCKET=tcp:host:99999") != NULL);
	/* 2. an empty DNETD_SOCKET is unset: XDG_RUNTIME_DIR */
	setenv("DNETD_SOCKET", "", 1);
	CHECK_EQ(rmt_sockspec_default(buf, sizeof buf, &from, &e), 0);
	CHECK_STR(buf, "unix:/tmp/dnetd.sock");
	CHECK_STR(from, "XDG_RUNTIME_DIR");
	/* 3./4. no (usable) XDG_RUNTIME_DIR: root's is the units' socket */
	unsetenv("DNETD_SOCKET");
	setenv("XDG_RUNTIME_DIR", "relative/dir", 1);
	CHECK_EQ(rmt_sockspec_default(buf, sizeof buf, &from, &e), 0);
	if (getuid() == 0)
		snprintf(want, sizeof want, "unix:" DNET_SOCKET_SYSTEM);
	else
		snprintf(want, sizeof want, "unix:/tmp/dnetd-%u.sock", (unsigned)getuid());
	CHECK_STR(buf, want);
	CHECK_STR(from, getuid() == 0 ? "root" : "uid");
	CHECK_STR(DNET_SOCKET_SYSTEM, "/run/dnetd/dnetd.sock");
	if (old_s) setenv("DNETD_SOCKET", old_s, 1); else unsetenv("DNETD_SOCKET");
	if (old_x) setenv("XDG_RUNTIME_DIR", old_x, 1); else unsetenv("XDG_RUNTIME_DIR");
	free(old_s);
	free(old_x);
}

/* The value of a READ reply or a WRITE (value.c), packed by the client
 * and unpacked by the server (and back): every width round-trips through
 * the helpers and through a frame, the value zero-extended and nothing
 * written past the width; any other width is refused, nothing written. */
static void test_value_widths(void)
{
	static const unsigned widths[] = {1, 2, 4, 8, 16};
	for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++) {
		unsigned w = widths[i];
		uint8_t in[16], out[17];
		for (unsigned k = 0; k < 16; k++)
			in[k] = (uint8_t)(0xf1 - 7 * k); /* high bit set: no sign extension */
		uint64_t val[2] = {~0ull, ~0ull};
		struct dnet_err e;
		CHECK_EQ(wire_val_pack(val, in, w, &e), 0);
		uint64_t lo = 0, hi = 0;
		memcpy(&lo, in, w < 8 ? w : 8); /* host-endian: the low bytes of a little-endian host */
		if (w == 16)
			memcpy(&hi, in + 8, 8);
		CHECK_EQ(val[0], lo);
		CHECK_EQ(val[1], hi);
		/* through a WRITE frame and a READ reply */
		struct dnet_proto_msg m, d;
		uint16_t types[2] = {DNET_MSG_WRITE, DNET_MSG_READ | DNET_MSG_REPLY};
		for (int t = 0; t < 2; t++) {
			msg(&m, types[t], 9);
			m.width = (uint8_t)w;
			m.val[0] = val[0];
			m.val[1] = val[1];
			CHECK_EQ(enc(&m), 0);
			CHECK_EQ(dec(pb.p, pb.len, &d, &e), 0);
			memset(out, 0xa5, sizeof out);
			CHECK_EQ(wire_val_unpack(out, d.val, d.width, &e), 0);
			CHECK(memcmp(out, in, w) == 0);
			for (unsigned k = w; k < sizeof out; k++)
				CHECK_EQ(out[k], 0xa5);
		}
	}
	static const unsigned bad[] = {0, 3, 5, 7, 9, 12, 15, 17, 32, 256};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		uint8_t buf[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, copy[16];
		uint64_t val[2] = {7, 7}, zero[2] = {0, 0};
		char want[40];
		struct dnet_err e;
		memcpy(copy, buf, sizeof buf);
		snprintf(want, sizeof want, "bad access width %u", bad[i]);
		dnet_clearerr(&e);
		CHECK_EQ(wire_val_pack(val, buf, bad[i], &e), -DNET_EINVAL);
		CHECK_STR(e.msg, want);
		CHECK(val[0] == 7 && val[1] == 7);
		dnet_clearerr(&e);
		CHECK_EQ(wire_val_unpack(buf, zero, bad[i], &e), -DNET_EINVAL);
		CHECK_STR(e.msg, want);
		CHECK(memcmp(buf, copy, sizeof buf) == 0);
	}
}

int main(void)
{
	RUN(test_hand_read);
	RUN(test_hand_hello);
	RUN(test_hand_error);
	RUN(test_round_trips);
	RUN(test_default_socket);
	RUN(test_encode_rejects);
	RUN(test_decode_rejects);
	RUN(test_posted);
	RUN(test_mutations);
	RUN(test_table);
	RUN(test_names);
	RUN(test_addresses);
	RUN(test_value_widths);
	wire_pbuf_free(&pb);
	return t_summary("test_remote_proto");
}
