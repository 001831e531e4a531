/* dsh: the device's verdict on a primitive -- the error flags it caused.
 *
 * A primitive that raised an error flag has failed, whatever the counter
 * says: a receive overrun, a receive-controller error state, a full status
 * ring, a Write Window overrun, a packet dropped for its PGID or for want of
 * a route.  Most of these flags are sticky until Controller Reset (Tab. A.1)
 * and shared by both WIDs of a node, so "the flag went from 0 to 1" cannot
 * judge a second primitive.  Two ways, chosen per backend:
 *
 *  - attributed: the emulator (in process or behind dnetd) counts every
 *    error event against the host request that started it (D-SIM-CAUSE);
 *    the issuer's own statistics w<W>_errors_caused / w<W>_last_<flag>
 *    name what this primitive caused, on any node, sticky or not -- and
 *    reading them needs no grant of the destination node.
 *  - by Controller Status (a board): nothing attributes a node-level flag,
 *    so the issuer's and the destination's (where reachable) flags are
 *    read before and after; a flag up after the primitive fails it, also
 *    one already up before (decision D-VERDICT-STICKY, docs/decisions.md):
 *    it cannot be told from one this primitive raised again.
 *
 * Attributed, each primitive is told from the next one of the same issuer
 * by its own request id (D-SIM-REQ-ID, D-VERDICT-IDENTITY): what request
 * w<W>_req<ID> caused is that primitive's, whatever else is in flight.
 *
 * A test that provokes an error on purpose names it (allow=FLAG,...) on the
 * primitive that provokes it: it must rise for that primitive (attributed),
 * or be up afterwards (by Controller Status), and it covers no other one.
 * A primitive issued without `wait` leaves its own verdict pending (with its
 * own allow=): a `wait` judges it once it has finished -- the issuer and
 * its destination idle, none of its packets in flight -- else leaves it
 * for the next judge; the end of the run judges every one left
 * (dsh_pending_*, D-VERDICT-PENDING), so no primitive's outcome is lost.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dsh.h"

#define PGID_FLAG "pgid_drop"
#define UNROUTABLE_FLAG "unroutable"
#define RX_DROP_FLAG "rx_drop"

/* The flags a verdict judges, in Controller Status order, then the events
 * that are not flags.  The emulator's cause names are the same words. */
static const char *const causes[] = {
	"rc_overrun", "rc_state", "status_full", PGID_FLAG, UNROUTABLE_FLAG, RX_DROP_FLAG,
	"ww0_src_overrun", "ww0_dst_overrun", "ww1_src_overrun", "ww1_dst_overrun",
	"ww2_src_overrun", "ww2_dst_overrun", "ww3_src_overrun", "ww3_dst_overrun",
};
#define NCAUSES (sizeof causes / sizeof causes[0])

const char *const *dsh_verdict_flags(unsigned *n)
{
	*n = NCAUSES;
	return causes;
}

static const struct dnet_reg *cs_reg(void)
{
	return dsh_reg_at(DNET_BLK_USER, DNET_UR_CTL_STATUS, DNET_ACC_R);
}

static bool is_ww_flag(const char *name)
{
	return strncmp(name, "ww", 2) == 0 && strstr(name, "overrun");
}

static const char *meaning_of(const char *flag, char *buf, size_t n)
{
	if (!strcmp(flag, PGID_FLAG))
		return "packet dropped: PGID differs from the receiver's";
	if (!strcmp(flag, UNROUTABLE_FLAG))
		return "packet dropped by the switch: no node has its destination CLID";
	if (!strcmp(flag, RX_DROP_FLAG))
		return "packet dropped by the receiver: its TYPE has no receive action, or it continues "
		       "an IPUSH message that was not opened";
	const struct dnet_reg *cs = cs_reg();
	const struct dnet_field *f = cs ? dnet_field_by_name(cs, flag) : NULL;
	if (!f)
		return NULL;
	snprintf(buf, n, "%s", f->desc);
	return buf;
}

/* The handle of node (D-NODE-HANDLE); NULL with e set. */
static struct dnet_dev *on_node(struct dsh *d, unsigned node, struct dnet_err *e)
{
	return dnet_node_dev(d->dev, node, e);
}

static int stat_on(struct dsh *d, unsigned node, const char *name, uint64_t *v, struct dnet_err *e)
{
	struct dnet_dev *h = on_node(d, node, e);
	return h ? dnet_stat(h, name, v, e) : -1;
}

