/* The dnetd wire protocol: encoder and validating decoder.
 * The frame layouts are specified in docs/protocol.md; keep both in step. */
#include "remote/proto.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- names ---- */

static const char *const req_names[] = {
	[DNET_MSG_HELLO] = "HELLO",
	[DNET_MSG_READ] = "READ",
	[DNET_MSG_WRITE] = "WRITE",
	[DNET_MSG_READ_BLOCK] = "READ_BLOCK",
	[DNET_MSG_WRITE_BLOCK] = "WRITE_BLOCK",
	[DNET_MSG_WC_FLUSH] = "WC_FLUSH",
	[DNET_MSG_CACHE_FLUSH] = "CACHE_FLUSH",
	[DNET_MSG_PREFETCH] = "PREFETCH",
	[DNET_MSG_SET_NODE] = "SET_NODE",
	[DNET_MSG_WAIT] = "WAIT",
	[DNET_MSG_DELAY] = "DELAY",
	[DNET_MSG_NOW] = "NOW",
	[DNET_MSG_BUSY] = "BUSY",
	[DNET_MSG_SODIMM_READ] = "SODIMM_READ",
	[DNET_MSG_SODIMM_WRITE] = "SODIMM_WRITE",
	[DNET_MSG_STAT] = "STAT",
	[DNET_MSG_STAT_NAMES] = "STAT_NAMES",
	[DNET_MSG_SYNC] = "SYNC",
	[DNET_MSG_PARAM] = "PARAM",
};

bool dnet_proto_postable(uint16_t type)
{
	switch (type) {
	case DNET_MSG_WRITE:
	case DNET_MSG_WRITE_BLOCK:
	case DNET_MSG_WC_FLUSH:
	case DNET_MSG_CACHE_FLUSH:
	case DNET_MSG_PREFETCH:
	case DNET_MSG_SODIMM_WRITE:
	case DNET_MSG_DELAY:
		return true;
	default:
		return false;
	}
}

/* The flags a frame of this type may carry. */
static int flags_ok(uint16_t type, uint16_t flags, struct dnet_err *err)
{
	if (flags & ~DNET_PROTO_F_ALL)
		return dnet_seterr(err, DNET_EPROTO, "frame flags 0x%04x: unknown bits", flags);
	if (flags && !dnet_proto_postable(type))
		return dnet_seterr(err, DNET_EPROTO, "frame flags 0x%04x on %s (only writes, block writes, "
				   "flushes, prefetch and delays may be posted)", flags, dnet_proto_type_name(type));
	if ((flags & DNET_PROTO_F_STOP) && !(flags & DNET_PROTO_F_POSTED))
		return dnet_seterr(err, DNET_EPROTO, "frame flag STOP without POSTED");
	return 0;
}

bool dnet_proto_is_request(uint16_t type)
{
	return type >= 1 && type <= DNET_MSG_REQ_LAST;
}

bool dnet_proto_is_reply(uint16_t type)
{
	return type == DNET_MSG_ERROR ||
	       ((type & DNET_MSG_REPLY) && dnet_proto_is_request((uint16_t)(type & ~DNET_MSG_REPLY)));
}

const char *dnet_proto_type_name(uint16_t type)
{
	static const char *const reply_names[] = {
		[DNET_MSG_HELLO] = "HELLO reply",
		[DNET_MSG_READ] = "READ reply",
		[DNET_MSG_WRITE] = "WRITE reply",
		[DNET_MSG_READ_BLOCK] = "READ_BLOCK reply",
		[DNET_MSG_WRITE_BLOCK] = "WRITE_BLOCK reply",
		[DNET_MSG_WC_FLUSH] = "WC_FLUSH reply",
		[DNET_MSG_CACHE_FLUSH] = "CACHE_FLUSH reply",
		[DNET_MSG_PREFETCH] = "PREFETCH reply",
		[DNET_MSG_SET_NODE] = "SET_NODE reply",
		[DNET_MSG_WAIT] = "WAIT reply",
		[DNET_MSG_DELAY] = "DELAY reply",
		[DNET_MSG_NOW] = "NOW reply",
		[DNET_MSG_BUSY] = "BUSY reply",
		[DNET_MSG_SODIMM_READ] = "SODIMM_READ reply",
		[DNET_MSG_SODIMM_WRITE] = "SODIMM_WRITE reply",
		[DNET_MSG_STAT] = "STAT reply",
		[DNET_MSG_STAT_NAMES] = "STAT_NAMES reply",
		[DNET_MSG_SYNC] = "SYNC reply",
		[DNET_MSG_PARAM] = "PARAM reply",
	};
	if (type == DNET_MSG_ERROR)
		return "ERROR";
	if (dnet_proto_is_request(type))
		return req_names[type];
	if (dnet_proto_is_reply(type))
		return reply_names[type & ~DNET_MSG_REPLY];
	return "?";
}

