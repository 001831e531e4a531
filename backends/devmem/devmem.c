/* The devmem backend: the DIMMnet-2 host interface mapped from /dev/mem (or
 * a file standing in for it) at a physical base given by the user.
 *
 *   devmem:0xBASE[@PATH][,force][,iomem=PATH]
 *
 * Accesses are single volatile loads/stores of the requested width, like
 * rdma-core's util/mmio.h.  The region attributes of Tab. 4.1 are honoured
 * by the caller-visible ordering points: an sfence after write-combining
 * Write Window stores (wc_flush), clflush before reading Prefetch Window /
 * LH Buffer lines and prefetchnta on request (§4.2.1).  /dev/mem mappings
 * opened with O_SYNC are uncached, which is always safe; the fences keep
 * the code right on a PAT-WC mapping too.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dnet/backend.h"
#include "dnet/map.h"
#include "dnet/parse.h"
#include "devmem/iomem.h"
#include "mmio/mmio.h"

static int parse_args(const char *args, char *path, size_t pathlen, uint64_t *base,
		      bool *force, char *iomem, size_t iomemlen, struct dnet_err *err)
{
	char first[DNET_SPEC_MAX];
	const char *comma = strchr(args, ',');
	size_t flen = comma ? (size_t)(comma - args) : strlen(args);
	if (flen == 0)
		return dnet_seterr(err, DNET_EINVAL,
				   "devmem needs a physical base: devmem:0xBASE[@PATH][,force]");
	memcpy(first, args, flen);
	first[flen] = '\0';
	char *at = strchr(first, '@');
	snprintf(path, pathlen, "%s", at ? at + 1 : "/dev/mem");
	if (at) {
		*at = '\0';
		if (!path[0])
			return dnet_seterr(err, DNET_EINVAL, "devmem: empty path after '@'");
	}
	int rc = dnet_parse_u64(first, UINT64_MAX - DNET_MAP_SIZE, base, "devmem base", err);
	if (rc)
		return rc;
	*force = false;
	snprintf(iomem, iomemlen, "/proc/iomem");
	struct dnet_kv kv[4];
	unsigned n;
	if (comma && (rc = dnet_kv_split(comma + 1, kv, 4, &n, err)))
		return rc;
	for (unsigned i = 0; comma && i < n; i++) {
		if (strcmp(kv[i].key, "force") == 0 && !kv[i].has_val)
			*force = true;
		else if (strcmp(kv[i].key, "iomem") == 0 && kv[i].has_val)
			snprintf(iomem, iomemlen, "%s", kv[i].val);
		else
			return dnet_seterr(err, DNET_EINVAL,
					   "devmem: unknown option '%s' (known: force, iomem=PATH)", kv[i].key);
	}
	return 0;
}

static int devmem_open(struct dnet_dev *dev, const char *args, struct dnet_err *err)
{
	char path[DNET_SPEC_MAX], iomem[DNET_SPEC_MAX];
	uint64_t base = 0;
	bool force = false;
	int rc = parse_args(args, path, sizeof path, &base, &force, iomem, sizeof iomem, err);
	if (rc)
		return rc;
	long pg = sysconf(_SC_PAGESIZE);
	if (pg <= 0)
		pg = 4096;
	if (base % (uint64_t)pg)
		return dnet_seterr(err, DNET_EALIGN,
				   "devmem base 0x%" PRIx64 " is not aligned to the %ld-byte page size "
				   "(the board's window starts on a page boundary)", base, pg);
	bool is_devmem = strcmp(path, "/dev/mem") == 0;
	/* Refuse to map RAM the kernel owns (the board answers the BIOS as
	 * memory, OQ-27): only a range outside "System RAM" is plausible. */
	if (is_devmem || strcmp(iomem, "/proc/iomem") != 0) {
		char what[128];
		int r = dnet_iomem_check(iomem, base, DNET_MAP_SIZE, what, sizeof what, err);
		if (r < 0)
			return r;
		if (r > 0 && !force)
			return dnet_seterr(err, DNET_EPERM,
					   "devmem: 0x%" PRIx64 "-0x%" PRIx64 " overlaps '%s' in %s; "
					   "refusing to map it (add ,force if you are sure)",
					   base, base + DNET_MAP_SIZE - 1, what, iomem);
	}
	if ((rc = dnet_mmio_open(dev, path, base, "devmem", is_devmem ? "needs root / CAP_SYS_RAWIO"
								 : "check the file's permissions", err)))
		return rc;
	dev->caps = DNET_CAP_PRIVILEGED | (is_devmem ? DNET_CAP_REAL_HW : 0);
	return 0;
}

const struct dnet_backend_ops dnet_backend_devmem = {
	.name = "devmem",
	.synopsis = "devmem:0xBASE[@PATH][,force][,iomem=PATH]",
	.help = "map the board's physical window from /dev/mem (or a file standing in for it)",
	.open = devmem_open,
	.close = dnet_mmio_op_close,
	.read = dnet_mmio_op_read,
	.write = dnet_mmio_op_write,
	.wc_flush = dnet_mmio_op_wc_flush,
	.cache_flush = dnet_mmio_op_cache_flush,
	.prefetch = dnet_mmio_op_prefetch,
};
