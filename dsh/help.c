/* dsh: help texts, generated from the command table (cmdtab.c). */
#include <string.h>
#include "dsh.h"

static void aliases(const struct dsh_cmd *c, char *buf, size_t n)
{
	buf[0] = 0;
	for (unsigned j = 0; j < 3 && c->alias[j]; j++) {
		strncat(buf, j ? ", " : "", n - strlen(buf) - 1);
		strncat(buf, c->alias[j], n - strlen(buf) - 1);
	}
}

void dsh_help_all(struct dsh *d)
{
	unsigned n;
	const struct dsh_cmd *c = dsh_cmds(&n);
	cJSON *arr = d->json ? cJSON_AddArrayToObject(d->res, "commands") : NULL;
	for (unsigned i = 0; i < n; i++) {
		if (arr) {
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "name", c[i].name);
			cJSON_AddStringToObject(o, "summary", c[i].summary);
			cJSON_AddStringToObject(o, "usage", c[i].usage);
			cJSON_AddItemToArray(arr, o);
			continue;
		}
		/* the original layout (Fig. C.4) */
		printf("%-14s : %s\n    - %s\n", c[i].name, c[i].summary, c[i].usage);
	}
	out_text(d, "Type 'help COMMAND' for details and an example. '@K COMMAND' runs on node K.\n");
}

int dsh_help_cmd(struct dsh *d, const char *name)
{
	const struct dsh_cmd *c = dsh_cmd_find(name);
	if (!c)
		return dsh_error(d, "no command '%s' (type 'help' for the list)", name);
	char al[64];
	aliases(c, al, sizeof(al));
	if (d->json) {
		jstr(d->res, "name", c->name);
		jstr(d->res, "summary", c->summary);
		jstr(d->res, "usage", c->usage);
		if (al[0])
			jstr(d->res, "aliases", al);
		if (c->details)
			jstr(d->res, "details", c->details);
		if (c->example)
			jstr(d->res, "example", c->example);
		return 0;
	}
	printf("%s : %s\n", c->name, c->summary);
	printf("usage: %s\n", c->usage);
	if (al[0])
		printf("aliases: %s\n", al);
	if (c->details) {
		const char *p = c->details;
		while (*p) {
			const char *e = strchr(p, '\n');
			size_t l = e ? (size_t)(e - p) : strlen(p);
			printf("  %.*s\n", (int)l, p);
			p += l;
			if (*p)
				p++;
		}
	}
	if (c->example)
		printf("example: %s\n", c->example);
	return 0;
}

int cmd_help(struct dsh *d, struct dsh_args *a)
{
	if (a->argc > 2)
		return dsh_error(d, "usage: help [COMMAND]");
	if (a->argc == 2)
		return dsh_help_cmd(d, a->argv[1]);
	dsh_help_all(d);
	return 0;
}
