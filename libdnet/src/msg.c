/* libdnet: the reference messaging layer (msg.h) on IPUSH, LHSv1/LHSv2 and
 * the LH Buffer (thesis chapter 7).  Only the host interface
 * is used: Write Windows, VS staging, BOTF, IPUSH, VL through a Prefetch
 * Window, user registers, the AMT (System Register + LLCM) and the LH
 * Buffer -- no backdoor, so it runs on the board as on the emulator. */
#include <stdlib.h>
#include <string.h>
#include "dnet/msg.h"
#include "dnet/bytes.h"
#include "dnet/codes.h"
#include "dnet/map.h"
#include "dnet/packet.h"
#include "dnet/regs.h"
#include "dnet/request.h"

#define RING_UNIT   4096u   /* IPUSH Area Size unit (D-SIM-IPUSH-AREA) */
#define WW_CHUNK    512u    /* VS staging: one Write Window at a time */
#define ENV_WW_OFF  0x600u  /* LHSv2: the envelope sits in Write Window 3 */
#define PW_CHUNK    512u    /* one Prefetch Window */
/* The envelope's 16-bit Context: [15:14] what the entry is, [13:12] the
 * eager transport, [11:0] the application's context (communicator). */
#define CTX_KIND_SHIFT 14
#define CTX_VIA_SHIFT  12
#define CTX_APP_MASK   0xfffu
enum entry_kind { KIND_EAGER, KIND_RTS, KIND_FIN };
#define RTS_BYTES 12u /* request-to-send: staged address, length, send id (LE 32-bit each) */

struct msg_in {
	struct msg_in *next;
	struct dnet_msg_status st;
	uint8_t *data;
};

struct dnet_msg_req {
	struct dnet_msg_req *next; /* in the posted queue */
	unsigned rank;
	bool send, done;
	int source;
	int64_t tag;
	uint8_t *buf;
	size_t cap;
	struct dnet_msg_status st;
};

struct local_rank {
	unsigned rank, node, wid;
	struct dnet_dev *dev;      /* its node's handle (D-NODE-HANDLE): every access of the rank */
	uint32_t lh_head;          /* next LH Buffer entry to read (byte offset) */
	uint64_t lh_phase;         /* per entry: the flag value that means "complete" */
	bool sending;              /* a primitive of ours is in flight: do not drain here */
	uint32_t rndv_id;          /* last rendezvous send started */
	uint32_t fin_got;          /* last completion received */
	struct msg_in *unx, **unx_tail;
	struct dnet_msg_req *posted, **posted_tail;
	struct dnet_msg_counters c;
};

struct dnet_msg_job {
	struct dnet_dev *dev;      /* as opened: for its clock (each rank acts on its own handle) */
	struct dnet_msg_params p;
	unsigned nranks, nlocal;
	struct dnet_msg_rank *map;
	struct local_rank **loc;   /* by rank; NULL if not driven here */
	struct local_rank *locals;
	uint32_t ring_bytes;
	bool in_progress;
};

void dnet_msg_params_default(struct dnet_msg_params *p)
{
	memset(p, 0, sizeof *p);
	p->eager_max = 16384;
	p->ring_units = 64;
	p->ring_base = 16u << 20;
	p->stage_base = 8u << 20;
	p->stage_size = 8u << 20;
	p->amt_base = 256;
	p->timeout_ns = 10000000000ull;
	p->poll_ns = 1000;
}

size_t dnet_msg_max_len(const struct dnet_msg_job *job, enum dnet_msg_via via)
{
	size_t eager = job->ring_bytes - 8u + DNET_LH_DATA_BYTES;
	if (via == DNET_MSG_VIA_BOTF)
		return DNET_MSG_BOTF_MAX;
	if (via == DNET_MSG_VIA_RNDV || via == DNET_MSG_VIA_AUTO)
		return job->p.stage_size > eager || via == DNET_MSG_VIA_RNDV ? job->p.stage_size : eager;
	return eager < job->p.stage_size - 8u ? eager : job->p.stage_size - 8u;
}

static uint32_t round8(uint64_t v) { return (uint32_t)((v + 7u) & ~7ull); }

static int msg_progress(struct dnet_msg_job *job, struct dnet_err *err);
static uint32_t ureg(const struct local_rank *l, uint32_t reg) { return DNET_UREG_WID(l->wid) + reg; }

/* Let time pass while waiting: drain the other local ranks' LH Buffers
 * (so a local receiver cannot hold up a local sender), then one poll. */
static int pause_once(struct dnet_msg_job *job, struct dnet_err *err)
{
	if (!job->in_progress && msg_progress(job, err) < 0)
		return -1;
	return dnet_delay(job->dev, job->p.poll_ns, err);
}

/* A wait's budget: timeout_ns of device time (poll_ns per poll: virtual
 * time on the emulator) or as much real time, whichever ends first -- a
 * poll over a socket costs far more real time than poll_ns, and ranks in
 * other processes progress in real time. */
struct budget {
	uint64_t polls;
	uint64_t end;  /* dnet_mono_ns */
};

