/* SPDX-License-Identifier: MIT */
/* libdnet: errors as values.
 *
 * Every fallible libdnet call returns 0 on success or a negative DNET_E*
 * code, and fills a struct dnet_err (when one is given) with a message that
 * names what was wrong.  The library never prints and never exits.
 */
#ifndef DNET_ERROR_H
#define DNET_ERROR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* libdnet exports what its headers declare */

enum dnet_errcode {
	DNET_OK = 0,
	DNET_EINVAL = 1,    /* bad argument or value out of range */
	DNET_ENOENT = 2,    /* unknown name (register, field, backend, ...) */
	DNET_EPERM = 3,     /* not allowed (System Register as a user, RAM range, root needed) */
	DNET_EIO = 4,       /* I/O with the device or the daemon failed */
	DNET_ERANGE = 5,    /* offset/length outside the region */
	DNET_ETIMEDOUT = 6, /* a wait ran out of time */
	DNET_ENOTSUP = 7,   /* the backend cannot do this */
	DNET_EPROTO = 8,    /* malformed frame or reply */
	DNET_ENOMEM = 9,    /* out of memory */
	DNET_EBUSY = 10,    /* device busy (e.g. request FIFO full) */
	DNET_EALIGN = 11,   /* misaligned offset or size */
	DNET_EINTR = 12,    /* the caller's stop hook ended a wait (sync.h) */
};

#define DNET_ERR_MSG_MAX 1024

struct dnet_err {
	int code;                    /* enum dnet_errcode, positive */
	char msg[DNET_ERR_MSG_MAX];  /* human readable, no trailing newline */
};

/* Set *err (if not NULL) and return -code.  printf-style. */
int dnet_seterr(struct dnet_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Short name of a code: "EINVAL", ... */
const char *dnet_strerror(int code);

/* Clear an error record. */
void dnet_clearerr(struct dnet_err *err);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
