/* Backend `remote`: a client of dnetd (docs/protocol.md, man/dnetd.8).
 *
 *   remote:unix:PATH[,OPTIONS]   remote:tcp:HOST:PORT[,OPTIONS]
 *   OPTIONS: node=N  wid=0|1  user  privileged  token=T  timeout=MS
 *
 * The token defaults to $DNET_TOKEN.  timeout bounds each socket exchange
 * (0 = no limit); waits and delays add their own duration to it.  A frame
 * that cannot be sent or received whole leaves the stream out of step, so
 * after such a failure every later call fails with DNET_EIO.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "dnet/backend.h"
#include "dnet/parse.h"
#include "remote/proto.h"

#define DEFAULT_TIMEOUT_MS 30000u
#define MAX_OPTS 16

/* Posted requests (dnet_set_posted): the frames go out in batches and are
 * answered only if they fail; a failure is kept here, with the caller's tag
 * of the request, until dnet_sync() hands it over. */
#define OUT_BATCH   (64u << 10)  /* posted bytes kept before a send */
#define SEG_MAX     4096u        /* tag changes between two SYNCs */
#define PERR_MAX    1024u        /* failures kept; more are counted */
struct seg { uint32_t first_id; uint64_t tag; };
struct perr { uint64_t tag; int code; char msg[DNET_PROTO_MSG_MAX + 1]; };

struct remote {
	int fd;
	bool broken;
	char broken_why[DNET_ERR_MSG_MAX + 64]; /* a cause with its context */
	uint64_t timeout_ns;   /* 0: none */
	uint64_t rcvtimeo_ns;  /* the socket's SO_RCVTIMEO now (0: none) */
	uint32_t next_id;
	char addr[300];
	struct dnet_pbuf out;  /* frames not yet sent (posted ones wait for a batch) */
	uint8_t *in;           /* received bytes: in[in_pos..in_len) not yet decoded */
	size_t in_cap, in_len, in_pos;
	char **names;          /* stat names cache, NULL-terminated */
	bool names_done;
	uint16_t minor;        /* the daemon's protocol minor version */
	/* the daemon's parameters (PARAM LIST, 1.3), fetched once: the
	 * definitions point into params_text */
	struct dnet_param *params;
	unsigned nparams;
	char *params_text;
	bool params_done;
	/* posting */
	bool can_post;         /* the daemon speaks protocol 1.1 */
	uint32_t unconfirmed;  /* posted frames since the last SYNC */
	struct seg segs[SEG_MAX];
	unsigned nsegs;
	struct perr *perr;     /* failures not yet handed over */
	unsigned nperr, perr_head, perr_more;
	uint32_t came;         /* ERRORs of posted requests since the last SYNC */
	bool stopped;          /* STOP mode: a failure is known, post nothing more */
};

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Poll fd for events until deadline (0: forever).  0, or -DNET_ETIMEDOUT/-DNET_EIO. */
static int wait_fd(int fd, short events, uint64_t deadline, struct dnet_err *err)
{
	for (;;) {
		int ms = -1;
		if (deadline) {
			uint64_t now = mono_ns();
			if (now >= deadline)
				return dnet_seterr(err, DNET_ETIMEDOUT, "timed out");
			uint64_t left = (deadline - now + 999999) / 1000000;
			ms = left > 86400000 ? 86400000 : (int)left;
		}
		struct pollfd p = {.fd = fd, .events = events};
		int n = poll(&p, 1, ms);
		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return dnet_seterr(err, DNET_EIO, "poll: %s", strerror(errno));
	}
}

static int broken(struct remote *r, struct dnet_err *err, int code, const char *fmt, const char *what)
{
	r->broken = true;
	snprintf(r->broken_why, sizeof r->broken_why, fmt, what);
	return dnet_seterr(err, code, "dnetd at %s: %s", r->addr, r->broken_why);
}

/* Drain what the daemon sent while we are blocked sending: the ERRORs of
 * posted requests (a daemon that cannot queue them stops reading us). */
static int read_some(struct remote *r, uint64_t deadline, bool block, struct dnet_err *err);
static int take_posted_errors(struct remote *r, struct dnet_err *err);

