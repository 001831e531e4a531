/* dsh bench: the scheduler of concurrent host programs (bench_host.h).
 *
 * Conservative and deterministic: a host asks for its turn before each
 * device call; once every live host is asking, the one with the least key
 * goes (key = its clock, or for a waiting host the time it should look
 * again: the device's next event or its deadline, never before its clock).
 * The emulator runs the device lazily up to each access (sim timelines), so
 * the order of the calls is the order of virtual time.
 */
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_host.h"
#include "dnet/device.h" /* dnet_read_block_noflush */
#include "dnet/param.h"

struct bench_sched;

struct bench_host {
	struct bench_sched *s;
	unsigned idx, node;
	struct dnet_dev *dev;        /* its node's handle (D-NODE-HANDLE) */
	uint64_t t;                  /* clock after its last call */
	bool parked, waiting, done, go;
	bool looked;                 /* a wait looked at least once (at its own clock) */
	uint64_t deadline, key;
	/* the condition of a wait, looked at by the scheduler (pick) */
	uint32_t w_off;
	uint64_t w_mask, w_value, w_val;
	enum dnet_cond w_cond;
	int w_rc;
	char w_msg[DNET_ERR_MSG_MAX];
	pthread_cond_t cv;
	pthread_t th;
	bench_prog prog;
	void *arg;
};

struct bench_sched {
	struct dnet_dev *dev;
	pthread_mutex_t mu;
	struct bench_host *h;
	unsigned n;
	bool failed;
	char err[256];
	/* the emulator's host copy costs (timing.* parameters), read once */
	uint64_t l2_bytes, l2_8b_ns, bus_line_ns, l2_ways, page_bytes;
};

static uint64_t stat_or(struct bench_sched *s, const char *name, uint64_t dflt)
{
	struct dnet_err e;
	uint64_t v = dflt;
	if (dnet_stat(s->dev, name, &v, &e))
		v = dflt;
	return v;
}

/* Mutex held, every live host parked: look at a waiting host's condition
 * at its key time, in this thread (the others are parked).  True when its
 * wait is over (condition true, failed, or deadline). */
static bool look(struct bench_host *h)
{
	struct dnet_err e;
	/* A waiting host's clock is at least the device's (another host's
	 * access may have run the device past h->t): the delay to the key is
	 * counted from there, or the look would land past the key. */
	uint64_t now = h->t;
	int rc = dnet_now(h->dev, &now, &e);
	if (!rc && h->key > now)
		rc = dnet_delay(h->dev, h->key - now, &e);
	uint64_t v = 0;
	if (!rc)
		rc = dnet_wait(h->dev, h->w_off, h->w_mask, h->w_cond, h->w_value, 0, &v, &e);
	struct dnet_err e2;
	if (dnet_now(h->dev, &h->t, &e2) && !rc) {
		rc = -DNET_EIO;
		e = e2;
	}
	h->w_val = v;
	h->looked = true;
	if (rc == -DNET_ETIMEDOUT && h->t < h->deadline)
		return false;
	h->w_rc = rc;
	snprintf(h->w_msg, sizeof h->w_msg, "%s", rc ? e.msg : "");
	return true;
}

/* Mutex held.  If every live host is parked, wake the one to go; waiting
 * hosts whose condition does not hold yet are looked at here, without
 * waking their threads. */
static void pick(struct bench_sched *s)
{
	for (;;) {
		struct bench_host *best = NULL;
		uint64_t ev = 0, dev_now = 0;
		bool have_ev = false;
		for (unsigned i = 0; i < s->n; i++) {
			struct bench_host *h = &s->h[i];
			if (h->done)
				continue;
			if (!h->parked || h->go)
				return; /* someone is running (or about to) */
			uint64_t key = h->t;
			if (h->waiting && h->looked) {
				/* Look again at the device's next event, or at once
				 * if the device already ran past this host's clock
				 * (another host's access ran events that may concern
				 * it). */
				if (!have_ev) {
					ev = stat_or(s, "next_event_ns", DNET_VTIME_END);
					dev_now = stat_or(s, "vtime_ns", 0);
					have_ev = true;
				}
				uint64_t at = ev < h->deadline ? ev : h->deadline;
				if (dev_now > h->t && dev_now < at)
					at = dev_now;
				key = at > h->t ? at : h->t;
			}
			h->key = key;
			if (!best || key < best->key)
				best = h;
		}
		if (!best)
			return;
		if (best->waiting && !look(best))
			continue;
		best->waiting = false;
		best->go = true;
		pthread_cond_signal(&best->cv);
		return;
	}
}

