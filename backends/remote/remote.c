/* Backend `remote`: a client of dnetd (docs/protocol.md, man/dnetd.8).
 *
 *   remote:unix:PATH[,OPTIONS]   remote:tcp:HOST:PORT[,OPTIONS]
 *   OPTIONS: node=N  wid=0|1  user  privileged  token=T  timeout=DUR
 *
 * The token defaults to $DNET_TOKEN.  timeout bounds each socket exchange
 * (a duration as every program reads it, D-DURATION: 5s, 500ms; at least
 * 1ms, kept in whole ms; 0 = no limit); waits and delays add their own duration to it.  A frame
 * that cannot be sent or received whole leaves the stream out of step, so
 * after such a failure every later call fails with DNET_EIO.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "dnet/backend.h"
#include "dnet/parse.h"
#include "remote/rmt.h"

#define DEFAULT_TIMEOUT_MS 30000u
#define MAX_OPTS 16

/* A request of the handle dev: the frame names its node (D-NODE-HANDLE;
 * the types that act on no node ignore it). */
static void msg_init(struct dnet_proto_msg *m, const struct dnet_dev *dev, uint16_t type)
{
	memset(m, 0, sizeof *m);
	m->type = type;
	m->node = dev ? dev->node : 0;
}

static void remote_free(struct remote *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	wire_pbuf_free(&r->out);
	free(r->in);
	free(r->perr);
	if (r->names) {
		for (char **p = r->names; *p; p++)
			free(*p);
		free(r->names);
	}
	free(r->params);
	free(r->params_text);
	free(r);
}

/* timeout=DUR: the one duration grammar (dnet_parse_duration), at most a
 * day, kept in whole ms (what poll takes); 0 is no limit. */
static int parse_timeout(const char *s, uint64_t *ms, struct dnet_err *err)
{
	uint64_t ns;
	int rc = dnet_parse_duration(s, &ns, "remote: timeout", err);
	if (rc)
		return rc;
	if (ns && ns < 1000000u)
		return dnet_seterr(err, DNET_EINVAL, "remote: timeout: '%s' is below 1ms", s);
	if (ns > 86400000000000ull)
		return dnet_seterr(err, DNET_ERANGE, "remote: timeout: '%s' out of range (max 24h)", s);
	*ms = ns / 1000000u;
	return 0;
}

