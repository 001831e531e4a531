/* dnetd's grant files: which node and WIDs a user client may use.
 * Internal to libdnet (hidden symbols); used by srv_auth.c, bin/dnetd and
 * tests/unit/test_dnetd_auth.c.
 *
 * One grammar for both files, one line per grant:
 *
 *   # a comment (a line whose first non-blank character is '#'), blank lines
 *   SUBJECT node=N wid=W[,W]
 *
 * In a user-token file (dnetd --user-tokens) SUBJECT is the token itself
 * (1..255 bytes, no blanks); each token must be unique and bound to one
 * node.  In an allow-list (dnetd --allow) SUBJECT is user:NAME, uid:N or
 * group:NAME; a peer may match several lines (by its uid and by its groups
 * at connect time), and is granted the union of them.  Every error names
 * FILE:LINE.
 */
#ifndef DNET_REMOTE_GRANTS_H
#define DNET_REMOTE_GRANTS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "dnet/error.h"
#include "remote/wire/proto.h"

enum dnet_grant_kind { DNET_GRANT_TOKEN, DNET_GRANT_UID, DNET_GRANT_GROUP };

struct dnet_grant {
	enum dnet_grant_kind kind;
	char *token;       /* DNET_GRANT_TOKEN */
	uint32_t id;       /* the uid or gid */
	unsigned node;     /* the node granted (1..) */
	unsigned wids;     /* bit w set: WID w granted */
	char where[96];    /* "FILE:LINE", for messages */
};

struct dnet_grants {
	struct dnet_grant *g;
	unsigned n;
	char file[64];     /* the file's name, for messages */
};

/* Parse text (NUL-terminated) as a user-token file (tokens) or an
 * allow-list (!tokens); file names the source in messages.  Names in an
 * allow-list are resolved here (getpwnam, getgrnam): an unknown user or
 * group is an error.  On success *out holds the grants (free them with
 * srv_grants_free); on error nothing is left allocated. */
DNET_PROTO_HIDDEN int srv_grants_parse(const char *text, const char *file, bool tokens,
					struct dnet_grants *out, struct dnet_err *err);
/* Read and parse path.  A regular file only; a user-token file must not be
 * readable or writable by others (it holds secrets), an allow-list not
 * writable by others (it grants rights). */
DNET_PROTO_HIDDEN int srv_grants_load(const char *path, bool tokens, struct dnet_grants *out,
				       struct dnet_err *err);
DNET_PROTO_HIDDEN void srv_grants_free(struct dnet_grants *g);
/* "0" or "0,1": the WIDs of a mask. */
DNET_PROTO_HIDDEN const char *srv_grants_wids(unsigned wids, char *buf, size_t len);

#endif
