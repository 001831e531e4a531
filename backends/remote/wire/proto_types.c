/* The dnetd wire protocol's message types: one descriptor per request type
 * (its names, whether it may be posted, how its request and its reply are
 * sized, encoded and decoded), in one table, dnet_proto_types.  proto.c
 * frames the messages and calls these; the layouts are specified in
 * docs/protocol.md: keep both in step. */
#include "remote/wire/proto.h"

#include <string.h>

/* ---- field rules shared by encoder and decoder ---- */

static bool width_ok(unsigned w)
{
	return w == 1 || w == 2 || w == 4 || w == 8 || w == 16;
}

/* A string field: 0..max bytes, no NUL (the length says where it ends). */
static bool str_ok(const uint8_t *s, size_t n, size_t max)
{
	if (n > max)
		return false;
	return memchr(s, 0, n) == NULL;
}

static bool zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

static void put_value(uint8_t *p, unsigned width, const uint64_t val[2])
{
	if (width == 16) {
		dnet_put64(p, val[0]);
		dnet_put64(p + 8, val[1]);
		return;
	}
	dnet_put_le(p, val[0], width);
}

static void get_value(const uint8_t *p, unsigned width, uint64_t val[2])
{
	val[1] = width == 16 ? dnet_get64(p + 8) : 0;
	val[0] = width == 16 ? dnet_get64(p) : dnet_get_le(p, width);
}

#define BAD(...) dnet_seterr(err, DNET_EPROTO, __VA_ARGS__)
#define INVAL(...) dnet_seterr(err, DNET_EINVAL, __VA_ARGS__)

static int need(const char *what, size_t n, size_t want, struct dnet_err *err)
{
	if (n != want)
		return BAD("%s: payload of %zu bytes, expected %zu", what, n, want);
	return 0;
}

static int need_min(const char *what, size_t n, size_t want, struct dnet_err *err)
{
	if (n < want)
		return BAD("%s: payload of %zu bytes is too short (at least %zu)", what, n, want);
	return 0;
}

/* ---- HELLO ---- */

static int hello_size(const struct dnet_proto_msg *m, size_t *n, struct dnet_err *err)
{
	size_t tl = strnlen(m->token, sizeof m->token);
	if (tl > DNET_PROTO_TOKEN_MAX)
		return INVAL("token longer than %u bytes", DNET_PROTO_TOKEN_MAX);
	if (m->wid > 1 || m->privileged > 1)
		return INVAL("HELLO: wid and privileged must be 0 or 1");
	*n = 16 + tl;
	return 0;
}

static void hello_encode(uint8_t *p, size_t n, const struct dnet_proto_msg *m)
{
	size_t tl = n - 16;
	dnet_put32(p, DNET_PROTO_MAGIC);
	dnet_put16(p + 4, m->ver_major);
	dnet_put16(p + 6, m->ver_minor);
	dnet_put32(p + 8, m->node);
	p[12] = m->wid;
	p[13] = m->privileged;
	dnet_put16(p + 14, (uint16_t)tl);
	memcpy(p + 16, m->token, tl);
}

static int hello_decode(const uint8_t *p, size_t n, const char *tn, struct dnet_proto_msg *m,
			struct dnet_err *err)
{
	int r;
	if ((r = need_min(tn, n, 16, err)))
		return r;
	if (dnet_get32(p) != DNET_PROTO_MAGIC)
		return BAD("HELLO: bad magic 0x%08x (not a dnet client?)", dnet_get32(p));
	m->ver_major = dnet_get16(p + 4);
	m->ver_minor = dnet_get16(p + 6);
	m->node = dnet_get32(p + 8);
	m->wid = p[12];
	m->privileged = p[13];
	size_t tl = dnet_get16(p + 14);
	if (m->wid > 1)
		return BAD("HELLO: wid %u must be 0 or 1", m->wid);
	if (m->privileged > 1)
		return BAD("HELLO: privileged flag %u must be 0 or 1", m->privileged);
	if (tl > DNET_PROTO_TOKEN_MAX)
		return BAD("HELLO: token of %zu bytes exceeds %u", tl, DNET_PROTO_TOKEN_MAX);
	if ((r = need(tn, n, 16 + tl, err)))
		return r;
	if (!str_ok(p + 16, tl, DNET_PROTO_TOKEN_MAX))
		return BAD("HELLO: token contains a NUL byte");
	memcpy(m->token, p + 16, tl);
	m->token[tl] = 0;
	return 0;
}

static int hello_reply_size(const struct dnet_proto_msg *m, size_t *n, struct dnet_err *err)
{
	if (m->nodes < 1 || m->node < 1 || m->node > m->nodes)
		return INVAL("HELLO reply: node %u of %u", m->node, m->nodes);
	*n = m->cluster ? 32 : 24; /* 1.2 appends the cluster id for 1.2 clients only */
	return 0;
}

