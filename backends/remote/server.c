/* The dnetd server loop (see server.h and docs/protocol.md). */
#include "remote/server.h"
#include "remote/server_param.h"

#include <errno.h>
#include <grp.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "dnet/backend.h"
#include "dnet/map.h"
#include "dnet/parse.h"
#include "dnet/regs.h"

#define IN_INIT       4096u
#define OUT_HIGH      (1u << 20) /* stop reading requests while this much is unsent */
#define OUT_TOTAL_HIGH (64u << 20) /* ... from anyone while all clients have this much unsent */
#define SLOW_READER_NS 10000000000ull /* a client stuck at OUT_HIGH this long is dropped */
#define ACCEPT_BURST  16
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
#define IN_BUSY    (64u << 10)
#define TURN_OUT_MAX    (2u << 20) /* reply bytes queued per loop turn, for all clients */

/* A wait or delay in progress: real time (P_WAIT, P_DELAY, re-checked from
 * the loop), or virtual time (P_VWAIT, P_VDELAY, advanced in bounded slices
 * from the loop so that no client holds the others up). */
enum pending_kind { P_NONE, P_WAIT, P_DELAY, P_VWAIT, P_VDELAY, P_REJECT };

/* Each loop turn gives a virtual-time wait or delay at most this much real
 * time, in slices of virtual time that grow while they stay cheap. */
#define SLICE_BUDGET_NS 2000000ull
#define SLICE_MIN_NS    10000ull
#define SLICE_MAX_NS    (1ull << 40)
#define SLICE_SHARE_MIN_NS 20000ull /* real time per client and turn, however many */

struct client {
	int fd;
	unsigned serial;
	bool hello;          /* HELLO accepted */
	bool closing;        /* drop once the output is sent */
	bool dead;           /* drop now */
	bool eof;            /* the peer has shut down its side */
	unsigned node, wid;
	bool privileged;
	bool may_privilege;  /* decided by the server: the peer's uid, or TCP with the token */
	long uid;            /* UNIX peer's uid (SO_PEERCRED), -1 for TCP */
	char peer[64];       /* TCP peer address, for the per-address cap */
	/* Confined (a user token, or --allow on a UNIX socket): a user client
	 * of these nodes and WIDs only (HELLO and SET_NODE are checked). */
	bool confined;
	struct grant_pair { unsigned node, wids; } *gp;
	unsigned ngp;
	const struct dnet_grant *utoken; /* the user token presented, if any */
	char vt_key[112];    /* its virtual-time budget's key (vt_bucket) */
	uint64_t born_ns, active_ns;  /* connected, last request (monotonic) */
	uint64_t sent_ns;    /* last time bytes went out */
	uint8_t *in;
	size_t in_len, in_cap;
	struct dnet_pbuf out;
	size_t out_off;
	/* A real-time wait or delay in progress. */
	enum pending_kind pending;
	uint32_t p_id, p_off, p_cond;
	uint64_t p_mask, p_value, p_timeout, p_deadline;
	uint64_t slice;      /* virtual ns per slice (P_VWAIT, P_VDELAY) */
	/* lockstep: an ordered request waits at the start of in (ls_ready)
	 * until the scheduler lets one through (ls_go); a wait is looked at
	 * first at the host's own clock (ls_looked) */
	bool ls_ready, ls_go, ls_looked;
	uint64_t ls_key;
	uint64_t ls_clock;   /* this client's host clock (virtual ns) */
	unsigned ls_home;    /* its node at its first device request: breaks ties */
	char p_msg[96];      /* P_REJECT: the refusal sent at p_deadline */
	/* Posted requests (protocol 1.1) since the last SYNC: failed (an
	 * ERROR sent for each), and of those skipped (F_STOP after a failure). */
	uint32_t p_failed, p_skipped;
	bool p_posted;          /* the pending delay is posted: no reply unless it fails */
	unsigned err_replies;   /* ERROR replies queued, to see whether a request failed */
	uint64_t in_big_ns;     /* last time the receive buffer held a large frame */
};

struct dnet_srv {
	struct dnet_srv_config cfg;
	struct dnet_sockspec spec;
	char address[300];
	int lfd;
	bool unlink_path;
	struct client **cl;
	unsigned ncl, maxcl;
	unsigned served, serial;
	bool virt;
	bool ls_started, ls_more;   /* lockstep: N clients arrived; more work than one turn's budget */
	int spare_fd;           /* /dev/null, given up to accept-and-refuse at EMFILE */
	unsigned fails, fails_unlogged;   /* failed tokens (recent, not yet logged) */
	uint64_t hello_grace_ns, idle_ns;
	size_t out_total;       /* bytes queued for all clients */
	unsigned max_unauth, max_per_peer;
	uint64_t fail_at, fail_log_ns;
	uint64_t fd_log_ns;     /* last "out of file descriptors" log line */
	uint64_t vshare;        /* real time per client with virtual work, per loop turn */
	size_t turn_out;        /* reply bytes queued in this loop turn */
	uint64_t idle_evict_ns; /* UINT64_MAX: never */
	uint64_t vt_cap;        /* the virtual-time budget per peer; UINT64_MAX: none */
	struct vt_bucket { char key[112]; uint64_t avail, at; } vt[256];
};

/* Descriptors a server needs besides its clients: stdin/out/err, the
 * listening socket, the spare, the backend's (a device file, a socket). */
#define FD_RESERVE 16u

/* ---- logging ---- */

__attribute__((format(printf, 3, 4)))
static void slog(struct dnet_srv *s, int level, const char *fmt, ...)
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

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* ---- listening ---- */

static int listen_unix(struct dnet_srv *s, struct dnet_err *err)
{
	struct sockaddr_un sa;
	struct stat st;
	memset(&sa, 0, sizeof sa);
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path, s->spec.path, strlen(s->spec.path) + 1);

	if (lstat(s->spec.path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode))
			return dnet_seterr(err, DNET_EINVAL, "%s exists and is not a socket", s->spec.path);
		int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (probe < 0)
			return dnet_seterr(err, DNET_EIO, "socket: %s", strerror(errno));
		int rc = connect(probe, (struct sockaddr *)&sa, sizeof sa);
		int e = errno;
		close(probe);
		if (rc == 0)
			return dnet_seterr(err, DNET_EBUSY, "%s: another dnetd is already listening there",
					   s->spec.path);
		if (e != ECONNREFUSED)
			return dnet_seterr(err, DNET_EIO, "%s: %s", s->spec.path, strerror(e));
		if (unlink(s->spec.path) != 0)
			return dnet_seterr(err, DNET_EIO, "cannot remove stale socket %s: %s", s->spec.path,
					   strerror(errno));
	}
	/* The socket is made under a temporary name and renamed into place once
	 * it listens: a client that sees the path never finds it refusing
	 * connections (dsh-run starts ranks as soon as the path exists). */
	char tmp[sizeof sa.sun_path];
	if (snprintf(tmp, sizeof tmp, "%s.%ld", s->spec.path, (long)getpid()) >= (int)sizeof tmp)
		snprintf(tmp, sizeof tmp, "%s", s->spec.path); /* no room: bind in place */
	memcpy(sa.sun_path, tmp, strlen(tmp) + 1);
	unlink(tmp);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return dnet_seterr(err, DNET_EIO, "socket: %s", strerror(errno));
	mode_t old = umask(0177);
	int rc = bind(fd, (struct sockaddr *)&sa, sizeof sa);
	int e = errno;
	umask(old);
	if (rc != 0) {
		close(fd);
		return dnet_seterr(err, e == EACCES ? DNET_EPERM : DNET_EIO, "bind %s: %s", s->spec.path,
				   strerror(e));
	}
	bool grp = s->cfg.socket_group != NULL;
	struct group *gr = grp ? getgrnam(s->cfg.socket_group) : NULL;
	if (grp && !gr) {
		close(fd);
		unlink(tmp);
		return dnet_seterr(err, DNET_EINVAL, "--socket-group: no group '%s'", s->cfg.socket_group);
	}
	if ((grp && chown(tmp, (uid_t)-1, gr->gr_gid) != 0) || chmod(tmp, grp ? 0660 : 0600) != 0 ||
	    listen(fd, SOMAXCONN) != 0 || (strcmp(tmp, s->spec.path) && rename(tmp, s->spec.path) != 0)) {
		e = errno;
		close(fd);
		unlink(tmp);
		return dnet_seterr(err, DNET_EIO, "listen %s: %s", s->spec.path, strerror(e));
	}
	s->unlink_path = true;
	s->lfd = fd;
	dnet_sockspec_format(&s->spec, s->address, sizeof s->address);
	return 0;
}

static int listen_tcp(struct dnet_srv *s, struct dnet_err *err)
{
	struct addrinfo hints, *res = NULL, *ai;
	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	int g = getaddrinfo(s->spec.host, s->spec.port, &hints, &res);
	if (g != 0)
		return dnet_seterr(err, DNET_EINVAL, "cannot resolve %s: %s", s->spec.host, gai_strerror(g));
	int fd = -1, e = 0;
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
		if (fd < 0) {
			e = errno;
			continue;
		}
		int one = 1;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, SOMAXCONN) == 0)
			break;
		e = errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		return dnet_seterr(err, DNET_EIO, "cannot listen on tcp:%s:%s: %s", s->spec.host,
				   s->spec.port, strerror(e));
	s->lfd = fd;
	/* Report the port actually bound (port 0 picks one). */
	struct sockaddr_storage ss;
	socklen_t sl = sizeof ss;
	char host[256], port[8];
	if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0 &&
	    getnameinfo((struct sockaddr *)&ss, sl, host, sizeof host, port, sizeof port,
			NI_NUMERICHOST | NI_NUMERICSERV) == 0) {
		snprintf(s->spec.host, sizeof s->spec.host, "%s", host);
		snprintf(s->spec.port, sizeof s->spec.port, "%s", port);
	}
	dnet_sockspec_format(&s->spec, s->address, sizeof s->address);
	return 0;
}

/* A socket handed over already listening (systemd socket activation,
 * sd_listen_fds(3)): UNIX stream or TCP; TCP still needs a token. */
