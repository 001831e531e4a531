/* dnetd's dispatch: a decoded request goes through the checks every request
 * gets (HELLO first, the access check of its type, the node its frame
 * names: D-NODE-HANDLE) to its handler in the table below, indexed by
 * request type like the protocol's own table (proto_types.c), which acts
 * on that node's handle; then its reply, unless posted.
 * client_process turns a client's received bytes into requests. */
#include "remote/dnetd/server_param.h"
#include "remote/dnetd/srv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnet/backend.h"
#include "dnet/map.h"
#include "dnet/regs.h"

/* Requests served per client and loop turn: a client keeping hundreds of
 * reads in flight gets its turn, then the others theirs (8 such clients
 * made another's read wait 21 ms; the rest waits in its buffer). */
#define FRAMES_PER_TURN 32u
/* Posted requests queue no reply, so a client may send many per turn: a
 * script of posted writes goes at the speed of the device, still bounded
 * per turn (frames and bytes) so that the others are served between. */
#define POSTED_PER_TURN       1024u
#define POSTED_BYTES_PER_TURN (1u << 20)
/* A receive buffer grown for large frames is kept while they keep coming
 * (re-growing it per 256 KiB frame cost 18,000 page faults per 256 KiB of
 * writes), and given back after this long without one. */
#define IN_KEEP_NS 1000000000ull
#define TURN_OUT_MAX    (2u << 20) /* reply bytes queued per loop turn, for all clients */

/* ---- the handlers ---- */

static int serve_hello(struct dnet_srv *s, struct client *c, const struct dnet_proto_msg *m,
		       struct dnet_proto_msg *r, uint8_t **hold, struct dnet_err *e)
{
	(void)r, (void)hold, (void)e;
	if (c->auth.hello)
		srv_reply_error(s, c, m->id, DNET_EPROTO, "HELLO sent twice");
	else
		srv_hello(s, c, m);
	return SRV_DONE;
}

static int serve_read(struct dnet_srv *s, struct client *c, const struct dnet_proto_msg *m,
		      struct dnet_proto_msg *r, uint8_t **hold, struct dnet_err *e)
{
	struct dnet_dev *dev = srv_dev(s, c);
	uint64_t buf[2] = {0, 0};
	int rc;
	(void)hold;
	if (m->width == 8 && m->off == DNET_SREG_BASE + DNET_SR_CTL_RESET) {
		/* The client's library sends this read only after its user
		 * confirmed it (dnet_reg_read_effect): the read resets the
		 * controller, on purpose (App. B).  Only a privileged client
		 * gets here: the System Register is, in the table below. */
		const struct dnet_reg *reg = dnet_reg_by_name("ctl_reset");
		rc = reg ? dnet_reg_read_effect(dev, 0, reg, &buf[0], e)
			 : dnet_seterr(e, DNET_EINVAL, "no ctl_reset register");
	} else {
		rc = dnet_read(dev, m->off, buf, m->width, e);
	}
	if (rc)
		return rc;
	r->width = m->width;
	return wire_val_pack(r->val, buf, m->width, e);
}

static int serve_write(struct dnet_srv *s, struct client *c, const struct dnet_proto_msg *m,
		       struct dnet_proto_msg *r, uint8_t **hold, struct dnet_err *e)
{
	uint64_t buf[2];
	(void)r, (void)hold;
	int rc = wire_val_unpack(buf, m->val, m->width, e);
	return rc ? rc : dnet_write(srv_dev(s, c), m->off, buf, m->width, e);
}

/* READ_BLOCK and SODIMM_READ: the data, in a buffer the reply points into. */
static int serve_read_data(struct dnet_srv *s, const struct client *c, const struct dnet_proto_msg *m,
			   struct dnet_proto_msg *r, uint8_t **hold, struct dnet_err *e)
{
	uint8_t *buf = malloc(m->len ? m->len : 1);
	if (!buf)
		return dnet_seterr(e, DNET_ENOMEM, "out of memory");
	*hold = buf;
	r->data = buf;
	r->data_len = m->len;
	if (m->type == DNET_MSG_SODIMM_READ)
		return dnet_sodimm_access(srv_dev(s, c), m->addr, buf, m->len, false, e);
	/* noflush, not dnet_read_block: the client's core already flushed
	 * the cache lines (device.h). */
	return dnet_read_block_noflush(srv_dev(s, c), m->off, buf, m->len, e);
}

static int serve_read_block(struct dnet_srv *s, struct client *c, const struct dnet_proto_msg *m,
			    struct dnet_proto_msg *r, uint8_t **hold, struct dnet_err *e)
{
	return serve_read_data(s, c, m, r, hold, e);
}

