/* dsh bench: the building blocks of the host programs (bench_prog.h). */
#include <stdio.h>
#include <string.h>
#include "dnet/codes.h"
#include "dnet/device.h"
#include "dnet/param.h"
#include "dnet/map.h"
#include "dnet/regs.h"
#include "dnet/request.h"
#include "bench_prog.h"

const char *bp_trace_next;
const struct bench_opts *bp_opts;

bool bench_stopped(const struct bench_opts *o, char *err, size_t errlen)
{
	if (!o || !o->stop || !o->stop(o->stop_ctx))
		return false;
	snprintf(err, errlen, "interrupted");
	return true;
}

int bp_open_sim(struct dnet_dev **dev, char *err, size_t errlen)
{
	if (bench_stopped(bp_opts, err, errlen)) /* every measurement opens one: Ctrl-C stops the bench */
		return -1;
	char spec[512] = "sim:nodes=2,timelines";
	if (bp_trace_next) {
		snprintf(spec, sizeof spec, "sim:nodes=2,timelines,trace=%s", bp_trace_next);
		bp_trace_next = NULL;
	}
	struct dnet_err e;
	if (dnet_open(spec, dev, &e)) {
		snprintf(err, errlen, "%s", e.msg);
		return -1;
	}
	if (bp_opts && bp_opts->stop)
		dnet_set_stop(*dev, bp_opts->stop, bp_opts->stop_ctx);
	for (unsigned i = 0; bp_opts && i < bp_opts->ntiming; i++) {
		char name[96];
		const char *eq = strchr(bp_opts->timing[i], '=');
		snprintf(name, sizeof name, "%.*s", (int)(eq - bp_opts->timing[i]), bp_opts->timing[i]);
		if (dnet_param_set(*dev, name, eq + 1, &e)) {
			snprintf(err, errlen, "%s: %s", bp_opts->timing[i], e.msg);
			dnet_close(*dev);
			*dev = NULL;
			return -1;
		}
	}
	return 0;
}

/* ---- per-host state ---- */

/* Wait until the family's Primitive Counter has counted `target`
 * completions since the start (10-bit fields wrap: each change is read). */
void bp_ctr_wait(struct bench_host *h, struct ctr *c, unsigned fam, uint64_t target)
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

/* One read of the Primitive Counter, whatever it shows: the window check
 * of E1's program ("wait until the window is free", §6.2.1) when the host
 * has not read the counter since its last BOTFs (D-BENCH-PP-WINFREE). */
void bp_ctr_read(struct bench_host *h, struct ctr *c, unsigned fam)
{
	unsigned sh = DNET_PC_SHIFT(fam);
	unsigned now = (unsigned)((bh_r64(h, UR(DNET_UR_PRIM_COUNTER)) >> sh) & ((1u << DNET_PC_BITS) - 1));
	c->total += (now - c->last) & ((1u << DNET_PC_BITS) - 1);
	c->last = now;
}

/* Completion known without reading (the reply arrived). */
void bp_ctr_assume(struct ctr *c, uint64_t total)
{
	c->total = total;
	c->last = (unsigned)(total & ((1u << DNET_PC_BITS) - 1));
}

void bp_status_ring_setup(struct bench_host *h, struct hs *st)
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
void bp_status_wait(struct bench_host *h, struct hs *st, unsigned k)
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

/* The size of each of the last k statuses, one uncachable read of its
 * Lower word each (the word with Size, D-STATUS-ORDER): how a ping-pong
 * knows it has "received a message of the same size" (§6.2.3, §6.3.2),
 * decision D-BENCH-PP-SIZE.  Returns the bytes they name. */
uint32_t bp_status_sizes(struct bench_host *h, const struct hs *st, unsigned k)
{
	uint32_t bytes = 0;
	for (unsigned i = k; i > 0; i--) {
		uint32_t at = DNET_LLCM_WID(WID) + (st->st_tail + RING_BYTES - 16u * i) % RING_BYTES;
		struct dnet_status s;
		dnet_status_decode(bh_r64(h, at), 0, &s);
		bytes += s.size;
	}
	return bytes;
}