static int adopt_listener(struct dnet_srv *s, int fd, struct dnet_err *err)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof ss;
	int type = 0, acc = 0;
	socklen_t tl = sizeof type, al = sizeof acc;
	if (fd < 0 || getsockname(fd, (struct sockaddr *)&ss, &sl) != 0 ||
	    getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tl) != 0 ||
	    getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &al) != 0 || type != SOCK_STREAM || !acc)
		return dnet_seterr(err, DNET_EINVAL, "activation socket (fd %d) is not a listening stream socket", fd);
	if (ss.ss_family != AF_UNIX && ss.ss_family != AF_INET && ss.ss_family != AF_INET6)
		return dnet_seterr(err, DNET_EINVAL, "activation socket (fd %d): address family %d not served", fd,
				   ss.ss_family);
	s->spec.tcp = ss.ss_family != AF_UNIX;
	if (s->spec.tcp && !s->cfg.token && !s->cfg.user_tokens)
		return dnet_seterr(err, DNET_EINVAL, "activation socket is TCP: a token is required (--token-file)");
	if (s->spec.tcp && s->cfg.allow)
		return dnet_seterr(err, DNET_EINVAL, "activation socket is TCP: --allow is for UNIX sockets "
				   "(on TCP, --user-tokens confines clients)");
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) != 0 || fcntl(fd, F_SETFD, FD_CLOEXEC) != 0)
		return dnet_seterr(err, DNET_EIO, "activation socket (fd %d): %s", fd, strerror(errno));
	s->lfd = fd;
	s->unlink_path = false; /* systemd owns the socket file */
	if (s->spec.tcp) {
		char host[256], port[8];
		if (getnameinfo((struct sockaddr *)&ss, sl, host, sizeof host, port, sizeof port,
				NI_NUMERICHOST | NI_NUMERICSERV) == 0) {
			snprintf(s->spec.host, sizeof s->spec.host, "%s", host);
			snprintf(s->spec.port, sizeof s->spec.port, "%s", port);
		}
	} else {
		const struct sockaddr_un *su = (const struct sockaddr_un *)&ss;
		size_t n = strnlen(su->sun_path, sizeof su->sun_path);
		if (n >= sizeof s->spec.path)
			n = sizeof s->spec.path - 1;
		memcpy(s->spec.path, su->sun_path, n);
		s->spec.path[n] = 0;
	}
	dnet_sockspec_format(&s->spec, s->address, sizeof s->address);
	return 0;
}

/* The grants must name nodes that exist; an allow-list goes with a UNIX
 * socket; a user token is not the admin token. */
static int grants_check(struct dnet_srv *s, struct dnet_err *err)
{
	unsigned nodes = dnet_node_count(s->cfg.dev);
	const struct dnet_grants *files[2] = {s->cfg.user_tokens, s->cfg.allow};
	for (int f = 0; f < 2; f++) {
		for (unsigned i = 0; files[f] && i < files[f]->n; i++) {
			const struct dnet_grant *g = &files[f]->g[i];
			if (g->node > nodes)
				return dnet_seterr(err, DNET_EINVAL, "%s: node %u does not exist (this dnetd serves "
						   "nodes 1..%u)", g->where, g->node, nodes);
			if (g->token && s->cfg.token && strcmp(g->token, s->cfg.token) == 0)
				return dnet_seterr(err, DNET_EINVAL, "%s: this user token is the admin token "
						   "(--token/--token-file): a token gives one set of rights", g->where);
		}
	}
	if (s->cfg.allow && !s->cfg.activated && s->spec.tcp)
		return dnet_seterr(err, DNET_EINVAL, "--allow is for UNIX sockets (on TCP, --user-tokens "
				   "confines clients)");
	return 0;
}

int dnet_srv_open(struct dnet_srv **out, const struct dnet_srv_config *cfg, struct dnet_err *err)
{
	*out = NULL;
	if (!cfg->dev || (!cfg->listen && !cfg->activated))
		return dnet_seterr(err, DNET_EINVAL, "dnet_srv_open: no device or address");
	struct dnet_srv *s = calloc(1, sizeof *s);
	if (!s)
		return dnet_seterr(err, DNET_ENOMEM, "out of memory");
	s->cfg = *cfg;
	s->lfd = -1;
	s->spare_fd = -1;
	s->hello_grace_ns = (uint64_t)(cfg->hello_grace_s ? cfg->hello_grace_s : DNET_SRV_DEFAULT_HELLO_GRACE_S) *
			    1000000000ull;
	s->max_unauth = cfg->max_unauth ? cfg->max_unauth : DNET_SRV_DEFAULT_MAX_UNAUTH;
	s->max_per_peer = cfg->max_per_peer;
	s->idle_ns = (uint64_t)cfg->idle_timeout_s * 1000000000ull;
	unsigned ev = cfg->idle_evict_s ? cfg->idle_evict_s : DNET_SRV_DEFAULT_IDLE_EVICT_S;
	s->idle_evict_ns = ev == UINT_MAX ? UINT64_MAX : (uint64_t)ev * 1000000000ull;
	s->vt_cap = cfg->vtime_budget_ns ? cfg->vtime_budget_ns : DNET_SRV_DEFAULT_VTIME_BUDGET_NS;
	s->maxcl = cfg->max_clients ? cfg->max_clients : DNET_SRV_DEFAULT_MAX_CLIENTS;
	/* Every client holds one descriptor: --max-clients must fit the
	 * process's limit (ulimit -n) beside the listening socket, the standard
	 * streams, the backend's and the spare one.  The soft limit is raised
	 * as far as needed, up to the hard limit (a common soft limit of 1024
	 * would otherwise cap a dnetd sized for hundreds of ranks). */
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
		rlim_t need = (rlim_t)s->maxcl + FD_RESERVE;
		if (need > rl.rlim_cur && rl.rlim_cur < rl.rlim_max) {
			struct rlimit up = { need < rl.rlim_max ? need : rl.rlim_max, rl.rlim_max };
			if (setrlimit(RLIMIT_NOFILE, &up) == 0)
				rl.rlim_cur = up.rlim_cur;
		}
		uint64_t room = rl.rlim_cur > FD_RESERVE ? rl.rlim_cur - FD_RESERVE : 0;
		if (room < 1) {
			free(s);
			return dnet_seterr(err, DNET_EINVAL, "the file descriptor limit (%llu, ulimit -n) leaves "
					   "no room for a client", (unsigned long long)rl.rlim_cur);
		}
		if (s->maxcl > room) {
			if (cfg->max_clients) {
				free(s);
				return dnet_seterr(err, DNET_EINVAL,
						   "--max-clients %u needs %u file descriptors, but the limit is %llu "
						   "(the hard limit, ulimit -Hn: raise it, or lower --max-clients to %llu)",
						   cfg->max_clients, cfg->max_clients + FD_RESERVE,
						   (unsigned long long)rl.rlim_cur, (unsigned long long)room);
			}
			s->maxcl = (unsigned)room;
		}
	}
	if (!s->cfg.recheck_us)
		s->cfg.recheck_us = 1000;
	if (s->cfg.token && !*s->cfg.token)
		s->cfg.token = NULL;
	if (s->cfg.token && strlen(s->cfg.token) > DNET_PROTO_TOKEN_MAX) {
		free(s);
		return dnet_seterr(err, DNET_EINVAL, "token longer than %u bytes", DNET_PROTO_TOKEN_MAX);
	}
	s->virt = (dnet_dev_caps(cfg->dev) & DNET_CAP_VIRTUAL_TIME) != 0;
	if (s->cfg.user_tokens && !s->cfg.user_tokens->n)
		s->cfg.user_tokens = NULL;
	int r = cfg->activated ? 0 : dnet_sockspec_parse(cfg->listen, &s->spec, err);
	if (r == 0 && s->spec.tcp && !s->cfg.token && !s->cfg.user_tokens)
		r = dnet_seterr(err, DNET_EINVAL,
				"listening on TCP requires a token (--token, --token-file or --user-tokens)");
	if (r == 0)
		r = grants_check(s, err);
	if (r == 0)
		s->cl = calloc(s->maxcl, sizeof *s->cl);
	if (r == 0 && !s->cl)
		r = dnet_seterr(err, DNET_ENOMEM, "out of memory");
	if (r == 0)
		r = cfg->activated ? adopt_listener(s, cfg->listen_fd, err)
				   : s->spec.tcp ? listen_tcp(s, err) : listen_unix(s, err);
	if (r == 0)
		s->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (r) {
		dnet_srv_close(s);
		return r;
	}
	*out = s;
	return 0;
}

const char *dnet_srv_address(const struct dnet_srv *s)
{
	return s->address;
}

/* ---- grants: user tokens and the allow-list (grants.h) ----
 * A confined client holds the (node, WIDs) pairs it may use: from the
 * allow-list lines that match its uid or groups (UNIX, at connect time),
 * from its user token (at HELLO), or both (then what both grant). */

static bool grant_allows(const struct client *c, unsigned node, unsigned wid)
{
	if (!c->confined)
		return true;
	for (unsigned i = 0; i < c->ngp; i++)
		if (c->gp[i].node == node && (c->gp[i].wids & (1u << wid)))
			return true;
	return false;
}

/* "node 1 WID 0,1; node 2 WID 1", for messages. */
static const char *grant_text(const struct client *c, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = 0;
	for (unsigned i = 0; i < c->ngp && n + 1 < len; i++) {
		char w[16];
		n += (size_t)snprintf(buf + n, len - n, "%snode %u WID %s", i ? "; " : "", c->gp[i].node,
				      dnet_grants_wids(c->gp[i].wids, w, sizeof w));
	}
	if (!c->ngp)
		snprintf(buf, len, "nothing");
	return buf;
}

static int grant_add(struct client *c, unsigned node, unsigned wids)
{
	for (unsigned i = 0; i < c->ngp; i++) {
		if (c->gp[i].node == node) {
			c->gp[i].wids |= wids;
			return 0;
		}
	}
	struct grant_pair *p = realloc(c->gp, (c->ngp + 1) * sizeof *p);
	if (!p)
		return -1;
	c->gp = p;
	c->gp[c->ngp].node = node;
	c->gp[c->ngp].wids = wids;
	c->ngp++;
	return 0;
}

/* A UNIX peer other than root and the daemon's uid, with --allow: the
 * lines matching its uid, its gid or a supplementary group it had when it
 * connected (SO_PEERGROUPS).  -1: out of memory. */
