/* The device core (device.h, backend.h): backend registry, argument checks
 * and the fallbacks for optional backend entries. */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "dnet/access_int.h"
#include "dnet/backend.h"
#include "dnet/map.h"
#include "dnet/suggest.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
/* Node handles (dnet_node_dev): a table of the first DNET_NODE_TABLE nodes
 * (the emulator's CLIDs fit), a list for the nodes past it -- a daemon may
 * say it serves 2^32 - 1 nodes, and a table of them would take 32 GB. */
#define DNET_NODE_TABLE 65536u

static const struct dnet_backend_ops *const backends[] = {
	&sim_backend,
	&rmt_backend,
	&devmem_backend,
	&dpci_backend,
};

static struct dnet_backend_desc descs[N(backends)];

const struct dnet_backend_desc *dnet_backends(unsigned *count)
{
	for (unsigned i = 0; i < N(backends); i++) {
		descs[i].name = backends[i]->name;
		descs[i].synopsis = backends[i]->synopsis;
		descs[i].help = backends[i]->help;
	}
	if (count)
		*count = N(backends);
	return descs;
}

static int open_common(const char *spec, bool dry, struct dnet_dev **devp, struct dnet_err *err)
{
	*devp = NULL;
	if (!spec || !*spec)
		return dnet_seterr(err, DNET_EINVAL, "empty backend spec");
	if (strlen(spec) >= DNET_SPEC_MAX)
		return dnet_seterr(err, DNET_EINVAL, "backend spec too long (max %d)", DNET_SPEC_MAX - 1);
	const char *colon = strchr(spec, ':');
	size_t nlen = colon ? (size_t)(colon - spec) : strlen(spec);
	const struct dnet_backend_ops *ops = NULL;
	for (unsigned i = 0; i < N(backends); i++)
		if (strlen(backends[i]->name) == nlen && strncmp(backends[i]->name, spec, nlen) == 0)
			ops = backends[i];
	if (!ops) {
		/* "remote,node=3": a known name with its options after ',' not ':' */
		size_t base = strcspn(spec, ",=");
		for (unsigned i = 0; base < nlen && i < N(backends); i++)
			if (strlen(backends[i]->name) == base && strncmp(backends[i]->name, spec, base) == 0)
				return dnet_seterr(err, DNET_ENOENT, "unknown backend '%.*s': backend '%s' takes its "
						   "options after a ':' (%s)", (int)nlen, spec, backends[i]->name,
						   backends[i]->synopsis);
		char word[64];
		snprintf(word, sizeof word, "%.*s", (int)(nlen < sizeof word ? nlen : sizeof word - 1), spec);
		struct dnet_suggest sg;
		dnet_suggest_init(&sg, word);
		for (unsigned i = 0; i < N(backends); i++)
			dnet_suggest_add(&sg, backends[i]->name);
		char names[128] = "";
		for (unsigned i = 0; i < N(backends); i++) {
			strncat(names, i ? ", " : "", sizeof names - strlen(names) - 1);
			strncat(names, backends[i]->name, sizeof names - strlen(names) - 1);
		}
		if (dnet_suggest_best(&sg))
			return dnet_seterr(err, DNET_ENOENT, "unknown backend '%.*s' (did you mean '%s'? known: %s; "
					   "options after a ':', e.g. sim:nodes=4)", (int)nlen, spec,
					   dnet_suggest_best(&sg), names);
		return dnet_seterr(err, DNET_ENOENT, "unknown backend '%.*s' (known: %s; options after a ':', "
				   "e.g. sim:nodes=4)", (int)nlen, spec, names);
	}
	struct dnet_dev *dev = calloc(1, sizeof *dev);
	if (!dev)
		return dnet_seterr(err, DNET_ENOMEM, "out of memory");
	dev->ops = ops;
	dev->root = dev;
	dev->nodes = 1;
	dev->node = 1;
	dev->clid_reading = DNET_CLID_11_8; /* the sim's clid=12:9 changes it (D-CLID) */
	dev->dry = dry;
	dnet_spec_redact(spec, dev->spec, sizeof dev->spec); /* only ever shown, never reopened */
	int rc = 0;
	if (!dry)
		rc = ops->open(dev, colon ? colon + 1 : "", err);
	else if (ops->dry_open)
		rc = ops->dry_open(dev, colon ? colon + 1 : "", err);
	else
		dev->caps = DNET_CAP_PRIVILEGED;
	if (rc) {
		free(dev);
		return rc;
	}
	if (dev->nodes < 1)
		dev->nodes = 1;
	if (!dry && !dev->cluster && (dev->caps & DNET_CAP_VIRTUAL_TIME) && !(dev->caps & DNET_CAP_REMOTE) &&
	    getrandom(&dev->cluster, sizeof dev->cluster, GRND_NONBLOCK) != (ssize_t)sizeof dev->cluster)
		dev->cluster = (uint64_t)time(NULL) << 20 ^ (uint64_t)(uintptr_t)dev; /* an emulator of its own */
	if (dev->node < 1 || dev->node > dev->nodes)
		dev->node = 1;
	dev->tap_node = dev->node;
	*devp = dev;
	return 0;
}

int dnet_open(const char *spec, struct dnet_dev **devp, struct dnet_err *err)
{
	return open_common(spec, false, devp, err);
}

int dnet_open_dry(const char *spec, struct dnet_dev **devp, struct dnet_err *err)
{
	return open_common(spec, true, devp, err);
}

bool core_dev_dry(const struct dnet_dev *dev) { return dev->dry; }

