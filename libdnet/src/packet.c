/* Packet header codec, receive status and LH Buffer entry (packet.h;
 * thesis Fig. 4.23, Tab. 4.9, 4.15, Fig. 7.7). */
#include <inttypes.h>
#include <string.h>

#include "dnet/packet_int.h"
#include "dnet/request_int.h"

static bool is_rvl_family(unsigned type)
{
	return type == DNET_OT_RVL || type == DNET_OT_RVLS || type == DNET_OT_RVLI;
}

/* Decision D-HDR-DW1 (Fig. 4.23, Tab. 4.15, OQ-2): the bit boundaries of the
 * figure are certain; fields are placed in the ascending order of Tab. 4.15:
 * Size [11:0], TYPE [16:12], PGID [27:20], DWID [28], SWID [29], DLID [47:32],
 * DTYPE [50:48], Iteration [58:51], rflag [59], eflag [60], hflag [61],
 * lflag [62]; [19:17], [31:30] and [63] reserved. */
uint64_t dnet_hdr_dw1(const struct dnet_pkt_hdr *h)
{
	return (uint64_t)(h->size & 0xfffu) << DNET_H1_SIZE_SHIFT |
	       (uint64_t)(h->type & 0x1fu) << DNET_H1_TYPE_SHIFT |
	       (uint64_t)(h->pgid & 0xffu) << DNET_H1_PGID_SHIFT |
	       (uint64_t)(h->dwid & 1u) << DNET_H1_DWID_SHIFT |
	       (uint64_t)(h->swid & 1u) << DNET_H1_SWID_SHIFT |
	       (uint64_t)(h->dlid & 0xffffu) << DNET_H1_DLID_SHIFT |
	       (uint64_t)(h->dtype & 7u) << DNET_H1_DTYPE_SHIFT |
	       (uint64_t)(h->iter & 0xffu) << DNET_H1_ITER_SHIFT |
	       (uint64_t)(h->rflag & 1u) << DNET_H1_RFLAG_SHIFT |
	       (uint64_t)(h->eflag & 1u) << DNET_H1_EFLAG_SHIFT |
	       (uint64_t)(h->hflag & 1u) << DNET_H1_HFLAG_SHIFT |
	       (uint64_t)(h->lflag & 1u) << DNET_H1_LFLAG_SHIFT;
}

/* Decision D-HDR-DW23 (OQ-3): the 2nd DW mirrors Command Upper
 * {DSTOff [63:32], SRCOff or Initial DSTOff [31:0]}; the 3rd DW mirrors
 * Command Lower {Stride/List [63:32], Total Transfer Size [31:0]}; the 4th
 * DW is the Command Ex word. */
uint64_t dnet_hdr_dw2(const struct dnet_pkt_hdr *h)
{
	return (uint64_t)h->src_or_init_dst | (uint64_t)h->dstoff << 32;
}

uint64_t core_hdr_dw3(const struct dnet_pkt_hdr *h)
{
	return (uint64_t)h->total | (uint64_t)h->stride_list << 32;
}

uint64_t core_hdr_dw4(const struct dnet_pkt_hdr *h)
{
	return core_req_ex_word(&h->ex);
}

void dnet_hdr_decode_dw1(uint64_t dw1, struct dnet_pkt_hdr *h)
{
	h->size = (unsigned)(dw1 >> DNET_H1_SIZE_SHIFT & 0xfff);
	h->type = (unsigned)(dw1 >> DNET_H1_TYPE_SHIFT & 0x1f);
	h->pgid = (unsigned)(dw1 >> DNET_H1_PGID_SHIFT & 0xff);
	h->dwid = (unsigned)(dw1 >> DNET_H1_DWID_SHIFT & 1);
	h->swid = (unsigned)(dw1 >> DNET_H1_SWID_SHIFT & 1);
	h->dlid = (unsigned)(dw1 >> DNET_H1_DLID_SHIFT & 0xffff);
	h->dtype = (unsigned)(dw1 >> DNET_H1_DTYPE_SHIFT & 7);
	h->iter = (unsigned)(dw1 >> DNET_H1_ITER_SHIFT & 0xff);
	h->rflag = (unsigned)(dw1 >> DNET_H1_RFLAG_SHIFT & 1);
	h->eflag = (unsigned)(dw1 >> DNET_H1_EFLAG_SHIFT & 1);
	h->hflag = (unsigned)(dw1 >> DNET_H1_HFLAG_SHIFT & 1);
	h->lflag = (unsigned)(dw1 >> DNET_H1_LFLAG_SHIFT & 1);
}

void dnet_hdr_decode(const uint64_t *dw, unsigned n, struct dnet_pkt_hdr *h)
{
	memset(h, 0, sizeof *h);
	if (n >= 1)
		dnet_hdr_decode_dw1(dw[0], h);
	if (n >= 2) {
		h->src_or_init_dst = (uint32_t)dw[1];
		h->dstoff = (uint32_t)(dw[1] >> 32);
	}
	if (n >= 3) {
		h->total = (uint32_t)dw[2];
		h->stride_list = (uint32_t)(dw[2] >> 32);
	}
	if (n >= 4)
		core_req_ex_decode(dw[3], &h->ex);
}

