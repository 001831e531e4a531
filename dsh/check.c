/* dsh: a script is read and checked whole before its first command runs
 * (like sh -n): on a board, half a script applied is worse than none.
 *
 * Checked: lines end with LF or CR LF (a lone CR is an error: it would hide
 * the rest of a line from a reader); no NUL or control characters; quotes
 * closed; every literal command name known and, for commands of positional
 * words, their number; repeat ... end balanced and
 * repeat counts valid; the condition of assert, expect and wait parsed as
 * it will run (cond.c: a malformed condition, or one whose verdict could
 * never change, stops the script before its first line); every literal
 * duration (D-DURATION: a bare number refused).  Commands whose
 * name comes from a variable, and conditions that use one, are checked
 * when they run.  Every error is listed with FILE:LINE.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "dsh.h"

#define MAX_NEST 32
#define MAX_LISTED 100
#define MAX_WORDS 12 /* the words of a command kept for its check; the rest are checked when it runs */

struct checker {
	struct dsh *d;
	const char *name;
	int line;
	int errors;
	int open[MAX_NEST];  /* lines of the repeat blocks still open */
	const char *text;    /* the command being checked, for the JSON object */
	int depth;
	bool count_only;     /* dsh_text_has_command: count commands, check nothing */
	int commands;
	struct tree *tree;   /* -n: the sourced files followed (NULL: not followed) */
};

/* D-CHECK-SOURCES: the files `source` reaches, as -n follows them: those
 * being checked (a cycle) and those done (each checked once). */
#define SOURCE_DEPTH 16      /* as script.c's source nesting */
struct tree {
	struct { dev_t dev; ino_t ino; } open[SOURCE_DEPTH + 1], *done;
	int depth;
	size_t ndone;
};
static int check_text(struct checker *c, const char *text, size_t len);

/* One error: "dsh: FILE:LINE: check: message" on stderr and, with --json,
 * a failed object of its own (docs/json-schema.md: every message on stderr
 * belongs to one failed object). */
static void bad(struct checker *c, const char *fmt, const char *arg)
{
	struct dsh *d = c->d;
	if (c->count_only)
		return;
	if (++c->errors > MAX_LISTED) {
		if (c->errors == MAX_LISTED + 1 && !d->io.json)
			fprintf(stderr, "dsh: %s:%d: check: more errors follow; only the first %d are listed\n",
				c->name, c->line, MAX_LISTED);
		return;
	}
	d->cur.have_err = true;
	snprintf(d->cur.errmsg, sizeof d->cur.errmsg, fmt, arg);
	dsh_flush_for_stderr();
	fputs("dsh: ", stderr);
	dsh_fputs_safe(c->name, stderr);
	fprintf(stderr, ":%d: check: ", c->line);
	dsh_fputs_safe(d->cur.errmsg, stderr);
	fputc('\n', stderr);
	if (d->io.json) {
		struct dsh_args a = { .argc = 1 };
		a.argv[0] = (char *)"check";
		d->cur.file = c->name;
		d->cur.line = c->line;
		d->cur.cmd = c->text;
		out_json_command(d, &a, false);
		d->cur.cmd = NULL;
	}
	d->cur.have_err = false;
}

void dsh_not_run(struct dsh *d, const char *name, int nerr)
{
	d->run.check_errors = nerr;
	if (d->io.json) {
		struct dsh_run_verdict v;
		dsh_run_verdict(d, &v);
		out_json_summary(d, &v);
	} else
		fprintf(stderr, "dsh: %s: %d error%s; nothing was run\n", name, nerr, nerr == 1 ? "" : "s");
}

/* The words of one command, without expanding variables: enough to know
 * the command name and the repeat header. */
static int words(const char *t, char w[][64], int max)
{
	int n = 0;
	char scratch[64];
	while (*t) {
		while (*t == ' ' || *t == '\t')
			t++;
		if (!*t || *t == '#')
			break;
		size_t k = 0;
		char q = 0;
		while (*t && (q || (*t != ' ' && *t != '\t'))) {
			if (!q && (*t == '\'' || *t == '"'))
				q = *t;
			else if (q && *t == q)
				q = 0;
			else if (k + 1 < 64)
				(n < max ? w[n] : scratch)[k++] = *t;
			t++;
		}
		(n < max ? w[n] : scratch)[k] = 0;
		n++;
	}
	return n;
}

