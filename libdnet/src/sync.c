/* Ranks synchronising through the device (sync.h): the run-joining
 * protocol (docs/decisions.md D-SYNC-RUN), the dissemination barrier and
 * signals, as one step function that the blocking calls drive with pauses
 * and dnet_sync_test drives one step at a time.
 *
 * Joining (the first barrier, signal or waitfor of a rank):
 *   1. rank 0 opens the run: it draws the generation G and writes the
 *      offer {run id, G} into the open word of every other rank;
 *   2. rank r answers an offer of its run id with a request {N, G} into
 *      rank 0's signal word for r, N a fresh random nonce of its own;
 *   3. rank 0 admits a request that names its G (proof that rank r is
 *      alive in this run) with the answer {N, G} into rank r's open word;
 *      rank r joins when its open word holds its own N (proof that the
 *      answer is fresh: nothing of an earlier run can carry N).
 * Rank 0's first operation waits until every rank has joined, the others'
 * until rank 0 has answered them.  No rank clears the area.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "dnet/backend.h" /* core_stopped */
#include "dnet/codes.h"
#include "dnet/map.h"
#include "dnet/sync.h"

enum op_kind { OP_NONE, OP_BARRIER, OP_SIGNAL, OP_WAITFOR };

struct dnet_sync {
	struct dnet_dev *dev;
	unsigned rank, size;
	struct dnet_msg_rank *peer;  /* [size] */
	uint32_t run_id, area;
	struct dnet_sync_ops user;   /* the caller's hooks (NULL members: the defaults) */
	void *ctx;                   /* theirs */
	uint32_t gen;                /* the run's generation, 0 until known (rank 0: opened) */
	uint32_t nonce;              /* rank > 0: the join nonce */
	uint32_t echo;               /* rank > 0: the offer answered last */
	bool offered;                /* rank 0: offers sent to every rank */
	bool *joined;                /* rank 0: [size], the ranks it admitted */
	unsigned unjoined;           /* rank 0: ranks not admitted yet */
	uint64_t *words;             /* rank 0: [size], its signal words as admit reads them */
	uint32_t barriers;           /* barriers begun after joining */
	uint32_t *sent, *got;        /* [size]: signals per peer */
	uint64_t fresh_calls;
	struct {                     /* the one word the last load read (a lockstep pause waits on it) */
		bool valid;
		uint32_t off;            /* LLCM offset */
		uint64_t value;
	} watch;
	struct {                     /* the operation under way */
		enum op_kind kind;
		unsigned peer;           /* signal / waitfor: the other rank */
		uint64_t tmo, deadline;
		bool joined;             /* the join step is behind */
		uint32_t number;         /* barrier: its number; waitfor: the count awaited */
		unsigned round;
		bool stored;             /* barrier: this round's flag is sent */
		unsigned spin;           /* polls since the last progress (the blocking calls' pauses) */
	} op;
};

/* ---- the default hooks: libdnet's primitives on the rank's node ---- */

static int def_store(void *ctx, unsigned node, unsigned wid, uint32_t off, uint64_t v, struct dnet_err *err)
{
	struct dnet_sync *s = ctx;
	unsigned me = s->peer[s->rank].wid;
	struct dnet_sync_flag_pkt p;
	uint32_t addr;
	int rc;
	if ((rc = dnet_sync_flag_pkt(dnet_dev_clid_reading(s->dev), me, node, wid, 0, off, v, DNET_SYNC_WW, &p,
				     err)) < 0 ||
	    (rc = dnet_region_addr(DNET_REG_WW, me, DNET_SYNC_WW * DNET_WINDOW_SIZE, (uint32_t)p.len, &addr, err)) < 0 ||
	    (rc = dnet_write_block(s->dev, addr, p.bytes, p.len, err)) < 0)
		return rc;
	return dnet_issue(s->dev, me, DNET_CMD0, &p.cmd, s->op.tmo, err);
}

static int def_load(void *ctx, uint32_t off, uint64_t *v, unsigned n, struct dnet_err *err)
{
	struct dnet_sync *s = ctx;
	uint32_t addr;
	int rc;
	if ((rc = dnet_region_addr(DNET_REG_LLCM, s->peer[s->rank].wid, off, 8 * n, &addr, err)) < 0)
		return rc;
	return n == 1 ? dnet_read64(s->dev, addr, v, err) : dnet_read_block(s->dev, addr, v, 8u * n, err);
}

