/* The BAR walk (bars.h). */
#include "pci/bars.h"

unsigned dpci_nbars(struct pci_dev *d, unsigned *htype)
{
	unsigned h = pci_read_byte(d, PCI_HEADER_TYPE) & 0x7f;
	if (htype)
		*htype = h;
	return h == PCI_HEADER_TYPE_NORMAL ? 6 : h == PCI_HEADER_TYPE_BRIDGE ? 2 : 0;
}

void dpci_bars(struct pci_dev *d, unsigned n, struct dnet_pci_bar bars[6])
{
	for (unsigned b = 0; b < n && b < 6; b++) {
		struct dnet_pci_bar *x = &bars[b];
		x->raw = pci_read_long(d, PCI_BASE_ADDRESS_0 + 4 * (int)b);
		x->io = x->raw & PCI_BASE_ADDRESS_SPACE_IO;
		x->upper = false;
		x->is64 = !x->io && (x->raw & PCI_BASE_ADDRESS_MEM_TYPE_MASK) == PCI_BASE_ADDRESS_MEM_TYPE_64;
		x->addr = x->io ? x->raw & PCI_BASE_ADDRESS_IO_MASK : x->raw & PCI_BASE_ADDRESS_MEM_MASK;
		if (x->is64 && b + 1 < n) {
			/* the next register is this BAR's upper half, not a BAR */
			struct dnet_pci_bar *u = &bars[b + 1];
			u->raw = pci_read_long(d, PCI_BASE_ADDRESS_0 + 4 * (int)(b + 1));
			u->io = u->is64 = false;
			u->upper = true;
			u->addr = 0;
			x->addr |= (uint64_t)u->raw << 32;
			b++;
		}
	}
}
