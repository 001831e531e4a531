/* dnetd's connections: accepting them (admission caps, eviction of silent
 * and idle clients when the table is full, refusals with a reason), their
 * receive and send buffers, and queuing replies. */
#include "remote/dnetd/srv.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define ACCEPT_BURST  16
#define IN_BUSY    (64u << 10)

void srv_client_free(struct dnet_srv *s, struct client *c)
{
	srv_log(s, DNET_SRV_LOG_INFO, "client #%u disconnected", c->io.serial);
	close(c->io.fd);
	free(c->io.in);
	free(c->auth.gp);
	wire_pbuf_free(&c->io.out);
	free(c);
}

static void reject_msg(struct dnet_srv *s, int fd, const char *msg);

static void reject_busy(struct dnet_srv *s, int fd)
{
	char msg[96];
	snprintf(msg, sizeof msg, "too many clients (dnetd serves at most %u)", s->maxcl);
	reject_msg(s, fd, msg);
}

/* The caps a new connection must fit (NULL: admitted): connections that
 * have not said HELLO yet (sshd's MaxStartups: silent sockets cannot lock
 * the others out), and clients per uid or address. */
static const char *admission(struct dnet_srv *s, const struct client *n)
{
	static char why[160];
	unsigned unauth = 0, same = 0;
	for (unsigned i = 0; i < s->ncl; i++) {
		const struct client *c = s->cl[i];
		unauth += !c->auth.hello && !c->io.dead;
		same += s->spec.tcp ? strcmp(c->auth.peer, n->auth.peer) == 0 : c->auth.uid == n->auth.uid;
	}
	if (unauth >= s->max_unauth) {
		/* Past the cap, the oldest silent connection (older than 1 s: a
		 * real client says HELLO at once) makes room; a burst of new
		 * clients is still admitted. */
		struct client *old = NULL;
		uint64_t now = dnet_mono_ns();
		for (unsigned i = 0; i < s->ncl; i++) {
			struct client *c = s->cl[i];
			if (!c->auth.hello && !c->io.dead && now - c->io.born_ns > 1000000000ull && (!old || c->io.born_ns < old->io.born_ns))
				old = c;
		}
		if (old) {
			srv_log(s, DNET_SRV_LOG_INFO, "client #%u: silent for %llu ms while others wait; dropped",
			     old->io.serial, (unsigned long long)((now - old->io.born_ns) / 1000000ull));
			old->io.dead = true;
		}
	}
	if (s->max_per_peer && same >= s->max_per_peer) {
		snprintf(why, sizeof why, "too many clients from this %s (at most %u)", s->spec.tcp ? "address" : "uid",
			 s->max_per_peer);
		return why;
	}
	return NULL;
}

static void reject_code(struct dnet_srv *s, int fd, int code, const char *msg)
{
	struct dnet_pbuf b = {0};
	if (wire_encode_error(&b, 0, code, msg, NULL) == 0) {
		ssize_t w = send(fd, b.p, b.len, MSG_NOSIGNAL | MSG_DONTWAIT);
		(void)w;
	}
	wire_pbuf_free(&b);
	close(fd);
	srv_log(s, DNET_SRV_LOG_INFO, "rejected a client: %s", msg);
}

static void reject_msg(struct dnet_srv *s, int fd, const char *msg)
{
	reject_code(s, fd, DNET_EBUSY, msg);
}

/* The table is full: rather than refuse the new connection, drop the
 * oldest one that has not said HELLO (whatever its age), if any.  Without
 * this, 64 silent sockets (refreshed before the grace time runs out) kept
 * every real client out ("too many clients"); now a real client, which says
 * HELLO at once, gets in unless max-clients newer silent ones arrive first. */
static bool evict_silent(struct dnet_srv *s)
{
	unsigned old = s->ncl;
	for (unsigned i = 0; i < s->ncl; i++) {
		const struct client *c = s->cl[i];
		if (!c->auth.hello && (old == s->ncl || c->io.born_ns < s->cl[old]->io.born_ns))
			old = i;
	}
	if (old == s->ncl)
		return false;
	srv_log(s, DNET_SRV_LOG_INFO, "client #%u: no HELLO yet and the table is full; dropped for a new one",
	     s->cl[old]->io.serial);
	srv_client_free(s, s->cl[old]);
	memmove(&s->cl[old], &s->cl[old + 1], (s->ncl - old - 1) * sizeof *s->cl);
	s->ncl--;
	return true;
}

/* The table is full and every connection has said HELLO: the client idle
 * longest makes room, if it has been idle (no request, no reply) for more
 * than --idle-evict (60 s) and has nothing in progress (a wait, a request
 * being received or answered).  Interactive clients are never dropped for
 * thinking while there is room; 64 idle clients no longer lock everyone
 * out for ever (--idle-timeout is 0 by default). */
