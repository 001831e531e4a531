/* dsh: what a command's arguments are, read from its table entry's args
 * (cmdtab.c): the candidates of interactive completion (interactive.c
 * hands them to readline), the argument lines of 'help CMD' (help.c) and
 * the number of words the whole-script check allows (check.c).
 *
 * The grammar of args (one string per command, D-CMD-ARGS):
 *   FORM | FORM ...   alternative forms of the command's words
 *   FORM = WORD WORD ...
 *   WORD = ALT[?|...]  ? optional (only at the end of a form), ... repeats
 *                      (any number, also none; the last word of a form)
 *   ALT  = lit         a literal word (lower case, digits, - + _)
 *        | NAME        a value of the user's (upper case): no candidates
 *        | <kind>      a set the shell knows (kinds[] below)
 *        | key=        a key=value word (counted, offered as a key)
 *        | {A,B,...}   any of the ALTs
 * The entry's keys (space separated key= words) may follow anywhere after
 * the words a form requires, each once.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "dsh.h"
#include "bench/bench.h"

/* ---- candidates ---- */

static void cand_add(struct dsh_completion *c, const char *s, const char *prefix)
{
	if (strncmp(s, prefix, strlen(prefix)) != 0)
		return;
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->v[i], s) == 0)
			return;
	if (c->n == c->cap) {
		size_t n = c->cap ? c->cap * 2 : 32;
		char **p = realloc(c->v, n * sizeof *p);
		if (!p)
			return;
		c->v = p;
		c->cap = n;
	}
	char *dup = strdup(s);
	if (dup)
		c->v[c->n++] = dup;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void dsh_completion_free(struct dsh_completion *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i]);
	free(c->v);
	memset(c, 0, sizeof *c);
}

/* Register names of the blocks and access given; NAME.FIELD once the word
 * has a dot after a register's name. */
static void add_regs(struct dsh *d, struct dsh_completion *c, const char *w, unsigned blocks, unsigned acc)
{
	unsigned n;
	const struct dnet_reg *regs = d->reg.db ? d->reg.db : dnet_regs(&n);
	n = d->reg.db ? d->reg.ndb : n;
	const char *dot = strchr(w, '.');
	for (unsigned i = 0; i < n; i++) {
		const struct dnet_reg *r = &regs[i];
		if (!(blocks & (1u << r->block)) || !(r->access & acc))
			continue;
		if (!dot) {
			cand_add(c, r->name, w);
			continue;
		}
		if (strncmp(w, r->name, (size_t)(dot - w)) || r->name[dot - w])
			continue;
		for (unsigned k = 0; k < r->nfields; k++) {
			char b[128];
			snprintf(b, sizeof b, "%s.%s", r->name, r->fields[k].name);
			cand_add(c, b, w);
		}
	}
	if (dot)
		c->no_space = false;
}

#define ALL_BLOCKS ((1u << DNET_BLK_USER) | (1u << DNET_BLK_SYSTEM))