static int remote_open(struct dnet_dev *dev, const char *args, struct dnet_err *err)
{
	char addr[DNET_SPEC_MAX];
	const char *opts = "";
	const char *comma = strchr(args, ',');
	size_t alen = comma ? (size_t)(comma - args) : strlen(args);
	if (alen >= sizeof addr)
		return dnet_seterr(err, DNET_EINVAL, "remote: address too long");
	memcpy(addr, args, alen);
	addr[alen] = 0;
	if (comma)
		opts = comma + 1;
	int rc0;
	if (!*addr && (rc0 = rmt_sockspec_default(addr, sizeof addr, NULL, err)))
		return rc0; /* where a plain `dnetd` listens (D-DNETD-SOCKET) */

	struct dnet_sockspec sa;
	int rc = rmt_sockspec_parse(addr, &sa, err);
	if (rc)
		return rc;

	uint64_t node = 1, wid = 0, timeout_ms = DEFAULT_TIMEOUT_MS;
	bool privileged = true, anypeer = false;
	const char *token = getenv("DNET_TOKEN");
	struct dnet_kv kv[MAX_OPTS];
	unsigned nkv = 0;
	if (*opts && (rc = core_kv_split(opts, kv, MAX_OPTS, &nkv, err)))
		return rc;
	for (unsigned i = 0; i < nkv; i++) {
		const char *k = kv[i].key;
		bool flag = !kv[i].has_val;
		if (strcmp(k, "node") == 0 && !flag)
			rc = dnet_parse_u64(kv[i].val, 0xffffffffu, &node, "node", err);
		else if (strcmp(k, "wid") == 0 && !flag)
			rc = dnet_parse_u64(kv[i].val, 1, &wid, "wid", err);
		else if (strcmp(k, "timeout") == 0 && !flag)
			rc = parse_timeout(kv[i].val, &timeout_ms, err);
		else if (strcmp(k, "token") == 0 && !flag)
			token = kv[i].val;
		else if (strcmp(k, "user") == 0 && flag)
			privileged = false;
		else if (strcmp(k, "privileged") == 0 && flag)
			privileged = true;
		else if (strcmp(k, "anypeer") == 0 && flag)
			anypeer = true;
		else
			rc = dnet_seterr(err, DNET_EINVAL, "remote: bad option \"%s%s%s\" (node=N, wid=0|1, "
					 "user, privileged, token=T, timeout=DUR, anypeer)", k, flag ? "" : "=",
					 flag ? "" : kv[i].val);
		if (rc)
			return rc;
	}
	if (node < 1)
		return dnet_seterr(err, DNET_EINVAL, "remote: nodes are numbered from 1");
	if (token && strlen(token) > DNET_PROTO_TOKEN_MAX)
		return dnet_seterr(err, DNET_EINVAL, "remote: token longer than %u bytes", DNET_PROTO_TOKEN_MAX);

	struct remote *r = calloc(1, sizeof *r);
	if (!r)
		return dnet_seterr(err, DNET_ENOMEM, "out of memory");
	r->fd = -1;
	r->timeout_ns = timeout_ms * 1000000ull;
	rmt_sockspec_format(&sa, r->addr, sizeof r->addr);
	if ((rc = rmt_connect_to(r, &sa, err))) {
		remote_free(r);
		return rc;
	}
	/* The token goes only to a daemon run by root or by us: whoever owns
	 * the socket (a planted /tmp socket) would otherwise receive it. */
	if (!sa.tcp && token && *token && !anypeer) {
		struct ucred cr;
		socklen_t cl = sizeof cr;
		if (getsockopt(r->fd, SOL_SOCKET, SO_PEERCRED, &cr, &cl) != 0 ||
		    (cr.uid != 0 && cr.uid != getuid())) {
			long pu = cl == sizeof cr ? (long)cr.uid : -1;
			remote_free(r);
			return dnet_seterr(err, DNET_EPERM,
					   "remote: %s is served by uid %ld, not root or you (uid %ld): the token is "
					   "not sent (add ,anypeer to trust that daemon)", addr, pu, (long)getuid());
		}
	}

	struct dnet_proto_msg req, rep;
	msg_init(&req, NULL, DNET_MSG_HELLO);
	req.ver_major = DNET_PROTO_VERSION_MAJOR;
	req.ver_minor = DNET_PROTO_VERSION_MINOR;
	req.node = (uint32_t)node;
	req.wid = (uint8_t)wid;
	req.privileged = privileged;
	if (token)
		snprintf(req.token, sizeof req.token, "%s", token);
	rc = rmt_rpc(r, &req, &rep, 0, err);
	if (rc) {
		/* Say who refused. */
		if (err && !r->broken) {
			char m[DNET_ERR_MSG_MAX];
			snprintf(m, sizeof m, "%s", err->msg);
			dnet_seterr(err, -rc, "dnetd at %s refused the connection: %s", r->addr, m);
		}
		remote_free(r);
		return rc;
	}
	if (rep.ver_major != DNET_PROTO_VERSION_MAJOR) {
		dnet_seterr(err, DNET_EPROTO, "dnetd at %s speaks protocol %u.%u, this client %u.%u",
			    r->addr, rep.ver_major, rep.ver_minor, DNET_PROTO_VERSION_MAJOR,
			    DNET_PROTO_VERSION_MINOR);
		remote_free(r);
		return -DNET_EPROTO;
	}
	r->can_post = true; /* 2.0 has everything of 1.3: posting, the cluster id, PARAM */
	dev->cluster = rep.cluster;
	dev->priv = r;
	r->dev = dev;
	dev->nodes = rep.nodes;
	dev->node = rep.node;
	dev->caps = rep.caps | DNET_CAP_REMOTE;
	if (!privileged)
		dev->caps &= ~(DNET_CAP_PRIVILEGED | DNET_CAP_BACKDOOR);
	return 0;
}