/* Controller Status (and the PGID-drop count where the backend keeps one)
 * of node s->node, WID s->wid.  A node this client may not read is skipped
 * (readable false), never a failure of the primitive. */
static int snap(struct dsh *d, struct dsh_vnode *s)
{
	struct dnet_err e = { 0 };
	s->readable = false;
	struct dnet_dev *h = on_node(d, s->node, &e);
	if (!h)
		return e.code == DNET_EPERM ? 0 : dsh_derr(d, &e);
	int rc = dnet_reg_read(h, s->wid, cs_reg(), &s->cs, &e);
	s->has_pgid = rc == 0 && dnet_stat(h, "pgid_drops", &s->pgid, NULL) == 0;
	if (rc < 0 && e.code == DNET_EPERM)
		return 0;
	if (rc < 0)
		return dsh_derr(d, &e);
	s->readable = true;
	return 0;
}

int dsh_verdict_begin(struct dsh *d, const struct dnet_otype_info *oi, const struct dnet_req *rq,
		      struct dsh_verdict *v)
{
	memset(v, 0, sizeof *v);
	if (!cs_reg())
		return dsh_error(d, "libdnet has no Controller Status");
	v->n[0].node = dnet_node(d->dev);
	v->n[0].wid = d->opts.wid;
	v->nn = 1;
	v->vs_window = -1;
	if (rq && oi->family == DNET_FAM_VS)
		v->vs_window = (int)((rq->srcoff >> 9) & 3u);
	if (rq && !oi->remote)
		v->dest = v->n[0].node;
	else if (rq && rq->dclid >= 1 && rq->dclid <= dnet_node_count(d->dev))
		v->dest = rq->dclid;
	char name[32];
	snprintf(name, sizeof name, "w%u_errors_caused", d->opts.wid);
	struct dnet_err e = { 0 };
	if (stat_on(d, v->n[0].node, name, &v->caused, &e) == 0) {
		v->attributed = true;
		uint64_t n = 0;
		snprintf(name, sizeof name, "w%u_requests", d->opts.wid);
		v->has_req = stat_on(d, v->n[0].node, name, &n, NULL) == 0;
		v->req_before = (uint32_t)n;
		return 0;
	}
	/* By Controller Status: the destination too, when this shell reaches it. */
	if (rq && oi->remote && rq->dclid >= 1 && rq->dclid <= dnet_node_count(d->dev) &&
	    (rq->dclid != v->n[0].node || rq->dwid != d->opts.wid)) {
		v->n[1].node = rq->dclid;
		v->n[1].wid = rq->dwid;
		v->nn = 2;
	}
	for (unsigned i = 0; i < v->nn; i++)
		if (snap(d, &v->n[i]) < 0)
			return -1;
	return 0;
}

/* D-VERDICT-IDENTITY: the id of the one request this primitive kicked.
 * Another count (a client of the same node and WID between the two
 * reads) leaves it unknown: the verdict then covers what the issuer caused
 * since the primitive started, as before request ids. */
int dsh_verdict_issued(struct dsh *d, struct dsh_verdict *v)
{
	if (!v->attributed || !v->has_req)
		return 0;
	char name[32];
	uint64_t now = 0;
	snprintf(name, sizeof name, "w%u_requests", v->n[0].wid);
	struct dnet_err e = { 0 };
	if (stat_on(d, v->n[0].node, name, &now, &e) < 0)
		return dsh_derr(d, &e);
	if (now == (uint64_t)v->req_before + 1)
		v->req = (uint32_t)now;
	return 0;
}

static bool listed(const char *list, const char *flag)
{
	size_t n = strlen(flag);
	for (const char *p = list; p && *p;) {
		const char *c = strchr(p, ',');
		size_t l = c ? (size_t)(c - p) : strlen(p);
		if (l == n && strncmp(p, flag, n) == 0)
			return true;
		p = c ? c + 1 : NULL;
	}
	return false;
}

int dsh_verdict_check_allow(struct dsh *d, const char *allow)
{
	for (const char *p = allow; p && *p;) {
		const char *c = strchr(p, ',');
		size_t l = c ? (size_t)(c - p) : strlen(p);
		char name[48];
		if (l == 0 || l >= sizeof name)
			return dsh_error(d, "allow=: empty or overlong flag name");
		memcpy(name, p, l);
		name[l] = 0;
		bool ok = false;
		for (unsigned k = 0; k < NCAUSES && !ok; k++)
			ok = strcmp(name, causes[k]) == 0;
		if (!ok)
			return dsh_error(d, "allow=: '%s' is not an error flag (ww<N>_src_overrun, "
					 "ww<N>_dst_overrun, rc_overrun, rc_state, status_full, %s, %s, %s)", name,
					 PGID_FLAG, UNROUTABLE_FLAG, RX_DROP_FLAG);
		p = c ? c + 1 : NULL;
	}
	return 0;
}

