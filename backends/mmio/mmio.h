/* Memory-mapped access to a DIMMnet-2 window, shared by the devmem and pci
 * backends.  Semantics as rdma-core's util/mmio.h: each call is exactly one
 * volatile access of the given width (128 bits with one SSE access on x86);
 * ordering points are explicit (sfence for write combining, clflush/mfence
 * for write-back lines). */
#ifndef DNET_MMIO_H
#define DNET_MMIO_H

#include <stddef.h>
#include <stdint.h>

/* width is 1, 2, 4, 8 or 16; p is aligned to it (the core checks). */
void dnet_mmio_read(const volatile uint8_t *p, void *buf, unsigned width);
void dnet_mmio_write(volatile uint8_t *p, const void *buf, unsigned width);
void dnet_mmio_wc_flush(void);
void dnet_mmio_cache_flush(const volatile uint8_t *p, size_t len);
void dnet_mmio_prefetch(const volatile uint8_t *p, size_t len);

#endif