/* Header length (Tab. 4.15, §4.7, §5.3.6): 2 lines when hflag = 0; RVL-family
 * requests are always sent with 4 lines; other hflag = 1 packets have 3. */
unsigned dnet_hdr_lines(const struct dnet_pkt_hdr *h)
{
	if (is_rvl_family(h->type))
		return 4;
	return h->hflag ? 3 : 2;
}

static int check(const char *what, uint64_t v, unsigned bits, struct dnet_err *err)
{
	if (v >> bits)
		return dnet_seterr(err, DNET_EINVAL, "header %s = 0x%" PRIx64 " does not fit in %u bits",
				   what, v, bits);
	return 0;
}

int dnet_hdr_encode(const struct dnet_pkt_hdr *h, uint64_t dw[DNET_HDR_MAX_LINES],
		    unsigned *nlines, struct dnet_err *err)
{
	int rc;
	if ((rc = check("size", h->size, 12, err)) || (rc = check("type", h->type, 5, err)) ||
	    (rc = check("pgid", h->pgid, 8, err)) || (rc = check("dwid", h->dwid, 1, err)) ||
	    (rc = check("swid", h->swid, 1, err)) || (rc = check("dlid", h->dlid, 16, err)) ||
	    (rc = check("dtype", h->dtype, 3, err)) || (rc = check("iter", h->iter, 8, err)) ||
	    (rc = check("rflag", h->rflag, 1, err)) || (rc = check("eflag", h->eflag, 1, err)) ||
	    (rc = check("hflag", h->hflag, 1, err)) || (rc = check("lflag", h->lflag, 1, err)) ||
	    (rc = check("ex otype", h->ex.otype, 5, err)) ||
	    (rc = check("ex dtype", h->ex.dtype, 3, err)) ||
	    (rc = check("ex iter", h->ex.iter, 8, err)))
		return rc;
	unsigned n = dnet_hdr_lines(h);
	dw[0] = dnet_hdr_dw1(h);
	dw[1] = dnet_hdr_dw2(h);
	dw[2] = n >= 3 ? core_hdr_dw3(h) : 0;
	dw[3] = n >= 4 ? core_hdr_dw4(h) : 0;
	*nlines = n;
	return 0;
}

/* Receive status (Tab. 4.9): the request format reinterpreted; DWID holds the
 * sender's WID, DCLID the sender's CLID, SRCOff the first address written.
 * Decision D-STATUS-ORDER (OQ-13): Lower at +0, Upper at +8. */
void dnet_status_decode(uint64_t lo, uint64_t hi, struct dnet_status *s)
{
	struct dnet_req r;
	dnet_req_decode(lo, hi, NULL, &r);
	s->otype = r.otype;
	s->dtype = r.dtype;
	s->iter = r.iter;
	s->swid = r.dwid;
	s->sclid = r.dclid;
	s->eflag = r.eflag;
	s->size = r.size;
	s->addr = r.srcoff;
	s->aux = r.dstoff;
}

void core_status_encode(const struct dnet_status *s, uint64_t *lo, uint64_t *hi)
{
	struct dnet_req r = {
		.otype = s->otype, .dtype = s->dtype, .iter = s->iter, .dwid = s->swid,
		.dclid = s->sclid, .eflag = s->eflag, .size = s->size, .srcoff = s->addr,
		.dstoff = s->aux,
	};
	*lo = core_req_lower(&r);
	*hi = core_req_upper(&r);
}

/* LH Buffer entry.  Decision D-LH-ENTRY (Fig. 7.7, OQ-15): line 0 =
 * {Pointer [63:32], Size [31:0]}; line 1 = envelope {Context [63:48],
 * Valid [47], Complete [46], Rank [45:32], Tag [31:0]}; lines 2-7 = 48 bytes
 * of user data, little-endian. */
void dnet_lh_decode(const uint64_t line[8], struct dnet_lh_entry *e)
{
	e->pointer = (uint32_t)(line[0] >> 32);
	e->size = (uint32_t)line[0];
	e->context = (unsigned)(line[1] >> 48 & 0xffff);
	e->valid = (unsigned)(line[1] >> DNET_LH_VALID_BIT & 1);
	e->complete = (unsigned)(line[1] >> DNET_LH_COMPLETE_BIT & 1);
	e->rank = (unsigned)(line[1] >> 32 & 0x3fff);
	e->tag = (uint32_t)line[1];
	for (unsigned i = 0; i < DNET_LH_DATA_BYTES; i++)
		e->data[i] = (uint8_t)(line[2 + i / 8] >> (8 * (i % 8)));
}

void core_lh_encode(const struct dnet_lh_entry *e, uint64_t line[8])
{
	line[0] = (uint64_t)e->pointer << 32 | e->size;
	line[1] = (uint64_t)(e->context & 0xffff) << 48 | (uint64_t)(e->valid & 1) << DNET_LH_VALID_BIT |
		  (uint64_t)(e->complete & 1) << DNET_LH_COMPLETE_BIT |
		  (uint64_t)(e->rank & 0x3fff) << 32 | e->tag;
	for (unsigned l = 2; l < 8; l++)
		line[l] = 0;
	for (unsigned i = 0; i < DNET_LH_DATA_BYTES; i++)
		line[2 + i / 8] |= (uint64_t)e->data[i] << (8 * (i % 8));
}
