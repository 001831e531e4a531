/* dsh bench: the experiments of spec/evaluation.md, each host program
 * written as the thesis's host runs it (windows in rotation, send
 * completion by the Primitive Counter, arrival by polling the receive
 * status ring), on two emulated nodes whose hosts run concurrently on
 * their own virtual clocks (sim timelines).
 *
 * Node 1 is A, node 2 is B; both use WID 0.  Every measurement starts
 * after warm-up messages; the emulator is deterministic, so a few
 * messages give the steady state.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "dnet/codes.h"
#include "dnet/map.h"
#include "dnet/packet.h"
#include "dnet/regs.h"
#include "dnet/request.h"
#include "bench.h"
#include "bench_host.h"

const char *const bench_experiments[] = { "E1", "E2", "E3", "E4", "E5", "E6", "E7", "E8", "E9", NULL };

#define WID 0u
#define UR(off) (DNET_UREG_WID(WID) + (off))
#define BOTF_DATA 496u                 /* 512 B window - 16 B header (§6.2) */
#define TMO 100000000ull               /* 100 ms of virtual time for any wait */
#define RING_BYTES 4096u               /* status ring: 256 statuses */
#define AMT_IDX 256u                   /* LLCM word of the AMT entry */
#define IPUSH_RING (16u << 20)         /* SO-DIMM offset of the IPUSH ring */
#define IPUSH_UNITS 2048u              /* 8 MB ring (4 KB units, D-SIM-IPUSH-AREA) */

/* trace=FILE: the first emulator opened after bench_experiment starts
 * writes its Chrome trace-event JSON there. */
static const char *trace_next;

static int open_sim(struct dnet_dev **dev, char *err, size_t errlen)
{
	char spec[512] = "sim:nodes=2,timelines";
	if (trace_next) {
		snprintf(spec, sizeof spec, "sim:nodes=2,timelines,trace=%s", trace_next);
		trace_next = NULL;
	}
	struct dnet_err e;
	if (dnet_open(spec, dev, &e)) {
		snprintf(err, errlen, "%s", e.msg);
		return -1;
	}
	return 0;
}

/* ---- per-host state ---- */

struct ctr { uint64_t total; unsigned last; };

struct hs {
	unsigned peer;                 /* node (CLID) of the other host */
	struct ctr botf, rvs, ipush;
	uint64_t botf_issued, win_used[4];
	unsigned next_win;
	uint32_t st_tail;              /* receive status ring Tail seen */
	uint64_t seq;                  /* messages sent (PW destination: the last word) */
	uint64_t rx_seq;               /* messages received into the PW */
	uint64_t st_count, st_head_at;
	uint8_t img[512];
};

/* Wait until the family's Primitive Counter has counted `target`
 * completions since the start (10-bit fields wrap: each change is read). */
static void ctr_wait(struct bench_host *h, struct ctr *c, unsigned fam, uint64_t target)
{
	unsigned sh = DNET_PC_SHIFT(fam);
	uint64_t mask = ((1ull << DNET_PC_BITS) - 1) << sh;
	while (c->total < target) {
		uint64_t v = bh_wait(h, UR(DNET_UR_PRIM_COUNTER), mask, DNET_COND_NE, (uint64_t)c->last << sh, TMO);
		unsigned now = (unsigned)((v & mask) >> sh);
		c->total += (now - c->last) & ((1u << DNET_PC_BITS) - 1);
		c->last = now;
	}
}

/* Completion known without reading (the reply arrived). */
static void ctr_assume(struct ctr *c, uint64_t total)
{
	c->total = total;
	c->last = (unsigned)(total & ((1u << DNET_PC_BITS) - 1));
}

static void status_ring_setup(struct bench_host *h, struct hs *st)
{
	uint64_t code = 0;
	if (dnet_code_encode(&dnet_codetab_status_area, RING_BYTES, &code, NULL))
		bh_fail(h, "status ring size");
	bh_w64(h, UR(DNET_UR_STATUS_INIT), 0);
	bh_w64(h, UR(DNET_UR_STATUS_SIZE), code);
	bh_w64(h, UR(DNET_UR_STATUS_ADDR), 0);
	st->st_tail = 0;
}

/* Poll Status Next Write Address until k more statuses arrived; give the
 * ring back (Next Read Address) when half of it is used. */
static void status_wait(struct bench_host *h, struct hs *st, unsigned k)
{
	uint32_t want = (st->st_tail + 16u * k) % RING_BYTES;
	bh_wait(h, UR(DNET_UR_STATUS_ADDR), 0x7fff, DNET_COND_EQ, want, TMO);
	st->st_tail = want;
	st->st_count += k;
	if (st->st_count - st->st_head_at >= RING_BYTES / 32) {
		bh_w64(h, UR(DNET_UR_STATUS_ADDR), st->st_tail);
		st->st_head_at = st->st_count;
	}
}

/* ---- BOTF (§4.6.2, §6.2) ---- */

struct botf_cfg {
	unsigned k;                    /* Write Windows in rotation */
	bool eflag;                    /* a receive status per packet (ping-pong) */
	bool to_pw;                    /* rflag: into the receiver's Prefetch Window */
	unsigned type;                 /* header TYPE (RVS, IPUSH, LHSv1) */
	bool lflag;
};

/* One message of `size` data bytes as ceil(size/496) BOTFs: for each, wait
 * until its window is free, write the packet image, issue. */
