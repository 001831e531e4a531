/* dsh-run: every script checked once, before any rank starts (D-RUN-CHECK).
 *
 * A script that fails dsh's check (a syntax error, an unknown command, a
 * sourced file that does not check) would fail on every rank the same way:
 * with -n 16 the same message 16 times, after the cluster was started and
 * reset for it.  Each script is checked here instead, by the dsh the ranks
 * run, as `dsh -n` checks it (the files it sources too, D-CHECK-SOURCES),
 * on an emulator of one node: the check touches no device and does not
 * depend on the rank.  Its messages are shown once and the run stops with
 * exit status 2, every test reported not run with the reason.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "run.h"
#include "../../common/termsig.h"

/* dsh's exit status for `dsh -n SCRIPT`, its stderr in errf; -1 when it
 * could not be run. */
static int check_one(const struct run *r, const char *script, const char *errf)
{
	char *argv[] = { (char *)r->dsh, (char *)"--norc", (char *)"-n", (char *)"-b", (char *)"sim:nodes=1",
			 (char *)"-f", (char *)script, NULL };
	pid_t p = fork();
	if (p < 0)
		return -1;
	if (p == 0) {
		term_signals_default();
		int in = open("/dev/null", O_RDWR), err = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (in < 0 || err < 0 || dup2(in, 0) < 0 || dup2(in, 1) < 0 || dup2(err, 2) < 0)
			_exit(126);
		unsetenv("DSH_BACKEND");
		execvp(argv[0], argv);
		fprintf(stderr, "dsh-run: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	int st;
	while (waitpid(p, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* dsh's messages of the check, as it gave them, on our stderr. */
static void show(const char *errf)
{
	FILE *f = fopen(errf, "r");
	char line[4096];
	while (f && fgets(line, sizeof line, f))
		fputs(line, stderr);
	if (f)
		fclose(f);
}

int run_scripts_check(struct run *r, char *why, size_t wn)
{
	char errf[4200];
	snprintf(errf, sizeof errf, "%s/check.err", r->tmp);
	unsigned bad = 0;
	const char *first = NULL;
	for (unsigned s = 0; s < r->nscripts && !run_signal_caught(); s++) {
		/* a script given twice is checked once */
		bool seen = false;
		for (unsigned t = 0; t < s && !seen; t++)
			seen = strcmp(r->scripts[t], r->scripts[s]) == 0;
		if (seen)
			continue;
		int rc = check_one(r, r->scripts[s], errf);
		if (rc == 0)
			continue;
		show(errf);
		if (rc < 0 || rc >= 126)
			fprintf(stderr, "dsh-run: %s could not be checked with %s (exit status %d)\n", r->scripts[s],
				r->dsh, rc);
		if (!bad++)
			first = r->scripts[s];
	}
	unlink(errf);
	if (!bad)
		return 0;
	if (bad == 1)
		snprintf(why, wn, "%.3000s does not pass dsh's check (dsh -n): no rank was started", first);
	else
		snprintf(why, wn, "%u scripts (the first %.3000s) do not pass dsh's check (dsh -n): no rank was started",
			 bad, first);
	fprintf(stderr, "dsh-run: %s\n", why);
	return -1;
}