static void remote_close(struct dnet_dev *dev)
{
	struct remote *r = dev->priv;
	/* Posted requests still queued here go out: the daemon serves what
	 * a connection sent before it closed.  Their failures are lost with
	 * the connection (dnet_sync first to see them). */
	if (r && r->out.len && !r->broken) {
		struct dnet_err e;
		rmt_flush_out(r, dnet_mono_ns() + 1000000000ull, &e);
	}
	remote_free(dev->priv);
	dev->priv = NULL;
}

/* ---- accesses ---- */

static int remote_read(struct dnet_dev *dev, uint32_t off, void *buf, unsigned width,
		       struct dnet_err *err)
{
	struct dnet_proto_msg req, rep;
	msg_init(&req, dev, DNET_MSG_READ);
	req.off = off;
	req.width = (uint8_t)width;
	int rc = rmt_rpc(dev->priv, &req, &rep, 0, err);
	if (rc)
		return rc;
	if (rep.width != width)
		return dnet_seterr(err, DNET_EPROTO, "READ reply of %u bytes for a %u-byte read", rep.width, width);
	return wire_val_unpack(buf, rep.val, width, err);
}

static int remote_write(struct dnet_dev *dev, uint32_t off, const void *buf, unsigned width,
			struct dnet_err *err)
{
	struct dnet_proto_msg req, rep;
	msg_init(&req, dev, DNET_MSG_WRITE);
	req.off = off;
	req.width = (uint8_t)width;
	int rc = wire_val_pack(req.val, buf, width, err);
	if (rc)
		return rc;
	if (rmt_posting(dev))
		return rmt_post(dev, &req, dev->root->posted == DNET_POST_STOP, err);
	return rmt_rpc(dev->priv, &req, &rep, 0, err);
}

/* Block reads: every frame's request goes out at once, then the replies
 * are read in order: one round trip for the whole block. */
static int read_parts(struct dnet_dev *dev, uint16_t type, uint64_t at, void *buf, size_t len,
		      struct dnet_err *err)
{
	struct remote *r = dev->priv;
	uint8_t *p = buf;
	size_t nreq = len ? (len + DNET_PROTO_MAX_DATA - 1) / DNET_PROTO_MAX_DATA : 1;
	if (nreq == 1) {
		struct dnet_proto_msg req, rep;
		msg_init(&req, dev, type);
		if (type == DNET_MSG_SODIMM_READ)
			req.addr = at;
		else
			req.off = (uint32_t)at;
		req.len = (uint32_t)len;
		int rc = rmt_rpc(r, &req, &rep, 0, err);
		if (rc)
			return rc;
		if (rep.data_len != len)
			return dnet_seterr(err, DNET_EPROTO, "%s of %zu bytes, %zu asked",
					   wire_type_name(rep.type), rep.data_len, len);
		if (len)
			memcpy(p, rep.data, len);
		return 0;
	}
	if (r->broken)
		return dnet_seterr(err, DNET_EIO, "dnetd at %s: connection unusable (%s)", r->addr,
				   r->broken_why);
	uint32_t first = r->next_id + 1;
	for (size_t i = 0, done = 0; i < nreq; i++) {
		struct dnet_proto_msg req;
		size_t n = len - done > DNET_PROTO_MAX_DATA ? DNET_PROTO_MAX_DATA : len - done;
		msg_init(&req, dev, type);
		if (type == DNET_MSG_SODIMM_READ)
			req.addr = at + done;
		else
			req.off = (uint32_t)(at + done);
		req.len = (uint32_t)n;
		req.id = ++r->next_id;
		int rc = wire_encode(&r->out, &req, err);
		if (rc)
			return rc;
		done += n;
	}
	uint64_t deadline = r->timeout_ns ? dnet_mono_ns() + r->timeout_ns : 0;
	int rc = rmt_flush_out(r, deadline, err), first_rc = 0;
	if (rc)
		return rc == -EPIPE ? rmt_broken(r, err, DNET_EIO, "%s", "the daemon closed the connection") : rc;
	struct dnet_err e0;
	dnet_clearerr(&e0);
	for (size_t i = 0, done = 0; i < nreq;) {
		struct dnet_proto_msg rep;
		if ((rc = rmt_next_frame(r, &rep, deadline, err)))
			return rc;
		if (rep.type == DNET_MSG_ERROR && rmt_is_posted_id(r, rep.id, first)) {
			rmt_keep_posted_error(r, &rep);
			continue;
		}
		size_t n = len - done > DNET_PROTO_MAX_DATA ? DNET_PROTO_MAX_DATA : len - done;
		if (rep.id != first + (uint32_t)i)
			return rmt_broken(r, err, DNET_EPROTO, "%s", "reply to another request (id mismatch)");
		if (rep.type == DNET_MSG_ERROR) {
			if (!first_rc)
				first_rc = dnet_seterr(&e0, (int)rep.code, "%s", rep.msg);
		} else if (rep.type != (type | DNET_MSG_REPLY)) {
			return rmt_broken(r, err, DNET_EPROTO, "unexpected %s", wire_type_name(rep.type));
		} else if (rep.data_len != n) {
			return rmt_broken(r, err, DNET_EPROTO, "%s", "a block reply of another length than asked");
		} else {
			memcpy(p + done, rep.data, n);
		}
		done += n;
		i++;
	}
	if (first_rc && err)
		*err = e0;
	return first_rc;
}

