/* dsh: tokenizer, variables, key=value parsing and strict numbers.
 *
 * Tokens are separated by blanks; '...' and "..." quote (no escapes inside
 * '...'; \" and \\ inside "...").  An unquoted '#' at the start of a token
 * starts a comment.  $NAME and ${NAME} expand variables outside '...'; $_
 * is the last result in hex.  Numbers are parsed whole by libdnet's strict
 * parser: "55ff", "0x", "08" are errors naming the argument.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "dsh.h"

const char *dsh_var_get(struct dsh *d, const char *name)
{
	for (struct dsh_var *v = d->script.vars; v; v = v->next)
		if (strcmp(v->name, name) == 0)
			return v->value;
	return NULL;
}

bool dsh_var_name_ok(const char *s)
{
	if (!*s || !(isalpha((unsigned char)*s) || *s == '_') || strlen(s) > DSH_VAR_NAME_MAX)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

int dsh_var_set(struct dsh *d, const char *name, const char *value)
{
	if (!dsh_var_name_ok(name))
		return dsh_error(d, "bad variable name '%s' (letters, digits and _, not starting with a digit, "
				 "at most %d characters)", name, DSH_VAR_NAME_MAX);
	for (struct dsh_var *v = d->script.vars; v; v = v->next)
		if (strcmp(v->name, name) == 0) {
			char *nv = strdup(value);
			if (!nv)
				return dsh_error(d, "out of memory");
			free(v->value);
			v->value = nv;
			return 0;
		}
	struct dsh_var *v = calloc(1, sizeof(*v));
	if (!v)
		return dsh_error(d, "out of memory");
	v->name = strdup(name);
	v->value = strdup(value);
	if (!v->name || !v->value) {
		free(v->name);
		free(v->value);
		free(v);
		return dsh_error(d, "out of memory");
	}
	v->next = d->script.vars;
	d->script.vars = v;
	return 0;
}

void dsh_vars_free(struct dsh *d)
{
	struct dsh_var *v = d->script.vars;
	while (v) {
		struct dsh_var *n = v->next;
		free(v->name);
		free(v->value);
		free(v);
		v = n;
	}
	d->script.vars = NULL;
}

/* Expand $NAME / ${NAME} / $_ at *pp (pointing at '$') into *op. Returns
 * 1 if expanded, 0 if the '$' is literal, -1 on error. */
static int expand_var(struct dsh *d, const char **pp, char **op, const char *end)
{
	const char *s = *pp + 1;
	char name[DSH_VAR_NAME_MAX + 1];
	size_t n = 0;
	bool brace = *s == '{';
	if (brace)
		s++;
	if (*s == '_' && !(isalnum((unsigned char)s[1]) || s[1] == '_')) {
		name[n++] = '_';
		s++;
	} else {
		const char *b = s;
		while (isalnum((unsigned char)*s) || *s == '_')
			s++;
		if ((size_t)(s - b) > DSH_VAR_NAME_MAX)
			return dsh_error(d, "variable name '$%.20s...' longer than %d characters", b, DSH_VAR_NAME_MAX);
		n = (size_t)(s - b);
		memcpy(name, b, n);
	}
	name[n] = 0;
	if (brace) {
		if (*s != '}')
			return dsh_error(d, "unterminated ${ (or a bad character in the variable name)");
		s++;
		if (n == 0)
			return dsh_error(d, "empty variable name in ${}");
	}
	if (n == 0)
		return 0;
	if (isdigit((unsigned char)name[0]))
		return dsh_error(d, "bad variable reference '$%s' (a name does not start with a digit)", name);
	char tmp[32];
	const char *val;
	if (strcmp(name, "_") == 0) {
		if (!d->script.has_last)
			return dsh_error(d, "$_: no result yet");
		snprintf(tmp, sizeof(tmp), "0x%" PRIx64, d->script.last);
		val = tmp;
	} else if (!(val = dsh_var_get(d, name))) {
		return dsh_error(d, "undefined variable '$%s'", name);
	}
	size_t vl = strlen(val);
	if (*op + vl >= end)
		return dsh_error(d, "line too long after expanding $%s (at most 8 KB after variable expansion)",
				 name);
	memcpy(*op, val, vl);
	*op += vl;
	*pp = s;
	return 1;
}