static struct budget budget_start(const struct dnet_msg_job *job)
{
	struct budget b = { .polls = job->p.timeout_ns / (job->p.poll_ns ? job->p.poll_ns : 1) + 1 };
	uint64_t now = dnet_mono_ns();
	b.end = job->p.timeout_ns > UINT64_MAX - now ? UINT64_MAX : now + job->p.timeout_ns;
	return b;
}

static bool budget_left(struct budget *b)
{
	if (!b->polls)
		return false;
	b->polls--;
	return dnet_mono_ns() < b->end;
}

/* Wait until the Request FIFO takes a request (§5.2.2: Controller Status
 * bits 0 and 2 clear), progressing meanwhile. */
static int wait_issue_ready(struct dnet_msg_job *job, struct local_rank *l, struct dnet_err *err)
{
	for (struct budget b = budget_start(job); budget_left(&b);) {
		uint64_t cs;
		if (dnet_read64(l->dev, ureg(l, DNET_UR_CTL_STATUS), &cs, err) < 0)
			return -1;
		if (!(cs & (DNET_CS_REQ_PENDING | DNET_CS_FIFO_FULL)))
			return 0;
		if (pause_once(job, err) < 0)
			return -1;
	}
	return dnet_seterr(err, DNET_ETIMEDOUT, "msg: rank %u: Request FIFO still full", l->rank);
}

static int prim_count(const struct local_rank *l, enum dnet_family fam, unsigned *v, struct dnet_err *err)
{
	uint64_t c;
	if (dnet_read64(l->dev, ureg(l, DNET_UR_PRIM_COUNTER), &c, err) < 0)
		return -1;
	*v = (unsigned)(c >> (10 * fam)) & 0x3ffu;
	return 0;
}

/* Issue one request and wait until its family's Primitive Counter (10
 * bits, wrapping) moves past `before`: the primitive has executed. */
static int issue_and_wait(struct dnet_msg_job *job, struct local_rank *l, enum dnet_cmdsel sel,
			  const struct dnet_cmd *cmd, enum dnet_family fam, struct dnet_err *err)
{
	unsigned before, now;
	if (wait_issue_ready(job, l, err) < 0 || prim_count(l, fam, &before, err) < 0 ||
	    dnet_issue(l->dev, l->wid, sel, cmd, job->p.timeout_ns, err) < 0)
		return -1;
	for (struct budget b = budget_start(job); budget_left(&b);) {
		if (prim_count(l, fam, &now, err) < 0)
			return -1;
		if (now != before)
			return 0;
		if (pause_once(job, err) < 0)
			return -1;
	}
	return dnet_seterr(err, DNET_ETIMEDOUT, "msg: rank %u: %s primitive did not complete", l->rank,
			   dnet_family_name(fam));
}

static int issue_req(struct dnet_msg_job *job, struct local_rank *l, enum dnet_cmdsel sel,
		     const struct dnet_req *r, enum dnet_family fam, struct dnet_err *err)
{
	struct dnet_cmd cmd;
	if (dnet_req_encode(r, &cmd, err) < 0)
		return -1;
	return issue_and_wait(job, l, sel, &cmd, fam, err);
}

/* Copy buf into the rank's own SO-DIMM at off: Write Window, then VS. */
static int stage(struct dnet_msg_job *job, struct local_rank *l, uint32_t off, const uint8_t *buf, size_t len,
		 struct dnet_err *err)
{
	uint8_t chunk[WW_CHUNK];
	for (size_t done = 0; done < len;) {
		size_t n = len - done < WW_CHUNK ? len - done : WW_CHUNK;
		uint32_t n8 = round8(n);
		memcpy(chunk, buf + done, n);
		memset(chunk + n, 0, n8 - n);
		if (dnet_write_block(l->dev, DNET_WW_WID(l->wid), chunk, n8, err) < 0)
			return -1;
		struct dnet_req r = { .otype = DNET_OT_VS, .size = n8, .srcoff = 0, .dstoff = off + (uint32_t)done };
		if (issue_req(job, l, DNET_CMD0, &r, DNET_FAM_VS, err) < 0)
			return -1;
		done += n;
	}
	return 0;
}

/* Read len bytes at off of the SO-DIMM of `from` (NULL: the rank's own)
 * through Prefetch Window 0: VL, or RVL through Command1 from a peer; wait
 * for the window's four line flags (D-SIM-PWFLAG), read it. */
static int sodimm_read(struct dnet_msg_job *job, struct local_rank *l, const struct dnet_msg_rank *from,
		       uint32_t off, uint8_t *buf, size_t len, struct dnet_err *err)
{
	uint8_t chunk[PW_CHUNK];
	for (size_t done = 0; done < len;) {
		size_t n = len - done < PW_CHUNK ? len - done : PW_CHUNK;
		struct dnet_req r = { .otype = from ? DNET_OT_RVL : DNET_OT_VL, .size = round8(n),
				      .srcoff = off + (uint32_t)done, .dstoff = 0 };
		if (from) {
			r.dclid = from->node;
			r.dwid = from->wid;
		}
		if (issue_req(job, l, from ? DNET_CMD1 : DNET_CMD0, &r, from ? DNET_FAM_RVL : DNET_FAM_VL, err) < 0 ||
		    dnet_wait(l->dev, ureg(l, DNET_UR_PW_FLAG), 0xfu, DNET_COND_EQ, 0xfu, job->p.timeout_ns, NULL,
			      err) < 0 ||
		    dnet_read_block(l->dev, DNET_PW_WID(l->wid), chunk, round8(n), err) < 0)
			return -1;
		memcpy(buf + done, chunk, n);
		done += n;
	}
	if (from)
		l->c.pulls++;
	else
		l->c.ring_reads++;
	return 0;
}