/* Block writes: frames of at most DNET_PROTO_MAX_DATA (send_part). */
static int write_parts(struct dnet_dev *dev, uint16_t type, uint64_t at, const void *buf, size_t len,
		       struct dnet_err *err)
{
	const uint8_t *p = buf;
	size_t done = 0;
	do {
		size_t n = len - done > DNET_PROTO_MAX_DATA ? DNET_PROTO_MAX_DATA : len - done;
		struct dnet_proto_msg req;
		msg_init(&req, dev, type);
		if (type == DNET_MSG_SODIMM_WRITE)
			req.addr = at + done;
		else
			req.off = (uint32_t)(at + done);
		req.len = (uint32_t)n;
		req.data = p + done;
		req.data_len = n;
		done += n;
		int rc = rmt_send_part(dev, &req, done < len, err);
		if (rc)
			return rc;
	} while (done < len);
	return 0;
}

static int remote_read_block(struct dnet_dev *dev, uint32_t off, void *buf, size_t len,
			     struct dnet_err *err)
{
	return read_parts(dev, DNET_MSG_READ_BLOCK, off, buf, len, err);
}

/* dnet_read_blocks: READ_BLOCK frames (a read over DNET_PROTO_MAX_DATA in
 * several) sent without waiting, at most RD_WINDOW unanswered at a time so
 * that the requests always fit the socket buffers while the daemon, its
 * output full, stops reading; the replies come in order and are copied to
 * their reads.  A break fails every read not yet answered. */
#define RD_WINDOW 64u

/* A cursor over the frames of the reads still to do (rc 0, len > 0). */
struct rd_cur { size_t i, done; };

static bool rd_next(const struct dnet_read_req *reqs, size_t n, struct rd_cur *c, size_t *len)
{
	while (c->i < n && (reqs[c->i].rc || c->done >= reqs[c->i].len))
		c->i++, c->done = 0; /* refused, empty or done with */
	if (c->i >= n)
		return false;
	size_t left = reqs[c->i].len - c->done;
	*len = left > DNET_PROTO_MAX_DATA ? DNET_PROTO_MAX_DATA : left;
	return true;
}

