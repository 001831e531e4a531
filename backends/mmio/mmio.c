/* Volatile MMIO accessors (mmio.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <emmintrin.h>
#include <xmmintrin.h>
#define MMIO_X86 1
#endif

#include "dnet/map.h"
#include "dnet/regs.h"
#include "mmio/mmio.h"

/* One function per width for 64 and 128 bits, so that a test can read each
 * one's instructions in the built object (tests/shell/test_board_asm.sh). */
uint64_t mmio_read64(const volatile uint8_t *p)
{
	return *(const volatile uint64_t *)(const volatile void *)p;
}

void mmio_write64(volatile uint8_t *p, uint64_t v)
{
	*(volatile uint64_t *)(volatile void *)p = v;
}

void mmio_read128(const volatile uint8_t *p, void *buf)
{
#ifdef MMIO_X86
	/* One 128-bit load (the host reads LLCM 128 bits at a time, §5.1.3).
	 * asm volatile with a memory clobber, as rdma-core's mmio_read128:
	 * never split, hoisted out of a poll or moved across another device
	 * access. */
	__m128i v;
	__asm__ __volatile__("movdqa %1, %0"
			     : "=x"(v)
			     : "m"(*(const volatile __m128i *)(const volatile void *)p)
			     : "memory");
	_mm_storeu_si128((__m128i *)buf, v);
#else
	uint64_t v[2] = { *(const volatile uint64_t *)(const volatile void *)p,
			  *(const volatile uint64_t *)(const volatile void *)(p + 8) };
	memcpy(buf, v, 16);
#endif
}

void mmio_write128(volatile uint8_t *p, const void *buf)
{
#ifdef MMIO_X86
	/* One 128-bit store, kept in program order (see the read). */
	__m128i v = _mm_loadu_si128((const __m128i *)buf);
	__asm__ __volatile__("movdqa %1, %0"
			     : "=m"(*(volatile __m128i *)(volatile void *)p)
			     : "x"(v)
			     : "memory");
#else
	uint64_t v[2];
	memcpy(v, buf, 16);
	*(volatile uint64_t *)(volatile void *)p = v[0];
	*(volatile uint64_t *)(volatile void *)(p + 8) = v[1];
#endif
}

void mmio_read(const volatile uint8_t *p, void *buf, unsigned width)
{
	switch (width) {
	case 1: { uint8_t v = *p; memcpy(buf, &v, 1); break; }
	case 2: { uint16_t v = *(const volatile uint16_t *)(const volatile void *)p; memcpy(buf, &v, 2); break; }
	case 4: { uint32_t v = *(const volatile uint32_t *)(const volatile void *)p; memcpy(buf, &v, 4); break; }
	case 8: { uint64_t v = mmio_read64(p); memcpy(buf, &v, 8); break; }
	case 16: mmio_read128(p, buf); break;
	}
}

void mmio_write(volatile uint8_t *p, const void *buf, unsigned width)
{
	switch (width) {
	case 1: { uint8_t v; memcpy(&v, buf, 1); *p = v; break; }
	case 2: { uint16_t v; memcpy(&v, buf, 2); *(volatile uint16_t *)(volatile void *)p = v; break; }
	case 4: { uint32_t v; memcpy(&v, buf, 4); *(volatile uint32_t *)(volatile void *)p = v; break; }
	case 8: { uint64_t v; memcpy(&v, buf, 8); mmio_write64(p, v); break; }
	case 16: mmio_write128(p, buf); break;
	}
}

