/* Encoders written from the spec tables (docs/device.md,
 * 4.3, 6.2, 6.5), bit by bit, not with libdnet's codecs, and small drivers
 * of the host interface, shared by the emulator tests (test_sim*.c). */
#ifndef TEST_SPEC_ENC_H_
#define TEST_SPEC_ENC_H_

#include "test_sim_util.h"

/* ---- encoders written from the spec tables ---- */

/* Command Lower (Tab. 4.4, D-LOWER-BITS): OTYPE [4:0], DTYPE [7:5],
 * Iteration [15:8], DWID [16], DCLID [29:18], eflag [30], Size [63:32]. */
static inline uint64_t LO(unsigned ot, unsigned dt, unsigned it, unsigned dwid, unsigned dclid,
		   unsigned ef, uint32_t size)
{
	return (uint64_t)ot | (uint64_t)dt << 5 | (uint64_t)it << 8 | (uint64_t)dwid << 16 |
	       (uint64_t)dclid << 18 | (uint64_t)ef << 30 | (uint64_t)size << 32;
}
/* Command Upper: SRCOff [31:0], DSTOff [63:32]. */
static inline uint64_t UP(uint32_t src, uint32_t dst) { return (uint64_t)src | (uint64_t)dst << 32; }
/* Command Ex: OTYPE [4:0], DTYPE [7:5], Iteration [15:8], Size/Stride/List [63:32]. */
static inline uint64_t EX(unsigned ot, unsigned dt, unsigned it, uint32_t s)
{
	return (uint64_t)ot | (uint64_t)dt << 5 | (uint64_t)it << 8 | (uint64_t)s << 32;
}
/* Packet 1st DW (6.2 best reading). */
static inline uint64_t H1(unsigned size, unsigned type, unsigned pgid, unsigned dwid, unsigned swid,
		   unsigned dlid, unsigned dt, unsigned it, unsigned rf, unsigned ef, unsigned hf,
		   unsigned lf)
{
	return (uint64_t)size | (uint64_t)type << 12 | (uint64_t)pgid << 20 |
	       (uint64_t)dwid << 28 | (uint64_t)swid << 29 | (uint64_t)dlid << 32 |
	       (uint64_t)dt << 48 | (uint64_t)it << 51 | (uint64_t)rf << 59 |
	       (uint64_t)ef << 60 | (uint64_t)hf << 61 | (uint64_t)lf << 62;
}
/* Receive status Lower (Tab. 4.9 in the Tab. 4.4 layout). */
static inline uint64_t STLO(unsigned ot, unsigned dt, unsigned it, unsigned swid, unsigned sclid,
		     uint32_t size)
{
	return LO(ot, dt, it, swid, sclid, 1, size);
}

#define UR(w, r) (DNET_UREG_WID(w) + (r))
#define CS_OK 0x12u /* SO-DIMM initialised + status ring empty */

static inline uint64_t now(struct dnet_dev *d)
{
	uint64_t t = 0;
	CHECK_OK(dnet_now(d, &t, &E), &E);
	return t;
}

/* Issue with the flow control of §5.2.2: wait for bits 0 and 2 = 0, then
 * Upper, (Ex), Lower. */
static inline void kick(struct dnet_dev *d, unsigned wid, unsigned sel, uint64_t lower, uint64_t upper)
{
	wait_eq(d, UR(wid, DNET_UR_CTL_STATUS), 5, 0);
	wr64(d, UR(wid, sel ? DNET_UR_CMD1_UPPER : DNET_UR_CMD0_UPPER), upper);
	wr64(d, UR(wid, sel ? DNET_UR_CMD1_LOWER : DNET_UR_CMD0_LOWER), lower);
}

static inline void kick_botf(struct dnet_dev *d, unsigned wid, unsigned ww, unsigned size)
{
	wait_eq(d, UR(wid, DNET_UR_CTL_STATUS), 5, 0);
	wr64(d, UR(wid, DNET_UR_CMD0_LOWER), 0x01u | (uint64_t)ww << 5 | (uint64_t)size << 32);
}

static inline void ww_put(struct dnet_dev *d, unsigned wid, uint32_t off, const void *b, size_t len)
{
	CHECK_OK(dnet_write_block(d, DNET_WW_WID(wid) + off, b, len, &E), &E);
}

static inline void pw_get(struct dnet_dev *d, unsigned wid, uint32_t off, void *b, size_t len)
{
	CHECK_OK(dnet_read_block(d, DNET_PW_WID(wid) + off, b, len, &E), &E);
}

static inline unsigned prim(struct dnet_dev *d, unsigned wid, unsigned fam)
{
	return (unsigned)(ureg(d, wid, DNET_UR_PRIM_COUNTER) >> (10 * fam)) & 0x3ffu;
}

static inline void le32(uint8_t *b, uint32_t v)
{
	for (unsigned i = 0; i < 4; i++)
		b[i] = (uint8_t)(v >> (8 * i));
}

/* ---- the receive-status ring: a status
 * at an LLCM offset, and the Tail (Status Next Write Address) ---- */

static inline uint64_t st_lo_at(struct dnet_dev *d, unsigned wid, uint32_t off)
{
	return rd64(d, DNET_LLCM_WID(wid) + off);
}

static inline uint64_t st_hi_at(struct dnet_dev *d, unsigned wid, uint32_t off)
{
	return rd64(d, DNET_LLCM_WID(wid) + off + 8);
}

static inline uint32_t tail(struct dnet_dev *d, unsigned wid)
{
	return (uint32_t)ureg(d, wid, DNET_UR_STATUS_ADDR) & 0x7fffu;
}

static inline void status_at(struct dnet_dev *d, unsigned wid, uint32_t llcm_off, uint64_t *lo,
			     uint64_t *hi)
{
	*lo = rd64(d, DNET_LLCM_WID(wid) + llcm_off);
	*hi = rd64(d, DNET_LLCM_WID(wid) + llcm_off + 8);
}

#endif
