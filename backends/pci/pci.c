/* The pci backend: a board that exposes the DIMMnet-2 host interface through
 * a PCI BAR, found with libpci and mapped through sysfs.
 *
 * The DIMMnet-2 of the thesis sits in a DIMM slot and has no PCI form: this
 * backend is the project's own extension, for boards or FPGA set-ups that
 * expose the same map behind a memory BAR.
 *
 *   pci:SLOT[,bar=N][,sysfs=PATH][,dump=FILE][,enable][,nowc][,no-reset-check]
 *                                           SLOT = [[domain:]bus:]dev.func
 *   pci:id=VVVV:DDDD[,index=K][,...]
 *
 * Checked before anything is mapped, from the configuration space: the BAR
 * is a memory BAR (not I/O, not the upper half of a 64-bit BAR), assigned,
 * at least DNET_MAP_SIZE bytes, and memory decoding is on in the Command
 * register (with it off every read is all ones); ,enable turns decoding on.
 * The Write Window (offsets below 0x10000) is mapped from
 * <sysfs>/devices/<slot>/resource<N>_wc, write-combining, where the kernel
 * offers it (prefetchable BARs), unless ,nowc; the rest (all of it without
 * _wc) from resource<N>, uncached-minus.  The two do not overlap: PAT gives a
 * physical range one memory type, and a WC mapping over a range already
 * mapped uncached is silently made uncached-minus.
 * sysfs=PATH points libpci and the mapping at another tree; dump=FILE makes
 * libpci read configuration spaces from an "lspci -x" dump (its dump access
 * method), as pciutils' own tests do -- the mapping still comes from sysfs.
 * Before the first write the presence check of mmio.h runs, on a real BAR
 * (sysfs) with the Primitive Counter Reset check unless ,no-reset-check.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <pci/pci.h>

#include "dnet/backend.h"
#include "dnet/map.h"
#include "dnet/parse.h"
#include "mmio/mmio.h"
#include "pci/libpci_handle.h"
#include "pci/bars.h"

struct pci_args {
	char slot[64];
	char id[32];
	unsigned bar;
	unsigned index;
	char sysfs[DNET_SPEC_MAX];
	char dump[DNET_SPEC_MAX];
	bool enable, nowc, no_reset_check;
};

/* What the configuration space says about the device and its BAR. */
struct pci_found {
	char devdir[DNET_SPEC_MAX + 64];
	char slot[32];
	uint64_t size;        /* from libpci, 0 when unknown (dump) */
	uint32_t bar_raw;     /* the BAR register */
	uint16_t command;
};

static int parse_args(const char *args, struct pci_args *a, struct dnet_err *err)
{
	memset(a, 0, sizeof *a);
	snprintf(a->sysfs, sizeof a->sysfs, "/sys/bus/pci");
	struct dnet_kv kv[10];
	unsigned n;
	int rc = core_kv_split(args, kv, 10, &n, err);
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
		} else if (strcmp(kv[i].key, "dump") == 0 && kv[i].has_val && kv[i].val[0]) {
			snprintf(a->dump, sizeof a->dump, "%s", kv[i].val);
		} else if (strcmp(kv[i].key, "enable") == 0 && !kv[i].has_val) {
			a->enable = true;
		} else if (strcmp(kv[i].key, "nowc") == 0 && !kv[i].has_val) {
			a->nowc = true;
		} else if (strcmp(kv[i].key, "no-reset-check") == 0 && !kv[i].has_val) {
			a->no_reset_check = true;
		} else {
			return dnet_seterr(err, DNET_EINVAL,
					   "pci: unknown option '%s' (known: SLOT, id=, bar=, index=, sysfs=, "
					   "dump=, enable, nowc, no-reset-check)", kv[i].key);
		}
	}
	if (!a->slot[0] && !a->id[0])
		return dnet_seterr(err, DNET_EINVAL, "pci: give a slot or id=VVVV:DDDD");
	return 0;
}

/* Find the device and check its BAR in the configuration space (pci_found);
 * with a->enable, turn memory decoding on. */
