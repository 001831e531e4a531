/* dsh-run: the reports.
 *
 * CTRF (Common Test Report Format, ctrf.io), written with libcjson: one test
 * per (rank, script); the DIMMnet detail (run metadata, per-command results,
 * every assertion and failure with file:line) goes into the `extra` fields
 * CTRF provides for extensions, so the document stays valid against CTRF's
 * schema.  tests/schemas/dsh-run-ctrf.schema.json describes CTRF's shape and
 * the extension; docs/reports.md documents it.
 *
 * JUnit XML as Jenkins and GitLab read it: <testsuites>, one <testsuite> per
 * script, one <testcase> per rank, <failure> with the first failure and
 * every other one in its text (<error>, <skipped> for the other statuses).
 *
 * Both are built in memory and written by write_report, every write checked.
 * Text dsh-run did not make (a rank's standard error, paths, messages) cannot
 * make a report unreadable: excerpts are cut between characters, and bytes
 * that are not UTF-8 become U+FFFD.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include "dnet/dnet.h"
#include "run.h"
#include "report.h"
#include "../../common/utf8.h"

#define TOOL_VERSION "0.1.0"
#define TRACE_ERR_MAX 2048      /* bytes of a rank's stderr in a CTRF trace */
#define SYSTEM_ERR_MAX 4096     /* ... and in a JUnit <system-err> */
#define CMD_RESULTS_MAX 16      /* command_results of a failed test */
#define CMD_TAIL 4              /* ... of them the last commands it ran */
#define FAILURES_MAX 8          /* failures[] and trace lines of a test */

static const char *status_name(enum status s)
{
	switch (s) {
	case ST_PASSED: return "passed";
	case ST_FAILED: return "failed";
	case ST_SKIPPED: return "skipped";
	default: return "other";
	}
}

static const char *launcher_name(enum launcher l)
{
	static const char *const n[] = { "local", "mpirun", "srun", "pdsh" };
	return n[l];
}

static void iso8601(uint64_t ms, char *b, size_t n)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(b, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* ---- text ---------------------------------------------------------------------------- */

/* s as text every JSON and XML 1.0 reader accepts: a byte that does not
 * start a valid UTF-8 character, and U+FFFE/U+FFFF (not XML characters),
 * become U+FFFD.  Applied to a whole report: its structure is ASCII, so
 * only the text in it changes. */
char *report_utf8_valid(const char *s, size_t *len)
{
	const unsigned char *p = (const unsigned char *)s;
	char *o = malloc(3 * strlen(s) + 1); /* a byte becomes at most 3 */
	size_t n = 0;
	while (o && *p) {
		int l = utf8_len(p);
		bool nonchar = l == 3 && p[0] == 0xef && p[1] == 0xbf && p[2] >= 0xbe;
		if (l && !nonchar) {
			memcpy(o + n, p, (size_t)l);
			n += (size_t)l;
		} else {
			memcpy(o + n, REPLACEMENT, 3);
			n += 3;
		}
		p += l ? l : 1;
	}
	if (o)
		o[n] = 0;
	*len = n;
	return o;
}

/* The start of a rank's standard error, at most max bytes of it, cut before
 * the first character that would cross max, and what was left out said
 * ("... (N bytes more)").  A NUL byte becomes U+FFFD: the excerpt is a C
 * string.  NULL when there is no such file. */
static char *excerpt(const char *path, size_t max)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	struct stat st;
	size_t size = fstat(fileno(f), &st) == 0 && st.st_size > 0 ? (size_t)st.st_size : 0;
	/* 3 bytes beyond max: the end of a character that starts before it */
	unsigned char *b = malloc(max + 4);
	size_t n = b ? fread(b, 1, max + 3, f) : 0;
	fclose(f);
	if (!b)
		return NULL;
	b[n] = 0;
	size_t cut = 0, nuls = 0;
	while (cut < n) {
		int l = utf8_len(b + cut);
		size_t step = l ? (size_t)l : 1; /* a stray byte is cut alone; write_report replaces it */
		if (cut + step > max)
			break;
		nuls += b[cut] == 0;
		cut += step;
	}
	size_t more = (size > n ? size : n) - cut;
	char *o = malloc(cut + 2 * nuls + 64);
	if (o) {
		size_t k = 0;
		for (size_t i = 0; i < cut; i++) {
			if (b[i]) {
				o[k++] = (char)b[i];
			} else {
				memcpy(o + k, REPLACEMENT, 3);
				k += 3;
			}
		}
		o[k] = 0;
		if (more)
			snprintf(o + k, 64, "%s... (%zu byte%s more)\n", k && o[k - 1] != '\n' ? "\n" : "", more,
				 more == 1 ? "" : "s");
	}
	free(b);
	return o;
}