static int serve_write_block(struct dnet_srv *s, struct client *c, const struct dnet_proto_msg *m,
			     struct dnet_proto_msg *r, uint8_t **hold, struct dnet_err *e)
{
	(void)r, (void)hold;
	return dnet_write_block_noflush(srv_dev(s, c), m->off, m->data, m->len, e);
}

static int serve_wc_flush(struct dnet_srv *s, struct client *c, const struct dnet_proto_msg *m,
			  struct dnet_proto_msg *r, uint8_t **hold, struct dnet_err *e)
{
	(void)m, (void)r, (void)hold;
	return dnet_wc_flush(srv_dev(s, c), e);
}

static int serve_cache_flush(struct dnet_srv *s, struct client *c, const struct dnet_proto_msg *m,
			     struct dnet_proto_msg *r, uint8_t **hold, struct dnet_err *e)
{
	(void)r, (void)hold;
	return dnet_cache_flush(srv_dev(s, c), m->off, m->len, e);
}

static int serve_prefetch(struct dnet_srv *s, struct client *c, const struct dnet_proto_msg *m,
			  struct dnet_proto_msg *r, uint8_t **hold, struct dnet_err *e)
{
	(void)r, (void)hold;
	return dnet_prefetch(srv_dev(s, c), m->off, m->len, e);
}

static int serve_now(struct dnet_srv *s, struct client *c, const struct dnet_proto_msg *m,
		     struct dnet_proto_msg *r, uint8_t **hold, struct dnet_err *e)
{
	(void)m, (void)hold;
	return dnet_now(srv_dev(s, c), &r->ns, e);
}

static int serve_busy(struct dnet_srv *s, struct client *c, const struct dnet_proto_msg *m,
		      struct dnet_proto_msg *r, uint8_t **hold, struct dnet_err *e)
{
	bool busy = false;
	(void)m, (void)hold;
	int rc = dnet_busy(srv_dev(s, c), &busy, e);
	r->busy = busy;
	return rc;
}

static int serve_sodimm_read(struct dnet_srv *s, struct client *c, const struct dnet_proto_msg *m,
			     struct dnet_proto_msg *r, uint8_t **hold, struct dnet_err *e)
{
	return serve_read_data(s, c, m, r, hold, e);
}

static int serve_sodimm_write(struct dnet_srv *s, struct client *c, const struct dnet_proto_msg *m,
			      struct dnet_proto_msg *r, uint8_t **hold, struct dnet_err *e)
{
	(void)r, (void)hold;
	return dnet_sodimm_access(srv_dev(s, c), m->addr, (void *)(uintptr_t)m->data, m->len, true, e);
}

static int serve_stat(struct dnet_srv *s, struct client *c, const struct dnet_proto_msg *m,
		      struct dnet_proto_msg *r, uint8_t **hold, struct dnet_err *e)
{
	(void)hold;
	return dnet_stat(srv_dev(s, c), m->name, &r->stat, e);
}

static int serve_stat_names(struct dnet_srv *s, struct client *c, const struct dnet_proto_msg *m,
			    struct dnet_proto_msg *r, uint8_t **hold, struct dnet_err *e)
{
	(void)c, (void)m, (void)hold, (void)e;
	const char *const *names = dnet_stat_names(s->cfg.dev);
	uint32_t n = 0;
	while (names && names[n] && n < DNET_PROTO_NAMES_MAX)
		n++;
	r->names = names;
	r->count = n;
	return 0;
}

/* Every request before it is done (served in order): say how many posted
 * ones failed, and start counting afresh. */
static int serve_sync(struct dnet_srv *s, struct client *c, const struct dnet_proto_msg *m,
		      struct dnet_proto_msg *r, uint8_t **hold, struct dnet_err *e)
{
	(void)s, (void)m, (void)hold, (void)e;
	r->count = c->post.failed;
	r->skipped = c->post.skipped;
	c->post.failed = c->post.skipped = 0;
	return 0;
}

/* Backend parameters (1.3): list, get, and for a privileged client set. */
static int serve_param(struct dnet_srv *s, struct client *c, const struct dnet_proto_msg *m,
		       struct dnet_proto_msg *r, uint8_t **hold, struct dnet_err *e)
{
	char *text = NULL;
	(void)c;
	int rc = srv_param(s->cfg.dev, m, &text, &r->data_len, e);
	*hold = (uint8_t *)text;
	r->data = (const uint8_t *)text;
	return rc;
}