/* The one rule for quotes, escapes, ';' and '#' that the line splitter
 * (script.c, check.c) and the word tokenizer below share: '...' is literal,
 * "..." takes \" and \\ as escapes, '#' at the start of a word begins a
 * comment, ';' outside quotes ends a command. */
size_t dsh_split_next(const char *l, size_t len, size_t start, bool *last, char *open_quote)
{
	char q = 0;
	*open_quote = 0;
	for (size_t i = start; i < len; i++) {
		char c = l[i];
		if (q == '"' && c == '\\' && i + 1 < len && (l[i + 1] == '"' || l[i + 1] == '\\')) {
			i++;
			continue;
		}
		if (q) {
			if (c == q)
				q = 0;
			continue;
		}
		if (c == '\'' || c == '"') {
			q = c;
			continue;
		}
		bool word_start = i == 0 || l[i - 1] == ' ' || l[i - 1] == '\t' || l[i - 1] == ';';
		if (c == '#' && word_start) {
			*last = true;
			return i;
		}
		if (c == ';') {
			*last = false;
			return i;
		}
	}
	*open_quote = q;
	*last = true;
	return len;
}

int dsh_tokenize(struct dsh *d, const char *line, struct dsh_args *a)
{
	char *o = a->buf, *end = a->buf + sizeof(a->buf) - 1;
	const char *p = line;
	a->argc = 0;
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
			p++;
		if (!*p || *p == '#')
			break;
		if (a->argc >= DSH_MAX_ARGS - 1)
			return dsh_error(d, "too many arguments (at most %d)", DSH_MAX_ARGS - 1);
		a->argv[a->argc++] = o;
		while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n') {
			if (o >= end - 1)
				return dsh_error(d, "line too long (at most 8 KB after variable expansion)");
			if (*p == '\'') {
				const char *q = strchr(p + 1, '\'');
				if (!q)
					return dsh_error(d, "unterminated ' quote");
				size_t n = (size_t)(q - p - 1);
				if (o + n >= end)
					return dsh_error(d, "line too long (at most 8 KB after variable expansion)");
				memcpy(o, p + 1, n);
				o += n;
				p = q + 1;
				continue;
			}
			if (*p == '"') {
				p++;
				while (*p && *p != '"') {
					if (o >= end - 1)
						return dsh_error(d, "line too long (at most 8 KB after variable expansion)");
					if (*p == '$') {
						int r = expand_var(d, &p, &o, end);
						if (r < 0)
							return r;
						if (r > 0)
							continue;
					}
					if (*p == '\\' && (p[1] == '"' || p[1] == '\\'))
						p++;
					*o++ = *p++;
				}
				if (*p != '"')
					return dsh_error(d, "unterminated \" quote");
				p++;
				continue;
			}
			if (*p == '$') {
				int r = expand_var(d, &p, &o, end);
				if (r < 0)
					return r;
				if (r > 0)
					continue;
			}
			*o++ = *p++;
		}
		*o++ = 0;
	}
	a->argv[a->argc] = NULL;
	return 0;
}

int dsh_num_str(struct dsh *d, const char *s, uint64_t max, const char *what, uint64_t *v)
{
	struct dnet_err e = { 0 };
	if (dnet_parse_u64(s, max, v, what, &e) < 0)
		return dsh_error(d, "%s", e.msg);
	return 0;
}

int dsh_num(struct dsh *d, struct dsh_args *a, int i, uint64_t max, const char *what, uint64_t *v)
{
	struct dnet_err e = { 0 };
	if (i >= a->argc)
		return dsh_error(d, "missing argument %d (%s); usage: %s", i, what,
				 dsh_cmd_find(a->argv[0]) ? dsh_cmd_find(a->argv[0])->usage : a->argv[0]);
	if (dnet_parse_u64(a->argv[i], max, v, what, &e) < 0)
		return dsh_error(d, "argument %d: %s", i, e.msg);
	return 0;
}

int dsh_dur_str(struct dsh *d, const char *s, const char *what, uint64_t *ns)
{
	struct dnet_err e = { 0 };
	if (dnet_parse_duration(s, ns, what, &e) < 0)
		return dsh_error(d, "%s", e.msg);
	return 0;
}