static void hello_reply_encode(uint8_t *p, size_t n, const struct dnet_proto_msg *m)
{
	dnet_put32(p, DNET_PROTO_MAGIC);
	dnet_put16(p + 4, m->ver_major);
	dnet_put16(p + 6, m->ver_minor);
	dnet_put32(p + 8, m->nodes);
	dnet_put32(p + 12, m->caps);
	dnet_put32(p + 16, m->node);
	dnet_put32(p + 20, m->max_payload);
	if (n == 32)
		dnet_put64(p + 24, m->cluster);
}

static int hello_reply_decode(const uint8_t *p, size_t n, const char *tn, struct dnet_proto_msg *m,
			      struct dnet_err *err)
{
	int r;
	if (n != 32 && (r = need(tn, n, 24, err)))
		return r;
	if (dnet_get32(p) != DNET_PROTO_MAGIC)
		return BAD("HELLO reply: bad magic 0x%08x (not a dnetd?)", dnet_get32(p));
	m->cluster = n == 32 ? dnet_get64(p + 24) : 0;
	m->ver_major = dnet_get16(p + 4);
	m->ver_minor = dnet_get16(p + 6);
	m->nodes = dnet_get32(p + 8);
	m->caps = dnet_get32(p + 12);
	m->node = dnet_get32(p + 16);
	m->max_payload = dnet_get32(p + 20);
	if (m->nodes < 1 || m->node < 1 || m->node > m->nodes)
		return BAD("HELLO reply: node %u of %u", m->node, m->nodes);
	return 0;
}

/* ---- READ, WRITE ---- */

static int read_size(const struct dnet_proto_msg *m, size_t *n, struct dnet_err *err)
{
	if (!width_ok(m->width))
		return INVAL("READ: bad width %u", m->width);
	*n = 8;
	return 0;
}

static void read_encode(uint8_t *p, size_t n, const struct dnet_proto_msg *m)
{
	(void)n;
	dnet_put32(p, m->off);
	p[4] = m->width;
}

static int read_decode(const uint8_t *p, size_t n, const char *tn, struct dnet_proto_msg *m,
		       struct dnet_err *err)
{
	(void)n, (void)tn;
	m->off = dnet_get32(p);
	m->width = p[4];
	if (!width_ok(m->width))
		return BAD("READ: bad width %u (1, 2, 4, 8 or 16)", m->width);
	if (!zero(p + 5, 3))
		return BAD("READ: reserved bytes must be 0");
	return 0;
}

static int read_reply_size(const struct dnet_proto_msg *m, size_t *n, struct dnet_err *err)
{
	if (!width_ok(m->width))
		return INVAL("READ reply: bad width %u", m->width);
	*n = m->width;
	return 0;
}

static void read_reply_encode(uint8_t *p, size_t n, const struct dnet_proto_msg *m)
{
	(void)n;
	put_value(p, m->width, m->val);
}

static int read_reply_decode(const uint8_t *p, size_t n, const char *tn, struct dnet_proto_msg *m,
			     struct dnet_err *err)
{
	(void)tn;
	if (!width_ok((unsigned)n))
		return BAD("READ reply: %zu value bytes (1, 2, 4, 8 or 16)", n);
	m->width = (uint8_t)n;
	get_value(p, m->width, m->val);
	return 0;
}

static int write_size(const struct dnet_proto_msg *m, size_t *n, struct dnet_err *err)
{
	if (!width_ok(m->width))
		return INVAL("WRITE: bad width %u", m->width);
	*n = 8u + m->width;
	return 0;
}

static void write_encode(uint8_t *p, size_t n, const struct dnet_proto_msg *m)
{
	(void)n;
	dnet_put32(p, m->off);
	p[4] = m->width;
	put_value(p + 8, m->width, m->val);
}

static int write_decode(const uint8_t *p, size_t n, const char *tn, struct dnet_proto_msg *m,
			struct dnet_err *err)
{
	int r;
	if ((r = need_min(tn, n, 8, err)))
		return r;
	m->off = dnet_get32(p);
	m->width = p[4];
	if (!width_ok(m->width))
		return BAD("WRITE: bad width %u (1, 2, 4, 8 or 16)", m->width);
	if (!zero(p + 5, 3))
		return BAD("WRITE: reserved bytes must be 0");
	if ((r = need(tn, n, 8u + m->width, err)))
		return r;
	get_value(p + 8, m->width, m->val);
	return 0;
}

/* ---- blocks and ranges: off and len ---- */

static void off_len_encode(uint8_t *p, size_t n, const struct dnet_proto_msg *m)
{
	(void)n;
	dnet_put32(p, m->off);
	dnet_put32(p + 4, m->len);
}

