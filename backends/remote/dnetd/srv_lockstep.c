/* dnetd --lockstep (D-SIM-TIMELINES): device requests served in
 * virtual-time order across clients, so a multi-rank run on a backend with
 * per-host clocks gives the same virtual times every time.  The scheduler:
 * which requests wait their turn is the dispatch table's (srv_ls_ordered),
 * the clock each request leaves is srv_ls_clock.c's. */
#include "remote/dnetd/srv.h"

#include <limits.h>
#include <stdio.h>

#include "dnet/backend.h"

/* Bring the node a client acts on up to its host's clock (a node another
 * client touched may be ahead: then this client waits for it). */
static int ls_node_sync(struct dnet_srv *s, struct client *c, struct dnet_err *e)
{
	struct dnet_dev *dev = srv_dev(s, c);
	uint64_t t = srv_ls_stat(dev, "host_ns", 0);
	return t < c->ls.clock ? dnet_delay(dev, c->ls.clock - t, e) : 0;
}

/* Lockstep (D-SIM-TIMELINES, D-LOCKSTEP-BOUND): serve the client with the
 * least virtual time (its host's clock, or for a wait the device's next
 * event), ties to the lower node, as long as no other client could still
 * ask for something earlier; repeat for at most one slice of real time.
 *
 * The bound (a conservative discrete-event scheduler's): a client whose
 * next request has not come yet will make it at its host's clock or later
 * (its clock moves only by its own device requests, and a wait is keyed at
 * its clock or later), so the request it has not sent yet cannot come
 * before (clock, node).  A client waiting here whose key is below that of
 * every client still on its way goes at once: the order is the one the
 * scheduler would have chosen had it waited for everybody (the same
 * virtual times), without a round trip of each client per access.  The
 * lookahead is 0: every node's host shares one emulated device, whose
 * event queue cannot run one node ahead of another, so a host may not run
 * past the clock of the earliest other one. */
static unsigned ls_home(const struct client *c)
{
	return c->ls.home ? c->ls.home : c->auth.node;
}

static bool ls_before(uint64_t key, unsigned home, uint64_t key2, unsigned home2)
{
	return key < key2 || (key == key2 && home < home2);
}

void srv_lockstep_run(struct dnet_srv *s)
{
	uint64_t t0 = dnet_mono_ns();
	s->ls_more = false;
	unsigned members = 0;
	for (unsigned i = 0; i < s->ncl; i++)
		members += s->cl[i]->auth.hello && !s->cl[i]->io.dead && !s->cl[i]->io.closing;
	if (!members && s->ls_started) {
		/* the run is over: the next one waits for N again */
		srv_log(s, DNET_SRV_LOG_INFO, "lockstep: run over: %llu hand-overs in virtual-time order, %llu "
			"passes held for a client whose next request was on its way",
			(unsigned long long)s->ls_served, (unsigned long long)s->ls_held);
		s->ls_started = false;
		s->ls_served = s->ls_held = 0;
	}
	if (!s->ls_started) {
		unsigned n = members;
		if (n < s->cfg.lockstep)
			return;
		s->ls_started = true;
		srv_log(s, DNET_SRV_LOG_INFO, "lockstep: %u clients, serving in virtual-time order", n);
	}
	for (;;) {
		struct client *best = NULL;
		uint64_t ev = 0, dev_now = 0, bound = UINT64_MAX;
		unsigned bound_home = UINT_MAX;
		bool have_ev = false;
		for (unsigned i = 0; i < s->ncl; i++) {
			struct client *c = s->cl[i];
			if (!c->auth.hello || c->io.dead || c->io.closing)
				continue;
			if (c->wait.kind != P_VWAIT && !c->ls.ready) {
				/* its next request has not come yet: not before its clock */
				if (ls_before(c->ls.clock, ls_home(c), bound, bound_home)) {
					bound = c->ls.clock;
					bound_home = ls_home(c);
				}
				continue;
			}
			uint64_t key = c->ls.clock;
			if (c->wait.kind == P_VWAIT && c->ls.looked) {
				if (!have_ev) {
					ev = srv_ls_stat(s->cfg.dev, "next_event_ns", DNET_VTIME_END);
					dev_now = srv_ls_stat(s->cfg.dev, "vtime_ns", 0);
					have_ev = true;
				}
				uint64_t at = ev < c->wait.deadline ? ev : c->wait.deadline;
				if (dev_now > key && dev_now < at)
					at = dev_now;
				key = at > key ? at : key;
			}
			c->ls.key = key;
			/* Ties go to the lower node, then WID: never to whoever
			 * connected first (real time). */
			if (!best || ls_before(key, ls_home(c), best->ls.key, ls_home(best)))
				best = c;
		}
		if (!best)
			return;
		if (!ls_before(best->ls.key, ls_home(best), bound, bound_home)) {
			s->ls_held++;
			return; /* one on its way could still come first */
		}
		s->ls_served++;
		if (best->wait.kind == P_VWAIT) {
			struct dnet_err e;
			dnet_clearerr(&e);
			uint64_t hnow = 0, last = 0;
			struct dnet_dev *dev = srv_dev(s, best);
			int rc = ls_node_sync(s, best, &e);
			if (!rc)
				rc = dnet_now(dev, &hnow, &e);
			if (!rc && best->ls.key > hnow)
				rc = dnet_delay(dev, best->ls.key - hnow, &e);
			if (!rc)
				rc = dnet_wait(dev, best->wait.off, best->wait.mask, (enum dnet_cond)best->wait.cond, best->wait.value, 0,
					       &last, &e);
			best->ls.looked = true;
			srv_ls_clock_update(s, best);
			if (rc == -DNET_ETIMEDOUT && best->ls.clock < best->wait.deadline)
				continue; /* not yet: look again at the next event */
			best->wait.kind = P_NONE;
			if (rc == 0 || rc == -DNET_ETIMEDOUT) {
				char msg[160];
				if (rc)
					snprintf(msg, sizeof msg, "0x%x & 0x%llx %s 0x%llx not reached by virtual time %llu ns "
						 "(last 0x%llx)", best->wait.off, (unsigned long long)best->wait.mask,
						 dnet_cond_name((enum dnet_cond)best->wait.cond), (unsigned long long)best->wait.value,
						 (unsigned long long)best->wait.deadline, (unsigned long long)last);
				srv_reply_wait(s, best, best->wait.id, rc != 0, last, rc ? msg : NULL);
			} else {
				srv_reply_error(s, best, best->wait.id, rc, e.msg);
			}
		} else {
			struct dnet_err e;
			if (ls_node_sync(s, best, &e) == 0)
				best->ls.go = true;
			else
				best->io.dead = true;
		}
		srv_client_process(s, best);
		srv_flush_out(s, best);
		if (dnet_mono_ns() - t0 >= SLICE_BUDGET_NS) {
			s->ls_more = true;
			return;
		}
	}
}