void mmio_wc_flush(void)
{
#ifdef MMIO_X86
	_mm_sfence();
#else
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

void mmio_cache_flush(const volatile uint8_t *p, size_t len)
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

void mmio_prefetch(const volatile uint8_t *p, size_t len)
{
#ifdef MMIO_X86
	uintptr_t a = (uintptr_t)p & ~(uintptr_t)63, end = (uintptr_t)p + len;
	for (; a < end; a += 64)
		_mm_prefetch((const char *)a, _MM_HINT_NTA);
#else
	(void)p; (void)len;
#endif
}

int mmio_openfd(const char *path, const char *who, const char *perm_hint, int *fdp,
		     struct stat *st, struct dnet_err *err)
{
	int fd = open(path, O_RDWR | O_SYNC | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		if (e == EACCES || e == EPERM)
			return dnet_seterr(err, DNET_EPERM, "%s: cannot open %s: %s (%s)", who, path,
					   strerror(e), perm_hint);
		return dnet_seterr(err, DNET_EIO, "%s: cannot open %s: %s", who, path, strerror(e));
	}
	if (fstat(fd, st) != 0) {
		int e = errno;
		close(fd);
		return dnet_seterr(err, DNET_EIO, "%s: cannot stat %s: %s", who, path, strerror(e));
	}
	*fdp = fd;
	return 0;
}

/* dev->priv for a window mapped at m (fd and wc_fd taken over). */
static int adopt(struct dnet_dev *dev, void *m, int fd, int wc_fd, uint64_t offset, const char *path,
		 const char *who, struct dnet_err *err)
{
	struct dnet_mmio *p = calloc(1, sizeof *p);
	if (!p) {
		munmap(m, DNET_MAP_SIZE);
		close(fd);
		if (wc_fd >= 0)
			close(wc_fd);
		return dnet_seterr(err, DNET_ENOMEM, "out of memory");
	}
	p->fd = fd;
	p->map = m;
	p->len = DNET_MAP_SIZE;
	p->wc_fd = wc_fd;
	p->who = who;
	snprintf(p->where, sizeof p->where, "0x%llx in %.70s", (unsigned long long)offset, path);
	dev->priv = p;
	dev->nodes = 1;
	return 0;
}

/* A regular file (a stand-in for the device) must hold what is mapped:
 * mapping past its end would fault on first access. */
static int holds(const struct stat *st, uint64_t need, const char *path, const char *who,
		 struct dnet_err *err)
{
	if (S_ISREG(st->st_mode) && (uint64_t)st->st_size < need)
		return dnet_seterr(err, DNET_ERANGE, "%s: %s is %lld bytes; it must hold 0x%llx bytes", who,
				   path, (long long)st->st_size, (unsigned long long)need);
	return 0;
}

unsigned mmio_phys_bits(const char *cpuinfo)
{
	FILE *f = fopen(cpuinfo, "r");
	char line[256];
	unsigned bits = 0;
	while (f && !bits && fgets(line, sizeof line, f)) {
		const char *p = strstr(line, "address sizes");
		if (p && (p = strchr(p, ':')) && sscanf(p + 1, "%u bits physical", &bits) != 1)
			bits = 0;
	}
	if (f)
		fclose(f);
	return bits <= 64 ? bits : 0;
}

static int mmap_failed(const char *who, const char *path, uint64_t offset, struct dnet_err *err)
{
	int e = errno;
	char einval[400] = "";
	if (e == EINVAL) {
		/* The kernel says why only in its log (dmesg): the two causes a
		 * page-aligned mapping of a device file meets. */
		unsigned bits = mmio_phys_bits("/proc/cpuinfo");
		char width[64] = "its physical address width";
		if (bits)
			snprintf(width, sizeof width, "its %u-bit physical address space (/proc/cpuinfo)", bits);
		snprintf(einval, sizeof einval,
			 " (the kernel refused the range: another mapping of it has a conflicting memory "
			 "type -- PAT keeps one type per physical range, dmesg says 'x86/PAT: ... "
			 "conflicting memory types'; for a BAR, a session with ,nowc beside one without -- "
			 "or the range lies past this CPU's %s)", width);
	}
	return dnet_seterr(err, e == EPERM || e == EACCES ? DNET_EPERM : DNET_EIO,
			   "%s: mmap of %s at 0x%llx failed: %s%s", who, path, (unsigned long long)offset,
			   strerror(e),
			   e == EPERM || e == EACCES
				   ? " (the file opened, so not a question of root: the kernel refused "
				     "the range -- CONFIG_STRICT_DEVMEM refuses System RAM and, with "
				     "CONFIG_IO_STRICT_DEVMEM, a range a driver has claimed; see "
				     "/proc/iomem and devmem in libdnet(3))" : einval);
}

int mmio_map(struct dnet_dev *dev, int fd, const struct stat *st, const char *path,
		  uint64_t offset, const char *who, struct dnet_err *err)
{
	int rc = holds(st, offset + DNET_MAP_SIZE, path, who, err);
	if (rc) {
		close(fd);
		return rc;
	}
	void *m = mmap(NULL, DNET_MAP_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)offset);
	if (m == MAP_FAILED) {
		rc = mmap_failed(who, path, offset, err);
		close(fd);
		return rc;
	}
	return adopt(dev, m, fd, -1, offset, path, who, err);
}

