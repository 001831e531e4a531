/* dsh: the command runner, shared by -c, scripts, piped input and the
 * interactive loop.
 *
 * A source yields physical lines; each line is split at ';' (outside
 * quotes) into commands that keep the line's number.  repeat N ... end
 * captures the commands up to the matching end and runs them N times;
 * source FILE runs a file in the same state.  Every command runs through
 * dsh_exec(), which reports errors as "dsh: FILE:LINE: CMD: message",
 * emits the JSON object, and lets the configured gap of virtual time pass.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "dsh.h"

#define MAX_DEPTH 16        /* source nesting */
#define MAX_REPEAT_NEST 32  /* repeat blocks nested in one another (in one source) */

struct unit {
	char *text;
	int line;
};

struct dsh_src {
	struct dsh *d;
	const char *name;
	int line;
	/* physical line reader; returns malloc'd text or NULL at end */
	char *(*readln)(struct dsh_src *s, bool cont);
	FILE *f;
	const char *str;
	/* pending commands of the current physical line */
	struct unit *pend;
	size_t npend, ipend;
	/* a captured block (repeat) */
	const struct unit *blk;
	size_t nblk, iblk;
	char *(*cb)(void *ctx, bool cont);
	void *ctx;
	long nul_at;    /* column of a NUL byte in the last physical line, or -1 */
	bool too_long;  /* the last physical line was longer than DSH_PHYS_LINE_MAX */
	int read_err;   /* errno of a failed read of f: the input ends there */
};

static char *read_cb_line(struct dsh_src *s, bool cont)
{
	char *l = s->cb(s->ctx, cont);
	if (l)
		s->line++;
	return l;
}

/* One line of a stream, at most DSH_PHYS_LINE_MAX bytes: a longer line is
 * read to its end and dropped (an error at its line), so no input can make
 * dsh grow without bound.  A read error is not an end of file: the line
 * being read is dropped, s->read_err set, and nothing more is read. */
static char *read_file_line(struct dsh_src *s, bool cont)
{
	(void)cont;
	if (s->read_err)
		return NULL;
	size_t cap = 256, n = 0;
	char *line = malloc(cap);
	if (!line)
		return NULL;
	int c = EOF;
	bool too_long = false;
	for (;;) {
		errno = 0;
		c = getc(s->f);
		if (c == EOF && ferror(s->f) && errno == EINTR && !dsh_term_signal()) {
			clearerr(s->f); /* a signal that does not end the run */
			continue;
		}
		if (c == EOF || c == '\n')
			break;
		if (n + 1 >= DSH_PHYS_LINE_MAX) {
			too_long = true;
			continue;
		}
		if (n + 1 >= cap) {
			char *p = realloc(line, cap * 2);
			if (!p) {
				free(line);
				return NULL;
			}
			line = p;
			cap *= 2;
		}
		line[n++] = (char)c;
	}
	if (c == EOF && ferror(s->f)) {
		/* interrupted by the signal that ends the run: an end, not an error */
		if (!(errno == EINTR && dsh_term_signal()))
			s->read_err = errno ? errno : EIO;
		free(line);
		return NULL;
	}
	if (c == EOF && n == 0 && !too_long) {
		free(line);
		return NULL;
	}
	line[n] = 0;
	while (n > 0 && line[n - 1] == '\r')
		line[--n] = 0;
	s->line++;
	/* A NUL byte would silently cut the line short: check_line() rejects it. */
	char *z = memchr(line, 0, n);
	s->nul_at = z ? z - line : -1;
	if (too_long) {
		s->too_long = true;
		line[0] = 0;
	}
	return line;
}

static char *read_str_line(struct dsh_src *s, bool cont)
{
	(void)cont;
	if (!s->str || !*s->str)
		return NULL;
	const char *e = strchr(s->str, '\n');
	size_t n = e ? (size_t)(e - s->str) : strlen(s->str);
	char *line = strndup(s->str, n);
	if (line && n && line[n - 1] == '\r')
		line[n - 1] = 0; /* CR LF (a lone CR was refused by the check) */
	s->str += n + (e ? 1 : 0);
	s->line++;
	return line;
}