void dnet_close(struct dnet_dev *dev)
{
	if (!dev)
		return;
	dev = dev->root; /* any handle closes the device, its node handles with it */
	if (!dev->dry)
		dev->ops->close(dev);
	if (dev->handles)
		for (unsigned i = 0; i < dev->nodes && i < DNET_NODE_TABLE; i++)
			free(dev->handles[i]);
	free(dev->handles);
	for (struct dnet_dev *n = dev->more_handles, *next; n; n = next) {
		next = n->more_handles;
		free(n);
	}
	free(dev);
}

void dnet_set_tap(struct dnet_dev *dev, dnet_tap_fn fn, void *ctx)
{
	dev->root->tap = fn;
	dev->root->tap_ctx = fn ? ctx : NULL;
}

static const char *const tap_names[] = {
	[DNET_TAP_READ] = "read", [DNET_TAP_WRITE] = "write", [DNET_TAP_READ_BLOCK] = "read_block",
	[DNET_TAP_WRITE_BLOCK] = "write_block", [DNET_TAP_WAIT] = "wait", [DNET_TAP_DELAY] = "delay",
	[DNET_TAP_WC_FLUSH] = "wc_flush", [DNET_TAP_CACHE_FLUSH] = "cache_flush",
	[DNET_TAP_PREFETCH] = "prefetch", [DNET_TAP_NODE] = "node", [DNET_TAP_BUSY] = "busy",
};

const char *dnet_tap_kind_name(enum dnet_tap_kind k)
{
	return (unsigned)k < N(tap_names) ? tap_names[k] : "?";
}

int dnet_tap_kind_parse(const char *s, enum dnet_tap_kind *k)
{
	for (unsigned i = 0; i < N(tap_names); i++)
		if (strcmp(s, tap_names[i]) == 0) {
			*k = (enum dnet_tap_kind)i;
			return 0;
		}
	return -DNET_ENOENT;
}

/* Report an operation that ran (or, dry, would have) to the tap.  Callers
 * build the record only when a tap is installed (if (!dev->root->tap) return rc;
 * first): filling it costs more than an access to the emulator. */
static int tap(struct dnet_dev *dev, struct dnet_tap_rec *r, int rc, const struct dnet_err *err)
{
	struct dnet_dev *root = dev->root;
	if (root->tap && dev->node != root->tap_node) {
		/* a record of another node: say so first, as the journal's
		 * node context (D-NODE-HANDLE) */
		struct dnet_tap_rec nr = { .kind = DNET_TAP_NODE, .node = dev->node, .val = { dev->node, 0 } };
		root->tap_node = dev->node;
		root->tap(root->tap_ctx, &nr);
	}
	if (root->tap) {
		r->node = dev->node;
		r->rc = rc;
		r->msg = rc && err ? err->msg : NULL;
		dev->root->tap(dev->root->tap_ctx, r);
	}
	return rc;
}

const char *dnet_dev_backend(const struct dnet_dev *dev) { return dev->ops->name; }
const char *dnet_dev_spec(const struct dnet_dev *dev) { return dev->spec; }

/* spec copied to buf with every token= option's value replaced by repl, or
 * with the option left out (repl NULL; its value, the last one given, to
 * tok).  An option starts the arguments ("NAME:") or follows a comma. */
static unsigned spec_tokens(const char *spec, char *buf, size_t n, const char *repl, char *tok, size_t tn)
{
	static const char key[] = "token=";
	size_t o = 0;
	unsigned found = 0;
	if (!n)
		return 0;
	for (const char *p = spec ? spec : ""; *p;) {
		bool start = p == spec || p[-1] == ',' || p[-1] == ':';
		if (start && strncmp(p, key, sizeof key - 1) == 0) {
			size_t vl = strcspn(p + sizeof key - 1, ",");
			found++;
			if (repl) {
				o += (size_t)snprintf(buf + o, n - o, "%s%s", key, repl);
			} else {
				if (tok && tn)
					snprintf(tok, tn, "%.*s", (int)vl, p + sizeof key - 1);
				if (o && buf[o - 1] == ',' && !p[sizeof key - 1 + vl])
					o--; /* "a,token=T" at the end: no trailing comma */
			}
			if (o >= n)
				o = n - 1;
			p += sizeof key - 1 + vl;
			if (!repl && *p == ',' && (o == 0 || buf[o - 1] == ',' || buf[o - 1] == ':'))
				p++; /* "token=T,b": no empty option left */
			continue;
		}
		if (o + 1 < n)
			buf[o++] = *p;
		p++;
	}
	buf[o] = 0;
	return found;
}

const char *dnet_spec_redact(const char *spec, char *buf, size_t n)
{
	spec_tokens(spec, buf, n, "***", NULL, 0);
	return buf;
}

bool dnet_spec_take_token(const char *spec, char *buf, size_t n, char *tok, size_t tn)
{
	if (tok && tn)
		tok[0] = 0;
	return spec_tokens(spec, buf, n, NULL, tok, tn) > 0;
}

unsigned dnet_spec_tokens(const char *spec)
{
	char buf[2];
	return spec_tokens(spec, buf, sizeof buf, "", NULL, 0);
}
unsigned dnet_dev_caps(const struct dnet_dev *dev) { return dev->caps; }
uint64_t dnet_dev_cluster(const struct dnet_dev *dev) { return dev->cluster; }
enum dnet_clid_reading dnet_dev_clid_reading(const struct dnet_dev *dev) { return dev->clid_reading; }
unsigned dnet_node_count(const struct dnet_dev *dev) { return dev->nodes; }
unsigned dnet_node(const struct dnet_dev *dev) { return dev->node; }