static void botf_message(struct bench_host *h, struct hs *st, const struct botf_cfg *c, uint32_t size,
			 const uint64_t *payload_head)
{
	uint32_t sent = 0;
	do {
		uint32_t d = size - sent < BOTF_DATA ? size - sent : BOTF_DATA;
		unsigned w = st->next_win++ % c->k;
		if (st->win_used[w] > st->botf.total)
			ctr_wait(h, &st->botf, DNET_FAM_BOTF, st->win_used[w]);
		struct dnet_pkt_hdr ph = {
			.size = 16 + d, .type = c->type, .dlid = dnet_clid_to_lid((uint16_t)st->peer),
			.rflag = c->to_pw, .eflag = c->eflag, .lflag = c->lflag,
			.src_or_init_dst = c->to_pw ? sent % 2048u : sent, .dstoff = c->to_pw ? sent % 2048u : sent,
		};
		uint64_t line[2] = { dnet_hdr_dw1(&ph), dnet_hdr_dw2(&ph) };
		memcpy(st->img, line, 16);
		memset(st->img + 16, 0x5a, d);
		if (payload_head && sent == 0)
			memcpy(st->img + 16, payload_head, 8);
		if (c->to_pw && sent + d == size && d >= 8) {
			/* Into the Prefetch Window the receiver sees arrival by the
			 * data (§6.2.3): the message's last word is its number. */
			uint64_t n = st->seq + 1;
			memcpy(st->img + 16 + d - 8, &n, 8);
		}
		bh_wblock(h, DNET_WW_WID(WID) + w * DNET_WINDOW_SIZE, st->img, 16 + ((d + 7) & ~7u));
		struct dnet_botf_req b = { .ww = w, .size = 16 + d };
		uint64_t lower = 0;
		if (dnet_botf_encode(&b, &lower, NULL))
			bh_fail(h, "BOTF encode");
		bh_w64(h, UR(DNET_UR_CMD0_LOWER), lower);
		st->win_used[w] = ++st->botf_issued;
		sent += d;
	} while (sent < size);
}

static unsigned botf_packets(uint32_t size) { return (size + BOTF_DATA - 1) / BOTF_DATA; }

/* ---- RVS / IPUSH / VL requests ---- */

static void issue(struct bench_host *h, unsigned otype, unsigned peer, unsigned eflag, uint32_t size,
		  uint32_t src, uint32_t dst)
{
	struct dnet_req r = { .otype = otype, .dclid = peer, .eflag = eflag, .size = size, .srcoff = src,
			      .dstoff = dst };
	struct dnet_cmd cmd;
	struct dnet_err e;
	if (dnet_req_encode(&r, &cmd, &e))
		bh_fail(h, "request: %s", e.msg);
	bh_w64(h, UR(DNET_UR_CMD0_UPPER), cmd.upper);
	bh_w64(h, UR(DNET_UR_CMD0_LOWER), cmd.lower);
}

/* Read `size` bytes at SO-DIMM offset `src` into a host buffer of
 * `footprint` bytes, 2 KB at a time through the Prefetch Window (§4.2.1):
 * clflush, VL per 512 B window, poll the flags, PREFETCHNTA, copy. */
static void read_to_host(struct bench_host *h, uint32_t src, uint32_t size, uint64_t footprint)
{
	for (uint32_t off = 0; off < size; off += 2048) {
		uint32_t chunk = size - off < 2048 ? size - off : 2048;
		uint32_t pw = DNET_PW_WID(WID);
		bh_flush(h, pw, chunk);
		uint64_t flags = 0;
		for (uint32_t w = 0; w * 512 < chunk; w++) {
			uint32_t part = chunk - w * 512 < 512 ? chunk - w * 512 : 512;
			issue(h, DNET_OT_VL, 0, 0, part, src + off + w * 512, w * 512);
			for (uint32_t l = 0; l * 128 < part; l++)
				flags |= 1ull << (w * 4 + l);
		}
		bh_wait(h, UR(DNET_UR_PW_FLAG), flags, DNET_COND_EQ, flags, TMO);
		bh_prefetch(h, pw, chunk);
		uint8_t buf[2048];
		bh_rcached(h, pw, buf, (chunk + 7) & ~7u);
		bh_copy(h, chunk, footprint);
	}
}

/* ---- the experiments' host programs ---- */

enum mode { UNI, BI, PINGPONG };

struct run {
	enum mode mode;
	unsigned prim;                 /* DNET_OT_BOTF, _RVS, _IPUSH */
	struct botf_cfg botf;
	uint32_t size;
	unsigned warm, iters;
	int copy;                      /* RVS/IPUSH ping-pong: 0 none, 1 to host, 2 to a fixed 64 B area */
	bool pipelined;                /* RVS bi: issue as soon as issuing is possible */
	/* results per host */
	uint64_t t0[2], t1[2];
	uint64_t host_ns[2];           /* one way: the last message's host part (write, issue) */
	bool initiator[2];
	unsigned idx[2];
};

struct host_arg { struct run *r; unsigned i; };

static void send_one(struct bench_host *h, struct hs *st, struct run *r)
{
	if (r->prim == DNET_OT_BOTF) {
		botf_message(h, st, &r->botf, r->size, NULL);
		st->seq++;
		return;
	}
	issue(h, r->prim, st->peer, r->mode == PINGPONG, r->size, 0, 1u << 20);
}

static void wait_sent(struct bench_host *h, struct hs *st, struct run *r, uint64_t msgs)
{
	if (r->prim == DNET_OT_BOTF)
		ctr_wait(h, &st->botf, DNET_FAM_BOTF, st->botf_issued);
	else if (r->prim == DNET_OT_RVS)
		ctr_wait(h, &st->rvs, DNET_FAM_RVS, msgs);
	else
		ctr_wait(h, &st->ipush, DNET_FAM_IPUSH, msgs);
}

/* The receive status just consumed (the one before Tail). */
static void last_status(struct bench_host *h, const struct hs *st, struct dnet_status *s)
{
	uint32_t at = DNET_LLCM_WID(WID) + (st->st_tail + RING_BYTES - 16) % RING_BYTES;
	uint64_t lo = bh_r64(h, at), hi = bh_r64(h, at + 8);
	dnet_status_decode(lo, hi, s);
}