static void free_pend(struct dsh_src *s)
{
	for (size_t i = s->ipend; i < s->npend; i++)
		free(s->pend[i].text);
	free(s->pend);
	s->pend = NULL;
	s->npend = s->ipend = 0;
}

/* Split a physical line into commands (dsh_split_next: the tokenizer's
 * rules for quotes, escapes, ';' and '#'). */
static int split_line(struct dsh_src *s, const char *line)
{
	size_t len = strlen(line), start = 0, cap = 4;
	s->pend = calloc(cap, sizeof(struct unit));
	if (!s->pend)
		return -1;
	s->npend = s->ipend = 0;
	for (;;) {
		bool last;
		char q;
		size_t e = dsh_split_next(line, len, start, &last, &q);
		if (s->npend == cap) {
			cap *= 2;
			struct unit *n = realloc(s->pend, cap * sizeof(struct unit));
			if (!n)
				return -1;
			s->pend = n;
		}
		size_t b = start;
		while (b < e && (line[b] == ' ' || line[b] == '\t'))
			b++;
		while (e > b && (line[e - 1] == ' ' || line[e - 1] == '\t'))
			e--;
		s->pend[s->npend].text = strndup(line + b, e - b);
		s->pend[s->npend].line = s->line;
		s->npend++;
		if (last)
			break;
		start = e + 1;
		while (start <= len && line[start - 1] != ';')
			start++;
	}
	return 0;
}

static void report(struct dsh *d, const char *cmd)
{
	if (d->cur.have_err)
		dsh_report_at(d->cur.file, d->cur.line, cmd, d->cur.errmsg);
}

/* A command that failed before it could run (bad line, bad repeat header):
 * report it like any failed command (stderr, JSON object, count, -e). */
static void fail_unrun(struct dsh *d, const char *cmd, const struct dsh_args *a)
{
	d->run.commands++;
	d->run.errors++;
	d->script.has_last = false;
	report(d, cmd);
	if (d->io.json) {
		struct dsh_args x = { .argc = 1 };
		x.argv[0] = (char *)cmd;
		out_result_drop(d);
		out_json_command(d, a && a->argc > 0 ? a : &x, false);
	}
	d->run.failures++;
	if (d->opts.bail)
		d->run.stop = true;
}

/* Reject a physical line holding a NUL byte or a control character other
 * than tab and carriage return: nothing of it is run. */
static bool check_line(struct dsh_src *s, const char *l)
{
	struct dsh *d = s->d;
	if (s->too_long && d) {
		s->too_long = false;
		d->cur.have_err = false;
		d->cur.file = s->name;
		d->cur.line = s->line;
		d->cur.cmd = l;
		dsh_error(d, "line longer than %d bytes; the line is ignored", DSH_PHYS_LINE_MAX);
		fail_unrun(d, "line", NULL);
		d->cur.cmd = NULL;
		return false;
	}
	long bad = -1;
	unsigned char c = 0;
	for (const unsigned char *p = (const unsigned char *)l; *p; p++)
		if ((*p < 0x20 && *p != '\t' && *p != '\r') || *p == 0x7f) {
			bad = (long)(p - (const unsigned char *)l);
			c = *p;
			break;
		}
	if (s->nul_at >= 0 && (bad < 0 || s->nul_at < bad)) {
		bad = s->nul_at;
		c = 0;
	}
	s->nul_at = -1;
	if (bad < 0 || !d)
		return true;
	d->cur.have_err = false;
	d->cur.file = s->name;
	d->cur.line = s->line;
	d->cur.cmd = l;
	if (c == 0)
		dsh_error(d, "NUL byte at column %ld; the line is ignored", bad + 1);
	else
		dsh_error(d, "control character 0x%02x at column %ld; the line is ignored", c, bad + 1);
	fail_unrun(d, "line", NULL);
	d->cur.cmd = NULL;   /* the line is freed by the caller */
	return false;
}

