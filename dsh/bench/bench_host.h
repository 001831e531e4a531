/* dsh bench: concurrent host programs on the emulator's per-node host
 * clocks (sim timelines, D-SIM-TIMELINES).
 *
 * Each host program runs in its own thread and drives one node through the
 * bh_* calls.  Only one thread touches the device at a time, and the next
 * to go is always the host with the least virtual time (ties: the lower
 * index), so a run is deterministic and every host sees the others' effects
 * in virtual-time order.  A host waiting for a condition looks again at the
 * device's next event (or its deadline).
 */
#ifndef DSH_BENCH_HOST_H
#define DSH_BENCH_HOST_H

#include <stddef.h>
#include <stdint.h>
#include "dnet/device.h"

struct bench_host;
typedef void (*bench_prog)(struct bench_host *h, void *arg);

/* Run n programs, program i on node nodes[i] (1-based), until all return.
 * Returns 0, or -1 with the first failure in err (a host's failed call,
 * naming the host). */
int bench_run(struct dnet_dev *dev, unsigned n, const unsigned *nodes, const bench_prog *progs,
	      void *const *args, char *err, size_t errlen);

/* The host's own clock (virtual ns). */
uint64_t bh_now(const struct bench_host *h);
unsigned bh_node(const struct bench_host *h);
/* The device's LID/CLID reading (D-CLID), for the LIDs a program builds. */
enum dnet_clid_reading bh_clid_reading(const struct bench_host *h);

/* Device accesses; a failure ends the host program (bench_run reports it). */
void bh_w64(struct bench_host *h, uint32_t off, uint64_t v);
uint64_t bh_r64(struct bench_host *h, uint32_t off);
void bh_wblock(struct bench_host *h, uint32_t off, const void *buf, size_t len);
void bh_rblock(struct bench_host *h, uint32_t off, void *buf, size_t len);
/* Read lines of a write-back region already flushed and prefetched by the
 * caller (§4.2.1's copy step): no clflush, unlike dnet_read_block. */
void bh_rcached(struct bench_host *h, uint32_t off, void *buf, size_t len);
void bh_flush(struct bench_host *h, uint32_t off, size_t len);
/* Wait until (reg & mask) cond value; returns the value read. */
uint64_t bh_wait(struct bench_host *h, uint32_t off, uint64_t mask, enum dnet_cond cond,
		 uint64_t value, uint64_t timeout_ns);
void bh_prefetch(struct bench_host *h, uint32_t off, size_t len);
/* Host time spent off the device: ns of computing, or a copy of `bytes`
 * into a host buffer of `footprint` bytes: each destination line in the
 * L2 cache at L2 speed, each other one a read for ownership and a
 * write-back on the memory bus (bench_l2_hit_fraction says how many). */
void bh_spend(struct bench_host *h, uint64_t ns);
void bh_copy(struct bench_host *h, uint64_t bytes, uint64_t footprint);
/* The share of a copy's destination lines found in the L2 cache, for a
 * destination of `footprint` bytes written whole once per message
 * (bench_cache.c, decision D-BENCH-L2), with pw_bytes of Prefetch Window
 * lines in the cache beside it. */
double bench_l2_hit_fraction(uint64_t footprint, uint64_t l2_bytes, uint64_t ways, uint64_t page,
			     uint64_t pw_bytes);
/* Set-up without cost: SO-DIMM backdoor. */
void bh_sodimm_write(struct bench_host *h, uint64_t addr, const void *buf, size_t len);
/* Give up with a message (formatted). */
void bh_fail(struct bench_host *h, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));

#endif
