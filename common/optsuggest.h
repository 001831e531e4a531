/* The programs' (dsh, dsh-run, dnetd) message for an unknown option, with
 * "did you mean" from their long-option table (libdnet's dnet_suggest). */
#ifndef OPTSUGGEST_H
#define OPTSUGGEST_H

#include <getopt.h>
#include <stddef.h>

/* "unknown option 'ARG'", and " (did you mean '--NAME'?)" when a long
 * option of lo is near the name in ARG ("--jsno", "--jsno=1", "-json").
 * Returns buf. */
const char *opt_unknown_msg(const char *arg, const struct option *lo, char *buf, size_t n);

/* The argument getopt_long was reading when it returned '?': before is
 * optind before the call (an unknown letter inside "-json" leaves optind on
 * that argument; at its end, or for a long option, optind has moved past). */
static inline const char *opt_seen(int argc, char **argv, int before)
{
	if (optind > before || optind >= argc)
		return argv[optind - 1];
	return argv[optind];
}

#endif
