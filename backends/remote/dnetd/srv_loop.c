/* The dnetd server (see server.h, srv.h and docs/protocol.md): opening it,
 * its poll loop, closing it, and its log. */
#include "remote/dnetd/srv.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "dnet/backend.h"

/* Descriptors a server needs besides its clients: stdin/out/err, the
 * listening socket, the spare, the backend's (a device file, a socket). */
#define FD_RESERVE 16u

/* ---- opening ---- */

int srv_open(struct dnet_srv **out, const struct dnet_srv_config *cfg, struct dnet_err *err)
{
	*out = NULL;
	if (!cfg->dev || (!cfg->listen && !cfg->activated))
		return dnet_seterr(err, DNET_EINVAL, "srv_open: no device or address");
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
	int r = cfg->activated ? 0 : rmt_sockspec_parse(cfg->listen, &s->spec, err);
	if (r == 0 && s->spec.tcp && !s->cfg.token && !s->cfg.user_tokens)
		r = dnet_seterr(err, DNET_EINVAL,
				"listening on TCP requires a token (--token, --token-file or --user-tokens)");
	if (r == 0)
		r = srv_grants_check(s, err);
	if (r == 0)
		s->cl = calloc(s->maxcl, sizeof *s->cl);
	if (r == 0 && !s->cl)
		r = dnet_seterr(err, DNET_ENOMEM, "out of memory");
	if (r == 0)
		r = srv_listen(s, err);
	if (r == 0)
		s->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (r) {
		srv_close(s);
		return r;
	}
	*out = s;
	return 0;
}

const char *srv_address(const struct dnet_srv *s)
{
	return s->address;
}

/* ---- the loop ---- */

