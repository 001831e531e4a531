/* dsh: decoders -- receive-status ring and LH Buffer entries on the device,
 * and decode of words given on the command line.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "dsh.h"

/* ---- receive status and LH Buffer decoders ---- */

static void print_status(struct dsh *d, cJSON *o, uint32_t off, uint64_t lo, uint64_t hi)
{
	(void)d;
	struct dnet_status s;
	dnet_status_decode(lo, hi, &s);
	const struct dnet_otype_info *oi = dnet_otype_info(s.otype);
	const char *tn = oi ? oi->name : "?";
	if (o) {
		jhex(o, "offset", off);
		jhex(o, "lower", lo);
		jhex(o, "upper", hi);
		jstr(o, "type", tn);
		jnum(o, "otype", s.otype);
		jnum(o, "dtype", s.dtype);
		jnum(o, "iter", s.iter);
		jnum(o, "swid", s.swid);
		jnum(o, "sclid", s.sclid);
		jnum(o, "eflag", s.eflag);
		jnum(o, "size", s.size);
		jhex(o, "addr", s.addr);
		jhex(o, "aux", s.aux);
		return;
	}
	printf("status @0x%04" PRIx32 ": %-5s from clid %u wid %u size %" PRIu32 " addr 0x%" PRIx32
	       " dtype %u iter %u eflag %u aux 0x%" PRIx32 "\n",
	       off, tn, s.sclid, s.swid, s.size, s.addr, s.dtype, s.iter, s.eflag, s.aux);
}