static void receive_one(struct bench_host *h, struct hs *st, struct run *r)
{
	if (r->prim == DNET_OT_BOTF && r->botf.to_pw) {
		/* Poll the message's last word in the Prefetch Window (a
		 * write-back line: flushed, then read until it changes). */
		uint32_t at = DNET_PW_WID(WID) + ((r->size - 8) % 2048u & ~7u);
		bh_flush(h, at & ~63u, 64);
		bh_wait(h, at, ~0ull, DNET_COND_EQ, ++st->rx_seq, TMO);
		return;
	}
	if (r->prim == DNET_OT_BOTF) {
		status_wait(h, st, botf_packets(r->size));
		return;
	}
	status_wait(h, st, 1);
	if (!r->copy)
		return;
	uint32_t at = 1u << 20;
	if (r->prim == DNET_OT_IPUSH) {
		/* The status names where the controller put the message. */
		struct dnet_status s;
		last_status(h, st, &s);
		at = s.addr;
	}
	read_to_host(h, at, r->size, r->copy == 1 ? r->size : 64);
	if (r->prim == DNET_OT_IPUSH) {
		/* Give the ring back: Head = Tail (one message at a time). */
		uint64_t amt = bh_r64(h, DNET_LLCM_WID(WID) + 8 * AMT_IDX);
		bh_w64(h, DNET_LLCM_WID(WID) + 8 * AMT_IDX, (amt & ~0xffffffffull) | (amt >> 32));
	}
}

static void ipush_setup(struct bench_host *h, struct hs *st)
{
	bh_w64(h, UR(DNET_UR_IPUSH_AREA), IPUSH_UNITS);
	bh_w64(h, DNET_SREG_BASE + DNET_SR_AMT, dnet_amt_word(AMT_IDX, WID, dnet_clid_to_lid((uint16_t)st->peer)));
	bh_w64(h, DNET_LLCM_WID(WID) + 8 * AMT_IDX, (uint64_t)IPUSH_RING << 32 | IPUSH_RING);
}

static void host_prog(struct bench_host *h, void *p)
{
	struct host_arg *a = p;
	struct run *r = a->r;
	struct hs *st = calloc(1, sizeof *st);
	if (!st)
		bh_fail(h, "out of memory");
	st->peer = bh_node(h) == 1 ? 2 : 1;
	if (r->mode == PINGPONG) {
		status_ring_setup(h, st);
		if (r->prim == DNET_OT_IPUSH)
			ipush_setup(h, st);
	}
	unsigned total = r->warm + r->iters;
	bool init = r->initiator[a->i];
	if (r->mode == PINGPONG) {
		/* Both sides set up before the first message (a barrier of
		 * virtual time: the later of the two clocks). */
		bh_spend(h, 1000000 > bh_now(h) ? 1000000 - bh_now(h) : 0);
		for (unsigned m = 0; m < total; m++) {
			if (m == r->warm)
				r->t0[a->i] = bh_now(h);
			if (init) {
				send_one(h, st, r);
				receive_one(h, st, r);
			} else {
				receive_one(h, st, r);
			}
			/* A message from the peer answers ours: our BOTFs are done
			 * and their windows free, without reading the counter. */
			if (r->prim == DNET_OT_BOTF)
				ctr_assume(&st->botf, st->botf_issued);
			if (!init)
				send_one(h, st, r);
		}
		if (!init && r->prim == DNET_OT_BOTF)
			wait_sent(h, st, r, total);
		r->t1[a->i] = bh_now(h);
		free(st);
		return;
	}
	for (unsigned m = 0; m < total; m++) {
		if (m == r->warm) {
			/* Issued as fast as possible, the warm-up requests may still
			 * be queued: the timed ones start on an idle device. */
			if (r->pipelined && m)
				wait_sent(h, st, r, m);
			r->t0[a->i] = bh_now(h);
		}
		if (r->pipelined) {
			/* RVS issued as soon as issuing is possible (§6.3.1):
			 * no request pending and the FIFO not full. */
			bh_wait(h, UR(DNET_UR_CTL_STATUS), DNET_CS_REQ_PENDING | DNET_CS_FIFO_FULL, DNET_COND_EQ, 0, TMO);
			send_one(h, st, r);
			if (m + 1 == total)
				wait_sent(h, st, r, total);
		} else {
			uint64_t t = bh_now(h);
			send_one(h, st, r);
			r->host_ns[a->i] = bh_now(h) - t;
			wait_sent(h, st, r, m + 1); /* up to detection of send completion */
		}
	}
	r->t1[a->i] = bh_now(h);
	free(st);
}

static int run_pair(struct run *r, bool both, char *err, size_t errlen)
{
	struct dnet_dev *dev = NULL;
	if (open_sim(&dev, err, errlen))
		return -1;
	struct host_arg a0 = { r, 0 }, a1 = { r, 1 };
	unsigned nodes[2] = { 1, 2 };
	bench_prog progs[2] = { host_prog, host_prog };
	void *args[2] = { &a0, &a1 };
	char why[200] = "";
	int rc = bench_run(dev, both ? 2 : 1, nodes, progs, args, why, sizeof why);
	dnet_close(dev);
	if (rc)
		snprintf(err, errlen, "%u B, %s%s: %s", r->size, r->mode == PINGPONG ? "ping-pong" : r->mode == BI ? "bidirectional" : "unidirectional",
			 r->copy == 1 ? ", copy to host" : r->copy == 2 ? ", copy to a fixed area" : "", why);
	return rc;
}

/* ---- results (the API: bench_results.c) ---- */

/* The value just added is a thesis point to draw on figure fig at x. */
static void val_plot(struct bench_out *o, const char *fig, double x)
{
	struct bench_val *v = &o->val[o->nval - 1];
	snprintf(v->fig, sizeof v->fig, "%s", fig);
	v->x = x;
}

static double series_max(const struct bench_series *s, double *at)
{
	double m = 0;
	for (unsigned i = 0; i < s->n; i++)
		if (s->y[i] > m) {
			m = s->y[i];
			if (at)
				*at = s->x[i];
		}
	return m;
}

static double series_min(const struct bench_series *s, double *at)
{
	double m = INFINITY;
	for (unsigned i = 0; i < s->n; i++)
		if (s->y[i] < m) {
			m = s->y[i];
			if (at)
				*at = s->x[i];
		}
	return m;
}