struct dnet_dev *dnet_node_dev(struct dnet_dev *dev, unsigned node, struct dnet_err *err)
{
	struct dnet_dev *root = dev->root;
	if (!node)
		return root;
	if (node > root->nodes) {
		dnet_seterr(err, DNET_ERANGE, "node %u does not exist (this backend has %u node%s: 1-%u)",
			    node, root->nodes, root->nodes == 1 ? "" : "s", root->nodes);
		return NULL;
	}
	if (node == root->node)
		return root;
	unsigned slots = root->nodes < DNET_NODE_TABLE ? root->nodes : DNET_NODE_TABLE;
	struct dnet_dev **h = NULL;
	if (node <= slots) {
		if (!root->handles && !(root->handles = calloc(slots, sizeof *root->handles))) {
			dnet_seterr(err, DNET_ENOMEM, "out of memory for %u node handles", slots);
			return NULL;
		}
		h = &root->handles[node - 1];
	} else {
		for (h = &root->more_handles; *h && (*h)->node != node; h = &(*h)->more_handles)
			;
	}
	if (!*h) {
		struct dnet_dev *n = malloc(sizeof *n);
		if (!n) {
			dnet_seterr(err, DNET_ENOMEM, "out of memory for the handle of node %u", node);
			return NULL;
		}
		*n = *root; /* the same backend, opened once */
		n->node = node;
		n->handles = NULL;
		n->more_handles = NULL;
		n->confirm_next = false;
		*h = n;
	}
	return *h;
}

static int check_access(uint32_t off, size_t len, unsigned align, struct dnet_err *err)
{
	if (off % align)
		return dnet_seterr(err, DNET_EALIGN, "offset 0x%x is not aligned to %u bytes", off, align);
	if (len % align)
		return dnet_seterr(err, DNET_EALIGN, "length %zu is not a multiple of %u bytes", len, align);
	if (off > DNET_MAP_SIZE || len > DNET_MAP_SIZE - off)
		return dnet_seterr(err, DNET_ERANGE, "access 0x%x+%zu is outside the 0x%x-byte map",
				   off, len, DNET_MAP_SIZE);
	return 0;
}

static bool valid_width(unsigned w)
{
	return w == 1 || w == 2 || w == 4 || w == 8 || w == 16;
}

int dnet_read(struct dnet_dev *dev, uint32_t off, void *buf, unsigned width, struct dnet_err *err)
{
	bool confirmed = dev->confirm_next;
	dev->confirm_next = false;
	if (!valid_width(width))
		return dnet_seterr(err, DNET_EINVAL, "access width %u is not 1, 2, 4, 8 or 16 bytes", width);
	int rc = check_access(off, width, width, err);
	if (rc || (rc = dnet_access_check(dev->caps, off, width, width, false, confirmed, NULL, err)))
		return rc;
	if (dev->dry)
		memset(buf, 0, width);
	else
		rc = dev->ops->read(dev, off, buf, width, err);
	if (!dev->root->tap)
		return rc;
	struct dnet_tap_rec r = { .kind = DNET_TAP_READ, .off = off, .width = width,
				  .confirmed = confirmed };
	if (!rc)
		memcpy(r.val, buf, width);
	return tap(dev, &r, rc, err);
}

int dnet_write(struct dnet_dev *dev, uint32_t off, const void *buf, unsigned width, struct dnet_err *err)
{
	if (!valid_width(width))
		return dnet_seterr(err, DNET_EINVAL, "access width %u is not 1, 2, 4, 8 or 16 bytes", width);
	int rc = check_access(off, width, width, err);
	if (rc || (rc = dnet_access_check(dev->caps, off, width, width, true, false, NULL, err)))
		return rc;
	if (!dev->dry)
		rc = dev->ops->write(dev, off, buf, width, err);
	if (!dev->root->tap)
		return rc;
	struct dnet_tap_rec r = { .kind = DNET_TAP_WRITE, .off = off, .width = width };
	memcpy(r.val, buf, width);
	return tap(dev, &r, rc, err);
}

#define ACCESSORS(bits, type) \
int dnet_read##bits(struct dnet_dev *dev, uint32_t off, type *v, struct dnet_err *err) \
{ return dnet_read(dev, off, v, sizeof *v, err); } \
int dnet_write##bits(struct dnet_dev *dev, uint32_t off, type v, struct dnet_err *err) \
{ return dnet_write(dev, off, &v, sizeof v, err); }
ACCESSORS(8, uint8_t)
ACCESSORS(16, uint16_t)
ACCESSORS(32, uint32_t)
ACCESSORS(64, uint64_t)

int dnet_read128(struct dnet_dev *dev, uint32_t off, uint64_t v[2], struct dnet_err *err)
{
	return dnet_read(dev, off, v, 16, err);
}

int dnet_write128(struct dnet_dev *dev, uint32_t off, const uint64_t v[2], struct dnet_err *err)
{
	return dnet_write(dev, off, v, 16, err);
}

/* The transfer part of the block calls (device.h's *_block_noflush). */
static int block_transfer(struct dnet_dev *dev, uint32_t off, void *buf, size_t len, bool write,
			  struct dnet_err *err)
{
	int rc = check_access(off, len, 8, err);
	if (rc || len == 0 || (rc = dnet_access_check(dev->caps, off, len, 8, write, false, NULL, err)))
		return rc;
	if (dev->dry) {
		if (!write)
			memset(buf, 0, len);
	} else if (write && dev->ops->write_block) {
		rc = dev->ops->write_block(dev, off, buf, len, err);
	} else if (!write && dev->ops->read_block) {
		rc = dev->ops->read_block(dev, off, buf, len, err);
	} else {
		for (size_t i = 0; i < len && !rc; i += 8)
			rc = write ? dev->ops->write(dev, off + (uint32_t)i, (char *)buf + i, 8, err)
				   : dev->ops->read(dev, off + (uint32_t)i, (char *)buf + i, 8, err);
	}
	if (!dev->root->tap)
		return rc;
	struct dnet_tap_rec r = { .kind = write ? DNET_TAP_WRITE_BLOCK : DNET_TAP_READ_BLOCK,
				  .off = off, .data = buf, .len = len };
	return tap(dev, &r, rc, err);
}