static int send_all(struct remote *r, const uint8_t *p, size_t n, uint64_t deadline, struct dnet_err *err)
{
	while (n) {
		ssize_t w = send(r->fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w > 0) {
			p += w;
			n -= (size_t)w;
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			struct dnet_err e;
			int rc = wait_fd(r->fd, POLLOUT | POLLIN, deadline, &e);
			if (rc == -DNET_ETIMEDOUT)
				return broken(r, err, DNET_ETIMEDOUT, "%s", "timed out sending a request");
			if (rc)
				return broken(r, err, DNET_EIO, "%s", e.msg);
			if (r->unconfirmed) {
				struct pollfd pf = {.fd = r->fd, .events = POLLIN};
				if (poll(&pf, 1, 0) == 1 && (rc = read_some(r, deadline, false, err)) < 0)
					return rc;
				if ((rc = take_posted_errors(r, err)))
					return rc;
			}
			continue;
		}
		if (errno == EPIPE || errno == ECONNRESET)
			return -EPIPE; /* the daemon may have said why before closing: read it */
		return broken(r, err, DNET_EIO, "send: %s", strerror(errno));
	}
	return 0;
}

/* Send every queued frame. */
static int flush_out(struct remote *r, uint64_t deadline, struct dnet_err *err)
{
	if (!r->out.len)
		return 0;
	int rc = send_all(r, r->out.p, r->out.len, deadline, err);
	r->out.len = 0;
	return rc;
}

/* The socket's receive timeout follows the deadline of the call (a recv
 * that blocks costs one system call; poll + recv cost two). */
static int set_rcvtimeo(struct remote *r, uint64_t deadline, struct dnet_err *err)
{
	uint64_t want = 0;
	if (deadline) {
		uint64_t now = mono_ns();
		if (now >= deadline)
			return broken(r, err, DNET_ETIMEDOUT, "%s", "timed out waiting for a reply");
		want = deadline - now;
		/* Close enough: re-set only when it is off by more than 10 %. */
		if (r->rcvtimeo_ns && want <= r->rcvtimeo_ns && want >= r->rcvtimeo_ns - r->rcvtimeo_ns / 10)
			return 0;
	} else if (!r->rcvtimeo_ns) {
		return 0;
	}
	struct timeval tv = {.tv_sec = (time_t)(want / 1000000000ull),
			     .tv_usec = (suseconds_t)(want % 1000000000ull / 1000)};
	if (want && !tv.tv_sec && !tv.tv_usec)
		tv.tv_usec = 1;
	if (setsockopt(r->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0)
		return broken(r, err, DNET_EIO, "setsockopt: %s", strerror(errno));
	r->rcvtimeo_ns = want;
	return 0;
}

/* Receive what is there into in[] (blocking until something comes, or not).
 * 1 if bytes came, 0 if none (non-blocking), or an error. */
static int read_some(struct remote *r, uint64_t deadline, bool block, struct dnet_err *err)
{
	if (r->in_pos == r->in_len) {
		r->in_pos = r->in_len = 0;
	} else if (r->in_pos && r->in_cap - r->in_len < 4096) {
		memmove(r->in, r->in + r->in_pos, r->in_len - r->in_pos);
		r->in_len -= r->in_pos;
		r->in_pos = 0;
	}
	if (r->in_cap - r->in_len < 4096) {
		size_t cap = r->in_cap ? r->in_cap * 2 : 65536;
		uint8_t *p = realloc(r->in, cap);
		if (!p)
			return broken(r, err, DNET_ENOMEM, "%s", "out of memory for a reply");
		r->in = p;
		r->in_cap = cap;
	}
	for (;;) {
		if (block) {
			int rc = set_rcvtimeo(r, deadline, err);
			if (rc)
				return rc;
		}
		ssize_t got = recv(r->fd, r->in + r->in_len, r->in_cap - r->in_len, block ? 0 : MSG_DONTWAIT);
		if (got > 0) {
			r->in_len += (size_t)got;
			return 1;
		}
		if (got == 0)
			return broken(r, err, DNET_EIO, "%s", "the daemon closed the connection");
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK) {
			if (!block)
				return 0;
			if (deadline && mono_ns() >= deadline)
				return broken(r, err, DNET_ETIMEDOUT, "%s", "timed out waiting for a reply");
			continue;
		}
		return broken(r, err, DNET_EIO, "recv: %s", strerror(errno));
	}
}

/* The next whole frame, decoded into m (m->data points into in[] until the
 * next read).  Blocks until it is there. */