static int off_len_decode(const uint8_t *p, size_t n, const char *tn, struct dnet_proto_msg *m,
			  struct dnet_err *err)
{
	(void)n, (void)tn, (void)err;
	m->off = dnet_get32(p);
	m->len = dnet_get32(p + 4);
	return 0;
}

static int read_block_size(const struct dnet_proto_msg *m, size_t *n, struct dnet_err *err)
{
	if (m->len > DNET_PROTO_MAX_DATA)
		return INVAL("READ_BLOCK: length %u over %u", m->len, DNET_PROTO_MAX_DATA);
	*n = 8;
	return 0;
}

static int read_block_decode(const uint8_t *p, size_t n, const char *tn, struct dnet_proto_msg *m,
			     struct dnet_err *err)
{
	off_len_decode(p, n, tn, m, err);
	if (m->len > DNET_PROTO_MAX_DATA)
		return BAD("READ_BLOCK: length %u exceeds %u", m->len, DNET_PROTO_MAX_DATA);
	return 0;
}

/* WRITE_BLOCK and SODIMM_WRITE: data of len bytes after a header of hl. */
static int data_size(const struct dnet_proto_msg *m, size_t hl, const char *tn, size_t *n,
		     struct dnet_err *err)
{
	if (m->len > DNET_PROTO_MAX_DATA || m->data_len != m->len || (m->len && !m->data))
		return INVAL("%s: bad data length %u", tn, m->len);
	*n = hl + m->len;
	return 0;
}

static int write_block_size(const struct dnet_proto_msg *m, size_t *n, struct dnet_err *err)
{
	return data_size(m, 8, "WRITE_BLOCK", n, err);
}

static void write_block_encode(uint8_t *p, size_t n, const struct dnet_proto_msg *m)
{
	off_len_encode(p, n, m);
	if (m->len)
		memcpy(p + 8, m->data, m->len);
}

static int write_block_decode(const uint8_t *p, size_t n, const char *tn, struct dnet_proto_msg *m,
			      struct dnet_err *err)
{
	int r;
	if ((r = need_min(tn, n, 8, err)))
		return r;
	m->off = dnet_get32(p);
	m->len = dnet_get32(p + 4);
	if (m->len > DNET_PROTO_MAX_DATA)
		return BAD("WRITE_BLOCK: length %u exceeds %u", m->len, DNET_PROTO_MAX_DATA);
	if ((r = need(tn, n, 8u + m->len, err)))
		return r;
	m->data = p + 8;
	m->data_len = m->len;
	return 0;
}

/* READ_BLOCK and SODIMM_READ replies: the data, nothing else. */
static int data_reply_size(const struct dnet_proto_msg *m, size_t *n, struct dnet_err *err)
{
	if (m->data_len > DNET_PROTO_MAX_DATA || (m->data_len && !m->data))
		return INVAL("%s: bad data length %zu", wire_type_name(m->type), m->data_len);
	*n = m->data_len;
	return 0;
}

static void data_reply_encode(uint8_t *p, size_t n, const struct dnet_proto_msg *m)
{
	if (n)
		memcpy(p, m->data, n);
}

static int data_reply_decode(const uint8_t *p, size_t n, const char *tn, struct dnet_proto_msg *m,
			     struct dnet_err *err)
{
	if (n > DNET_PROTO_MAX_DATA)
		return BAD("%s: %zu data bytes exceed %u", tn, n, DNET_PROTO_MAX_DATA);
	m->data = p;
	m->data_len = n;
	return 0;
}

/* ---- SO-DIMM backdoor ---- */

static int sodimm_read_size(const struct dnet_proto_msg *m, size_t *n, struct dnet_err *err)
{
	if (m->len > DNET_PROTO_MAX_DATA)
		return INVAL("SODIMM_READ: length %u over %u", m->len, DNET_PROTO_MAX_DATA);
	*n = 16;
	return 0;
}

static int sodimm_write_size(const struct dnet_proto_msg *m, size_t *n, struct dnet_err *err)
{
	return data_size(m, 16, "SODIMM_WRITE", n, err);
}

static void sodimm_encode(uint8_t *p, size_t n, const struct dnet_proto_msg *m)
{
	(void)n;
	dnet_put64(p, m->addr);
	dnet_put32(p + 8, m->len);
	if (m->type == DNET_MSG_SODIMM_WRITE && m->len)
		memcpy(p + 16, m->data, m->len);
}

static int sodimm_decode(const uint8_t *p, size_t n, const char *tn, struct dnet_proto_msg *m,
			 struct dnet_err *err)
{
	int r;
	if ((r = need_min(tn, n, 16, err)))
		return r;
	m->addr = dnet_get64(p);
	m->len = dnet_get32(p + 8);
	if (!zero(p + 12, 4))
		return BAD("%s: reserved bytes must be 0", tn);
	if (m->len > DNET_PROTO_MAX_DATA)
		return BAD("%s: length %u exceeds %u", tn, m->len, DNET_PROTO_MAX_DATA);
	if (m->type == DNET_MSG_SODIMM_READ)
		return need(tn, n, 16, err);
	if ((r = need(tn, n, 16u + m->len, err)))
		return r;
	m->data = p + 16;
	m->data_len = m->len;
	return 0;
}