/* ---- output buffer ---- */

void dnet_pbuf_free(struct dnet_pbuf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

static int pbuf_reserve(struct dnet_pbuf *b, size_t more, struct dnet_err *err)
{
	if (more > SIZE_MAX / 2 - b->len)
		return dnet_seterr(err, DNET_ENOMEM, "frame too large");
	if (b->len + more <= b->cap)
		return 0;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < b->len + more)
		cap *= 2;
	uint8_t *p = realloc(b->p, cap);
	if (!p)
		return dnet_seterr(err, DNET_ENOMEM, "out of memory (%zu bytes)", cap);
	b->p = p;
	b->cap = cap;
	return 0;
}

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

/* ---- encoder ---- */

/* Size of the payload of m, or 0 with an error set if m is invalid. */
/* The messages that carry no payload (docs/protocol.md), for the encoder
 * and the decoder alike. */
static bool empty_payload(uint16_t type)
{
	switch (type) {
	case DNET_MSG_WC_FLUSH:
	case DNET_MSG_NOW:
	case DNET_MSG_BUSY:
	case DNET_MSG_STAT_NAMES:
	case DNET_MSG_SYNC:
	case DNET_MSG_WRITE | DNET_MSG_REPLY:
	case DNET_MSG_WRITE_BLOCK | DNET_MSG_REPLY:
	case DNET_MSG_WC_FLUSH | DNET_MSG_REPLY:
	case DNET_MSG_CACHE_FLUSH | DNET_MSG_REPLY:
	case DNET_MSG_PREFETCH | DNET_MSG_REPLY:
	case DNET_MSG_SET_NODE | DNET_MSG_REPLY:
	case DNET_MSG_DELAY | DNET_MSG_REPLY:
	case DNET_MSG_SODIMM_WRITE | DNET_MSG_REPLY:
		return true;
	default:
		return false;
	}
}

