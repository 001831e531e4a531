/* dsh: params -- the backend's parameters (dnet/param.h): the emulator's
 * fault rules and SWIF counters, its step costs; whatever a backend
 * defines, through dnetd too (setting there needs a privileged client).
 *
 *   params                 every parameter: name, type, access, value
 *   params NAME            one value (a number is also the last result)
 *   params NAME VALUE...   set it (the words joined by spaces)
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "dsh.h"

static const char *access_name(unsigned flags)
{
	return flags & DNET_PARAM_RO ? "ro" : flags & DNET_PARAM_WO ? "wo" : "rw";
}

static int params_list(struct dsh *d)
{
	static char val[DNET_PARAM_VALUE_MAX];
	struct dnet_err e = { 0 };
	const struct dnet_param *p;
	unsigned n;
	if (dnet_param_list(d->dev, &p, &n, &e) < 0)
		return dsh_derr(d, &e);
	if (!n)
		out_text(d, "(backend %s has no parameters)\n", dnet_dev_backend(d->dev));
	out_arr_open(d, "params");
	for (unsigned i = 0; i < n; i++) {
		bool wo = p[i].flags & DNET_PARAM_WO;
		val[0] = '\0';
		if (!wo && dnet_param_get(d->dev, p[i].name, val, sizeof val, &e) < 0)
			return dsh_derr(d, &e);
		out_obj_open(d, NULL);
		out_str(d, "name", "%-28s ", p[i].name);
		out_str(d, "type", "%-4s ", dnet_param_type_name(p[i].type));
		out_str(d, "access", "%s ", access_name(p[i].flags));
		if (!wo)
			out_str(d, "value", NULL, val);
		/* the text is one line each: a text value's lines joined by ';' */
		for (char *c = val; (c = strchr(c, '\n')); c++)
			*c = ';';
		out_str(d, NULL, "%s\n", wo ? "(write-only)" : val);
		out_str(d, "help", NULL, p[i].help);
		out_close(d);
	}
	out_close(d);
	return 0;
}

static int params_get(struct dsh *d, const char *name)
{
	static char val[DNET_PARAM_VALUE_MAX];
	struct dnet_err e = { 0 };
	const struct dnet_param *p = dnet_param_find(d->dev, name, &e);
	if (!p || dnet_param_get(d->dev, name, val, sizeof val, &e) < 0)
		return dsh_derr(d, &e);
	out_str(d, "name", NULL, name);
	out_str(d, "value", "%s\n", val);
	if (p->type == DNET_PARAM_U64)
		dsh_set_last(d, strtoull(val, NULL, 10));
	return 0;
}

int cmd_params(struct dsh *d, struct dsh_args *a)
{
	if (a->argc == 1)
		return params_list(d);
	if (a->argc == 2)
		return params_get(d, a->argv[1]);
	size_t len = 1;
	for (int i = 2; i < a->argc; i++)
		len += strlen(a->argv[i]) + 1;
	char *v = calloc(1, len);
	if (!v)
		return dsh_error(d, "out of memory");
	for (int i = 2; i < a->argc; i++) {
		strcat(v, a->argv[i]);
		if (i + 1 < a->argc)
			strcat(v, " ");
	}
	struct dnet_err e = { 0 };
	int rc = dnet_param_set(d->dev, a->argv[1], v, &e);
	if (rc == 0) {
		out_str(d, "name", "%s set\n", a->argv[1]);
		out_str(d, "set", NULL, v);
	}
	free(v);
	return rc < 0 ? dsh_derr(d, &e) : 0;
}