int mmio_map_split(struct dnet_dev *dev, int fd, const struct stat *st, const char *path,
			const char *wc_path, size_t wc_len, const char *who, struct dnet_err *err)
{
	int wfd = -1, rc;
	struct stat wst;
	uint8_t *base = MAP_FAILED;
	if ((rc = holds(st, DNET_MAP_SIZE, path, who, err)) ||
	    (rc = mmio_openfd(wc_path, who, "check the file's permissions", &wfd, &wst, err)) ||
	    (rc = holds(&wst, wc_len, wc_path, who, err)))
		goto fail;
	/* One address range for the window, then both files into it side by
	 * side (MAP_FIXED replaces the reservation). */
	base = mmap(NULL, DNET_MAP_SIZE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (base == MAP_FAILED) {
		rc = dnet_seterr(err, DNET_ENOMEM, "%s: no address range for the window: %s", who,
				 strerror(errno));
		goto fail;
	}
	if (mmap(base, wc_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, wfd, 0) == MAP_FAILED) {
		rc = mmap_failed(who, wc_path, 0, err);
		goto fail;
	}
	if (mmap(base + wc_len, DNET_MAP_SIZE - wc_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd,
		 (off_t)wc_len) == MAP_FAILED) {
		rc = mmap_failed(who, path, wc_len, err);
		goto fail;
	}
	return adopt(dev, base, fd, wfd, 0, path, who, err);
fail:
	if (base != MAP_FAILED)
		munmap(base, DNET_MAP_SIZE);
	close(fd);
	if (wfd >= 0)
		close(wfd);
	return rc;
}

static volatile uint8_t *at(struct dnet_mmio *p, uint32_t off)
{
	return p->map + off;
}

/* The presence check's accesses to the mapped window. */
static void map_rd(void *ctx, uint32_t off, void *buf, unsigned width)
{
	mmio_read((volatile uint8_t *)ctx + off, buf, width);
}

static void map_wr(void *ctx, uint32_t off, const void *buf, unsigned width)
{
	mmio_write((volatile uint8_t *)ctx + off, buf, width);
}

/* Decision D-PRESENCE-ECHO (mmio.h): reserved bits, then the LLCM echo
 * that a void fails, then Primitive Counter Reset that memory fails. */
int mmio_presence_io(const struct dnet_mmio_io *io, bool reset_check, const char *who,
			  const char *where, struct dnet_err *err)
{
	static const struct { uint32_t off; uint64_t valid; const char *name; const char *bits; } probe[] = {
		{ DNET_UREG_BASE + DNET_UR_CTL_STATUS, DNET_CS_VALID_MASK, "Controller Status", "63:20" },
		{ DNET_UREG_BASE + DNET_UR_PW_FLAG, 0xffffull, "Prefetch Window Flag", "63:16" },
	};
	for (size_t i = 0; i < sizeof probe / sizeof probe[0]; i++) {
		uint64_t v;
		io->rd(io->ctx, probe[i].off, &v, 8);
		if (v & ~probe[i].valid)
			return dnet_seterr(err, DNET_EIO,
					   "%s: no DIMMnet-2 answers at %s: %s (offset 0x%x) reads 0x%016" PRIx64
					   ", but its bits %s are reserved and read 0%s; nothing was written",
					   who, where, probe[i].name, probe[i].off, v, probe[i].bits,
					   v == ~0ull ? " (all ones: nothing decodes the address, or PCI "
							"memory decoding is off)" : "");
	}
	if (!reset_check)
		return 0;
	/* The LLCM keeps what the host writes (§4.5.3; the host accesses it
	 * 128 bits at a time, §5.1.3): a void (reads 0, drops writes) does
	 * not.  The last slot of WID 0's LLCM, its old value written back. */
	const uint32_t lw = DNET_LLCM_WID(0) + DNET_LLCM_SIZE - 16;
	const uint64_t echo[2] = { 0x5a5a0f0fc3a5e1d2ull, 0x0123a5a5f00fd00dull };
	uint64_t lold[2], lback[2];
	io->rd(io->ctx, lw, lold, 16);
	io->wr(io->ctx, lw, echo, 16);
	io->rd(io->ctx, lw, lback, 16);
	io->wr(io->ctx, lw, lold, 16);
	if (lback[0] != echo[0] || lback[1] != echo[1])
		return dnet_seterr(err, DNET_EIO,
				   "%s: nothing keeps what is written at %s: LLCM word 0x%x read 0x%016" PRIx64
				   "%016" PRIx64 " after 0x%016" PRIx64 "%016" PRIx64 " was written, and a "
				   "DIMMnet-2's LLCM keeps it (%s); old word written back, nothing else written "
				   "(,no-reset-check skips this)", who, where, lw, lback[1], lback[0], echo[1], echo[0],
				   lback[0] == 0 && lback[1] == 0 ? "reads 0, writes dropped: a void, nothing "
								    "decodes the address" : "not a DIMMnet-2");
	/* Primitive Counter Reset (write, any value clears the six counters)
	 * and the Primitive Counter (read) share 0x300 (§4.5.5.2, Tab. A.2):
	 * memory echoes the pattern, the controller reads 0 (or a count that
	 * completed since, never bits 63:60). */
	const uint64_t pattern = 0xd5e7c0de5a5a0023ull;
	const uint32_t pc = DNET_UREG_BASE + DNET_UR_PRIM_COUNTER;
	uint64_t old, back;
	io->rd(io->ctx, pc, &old, 8);
	io->wr(io->ctx, pc, &pattern, 8);
	io->rd(io->ctx, pc, &back, 8);
	if (back == pattern) {
		io->wr(io->ctx, pc, &old, 8);
		return dnet_seterr(err, DNET_EIO,
				   "%s: %s is plain memory, not a DIMMnet-2: 0x%x read back what was "
				   "written to Primitive Counter Reset (a DIMMnet-2 clears it); old "
				   "word restored, nothing else written (,no-reset-check skips this)",
				   who, where, pc);
	}
	return 0;
}

int mmio_presence(struct dnet_dev *dev, struct dnet_err *err)
{
	struct dnet_mmio *p = dev->priv;
	const struct dnet_mmio_io io = { map_rd, map_wr, (void *)(uintptr_t)p->map };
	int rc = mmio_presence_io(&io, p->reset_check, p->who, p->where, err);
	if (!rc)
		p->checked = true;
	return rc;
}

void mmio_op_close(struct dnet_dev *dev)
{
	struct dnet_mmio *p = dev->priv;
	munmap((void *)p->map, p->len); /* both files' mappings, when split */
	if (p->wc_fd >= 0)
		close(p->wc_fd);
	close(p->fd);
	free(p);
}

int mmio_op_read(struct dnet_dev *dev, uint32_t off, void *buf, unsigned width,
		      struct dnet_err *err)
{
	struct dnet_mmio *p = dev->priv;
	/* The one read that acts (Controller Reset, App. B) is checked as a
	 * write is: a void or memory must not be "reset". */
	if (!p->checked && off == DNET_SREG_BASE + DNET_SR_CTL_RESET) {
		int rc = mmio_presence(dev, err);
		if (rc)
			return rc;
	}
	mmio_read(at(p, off), buf, width);
	return 0;
}

int mmio_op_write(struct dnet_dev *dev, uint32_t off, const void *buf, unsigned width,
		       struct dnet_err *err)
{
	struct dnet_mmio *p = dev->priv;
	if (!p->checked) {
		int rc = mmio_presence(dev, err);
		if (rc)
			return rc;
	}
	mmio_write(at(p, off), buf, width);
	return 0;
}

int mmio_op_wc_flush(struct dnet_dev *dev, struct dnet_err *err)
{
	(void)dev;
	(void)err;
	mmio_wc_flush();
	return 0;
}

int mmio_op_cache_flush(struct dnet_dev *dev, uint32_t off, size_t len, struct dnet_err *err)
{
	(void)err;
	mmio_cache_flush(at(dev->priv, off), len);
	return 0;
}

int mmio_op_prefetch(struct dnet_dev *dev, uint32_t off, size_t len, struct dnet_err *err)
{
	(void)err;
	mmio_prefetch(at(dev->priv, off), len);
	return 0;
}
