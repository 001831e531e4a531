/* dnetd's pending waits and delays: real-time ones re-checked from the
 * loop, virtual-time ones advanced in bounded slices so that no client
 * holds the others up, and the virtual-time budget each peer draws from. */
#include "remote/dnetd/srv.h"

#include <stdio.h>
#include <string.h>

#include "dnet/backend.h"
#include "dnet/parse.h"

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
		if (b->key[0] && strcmp(b->key, c->wait.vt_key) == 0)
			return b;
		if (!b->key[0])
			spare = spare ? spare : b;
		else if (b->at < lru->at)
			lru = b;
	}
	struct vt_bucket *b = spare ? spare : lru;
	snprintf(b->key, sizeof b->key, "%s", c->wait.vt_key);
	b->avail = s->vt_cap;
	b->at = dnet_mono_ns();
	return b;
}

/* What the client's peer may still add to the clock (UINT64_MAX: no cap). */
static uint64_t vt_avail(struct dnet_srv *s, const struct client *c)
{
	if (s->vt_cap == UINT64_MAX || !s->virt)
		return UINT64_MAX;
	struct vt_bucket *b = vt_bucket(s, c);
	uint64_t now = dnet_mono_ns(), dt = now - b->at;
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
			   c->auth.utoken ? "user token" : s->spec.tcp ? "address" : "uid", a, b);
}

/* ---- waits and delays ---- */

static bool wait_check(struct dnet_srv *s, struct client *c, uint64_t *last, int *rc, struct dnet_err *e)
{
	*rc = dnet_read64(srv_dev(s, c), c->wait.off, last, e);
	if (*rc)
		return true;
	return dnet_cond_eval((enum dnet_cond)c->wait.cond, *last & c->wait.mask, c->wait.value);
}

/* The message of a real-time wait that ran out of time: the same words as
 * the core's own polling dnet_wait(), so that a script sees the same text
 * directly and through dnetd. */
static void timeout_msg(const struct client *c, uint64_t last, uint64_t timeout_ns, char *buf, size_t len)
{
	snprintf(buf, len, "timed out after %llu ns waiting for (0x%x & 0x%llx) %s 0x%llx (last 0x%llx)",
		 (unsigned long long)timeout_ns, c->wait.off, (unsigned long long)c->wait.mask,
		 dnet_cond_name((enum dnet_cond)c->wait.cond), (unsigned long long)c->wait.value,
		 (unsigned long long)last);
}

/* The end of a pending wait or delay: failed (a posted delay counts among
 * the posted failures), or a delay done (a posted one is not answered). */
static void pending_fail(struct dnet_srv *s, struct client *c, int rc, const char *msg)
{
	c->wait.kind = P_NONE;
	srv_reply_error(s, c, c->wait.id, rc, msg);
	if (c->post.posted)
		c->post.failed++;
	c->post.posted = false;
}

static void delay_done(struct dnet_srv *s, struct client *c)
{
	c->wait.kind = P_NONE;
	if (!c->post.posted)
		srv_reply_empty(s, c, DNET_MSG_DELAY, c->wait.id);
	c->post.posted = false;
}

/* Advance a virtual-time wait or delay by slices of virtual time for at
 * most its share of SLICE_BUDGET_NS of real time (the budget divided among
 * the clients with virtual work), then let the loop serve the others.
 * The slices add up to exactly what one dnet_wait()/dnet_delay() would do:
 * the same events in the same order, the same final virtual time. */