/* ---- job set-up ---- */

static int setup_receiver(struct dnet_msg_job *job, struct local_rank *l, struct dnet_err *err)
{
	if (dnet_write64(l->dev, ureg(l, DNET_UR_CMD_EX_FLAG), 0, err) < 0 ||
	    dnet_write64(l->dev, ureg(l, DNET_UR_IPUSH_AREA), job->p.ring_units, err) < 0)
		return -1;
	/* One ring per sender: the AMT maps sender {CLID, WID} to LLCM word
	 * amt_base + s, whose Head/Tail start at the ring's first byte. */
	for (unsigned s = 0; s < job->nranks; s++) {
		unsigned idx = job->p.amt_base + s;
		uint32_t ring = job->p.ring_base + s * job->ring_bytes;
		uint16_t lid = dnet_clid_to_lid(dnet_dev_clid_reading(l->dev), (uint16_t)job->map[s].node);
		uint64_t word = dnet_amt_word(idx, job->map[s].wid, lid);
		if (dnet_write64(l->dev, DNET_SREG_BASE + DNET_SR_AMT, word, err) < 0 ||
		    dnet_write64(l->dev, DNET_LLCM_WID(l->wid) + 8u * idx, (uint64_t)ring << 32 | ring, err) < 0)
			return -1;
	}
	/* Start reading the LH Buffer where the hardware will write next. */
	uint64_t tail;
	if (dnet_read64(l->dev, ureg(l, DNET_UR_LHB_ADDR), &tail, err) < 0)
		return -1;
	l->lh_head = (uint32_t)tail & (DNET_LHB_SIZE - 1u) & ~(DNET_LHB_ENTRY - 1u);
	/* The flags toggle per use (§7.2.1): an entry is complete when both
	 * differ from what they are now.  The Tail moves when an entry is
	 * reserved, before its first packet toggles Valid, so "between Head
	 * and Tail" alone does not mean "written". */
	uint8_t lhb[DNET_LHB_SIZE];
	if (dnet_read_block(l->dev, DNET_LHB_WID(l->wid), lhb, sizeof lhb, err) < 0)
		return -1;
	l->lh_phase = 0;
	for (unsigned k = 0; k < DNET_LHB_ENTRIES; k++)
		if (!(dnet_get64(lhb + k * DNET_LHB_ENTRY + 8) >> DNET_LH_VALID_BIT & 1u))
			l->lh_phase |= 1ull << k;
	return dnet_write64(l->dev, ureg(l, DNET_UR_LHB_ADDR), l->lh_head, err);
}

static int check_params(const struct dnet_msg_params *p, unsigned nranks, struct dnet_err *err)
{
	if (!nranks || nranks > 0x4000u)
		return dnet_seterr(err, DNET_EINVAL, "msg: %u ranks (1-16384: Rank is 14 bits, Fig. 7.6)", nranks);
	if (!p->ring_units || p->ring_units > 0xffffu)
		return dnet_seterr(err, DNET_EINVAL, "msg: ring_units %u out of range (1-65535)", p->ring_units);
	uint64_t rb = (uint64_t)p->ring_units * RING_UNIT;
	if (p->ring_base % rb)
		return dnet_seterr(err, DNET_EALIGN, "msg: ring_base 0x%x is not a multiple of the ring size 0x%llx "
				   "(rings are S-aligned, D-SIM-IPUSH-AREA)", p->ring_base, (unsigned long long)rb);
	uint64_t rend = p->ring_base + rb * nranks, send = (uint64_t)p->stage_base + p->stage_size;
	if (p->stage_size < 64u)
		return dnet_seterr(err, DNET_EINVAL, "msg: stage_size %u too small (at least 64)", p->stage_size);
	if (rend > 0xffffffffull)
		return dnet_seterr(err, DNET_ERANGE, "msg: %u rings of 0x%llx bytes from 0x%x pass 4 GB", nranks,
				   (unsigned long long)rb, p->ring_base);
	if (p->stage_base % 8u || (p->stage_base < rend && send > p->ring_base))
		return dnet_seterr(err, DNET_EINVAL, "msg: staging area 0x%x-0x%llx overlaps the rings 0x%x-0x%llx "
				   "or is not 8-byte aligned", p->stage_base, (unsigned long long)send, p->ring_base,
				   (unsigned long long)rend);
	/* AMT entry i is LLCM word i (8 bytes at 8 x i) */
	uint64_t alo = 8ull * p->amt_base, ahi = 8ull * ((uint64_t)p->amt_base + nranks);
	if (ahi > DNET_LLCM_SIZE)
		return dnet_seterr(err, DNET_ERANGE, "msg: AMT entries %u-%llu pass the LLCM (%u words)", p->amt_base,
				   (unsigned long long)(ahi / 8 - 1), DNET_LLCM_SIZE / 8);
	if (p->llcm_reserved_len && alo < (uint64_t)p->llcm_reserved + p->llcm_reserved_len && ahi > p->llcm_reserved)
		return dnet_seterr(err, DNET_ERANGE, "msg: AMT entries %u-%llu (LLCM 0x%llx-0x%llx) overlap the reserved "
				   "LLCM 0x%x-0x%llx (llcm_reserved: the caller keeps it for itself)", p->amt_base,
				   (unsigned long long)(ahi / 8 - 1), (unsigned long long)alo, (unsigned long long)ahi - 1,
				   p->llcm_reserved, (unsigned long long)p->llcm_reserved + p->llcm_reserved_len - 1);
	if (p->context > CTX_APP_MASK)
		return dnet_seterr(err, DNET_EINVAL, "msg: context 0x%x wider than 12 bits", p->context);
	return 0;
}

