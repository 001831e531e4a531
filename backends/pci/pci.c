/* The pci backend: a board that exposes the DIMMnet-2 host interface through
 * a PCI BAR, found with libpci and mapped through sysfs.
 *
 *   pci:SLOT[,bar=N][,sysfs=PATH]          SLOT = [[domain:]bus:]dev.func
 *   pci:id=VVVV:DDDD[,index=K][,bar=N][,sysfs=PATH]
 *
 * The BAR must be at least DNET_MAP_SIZE bytes; it is mapped from
 * <sysfs>/devices/<slot>/resource<N> (uncached, like /dev/mem with O_SYNC).
 * sysfs=PATH points libpci and the mapping at another tree (tests).
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <pci/pci.h>

#include "dnet/backend.h"
#include "dnet/map.h"
#include "dnet/parse.h"
#include "mmio/mmio.h"

/* libpci reports fatal errors through a callback that must not return; we
 * turn them into an error value with longjmp (one open at a time). */
static jmp_buf pci_jmp;
static char pci_msg[DNET_ERR_MSG_MAX];

static void __attribute__((noreturn)) pci_error_cb(char *msg, ...)
{
	va_list ap;
	va_start(ap, msg);
	vsnprintf(pci_msg, sizeof pci_msg, msg, ap);
	va_end(ap);
	longjmp(pci_jmp, 1);
}

static void pci_quiet_cb(char *msg, ...)
{
	(void)msg;
}

struct pci_args {
	char slot[64];
	char id[32];
	unsigned bar;
	unsigned index;
	char sysfs[DNET_SPEC_MAX];
};

static int parse_args(const char *args, struct pci_args *a, struct dnet_err *err)
{
	memset(a, 0, sizeof *a);
	snprintf(a->sysfs, sizeof a->sysfs, "/sys/bus/pci");
	struct dnet_kv kv[6];
	unsigned n;
	int rc = dnet_kv_split(args, kv, 6, &n, err);
	if (rc)
		return rc;
	if (n == 0)
		return dnet_seterr(err, DNET_EINVAL,
				   "pci needs a device: pci:[[domain:]bus:]dev.func or pci:id=VVVV:DDDD");
	for (unsigned i = 0; i < n; i++) {
		uint64_t v;
		if (i == 0 && !kv[i].has_val) {
			if (strlen(kv[i].key) >= sizeof a->slot)
				return dnet_seterr(err, DNET_EINVAL, "pci: slot '%s' too long", kv[i].key);
			memcpy(a->slot, kv[i].key, strlen(kv[i].key) + 1);
		} else if (strcmp(kv[i].key, "id") == 0 && kv[i].has_val) {
			if (strlen(kv[i].val) >= sizeof a->id)
				return dnet_seterr(err, DNET_EINVAL, "pci: id '%s' too long", kv[i].val);
			memcpy(a->id, kv[i].val, strlen(kv[i].val) + 1);
		} else if (strcmp(kv[i].key, "bar") == 0 && kv[i].has_val) {
			if ((rc = dnet_parse_u64(kv[i].val, 5, &v, "pci bar", err)))
				return rc;
			a->bar = (unsigned)v;
		} else if (strcmp(kv[i].key, "index") == 0 && kv[i].has_val) {
			if ((rc = dnet_parse_u64(kv[i].val, 255, &v, "pci index", err)))
				return rc;
			a->index = (unsigned)v;
		} else if (strcmp(kv[i].key, "sysfs") == 0 && kv[i].has_val) {
			snprintf(a->sysfs, sizeof a->sysfs, "%s", kv[i].val);
		} else {
			return dnet_seterr(err, DNET_EINVAL,
					   "pci: unknown option '%s' (known: SLOT, id=, bar=, index=, sysfs=)",
					   kv[i].key);
		}
	}
	if (!a->slot[0] && !a->id[0])
		return dnet_seterr(err, DNET_EINVAL, "pci: give a slot or id=VVVV:DDDD");
	return 0;
}

