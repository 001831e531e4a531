/* SPDX-License-Identifier: MIT */
/* libdnet, private: the access rules as the core checks them.
 * Not installed and not exported (no visibility push: the library's
 * -fvisibility=hidden keeps these inside libdnet.so; libdnet.a has them for
 * the backends, dnetd and the unit tests).  See backend.h for why here. */
#ifndef DNET_ACCESS_INT_H
#define DNET_ACCESS_INT_H

#include "dnet/access.h"

#endif