static void turn(struct bench_host *h, bool waiting, uint64_t deadline)
{
	struct bench_sched *s = h->s;
	pthread_mutex_lock(&s->mu);
	h->parked = true;
	h->waiting = waiting;
	h->deadline = deadline;
	pick(s);
	while (!h->go)
		pthread_cond_wait(&h->cv, &s->mu);
	h->go = false;
	h->parked = false;
	pthread_mutex_unlock(&s->mu);
}

static void finish(struct bench_host *h)
{
	struct bench_sched *s = h->s;
	pthread_mutex_lock(&s->mu);
	h->done = true;
	pick(s);
	pthread_mutex_unlock(&s->mu);
}

void bh_fail(struct bench_host *h, const char *fmt, ...)
{
	struct bench_sched *s = h->s;
	char msg[200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&s->mu);
	if (!s->failed) {
		s->failed = true;
		snprintf(s->err, sizeof s->err, "host %u (node %u) at %llu ns: %s", h->idx, h->node,
			 (unsigned long long)h->t, msg);
	}
	pthread_mutex_unlock(&s->mu);
	finish(h);
	pthread_exit(NULL);
}

/* After a call: the host's clock, or fail with the call's error. */
static void done_call(struct bench_host *h, int rc, const struct dnet_err *e, const char *what)
{
	if (rc)
		bh_fail(h, "%s: %s", what, e->msg);
	struct dnet_err e2;
	if (dnet_now(h->dev, &h->t, &e2))
		bh_fail(h, "now: %s", e2.msg);
}

uint64_t bh_now(const struct bench_host *h) { return h->t; }
unsigned bh_node(const struct bench_host *h) { return h->node; }
enum dnet_clid_reading bh_clid_reading(const struct bench_host *h) { return dnet_dev_clid_reading(h->s->dev); }

void bh_w64(struct bench_host *h, uint32_t off, uint64_t v)
{
	struct dnet_err e;
	turn(h, false, 0);
	done_call(h, dnet_write64(h->dev, off, v, &e), &e, "write64");
}

uint64_t bh_r64(struct bench_host *h, uint32_t off)
{
	struct dnet_err e;
	uint64_t v = 0;
	turn(h, false, 0);
	done_call(h, dnet_read64(h->dev, off, &v, &e), &e, "read64");
	return v;
}

void bh_wblock(struct bench_host *h, uint32_t off, const void *buf, size_t len)
{
	struct dnet_err e;
	turn(h, false, 0);
	done_call(h, dnet_write_block(h->dev, off, buf, len, &e), &e, "write block");
}

void bh_rblock(struct bench_host *h, uint32_t off, void *buf, size_t len)
{
	struct dnet_err e;
	turn(h, false, 0);
	done_call(h, dnet_read_block(h->dev, off, buf, len, &e), &e, "read block");
}

void bh_rcached(struct bench_host *h, uint32_t off, void *buf, size_t len)
{
	struct dnet_err e;
	turn(h, false, 0);
	done_call(h, dnet_read_block_noflush(h->dev, off, buf, len, &e), &e, "read block");
}

void bh_flush(struct bench_host *h, uint32_t off, size_t len)
{
	struct dnet_err e;
	turn(h, false, 0);
	done_call(h, dnet_cache_flush(h->dev, off, len, &e), &e, "clflush");
}

void bh_spend(struct bench_host *h, uint64_t ns)
{
	struct dnet_err e;
	if (!ns)
		return;
	turn(h, false, 0);
	done_call(h, dnet_delay(h->dev, ns, &e), &e, "delay");
}

void bh_prefetch(struct bench_host *h, uint32_t off, size_t len)
{
	struct dnet_err e;
	turn(h, false, 0);
	done_call(h, dnet_prefetch(h->dev, off, len, &e), &e, "prefetch");
}

void bh_copy(struct bench_host *h, uint64_t bytes, uint64_t footprint)
{
	const struct bench_sched *s = h->s;
	/* The Prefetch Window's 2 KB are in the cache beside the destination
	 * (prefetched before each copy, flushed before the next VL). */
	double hit = bench_l2_hit_fraction(footprint, s->l2_bytes, s->l2_ways, s->page_bytes, 2048);
	double in_l2 = (double)((bytes + 7) / 8 * s->l2_8b_ns);
	double via_bus = (double)((bytes + 63) / 64 * 2 * s->bus_line_ns); /* read for ownership + write-back */
	bh_spend(h, (uint64_t)llround(hit * in_l2 + (1 - hit) * via_bus));
}

void bh_sodimm_write(struct bench_host *h, uint64_t addr, const void *buf, size_t len)
{
	struct dnet_err e;
	turn(h, false, 0);
	done_call(h, dnet_sodimm_access(h->dev, addr, (void *)(uintptr_t)buf, len, true, &e), &e,
		  "SO-DIMM write");
}

