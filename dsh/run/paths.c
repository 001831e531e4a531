/* dsh-run: the files the reports go to (D-REPORT-PATHS).
 *
 * --report and --junit must name two files: one report written over the
 * other would leave a CI job a single, arbitrary one.  And a run that exits
 * 2 on its command line leaves no report of an earlier run behind at the
 * paths it was given, which a dashboard would read as this run's result.
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "run.h"
#include "../../common/outfile.h"

/* p's directory resolved (symbolic links followed) with p's last name on
 * it; the lexically normal absolute path when the directory does not
 * exist.  malloc'd, NULL out of memory. */
static char *where(const char *p)
{
	char *d = strdup(p), *b = strdup(p), *out = NULL, real[PATH_MAX];
	if (d && b) {
		const char *dir = dirname(d), *base = basename(b);
		if (realpath(dir, real) && strcmp(base, "/") && strcmp(base, ".") && strcmp(base, "..")) {
			if (asprintf(&out, "%s/%s", real, base) < 0)
				out = NULL;
		} else
			out = run_abs_path(p);
	}
	free(d);
	free(b);
	return out;
}

bool report_paths_same(const char *a, const char *b)
{
	if (out_is_stdout(a) && out_is_stdout(b)) /* "-" and /dev/stdout: one stream */
		return true;
	struct stat sa, sb;
	bool ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
	if (ea && eb) /* a character device (/dev/null) takes both without loss */
		return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino && !S_ISCHR(sa.st_mode);
	if (ea != eb)
		return false;
	char *wa = where(a), *wb = where(b);
	bool same = wa && wb ? strcmp(wa, wb) == 0 : strcmp(a, b) == 0;
	free(wa);
	free(wb);
	return same;
}

/* A report file of an earlier run at path, removed and said; devices,
 * pipes and directories are left alone (nothing stale can be in them). */
static void stale_remove(const char *kind, const char *path)
{
	struct stat st;
	if (!path || out_is_stdout(path) || lstat(path, &st) != 0 || !(S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)))
		return;
	if (unlink(path) == 0)
		fprintf(stderr, "dsh-run: removed the %s report '%s' of an earlier run: this run did not start\n",
			kind, path);
	else
		fprintf(stderr, "dsh-run: cannot remove the %s report '%s' of an earlier run: %s\n", kind, path,
			strerror(errno));
}

void reports_remove(int argc, char **argv, const char *optstring, const struct option *lo, int o_report,
		    int o_junit)
{
	/* the command line read again for --report and --junit alone: it may
	 * have been refused before getopt reached them */
	const char *report = NULL, *junit = NULL;
	int o;
	optind = 0; /* glibc: start afresh */
	opterr = 0;
	while ((o = getopt_long(argc, argv, optstring, lo, NULL)) != -1) {
		if (o == o_report)
			report = optarg;
		else if (o == o_junit)
			junit = optarg;
	}
	stale_remove("CTRF", report);
	if (junit && (!report || strcmp(report, junit)))
		stale_remove("JUnit", junit);
}
