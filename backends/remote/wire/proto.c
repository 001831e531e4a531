/* The dnetd wire protocol: encoder and validating decoder.
 * The frame layouts are specified in docs/protocol.md; keep both in step. */
#include "remote/wire/proto.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- frame flags ---- */

/* The flags a frame of this type may carry. */
static int flags_ok(uint16_t type, uint16_t flags, struct dnet_err *err)
{
	if (flags & ~DNET_PROTO_F_ALL)
		return dnet_seterr(err, DNET_EPROTO, "frame flags 0x%04x: unknown bits", flags);
	if (flags && !wire_postable(type))
		return dnet_seterr(err, DNET_EPROTO, "frame flags 0x%04x on %s (only writes, block writes, "
				   "flushes, prefetch and delays may be posted)", flags, wire_type_name(type));
	if ((flags & DNET_PROTO_F_STOP) && !(flags & DNET_PROTO_F_POSTED))
		return dnet_seterr(err, DNET_EPROTO, "frame flag STOP without POSTED");
	return 0;
}

/* ---- output buffer ---- */

void wire_pbuf_free(struct dnet_pbuf *b)
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

/* ---- encoder ---- */

int wire_encode(struct dnet_pbuf *b, const struct dnet_proto_msg *m, struct dnet_err *err)
{
	const struct wire_codec *codec = wire_codec(m->type);
	if (!codec)
		return dnet_seterr(err, DNET_EINVAL, "unknown message type 0x%04x", m->type);
	size_t n = codec->fixed;
	int r = codec->size ? codec->size(m, &n, err) : 0;
	if (r)
		return r;
	if (m->flags && (r = flags_ok(m->type, m->flags, err)))
		return -DNET_EINVAL;
	size_t nn = wire_noded(m->type) ? DNET_PROTO_NODE_SIZE : 0; /* the node first (2.0) */
	if (nn && m->node < 1)
		return dnet_seterr(err, DNET_EINVAL, "%s: node 0 (nodes are numbered from 1)",
				   wire_type_name(m->type));
	r = pbuf_reserve(b, DNET_PROTO_HDR_SIZE + nn + n, err);
	if (r)
		return r;
	uint8_t *h = b->p + b->len, *p = h + DNET_PROTO_HDR_SIZE;
	dnet_put32(h, (uint32_t)(nn + n));
	dnet_put16(h + 4, m->type);
	dnet_put16(h + 6, m->flags);
	dnet_put32(h + 8, m->id);
	if (nn)
		dnet_put32(p, m->node);
	p += nn;
	memset(p, 0, n);

	if (codec->encode)
		codec->encode(p, n, m);
	b->len += DNET_PROTO_HDR_SIZE + nn + n;
	return 0;
}

int wire_encode_error(struct dnet_pbuf *b, uint32_t id, int code, const char *msg,
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
	return wire_encode(b, &m, err);
}

/* ---- decoder ---- */

void wire_header(const uint8_t *buf, uint32_t *len, uint16_t *type, uint16_t *flags,
		       uint32_t *id)
{
	*len = dnet_get32(buf);
	*type = dnet_get16(buf + 4);
	*flags = dnet_get16(buf + 6);
	*id = dnet_get32(buf + 8);
}

int wire_peek(const uint8_t *buf, size_t have, size_t *frame_len, struct dnet_err *err)
{
	uint32_t len, id;
	uint16_t type, flags;

	if (have < DNET_PROTO_HDR_SIZE)
		return 0;
	wire_header(buf, &len, &type, &flags, &id);
	if (len > DNET_PROTO_MAX_PAYLOAD)
		return dnet_seterr(err, DNET_EPROTO, "frame payload of %u bytes exceeds the maximum %u",
				   len, DNET_PROTO_MAX_PAYLOAD);
	if (flags & ~DNET_PROTO_F_ALL)
		return dnet_seterr(err, DNET_EPROTO, "frame flags 0x%04x: unknown bits", flags);
	*frame_len = DNET_PROTO_HDR_SIZE + (size_t)len;
	return have >= *frame_len ? 1 : 0;
}

#define BAD(...) dnet_seterr(err, DNET_EPROTO, __VA_ARGS__)

int wire_decode(const uint8_t *frame, size_t flen, struct dnet_proto_msg *m,
		      struct dnet_err *err)
{
	uint32_t len, id;
	uint16_t type, flags;

	memset(m, 0, sizeof *m);
	if (flen < DNET_PROTO_HDR_SIZE)
		return BAD("frame of %zu bytes is shorter than the %u-byte header", flen,
			   DNET_PROTO_HDR_SIZE);
	wire_header(frame, &len, &type, &flags, &id);
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
	const char *tn = wire_type_name(type);

	const struct wire_codec *codec = wire_codec(type);
	if (!codec)
		return BAD("unknown message type 0x%04x", type);
	if (wire_noded(type)) {
		/* the node the request acts on (2.0, D-NODE-HANDLE) */
		if (n < DNET_PROTO_NODE_SIZE)
			return BAD("%s: payload of %zu bytes has no node (at least %u)", tn, n, DNET_PROTO_NODE_SIZE);
		m->node = dnet_get32(p);
		if (m->node < 1)
			return BAD("%s: node 0 (nodes are numbered from 1)", tn);
		p += DNET_PROTO_NODE_SIZE;
		n -= DNET_PROTO_NODE_SIZE;
	}
	if (codec->fixed != DNET_PROTO_VAR && n != codec->fixed)
		return BAD("%s: payload of %zu bytes, expected %zu", tn, n, codec->fixed);
	return codec->decode ? codec->decode(p, n, tn, m, err) : 0;
}

unsigned wire_frame_node(const uint8_t *frame, size_t len)
{
	uint32_t plen, id;
	uint16_t type, flags;
	if (len < DNET_PROTO_HDR_SIZE + DNET_PROTO_NODE_SIZE)
		return 0;
	wire_header(frame, &plen, &type, &flags, &id);
	if (!wire_noded(type) || plen < DNET_PROTO_NODE_SIZE)
		return 0;
	return dnet_get32(frame + DNET_PROTO_HDR_SIZE);
}

int wire_next_name(const struct dnet_proto_msg *m, size_t *pos,
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
