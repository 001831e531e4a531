/* dsh: the device as every command uses it -- issuing a request (with the
 * Command Ex Flag rule), waiting until the nodes are idle, the Write Window
 * with its host-side shadow, SO-DIMM access, one word of any region, a
 * remote LLCM store (RVS by BOTF), and the guard of the synchronisation
 * area.  Command files call these; nothing here calls a command.
 *
 * Command Ex Flag rule: a request with Ex parameters is issued with the
 * flag at 1, any other with the flag at 0.  dsh writes the flag before the
 * request when it differs from the value it last wrote (0 after reset) and
 * writes the previous value back afterwards.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "dsh.h"

int dsh_now(struct dsh *d, uint64_t *ns)
{
	struct dnet_err e = { 0 };
	if (dnet_now(d->dev, ns, &e) < 0)
		return dsh_derr(d, &e);
	return 0;
}

static int ex_flag_set(struct dsh *d, uint64_t v)
{
	const struct dnet_reg *r = dsh_reg_at(DNET_BLK_USER, DNET_UR_CMD_EX_FLAG, DNET_ACC_W);
	if (!r)
		return dsh_error(d, "libdnet has no Command Ex Flag register");
	return dsh_reg_write(d, r, v);
}

static uint64_t ex_flag_shadow(struct dsh *d)
{
	const struct dnet_reg *r = dsh_reg_at(DNET_BLK_USER, DNET_UR_CMD_EX_FLAG, DNET_ACC_W);
	struct dsh_shadow *s = dsh_shadow(d);
	if (!r || !s)
		return 0;
	unsigned i = dsh_reg_index(d, r);
	return s->reg_has[d->opts.wid][i] ? s->reg[d->opts.wid][i] & 1 : 0;
}

/* Wait until no request of this process sits in a command register, so that
 * a change of Command Ex Flag cannot apply to a request already kicked
 * (the request takes the flag with it into the FIFO, §5.2.2). */
static int wait_not_pending(struct dsh *d, struct dnet_err *e)
{
	return dnet_wait(d->dev, DNET_UREG_WID(d->opts.wid) + DNET_UR_CTL_STATUS, DNET_CS_REQ_PENDING,
			 DNET_COND_EQ, 0, d->opts.timeout_ns, NULL, e);
}

int dsh_issue(struct dsh *d, enum dnet_cmdsel sel, const struct dnet_cmd *cmd)
{
	struct dnet_err e = { 0 };
	uint64_t prev = ex_flag_shadow(d), want = cmd->has_ex ? 1 : 0;
	if (prev != want) {
		if (wait_not_pending(d, &e) < 0)
			return dsh_derr(d, &e);
		if (ex_flag_set(d, want) < 0)
			return -1;
	}
	int rc = dnet_issue(d->dev, d->opts.wid, sel, cmd, d->opts.timeout_ns, &e);
	if (rc < 0)
		dsh_derr(d, &e);   /* the first error is the one reported */
	if (prev != want) {
		struct dnet_err e2 = { 0 };
		if (rc == 0 && wait_not_pending(d, &e2) < 0)
			return dsh_derr(d, &e2);
		if (ex_flag_set(d, prev) < 0)
			return -1;
	}
	return rc < 0 ? -1 : 0;
}

int dsh_wait_idle(struct dsh *d, bool all_nodes, uint64_t timeout_ns, uint64_t *elapsed)
{
	struct dnet_err e = { 0 };
	uint64_t t0, t;
	unsigned cur = dnet_node(d->dev), n = dnet_node_count(d->dev);
	uint64_t step = (d->caps & DNET_CAP_VIRTUAL_TIME) ? 100 : 10000;
	if (dsh_now(d, &t0) < 0)
		return -1;
	char inflight[32];
	snprintf(inflight, sizeof inflight, "w%u_in_flight", d->opts.wid);
	for (;;) {
		bool busy = false, hidden = false;
		for (unsigned k = all_nodes ? 1 : cur; k <= (all_nodes ? n : cur) && !busy; k++) {
			struct dnet_dev *h = all_nodes ? dnet_node_dev(d->dev, k, &e) : d->dev;
			if (!h)
				return dsh_derr(d, &e);
			if (dnet_busy(h, &busy, &e) < 0) {
				if (!all_nodes || e.code != DNET_EPERM)
					return dsh_derr(d, &e);
				busy = false;
				hidden = true; /* a node this client may not use */
			}
		}
		/* Nodes this client may not see: its own packets must at least
		 * have been received (the emulator counts them, D-SIM-CAUSE). */
		uint64_t fl = 0;
		if (!busy && hidden && dnet_stat(d->dev, inflight, &fl, NULL) == 0 && fl)
			busy = true;
		if (dsh_now(d, &t) < 0)
			return -1;
		if (!busy)
			break;
		if (t - t0 >= timeout_ns)
			return dsh_error(d, "timed out after %s: node%s still busy", dsh_dur(t - t0),
					 all_nodes ? "s" : "");
		if (dsh_interrupted(d))
			return dsh_error(d, "interrupted after %s: node%s still busy", dsh_dur(t - t0),
					 all_nodes ? "s" : "");
		if (dnet_delay(d->dev, step, &e) < 0)
			return dsh_derr(d, &e);
	}
	if (elapsed)
		*elapsed = t - t0;
	return 0;
}

