/* sim: the emulator backend -- the vtable, spec parsing, virtual time,
 * waits and statistics.
 *
 *   sim[:nodes=N (default 2)][,cold][,capacity=MB][,mtu=B][,fifo=DEPTH]
 *      [,lhs_type=ipush|own][,clid=11:8|12:9][,halt_on_error][,timelines][,trace=FILE]
 *      [,faults=RULES]
 *
 * N nodes (1..3071: unicast CLIDs, Tab. 4.6) in one process, each a model of the DIMMnet-2
 * controller driven only through its host interface.  Time is virtual (ns):
 * each host access costs its entry of the timing table (timing.c), delays
 * and waits run the event queue, and nothing depends on real time, so the
 * same run gives the same result every time.
 *
 * Decision D-SIM-TIMELINES: by default all nodes' hosts share one clock
 * (one program drives them in turn, a shell switching nodes).  With
 * `timelines` every node's host has its own clock: a host access happens at
 * that host's time (the device is run up to it first) and advances only that
 * host's clock; the device runs lazily, up to the next access of any host.
 * Concurrent host programs (the bench, dnetd --lockstep) stay correct and
 * deterministic if each next access is made by the host with the least
 * clock (ties: the lower node), sim_host_next() telling a waiting host when
 * to look again.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dnet/codes.h"
#include "dnet/parse.h"
#include "dnet/regs.h"
#include "sim/sim.h"

#define SIM_DEFAULT_FIFO 8u

static struct sim *S(struct dnet_dev *dev) { return dev->priv; }

void sim_schedule(struct sim *s, uint64_t at, enum sim_evkind k, unsigned node,
		  uint32_t gen, uint32_t a, void *p)
{
	uint64_t t = at < s->now ? s->now : at;
	if (s->running && t == s->now && !s->now_ev_set) {
		/* host speed: most steps hand over to another engine at the same
		 * time, and this slot spares the heap that event */
		sim_ev_set(&s->now_ev, t, s->q.seq++, k, node, gen, a, p);
		s->now_ev_set = true;
		return;
	}
	if (sim_evq_push(&s->q, t, k, node, gen, a, p)) {
		if (p)
			sim_pkt_free(s, p);
		struct sim_node *n = node ? s->node[node - 1] : NULL;
		if (n)
			n->st[ST_ALLOC_FAIL]++;
	}
}

/* Run event ev, taken off the queue: its fields are read before anything
 * runs (the slot it was in may take the next event). */
static void dispatch(struct sim *s, const struct sim_ev *ev)
{
	enum sim_evkind kind = ev->kind;
	unsigned node = ev->node;
	uint32_t gen = ev->gen, a = ev->a;
	void *p = ev->p;
	if (ev->t > s->now)
		s->now = ev->t;
	s->events++;
	struct sim_node *n = node ? s->node[node - 1] : NULL;
	switch (kind) {
	case EV_ACCEPT:
		if (n)
			sim_wc_accept(s, n);
		break;
	case EV_WC:
		if (n && gen == n->wc_gen && a == n->wc_seq)
			sim_wc_step(s, n);
		break;
	case EV_RC:
		if (n && gen == n->rc_gen)
			sim_rc_step(s, n);
		break;
	case EV_ARRIVE:
		sim_sw_deliver(s, node, p);
		break;
	case EV_SDIMM_INIT:
		if (n && n->sdimm_init_busy && gen == n->sdimm_init_gen)
			sim_sdimm_init_done(s, n);
		break;
	case EV_TICK:
		break;
	}
}

/* Take the first event off the heap and run it. */
static void dispatch_top(struct sim *s)
{
	struct sim_ev ev;
	const struct sim_ev *top = sim_evq_peek(&s->q);
	ev.t = top->t;
	ev.kind = top->kind;
	ev.node = top->node;
	ev.gen = top->gen;
	ev.a = top->a;
	ev.p = top->p;
	sim_evq_drop(&s->q);
	dispatch(s, &ev);
}

bool sim_now_is_next(const struct sim *s)
{
	const struct sim_ev *top = sim_evq_peek(&s->q);
	return s->running && !s->trace && !s->now_ev_set && (!top || top->t > s->now);
}

