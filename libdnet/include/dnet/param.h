/* SPDX-License-Identifier: MIT */
/* libdnet: backend parameters -- named, typed settings and readings a
 * backend defines and a caller lists, reads and sets by name (pciutils'
 * pci_define_param / pci_get_param / pci_set_param are the model).
 *
 * Values travel as text, so one interface serves every backend and the
 * remote protocol alike; the type says how to read them.  The emulator
 * defines fault.* (its fault rules), swif.* (what retransmission made of
 * them) and timing.* (its step costs); through dnetd the daemon's
 * emulator answers, and only a privileged client may set.
 */
#ifndef DNET_PARAM_H
#define DNET_PARAM_H

#include <stddef.h>
#include <stdint.h>
#include "dnet/error.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* libdnet exports what its headers declare */

struct dnet_dev;

enum dnet_param_type {
	DNET_PARAM_U64,   /* a decimal unsigned 64-bit number */
	DNET_PARAM_TEXT,  /* free text, lines separated by '\n' */
};

#define DNET_PARAM_RO 0x1u  /* read-only: dnet_param_set refuses */
#define DNET_PARAM_WO 0x2u  /* write-only (an action): dnet_param_get refuses */

#define DNET_PARAM_NAME_MAX  63u   /* bytes of a name */
#define DNET_PARAM_VALUE_MAX 8192u /* bytes of a value, NUL included */

struct dnet_param {
	const char *name;           /* "fault.rules" */
	enum dnet_param_type type;
	unsigned flags;             /* DNET_PARAM_RO, DNET_PARAM_WO */
	const char *help;           /* one line */
};

/* The device's parameters: *list (owned by the device, valid until
 * dnet_close) holds *n of them, in the backend's order; a backend without
 * parameters gives 0 of them. */
int dnet_param_list(struct dnet_dev *dev, const struct dnet_param **list, unsigned *n,
		    struct dnet_err *err);
/* The definition of one parameter; NULL (and err says which names exist) if
 * the device has none of that name. */
const struct dnet_param *dnet_param_find(struct dnet_dev *dev, const char *name,
					 struct dnet_err *err);
/* Read a parameter as text into buf (NUL-terminated; -DNET_EINVAL if it does
 * not fit).  -DNET_ENOENT for an unknown name, -DNET_ENOTSUP for a
 * write-only one. */
int dnet_param_get(struct dnet_dev *dev, const char *name, char *buf, size_t len,
		   struct dnet_err *err);
/* Read a DNET_PARAM_U64 parameter as a number. */
int dnet_param_get_u64(struct dnet_dev *dev, const char *name, uint64_t *v, struct dnet_err *err);
/* Set a parameter from text (a DNET_PARAM_U64 one must parse as a number).
 * -DNET_ENOENT, -DNET_EPERM for a read-only one (or, through dnetd, for a
 * client that is not privileged), -DNET_EINVAL for a value the backend
 * refuses (err says why). */
int dnet_param_set(struct dnet_dev *dev, const char *name, const char *value,
		   struct dnet_err *err);
/* One parameter and its value, as dnet_param_get_all gives them. */
struct dnet_param_value {
	const char *name;
	const char *value;
};
/* Every readable parameter of the device with its value, at once -- through
 * dnetd one request (PARAM_ALL), not one a parameter: *vals is one
 * allocation (the caller free()s it) of *n of them in the backend's order,
 * write-only ones (actions) left out; a backend without parameters gives 0.
 * An in-process backend without a way of its own is asked one parameter at
 * a time; -DNET_ENOTSUP (and *n 0) from a dnetd before PARAM_ALL: the
 * caller asks for what it needs with dnet_param_get. */
int dnet_param_get_all(struct dnet_dev *dev, struct dnet_param_value **vals, unsigned *n,
		       struct dnet_err *err);
/* "u64" or "text". */
const char *dnet_param_type_name(enum dnet_param_type t);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
