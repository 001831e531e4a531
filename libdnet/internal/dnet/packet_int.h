/* SPDX-License-Identifier: MIT */
/* libdnet, private: the packet encoders beyond packet.h's API, for the
 * emulator (it builds what the hardware sends) and the tests.
 * Not installed and not exported (no visibility push: the library's
 * -fvisibility=hidden keeps these inside libdnet.so; libdnet.a has them for
 * the backends, dnetd and the unit tests).  See backend.h for why here. */
#ifndef DNET_PACKET_INT_H
#define DNET_PACKET_INT_H

#include "dnet/packet.h"

uint64_t core_hdr_dw3(const struct dnet_pkt_hdr *h);
uint64_t core_hdr_dw4(const struct dnet_pkt_hdr *h);
void core_status_encode(const struct dnet_status *s, uint64_t *lo, uint64_t *hi);
void core_lh_encode(const struct dnet_lh_entry *e, uint64_t line[8]);

#endif