bool sim_quiet_until(const struct sim *s, unsigned node, uint64_t t)
{
	const struct sim_ev *top = sim_evq_peek(&s->q);
	if (top && top->t > t && s->running && !s->trace && !s->now_ev_set && t <= s->until)
		return true; /* nothing at all runs before t */
	if (!s->running || s->trace || s->now_ev_set || t > s->until || s->q.n > 16)
		return false;
	uint64_t first = UINT64_MAX;
	for (size_t i = 0; i < s->q.n; i++) {
		const struct sim_ev *e = &s->q.v[i];
		if (e->t < first)
			first = e->t;
		if (e->t > t || e->kind == EV_TICK)
			continue;
		if (e->node == node || (e->kind != EV_WC && e->kind != EV_ACCEPT))
			return false;
		/* an executor taking from the RC FIFO wakes a waiting Receive
		 * Controller (sim_rc_retry), whose steps reach other nodes */
		const struct sim_node *m = s->node[e->node - 1];
		if (m && m->rx_cur && m->rc_wait != RC_RUN)
			return false;
	}
	/* what those steps send arrives a hop after they run, at the earliest */
	return first > t || t - first < 2ull * s->t.swif_ns + s->t.switch_ns;
}

/* Run every event up to and including time t, then set the clock to t. */
static void run_until(struct sim *s, uint64_t t)
{
	s->running = true;
	s->until = t;
	for (;;) {
		const struct sim_ev *top = sim_evq_peek(&s->q);
		/* the slot's event is due now (<= t): it runs before the heap's
		 * unless one of those is due now and was scheduled earlier */
		if (s->now_ev_set && (!top || top->t > s->now_ev.t ||
				      (top->t == s->now_ev.t && top->seq > s->now_ev.seq))) {
			s->now_ev_set = false;
			dispatch(s, &s->now_ev);
		} else if (top && top->t <= t) {
			dispatch_top(s);
		} else {
			break;
		}
	}
	s->running = false;
	if (t > s->now)
		s->now = t;
}

/* The node of the handle called with (D-NODE-HANDLE): the emulator keeps
 * no current node. */
static int cur_node(const struct dnet_dev *dev, struct sim_node **n, struct dnet_err *err)
{
	*n = sim_node_get(dev->priv, dev->node);
	if (!*n)
		return dnet_seterr(err, DNET_ENOMEM, "sim: out of memory for node %u", dev->node);
	return 0;
}

/* ---- open / close ---- */

static void sim_free(struct sim *s)
{
	if (!s)
		return;
	if (s->node)
		for (unsigned i = 0; i < s->nnodes; i++)
			sim_node_free(s->node[i]);
	free(s->node);
	sim_evq_free(&s->q);
	sim_pkt_pool_free(s);
	sim_trace_close(s);
	free(s);
}

static int parse_args(struct sim *s, const char *args, struct dnet_err *err)
{
	struct dnet_kv kv[16];
	unsigned n;
	int rc = core_kv_split(args, kv, 16, &n, err);
	if (rc)
		return rc;
	for (unsigned i = 0; i < n; i++) {
		uint64_t v = 0;
		const char *k = kv[i].key;
		bool flag = !strcmp(k, "cold") || !strcmp(k, "halt_on_error") || !strcmp(k, "timelines");
		if (!flag && !kv[i].has_val)
			return dnet_seterr(err, DNET_EINVAL, "sim: option '%s' needs a value", k);
		if (flag && kv[i].has_val)
			return dnet_seterr(err, DNET_EINVAL, "sim: option '%s' takes no value", k);
		if (!strcmp(k, "clid")) {
			/* Decision D-CLID: which LID bits the CLID drops (applied
			 * by sim_open once the whole spec is valid). */
			if (!strcmp(kv[i].val, "11:8"))
				s->clid_12_9 = false;
			else if (!strcmp(kv[i].val, "12:9"))
				s->clid_12_9 = true;
			else
				return dnet_seterr(err, DNET_EINVAL, "sim: clid=%s is not 11:8 or 12:9 (the LID bits "
						   "a CLID drops, Tab. 4.6)", kv[i].val);
			continue;
		}
		if (!strcmp(k, "trace")) {
			if (!kv[i].has_val || !kv[i].val[0] || strlen(kv[i].val) >= sizeof s->trace_path)
				return dnet_seterr(err, DNET_EINVAL, "sim: trace= needs a file name (at most %zu bytes)",
						   sizeof s->trace_path - 1);
			snprintf(s->trace_path, sizeof s->trace_path, "%s", kv[i].val);
			continue;
		}
		if (!strcmp(k, "timelines")) {
			s->timelines = true; /* Decision D-SIM-TIMELINES (above) */
			continue;
		}
		if (!strcmp(k, "halt_on_error")) {
			s->halt_on_error = true; /* Decision D-SIM-HALT (node.c) */
			continue;
		}
		if (!strcmp(k, "faults")) { /* Decision D-SIM-FAULTS (faults.c) */
			if ((rc = sim_faults_parse(&s->faults, kv[i].val, err)))
				return rc;
			continue;
		}
		if (!strcmp(k, "lhs_type")) {
			/* Decision D-SIM-IPUSH-WIRE (OQ-15). */
			if (!strcmp(kv[i].val, "own"))
				s->lhs_own_type = true;
			else if (!strcmp(kv[i].val, "ipush"))
				s->lhs_own_type = false;
			else
				return dnet_seterr(err, DNET_EINVAL,
						   "sim: lhs_type=%s is not 'ipush' or 'own'", kv[i].val);
			continue;
		}
		if (!flag && (rc = dnet_parse_u64(kv[i].val, UINT32_MAX, &v, k, err)))
			return rc;
		if (flag) {
			s->cold = true;
		} else if (!strcmp(k, "nodes")) {
			if (v < 1 || v > SIM_MAX_NODES)
				return dnet_seterr(err, DNET_EINVAL, "sim: nodes=%llu out of range (1-%u: node k has "
						   "CLID k, and unicast CLIDs end at 0xbff; 0xc00 and up are multicast, Tab. 4.6)",
						   (unsigned long long)v, SIM_MAX_NODES);
			s->nnodes = (unsigned)v;
		} else if (!strcmp(k, "capacity")) {
			if (dnet_code_encode(&core_codetab_capacity, v << 20, &s->cap_code, NULL))
				return dnet_seterr(err, DNET_EINVAL,
						   "sim: capacity=%llu MB is not 256, 512, 1024, 2048, 4096 or 8192",
						   (unsigned long long)v);
		} else if (!strcmp(k, "mtu")) {
			if (dnet_code_encode(&core_codetab_mtu, v, &s->mtu_code, NULL))
				return dnet_seterr(err, DNET_EINVAL,
						   "sim: mtu=%llu is not 256, 512, 1024, 2048 or 4096",
						   (unsigned long long)v);
		} else if (!strcmp(k, "fifo")) {
			if (v < 2 || v > 256)
				return dnet_seterr(err, DNET_EINVAL, "sim: fifo=%llu out of range (2-256)",
						   (unsigned long long)v);
			s->fifo_depth = (unsigned)v;
		} else {
			return dnet_seterr(err, DNET_EINVAL,
					   "sim: unknown option '%s' (nodes=N, cold, capacity=MB, mtu=B, fifo=DEPTH, lhs_type=ipush|own, clid=11:8|12:9, halt_on_error, timelines, trace=FILE, faults=RULES)",
					   k);
		}
	}
	return 0;
}