char *run_excerpt(const char *path, size_t max)
{
	return excerpt(path, max);
}

/* ---- tests: names and places --------------------------------------------------------- */

/* path made absolute (from the working directory) and lexically normal: no
 * ".", "..", or repeated "/".  Symbolic links are not followed: names stay
 * the ones the user gave. */
char *run_abs_path(const char *p)
{
	char cwd[4096] = "";
	if (p[0] != '/' && !getcwd(cwd, sizeof cwd))
		cwd[0] = 0;
	size_t n = strlen(cwd) + strlen(p) + 2;
	char *in = malloc(n), *out = malloc(n);
	if (!in || !out) {
		free(in);
		free(out);
		return NULL;
	}
	snprintf(in, n, "%s/%s", cwd, p);
	size_t o = 0;
	char *save = NULL;
	for (char *c = strtok_r(in, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		if (!strcmp(c, "."))
			continue;
		if (!strcmp(c, "..")) {
			while (o > 0 && out[--o] != '/')
				;
			continue;
		}
		out[o++] = '/';
		memcpy(out + o, c, strlen(c));
		o += strlen(c);
	}
	if (o == 0) /* "/" itself */
		out[o++] = '/';
	out[o] = 0;
	free(in);
	return out;
}

/* The length of the directory ("/x/y/") every one of n absolute paths is in. */
static size_t common_dir(char *const *abs, unsigned n)
{
	size_t len = (size_t)(strrchr(abs[0], '/') - abs[0]) + 1;
	for (unsigned i = 1; i < n; i++) {
		size_t k = 0;
		while (k < len && abs[i][k] == abs[0][k])
			k++;
		while (k > 0 && abs[0][k - 1] != '/') /* back to a whole directory */
			k--;
		len = k;
	}
	return len;
}

void report_names_free(char **names, unsigned n)
{
	for (unsigned s = 0; names && s < n; s++)
		free(names[s]);
	free(names);
}

/* Each script's name in the reports: its path below the scripts' common
 * directory, so that a/t.dsh and b/t.dsh stay apart (a single script is its
 * base name); a script given again is "t.dsh #2".  NULL: out of memory. */
char **report_script_names(const struct run *r)
{
	unsigned n = r->nscripts;
	char **abs = calloc(n, sizeof *abs), **names = calloc(n, sizeof *names);
	bool ok = abs && names;
	for (unsigned s = 0; ok && s < n; s++)
		ok = (abs[s] = run_abs_path(r->scripts[s])) != NULL;
	size_t dir = ok ? common_dir(abs, n) : 0;
	for (unsigned s = 0; ok && s < n; s++) {
		unsigned again = 1;
		for (unsigned e = 0; e < s; e++)
			again += !strcmp(abs[e], abs[s]);
		if (again > 1)
			ok = asprintf(&names[s], "%s #%u", abs[s] + dir, again) >= 0;
		else
			ok = (names[s] = strdup(abs[s] + dir)) != NULL;
		if (!ok)
			names[s] = NULL;
	}
	report_names_free(abs, abs ? n : 0);
	if (!ok) {
		report_names_free(names, names ? n : 0);
		return NULL;
	}
	return names;
}

/* A test's name: "SCRIPT-NAME [rank R]", the same in both reports. */
static char *test_name(const char *script_name, unsigned rank)
{
	char *s;
	return asprintf(&s, "%s [rank %u]", script_name, rank) >= 0 ? s : NULL;
}

/* Where a test failed: the file and line of its first failed object, both
 * from that object (an assert in a sourced file is at that file's line; a
 * failure of no line, such as --max-time, at line 0 of the script); line 1
 * of the script when no object failed (passed, killed, timed out). */
static void test_where(const struct result *t, const char **file, int *line)
{
	*file = t->nfail ? t->fail[0].file : t->script;
	*line = t->nfail ? t->fail[0].line : 1;
	for (unsigned i = 0; t->timed_out && i < t->nfail; i++)
		if (strstr(t->fail[i].message, "interrupted")) { /* what it was running (result.c) */
			*file = t->fail[i].file;
			*line = t->fail[i].line;
			return;
		}
	if (!t->nfail && t->timed_out && t->ncmds && t->last_file[0]) {
		*file = t->last_file; /* the last command it finished (result.c) */
		*line = t->cmds[t->ncmds - 1].line;
	}
}

/* ---- in memory, then one checked write ------------------------------------------------- */

struct mem {
	FILE *f;
	char *buf;
	size_t len;
};

static bool mem_open(struct mem *m)
{
	m->buf = NULL;
	m->len = 0;
	m->f = open_memstream(&m->buf, &m->len);
	return m->f != NULL;
}

/* The text written to m, or NULL if a write to it failed (out of memory):
 * the error flag is sticky, so this one check covers every fprintf. */
static char *mem_close(struct mem *m)
{
	bool bad = ferror(m->f) != 0;
	bad |= fclose(m->f) != 0;
	if (bad) {
		free(m->buf);
		return NULL;
	}
	return m->buf;
}

/* Write a report (text NULL: building it ran out of memory) to path, or to
 * the stream to (standard output taken whole, D-OUT-STDOUT) if not NULL.
 * Any failure is named with the file and the error; the caller goes on with
 * the other report and main makes the exit status 2. */
static int write_report(const char *kind, const char *path, const char *text, FILE *to)
{
	size_t len = 0;
	char *clean = text ? report_utf8_valid(text, &len) : NULL;
	int err = clean ? 0 : ENOMEM;
	FILE *f = clean ? (to ? to : fopen(path, "w")) : NULL;
	if (clean && !f)
		err = errno;
	if (f) {
		errno = 0;
		if (fwrite(clean, 1, len, f) != len)
			err = errno ? errno : EIO;
		if (fclose(f) != 0 && !err) /* the buffered rest: a full disk shows here */
			err = errno;
	}
	free(clean);
	if (err) {
		fprintf(stderr, "dsh-run: cannot write the %s report '%s'%s: %s\n", kind, path,
			to ? " (standard output)" : "", strerror(err));
		return -1;
	}
	return 0;
}

/* Every failed object of a test, "FILE:LINE: command: message" a line. */
static char *failure_text(const struct result *t)
{
	struct mem m;
	if (!mem_open(&m))
		return NULL;
	for (unsigned i = 0; i < t->nfail && i < FAILURES_MAX; i++)
		fprintf(m.f, "%s:%d: %s: %s\n", t->fail[i].file, t->fail[i].line, t->fail[i].cmd,
			t->fail[i].message);
	if (t->nfail > FAILURES_MAX) /* D-REPORT-SIZE */
		fprintf(m.f, "... and %u more failures\n", t->nfail - FAILURES_MAX);
	return mem_close(&m);
}

/* ---- CTRF ----------------------------------------------------------------------------- */

static cJSON *run_extra(const struct run *r)
{
	cJSON *x = cJSON_CreateObject();
	cJSON_AddStringToObject(x, "schema", "dsh-run/1");
	cJSON_AddStringToObject(x, "tool_version", TOOL_VERSION);
	cJSON_AddStringToObject(x, "libdnet_version", dnet_version());
	cJSON_AddStringToObject(x, "backend", r->backend ? r->backend_shown
					      : r->table ? "node table" : "sim (private dnetd)");
	cJSON_AddNumberToObject(x, "ranks", r->n);
	cJSON_AddStringToObject(x, "launcher", launcher_name(r->launcher));
	cJSON_AddStringToObject(x, "command_line", r->cmdline);
	cJSON_AddNumberToObject(x, "timeout_ms", (double)r->timeout_ms);
	cJSON_AddStringToObject(x, "isolation", run_isolation(r)); /* isolate.c, D-RUN-STATE */
	cJSON *nodes = cJSON_AddArrayToObject(x, "nodes");
	for (unsigned k = 0; k < r->n; k++) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "rank", k);
		cJSON_AddNumberToObject(o, "clid", r->table ? r->table[k].clid : k + 1);
		cJSON_AddNumberToObject(o, "wid", r->table ? r->table[k].wid : 0);
		if (r->table) {
			cJSON_AddStringToObject(o, "host", r->table[k].host);
			cJSON_AddStringToObject(o, "backend", r->table[k].backend[0] ? r->table[k].shown
										 : "sim (private dnetd)");
			if (r->table[k].has_pgid)
				cJSON_AddNumberToObject(o, "pgid", r->table[k].pgid);
		}
		cJSON_AddItemToArray(nodes, o);
	}
	cJSON *sc = cJSON_AddArrayToObject(x, "scripts");
	for (unsigned s = 0; s < r->nscripts; s++)
		cJSON_AddItemToArray(sc, cJSON_CreateString(r->scripts[s]));
	if (r->signal)
		cJSON_AddNumberToObject(x, "signal", r->signal);
	return x;
}