int dnet_msg_job_open(struct dnet_dev *dev, unsigned nranks, const struct dnet_msg_rank *map,
		      const unsigned *local, unsigned nlocal, const struct dnet_msg_params *p,
		      struct dnet_msg_job **jobp, struct dnet_err *err)
{
	struct dnet_msg_params def;
	if (!p) {
		dnet_msg_params_default(&def);
		p = &def;
	}
	if (check_params(p, nranks, err) < 0)
		return -1;
	struct dnet_msg_job *job = calloc(1, sizeof *job);
	if (!job)
		return dnet_seterr(err, DNET_ENOMEM, "msg: out of memory");
	job->dev = dev;
	job->p = *p;
	job->nranks = nranks;
	job->ring_bytes = p->ring_units * RING_UNIT;
	job->map = calloc(nranks, sizeof *job->map);
	job->loc = calloc(nranks, sizeof *job->loc);
	job->nlocal = local ? nlocal : nranks;
	job->locals = calloc(job->nlocal ? job->nlocal : 1, sizeof *job->locals);
	if (!job->map || !job->loc || !job->locals) {
		dnet_msg_job_close(job);
		return dnet_seterr(err, DNET_ENOMEM, "msg: out of memory");
	}
	for (unsigned r = 0; r < nranks; r++) {
		job->map[r] = map ? map[r] : (struct dnet_msg_rank){ .node = r + 1, .wid = 0 };
		const struct dnet_msg_rank *m = &job->map[r];
		const char *why = m->wid >= DNET_NWID ? "WID out of range (0-1)" :
				  !m->node || m->node > DNET_CLID_MAX_UNICAST ? "node is not a unicast CLID" : NULL;
		for (unsigned q = 0; !why && q < r; q++)
			if (job->map[q].node == m->node && job->map[q].wid == m->wid)
				why = "node and WID already taken by another rank (the AMT tells senders by them)";
		if (why) {
			int rc = dnet_seterr(err, DNET_EINVAL, "msg: rank %u (node %u, WID %u): %s", r, m->node,
					     m->wid, why);
			dnet_msg_job_close(job);
			return rc;
		}
	}
	for (unsigned i = 0; i < job->nlocal; i++) {
		unsigned r = local ? local[i] : i;
		if (r >= nranks || job->loc[r]) {
			dnet_msg_job_close(job);
			return dnet_seterr(err, DNET_EINVAL, "msg: local rank %u %s", r,
					   r >= nranks ? "is not in the job" : "given twice");
		}
		struct local_rank *l = &job->locals[i];
		l->rank = r;
		l->node = job->map[r].node;
		l->wid = job->map[r].wid;
		l->dev = dnet_node_dev(dev, l->node, err);
		if (!l->dev) {
			dnet_msg_job_close(job);
			return -1;
		}
		l->unx_tail = &l->unx;
		l->posted_tail = &l->posted;
		job->loc[r] = l;
		if (setup_receiver(job, l, err) < 0) {
			dnet_msg_job_close(job);
			return -1;
		}
	}
	*jobp = job;
	return 0;
}

void dnet_msg_job_close(struct dnet_msg_job *job)
{
	if (!job)
		return;
	for (unsigned i = 0; job->locals && i < job->nlocal; i++) {
		struct local_rank *l = &job->locals[i];
		for (struct msg_in *m = l->unx, *nx; m; m = nx) {
			nx = m->next;
			free(m->data);
			free(m);
		}
		for (struct dnet_msg_req *q = l->posted, *nx; q; q = nx) {
			nx = q->next;
			free(q);
		}
	}
	free(job->locals);
	free(job->loc);
	free(job->map);
	free(job);
}

/* ---- send ---- */

