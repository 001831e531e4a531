/* dnetd: the PARAM request (protocol 1.3, server_param.c). */
#ifndef DNET_REMOTE_SERVER_PARAM_H
#define DNET_REMOTE_SERVER_PARAM_H

#include <stddef.h>
#include "remote/wire/proto.h"

struct dnet_dev;

/* Serve one decoded PARAM request on dev: *text (malloc'ed, the caller
 * frees it; NULL when empty) and *len are the reply's text.  Whether the
 * client may (SET: privileged only) is decided before (srv_dispatch.c). */
int srv_param(struct dnet_dev *dev, const struct dnet_proto_msg *m,
		   char **text, size_t *len, struct dnet_err *err);

/* PARAM_ALL: every readable parameter's value, NAME NUL VALUE NUL each, in
 * a malloc'd *pairs of *len bytes (the reply's data; the caller frees it). */
int srv_param_all(struct dnet_dev *dev, char **pairs, size_t *len, struct dnet_err *err);
#endif
