/* SPDX-License-Identifier: MIT */
/* libdnet, private: the code tables and LID/CLID helpers beyond codes.h's API,
 * for the emulator and the tests.
 * Not installed and not exported (no visibility push: the library's
 * -fvisibility=hidden keeps these inside libdnet.so; libdnet.a has them for
 * the backends, dnetd and the unit tests).  See backend.h for why here. */
#ifndef DNET_CODES_INT_H
#define DNET_CODES_INT_H

#include "dnet/codes.h"

extern const struct dnet_codetab core_codetab_dtype;
extern const struct dnet_codetab core_codetab_capacity;
extern const struct dnet_codetab core_codetab_mtu;
/* By table name; NULL if none. */
const struct dnet_codetab *core_codetab_by_name(const char *name);
uint32_t core_mtu_bytes(uint64_t code);
/* Fails with -DNET_EINVAL if the LID has no CLID (the bits reading r
 * removes are not 0). */
int core_lid_to_clid(enum dnet_clid_reading r, uint16_t lid, uint16_t *clid, struct dnet_err *err);
/* Kind of a CLID: "reserved", "unicast", "multicast", "init". */
const char *core_clid_kind(uint16_t clid);

#endif