static int allow_grants(struct dnet_srv *s, struct client *c, int fd, gid_t gid)
{
	gid_t one[64], *groups = one;
	socklen_t gl = sizeof one;
	unsigned ng = 0;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &gl) == 0) {
		ng = gl / sizeof *groups;
	} else if (errno == ERANGE && gl > sizeof one && (groups = malloc(gl)) != NULL) {
		if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &gl) == 0)
			ng = gl / sizeof *groups;
	} else {
		groups = one;
	}
	const struct dnet_grants *a = s->cfg.allow;
	int rc = 0;
	c->confined = true;
	for (unsigned i = 0; i < a->n && rc == 0; i++) {
		const struct dnet_grant *g = &a->g[i];
		bool match = g->kind == DNET_GRANT_UID ? c->uid >= 0 && (uint32_t)c->uid == g->id : (uint32_t)gid == g->id;
		for (unsigned k = 0; !match && g->kind == DNET_GRANT_GROUP && k < ng; k++)
			match = (uint32_t)groups[k] == g->id;
		if (match)
			rc = grant_add(c, g->node, g->wids);
	}
	if (groups != one)
		free(groups);
	return rc;
}

/* The user token (if any) presented: a confined user client of its node
 * and WIDs (cut to what the allow-list grants, on a UNIX socket). */
static void grant_token(struct client *c, const struct dnet_grant *g)
{
	c->utoken = g;
	c->may_privilege = false;
	if (!c->confined) {
		c->confined = true;
		if (grant_add(c, g->node, g->wids) != 0)
			c->ngp = 0; /* out of memory: nothing granted */
		return;
	}
	unsigned j = 0;
	for (unsigned i = 0; i < c->ngp; i++) {
		if (c->gp[i].node == g->node && (c->gp[i].wids & g->wids)) {
			c->gp[j].node = g->node;
			c->gp[j].wids = c->gp[i].wids & g->wids;
			j++;
		}
	}
	c->ngp = j;
}

/* ---- clients ---- */

static void client_free(struct dnet_srv *s, struct client *c)
{
	slog(s, DNET_SRV_LOG_INFO, "client #%u disconnected", c->serial);
	close(c->fd);
	free(c->in);
	free(c->gp);
	dnet_pbuf_free(&c->out);
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
		unauth += !c->hello && !c->dead;
		same += s->spec.tcp ? strcmp(c->peer, n->peer) == 0 : c->uid == n->uid;
	}
	if (unauth >= s->max_unauth) {
		/* Past the cap, the oldest silent connection (older than 1 s: a
		 * real client says HELLO at once) makes room; a burst of new
		 * clients is still admitted. */
		struct client *old = NULL;
		uint64_t now = mono_ns();
		for (unsigned i = 0; i < s->ncl; i++) {
			struct client *c = s->cl[i];
			if (!c->hello && !c->dead && now - c->born_ns > 1000000000ull && (!old || c->born_ns < old->born_ns))
				old = c;
		}
		if (old) {
			slog(s, DNET_SRV_LOG_INFO, "client #%u: silent for %llu ms while others wait; dropped",
			     old->serial, (unsigned long long)((now - old->born_ns) / 1000000ull));
			old->dead = true;
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
	if (dnet_proto_encode_error(&b, 0, code, msg, NULL) == 0) {
		ssize_t w = send(fd, b.p, b.len, MSG_NOSIGNAL | MSG_DONTWAIT);
		(void)w;
	}
	dnet_pbuf_free(&b);
	close(fd);
	slog(s, DNET_SRV_LOG_INFO, "rejected a client: %s", msg);
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
		if (!c->hello && (old == s->ncl || c->born_ns < s->cl[old]->born_ns))
			old = i;
	}
	if (old == s->ncl)
		return false;
	slog(s, DNET_SRV_LOG_INFO, "client #%u: no HELLO yet and the table is full; dropped for a new one",
	     s->cl[old]->serial);
	client_free(s, s->cl[old]);
	memmove(&s->cl[old], &s->cl[old + 1], (s->ncl - old - 1) * sizeof *s->cl);
	s->ncl--;
	return true;
}

static size_t out_pending(const struct client *c);
static void flush_out(struct dnet_srv *s, struct client *c);
static void reply_error(struct dnet_srv *s, struct client *c, uint32_t id, int code, const char *msg);

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
	uint64_t now = mono_ns(), best_at = 0;
	unsigned old = s->ncl;
	for (unsigned i = 0; i < s->ncl; i++) {
		const struct client *c = s->cl[i];
		uint64_t at = c->active_ns > c->sent_ns ? c->active_ns : c->sent_ns;
		if (!c->hello || c->dead || c->closing || c->pending != P_NONE || c->in_len || out_pending(c) ||
		    c->ls_ready || now - at <= s->idle_evict_ns)
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
	slog(s, DNET_SRV_LOG_ERR, "client #%u (node %u, WID %u, %s): %s", c->serial, c->node, c->wid, c->peer, msg);
	reply_error(s, c, 0, DNET_EBUSY, msg);
	flush_out(s, c);
	client_free(s, c);
	memmove(&s->cl[old], &s->cl[old + 1], (s->ncl - old - 1) * sizeof *s->cl);
	s->ncl--;
	return true;
}

static void accept_clients(struct dnet_srv *s)
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
			uint64_t t = mono_ns();
			if (t - s->fd_log_ns >= 1000000000ull || !s->fd_log_ns) {
				s->fd_log_ns = t;
				slog(s, DNET_SRV_LOG_ERR, "accept: %s: refusing clients (raise ulimit -n or "
				     "lower --max-clients)", strerror(e));
			}
			if (fd < 0)
				return;
			continue;
		}
		if (fd < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
				slog(s, DNET_SRV_LOG_ERR, "accept: %s", strerror(errno));
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
			slog(s, DNET_SRV_LOG_ERR, "out of memory accepting a client");
			return;
		}
		c->fd = fd;
		/* Privilege is the server's decision (not the HELLO's): on a UNIX
		 * socket root and the daemon's own uid may be privileged, other
		 * uids (admitted by --socket-group) are user clients; on TCP the
		 * token (required) admits privileged clients. */
		c->uid = -1;
		c->may_privilege = s->spec.tcp;
		if (!s->spec.tcp) {
			struct ucred cr = {.pid = 0, .uid = (uid_t)-1, .gid = (gid_t)-1};
			socklen_t cl = sizeof cr;
			if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &cl) == 0) {
				c->uid = (long)cr.uid;
				c->may_privilege = cr.uid == 0 || cr.uid == geteuid();
			}
			/* --allow: other uids get the nodes and WIDs of their lines,
			 * and a uid in no line is turned away at once. */
			if (!c->may_privilege && s->cfg.allow) {
				char why[200];
				struct passwd *pw = c->uid >= 0 ? getpwuid((uid_t)c->uid) : NULL;
				if (allow_grants(s, c, fd, cl == sizeof cr ? cr.gid : (gid_t)-1) != 0 || !c->ngp) {
					snprintf(why, sizeof why, "uid %ld%s%s%s is not in this dnetd's allow-list "
						 "(--allow %s)", c->uid, pw ? " (" : "", pw ? pw->pw_name : "", pw ? ")" : "",
						 s->cfg.allow->file);
					reject_code(s, fd, DNET_EPERM, why);
					free(c->gp);
					free(c);
					free(in);
					continue;
				}
			}
			snprintf(c->peer, sizeof c->peer, "uid %ld", c->uid);
		}
		if (s->spec.tcp) {
			struct sockaddr_storage ss;
			socklen_t sl = sizeof ss;
			if (getpeername(fd, (struct sockaddr *)&ss, &sl) == 0)
				getnameinfo((struct sockaddr *)&ss, sl, c->peer, sizeof c->peer, NULL, 0,
					    NI_NUMERICHOST);
		}
		const char *why = admission(s, c);
		if (why) {
			reject_msg(s, fd, why);
			free(c->gp);
			free(c);
			free(in);
			continue;
		}
		c->born_ns = c->active_ns = c->sent_ns = mono_ns();
		c->in = in;
		c->in_cap = IN_INIT;
		c->serial = ++s->serial;
		c->node = 1;
		s->cl[s->ncl++] = c;
		s->served++;
		slog(s, DNET_SRV_LOG_INFO, "client #%u connected (%u active)", c->serial, s->ncl);
	}
}

static size_t out_pending(const struct client *c)
{
	return c->out.len - c->out_off;
}

static void flush_out(struct dnet_srv *s, struct client *c)
{
	while (out_pending(c) > 0) {
		ssize_t w = send(c->fd, c->out.p + c->out_off, out_pending(c), MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK) {
				slog(s, DNET_SRV_LOG_INFO, "client #%u: send: %s", c->serial, strerror(errno));
				c->dead = true;
			}
			break;
		}
		c->out_off += (size_t)w;
		c->sent_ns = mono_ns();
	}
	if (out_pending(c) == 0) {
		c->out.len = c->out_off = 0;
		if (c->closing)
			c->dead = true;
	} else if (c->out_off > c->out.cap / 2) {
		memmove(c->out.p, c->out.p + c->out_off, out_pending(c));
		c->out.len -= c->out_off;
		c->out_off = 0;
	}
}

/* Queue a reply; an encoding failure (out of memory) drops the client. */
static void reply(struct dnet_srv *s, struct client *c, struct dnet_proto_msg *m)
{
	struct dnet_err e;
	if (dnet_proto_encode(&c->out, m, &e) != 0) {
		slog(s, DNET_SRV_LOG_ERR, "client #%u: cannot encode %s: %s", c->serial,
		     dnet_proto_type_name(m->type), e.msg);
		c->dead = true;
	}
}

static void reply_empty(struct dnet_srv *s, struct client *c, uint16_t type, uint32_t id)
{
	struct dnet_proto_msg m;
	memset(&m, 0, sizeof m);
	m.type = (uint16_t)(type | DNET_MSG_REPLY);
	m.id = id;
	reply(s, c, &m);
}

static void reply_error(struct dnet_srv *s, struct client *c, uint32_t id, int code, const char *msg)
{
	struct dnet_err e;
	slog(s, DNET_SRV_LOG_DEBUG, "client #%u: error reply %s: %s", c->serial, dnet_strerror(code < 0 ? -code : code), msg);
	c->err_replies++;
	if (dnet_proto_encode_error(&c->out, id, code, msg, &e) != 0)
		c->dead = true;
}