/* Decision D-CLID: the reading is the handle's (dnet_dev_clid_reading): a
 * host builds BOTF images with its device's, the emulator routes with its
 * own (sim_clid_reading), so two sims of one process may read differently. */
static int sim_open(struct dnet_dev *dev, const char *args, struct dnet_err *err)
{
	struct sim *s = calloc(1, sizeof *s);
	if (!s)
		return dnet_seterr(err, DNET_ENOMEM, "sim: out of memory");
	s->nnodes = 2; /* a newcomer can send between two nodes */
	s->t = sim_timing_default;
	s->cap_code = DNET_CAPACITY_CODE_DEFAULT;
	s->mtu_code = DNET_MTU_CODE_DEFAULT;
	s->fifo_depth = SIM_DEFAULT_FIFO;
	for (unsigned i = 0; i < 32; i++)
		s->oi[i] = dnet_otype_info(i);
	int rc = parse_args(s, args, err);
	if (rc) {
		free(s);
		return rc;
	}
	s->node = calloc(s->nnodes, sizeof *s->node);
	if (!s->node) {
		unsigned nn = s->nnodes;
		free(s);
		return dnet_seterr(err, DNET_ENOMEM, "sim: out of memory for %u nodes", nn);
	}
	if (s->trace_path[0] && (rc = sim_trace_open(s, s->trace_path, err))) {
		sim_free(s);
		return rc;
	}
	/* Cold start: wake waits when the links come up. */
	if (s->cold)
		sim_schedule(s, s->t.sma_up_ns, EV_TICK, 0, 0, 0, NULL);
	dev->priv = s;
	dev->clid_reading = sim_clid_reading(s); /* the handle's (D-CLID) */
	dev->nodes = s->nnodes;
	dev->node = 1;
	dev->caps = DNET_CAP_MULTINODE | DNET_CAP_VIRTUAL_TIME | DNET_CAP_BACKDOOR |
		    DNET_CAP_PRIVILEGED;
	return 0;
}

static void sim_close(struct dnet_dev *dev)
{
	sim_free(S(dev));
	dev->priv = NULL;
}

/* ---- accesses ---- */

/* The current host's clock: its own with timelines (never behind the
 * device), else the device's. */
static uint64_t host_now(const struct sim *s, const struct sim_node *n)
{
	return s->timelines && n->ht > s->now ? n->ht : s->now;
}

