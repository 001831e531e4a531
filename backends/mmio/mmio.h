/* Memory-mapped access to a DIMMnet-2 window, shared by the devmem and pci
 * backends.  Semantics as rdma-core's util/mmio.h: each call is exactly one
 * volatile access of the given width (128 bits with one SSE access on x86);
 * ordering points are explicit (sfence for write combining, clflush/mfence
 * for write-back lines). */
#ifndef DNET_MMIO_H
#define DNET_MMIO_H

#include <stddef.h>
#include <stdint.h>

#include "dnet/backend.h"

/* width is 1, 2, 4, 8 or 16; p is aligned to it (the core checks). */
void dnet_mmio_read(const volatile uint8_t *p, void *buf, unsigned width);
void dnet_mmio_write(volatile uint8_t *p, const void *buf, unsigned width);
void dnet_mmio_wc_flush(void);
void dnet_mmio_cache_flush(const volatile uint8_t *p, size_t len);
void dnet_mmio_prefetch(const volatile uint8_t *p, size_t len);

/* A mapped window; dev->priv of the devmem and pci backends. */
struct dnet_mmio {
	int fd;
	volatile uint8_t *map;
	size_t len;
};

/* Open path (O_SYNC: uncached) and map the DNET_MAP_SIZE-byte window at
 * offset into a new dev->priv, one node.  who prefixes messages ("devmem");
 * perm_hint is added when the open is refused ("needs root").  A regular
 * file (a stand-in for the device) must hold offset + DNET_MAP_SIZE bytes. */
int dnet_mmio_open(struct dnet_dev *dev, const char *path, uint64_t offset, const char *who,
		   const char *perm_hint, struct dnet_err *err);

/* Backend vtable entries shared by every mapped-window backend. */
void dnet_mmio_op_close(struct dnet_dev *dev);
int dnet_mmio_op_read(struct dnet_dev *dev, uint32_t off, void *buf, unsigned width,
		      struct dnet_err *err);
int dnet_mmio_op_write(struct dnet_dev *dev, uint32_t off, const void *buf, unsigned width,
		       struct dnet_err *err);
int dnet_mmio_op_wc_flush(struct dnet_dev *dev, struct dnet_err *err);
int dnet_mmio_op_cache_flush(struct dnet_dev *dev, uint32_t off, size_t len, struct dnet_err *err);
int dnet_mmio_op_prefetch(struct dnet_dev *dev, uint32_t off, size_t len, struct dnet_err *err);

#endif
