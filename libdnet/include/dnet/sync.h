/* SPDX-License-Identifier: MIT */
/* libdnet: ranks synchronising through the device itself -- a barrier and
 * signals between ranks -- one implementation for scripts and C programs
 * (docs/architecture.md).
 *
 * A run is a set of ranks, each one process (node, WID: struct
 * dnet_msg_rank).  Every rank has a flag area of DNET_SYNC_AREA_SIZE bytes
 * at the same LLCM offset (default DNET_SYNC_AREA); a flag is a remote LLCM
 * store (RVS with lflag 1, sent by BOTF) into a peer's area, and a rank
 * waits by polling its own.  Offsets in the area:
 *   DNET_SYNC_BARRIER + 8k   barrier round k (k < 9 for 480 ranks)
 *   DNET_SYNC_OPEN           rank 0's offer and answer to this rank
 *   DNET_SYNC_SIGNAL + 8s    signals from rank s; in rank 0's area first
 *                            rank s's request to join
 * A flag word is {generation [63:32], count [31:0]}.  The generation is a
 * fresh random number rank 0 draws for its run; each rank learns it by
 * joining the run at its first barrier, signal or waitfor, so that flags an
 * earlier run left never satisfy a wait (docs/decisions.md D-SYNC-RUN).
 *
 * The flag stores and the reads of the own area go through hooks (struct
 * dnet_sync_ops): by default libdnet's primitives, on the rank's node of
 * dev; a program that keeps its own view of the device (a shadow of the
 * Write Window, the Command Ex Flag it set) gives its own (docs/decisions.md
 * row on where the barrier lives).
 *
 * Every call either blocks until done (dnet_sync_barrier, _signal,
 * _waitfor: they poll, letting the device work between polls) or starts an
 * operation that dnet_sync_test advances one step at a time, so that one
 * thread can drive several local ranks.  One operation per rank at a time.
 */
#ifndef DNET_SYNC_H
#define DNET_SYNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "dnet/codes.h"
#include "dnet/device.h"
#include "dnet/msg.h"
#include "dnet/packet.h"
#include "dnet/request.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* libdnet exports what its headers declare */

#define DNET_SYNC_AREA       0x7000u  /* default offset: the last 4 KB of the LLCM */
#define DNET_SYNC_AREA_SIZE  0x1000u
#define DNET_SYNC_BARRIER    0x000u   /* + 8 x round */
#define DNET_SYNC_OPEN       0x0f8u   /* barrier word 31 (rounds end at 9): rank 0's offer/answer */
#define DNET_SYNC_SIGNAL     0x100u   /* + 8 x source rank */
#define DNET_SYNC_MAX_RANKS  480      /* (0x1000 - 0x100) / 8 signal words */
#define DNET_SYNC_WW         3u       /* the Write Window the default store builds its packets in */

/* The hooks; ctx is dnet_sync_params.ctx.  A NULL member takes the default. */
struct dnet_sync_ops {
	/* Store v into LLCM offset off of process (node, wid).  Default: the
	 * packet of dnet_sync_flag_pkt built in Write Window DNET_SYNC_WW of
	 * this rank's WID and issued (dnet_issue) with Command Ex Flag as the
	 * device left it -- 0 after reset; a program that sets the flag gives
	 * its own store. */
	int (*store)(void *ctx, unsigned node, unsigned wid, uint32_t off, uint64_t v, struct dnet_err *err);
	/* Read n words of this rank's own LLCM at off. */
	int (*load)(void *ctx, uint32_t off, uint64_t *v, unsigned n, struct dnet_err *err);
	/* CLOCK_MONOTONIC-like ns: the timeouts (default dnet_mono_ns). */
	uint64_t (*now_ns)(void *ctx);
	/* true: give up waiting now, the caller was interrupted (-DNET_EINTR;
	 * default: the device's stop hook, dnet_set_stop). */
	bool (*stop)(void *ctx);
};

