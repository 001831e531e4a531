/* Fuzz target: the emulator driven through its host interface only, as a
 * buggy or hostile program (or dnetd client) could drive it.  The input is
 * a list of operations -- 64-bit stores and loads anywhere in the map
 * (registers, windows, LLCM, LH Buffer: any primitive can be issued), block
 * stores, node switches and short delays so the controller runs.  Errors
 * returned are fine; a crash, a sanitizer report or a hang is a finding. */
#include <string.h>
#include "dnet/dnet.h"
#include "fuzz.h"

const char fuzz_name[] = "fuzz_sim";
const unsigned long fuzz_default_iters = 3000;

static uint64_t take(const uint8_t **p, const uint8_t *end, unsigned n)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n && *p < end; i++, (*p)++)
		v |= (uint64_t)**p << (8 * i);
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dnet_dev *d = NULL;
	struct dnet_err e = { 0 };
	if (dnet_open("sim:nodes=2", &d, &e) < 0)
		return 0;
	const uint8_t *p = data, *end = data + size;
	for (unsigned ops = 0; p < end && ops < 256; ops++) {
		unsigned op = (unsigned)take(&p, end, 1);
		uint32_t off = (uint32_t)(take(&p, end, 3) % DNET_MAP_SIZE) & ~7u;
		uint64_t v = take(&p, end, 8), r;
		switch (op % 6) {
		case 0: case 1: /* stores dominate: they issue primitives */
			dnet_write64(d, off, v, &e);
			break;
		case 2:
			dnet_read64(d, off, &r, &e);
			break;
		case 3: {
			uint8_t blk[64];
			memset(blk, (int)v, sizeof blk);
			memcpy(blk, &v, sizeof v);
			dnet_write_block(d, off, blk, 8 + (unsigned)(v % 8) * 8, &e);
			break;
		}
		case 4:
			{ /* the other node's handle (D-NODE-HANDLE) */
				struct dnet_dev *h = dnet_node_dev(d, 1 + (unsigned)(v & 1), &e);
				if (h)
					d = h;
			}
			break;
		default:
			dnet_delay(d, v % 20000, &e); /* at most 20 us of virtual time */
			break;
		}
	}
	dnet_delay(d, 50000, &e);
	dnet_close(d);
	return 0;
}

/* Seeds: the issue sequence of a VS, an RVS and a BOTF. */
const struct fuzz_seed *fuzz_seeds(size_t *n)
{
	static uint8_t s[3][60];
	static struct fuzz_seed seeds[3];
	static const struct { uint32_t off; uint64_t v; } ops[3][4] = {
		/* VS 0x200 bytes WW 0x400 -> SO-DIMM 0x600: Upper, then Lower (kick). */
		{ { 0x400, 0x1122334455667788ull }, { 0x40010, 0x60000000400ull }, { 0x40000, 0x20000000008ull },
		  { 0, 0 } },
		/* RVS to node 2 */
		{ { 0x0, 0x55ull }, { 0x40010, 0x2000000000000ull }, { 0x40000, 0x800080014ull }, { 0, 0 } },
		/* BOTF of a 24-byte RVS image (lflag 1) into LLCM 0x100 of node 2 */
		{ { 0x0, 0x4000000200014018ull }, { 0x8, 0x10000000000ull }, { 0x10, 0xabcdull },
		  { 0x40000, 0x1800000001ull } },
	};
	for (unsigned k = 0; k < 3; k++) {
		uint8_t *q = s[k];
		for (unsigned i = 0; i < 4; i++) {
			*q++ = 0; /* store */
			for (unsigned b = 0; b < 3; b++)
				*q++ = (uint8_t)(ops[k][i].off >> (8 * b));
			for (unsigned b = 0; b < 8; b++)
				*q++ = (uint8_t)(ops[k][i].v >> (8 * b));
		}
		*q++ = 5; /* delay */
		for (unsigned b = 0; b < 11; b++)
			*q++ = 0xff;
		seeds[k] = (struct fuzz_seed){ s[k], (size_t)(q - s[k]) };
	}
	*n = 3;
	return seeds;
}