/* The smallest size whose throughput reaches half of the series' maximum,
 * interpolated linearly between the two sizes around it. */
static double half_peak(const struct bench_series *s)
{
	double half = series_max(s, NULL) / 2;
	for (unsigned i = 0; i < s->n; i++)
		if (s->y[i] >= half) {
			if (i == 0)
				return s->x[0];
			double f = (half - s->y[i - 1]) / (s->y[i] - s->y[i - 1]);
			return s->x[i - 1] + f * (s->x[i] - s->x[i - 1]);
		}
	return NAN;
}

/* ---- size sweeps ---- */

static unsigned linear_sizes(uint32_t *v, uint32_t from, uint32_t to, uint32_t step)
{
	unsigned n = 0;
	for (uint32_t s = from; s <= to && n < BENCH_MAX_PTS; s += step)
		v[n++] = s;
	return n;
}

static unsigned log_sizes(uint32_t *v, uint32_t from, uint32_t to)
{
	unsigned n = 0;
	for (uint32_t s = from; s <= to && n < BENCH_MAX_PTS - 1; s *= 2) {
		v[n++] = s;
		uint32_t mid = (s + s / 2 + 7) & ~7u;
		if (mid < to && mid > s && mid < 2 * s) /* 8: 12 rounds up to 16, the next power */
			v[n++] = mid;
	}
	return n;
}

/* One measurement: per-message time (ns) of host 0 and host 1. */
static int measure(struct run *r, bool both, double *t_a, double *t_b, char *err, size_t errlen)
{
	memset(r->t0, 0, sizeof r->t0);
	memset(r->t1, 0, sizeof r->t1);
	if (run_pair(r, both, err, errlen))
		return -1;
	*t_a = (double)(r->t1[0] - r->t0[0]) / r->iters;
	if (t_b)
		*t_b = both ? (double)(r->t1[1] - r->t0[1]) / r->iters : 0;
	return 0;
}

#define MBPS(bytes, ns) ((double)(bytes) * 1000.0 / (ns)) /* MB/s = 10^6 B/s (evaluation.md 0) */

/* E1 / E2 / E4 (BOTF uni and bi) and E3 / E4 (ping-pong) over a sweep. */
static int botf_sweep(const struct bench_opts *o, struct bench_out *out, enum mode mode, bool large,
		      char *err, size_t errlen, struct bench_series **thr, struct bench_series **lat,
		      const unsigned *ks, unsigned nk, bool to_pw)
{
	uint32_t sizes[BENCH_MAX_PTS];
	unsigned n = large ? linear_sizes(sizes, 2048, 65536, o->quick ? 8192 : 2048)
			   : o->quick ? linear_sizes(sizes + 1, 248, 1984, 248) + 1 /* 8, then 248 to 1984 */
				      : linear_sizes(sizes, 8, 1984, 8);
	if (!large && o->quick)
		sizes[0] = 8;
	(void)out;
	for (unsigned ki = 0; ki < nk; ki++)
		for (unsigned i = 0; i < n; i++) {
			struct run r = { .mode = mode, .prim = DNET_OT_BOTF, .size = sizes[i],
					 .botf = { .k = ks[ki], .eflag = mode == PINGPONG, .to_pw = to_pw,
						   .type = DNET_OT_RVS },
					 .warm = 2, .iters = large ? 3 : 6 };
			r.initiator[0] = true;
			double ta, tb;
			if (measure(&r, mode != UNI, &ta, &tb, err, errlen))
				return -1;
			double s = sizes[i];
			if (mode == BI) {
				bench_point(thr[ki], s, MBPS(s, ta) + MBPS(s, tb));
				bench_point(lat[ki], s, (ta + tb) / 2 / 1000);
			} else if (mode == PINGPONG) {
				bench_point(thr[ki], s, MBPS(s, ta / 2));
				bench_point(lat[ki], s, ta / 2 / 1000);
			} else {
				bench_point(thr[ki], s, MBPS(s, ta));
				bench_point(lat[ki], s, ta / 1000);
			}
		}
	return 0;
}

