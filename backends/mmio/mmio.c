/* Volatile MMIO accessors (mmio.h). */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <emmintrin.h>
#include <xmmintrin.h>
#define MMIO_X86 1
#endif

#include "dnet/map.h"
#include "mmio/mmio.h"

void dnet_mmio_read(const volatile uint8_t *p, void *buf, unsigned width)
{
	switch (width) {
	case 1: { uint8_t v = *p; memcpy(buf, &v, 1); break; }
	case 2: { uint16_t v = *(const volatile uint16_t *)(const volatile void *)p; memcpy(buf, &v, 2); break; }
	case 4: { uint32_t v = *(const volatile uint32_t *)(const volatile void *)p; memcpy(buf, &v, 4); break; }
	case 8: { uint64_t v = *(const volatile uint64_t *)(const volatile void *)p; memcpy(buf, &v, 8); break; }
	case 16: {
#ifdef MMIO_X86
		/* One 128-bit access: the host reads LLCM 128 bits at a time (§5.1.3). */
		__m128i v = _mm_load_si128((const __m128i *)(const void *)p);
		_mm_storeu_si128((__m128i *)buf, v);
#else
		uint64_t v[2] = { *(const volatile uint64_t *)(const volatile void *)p,
				  *(const volatile uint64_t *)(const volatile void *)(p + 8) };
		memcpy(buf, v, 16);
#endif
		break;
	}
	}
}

void dnet_mmio_write(volatile uint8_t *p, const void *buf, unsigned width)
{
	switch (width) {
	case 1: { uint8_t v; memcpy(&v, buf, 1); *p = v; break; }
	case 2: { uint16_t v; memcpy(&v, buf, 2); *(volatile uint16_t *)(volatile void *)p = v; break; }
	case 4: { uint32_t v; memcpy(&v, buf, 4); *(volatile uint32_t *)(volatile void *)p = v; break; }
	case 8: { uint64_t v; memcpy(&v, buf, 8); *(volatile uint64_t *)(volatile void *)p = v; break; }
	case 16: {
#ifdef MMIO_X86
		__m128i v = _mm_loadu_si128((const __m128i *)buf);
		_mm_store_si128((__m128i *)(void *)p, v);
#else
		uint64_t v[2];
		memcpy(v, buf, 16);
		*(volatile uint64_t *)(volatile void *)p = v[0];
		*(volatile uint64_t *)(volatile void *)(p + 8) = v[1];
#endif
		break;
	}
	}
}

void dnet_mmio_wc_flush(void)
{
#ifdef MMIO_X86
	_mm_sfence();
#else
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

void dnet_mmio_cache_flush(const volatile uint8_t *p, size_t len)
{
#ifdef MMIO_X86
	uintptr_t a = (uintptr_t)p & ~(uintptr_t)63, end = (uintptr_t)p + len;
	for (; a < end; a += 64)
		_mm_clflush((const void *)a);
	_mm_mfence();
#else
	(void)p; (void)len;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

void dnet_mmio_prefetch(const volatile uint8_t *p, size_t len)
{
#ifdef MMIO_X86
	uintptr_t a = (uintptr_t)p & ~(uintptr_t)63, end = (uintptr_t)p + len;
	for (; a < end; a += 64)
		_mm_prefetch((const char *)a, _MM_HINT_NTA);
#else
	(void)p; (void)len;
#endif
}

int dnet_mmio_open(struct dnet_dev *dev, const char *path, uint64_t offset, const char *who,
		   const char *perm_hint, struct dnet_err *err)
{
	int fd = open(path, O_RDWR | O_SYNC | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		if (e == EACCES || e == EPERM)
			return dnet_seterr(err, DNET_EPERM, "%s: cannot open %s: %s (%s)", who, path,
					   strerror(e), perm_hint);
		return dnet_seterr(err, DNET_EIO, "%s: cannot open %s: %s", who, path, strerror(e));
	}
	/* Mapping past a regular file's end would fault on first access. */
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    (uint64_t)st.st_size < offset + DNET_MAP_SIZE) {
		close(fd);
		return dnet_seterr(err, DNET_ERANGE, "%s: %s is %lld bytes; it must hold 0x%llx + 0x%x bytes",
				   who, path, (long long)st.st_size, (unsigned long long)offset,
				   DNET_MAP_SIZE);
	}
	void *m = mmap(NULL, DNET_MAP_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)offset);
	if (m == MAP_FAILED) {
		int e = errno;
		close(fd);
		return dnet_seterr(err, e == EPERM || e == EACCES ? DNET_EPERM : DNET_EIO,
				   "%s: mmap of %s at 0x%llx failed: %s%s", who, path,
				   (unsigned long long)offset, strerror(e),
				   e == EPERM || e == EACCES
					   ? " (needs root; CONFIG_STRICT_DEVMEM may forbid the range)" : "");
	}
	struct dnet_mmio *p = calloc(1, sizeof *p);
	if (!p) {
		munmap(m, DNET_MAP_SIZE);
		close(fd);
		return dnet_seterr(err, DNET_ENOMEM, "out of memory");
	}
	p->fd = fd;
	p->map = m;
	p->len = DNET_MAP_SIZE;
	dev->priv = p;
	dev->nodes = 1;
	return 0;
}

void dnet_mmio_op_close(struct dnet_dev *dev)
{
	struct dnet_mmio *p = dev->priv;
	munmap((void *)p->map, p->len);
	close(p->fd);
	free(p);
}

int dnet_mmio_op_read(struct dnet_dev *dev, uint32_t off, void *buf, unsigned width,
		      struct dnet_err *err)
{
	(void)err;
	dnet_mmio_read(((struct dnet_mmio *)dev->priv)->map + off, buf, width);
	return 0;
}

int dnet_mmio_op_write(struct dnet_dev *dev, uint32_t off, const void *buf, unsigned width,
		       struct dnet_err *err)
{
	(void)err;
	dnet_mmio_write(((struct dnet_mmio *)dev->priv)->map + off, buf, width);
	return 0;
}

int dnet_mmio_op_wc_flush(struct dnet_dev *dev, struct dnet_err *err)
{
	(void)dev;
	(void)err;
	dnet_mmio_wc_flush();
	return 0;
}

int dnet_mmio_op_cache_flush(struct dnet_dev *dev, uint32_t off, size_t len, struct dnet_err *err)
{
	(void)err;
	dnet_mmio_cache_flush(((struct dnet_mmio *)dev->priv)->map + off, len);
	return 0;
}

int dnet_mmio_op_prefetch(struct dnet_dev *dev, uint32_t off, size_t len, struct dnet_err *err)
{
	(void)err;
	dnet_mmio_prefetch(((struct dnet_mmio *)dev->priv)->map + off, len);
	return 0;
}
