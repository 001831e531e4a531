/* The dnetd server loop: serves one open libdnet device to many clients
 * over the protocol of proto.h.  The daemon's, never in libdnet (hidden
 * symbols); used by bin/dnetd (dnetd.c) and by tests/unit/test_remote_e2e.c,
 * which runs it in a child process.
 *
 * Single-threaded: one poll() loop, non-blocking sockets, a receive buffer
 * and a send buffer per client.  Each client is attached to one node and
 * one WID, as a user or a privileged process:
 *   - only privileged clients may touch the System Register page or use
 *     the SO-DIMM backdoor;
 *   - a user client may touch only the pages of its own WID (map.h).
 * Waits and delays run in the server: on a virtual-time backend by calling
 * dnet_wait()/dnet_delay() (instant in real time); on a real-time backend
 * they are kept pending and re-checked from the loop, so that one client's
 * wait never blocks the others.
 * Its files (srv_*.c, one room each) and what they share: srv.h.
 */
#ifndef DNET_REMOTE_SERVER_H
#define DNET_REMOTE_SERVER_H

#include <signal.h>
#include <stdbool.h>
#include "dnet/device.h"
#include "remote/dnetd/grants.h"
#include "remote/wire/proto.h"

#define DNET_SRV_DEFAULT_MAX_CLIENTS 64u

enum { DNET_SRV_LOG_ERR = 0, DNET_SRV_LOG_INFO = 1, DNET_SRV_LOG_DEBUG = 2 };

struct dnet_srv_config {
	struct dnet_dev *dev;        /* the device served (not owned) */
	const char *listen;          /* "unix:PATH" or "tcp:HOST:PORT" */
	/* With activated: listen_fd is a socket already listening (systemd
	 * socket activation); listen is then ignored and nothing is unlinked. */
	bool activated;
	int listen_fd;
	const char *token;           /* NULL/"" = none; required for TCP */
	unsigned max_clients;        /* 0: DNET_SRV_DEFAULT_MAX_CLIENTS */
	bool once;                   /* return after the first client has gone */
	unsigned recheck_us;         /* real-time wait re-check period; 0: 1000 */
	const sigset_t *sigmask;     /* signal mask while waiting in ppoll, or NULL */
	volatile sig_atomic_t *stop; /* the loop returns when *stop becomes nonzero */
	/* Log sink (may be NULL).  Messages up to verbose are passed. */
	void (*log)(void *ctx, int level, const char *msg);
	void *log_ctx;
	int verbose;
	/* --socket-group: the UNIX socket is made 0660 with this group (NULL:
	 * 0600); its members connect as user clients. */
	const char *socket_group;
	/* Limits (0: the defaults below): seconds a connection may take to say
	 * HELLO; connections that have not yet; clients of one uid (UNIX) or
	 * address (TCP); seconds a client may stay silent (0: forever). */
	unsigned hello_grace_s, max_unauth, max_per_peer, idle_timeout_s;
	/* --lockstep N (a backend with per-host clocks, sim timelines): device
	 * requests are served in virtual-time order across clients, once N
	 * clients have said HELLO, so a multi-rank run gives the same virtual
	 * times every time (D-SIM-TIMELINES).  0: off, served as they come. */
	unsigned lockstep;
	/* Grants (grants.h), not owned; NULL: none.  user_tokens: tokens that
	 * admit user clients confined to a node and WIDs, beside the admin
	 * token (token), which admits privileged clients; TCP needs one of
	 * them.  allow: on a UNIX socket, the node and WIDs other uids (let in
	 * by socket_group) may use; a uid in no line is refused.  Without it
	 * they are user clients of any node and WID. */
	const struct dnet_grants *user_tokens, *allow;
	/* When the table is full, a new client replaces the client idle longest
	 * if it has been idle more than idle_evict_s seconds (0: the default;
	 * UINT_MAX: never). */
	unsigned idle_evict_s;
	/* The virtual time one peer may add to the shared clock (DELAY, WAIT):
	 * a bucket of this many ns refilled at that much per minute (0: the
	 * default; UINT64_MAX: no cap).  See vt_* in srv_wait.c. */
	uint64_t vtime_budget_ns;
};
#define DNET_SRV_DEFAULT_HELLO_GRACE_S 10u
#define DNET_SRV_DEFAULT_MAX_UNAUTH    16u
#define DNET_SRV_DEFAULT_IDLE_EVICT_S  60u
#define DNET_SRV_DEFAULT_VTIME_BUDGET_NS 3600000000000ull /* 1 h */

struct dnet_srv;

/* Bind and listen.  A stale UNIX socket file (nobody answering) is
 * replaced; a live one, or a file that is not a socket, is an error.  The
 * UNIX socket is created with mode 0600. */
DNET_PROTO_HIDDEN int srv_open(struct dnet_srv **srv, const struct dnet_srv_config *cfg,
				    struct dnet_err *err);
/* The address actually bound ("tcp:127.0.0.1:41234" after port 0). */
DNET_PROTO_HIDDEN const char *srv_address(const struct dnet_srv *srv);
/* Serve until *stop, or (with once) until the first client has gone.
 * Returns 0, or a negative code if the loop itself failed. */
DNET_PROTO_HIDDEN int srv_run(struct dnet_srv *srv, struct dnet_err *err);
/* Disconnect everyone, close the listener and remove the UNIX socket. */
DNET_PROTO_HIDDEN void srv_close(struct dnet_srv *srv);
/* Whether dnetd's dispatch table (srv_dispatch.c) has a handler for
 * request type: every type from 1 to DNET_MSG_REQ_LAST must (a test). */
DNET_PROTO_HIDDEN bool srv_serves(uint16_t type);
/* Whether that table's privilege column refuses a user client some
 * requests of type (a test sends each type as a user). */
DNET_PROTO_HIDDEN bool srv_user_restricted(uint16_t type);

#endif
