/* dsh bench: the experiments of docs/timing-model.md, each host program
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
#include "bench_prog.h"

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
		bp_botf_message(h, st, &r->botf, r->size, NULL);
		st->seq++;
		return;
	}
	bp_issue(h, r->prim, st->peer, r->mode == PINGPONG, r->size, 0, 1u << 20);
}

static void wait_sent(struct bench_host *h, struct hs *st, struct run *r, uint64_t msgs)
{
	if (r->prim == DNET_OT_BOTF)
		bp_ctr_wait(h, &st->botf, DNET_FAM_BOTF, st->botf_issued);
	else if (r->prim == DNET_OT_RVS)
		bp_ctr_wait(h, &st->rvs, DNET_FAM_RVS, msgs);
	else
		bp_ctr_wait(h, &st->ipush, DNET_FAM_IPUSH, msgs);
}

static void receive_one(struct bench_host *h, struct hs *st, struct run *r)
{
	if (r->prim == DNET_OT_BOTF) {
		/* Into the SO-DIMM or the Prefetch Window alike: the statuses
		 * (eflag) tell the arrival and the size (D-BENCH-PW-ARRIVAL). */
		bp_status_wait(h, st, bp_botf_packets(r->size));
		bp_status_sizes(h, st, bp_botf_packets(r->size));
		return;
	}
	bp_status_wait(h, st, 1);
	/* IPUSH with a copy reads the whole status below (size and address). */
	if (r->prim != DNET_OT_IPUSH || !r->copy)
		bp_status_sizes(h, st, 1);
	if (!r->copy)
		return;
	uint32_t at = 1u << 20;
	if (r->prim == DNET_OT_IPUSH) {
		/* The status names where the controller put the message. */
		struct dnet_status s;
		bp_last_status(h, st, &s);
		at = s.addr;
	}
	bp_read_to_host(h, at, r->size, r->copy == 1 ? r->size : 64);
	if (r->prim == DNET_OT_IPUSH) {
		/* Give the ring back (§7.1.3: the host moves Head after reading):
		 * Head = the end of the message the status named, in 8-byte units
		 * (D-SIM-IPUSH-AREA), the ring's start at its end.  One store, no
		 * read of the AMT entry (decision D-BENCH-E7-HEAD); one message at
		 * a time, so Tail is there too and the word is written whole. */
		uint32_t end = at + ((r->size + 7u) & ~7u);
		if (end == IPUSH_RING + IPUSH_UNITS * 4096u)
			end = IPUSH_RING;
		bh_w64(h, DNET_LLCM_WID(WID) + 8 * AMT_IDX, (uint64_t)end << 32 | end);
	}
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
		bp_status_ring_setup(h, st);
		if (r->prim == DNET_OT_IPUSH)
			bp_ipush_setup(h, st);
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
			/* Before its next message the host checks its windows are
			 * free as E1's program does, by reading the Primitive
			 * Counter once (D-BENCH-PP-WINFREE): the reply tells a person
			 * that our BOTFs are done, not the program. */
			if (r->prim == DNET_OT_BOTF && (!init || m + 1 < total))
				bp_ctr_read(h, &st->botf, DNET_FAM_BOTF);
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
	if (bp_open_sim(&dev, err, errlen))
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

