/* SPDX-License-Identifier: MIT */
/* libdnet: the options of a backend spec, read and set -- the one place
 * that knows the grammar dnet_open reads,
 *
 *   NAME[:OPTION[,OPTION...]]   an OPTION is KEY=VALUE or a flag KEY
 *
 * ("sim:nodes=4,cold", "remote:unix:/run/d.sock,node=2"): a value may hold
 * '=' and ':', never ','.  Programs that build or look into a spec (dsh -N,
 * dnetd --sim, dsh-run) use these rather than splice strings (D-SPEC-OPTIONS). */
#ifndef DNET_SPEC_H
#define DNET_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include "dnet/error.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* libdnet exports what its headers declare */

/* Whether spec names backend: the name before the first ':' is backend
 * ("sim", "sim:nodes=2"; not "simx", not "sim,nodes=2"). */
bool dnet_spec_is(const char *spec, const char *backend);

/* The option key of spec: 1 and its value in buf (n bytes, NUL included)
 * for KEY=VALUE (an empty value is ""), 0 and "" for a flag KEY,
 * -DNET_ENOENT if spec does not give it.  A key is matched whole ("node"
 * is not "nodes").  A value that does not fit in n is -DNET_EINVAL, never
 * cut short (buf is then "").  buf NULL: only whether it is there. */
int dnet_spec_get(const char *spec, const char *key, char *buf, size_t n, struct dnet_err *err);

/* spec with option key set, to buf (n bytes): KEY=value, or the flag KEY
 * when value is NULL; the option replaced where spec gives it, else added
 * at the end (after ':' as the first option, else after ',').  -DNET_EINVAL
 * for a key that is empty or holds '=', ',' or ':', a value with ',', or a
 * result that does not fit in n (buf is then ""). */
int dnet_spec_set(const char *spec, const char *key, const char *value, char *buf, size_t n,
		  struct dnet_err *err);

/* spec with options ("a=1,b", as a user gave them) added at the end, to buf
 * (n bytes), nothing replaced: an option given twice is the backend's to
 * refuse (D-SPEC-ONCE).  -DNET_EINVAL if it does not fit (buf ""). */
int dnet_spec_add(const char *spec, const char *options, char *buf, size_t n, struct dnet_err *err);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
