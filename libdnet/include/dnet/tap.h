/* SPDX-License-Identifier: MIT */
/* libdnet: watching every access a device handle makes -- for a journal of a
 * session, a dry run (dnet_open_dry), and the replay of a journal on the
 * emulator.
 *
 * A tap is called once per device-level operation that passed the checks of
 * the core (alignment, bounds, access.h rules), after it ran, with its
 * result: single reads and writes, block transfers, waits (one record, not
 * one per poll), delays, the ordering points (WC flush, cache flush,
 * prefetch), node changes (DNET_TAP_NODE) and busy queries.  The polls inside a wait and a
 * backend's own probing are not reported.
 *
 * A device opened with dnet_open_dry never reaches a backend: the backend
 * only checks its arguments (if it can) and every operation is reported to
 * the tap instead of being done.  Reads return 0, waits succeed at once (the
 * condition assumed met: *last = value), delays return at once, busy is
 * false. */
#ifndef DNET_TAP_H
#define DNET_TAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "dnet/device.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* libdnet exports what its headers declare */

enum dnet_tap_kind {
	DNET_TAP_READ,        /* off, width, val (the value read) */
	DNET_TAP_WRITE,       /* off, width, val */
	DNET_TAP_READ_BLOCK,  /* off, len, data (what was read) */
	DNET_TAP_WRITE_BLOCK, /* off, len, data */
	DNET_TAP_WAIT,        /* off, mask, cond, value, timeout_ns, val[0] = last */
	DNET_TAP_DELAY,       /* ns */
	DNET_TAP_WC_FLUSH,
	DNET_TAP_CACHE_FLUSH, /* off, len */
	DNET_TAP_PREFETCH,    /* off, len */
	DNET_TAP_NODE,        /* val[0] = the node of the records that follow: reported
	                       * before a record of another node than the last one's
	                       * (the first: another than the home node) */
	DNET_TAP_BUSY,        /* val[0] = 0 or 1 */
};

struct dnet_tap_rec {
	enum dnet_tap_kind kind;
	unsigned node;        /* the node of the handle it ran on */
	uint32_t off;
	unsigned width;       /* bytes, single accesses */
	bool confirmed;       /* a read of Controller Reset made on purpose */
	uint64_t val[2];      /* {low 64, high 64} for 128 bits */
	const void *data;     /* blocks */
	size_t len;
	uint64_t mask, value, timeout_ns, ns;
	enum dnet_cond cond;
	int rc;               /* 0 or the negative DNET_E* code */
	const char *msg;      /* the error message when rc < 0 */
};

typedef void (*dnet_tap_fn)(void *ctx, const struct dnet_tap_rec *rec);

/* Install (fn non-NULL) or remove the tap of a device. */
void dnet_set_tap(struct dnet_dev *dev, dnet_tap_fn fn, void *ctx);

/* Open without touching the device: backends that can check their
 * arguments without opening (devmem, pci: dry_open) do so; the others are
 * only named.  Capabilities are what the backend would give (devmem, pci) or
 * DNET_CAP_PRIVILEGED. */
int dnet_open_dry(const char *spec, struct dnet_dev **dev, struct dnet_err *err);

/* Short names: "read", "write", "read_block", ..., and the reverse. */
const char *dnet_tap_kind_name(enum dnet_tap_kind k);
int dnet_tap_kind_parse(const char *s, enum dnet_tap_kind *k);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
