/* Errors as values (error.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "dnet/error.h"

int dnet_seterr(struct dnet_err *err, int code, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		err->code = code;
		va_start(ap, fmt);
		int n = vsnprintf(err->msg, sizeof err->msg, fmt, ap);
		va_end(ap);
		/* a message that does not fit says so rather than end mid-word */
		if (n >= (int)sizeof err->msg)
			memcpy(err->msg + sizeof err->msg - 4, "...", 4);
	}
	return -code;
}

void dnet_clearerr(struct dnet_err *err)
{
	if (err) {
		err->code = 0;
		err->msg[0] = '\0';
	}
}

const char *dnet_strerror(int code)
{
	static const char *const names[] = {
		[DNET_OK] = "OK", [DNET_EINVAL] = "EINVAL", [DNET_ENOENT] = "ENOENT",
		[DNET_EPERM] = "EPERM", [DNET_EIO] = "EIO", [DNET_ERANGE] = "ERANGE",
		[DNET_ETIMEDOUT] = "ETIMEDOUT", [DNET_ENOTSUP] = "ENOTSUP",
		[DNET_EPROTO] = "EPROTO", [DNET_ENOMEM] = "ENOMEM", [DNET_EBUSY] = "EBUSY",
		[DNET_EALIGN] = "EALIGN", [DNET_EINTR] = "EINTR",
	};
	if (code < 0)
		code = -code;
	if ((unsigned)code < sizeof names / sizeof names[0] && names[code])
		return names[code];
	return "EUNKNOWN";
}