/* ---- Write Window with host-side shadow ---- */

int dsh_ww_store(struct dsh *d, uint32_t off, const void *buf, size_t len)
{
	struct dnet_err e = { 0 };
	uint32_t addr;
	if (dnet_region_addr(DNET_REG_WW, d->opts.wid, off, (uint32_t)len, &addr, &e) < 0)
		return dsh_derr(d, &e);
	if (dnet_write_block(d->dev, addr, buf, len, &e) < 0)
		return dsh_derr(d, &e);
	dsh_ww_shadow(d, off, buf, len);
	return 0;
}

void dsh_ww_shadow(struct dsh *d, uint32_t off, const void *buf, size_t len)
{
	struct dsh_shadow *s = dsh_shadow(d);
	if (!s || off >= DNET_WINAREA_SIZE || len > DNET_WINAREA_SIZE - off)
		return;
	memcpy(&s->ww[d->opts.wid][off], buf, len);
	for (size_t i = off; i < off + len; i++)
		s->ww_known[d->opts.wid][i / 8] |= (uint8_t)(1u << (i % 8));
}

/* The bits of the 64-bit Write Window word at off that this shell wrote. */
static uint64_t ww_known_bits(const struct dsh_shadow *s, unsigned wid, uint32_t off)
{
	uint64_t m = 0;
	uint8_t k = s->ww_known[wid][off / 8];
	for (unsigned b = 0; b < 8; b++)
		if (k & (1u << b))
			m |= 0xffull << (8 * b);
	return m;
}

/* ---- SO-DIMM ---- */

uint64_t dsh_sodimm_capacity(struct dsh *d)
{
	const struct dnet_reg *r = dnet_reg_by_name("sdimm_capacity");
	struct dsh_shadow *s = dsh_shadow(d);
	uint64_t code = DNET_CAPACITY_CODE_DEFAULT;
	if (r && s && s->reg_has[0][dsh_reg_index(d, r)])
		code = s->reg[0][dsh_reg_index(d, r)];
	return dnet_capacity_bytes(code);
}

static int prim_counter(struct dsh *d, uint64_t *v)
{
	const struct dnet_reg *r = dsh_reg_at(DNET_BLK_USER, DNET_UR_PRIM_COUNTER, DNET_ACC_R);
	struct dnet_err e = { 0 };
	if (!r)
		return dsh_error(d, "libdnet has no Primitive Counter");
	if (dnet_reg_read(d->dev, d->opts.wid, r, v, &e) < 0)
		return dsh_derr(d, &e);
	return 0;
}

static int encode_simple(struct dsh *d, unsigned otype, uint32_t src, uint32_t dst, uint32_t size,
			 struct dnet_cmd *cmd)
{
	struct dnet_req rq;
	struct dnet_err e = { 0 };
	memset(&rq, 0, sizeof(rq));
	rq.otype = otype;
	rq.size = size;
	rq.srcoff = src;
	rq.dstoff = dst;
	if (dnet_req_encode(&rq, cmd, &e) < 0)
		return dsh_derr(d, &e);
	return 0;
}

static int issue_simple(struct dsh *d, unsigned otype, uint32_t src, uint32_t dst, uint32_t size)
{
	struct dnet_cmd cmd;
	if (encode_simple(d, otype, src, dst, size, &cmd) < 0)
		return -1;
	return dsh_issue(d, DNET_CMD0, &cmd);
}

