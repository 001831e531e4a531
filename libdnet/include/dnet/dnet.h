/* SPDX-License-Identifier: MIT */
/* libdnet: the DIMMnet-2 host library.  Include this one header.
 *
 *   map.h      memory map (regions, windows, attributes)
 *   regs.h     User/System Register table with bit fields
 *   codes.h    DTYPE, MTU, SO-DIMM Capacity, Status Area Size, LID<->CLID
 *   request.h  request encoder/decoder, the 17 OTYPE codes
 *   packet.h   packet header codec, receive status, LH Buffer entry
 *   device.h   open a backend, accessors, waits, issuing requests
 *   parse.h    strict number parsing
 *   param.h    backend parameters (list, get, set by name)
 *   probe.h    where a board may be: host bridges, DRAM rows, PCI BARs
 *   sync.h     barrier and signals between ranks through the device
 *   decisions  every ambiguous reading of the thesis is listed in
 *              docs/decisions.md and decided once in libdnet/src.
 */
#ifndef DNET_DNET_H
#define DNET_DNET_H

#include "dnet/error.h"
#include "dnet/map.h"
#include "dnet/codes.h"
#include "dnet/regs.h"
#include "dnet/request.h"
#include "dnet/packet.h"
#include "dnet/device.h"
#include "dnet/parse.h"
#include "dnet/modstate.h"
#include "dnet/msg.h"
#include "dnet/access.h"
#include "dnet/tap.h"
#include "dnet/param.h"
#include "dnet/probe.h"
#include "dnet/sync.h"
#include "dnet/suggest.h"
#include "dnet/spec.h"

#define DNET_VERSION_MAJOR 0
#define DNET_VERSION_MINOR 1
#define DNET_VERSION_PATCH 0
#define DNET_VERSION_STRING "0.1.0"

#pragma GCC visibility push(default) /* libdnet exports what its headers declare */
const char *dnet_version(void);
#pragma GCC visibility pop

#endif
