/* Memory-mapped access to a DIMMnet-2 window, shared by the devmem and pci
 * backends.  Semantics as rdma-core's util/mmio.h: each call is exactly one
 * volatile access of the given width (128 bits with one SSE access on x86,
 * written as asm with a memory clobber so the compiler can neither split,
 * merge, hoist nor reorder it); ordering points are explicit (sfence for
 * write combining, clflush/mfence for write-back lines).
 *
 * Caching (decision D-CACHE, docs/decisions.md): every mapping is opened
 * with O_SYNC, i.e. uncached-minus.  The Write Window becomes write-combining
 * only through a second mapping the kernel offers as WC (PCI resourceN_wc)
 * or an MTRR the administrator sets; the code is right for either, because
 * Write Window stores end with an sfence and every read of a write-back
 * region is preceded by clflush of its lines. */
#ifndef DNET_MMIO_H
#define DNET_MMIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "dnet/backend.h"

/* Exactly one instruction each: a 64-bit mov, a 128-bit movdqa. */
uint64_t mmio_read64(const volatile uint8_t *p);
void mmio_write64(volatile uint8_t *p, uint64_t v);
void mmio_read128(const volatile uint8_t *p, void *buf);
void mmio_write128(volatile uint8_t *p, const void *buf);
/* width is 1, 2, 4, 8 or 16; p is aligned to it (the core checks). */
void mmio_read(const volatile uint8_t *p, void *buf, unsigned width);
void mmio_write(volatile uint8_t *p, const void *buf, unsigned width);
void mmio_wc_flush(void);
void mmio_cache_flush(const volatile uint8_t *p, size_t len);
void mmio_prefetch(const volatile uint8_t *p, size_t len);

/* A mapped window; dev->priv of the devmem and pci backends. */
struct dnet_mmio {
	int fd;
	volatile uint8_t *map;   /* the whole window: one file, or two side by side */
	size_t len;
	int wc_fd;               /* -1, or the file of the write-combining Write Window */
	bool checked;            /* presence check done (before the first write) */
	bool reset_check;        /* the presence check also writes Primitive Counter Reset */
	const char *who;         /* "devmem", "pci" */
	char where[96];          /* "0x80000000 in /dev/mem", for messages */
};

/* The CPU's physical address width in bits from a /proc/cpuinfo-format
 * file ("address sizes : 39 bits physical, ..."); 0 when not said. */
unsigned mmio_phys_bits(const char *cpuinfo);

/* Open path read/write with O_SYNC (uncached) and fstat it.  who prefixes
 * messages; perm_hint is added when the open is refused ("needs root"). */
int mmio_openfd(const char *path, const char *who, const char *perm_hint, int *fd,
		     struct stat *st, struct dnet_err *err);

/* Map DNET_MAP_SIZE bytes of fd at offset into a new dev->priv (one node);
 * takes fd over (closed on failure).  A regular file (a stand-in for the
 * device) must hold offset + DNET_MAP_SIZE bytes.  Nothing is accessed. */
int mmio_map(struct dnet_dev *dev, int fd, const struct stat *st, const char *path,
		  uint64_t offset, const char *who, struct dnet_err *err);

/* Map the window from two files that do not overlap: [0, wc_len) from
 * wc_path (the kernel's write-combining view, PCI resourceN_wc) and
 * [wc_len, DNET_MAP_SIZE) from fd at the same offsets, side by side in one
 * address range.  PAT gives a physical range one memory type: a WC mapping
 * over a range already mapped uncached would silently become
 * uncached-minus.  Takes fd over (closed on failure). */
int mmio_map_split(struct dnet_dev *dev, int fd, const struct stat *st, const char *path,
			const char *wc_path, size_t wc_len, const char *who, struct dnet_err *err);

/* The presence check run before the first write (and before the read of
 * Controller Reset, which acts): registers whose reserved bits must read 0
 * (Controller Status [63:20], Prefetch Window Flag [63:16] of WID 0) are
 * read; bits set there (all ones when nothing decodes the address, or PCI
 * memory decoding is off) refuse with a message naming the register and
 * the value.  With reset_check (a real device), the controller must do
 * what neither a void nor memory does both of (decision D-PRESENCE-ECHO,
 * after D-PRESENCE-RESET): the last 128-bit word of WID 0's LLCM keeps a
 * pattern written to it (a void, reading 0 and dropping writes, does not;
 * the old word is written back), and a pattern written to WID 0's
 * Primitive Counter Reset does not read back from the Primitive Counter
 * at the same offset (the controller clears the counters, bits 63:60 are
 * unused; memory echoes it, and gets its old word back). */
int mmio_presence(struct dnet_dev *dev, struct dnet_err *err);

/* The same decision on any accessor pair (the mapped window, or a model of
 * a controller, a void, memory in tests/unit/test_mmio.c): rd/wr of 8 or
 * 16 bytes at a window offset.  who and where name the window in messages. */
struct dnet_mmio_io {
	void (*rd)(void *ctx, uint32_t off, void *buf, unsigned width);
	void (*wr)(void *ctx, uint32_t off, const void *buf, unsigned width);
	void *ctx;
};
int mmio_presence_io(const struct dnet_mmio_io *io, bool reset_check, const char *who,
			  const char *where, struct dnet_err *err);

/* Backend vtable entries shared by every mapped-window backend. */
void mmio_op_close(struct dnet_dev *dev);
int mmio_op_read(struct dnet_dev *dev, uint32_t off, void *buf, unsigned width,
		      struct dnet_err *err);
int mmio_op_write(struct dnet_dev *dev, uint32_t off, const void *buf, unsigned width,
		       struct dnet_err *err);
int mmio_op_wc_flush(struct dnet_dev *dev, struct dnet_err *err);
int mmio_op_cache_flush(struct dnet_dev *dev, uint32_t off, size_t len, struct dnet_err *err);
int mmio_op_prefetch(struct dnet_dev *dev, uint32_t off, size_t len, struct dnet_err *err);

#endif
