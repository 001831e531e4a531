/* The presence check of the mapped backends (backends/mmio/mmio.c
 * mmio_presence_io, decision D-PRESENCE-ECHO) on models of what can sit
 * behind a window, with no kernel: a DIMMnet-2 controller (LLCM keeps what
 * is written, Primitive Counter Reset clears the counter it shares 0x300
 * with), plain memory (reads back everything), a void (reads 0, drops
 * writes) and all ones.  Only the controller passes; memory gets its old
 * words back. */
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dnet/dnet.h"
#include "mmio/mmio.h"
#include "harness.h"

/* msg matches the extended regular expression re. */
#define CHECK_MATCH(msg, re) do { \
	regex_t rx_; \
	bool ok_ = regcomp(&rx_, (re), REG_EXTENDED | REG_NOSUB) == 0 && regexec(&rx_, (msg), 0, NULL, 0) == 0; \
	regfree(&rx_); \
	if (ok_) { t_pass++; } else { t_fail++; \
		fprintf(stderr, "%s:%d: %s: [%s] does not match /%s/\n", __FILE__, __LINE__, t_name, (msg), (re)); } \
} while (0)

enum kind { CONTROLLER, MEMORY, VOID, ONES, LLCM_VOID };

struct model {
	enum kind k;
	uint8_t *mem; /* DNET_MAP_SIZE bytes: what memory (or the LLCM, the counters) holds */
	unsigned writes;
};

static bool is_pc(uint32_t off) { return off == DNET_UREG_BASE + DNET_UR_PRIM_COUNTER; }
static bool in_llcm(uint32_t off) { return off >= DNET_LLCM_BASE && off < DNET_LLCM_BASE + 2 * DNET_LLCM_SIZE; }

static void rd(void *ctx, uint32_t off, void *buf, unsigned width)
{
	struct model *m = ctx;
	switch (m->k) {
	case VOID: memset(buf, 0, width); return;
	case ONES: memset(buf, 0xff, width); return;
	case LLCM_VOID: /* registers like a controller's, but the LLCM reads 0 */
		if (in_llcm(off)) {
			memset(buf, 0, width);
			return;
		}
		break;
	default: break;
	}
	memcpy(buf, m->mem + off, width);
}

static void wr(void *ctx, uint32_t off, const void *buf, unsigned width)
{
	struct model *m = ctx;
	m->writes++;
	if (m->k == VOID || m->k == ONES)
		return;
	if ((m->k == CONTROLLER || m->k == LLCM_VOID) && is_pc(off)) {
		memset(m->mem + off, 0, 8); /* any value clears the counters (Tab. A.2) */
		return;
	}
	memcpy(m->mem + off, buf, width);
}

static int check(enum kind k, uint8_t *mem, bool reset_check, struct dnet_err *e)
{
	struct model m = { k, mem, 0 };
	const struct dnet_mmio_io io = { rd, wr, &m };
	dnet_clearerr(e);
	return mmio_presence_io(&io, reset_check, "devmem", "0x0 in model", e);
}

static void presence_models(void)
{
	struct dnet_err e;
	uint8_t *mem = calloc(1, DNET_MAP_SIZE);
	if (!mem) {
		t_fail++;
		return;
	}
	/* The controller, with a count in WID 0's Primitive Counter. */
	uint64_t count = 0x100001;
	memcpy(mem + DNET_UREG_BASE + DNET_UR_PRIM_COUNTER, &count, 8);
	CHECK_OK(check(CONTROLLER, mem, true, &e), &e);
	/* Plain memory: refused as memory; the old words back. */
	memset(mem, 0, DNET_MAP_SIZE);
	uint64_t old_pc = 0x5, old_llcm[2] = { 0x1111, 0x2222 };
	uint32_t lw = DNET_LLCM_WID(0) + DNET_LLCM_SIZE - 16;
	memcpy(mem + DNET_UREG_BASE + DNET_UR_PRIM_COUNTER, &old_pc, 8);
	memcpy(mem + lw, old_llcm, 16);
	CHECK_EQ(check(MEMORY, mem, true, &e), -DNET_EIO);
	CHECK_MATCH(e.msg, "is plain memory, not a DIMMnet-2");
	uint64_t v[2];
	memcpy(v, mem + DNET_UREG_BASE + DNET_UR_PRIM_COUNTER, 8);
	CHECK_EQ(v[0], old_pc);
	memcpy(v, mem + lw, 16);
	CHECK_EQ(v[0], old_llcm[0]);
	CHECK_EQ(v[1], old_llcm[1]);
	/* A void (reads 0, writes dropped): reserved bits read 0, the counter
	 * reads 0 "like a controller" -- the LLCM echo refuses it. */
	CHECK_EQ(check(VOID, mem, true, &e), -DNET_EIO);
	CHECK_MATCH(e.msg, "nothing keeps what is written at 0x0 in model: LLCM word 0x27ff0 read 0x0+ after");
	CHECK_MATCH(e.msg, "a void, nothing decodes the address");
	/* Registers like a controller's but an LLCM that does not keep data. */
	memset(mem, 0, DNET_MAP_SIZE);
	CHECK_EQ(check(LLCM_VOID, mem, true, &e), -DNET_EIO);
	CHECK_MATCH(e.msg, "LLCM word 0x27ff0");
	/* All ones: the reserved bits, before anything is written. */
	struct model m1 = { ONES, mem, 0 };
	const struct dnet_mmio_io io1 = { rd, wr, &m1 };
	CHECK_EQ(mmio_presence_io(&io1, true, "pci", "BAR0", &e), -DNET_EIO);
	CHECK_MATCH(e.msg, "no DIMMnet-2 answers at BAR0: Controller Status .*\\(all ones");
	CHECK_EQ(m1.writes, 0u);
	/* Without the reset check (stand-in files, ,no-reset-check): reserved
	 * bits only, nothing written. */
	struct model m0 = { VOID, mem, 0 };
	const struct dnet_mmio_io io0 = { rd, wr, &m0 };
	CHECK_OK(mmio_presence_io(&io0, false, "devmem", "file", &e), &e);
	CHECK_EQ(m0.writes, 0u);
	free(mem);
}

/* The physical address width from a /proc/cpuinfo-format file (the
 * devmem check of a base past it, and mmap's EINVAL hint). */
static void phys_bits(void)
{
	char path[] = "/tmp/dnet-cpuinfo-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		t_fail++;
		return;
	}
	fputs("processor\t: 0\nflags\t\t: fpu pat\naddress sizes\t: 40 bits physical, 48 bits virtual\n\n"
	      "processor\t: 1\naddress sizes\t: 40 bits physical, 48 bits virtual\n", f);
	fclose(f);
	CHECK_EQ(mmio_phys_bits(path), 40);
	f = fopen(path, "w");
	fputs("processor\t: 0\n", f); /* not said (another architecture) */
	fclose(f);
	CHECK_EQ(mmio_phys_bits(path), 0);
	unlink(path);
	CHECK_EQ(mmio_phys_bits(path), 0); /* no file */
}

int main(void)
{
	RUN(presence_models);
	RUN(phys_bits);
	return t_summary("test_mmio");
}