/* ---- WAIT ---- */

static int wait_size(const struct dnet_proto_msg *m, size_t *n, struct dnet_err *err)
{
	if (m->cond > 5)
		return INVAL("WAIT: bad condition %u", m->cond);
	*n = 32;
	return 0;
}

static void wait_encode(uint8_t *p, size_t n, const struct dnet_proto_msg *m)
{
	(void)n;
	dnet_put32(p, m->off);
	dnet_put32(p + 4, m->cond);
	dnet_put64(p + 8, m->mask);
	dnet_put64(p + 16, m->value);
	dnet_put64(p + 24, m->timeout_ns);
}

static int wait_decode(const uint8_t *p, size_t n, const char *tn, struct dnet_proto_msg *m,
		       struct dnet_err *err)
{
	(void)n, (void)tn;
	m->off = dnet_get32(p);
	m->cond = dnet_get32(p + 4);
	m->mask = dnet_get64(p + 8);
	m->value = dnet_get64(p + 16);
	m->timeout_ns = dnet_get64(p + 24);
	if (m->cond > 5)
		return BAD("WAIT: bad condition %u (0..5)", m->cond);
	return 0;
}

static int wait_reply_size(const struct dnet_proto_msg *m, size_t *n, struct dnet_err *err)
{
	size_t ml = strnlen(m->msg, sizeof m->msg);
	if (m->timed_out > 1)
		return INVAL("WAIT reply: timed_out must be 0 or 1");
	if (ml > DNET_PROTO_MSG_MAX || (!m->timed_out && ml))
		return INVAL("WAIT reply: message only with a timeout");
	*n = 18 + ml;
	return 0;
}

static void wait_reply_encode(uint8_t *p, size_t n, const struct dnet_proto_msg *m)
{
	p[0] = m->timed_out;
	dnet_put64(p + 8, m->last);
	dnet_put16(p + 16, (uint16_t)(n - 18));
	memcpy(p + 18, m->msg, n - 18);
}

static int wait_reply_decode(const uint8_t *p, size_t n, const char *tn, struct dnet_proto_msg *m,
			     struct dnet_err *err)
{
	int r;
	if ((r = need_min(tn, n, 18, err)))
		return r;
	m->timed_out = p[0];
	if (m->timed_out > 1)
		return BAD("WAIT reply: timed_out %u must be 0 or 1", m->timed_out);
	if (!zero(p + 1, 7))
		return BAD("WAIT reply: reserved bytes must be 0");
	m->last = dnet_get64(p + 8);
	size_t ml = dnet_get16(p + 16);
	if (ml > DNET_PROTO_MSG_MAX || (!m->timed_out && ml))
		return BAD("WAIT reply: message of %zu bytes (at most %u, only with a timeout)", ml,
			   DNET_PROTO_MSG_MAX);
	if ((r = need(tn, n, 18 + ml, err)))
		return r;
	if (!str_ok(p + 18, ml, DNET_PROTO_MSG_MAX))
		return BAD("WAIT reply: message contains a NUL byte");
	memcpy(m->msg, p + 18, ml);
	m->msg[ml] = 0;
	return 0;
}

/* ---- one 64-bit field: DELAY and the NOW reply (ns), the STAT reply ---- */

static void ns_encode(uint8_t *p, size_t n, const struct dnet_proto_msg *m)
{
	(void)n;
	dnet_put64(p, m->ns);
}

static int ns_decode(const uint8_t *p, size_t n, const char *tn, struct dnet_proto_msg *m,
		     struct dnet_err *err)
{
	(void)n, (void)tn, (void)err;
	m->ns = dnet_get64(p);
	return 0;
}

static void stat_reply_encode(uint8_t *p, size_t n, const struct dnet_proto_msg *m)
{
	(void)n;
	dnet_put64(p, m->stat);
}

static int stat_reply_decode(const uint8_t *p, size_t n, const char *tn, struct dnet_proto_msg *m,
			     struct dnet_err *err)
{
	(void)n, (void)tn, (void)err;
	m->stat = dnet_get64(p);
	return 0;
}

/* ---- BUSY, SYNC replies ---- */

static int busy_reply_size(const struct dnet_proto_msg *m, size_t *n, struct dnet_err *err)
{
	if (m->busy > 1)
		return INVAL("BUSY reply: busy must be 0 or 1");
	*n = 4;
	return 0;
}

static void busy_reply_encode(uint8_t *p, size_t n, const struct dnet_proto_msg *m)
{
	(void)n;
	p[0] = m->busy;
}

