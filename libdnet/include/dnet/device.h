/* SPDX-License-Identifier: MIT */
/* libdnet: opening a DIMMnet-2 and accessing its host interface.
 *
 * A struct dnet_dev is one open backend ("devmem:0x...", "sim:nodes=4",
 * "remote:unix:/tmp/d.sock", ...).  A backend may reach several nodes (the
 * emulated cluster, or a dnetd serving one); each node has its handle
 * (dnet_node_dev), and every access goes to the node of the handle it is
 * made with.  Offsets are device offsets (map.h).
 *
 * Accessor semantics follow rdma-core's util/mmio.h: each call performs
 * exactly one access of the stated width, in program order with respect to
 * other UC accesses.  Stores to the write-combining Write Window may be
 * merged and reordered until dnet_wc_flush(); reads of the write-back
 * Prefetch Window and LH Buffer may hit stale cache lines unless the lines
 * are flushed with dnet_cache_flush() first.  dnet_read_block() on a WB
 * region does that flush itself.
 */
#ifndef DNET_DEVICE_H
#define DNET_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "dnet/error.h"
#include "dnet/regs.h"
#include "dnet/request.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* libdnet exports what its headers declare */

struct dnet_dev;

/* Capabilities (dnet_dev_caps). */
#define DNET_CAP_MULTINODE    0x01u /* several nodes behind one handle */
#define DNET_CAP_VIRTUAL_TIME 0x02u /* the device runs on virtual time (emulator) */
#define DNET_CAP_BACKDOOR     0x04u /* direct SO-DIMM access (emulator) */
#define DNET_CAP_PRIVILEGED   0x08u /* the System Register may be accessed */
#define DNET_CAP_REAL_HW      0x10u /* real hardware behind it */
#define DNET_CAP_REMOTE       0x20u /* through a socket */
#define DNET_CAP_LOCKSTEP     0x40u /* served in virtual-time order across clients (dnetd --lockstep):
                                     * a client that polls need not pause in real time */

/* The capability names, one spelling everywhere (the programs' info,
 * dnetd --ping, JSON): "multinode", "virtual_time", "backdoor", "privileged", "real_hw",
 * "remote", "lockstep".  dnet_cap_name of one bit, NULL for an unknown bit;
 * dnet_caps_format writes the names of caps separated by sep. */
const char *dnet_cap_name(unsigned bit);
const char *dnet_caps_format(unsigned caps, const char *sep, char *buf, size_t n);

/* Open by spec string "NAME[:ARGS]".  On failure *dev is NULL and err says
 * why (unknown backend, bad argument, permission, ...). */
int dnet_open(const char *spec, struct dnet_dev **dev, struct dnet_err *err);
void dnet_close(struct dnet_dev *dev);

/* The backends compiled in, for help texts: name, synopsis, one-line help. */
struct dnet_backend_desc {
	const char *name;
	const char *synopsis;
	const char *help;
};
const struct dnet_backend_desc *dnet_backends(unsigned *count);

const char *dnet_dev_backend(const struct dnet_dev *dev); /* "sim" */
/* The longest spec dnet_open takes, NUL included (a buffer for one). */
#define DNET_SPEC_MAX 256
/* The spec the device was opened with, secrets redacted (dnet_spec_redact). */
const char *dnet_dev_spec(const struct dnet_dev *dev);
/* spec as it may be printed, logged or written to a report: the value of
 * every token= option replaced by "***" (D-RUN-SECRETS).  The one redaction
 * every program uses wherever it shows a backend spec.  Writes at most n
 * bytes (NUL included) to buf and returns buf. */
const char *dnet_spec_redact(const char *spec, char *buf, size_t n);
/* spec without its token= option(s), to buf (n bytes), and the token to tok
 * (tn bytes; "" if none): so that a program can hand the token on through
 * DNET_TOKEN or a file rather than a command line.  true if there was one. */
bool dnet_spec_take_token(const char *spec, char *buf, size_t n, char *tok, size_t tn);
/* How many token= options spec gives: more than one is refused by every
 * backend (D-SPEC-ONCE), and a program that takes the token out of the spec
 * before handing it on refuses it itself. */
unsigned dnet_spec_tokens(const char *spec);
unsigned dnet_dev_caps(const struct dnet_dev *dev);
/* The identity of the cluster the device reaches: a random number drawn
 * when an emulator is opened (in this process, or by the dnetd serving it,
 * which sends it in its HELLO reply), the same for every client of one
 * dnetd; 0 when unknown (a board, a dnetd before protocol 1.2).  Ranks
 * meant to share one emulated cluster compare it (D-RUN-PREFLIGHT). */
