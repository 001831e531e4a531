/* SPDX-License-Identifier: MIT */
/* libdnet, private: a parser no program uses (the tests do).
 * Not installed and not exported (no visibility push: the library's
 * -fvisibility=hidden keeps these inside libdnet.so; libdnet.a has them for
 * the backends, dnetd and the unit tests).  See backend.h for why here. */
#ifndef DNET_PARSE_INT_H
#define DNET_PARSE_INT_H

#include "dnet/parse.h"

/* As dnet_parse_u64, also accepting a binary size suffix K, M or G (KiB,
 * MiB, GiB). */
int core_parse_size(const char *s, uint64_t max, uint64_t *v, const char *what,
		    struct dnet_err *err);

#endif