/* Every readable parameter at once: one request where PARAM GET is one a
 * parameter (dsh's fault). */
static int serve_param_all(struct dnet_srv *s, struct client *c, const struct dnet_proto_msg *m,
			   struct dnet_proto_msg *r, uint8_t **hold, struct dnet_err *e)
{
	(void)c, (void)m;
	char *pairs = NULL;
	int rc = srv_param_all(s->cfg.dev, &pairs, &r->data_len, e);
	*hold = (uint8_t *)pairs;
	r->data = (const uint8_t *)pairs;
	return rc;
}

/* ---- the table ---- */

/* The privilege column (decision D-DNETD-PRIV): what a user client may not
 * do with a request, every such decision of dnetd written here once and
 * applied by check() before the handler; a privileged client may do all.
 *   CHK_NONE        any client, any request of the type
 *   CHK_WIDTH, CHK_LEN, CHK_WORD  a user only its own WID's pages, never
 *                   the System Register (srv_check_access): the bytes at
 *                   off of the width, of len, the 8-byte word a WAIT reads
 *   CHK_BACKDOOR    privileged clients only (the SO-DIMM backdoor)
 *   CHK_PARAM_SET   a user may list and read parameters, not set them
 *                   (they change the cluster every client shares) */
enum srv_check { CHK_NONE, CHK_WIDTH, CHK_LEN, CHK_WORD, CHK_BACKDOOR, CHK_PARAM_SET };

struct srv_request {
	srv_handler serve;
	enum srv_check check;
	bool unordered;  /* lockstep: served at once, not in virtual-time order */
};

static const struct srv_request requests[] = {
	[DNET_MSG_HELLO]        = { serve_hello, CHK_NONE, true },
	[DNET_MSG_READ]         = { serve_read, CHK_WIDTH, false },
	[DNET_MSG_WRITE]        = { serve_write, CHK_WIDTH, false },
	[DNET_MSG_READ_BLOCK]   = { serve_read_block, CHK_LEN, false },
	[DNET_MSG_WRITE_BLOCK]  = { serve_write_block, CHK_LEN, false },
	[DNET_MSG_WC_FLUSH]     = { serve_wc_flush, CHK_NONE, false },
	[DNET_MSG_CACHE_FLUSH]  = { serve_cache_flush, CHK_LEN, false },
	[DNET_MSG_PREFETCH]     = { serve_prefetch, CHK_LEN, false },
	/* 0x0009 (SET_NODE of 1.x) is no request: the node is in each frame */
	[DNET_MSG_WAIT]         = { srv_wait_start, CHK_WORD, false },
	[DNET_MSG_DELAY]        = { srv_delay_start, CHK_NONE, false },
	[DNET_MSG_NOW]          = { serve_now, CHK_NONE, true },
	[DNET_MSG_BUSY]         = { serve_busy, CHK_NONE, false },
	[DNET_MSG_SODIMM_READ]  = { serve_sodimm_read, CHK_BACKDOOR, false },
	[DNET_MSG_SODIMM_WRITE] = { serve_sodimm_write, CHK_BACKDOOR, false },
	[DNET_MSG_STAT]         = { serve_stat, CHK_NONE, true },
	[DNET_MSG_STAT_NAMES]   = { serve_stat_names, CHK_NONE, true },
	[DNET_MSG_SYNC]         = { serve_sync, CHK_NONE, true },
	[DNET_MSG_PARAM]        = { serve_param, CHK_PARAM_SET, true },
	[DNET_MSG_PARAM_ALL]    = { serve_param_all, CHK_NONE, true },
};
/* A request type added to the protocol (DNET_MSG_REQ_LAST moves) needs
 * its entry here; a hole is caught by test_remote_e2e (srv_serves). */
_Static_assert(sizeof requests / sizeof requests[0] == DNET_MSG_REQ_LAST + 1,
	       "dnetd's dispatch table: one entry per request type");

bool srv_serves(uint16_t type)
{
	return wire_is_request(type) && requests[type].serve != NULL;
}

bool srv_user_restricted(uint16_t type)
{
	return srv_serves(type) && requests[type].check != CHK_NONE;
}

static bool type_ordered(uint16_t type)
{
	return !wire_is_request(type) || !requests[type].unordered;
}

/* Lockstep: the requests that act on the device or on a host's clock are
 * served in virtual-time order; the others (HELLO, PING-like queries,
 * node selection, statistics, the clock) at once. */
bool srv_ls_ordered(const struct dnet_srv *s, const struct client *c, uint16_t type)
{
	return s->cfg.lockstep && c->auth.hello && type_ordered(type);
}