static int find_device(const struct pci_args *a, bool dry, struct pci_found *out, struct dnet_err *err)
{
	struct pci_access *volatile pacc = dpci_alloc();
	if (!pacc)
		return dnet_seterr(err, DNET_ENOMEM, "pci: libpci allocation failed");
	if (setjmp(dpci_jmp)) {
		pci_cleanup(pacc);
		return dnet_seterr(err, DNET_EIO, "pci: libpci: %s", dpci_errmsg);
	}
	if (a->dump[0]) {
		pacc->method = PCI_ACCESS_DUMP;
		pci_set_param(pacc, "dump.name", (char *)a->dump);
	} else {
		pacc->method = PCI_ACCESS_SYS_BUS_PCI;
		pci_set_param(pacc, "sysfs.path", (char *)a->sysfs);
	}
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
		pci_fill_info(d, PCI_FILL_IDENT | PCI_FILL_BASES | (a->dump[0] ? 0 : PCI_FILL_SIZES));
		if (pci_filter_match(&f, d) && seen++ == a->index) {
			found = d;
			break;
		}
	}
	if (!found) {
		pci_cleanup(pacc);
		return dnet_seterr(err, DNET_ENOENT, "pci: no device matches '%s'%s in %s",
				   a->slot[0] ? a->slot : a->id, a->index ? " at that index" : "",
				   a->dump[0] ? a->dump : a->sysfs);
	}
	snprintf(out->slot, sizeof out->slot, "%04x:%02x:%02x.%d", found->domain, found->bus,
		 found->dev, found->func);
	snprintf(out->devdir, sizeof out->devdir, "%s/devices/%s", a->sysfs, out->slot);
	out->size = a->dump[0] ? 0 : found->size[a->bar];
	unsigned htype;
	unsigned nbars = dpci_nbars(found, &htype);
	int rc = 0;
	if (a->bar >= nbars) {
		rc = dnet_seterr(err, DNET_EINVAL, "pci: %s has header type %u with %u BARs; there is no BAR%u",
				 out->slot, htype, nbars, a->bar);
		goto done;
	}
	/* The same walk as probe: BAR0 up, a 64-bit BAR taking the next register. */
	struct dnet_pci_bar bars[6];
	dpci_bars(found, nbars, bars);
	const struct dnet_pci_bar *bar = &bars[a->bar];
	out->bar_raw = bar->raw;
	if (bar->upper) {
		rc = dnet_seterr(err, DNET_EINVAL,
				 "pci: %s BAR%u is the upper half of the 64-bit BAR%u; use bar=%u",
				 out->slot, a->bar, a->bar - 1, a->bar - 1);
		goto done;
	}
	if (bar->io) {
		rc = dnet_seterr(err, DNET_EINVAL,
				 "pci: %s BAR%u (0x%08x) is an I/O BAR; the DIMMnet-2 map needs a memory BAR",
				 out->slot, a->bar, out->bar_raw);
		goto done;
	}
	if (bar->addr == 0) {
		rc = dnet_seterr(err, DNET_EINVAL, "pci: %s BAR%u is not assigned (address 0)", out->slot,
				 a->bar);
		goto done;
	}
	out->command = pci_read_word(found, PCI_COMMAND);
	if (!(out->command & PCI_COMMAND_MEMORY)) {
		if (!a->enable) {
			rc = dnet_seterr(err, DNET_EPERM,
					 "pci: %s has memory decoding off (Command 0x%04x, bit 1 clear): every "
					 "read would be all ones; add ,enable to turn it on", out->slot,
					 out->command);
			goto done;
		}
		if (dry) /* a dry run changes nothing, not even the Command register */
			goto done;
		pci_write_word(found, PCI_COMMAND, (u16)(out->command | PCI_COMMAND_MEMORY));
		out->command = pci_read_word(found, PCI_COMMAND);
		if (!(out->command & PCI_COMMAND_MEMORY))
			rc = dnet_seterr(err, DNET_EIO, "pci: %s: memory decoding did not turn on (Command 0x%04x)",
					 out->slot, out->command);
	}
done:
	pci_cleanup(pacc);
	return rc;
}

static int pci_check(const char *args, struct pci_args *a, struct pci_found *fd, struct dnet_err *err)
{
	memset(fd, 0, sizeof *fd);
	int rc = parse_args(args, a, err);
	if (rc || (rc = find_device(a, false, fd, err)))
		return rc;
	if (fd->size && fd->size < DNET_MAP_SIZE)
		return dnet_seterr(err, DNET_ERANGE,
				   "pci: BAR%u is 0x%" PRIx64 " bytes; the DIMMnet-2 window needs 0x%x",
				   a->bar, fd->size, DNET_MAP_SIZE);
	return 0;
}

static int pci_dry_open(struct dnet_dev *dev, const char *args, struct dnet_err *err)
{
	struct pci_args a;
	struct pci_found fd;
	int rc = parse_args(args, &a, err);
	if (rc)
		return rc;
	memset(&fd, 0, sizeof fd);
	if ((rc = find_device(&a, true, &fd, err)))
		return rc;
	dev->caps = DNET_CAP_PRIVILEGED | DNET_CAP_REAL_HW;
	return 0;
}

