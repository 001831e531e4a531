/* dsh: the signals and the time limit that stop a run -- Ctrl-C at the
 * prompt, SIGINT/SIGTERM/SIGHUP in a batch run, --max-time -- read by every
 * wait (script.c, flags.c, ranks.c, ...) through dsh_interrupted, and by
 * the run's summary (jsonl.c). */
#include <errno.h>
#include <termios.h>
#include <unistd.h>
#include "dsh.h"
#include "sigtime.h"

/* Ctrl-C typed in an interactive session (the handler interactive.c installs). */
static volatile sig_atomic_t g_sigint;

void dsh_on_sigint(int sig)
{
	(void)sig;
	g_sigint = 1;
	/* A command running: the terminal echoed "^C" (ECHOCTL) where the
	 * cursor was, and the command's "interrupted" message would follow on
	 * that line (^Cdsh: ...).  A line end first.  At the prompt readline
	 * has echo off and prints "^C" itself (interactive.c).  tcgetattr and
	 * write are async-signal-safe. */
	struct termios t;
	int e = errno;
	if (tcgetattr(STDERR_FILENO, &t) == 0 && (t.c_lflag & ECHO) && (t.c_lflag & ECHOCTL)) {
		ssize_t w = write(STDERR_FILENO, "\n", 1);
		(void)w;
	}
	errno = e;
}

bool dsh_sigint_pending(void)
{
	return g_sigint != 0;
}

void dsh_interrupt_clear(void)
{
	g_sigint = 0;
}

/* A batch run ended by SIGINT/SIGTERM/SIGHUP: the running command stops at
 * its next check, the summary is written, then the signal is re-raised so
 * the exit status is 128 + N as before. */
void dsh_batch_signals(void)
{
	term_signals_watch();
}

int dsh_term_signal(void)
{
	return term_signal_caught();
}

/* --max-time: the run stops at d->run.deadline_ns, a CLOCK_MONOTONIC instant (0: none). */
void dsh_set_max_time(struct dsh *d, uint64_t ns)
{
	d->run.deadline_ns = ns ? dsh_mono_ns() + ns : 0;
}

bool dsh_out_of_time(const struct dsh *d)
{
	return d->run.deadline_ns && dsh_mono_ns() >= d->run.deadline_ns;
}

bool dsh_interrupted(struct dsh *d)
{
	return (d->opts.interactive && g_sigint) || term_signal_caught() || dsh_out_of_time(d);
}

bool dsh_stop_hook(void *ctx)
{
	return dsh_interrupted(ctx);
}
