/* /proc/iomem check for the devmem backend. */
#ifndef DEVMEM_IOMEM_H
#define DEVMEM_IOMEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "dnet/error.h"

/* May [base, base+size) be mapped, judged by the resource list at path
 * (the format of /proc/iomem: "start-end : name", nested by indentation)?
 *
 *   - a range overlapping "System RAM" is refused, always: the kernel owns
 *     those pages and PAT would turn an uncached mapping of them into
 *     write-back (no override exists);
 *   - a range that overlaps entries must lie wholly inside each of them, and
 *     the innermost one must be "Reserved" (an E820 reserved range, e.g. from
 *     memmap=SIZE$BASE); anything else (ACPI NVS, ACPI Tables, a device, a
 *     PCI bus window, a range straddling two entries) is refused, naming it;
 *   - a range that overlaps no entry (memory the kernel was told not to use
 *     with mem=) is accepted;
 *   - a list that cannot be read, is empty, or shows only zero addresses
 *     (read without root) is refused unless known_machine says the user
 *     knows the range is free.
 * Returns 0 (may map) or a negative error whose message names the entry and
 * the rule.  *note (may be NULL) says on what grounds a 0 was given. */
int devmem_iomem_check(const char *path, uint64_t base, uint64_t size, bool known_machine,
		     char *note, size_t notelen, struct dnet_err *err);

#endif
