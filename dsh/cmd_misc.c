/* dsh: version, quit, node, info, stat, echo, sleep, set/unset, and
 * conditions (assert/expect, wait): TARGET [& MASK] OP VALUE.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "dsh.h"

int cmd_version(struct dsh *d, struct dsh_args *a)
{
	bool full = a->argc == 2 && (strcmp(a->argv[1], "full") == 0 || strcmp(a->argv[1], "-a") == 0);
	if (a->argc > 2 || (a->argc == 2 && !full))
		return dsh_error(d, "usage: version [full]");
	jstr(out_res(d), "version", DSH_ORIG_VERSION);
	jstr(out_res(d), "dsh", DSH_VERSION);
	jstr(out_res(d), "libdnet", dnet_version());
	/* The original line alone, so that the thesis's session reproduces (Fig. C.15). */
	out_text(d, "%s\n", DSH_ORIG_VERSION);
	if (full)
		out_text(d, "dsh %s, libdnet %s, backend %s\n", DSH_VERSION, dnet_version(),
			 d->dev ? dnet_dev_spec(d->dev) : "(none)");
	return 0;
}

int cmd_quit(struct dsh *d, struct dsh_args *a)
{
	uint64_t code = 0;
	if (a->argc > 2)
		return dsh_error(d, "usage: quit [N] (N: exit status 0-255)");
	if (a->argc == 2 && dsh_num(d, a, 1, 255, "exit status", &code) < 0)
		return -1;
	d->quit = true;
	if (a->argc == 2)
		d->quit_code = (int)code;
	if (d->cur_file)
		snprintf(d->quit_at, sizeof d->quit_at, "%s:%d", d->cur_file, d->cur_line);
	else
		snprintf(d->quit_at, sizeof d->quit_at, "the prompt");
	/* dsh-script(5): it ends the whole run, also from a sourced file.  With
	 * status 0 there, the commands after the source would be skipped and the
	 * run pass: a failure instead (D-VERDICT-RUN). */
	if (d->depth > 0 && code == 0)
		return dsh_error(d, "%s 0 in a sourced file ends the whole run: the commands after its "
				 "source do not run, so the run fails (exit N with N > 0 ends it on purpose)",
				 a->argv[0]);
	return 0;
}

int cmd_node(struct dsh *d, struct dsh_args *a)
{
	unsigned n = dnet_node_count(d->dev);
	if (a->argc > 2)
		return dsh_error(d, "usage: node [K]");
	if (a->argc == 2) {
		uint64_t k;
		if (dsh_num(d, a, 1, UINT32_MAX, "node", &k) < 0)
			return -1;
		if (k < 1 || k > n)
			return dsh_error(d, "argument 1: node %" PRIu64 " out of range (1..%u)", k, n);
		struct dnet_err e = { 0 };
		if (dnet_set_node(d->dev, (unsigned)k, &e) < 0)
			return dsh_derr(d, &e);
	}
	jnum(out_res(d), "current", dnet_node(d->dev));
	jnum(out_res(d), "nodes", n);
	if (a->argc == 1)
		out_text(d, "node %u of %u\n", dnet_node(d->dev), n);
	dsh_set_last(d, dnet_node(d->dev));
	return 0;
}