static bool evict_idle(struct dnet_srv *s)
{
	if (s->idle_evict_ns == UINT64_MAX)
		return false;
	uint64_t now = dnet_mono_ns(), best_at = 0;
	unsigned old = s->ncl;
	for (unsigned i = 0; i < s->ncl; i++) {
		const struct client *c = s->cl[i];
		uint64_t at = c->io.active_ns > c->io.sent_ns ? c->io.active_ns : c->io.sent_ns;
		if (!c->auth.hello || c->io.dead || c->io.closing || c->wait.kind != P_NONE || c->io.in_len || srv_out_pending(c) ||
		    c->ls.ready || now - at <= s->idle_evict_ns)
			continue;
		if (old == s->ncl || at < best_at) {
			old = i;
			best_at = at;
		}
	}
	if (old == s->ncl)
		return false;
	struct client *c = s->cl[old];
	char msg[160];
	snprintf(msg, sizeof msg, "disconnected after %llu s idle: dnetd was full (%u clients) and a new client "
		 "needed the place (dnetd --idle-evict)", (unsigned long long)((now - best_at) / 1000000000ull),
		 s->maxcl);
	srv_log(s, DNET_SRV_LOG_ERR, "client #%u (node %u, WID %u, %s): %s", c->io.serial, c->auth.node, c->auth.wid, c->auth.peer, msg);
	srv_reply_error(s, c, 0, DNET_EBUSY, msg);
	srv_flush_out(s, c);
	srv_client_free(s, c);
	memmove(&s->cl[old], &s->cl[old + 1], (s->ncl - old - 1) * sizeof *s->cl);
	s->ncl--;
	return true;
}

void srv_accept(struct dnet_srv *s)
{
	for (int i = 0; i < ACCEPT_BURST; i++) {
		int fd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0 && (errno == EMFILE || errno == ENFILE) && s->spare_fd >= 0) {
			/* Out of descriptors: the pending connection would keep the
			 * listening socket readable and the loop spinning.  Give up
			 * the spare descriptor, take the connection, refuse it. */
			int e = errno;
			close(s->spare_fd);
			s->spare_fd = -1;
			fd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
			if (fd >= 0)
				reject_busy(s, fd);
			s->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
			uint64_t t = dnet_mono_ns();
			if (t - s->fd_log_ns >= 1000000000ull || !s->fd_log_ns) {
				s->fd_log_ns = t;
				srv_log(s, DNET_SRV_LOG_ERR, "accept: %s: refusing clients (raise ulimit -n or "
				     "lower --max-clients)", strerror(e));
			}
			if (fd < 0)
				return;
			continue;
		}
		if (fd < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
				srv_log(s, DNET_SRV_LOG_ERR, "accept: %s", strerror(errno));
			return;
		}
		if (s->ncl >= s->maxcl && !evict_silent(s) && !evict_idle(s)) {
			reject_busy(s, fd);
			continue;
		}
		if (s->spec.tcp) {
			int one = 1;
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
		}
		struct client *c = calloc(1, sizeof *c);
		uint8_t *in = malloc(IN_INIT);
		if (!c || !in) {
			free(c);
			free(in);
			close(fd);
			srv_log(s, DNET_SRV_LOG_ERR, "out of memory accepting a client");
			return;
		}
		c->io.fd = fd;
		/* Privilege is the server's decision (not the HELLO's): on a UNIX
		 * socket root and the daemon's own uid may be privileged, other
		 * uids (admitted by --socket-group) are user clients; on TCP the
		 * token (required) admits privileged clients. */
		c->auth.uid = -1;
		c->auth.may_privilege = s->spec.tcp;
		if (!s->spec.tcp) {
			struct ucred cr = {.pid = 0, .uid = (uid_t)-1, .gid = (gid_t)-1};
			socklen_t cl = sizeof cr;
			if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &cl) == 0) {
				c->auth.uid = (long)cr.uid;
				c->auth.may_privilege = cr.uid == 0 || cr.uid == geteuid();
			}
			/* --allow: other uids get the nodes and WIDs of their lines,
			 * and a uid in no line is turned away at once. */
			if (!c->auth.may_privilege && s->cfg.allow) {
				char why[200];
				struct passwd *pw = c->auth.uid >= 0 ? getpwuid((uid_t)c->auth.uid) : NULL;
				if (srv_allow_grants(s, c, fd, cl == sizeof cr ? cr.gid : (gid_t)-1) != 0 || !c->auth.ngp) {
					snprintf(why, sizeof why, "uid %ld%s%s%s is not in this dnetd's allow-list "
						 "(--allow %s)", c->auth.uid, pw ? " (" : "", pw ? pw->pw_name : "", pw ? ")" : "",
						 s->cfg.allow->file);
					reject_code(s, fd, DNET_EPERM, why);
					free(c->auth.gp);
					free(c);
					free(in);
					continue;
				}
			}
			snprintf(c->auth.peer, sizeof c->auth.peer, "uid %ld", c->auth.uid);
		}
		if (s->spec.tcp) {
			struct sockaddr_storage ss;
			socklen_t sl = sizeof ss;
			if (getpeername(fd, (struct sockaddr *)&ss, &sl) == 0)
				getnameinfo((struct sockaddr *)&ss, sl, c->auth.peer, sizeof c->auth.peer, NULL, 0,
					    NI_NUMERICHOST);
		}
		const char *why = admission(s, c);
		if (why) {
			reject_msg(s, fd, why);
			free(c->auth.gp);
			free(c);
			free(in);
			continue;
		}
		c->io.born_ns = c->io.active_ns = c->io.sent_ns = dnet_mono_ns();
		c->io.in = in;
		c->io.in_cap = IN_INIT;
		c->io.serial = ++s->serial;
		c->auth.node = 1;
		s->cl[s->ncl++] = c;
		s->served++;
		srv_log(s, DNET_SRV_LOG_INFO, "client #%u connected (%u active)", c->io.serial, s->ncl);
	}
}

