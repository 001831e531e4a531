/* dnetd's base: what every room of the server uses and none of them owns --
 * the log, replies (queued on the client's send buffer; srv_conn.c sends
 * them), and pointing the shared device at a client's node.  It calls no
 * other room, so the rooms above it call each other without a cycle. */
#include "remote/dnetd/srv.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "dnet/backend.h"

/* ---- logging ---- */

void srv_log(struct dnet_srv *s, int level, const char *fmt, ...)
{
	if (!s->cfg.log || level > s->cfg.verbose)
		return;
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	s->cfg.log(s->cfg.log_ctx, level, buf);
}

uint64_t srv_sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* ---- replies ---- */

/* Queue a reply; an encoding failure (out of memory) drops the client. */
void srv_reply(struct dnet_srv *s, struct client *c, struct dnet_proto_msg *m)
{
	struct dnet_err e;
	if (wire_encode(&c->io.out, m, &e) != 0) {
		srv_log(s, DNET_SRV_LOG_ERR, "client #%u: cannot encode %s: %s", c->io.serial,
		     wire_type_name(m->type), e.msg);
		c->io.dead = true;
	}
}

void srv_reply_empty(struct dnet_srv *s, struct client *c, uint16_t type, uint32_t id)
{
	struct dnet_proto_msg m;
	memset(&m, 0, sizeof m);
	m.type = (uint16_t)(type | DNET_MSG_REPLY);
	m.id = id;
	srv_reply(s, c, &m);
}

void srv_reply_error(struct dnet_srv *s, struct client *c, uint32_t id, int code, const char *msg)
{
	struct dnet_err e;
	srv_log(s, DNET_SRV_LOG_DEBUG, "client #%u: error reply %s: %s", c->io.serial, dnet_strerror(code < 0 ? -code : code), msg);
	c->post.err_replies++;
	if (wire_encode_error(&c->io.out, id, code, msg, &e) != 0)
		c->io.dead = true;
}

void srv_reply_wait(struct dnet_srv *s, struct client *c, uint32_t id, bool timed_out, uint64_t last,
		       const char *msg)
{
	struct dnet_proto_msg r;
	memset(&r, 0, sizeof r);
	r.type = DNET_MSG_WAIT | DNET_MSG_REPLY;
	r.id = id;
	r.timed_out = timed_out;
	r.last = last;
	if (timed_out)
		snprintf(r.msg, sizeof r.msg, "%s", msg && *msg ? msg : "wait timed out");
	srv_reply(s, c, &r);
}

/* ---- the device ---- */

/* The handle of the client's node (D-NODE-HANDLE): made when the node was
 * taken (the HELLO, or a request naming it: srv_dispatch.c take_node), so
 * it is there. */
struct dnet_dev *srv_dev(struct dnet_srv *s, const struct client *c)
{
	struct dnet_dev *d = dnet_node_dev(s->cfg.dev, c->auth.node, NULL);
	return d ? d : s->cfg.dev;
}
