/* sim: the two on-board SO-DIMMs (thesis §4.5.6, Fig. 4.16).
 *
 * SO-DIMM address space: bytes 0x0-0x7 on SO-DIMM1, 0x8-0xF on SO-DIMM2 and
 * so on (address bit 3 selects the module).  WID w owns [w*C, (w+1)*C) where
 * C is the per-module capacity (decision in sim_capacity, node.c, OQ-6).
 *
 * Storage is sparse: the SO-DIMM address space is kept in 128 KB chunks
 * (64 KB of each module), in a two-level table, mapped on the first
 * non-zero write.  Untouched memory reads as 0.  As with one table per
 * module, the statistic sodimm_bytes counts 64 KB per module chunk that
 * has been written a non-zero byte (bits 0/1 of the table entry), and
 * writing zeros to untouched memory allocates nothing.  The chunks are
 * anonymous mappings; a 4 KB page is touched only once something is stored
 * to it, and zeros for a page never stored to are not stored (it reads as
 * zeros): memory stays proportional to the pages holding data.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "sim/sim.h"

#define MODBITS ((uintptr_t)3u)

static struct sim_chunk *slot(const struct sim_sdimm *m, uint64_t pc)
{
	uint64_t i1 = pc >> SIM_L2_SHIFT;
	if (i1 >= SIM_L1_ENTRIES || !m->l1[i1])
		return NULL;
	return &m->l1[i1][pc & ((1u << SIM_L2_SHIFT) - 1)];
}

static struct sim_chunk *slot_alloc(struct sim_sdimm *m, uint64_t pc)
{
	uint64_t i1 = pc >> SIM_L2_SHIFT;
	if (i1 >= SIM_L1_ENTRIES)
		return NULL;
	if (!m->l1[i1] && !(m->l1[i1] = calloc(1u << SIM_L2_SHIFT, sizeof(struct sim_chunk))))
		return NULL;
	return &m->l1[i1][pc & ((1u << SIM_L2_SHIFT) - 1)];
}

static uint8_t *chunk_map(void)
{
	void *c = mmap(NULL, SIM_PCHUNK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (c == MAP_FAILED)
		return NULL;
#ifdef MADV_NOHUGEPAGE
	/* sparse: a written byte maps one page, never a huge page */
	(void)madvise(c, SIM_PCHUNK, MADV_NOHUGEPAGE);
#endif
	return c;
}

/* Which modules (bit 0: SO-DIMM1, bit 1: SO-DIMM2) get a non-zero byte
 * from buf at SO-DIMM address addr; only the modules in want are looked for. */
static unsigned nonzero_mods(uint64_t addr, const uint8_t *in, size_t len, unsigned want)
{
	unsigned got = 0;
	/* byte by byte up to a 16-byte boundary (one 8-byte piece per module) */
	while (len && got != want && (addr & 15u)) {
		if (*in)
			got |= (1u << ((addr >> 3) & 1u)) & want;
		in++;
		addr++;
		len--;
	}
	/* then 512 bytes at a time, as words: even words SO-DIMM1, odd SO-DIMM2 */
	while (len >= 16 && got != want) {
		size_t k = len < 512 ? len & ~(size_t)15 : 512, i = 0;
		uint64_t acc[2] = { 0, 0 };
		for (; i + 64 <= k; i += 64) {
			uint64_t w[8];
			memcpy(w, in + i, 64);
			acc[0] |= w[0] | w[2] | w[4] | w[6];
			acc[1] |= w[1] | w[3] | w[5] | w[7];
		}
		for (; i < k; i += 16) {
			uint64_t w[2];
			memcpy(w, in + i, 16);
			acc[0] |= w[0];
			acc[1] |= w[1];
		}
		got |= ((acc[0] != 0) | (unsigned)(acc[1] != 0) << 1) & want;
		in += k;
		addr += k;
		len -= k;
	}
	for (; len && got != want; in++, addr++, len--)
		if (*in)
			got |= (1u << ((addr >> 3) & 1u)) & want;
	return got;
}

static bool all_zero(const uint8_t *p, size_t len)
{
	uint64_t acc = 0;
	for (; len >= 64; p += 64, len -= 64) {
		uint64_t w[8];
		memcpy(w, p, 64);
		if (w[0] | w[1] | w[2] | w[3] | w[4] | w[5] | w[6] | w[7])
			return false;
	}
	for (; len; p++, len--)
		acc |= *p;
	return !acc;
}

/* Pages [o, o + len) of a chunk as a mask. */
static uint32_t page_mask(size_t o, size_t len)
{
	unsigned first = (unsigned)(o / SIM_SD_PAGE), last = (unsigned)((o + len - 1) / SIM_SD_PAGE);
	return (uint32_t)((2ull << last) - (1ull << first));
}