/* ---- permission ---- */

/* Whether the 4 KB page holds part of WID wid's sub-area of a per-WID region. */
static bool page_of_wid(uint32_t page, unsigned wid)
{
	for (int r = 0; r < DNET_REGION_COUNT; r++) {
		const struct dnet_region_info *ri = dnet_region_info((enum dnet_region)r);
		if (!ri || !ri->per_wid || ri->privileged)
			continue;
		uint32_t first = ri->base[wid] / DNET_PAGE_SIZE;
		uint32_t last = (ri->base[wid] + ri->size - 1) / DNET_PAGE_SIZE;
		if (page >= first && page <= last)
			return true;
	}
	return false;
}

/* A user client may touch only its own WID's pages; never the System Register. */
static int check_access(const struct client *c, uint64_t off, uint64_t len, char *msg, size_t msz)
{
	if (c->privileged)
		return 0;
	if (len == 0)
		len = 1;
	uint64_t end = off + len - 1;
	for (uint64_t page = off / DNET_PAGE_SIZE; page <= end / DNET_PAGE_SIZE; page++) {
		uint64_t a = page * DNET_PAGE_SIZE < off ? off : page * DNET_PAGE_SIZE;
		if (a >= DNET_SREG_BASE && a < DNET_SREG_BASE + DNET_SREG_SIZE) {
			snprintf(msg, msz, "permission denied: 0x%05" PRIx64 " is in the System Register "
				 "(privileged clients only; this client is a user)", a);
			return -DNET_EPERM;
		}
		if (a >= DNET_MAP_SIZE)
			return 0; /* out of the map: the device reports the range error */
		if (!page_of_wid((uint32_t)page, c->wid)) {
			enum dnet_region r;
			unsigned w;
			uint32_t o;
			if (dnet_addr_lookup((uint32_t)a, &r, &w, &o) == 0 && dnet_region_info(r))
				snprintf(msg, msz, "permission denied: 0x%05" PRIx64 " is in the %s of WID %u "
					 "(this client is a user of WID %u)", a, dnet_region_info(r)->title, w,
					 c->wid);
			else
				snprintf(msg, msz, "permission denied: 0x%05" PRIx64 " is not in a page of "
					 "WID %u (this client is a user of WID %u)", a, c->wid, c->wid);
			return -DNET_EPERM;
		}
	}
	return 0;
}

/* ---- requests ---- */

static bool token_ok(const char *want, const char *got)
{
	size_t lw = strlen(want), lg = strlen(got);
	unsigned char d = (unsigned char)(lw != lg);
	for (size_t i = 0; i < lg; i++)
		d |= (unsigned char)(got[i] ^ want[lw ? i % lw : 0]);
	return d == 0;
}

/* Which token a HELLO presents: 1 the admin token, 0 none is required,
 * -1 a wrong or missing one; *user the user token it is, if any.  Every
 * token is compared (no early exit): the time does not say which matched. */
static int token_match(const struct dnet_srv *s, const char *got, const struct dnet_grant **user)
{
	const struct dnet_grants *ut = s->cfg.user_tokens;
	*user = NULL;
	if (!s->cfg.token && !ut)
		return 0;
	bool admin = s->cfg.token && token_ok(s->cfg.token, got);
	for (unsigned i = 0; ut && i < ut->n; i++)
		if (token_ok(ut->g[i].token, got) && !*user)
			*user = &ut->g[i];
	if (admin || *user)
		return 1;
	/* A UNIX socket with user tokens and no admin token: the uid is the
	 * credential, a user token only narrows it; none is needed. */
	return !s->spec.tcp && !s->cfg.token && !got[0] ? 0 : -1;
}

static void do_hello(struct dnet_srv *s, struct client *c, const struct dnet_proto_msg *m)
{
	char msg[DNET_PROTO_MSG_MAX + 1];
	unsigned nodes = dnet_node_count(s->cfg.dev);
	if (m->ver_major != DNET_PROTO_VERSION_MAJOR) {
		snprintf(msg, sizeof msg, "protocol version mismatch: client speaks %u.%u, dnetd speaks %u.%u",
			 m->ver_major, m->ver_minor, DNET_PROTO_VERSION_MAJOR, DNET_PROTO_VERSION_MINOR);
		reply_error(s, c, m->id, DNET_EPROTO, msg);
		c->closing = true;
		return;
	}
	const struct dnet_grant *utok = NULL;
	if (token_match(s, m->token, &utok) < 0) {
		/* A failed token is answered only after a delay that grows with
		 * the recent failures (100 ms doubling to 6.4 s), and logged by
		 * default, at most once a second: guessing is slow and seen. */
		uint64_t now = mono_ns();
		if (now - s->fail_at > 60000000000ull)
			s->fails = 0;
		s->fail_at = now;
		unsigned shift = s->fails < 6 ? s->fails : 6;
		s->fails++;
		s->fails_unlogged++;
		if (now - s->fail_log_ns >= 1000000000ull || !s->fail_log_ns) {
			slog(s, DNET_SRV_LOG_ERR, "client #%u%s: %s (%u failed token%s since the last report)",
			     c->serial, s->spec.tcp ? "" : "", m->token[0] ? "bad token" : "no token",
			     s->fails_unlogged, s->fails_unlogged == 1 ? "" : "s");
			s->fails_unlogged = 0;
			s->fail_log_ns = now;
		}
		c->p_id = m->id;
		snprintf(c->p_msg, sizeof c->p_msg, "%s",
			 m->token[0] ? "bad token" : "this dnetd requires a token (token=T or DNET_TOKEN)");
		c->p_deadline = now + (100000000ull << shift);
		c->pending = P_REJECT;
		return;
	}
	if (utok)
		grant_token(c, utok);
	/* A confined client (user token, --allow) can only ask for less than
	 * its grant: privilege, or a node or WID outside it, is refused. */
	unsigned node = m->node ? m->node : c->confined && c->ngp ? c->gp[0].node : 1;
	if (c->confined) {
		char what[120], from[100];
		if (utok)
			snprintf(from, sizeof from, "its user token");
		else
			snprintf(from, sizeof from, "the allow-list, for uid %ld", c->uid);
		if (m->privileged || !grant_allows(c, node, m->wid)) {
			if (m->privileged)
				snprintf(msg, sizeof msg, "permission denied: this client may be a user only (%.90s); "
					 "connect as a user (remote backend option ,user)", from);
			else
				snprintf(msg, sizeof msg, "permission denied: node %u WID %u is not granted (%.90s grants "
					 "%.100s)", node, m->wid, from, grant_text(c, what, sizeof what));
			slog(s, DNET_SRV_LOG_ERR, "client #%u (%s %.80s): %s", c->serial, utok ? "user token of" : "--allow",
			     utok ? utok->where : s->cfg.allow->file, msg);
			reply_error(s, c, m->id, DNET_EPERM, msg);
			c->closing = true;
			return;
		}
	} else if (m->privileged && !c->may_privilege) {
		slog(s, DNET_SRV_LOG_INFO, "client #%u: uid %ld asked to be privileged; served as a user "
		     "(only root and uid %ld may be)", c->serial, c->uid, (long)geteuid());
	}
	if (node > nodes) {
		snprintf(msg, sizeof msg, "node %u does not exist (this dnetd serves nodes 1..%u)", node, nodes);
		reply_error(s, c, m->id, DNET_EINVAL, msg);
		c->closing = true;
		return;
	}
	c->hello = true;
	if (utok)
		snprintf(c->vt_key, sizeof c->vt_key, "token %.100s", utok->where);
	else
		snprintf(c->vt_key, sizeof c->vt_key, "%s", c->peer);
	c->node = node;
	c->wid = m->wid;
	c->privileged = m->privileged && c->may_privilege; /* a HELLO can only ask for less */
	unsigned caps = dnet_dev_caps(s->cfg.dev) | DNET_CAP_REMOTE;
	if (!c->privileged)
		caps &= ~(DNET_CAP_PRIVILEGED | DNET_CAP_BACKDOOR);

	struct dnet_proto_msg r;
	memset(&r, 0, sizeof r);
	r.type = DNET_MSG_HELLO | DNET_MSG_REPLY;
	r.id = m->id;
	r.ver_major = DNET_PROTO_VERSION_MAJOR;
	r.ver_minor = DNET_PROTO_VERSION_MINOR;
	r.nodes = nodes;
	r.node = node;
	r.caps = caps;
	r.max_payload = DNET_PROTO_MAX_PAYLOAD;
	/* a 1.0/1.1 client decodes exactly 24 bytes */
	r.cluster = m->ver_major == DNET_PROTO_VERSION_MAJOR && m->ver_minor >= 2 ? dnet_dev_cluster(s->cfg.dev) : 0;
	reply(s, c, &r);
	slog(s, DNET_SRV_LOG_INFO, "client #%u: node %u, WID %u, %s%s", c->serial, node, c->wid,
	     c->privileged ? "privileged" : "user", c->confined ? " (confined by its grant)" : "");
}

/* Point the shared device at the client's node. */
static int select_node(struct dnet_srv *s, struct client *c, struct dnet_err *e)
{
	if (dnet_node(s->cfg.dev) == c->node)
		return 0;
	return dnet_set_node(s->cfg.dev, c->node, e);
}

static bool wait_check(struct dnet_srv *s, struct client *c, uint64_t *last, int *rc, struct dnet_err *e)
{
	*rc = select_node(s, c, e);
	if (*rc == 0)
		*rc = dnet_read64(s->cfg.dev, c->p_off, last, e);
	if (*rc)
		return true;
	return dnet_cond_eval((enum dnet_cond)c->p_cond, *last & c->p_mask, c->p_value);
}

static void reply_wait(struct dnet_srv *s, struct client *c, uint32_t id, bool timed_out, uint64_t last,
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
	reply(s, c, &r);
}

/* The message of a real-time wait that ran out of time: the same words as
 * the core's own polling dnet_wait(), so that a script sees the same text
 * directly and through dnetd. */
static void timeout_msg(const struct client *c, uint64_t last, uint64_t timeout_ns, char *buf, size_t len)
{
	snprintf(buf, len, "timed out after %llu ns waiting for (0x%x & 0x%llx) %s 0x%llx (last 0x%llx)",
		 (unsigned long long)timeout_ns, c->p_off, (unsigned long long)c->p_mask,
		 dnet_cond_name((enum dnet_cond)c->p_cond), (unsigned long long)c->p_value,
		 (unsigned long long)last);
}

