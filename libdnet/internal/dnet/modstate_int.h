/* SPDX-License-Identifier: MIT */
/* libdnet, private: Module State values field by field, for the emulator
 * (it keeps the value) and the tests.
 * Not installed and not exported (no visibility push: the library's
 * -fvisibility=hidden keeps these inside libdnet.so; libdnet.a has them for
 * the backends, dnetd and the unit tests).  See backend.h for why here. */
#ifndef DNET_MODSTATE_INT_H
#define DNET_MODSTATE_INT_H

#include "dnet/modstate.h"

/* State index of sub-machine f in a Module State value; -1 if the bits do
 * not form a valid state (several one-hot bits, unknown code). */
int core_modstate_get(uint64_t v, enum dnet_fsm f);
/* Encode: set sub-machine f of *v to state index s (emulator side). */
void core_modstate_set(uint64_t *v, enum dnet_fsm f, unsigned s);

#endif