/* The condition of assert/expect/wait parsed as dsh_exec will parse it
 * (the "@K" prefix dropped, wait's timeout= and its idle forms aside). */
static void check_cond(struct checker *c, const char *t, const char *cmd)
{
	struct dsh *d = c->d;
	if (strchr(t, '$'))
		return;
	struct dsh_args *a = calloc(1, sizeof *a);
	if (!a)
		return;
	bool had = d->cur.have_err;
	char saved[sizeof d->cur.errmsg], msg[sizeof d->cur.errmsg + 64] = "";
	memcpy(saved, d->cur.errmsg, sizeof saved);
	d->cur.have_err = false;
	if (dsh_tokenize(d, t, a) == 0 && a->argc > 0) {
		if (a->argv[0][0] == '@') {
			memmove(a->argv, a->argv + 1, (size_t)a->argc * sizeof(char *));
			a->argc--;
		}
		int end = a->argc, tmo, alw;
		bool wait = strcmp(cmd, "wait") == 0;
		if (wait)
			dsh_wait_split(a, &end, &tmo, &alw);
		struct dsh_cond cond;
		d->cur.have_err = false;
		if (end > 0 && !(wait && dsh_wait_idle_form(a, end)) &&
		    dsh_cond_parse(d, a, 1, end, &cond) < 0)
			snprintf(msg, sizeof msg, "%s: %s", a->argv[0], d->cur.errmsg);
	}
	memcpy(d->cur.errmsg, saved, sizeof saved);
	d->cur.have_err = had;
	free(a);
	if (msg[0])
		bad(c, "%s", msg);
}

/* -n: `source FILE` checked as it will run, FILE opened as cmd_source
 * opens it (from the working directory); one whose path holds a variable
 * is said to be left unchecked. */
static void check_source(struct checker *c, const char *t)
{
	struct dsh *d = c->d;
	if (strchr(t, '$')) {
		dsh_flush_for_stderr();
		fputs("dsh: ", stderr);
		dsh_fputs_safe(c->name, stderr);
		fprintf(stderr, ":%d: check: warning: ", c->line);
		dsh_fputs_safe(t, stderr);
		fputs(": not checked (its path holds a variable, known only when it runs)\n", stderr);
		return;
	}
	struct dsh_args *a = calloc(1, sizeof *a);
	bool had = d->cur.have_err;
	char saved[sizeof d->cur.errmsg];
	memcpy(saved, d->cur.errmsg, sizeof saved);
	int ok = a && dsh_tokenize(d, t, a) == 0;
	memcpy(d->cur.errmsg, saved, sizeof saved);
	d->cur.have_err = had;
	int k = ok && a->argc > 0 && a->argv[0][0] == '@';
	char *path = ok && a->argc == k + 2 ? strdup(a->argv[k + 1]) : NULL;
	free(a);
	if (!path)
		return;
	struct tree *tr = c->tree;
	struct stat st;
	FILE *f = fopen(path, "r");
	if (!f || fstat(fileno(f), &st) != 0) {
		char m[4400];
		snprintf(m, sizeof m, "source: cannot open '%s': %s", path, strerror(errno));
		bad(c, "%s", m);
		if (f)
			fclose(f);
		free(path);
		return;
	}
	for (int j = 0; j < tr->depth; j++)
		if (tr->open[j].dev == st.st_dev && tr->open[j].ino == st.st_ino) {
			char m[4400];
			snprintf(m, sizeof m, "source: '%s' is already being sourced here (a cycle: it would nest "
				 "past %d levels when run)", path, SOURCE_DEPTH);
			bad(c, "%s", m);
			goto out;
		}
	for (size_t j = 0; j < tr->ndone; j++)
		if (tr->done[j].dev == st.st_dev && tr->done[j].ino == st.st_ino)
			goto out; /* checked once, its errors listed once */
	if (tr->depth >= SOURCE_DEPTH) {
		bad(c, "source: nested more than %s levels deep", "16");
		goto out;
	}
	char *text;
	size_t len;
	if (dsh_load_script(d, path, f, &text, &len) < 0) {
		bad(c, "source: cannot read '%s'", path);
		goto out;
	}
	void *nd = realloc(tr->done, (tr->ndone + 1) * sizeof *tr->done);
	if (nd) {
		tr->done = nd;
		tr->done[tr->ndone].dev = st.st_dev;
		tr->done[tr->ndone++].ino = st.st_ino;
	}
	tr->open[tr->depth].dev = st.st_dev;
	tr->open[tr->depth++].ino = st.st_ino;
	struct checker in = { .d = d, .name = path, .tree = tr };
	c->errors += check_text(&in, text, len); /* at the sourced file's own lines */
	tr->depth--;
	free(text);
out:
	fclose(f);
	free(path);
}

