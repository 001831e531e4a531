/* The devmem backend: the DIMMnet-2 host interface mapped from /dev/mem (or
 * a file standing in for it) at a physical base given by the user.
 *
 *   devmem:0xBASE[@PATH][,privileged][,known-machine][,no-reset-check][,iomem=PATH]
 *
 * Safety, before anything is mapped (libdnet(3), devmem):
 *   - PATH is identified with stat/fstat, not by its name: a character
 *     device 1:1 is /dev/mem (whatever the path or symlink that reaches it),
 *     a regular file is a stand-in, anything else is refused;
 *   - for /dev/mem the window is checked against /proc/iomem (iomem.h):
 *     System RAM is refused with no override; the window must lie wholly
 *     inside a Reserved entry or outside every entry; a list that cannot be
 *     read or shows no addresses refuses unless ,known-machine; iomem=PATH
 *     (another list) is for stand-in files only, refused for /dev/mem;
 *   - the System Register (privileged process only, §4.5) is reachable only
 *     with ,privileged (DNET_CAP_PRIVILEGED);
 *   - before the first write, the presence check (mmio.h): reserved bits
 *     read 0, and on /dev/mem, unless ,no-reset-check, a write of Primitive
 *     Counter Reset does not read back (plain memory would).
 *
 * Accesses are single volatile loads/stores of the requested width, like
 * rdma-core's util/mmio.h.  The mapping is opened with O_SYNC and is
 * uncached-minus for every region (decision D-CACHE): the Write Window is
 * write-combining only if an MTRR makes it so; the ordering points (sfence
 * after Write Window stores and before a request, clflush before reading the
 * Prefetch Window or LH Buffer) keep the code right in either case.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "dnet/backend.h"
#include "dnet/map.h"
#include "dnet/parse.h"
#include "devmem/iomem.h"
#include "mmio/mmio.h"

#define SYNOPSIS "devmem:0xBASE[@PATH][,privileged][,known-machine][,no-reset-check][,iomem=PATH]"

struct devmem_cfg {
	char path[DNET_SPEC_MAX];
	char iomem[DNET_SPEC_MAX];
	bool iomem_given;
	uint64_t base;
	bool privileged, known_machine, no_reset_check;
	bool is_devmem;     /* PATH is the character device 1:1 */
	struct stat st;
};

static int parse_args(const char *args, struct devmem_cfg *c, struct dnet_err *err)
{
	char first[DNET_SPEC_MAX];
	const char *comma = strchr(args, ',');
	size_t flen = comma ? (size_t)(comma - args) : strlen(args);
	if (flen == 0)
		return dnet_seterr(err, DNET_EINVAL, "devmem needs a physical base: " SYNOPSIS);
	memcpy(first, args, flen);
	first[flen] = '\0';
	char *at = strchr(first, '@');
	snprintf(c->path, sizeof c->path, "%s", at ? at + 1 : "/dev/mem");
	if (at) {
		*at = '\0';
		if (!c->path[0])
			return dnet_seterr(err, DNET_EINVAL, "devmem: empty path after '@'");
	}
	int rc = dnet_parse_u64(first, UINT64_MAX - DNET_MAP_SIZE, &c->base, "devmem base", err);
	if (rc)
		return rc;
	snprintf(c->iomem, sizeof c->iomem, "/proc/iomem");
	struct dnet_kv kv[5];
	unsigned n;
	if (comma && (rc = core_kv_split(comma + 1, kv, 5, &n, err)))
		return rc;
	for (unsigned i = 0; comma && i < n; i++) {
		if (strcmp(kv[i].key, "privileged") == 0 && !kv[i].has_val) {
			c->privileged = true;
		} else if (strcmp(kv[i].key, "known-machine") == 0 && !kv[i].has_val) {
			c->known_machine = true;
		} else if (strcmp(kv[i].key, "no-reset-check") == 0 && !kv[i].has_val) {
			c->no_reset_check = true;
		} else if (strcmp(kv[i].key, "iomem") == 0 && kv[i].has_val && kv[i].val[0]) {
			snprintf(c->iomem, sizeof c->iomem, "%s", kv[i].val);
			c->iomem_given = true;
		} else if (strcmp(kv[i].key, "force") == 0) {
			return dnet_seterr(err, DNET_EINVAL,
					   "devmem: ',force' is gone: System RAM is never mapped (PAT makes "
					   "the mapping write-back and the kernel may hand the pages out); "
					   "reserve the range with memmap=SIZE$BASE -- see libdnet(3), "
					   "devmem");
		} else {
			return dnet_seterr(err, DNET_EINVAL,
					   "devmem: unknown option '%s' (known: privileged, known-machine, "
					   "no-reset-check, iomem=PATH)", kv[i].key);
		}
	}
	return 0;
}

/* Everything decided before the device is opened: the arguments, the base's
 * alignment, what PATH is (stat follows symlinks), and for /dev/mem the
 * /proc/iomem check.  Used by open and by a dry run. */