/* Copy [o, o + len) of chunk c out; pages never stored to read as zeros
 * without being touched. */
static void chunk_read(const struct sim_chunk *c, size_t o, uint8_t *out, size_t len)
{
	const uint8_t *mem = (const uint8_t *)(c->mem & ~MODBITS);
	uint32_t want = page_mask(o, len);
	if (mem && (c->pages & want) == want) {
		memcpy(out, mem + o, len);
		return;
	}
	while (len) {
		size_t k = SIM_SD_PAGE - (o & (SIM_SD_PAGE - 1));
		if (k > len)
			k = len;
		if (mem && (c->pages >> (o / SIM_SD_PAGE) & 1u))
			memcpy(out, mem + o, k);
		else
			memset(out, 0, k);
		out += k;
		o += k;
		len -= k;
	}
}

/* Store [o, o + len) of chunk c; zeros for a page never stored to need
 * not be stored (it reads as zeros). */
static void chunk_write(struct sim_chunk *c, size_t o, const uint8_t *in, size_t len)
{
	uint8_t *mem = (uint8_t *)(c->mem & ~MODBITS);
	uint32_t want = page_mask(o, len);
	if ((c->pages & want) == want) {
		memcpy(mem + o, in, len);
		return;
	}
	while (len) {
		size_t k = SIM_SD_PAGE - (o & (SIM_SD_PAGE - 1));
		if (k > len)
			k = len;
		uint32_t bit = 1u << (o / SIM_SD_PAGE);
		if ((c->pages & bit) || !all_zero(in, k)) {
			memcpy(mem + o, in, k);
			c->pages |= bit;
		}
		in += k;
		o += k;
		len -= k;
	}
}

static void sd_read(const struct sim_node *n, uint64_t addr, void *buf, size_t len)
{
	uint8_t *out = buf;
	while (len) {
		size_t o = (size_t)(addr & (SIM_PCHUNK - 1)), piece = SIM_PCHUNK - o;
		if (piece > len)
			piece = len;
		const struct sim_chunk *c = slot(&n->sd, addr >> SIM_PCHUNK_SHIFT);
		if (c && c->pages)
			chunk_read(c, o, out, piece);
		else
			memset(out, 0, piece);
		out += piece;
		addr += piece;
		len -= piece;
	}
}

static const uint8_t *sd_ptr(const struct sim_node *n, uint64_t addr, size_t *len)
{
	size_t o = (size_t)(addr & (SIM_PCHUNK - 1));
	if (*len > SIM_PCHUNK - o)
		*len = SIM_PCHUNK - o;
	const struct sim_chunk *c = slot(&n->sd, addr >> SIM_PCHUNK_SHIFT);
	if (!c || !*len || (c->pages & page_mask(o, *len)) != page_mask(o, *len))
		return NULL;
	return (const uint8_t *)(c->mem & ~MODBITS) + o;
}

static int sd_write(struct sim_node *n, uint64_t addr, const void *buf, size_t len)
{
	const uint8_t *in = buf;
	struct sim_sdimm *m = &n->sd;
	/* packets in flight still reading this SO-DIMM take their bytes first */
	if (n->lazy_head)
		sim_sd_fill_all(n);
	while (len) {
		size_t o = (size_t)(addr & (SIM_PCHUNK - 1)), piece = SIM_PCHUNK - o;
		if (piece > len)
			piece = len;
		uint64_t pc = addr >> SIM_PCHUNK_SHIFT;
		struct sim_chunk *c = slot(m, pc);
		uintptr_t v = c ? c->mem : 0;
		if ((v & MODBITS) != MODBITS) {
			/* A module gets its chunk with its first non-zero byte. */
			unsigned nz = nonzero_mods(addr, in, piece, (unsigned)(~v & MODBITS));
			if (nz) {
				if (!v) {
					uint8_t *mem;
					if ((!c && !(c = slot_alloc(m, pc))) || !(mem = chunk_map()))
						return -1;
					v = (uintptr_t)mem;
				}
				v |= nz;
				c->mem = v;
				m->chunks += (nz & 1u) + (nz >> 1);
			}
		}
		if (v & ~MODBITS)
			chunk_write(c, o, in, piece);
		in += piece;
		addr += piece;
		len -= piece;
	}
	return 0;
}

/* ---- the pending copy (host speed only; struct sim_sd_copy, sim.h) ----
 * Every function below that reads or writes a node's SO-DIMM, or tells
 * how much of it is stored, makes the pending copy first: none sees it. */