/* Event-driven polling: the condition is looked at (by the scheduler) at
 * each device event; once it holds, the host pays one read. */
uint64_t bh_wait(struct bench_host *h, uint32_t off, uint64_t mask, enum dnet_cond cond,
		 uint64_t value, uint64_t timeout_ns)
{
	h->w_off = off;
	h->w_mask = mask;
	h->w_cond = cond;
	h->w_value = value;
	h->looked = false; /* the first look is at the host's own clock */
	turn(h, true, h->t + timeout_ns);
	if (h->w_rc == -DNET_ETIMEDOUT)
		bh_fail(h, "timed out waiting for 0x%x & 0x%llx %s 0x%llx (last 0x%llx)", off,
			(unsigned long long)mask, dnet_cond_name(cond), (unsigned long long)value,
			(unsigned long long)h->w_val);
	if (h->w_rc)
		bh_fail(h, "wait: %s", h->w_msg);
	return h->w_val;
}

static void *host_main(void *p)
{
	struct bench_host *h = p;
	h->prog(h, h->arg);
	/* The host's last store is posted: let it reach the device. */
	struct dnet_err e;
	bool busy;
	turn(h, false, 0);
	if (dnet_busy(h->dev, &busy, &e))
		bh_fail(h, "busy: %s", e.msg);
	finish(h);
	return NULL;
}

int bench_run(struct dnet_dev *dev, unsigned n, const unsigned *nodes, const bench_prog *progs,
	      void *const *args, char *err, size_t errlen)
{
	struct bench_sched s = { .dev = dev, .n = n };
	struct dnet_err pe;
	if (dnet_param_get_u64(dev, "timing.host_l2_bytes", &s.l2_bytes, &pe) ||
	    dnet_param_get_u64(dev, "timing.host_l2_8b_ns", &s.l2_8b_ns, &pe) ||
	    dnet_param_get_u64(dev, "timing.host_bus_line_ns", &s.bus_line_ns, &pe) ||
	    dnet_param_get_u64(dev, "timing.host_l2_ways", &s.l2_ways, &pe) ||
	    dnet_param_get_u64(dev, "timing.host_page_bytes", &s.page_bytes, &pe)) {
		snprintf(err, errlen, "the emulator's host costs: %s", pe.msg);
		return -1;
	}
	if (!s.l2_ways || !s.page_bytes || s.l2_bytes % (s.l2_ways * s.page_bytes)) {
		snprintf(err, errlen,
			 "the host cache model needs timing.host_l2_bytes (%llu) to be a multiple of "
			 "timing.host_l2_ways (%llu) x timing.host_page_bytes (%llu), both not 0",
			 (unsigned long long)s.l2_bytes, (unsigned long long)s.l2_ways,
			 (unsigned long long)s.page_bytes);
		return -1;
	}
	s.h = calloc(n, sizeof *s.h);
	if (!s.h) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	pthread_mutex_init(&s.mu, NULL);
	struct dnet_err e;
	unsigned started = 0;
	for (unsigned i = 0; i < n; i++) {
		struct bench_host *h = &s.h[i];
		*h = (struct bench_host){ .s = &s, .idx = i, .node = nodes[i], .prog = progs[i], .arg = args[i] };
		pthread_cond_init(&h->cv, NULL);
		if (!(h->dev = dnet_node_dev(dev, h->node, &e)) || dnet_now(h->dev, &h->t, &e)) {
			snprintf(err, errlen, "host %u: node %u: %s", i, h->node, e.msg);
			s.failed = true;
			n = i;
			break;
		}
	}
	pthread_mutex_lock(&s.mu);
	for (unsigned i = 0; i < n && !s.failed; i++) {
		if (pthread_create(&s.h[i].th, NULL, host_main, &s.h[i])) {
			snprintf(s.err, sizeof s.err, "cannot start host thread %u", i);
			s.failed = true;
			break;
		}
		started++;
	}
	for (unsigned i = started; i < s.n; i++)
		s.h[i].done = true; /* never started: not waited for */
	pthread_mutex_unlock(&s.mu);
	for (unsigned i = 0; i < started; i++)
		pthread_join(s.h[i].th, NULL);
	for (unsigned i = 0; i < s.n; i++)
		pthread_cond_destroy(&s.h[i].cv);
	pthread_mutex_destroy(&s.mu);
	free(s.h);
	if (s.failed && s.err[0])
		snprintf(err, errlen, "%s", s.err);
	return s.failed ? -1 : 0;
}