/* The trace of a test that did not pass: every failure with file:line, then
 * the start of the rank's standard error. */
static char *trace_of(const struct result *t)
{
	struct mem m;
	if (!mem_open(&m))
		return NULL;
	char *ft = failure_text(t), *err = excerpt(t->err_path, TRACE_ERR_MAX);
	fputs(ft ? ft : "", m.f);
	if (err && *err)
		fprintf(m.f, "-- stderr of rank %u --\n%s", t->rank, err);
	free(ft);
	free(err);
	/* a rank that did not finish: what its launcher said too */
	char *lerr = !t->have_summary && t->launcher_err[0] ? excerpt(t->launcher_err, TRACE_ERR_MAX) : NULL;
	if (lerr && *lerr)
		fprintf(m.f, "-- stderr of the launcher --\n%s", lerr);
	free(lerr);
	return mem_close(&m);
}

static cJSON *test_of(const struct result *t, const char *script_name)
{
	cJSON *o = cJSON_CreateObject();
	char *name = test_name(script_name, t->rank);
	cJSON_AddStringToObject(o, "name", name ? name : script_name);
	free(name);
	cJSON_AddStringToObject(o, "status", status_name(t->status));
	uint64_t dur = t->stop_ms > t->start_ms ? t->stop_ms - t->start_ms : 0;
	cJSON_AddNumberToObject(o, "duration", (double)dur);
	cJSON_AddNumberToObject(o, "start", (double)t->start_ms);
	cJSON_AddNumberToObject(o, "stop", (double)(t->stop_ms ? t->stop_ms : t->start_ms));
	cJSON *suite = cJSON_AddArrayToObject(o, "suite");
	cJSON_AddItemToArray(suite, cJSON_CreateString(script_name));
	const char *file;
	int line;
	test_where(t, &file, &line);
	cJSON_AddStringToObject(o, "filePath", file);
	cJSON_AddNumberToObject(o, "line", line);
	char thr[32];
	snprintf(thr, sizeof thr, "rank %u", t->rank);
	cJSON_AddStringToObject(o, "threadId", thr);
	if (t->status != ST_PASSED) {
		cJSON_AddStringToObject(o, "message", t->message);
		char *tr = trace_of(t);
		cJSON_AddStringToObject(o, "trace", tr ? tr : "(out of memory for the trace)");
		free(tr);
	}
	cJSON *x = cJSON_AddObjectToObject(o, "extra");
	cJSON_AddNumberToObject(x, "rank", t->rank);
	if (t->ran_on[0]) /* where it ran (hosts.c, D-RUN-HOSTS) */
		cJSON_AddStringToObject(x, "host", t->ran_on);
	cJSON_AddNumberToObject(x, "exit_code", t->exit_code);
	cJSON_AddBoolToObject(x, "timed_out", t->timed_out);
	cJSON_AddBoolToObject(x, "finished", t->have_summary);
	cJSON_AddNumberToObject(x, "assertions_passed", t->passed);
	cJSON_AddNumberToObject(x, "assertions_failed", t->failed);
	cJSON_AddNumberToObject(x, "errors", t->errors);
	cJSON_AddNumberToObject(x, "commands", t->commands);
	if (t->nfail > FAILURES_MAX)
		cJSON_AddNumberToObject(x, "failures_omitted", t->nfail - FAILURES_MAX);
	cJSON *fa = cJSON_AddArrayToObject(x, "failures");
	for (unsigned i = 0; i < t->nfail && i < FAILURES_MAX; i++) {
		cJSON *f = cJSON_CreateObject();
		cJSON_AddStringToObject(f, "file", t->fail[i].file);
		cJSON_AddNumberToObject(f, "line", t->fail[i].line);
		cJSON_AddStringToObject(f, "command", t->fail[i].cmd);
		cJSON_AddStringToObject(f, "message", t->fail[i].message);
		cJSON_AddItemToArray(fa, f);
	}
	/* D-REPORT-SIZE: a passed test carries its counts only; a failed one its
	 * failed commands and the last ones before it ended, at most
	 * CMD_RESULTS_MAX, and how many were left out */
	cJSON *ca = cJSON_AddArrayToObject(x, "command_results");
	unsigned kept = 0, tail = t->ncmds > CMD_TAIL ? t->ncmds - CMD_TAIL : 0;
	for (unsigned i = 0; t->status != ST_PASSED && i < t->ncmds && kept < CMD_RESULTS_MAX; i++) {
		if (t->cmds[i].ok && i < tail)
			continue;
		kept++;
		cJSON *c = cJSON_CreateObject();
		cJSON_AddNumberToObject(c, "line", t->cmds[i].line);
		cJSON_AddStringToObject(c, "command", t->cmds[i].cmd);
		cJSON_AddBoolToObject(c, "ok", t->cmds[i].ok);
		if (t->cmds[i].passed >= 0)
			cJSON_AddBoolToObject(c, "assertion_held", t->cmds[i].passed == 1);
		cJSON_AddItemToArray(ca, c);
	}
	cJSON_AddNumberToObject(x, "command_results_omitted", t->ncmds - kept);
	return o;
}

