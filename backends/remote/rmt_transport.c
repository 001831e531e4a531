/* The remote backend's connection to dnetd: connecting (UNIX or TCP),
 * sending queued frames, receiving and decoding replies, and one request
 * with its reply (rmt_rpc).  A frame that cannot be sent or received whole
 * leaves the stream out of step: the connection is then broken for good. */
#include "remote/rmt.h"

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

/* Poll fd for events until deadline (0: forever).  0, or -DNET_ETIMEDOUT/-DNET_EIO. */
static int wait_fd(int fd, short events, uint64_t deadline, struct dnet_err *err)
{
	for (;;) {
		int ms = -1;
		if (deadline) {
			uint64_t now = dnet_mono_ns();
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

int rmt_broken(struct remote *r, struct dnet_err *err, int code, const char *fmt, const char *what)
{
	r->broken = true;
	snprintf(r->broken_why, sizeof r->broken_why, fmt, what);
	return dnet_seterr(err, code, "dnetd at %s: %s", r->addr, r->broken_why);
}

/* Send n bytes; while blocked, drain what the daemon sent: the ERRORs of
 * posted requests (a daemon that cannot queue them stops reading us). */
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
				return rmt_broken(r, err, DNET_ETIMEDOUT, "%s", "timed out sending a request");
			if (rc)
				return rmt_broken(r, err, DNET_EIO, "%s", e.msg);
			if (r->unconfirmed) {
				struct pollfd pf = {.fd = r->fd, .events = POLLIN};
				if (poll(&pf, 1, 0) == 1 && (rc = rmt_read_some(r, deadline, false, err)) < 0)
					return rc;
				if ((rc = rmt_take_posted_errors(r, err)))
					return rc;
			}
			continue;
		}
		if (errno == EPIPE || errno == ECONNRESET)
			return -EPIPE; /* the daemon may have said why before closing: read it */
		return rmt_broken(r, err, DNET_EIO, "send: %s", strerror(errno));
	}
	return 0;
}

/* Send every queued frame. */
int rmt_flush_out(struct remote *r, uint64_t deadline, struct dnet_err *err)
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
		uint64_t now = dnet_mono_ns();
		if (now >= deadline)
			return rmt_broken(r, err, DNET_ETIMEDOUT, "%s", "timed out waiting for a reply");
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
		return rmt_broken(r, err, DNET_EIO, "setsockopt: %s", strerror(errno));
	r->rcvtimeo_ns = want;
	return 0;
}

/* Receive what is there into in[] (blocking until something comes, or not).
 * 1 if bytes came, 0 if none (non-blocking), or an error. */
int rmt_read_some(struct remote *r, uint64_t deadline, bool block, struct dnet_err *err)
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
			return rmt_broken(r, err, DNET_ENOMEM, "%s", "out of memory for a reply");
		r->in = p;
		r->in_cap = cap;
	}
	/* A daemon serving a board answers a wait or sleep only at its end:
	 * the device's stop hook is asked at least every 100 ms meanwhile
	 * (device.h dnet_set_stop), and on a signal.  Stopped, the reply is
	 * given up and so is the connection (a later reply would be out of
	 * step).  On the emulator replies come at once in real time. */
	bool stoppable = block && r->dev && r->dev->stop && !(r->dev->caps & DNET_CAP_VIRTUAL_TIME);
	for (;;) {
		if (stoppable && core_stopped(r->dev))
			return rmt_broken(r, err, DNET_EINTR, "%s",
					  "interrupted while waiting for a reply (the connection is given up)");
		if (block) {
			uint64_t slice = stoppable ? dnet_mono_ns() + 10 * DNET_STOP_POLL_NS : 0;
			int rc = set_rcvtimeo(r, slice && (!deadline || slice < deadline) ? slice : deadline, err);
			if (rc)
				return rc;
		}
		ssize_t got = recv(r->fd, r->in + r->in_len, r->in_cap - r->in_len, block ? 0 : MSG_DONTWAIT);
		if (got > 0) {
			r->in_len += (size_t)got;
			return 1;
		}
		if (got == 0)
			return rmt_broken(r, err, DNET_EIO, "%s", "the daemon closed the connection");
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK) {
			if (!block)
				return 0;
			if (deadline && dnet_mono_ns() >= deadline)
				return rmt_broken(r, err, DNET_ETIMEDOUT, "%s", "timed out waiting for a reply");
			continue;
		}
		return rmt_broken(r, err, DNET_EIO, "recv: %s", strerror(errno));
	}
}