/* The kinds of <kind>: what each holds, for help, and how to list it. */
static void k_cmd(struct dsh *d, struct dsh_completion *c, const char *w)
{
	(void)d;
	unsigned n;
	const struct dsh_cmd *t = dsh_cmds(&n);
	for (unsigned i = 0; i < n; i++)
		cand_add(c, t[i].name, w);
}
static void k_prim(struct dsh *d, struct dsh_completion *c, const char *w)
{
	(void)d;
	unsigned n;
	const struct dnet_otype_info *t = dnet_otypes(&n);
	for (unsigned i = 0; i < n; i++)
		cand_add(c, t[i].name, w);
}
static void k_reg(struct dsh *d, struct dsh_completion *c, const char *w)
{
	add_regs(d, c, w, ALL_BLOCKS, DNET_ACC_R | DNET_ACC_W);
}
static void k_ureg_r(struct dsh *d, struct dsh_completion *c, const char *w)
{
	add_regs(d, c, w, 1u << DNET_BLK_USER, DNET_ACC_R);
}
static void k_ureg_w(struct dsh *d, struct dsh_completion *c, const char *w)
{
	add_regs(d, c, w, 1u << DNET_BLK_USER, DNET_ACC_W);
}
static void k_sreg_r(struct dsh *d, struct dsh_completion *c, const char *w)
{
	add_regs(d, c, w, 1u << DNET_BLK_SYSTEM, DNET_ACC_R);
}
static void k_sreg_w(struct dsh *d, struct dsh_completion *c, const char *w)
{
	add_regs(d, c, w, 1u << DNET_BLK_SYSTEM, DNET_ACC_W);
}
static void k_cond(struct dsh *d, struct dsh_completion *c, const char *w)
{
	static const char *const t[] = { "llcm", "pw", "lhb", "ww", "sodimm", "last" };
	for (unsigned i = 0; i < sizeof t / sizeof t[0]; i++)
		cand_add(c, t[i], w);
	k_reg(d, c, w);
}
static void k_file(struct dsh *d, struct dsh_completion *c, const char *w)
{
	(void)d;
	(void)w;
	c->files = true;
}
static void k_stat(struct dsh *d, struct dsh_completion *c, const char *w)
{
	const char *const *names = d->dev ? dnet_stat_names(d->dev) : NULL;
	for (unsigned i = 0; names && names[i]; i++)
		cand_add(c, names[i], w);
}
static void k_param(struct dsh *d, struct dsh_completion *c, const char *w)
{
	const struct dnet_param *p;
	unsigned n;
	struct dnet_err e;
	if (!d->dev || dnet_param_list(d->dev, &p, &n, &e))
		return;
	for (unsigned i = 0; i < n; i++)
		cand_add(c, p[i].name, w);
}
static void k_bench(struct dsh *d, struct dsh_completion *c, const char *w)
{
	(void)d;
	for (unsigned i = 0; bench_experiments[i]; i++)
		cand_add(c, bench_experiments[i], w);
}
static void k_flag(struct dsh *d, struct dsh_completion *c, const char *w)
{
	(void)d;
	unsigned n;
	const char *const *f = dsh_verdict_flags(&n);
	for (unsigned i = 0; i < n; i++)
		cand_add(c, f[i], w);
}
static void k_var(struct dsh *d, struct dsh_completion *c, const char *w)
{
	for (const struct dsh_var *v = d->script.vars; v; v = v->next)
		cand_add(c, v->name, w);
}
static void k_snap(struct dsh *d, struct dsh_completion *c, const char *w)
{
	for (const struct dsh_snap *s = d->script.snaps; s; s = s->next)
		cand_add(c, s->name, w);
}

static const struct kind {
	const char *name;
	void (*add)(struct dsh *d, struct dsh_completion *c, const char *w);
	const char *what; /* for help */
} kinds[] = {
	{ "cmd", k_cmd, "a command name" },
	{ "prim", k_prim, "a primitive name (NOP BOTF VL ... LHSv2)" },
	{ "reg", k_reg, "a register name, NAME.FIELD for one field ('reg' lists them)" },
	{ "ureg.r", k_ureg_r, "a readable User Register" },
	{ "ureg.w", k_ureg_w, "a writable User Register" },
	{ "sreg.r", k_sreg_r, "a readable System Register" },
	{ "sreg.w", k_sreg_w, "a writable System Register" },
	{ "cond", k_cond, "REG, REG.FIELD, llcm pw lhb ww sodimm (then OFFSET) or last" },
	{ "file", k_file, "a file name" },
	{ "stat", k_stat, "a statistic of the backend ('stat' lists them)" },
	{ "param", k_param, "a parameter of the backend ('params' lists them)" },
	{ "bench", k_bench, "an experiment, E1 ... E9" },
	{ "flag", k_flag, "an error flag a verdict judges (rc_overrun, status_full, ...)" },
	{ "var", k_var, "a variable ('set' lists them)" },
	{ "snap", k_snap, "a snapshot taken with 'snapshot NAME'" },
};