int srv_run(struct dnet_srv *s, struct dnet_err *err)
{
	struct pollfd *pfd = calloc(s->maxcl + 1, sizeof *pfd);
	if (!pfd)
		return dnet_seterr(err, DNET_ENOMEM, "out of memory");
	srv_log(s, DNET_SRV_LOG_INFO, "serving %s on %s", dnet_dev_spec(s->cfg.dev), s->address);
	int ret = 0;

	while (!(s->cfg.stop && *s->cfg.stop)) {
		bool any_pending = false;
		uint64_t now = dnet_mono_ns(), next = UINT64_MAX;

		/* Bytes queued for all clients: past OUT_TOTAL_HIGH nobody's input
		 * is read until it drains, so slow readers cannot pin memory. */
		s->out_total = 0;
		unsigned nvw = 0;
		for (unsigned i = 0; i < s->ncl; i++) {
			s->out_total += srv_out_pending(s->cl[i]);
			nvw += s->cl[i]->wait.kind == P_VWAIT || s->cl[i]->wait.kind == P_VDELAY;
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
			pfd[i + 1].fd = c->io.fd;
			pfd[i + 1].events = (short)((srv_want_input(s, c) ? POLLIN : 0) |
						    (srv_out_pending(c) ? POLLOUT : 0));
			pfd[i + 1].revents = 0;
			if (!c->auth.hello || s->idle_ns) {
				uint64_t t = !c->auth.hello ? c->io.born_ns + s->hello_grace_ns : c->io.active_ns + s->idle_ns;
				any_pending = true;
				if (t + 1000000 < next)
					next = t + 1000000;
			}
			size_t need = 0;
			if (c->wait.kind == P_NONE && !c->io.closing && !c->io.dead && !c->ls.ready &&
			    srv_out_pending(c) < OUT_HIGH && wire_peek(c->io.in, c->io.in_len, &need, NULL) != 0) {
				any_pending = true;
				next = now; /* requests left over from its last turn */
			}
			if (s->cfg.lockstep && c->wait.kind == P_VWAIT) {
				/* lockstep_run decides; it says when it has more */
			} else if (c->wait.kind == P_VWAIT || c->wait.kind == P_VDELAY) {
				any_pending = true;
				next = now; /* more slices to run: do not block */
			} else if (c->wait.kind != P_NONE) {
				any_pending = true;
				uint64_t t = c->wait.kind == P_DELAY || c->wait.kind == P_REJECT
						     ? c->wait.deadline : srv_sat_add(now, s->cfg.recheck_us * 1000ull);
				if (c->wait.kind == P_WAIT && c->wait.deadline < t)
					t = c->wait.deadline;
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
		now = dnet_mono_ns();
		for (unsigned i = 0; i < npoll - 1; i++) {
			struct client *c = s->cl[i];
			short re = pfd[i + 1].revents;
			if (re & POLLNVAL)
				c->io.dead = true;
			if ((re & POLLHUP) && c->io.eof)
				c->io.dead = true; /* gone both ways: nobody to answer */
			if (re & (POLLIN | POLLHUP | POLLERR))
				srv_client_input(s, c);
			if (s->cfg.lockstep && c->wait.kind == P_VWAIT)
				; /* lockstep_run looks at it */
			else if (c->wait.kind == P_VWAIT || c->wait.kind == P_VDELAY)
				srv_vpending_step(s, c);
			else if (c->wait.kind != P_NONE)
				srv_check_pending(s, c, now);
			if (!c->io.dead)
				srv_client_process(s, c);
			if (!c->io.dead)
				srv_flush_out(s, c);
		}
		if (s->cfg.lockstep)
			srv_lockstep_run(s);
		/* Silent connections: no HELLO within the grace time, or idle past
		 * the idle timeout (never while a wait of theirs is pending). */
		now = dnet_mono_ns();
		for (unsigned i = 0; i < s->ncl; i++) {
			struct client *c = s->cl[i];
			if (!c->io.dead && srv_out_pending(c) >= OUT_HIGH && now - c->io.sent_ns > SLOW_READER_NS) {
				srv_log(s, DNET_SRV_LOG_INFO, "client #%u: reads nothing of its %zu queued bytes for %llu s, "
				     "disconnecting", c->io.serial, srv_out_pending(c), SLOW_READER_NS / 1000000000ull);
				c->io.dead = true;
			}
			if (c->io.dead || c->io.closing || c->wait.kind != P_NONE)
				continue;
			if (!c->auth.hello && now - c->io.born_ns > s->hello_grace_ns) {
				srv_log(s, DNET_SRV_LOG_INFO, "client #%u: no HELLO within %llu s, disconnecting", c->io.serial,
				     (unsigned long long)(s->hello_grace_ns / 1000000000ull));
				srv_reply_error(s, c, 0, DNET_ETIMEDOUT, "no HELLO in time");
				c->io.closing = true;
			} else if (c->auth.hello && s->idle_ns && now - c->io.active_ns > s->idle_ns) {
				srv_log(s, DNET_SRV_LOG_INFO, "client #%u: idle for %llu s, disconnecting", c->io.serial,
				     (unsigned long long)(s->idle_ns / 1000000000ull));
				srv_reply_error(s, c, 0, DNET_ETIMEDOUT, "idle timeout");
				c->io.closing = true;
			}
			if (c->io.closing)
				srv_flush_out(s, c);
		}
		/* Drop the dead, keeping order. */
		unsigned j = 0;
		for (unsigned i = 0; i < s->ncl; i++) {
			if (s->cl[i]->io.dead)
				srv_client_free(s, s->cl[i]);
			else
				s->cl[j++] = s->cl[i];
		}
		s->ncl = j;
		if (pfd[0].revents & POLLIN)
			srv_accept(s);
		if (s->cfg.once && s->served > 0 && s->ncl == 0)
			break;
	}
	free(pfd);
	return ret;
}

void srv_close(struct dnet_srv *s)
{
	if (!s)
		return;
	for (unsigned i = 0; i < s->ncl; i++)
		srv_client_free(s, s->cl[i]);
	free(s->cl);
	if (s->lfd >= 0)
		close(s->lfd);
	if (s->spare_fd >= 0)
		close(s->spare_fd);
	if (s->unlink_path)
		unlink(s->spec.path);
	free(s);
}