static int payload_size(const struct dnet_proto_msg *m, size_t *size, struct dnet_err *err)
{
	uint16_t t = m->type;
	size_t n = 0;

	switch (t) {
	case DNET_MSG_HELLO: {
		size_t tl = strnlen(m->token, sizeof m->token);
		if (tl > DNET_PROTO_TOKEN_MAX)
			return dnet_seterr(err, DNET_EINVAL, "token longer than %u bytes",
					   DNET_PROTO_TOKEN_MAX);
		if (m->wid > 1 || m->privileged > 1)
			return dnet_seterr(err, DNET_EINVAL, "HELLO: wid and privileged must be 0 or 1");
		n = 16 + tl;
		break;
	}
	case DNET_MSG_HELLO | DNET_MSG_REPLY:
		if (m->nodes < 1 || m->node < 1 || m->node > m->nodes)
			return dnet_seterr(err, DNET_EINVAL, "HELLO reply: node %u of %u", m->node, m->nodes);
		n = m->cluster ? 32 : 24; /* 1.2 appends the cluster id for 1.2 clients only */
		break;
	case DNET_MSG_READ:
		if (!width_ok(m->width))
			return dnet_seterr(err, DNET_EINVAL, "READ: bad width %u", m->width);
		n = 8;
		break;
	case DNET_MSG_READ | DNET_MSG_REPLY:
		if (!width_ok(m->width))
			return dnet_seterr(err, DNET_EINVAL, "READ reply: bad width %u", m->width);
		n = m->width;
		break;
	case DNET_MSG_WRITE:
		if (!width_ok(m->width))
			return dnet_seterr(err, DNET_EINVAL, "WRITE: bad width %u", m->width);
		n = 8u + m->width;
		break;
	case DNET_MSG_READ_BLOCK:
	case DNET_MSG_SODIMM_READ:
		if (m->len > DNET_PROTO_MAX_DATA)
			return dnet_seterr(err, DNET_EINVAL, "%s: length %u over %u", dnet_proto_type_name(t),
					   m->len, DNET_PROTO_MAX_DATA);
		n = t == DNET_MSG_READ_BLOCK ? 8 : 16;
		break;
	case DNET_MSG_WRITE_BLOCK:
	case DNET_MSG_SODIMM_WRITE:
		if (m->len > DNET_PROTO_MAX_DATA || m->data_len != m->len || (m->len && !m->data))
			return dnet_seterr(err, DNET_EINVAL, "%s: bad data length %u",
					   dnet_proto_type_name(t), m->len);
		n = (t == DNET_MSG_WRITE_BLOCK ? 8u : 16u) + m->len;
		break;
	case DNET_MSG_READ_BLOCK | DNET_MSG_REPLY:
	case DNET_MSG_SODIMM_READ | DNET_MSG_REPLY:
		if (m->data_len > DNET_PROTO_MAX_DATA || (m->data_len && !m->data))
			return dnet_seterr(err, DNET_EINVAL, "%s: bad data length %zu",
					   dnet_proto_type_name(t), m->data_len);
		n = m->data_len;
		break;
	case DNET_MSG_CACHE_FLUSH:
	case DNET_MSG_PREFETCH:
		n = 8;
		break;
	case DNET_MSG_SET_NODE:
		if (m->node < 1)
			return dnet_seterr(err, DNET_EINVAL, "SET_NODE: node 0");
		n = 4;
		break;
	case DNET_MSG_WAIT:
		if (m->cond > 5)
			return dnet_seterr(err, DNET_EINVAL, "WAIT: bad condition %u", m->cond);
		n = 32;
		break;
	case DNET_MSG_WAIT | DNET_MSG_REPLY: {
		size_t ml = strnlen(m->msg, sizeof m->msg);
		if (m->timed_out > 1)
			return dnet_seterr(err, DNET_EINVAL, "WAIT reply: timed_out must be 0 or 1");
		if (ml > DNET_PROTO_MSG_MAX || (!m->timed_out && ml))
			return dnet_seterr(err, DNET_EINVAL, "WAIT reply: message only with a timeout");
		n = 18 + ml;
		break;
	}
	case DNET_MSG_DELAY:
	case DNET_MSG_NOW | DNET_MSG_REPLY:
	case DNET_MSG_STAT | DNET_MSG_REPLY:
		n = 8;
		break;
	case DNET_MSG_BUSY | DNET_MSG_REPLY:
		if (m->busy > 1)
			return dnet_seterr(err, DNET_EINVAL, "BUSY reply: busy must be 0 or 1");
		n = 4;
		break;
	case DNET_MSG_SYNC | DNET_MSG_REPLY:
		n = 8;
		break;
	case DNET_MSG_STAT: {
		size_t nl = strnlen(m->name, sizeof m->name);
		if (nl < 1 || nl > DNET_PROTO_NAME_MAX)
			return dnet_seterr(err, DNET_EINVAL, "STAT: name must be 1..%u bytes",
					   DNET_PROTO_NAME_MAX);
		n = 2 + nl;
		break;
	}
	case DNET_MSG_STAT_NAMES | DNET_MSG_REPLY:
		if (m->count > DNET_PROTO_NAMES_MAX || (m->count && !m->names))
			return dnet_seterr(err, DNET_EINVAL, "STAT_NAMES reply: %u names", m->count);
		n = 4;
		for (uint32_t i = 0; i < m->count; i++) {
			size_t nl = m->names[i] ? strlen(m->names[i]) : 0;
			if (nl < 1 || nl > DNET_PROTO_NAME_MAX)
				return dnet_seterr(err, DNET_EINVAL, "STAT_NAMES reply: name %u must be 1..%u bytes",
						   i, DNET_PROTO_NAME_MAX);
			n += 2 + nl;
		}
		if (n > DNET_PROTO_MAX_PAYLOAD)
			return dnet_seterr(err, DNET_EINVAL, "STAT_NAMES reply too large");
		break;
	case DNET_MSG_PARAM: {
		size_t nl = strnlen(m->name, sizeof m->name);
		if (m->op > DNET_PARAM_OP_SET || (m->op == DNET_PARAM_OP_LIST) != (nl == 0) ||
		    nl > DNET_PROTO_NAME_MAX)
			return dnet_seterr(err, DNET_EINVAL, "PARAM: op %u with a name of %zu bytes", m->op, nl);
		if ((m->op != DNET_PARAM_OP_SET && m->data_len) || m->data_len > DNET_PROTO_VALUE_MAX ||
		    (m->data_len && memchr(m->data, 0, m->data_len)))
			return dnet_seterr(err, DNET_EINVAL, "PARAM: a value of %zu bytes (SET only, at most %u, "
					   "no NUL)", m->data_len, DNET_PROTO_VALUE_MAX);
		n = 4 + nl + m->data_len;
		break;
	}
	case DNET_MSG_PARAM | DNET_MSG_REPLY:
		if (m->data_len > DNET_PROTO_MAX_PAYLOAD || (m->data_len && memchr(m->data, 0, m->data_len)))
			return dnet_seterr(err, DNET_EINVAL, "PARAM reply: %zu bytes of text", m->data_len);
		n = m->data_len;
		break;
	case DNET_MSG_ERROR: {
		size_t ml = strnlen(m->msg, sizeof m->msg);
		if (m->code < 1 || m->code > 0xffff)
			return dnet_seterr(err, DNET_EINVAL, "ERROR: bad code %u", m->code);
		if (ml > DNET_PROTO_MSG_MAX)
			return dnet_seterr(err, DNET_EINVAL, "ERROR: message too long");
		n = 6 + ml;
		break;
	}
	default:
		if (!empty_payload(t))
			return dnet_seterr(err, DNET_EINVAL, "unknown message type 0x%04x", t);
		n = 0;
		break;
	}
	*size = n;
	return 0;
}

