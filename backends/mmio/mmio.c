/* Volatile MMIO accessors (mmio.h). */
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <emmintrin.h>
#include <xmmintrin.h>
#define MMIO_X86 1
#endif

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