/* Find the device; fills the sysfs resource path and BAR size. */
static int find_device(const struct pci_args *a, char *res, size_t reslen, uint64_t *size,
		       struct dnet_err *err)
{
	struct pci_access *volatile pacc = pci_alloc();
	if (!pacc)
		return dnet_seterr(err, DNET_ENOMEM, "pci: libpci allocation failed");
	pacc->error = pci_error_cb;
	pacc->warning = pci_quiet_cb;
	pacc->debug = pci_quiet_cb;
	if (setjmp(pci_jmp)) {
		pci_cleanup(pacc);
		return dnet_seterr(err, DNET_EIO, "pci: libpci: %s", pci_msg);
	}
	pacc->method = PCI_ACCESS_SYS_BUS_PCI;
	pci_set_param(pacc, "sysfs.path", (char *)a->sysfs);
	pci_init(pacc);
	struct pci_filter f;
	pci_filter_init(pacc, &f);
	char buf[64];
	char *msg = NULL;
	snprintf(buf, sizeof buf, "%s", a->slot[0] ? a->slot : a->id);
	msg = a->slot[0] ? pci_filter_parse_slot(&f, buf) : pci_filter_parse_id(&f, buf);
	if (msg) {
		pci_cleanup(pacc);
		return dnet_seterr(err, DNET_EINVAL, "pci: bad %s '%s': %s",
				   a->slot[0] ? "slot" : "id", a->slot[0] ? a->slot : a->id, msg);
	}
	pci_scan_bus(pacc);
	unsigned seen = 0;
	struct pci_dev *found = NULL;
	for (struct pci_dev *d = pacc->devices; d; d = d->next) {
		pci_fill_info(d, PCI_FILL_IDENT | PCI_FILL_BASES | PCI_FILL_SIZES);
		if (pci_filter_match(&f, d) && seen++ == a->index) {
			found = d;
			break;
		}
	}
	if (!found) {
		pci_cleanup(pacc);
		return dnet_seterr(err, DNET_ENOENT, "pci: no device matches '%s'%s in %s",
				   a->slot[0] ? a->slot : a->id, a->index ? " at that index" : "",
				   a->sysfs);
	}
	*size = found->size[a->bar];
	snprintf(res, reslen, "%s/devices/%04x:%02x:%02x.%d/resource%u", a->sysfs,
		 found->domain, found->bus, found->dev, found->func, a->bar);
	pci_cleanup(pacc);
	return 0;
}

static int pci_open_dev(struct dnet_dev *dev, const char *args, struct dnet_err *err)
{
	struct pci_args a;
	char res[DNET_SPEC_MAX + 64];
	uint64_t size = 0;
	int rc = parse_args(args, &a, err);
	if (rc || (rc = find_device(&a, res, sizeof res, &size, err)))
		return rc;
	if (size < DNET_MAP_SIZE)
		return dnet_seterr(err, DNET_ERANGE,
				   "pci: BAR%u is 0x%" PRIx64 " bytes; the DIMMnet-2 window needs 0x%x",
				   a.bar, size, DNET_MAP_SIZE);
	int fd;
	struct stat st;
	if ((rc = dnet_mmio_openfd(res, "pci", "needs root", &fd, &st, err)) ||
	    (rc = dnet_mmio_map(dev, fd, &st, res, 0, "pci", err)))
		return rc;
	dev->caps = DNET_CAP_PRIVILEGED | DNET_CAP_REAL_HW;
	return 0;
}

const struct dnet_backend_ops dnet_backend_pci = {
	.name = "pci",
	.synopsis = "pci:SLOT|id=VVVV:DDDD[,index=K][,bar=N][,sysfs=PATH]",
	.help = "a board exposing the window through a PCI BAR, found with libpci",
	.open = pci_open_dev,
	.close = dnet_mmio_op_close,
	.read = dnet_mmio_op_read,
	.write = dnet_mmio_op_write,
	.wc_flush = dnet_mmio_op_wc_flush,
	.cache_flush = dnet_mmio_op_cache_flush,
	.prefetch = dnet_mmio_op_prefetch,
};
