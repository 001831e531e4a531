/* Request encoder and decoder (request.h; thesis
 * Fig. 4.13, 4.14, 7.8, Tab. 4.4, 4.7, 4.13). */
#include <inttypes.h>
#include <string.h>
#include <strings.h>

#include "dnet/request_int.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

#define U_LOCAL_VL  (DNET_USE_SRC | DNET_USE_DST | DNET_USE_SIZE)
#define U_STRIDED   (DNET_USE_DTYPE | DNET_USE_ITER)
#define U_REMOTE    (DNET_USE_DWID | DNET_USE_DCLID | DNET_USE_EFLAG | DNET_USE_CMD1 | DNET_USE_EX)

/* Tab. 4.13.  Family = Primitive Counter slot (Tab. A.2). */
static const struct dnet_otype_info otypes[DNET_OTYPE_COUNT] = {
	{ DNET_OT_NOP, "NOP", "no operation", DNET_FAM_NONE, DNET_VAR_CONTIG, false, 0, "size" },
	{ DNET_OT_BOTF, "BOTF", "send a packet image from a Write Window", DNET_FAM_BOTF,
	  DNET_VAR_CONTIG, true, 0, "size" },
	{ DNET_OT_VL, "VL", "contiguous load SO-DIMM -> Prefetch Window", DNET_FAM_VL,
	  DNET_VAR_CONTIG, false, U_LOCAL_VL, "size" },
	{ DNET_OT_VLS, "VLS", "stride load", DNET_FAM_VL, DNET_VAR_STRIDE, false,
	  U_LOCAL_VL | U_STRIDED, "stride" },
	{ DNET_OT_VLI, "VLI", "list load", DNET_FAM_VL, DNET_VAR_LIST, false,
	  U_LOCAL_VL | U_STRIDED, "list" },
	{ DNET_OT_VS, "VS", "contiguous store Write Window -> SO-DIMM", DNET_FAM_VS,
	  DNET_VAR_CONTIG, false, U_LOCAL_VL, "size" },
	{ DNET_OT_VSS, "VSS", "stride store", DNET_FAM_VS, DNET_VAR_STRIDE, false,
	  U_LOCAL_VL | U_STRIDED, "stride" },
	{ DNET_OT_VSI, "VSI", "list store", DNET_FAM_VS, DNET_VAR_LIST, false,
	  U_LOCAL_VL | U_STRIDED, "list" },
	{ DNET_OT_RVL, "RVL", "remote contiguous load (RDMA read)", DNET_FAM_RVL,
	  DNET_VAR_CONTIG, true, U_LOCAL_VL | U_REMOTE, "size" },
	{ DNET_OT_RVLS, "RVLS", "remote stride load", DNET_FAM_RVL, DNET_VAR_STRIDE, true,
	  U_LOCAL_VL | U_REMOTE | U_STRIDED, "stride" },
	{ DNET_OT_RVLI, "RVLI", "remote list load", DNET_FAM_RVL, DNET_VAR_LIST, true,
	  U_LOCAL_VL | U_REMOTE | U_STRIDED, "list" },
	{ DNET_OT_RVS, "RVS", "remote contiguous store (RDMA write)", DNET_FAM_RVS,
	  DNET_VAR_CONTIG, true, U_LOCAL_VL | U_REMOTE, "size" },
	{ DNET_OT_RVSS, "RVSS", "remote stride store", DNET_FAM_RVS, DNET_VAR_STRIDE, true,
	  U_LOCAL_VL | U_REMOTE | U_STRIDED, "stride" },
	{ DNET_OT_RVSI, "RVSI", "remote list store", DNET_FAM_RVS, DNET_VAR_LIST, true,
	  U_LOCAL_VL | U_REMOTE | U_STRIDED, "list" },
	{ DNET_OT_IPUSH, "IPUSH", "remote indirect contiguous store", DNET_FAM_IPUSH,
	  DNET_VAR_CONTIG, true, (DNET_USE_SRC | DNET_USE_SIZE | U_REMOTE) & ~DNET_USE_CMD1, "size" },
	{ DNET_OT_LHSV1, "LHSv1", "IPUSH with LHSv1", DNET_FAM_IPUSH, DNET_VAR_STRIDE, true,
	  (DNET_USE_SRC | DNET_USE_SIZE | U_REMOTE) & ~DNET_USE_CMD1, "size" },
	{ DNET_OT_LHSV2, "LHSv2", "IPUSH with LHSv2", DNET_FAM_IPUSH, DNET_VAR_LIST, true,
	  (DNET_USE_SRC | DNET_USE_DST | DNET_USE_SIZE | U_REMOTE) & ~DNET_USE_CMD1, "size" },
};