/* The host-side cost of the step-byte accesses over [off, off+len), in
 * order (runs in a memory region at once, sim_host_run). */
static uint64_t host_charge(struct sim *s, struct sim_node *n, uint32_t off, size_t len,
			    unsigned step, bool write)
{
	uint64_t cost = 0;
	for (size_t i = 0; i < len;) {
		uint32_t a = off + (uint32_t)i;
		size_t run = step == 8 ? sim_host_run(a, len - i) : 0;
		if (run) {
			cost += sim_host_charge_run(s, n, a, run, write);
			i += run;
		} else {
			cost += sim_host_charge(s, n, a, step, write);
			i += step;
		}
	}
	return cost;
}

/* The step-byte stores over [off, off+len) reach the device, in order. */
static void host_store(struct sim *s, struct sim_node *n, uint32_t off, const uint8_t *buf,
		       size_t len, unsigned step)
{
	for (size_t i = 0; i < len;) {
		uint32_t a = off + (uint32_t)i;
		size_t run = step == 8 ? sim_host_run(a, len - i) : 0;
		if (run) {
			sim_host_write_run(s, n, a, buf + i, run);
			i += run;
		} else {
			sim_host_write(s, n, a, buf + i, step);
			i += step;
		}
	}
}

/* host_begin runs the device up to the host's time and returns it. */
static uint64_t host_begin(struct sim *s, struct sim_node *n)
{
	if (s->timelines && n->ht > s->now)
		run_until(s, n->ht);
	if (n->posted_len) {
		/* the previous store arrives now, before this access */
		host_store(s, n, n->posted_off, n->posted, n->posted_len, n->posted_step);
		n->posted_len = 0;
	}
	return s->now;
}

/* The host spent cost ns after host_begin: with timelines only its clock
 * moves (the device catches up at the next access); else the device runs. */
static void host_end(struct sim *s, struct sim_node *n, uint64_t cost)
{
	if (s->timelines)
		n->ht = s->now + cost;
	else
		run_until(s, s->now + cost);
}

/* Host accesses of step bytes each over [off, off+len): into rbuf (reads)
 * or from wbuf (writes); then the device runs for their summed cost. */
static int host_xfer(struct dnet_dev *dev, uint32_t off, void *rbuf, const void *wbuf,
		     size_t len, unsigned step, struct dnet_err *err)
{
	struct sim *s = S(dev);
	struct sim_node *n;
	int rc = cur_node(dev, &n, err);
	if (rc)
		return rc;
	host_begin(s, n);
	uint64_t cost = 0;
	if (wbuf) {
		/* Decision D-SIM-HOST-COST: a store reaches the device at the end
		 * of its cost (the bus transaction), a load samples the device at
		 * the start of its cost (the §6.2.1 breakdown: completion, then
		 * one uncachable read to see it). */
		cost = host_charge(s, n, off, len, step, true);
		sim_trace_span(s, n->id, SIM_TR_HOST, s->now, s->now + cost, "store 0x%x, %zu B", off, len);
		if (s->timelines) {
			/* Posted: it reaches the device when this host's clock is
			 * next looked at (host_begin), after the other hosts'
			 * earlier accesses. */
			if (len > n->posted_cap) {
				uint8_t *b = realloc(n->posted, len);
				if (!b)
					return dnet_seterr(err, DNET_ENOMEM, "sim: out of memory");
				n->posted = b;
				n->posted_cap = len;
			}
			memcpy(n->posted, wbuf, len);
			n->posted_len = len;
			n->posted_off = off;
			n->posted_step = step;
			host_end(s, n, cost);
			return 0;
		}
		run_until(s, s->now + cost);
		host_store(s, n, off, wbuf, len, step);
		return 0;
	}
	for (size_t i = 0; i < len;) {
		/* a load samples the device as it is: in a memory region a run
		 * reads at once (nothing there has an effect on reading) */
		uint32_t a = off + (uint32_t)i;
		size_t run = step == 8 ? sim_host_run(a, len - i) : 0;
		if (run) {
			cost += sim_host_charge_run(s, n, a, run, false);
			sim_host_read_run(n, a, (uint8_t *)rbuf + i, run);
			i += run;
		} else {
			cost += sim_host_charge(s, n, a, step, false);
			sim_host_read(s, n, a, (uint8_t *)rbuf + i, step, false);
			i += step;
		}
	}
	sim_trace_span(s, n->id, SIM_TR_HOST, s->now, s->now + cost, "load 0x%x, %zu B", off, len);
	host_end(s, n, cost);
	return 0;
}

static int sim_read(struct dnet_dev *dev, uint32_t off, void *buf, unsigned width,
		    struct dnet_err *err)
{
	return host_xfer(dev, off, buf, NULL, width, width, err);
}