int dnet_read_block(struct dnet_dev *dev, uint32_t off, void *buf, size_t len, struct dnet_err *err)
{
	int rc = check_access(off, len, 8, err);
	if (rc || len == 0)
		return rc;
	/* Write-back regions: drop stale lines before reading (§4.2.1). */
	if (dnet_addr_attr(off) == DNET_ATTR_WB && (rc = dnet_cache_flush(dev, off, len, err)))
		return rc;
	return block_transfer(dev, off, buf, len, false, err);
}

int dnet_read_block_noflush(struct dnet_dev *dev, uint32_t off, void *buf, size_t len, struct dnet_err *err)
{
	return block_transfer(dev, off, buf, len, false, err);
}

int dnet_write_block_noflush(struct dnet_dev *dev, uint32_t off, const void *buf, size_t len,
			     struct dnet_err *err)
{
	/* The buffer is only read: the cast serves the shared transfer path. */
	return block_transfer(dev, off, (void *)(uintptr_t)buf, len, true, err);
}

/* Reads in flight together (device.h): each request checked (and its
 * write-back lines flushed) as dnet_read_block does, the accepted ones
 * handed to the backend's read_blocks in one go, then one tap record per
 * read, in order.  Without read_blocks (or dry) they are done one by one. */
int dnet_read_blocks(struct dnet_dev *dev, struct dnet_read_req *reqs, size_t n, struct dnet_err *err)
{
	struct dnet_err ecore, eback;
	size_t core_i = SIZE_MAX; /* the first request the core refused */
	if (!dev->ops->read_blocks || dev->dry) {
		for (size_t i = 0; i < n; i++) {
			reqs[i].rc = dnet_read_block(dev, reqs[i].off, reqs[i].buf, reqs[i].len, &ecore);
			if (reqs[i].rc && core_i == SIZE_MAX) {
				core_i = i;
				if (err)
					*err = ecore;
			}
		}
		return core_i == SIZE_MAX ? 0 : reqs[core_i].rc;
	}
	/* sent[i]: request i went to the backend (and gets a tap record) */
	bool *sent = calloc(n ? n : 1, sizeof *sent);
	if (!sent)
		return dnet_seterr(err, DNET_ENOMEM, "out of memory for %zu block reads", n);
	size_t nsent = 0;
	for (size_t i = 0; i < n; i++) {
		struct dnet_read_req *q = &reqs[i];
		struct dnet_err e;
		int rc = check_access(q->off, q->len, 8, &e);
		if (!rc && q->len)
			rc = dnet_access_check(dev->caps, q->off, q->len, 8, false, false, NULL, &e);
		/* Write-back regions: drop stale lines before reading (§4.2.1). */
		if (!rc && q->len && dnet_addr_attr(q->off) == DNET_ATTR_WB)
			rc = dnet_cache_flush(dev, q->off, q->len, &e);
		q->rc = rc;
		if (rc && core_i == SIZE_MAX) {
			core_i = i;
			ecore = e;
		}
		sent[i] = !rc && q->len;
		nsent += sent[i];
	}
	int brc = nsent ? dev->ops->read_blocks(dev, reqs, n, &eback) : 0;
	size_t back_i = SIZE_MAX; /* the first read the backend failed (eback's) */
	for (size_t i = 0; i < n; i++) {
		if (!sent[i])
			continue;
		struct dnet_err e;
		dnet_clearerr(&e);
		if (reqs[i].rc && back_i == SIZE_MAX) {
			back_i = i;
			e = eback;
		} else if (reqs[i].rc) {
			dnet_seterr(&e, -reqs[i].rc, "block read of 0x%x+%zu failed: %s", reqs[i].off,
				    reqs[i].len, dnet_strerror(-reqs[i].rc));
		}
		struct dnet_tap_rec r = { .kind = DNET_TAP_READ_BLOCK, .off = reqs[i].off,
					  .data = reqs[i].buf, .len = reqs[i].len };
		tap(dev, &r, reqs[i].rc, &e);
	}
	free(sent);
	struct dnet_err *e0 = core_i < back_i ? &ecore : &eback;
	int rc = core_i < back_i ? reqs[core_i].rc : back_i != SIZE_MAX ? reqs[back_i].rc : brc;
	if (rc && err)
		*err = *e0;
	return rc;
}

int dnet_write_block(struct dnet_dev *dev, uint32_t off, const void *buf, size_t len, struct dnet_err *err)
{
	/* The buffer is only read: the cast serves the shared transfer path. */
	int rc = block_transfer(dev, off, (void *)(uintptr_t)buf, len, true, err);
	/* Write-combining stores must drain before a request uses them. */
	if (!rc && len && dnet_addr_attr(off) == DNET_ATTR_WC)
		rc = dnet_wc_flush(dev, err);
	return rc;
}

int dnet_wc_flush(struct dnet_dev *dev, struct dnet_err *err)
{
	int rc = !dev->dry && dev->ops->wc_flush ? dev->ops->wc_flush(dev, err) : 0;
	if (!dev->root->tap)
		return rc;
	struct dnet_tap_rec r = { .kind = DNET_TAP_WC_FLUSH };
	return tap(dev, &r, rc, err);
}

