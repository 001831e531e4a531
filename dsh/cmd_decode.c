/* dsh: decoders -- receive-status ring and LH Buffer entries on the device,
 * and decode of words given on the command line.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "dsh.h"

/* ---- receive status and LH Buffer decoders ---- */

/* One entry of the receive-status ring: an object of the array open. */
static void print_status(struct dsh *d, uint32_t off, uint64_t lo, uint64_t hi)
{
	struct dnet_status s;
	dnet_status_decode(lo, hi, &s);
	const struct dnet_otype_info *oi = dnet_otype_info(s.otype);
	out_obj_open(d, NULL);
	out_hex(d, "offset", "status @0x%04" PRIx64, off);
	out_hex(d, "lower", NULL, lo);
	out_hex(d, "upper", NULL, hi);
	out_str(d, "type", ": %-5s", oi ? oi->name : "?");
	out_u64(d, "otype", NULL, s.otype);
	out_u64(d, "sclid", " from clid %" PRIu64, s.sclid);
	out_u64(d, "swid", " wid %" PRIu64, s.swid);
	out_u64(d, "size", " size %" PRIu64, s.size);
	out_hex(d, "addr", " addr 0x%" PRIx64, s.addr);
	out_u64(d, "dtype", " dtype %" PRIu64, s.dtype);
	out_u64(d, "iter", " iter %" PRIu64, s.iter);
	out_u64(d, "eflag", " eflag %" PRIu64, s.eflag);
	out_hex(d, "aux", " aux 0x%" PRIx64 "\n", s.aux);
	out_close(d);
}

static int read_words(struct dsh *d, enum dnet_region reg, uint32_t off, uint64_t *w, unsigned n)
{
	uint32_t addr;
	struct dnet_err e = { 0 };
	if (dnet_region_addr(reg, d->opts.wid, off, n * 8, &addr, &e) < 0)
		return dsh_derr(d, &e);
	if (dnet_read_block(d->dev, addr, w, n * 8, &e) < 0)
		return dsh_derr(d, &e);
	return 0;
}

static bool shadow_of(struct dsh *d, const char *name, uint64_t *v)
{
	return dsh_shadow_of(d, name, v);
}

int cmd_status(struct dsh *d, struct dsh_args *a)
{
	if (a->argc > 2)
		return dsh_error(d, "usage: status [OFFSET | ring]");
	if (a->argc == 2 && strcmp(a->argv[1], "ring") != 0) {
		out_arr_open(d, "entries");
		uint64_t off;
		if (dsh_num(d, a, 1, DNET_LLCM_SIZE - DNET_STATUS_SIZE, "LLCM offset", &off) < 0)
			return -1;
		if (off % DNET_STATUS_SIZE)
			return dsh_error(d, "argument 1: offset 0x%" PRIx64 " is not a multiple of 16", off);
		uint64_t w[2];
		if (read_words(d, DNET_REG_LLCM, (uint32_t)off, w, 2) < 0)
			return -1;
		print_status(d, (uint32_t)off, w[0], w[1]);
		out_close(d);
		return 0;
	}
	uint64_t init = 0, code = 0, head, tail;
	bool have_init = shadow_of(d, "status_initial_addr", &init);
	shadow_of(d, "status_area_size", &code);
	uint32_t size = dnet_status_area_bytes(code);
	const struct dnet_reg *tr = dnet_reg_by_name("status_nwa");
	struct dnet_err e = { 0 };
	if (!tr)
		return dsh_error(d, "libdnet has no status_nwa register");
	if (dnet_reg_read(d->dev, d->opts.wid, tr, &tail, &e) < 0)
		return dsh_derr(d, &e);
	bool have_head = shadow_of(d, "status_nra", &head);
	if (!have_head)
		head = init;
	out_hex(d, "ring_start", "status ring: start 0x%04" PRIx64, init);
	out_text(d, "%s", have_init ? "" : " (not set by dsh: assumed)");
	out_u64(d, "ring_size", " size %" PRIu64, size);
	out_hex(d, "head", " head 0x%04" PRIx64, head);
	out_text(d, "%s", have_head ? "" : " (not set by dsh: ring start)");
	out_hex(d, "tail", " tail 0x%04" PRIx64 "\n", tail);
	out_arr_open(d, "entries");
	unsigned n = 0;
	uint64_t p = head;
	while (p != tail && n < 256) {
		if (p < init || p + DNET_STATUS_SIZE > init + size || p + DNET_STATUS_SIZE > DNET_LLCM_SIZE)
			return dsh_error(d, "head 0x%" PRIx64 " outside the ring [0x%" PRIx64 ", 0x%" PRIx64 ")",
					 p, init, init + size);
		uint64_t w[2];
		if (read_words(d, DNET_REG_LLCM, (uint32_t)p, w, 2) < 0)
			return -1;
		print_status(d, (uint32_t)p, w[0], w[1]);
		n++;
		p += DNET_STATUS_SIZE;
		if (p >= init + size)
			p = init;
	}
	out_close(d);
	out_text(d, "%u entr%s\n", n, n == 1 ? "y" : "ies");
	dsh_set_last(d, n);
	return 0;
}

