/* Files of output named on a command line (dsh -o, --journal, --trace,
 * dsh-run --report, --junit): "-" is standard output (D-OUT-STDOUT).
 *
 * A path that names the file standard output already writes (/dev/stdout,
 * /proc/self/fd/1, the file of the shell's `>f`, the pipe of `| cat`) is
 * standard output too: opened a second time it would have its own offset
 * (a regular file) and whatever else the program prints would overwrite or
 * interleave with it.  Such an output is written through one stream, a
 * duplicate of descriptor 1 taken before the program's own printing moves
 * to standard error (out_stdout_take). */
#ifndef OUTFILE_H
#define OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

/* path is "-", or the file (not a character device: a terminal, /dev/null
 * take any number of writers) that descriptor 1 already is. */
bool out_is_stdout(const char *path);

/* Descriptor 1 duplicated (close-on-exec: no child inherits it) as a
 * stream for the data; then descriptor 1 is made standard error, so that the
 * program's messages and the children it starts no longer write into the
 * data.  NULL on failure (errno set); taken once, later calls give the
 * same stream. */
FILE *out_stdout_take(void);

#endif