static int remote_read_blocks(struct dnet_dev *dev, struct dnet_read_req *reqs, size_t n,
			      struct dnet_err *err)
{
	struct remote *r = dev->priv;
	/* failed[i]: read i had an ERROR (its rc is set once all its frames came) */
	int *failed = calloc(n ? n : 1, sizeof *failed);
	if (!failed)
		return dnet_seterr(err, DNET_ENOMEM, "out of memory for %zu block reads", n);
	struct rd_cur snd = { 0, 0 }, rcv = { 0, 0 };
	struct dnet_err e0;
	int first_rc = 0, rc = 0;
	uint32_t first = r->next_id + 1, expect = first, inflight = 0;
	if (r->broken)
		rc = dnet_seterr(err, DNET_EIO, "dnetd at %s: connection unusable (%s)", r->addr, r->broken_why);
	size_t flen, rlen;
	while (!rc && rd_next(reqs, n, &rcv, &rlen)) {
		/* Top the window up once half of it is answered: one send per half window. */
		if (inflight <= RD_WINDOW / 2) {
			while (inflight < RD_WINDOW && rd_next(reqs, n, &snd, &flen)) {
				struct dnet_proto_msg req;
				msg_init(&req, dev, DNET_MSG_READ_BLOCK);
				req.off = reqs[snd.i].off + (uint32_t)snd.done;
				req.len = (uint32_t)flen;
				req.id = ++r->next_id;
				if ((rc = wire_encode(&r->out, &req, err)))
					break;
				snd.done += flen;
				inflight++;
			}
			uint64_t deadline = r->timeout_ns ? dnet_mono_ns() + r->timeout_ns : 0;
			if (!rc && (rc = rmt_flush_out(r, deadline, err)) == -EPIPE)
				rc = rmt_broken(r, err, DNET_EIO, "%s", "the daemon closed the connection");
			if (rc)
				break;
		}
		struct dnet_proto_msg rep;
		uint64_t deadline = r->timeout_ns ? dnet_mono_ns() + r->timeout_ns : 0;
		if ((rc = rmt_next_frame(r, &rep, deadline, err)))
			break;
		if (rep.type == DNET_MSG_ERROR && rmt_is_posted_id(r, rep.id, first)) {
			rmt_keep_posted_error(r, &rep);
			continue;
		}
		if (rep.id != expect) {
			rc = rmt_broken(r, err, DNET_EPROTO, "%s", "reply to another request (id mismatch)");
			break;
		}
		struct dnet_read_req *q = &reqs[rcv.i];
		if (rep.type == DNET_MSG_ERROR) {
			if (!failed[rcv.i])
				failed[rcv.i] = -(int)rep.code;
			if (!first_rc)
				first_rc = dnet_seterr(&e0, (int)rep.code, "%s", rep.msg);
		} else if (rep.type != (DNET_MSG_READ_BLOCK | DNET_MSG_REPLY)) {
			rc = rmt_broken(r, err, DNET_EPROTO, "unexpected %s", wire_type_name(rep.type));
			break;
		} else if (rep.data_len != rlen) {
			rc = rmt_broken(r, err, DNET_EPROTO, "%s", "a block reply of another length than asked");
			break;
		} else {
			memcpy((uint8_t *)q->buf + rcv.done, rep.data, rlen);
		}
		expect++;
		inflight--;
		rcv.done += rlen;
		if (rcv.done == q->len && failed[rcv.i])
			q->rc = failed[rcv.i];
	}
	if (rc) /* the reads not answered (wholly) fail with the connection */
		for (size_t i = rcv.i; i < n; i++)
			if (!reqs[i].rc && reqs[i].len)
				reqs[i].rc = rc;
	free(failed);
	if (!first_rc)
		return rc;
	if (err) /* an ERROR came before the break: its read is the first to fail */
		*err = e0;
	return first_rc;
}

static int remote_write_block(struct dnet_dev *dev, uint32_t off, const void *buf, size_t len,
			      struct dnet_err *err)
{
	return write_parts(dev, DNET_MSG_WRITE_BLOCK, off, buf, len, err);
}

static int simple(struct dnet_dev *dev, uint16_t type, struct dnet_proto_msg *rep, struct dnet_err *err)
{
	struct dnet_proto_msg req;
	msg_init(&req, dev, type);
	return rmt_rpc(dev->priv, &req, rep, 0, err);
}