int dnet_set_posted(struct dnet_dev *dev, enum dnet_post mode, struct dnet_err *err)
{
	if (mode != DNET_POST_OFF && mode != DNET_POST_CONTINUE && mode != DNET_POST_STOP)
		return dnet_seterr(err, DNET_EINVAL, "bad posting mode %d", (int)mode);
	(void)err;
	/* No sync here: a failure kept for dnet_sync() would be handed to
	 * nobody (no tag asked for), and a caller that posts one command at a
	 * time would pay a round trip per command. */
	dev->root->posted = mode;
	return 0;
}

void dnet_set_tag(struct dnet_dev *dev, uint64_t tag)
{
	dev->root->tag = tag;
}

int dnet_sync(struct dnet_dev *dev, uint64_t *tag, struct dnet_err *err)
{
	if (tag)
		*tag = DNET_NO_TAG;
	return !dev->dry && dev->ops->sync ? dev->ops->sync(dev, tag, err) : 0;
}

int dnet_cache_flush(struct dnet_dev *dev, uint32_t off, size_t len, struct dnet_err *err)
{
	int rc = check_access(off, len, 1, err);
	if (rc)
		return rc;
	rc = !dev->dry && dev->ops->cache_flush ? dev->ops->cache_flush(dev, off, len, err) : 0;
	if (!dev->root->tap)
		return rc;
	struct dnet_tap_rec r = { .kind = DNET_TAP_CACHE_FLUSH, .off = off, .len = len };
	return tap(dev, &r, rc, err);
}

int dnet_prefetch(struct dnet_dev *dev, uint32_t off, size_t len, struct dnet_err *err)
{
	int rc = check_access(off, len, 1, err);
	if (rc)
		return rc;
	rc = !dev->dry && dev->ops->prefetch ? dev->ops->prefetch(dev, off, len, err) : 0;
	if (!dev->root->tap)
		return rc;
	struct dnet_tap_rec r = { .kind = DNET_TAP_PREFETCH, .off = off, .len = len };
	return tap(dev, &r, rc, err);
}

const char *dnet_cond_name(enum dnet_cond c)
{
	static const char *const names[] = { "==", "!=", "<", ">", "<=", ">=" };
	return (unsigned)c < N(names) ? names[c] : "?";
}

int dnet_cond_parse(const char *s, enum dnet_cond *c)
{
	for (unsigned i = 0; i <= DNET_COND_GE; i++)
		if (strcmp(s, dnet_cond_name((enum dnet_cond)i)) == 0) {
			*c = (enum dnet_cond)i;
			return 0;
		}
	return -DNET_EINVAL;
}

bool dnet_cond_eval(enum dnet_cond c, uint64_t a, uint64_t b)
{
	switch (c) {
	case DNET_COND_EQ: return a == b;
	case DNET_COND_NE: return a != b;
	case DNET_COND_LT: return a < b;
	case DNET_COND_GT: return a > b;
	case DNET_COND_LE: return a <= b;
	case DNET_COND_GE: return a >= b;
	}
	return false;
}

uint64_t dnet_mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int dnet_now(struct dnet_dev *dev, uint64_t *ns, struct dnet_err *err)
{
	if (dev->ops->now && !dev->dry)
		return dev->ops->now(dev, ns, err);
	*ns = dnet_mono_ns();
	return 0;
}

void dnet_set_stop(struct dnet_dev *dev, dnet_stop_fn stop, void *ctx)
{
	dev->root->stop = stop;
	dev->root->stop_ctx = stop ? ctx : NULL;
}

bool core_stopped(const struct dnet_dev *dev)
{
	return dev->root->stop && dev->root->stop(dev->root->stop_ctx);
}

/* A sleep on real time that the stop hook ends (device.h dnet_set_stop):
 * in slices of DNET_STOP_POLL_NS when a hook is set, so a deadline the
 * hook keeps (dsh's --max-time) is seen without a signal; a signal's EINTR
 * asks the hook at once and, if it does not stop, sleeps on. */
static int sleep_ns(struct dnet_dev *dev, uint64_t ns, struct dnet_err *err)
{
	uint64_t start = dnet_mono_ns(), end = start + ns;
	for (;;) {
		if (core_stopped(dev))
			return dnet_seterr(err, DNET_EINTR, "interrupted after %.3f s of a sleep of %.3f s",
					   (double)(dnet_mono_ns() - start) / 1e9, (double)ns / 1e9);
		uint64_t now = dnet_mono_ns();
		if (now >= end)
			return 0;
		uint64_t left = end - now;
		if (dev->root->stop && left > DNET_STOP_POLL_NS)
			left = DNET_STOP_POLL_NS;
		struct timespec ts = { (time_t)(left / 1000000000ull), (long)(left % 1000000000ull) };
		if (nanosleep(&ts, NULL) != 0 && errno != EINTR)
			return dnet_seterr(err, DNET_EIO, "nanosleep: %s", strerror(errno));
	}
}

int dnet_delay(struct dnet_dev *dev, uint64_t ns, struct dnet_err *err)
{
	int rc = 0;
	if (dev->dry)
		rc = 0;
	else if (dev->ops->delay)
		rc = dev->ops->delay(dev, ns, err);
	else
		rc = sleep_ns(dev, ns, err);
	if (!dev->root->tap)
		return rc;
	struct dnet_tap_rec r = { .kind = DNET_TAP_DELAY, .ns = ns };
	return tap(dev, &r, rc, err);
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#endif
}

/* How long a poll on real time spins (with pause) before it starts to sleep:
 * a completion normally takes a few microseconds, and a
 * nanosleep overshoots by tens of microseconds (timer slack). */
#define SPIN_NS 50000ull

uint64_t core_poll_pause_ns(uint64_t elapsed_ns, uint64_t *step)
{
	if (elapsed_ns < SPIN_NS)
		return 0;
	uint64_t s = *step ? *step : 1000;
	if (s > 1000000)
		s = 1000000;
	*step = s * 2 < 1000000 ? s * 2 : 1000000;
	return s;
}