void sim_sd_copy_flush(struct sim *s)
{
	struct sim_sd_copy *c = &s->sdcopy;
	uint64_t len = c->len;
	c->len = 0;
	for (uint64_t pos = 0; pos < len;) {
		size_t k = (size_t)(len - pos);
		const uint8_t *from = sd_ptr(c->src, c->src_addr + pos, &k);
		uint8_t bounce[2048];
		if (!from) { /* pages never stored to: zeros */
			if (k > sizeof bounce)
				k = sizeof bounce;
			sd_read(c->src, c->src_addr + pos, bounce, k);
			from = bounce;
		}
		if (sd_write(c->dst, c->dst_addr + pos, from, k))
			c->dst->st[ST_ALLOC_FAIL]++;
		pos += k;
	}
}

void sim_sd_copy_add(struct sim_node *dst, uint64_t dst_addr, struct sim_node *src, uint64_t src_addr,
		     uint64_t len)
{
	struct sim_sd_copy *c = &dst->sim->sdcopy;
	if (c->len && (c->dst != dst || c->src != src || c->dst_addr + c->len != dst_addr ||
		       c->src_addr + c->len != src_addr))
		sim_sd_copy_flush(dst->sim);
	if (!c->len) {
		c->dst = dst;
		c->src = src;
		c->dst_addr = dst_addr;
		c->src_addr = src_addr;
	}
	c->len += len;
}

static inline void sd_sync(const struct sim_node *n)
{
	if (n->sim->sdcopy.len)
		sim_sd_copy_flush(n->sim);
}

void sim_sd_phys_read(const struct sim_node *n, uint64_t addr, void *buf, size_t len)
{
	sd_sync(n);
	sd_read(n, addr, buf, len);
}

const uint8_t *sim_sd_phys_ptr(const struct sim_node *n, uint64_t addr, size_t *len)
{
	sd_sync(n);
	return sd_ptr(n, addr, len);
}

int sim_sd_phys_write(struct sim_node *n, uint64_t addr, const void *buf, size_t len)
{
	sd_sync(n);
	return sd_write(n, addr, buf, len);
}

void sim_sd_free(struct sim_node *n)
{
	struct sim_sdimm *m = &n->sd;
	if (n->sim->sdcopy.len && n->sim->sdcopy.dst == n)
		n->sim->sdcopy.len = 0; /* the node is going: nothing reads it again */
	sd_sync(n);
	for (unsigned i = 0; i < SIM_L1_ENTRIES; i++) {
		if (!m->l1[i])
			continue;
		for (unsigned j = 0; j < (1u << SIM_L2_SHIFT); j++)
			if (m->l1[i][j].mem & ~MODBITS)
				munmap((void *)(m->l1[i][j].mem & ~MODBITS), SIM_PCHUNK);
		free(m->l1[i]);
		m->l1[i] = NULL;
	}
	m->chunks = 0;
}

uint64_t sim_sd_bytes(const struct sim_node *n)
{
	sd_sync(n);
	return n->sd.chunks * SIM_MCHUNK;
}

/* Until SO-DIMM Init has completed the SO-DIMMs are not usable through the
 * windows (App. B): reads give 0, writes are dropped and counted. [I] */
void sim_sd_area_read(struct sim_node *n, unsigned wid, uint64_t off, void *buf, size_t len)
{
	if (!n->sdimm_ready) {
		memset(buf, 0, len);
		n->st[ST_SDIMM_UNINIT]++;
		return;
	}
	sim_sd_phys_read(n, (uint64_t)wid * sim_capacity(n) + off, buf, len);
}

void sim_sd_area_write(struct sim_node *n, unsigned wid, uint64_t off, const void *buf, size_t len)
{
	if (!n->sdimm_ready) {
		n->st[ST_SDIMM_UNINIT]++;
		return;
	}
	if (sim_sd_phys_write(n, (uint64_t)wid * sim_capacity(n) + off, buf, len))
		n->st[ST_ALLOC_FAIL]++;
}

uint32_t sim_sd_area_read32(struct sim_node *n, unsigned wid, uint64_t off)
{
	uint8_t b[4];
	sim_sd_area_read(n, wid, off, b, 4);
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* Decision D-SIM-SD-CONTEND (§6.3.1): the Prefetch Unit's reads and the
 * Write Unit's writes share a node's SO-DIMMs.  A stream of `lines` lines
 * taking dur ns from now, while the other engine is busy until
 * other_until, costs sd_collide_ns once and sd_contend_8b_ps more for each
 * line that overlaps (rounded to the nanosecond once, for the stream). */
uint64_t sim_sd_contend(const struct sim *s, uint64_t dur, uint64_t other_until, uint64_t lines)
{
	if (other_until <= s->now || !dur || !lines)
		return 0;
	uint64_t ov = other_until - s->now;
	if (ov > dur)
		ov = dur;
	uint64_t ov_lines = (lines * ov + dur - 1) / dur;
	return s->t.sd_collide_ns + (ov_lines * s->t.sd_contend_8b_ps + 500) / 1000;
}
