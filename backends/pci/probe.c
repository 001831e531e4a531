/* The board probe (probe.h), with libpci. */
#include <inttypes.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pci/pci.h>

#include "dnet/map.h"
#include "pci/bars.h"
#include "dnet/probe.h"

#include "pci/libpci_handle.h" /* libpci's fatal errors as values */

/* Chipsets whose DRAM decode registers are public.  Intel 82865G/PE/P and
 * 82875P MCH datasheets: DRB0-DRB7 (DRAM Row Boundary) at 60h-67h, 8 bits
 * each, the cumulative top of rows 0..k in 64 MB units; rows 2k and 2k+1
 * are the two sides of DIMM socket k (in dual-channel mode a row spans the
 * pair of sockets of both channels). */
static const struct {
	unsigned vendor, device;
	unsigned drb, rows;
	uint64_t unit;
	const char *src;
} decoders[] = {
	{ 0x8086, 0x2570, 0x60, 8, 64ull << 20, "Intel 82865G/PE/P MCH datasheet, DRB 60h-67h" },
	{ 0x8086, 0x2578, 0x60, 8, 64ull << 20, "Intel 82875P MCH datasheet, DRB 60h-67h" },
};

static bool id_listed(const char *ids, unsigned v, unsigned d)
{
	if (!ids)
		return false;
	char want[16];
	snprintf(want, sizeof want, "%04x:%04x", v, d);
	for (const char *p = ids; *p;) {
		size_t l = strcspn(p, ",");
		if (l == 9 && strncasecmp(p, want, 9) == 0)
			return true;
		p += l;
		if (*p == ',')
			p++;
	}
	return false;
}

int dnet_pci_probe(const char *sysfs_path, const char *dump, const char *ids,
		   struct dnet_probe_dev **out, unsigned *n, struct dnet_err *err)
{
	*out = NULL;
	*n = 0;
	struct pci_access *volatile pacc = dpci_alloc();
	struct dnet_probe_dev *volatile list = NULL;
	volatile unsigned cnt = 0, cap = 0;
	if (!pacc)
		return dnet_seterr(err, DNET_ENOMEM, "probe: libpci allocation failed");
	if (setjmp(dpci_jmp)) {
		pci_cleanup(pacc);
		free(list);
		return dnet_seterr(err, DNET_EIO, "probe: libpci: %s", dpci_errmsg);
	}
	if (dump) {
		pacc->method = PCI_ACCESS_DUMP;
		pci_set_param(pacc, "dump.name", (char *)dump);
	} else if (sysfs_path) {
		pacc->method = PCI_ACCESS_SYS_BUS_PCI;
		pci_set_param(pacc, "sysfs.path", (char *)sysfs_path);
	}
	/* Names from pci.ids only: libpci's udev hwdb lookup leaks a udev
	 * context (LeakSanitizer) and says nothing pci.ids does not. */
	pci_set_param(pacc, "hwdb.disable", "1");
	pci_init(pacc);
	pci_scan_bus(pacc);
	for (struct pci_dev *d = pacc->devices; d; d = d->next) {
		pci_fill_info(d, PCI_FILL_IDENT | PCI_FILL_CLASS | PCI_FILL_BASES | (dump ? 0 : PCI_FILL_SIZES));
		struct dnet_probe_dev e;
		memset(&e, 0, sizeof e);
		unsigned base = d->device_class >> 8;
		if (d->device_class == PCI_CLASS_BRIDGE_HOST)
			e.role = DNET_PROBE_HOST;
		else if (base == 0x05)
			e.role = DNET_PROBE_MEMCTL;
		else
			e.role = DNET_PROBE_CANDIDATE;
		/* A candidate: a memory BAR large enough (or of unknown size). */
		bool listed = id_listed(ids, d->vendor_id, d->device_id);
		bool maybe = listed || (!ids && (d->device_class == 0x0580 || base == 0x12));
		bool found_bar = false;
		unsigned htype;
		unsigned nbar = dpci_nbars(d, &htype);
		struct dnet_pci_bar bars[6];
		dpci_bars(d, nbar, bars);
		for (unsigned b = 0; maybe && htype == PCI_HEADER_TYPE_NORMAL && b < nbar && !found_bar; b++) {
			if (bars[b].io || bars[b].upper)
				continue;
			uint64_t size = dump ? 0 : d->size[b];
			if (bars[b].addr && (size == 0 || size >= DNET_MAP_SIZE)) {
				found_bar = true;
				e.bar = b;
				e.bar_addr = bars[b].addr;
				e.bar_size = size;
			}
		}
		if (e.role == DNET_PROBE_CANDIDATE && !found_bar)
			continue;
		if (found_bar && e.role != DNET_PROBE_HOST)
			e.role = DNET_PROBE_CANDIDATE;
		snprintf(e.slot, sizeof e.slot, "%04x:%02x:%02x.%d", d->domain, d->bus, d->dev, d->func);
		e.vendor = d->vendor_id;
		e.device = d->device_id;
		e.cls = d->device_class;
		e.decoding = (pci_read_word(d, PCI_COMMAND) & PCI_COMMAND_MEMORY) != 0;
		char nb[256];
		const char *vn = pci_lookup_name(pacc, nb, sizeof nb, PCI_LOOKUP_VENDOR | PCI_LOOKUP_NO_NUMBERS,
						 e.vendor);
		snprintf(e.vname, sizeof e.vname, "%s", vn ? vn : "");
		const char *dn = pci_lookup_name(pacc, nb, sizeof nb, PCI_LOOKUP_DEVICE | PCI_LOOKUP_NO_NUMBERS,
						 e.vendor, e.device);
		snprintf(e.dname, sizeof e.dname, "%s", dn ? dn : "");
		if (found_bar)
			snprintf(e.spec, sizeof e.spec, "pci:%s,bar=%u%s", e.slot, e.bar,
				 e.decoding ? "" : ",enable");
		for (size_t k = 0; k < sizeof decoders / sizeof decoders[0]; k++) {
			if (decoders[k].vendor != e.vendor || decoders[k].device != e.device)
				continue;
			uint64_t prev = 0;
			for (unsigned r = 0; r < decoders[k].rows && r < DNET_PROBE_ROWS; r++) {
				uint64_t top = (uint64_t)pci_read_byte(d, (int)(decoders[k].drb + r)) * decoders[k].unit;
				e.row_start[r] = prev;
				e.row_end[r] = top > prev ? top : prev;
				prev = e.row_end[r];
			}
			e.nrows = decoders[k].rows;
			e.decode_src = decoders[k].src;
		}
		if (cnt == cap) {
			unsigned nc = cap ? cap * 2 : 8;
			struct dnet_probe_dev *nl = realloc(list, nc * sizeof *nl);
			if (!nl) {
				pci_cleanup(pacc);
				free(list);
				return dnet_seterr(err, DNET_ENOMEM, "out of memory");
			}
			list = nl;
			cap = nc;
		}
		list[cnt] = e;
		cnt = cnt + 1;
	}
	pci_cleanup(pacc);
	*out = list;
	*n = cnt;
	return 0;
}
