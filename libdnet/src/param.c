/* Backend parameters (param.h): lookup by name, the read-only/write-only
 * and number checks, then the backend's param_get / param_set. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dnet/backend.h"
#include "dnet/parse.h"
#include "dnet/suggest.h"

static const struct dnet_param *list_of(struct dnet_dev *dev, unsigned *n, struct dnet_err *err)
{
	static const struct dnet_param none[1];
	*n = 0;
	if (!dev->ops->params || dev->dry)
		return none;
	return dev->ops->params(dev, n, err);
}

int dnet_param_list(struct dnet_dev *dev, const struct dnet_param **list, unsigned *n,
		    struct dnet_err *err)
{
	*list = list_of(dev, n, err);
	return *list ? 0 : -(err && err->code ? err->code : DNET_EIO);
}

const struct dnet_param *dnet_param_find(struct dnet_dev *dev, const char *name, struct dnet_err *err)
{
	unsigned n;
	const struct dnet_param *p = list_of(dev, &n, err);
	if (!p)
		return NULL;
	for (unsigned i = 0; i < n; i++)
		if (!strcmp(p[i].name, name))
			return &p[i];
	if (!n)
		dnet_seterr(err, DNET_ENOENT, "backend '%s' has no parameters%s", dev->ops->name,
			    dev->dry ? " in a dry run" : "");
	else {
		struct dnet_suggest sg;
		dnet_suggest_init(&sg, name);
		for (unsigned i = 0; i < n; i++)
			dnet_suggest_add(&sg, p[i].name);
		if (dnet_suggest_best(&sg))
			dnet_seterr(err, DNET_ENOENT, "no parameter '%s' (did you mean '%s'? backend '%s' has %u: "
				    "'params' lists them)", name, dnet_suggest_best(&sg), dev->ops->name, n);
		else
			dnet_seterr(err, DNET_ENOENT, "no parameter '%s' (backend '%s' has %u: 'params' lists them)",
				    name, dev->ops->name, n);
	}
	return NULL;
}

/* The code find left in err, or ENOENT. */
static int fail_code(const struct dnet_err *err)
{
	return -(err && err->code ? err->code : DNET_ENOENT);
}

int dnet_param_get(struct dnet_dev *dev, const char *name, char *buf, size_t len,
		   struct dnet_err *err)
{
	const struct dnet_param *p = dnet_param_find(dev, name, err);
	if (!p)
		return fail_code(err);
	if (p->flags & DNET_PARAM_WO)
		return dnet_seterr(err, DNET_ENOTSUP, "parameter '%s' is write-only (an action)", name);
	if (!len)
		return dnet_seterr(err, DNET_EINVAL, "parameter '%s': no room for its value", name);
	buf[0] = '\0';
	return dev->ops->param_get(dev, p, buf, len, err);
}

int dnet_param_get_u64(struct dnet_dev *dev, const char *name, uint64_t *v, struct dnet_err *err)
{
	char buf[32];
	int rc = dnet_param_get(dev, name, buf, sizeof buf, err);
	if (rc)
		return rc;
	return dnet_parse_u64(buf, UINT64_MAX, v, name, err);
}

int dnet_param_set(struct dnet_dev *dev, const char *name, const char *value, struct dnet_err *err)
{
	const struct dnet_param *p = dnet_param_find(dev, name, err);
	if (!p)
		return fail_code(err);
	if (p->flags & DNET_PARAM_RO)
		return dnet_seterr(err, DNET_EPERM, "parameter '%s' is read-only", name);
	if (strlen(value) >= DNET_PARAM_VALUE_MAX)
		return dnet_seterr(err, DNET_EINVAL, "parameter '%s': value longer than %u bytes", name,
				   DNET_PARAM_VALUE_MAX - 1);
	uint64_t v;
	int rc;
	if (p->type == DNET_PARAM_U64 && (rc = dnet_parse_u64(value, UINT64_MAX, &v, name, err)))
		return rc;
	return dev->ops->param_set(dev, p, value, err);
}

/* The pairs asked for one parameter at a time (a backend without its own
 * param_get_all). */
static int pairs_one_by_one(struct dnet_dev *dev, char **pairs, size_t *len, struct dnet_err *err)
{
	unsigned n;
	const struct dnet_param *p = list_of(dev, &n, err);
	if (!p)
		return -(err && err->code ? err->code : DNET_EIO);
	size_t cap = 1;
	for (unsigned i = 0; i < n; i++)
		cap += strlen(p[i].name) + 1 + DNET_PARAM_VALUE_MAX;
	char *b = malloc(cap);
	if (!b)
		return dnet_seterr(err, DNET_ENOMEM, "out of memory for %u parameter values", n);
	size_t used = 0;
	for (unsigned i = 0; i < n; i++) {
		if (p[i].flags & DNET_PARAM_WO)
			continue;
		size_t nl = strlen(p[i].name) + 1;
		memcpy(b + used, p[i].name, nl);
		b[used + nl] = '\0';
		int rc = dev->ops->param_get(dev, &p[i], b + used + nl, DNET_PARAM_VALUE_MAX, err);
		if (rc) {
			free(b);
			return rc;
		}
		used += nl + strlen(b + used + nl) + 1;
	}
	*pairs = b;
	*len = used;
	return 0;
}

int dnet_param_get_all(struct dnet_dev *dev, struct dnet_param_value **vals, unsigned *n,
		       struct dnet_err *err)
{
	char *pairs = NULL;
	size_t len = 0;
	int rc = -DNET_ENOTSUP;
	*vals = NULL;
	*n = 0;
	if (dev->ops->param_get_all && !dev->dry)
		rc = dev->ops->param_get_all(dev, &pairs, &len, err);
	else
		rc = pairs_one_by_one(dev, &pairs, &len, err); /* in process: no round trips */
	if (rc) {
		free(pairs);
		return rc;
	}
	unsigned count = 0;
	for (size_t i = 0; i < len; i++)
		count += pairs[i] == '\0';
	count /= 2;
	/* one block: the entries, then the pairs they point into */
	struct dnet_param_value *v = malloc(count * sizeof *v + len + 1);
	if (!v) {
		free(pairs);
		return dnet_seterr(err, DNET_ENOMEM, "out of memory for %u parameter values", count);
	}
	char *text = (char *)(v + count);
	if (len)
		memcpy(text, pairs, len);
	text[len] = '\0';
	free(pairs);
	for (unsigned k = 0; k < count; k++) {
		v[k].name = text;
		text += strlen(text) + 1;
		v[k].value = text;
		text += strlen(text) + 1;
	}
	*vals = v;
	*n = count;
	return 0;
}

const char *dnet_param_type_name(enum dnet_param_type t)
{
	return t == DNET_PARAM_U64 ? "u64" : t == DNET_PARAM_TEXT ? "text" : "?";
}