int dsh_sodimm_rw(struct dsh *d, uint64_t off, void *buf, size_t len, bool write, const char **how)
{
	struct dnet_err e = { 0 };
	uint64_t cap = dsh_sodimm_capacity(d);
	uint64_t limit = cap < 0x100000000ull ? cap : 0x100000000ull;
	if (off % 8 || len % 8)
		return dsh_error(d, "SO-DIMM offset and size must be multiples of 8 (got 0x%" PRIx64 ", %zu)", off, len);
	if (off >= limit || len > limit - off)
		return dsh_error(d, "SO-DIMM range 0x%" PRIx64 "+%zu is outside the WID's area (0x%" PRIx64 " bytes)",
				 off, len, limit);
	if (d->caps & DNET_CAP_BACKDOOR) {
		*how = "emulator backdoor";
		if (dnet_sodimm_access(d->dev, (uint64_t)d->opts.wid * cap + off, buf, len, write, &e) < 0)
			return dsh_derr(d, &e);
		return 0;
	}
	uint8_t *p = buf;
	const uint32_t win = 3 * DNET_WINDOW_SIZE; /* WW#3 / PW#3 */
	/* every request is encoded (checked) before the first one is issued */
	for (size_t k = 0; k < len; k += DNET_WINDOW_SIZE) {
		uint32_t n = (uint32_t)(len - k < DNET_WINDOW_SIZE ? len - k : DNET_WINDOW_SIZE);
		struct dnet_cmd cmd;
		if (write ? encode_simple(d, DNET_OT_VS, win, (uint32_t)(off + k), n, &cmd) :
			    encode_simple(d, DNET_OT_VL, (uint32_t)(off + k), win, n, &cmd))
			return -1;
	}
	if (write) {
		*how = "WW#3 + VS";
		for (size_t k = 0; k < len; k += DNET_WINDOW_SIZE) {
			uint32_t n = (uint32_t)(len - k < DNET_WINDOW_SIZE ? len - k : DNET_WINDOW_SIZE);
			uint64_t before;
			if (dsh_ww_store(d, win, p + k, n) < 0 || prim_counter(d, &before) < 0)
				return -1;
			if (issue_simple(d, DNET_OT_VS, win, (uint32_t)(off + k), n) < 0)
				return -1;
			uint64_t mask = ((1ull << DNET_PC_BITS) - 1) << DNET_PC_SHIFT(DNET_FAM_VS);
			const struct dnet_reg *r = dsh_reg_at(DNET_BLK_USER, DNET_UR_PRIM_COUNTER, DNET_ACC_R);
			if (dnet_wait(d->dev, dnet_reg_addr(r, d->opts.wid), mask, DNET_COND_NE, before & mask,
				      d->opts.timeout_ns, NULL, &e) < 0)
				return dsh_derr(d, &e);
		}
		return 0;
	}
	*how = "VL into PW#3";
	const struct dnet_reg *fr = dsh_reg_at(DNET_BLK_USER, DNET_UR_PW_FLAG, DNET_ACC_R);
	const struct dnet_field *f3 = fr ? dnet_field_by_name(fr, "pw3") : NULL;
	if (!f3)
		return dsh_error(d, "libdnet has no pw_flag.pw3 field");
	const struct dnet_reg *pc = dsh_reg_at(DNET_BLK_USER, DNET_UR_PRIM_COUNTER, DNET_ACC_R);
	uint64_t vl_mask = ((1ull << DNET_PC_BITS) - 1) << DNET_PC_SHIFT(DNET_FAM_VL);
	for (size_t k = 0; k < len; k += DNET_WINDOW_SIZE) {
		uint32_t n = (uint32_t)(len - k < DNET_WINDOW_SIZE ? len - k : DNET_WINDOW_SIZE);
		uint64_t before;
		if (prim_counter(d, &before) < 0)
			return -1;
		if (issue_simple(d, DNET_OT_VL, (uint32_t)(off + k), win, n) < 0)
			return -1;
		/* OQ-16 leaves open whether the window's flags reset at the Lower
		 * write or when the controller starts the request: on a board that
		 * resets them at start, the flags still read 4'b1111 from the last
		 * read for a while.  So first the VL counter must move (this VL
		 * completed), then the flags must be 4'b1111 (as the VS path waits
		 * for its counter). */
		if (dnet_wait(d->dev, dnet_reg_addr(pc, d->opts.wid), vl_mask, DNET_COND_NE, before & vl_mask,
			      d->opts.timeout_ns, NULL, &e) < 0)
			return dsh_error(d, "VL into PW#3: the Primitive Counter's VL count did not move from %"
					 PRIu64 " (no completion): %s", (before & vl_mask) >> DNET_PC_SHIFT(DNET_FAM_VL),
					 e.msg);
		uint64_t mask = dnet_field_mask(f3);
		if (dnet_wait(d->dev, dnet_reg_addr(fr, d->opts.wid), mask, DNET_COND_EQ, mask, d->opts.timeout_ns,
			      NULL, &e) < 0)
			return dsh_derr(d, &e);
		uint32_t addr;
		if (dnet_region_addr(DNET_REG_PW, d->opts.wid, win, n, &addr, &e) < 0 ||
		    dnet_read_block(d->dev, addr, p + k, n, &e) < 0)
			return dsh_derr(d, &e);
	}
	return 0;
}

