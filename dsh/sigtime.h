/* dsh and dsh-run: the monotonic clock and the catching of the signals that
 * end a run (SIGINT, SIGTERM, SIGHUP: common/termsig.h, dnetd's too), one
 * definition each for both programs (header-only: they share no object
 * file). */
#ifndef DSH_SIGTIME_H
#define DSH_SIGTIME_H

#include <stdint.h>
#include "dnet/device.h"
#include "../common/termsig.h"

/* CLOCK_MONOTONIC in ns: deadlines and elapsed real time. */
static inline uint64_t dsh_mono_ns(void)
{
	return dnet_mono_ns(); /* libdnet's one clock */
}

#endif