/* MB/s = 10^6 B/s. */
#define MBPS(bytes, ns) ((double)(bytes) * 1000.0 / (ns))

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
	static const double pp_max[] = { 209.71, 296.52, 298.95 }; /* E3, Fig. 6.7 (calibration) */
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
		/* Released as calibration (Figs. 6.7, 6.8, §6.2.3). */
		double at = 0, lat_at = 0;
		bench_val(out, id, "calibration", "MB/s", bench_series_max(thr[3], &at), 323.22, "max throughput <= 1984 B, 4 WW to PW");
		bench_val_plot(out, ft->id, at);
		bench_val(out, id, "calibration", "us", bench_series_min(lat[3], &lat_at), 1.76, "min RTT/2, 4 WW to PW");
		bench_val_plot(out, fl->id, lat_at);
		bench_val(out, id, "calibration", "us", bench_series_min(lat[3], NULL) - 0.385, 1.38,
		    "estimated back-to-back RTT/2 (min RTT/2 - 0.385 us), PW");
	}
	for (unsigned i = 0; i < 3; i++) {
		double at = 0, m = bench_series_max(thr[i], &at);
		double lat_at = 0, lmin = bench_series_min(lat[i], &lat_at);
		if (e1) {
			bench_val(out, id, "calibration", "MB/s", m, uni_max[i], "max throughput <= 1984 B, %u WW (at %.0f B)", k124[i], at);
			bench_val_plot(out, ft->id, at);
		} else if (e3) {
			bench_val(out, id, "calibration", "MB/s", m, pp_max[i], "max throughput <= 1984 B, %u WW %s (at %.0f B)", k124[i], dir, at);
			bench_val_plot(out, ft->id, at);
		} else
			bench_val(out, id, "prediction", "MB/s", m, NAN, "max throughput <= 1984 B, %u WW %s (at %.0f B)", k124[i], dir, at);
		/* E3: the thesis gives one minimum RTT/2 into the SO-DIMM (Fig. 6.8),
		 * the minimum over its three series. */
		if (i == 2 || e3)
			bench_val(out, id, e2 ? "prediction" : "calibration", "us", lmin, e1 ? 0.632 : e3 ? 1.82 : NAN,
			    "min %s, %u WW (at %.0f B)", e3 ? "RTT/2" : "latency", k124[i], lat_at);
		if (e3)
			bench_val_plot(out, fl->id, lat_at);
		if (e1 && i == 2) {
			bench_val_plot(out, fl->id, 8); /* 16 B header + 8 B data (§6.2.1) */
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
		double m = bench_series_min(lat[2], NULL);
		bench_val(out, id, "calibration", "us", m - 0.385, 1.44, "estimated back-to-back RTT/2 (min RTT/2 - 0.385 us), SO-DIMM");
	}
	return 0;
}

static int exp_e4(const char *id, const struct bench_opts *o, struct bench_out *out, char *err, size_t errlen)
{
	(void)id;
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
			bench_val(out, "E4", "prediction", "MB/s", bench_series_max(thr[i], NULL), NAN, "max throughput 2-64 KB, %s, %u WW",
			    modes[mi] == BI ? "bidirectional" : "unidirectional", k24[i]);
		lat[0]->n = lat[1]->n = 0;
	}
	struct bench_series *thr[2] = { NULL, NULL };
	thr[1] = bench_series_new(fp, "4 WW");
	thr[0] = bench_series_new(fp, "2 WW");
	if (botf_sweep(o, out, PINGPONG, true, err, errlen, thr, lat, k24, 2, false))
		return -1;
	for (unsigned i = 0; i < 2; i++)
		bench_val(out, "E4", "prediction", "MB/s", bench_series_max(thr[i], NULL), NAN, "max ping-pong throughput 2-64 KB, %u WW", k24[i]);
	return 0;
}

