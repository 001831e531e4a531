/* The remote backend's posted requests (dnet_set_posted, protocol 1.1):
 * frames queued and sent in batches, answered only if they fail; each
 * failure kept with the caller's tag of the request until dnet_sync()
 * hands it over; SYNC says every request before it is done. */
#include "remote/rmt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

/* The tag a posted request was sent with. */
static uint64_t tag_of(const struct remote *r, uint32_t id)
{
	uint64_t tag = DNET_NO_TAG;
	for (unsigned i = 0; i < r->nsegs; i++) {
		if ((uint32_t)(id - r->segs[0].first_id) < (uint32_t)(r->segs[i].first_id - r->segs[0].first_id))
			break;
		tag = r->segs[i].tag;
	}
	return tag;
}

/* Keep the failure of posted request id (an ERROR reply) for dnet_sync. */
void rmt_keep_posted_error(struct remote *r, const struct dnet_proto_msg *m)
{
	r->came++;
	if (!r->perr)
		r->perr = calloc(PERR_MAX, sizeof *r->perr);
	if (!r->perr || r->nperr == PERR_MAX) {
		r->perr_more++;
		return;
	}
	struct perr *p = &r->perr[(r->perr_head + r->nperr++) % PERR_MAX];
	p->tag = tag_of(r, m->id);
	p->code = (int)m->code;
	snprintf(p->msg, sizeof p->msg, "%s", m->msg);
}

/* Whether id is one of the posted requests sent since the last SYNC. */
bool rmt_is_posted_id(const struct remote *r, uint32_t id, uint32_t next)
{
	if (!r->nsegs)
		return false;
	return (uint32_t)(id - r->segs[0].first_id) < (uint32_t)(next - r->segs[0].first_id);
}

/* Read the ERRORs of posted requests that have arrived, without waiting. */
int rmt_take_posted_errors(struct remote *r, struct dnet_err *err)
{
	for (;;) {
		size_t flen = 0;
		struct dnet_err e;
		int pk = wire_peek(r->in ? r->in + r->in_pos : NULL, r->in_len - r->in_pos, &flen, &e); /* in is NULL before the first read */
		if (pk <= 0)
			return pk < 0 ? rmt_broken(r, err, DNET_EPROTO, "bad reply: %s", e.msg) : 0;
		struct dnet_proto_msg m;
		if (wire_decode(r->in + r->in_pos, flen, &m, &e) != 0)
			return rmt_broken(r, err, DNET_EPROTO, "bad reply: %s", e.msg);
		if (m.type != DNET_MSG_ERROR || !rmt_is_posted_id(r, m.id, r->next_id + 1))
			return 0; /* a reply: its reader takes it */
		r->in_pos += flen;
		rmt_keep_posted_error(r, &m);
	}
}

/* SYNC: every request sent is done; the ERRORs of failed posted ones are
 * kept on the way.  The daemon's counts must match what came. */
int rmt_sync_posted(struct remote *r, struct dnet_err *err)
{
	if (!r->unconfirmed && !r->out.len)
		return 0;
	struct dnet_proto_msg req, rep;
	memset(&req, 0, sizeof req);
	req.type = DNET_MSG_SYNC;
	int rc = rmt_rpc(r, &req, &rep, 0, err);
	if (rc)
		return rc;
	if (rep.count - rep.skipped != r->came)
		return rmt_broken(r, err, DNET_EPROTO, "%s", "SYNC reply counts failures that never came");
	r->came = 0;
	r->unconfirmed = 0;
	r->nsegs = 0;
	return 0;
}

/* Queue one posted request (sent with the next batch).  In STOP mode, after
 * a known failure, nothing more is sent: it counts as skipped. */
int rmt_post(struct dnet_dev *dev, struct dnet_proto_msg *req, bool stop, struct dnet_err *err)
{
	struct remote *r = dev->priv;
	if (r->broken)
		return dnet_seterr(err, DNET_EIO, "dnetd at %s: connection unusable (%s)", r->addr,
				   r->broken_why);
	if (stop && r->stopped)
		return 0; /* skipped, as the daemon would */
	if (r->nsegs == SEG_MAX || r->unconfirmed >= (1u << 30)) {
		int rc = rmt_sync_posted(r, err);
		if (rc)
			return rc;
		if (stop && r->nperr + r->perr_more) {
			r->stopped = true;
			return 0;
		}
	}
	req->id = ++r->next_id;
	req->flags = (uint16_t)(DNET_PROTO_F_POSTED | (stop ? DNET_PROTO_F_STOP : 0));
	int rc = wire_encode(&r->out, req, err);
	if (rc)
		return rc;
	if (!r->nsegs || r->segs[r->nsegs - 1].tag != dev->root->tag)
		r->segs[r->nsegs++] = (struct seg){ .first_id = req->id, .tag = dev->root->tag };
	r->unconfirmed++;
	if (r->out.len >= OUT_BATCH) {
		uint64_t deadline = r->timeout_ns ? dnet_mono_ns() + r->timeout_ns : 0;
		if ((rc = rmt_flush_out(r, deadline, err)))
			return rc == -EPIPE ? rmt_broken(r, err, DNET_EIO, "%s", "the daemon closed the connection") : rc;
	}
	return 0;
}

/* Whether this request goes posted: the caller asked for it and the daemon
 * can. */
bool rmt_posting(const struct dnet_dev *dev)
{
	const struct remote *r = dev->priv;
	return dev->root->posted != DNET_POST_OFF && r->can_post;
}

/* Hand over the oldest kept failure: its code and message, *tag. */
int rmt_pop_error(struct remote *r, uint64_t *tag, struct dnet_err *err)
{
	if (r->nperr) {
		struct perr *p = &r->perr[r->perr_head];
		r->perr_head = (r->perr_head + 1) % PERR_MAX;
		r->nperr--;
		if (tag)
			*tag = p->tag;
		int rc = dnet_seterr(err, p->code, "%s", p->msg);
		if (!r->nperr && !r->perr_more)
			r->stopped = false;
		return rc;
	}
	if (r->perr_more) {
		unsigned n = r->perr_more;
		r->perr_more = 0;
		r->stopped = false;
		if (tag)
			*tag = DNET_NO_TAG;
		return dnet_seterr(err, DNET_EIO, "%u more posted requests failed (their errors were not kept)", n);
	}
	return 0;
}

/* A request in several frames (a block write over DNET_PROTO_MAX_DATA):
 * posted when posting, else sent together and stopped at the first
 * failure, which is returned -- one round trip instead of one per frame. */
int rmt_send_part(struct dnet_dev *dev, struct dnet_proto_msg *req, bool more, struct dnet_err *err)
{
	struct remote *r = dev->priv;
	if (rmt_posting(dev))
		return rmt_post(dev, req, dev->root->posted == DNET_POST_STOP, err);
	if (!r->can_post || (!more && !r->unconfirmed)) {
		struct dnet_proto_msg rep;
		return rmt_rpc(r, req, &rep, 0, err);
	}
	int rc = rmt_post(dev, req, true, err);
	if (rc || more)
		return rc;
	if ((rc = rmt_sync_posted(r, err)))
		return rc;
	return rmt_pop_error(r, NULL, err);
}