static int devmem_check(const char *args, struct devmem_cfg *c, struct dnet_err *err)
{
	memset(c, 0, sizeof *c);
	int rc = parse_args(args, c, err);
	if (rc)
		return rc;
	long pg = sysconf(_SC_PAGESIZE);
	if (pg <= 0)
		pg = 4096;
	if (c->base % (uint64_t)pg)
		return dnet_seterr(err, DNET_EALIGN,
				   "devmem base 0x%" PRIx64 " is not aligned to the %ld-byte page size "
				   "(the board's window starts on a page boundary)", c->base, pg);
	if (stat(c->path, &c->st) != 0)
		return dnet_seterr(err, DNET_EIO, "devmem: cannot open %s: %s", c->path, strerror(errno));
	if (S_ISCHR(c->st.st_mode)) {
		if (major(c->st.st_rdev) != 1 || minor(c->st.st_rdev) != 1)
			return dnet_seterr(err, DNET_EINVAL,
					   "devmem: %s is the character device %u:%u, not /dev/mem (1:1); "
					   "for a board behind a PCI BAR use pci:SLOT", c->path,
					   major(c->st.st_rdev), minor(c->st.st_rdev));
		c->is_devmem = true;
		/* The kernel's own list decides for the real device: a list of
		 * the user's could call System RAM Reserved. */
		if (c->iomem_given)
			return dnet_seterr(err, DNET_EINVAL,
					   "devmem: iomem=%s is for a stand-in file only; %s is /dev/mem "
					   "(1:1), always checked against /proc/iomem", c->iomem, c->path);
	} else if (!S_ISREG(c->st.st_mode)) {
		return dnet_seterr(err, DNET_EINVAL,
				   "devmem: %s is neither /dev/mem (character device 1:1) nor a regular "
				   "file standing in for it", c->path);
	}
	/* /dev/mem always; a stand-in file when a list is named (tests). */
	if (c->is_devmem || c->iomem_given) {
		char note[256];
		if ((rc = devmem_iomem_check(c->iomem, c->base, DNET_MAP_SIZE, c->known_machine, note,
					   sizeof note, err)))
			return rc;
	}
	/* Past the CPU's physical address space a window is outside every
	 * iomem entry, and mmap only says EINVAL: named here instead. */
	unsigned bits = c->is_devmem ? mmio_phys_bits("/proc/cpuinfo") : 0;
	if (bits && bits < 64 && c->base + DNET_MAP_SIZE > 1ull << bits)
		return dnet_seterr(err, DNET_ERANGE,
				   "devmem: 0x%" PRIx64 "-0x%" PRIx64 " lies past this CPU's %u-bit physical "
				   "address space (ends at 0x%llx; /proc/cpuinfo 'address sizes'): no board "
				   "can be there", c->base, c->base + DNET_MAP_SIZE - 1, bits,
				   (unsigned long long)((1ull << bits) - 1));
	return 0;
}

static unsigned devmem_caps(const struct devmem_cfg *c)
{
	return (c->privileged ? DNET_CAP_PRIVILEGED : 0) | (c->is_devmem ? DNET_CAP_REAL_HW : 0);
}

static int devmem_dry_open(struct dnet_dev *dev, const char *args, struct dnet_err *err)
{
	struct devmem_cfg c;
	int rc = devmem_check(args, &c, err);
	if (rc)
		return rc;
	dev->caps = devmem_caps(&c);
	return 0;
}

static int devmem_open(struct dnet_dev *dev, const char *args, struct dnet_err *err)
{
	struct devmem_cfg c;
	int rc = devmem_check(args, &c, err);
	if (rc)
		return rc;
	int fd;
	struct stat st;
	if ((rc = mmio_openfd(c.path, "devmem", c.is_devmem ? "needs root / CAP_SYS_RAWIO"
								  : "check the file's permissions",
				   &fd, &st, err)))
		return rc;
	/* What was opened must be what was checked (no swap in between). */
	if ((st.st_mode & S_IFMT) != (c.st.st_mode & S_IFMT) || st.st_rdev != c.st.st_rdev ||
	    st.st_dev != c.st.st_dev || st.st_ino != c.st.st_ino) {
		close(fd);
		return dnet_seterr(err, DNET_EPERM, "devmem: %s changed between the check and the open",
				   c.path);
	}
	if ((rc = mmio_map(dev, fd, &st, c.path, c.base, "devmem", err)))
		return rc;
	/* Behaviour tells a board from plain memory on the device only: a
	 * stand-in file is plain memory by design. */
	((struct dnet_mmio *)dev->priv)->reset_check = c.is_devmem && !c.no_reset_check;
	dev->caps = devmem_caps(&c);
	return 0;
}

const struct dnet_backend_ops devmem_backend = {
	.name = "devmem",
	.synopsis = SYNOPSIS,
	.help = "map the board's physical window from /dev/mem (or a file standing in for it)",
	.open = devmem_open,
	.dry_open = devmem_dry_open,
	.close = mmio_op_close,
	.read = mmio_op_read,
	.write = mmio_op_write,
	.wc_flush = mmio_op_wc_flush,
	.cache_flush = mmio_op_cache_flush,
	.prefetch = mmio_op_prefetch,
};
