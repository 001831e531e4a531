/* The remote backend's parts (private to them): remote.c is the ops table
 * (rmt_backend: opening, the accesses), rmt_transport.c the
 * connection (connect, send, receive, one request and its reply),
 * rmt_post.c posted requests (protocol 1.1: batches answered only on
 * failure, SYNC). */
#ifndef DNET_REMOTE_RMT_H
#define DNET_REMOTE_RMT_H

#include <stdbool.h>
#include <stdint.h>
#include "dnet/backend.h"
#include "dnet/param.h"
#include "remote/wire/proto.h"

#define RMT_HIDDEN DNET_PROTO_HIDDEN

/* Posted requests (dnet_set_posted): the frames go out in batches and are
 * answered only if they fail; a failure is kept here, with the caller's tag
 * of the request, until dnet_sync() hands it over. */
#define OUT_BATCH   (64u << 10)  /* posted bytes kept before a send */
#define SEG_MAX     4096u        /* tag changes between two SYNCs */
#define PERR_MAX    1024u        /* failures kept; more are counted */
struct seg { uint32_t first_id; uint64_t tag; };
struct perr { uint64_t tag; int code; char msg[DNET_PROTO_MSG_MAX + 1]; };

struct remote {
	int fd;
	bool broken;
	char broken_why[DNET_ERR_MSG_MAX + 64]; /* a cause with its context */
	uint64_t timeout_ns;   /* 0: none */
	uint64_t rcvtimeo_ns;  /* the socket's SO_RCVTIMEO now (0: none) */
	uint32_t next_id;
	char addr[300];
	struct dnet_pbuf out;  /* frames not yet sent (posted ones wait for a batch) */
	uint8_t *in;           /* received bytes: in[in_pos..in_len) not yet decoded */
	size_t in_cap, in_len, in_pos;
	char **names;          /* stat names cache, NULL-terminated */
	bool names_done;
	/* the daemon's parameters (PARAM LIST, 1.3), fetched once: the
	 * definitions point into params_text */
	struct dnet_param *params;
	unsigned nparams;
	char *params_text;
	bool params_done;
	bool no_param_all;     /* the daemon answered PARAM_ALL as an unknown type */
	/* posting */
	bool can_post;         /* the daemon speaks protocol 1.1 */
	uint32_t unconfirmed;  /* posted frames since the last SYNC */
	struct seg segs[SEG_MAX];
	unsigned nsegs;
	struct perr *perr;     /* failures not yet handed over */
	unsigned nperr, perr_head, perr_more;
	uint32_t came;         /* ERRORs of posted requests since the last SYNC */
	bool stopped;          /* STOP mode: a failure is known, post nothing more */
	struct dnet_dev *dev;  /* the device: its stop hook ends a real-time wait for a reply */
};

/* rmt_transport.c */
/* Mark the connection unusable (a frame was cut: the stream is out of
 * step) and say why: fmt with what, after the daemon's address. */
RMT_HIDDEN int rmt_broken(struct remote *r, struct dnet_err *err, int code, const char *fmt,
			  const char *what);
RMT_HIDDEN int rmt_connect_to(struct remote *r, const struct dnet_sockspec *a, struct dnet_err *err);
/* Send every queued frame (-EPIPE: the daemon closed; read why). */
RMT_HIDDEN int rmt_flush_out(struct remote *r, uint64_t deadline, struct dnet_err *err);
RMT_HIDDEN int rmt_read_some(struct remote *r, uint64_t deadline, bool block, struct dnet_err *err);
RMT_HIDDEN int rmt_next_frame(struct remote *r, struct dnet_proto_msg *m, uint64_t deadline,
			      struct dnet_err *err);
RMT_HIDDEN int rmt_rpc(struct remote *r, struct dnet_proto_msg *req, struct dnet_proto_msg *rep,
		       uint64_t extra_ns, struct dnet_err *err);

/* rmt_post.c */
RMT_HIDDEN void rmt_keep_posted_error(struct remote *r, const struct dnet_proto_msg *m);
RMT_HIDDEN bool rmt_is_posted_id(const struct remote *r, uint32_t id, uint32_t next);
RMT_HIDDEN int rmt_take_posted_errors(struct remote *r, struct dnet_err *err);
RMT_HIDDEN int rmt_sync_posted(struct remote *r, struct dnet_err *err);
RMT_HIDDEN int rmt_post(struct dnet_dev *dev, struct dnet_proto_msg *req, bool stop, struct dnet_err *err);
RMT_HIDDEN bool rmt_posting(const struct dnet_dev *dev);
RMT_HIDDEN int rmt_pop_error(struct remote *r, uint64_t *tag, struct dnet_err *err);
RMT_HIDDEN int rmt_send_part(struct dnet_dev *dev, struct dnet_proto_msg *req, bool more,
			     struct dnet_err *err);

#endif
