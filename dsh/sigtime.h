/* dsh and dsh-run: the monotonic clock and the catching of the signals that
 * end a run (SIGINT, SIGTERM, SIGHUP), one definition each for both
 * programs (header-only: they share no object file). */
#ifndef DSH_SIGTIME_H
#define DSH_SIGTIME_H

#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include "dnet/device.h"

/* CLOCK_MONOTONIC in ns: deadlines and elapsed real time. */
static inline uint64_t dsh_mono_ns(void)
{
	return dnet_mono_ns(); /* libdnet's one clock */
}

/* SIGINT, SIGTERM and SIGHUP go to h (no SA_RESTART: a blocking call
 * returns EINTR, so the program sees the signal at its next check). */
static inline void dsh_catch_term(void (*h)(int))
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = h;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

#endif
