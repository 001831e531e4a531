/* /proc/iomem check for the devmem backend. */
#ifndef DEVMEM_IOMEM_H
#define DEVMEM_IOMEM_H

#include <stddef.h>
#include <stdint.h>
#include "dnet/error.h"

/* Does [base, base+size) overlap a "System RAM" range listed in path?
 * Returns 1 (and the resource name in what), 0, or a negative error. */
int dnet_iomem_check(const char *path, uint64_t base, uint64_t size, char *what,
		     size_t whatlen, struct dnet_err *err);

#endif