static int next_frame(struct remote *r, struct dnet_proto_msg *m, uint64_t deadline, struct dnet_err *err)
{
	for (;;) {
		size_t flen = 0;
		struct dnet_err e;
		int pk = dnet_proto_peek(r->in ? r->in + r->in_pos : NULL, r->in_len - r->in_pos, &flen, &e); /* in is NULL before the first read */
		if (pk < 0)
			return broken(r, err, DNET_EPROTO, "bad reply: %s", e.msg);
		if (pk > 0) {
			if (dnet_proto_decode(r->in + r->in_pos, flen, m, &e) != 0)
				return broken(r, err, DNET_EPROTO, "bad reply: %s", e.msg);
			r->in_pos += flen;
			return 0;
		}
		if (flen > r->in_cap - r->in_pos) {
			/* A large reply: make room for all of it at once. */
			memmove(r->in, r->in + r->in_pos, r->in_len - r->in_pos);
			r->in_len -= r->in_pos;
			r->in_pos = 0;
			if (flen > r->in_cap) {
				uint8_t *p = realloc(r->in, flen + 4096);
				if (!p)
					return broken(r, err, DNET_ENOMEM, "%s", "out of memory for a reply");
				r->in = p;
				r->in_cap = flen + 4096;
			}
		}
		int rc = read_some(r, deadline, true, err);
		if (rc < 0)
			return rc;
	}
}

/* The tag a posted request was sent with. */
static uint64_t tag_of(const struct remote *r, uint32_t id)
{
	uint64_t tag = DNET_NO_TAG;
	for (unsigned i = 0; i < r->nsegs; i++) {
		if ((uint32_t)(id - r->segs[0].first_id) < (uint32_t)(r->segs[i].first_id - r->segs[0].first_id))
			break;
		tag = r->segs[i].tag;
	}
	return tag;
}

/* Keep the failure of posted request id (an ERROR reply) for dnet_sync. */
static void keep_posted_error(struct remote *r, const struct dnet_proto_msg *m)
{
	r->came++;
	if (!r->perr)
		r->perr = calloc(PERR_MAX, sizeof *r->perr);
	if (!r->perr || r->nperr == PERR_MAX) {
		r->perr_more++;
		return;
	}
	struct perr *p = &r->perr[(r->perr_head + r->nperr++) % PERR_MAX];
	p->tag = tag_of(r, m->id);
	p->code = (int)m->code;
	snprintf(p->msg, sizeof p->msg, "%s", m->msg);
}

/* Whether id is one of the posted requests sent since the last SYNC. */
static bool is_posted_id(const struct remote *r, uint32_t id, uint32_t next)
{
	if (!r->nsegs)
		return false;
	return (uint32_t)(id - r->segs[0].first_id) < (uint32_t)(next - r->segs[0].first_id);
}

/* Read the ERRORs of posted requests that have arrived, without waiting. */
static int take_posted_errors(struct remote *r, struct dnet_err *err)
{
	for (;;) {
		size_t flen = 0;
		struct dnet_err e;
		int pk = dnet_proto_peek(r->in ? r->in + r->in_pos : NULL, r->in_len - r->in_pos, &flen, &e); /* in is NULL before the first read */
		if (pk <= 0)
			return pk < 0 ? broken(r, err, DNET_EPROTO, "bad reply: %s", e.msg) : 0;
		struct dnet_proto_msg m;
		if (dnet_proto_decode(r->in + r->in_pos, flen, &m, &e) != 0)
			return broken(r, err, DNET_EPROTO, "bad reply: %s", e.msg);
		if (m.type != DNET_MSG_ERROR || !is_posted_id(r, m.id, r->next_id + 1))
			return 0; /* a reply: its reader takes it */
		r->in_pos += flen;
		keep_posted_error(r, &m);
	}
}

/* One request, one reply (after the frames already queued, posted ones
 * included, whose ERRORs are kept on the way).  extra_ns lengthens the
 * deadline (waits, delays).  An ERROR reply becomes the return code and
 * message. */
