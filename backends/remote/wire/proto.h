/* The dnetd wire protocol, version 2 (docs/protocol.md is the spec).
 *
 * The wire codec (backends/remote/wire/, the internal archive libdnetwire.a,
 * D-DNETD-ROOM): linked into libdnet for the `remote` backend (the client)
 * and into dnetd (the server, backends/remote/dnetd/), hidden from
 * libdnet.so's users.  The message types are described by one table,
 * proto_types.c.
 *
 * Every message is one frame: a 12-byte header followed by a payload.
 * All integers are little-endian with explicit sizes.
 *
 *   offset size field
 *   0      4    len    payload length in bytes (header not counted),
 *                      at most DNET_PROTO_MAX_PAYLOAD
 *   4      2    type   message type (enum dnet_msg_type)
 *   6      2    flags  DNET_PROTO_F_* (1.1); 0 on replies
 *   8      4    id     request id, chosen by the client, echoed in the reply
 *
 * A request that acts on a node (wire_noded: the accesses, waits,
 * delays, the clock, busy, the backdoor, STAT) names it: its payload
 * starts with node u32 (>= 1), then the type's own fields (2.0,
 * D-NODE-HANDLE; 1.x had a SET_NODE request and a node per connection).
 *
 * Every request gets exactly one reply, in order: either the request's
 * reply type (type | DNET_MSG_REPLY) or DNET_MSG_ERROR -- except a posted
 * request (F_POSTED, protocol 1.1), which is answered only if it fails;
 * a SYNC's reply then says that every request before it is done and how
 * many posted ones failed or were skipped.  The decoder below validates
 * every field, so code acting on a decoded message may trust it.
 */
#ifndef DNET_REMOTE_PROTO_H
#define DNET_REMOTE_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "dnet/bytes.h"
#include "dnet/error.h"

#define DNET_PROTO_HIDDEN __attribute__((visibility("hidden")))

#define DNET_PROTO_MAGIC        0x54454e44u  /* bytes 'D' 'N' 'E' 'T' */
/* 1.1: posted requests, SYNC; 1.2: cluster id; 1.3: PARAM; 2.0: the node
 * in each request (no SET_NODE); a 1.x peer is refused at HELLO. */
#define DNET_PROTO_VERSION_MAJOR 2u
#define DNET_PROTO_VERSION_MINOR 0u
#define DNET_PROTO_HDR_SIZE     12u
#define DNET_PROTO_NODE_SIZE    4u           /* the node of a noded request */
#define DNET_PROTO_MAX_PAYLOAD  0x80000u     /* 512 KiB */
#define DNET_PROTO_MAX_DATA     0x40000u     /* 256 KiB of data in one block/SO-DIMM frame */
#define DNET_PROTO_TOKEN_MAX    255u
#define DNET_PROTO_MSG_MAX      255u         /* error message bytes */
#define DNET_PROTO_NAME_MAX     63u          /* stat name bytes */
#define DNET_PROTO_NAMES_MAX    1024u        /* stat names in one reply */
#define DNET_PROTO_VALUE_MAX    8191u        /* PARAM value bytes (DNET_PARAM_VALUE_MAX - 1) */

enum dnet_msg_type {
	DNET_MSG_HELLO        = 0x0001,
	DNET_MSG_READ         = 0x0002,
	DNET_MSG_WRITE        = 0x0003,
	DNET_MSG_READ_BLOCK   = 0x0004,
	DNET_MSG_WRITE_BLOCK  = 0x0005,
	DNET_MSG_WC_FLUSH     = 0x0006,
	DNET_MSG_CACHE_FLUSH  = 0x0007,
	DNET_MSG_PREFETCH     = 0x0008,
	/* 0x0009: retired (SET_NODE of 1.x) */
	DNET_MSG_WAIT         = 0x000a,
	DNET_MSG_DELAY        = 0x000b,
	DNET_MSG_NOW          = 0x000c,
	DNET_MSG_BUSY         = 0x000d,
	DNET_MSG_SODIMM_READ  = 0x000e,
	DNET_MSG_SODIMM_WRITE = 0x000f,
	DNET_MSG_STAT         = 0x0010,
	DNET_MSG_STAT_NAMES   = 0x0011,
	DNET_MSG_SYNC         = 0x0012, /* 1.1 */
	DNET_MSG_PARAM        = 0x0013, /* 1.3: backend parameters (dnet/param.h) */
	DNET_MSG_PARAM_ALL    = 0x0014, /* every readable parameter's value at once */
	DNET_MSG_REQ_LAST     = DNET_MSG_PARAM_ALL,