uint64_t dnet_dev_cluster(const struct dnet_dev *dev);

/* Nodes are numbered 1..count (their CLID on the emulator).  dnet_node is
 * the node of the handle: for the one dnet_open gave, the home node (1, or
 * the node a backend option named, remote:...,node=N).  dnet_node_dev
 * gives the handle of node (D-NODE-HANDLE): the same open backend, its
 * accesses acting on that node; node 0 gives the handle dnet_open gave.
 * Node handles are owned by that handle and freed with it: dnet_close of
 * any handle closes the device and every handle of it.  The tap, the stop
 * hook, posting and the tag are the device's, whichever handle sets them.  Asking costs no
 * request.  NULL and -DNET_ERANGE in err for a node that does not exist. */
unsigned dnet_node_count(const struct dnet_dev *dev);
unsigned dnet_node(const struct dnet_dev *dev);
struct dnet_dev *dnet_node_dev(struct dnet_dev *dev, unsigned node, struct dnet_err *err);

/* Single accesses.  off must be aligned to the width (-DNET_EALIGN) and
 * inside the map (-DNET_ERANGE).  128-bit values are {low 64, high 64}. */
int dnet_read8(struct dnet_dev *dev, uint32_t off, uint8_t *v, struct dnet_err *err);
int dnet_read16(struct dnet_dev *dev, uint32_t off, uint16_t *v, struct dnet_err *err);
int dnet_read32(struct dnet_dev *dev, uint32_t off, uint32_t *v, struct dnet_err *err);
int dnet_read64(struct dnet_dev *dev, uint32_t off, uint64_t *v, struct dnet_err *err);
int dnet_read128(struct dnet_dev *dev, uint32_t off, uint64_t v[2], struct dnet_err *err);
int dnet_write8(struct dnet_dev *dev, uint32_t off, uint8_t v, struct dnet_err *err);
int dnet_write16(struct dnet_dev *dev, uint32_t off, uint16_t v, struct dnet_err *err);
int dnet_write32(struct dnet_dev *dev, uint32_t off, uint32_t v, struct dnet_err *err);
int dnet_write64(struct dnet_dev *dev, uint32_t off, uint64_t v, struct dnet_err *err);
int dnet_write128(struct dnet_dev *dev, uint32_t off, const uint64_t v[2], struct dnet_err *err);
/* Generic width (1, 2, 4, 8 or 16 bytes); buf is host-endian. */
int dnet_read(struct dnet_dev *dev, uint32_t off, void *buf, unsigned width, struct dnet_err *err);
int dnet_write(struct dnet_dev *dev, uint32_t off, const void *buf, unsigned width, struct dnet_err *err);

/* Block copies.  off and len must be multiples of 8.  A block read of a
 * write-back region flushes the lines first; a block write to the
 * write-combining Write Window ends with a WC flush. */
int dnet_read_block(struct dnet_dev *dev, uint32_t off, void *buf, size_t len, struct dnet_err *err);
int dnet_write_block(struct dnet_dev *dev, uint32_t off, const void *buf, size_t len, struct dnet_err *err);
/* The same transfers (checks, backend, tap record) without those two
 * ordering points: no cache flush before the read, no WC flush after the
 * write.  For a program that issues the flushes itself, as separate steps
 * (dnetd forwarding a client whose own library already flushed: doing it
 * twice would change what an emulator counts; dsh's replay, where each
 * flush is a record of its own). */
int dnet_read_block_noflush(struct dnet_dev *dev, uint32_t off, void *buf, size_t len, struct dnet_err *err);
int dnet_write_block_noflush(struct dnet_dev *dev, uint32_t off, const void *buf, size_t len,
			     struct dnet_err *err);

/* Several block reads in flight at once: reqs[0..n) are read as
 * dnet_read_block would read each (the same checks, the cache flush of a
 * write-back region, a tap record per read, in order), but a dnetd backend
 * sends their requests without waiting for each reply, so a batch of small
 * reads (the 32 KB LLCM, read again and again) costs about one round trip,
 * not one per read.  Elsewhere the reads are done one after another.
 * Every request's rc is set: 0, or its own negative DNET_E* code (a refused
 * read fails alone; the others are still done).  Returns 0 if all
 * succeeded, else the first failed request's code, err its message.  If the
 * connection to dnetd breaks, the reads not yet answered fail with it. */
struct dnet_read_req {
	uint32_t off;  /* as dnet_read_block: off and len multiples of 8 */
	void *buf;
	size_t len;
	int rc;        /* set by the call */
};
int dnet_read_blocks(struct dnet_dev *dev, struct dnet_read_req *reqs, size_t n, struct dnet_err *err);