static int rpc(struct remote *r, struct dnet_proto_msg *req, struct dnet_proto_msg *rep,
	       uint64_t extra_ns, struct dnet_err *err)
{
	if (r->broken)
		return dnet_seterr(err, DNET_EIO, "dnetd at %s: connection unusable (%s)", r->addr,
				   r->broken_why);
	req->id = ++r->next_id;
	req->flags = 0;
	int rc = dnet_proto_encode(&r->out, req, err);
	if (rc)
		return rc;
	uint64_t deadline = 0;
	if (r->timeout_ns) {
		deadline = mono_ns();
		deadline += r->timeout_ns;
		deadline = deadline > UINT64_MAX - extra_ns ? 0 : deadline + extra_ns;
	}
	bool sent = true;
	if ((rc = flush_out(r, deadline, err))) {
		if (rc != -EPIPE)
			return rc;
		sent = false;
		deadline = mono_ns() + 100000000ull; /* what is already there */
	}
	for (;;) {
		if ((rc = next_frame(r, rep, deadline, err)))
			return rc;
		if (rep->type == DNET_MSG_ERROR && rep->id != req->id && is_posted_id(r, rep->id, req->id)) {
			keep_posted_error(r, rep);
			continue;
		}
		break;
	}
	if (!sent) {
		r->broken = true;
		snprintf(r->broken_why, sizeof r->broken_why, "the daemon closed the connection");
		if (rep->type == DNET_MSG_ERROR)
			return dnet_seterr(err, (int)rep->code, "%s", rep->msg);
		return dnet_seterr(err, DNET_EIO, "dnetd at %s: the daemon closed the connection", r->addr);
	}
	if (rep->type == DNET_MSG_ERROR) {
		/* id 0: the daemon refused the connection before reading (too many clients). */
		if (rep->id != req->id && rep->id != 0)
			return broken(r, err, DNET_EPROTO, "%s", "reply to another request (id mismatch)");
		return dnet_seterr(err, (int)rep->code, "%s", rep->msg);
	}
	if (rep->id != req->id)
		return broken(r, err, DNET_EPROTO, "%s", "reply to another request (id mismatch)");
	if (rep->type != (req->type | DNET_MSG_REPLY))
		return broken(r, err, DNET_EPROTO, "unexpected %s", dnet_proto_type_name(rep->type));
	return 0;
}

/* SYNC: every request sent is done; the ERRORs of failed posted ones are
 * kept on the way.  The daemon's counts must match what came. */
static int sync_posted(struct remote *r, struct dnet_err *err)
{
	if (!r->unconfirmed && !r->out.len)
		return 0;
	struct dnet_proto_msg req, rep;
	memset(&req, 0, sizeof req);
	req.type = DNET_MSG_SYNC;
	int rc = rpc(r, &req, &rep, 0, err);
	if (rc)
		return rc;
	if (rep.count - rep.skipped != r->came)
		return broken(r, err, DNET_EPROTO, "%s", "SYNC reply counts failures that never came");
	r->came = 0;
	r->unconfirmed = 0;
	r->nsegs = 0;
	return 0;
}

/* Queue one posted request (sent with the next batch).  In STOP mode, after
 * a known failure, nothing more is sent: it counts as skipped. */
static int post(struct dnet_dev *dev, struct dnet_proto_msg *req, bool stop, struct dnet_err *err)
{
	struct remote *r = dev->priv;
	if (r->broken)
		return dnet_seterr(err, DNET_EIO, "dnetd at %s: connection unusable (%s)", r->addr,
				   r->broken_why);
	if (stop && r->stopped)
		return 0; /* skipped, as the daemon would */
	if (r->nsegs == SEG_MAX || r->unconfirmed >= (1u << 30)) {
		int rc = sync_posted(r, err);
		if (rc)
			return rc;
		if (stop && r->nperr + r->perr_more) {
			r->stopped = true;
			return 0;
		}
	}
	req->id = ++r->next_id;
	req->flags = (uint16_t)(DNET_PROTO_F_POSTED | (stop ? DNET_PROTO_F_STOP : 0));
	int rc = dnet_proto_encode(&r->out, req, err);
	if (rc)
		return rc;
	if (!r->nsegs || r->segs[r->nsegs - 1].tag != dev->tag)
		r->segs[r->nsegs++] = (struct seg){ .first_id = req->id, .tag = dev->tag };
	r->unconfirmed++;
	if (r->out.len >= OUT_BATCH) {
		uint64_t deadline = r->timeout_ns ? mono_ns() + r->timeout_ns : 0;
		if ((rc = flush_out(r, deadline, err)))
			return rc == -EPIPE ? broken(r, err, DNET_EIO, "%s", "the daemon closed the connection") : rc;
	}
	return 0;
}