static int exp_botf(const char *id, const struct bench_opts *o, struct bench_out *out, char *err, size_t errlen)
{
	static const unsigned k124[] = { 1, 2, 4 };
	static const double uni_max[] = { 297.44, 463.55, 520.31 };
	bool e1 = !strcmp(id, "E1"), e2 = !strcmp(id, "E2"), e3 = !strcmp(id, "E3");
	enum mode mode = e1 ? UNI : e2 ? BI : PINGPONG;
	const char *dir = e1 ? "Unidirectional" : e2 ? "Bidirectional" : "to SO-DIMM";
	struct bench_fig *ft = bench_fig_new(out, e1 ? "fig6.3" : e2 ? "fig6.5" : "fig6.7",
				       e1 ? "BOTF throughput (unidirectional)" : e2 ? "BOTF throughput (bidirectional)"
				       : "BOTF throughput including receive processing",
				       "Data Size [Byte]", "Throughput [MByte/s]", false);
	struct bench_fig *fl = bench_fig_new(out, e1 ? "fig6.4" : e2 ? "fig6.6" : "fig6.8",
				       e1 ? "BOTF latency (unidirectional)" : e2 ? "BOTF latency (bidirectional)"
				       : "BOTF latency including receive processing (RTT/2)",
				       "Data Size [Byte]", "Latency [us]", false);
	struct bench_series *thr[4], *lat[4];
	char name[48];
	for (unsigned i = 0; i < 3; i++) {
		snprintf(name, sizeof name, "%u WW, %s", k124[i], dir);
		thr[i] = bench_series_new(ft, name);
		lat[i] = bench_series_new(fl, name);
	}
	if (botf_sweep(o, out, mode, false, err, errlen, thr, lat, k124, 3, false))
		return -1;
	if (e3) {
		/* 4 WW into the receiver's Prefetch Window (rflag = 1), up to 1984 B. */
		static const unsigned k4[] = { 4 };
		thr[3] = bench_series_new(ft, "4 WW to PW");
		lat[3] = bench_series_new(fl, "4 WW to PW");
		if (botf_sweep(o, out, mode, false, err, errlen, &thr[3], &lat[3], k4, 1, true))
			return -1;
		bench_val(out, id, "prediction", "MB/s", series_max(thr[3], NULL), NAN, "max throughput <= 1984 B, 4 WW to PW");
		bench_val(out, id, "prediction", "us", series_min(lat[3], NULL), NAN, "min RTT/2, 4 WW to PW");
		bench_val(out, id, "prediction", "us", series_min(lat[3], NULL) - 0.385, NAN,
		    "estimated back-to-back RTT/2 (min RTT/2 - 0.385 us), PW");
	}
	for (unsigned i = 0; i < 3; i++) {
		double at = 0, m = series_max(thr[i], &at);
		double lat_at = 0, lmin = series_min(lat[i], &lat_at);
		if (e1) {
			bench_val(out, id, "calibration", "MB/s", m, uni_max[i], "max throughput <= 1984 B, %u WW (at %.0f B)", k124[i], at);
			val_plot(out, ft->id, at);
		} else
			bench_val(out, id, "prediction", "MB/s", m, NAN, "max throughput <= 1984 B, %u WW %s (at %.0f B)", k124[i], dir, at);
		if (i == 2 || e3)
			bench_val(out, id, e1 ? "calibration" : "prediction", "us", lmin, e1 ? 0.632 : NAN,
			    "min %s, %u WW (at %.0f B)", e3 ? "RTT/2" : "latency", k124[i], lat_at);
		if (e1 && i == 2) {
			val_plot(out, fl->id, 8); /* 16 B header + 8 B data (§6.2.1) */
			/* §6.2.1's breakdown: writing the 24 B image and issuing
			 * (the host's part, before completion is polled) */
			struct run r = { .mode = UNI, .prim = DNET_OT_BOTF, .size = 8,
					 .botf = { .k = 4, .type = DNET_OT_RVS }, .warm = 2, .iters = 6 };
			double t;
			if (measure(&r, false, &t, NULL, err, errlen))
				return -1;
			bench_val(out, id, "calibration", "us", (double)r.host_ns[0] / 1000, 0.343,
				  "host part at 24 B: write the image and issue (§6.2.1)");
		}
	}
	if (e3) {
		/* The thesis's back-to-back estimate: RTT/2 - switch latency (§6.2.3). */
		double m = series_min(lat[2], NULL);
		bench_val(out, id, "prediction", "us", m - 0.385, NAN, "estimated back-to-back RTT/2 (min RTT/2 - 0.385 us), SO-DIMM");
	}
	return 0;
}

static int exp_e4(const struct bench_opts *o, struct bench_out *out, char *err, size_t errlen)
{
	static const unsigned k24[] = { 2, 4 };
	struct bench_fig *ft = bench_fig_new(out, "fig6.9", "BOTF throughput (data size >= 2 KByte)", "Data Size [Byte]",
				       "Throughput [MByte/s]", false);
	struct bench_fig *fp = bench_fig_new(out, "fig6.10", "BOTF throughput including receive processing (>= 2 KByte)",
				       "Data Size [Byte]", "Throughput [MByte/s]", false);
	struct bench_fig scratch;
	memset(&scratch, 0, sizeof scratch);
	struct bench_series *lat[2] = { bench_series_new(&scratch, "l2"), bench_series_new(&scratch, "l4") };
	static const enum mode modes[] = { BI, UNI };
	for (unsigned mi = 0; mi < 2; mi++) {
		struct bench_series *thr[2];
		for (unsigned i = 0; i < 2; i++) {
			char name[48];
			snprintf(name, sizeof name, "%u WW, %s", k24[1 - i], modes[mi] == BI ? "Bidirectional" : "Unidirectional");
			thr[1 - i] = bench_series_new(ft, name);
		}
		if (botf_sweep(o, out, modes[mi], true, err, errlen, thr, lat, k24, 2, false))
			return -1;
		for (unsigned i = 0; i < 2; i++)
			bench_val(out, "E4", "prediction", "MB/s", series_max(thr[i], NULL), NAN, "max throughput 2-64 KB, %s, %u WW",
			    modes[mi] == BI ? "bidirectional" : "unidirectional", k24[i]);
		lat[0]->n = lat[1]->n = 0;
	}
	struct bench_series *thr[2] = { NULL, NULL };
	thr[1] = bench_series_new(fp, "4 WW");
	thr[0] = bench_series_new(fp, "2 WW");
	if (botf_sweep(o, out, PINGPONG, true, err, errlen, thr, lat, k24, 2, false))
		return -1;
	for (unsigned i = 0; i < 2; i++)
		bench_val(out, "E4", "prediction", "MB/s", series_max(thr[i], NULL), NAN, "max ping-pong throughput 2-64 KB, %u WW", k24[i]);
	return 0;
}

