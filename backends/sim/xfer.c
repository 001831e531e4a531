/* sim: access patterns of the vector primitives (docs/device.md;
 * thesis §4.6.3-§4.6.6, Fig. 4.17-4.22).
 *
 * A pattern maps a byte position p of a transfer's contiguous data stream
 * onto an offset in a process area:
 *   contiguous  base + p
 *   stride      base + (p / E) * Stride + p % E        (Stride = start-to-start, [R])
 *   list        base + idx[p / E] + p % E, idx[] = 32-bit offsets in the
 *               process's SO-DIMM area at List (Fig. 4.19, 4.22)
 */
#include <string.h>
#include "sim/sim.h"

void sim_pat_from_req(struct sim_pat *p, unsigned variant, uint32_t base, unsigned dtype,
		  unsigned iter, uint32_t size_stride_list, uint64_t total)
{
	memset(p, 0, sizeof *p);
	p->base = base;
	p->esize = dnet_dtype_bytes(dtype);
	p->total = total;
	(void)iter;
	switch (variant) {
	case DNET_VAR_STRIDE:
		p->kind = SIM_PAT_STRIDE;
		p->stride = size_stride_list;
		break;
	case DNET_VAR_LIST:
		p->kind = SIM_PAT_LIST;
		p->list = size_stride_list;
		break;
	default:
		p->kind = SIM_PAT_CONTIG;
		break;
	}
}

uint64_t sim_pat_run(const struct sim_pat *p, uint64_t pos)
{
	uint64_t left = p->total > pos ? p->total - pos : 0;
	if (p->kind == SIM_PAT_CONTIG)
		return left;
	uint64_t r = p->esize - pos % p->esize;
	return r < left ? r : left;
}

/* UINT64_MAX when the index array entry itself lies outside the area. */
uint64_t sim_pat_addr(struct sim_node *n, unsigned wid, const struct sim_pat *p, uint64_t pos)
{
	switch (p->kind) {
	case SIM_PAT_STRIDE:
		return p->base + (pos / p->esize) * p->stride + pos % p->esize;
	case SIM_PAT_LIST: {
		uint64_t at = (uint64_t)p->list + 4 * (pos / p->esize);
		if (at + 4 > sim_capacity(n))
			return UINT64_MAX;
		return p->base + sim_sd_area_read32(n, wid, at) + pos % p->esize;
	}
	default:
		return p->base + pos;
	}
}

bool sim_pat_gather(struct sim_node *n, unsigned wid, const struct sim_pat *p, uint64_t pos,
		uint8_t *buf, uint64_t len)
{
	uint64_t cap = sim_capacity(n);
	bool ok = true;
	while (len) {
		uint64_t run = sim_pat_run(p, pos);
		if (run == 0)
			break;
		if (run > len)
			run = len;
		uint64_t a = sim_pat_addr(n, wid, p, pos);
		uint64_t in = a >= cap ? 0 : (cap - a < run ? cap - a : run);
		if (in)
			sim_sd_area_read(n, wid, a, buf, in);
		if (in < run) {
			memset(buf + in, 0, run - in);
			ok = false;
		}
		buf += run;
		pos += run;
		len -= run;
	}
	if (len)
		memset(buf, 0, len);
	return ok;
}

/* Write [pos, pos+len) of the stream at pattern positions into a target of
 * WID wid: its SO-DIMM area, its Prefetch Window area (setting the line
 * flags written) or its LLCM.  Contiguous data is cut at the end of the
 * target; an element is written only if it fits whole (elements are never
 * split, OQ-10/OQ-25).  Returns false if anything was cut. */
bool sim_pat_scatter(struct sim_node *n, unsigned wid, enum sim_target tg, const struct sim_pat *p,
		 uint64_t pos, const uint8_t *buf, uint64_t len)
{
	struct sim_wid *w = &n->w[wid];
	uint64_t lim = tg == SIM_TGT_SDIMM ? sim_capacity(n)
		     : tg == SIM_TGT_PW ? DNET_WINAREA_SIZE : DNET_LLCM_SIZE;
	bool ok = true;
	while (len) {
		uint64_t run = sim_pat_run(p, pos);
		if (run == 0)
			break;
		if (run > len)
			run = len;
		uint64_t a = sim_pat_addr(n, wid, p, pos);
		uint64_t in;
		if (p->kind == SIM_PAT_CONTIG) {
			in = a >= lim ? 0 : (lim - a < run ? lim - a : run);
		} else {
			uint64_t estart = a == UINT64_MAX ? a : a - pos % p->esize;
			in = (a != UINT64_MAX && estart + p->esize <= lim) ? run : 0;
		}
		if (in) {
			if (tg == SIM_TGT_SDIMM) {
				sim_sd_area_write(n, wid, a, buf, in);
			} else if (tg == SIM_TGT_PW) {
				memcpy(w->pw + a, buf, in);
				sim_pw_flags_written(w, (uint32_t)a, (uint32_t)in);
			} else {
				memcpy(w->llcm + a, buf, in);
			}
		}
		if (in < run)
			ok = false;
		buf += run;
		pos += run;
		len -= run;
	}
	return ok && len == 0;
}