/* ---- BOTF (§4.6.2, §6.2) ---- */

/* One message of `size` data bytes as ceil(size/496) BOTFs: for each, wait
 * until its window is free, write the packet image, issue. */
void bp_botf_message(struct bench_host *h, struct hs *st, const struct botf_cfg *c, uint32_t size,
			 const uint64_t *payload_head)
{
	uint32_t sent = 0;
	do {
		uint32_t d = size - sent < BOTF_DATA ? size - sent : BOTF_DATA;
		unsigned w = st->next_win++ % c->k;
		if (st->win_used[w] > st->botf.total)
			bp_ctr_wait(h, &st->botf, DNET_FAM_BOTF, st->win_used[w]);
		struct dnet_pkt_hdr ph = {
			.size = 16 + d, .type = c->type, .dlid = dnet_clid_to_lid(bh_clid_reading(h), (uint16_t)st->peer),
			.rflag = c->to_pw, .eflag = c->eflag, .lflag = c->lflag,
			.src_or_init_dst = c->to_pw ? sent % 2048u : sent, .dstoff = c->to_pw ? sent % 2048u : sent,
		};
		uint64_t line[2] = { dnet_hdr_dw1(&ph), dnet_hdr_dw2(&ph) };
		memcpy(st->img, line, 16);
		memset(st->img + 16, 0x5a, d);
		if (payload_head && sent == 0)
			memcpy(st->img + 16, payload_head, 8);
		if (c->to_pw && sent + d == size && d >= 8) {
			/* Into the Prefetch Window the message's last word is its
			 * number (the receiver sees the arrival by the statuses,
			 * D-BENCH-PW-ARRIVAL; the number shows which message the
			 * window holds). */
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

unsigned bp_botf_packets(uint32_t size)
{
	return (size + BOTF_DATA - 1) / BOTF_DATA;
}

/* ---- RVS / IPUSH / VL requests ---- */

void bp_issue(struct bench_host *h, unsigned otype, unsigned peer, unsigned eflag, uint32_t size,
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
 * per 512 B window clflush its lines, then its VL (the Prefetch Unit fills
 * one window while the host flushes the next, D-BENCH-PW-PIPE); poll the
 * flags, PREFETCHNTA, copy. */
void bp_read_to_host(struct bench_host *h, uint32_t src, uint32_t size, uint64_t footprint)
{
	for (uint32_t off = 0; off < size; off += 2048) {
		uint32_t chunk = size - off < 2048 ? size - off : 2048;
		uint32_t pw = DNET_PW_WID(WID);
		uint64_t flags = 0;
		for (uint32_t w = 0; w * 512 < chunk; w++) {
			uint32_t part = chunk - w * 512 < 512 ? chunk - w * 512 : 512;
			bh_flush(h, pw + w * 512, part);
			bp_issue(h, DNET_OT_VL, 0, 0, part, src + off + w * 512, w * 512);
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

/* The receive status just consumed (the one before Tail). */
void bp_last_status(struct bench_host *h, const struct hs *st, struct dnet_status *s)
{
	uint32_t at = DNET_LLCM_WID(WID) + (st->st_tail + RING_BYTES - 16) % RING_BYTES;
	uint64_t lo = bh_r64(h, at), hi = bh_r64(h, at + 8);
	dnet_status_decode(lo, hi, s);
}

void bp_ipush_setup(struct bench_host *h, struct hs *st)
{
	bh_w64(h, UR(DNET_UR_IPUSH_AREA), IPUSH_UNITS);
	uint16_t peer_lid = dnet_clid_to_lid(bh_clid_reading(h), (uint16_t)st->peer);
	bh_w64(h, DNET_SREG_BASE + DNET_SR_AMT, dnet_amt_word(AMT_IDX, WID, peer_lid));
	bh_w64(h, DNET_LLCM_WID(WID) + 8 * AMT_IDX, (uint64_t)IPUSH_RING << 32 | IPUSH_RING);
}

