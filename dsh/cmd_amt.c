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
	uint64_t word = dnet_amt_word((unsigned)idx, (unsigned)wid, dnet_clid_to_lid((uint16_t)clid));
	struct dsh_amt_map *nm = realloc(d->amt_maps, (d->amt_nmaps + 1) * sizeof *d->amt_maps);
	if (!nm)
		return dsh_error(d, "out of memory");
	d->amt_maps = nm;
	if (dsh_reg_write(d, r, word) < 0)
		return -1;
	unsigned k = 0;
	while (k < d->amt_nmaps && !(d->amt_maps[k].clid == clid && d->amt_maps[k].wid == wid))
		k++;
	if (k == d->amt_nmaps)
		d->amt_nmaps++;
	d->amt_maps[k] = (struct dsh_amt_map){ (unsigned)clid, (unsigned)wid, (unsigned)idx };
	cJSON *o = out_res(d);
	jnum(o, "clid", clid);
	jnum(o, "wid", wid);
	jnum(o, "index", idx);
	jhex(o, "word", word);
	out_text(d, "amt: sender CLID %" PRIu64 " WID %" PRIu64 " -> entry %" PRIu64 " (LLCM 0x%03" PRIx64
		 "), word 0x%" PRIx64 "\n", clid, wid, idx, idx * 8, word);
	return 0;
}

static void amt_list(struct dsh *d)
{
	cJSON *o = out_res(d), *arr = o ? cJSON_CreateArray() : NULL;
	if (!d->amt_nmaps)
		out_text(d, "amt: no Address Table entry written by this shell (the register is write-only)\n");
	for (unsigned k = 0; k < d->amt_nmaps; k++) {
		out_text(d, "sender CLID %u WID %u -> entry %u (LLCM 0x%03x)\n", d->amt_maps[k].clid, d->amt_maps[k].wid,
			 d->amt_maps[k].index, d->amt_maps[k].index * 8);
		if (arr) {
			cJSON *x = cJSON_CreateObject();
			jnum(x, "clid", d->amt_maps[k].clid);
			jnum(x, "wid", d->amt_maps[k].wid);
			jnum(x, "index", d->amt_maps[k].index);
			cJSON_AddItemToArray(arr, x);
		}
	}
	if (arr)
		cJSON_AddItemToObject(o, "map", arr);
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
	uint32_t off = DNET_LLCM_WID(d->wid) + 8u * (uint32_t)idx;
	struct dnet_err e = { 0 };
	if (!kv[0].given && !kv[1].given) {
		uint64_t w;
		if (dnet_read64(d->dev, off, &w, &e) < 0)
			return dsh_derr(d, &e);
		uint32_t head = (uint32_t)w, tail = (uint32_t)(w >> 32);
		uint64_t units = 0;
		bool known = dsh_shadow_of(d, "ivs_area_size", &units) && units;
		cJSON *o = out_res(d);
		jnum(o, "index", idx);
		jhex(o, "head", head);
		jhex(o, "tail", tail);
		out_text(d, "amt[%" PRIu64 "] LLCM 0x%03" PRIx64 ": Head 0x%08" PRIx32 " Tail 0x%08" PRIx32, idx, idx * 8,
			 head, tail);
		if (known) {
			/* Bytes in use in the S-aligned ring (D-SIM-IPUSH-AREA). */
			uint64_t size = units * 4096u;
			uint64_t used = ((uint64_t)tail + size - head) % size;
			jnum(o, "ring_size", size);
			jnum(o, "used", used);
			out_text(d, " (ring 0x%08" PRIx64 "-0x%08" PRIx64 ", %" PRIu64 " of %" PRIu64 " bytes used)",
				 (uint64_t)head / size * size, (uint64_t)head / size * size + size - 1, used, size);
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
	cJSON *o = out_res(d);
	jnum(o, "index", idx);
	if (kv[0].given)
		jhex(o, "head", kv[0].val);
	if (kv[1].given)
		jhex(o, "tail", kv[1].val);
	return 0;
}

void dsh_amt_free(struct dsh *d)
{
	free(d->amt_maps);
	d->amt_maps = NULL;
	d->amt_nmaps = 0;
}
