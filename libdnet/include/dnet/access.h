/* SPDX-License-Identifier: MIT */
/* libdnet: the per-region access rules every raw access obeys (docs/device.md
 * 1.1, 1.3, 3.1, 3.2; thesis Tab. 4.1, Tab. 4.3, §4.2.1, §4.5, App. A/B).
 *
 * dnet_read/dnet_write, the block transfers and dnet_wait check them before
 * anything reaches a backend, so a wrong access never touches a board:
 *
 *   hole        an offset between sub-areas belongs to no region;
 *   span        one access stays inside one region's sub-area;
 *   ww-read     the Write Window is write-only for the host;
 *   ro-region   the Prefetch Window and LH Buffer are read-only for the host;
 *   reg-width   registers are accessed 64 bits at a time, aligned (§4.2.1:
 *               "64 or 128 bit"; a 32-bit store to Command Lower would start
 *               a half-written request);
 *   no-reg      an offset of the register pages where no register is;
 *   reg-wo      a write-only register is not read (Command*, Status Area
 *               Size, ...);
 *   reg-ro      a read-only register is not written (Controller Status, ...);
 *   reg-effect  Controller Reset acts on any access: a read only when
 *               confirmed (dnet_reg_read_effect);
 *   privileged  the System Register only with DNET_CAP_PRIVILEGED (§4.5).
 *
 * The error message starts with the rule's name in brackets, e.g.
 * "[reg-width] ...". */
#ifndef DNET_ACCESS_H
#define DNET_ACCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "dnet/error.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* libdnet exports what its headers declare */

/* A short description of a device offset for listings: "ureg0+0x200
 * ctl_status", "llcm1+0x10", "ww0+0x400", "hole". */
const char *dnet_addr_describe(uint32_t off, bool write, char *buf, size_t n);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