struct raised {
	char text[1024];
	int unexpected;
	struct dsh *d;
	bool list;          /* each flag an object of the array open (print.c) */
	const char *allow;
	char seen[512];   /* allowed flags found */
};

static void add(struct raised *r, unsigned node, const char *flag, bool attributed, bool already)
{
	char mb[96];
	const char *meaning = meaning_of(flag, mb, sizeof mb);
	bool ok = listed(r->allow, flag);
	if (r->list) {
		out_obj_open(r->d, NULL);
		out_u64(r->d, "node", NULL, node);
		out_str(r->d, "flag", NULL, flag);
		if (meaning)
			out_str(r->d, "meaning", NULL, meaning);
		out_bool(r->d, "allowed", NULL, ok);
		out_bool(r->d, "already_set", NULL, already);
		out_str(r->d, "cause", NULL, attributed ? "request" : "node");
		out_close(r->d);
	}
	if (ok) {
		size_t l = strlen(r->seen);
		snprintf(r->seen + l, sizeof r->seen - l, ",%s", flag);
		return;
	}
	r->unexpected++;
	size_t l = strlen(r->text);
	snprintf(r->text + l, sizeof r->text - l, "%snode %u %s%s%s%s%s", l ? ", " : "", node, flag,
		 meaning ? " (" : "", meaning ? meaning : "", meaning ? ")" : "",
		 already ? " [already set before the primitive, sticky until Controller Reset: it cannot "
			   "be told from one this primitive raised]" : "");
}

/* Attributed, by request id: what this primitive's own request caused. */
static int judge_request(struct dsh *d, const struct dsh_verdict *v, struct raised *r)
{
	struct dnet_err e = { 0 };
	unsigned node = v->n[0].node, wid = v->n[0].wid;
	char name[64];
	uint64_t errs = 0;
	snprintf(name, sizeof name, "w%u_req%" PRIu32 "_errors", wid, v->req);
	if (stat_on(d, node, name, &errs, &e) < 0)
		return 1; /* its record is gone (64 later requests): judged as before ids */
	for (unsigned k = 0; k < NCAUSES && errs; k++) {
		uint64_t at = 0;
		snprintf(name, sizeof name, "w%u_req%" PRIu32 "_%s_node", wid, v->req, causes[k]);
		if (stat_on(d, node, name, &at, &e) < 0)
			return dsh_derr(d, &e);
		if (at)
			add(r, (unsigned)at, causes[k], true, false);
	}
	return 0;
}

/* Attributed: what the issuer's requests caused since v->caused. */
static int judge_attributed(struct dsh *d, const struct dsh_verdict *v, struct raised *r)
{
	int byreq = v->req ? judge_request(d, v, r) : 1;
	if (byreq <= 0)
		return byreq;
	struct dnet_err e = { 0 };
	unsigned node = v->n[0].node, wid = v->n[0].wid;
	char name[64];
	uint64_t now = 0;
	snprintf(name, sizeof name, "w%u_errors_caused", wid);
	if (stat_on(d, node, name, &now, &e) < 0)
		return dsh_derr(d, &e);
	if (now == v->caused)
		return 0;
	for (unsigned k = 0; k < NCAUSES; k++) {
		uint64_t last = 0, at = 0;
		snprintf(name, sizeof name, "w%u_last_%s", wid, causes[k]);
		if (stat_on(d, node, name, &last, &e) < 0)
			return dsh_derr(d, &e);
		if (last <= v->caused)
			continue;
		snprintf(name, sizeof name, "w%u_last_%s_node", wid, causes[k]);
		if (stat_on(d, node, name, &at, &e) < 0)
			return dsh_derr(d, &e);
		add(r, (unsigned)at, causes[k], true, false);
	}
	return 0;
}

