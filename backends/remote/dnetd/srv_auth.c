/* dnetd's authentication and access checks: the token a HELLO presents
 * (compared in constant time, failures answered late), the grants of user
 * tokens and of the allow-list (parsed by grants.c) that confine a client
 * to nodes and WIDs, and the page check every device access passes. */
#include "remote/dnetd/srv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "dnet/backend.h"
#include "dnet/map.h"

/* The grants must name nodes that exist; an allow-list goes with a UNIX
 * socket; a user token is not the admin token. */
int srv_grants_check(struct dnet_srv *s, struct dnet_err *err)
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

/* ---- grants: user tokens and the allow-list (grants.h) ----
 * A confined client holds the (node, WIDs) pairs it may use: from the
 * allow-list lines that match its uid or groups (UNIX, at connect time),
 * from its user token (at HELLO), or both (then what both grant). */

bool srv_grant_allows(const struct client *c, unsigned node, unsigned wid)
{
	if (!c->auth.confined)
		return true;
	for (unsigned i = 0; i < c->auth.ngp; i++)
		if (c->auth.gp[i].node == node && (c->auth.gp[i].wids & (1u << wid)))
			return true;
	return false;
}

/* "node 1 WID 0,1; node 2 WID 1", for messages. */
const char *srv_grant_text(const struct client *c, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = 0;
	for (unsigned i = 0; i < c->auth.ngp && n + 1 < len; i++) {
		char w[16];
		n += (size_t)snprintf(buf + n, len - n, "%snode %u WID %s", i ? "; " : "", c->auth.gp[i].node,
				      srv_grants_wids(c->auth.gp[i].wids, w, sizeof w));
	}
	if (!c->auth.ngp)
		snprintf(buf, len, "nothing");
	return buf;
}

static int grant_add(struct client *c, unsigned node, unsigned wids)
{
	for (unsigned i = 0; i < c->auth.ngp; i++) {
		if (c->auth.gp[i].node == node) {
			c->auth.gp[i].wids |= wids;
			return 0;
		}
	}
	struct grant_pair *p = realloc(c->auth.gp, (c->auth.ngp + 1) * sizeof *p);
	if (!p)
		return -1;
	c->auth.gp = p;
	c->auth.gp[c->auth.ngp].node = node;
	c->auth.gp[c->auth.ngp].wids = wids;
	c->auth.ngp++;
	return 0;
}

/* A UNIX peer other than root and the daemon's uid, with --allow: the
 * lines matching its uid, its gid or a supplementary group it had when it
 * connected (SO_PEERGROUPS).  -1: out of memory. */