static int exp_e5(const char *id, const struct bench_opts *o, struct bench_out *out, char *err, size_t errlen)
{
	(void)id;
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
	bench_val(out, "E5", "calibration", "MB/s", bench_series_max(tu, NULL), 727.20, "max throughput, unidirectional");
	bench_val_plot(out, ft->id, 1u << 20);
	bench_val(out, "E5", "calibration", "B", bench_half_peak(tu), 564, "half-of-peak throughput size, unidirectional");
	bench_val(out, "E5", "calibration", "MB/s", bench_series_max(tb, NULL), 953.50, "max throughput, bidirectional");
	bench_val_plot(out, ft->id, 1u << 20);
	if (tb->n && tb->x[tb->n - 1] == 1u << 20)
		bench_val(out, "E5", "calibration", "MB/s", tb->y[tb->n - 1], 953.50,
			  "throughput at 1 MB, bidirectional (the saturation)");
	at = 0;
	double m = bench_series_min(lu, &at);
	bench_val(out, "E5", "calibration", "us", m, 0.81, "min latency, unidirectional (at %.0f B; thesis: at 64 B)", at);
	at = 0;
	m = bench_series_min(lb, &at);
	bench_val(out, "E5", "calibration", "us", m, 1.09, "min latency, bidirectional (at %.0f B; thesis: 8-32 B)", at);
	bench_val_plot(out, fl->id, 8);
	for (unsigned i = 0; i < lu->n; i++)
		if (lu->x[i] == 64) {
			bench_val(out, "E5", "calibration", "us", lu->y[i], 0.81, "latency at 64 B, unidirectional");
			bench_val_plot(out, fl->id, 64);
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
	static const double push_max[] = { 650.43, 226.36, 236.37 }; /* Fig. 6.12 (calibration) */
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
			/* PUSH is E6, released as calibration (Fig. 6.12, §7.1.6);
			 * E7's PUSH curves are the same data. */
			double at = 0, m = bench_series_max(s, &at);
			if (pi == 0) {
				bench_val(out, id, "calibration", "MB/s", m, push_max[v], "max throughput, %s", name);
				bench_val_plot(out, ft->id, at);
				if (v == 1 && s->n && s->x[s->n - 1] == 1u << 20) {
					/* "beyond 128 KByte it falls further, to about 163" */
					bench_val(out, id, "calibration", "MB/s", s->y[s->n - 1], 163,
						  "throughput at 1 MB, %s (the large-size curve)", name);
					bench_val_plot(out, ft->id, 1u << 20);
				}
			} else
				bench_val(out, id, "prediction", "MB/s", m, NAN, "max throughput, %s", name);
		}
	const char *pn[2] = { "PUSH", "IPUSH" };
	for (unsigned pi = 0; pi < (e7 ? 2u : 1u); pi++) {
		const char *kind = pi ? "prediction" : "calibration";
		bench_val(out, id, kind, "us", rtt24[pi], pi ? NAN : 1.75, "RTT/2, 24 B message (16 B header + 8 B data), %s", pn[pi]);
		bench_val(out, id, kind, "us", rttcopy[pi], pi ? NAN : 2.80, "min RTT/2 with copy to main memory, %s", pn[pi]);
	}
	if (e7)
		bench_val(out, id, "prediction", "us", rtt24[1] - rtt24[0], NAN,
		    "IPUSH - PUSH RTT/2 at 24 B (Tab. 7.4/7.5: 4 clocks = 0.04 us of receive logic)");
	return 0;
}

/* E8 (bench_e8.c) and E9 (bench_e9.c) in the table's shape. */
static int exp_e8(const char *id, const struct bench_opts *o, struct bench_out *out, char *err, size_t errlen)
{
	(void)id;
	return bench_e8(o, out, err, errlen);
}

static int exp_e9(const char *id, const struct bench_opts *o, struct bench_out *out, char *err, size_t errlen)
{
	(void)id;
	return bench_e9(o, out, err, errlen);
}

/* The experiments in order: `bench all` runs them so. */
static const struct { const char *id; int (*run)(const char *id, const struct bench_opts *o, struct bench_out *out,
					       char *err, size_t errlen); } experiments[] = {
	{ "E1", exp_botf }, { "E2", exp_botf }, { "E3", exp_botf }, { "E4", exp_e4 }, { "E5", exp_e5 },
	{ "E6", exp_push }, { "E7", exp_push }, { "E8", exp_e8 }, { "E9", exp_e9 },
};

const char *const bench_experiments[] = { "E1", "E2", "E3", "E4", "E5", "E6", "E7", "E8", "E9", NULL };

int bench_experiment(const char *id, const struct bench_opts *o, struct bench_out *out, char *err, size_t errlen)
{
	bp_trace_next = o->trace;
	bp_opts = o;
	for (size_t i = 0; i < sizeof experiments / sizeof experiments[0]; i++)
		if (!strcasecmp(id, experiments[i].id))
			return experiments[i].run(experiments[i].id, o, out, err, errlen);
	snprintf(err, errlen, "no experiment '%s' (E1-E9)", id);
	return -1;
}
