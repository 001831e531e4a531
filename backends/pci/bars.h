/* The BARs of a PCI device as its configuration space lays them out, shared
 * by the pci backend's checks and the probe (probe.c): walking from BAR0, a 64-bit
 * memory BAR takes the next register as its upper half, so whether BARn is
 * an upper half depends on every BAR before it, not on BARn-1 alone. */
#ifndef DNET_PCI_BARS_H
#define DNET_PCI_BARS_H

#include <stdbool.h>
#include <stdint.h>

#include <pci/pci.h>

struct dnet_pci_bar {
	uint32_t raw;   /* the BAR register */
	bool io;        /* an I/O BAR */
	bool is64;      /* a 64-bit memory BAR (the next register is its upper half) */
	bool upper;     /* this register is the upper half of BAR (index - 1) */
	uint64_t addr;  /* memory BARs: the address, both halves */
};

/* The BAR count of the device's header type: 6 (normal), 2 (bridge), else
 * 0; *htype is the header type. */
unsigned dpci_nbars(struct pci_dev *d, unsigned *htype);

/* Fill bars[0..n) (n from dpci_nbars, at most 6), reading the
 * configuration space. */
void dpci_bars(struct pci_dev *d, unsigned n, struct dnet_pci_bar bars[6]);

#endif
