/* sim: the two on-board SO-DIMMs (hardware.md 5.10; thesis §4.5.6, Fig. 4.16).
 *
 * SO-DIMM address space: bytes 0x0-0x7 on SO-DIMM1, 0x8-0xF on SO-DIMM2 and
 * so on (address bit 3 selects the module).  WID w owns [w*C, (w+1)*C) where
 * C is the per-module capacity (decision in sim_capacity, node.c, OQ-6).
 *
 * Storage is sparse: each module is a two-level table of 64 KB chunks that
 * are allocated on first write; untouched memory reads as 0.
 */
#include <stdlib.h>
#include <string.h>
#include "sim/sim.h"

static uint8_t *chunk(const struct sim_module *m, uint64_t moff)
{
	uint64_t ci = moff >> SIM_CHUNK_SHIFT;
	uint64_t i1 = ci >> SIM_L2_SHIFT;
	if (i1 >= SIM_L1_ENTRIES || !m->l1[i1])
		return NULL;
	return m->l1[i1][ci & ((1u << SIM_L2_SHIFT) - 1)];
}

static uint8_t *chunk_alloc(struct sim_module *m, uint64_t moff)
{
	uint64_t ci = moff >> SIM_CHUNK_SHIFT;
	uint64_t i1 = ci >> SIM_L2_SHIFT;
	if (i1 >= SIM_L1_ENTRIES)
		return NULL;
	if (!m->l1[i1] && !(m->l1[i1] = calloc(1u << SIM_L2_SHIFT, sizeof(uint8_t *))))
		return NULL;
	uint8_t **c = &m->l1[i1][ci & ((1u << SIM_L2_SHIFT) - 1)];
	if (!*c) {
		if (!(*c = calloc(1, SIM_CHUNK)))
			return NULL;
		m->chunks++;
	}
	return *c;
}

/* Physical SO-DIMM address -> (module, module offset): 8-byte interleave. */
static void split(uint64_t addr, unsigned *mod, uint64_t *moff)
{
	*mod = (unsigned)(addr >> 3) & 1u;
	*moff = (addr >> 4) << 3 | (addr & 7u);
}

void sd_phys_read(const struct sim_node *n, uint64_t addr, void *buf, size_t len)
{
	uint8_t *out = buf;
	while (len) {
		size_t piece = 8 - (addr & 7u);
		if (piece > len)
			piece = len;
		unsigned mod;
		uint64_t moff;
		split(addr, &mod, &moff);
		const uint8_t *c = chunk(&n->mod[mod], moff);
		if (c)
			memcpy(out, c + (moff & (SIM_CHUNK - 1)), piece);
		else
			memset(out, 0, piece);
		out += piece;
		addr += piece;
		len -= piece;
	}
}

int sd_phys_write(struct sim_node *n, uint64_t addr, const void *buf, size_t len)
{
	const uint8_t *in = buf;
	while (len) {
		size_t piece = 8 - (addr & 7u);
		if (piece > len)
			piece = len;
		unsigned mod;
		uint64_t moff;
		split(addr, &mod, &moff);
		uint8_t *c = chunk(&n->mod[mod], moff);
		if (!c) {
			/* Writing zeros into untouched memory needs no chunk. */
			size_t z = 0;
			while (z < piece && in[z] == 0)
				z++;
			if (z < piece && !(c = chunk_alloc(&n->mod[mod], moff)))
				return -1;
		}
		if (c)
			memcpy(c + (moff & (SIM_CHUNK - 1)), in, piece);
		in += piece;
		addr += piece;
		len -= piece;
	}
	return 0;
}

void sd_free(struct sim_node *n)
{
	for (unsigned m = 0; m < 2; m++) {
		for (unsigned i = 0; i < SIM_L1_ENTRIES; i++) {
			if (!n->mod[m].l1[i])
				continue;
			for (unsigned j = 0; j < (1u << SIM_L2_SHIFT); j++)
				free(n->mod[m].l1[i][j]);
			free(n->mod[m].l1[i]);
			n->mod[m].l1[i] = NULL;
		}
		n->mod[m].chunks = 0;
	}
}

uint64_t sd_bytes(const struct sim_node *n)
{
	return (n->mod[0].chunks + n->mod[1].chunks) * SIM_CHUNK;
}

/* Until SO-DIMM Init has completed the SO-DIMMs are not usable through the
 * windows (App. B): reads give 0, writes are dropped and counted. [I] */
void sd_area_read(struct sim_node *n, unsigned wid, uint64_t off, void *buf, size_t len)
{
	if (!n->sdimm_ready) {
		memset(buf, 0, len);
		n->st[ST_SDIMM_UNINIT]++;
		return;
	}
	sd_phys_read(n, (uint64_t)wid * sim_capacity(n) + off, buf, len);
}

void sd_area_write(struct sim_node *n, unsigned wid, uint64_t off, const void *buf, size_t len)
{
	if (!n->sdimm_ready) {
		n->st[ST_SDIMM_UNINIT]++;
		return;
	}
	if (sd_phys_write(n, (uint64_t)wid * sim_capacity(n) + off, buf, len))
		n->st[ST_ALLOC_FAIL]++;
}

uint32_t sd_area_read32(struct sim_node *n, unsigned wid, uint64_t off)
{
	uint8_t b[4];
	sd_area_read(n, wid, off, b, 4);
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* Decision D-SIM-SD-CONTEND (§6.3.1): the Prefetch Unit's reads and the
 * Write Unit's writes share a node's SO-DIMMs.  A stream of `lines` lines
 * taking dur ns from now, while the other engine is busy until
 * other_until, costs sd_contend_8b_ns more for each line that overlaps. */
uint64_t sd_contend(const struct sim *s, uint64_t dur, uint64_t other_until, uint64_t lines)
{
	if (other_until <= s->now || !dur || !lines)
		return 0;
	uint64_t ov = other_until - s->now;
	if (ov > dur)
		ov = dur;
	return (lines * ov + dur - 1) / dur * s->t.sd_contend_8b_ns;
}