/* The durations a command's literal words give (D-DURATION: a bare number
 * is refused), checked before the script runs: sleep DUR, set gap|timeout
 * DUR, watch REG DUR, fault rto DUR, fault KIND ... for DUR and timeout=DUR
 * of wait, barrier, signal, waitfor and prim.  A word with a variable is
 * checked when it runs. */
static void check_durations(struct checker *c, const char *cmd, const char *t)
{
	char w[48][64];
	int n = words(t, w, 48), i = w[0][0] == '@';
	if (n > 48)
		n = 48;
	struct dnet_err e = { 0 };
	uint64_t ns;
	const char *what = NULL, *val = NULL;
	bool timeouts = false;
	if (!strcmp(cmd, "sleep") && n == i + 2)
		what = "duration", val = w[i + 1];
	else if (!strcmp(cmd, "set") && n == i + 3 && (!strcmp(w[i + 1], "gap") || !strcmp(w[i + 1], "timeout")))
		what = w[i + 1], val = w[i + 2];
	else if (!strcmp(cmd, "watch") && n >= i + 3)
		what = "interval", val = w[i + 2];
	else if (!strcmp(cmd, "fault") && n == i + 3 && !strcmp(w[i + 1], "rto"))
		what = "faults: rto", val = w[i + 2];
	else if (!strcmp(cmd, "fault")) {
		for (int k = i + 2; k + 1 < n; k++)
			if (!strcmp(w[k], "for")) {
				what = "faults: for", val = w[k + 1];
				break;
			}
	} else
		timeouts = !strcmp(cmd, "wait") || !strcmp(cmd, "barrier") || !strcmp(cmd, "signal") ||
			   !strcmp(cmd, "waitfor") || !strcmp(cmd, "prim");
	char m[sizeof e.msg + 80];
	if (val && !strchr(val, '$') && dnet_parse_duration(val, &ns, what, &e) < 0) {
		snprintf(m, sizeof m, "%s: %s", cmd, e.msg);
		bad(c, "%s", m);
	}
	for (int k = i + 1; timeouts && k < n; k++)
		if (!strncmp(w[k], "timeout=", 8) && !strchr(w[k], '$') &&
		    dnet_parse_duration(w[k] + 8, &ns, "timeout", &e) < 0) {
			snprintf(m, sizeof m, "%s: %s", cmd, e.msg);
			bad(c, "%s", m);
		}
}

