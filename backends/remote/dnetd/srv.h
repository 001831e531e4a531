/* dnetd's rooms: what the server's files share (private to them; the
 * interface is server.h).  Each room is one file and keeps its own part of
 * a client.  Each calls only the rooms listed before it (no cycle; the
 * dispatch table's entries name handlers of srv_wait.c, and it comes first):
 *   srv_base.c      the log, replies, pointing the device at a client's node
 *   srv_ls_clock.c  lockstep: the clock each request leaves a client at
 *   srv_listen.c    listening sockets: UNIX, TCP, socket activation
 *   srv_conn.c      connections: accept, admission and eviction, the
 *                   receive and send buffers, replies       (struct srv_conn)
 *   srv_auth.c      HELLO, tokens, grants, access checks    (struct srv_peer)
 *   srv_dispatch.c  frames to requests, the table of request handlers,
 *                   posted requests                         (struct srv_posted)
 *   srv_wait.c      pending waits and delays, the virtual-time budget
 *                                                            (struct srv_pending)
 *   srv_lockstep.c  serving in virtual-time order (--lockstep), the
 *                   scheduler                               (struct srv_lockstep)
 *   srv_loop.c      the poll loop, opening and closing the server
 * grants.c parses the grant files, server_param.c serves PARAM; dnetd.c is
 * the program.  The protocol is the wire codec's (remote/wire/proto.h).
 */
#ifndef DNET_REMOTE_SRV_H
#define DNET_REMOTE_SRV_H

#include <stdint.h>
#include <sys/types.h>
#include "remote/dnetd/server.h"

#define SRV_HIDDEN DNET_PROTO_HIDDEN

#define IN_INIT       4096u
#define OUT_HIGH      (1u << 20) /* stop reading requests while this much is unsent */
#define OUT_TOTAL_HIGH (64u << 20) /* ... from anyone while all clients have this much unsent */
#define SLOW_READER_NS 10000000000ull /* a client stuck at OUT_HIGH this long is dropped */

/* Each loop turn gives a virtual-time wait or delay at most this much real
 * time, in slices of virtual time that grow while they stay cheap. */
#define SLICE_BUDGET_NS 2000000ull
#define SLICE_MIN_NS    10000ull
#define SLICE_MAX_NS    (1ull << 40)
#define SLICE_SHARE_MIN_NS 20000ull /* real time per client and turn, however many */

/* The connection (srv_conn.c). */
struct srv_conn {
	int fd;
	unsigned serial;
	bool closing;        /* drop once the output is sent */
	bool dead;           /* drop now */
	bool eof;            /* the peer has shut down its side */
	uint64_t born_ns, active_ns;  /* connected, last request (monotonic) */
	uint64_t sent_ns;    /* last time bytes went out */
	uint8_t *in;
	size_t in_len, in_cap;
	uint64_t in_big_ns;  /* last time the receive buffer held a large frame */
	struct dnet_pbuf out;
	size_t out_off;
};

/* Who the peer is and what it may do (srv_auth.c). */
struct srv_peer {
	bool hello;          /* HELLO accepted */
	unsigned node, wid;  /* node: the HELLO's, then that of the request served (each names one) */
	bool privileged;
	bool may_privilege;  /* decided by the server: the peer's uid, or TCP with the token */
	long uid;            /* UNIX peer's uid (SO_PEERCRED), -1 for TCP */
	char peer[64];       /* TCP peer address, for the per-address cap */
	/* Confined (a user token, or --allow on a UNIX socket): a user client
	 * of these nodes and WIDs only (HELLO and the node of each request are
	 * checked). */
	bool confined;
	struct grant_pair { unsigned node, wids; } *gp;
	unsigned ngp;
	const struct dnet_grant *utoken; /* the user token presented, if any */
};

/* A wait or delay in progress: real time (P_WAIT, P_DELAY, re-checked from
 * the loop), or virtual time (P_VWAIT, P_VDELAY, advanced in bounded slices
 * from the loop so that no client holds the others up); P_REJECT: a failed
 * token, answered late (srv_wait.c). */
enum pending_kind { P_NONE, P_WAIT, P_DELAY, P_VWAIT, P_VDELAY, P_REJECT };
struct srv_pending {
	enum pending_kind kind;
	uint32_t id, off, cond;
	uint64_t mask, value, timeout, deadline;
	uint64_t slice;      /* virtual ns per slice (P_VWAIT, P_VDELAY) */
	char msg[96];        /* P_REJECT: the refusal sent at deadline */
	char vt_key[112];    /* its virtual-time budget's key (vt_bucket) */
};

/* Posted requests (protocol 1.1) since the last SYNC (srv_dispatch.c):
 * failed (an ERROR sent for each), and of those skipped (F_STOP after a
 * failure). */
struct srv_posted {
	uint32_t failed, skipped;
	bool posted;            /* the pending delay is posted: no reply unless it fails */
	unsigned err_replies;   /* ERROR replies queued, to see whether a request failed */
};

/* Lockstep (srv_lockstep.c): an ordered request waits at the start of in
 * (ready) until the scheduler lets one through (go); a wait is looked at
 * first at the host's own clock (looked). */