static int remote_wc_flush(struct dnet_dev *dev, struct dnet_err *err)
{
	struct dnet_proto_msg req;
	msg_init(&req, dev, DNET_MSG_WC_FLUSH);
	return rmt_send_part(dev, &req, false, err);
}

static int range_op(struct dnet_dev *dev, uint16_t type, uint32_t off, size_t len, struct dnet_err *err)
{
	struct dnet_proto_msg req, rep;
	if (len > UINT32_MAX)
		return dnet_seterr(err, DNET_ERANGE, "length %zu too large", len);
	msg_init(&req, dev, type);
	req.off = off;
	req.len = (uint32_t)len;
	if (rmt_posting(dev))
		return rmt_post(dev, &req, dev->root->posted == DNET_POST_STOP, err);
	return rmt_rpc(dev->priv, &req, &rep, 0, err);
}

static int remote_cache_flush(struct dnet_dev *dev, uint32_t off, size_t len, struct dnet_err *err)
{
	return range_op(dev, DNET_MSG_CACHE_FLUSH, off, len, err);
}

static int remote_prefetch(struct dnet_dev *dev, uint32_t off, size_t len, struct dnet_err *err)
{
	return range_op(dev, DNET_MSG_PREFETCH, off, len, err);
}

static int remote_wait(struct dnet_dev *dev, uint32_t off, uint64_t mask, enum dnet_cond cond,
		       uint64_t value, uint64_t timeout_ns, uint64_t *last, struct dnet_err *err)
{
	struct dnet_proto_msg req, rep;
	msg_init(&req, dev, DNET_MSG_WAIT);
	req.off = off;
	req.mask = mask;
	req.cond = (uint32_t)cond;
	req.value = value;
	req.timeout_ns = timeout_ns;
	/* Virtual waits are quick in real time; real ones take up to timeout_ns. */
	int rc = rmt_rpc(dev->priv, &req, &rep, timeout_ns, err);
	if (rc)
		return rc;
	if (last)
		*last = rep.last;
	if (rep.timed_out)
		return dnet_seterr(err, DNET_ETIMEDOUT, "%s", rep.msg);
	return 0;
}

static int remote_delay(struct dnet_dev *dev, uint64_t ns, struct dnet_err *err)
{
	struct dnet_proto_msg req, rep;
	msg_init(&req, dev, DNET_MSG_DELAY);
	req.ns = ns;
	if (rmt_posting(dev) && (dev->caps & DNET_CAP_VIRTUAL_TIME))
		return rmt_post(dev, &req, dev->root->posted == DNET_POST_STOP, err); /* instant in real time */
	return rmt_rpc(dev->priv, &req, &rep, ns, err);
}

static int remote_now(struct dnet_dev *dev, uint64_t *ns, struct dnet_err *err)
{
	struct dnet_proto_msg rep;
	int rc = simple(dev, DNET_MSG_NOW, &rep, err);
	if (rc == 0)
		*ns = rep.ns;
	return rc;
}

static int remote_busy(struct dnet_dev *dev, bool *busy, struct dnet_err *err)
{
	struct dnet_proto_msg rep;
	int rc = simple(dev, DNET_MSG_BUSY, &rep, err);
	if (rc == 0)
		*busy = rep.busy != 0;
	return rc;
}

static int remote_sodimm(struct dnet_dev *dev, uint64_t addr, void *buf, size_t len, bool write,
			 struct dnet_err *err)
{
	return write ? write_parts(dev, DNET_MSG_SODIMM_WRITE, addr, buf, len, err)
		     : read_parts(dev, DNET_MSG_SODIMM_READ, addr, buf, len, err);
}

/* dnet_sync: everything posted is done; hand over the first failure. */
static int remote_sync(struct dnet_dev *dev, uint64_t *tag, struct dnet_err *err)
{
	struct remote *r = dev->priv;
	if (tag)
		*tag = DNET_NO_TAG;
	if (!r->nperr && !r->perr_more) {
		int rc = rmt_sync_posted(r, err);
		if (rc)
			return rc;
	}
	if (!r->nperr && !r->perr_more)
		return 0;
	return rmt_pop_error(r, tag, err);
}