	DNET_MSG_REPLY        = 0x8000, /* or'ed into a request type */
	DNET_MSG_ERROR        = 0x80ff,
};

/* Frame flags (protocol 1.1, requests only).
 *   F_POSTED  no reply unless the request fails (then an ERROR with its id);
 *             only on the types wire_postable() accepts.
 *   F_STOP    with F_POSTED: skip this request, unanswered, if a posted
 *             request of this connection failed since the last SYNC (a
 *             batch that stops at its first failure, as a script that stops at its first error does). */
#define DNET_PROTO_F_POSTED 0x0001u
#define DNET_PROTO_F_STOP   0x0002u
#define DNET_PROTO_F_ALL    (DNET_PROTO_F_POSTED | DNET_PROTO_F_STOP)

/* Whether a request type may be posted: the ones whose reply carries
 * nothing but success (writes, block writes, flushes, prefetch, delay). */
DNET_PROTO_HIDDEN bool wire_postable(uint16_t type);
/* Whether a request type names the node it acts on (the payload's first
 * 4 bytes); and the node a whole frame of one names (0: none). */
DNET_PROTO_HIDDEN bool wire_noded(uint16_t type);
DNET_PROTO_HIDDEN unsigned wire_frame_node(const uint8_t *frame, size_t len);

struct dnet_proto_msg;

/* How one message type is sized, encoded and decoded (proto_types.c).
 *   size    checks m as the decoder would and gives the payload size;
 *           NULL: always `fixed` bytes.
 *   encode  writes the n payload bytes (zeroed before); NULL: nothing to write.
 *   decode  reads and validates the n payload bytes; NULL: nothing to read.
 * Unless fixed is DNET_PROTO_VAR, the decoder checks that the payload is
 * `fixed` bytes before calling decode; a VAR type's decode checks its
 * length itself. */
#define DNET_PROTO_VAR SIZE_MAX
struct wire_codec {
	size_t fixed;
	int (*size)(const struct dnet_proto_msg *m, size_t *n, struct dnet_err *err);
	void (*encode)(uint8_t *p, size_t n, const struct dnet_proto_msg *m);
	int (*decode)(const uint8_t *p, size_t n, const char *tn, struct dnet_proto_msg *m,
		      struct dnet_err *err);
};

/* One request type: its names, whether it may be posted, the codecs of the
 * request and of its reply.  The one table of them (dnet_proto_types,
 * indexed by enum dnet_msg_type) drives the encoder, the decoder and the
 * names; dnetd's dispatch table (srv_dispatch.c) is indexed the same way.
 * A new request type is one entry there and one here. */
struct wire_type {
	const char *name, *reply_name;
	bool postable;
	bool noded;     /* the request names its node (2.0) */
	struct wire_codec req, rep;
};
/* The descriptor of request type (1..DNET_MSG_REQ_LAST), or NULL (also
 * for a retired number). */
DNET_PROTO_HIDDEN const struct wire_type *wire_type(uint16_t type);
/* The codec of any message type, the ERROR reply's included; NULL if unknown. */
DNET_PROTO_HIDDEN const struct wire_codec *wire_codec(uint16_t type);

/* Short name of a type ("READ", "READ reply", "ERROR"); "?" if unknown. */
DNET_PROTO_HIDDEN const char *wire_type_name(uint16_t type);
/* Whether type is a request type, a reply type (including ERROR). */
DNET_PROTO_HIDDEN bool wire_is_request(uint16_t type);
DNET_PROTO_HIDDEN bool wire_is_reply(uint16_t type);

