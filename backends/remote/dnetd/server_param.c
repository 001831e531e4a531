/* dnetd: the PARAM request (protocol 1.3) -- list, read and set the served
 * backend's parameters (dnet/param.h), as any request.  Who may set them
 * (a privileged client only: they change the cluster every client shares,
 * its fault rules) is the dispatch table's privilege column. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dnet/param.h"
#include "remote/dnetd/server_param.h"

/* LIST: one line a parameter, "NAME\tTYPE\tFLAGS\tHELP\n" (FLAGS decimal). */
static int list_text(struct dnet_dev *dev, char **text, size_t *len, struct dnet_err *err)
{
	const struct dnet_param *p;
	unsigned n;
	int rc = dnet_param_list(dev, &p, &n, err);
	if (rc)
		return rc;
	size_t cap = 1;
	for (unsigned i = 0; i < n; i++)
		cap += strlen(p[i].name) + strlen(p[i].help) + 24;
	char *t = malloc(cap);
	if (!t)
		return dnet_seterr(err, DNET_ENOMEM, "out of memory");
	size_t used = 0;
	for (unsigned i = 0; i < n; i++)
		used += (size_t)snprintf(t + used, cap - used, "%s\t%s\t%u\t%s\n", p[i].name,
					 dnet_param_type_name(p[i].type), p[i].flags, p[i].help);
	if (used > DNET_PROTO_MAX_PAYLOAD) {
		free(t);
		return dnet_seterr(err, DNET_EINVAL, "PARAM: %u parameters do not fit in a reply", n);
	}
	*text = t;
	*len = used;
	return 0;
}

int srv_param(struct dnet_dev *dev, const struct dnet_proto_msg *m,
		   char **text, size_t *len, struct dnet_err *err)
{
	*text = NULL;
	*len = 0;
	switch (m->op) {
	case DNET_PARAM_OP_LIST:
		return list_text(dev, text, len, err);
	case DNET_PARAM_OP_GET: {
		char *v = malloc(DNET_PARAM_VALUE_MAX);
		if (!v)
			return dnet_seterr(err, DNET_ENOMEM, "out of memory");
		int rc = dnet_param_get(dev, m->name, v, DNET_PARAM_VALUE_MAX, err);
		if (rc) {
			free(v);
			return rc;
		}
		*text = v;
		*len = strlen(v);
		return 0;
	}
	case DNET_PARAM_OP_SET: {
		char *v = malloc(m->data_len + 1);
		if (!v)
			return dnet_seterr(err, DNET_ENOMEM, "out of memory");
		if (m->data_len)
			memcpy(v, m->data, m->data_len);
		v[m->data_len] = '\0';
		int rc = dnet_param_set(dev, m->name, v, err);
		free(v);
		return rc;
	}
	default:
		return dnet_seterr(err, DNET_EPROTO, "PARAM: op %u", m->op);
	}
}

int srv_param_all(struct dnet_dev *dev, char **pairs, size_t *len, struct dnet_err *err)
{
	struct dnet_param_value *v;
	unsigned n;
	*pairs = NULL;
	*len = 0;
	int rc = dnet_param_get_all(dev, &v, &n, err);
	if (rc)
		return rc;
	size_t cap = 1;
	for (unsigned i = 0; i < n; i++)
		cap += strlen(v[i].name) + strlen(v[i].value) + 2;
	if (cap - 1 > DNET_PROTO_MAX_PAYLOAD) {
		free(v);
		return dnet_seterr(err, DNET_EINVAL, "PARAM_ALL: %u values (%zu bytes) do not fit in a reply", n,
				   cap - 1);
	}
	char *b = malloc(cap);
	if (!b) {
		free(v);
		return dnet_seterr(err, DNET_ENOMEM, "out of memory");
	}
	size_t used = 0;
	for (unsigned i = 0; i < n; i++) {
		size_t nl = strlen(v[i].name) + 1, vl = strlen(v[i].value) + 1;
		memcpy(b + used, v[i].name, nl);
		memcpy(b + used + nl, v[i].value, vl);
		used += nl + vl;
	}
	free(v);
	*pairs = b;
	*len = used;
	return 0;
}
