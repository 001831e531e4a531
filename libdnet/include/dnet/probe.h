/* SPDX-License-Identifier: MIT */
/* libdnet: the board probe -- what libpci can tell about where a
 * DIMMnet-2 might be.  Host bridges and memory controllers with their names
 * from the PCI ID database; for chipsets whose DRAM decode registers are
 * public, the physical range each DIMM row (slot side) decodes; devices
 * that could expose the DIMMnet-2 map through a memory BAR, with the backend
 * spec to try. */
#ifndef DNET_PCI_PROBE_H
#define DNET_PCI_PROBE_H

#include <stdbool.h>
#include <stdint.h>
#include "dnet/error.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* libdnet exports what its headers declare */

enum dnet_probe_role {
	DNET_PROBE_HOST,      /* host bridge (class 0600) */
	DNET_PROBE_MEMCTL,    /* memory controller (class 05xx) */
	DNET_PROBE_CANDIDATE, /* a memory BAR large enough for the map */
};

#define DNET_PROBE_ROWS 8

struct dnet_probe_dev {
	enum dnet_probe_role role;
	char slot[16];                 /* "0000:00:00.0" */
	unsigned vendor, device, cls;  /* cls: base class and subclass, 0x0600 */
	char vname[96], dname[128];    /* from pci.ids, or "" */
	/* Chipsets with public DRAM decode: one range per row. */
	unsigned nrows;
	uint64_t row_start[DNET_PROBE_ROWS], row_end[DNET_PROBE_ROWS]; /* end exclusive */
	const char *decode_src;        /* the datasheet the decode follows */
	/* Candidates: the first memory BAR of at least 0x51000 bytes. */
	unsigned bar;
	uint64_t bar_addr, bar_size;   /* size 0: unknown (a dump) */
	bool decoding;                 /* Command: memory decoding on */
	char spec[96];                 /* "pci:0000:03:00.0,bar=0" */
};

/* Scan with libpci: from sysfs (sysfs_path, NULL for /sys/bus/pci) or from
 * an "lspci -x" dump (dump non-NULL).  ids (may be NULL) is a
 * comma-separated list of VVVV:DDDD that count as candidates whatever their
 * class; otherwise memory controllers of class 0580 ("other") and
 * processing accelerators (12xx) with a large enough memory BAR are.
 * *out is malloc'ed (free it); *n entries. */
int dnet_pci_probe(const char *sysfs_path, const char *dump, const char *ids,
		   struct dnet_probe_dev **out, unsigned *n, struct dnet_err *err);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