static void check_command(struct checker *c, const char *t)
{
	char w[MAX_WORDS][64];
	int n = words(t, w, MAX_WORDS), i = 0;
	c->commands += n > 0;
	if (c->count_only)
		return;
	if (n > 0 && strchr(w[0], '$'))
		return;
	if (n > 0 && w[0][0] == '@')
		i = 1;
	if (i >= n || strchr(w[i], '$'))
		return;
	if (strcmp(w[i], "repeat") == 0) {
		/* Deeper blocks are counted, not listed: one error at the first. */
		if (c->depth == MAX_NEST)
			bad(c, "repeat blocks nested more than %s deep", "32");
		if (c->depth < MAX_NEST)
			c->open[c->depth] = c->line;
		c->depth++;
		uint64_t v;
		struct dnet_err e = { 0 };
		if (n < i + 2 || n > i + 3)
			bad(c, "%s", "usage: repeat N [VAR] ... end");
		else if (!strchr(w[i + 1], '$') && dnet_parse_u64(w[i + 1], 100000000, &v, "count", &e) < 0)
			bad(c, "repeat: %s", e.msg);
		else if (n == i + 3 && !strchr(w[i + 2], '$') && !dsh_var_name_ok(w[i + 2]))
			bad(c, "repeat: bad variable name '%s'", w[i + 2]);
		return;
	}
	if (strcmp(w[i], "end") == 0) {
		if (n > i + 1)
			bad(c, "end takes no arguments (got '%s')", w[i + 1]);
		if (c->depth == 0)
			bad(c, "%s", "end without repeat");
		else
			c->depth--;
		return;
	}
	const struct dsh_cmd *cmd = dsh_cmd_find(w[i]);
	if (!cmd) {
		const char *near = dsh_cmd_suggest(w[i]);
		char msg[160];
		if (near && strlen(near) < 64) {
			snprintf(msg, sizeof msg, "unknown command '%%s' (did you mean '%s'?)", near);
			bad(c, msg, w[i]);
		} else
			bad(c, "unknown command '%s'", w[i]);
		return;
	}
	if (cmd->fn == cmd_assert || cmd->fn == cmd_wait)
		check_cond(c, t, cmd->name);
	check_durations(c, cmd->name, t);
	if (c->tree && strcmp(cmd->name, "source") == 0 && n == i + 2) /* by name: script.c calls us */
		check_source(c, t);
	if (cmd->fn == cmd_peek || cmd->fn == cmd_poke) {
		/* The width by keyword only (D-RAW-WIDTH): the old positional
		 * order stops the script before its first line. */
		const char *ws[MAX_WORDS];
		int k = 0;
		for (int j = i + 1; j < n && j < MAX_WORDS; j++)
			ws[k++] = w[j];
		char m[512];
		if (dsh_raw_form(cmd->name, k, ws, true, m, sizeof m) < 0) {
			char m2[600];
			snprintf(m2, sizeof m2, "%s: %s", cmd->name, m);
			bad(c, "%s", m2);
		}
	}
	/* Commands whose words are all positional (or keys) have a fixed
	 * number of them, from their table entry's args (complete.c); other
	 * forms check theirs when they run. */
	int lo, hi, nargs = n - i - 1;
	if (dsh_cmd_arity(cmd, &lo, &hi) && (nargs < lo || (hi >= 0 && nargs > hi))) {
		char m[256];
		if (lo == hi)
			snprintf(m, sizeof m, "%s takes %d argument%s, got %d (usage: %s)", cmd->name, hi,
				 hi == 1 ? "" : "s", nargs, cmd->usage);
		else if (hi < 0)
			snprintf(m, sizeof m, "%s takes at least %d argument%s, got %d (usage: %s)", cmd->name, lo,
				 lo == 1 ? "" : "s", nargs, cmd->usage);
		else
			snprintf(m, sizeof m, "%s takes %d to %d argument%s, got %d (usage: %s)", cmd->name, lo, hi,
				 hi == 1 ? "" : "s", nargs, cmd->usage);
		bad(c, "%s", m);
	}
}

/* Split one physical line into commands as the runner does. */
static void check_line(struct checker *c, const char *l, size_t len)
{
	size_t start = 0;
	for (;;) {
		bool last;
		char q;
		size_t e = dsh_split_next(l, len, start, &last, &q);
		char *u = strndup(l + start, e - start);
		c->text = u;
		if (u)
			check_command(c, u);
		if (q)
			bad(c, "unterminated %s quote", q == '"' ? "\"" : "'");
		c->text = NULL;
		free(u);
		if (last)
			break;
		start = e + 1;
	}
}

int dsh_check_text(struct dsh *d, const char *text, size_t len, const char *name)
{
	struct checker c = { .d = d, .name = name };
	return check_text(&c, text, len);
}