static int send_botf(struct dnet_msg_job *job, struct local_rank *l, const struct dnet_msg_rank *dst,
		     uint64_t env, const void *buf, size_t len, struct dnet_err *err)
{
	/* §7.2.2: the host builds the packet -- header TYPE IPUSH, lflag 1,
	 * then the envelope and the data -- and sends it as a BOTF. */
	uint16_t dlid = dnet_clid_to_lid(dnet_dev_clid_reading(l->dev), (uint16_t)dst->node);
	struct dnet_pkt_hdr h = { .size = (unsigned)(16u + 8u + len), .type = DNET_OT_IPUSH, .dwid = dst->wid,
				  .swid = l->wid, .dlid = dlid, .lflag = 1 };
	uint64_t dw[DNET_HDR_MAX_LINES];
	unsigned nl;
	uint8_t img[DNET_BOTF_MAX] = { 0 };
	if (dnet_hdr_encode(&h, dw, &nl, err) < 0)
		return -1;
	dnet_put64(img, dw[0]);
	dnet_put64(img + 8, dw[1]);
	dnet_put64(img + 16, env);
	memcpy(img + 24, buf, len);
	struct dnet_botf_req b = { .ww = 0, .size = h.size };
	struct dnet_cmd cmd = { .lower_only = true };
	if (dnet_botf_encode(&b, &cmd.lower, err) < 0 || wait_issue_ready(job, l, err) < 0 ||
	    dnet_write_block(l->dev, DNET_WW_WID(l->wid), img, round8(h.size), err) < 0)
		return -1;
	return issue_and_wait(job, l, DNET_CMD0, &cmd, DNET_FAM_BOTF, err);
}

static int send_lhs(struct dnet_msg_job *job, struct local_rank *l, const struct dnet_msg_rank *dst,
		    uint64_t env, const uint8_t *buf, size_t len, bool v2, struct dnet_err *err)
{
	struct dnet_req r = { .dwid = dst->wid, .dclid = dst->node, .size = (uint32_t)(8u + len) };
	if (v2) {
		/* LHSv2 (Fig. 7.8): the envelope from a Write Window, the body
		 * from the SO-DIMM. */
		uint8_t e[8];
		dnet_put64(e, env);
		struct dnet_lhsv2_upper u = { .srcoff = job->p.stage_base, .ww_size = 8, .ww_addr = ENV_WW_OFF };
		uint64_t upper;
		if (stage(job, l, job->p.stage_base, buf, len, err) < 0 ||
		    dnet_lhsv2_upper_encode(&u, &upper, err) < 0 ||
		    dnet_write_block(l->dev, DNET_WW_WID(l->wid) + ENV_WW_OFF, e, 8, err) < 0)
			return -1;
		r.otype = DNET_OT_LHSV2;
		r.srcoff = (uint32_t)upper;
		r.dstoff = (uint32_t)(upper >> 32);
	} else {
		uint8_t *m = malloc(8u + len);
		if (!m)
			return dnet_seterr(err, DNET_ENOMEM, "msg: out of memory");
		dnet_put64(m, env);
		if (len)
			memcpy(m + 8, buf, len);
		int rc = stage(job, l, job->p.stage_base, m, 8u + len, err);
		free(m);
		if (rc < 0)
			return -1;
		r.otype = DNET_OT_LHSV1;
		r.srcoff = job->p.stage_base;
	}
	return issue_req(job, l, DNET_CMD0, &r, DNET_FAM_IPUSH, err);
}

static uint64_t envelope(const struct dnet_msg_job *job, enum entry_kind k, enum dnet_msg_via via, unsigned rank,
			 uint32_t tag)
{
	unsigned v = via == DNET_MSG_VIA_RNDV ? 0 : (unsigned)via;
	return dnet_envelope(job->p.context | (unsigned)k << CTX_KIND_SHIFT | v << CTX_VIA_SHIFT, rank, tag);
}

/* Rendezvous: stage the body, send the request-to-send, wait for the
 * receiver's completion (draining our own LH Buffer meanwhile: nothing of
 * ours is in flight then). */
static int send_rndv(struct dnet_msg_job *job, struct local_rank *l, unsigned dest, uint32_t tag,
		     const uint8_t *buf, size_t len, struct dnet_err *err)
{
	uint32_t id = ++l->rndv_id;
	uint8_t rts[RTS_BYTES];
	dnet_put32(rts, job->p.stage_base);
	dnet_put32(rts + 4, (uint32_t)len);
	dnet_put32(rts + 8, id);
	l->sending = true;
	int rc = stage(job, l, job->p.stage_base, buf, len, err);
	if (!rc)
		rc = send_botf(job, l, &job->map[dest], envelope(job, KIND_RTS, DNET_MSG_VIA_RNDV, l->rank, tag), rts,
			       sizeof rts, err);
	l->sending = false;
	if (rc < 0)
		return -1;
	for (struct budget b = budget_start(job); budget_left(&b);) {
		if (l->fin_got == id)
			return 0;
		if (msg_progress(job, err) < 0)
			return -1;
		if (l->fin_got == id)
			return 0;
		if (dnet_delay(job->dev, job->p.poll_ns, err) < 0)
			return -1;
	}
	return dnet_seterr(err, DNET_ETIMEDOUT, "msg: rank %u: rendezvous to rank %u: no completion (is rank %u "
			   "receiving?)", l->rank, dest, dest);
}