static int busy_reply_decode(const uint8_t *p, size_t n, const char *tn, struct dnet_proto_msg *m,
			     struct dnet_err *err)
{
	(void)n, (void)tn;
	m->busy = p[0];
	if (m->busy > 1)
		return BAD("BUSY reply: busy %u must be 0 or 1", m->busy);
	if (!zero(p + 1, 3))
		return BAD("BUSY reply: reserved bytes must be 0");
	return 0;
}

static void sync_reply_encode(uint8_t *p, size_t n, const struct dnet_proto_msg *m)
{
	(void)n;
	dnet_put32(p, m->count);
	dnet_put32(p + 4, m->skipped);
}

static int sync_reply_decode(const uint8_t *p, size_t n, const char *tn, struct dnet_proto_msg *m,
			     struct dnet_err *err)
{
	(void)n, (void)tn;
	m->count = dnet_get32(p);
	m->skipped = dnet_get32(p + 4);
	if (m->skipped > m->count)
		return BAD("SYNC reply: %u skipped of %u failed", m->skipped, m->count);
	return 0;
}

/* ---- STAT, STAT_NAMES reply ---- */

static int stat_size(const struct dnet_proto_msg *m, size_t *n, struct dnet_err *err)
{
	size_t nl = strnlen(m->name, sizeof m->name);
	if (nl < 1 || nl > DNET_PROTO_NAME_MAX)
		return INVAL("STAT: name must be 1..%u bytes", DNET_PROTO_NAME_MAX);
	*n = 2 + nl;
	return 0;
}

static void stat_encode(uint8_t *p, size_t n, const struct dnet_proto_msg *m)
{
	dnet_put16(p, (uint16_t)(n - 2));
	memcpy(p + 2, m->name, n - 2);
}

static int stat_decode(const uint8_t *p, size_t n, const char *tn, struct dnet_proto_msg *m,
		       struct dnet_err *err)
{
	int r;
	if ((r = need_min(tn, n, 2, err)))
		return r;
	size_t nl = dnet_get16(p);
	if (nl < 1 || nl > DNET_PROTO_NAME_MAX)
		return BAD("STAT: name of %zu bytes (1..%u)", nl, DNET_PROTO_NAME_MAX);
	if ((r = need(tn, n, 2 + nl, err)))
		return r;
	if (!str_ok(p + 2, nl, DNET_PROTO_NAME_MAX))
		return BAD("STAT: name contains a NUL byte");
	memcpy(m->name, p + 2, nl);
	m->name[nl] = 0;
	return 0;
}

static int names_reply_size(const struct dnet_proto_msg *m, size_t *size, struct dnet_err *err)
{
	if (m->count > DNET_PROTO_NAMES_MAX || (m->count && !m->names))
		return INVAL("STAT_NAMES reply: %u names", m->count);
	size_t n = 4;
	for (uint32_t i = 0; i < m->count; i++) {
		size_t nl = m->names[i] ? strlen(m->names[i]) : 0;
		if (nl < 1 || nl > DNET_PROTO_NAME_MAX)
			return INVAL("STAT_NAMES reply: name %u must be 1..%u bytes", i, DNET_PROTO_NAME_MAX);
		n += 2 + nl;
	}
	if (n > DNET_PROTO_MAX_PAYLOAD)
		return INVAL("STAT_NAMES reply too large");
	*size = n;
	return 0;
}

static void names_reply_encode(uint8_t *p, size_t n, const struct dnet_proto_msg *m)
{
	(void)n;
	uint8_t *q = p + 4;
	dnet_put32(p, m->count);
	for (uint32_t i = 0; i < m->count; i++) {
		size_t nl = strlen(m->names[i]);
		dnet_put16(q, (uint16_t)nl);
		memcpy(q + 2, m->names[i], nl);
		q += 2 + nl;
	}
}

static int names_reply_decode(const uint8_t *p, size_t n, const char *tn, struct dnet_proto_msg *m,
			      struct dnet_err *err)
{
	int r;
	if ((r = need_min(tn, n, 4, err)))
		return r;
	m->count = dnet_get32(p);
	if (m->count > DNET_PROTO_NAMES_MAX)
		return BAD("STAT_NAMES reply: %u names exceed %u", m->count, DNET_PROTO_NAMES_MAX);
	size_t pos = 4;
	for (uint32_t i = 0; i < m->count; i++) {
		if (n - pos < 2)
			return BAD("STAT_NAMES reply: truncated at name %u", i);
		size_t nl = dnet_get16(p + pos);
		if (nl < 1 || nl > DNET_PROTO_NAME_MAX)
			return BAD("STAT_NAMES reply: name %u of %zu bytes (1..%u)", i, nl, DNET_PROTO_NAME_MAX);
		if (n - pos - 2 < nl)
			return BAD("STAT_NAMES reply: truncated at name %u", i);
		if (!str_ok(p + pos + 2, nl, DNET_PROTO_NAME_MAX))
			return BAD("STAT_NAMES reply: name %u contains a NUL byte", i);
		pos += 2 + nl;
	}
	if (pos != n)
		return BAD("STAT_NAMES reply: %zu trailing bytes", n - pos);
	m->data = p + 4;
	m->data_len = n - 4;
	return 0;
}