/* The hooks: the caller's, else the default (which gets the object). */
static int do_store(struct dnet_sync *s, unsigned node, unsigned wid, uint32_t off, uint64_t v, struct dnet_err *err)
{
	return s->user.store ? s->user.store(s->ctx, node, wid, off, v, err) : def_store(s, node, wid, off, v, err);
}

static int do_load(struct dnet_sync *s, uint32_t off, uint64_t *v, unsigned n, struct dnet_err *err)
{
	int rc = s->user.load ? s->user.load(s->ctx, off, v, n, err) : def_load(s, off, v, n, err);
	/* the word a lockstep pause waits on (poll_pause): the hook reads this
	 * rank's own LLCM at off too, whatever view of it the caller keeps */
	s->watch.valid = rc == 0 && n == 1;
	if (s->watch.valid) {
		s->watch.off = off;
		s->watch.value = *v;
	}
	return rc;
}

static uint64_t now_ns(struct dnet_sync *s)
{
	return s->user.now_ns ? s->user.now_ns(s->ctx) : dnet_mono_ns();
}

static bool stopped(struct dnet_sync *s)
{
	return s->user.stop ? s->user.stop(s->ctx) : core_stopped(s->dev); /* default: the device's hook */
}

int dnet_sync_flag_pkt(enum dnet_clid_reading clid_reading, unsigned swid, unsigned node, unsigned dwid,
		       unsigned ef, uint32_t off, uint64_t v, unsigned ww, struct dnet_sync_flag_pkt *p,
		       struct dnet_err *err)
{
	memset(p, 0, sizeof *p);
	struct dnet_pkt_hdr *h = &p->hdr;
	h->type = DNET_OT_RVS;
	h->dwid = dwid;
	h->swid = swid;
	h->dlid = dnet_clid_to_lid(clid_reading, (uint16_t)node);
	h->eflag = ef;
	h->lflag = 1;
	h->src_or_init_dst = off;
	h->dstoff = off;
	h->size = 2 * 8 + 8;
	/* twice: the header's length depends on the size it encodes */
	int rc;
	if ((rc = dnet_hdr_encode(h, p->img, &p->lines, err)) < 0)
		return rc;
	h->size = p->lines * 8 + 8;
	if ((rc = dnet_hdr_encode(h, p->img, &p->lines, err)) < 0)
		return rc;
	p->img[p->lines] = v;
	p->len = (p->lines + 1) * 8;
	for (unsigned i = 0; i <= p->lines; i++)
		for (unsigned k = 0; k < 8; k++)
			p->bytes[i * 8 + k] = (uint8_t)(p->img[i] >> (8 * k));
	struct dnet_botf_req b = { .ww = ww, .size = h->size };
	p->cmd.lower_only = true;
	return dnet_botf_encode(&b, &p->cmd.lower, err);
}

/* ---- a run ---- */

static int area_check(uint32_t area, struct dnet_err *err)
{
	if (area % 8 || area > DNET_LLCM_SIZE - DNET_SYNC_AREA_SIZE)
		return dnet_seterr(err, DNET_EINVAL, "sync: flag area 0x%" PRIx32 " is not an 8-aligned LLCM offset "
				   "with 0x%x bytes after it", area, DNET_SYNC_AREA_SIZE);
	return 0;
}

/* Every rank its own flag area (D-SYNC-PEERS): two ranks on one node and
 * WID would poll one area, and each would take the other's flags for its
 * own, so every barrier after the first passed at once. */
static int peers_check(const struct dnet_sync_params *p, struct dnet_err *err)
{
	for (unsigned r = 0; p->peers && r < p->size; r++) {
		const struct dnet_msg_rank *a = &p->peers[r];
		if (a->node < 1 || a->node > DNET_CLID_MAX_UNICAST || a->wid >= DNET_NWID)
			return dnet_seterr(err, DNET_EINVAL, "sync: rank %u is on node %u WID %u (nodes 1-0x%x, "
					   "WID 0-%u)", r, a->node, a->wid, DNET_CLID_MAX_UNICAST, DNET_NWID - 1);
		for (unsigned q = 0; q < r; q++)
			if (p->peers[q].node == a->node && p->peers[q].wid == a->wid)
				return dnet_seterr(err, DNET_EINVAL, "sync: ranks %u and %u are both on node %u WID %u: "
						   "two ranks on one CLID:WID would share a flag area (every rank "
						   "needs its own node or WID)", q, r, a->node, a->wid);
	}
	return 0;
}

