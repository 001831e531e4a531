/* dsh: the interactive front end (GNU Readline): the "dsh > " prompt,
 * history in ~/.dsh_history (only when interactive), completion of
 * commands, primitive names, register and field names, regions and key=
 * parameters.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <readline/history.h>
#include <readline/readline.h>
#include "dsh.h"

#define HISTORY_MAX 2000

static struct dsh *g_d;
/* errno of a failed read of the terminal (EIO after a hangup): the session
 * ends there, reported as an error, not as an end of input. */
static int g_read_err;

/* Readline's input: a Ctrl-C typed at the prompt abandons the line (readline
 * gets an empty line) instead of killing the shell. */
static int getc_interruptible(FILE *f)
{
	for (;;) {
		unsigned char c;
		ssize_t n = read(fileno(f), &c, 1);
		if (n == 1)
			return c;
		if (n == 0)
			return EOF;
		if (errno != EINTR) {
			g_read_err = errno;
			return EOF;
		}
		if (dsh_sigint_pending()) {
			rl_replace_line("", 0);
			rl_point = rl_end = 0;
			fputs("^C", rl_outstream ? rl_outstream : stdout);
			return '\n';
		}
	}
}
static char **cands;
static size_t ncands, capcands;

static void cand_clear(void)
{
	for (size_t i = 0; i < ncands; i++)
		free(cands[i]);
	ncands = 0;
}

static void cand_add(const char *s)
{
	if (ncands == capcands) {
		size_t n = capcands ? capcands * 2 : 64;
		char **p = realloc(cands, n * sizeof(char *));
		if (!p)
			return;
		cands = p;
		capcands = n;
	}
	char *c = strdup(s);
	if (c)
		cands[ncands++] = c;
}

static char *gen(const char *text, int state)
{
	static size_t i, len;
	if (!state) {
		i = 0;
		len = strlen(text);
	}
	while (i < ncands) {
		const char *c = cands[i++];
		if (strncmp(c, text, len) == 0)
			return strdup(c);
	}
	return NULL;
}

static void add_regs(const char *text, unsigned block_mask, unsigned acc)
{
	const struct dnet_reg *regs = g_d->regs;
	const char *dot = strchr(text, '.');
	for (unsigned i = 0; i < g_d->nregs; i++) {
		const struct dnet_reg *r = &regs[i];
		if (!(block_mask & (1u << r->block)) || !(r->access & acc))
			continue;
		if (!dot) {
			cand_add(r->name);
			continue;
		}
		if (strncmp(text, r->name, (size_t)(dot - text)) || r->name[dot - text])
			continue;
		for (unsigned k = 0; k < r->nfields; k++) {
			char b[96];
			snprintf(b, sizeof(b), "%s.%s", r->name, r->fields[k].name);
			cand_add(b);
		}
	}
}

static void add_keys(const char *keys)
{
	if (!keys)
		return;
	char tmp[512];
	snprintf(tmp, sizeof(tmp), "%s", keys);
	char *save = NULL;
	for (char *t = strtok_r(tmp, " ", &save); t; t = strtok_r(NULL, " ", &save))
		cand_add(t);
}

