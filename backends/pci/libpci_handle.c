/* The libpci access handle of the pci backend and the probe (libpci_handle.h). */
#include <stdarg.h>
#include <stdio.h>

#include "pci/libpci_handle.h"

jmp_buf dpci_jmp;
char dpci_errmsg[DNET_ERR_MSG_MAX];

static void __attribute__((noreturn)) error_cb(char *msg, ...)
{
	va_list ap;
	va_start(ap, msg);
	vsnprintf(dpci_errmsg, sizeof dpci_errmsg, msg, ap);
	va_end(ap);
	longjmp(dpci_jmp, 1);
}

static void quiet_cb(char *msg, ...)
{
	(void)msg;
}

struct pci_access *dpci_alloc(void)
{
	struct pci_access *pacc = pci_alloc();
	if (pacc) {
		pacc->error = error_cb;
		pacc->warning = quiet_cb;
		pacc->debug = quiet_cb;
	}
	return pacc;
}