/* One decoded (or to-be-encoded) message.  Only the fields of its type are
 * meaningful; the rest are zero after decoding.  data points into the
 * decoded frame (or the caller's buffer when encoding). */
struct dnet_proto_msg {
	uint16_t type;
	uint16_t flags;         /* DNET_PROTO_F_*: requests only */
	uint32_t id;

	/* HELLO: version, token, node, wid, privileged.
	 * HELLO reply: version, nodes, caps, node, max_payload, and (1.2, to a
	 * client that said 1.2) the cluster id: 0 = not sent. */
	uint16_t ver_major, ver_minor;
	uint32_t node;          /* HELLO, HELLO reply, and every noded request */
	uint8_t wid;            /* 0 or 1 */
	uint8_t privileged;     /* 0 or 1 */
	char token[DNET_PROTO_TOKEN_MAX + 1];
	uint32_t nodes, caps, max_payload;
	uint64_t cluster;

	/* READ, WRITE (width 1/2/4/8/16), READ reply (value only):
	 * val[0] = low 64 bits, val[1] = high 64 bits (width 16). */
	uint32_t off;           /* READ, WRITE, *_BLOCK, CACHE_FLUSH, PREFETCH, WAIT */
	uint8_t width;
	uint64_t val[2];
	uint32_t len;           /* *_BLOCK, CACHE_FLUSH, PREFETCH, SODIMM_* */
	uint64_t addr;          /* SODIMM_* */
	const uint8_t *data;    /* WRITE_BLOCK, SODIMM_WRITE, READ_BLOCK/SODIMM_READ replies,
				 * STAT_NAMES reply (the encoded list) */
	size_t data_len;

	/* WAIT: off, mask, cond, value, timeout_ns.
	 * WAIT reply: timed_out, last, and with a timeout the message in msg. */
	uint64_t mask, value, timeout_ns;
	uint32_t cond;          /* enum dnet_cond */
	uint8_t timed_out;
	uint64_t last;

	uint64_t ns;            /* DELAY request, NOW reply */
	uint8_t busy;           /* BUSY reply */
	uint64_t stat;          /* STAT reply */
	char name[DNET_PROTO_NAME_MAX + 1]; /* STAT, PARAM (empty for LIST) */
	/* PARAM: op, name, and for SET the value in data.  PARAM reply: the
	 * text in data (LIST: "NAME\tTYPE\tFLAGS\tHELP\n" each; GET: the value). */
	uint8_t op;             /* enum dnet_param_op */
	/* PARAM_ALL: nothing.  PARAM_ALL reply: in data, NAME NUL VALUE NUL for
	 * every readable parameter (dnet_param_get_all), count of them. */

	/* STAT_NAMES reply: count names; when encoding, names[0..count).
	 * SYNC reply: count posted requests failed, skipped of them skipped
	 * (F_STOP), since the previous SYNC. */
	uint32_t count, skipped;
	const char *const *names;

	/* ERROR: a positive libdnet error code and its message (msg). */
	uint32_t code;
	char msg[DNET_PROTO_MSG_MAX + 1];
};

enum dnet_param_op { DNET_PARAM_OP_LIST, DNET_PARAM_OP_GET, DNET_PARAM_OP_SET };

/* A growable output buffer. */
struct dnet_pbuf {
	uint8_t *p;
	size_t len, cap;
};
DNET_PROTO_HIDDEN void wire_pbuf_free(struct dnet_pbuf *b);

/* Append one encoded frame of m to b.  Checks what the decoder checks, so a
 * frame that encodes also decodes.  -DNET_EINVAL for an invalid message,
 * -DNET_ENOMEM. */
DNET_PROTO_HIDDEN int wire_encode(struct dnet_pbuf *b, const struct dnet_proto_msg *m,
					struct dnet_err *err);

/* Convenience: an ERROR reply for request id with code and message. */
DNET_PROTO_HIDDEN int wire_encode_error(struct dnet_pbuf *b, uint32_t id, int code,
					      const char *msg, struct dnet_err *err);