struct dnet_sync_params {
	unsigned rank, size;                /* this rank, ranks in the run (1..DNET_SYNC_MAX_RANKS) */
	const struct dnet_msg_rank *peers;  /* [size]; NULL: rank r is node r + 1, WID 0 */
	uint32_t run_id;       /* keeps ranks of different jobs from answering each other's
	                          offers (a launcher's job id; any nonzero number) */
	uint32_t area;         /* LLCM offset of the flag area, 8-aligned */
	const struct dnet_sync_ops *ops;    /* NULL: every default */
	void *ctx;
};
/* Rank 0 of 1, run id 1, the area at DNET_SYNC_AREA, the default hooks. */
void dnet_sync_params_default(struct dnet_sync_params *p);

struct dnet_sync;

/* dev: the device of this rank (the default hooks switch it to the rank's
 * node when it has several, as the messaging layer does). */
int dnet_sync_open(struct dnet_dev *dev, const struct dnet_sync_params *p, struct dnet_sync **s,
		   struct dnet_err *err);
void dnet_sync_close(struct dnet_sync *s);
/* Move the flag area: refused (-DNET_EINVAL) once this rank knows the
 * run's generation (every rank must agree on it before joining). */
int dnet_sync_set_area(struct dnet_sync *s, uint32_t area, struct dnet_err *err);
/* The run's generation: 0 until this rank joined (rank 0: opened) the run. */
uint32_t dnet_sync_generation(const struct dnet_sync *s);

/* Dissemination barrier of every rank: in round k rank r flags rank
 * (r + 2^k) mod N and waits for rank (r - 2^k) mod N; the first joins the
 * run.  *number: the barrier's number (1, 2, ...), *rounds: log2(N) rounded
 * up.  -DNET_ETIMEDOUT / -DNET_EINTR with a message naming the rank waited
 * for.  Either out pointer may be NULL. */
int dnet_sync_barrier(struct dnet_sync *s, uint64_t timeout_ns, uint32_t *number, unsigned *rounds,
		      struct dnet_err *err);
/* Signal rank `to` (its count of signals from this rank goes up by one). */
int dnet_sync_signal(struct dnet_sync *s, unsigned to, uint64_t timeout_ns, uint32_t *count,
		     struct dnet_err *err);
/* Wait for the next signal of rank `from`: *count, the signals seen from it. */
int dnet_sync_waitfor(struct dnet_sync *s, unsigned from, uint64_t timeout_ns, uint32_t *count,
		      struct dnet_err *err);

/* The same, started only: dnet_sync_test does the work there is to do
 * without waiting and says whether the operation finished (*count as
 * above: the barrier's number or the signal count).  The caller lets the
 * device work between calls (dnet_delay on the emulator). */
int dnet_sync_ibarrier(struct dnet_sync *s, uint64_t timeout_ns, struct dnet_err *err);
int dnet_sync_isignal(struct dnet_sync *s, unsigned to, uint64_t timeout_ns, struct dnet_err *err);
int dnet_sync_iwaitfor(struct dnet_sync *s, unsigned from, uint64_t timeout_ns, struct dnet_err *err);
int dnet_sync_test(struct dnet_sync *s, bool *done, uint32_t *count, struct dnet_err *err);

/* One flag store as a packet: an RVS with lflag 1 (eflag ef) from process
 * swid writing v into LLCM off of process (node, dwid), sent by BOTF out of
 * Write Window ww.  hdr and img[0..lines] (img[lines] = v) are the packet,
 * bytes[0..len) its image for the Write Window, cmd the BOTF request.  The
 * destination LID is node's under clid_reading (the sending device's:
 * dnet_dev_clid_reading). */
struct dnet_sync_flag_pkt {
	struct dnet_pkt_hdr hdr;
	uint64_t img[DNET_HDR_MAX_LINES + 1];
	unsigned lines;
	uint8_t bytes[(DNET_HDR_MAX_LINES + 1) * 8];
	size_t len;
	struct dnet_cmd cmd;
};
int dnet_sync_flag_pkt(enum dnet_clid_reading clid_reading, unsigned swid, unsigned node, unsigned dwid,
		       unsigned ef, uint32_t off, uint64_t v, unsigned ww, struct dnet_sync_flag_pkt *p,
		       struct dnet_err *err);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