/* ---- ERROR ---- */

static int error_size(const struct dnet_proto_msg *m, size_t *n, struct dnet_err *err)
{
	size_t ml = strnlen(m->msg, sizeof m->msg);
	if (m->code < 1 || m->code > 0xffff)
		return INVAL("ERROR: bad code %u", m->code);
	if (ml > DNET_PROTO_MSG_MAX)
		return INVAL("ERROR: message too long");
	*n = 6 + ml;
	return 0;
}

static void error_encode(uint8_t *p, size_t n, const struct dnet_proto_msg *m)
{
	dnet_put32(p, m->code);
	dnet_put16(p + 4, (uint16_t)(n - 6));
	memcpy(p + 6, m->msg, n - 6);
}

static int error_decode(const uint8_t *p, size_t n, const char *tn, struct dnet_proto_msg *m,
			struct dnet_err *err)
{
	int r;
	if ((r = need_min(tn, n, 6, err)))
		return r;
	m->code = dnet_get32(p);
	size_t ml = dnet_get16(p + 4);
	if (m->code < 1 || m->code > 0xffff)
		return BAD("ERROR: bad code %u", m->code);
	if (ml > DNET_PROTO_MSG_MAX)
		return BAD("ERROR: message of %zu bytes exceeds %u", ml, DNET_PROTO_MSG_MAX);
	if ((r = need(tn, n, 6 + ml, err)))
		return r;
	if (!str_ok(p + 6, ml, DNET_PROTO_MSG_MAX))
		return BAD("ERROR: message contains a NUL byte");
	memcpy(m->msg, p + 6, ml);
	m->msg[ml] = 0;
	return 0;
}

/* ---- PARAM (1.3): op, name, a SET's value; the reply's text ---- */

static int param_size(const struct dnet_proto_msg *m, size_t *n, struct dnet_err *err)
{
	size_t nl = strnlen(m->name, sizeof m->name);
	if (m->op > DNET_PARAM_OP_SET || (m->op == DNET_PARAM_OP_LIST) != (nl == 0) || nl > DNET_PROTO_NAME_MAX)
		return INVAL("PARAM: op %u with a name of %zu bytes", m->op, nl);
	if ((m->op != DNET_PARAM_OP_SET && m->data_len) || m->data_len > DNET_PROTO_VALUE_MAX ||
	    (m->data_len && memchr(m->data, 0, m->data_len)))
		return INVAL("PARAM: a value of %zu bytes (SET only, at most %u, no NUL)", m->data_len,
			     DNET_PROTO_VALUE_MAX);
	*n = 4 + nl + m->data_len;
	return 0;
}

static void param_encode(uint8_t *p, size_t n, const struct dnet_proto_msg *m)
{
	size_t nl = n - 4 - m->data_len;
	p[0] = m->op;
	p[1] = 0;
	dnet_put16(p + 2, (uint16_t)nl);
	memcpy(p + 4, m->name, nl);
	if (m->data_len)
		memcpy(p + 4 + nl, m->data, m->data_len);
}

static int param_decode(const uint8_t *p, size_t n, const char *tn, struct dnet_proto_msg *m,
			struct dnet_err *err)
{
	int r;
	if ((r = need_min(tn, n, 4, err)))
		return r;
	m->op = p[0];
	size_t nl = dnet_get16(p + 2);
	if (m->op > DNET_PARAM_OP_SET || p[1])
		return BAD("PARAM: op %u (0 LIST, 1 GET, 2 SET), reserved byte %u", m->op, p[1]);
	if (nl > DNET_PROTO_NAME_MAX || (m->op == DNET_PARAM_OP_LIST) != (nl == 0))
		return BAD("PARAM: a name of %zu bytes (LIST: none; else 1..%u)", nl, DNET_PROTO_NAME_MAX);
	if ((r = need_min(tn, n, 4 + nl, err)))
		return r;
	if (nl && !str_ok(p + 4, nl, DNET_PROTO_NAME_MAX))
		return BAD("PARAM: name contains a NUL byte");
	memcpy(m->name, p + 4, nl);
	m->name[nl] = 0;
	size_t vl = n - 4 - nl;
	if (vl && m->op != DNET_PARAM_OP_SET)
		return BAD("PARAM: %zu value bytes with op %u (SET only)", vl, m->op);
	if (vl > DNET_PROTO_VALUE_MAX || (vl && memchr(p + 4 + nl, 0, vl)))
		return BAD("PARAM: a value of %zu bytes (at most %u, no NUL)", vl, DNET_PROTO_VALUE_MAX);
	m->data = vl ? p + 4 + nl : NULL;
	m->data_len = vl;
	return 0;
}