static int exp_e5(const struct bench_opts *o, struct bench_out *out, char *err, size_t errlen)
{
	struct bench_fig *ft = bench_fig_new(out, "fig6.11", "SO-DIMM to SO-DIMM throughput", "Data Size (Log Scale) [Byte]",
				       "Throughput [MByte/s]", true);
	struct bench_fig *fl = bench_fig_new(out, "E5-latency", "SO-DIMM to SO-DIMM latency (new: the thesis gives minima only)",
				       "Data Size (Log Scale) [Byte]", "Latency (Log Scale) [us]", true);
	fl->logy = true; /* 0.8 us to 2 ms */
	struct bench_series *tu = bench_series_new(ft, "Unidirectional"), *tb = bench_series_new(ft, "Bidirectional");
	struct bench_series *lu = bench_series_new(fl, "Unidirectional"), *lb = bench_series_new(fl, "Bidirectional");
	uint32_t sizes[BENCH_MAX_PTS];
	unsigned n = log_sizes(sizes, 8, 1u << 20);
	for (unsigned i = 0; i < n; i++) {
		/* quick: every size up to 1 KB (the calibration points), then a third */
		if (o->quick && sizes[i] > 1024 && i % 3 && i + 1 != n)
			continue;
		uint32_t s = sizes[i];
		unsigned it = s >= (256u << 10) ? 3 : 6;
		struct run r = { .mode = UNI, .prim = DNET_OT_RVS, .size = s, .warm = 2, .iters = it };
		double ta, tb2;
		if (measure(&r, false, &ta, NULL, err, errlen))
			return -1;
		bench_point(tu, s, MBPS(s, ta));
		bench_point(lu, s, ta / 1000);
		/* Bidirectional latency: both hosts run the unidirectional loop
		 * (decision D-BENCH-E5-BILAT, §6.3.1 defines it for one way only). */
		r = (struct run){ .mode = BI, .prim = DNET_OT_RVS, .size = s, .warm = 2, .iters = it };
		if (measure(&r, true, &ta, &tb2, err, errlen))
			return -1;
		bench_point(lb, s, (ta + tb2) / 2 / 1000);
		/* Bidirectional throughput: each issues as soon as it can. */
		r = (struct run){ .mode = BI, .prim = DNET_OT_RVS, .size = s, .warm = 2, .iters = it * 2,
				  .pipelined = true };
		if (measure(&r, true, &ta, &tb2, err, errlen))
			return -1;
		bench_point(tb, s, MBPS(s, ta) + MBPS(s, tb2));
	}
	double at;
	bench_val(out, "E5", "calibration", "MB/s", series_max(tu, NULL), 727.20, "max throughput, unidirectional");
	val_plot(out, ft->id, 1u << 20);
	bench_val(out, "E5", "calibration", "B", half_peak(tu), 564, "half-of-peak throughput size, unidirectional");
	bench_val(out, "E5", "calibration", "MB/s", series_max(tb, NULL), 953.50, "max throughput, bidirectional");
	val_plot(out, ft->id, 1u << 20);
	if (tb->n && tb->x[tb->n - 1] == 1u << 20)
		bench_val(out, "E5", "calibration", "MB/s", tb->y[tb->n - 1], 953.50,
			  "throughput at 1 MB, bidirectional (the saturation)");
	at = 0;
	double m = series_min(lu, &at);
	bench_val(out, "E5", "calibration", "us", m, 0.81, "min latency, unidirectional (at %.0f B; thesis: at 64 B)", at);
	at = 0;
	m = series_min(lb, &at);
	bench_val(out, "E5", "calibration", "us", m, 1.09, "min latency, bidirectional (at %.0f B; thesis: 8-32 B)", at);
	val_plot(out, fl->id, 8);
	for (unsigned i = 0; i < lu->n; i++)
		if (lu->x[i] == 64) {
			bench_val(out, "E5", "calibration", "us", lu->y[i], 0.81, "latency at 64 B, unidirectional");
			val_plot(out, fl->id, 64);
		}
	return 0;
}

/* E6 (PUSH = RVS) and E7 (IPUSH beside it): ping-pong with receive. */
static int exp_push(const char *id, const struct bench_opts *o, struct bench_out *out, char *err, size_t errlen)
{
	bool e7 = !strcmp(id, "E7");
	struct bench_fig *ft = bench_fig_new(out, e7 ? "fig7.5" : "fig6.12",
				       e7 ? "PUSH versus IPUSH throughput"
					  : "SO-DIMM to SO-DIMM communication including receive processing",
				       "Data Size (Log Scale) [Byte]", "Throughput [MByte/s]", true);
	static const char *const vname[] = { "SO-DIMM to SO-DIMM", "SO-DIMM to Host", "SO-DIMM to Host (Area Fixed)" };
	uint32_t sizes[BENCH_MAX_PTS];
	unsigned n = log_sizes(sizes, 8, 1u << 20);
	unsigned prims[2] = { DNET_OT_RVS, DNET_OT_IPUSH };
	double rtt24[2] = { 0, 0 }, rttcopy[2] = { INFINITY, INFINITY };
	for (unsigned pi = e7 ? 0 : 0; pi < (e7 ? 2u : 1u); pi++)
		for (int v = 0; v < 3; v++) {
			char name[48];
			snprintf(name, sizeof name, "%s%s", vname[v], e7 ? (pi ? " (IPUSH)" : " (PUSH)") : "");
			struct bench_series *s = bench_series_new(ft, name);
			for (unsigned i = 0; i < n; i++) {
				if (o->quick && i % 3 && i + 1 != n)
					continue;
				uint32_t sz = sizes[i];
				struct run r = { .mode = PINGPONG, .prim = prims[pi], .size = sz, .warm = 2,
						 .iters = sz >= (256u << 10) ? 2 : 5, .copy = v };
				r.initiator[0] = true;
				double ta;
				if (measure(&r, true, &ta, NULL, err, errlen))
					return -1;
				bench_point(s, sz, MBPS(sz, ta / 2));
				if (v == 0 && sz == 8)
					rtt24[pi] = ta / 2 / 1000;
				if (v == 1 && ta / 2 / 1000 < rttcopy[pi])
					rttcopy[pi] = ta / 2 / 1000;
			}
			bench_val(out, id, "prediction", "MB/s", series_max(s, NULL), NAN, "max throughput, %s", name);
		}
	const char *pn[2] = { "PUSH", "IPUSH" };
	for (unsigned pi = 0; pi < (e7 ? 2u : 1u); pi++) {
		bench_val(out, id, "prediction", "us", rtt24[pi], NAN, "RTT/2, 24 B message (16 B header + 8 B data), %s", pn[pi]);
		bench_val(out, id, "prediction", "us", rttcopy[pi], NAN, "min RTT/2 with copy to main memory, %s", pn[pi]);
	}
	if (e7)
		bench_val(out, id, "prediction", "us", rtt24[1] - rtt24[0], NAN,
		    "IPUSH - PUSH RTT/2 at 24 B (Tab. 7.4/7.5: 4 clocks = 0.04 us of receive logic)");
	return 0;
}