size_t srv_out_pending(const struct client *c)
{
	return c->io.out.len - c->io.out_off;
}

void srv_flush_out(struct dnet_srv *s, struct client *c)
{
	while (srv_out_pending(c) > 0) {
		ssize_t w = send(c->io.fd, c->io.out.p + c->io.out_off, srv_out_pending(c), MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK) {
				srv_log(s, DNET_SRV_LOG_INFO, "client #%u: send: %s", c->io.serial, strerror(errno));
				c->io.dead = true;
			}
			break;
		}
		c->io.out_off += (size_t)w;
		c->io.sent_ns = dnet_mono_ns();
	}
	if (srv_out_pending(c) == 0) {
		c->io.out.len = c->io.out_off = 0;
		if (c->io.closing)
			c->io.dead = true;
	} else if (c->io.out_off > c->io.out.cap / 2) {
		memmove(c->io.out.p, c->io.out.p + c->io.out_off, srv_out_pending(c));
		c->io.out.len -= c->io.out_off;
		c->io.out_off = 0;
	}
}

/* Read what the socket has; decode and act on whole frames. */
void srv_client_input(struct dnet_srv *s, struct client *c)
{
	for (;;) {
		if (c->io.in_len == c->io.in_cap) {
			size_t need = 0;
			struct dnet_err e;
			int pk = wire_peek(c->io.in, c->io.in_len, &need, &e);
			if (pk < 0 || (pk > 0 && c->io.in_cap >= IN_BUSY))
				break; /* a bad header, or whole frames to serve first */
			if (pk > 0)
				need = IN_BUSY; /* a client streaming small frames: read more per turn */
			uint8_t *p = realloc(c->io.in, need);
			if (!p) {
				c->io.dead = true;
				return;
			}
			c->io.in = p;
			c->io.in_cap = need;
		}
		size_t room = c->io.in_cap - c->io.in_len;
		ssize_t n = recv(c->io.fd, c->io.in + c->io.in_len, room, MSG_DONTWAIT);
		if (n > 0) {
			c->io.in_len += (size_t)n;
			if (c->io.in_len > IN_INIT)
				c->io.in_big_ns = dnet_mono_ns();
			if ((size_t)n < room)
				break; /* all there was: poll says when there is more */
			continue;
		}
		if (n == 0) {
			c->io.eof = true; /* answer what was sent, then hang up */
			return;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK) {
			srv_log(s, DNET_SRV_LOG_INFO, "client #%u: recv: %s", c->io.serial, strerror(errno));
			c->io.dead = true;
		}
		break;
	}
}

bool srv_want_input(const struct dnet_srv *s, const struct client *c)
{
	if (c->io.closing || c->io.dead || c->io.eof || srv_out_pending(c) >= OUT_HIGH || s->out_total >= OUT_TOTAL_HIGH)
		return false;
	if (c->io.in_len < c->io.in_cap)
		return true;
	/* Full: only if the frame at the start needs more room. */
	size_t need = 0;
	int pk = wire_peek(c->io.in, c->io.in_len, &need, NULL);
	return pk == 0 && need > c->io.in_cap;
}