void dnet_sync_params_default(struct dnet_sync_params *p)
{
	memset(p, 0, sizeof *p);
	p->size = 1;
	p->run_id = 1;
	p->area = DNET_SYNC_AREA;
}

int dnet_sync_open(struct dnet_dev *dev, const struct dnet_sync_params *p, struct dnet_sync **sp,
		   struct dnet_err *err)
{
	*sp = NULL;
	if (!dev || p->size < 1 || p->size > DNET_SYNC_MAX_RANKS || p->rank >= p->size)
		return dnet_seterr(err, DNET_EINVAL, "sync: rank %u of %u ranks (1..%d ranks, a device needed)", p->rank,
				   p->size, DNET_SYNC_MAX_RANKS);
	uint32_t area = p->area;
	if (area_check(area, err) < 0 || peers_check(p, err) < 0)
		return -DNET_EINVAL;
	struct dnet_sync *s = calloc(1, sizeof *s);
	if (!s)
		return dnet_seterr(err, DNET_ENOMEM, "out of memory");
	s->peer = calloc(p->size, sizeof *s->peer);
	s->joined = calloc(p->size, sizeof *s->joined);
	s->words = calloc(p->size, sizeof *s->words);
	s->sent = calloc(p->size, sizeof *s->sent);
	s->got = calloc(p->size, sizeof *s->got);
	if (!s->peer || !s->joined || !s->words || !s->sent || !s->got) {
		dnet_sync_close(s);
		return dnet_seterr(err, DNET_ENOMEM, "out of memory for %u ranks", p->size);
	}
	for (unsigned r = 0; r < p->size; r++)
		s->peer[r] = p->peers ? p->peers[r] : (struct dnet_msg_rank){ r + 1, 0 };
	/* The object acts through its rank's node's handle (D-NODE-HANDLE);
	 * a backend attached to one node (remote node=K, a board) is that one. */
	unsigned node = s->peer[p->rank].node;
	if (dnet_node_count(dev) > 1 && dnet_node(dev) != node && !(dev = dnet_node_dev(dev, node, err))) {
		dnet_sync_close(s);
		return -DNET_ERANGE;
	}
	s->dev = dev;
	s->rank = p->rank;
	s->size = p->size;
	s->run_id = p->run_id;
	s->area = area;
	if (p->ops)
		s->user = *p->ops;
	s->ctx = p->ctx;
	*sp = s;
	return 0;
}

void dnet_sync_close(struct dnet_sync *s)
{
	if (!s)
		return;
	free(s->peer);
	free(s->joined);
	free(s->words);
	free(s->sent);
	free(s->got);
	free(s);
}

int dnet_sync_set_area(struct dnet_sync *s, uint32_t area, struct dnet_err *err)
{
	if (area_check(area, err) < 0)
		return -DNET_EINVAL;
	if (s->gen && area != s->area)
		return dnet_seterr(err, DNET_EINVAL, "sync: this rank has joined the run with its flags at LLCM 0x%"
				   PRIx32 " already", s->area);
	s->area = area;
	return 0;
}

uint32_t dnet_sync_generation(const struct dnet_sync *s)
{
	return s->gen;
}

/* ---- joining (D-SYNC-RUN) ---- */

static uint64_t flag_value(const struct dnet_sync *s, uint32_t count)
{
	return (uint64_t)s->gen << 32 | count;
}

/* A fresh random 32-bit number, never 0, a or b: a generation or a nonce. */
static uint32_t fresh32(struct dnet_sync *s, uint32_t a, uint32_t b)
{
	for (;;) {
		uint32_t v;
		if (getrandom(&v, sizeof v, GRND_NONBLOCK) != (ssize_t)sizeof v) {
			/* no entropy yet: the clocks, pid and a counter, mixed (splitmix64) */
			struct timespec ts;
			clock_gettime(CLOCK_REALTIME, &ts);
			uint64_t x = dnet_mono_ns() ^ (uint64_t)ts.tv_nsec << 20 ^ (uint64_t)ts.tv_sec ^
				     (uint64_t)getpid() << 40 ^ ++s->fresh_calls * 0x9e3779b97f4a7c15ull;
			x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
			x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
			v = (uint32_t)(x ^ (x >> 31));
		}
		if (v && v != a && v != b)
			return v;
	}
}