/* Whether this request goes posted: the caller asked for it and the daemon
 * can. */
static bool posting(const struct dnet_dev *dev)
{
	const struct remote *r = dev->priv;
	return dev->posted != DNET_POST_OFF && r->can_post;
}

/* Hand over the oldest kept failure: its code and message, *tag. */
static int pop_error(struct remote *r, uint64_t *tag, struct dnet_err *err)
{
	if (r->nperr) {
		struct perr *p = &r->perr[r->perr_head];
		r->perr_head = (r->perr_head + 1) % PERR_MAX;
		r->nperr--;
		if (tag)
			*tag = p->tag;
		int rc = dnet_seterr(err, p->code, "%s", p->msg);
		if (!r->nperr && !r->perr_more)
			r->stopped = false;
		return rc;
	}
	if (r->perr_more) {
		unsigned n = r->perr_more;
		r->perr_more = 0;
		r->stopped = false;
		if (tag)
			*tag = DNET_NO_TAG;
		return dnet_seterr(err, DNET_EIO, "%u more posted requests failed (their errors were not kept)", n);
	}
	return 0;
}

/* A request in several frames (a block write over DNET_PROTO_MAX_DATA):
 * posted when posting, else sent together and stopped at the first
 * failure, which is returned -- one round trip instead of one per frame. */
static int send_part(struct dnet_dev *dev, struct dnet_proto_msg *req, bool more, struct dnet_err *err)
{
	struct remote *r = dev->priv;
	if (posting(dev))
		return post(dev, req, dev->posted == DNET_POST_STOP, err);
	if (!r->can_post || (!more && !r->unconfirmed)) {
		struct dnet_proto_msg rep;
		return rpc(r, req, &rep, 0, err);
	}
	int rc = post(dev, req, true, err);
	if (rc || more)
		return rc;
	if ((rc = sync_posted(r, err)))
		return rc;
	return pop_error(r, NULL, err);
}

static void msg_init(struct dnet_proto_msg *m, uint16_t type)
{
	memset(m, 0, sizeof *m);
	m->type = type;
}

/* ---- connecting ---- */

static int connect_to(struct remote *r, const struct dnet_sockspec *a, struct dnet_err *err)
{
	uint64_t deadline = r->timeout_ns ? mono_ns() + r->timeout_ns : 0;
	int fd = -1, e = 0;

	if (!a->tcp) {
		struct sockaddr_un sa;
		memset(&sa, 0, sizeof sa);
		sa.sun_family = AF_UNIX;
		memcpy(sa.sun_path, a->path, strlen(a->path) + 1);
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return dnet_seterr(err, DNET_EIO, "socket: %s", strerror(errno));
		if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
			e = errno;
			close(fd);
			if (e == ENOENT || e == ECONNREFUSED)
				return dnet_seterr(err, DNET_EIO, "cannot connect to dnetd at %s: %s (is dnetd running?)",
						   r->addr, e == ENOENT ? "no such socket" : "connection refused");
			return dnet_seterr(err, e == EACCES ? DNET_EPERM : DNET_EIO,
					   "cannot connect to dnetd at %s: %s", r->addr, strerror(e));
		}
	} else {
		struct addrinfo hints, *res = NULL, *ai;
		memset(&hints, 0, sizeof hints);
		hints.ai_family = AF_UNSPEC;
		hints.ai_socktype = SOCK_STREAM;
		hints.ai_flags = AI_NUMERICSERV;
		int g = getaddrinfo(a->host, a->port, &hints, &res);
		if (g != 0)
			return dnet_seterr(err, DNET_EIO, "cannot resolve %s: %s", a->host, gai_strerror(g));
		for (ai = res; ai; ai = ai->ai_next) {
			fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
			if (fd < 0) {
				e = errno;
				continue;
			}
			if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
				break;
			e = errno;
			if (e == EINPROGRESS) {
				struct dnet_err we;
				int so = 0;
				socklen_t sl = sizeof so;
				if (wait_fd(fd, POLLOUT, deadline, &we) != 0)
					e = ETIMEDOUT;
				else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &so, &sl) != 0)
					e = errno;
				else if (so == 0)
					break;
				else
					e = so;
			}
			close(fd);
			fd = -1;
		}
		freeaddrinfo(res);
		if (fd < 0) {
			if (e == ECONNREFUSED)
				return dnet_seterr(err, DNET_EIO, "cannot connect to dnetd at %s: connection refused "
						   "(is dnetd running?)", r->addr);
			return dnet_seterr(err, e == ETIMEDOUT ? DNET_ETIMEDOUT : DNET_EIO,
					   "cannot connect to dnetd at %s: %s", r->addr, strerror(e));
		}
		int one = 1;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
		e = errno;
		close(fd);
		return dnet_seterr(err, DNET_EIO, "fcntl: %s", strerror(e));
	}
	r->fd = fd;
	return 0;
}

