/* The programs' (dsh, dsh-run, dnetd) --list-options: every option of the
 * table getopt_long reads, one a line, for the shell's completion
 * (scripts/service/dsh.bash-completion).  Printed from that table and the
 * short-option string, so the list cannot drift from what the program
 * accepts.  Header-only, compiled into each program. */
#ifndef OPTLIST_H
#define OPTLIST_H

#include <getopt.h>
#include <stdio.h>

/* "-b" for each short option of optstring (a leading ':' and the ':' of an
 * argument skipped), then "--NAME" for each long one. */
static inline void opt_list(FILE *f, const char *optstring, const struct option *lo)
{
	for (const char *p = optstring; *p; p++)
		if (*p != ':' && *p != '+' && *p != '-')
			fprintf(f, "-%c\n", *p);
	for (; lo->name; lo++)
		fprintf(f, "--%s\n", lo->name);
}

#endif