const struct dnet_otype_info *dnet_otype_info(unsigned code)
{
	for (unsigned i = 0; i < N(otypes); i++)
		if (otypes[i].code == code)
			return &otypes[i];
	return NULL; /* undefined: the Request Executor ignores it (§5.3.2, OQ-20) */
}

const struct dnet_otype_info *dnet_otype_by_name(const char *name)
{
	if (strncasecmp(name, "IPUSH_", 6) == 0 || strncasecmp(name, "IPUSH-", 6) == 0)
		name += 6;
	for (unsigned i = 0; i < N(otypes); i++)
		if (strcasecmp(otypes[i].name, name) == 0)
			return &otypes[i];
	return NULL;
}

const struct dnet_otype_info *dnet_otypes(unsigned *count)
{
	if (count)
		*count = N(otypes);
	return otypes;
}

const char *dnet_family_name(enum dnet_family f)
{
	static const char *const names[] = { "BOTF", "VL", "VS", "RVL", "RVS", "IPUSH", "none" };
	return (unsigned)f < N(names) ? names[f] : "?";
}

/* Decision D-LOWER-BITS (Fig. 4.13, Tab. 4.4, OQ-1): DWID at bit 16 and
 * eflag at bit 30, bits 17 and 31 reserved -- the ascending-order reading
 * of Tab. 4.4.  These shifts are the only place the positions live. */
uint64_t core_req_lower(const struct dnet_req *r)
{
	return (uint64_t)(r->otype & 0x1fu) << DNET_LO_OTYPE_SHIFT |
	       (uint64_t)(r->dtype & 0x7u) << DNET_LO_DTYPE_SHIFT |
	       (uint64_t)(r->iter & 0xffu) << DNET_LO_ITER_SHIFT |
	       (uint64_t)(r->dwid & 0x1u) << DNET_LO_DWID_SHIFT |
	       (uint64_t)(r->dclid & 0xfffu) << DNET_LO_DCLID_SHIFT |
	       (uint64_t)(r->eflag & 0x1u) << DNET_LO_EFLAG_SHIFT |
	       (uint64_t)r->size << DNET_LO_SIZE_SHIFT;
}

uint64_t core_req_upper(const struct dnet_req *r)
{
	return (uint64_t)r->srcoff | (uint64_t)r->dstoff << 32;
}

uint64_t core_req_ex_word(const struct dnet_req_ex *x)
{
	return (uint64_t)(x->otype & 0x1fu) | (uint64_t)(x->dtype & 0x7u) << 5 |
	       (uint64_t)(x->iter & 0xffu) << 8 | (uint64_t)x->size << 32;
}

void core_req_ex_decode(uint64_t w, struct dnet_req_ex *x)
{
	x->otype = (unsigned)(w & 0x1f);
	x->dtype = (unsigned)(w >> 5 & 0x7);
	x->iter = (unsigned)(w >> 8 & 0xff);
	x->size = (uint32_t)(w >> 32);
}

static int check_width(const char *what, uint64_t v, unsigned bits, struct dnet_err *err)
{
	if (bits < 64 && v >> bits)
		return dnet_seterr(err, DNET_EINVAL, "%s = 0x%" PRIx64 " does not fit in %u bit%s (max 0x%" PRIx64 ")",
				   what, v, bits, bits == 1 ? "" : "s", (uint64_t)((1ull << bits) - 1));
	return 0;
}