static char **complete(const char *text, int start, int end)
{
	(void)end;
	rl_attempted_completion_over = 1;
	rl_completion_append_character = ' ';
	cand_clear();
	/* words before the one being completed */
	char pre[1024];
	snprintf(pre, sizeof(pre), "%.*s", start, rl_line_buffer);
	char *words[64];
	int nw = 0;
	char *save = NULL;
	for (char *t = strtok_r(pre, " \t", &save); t && nw < 64; t = strtok_r(NULL, " \t", &save))
		words[nw++] = t;
	int first = 0;
	if (nw > 0 && words[0][0] == '@')
		first = 1;
	/* a ';' starts a new command */
	for (int i = 0; i < nw; i++)
		if (strchr(words[i], ';'))
			first = i + 1;
	int idx = nw - first;
	if (idx == 0) {
		unsigned n;
		const struct dsh_cmd *c = dsh_cmds(&n);
		for (unsigned i = 0; i < n; i++) {
			cand_add(c[i].name);
			for (unsigned j = 0; j < 3 && c[i].alias[j]; j++)
				cand_add(c[i].alias[j]);
		}
		return rl_completion_matches(text, gen);
	}
	const struct dsh_cmd *c = dsh_cmd_find(words[first]);
	if (!c)
		return NULL;
	const char *name = c->name;
	if (c->flags & DSH_C_FILE) {
		rl_attempted_completion_over = 0;
		return NULL;
	}
	if (idx == 1 && (c->flags & DSH_C_PRIM)) {
		unsigned n;
		const struct dnet_otype_info *t = dnet_otypes(&n);
		for (unsigned i = 0; i < n; i++)
			cand_add(t[i].name);
		return rl_completion_matches(text, gen);
	}
	if (idx == 1 && (c->flags & DSH_C_CMD)) {
		unsigned n;
		const struct dsh_cmd *cc = dsh_cmds(&n);
		for (unsigned i = 0; i < n; i++)
			cand_add(cc[i].name);
		return rl_completion_matches(text, gen);
	}
	if (idx == 1 && (c->flags & DSH_C_REGION)) {
		static const char *const rg[] = { "ww", "pw", "llcm", "lhb", "ureg", "sreg", "sodimm" };
		for (unsigned i = 0; i < sizeof(rg) / sizeof(rg[0]); i++)
			cand_add(rg[i]);
		return rl_completion_matches(text, gen);
	}
	if (idx == 1 && (c->flags & DSH_C_UREG)) {
		add_regs(text, 1u << DNET_BLK_USER, strcmp(name, "ureg_read") == 0 ? DNET_ACC_R : DNET_ACC_W);
		return rl_completion_matches(text, gen);
	}
	if (idx == 1 && (c->flags & DSH_C_SREG)) {
		bool rd = strcmp(name, "sreg_read") == 0;
		add_regs(text, 1u << DNET_BLK_SYSTEM, rd ? DNET_ACC_R : DNET_ACC_W);
		return rl_completion_matches(text, gen);
	}
	if ((c->flags & DSH_C_REG) && (idx == 1 || strcmp(name, "decode") == 0)) {
		if (strcmp(name, "assert") == 0 || strcmp(name, "wait") == 0) {
			cand_add("llcm");
			cand_add("pw");
			cand_add("lhb");
			cand_add("ww");
			cand_add("sodimm");
			cand_add("last");
		}
		if (strcmp(name, "decode") == 0 && idx == 1) {
			cand_add("req");
			cand_add("hdr");
			cand_add("status");
			cand_add("lh");
		}
		if (idx == 1)
			add_regs(text, 3u, DNET_ACC_R | DNET_ACC_W);
		if (strchr(text, '.'))
			rl_completion_append_character = ' ';
		return ncands ? rl_completion_matches(text, gen) : NULL;
	}
	if (c->keys) {
		add_keys(c->keys);
		if (strcmp(name, "sreg_write") == 0 && !(nw > first + 1 && strcmp(words[first + 1], "amt") == 0))
			cand_clear();
		rl_completion_append_character = '\0';
		return rl_completion_matches(text, gen);
	}
	return NULL;
}

/* The prompt names the node when it is not the one the shell started on
 * (transcripts with -x keep the thesis's "dsh > "). */
static const char *prompt(bool cont)
{
	static char p[32];
	if (cont)
		return "... > ";
	unsigned n = g_d && g_d->dev ? dnet_node(g_d->dev) : 0;
	if (!n || n == g_d->home_node)
		return "dsh > ";
	snprintf(p, sizeof p, "dsh@%u > ", n);
	return p;
}

