/* The programs' one handler of SIGINT, SIGTERM and SIGHUP (termsig.h):
 * it notes which came, and the program stops at its next check. */
#include "termsig.h"

static volatile sig_atomic_t caught;

static void note(int sig)
{
	caught = sig;
}

void term_signals_watch(void)
{
	term_signals_catch(note);
}

int term_signal_caught(void)
{
	return caught;
}

volatile sig_atomic_t *term_signal_flag(void)
{
	return &caught;
}