/* By Controller Status: every error flag up afterwards (D-VERDICT-STICKY). */
static int judge_by_status(struct dsh *d, const struct dsh_verdict *v, struct raised *r)
{
	const struct dnet_reg *cs = cs_reg();
	for (unsigned i = 0; i < v->nn; i++) {
		struct dsh_vnode after = v->n[i];
		const struct dsh_vnode *b = &v->n[i];
		if (!b->readable)
			continue;
		if (snap(d, &after) < 0)
			return -1;
		if (!after.readable)
			continue;
		for (unsigned k = 0; k < NCAUSES; k++) {
			const struct dnet_field *f = dnet_field_by_name(cs, causes[k]);
			if (!f)
				continue;
			bool ww = is_ww_flag(f->name);
			if (ww && i > 0)
				continue; /* a Write Window's flags belong to the issuer */
			uint64_t was = dnet_field_get(f, b->cs), now = dnet_field_get(f, after.cs);
			if (!now)
				continue;
			/* A VS-family request clears its window's bits when it
			 * starts (D-SIM-CS-CLEAR): set afterwards means raised now. */
			bool own = ww && v->vs_window >= 0 && f->name[2] - '0' == v->vs_window;
			add(r, after.node, f->name, false, was && !own);
		}
		if (b->has_pgid && after.has_pgid && after.pgid > b->pgid)
			add(r, after.node, PGID_FLAG, false, false);
	}
	return 0;
}

int dsh_verdict_end(struct dsh *d, struct dsh_verdict *v, const char *allow, bool list)
{
	struct raised r = { .d = d, .list = list, .allow = allow };
	if ((v->attributed ? judge_attributed(d, v, &r) : judge_by_status(d, v, &r)) < 0)
		return -1;
	/* Every flag the test said it provokes must have risen. */
	char missing[256] = "";
	for (const char *p = allow; p && *p;) {
		const char *c = strchr(p, ',');
		size_t l = c ? (size_t)(c - p) : strlen(p);
		char name[48];
		snprintf(name, sizeof name, "%.*s", (int)l, p);
		if (!listed(r.seen + (r.seen[0] == ',' ? 1 : 0), name)) {
			size_t m = strlen(missing);
			snprintf(missing + m, sizeof missing - m, "%s%s", m ? ", " : "", name);
		}
		p = c ? c + 1 : NULL;
	}
	const char *by = v->what[0] ? v->what : "";
	if (r.unexpected)
		return dsh_error(d, "device error flag%s raised%s: %s", r.unexpected == 1 ? "" : "s", by, r.text);
	if (missing[0])
		return dsh_error(d, "allowed error flag%s did not rise%s: %s", strchr(missing, ',') ? "s" : "", by,
				 missing);
	return 0;
}

/* ---- verdicts left pending by primitives issued without wait ---- */

/* D-VERDICT-PENDING: one entry per primitive, in issue order, never folded
 * into another's: each is judged with its own allow= and nobody else's. */
struct dsh_pending {
	struct dsh_verdict v;
	char allow[128];
	char file[128];
	int line;
	char cmd[32];
	char text[160];
	struct dsh_pending *next;
};

int dsh_pending_push(struct dsh *d, const struct dsh_verdict *v, const char *allow)
{
	struct dsh_pending *p = calloc(1, sizeof *p);
	if (!p)
		return dsh_error(d, "out of memory");
	if (allow && strlen(allow) >= sizeof p->allow) {
		free(p);
		return dsh_error(d, "allow=: the list is longer than %zu characters", sizeof p->allow - 1);
	}
	p->v = *v;
	snprintf(p->allow, sizeof p->allow, "%s", allow ? allow : "");
	snprintf(p->file, sizeof p->file, "%s", d->cur.file ? d->cur.file : "");
	p->line = d->cur.line;
	const char *c = d->cur.cmd ? d->cur.cmd : "prim";
	if (c[0] == '@' && strpbrk(c, " \t")) /* "@K prim ...": the command is prim */
		c = strpbrk(c, " \t") + strspn(strpbrk(c, " \t"), " \t");
	snprintf(p->cmd, sizeof p->cmd, "%s", c);
	p->cmd[strcspn(p->cmd, " \t")] = 0;
	snprintf(p->text, sizeof p->text, "%s", d->cur.cmd ? d->cur.cmd : "");
	struct dsh_pending **pp = &d->run.pending;
	while (*pp)
		pp = &(*pp)->next;
	*pp = p;
	return 0;
}

static void describe(const struct dsh_pending *p, char *buf, size_t n)
{
	if (p->file[0])
		snprintf(buf, n, " by %s at %s:%d", p->cmd, p->file, p->line);
	else
		snprintf(buf, n, " by %s", p->cmd);
}

