/* The programs' (dsh, dsh-run, dnetd) handling of the signals that end a
 * run or a daemon -- SIGINT, SIGTERM, SIGHUP -- defined once: this header
 * and termsig.c, compiled into each program.  Not part of libdnet: the
 * library never touches signals. */
#ifndef TERMSIG_H
#define TERMSIG_H

#include <signal.h>
#include <stdbool.h>
#include <string.h>

/* SIGINT, SIGTERM and SIGHUP go to h (no SA_RESTART: a blocking call
 * returns EINTR, so the program sees the signal at its next check). */
static inline void term_signals_catch(void (*h)(int))
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = h;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* In a child about to exec: the three end it again (the parent's handlers
 * are not the child's). */
static inline void term_signals_default(void)
{
	term_signals_catch(SIG_DFL);
}

/* The three added to (or taken out of) a signal set. */
static inline void term_signals_set(sigset_t *set, bool add)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	for (unsigned i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		(add ? sigaddset : sigdelset)(set, sigs[i]);
}

/* termsig.c: the three noted as they come (the last one's number), for a
 * program that stops at its next check; the flag itself for a loop that
 * waits on it (dnetd's ppoll). */
void term_signals_watch(void);
int term_signal_caught(void);
volatile sig_atomic_t *term_signal_flag(void);

/* End this process by sig, caught before, as if it had not been caught:
 * the parent sees the signal (exit status 128 + sig). */
static inline void term_signal_reraise(int sig)
{
	signal(sig, SIG_DFL);
	raise(sig);
}

#endif