static int sim_write(struct dnet_dev *dev, uint32_t off, const void *buf, unsigned width,
		     struct dnet_err *err)
{
	return host_xfer(dev, off, NULL, buf, width, width, err);
}

static int sim_read_block(struct dnet_dev *dev, uint32_t off, void *buf, size_t len,
			  struct dnet_err *err)
{
	return host_xfer(dev, off, buf, NULL, len, 8, err);
}

static int sim_write_block(struct dnet_dev *dev, uint32_t off, const void *buf, size_t len,
			   struct dnet_err *err)
{
	return host_xfer(dev, off, NULL, buf, len, 8, err);
}

/* clflush / PREFETCHNTA over [off, off+len): the host's cache changes and
 * it spends the returned time. */
static int host_lines(struct dnet_dev *dev, uint32_t off, size_t len, const char *what,
		      uint64_t (*op)(const struct sim *, struct sim_node *, uint32_t, size_t),
		      struct dnet_err *err)
{
	struct sim *s = S(dev);
	struct sim_node *n;
	int rc = cur_node(dev, &n, err);
	if (rc)
		return rc;
	host_begin(s, n);
	uint64_t cost = op(s, n, off, len);
	sim_trace_span(s, n->id, SIM_TR_HOST, s->now, s->now + cost, "%s 0x%x, %zu B", what, off, len);
	host_end(s, n, cost);
	return 0;
}

static int sim_cache_flush(struct dnet_dev *dev, uint32_t off, size_t len, struct dnet_err *err)
{
	return host_lines(dev, off, len, "clflush", sim_host_flush, err);
}

static int sim_prefetch(struct dnet_dev *dev, uint32_t off, size_t len, struct dnet_err *err)
{
	return host_lines(dev, off, len, "prefetch", sim_host_prefetch, err);
}

/* ---- time ---- */

static int sim_wait(struct dnet_dev *dev, uint32_t off, uint64_t mask, enum dnet_cond cond,
		    uint64_t value, uint64_t timeout_ns, uint64_t *last, struct dnet_err *err)
{
	struct sim *s = S(dev);
	struct sim_node *n;
	int rc = cur_node(dev, &n, err);
	if (rc)
		return rc;
	if (off & 7u)
		return dnet_seterr(err, DNET_EALIGN, "sim: wait offset 0x%x is not 8-byte aligned", off);
	if (off == DNET_SREG_BASE + DNET_SR_CTL_RESET)
		return dnet_seterr(err, DNET_EINVAL,
				   "sim: refusing to poll Controller Reset (every read resets)");
	uint64_t t_poll = host_begin(s, n);
	/* A timeout past the end of virtual time ends there (D-SIM-TIME-END). */
	uint64_t deadline = s->now >= SIM_TIME_END || SIM_TIME_END - s->now < timeout_ns ? SIM_TIME_END
											  : s->now + timeout_ns;
	uint64_t v;
	for (;;) {
		/* Side-effect-free look at the register after each event: the
		 * wait costs one host read once the condition holds. */
		sim_host_read(s, n, off, (uint8_t *)&v, 8, true);
		if (dnet_cond_eval(cond, v & mask, value)) {
			uint64_t c = sim_host_charge(s, n, off, 8, false);
			sim_trace_span(s, n->id, SIM_TR_HOST, t_poll, s->now + c, "poll 0x%x", off);
			host_end(s, n, c);
			if (last)
				*last = v;
			return 0;
		}
		const struct sim_ev *top = sim_evq_peek(&s->q);
		if (!top || top->t > deadline) {
			run_until(s, deadline);
			host_end(s, n, 0);
			sim_host_read(s, n, off, (uint8_t *)&v, 8, true);
			if (last)
				*last = v;
			/* The deadline, not the timeout, is named: a wait that dnetd
			 * runs in slices ends with the same words. */
			return dnet_seterr(err, DNET_ETIMEDOUT,
					   "sim: 0x%x & 0x%llx %s 0x%llx not reached by virtual time %llu ns (last 0x%llx)",
					   off, (unsigned long long)mask, dnet_cond_name(cond),
					   (unsigned long long)value, (unsigned long long)deadline,
					   (unsigned long long)v);
		}
		dispatch_top(s);
	}
}

