/* SPDX-License-Identifier: MIT */
/* libdnet, private: the backend interface, for the backends linked into
 * libdnet (not installed; a program sees device.h's opaque handle).
 *
 * Why libdnet/internal/dnet/: the private headers keep their "dnet/NAME.h"
 * include lines (every backend, the server, the core unchanged) and only
 * the library, dnetd and the internal tests are given -Ilibdnet/internal
 * (the Makefile's BASE_CFLAGS): a program built with PUB_CFLAGS cannot
 * include them, and install copies libdnet/include only.
 *
 * Like pciutils' struct pci_methods: each backend is one table of functions
 * in its own directory under backends/.  The core (libdnet/src/device.c)
 * checks arguments (alignment, bounds, widths) before calling a backend, and
 * supplies fallbacks for the optional entries.
 */
#ifndef DNET_BACKEND_H
#define DNET_BACKEND_H

#include "dnet/codes.h"
#include "dnet/device.h"
#include "dnet/param.h"
#include "dnet/tap.h"

#ifdef __cplusplus
extern "C" {
#endif

struct dnet_backend_ops {
	const char *name;      /* "sim" */
	const char *synopsis;  /* "sim[:nodes=N][,cold][,capacity=MB]" */
	const char *help;      /* one line */

	/* Required. open parses args (the text after "NAME:", "" if none),
	 * sets dev->priv, dev->nodes (>= 1) and dev->caps. */
	int (*open)(struct dnet_dev *dev, const char *args, struct dnet_err *err);
	/* Optional: check args as open would and set dev->caps, opening and
	 * touching nothing (dnet_open_dry; dev->priv stays NULL). */
	int (*dry_open)(struct dnet_dev *dev, const char *args, struct dnet_err *err);
	void (*close)(struct dnet_dev *dev);
	/* width is 1, 2, 4, 8 or 16; off is aligned and inside DNET_MAP_SIZE. */
	int (*read)(struct dnet_dev *dev, uint32_t off, void *buf, unsigned width,
		    struct dnet_err *err);
	int (*write)(struct dnet_dev *dev, uint32_t off, const void *buf, unsigned width,
		     struct dnet_err *err);

	/* Optional (NULL: the core loops over 8-byte accesses). */
	int (*read_block)(struct dnet_dev *dev, uint32_t off, void *buf, size_t len,
			  struct dnet_err *err);
	int (*write_block)(struct dnet_dev *dev, uint32_t off, const void *buf, size_t len,
			   struct dnet_err *err);
	/* Optional (NULL: the core calls read_block for each).  The core has
	 * checked every request: those whose rc is already negative (refused)
	 * are skipped, the others (rc 0, len > 0) are read and their rc set.
	 * Returns 0 or the first failure (err its message). */
	int (*read_blocks)(struct dnet_dev *dev, struct dnet_read_req *reqs, size_t n,
			   struct dnet_err *err);
	/* Optional (NULL: nothing to do). */
	int (*wc_flush)(struct dnet_dev *dev, struct dnet_err *err);
	int (*cache_flush)(struct dnet_dev *dev, uint32_t off, size_t len, struct dnet_err *err);
	int (*prefetch)(struct dnet_dev *dev, uint32_t off, size_t len, struct dnet_err *err);
	/* Optional (NULL: the core polls read64 with real-time sleeps). */
	int (*wait)(struct dnet_dev *dev, uint32_t off, uint64_t mask, enum dnet_cond cond,
		    uint64_t value, uint64_t timeout_ns, uint64_t *last, struct dnet_err *err);
	/* Optional (NULL: nanosleep / CLOCK_MONOTONIC). */
	int (*delay)(struct dnet_dev *dev, uint64_t ns, struct dnet_err *err);
	int (*now)(struct dnet_dev *dev, uint64_t *ns, struct dnet_err *err);
	/* Optional (NULL: Controller Status request-pending of both WIDs). */
	int (*busy)(struct dnet_dev *dev, bool *busy, struct dnet_err *err);
	/* Optional (NULL: -DNET_ENOTSUP). */
	int (*sodimm)(struct dnet_dev *dev, uint64_t addr, void *buf, size_t len, bool write,
		      struct dnet_err *err);
	/* Optional (NULL: -DNET_ENOTSUP / no names). */
	int (*stat)(struct dnet_dev *dev, const char *name, uint64_t *v, struct dnet_err *err);
	const char *const *(*stat_names)(struct dnet_dev *dev);
	/* Optional (NULL: requests are never posted, nothing to wait for).
	 * Posting is asked for by dev->root->posted, each request tagged
	 * dev->root->tag. */
	int (*sync)(struct dnet_dev *dev, uint64_t *tag, struct dnet_err *err);
	/* Optional (NULL: no parameters; param.h).  params gives the
	 * definitions (owned by the backend, valid until close; NULL and err on
	 * failure).  The core finds p by name and checks DNET_PARAM_RO/WO and
	 * a U64 value's syntax before calling param_get / param_set. */
	const struct dnet_param *(*params)(struct dnet_dev *dev, unsigned *n, struct dnet_err *err);
	int (*param_get)(struct dnet_dev *dev, const struct dnet_param *p, char *buf, size_t len,
			 struct dnet_err *err);
	int (*param_set)(struct dnet_dev *dev, const struct dnet_param *p, const char *value,
			 struct dnet_err *err);
	/* Optional (NULL, or -DNET_ENOTSUP: the core calls param_get for each):
	 * every readable parameter's value at once, *pairs a malloc'd
	 * NAME NUL VALUE NUL ... of *len bytes the core frees. */
	int (*param_get_all)(struct dnet_dev *dev, char **pairs, size_t *len, struct dnet_err *err);
};

/* One handle per node (D-NODE-HANDLE): the root, which dnet_open returns
 * (open sets its node: the home node, 1 unless the backend says), and the
 * node handles dnet_node_dev makes, copies of the root but for node, owned
 * by it.  Every entry is called with the handle of the node it acts on: a
 * backend reads dev->node per call and keeps no current node of its own.
 * priv, nodes, caps, cluster, spec and dry are set at open and the same in
 * every handle; what changes after open (the tap, the stop hook, posting,
 * the tag) lives in the root only: read it as dev->root->X. */
struct dnet_dev {
	const struct dnet_backend_ops *ops;
	void *priv;
	unsigned nodes;  /* >= 1 */
	unsigned node;   /* this handle's node, 1..nodes */
	struct dnet_dev *root;      /* the handle dnet_open returned (itself for it) */
	struct dnet_dev **handles;  /* root only: [node - 1] of the first 65536, made on first use */
	struct dnet_dev *more_handles; /* root: the handles of nodes past them; a node's: the next */
	unsigned tap_node;          /* root only: the node of the last record tapped */
	unsigned caps;   /* DNET_CAP_* */
	uint64_t cluster; /* which emulated cluster (dnet_dev_cluster); remote: dnetd's */
	enum dnet_clid_reading clid_reading; /* D-CLID: set by open (sim's clid=), else 11:8 */
	char spec[DNET_SPEC_MAX];
	/* Kept by the core (tap.h): the tap, dry mode, and the one next read
	 * of a read-effect register allowed (dnet_reg_read_effect). */
	void (*tap)(void *ctx, const struct dnet_tap_rec *rec);
	void *tap_ctx;
	bool dry;
	bool confirm_next;
	bool (*stop)(void *ctx); /* dnet_set_stop: asked by every blocking call */
	void *stop_ctx;
	int posted;      /* enum dnet_post (dnet_set_posted): root only */
	uint64_t tag;    /* dnet_set_tag: root only */
};

/* The backends linked into libdnet. */
extern const struct dnet_backend_ops devmem_backend;
extern const struct dnet_backend_ops sim_backend;
extern const struct dnet_backend_ops rmt_backend;
extern const struct dnet_backend_ops dpci_backend;

/* true when the stop hook says stop (false without one; dnet_set_stop):
 * asked by every blocking call, the core's and the backends'. */
bool core_stopped(const struct dnet_dev *dev);
/* Whether dev was opened with dnet_open_dry (tap.h). */
bool core_dev_dry(const struct dnet_dev *dev);

/* The pause of the fallback poll (dnet_wait without a backend wait): 0 while
 * elapsed_ns is below 50 us (spin with the pause instruction), then
 * 1 us, 2 us, 4 us, ... up to 1 ms (*step keeps the state; start it at 0). */
uint64_t core_poll_pause_ns(uint64_t elapsed_ns, uint64_t *step);

/* Helpers for backends parsing "key=value,key,..." argument lists. */
struct dnet_kv {
	char key[32];
	char val[DNET_SPEC_MAX];
	int has_val;
};
/* Split args at ',' into at most max pairs; -DNET_EINVAL on overflow. */
int core_kv_split(const char *args, struct dnet_kv *kv, unsigned max, unsigned *n,
		  struct dnet_err *err);

#ifdef __cplusplus
}
#endif
#endif