/* The fallback wait: poll a 64-bit word.  On real time: spin with pause for
 * SPIN_NS, then sleep backing off from 1 us to 1 ms.  On a backend with its
 * own clock (delay), let its time pass instead.  A word of a write-back
 * region (Prefetch Window, LH Buffer) is flushed before every read, so the
 * poll sees the device and not a stale line (§4.2.1, §7.2.2). */
static int poll_wait(struct dnet_dev *dev, uint32_t off, uint64_t mask, enum dnet_cond cond,
		     uint64_t value, uint64_t timeout_ns, uint64_t *last, struct dnet_err *err)
{
	uint64_t start, now, v = 0, step = 0;
	bool wb = dnet_addr_attr(off) == DNET_ATTR_WB && dev->ops->cache_flush;
	bool real_time = !dev->ops->delay;
	int rc;
	if ((rc = dnet_now(dev, &start, err)))
		return rc;
	for (;;) {
		if (wb && (rc = dev->ops->cache_flush(dev, off & ~63u, 64, err)))
			return rc;
		if ((rc = dev->ops->read(dev, off, &v, 8, err)))
			return rc;
		if (last)
			*last = v;
		if (dnet_cond_eval(cond, v & mask, value))
			return 0;
		if ((rc = dnet_now(dev, &now, err)))
			return rc;
		if (real_time && core_stopped(dev)) /* the stop hook, every poll (device.h) */
			return dnet_seterr(err, DNET_EINTR,
					   "interrupted after %.3f s waiting for (0x%x & 0x%llx) %s 0x%llx (last 0x%llx)",
					   (double)(now - start) / 1e9, off, (unsigned long long)mask,
					   dnet_cond_name(cond), (unsigned long long)value, (unsigned long long)v);
		if (now - start >= timeout_ns)
			return dnet_seterr(err, DNET_ETIMEDOUT,
					   "timed out after %llu ns waiting for (0x%x & 0x%llx) %s 0x%llx (last 0x%llx)",
					   (unsigned long long)timeout_ns, off, (unsigned long long)mask,
					   dnet_cond_name(cond), (unsigned long long)value,
					   (unsigned long long)v);
		uint64_t pause = core_poll_pause_ns(real_time ? now - start : SPIN_NS, &step);
		if (pause == 0) {
			for (int i = 0; i < 16; i++)
				cpu_relax();
			continue;
		}
		rc = real_time ? sleep_ns(dev, pause, err) : dev->ops->delay(dev, pause, err);
		if (rc == -DNET_EINTR && real_time)
			continue; /* the next round reads once more and says what was waited for */
		if (rc)
			return rc;
	}
}

int dnet_wait(struct dnet_dev *dev, uint32_t off, uint64_t mask, enum dnet_cond cond,
	      uint64_t value, uint64_t timeout_ns, uint64_t *last, struct dnet_err *err)
{
	if ((unsigned)cond > DNET_COND_GE)
		return dnet_seterr(err, DNET_EINVAL, "bad wait condition %d", (int)cond);
	int rc = check_access(off, 8, 8, err);
	if (rc || (rc = dnet_access_check(dev->caps, off, 8, 8, false, false, NULL, err)))
		return rc;
	uint64_t lv = 0;
	if (dev->dry)
		lv = value;
	else if (dev->ops->wait)
		rc = dev->ops->wait(dev, off, mask, cond, value, timeout_ns, &lv, err);
	else
		rc = poll_wait(dev, off, mask, cond, value, timeout_ns, &lv, err);
	if (last)
		*last = lv;
	if (!dev->root->tap)
		return rc;
	struct dnet_tap_rec r = { .kind = DNET_TAP_WAIT, .off = off, .mask = mask, .cond = cond,
				  .value = value, .timeout_ns = timeout_ns, .val = { lv, 0 } };
	return tap(dev, &r, rc, err);
}

int dnet_busy(struct dnet_dev *dev, bool *busy, struct dnet_err *err)
{
	int rc = 0;
	*busy = false;
	if (dev->dry)
		rc = 0;
	else if (dev->ops->busy)
		rc = dev->ops->busy(dev, busy, err);
	else
		for (unsigned w = 0; w < DNET_NWID && !rc; w++) {
			uint64_t cs;
			rc = dev->ops->read(dev, DNET_UREG_WID(w) + DNET_UR_CTL_STATUS, &cs, 8, err);
			if (!rc && (cs & DNET_CS_REQ_PENDING))
				*busy = true;
		}
	if (!dev->root->tap)
		return rc;
	struct dnet_tap_rec r = { .kind = DNET_TAP_BUSY, .val = { *busy, 0 } };
	return tap(dev, &r, rc, err);
}

int dnet_sodimm_access(struct dnet_dev *dev, uint64_t addr, void *buf, size_t len,
		       bool write, struct dnet_err *err)
{
	if (!dev->ops->sodimm || !(dev->caps & DNET_CAP_BACKDOOR))
		return dnet_seterr(err, DNET_ENOTSUP,
				   "backend '%s' has no SO-DIMM backdoor (the SO-DIMM is reached only through primitives)",
				   dev->ops->name);
	return dev->ops->sodimm(dev, addr, buf, len, write, err);
}