/* Rank 0 admits the ranks whose request names this run's generation
 * (steps 2-3): one read of its signal words per call. */
static int admit(struct dnet_sync *s, struct dnet_err *err)
{
	int rc = do_load(s, s->area + DNET_SYNC_SIGNAL, s->words, s->size, err);
	for (unsigned r = 1; r < s->size && rc == 0; r++) {
		uint64_t w = s->words[r];
		uint32_t nonce = (uint32_t)(w >> 32);
		if (s->joined[r] || (uint32_t)w != s->gen || nonce == s->gen || nonce == 0)
			continue;
		rc = do_store(s, s->peer[r].node, s->peer[r].wid, s->area + DNET_SYNC_OPEN,
			      (uint64_t)nonce << 32 | s->gen, err);
		if (rc == 0) {
			s->joined[r] = true;
			s->unjoined--;
		}
	}
	return rc;
}

/* One step of joining, no wait: *in true once this rank is in the run. */
static int join_step(struct dnet_sync *s, bool *in, struct dnet_err *err)
{
	int rc;
	*in = true;
	if (s->size <= 1)
		return 0;
	if (s->rank == 0) {
		if (!s->gen) {
			s->joined[0] = true;
			s->unjoined = s->size - 1;
			s->gen = fresh32(s, s->run_id, 0);
		}
		for (unsigned r = 1; !s->offered && r < s->size; r++)
			if ((rc = do_store(s, s->peer[r].node, s->peer[r].wid, s->area + DNET_SYNC_OPEN,
					   (uint64_t)s->run_id << 32 | s->gen, err)) < 0)
				return rc;
		s->offered = true;
		if (s->unjoined && (rc = admit(s, err)) < 0)
			return rc;
		*in = s->unjoined == 0;
		return 0;
	}
	if (s->gen)
		return 0;
	if (!s->nonce)
		s->nonce = fresh32(s, s->run_id, 0);
	uint64_t v;
	if ((rc = do_load(s, s->area + DNET_SYNC_OPEN, &v, 1, err)) < 0)
		return rc;
	uint32_t hi = (uint32_t)(v >> 32), lo = (uint32_t)v;
	if (hi == s->nonce && lo) { /* rank 0's answer: joined */
		s->gen = lo;
		return 0;
	}
	if (hi == s->run_id && lo && lo != s->echo) { /* an offer: ask to join */
		if (s->nonce == lo) /* a request must not read as a signal {G, count} */
			s->nonce = fresh32(s, s->run_id, lo);
		if ((rc = do_store(s, s->peer[0].node, s->peer[0].wid, s->area + DNET_SYNC_SIGNAL + 8 * s->rank,
				   (uint64_t)s->nonce << 32 | lo, err)) < 0)
			return rc;
		s->echo = lo;
	}
	*in = false;
	return 0;
}

/* Why joining failed, for "WHAT: ..." (rank 0: a rank that has not joined,
 * want first if it is one of them). */
static int join_error(struct dnet_sync *s, const char *what, int want, struct dnet_err *err)
{
	double tmo = (double)s->op.tmo / 1e9;
	if (stopped(s))
		return dnet_seterr(err, DNET_EINTR, "%s: interrupted while %s", what,
				   s->rank ? "waiting for rank 0 to admit this rank to the run"
					   : "waiting for the other ranks to join the run");
	if (s->rank)
		return dnet_seterr(err, DNET_ETIMEDOUT, "%s: rank 0 did not admit this rank to the run within %.3f s "
				   "(%s; a rank joins at its first barrier, signal or waitfor, when rank 0 has reached "
				   "its own first one)", what, tmo,
				   s->echo ? "no answer to its request" : "no offer from rank 0");
	unsigned first = want > 0 && !s->joined[want] ? (unsigned)want : 0;
	for (unsigned r = 1; !first && r < s->size; r++)
		if (!s->joined[r])
			first = r;
	char more[64] = "";
	if (s->unjoined > 1)
		snprintf(more, sizeof more, " (nor %s %u other rank%s)", s->unjoined > 2 ? "have" : "has",
			 s->unjoined - 1, s->unjoined > 2 ? "s" : "");
	return dnet_seterr(err, DNET_ETIMEDOUT, "%s: rank %u has not joined this run within %.3f s%s: rank 0's first "
			   "barrier, signal or waitfor waits until every rank has reached its own first one", what,
			   first, tmo, more);
}