int cmd_info(struct dsh *d, struct dsh_args *a)
{
	if (a->argc > 1)
		return dsh_error(d, "usage: info");
	char caps[128];
	dnet_caps_format(d->caps, " ", caps, sizeof caps);
	cJSON *res = out_res(d);
	cJSON *ca = res ? cJSON_AddArrayToObject(res, "caps") : NULL;
	for (unsigned bit = 1; ca && bit; bit <<= 1)
		if ((d->caps & bit) && dnet_cap_name(bit))
			cJSON_AddItemToArray(ca, cJSON_CreateString(dnet_cap_name(bit)));
	jstr(res, "backend", dnet_dev_backend(d->dev));
	jstr(res, "spec", dnet_dev_spec(d->dev));
	jnum(res, "nodes", dnet_node_count(d->dev));
	jnum(res, "node", dnet_node(d->dev));
	jnum(res, "nprocs", d->nprocs);
	jnum(res, "pid", d->pid);
	jnum(res, "wid", d->wid);
	jnum(res, "gap_ns", d->gap_ns);
	jhex(res, "base", d->base);
	jnum(res, "timeout_ns", d->timeout_ns);
	jnum(res, "rank", d->rank);
	jnum(res, "size", d->size);
	char cl[24] = "";
	if (dnet_dev_cluster(d->dev)) { /* ranks on one emulated cluster show the same (D-RUN-PREFLIGHT) */
		snprintf(cl, sizeof cl, "0x%016" PRIx64, dnet_dev_cluster(d->dev));
		jstr(res, "cluster", cl);
	}
	/* Durations in the units the options take (set gap 10us), so that
	 * what info prints can be typed back. */
	char gap[24], tmo[24];
	out_text(d, "backend  %s (%s)\ncaps     %s\nnodes    %u (current %u)\nprocess  nprocs %u pid %u wid %u"
		 " (rank %u of %u)\ngap      %s%s\nbase     0x%08" PRIx32 " (printed address = base + device offset)\n"
		 "timeout  %s\n",
		 dnet_dev_backend(d->dev), dnet_dev_spec(d->dev), caps[0] ? caps : "-", dnet_node_count(d->dev),
		 dnet_node(d->dev), d->nprocs, d->pid, d->wid, d->rank, d->size,
		 dnet_format_duration(d->gap_ns, gap, sizeof gap),
		 (d->caps & DNET_CAP_VIRTUAL_TIME) ? " of virtual time after each command" : " (not used: real time)",
		 d->base, dnet_format_duration(d->timeout_ns, tmo, sizeof tmo));
	if (cl[0])
		out_text(d, "cluster  %s (the emulated cluster: the same for every client of one dnetd)\n", cl);
	return 0;
}

int cmd_stat(struct dsh *d, struct dsh_args *a)
{
	struct dnet_err e = { 0 };
	uint64_t v;
	if (a->argc > 2)
		return dsh_error(d, "usage: stat [NAME]");
	if (a->argc == 2) {
		if (dnet_stat(d->dev, a->argv[1], &v, &e) < 0)
			return dsh_derr(d, &e);
		jnum(out_res(d), a->argv[1], v);
		out_text(d, "%s %" PRIu64 "\n", a->argv[1], v);
		dsh_set_last(d, v);
		return 0;
	}
	const char *const *names = dnet_stat_names(d->dev);
	if (!names || !names[0]) {
		out_text(d, "(backend %s keeps no statistics)\n", dnet_dev_backend(d->dev));
		return 0;
	}
	for (unsigned i = 0; names[i]; i++) {
		if (dnet_stat(d->dev, names[i], &v, &e) < 0)
			continue;
		jnum(out_res(d), names[i], v);
		out_text(d, "%-20s %" PRIu64 "\n", names[i], v);
	}
	return 0;
}

int cmd_echo(struct dsh *d, struct dsh_args *a)
{
	size_t len = 1;
	for (int i = 1; i < a->argc; i++)
		len += strlen(a->argv[i]) + 1;
	char *buf = malloc(len), *p = buf;
	if (!buf)
		return dsh_error(d, "out of memory");
	*p = 0;
	for (int i = 1; i < a->argc; i++) {
		size_t l = strlen(a->argv[i]);
		if (i > 1)
			*p++ = ' ';
		memcpy(p, a->argv[i], l + 1);
		p += l;
	}
	jstr(out_res(d), "text", buf);
	out_text(d, "%s\n", buf);
	free(buf);
	return 0;
}

int cmd_sleep(struct dsh *d, struct dsh_args *a)
{
	uint64_t ns;
	struct dnet_err e = { 0 };
	if (a->argc != 2)
		return dsh_error(d, "usage: sleep DURATION");
	if (dnet_parse_duration(a->argv[1], &ns, "duration", &e) < 0)
		return dsh_error(d, "argument 1: %s", e.msg);
	if (dnet_delay(d->dev, ns, &e) < 0)
		return dsh_derr(d, &e);
	jnum(out_res(d), "ns", ns);
	return 0;
}