static int remote_stat(struct dnet_dev *dev, const char *name, uint64_t *v, struct dnet_err *err)
{
	struct dnet_proto_msg req, rep;
	size_t nl = strlen(name);
	if (nl < 1 || nl > DNET_PROTO_NAME_MAX)
		return dnet_seterr(err, DNET_ENOENT, "unknown statistic \"%s\"", name);
	msg_init(&req, dev, DNET_MSG_STAT);
	memcpy(req.name, name, nl + 1);
	int rc = rmt_rpc(dev->priv, &req, &rep, 0, err);
	if (rc == 0)
		*v = rep.stat;
	return rc;
}

static const char *const *remote_stat_names(struct dnet_dev *dev)
{
	static const char *const none[] = { NULL };
	struct remote *r = dev->priv;
	if (r->names_done)
		return r->names ? (const char *const *)r->names : none;
	struct dnet_proto_msg rep;
	struct dnet_err e;
	if (simple(dev, DNET_MSG_STAT_NAMES, &rep, &e) != 0)
		return none; /* try again next time */
	r->names_done = true;
	if (rep.count == 0)
		return none;
	char **names = calloc(rep.count + 1, sizeof *names);
	if (!names)
		return none;
	size_t pos = 0;
	char name[DNET_PROTO_NAME_MAX + 1];
	for (uint32_t i = 0; i < rep.count && wire_next_name(&rep, &pos, name); i++) {
		names[i] = strdup(name);
		if (!names[i])
			break;
	}
	r->names = names;
	return (const char *const *)r->names;
}

/* ---- parameters (PARAM, protocol 1.3) ---- */

static int param_rpc(struct dnet_dev *dev, uint8_t op, const char *name, const char *value,
		     struct dnet_proto_msg *rep, struct dnet_err *err)
{
	struct dnet_proto_msg req;
	msg_init(&req, dev, DNET_MSG_PARAM);
	req.op = op;
	snprintf(req.name, sizeof req.name, "%s", name);
	if (value) {
		req.data = (const uint8_t *)value;
		req.data_len = strlen(value);
	}
	return rmt_rpc(dev->priv, &req, rep, 0, err);
}

/* Parse LIST's lines "NAME\tTYPE\tFLAGS\tHELP\n" in place. */
static int params_parse(struct remote *r, struct dnet_err *err)
{
	unsigned n = 0;
	for (const char *c = r->params_text; *c; c++)
		n += *c == '\n';
	r->params = calloc(n ? n : 1, sizeof *r->params);
	if (!r->params)
		return dnet_seterr(err, DNET_ENOMEM, "out of memory");
	char *save = NULL;
	for (char *line = strtok_r(r->params_text, "\n", &save); line && r->nparams < n;
	     line = strtok_r(NULL, "\n", &save)) {
		char *f[4] = { line, NULL, NULL, NULL };
		for (unsigned k = 1; k < 4; k++) {
			f[k] = f[k - 1] ? strchr(f[k - 1], '\t') : NULL;
			if (f[k])
				*f[k]++ = '\0';
		}
		if (!f[3])
			return dnet_seterr(err, DNET_EPROTO, "dnetd at %s: PARAM list line '%.60s' is not "
					   "NAME TYPE FLAGS HELP", r->addr, line);
		struct dnet_param *p = &r->params[r->nparams++];
		p->name = f[0];
		p->type = strcmp(f[1], "u64") == 0 ? DNET_PARAM_U64 : DNET_PARAM_TEXT;
		p->flags = (unsigned)strtoul(f[2], NULL, 10) & (DNET_PARAM_RO | DNET_PARAM_WO);
		p->help = f[3];
	}
	return 0;
}

