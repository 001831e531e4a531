/* A libpci access handle whose fatal errors come back as values, for the
 * pci backend and the board probe.  libpci reports a fatal error through a
 * callback that must not return: this one keeps the message in
 * dnet_pci_errmsg and longjmps to dnet_pci_jmp, which the caller sets with
 * setjmp right after dnet_pci_alloc (one handle at a time).  Warnings and
 * debug output are dropped. */
#ifndef DNET_PCI_LIBPCI_HANDLE_H
#define DNET_PCI_LIBPCI_HANDLE_H

#include <setjmp.h>

#include <pci/pci.h>

#include "dnet/error.h"

extern jmp_buf dnet_pci_jmp;
extern char dnet_pci_errmsg[DNET_ERR_MSG_MAX];

/* pci_alloc with those callbacks; NULL when libpci cannot allocate. */
struct pci_access *dnet_pci_alloc(void);

#endif