static bool blank(const char *t)
{
	while (*t == ' ' || *t == '\t')
		t++;
	return !*t || *t == '#';
}

/* Next command of a source: malloc'd text, or NULL at end. */
static char *next_unit(struct dsh_src *s, bool cont, int *line)
{
	if (s->blk) {
		while (s->iblk < s->nblk) {
			const struct unit *u = &s->blk[s->iblk++];
			*line = u->line;
			return strdup(u->text);
		}
		return NULL;
	}
	for (;;) {
		while (s->ipend < s->npend) {
			struct unit *u = &s->pend[s->ipend++];
			if (blank(u->text)) {
				free(u->text);
				continue;
			}
			*line = u->line;
			return u->text;
		}
		free_pend(s);
		char *l = s->readln(s, cont);
		if (!l)
			return NULL;
		if (!check_line(s, l)) {
			free(l);
			continue;
		}
		int rc = split_line(s, l);
		free(l);
		if (rc < 0)
			return NULL;
	}
}

static void first_word(const char *t, char *w, size_t n)
{
	while (*t == ' ' || *t == '\t')
		t++;
	size_t k = 0;
	while (*t && *t != ' ' && *t != '\t' && k + 1 < n)
		w[k++] = *t++;
	w[k] = 0;
}

int dsh_exec(struct dsh *d, const char *text, const char *file, int line)
{
	struct dsh_args *a = calloc(1, sizeof(*a));
	if (!a) {
		fprintf(stderr, "dsh: out of memory\n");
		return -1;
	}
	d->cur.have_err = false;
	d->cur.errmsg[0] = 0;
	d->cur.file = file;
	d->cur.line = line;
	d->cur.cmd = text;
	out_result_begin(d);
	if (d->opts.echo && !d->io.json) {
		while (*text == ' ' || *text == '\t')
			text++;
		printf("dsh > %s\n", text);
	}
	int rc = dsh_tokenize(d, text, a);
	struct dnet_dev *saved_dev = NULL; /* @K: the handle to go back to */
	const struct dsh_cmd *c = NULL;
	char *cmdname = (char *)"";
	char *at = NULL;   /* the "@K" token (in a->buf) */
	bool not_run = false;
	bool posted = false; /* this command's requests go posted (post.c) */
	if (rc == 0 && a->argc > 0 && a->argv[0][0] == '@') {
		at = a->argv[0];
		uint64_t k;
		unsigned n = dnet_node_count(d->dev);
		if (dsh_num_str(d, a->argv[0] + 1, UINT32_MAX, "node", &k) < 0) {
			rc = -1;
		} else if (k < 1 || k > n) {
			rc = dsh_error(d, "node %" PRIu64 " out of range (1..%u)", k, n);
		} else {
			/* node K's handle for this command (D-NODE-HANDLE): a
			 * pointer, no request */
			struct dnet_err e = { 0 };
			struct dnet_dev *h = dnet_node_dev(d->dev, (unsigned)k, &e);
			if (!h) {
				rc = dsh_derr(d, &e);
			} else {
				saved_dev = d->dev;
				d->dev = h;
			}
			memmove(a->argv, a->argv + 1, (size_t)a->argc * sizeof(char *));
			a->argc--;
			if (rc == 0 && a->argc == 0)
				rc = dsh_error(d, "missing command after @%" PRIu64, k);
		}
	}
	if (rc == 0 && a->argc == 0) {
		/* blank */
		if (d->io.json) {
			out_result_drop(d);
		}
		free(a);
		return 0;
	}
	if (rc == 0) {
		cmdname = a->argv[0];
		c = dsh_cmd_find(a->argv[0]);
		const char *near = c ? NULL : dsh_cmd_suggest(a->argv[0]);
		if (!c && near)
			rc = dsh_error(d, "unknown command '%s' (did you mean '%s'? 'help' lists them)", a->argv[0], near);
		else if (!c)
			rc = dsh_error(d, "unknown command '%s' (type 'help' for the list)", a->argv[0]);
		else if (!(c->flags & DSH_C_NODEV) && !d->dev)
			rc = dsh_error(d, "no device open");
		else if ((posted = dsh_post_begin(d, c, a->argv[0])))
			rc = c->fn(d, a);
		else if (dsh_post_sync(d) < 0 && d->run.stop)
			not_run = true; /* -e: an earlier posted command failed; this one does not run */
		else
			rc = c->fn(d, a);
	}
	if (not_run) {
		if (saved_dev)
			d->dev = saved_dev;
		if (d->io.json) {
			out_result_drop(d);
		}
		free(a);
		return -1;
	} else if (a->argc > 0) {
		cmdname = a->argv[0];
	} else if (at) {
		cmdname = at;   /* "@K" alone */
	}
	if (saved_dev)
		d->dev = saved_dev;
	d->run.commands++;
	if (rc < 0 && !d->cur.have_err)
		dsh_error(d, "failed");
	report(d, cmdname[0] ? cmdname : "dsh");
	if (a->argc == 0 && at) {
		a->argv[0] = at;
		a->argc = 1;
		a->argv[1] = NULL;
	}
	if (d->io.json) {
		out_json_command(d, a, rc == 0);
		out_result_drop(d);
	}
	/* failed_commands counts every object with ok false: a failed
	 * expect and a source whose commands failed (rc 1) too. */
	if (rc > 0)
		d->run.failures++;
	if (rc < 0) {
		d->run.failures++;
		if (!d->run.verdict)
			d->run.errors++;
		/* A failed command leaves no result: an assert on last must not
		 * see an earlier command's value. */
		d->script.has_last = false;
		if (d->opts.bail)
			d->run.stop = true;
	}
	d->run.verdict = false;
	if (d->dev && d->opts.gap_ns && (d->caps & DNET_CAP_VIRTUAL_TIME) && !d->run.quit) {
		struct dnet_err e = { 0 };
		dnet_delay(d->dev, d->opts.gap_ns, &e);
	}
	if (posted)
		dsh_post_end(d); /* after the gap, which goes posted with it */
	dsh_flush();
	free(a);
	return rc < 0 ? -1 : 0;
}