static void vpending_step(struct dnet_srv *s, struct client *c);

/* ---- the virtual-time budget (decision D-DNETD-VTIME, docs/decisions.md) ----
 * On a virtual-time backend idle virtual time is skipped whole, so one
 * client's DELAYs and never-true WAITs could push the clock every client
 * shares to the end of virtual time (2^62 ns, D-SIM-TIME-END) in seconds,
 * after which every later delay or primitive of the others is refused.
 * Decided here, once: the virtual time one peer (a user token; else a uid
 * on a UNIX socket, an address on TCP, as --max-per-peer) adds by DELAY
 * and WAIT is drawn from a bucket that holds at most vt_cap (--vtime-budget,
 * default 1 h) and refills at vt_cap per minute of real time.  A DELAY is
 * charged whole when it starts and refused when the bucket holds less (one
 * longer than vt_cap never fits); a WAIT is charged each slice's advance of
 * the clock and ends with EBUSY when the bucket is empty.  Busy virtual
 * time costs real time anyway and is bounded by the slices; at 1 h per
 * minute 64 peers would need 20,000 hours to reach the end.  A peer's
 * bucket outlives its connections (reconnecting does not refill it); the
 * table keeps the 256 peers seen last (one untouched for a minute is full). */
#define VT_REFILL_NS 60000000000ull

/* The virtual time left before the end (D-SIM-TIME-END).  The clock can
 * stand a little past it (the emulator charges a host access made at the
 * end), and END - now must then not wrap: it did, and a wait's deadline
 * went to 1.6e19 ns. */
static uint64_t vt_room(uint64_t vnow)
{
	return vnow >= DNET_VTIME_END ? 0 : DNET_VTIME_END - vnow;
}

static struct vt_bucket *vt_bucket(struct dnet_srv *s, const struct client *c)
{
	struct vt_bucket *spare = NULL, *lru = &s->vt[0];
	for (size_t i = 0; i < sizeof s->vt / sizeof s->vt[0]; i++) {
		struct vt_bucket *b = &s->vt[i];
		if (b->key[0] && strcmp(b->key, c->vt_key) == 0)
			return b;
		if (!b->key[0])
			spare = spare ? spare : b;
		else if (b->at < lru->at)
			lru = b;
	}
	struct vt_bucket *b = spare ? spare : lru;
	snprintf(b->key, sizeof b->key, "%s", c->vt_key);
	b->avail = s->vt_cap;
	b->at = mono_ns();
	return b;
}

/* What the client's peer may still add to the clock (UINT64_MAX: no cap). */
static uint64_t vt_avail(struct dnet_srv *s, const struct client *c)
{
	if (s->vt_cap == UINT64_MAX || !s->virt)
		return UINT64_MAX;
	struct vt_bucket *b = vt_bucket(s, c);
	uint64_t now = mono_ns(), dt = now - b->at;
	uint64_t add = dt >= VT_REFILL_NS ? s->vt_cap : (uint64_t)((double)s->vt_cap * ((double)dt / (double)VT_REFILL_NS));
	b->avail = add >= s->vt_cap - b->avail ? s->vt_cap : b->avail + add;
	b->at = now;
	return b->avail;
}

static void vt_charge(struct dnet_srv *s, const struct client *c, uint64_t ns)
{
	if (s->vt_cap == UINT64_MAX || !s->virt)
		return;
	struct vt_bucket *b = vt_bucket(s, c);
	b->avail = ns >= b->avail ? 0 : b->avail - ns;
}

/* A DELAY of ns: charged whole, or refused (0 or an error code). */
static int vt_delay(struct dnet_srv *s, const struct client *c, uint64_t ns, struct dnet_err *e)
{
	uint64_t avail = vt_avail(s, c);
	if (ns <= avail) {
		vt_charge(s, c, ns);
		return 0;
	}
	char a[32], b[32], d[32];
	dnet_format_time(ns, d, sizeof d);
	dnet_format_time(s->vt_cap, b, sizeof b);
	dnet_format_time(avail, a, sizeof a);
	if (ns > s->vt_cap)
		return dnet_seterr(e, DNET_ERANGE, "delay of %s refused: a client may add at most %s to the "
				   "shared virtual clock (dnetd --vtime-budget)", d, b);
	return dnet_seterr(e, DNET_EBUSY, "delay of %s refused: this %s may add only %s more to the shared "
			   "virtual clock now (its budget of %s refills over a minute; dnetd --vtime-budget)", d,
			   c->utoken ? "user token" : s->spec.tcp ? "address" : "uid", a, b);
}

/* Lockstep: the requests that act on the device or on a host's clock are
 * served in virtual-time order; the others (HELLO, PING-like queries,
 * node selection, statistics, the clock) at once. */
static bool ls_ordered(const struct dnet_srv *s, const struct client *c, uint16_t type)
{
	if (!s->cfg.lockstep || !c->hello)
		return false;
	switch (type) {
	case DNET_MSG_HELLO: case DNET_MSG_SET_NODE: case DNET_MSG_NOW: case DNET_MSG_STAT:
	case DNET_MSG_STAT_NAMES: case DNET_MSG_SYNC: case DNET_MSG_PARAM:
		return false;
	default:
		return true;
	}
}