static int sim_delay(struct dnet_dev *dev, uint64_t ns, struct dnet_err *err)
{
	struct sim *s = S(dev);
	struct sim_node *n;
	int rc = cur_node(dev, &n, err);
	if (rc)
		return rc;
	uint64_t now = host_now(s, n);
	/* Decision D-SIM-TIME-END: virtual time ends at 2^62 ns (146 years), so
	 * that now + any step the model takes can never wrap; a delay past the
	 * end is refused and leaves the clock where it was. */
	/* Host accesses made at the end may have carried the clock a little
	 * past it: nothing more may pass then (no wrap in the subtraction). */
	if (now >= SIM_TIME_END || ns > SIM_TIME_END - now)
		return dnet_seterr(err, DNET_ERANGE,
				   "sim: a delay of %llu ns would pass the end of virtual time (2^62 ns; now %llu ns)",
				   (unsigned long long)ns, (unsigned long long)now);
	host_begin(s, n);
	host_end(s, n, now - s->now + ns);
	return 0;
}

static int sim_now(struct dnet_dev *dev, uint64_t *ns, struct dnet_err *err)
{
	struct sim *s = S(dev);
	struct sim_node *n;
	int rc = cur_node(dev, &n, err);
	if (rc)
		return rc;
	*ns = host_now(s, n);
	return 0;
}

static int sim_busy(struct dnet_dev *dev, bool *busy, struct dnet_err *err)
{
	struct sim *s = S(dev);
	struct sim_node *n;
	int rc = cur_node(dev, &n, err);
	if (rc)
		return rc;
	host_begin(s, n);
	*busy = sim_wc_busy(n) || sim_rc_busy(n) || n->tx_inflight || n->sdimm_init_busy;
	return 0;
}

/* ---- backdoor and statistics ---- */

static int sim_sodimm(struct dnet_dev *dev, uint64_t addr, void *buf, size_t len, bool write,
		      struct dnet_err *err)
{
	struct sim_node *n;
	int rc = cur_node(dev, &n, err);
	if (rc)
		return rc;
	uint64_t space = 2 * sim_capacity(n);
	if (addr > space || len > space - addr)
		return dnet_seterr(err, DNET_ERANGE,
				   "sim: SO-DIMM range 0x%llx+0x%zx outside 0x%llx bytes",
				   (unsigned long long)addr, len, (unsigned long long)space);
	if (!write) {
		sim_sd_phys_read(n, addr, buf, len);
		return 0;
	}
	if (sim_sd_phys_write(n, addr, buf, len))
		return dnet_seterr(err, DNET_ENOMEM, "sim: out of memory for SO-DIMM storage");
	return 0;
}

static const char *const stat_names[] = {
	"vtime_ns", "host_ns", "next_event_ns", "events", "queued_events", "nodes_allocated",
	"pgid_drops", "packets_sent", "packets_received", "ipush_messages", "lhs_messages",
	"ipush_stalls", "lhb_stalls", "ipush_no_ring", "ipush_too_big", "ipush_orphans",
	"amt_bad_lid", "unroutable_drops", "multicast_drops", "copy_list_refused", "bad_packets", "requests_overwritten",
	"rc_stalls", "unknown_otype", "botf_dropped", "sdimm_uninit_accesses",
	"alloc_failures", "bytes_sent", "bytes_received", "sodimm_bytes", "sodimm_area_bytes", "rx_queue",
	"retransmissions", "retransmit_timeouts", "duplicates_dropped", "crc_errors", "out_of_sequence",
	"acks_sent", "naks_sent", "faults_injected", "faults_dropped", "faults_duplicated",
	"faults_reordered", "faults_delayed", "faults_corrupted", "faults_stalled",
	/* error events by this node's requests, per issuing WID (D-SIM-CAUSE,
	 * caused_stat): w<W>_last_<cause> is w<W>_errors_caused at its latest
	 * event (0: never), _node where it happened */
	"w0_in_flight", "w0_errors_caused", "w0_last_rc_overrun", "w0_last_rc_overrun_node",
	"w0_last_rc_state", "w0_last_rc_state_node", "w0_last_status_full", "w0_last_status_full_node",
	"w0_last_pgid_drop", "w0_last_pgid_drop_node", "w0_last_unroutable", "w0_last_unroutable_node",
	"w0_last_rx_drop", "w0_last_rx_drop_node", "w0_last_ww0_src_overrun",
	"w0_last_ww0_src_overrun_node", "w0_last_ww0_dst_overrun", "w0_last_ww0_dst_overrun_node",
	"w0_last_ww1_src_overrun", "w0_last_ww1_src_overrun_node", "w0_last_ww1_dst_overrun",
	"w0_last_ww1_dst_overrun_node", "w0_last_ww2_src_overrun", "w0_last_ww2_src_overrun_node",
	"w0_last_ww2_dst_overrun", "w0_last_ww2_dst_overrun_node", "w0_last_ww3_src_overrun",
	"w0_last_ww3_src_overrun_node", "w0_last_ww3_dst_overrun", "w0_last_ww3_dst_overrun_node",
	"w1_in_flight", "w1_errors_caused", "w1_last_rc_overrun", "w1_last_rc_overrun_node",
	"w1_last_rc_state", "w1_last_rc_state_node", "w1_last_status_full", "w1_last_status_full_node",
	"w1_last_pgid_drop", "w1_last_pgid_drop_node", "w1_last_unroutable", "w1_last_unroutable_node",
	"w1_last_rx_drop", "w1_last_rx_drop_node", "w1_last_ww0_src_overrun",
	"w1_last_ww0_src_overrun_node", "w1_last_ww0_dst_overrun", "w1_last_ww0_dst_overrun_node",
	"w1_last_ww1_src_overrun", "w1_last_ww1_src_overrun_node", "w1_last_ww1_dst_overrun",
	"w1_last_ww1_dst_overrun_node", "w1_last_ww2_src_overrun", "w1_last_ww2_src_overrun_node",
	"w1_last_ww2_dst_overrun", "w1_last_ww2_dst_overrun_node", "w1_last_ww3_src_overrun",
	"w1_last_ww3_src_overrun_node", "w1_last_ww3_dst_overrun", "w1_last_ww3_dst_overrun_node",
	/* D-SIM-REQ-ID: w<W>_req<ID>_errors and w<W>_req<ID>_<cause>_node are
	 * read by name for any of the last 64 ids, not listed */
	"w0_requests", "w1_requests",
	NULL,
};