/* The operation could not join in time: its message. */
static int join_failed(struct dnet_sync *s, struct dnet_err *err)
{
	char what[32];
	unsigned r = s->op.peer;
	switch (s->op.kind) {
	case OP_BARRIER:
		snprintf(what, sizeof what, "barrier %" PRIu32, s->barriers + 1);
		return join_error(s, what, -1, err);
	case OP_SIGNAL:
		snprintf(what, sizeof what, "signal %u", r);
		return join_error(s, what, (int)r, err);
	default:
		if (s->rank == 0 && !s->joined[r] && !stopped(s))
			return dnet_seterr(err, DNET_ETIMEDOUT, "rank %u did not signal within %.3f s: it has not joined "
					   "this run (rank 0's first barrier, signal or waitfor waits until every rank "
					   "has reached its own first one)", r, (double)s->op.tmo / 1e9);
		snprintf(what, sizeof what, "waitfor %u", r);
		return join_error(s, what, (int)r, err);
	}
}

/* ---- the operations ---- */

/* Whether this rank's flag word at off holds this run's count want or more. */
static int arrived(struct dnet_sync *s, uint32_t off, uint32_t want, bool *yes, struct dnet_err *err)
{
	uint64_t v;
	int rc = do_load(s, off, &v, 1, err);
	*yes = rc == 0 && (uint32_t)(v >> 32) == s->gen && (uint32_t)v >= want;
	return rc;
}

/* The barrier's rounds after joining (dissemination: log2(N) rounds):
 * *done, or a wait. */
static int barrier_step(struct dnet_sync *s, bool *done, struct dnet_err *err)
{
	for (; (1u << s->op.round) < s->size; s->op.round++, s->op.stored = false) {
		unsigned dist = 1u << s->op.round;
		unsigned to = (s->rank + dist) % s->size;
		uint32_t off = s->area + DNET_SYNC_BARRIER + 8 * s->op.round;
		int rc;
		if (!s->op.stored) {
			if ((rc = do_store(s, s->peer[to].node, s->peer[to].wid, off, flag_value(s, s->op.number), err)) < 0)
				return rc;
			s->op.stored = true;
			s->op.spin = 0;
		}
		bool yes;
		if ((rc = arrived(s, off, s->op.number, &yes, err)) < 0)
			return rc;
		if (!yes) {
			*done = false;
			return 0;
		}
	}
	*done = true;
	return 0;
}

static int barrier_late(struct dnet_sync *s, struct dnet_err *err)
{
	unsigned from = (s->rank + s->size - (1u << s->op.round)) % s->size, k = s->op.round;
	if (stopped(s))
		return dnet_seterr(err, DNET_EINTR, "barrier %" PRIu32 ": interrupted in round %u while waiting for "
				   "rank %u", s->op.number, k + 1, from);
	return dnet_seterr(err, DNET_ETIMEDOUT, "barrier %" PRIu32 ": rank %u did not arrive within %.3f s (no flag "
			   "from it at LLCM 0x%" PRIx32 " in round %u; %s)", s->op.number, from, (double)s->op.tmo / 1e9,
			   s->area + DNET_SYNC_BARRIER + 8 * k, k + 1,
			   k ? "it may itself wait for a rank that did not arrive" : "it has not reached the barrier");
}

static int waitfor_late(struct dnet_sync *s, struct dnet_err *err)
{
	unsigned r = s->op.peer;
	if (stopped(s))
		return dnet_seterr(err, DNET_EINTR, "interrupted while waiting for signal %" PRIu32 " from rank %u",
				   s->op.number, r);
	return dnet_seterr(err, DNET_ETIMEDOUT, "rank %u did not signal within %.3f s (signal %" PRIu32 " from rank %u)",
			   r, (double)s->op.tmo / 1e9, s->op.number, r);
}