/* Permission first: the device never sees a forbidden access.  The
 * privilege column, applied: nothing is refused a privileged client. */
static int check(const struct client *c, const struct srv_request *q, const struct dnet_proto_msg *m,
		 char *msg, size_t msz)
{
	if (c->auth.privileged)
		return 0;
	switch (q->check) {
	case CHK_WIDTH:
		return srv_check_access(c, m->off, m->width, msg, msz);
	case CHK_LEN:
		return srv_check_access(c, m->off, m->len, msg, msz);
	case CHK_WORD:
		return srv_check_access(c, m->off, 8, msg, msz);
	case CHK_BACKDOOR:
		snprintf(msg, msz, "permission denied: the SO-DIMM backdoor is for privileged clients only");
		return -DNET_EPERM;
	case CHK_PARAM_SET:
		if (m->op != DNET_PARAM_OP_SET)
			return 0;
		snprintf(msg, msz, "permission denied: setting parameter '%s' is for privileged clients only "
			 "(this client is a user)", m->name);
		return -DNET_EPERM;
	default:
		return 0;
	}
}

/* The node a request names: one that exists and is granted (a confined
 * client's grant, D-DNETD-PRIV) becomes the client's node for it. */
static int take_node(struct dnet_srv *s, struct client *c, unsigned node, struct dnet_err *e)
{
	unsigned nodes = dnet_node_count(s->cfg.dev);
	if (node > nodes)
		return dnet_seterr(e, DNET_EINVAL, "node %u does not exist (nodes 1..%u)", node, nodes);
	if (!srv_grant_allows(c, node, c->auth.wid)) {
		char what[120];
		return dnet_seterr(e, DNET_EPERM, "permission denied: node %u WID %u is not granted to this "
				   "client (it may use %s)", node, c->auth.wid, srv_grant_text(c, what, sizeof what));
	}
	if (!dnet_node_dev(s->cfg.dev, node, e))
		return -DNET_ENOMEM;
	c->auth.node = node;
	return 0;
}

static void do_request(struct dnet_srv *s, struct client *c, const struct dnet_proto_msg *m)
{
	const struct srv_request *q = srv_serves(m->type) ? &requests[m->type] : NULL;
	struct dnet_err e;
	struct dnet_proto_msg r;
	char msg[256];
	uint8_t *hold = NULL;
	int rc = 0;

	dnet_clearerr(&e);
	memset(&r, 0, sizeof r);
	r.type = (uint16_t)(m->type | DNET_MSG_REPLY);
	r.id = m->id;

	if (m->type == DNET_MSG_HELLO) {
		q->serve(s, c, m, &r, &hold, &e);
		return;
	}
	if (!c->auth.hello) {
		snprintf(msg, sizeof msg, "HELLO expected before %s", wire_type_name(m->type));
		srv_reply_error(s, c, m->id, DNET_EPROTO, msg);
		c->io.closing = true;
		return;
	}
	if (q && (rc = check(c, q, m, msg, sizeof msg))) {
		srv_log(s, DNET_SRV_LOG_INFO, "client #%u: %s", c->io.serial, msg);
		srv_reply_error(s, c, m->id, rc, msg);
		return;
	}
	if (!q)
		rc = dnet_seterr(&e, DNET_EPROTO, "unexpected %s", wire_type_name(m->type));
	else if (wire_noded(m->type))
		rc = take_node(s, c, m->node, &e);
	if (rc == 0)
		rc = q->serve(s, c, m, &r, &hold, &e);
	if (rc == SRV_DONE)
		return;
	if (rc) {
		if (!e.msg[0])
			snprintf(e.msg, sizeof e.msg, "%s failed (%s)", wire_type_name(m->type),
				 dnet_strerror(-rc));
		srv_reply_error(s, c, m->id, rc, e.msg);
	} else if (!(m->flags & DNET_PROTO_F_POSTED)) {
		srv_reply(s, c, &r);
	}
	free(hold);
}

/* A posted request: skipped when it asks to stop after a failure and one
 * happened; otherwise served, and answered only if it fails. */
static void do_posted(struct dnet_srv *s, struct client *c, const struct dnet_proto_msg *m)
{
	if ((m->flags & DNET_PROTO_F_STOP) && c->post.failed) {
		c->post.failed++;
		c->post.skipped++;
		return;
	}
	unsigned before = c->post.err_replies;
	c->post.posted = true;
	do_request(s, c, m);
	if (c->post.err_replies != before)
		c->post.failed++;
	if (c->wait.kind == P_NONE)
		c->post.posted = false;
}

