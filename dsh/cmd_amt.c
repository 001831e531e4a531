/* dsh: amt -- the AMT (chapter 7, App. B): the Address Table, which maps a
 * sender {CLID, WID} to an AMT entry (System Register, write-only: dsh
 * lists what it wrote), and the AMT entries themselves, LLCM words with
 * Head [31:0] and Tail [63:32] (decision D-SIM-AMT-ENTRY).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "dsh.h"

static int amt_map(struct dsh *d, struct dsh_args *a)
{
	uint64_t clid, wid, idx;
	if (a->argc != 5)
		return dsh_error(d, "usage: amt map CLID WID INDEX");
	if (dsh_num(d, a, 2, 0xfff, "sender CLID", &clid) < 0 || dsh_num(d, a, 3, 1, "sender WID", &wid) < 0 ||
	    dsh_num(d, a, 4, 0xfff, "AMT entry (LLCM word)", &idx) < 0)
		return -1;
	if (dsh_unicast_clid(d, (unsigned)clid, "sender CLID") < 0)
		return -1;
	const struct dnet_reg *r = dnet_reg_by_name("amt");
	if (!r)
		return dsh_error(d, "register table has no 'amt'");
	uint16_t lid = dnet_clid_to_lid(dnet_dev_clid_reading(d->dev), (uint16_t)clid);
	uint64_t word = dnet_amt_word((unsigned)idx, (unsigned)wid, lid);
	struct dsh_amt_map *nm = realloc(d->msg.amt_maps, (d->msg.amt_nmaps + 1) * sizeof *d->msg.amt_maps);
	if (!nm)
		return dsh_error(d, "out of memory");
	d->msg.amt_maps = nm;
	if (dsh_reg_write(d, r, word) < 0)
		return -1;
	unsigned k = 0;
	while (k < d->msg.amt_nmaps && !(d->msg.amt_maps[k].clid == clid && d->msg.amt_maps[k].wid == wid))
		k++;
	if (k == d->msg.amt_nmaps)
		d->msg.amt_nmaps++;
	d->msg.amt_maps[k] = (struct dsh_amt_map){ (unsigned)clid, (unsigned)wid, (unsigned)idx };
	out_u64(d, "clid", "amt: sender CLID %" PRIu64, clid);
	out_u64(d, "wid", " WID %" PRIu64, wid);
	out_u64(d, "index", " -> entry %" PRIu64, idx);
	out_u64(d, NULL, " (LLCM 0x%03" PRIx64 ")", idx * 8);
	out_hex(d, "word", ", word 0x%" PRIx64 "\n", word);
	return 0;
}

static void amt_list(struct dsh *d)
{
	if (!d->msg.amt_nmaps)
		out_text(d, "amt: no Address Table entry written by this shell (the register is write-only)\n");
	out_arr_open(d, "map");
	for (unsigned k = 0; k < d->msg.amt_nmaps; k++) {
		const struct dsh_amt_map *m = &d->msg.amt_maps[k];
		out_obj_open(d, NULL);
		out_u64(d, "clid", "sender CLID %" PRIu64, m->clid);
		out_u64(d, "wid", " WID %" PRIu64, m->wid);
		out_u64(d, "index", " -> entry %" PRIu64, m->index);
		out_u64(d, NULL, " (LLCM 0x%03" PRIx64 ")\n", m->index * 8u);
		out_close(d);
	}
	out_close(d);
}

int cmd_amt(struct dsh *d, struct dsh_args *a)
{
	if (a->argc == 1) {
		amt_list(d);
		return 0;
	}
	if (!strcmp(a->argv[1], "map"))
		return amt_map(d, a);
	bool force = dsh_take_word(a, 2, "force");
	uint64_t idx;
	if (dsh_num(d, a, 1, 0xfff, "AMT entry (LLCM word)", &idx) < 0)
		return -1;
	struct dsh_kv kv[] = {
		{ .key = "head", .max = 0xffffffffu, .what = "Head" },
		{ .key = "tail", .max = 0xffffffffu, .what = "Tail" },
	};
	if (dsh_kv_parse(d, a, 2, a->argc, kv, 2) < 0)
		return -1;
	uint32_t off = DNET_LLCM_WID(d->opts.wid) + 8u * (uint32_t)idx;
	struct dnet_err e = { 0 };
	if (!kv[0].given && !kv[1].given) {
		uint64_t w;
		if (dnet_read64(d->dev, off, &w, &e) < 0)
			return dsh_derr(d, &e);
		uint32_t head = (uint32_t)w, tail = (uint32_t)(w >> 32);
		uint64_t units = 0;
		bool known = dsh_shadow_of(d, "ivs_area_size", &units) && units;
		out_u64(d, "index", "amt[%" PRIu64 "]", idx);
		out_u64(d, NULL, " LLCM 0x%03" PRIx64, idx * 8);
		out_hex(d, "head", ": Head 0x%08" PRIx64, head);
		out_hex(d, "tail", " Tail 0x%08" PRIx64, tail);
		if (known) {
			/* Bytes in use in the S-aligned ring (D-SIM-IPUSH-AREA). */
			uint64_t size = units * 4096u;
			uint64_t used = ((uint64_t)tail + size - head) % size;
			out_text(d, " (ring 0x%08" PRIx64 "-0x%08" PRIx64 ", ", (uint64_t)head / size * size,
				 (uint64_t)head / size * size + size - 1);
			out_u64(d, "used", "%" PRIu64, used);
			out_u64(d, "ring_size", " of %" PRIu64 " bytes used)", size);
		}
		out_text(d, "\n");
		dsh_set_last(d, w);
		return 0;
	}
	if (!force && dsh_sync_area_guard(d, (uint32_t)idx * 8u, 8) < 0)
		return -1;
	/* Head and Tail are the two halves of the word: write only those given. */
	if ((kv[0].given && dnet_write32(d->dev, off, (uint32_t)kv[0].val, &e) < 0) ||
	    (kv[1].given && dnet_write32(d->dev, off + 4u, (uint32_t)kv[1].val, &e) < 0))
		return dsh_derr(d, &e);
	out_u64(d, "index", NULL, idx);
	if (kv[0].given)
		out_hex(d, "head", NULL, kv[0].val);
	if (kv[1].given)
		out_hex(d, "tail", NULL, kv[1].val);
	return 0;
}

void dsh_amt_free(struct dsh *d)
{
	free(d->msg.amt_maps);
	d->msg.amt_maps = NULL;
	d->msg.amt_nmaps = 0;
}