static int start(struct dnet_sync *s, enum op_kind kind, unsigned peer, uint64_t tmo, struct dnet_err *err)
{
	if (s->op.kind != OP_NONE)
		return dnet_seterr(err, DNET_EBUSY, "sync: rank %u has an operation under way", s->rank);
	if (kind != OP_BARRIER && (peer >= s->size || peer == s->rank))
		return dnet_seterr(err, DNET_EINVAL, "sync: rank %u is not another rank of this run (0..%u)", peer,
				   s->size - 1);
	memset(&s->op, 0, sizeof s->op);
	s->op.kind = kind;
	s->op.peer = peer;
	s->op.tmo = tmo;
	s->op.deadline = now_ns(s) + tmo;
	if (kind == OP_WAITFOR)
		s->op.number = s->got[peer] + 1;
	return 0;
}

int dnet_sync_ibarrier(struct dnet_sync *s, uint64_t timeout_ns, struct dnet_err *err)
{
	return start(s, OP_BARRIER, 0, timeout_ns, err);
}

int dnet_sync_isignal(struct dnet_sync *s, unsigned to, uint64_t timeout_ns, struct dnet_err *err)
{
	return start(s, OP_SIGNAL, to, timeout_ns, err);
}

int dnet_sync_iwaitfor(struct dnet_sync *s, unsigned from, uint64_t timeout_ns, struct dnet_err *err)
{
	return start(s, OP_WAITFOR, from, timeout_ns, err);
}

/* The work there is to do now: *done, or a wait (not past the deadline). */
static int step(struct dnet_sync *s, bool *done, uint32_t *count, struct dnet_err *err)
{
	int rc;
	*done = false;
	if (!s->op.joined) {
		bool in;
		if ((rc = join_step(s, &in, err)) < 0)
			return rc;
		if (!in)
			return now_ns(s) >= s->op.deadline || stopped(s) ? join_failed(s, err) : 0;
		s->op.joined = true;
		s->op.spin = 0;
		if (s->op.kind == OP_BARRIER)
			s->op.number = ++s->barriers;
	}
	unsigned r = s->op.peer;
	switch (s->op.kind) {
	case OP_BARRIER:
		if ((rc = barrier_step(s, done, err)) < 0)
			return rc;
		if (!*done)
			return now_ns(s) >= s->op.deadline || stopped(s) ? barrier_late(s, err) : 0;
		*count = s->op.number;
		return 0;
	case OP_SIGNAL: {
		uint32_t n = ++s->sent[r];
		if ((rc = do_store(s, s->peer[r].node, s->peer[r].wid, s->area + DNET_SYNC_SIGNAL + 8 * s->rank,
				   flag_value(s, n), err)) < 0) {
			s->sent[r]--;
			return rc;
		}
		*count = n;
		*done = true;
		return 0;
	}
	default:
		if ((rc = arrived(s, s->area + DNET_SYNC_SIGNAL + 8 * r, s->op.number, done, err)) < 0)
			return rc;
		if (!*done)
			return now_ns(s) >= s->op.deadline || stopped(s) ? waitfor_late(s, err) : 0;
		s->got[r] = s->op.number;
		*count = s->op.number;
		return 0;
	}
}

int dnet_sync_test(struct dnet_sync *s, bool *done, uint32_t *count, struct dnet_err *err)
{
	uint32_t n = 0;
	*done = false;
	if (s->op.kind == OP_NONE)
		return dnet_seterr(err, DNET_EINVAL, "sync: no operation under way");
	int rc = step(s, done, &n, err);
	if (rc < 0 || *done)
		s->op.kind = OP_NONE; /* finished, or failed: the next one may start */
	if (*done && count)
		*count = n;
	return rc;
}

/* The longest a lockstep pause waits for its word (virtual time). */
#define LOCKSTEP_WATCH_NS 100000ull /* 100 us */

/* Between two polls of a blocking call: the device keeps working (a
 * little virtual time on the emulator), then a real-time sleep once
 * polling has gone on.  Every rank polls at once and they may share one
 * device (one dnetd on the emulator): the more ranks, the sooner and the
 * longer each sleeps, so that the pollers leave the device to the ranks
 * with work to do (rank 0 admitting the others one by one; the stores of
 * a barrier round) -- without it 480 ranks could not even join a run
 * within 30 s. */