static int run_src(struct dsh *d, struct dsh_src *s);

static void free_units(struct unit *u, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(u[i].text);
	free(u);
}

/* repeat N [VAR]: capture up to the matching end, run N times.  The whole
 * header is checked (count, variable name, a matching end, the nesting
 * depth) before the first iteration runs. */
static int do_repeat(struct dsh *d, struct dsh_src *s, const char *text, int line)
{
	struct dsh_args *a = calloc(1, sizeof(*a));
	if (!a)
		return -1;
	d->cur.have_err = false;
	d->cur.file = s->name;
	d->cur.line = line;
	d->cur.cmd = text;
	uint64_t n = 0;
	int rc = dsh_tokenize(d, text, a);
	if (rc == 0 && (a->argc < 2 || a->argc > 3))
		rc = dsh_error(d, "usage: repeat N [VAR] ... end");
	if (rc == 0)
		rc = dsh_num(d, a, 1, 100000000, "count", &n);
	char var[DSH_VAR_NAME_MAX + 1] = "";
	if (rc == 0 && a->argc == 3) {
		if (!dsh_var_name_ok(a->argv[2]))
			rc = dsh_error(d, "argument 2: bad variable name '%s' (letters, digits and _, not starting "
				       "with a digit, at most %d characters)", a->argv[2], DSH_VAR_NAME_MAX);
		else
			snprintf(var, sizeof(var), "%s", a->argv[2]);
	}
	/* capture the block even after an error, so that the rest is skipped coherently */
	size_t cap = 8, nb = 0;
	struct unit *b = calloc(cap, sizeof(*b));
	if (!b) {
		free(a);
		return -1;
	}
	int depth = 1, l;
	char *t = NULL;
	while (!dsh_interrupted(d) && (t = next_unit(s, true, &l))) {
		char w[32];
		first_word(t, w, sizeof(w));
		if (strcmp(w, "repeat") == 0) {
			if (++depth > MAX_REPEAT_NEST && rc == 0)
				rc = dsh_error(d, "repeat blocks nested more than %d deep (line %d)", MAX_REPEAT_NEST, l);
		} else if (strcmp(w, "end") == 0) {
			const char *rest = t + strspn(t, " \t") + 3;
			rest += strspn(rest, " \t");
			if (*rest && rc == 0)
				rc = dsh_error(d, "the end at line %d takes no arguments (got '%s')", l, rest);
			if (--depth == 0) {
				free(t);
				break;
			}
		}
		if (nb == cap) {
			cap *= 2;
			struct unit *nbuf = realloc(b, cap * sizeof(*b));
			if (!nbuf) {
				free(t);
				free_units(b, nb);
				free(a);
				return -1;
			}
			b = nbuf;
		}
		b[nb].text = t;
		b[nb].line = l;
		nb++;
	}
	if (dsh_interrupted(d) && rc == 0)
		rc = dsh_error(d, "interrupted: the block is abandoned");
	if (!t && depth > 0 && rc == 0)
		rc = dsh_error(d, "repeat without matching end");
	if (rc < 0) {
		/* the error belongs to the repeat command (its line); next_unit()
		 * may have moved cur_* while reporting a bad line */
		d->cur.file = s->name;
		d->cur.line = line;
		d->cur.cmd = text;
		fail_unrun(d, "repeat", a);
		free(a);
		free_units(b, nb);
		return -1;
	}
	free(a);
	int ret = 0;
	for (uint64_t i = 0; i < n && !d->run.stop && !d->run.quit && !dsh_interrupted(d); i++) {
		if (var[0]) {
			char num[24];
			snprintf(num, sizeof(num), "%" PRIu64, i);
			if (dsh_var_set(d, var, num) < 0) {
				fail_unrun(d, "repeat", NULL);
				ret = -1;
				break;
			}
		}
		struct dsh_src bs = { .d = d, .name = s->name, .blk = b, .nblk = nb, .nul_at = -1 };
		if (run_src(d, &bs) < 0)
			ret = -1;
		if (dsh_interrupted(d)) {
			d->cur.have_err = false;
			d->cur.file = s->name;
			d->cur.line = line;
			d->cur.cmd = text;
			dsh_error(d, "interrupted after %" PRIu64 " of %" PRIu64 " iterations", i + 1, n);
			fail_unrun(d, "repeat", NULL);
			ret = -1;
			break;
		}
	}
	free_units(b, nb);
	return ret;
}