/* One LH Buffer entry: an object of the array open. */
static void print_lh(struct dsh *d, unsigned idx, const uint64_t line[8])
{
	struct dnet_lh_entry e;
	dnet_lh_decode(line, &e);
	char data[DNET_LH_DATA_BYTES * 2 + 1];
	for (unsigned i = 0; i < DNET_LH_DATA_BYTES; i++)
		snprintf(data + 2 * i, 3, "%02x", e.data[i]);
	out_obj_open(d, NULL);
	out_u64(d, "index", "lh[%2" PRIu64 "]", idx);
	out_u64(d, NULL, " @0x%03" PRIx64, (uint64_t)idx * DNET_LHB_ENTRY);
	out_u64(d, "valid", ": valid %" PRIu64, e.valid);
	out_u64(d, "complete", " complete %" PRIu64, e.complete);
	out_u64(d, "context", " context %" PRIu64, e.context);
	out_u64(d, "rank", " rank %" PRIu64, e.rank);
	out_u64(d, "tag", " tag 0x%" PRIx64, e.tag);
	out_u64(d, "size", " size %" PRIu64, e.size);
	out_hex(d, "pointer", " pointer 0x%" PRIx64 "\n", e.pointer);
	out_str(d, "data", NULL, data);
	out_text(d, "        data %.32s %.32s %.32s\n", data, data + 32, data + 64);
	out_close(d);
}

int cmd_lh(struct dsh *d, struct dsh_args *a)
{
	if (a->argc > 2)
		return dsh_error(d, "usage: lh [INDEX | ring]");
	if (a->argc == 2 && strcmp(a->argv[1], "ring") != 0) {
		out_arr_open(d, "entries");
		uint64_t idx;
		if (dsh_num(d, a, 1, DNET_LHB_ENTRIES - 1, "entry index", &idx) < 0)
			return -1;
		uint64_t w[8];
		if (read_words(d, DNET_REG_LHB, (uint32_t)idx * DNET_LHB_ENTRY, w, 8) < 0)
			return -1;
		print_lh(d, (unsigned)idx, w);
		out_close(d);
		return 0;
	}
	uint64_t head = 0, tail;
	bool have_head = shadow_of(d, "evpbuf_nra", &head);
	const struct dnet_reg *tr = dnet_reg_by_name("evpbuf_nwa");
	struct dnet_err e = { 0 };
	if (!tr)
		return dsh_error(d, "libdnet has no evpbuf_nwa register");
	if (dnet_reg_read(d->dev, d->opts.wid, tr, &tail, &e) < 0)
		return dsh_derr(d, &e);
	out_hex(d, "head", "LH ring: head 0x%03" PRIx64, head);
	out_text(d, "%s", have_head ? "" : " (not set by dsh: 0)");
	out_hex(d, "tail", " tail 0x%03" PRIx64 "\n", tail);
	out_arr_open(d, "entries");
	unsigned n = 0;
	uint64_t p = head % DNET_LHB_SIZE;
	while (p != tail % DNET_LHB_SIZE && n < DNET_LHB_ENTRIES) {
		uint64_t w[8];
		if (read_words(d, DNET_REG_LHB, (uint32_t)p, w, 8) < 0)
			return -1;
		print_lh(d, (unsigned)(p / DNET_LHB_ENTRY), w);
		n++;
		p = (p + DNET_LHB_ENTRY) % DNET_LHB_SIZE;
	}
	out_close(d);
	out_text(d, "%u entr%s\n", n, n == 1 ? "y" : "ies");
	dsh_set_last(d, n);
	return 0;
}

/* ---- decode (no device access) ---- */

static int words(struct dsh *d, struct dsh_args *a, int from, uint64_t *w, int min, int max)
{
	int n = a->argc - from;
	if (n < min || n > max) {
		if (min == max)
			return dsh_error(d, "%s %s takes %d word%s, got %d", a->argv[0], a->argv[1], min,
					 min == 1 ? "" : "s", n);
		return dsh_error(d, "%s %s takes %d to %d words, got %d", a->argv[0], a->argv[1], min, max, n);
	}
	for (int i = 0; i < n; i++)
		if (dsh_num(d, a, from + i, UINT64_MAX, "word", &w[i]) < 0)
			return -1;
	return n;
}

static void print_req(struct dsh *d, const struct dnet_req *r)
{
	const struct dnet_otype_info *oi = dnet_otype_info(r->otype);
	out_str(d, "prim", "%s", oi ? oi->name : "?");
	out_u64(d, "otype", " (otype 0x%02" PRIx64 ")", r->otype);
	out_u64(d, "dtype", " dt=%" PRIu64, r->dtype);
	out_u64(d, "iter", " it=%" PRIu64, r->iter);
	out_u64(d, "dwid", " dw=%" PRIu64, r->dwid);
	out_u64(d, "dclid", " dl=%" PRIu64, r->dclid);
	out_u64(d, "eflag", " ef=%" PRIu64, r->eflag);
	out_hex(d, "size", " size=0x%" PRIx64, r->size);
	out_hex(d, "src", " src=0x%" PRIx64, r->srcoff);
	out_hex(d, "dst", " dst=0x%" PRIx64 "\n", r->dstoff);
	if (r->has_ex) {
		out_obj_open(d, "ex");
		out_u64(d, "otype", "  ex: otype 0x%02" PRIx64, r->ex.otype);
		out_u64(d, "dtype", " dt=%" PRIu64, r->ex.dtype);
		out_u64(d, "iter", " it=%" PRIu64, r->ex.iter);
		out_hex(d, "size", " size=0x%" PRIx64 "\n", r->ex.size);
		out_close(d);
	}
}