void srv_client_process(struct dnet_srv *s, struct client *c)
{
	size_t pos = 0, pbytes = 0;
	unsigned done = 0, posted = 0;
	/* One request per turn always; more while this turn has queued less
	 * than TURN_OUT_MAX bytes of replies and all clients less than
	 * OUT_TOTAL_HIGH (60 clients pipelining 256 KiB reads they never
	 * collect used to queue 60 MB in one turn, 341 ms for the others). */
	while (!c->io.dead && !c->io.closing && c->wait.kind == P_NONE && srv_out_pending(c) < OUT_HIGH &&
	       (done + posted == 0 ||
		(done < FRAMES_PER_TURN && posted < POSTED_PER_TURN && pbytes < POSTED_BYTES_PER_TURN &&
		 s->turn_out < TURN_OUT_MAX && s->out_total + s->turn_out < OUT_TOTAL_HIGH))) {
		size_t before = srv_out_pending(c);
		size_t flen = 0;
		struct dnet_err e;
		dnet_clearerr(&e);
		int pk = wire_peek(c->io.in + pos, c->io.in_len - pos, &flen, &e);
		if (pk == 0)
			break;
		if (pk < 0) {
			/* The length cannot be trusted: say why and hang up. */
			uint32_t len, id;
			uint16_t type, flags;
			wire_header(c->io.in + pos, &len, &type, &flags, &id);
			srv_log(s, DNET_SRV_LOG_INFO, "client #%u: %s; disconnecting", c->io.serial, e.msg);
			srv_reply_error(s, c, id, DNET_EPROTO, e.msg);
			c->io.closing = true;
			break;
		}
		{
			uint32_t len, id;
			uint16_t type, flags;
			wire_header(c->io.in + pos, &len, &type, &flags, &id);
			if (srv_ls_ordered(s, c, type)) {
				/* the node it will act on is brought up to its clock
				 * (ls_node_sync) before it goes: take it now (one
				 * that is refused is refused when served) */
				unsigned fnode = wire_frame_node(c->io.in + pos, flen);
				struct dnet_err ne;
				if (fnode)
					(void)take_node(s, c, fnode, &ne);
				if (!c->ls.home)
					c->ls.home = c->auth.node; /* the node of its first device request */
				if (!c->ls.go) {
					c->ls.ready = true; /* lockstep_run lets it through */
					break;
				}
				c->ls.go = false;
				c->ls.ready = false;
			}
		}
		struct dnet_proto_msg m;
		int rc = wire_decode(c->io.in + pos, flen, &m, &e);
		if (rc == 0 && !wire_is_request(m.type))
			rc = dnet_seterr(&e, DNET_EPROTO, "%s is not a request", wire_type_name(m.type));
		if (rc) {
			done++;
			srv_log(s, DNET_SRV_LOG_INFO, "client #%u: malformed frame: %s", c->io.serial, e.msg);
			srv_reply_error(s, c, m.id, DNET_EPROTO, e.msg);
			if (!c->auth.hello)
				c->io.closing = true;
		} else {
			srv_log(s, DNET_SRV_LOG_DEBUG, "client #%u: %s id %u", c->io.serial,
			     wire_type_name(m.type), m.id);
			c->io.active_ns = dnet_mono_ns();
			bool ordered = srv_ls_ordered(s, c, m.type);
			if (m.flags & DNET_PROTO_F_POSTED) {
				posted++;
				pbytes += flen;
				do_posted(s, c, &m);
			} else {
				done++;
				do_request(s, c, &m);
			}
			if (ordered)
				srv_ls_clock_update(s, c);
		}
		if (srv_out_pending(c) > before)
			s->turn_out += srv_out_pending(c) - before;
		pos += flen;
	}
	if (pos) {
		memmove(c->io.in, c->io.in + pos, c->io.in_len - pos);
		c->io.in_len -= pos;
	}
	if (c->io.eof && c->wait.kind == P_NONE && !c->io.dead && !c->io.closing) {
		size_t need = 0;
		if (wire_peek(c->io.in, c->io.in_len, &need, NULL) == 0)
			c->io.closing = true; /* nothing whole left to answer */
	}
	/* Give back a large buffer once large frames have stopped coming. */
	if (c->io.in_cap > IN_INIT && c->io.in_len <= IN_INIT && dnet_mono_ns() - c->io.in_big_ns > IN_KEEP_NS) {
		uint8_t *p = realloc(c->io.in, IN_INIT);
		if (p) {
			c->io.in = p;
			c->io.in_cap = IN_INIT;
		}
	}
}