static int run_src(struct dsh *d, struct dsh_src *s)
{
	int ret = 0, line;
	char *t;
	for (;;) {
		if (d->run.stop || d->run.quit || dsh_out_of_time(d) || dsh_output_check(d))
			break;
		if (dsh_interrupted(d)) {
			/* Ctrl-C: blocks and sourced files stop; at the prompt the
			 * rest of the line is dropped and the shell goes on */
			if (!s->cb)
				break;
			free_pend(s);
			dsh_interrupt_clear();
		}
		if (s->cb)
			dsh_post_sync(d); /* the prompt: everything typed so far is done */
		if (!(t = next_unit(s, false, &line)))
			break;
		char w[32];
		first_word(t, w, sizeof(w));
		int rc;
		if (strcmp(w, "repeat") == 0) {
			if (d->opts.echo && !d->io.json)
				printf("dsh > %s\n", t);
			rc = do_repeat(d, s, t, line);
		} else {
			rc = dsh_exec(d, t, s->name, line);
		}
		if (rc < 0)
			ret = -1;
		free(t);
	}
	if (dsh_post_sync(d) < 0)
		ret = -1;
	free_pend(s);
	return ret;
}

int dsh_run_string(struct dsh *d, const char *text, const char *name)
{
	struct dsh_src s = { .d = d, .nul_at = -1, .name = name, .readln = read_str_line, .str = text };
	return run_src(d, &s);
}