int dnet_msg_isend(struct dnet_msg_job *job, unsigned rank, unsigned dest, uint32_t tag, const void *buf,
		   size_t len, enum dnet_msg_via via, struct dnet_msg_req **req, struct dnet_err *err)
{
	if (rank >= job->nranks || !job->loc[rank])
		return dnet_seterr(err, DNET_EINVAL, "msg: rank %u is not driven by this program", rank);
	if (dest >= job->nranks)
		return dnet_seterr(err, DNET_EINVAL, "msg: destination rank %u not in the job (0-%u)", dest,
				   job->nranks - 1);
	if ((unsigned)via > DNET_MSG_VIA_RNDV)
		return dnet_seterr(err, DNET_EINVAL, "msg: unknown transport %d", (int)via);
	if (len > dnet_msg_max_len(job, via))
		return dnet_seterr(err, DNET_ERANGE, "msg: %zu bytes do not fit %s (at most %zu)", len,
				   via == DNET_MSG_VIA_BOTF ? "one BOTF"
				   : via == DNET_MSG_VIA_RNDV || via == DNET_MSG_VIA_AUTO ? "the staging area (stage_size)"
				   : "the receive ring (ring_units) and the staging area", dnet_msg_max_len(job, via));
	if (via == DNET_MSG_VIA_AUTO)
		via = len <= DNET_MSG_BOTF_MAX ? DNET_MSG_VIA_BOTF
		      : len <= job->p.eager_max && len <= dnet_msg_max_len(job, DNET_MSG_VIA_LHSV2) ? DNET_MSG_VIA_LHSV2
		      : DNET_MSG_VIA_RNDV;
	struct local_rank *l = job->loc[rank];
	struct dnet_msg_req *q = calloc(1, sizeof *q);
	if (!q)
		return dnet_seterr(err, DNET_ENOMEM, "msg: out of memory");
	int rc;
	if (via == DNET_MSG_VIA_RNDV) {
		rc = send_rndv(job, l, dest, tag, buf, len, err);
		l->c.sent_rndv += rc == 0;
	} else {
		uint64_t env = envelope(job, KIND_EAGER, via, rank, tag);
		l->sending = true;
		rc = via == DNET_MSG_VIA_BOTF ? send_botf(job, l, &job->map[dest], env, buf, len, err)
					      : send_lhs(job, l, &job->map[dest], env, buf, len, via == DNET_MSG_VIA_LHSV2, err);
		l->sending = false;
	}
	if (rc < 0) {
		free(q);
		return -1;
	}
	l->c.sent++;
	*q = (struct dnet_msg_req){ .rank = rank, .send = true, .done = true,
				    .st = { .source = rank, .tag = tag, .len = len, .via = via } };
	*req = q;
	return 0;
}

int dnet_msg_send(struct dnet_msg_job *job, unsigned rank, unsigned dest, uint32_t tag, const void *buf,
		  size_t len, enum dnet_msg_via via, struct dnet_err *err)
{
	struct dnet_msg_req *q;
	if (dnet_msg_isend(job, rank, dest, tag, buf, len, via, &q, err) < 0)
		return -1;
	return dnet_msg_wait(job, q, NULL, err);
}

/* ---- receive ---- */

static bool matches(int source, int64_t tag, const struct dnet_msg_status *st)
{
	return (source == DNET_MSG_ANY_SOURCE || (unsigned)source == st->source) &&
	       (tag == DNET_MSG_ANY_TAG || (uint32_t)tag == st->tag);
}

static void complete_recv(struct dnet_msg_req *q, const struct msg_in *m)
{
	size_t n = m->st.len < q->cap ? m->st.len : q->cap;
	if (n)
		memcpy(q->buf, m->data, n);
	q->st = m->st;
	q->st.truncated = m->st.len > q->cap;
	q->done = true;
}

/* A message arrived for l: the first posted receive it matches takes it,
 * else it waits in the unexpected queue (arrival order). */
static void deliver(struct local_rank *l, struct msg_in *m)
{
	l->c.received++;
	for (struct dnet_msg_req **pp = &l->posted; *pp; pp = &(*pp)->next) {
		struct dnet_msg_req *q = *pp;
		if (!matches(q->source, q->tag, &m->st))
			continue;
		complete_recv(q, m);
		*pp = q->next;
		if (!*pp)
			l->posted_tail = pp;
		q->next = NULL;
		free(m->data);
		free(m);
		return;
	}
	l->c.unexpected++;
	m->next = NULL;
	*l->unx_tail = m;
	l->unx_tail = &m->next;
}

/* Give the LH entry at the head back (LH Buffer Head, Next Read). */
static int free_entry(struct local_rank *l, unsigned slot, struct dnet_err *err)
{
	l->lh_phase ^= 1ull << slot;
	l->lh_head = (l->lh_head + DNET_LHB_ENTRY) & (DNET_LHB_SIZE - 1u);
	if (dnet_write64(l->dev, ureg(l, DNET_UR_LHB_ADDR), l->lh_head, err) < 0)
		return -1;
	l->c.lh_entries_freed++;
	return 0;
}

/* A request-to-send at the head of l's LH Buffer: free the entry, pull
 * the body from the sender's SO-DIMM (RVL), answer with the completion,
 * deliver the message. */