/* ---- reading regions ---- */

int dsh_region_read(struct dsh *d, enum dnet_region reg, uint32_t off, uint8_t *buf, size_t len)
{
	struct dnet_err e = { 0 };
	uint32_t addr;
	if (dnet_region_addr(reg, d->opts.wid, off, (uint32_t)len, &addr, &e) < 0)
		return dsh_derr(d, &e);
	if (reg == DNET_REG_WW) {
		struct dsh_shadow *s = dsh_shadow(d);
		if (!s)
			return dsh_error(d, "out of memory");
		memcpy(buf, &s->ww[d->opts.wid][off], len);
		return 0;
	}
	if (dnet_read_block(d->dev, addr, buf, len, &e) < 0)
		return dsh_derr(d, &e);
	return 0;
}

int dsh_mem_word(struct dsh *d, enum dnet_region r, bool sodimm, uint32_t off, uint64_t need, uint64_t *v)
{
	uint8_t b[8];
	if (off % 8)
		return dsh_error(d, "offset 0x%" PRIx32 " is not a multiple of 8", off);
	if (!sodimm && r == DNET_REG_WW) {
		/* As a write-only register never written (shadow.c): the host
		 * cannot read the window, and what this shell did not write is
		 * not known -- never a 0. */
		struct dsh_shadow *s = dsh_shadow(d);
		if (!s)
			return dsh_error(d, "out of memory");
		if (off >= DNET_WINAREA_SIZE)
			return dsh_error(d, "offset 0x%" PRIx32 " outside the Write Window area", off);
		uint64_t missing = need & ~ww_known_bits(s, d->opts.wid, off);
		if (missing == need)
			return dsh_error(d, "ww 0x%" PRIx32 " is write-only (the Write Window cannot be read back) "
					 "and dsh has not written it on node %u, WID %u (no shadow)", off,
					 dnet_node(d->dev), d->opts.wid);
		if (missing)
			return dsh_error(d, "ww 0x%" PRIx32 " is write-only (the Write Window cannot be read back) "
					 "and dsh has not written bits 0x%" PRIx64 " of it on node %u, WID %u (no "
					 "shadow; a mask can leave them out)", off, missing, dnet_node(d->dev), d->opts.wid);
	}
	if (sodimm) {
		const char *how;
		if (dsh_sodimm_rw(d, off, b, 8, false, &how) < 0)
			return -1;
	} else if (dsh_region_read(d, r, off, b, 8) < 0) {
		return -1;
	}
	uint64_t x = 0;
	for (int i = 7; i >= 0; i--)
		x = x << 8 | b[i];
	*v = x;
	return 0;
}

int dsh_rllcm_store(struct dsh *d, unsigned clid, unsigned dwid, uint32_t off, uint64_t val, unsigned ww)
{
	struct dnet_sync_flag_pkt p;
	struct dnet_err e = { 0 };
	if (dnet_sync_flag_pkt(dnet_dev_clid_reading(d->dev), d->opts.wid, clid, dwid, 0, off, val, ww, &p, &e) < 0)
		return dsh_derr(d, &e);
	if (dsh_ww_store(d, ww * DNET_WINDOW_SIZE, p.bytes, p.len) < 0)
		return -1;
	return dsh_issue(d, DNET_CMD0, &p.cmd);
}

/* ---- the synchronisation area (D-SYNC-AREA) ---- */

bool dsh_sync_reserved(const struct dsh *d)
{
	return d->ranks.size > 1 || d->ranks.sync_used;
}

int dsh_sync_area_guard(struct dsh *d, uint32_t off, uint32_t len)
{
	uint32_t a = d->ranks.sync_area;
	if (dsh_sync_reserved(d) && off + len > a && off < a + DSH_SYNC_AREA_SIZE)
		return dsh_error(d, "LLCM 0x%" PRIx32 "-0x%" PRIx32 " overlaps the synchronisation area "
				 "0x%" PRIx32 "-0x%" PRIx32 " used by barrier/signal/waitfor (%s); add 'force' to "
				 "write it anyway, or move the area (set sync_area)", off, off + len - 1, a,
				 a + DSH_SYNC_AREA_SIZE - 1,
				 d->ranks.size > 1 ? "this run has several ranks" : "this shell synchronised");
	return 0;
}