struct srv_lockstep {
	bool ready, go, looked;
	uint64_t key;
	uint64_t clock;      /* this client's host clock (virtual ns) */
	unsigned home;       /* the node of its first device request: breaks ties */
};

struct client {
	struct srv_conn io;
	struct srv_peer auth;
	struct srv_pending wait;
	struct srv_posted post;
	struct srv_lockstep ls;
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
	uint64_t ls_served, ls_held; /* lockstep, this run: hand-overs; passes held for a client on its way */
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

/* srv_base.c */
__attribute__((format(printf, 3, 4)))
SRV_HIDDEN void srv_log(struct dnet_srv *s, int level, const char *fmt, ...);
SRV_HIDDEN uint64_t srv_sat_add(uint64_t a, uint64_t b);
/* Queue a reply; an encoding failure (out of memory) drops the client. */
SRV_HIDDEN void srv_reply(struct dnet_srv *s, struct client *c, struct dnet_proto_msg *m);
SRV_HIDDEN void srv_reply_empty(struct dnet_srv *s, struct client *c, uint16_t type, uint32_t id);
SRV_HIDDEN void srv_reply_error(struct dnet_srv *s, struct client *c, uint32_t id, int code,
				const char *msg);
SRV_HIDDEN void srv_reply_wait(struct dnet_srv *s, struct client *c, uint32_t id, bool timed_out,
			       uint64_t last, const char *msg);
/* The handle of the client's node (c->auth.node) on the shared device
 * (D-NODE-HANDLE). */
SRV_HIDDEN struct dnet_dev *srv_dev(struct dnet_srv *s, const struct client *c);

/* srv_ls_clock.c: a statistic of dev (dflt when it has none); the clock
 * of c's host after a request served in virtual-time order. */
SRV_HIDDEN uint64_t srv_ls_stat(struct dnet_dev *dev, const char *name, uint64_t dflt);
SRV_HIDDEN void srv_ls_clock_update(struct dnet_srv *s, struct client *c);

/* srv_listen.c: bind and listen on s->spec, or adopt cfg.listen_fd. */
SRV_HIDDEN int srv_listen(struct dnet_srv *s, struct dnet_err *err);

/* srv_conn.c */
SRV_HIDDEN void srv_accept(struct dnet_srv *s);
SRV_HIDDEN void srv_client_free(struct dnet_srv *s, struct client *c);
SRV_HIDDEN void srv_client_input(struct dnet_srv *s, struct client *c);
SRV_HIDDEN bool srv_want_input(const struct dnet_srv *s, const struct client *c);
SRV_HIDDEN size_t srv_out_pending(const struct client *c);
SRV_HIDDEN void srv_flush_out(struct dnet_srv *s, struct client *c);

/* srv_auth.c */
SRV_HIDDEN int srv_grants_check(struct dnet_srv *s, struct dnet_err *err);
SRV_HIDDEN int srv_allow_grants(struct dnet_srv *s, struct client *c, int fd, gid_t gid);
/* c holds what the allow-list grants (if confined); add the user token g:
 * what both grant (the token's alone if c was not confined). */
SRV_HIDDEN void srv_grant_token(struct client *c, const struct dnet_grant *g);
SRV_HIDDEN bool srv_grant_allows(const struct client *c, unsigned node, unsigned wid);
SRV_HIDDEN const char *srv_grant_text(const struct client *c, char *buf, size_t len);
SRV_HIDDEN int srv_check_access(const struct client *c, uint64_t off, uint64_t len, char *msg,
				size_t msz);
SRV_HIDDEN void srv_hello(struct dnet_srv *s, struct client *c, const struct dnet_proto_msg *m);

/* srv_dispatch.c */
/* A request's handler: fills the reply r and returns 0, or returns an error
 * code with e set; SRV_DONE when it replied itself or left the request
 * pending.  *hold: a buffer r points into, freed once r is queued. */
#define SRV_DONE 1
typedef int (*srv_handler)(struct dnet_srv *s, struct client *c, const struct dnet_proto_msg *m,
			   struct dnet_proto_msg *r, uint8_t **hold, struct dnet_err *e);
SRV_HIDDEN void srv_client_process(struct dnet_srv *s, struct client *c);
/* Whether lockstep serves this request of c in virtual-time order now. */
SRV_HIDDEN bool srv_ls_ordered(const struct dnet_srv *s, const struct client *c, uint16_t type);

/* srv_wait.c */
SRV_HIDDEN int srv_wait_start(struct dnet_srv *s, struct client *c, const struct dnet_proto_msg *m,
			      struct dnet_proto_msg *r, uint8_t **hold, struct dnet_err *e);
SRV_HIDDEN int srv_delay_start(struct dnet_srv *s, struct client *c, const struct dnet_proto_msg *m,
			       struct dnet_proto_msg *r, uint8_t **hold, struct dnet_err *e);
SRV_HIDDEN void srv_vpending_step(struct dnet_srv *s, struct client *c);
SRV_HIDDEN void srv_check_pending(struct dnet_srv *s, struct client *c, uint64_t now);

/* srv_lockstep.c */
SRV_HIDDEN void srv_lockstep_run(struct dnet_srv *s);

#endif