int dnet_req_encode(const struct dnet_req *r, struct dnet_cmd *out, struct dnet_err *err)
{
	int rc;
	if ((rc = check_width("otype", r->otype, 5, err)) ||
	    (rc = check_width("dtype", r->dtype, 3, err)) ||
	    (rc = check_width("iter", r->iter, 8, err)) ||
	    (rc = check_width("dwid", r->dwid, 1, err)) ||
	    (rc = check_width("dclid", r->dclid, 12, err)) ||
	    (rc = check_width("eflag", r->eflag, 1, err)))
		return rc;
	if (r->has_ex &&
	    ((rc = check_width("ex otype", r->ex.otype, 5, err)) ||
	     (rc = check_width("ex dtype", r->ex.dtype, 3, err)) ||
	     (rc = check_width("ex iter", r->ex.iter, 8, err))))
		return rc;
	out->lower = core_req_lower(r);
	out->upper = core_req_upper(r);
	out->has_ex = r->has_ex;
	out->ex = r->has_ex ? core_req_ex_word(&r->ex) : 0;
	out->lower_only = false;
	return 0;
}

void dnet_req_decode(uint64_t lower, uint64_t upper, const uint64_t *ex, struct dnet_req *r)
{
	memset(r, 0, sizeof *r);
	r->otype = (unsigned)(lower >> DNET_LO_OTYPE_SHIFT & 0x1f);
	r->dtype = (unsigned)(lower >> DNET_LO_DTYPE_SHIFT & 0x7);
	r->iter = (unsigned)(lower >> DNET_LO_ITER_SHIFT & 0xff);
	r->dwid = (unsigned)(lower >> DNET_LO_DWID_SHIFT & 0x1);
	r->dclid = (unsigned)(lower >> DNET_LO_DCLID_SHIFT & 0xfff);
	r->eflag = (unsigned)(lower >> DNET_LO_EFLAG_SHIFT & 0x1);
	r->size = (uint32_t)(lower >> DNET_LO_SIZE_SHIFT);
	r->srcoff = (uint32_t)upper;
	r->dstoff = (uint32_t)(upper >> 32);
	if (ex) {
		r->has_ex = true;
		core_req_ex_decode(*ex, &r->ex);
	}
}

/* BOTF (Fig. 4.14, Tab. 4.7): WW# [6:5], Size [41:32]. */
int dnet_botf_encode(const struct dnet_botf_req *b, uint64_t *lower, struct dnet_err *err)
{
	if (b->ww >= 4)
		return dnet_seterr(err, DNET_EINVAL, "BOTF window %u out of range (0-3)", b->ww);
	if (b->size == 0 || b->size > DNET_BOTF_MAX)
		return dnet_seterr(err, DNET_EINVAL,
				   "BOTF size %u out of range (1-512 bytes incl. header)", b->size);
	*lower = DNET_OT_BOTF | (uint64_t)b->ww << DNET_BOTF_WW_SHIFT |
		 (uint64_t)b->size << DNET_BOTF_SIZE_SHIFT;
	return 0;
}

void dnet_botf_decode(uint64_t lower, struct dnet_botf_req *b)
{
	b->ww = (unsigned)(lower >> DNET_BOTF_WW_SHIFT & 0x3);
	b->size = (unsigned)(lower >> DNET_BOTF_SIZE_SHIFT & DNET_BOTF_SIZE_MASK);
}

/* LHSv2 Upper (Fig. 7.8, §7.2.1): SRCOff [31:0], WW size [41:32],
 * WW address [53:42]. */
int dnet_lhsv2_upper_encode(const struct dnet_lhsv2_upper *u, uint64_t *upper,
			    struct dnet_err *err)
{
	if (u->ww_size > 512)
		return dnet_seterr(err, DNET_EINVAL, "LHSv2 Write Window size %u > 512", u->ww_size);
	if (u->ww_addr > 0xfff)
		return dnet_seterr(err, DNET_EINVAL, "LHSv2 Write Window address 0x%x > 0xfff", u->ww_addr);
	*upper = (uint64_t)u->srcoff | (uint64_t)u->ww_size << 32 | (uint64_t)u->ww_addr << 42;
	return 0;
}

void core_lhsv2_upper_decode(uint64_t upper, struct dnet_lhsv2_upper *u)
{
	u->srcoff = (uint32_t)upper;
	u->ww_size = (unsigned)(upper >> 32 & 0x3ff);
	u->ww_addr = (unsigned)(upper >> 42 & 0xfff);
}