/* Decision D-PCI-PAT: sessions on one BAR must agree on its memory types,
 * since PAT keeps one per physical range: a ,nowc (uncached) mapping of
 * the Write Window beside a write-combining one fails with a bare EINVAL
 * (the reason only in dmesg), and a write-combining one beside an
 * uncached one silently becomes uncached-minus.  Each session holds a
 * shared flock on the file of its own kind -- resourceN_wc for the split
 * mapping, resourceN for ,nowc -- for as long as it is open (mine: the fd
 * the mapping keeps), then asks for the other kind's file exclusively
 * without waiting: refused, a session of the other kind holds the BAR.
 * Each takes its own lock before it asks, so of two sessions starting
 * together at least one sees the other. */
static int pat_guard(int mine, const char *mine_path, const char *other_path, bool split, unsigned bar,
		     struct dnet_err *err)
{
	(void)mine_path;
	if (flock(mine, LOCK_SH) != 0)
		return 0; /* a file without locks: nothing to learn from it */
	int o = open(other_path, O_RDONLY | O_CLOEXEC);
	if (o < 0)
		return 0; /* no _wc file: nobody maps it write-combining */
	int held = flock(o, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
	close(o); /* drops the test lock if it was taken */
	if (!held)
		return 0;
	if (split)
		return dnet_seterr(err, DNET_EBUSY,
				   "pci: another session maps BAR%u uncached (,nowc, through %s): PAT keeps one "
				   "memory type per physical range and would make this session's Write Window "
				   "uncached-minus without a word; close that session, or add ,nowc here too",
				   bar, other_path);
	return dnet_seterr(err, DNET_EBUSY,
			   "pci: another session maps BAR%u's Write Window write-combining (through %s): PAT "
			   "keeps one memory type per physical range and refuses an uncached mapping over it "
			   "(mmap EINVAL; dmesg: 'x86/PAT: ... conflicting memory types'); close that session, "
			   "or open this one without ,nowc", bar, other_path);
}

static int pci_open_dev(struct dnet_dev *dev, const char *args, struct dnet_err *err)
{
	struct pci_args a;
	struct pci_found fd;
	char res[DNET_SPEC_MAX + 96];
	int rc = pci_check(args, &a, &fd, err);
	if (rc)
		return rc;
	snprintf(res, sizeof res, "%s/resource%u", fd.devdir, a.bar);
	int fdn;
	struct stat st;
	if ((rc = mmio_openfd(res, "pci", "needs root", &fdn, &st, err)))
		return rc;
	/* libpci gives no size from a dump: sysfs's resource file has it. */
	if (!fd.size && S_ISREG(st.st_mode) && (uint64_t)st.st_size < DNET_MAP_SIZE) {
		close(fdn);
		return dnet_seterr(err, DNET_ERANGE,
				   "pci: BAR%u is 0x%llx bytes (%s); the DIMMnet-2 window needs 0x%x", a.bar,
				   (unsigned long long)st.st_size, res, DNET_MAP_SIZE);
	}
	/* The Write Window write-combining where the kernel offers it
	 * (decision D-CACHE), from its own file, not overlapping the uncached
	 * rest (PAT: one memory type per physical range). */
	char wc[sizeof res + 4];
	snprintf(wc, sizeof wc, "%s_wc", res);
	bool split = !a.nowc && access(wc, F_OK) == 0;
	if (!split && (rc = pat_guard(fdn, res, wc, false, a.bar, err))) {
		close(fdn);
		return rc;
	}
	if (split)
		rc = mmio_map_split(dev, fdn, &st, res, wc, DNET_PW_BASE, "pci", err);
	else
		rc = mmio_map(dev, fdn, &st, res, 0, "pci", err);
	if (rc)
		return rc;
	struct dnet_mmio *m = dev->priv;
	if (split && (rc = pat_guard(m->wc_fd, wc, res, true, a.bar, err))) {
		mmio_op_close(dev);
		dev->priv = NULL;
		return rc;
	}
	/* Behaviour tells a board from plain memory on a real BAR (a sysfs
	 * resource file), not on a stand-in tree of regular files. */
	struct statfs sfs;
	((struct dnet_mmio *)dev->priv)->reset_check =
		!a.no_reset_check && fstatfs(((struct dnet_mmio *)dev->priv)->fd, &sfs) == 0 &&
		sfs.f_type == SYSFS_MAGIC;
	dev->caps = DNET_CAP_PRIVILEGED | DNET_CAP_REAL_HW;
	return 0;
}

const struct dnet_backend_ops dpci_backend = {
	.name = "pci",
	.synopsis = "pci:SLOT|id=VVVV:DDDD[,index=K][,bar=N][,sysfs=PATH][,dump=FILE][,enable][,nowc][,no-reset-check]",
	.help = "a board exposing the window through a PCI BAR, found with libpci",
	.open = pci_open_dev,
	.dry_open = pci_dry_open,
	.close = mmio_op_close,
	.read = mmio_op_read,
	.write = mmio_op_write,
	.wc_flush = mmio_op_wc_flush,
	.cache_flush = mmio_op_cache_flush,
	.prefetch = mmio_op_prefetch,
};