/* ---- E9: LHS, envelope matching with and without it (§7.2.2, Fig. 7.9) ---- */

enum lhs_pat { IPUSH_ONLY, IPUSH_LHSV1, VL_IPUSH_LHSV1, IPUSH_LHSV2, LHS_PATS };
static const char *const lhs_name[LHS_PATS] = { "IPUSH Only", "IPUSH+LHSv1", "VL+IPUSH+LHSv1", "IPUSH+LHSv2" };
#define E9_SRC (2u << 20)      /* SO-DIMM offset of the data (VL and LHSv2 senders) */
#define E9_ENV_WW 0x1f8u       /* envelope in Write Window 3's last line (LHSv2) */

struct e9 {
	enum lhs_pat pat;
	uint32_t size;             /* envelope + data (Fig. 7.9's x-axis) */
	unsigned warm, iters;
	uint64_t t0, t1;
	unsigned rank[2];
};

struct e9_host { struct e9 *e; unsigned i; struct hs st; unsigned lh_next; uint64_t lh_phase; unsigned lh_freed; };

static void e9_send(struct bench_host *h, struct e9_host *x, unsigned tag)
{
	struct e9 *e = x->e;
	uint64_t env = dnet_envelope(1, e->rank[x->i], tag);
	uint32_t data = e->size - 8;
	if (e->pat == IPUSH_LHSV2) {
		/* 1. the envelope into a Write Window; 2. one LHSv2 request sends
		 * it and the SO-DIMM data (Fig. 7.8). */
		bh_wblock(h, DNET_WW_WID(WID) + E9_ENV_WW, &env, 8);
		struct dnet_lhsv2_upper u = { .srcoff = E9_SRC, .ww_size = 8, .ww_addr = E9_ENV_WW };
		uint64_t upper;
		struct dnet_err er;
		if (dnet_lhsv2_upper_encode(&u, &upper, &er))
			bh_fail(h, "LHSv2 upper: %s", er.msg);
		struct dnet_req r = { .otype = DNET_OT_LHSV2, .dclid = x->st.peer, .size = e->size,
				      .srcoff = (uint32_t)upper, .dstoff = (uint32_t)(upper >> 32) };
		struct dnet_cmd cmd;
		if (dnet_req_encode(&r, &cmd, &er))
			bh_fail(h, "LHSv2 request: %s", er.msg);
		bh_w64(h, UR(DNET_UR_CMD0_UPPER), cmd.upper);
		bh_w64(h, UR(DNET_UR_CMD0_LOWER), cmd.lower);
		return;
	}
	if (e->pat == VL_IPUSH_LHSV1 && data) {
		/* 1. VL the data into the Prefetch Window; 2. meanwhile the
		 * header goes into the Write Window (written with the image
		 * below); 3. poll the flag; 4. data and envelope into the WW. */
		uint32_t pw = DNET_PW_WID(WID);
		bh_flush(h, pw, data);
		issue(h, DNET_OT_VL, 0, 0, data, E9_SRC, 0);
		uint64_t flags = 0;
		for (uint32_t l = 0; l * 128 < data; l++)
			flags |= 1ull << l;
		bh_wait(h, UR(DNET_UR_PW_FLAG), flags, DNET_COND_EQ, flags, TMO);
		bh_prefetch(h, pw, data);
		uint8_t buf[512];
		bh_rcached(h, pw, buf, (data + 7) & ~7u);
	}
	struct botf_cfg c = { .k = 1, .type = DNET_OT_IPUSH, .lflag = e->pat != IPUSH_ONLY,
			      .eflag = e->pat == IPUSH_ONLY };
	botf_message(h, &x->st, &c, e->size, &env);
	/* The window is reused: its BOTF must be done (the next message is
	 * at least a round trip away, so this read finds it done). */
	ctr_assume(&x->st.botf, x->st.botf_issued);
}

static void e9_receive(struct bench_host *h, struct e9_host *x)
{
	struct e9 *e = x->e;
	uint32_t data = e->size - 8;
	if (e->pat == IPUSH_ONLY) {
		/* 1. poll Status Next Write Address; 2. read the status; 3. the
		 * envelope and 4. the data from the SO-DIMM (VL, flags, copy). */
		status_wait(h, &x->st, 1);
		struct dnet_status s;
		last_status(h, &x->st, &s);
		read_to_host(h, s.addr, e->size, 64);
		return;
	}
	/* LHS: poll the Valid and Complete flags of the next entry (a
	 * failed poll flushes the line, §7.2.2), then envelope and data come
	 * from the cached entry; data past 48 B from the IPUSH ring. */
	uint32_t ent = DNET_LHB_WID(WID) + x->lh_next * DNET_LHB_ENTRY;
	uint64_t want = ((x->lh_phase >> x->lh_next & 1) ? 0 : 3ull) << DNET_LH_COMPLETE_BIT;
	bh_flush(h, ent, DNET_LHB_ENTRY);
	bh_wait(h, ent + 8, 3ull << DNET_LH_COMPLETE_BIT, DNET_COND_EQ, want, TMO);
	x->lh_phase ^= 1ull << x->lh_next;
	uint64_t line[8];
	bh_rcached(h, ent, line, sizeof line);
	struct dnet_lh_entry le;
	dnet_lh_decode(line, &le);
	uint32_t inl = data < DNET_LH_DATA_BYTES ? data : DNET_LH_DATA_BYTES;
	bh_copy(h, inl, 64);
	/* Decision (evaluation.md 9 item 7): the entry holds 48 B of data, so
	 * the rest is read when the data part is larger than 48 B (§7.2.1,
	 * Fig. 7.7), not at 48 B. */
	if (data > DNET_LH_DATA_BYTES)
		read_to_host(h, le.pointer, data - DNET_LH_DATA_BYTES, 64);
	x->lh_next = (x->lh_next + 1) % DNET_LHB_ENTRIES;
	if (++x->lh_freed % 32 == 0)
		bh_w64(h, UR(DNET_UR_LHB_ADDR), (uint64_t)x->lh_next * DNET_LHB_ENTRY);
}

