/* Helpers shared by the emulator tests (test_sim_*.c).  They drive the sim
 * only through the public libdnet API; expected values are computed in the
 * tests themselves. */
#ifndef TEST_SIM_UTIL_H_
#define TEST_SIM_UTIL_H_

#include <stdlib.h>
#include "dnet/dnet.h"
#include "harness.h"

static struct dnet_err E;

static inline struct dnet_dev *sim_open(const char *spec)
{
	struct dnet_dev *d = NULL;
	CHECK_OK(dnet_open(spec, &d, &E), &E);
	return d;
}

static inline uint64_t rd64(struct dnet_dev *d, uint32_t off)
{
	uint64_t v = 0;
	CHECK_OK(dnet_read64(d, off, &v, &E), &E);
	return v;
}

static inline void wr64(struct dnet_dev *d, uint32_t off, uint64_t v)
{
	CHECK_OK(dnet_write64(d, off, v, &E), &E);
}

static inline uint64_t ureg(struct dnet_dev *d, unsigned wid, uint32_t reg)
{
	return rd64(d, DNET_UREG_WID(wid) + reg);
}

static inline void ureg_w(struct dnet_dev *d, unsigned wid, uint32_t reg, uint64_t v)
{
	wr64(d, DNET_UREG_WID(wid) + reg, v);
}

static inline void sreg_w(struct dnet_dev *d, uint32_t reg, uint64_t v)
{
	wr64(d, DNET_SREG_BASE + reg, v);
}

/* node(d, n): d becomes node n's handle (D-NODE-HANDLE); dnet_close(d)
 * still closes the device. */
static inline struct dnet_dev *node_dev(struct dnet_dev *d, unsigned n)
{
	struct dnet_dev *h = dnet_node_dev(d, n, &E);
	CHECK_OK(h ? 0 : -E.code, &E);
	return h ? h : d;
}
#define node(d, n) ((d) = node_dev((d), (n)))

/* Issue a normal request, field by field. */
static inline void issue_x(struct dnet_dev *d, unsigned wid, unsigned sel, unsigned otype,
			   unsigned dtype, unsigned iter, unsigned dwid, unsigned dclid,
			   unsigned eflag, uint32_t size, uint32_t src, uint32_t dst,
			   const struct dnet_req_ex *ex)
{
	struct dnet_req r = { .otype = otype, .dtype = dtype, .iter = iter, .dwid = dwid,
			      .dclid = dclid, .eflag = eflag, .size = size, .srcoff = src,
			      .dstoff = dst };
	if (ex) {
		r.has_ex = true;
		r.ex = *ex;
	}
	struct dnet_cmd c;
	CHECK_OK(dnet_req_encode(&r, &c, &E), &E);
	CHECK_OK(dnet_issue(d, wid, sel ? DNET_CMD1 : DNET_CMD0, &c, 1000000, &E), &E);
}

static inline void issue(struct dnet_dev *d, unsigned wid, unsigned otype, uint32_t size,
			 uint32_t src, uint32_t dst)
{
	issue_x(d, wid, 0, otype, 0, 0, 0, 0, 0, size, src, dst, NULL);
}

static inline void issue_botf(struct dnet_dev *d, unsigned wid, unsigned ww, unsigned size)
{
	/* BOTF Lower by hand (Fig. 4.14): OTYPE [4:0], WW# [6:5], Size [41:32]. */
	struct dnet_cmd c = { .lower = 0x01u | (uint64_t)ww << 5 | (uint64_t)size << 32,
			      .lower_only = true };
	CHECK_OK(dnet_issue(d, wid, DNET_CMD0, &c, 1000000, &E), &E);
}

static inline void settle(struct dnet_dev *d)
{
	CHECK_OK(dnet_delay(d, 200000, &E), &E); /* 200 us of virtual time */
}

static inline void wait_eq(struct dnet_dev *d, uint32_t off, uint64_t mask, uint64_t val)
{
	CHECK_OK(dnet_wait(d, off, mask, DNET_COND_EQ, val, 10000000, NULL, &E), &E);
}

static inline void sd_put(struct dnet_dev *d, uint64_t addr, const void *b, size_t len)
{
	CHECK_OK(dnet_sodimm_access(d, addr, (void *)b, len, true, &E), &E);
}

static inline void sd_get(struct dnet_dev *d, uint64_t addr, void *b, size_t len)
{
	CHECK_OK(dnet_sodimm_access(d, addr, b, len, false, &E), &E);
}

static inline uint64_t stat(struct dnet_dev *d, const char *name)
{
	uint64_t v = 0;
	CHECK_OK(dnet_stat(d, name, &v, &E), &E);
	return v;
}

/* Byte pattern that differs per position and per seed. */
static inline void fill(uint8_t *b, size_t len, unsigned seed)
{
	for (size_t i = 0; i < len; i++)
		b[i] = (uint8_t)(i * 7 + seed * 31 + (i >> 8));
}

#define MB (1024ull * 1024)
#define CAP256 (256 * MB)

#endif
