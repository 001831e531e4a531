/* SPDX-License-Identifier: MIT */
/* libdnet: strict number parsing, shared by the programs and the backends.
 *
 * The thesis's debug shell (App. C) used strtoul and read "55ff" as 55.  These parsers accept
 * a whole token or nothing:
 *   decimal      0, 42          (a leading zero before digits is rejected:
 *                               it meant octal in the thesis's debug shell)
 *   hexadecimal  0x2a, 0X2A
 *   binary       0b101010
 *   octal        0o52
 *   '_' may group digits (0x1234_5678), as in the thesis.
 * Errors name the token and what is wrong with it.
 */
#ifndef DNET_PARSE_H
#define DNET_PARSE_H

#include <stddef.h>
#include <stdint.h>
#include "dnet/error.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* libdnet exports what its headers declare */

/* Parse an unsigned number no larger than max.  what names the value in
 * messages ("size", "offset"); may be NULL. */
int dnet_parse_u64(const char *s, uint64_t max, uint64_t *v, const char *what,
		   struct dnet_err *err);
/* A duration, the one parser of every program (D-DURATION): a whole number
 * ('_' groups digits) and a unit, no space between: ns, us, ms, s, m (or
 * min), h -- "5ns", "3us", "2ms", "1s", "10m", "2h".  A bare number is
 * refused ("'5' needs a unit (ns, us, ms, s, m, h)"), except 0.  Messages
 * start with what ("--timeout", "timeout"; NULL: "duration"). */
int dnet_parse_duration(const char *s, uint64_t *ns, const char *what,
			struct dnet_err *err);
/* The same grammar, the result in whole seconds (at most max): the options
 * that keep their limit in seconds ("30s", "5m", "1h"; "500ms" refused). */
int dnet_parse_seconds(const char *s, uint64_t max, uint64_t *sec, const char *what,
		       struct dnet_err *err);
/* The exact duration in the largest unit that divides it ("10us", "1s",
 * "1500ns"), which dnet_parse_duration reads back; buf of >= 24 bytes. */
const char *dnet_format_duration(uint64_t ns, char *buf, size_t n);
/* A time stamp scaled for reading: "850ns", "12.345us", "3.002ms", "1.500s". */
const char *dnet_format_time(uint64_t ns, char *buf, size_t n);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