static void remote_free(struct remote *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	dnet_pbuf_free(&r->out);
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
	if (!*addr)
		dnet_sockspec_default(addr, sizeof addr); /* where a plain `dnetd` listens */

	struct dnet_sockspec sa;
	int rc = dnet_sockspec_parse(addr, &sa, err);
	if (rc)
		return rc;

	uint64_t node = 1, wid = 0, timeout_ms = DEFAULT_TIMEOUT_MS;
	bool privileged = true, anypeer = false;
	const char *token = getenv("DNET_TOKEN");
	struct dnet_kv kv[MAX_OPTS];
	unsigned nkv = 0;
	if (*opts && (rc = dnet_kv_split(opts, kv, MAX_OPTS, &nkv, err)))
		return rc;
	for (unsigned i = 0; i < nkv; i++) {
		const char *k = kv[i].key;
		bool flag = !kv[i].has_val;
		if (strcmp(k, "node") == 0 && !flag)
			rc = dnet_parse_u64(kv[i].val, 0xffffffffu, &node, "node", err);
		else if (strcmp(k, "wid") == 0 && !flag)
			rc = dnet_parse_u64(kv[i].val, 1, &wid, "wid", err);
		else if (strcmp(k, "timeout") == 0 && !flag)
			rc = dnet_parse_u64(kv[i].val, 86400000u, &timeout_ms, "timeout (ms)", err);
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
					 "user, privileged, token=T, timeout=MS, anypeer)", k, flag ? "" : "=",
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
	dnet_sockspec_format(&sa, r->addr, sizeof r->addr);
	if ((rc = connect_to(r, &sa, err))) {
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
	msg_init(&req, DNET_MSG_HELLO);
	req.ver_major = DNET_PROTO_VERSION_MAJOR;
	req.ver_minor = DNET_PROTO_VERSION_MINOR;
	req.node = (uint32_t)node;
	req.wid = (uint8_t)wid;
	req.privileged = privileged;
	if (token)
		snprintf(req.token, sizeof req.token, "%s", token);
	rc = rpc(r, &req, &rep, 0, err);
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
	r->can_post = rep.ver_minor >= 1;
	r->minor = rep.ver_minor;
	dev->cluster = rep.cluster; /* 0: a dnetd before 1.2 does not say */
	dev->priv = r;
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
		flush_out(r, mono_ns() + 1000000000ull, &e);
	}
	remote_free(dev->priv);
	dev->priv = NULL;
}

/* ---- accesses ---- */

static int remote_read(struct dnet_dev *dev, uint32_t off, void *buf, unsigned width,
		       struct dnet_err *err)
{
	struct dnet_proto_msg req, rep;
	msg_init(&req, DNET_MSG_READ);
	req.off = off;
	req.width = (uint8_t)width;
	int rc = rpc(dev->priv, &req, &rep, 0, err);
	if (rc)
		return rc;
	if (rep.width != width)
		return dnet_seterr(err, DNET_EPROTO, "READ reply of %u bytes for a %u-byte read", rep.width, width);
	switch (width) {
	case 1: { uint8_t v = (uint8_t)rep.val[0]; memcpy(buf, &v, 1); break; }
	case 2: { uint16_t v = (uint16_t)rep.val[0]; memcpy(buf, &v, 2); break; }
	case 4: { uint32_t v = (uint32_t)rep.val[0]; memcpy(buf, &v, 4); break; }
	case 8: memcpy(buf, &rep.val[0], 8); break;
	default: memcpy(buf, rep.val, 16); break;
	}
	return 0;
}

static int remote_write(struct dnet_dev *dev, uint32_t off, const void *buf, unsigned width,
			struct dnet_err *err)
{
	struct dnet_proto_msg req, rep;
	msg_init(&req, DNET_MSG_WRITE);
	req.off = off;
	req.width = (uint8_t)width;
	switch (width) {
	case 1: { uint8_t v; memcpy(&v, buf, 1); req.val[0] = v; break; }
	case 2: { uint16_t v; memcpy(&v, buf, 2); req.val[0] = v; break; }
	case 4: { uint32_t v; memcpy(&v, buf, 4); req.val[0] = v; break; }
	case 8: memcpy(&req.val[0], buf, 8); break;
	case 16: memcpy(req.val, buf, 16); break;
	default: return dnet_seterr(err, DNET_EINVAL, "bad access width %u", width);
	}
	if (posting(dev))
		return post(dev, &req, dev->posted == DNET_POST_STOP, err);
	return rpc(dev->priv, &req, &rep, 0, err);
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
		msg_init(&req, type);
		if (type == DNET_MSG_SODIMM_READ)
			req.addr = at;
		else
			req.off = (uint32_t)at;
		req.len = (uint32_t)len;
		int rc = rpc(r, &req, &rep, 0, err);
		if (rc)
			return rc;
		if (rep.data_len != len)
			return dnet_seterr(err, DNET_EPROTO, "%s of %zu bytes, %zu asked",
					   dnet_proto_type_name(rep.type), rep.data_len, len);
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
		msg_init(&req, type);
		if (type == DNET_MSG_SODIMM_READ)
			req.addr = at + done;
		else
			req.off = (uint32_t)(at + done);
		req.len = (uint32_t)n;
		req.id = ++r->next_id;
		int rc = dnet_proto_encode(&r->out, &req, err);
		if (rc)
			return rc;
		done += n;
	}
	uint64_t deadline = r->timeout_ns ? mono_ns() + r->timeout_ns : 0;
	int rc = flush_out(r, deadline, err), first_rc = 0;
	if (rc)
		return rc == -EPIPE ? broken(r, err, DNET_EIO, "%s", "the daemon closed the connection") : rc;
	struct dnet_err e0;
	dnet_clearerr(&e0);
	for (size_t i = 0, done = 0; i < nreq;) {
		struct dnet_proto_msg rep;
		if ((rc = next_frame(r, &rep, deadline, err)))
			return rc;
		if (rep.type == DNET_MSG_ERROR && is_posted_id(r, rep.id, first)) {
			keep_posted_error(r, &rep);
			continue;
		}
		size_t n = len - done > DNET_PROTO_MAX_DATA ? DNET_PROTO_MAX_DATA : len - done;
		if (rep.id != first + (uint32_t)i)
			return broken(r, err, DNET_EPROTO, "%s", "reply to another request (id mismatch)");
		if (rep.type == DNET_MSG_ERROR) {
			if (!first_rc)
				first_rc = dnet_seterr(&e0, (int)rep.code, "%s", rep.msg);
		} else if (rep.type != (type | DNET_MSG_REPLY)) {
			return broken(r, err, DNET_EPROTO, "unexpected %s", dnet_proto_type_name(rep.type));
		} else if (rep.data_len != n) {
			return broken(r, err, DNET_EPROTO, "%s", "a block reply of another length than asked");
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
		msg_init(&req, type);
		if (type == DNET_MSG_SODIMM_WRITE)
			req.addr = at + done;
		else
			req.off = (uint32_t)(at + done);
		req.len = (uint32_t)n;
		req.data = p + done;
		req.data_len = n;
		done += n;
		int rc = send_part(dev, &req, done < len, err);
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

static int remote_write_block(struct dnet_dev *dev, uint32_t off, const void *buf, size_t len,
			      struct dnet_err *err)
{
	return write_parts(dev, DNET_MSG_WRITE_BLOCK, off, buf, len, err);
}

static int simple(struct dnet_dev *dev, uint16_t type, struct dnet_proto_msg *rep, struct dnet_err *err)
{
	struct dnet_proto_msg req;
	msg_init(&req, type);
	return rpc(dev->priv, &req, rep, 0, err);
}

static int remote_wc_flush(struct dnet_dev *dev, struct dnet_err *err)
{
	struct dnet_proto_msg req;
	msg_init(&req, DNET_MSG_WC_FLUSH);
	return send_part(dev, &req, false, err);
}

static int range_op(struct dnet_dev *dev, uint16_t type, uint32_t off, size_t len, struct dnet_err *err)
{
	struct dnet_proto_msg req, rep;
	if (len > UINT32_MAX)
		return dnet_seterr(err, DNET_ERANGE, "length %zu too large", len);
	msg_init(&req, type);
	req.off = off;
	req.len = (uint32_t)len;
	if (posting(dev))
		return post(dev, &req, dev->posted == DNET_POST_STOP, err);
	return rpc(dev->priv, &req, &rep, 0, err);
}

static int remote_cache_flush(struct dnet_dev *dev, uint32_t off, size_t len, struct dnet_err *err)
{
	return range_op(dev, DNET_MSG_CACHE_FLUSH, off, len, err);
}

static int remote_prefetch(struct dnet_dev *dev, uint32_t off, size_t len, struct dnet_err *err)
{
	return range_op(dev, DNET_MSG_PREFETCH, off, len, err);
}

static int remote_set_node(struct dnet_dev *dev, unsigned node, struct dnet_err *err)
{
	struct dnet_proto_msg req, rep;
	msg_init(&req, DNET_MSG_SET_NODE);
	req.node = node;
	if (node < 1)
		return dnet_seterr(err, DNET_EINVAL, "nodes are numbered from 1");
	int rc = rpc(dev->priv, &req, &rep, 0, err);
	if (rc == 0)
		dev->node = node;
	return rc;
}

static int remote_wait(struct dnet_dev *dev, uint32_t off, uint64_t mask, enum dnet_cond cond,
		       uint64_t value, uint64_t timeout_ns, uint64_t *last, struct dnet_err *err)
{
	struct dnet_proto_msg req, rep;
	msg_init(&req, DNET_MSG_WAIT);
	req.off = off;
	req.mask = mask;
	req.cond = (uint32_t)cond;
	req.value = value;
	req.timeout_ns = timeout_ns;
	/* Virtual waits are quick in real time; real ones take up to timeout_ns. */
	int rc = rpc(dev->priv, &req, &rep, timeout_ns, err);
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
	msg_init(&req, DNET_MSG_DELAY);
	req.ns = ns;
	if (posting(dev) && (dev->caps & DNET_CAP_VIRTUAL_TIME))
		return post(dev, &req, dev->posted == DNET_POST_STOP, err); /* instant in real time */
	return rpc(dev->priv, &req, &rep, ns, err);
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
		int rc = sync_posted(r, err);
		if (rc)
			return rc;
	}
	if (!r->nperr && !r->perr_more)
		return 0;
	return pop_error(r, tag, err);
}

static int remote_stat(struct dnet_dev *dev, const char *name, uint64_t *v, struct dnet_err *err)
{
	struct dnet_proto_msg req, rep;
	size_t nl = strlen(name);
	if (nl < 1 || nl > DNET_PROTO_NAME_MAX)
		return dnet_seterr(err, DNET_ENOENT, "unknown statistic \"%s\"", name);
	msg_init(&req, DNET_MSG_STAT);
	memcpy(req.name, name, nl + 1);
	int rc = rpc(dev->priv, &req, &rep, 0, err);
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
	for (uint32_t i = 0; i < rep.count && dnet_proto_next_name(&rep, &pos, name); i++) {
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
	msg_init(&req, DNET_MSG_PARAM);
	req.op = op;
	snprintf(req.name, sizeof req.name, "%s", name);
	if (value) {
		req.data = (const uint8_t *)value;
		req.data_len = strlen(value);
	}
	return rpc(dev->priv, &req, rep, 0, err);
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
	if (!r->params_done && r->minor >= 3) {
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
	r->params_done = true; /* a daemon before 1.3 has none */
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

const struct dnet_backend_ops dnet_backend_remote = {
	.name = "remote",
	.synopsis = "remote:unix:PATH|tcp:HOST:PORT[,node=N][,wid=0|1][,user][,token=T][,timeout=MS][,anypeer]",
	.help = "a dnetd daemon serving any backend over a socket (see dnetd(8))",
	.open = remote_open,
	.close = remote_close,
	.read = remote_read,
	.write = remote_write,
	.read_block = remote_read_block,
	.write_block = remote_write_block,
	.wc_flush = remote_wc_flush,
	.cache_flush = remote_cache_flush,
	.prefetch = remote_prefetch,
	.set_node = remote_set_node,
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
};