static const struct kind *kind_find(const char *s, size_t len)
{
	for (unsigned i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (strlen(kinds[i].name) == len && memcmp(kinds[i].name, s, len) == 0)
			return &kinds[i];
	return NULL;
}

/* ---- the grammar ---- */

#define MAX_WORDS 16
#define MAX_ALTS 24
enum alt_type { A_LIT, A_VALUE, A_KIND, A_KEY };
struct alt {
	enum alt_type type;
	char text[48];
	const struct kind *kind;
};
struct gword {
	struct alt alt[MAX_ALTS];
	unsigned nalt;
	bool optional, repeat;
};
struct form {
	struct gword w[MAX_WORDS];
	unsigned n;
};

static void parse_alt(const char *s, size_t len, struct alt *a)
{
	snprintf(a->text, sizeof a->text, "%.*s", (int)len, s);
	a->kind = NULL;
	if (len > 2 && s[0] == '<' && s[len - 1] == '>') {
		a->type = A_KIND;
		a->kind = kind_find(s + 1, len - 2);
	} else if (len > 1 && s[len - 1] == '=')
		a->type = A_KEY;
	else if (isupper((unsigned char)s[0]))
		a->type = A_VALUE;
	else
		a->type = A_LIT;
}

/* Form number k of args (0-based) into f; false if there is none. */
static bool form_get(const char *args, unsigned k, struct form *f)
{
	const char *p = args;
	for (unsigned i = 0; i < k; i++) {
		const char *bar = strstr(p, " | ");
		if (!bar)
			return false;
		p = bar + 3;
	}
	const char *end = strstr(p, " | ");
	if (!end)
		end = p + strlen(p);
	f->n = 0;
	while (p < end && f->n < MAX_WORDS) {
		while (p < end && *p == ' ')
			p++;
		if (p >= end)
			break;
		const char *e = p;
		while (e < end && *e != ' ')
			e++;
		struct gword *w = &f->w[f->n++];
		w->nalt = 0;
		w->optional = w->repeat = false;
		size_t len = (size_t)(e - p);
		if (len > 3 && memcmp(e - 3, "...", 3) == 0) {
			w->repeat = w->optional = true;
			len -= 3;
		} else if (len > 1 && p[len - 1] == '?') {
			w->optional = true;
			len--;
		}
		if (len > 2 && p[0] == '{' && p[len - 1] == '}') {
			const char *q = p + 1, *qe = p + len - 1;
			while (q < qe && w->nalt < MAX_ALTS) {
				const char *c = memchr(q, ',', (size_t)(qe - q));
				if (!c)
					c = qe;
				parse_alt(q, (size_t)(c - q), &w->alt[w->nalt++]);
				q = c + 1;
			}
		} else
			parse_alt(p, len, &w->alt[w->nalt++]);
		p = e;
	}
	return true;
}

/* Whether the user's word s fits grammar word g. */
static bool word_fits(const struct gword *g, const char *s)
{
	for (unsigned i = 0; i < g->nalt; i++) {
		const struct alt *a = &g->alt[i];
		switch (a->type) {
		case A_LIT:
			if (strcmp(a->text, s) == 0)
				return true;
			break;
		case A_KEY:
			if (strncmp(a->text, s, strlen(a->text)) == 0)
				return true;
			break;
		default:
			return true;
		}
	}
	return false;
}

/* The grammar word at position i of form f (the repeating last one past
 * the end), NULL past the end. */
static const struct gword *word_at(const struct form *f, unsigned i)
{
	if (i < f->n)
		return &f->w[i];
	if (f->n && f->w[f->n - 1].repeat)
		return &f->w[f->n - 1];
	return NULL;
}

static void add_alt(struct dsh *d, struct dsh_completion *c, const struct alt *a, const char *w)
{
	switch (a->type) {
	case A_LIT:
		cand_add(c, a->text, w);
		break;
	case A_KEY:
		cand_add(c, a->text, w);
		break;
	case A_KIND:
		if (a->kind)
			a->kind->add(d, c, w);
		break;
	case A_VALUE:
		break;
	}
}

/* A key= word of the command (its keys, or a key= word of a form). */
static bool is_key_word(const struct dsh_cmd *cmd, const char *s)
{
	const char *eq = strchr(s, '=');
	if (!eq || eq == s || !cmd->keys)
		return false;
	size_t kl = (size_t)(eq - s) + 1;
	for (const char *p = cmd->keys; *p;) {
		while (*p == ' ')
			p++;
		const char *e = strchr(p, ' ');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		if (l == kl && memcmp(p, s, kl) == 0)
			return true;
		if (l && p[l - 1] == '.' && strncmp(p, s, l) == 0) /* timing.NAME=VALUE */
			return true;
		p += l;
	}
	return false;
}

/* The value of key= (the word w, key included): the keys whose values are
 * names the shell knows. */
static bool key_value(struct dsh *d, struct dsh_completion *c, const char *w)
{
	const char *eq = strchr(w, '=');
	if (!eq)
		return false;
	char buf[256];
	if (strncmp(w, "allow=", 6) == 0) {
		/* a comma list: complete its last flag, the rest kept */
		const char *last = strrchr(w, ',');
		last = last ? last + 1 : eq + 1;
		struct dsh_completion f = { 0 };
		k_flag(d, &f, last);
		for (size_t i = 0; i < f.n; i++) {
			snprintf(buf, sizeof buf, "%.*s%s", (int)(last - w), w, f.v[i]);
			cand_add(c, buf, w);
		}
		dsh_completion_free(&f);
		return true;
	}
	if (strncmp(w, "type=", 5) == 0) {
		struct dsh_completion f = { 0 };
		k_prim(d, &f, eq + 1);
		for (size_t i = 0; i < f.n; i++) {
			snprintf(buf, sizeof buf, "type=%s", f.v[i]);
			cand_add(c, buf, w);
		}
		dsh_completion_free(&f);
		return true;
	}
	return true; /* another key's value: the user's */
}

static void add_keys(struct dsh_completion *c, const char *keys, const char *const *given, int ngiven,
		     const char *w)
{
	if (!keys)
		return;
	for (const char *p = keys; *p;) {
		while (*p == ' ')
			p++;
		const char *e = strchr(p, ' ');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		char k[64];
		snprintf(k, sizeof k, "%.*s", (int)l, p);
		bool used = false;
		for (int i = 0; i < ngiven && k[0] && k[l - 1] == '='; i++)
			used |= strncmp(given[i], k, l) == 0;
		if (l && !used)
			cand_add(c, k, w);
		p += l;
	}
}

int dsh_complete(struct dsh *d, const char *line, size_t point, struct dsh_completion *c)
{
	memset(c, 0, sizeof *c);
	size_t len = strlen(line);
	if (point > len)
		point = len;
	/* the word being completed: from the last blank or ';' before point */
	size_t ws = point;
	while (ws > 0 && !strchr(" \t;", line[ws - 1]))
		ws--;
	c->word = ws;
	char w[DSH_LINE_MAX];
	snprintf(w, sizeof w, "%.*s", (int)(point - ws), line + ws);
	/* the words before it, of the command it is in (after the last ';') */
	size_t cs = ws;
	while (cs > 0 && line[cs - 1] != ';')
		cs--;
	char pre[DSH_LINE_MAX];
	snprintf(pre, sizeof pre, "%.*s", (int)(ws - cs), line + cs);
	char *words[DSH_MAX_ARGS];
	int nw = 0;
	char *save = NULL;
	for (char *t = strtok_r(pre, " \t", &save); t && nw < DSH_MAX_ARGS; t = strtok_r(NULL, " \t", &save))
		words[nw++] = t;
	int first = nw > 0 && words[0][0] == '@' ? 1 : 0; /* @K CMD */
	c->no_space = false;
	if (nw == first) {
		unsigned n;
		const struct dsh_cmd *t = dsh_cmds(&n);
		for (unsigned i = 0; i < n; i++) {
			cand_add(c, t[i].name, w);
			for (unsigned j = 0; j < 3 && t[i].alias[j]; j++)
				cand_add(c, t[i].alias[j], w);
		}
		goto done;
	}
	const struct dsh_cmd *cmd = dsh_cmd_find(words[first]);
	if (!cmd)
		goto done;
	if (strchr(w, '=') && key_value(d, c, w)) {
		c->no_space = strncmp(w, "allow=", 6) == 0 ? false : c->no_space;
		goto done;
	}
	/* the positional words so far (key= words aside) */
	const char *pos[DSH_MAX_ARGS], *given[DSH_MAX_ARGS];
	int np = 0, ng = 0;
	for (int i = first + 1; i < nw; i++) {
		if (is_key_word(cmd, words[i]))
			given[ng++] = words[i];
		else
			pos[np++] = words[i];
	}
	bool keys_ok = !cmd->args; /* a command without args: keys anywhere */
	struct form f;
	for (unsigned k = 0; cmd->args && form_get(cmd->args, k, &f); k++) {
		bool fits = true;
		for (int i = 0; i < np && fits; i++) {
			const struct gword *g = word_at(&f, (unsigned)i);
			fits = g && word_fits(g, pos[i]);
		}
		if (!fits)
			continue;
		const struct gword *g = word_at(&f, (unsigned)np);
		if (g)
			for (unsigned a = 0; a < g->nalt; a++)
				add_alt(d, c, &g->alt[a], w);
		/* the form's own key= words, and the entry's keys, once the
		 * words it requires are there */
		bool required_left = false;
		for (unsigned i = (unsigned)np; i < f.n; i++)
			required_left |= !f.w[i].optional;
		if (!required_left) {
			keys_ok = true;
			for (unsigned i = 0; i < f.n; i++)
				for (unsigned a = 0; a < f.w[i].nalt; a++)
					if (f.w[i].alt[a].type == A_KEY)
						cand_add(c, f.w[i].alt[a].text, w);
		}
	}
	if (keys_ok)
		add_keys(c, cmd->keys, given, ng, w);
done:
	if (c->n)
		qsort(c->v, c->n, sizeof *c->v, cmp_str);
	/* a key= or a NAME. is completed further: no blank after it */
	if (c->n == 1) {
		size_t l = strlen(c->v[0]);
		c->no_space = l && (c->v[0][l - 1] == '=' || c->v[0][l - 1] == '.');
	}
	return (int)c->n;
}

/* ---- the check and help ---- */

bool dsh_cmd_arity(const struct dsh_cmd *cmd, int *min, int *max)
{
	if (!cmd->args || !(cmd->flags & DSH_C_ARITY))
		return false;
	int nkeys = 0;
	for (const char *p = cmd->keys; p && *p; p++)
		nkeys += *p == '=';
	*min = 1 << 30;
	*max = 0;
	struct form f;
	for (unsigned k = 0; form_get(cmd->args, k, &f); k++) {
		int lo = 0;
		for (unsigned i = 0; i < f.n; i++)
			lo += !f.w[i].optional;
		int hi = (int)f.n + nkeys;
		if (f.n && f.w[f.n - 1].repeat)
			hi = -1;
		if (lo < *min)
			*min = lo;
		if (*max >= 0 && (hi < 0 || hi > *max))
			*max = hi;
	}
	return true;
}

void dsh_help_args(struct dsh *d, const struct dsh_cmd *cmd)
{
	if (!cmd->args || !cmd->args[0])
		return;
	out_str(d, "arguments", "arguments: %s\n", cmd->args);
	/* every <kind> the command takes, once, with what it is */
	bool seen[sizeof kinds / sizeof kinds[0]] = { false };
	struct form f;
	for (unsigned k = 0; form_get(cmd->args, k, &f); k++)
		for (unsigned i = 0; i < f.n; i++)
			for (unsigned a = 0; a < f.w[i].nalt; a++) {
				const struct kind *kd = f.w[i].alt[a].kind;
				if (kd && !seen[kd - kinds]) {
					seen[kd - kinds] = true;
					out_text(d, "  <%s>: %s\n", kd->name, kd->what);
				}
			}
}