struct dsh_kv *dsh_kv_get(struct dsh_kv *kv, unsigned n, const char *key)
{
	for (unsigned i = 0; i < n; i++)
		if (strcmp(kv[i].key, key) == 0)
			return &kv[i];
	return NULL;
}

int dsh_kv_parse(struct dsh *d, struct dsh_args *a, int start, int end, struct dsh_kv *kv, unsigned n)
{
	for (int i = start; i < end; i++) {
		const char *t = a->argv[i];
		const char *eq = strchr(t, '=');
		if (!eq || eq == t) {
			char keys[512] = "";
			for (unsigned k = 0; k < n; k++) {
				strncat(keys, kv[k].key, sizeof(keys) - strlen(keys) - 3);
				strncat(keys, "= ", sizeof(keys) - strlen(keys) - 1);
			}
			return dsh_error(d, "argument %d: '%s' is not key=value (keys: %s)", i, t, keys);
		}
		char key[64];
		size_t kl = (size_t)(eq - t);
		if (kl >= sizeof(key))
			return dsh_error(d, "argument %d: unknown key '%.*s'", i, (int)kl, t);
		memcpy(key, t, kl);
		key[kl] = 0;
		struct dsh_kv *k = dsh_kv_get(kv, n, key);
		if (!k) {
			char keys[512] = "";
			for (unsigned j = 0; j < n; j++) {
				strncat(keys, kv[j].key, sizeof(keys) - strlen(keys) - 2);
				if (j + 1 < n)
					strncat(keys, " ", sizeof(keys) - strlen(keys) - 1);
			}
			struct dnet_suggest sg;
			dnet_suggest_init(&sg, key);
			for (unsigned j = 0; j < n; j++)
				dnet_suggest_add(&sg, kv[j].key);
			if (dnet_suggest_best(&sg))
				return dsh_error(d, "argument %d: unknown key '%s' (did you mean '%s='? known: %s)", i, key,
						 dnet_suggest_best(&sg), keys);
			return dsh_error(d, "argument %d: unknown key '%s' (known: %s)", i, key, keys);
		}
		if (k->given)
			return dsh_error(d, "argument %d: key '%s' given twice", i, key);
		const char *val = eq + 1;
		if (!*val)
			return dsh_error(d, "argument %d: key '%s' has no value", i, key);
		struct dnet_err e = { 0 };
		if (k->flags & DSH_KV_STR) {
			k->sval = val;
		} else if (k->flags & DSH_KV_DUR) {
			if (dnet_parse_duration(val, &k->val, k->what ? k->what : k->key, &e) < 0)
				return dsh_error(d, "argument %d: %s", i, e.msg);
		} else if (dnet_parse_u64(val, k->max, &k->val, k->what ? k->what : k->key, &e) < 0) {
			return dsh_error(d, "argument %d: %s", i, e.msg);
		}
		k->given = true;
	}
	for (unsigned k = 0; k < n; k++)
		if ((kv[k].flags & DSH_KV_REQ) && !kv[k].given)
			return dsh_error(d, "missing %s= (%s)", kv[k].key, kv[k].what ? kv[k].what : kv[k].key);
	return 0;
}

bool dsh_take_word(struct dsh_args *a, int start, const char *w)
{
	for (int i = start; i < a->argc; i++)
		if (strcmp(a->argv[i], w) == 0) {
			memmove(&a->argv[i], &a->argv[i + 1], (size_t)(a->argc - i) * sizeof(char *));
			a->argc--;
			return true;
		}
	return false;
}

const char *dsh_did_you_mean(const char *word, const char *list, char *buf, size_t n)
{
	char names[512];
	snprintf(names, sizeof names, "%s", list);
	struct dnet_suggest s;
	dnet_suggest_init(&s, word);
	char *save = NULL;
	for (char *t = strtok_r(names, " ", &save); t; t = strtok_r(NULL, " ", &save))
		dnet_suggest_add(&s, t);
	const char *best = dnet_suggest_best(&s);
	if (best)
		snprintf(buf, n, "did you mean '%s'? ", best);
	else if (n)
		buf[0] = 0;
	return buf;
}