int cmd_set(struct dsh *d, struct dsh_args *a)
{
	if (a->argc == 1) {
		cJSON *o = d->json ? cJSON_AddObjectToObject(d->res, "variables") : NULL;
		for (struct dsh_var *v = d->vars; v; v = v->next) {
			jstr(o, v->name, v->value);
			out_text(d, "%s=%s\n", v->name, v->value);
		}
		out_text(d, "(settings: -e %s, gap %" PRIu64 " ns, base 0x%08" PRIx32 ", timeout %" PRIu64
			 " ns, wid %u, posted %s, sync_area 0x%04" PRIx32 "%s)\n", d->bail ? "on" : "off", d->gap_ns,
			 d->base, d->timeout_ns, d->wid, d->no_post ? "off" : "on", d->sync_area,
			 dsh_sync_reserved(d) ? " reserved" : "");
		return 0;
	}
	const char *k = a->argv[1];
	if (strcmp(k, "-e") == 0 || strcmp(k, "+e") == 0) {
		if (a->argc != 2)
			return dsh_error(d, "usage: set -e | set +e");
		d->bail = k[0] == '-';
		return 0;
	}
	if (a->argc != 3)
		return dsh_error(d, "usage: set NAME VALUE (quote a value with blanks)");
	const char *v = a->argv[2];
	if (strcmp(k, "gap") == 0)
		return dsh_dur_str(d, v, "gap", &d->gap_ns);
	if (strcmp(k, "timeout") == 0)
		return dsh_dur_str(d, v, "timeout", &d->timeout_ns);
	if (strcmp(k, "base") == 0) {
		uint64_t b;
		if (dsh_num_str(d, v, UINT32_MAX - DNET_MAP_SIZE, "base", &b) < 0)
			return -1;
		d->base = (uint32_t)b;
		return 0;
	}
	if (strcmp(k, "posted") == 0) {
		if (strcmp(v, "on") && strcmp(v, "off"))
			return dsh_error(d, "set posted: '%s' is not on or off", v);
		d->no_post = strcmp(v, "off") == 0;
		return 0;
	}
	if (strcmp(k, "sync_area") == 0)
		return dsh_sync_area_set(d, v);
	if (strcmp(k, "wid") == 0) {
		uint64_t w;
		if (dsh_num_str(d, v, DNET_NWID - 1, "WID", &w) < 0)
			return -1;
		d->wid = (unsigned)w;
		return 0;
	}
	return dsh_var_set(d, k, v);
}

int cmd_unset(struct dsh *d, struct dsh_args *a)
{
	if (a->argc != 2)
		return dsh_error(d, "usage: unset NAME");
	for (struct dsh_var **pp = &d->vars; *pp; pp = &(*pp)->next)
		if (strcmp((*pp)->name, a->argv[1]) == 0) {
			struct dsh_var *v = *pp;
			*pp = v->next;
			free(v->name);
			free(v->value);
			free(v);
			return 0;
		}
	return dsh_error(d, "no variable '%s'", a->argv[1]);
}

int cmd_assert(struct dsh *d, struct dsh_args *a)
{
	bool soft = strcmp(a->argv[0], "expect") == 0;
	struct dsh_cond c;
	if (dsh_cond_parse(d, a, 1, a->argc, &c) < 0)
		return -1;
	if (d->dry) {
		/* Nothing was read: the assertion did not run (never a pass). */
		cJSON *res = out_res(d);
		cJSON_AddNullToObject(res, "passed");
		jbool(res, "skipped", true);
		jstr(res, "condition", c.desc);
		jstr(res, "op", dnet_cond_name(c.op));
		out_text(d, "%s skipped (dry run): %s\n", soft ? "expect" : "assertion", c.desc);
		d->asserts_skipped++;
		return 0;
	}
	uint64_t v;
	if (dsh_cond_read(d, &c, &v) < 0)
		return -1; /* an error (counted as one), not a verdict */
	bool ok = dsh_cond_holds(&c, v);
	cJSON *res = out_res(d);
	jbool(res, "passed", ok);
	jstr(res, "condition", c.desc);
	jhex(res, "actual", v);
	jhex(res, "expected", c.value);
	jstr(res, "op", dnet_cond_name(c.op));
	dsh_set_last(d, v);
	if (ok) {
		d->asserts_pass++;
		return 0;
	}
	d->asserts_fail++;
	d->verdict = true;
	dsh_error(d, "%s failed: %s (got 0x%" PRIx64 ")", soft ? "expect" : "assertion", c.desc, v);
	if (soft)
		return 1; /* counted, reported, but not a failed command */
	return -1;
}
