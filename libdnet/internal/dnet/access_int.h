/* SPDX-License-Identifier: MIT */
/* libdnet, private: the access rules as the core checks them.
 * Not installed and not exported (no visibility push: the library's
 * -fvisibility=hidden keeps these inside libdnet.so; libdnet.a has them for
 * the backends, dnetd and the unit tests).  See backend.h for why here. */
#ifndef DNET_ACCESS_INT_H
#define DNET_ACCESS_INT_H

#include "dnet/access.h"

/* Check an access of len bytes at device offset off made of width-byte
 * accesses (width 8 for block transfers), a write or a read, by a device
 * with capabilities caps; confirmed allows the read of a register whose
 * read acts.  Alignment and map bounds are checked by the caller.
 * Returns 0, -DNET_EPERM (a rule), -DNET_ERANGE (hole, span) or
 * -DNET_EINVAL (width). */
int dnet_access_check(unsigned caps, uint32_t off, size_t len, unsigned width, bool write,
		      bool confirmed, struct dnet_err *err);

#endif