static const struct dnet_param *remote_params(struct dnet_dev *dev, unsigned *n, struct dnet_err *err)
{
	struct remote *r = dev->priv;
	*n = 0;
	if (!r->params_done) {
		struct dnet_proto_msg rep;
		int rc = param_rpc(dev, DNET_PARAM_OP_LIST, "", NULL, &rep, err);
		if (rc)
			return NULL;
		r->params_text = malloc(rep.data_len + 1);
		if (!r->params_text) {
			dnet_seterr(err, DNET_ENOMEM, "out of memory");
			return NULL;
		}
		if (rep.data_len)
			memcpy(r->params_text, rep.data, rep.data_len);
		r->params_text[rep.data_len] = '\0';
		if (params_parse(r, err)) {
			free(r->params);
			free(r->params_text);
			r->params = NULL;
			r->params_text = NULL;
			r->nparams = 0;
			return NULL;
		}
	}
	r->params_done = true;
	*n = r->nparams;
	static const struct dnet_param none[1];
	return r->params ? r->params : none;
}

static int remote_param_get(struct dnet_dev *dev, const struct dnet_param *p, char *buf, size_t len,
			    struct dnet_err *err)
{
	struct dnet_proto_msg rep;
	int rc = param_rpc(dev, DNET_PARAM_OP_GET, p->name, NULL, &rep, err);
	if (rc)
		return rc;
	if (rep.data_len >= len)
		return dnet_seterr(err, DNET_EINVAL, "parameter '%s': %zu bytes do not fit in %zu", p->name,
				   rep.data_len, len);
	if (rep.data_len)
		memcpy(buf, rep.data, rep.data_len);
	buf[rep.data_len] = '\0';
	return 0;
}

static int remote_param_set(struct dnet_dev *dev, const struct dnet_param *p, const char *value,
			    struct dnet_err *err)
{
	struct dnet_proto_msg rep;
	return param_rpc(dev, DNET_PARAM_OP_SET, p->name, value, &rep, err);
}

/* PARAM_ALL (D-PARAM-ALL): one request.  A daemon that does not know it
 * answers ERROR EPROTO ("unknown message type") and stays connected: then
 * the core asks one parameter at a time. */
static int remote_param_get_all(struct dnet_dev *dev, char **pairs, size_t *len, struct dnet_err *err)
{
	struct remote *r = dev->priv;
	if (r->no_param_all)
		return -DNET_ENOTSUP;
	struct dnet_proto_msg req, rep;
	msg_init(&req, NULL, DNET_MSG_PARAM_ALL);
	int rc = rmt_rpc(r, &req, &rep, 0, err);
	if (rc == -DNET_EPROTO && !r->broken) {
		r->no_param_all = true;
		return -DNET_ENOTSUP;
	}
	if (rc)
		return rc;
	*pairs = malloc(rep.data_len + 1);
	if (!*pairs)
		return dnet_seterr(err, DNET_ENOMEM, "out of memory");
	if (rep.data_len)
		memcpy(*pairs, rep.data, rep.data_len);
	*len = rep.data_len;
	return 0;
}

const struct dnet_backend_ops rmt_backend = {
	.name = "remote",
	.synopsis = "remote:unix:PATH|tcp:HOST:PORT[,node=N][,wid=0|1][,user][,token=T][,timeout=DUR][,anypeer]",
	.help = "a dnetd daemon serving any backend over a socket (see dnetd(8))",
	.open = remote_open,
	.close = remote_close,
	.read = remote_read,
	.write = remote_write,
	.read_block = remote_read_block,
	.read_blocks = remote_read_blocks,
	.write_block = remote_write_block,
	.wc_flush = remote_wc_flush,
	.cache_flush = remote_cache_flush,
	.prefetch = remote_prefetch,
	.wait = remote_wait,
	.delay = remote_delay,
	.now = remote_now,
	.busy = remote_busy,
	.sodimm = remote_sodimm,
	.stat = remote_stat,
	.stat_names = remote_stat_names,
	.sync = remote_sync,
	.params = remote_params,
	.param_get = remote_param_get,
	.param_set = remote_param_set,
	.param_get_all = remote_param_get_all,
};