/* Look at the start of a receive buffer.  Returns 0 when more bytes are
 * needed, 1 when a whole frame of *frame_len bytes (header included) is
 * there, or -DNET_EPROTO when the header is invalid (oversize length,
 * nonzero flags): the stream cannot be resynchronised, drop it. */
DNET_PROTO_HIDDEN int wire_peek(const uint8_t *buf, size_t have, size_t *frame_len,
				      struct dnet_err *err);

/* Decode the header fields only (buf holds at least DNET_PROTO_HDR_SIZE). */
DNET_PROTO_HIDDEN void wire_header(const uint8_t *buf, uint32_t *len, uint16_t *type,
					 uint16_t *flags, uint32_t *id);

/* Decode and validate one whole frame (header included, len bytes exactly).
 * -DNET_EPROTO with a message naming the problem.  m->type and m->id are
 * filled as soon as the header is readable, so an error reply can echo them. */
DNET_PROTO_HIDDEN int wire_decode(const uint8_t *frame, size_t len,
					struct dnet_proto_msg *m, struct dnet_err *err);

/* Iterate the names of a decoded STAT_NAMES reply: *pos starts at 0.
 * Copies the next name into out (NUL-terminated) and returns 1, or 0 at the
 * end. */
DNET_PROTO_HIDDEN int wire_next_name(const struct dnet_proto_msg *m, size_t *pos,
					   char out[DNET_PROTO_NAME_MAX + 1]);

/* The value of a READ reply or a WRITE (value.c): the width bytes at buf
 * (host-endian, as dnet_read and dnet_write take them; width 1, 2, 4, 8 or
 * 16) into val[0] (the low 64 bits, zero-extended) and val[1] (the high 64
 * bits of a 16-byte value, else 0), and back.  -DNET_EINVAL for any other
 * width, naming it; nothing is written then. */
DNET_PROTO_HIDDEN int wire_val_pack(uint64_t val[2], const void *buf, unsigned width,
					  struct dnet_err *err);
DNET_PROTO_HIDDEN int wire_val_unpack(void *buf, const uint64_t val[2], unsigned width,
					    struct dnet_err *err);

/* Little-endian helpers: dnet/bytes.h. */

/* ---- socket addresses (addr.c) ----
 *   unix:PATH          a UNIX stream socket
 *   tcp:HOST:PORT      TCP; HOST may be [v6addr]; tcp:PORT means 127.0.0.1
 */
struct dnet_sockspec {
	bool tcp;
	char path[108];   /* unix */
	char host[256];   /* tcp */
	char port[8];     /* tcp, decimal */
};
DNET_PROTO_HIDDEN int rmt_sockspec_parse(const char *s, struct dnet_sockspec *a,
					  struct dnet_err *err);
/* Back to text ("unix:/x", "tcp:127.0.0.1:7000", "tcp:[::1]:7000"). */
DNET_PROTO_HIDDEN void rmt_sockspec_format(const struct dnet_sockspec *a, char *buf, size_t len);
/* The default address of dnetd (--listen, --ping) and of "remote:" without
 * one -- the one rule, decision D-DNETD-SOCKET in docs/decisions.md:
 *   1. $DNETD_SOCKET if set and not empty: a socket path, or an address as
 *      above (unix:PATH, tcp:HOST:PORT);
 *   2. unix:$XDG_RUNTIME_DIR/dnetd.sock if that is an absolute directory
 *      (a user's session: the user's own dnetd);
 *   3. for root (uid 0), unix:/run/dnetd/dnetd.sock (DNET_SOCKET_SYSTEM:
 *      the socket of dnetd.service / dnetd.socket; services and sudo have
 *      no XDG_RUNTIME_DIR);
 *   4. unix:/tmp/dnetd-$UID.sock.
 * Returns 0, or -DNET_EINVAL naming DNETD_SOCKET when its value is not an
 * address.  *from (may be NULL) says which rule gave it. */
#define DNET_SOCKET_SYSTEM "/run/dnetd/dnetd.sock"
DNET_PROTO_HIDDEN int rmt_sockspec_default(char *buf, size_t len, const char **from,
					    struct dnet_err *err);
#endif