/* One line on start: what this is, what it drives, how to get help. */
static void banner(struct dsh *d)
{
	unsigned caps = d->caps, n = dnet_node_count(d->dev);
	const char *what = (caps & DNET_CAP_VIRTUAL_TIME) && (caps & DNET_CAP_REMOTE)
				   ? "emulator in virtual time, through dnetd"
			   : (caps & DNET_CAP_VIRTUAL_TIME) ? "embedded emulator in virtual time"
			   : (caps & DNET_CAP_REMOTE) ? "through dnetd"
			   : (caps & DNET_CAP_REAL_HW) ? "real hardware" : "mapped window";
	printf("dsh %s: DIMMnet-2 shell on %s (%s; %u node%s, on node %u, WID %u). "
	       "'help' lists the commands, Ctrl-D quits.\n",
	       DSH_VERSION, dnet_dev_spec(d->dev), what, n, n == 1 ? "" : "s", dnet_node(d->dev), d->wid);
	fflush(stdout);
}

/* Under a parent that shares our process group (make run), a Ctrl-C at the
 * prompt would also reach the parent, which then fails once we exit: take
 * the terminal in a process group of our own, and give it back at the end. */
static pid_t g_old_fg = -1;

static void own_terminal(void)
{
	if (getpgrp() == getpid() || !isatty(STDIN_FILENO))
		return;
	pid_t fg = tcgetpgrp(STDIN_FILENO);
	if (fg != getpgrp())
		return;
	signal(SIGTTOU, SIG_IGN);
	if (setpgid(0, 0) == 0 && tcsetpgrp(STDIN_FILENO, getpid()) == 0)
		g_old_fg = fg;
}

static void give_back_terminal(void)
{
	if (g_old_fg > 0)
		tcsetpgrp(STDIN_FILENO, g_old_fg);
	g_old_fg = -1;
}

static char *read_interactive(void *ctx, bool cont)
{
	(void)ctx;
	dsh_interrupt_clear();
	char *l = readline(prompt(cont));
	if (g_read_err) {
		free(l); /* what was typed before the error is not run */
		return NULL;
	}
	if (!l)
		return NULL;
	const char *p = l;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p) {
		HIST_ENTRY *h = history_length > 0 ? history_get(history_base + history_length - 1) : NULL;
		if (!h || strcmp(h->line, l) != 0)
			add_history(l);
	}
	return l;
}

int dsh_interactive(struct dsh *d)
{
	g_d = d;
	char path[4096] = "";
	const char *home = getenv("HOME");
	if (home && *home)
		snprintf(path, sizeof(path), "%s/.dsh_history", home);
	rl_readline_name = "dsh";
	rl_attempted_completion_function = complete;
	/* Ctrl-C: our handler only sets a flag (no SA_RESTART, so that a read
	 * returns EINTR); readline must not re-raise the signal. */
	struct sigaction sa, old_sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = dsh_on_sigint;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_sa);
	rl_catch_signals = 0;
	rl_getc_function = getc_interruptible;
	rl_basic_word_break_characters = " \t;";
	using_history();
	stifle_history(HISTORY_MAX);
	if (path[0])
		read_history(path);
	own_terminal();
	banner(d);
	g_read_err = 0;
	int rc = dsh_run_reader(d, read_interactive, NULL, NULL);
	give_back_terminal();
	if (g_read_err) {
		d->have_err = false;
		d->cur_file = NULL;
		dsh_error(d, "cannot read the terminal: %s", strerror(g_read_err));
		dsh_report_at(NULL, 0, "input", d->errmsg);
		d->failures++;
		d->errors++;
		rc = -1;
	}
	if (!d->quit)
		putchar('\n');
	if (path[0])
		write_history(path);
	clear_history();
	sigaction(SIGINT, &old_sa, NULL);
	cand_clear();
	free(cands);
	cands = NULL;
	capcands = 0;
	return rc;
}
