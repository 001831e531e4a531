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
	out_arr_open(d, "commands");
	for (unsigned i = 0; i < n; i++) {
		/* the original layout (Fig. C.4) */
		out_obj_open(d, NULL);
		out_str(d, "name", "%-14s", c[i].name);
		out_str(d, "summary", " : %s\n", c[i].summary);
		out_str(d, "usage", "    - %s\n", c[i].usage);
		out_close(d);
	}
	out_close(d);
	out_text(d, "Type 'help COMMAND' for details and an example. '@K COMMAND' runs on node K.\n");
}

int dsh_help_cmd(struct dsh *d, const char *name)
{
	const struct dsh_cmd *c = dsh_cmd_find(name);
	if (!c)
	{
		const char *near = dsh_cmd_suggest(name);
		if (near)
			return dsh_error(d, "no command '%s' (did you mean '%s'? 'help' lists them)", name, near);
		return dsh_error(d, "no command '%s' (type 'help' for the list)", name);
	}
	char al[64];
	aliases(c, al, sizeof(al));
	out_str(d, "name", "%s", c->name);
	out_str(d, "summary", " : %s\n", c->summary);
	out_str(d, "usage", "usage: %s\n", c->usage);
	if (al[0])
		out_str(d, "aliases", "aliases: %s\n", al);
	if (c->details) {
		out_str(d, "details", NULL, c->details);
		/* text: each line indented */
		for (const char *p = c->details; *p && !d->io.json;) {
			const char *e = strchr(p, '\n');
			size_t l = e ? (size_t)(e - p) : strlen(p);
			out_text(d, "  %.*s\n", (int)l, p);
			p += l;
			if (*p)
				p++;
		}
	}
	dsh_help_args(d, c);
	if (c->example)
		out_str(d, "example", "example: %s\n", c->example);
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
