/* dsh: the interactive front end (GNU Readline): the "dsh > " prompt,
 * history in ~/.dsh_history (only when interactive), completion of every
 * command's words as its table entry says (complete.c).
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
/* Completion: the candidates come from the command table (complete.c). */
static struct dsh_completion g_comp;

static char *gen(const char *text, int state)
{
	static size_t i;
	(void)text; /* g_comp's candidates all start with it */
	if (!state)
		i = 0;
	return i < g_comp.n ? strdup(g_comp.v[i++]) : NULL;
}

static char **complete(const char *text, int start, int end)
{
	(void)start;
	(void)text;
	dsh_completion_free(&g_comp);
	dsh_complete(g_d, rl_line_buffer, (size_t)end, &g_comp);
	rl_attempted_completion_over = !g_comp.files;
	rl_completion_append_character = g_comp.no_space ? '\0' : ' ';
	if (g_comp.files && !g_comp.n)
		return NULL; /* readline's file names */
	return g_comp.n ? rl_completion_matches(text, gen) : NULL;
}

/* The prompt names the node when it is not the one the shell started on
 * (transcripts with -x keep the thesis's "dsh > "). */
static const char *prompt(bool cont)
{
	static char p[32];
	if (cont)
		return "... > ";
	unsigned n = g_d && g_d->dev ? dnet_node(g_d->dev) : 0;
	if (!n || n == g_d->opts.home_node)
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
	       DSH_VERSION, dnet_dev_spec(d->dev), what, n, n == 1 ? "" : "s", dnet_node(d->dev), d->opts.wid);
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
		d->cur.have_err = false;
		d->cur.file = NULL;
		dsh_error(d, "cannot read the terminal: %s", strerror(g_read_err));
		dsh_report_at(NULL, 0, "input", d->cur.errmsg);
		d->run.failures++;
		d->run.errors++;
		rc = -1;
	}
	if (!d->run.quit)
		putchar('\n');
	if (path[0])
		write_history(path);
	clear_history();
	sigaction(SIGINT, &old_sa, NULL);
	dsh_completion_free(&g_comp);
	return rc;
}