static int poll_pause(struct dnet_sync *s, unsigned spin, struct dnet_err *err)
{
	unsigned caps = dnet_dev_caps(s->dev);
	int rc;
	if ((caps & DNET_CAP_LOCKSTEP) && s->watch.valid) {
		/* Served in virtual-time order (dnetd --lockstep, decision
		 * D-LOCKSTEP-BOUND): the pause is a wait in the server for the
		 * word the step is waiting on to change (a flag packet arriving),
		 * at most LOCKSTEP_WATCH_NS of virtual time: one request instead
		 * of a read and a 1 us delay per microsecond of the others' work
		 * (8 ranks polling a status ring's token made 226,000 of the
		 * run's 238,000 requests).  The bound keeps a step that waits on
		 * some other word than the last it loaded correct, only later. */
		uint64_t last = 0;
		uint32_t addr;
		if ((rc = dnet_region_addr(DNET_REG_LLCM, s->peer[s->rank].wid, s->watch.off, 8, &addr, err)) < 0)
			return rc;
		rc = dnet_wait(s->dev, addr, ~0ull, DNET_COND_NE, s->watch.value, LOCKSTEP_WATCH_NS, &last, err);
		if (rc == -DNET_ETIMEDOUT) {
			dnet_clearerr(err);
			rc = 0;
		}
		return rc < 0 ? rc : 0;
	}
	rc = dnet_delay(s->dev, caps & DNET_CAP_VIRTUAL_TIME ? 1000 : 0, err);
	if (rc < 0)
		return rc;
	/* In virtual-time order a poller goes only when no other rank is
	 * earlier, so it takes the device from nobody; a real-time sleep would
	 * only hold every later rank up (the ranks polling a status ring's
	 * token took 125 s for 8 ranks, 0.6 s in a free run). */
	if (caps & DNET_CAP_LOCKSTEP)
		return 0;
	unsigned free_spins = s->size <= 16 ? 100 : 1600 / s->size;
	if (spin >= free_spins) {
		/* 20 us, doubling every 2 polls up to size x 100 us (at least 1 ms) */
		uint64_t cap = s->size > 10 ? 100000ull * s->size : 1000000ull;
		unsigned sh = (spin - free_spins) / 2;
		uint64_t ns = sh < 20 ? 20000ull << sh : cap;
		if (ns > cap)
			ns = cap;
		struct timespec ts = { (time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull) };
		nanosleep(&ts, NULL);
	}
	return 0;
}

/* A started operation to its end. */
static int finish(struct dnet_sync *s, uint32_t *count, struct dnet_err *err)
{
	for (;;) {
		bool done;
		int rc = dnet_sync_test(s, &done, count, err);
		if (rc < 0 || done)
			return rc;
		if ((rc = poll_pause(s, s->op.spin++, err)) < 0) {
			s->op.kind = OP_NONE;
			return rc;
		}
	}
}

/* A blocking call: the operation started (rc), to its end. */
static int blocking(struct dnet_sync *s, int rc, uint32_t *count, struct dnet_err *err)
{
	uint32_t n;
	if (rc < 0 || (rc = finish(s, &n, err)) < 0)
		return rc;
	if (count)
		*count = n;
	return 0;
}

int dnet_sync_barrier(struct dnet_sync *s, uint64_t timeout_ns, uint32_t *number, unsigned *rounds,
		      struct dnet_err *err)
{
	int rc = blocking(s, dnet_sync_ibarrier(s, timeout_ns, err), number, err);
	if (rc == 0 && rounds)
		for (*rounds = 0; (1u << *rounds) < s->size; ++*rounds)
			;
	return rc;
}

int dnet_sync_signal(struct dnet_sync *s, unsigned to, uint64_t timeout_ns, uint32_t *count, struct dnet_err *err)
{
	return blocking(s, dnet_sync_isignal(s, to, timeout_ns, err), count, err);
}

int dnet_sync_waitfor(struct dnet_sync *s, unsigned from, uint64_t timeout_ns, uint32_t *count,
		      struct dnet_err *err)
{
	return blocking(s, dnet_sync_iwaitfor(s, from, timeout_ns, err), count, err);
}