static void do_request(struct dnet_srv *s, struct client *c, const struct dnet_proto_msg *m)
{
	struct dnet_dev *dev = s->cfg.dev;
	struct dnet_err e;
	struct dnet_proto_msg r;
	char msg[256];
	uint8_t *buf = NULL;
	int rc = 0;

	dnet_clearerr(&e);
	memset(&r, 0, sizeof r);
	r.type = (uint16_t)(m->type | DNET_MSG_REPLY);
	r.id = m->id;

	if (m->type == DNET_MSG_HELLO) {
		if (c->hello) {
			reply_error(s, c, m->id, DNET_EPROTO, "HELLO sent twice");
			return;
		}
		do_hello(s, c, m);
		return;
	}
	if (!c->hello) {
		snprintf(msg, sizeof msg, "HELLO expected before %s", dnet_proto_type_name(m->type));
		reply_error(s, c, m->id, DNET_EPROTO, msg);
		c->closing = true;
		return;
	}

	/* Permission first: the device never sees a forbidden access. */
	switch (m->type) {
	case DNET_MSG_READ:
	case DNET_MSG_WRITE:
		rc = check_access(c, m->off, m->width, msg, sizeof msg);
		break;
	case DNET_MSG_READ_BLOCK:
	case DNET_MSG_WRITE_BLOCK:
	case DNET_MSG_CACHE_FLUSH:
	case DNET_MSG_PREFETCH:
		rc = check_access(c, m->off, m->len, msg, sizeof msg);
		break;
	case DNET_MSG_WAIT:
		rc = check_access(c, m->off, 8, msg, sizeof msg);
		break;
	case DNET_MSG_SODIMM_READ:
	case DNET_MSG_SODIMM_WRITE:
		if (!c->privileged) {
			snprintf(msg, sizeof msg, "permission denied: the SO-DIMM backdoor is for privileged "
				 "clients only");
			rc = -DNET_EPERM;
		}
		break;
	default:
		break;
	}
	if (rc) {
		slog(s, DNET_SRV_LOG_INFO, "client #%u: %s", c->serial, msg);
		reply_error(s, c, m->id, rc, msg);
		return;
	}

	if (m->type == DNET_MSG_SYNC) {
		/* Every request before it is done (served in order): say how
		 * many posted ones failed, and start counting afresh. */
		r.count = c->p_failed;
		r.skipped = c->p_skipped;
		c->p_failed = c->p_skipped = 0;
		reply(s, c, &r);
		return;
	}
	if (m->type != DNET_MSG_SET_NODE && m->type != DNET_MSG_STAT_NAMES) {
		rc = select_node(s, c, &e);
		if (rc)
			goto fail;
	}

	switch (m->type) {
	case DNET_MSG_READ: {
		uint64_t v[2] = {0, 0};
		switch (m->width) {
		case 1: { uint8_t x; rc = dnet_read8(dev, m->off, &x, &e); v[0] = x; break; }
		case 2: { uint16_t x; rc = dnet_read16(dev, m->off, &x, &e); v[0] = x; break; }
		case 4: { uint32_t x; rc = dnet_read32(dev, m->off, &x, &e); v[0] = x; break; }
		case 8:
			if (m->off == DNET_SREG_BASE + DNET_SR_CTL_RESET && c->privileged) {
				/* The client's library sends this read only after its
				 * user confirmed it (dnet_reg_read_effect): the read
				 * resets the controller, on purpose (App. B). */
				const struct dnet_reg *reg = dnet_reg_by_name("ctl_reset");
				rc = reg ? dnet_reg_read_effect(dev, 0, reg, &v[0], &e)
					 : dnet_seterr(&e, DNET_EINVAL, "no ctl_reset register");
			} else {
				rc = dnet_read64(dev, m->off, &v[0], &e);
			}
			break;
		default: rc = dnet_read128(dev, m->off, v, &e); break;
		}
		if (rc)
			goto fail;
		r.width = m->width;
		r.val[0] = v[0];
		r.val[1] = v[1];
		break;
	}
	case DNET_MSG_WRITE:
		switch (m->width) {
		case 1: rc = dnet_write8(dev, m->off, (uint8_t)m->val[0], &e); break;
		case 2: rc = dnet_write16(dev, m->off, (uint16_t)m->val[0], &e); break;
		case 4: rc = dnet_write32(dev, m->off, (uint32_t)m->val[0], &e); break;
		case 8: rc = dnet_write64(dev, m->off, m->val[0], &e); break;
		default: rc = dnet_write128(dev, m->off, m->val, &e); break;
		}
		break;
	case DNET_MSG_READ_BLOCK:
		buf = malloc(m->len ? m->len : 1);
		if (!buf) {
			rc = dnet_seterr(&e, DNET_ENOMEM, "out of memory");
			break;
		}
		/* dnet_block_transfer, not dnet_read_block: the client's core
		 * already flushed the cache lines (backend.h). */
		rc = dnet_block_transfer(dev, m->off, buf, m->len, false, &e);
		r.data = buf;
		r.data_len = m->len;
		break;
	case DNET_MSG_WRITE_BLOCK:
		rc = dnet_block_transfer(dev, m->off, (void *)(uintptr_t)m->data, m->len, true, &e);
		break;
	case DNET_MSG_WC_FLUSH:
		rc = dnet_wc_flush(dev, &e);
		break;
	case DNET_MSG_CACHE_FLUSH:
		rc = dnet_cache_flush(dev, m->off, m->len, &e);
		break;
	case DNET_MSG_PREFETCH:
		rc = dnet_prefetch(dev, m->off, m->len, &e);
		break;
	case DNET_MSG_SET_NODE:
		if (m->node > dnet_node_count(dev)) {
			rc = dnet_seterr(&e, DNET_EINVAL, "node %u does not exist (nodes 1..%u)", m->node,
					 dnet_node_count(dev));
			break;
		}
		if (!grant_allows(c, m->node, c->wid)) {
			char what[120];
			rc = dnet_seterr(&e, DNET_EPERM, "permission denied: node %u WID %u is not granted to this "
					 "client (it may use %s)", m->node, c->wid, grant_text(c, what, sizeof what));
			break;
		}
		rc = dnet_set_node(dev, m->node, &e);
		if (rc == 0)
			c->node = m->node;
		break;
	case DNET_MSG_WAIT:
		if (s->virt) {
			/* Virtual time: advanced from the loop in bounded slices
			 * (vpending_step), the deadline in virtual time. */
			uint64_t vnow = 0;
			if ((rc = dnet_now(dev, &vnow, &e)))
				break;
			c->p_id = m->id;
			c->p_off = m->off;
			c->p_cond = m->cond;
			c->p_mask = m->mask;
			c->p_value = m->value;
			c->p_timeout = m->timeout_ns;
			c->p_deadline = vt_room(vnow) < m->timeout_ns ? (vnow > DNET_VTIME_END ? vnow : DNET_VTIME_END)
									: vnow + m->timeout_ns;
			c->slice = SLICE_MIN_NS;
			c->pending = P_VWAIT;
			if (s->cfg.lockstep) {
				c->ls_looked = false; /* looked at by lockstep_run */
				return;
			}
			vpending_step(s, c);
			return;
		}
		/* Real time: check now, then from the loop until the deadline. */
		c->p_id = m->id;
		c->p_off = m->off;
		c->p_cond = m->cond;
		c->p_mask = m->mask;
		c->p_value = m->value;
		c->p_timeout = m->timeout_ns;
		c->p_deadline = sat_add(mono_ns(), m->timeout_ns);
		{
			uint64_t last = 0;
			if (wait_check(s, c, &last, &rc, &e)) {
				if (rc)
					break;
				reply_wait(s, c, m->id, false, last, NULL);
				return;
			}
			if (m->timeout_ns == 0) {
				timeout_msg(c, last, 0, msg, sizeof msg);
				reply_wait(s, c, m->id, true, last, msg);
				return;
			}
		}
		c->pending = P_WAIT;
		return;
	case DNET_MSG_DELAY:
		if (s->virt && m->ns && (rc = vt_delay(s, c, m->ns, &e)))
			break;
		if (s->virt && s->cfg.lockstep) {
			/* Per-host clocks: a delay moves only this host's. */
			rc = dnet_delay(dev, m->ns, &e);
			break;
		}
		if (s->virt && m->ns) {
			uint64_t vnow = 0;
			if ((rc = dnet_now(dev, &vnow, &e)))
				break;
			if (m->ns > vt_room(vnow)) {
				/* Refused here: the emulator's own check wraps once its
				 * clock stands past the end. */
				rc = dnet_seterr(&e, DNET_ERANGE, "a delay of %llu ns would pass the end of virtual "
						 "time (2^62 ns; the clock is at %llu ns)", (unsigned long long)m->ns,
						 (unsigned long long)vnow);
				break;
			}
			c->p_id = m->id;
			c->p_deadline = vnow + m->ns;
			c->slice = SLICE_MIN_NS;
			c->pending = P_VDELAY;
			vpending_step(s, c);
			return;
		}
		if (s->virt || m->ns == 0) {
			rc = dnet_delay(dev, m->ns, &e);
			break;
		}
		c->p_id = m->id;
		c->p_deadline = sat_add(mono_ns(), m->ns);
		c->pending = P_DELAY;
		return;
	case DNET_MSG_NOW:
		rc = dnet_now(dev, &r.ns, &e);
		break;
	case DNET_MSG_BUSY: {
		bool busy = false;
		rc = dnet_busy(dev, &busy, &e);
		r.busy = busy;
		break;
	}
	case DNET_MSG_SODIMM_READ:
		buf = malloc(m->len ? m->len : 1);
		if (!buf) {
			rc = dnet_seterr(&e, DNET_ENOMEM, "out of memory");
			break;
		}
		rc = dnet_sodimm_access(dev, m->addr, buf, m->len, false, &e);
		r.data = buf;
		r.data_len = m->len;
		break;
	case DNET_MSG_SODIMM_WRITE:
		rc = dnet_sodimm_access(dev, m->addr, (void *)(uintptr_t)m->data, m->len, true, &e);
		break;
	case DNET_MSG_STAT:
		rc = dnet_stat(dev, m->name, &r.stat, &e);
		break;
	case DNET_MSG_STAT_NAMES: {
		const char *const *names = dnet_stat_names(dev);
		uint32_t n = 0;
		while (names && names[n] && n < DNET_PROTO_NAMES_MAX)
			n++;
		r.names = names;
		r.count = n;
		break;
	}
	case DNET_MSG_PARAM: {
		char *text;
		rc = dnet_srv_param(dev, c->privileged, m, &text, &r.data_len, &e);
		buf = (uint8_t *)text;
		r.data = buf;
		break;
	}
	default:
		rc = dnet_seterr(&e, DNET_EPROTO, "unexpected %s", dnet_proto_type_name(m->type));
		break;
	}
fail:
	if (rc) {
		if (!e.msg[0])
			snprintf(e.msg, sizeof e.msg, "%s failed (%s)", dnet_proto_type_name(m->type),
				 dnet_strerror(-rc));
		reply_error(s, c, m->id, rc, e.msg);
	} else if (!(m->flags & DNET_PROTO_F_POSTED)) {
		reply(s, c, &r);
	}
	free(buf);
}

/* A posted request: skipped when it asks to stop after a failure and one
 * happened; otherwise served, and answered only if it fails. */
static void do_posted(struct dnet_srv *s, struct client *c, const struct dnet_proto_msg *m)
{
	if ((m->flags & DNET_PROTO_F_STOP) && c->p_failed) {
		c->p_failed++;
		c->p_skipped++;
		return;
	}
	unsigned before = c->err_replies;
	c->p_posted = true;
	do_request(s, c, m);
	if (c->err_replies != before)
		c->p_failed++;
	if (c->pending == P_NONE)
		c->p_posted = false;
}

/* The end of a pending wait or delay: failed (a posted delay counts among
 * the posted failures), or a delay done (a posted one is not answered). */
static void pending_fail(struct dnet_srv *s, struct client *c, int rc, const char *msg)
{
	c->pending = P_NONE;
	reply_error(s, c, c->p_id, rc, msg);
	if (c->p_posted)
		c->p_failed++;
	c->p_posted = false;
}

static void delay_done(struct dnet_srv *s, struct client *c)
{
	c->pending = P_NONE;
	if (!c->p_posted)
		reply_empty(s, c, DNET_MSG_DELAY, c->p_id);
	c->p_posted = false;
}

/* Advance a virtual-time wait or delay by slices of virtual time for at
 * most its share of SLICE_BUDGET_NS of real time (the budget divided among
 * the clients with virtual work), then let the loop serve the others.
 * The slices add up to exactly what one dnet_wait()/dnet_delay() would do:
 * the same events in the same order, the same final virtual time. */
static void vpending_step(struct dnet_srv *s, struct client *c)
{
	struct dnet_dev *dev = s->cfg.dev;
	uint64_t t0 = mono_ns();
	uint64_t share = s->vshare ? s->vshare : SLICE_BUDGET_NS;
	for (;;) {
		struct dnet_err e;
		dnet_clearerr(&e);
		uint64_t vnow = 0, last = 0;
		int rc = select_node(s, c, &e);
		if (rc == 0)
			rc = dnet_now(dev, &vnow, &e);
		if (rc) {
			pending_fail(s, c, rc, e.msg);
			return;
		}
		uint64_t left = c->p_deadline > vnow ? c->p_deadline - vnow : 0;
		/* A slice starts at the device's next event: virtual time in
		 * which nothing happens costs nothing and is skipped whole, so
		 * the slice measures busy time only and grows only while busy
		 * time is cheap.  (It used to grow while the queue was empty, to
		 * 2^40 ns: then another client queued eight 4 GiB RVS and the
		 * next slice ran them all, 300 ms with no one else served.) */
		uint64_t next = vnow;
		struct dnet_err se;
		if (dnet_stat(dev, "next_event_ns", &next, &se) != 0 || next < vnow)
			next = vnow;
		uint64_t step = sat_add(next - vnow, c->slice);
		if (step > left)
			step = left;
		bool final = step == left;
		/* A wait draws each slice from its peer's virtual-time budget
		 * (vt_delay: a delay was charged whole when it started); once it
		 * is spent the wait ends with EBUSY (not a timeout: its condition
		 * was not given the time asked for). */
		uint64_t budget = c->pending == P_VWAIT ? vt_avail(s, c) : UINT64_MAX;
		bool cut = step > budget;
		if (cut) {
			step = budget;
			final = false;
		}
		uint64_t ts = mono_ns();
		if (c->pending == P_VDELAY) {
			rc = dnet_delay(dev, step, &e);
			if (rc) {
				pending_fail(s, c, rc, e.msg);
				return;
			}
			if (final) {
				delay_done(s, c);
				return;
			}
		} else {
			rc = dnet_wait(dev, c->p_off, c->p_mask, (enum dnet_cond)c->p_cond, c->p_value, step,
				       &last, &e);
			uint64_t vafter = vnow;
			if (budget != UINT64_MAX && dnet_now(dev, &vafter, &se) == 0 && vafter > vnow)
				vt_charge(s, c, vafter - vnow);
			if (rc == -DNET_ETIMEDOUT && cut) {
				char a[32], msg[200];
				snprintf(msg, sizeof msg, "wait stopped at virtual time %llu ns, before its timeout: this %s "
					 "has used its budget of %s of the shared virtual clock (refilled over a minute; "
					 "dnetd --vtime-budget)", (unsigned long long)vafter,
					 c->utoken ? "user token" : s->spec.tcp ? "address" : "uid",
					 dnet_format_time(s->vt_cap, a, sizeof a));
				pending_fail(s, c, DNET_EBUSY, msg);
				return;
			}
			if (rc == 0 || (rc == -DNET_ETIMEDOUT && final)) {
				c->pending = P_NONE;
				reply_wait(s, c, c->p_id, rc != 0, last, rc ? e.msg : NULL);
				return;
			}
			if (rc != -DNET_ETIMEDOUT) {
				pending_fail(s, c, rc, e.msg);
				return;
			}
		}
		/* The budget of a loop turn is shared by every client with
		 * virtual work (24 waiters used to take 2 ms each per turn), and
		 * the slice follows its cost both ways. */
		uint64_t t1 = mono_ns(), cost = t1 - ts;
		if (cost > share / 4 && c->slice > SLICE_MIN_NS)
			c->slice /= 2;
		else if (cost < share / 16 && c->slice < SLICE_MAX_NS)
			c->slice *= 2;
		if (t1 - t0 >= share)
			return;
	}
}