/* The next whole frame, decoded into m (m->data points into in[] until the
 * next read).  Blocks until it is there. */
int rmt_next_frame(struct remote *r, struct dnet_proto_msg *m, uint64_t deadline, struct dnet_err *err)
{
	for (;;) {
		size_t flen = 0;
		struct dnet_err e;
		int pk = wire_peek(r->in ? r->in + r->in_pos : NULL, r->in_len - r->in_pos, &flen, &e); /* in is NULL before the first read */
		if (pk < 0)
			return rmt_broken(r, err, DNET_EPROTO, "bad reply: %s", e.msg);
		if (pk > 0) {
			if (wire_decode(r->in + r->in_pos, flen, m, &e) != 0)
				return rmt_broken(r, err, DNET_EPROTO, "bad reply: %s", e.msg);
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
					return rmt_broken(r, err, DNET_ENOMEM, "%s", "out of memory for a reply");
				r->in = p;
				r->in_cap = flen + 4096;
			}
		}
		int rc = rmt_read_some(r, deadline, true, err);
		if (rc < 0)
			return rc;
	}
}

/* One request, one reply (after the frames already queued, posted ones
 * included, whose ERRORs are kept on the way).  extra_ns lengthens the
 * deadline (waits, delays).  An ERROR reply becomes the return code and
 * message. */
int rmt_rpc(struct remote *r, struct dnet_proto_msg *req, struct dnet_proto_msg *rep,
	       uint64_t extra_ns, struct dnet_err *err)
{
	if (r->broken)
		return dnet_seterr(err, DNET_EIO, "dnetd at %s: connection unusable (%s)", r->addr,
				   r->broken_why);
	req->id = ++r->next_id;
	req->flags = 0;
	int rc = wire_encode(&r->out, req, err);
	if (rc)
		return rc;
	uint64_t deadline = 0;
	if (r->timeout_ns) {
		deadline = dnet_mono_ns();
		deadline += r->timeout_ns;
		deadline = deadline > UINT64_MAX - extra_ns ? 0 : deadline + extra_ns;
	}
	bool sent = true;
	if ((rc = rmt_flush_out(r, deadline, err))) {
		if (rc != -EPIPE)
			return rc;
		sent = false;
		deadline = dnet_mono_ns() + 100000000ull; /* what is already there */
	}
	for (;;) {
		if ((rc = rmt_next_frame(r, rep, deadline, err)))
			return rc;
		if (rep->type == DNET_MSG_ERROR && rep->id != req->id && rmt_is_posted_id(r, rep->id, req->id)) {
			rmt_keep_posted_error(r, rep);
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
			return rmt_broken(r, err, DNET_EPROTO, "%s", "reply to another request (id mismatch)");
		return dnet_seterr(err, (int)rep->code, "%s", rep->msg);
	}
	if (rep->id != req->id)
		return rmt_broken(r, err, DNET_EPROTO, "%s", "reply to another request (id mismatch)");
	if (rep->type != (req->type | DNET_MSG_REPLY))
		return rmt_broken(r, err, DNET_EPROTO, "unexpected %s", wire_type_name(rep->type));
	return 0;
}

/* ---- connecting ---- */

int rmt_connect_to(struct remote *r, const struct dnet_sockspec *a, struct dnet_err *err)
{
	uint64_t deadline = r->timeout_ns ? dnet_mono_ns() + r->timeout_ns : 0;
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