/* The CTRF document, NULL when out of memory. */
static char *ctrf_text(const struct run *r, char *const *names)
{
	cJSON *root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "reportFormat", "CTRF");
	cJSON_AddStringToObject(root, "specVersion", "0.0.0");
	char ts[32];
	iso8601(r->stop_ms, ts, sizeof ts);
	cJSON_AddStringToObject(root, "timestamp", ts);
	cJSON_AddStringToObject(root, "generatedBy", "dsh-run " TOOL_VERSION);
	cJSON *res = cJSON_AddObjectToObject(root, "results");
	cJSON *tool = cJSON_AddObjectToObject(res, "tool");
	cJSON_AddStringToObject(tool, "name", "dsh-run");
	cJSON_AddStringToObject(tool, "version", TOOL_VERSION);
	cJSON *sum = cJSON_AddObjectToObject(res, "summary");
	cJSON *tests = cJSON_AddArrayToObject(res, "tests");
	/* the summary counts the statuses the tests were written with */
	unsigned cnt[ST_OTHER + 1] = { 0 };
	size_t nt = (size_t)r->nscripts * r->n;
	for (size_t i = 0; i < nt; i++) {
		const struct result *t = &r->res[i];
		cJSON_AddItemToArray(tests, test_of(t, names[i / r->n]));
		cnt[t->status < ST_OTHER ? t->status : ST_OTHER]++; /* status_name's "other" */
	}
	cJSON_AddNumberToObject(sum, "tests", (double)nt);
	cJSON_AddNumberToObject(sum, "passed", cnt[ST_PASSED]);
	cJSON_AddNumberToObject(sum, "failed", cnt[ST_FAILED]);
	cJSON_AddNumberToObject(sum, "pending", 0);
	cJSON_AddNumberToObject(sum, "skipped", cnt[ST_SKIPPED]);
	cJSON_AddNumberToObject(sum, "other", cnt[ST_OTHER]);
	cJSON_AddNumberToObject(sum, "suites", r->nscripts);
	cJSON_AddNumberToObject(sum, "start", (double)r->start_ms);
	cJSON_AddNumberToObject(sum, "stop", (double)r->stop_ms);
	cJSON_AddNumberToObject(sum, "duration", (double)(r->stop_ms - r->start_ms));
	cJSON *env = cJSON_AddObjectToObject(res, "environment");
	struct utsname u;
	if (uname(&u) == 0) {
		cJSON_AddStringToObject(env, "osPlatform", "linux");
		cJSON_AddStringToObject(env, "osRelease", u.release);
		cJSON_AddStringToObject(env, "osVersion", u.version);
	}
	cJSON_AddStringToObject(env, "appName", "DIMMnet-2");
	cJSON_AddBoolToObject(env, "healthy", cnt[ST_FAILED] + cnt[ST_OTHER] == 0 && !r->signal);
	cJSON_AddItemToObject(res, "extra", run_extra(r));
	char *text = cJSON_Print(root);
	cJSON_Delete(root);
	return text;
}

