/* SPDX-License-Identifier: MIT */
/* libdnet, private: the request word codecs beyond request.h's API, for
 * the packet code, the emulator and the tests.
 * Not installed and not exported (no visibility push: the library's
 * -fvisibility=hidden keeps these inside libdnet.so; libdnet.a has them for
 * the backends, dnetd and the unit tests).  See backend.h for why here. */
#ifndef DNET_REQUEST_INT_H
#define DNET_REQUEST_INT_H

#include "dnet/request.h"

uint64_t core_req_lower(const struct dnet_req *r);   /* masking, no checks */
uint64_t core_req_upper(const struct dnet_req *r);
uint64_t core_req_ex_word(const struct dnet_req_ex *x);
void core_req_ex_decode(uint64_t word, struct dnet_req_ex *x);
void core_lhsv2_upper_decode(uint64_t upper, struct dnet_lhsv2_upper *u);

#endif