int dnet_stat(struct dnet_dev *dev, const char *name, uint64_t *v, struct dnet_err *err)
{
	if (!dev->ops->stat || dev->dry)
		return dnet_seterr(err, DNET_ENOTSUP, "backend '%s' keeps no statistics%s", dev->ops->name,
				   dev->dry ? " in a dry run" : "");
	int rc = dev->ops->stat(dev, name, v, err);
	if (rc == -DNET_ENOENT && err && !strstr(err->msg, "did you mean")) {
		/* the nearest of the names the backend lists (D-SUGGEST; through
		 * dnetd the server's libdnet has suggested already) */
		struct dnet_suggest sg;
		dnet_suggest_init(&sg, name);
		for (const char *const *s = dnet_stat_names(dev); *s; s++)
			dnet_suggest_add(&sg, *s);
		if (dnet_suggest_best(&sg)) {
			char m[DNET_ERR_MSG_MAX];
			snprintf(m, sizeof m, "%s", err->msg);
			dnet_seterr(err, DNET_ENOENT, "%s (did you mean '%s'? 'stat' lists them)", m,
				    dnet_suggest_best(&sg));
		}
	}
	return rc;
}

const char *const *dnet_stat_names(struct dnet_dev *dev)
{
	static const char *const none[] = { NULL };
	return dev->ops->stat_names && !dev->dry ? dev->ops->stat_names(dev) : none;
}

/* "63:20", "63:20, 7" or "5": the runs of set bits of mask, highest first. */
static void bit_runs(uint64_t mask, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = '\0';
	for (int hi = 63; hi >= 0 && n < len; hi--) {
		if (!(mask >> hi & 1))
			continue;
		int lo = hi;
		while (lo > 0 && (mask >> (lo - 1) & 1))
			lo--;
		int w = lo == hi ? snprintf(buf + n, len - n, "%s%d", n ? ", " : "", hi)
				 : snprintf(buf + n, len - n, "%s%d:%d", n ? ", " : "", hi, lo);
		n += w > 0 ? (size_t)w : 0;
		hi = lo;
	}
}

int dnet_reg_read(struct dnet_dev *dev, unsigned wid, const struct dnet_reg *reg,
		  uint64_t *v, struct dnet_err *err)
{
	int rc = dnet_reg_access_check(dev->caps, reg, wid, false, false, NULL, err);
	if (rc || (rc = dnet_read64(dev, dnet_reg_addr(reg, wid), v, err)))
		return rc;
	return dnet_reg_check(reg, *v, err);
}

/* Reserved bits read 0 on a DIMMnet-2: set, the value is not the
 * register's (all ones: nothing answers at the address). */
int dnet_reg_check(const struct dnet_reg *reg, uint64_t raw, struct dnet_err *err)
{
	if (!(raw & ~reg->valid_mask))
		return 0;
	char bits[160];
	bit_runs(raw & ~reg->valid_mask, bits, sizeof bits);
	return dnet_seterr(err, DNET_EIO,
			   "'%s' read 0x%016llx: its reserved bits %s are set, and they read 0 on a "
			   "DIMMnet-2%s", reg->name, (unsigned long long)raw, bits,
			   raw == ~0ull ? " (all ones: nothing answers at this address)" : "");
}

int dnet_reg_read_effect(struct dnet_dev *dev, unsigned wid, const struct dnet_reg *reg,
			 uint64_t *v, struct dnet_err *err)
{
	if (!(reg->flags & DNET_RF_READ_EFFECT))
		return dnet_seterr(err, DNET_EINVAL, "reading '%s' has no effect to confirm; use dnet_reg_read",
				   reg->name);
	int rc = dnet_reg_access_check(dev->caps, reg, wid, false, true, NULL, err);
	if (rc)
		return rc;
	dev->confirm_next = true; /* this read, on purpose (access.h reg-effect) */
	rc = dnet_read64(dev, dnet_reg_addr(reg, wid), v, err);
	dev->confirm_next = false;
	if (!rc)
		*v &= reg->valid_mask;
	return rc;
}

int dnet_reg_write(struct dnet_dev *dev, unsigned wid, const struct dnet_reg *reg,
		   uint64_t v, struct dnet_err *err)
{
	/* the rules before the value: a read-only register is refused as one */
	int rc = dnet_reg_access_check(dev->caps, reg, wid, true, false, NULL, err);
	if (rc)
		return rc;
	if (v & ~reg->valid_mask)
		return dnet_seterr(err, DNET_ERANGE,
				   "value 0x%llx has bits outside '%s' (valid mask 0x%llx)",
				   (unsigned long long)v, reg->name, (unsigned long long)reg->valid_mask);
	return dnet_write64(dev, dnet_reg_addr(reg, wid), v, err);
}

int dnet_field_read(struct dnet_dev *dev, unsigned wid, const char *spec, uint64_t *v,
		    struct dnet_err *err)
{
	const struct dnet_reg *reg;
	const struct dnet_field *f;
	uint64_t x;
	int rc = dnet_reg_parse(spec, &reg, &f, err);
	if (rc || (rc = dnet_reg_read(dev, wid, reg, &x, err)))
		return rc;
	*v = f ? dnet_field_get(f, x) : x;
	return 0;
}

int dnet_field_write(struct dnet_dev *dev, unsigned wid, const char *spec, uint64_t v,
		     const uint64_t *base, struct dnet_err *err)
{
	const struct dnet_reg *reg;
	const struct dnet_field *f;
	int rc = dnet_reg_parse(spec, &reg, &f, err);
	if (rc)
		return rc;
	if (!f)
		return dnet_reg_write(dev, wid, reg, v, err);
	uint64_t word = base ? *base : 0;
	/* the other fields from the register when the rules let it be read */
	if (!base && !dnet_reg_access_check(dev->caps, reg, wid, false, false, NULL, NULL) &&
	    (rc = dnet_reg_read(dev, wid, reg, &word, err)))
		return rc;
	if ((rc = dnet_field_set(f, &word, v, err)))
		return rc;
	return dnet_reg_write(dev, wid, reg, word, err);
}