int report_ctrf(const struct run *r, const char *path)
{
	char **names = report_script_names(r);
	char *text = names ? ctrf_text(r, names) : NULL;
	report_names_free(names, r->nscripts);
	int rc = write_report("CTRF", path, text, path == r->report ? r->report_out : NULL);
	free(text);
	return rc;
}

/* ---- JUnit ---------------------------------------------------------------------------- */

/* XML text: the five predefined entities, and the C0 controls XML 1.0
 * forbids even as references as U+FFFD.  In an attribute value tab, LF and
 * CR are references, which readers keep (they turn the bare ones into
 * spaces).  Invalid UTF-8 is left to write_report. */
static void xml_put(FILE *f, const char *s, bool attr)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		switch (c) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		case '\t': case '\n': case '\r':
			if (attr)
				fprintf(f, "&#%u;", c);
			else
				fputc(c, f);
			break;
		default:
			if (c < 0x20)
				fputs(REPLACEMENT, f);
			else
				fputc(c, f);
		}
	}
}

/* What a test's <testcase> holds besides its stderr: nothing (passed), or
 * one <failure>, <error> or <skipped>. */
enum jkind { J_PASSED, J_FAILURE, J_ERROR, J_SKIPPED, J_KINDS };
static const char *const jelem[J_KINDS] = { "", "failure", "error", "skipped" };