static int param_reply_size(const struct dnet_proto_msg *m, size_t *n, struct dnet_err *err)
{
	if (m->data_len > DNET_PROTO_MAX_PAYLOAD || (m->data_len && memchr(m->data, 0, m->data_len)))
		return INVAL("PARAM reply: %zu bytes of text", m->data_len);
	*n = m->data_len;
	return 0;
}

static void param_reply_encode(uint8_t *p, size_t n, const struct dnet_proto_msg *m)
{
	if (n)
		memcpy(p, m->data, n);
}

static int param_reply_decode(const uint8_t *p, size_t n, const char *tn, struct dnet_proto_msg *m,
			      struct dnet_err *err)
{
	(void)tn;
	if (n && memchr(p, 0, n))
		return BAD("PARAM reply: text contains a NUL byte");
	m->data = n ? p : NULL;
	m->data_len = n;
	return 0;
}

/* ---- PARAM_ALL: every readable parameter, NAME NUL VALUE NUL each ---- */

/* The pairs of a PARAM_ALL reply: names 1..NAME_MAX bytes, values at most
 * VALUE_MAX, each NUL-terminated; how many in *count.  NULL if they are not. */
static const char *param_all_check(const uint8_t *p, size_t n, uint32_t *count)
{
	*count = 0;
	for (size_t i = 0; i < n;) {
		const uint8_t *z = memchr(p + i, 0, n - i);
		size_t nl = z ? (size_t)(z - (p + i)) : 0;
		if (!z || nl == 0 || nl > DNET_PROTO_NAME_MAX)
			return "a name of 1 to 63 bytes, NUL-terminated";
		i += nl + 1;
		z = i < n ? memchr(p + i, 0, n - i) : NULL;
		if (!z || (size_t)(z - (p + i)) > DNET_PROTO_VALUE_MAX)
			return "a value of at most 8191 bytes, NUL-terminated, after every name";
		i += (size_t)(z - (p + i)) + 1;
		(*count)++;
	}
	return NULL;
}

static int param_all_reply_size(const struct dnet_proto_msg *m, size_t *n, struct dnet_err *err)
{
	uint32_t c;
	const char *why = m->data_len > DNET_PROTO_MAX_PAYLOAD ? "at most a frame" :
			  param_all_check(m->data, m->data_len, &c);
	if (why)
		return INVAL("PARAM_ALL reply: %zu bytes: %s", m->data_len, why);
	*n = m->data_len;
	return 0;
}

static int param_all_reply_decode(const uint8_t *p, size_t n, const char *tn, struct dnet_proto_msg *m,
				  struct dnet_err *err)
{
	(void)tn;
	const char *why = param_all_check(p, n, &m->count);
	if (why)
		return BAD("PARAM_ALL reply: %s", why);
	m->data = n ? p : NULL;
	m->data_len = n;
	return 0;
}

/* ---- the table ---- */

#define VAR DNET_PROTO_VAR
#define EMPTY { .fixed = 0 }
/* A codec of fixed size whose size needs no check (NULL size). */
#define FIXED(n, enc, dec) { .fixed = (n), .encode = (enc), .decode = (dec) }
#define CODEC(n, sz, enc, dec) { .fixed = (n), .size = (sz), .encode = (enc), .decode = (dec) }