static int pull(struct dnet_msg_job *job, struct local_rank *l, const struct dnet_lh_entry *e,
		struct dnet_err *err)
{
	uint32_t addr = dnet_get32(e->data), len = dnet_get32(e->data + 4), id = dnet_get32(e->data + 8);
	unsigned src = e->rank;
	if (free_entry(l, l->lh_head / DNET_LHB_ENTRY, err) < 0)
		return -1;
	struct msg_in *m = calloc(1, sizeof *m);
	uint8_t *data = malloc(len ? len : 1);
	if (!m || !data) {
		free(m);
		free(data);
		return dnet_seterr(err, DNET_ENOMEM, "msg: out of memory (%u-byte rendezvous message)", len);
	}
	m->data = data;
	m->st = (struct dnet_msg_status){ .source = src, .tag = e->tag, .len = len, .via = DNET_MSG_VIA_RNDV };
	uint8_t fin[4];
	dnet_put32(fin, id);
	if (sodimm_read(job, l, &job->map[src], addr, data, len, err) < 0 ||
	    send_botf(job, l, &job->map[src], envelope(job, KIND_FIN, DNET_MSG_VIA_RNDV, l->rank, e->tag), fin,
		      sizeof fin, err) < 0) {
		free(data);
		free(m);
		return -1;
	}
	deliver(l, m);
	return 0;
}

/* Read every complete LH entry of l in order, free it and its ring space. */
static int drain(struct dnet_msg_job *job, struct local_rank *l, struct dnet_err *err)
{
	for (;;) {
		uint64_t tail, line[8];
		if (dnet_read64(l->dev, ureg(l, DNET_UR_LHB_ADDR), &tail, err) < 0)
			return -1;
		if (((uint32_t)tail & (DNET_LHB_SIZE - 1u)) == l->lh_head)
			return 0;
		uint8_t raw[DNET_LHB_ENTRY];
		if (dnet_read_block(l->dev, DNET_LHB_WID(l->wid) + l->lh_head, raw, sizeof raw, err) < 0)
			return -1;
		for (unsigned i = 0; i < 8; i++)
			line[i] = dnet_get64(raw + 8 * i);
		struct dnet_lh_entry e;
		dnet_lh_decode(line, &e);
		/* Valid toggles on the first packet, Complete on the last
		 * (§7.2.1): both at this lap's value means the whole message
		 * is in. */
		unsigned slot = l->lh_head / DNET_LHB_ENTRY, want = (unsigned)(l->lh_phase >> slot & 1u);
		if (e.valid != want || e.complete != want)
			return 0;
		unsigned kind = e.context >> CTX_KIND_SHIFT, via = e.context >> CTX_VIA_SHIFT & 3u;
		if ((e.context & CTX_APP_MASK) != job->p.context || e.rank >= job->nranks || kind > KIND_FIN ||
		    (kind == KIND_EAGER && via == DNET_MSG_VIA_AUTO) ||
		    (kind != KIND_EAGER && e.size != (kind == KIND_RTS ? RTS_BYTES : 4u)))
			return dnet_seterr(err, DNET_EPROTO, "msg: rank %u: LH entry %u has envelope context 0x%x "
					   "rank %u: not a message of this job", l->rank, l->lh_head / DNET_LHB_ENTRY,
					   e.context, e.rank);
		if (kind == KIND_FIN) {
			/* Our rendezvous send to e.rank is complete. */
			l->fin_got = dnet_get32(e.data);
			if (free_entry(l, slot, err) < 0)
				return -1;
			continue;
		}
		if (kind == KIND_RTS) {
			if (pull(job, l, &e, err) < 0)
				return -1;
			continue;
		}
		struct msg_in *m = calloc(1, sizeof *m);
		uint8_t *data = malloc(e.size ? e.size : 1);
		if (!m || !data) {
			free(m);
			free(data);
			return dnet_seterr(err, DNET_ENOMEM, "msg: out of memory");
		}
		m->data = data;
		m->st = (struct dnet_msg_status){ .source = e.rank, .tag = e.tag, .len = e.size, .via = via };
		memcpy(data, e.data, e.size < DNET_LH_DATA_BYTES ? e.size : DNET_LH_DATA_BYTES);
		uint32_t ring_len = e.size > DNET_LH_DATA_BYTES ? e.size - DNET_LH_DATA_BYTES : 0;
		if (ring_len) {
			uint64_t off = (uint64_t)e.pointer - job->p.ring_base;
			unsigned s = (unsigned)(off / job->ring_bytes);
			if (e.pointer < job->p.ring_base || s >= job->nranks ||
			    off % job->ring_bytes + round8(ring_len) > job->ring_bytes) {
				free(data);
				free(m);
				return dnet_seterr(err, DNET_EPROTO, "msg: rank %u: LH entry points at 0x%x+%u, outside "
						   "the receive rings", l->rank, e.pointer, ring_len);
			}
			if (sodimm_read(job, l, NULL, e.pointer, data + DNET_LH_DATA_BYTES, ring_len, err) < 0) {
				free(data);
				free(m);
				return -1;
			}
			/* Free the ring space: AMT Head past this message, back to
			 * the ring's start at its end (D-SIM-IPUSH-RING). */
			uint32_t start = job->p.ring_base + s * job->ring_bytes;
			uint32_t head = e.pointer + round8(ring_len);
			if (head == start + job->ring_bytes)
				head = start;
			if (dnet_write32(l->dev, DNET_LLCM_WID(l->wid) + 8u * (job->p.amt_base + s), head, err) < 0) {
				free(data);
				free(m);
				return -1;
			}
			l->c.ring_bytes_freed += round8(ring_len);
		}
		if (free_entry(l, slot, err) < 0) {
			free(data);
			free(m);
			return -1;
		}
		deliver(l, m);
	}
}