/* The one place that decides a test's element: junit_case writes it and
 * junit_count counts it, so the counts in the headers are those of the
 * elements. */
static enum jkind junit_kind(const struct result *t)
{
	switch (t->status) {
	case ST_PASSED: return J_PASSED;
	case ST_FAILED: return J_FAILURE;
	case ST_SKIPPED: return J_SKIPPED;
	default: return J_ERROR;
	}
}

static void junit_count(const struct result *res, size_t n, unsigned cnt[J_KINDS])
{
	memset(cnt, 0, J_KINDS * sizeof *cnt);
	for (size_t i = 0; i < n; i++)
		cnt[junit_kind(&res[i])]++;
}

/* tests="N" failures="N" errors="N" skipped="N" of a header. */
static void junit_counts_attr(FILE *f, size_t tests, const unsigned cnt[J_KINDS])
{
	fprintf(f, "tests=\"%zu\" failures=\"%u\" errors=\"%u\" skipped=\"%u\"", tests, cnt[J_FAILURE],
		cnt[J_ERROR], cnt[J_SKIPPED]);
}

/* A testcase's classname: "dsh-run." and the script's name without its
 * .dsh extension, every other dot made '_' (D-JUNIT-CLASSNAME).  Jenkins
 * splits a classname at its last dot into package and class, so
 * "dsh-run.status_ring_wrap.dsh" showed as class "dsh" of package
 * "dsh-run.status_ring_wrap"; now the package is dsh-run and the class the
 * script ("b/t.dsh #2" gives "dsh-run.b/t #2"). */
char *report_junit_classname(const char *script_name)
{
	size_t n = strlen(script_name);
	const char *suffix = strstr(script_name, " #"); /* the second of two same names */
	size_t base = suffix ? (size_t)(suffix - script_name) : n;
	size_t keep = base >= 4 && memcmp(script_name + base - 4, ".dsh", 4) == 0 ? base - 4 : base;
	char *s = malloc(sizeof "dsh-run." + n);
	if (!s)
		return NULL;
	char *o = stpcpy(s, "dsh-run.");
	for (size_t i = 0; i < n; i++) {
		if (i >= keep && i < base)
			continue;
		*o++ = script_name[i] == '.' ? '_' : script_name[i];
	}
	*o = 0;
	return s;
}