/* What one judging pass learnt of each node (0: not asked yet, 1: idle,
 * 2: busy): the device does not move between the looks of one pass, and
 * hundreds of pending barrier flags need not ask each node again. */
struct look {
	unsigned char *busy;      /* by node */
	unsigned char *flight;    /* by node * 2 + wid: 1 none in flight, 2 some */
};

/* Whether node is busy; a node this client may not use counts as idle
 * (its part is not judged either); an error as busy. */
static bool node_busy_now(struct dsh *d, unsigned node)
{
	struct dnet_err e = { 0 };
	bool busy = false;
	struct dnet_dev *h = on_node(d, node, &e);
	if (!h)
		return e.code != DNET_EPERM;
	if (dnet_busy(h, &busy, &e) < 0)
		busy = e.code != DNET_EPERM;
	return busy;
}

static bool node_busy(struct dsh *d, struct look *lk, unsigned node)
{
	if (!lk->busy || node > dnet_node_count(d->dev))
		return node_busy_now(d, node);
	if (!lk->busy[node])
		lk->busy[node] = node_busy_now(d, node) ? 2 : 1;
	return lk->busy[node] == 2;
}

static bool in_flight(struct dsh *d, struct look *lk, unsigned node, unsigned wid)
{
	unsigned char *c = lk->flight && node <= dnet_node_count(d->dev) ? &lk->flight[node * 2 + (wid & 1)] : NULL;
	if (c && *c)
		return *c == 2;
	char name[32];
	uint64_t fl = 0;
	snprintf(name, sizeof name, "w%u_in_flight", wid);
	bool some = stat_on(d, node, name, &fl, NULL) < 0 || fl;
	if (c)
		*c = some ? 2 : 1;
	return some;
}

static void look_init(struct dsh *d, struct look *lk)
{
	unsigned n = dnet_node_count(d->dev) + 1;
	lk->busy = calloc(n, 1);
	lk->flight = calloc(2 * (size_t)n, 1);
}

static void look_free(struct look *lk)
{
	free(lk->busy);
	free(lk->flight);
	lk->busy = lk->flight = NULL;
}

/* D-VERDICT-FINISHED: a primitive has finished when its issuer and its
 * destination (every node when it is not known: BOTF, rllcm_write) are
 * idle and, attributed, none of the issuer's packets is in flight
 * (w<W>_in_flight: also a packet still in the switch or in a receive
 * queue).  Conservative: a later primitive of the same issuer keeps it
 * pending too, for the next judge. */
static bool pend_finished(struct dsh *d, struct look *lk, const struct dsh_pending *p)
{
	const struct dsh_verdict *v = &p->v;
	if (node_busy(d, lk, v->n[0].node))
		return false;
	if (v->attributed && in_flight(d, lk, v->n[0].node, v->n[0].wid))
		return false;
	if (v->dest)
		return v->dest == v->n[0].node || !node_busy(d, lk, v->dest);
	for (unsigned k = 1; k <= dnet_node_count(d->dev); k++)
		if (k != v->n[0].node && node_busy(d, lk, k))
			return false;
	return true;
}

/* Judge p (taken off the list): 0, or -1 with the message in d->cur.errmsg. */
static int judge_one(struct dsh *d, struct dsh_pending *p, const char *allow)
{
	describe(p, p->v.what, sizeof p->v.what);
	d->cur.have_err = false;
	return dsh_verdict_end(d, &p->v, allow && allow[0] ? allow : NULL, false);
}

static void collect(char *all, size_t n, const char *msg)
{
	size_t l = strlen(all), m = strlen(msg);
	if (l && l + 2 < n)
		memcpy(all + l, "; ", 3), l += 2;
	if (m > n - 1 - l)
		m = n - 1 - l; /* the first messages, cut */
	memcpy(all + l, msg, m);
	all[l + m] = 0;
}

int dsh_pending_judge(struct dsh *d, bool as_late, bool only_finished)
{
	int ret = 0;
	char all[1024] = "";
	struct look lk = { 0 };
	if (only_finished && d->run.pending)
		look_init(d, &lk);
	for (struct dsh_pending **pp = &d->run.pending; *pp;) {
		struct dsh_pending *p = *pp;
		if (only_finished && !pend_finished(d, &lk, p)) {
			pp = &p->next; /* still in flight: the next judge's */
			continue;
		}
		*pp = p->next;
		if (judge_one(d, p, p->allow) < 0) {
			ret = -1;
			if (as_late)
				dsh_late_failure(d, p->file[0] ? p->file : NULL, p->line, p->cmd, p->text, d->cur.errmsg);
			else
				collect(all, sizeof all, d->cur.errmsg);
		}
		free(p);
	}
	look_free(&lk);
	d->cur.have_err = false;
	if (ret < 0 && !as_late)
		return dsh_error(d, "%s", all);
	return ret;
}