int dnet_proto_encode(struct dnet_pbuf *b, const struct dnet_proto_msg *m, struct dnet_err *err)
{
	size_t n = 0;
	int r = payload_size(m, &n, err);
	if (r)
		return r;
	if (m->flags && (r = flags_ok(m->type, m->flags, err)))
		return -DNET_EINVAL;
	r = pbuf_reserve(b, DNET_PROTO_HDR_SIZE + n, err);
	if (r)
		return r;
	uint8_t *h = b->p + b->len, *p = h + DNET_PROTO_HDR_SIZE;
	dnet_put32(h, (uint32_t)n);
	dnet_put16(h + 4, m->type);
	dnet_put16(h + 6, m->flags);
	dnet_put32(h + 8, m->id);
	memset(p, 0, n);

	switch (m->type) {
	case DNET_MSG_HELLO: {
		size_t tl = n - 16;
		dnet_put32(p, DNET_PROTO_MAGIC);
		dnet_put16(p + 4, m->ver_major);
		dnet_put16(p + 6, m->ver_minor);
		dnet_put32(p + 8, m->node);
		p[12] = m->wid;
		p[13] = m->privileged;
		dnet_put16(p + 14, (uint16_t)tl);
		memcpy(p + 16, m->token, tl);
		break;
	}
	case DNET_MSG_HELLO | DNET_MSG_REPLY:
		dnet_put32(p, DNET_PROTO_MAGIC);
		dnet_put16(p + 4, m->ver_major);
		dnet_put16(p + 6, m->ver_minor);
		dnet_put32(p + 8, m->nodes);
		dnet_put32(p + 12, m->caps);
		dnet_put32(p + 16, m->node);
		dnet_put32(p + 20, m->max_payload);
		if (n == 32)
			dnet_put64(p + 24, m->cluster);
		break;
	case DNET_MSG_READ:
		dnet_put32(p, m->off);
		p[4] = m->width;
		break;
	case DNET_MSG_READ | DNET_MSG_REPLY:
		put_value(p, m->width, m->val);
		break;
	case DNET_MSG_WRITE:
		dnet_put32(p, m->off);
		p[4] = m->width;
		put_value(p + 8, m->width, m->val);
		break;
	case DNET_MSG_READ_BLOCK:
	case DNET_MSG_CACHE_FLUSH:
	case DNET_MSG_PREFETCH:
		dnet_put32(p, m->off);
		dnet_put32(p + 4, m->len);
		break;
	case DNET_MSG_WRITE_BLOCK:
		dnet_put32(p, m->off);
		dnet_put32(p + 4, m->len);
		if (m->len)
			memcpy(p + 8, m->data, m->len);
		break;
	case DNET_MSG_SODIMM_READ:
		dnet_put64(p, m->addr);
		dnet_put32(p + 8, m->len);
		break;
	case DNET_MSG_SODIMM_WRITE:
		dnet_put64(p, m->addr);
		dnet_put32(p + 8, m->len);
		if (m->len)
			memcpy(p + 16, m->data, m->len);
		break;
	case DNET_MSG_READ_BLOCK | DNET_MSG_REPLY:
	case DNET_MSG_SODIMM_READ | DNET_MSG_REPLY:
		if (n)
			memcpy(p, m->data, n);
		break;
	case DNET_MSG_SET_NODE:
		dnet_put32(p, m->node);
		break;
	case DNET_MSG_WAIT:
		dnet_put32(p, m->off);
		dnet_put32(p + 4, m->cond);
		dnet_put64(p + 8, m->mask);
		dnet_put64(p + 16, m->value);
		dnet_put64(p + 24, m->timeout_ns);
		break;
	case DNET_MSG_WAIT | DNET_MSG_REPLY:
		p[0] = m->timed_out;
		dnet_put64(p + 8, m->last);
		dnet_put16(p + 16, (uint16_t)(n - 18));
		memcpy(p + 18, m->msg, n - 18);
		break;
	case DNET_MSG_DELAY:
	case DNET_MSG_NOW | DNET_MSG_REPLY:
		dnet_put64(p, m->ns);
		break;
	case DNET_MSG_STAT | DNET_MSG_REPLY:
		dnet_put64(p, m->stat);
		break;
	case DNET_MSG_BUSY | DNET_MSG_REPLY:
		p[0] = m->busy;
		break;
	case DNET_MSG_SYNC | DNET_MSG_REPLY:
		dnet_put32(p, m->count);
		dnet_put32(p + 4, m->skipped);
		break;
	case DNET_MSG_STAT:
		dnet_put16(p, (uint16_t)(n - 2));
		memcpy(p + 2, m->name, n - 2);
		break;
	case DNET_MSG_PARAM: {
		size_t nl = n - 4 - m->data_len;
		p[0] = m->op;
		p[1] = 0;
		dnet_put16(p + 2, (uint16_t)nl);
		memcpy(p + 4, m->name, nl);
		if (m->data_len)
			memcpy(p + 4 + nl, m->data, m->data_len);
		break;
	}
	case DNET_MSG_PARAM | DNET_MSG_REPLY:
		if (n)
			memcpy(p, m->data, n);
		break;
	case DNET_MSG_STAT_NAMES | DNET_MSG_REPLY: {
		uint8_t *q = p + 4;
		dnet_put32(p, m->count);
		for (uint32_t i = 0; i < m->count; i++) {
			size_t nl = strlen(m->names[i]);
			dnet_put16(q, (uint16_t)nl);
			memcpy(q + 2, m->names[i], nl);
			q += 2 + nl;
		}
		break;
	}
	case DNET_MSG_ERROR:
		dnet_put32(p, m->code);
		dnet_put16(p + 4, (uint16_t)(n - 6));
		memcpy(p + 6, m->msg, n - 6);
		break;
	default:
		break; /* empty payloads */
	}
	b->len += DNET_PROTO_HDR_SIZE + n;
	return 0;
}