/* One pass of the progress engine over every local rank. */
static int msg_progress(struct dnet_msg_job *job, struct dnet_err *err)
{
	if (job->in_progress)
		return 0;
	job->in_progress = true;
	int rc = 0;
	for (unsigned i = 0; i < job->nlocal && !rc; i++)
		if (!job->locals[i].sending)
			rc = drain(job, &job->locals[i], err);
	job->in_progress = false;
	return rc;
}

int dnet_msg_irecv(struct dnet_msg_job *job, unsigned rank, int source, int64_t tag, void *buf, size_t cap,
		   struct dnet_msg_req **req, struct dnet_err *err)
{
	if (rank >= job->nranks || !job->loc[rank])
		return dnet_seterr(err, DNET_EINVAL, "msg: rank %u is not driven by this program", rank);
	if (source != DNET_MSG_ANY_SOURCE && (source < 0 || (unsigned)source >= job->nranks))
		return dnet_seterr(err, DNET_EINVAL, "msg: source rank %d not in the job", source);
	if (tag != DNET_MSG_ANY_TAG && (tag < 0 || tag > 0xffffffffll))
		return dnet_seterr(err, DNET_EINVAL, "msg: tag %lld is not 32 bits", (long long)tag);
	struct local_rank *l = job->loc[rank];
	struct dnet_msg_req *q = calloc(1, sizeof *q);
	if (!q)
		return dnet_seterr(err, DNET_ENOMEM, "msg: out of memory");
	*q = (struct dnet_msg_req){ .rank = rank, .source = source, .tag = tag, .buf = buf, .cap = cap };
	for (struct msg_in **pp = &l->unx; *pp; pp = &(*pp)->next) {
		struct msg_in *m = *pp;
		if (!matches(source, tag, &m->st))
			continue;
		complete_recv(q, m);
		*pp = m->next;
		if (!*pp)
			l->unx_tail = pp;
		free(m->data);
		free(m);
		*req = q;
		return 0;
	}
	*l->posted_tail = q;
	l->posted_tail = &q->next;
	*req = q;
	return 0;
}

int dnet_msg_test(struct dnet_msg_job *job, struct dnet_msg_req *req, bool *done, struct dnet_msg_status *st,
		  struct dnet_err *err)
{
	if (!req->done && msg_progress(job, err) < 0)
		return -1;
	*done = req->done;
	if (req->done) {
		if (st)
			*st = req->st;
		free(req);
	}
	return 0;
}

int dnet_msg_wait(struct dnet_msg_job *job, struct dnet_msg_req *req, struct dnet_msg_status *st,
		  struct dnet_err *err)
{
	for (struct budget b = budget_start(job); budget_left(&b);) {
		bool done;
		if (dnet_msg_test(job, req, &done, st, err) < 0)
			return -1;
		if (done)
			return 0;
		if (dnet_delay(job->dev, job->p.poll_ns, err) < 0)
			return -1;
	}
	return dnet_seterr(err, DNET_ETIMEDOUT, "msg: rank %u: no matching message within %llu ns", req->rank,
			   (unsigned long long)job->p.timeout_ns);
}

int dnet_msg_recv(struct dnet_msg_job *job, unsigned rank, int source, int64_t tag, void *buf, size_t cap,
		  struct dnet_msg_status *st, struct dnet_err *err)
{
	struct dnet_msg_req *q;
	if (dnet_msg_irecv(job, rank, source, tag, buf, cap, &q, err) < 0)
		return -1;
	if (dnet_msg_wait(job, q, st, err) < 0) {
		/* Withdraw the posted receive: its buffer is the caller's. */
		struct local_rank *l = job->loc[rank];
		for (struct dnet_msg_req **pp = &l->posted; *pp; pp = &(*pp)->next)
			if (*pp == q) {
				*pp = q->next;
				if (!*pp)
					l->posted_tail = pp;
				break;
			}
		free(q);
		return -1;
	}
	return 0;
}

int dnet_msg_probe(struct dnet_msg_job *job, unsigned rank, int source, int64_t tag, bool *found,
		   struct dnet_msg_status *st, struct dnet_err *err)
{
	if (rank >= job->nranks || !job->loc[rank])
		return dnet_seterr(err, DNET_EINVAL, "msg: rank %u is not driven by this program", rank);
	if (msg_progress(job, err) < 0)
		return -1;
	*found = false;
	for (struct msg_in *m = job->loc[rank]->unx; m; m = m->next)
		if (matches(source, tag, &m->st)) {
			*found = true;
			if (st)
				*st = m->st;
			break;
		}
	return 0;
}

int dnet_msg_counters(struct dnet_msg_job *job, unsigned rank, struct dnet_msg_counters *c)
{
	if (rank >= job->nranks || !job->loc[rank])
		return -1;
	*c = job->loc[rank]->c;
	return 0;
}