int dnet_issue(struct dnet_dev *dev, unsigned wid, enum dnet_cmdsel sel,
	       const struct dnet_cmd *cmd, uint64_t timeout_ns, struct dnet_err *err)
{
	if (wid >= DNET_NWID)
		return dnet_seterr(err, DNET_EINVAL, "WID %u out of range (0-1)", wid);
	if (sel != DNET_CMD0 && sel != DNET_CMD1)
		return dnet_seterr(err, DNET_EINVAL, "command register %d is not 0 or 1", (int)sel);
	uint32_t ureg = DNET_UREG_WID(wid);
	uint32_t lo = ureg + (sel == DNET_CMD0 ? DNET_UR_CMD0_LOWER : DNET_UR_CMD1_LOWER);
	uint32_t up = ureg + (sel == DNET_CMD0 ? DNET_UR_CMD0_UPPER : DNET_UR_CMD1_UPPER);
	/* Drain write-combining buffers first (rdma-core's mmio_flush_writes
	 * before the doorbell): Write Window stores made with dnet_write64/128
	 * reach the device before the request that reads them. */
	int rc = dnet_wc_flush(dev, err);
	if (rc)
		return rc;
	/* Flow control (§5.2.2): no new request while the FIFO is almost full
	 * or the previous one is still in the command register. */
	rc = dnet_wait(dev, ureg + DNET_UR_CTL_STATUS, DNET_CS_FIFO_FULL | DNET_CS_REQ_PENDING,
			   DNET_COND_EQ, 0, timeout_ns, NULL, err);
	if (rc == -DNET_ETIMEDOUT)
		return dnet_seterr(err, DNET_EBUSY,
				   "request not issued: Request FIFO still full or a request still pending after %llu ns",
				   (unsigned long long)timeout_ns);
	if (rc)
		return rc;
	if (!cmd->lower_only && (rc = dnet_write64(dev, up, cmd->upper, err)))
		return rc;
	if (cmd->has_ex && (rc = dnet_write64(dev, ureg + DNET_UR_CMD_EX, cmd->ex, err)))
		return rc;
	return dnet_write64(dev, lo, cmd->lower, err);
}

/* An option named twice is refused, naming it and never its value (a
 * token= is a secret): which one was meant is a guess, and the last one
 * silently winning let a spec say two things at once (Decision
 * D-SPEC-ONCE).  The spec in a message is redacted (dnet_spec_redact). */
int core_kv_split(const char *args, struct dnet_kv *kv, unsigned max, unsigned *n,
		  struct dnet_err *err)
{
	char shown[DNET_SPEC_MAX];
	*n = 0;
	if (!args || !*args)
		return 0;
	const char *p = args;
	while (*p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len == 0)
			return dnet_seterr(err, DNET_EINVAL, "empty option in '%s'",
					   dnet_spec_redact(args, shown, sizeof shown));
		if (*n >= max)
			return dnet_seterr(err, DNET_EINVAL, "too many options in '%s' (max %u)",
					   dnet_spec_redact(args, shown, sizeof shown), max);
		struct dnet_kv *e = &kv[*n];
		const char *eq = memchr(p, '=', len);
		size_t klen = eq ? (size_t)(eq - p) : len;
		if (klen == 0 || klen >= sizeof e->key)
			return dnet_seterr(err, DNET_EINVAL, "bad option name in '%.*s'", (int)(eq ? klen + 1 : len), p);
		memcpy(e->key, p, klen);
		e->key[klen] = '\0';
		for (unsigned i = 0; i < *n; i++)
			if (strcmp(kv[i].key, e->key) == 0)
				return dnet_seterr(err, DNET_EINVAL, "option '%s' given twice (options %u and %u of "
						   "the spec): give it once", e->key, i + 1, *n + 1);
		e->has_val = eq != NULL;
		e->val[0] = '\0';
		if (eq) {
			size_t vlen = len - klen - 1;
			if (vlen >= sizeof e->val)
				return dnet_seterr(err, DNET_EINVAL, "option value too long in '%.*s='", (int)klen, p);
			memcpy(e->val, eq + 1, vlen);
			e->val[vlen] = '\0';
		}
		(*n)++;
		p += len;
		if (*p == ',' && !*++p)
			return dnet_seterr(err, DNET_EINVAL, "trailing ',' in '%s'",
					   dnet_spec_redact(args, shown, sizeof shown));
	}
	return 0;
}

static const struct { unsigned bit; const char *name; } cap_names[] = {
	{ DNET_CAP_MULTINODE, "multinode" }, { DNET_CAP_VIRTUAL_TIME, "virtual_time" },
	{ DNET_CAP_BACKDOOR, "backdoor" }, { DNET_CAP_PRIVILEGED, "privileged" },
	{ DNET_CAP_REAL_HW, "real_hw" }, { DNET_CAP_REMOTE, "remote" },
	{ DNET_CAP_LOCKSTEP, "lockstep" },
};

const char *dnet_cap_name(unsigned bit)
{
	for (size_t i = 0; i < sizeof cap_names / sizeof cap_names[0]; i++)
		if (cap_names[i].bit == bit)
			return cap_names[i].name;
	return NULL;
}

const char *dnet_caps_format(unsigned caps, const char *sep, char *buf, size_t n)
{
	size_t l = 0;
	if (n)
		buf[0] = 0;
	for (size_t i = 0; i < sizeof cap_names / sizeof cap_names[0]; i++)
		if ((caps & cap_names[i].bit) && l < n) {
			int w = snprintf(buf + l, n - l, "%s%s", l ? sep : "", cap_names[i].name);
			if (w > 0)
				l += (size_t)w;
		}
	return buf;
}