int dsh_check_tree(struct dsh *d, const char *text, size_t len, const char *name)
{
	struct tree tr = { .depth = 0 };
	struct checker c = { .d = d, .name = name, .tree = &tr };
	struct stat st; /* a script that sources itself is a cycle from its first line */
	if (strcmp(name, "-c") && strcmp(name, "<stdin>") && stat(name, &st) == 0) {
		tr.open[0].dev = st.st_dev;
		tr.open[0].ino = st.st_ino;
		tr.depth = 1;
	}
	int n = check_text(&c, text, len);
	free(tr.done);
	return n;
}

/* D-SCRIPT-EMPTY: whether a script holds a command at all (blank lines and
 * comments are none); counted as the runner splits lines. */
bool dsh_text_has_command(const char *text, size_t len)
{
	struct checker c = { .name = "", .count_only = true };
	check_text(&c, text, len);
	return c.commands > 0;
}

void dsh_empty_script(struct dsh *d, const char *name)
{
	/* its own failed object at line 1 of the script (docs/json-schema.md) */
	dsh_late_failure(d, name, 1, "script", NULL,
			 "the script holds no command (it is empty, or only blank lines and comments): "
			 "nothing was tested");
}

static int check_text(struct checker *cp, const char *text, size_t len)
{
	struct checker c = *cp;
	size_t i = 0;
	while (i < len) {
		c.line++;
		size_t e = i;
		while (e < len && text[e] != '\n')
			e++;
		size_t end = e;
		if (end > i && text[end - 1] == '\r')
			end--; /* CR LF */
		bool ok = true;
		if (end - i >= DSH_PHYS_LINE_MAX) {
			bad(&c, "line longer than %s bytes", "65536");
			ok = false;
		}
		for (size_t k = i; k < end; k++) {
			unsigned char ch = (unsigned char)text[k];
			char col[48];
			snprintf(col, sizeof col, "%zu", k - i + 1);
			if (ch == '\r') {
				bad(&c, "carriage return (CR) not followed by a line feed at column %s", col);
				ok = false;
			} else if (ch == 0) {
				bad(&c, "NUL byte at column %s", col);
				ok = false;
			} else if ((ch < 0x20 && ch != '\t') || ch == 0x7f) {
				char m[128];
				snprintf(m, sizeof m, "control character 0x%02x at column %s", ch, col);
				bad(&c, "%s", m);
				ok = false;
			}
			if (!ok)
				break;
		}
		if (ok)
			check_line(&c, text + i, end - i);
		i = e + 1;
	}
	for (int k = 0; k < c.depth && k < MAX_NEST; k++) {
		c.line = c.open[k];
		bad(&c, "%s", "repeat without matching end");
	}
	*cp = c;
	return c.errors;
}

int dsh_load_script(struct dsh *d, const char *path, FILE *f, char **text, size_t *len)
{
	(void)d;
	size_t cap = 4096, n = 0;
	char *b = malloc(cap);
	if (!b) {
		fprintf(stderr, "dsh: out of memory reading '%s'\n", path);
		return -1;
	}
	for (;;) {
		if (n >= DSH_SCRIPT_MAX) {
			free(b);
			fprintf(stderr, "dsh: '%s' is larger than %u MB: not a script\n", path, DSH_SCRIPT_MAX >> 20);
			return -1;
		}
		if (n + 1 >= cap) {
			char *nb = realloc(b, cap * 2);
			if (!nb) {
				free(b);
				fprintf(stderr, "dsh: out of memory reading '%s'\n", path);
				return -1;
			}
			b = nb;
			cap *= 2;
		}
		size_t r = fread(b + n, 1, cap - n - 1, f);
		n += r;
		if (r == 0) {
			if (ferror(f)) {
				int er = errno;
				free(b);
				fprintf(stderr, "dsh: cannot read '%s': %s\n", path, strerror(er ? er : EIO));
				return -1;
			}
			break;
		}
	}
	b[n] = 0;
	*text = b;
	*len = n;
	return 0;
}