int srv_allow_grants(struct dnet_srv *s, struct client *c, int fd, gid_t gid)
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
	c->auth.confined = true;
	for (unsigned i = 0; i < a->n && rc == 0; i++) {
		const struct dnet_grant *g = &a->g[i];
		bool match = g->kind == DNET_GRANT_UID ? c->auth.uid >= 0 && (uint32_t)c->auth.uid == g->id : (uint32_t)gid == g->id;
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
 * and WIDs (cut to what the allow-list grants, on a UNIX socket: the
 * intersection, never either grant alone). */
void srv_grant_token(struct client *c, const struct dnet_grant *g)
{
	c->auth.utoken = g;
	c->auth.may_privilege = false;
	if (!c->auth.confined) {
		c->auth.confined = true;
		if (grant_add(c, g->node, g->wids) != 0)
			c->auth.ngp = 0; /* out of memory: nothing granted */
		return;
	}
	unsigned j = 0;
	for (unsigned i = 0; i < c->auth.ngp; i++) {
		if (c->auth.gp[i].node == g->node && (c->auth.gp[i].wids & g->wids)) {
			c->auth.gp[j].node = g->node;
			c->auth.gp[j].wids = c->auth.gp[i].wids & g->wids;
			j++;
		}
	}
	c->auth.ngp = j;
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

/* A user client may touch only its own WID's pages; never the System
 * Register.  (Whom it applies to is the dispatch table's privilege column.) */
int srv_check_access(const struct client *c, uint64_t off, uint64_t len, char *msg, size_t msz)
{
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
		if (!page_of_wid((uint32_t)page, c->auth.wid)) {
			enum dnet_region r;
			unsigned w;
			uint32_t o;
			if (dnet_addr_lookup((uint32_t)a, &r, &w, &o) == 0 && dnet_region_info(r))
				snprintf(msg, msz, "permission denied: 0x%05" PRIx64 " is in the %s of WID %u "
					 "(this client is a user of WID %u)", a, dnet_region_info(r)->title, w,
					 c->auth.wid);
			else
				snprintf(msg, msz, "permission denied: 0x%05" PRIx64 " is not in a page of "
					 "WID %u (this client is a user of WID %u)", a, c->auth.wid, c->auth.wid);
			return -DNET_EPERM;
		}
	}
	return 0;
}

/* ---- HELLO ---- */

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

void srv_hello(struct dnet_srv *s, struct client *c, const struct dnet_proto_msg *m)
{
	char msg[DNET_PROTO_MSG_MAX + 1];
	unsigned nodes = dnet_node_count(s->cfg.dev);
	if (m->ver_major != DNET_PROTO_VERSION_MAJOR) {
		snprintf(msg, sizeof msg, "protocol version mismatch: client speaks %u.%u, dnetd speaks %u.%u",
			 m->ver_major, m->ver_minor, DNET_PROTO_VERSION_MAJOR, DNET_PROTO_VERSION_MINOR);
		srv_reply_error(s, c, m->id, DNET_EPROTO, msg);
		c->io.closing = true;
		return;
	}
	const struct dnet_grant *utok = NULL;
	if (token_match(s, m->token, &utok) < 0) {
		/* A failed token is answered only after a delay that grows with
		 * the recent failures (100 ms doubling to 6.4 s), and logged by
		 * default, at most once a second: guessing is slow and seen. */
		uint64_t now = dnet_mono_ns();
		if (now - s->fail_at > 60000000000ull)
			s->fails = 0;
		s->fail_at = now;
		unsigned shift = s->fails < 6 ? s->fails : 6;
		s->fails++;
		s->fails_unlogged++;
		if (now - s->fail_log_ns >= 1000000000ull || !s->fail_log_ns) {
			srv_log(s, DNET_SRV_LOG_ERR, "client #%u%s: %s (%u failed token%s since the last report)",
			     c->io.serial, s->spec.tcp ? "" : "", m->token[0] ? "bad token" : "no token",
			     s->fails_unlogged, s->fails_unlogged == 1 ? "" : "s");
			s->fails_unlogged = 0;
			s->fail_log_ns = now;
		}
		c->wait.id = m->id;
		snprintf(c->wait.msg, sizeof c->wait.msg, "%s",
			 m->token[0] ? "bad token" : "this dnetd requires a token (token=T or DNET_TOKEN)");
		c->wait.deadline = now + (100000000ull << shift);
		c->wait.kind = P_REJECT;
		return;
	}
	if (utok)
		srv_grant_token(c, utok);
	/* A confined client (user token, --allow) can only ask for less than
	 * its grant: privilege, or a node or WID outside it, is refused. */
	unsigned node = m->node ? m->node : c->auth.confined && c->auth.ngp ? c->auth.gp[0].node : 1;
	if (c->auth.confined) {
		char what[120], from[100];
		if (utok)
			snprintf(from, sizeof from, "its user token");
		else
			snprintf(from, sizeof from, "the allow-list, for uid %ld", c->auth.uid);
		if (m->privileged || !srv_grant_allows(c, node, m->wid)) {
			if (m->privileged)
				snprintf(msg, sizeof msg, "permission denied: this client may be a user only (%.90s); "
					 "connect as a user (remote backend option ,user)", from);
			else
				snprintf(msg, sizeof msg, "permission denied: node %u WID %u is not granted (%.90s grants "
					 "%.100s)", node, m->wid, from, srv_grant_text(c, what, sizeof what));
			srv_log(s, DNET_SRV_LOG_ERR, "client #%u (%s %.80s): %s", c->io.serial, utok ? "user token of" : "--allow",
			     utok ? utok->where : s->cfg.allow->file, msg);
			srv_reply_error(s, c, m->id, DNET_EPERM, msg);
			c->io.closing = true;
			return;
		}
	} else if (m->privileged && !c->auth.may_privilege) {
		srv_log(s, DNET_SRV_LOG_INFO, "client #%u: uid %ld asked to be privileged; served as a user "
		     "(only root and uid %ld may be)", c->io.serial, c->auth.uid, (long)geteuid());
	}
	if (node > nodes) {
		snprintf(msg, sizeof msg, "node %u does not exist (this dnetd serves nodes 1..%u)", node, nodes);
		srv_reply_error(s, c, m->id, DNET_EINVAL, msg);
		c->io.closing = true;
		return;
	}
	c->auth.hello = true;
	if (utok)
		snprintf(c->wait.vt_key, sizeof c->wait.vt_key, "token %.100s", utok->where);
	else
		snprintf(c->wait.vt_key, sizeof c->wait.vt_key, "%s", c->auth.peer);
	c->auth.node = node;
	c->auth.wid = m->wid;
	c->auth.privileged = m->privileged && c->auth.may_privilege; /* a HELLO can only ask for less */
	unsigned caps = dnet_dev_caps(s->cfg.dev) | DNET_CAP_REMOTE | (s->cfg.lockstep ? DNET_CAP_LOCKSTEP : 0);
	if (!c->auth.privileged)
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
	r.cluster = dnet_dev_cluster(s->cfg.dev);
	srv_reply(s, c, &r);
	srv_log(s, DNET_SRV_LOG_INFO, "client #%u: node %u, WID %u, %s%s", c->io.serial, node, c->auth.wid,
	     c->auth.privileged ? "privileged" : "user", c->auth.confined ? " (confined by its grant)" : "");
}
