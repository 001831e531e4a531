/* SPDX-License-Identifier: MIT */
/* libdnet: a reference messaging layer on IPUSH and LHS, as an MPI-like
 * library would build it on the hardware (thesis chapter 7).
 *
 * A job is a set of ranks, each one process (node, WID) of a device; this
 * program drives the local ones.  Every message carries an envelope
 * (Context, Rank, Tag: Fig. 7.6) and is received through the LH Buffer:
 *   BOTF   up to DNET_MSG_BOTF_MAX bytes: one BOTF packet image (TYPE
 *          IPUSH, lflag 1; §7.2.2) written into a Write Window;
 *   LHSv1  envelope and body staged in the sender's SO-DIMM (VS), then
 *          IPUSH with LHSv1;
 *   LHSv2  envelope from a Write Window, body staged in the SO-DIMM;
 *   RNDV   rendezvous for long messages: the body stays staged in the
 *          sender's SO-DIMM, a request-to-send (a BOTF through the LH
 *          Buffer) tells the receiver where; the receiver pulls it with RVL
 *          through a Prefetch Window and answers with a completion (BOTF);
 *          the send returns on the completion.
 * The receiver's bytes past the entry's 48 are read from its IPUSH ring
 * with VL through a Prefetch Window.  recv matches (source | ANY, tag |
 * ANY) against an unexpected queue; messages of one sender match in order.
 * The progress engine drains the LH Buffer in order, copying each message
 * out and freeing its LH entry and ring space (LH Head, AMT Head) at once,
 * and runs whenever a call waits, so local ranks cannot deadlock on the
 * hardware's back-pressure.  An eager message must fit its receive ring,
 * a rendezvous one the staging area (dnet_msg_max_len).
 */
#ifndef DNET_MSG_H
#define DNET_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "dnet/device.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* libdnet exports what its headers declare */

struct dnet_msg_job;
struct dnet_msg_req;

enum dnet_msg_via {
	DNET_MSG_VIA_AUTO,   /* BOTF up to DNET_MSG_BOTF_MAX bytes, LHSv2 up to eager_max, RNDV above */
	DNET_MSG_VIA_BOTF,   /* one BOTF packet image (at most DNET_MSG_BOTF_MAX bytes) */
	DNET_MSG_VIA_LHSV1,  /* IPUSH with LHSv1: envelope and body staged in the SO-DIMM */
	DNET_MSG_VIA_LHSV2,  /* IPUSH with LHSv2: envelope from a Write Window, body from the SO-DIMM */
	DNET_MSG_VIA_RNDV,   /* request-to-send, RVL pull by the receiver, completion */
};
/* User bytes one BOTF carries: 512 - 16 (header) - 8 (envelope). */
#define DNET_MSG_BOTF_MAX 488u

struct dnet_msg_params {
	uint32_t ring_units;  /* IPUSH Area Size, 4 KB units: each receive ring (default 64 = 256 KB) */
	uint32_t ring_base;   /* SO-DIMM offset of the first ring (default 16 MB); ring of
	                         sender s at ring_base + s * ring size (S-aligned) */
	uint32_t eager_max;   /* AUTO: longer messages go rendezvous (default 16 KB: an eager message
	                         takes ring space at the receiver -- 16 KB is 1/16 of the default
	                         ring -- while a rendezvous adds one RVL round trip per 512 B and
	                         two BOTFs, small next to the copy of a long body) */
	uint32_t stage_base;  /* SO-DIMM offset of the send staging area (default 8 MB) */
	uint32_t stage_size;  /* its size: the longest rendezvous message (default 8 MB) */
	unsigned amt_base;    /* first AMT index, an LLCM word (default 256: after the status ring) */
	unsigned context;     /* communicator, 12 bits (default 0) */
	uint64_t timeout_ns;  /* of every wait (default 10 s) */
	uint64_t poll_ns;     /* time let pass between polls (default 1 us) */
	uint32_t llcm_reserved;     /* an LLCM byte range the AMT entries keep out of: its offset */
	uint32_t llcm_reserved_len; /* and length (default 0: none; a shell that
	                               synchronises ranks in the LLCM keeps its area here) */
};
void dnet_msg_params_default(struct dnet_msg_params *p);

struct dnet_msg_rank {
	unsigned node;        /* CLID */
	unsigned wid;
};

/* map NULL: rank r is node r + 1, WID 0.  local NULL: every rank is local.
 * Sets up each local rank's node: AMT Address Table entries for every
 * sender, AMT entries, IPUSH Area Size, LH Buffer Head, the status ring. */
int dnet_msg_job_open(struct dnet_dev *dev, unsigned nranks, const struct dnet_msg_rank *map,
		      const unsigned *local, unsigned nlocal, const struct dnet_msg_params *p,
		      struct dnet_msg_job **job, struct dnet_err *err);
void dnet_msg_job_close(struct dnet_msg_job *job);

#define DNET_MSG_ANY_SOURCE (-1)
#define DNET_MSG_ANY_TAG (-1)

struct dnet_msg_status {
	unsigned source;
	uint32_t tag;
	size_t len;           /* bytes sent */
	bool truncated;       /* more than the receive buffer held */
	enum dnet_msg_via via;
};

/* Largest message the job can carry: eager, the receive ring less one
 * 8-byte unit plus the 48 bytes the LH entry holds; rendezvous, the
 * staging area. */
size_t dnet_msg_max_len(const struct dnet_msg_job *job, enum dnet_msg_via via);

/* Send from local rank `rank` to `dest`: returns once the hardware has
 * sent it (eager) or the receiver's completion came (rendezvous); the send
 * buffer may be reused and *req is complete. */
int dnet_msg_isend(struct dnet_msg_job *job, unsigned rank, unsigned dest, uint32_t tag, const void *buf,
		   size_t len, enum dnet_msg_via via, struct dnet_msg_req **req, struct dnet_err *err);
int dnet_msg_irecv(struct dnet_msg_job *job, unsigned rank, int source, int64_t tag, void *buf, size_t cap,
		   struct dnet_msg_req **req, struct dnet_err *err);
/* done: the request finished (it is freed then; st may be NULL). */
int dnet_msg_test(struct dnet_msg_job *job, struct dnet_msg_req *req, bool *done,
		  struct dnet_msg_status *st, struct dnet_err *err);
/* Progress until done or timeout (-DNET_ETIMEDOUT; the request stays). */
int dnet_msg_wait(struct dnet_msg_job *job, struct dnet_msg_req *req, struct dnet_msg_status *st,
		  struct dnet_err *err);
int dnet_msg_send(struct dnet_msg_job *job, unsigned rank, unsigned dest, uint32_t tag, const void *buf,
		  size_t len, enum dnet_msg_via via, struct dnet_err *err);
int dnet_msg_recv(struct dnet_msg_job *job, unsigned rank, int source, int64_t tag, void *buf, size_t cap,
		  struct dnet_msg_status *st, struct dnet_err *err);
/* Like MPI_Iprobe: found if a matching message has arrived (not received). */
int dnet_msg_probe(struct dnet_msg_job *job, unsigned rank, int source, int64_t tag, bool *found,
		   struct dnet_msg_status *st, struct dnet_err *err);

struct dnet_msg_counters {
	uint64_t sent, sent_rndv, received, unexpected, lh_entries_freed, ring_bytes_freed, ring_reads, pulls;
};
int dnet_msg_counters(struct dnet_msg_job *job, unsigned rank, struct dnet_msg_counters *c);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