/* w<W>_req<ID>_errors, w<W>_req<ID>_<cause>_node (D-SIM-REQ-ID): 1 with *v
 * set, -1 with err when request ID's record is not kept (never issued, or
 * SIM_REQ_RECS later requests took its slot), 0 if name is not one. */
static int req_stat(const struct sim_caused *k, const char *r, uint64_t *v, struct dnet_err *err)
{
	char *end;
	if (strncmp(r, "req", 3) || r[3] < '0' || r[3] > '9')
		return 0;
	unsigned long long id = strtoull(r + 3, &end, 10);
	if (*end != '_')
		return 0;
	const char *what = end + 1;
	const struct sim_req_rec *rec = &k->rec[id % SIM_REQ_RECS];
	int c = -1;
	if (strcmp(what, "errors")) {
		for (unsigned i = 0; i < SIM_CAUSE_COUNT && c < 0; i++) {
			size_t l = strlen(sim_cause_names[i]);
			if (!strncmp(what, sim_cause_names[i], l) && !strcmp(what + l, "_node"))
				c = (int)i;
		}
		if (c < 0)
			return 0;
	}
	if (!id || id > UINT32_MAX || rec->req != id) {
		dnet_seterr(err, DNET_ENOENT, "sim: request %llu of this WID is not recorded (the latest is %" PRIu32
			    ", the last %u are kept)", id, k->requests, SIM_REQ_RECS);
		return -1;
	}
	*v = c < 0 ? rec->errors : rec->node[c];
	return 1;
}

/* w<W>_in_flight, w<W>_errors_caused, w<W>_last_<cause>[_node],
 * w<W>_requests, w<W>_req<ID>_...: 1 with *v set, -1 with err set, 0 if
 * name is not one of them. */
static int caused_stat(const struct sim_node *n, const char *name, uint64_t *v, struct dnet_err *err)
{
	if (name[0] != 'w' || (name[1] != '0' && name[1] != '1') || name[2] != '_')
		return 0;
	const struct sim_caused *k = &n->caused[name[1] - '0'];
	const char *r = name + 3;
	if (!strcmp(r, "errors_caused")) {
		*v = k->total;
		return 1;
	}
	if (!strcmp(r, "in_flight")) {
		*v = k->in_flight;
		return 1;
	}
	if (!strcmp(r, "requests")) {
		*v = k->requests;
		return 1;
	}
	if (strncmp(r, "last_", 5))
		return req_stat(k, r, v, err);
	r += 5;
	for (unsigned c = 0; c < SIM_CAUSE_COUNT; c++) {
		size_t l = strlen(sim_cause_names[c]);
		if (strncmp(r, sim_cause_names[c], l))
			continue;
		if (!r[l]) {
			*v = k->last[c];
			return 1;
		}
		if (!strcmp(r + l, "_node")) {
			*v = k->node[c];
			return 1;
		}
	}
	return 0;
}

static const char *const *sim_stat_names(struct dnet_dev *dev)
{
	(void)dev;
	return stat_names;
}