void srv_vpending_step(struct dnet_srv *s, struct client *c)
{
	struct dnet_dev *dev = srv_dev(s, c);
	uint64_t t0 = dnet_mono_ns();
	uint64_t share = s->vshare ? s->vshare : SLICE_BUDGET_NS;
	for (;;) {
		struct dnet_err e;
		dnet_clearerr(&e);
		uint64_t vnow = 0, last = 0;
		int rc = dnet_now(dev, &vnow, &e);
		if (rc) {
			pending_fail(s, c, rc, e.msg);
			return;
		}
		uint64_t left = c->wait.deadline > vnow ? c->wait.deadline - vnow : 0;
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
		uint64_t step = srv_sat_add(next - vnow, c->wait.slice);
		if (step > left)
			step = left;
		bool final = step == left;
		/* A wait draws each slice from its peer's virtual-time budget
		 * (vt_delay: a delay was charged whole when it started); once it
		 * is spent the wait ends with EBUSY (not a timeout: its condition
		 * was not given the time asked for). */
		uint64_t budget = c->wait.kind == P_VWAIT ? vt_avail(s, c) : UINT64_MAX;
		bool cut = step > budget;
		if (cut) {
			step = budget;
			final = false;
		}
		uint64_t ts = dnet_mono_ns();
		if (c->wait.kind == P_VDELAY) {
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
			rc = dnet_wait(dev, c->wait.off, c->wait.mask, (enum dnet_cond)c->wait.cond, c->wait.value, step,
				       &last, &e);
			uint64_t vafter = vnow;
			if (budget != UINT64_MAX && dnet_now(dev, &vafter, &se) == 0 && vafter > vnow)
				vt_charge(s, c, vafter - vnow);
			if (rc == -DNET_ETIMEDOUT && cut) {
				char a[32], msg[200];
				snprintf(msg, sizeof msg, "wait stopped at virtual time %llu ns, before its timeout: this %s "
					 "has used its budget of %s of the shared virtual clock (refilled over a minute; "
					 "dnetd --vtime-budget)", (unsigned long long)vafter,
					 c->auth.utoken ? "user token" : s->spec.tcp ? "address" : "uid",
					 dnet_format_time(s->vt_cap, a, sizeof a));
				pending_fail(s, c, DNET_EBUSY, msg);
				return;
			}
			if (rc == 0 || (rc == -DNET_ETIMEDOUT && final)) {
				c->wait.kind = P_NONE;
				srv_reply_wait(s, c, c->wait.id, rc != 0, last, rc ? e.msg : NULL);
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
		uint64_t t1 = dnet_mono_ns(), cost = t1 - ts;
		if (cost > share / 4 && c->wait.slice > SLICE_MIN_NS)
			c->wait.slice /= 2;
		else if (cost < share / 16 && c->wait.slice < SLICE_MAX_NS)
			c->wait.slice *= 2;
		if (t1 - t0 >= share)
			return;
	}
}

/* Re-check a pending real-time wait or delay. */
void srv_check_pending(struct dnet_srv *s, struct client *c, uint64_t now)
{
	if (c->wait.kind == P_REJECT) {
		if (now >= c->wait.deadline) {
			c->wait.kind = P_NONE;
			srv_reply_error(s, c, c->wait.id, DNET_EPERM, c->wait.msg);
			c->io.closing = true;
		}
		return;
	}
	if (c->wait.kind == P_DELAY) {
		if (now >= c->wait.deadline)
			delay_done(s, c);
		return;
	}
	if (c->wait.kind != P_WAIT)
		return;
	struct dnet_err e;
	uint64_t last = 0;
	int rc;
	dnet_clearerr(&e);
	bool done = wait_check(s, c, &last, &rc, &e);
	if (rc) {
		c->wait.kind = P_NONE;
		srv_reply_error(s, c, c->wait.id, rc, e.msg);
	} else if (done) {
		c->wait.kind = P_NONE;
		srv_reply_wait(s, c, c->wait.id, false, last, NULL);
	} else if (now >= c->wait.deadline) {
		char msg[256];
		c->wait.kind = P_NONE;
		timeout_msg(c, last, c->wait.timeout, msg, sizeof msg);
		srv_reply_wait(s, c, c->wait.id, true, last, msg);
	}
}

/* ---- starting a wait or a delay (the WAIT and DELAY handlers) ---- */

int srv_wait_start(struct dnet_srv *s, struct client *c, const struct dnet_proto_msg *m,
		   struct dnet_proto_msg *r, uint8_t **hold, struct dnet_err *e)
{
	struct dnet_dev *dev = srv_dev(s, c);
	int rc;
	(void)r, (void)hold;
	/* what the loop re-checks (kind stays P_NONE until it is pending) */
	c->wait.id = m->id;
	c->wait.off = m->off;
	c->wait.cond = m->cond;
	c->wait.mask = m->mask;
	c->wait.value = m->value;
	c->wait.timeout = m->timeout_ns;
	if (s->virt) {
		/* Virtual time: advanced from the loop in bounded slices
		 * (vpending_step), the deadline in virtual time. */
		uint64_t vnow = 0;
		if ((rc = dnet_now(dev, &vnow, e)))
			return rc;
		c->wait.deadline = vt_room(vnow) < m->timeout_ns ? (vnow > DNET_VTIME_END ? vnow : DNET_VTIME_END)
								   : vnow + m->timeout_ns;
		c->wait.slice = SLICE_MIN_NS;
		c->wait.kind = P_VWAIT;
		if (s->cfg.lockstep) {
			c->ls.looked = false; /* looked at by lockstep_run */
			return SRV_DONE;
		}
		srv_vpending_step(s, c);
		return SRV_DONE;
	}
	/* Real time: check now, then from the loop until the deadline. */
	c->wait.deadline = srv_sat_add(dnet_mono_ns(), m->timeout_ns);
	uint64_t last = 0;
	if (wait_check(s, c, &last, &rc, e)) {
		if (rc)
			return rc;
		srv_reply_wait(s, c, m->id, false, last, NULL);
		return SRV_DONE;
	}
	if (m->timeout_ns == 0) {
		char msg[256];
		timeout_msg(c, last, 0, msg, sizeof msg);
		srv_reply_wait(s, c, m->id, true, last, msg);
		return SRV_DONE;
	}
	c->wait.kind = P_WAIT;
	return SRV_DONE;
}

int srv_delay_start(struct dnet_srv *s, struct client *c, const struct dnet_proto_msg *m,
		    struct dnet_proto_msg *r, uint8_t **hold, struct dnet_err *e)
{
	struct dnet_dev *dev = srv_dev(s, c);
	int rc;
	(void)r, (void)hold;
	if (s->virt && m->ns && (rc = vt_delay(s, c, m->ns, e)))
		return rc;
	if (s->virt && s->cfg.lockstep) {
		/* Per-host clocks: a delay moves only this host's. */
		return dnet_delay(dev, m->ns, e);
	}
	if (s->virt && m->ns) {
		uint64_t vnow = 0;
		if ((rc = dnet_now(dev, &vnow, e)))
			return rc;
		if (m->ns > vt_room(vnow)) {
			/* Refused here: the emulator's own check wraps once its
			 * clock stands past the end. */
			return dnet_seterr(e, DNET_ERANGE, "a delay of %llu ns would pass the end of virtual "
					   "time (2^62 ns; the clock is at %llu ns)", (unsigned long long)m->ns,
					   (unsigned long long)vnow);
		}
		c->wait.id = m->id;
		c->wait.deadline = vnow + m->ns;
		c->wait.slice = SLICE_MIN_NS;
		c->wait.kind = P_VDELAY;
		srv_vpending_step(s, c);
		return SRV_DONE;
	}
	if (s->virt || m->ns == 0)
		return dnet_delay(dev, m->ns, e);
	c->wait.id = m->id;
	c->wait.deadline = srv_sat_add(dnet_mono_ns(), m->ns);
	c->wait.kind = P_DELAY;
	return SRV_DONE;
}