static void print_hdr(struct dsh *d, const struct dnet_pkt_hdr *h)
{
	const struct dnet_otype_info *oi = dnet_otype_info(h->type);
	out_str(d, "type_name", "%s", oi ? oi->name : "?");
	out_u64(d, "size", " size %" PRIu64, h->size);
	out_u64(d, "type", NULL, h->type);
	out_u64(d, "pgid", " pgid %" PRIu64, h->pgid);
	out_hex(d, "dlid", " dlid 0x%" PRIx64, h->dlid);
	out_u64(d, "dwid", " dwid %" PRIu64, h->dwid);
	out_u64(d, "swid", " swid %" PRIu64, h->swid);
	out_u64(d, "dtype", " dtype %" PRIu64, h->dtype);
	out_u64(d, "iter", " iter %" PRIu64, h->iter);
	out_u64(d, "rflag", " rflag %" PRIu64, h->rflag);
	out_u64(d, "eflag", " eflag %" PRIu64, h->eflag);
	out_u64(d, "hflag", " hflag %" PRIu64, h->hflag);
	out_u64(d, "lflag", " lflag %" PRIu64 "\n", h->lflag);
	out_hex(d, "src_or_init_dst", "  dw2: src/init_dst 0x%" PRIx64, h->src_or_init_dst);
	out_hex(d, "dstoff", " dstoff 0x%" PRIx64, h->dstoff);
	/* total: decimal in the text, hex in JSON (as before) */
	out_hex(d, "total", "  dw3: total %" PRIu64, h->total);
	out_hex(d, "stride_list", " stride/list 0x%" PRIx64, h->stride_list);
	out_u64(d, "lines", "  (%" PRIu64 " header lines)\n", dnet_hdr_lines(h));
}

int cmd_decode(struct dsh *d, struct dsh_args *a)
{
	if (a->argc < 3)
		return dsh_error(d, "usage: decode req|hdr|status|lh|REG WORD...");
	const char *what = a->argv[1];
	uint64_t w[8] = { 0 };
	int n;
	if (strcmp(what, "req") == 0) {
		if ((n = words(d, a, 2, w, 1, 3)) < 0)
			return -1;
		struct dnet_req r;
		dnet_req_decode(w[0], w[1], n == 3 ? &w[2] : NULL, &r);
		if (r.otype == DNET_OT_BOTF) {
			struct dnet_botf_req b;
			dnet_botf_decode(w[0], &b);
			out_str(d, "prim", "%s", "BOTF");
			out_u64(d, "ww", " ww=%" PRIu64, b.ww);
			out_u64(d, "size", " size=%" PRIu64 "\n", b.size);
			return 0;
		}
		print_req(d, &r);
		return 0;
	}
	if (strcmp(what, "hdr") == 0) {
		if ((n = words(d, a, 2, w, 1, 4)) < 0)
			return -1;
		struct dnet_pkt_hdr h;
		memset(&h, 0, sizeof(h));
		if (n == 1)
			dnet_hdr_decode_dw1(w[0], &h);
		else
			dnet_hdr_decode(w, (unsigned)n, &h);
		print_hdr(d, &h);
		return 0;
	}
	if (strcmp(what, "status") == 0) {
		if ((n = words(d, a, 2, w, 2, 2)) < 0)
			return -1;
		out_arr_open(d, "entries");
		print_status(d, 0, w[0], w[1]);
		out_close(d);
		return 0;
	}
	if (strcmp(what, "lh") == 0) {
		if ((n = words(d, a, 2, w, 8, 8)) < 0)
			return -1;
		out_arr_open(d, "entries");
		print_lh(d, 0, w);
		out_close(d);
		return 0;
	}
	const struct dnet_reg *r;
	const struct dnet_field *f;
	if (dsh_parse_regspec(d, what, &r, &f) < 0)
		return dsh_error(d, "argument 1: '%s' is not req, hdr, status, lh or a register", what);
	if ((n = words(d, a, 2, w, 1, 1)) < 0)
		return -1;
	out_str(d, "register", "%s", r->name);
	out_hex(d, "value", " = 0x%016" PRIx64 "\n", w[0]);
	out_fields(d, r, w[0], f);
	if (r->block == DNET_BLK_USER && r->offset == DNET_UR_MODULE_STATE && (r->access & DNET_ACC_R))
		dsh_modstate_listing(d, w[0]);
	if (r->block == DNET_BLK_USER && r->offset == DNET_UR_PRIM_COUNTER && (r->access & DNET_ACC_R))
		dsh_counter_listing(d, w[0]);
	return 0;
}