static void e9_prog(struct bench_host *h, void *p)
{
	struct e9_host *x = p;
	struct e9 *e = x->e;
	x->st.peer = bh_node(h) == 1 ? 2 : 1;
	status_ring_setup(h, &x->st);
	ipush_setup(h, &x->st);
	/* The LH Buffer: start at the controller's Next Write; note each
	 * entry's flags (they toggle per use, §7.2.1). */
	x->lh_next = (unsigned)(bh_r64(h, UR(DNET_UR_LHB_ADDR)) & 0xfffu) / DNET_LHB_ENTRY;
	bh_w64(h, UR(DNET_UR_LHB_ADDR), (uint64_t)x->lh_next * DNET_LHB_ENTRY);
	uint64_t lhb[DNET_LHB_SIZE / 8];
	bh_rblock(h, DNET_LHB_WID(WID), lhb, sizeof lhb);
	for (unsigned k = 0; k < DNET_LHB_ENTRIES; k++)
		if (lhb[k * 8 + 1] >> DNET_LH_VALID_BIT & 1)
			x->lh_phase |= 1ull << k;
	uint8_t src[128];
	memset(src, 0x3c, sizeof src);
	bh_sodimm_write(h, E9_SRC, src, sizeof src);
	bh_spend(h, 1000000 > bh_now(h) ? 1000000 - bh_now(h) : 0);
	unsigned total = e->warm + e->iters;
	for (unsigned m = 0; m < total; m++) {
		if (m == e->warm && x->i == 0)
			e->t0 = bh_now(h);
		if (x->i == 0) {
			e9_send(h, x, m);
			e9_receive(h, x);
		} else {
			e9_receive(h, x);
			e9_send(h, x, m);
		}
	}
	if (x->i == 0)
		e->t1 = bh_now(h);
}

static int exp_e9(const struct bench_opts *o, struct bench_out *out, char *err, size_t errlen)
{
	struct bench_fig *f = bench_fig_new(out, "fig7.9", "Latency change caused by LHS (RTT/2)",
				      "Data Size [Byte] (including the 8 B envelope)", "Latency [us]", false);
	struct bench_series *s[LHS_PATS];
	for (unsigned p = 0; p < LHS_PATS; p++)
		s[p] = bench_series_new(f, lhs_name[p]);
	for (unsigned p = 0; p < LHS_PATS; p++)
		for (uint32_t size = 8; size <= 120; size += o->quick ? 16 : 8) {
			struct e9 e = { .pat = (enum lhs_pat)p, .size = size, .warm = 2, .iters = 6, .rank = { 0, 1 } };
			struct e9_host x0 = { .e = &e, .i = 0 }, x1 = { .e = &e, .i = 1 };
			struct dnet_dev *dev = NULL;
			if (open_sim(&dev, err, errlen))
				return -1;
			unsigned nodes[2] = { 1, 2 };
			bench_prog progs[2] = { e9_prog, e9_prog };
			void *args[2] = { &x0, &x1 };
			char why[200] = "";
			int rc = bench_run(dev, 2, nodes, progs, args, why, sizeof why);
			dnet_close(dev);
			if (rc) {
				snprintf(err, errlen, "%s, %u B: %s", lhs_name[p], size, why);
				return -1;
			}
			bench_point(s[p], size, (double)(e.t1 - e.t0) / e.iters / 2 / 1000);
		}
	/* Differences the thesis discusses (its values are withheld). */
	double fit[2] = { 0, 0 }, over[2] = { 0, 0 }, v2[2] = { 0, 0 };
	for (unsigned i = 0; i < s[0]->n; i++) {
		bool fits = s[0]->x[i] - 8 <= DNET_LH_DATA_BYTES;
		double dlhs = s[IPUSH_LHSV1]->y[i] - s[IPUSH_ONLY]->y[i];
		if (fits) {
			fit[0] += dlhs;
			fit[1]++;
		} else {
			over[0] += dlhs;
			over[1]++;
		}
		v2[0] += s[IPUSH_LHSV2]->y[i] - s[VL_IPUSH_LHSV1]->y[i];
		v2[1]++;
	}
	bench_val(out, "E9", "prediction", "us", fit[1] ? fit[0] / fit[1] : NAN, NAN,
	    "IPUSH+LHSv1 - IPUSH Only, mean while the message fits one LH entry");
	bench_val(out, "E9", "prediction", "us", over[1] ? over[0] / over[1] : NAN, NAN,
	    "IPUSH+LHSv1 - IPUSH Only, mean for sizes that do not fit one entry");
	bench_val(out, "E9", "prediction", "us", v2[1] ? v2[0] / v2[1] : NAN, NAN,
	    "IPUSH+LHSv2 - VL+IPUSH+LHSv1, mean over 8-120 B");
	return 0;
}

int bench_experiment(const char *id, const struct bench_opts *o, struct bench_out *out, char *err, size_t errlen)
{
	trace_next = o->trace;
	if (!strcasecmp(id, "E1"))
		return exp_botf("E1", o, out, err, errlen);
	if (!strcasecmp(id, "E2"))
		return exp_botf("E2", o, out, err, errlen);
	if (!strcasecmp(id, "E3"))
		return exp_botf("E3", o, out, err, errlen);
	if (!strcasecmp(id, "E4"))
		return exp_e4(o, out, err, errlen);
	if (!strcasecmp(id, "E5"))
		return exp_e5(o, out, err, errlen);
	if (!strcasecmp(id, "E6"))
		return exp_push("E6", o, out, err, errlen);
	if (!strcasecmp(id, "E7"))
		return exp_push("E7", o, out, err, errlen);
	if (!strcasecmp(id, "E8"))
		return bench_e8(o, out, err, errlen);
	if (!strcasecmp(id, "E9"))
		return exp_e9(o, out, err, errlen);
	snprintf(err, errlen, "no experiment '%s' (E1-E9)", id);
	return -1;
}