int dsh_pending_judge_one(struct dsh *d, const char *allow, uint64_t timeout_ns)
{
	struct dsh_pending *p = d->run.pending;
	if (!p)
		return dsh_error(d, "allow=%s: no primitive is pending for this wait to judge (allow= on "
				 "'prim ... wait' judges that primitive)", allow);
	if (p->next) {
		char b1[200], b2[200];
		describe(p, b1, sizeof b1);
		describe(p->next, b2, sizeof b2);
		return dsh_error(d, "allow=%s: more than one primitive is pending (%s, %s%s): wait allow= "
				 "judges one; give allow= on the primitive that provokes it", allow, b1 + 1, b2 + 1,
				 p->next->next ? ", ..." : "");
	}
	if (p->allow[0])
		return dsh_error(d, "allow=%s: the pending primitive (at %s:%d) has its own allow=%s", allow,
				 p->file, p->line, p->allow);
	struct dnet_err e = { 0 };
	uint64_t waited = 0, step = 100;
	struct look none = { 0 }; /* every look anew: time passes between them */
	while (!pend_finished(d, &none, p)) {
		if (waited >= timeout_ns || dsh_interrupted(d) || dsh_term_signal()) {
			char by[200];
			describe(p, by, sizeof by);
			return dsh_error(d, "the primitive issued%s did not finish within %s: not judged (it stays "
					 "pending)", by, dsh_dur(waited));
		}
		if (dnet_delay(d->dev, step, &e) < 0)
			return dsh_derr(d, &e);
		waited += step;
		if (step < 1000000)
			step *= 2;
	}
	d->run.pending = NULL;
	int rc = judge_one(d, p, allow);
	free(p);
	return rc;
}

/* Whether every node went idle within the shell's timeout; the pause
 * between looks doubles from 100 ns to 1 ms, so a long wait through dnetd
 * is a few thousand round trips, not one per 100 ns. */
static bool settle_idle(struct dsh *d)
{
	struct dnet_err e = { 0 };
	unsigned n = dnet_node_count(d->dev);
	uint64_t waited = 0, step = 100;
	for (;;) {
		bool busy = false;
		for (unsigned k = 1; k <= n && !busy; k++) {
			struct dnet_dev *h = dnet_node_dev(d->dev, k, &e);
			/* a node this client may not use is refused: idle to it */
			if (!h || dnet_busy(h, &busy, &e) < 0)
				busy = false;
		}
		if (!busy)
			return true;
		if (waited >= d->opts.timeout_ns || dsh_interrupted(d) || dsh_term_signal())
			return false;
		if (dnet_delay(d->dev, step, &e) < 0)
			return false;
		waited += step;
		if (step < 1000000)
			step *= 2;
	}
}

/* The end of the run: let the device finish, then judge. */
int dsh_pending_settle(struct dsh *d)
{
	if (!d->run.pending || !d->dev)
		return 0;
	char saved[sizeof d->cur.errmsg];
	bool had = d->cur.have_err;
	memcpy(saved, d->cur.errmsg, sizeof saved);
	d->cur.have_err = false;
	int rc = 0;
	if (!settle_idle(d)) {
		/* Not complete: nothing can be judged; each fails as unknown. */
		char t[24];
		while (d->run.pending) {
			struct dsh_pending *p = d->run.pending;
			d->run.pending = p->next;
			char msg[400];
			snprintf(msg, sizeof msg, "the device was still busy %s after the end of the run: the "
				 "verdict of this primitive is unknown (end the script with wait)",
				 dnet_format_duration(d->opts.timeout_ns, t, sizeof t));
			dsh_late_failure(d, p->file[0] ? p->file : NULL, p->line, p->cmd, p->text, msg);
			free(p);
		}
		rc = -1;
	}
	if (dsh_pending_judge(d, true, false) < 0)
		rc = -1;
	memcpy(d->cur.errmsg, saved, sizeof saved);
	d->cur.have_err = had;
	return rc;
}

void dsh_pending_free(struct dsh *d)
{
	while (d->run.pending) {
		struct dsh_pending *p = d->run.pending;
		d->run.pending = p->next;
		free(p);
	}
}