int dnet_proto_encode_error(struct dnet_pbuf *b, uint32_t id, int code, const char *msg,
			    struct dnet_err *err)
{
	struct dnet_proto_msg m;
	memset(&m, 0, sizeof m);
	m.type = DNET_MSG_ERROR;
	m.id = id;
	m.code = (uint32_t)(code < 0 ? -code : code);
	if (m.code < 1 || m.code > 0xffff)
		m.code = DNET_EIO;
	/* Truncate (the struct field is one longer than the limit). */
	snprintf(m.msg, sizeof m.msg, "%s", msg ? msg : "");
	return dnet_proto_encode(b, &m, err);
}

/* ---- decoder ---- */

void dnet_proto_header(const uint8_t *buf, uint32_t *len, uint16_t *type, uint16_t *flags,
		       uint32_t *id)
{
	*len = dnet_get32(buf);
	*type = dnet_get16(buf + 4);
	*flags = dnet_get16(buf + 6);
	*id = dnet_get32(buf + 8);
}

int dnet_proto_peek(const uint8_t *buf, size_t have, size_t *frame_len, struct dnet_err *err)
{
	uint32_t len, id;
	uint16_t type, flags;

	if (have < DNET_PROTO_HDR_SIZE)
		return 0;
	dnet_proto_header(buf, &len, &type, &flags, &id);
	if (len > DNET_PROTO_MAX_PAYLOAD)
		return dnet_seterr(err, DNET_EPROTO, "frame payload of %u bytes exceeds the maximum %u",
				   len, DNET_PROTO_MAX_PAYLOAD);
	if (flags & ~DNET_PROTO_F_ALL)
		return dnet_seterr(err, DNET_EPROTO, "frame flags 0x%04x: unknown bits", flags);
	*frame_len = DNET_PROTO_HDR_SIZE + (size_t)len;
	return have >= *frame_len ? 1 : 0;
}