static void junit_case(FILE *f, const struct result *t, const char *script_name)
{
	enum jkind k = junit_kind(t);
	const char *file;
	int line;
	test_where(t, &file, &line);
	uint64_t dur = t->stop_ms > t->start_ms ? t->stop_ms - t->start_ms : 0;
	char *name = test_name(script_name, t->rank);
	fprintf(f, "    <testcase name=\"");
	xml_put(f, name ? name : script_name, true);
	free(name);
	char *cls = report_junit_classname(script_name);
	fprintf(f, "\" classname=\"");
	xml_put(f, cls ? cls : "dsh-run", true);
	free(cls);
	fprintf(f, "\" file=\"");
	xml_put(f, file, true);
	fprintf(f, "\" line=\"%d\" time=\"%.3f\"", line, (double)dur / 1000.0);
	if (k == J_PASSED && !t->ran_on[0]) {
		fprintf(f, "/>\n");
		return;
	}
	fprintf(f, ">\n");
	if (t->ran_on[0]) { /* where it ran (hosts.c, D-RUN-HOSTS) */
		fprintf(f, "      <properties>\n        <property name=\"host\" value=\"");
		xml_put(f, t->ran_on, true);
		fprintf(f, "\"/>\n      </properties>\n");
	}
	if (k == J_PASSED) {
		fprintf(f, "    </testcase>\n");
		return;
	}
	fprintf(f, "      <%s message=\"", jelem[k]);
	xml_put(f, t->message, true);
	fprintf(f, "\" type=\"%s\">",
		t->timed_out ? "timeout" : t->nfail ? "dsh" : k == J_SKIPPED || t->not_run ? "not run" : "run");
	char *ft = failure_text(t);
	xml_put(f, ft, false);
	free(ft);
	fprintf(f, "</%s>\n", jelem[k]);
	char *err = excerpt(t->err_path, SYSTEM_ERR_MAX);
	char *lerr = !t->have_summary && t->launcher_err[0] ? excerpt(t->launcher_err, SYSTEM_ERR_MAX) : NULL;
	if ((err && *err) || (lerr && *lerr)) {
		fprintf(f, "      <system-err>");
		xml_put(f, err, false);
		if (lerr && *lerr) {
			fprintf(f, "-- stderr of the launcher --\n");
			xml_put(f, lerr, false);
		}
		fprintf(f, "</system-err>\n");
	}
	free(err);
	free(lerr);
	fprintf(f, "    </testcase>\n");
}

static void junit_suite(FILE *f, const struct run *r, unsigned s, const char *script_name, const char *ts,
			const char *host)
{
	const struct result *res = &r->res[(size_t)s * r->n];
	unsigned cnt[J_KINDS];
	junit_count(res, r->n, cnt);
	uint64_t t0 = UINT64_MAX, t1 = 0;
	for (unsigned k = 0; k < r->n; k++) {
		t0 = res[k].start_ms < t0 ? res[k].start_ms : t0;
		t1 = res[k].stop_ms > t1 ? res[k].stop_ms : t1;
	}
	fprintf(f, "  <testsuite name=\"");
	xml_put(f, script_name, true);
	fprintf(f, "\" ");
	junit_counts_attr(f, r->n, cnt);
	fprintf(f, " time=\"%.3f\" timestamp=\"%s\" hostname=\"", t1 > t0 ? (double)(t1 - t0) / 1000.0 : 0.0, ts);
	xml_put(f, host, true);
	fprintf(f, "\">\n    <properties>\n");
	fprintf(f, "      <property name=\"backend\" value=\"");
	xml_put(f, r->backend ? r->backend_shown : r->table ? "node table" : "sim (private dnetd)", true);
	fprintf(f, "\"/>\n      <property name=\"launcher\" value=\"%s\"/>\n", launcher_name(r->launcher));
	fprintf(f, "      <property name=\"ranks\" value=\"%u\"/>\n    </properties>\n", r->n);
	for (unsigned k = 0; k < r->n; k++)
		junit_case(f, &res[k], script_name);
	fprintf(f, "  </testsuite>\n");
}

/* The JUnit document, NULL when out of memory. */
static char *junit_text(const struct run *r, char *const *names)
{
	struct mem m;
	if (!mem_open(&m))
		return NULL;
	size_t nt = (size_t)r->nscripts * r->n;
	unsigned cnt[J_KINDS];
	junit_count(r->res, nt, cnt);
	char ts[32], host[256] = "localhost";
	iso8601(r->start_ms, ts, sizeof ts);
	gethostname(host, sizeof host - 1);
	fprintf(m.f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"dsh-run\" ");
	junit_counts_attr(m.f, nt, cnt);
	fprintf(m.f, " time=\"%.3f\">\n", (double)(r->stop_ms - r->start_ms) / 1000.0);
	for (unsigned s = 0; s < r->nscripts; s++)
		junit_suite(m.f, r, s, names[s], ts, host);
	fprintf(m.f, "</testsuites>\n");
	return mem_close(&m);
}

int report_junit(const struct run *r, const char *path)
{
	char **names = report_script_names(r);
	char *text = names ? junit_text(r, names) : NULL;
	report_names_free(names, r->nscripts);
	int rc = write_report("JUnit", path, text, path == r->junit ? r->junit_out : NULL);
	free(text);
	return rc;
}