static const struct wire_type types[] = {
	[DNET_MSG_HELLO] = { "HELLO", "HELLO reply", false, false,
		CODEC(VAR, hello_size, hello_encode, hello_decode),
		CODEC(VAR, hello_reply_size, hello_reply_encode, hello_reply_decode) },
	[DNET_MSG_READ] = { "READ", "READ reply", false, true,
		CODEC(8, read_size, read_encode, read_decode),
		CODEC(VAR, read_reply_size, read_reply_encode, read_reply_decode) },
	[DNET_MSG_WRITE] = { "WRITE", "WRITE reply", true, true,
		CODEC(VAR, write_size, write_encode, write_decode), EMPTY },
	[DNET_MSG_READ_BLOCK] = { "READ_BLOCK", "READ_BLOCK reply", false, true,
		CODEC(8, read_block_size, off_len_encode, read_block_decode),
		CODEC(VAR, data_reply_size, data_reply_encode, data_reply_decode) },
	[DNET_MSG_WRITE_BLOCK] = { "WRITE_BLOCK", "WRITE_BLOCK reply", true, true,
		CODEC(VAR, write_block_size, write_block_encode, write_block_decode), EMPTY },
	[DNET_MSG_WC_FLUSH] = { "WC_FLUSH", "WC_FLUSH reply", true, true, EMPTY, EMPTY },
	[DNET_MSG_CACHE_FLUSH] = { "CACHE_FLUSH", "CACHE_FLUSH reply", true, true,
		FIXED(8, off_len_encode, off_len_decode), EMPTY },
	[DNET_MSG_PREFETCH] = { "PREFETCH", "PREFETCH reply", true, true,
		FIXED(8, off_len_encode, off_len_decode), EMPTY },
	/* 0x0009 was SET_NODE (1.x): 2.0 names the node in each frame instead
	 * (D-NODE-HANDLE); the number is not used again. */
	[DNET_MSG_WAIT] = { "WAIT", "WAIT reply", false, true,
		CODEC(32, wait_size, wait_encode, wait_decode),
		CODEC(VAR, wait_reply_size, wait_reply_encode, wait_reply_decode) },
	[DNET_MSG_DELAY] = { "DELAY", "DELAY reply", true, true, FIXED(8, ns_encode, ns_decode), EMPTY },
	[DNET_MSG_NOW] = { "NOW", "NOW reply", false, true, EMPTY, FIXED(8, ns_encode, ns_decode) },
	[DNET_MSG_BUSY] = { "BUSY", "BUSY reply", false, true,
		EMPTY, CODEC(4, busy_reply_size, busy_reply_encode, busy_reply_decode) },
	[DNET_MSG_SODIMM_READ] = { "SODIMM_READ", "SODIMM_READ reply", false, true,
		CODEC(VAR, sodimm_read_size, sodimm_encode, sodimm_decode),
		CODEC(VAR, data_reply_size, data_reply_encode, data_reply_decode) },
	[DNET_MSG_SODIMM_WRITE] = { "SODIMM_WRITE", "SODIMM_WRITE reply", true, true,
		CODEC(VAR, sodimm_write_size, sodimm_encode, sodimm_decode), EMPTY },
	[DNET_MSG_STAT] = { "STAT", "STAT reply", false, true,
		CODEC(VAR, stat_size, stat_encode, stat_decode),
		FIXED(8, stat_reply_encode, stat_reply_decode) },
	[DNET_MSG_STAT_NAMES] = { "STAT_NAMES", "STAT_NAMES reply", false, false,
		EMPTY, CODEC(VAR, names_reply_size, names_reply_encode, names_reply_decode) },
	[DNET_MSG_SYNC] = { "SYNC", "SYNC reply", false, false,
		EMPTY, FIXED(8, sync_reply_encode, sync_reply_decode) },
	[DNET_MSG_PARAM] = { "PARAM", "PARAM reply", false, false,
		CODEC(VAR, param_size, param_encode, param_decode),
		CODEC(VAR, param_reply_size, param_reply_encode, param_reply_decode) },
	[DNET_MSG_PARAM_ALL] = { "PARAM_ALL", "PARAM_ALL reply", false, false,
		EMPTY, CODEC(VAR, param_all_reply_size, param_reply_encode, param_all_reply_decode) },
};
/* A request type added to the enum (DNET_MSG_REQ_LAST moves) needs its
 * entry here; a hole is caught by test_remote_proto (every name set). */
_Static_assert(sizeof types / sizeof types[0] == DNET_MSG_REQ_LAST + 1,
	       "dnet_proto_types: one entry per request type");

static const struct wire_codec error_codec = CODEC(VAR, error_size, error_encode, error_decode);

const struct wire_type *wire_type(uint16_t type)
{
	return type >= 1 && type <= DNET_MSG_REQ_LAST && types[type].name ? &types[type] : NULL;
}

/* What a type is: a request, one that acts on a node, a reply; its name. */
bool wire_postable(uint16_t type)
{
	const struct wire_type *t = wire_type(type);
	return t && t->postable;
}

bool wire_is_request(uint16_t type)
{
	return wire_type(type) != NULL; /* retired numbers (0x0009) are none */
}

bool wire_noded(uint16_t type)
{
	const struct wire_type *t = wire_type(type);
	return t && t->noded;
}

bool wire_is_reply(uint16_t type)
{
	return type == DNET_MSG_ERROR ||
	       ((type & DNET_MSG_REPLY) && wire_is_request((uint16_t)(type & ~DNET_MSG_REPLY)));
}

const char *wire_type_name(uint16_t type)
{
	if (type == DNET_MSG_ERROR)
		return "ERROR";
	if (wire_is_request(type))
		return wire_type(type)->name;
	if (wire_is_reply(type))
		return wire_type((uint16_t)(type & ~DNET_MSG_REPLY))->reply_name;
	return "?";
}

const struct wire_codec *wire_codec(uint16_t type)
{
	if (type == DNET_MSG_ERROR)
		return &error_codec;
	if (wire_is_request(type))
		return &types[type].req;
	if (wire_is_reply(type))
		return &types[type & ~DNET_MSG_REPLY].rep;
	return NULL;
}