static int sim_stat(struct dnet_dev *dev, const char *name, uint64_t *v, struct dnet_err *err)
{
	struct sim *s = S(dev);
	static const struct { const char *name; enum sim_stat st; } per_node[] = {
		{ "pgid_drops", ST_PGID_DROPS }, { "packets_sent", ST_PKT_SENT },
		{ "packets_received", ST_PKT_RECV }, { "ipush_messages", ST_IPUSH_MSGS },
		{ "lhs_messages", ST_LHS_MSGS }, { "ipush_stalls", ST_IPUSH_STALLS },
		{ "lhb_stalls", ST_LHB_STALLS }, { "ipush_no_ring", ST_IPUSH_NO_RING },
		{ "ipush_too_big", ST_IPUSH_TOO_BIG }, { "ipush_orphans", ST_IPUSH_ORPHANS },
		{ "amt_bad_lid", ST_AMT_BAD_LID }, { "multicast_drops", ST_MULTICAST_DROPS },
		{ "copy_list_refused", ST_COPY_LIST_REFUSED },
		{ "unroutable_drops", ST_UNROUTABLE }, { "bad_packets", ST_BAD_PKT },
		{ "requests_overwritten", ST_REQ_OVERWRITTEN }, { "rc_stalls", ST_RC_STALLS },
		{ "unknown_otype", ST_UNKNOWN_OTYPE }, { "botf_dropped", ST_BOTF_DROPPED },
		{ "sdimm_uninit_accesses", ST_SDIMM_UNINIT }, { "alloc_failures", ST_ALLOC_FAIL },
		{ "bytes_sent", ST_BYTES_SENT }, { "bytes_received", ST_BYTES_RECV },
		{ "retransmissions", ST_RETRANSMITS }, { "retransmit_timeouts", ST_RETX_TIMEOUTS },
		{ "duplicates_dropped", ST_DUPS_DROPPED }, { "crc_errors", ST_CRC_ERRORS },
		{ "out_of_sequence", ST_OUT_OF_SEQ }, { "acks_sent", ST_ACKS_SENT },
		{ "naks_sent", ST_NAKS_SENT }, { "faults_injected", ST_FAULTS },
		{ "faults_dropped", ST_F_DROP }, { "faults_duplicated", ST_F_DUP },
		{ "faults_reordered", ST_F_REORDER }, { "faults_delayed", ST_F_DELAY },
		{ "faults_corrupted", ST_F_CORRUPT }, { "faults_stalled", ST_F_STALL },
	};
	if (!strcmp(name, "vtime_ns")) { *v = s->now; return 0; }
	if (!strcmp(name, "events")) { *v = s->events; return 0; }
	if (!strcmp(name, "next_event_ns")) {
		const struct sim_ev *top = sim_evq_peek(&s->q);
		*v = top ? top->t : SIM_TIME_END;
		return 0;
	}
	if (!strcmp(name, "queued_events")) { *v = s->q.n; return 0; }
	if (!strcmp(name, "nodes_allocated")) { *v = s->nodes_allocated; return 0; }
	struct sim_node *n;
	int rc = cur_node(dev, &n, err);
	if (rc)
		return rc;
	if (!strcmp(name, "host_ns")) { *v = host_now(s, n); return 0; }
	if (!strcmp(name, "sodimm_bytes")) { *v = sim_sd_bytes(n); return 0; }
	if (!strcmp(name, "sodimm_area_bytes")) { *v = sim_capacity(n); return 0; }
	if (!strcmp(name, "rx_queue")) { *v = n->rxq_len + (n->rx_cur != NULL); return 0; }
	for (size_t i = 0; i < sizeof per_node / sizeof per_node[0]; i++)
		if (!strcmp(name, per_node[i].name)) {
			*v = n->st[per_node[i].st];
			return 0;
		}
	int cs = caused_stat(n, name, v, err);
	if (cs)
		return cs > 0 ? 0 : -DNET_ENOENT;
	return dnet_seterr(err, DNET_ENOENT, "sim: no statistic '%s'", name);
}

const struct dnet_backend_ops sim_backend = {
	.name = "sim",
	.synopsis = "sim[:nodes=N][,cold][,capacity=MB][,mtu=B][,fifo=DEPTH][,lhs_type=ipush|own][,clid=11:8|12:9][,halt_on_error][,timelines][,trace=FILE][,faults=RULES]",
	.help = "emulated DIMMnet-2 cluster of N nodes (1-3071) in virtual time",
	.open = sim_open,
	.close = sim_close,
	.read = sim_read,
	.write = sim_write,
	.read_block = sim_read_block,
	.write_block = sim_write_block,
	.wc_flush = NULL,
	.cache_flush = sim_cache_flush,
	.prefetch = sim_prefetch,
	.wait = sim_wait,
	.delay = sim_delay,
	.now = sim_now,
	.busy = sim_busy,
	.sodimm = sim_sodimm,
	.stat = sim_stat,
	.stat_names = sim_stat_names,
	.params = sim_params,
	.param_get = sim_param_get,
	.param_set = sim_param_set,
};