static int read_words(struct dsh *d, enum dnet_region reg, uint32_t off, uint64_t *w, unsigned n)
{
	uint32_t addr;
	struct dnet_err e = { 0 };
	if (dnet_region_addr(reg, d->wid, off, n * 8, &addr, &e) < 0)
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
	cJSON *arr = d->json ? cJSON_AddArrayToObject(d->res, "entries") : NULL;
	if (a->argc == 2 && strcmp(a->argv[1], "ring") != 0) {
		uint64_t off;
		if (dsh_num(d, a, 1, DNET_LLCM_SIZE - DNET_STATUS_SIZE, "LLCM offset", &off) < 0)
			return -1;
		if (off % DNET_STATUS_SIZE)
			return dsh_error(d, "argument 1: offset 0x%" PRIx64 " is not a multiple of 16", off);
		uint64_t w[2];
		if (read_words(d, DNET_REG_LLCM, (uint32_t)off, w, 2) < 0)
			return -1;
		cJSON *o = arr ? cJSON_CreateObject() : NULL;
		print_status(d, o, (uint32_t)off, w[0], w[1]);
		if (o)
			cJSON_AddItemToArray(arr, o);
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
	if (dnet_reg_read(d->dev, d->wid, tr, &tail, &e) < 0)
		return dsh_derr(d, &e);
	bool have_head = shadow_of(d, "status_nra", &head);
	if (!have_head)
		head = init;
	jhex(out_res(d), "ring_start", init);
	jnum(out_res(d), "ring_size", size);
	jhex(out_res(d), "head", head);
	jhex(out_res(d), "tail", tail);
	out_text(d, "status ring: start 0x%04" PRIx64 "%s size %" PRIu32 " head 0x%04" PRIx64 "%s tail 0x%04" PRIx64 "\n",
		 init, have_init ? "" : " (not set by dsh: assumed)", size, head,
		 have_head ? "" : " (not set by dsh: ring start)", tail);
	unsigned n = 0;
	uint64_t p = head;
	while (p != tail && n < 256) {
		if (p < init || p + DNET_STATUS_SIZE > init + size || p + DNET_STATUS_SIZE > DNET_LLCM_SIZE)
			return dsh_error(d, "head 0x%" PRIx64 " outside the ring [0x%" PRIx64 ", 0x%" PRIx64 ")",
					 p, init, init + size);
		uint64_t w[2];
		if (read_words(d, DNET_REG_LLCM, (uint32_t)p, w, 2) < 0)
			return -1;
		cJSON *o = arr ? cJSON_CreateObject() : NULL;
		print_status(d, o, (uint32_t)p, w[0], w[1]);
		if (o)
			cJSON_AddItemToArray(arr, o);
		n++;
		p += DNET_STATUS_SIZE;
		if (p >= init + size)
			p = init;
	}
	out_text(d, "%u entr%s\n", n, n == 1 ? "y" : "ies");
	dsh_set_last(d, n);
	return 0;
}

static void print_lh(struct dsh *d, cJSON *o, unsigned idx, const uint64_t line[8])
{
	(void)d;
	struct dnet_lh_entry e;
	dnet_lh_decode(line, &e);
	char data[DNET_LH_DATA_BYTES * 2 + 1];
	for (unsigned i = 0; i < DNET_LH_DATA_BYTES; i++)
		snprintf(data + 2 * i, 3, "%02x", e.data[i]);
	if (o) {
		jnum(o, "index", idx);
		jhex(o, "pointer", e.pointer);
		jnum(o, "size", e.size);
		jnum(o, "context", e.context);
		jnum(o, "rank", e.rank);
		jnum(o, "tag", e.tag);
		jnum(o, "valid", e.valid);
		jnum(o, "complete", e.complete);
		jstr(o, "data", data);
		return;
	}
	printf("lh[%2u] @0x%03x: valid %u complete %u context %u rank %u tag 0x%" PRIx32
	       " size %" PRIu32 " pointer 0x%" PRIx32 "\n", idx, idx * DNET_LHB_ENTRY, e.valid, e.complete,
	       e.context, e.rank, e.tag, e.size, e.pointer);
	printf("        data %.32s %.32s %.32s\n", data, data + 32, data + 64);
}

int cmd_lh(struct dsh *d, struct dsh_args *a)
{
	if (a->argc > 2)
		return dsh_error(d, "usage: lh [INDEX | ring]");
	cJSON *arr = d->json ? cJSON_AddArrayToObject(d->res, "entries") : NULL;
	if (a->argc == 2 && strcmp(a->argv[1], "ring") != 0) {
		uint64_t idx;
		if (dsh_num(d, a, 1, DNET_LHB_ENTRIES - 1, "entry index", &idx) < 0)
			return -1;
		uint64_t w[8];
		if (read_words(d, DNET_REG_LHB, (uint32_t)idx * DNET_LHB_ENTRY, w, 8) < 0)
			return -1;
		cJSON *o = arr ? cJSON_CreateObject() : NULL;
		print_lh(d, o, (unsigned)idx, w);
		if (o)
			cJSON_AddItemToArray(arr, o);
		return 0;
	}
	uint64_t head = 0, tail;
	bool have_head = shadow_of(d, "evpbuf_nra", &head);
	const struct dnet_reg *tr = dnet_reg_by_name("evpbuf_nwa");
	struct dnet_err e = { 0 };
	if (!tr)
		return dsh_error(d, "libdnet has no evpbuf_nwa register");
	if (dnet_reg_read(d->dev, d->wid, tr, &tail, &e) < 0)
		return dsh_derr(d, &e);
	jhex(out_res(d), "head", head);
	jhex(out_res(d), "tail", tail);
	out_text(d, "LH ring: head 0x%03" PRIx64 "%s tail 0x%03" PRIx64 "\n", head,
		 have_head ? "" : " (not set by dsh: 0)", tail);
	unsigned n = 0;
	uint64_t p = head % DNET_LHB_SIZE;
	while (p != tail % DNET_LHB_SIZE && n < DNET_LHB_ENTRIES) {
		uint64_t w[8];
		if (read_words(d, DNET_REG_LHB, (uint32_t)p, w, 8) < 0)
			return -1;
		cJSON *o = arr ? cJSON_CreateObject() : NULL;
		print_lh(d, o, (unsigned)(p / DNET_LHB_ENTRY), w);
		if (o)
			cJSON_AddItemToArray(arr, o);
		n++;
		p = (p + DNET_LHB_ENTRY) % DNET_LHB_SIZE;
	}
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
	cJSON *o = out_res(d);
	if (o) {
		jstr(o, "prim", oi ? oi->name : "?");
		jnum(o, "otype", r->otype);
		jnum(o, "dtype", r->dtype);
		jnum(o, "iter", r->iter);
		jnum(o, "dwid", r->dwid);
		jnum(o, "dclid", r->dclid);
		jnum(o, "eflag", r->eflag);
		jhex(o, "size", r->size);
		jhex(o, "src", r->srcoff);
		jhex(o, "dst", r->dstoff);
		if (r->has_ex) {
			cJSON *x = cJSON_AddObjectToObject(o, "ex");
			jnum(x, "otype", r->ex.otype);
			jnum(x, "dtype", r->ex.dtype);
			jnum(x, "iter", r->ex.iter);
			jhex(x, "size", r->ex.size);
		}
		return;
	}
	printf("%s (otype 0x%02x) dt=%u it=%u dw=%u dl=%u ef=%u size=0x%" PRIx32 " src=0x%" PRIx32 " dst=0x%" PRIx32 "\n",
	       oi ? oi->name : "?", r->otype, r->dtype, r->iter, r->dwid, r->dclid, r->eflag,
	       r->size, r->srcoff, r->dstoff);
	if (r->has_ex)
		printf("  ex: otype 0x%02x dt=%u it=%u size=0x%" PRIx32 "\n", r->ex.otype, r->ex.dtype,
		       r->ex.iter, r->ex.size);
}

static void print_hdr(struct dsh *d, const struct dnet_pkt_hdr *h)
{
	const struct dnet_otype_info *oi = dnet_otype_info(h->type);
	cJSON *o = out_res(d);
	if (o) {
		jstr(o, "type_name", oi ? oi->name : "?");
		jnum(o, "size", h->size);
		jnum(o, "type", h->type);
		jnum(o, "pgid", h->pgid);
		jnum(o, "dwid", h->dwid);
		jnum(o, "swid", h->swid);
		jhex(o, "dlid", h->dlid);
		jnum(o, "dtype", h->dtype);
		jnum(o, "iter", h->iter);
		jnum(o, "rflag", h->rflag);
		jnum(o, "eflag", h->eflag);
		jnum(o, "hflag", h->hflag);
		jnum(o, "lflag", h->lflag);
		jhex(o, "src_or_init_dst", h->src_or_init_dst);
		jhex(o, "dstoff", h->dstoff);
		jhex(o, "total", h->total);
		jhex(o, "stride_list", h->stride_list);
		jnum(o, "lines", dnet_hdr_lines(h));
		return;
	}
	printf("%s size %u pgid %u dlid 0x%x dwid %u swid %u dtype %u iter %u rflag %u eflag %u hflag %u lflag %u\n",
	       oi ? oi->name : "?", h->size, h->pgid, h->dlid, h->dwid, h->swid, h->dtype, h->iter,
	       h->rflag, h->eflag, h->hflag, h->lflag);
	printf("  dw2: src/init_dst 0x%" PRIx32 " dstoff 0x%" PRIx32 "  dw3: total %" PRIu32 " stride/list 0x%" PRIx32
	       "  (%u header lines)\n", h->src_or_init_dst, h->dstoff, h->total, h->stride_list, dnet_hdr_lines(h));
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
			jstr(out_res(d), "prim", "BOTF");
			jnum(out_res(d), "ww", b.ww);
			jnum(out_res(d), "size", b.size);
			out_text(d, "BOTF ww=%u size=%u\n", b.ww, b.size);
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
		cJSON *arr = d->json ? cJSON_AddArrayToObject(d->res, "entries") : NULL;
		cJSON *o = arr ? cJSON_CreateObject() : NULL;
		print_status(d, o, 0, w[0], w[1]);
		if (o)
			cJSON_AddItemToArray(arr, o);
		return 0;
	}
	if (strcmp(what, "lh") == 0) {
		if ((n = words(d, a, 2, w, 8, 8)) < 0)
			return -1;
		cJSON *arr = d->json ? cJSON_AddArrayToObject(d->res, "entries") : NULL;
		cJSON *o = arr ? cJSON_CreateObject() : NULL;
		print_lh(d, o, 0, w);
		if (o)
			cJSON_AddItemToArray(arr, o);
		return 0;
	}
	const struct dnet_reg *r;
	const struct dnet_field *f;
	if (dsh_parse_regspec(d, what, &r, &f) < 0)
		return dsh_error(d, "argument 1: '%s' is not req, hdr, status, lh or a register", what);
	if ((n = words(d, a, 2, w, 1, 1)) < 0)
		return -1;
	jstr(out_res(d), "register", r->name);
	jhex(out_res(d), "value", w[0]);
	out_text(d, "%s = 0x%016" PRIx64 "\n", r->name, w[0]);
	out_fields(d, r, w[0], f);
	if (r->block == DNET_BLK_USER && r->offset == DNET_UR_MODULE_STATE && (r->access & DNET_ACC_R))
		dsh_modstate_listing(d, w[0]);
	if (r->block == DNET_BLK_USER && r->offset == DNET_UR_PRIM_COUNTER && (r->access & DNET_ACC_R))
		dsh_counter_listing(d, w[0]);
	return 0;
}