static bool zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

#define BAD(...) dnet_seterr(err, DNET_EPROTO, __VA_ARGS__)

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

int dnet_proto_decode(const uint8_t *frame, size_t flen, struct dnet_proto_msg *m,
		      struct dnet_err *err)
{
	uint32_t len, id;
	uint16_t type, flags;

	memset(m, 0, sizeof *m);
	if (flen < DNET_PROTO_HDR_SIZE)
		return BAD("frame of %zu bytes is shorter than the %u-byte header", flen,
			   DNET_PROTO_HDR_SIZE);
	dnet_proto_header(frame, &len, &type, &flags, &id);
	m->type = type;
	m->id = id;
	if (len > DNET_PROTO_MAX_PAYLOAD)
		return BAD("frame payload of %u bytes exceeds the maximum %u", len, DNET_PROTO_MAX_PAYLOAD);
	if ((size_t)len != flen - DNET_PROTO_HDR_SIZE)
		return BAD("frame length field %u does not match the %zu payload bytes", len,
			   flen - DNET_PROTO_HDR_SIZE);
	int r;
	if (flags && (r = flags_ok(type, flags, err)))
		return r;
	m->flags = flags;

	const uint8_t *p = frame + DNET_PROTO_HDR_SIZE;
	size_t n = len;
	const char *tn = dnet_proto_type_name(type);

