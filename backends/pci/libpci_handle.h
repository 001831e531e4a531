/* A libpci access handle whose fatal errors come back as values, for the
 * pci backend and the board probe.  libpci reports a fatal error through a
 * callback that must not return: this one keeps the message in
 * dpci_errmsg and longjmps to dpci_jmp, which the caller sets with
 * setjmp right after dpci_alloc (one handle at a time).  Warnings and
 * debug output are dropped. */
#ifndef DNET_PCI_LIBPCI_HANDLE_H
#define DNET_PCI_LIBPCI_HANDLE_H

#include <setjmp.h>

#include <pci/pci.h>

#include "dnet/error.h"

extern jmp_buf dpci_jmp;
extern char dpci_errmsg[DNET_ERR_MSG_MAX];

/* pci_alloc with those callbacks; NULL when libpci cannot allocate. */
struct pci_access *dpci_alloc(void);

#endif