/* Re-check a pending real-time wait or delay. */
static void check_pending(struct dnet_srv *s, struct client *c, uint64_t now)
{
	if (c->pending == P_REJECT) {
		if (now >= c->p_deadline) {
			c->pending = P_NONE;
			reply_error(s, c, c->p_id, DNET_EPERM, c->p_msg);
			c->closing = true;
		}
		return;
	}
	if (c->pending == P_DELAY) {
		if (now >= c->p_deadline)
			delay_done(s, c);
		return;
	}
	if (c->pending != P_WAIT)
		return;
	struct dnet_err e;
	uint64_t last = 0;
	int rc;
	dnet_clearerr(&e);
	bool done = wait_check(s, c, &last, &rc, &e);
	if (rc) {
		c->pending = P_NONE;
		reply_error(s, c, c->p_id, rc, e.msg);
	} else if (done) {
		c->pending = P_NONE;
		reply_wait(s, c, c->p_id, false, last, NULL);
	} else if (now >= c->p_deadline) {
		char msg[256];
		c->pending = P_NONE;
		timeout_msg(c, last, c->p_timeout, msg, sizeof msg);
		reply_wait(s, c, c->p_id, true, last, msg);
	}
}

/* Read what the socket has; decode and act on whole frames. */
static void client_input(struct dnet_srv *s, struct client *c)
{
	for (;;) {
		if (c->in_len == c->in_cap) {
			size_t need = 0;
			struct dnet_err e;
			int pk = dnet_proto_peek(c->in, c->in_len, &need, &e);
			if (pk < 0 || (pk > 0 && c->in_cap >= IN_BUSY))
				break; /* a bad header, or whole frames to serve first */
			if (pk > 0)
				need = IN_BUSY; /* a client streaming small frames: read more per turn */
			uint8_t *p = realloc(c->in, need);
			if (!p) {
				c->dead = true;
				return;
			}
			c->in = p;
			c->in_cap = need;
		}
		size_t room = c->in_cap - c->in_len;
		ssize_t n = recv(c->fd, c->in + c->in_len, room, MSG_DONTWAIT);
		if (n > 0) {
			c->in_len += (size_t)n;
			if (c->in_len > IN_INIT)
				c->in_big_ns = mono_ns();
			if ((size_t)n < room)
				break; /* all there was: poll says when there is more */
			continue;
		}
		if (n == 0) {
			c->eof = true; /* answer what was sent, then hang up */
			return;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK) {
			slog(s, DNET_SRV_LOG_INFO, "client #%u: recv: %s", c->serial, strerror(errno));
			c->dead = true;
		}
		break;
	}
}

/* Lockstep: the clock a client's host has reached, and bringing the node
 * it acts on up to it (a node another client touched may be ahead: then
 * this client waits for it). */
static uint64_t ls_stat(struct dnet_srv *s, const char *name, uint64_t dflt)
{
	struct dnet_err e;
	uint64_t v = dflt;
	if (dnet_stat(s->cfg.dev, name, &v, &e))
		v = dflt;
	return v;
}

static void ls_clock_update(struct dnet_srv *s, struct client *c)
{
	struct dnet_err e;
	if (select_node(s, c, &e) == 0) {
		uint64_t t = ls_stat(s, "host_ns", c->ls_clock);
		if (t > c->ls_clock)
			c->ls_clock = t;
	}
}

static int ls_node_sync(struct dnet_srv *s, struct client *c, struct dnet_err *e)
{
	int rc = select_node(s, c, e);
	uint64_t t = ls_stat(s, "host_ns", 0);
	if (!rc && t < c->ls_clock)
		rc = dnet_delay(s->cfg.dev, c->ls_clock - t, e);
	return rc;
}

static void client_process(struct dnet_srv *s, struct client *c)
{
	size_t pos = 0, pbytes = 0;
	unsigned done = 0, posted = 0;
	/* One request per turn always; more while this turn has queued less
	 * than TURN_OUT_MAX bytes of replies and all clients less than
	 * OUT_TOTAL_HIGH (60 clients pipelining 256 KiB reads they never
	 * collect used to queue 60 MB in one turn, 341 ms for the others). */
	while (!c->dead && !c->closing && c->pending == P_NONE && out_pending(c) < OUT_HIGH &&
	       (done + posted == 0 ||
		(done < FRAMES_PER_TURN && posted < POSTED_PER_TURN && pbytes < POSTED_BYTES_PER_TURN &&
		 s->turn_out < TURN_OUT_MAX && s->out_total + s->turn_out < OUT_TOTAL_HIGH))) {
		size_t before = out_pending(c);
		size_t flen = 0;
		struct dnet_err e;
		dnet_clearerr(&e);
		int pk = dnet_proto_peek(c->in + pos, c->in_len - pos, &flen, &e);
		if (pk == 0)
			break;
		if (pk < 0) {
			/* The length cannot be trusted: say why and hang up. */
			uint32_t len, id;
			uint16_t type, flags;
			dnet_proto_header(c->in + pos, &len, &type, &flags, &id);
			slog(s, DNET_SRV_LOG_INFO, "client #%u: %s; disconnecting", c->serial, e.msg);
			reply_error(s, c, id, DNET_EPROTO, e.msg);
			c->closing = true;
			break;
		}
		{
			uint32_t len, id;
			uint16_t type, flags;
			dnet_proto_header(c->in + pos, &len, &type, &flags, &id);
			if (ls_ordered(s, c, type)) {
				if (!c->ls_home)
					c->ls_home = c->node; /* its node at its first device request */
				if (!c->ls_go) {
					c->ls_ready = true; /* lockstep_run lets it through */
					break;
				}
				c->ls_go = false;
				c->ls_ready = false;
			}
		}
		struct dnet_proto_msg m;
		int rc = dnet_proto_decode(c->in + pos, flen, &m, &e);
		if (rc == 0 && !dnet_proto_is_request(m.type))
			rc = dnet_seterr(&e, DNET_EPROTO, "%s is not a request", dnet_proto_type_name(m.type));
		if (rc) {
			done++;
			slog(s, DNET_SRV_LOG_INFO, "client #%u: malformed frame: %s", c->serial, e.msg);
			reply_error(s, c, m.id, DNET_EPROTO, e.msg);
			if (!c->hello)
				c->closing = true;
		} else {
			slog(s, DNET_SRV_LOG_DEBUG, "client #%u: %s id %u", c->serial,
			     dnet_proto_type_name(m.type), m.id);
			c->active_ns = mono_ns();
			bool ordered = ls_ordered(s, c, m.type);
			if (m.flags & DNET_PROTO_F_POSTED) {
				posted++;
				pbytes += flen;
				do_posted(s, c, &m);
			} else {
				done++;
				do_request(s, c, &m);
			}
			if (ordered)
				ls_clock_update(s, c);
		}
		if (out_pending(c) > before)
			s->turn_out += out_pending(c) - before;
		pos += flen;
	}
	if (pos) {
		memmove(c->in, c->in + pos, c->in_len - pos);
		c->in_len -= pos;
	}
	if (c->eof && c->pending == P_NONE && !c->dead && !c->closing) {
		size_t need = 0;
		if (dnet_proto_peek(c->in, c->in_len, &need, NULL) == 0)
			c->closing = true; /* nothing whole left to answer */
	}
	/* Give back a large buffer once large frames have stopped coming. */
	if (c->in_cap > IN_INIT && c->in_len <= IN_INIT && mono_ns() - c->in_big_ns > IN_KEEP_NS) {
		uint8_t *p = realloc(c->in, IN_INIT);
		if (p) {
			c->in = p;
			c->in_cap = IN_INIT;
		}
	}
}

/* Lockstep (D-SIM-TIMELINES): once every client is either waiting on the
 * device or has its next device request here, serve the one with the least
 * virtual time (its host's clock, or for a wait the device's next event),
 * ties to the lower node; repeat for at most one slice of real time.
 * A client with nothing to do yet holds the others (batch runs only). */