	switch (type) {
	case DNET_MSG_HELLO: {
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
		break;
	}
	case DNET_MSG_HELLO | DNET_MSG_REPLY:
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
		break;
	case DNET_MSG_READ:
		if ((r = need(tn, n, 8, err)))
			return r;
		m->off = dnet_get32(p);
		m->width = p[4];
		if (!width_ok(m->width))
			return BAD("READ: bad width %u (1, 2, 4, 8 or 16)", m->width);
		if (!zero(p + 5, 3))
			return BAD("READ: reserved bytes must be 0");
		break;
	case DNET_MSG_READ | DNET_MSG_REPLY:
		if (!width_ok((unsigned)n))
			return BAD("READ reply: %zu value bytes (1, 2, 4, 8 or 16)", n);
		m->width = (uint8_t)n;
		get_value(p, m->width, m->val);
		break;
	case DNET_MSG_WRITE:
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
		break;
	case DNET_MSG_READ_BLOCK:
	case DNET_MSG_CACHE_FLUSH:
	case DNET_MSG_PREFETCH:
		if ((r = need(tn, n, 8, err)))
			return r;
		m->off = dnet_get32(p);
		m->len = dnet_get32(p + 4);
		if (type == DNET_MSG_READ_BLOCK && m->len > DNET_PROTO_MAX_DATA)
			return BAD("READ_BLOCK: length %u exceeds %u", m->len, DNET_PROTO_MAX_DATA);
		break;
	case DNET_MSG_WRITE_BLOCK:
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
		break;
	case DNET_MSG_SODIMM_READ:
	case DNET_MSG_SODIMM_WRITE:
		if ((r = need_min(tn, n, 16, err)))
			return r;
		m->addr = dnet_get64(p);
		m->len = dnet_get32(p + 8);
		if (!zero(p + 12, 4))
			return BAD("%s: reserved bytes must be 0", tn);
		if (m->len > DNET_PROTO_MAX_DATA)
			return BAD("%s: length %u exceeds %u", tn, m->len, DNET_PROTO_MAX_DATA);
		if (type == DNET_MSG_SODIMM_READ) {
			if ((r = need(tn, n, 16, err)))
				return r;
		} else {
			if ((r = need(tn, n, 16u + m->len, err)))
				return r;
			m->data = p + 16;
			m->data_len = m->len;
		}
		break;
	case DNET_MSG_READ_BLOCK | DNET_MSG_REPLY:
	case DNET_MSG_SODIMM_READ | DNET_MSG_REPLY:
		if (n > DNET_PROTO_MAX_DATA)
			return BAD("%s: %zu data bytes exceed %u", tn, n, DNET_PROTO_MAX_DATA);
		m->data = p;
		m->data_len = n;
		break;
	case DNET_MSG_SET_NODE:
		if ((r = need(tn, n, 4, err)))
			return r;
		m->node = dnet_get32(p);
		if (m->node < 1)
			return BAD("SET_NODE: node 0 (nodes are numbered from 1)");
		break;
	case DNET_MSG_WAIT:
		if ((r = need(tn, n, 32, err)))
			return r;
		m->off = dnet_get32(p);
		m->cond = dnet_get32(p + 4);
		m->mask = dnet_get64(p + 8);
		m->value = dnet_get64(p + 16);
		m->timeout_ns = dnet_get64(p + 24);
		if (m->cond > 5)
			return BAD("WAIT: bad condition %u (0..5)", m->cond);
		break;
	case DNET_MSG_WAIT | DNET_MSG_REPLY: {
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
		break;
	}
	case DNET_MSG_DELAY:
		if ((r = need(tn, n, 8, err)))
			return r;
		m->ns = dnet_get64(p);
		break;
	case DNET_MSG_NOW | DNET_MSG_REPLY:
		if ((r = need(tn, n, 8, err)))
			return r;
		m->ns = dnet_get64(p);
		break;
	case DNET_MSG_STAT | DNET_MSG_REPLY:
		if ((r = need(tn, n, 8, err)))
			return r;
		m->stat = dnet_get64(p);
		break;
	case DNET_MSG_SYNC | DNET_MSG_REPLY:
		if ((r = need(tn, n, 8, err)))
			return r;
		m->count = dnet_get32(p);
		m->skipped = dnet_get32(p + 4);
		if (m->skipped > m->count)
			return BAD("SYNC reply: %u skipped of %u failed", m->skipped, m->count);
		break;
	case DNET_MSG_BUSY | DNET_MSG_REPLY:
		if ((r = need(tn, n, 4, err)))
			return r;
		m->busy = p[0];
		if (m->busy > 1)
			return BAD("BUSY reply: busy %u must be 0 or 1", m->busy);
		if (!zero(p + 1, 3))
			return BAD("BUSY reply: reserved bytes must be 0");
		break;
	case DNET_MSG_STAT: {
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
		break;
	}
	case DNET_MSG_PARAM: {
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
		break;
	}
	case DNET_MSG_PARAM | DNET_MSG_REPLY:
		if (n && memchr(p, 0, n))
			return BAD("PARAM reply: text contains a NUL byte");
		m->data = n ? p : NULL;
		m->data_len = n;
		break;
	case DNET_MSG_STAT_NAMES | DNET_MSG_REPLY: {
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
				return BAD("STAT_NAMES reply: name %u of %zu bytes (1..%u)", i, nl,
					   DNET_PROTO_NAME_MAX);
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
		break;
	}
	case DNET_MSG_ERROR: {
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
		break;
	}
	default:
		if (!empty_payload(type))
			return BAD("unknown message type 0x%04x", type);
		if ((r = need(tn, n, 0, err)))
			return r;
		break;
	}
	return 0;
}

int dnet_proto_next_name(const struct dnet_proto_msg *m, size_t *pos,
			 char out[DNET_PROTO_NAME_MAX + 1])
{
	if (!m->data || *pos + 2 > m->data_len)
		return 0;
	size_t nl = dnet_get16(m->data + *pos);
	if (nl > DNET_PROTO_NAME_MAX || *pos + 2 + nl > m->data_len)
		return 0;
	memcpy(out, m->data + *pos + 2, nl);
	out[nl] = 0;
	*pos += 2 + nl;
	return 1;
}