/* Drain write-combining buffers (sfence) so that Write Window stores reach
 * the device before the request that uses them. */
int dnet_wc_flush(struct dnet_dev *dev, struct dnet_err *err);

/* Posted requests (a dnetd backend, protocol 1.1; elsewhere a no-op: every
 * request is done when its call returns).  Writes, block writes, the WC
 * flush, cache flush and prefetch then return once queued, and go to the
 * daemon in batches, answered only if they fail; the first failure is
 * handed over by dnet_sync() with the tag the request was made under.
 *   DNET_POST_CONTINUE  the requests after a failed one are still done
 *   DNET_POST_STOP      they are skipped (the batch stops at its first
 *                       failure, as a script that stops at its first error does)
 * Every other call waits for the requests before it, but reports none of
 * their failures: call dnet_sync() before anything whose meaning depends
 * on them.  Posting is a property of the requests made while it is on:
 * switching it off (or changing the mode) does not wait, and the failures
 * of the requests already posted stay kept until dnet_sync() hands them
 * over -- turn it on around the calls of one operation, then off.
 * A tap (tap.h) records a posted request when it is queued, with rc 0. */
enum dnet_post { DNET_POST_OFF, DNET_POST_CONTINUE, DNET_POST_STOP };
#define DNET_NO_TAG UINT64_MAX
int dnet_set_posted(struct dnet_dev *dev, enum dnet_post mode, struct dnet_err *err);
/* The tag of the requests made from now on (a script line, say). */
void dnet_set_tag(struct dnet_dev *dev, uint64_t tag);
/* Wait until everything posted is done.  0 if nothing failed; else the
 * oldest failure not yet handed over: its error, and *tag (DNET_NO_TAG if
 * unknown).  Call again for the next one (under DNET_POST_STOP there is
 * only one: everything posted after it was skipped). */
int dnet_sync(struct dnet_dev *dev, uint64_t *tag, struct dnet_err *err);
/* clflush / prefetchnta over [off, off+len) of a write-back region. */
int dnet_cache_flush(struct dnet_dev *dev, uint32_t off, size_t len, struct dnet_err *err);
int dnet_prefetch(struct dnet_dev *dev, uint32_t off, size_t len, struct dnet_err *err);

/* Conditions for waits: (read64(off) & mask) <cond> value. */
enum dnet_cond {
	DNET_COND_EQ, DNET_COND_NE, DNET_COND_LT, DNET_COND_GT, DNET_COND_LE, DNET_COND_GE,
};
const char *dnet_cond_name(enum dnet_cond c); /* "==", ... */
int dnet_cond_parse(const char *s, enum dnet_cond *c);
bool dnet_cond_eval(enum dnet_cond c, uint64_t a, uint64_t b);

/* Wait until the condition holds or timeout_ns passes (virtual time on the
 * emulator, real time elsewhere).  *last (may be NULL) gets the last value
 * read.  Returns -DNET_ETIMEDOUT on timeout.  The backend does the waiting
 * (dnetd waits in the server, not by polling over the socket). */
int dnet_wait(struct dnet_dev *dev, uint32_t off, uint64_t mask, enum dnet_cond cond,
	      uint64_t value, uint64_t timeout_ns, uint64_t *last, struct dnet_err *err);

/* The end of virtual time on the emulator (D-SIM-TIME-END): a delay past it
 * is refused, a wait's timeout ends there. */
#define DNET_VTIME_END (1ull << 62)

/* CLOCK_MONOTONIC in ns: real-time deadlines and elapsed time, the one
 * clock of the library, the daemon and the shell. */
uint64_t dnet_mono_ns(void);

/* Let ns of time pass: sleeps on hardware, advances virtual time on the
 * emulator (letting the device work). */
int dnet_delay(struct dnet_dev *dev, uint64_t ns, struct dnet_err *err);

/* The caller's stop hook (the one dnet_sync_ops.stop is for the barrier):
 * every blocking call of the core on real time -- dnet_delay's sleep,
 * dnet_wait's poll, dnet_issue's flow-control wait, the barrier's polls
 * through them, a remote call waiting for dnetd's reply -- asks stop(ctx)
 * at least every DNET_STOP_POLL_NS and, when it says true, ends with
 * -DNET_EINTR ("interrupted ...").  A signal that interrupts the sleep is
 * seen at once; the library itself never touches signals (the caller's
 * handler sets what stop reads).  NULL: never stopped (the default). */