int dsh_run_stream(struct dsh *d, FILE *f, const char *name)
{
	struct dsh_src s = { .d = d, .nul_at = -1, .name = name, .readln = read_file_line, .f = f };
	int rc = run_src(d, &s);
	if (!s.read_err)
		return rc;
	/* The input did not end, it broke: a failed command at the line that
	 * could not be read (-f - says "cannot read" too).  DSH_NOT_RUN when
	 * not one line was read. */
	d->cur.have_err = false;
	d->cur.file = name;
	d->cur.line = s.line + 1;
	d->cur.cmd = NULL;
	dsh_error(d, "cannot read '%s': %s", name, strerror(s.read_err));
	fail_unrun(d, "line", NULL);
	return s.line == 0 ? DSH_NOT_RUN : -1;
}

int dsh_run_reader(struct dsh *d, char *(*cb)(void *ctx, bool cont), void *ctx, const char *name)
{
	struct dsh_src s = { .d = d, .nul_at = -1, .name = name, .readln = read_cb_line, .cb = cb, .ctx = ctx };
	return run_src(d, &s);
}

int dsh_run_checked(struct dsh *d, FILE *f, const char *path, bool check_only)
{
	char *text;
	size_t len;
	if (dsh_load_script(d, path, f, &text, &len) < 0)
		return DSH_NOT_RUN;
	int nerr = dsh_check_text(d, text, len, path);
	if (nerr) {
		if (d->script.depth == 0) {
			dsh_not_run(d, path, nerr);
		} else {
			/* each is a failed object of the run (the source fails too) */
			d->run.failures += nerr;
			d->run.errors += nerr;
		}
		free(text);
		return DSH_NOT_RUN;
	}
	int rc = check_only ? 0 : dsh_run_string(d, text, path);
	free(text);
	return rc;
}

int dsh_run_file(struct dsh *d, const char *path)
{
	if (d->script.depth >= MAX_DEPTH) {
		dsh_error(d, "source: nested too deeply (%d levels)", MAX_DEPTH);
		return DSH_NOT_RUN;
	}
	FILE *f = fopen(path, "r");
	if (!f) {
		dsh_error(d, "cannot open '%s': %s", path, strerror(errno));
		return DSH_NOT_RUN;
	}
	const char *sf = d->cur.file, *sc = d->cur.cmd;
	int sl = d->cur.line;
	d->script.depth++;
	int rc = dsh_run_checked(d, f, path, false);
	d->script.depth--;
	fclose(f);
	d->cur.file = sf;
	d->cur.line = sl;
	d->cur.cmd = sc;
	if (rc == DSH_NOT_RUN)
		dsh_error(d, "%s was not run (see the errors above)", path);
	return rc;
}

int cmd_source(struct dsh *d, struct dsh_args *a)
{
	if (a->argc != 2)
		return dsh_error(d, "usage: source FILE");
	if (d->script.depth >= MAX_DEPTH)
		return dsh_error(d, "nested too deeply (%d levels)", MAX_DEPTH);
	FILE *f = fopen(a->argv[1], "r");
	if (!f)
		return dsh_error(d, "cannot open '%s': %s", a->argv[1], strerror(errno));
	fclose(f);
	/* the inner commands report themselves; keep this command's JSON object */
	struct dsh_out_saved saved;
	out_result_save(d, &saved);
	int before = d->run.failures;
	int rc = dsh_run_file(d, a->argv[1]);
	out_result_restore(d, &saved);
	if (rc == DSH_NOT_RUN)
		return -1; /* not run: unreadable, or the check found errors */
	d->cur.have_err = false;
	out_str(d, "file", NULL, a->argv[1]);
	/* failures inside were reported and counted already */
	if (d->run.failures > before) {
		dsh_error(d, "%d command%s failed in %s", d->run.failures - before,
			  d->run.failures - before == 1 ? "" : "s", a->argv[1]);
		return 1;
	}
	return 0;
}

int cmd_repeat(struct dsh *d, struct dsh_args *a)
{
	(void)a;
	return dsh_error(d, "repeat must start a line of its own block (repeat N ... end)");
}

int cmd_end(struct dsh *d, struct dsh_args *a)
{
	(void)a;
	return dsh_error(d, "end without repeat");
}