static void lockstep_run(struct dnet_srv *s)
{
	struct dnet_dev *dev = s->cfg.dev;
	uint64_t t0 = mono_ns();
	s->ls_more = false;
	unsigned members = 0;
	for (unsigned i = 0; i < s->ncl; i++)
		members += s->cl[i]->hello && !s->cl[i]->dead && !s->cl[i]->closing;
	if (!members)
		s->ls_started = false; /* the run is over: the next one waits for N again */
	if (!s->ls_started) {
		unsigned n = members;
		if (n < s->cfg.lockstep)
			return;
		s->ls_started = true;
		slog(s, DNET_SRV_LOG_INFO, "lockstep: %u clients, serving in virtual-time order", n);
	}
	for (;;) {
		struct client *best = NULL;
		uint64_t ev = 0, dev_now = 0;
		bool have_ev = false;
		for (unsigned i = 0; i < s->ncl; i++) {
			struct client *c = s->cl[i];
			if (!c->hello || c->dead || c->closing)
				continue;
			if (c->pending != P_VWAIT && !c->ls_ready)
				return; /* its next request has not come yet */
			uint64_t key = c->ls_clock;
			if (c->pending == P_VWAIT && c->ls_looked) {
				if (!have_ev) {
					ev = ls_stat(s, "next_event_ns", DNET_VTIME_END);
					dev_now = ls_stat(s, "vtime_ns", 0);
					have_ev = true;
				}
				uint64_t at = ev < c->p_deadline ? ev : c->p_deadline;
				if (dev_now > key && dev_now < at)
					at = dev_now;
				key = at > key ? at : key;
			}
			c->ls_key = key;
			/* Ties go to the lower node, then WID: never to whoever
			 * connected first (real time). */
			if (!best || key < best->ls_key || (key == best->ls_key && c->ls_home < best->ls_home))
				best = c;
		}
		if (!best)
			return;
		if (best->pending == P_VWAIT) {
			struct dnet_err e;
			dnet_clearerr(&e);
			uint64_t hnow = 0, last = 0;
			int rc = ls_node_sync(s, best, &e);
			if (!rc)
				rc = dnet_now(dev, &hnow, &e);
			if (!rc && best->ls_key > hnow)
				rc = dnet_delay(dev, best->ls_key - hnow, &e);
			if (!rc)
				rc = dnet_wait(dev, best->p_off, best->p_mask, (enum dnet_cond)best->p_cond, best->p_value, 0,
					       &last, &e);
			best->ls_looked = true;
			ls_clock_update(s, best);
			if (rc == -DNET_ETIMEDOUT && best->ls_clock < best->p_deadline)
				continue; /* not yet: look again at the next event */
			best->pending = P_NONE;
			if (rc == 0 || rc == -DNET_ETIMEDOUT) {
				char msg[160];
				if (rc)
					snprintf(msg, sizeof msg, "0x%x & 0x%llx %s 0x%llx not reached by virtual time %llu ns "
						 "(last 0x%llx)", best->p_off, (unsigned long long)best->p_mask,
						 dnet_cond_name((enum dnet_cond)best->p_cond), (unsigned long long)best->p_value,
						 (unsigned long long)best->p_deadline, (unsigned long long)last);
				reply_wait(s, best, best->p_id, rc != 0, last, rc ? msg : NULL);
			} else {
				reply_error(s, best, best->p_id, rc, e.msg);
			}
		} else {
			struct dnet_err e;
			if (ls_node_sync(s, best, &e) == 0)
				best->ls_go = true;
			else
				best->dead = true;
		}
		client_process(s, best);
		flush_out(s, best);
		if (mono_ns() - t0 >= SLICE_BUDGET_NS) {
			s->ls_more = true;
			return;
		}
	}
}

static bool want_input(const struct dnet_srv *s, const struct client *c)
{
	if (c->closing || c->dead || c->eof || out_pending(c) >= OUT_HIGH || s->out_total >= OUT_TOTAL_HIGH)
		return false;
	if (c->in_len < c->in_cap)
		return true;
	/* Full: only if the frame at the start needs more room. */
	size_t need = 0;
	int pk = dnet_proto_peek(c->in, c->in_len, &need, NULL);
	return pk == 0 && need > c->in_cap;
}

int dnet_srv_run(struct dnet_srv *s, struct dnet_err *err)
{
	struct pollfd *pfd = calloc(s->maxcl + 1, sizeof *pfd);
	if (!pfd)
		return dnet_seterr(err, DNET_ENOMEM, "out of memory");
	slog(s, DNET_SRV_LOG_INFO, "serving %s on %s", dnet_dev_spec(s->cfg.dev), s->address);
	int ret = 0;

	while (!(s->cfg.stop && *s->cfg.stop)) {
		bool any_pending = false;
		uint64_t now = mono_ns(), next = UINT64_MAX;

		/* Bytes queued for all clients: past OUT_TOTAL_HIGH nobody's input
		 * is read until it drains, so slow readers cannot pin memory. */
		s->out_total = 0;
		unsigned nvw = 0;
		for (unsigned i = 0; i < s->ncl; i++) {
			s->out_total += out_pending(s->cl[i]);
			nvw += s->cl[i]->pending == P_VWAIT || s->cl[i]->pending == P_VDELAY;
		}
		s->turn_out = 0;
		s->vshare = SLICE_BUDGET_NS / (nvw ? nvw : 1);
		if (s->vshare < SLICE_SHARE_MIN_NS)
			s->vshare = SLICE_SHARE_MIN_NS;
		pfd[0].fd = s->lfd;
		pfd[0].events = POLLIN;
		pfd[0].revents = 0;
		for (unsigned i = 0; i < s->ncl; i++) {
			struct client *c = s->cl[i];
			pfd[i + 1].fd = c->fd;
			pfd[i + 1].events = (short)((want_input(s, c) ? POLLIN : 0) |
						    (out_pending(c) ? POLLOUT : 0));
			pfd[i + 1].revents = 0;
			if (!c->hello || s->idle_ns) {
				uint64_t t = !c->hello ? c->born_ns + s->hello_grace_ns : c->active_ns + s->idle_ns;
				any_pending = true;
				if (t + 1000000 < next)
					next = t + 1000000;
			}
			size_t need = 0;
			if (c->pending == P_NONE && !c->closing && !c->dead && !c->ls_ready &&
			    out_pending(c) < OUT_HIGH && dnet_proto_peek(c->in, c->in_len, &need, NULL) != 0) {
				any_pending = true;
				next = now; /* requests left over from its last turn */
			}
			if (s->cfg.lockstep && c->pending == P_VWAIT) {
				/* lockstep_run decides; it says when it has more */
			} else if (c->pending == P_VWAIT || c->pending == P_VDELAY) {
				any_pending = true;
				next = now; /* more slices to run: do not block */
			} else if (c->pending != P_NONE) {
				any_pending = true;
				uint64_t t = c->pending == P_DELAY || c->pending == P_REJECT
						     ? c->p_deadline : sat_add(now, s->cfg.recheck_us * 1000ull);
				if (c->pending == P_WAIT && c->p_deadline < t)
					t = c->p_deadline;
				if (t < next)
					next = t;
			}
		}
		if (s->ls_more) {
			any_pending = true;
			next = now;
		}
		struct timespec ts, *tsp = NULL;
		if (any_pending) {
			uint64_t d = next > now ? next - now : 0;
			ts.tv_sec = (time_t)(d / 1000000000ull);
			ts.tv_nsec = (long)(d % 1000000000ull);
			tsp = &ts;
		} else if (!s->cfg.sigmask) {
			ts.tv_sec = 0;
			ts.tv_nsec = 200000000; /* look at *stop now and then */
			tsp = &ts;
		}
		unsigned npoll = s->ncl + 1;
		int n = ppoll(pfd, npoll, tsp, s->cfg.sigmask);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = dnet_seterr(err, DNET_EIO, "poll: %s", strerror(errno));
			break;
		}
		/* Clients first (their indices match pfd), then new ones. */
		now = mono_ns();
		for (unsigned i = 0; i < npoll - 1; i++) {
			struct client *c = s->cl[i];
			short re = pfd[i + 1].revents;
			if (re & POLLNVAL)
				c->dead = true;
			if ((re & POLLHUP) && c->eof)
				c->dead = true; /* gone both ways: nobody to answer */
			if (re & (POLLIN | POLLHUP | POLLERR))
				client_input(s, c);
			if (s->cfg.lockstep && c->pending == P_VWAIT)
				; /* lockstep_run looks at it */
			else if (c->pending == P_VWAIT || c->pending == P_VDELAY)
				vpending_step(s, c);
			else if (c->pending != P_NONE)
				check_pending(s, c, now);
			if (!c->dead)
				client_process(s, c);
			if (!c->dead)
				flush_out(s, c);
		}
		if (s->cfg.lockstep)
			lockstep_run(s);
		/* Silent connections: no HELLO within the grace time, or idle past
		 * the idle timeout (never while a wait of theirs is pending). */
		now = mono_ns();
		for (unsigned i = 0; i < s->ncl; i++) {
			struct client *c = s->cl[i];
			if (!c->dead && out_pending(c) >= OUT_HIGH && now - c->sent_ns > SLOW_READER_NS) {
				slog(s, DNET_SRV_LOG_INFO, "client #%u: reads nothing of its %zu queued bytes for %llu s, "
				     "disconnecting", c->serial, out_pending(c), SLOW_READER_NS / 1000000000ull);
				c->dead = true;
			}
			if (c->dead || c->closing || c->pending != P_NONE)
				continue;
			if (!c->hello && now - c->born_ns > s->hello_grace_ns) {
				slog(s, DNET_SRV_LOG_INFO, "client #%u: no HELLO within %llu s, disconnecting", c->serial,
				     (unsigned long long)(s->hello_grace_ns / 1000000000ull));
				reply_error(s, c, 0, DNET_ETIMEDOUT, "no HELLO in time");
				c->closing = true;
			} else if (c->hello && s->idle_ns && now - c->active_ns > s->idle_ns) {
				slog(s, DNET_SRV_LOG_INFO, "client #%u: idle for %llu s, disconnecting", c->serial,
				     (unsigned long long)(s->idle_ns / 1000000000ull));
				reply_error(s, c, 0, DNET_ETIMEDOUT, "idle timeout");
				c->closing = true;
			}
			if (c->closing)
				flush_out(s, c);
		}
		/* Drop the dead, keeping order. */
		unsigned j = 0;
		for (unsigned i = 0; i < s->ncl; i++) {
			if (s->cl[i]->dead)
				client_free(s, s->cl[i]);
			else
				s->cl[j++] = s->cl[i];
		}
		s->ncl = j;
		if (pfd[0].revents & POLLIN)
			accept_clients(s);
		if (s->cfg.once && s->served > 0 && s->ncl == 0)
			break;
	}
	free(pfd);
	return ret;
}

void dnet_srv_close(struct dnet_srv *s)
{
	if (!s)
		return;
	for (unsigned i = 0; i < s->ncl; i++)
		client_free(s, s->cl[i]);
	free(s->cl);
	if (s->lfd >= 0)
		close(s->lfd);
	if (s->spare_fd >= 0)
		close(s->spare_fd);
	if (s->unlink_path)
		unlink(s->spec.path);
	free(s);
}