#define DNET_STOP_POLL_NS 10000000ull /* 10 ms */
typedef bool (*dnet_stop_fn)(void *ctx);
void dnet_set_stop(struct dnet_dev *dev, dnet_stop_fn stop, void *ctx);
/* Current time in ns (virtual on the emulator, CLOCK_MONOTONIC elsewhere). */
int dnet_now(struct dnet_dev *dev, uint64_t *ns, struct dnet_err *err);
/* Whether the handle's node still has work in flight.  Backends that cannot
 * tell fall back to Controller Status request-pending of both WIDs. */
int dnet_busy(struct dnet_dev *dev, bool *busy, struct dnet_err *err);

/* Emulator backdoor: read/write the handle's node's SO-DIMM address space
 * (both modules, interleaved; WID w's area starts at w * capacity).
 * -DNET_ENOTSUP without DNET_CAP_BACKDOOR. */
int dnet_sodimm_access(struct dnet_dev *dev, uint64_t addr, void *buf, size_t len,
		       bool write, struct dnet_err *err);

/* Backend statistics by name, e.g. on the emulator "vtime_ns", "events",
 * "pgid_drops", "packets_sent", "packets_received" (per node, the handle's,
 * where it makes sense).  -DNET_ENOENT for an unknown name, -DNET_ENOTSUP if the
 * backend keeps none.  names (may be NULL) gets a static NULL-terminated
 * list of the names the backend knows. */
int dnet_stat(struct dnet_dev *dev, const char *name, uint64_t *v, struct dnet_err *err);
const char *const *dnet_stat_names(struct dnet_dev *dev);

/* ---- Register access by name (regs.h) ---- */

/* Read a register; -DNET_EPERM if it is write-only or has a read side effect
 * (Controller Reset: App. B, any access resets the controller); -DNET_EIO,
 * naming the bits, if bits outside the register's valid mask (reserved, read
 * 0 on a DIMMnet-2) are set: *v is then the raw value, for showing. */
int dnet_reg_read(struct dnet_dev *dev, unsigned wid, const struct dnet_reg *reg,
		  uint64_t *v, struct dnet_err *err);
/* The check dnet_reg_read makes of a value read otherwise (dnet_wait's
 * last value): -DNET_EIO, naming the bits, if reserved bits are set. */
int dnet_reg_check(const struct dnet_reg *reg, uint64_t raw, struct dnet_err *err);
/* The confirmed read of a register whose read acts (Controller Reset: the
 * read resets the controller): -DNET_EINVAL for any other register (use
 * dnet_reg_read), -DNET_EPERM for a System Register without
 * DNET_CAP_PRIVILEGED. */
int dnet_reg_read_effect(struct dnet_dev *dev, unsigned wid, const struct dnet_reg *reg,
			 uint64_t *v, struct dnet_err *err);
/* Write a register; -DNET_EPERM if read-only, -DNET_ERANGE if v has bits
 * outside the register's valid mask. */
int dnet_reg_write(struct dnet_dev *dev, unsigned wid, const struct dnet_reg *reg,
		   uint64_t v, struct dnet_err *err);

/* By name, "reg" or "reg.field" (e.g. "ctl_status.status_empty").
 * dnet_field_read gives the field's value (or the whole register).
 * dnet_field_write writes a field as a read-modify-write when the register
 * can be read without side effect; most writable registers are write-only,
 * and then the other fields come from *base (the caller's shadow of what it
 * last wrote) or are written as 0 when base is NULL.  A value that does not
 * fit the field is an error and nothing is written. */
int dnet_field_read(struct dnet_dev *dev, unsigned wid, const char *spec, uint64_t *v,
		    struct dnet_err *err);
int dnet_field_write(struct dnet_dev *dev, unsigned wid, const char *spec, uint64_t v,
		     const uint64_t *base, struct dnet_err *err);

/* ---- Issuing requests ---- */

enum dnet_cmdsel {
	DNET_CMD0 = 0, /* Command0: remote data received into SO-DIMM */
	DNET_CMD1 = 1, /* Command1: remote data received into Prefetch Window */
};

/* Issue a request from process wid: wait (up to timeout_ns) until the
 * Request FIFO is not almost full and no request is pending, then write
 * Upper (unless lower_only), Command Ex (if has_ex), then Lower (the kick).
 * The caller must have set Command Ex Flag to match cmd->has_ex. */
int dnet_issue(struct dnet_dev *dev, unsigned wid, enum dnet_cmdsel sel,
	       const struct dnet_cmd *cmd, uint64_t timeout_ns, struct dnet_err *err);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
